"""CP-SAT model of the exact scheduling problem, registered as method ``"cpsat"``.

Contract: :func:`cpsat` takes a :class:`~exactsched.problem.Problem` and returns a
:class:`~exactsched.result.Result` whose schedule (if any) is valid on the
original data (it is re-timed on them and checked by :func:`exactsched.validate`),
whose ``makespan`` is that schedule's true makespan and whose ``lower_bound``
is proven for the original problem. ``status`` is ``OPTIMAL`` only when the
makespan equals the proven bound.

Formulation (details and measurements in ``docs/exact-models.md``):

* *locations*: processors, except that a class of interchangeable processors
  among which communication is free (the CPU cores of an accelerated node, or
  all processors when nothing communicates) is pooled into one location of
  capacity ``k``: the type is chosen first, the core afterwards by interval
  colouring;
* one optional fixed-size interval per (task, allowed location) sharing the
  task start, ``add_exactly_one`` over the presences, ``add_no_overlap`` per
  processor and ``add_cumulative`` per pooled location;
* precedence ``start_j >= end_i`` for every arc and communication
  ``start_j >= end_i + delay`` where the locations need it ("levels" encoding:
  one literal per arc and distinct delay value);
* isolation pairs as a disjunction of two order literals (or a zero-length
  task); order pairs are arcs without communication;
* makespan ``>=`` every end, the foundation bounds of :mod:`exactsched.bounds`,
  placement heads and tails that see communication and fan-in/out
  (:func:`_placement_heads_tails`), per-location load cuts, value-precedence
  symmetry breaking between interchangeable processors, a horizon and a
  complete hint from the best heuristic schedule.

With 2 or more workers the full-problem worker is CP-SAT's
``objective_lb_search`` (option ``lb_search``).

Non-integer data are scaled by a resolution and rounded up (see
:func:`scale_data`); the solution is re-timed on the original numbers.

References
----------
.. [1] L. Perron and F. Didier, CP-SAT, OR-Tools, Google, https://developers.google.com/optimization.
.. [2] H. Topcuoglu, S. Hariri and M.-Y. Wu, IEEE TPDS 13(3), 2002 (list-scheduling warm start).
.. [3] T. McSweeney, N. Walton and M. Zounon, ICCS 2020 (CPU-GPU model, class-load reasoning).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from ortools.sat.python import cp_model

from exactsched.bounds import critical_path_bound, load_bound
from exactsched.bounds import lower_bound as foundation_lower_bound
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import HeuristicName, register
from exactsched.result import Result, Status
from exactsched.schedule import Schedule
from exactsched.validate import validate
from models._relocate import priority_search, relocation_search
from models._warmstart import delay_matrix, retime, simple_list_schedule, upward_rank

__all__ = [
    "cpsat",
    "scale_data",
    "processor_locations",
    "DEFAULT_HINT_HEURISTICS",
    "COMM_ENCODINGS",
    "STRAIGHTFORWARD",
]

#: Registered heuristics tried for the warm start (if registered), besides our own.
DEFAULT_HINT_HEURISTICS: tuple[str, ...] = (
    "heft",
    "peft",
    "cpop",
    "hoft",
    "heft-wm",
    "heft-lookahead",
    "peft-nc",
    "pets",
)

#: Communication encodings: "levels" (default), "dest", "pairs" (see the Notes of cpsat).
COMM_ENCODINGS: tuple[str, ...] = ("levels", "dest", "pairs")

#: Options giving the straightforward model the speed features are measured against.
STRAIGHTFORWARD: dict[str, Any] = {
    "hint": False,
    "horizon": "sum",
    "bounds": False,
    "load": False,
    "symmetry": False,
    "pooling": False,
    "comm": "pairs",
    "path_cuts": False,
    "lb_search": False,
    "relocate": 0,
}

# Relocation-search moves for the warm start ("auto"): per task, and at most.
_RELOCATE_PER_TASK = 20
_RELOCATE_MAX = 3000
# Largest scaled value aimed at when data must be rounded.
_TARGET_SCALE = 1e6
_TOL = 1e-9
# Path cuts pay on CPU-GPU nodes (few locations); on many processors they only
# slow the presolve down (measured in docs/exact-models.md).
_PATH_CUT_LOCATIONS = 4
# Above this many presence literals CP-SAT's presolve probing takes seconds and
# buys nothing measurable, so it is switched off.
_PROBING_LITERALS = 600


# ---- scaling ---------------------------------------------------------------------------


def _ceil_tol(values: np.ndarray) -> tuple[np.ndarray, bool]:
    """Round up, except values within a relative 1e-9 of an integer; and whether all were."""
    values = np.asarray(values, dtype=float)
    near = np.round(values)
    close = np.abs(values - near) <= _TOL * np.maximum(1.0, np.abs(values))
    return np.where(close, near, np.ceil(values)), bool(np.all(close))


@dataclass
class ScaledData:
    """Integer data of the CP-SAT model.

    Attributes
    ----------
    resolution : float
        Time units per original unit.
    exact : bool
        Whether every scaled value was an integer (then answers are exact).
    cost : numpy.ndarray
        ``(n, P)`` scaled execution times (float array of integers, ``inf`` outside affinity).
    delay : numpy.ndarray
        ``(n_arcs, P, P)`` scaled communication delays.
    slack : int
        Upper bound on the total rounding along one path of a schedule, in scaled units.
    """

    resolution: float
    exact: bool
    cost: np.ndarray
    delay: np.ndarray
    slack: int = 0


def scale_data(problem: Problem, resolution: float | None = None) -> ScaledData:
    """Scale and round the data of ``problem`` up to integers.

    Parameters
    ----------
    problem : Problem
    resolution : float, optional
        Time units per original unit. Default: 1 on integer data; else the
        smallest power of ten up to ``10**6`` that makes every cost and delay an
        integer; else the power of ten that maps the largest value to at most
        ``10**6``.

    Returns
    -------
    ScaledData

    Raises
    ------
    MethodError
        If ``resolution`` is not a positive finite number.

    Examples
    --------
    >>> p = Problem.from_lists([[1.5, 2.25]], n_processors=2)
    >>> s = scale_data(p)
    >>> s.resolution, s.exact, s.cost.tolist()
    (100, True, [[150.0, 225.0]])
    >>> scale_data(p, resolution=2).cost.tolist()   # 4.5 is rounded up
    [[3.0, 5.0]]

    Notes
    -----
    Costs and delays are rounded *up*, so a schedule valid on scaled data,
    divided by the resolution, is valid on the original data. The scaled
    optimum may exceed ``resolution * OPT``, but by less than one unit per
    task and per arc on the longest path of the optimal schedule, i.e. by less
    than ``slack`` (n, plus n - 1 if delays were rounded); so
    ``(scaled bound - slack) / resolution`` is a valid bound for the original.
    """
    finite = problem.cost[problem.allowed]
    delays = problem.arc_unit[:, None, None] * problem.hops[None, :, :]
    values = np.concatenate([finite, delays.ravel()])
    top = float(values.max()) if values.size else 0.0
    if resolution is None:
        if problem.is_integral:
            resolution = 1
        else:
            resolution = None
            for k in range(1, 7):
                if top * 10**k > 1e12:
                    break
                if _ceil_tol(values * 10**k)[1]:
                    resolution = 10**k
                    break
            if resolution is None:
                resolution = 10.0 ** math.floor(math.log10(_TARGET_SCALE / max(top, 1e-300)))
    elif (
        isinstance(resolution, bool)
        or not isinstance(resolution, int | float)
        or not math.isfinite(resolution)
        or resolution <= 0
    ):
        raise MethodError(f"resolution: expected a positive number, got {resolution!r}")
    cost, cost_exact = _ceil_tol(np.where(problem.allowed, problem.cost, 0.0) * resolution)
    cost = np.where(problem.allowed, cost, np.inf)
    delay, delay_exact = _ceil_tol(delays * resolution)
    n = problem.n_tasks
    slack = (0 if cost_exact else n) + (0 if delay_exact else max(0, n - 1))
    return ScaledData(resolution, cost_exact and delay_exact, cost, delay, slack)


# ---- processor classes and locations ---------------------------------------------------


def _swappable(problem: Problem, p: int, q: int) -> bool:
    """Whether exchanging processors p and q maps the instance onto itself."""
    if not np.array_equal(problem.cost[:, p], problem.cost[:, q]):
        return False
    if not np.any(problem.arc_unit > 0):
        return True  # nothing communicates: the network is irrelevant
    hops = problem.hops
    others = np.array([r for r in range(problem.n_processors) if r not in (p, q)], dtype=np.int64)
    return (
        np.array_equal(hops[p, others], hops[q, others])
        and np.array_equal(hops[others, p], hops[others, q])
        and hops[p, q] == hops[q, p]
    )


@dataclass
class Locations:
    """Where a task can be put in the model.

    Attributes
    ----------
    members : list of list of int
        Processors of each location (one, or a pooled class).
    of_processor : numpy.ndarray
        Location of each processor.
    symmetric : list of list of int
        Groups of single-processor locations that are interchangeable (size >= 2).
    classes : list of list of int
        All classes of interchangeable processors.
    """

    members: list[list[int]]
    of_processor: np.ndarray
    symmetric: list[list[int]] = field(default_factory=list)
    classes: list[list[int]] = field(default_factory=list)


def processor_locations(problem: Problem, *, pooling: bool = True) -> Locations:
    """Group interchangeable processors and pool those where the core does not matter.

    Two processors are interchangeable when they have the same cost for every
    task (affinity included) and swapping them leaves the hop matrix unchanged.
    A class of interchangeable processors is *pooled* (one location of
    capacity ``k``) when communication inside it is free: zero hops between
    its members, or no arc carries data at all.

    Examples
    --------
    >>> from topologies import platform_preset
    >>> import networkx as nx
    >>> g = nx.DiGraph(); g.add_node("a", cost={"cpu": 5, "gpu": 1})
    >>> p = Problem.from_networkx(g, platform_preset("hoft-single-gpu"))
    >>> loc = processor_locations(p)
    >>> [len(m) for m in loc.members], loc.symmetric
    ([7, 1], [])
    >>> processor_locations(p, pooling=False).symmetric
    [[0, 1, 2, 3, 4, 5, 6]]
    """
    n_procs = problem.n_processors
    classes: list[list[int]] = []
    for p in range(n_procs):
        for cls in classes:
            if all(_swappable(problem, p, q) for q in cls):
                cls.append(p)
                break
        else:
            classes.append([p])
    no_comm = not np.any(problem.arc_unit > 0)
    members: list[list[int]] = []
    symmetric: list[list[int]] = []
    for cls in classes:
        inner = problem.hops[np.ix_(cls, cls)]
        if pooling and len(cls) > 1 and (no_comm or not np.any(inner)):
            members.append(list(cls))
            continue
        first = len(members)
        members.extend([p] for p in cls)
        if len(cls) > 1:
            symmetric.append(list(range(first, first + len(cls))))
    order = sorted(range(len(members)), key=lambda k: members[k][0])
    members = [members[k] for k in order]
    renumber = {old: new for new, old in enumerate(order)}
    symmetric = [[renumber[k] for k in group] for group in symmetric]
    of_processor = np.zeros(n_procs, dtype=np.int64)
    for k, procs in enumerate(members):
        of_processor[procs] = k
    return Locations(members, of_processor, symmetric, classes)


# ---- warm start --------------------------------------------------------------------------


def _hint_candidates(
    problem: Problem,
    names: Sequence[str],
    report: Callable[[Schedule], Any] | None = None,
    *,
    relocate: int = 0,
    relocate_seconds: float = 2.0,
    target: float = 0.0,
    seed: int = 0,
) -> tuple[list[tuple[str, Schedule]], dict[str, str]]:
    """Valid schedules of our own list schedules and of the registered heuristics.

    ``report(schedule)`` is called on each candidate better than all before it,
    so a first schedule is out after one cheap list schedule. With
    ``relocate > 0`` the best one is then improved by that many moves of
    :func:`models._relocate.relocation_search` (when tasks have a choice of
    location) and as many tries of :func:`models._relocate.priority_search`,
    at most ``relocate_seconds`` in all; the latter stops at ``target``.
    """
    from exactsched.registry import available_methods

    found: list[tuple[str, Schedule]] = []
    errors: dict[str, str] = {}
    best = math.inf

    def keep(name: str, schedule: Schedule) -> None:
        nonlocal best
        found.append((name, schedule))
        if schedule.makespan < best:
            best = schedule.makespan
            if report is not None:
                report(schedule)

    delay = delay_matrix(problem)
    for how in ("mean", "min"):
        rank = upward_rank(problem, problem.cost, delay, how)
        proc, start = simple_list_schedule(problem, problem.cost, delay, rank)
        keep(f"list-{how}", Schedule.from_arrays(problem, proc, start))
    # On multi-hop networks with much data the greedy list schedules spread the
    # tasks far apart (80 x 16 fat-tree: 227); the same schedule restricted to
    # the k processors nearest to some processor is often much shorter (137).
    for k, members in _near_subsets(problem):
        cost = np.where(members[None, :], problem.cost, np.inf)
        rank = upward_rank(problem, cost, delay, "mean")
        proc, start = simple_list_schedule(problem, cost, delay, rank)
        keep(f"list-near{k}", Schedule.from_arrays(problem, proc, start))
    registered = {m.name: m for m in available_methods() if m.kind == "heuristic"}
    for name in names:
        if name not in registered:
            continue
        try:
            schedule = registered[name].func(problem)
        except Exception as exc:  # a colleague's heuristic must never break the model
            errors[name] = f"{type(exc).__name__}: {exc}"
            continue
        if not isinstance(schedule, Schedule) or validate(problem, schedule):
            errors[name] = "invalid schedule"
            continue
        keep(name, schedule)
    if relocate > 0 and relocate_seconds > 0:
        loc = processor_locations(problem)
        origin = loc.of_processor[min(found, key=lambda c: c[1].makespan)[1].arrays(problem)[0]]
        budget = relocate_seconds
        if len(loc.members) > 1:
            # Four climbs with half the moves each (one stalls after ~1000 moves
            # on Cholesky N = 8), from the best schedule and from every task on
            # its fastest location (all on the GPU there), alternately: the
            # local optima reached vary much with the seed (66,401-67,791).
            rep = [m[0] for m in loc.members]
            fastest = np.argmin(np.where(problem.allowed, problem.cost, np.inf)[:, rep], axis=1)
            climbs = [
                relocation_search(
                    problem,
                    loc.members,
                    start_from,
                    moves=(relocate + 1) // 2,
                    seconds=relocate_seconds / 8,
                    seed=seed + k,
                )
                for k, start_from in enumerate((origin, fastest, origin, fastest))
            ]
            _, proc, _ = min(climbs, key=lambda c: c[0])
            origin = loc.of_processor[proc]
            budget = relocate_seconds / 2
        # Then the same assignment under perturbed priorities (the order is
        # what the single-location STG instances need).
        _, proc, start = priority_search(
            problem, loc.members, origin, tries=relocate, seconds=budget, target=target, seed=seed
        )
        schedule = Schedule.from_arrays(problem, proc, start)
        if validate(problem, schedule):  # never expected: the scheduler honours every rule
            errors["relocate"] = "invalid schedule"
        else:
            keep("relocate", schedule)
    return found, errors


def _near_subsets(problem: Problem, limit: int = 24) -> list[tuple[int, np.ndarray]]:
    """Distinct sets of the ``k`` processors nearest to each processor (``k = 2, 4, ...``).

    Only when data travel over at least two hop distances (else every subset
    of a size is as near as another); ties by processor index; sets that leave
    a task without an allowed processor are skipped; at most ``limit`` sets.
    """
    n_procs = problem.n_processors
    if problem.n_edges == 0 or not np.any(problem.arc_unit > 0):
        return []
    if len(np.unique(problem.hops[~np.eye(n_procs, dtype=bool)])) < 2:
        return []
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[int, np.ndarray]] = []
    k = 2
    while k < n_procs and len(out) < limit:
        for p in range(n_procs):
            near = np.lexsort((np.arange(n_procs), problem.hops[p]))[:k]
            key = tuple(sorted(near.tolist()))
            if key in seen:
                continue
            seen.add(key)
            members = np.zeros(n_procs, dtype=bool)
            members[near] = True
            if problem.allowed[:, members].any(axis=1).all():
                out.append((k, members))
            if len(out) >= limit:
                break
        k *= 2
    return out


def _relabel(proc: np.ndarray, loc: Locations) -> np.ndarray:
    """Permute interchangeable processors so their first tasks come in processor order."""
    proc = proc.copy()
    for group in loc.symmetric:
        procs = [loc.members[k][0] for k in group]
        first = {p: (np.flatnonzero(proc == p)[:1].tolist() or [len(proc)])[0] for p in procs}
        ranked = sorted(procs, key=lambda p: (first[p], p))
        mapping = dict(zip(ranked, procs, strict=True))
        old = proc.copy()
        for src, dst in mapping.items():
            proc[old == src] = dst
    return proc


# ---- the model ---------------------------------------------------------------------------


class _Progress(cp_model.CpSolverSolutionCallback):
    """Reports each improving solution as (makespan, bound, seconds) in original units."""

    def __init__(
        self,
        callback: Callable[[float, float, float], Any] | None,
        resolution: float,
        slack: int,
        floor: float,
        started: float,
    ) -> None:
        super().__init__()
        self._callback = callback
        self._resolution = resolution
        self._slack = slack
        self._floor = floor
        self._started = started
        self.first_seconds: float | None = None
        self.trace: list[tuple[float, float, float]] = []

    def on_solution_callback(self) -> None:
        seconds = time.perf_counter() - self._started
        makespan = self.objective_value / self._resolution
        bound = max(self._floor, (self.best_objective_bound - self._slack) / self._resolution)
        if self.first_seconds is None:
            self.first_seconds = seconds
        self.trace.append((round(seconds, 4), makespan, bound))
        if self._callback is not None:
            self._callback(makespan, min(bound, makespan), seconds)


def _check_options(
    time_limit: Any, workers: Any, relative_gap: Any, horizon: Any, comm: Any, relocate: Any
) -> None:
    if time_limit is not None and (
        isinstance(time_limit, bool) or not isinstance(time_limit, int | float) or time_limit < 0
    ):
        raise MethodError(f"time_limit: expected a non-negative number, got {time_limit!r}")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise MethodError(f"workers: expected a positive integer, got {workers!r}")
    if (
        isinstance(relative_gap, bool)
        or not isinstance(relative_gap, int | float)
        or not (0 <= relative_gap < 1)
    ):
        raise MethodError(f"relative_gap: expected a number in [0, 1), got {relative_gap!r}")
    if horizon not in ("heuristic", "sum"):
        raise MethodError(f"horizon: expected 'heuristic' or 'sum', got {horizon!r}")
    if relocate != "auto" and (
        isinstance(relocate, bool) or not isinstance(relocate, int) or relocate < 0
    ):
        raise MethodError(f"relocate: expected 'auto' or a non-negative integer, got {relocate!r}")
    if comm not in COMM_ENCODINGS:
        raise MethodError(f"comm: expected one of {', '.join(COMM_ENCODINGS)}, got {comm!r}")


def _longest_paths(problem: Problem, dur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Heads (longest path before a task) and tails (longest path after it) with ``dur``."""
    head = np.zeros(problem.n_tasks)
    tail = np.zeros(problem.n_tasks)
    order = problem.topological_order.tolist()
    for j in order:
        preds = problem.predecessors(j)
        if len(preds):
            head[j] = (head[preds] + dur[preds]).max()
    for i in reversed(order):
        succs = problem.successors(i)
        if len(succs):
            tail[i] = (tail[succs] + dur[succs]).max()
    return head, tail


def _sequence_bound(items: list[tuple[float, float, float]], single: bool, tail: bool) -> float:
    """Least of ``max(remote, local)`` over which neighbours share the location.

    ``items`` are ``(remote, r, c)`` per neighbour: ``remote`` is the bound it
    gives when on another location, ``r`` a release (heads) or a tail (tails)
    and ``c`` its duration on this location (``inf``: not allowed there).
    Neighbours on the location run one after the other when ``single``; the
    best sequence is by release (heads) or by decreasing tail (tails, Jackson's
    rule). Only the neighbours with the largest remote bounds are worth keeping
    local, so scanning the remote bounds in decreasing order is exact.
    """
    items = sorted(items, key=lambda it: -it[0])
    best = math.inf
    local: list[tuple[float, float]] = []
    for k in range(len(items) + 1):
        remote = items[k][0] if k < len(items) else 0.0
        value = 0.0
        if local and not single:
            value = max(r + c for r, c in local)
        elif local and not tail:
            for r, c in sorted(local):
                value = max(value, r) + c
        elif local:
            t = 0.0
            for q, c in sorted(local, key=lambda z: -z[0]):
                t += c
                value = max(value, t + q)
        best = min(best, max(remote, value))
        if k == len(items) or not math.isfinite(items[k][2]):
            break  # this neighbour cannot share the location
        local.append((items[k][1], items[k][2]))
    return best


def _placement_heads_tails(
    problem: Problem, cost: np.ndarray, delay: np.ndarray, cap: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Heads and tails per placement that account for communication and fan-in/out.

    ``head[j, m]`` is a lower bound on the start of ``j`` if it runs on location
    ``m``: each predecessor ``i`` either runs elsewhere (its data arrive at the
    earliest ``head[i, k] + cost[i, k] + delay(k, m)`` over ``k != m``) or on
    ``m`` too, where such predecessors run one after the other (from their own
    heads on ``m``). ``tail[i, l]`` is a lower bound on the time from the start
    of ``i`` on ``l`` to the makespan, symmetrically over successors. Both hold
    for every schedule, so ``start_i >= sum_l head[i, l] x_il`` and
    ``makespan >= start_i + sum_l tail[i, l] x_il`` are valid cuts; unlike the
    critical path with least costs they see that a multi-hop network makes
    fan-in and fan-out pay either communication or serialisation.

    ``cost`` is ``(n, L)`` with ``inf`` outside the affinity, ``delay`` is
    ``(n_arcs, L, L)`` with a zero diagonal and ``cap`` the capacity of every
    location (pooled locations only get the weaker ``max(r + c)``).
    """
    n, n_locs = cost.shape
    allowed = np.isfinite(cost)
    head = np.zeros((n, n_locs))
    tail = np.zeros((n, n_locs))
    off = ~np.eye(n_locs, dtype=bool)
    order = problem.topological_order.tolist()
    for j in order:
        arcs = problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]].tolist()
        if not arcs:
            continue
        src = problem.arc_src[arcs]
        # arrive[t, m]: earliest arrival on m of arc t's data from another location
        fin = head[src] + cost[src]  # inf outside the affinity
        arrive = np.where(off[None], fin[:, :, None] + delay[arcs], np.inf).min(axis=1)
        for m in np.flatnonzero(allowed[j]).tolist():
            items = [(arrive[t, m], head[src[t], m], cost[src[t], m]) for t in range(len(arcs))]
            head[j, m] = _sequence_bound(items, cap[m] == 1, tail=False)
    for i in reversed(order):
        arcs = problem.succ_arcs[problem.succ_ptr[i] : problem.succ_ptr[i + 1]].tolist()
        if not arcs:
            tail[i] = np.where(allowed[i], cost[i], 0.0)
            continue
        dst = problem.arc_dst[arcs]
        # leave[t, l]: least time from the end of i on l to the makespan via arc t elsewhere
        rest = np.where(allowed[dst], tail[dst], np.inf)  # (k, L)
        leave = np.where(off[None], delay[arcs] + rest[:, None, :], np.inf).min(axis=2)
        for k in np.flatnonzero(allowed[i]).tolist():
            items = [
                (leave[t, k], tail[dst[t], k] - cost[dst[t], k], cost[dst[t], k])
                if allowed[dst[t], k]
                else (leave[t, k], 0.0, math.inf)
                for t in range(len(arcs))
            ]
            tail[i, k] = cost[i, k] + _sequence_bound(items, cap[k] == 1, tail=True)
    return head, tail


@register(
    "cpsat",
    kind="exact",
    description=(
        "CP-SAT model: optional intervals per (task, processor), pooled CPU cores, "
        "hop-aware communication, isolation, warm start from the best heuristic"
    ),
    source="Perron and Didier, OR-Tools CP-SAT; model of Topcuoglu et al. 2002 with networks",
)
def cpsat(
    problem: Problem,
    *,
    time_limit: float | None = None,
    workers: int | None = None,
    seed: int | None = 0,
    relative_gap: float = 0.0,
    log: bool = False,
    callback: Callable[[float, float, float], Any] | None = None,
    resolution: float | None = None,
    hint: bool = True,
    horizon: Literal["heuristic", "sum"] = "heuristic",
    bounds: bool = True,
    load: bool = True,
    symmetry: bool = True,
    pooling: bool = True,
    comm: Literal["levels", "dest", "pairs"] = "levels",
    path_cuts: bool | Literal["auto"] = "auto",
    lb_search: bool = True,
    relocate: int | Literal["auto"] = "auto",
    hint_heuristics: Sequence[HeuristicName] = DEFAULT_HINT_HEURISTICS,
    parameters: Mapping[str, Any] | None = None,
) -> Result:
    """Solve ``problem`` with a CP-SAT model; optimal when proven.

    Parameters
    ----------
    problem : Problem
    time_limit : float, optional
        Wall-clock seconds for the whole call (model building included); None:
        no limit.
    workers : int, optional
        CP-SAT search workers; None: the number of CPU cores, at most 8. Use 1
        for reproducible runs.
    seed : int, optional
        CP-SAT ``random_seed`` (None: 0).
    relative_gap : float
        Stop once ``(makespan - bound) / makespan`` is at most this (0: prove
        optimality). A run stopped by the gap reports ``FEASIBLE``.
    log : bool
        Print the CP-SAT search log.
    callback : callable, optional
        ``callback(makespan, bound, seconds)`` on the warm start and on each
        improving solution, in original units (the makespan is the one of the
        scaled solution; the returned schedule, re-timed, is never longer).
    resolution : float, optional
        Time units per original unit for non-integer data (see :func:`scale_data`).
    hint : bool
        Give CP-SAT the best heuristic schedule as a complete hint.
    horizon : {"heuristic", "sum"}
        Upper bound of every time variable: the best heuristic makespan, or the
        sum of every largest cost and delay (the straightforward choice).
    bounds : bool
        Add ``makespan >= exactsched.bounds.lower_bound`` (with the class-load
        LP), heads and tails of every task, ``makespan >= end + tail``, and the
        placement heads/tails of :func:`_placement_heads_tails` as cuts
        ``start_i >= sum_l head_il x_il``, ``makespan >= start_i + sum_l
        tail_il x_il`` and the root bound ``max_i min_l (head_il + tail_il)``.
    load : bool
        Add per-location load cuts ``capacity * makespan >= sum of costs placed there``.
    symmetry : bool
        Value-precedence symmetry breaking between interchangeable processors
        that are not pooled (e.g. the GPUs of a multi-GPU node).
    pooling : bool
        Pool interchangeable processors with free communication among them into
        one cumulative location (no per-core variables), and add a redundant
        cumulative over every other class of interchangeable processors.
    comm : {"levels", "dest", "pairs"}
        Communication encoding (see Notes).
    path_cuts : bool or "auto"
        Load cuts along the ancestors and descendants of every task (see
        :func:`_add_path_cuts`); "auto": on when there are at most 4 locations
        (CPU-GPU nodes), where they pay.
    lb_search : bool
        With 2 or more workers, make the full-problem worker CP-SAT's
        ``objective_lb_search`` (it raises the bound step by step) instead of
        ``default_lp``; the other workers keep the LNS and local search. On the
        16-processor fat-tree and torus instances it lifted the bound the
        default search never moved (``docs/exact-models.md``).
    relocate : int or "auto"
        Effort of the search (:mod:`models._relocate`) that improves the best
        heuristic schedule before it becomes the hint: four relocation climbs
        of ``relocate / 2`` moves each (tasks moved between locations,
        re-scheduled by a list scheduler for the fixed assignment), then
        ``relocate`` tries of the priority search (the same assignment under
        perturbed ranks). "auto": ``20 * n``, at most 3000, on platforms of at
        most 4 locations (CPU-GPU nodes, where choosing the type is the hard
        part), else 0; at most 10 % of ``time_limit`` in all (2 s without one);
        0: off. On 8-16 single processors it bought nothing and cost the time
        it took (``docs/exact-models.md``).
    hint_heuristics : sequence of str
        Registered heuristics tried for the warm start, when registered.
    parameters : mapping, optional
        Extra CP-SAT parameters by name (e.g. ``{"linearization_level": 2}``),
        applied last; lists extend repeated fields such as ``subsolvers``.

    Returns
    -------
    Result
        ``stats`` holds the solver status, resolution, model size, hint source,
        branches, conflicts, time to first solution and the incumbent trace.

    Raises
    ------
    MethodError
        For an invalid option value.

    Examples
    --------
    >>> from exactsched import load_instance
    >>> r = cpsat(load_instance("examples/topcuoglu2002.json"), workers=1, time_limit=20)
    >>> r.status.value, r.makespan, r.lower_bound
    ('optimal', 73, 73)

    Notes
    -----
    Communication of arc ``i -> j``: always ``start_j >= end_i``; then

    * ``"levels"``: for each distinct positive delay ``v`` the two tasks can
      incur, a literal ``f_v`` with ``start_j >= end_i + v`` if ``f_v``, and
      for each location ``m`` of ``j`` the clause ``x_jm -> f_v or (i on a
      location whose delay to m is below v)``. On a fully-connected network this
      is one literal and ``P`` ternary clauses per arc;
    * ``"dest"``: per location ``m`` of ``j``,
      ``start_j >= end_i + sum_l delay(l, m) x_il`` if ``x_jm``;
    * ``"pairs"``: one enforced constraint per pair of locations with a
      positive delay (the straightforward encoding, ``P**2`` per arc).

    Status ``INFEASIBLE`` needs a proof from CP-SAT and no heuristic schedule;
    since any topological order serialised is valid, instances of the format
    are never infeasible in practice.
    """
    _check_options(time_limit, workers, relative_gap, horizon, comm, relocate)
    started = time.perf_counter()
    if workers is None:
        workers = max(1, min(8, os.cpu_count() or 1))
    n = problem.n_tasks
    data = scale_data(problem, resolution)
    res = data.resolution
    loc = processor_locations(problem, pooling=pooling)
    n_locs = len(loc.members)
    rep = np.array([m[0] for m in loc.members], dtype=np.int64)
    cap = [len(m) if len(m) > 1 else 1 for m in loc.members]
    # Cheap bounds for the first progress lines; the full one (an LP) comes next.
    lb_quick = max(critical_path_bound(problem), load_bound(problem))

    # ---- warm start: best valid heuristic schedule, re-timed on the scaled data
    need_heuristic = hint or horizon == "heuristic"
    hint_name, hint_schedule, hint_errors = None, None, {}
    hint_loc = hint_start = None
    hint_makespan_s = None
    hint_seconds = None
    if need_heuristic:
        first_seen: list[float] = []

        def report(schedule: Schedule) -> None:
            seconds = time.perf_counter() - started
            first_seen.append(seconds)
            if callback is not None:
                callback(float(schedule.makespan), lb_quick, seconds)

        if relocate == "auto":  # pays between processor types; noise or worse on 8-16 processors
            few = len(loc.members) <= _PATH_CUT_LOCATIONS
            moves = min(_RELOCATE_MAX, _RELOCATE_PER_TASK * n) if few else 0
        else:
            moves = relocate
        budget = 2.0 if time_limit is None else 0.1 * float(time_limit)
        candidates, hint_errors = _hint_candidates(
            problem,
            hint_heuristics,
            report,
            relocate=moves,
            relocate_seconds=budget,
            target=lb_quick,
            seed=0 if seed is None else int(seed),
        )
        hint_name, hint_schedule = min(candidates, key=lambda c: (c[1].makespan, c[0]))
        proc, start, _ = hint_schedule.arrays(problem)
        if symmetry:
            proc = _relabel(proc, loc)
        hint_start = retime(problem, proc, start, data.cost, data.delay)
        hint_loc = loc.of_processor[proc]
        hint_end = hint_start + data.cost[np.arange(n), proc]
        hint_makespan_s = int(hint_end.max())
        hint_seconds = first_seen[0]  # time to the first valid schedule

    lb_orig = float(foundation_lower_bound(problem))
    cost_l = data.cost[:, rep]  # (n, L) scaled cost per location, inf outside affinity
    allowed_l = np.isfinite(cost_l)
    delay_l = data.delay[:, rep][:, :, rep]  # (n_arcs, L, L)
    if n_arcs := len(problem.arc_src):
        diag = np.arange(n_locs)
        delay_l[:, diag, diag] = 0  # inside a pooled location communication is free
    min_dur = np.where(allowed_l, cost_l, np.inf).min(axis=1)
    if horizon == "heuristic":
        big = hint_makespan_s
    else:
        max_dur = np.where(allowed_l, cost_l, 0).max(axis=1)
        big = int(max_dur.sum() + (delay_l.max(axis=(1, 2)).sum() if n_arcs else 0))
    lb_s = int(_ceil_tol(np.array([lb_orig * res]))[0][0]) if bounds else 0
    lb_s = min(lb_s, big)
    head, tail = _longest_paths(problem, min_dur)
    head_l = tail_l = None
    if bounds:
        # Placement heads/tails see communication and fan-in/out (multi-hop networks).
        head_l, tail_l = _placement_heads_tails(problem, cost_l, delay_l, cap)
        span = np.where(allowed_l, head_l + tail_l, np.inf).min(axis=1)
        lb_s = min(max(lb_s, int(math.ceil(span.max() - 1e-9))), big)
        head = np.maximum(head, np.where(allowed_l, head_l, np.inf).min(axis=1))
        tail = np.maximum(tail, np.where(allowed_l, tail_l - cost_l, np.inf).min(axis=1))

    # ---- variables
    model = cp_model.CpModel()
    start_v, end_v, end_is_var = [], [], []
    x: list[dict[int, Any]] = []  # x[i][l]: presence literal, True when i has one location
    for i in range(n):
        lo, hi = (int(head[i]), int(big - tail[i] - min_dur[i])) if bounds else (0, big)
        s = model.new_int_var(lo, max(lo, hi), f"s{i}")
        locs = np.flatnonzero(allowed_l[i]).tolist()
        costs = sorted({int(cost_l[i, k]) for k in locs})
        if len(locs) == 1:
            x.append({locs[0]: True})
        else:
            lits = {k: model.new_bool_var(f"x{i}_{k}") for k in locs}
            model.add_exactly_one(lits.values())
            x.append(lits)
        if len(costs) == 1:
            e = s + costs[0]
        else:
            e = model.new_int_var(lo + costs[0], big, f"e{i}")
            model.add(e == s + sum(int(cost_l[i, k]) * lit for k, lit in x[i].items()))
        start_v.append(s)
        end_v.append(e)
        end_is_var.append(len(costs) > 1)

    # ---- resources
    per_loc: list[list[Any]] = [[] for _ in range(n_locs)]
    for i in range(n):
        for k, lit in x[i].items():
            c = int(cost_l[i, k])
            if c == 0:
                continue  # a zero-length task occupies nothing
            if lit is True:
                per_loc[k].append(model.new_fixed_size_interval_var(start_v[i], c, f"I{i}_{k}"))
            else:
                per_loc[k].append(
                    model.new_optional_fixed_size_interval_var(start_v[i], c, lit, f"I{i}_{k}")
                )
    for k in range(n_locs):
        if not per_loc[k]:
            continue
        if cap[k] == 1:
            model.add_no_overlap(per_loc[k])
        else:
            model.add_cumulative(per_loc[k], [1] * len(per_loc[k]), cap[k])
    class_lits: dict[tuple[int, int], Any] = {}
    if pooling:
        for g, group in enumerate(loc.symmetric):
            intervals = []
            for i in range(n):
                lits = [x[i][k] for k in group if k in x[i]]
                if not lits:
                    continue
                c = int(cost_l[i, group[0]])
                if len(lits) == len(x[i]):
                    z: Any = True
                    if c > 0:
                        intervals.append(model.new_fixed_size_interval_var(start_v[i], c, ""))
                else:
                    z = model.new_bool_var(f"z{i}_{g}")
                    model.add(z == sum(lits))
                    if c > 0:
                        intervals.append(
                            model.new_optional_fixed_size_interval_var(start_v[i], c, z, "")
                        )
                class_lits[i, g] = z
            if intervals:
                model.add_cumulative(intervals, [1] * len(intervals), len(group))

    # ---- precedence and communication
    aux_hints: list[tuple[Any, int]] = []
    for a in range(n_arcs):
        i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
        model.add(start_v[j] >= end_v[i])
        li, lj = list(x[i]), list(x[j])
        d = delay_l[a]
        sub = d[np.ix_(li, lj)]
        if not np.any(sub > 0):
            continue
        if comm == "pairs":
            for k in li:
                for m in lj:
                    if d[k, m] > 0:
                        enf = [lit for lit in (x[i][k], x[j][m]) if lit is not True]
                        model.add(start_v[j] >= end_v[i] + int(d[k, m])).only_enforce_if(enf)
        elif comm == "dest":
            for m in lj:
                if not np.any(d[li, m] > 0):
                    continue
                expr = sum(int(d[k, m]) * (1 if x[i][k] is True else x[i][k]) for k in li)
                ct = model.add(start_v[j] >= end_v[i] + expr)
                if x[j][m] is not True:
                    ct.only_enforce_if(x[j][m])
        else:
            values = sorted({int(v) for v in sub.ravel() if v > 0})
            previous = None
            paid = 0  # delay every placement pays
            levels: list[tuple[int, Any]] = []  # (v, f_v)
            steps: list[Any] = []  # (v - previous v) * f_v
            last_v = 0
            for v in values:
                if np.all(sub >= v):  # every placement pays at least v
                    paid, last_v = v, v
                    continue
                f = model.new_bool_var(f"f{a}_{v}")
                steps.append((v - last_v) * f)
                levels.append((v, f))
                last_v = v
                if previous is not None:
                    model.add_implication(f, previous)
                previous = f
                # Locations of j sharing the set of "near" locations of i share one
                # aggregated constraint f >= sum x_jm - sum x_il (e.g. a fat-tree
                # subtree), which is stronger in the LP than one clause per m.
                groups: dict[tuple[int, ...], list[int]] = {}
                for m in lj:
                    below = tuple(k for k in li if d[k, m] < v)
                    if len(below) < len(li):
                        groups.setdefault(below, []).append(m)
                for below, near in groups.items():
                    if len(near) == 1:
                        clause = [f] + [x[i][k] for k in below]
                        if x[j][near[0]] is not True:
                            clause.append(~x[j][near[0]])
                        model.add_bool_or(clause)
                    else:
                        model.add(f + sum(x[i][k] for k in below) >= sum(x[j][m] for m in near))
                if hint_loc is not None:
                    aux_hints.append((f, int(d[hint_loc[i], hint_loc[j]] >= v)))
            if paid:
                model.add(start_v[j] >= end_v[i] + paid)
            for v, f in levels:
                model.add(start_v[j] >= end_v[i] + v).only_enforce_if(f)
            if levels:
                # The same delays as one linear row, start_j >= end_i + paid +
                # sum (v_t - v_{t-1}) f_t: tight in the LP, where the enforced
                # rows are big-M. Both kept: on the fat-trees the enforced rows
                # alone gave the better bounds, the row alone better schedules.
                model.add(start_v[j] >= end_v[i] + paid + sum(steps))

    # ---- isolation: a before b, or b before a, or one of them has zero length
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        zero_a = [lit for k, lit in x[a].items() if cost_l[a, k] == 0]
        zero_b = [lit for k, lit in x[b].items() if cost_l[b, k] == 0]
        if any(lit is True for lit in zero_a + zero_b):
            continue
        before = model.new_bool_var(f"o{a}_{b}")
        model.add(end_v[a] <= start_v[b]).only_enforce_if(before)
        if not zero_a and not zero_b:
            model.add(end_v[b] <= start_v[a]).only_enforce_if(~before)
        else:
            after = model.new_bool_var(f"o{b}_{a}")
            model.add(end_v[b] <= start_v[a]).only_enforce_if(after)
            model.add_bool_or([before, after, *zero_a, *zero_b])
            if hint_loc is not None:
                aux_hints.append((after, int(hint_end[b] <= hint_start[a])))
        if hint_loc is not None:
            aux_hints.append((before, int(hint_end[a] <= hint_start[b])))

    # ---- symmetry breaking: value precedence over interchangeable processors
    if symmetry:
        for group in loc.symmetric:
            tasks = [i for i in range(n) if group[0] in x[i]]
            used_prev = None
            for pos, k in enumerate(group):
                used = []
                for t, i in enumerate(tasks):
                    lit = x[i][k]
                    if pos > 0:
                        if t == 0:
                            model.add(lit == 0)
                        else:
                            model.add_implication(lit, used_prev[t - 1])
                    if pos < len(group) - 1:
                        u = model.new_bool_var(f"u{k}_{i}")
                        model.add_bool_or([~u, lit] + ([used[-1]] if used else []))
                        if used:
                            model.add_implication(used[-1], u)
                        used.append(u)
                        if hint_loc is not None:
                            hinted = any(hint_loc[tt] == k for tt in tasks[: t + 1])
                            aux_hints.append((u, int(hinted)))
                used_prev = used

    # ---- objective and bounds
    makespan = model.new_int_var(lb_s, big, "makespan")
    if head_l is not None:
        for i in range(n):
            if len(x[i]) < 2:
                continue
            if any(head_l[i, k] > head[i] for k in x[i]):
                model.add(start_v[i] >= sum(int(head_l[i, k]) * lit for k, lit in x[i].items()))
            model.add(
                makespan >= start_v[i] + sum(int(tail_l[i, k]) * lit for k, lit in x[i].items())
            )
    for i in range(n):
        if bounds and tail[i] > 0:
            model.add(makespan >= end_v[i] + int(tail[i]))
        elif len(problem.successors(i)) == 0 or not bounds:
            model.add(makespan >= end_v[i])
    if load:
        terms: list[list[Any]] = [[] for _ in range(n_locs)]
        for i in range(n):
            for k, lit in x[i].items():
                if cost_l[i, k] > 0:
                    terms[k].append(int(cost_l[i, k]) * (1 if lit is True else lit))
        for k in range(n_locs):
            if terms[k]:
                model.add(cap[k] * makespan >= sum(terms[k]))
    if path_cuts == "auto":
        path_cuts = n_locs <= _PATH_CUT_LOCATIONS
    if path_cuts:
        _add_path_cuts(model, problem, x, cost_l, cap, start_v, end_v, makespan)
    model.minimize(makespan)

    # ---- hint
    if hint and hint_loc is not None:
        for i in range(n):
            model.add_hint(start_v[i], int(hint_start[i]))
            if end_is_var[i]:
                model.add_hint(end_v[i], int(hint_start[i] + cost_l[i, hint_loc[i]]))
            for k, lit in x[i].items():
                if lit is not True:
                    model.add_hint(lit, int(hint_loc[i] == k))
            for g, _group in enumerate(loc.symmetric):
                z = class_lits.get((i, g))
                if z is not None and z is not True:
                    model.add_hint(z, int(hint_loc[i] in loc.symmetric[g]))
        for var, value in aux_hints:
            model.add_hint(var, value)
        model.add_hint(makespan, hint_makespan_s)

    # ---- solve
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = workers
    params.random_seed = 0 if seed is None else int(seed)
    params.log_search_progress = bool(log)
    if relative_gap:
        params.relative_gap_limit = float(relative_gap)
    if sum(len(lits) for lits in x) > _PROBING_LITERALS:
        params.cp_model_probing_level = 0
    if lb_search and workers >= 2:
        params.extra_subsolvers.append("objective_lb_search")
    for key, value in (parameters or {}).items():
        try:
            if isinstance(value, list | tuple):
                getattr(params, key).extend(value)
            else:
                setattr(params, key, value)
        except (AttributeError, TypeError, ValueError) as exc:
            raise MethodError(f"parameters: bad CP-SAT parameter {key!r}: {exc}") from None
    build_seconds = time.perf_counter() - started
    if time_limit is not None:
        params.max_time_in_seconds = max(0.01, float(time_limit) - build_seconds)
    progress = _Progress(callback, res, data.slack, lb_orig, started)
    code = solver.solve(model, progress)
    status_name = solver.status_name(code)
    if code == cp_model.MODEL_INVALID:
        raise RuntimeError(f"cpsat: CP-SAT rejected the model: {model.validate()}")

    # ---- extract, re-time on the original data, validate
    schedule, makespan_value = None, None
    bound = lb_orig
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        loc_of = np.array(
            [
                next(k for k, lit in x[i].items() if lit is True or solver.boolean_value(lit))
                for i in range(n)
            ],
            dtype=np.int64,
        )
        start_s = np.array([solver.value(start_v[i]) for i in range(n)], dtype=float)
        proc = _colour(loc_of, start_s, cost_l, loc)
        start = retime(problem, proc, start_s, problem.cost, delay_matrix(problem))
        schedule = Schedule.from_arrays(problem, proc, start)
        violations = validate(problem, schedule)
        if violations:
            raise RuntimeError(f"cpsat: re-timed schedule is invalid: {violations[0]}")
    if code != cp_model.INFEASIBLE:
        bound = max(bound, (solver.best_objective_bound - data.slack) / res)
    if hint_schedule is not None and (
        schedule is None or hint_schedule.makespan < schedule.makespan
    ):
        schedule = hint_schedule
    if schedule is not None:
        makespan_value = schedule.makespan
        if data.exact:
            bound = float(_ceil_tol(np.array([bound * res]))[0][0]) / res
            if problem.is_integral:
                bound = math.ceil(bound - 1e-6)
        bound = min(bound, makespan_value)
        tol = _TOL * max(1.0, abs(makespan_value))
        status = Status.OPTIMAL if makespan_value <= bound + tol else Status.FEASIBLE
        if status is Status.OPTIMAL:
            bound = makespan_value
    elif code == cp_model.INFEASIBLE:
        status, bound = Status.INFEASIBLE, None
    else:
        status = Status.UNKNOWN
    seconds = time.perf_counter() - started
    stats = {
        "solver_status": status_name,
        "resolution": res,
        "exact_scaling": data.exact,
        "objective_scaled": solver.objective_value if schedule is not None else None,
        "bound_scaled": solver.best_objective_bound,
        "branches": solver.num_branches,
        "conflicts": solver.num_conflicts,
        "solver_seconds": solver.wall_time,
        "build_seconds": round(build_seconds, 4),
        "hint_seconds": None if hint_seconds is None else round(hint_seconds, 4),
        "first_solution_seconds": progress.first_seconds,
        "variables": len(model.proto.variables),
        "constraints": len(model.proto.constraints),
        "locations": n_locs,
        "pooled": [len(m) for m in loc.members if len(m) > 1],
        "symmetric_groups": [len(g) for g in loc.symmetric],
        "hint": hint_name,
        "hint_makespan": None if hint_schedule is None else hint_schedule.makespan,
        "hint_errors": hint_errors,
        "trace": progress.trace[-50:],
        "workers": workers,
        "seed": seed,
        "options": {
            "hint": hint,
            "horizon": horizon,
            "bounds": bounds,
            "load": load,
            "symmetry": symmetry,
            "pooling": pooling,
            "comm": comm,
            "path_cuts": path_cuts,
            "lb_search": lb_search,
            "relocate": relocate,
            "parameters": dict(parameters or {}),
            "relative_gap": relative_gap,
        },
    }
    return Result("cpsat", status, schedule, makespan_value, bound, seconds, stats)


def _reach(problem: Problem) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Ancestors and descendants of every task, as sorted index arrays."""
    n = problem.n_tasks
    order = problem.topological_order.tolist()
    anc = [0] * n
    for j in order:
        for i in problem.predecessors(j).tolist():
            anc[j] |= anc[i] | (1 << i)
    desc = [0] * n
    for i in reversed(order):
        for j in problem.successors(i).tolist():
            desc[i] |= desc[j] | (1 << j)

    def bits(mask: int) -> np.ndarray:
        return np.array([k for k in range(n) if mask >> k & 1], dtype=np.int64)

    return [bits(m) for m in anc], [bits(m) for m in desc]


def _add_path_cuts(
    model: cp_model.CpModel,
    problem: Problem,
    x: list[dict[int, Any]],
    cost_l: np.ndarray,
    cap: list[int],
    start_v: list[Any],
    end_v: list[Any],
    makespan: Any,
) -> None:
    """Load of a location along the ancestors and the descendants of each task.

    Every ancestor of ``i`` placed on location ``l`` runs in ``[0, start_i)``
    and every descendant in ``[end_i, makespan)``, so
    ``cap_l * start_i >= sum c_jl x_jl`` over ancestors and
    ``cap_l * (makespan - end_i) >= sum c_jl x_jl`` over descendants. Together
    they say that ``i`` on a slow processor leaves the bottleneck idle.
    """
    anc, desc = _reach(problem)
    n_locs = cost_l.shape[1]
    for k in range(n_locs):
        weight = {}
        for j in range(problem.n_tasks):
            lit = x[j].get(k)
            if lit is not None and cost_l[j, k] > 0:
                weight[j] = (int(cost_l[j, k]), 1 if lit is True else lit)
        if not weight:
            continue
        for i in range(problem.n_tasks):
            for group, lhs in (
                (anc[i], cap[k] * start_v[i]),
                (desc[i], cap[k] * (makespan - end_v[i])),
            ):
                members = [j for j in group.tolist() if j in weight]
                if len(members) < 2:
                    continue
                model.add(lhs >= sum(weight[j][0] * weight[j][1] for j in members))


def _colour(
    loc_of: np.ndarray, start: np.ndarray, cost_l: np.ndarray, loc: Locations
) -> np.ndarray:
    """Processors from locations: pooled tasks get cores by greedy interval colouring.

    Tasks of a pooled location, sorted by start, take the lowest-index core that is
    free; a cumulative of capacity ``k`` never has more than ``k`` overlapping
    intervals, so a core is always free (interval graphs are perfect).
    """
    n = len(loc_of)
    proc = np.array([loc.members[k][0] for k in loc_of.tolist()], dtype=np.int64)
    for k, members in enumerate(loc.members):
        if len(members) == 1:
            continue
        tasks = np.flatnonzero(loc_of == k)
        ends = start + cost_l[np.arange(n), loc_of]
        free = [-math.inf] * len(members)
        for i in sorted(tasks.tolist(), key=lambda t: (start[t], ends[t], t)):
            if ends[i] <= start[i]:
                continue  # zero length: the first core
            core = next((c for c in range(len(members)) if free[c] <= start[i]), None)
            if core is None:
                raise RuntimeError("cpsat: cumulative solution does not colour")
            free[core] = ends[i]
            proc[i] = members[core]
    return proc
