"""Proven lower bounds on the optimal makespan.

Each bound relaxes the problem and so never exceeds the optimum; tests check
this against brute force on tiny instances. :func:`lower_bound` takes the best
of them and, when all data are integers (so some optimal schedule has integer
times), rounds it up.

A :class:`~exactsched.problem.Problem` is immutable, so :func:`lower_bounds`,
:func:`lower_bound` and :func:`optimistic_critical_path` are computed once per
problem and kept in it: :func:`exactsched.solve` attaches the bound to every
heuristic result without recomputing it.

References
----------
.. [1] T. McSweeney, "Scheduling with precedence constraints in high-performance
   computing", PhD continuation report, University of Manchester, 2019, sec. 4.1.
.. [2] J. Carlier and E. Pinson, "Jackson's pseudo-preemptive schedule for the
   Pm/ri,qi/Cmax scheduling problem", Annals of Operations Research 83, 1998
   (heads, tails and the work that must fall inside a time window).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from exactsched._path_load import path_load_bound as _path_load
from exactsched._path_load import path_load_seconds, path_load_within
from exactsched.problem import Problem, require_problem

__all__ = [
    "critical_path_bound",
    "optimistic_critical_path",
    "load_bound",
    "class_load_bound",
    "isolation_bound",
    "energetic_bound",
    "path_load_bound",
    "path_load_seconds",
    "precedence_load_bound",
    "spread_paths",
    "SPREAD_MAX_TASKS",
    "longest_paths",
    "longest_serial_time",
    "lower_bounds",
    "lower_bound",
    "lower_bound_within",
    "processor_classes",
]

# Above this many (arc x P x P) operations the optimistic critical path uses the
# cheapest off-diagonal hop instead of the full matrix (still a valid bound).
_OFT_DENSE_LIMIT = 50_000_000


def _cached(problem: Problem, key: str, compute: Callable[[Problem], Any]) -> Any:
    """``compute(problem)``, computed once per problem (kept in its private cache)."""
    cache = problem._cache
    if key not in cache:
        cache[key] = compute(problem)
    return cache[key]


def critical_path_bound(problem: Problem) -> float:
    """Longest path with each task at its least cost and no communication.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [3, 1], [5, 5]], [(0, 1, 9), (1, 2, 9)])
    >>> critical_path_bound(p)
    8.0
    """
    cost = problem.min_cost()
    finish = np.zeros(problem.n_tasks)
    for j in problem.topological_order.tolist():
        preds = problem.predecessors(j)
        finish[j] = cost[j] + (finish[preds].max() if len(preds) else 0.0)
    return float(finish.max())


def optimistic_critical_path(problem: Problem) -> float:
    """The optimistic-finish-time critical path of [1]_, sec. 4.1, with communication.

    ``OFT(t, p) = w(t, p) + max over predecessors s of
    min over p' of (OFT(s, p') + comm(s, t, p', p))`` and the bound is
    ``max over t of min over p of OFT(t, p)``. (The report prints ``w(s, p')``
    where the recursion needs ``OFT(s, p')``; this is the recursion.) Every
    schedule without contention is at least this long, so it is a lower bound.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [3, 1], [5, 5]], [(0, 1, 9), (1, 2, 9)])
    >>> optimistic_critical_path(p)
    10.0
    """
    return _cached(problem, "optimistic_critical_path", _optimistic_critical_path)


def _optimistic_critical_path(problem: Problem) -> float:
    n_procs = problem.n_processors
    oft = np.zeros((problem.n_tasks, n_procs))
    dense = len(problem.arc_src) * n_procs * n_procs <= _OFT_DENSE_LIMIT
    off = problem.hops[~np.eye(n_procs, dtype=bool)]
    min_hop = float(off.min()) if off.size else 0.0
    cost = problem.cost
    src, unit, hops = problem.arc_src, problem.arc_unit.astype(float), problem.hops
    ptr, pred_arcs = problem.pred_ptr, problem.pred_arcs
    for j in problem.topological_order.tolist():
        arcs = pred_arcs[ptr[j] : ptr[j + 1]]
        if len(arcs) == 0:
            oft[j] = cost[j]
            continue
        before = oft[src[arcs]]  # (k, P): all predecessors at once
        if dense:  # (k, P, P) -> the best sending processor for each receiving one
            arrival = (before[:, :, None] + unit[arcs, None, None] * hops).min(axis=1)
        else:
            arrival = np.minimum(before, before.min(axis=1, keepdims=True)
                                 + unit[arcs, None] * min_hop)  # fmt: skip
        oft[j] = cost[j] + arrival.max(axis=0)
    return float(oft.min(axis=1).max())


def load_bound(problem: Problem) -> float:
    """Total least work divided by the number of processors.

    Examples
    --------
    >>> load_bound(Problem.from_lists([[2, 4], [3, 1], [5, 5]]))
    4.0
    """
    return float(problem.min_cost().sum() / problem.n_processors)


def processor_classes(problem: Problem) -> list[np.ndarray]:
    """Groups of processors with identical cost columns (affinity included).

    Examples
    --------
    >>> [c.tolist() for c in processor_classes(Problem.from_lists([[1, 1, 2]]))]
    [[0, 1], [2]]
    """
    # Every bound asks for the classes: find them once per problem, hand out copies.
    return [c.copy() for c in _cached(problem, "processor_classes", _processor_classes)]


def _processor_classes(problem: Problem) -> list[np.ndarray]:
    _, inverse = np.unique(problem.cost.T, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    firsts = sorted(set(inverse.tolist()), key=lambda g: int(np.flatnonzero(inverse == g)[0]))
    return [np.flatnonzero(inverse == g) for g in firsts]


def class_load_bound(problem: Problem, *, max_variables: int = 20_000) -> float:
    """Load bound where each task may split between processor classes (an LP).

    With ``m_g`` processors in class ``g`` and task ``i`` costing ``c_ig`` there,
    minimise ``T`` subject to ``sum_g x_ig = 1``, ``x_ig >= 0`` (0 where not
    allowed) and ``sum_i c_ig x_ig <= m_g T``. Any schedule gives a feasible
    point with ``T`` = its makespan, so the LP optimum is a lower bound. On
    CPU-GPU nodes it is far stronger than :func:`load_bound`.

    Up to ``max_variables`` the LP is solved (HiGHS, a few milliseconds) and the
    bound is its dual's value at HiGHS's prices (:func:`_class_load_dual_value`:
    a bound by weak duality, not the solver's word); beyond,
    the bound is the best value of its dual met by :func:`_dual_class_load`,
    which is valid at every step and costs ``O(n G)`` per step, so a heuristic
    run on a large instance does not wait on the LP (1 % below the LP optimum on
    2000 tasks and 16 classes, where the LP takes about 0.5 s).

    Examples
    --------
    >>> p = Problem.from_lists([[10, 1], [10, 1], [10, 1]])
    >>> round(class_load_bound(p), 6)   # 3 tasks; the fast processor takes ~2.7
    2.727273
    >>> round(class_load_bound(p, max_variables=0), 6)   # the dual ascent here
    2.727273
    """
    classes = processor_classes(problem)
    n, n_classes = problem.n_tasks, len(classes)
    if n_classes == 1:
        return load_bound(problem)
    cost = np.stack([problem.cost[:, c[0]] for c in classes], axis=1)  # (n, G)
    size = np.array([len(c) for c in classes], dtype=float)
    price = None if n * n_classes > max_variables else _class_load_prices(cost, size)
    if price is None:  # too large for the LP, or not solved
        value = _dual_class_load(cost, size)
    else:
        value = _class_load_dual_value(cost, size, price)
    return max(load_bound(problem), value * (1 - 1e-9))


def _class_load_prices(cost: np.ndarray, size: np.ndarray) -> np.ndarray | None:
    """HiGHS's dual prices of the class rows of the class-load LP, or None if unsolved.

    The LP is solved on costs scaled to a largest finite cost of 1: HiGHS's
    tolerances are absolute, so on data near 1e-9 its objective is no proof (an
    outside audit met one 1.5 % above the LP's own optimum). The prices are used
    only through :func:`_class_load_dual_value`, a bound whatever they are.
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    n, n_classes = cost.shape
    ok = np.isfinite(cost)
    top = float(cost[ok].max()) if ok.any() else 0.0
    if top <= 0:
        return None
    tasks, groups = np.nonzero(ok)
    n_vars = len(tasks) + 1  # x variables, then T
    objective = np.zeros(n_vars)
    objective[-1] = 1.0
    var = np.arange(len(tasks))
    a_eq = coo_matrix((np.ones(len(tasks)), (tasks, var)), shape=(n, n_vars))
    rows = np.concatenate([groups, np.arange(n_classes)])
    cols = np.concatenate([var, np.full(n_classes, n_vars - 1)])
    vals = np.concatenate([cost[tasks, groups] / top, -size])
    a_ub = coo_matrix((vals, (rows, cols)), shape=(n_classes, n_vars))
    result = linprog(
        objective,
        A_ub=a_ub.tocsr(),
        b_ub=np.zeros(n_classes),
        A_eq=a_eq.tocsr(),
        b_eq=np.ones(n),
        bounds=(0, None),
        method="highs",
    )
    if result.status != 0:
        return None
    return np.maximum(-np.asarray(result.ineqlin.marginals, dtype=float), 0.0)


def _class_load_dual_value(cost: np.ndarray, size: np.ndarray, price: np.ndarray) -> float:
    """``sum_i min_g c_ig y_g / sum_g m_g y_g``: a lower bound for any prices ``y >= 0``.

    It is the LP dual's objective at the feasible point ``y / sum_g m_g y_g`` (each
    task's dual value the least of its priced costs), so by weak duality every
    schedule is at least this long, however inexact ``y`` is. 0 when no price is
    positive.

    Examples
    --------
    >>> cost = np.array([[10.0, 1.0]] * 3)
    >>> round(_class_load_dual_value(cost, np.array([1.0, 1.0]), np.array([1.0, 10.0])), 6)
    2.727273
    """
    scale = float(size @ price)
    if scale <= 0:
        return 0.0
    allowed = np.isfinite(cost)
    least = np.where(allowed, np.where(allowed, cost, 0.0) * price, np.inf).min(axis=1)
    return float(least.sum() / scale)


def _dual_class_load(cost: np.ndarray, size: np.ndarray, steps: int = 400) -> float:
    """Best dual value of the class-load LP met by exponentiated-gradient ascent.

    For weights ``w`` on the simplex, ``sum_i min_g c_ig w_g / m_g`` is a dual
    feasible value of the LP of :func:`class_load_bound`, hence a lower bound on
    every makespan, whatever ``w``. The ascent starts from ``w_g = m_g / P``,
    where the value is :func:`load_bound`, and moves weight towards the classes
    whose share of the work per processor is largest.

    Examples
    --------
    >>> round(_dual_class_load(np.array([[10.0, 1.0]] * 3), np.array([1.0, 1.0])), 4)
    2.7273
    """
    n, n_groups = cost.shape
    rows = np.arange(n)
    weight = size / size.sum()
    best = 0.0
    for step in range(steps):
        scaled = cost * (weight / size)  # inf (not allowed) stays inf: weights are > 0
        pick = scaled.argmin(axis=1)
        best = max(best, float(scaled[rows, pick].sum()))
        share = np.bincount(pick, weights=cost[rows, pick], minlength=n_groups) / size
        if share.max() <= 0:  # all work is free: the bound is 0
            break
        weight = weight * np.exp(share / share.max() / np.sqrt(step + 1))
        weight /= weight.sum()
    return best


# Window ends per side of :func:`energetic_bound` (the distinct heads and tails, or
# that many quantiles of them): at most ENERGETIC_STEPS**2 windows, each O(n x classes),
# fewer so that windows x n x classes stays within ENERGETIC_CELLS per pass.
ENERGETIC_STEPS = 64
ENERGETIC_CELLS = 1_000_000


def longest_paths(
    problem: Problem, dur: np.ndarray, *, at_least: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Heads (longest path before a task) and tails (longest path after it) with ``dur``.

    No communication: the paths add the durations of the tasks on them only.
    ``at_least``: floors of each head and tail, propagated along the paths too.

    Examples
    --------
    >>> p = Problem.from_lists([1, 2, 3], [(0, 1, 0), (1, 2, 0)], n_processors=1)
    >>> [a.tolist() for a in longest_paths(p, np.array([1.0, 2.0, 3.0]))]
    [[0.0, 1.0, 3.0], [5.0, 3.0, 0.0]]
    """
    head = np.zeros(problem.n_tasks)
    tail = np.zeros(problem.n_tasks)
    if at_least is not None:
        head[:], tail[:] = at_least
    order = problem.topological_order.tolist()
    for j in order:
        preds = problem.predecessors(j)
        if len(preds):
            head[j] = max(head[j], (head[preds] + dur[preds]).max())
    for i in reversed(order):
        succs = problem.successors(i)
        if len(succs):
            tail[i] = max(tail[i], (tail[succs] + dur[succs]).max())
    return head, tail


#: Above this many tasks :func:`spread_paths` keeps to the longest paths (its sets of
#: ancestors and descendants take n^2 bits).
SPREAD_MAX_TASKS = 5000


def spread_paths(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Heads and tails of the least costs, raised by the work before and after each task.

    Every ancestor of ``j`` ends before ``j`` starts, so the ``P`` processors
    spend at least ``W_anc(j) / P`` on them first: ``head[j] = max(longest path,
    W_anc(j) / P)``, propagated along the arcs; ``tail[i]`` mirrors it with the
    descendants. ``W`` sums the least costs (delays only add). On integer data the
    optimum has integer starts, so each term is rounded up. Cached per problem;
    :func:`longest_paths` alone above :data:`SPREAD_MAX_TASKS` tasks.

    Examples
    --------
    >>> # Three tasks of 2 before a task of 1, on 2 processors: it starts at 3 or later.
    >>> p = Problem.from_lists([2, 2, 2, 1], [(0, 3), (1, 3), (2, 3)], n_processors=2)
    >>> [a.tolist() for a in spread_paths(p)]
    [[0.0, 0.0, 0.0, 3.0], [1.0, 1.0, 1.0, 0.0]]
    """
    return _cached(problem, "spread_paths", _spread_paths)


def _spread_paths(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    n, n_procs = problem.n_tasks, problem.n_processors
    dur = problem.min_cost()
    if n > SPREAD_MAX_TASKS or n == 0:
        return longest_paths(problem, dur)
    words = (n + 63) // 64
    bit = np.uint64(1) << (np.arange(n) % 64).astype(np.uint64)
    word = np.arange(n) // 64

    def closure(forward: bool) -> np.ndarray:
        """Row i: the set of tasks before i (forward) or after it, as bits."""
        sets = np.zeros((n, words), dtype=np.uint64)
        order = problem.topological_order.tolist()
        for j in order if forward else reversed(order):
            near = problem.predecessors(j) if forward else problem.successors(j)
            for i in near.tolist():
                sets[j] |= sets[i]
                sets[j, word[i]] |= bit[i]
        return sets

    def work(sets: np.ndarray) -> np.ndarray:
        members = np.unpackbits(sets.view(np.uint8), axis=1, bitorder="little")[:, :n]
        return members @ dur / n_procs

    before, after = work(closure(True)), work(closure(False))
    if problem.is_integral:  # an optimal schedule has integer starts
        before, after = np.ceil(before - 1e-6) + 0.0, np.ceil(after - 1e-6) + 0.0  # no -0.0
    return longest_paths(problem, dur, at_least=(before, after))


def precedence_load_bound(problem: Problem) -> float:
    """The longest chain of work through a task: before it, itself, after it.

    ``max_i head_i + c_i + tail_i`` with the heads and tails of
    :func:`spread_paths` (``c_i`` the least cost): the work of a task's
    ancestors spread over the processors, the task, then its descendants' work.
    It closes STG 100/rand0163 on 2 processors at 415 and rand0155 on 4 at 181,
    where the load and the critical path are far below.

    Examples
    --------
    >>> p = Problem.from_lists([2, 2, 2, 1, 2, 2], [(0, 3), (1, 3), (2, 3), (3, 4), (3, 5)],
    ...                        n_processors=2)
    >>> critical_path_bound(p), load_bound(p), precedence_load_bound(p)
    (5.0, 5.5, 6.0)
    """
    if problem.n_tasks == 0:
        return 0.0
    head, tail = spread_paths(problem)
    return float((head + problem.min_cost() + tail).max())


def energetic_bound(
    problem: Problem, *, start: float = 0.0, steps: int = ENERGETIC_STEPS
) -> float:
    """Work that must fall inside a time window, per processor class.

    Task ``i`` cannot start before its head ``r_i`` and must end ``q_i`` (its
    tail) before the makespan ``M`` (:func:`spread_paths`: the least-cost longest
    paths, raised by the work of its ancestors and descendants). So inside the window
    ``[t1, M - t2]`` it runs at least ``c_ig - max(0, t1 - r_i) - max(0, t2 -
    q_i)`` on whatever class ``g`` it is given, and class ``g`` offers
    ``m_g (M - t1 - t2)`` there. For weights ``w`` on the classes (any
    non-negative weights summing to 1), ``M >= t1 + t2 + sum_i min_g w_g
    rem_ig / m_g``, the dual of the class-load LP of :func:`class_load_bound`
    on the window. The argument needs a non-empty window, so only windows with
    ``t1 + t2`` at most a proven bound are used (``start``, then each better
    bound found, to a fixed point). Windows: the distinct heads times the distinct
    tails, or ``steps`` quantiles of each when there are more (fewer on large
    instances, see ``ENERGETIC_CELLS``); weights: ``m_g / P`` and the best of a short
    dual ascent on the whole problem. With one class and ``t1 = t2 = 0`` it is
    :func:`load_bound`; it also charges the idle time forced at the start and
    end of the schedule [2]_.

    Examples
    --------
    >>> # Task 0 (4) precedes three tasks (4, 4, 3) on 2 processors; optimum 11.
    >>> p = Problem.from_lists([4, 4, 4, 3], [(0, 1), (0, 2), (0, 3)], n_processors=2)
    >>> critical_path_bound(p), load_bound(p), round(energetic_bound(p, start=8.0), 6)
    (8.0, 7.5, 9.5)
    """
    classes = processor_classes(problem)
    cost = np.stack([problem.cost[:, c[0]] for c in classes], axis=1)  # (n, G)
    size = np.array([len(c) for c in classes], dtype=float)
    if problem.n_tasks == 0:
        return float(start)
    head, tail = spread_paths(problem)
    weights = [size / size.sum()]
    if len(classes) > 1:
        ascent = max(1, min(200, ENERGETIC_CELLS // (problem.n_tasks * len(classes))))
        weights.append(_best_dual_weights(cost, size, steps=ascent))
    scaled = [w / size for w in weights]
    steps = max(2, min(steps, int(math.sqrt(ENERGETIC_CELLS / (problem.n_tasks * len(classes))))))

    def ends(values: np.ndarray) -> np.ndarray:
        distinct = np.unique(values)
        if len(distinct) <= steps:
            return distinct
        return np.unique(np.quantile(values, np.linspace(0.0, 1.0, steps)))

    firsts, lasts = ends(head), ends(tail)
    late = np.maximum(0.0, lasts[:, None] - tail[None, :])[:, :, None]  # (t2, task, 1)
    best = float(start)
    while True:
        before = best
        for t1 in firsts:
            usable = t1 + lasts <= best  # the window [t1, M - t2] must be non-empty
            if not usable.any():
                continue
            early = np.maximum(0.0, t1 - head)[None, :, None]
            rem = np.maximum(0.0, cost[None, :, :] - early - late[usable])  # (t2, task, G)
            for w in scaled:
                inside = (rem * w).min(axis=2).sum(axis=1)
                best = max(best, float((t1 + lasts[usable] + inside).max()))
        if best <= before * (1 + 1e-12):
            break
    # Float sums: shave a hair off what the windows added.
    return float(start) if best <= start else max(float(start), best * (1 - 1e-12))


def _best_dual_weights(cost: np.ndarray, size: np.ndarray, steps: int = 200) -> np.ndarray:
    """The class weights of the best value met by the ascent of :func:`_dual_class_load`."""
    n, n_groups = cost.shape
    rows = np.arange(n)
    weight = size / size.sum()
    best, best_weight = -1.0, weight
    for step in range(steps):
        scaled = cost * (weight / size)
        pick = scaled.argmin(axis=1)
        value = float(scaled[rows, pick].sum())
        if value > best:
            best, best_weight = value, weight.copy()
        share = np.bincount(pick, weights=cost[rows, pick], minlength=n_groups) / size
        if share.max() <= 0:
            break
        weight = weight * np.exp(share / share.max() / np.sqrt(step + 1))
        weight /= weight.sum()
    return best_weight


def path_load_bound(problem: Problem) -> float:
    """Critical path and class load in one LP, each task split between processor classes.

    The LP of :func:`exactsched._path_load.path_load_bound`: start times, a
    fractional class per task, precedence with the split costs (and the least
    hop count into or out of a class), ends below ``M``, and each class's load
    below ``m_g M``. Its value is taken from the dual multipliers on the
    original data (weak duality), so it is valid whatever the LP solver's
    tolerances. 0 with a single class or on an LP too large to build quickly.

    Examples
    --------
    >>> # Chain of two tasks, 1 on the fast processor, 4 on the slow one: both
    >>> # cannot run fast in parallel, which the class load alone allows.
    >>> p = Problem.from_lists([[1, 4], [1, 4]], [(0, 1, 0)])
    >>> class_load_bound(p) < path_load_bound(p)
    True
    """
    return _path_load(problem, processor_classes(problem))


def isolation_bound(problem: Problem) -> float:
    """Largest ``least cost(a) + least cost(b)`` over isolation pairs (0 if none)."""
    if len(problem.iso_a) == 0:
        return 0.0
    cost = problem.min_cost()
    return float((cost[problem.iso_a] + cost[problem.iso_b]).max())


def lower_bounds(problem: Problem) -> dict[str, float]:
    """Every bound of this module by name.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    dict of str to float
        ``critical_path``, ``optimistic_critical_path``, ``load``, ``class_load``,
        ``path_load``, ``precedence_load``, ``energetic`` and ``isolation``: each a
        valid lower bound on the optimal makespan (computed once, cached in the
        problem).

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`Problem`.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [3, 1], [5, 5]], [(0, 1, 9), (1, 2, 9)])
    >>> sorted((k, round(v, 9)) for k, v in lower_bounds(p).items())
    ... # doctest: +NORMALIZE_WHITESPACE
    [('class_load', 4.0), ('critical_path', 8.0), ('energetic', 10.0), ('isolation', 0.0),
     ('load', 4.0), ('optimistic_critical_path', 10.0), ('path_load', 10.0),
     ('precedence_load', 8.0)]
    """
    problem = require_problem(problem, "lower_bounds")
    return dict(_cached(problem, "lower_bounds", _lower_bounds))


def _lower_bounds(problem: Problem) -> dict[str, float]:
    return _bounds_within(problem, None)[0]


def _bounds_within(problem: Problem, seconds: float | None) -> tuple[dict[str, float], bool]:
    """The bounds by name, the path-load LP stopped after ``seconds``; and whether it ran out."""
    path_load, complete = path_load_within(problem, processor_classes(problem), seconds)
    values = {
        "critical_path": critical_path_bound(problem),
        "optimistic_critical_path": optimistic_critical_path(problem),
        "load": load_bound(problem),
        "class_load": class_load_bound(problem),
        "isolation": isolation_bound(problem),
        "path_load": path_load,
        "precedence_load": precedence_load_bound(problem),
    }
    values = _less_noise(problem, values)
    # Its windows are only sound below a proven bound: start from the others. Each
    # value is taken down by its float noise once (here), never again.
    energetic = energetic_bound(problem, start=max(values.values()))
    values["energetic"] = _less_noise(problem, {"energetic": energetic})["energetic"]
    return values, complete


def _less_noise(problem: Problem, values: dict[str, float]) -> dict[str, float]:
    """``values`` less the float noise of their sums: each then stays a bound.

    Integer data: where their sums are rounded (:func:`_sums_exact`; an outside
    audit, session 14, saw the load bound K + 0.5 for an optimum of K). Decimal
    data on a time grid (:func:`exactsched._time_grid.time_resolution`): every
    optimum lies on the grid, so a bound is the least grid value at or above it,
    less its noise (``0.1 + 0.2`` is the bound 0.3, not 0.30000000000000004, which
    exceeds the optimum; an outside audit, session 16). Other data: the noise
    of ``4 n + 2`` roundings.

    Examples
    --------
    >>> p = Problem.from_lists([[0.1], [0.2]])
    >>> _less_noise(p, {"load": 0.1 + 0.2})
    {'load': 0.3}
    """
    k = 4 * problem.n_tasks + 2
    if problem.is_integral:
        if _sums_exact(problem):
            return values
        return {name: v - k * math.ulp(abs(v)) if v else v for name, v in values.items()}
    from exactsched._time_grid import time_resolution  # it imports this module

    grid = time_resolution(problem)
    out = {}
    for name, v in values.items():
        if not v or not math.isfinite(v):
            out[name] = v
        elif grid is not None:
            # k ulps of v are far below a step (the grid holds below 2**46 steps).
            steps = math.ceil(v * grid - max(1e-6, k * math.ulp(v * grid)))
            out[name] = steps / grid
        else:
            out[name] = v - k * math.ulp(abs(v))
    return out


def lower_bound(problem: Problem) -> float:
    """The best bound of :func:`lower_bounds`, rounded up on integer data.

    Parameters
    ----------
    problem : Problem

    Returns
    -------
    float or int
        The largest of :func:`lower_bounds`; an ``int`` on integer data, where every
        optimum is an integer.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`Problem`.

    Examples
    --------
    >>> lower_bound(Problem.from_lists([[10, 1], [10, 1], [10, 1]]))
    3
    """
    problem = require_problem(problem, "lower_bound")
    return _cached(problem, "lower_bound", _lower_bound)


def _lower_bound(problem: Problem) -> float:
    return _best(problem, max(lower_bounds(problem).values()), less_noise=False)


def _best(problem: Problem, best: float, *, less_noise: bool = True) -> float:
    """``best``, rounded up on integer data (less the float noise of its sums).

    The sums of integer data are exact floats while every time of a schedule stays
    below ``2**53``; beyond, a sum may be rounded up by units (an outside audit,
    session 14: costs near 2**52 on 4 processors gave the load bound K + 0.5 for an
    optimum of K, and the ceiling K + 1 was reported as a certified optimum), so
    the noise of ``4 n + 2`` roundings is taken off first.

    ``less_noise=False`` for a value of :func:`lower_bounds`, whose noise is
    taken off already.

    Examples
    --------
    >>> _best(Problem.from_lists([[3], [2]]), 5.0000000001)
    5
    >>> k = 4503599626370496
    >>> p = Problem.from_lists([[c] * 4 for c in (3, k - 6, k - 6, k, 2, 3, k, 2, 2)])
    >>> _best(p, k + 0.5) <= k
    True
    """
    if not problem.is_integral:
        return _less_noise(problem, {"best": best})["best"] if less_noise else best
    noise = 1e-6
    if less_noise and not _sums_exact(problem):
        noise = max(noise, (4 * problem.n_tasks + 2) * math.ulp(abs(best)))
    return int(math.ceil(best - noise))


def _sums_exact(problem: Problem) -> bool:
    """Whether every sum of a schedule's integer times is an exact float: the largest
    costs and the largest delays together stay below ``2**53``."""
    return longest_serial_time(problem) < 2.0**53


def longest_serial_time(problem: Problem) -> float:
    """Every task at its largest allowed cost plus every arc at its longest delay.

    No time of a semi-active schedule (every task as early as its order allows)
    exceeds it. Cached per problem.

    Examples
    --------
    >>> longest_serial_time(Problem.from_lists([[2, 3], [1, 4]], [(0, 1, 5)]))
    12.0
    """
    return _cached(problem, "longest_serial_time", _longest_serial_time)


def _longest_serial_time(problem: Problem) -> float:
    cost = np.where(problem.allowed, problem.cost, 0.0)
    total = float(cost.max(axis=1).sum()) if cost.size else 0.0
    if len(problem.arc_unit):  # arc_unit: latency + data / bandwidth per hop
        total += float((problem.arc_unit * float(problem.hops.max(initial=0.0))).sum())
    return total


def lower_bound_within(problem: Problem, seconds: float | None) -> tuple[float, bool]:
    """:func:`lower_bound` for a caller with ``seconds`` left (None: no limit).

    The LPs (class load: about 3e-5 s per task and processor class, 0.95 s on
    2000 tasks x 16 classes; path load:
    :func:`exactsched._path_load.path_load_seconds`; plus 0.6 s to import scipy
    the first time), the energetic windows and the optimistic critical path
    (about 1e-8 s per arc and pair of processors) run only when their estimate
    fits in ``max(seconds / 4, seconds - 0.5)`` (half a second is left for the
    caller); the other bounds are cheap. The path-load LP's estimate can be
    several times off (a random 1000-task DAG on 4 classes: 7.4 s against
    2.3 s), so the clock also stops it at what the budget leaves it.

    Returns the bound and whether it is the complete :func:`lower_bound`; only
    a complete bound is kept in the problem's cache (a bound cut short by the
    clock would otherwise be what later callers without a limit read).

    Examples
    --------
    >>> p = Problem.from_lists([[2, 4], [3, 1], [5, 5]], [(0, 1, 9), (1, 2, 9)])
    >>> lower_bound_within(p, 30.0) == (lower_bound(p), True)
    True
    >>> q = Problem.from_lists([[1, 4]] * 3)
    >>> lower_bound_within(q, 0.0), lower_bound(q)  # no time: the cheap bounds only
    ((2, False), 3)
    """
    cache = problem._cache
    if "lower_bound" in cache:
        return cache["lower_bound"], True
    if seconds is None:
        return lower_bound(problem), True
    classes = len(processor_classes(problem))
    path_seconds = path_load_seconds(problem, classes)
    lp = (0.0 if classes == 1 else 3e-5 * problem.n_tasks * classes) + path_seconds
    # The energetic windows: at most ENERGETIC_CELLS cells (about 0.1 s each pass), one
    # per distinct head, distinct tail, task and class; the spread heads and tails
    # under them: a bit-set row per arc and n^2 bits (spread_paths).
    steps = min(ENERGETIC_STEPS, problem.n_tasks)
    lp += 1e-7 * min(ENERGETIC_CELLS, steps**2 * problem.n_tasks * classes)
    if problem.n_tasks <= SPREAD_MAX_TASKS:
        lp += 3e-6 * len(problem.arc_src) + 2e-9 * problem.n_tasks**2
    if classes > 1 and "scipy.optimize" not in sys.modules:
        lp += 0.6  # the first LP imports scipy.optimize
    ocp = 1e-8 * len(problem.arc_src) * problem.n_processors**2
    budget = max(0.25 * seconds, seconds - 0.5)
    if lp + ocp <= budget:
        values, complete = _bounds_within(problem, budget - (lp - path_seconds) - ocp)
        best = _best(problem, max(values.values()), less_noise=False)
        if complete:
            cache["lower_bounds"] = values
            cache["lower_bound"] = best
        return best, complete
    best = max(critical_path_bound(problem), load_bound(problem), isolation_bound(problem))
    if ocp <= budget:
        best = max(best, optimistic_critical_path(problem))
    elif lp <= budget:
        best = max(best, class_load_bound(problem))
    return _best(problem, best), False
