"""Sufferage: the batch-mode rule of Maheswaran et al., applied to a DAG's ready list.

Contract
--------
``sufferage(problem, *, rounds=False, insertion=False) -> Schedule``,
registered as ``sufferage``. The *sufferage* of a ready task is its second
least completion time over the processors minus its least one: how much it
would suffer if denied its best processor. At every step the ready task of
largest sufferage goes to its best processor [1]_. Ties: lowest task index;
the best processor is the lowest-index one of least completion time. A task
with a single allowed processor (affinity, or ``P = 1``) has no second
choice: its sufferage is ``inf`` (it loses everything if denied).

Maheswaran et al. define sufferage in rounds over a meta-task of independent
tasks: in each round every task, in arbitrary order, claims its best machine
and keeps it only if no task with a larger sufferage claims it too; the
winners of the round are mapped together. Here one task is mapped per step
-- the task of largest sufferage overall, which is always a winner of such a
round -- and the completion times are recomputed before the next choice, the
one-at-a-time form used e.g. by Casanova et al. [2]_. On a DAG the meta-task
is the set of ready tasks (``rounds=False``: a task joins as soon as its last
predecessor is placed; ``rounds=True``: tasks made ready wait until the
current set is placed).

Completion times are communication-aware and come from the shared engine
:mod:`heuristics.eft` (data from ``p`` reach ``q`` at ``finish + arc_unit *
hops[p, q]``; heterogeneous per-processor costs, ``inf`` outside affinity;
isolation partners block their interval on every processor; order pairs are
precedence without data). ``insertion=False`` (default) appends after the
processor's last task. Cost: ``O(k P)`` numpy work per step for ``k`` ready
tasks (incremental table, :class:`heuristics._ready_list.ReadyTable`).

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

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._ready_list import batch_schedule, completion_times

__all__ = ["sufferage", "sufferage_values"]


def sufferage_values(eft: np.ndarray, least: np.ndarray) -> np.ndarray:
    """Second least minus least completion time per row (``inf`` with one finite entry).

    Examples
    --------
    >>> eft = np.array([[3.0, 5.0, 4.0], [2.0, np.inf, np.inf]])
    >>> sufferage_values(eft, eft.min(axis=1)).tolist()
    [1.0, inf]
    """
    if eft.shape[1] < 2:
        return np.full(len(eft), np.inf)
    second = np.partition(eft, 1, axis=1)[:, 1]
    return second - least


@register(
    "sufferage",
    kind="heuristic",
    description="Sufferage: ready task that loses most if denied its best processor goes first",
    source="Maheswaran, Ali, Siegel, Hensgen, Freund, JPDC 59(2), 1999",
)
def sufferage(problem: Problem, *, rounds: bool = False, insertion: bool = False) -> Schedule:
    """Schedule with the sufferage rule over the ready tasks.

    Parameters
    ----------
    problem : Problem
    rounds : bool
        Map in rounds over the tasks ready at each round's start (default
        False: newly ready tasks compete at once).
    insertion : bool
        Let a task fill an idle gap (default False: after the last task).

    Returns
    -------
    Schedule

    Examples
    --------
    ``t1`` is fast on ``p0`` only (sufferage 5), ``t0`` fast on both
    (sufferage 1): ``t1`` takes ``p0`` first, although min-min would pick
    ``t0`` there.

    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[1, 2], [2, 7]])
    >>> s = sufferage(p)
    >>> [(s[t].processor, s[t].start) for t in ("t0", "t1")], s.makespan
    ([('p1', 0), ('p0', 0)], 2)
    >>> validate(p, s)
    []
    """
    cost = problem.cost

    def pick(tasks: np.ndarray, est: np.ndarray) -> tuple[int, int]:
        eft, best, least = completion_times(cost, tasks, est)
        row = int(np.argmax(sufferage_values(eft, least)))
        return row, int(best[row])

    return batch_schedule(problem, pick, insertion=bool(insertion), rounds=bool(rounds))
