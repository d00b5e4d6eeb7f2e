"""PEFT and PEFT-NC: list scheduling by an optimistic cost table (Arabnejad and Barbosa).

Contract
--------
``optimistic_cost_table(problem) -> (n, P)`` is the optimistic cost table of [1]_,
per processor of a networked platform:

    OCT(t, p) = max_{c in Ch(t)} min_q ( OCT(c, q) + w(c, q) + comm(t, c, p, q) ),

0 at exit tasks, with ``comm(t, c, p, q) = arc_unit * hops[p, q]`` (0 when
``p == q``). ``OCT(t, p)`` is the length of the longest remaining path below
``t`` when ``t`` runs on ``p`` and every descendant runs wherever is best, with
no contention; it excludes ``t`` itself.

Registered methods
------------------
``peft``
    Rank ``rank_oct(t)``, the mean of ``OCT(t, .)`` over the processors,
    scheduled from a ready list (the PEFT algorithm of [1]_: only tasks whose
    parents are all placed compete, so precedence holds even when a child's
    mean OCT exceeds its parent's, the failure shown in [2]_ sec. 4.6);
    processor selection by least optimistic EFT,
    ``O_EFT(t, p) = EFT(t, p) + OCT(t, p)``. Option
    ``rank="min-oct"`` ranks by the least OCT instead ([2]_ sec. 2.3.7 and
    4.6: it respects precedence by construction); any weighting of
    :mod:`heuristics.ranking` gives its upward rank instead.
``peft-nc``
    "PEFT-NC ... uses the NC task ranking phase" ([2]_ sec. 4.6): the upward
    rank under the No-Cross weighting of Shetti et al. [3]_ (weighting ``"nc"``
    of :mod:`heuristics.ranking`) with PEFT's O_EFT selection. (McSweeney
    defines PEFT-NC by its ranking, so the No-Cross crossover rule of [3]_ is
    not part of it.)

Both use the shared ready-list engine (:mod:`heuristics.eft`): insertion-based
EFT, ties to the lowest task index and the lowest processor index.

Generalisation to the networked model (the paper is silent on these)
--------------------------------------------------------------------
* Communication. [1]_ uses the *average* communication cost ``c_ij`` of an
  edge for any pair of distinct processors. On a network with several hop
  distances the natural optimistic cost is the real one, ``arc_unit * hops[p,
  q]`` (``comm="network"``, the default); on a fully connected network with
  one bandwidth both are equal. ``comm="mean"`` keeps the paper's
  ``c_ij``: HEFT's mean delay :func:`heuristics.ranking.mean_comm` for every
  pair ``p != q``.
* Affinity. ``OCT(t, p)`` is defined on every processor; the rank averages
  (or minimises) it over the processors ``t`` may run on, and selection never
  picks a disallowed processor (its EFT is ``inf``). A child can only go where
  it is allowed (its cost is ``inf`` elsewhere).
* Order pairs are children with zero communication. Isolation pairs are
  honoured by the engine's EFT; the OCT, like the paper's, ignores contention.

Costs: the OCT is ``O(e * P^2)``, vectorised over arcs in bounded batches
(shared kernel with :mod:`heuristics.hoft`); selection adds ``O(P)`` per task.

References
----------
.. [1] H. Arabnejad, J. G. Barbosa, "List scheduling algorithm for heterogeneous
   systems by an optimistic cost table", IEEE TPDS 25(3), 682-694, 2014.
   doi:10.1109/TPDS.2013.57
.. [2] T. McSweeney, "Scheduling with precedence constraints in high-performance
   computing", PhD continuation report, University of Manchester, 2019,
   secs. 2.3.7 and 4.6.
.. [3] K. R. Shetti, S. A. Fahmy, T. Bretschneider, "Optimization of the HEFT
   algorithm for a CPU-GPU environment", PDCAT 2013, 212-218. doi:10.1109/PDCAT.2013.40
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import numpy as np

from exactsched._time_grid import time_resolution
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import OneOf, register
from exactsched.schedule import Schedule
from heuristics._tables import min_plus_sweep, tie_argmin, tie_values
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.ranking import WEIGHTINGS, mean_comm, upward_rank

__all__ = ["optimistic_cost_table", "oct_rank", "oeft_select", "peft", "peft_nc"]

_COMMS = ("network", "mean")
_OCT_RANKS = ("mean-oct", "min-oct")
_RANKS = (*_OCT_RANKS, *WEIGHTINGS)
Comm = Annotated[str, OneOf(_COMMS)]


def optimistic_cost_table(problem: Problem, *, comm: str = "network") -> np.ndarray:
    """The optimistic cost table ``OCT(t, p)`` of PEFT.

    Parameters
    ----------
    problem : Problem
    comm : {"network", "mean"}
        Delay of an arc between distinct processors ``p`` and ``q``:
        ``arc_unit * hops[p, q]`` (default) or HEFT's mean delay of the arc,
        as in [1]_.

    Returns
    -------
    numpy.ndarray
        ``(n, P)``; 0 on exit tasks.

    Raises
    ------
    MethodError
        For an unknown ``comm``.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 1], [3, 6], [1, 1]], [(0, 1, 4), (1, 2, 2)])
    >>> optimistic_cost_table(p).tolist()
    [[4.0, 7.0], [1.0, 1.0], [0.0, 0.0]]

    Notes
    -----
    Row ``t0``: ``t1`` with its ``OCT`` costs ``3 + 1`` on ``p0`` and ``6 + 1``
    on ``p1``; from ``p0`` that is ``min(4, 7 + 4) = 4``, from ``p1``
    ``min(4 + 4, 7) = 7``.

    References
    ----------
    .. [1] Arabnejad, Barbosa, IEEE TPDS 25(3), 2014 (the OCT).
    """
    if comm not in _COMMS:
        raise MethodError(f"comm: unknown {comm!r}; known: {', '.join(_COMMS)}")
    zero = np.zeros_like(problem.cost, dtype=float)
    if comm == "network":
        return min_plus_sweep(problem, zero, problem.cost, forward=False)
    n_procs = problem.n_processors
    distinct = np.ones((n_procs, n_procs)) - np.eye(n_procs)
    return min_plus_sweep(
        problem, zero, problem.cost, forward=False, unit=mean_comm(problem), hops=distinct
    )


def oct_rank(problem: Problem, table: np.ndarray, how: str = "mean-oct") -> np.ndarray:
    """Task priorities from an OCT: its mean (``rank_oct`` of [1]_) or least value.

    Parameters
    ----------
    problem : Problem
    table : numpy.ndarray
        ``(n, P)`` from :func:`optimistic_cost_table`.
    how : {"mean-oct", "min-oct"}
        Mean or minimum over the processors each task may run on.

    Returns
    -------
    numpy.ndarray
        ``(n,)``; higher goes first.

    Raises
    ------
    MethodError
        For an unknown ``how``.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 1], [3, 6], [1, 1]], [(0, 1, 4), (1, 2, 2)])
    >>> t = optimistic_cost_table(p)
    >>> oct_rank(p, t).tolist(), oct_rank(p, t, "min-oct").tolist()
    ([5.5, 1.0, 0.0], [4.0, 1.0, 0.0])

    Notes
    -----
    The mean can rank a child above its parent (see [2]_ sec. 4.6), so PEFT
    schedules from a ready list; the least OCT never does, since
    ``OCT(t, p) >= min_q (OCT(c, q) + w(c, q)) >= min_q OCT(c, q)`` for every
    child ``c`` of ``t``.

    References
    ----------
    .. [1] Arabnejad, Barbosa, IEEE TPDS 25(3), 2014 (``rank_oct``).
    .. [2] McSweeney, PhD continuation report, 2019, secs. 2.3.7 and 4.6.
    """
    allowed = problem.allowed
    if how == "mean-oct":
        mean = np.where(allowed, table, 0.0).sum(axis=1) / allowed.sum(axis=1)
        return tie_values(problem, mean)
    if how == "min-oct":
        return np.where(allowed, table, np.inf).min(axis=1)
    raise MethodError(f"rank: unknown {how!r}; known: {', '.join(_OCT_RANKS)}")


def oeft_select(table: np.ndarray) -> Callable[[ScheduleBuilder, int], int]:
    """PEFT's processor selection: least ``O_EFT = EFT + OCT``, ties lowest index.

    Parameters
    ----------
    table : numpy.ndarray
        ``(n, P)`` from :func:`optimistic_cost_table`.

    Returns
    -------
    callable
        ``select(builder, task) -> processor`` for :func:`heuristics.eft.list_schedule`.

    Examples
    --------
    >>> from heuristics.eft import ScheduleBuilder
    >>> p = Problem.from_lists([[2, 1], [3, 6], [1, 1]], [(0, 1, 4), (1, 2, 2)])
    >>> select = oeft_select(optimistic_cost_table(p))
    >>> select(ScheduleBuilder(p), 0)  # EFT (2, 1) + OCT (4, 7): p0 despite its later EFT
    0

    References
    ----------
    .. [1] Arabnejad, Barbosa, IEEE TPDS 25(3), 2014 (``O_EFT``).
    """

    grid: list[float | None] = []  # the problem's time resolution, read on the first call

    def select(builder: ScheduleBuilder, task: int) -> int:
        if not grid:
            grid.append(time_resolution(builder.problem))
        return tie_argmin(grid[0], builder.eft(task)[1] + table[task])

    return select


def _check_insertion(insertion: bool) -> None:
    if not isinstance(insertion, bool):
        raise MethodError(f"insertion: expected true or false, not {insertion!r}")


@register(
    "peft",
    kind="heuristic",
    description="Predict Earliest Finish Time: optimistic cost table ranking and selection",
    source="Arabnejad, Barbosa, IEEE TPDS 25(3), 2014",
)
def peft(
    problem: Problem,
    *,
    rank: Annotated[str, OneOf(_RANKS)] = "mean-oct",
    comm: Comm = "network",
    insertion: bool = True,
) -> Schedule:
    """PEFT (the algorithm of [1]_), generalised to networked processors.

    Parameters
    ----------
    problem : Problem
    rank : str
        ``"mean-oct"`` (default, ``rank_oct`` of [1]_), ``"min-oct"`` ([2]_ sec. 4.6),
        or a weighting of :data:`heuristics.ranking.WEIGHTINGS` (its upward rank).
    comm : {"network", "mean"}
        Delays in the OCT, see :func:`optimistic_cost_table`.
    insertion : bool
        Insertion-based placement (default True, as in [1]_).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For an unknown ``rank`` or ``comm``.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = peft(p)
    >>> s.makespan, validate(p, s)
    (85, [])

    References
    ----------
    .. [1] Arabnejad, Barbosa, IEEE TPDS 25(3), 2014, sec. 4.
    .. [2] McSweeney, PhD continuation report, 2019, sec. 4.6.
    """
    _check_insertion(insertion)
    table = optimistic_cost_table(problem, comm=comm)
    if rank in _OCT_RANKS:
        priority = oct_rank(problem, table, rank)
    elif rank in WEIGHTINGS:
        priority = upward_rank(problem, rank)
    else:
        known = ", ".join(_RANKS)
        raise MethodError(f"rank: unknown {rank!r}; known: {known}")
    return list_schedule(problem, priority, insertion=insertion, select=oeft_select(table))


@register(
    "peft-nc",
    kind="heuristic",
    description="PEFT's optimistic-cost selection with the No-Cross (NC) task ranking",
    source="McSweeney, PhD continuation report 2019, sec. 4.6; Arabnejad, Barbosa 2014",
)
def peft_nc(problem: Problem, *, comm: Comm = "network", insertion: bool = True) -> Schedule:
    """PEFT-NC: the NC upward rank of Shetti et al. with PEFT's O_EFT selection.

    Parameters
    ----------
    problem : Problem
    comm : {"network", "mean"}
        Delays in the OCT, see :func:`optimistic_cost_table`.
    insertion : bool
        Insertion-based placement (default True).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For a bad option.

    References
    ----------
    .. [1] McSweeney, PhD continuation report, 2019, sec. 4.6 and Fig. 4.18.
    .. [2] Shetti, Fahmy, Bretschneider, PDCAT 2013 (the NC weighting).
    """
    return peft(problem, rank="nc", comm=comm, insertion=insertion)
