"""DSC-GLB-ETF: cluster with DSC, map clusters by guided load balancing, order by ETF.

Contract
--------
``dsc_glb_etf(problem, *, insertion=False) -> Schedule``, registered as
``dsc-glb-etf``: the three-step cluster scheduler that Wang and Sinnen found
the best of the cluster-based family [3]_ and that Özkaya et al. use as a
baseline [4]_ (slide 7, "uses dominant sequence clustering (dsc), then merges
clusters with guided load balancing (glb), and finally orders tasks using
earliest EST first (etf)"). Each step is a public function:

1. :func:`dsc` -- Dominant Sequence Clustering (Yang and Gerasoulis [1]_) on
   an unbounded number of virtual processors, with one weight per task and
   per arc;
2. :func:`glb` -- Guided Load Balancing (Radulescu and van Gemund [2]_):
   clusters in increasing order of their start time in the DSC schedule, each
   to the processor whose load (total execution time already mapped) plus
   the cluster's work there is least;
3. :func:`etf_order` -- ETF (Hwang et al. [5]_) with the mapping fixed:
   repeatedly start the ready task with the earliest start time on its
   processor.

How the networked heterogeneous model is used (all three papers assume
identical processors and a fully connected network):

* DSC needs one weight per task and per arc: the mean cost over the task's
  allowed processors (on a CPU-GPU platform, the processor-count weighted
  mean of the per-type costs) and HEFT's mean communication ``arc_unit *
  mean hops`` over all pairs of distinct processors
  (:func:`heuristics.ranking.mean_comm`), so a multi-hop network makes
  messages heavier on average; order pairs weigh 0. The real per-processor
  costs and hop distances only come back in GLB and ETF.
* Affinity: a cluster ends up on one processor, so DSC only merges a task into
  a cluster if some processor may run every task of it; GLB only considers
  such processors (the work there is finite).
* GLB with heterogeneous costs: the work of a cluster on processor ``q`` is
  ``sum cost[t, q]``; on identical processors "least load after mapping" is
  the original "least loaded processor".
* ETF uses the exact times of the shared engine :mod:`heuristics.eft`: data
  from ``p`` reach ``q`` at ``finish + arc_unit * hops[p, q]``, isolation
  partners block their interval on every processor, order pairs wait for the
  finish only. ``insertion=False`` (default, ETF's processor-free time)
  appends after the last task of the processor.

Tie-breaking: DSC takes the free task of highest priority ``tlevel +
blevel`` (ties: lowest index); among predecessors of equal arrival the lower
index is the dominant one, whose cluster the task may join (with further
predecessors pulled in by the minimisation procedure, see :func:`dsc`);
GLB: lowest cluster number, then lowest processor index; ETF: earliest
start, then larger bottom level (the ``bl`` of [4]_ with the weights above),
then lowest task index.

References
----------
.. [1] T. Yang, A. Gerasoulis, "DSC: scheduling parallel tasks on an
   unbounded number of processors", IEEE TPDS 5(9), 951-967, 1994.
   doi:10.1109/71.308533
.. [2] A. Radulescu, A. J. C. van Gemund, "GLB: a low-cost scheduling
   algorithm for distributed-memory architectures", HiPC 1998, 294-301.
.. [3] H. Wang, O. Sinnen, "List-scheduling versus cluster-scheduling", IEEE
   TPDS 29(8), 1736-1749, 2018. doi:10.1109/TPDS.2018.2808959
.. [4] M. Y. Özkaya, J. Herrmann, A. Benoit, B. Uçar, Ü. V. Çatalyürek, "A
   scalable clustering-based task scheduler for homogeneous processors using
   DAG partitioning", IPDPS 2019 (slides 7-10).
.. [5] J.-J. Hwang, Y.-C. Chow, F. D. Anger, C.-Y. Lee, "Scheduling
   precedence graphs in systems with interprocessor communication times",
   SIAM J. Comput. 18(2), 244-257, 1989.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from exactsched._time_grid import time_resolution
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._ready_list import batch_schedule
from heuristics._tables import tie_value, tie_with
from heuristics.ranking import mean_comm, ranks_from_weights

__all__ = ["bottom_level", "dsc", "dsc_glb_etf", "etf_order", "glb"]


def _weights(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """DSC's task and arc weights: mean allowed cost and mean communication."""
    return problem.mean_cost(), mean_comm(problem)


def bottom_level(problem: Problem) -> np.ndarray:
    """``(n,)`` bottom levels ``bl`` (eq. (1) of [1]_) with mean costs and mean communication.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [1, 1], [3, 5]], [(0, 1, 7), (0, 2, 1)])
    >>> bottom_level(p).tolist()
    [11.0, 1.0, 4.0]

    References
    ----------
    .. [1] Özkaya et al., IPDPS 2019, slide 8.
    """
    w, c = _weights(problem)
    return ranks_from_weights(problem, w, c)


def dsc(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Dominant Sequence Clustering of the DAG, as published by Yang and Gerasoulis.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    cluster : numpy.ndarray
        ``(n,)`` cluster number of every task, numbered in creation order
        (clusters emptied by the minimisation procedure are dropped).
    start : numpy.ndarray
        ``(n,)`` start time of every task in DSC's schedule on unbounded
        virtual processors (one per cluster, tasks in a cluster back to back).

    Examples
    --------
    A fork with one heavy message: ``t1`` joins ``t0``'s cluster (start 2
    instead of 2 + 10), ``t2``'s light message is cheaper to pay than to wait
    for ``t1``, so it gets its own cluster.

    >>> p = Problem.from_lists([2, 3, 1], [(0, 1, 10), (0, 2, 1)], n_processors=2)
    >>> cluster, start = dsc(p)
    >>> cluster.tolist(), start.tolist()
    ([0, 0, 1], [0.0, 2.0, 3.0])

    A join of four unit tasks over messages of 10: zeroing one edge alone
    gains nothing (the other three still arrive at 11), so the minimisation
    procedure pulls all four predecessors into one cluster and the sink
    starts at 4:

    >>> p = Problem.from_lists([1] * 5, [(i, 4, 10) for i in range(4)], n_processors=2)
    >>> cluster, start = dsc(p)
    >>> cluster.tolist(), start.tolist()
    ([0, 0, 0, 0, 0], [0.0, 1.0, 2.0, 3.0, 4.0])

    Notes
    -----
    The algorithm of [1]_ (sec. 4), with the task and arc weights of the
    module docstring. Tasks are *examined* one at a time; an unexamined task
    is *free* when all its predecessors are examined and *partially free*
    when only some are. ``blevel`` is the longest path to an exit, weights and
    messages included; ``tlevel`` of a free task is its start in a cluster of
    its own, ``max(finish + c)`` over its predecessors, and ``ptlevel`` of a
    partially free task the same over its examined predecessors.

    Each step takes the head ``nx`` of the free list (highest priority
    ``tlevel + blevel``, ties lowest index) and the head ``ny`` of the partial
    free list (highest ``ptlevel + blevel``) and runs the *minimisation
    procedure* on ``nx``:

    1. sort ``nx``'s predecessors by arrival ``finish + c`` decreasing (ties:
       lower index); the first one is on the dominant sequence and its
       cluster ``C`` is the one ``nx`` may join (arcs from ``C`` are zeroed);
    2. the following predecessors outside ``C``, in that order, may be pulled
       into ``C`` with ``nx`` -- zeroing several incoming edges at once -- as
       long as each has ``nx`` as its only successor (moving it then delays
       nobody else) and some processor may run all of ``C``, the pulled tasks
       and ``nx`` (affinity). Merging the first ``i`` of them (ordered in
       ``C`` by their data-ready time there, which minimises ``C``'s end)
       gives ``nx`` the start ``max(end of C, arrival of the next
       predecessor)``; the ``i`` of least start is kept (ties: fewest
       moves). The search stops once ``C``'s end reaches the next arrival,
       after which starts only grow;
    3. the zeroing is accepted only if it *strictly* reduces ``tlevel(nx)``;
       otherwise ``nx`` opens a cluster of its own.

    DSRW (dominant sequence length reduction warranty, constraint CT2 of
    [1]_): when ``ny`` outranks ``nx``, ``nx`` may not join the cluster of
    ``ny``'s dominant examined predecessor if that would end the cluster
    after ``ptlevel(ny)``, so the cluster stays available to the more
    critical ``ny``. Examined tasks other than the pulled predecessors never
    move, so every start time fixed before stays valid. A pulled predecessor
    need not be alone or last in its old cluster: the tasks after it there keep
    their start times, valid but possibly later than the cluster now allows
    (an outside audit found 2 such starts in 2,080 tasks). The condition of
    step 2 is the one of Wang and Sinnen's DSC clusterer (their ``parcschedule``
    framework, whose comparison [3]_ the baseline of [4]_ comes from: a parent
    qualifies when the task is its only child, and leaving its old cluster
    re-times nothing there); the start times only order the clusters for GLB.

    On fork and join DAGs with identical processors, a fully connected
    network and at least as many processors as tasks this clustering is
    optimal (Theorem 4.2 of [1]_); ``tests/test_dsc_glb_etf.py`` checks that
    against the exact solvers.

    Cost: ``O((n + e) log n)`` for the lists plus ``O(d + k^2 log k)`` per task
    with ``d`` predecessors of which ``k`` are pulled into its cluster.

    References
    ----------
    .. [1] Yang, Gerasoulis, IEEE TPDS 5(9), 1994, sec. 4.
    """
    n = problem.n_tasks
    w, c = _weights(problem)
    blevel = ranks_from_weights(problem, w, c).tolist()
    # Every sum DSC compares, as tie_values: equal decimals tie (0.35 + 0.3 against 0.65).
    resolution = time_resolution(problem)

    def tidy(x: float) -> float:
        return tie_value(resolution, x)

    allowed = problem.allowed
    w_list = w.tolist()
    c_list = c.tolist()
    pred_ptr = problem.pred_ptr.tolist()
    pred_arc = problem.pred_arcs.tolist()
    succ_ptr = problem.succ_ptr.tolist()
    succ_arc = problem.succ_arcs.tolist()
    arc_src = problem.arc_src.tolist()
    arc_dst = problem.arc_dst.tolist()
    # Distinct successor tasks (a data edge and an order pair may join the same two tasks).
    n_succ = [len({arc_dst[a] for a in succ_arc[succ_ptr[t] : succ_ptr[t + 1]]}) for t in range(n)]

    cluster = [-1] * n
    start = [0.0] * n
    finish = [0.0] * n
    members: list[list[int]] = []  # tasks of each cluster, in execution order
    masks: list[np.ndarray] = []  # processors that may run every task of it

    def end(k: int) -> float:
        return finish[members[k][-1]] if members[k] else 0.0

    def ready_in(t: int, k: int) -> float:
        """Data-ready time of examined ``t`` if it ran in cluster ``k``."""
        best = 0.0
        for a in pred_arc[pred_ptr[t] : pred_ptr[t + 1]]:
            q = arc_src[a]
            best = max(best, tidy(finish[q] + (0.0 if cluster[q] == k else c_list[a])))
        return best

    def pulled_end(k: int, moved: list[int]) -> tuple[float, list[tuple[float, int]]]:
        """End of cluster ``k`` with ``moved`` appended by data-ready time, and their slots."""
        at = end(k)
        slots = []
        for r, t in sorted((ready_in(t, k), t) for t in moved):
            s = max(at, r)
            slots.append((s, t))
            at = tidy(s + w_list[t])
        return at, slots

    remaining = [pred_ptr[t + 1] - pred_ptr[t] for t in range(n)]
    ptlevel = [0.0] * n  # max(finish + c) over the examined predecessors
    dominant = [-1] * n  # examined predecessor attaining ptlevel (first one)
    free = [(-blevel[t], t) for t in range(n) if remaining[t] == 0]
    heapq.heapify(free)
    partial: list[tuple[float, int]] = []  # lazy heap of (-(ptlevel + blevel), task)

    def top_partial() -> int:
        while partial:
            key, t = partial[0]
            if remaining[t] > 0 and -key == tidy(ptlevel[t] + blevel[t]):
                return t
            heapq.heappop(partial)
        return -1

    while free:
        key, nx = heapq.heappop(free)
        prio_x = -key
        tl0 = ptlevel[nx]  # tlevel in a cluster of its own
        # Arrival of each predecessor task (several arcs from one task: the latest).
        arrival: dict[int, float] = {}
        for a in pred_arc[pred_ptr[nx] : pred_ptr[nx + 1]]:
            q = arc_src[a]
            arrival[q] = max(arrival.get(q, 0.0), tidy(finish[q] + c_list[a]))
        chosen, best_start, slots = -1, tl0, []
        if arrival:
            order = sorted(arrival, key=lambda q: (-arrival[q], q))
            home = cluster[order[0]]
            others = [q for q in order if cluster[q] != home]
            mask = masks[home] & allowed[nx]
            if mask.any():
                pullable = []
                for q in others:
                    if n_succ[q] != 1 or not (mask & allowed[q]).any():
                        break
                    pullable.append(q)
                    mask = mask & allowed[q]
                best = (math.inf, 0, [])
                for i in range(len(pullable) + 1):
                    at, placed = pulled_end(home, pullable[:i])
                    nxt = arrival[others[i]] if i < len(others) else 0.0
                    s = max(at, nxt)
                    if s < best[0]:
                        best = (s, i, placed)
                    if at >= nxt:
                        break  # the cluster's end dominates from here on
                s, i, placed = best
                if s < tl0:
                    ny = top_partial()
                    blocked = (
                        ny >= 0
                        and tidy(ptlevel[ny] + blevel[ny]) > prio_x
                        and cluster[dominant[ny]] == home
                        and tidy(s + w_list[nx]) > ptlevel[ny]
                    )
                    if not blocked:
                        chosen, best_start, slots = home, s, placed
        if chosen < 0:
            chosen = len(members)
            members.append([])
            masks.append(allowed[nx].copy())
        for s, t in slots:  # pull the predecessors into nx's cluster
            old = cluster[t]
            members[old].remove(t)
            masks[old] = (
                allowed[members[old]].all(axis=0)
                if members[old]
                else np.ones(problem.n_processors, dtype=bool)
            )
            members[chosen].append(t)
            masks[chosen] = masks[chosen] & allowed[t]
            cluster[t], start[t], finish[t] = chosen, s, tidy(s + w_list[t])
        members[chosen].append(nx)
        masks[chosen] = masks[chosen] & allowed[nx]
        cluster[nx], start[nx], finish[nx] = chosen, best_start, tidy(best_start + w_list[nx])
        # Successors: update their partial tlevel; the last examined predecessor frees them.
        fx = finish[nx]
        for arc in succ_arc[succ_ptr[nx] : succ_ptr[nx + 1]]:
            t = arc_dst[arc]
            arrive = tidy(fx + c_list[arc])
            if dominant[t] < 0 or arrive > ptlevel[t]:
                ptlevel[t], dominant[t] = arrive, nx
            remaining[t] -= 1
            if remaining[t] == 0:
                heapq.heappush(free, (-tidy(ptlevel[t] + blevel[t]), t))
            else:
                heapq.heappush(partial, (-tidy(ptlevel[t] + blevel[t]), t))
    # Number the clusters that are left in creation order.
    used = np.unique(np.asarray(cluster, dtype=np.int64), return_inverse=True)[1]
    return used.astype(np.int64).reshape(-1), np.asarray(start, dtype=float)


def glb(problem: Problem, cluster: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Guided Load Balancing: map clusters to processors in increasing order of start time.

    Parameters
    ----------
    problem : Problem
    cluster : numpy.ndarray
        ``(n,)`` cluster number of every task (0 .. k-1).
    start : numpy.ndarray
        ``(n,)`` start times; a cluster's start is its earliest task start.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` processor of every task.

    Raises
    ------
    MethodError
        If no processor may run every task of some cluster (affinity).

    Examples
    --------
    Three clusters on two processors: the first two take one processor each,
    the third goes where the load plus its work is least.

    >>> p = Problem.from_lists([[4, 4], [1, 1], [2, 2]])
    >>> glb(p, np.array([0, 1, 2]), np.array([0.0, 0.0, 1.0])).tolist()
    [0, 1, 1]

    References
    ----------
    .. [1] Radulescu, van Gemund, HiPC 1998; Wang, Sinnen, IEEE TPDS 2018.
    """
    n_clusters = int(cluster.max(initial=-1)) + 1
    n_procs = problem.n_processors
    # Work of every cluster on every processor (inf if some task may not run there).
    work = np.zeros((n_clusters, n_procs))
    np.add.at(work, cluster, problem.cost)
    first = np.full(n_clusters, np.inf)
    np.minimum.at(first, cluster, start)
    load = np.zeros(n_procs)
    where = np.empty(n_clusters, dtype=np.int64)
    resolution = time_resolution(problem)
    for k in np.lexsort((np.arange(n_clusters), first)).tolist():
        total = tie_with(resolution, load + work[k])  # equal decimals tie
        q = int(np.argmin(total))
        if not np.isfinite(total[q]):
            task = problem.task_ids[int(np.flatnonzero(cluster == k)[0])]
            raise MethodError(f"glb: no processor may run every task of the cluster of {task}")
        where[k] = q
        load[q] = total[q]
    return where[cluster]


def etf_order(
    problem: Problem,
    mapping: np.ndarray | None = None,
    *,
    insertion: bool = False,
    priority: np.ndarray | None = None,
) -> Schedule:
    """ETF: repeatedly start the ready task that can start earliest (on its mapped processor).

    Parameters
    ----------
    problem : Problem
    mapping : numpy.ndarray, optional
        ``(n,)`` processor of every task. ``None``: plain ETF, every ready task
        on every processor it may use, the pair of earliest start wins.
    insertion : bool
        Let a task fill an idle gap (default False: after the last task).
    priority : numpy.ndarray, optional
        ``(n,)`` tie-break, larger first (default :func:`bottom_level`); then
        lowest task index, then lowest processor index.

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        If ``mapping`` has the wrong shape or puts a task outside its affinity.

    Examples
    --------
    >>> from exactsched import validate
    >>> p = Problem.from_lists([[2, 3], [1, 1], [4, 2]], [(0, 1, 4), (0, 2, 1)])
    >>> s = etf_order(p)
    >>> [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2")], validate(p, s)
    ([('p0', 0), ('p0', 6), ('p0', 2)], [])
    >>> etf_order(p, np.array([0, 1, 0])).makespan
    7

    References
    ----------
    .. [1] Hwang, Chow, Anger, Lee, SIAM J. Comput. 18(2), 1989.
    """
    prio = bottom_level(problem) if priority is None else np.asarray(priority, dtype=float)
    if mapping is not None:
        mapping = np.asarray(mapping, dtype=np.int64)
        if mapping.shape != (problem.n_tasks,):
            raise MethodError(f"mapping: shape {mapping.shape}, expected ({problem.n_tasks},)")
        bad = ~problem.allowed[np.arange(problem.n_tasks), mapping]
        if bad.any():
            raise MethodError(
                f"mapping: task {problem.task_ids[int(np.flatnonzero(bad)[0])]} "
                "is mapped outside its affinity"
            )

    def pick(tasks: np.ndarray, est: np.ndarray) -> tuple[int, int]:
        k = len(tasks)
        if mapping is not None:
            own = est[np.arange(k), mapping[tasks]]
            rows = np.flatnonzero(own == own.min())
            if len(rows) > 1:  # ties: larger priority, then lowest index (rows are sorted)
                rows = rows[np.argmax(prio[tasks[rows]])]
            row = int(np.atleast_1d(rows)[0])
            return row, int(mapping[tasks[row]])
        least = est.min(axis=1)
        rows = np.flatnonzero(least == least.min())
        if len(rows) > 1:
            rows = rows[np.argmax(prio[tasks[rows]])]
        row = int(np.atleast_1d(rows)[0])
        return row, int(np.argmin(est[row]))

    return batch_schedule(problem, pick, insertion=bool(insertion))


@register(
    "dsc-glb-etf",
    kind="heuristic",
    description="DSC clustering, guided-load-balancing cluster mapping, ETF task ordering",
    source="Yang and Gerasoulis, TPDS 1994; Radulescu and van Gemund 1998; Wang and Sinnen 2018",
)
def dsc_glb_etf(problem: Problem, *, insertion: bool = False) -> Schedule:
    """Schedule with DSC-GLB-ETF.

    Parameters
    ----------
    problem : Problem
    insertion : bool
        Let a task fill an idle gap in the ETF step (default False).

    Returns
    -------
    Schedule

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = dsc_glb_etf(p)
    >>> validate(p, s)
    []
    """
    cluster, start = dsc(problem)
    return etf_order(problem, glb(problem, cluster, start), insertion=bool(insertion))
