"""Tables shared by the optimistic heuristics: the min-plus sweep behind OFT and OCT.

``min_plus_sweep`` computes, level by level and in memory-bounded batches of
``(arcs, P, P)`` broadcasts, the dynamic programme that both the optimistic
finish time table (HOFT, McSweeney's report sec. 4.1, the ``optimistic``
ranking) and the optimistic cost table (PEFT) are instances of. One kernel,
so the three users cannot drift apart.
"""

from __future__ import annotations

import math

import numpy as np

from exactsched.problem import Problem

__all__ = [
    "batch_size",
    "min_plus_sweep",
    "optimistic_finish_time",
    "round_significant",
    "tie_argmin",
    "tie_value",
    "tie_values",
    "tie_with",
]

# Upper bound on the elements of one (arcs x P x P) batch of the min-plus kernel.
_BATCH_ELEMENTS = 1 << 22


def batch_size(n_procs: int) -> int:
    """Arcs per batch, so that one ``(arcs, P, P)`` broadcast stays small."""
    return max(1, _BATCH_ELEMENTS // (n_procs * n_procs))


def round_significant(values: np.ndarray, digits: int = 12) -> np.ndarray:
    """Round away float noise: each value to 12 significant digits of its own.

    Sums taken in different orders differ in the last bits (79.99999999999999
    against 80.0 on Topcuoglu's DAG); rounding makes equal values compare equal,
    so the documented tie rule (lowest index first) decides, not the noise.
    Each value keeps its own digits: rounded at the scale of the largest value,
    ranks of 1e-7 and 3e-7 beside one of 1e6 both became 0 (an outside audit).
    """
    out = np.array(values, dtype=float, copy=True)
    # Magnitudes where 10**k stays finite; zeros, infinities and 1e-300s as they are.
    ok = np.isfinite(out) & (np.abs(out) > 1e-280) & (np.abs(out) < 1e280)
    if ok.any():
        places = digits - 1 - np.floor(np.log10(np.abs(out[ok])))
        scale = 10.0**places
        out[ok] = np.round(out[ok] * scale) / scale
    return out


def tie_values(problem: Problem, values: np.ndarray) -> np.ndarray:
    """``values`` a heuristic compares (sums of times, means, priorities), made so that
    values equal in exact arithmetic compare equal, and never reordered.

    On decimal data a float sum carries noise: ``0.06 + 0.01 < 0.07``, and the
    same instance scaled by 10 broke its tie the other way (an outside audit,
    session 17: 15 heuristics were not scale invariant). The grid is the data's
    decimal grid (:func:`exactsched._time_grid.time_resolution`), or the
    integers. A value within float noise (:data:`NOISE_ULPS` ulps, at most a
    quarter step) of a grid point is that grid point. Any other value, a mean, is rounded to 14
    significant digits (steps of about 450 ulps, ties of noisy equal means) where
    that step is finer than a quarter grid step; above (means near ``1e15``) it
    is compared as it is. So no value moves by more than its noise or half a
    14-digit step: distinct values tie only when they agree to 14 digits (an
    outside review found 12 digits and a ``1e-9`` tolerance merging values that
    differ, and PEFT, LMT and others taking the worse choice).

    Examples
    --------
    >>> p = Problem.from_lists([[0.05, 0.06]])
    >>> tie_values(p, np.array([0.05 + 0.02, 0.06 + 0.01, 1 / 3])).tolist()
    [0.07, 0.07, 0.33333333333333]
    >>> q = Problem.from_lists([[1, 2]])
    >>> tie_values(q, np.array([2**52 + 1.0, 13 / 6, 1e13 + 4.5, 1e6 + 9e-4])).tolist()
    [4503599627370497.0, 2.1666666666667, 10000000000004.5, 1000000.0009]
    """
    from exactsched._time_grid import time_resolution

    return tie_with(time_resolution(problem), values)


#: Float noise a compared sum may carry, in ulps of itself (sums of many terms).
NOISE_ULPS = 1024
#: Significant digits a value off the grid (a mean) is compared to.
TIE_DIGITS = 14


def tie_with(resolution: float | None, values: np.ndarray) -> np.ndarray:
    """:func:`tie_values` on the grid of ``resolution`` units per time unit (None:
    the integers)."""
    v = np.asarray(values, dtype=float)
    r = 1.0 if resolution is None else float(resolution)
    finite = np.isfinite(v)
    if not finite.all():
        out = v.copy()
        out[finite] = tie_with(resolution, v[finite])
        return out
    magnitude = np.abs(v)
    grid = np.rint(v * r) / r
    # Noise, but never as much as a quarter step (ulps of 1e13 are 0.002: 1024 are 2).
    near = np.abs(v - grid) <= np.minimum(NOISE_ULPS * np.spacing(magnitude), 0.25 / r)
    if near.all():
        return grid
    fine = magnitude * 10.0 ** (1 - TIE_DIGITS) < 0.25 / r  # the rounding step: finer
    rounded = np.where(fine, round_significant(v, TIE_DIGITS), v)
    return np.where(near, grid, rounded)


def tie_argmin(resolution: float | None, values: np.ndarray) -> int:
    """``argmin`` of :func:`tie_with` (the first least value), computed on the raw
    values when no other lies within the largest move of the least (the common
    case: no array is built; PEFT and HOFT ask it per task)."""
    k = int(np.argmin(values))
    least = float(values[k])
    if math.isfinite(least):
        # A value moves by at most half a TIE_DIGITS step or its noise: twice that.
        slack = 1e-13 * abs(least) + 2 * NOISE_ULPS * math.ulp(least)
        if np.count_nonzero(values <= least + slack) == 1:
            return k
    return int(np.argmin(tie_with(resolution, values)))


def tie_value(resolution: float | None, x: float) -> float:
    """:func:`tie_values` of one number (``resolution`` of the problem's time grid).

    >>> tie_value(100.0, 0.06 + 0.01), tie_value(None, 13 / 6), tie_value(None, 7.0)
    (0.07, 2.1666666666667, 7.0)
    >>> tie_value(None, 1e13 + 4.5), tie_value(100.0, 1e10 + 0.025)
    (10000000000004.5, 10000000000.025)
    """
    if x.is_integer() and resolution is None or not math.isfinite(x):
        return x  # (an integer on the integers: the common case, answered first)
    r = 1.0 if resolution is None else resolution
    grid = round(x * r) / r
    if abs(x - grid) <= min(NOISE_ULPS * math.ulp(x), 0.25 / r):
        return grid
    if abs(x) * 10.0 ** (1 - TIE_DIGITS) < 0.25 / r:
        return float(f"{x:.{TIE_DIGITS}g}")
    return x


def _levels(problem: Problem, forward: bool) -> list[np.ndarray]:
    """Tasks grouped by depth (``forward``) or height, level 0 first, indices sorted.

    Level 0 holds the tasks without predecessors (forward) or successors; every
    neighbour of a task on the sweep side lies in a lower level.
    """
    n = problem.n_tasks
    if forward:
        ptr, nb, order = (
            problem.pred_ptr,
            problem.arc_src[problem.pred_arcs],
            problem.topological_order,
        )
    else:
        ptr, nb = problem.succ_ptr, problem.arc_dst[problem.succ_arcs]
        order = problem.topological_order[::-1]
    ptr_l, nb_l = ptr.tolist(), nb.tolist()
    level = [0] * n
    for x in order.tolist():
        lo, hi = ptr_l[x], ptr_l[x + 1]
        if hi > lo:
            level[x] = 1 + max(level[y] for y in nb_l[lo:hi])
    lev = np.asarray(level, dtype=np.int64)
    by_level = np.argsort(lev, kind="stable")
    bounds = np.searchsorted(lev[by_level], np.arange(1, int(lev.max(initial=0)) + 1))
    return np.split(by_level, bounds)


def min_plus_sweep(
    problem: Problem,
    base: np.ndarray,
    extra: np.ndarray,
    *,
    forward: bool,
    unit: np.ndarray | None = None,
    hops: np.ndarray | None = None,
) -> np.ndarray:
    """The dynamic programme shared by the OFT and OCT tables.

    ``T[x, p] = base[x, p] + max_{a} min_q (C[y_a, q] + unit[a] * H[p, q])`` over
    the arcs ``a`` into ``x`` (``forward``, ``y_a`` the parent, ``H = hops.T`` so
    that the delay runs from ``q`` to ``p``) or out of ``x`` (backward, ``y_a``
    the child, ``H = hops``), where ``C = T + extra`` and tasks without such arcs
    keep ``T = base``. One batch of arcs is an ``(arcs, P, P)`` broadcast.
    """
    unit = problem.arc_unit.astype(float) if unit is None else np.asarray(unit, dtype=float)
    hops = problem.hops.astype(float) if hops is None else np.asarray(hops, dtype=float)
    if forward:
        ptr, arcs, other, mat = problem.pred_ptr, problem.pred_arcs, problem.arc_src, hops.T
    else:
        ptr, arcs, other, mat = problem.succ_ptr, problem.succ_arcs, problem.arc_dst, hops
    n_procs = problem.n_processors
    table = np.array(base, dtype=float)
    carry = table + extra
    deg = np.diff(ptr)
    for tasks in _levels(problem, forward)[1:]:
        counts = deg[tasks]
        total = int(counts.sum())
        # The arcs of the level's tasks, each task's arcs contiguous in CSR order.
        first = np.repeat(ptr[tasks] - np.cumsum(counts) + counts, counts)
        level_arcs = arcs[first + np.arange(total)]
        owner = np.repeat(np.arange(len(tasks)), counts)
        worst = np.full((len(tasks), n_procs), -np.inf)
        step = batch_size(n_procs)
        for lo in range(0, total, step):
            a = level_arcs[lo : lo + step]
            vals = (carry[other[a]][:, None, :] + unit[a][:, None, None] * mat[None]).min(axis=2)
            np.maximum.at(worst, owner[lo : lo + step], vals)
        table[tasks] = tie_values(problem, table[tasks] + worst)
        carry[tasks] = tie_values(problem, table[tasks] + extra[tasks])
    return table


def optimistic_finish_time(problem: Problem) -> np.ndarray:
    """The optimistic finish time table ``OFT(t, p)`` of HOFT.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    numpy.ndarray
        ``(n, P)``: the earliest finish of each task on each processor when
        every other task runs wherever is best and nothing contends (eq. (8)
        of [1]_ per processor); ``inf`` outside a task's affinity.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 1], [3, 6], [1, 1]], [(0, 1, 4), (1, 2, 2)])
    >>> optimistic_finish_time(p).tolist()
    [[2.0, 1.0], [5.0, 7.0], [6.0, 8.0]]

    Notes
    -----
    Row ``t1``: on ``p0`` the parent finishes at 2 there or at ``1 + 4`` on
    ``p1``, so 2, plus cost 3 gives 5; on ``p1``, ``min(2 + 4, 1) + 6 = 7``.
    ``O(e * P^2)`` time; arcs are processed level by level in batches.

    References
    ----------
    .. [1] McSweeney, Walton, Zounon, ICCS 2020, eq. (8); McSweeney, PhD
       continuation report 2019, sec. 4.1.
    """
    zero = np.zeros_like(problem.cost, dtype=float)
    return min_plus_sweep(problem, problem.cost, zero, forward=True)
