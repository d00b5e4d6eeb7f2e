"""Stage *time-indexed ladder* of the CP-SAT model: identical processors, no communication.

When every processor is pooled into one location (interchangeable processors
with free communication: the Standard Task Graph case, ``P | prec | Cmax``),
the interval model's lower bound rests on a cumulative constraint whose linear
relaxation is weak, and CP-SAT may search for minutes without raising it. A
time-indexed 0-1 model has a much stronger relaxation [1]_ [2]_: on the three
STG rows that stayed open after 600 s of the interval model (50 tasks on 4
processors) it decides "makespan <= t" in 0.1-14 s.

:func:`time_indexed_ladder` asks it about ``t = lower, lower + 1, ...`` (scaled
units), from the root bound up to one unit below the incumbent: each
refutation raises the proven bound by one, and the first schedule found is an
optimum (every shorter target was refuted). It stops at the first undecided
target, at the incumbent, or when its time is up; the main model then starts
from the raised bound.

The decision model (:func:`decide`) is the *pulse* encoding: ``x[i, t]`` =
"task ``i`` starts at ``t``", exactly one per task within its window;
precedence ``i -> j`` in the aggregated form ``sum_{u <= t} x[j, u] <= sum_{u
<= t - c_i} x[i, u]`` for every ``t`` of ``j``'s window, and the linear
``s_j >= s_i + c_i`` over the start expressions; capacity ``sum_i sum_{t - c_i
< u <= t} x[i, u] <= P`` for every ``t``; an isolation pair never runs at the
same ``t``. Windows come from the model's own heads and tails and the
foundation's spread paths (:func:`time_indexed_windows`). On exactly scaled
integer data a schedule of makespan at most ``t`` exists if and only if one
with integer starts does (shift every task left to a sum of costs), so
deciding over integer starts is exact.

The certification witness ``cpsat-time-indexed``
(:func:`models._refute_cumulative.refute_time_indexed`) is the other encoding
of the same relaxation ("started by ``t``" literals chained by implications,
precedence as binary clauses, windows from its own floored data and its own
spread heads): the two share the strength of the time-indexed relaxation, not
their code. The witness is the faster of the two (on the three rows above it
refutes the last target in 0.4-14 s where the pulse model takes 2-50 s), which
suits the certification's budget (the solve's own time).

References
----------
.. [1] A. A. B. Pritsker, L. J. Watters and P. M. Wolfe, "Multiproject
   scheduling with limited resources: a zero-one programming approach",
   Management Science 16(1), 1969.
.. [2] J. P. Sousa and L. A. Wolsey, "A time indexed formulation of
   non-preemptive single machine scheduling problems", Mathematical
   Programming 54, 1992.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exactsched.bounds import longest_paths, spread_paths
from exactsched.problem import Problem
from exactsched.schedule import Schedule
from models._clock import Clock
from models._cpsat_locations import Locations, colour_cores
from models._cpsat_run import run_solver
from models._cpsat_scaling import ceil_tol
from models._warmstart import delay_matrix, retime

__all__ = [
    "TI_MAX_POINTS",
    "TI_MAX_TERMS",
    "BUILD_SECONDS_PER_TERM",
    "TI_FIRST_SECONDS",
    "TI_FIRST_SHARE",
    "TI_SHARE",
    "TI_NO_LIMIT_SECONDS",
    "Ladder",
    "time_indexed_windows",
    "fits",
    "decide",
    "time_indexed_ladder",
]

#: (task, start time) pairs one decision model may hold.
TI_MAX_POINTS = 60_000
#: Literal occurrences in its precedence, capacity and isolation rows.
TI_MAX_TERMS = 1_500_000
#: Python seconds to build one literal occurrence (measured: 1.05 million in 1.9 s);
#: a model that would take longer to build than its time is not built.
BUILD_SECONDS_PER_TERM = 2e-6
#: Share of the time left that the main model looks first (most of these instances are
#: proven within it)...
TI_FIRST_SHARE = 0.1
#: ...at most this many seconds: the share fits a 60 s limit, where the rows the main
#: model proves take under a second; at 300 s it made a row wait 30 s for the ladder.
TI_FIRST_SECONDS = 6.0
#: ...then the share of the time left that the ladder gets (the main model the rest).
TI_SHARE = 0.4
#: Seconds of a probe before the main model when the call has no time limit (the main
#: model then runs until it proves).
TI_NO_LIMIT_SECONDS = 2.0


@dataclass
class Ladder:
    """What the time-indexed ladder proved and found, in scaled units.

    Attributes
    ----------
    lower : int
        Every schedule is at least this long (the root bound, raised by one per refutation).
    schedule : Schedule or None
        The schedule found (on the original data), None when none was.
    start : numpy.ndarray or None
        Its integer starts in the decision model (scaled).
    makespan : int or None
        The target at which it was found: its makespan, scaled.
    tried : list of (int, str, float)
        Every target asked, its outcome (``"refuted"``, ``"found"``,
        ``"unknown"``) and the seconds it took.
    stopped : str
        Why the ladder stopped.
    """

    lower: int
    schedule: Schedule | None = None
    start: np.ndarray | None = None
    makespan: int | None = None
    tried: list[tuple[int, str, float]] = field(default_factory=list)
    stopped: str = ""


def time_indexed_windows(
    problem: Problem,
    cost: np.ndarray,
    head: np.ndarray | None,
    tail: np.ndarray | None,
    resolution: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Integer heads and tails (time after the end) of every task, in scaled units.

    The larger of the model's heads and tails (``head``, ``tail``, or the longest
    paths of ``cost`` when None) and the foundation's spread paths (the work of
    the ancestors, or descendants, spread over the ``P`` processors), rounded up.

    Examples
    --------
    >>> p = Problem.from_lists([2, 2, 2, 1], [(0, 3), (1, 3), (2, 3)], n_processors=2)
    >>> [w.tolist() for w in time_indexed_windows(p, np.array([2, 2, 2, 1]), None, None, 1)]
    [[0, 0, 0, 3], [1, 1, 1, 0]]
    """
    if head is None or tail is None:
        head, tail = longest_paths(problem, cost.astype(float))
    spread_head, spread_tail = spread_paths(problem)
    heads = np.maximum(np.asarray(head, dtype=float), spread_head * resolution)
    tails = np.maximum(np.asarray(tail, dtype=float), spread_tail * resolution)
    return ceil_tol(heads)[0].astype(np.int64), ceil_tol(tails)[0].astype(np.int64)


def _estimate(
    problem: Problem, cost: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[float, float]:
    """(task, time) points and literal occurrences of the decision model.

    In floating point: the products of windows and costs near 1e15 overflow 64-bit
    integers (a wrapped sum once passed the size check).
    """
    width = np.maximum(hi.astype(float) - lo.astype(float) + 1.0, 0.0)
    span = np.maximum(cost.astype(float), 1.0)
    points = float(width.sum())
    terms = float((width * span).sum())  # capacity rows
    src, dst = problem.arc_src, problem.arc_dst
    terms += float((width[dst] * (width[dst] + width[src])).sum())  # aggregated precedence
    a, b = problem.iso_a, problem.iso_b
    terms += float((width[a] * span[a] + width[b] * span[b]).sum())  # isolation rows
    return points, terms


def fits(
    problem: Problem, cost: np.ndarray, head: np.ndarray, tail: np.ndarray, target: int
) -> bool:
    """Whether the decision model of ``target`` is within the size limits.

    :data:`TI_MAX_POINTS` (task, time) pairs and :data:`TI_MAX_TERMS` literal occurrences.

    Examples
    --------
    >>> p = Problem.from_lists([2, 2, 2, 1], [(0, 3), (1, 3), (2, 3)], n_processors=2)
    >>> c = np.array([2, 2, 2, 1])
    >>> h, t = time_indexed_windows(p, c, None, None, 1)
    >>> fits(p, c, h, t, 5), fits(p, 10**6 * c, 10**6 * h, 10**6 * t, 5 * 10**6)
    (True, False)
    """
    lo = head.astype(np.int64)
    hi = (target - cost - tail).astype(np.int64)
    points, terms = _estimate(problem, cost, lo, hi)
    return points <= TI_MAX_POINTS and terms <= TI_MAX_TERMS


def decide(
    problem: Problem,
    cost: np.ndarray,
    capacity: int,
    head: np.ndarray,
    tail: np.ndarray,
    target: int,
    *,
    seconds: float,
    workers: int,
    seed: int,
) -> tuple[str, np.ndarray | None, str]:
    """Decide "makespan <= target" with the pulse time-indexed model.

    ``cost``, ``head`` and ``tail`` are integer arrays in scaled units (``tail``:
    least time from a task's end to the makespan). Returns the outcome
    (``"refuted"``, ``"found"`` or ``"unknown"``), the integer starts of a
    schedule found, and one line saying why.

    Examples
    --------
    >>> p = Problem.from_lists([2, 2, 2, 1], [(0, 3), (1, 3), (2, 3)], n_processors=2)
    >>> c = np.array([2, 2, 2, 1])
    >>> h, t = time_indexed_windows(p, c, None, None, 1)
    >>> decide(p, c, 2, h, t, 4, seconds=5, workers=1, seed=0)[0]
    'refuted'
    >>> outcome, start, _ = decide(p, c, 2, h, t, 5, seconds=5, workers=1, seed=0)
    >>> outcome, int((start + c).max())
    ('found', 5)
    """
    from ortools.sat.python import cp_model

    n = problem.n_tasks
    lo = head.astype(np.int64)
    hi = (target - cost - tail).astype(np.int64)
    if n and bool((hi < lo).any()):
        return "refuted", None, "a window is empty (a path or the spread work exceeds the target)"
    points, terms = _estimate(problem, cost, lo, hi)
    if points > TI_MAX_POINTS or terms > TI_MAX_TERMS:
        return "unknown", None, f"{points:.3g} points and {terms:.3g} terms: too large"
    deadline = time.perf_counter() + seconds
    if terms * BUILD_SECONDS_PER_TERM > seconds:
        return "unknown", None, f"{terms:.3g} terms: longer to build than the time left"
    late: tuple[str, np.ndarray | None, str] = ("unknown", None, "time out while building")
    model = cp_model.CpModel()
    x: list[list[Any]] = []
    start: list[Any] = []
    for i in range(n):
        if time.perf_counter() > deadline:
            return late
        lits = [model.new_bool_var(f"x{i}_{t}") for t in range(lo[i], hi[i] + 1)]
        model.add_exactly_one(lits)
        x.append(lits)
        s = model.new_int_var(int(lo[i]), int(hi[i]), f"s{i}")
        offsets = list(range(len(lits)))
        model.add(s == int(lo[i]) + cp_model.LinearExpr.weighted_sum(lits, offsets))
        start.append(s)

    def started_by(i: int, t: int) -> list[Any] | None:
        """The literals of ``i`` starting at or before ``t`` (None: all of them)."""
        if t >= hi[i]:
            return None
        return x[i][: max(0, t - int(lo[i]) + 1)]

    for i, j in zip(problem.arc_src.tolist(), problem.arc_dst.tolist(), strict=True):
        if time.perf_counter() > deadline:
            return late
        model.add(start[j] >= start[i] + int(cost[i]))
        for t in range(int(lo[j]), int(hi[j])):  # at hi[j] the left side is 1 = the right's
            need = started_by(i, t - int(cost[i]))
            if need is None:
                continue
            mine = x[j][: t - int(lo[j]) + 1]
            if need:
                model.add(cp_model.LinearExpr.sum(mine) <= cp_model.LinearExpr.sum(need))
            else:
                for lit in mine:
                    model.add(lit == 0)

    def running(i: int, t: int) -> list[Any]:
        """Literals of ``i`` starting in ``(t - c_i, t]``: ``i`` runs during ``[t, t + 1)``."""
        first = max(int(lo[i]), t - int(cost[i]) + 1)
        last = min(int(hi[i]), t)
        return x[i][first - int(lo[i]) : last - int(lo[i]) + 1] if first <= last else []

    rows: dict[int, list[Any]] = {}
    for i in range(n):  # x[i, u] runs during [u, u + c_i)
        if time.perf_counter() > deadline:
            return late
        for k, lit in enumerate(x[i]):
            for t in range(int(lo[i]) + k, int(lo[i]) + k + int(cost[i])):
                rows.setdefault(t, []).append(lit)
    for lits in rows.values():
        if len(lits) > capacity:
            model.add(cp_model.LinearExpr.sum(lits) <= capacity)
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        if cost[a] <= 0 or cost[b] <= 0:
            continue  # a zero-length task overlaps nothing
        if time.perf_counter() > deadline:
            return late
        first = max(int(lo[a]), int(lo[b]))
        for t in range(first, min(int(hi[a] + cost[a]), int(hi[b] + cost[b]))):
            both = running(a, t) + running(b, t)
            if len(both) > 1:
                model.add(cp_model.LinearExpr.sum(both) <= 1)
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = int(workers)
    params.random_seed = int(seed)
    left = deadline - time.perf_counter()
    if left <= 0:
        return late
    params.max_time_in_seconds = left
    code = run_solver(solver, model)
    if code == cp_model.INFEASIBLE:
        return "refuted", None, "CP-SAT: infeasible"
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        found = np.array([solver.value(s) for s in start], dtype=np.int64)
        return "found", found, "CP-SAT: a schedule"
    return "unknown", None, f"CP-SAT: {solver.status_name(code).lower()}"


def time_indexed_ladder(
    problem: Problem,
    cost: np.ndarray,
    loc: Locations,
    head: np.ndarray,
    tail: np.ndarray,
    lower: int,
    upper: int,
    *,
    seconds: float,
    workers: int,
    seed: int,
    clock: Clock | None = None,
    relative_gap: float = 0.0,
) -> Ladder:
    """Refute ``lower, lower + 1, ...`` until a schedule is found or ``upper`` is reached.

    ``cost`` are the exact integer costs (scaled) of the one location ``loc``
    (every processor, pooled), ``head`` and ``tail`` the windows' integer bounds
    (:func:`time_indexed_windows`), ``upper`` the incumbent's scaled makespan.
    Each target gets the time left of ``seconds`` (and of ``clock``). Stops
    early once ``(upper - lower) / upper <= relative_gap``. A schedule found is
    coloured onto the processors and re-timed on the original data.

    Examples
    --------
    >>> from models._cpsat_locations import processor_locations
    >>> p = Problem.from_lists([2, 2, 2, 1], [(0, 3), (1, 3), (2, 3)], n_processors=2)
    >>> c = np.array([2, 2, 2, 1])
    >>> h, t = time_indexed_windows(p, c, None, None, 1)
    >>> loc = processor_locations(p)
    >>> out = time_indexed_ladder(p, c, loc, h, t, 4, 7, seconds=5, workers=1, seed=0)
    >>> out.lower, out.schedule.makespan, [(target, what) for target, what, _ in out.tried]
    (5, 5, [(4, 'refuted'), (5, 'found')])
    """
    deadline = time.perf_counter() + seconds
    out = Ladder(lower=int(lower))
    while out.lower < upper:
        if relative_gap > 0 and upper - out.lower <= relative_gap * upper:
            out.stopped = "relative gap reached"
            break
        left = deadline - time.perf_counter()
        if clock is not None and clock.limit is not None:
            left = min(left, clock.left())
        if left <= 0.05:
            out.stopped = "time"
            break
        began = time.perf_counter()
        target = out.lower
        outcome, start, why = decide(
            problem,
            cost,
            loc.capacity[0],
            head,
            tail,
            target,
            seconds=left,
            workers=workers,
            seed=seed,
        )
        out.tried.append((target, outcome, round(time.perf_counter() - began, 3)))
        if outcome == "refuted":
            out.lower += 1
        elif outcome == "found" and start is not None:
            key = start.astype(float)
            proc = colour_cores(np.zeros(problem.n_tasks, dtype=np.int64), key, cost[:, None], loc)
            times = retime(problem, proc, key, problem.cost, delay_matrix(problem))
            out.schedule = Schedule.from_arrays(problem, proc, times)
            out.start, out.makespan = start, target
            out.stopped = "a schedule at the bound"
            break
        else:
            out.stopped = why
            break
    else:
        out.stopped = out.stopped or "the incumbent is proven"
    return out
