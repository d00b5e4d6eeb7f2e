"""HEFT No-Cross: HEFT whose processor choice resists leaving a task's fastest processor.

Contract
--------
``heft_nc(problem, *, x=0.3, ranking="nc", tie="ratio", insertion=True) ->
Schedule`` (method ``heft-nc``) implements HEFT No-Cross of Shetti, Fahmy and
Bretschneider [1]_ as described in sec. 2.3.4 and 4.4 of McSweeney's report
[2]_.

*Prioritisation.* Upward rank under the ``nc`` weighting of
:mod:`heuristics.ranking`: node weight ``W_t = |w_s - w_f| / (w_s / w_f)``
(``w_s``, ``w_f`` the task's cost on its slowest and fastest processor) and no
communication, as in the paper. Since those ranks need not decrease along
arcs (a task may weigh 0), the ready-list scheduler
(:func:`heuristics.eft.list_schedule`) takes the ready task of highest rank,
ties to the lower index.

*No-crossover selection* (:func:`no_cross_select`). Let ``p_j`` be the processor of
least earliest finish time (EFT) and ``p_f`` the task's fastest processor. If
``p_j`` is a fastest processor the task goes there. Otherwise, with ``W_abstract =
|EFT(p_j) - EFT(p_f)| / (EFT(p_j) / EFT(p_f))``, it goes to ``p_j`` ("crosses") if
``W_t / W_abstract <= x`` and to ``p_f`` if not. Ratios and ``x`` are compared at 14
significant digits (:data:`heuristics._tables.TIE_DIGITS`), so a ratio equal to
``x`` in exact arithmetic crosses whatever its float rounding. The paper suggests
the cross threshold ``x = 0.3``. ``x = inf`` always crosses: HEFT with the ``nc``
ranking, which the report calls the natural baseline (sec. 4.4), except that an EFT
tie goes to a fastest processor. ``inf`` is for Python calls of :func:`heft_nc`;
:func:`exactsched.solve` and the CLI take finite options only, where ``x = 1e308``
crosses unless a ratio overflows.

Generalisation (the paper has one CPU and one GPU type):

* several processors can be fastest (all cores of a type cost the same);
  the report's rule (sec. 4.4, ``tie="ratio"``) computes ``W_abstract`` for
  every fastest processor and uses the one with the least ratio
  ``W_t / W_abstract``, both for the comparison and as the target if the
  task does not cross. Because ``EFT(p_f) >= EFT(p_j)``, that is the fastest
  processor with the *latest* EFT, which makes crossing most likely.
  ``tie="eft"`` takes the fastest processor of least EFT instead (what
  McSweeney's later code does); it keeps a non-crossing task on its best
  fastest processor;
* when ``p_j`` ties in EFT with a fastest processor, that fastest processor
  wins (it is both ``p_j`` and ``p_f``);
* zero divisions take their limits: ``W_t = 0`` when ``w_s = 0``;
  ``W_abstract = inf`` when ``EFT(p_j) = 0``; either way the ratio is 0 and
  the task crosses;
* any number of processor types, affinity (slowest/fastest over the allowed
  processors), multi-hop communication, order pairs and isolation all come
  from the engine (:class:`heuristics.eft.ScheduleBuilder`).

Complexity: HEFT's, ``O(e P)`` plus the gap search.

References
----------
.. [1] K. R. Shetti, S. A. Fahmy, T. Bretschneider, "Optimization of the HEFT
   algorithm for a CPU-GPU environment", PDCAT 2013, 212-218.
   doi:10.1109/PDCAT.2013.40
.. [2] T. McSweeney, "Scheduling with precedence constraints in
   high-performance computing", continuation report, University of
   Manchester, 2019, sec. 2.3.4 and 4.4.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import numpy as np

from exactsched._time_grid import snap, time_resolution
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import OneOf, register
from exactsched.schedule import Schedule
from heuristics._tables import TIE_DIGITS, round_significant
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.ranking import Weighting, upward_rank, weights

__all__ = ["TIE_RULES", "no_cross_select", "heft_nc"]

TIE_RULES: tuple[str, ...] = ("ratio", "eft")


def no_cross_select(
    problem: Problem, x: float = 0.3, tie: str = "ratio"
) -> Callable[[ScheduleBuilder, int], int]:
    """The no-crossover processor selection of HEFT-NC, as a ``select`` for list scheduling.

    Parameters
    ----------
    problem : Problem
    x : float
        Cross threshold (>= 0); the task crosses to the least-EFT processor
        when ``W_t / W_abstract <= x``.
    tie : {"ratio", "eft"}
        Which fastest processor stands for ``p_f`` when several are fastest
        (see the module docstring).

    Returns
    -------
    callable
        ``select(builder, task) -> processor``.

    Raises
    ------
    MethodError
        For a negative or nan ``x`` or an unknown ``tie``.

    Examples
    --------
    A task costing 1 on p0 and 4 on p1, with p0 busy until 10: HEFT would
    cross to p1 (EFT 4 against 11); ``W_t = 3 / 4``, ``W_abstract =
    7 * 11 / 4``, so the ratio is about 0.039: it crosses with ``x = 0.3``
    but not with ``x = 0.03``.

    >>> p = Problem.from_lists([[10, 10], [1, 4]])
    >>> b = ScheduleBuilder(p)
    >>> b.place(0, 0)
    >>> no_cross_select(p, 0.3)(b, 1), no_cross_select(p, 0.03)(b, 1)
    (1, 0)

    References
    ----------
    .. [1] Shetti, Fahmy, Bretschneider, PDCAT 2013, sec. IV.
    .. [2] McSweeney, continuation report, 2019, sec. 4.4 (several fastest processors).
    """
    x = float(x)
    if not x >= 0:
        raise MethodError(f"x: the cross threshold must be >= 0, not {x}")
    if tie not in TIE_RULES:
        raise MethodError(f"tie: must be one of {', '.join(TIE_RULES)}, not {tie!r}")
    threshold = float(round_significant(np.array([x]), TIE_DIGITS)[0])
    w_nc = weights(problem, "nc")[0]
    resolution = time_resolution(problem)
    cost = problem.cost
    fastest_mask = cost == cost.min(axis=1, keepdims=True)

    def select(builder: ScheduleBuilder, task: int) -> int:
        fin = builder.eft(task)[1]
        best = fin.min()
        fastest = fastest_mask[task]
        at_best = np.flatnonzero((fin == best) & fastest)
        if len(at_best):
            return int(at_best[0])
        p_j = int(fin.argmin())
        cand = np.flatnonzero(fastest)
        fin_f = fin[cand]
        with np.errstate(divide="ignore", invalid="ignore"):
            # W_abstract = |EFT_j - EFT_f| / (EFT_j / EFT_f); inf when EFT_j == 0.
            # EFT differences on the data's grid: a float difference of two nearby
            # EFTs keeps few digits, which no rounding of the ratio gives back.
            w_abs = np.where(best > 0, snap(fin_f - best, resolution) * fin_f / best, np.inf)
            ratio = np.where(np.isinf(w_abs), 0.0, w_nc[task] / w_abs)
        # Ratios equal in exact arithmetic compare equal, to each other and to x (a
        # ratio of exactly 0.3 computes as 0.30000000000000004 and must cross).
        ratio = round_significant(ratio, TIE_DIGITS)
        k = int(ratio.argmin()) if tie == "ratio" else int(fin_f.argmin())
        return p_j if ratio[k] <= threshold else int(cand[k])

    return select


@register(
    "heft-nc",
    kind="heuristic",
    description="HEFT No-Cross: NC ranks; leave the fastest processor only past a threshold",
    source="Shetti, Fahmy and Bretschneider, PDCAT 2013",
)
def heft_nc(
    problem: Problem,
    *,
    x: float = 0.3,
    ranking: Weighting = "nc",
    tie: Annotated[str, OneOf(TIE_RULES)] = "ratio",
    insertion: bool = True,
) -> Schedule:
    """HEFT No-Cross: rank by the NC weighting, select processors without crossing.

    Parameters
    ----------
    problem : Problem
    x : float
        Cross threshold (default 0.3, the paper's suggestion); ``inf`` gives
        HEFT with the ``ranking`` priorities (a direct call only: ``solve``
        takes finite options, ``1e308`` there).
    ranking : str
        Weighting of the upward rank (:data:`heuristics.ranking.WEIGHTINGS`);
        default ``"nc"``, the paper's. The crossing test always uses the NC
        node weight ``W_t``.
    tie : {"ratio", "eft"}
        Which of several fastest processors is ``p_f``: the report's rule
        (least ``W_t / W_abstract``, default) or the least EFT.
    insertion : bool
        Insertion-based placement (default True).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For a bad ``x``, ``tie`` or weighting.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = heft_nc(p)
    >>> s.makespan, validate(p, s)
    (76, [])

    Notes
    -----
    See the module docstring for the rule and its generalisation.

    References
    ----------
    .. [1] Shetti, Fahmy, Bretschneider, PDCAT 2013.
    .. [2] McSweeney, continuation report, 2019, sec. 2.3.4 and 4.4.
    """
    select = no_cross_select(problem, x, tie)
    return list_schedule(
        problem, upward_rank(problem, ranking), insertion=insertion, select=select
    )
