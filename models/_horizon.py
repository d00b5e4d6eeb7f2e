"""Helpers shared by several models and witnesses: semi-active timing and a horizon.

Not a registered method (the leading underscore keeps the auto-import away).
Named after no model on purpose: the MILP (:mod:`models.milp`), the brute force
(:mod:`models.bruteforce`) and the refutation witnesses (:mod:`models._refute`)
use it, and ``docs/exact-models.md`` ("Independence") lists which of these uses
a proof rests on. Only :func:`optimistic_paths` enters a model as a constraint
(the MILP's time windows); the timing functions turn a solver's answer into a
schedule that :func:`exactsched.validate` then checks, and the list schedule is
an upper bound only.

* :func:`semi_active` times a schedule given a processor per task and a linear
  order of the tasks: each task starts at the earliest time its incoming arcs,
  the positive-length tasks placed before it on its processor and its
  positive-length isolation partners placed before it allow. Zero-length tasks
  never conflict with anything (the validator's rule), so they only wait for data.
* :func:`order_from_times` turns (possibly inexact) solver times into such a
  linear order: a ready-list pass taking the task with the least
  ``(start, finish, topological rank)``, so the order always respects precedence.
* :func:`list_schedule` is a tiny ready-list scheduler (upward rank with mean
  costs, earliest finish time, no insertion) giving a valid schedule on every
  instance, used as horizon and warm start when no colleague's HEFT is registered.
* :func:`heads_and_tails` gives time windows of any schedule no longer than a
  horizon (least-cost paths, no communication); :func:`optimistic_paths` the
  same per (task, processor), with communication.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from exactsched.problem import Problem
from exactsched.schedule import Schedule

__all__ = [
    "semi_active",
    "order_from_times",
    "list_schedule",
    "horizon_schedule",
    "heuristic_seconds",
    "heads_and_tails",
    "optimistic_paths",
]


def semi_active(
    problem: Problem,
    proc: Sequence[int],
    order: Sequence[int],
    *,
    cost: np.ndarray | None = None,
    delay: np.ndarray | None = None,
) -> np.ndarray:
    """Earliest start times for a processor assignment and a linear task order.

    Parameters
    ----------
    problem : Problem
    proc : sequence of int
        Processor index of every task (must be allowed).
    order : sequence of int
        Every task once, predecessors before successors.
    cost, delay : numpy.ndarray, optional
        Other data to time with (e.g. the integer-scaled ``(n, P)`` costs and
        ``(n_arcs, P, P)`` delays of :func:`models.cpsat.scale_data`); default
        the problem's own.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` start times.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 2], [1, 1], [3, 3]], [(0, 1, 4)], n_processors=2)
    >>> semi_active(p, [0, 1, 0], [0, 1, 2]).tolist()
    [0.0, 6.0, 2.0]
    """
    n = problem.n_tasks
    proc = np.asarray(proc, dtype=np.int64)
    cost = (problem.cost if cost is None else cost)[np.arange(n), proc]
    start = np.full(n, np.nan)
    finish = np.full(n, np.nan)
    free = np.zeros(problem.n_processors)  # last positive-length finish per processor
    hops = problem.hops
    for j in order:
        j = int(j)
        q = int(proc[j])
        t = 0.0
        for a in problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]].tolist():
            i = int(problem.arc_src[a])
            p = int(proc[i])
            if p == q:
                ready = finish[i]
            elif delay is None:
                ready = finish[i] + problem.arc_unit[a] * hops[p, q]
            else:
                ready = finish[i] + delay[a, p, q]
            if not ready <= t:  # also catches nan: a predecessor placed later
                if np.isnan(ready):
                    raise ValueError(f"order: task {j} comes before its predecessor {i}")
                t = float(ready)
        if cost[j] > 0:
            t = max(t, float(free[q]))
            for k in problem.isolation_partners(j).tolist():
                if not np.isnan(finish[k]) and cost[k] > 0:
                    t = max(t, float(finish[k]))
            free[q] = t + cost[j]
        start[j] = t
        finish[j] = t + cost[j]
    return start


def order_from_times(problem: Problem, start: np.ndarray, finish: np.ndarray) -> list[int]:
    """A linear extension of the precedence arcs following the given times.

    Repeatedly takes, among the tasks whose predecessors are all taken, the one
    with the least ``(start, finish, topological rank)``.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 1)], n_processors=2)
    >>> order_from_times(p, np.array([0.0, 1.0, 0.5]), np.array([1.0, 2.0, 1.5]))
    [0, 2, 1]
    """
    n = problem.n_tasks
    rank = np.empty(n, dtype=np.int64)
    rank[problem.topological_order] = np.arange(n)
    missing = np.diff(problem.pred_ptr).astype(np.int64)
    ready = {j for j in range(n) if missing[j] == 0}
    order: list[int] = []
    while ready:
        j = min(ready, key=lambda t: (float(start[t]), float(finish[t]), int(rank[t])))
        ready.remove(j)
        order.append(j)
        for k in problem.successors(j).tolist():
            missing[k] -= 1
            if missing[k] == 0:
                ready.add(int(k))
    return order


def _upward_rank(problem: Problem) -> np.ndarray:
    """Upward rank with mean costs and mean off-diagonal communication."""
    n_procs = problem.n_processors
    off = problem.hops[~np.eye(n_procs, dtype=bool)]
    mean_hop = float(off.mean()) if off.size else 0.0
    node = problem.mean_cost()
    rank = np.zeros(problem.n_tasks)
    for i in problem.topological_order[::-1].tolist():
        best = 0.0
        for a in problem.succ_arcs[problem.succ_ptr[i] : problem.succ_ptr[i + 1]].tolist():
            j = int(problem.arc_dst[a])
            best = max(best, problem.arc_unit[a] * mean_hop + rank[j])
        rank[i] = node[i] + best
    return rank


def list_schedule(problem: Problem) -> Schedule:
    """A valid schedule from a ready list by upward rank, earliest finish, no insertion.

    Ties: the lower task index, then the lower processor index.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = list_schedule(p)
    >>> validate(p, s), s.makespan <= 100
    ([], True)
    """
    n = problem.n_tasks
    rank = _upward_rank(problem)
    missing = np.diff(problem.pred_ptr).astype(np.int64)
    ready = {j for j in range(n) if missing[j] == 0}
    proc = np.full(n, -1, dtype=np.int64)
    order: list[int] = []
    while ready:
        j = min(ready, key=lambda t: (-rank[t], t))
        ready.remove(j)
        best: tuple[float, int] | None = None
        for q in problem.allowed_processors(j).tolist():
            proc[j] = q
            finish = semi_active(problem, proc, [*order, j])[j] + problem.cost[j, q]
            if best is None or finish < best[0]:
                best = (float(finish), int(q))
        assert best is not None
        proc[j] = best[1]
        order.append(j)
        for k in problem.successors(j).tolist():
            missing[k] -= 1
            if missing[k] == 0:
                ready.add(int(k))
    return Schedule.from_arrays(problem, proc, semi_active(problem, proc, order))


# Fast deterministic heuristics of colleagues tried for the horizon when registered.
_HORIZON_HEURISTICS = ("heft", "peft", "hoft", "hbmct", "rts")
# Above this many tasks list_schedule is only the fallback of horizon_schedule.
_LIST_MAX_TASKS = 200
# Seconds of list_schedule per n^2 P (upper end of the measured 2-4e-6).
_LIST_SECONDS = 4e-6
# Estimated seconds per (n + e) P and per e P^2 (PEFT's and HOFT's tables), about
# three times what was measured on 50-2000 tasks x 8-1024 processors.
_HEURISTIC_SECONDS = {
    "heft": (5e-6, 0.0),
    "peft": (5e-6, 3e-8),
    "hoft": (5e-6, 6e-8),
    "hbmct": (5e-5, 0.0),
    "rts": (5e-6, 0.0),
}


def heuristic_seconds(problem: Problem, method: str) -> float:
    """A generous estimate of the seconds ``method`` takes, from the sizes alone.

    Examples
    --------
    >>> p = Problem.from_lists([[1, 2]] * 3, [(0, 1, 1), (1, 2, 1)])
    >>> heuristic_seconds(p, "heft") < heuristic_seconds(p, "hbmct")
    True
    """
    per_work, per_table = _HEURISTIC_SECONDS.get(method, (5e-5, 6e-8))
    n_arcs = len(problem.arc_src)
    n_procs = problem.n_processors
    return per_work * (problem.n_tasks + n_arcs) * n_procs + per_table * n_arcs * n_procs**2


def horizon_schedule(
    problem: Problem, budget: float | None = None, seed: int | None = 0
) -> tuple[Schedule, str]:
    """The shortest of :func:`list_schedule` and a few registered heuristics.

    The heuristics (``heft``, ``peft``, ``hoft``, ``hbmct``, ``rts``, when
    registered) are only trusted after :func:`exactsched.validate` accepts their
    schedule; one that fails or raises is skipped. Ties keep the earlier one.
    ``seed`` goes to the randomised ones (``rts``).

    ``budget`` (seconds) bounds the time: the first heuristic always runs, each
    later one (and :func:`list_schedule`) only when its estimated time
    (:func:`heuristic_seconds`, from the instance's sizes) fits in what the
    estimates of the earlier ones left. Which heuristics run therefore depends on
    the instance and the budget, not on the machine's load, so the horizon, and
    with it the MILP, is reproducible. The one exception is a safety stop: no
    further heuristic starts once twice the budget has passed on the clock
    (estimates off by that much on an overloaded machine).

    Returns
    -------
    (Schedule, str)
        The schedule and the name of the heuristic that produced it (``"list"``
        for :func:`list_schedule`).

    Examples
    --------
    >>> from exactsched import load_instance
    >>> schedule, name = horizon_schedule(load_instance("examples/topcuoglu2002.json"))
    >>> schedule.makespan <= 80
    True
    """
    from exactsched.registry import available_methods
    from exactsched.validate import validate

    registered = {m.name: m for m in available_methods() if m.kind == "heuristic"}
    began = time.perf_counter()
    left = math.inf if budget is None else float(budget)
    stop = None if budget is None else began + 2 * float(budget)
    # list_schedule times every candidate from scratch (quadratic in the tasks):
    # on large instances it only runs when no registered heuristic gave a schedule.
    best: Schedule | None = None
    name = "list"
    # The registered heuristics run first (list_schedule takes seconds on 1024
    # processors); list_schedule then wins ties, as when it ran first.
    for method in _HORIZON_HEURISTICS:
        if method not in registered:
            continue
        estimate = heuristic_seconds(problem, method)
        if best is not None and (
            estimate > left or (stop is not None and time.perf_counter() > stop)
        ):
            continue
        left -= estimate
        try:
            if "seed" in registered[method].options:
                other = registered[method].func(problem, seed=0 if seed is None else int(seed))
            else:
                other = registered[method].func(problem)
        except Exception:  # a colleague's heuristic failing must not stop the exact model
            continue
        if not validate(problem, other) and (best is None or other.makespan < best.makespan):
            best, name = other, method
    # list_schedule re-times the whole prefix per task and processor: about 2-4e-6 s per
    # n^2 P (measured: 40 tasks on 1024 processors 3.6 s, 200 on 16 2.4 s). It runs
    # only when that fits in the budget (the MILP's warm start once overran a 2 s
    # limit by 2-4 s on the 1024-processor chain of benchmarks/time_limits.py).
    late = best is not None and (
        _LIST_SECONDS * problem.n_tasks**2 * problem.n_processors > left
        or (stop is not None and time.perf_counter() > stop)
    )
    if best is None or (problem.n_tasks <= _LIST_MAX_TASKS and not late):
        own = list_schedule(problem)
        if best is None or own.makespan <= best.makespan:
            best, name = own, "list"
    return best, name


def heads_and_tails(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Least-cost longest paths to and from every task, ignoring communication.

    ``head[i]`` is a lower bound on the start of ``i``; ``tail[i]`` (including
    ``i``'s own least cost) a lower bound on makespan minus that start.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [3, 1], [5, 5]], [(0, 1, 9), (1, 2, 9)])
    >>> [a.tolist() for a in heads_and_tails(p)]
    [[0.0, 2.0, 3.0], [8.0, 6.0, 5.0]]
    """
    cost = problem.min_cost()
    head = np.zeros(problem.n_tasks)
    tail = cost.copy()
    topo = problem.topological_order.tolist()
    for j in topo:
        preds = problem.predecessors(j)
        if len(preds):
            head[j] = float((head[preds] + cost[preds]).max())
    for i in reversed(topo):
        succs = problem.successors(i)
        if len(succs):
            tail[i] = cost[i] + float(tail[succs].max())
    return head, tail


def optimistic_paths(
    problem: Problem, *, cost: np.ndarray | None = None, delay: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Per (task, processor) least start and least remaining time, with communication.

    ``ready[j, p]`` is the optimistic data-ready time of ``j`` on ``p``: the
    recursion of :func:`exactsched.bounds.optimistic_critical_path`, where each
    predecessor sits on its best processor. ``through[i, p]`` is the mirror image:
    ``cost[i, p]`` plus, over the arcs out of ``i``, the largest least
    ``delay(p, q) + through[j, q]``. Every schedule with ``i`` on ``p`` starts
    ``i`` at ``ready[i, p]`` or later and ends at ``start + through[i, p]`` or
    later. Both are ``inf`` outside a task's affinity. ``cost`` and ``delay``
    replace the problem's data as in :func:`semi_active`.

    Examples
    --------
    >>> p = Problem.from_lists([[1, 10], [10, 1]], [(0, 1, 5)])
    >>> ready, through = optimistic_paths(p)
    >>> ready.tolist(), through.tolist()
    ([[0.0, 0.0], [1.0, 6.0]], [[7.0, 11.0], [10.0, 1.0]])
    """
    n, n_procs = problem.n_tasks, problem.n_processors
    if cost is None:
        cost = problem.cost  # inf outside the affinity, which propagates correctly

    def arc_delay(a: int) -> np.ndarray:
        return problem.arc_unit[a] * problem.hops if delay is None else delay[a]

    ready = np.zeros((n, n_procs))
    oft = np.full((n, n_procs), np.inf)
    topo = problem.topological_order.tolist()
    for j in topo:
        for a in problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]].tolist():
            i = int(problem.arc_src[a])
            np.maximum(ready[j], (oft[i][:, None] + arc_delay(a)).min(axis=0), out=ready[j])
        oft[j] = cost[j] + ready[j]
    through = np.full((n, n_procs), np.inf)
    for i in reversed(topo):
        rest = np.zeros(n_procs)
        for a in problem.succ_arcs[problem.succ_ptr[i] : problem.succ_ptr[i + 1]].tolist():
            j = int(problem.arc_dst[a])
            np.maximum(rest, (arc_delay(a) + through[j][None, :]).min(axis=1), out=rest)
        through[i] = cost[i] + rest
    ready[~problem.allowed] = np.inf
    return ready, through
