"""Max-min: batch-mode rule of Ibarra and Kim, applied to a DAG's ready list.

Contract
--------
``max_min(problem, *, rounds=True, insertion=False) -> Schedule``,
registered as ``max-min``. At every step, for every ready task, take its
least completion time over the processors; place the task whose least
completion time is *largest* on the processor achieving it [1]_ [2]_. Ties:
lowest task index, then lowest processor index.

Default, ``rounds=True``: the source's reading. Braun et al. [1]_ and
Maheswaran et al. [3]_ apply max-min to a *meta-task*, a set of independent
tasks fixed while it is mapped (tasks that arrive meanwhile wait for the next
mapping event), one task per step with the completion times recomputed after
each. On a DAG the meta-task -- the batch -- is the set of tasks ready when
the batch starts (every predecessor placed); the tasks that its placements
make ready wait until every task of the batch is mapped, and then form the
next batch. So each batch is exactly max-min over independent tasks with
machine ready times and data-ready times as they stand. This is the default
because it is the published definition (and saga's, see
``benchmarks/saga_compare.py``).

``rounds=False``: a task joins the ready list as soon as its last
predecessor is placed and competes at the next step, a dynamic ready-list
reading that lets an urgent successor overtake the rest of the batch.

Completion times are communication-aware and come from the shared engine
:mod:`heuristics.eft`: start ``max(processor ready time, data-ready time)``
with data from a predecessor on ``p`` reaching ``q`` at ``finish +
arc_unit * hops[p, q]`` (multi-hop networks, order pairs move no data),
execution time ``cost[task, q]`` (heterogeneous, per processor type,
``inf`` outside the task's affinity), and placed isolation partners blocking
their interval on every processor. ``insertion=False`` (default) appends
after the processor's last task, the machine-ready-time model of [1]_.

Cost: the completion times of the ready tasks are kept in a table updated
incrementally (:class:`heuristics._ready_list.ReadyTable`); each step is
``O(k P)`` numpy work for ``k`` ready tasks, ``O(n k P)`` in all.

References
----------
.. [1] T. D. Braun, H. J. Siegel, N. Beck et al., "A comparison of eleven
   static heuristics for mapping a class of independent tasks onto
   heterogeneous distributed computing systems", JPDC 61(6), 810-837, 2001,
   sec. 2 (Max-min). doi:10.1006/jpdc.2000.1714
.. [2] O. H. Ibarra, C. E. Kim, "Heuristic algorithms for scheduling
   independent tasks on nonidentical processors", JACM 24(2), 280-289, 1977.
.. [3] M. Maheswaran, S. Ali, H. J. Siegel, D. Hensgen, R. F. Freund,
   "Dynamic mapping of a class of independent tasks onto heterogeneous
   computing systems", JPDC 59(2), 107-131, 1999, sec. 3.3.
   doi:10.1006/jpdc.1999.1581
"""

from __future__ import annotations

import numpy as np

from exactsched._time_grid import time_resolution
from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._ready_list import batch_schedule, completion_times

__all__ = ["max_min"]


@register(
    "max-min",
    kind="heuristic",
    description="Max-min: ready task of largest least completion time first, on that processor",
    source="Braun et al., JPDC 61(6), 2001; Maheswaran et al., JPDC 59(2), 1999; Ibarra, Kim 1977",
)
def max_min(problem: Problem, *, rounds: bool = True, insertion: bool = False) -> Schedule:
    """Schedule with max-min over the ready tasks.

    Parameters
    ----------
    problem : Problem
    rounds : bool
        Map in batches, each over the tasks ready at its start (default True,
        the source's reading); False: newly ready tasks compete at once.
    insertion : bool
        Let a task fill an idle gap (default False: after the last task).

    Returns
    -------
    Schedule

    Examples
    --------
    Two fast tasks and one long one on two processors: max-min places the
    long one first, then the short ones share the other processor (min-min
    gives 5 here, see :func:`heuristics.min_min.min_min`).

    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[1, 2], [1, 2], [4, 5]])
    >>> s = max_min(p)
    >>> [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2")], s.makespan
    ([('p1', 0), ('p1', 2), ('p0', 0)], 4)
    >>> validate(p, s)
    []
    """
    cost, grid = problem.cost, time_resolution(problem)

    def pick(tasks: np.ndarray, est: np.ndarray) -> tuple[int, int]:
        _, best, least = completion_times(cost, tasks, est, grid)
        row = int(np.argmax(least))
        return row, int(best[row])

    return batch_schedule(problem, pick, insertion=bool(insertion), rounds=bool(rounds))
