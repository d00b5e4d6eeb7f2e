"""HOFT, HOFT-WM and HEFT-WM: the optimistic-finish-time heuristics of McSweeney et al.

Contract
--------
``optimistic_finish_time(problem) -> (n, P)`` is the OFT table of [1]_ sec. 5,
generalised from the two processor types of the paper to every processor of a
networked platform: ``OFT(t, p)`` is the earliest time ``t`` could finish on
``p`` if there were no contention,

    OFT(t, p) = w(t, p) + max_{s in Pa(t)} min_q ( OFT(s, q) + comm(s, t, q, p) ),

with ``comm(s, t, q, p) = arc_unit * hops[q, p]`` (0 when ``q == p``) and
``OFT(t, p) = w(t, p)`` at entry tasks; ``inf`` outside a task's affinity.
``hoft_priority(problem)`` is HOFT's task ranking (eq. (9)): upward ranks
with node weight ``max_p OFT / min_p OFT`` and every arc weight zero.
``hoft_select(problem)`` returns HOFT's processor selection (Algorithm 2) as a
``select(builder, task)`` callable for :func:`heuristics.eft.list_schedule`.

Registered methods
------------------
``heft-wm``
    HEFT with the weighted-mean ranking of [1]_ sec. 4.2 (weighting ``"wm"`` of
    :mod:`heuristics.ranking`) and HEFT's least-EFT selection.
``hoft``
    OFT ranking + HOFT selection (Algorithm 2 of [1]_).
``hoft-wm``
    HEFT-WM's ranking + HOFT selection, "the heuristic obtained by using the
    HEFT-WM task prioritization with the HOFT processor selection" ([1]_ sec. 6).

All three schedule with the shared ready-list engine (:mod:`heuristics.eft`):
insertion-based EFT, ties to the lowest task and processor index.

Generalisation to the networked model, and readings of the paper
-----------------------------------------------------------------
* Processor types. The paper has two types, C and G, with one cost per type;
  here every processor has its own cost row. The OFT table therefore has one
  column per processor, not per type, and "the fastest resource type" of a task
  becomes the set ``F(t)`` of allowed processors where its cost is least
  (``w_im != min(w_C, w_G)`` in Algorithm 2 becomes ``p_m not in F(t)``).
* Multi-hop communication. The paper's ``c_ij(p, p')`` between types becomes
  ``arc_unit * hops[q, p]`` between processors. In the paper's OFT (eq. (8))
  a parent of the same type costs no communication (the reference simulator
  [3]_ uses ``d[CC] = d[GG] = 0``: both could share a processor); here the
  same processor is free and others cost their hops. On an
  ``accelerated-node`` network, where the processors of one type are
  interchangeable and CPU-CPU hops are 0, the table is the paper's, one
  column per processor. (The printed eq. (8) says ``delta_pp' = 1 if p =
  p'``; the text and simulator make clear the delay applies between different
  types.)
* Expected child finish times (eq. (11)): "each child task t_j is scheduled on
  the type of resource T_j which minimizes its OFT", with delay
  ``c_ij(T_m, T_j)``, which the paper's model defines between two *different*
  resources (``c_ij(G, G)``: "from GPU to a different GPU"). Here the child
  goes on the best processor of ``Q(t_j) = argmin_q OFT(t_j, q)`` other than
  ``p``::

      E(Ch(t) | p) = EFT(t, p)
                     + max_{j in Ch(t)} min_{q in Q(t_j), q != p} (comm(t, j, p, q) + w(j, q))

  (0 inside the max for an exit task). On a CPU-GPU node with at least two
  processors of each preferred type this is exactly the paper's estimate. If
  ``p`` is the only processor of ``Q(t_j)`` (a single GPU) the child shares it
  with delay 0 (``child_processor="other"``), or, by default
  (``child_processor="paper"``), pays what eq. (11) and the simulator [3]_
  charge there: ``c_ij(G, G)``, the transfer to a different GPU, which the
  paper's type-priced model defines even on a node with one GPU (``arc_unit *
  twin_hops[p]`` of :meth:`topologies.networks.AcceleratedNode.twin_hops`: 0
  for a CPU core, 1 for an accelerator). Charging 0 there made HOFT choose
  differently from HEFT on single-GPU Cholesky DAGs, and up to 13 % worse,
  where the paper (sec. 6) reports that HOFT's selection never differed from
  HEFT's and that HOFT-WM equalled HEFT-WM. Other networks price a transfer by
  position, not type, so there the child shares ``p`` in both modes.
  ``child_processor="any"`` lets the child share ``p`` whenever ``p`` is in
  ``Q(t_j)`` (the more optimistic reading, consistent with the OFT). Order
  pairs count as children with zero communication: they also wait for ``t``.
* The crossing test. The printed condition (eq. (12)) is
  ``s_m > E(Ch|p_m) - E(Ch|p_f)`` with ``s_m = EFT(p_f) - EFT(p_m)``, which
  counts the saving twice since both ``E`` contain the EFT. The text says
  "always chooses the resource with the smallest EFT unless by doing so we
  expect to increase the earliest possible time at which all child tasks can
  be completed", and the authors' simulator [3]_ compares ``s_m`` with the
  difference of the child terms only; both keep ``p_m`` when
  ``E(Ch|p_m) < E(Ch|p_f)`` and leave it when ``E(Ch|p_m) > E(Ch|p_f)``. On
  a tie the text would keep ``p_m`` (no increase) and the simulator moves
  to ``p_f`` (its test is strict); the default (``condition="expected"``)
  follows the simulator. ``condition="printed"`` applies eq. (12) as printed.
* Affinity. OFT is ``inf`` on disallowed processors, and the OFT ratio of
  eq. (9) is taken over allowed processors. A ratio ``0 / 0`` (zero-cost
  task with zero-cost ancestry everywhere) counts 1; ``x / 0`` with ``x > 0``
  counts as the largest finite ratio of the instance (at least 1), so that
  ranks stay finite.
* Isolation pairs are honoured by the engine's EFT; the OFT, like the paper's,
  ignores all contention and hence isolation.

Costs: the OFT table is ``O(e * P^2)`` time, vectorised over arcs in batches of
bounded memory; the child-term table is ``O(e * P^2)`` once; each selection is
then ``O(P)`` on top of the engine's EFT.

References
----------
.. [1] T. McSweeney, N. Walton, M. Zounon, "An efficient new static scheduling
   heuristic for accelerated architectures", ICCS 2020, LNCS 12137, pp. 3-16.
   doi:10.1007/978-3-030-50371-0_1
.. [2] T. McSweeney, "Scheduling with precedence constraints in high-performance
   computing", PhD continuation report, University of Manchester, 2019,
   sec. 4.1 (optimistic finish time).
.. [3] T. McSweeney, simulator of [1]_, github.com/mcsweeney90/
   heterogeneous_optimistic_finish_time, ``simulator/Heuristics.py`` (HOFT).
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
from heuristics._tables import batch_size, optimistic_finish_time, tie_value
from heuristics.eft import ScheduleBuilder, list_schedule
from heuristics.ranking import WEIGHTINGS, ranks_from_weights, upward_rank

__all__ = [
    "optimistic_finish_time",
    "hoft_priority",
    "child_estimates",
    "hoft_select",
    "heft_wm",
    "hoft",
    "hoft_wm",
]

_CONDITIONS = ("expected", "printed")
_CHILD_PROCESSORS = ("paper", "other", "any")
_RANKINGS = ("oft", *WEIGHTINGS)

Condition = Annotated[str, OneOf(_CONDITIONS)]
ChildProcessor = Annotated[str, OneOf(_CHILD_PROCESSORS)]


def _oft_ratio(oft: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Node weights of eq. (9): max over min OFT over allowed processors."""
    hi = np.where(allowed, oft, -np.inf).max(axis=1)
    lo = np.where(allowed, oft, np.inf).min(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = hi / lo
    ratio[hi == lo] = 1.0  # includes 0 / 0
    finite = np.isfinite(ratio)
    ratio[~finite] = max(1.0, float(ratio[finite].max(initial=1.0)))
    return ratio


def hoft_priority(problem: Problem, oft: np.ndarray | None = None) -> np.ndarray:
    """HOFT's task priorities: upward rank with OFT-ratio node weights, zero arcs.

    Parameters
    ----------
    problem : Problem
    oft : numpy.ndarray, optional
        A precomputed :func:`optimistic_finish_time` table.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` ranks; higher goes first.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 1], [3, 6], [1, 1]], [(0, 1, 4), (1, 2, 2)])
    >>> hoft_priority(p).round(3).tolist()
    [4.733, 2.733, 1.333]

    References
    ----------
    .. [1] McSweeney, Walton, Zounon, ICCS 2020, sec. 5, eq. (9).
    """
    oft = optimistic_finish_time(problem) if oft is None else oft
    weight = _oft_ratio(oft, problem.allowed)
    return ranks_from_weights(problem, weight, np.zeros(problem.n_edges), "upward")


def child_estimates(
    problem: Problem, oft: np.ndarray | None = None, *, child_processor: str = "paper"
) -> np.ndarray:
    """The child term of HOFT's expected child finish times, for every task and processor.

    Parameters
    ----------
    problem : Problem
    oft : numpy.ndarray, optional
        A precomputed :func:`optimistic_finish_time` table.
    child_processor : {"paper", "other", "any"}
        Where a child of ``t`` on ``p`` is assumed to run: on a processor of
        ``Q(j)`` other than ``p`` when there is one (the paper's ``c_ij(T_m,
        T_j)`` between different resources); when ``p`` is the only one,
        ``"paper"`` (default) charges the transfer to another processor of its
        type where the network prices transfers by type (a single GPU: ``c(G,
        G)``, as eq. (11)), ``"other"`` lets it share ``p``; ``"any"``: anywhere
        in ``Q(j)``, ``p`` included.

    Returns
    -------
    numpy.ndarray
        ``(n, P)``: ``M(t, p) = max_{j in Ch(t)} min_{q in Q(j)} (comm(t, j, p, q) +
        w(j, q))`` with ``Q(j)`` the processors minimising ``OFT(j, .)`` (without
        ``p`` unless it is the only one, for ``"paper"`` and ``"other"``; then
        ``"paper"`` adds ``arc_unit * twin_hops[p]``); 0 for exit tasks. Then
        ``E(Ch(t) | p) = EFT(t, p) + M(t, p)`` (eq. (11) of [1]_; ``s_m`` is eq. (10)).

    Raises
    ------
    MethodError
        For an unknown ``child_processor``.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 1], [3, 6], [1, 1]], [(0, 1, 4), (1, 2, 2)])
    >>> child_estimates(p).tolist()
    [[3.0, 7.0], [1.0, 3.0], [0.0, 0.0]]

    The child of ``t0`` runs as well on ``p1`` as on ``p2``; from ``p1`` it goes
    to ``p2`` unless it may share ``p1``:

    >>> q = Problem.from_lists([[1, 1, 1], [9, 2, 2]], [(0, 1, 5)])
    >>> child_estimates(q)[0].tolist(), child_estimates(q, child_processor="any")[0].tolist()
    ([7.0, 7.0, 7.0], [7.0, 2.0, 2.0])

    On a node with one GPU, a child that prefers the GPU is still charged the
    transfer ``c(G, G)`` from it (eq. (11)), unless it may share:

    >>> doc = {"format": "exactsched/instance@1",
    ...        "platform": {"processors": [{"id": "c0", "type": "cpu"},
    ...                                    {"id": "g0", "type": "gpu"}],
    ...                     "network": {"topology": "accelerated-node"}},
    ...        "tasks": [{"id": "t", "cost": {"cpu": 9, "gpu": 1}},
    ...                  {"id": "u", "cost": {"cpu": 9, "gpu": 1}}],
    ...        "edges": [{"src": "t", "dst": "u", "data": 4}]}
    >>> r = Problem.from_json(doc)
    >>> child_estimates(r)[0].tolist(), child_estimates(r, child_processor="other")[0].tolist()
    ([5.0, 5.0], [5.0, 1.0])

    References
    ----------
    .. [1] McSweeney, Walton, Zounon, ICCS 2020, eq. (11).
    """
    if child_processor not in _CHILD_PROCESSORS:
        known = ", ".join(_CHILD_PROCESSORS)
        raise MethodError(f"child_processor: unknown {child_processor!r}; known: {known}")
    oft = optimistic_finish_time(problem) if oft is None else oft
    n_procs = problem.n_processors
    best = np.where(problem.allowed, oft, np.inf).min(axis=1, keepdims=True)
    preferred = problem.allowed & (oft <= best)
    child_cost = np.where(preferred, problem.cost, np.inf)
    unit = problem.arc_unit.astype(float)
    hops = problem.hops.astype(float)
    twin_hops = getattr(problem.topology, "twin_hops", None)
    twin = twin_hops() if child_processor == "paper" and twin_hops is not None else None
    term = np.zeros((problem.n_tasks, n_procs))
    diag = np.arange(n_procs)
    step = batch_size(n_procs)
    for lo in range(0, problem.n_edges, step):
        a = np.arange(lo, min(lo + step, problem.n_edges))
        vals = child_cost[problem.arc_dst[a]][:, None, :] + unit[a, None, None] * hops
        if child_processor != "any":
            own = vals[:, diag, diag]
            if twin is not None:  # the only preferred processor: a transfer to its twin
                own = own + unit[a, None] * twin
            vals[:, diag, diag] = np.inf
            vals = vals.min(axis=2)
            vals = np.where(np.isfinite(vals), vals, own)
        else:
            vals = vals.min(axis=2)
        np.maximum.at(term, problem.arc_src[a], vals)
    return term


def hoft_select(
    problem: Problem,
    oft: np.ndarray | None = None,
    *,
    condition: Condition = "expected",
    child_processor: ChildProcessor = "paper",
) -> Callable[[ScheduleBuilder, int], int]:
    """HOFT's processor selection (Algorithm 2 of [1]_) as a ``select`` callable.

    Parameters
    ----------
    problem : Problem
    oft : numpy.ndarray, optional
        A precomputed :func:`optimistic_finish_time` table.
    condition : {"expected", "printed"}
        When to keep the least-EFT processor ``p_m`` over ``p_f``, the least-EFT
        processor among the task's fastest ones: ``"expected"`` (default) when
        ``E(Ch|p_m) < E(Ch|p_f)``, as the reference simulator does (a tie
        goes to ``p_f``);
        ``"printed"`` when ``s_m > E(Ch|p_m) - E(Ch|p_f)``, eq. (12) as printed.
    child_processor : {"paper", "other", "any"}
        Where the children are expected to run, see :func:`child_estimates`.

    Returns
    -------
    callable
        ``select(builder, task) -> processor`` for :func:`heuristics.eft.list_schedule`.

    Raises
    ------
    MethodError
        For an unknown ``condition`` or ``child_processor``.

    Examples
    --------
    Task ``t1`` is fastest on ``p0``, which is busy, and its child ``t2`` too; 20
    units of data make crossing to ``p1`` cost more than the 13 it saves:

    >>> from heuristics.eft import ScheduleBuilder
    >>> p = Problem.from_lists([[1, 1], [1, 2], [1, 9], [14, 14]], [(0, 1), (1, 2, 20)])
    >>> b = ScheduleBuilder(p)
    >>> b.place(0, 0); b.place(3, 0)
    >>> b.eft(1)[1].tolist()
    [16.0, 3.0]
    >>> hoft_select(p)(b, 1), hoft_select(p, condition="printed")(b, 1)
    (0, 1)

    References
    ----------
    .. [1] McSweeney, Walton, Zounon, ICCS 2020, sec. 5, eqs. (10)-(12), Algorithm 2.
    """
    if condition not in _CONDITIONS:
        raise MethodError(f"condition: unknown {condition!r}; known: {', '.join(_CONDITIONS)}")
    oft = optimistic_finish_time(problem) if oft is None else oft
    term = child_estimates(problem, oft, child_processor=child_processor)
    fastest = problem.allowed & (problem.cost <= problem.min_cost()[:, None])
    printed = condition == "printed"
    resolution = time_resolution(problem)

    def select(builder: ScheduleBuilder, task: int) -> int:
        fin = builder.eft(task)[1]
        m = int(np.argmin(fin))
        row = fastest[task]
        if row[m]:
            return m
        f = int(np.argmin(np.where(row, fin, np.inf)))
        expect_m = fin[m] + term[task, m]
        expect_f = fin[f] + term[task, f]
        # Sums as tie_values, so that equal decimals tie (0.06 + 0.03 against 0.07 +
        # 0.02); eq. (12), s_m > E(Ch|p_m) - E(Ch|p_f), as fin_f + E_f > fin_m + E_m.
        sums = [expect_m, expect_f, fin[f] + expect_f, fin[m] + expect_m]
        e = [tie_value(resolution, float(x)) for x in sums]
        if printed:
            return m if e[2] > e[3] else f
        return m if e[0] < e[1] else f

    return select


def _check_insertion(insertion: bool) -> None:
    if not isinstance(insertion, bool):
        raise MethodError(f"insertion: expected true or false, not {insertion!r}")


@register(
    "heft-wm",
    kind="heuristic",
    description="HEFT with the weighted-mean (acceleration-ratio) ranking",
    source="McSweeney, Walton, Zounon, ICCS 2020, sec. 4.2",
)
def heft_wm(problem: Problem, *, insertion: bool = True) -> Schedule:
    """HEFT-WM: HEFT whose upward ranks use weighted means.

    Parameters
    ----------
    problem : Problem
    insertion : bool
        Insertion-based placement (default True, as HEFT).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For a bad option.

    Notes
    -----
    The weights are the ``"wm"`` weighting of :mod:`heuristics.ranking`
    (eqs. (6)-(7) of [1]_); selection is HEFT's least EFT.

    References
    ----------
    .. [1] McSweeney, Walton, Zounon, ICCS 2020, sec. 4.2.
    """
    _check_insertion(insertion)
    return list_schedule(problem, upward_rank(problem, "wm"), insertion=insertion)


def _priority(problem: Problem, ranking: str, oft: np.ndarray) -> np.ndarray:
    if ranking == "oft":
        return hoft_priority(problem, oft)
    if ranking in WEIGHTINGS:
        return upward_rank(problem, ranking)
    known = ", ".join(_RANKINGS)
    raise MethodError(f"ranking: unknown {ranking!r}; known: {known}")


@register(
    "hoft",
    kind="heuristic",
    description="Heterogeneous Optimistic Finish Time: OFT ranking + child-aware selection",
    source="McSweeney, Walton, Zounon, ICCS 2020, sec. 5",
)
def hoft(
    problem: Problem,
    *,
    ranking: Annotated[str, OneOf(_RANKINGS)] = "oft",
    condition: Condition = "expected",
    child_processor: ChildProcessor = "paper",
    insertion: bool = True,
) -> Schedule:
    """HOFT (Algorithm 2 of [1]_), generalised to networked processors.

    Parameters
    ----------
    problem : Problem
    ranking : str
        ``"oft"`` (default): HOFT's ranking (:func:`hoft_priority`); or any
        weighting of :data:`heuristics.ranking.WEIGHTINGS` for its upward rank
        (``"wm"`` gives HOFT-WM).
    condition : {"expected", "printed"}
        The crossing test of the selection, see :func:`hoft_select`.
    child_processor : {"paper", "other", "any"}
        Where the children are expected to run, see :func:`child_estimates`.
    insertion : bool
        Insertion-based placement (default True).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For an unknown ranking, condition or child_processor.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> s = hoft(p)
    >>> s.makespan, validate(p, s)
    (89, [])

    Notes
    -----
    See the module docstring for how the two-type algorithm is generalised to
    per-processor costs, multi-hop networks, affinity and isolation.

    References
    ----------
    .. [1] McSweeney, Walton, Zounon, ICCS 2020, sec. 5.
    """
    _check_insertion(insertion)
    oft = optimistic_finish_time(problem)
    priority = _priority(problem, ranking, oft)
    select = hoft_select(problem, oft, condition=condition, child_processor=child_processor)
    return list_schedule(problem, priority, insertion=insertion, select=select)


@register(
    "hoft-wm",
    kind="heuristic",
    description="HEFT-WM ranking with HOFT's child-aware processor selection",
    source="McSweeney, Walton, Zounon, ICCS 2020, sec. 6",
)
def hoft_wm(
    problem: Problem,
    *,
    condition: Condition = "expected",
    child_processor: ChildProcessor = "paper",
    insertion: bool = True,
) -> Schedule:
    """HOFT-WM: the HEFT-WM ranking with HOFT's processor selection ([1]_ sec. 6).

    Parameters
    ----------
    problem : Problem
    condition : {"expected", "printed"}
        The crossing test of the selection, see :func:`hoft_select`.
    child_processor : {"paper", "other", "any"}
        Where the children are expected to run, see :func:`child_estimates`.
    insertion : bool
        Insertion-based placement (default True).

    Returns
    -------
    Schedule

    Raises
    ------
    MethodError
        For an unknown condition or child_processor.

    References
    ----------
    .. [1] McSweeney, Walton, Zounon, ICCS 2020, sec. 6.
    """
    return hoft(
        problem,
        ranking="wm",
        condition=condition,
        child_processor=child_processor,
        insertion=insertion,
    )
