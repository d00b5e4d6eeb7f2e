"""ETF: earliest EST first over all ready tasks and processors (Hwang, Chow, Anger, Lee).

Contract
--------
``etf(problem, *, ranking="mean", insertion=True) -> Schedule``, registered
as ``etf``. At every step the earliest start time of every ready task on every
candidate processor is considered and the pair of **earliest start** is
scheduled ([1]_; slide 10 of [2]_, as compared by [3]_). Ties: the task of
larger bottom level, then the lower task index; among the processors
where that task starts earliest, the one of least cost (least finish time),
then the lowest index. Two readings differ from [1]_ and are deliberate:
the bottom level is that of :mod:`heuristics.bl_est` (mean costs and mean
communication, the ``bl`` of [2]_), where Hwang et al.'s static level counts
execution times only; and a task may be inserted into an idle gap
(``insertion=True``, as every list scheduler here), where [1]_ starts it
after the processor's last task (``insertion=False``, which the ETF step of
:mod:`heuristics.dsc_glb_etf` uses by default).

Heterogeneous, networked model
------------------------------
[1]_ assumes identical processors; here the start time of a task on processor
``q`` is the exact one of the shared engine :mod:`heuristics.eft`
(``arc_unit * hops[p, q]`` after a predecessor on ``p`` finishes, insertion
into idle gaps, isolation partners blocking every processor, ``inf`` outside
the affinity), so processor types and multi-hop networks enter through the
start times, and heterogeneous costs through the bottom levels (weighting
``ranking``) and the least-cost tie-break. Order pairs are precedence arcs
without data. Communication never occupies a processor.

Speed
-----
Not the ``O(n^2 P)`` rescan of every ready task with the engine at every
step: a table holds the earliest start of every ready task on every processor;
a placement on processor ``p`` only changes column ``p`` (and the rows of
isolation partners), which is recomputed for all ready tasks in one vectorised
pass, and the next pair is one minimum over the table (see
:mod:`heuristics._partsched`). Tests check the result equal to the plain
re-implementation.

References
----------
.. [1] J.-J. Hwang, Y.-C. Chow, F. D. Anger, C.-Y. Lee, "Scheduling precedence
   graphs in systems with interprocessor communication times", SIAM J.
   Comput. 18(2), 244-257, 1989. doi:10.1137/0218016
.. [2] M. Y. Ozkaya, A. Benoit, B. Ucar, J. Herrmann, U. V. Catalyurek, "A
   scalable clustering-based task scheduler for homogeneous processors using
   DAG partitioning", IPDPS 2019, 155-165, slides 7 and 10.
   doi:10.1109/IPDPS.2019.00026
.. [3] H. Wang, O. Sinnen, "List-scheduling versus cluster-scheduling", IEEE
   TPDS 29(8), 1736-1749, 2018. doi:10.1109/TPDS.2018.2808959
"""

from __future__ import annotations

from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.schedule import Schedule
from heuristics._partsched import ProcessorChoice, schedule
from heuristics.ranking import Weighting

__all__ = ["etf"]


@register(
    "etf",
    kind="heuristic",
    description="ETF: the ready task and processor of earliest start time first",
    source="Hwang, Chow, Anger, Lee, SIAM J. Comput. 18(2), 1989; Ozkaya et al., IPDPS 2019",
    assumes_identical_processors=True,
)
def etf(
    problem: Problem,
    *,
    ranking: Weighting = "mean",
    insertion: bool = True,
    processor_choice: ProcessorChoice = "earliest-start",
) -> Schedule:
    """Schedule with ETF.

    Parameters
    ----------
    problem : Problem
    ranking : str
        Weighting of :data:`heuristics.ranking.WEIGHTINGS` for the bottom
        levels that break ties between equal start times.
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
    t1 and t2 can both start at 2 on p0; t1, of larger bottom level, takes it:

    >>> from exactsched import Problem, validate
    >>> p = Problem.from_lists([[2, 2], [3, 3], [1, 1]], [(0, 1, 2), (0, 2, 0)])
    >>> s = etf(p)
    >>> [(t, s[t].processor, s[t].start) for t in p.task_ids], validate(p, s)
    ([('t0', 'p0', 0), ('t1', 'p0', 2), ('t2', 'p1', 2)], [])
    """
    return schedule(
        problem,
        engine="etf",
        variant="plain",
        ranking=ranking,
        insertion=insertion,
        processor_choice=processor_choice,
    )
