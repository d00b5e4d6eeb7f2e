"""Relocation search: a warm start that moves tasks between locations of a platform.

List schedules decide where a task goes one task at a time and never revisit
the choice. On a node with one fast accelerator and slow CPU cores that is
what goes wrong: the best schedules keep the accelerator busy and send to the
cores just the tasks whose results are not needed for a long time, a choice
no greedy rule sees. :func:`relocation_search` searches over the *assignment*
instead: starting from a schedule's locations it moves one task at a time to
another location (or two tasks at once), re-schedules with a fast list
scheduler for that fixed assignment (priorities: upward ranks under that
assignment) and keeps the move when the makespan does not grow. It is a plain
hill climber with sideways moves and a seeded random move order, so it is
deterministic for a seed (unless its wall-clock safety limit ends it).

A *location* is a processor, or a class of interchangeable processors with
free communication among them (the CPU cores of an accelerated node, see
:func:`models.cpsat.processor_locations`), where the scheduler takes the core
that can start the task first.

References
----------
.. [1] H. Topcuoglu, S. Hariri and M.-Y. Wu, IEEE TPDS 13(3), 2002 (upward rank).
.. [2] T. McSweeney, N. Walton and M. Zounon, "An efficient new static scheduling
   heuristic for accelerated architectures", ICCS 2020 (why type choice matters
   on CPU-GPU nodes).
"""

from __future__ import annotations

import bisect
import heapq
import math
import time

import numpy as np

from exactsched.problem import Problem
from models._warmstart import occupied_end as _occupied_end

__all__ = ["FixedAssignmentScheduler", "relocation_search", "priority_search"]


class FixedAssignmentScheduler:
    """List scheduler for a fixed location of every task, on the original data.

    Parameters
    ----------
    problem : Problem
    members : list of list of int
        Processors of each location; communication inside a location is free.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 1], [2, 1], [1, 1]], [(0, 2, 5), (1, 2, 0)])
    >>> sched = FixedAssignmentScheduler(p, [[0], [1]])
    >>> makespan, proc, start = sched.run(np.array([1, 1, 1]))
    >>> makespan, proc.tolist(), start.tolist()
    (3.0, [1, 1, 1], [0.0, 1.0, 2.0])
    """

    def __init__(self, problem: Problem, members: list[list[int]]) -> None:
        self.problem = problem
        self.members = members
        rep = np.array([m[0] for m in members], dtype=np.int64)
        self.cost = problem.cost[:, rep]
        delay = problem.arc_unit[:, None, None] * problem.hops[rep][:, rep][None, :, :]
        self.delay = delay
        self.src = problem.arc_src
        self.dst = problem.arc_dst
        n = problem.n_tasks
        # Index arrays of the per-run gathers, built once: run() is the inner loop.
        self.task_index = np.arange(n)
        self.arc_index = np.arange(len(problem.arc_src))
        self.pred = [
            problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]].tolist()
            for j in range(n)
        ]
        self.succ = [
            problem.succ_arcs[problem.succ_ptr[i] : problem.succ_ptr[i + 1]].tolist()
            for i in range(n)
        ]
        self.partners = [problem.isolation_partners(i).tolist() for i in range(n)]
        self.reverse_order = problem.topological_order[::-1].tolist()
        self.src_list = self.src.tolist()
        self.dst_list = self.dst.tolist()

    def _place(
        self,
        lane: tuple[list[float], list[float]],
        ready: float,
        d: float,
        i: int,
        start: list[float],
        finish: list[float],
        placed: list[bool],
    ) -> float:
        """Earliest start >= ready in an idle gap of ``lane`` missing every placed partner."""
        if d <= 0:
            return ready
        starts, ends = lane
        t = ready
        while True:
            k = bisect.bisect_right(ends, t)
            while k < len(starts) and starts[k] < _occupied_end(t, d):
                t = max(t, ends[k])
                k += 1
            moved = False
            for q in self.partners[i]:
                if placed[q] and finish[q] > start[q] and start[q] < t + d and t < finish[q]:
                    t = finish[q]
                    moved = True
            if not moved:
                return t

    def run(
        self, assign: np.ndarray, jitter: np.ndarray | None = None
    ) -> tuple[float, np.ndarray, np.ndarray]:
        """Makespan, processor and start of every task for location ``assign``.

        Ready tasks go by decreasing upward rank under this assignment (ties:
        lowest index), each in the first idle gap of the core of its location
        that can start it first (ties: lowest index), clear of every placed
        isolation partner. ``jitter`` (one factor per task) multiplies the
        ranks: perturbed priorities for :func:`priority_search`.
        """
        n = self.problem.n_tasks
        dur = self.cost[self.task_index, assign].tolist()
        lag = self.delay[self.arc_index, assign[self.src], assign[self.dst]].tolist()
        rank = [0.0] * n
        for i in self.reverse_order:
            best = 0.0
            for a in self.succ[i]:
                value = lag[a] + rank[self.dst_list[a]]
                if value > best:
                    best = value
            rank[i] = dur[i] + best
        if jitter is not None:
            rank = (np.asarray(rank) * jitter).tolist()
        lanes = [[([], []) for _ in m] for m in self.members]  # (starts, ends) per core
        finish = [0.0] * n
        start = [0.0] * n
        proc = [0] * n
        placed = [False] * n
        missing = [len(p) for p in self.pred]
        heap = [(-rank[i], i) for i in range(n) if missing[i] == 0]
        heapq.heapify(heap)
        assign_list = assign.tolist()
        while heap:
            _, i = heapq.heappop(heap)
            ready = 0.0
            for a in self.pred[i]:
                value = finish[self.src_list[a]] + lag[a]
                if value > ready:
                    ready = value
            d = dur[i]
            best_t, best_core = math.inf, 0
            for core, lane in enumerate(lanes[assign_list[i]]):
                t = self._place(lane, ready, d, i, start, finish, placed)
                if t < best_t:
                    best_t, best_core = t, core
            t = best_t
            if d > 0:
                starts, ends = lanes[assign_list[i]][best_core]
                k = bisect.bisect_left(starts, t)
                starts.insert(k, t)
                ends.insert(k, _occupied_end(t, d))
            core = best_core
            start[i], finish[i], placed[i] = t, t + d, True
            proc[i] = self.members[assign_list[i]][core]
            for a in self.succ[i]:
                j = self.dst_list[a]
                missing[j] -= 1
                if missing[j] == 0:
                    heapq.heappush(heap, (-rank[j], j))
        return max(finish, default=0.0), np.array(proc, dtype=np.int64), np.array(start)


def _stop_at(seconds: float, deadline: float | None) -> float:
    """The earlier of ``seconds`` from now and ``deadline``."""
    stop = time.perf_counter() + seconds
    return stop if deadline is None else min(stop, deadline)


def relocation_search(
    problem: Problem,
    members: list[list[int]],
    assign: np.ndarray,
    *,
    moves: int = 2000,
    seconds: float = 2.0,
    seed: int = 0,
    deadline: float | None = None,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Hill-climb over task locations from ``assign``; best makespan, processors, starts.

    Parameters
    ----------
    problem : Problem
    members : list of list of int
        Processors of each location.
    assign : numpy.ndarray
        Starting location of every task (must be allowed).
    moves : int
        Number of moves tried (the search is deterministic for a seed when this
        ends it).
    seconds : float
        Wall-clock safety limit; the search stops early when it is reached.
    seed : int
        Seed of the move order.
    deadline : float, optional
        A :func:`time.perf_counter` instant the search never runs past (the
        caller's time limit), whatever ``seconds`` says.

    Returns
    -------
    tuple
        ``(makespan, processor, start)`` of the best schedule met (on the
        original data; callers validate it).

    Examples
    --------
    >>> p = Problem.from_lists([[1, 9], [4, 1], [1, 9]], [(0, 1, 0), (1, 2, 0)])
    >>> makespan, proc, _ = relocation_search(p, [[0], [1]], np.array([0, 0, 0]), moves=50)
    >>> makespan, proc.tolist()
    (3.0, [0, 1, 0])
    """
    sched = FixedAssignmentScheduler(problem, members)
    allowed = np.isfinite(sched.cost)
    options = [np.flatnonzero(allowed[i]) for i in range(problem.n_tasks)]
    movable = [i for i in range(problem.n_tasks) if len(options[i]) > 1]
    assign = np.asarray(assign, dtype=np.int64).copy()
    best, proc, start = sched.run(assign)
    if not movable:
        return best, proc, start
    rng = np.random.default_rng(seed)
    deadline = _stop_at(seconds, deadline)
    current = best
    for _ in range(moves):
        if time.perf_counter() > deadline:
            break
        # One task moves, or two at once (30 %): pairs get past plateaus where
        # sending one task to the cores only helps once another comes back.
        trial = assign.copy()
        for _ in range(2 if rng.random() < 0.3 else 1):
            i = movable[int(rng.integers(len(movable)))]
            choices = options[i][options[i] != trial[i]]
            trial[i] = choices[int(rng.integers(len(choices)))]
        value, p2, s2 = sched.run(trial)
        if value <= current:  # sideways moves are kept: they cross plateaus
            assign, current = trial, value
            if value <= best:
                best, proc, start = value, p2, s2
    return best, proc, start


def priority_search(
    problem: Problem,
    members: list[list[int]],
    assign: np.ndarray,
    *,
    tries: int = 500,
    seconds: float = 2.0,
    spread: float | tuple[float, ...] = (0.05, 0.2),
    target: float = 0.0,
    seed: int = 0,
    deadline: float | None = None,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Best list schedule for a fixed assignment over randomly perturbed ranks.

    Each try multiplies every upward rank by an independent factor drawn
    uniformly from ``[1 - s, 1 + s]``, ``s`` cycling through ``spread`` (the
    first try uses the plain ranks), which reorders tasks of close priority:
    on identical processors without communication (the STG set) this finds
    schedules the single rank order misses (small spreads found some, large
    ones others, hence both by default). Stops early when the makespan
    reaches ``target`` (a proven lower bound), after ``seconds`` or at
    ``deadline`` (a :func:`time.perf_counter` instant).

    Returns
    -------
    tuple
        ``(makespan, processor, start)`` of the best try.

    Examples
    --------
    >>> edges = [(0, 1), (0, 3), (0, 4), (2, 4)]
    >>> p = Problem.from_lists([1, 4, 2, 3, 3], edges, n_processors=2)
    >>> FixedAssignmentScheduler(p, [[0, 1]]).run(np.zeros(5, dtype=int))[0]
    8.0
    >>> priority_search(p, [[0, 1]], np.zeros(5, dtype=int), tries=50, spread=0.3)[0]
    7.0
    """
    sched = FixedAssignmentScheduler(problem, members)
    assign = np.asarray(assign, dtype=np.int64)
    best, proc, start = sched.run(assign)
    rng = np.random.default_rng(seed)
    deadline = _stop_at(seconds, deadline)
    spreads = (spread,) if isinstance(spread, int | float) else tuple(spread)
    for k in range(tries - 1):
        if best <= target or time.perf_counter() > deadline:
            break
        s = spreads[k % len(spreads)]
        jitter = rng.uniform(1 - s, 1 + s, problem.n_tasks)
        value, p2, s2 = sched.run(assign, jitter)
        if value < best:
            best, proc, start = value, p2, s2
    return best, proc, start
