"""Exhaustive search for optimal makespans of tiny instances, the referee of the exact models.

The method ``bruteforce`` enumerates every pair (processor assignment, linear
order of the tasks) that can matter, times each pair by an earliest-start pass,
and keeps the best. It shares no code with the CP-SAT or MILP models, so when
all three agree the optimum is believable. It refuses instances that are too
large with :class:`exactsched.MethodError` instead of running for hours.

Why the search is exact
-----------------------
Call a task *long* on a processor when its cost there is positive; the
validator never lets two long tasks overlap on a processor or as an isolation
pair, and never makes a zero-length task conflict with anything. For an
assignment ``proc`` and a linear order ``pi`` of the tasks consistent with the
arcs, the *semi-active timing* ``SA(proc, pi)`` starts the tasks in the order
``pi``, each at the earliest time that

* every arc into it allows (predecessor's finish plus communication), and,
  when the task is long,
* every long task before it in ``pi`` on its processor has finished, and
* every long isolation partner before it in ``pi`` has finished.

``SA(proc, pi)`` is a valid schedule: arcs hold by construction, and of two long
tasks sharing a processor or an isolation pair the later one in ``pi`` waits for
the earlier one.

*Claim: the least makespan over all pairs is the optimum.* Take any valid
schedule ``S`` with starts ``s`` and finishes ``f`` and let ``pi = sort(S)`` order
the tasks by ``(s, f, topological rank)``. This order respects the arcs: for an
arc ``i -> j``, ``s_i <= f_i <= s_j <= f_j`` and equality throughout leaves the
topological rank to decide. Let ``k`` before ``j`` in ``pi`` be long tasks on one
processor (or an isolation pair). Then ``s_k <= s_j``, and ``s_k = s_j`` would make
two long intervals overlap, so ``s_k < s_j`` and, since they do not overlap,
``f_k <= s_j``. Hence every constraint ``SA`` imposes on ``j`` is met by ``S``, and
by induction along ``pi`` every start of ``SA(proc_S, pi)`` is at most the one in
``S``: its makespan is at most that of ``S``. Applying this to an optimal ``S``
proves the claim.

*Pruning that keeps exactness.* Two empty processors with equal cost columns
whose swap maps the hop matrix onto itself are interchangeable for the rest of
the search, so only the lower-indexed one is tried. Start from an optimal ``S_0`` and iterate
``S_{k+1} = SA(proc, sort(S_k))``: starts never increase, and there are finitely
many semi-active timings, so the sequence reaches a fixed point ``S*``, optimal,
with ``SA(proc, sort(S*)) = S*``. Along ``pi* = sort(S*)`` the keys
``(start, finish, rank)`` computed by ``SA`` increase strictly. So the depth-first
search only appends a task whose key exceeds the previous one; it also prunes a
branch when a lower bound reaches the best makespan found so far: per unplaced
task and processor, an earliest start (data from placed predecessors, optimistic
arrivals from unplaced ones, the processor's last long finish) plus the
optimistic remaining path with communication
(:func:`_remaining_paths`, computed here), and the processor load after
the current frontier. Both are valid because no later start in the order is
earlier than the last key's, and no later long task on a processor starts
before that processor's last long finish.

References
----------
.. [1] M. Orr and O. Sinnen, "A duplicate-free state-space model for optimal
   task scheduling", Euro-Par 2015, LNCS 9233.
   doi:10.1007/978-3-662-48096-0_8 (the "exhaustive list scheduling" state
   space this search walks, with its duplicates cut by the canonical-order rule).
"""

from __future__ import annotations

import math
import time

import numpy as np

from exactsched._output import rough
from exactsched.bounds import lower_bound as _static_lower_bound
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.result import Result, Status
from exactsched.schedule import Schedule
from models._horizon import list_schedule

__all__ = ["bruteforce", "search_space"]

# Above this many processors the bound's inner minimum runs in numpy.
_VECTOR_PROCS = 64


def search_space(problem: Problem) -> float:
    """Upper estimate of the (assignment, order) pairs: ``n!`` times the assignments.

    Examples
    --------
    >>> search_space(Problem.from_lists([1, 1, 1], n_processors=2))
    48.0
    """
    orders = math.factorial(problem.n_tasks)
    assignments = float(np.prod(problem.allowed.sum(axis=1).astype(float)))
    return orders * assignments if orders < 10**300 else math.inf  # float(171!) overflows


def _swap_keeps_hops(hops: np.ndarray, a: int, b: int) -> bool:
    """Whether exchanging processors ``a`` and ``b`` maps the hop matrix onto itself."""
    if hops[a, a] != hops[b, b] or hops[a, b] != hops[b, a]:
        return False
    rest = np.ones(len(hops), dtype=bool)
    rest[[a, b]] = False
    rows = np.array_equal(hops[a, rest], hops[b, rest])
    return bool(rows and np.array_equal(hops[rest, a], hops[rest, b]))


def _classes(problem: Problem) -> list[int]:
    """Label of each processor: the lowest processor interchangeable with it.

    Written for the search (it shares nothing with the models' class analyses,
    so a fault there cannot prune the brute force's optimum): equal cost
    columns (affinity included) and, when some arc carries data, a swap that
    maps the hop matrix onto itself. That relation is an equivalence (a
    conjugate of two such swaps is one), so comparing each processor with the
    first member of each class is enough.
    """
    columns = np.where(problem.allowed, problem.cost, np.inf).T
    has_data = bool(np.any(problem.arc_unit > 0))
    label = list(range(problem.n_processors))
    reps: dict[bytes, list[int]] = {}
    for q in range(problem.n_processors):
        key = columns[q].tobytes()
        for r in reps.setdefault(key, []):
            if not has_data or _swap_keeps_hops(problem.hops, r, q):
                label[q] = r
                break
        else:
            reps[key].append(q)
    return label


def _twins(problem: Problem) -> list[list[int]]:
    """For each processor, the lower-indexed processors interchangeable with it.

    ``p`` and ``r`` are interchangeable when they have the same cost column and
    swapping them maps the hop matrix onto itself (any two with the same cost
    column when no arc carries data), see :func:`_classes`.

    Examples
    --------
    >>> costs, edges = [[1, 1, 2, 1], [1, 1, 2, 1]], [(0, 1, 5)]
    >>> _twins(Problem.from_lists(costs, edges, network={"topology": "mesh", "dims": [4]}))
    [[], [], [], []]
    >>> _twins(Problem.from_lists(costs, edges))   # fully connected
    [[], [0], [], [0, 1]]
    """
    label = _classes(problem)
    twins: list[list[int]] = [[] for _ in label]
    for q, lab in enumerate(label):
        twins[q] = [r for r in range(lab, q) if label[r] == lab] if lab < q else []
    return twins


def _remaining_paths(problem: Problem) -> np.ndarray:
    """``through[i, p]``: least time from the start of ``i`` on ``p`` to the end of the schedule.

    ``cost[i, p]`` plus, over the arcs out of ``i``, the largest least
    ``delay(p, q) + through[j, q]`` (no delay when ``q == p``); ``inf``
    outside the affinity. Computed here, for the search alone.

    Examples
    --------
    >>> _remaining_paths(Problem.from_lists([[1, 10], [10, 1]], [(0, 1, 5)])).tolist()
    [[7.0, 11.0], [10.0, 1.0]]
    """
    n, n_procs = problem.n_tasks, problem.n_processors
    cost = np.where(problem.allowed, problem.cost, np.inf)
    off = ~np.eye(n_procs, dtype=bool)
    through = np.full((n, n_procs), np.inf)
    for i in problem.topological_order[::-1].tolist():
        rest = np.zeros(n_procs)
        for a in problem.succ_arcs[problem.succ_ptr[i] : problem.succ_ptr[i + 1]].tolist():
            j = int(problem.arc_dst[a])
            delay = np.where(off, problem.arc_unit[a] * problem.hops, 0.0)
            np.maximum(rest, (delay + through[j][None, :]).min(axis=1), out=rest)
        through[i] = cost[i] + rest
    return through


class _Search:
    """Depth-first search over (ready task, processor) with the canonical-order rule."""

    def __init__(self, problem: Problem, best: float, deadline: float | None) -> None:
        n = problem.n_tasks
        self.n = n
        self.n_procs = problem.n_processors
        self.cost = problem.cost.tolist()
        self.procs = [problem.allowed_processors(j).tolist() for j in range(n)]
        self.hops = problem.hops.tolist()
        self.hops_array = problem.hops
        self.vector = problem.n_processors > _VECTOR_PROCS and not np.any(np.diag(problem.hops))
        self.preds = [
            [
                (int(problem.arc_src[a]), float(problem.arc_unit[a]))
                for a in problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]]
            ]
            for j in range(n)
        ]
        self.n_preds = [len(p) for p in self.preds]
        self.succs = [problem.successors(i).tolist() for i in range(n)]
        self.iso = [problem.isolation_partners(j).tolist() for j in range(n)]
        self.topo = problem.topological_order.tolist()
        rank = [0] * n
        for r, j in enumerate(self.topo):
            rank[j] = r
        self.rank = rank
        self.through = _remaining_paths(problem).tolist()
        self.min_cost = problem.min_cost().tolist()
        self.total_min = float(sum(self.min_cost))
        self.integral = problem.is_integral
        self.best = best
        self.best_state: tuple[list[int], list[float]] | None = None
        self.deadline = deadline
        self.nodes = 0
        self.timed_out = False
        # state
        self.proc = [-1] * n
        self.start = [0.0] * n
        self.finish = [0.0] * n
        self.placed = [False] * n
        self.free = [0.0] * self.n_procs
        self.used = [0] * self.n_procs
        self.twins = _twins(problem)

    def _bound(self, last_start: float, makespan: float, remaining_min: float) -> float:
        """Lower bound on the makespan of every completion of the current partial order.

        Per unplaced task ``j`` and processor ``q``, ``est[q]`` bounds the start of
        ``j`` on ``q`` from below (the last key's start, the processor's last long
        finish if ``j`` is long there, and optimistic arrivals from predecessors);
        the makespan is then at least ``min_q est[q] + through[j, q]``. The load
        of the unplaced tasks after each processor's frontier gives another bound.
        """
        bound = makespan
        load = remaining_min + sum(max(f, last_start) for f in self.free)
        bound = max(bound, load / self.n_procs)
        n_procs, hops, cost, free = self.n_procs, self.hops, self.cost, self.free
        est_of: list[list[float] | None] = [None] * self.n
        for j in self.topo:
            if self.placed[j]:
                continue
            cj = cost[j]
            est = [(max(last_start, free[q]) if cj[q] > 0 else last_start) for q in range(n_procs)]
            for i, unit in self.preds[j]:
                if self.placed[i]:
                    fi, row = self.finish[i], hops[self.proc[i]]
                    p = self.proc[i]
                    for q in range(n_procs):
                        arrival = fi if q == p else fi + unit * row[q]
                        if arrival > est[q]:
                            est[q] = arrival
                elif self.vector:
                    # the same minimum as below, in numpy (the diagonal of hops is 0)
                    done = np.add(est_of[i], cost[i])
                    arrival = (done[:, None] + unit * self.hops_array).min(axis=0)
                    est = np.maximum(est, arrival).tolist()
                else:
                    ei, ci = est_of[i], cost[i]
                    done = [ei[r] + ci[r] for r in range(n_procs)]
                    for q in range(n_procs):
                        arrival = min(
                            done[r] if r == q else done[r] + unit * hops[r][q]
                            for r in range(n_procs)
                        )
                        if arrival > est[q]:
                            est[q] = arrival
            est_of[j] = est
            through = self.through[j]
            finish = min(est[q] + through[q] for q in self.procs[j])
            if finish > bound:
                bound = finish
        return bound

    def run(self) -> None:
        self._dfs(0, (-math.inf, -math.inf, -1), 0.0, self.total_min)

    def _dfs(
        self, depth: int, last: tuple[float, float, int], makespan: float, rem: float
    ) -> None:
        self.nodes += 1
        # Every node: one bound costs O(n P**2), far more than a look at the clock.
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.timed_out = True
        if self.timed_out:
            return
        if depth == self.n:
            if makespan < self.best:
                self.best = makespan
                self.best_state = (list(self.proc), list(self.start))
            return
        bound = self._bound(max(last[0], 0.0), makespan, rem)
        if self.integral:
            bound = math.ceil(bound - 1e-9)
        if bound >= self.best:
            return
        cost, hops, proc, finish = self.cost, self.hops, self.proc, self.finish
        for j in range(self.n):
            if self.placed[j] or any(not self.placed[i] for i, _ in self.preds[j]):
                continue
            for q in self.procs[j]:
                if not self.used[q] and any(not self.used[r] for r in self.twins[q]):
                    continue  # an interchangeable empty processor with a lower index
                t = 0.0
                for i, unit in self.preds[j]:
                    p = proc[i]
                    arrival = finish[i] + (unit * hops[p][q] if p != q else 0.0)
                    if arrival > t:
                        t = arrival
                c = cost[j][q]
                if c > 0:
                    if self.free[q] > t:
                        t = self.free[q]
                    for k in self.iso[j]:
                        if self.placed[k] and cost[k][proc[k]] > 0 and finish[k] > t:
                            t = finish[k]
                key = (t, t + c, self.rank[j])
                if key <= last:
                    continue  # not the canonical order of a fixed-point schedule
                self.placed[j] = True
                proc[j] = q
                self.start[j] = t
                finish[j] = t + c
                saved = self.free[q]
                if c > 0:
                    self.free[q] = t + c
                self.used[q] += 1
                self._dfs(depth + 1, key, max(makespan, t + c), rem - self.min_cost[j])
                self.used[q] -= 1
                self.free[q] = saved
                self.placed[j] = False
                proc[j] = -1
                if self.timed_out:
                    return


@register(
    "bruteforce",
    kind="exact",
    description="exhaustive search over assignments and canonical task orders (tiny instances)",
    source="exhaustive list scheduling (Orr and Sinnen, Euro-Par 2015) with a canonical order",
)
def bruteforce(
    problem: Problem,
    *,
    time_limit: float | None = None,
    workers: int | None = None,
    seed: int | None = 0,
    max_tasks: int = 8,
    max_space: float = 1e12,
    trust_bound: bool = True,
) -> Result:
    """Optimal schedule by exhaustive search (tiny instances only).

    Parameters
    ----------
    problem : Problem
    time_limit : float, optional
        Seconds for the whole call, checked at every search node; when it runs
        out the best schedule so far is returned as ``FEASIBLE`` with the bound
        of :func:`exactsched.lower_bound` (``OPTIMAL`` if it meets that bound).
    workers, seed : int, optional
        Accepted for the common interface; the search is sequential and deterministic.
    max_tasks : int
        Refuse instances with more tasks (default 8).
    max_space : float
        Refuse when :func:`search_space` exceeds this (default ``1e12``).
    trust_bound : bool
        Stop at once when the first schedule meets :func:`exactsched.lower_bound`
        (default). False searches anyway, so the answer does not rest on that
        bound: the certification witness (:func:`models._refute.refute_bruteforce`)
        runs so.

    Returns
    -------
    Result
        ``OPTIMAL`` with ``lower_bound == makespan`` unless the time ran out;
        ``stats["nodes"]`` counts search nodes.

    Raises
    ------
    MethodError
        When the instance is above ``max_tasks`` or ``max_space``.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    >>> r = bruteforce(p)
    >>> r.status.value, r.makespan
    ('optimal', 5)
    """
    if problem.n_tasks > max_tasks:
        raise MethodError(
            f"bruteforce: {problem.n_tasks} tasks is more than max_tasks={max_tasks}"
        )
    space = search_space(problem)
    if space > max_space:
        raise MethodError(
            f"bruteforce: search space {rough(space)} is more than max_space={rough(max_space)}"
        )
    if time_limit is not None and time_limit < 0:
        raise MethodError(f"time_limit: must be >= 0, got {time_limit}")
    started = time.perf_counter()
    # The delay model's bound holds under every model (contention only adds waits).
    static = _static_lower_bound(problem)
    deadline = None if time_limit is None else started + time_limit
    if problem.communication != "delay":
        # Ports and links: the same search over tasks and message stages.
        from heuristics.heft import heft
        from models._bruteforce_comm import search_comm

        initial = heft(problem)
        found, stats, timed_out = (None, {"nodes": 0}, False)
        if initial.makespan > static or not trust_bound:
            found, stats, timed_out = search_comm(problem, float(initial.makespan), deadline)
        schedule = found if found is not None else initial
    else:
        initial = list_schedule(problem)
        search = _Search(problem, float(initial.makespan), deadline)
        if initial.makespan > static or not trust_bound:
            search.run()
        if search.best_state is not None:
            proc, start = search.best_state
            schedule = Schedule.from_arrays(problem, np.array(proc), np.array(start))
        else:
            schedule = initial
        stats, timed_out = {"nodes": search.nodes}, search.timed_out
    makespan = schedule.makespan
    stats["search_space"] = space
    if timed_out and (makespan > static or not trust_bound):
        return Result(
            "bruteforce",
            Status.FEASIBLE,
            schedule,
            makespan,
            min(static, makespan),
            time.perf_counter() - started,
            stats,
        )
    return Result(
        "bruteforce",
        Status.OPTIMAL,
        schedule,
        makespan,
        makespan,
        time.perf_counter() - started,
        stats,
    )


bruteforce.communication_models = ("delay", "single-port", "contention")  # type: ignore[attr-defined]
