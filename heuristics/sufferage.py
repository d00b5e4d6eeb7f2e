"""Sufferage: the batch-mode rule of Maheswaran et al., applied to a DAG's ready list.

Contract
--------
``sufferage(problem, *, rounds=True, insertion=False) -> Schedule``,
registered as ``sufferage``. The *sufferage* of a ready task is its second
least completion time over the processors minus its least one: how much it
would suffer if denied its best processor. Ties: the best processor is the
lowest-index one of least completion time. A task with a single allowed
processor (affinity, or ``P = 1``) has no second choice: its sufferage is
``inf`` (it loses everything if denied).

Default, ``rounds=True``: the source's reading. Maheswaran et al. [1]_
(sec. 3.4) map a *meta-task* (a batch of independent tasks) in passes: at
the start of a pass every machine is unassigned; the tasks of the batch, in
arbitrary order (here increasing index), each claim the machine of their
least completion time; a task gets it if the machine is unassigned or if it
suffers more than the task holding it, which is then released back to the
batch; at the end of the pass the winners are mapped, the machine ready
times updated, and the completion times recomputed. So a machine taken in a
pass is not offered again until the pass ends, and each pass maps at most
one task per machine. On a DAG the batch is the set of tasks ready when it
starts (all predecessors placed); tasks that its placements make ready wait
until every task of the batch is mapped, and then form the next batch -- as
a meta-task gathers the tasks that arrive while the previous one is mapped.
This is the default because it is the published definition.

``rounds=False``: one task per step, the ready task of largest sufferage
overall (ties: lowest task index) on its best processor, completion times
recomputed before the next choice, and tasks joining the ready list as soon
as their last predecessor is placed: the one-at-a-time form used e.g. by
Casanova et al. [2]_ and by saga (``benchmarks/saga_compare.py``).

Completion times are communication-aware and come from the shared engine
:mod:`heuristics.eft` (data from ``p`` reach ``q`` at ``finish + arc_unit *
hops[p, q]``; heterogeneous per-processor costs, ``inf`` outside affinity;
isolation partners block their interval on every processor; order pairs are
precedence without data). ``insertion=False`` (default) appends after the
processor's last task, the machine-ready-time model of [1]_. Cost: ``O(k P)``
numpy work per pass or step for ``k`` ready tasks (incremental table,
:class:`heuristics._ready_list.ReadyTable`).

References
----------
.. [1] M. Maheswaran, S. Ali, H. J. Siegel, D. Hensgen, R. F. Freund,
   "Dynamic mapping of a class of independent tasks onto heterogeneous
   computing systems", JPDC 59(2), 107-131, 1999, sec. 3.4.
   doi:10.1006/jpdc.1999.1581
.. [2] H. Casanova, A. Legrand, D. Zagorodnov, F. Berman, "Heuristics for
   scheduling parameter sweep applications in grid environments", HCW 2000.
"""

from __future__ import annotations

import numpy as np

from exactsched._time_grid import snap, time_resolution
from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._ready_list import ReadyTable, batch_schedule, completion_times
from heuristics.eft import ScheduleBuilder

__all__ = ["sufferage", "sufferage_values"]


def sufferage_values(
    eft: np.ndarray, least: np.ndarray, resolution: float | None = None
) -> np.ndarray:
    """Second least minus least completion time per row (``inf`` with one finite entry).

    On decimal data the difference is rounded to the grid of ``resolution``
    (:func:`exactsched._time_grid.time_resolution`), so exact ties stay ties.

    Examples
    --------
    >>> eft = np.array([[3.0, 5.0, 4.0], [2.0, np.inf, np.inf]])
    >>> sufferage_values(eft, eft.min(axis=1)).tolist()
    [1.0, inf]
    """
    if eft.shape[1] < 2:
        return np.full(len(eft), np.inf)
    second = np.partition(eft, 1, axis=1)[:, 1]
    return snap(second - least, resolution)


@register(
    "sufferage",
    kind="heuristic",
    description="Sufferage: ready task that loses most if denied its best processor goes first",
    source="Maheswaran, Ali, Siegel, Hensgen, Freund, JPDC 59(2), 1999",
)
def sufferage(problem: Problem, *, rounds: bool = True, insertion: bool = False) -> Schedule:
    """Schedule with the sufferage rule over the ready tasks.

    Parameters
    ----------
    problem : Problem
    rounds : bool
        Maheswaran et al.'s passes over batches of ready tasks, each machine
        taken at most once per pass (default True, the source's reading);
        False: one task per step, newly ready tasks compete at once.
    insertion : bool
        Let a task fill an idle gap (default False: after the last task).

    Returns
    -------
    Schedule

    Examples
    --------
    ``t1`` is fast on ``p0`` only (sufferage 5), ``t0`` fast on both
    (sufferage 1): both claim ``p0`` in the first pass and ``t1`` keeps it;
    ``t0`` goes to ``p1`` in the second pass, although min-min would give
    ``p0`` to ``t0``.

    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[1, 2], [2, 7]])
    >>> s = sufferage(p)
    >>> [(s[t].processor, s[t].start) for t in ("t0", "t1")], s.makespan
    ([('p1', 0), ('p0', 0)], 2)
    >>> validate(p, s)
    []

    A pass maps at most one task per machine, with the completion times of
    its start. Pass 1: ``t0`` and ``t2`` both claim ``p0`` (sufferage 0 each;
    the first claimant keeps it on a tie), ``t1`` claims ``p1``; ``t2`` waits
    for pass 2 and then starts at 1 on ``p0``. One task per step
    (``rounds=False``) places ``t1`` first, after which ``t2``'s sufferage
    rises to 1 and it takes ``p0`` at 0:

    >>> p = Problem.from_lists([[1, 2, 1], [2, 1, 3], [2, 2, 4]])
    >>> s = sufferage(p)
    >>> [(s[t].processor, s[t].start) for t in ("t0", "t1", "t2")], s.makespan
    ([('p0', 0), ('p1', 0), ('p0', 1)], 3)
    >>> sufferage(p, rounds=False).makespan
    2
    """
    cost, grid = problem.cost, time_resolution(problem)
    if not rounds:

        def pick(tasks: np.ndarray, est: np.ndarray) -> tuple[int, int]:
            eft, best, least = completion_times(cost, tasks, est, grid)
            row = int(np.argmax(sufferage_values(eft, least, grid)))
            return row, int(best[row])

        return batch_schedule(problem, pick, insertion=bool(insertion))
    table = ReadyTable(ScheduleBuilder(problem, insertion=bool(insertion)), rounds=True)
    while len(table) or table.release():
        # One pass: completion times as the pass starts; each machine to one claimant.
        tasks = table.ready()
        eft, best, least = completion_times(cost, tasks, table.est[tasks], grid)
        suffer = sufferage_values(eft, least, grid)
        holder: dict[int, int] = {}
        for row, q in enumerate(best.tolist()):
            if q not in holder or suffer[holder[q]] < suffer[row]:
                holder[q] = row  # a displaced task returns to the batch for the next pass
        for row in sorted(holder.values()):
            table.place(int(tasks[row]), int(best[row]))
    return table.builder.to_schedule()
