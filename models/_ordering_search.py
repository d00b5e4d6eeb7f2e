"""Branch and bound over ordering prefixes: the best priority list of a list scheduler.

The *best priority list* is the legal ordering whose list schedule (tasks
placed in that order by :class:`heuristics.eft.ScheduleBuilder` rules, on the
least finish time processor or on a fixed mapping) has the least makespan;
ties go to the lexicographically smallest ordering.

Search: depth first over blocks of prefixes, each block extended by one task
for all its rows at once with :class:`models._ordering_cost.BatchSchedule`.
A placed task never moves, so a prefix's partial makespan is a lower bound of
all its completions; so are ``head(v) + tail(v)`` for every unplaced task
(``head``: the latest finish of its placed ancestors plus the least costs of
the unplaced ones in between; ``tail``: least-cost bottom level) and the total
least work over the processors. Prefixes whose bound exceeds the incumbent
(first HEFT's ordering) are pruned, and so are prefixes whose partial schedule
equals that of a lexicographically smaller prefix (they have the same
completions): within a block by sorting, across blocks with a table of the
partial schedules already expanded (up to four million). The head bound
uses the real hop delays from placed predecessors. When the incumbent reaches
the instance's lower bound (:func:`exactsched.lower_bound`, or one given, for
instance a proven CP-SAT optimum) it is optimal and the search stops early.

The stack of open prefixes and the table are held within :data:`SEARCH_MEMORY`
bytes: past it the search stops as at the time limit, unproven, with the bound
of the open prefixes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from exactsched.problem import Problem

from ._ordering_cost import BatchSchedule, batch_makespans
from ._ordering_space import predecessor_masks

__all__ = ["SearchResult", "branch_and_bound", "priority_ordering", "tree_minimum"]

#: Bytes of partial schedules the stack of :func:`tree_minimum` may hold.
TREE_MEMORY = 256 * 2**20

#: Bytes the stack of open prefixes and the table of expanded partial schedules of
#: :func:`branch_and_bound` may hold; past it the search stops, unproven. One block's
#: expansion is kept within a quarter of it (and the table within half), so that
#: the peak stays within about twice this.
SEARCH_MEMORY = 2**30

#: Bytes a key of the table costs beyond its width: the bytes object's header,
#: allocator rounding and its share of the hash table (measured: 90 at width 640).
_KEY_OVERHEAD = 96

_ONE = np.int64(1)

#: Rows bounded between two checks of the time limit in :func:`branch_and_bound`.
_BOUND_ROWS = 8192


@dataclass(frozen=True)
class SearchResult:
    """Outcome of :func:`branch_and_bound`.

    Attributes
    ----------
    ordering : numpy.ndarray
        Best ordering found (task indices).
    makespan : float
        Its list-schedule makespan.
    proven : bool
        True when no legal ordering has a smaller makespan (search complete,
        or the makespan meets the lower bound).
    lower_bound : float
        Proven lower bound of the best priority list's makespan.
    nodes : int
        Prefixes generated.
    seconds : float
    stopped : str or None
        Why the search stopped before it was complete: ``"time limit"``, or
        ``"memory"`` (the stack and table held :data:`SEARCH_MEMORY` bytes);
        None when it ran to its end or the incumbent met the lower bound.
    """

    ordering: np.ndarray
    makespan: float
    proven: bool
    lower_bound: float
    nodes: int
    seconds: float
    stopped: str | None = None


def priority_ordering(problem: Problem, priority: np.ndarray) -> np.ndarray:
    """The ordering a ready-list scheduler follows for ``priority`` (ties: lowest index).

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 2)], n_processors=1)
    >>> priority_ordering(p, np.array([1.0, 3.0, 2.0])).tolist()
    [1, 0, 2]
    """
    pred = predecessor_masks(problem)
    prio = np.asarray(priority, dtype=float)
    placed, out = 0, []
    for _ in range(problem.n_tasks):
        ready = [
            v
            for v in range(problem.n_tasks)
            if not (placed >> v) & 1 and (int(pred[v]) & placed) == int(pred[v])
        ]
        v = max(ready, key=lambda t: (prio[t], -t))
        out.append(v)
        placed |= 1 << v
    return np.array(out, dtype=np.int64)


class _Bounds:
    """Static data for the prefix lower bounds."""

    def __init__(self, problem: Problem, mapping: np.ndarray | None) -> None:
        n = problem.n_tasks
        cost = problem.cost
        self.minc = (cost.min(axis=1) if mapping is None else cost[np.arange(n), mapping]).astype(
            float
        )
        self.topo = problem.topological_order.tolist()
        self.preds = [problem.predecessors(v).tolist() for v in range(n)]
        self.unit = [
            problem.arc_unit[
                problem.pred_arcs[problem.pred_ptr[v] : problem.pred_ptr[v + 1]]
            ].astype(float)
            for v in range(n)
        ]
        self.hops = np.asarray(problem.hops, dtype=float)
        # Execution time on each processor (inf outside affinity or off the fixed mapping).
        self.cost = np.asarray(cost, dtype=float)
        if mapping is not None:
            self.cost = np.full_like(self.cost, np.inf)
            self.cost[np.arange(n), mapping] = cost[np.arange(n), mapping]
        tail = np.zeros(n)
        for v in reversed(self.topo):
            succ = problem.successors(v)
            tail[v] = self.minc[v] + (tail[succ].max() if len(succ) else 0.0)
        self.tail = tail
        self.P = problem.n_processors if mapping is None else len(np.unique(mapping))

    def lower(self, batch: BatchSchedule, part: slice = slice(None)) -> np.ndarray:
        """Lower bound of every completion of each row's prefix (the rows ``part`` only)."""
        placed = batch.proc[part] >= 0
        finish, start = batch.finish[part], batch.start[part]
        proc = np.maximum(batch.proc[part], 0)
        ms = np.where(placed, finish, 0.0).max(axis=1, initial=0.0)  # partial makespan
        rows = len(ms)
        # fin[:, v]: a lower bound of v's finish. A placed predecessor u sends its data
        # from its processor (hop delays to each candidate processor q); an unplaced one
        # finishes at fin[:, u] at the earliest.
        fin = np.where(placed, finish, 0.0)
        for v in self.topo:
            if not self.preds[v]:
                ready = np.zeros((rows, self.cost.shape[1]))
            else:
                u = self.preds[v]
                sent = finish[:, u, None] + self.unit[v][None, :, None] * self.hops[proc[:, u]]
                sent = np.where(placed[:, u, None], sent, fin[:, u, None])
                ready = sent.max(axis=1)
            best = (ready + self.cost[v]).min(axis=1)
            fin[:, v] = np.where(placed[:, v], finish[:, v], best)
        path = np.where(placed, 0.0, fin + self.tail - self.minc).max(axis=1, initial=0.0)
        work = np.where(placed, finish - start, self.minc).sum(axis=1) / self.P
        return np.maximum(np.maximum(ms, path), work)


def _lex_le(prefix: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Rows of ``prefix`` (``(rows, k)``) lexicographically <= ``ref[:k]``."""
    k = prefix.shape[1]
    diff = prefix != ref[None, :k]
    first = np.where(diff.any(axis=1), diff.argmax(axis=1), k)
    r = np.arange(len(prefix))
    less = prefix[r, np.minimum(first, k - 1)] < ref[np.minimum(first, k - 1)]
    return (first == k) | less


def _nbytes(*arrays: np.ndarray | BatchSchedule) -> int:
    """Bytes held by the arrays, a batch counting every array it holds."""
    total = 0
    for a in arrays:
        if isinstance(a, BatchSchedule):
            total += sum(v.nbytes for v in vars(a).values() if isinstance(v, np.ndarray))
        else:
            total += a.nbytes
    return total


def _dedup(prefix: np.ndarray, batch: BatchSchedule) -> np.ndarray:
    """Indices of the first row of each distinct partial schedule, in order."""
    key = np.concatenate([batch.proc.astype(float), np.nan_to_num(batch.start, nan=-1.0)], axis=1)
    _, first = np.unique(key, axis=0, return_index=True)
    return np.sort(first)


def branch_and_bound(
    problem: Problem,
    *,
    mapping: np.ndarray | None = None,
    insertion: bool = True,
    time_limit: float | None = 60.0,
    lower_bound: float | None = None,
    initial: np.ndarray | None = None,
    chunk: int = 2048,
    stop_at_bound: bool = True,
    resolution: float | None = None,
) -> SearchResult:
    """Find, and prove, the best priority list by branch and bound over prefixes.

    Parameters
    ----------
    problem : Problem
    mapping : numpy.ndarray, optional
        Fixed processor of each task; default least finish time (EFT).
    insertion : bool
        Insertion-based placement.
    time_limit : float or None
        Seconds; on expiry the best ordering found is returned with
        ``proven=False`` and the least bound of the open prefixes (as computed
        when they were generated, or their parent's for a block cut short), so
        that stopping costs no new bounding. The same happens when the stack
        and the table of partial schedules hold more than :data:`SEARCH_MEMORY`
        bytes; ``stopped`` tells which.
    lower_bound : float, optional
        A known lower bound of every schedule (default
        :func:`exactsched.lower_bound`); reaching it ends the search.
    initial : numpy.ndarray, optional
        A first incumbent ordering (default HEFT's rank order).
    chunk : int
        Rows per block, at most: fewer when one block's expansion (a row per
        ready task) would take more than a quarter of :data:`SEARCH_MEMORY`.
    stop_at_bound : bool
        Stop as soon as the incumbent meets the lower bound (default). With
        False the search runs to the end and the result is the
        lexicographically smallest best ordering, as enumeration gives.
    resolution : float, optional
        Grid units per unit of time on decimal data
        (:func:`models.orderings.cost_resolution`): makespans are compared as the
        grid values they stand for and bounds as the least grid value not below
        them, so that a float rounding neither splits a tie nor prunes one.

    Returns
    -------
    SearchResult

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> r = branch_and_bound(p)
    >>> r.makespan, r.proven
    (73.0, True)
    """
    import exactsched
    from heuristics.heft import heft_priority

    t0 = time.perf_counter()
    n = problem.n_tasks
    pred = predecessor_masks(problem)
    bits = np.arange(n, dtype=np.int64)
    bounds = _Bounds(problem, mapping)
    global_lb = float(exactsched.lower_bound(problem) if lower_bound is None else lower_bound)
    inc = (
        priority_ordering(problem, heft_priority(problem))
        if initial is None
        else np.asarray(initial, dtype=np.int64)
    )
    inc_value = float(
        batch_makespans(problem, inc[None, :], mapping=mapping, insertion=insertion)[0]
    )
    nodes = 0

    def on_grid(value: Any) -> Any:
        """Makespans as the grid values they stand for (0.6 and 0.6000000000000001 tie)."""
        if resolution is None:
            return value
        return np.rint(np.asarray(value, dtype=float) * resolution)

    def bound_on_grid(value: Any) -> Any:
        """A bound as the least grid value not below it (every makespan is on the grid),
        less its float noise: a bound never prunes a tie it does not exceed."""
        if resolution is None:
            return value
        units = np.asarray(value, dtype=float) * resolution
        return np.ceil(units - 1e-9 * np.maximum(1.0, np.abs(units)))

    def result(proven: bool, lb: float, why: str | None = None) -> SearchResult:
        return SearchResult(
            inc.copy(),
            inc_value,
            proven,
            min(lb, inc_value),
            nodes,
            time.perf_counter() - t0,
            why,
        )

    if stop_at_bound and on_grid(inc_value) <= bound_on_grid(global_lb):
        return result(True, inc_value)
    memory = SEARCH_MEMORY  # read per call, so that tests can lower it
    # A block expands to a row per ready task (at most n), each row (3 + 2 P) n floats
    # of partial schedule plus its prefix: a block of 2048 rows of 40 tasks on two
    # processors expanded to about 190 MB, and the copies made while bounding and
    # splitting it take about as much again, so one expansion is kept within a quarter
    # of the cap.
    row_bytes = 8 * ((3 + 2 * problem.n_processors) * n + problem.n_processors + n + 1)
    chunk = max(1, min(chunk, memory // (4 * max(n, 1) * row_bytes)))
    seen: set[bytes] = set()  # partial schedules already expanded (bounded memory)
    max_seen = 4_000_000
    # Running estimates of the bytes held by the stack and by ``seen``, updated on every
    # push, pop and insertion: two roots joined to 38 tasks held 2.8 GB after 15 s.
    stack_bytes = seen_bytes = 0

    def out_of_time() -> bool:
        return time_limit is not None and time.perf_counter() - t0 > time_limit

    def stopped(why: str, popped: float = np.inf) -> SearchResult:
        # The open prefixes: the stack, and the piece being expanded (``popped``, its
        # parents' bound, which holds for its children too).
        open_lb = min([popped] + [entry[3] for entry in stack])
        return result(False, max(open_lb, global_lb), why)

    empty = BatchSchedule(problem, 1, insertion=insertion)
    root = (np.zeros((1, 0), dtype=np.int64), np.zeros(1, dtype=np.int64), empty)
    # Each entry keeps the least bound of its rows, computed when it was pushed, so that
    # the bound of the open prefixes at the time limit costs nothing: bounding the whole
    # stack again once out of time overran the limit by 100% (an outside audit). And
    # its bytes, so that popping it costs no recount.
    stack = [(*root, global_lb, _nbytes(*root))]
    stack_bytes += stack[0][4]
    while stack:
        if out_of_time():
            return stopped("time limit")
        if stack_bytes + seen_bytes > memory:
            return stopped("memory")
        prefix, placed, batch, parent_lb, size = stack.pop()
        stack_bytes -= size
        pm = placed[:, None]
        avail = ((pm & pred[None, :]) == pred[None, :]) & (((pm >> bits) & 1) == 0)
        rows, cols = np.nonzero(avail)
        nodes += len(rows)
        prefix = np.concatenate([prefix[rows], cols[:, None]], axis=1)
        placed = placed[rows] | (_ONE << cols)
        batch = batch.take(rows)
        batch.step(cols, None if mapping is None else mapping[cols])
        if prefix.shape[1] == n:
            ms = batch.makespan()
            grid_ms, grid_inc = on_grid(ms), on_grid(inc_value)
            best = int(np.argmin(grid_ms))  # first minimum: lexicographically smallest
            if grid_ms[best] < grid_inc or (
                grid_ms[best] == grid_inc and _lex_le(prefix[best : best + 1], inc)[0]
            ):
                inc, inc_value = prefix[best].copy(), float(ms[best])
                if stop_at_bound and grid_ms[best] <= bound_on_grid(global_lb):
                    return result(True, inc_value)
            continue
        # Bounded a slice at a time, to stop within a fraction of a second of the limit
        # (one call on a whole expanded piece, 75,000 rows of 40 tasks, took a second).
        lb = np.empty(len(prefix))
        for start in range(0, len(prefix), _BOUND_ROWS):
            if out_of_time():
                return stopped("time limit", parent_lb)
            part = slice(start, start + _BOUND_ROWS)
            lb[part] = bounds.lower(batch, part)
        grid_lb, grid_inc = bound_on_grid(lb), on_grid(inc_value)
        keep = (grid_lb < grid_inc) | ((grid_lb == grid_inc) & _lex_le(prefix, inc))
        if stop_at_bound:
            keep &= grid_lb < grid_inc
        keep = np.flatnonzero(keep)
        if not len(keep):
            continue
        prefix, placed, batch, lb = prefix[keep], placed[keep], batch.take(keep), lb[keep]
        # Table full (in keys or in half the memory, so that the stack keeps the other
        # half): merge equal partial schedules of this block only.
        if len(seen) >= max_seen or 2 * seen_bytes >= memory:
            first = _dedup(prefix, batch)
            if len(first) < len(prefix):
                prefix, placed, lb = prefix[first], placed[first], lb[first]
                batch = batch.take(first)
        else:
            # A partial schedule met before (in this block or an earlier one) came from a
            # lexicographically smaller prefix, as the search goes depth first in order,
            # whose completions were searched or pruned already.
            key = np.concatenate([batch.proc.astype(float), batch.start], axis=1)
            key = np.nan_to_num(key, nan=-1.0)
            raw = key.tobytes()
            width = key.shape[1] * 8
            fresh = []
            for i in range(len(key)):
                k = raw[i * width : (i + 1) * width]
                if k not in seen:
                    seen.add(k)
                    fresh.append(i)
            seen_bytes += len(fresh) * (width + _KEY_OVERHEAD)
            if len(fresh) < len(prefix):
                if not fresh:
                    continue
                idx = np.array(fresh)
                prefix, placed, batch, lb = prefix[idx], placed[idx], batch.take(idx), lb[idx]
        # Depth first, in lexicographic order: the first piece on top of the stack.
        for start in range((len(prefix) - 1) // chunk * chunk, -1, -chunk):
            sl = slice(start, start + chunk)
            # Copies, not views of the whole block, so that a popped piece frees its bytes.
            entry = (
                prefix[sl].copy(),
                placed[sl].copy(),
                batch.take(np.arange(start, min(start + chunk, len(prefix)))),
            )
            size = _nbytes(*entry)
            stack.append((*entry, float(lb[sl].min()), size))
            stack_bytes += size
    return result(True, inc_value)


def tree_minimum(
    problem: Problem,
    *,
    mapping: np.ndarray | None = None,
    insertion: bool = True,
    chunk: int = 8192,
    key: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[float, np.ndarray, int, int]:
    """Least list-schedule makespan over every legal ordering, by a shared-prefix tree.

    The enumeration of :func:`models._ordering_space.iter_orderings`, but each
    prefix's partial schedule is built once and extended by its children, and
    prefixes of a block whose partial schedules are equal are merged (they have
    the same completions) with a multiplicity. No pruning: every ordering is
    costed, the ones that were merged through their representative.

    ``key`` maps makespans to what is compared (default: the makespans): grid
    units on decimal data, so that a float rounding does not split a tie.

    Returns
    -------
    cost, ordering, ties, count
        Least makespan (the float makespan of the ordering returned), the
        lexicographically smallest ordering with it, the number of orderings
        with it, and the number of legal orderings.

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> cost, order, ties, count = tree_minimum(p)
    >>> cost, order.tolist(), ties, count
    (73.0, [0, 1, 2, 4, 3, 5, 6, 8, 7, 9], 24, 1680)
    """
    n = problem.n_tasks
    # The depth-first stack holds up to about n^2 / 2 pieces of ``chunk`` partial
    # schedules, each row (3 + 2 P) n floats: keep it within TREE_MEMORY.
    row_bytes = 8 * (3 + 2 * problem.n_processors) * max(n, 1) + 64
    chunk = max(1, min(chunk, TREE_MEMORY // (max(1, n * n // 2) * row_bytes)))
    pred = predecessor_masks(problem)
    bits = np.arange(n, dtype=np.int64)
    best, best_row, ties, total = np.inf, np.zeros(n, dtype=np.int64), 0, 0
    best_cost = np.inf
    stack = [
        (
            np.zeros((1, 0), dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            np.ones(1, dtype=object),
            BatchSchedule(problem, 1, insertion=insertion),
        )
    ]
    while stack:
        prefix, placed, mult, batch = stack.pop()
        while prefix.shape[1] < n and len(prefix) <= chunk:
            pm = placed[:, None]
            avail = ((pm & pred[None, :]) == pred[None, :]) & (((pm >> bits) & 1) == 0)
            rows, cols = np.nonzero(avail)
            prefix = np.concatenate([prefix[rows], cols[:, None]], axis=1)
            placed, mult = placed[rows] | (_ONE << cols), mult[rows]
            batch = batch.take(rows)
            batch.step(cols, None if mapping is None else mapping[cols])
            first, inverse = _dedup_groups(batch)
            if len(first) < len(prefix):
                merged = np.zeros(len(first), dtype=object)
                np.add.at(merged, inverse, mult)
                prefix, placed, mult = prefix[first], placed[first], merged
                batch = batch.take(first)
        if prefix.shape[1] < n:
            for start in range((len(prefix) - 1) // chunk * chunk, -1, -chunk):
                sl = slice(start, start + chunk)
                piece = batch.take(np.arange(start, min(start + chunk, len(prefix))))
                stack.append((prefix[sl], placed[sl], mult[sl], piece))
            continue
        ms = batch.makespan()
        keys = ms if key is None else key(ms)
        total += int(mult.sum())
        low = float(keys.min())
        if low < best:
            at = int(np.argmin(keys))
            best, best_row, best_cost, ties = low, prefix[at].copy(), float(ms[at]), 0
        if low == best:
            ties += int(mult[keys == low].sum())
    return best_cost, best_row, ties, total


def _dedup_groups(batch: BatchSchedule) -> tuple[np.ndarray, np.ndarray]:
    """First row of each distinct partial schedule (in row order) and each row's group."""
    key = np.concatenate([batch.proc.astype(float), np.nan_to_num(batch.start, nan=-1.0)], axis=1)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.ravel()]
