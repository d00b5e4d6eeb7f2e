"""bl-est-Part: bl-est on an acyclic partition into K = alpha * P parts (Ozkaya et al. 2019).

Contract
--------
``bl_est_part(problem, *, alpha=2, epsilon=0.1, ranking="mean", insertion=True) -> Schedule``,
registered as ``bl-est-part``. The tasks are split by
:func:`heuristics.partition.partition_problem` into ``K = alpha * P`` parts
(``P`` processors; [1]_ recommends ``alpha`` in 1..4) of weights balanced
within ``epsilon`` with a small edge cut and an acyclic quotient graph. Then,
once a task of a part is placed, every later task of that part goes to the
same processor; the first task of a part is placed by the plain rule. (See slide
12 of [1]_.)

The inner list scheduler is bl-est (:mod:`heuristics.bl_est`): ready list by
largest bottom level (ties lowest task index), earliest start time processor
(ties least cost, then lowest index).

Heterogeneous, networked model
------------------------------
[1]_ is defined for identical processors on a fully connected network.
Here: part weights are the tasks' mean costs over their allowed processors and
the cut is weighted by ``arc_unit`` (communication per hop; order pairs are
arcs of weight 0); bottom levels use the weighting ``ranking`` of
:mod:`heuristics.ranking`; start times are exact for the processor types and
the hop distances (``arc_unit * hops[p, q]``), through the shared engine
:mod:`heuristics.eft`, which also blocks isolation partners on every
processor. Affinity: when the processor a part rule names is not allowed for
a task, that task falls back to the plain rule over its allowed processors
(the part keeps its processor). Communication never occupies a processor
(the project's delay model, not the duplex single-port model of [1]_).

References
----------
.. [1] M. Y. Ozkaya, A. Benoit, B. Ucar, J. Herrmann, U. V. Catalyurek, "A
   scalable clustering-based task scheduler for homogeneous processors using
   DAG partitioning", IPDPS 2019, 155-165, slides 11-16.
   doi:10.1109/IPDPS.2019.00026
"""

from __future__ import annotations

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._partsched import Alpha, ProcessorChoice, schedule
from heuristics.ranking import Weighting

__all__ = ["bl_est_part"]


@register(
    "bl-est-part",
    kind="heuristic",
    description="bl-est-Part: bl-est, later tasks of a started part on its processor",
    source="Ozkaya, Benoit, Ucar, Herrmann, Catalyurek, IPDPS 2019",
    assumes_identical_processors=True,
)
def bl_est_part(
    problem: Problem,
    *,
    alpha: Alpha = 2,
    epsilon: float = 0.1,
    ranking: Weighting = "mean",
    insertion: bool = True,
    processor_choice: ProcessorChoice = "earliest-start",
) -> Schedule:
    """Schedule with bl-est-Part.

    Parameters
    ----------
    problem : Problem
    alpha : int
        Parts per processor: ``K = alpha * P`` (default 2).
    epsilon : float
        Allowed part imbalance (default 0.1, i.e. 10 %).
    ranking : str
        Weighting of :data:`heuristics.ranking.WEIGHTINGS` for the bottom levels.
    insertion : bool
        Insertion-based policy (default True).
    processor_choice : {"earliest-start", "earliest-finish"}
        ``"earliest-start"`` (default): the published rule, which treats the
        processors as identical; ``"earliest-finish"``: the project's
        adaptation to unlike processors, the allowed processor where the task
        finishes first (see docs/heuristics.md).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For an unknown ranking or ``processor_choice``, ``alpha`` not a
        positive integer or a negative ``epsilon``.

    Examples
    --------
    >>> from exactsched import validate
    >>> from exactsched.generators import random_instance
    >>> p = random_instance(30, 4, topology="mesh", ccr=2.0, seed=1)
    >>> validate(p, bl_est_part(p))
    []
    """
    return schedule(
        problem,
        engine="bl",
        variant="part",
        ranking=ranking,
        insertion=insertion,
        alpha=alpha,
        epsilon=epsilon,
        processor_choice=processor_choice,
    )
