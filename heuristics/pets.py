"""PETS and levelized HEFT: level-by-level list scheduling.

Contract
--------
``pets(problem, *, dtc="mean", policy="eft", insertion=True) -> Schedule``
implements Performance Effective Task Scheduling of Ilavarasan and
Thambidurai [1]_ as described in sec. 2.3.5 and 4.3 of McSweeney's report [2]_:

1. *levels* (:func:`levels`): an entry task is at level 0, any other task one
   above its highest predecessor, so the tasks of a level are independent;
2. *ranks* (:func:`pets_rank`), level by level:
   ``rank(t) = round(ACC(t) + DTC(t) + RPT(t))`` where ACC is the mean
   execution cost, DTC the sum of the (mean) communication costs to the
   task's immediate successors and RPT the highest rank of its immediate
   predecessors (0 for an entry task);
3. levels in increasing order; inside a level, tasks by non-increasing rank,
   ties to the smaller ACC, then the lower index; each goes to the processor
   of least insertion-based finish time (HEFT's rule).

``levelized_heft(problem, *, ranking="mean", policy="eft", insertion=True)``
(method ``levelized-heft``, report sec. 4.3) keeps the levels but orders each
level by HEFT's upward rank under any weighting of
:mod:`heuristics.ranking` (the report tried ``mean``, ``best`` and ``nc``).

Both accept ``policy``, the independent-task rule for a level (report sec. 4.3
compares ``"min-min"`` and ``"bmct"`` with the default ``"eft"``), any of
:data:`heuristics.hbmct.GROUP_POLICIES`.

Generalisation to the networked model (the paper assumes one uniform network):

* DTC needs a communication cost before the processors are known; like
  McSweeney [2]_ (sec. 4.3) we take HEFT's mean over ordered pairs of distinct
  processors, :func:`heuristics.ranking.mean_comm`, which on a multi-hop
  network is ``arc_unit * mean(hops)``; ``dtc="worst"`` uses
  ``arc_unit * max(hops)`` instead, the alternative the report also tried;
* order pairs are precedence arcs: they raise levels and pass on RPT, and
  carry no data, so they add 0 to DTC;
* ACC is the mean cost over the task's *allowed* processors (affinity);
* rounding is half-up (``floor(x + 0.5)``), the usual reading of "round" in
  [1]_; ties in rank are then frequent and fall to ACC as the paper says.
  ``x`` and ACC go through the tie rule of :func:`heuristics._tables.tie_values`
  first, so that ``1.3 + 0.2`` (``1.4999999999999998`` in floats) rounds up like
  1.5 and two equal means tie (an outside audit);
* placement is the engine's (:class:`heuristics.eft.ScheduleBuilder`):
  insertion, multi-hop delays, affinity and isolation partners.

The report's description says DTC sums the communication to the children "in
the next level"; the paper's definition, and McSweeney's own code, sum over
all immediate successors, which we follow (a child is always in a later
level, not necessarily the next).

Complexity: ``O(n + e)`` for levels and ranks, a sort of each level, and
HEFT's ``O(e P)`` placement (plus the policy's cost, see
:mod:`heuristics.hbmct`); the paper states ``O(e (P + log n))``.

References
----------
.. [1] E. Ilavarasan, P. Thambidurai, "Low complexity performance effective
   task scheduling algorithm for heterogeneous computing environments",
   Journal of Computer Sciences 3(2), 94-103, 2007.
   doi:10.3844/jcssp.2007.94.103
.. [2] T. McSweeney, "Scheduling with precedence constraints in
   high-performance computing", continuation report, University of
   Manchester, 2019, sec. 2.3.5 and 4.3.
"""

from __future__ import annotations

import math
from typing import Annotated

import numpy as np

from exactsched._time_grid import time_resolution
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import OneOf, register
from exactsched.schedule import Schedule
from heuristics._tables import tie_value, tie_with
from heuristics.eft import ScheduleBuilder
from heuristics.hbmct import GROUP_POLICIES, GroupPolicy, schedule_group
from heuristics.ranking import Weighting, mean_comm, upward_rank

__all__ = ["levels", "pets_rank", "pets", "levelized_heft"]

_DTC = ("mean", "worst")
_Dtc = Annotated[str, OneOf(_DTC)]


def levels(problem: Problem) -> np.ndarray:
    """Level of every task: 0 for entry tasks, else one more than its highest predecessor.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    numpy.ndarray
        ``(n,)`` integer levels; the report counts from 1 (tasks on the longest
        chain from an entry task), the same partition.

    Examples
    --------
    >>> p = Problem.from_lists([1] * 4, [(0, 1), (1, 2), (0, 3)], n_processors=1)
    >>> levels(p).tolist()
    [0, 1, 2, 1]
    """
    level = [0] * problem.n_tasks
    ptr = problem.pred_ptr.tolist()
    src = problem.arc_src[problem.pred_arcs].tolist()
    for j in problem.topological_order.tolist():
        for k in range(ptr[j], ptr[j + 1]):
            if level[src[k]] + 1 > level[j]:
                level[j] = level[src[k]] + 1
    return np.array(level, dtype=np.int64)


def pets_rank(problem: Problem, dtc: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """PETS ranks ``round(ACC + DTC + RPT)`` and the ACC used to break their ties.

    Parameters
    ----------
    problem : Problem
    dtc : {"mean", "worst"}
        Communication cost of an arc before placement: the mean over ordered
        pairs of distinct processors (default) or the largest.

    Returns
    -------
    rank : numpy.ndarray
        ``(n,)`` integer-valued float ranks.
    acc : numpy.ndarray
        ``(n,)`` average computation costs (over allowed processors).

    Raises
    ------
    MethodError
        For an unknown ``dtc``.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [3, 3], [1, 2]], [(0, 1, 5), (0, 2, 2)])
    >>> rank, acc = pets_rank(p)
    >>> rank.tolist(), acc.tolist()
    ([10.0, 13.0, 12.0], [3.0, 3.0, 1.5])

    Task 0: ACC 3, DTC 5 + 2, RPT 0, rank 10; task 2: ACC 1.5, DTC 0,
    RPT 10, rank round(11.5) = 12.

    References
    ----------
    .. [1] Ilavarasan, Thambidurai, J. Computer Sciences 3(2), 2007, sec. 3.
    """
    if dtc not in _DTC:
        raise MethodError(f"dtc: must be one of {', '.join(_DTC)}, not {dtc!r}")
    resolution = time_resolution(problem)
    # Means and sums equal in exact arithmetic compare equal (heuristics._tables): ACC
    # breaks rank ties, and round(1.5) must not see 1.4999999999999998.
    acc = tie_with(resolution, problem.mean_cost())
    if dtc == "mean":
        comm = mean_comm(problem)
    else:
        comm = np.asarray(problem.arc_unit, dtype=float) * float(problem.hops.max())
    # DTC: sum over the arcs leaving each task (order pairs have arc_unit 0).
    dtc_sum = np.bincount(problem.arc_src, weights=comm, minlength=problem.n_tasks)
    base = (acc + dtc_sum).tolist()
    rank = [0.0] * problem.n_tasks
    ptr = problem.pred_ptr.tolist()
    src = problem.arc_src[problem.pred_arcs].tolist()
    # Topological order visits every predecessor first, which the level-by-level
    # computation of the paper also guarantees.
    for j in problem.topological_order.tolist():
        rpt = max((rank[src[k]] for k in range(ptr[j], ptr[j + 1])), default=0.0)
        rank[j] = float(math.floor(tie_value(resolution, base[j] + rpt) + 0.5))
    return np.array(rank), acc


def _check_policy(policy: str) -> None:
    if policy not in GROUP_POLICIES:
        raise MethodError(f"policy: unknown policy {policy!r}; known: {', '.join(GROUP_POLICIES)}")


def _by_levels(
    problem: Problem, keys: tuple[np.ndarray, ...], policy: str, insertion: bool
) -> Schedule:
    """Schedule level after level; inside a level sort by ``keys`` (last key primary)."""
    level = levels(problem)
    order = np.lexsort((np.arange(problem.n_tasks), *keys, level))
    builder = ScheduleBuilder(problem, insertion=insertion)
    cuts = np.flatnonzero(np.diff(level[order])) + 1
    for group in np.split(order, cuts):
        builder = schedule_group(builder, group, policy)
    return builder.to_schedule()


@register(
    "pets",
    kind="heuristic",
    description="PETS: level by level, rank = round(ACC + DTC + RPT), earliest finish time",
    source="Ilavarasan and Thambidurai, J. Computer Sciences 3(2), 2007",
)
def pets(
    problem: Problem, *, dtc: _Dtc = "mean", policy: GroupPolicy = "eft", insertion: bool = True
) -> Schedule:
    """Performance Effective Task Scheduling.

    Parameters
    ----------
    problem : Problem
    dtc : {"mean", "worst"}
        Communication estimate in DTC (see :func:`pets_rank`).
    policy : str
        How to place a level (default ``"eft"``, the paper's: tasks in rank
        order, each on its least-finish-time processor); see
        :data:`heuristics.hbmct.GROUP_POLICIES`.
    insertion : bool
        Insertion-based placement (default True).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For an unknown ``dtc`` or ``policy``.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = pets(p)
    >>> s.makespan, validate(p, s)
    (76, [])

    Notes
    -----
    Inside a level, tasks go by non-increasing rank, then non-decreasing ACC,
    then index. See the module docstring for the generalisation.

    References
    ----------
    .. [1] Ilavarasan, Thambidurai, J. Computer Sciences 3(2), 2007.
    .. [2] McSweeney, continuation report, 2019, sec. 2.3.5 and 4.3.
    """
    _check_policy(policy)
    rank, acc = pets_rank(problem, dtc)
    # lexsort: last key is primary -> level, then -rank, then acc, then index.
    return _by_levels(problem, (acc, -rank), policy, insertion)


@register(
    "levelized-heft",
    kind="heuristic",
    description="Levelized HEFT: PETS levels, upward rank inside each level, earliest finish time",
    source="McSweeney, PhD continuation report, Univ. of Manchester, 2019, sec. 4.3",
)
def levelized_heft(
    problem: Problem,
    *,
    ranking: Weighting = "mean",
    policy: GroupPolicy = "eft",
    insertion: bool = True,
) -> Schedule:
    """HEFT restricted to PETS levels: levels in order, upward rank inside each.

    Parameters
    ----------
    problem : Problem
    ranking : str
        Weighting of the upward rank (:data:`heuristics.ranking.WEIGHTINGS`),
        default ``"mean"``.
    policy : str
        How to place a level (default ``"eft"``); see
        :data:`heuristics.hbmct.GROUP_POLICIES`.
    insertion : bool
        Insertion-based placement (default True).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For an unknown weighting or policy.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = levelized_heft(p)
    >>> s.makespan, validate(p, s)
    (80, [])

    Notes
    -----
    Ties in rank go to the lower task index.

    References
    ----------
    .. [1] McSweeney, continuation report, 2019, sec. 4.3.
    .. [2] Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002 (upward rank).
    """
    _check_policy(policy)
    rank = upward_rank(problem, ranking)
    return _by_levels(problem, (-rank,), policy, insertion)
