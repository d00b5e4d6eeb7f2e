"""MCT: Minimum Completion Time, an immediate-mode rule applied to a DAG's ready list.

Contract
--------
``mct(problem, *, insertion=False) -> Schedule``, registered as ``mct``.
The ready tasks are taken one at a time, first in first out (the order in
which they became ready; the entry tasks, and tasks released by the same
placement, by increasing index), and each goes to the processor where it
*completes* earliest, ties to the lowest processor index [1]_.

Braun et al. define MCT for independent tasks: "each task, in arbitrary
order, to the machine with the minimum expected completion time", where the
completion time is the machine's ready time plus the task's execution time on
it. On a DAG the arbitrary order becomes the ready list's arrival order, and
the completion time becomes communication-aware: the task starts at
``max(processor ready time, data-ready time)``, where data from a
predecessor ``i`` on processor ``p`` reaches ``q`` at ``finish(i) +
arc_unit * hops[p, q]`` (multi-hop networks; order pairs move no data).

Heterogeneous costs, processor types and affinity are used as they are: the
execution time is ``cost[task, q]``, ``inf`` outside the task's affinity, so
no task ever goes to a processor it may not use. Isolation pairs: a placed
partner blocks its interval on every processor (the shared engine
:mod:`heuristics.eft`). ``insertion=False`` (default) appends after the
processor's last task, as the machine-ready-time model of [1]_ does;
``insertion=True`` lets a task fill an idle gap. Cost: ``O(e P)``.

References
----------
.. [1] T. D. Braun, H. J. Siegel, N. Beck et al., "A comparison of eleven
   static heuristics for mapping a class of independent tasks onto
   heterogeneous distributed computing systems", JPDC 61(6), 810-837, 2001,
   sec. 2 (MCT). doi:10.1006/jpdc.2000.1714
"""

from __future__ import annotations

import numpy as np

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._ready_list import immediate_schedule

__all__ = ["mct"]


def _least_completion(task: int, est: np.ndarray, eft: np.ndarray) -> int:
    return int(np.argmin(eft))


@register(
    "mct",
    kind="heuristic",
    description="MCT: ready tasks first in first out, each on its least completion time processor",
    source="Braun et al., JPDC 61(6), 2001 (minimum completion time)",
)
def mct(problem: Problem, *, insertion: bool = False) -> Schedule:
    """Schedule the ready tasks in arrival order, each where it completes earliest.

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
    >>> p = Problem.from_lists([[3, 4], [3, 4], [3, 4]])
    >>> s = mct(p)
    >>> [s[t].processor for t in ("t0", "t1", "t2")], s.makespan, validate(p, s)
    (['p0', 'p1', 'p0'], 6, [])
    """
    return immediate_schedule(problem, _least_completion, insertion=bool(insertion))
