"""Upward and downward ranks of list-scheduling heuristics over weighted DAGs.

Every listing heuristic orders tasks by a rank computed on an *approximate DAG*:
each task gets one node weight (an estimate of its execution time) and each
precedence arc one arc weight (an estimate of its communication delay). A
*weighting* names how those estimates are taken from the heterogeneous costs
and the network; :data:`WEIGHTINGS` lists them. The arcs are the problem's
arcs: data edges and order pairs; an order pair moves no data, so its weight is
0 in every weighting.

Contract
--------
``weights(problem, weighting) -> (node_w, arc_w)`` with shapes ``(n,)`` and
``(n_arcs,)``; ``upward_rank`` and ``downward_rank`` are rank_u and rank_d of
Topcuoglu et al. [1]_ (eqs. (4) and (5)) over those weights;
``ranks_from_weights`` computes either rank from any weights, and
``mean_comm`` is HEFT's mean communication cost of every arc.

References
----------
.. [1] H. Topcuoglu, S. Hariri, M.-Y. Wu, "Performance-effective and
   low-complexity task scheduling for heterogeneous computing", IEEE TPDS
   13(3), 260-274, 2002. doi:10.1109/71.993206
"""

from __future__ import annotations

import numpy as np

from exactsched.errors import MethodError
from exactsched.problem import Problem

__all__ = [
    "WEIGHTINGS",
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
    The pairs run over *all* distinct processors, not only those in the
    affinity of the arc's endpoints: this is the definition of the HOFT paper
    [2]_ (mean of ``comm`` over ordered pairs of distinct processors). On a
    uniform network it equals Topcuoglu's ``L + data / B`` [1]_; it stays
    defined when some pairs cost nothing, e.g. two CPU cores of an
    ``accelerated-node`` platform (those pairs count, with delay 0).

    References
    ----------
    .. [1] Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002, sec. 4.1.
    .. [2] McSweeney, Hobbs, Kosmidis, "HOFT: a heterogeneous optimistic
       finish time heuristic", ICCS 2020 (definition of mean communication).
    """
    return np.asarray(problem.arc_unit, dtype=float) * _mean_hops(problem)


def _mean_node(problem: Problem) -> np.ndarray:
    return problem.mean_cost()


def _mean(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """HEFT's default: mean cost over allowed processors, :func:`mean_comm` on arcs."""
    return _mean_node(problem), mean_comm(problem)


_WEIGHTINGS = {
    "mean": _mean,
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
    return np.array(rank, dtype=float)


def upward_rank(problem: Problem, weighting: str = "mean") -> np.ndarray:
    """Upward rank ``rank_u`` (eq. (4) of [1]_) under a named weighting.

    Parameters
    ----------
    problem : Problem
    weighting : str
        One of :data:`WEIGHTINGS` (default ``"mean"``, HEFT's).

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
    return ranks_from_weights(problem, node_w, arc_w, "upward")


def downward_rank(problem: Problem, weighting: str = "mean") -> np.ndarray:
    """Downward rank ``rank_d`` (eq. (5) of [1]_) under a named weighting.

    Parameters
    ----------
    problem : Problem
    weighting : str
        One of :data:`WEIGHTINGS` (default ``"mean"``).

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
    return ranks_from_weights(problem, node_w, arc_w, "downward")
