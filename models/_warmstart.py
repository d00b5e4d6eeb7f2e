"""Warm starts and re-timing for the exact models, independent of the heuristics package.

Two small tools the CP-SAT model (and anyone else) can rely on even before, or
without, the registered heuristics:

* :func:`simple_list_schedule`: an insertion-based earliest-finish-time list
  schedule (HEFT-like, Topcuoglu et al. 2002) that honours every rule of the
  instance format, isolation pairs included, on any cost and delay data (the
  original numbers or scaled integers);
* :func:`retime`: the earliest-start (ASAP) timing of a schedule whose
  processor assignment and sequencing are fixed: per-processor order,
  isolation order. It turns a schedule found on scaled or rounded data into a
  valid schedule on the original data that is never later.

Both work on plain arrays: ``cost`` is ``(n, P)`` with ``inf`` where a task may
not run and ``delay`` is ``(n_arcs, P, P)``, the communication delay of each
arc for every pair of processors (zero diagonal).

References
----------
.. [1] H. Topcuoglu, S. Hariri and M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS 13(3),
   2002, doi:10.1109/71.993206.
"""

from __future__ import annotations

import bisect
import heapq
import math
import time

import numpy as np

from exactsched.problem import Problem

__all__ = [
    "OutOfTime",
    "delay_matrix",
    "upward_rank",
    "simple_list_schedule",
    "serial_schedule",
    "retime",
    "order_from",
    "occupied_end",
]


class OutOfTime(Exception):  # noqa: N818 (a signal, not an error)
    """A deadline passed; the caller falls back to what it already has."""


def delay_matrix(problem: Problem) -> np.ndarray:
    """``(n_arcs, P, P)`` communication delays of every arc on the original data.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1], [(0, 1, 3)], n_processors=2)
    >>> delay_matrix(p)[0].tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    """
    return problem.arc_unit[:, None, None] * problem.hops[None, :, :]


def upward_rank(
    problem: Problem, cost: np.ndarray, delay: np.ndarray, how: str = "mean"
) -> np.ndarray:
    """Upward rank (eq. (4) of [1]_) with node weights ``how`` in {"mean", "min"}.

    Arc weights are the mean delay over ordered pairs of distinct allowed
    processors ("mean") or the least delay of a pair (``"min"``).
    """
    allowed = np.isfinite(cost)
    if how == "mean":
        node = np.where(allowed, cost, 0.0).sum(axis=1) / allowed.sum(axis=1)
    else:
        node = np.where(allowed, cost, np.inf).min(axis=1)
    n_procs = cost.shape[1]
    off = ~np.eye(n_procs, dtype=bool)
    arc = np.zeros(len(problem.arc_src))
    for a, (i, j) in enumerate(
        zip(problem.arc_src.tolist(), problem.arc_dst.tolist(), strict=True)
    ):
        pairs = allowed[i][:, None] & allowed[j][None, :] & off
        if pairs.any():
            vals = delay[a][pairs]
            arc[a] = vals.mean() if how == "mean" else vals.min()
    rank = np.zeros(problem.n_tasks)
    for i in problem.topological_order[::-1].tolist():
        arcs = problem.succ_arcs[problem.succ_ptr[i] : problem.succ_ptr[i + 1]]
        best = 0.0
        for a in arcs.tolist():
            best = max(best, arc[a] + rank[problem.arc_dst[a]])
        rank[i] = node[i] + best
    return rank


def occupied_end(t: float, d: float) -> float:
    """The end of ``[t, t + d)`` as a core sees it: a positive ``d`` below half a unit
    in the last place of ``t`` still occupies ``t`` (``t + d == t`` in floats).

    Examples
    --------
    >>> occupied_end(2.0, 1.0), occupied_end(2.5e14, 1e-6) > 2.5e14
    (3.0, True)
    """
    end = t + d
    return math.nextafter(t, math.inf) if d > 0 and end <= t else end


def _earliest_gap(busy: list[tuple[float, float]], ready: float, length: float) -> float:
    """First start >= ready where [start, start + length) misses every busy interval."""
    if length <= 0:
        return ready
    t = ready
    for bs, be in sorted(busy):
        if bs >= occupied_end(t, length):
            break
        if be > t:
            t = be
    return t


def _lane_gap(starts: list[float], ends: list[float], ready: float, length: float) -> float:
    """:func:`_earliest_gap` on one lane: disjoint intervals sorted by start (so by end).

    Intervals ending by ``ready`` cannot delay the task, so the scan starts at
    the first one ending after it (a bisection): O(log L) plus the gaps tried.
    """
    if length <= 0:
        return ready
    t = ready
    for k in range(bisect.bisect_right(ends, ready), len(starts)):
        if starts[k] >= occupied_end(t, length):
            break
        if ends[k] > t:
            t = ends[k]
    return t


def simple_list_schedule(
    problem: Problem,
    cost: np.ndarray,
    delay: np.ndarray,
    priority: np.ndarray,
    *,
    deadline: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Insertion-based EFT list schedule; returns ``(processor, start)`` arrays.

    Ready tasks are taken by decreasing ``priority`` (ties: lowest index); each
    goes to the processor with the earliest finish time (ties: lowest index),
    in the first idle gap that also avoids every placed isolation partner.

    Parameters
    ----------
    problem : Problem
    cost : numpy.ndarray
        ``(n, P)`` execution times, ``inf`` where a task may not run.
    delay : numpy.ndarray
        ``(n_arcs, P, P)`` communication delays.
    priority : numpy.ndarray
        One number per task.
    deadline : float, optional
        A :func:`time.perf_counter` instant; past it :class:`OutOfTime` is raised.

    Raises
    ------
    OutOfTime
        When ``deadline`` passes before every task is placed.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 5), (1, 2, 0)])
    >>> d = delay_matrix(p)
    >>> proc, start = simple_list_schedule(p, p.cost, d, upward_rank(p, p.cost, d))
    >>> proc.tolist(), start.tolist()
    ([0, 1, 0], [0.0, 0.0, 3.0])
    """
    n, n_procs = cost.shape
    proc = np.full(n, -1, dtype=np.int64)
    start = np.full(n, np.nan)
    finish = np.full(n, np.nan)
    # Per processor the busy intervals, disjoint, as parallel sorted lists.
    lane_s: list[list[float]] = [[] for _ in range(n_procs)]
    lane_e: list[list[float]] = [[] for _ in range(n_procs)]
    missing = np.diff(problem.pred_ptr).astype(np.int64)
    # max over (priority, -index) == min over (-priority, index)
    ready = [(-float(priority[i]), i) for i in range(n) if missing[i] == 0]
    heapq.heapify(ready)
    allowed = [np.flatnonzero(np.isfinite(cost[i])).tolist() for i in range(n)]
    while ready:
        _, i = heapq.heappop(ready)
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfTime("simple_list_schedule: deadline passed")
        arcs = problem.pred_arcs[problem.pred_ptr[i] : problem.pred_ptr[i + 1]]
        if len(arcs):
            src = problem.arc_src[arcs]
            data_ready = np.maximum((finish[src][:, None] + delay[arcs, proc[src], :]).max(0), 0.0)
        else:
            data_ready = np.zeros(n_procs)
        partners = [
            (start[k], occupied_end(start[k], float(cost[k, proc[k]])))
            for k in problem.isolation_partners(i).tolist()
            if proc[k] >= 0 and cost[k, proc[k]] > 0
        ]
        best = (np.inf, 0.0, -1)
        for p in allowed[i]:
            length = float(cost[i, p])
            if partners:
                busy = list(zip(lane_s[p], lane_e[p], strict=True)) + partners
                t = _earliest_gap(busy, float(data_ready[p]), length)
            else:
                t = _lane_gap(lane_s[p], lane_e[p], float(data_ready[p]), length)
            eft = t + length
            if eft < best[0]:
                best = (eft, t, p)
        eft, t, p = best
        proc[i], start[i], finish[i] = p, t, eft
        if cost[i, p] > 0:  # a cost that vanishes in t's float still occupies t
            k = bisect.bisect_left(lane_s[p], t)
            lane_s[p].insert(k, t)
            lane_e[p].insert(k, occupied_end(t, float(cost[i, p])))
        for a in problem.succ_arcs[problem.succ_ptr[i] : problem.succ_ptr[i + 1]].tolist():
            j = int(problem.arc_dst[a])
            missing[j] -= 1
            if missing[j] == 0:
                heapq.heappush(ready, (-float(priority[j]), j))
    return proc, start


def serial_schedule(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """The cheapest valid schedule: tasks one at a time in topological order.

    Each task runs on its fastest allowed processor (ties: lowest index) once
    the previous task has finished and its data have arrived. No two tasks
    ever overlap, so processor and isolation rules hold trivially; O(n + e).
    It is the warm start of last resort when the time limit leaves no time for
    list scheduling.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 5), (1, 2, 0)])
    >>> proc, start = serial_schedule(p)
    >>> proc.tolist(), start.tolist()
    ([0, 0, 0], [0.0, 2.0, 4.0])
    """
    cost = problem.cost
    n = problem.n_tasks
    proc = np.argmin(np.where(problem.allowed, cost, np.inf), axis=1).astype(np.int64)
    duration = cost[np.arange(n), proc]
    start = np.zeros(n)
    lag = problem.arc_unit * problem.hops[proc[problem.arc_src], proc[problem.arc_dst]]
    now = 0.0
    for j in problem.topological_order.tolist():
        t = now
        for a in problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]].tolist():
            i = int(problem.arc_src[a])
            t = max(t, start[i] + duration[i] + lag[a])
        start[j] = t
        now = t + duration[j]
    return proc, start


def order_from(
    problem: Problem, proc: np.ndarray, key: np.ndarray, duration: np.ndarray
) -> list[tuple[int, int]]:
    """Sequencing arcs ``(before, after)`` implied by ``key`` (a start time per task).

    Consecutive tasks of positive ``duration`` on one processor, and every
    isolation pair of positive durations, are ordered by ``key`` (ties: earlier
    in a topological order, so a tie never reverses an arc: a cost below half
    a unit in the last place of its start ends where it starts, at its
    successor's start). Zero-length tasks occupy nothing and get no sequencing arc.
    """
    arcs: list[tuple[int, int]] = []
    positive = duration > 0
    rank = np.empty(problem.n_tasks, dtype=np.int64)
    rank[problem.topological_order] = np.arange(problem.n_tasks)
    for p in np.unique(proc).tolist():
        members = np.flatnonzero((proc == p) & positive)
        members = members[np.lexsort((rank[members], key[members]))]
        arcs.extend(zip(members[:-1].tolist(), members[1:].tolist(), strict=True))
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        if positive[a] and positive[b]:
            arcs.append((a, b) if (key[a], rank[a]) < (key[b], rank[b]) else (b, a))
    return arcs


def retime(
    problem: Problem,
    proc: np.ndarray,
    key: np.ndarray,
    cost: np.ndarray,
    delay: np.ndarray,
) -> np.ndarray:
    """Earliest starts for a fixed assignment ``proc`` and sequencing by ``key``.

    Every arc waits for its delay, tasks on a processor and isolation pairs keep
    the order of ``key`` (see :func:`order_from`). If the sequencing came from a
    schedule valid for data at least as large as ``cost`` and ``delay``, the
    result is valid for them and no task starts later than in ``key``.

    Raises
    ------
    ValueError
        If the sequencing contradicts the precedence arcs (a cycle).

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 5), (1, 2, 0)])
    >>> retime(p, np.array([0, 0, 0]), np.array([0, 9, 20]), p.cost, delay_matrix(p)).tolist()
    [0.0, 2.0, 4.0]
    """
    n = problem.n_tasks
    duration = cost[np.arange(n), proc]
    extra = order_from(problem, proc, key, duration)
    src = np.concatenate([problem.arc_src, np.array([a for a, _ in extra], dtype=np.int64)])
    dst = np.concatenate([problem.arc_dst, np.array([b for _, b in extra], dtype=np.int64)])
    lag = np.concatenate(
        [
            delay[np.arange(len(problem.arc_src)), proc[problem.arc_src], proc[problem.arc_dst]],
            np.zeros(len(extra)),
        ]
    )
    out: list[list[int]] = [[] for _ in range(n)]
    indeg = np.zeros(n, dtype=np.int64)
    for e, (a, b) in enumerate(zip(src.tolist(), dst.tolist(), strict=True)):
        out[a].append(e)
        indeg[b] += 1
    start = np.zeros(n)
    stack = [i for i in range(n) if indeg[i] == 0]
    seen = 0
    while stack:
        i = stack.pop()
        seen += 1
        fin = start[i] + duration[i]
        for e in out[i]:
            j = int(dst[e])
            start[j] = max(start[j], fin + lag[e])
            indeg[j] -= 1
            if indeg[j] == 0:
                stack.append(j)
    if seen < n:
        raise ValueError("retime: the sequencing contradicts the precedence arcs")
    return start
