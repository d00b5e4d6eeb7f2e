"""CPOP: Critical Path On a Processor (Topcuoglu, Hariri, Wu 2002).

Contract
--------
``cpop(problem, *, ranking="mean", insertion=True) -> Schedule``, registered
as ``cpop``. The priority of a task is ``rank_u + rank_d``; the tasks of one
critical path (traced from the entry task through successors whose priority
equals the entry's, within a relative 1e-11: the two ranks are added as floats and
the sum goes through the tie rule of :func:`heuristics._tables.tie_values` once, so
equal priorities tie; a wider window followed a successor 1e-4 below the path at 1e6)
all go to the
*critical-path processor*, the others to the processor of least earliest
finish time. Tasks come from a ready list, highest priority first, ties lowest
task index; placement is insertion-based through :mod:`heuristics.eft`, so
affinity, order pairs, isolation pairs and multi-hop networks are honoured.

Generalisations (the paper assumes one entry task and no affinity):

* several entry tasks: the path starts at the entry task of highest priority
  (ties: lowest index), as if a zero-cost pseudo entry task preceded them;
* ties on the path: the successor of lowest index is followed, so the
  critical path is a single path as in [1]_;
* the critical-path processor minimises the summed cost of the critical-path
  tasks over the processors allowed for *all* of them (ties: lowest index).
  When affinity leaves no such processor, it is the processor allowed for the
  most critical-path tasks, ties broken by the least summed cost of those
  tasks, then lowest index; critical-path tasks it may not run take the least
  earliest finish time like the others.

References
----------
.. [1] H. Topcuoglu, S. Hariri, M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS
   13(3), 260-274, 2002, sec. 4.3, Fig. 5. doi:10.1109/71.993206
"""

from __future__ import annotations

import numpy as np

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._tables import tie_values
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.heft import check_ranking
from heuristics.ranking import Weighting, downward_rank, upward_rank

__all__ = ["cpop", "critical_path", "critical_path_processor"]

# A priority (tie_values of the float sum of the two ranks) on the critical path is |CP|
# within half a unit of its 14th significant digit or its float noise: far below this.
_RTOL = 1e-11


def critical_path(problem: Problem, priority: np.ndarray) -> list[int]:
    """The critical path of CPOP: entry to exit through tasks of priority ``|CP|``.

    Parameters
    ----------
    problem : Problem
    priority : numpy.ndarray
        ``(n,)`` priorities ``rank_u + rank_d``.

    Returns
    -------
    list of int
        Task indices from an entry task to an exit task.

    Examples
    --------
    >>> from exactsched import load_instance
    >>> from heuristics.ranking import downward_rank, upward_rank
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> path = critical_path(p, upward_rank(p) + downward_rank(p))
    >>> [p.task_ids[i] for i in path]
    ['n1', 'n2', 'n9', 'n10']
    """
    prio = np.asarray(priority, dtype=float)
    entries = problem.entry_tasks
    task = int(entries[np.argmax(prio[entries])])  # argmax: first, i.e. lowest index, on ties
    length = prio[task]
    tol = _RTOL * abs(length)  # relative only: priorities near 1e-9 are not all "equal"
    path = [task]
    while True:
        succ = np.unique(problem.successors(task))
        on_path = succ[np.abs(prio[succ] - length) <= tol]
        if not len(on_path):
            return path
        task = int(on_path[0])
        path.append(task)


def critical_path_processor(problem: Problem, path: list[int]) -> int:
    """The processor CPOP gives the critical path (see the module notes on affinity).

    Examples
    --------
    >>> from exactsched import Problem
    >>> p = Problem.from_lists([[3, 2, 9], [3, 2, 1]], affinity={1: [0, 2]})
    >>> critical_path_processor(p, [0, 1])  # p1 is cheaper but not allowed for t1
    0
    """
    allowed = problem.allowed[path]
    cost = tie_values(problem, np.where(allowed, problem.cost[path], 0.0).sum(axis=0))
    count = allowed.sum(axis=0)
    best = count == count.max()
    return int(np.flatnonzero(best)[np.argmin(cost[best])])


@register(
    "cpop",
    kind="heuristic",
    description="CPOP: critical path on one processor, others by least earliest finish time",
    source="Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002",
)
def cpop(problem: Problem, *, ranking: Weighting = "mean", insertion: bool = True) -> Schedule:
    """Schedule with CPOP.

    Parameters
    ----------
    problem : Problem
    ranking : str
        Weighting of both ranks, one of :data:`heuristics.ranking.WEIGHTINGS`
        (default ``"mean"``, the paper's).
    insertion : bool
        Insertion-based policy (default True).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For an unknown ranking.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = cpop(p)
    >>> s.makespan, validate(p, s)
    (86, [])
    >>> {s[t].processor for t in ("n1", "n2", "n9", "n10")}
    {'p2'}

    References
    ----------
    .. [1] Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002, sec. 4.3, Fig. 5.
    """
    check_ranking(ranking)
    # The float sums, then the tie rule once: rounded ranks would add their roundings.
    raw = upward_rank(problem, ranking, snap=False) + downward_rank(problem, ranking, snap=False)
    priority = tie_values(problem, raw)
    path = critical_path(problem, priority)
    p_cp = critical_path_processor(problem, path)
    on_cp = np.zeros(problem.n_tasks, dtype=bool)
    on_cp[path] = True
    on_cp &= problem.allowed[:, p_cp]

    def select(builder: ScheduleBuilder, task: int) -> int:
        if on_cp[task]:
            return p_cp
        return int(np.argmin(builder.eft(task)[1]))

    return list_schedule(problem, priority, insertion=bool(insertion), select=select)
