"""Random-EFT: HEFT's order, processor drawn at random weighted by speed (McSweeney 2019).

Contract
--------
``random_eft(problem, *, ranking="mean", seed=None, insertion=True) ->
Schedule``, registered as ``random-eft``. Tasks come from a ready list in
HEFT's order (decreasing upward rank under ``ranking``, ties lowest index);
each task's processor is drawn at random among the processors it may run on
(affinity), with probability proportional to the processor's *speed for that
task*, ``1 / cost[task, q]``; a processor where the task costs nothing is
infinitely fast, so the draw is then uniform among those. The task is placed
at its earliest start there, insertion-based, through :mod:`heuristics.eft`
(order pairs, isolation pairs, multi-hop networks included). Reproducible for
a fixed ``seed``: task ``i`` uses the ``i``-th of ``n`` uniform numbers drawn
up front.

McSweeney [1]_ uses this "select a processor at random, weighted by their
respective speeds" selection as the baseline that HEFT's least earliest
finish time improves on. With unrelated costs a processor has no single
speed, hence the per-task speed above; on related machines
(``cost = work / speed``) it is exactly the processor speed.

References
----------
.. [1] T. McSweeney, "Scheduling with precedence constraints in
   high-performance computing", PhD continuation report, University of
   Manchester, 2019, sec. 4.2.3.
"""

from __future__ import annotations

import random

import numpy as np

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.heft import heft_priority
from heuristics.ranking import Weighting
from heuristics.rts import as_generator

__all__ = ["random_eft", "speed_weights"]


def speed_weights(problem: Problem) -> np.ndarray:
    """``(n, P)`` selection probabilities: per-task speed ``1 / cost``, normalised per row.

    Examples
    --------
    >>> from exactsched import Problem
    >>> speed_weights(Problem.from_lists([[1, 3], [0, 2], [4, 4]], affinity={2: [1]})).tolist()
    [[0.75, 0.25], [1.0, 0.0], [0.0, 1.0]]
    """
    cost = problem.cost
    zero = (cost == 0) & problem.allowed
    with np.errstate(divide="ignore"):
        speed = np.where(problem.allowed, 1.0 / cost, 0.0)
    has_zero = zero.any(axis=1)
    speed[has_zero] = zero[has_zero]
    return speed / speed.sum(axis=1, keepdims=True)


@register(
    "random-eft",
    kind="heuristic",
    description="HEFT's order, processor drawn at random weighted by speed, earliest start",
    source="McSweeney, PhD continuation report, Univ. of Manchester, 2019, sec. 4.2.3",
)
def random_eft(
    problem: Problem,
    *,
    ranking: Weighting = "mean",
    seed: int | np.random.Generator | random.Random | None = None,
    insertion: bool = True,
) -> Schedule:
    """Schedule in HEFT's order on speed-weighted random processors.

    Parameters
    ----------
    problem : Problem
    ranking : str
        Weighting of the upward ranks (default ``"mean"``).
    seed : int, numpy.random.Generator, random.Random or None
        Seed of the draws (None: fresh entropy, not reproducible).
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
    >>> s = random_eft(p, seed=0)
    >>> validate(p, s), s.makespan == random_eft(p, seed=0).makespan
    ([], True)

    References
    ----------
    .. [1] McSweeney, continuation report, 2019, sec. 4.2.3.
    """
    priority = heft_priority(problem, ranking)
    cumulative = np.cumsum(speed_weights(problem), axis=1)
    draws = as_generator(seed).random(problem.n_tasks)

    def select(builder: ScheduleBuilder, task: int) -> int:
        row = cumulative[task]
        # First processor whose cumulative weight exceeds the draw: never a
        # processor of weight 0 (outside the affinity), whose slot is empty.
        pick = int(np.searchsorted(row, draws[task] * row[-1], side="right"))
        return min(pick, len(row) - 1)

    return list_schedule(problem, priority, insertion=bool(insertion), select=select)
