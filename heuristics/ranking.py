"""Upward and downward ranks of list-scheduling heuristics over weighted DAGs.

Every listing heuristic orders tasks by a rank computed on an *approximate DAG*:
each task gets one node weight (an estimate of its execution time) and each
precedence arc one arc weight (an estimate of its communication delay). A
*weighting* names how those estimates are taken from the heterogeneous costs
and the network; :data:`WEIGHTINGS` lists them. The arcs are the problem's
arcs, data edges and order pairs; an order pair moves no data
(``arc_unit == 0``), so its weight is 0 in every weighting.

Contract
--------
``weights(problem, weighting) -> (node_w, arc_w)`` with shapes ``(n,)`` and
``(n_arcs,)``; ``upward_rank`` and ``downward_rank`` are rank_u and rank_d of
[T02]_ (eqs. (4) and (5)) over those weights; ``ranks_from_weights`` computes
either rank from any weights; ``mean_comm`` is HEFT's mean communication cost
of every arc; ``optimistic_finish_time`` is the OFT table of [McS]_ sec. 4.1.

Weightings on our model
-----------------------
Costs ``w(t, p)`` are per processor, ``inf`` outside a task's affinity; every
node weight below looks only at the *allowed* processors. The delay of arc
``a`` between processors ``p != q`` is ``arc_unit[a] * hops[p, q]`` (multi-hop
networks, ``matrix`` hops, and zero hops between the CPUs of an
``accelerated-node`` are all covered). Weightings defined in their papers for
two processor types (CPU, GPU) are generalised by treating every processor on
its own; on a CPU-GPU platform, where all processors of a type cost the same,
this gives the papers' values.

================  ===========================  =========================================
name              node weight                  arc weight (times ``arc_unit``)
================  ===========================  =========================================
``mean``          mean allowed cost [T02]_     mean hops over distinct ordered pairs
``median``        median allowed cost [ZS03]_  median hops over distinct ordered pairs
``best``          least cost [ZS03]_           least hops between fastest processors
``worst``         largest cost [ZS03]_         largest hops, distinct slowest processors
``simple-best``   least cost [ZS03]_           least hops, distinct allowed processors
``simple-worst``  largest cost [ZS03]_         largest hops, distinct allowed processors
``optimistic``    cost on ideal proc. [McS]_   hops between the ideal processors
``speedup``       slowest / fastest [SFB13]_   0
``diff``          slowest - fastest [SFB13]_   0
``nc``            diff / speedup [SFB13]_      0
``wm``            speed-weighted mean [HOFT]_  expected hops, speed-weighted placements
================  ===========================  =========================================

References
----------
.. [T02] H. Topcuoglu, S. Hariri, M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS
   13(3), 260-274, 2002. doi:10.1109/71.993206
.. [ZS03] H. Zhao, R. Sakellariou, "An experimental investigation into the rank
   function of the heterogeneous earliest finish time scheduling algorithm",
   Euro-Par 2003, LNCS 2790, 189-194.
.. [SFB13] K. R. Shetti, S. A. Fahmy, T. Bretschneider, "Optimization of the
   HEFT algorithm for a CPU-GPU environment", PDCAT 2013, 212-218.
.. [HOFT] T. McSweeney, N. Walton, M. Zounon, "An efficient new static
   scheduling heuristic for accelerated architectures", ICCS 2020, LNCS 12137,
   3-16. doi:10.1007/978-3-030-50371-0_1
.. [McS] T. McSweeney, "Scheduling with precedence constraints in
   high-performance computing", PhD continuation report, University of
   Manchester, 2019, secs. 2.3.2, 2.3.4, 4.1, 4.2.2 and 4.4.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np

from exactsched._time_grid import snap, time_resolution
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import OneOf
from heuristics._tables import min_plus_sweep, round_significant

__all__ = [
    "WEIGHTINGS",
    "Weighting",
    "optimistic_finish_time",
    "mean_comm",
    "weights",
    "upward_rank",
    "downward_rank",
    "ranks_from_weights",
]

WEIGHTINGS: tuple[str, ...] = (
    "mean",
    "median",
    "best",
    "worst",
    "simple-best",
    "simple-worst",
    "optimistic",
    "speedup",
    "diff",
    "nc",
    "wm",
)

Weighting = Annotated[str, OneOf(WEIGHTINGS)]
"""Annotation of a ``ranking`` option: one of :data:`WEIGHTINGS` (see
:class:`exactsched.registry.OneOf`)."""


def _mean_hops(problem: Problem) -> float:
    """Mean of ``hops[p, q]`` over ordered pairs of distinct processors (0 if P == 1)."""
    n_procs = problem.n_processors
    if n_procs < 2:
        return 0.0
    # The diagonal of hops is zero, so the full sum is the sum over p != q.
    return float(problem.hops.sum()) / (n_procs * (n_procs - 1))


def mean_comm(problem: Problem) -> np.ndarray:
    """HEFT's mean communication cost of every arc.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    numpy.ndarray
        ``(n_arcs,)``: the mean of ``comm(a, p, q) = arc_unit[a] * hops[p, q]``
        over all ordered pairs ``(p, q)`` of distinct processors; 0 when there is
        one processor, and 0 for order pairs.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1], [(0, 1, 6)], n_processors=3)
    >>> mean_comm(p).tolist()
    [6.0]

    Notes
    -----
    The pairs run over *all* ordered pairs of distinct processors, not only
    those in the affinity of the arc's endpoints (a deliberate choice: it is
    the definition the project follows, and it keeps the weight a property of
    the arc and the network alone). This is the sum of eq. (2) of the HOFT
    paper [2]_, ``sum_{k, l} A_kl c(k, l)`` with ``A_CC = P_C (P_C - 1)``,
    ``A_CG = P_C P_G``, ``A_GG = P_G (P_G - 1)``, divided by the number of those
    pairs, ``P (P - 1)``. [2]_ itself (and its simulator) divides by ``P ** 2``,
    which also counts the ``P`` same-processor pairs of delay 0; the project
    keeps Topcuoglu's mean over distinct pairs, the definition of HEFT [1]_: on
    a uniform network it equals ``L + data / B`` and reproduces the ranks [1]_
    lists for its Fig. 2 sample DAG. (On 60 random DAGs on 7 CPU cores + 1 GPU
    the two means changed one HEFT makespan.) It stays defined when some
    pairs cost nothing, e.g. two CPU cores of an ``accelerated-node`` platform
    (those pairs count, with delay 0).

    On a multi-hop network this is the mean *delay* of the arc, ``arc_unit``
    times the mean hop count. HEFT's ``L + data / B`` with a mean link
    bandwidth ``B`` read as a mean transfer *rate* over paths (a path of ``h``
    hops moving data at ``B / h``) would use the harmonic mean of the hops
    instead (a 1 x 3 mesh, data 6: 8.0 here, 7.2 that way); the two agree on
    a uniform network, and the choice changes task order, never validity.

    References
    ----------
    .. [1] Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002, sec. 4.1.
    .. [2] McSweeney, Walton, Zounon, "An efficient new static scheduling
       heuristic for accelerated architectures", ICCS 2020, sec. 4, eq. (2).
    """
    return np.asarray(problem.arc_unit, dtype=float) * _mean_hops(problem)


def _safe(values: np.ndarray) -> np.ndarray:
    """Replace the +-inf of empty reductions by 0 (no pair: nothing to send)."""
    return np.where(np.isfinite(values), values, 0.0)


def _unique_rows(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a boolean matrix and the row of each (bit-packed: fast)."""
    packed = np.ascontiguousarray(np.packbits(mask, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return mask[first], np.asarray(inverse).ravel()


def _pair_extreme(problem: Problem, mask: np.ndarray, kind: str, *, distinct: bool) -> np.ndarray:
    """Per arc: min or max of ``hops[p, q]`` over ``p`` in ``mask[src]``, ``q`` in ``mask[dst]``.

    ``distinct`` leaves out ``p == q``. An arc without any such pair gets 0.
    Cost ``O(K P^2 + e P)`` with ``K`` the number of distinct mask rows.
    """
    n_procs = problem.n_processors
    is_min = kind == "min"
    empty = np.inf if is_min else -np.inf
    reduce = np.min if is_min else np.max
    hops = np.array(problem.hops, dtype=float)
    if distinct:
        np.fill_diagonal(hops, empty)
    rows, inverse = _unique_rows(mask)
    # best[r, q]: extreme of hops[p, q] over p in rows[r] (chunked to bound memory).
    best = np.empty((len(rows), n_procs))
    chunk = max(1, 4_000_000 // max(1, n_procs * n_procs))
    for lo in range(0, len(rows), chunk):
        block = rows[lo : lo + chunk]
        best[lo : lo + chunk] = reduce(np.where(block[:, :, None], hops[None], empty), axis=1)
    src, dst = problem.arc_src, problem.arc_dst
    per_arc = reduce(np.where(mask[dst], best[inverse[src]], empty), axis=1, initial=empty)
    return _safe(per_arc)


def _extreme_mask(problem: Problem, kind: str) -> np.ndarray:
    """``(n, P)`` mask of the allowed processors where each task is fastest/slowest."""
    cost = problem.cost
    if kind == "min":
        target = cost.min(axis=1)
    else:
        target = np.where(problem.allowed, cost, -np.inf).max(axis=1)
    return problem.allowed & (cost == target[:, None])


def _mean(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """HEFT's default weighting [T02]_ (eqs. (1) and (2) of [HOFT]_).

    Node: mean cost over the task's *allowed* processors (affinity; every
    processor, of whatever type, counts once). Arc: :func:`mean_comm`, the mean
    delay over all ordered pairs of distinct processors, multi-hop distances
    and zero-hop pairs (CPUs of an accelerated node) included.
    """
    return problem.mean_cost(), mean_comm(problem)


def _median(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Zhao and Sakellariou's *median* [ZS03]_ (report sec. 2.3.2 [McS]_).

    Node: median cost over the allowed processors (mean of the two middle values
    for an even count). Arc: ``arc_unit`` times the median of ``hops[p, q]`` over
    all ordered pairs of distinct processors, the same pairs as ``"mean"``.
    """
    node = np.nanmedian(np.where(problem.allowed, problem.cost, np.nan), axis=1)
    n_procs = problem.n_processors
    if n_procs < 2:
        return node, np.zeros(problem.n_edges)
    median_hops = float(np.median(problem.hops[~np.eye(n_procs, dtype=bool)]))
    return node, np.asarray(problem.arc_unit, dtype=float) * median_hops


def _best(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Zhao and Sakellariou's *best* [ZS03]_ (report sec. 2.3.2, 4.2.2 [McS]_).

    Node: least cost over the allowed processors. Arc ``i -> j``: the delay
    implied by that choice, ``arc_unit * min hops[p, q]`` over ``p`` among the
    fastest processors of ``i`` and ``q`` among those of ``j``; 0 when both can
    be fastest on one processor (they would share it, the optimistic reading).
    """
    mask = _extreme_mask(problem, "min")
    arc = problem.arc_unit * _pair_extreme(problem, mask, "min", distinct=False)
    return problem.min_cost(), arc


def _worst(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Zhao and Sakellariou's *worst* [ZS03]_ (report sec. 2.3.2, 4.2.2 [McS]_).

    Node: largest cost over the allowed processors. Arc ``i -> j``:
    ``arc_unit * max hops[p, q]`` over *distinct* ``p`` among the slowest
    processors of ``i`` and ``q`` among those of ``j`` (the pessimistic reading:
    two tasks on the same kind of processor are on different ones); 0 when the
    only choice is one shared processor.
    """
    mask = _extreme_mask(problem, "max")
    node = np.where(problem.allowed, problem.cost, -np.inf).max(axis=1)
    arc = problem.arc_unit * _pair_extreme(problem, mask, "max", distinct=True)
    return node, arc


def _simple_best(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Zhao and Sakellariou's *simple best* [ZS03]_ (report sec. 2.3.2 [McS]_).

    Node: least cost, as ``"best"``. Arc: the least delay of the arc between two
    *distinct* processors, ``p`` allowed for ``i`` and ``q`` allowed for ``j``,
    chosen independently of the node weights (that is the difference from
    ``"best"``); 0 when no such pair exists. Since it never lets the two tasks
    share a processor, this "best" reading can weigh an arc more than
    ``"best"`` does (three identical processors: ``best`` 0, ``simple-best``
    one hop).
    """
    arc = problem.arc_unit * _pair_extreme(problem, problem.allowed, "min", distinct=True)
    return problem.min_cost(), arc


def _simple_worst(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Zhao and Sakellariou's *simple worst* [ZS03]_ (report sec. 2.3.2 [McS]_).

    Node: largest cost, as ``"worst"``. Arc: the largest delay of the arc
    between two distinct allowed processors (max ``hops`` on the allowed pairs),
    independent of the node weights; 0 when no such pair exists.
    """
    node = np.where(problem.allowed, problem.cost, -np.inf).max(axis=1)
    arc = problem.arc_unit * _pair_extreme(problem, problem.allowed, "max", distinct=True)
    return node, arc


def optimistic_finish_time(problem: Problem) -> np.ndarray:
    """The optimistic finish time table ``OFT`` (report sec. 4.1 [1]_).

    ``OFT(t, p) = w(t, p) + max over arcs s -> t of
    min over p' of (OFT(s, p') + comm(s, t, p', p))``, i.e. the earliest ``t``
    can finish on ``p`` with unlimited processors of every kind and no
    contention; ``inf`` where ``t`` may not run.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    numpy.ndarray
        ``(n, P)`` table.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [3, 1]], [(0, 1, 9)])
    >>> optimistic_finish_time(p).tolist()
    [[2.0, 4.0], [5.0, 5.0]]

    References
    ----------
    .. [1] T. McSweeney, PhD continuation report, University of Manchester,
       2019, sec. 4.1 (with ``OFT(s, p')`` where the report prints ``w(s, p')``).
    """
    zero = np.zeros_like(problem.cost, dtype=float)
    return min_plus_sweep(problem, problem.cost, zero, forward=True)


def _optimistic(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """McSweeney's *optimistic* weighting (report sec. 4.2.2 [McS]_).

    Each task's ideal processor is where its :func:`optimistic_finish_time` is
    least (ties: lowest index), the processor it would run on with no
    contention. Node: the task's cost there. Arc ``i -> j``: its delay between
    the two ideal processors, ``arc_unit * hops[p_i, p_j]`` (0 if they
    coincide). Costs ``O(e P^2)``, unlike the other weightings.
    """
    ideal = optimistic_finish_time(problem).argmin(axis=1)
    node = problem.cost[np.arange(problem.n_tasks), ideal]
    arc = problem.arc_unit * problem.hops[ideal[problem.arc_src], ideal[problem.arc_dst]]
    return node, arc


def _slow_fast(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Cost on the slowest and on the fastest allowed processor of every task."""
    slow = np.where(problem.allowed, problem.cost, -np.inf).max(axis=1)
    return slow, problem.min_cost()


def _speedup(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Shetti, Fahmy and Bretschneider's *speedup* [SFB13]_ (report sec. 2.3.4 [McS]_).

    Node: ``w(t, p_s) / w(t, p_f)``, slowest over fastest allowed processor (1
    when both are 0). When only the fastest is 0 the ratio is the largest
    finite one of the instance (at least 1), as HOFT's ratio weights do: an
    ``inf`` weight would make every ancestor's rank ``inf`` and erase their
    order (and CPOP's critical path). Arcs: 0, the ranks ignore communication
    as in the paper.
    """
    slow, fast = _slow_fast(problem)
    with np.errstate(divide="ignore", invalid="ignore"):
        node = np.where(slow == fast, 1.0, slow / fast)
    finite = np.isfinite(node)
    node[~finite] = max(1.0, float(node[finite].max(initial=1.0)))
    return node, np.zeros(problem.n_edges)


def _diff(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Shetti, Fahmy and Bretschneider's *diff* [SFB13]_ (report sec. 2.3.4 [McS]_).

    Node: ``w(t, p_s) - w(t, p_f)``. Arcs: 0.
    """
    slow, fast = _slow_fast(problem)
    return slow - fast, np.zeros(problem.n_edges)


def _nc(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Shetti, Fahmy and Bretschneider's *NC* weight [SFB13]_ (report sec. 2.3.4, 4.4 [McS]_).

    Node: ``|w(t, p_s) - w(t, p_f)| / (w(t, p_s) / w(t, p_f))``, i.e. diff over
    speedup, which equals ``(w_s - w_f) w_f / w_s`` (0 when ``w_s`` is 0).
    Arcs: 0.
    """
    slow, fast = _slow_fast(problem)
    # The difference on the data's grid: 39000.0600001 - 0.0300001 loses digits in floats.
    diff = snap(slow - fast, time_resolution(problem))
    with np.errstate(divide="ignore", invalid="ignore"):
        # (w_s - w_f) * (w_f / w_s): the ratio first, so 1e300 costs do not overflow
        node = np.where(slow > 0, diff * (fast / slow), 0.0)
    return node, np.zeros(problem.n_edges)


def _placement_probabilities(problem: Problem) -> np.ndarray:
    """HEFT-WM's ``(n, P)`` chance of each task to run on each processor.

    Proportional to the processor's speed for the task, ``1 / w(t, p)``, over
    the allowed processors; a task with a zero cost goes to its zero-cost
    processors with equal chance (the limit of ``1 / w``).
    """
    cost, allowed = problem.cost, problem.allowed
    zero = allowed & (cost == 0)
    with np.errstate(divide="ignore"):
        speed = np.where(allowed, 1.0 / cost, 0.0)
    speed = np.where(zero.any(axis=1)[:, None], zero.astype(float), speed)
    return speed / speed.sum(axis=1, keepdims=True)


def _wm(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """HEFT-WM, the weighted mean of McSweeney et al. [HOFT]_, eqs. (6) and (7).

    The paper weights a CPU by 1 and a GPU by the task's acceleration ratio
    ``r_t = w_C(t) / w_G(t)``; normalised, the chance of running on processor
    ``p`` is proportional to ``1 / w(t, p)``, and that is how we generalise to
    any number of processors and types (0 outside the affinity).
    Node: ``sum_p pi_tp w(t, p)``, the harmonic mean of the allowed costs
    (0 if an allowed cost is 0). Arc ``i -> j``: the expected delay when ``i`` and ``j``
    are placed independently with these chances,
    ``arc_unit * sum_{p, q} pi_ip pi_jq hops[p, q]``. As in eq. (7), whose
    denominator ``(P_C + r_i P_G)(P_C + r_j P_G)`` sums over all pairs, the
    pairs ``p == q`` count with delay 0; so with identical costs everywhere the
    node weights equal ``"mean"``'s and the arc weights are ``(P - 1) / P``
    times ``"mean"``'s.
    """
    prob = _placement_probabilities(problem)
    node = np.where(prob > 0, prob * np.where(problem.allowed, problem.cost, 0.0), 0.0).sum(axis=1)
    spread = prob @ np.asarray(problem.hops, dtype=float)  # (n, P): expected hops to each q
    expected_hops = np.einsum("ap,ap->a", spread[problem.arc_src], prob[problem.arc_dst])
    return node, problem.arc_unit * expected_hops


_WEIGHTINGS = {
    "mean": _mean,
    "median": _median,
    "best": _best,
    "worst": _worst,
    "simple-best": _simple_best,
    "simple-worst": _simple_worst,
    "optimistic": _optimistic,
    "speedup": _speedup,
    "diff": _diff,
    "nc": _nc,
    "wm": _wm,
}


def weights(problem: Problem, weighting: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """Node and arc weights of the approximate DAG for a named weighting.

    Parameters
    ----------
    problem : Problem
    weighting : str
        One of :data:`WEIGHTINGS` (default ``"mean"``).

    Returns
    -------
    node_w : numpy.ndarray
        ``(n,)`` estimated execution time of every task.
    arc_w : numpy.ndarray
        ``(n_arcs,)`` estimated communication delay of every arc (0 for order pairs).

    Raises
    ------
    MethodError
        For an unknown weighting.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [6, 8]], [(0, 1, 3)])
    >>> node_w, arc_w = weights(p)
    >>> node_w.tolist(), arc_w.tolist()
    ([3.0, 7.0], [3.0])
    >>> weights(p, "best")[0].tolist()
    [2.0, 6.0]

    Notes
    -----
    The table in the module docstring summarises the weightings; the exact
    definition of each, with its source and its generalisation to our model
    (any number of processors and types, affinity, multi-hop networks), is the
    docstring of the private function ``_<name>`` of this module (``-``
    written ``_``), e.g. ``heuristics.ranking._wm``. Order pairs get weight 0
    in all of them. ``speedup`` is ``inf`` for a task whose fastest cost is 0
    and slowest positive; every other weight is finite and non-negative.
    """
    func = _WEIGHTINGS.get(weighting)
    if func is None:
        raise MethodError(
            f"ranking: unknown weighting {weighting!r}; known: {', '.join(_WEIGHTINGS)}"
        )
    node_w, arc_w = func(problem)
    return np.asarray(node_w, dtype=float), np.asarray(arc_w, dtype=float)


def ranks_from_weights(
    problem: Problem,
    node_w: np.ndarray,
    arc_w: np.ndarray,
    direction: str = "upward",
    *,
    snap: bool = True,
) -> np.ndarray:
    """Upward or downward ranks of the DAG of ``problem`` weighted by ``node_w``, ``arc_w``.

    Parameters
    ----------
    problem : Problem
        Supplies the arcs and a topological order.
    node_w : array_like
        ``(n,)`` node weights ``w_i``.
    arc_w : array_like
        ``(n_arcs,)`` arc weights ``c_ij``, indexed like ``problem.arc_src``.
    direction : {"upward", "downward"}
        ``"upward"``: ``rank_u(i) = w_i + max_{j in succ(i)} (c_ij + rank_u(j))``,
        ``w_i`` at exit tasks (eq. (4) of [1]_). ``"downward"``:
        ``rank_d(j) = max_{i in pred(j)} (rank_d(i) + w_i + c_ij)``, 0 at entry
        tasks (eq. (5) of [1]_).
    snap : bool
        Round away float noise (12 significant digits, :func:`_snap`), so that
        ranks equal in exact arithmetic tie; False gives the float sums, for a
        caller that adds ranks before comparing (CPOP: a sum of two rounded
        ranks is off by a unit of the 12th digit, enough to order two equal
        priorities by the rounding).

    Returns
    -------
    numpy.ndarray
        ``(n,)`` float ranks.

    Raises
    ------
    MethodError
        For an unknown direction or weights of the wrong shape.

    Examples
    --------
    >>> p = Problem.from_lists([1, 2, 3], [(0, 1, 4), (0, 2, 1)], n_processors=1)
    >>> ranks_from_weights(p, [1, 2, 3], [4, 1]).tolist()
    [7.0, 2.0, 3.0]
    >>> ranks_from_weights(p, [1, 2, 3], [4, 1], "downward").tolist()
    [0.0, 5.0, 2.0]

    Notes
    -----
    One pass over the arcs in (reverse) topological order: O(n + e).

    References
    ----------
    .. [1] Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002, sec. 4.1.
    """
    n = problem.n_tasks
    node = np.asarray(node_w, dtype=float)
    arc = np.asarray(arc_w, dtype=float)
    if node.shape != (n,):
        raise MethodError(f"ranking: node weights have shape {node.shape}, expected ({n},)")
    if arc.shape != (problem.n_edges,):
        raise MethodError(
            f"ranking: arc weights have shape {arc.shape}, expected ({problem.n_edges},)"
        )
    node_l = node.tolist()
    rank = [0.0] * n
    if direction == "upward":
        # Arcs grouped by source: rank_u(i) needs rank_u of every successor.
        ptr = problem.succ_ptr.tolist()
        other = problem.arc_dst[problem.succ_arcs].tolist()
        cost = arc[problem.succ_arcs].tolist()
        for i in problem.topological_order[::-1].tolist():
            best = 0.0
            for k in range(ptr[i], ptr[i + 1]):
                value = cost[k] + rank[other[k]]
                if value > best:
                    best = value
            rank[i] = node_l[i] + best
    elif direction == "downward":
        # Arcs grouped by destination: rank_d(j) needs rank_d of every predecessor.
        ptr = problem.pred_ptr.tolist()
        other = problem.arc_src[problem.pred_arcs].tolist()
        cost = arc[problem.pred_arcs].tolist()
        for j in problem.topological_order.tolist():
            best = 0.0
            for k in range(ptr[j], ptr[j + 1]):
                i = other[k]
                value = rank[i] + node_l[i] + cost[k]
                if value > best:
                    best = value
            rank[j] = best
    else:
        raise MethodError(f"ranking: direction must be 'upward' or 'downward', not {direction!r}")
    ranks = np.array(rank, dtype=float)
    return _snap(ranks) if snap else ranks


def _snap(values: np.ndarray) -> np.ndarray:
    """Ranks without float noise (:func:`heuristics._tables.round_significant`)."""
    return round_significant(values)


def upward_rank(problem: Problem, weighting: str = "mean", *, snap: bool = True) -> np.ndarray:
    """Upward rank ``rank_u`` (eq. (4) of [1]_) under a named weighting.

    Parameters
    ----------
    problem : Problem
    weighting : str
        One of :data:`WEIGHTINGS` (default ``"mean"``, HEFT's).
    snap : bool
        As in :func:`ranks_from_weights`.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` ranks; the length of the longest weighted path from each task
        to an exit task, the task's own weight included.

    Raises
    ------
    MethodError
        For an unknown weighting.

    Examples
    --------
    >>> from exactsched import load_instance
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> upward_rank(p).round(3).tolist()[:3]
    [108.0, 77.0, 80.0]

    References
    ----------
    .. [1] Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002, sec. 4.1.
    """
    node_w, arc_w = weights(problem, weighting)
    return ranks_from_weights(problem, node_w, arc_w, "upward", snap=snap)


def downward_rank(problem: Problem, weighting: str = "mean", *, snap: bool = True) -> np.ndarray:
    """Downward rank ``rank_d`` (eq. (5) of [1]_) under a named weighting.

    Parameters
    ----------
    problem : Problem
    weighting : str
        One of :data:`WEIGHTINGS` (default ``"mean"``).
    snap : bool
        As in :func:`ranks_from_weights`.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` ranks; the length of the longest weighted path from an entry
        task to each task, the task's own weight excluded.

    Raises
    ------
    MethodError
        For an unknown weighting.

    Examples
    --------
    >>> from exactsched import load_instance
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> downward_rank(p).round(3).tolist()[:3]
    [0.0, 31.0, 25.0]

    References
    ----------
    .. [1] Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002, sec. 4.1.
    """
    node_w, arc_w = weights(problem, weighting)
    return ranks_from_weights(problem, node_w, arc_w, "downward", snap=snap)
