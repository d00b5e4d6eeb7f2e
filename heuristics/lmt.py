"""LMT: Levelized Min Time (Iverson, Özgüner and Follen 1995), on networked processors.

Contract
--------
``lmt(problem, *, insertion=False) -> Schedule``, registered as ``lmt``.
A two-phase heuristic, as Topcuoglu et al. describe it [2]_ (sec. 2):

1. **Levels.** A task's level is the number of arcs on the longest path from
   an entry task to it (data edges and order pairs both count), so the tasks
   of one level are independent and every predecessor is in a lower level.
   Levels are scheduled in increasing order.
2. **Min time within a level.** When a level has more tasks than there are
   processors, the two *smallest* (least mean cost) groups of tasks are
   merged into one coarse task, repeatedly, until there are as many groups
   as processors [1]_. The groups are then taken in decreasing mean cost
   (ties: lowest first task index), and each goes to the processor that
   minimises the sum of its execution time there and its communication with
   the tasks of previous levels::

       time(g, q) = sum_{t in g} ( cost[t, q]
                                   + sum_{arcs i -> t} arc_unit * hops[proc(i), q] )

   among the processors not yet given a group of this level (ties: lowest
   index). A group's tasks are placed on its processor at their earliest
   start, by decreasing mean cost.

Generalisation to the networked model. Communication is charged per hop,
``arc_unit * hops[p, q]`` (the original assumes a fully connected network);
order pairs cost nothing. Heterogeneous costs and processor types enter
through ``cost[t, q]``, means over a task's allowed processors. Affinity: two
groups are merged only if some processor may run both (otherwise the next
smallest compatible group is taken, and merging stops when no compatible
pair is left); a group only considers processors allowed for all its tasks,
and falls back to processors already used in the level when every allowed
one is. Isolation pairs and exact start times come from the shared engine
:mod:`heuristics.eft` (placed partners block their interval on every
processor). ``insertion=False`` (default) appends after a processor's last
task.

Cost: ``O(n log n + e P)`` plus the merging heap, ``O(g log g)`` per level of
``g`` tasks; [2]_ quotes ``O(v^2 p^2)`` for the original.

References
----------
.. [1] M. Iverson, F. Özgüner, G. Follen, "Parallelizing existing
   applications in a distributed heterogeneous environment", 4th
   Heterogeneous Computing Workshop (HCW), 93-100, 1995.
.. [2] H. Topcuoglu, S. Hariri, M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS
   13(3), 260-274, 2002, sec. 2.
"""

from __future__ import annotations

import heapq

import numpy as np

from exactsched._time_grid import time_resolution
from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._partsched import ProcessorChoice, processor_choice_is_finish
from heuristics._tables import tie_value, tie_with
from heuristics.eft import ScheduleBuilder

__all__ = ["levels", "lmt", "merge_groups"]


def levels(problem: Problem) -> list[np.ndarray]:
    """Tasks grouped by level (longest arc path from an entry task), each in index order.

    Examples
    --------
    >>> p = Problem.from_lists([1] * 4, [(0, 1), (1, 3), (0, 2)], n_processors=1)
    >>> [lv.tolist() for lv in levels(p)]
    [[0], [1, 2], [3]]
    """
    n = problem.n_tasks
    ptr = problem.pred_ptr.tolist()
    src = problem.arc_src[problem.pred_arcs].tolist()
    level = [0] * n
    for t in problem.topological_order.tolist():
        if ptr[t + 1] > ptr[t]:
            level[t] = 1 + max(level[i] for i in src[ptr[t] : ptr[t + 1]])
    lev = np.asarray(level, dtype=np.int64)
    order = np.argsort(lev, kind="stable")
    cuts = np.searchsorted(lev[order], np.arange(1, int(lev.max(initial=0)) + 1))
    return [part for part in np.split(order, cuts) if len(part)]


def merge_groups(
    tasks: np.ndarray,
    weight: np.ndarray,
    allowed: np.ndarray,
    n_groups: int,
    resolution: float | None = None,
) -> list[list[int]]:
    """Merge the two smallest compatible groups until at most ``n_groups`` are left.

    Parameters
    ----------
    tasks : numpy.ndarray
        The tasks of one level, each starting as its own group.
    weight : numpy.ndarray
        ``(n,)`` mean cost of every task of the problem.
    allowed : numpy.ndarray
        ``(n, P)`` affinity of every task; merged groups must share a processor.
    n_groups : int
        Target number of groups (the number of processors).
    resolution : float, optional
        The problem's time grid (:func:`exactsched._time_grid.time_resolution`):
        merged weights are compared as :func:`heuristics._tables.tie_value`.

    Returns
    -------
    list of list of int
        The groups (tasks in index order), in decreasing total weight, ties by
        first task index.

    Examples
    --------
    >>> w = np.array([5.0, 1.0, 2.0, 4.0])
    >>> merge_groups(np.arange(4), w, np.ones((4, 2), dtype=bool), 2)
    [[1, 2, 3], [0]]
    """
    # Heap of (weight, first task, id); groups[id] = (tasks, mask) or None once merged.
    groups: list[tuple[list[int], np.ndarray] | None] = []
    heap: list[tuple[float, int, int]] = []
    for t in tasks.tolist():
        groups.append(([t], allowed[t]))
        heap.append((float(weight[t]), t, len(groups) - 1))
    heapq.heapify(heap)
    while len(heap) > max(n_groups, 1):
        w0, f0, g0 = heapq.heappop(heap)
        tasks0, mask0 = groups[g0]  # type: ignore[misc]
        skipped = []
        partner = None
        while heap:
            entry = heapq.heappop(heap)
            if (groups[entry[2]][1] & mask0).any():  # type: ignore[index]
                partner = entry
                break
            skipped.append(entry)
        for entry in skipped:
            heapq.heappush(heap, entry)
        if partner is None:
            # The smallest group fits with no other: it keeps a processor to itself.
            n_groups -= 1
            groups.append((tasks0, mask0))
            groups[g0] = None
            continue
        w1, f1, g1 = partner
        tasks1, mask1 = groups[g1]  # type: ignore[misc]
        groups[g0] = groups[g1] = None
        groups.append((sorted(tasks0 + tasks1), mask0 & mask1))
        heapq.heappush(heap, (tie_value(resolution, w0 + w1), min(f0, f1), len(groups) - 1))
    final = [g for g in groups if g is not None]
    final.sort(key=lambda g: (-tie_value(resolution, float(weight[g[0]].sum())), g[0][0]))
    return [g[0] for g in final]


@register(
    "lmt",
    kind="heuristic",
    description="LMT: level by level, merged into P groups, each on its least compute+comm time",
    source="Iverson, Özgüner, Follen, HCW 1995; as compared by Topcuoglu et al., TPDS 2002",
    assumes_identical_processors=True,
)
def lmt(
    problem: Problem,
    *,
    insertion: bool = False,
    processor_choice: ProcessorChoice = "earliest-start",
) -> Schedule:
    """Schedule with levelized min time.

    Parameters
    ----------
    problem : Problem
    insertion : bool
        Let a task fill an idle gap (default False: after the last task).
    processor_choice : {"earliest-start", "earliest-finish"}
        ``"earliest-start"`` (default): the published rule, one group per
        processor and level, by least compute + communication time, which
        treats the processors as interchangeable; ``"earliest-finish"``: the
        project's adaptation to unlike processors, each group (largest first)
        to the allowed processor where its last task finishes first, placed
        tentatively with the load of earlier groups and levels, several
        groups per processor allowed.

    Returns
    -------
    Schedule

    Examples
    --------
    Level 1 holds three tasks for two processors: the two smallest, ``t2``
    and ``t3``, are merged. ``t1`` (mean 4) picks first and stays with
    ``t0`` on ``p0`` (no communication); the merged pair goes to ``p1``.

    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([2, 4, 1, 2], [(0, 1, 3), (0, 2, 3), (0, 3, 3)],
    ...                        n_processors=2)
    >>> s = lmt(p)
    >>> [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2", "t3")], s.makespan
    ([('p0', 0), ('p0', 2), ('p1', 7), ('p1', 5)], 8)
    >>> validate(p, s)
    []
    """
    builder = ScheduleBuilder(problem, insertion=bool(insertion))
    n_procs = problem.n_processors
    cost, allowed = problem.cost, problem.allowed
    resolution = time_resolution(problem)
    weight = tie_with(resolution, problem.mean_cost())  # equal means tie at any scale
    hops = problem.hops.astype(float)
    ptr = problem.pred_ptr
    in_src = problem.arc_src[problem.pred_arcs]
    in_unit = problem.arc_unit[problem.pred_arcs].astype(float)
    finish = processor_choice_is_finish(processor_choice)
    for level in levels(problem):
        taken = np.zeros(n_procs, dtype=bool)
        for group in merge_groups(level, weight, allowed, n_procs, resolution):
            # Largest first within the group, as between groups.
            inner = sorted(group, key=lambda t: (-float(weight[t]), t))
            if finish:
                builder = _earliest_finish_group(builder, inner)
                continue
            members = np.array(group, dtype=np.int64)
            time = cost[members].sum(axis=0)  # inf where some member may not run
            for t in group:
                a, b = ptr[t], ptr[t + 1]
                if b > a:
                    time = time + (in_unit[a:b, None] * hops[builder.proc[in_src[a:b]]]).sum(0)
            time = tie_with(resolution, time)
            free = np.where(taken, np.inf, time)
            q = int(np.argmin(free if np.isfinite(free).any() else time))
            taken[q] = True
            for t in inner:
                builder.place(t, q)
    return builder.to_schedule()


def _earliest_finish_group(builder: ScheduleBuilder, group: list[int]) -> ScheduleBuilder:
    """The builder with ``group`` placed, in order, on the processor where it ends first.

    Every processor allowed for all tasks of the group is tried on a copy of
    the schedule (ties: lowest index); the group's finish is its last task's.
    """
    problem = builder.problem
    best, best_finish = builder, np.inf
    for q in np.flatnonzero(problem.allowed[group].all(axis=0)).tolist():
        trial = builder.copy()
        for t in group:
            trial.place(t, q)
        end = float(trial.finish[group].max())
        if end < best_finish:
            best, best_finish = trial, end
    return best
