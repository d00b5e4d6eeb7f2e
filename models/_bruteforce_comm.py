"""Exhaustive search under the single-port and contention models (private helper of bruteforce).

The search of :mod:`models.bruteforce` generalised from tasks to *activities*:
for every processor assignment, the tasks and the stages of every remote
message (``docs/instance-format.md``, "Communication models") are activities
with a fixed duration, the resources they hold (a task its processor; a
stage its ports or link; zero-length activities hold nothing) and zero-lag
precedences (sender -> first stage -> ... -> last stage -> receiver; a local
edge or an order pair: sender -> receiver, with the delay ``arc_unit * hops``,
0 here because a pair of processors without a route is 0 hops apart). A
remote message also gets sender -> receiver with the lag ``arc_unit * hops``:
the stages add up to it in exact arithmetic, so it changes no optimum, but
their float sum can fall below the float delay the validator reads (by 0.2 at
1e15), and a receiver must never start before it.

Why it is exact. The argument of :mod:`models.bruteforce` carries over word
for word with "long activities sharing a resource or forming an isolation
pair" in place of "long tasks on one processor": for an assignment and a
linear order ``pi`` of the activities consistent with the precedences, the
semi-active timing ``SA`` starts each activity at the earliest time its
predecessors and the earlier conflicting long activities allow; from an
optimal schedule, iterating ``SA(sort(S))`` reaches a fixed point whose sorted
keys ``(start, finish, rank)`` strictly increase, so the depth-first search
that only appends an activity whose key exceeds the previous one, over every
assignment, finds an optimum. ``rank`` is a topological order of the
activities (a task by its topological rank; a stage right after its sender).
Branches are cut when ``last start + duration + tail`` of an unplaced
activity (the longest chain of durations after it) or the makespan so far
reaches the best makespan found, and assignments whose critical path or
processor load reaches it are skipped.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

import numpy as np

from exactsched.messages import LinkTime, Message
from exactsched.problem import Problem
from exactsched.schedule import Schedule, _tidy

__all__ = ["search_comm"]


class _Assignment:
    """The activities of one processor assignment."""

    def __init__(self, problem: Problem, proc: tuple[int, ...]) -> None:
        routing = problem.routing
        n, n_procs = problem.n_tasks, problem.n_processors
        rank = np.empty(n, dtype=np.int64)
        rank[problem.topological_order] = np.arange(n)
        self.proc = proc
        dur: list[float] = []
        res: list[tuple[int, ...]] = []
        preds: list[list[tuple[int, float]]] = []
        order_key: list[tuple[int, int, int]] = []
        self.what: list[tuple[int, int]] = []  # (task, -1) or (edge, stage)
        for j in range(n):
            c = float(problem.cost[j, proc[j]])
            dur.append(c)
            res.append((proc[j],) if c > 0 else ())
            preds.append([])
            order_key.append((int(rank[j]), 0, 0))
            self.what.append((j, -1))
        self.stages: dict[int, list[int]] = {}
        n_edges = len(problem.edge_src)
        for a in range(len(problem.arc_src)):
            i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
            p, q = proc[i], proc[j]
            route = routing.route(p, q) if a < n_edges else ()
            if not route:
                lag = float(problem.arc_unit[a] * problem.hops[p, q]) if p != q else 0.0
                preds[j].append((i, lag))
                continue
            before = i
            ids = []
            for k, (stage_res, weight, _) in enumerate(route):
                d = weight * float(problem.arc_unit[a])
                x = len(dur)
                dur.append(d)
                res.append(tuple(n_procs + r for r in stage_res) if d > 0 else ())
                preds.append([(before, 0.0)])
                order_key.append((int(rank[i]), 1 + k, a))
                self.what.append((a, k))
                ids.append(x)
                before = x
            preds[j].append((before, 0.0))
            # Redundant in exact arithmetic (the stages add up to it), but float sums
            # stage by stage can round below the whole delay as the referee evaluates
            # it, finish + hops * (latency + data / bandwidth): 4 x 0.55 ends 0.2 short
            # at 1e15. So the receiver also waits for that sum.
            preds[j].append((i, problem.comm(a, p, q)))
            self.stages[a] = ids
        m = len(dur)
        order = sorted(range(m), key=lambda x: order_key[x])
        self.rank = [0] * m
        for r, x in enumerate(order):
            self.rank[x] = r
        self.topo = order
        self.dur, self.res, self.preds = dur, res, preds
        self.iso: list[list[int]] = [[] for _ in range(m)]
        for a_, b_ in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
            if dur[a_] > 0 and dur[b_] > 0:
                self.iso[a_].append(b_)
                self.iso[b_].append(a_)
        succ: list[list[tuple[int, float]]] = [[] for _ in range(m)]
        for x in range(m):
            for y, lag in preds[x]:
                succ[y].append((x, lag))
        self.succ = succ
        # tail[x]: the longest chain of lags and durations after x finishes.
        tail = [0.0] * m
        for x in reversed(order):
            tail[x] = max((lag + dur[y] + tail[y] for y, lag in succ[x]), default=0.0)
        self.tail = tail
        head = [0.0] * m
        for x in order:
            head[x] = max((head[y] + dur[y] + lag for y, lag in preds[x]), default=0.0)
        self.critical = max(head[x] + dur[x] + tail[x] for x in range(m))
        load = [0.0] * n_procs
        for j in range(n):
            load[proc[j]] += dur[j]
        self.load = max(load)
        self.n_res = n_procs + routing.n_resources


class _CommSearch:
    def __init__(self, problem: Problem, best: float, deadline: float | None) -> None:
        self.problem = problem
        self.best = best
        self.best_state: tuple[_Assignment, list[float]] | None = None
        self.deadline = deadline
        self.nodes = 0
        self.timed_out = False
        # On integral data every time is a multiple of 1 / step: every stage lasts
        # weight * unit, and a fat tree's lowest links weigh 1/2 (an outside audit: a
        # search rounding its bounds to whole units there claimed 6 for 5.5).
        self.step = _time_step(problem)

    def run(self) -> None:
        problem = self.problem
        choices = [problem.allowed_processors(j).tolist() for j in range(problem.n_tasks)]
        for proc in itertools.product(*choices):
            if self.timed_out:
                return
            asg = _Assignment(problem, tuple(proc))
            if max(asg.critical, asg.load) >= self.best:
                continue
            self._search(asg)

    def _search(self, asg: _Assignment) -> None:
        m = len(asg.dur)
        self.a = asg
        self.start = [0.0] * m
        self.finish = [0.0] * m
        self.placed = [False] * m
        self.waiting = [len(p) for p in asg.preds]
        self.free = [0.0] * asg.n_res
        self.n_tasks = self.problem.n_tasks
        self._dfs(0, (-math.inf, -math.inf, -1), 0.0)

    def _dfs(self, depth: int, last: tuple[float, float, int], makespan: float) -> None:
        self.nodes += 1
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.timed_out = True
        if self.timed_out:
            return
        a = self.a
        m = len(a.dur)
        if depth == m:
            if makespan < self.best:
                self.best = makespan
                self.best_state = (a, list(self.start))
            return
        last_start = max(last[0], 0.0)
        bound = makespan
        for x in range(m):
            if not self.placed[x]:
                b = last_start + a.dur[x] + a.tail[x]
                if b > bound:
                    bound = b
        if self.step:
            bound = math.ceil(bound * self.step - 1e-9) / self.step
        if bound >= self.best:
            return
        dur, finish = a.dur, self.finish
        for x in a.topo:
            if self.placed[x] or self.waiting[x]:
                continue
            t = 0.0
            for y, lag in a.preds[x]:
                if finish[y] + lag > t:
                    t = finish[y] + lag
            d = dur[x]
            if d > 0:
                for r in a.res[x]:
                    if self.free[r] > t:
                        t = self.free[r]
                for k in a.iso[x]:
                    if self.placed[k] and finish[k] > t:
                        t = finish[k]
            key = (t, t + d, a.rank[x])
            if key <= last:
                continue  # not the canonical order of a fixed-point schedule
            self.placed[x] = True
            self.start[x], finish[x] = t, t + d
            saved = [self.free[r] for r in a.res[x]]
            for r in a.res[x]:
                self.free[r] = t + d
            for y, _ in a.succ[x]:
                self.waiting[y] -= 1
            span = max(makespan, t + d) if x < self.n_tasks else makespan
            self._dfs(depth + 1, key, span)
            for y, _ in a.succ[x]:
                self.waiting[y] += 1
            for r, f in zip(a.res[x], saved, strict=True):
                self.free[r] = f
            self.placed[x] = False
            if self.timed_out:
                return

    def schedule(self) -> Schedule | None:
        if self.best_state is None:
            return None
        a, start = self.best_state
        return to_schedule(self.problem, a, start)


def _time_step(problem: Problem) -> int | None:
    """Steps per unit of every time of a semi-active schedule, on integral data.

    The least of 1, 2, 4, 8 making every cost and every stage ``weight * unit``
    an integer; None when there is none (bounds are then not rounded).

    Examples
    --------
    >>> p = Problem.from_lists([1, 1], [(0, 1, 3)], n_processors=4,
    ...                        network={"topology": "fat-tree"})
    >>> [_time_step(p.with_communication(m)) for m in ("contention", "single-port")]
    [2, 1]
    """
    if not problem.is_integral:
        return None
    units = np.unique(problem.arc_unit[: len(problem.edge_src)])
    durations = np.multiply.outer(units, problem.delay_multiples).ravel()
    for step in (1, 2, 4, 8):
        scaled = durations * step
        if np.all(scaled == np.round(scaled)) and np.all(np.abs(scaled) < 2.0**53):
            return step
    return None


def to_schedule(problem: Problem, a: _Assignment, start: list[float]) -> Schedule:
    """The schedule (with message times) of an assignment and activity starts."""
    ids = problem.task_ids
    links = problem.communication == "contention"
    messages = []
    for arc, xs in sorted(a.stages.items()):
        i, j = int(problem.arc_src[arc]), int(problem.arc_dst[arc])
        route = problem.routing.route(a.proc[i], a.proc[j])
        times = [(start[x], start[x] + a.dur[x]) for x in xs]
        hops = (
            tuple(
                LinkTime(name, _tidy(s), _tidy(f))
                for (_, _, name), (s, f) in zip(route, times, strict=True)
            )
            if links
            else ()
        )
        messages.append(Message(ids[i], ids[j], _tidy(times[0][0]), _tidy(times[-1][1]), hops))
    n = problem.n_tasks
    return Schedule.from_arrays(problem, np.array(a.proc[:n]), np.array(start[:n]), messages)


def search_comm(
    problem: Problem, best: float, deadline: float | None
) -> tuple[Schedule | None, dict[str, Any], bool]:
    """Run the search; the best schedule found below ``best``, stats, and whether it timed out."""
    search = _CommSearch(problem, best, deadline)
    search.run()
    return search.schedule(), {"nodes": search.nodes}, search.timed_out
