"""OLB: Opportunistic Load Balancing, an immediate-mode rule applied to a DAG's ready list.

Contract
--------
``olb(problem, *, insertion=False) -> Schedule``, registered as ``olb``.
The ready tasks are taken one at a time, first in first out (the order in
which they became ready; the entry tasks, and tasks released by the same
placement, by increasing index), and each goes to the processor that can
*start* it earliest, regardless of its execution time there [1]_.

Braun et al. assign each task "to the next machine that is expected to be
available". For independent tasks that is the machine with the least ready
time; in a DAG a machine that is free is of no use before the task's data
arrive, so "available" is read as *available for this task*: the earliest
start ``max(processor ready time, data-ready time)``, with data from a
predecessor on ``p`` arriving on ``q`` at ``finish + arc_unit * hops[p, q]``
(multi-hop networks; order pairs move no data). Without precedence this is
exactly Braun et al.'s rule. Ties (e.g. every processor idle at time 0) go to
the lowest processor index. Execution costs (heterogeneous, per processor
type) are ignored for the choice, as in [1]_, but affinity is not: a
processor outside the task's affinity can never start it. Isolation pairs
are honoured by the shared engine :mod:`heuristics.eft`. ``insertion=False``
(default) appends after the processor's last task. Cost: ``O(e P)``.

References
----------
.. [1] T. D. Braun, H. J. Siegel, N. Beck et al., "A comparison of eleven
   static heuristics for mapping a class of independent tasks onto
   heterogeneous distributed computing systems", JPDC 61(6), 810-837, 2001,
   sec. 2 (OLB). doi:10.1006/jpdc.2000.1714
"""

from __future__ import annotations

import numpy as np

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._partsched import ProcessorChoice, processor_choice_is_finish
from heuristics._ready_list import immediate_schedule

__all__ = ["olb"]


def _earliest_start(task: int, est: np.ndarray, eft: np.ndarray) -> int:
    return int(np.argmin(est))


def _earliest_finish(task: int, est: np.ndarray, eft: np.ndarray) -> int:
    return int(np.argmin(eft))


@register(
    "olb",
    kind="heuristic",
    description="OLB: ready tasks first in first out, each where it can start earliest",
    source="Braun et al., JPDC 61(6), 2001 (opportunistic load balancing)",
    assumes_identical_processors=True,
)
def olb(
    problem: Problem,
    *,
    insertion: bool = False,
    processor_choice: ProcessorChoice = "earliest-start",
) -> Schedule:
    """Schedule the ready tasks in arrival order, each where it can start earliest.

    Parameters
    ----------
    problem : Problem
    insertion : bool
        Let a task fill an idle gap (default False: after the last task).
    processor_choice : {"earliest-start", "earliest-finish"}
        ``"earliest-start"`` (default): Braun et al.'s rule, execution time
        ignored, as if the processors were identical; ``"earliest-finish"``:
        the project's adaptation to unlike processors, the processor where
        the task finishes first -- which makes OLB the same rule as
        :func:`heuristics.mct.mct`.

    Returns
    -------
    Schedule

    Examples
    --------
    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[1, 9], [1, 9], [1, 9]])
    >>> s = olb(p)  # t2 starts at 1 on p0 (p1 is busy until 9)
    >>> [s[t].processor for t in ("t0", "t1", "t2")], s.makespan, validate(p, s)
    (['p0', 'p1', 'p0'], 9, [])
    """
    finish = processor_choice_is_finish(processor_choice)
    choose = _earliest_finish if finish else _earliest_start
    return immediate_schedule(problem, choose, insertion=bool(insertion))
