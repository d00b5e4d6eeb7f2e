"""Costs of many orderings at once: network path cost and list-schedule makespan.

Network cost (Kong [1]_, "Iteratively computing path costs"): with a mapping
``m`` of tasks to processors, an ordering ``o`` costs ``sum_k w(o_k, o_k+1) *
hops[m(o_k), m(o_k+1)]``: the distance the execution path travels. With
``weight="hops"`` every consecutive pair weighs 1; with ``weight="data"`` it
weighs the per-hop delay of the arc between them (``latency + data /
bandwidth``; 0 for an order pair or no arc), which is Kong's path cost where
the synchronisation map is intersected with the dependences.

Makespan: :class:`BatchSchedule` runs the list scheduler of
:mod:`heuristics.eft` on many orderings side by side, one ordering per row:
the ``k``-th step places the ``k``-th task of every row. Its rules are those of
:class:`heuristics.eft.ScheduleBuilder` (insertion into idle gaps, zero-cost
tasks, affinity, multi-hop communication, isolation partners blocking every
processor, least finish time with ties to the lowest processor), so a row's
makespan equals ``list_schedule`` with that ordering as priority list; the
tests check it. Busy intervals of each row and processor are kept sorted in
padded ``(rows, P, n)`` arrays.

References
----------
.. [1] M. Kong, "Polyhedral Network Aware Task Scheduling", CnC'17 workshop, 2017.
.. [2] H. Topcuoglu, S. Hariri, M.-Y. Wu, IEEE TPDS 13(3), 260-274, 2002
   (insertion-based earliest finish time). doi:10.1109/71.993206
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from exactsched._time_grid import snap, time_resolution
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.schedule import Schedule

__all__ = ["BatchSchedule", "network_costs", "pair_costs", "resolve_mapping"]


def resolve_mapping(problem: Problem, mapping: Any = None) -> np.ndarray:
    """``(n,)`` processor index of every task from a schedule, a dict, a list, or affinity.

    Parameters
    ----------
    problem : Problem
    mapping : Schedule, mapping, sequence or None
        A :class:`~exactsched.Schedule` (its processors), a mapping task id ->
        processor id, a sequence of processor indices or ids in task order, or
        None: each task's affinity must then pin it to one processor.

    Raises
    ------
    MethodError
        Naming the task whose processor is missing, unknown or outside its
        affinity, or a task of the mapping that the instance does not have.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1], n_processors=2, affinity={0: [1], 1: [0]})
    >>> resolve_mapping(p).tolist(), resolve_mapping(p, {"t0": "p1", "t1": "p0"}).tolist()
    ([1, 0], [1, 0])
    """
    n, ids = problem.n_tasks, problem.task_ids
    if mapping is None:
        count = problem.allowed.sum(axis=1)
        loose = np.flatnonzero(count != 1)
        if len(loose):
            t = int(loose[0])
            raise MethodError(
                f"mapping: task {ids[t]} may run on {int(count[t])} processors; "
                "give a mapping (a schedule file or task -> processor)"
            )
        return np.argmax(problem.allowed, axis=1).astype(np.int64)
    if isinstance(mapping, Schedule | Mapping):
        # A task the instance lacks is most likely a typo or a schedule of another
        # instance: refused rather than ignored (an outside audit).
        extra = [t for t in mapping if t not in problem.task_index]
        if extra:
            raise MethodError(f"mapping: task {extra[0]!r} is not in the instance")
        procs = []
        for t in ids:
            if t not in mapping:
                raise MethodError(f"mapping: task {t} has no processor")
            value = mapping[t]
            procs.append(value.processor if isinstance(mapping, Schedule) else value)
    else:
        procs = list(mapping)
        if len(procs) != n:
            raise MethodError(f"mapping: {len(procs)} processors for {n} tasks")
    out = np.empty(n, dtype=np.int64)
    for i, value in enumerate(procs):
        if isinstance(value, str):
            if value not in problem.proc_index:
                raise MethodError(f"mapping: task {ids[i]}: unknown processor {value!r}")
            k = problem.proc_index[value]
        elif isinstance(value, int | np.integer) and 0 <= value < problem.n_processors:
            k = int(value)
        else:
            raise MethodError(f"mapping: task {ids[i]}: bad processor {value!r}")
        if not problem.allowed[i, k]:
            raise MethodError(
                f"mapping: task {ids[i]} may not run on {problem.proc_ids[k]} (affinity)"
            )
        out[i] = k
    return out


def pair_costs(problem: Problem, mapping: np.ndarray, weight: str = "hops") -> np.ndarray:
    """``(n, n)`` cost of running task ``b`` right after task ``a`` under ``mapping``.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1], [(0, 1, 3)], n_processors=2)
    >>> pair_costs(p, np.array([0, 1])).tolist(), pair_costs(p, np.array([0, 1]), "data").tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [[0.0, 3.0], [0.0, 0.0]])
    """
    mapping = np.asarray(mapping, dtype=np.int64)
    hops = problem.hops[np.ix_(mapping, mapping)].astype(float)
    if weight == "hops":
        pair = hops
    elif weight == "data":
        n = problem.n_tasks
        w = np.zeros((n, n))
        np.maximum.at(w, (problem.arc_src, problem.arc_dst), problem.arc_unit.astype(float))
        with np.errstate(over="ignore", invalid="ignore"):
            pair = w * hops
    else:
        raise MethodError(f"weight: must be 'hops' or 'data', not {weight!r}")
    # An infinite pair cost would make every path through it cost inf, and no least
    # cost could be told apart; refused as the loader refuses times that overflow.
    bad = np.argwhere(~np.isfinite(pair))
    if len(bad):
        a, b = (int(v) for v in bad[0])
        ids = problem.task_ids
        raise MethodError(
            f"network cost: the cost of {ids[b]!r} right after {ids[a]!r} is not finite "
            "(more than the largest float, 1.8e308); scale the hops or the data down"
        )
    return pair


def network_costs(orderings: np.ndarray, pair: np.ndarray) -> np.ndarray:
    """``(rows,)`` path cost of each ordering: the sum of ``pair`` over consecutive tasks.

    Examples
    --------
    >>> pair = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    >>> network_costs(np.array([[0, 1, 2], [0, 2, 1]]), pair).tolist()
    [2.0, 3.0]
    """
    o = np.asarray(orderings, dtype=np.int64)
    if o.shape[1] < 2:
        return np.zeros(len(o))
    with np.errstate(over="ignore"):  # an overflow gives inf, which the callers refuse
        return pair[o[:, :-1], o[:, 1:]].sum(axis=1)


class _Static:
    """Padded per-task arrays of a problem for the batch scheduler (read only)."""

    def __init__(self, problem: Problem) -> None:
        n = problem.n_tasks
        self.n, self.P = n, problem.n_processors
        self.cost = np.asarray(problem.cost, dtype=float)
        self.allowed = problem.allowed
        self.hops = np.asarray(problem.hops, dtype=float)
        # Incoming arcs of each task, padded to the largest in-degree (pad: source 0, unit 0,
        # invalid); same for isolation partners.
        self.in_src, self.in_unit, self.in_ok = self._pad(
            [
                problem.arc_src[problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]]]
                for j in range(n)
            ],
            [
                problem.arc_unit[problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]]]
                for j in range(n)
            ],
        )
        self.iso, _, self.iso_ok = self._pad(
            [problem.isolation_partners(j) for j in range(n)], None
        )
        self.has_iso = bool(len(problem.iso_a))
        # Decimal data: times rounded to the grid, as in ScheduleBuilder (exactsched._time_grid).
        self.grid = time_resolution(problem)
        # Held integer data add up exactly (models._grid), and rounded decimal times are
        # the exact ones: then the per-gap test alone is ScheduleBuilder's. Otherwise
        # its float-faithful form.
        from models._grid import data_grid

        grid = data_grid(problem)
        self.exact = (grid.kind == "integer" and grid.held) or self.grid is not None

    @staticmethod
    def _pad(
        rows: list[np.ndarray], values: list[np.ndarray] | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        width = max([len(r) for r in rows] + [1])
        idx = np.zeros((len(rows), width), dtype=np.int64)
        val = np.zeros((len(rows), width))
        ok = np.zeros((len(rows), width), dtype=bool)
        for j, r in enumerate(rows):
            idx[j, : len(r)] = r
            ok[j, : len(r)] = True
            if values is not None:
                val[j, : len(r)] = values[j]
        return idx, val, ok


def require_delay_model(problem: Problem) -> None:
    """Refuse makespan costs under single-port or contention (a MethodError saying why).

    Messages that queue for ports or links are booked one schedule at a time
    (:class:`heuristics.eft.ScheduleBuilder`); costed as delays, orderings would
    look shorter than any schedule of the instance. Callers ask first, before
    any search or count they would otherwise spend time on.
    """
    if problem.communication != "delay":
        raise MethodError(
            f"makespan costs: the instance's communication model is "
            f"{problem.communication!r}; ordering makespans are computed under the delay "
            "model only (schedule one ordering with ordering_schedule, or cost the "
            "orderings of the instance under 'delay')"
        )


class BatchSchedule:
    """List schedules of many orderings built side by side (one ordering per row).

    Parameters
    ----------
    problem : Problem
    rows : int
        Number of schedules.
    insertion : bool
        Insertion-based placement (default True), as in :class:`heuristics.eft.ScheduleBuilder`.

    Attributes
    ----------
    proc, start, finish : numpy.ndarray
        ``(rows, n)``; -1 / nan while a task is unplaced.

    Examples
    --------
    >>> from heuristics.eft import list_schedule
    >>> p = Problem.from_lists([[2, 3], [1, 1], [4, 2]], [(0, 1, 4), (0, 2, 1)])
    >>> orders = np.array([[0, 1, 2], [0, 2, 1]])
    >>> b = BatchSchedule(p, 2)
    >>> for k in range(3):
    ...     b.step(orders[:, k])
    >>> b.makespan().tolist(), list_schedule(p, [3.0, 2.0, 1.0]).makespan
    ([5.0, 5.0], 5)
    """

    def __init__(self, problem: Problem, rows: int, *, insertion: bool = True) -> None:
        require_delay_model(problem)
        self.problem = problem
        self.insertion = bool(insertion)
        self._s = _Static(problem)
        n, P = self._s.n, self._s.P
        self.proc = np.full((rows, n), -1, dtype=np.int64)
        self.start = np.full((rows, n), np.nan)
        self.finish = np.full((rows, n), np.nan)
        # Busy intervals of each processor, sorted; padding is [inf, inf).
        self._bs = np.full((rows, P, n), np.inf)
        self._bf = np.full((rows, P, n), np.inf)
        self._last = np.zeros((rows, P))  # end of the last busy interval

    @property
    def rows(self) -> int:
        return len(self.proc)

    def take(self, rows: np.ndarray) -> BatchSchedule:
        """A new batch holding copies of the given rows (repeats allowed)."""
        other = object.__new__(BatchSchedule)
        other.problem, other.insertion, other._s = self.problem, self.insertion, self._s
        for name in ("proc", "start", "finish", "_bs", "_bf", "_last"):
            setattr(other, name, getattr(self, name)[rows])
        return other

    def makespan(self) -> np.ndarray:
        """``(rows,)`` largest finish time so far (0 when nothing is placed)."""
        if not self.rows:
            return np.zeros(0)
        f = np.where(np.isnan(self.finish), 0.0, self.finish)
        return f.max(axis=1)

    def _ready(self, task: np.ndarray) -> np.ndarray:
        """``(rows, P)`` data-ready time of each row's task on every processor."""
        s = self._s
        r = np.arange(self.rows)[:, None]
        src = s.in_src[task]  # (rows, D)
        fin = self.finish[r, src]
        where = self.proc[r, src]
        unit = s.in_unit[task]
        ok = s.in_ok[task]
        t = fin[:, :, None] + unit[:, :, None] * s.hops[np.maximum(where, 0)]
        t = np.where(ok[:, :, None], t, 0.0)
        return snap(t.max(axis=1), s.grid)

    def _timeline(self, ready: np.ndarray, d: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """Earliest start at or after ``ready`` in each processor's timeline, ``(rows, P)``."""
        if self.insertion:
            zeros = np.zeros(self._bf.shape[:2] + (1,))
            prev_end = np.concatenate([zeros, self._bf], axis=2)  # gap j starts here
            inf = np.full_like(zeros, np.inf)
            next_start = np.concatenate([self._bs, inf], axis=2)  # ... and ends here
            begin = np.maximum(prev_end, ready[:, :, None])
            begin[snap(begin + d[:, :, None], self._s.grid) > next_start] = np.inf
            if self._s.exact:
                est = begin.min(axis=2)
            else:
                est = self._float_faithful(begin, prev_end, next_start, ready)
            zero = d == 0
            est[zero] = ready[zero]  # a zero-cost task occupies nothing
        else:
            est = np.maximum(self._last, ready)
        est[~allowed] = np.inf
        return est

    def _float_faithful(
        self,
        begin: np.ndarray,
        prev_end: np.ndarray,
        next_start: np.ndarray,
        ready: np.ndarray,
    ) -> np.ndarray:
        """Earliest starts with ScheduleBuilder's float tests, for non-integer or huge data.

        Its idle gaps are the non-empty ones before the last busy interval
        (touching intervals leave none, so a sub-ulp task, whose float end equals
        its start, is not squeezed in between). ScheduleBuilder's prefilters (a
        gap's length with two ulps of its end to spare, ``ready + d`` against the
        latest gap end) pass every gap that fits, so the per-gap test alone gives
        its starts.
        """
        gap = np.isfinite(next_start) & (prev_end < next_start)
        begin[~gap] = np.inf
        return np.minimum(begin.min(axis=2), np.maximum(self._last, ready))

    def _isolation(
        self, task: np.ndarray, est: np.ndarray, d: np.ndarray, allowed: np.ndarray
    ) -> np.ndarray:
        """Push starts past placed isolation partners (the loop of ScheduleBuilder)."""
        s = self._s
        r = np.arange(self.rows)[:, None]
        part = s.iso[task]
        bs, bf = self.start[r, part], self.finish[r, part]
        where = self.proc[r, part]
        # A partner of positive cost blocks even when its float finish equals its
        # start (a sub-ulp cost), as in ScheduleBuilder: it may lie inside the task.
        valid = s.iso_ok[task] & (where >= 0) & (s.cost[part, np.maximum(where, 0)] > 0)
        if not valid.any():
            return est
        bs, bf = bs[:, None, :], bf[:, None, :]
        valid = valid[:, None, :]
        active = (d > 0) & np.isfinite(est)
        while True:
            end = snap(est + d, s.grid)
            clash = (bs < end[:, :, None]) & (bf > est[:, :, None]) & valid & active[:, :, None]
            moved = clash.any(axis=2)
            if not moved.any():
                return est
            jump = np.where(clash, bf, -np.inf).max(axis=2)
            est = self._timeline(np.where(moved, jump, est), d, allowed)

    def earliest(self, task: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, P)`` earliest start and duration of each row's ``task``."""
        s = self._s
        d = s.cost[task]
        allowed = s.allowed[task]
        est = self._timeline(self._ready(task), d, allowed)
        if s.has_iso:
            est = self._isolation(task, est, d, allowed)
        return est, d

    def step(self, task: np.ndarray, processor: np.ndarray | None = None) -> None:
        """Place ``task[r]`` in row ``r``: at least finish time, or on ``processor[r]``."""
        task = np.asarray(task, dtype=np.int64)
        est, d = self.earliest(task)
        if processor is None:
            p = np.argmin(snap(est + d, self._s.grid), axis=1)
        else:
            p = np.asarray(processor, dtype=np.int64)
        r = np.arange(self.rows)
        s, dur = est[r, p], d[r, p]
        if not np.isfinite(s).all():
            raise MethodError("orderings: a task cannot be placed on its mapped processor")
        f = snap(s + dur, self._s.grid)
        self.proc[r, task] = p
        self.start[r, task] = s
        self.finish[r, task] = f
        # dur > 0, not f > s: a sub-ulp cost (0.003 at 2e15) still occupies [s, s],
        # as in ScheduleBuilder and the validator; no later task may span it.
        busy = dur > 0
        if busy.any():
            rb, pb, sb, fb = r[busy], p[busy], s[busy], f[busy]
            row_s, row_f = self._bs[rb, pb], self._bf[rb, pb]  # (k, n)
            earlier = row_s < sb[:, None]
            if not self._s.exact:
                # Sorted by (start, finish): a sub-ulp [s, s] before a task starting at s
                # (on exact data every booked interval is longer than 0: no such tie).
                earlier |= (row_s == sb[:, None]) & (row_f <= fb[:, None])
            pos = earlier.sum(axis=1)
            idx = np.arange(row_s.shape[1])[None, :]
            pad = np.full((len(rb), 1), np.inf)
            shift_s = np.concatenate([pad, row_s[:, :-1]], axis=1)
            shift_f = np.concatenate([pad, row_f[:, :-1]], axis=1)
            before, here = idx < pos[:, None], idx == pos[:, None]
            self._bs[rb, pb] = np.where(before, row_s, np.where(here, sb[:, None], shift_s))
            self._bf[rb, pb] = np.where(before, row_f, np.where(here, fb[:, None], shift_f))
            self._last[rb, pb] = np.maximum(self._last[rb, pb], fb)

    def schedule(self, row: int) -> Schedule:
        """The schedule of one finished row."""
        return Schedule.from_arrays(self.problem, self.proc[row], self.start[row])


def batch_makespans(
    problem: Problem,
    orderings: np.ndarray,
    *,
    mapping: np.ndarray | None = None,
    insertion: bool = True,
) -> np.ndarray:
    """``(rows,)`` makespan of the list schedule of each ordering.

    Parameters
    ----------
    problem : Problem
    orderings : numpy.ndarray
        ``(rows, n)`` legal orderings (task indices).
    mapping : numpy.ndarray, optional
        ``(n,)`` fixed processor of each task; default: least finish time (EFT).
    insertion : bool
        Insertion-based placement.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [1, 1], [4, 2]], [(0, 1, 4), (0, 2, 1)])
    >>> batch_makespans(p, np.array([[0, 1, 2], [0, 2, 1]])).tolist()
    [5.0, 5.0]
    """
    o = np.asarray(orderings, dtype=np.int64)
    batch = BatchSchedule(problem, len(o), insertion=insertion)
    for k in range(o.shape[1]):
        task = o[:, k]
        batch.step(task, None if mapping is None else np.asarray(mapping)[task])
    return batch.makespan()


def ordering_priority(ordering: Sequence[int] | np.ndarray) -> np.ndarray:
    """Priorities that make :func:`heuristics.eft.list_schedule` follow a legal ordering.

    Examples
    --------
    >>> ordering_priority([2, 0, 1]).tolist()
    [2.0, 1.0, 3.0]
    """
    o = np.asarray(ordering, dtype=np.int64)
    prio = np.empty(len(o))
    prio[o] = np.arange(len(o), 0, -1, dtype=float)
    return prio
