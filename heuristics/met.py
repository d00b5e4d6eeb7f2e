"""MET: Minimum Execution Time, an immediate-mode rule applied to a DAG's ready list.

Contract
--------
``met(problem, *, insertion=False) -> Schedule``, registered as ``met``.
The ready tasks are taken one at a time, first in first out (the order in
which they became ready; the entry tasks, and tasks released by the same
placement, by increasing index), and each goes to the processor where it
*executes* fastest, regardless of that processor's load [1]_.

Heterogeneous costs and processor types: the execution time is
``cost[task, q]`` over the task's allowed processors (affinity). On a
platform with processor types several processors often share the least cost
(every GPU of a CPU-GPU node); Braun et al. leave ties open, we break them by
the least completion time (communication-aware, see :mod:`heuristics.mct`),
then the lowest processor index, which is deterministic and the choice that
hurts least. Communication and hops never influence the choice beyond that
tie-break, but do set the start time: data from a predecessor on ``p``
reaches ``q`` at ``finish + arc_unit * hops[p, q]``. Isolation pairs and
order pairs are honoured by the shared engine :mod:`heuristics.eft`.
``insertion=False`` (default) appends after the processor's last task.
Cost: ``O(e P)``.

References
----------
.. [1] T. D. Braun, H. J. Siegel, N. Beck et al., "A comparison of eleven
   static heuristics for mapping a class of independent tasks onto
   heterogeneous distributed computing systems", JPDC 61(6), 810-837, 2001,
   sec. 2 (MET). doi:10.1006/jpdc.2000.1714
"""

from __future__ import annotations

import numpy as np

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._ready_list import immediate_schedule

__all__ = ["met"]


@register(
    "met",
    kind="heuristic",
    description="MET: ready tasks first in first out, each on its fastest processor",
    source="Braun et al., JPDC 61(6), 2001 (minimum execution time)",
)
def met(problem: Problem, *, insertion: bool = False) -> Schedule:
    """Schedule the ready tasks in arrival order, each on its fastest allowed processor.

    Parameters
    ----------
    problem : Problem
    insertion : bool
        Let a task fill an idle gap (default False: after the last task).

    Returns
    -------
    Schedule

    Examples
    --------
    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[3, 4], [3, 4], [3, 3]])
    >>> s = met(p)  # t2 is as fast on both: the tie goes to the earlier completion
    >>> [s[t].processor for t in ("t0", "t1", "t2")], s.makespan, validate(p, s)
    (['p0', 'p0', 'p1'], 6, [])
    """
    cost = problem.cost

    def fastest(task: int, est: np.ndarray, eft: np.ndarray) -> int:
        row = cost[task]
        # Least cost; ties by least completion time, then lowest index.
        return int(np.lexsort((np.arange(len(row)), eft, row))[0])

    return immediate_schedule(problem, fastest, insertion=bool(insertion))
