"""MH: the Mapping Heuristic of El-Rewini and Lewis (1990), contention-free heterogeneous form.

Contract
--------
``mh(problem, *, insertion=False) -> Schedule``, registered as ``mh``.
Tasks get a static priority, the *static upward rank* ``rank_u^s``: the
largest sum of mean execution times along a path from the task to an exit
task, communication left out. A ready list is kept in decreasing priority
(ties: lowest task index); the first ready task goes to the processor of
least earliest finish time (ties: lowest processor index), appended after
that processor's last task (no insertion); its successors join the list
when they become ready. This is MH as Topcuoglu et al. describe and compare
it for heterogeneous processors [2]_ (sec. 2): static upward ranks,
non-insertion, least finish time.

El-Rewini and Lewis [1]_ map onto an *arbitrary target machine*: a message
between two processors travels along a route of several links, which they
track in routing tables, optionally with link contention. Our hop matrix is
that route length for every pair, so a message from a predecessor on ``p``
reaches ``q`` at ``finish + arc_unit * hops[p, q]`` -- MH without link
contention, the variant whose complexity [2]_ quotes as ``O(v^2 p)``.
On homogeneous processors the least finish time and the least start time,
MH's original choice, pick the same processor.

Heterogeneous costs and processor types: the rank uses the mean cost over a
task's allowed processors (as HEFT does); placement uses each processor's
own cost. Affinity, order pairs (precedence without data) and isolation
pairs are honoured by the shared engine :mod:`heuristics.eft`.
``insertion=True`` lets tasks fill idle gaps (that is then HEFT's placement
with static, communication-free ranks). Cost: ``O(e P)``.

References
----------
.. [1] H. El-Rewini, T. G. Lewis, "Scheduling parallel program tasks onto
   arbitrary target machines", JPDC 9(2), 138-153, 1990.
   doi:10.1016/0743-7315(90)90042-N
.. [2] H. Topcuoglu, S. Hariri, M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS
   13(3), 260-274, 2002, sec. 2.
"""

from __future__ import annotations

import numpy as np

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics.eft import list_schedule
from heuristics.ranking import ranks_from_weights

__all__ = ["mh", "static_upward_rank"]


def static_upward_rank(problem: Problem) -> np.ndarray:
    """``(n,)`` ``rank_u^s``: longest mean-cost path to an exit task, no communication.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [1, 1], [3, 5]], [(0, 1, 7), (0, 2, 7)])
    >>> static_upward_rank(p).tolist()
    [7.0, 1.0, 4.0]
    """
    return ranks_from_weights(problem, problem.mean_cost(), np.zeros(len(problem.arc_src)))


@register(
    "mh",
    kind="heuristic",
    description="MH: static upward rank ready list, least finish time without insertion",
    source="El-Rewini and Lewis, JPDC 9(2), 1990; as compared by Topcuoglu et al., TPDS 2002",
)
def mh(problem: Problem, *, insertion: bool = False) -> Schedule:
    """Schedule with the mapping heuristic.

    Parameters
    ----------
    problem : Problem
    insertion : bool
        Let a task fill an idle gap (default False, as in [1]_).

    Returns
    -------
    Schedule

    Examples
    --------
    The communication of 10 is not in MH's ranks (``t0`` 3, ``t1`` 2, ``t2``
    1), so ``t1`` goes before ``t2``; both go to ``p0`` next to ``t0``, which
    beats paying the 10 to reach ``p1``.

    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([1, 2, 1], [(0, 1, 10), (0, 2, 10)], n_processors=2)
    >>> s = mh(p)
    >>> [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2")], s.makespan
    ([('p0', 0), ('p0', 1), ('p0', 3)], 4)
    >>> validate(p, s)
    []

    References
    ----------
    .. [1] El-Rewini, Lewis, JPDC 9(2), 1990; Topcuoglu et al., TPDS 2002, sec. 2.
    """
    return list_schedule(problem, static_upward_rank(problem), insertion=bool(insertion))
