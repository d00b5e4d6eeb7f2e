"""bl-est: bottom-level priority, earliest-start-time processor (as compared by Wang and Sinnen).

Contract
--------
``bl_est(problem, *, ranking="mean", insertion=True) -> Schedule``, registered
as ``bl-est``. Tasks are prioritised by their bottom level ``bl(i) = w_i +
max_{j in succ(i)} (c_ij + bl(j))`` (eq. (1) of [1]_, slide 8), taken from a
ready list (largest ``bl`` first, ties lowest task index) and put on the
processor where they can **start** earliest, with the insertion-based policy
of the shared engine :mod:`heuristics.eft`. Insertion is this project's
reading: the slides of [1]_ compute "the start time on each processor" without
saying whether an idle gap may take the task; ``insertion=False`` appends every
task after the last one on its processor. The partition-based variants
(:mod:`heuristics.bl_est_part`, ``-busy``, ``-macro`` and their ETF forms)
inherit the choice and the option.

Heterogeneous, networked model
------------------------------
[1]_ and [2]_ define bl-est for identical processors on a fully connected
network. Here:

* ``w_i`` and ``c_ij`` are the node and arc weights of a weighting of
  :mod:`heuristics.ranking` (default ``"mean"``: mean cost over the task's
  allowed processors, and ``arc_unit`` times the mean hop count over pairs of
  distinct processors), so ``bl`` is HEFT's upward rank under that weighting;
* the start time on processor ``q`` is exact: data from a predecessor on
  ``p`` arrive ``arc_unit * hops[p, q]`` after it finishes (multi-hop
  networks, any processor types); communication never occupies a processor
  (the project's delay model, not the duplex single-port model of [1]_);
* selection is by start time as in the papers, so a slow processor that is
  free early wins over a fast busy one; among processors of equal earliest
  start the one of **least cost** (hence least finish time) is taken, then the
  lowest index -- the only place where heterogeneous costs enter the choice;
* affinity: only allowed processors are candidates; order pairs are
  precedence arcs of weight 0; isolation partners block their interval on
  every processor (engine).

Cost: ``O(e P)`` for the data-ready times plus the insertion search; the
100,000-task, 32-processor run of ``benchmarks/large.py`` takes seconds.

References
----------
.. [1] M. Y. Ozkaya, A. Benoit, B. Ucar, J. Herrmann, U. V. Catalyurek, "A
   scalable clustering-based task scheduler for homogeneous processors using
   DAG partitioning", IPDPS 2019, 155-165, slides 7-9. doi:10.1109/IPDPS.2019.00026
.. [2] H. Wang, O. Sinnen, "List-scheduling versus cluster-scheduling", IEEE
   TPDS 29(8), 1736-1749, 2018. doi:10.1109/TPDS.2018.2808959
"""

from __future__ import annotations

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._partsched import ProcessorChoice, schedule
from heuristics.ranking import Weighting

__all__ = ["bl_est"]


@register(
    "bl-est",
    kind="heuristic",
    description="bl-est: largest bottom level first, processor of earliest start time",
    source="Ozkaya, Benoit, Ucar, Herrmann, Catalyurek, IPDPS 2019; Wang and Sinnen, TPDS 2018",
    assumes_identical_processors=True,
)
def bl_est(
    problem: Problem,
    *,
    ranking: Weighting = "mean",
    insertion: bool = True,
    processor_choice: ProcessorChoice = "earliest-start",
) -> Schedule:
    """Schedule with bl-est.

    Parameters
    ----------
    problem : Problem
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
        For an unknown ranking or ``processor_choice``.

    Examples
    --------
    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[2, 2], [3, 1], [1, 1]], [(0, 1, 1), (0, 2, 1)])
    >>> s = bl_est(p)
    >>> [(t, s[t].processor, s[t].start) for t in p.task_ids], validate(p, s)
    ([('t0', 'p0', 0), ('t1', 'p0', 2), ('t2', 'p1', 3)], [])
    """
    return schedule(
        problem,
        engine="bl",
        variant="plain",
        ranking=ranking,
        insertion=insertion,
        processor_choice=processor_choice,
    )
