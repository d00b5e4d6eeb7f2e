"""The referee: checks a schedule against its problem, independently of any method.

This module deliberately shares no code with the schedulers (it reads the raw
arrays of :class:`~exactsched.problem.Problem` and nothing else), so a bug in a
heuristic or a model cannot hide a bug here.

Rules (``docs/instance-format.md``, "Schedules"): every task placed once on a
processor it may run on, ``finish = start + cost`` and ``start >= 0``; no two
tasks on one processor overlap (touching is allowed); every edge waits for its
communication delay; every order pair waits for the finish; no isolation pair
overlaps in time.

Tolerance. Times are compared with an absolute slack of
``tol = 1e-9 * max(1, largest |time| in the schedule)``: a constraint
``x <= y`` is violated when ``x > y + tol``. With integer data every
comparison is exact in floating point, so the slack changes nothing there; it
only absorbs rounding when data are not integers. Times in messages are
printed with 12 significant digits, enough to show a difference larger than
the slack. Zero-length intervals (zero-cost tasks) never overlap anything.
A start or finish that is not a finite number (NaN, inf, None) is a violation.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from exactsched.errors import ScheduleError
from exactsched.problem import Problem
from exactsched.schedule import Schedule

__all__ = ["validate", "assert_valid", "RELATIVE_TOLERANCE"]

RELATIVE_TOLERANCE = 1e-9


def validate(problem: Problem, schedule: Schedule, *, tol: float | None = None) -> list[str]:
    """Every violation of the schedule rules, as readable sentences.

    Parameters
    ----------
    problem : Problem
    schedule : Schedule
    tol : float, optional
        Absolute slack for time comparisons; default
        ``1e-9 * max(1, largest |time|)``.

    Returns
    -------
    list of str
        Empty when the schedule is valid.

    Examples
    --------
    >>> from exactsched import Placement, Problem, Schedule
    >>> p = Problem.from_lists([[2, 2], [1, 1]], [(0, 1, 3)])
    >>> ok = Schedule({"t0": Placement("p0", 0, 2), "t1": Placement("p0", 2, 3)})
    >>> validate(p, ok)
    []
    >>> bad = Schedule({"t0": Placement("p0", 0, 2), "t1": Placement("p1", 4, 5)})
    >>> for violation in validate(p, bad):
    ...     print(violation)  # doctest: +NORMALIZE_WHITESPACE
    edge t0 -> t1: t1 starts at 4 on p1 but the data arrive at 5
    (t0 finishes at 2 on p0, communication 3)
    """
    problems: list[str] = []
    ids = problem.task_ids
    known = set(ids)
    for task in schedule:
        if task not in known:
            problems.append(f"task {task}: not in the instance")
    placed = {}
    times = [
        abs(float(v))
        for pl in schedule.values()
        for v in (pl.start, pl.finish)
        if _is_time(v) and math.isfinite(v)
    ]
    if tol is None:
        tol = RELATIVE_TOLERANCE * max([1.0, *times])

    for i, task in enumerate(ids):
        if task not in schedule:
            problems.append(f"task {task}: not scheduled")
            continue
        pl = schedule[task]
        if pl.processor not in problem.proc_index:
            problems.append(f"task {task}: unknown processor {pl.processor}")
            continue
        p = problem.proc_index[pl.processor]
        if not problem.allowed[i, p]:
            problems.append(f"task {task}: may not run on processor {pl.processor} (affinity)")
            continue
        # NaN would pass every comparison below: refuse what is not a finite time.
        bad = [k for k in ("start", "finish") if not _is_finite_time(getattr(pl, k))]
        if bad:
            problems.extend(
                f"task {task}: {k} {getattr(pl, k)!r} is not a finite number" for k in bad
            )
            continue
        if pl.start < -tol:
            problems.append(f"task {task}: starts at {_t(pl.start)} < 0")
        cost = float(problem.cost[i, p])
        if abs(pl.finish - (pl.start + cost)) > tol:
            problems.append(
                f"task {task}: finish {_t(pl.finish)} is not start {_t(pl.start)} "
                f"+ cost {_t(cost)} on {pl.processor}"
            )
        placed[i] = (p, float(pl.start), float(pl.start) + cost)

    # Rule 1: no overlap on a processor. Sorting by (start, finish) puts zero-length
    # tasks first, so comparing each task with the latest finish so far is enough.
    lanes: dict[int, list[tuple[float, float, int]]] = {}
    for i, (p, s, f) in placed.items():
        lanes.setdefault(p, []).append((s, f, i))
    for p, lane in lanes.items():
        lane.sort()
        busy_until, holder = float("-inf"), -1
        for s, f, i in lane:
            if s < busy_until - tol and f > s:
                problems.append(
                    f"processor {problem.proc_ids[p]}: {ids[holder]} [{_t(placed[holder][1])}, "
                    f"{_t(busy_until)}) overlaps {ids[i]} [{_t(s)}, {_t(f)})"
                )
            if f > busy_until:
                busy_until, holder = f, i

    # Rules 2 and 3: edges wait for data, order pairs for the finish.
    n_edges = len(problem.edge_src)
    for e in range(n_edges):
        a, b = int(problem.edge_src[e]), int(problem.edge_dst[e])
        if a not in placed or b not in placed:
            continue
        pa, _, fa = placed[a]
        pb, sb, _ = placed[b]
        delay = 0.0
        if pa != pb:
            hop = float(problem.hops[pa, pb])
            delay = hop * (problem.latency + float(problem.edge_data[e]) / problem.bandwidth)
        if sb < fa + delay - tol:
            problems.append(
                f"edge {ids[a]} -> {ids[b]}: {ids[b]} starts at {_t(sb)} on "
                f"{problem.proc_ids[pb]} but the data arrive at {_t(fa + delay)} "
                f"({ids[a]} finishes at {_t(fa)} on {problem.proc_ids[pa]}, "
                f"communication {_t(delay)})"
            )
    for a, b in zip(problem.order_src.tolist(), problem.order_dst.tolist(), strict=True):
        if a in placed and b in placed and placed[b][1] < placed[a][2] - tol:
            problems.append(
                f"order {ids[a]} -> {ids[b]}: {ids[b]} starts at {_t(placed[b][1])} before "
                f"{ids[a]} finishes at {_t(placed[a][2])}"
            )

    # Rule 4: isolation pairs never overlap in time, on any processors.
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        if a not in placed or b not in placed:
            continue
        _, sa, fa = placed[a]
        _, sb, fb = placed[b]
        if min(fa, fb) - max(sa, sb) > tol and fa > sa and fb > sb:
            problems.append(
                f"isolation {ids[a]} / {ids[b]}: [{_t(sa)}, {_t(fa)}) and "
                f"[{_t(sb)}, {_t(fb)}) overlap in time"
            )
    return problems


def assert_valid(problem: Problem, schedule: Schedule) -> None:
    """Raise :class:`ScheduleError` listing the violations if the schedule is invalid."""
    problems = validate(problem, schedule)
    if problems:
        raise ScheduleError(f"invalid schedule: {'; '.join(problems)}")


def _is_time(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _is_finite_time(value: object) -> bool:
    return _is_time(value) and math.isfinite(value)  # type: ignore[arg-type]


def _t(value: float) -> str:
    # 12 significant digits: enough to show a difference larger than the tolerance.
    return f"{value:.12g}"
