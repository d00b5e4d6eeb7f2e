"""Stage *bounds and cuts* of the CP-SAT model: what makes the lower bound move.

Two halves. :func:`compute_bounds` works before the model exists: the
horizon, the root lower bound (the foundation bound of
:mod:`exactsched.bounds`, scaled, and with option ``placement`` the
placement heads and tails of :func:`placement_heads_tails`) and the heads and
tails that become the start domains. :func:`add_bounds_and_cuts` then adds
the makespan variable and, each behind its option of
:func:`models.cpsat.cpsat`, ``M >= e_i + tail_i`` (``bounds``), the placement
cuts (``placement``), the per-location load cuts (``load``) and the load cuts
along ancestors and descendants (``path_cuts``, :func:`add_path_cuts`).

Every bound here holds for every schedule of the scaled data, so none can cut
off an optimum; ``tests/test_cpsat_stages.py`` checks them against
brute-force optima.

References
----------
.. [1] J. R. Jackson, "Scheduling a production line to minimize maximum
   tardiness", 1955 (the order of tails used by :func:`sequence_bound`).
.. [2] T. McSweeney, N. Walton and M. Zounon, ICCS 2020 (class-load reasoning
   on CPU-GPU nodes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from exactsched.bounds import longest_paths
from exactsched.problem import Problem
from models._clock import Clock
from models._cpsat_build import ModelVars
from models._cpsat_scaling import ceil_tol

__all__ = [
    "StaticBounds",
    "longest_paths",
    "sequence_bound",
    "placement_heads_tails",
    "compute_bounds",
    "add_bounds_and_cuts",
    "add_path_cuts",
]


def sequence_bound(items: list[tuple[float, float, float]], single: bool, tail: bool) -> float:
    """Least of ``max(remote, local)`` over which neighbours share the location.

    ``items`` are ``(remote, r, c)`` per neighbour: ``remote`` is the bound it
    gives when on another location, ``r`` a release (heads) or a tail (tails)
    and ``c`` its duration on this location (``inf``: not allowed there).
    Neighbours on the location run one after the other when ``single``; the
    best sequence is by release (heads) or by decreasing tail (tails, Jackson's
    rule). Only the neighbours with the largest remote bounds are worth keeping
    local, so scanning the remote bounds in decreasing order is exact.

    Examples
    --------
    >>> sequence_bound([(9.0, 0.0, 2.0), (9.0, 0.0, 3.0)], single=True, tail=False)
    5.0
    """
    items = sorted(items, key=lambda it: -it[0])
    best = math.inf
    local: list[tuple[float, float]] = []
    for k in range(len(items) + 1):
        remote = items[k][0] if k < len(items) else 0.0
        value = 0.0
        if local and not single:
            value = max(r + c for r, c in local)
        elif local and not tail:
            for r, c in sorted(local):
                value = max(value, r) + c
        elif local:
            t = 0.0
            for q, c in sorted(local, key=lambda z: -z[0]):
                t += c
                value = max(value, t + q)
        best = min(best, max(remote, value))
        if k == len(items) or not math.isfinite(items[k][2]):
            break  # this neighbour cannot share the location
        local.append((items[k][1], items[k][2]))
    return best


def placement_heads_tails(
    problem: Problem,
    cost: np.ndarray,
    delay: np.ndarray,
    cap: Sequence[int],
    clock: Clock | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Heads and tails per placement that account for communication and fan-in/out.

    ``head[j, m]`` is a lower bound on the start of ``j`` if it runs on location
    ``m``: each predecessor ``i`` either runs elsewhere (its data arrive at the
    earliest ``head[i, k] + cost[i, k] + delay(k, m)`` over ``k != m``) or on
    ``m`` too, where such predecessors run one after the other (from their own
    heads on ``m``). ``tail[i, l]`` is a lower bound on the time from the start
    of ``i`` on ``l`` to the makespan, symmetrically over successors. Both hold
    for every schedule, so ``start_i >= sum_l head[i, l] x_il`` and
    ``makespan >= start_i + sum_l tail[i, l] x_il`` are valid cuts; unlike the
    critical path with least costs they see that a multi-hop network makes
    fan-in and fan-out pay either communication or serialisation.

    ``cost`` is ``(n, L)`` with ``inf`` outside the affinity, ``delay`` is
    ``(n_arcs, L, L)`` with a zero diagonal and ``cap`` the capacity of every
    location (pooled locations only get the weaker ``max(r + c)``).

    Raises
    ------
    OutOfTime
        When ``clock``'s time limit passes.

    Examples
    --------
    >>> p = Problem.from_lists([[1, 1], [2, 2], [2, 2]], [(0, 1, 5), (0, 2, 5)])
    >>> head, tail = placement_heads_tails(p, p.cost, p.arc_unit[:, None, None] * p.hops, [1, 1])
    >>> head[1].tolist(), tail[0].tolist()    # b and c share a's processor or wait
    ([1.0, 1.0], [5.0, 5.0])
    """
    n, n_locs = cost.shape
    allowed = np.isfinite(cost)
    head = np.zeros((n, n_locs))
    tail = np.zeros((n, n_locs))
    off = ~np.eye(n_locs, dtype=bool)
    order = problem.topological_order.tolist()
    for j in order:
        if clock is not None:
            clock.check("bounds and cuts")
        arcs = problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]].tolist()
        if not arcs:
            continue
        src = problem.arc_src[arcs]
        # arrive[t, m]: earliest arrival on m of arc t's data from another location
        fin = head[src] + cost[src]  # inf outside the affinity
        arrive = np.where(off[None], fin[:, :, None] + delay[arcs], np.inf).min(axis=1)
        for m in np.flatnonzero(allowed[j]).tolist():
            items = [(arrive[t, m], head[src[t], m], cost[src[t], m]) for t in range(len(arcs))]
            head[j, m] = sequence_bound(items, cap[m] == 1, tail=False)
    for i in reversed(order):
        if clock is not None:
            clock.check("bounds and cuts")
        arcs = problem.succ_arcs[problem.succ_ptr[i] : problem.succ_ptr[i + 1]].tolist()
        if not arcs:
            tail[i] = np.where(allowed[i], cost[i], 0.0)
            continue
        dst = problem.arc_dst[arcs]
        # leave[t, l]: least time from the end of i on l to the makespan via arc t elsewhere
        rest = np.where(allowed[dst], tail[dst], np.inf)  # (k, L)
        leave = np.where(off[None], delay[arcs] + rest[:, None, :], np.inf).min(axis=2)
        for k in np.flatnonzero(allowed[i]).tolist():
            items = [
                (leave[t, k], tail[dst[t], k] - cost[dst[t], k], cost[dst[t], k])
                if allowed[dst[t], k]
                else (leave[t, k], 0.0, math.inf)
                for t in range(len(arcs))
            ]
            tail[i, k] = cost[i, k] + sequence_bound(items, cap[k] == 1, tail=True)
    return head, tail


@dataclass
class StaticBounds:
    """Bounds known before the model exists, in scaled units.

    Attributes
    ----------
    horizon : int
        Upper bound of every time variable.
    lower : int
        Root lower bound on the scaled makespan (at most ``horizon``).
    min_dur : numpy.ndarray
        Least scaled cost of every task.
    head, tail : numpy.ndarray or None
        Per task: least start and least time from its end to the makespan
        (None when option ``bounds`` is off).
    head_l, tail_l : numpy.ndarray or None
        Placement heads and tails (None unless ``bounds`` and ``placement``).
    """

    horizon: int
    lower: int
    min_dur: np.ndarray
    head: np.ndarray | None = None
    tail: np.ndarray | None = None
    head_l: np.ndarray | None = None
    tail_l: np.ndarray | None = None


def compute_bounds(
    problem: Problem,
    cost_l: np.ndarray,
    delay_l: np.ndarray,
    cap: Sequence[int],
    *,
    horizon: int,
    foundation: float,
    resolution: float,
    bounds: bool,
    placement: bool,
    clock: Clock | None = None,
) -> StaticBounds:
    """Stage *bounds and cuts*, first half: horizon, root bound, heads and tails.

    Parameters
    ----------
    problem : Problem
    cost_l, delay_l : numpy.ndarray
        Scaled costs ``(n, L)`` and delays ``(n_arcs, L, L)`` per location.
    cap : sequence of int
        Capacity of every location.
    horizon : int
        The scaled horizon (best heuristic makespan, or the sum of every
        largest cost and delay).
    foundation : float
        :func:`exactsched.bounds.lower_bound` in original units.
    resolution : float
    bounds, placement : bool
        The options of the same names.
    clock : Clock, optional

    Returns
    -------
    StaticBounds

    Examples
    --------
    >>> p = Problem.from_lists([[1, 1], [2, 2], [2, 2]], [(0, 1, 5), (0, 2, 5)])
    >>> d = p.arc_unit[:, None, None] * p.hops
    >>> sb = compute_bounds(p, p.cost, d, [1, 1], horizon=10, foundation=3.0, resolution=1,
    ...                     bounds=True, placement=True)
    >>> sb.lower, sb.head.tolist()
    (5, [0.0, 1.0, 1.0])
    """
    allowed_l = np.isfinite(cost_l)
    min_dur = np.where(allowed_l, cost_l, np.inf).min(axis=1)
    if not bounds:
        return StaticBounds(horizon, 0, min_dur)
    lower = min(int(ceil_tol(np.array([foundation * resolution]))[0][0]), horizon)
    head, tail = longest_paths(problem, min_dur)
    head_l = tail_l = None
    if placement:
        # Placement heads/tails see communication and fan-in/out (multi-hop networks).
        head_l, tail_l = placement_heads_tails(problem, cost_l, delay_l, cap, clock)
        span = np.where(allowed_l, head_l + tail_l, np.inf).min(axis=1)
        lower = min(max(lower, int(math.ceil(span.max() - 1e-9))), horizon)
        head = np.maximum(head, np.where(allowed_l, head_l, np.inf).min(axis=1))
        tail = np.maximum(tail, np.where(allowed_l, tail_l - cost_l, np.inf).min(axis=1))
    return StaticBounds(horizon, lower, min_dur, head, tail, head_l, tail_l)


def add_bounds_and_cuts(
    mv: ModelVars,
    problem: Problem,
    sb: StaticBounds,
    *,
    load: bool,
    path_cuts: bool,
    clock: Clock | None = None,
) -> None:
    """Stage *bounds and cuts*, second half: the makespan, its bounds and the cuts.

    ``M`` in ``[lower, horizon]``; ``M >= e_i`` for exit tasks and
    ``M >= e_i + tail_i`` for the others when ``sb.tail`` is known (else
    ``M >= e_i`` for every task); the placement cuts ``s_i >= sum_l head_il
    x_il`` and ``M >= s_i + sum_l tail_il x_il``; with ``load``,
    ``cap_l * M >= sum_i c_il x_il`` per location; with ``path_cuts``,
    :func:`add_path_cuts`. Sets ``mv.makespan`` and the objective.

    Examples
    --------
    >>> from models._cpsat_build import add_variables, new_model
    >>> from models._cpsat_locations import processor_locations
    >>> from models._cpsat_scaling import scale_data
    >>> p = Problem.from_lists([[2, 3], [3, 2], [2, 2]])
    >>> mv = new_model(p, scale_data(p), processor_locations(p), horizon=20)
    >>> sb = compute_bounds(p, mv.cost, mv.delay, mv.capacity, horizon=20, foundation=3.0,
    ...                     resolution=1, bounds=True, placement=True)
    >>> add_variables(mv, sb.head, sb.tail, sb.min_dur)
    >>> add_bounds_and_cuts(mv, p, sb, load=True, path_cuts=False)
    >>> list(mv.makespan.proto.domain)   # [root bound, horizon]
    [3, 20]
    """
    model, x, n = mv.model, mv.x, len(mv.x)
    makespan = model.new_int_var(sb.lower, sb.horizon, "makespan")
    mv.makespan = makespan
    if sb.head_l is not None:
        for i in range(n):
            if clock is not None and i % 64 == 0:
                clock.check("bounds and cuts")
            if len(x[i]) < 2:
                continue
            if any(sb.head_l[i, k] > sb.head[i] for k in x[i]):
                model.add(
                    mv.start[i] >= sum(int(sb.head_l[i, k]) * lit for k, lit in x[i].items())
                )
            model.add(
                makespan
                >= mv.start[i] + sum(int(sb.tail_l[i, k]) * lit for k, lit in x[i].items())
            )
    bounds = sb.tail is not None
    for i in range(n):
        if bounds and sb.tail[i] > 0:
            model.add(makespan >= mv.end[i] + int(sb.tail[i]))
        elif len(problem.successors(i)) == 0 or not bounds:
            model.add(makespan >= mv.end[i])
    if load:
        terms: list[list[Any]] = [[] for _ in range(len(mv.capacity))]
        for i in range(n):
            for k, lit in x[i].items():
                if mv.cost[i, k] > 0:
                    terms[k].append(int(mv.cost[i, k]) * (1 if lit is True else lit))
        for k, cap in enumerate(mv.capacity):
            if terms[k]:
                model.add(cap * makespan >= sum(terms[k]))
    if path_cuts:
        add_path_cuts(mv, problem, clock)
    model.minimize(makespan)


def _reach(problem: Problem) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Ancestors and descendants of every task, as sorted index arrays."""
    n = problem.n_tasks
    order = problem.topological_order.tolist()
    anc = [0] * n
    for j in order:
        for i in problem.predecessors(j).tolist():
            anc[j] |= anc[i] | (1 << i)
    desc = [0] * n
    for i in reversed(order):
        for j in problem.successors(i).tolist():
            desc[i] |= desc[j] | (1 << j)

    def bits(mask: int) -> np.ndarray:
        return np.array([k for k in range(n) if mask >> k & 1], dtype=np.int64)

    return [bits(m) for m in anc], [bits(m) for m in desc]


def add_path_cuts(mv: ModelVars, problem: Problem, clock: Clock | None = None) -> None:
    """Load of a location along the ancestors and the descendants of each task.

    Every ancestor of ``i`` placed on location ``l`` runs in ``[0, start_i)``
    and every descendant in ``[end_i, makespan)``, so
    ``cap_l * start_i >= sum c_jl x_jl`` over ancestors and
    ``cap_l * (makespan - end_i) >= sum c_jl x_jl`` over descendants. Together
    they say that ``i`` on a slow processor leaves the bottleneck idle.
    """
    model: cp_model.CpModel = mv.model
    x, cost_l, cap = mv.x, mv.cost, mv.capacity
    anc, desc = _reach(problem)
    for k in range(cost_l.shape[1]):
        weight = {}
        for j in range(problem.n_tasks):
            lit = x[j].get(k)
            if lit is not None and cost_l[j, k] > 0:
                weight[j] = (int(cost_l[j, k]), 1 if lit is True else lit)
        if not weight:
            continue
        for i in range(problem.n_tasks):
            if clock is not None and i % 64 == 0:
                clock.check("bounds and cuts")
            for group, lhs in (
                (anc[i], cap[k] * mv.start[i]),
                (desc[i], cap[k] * (mv.makespan - mv.end[i])),
            ):
                members = [j for j in group.tolist() if j in weight]
                if len(members) < 2:
                    continue
                model.add(lhs >= sum(weight[j][0] * weight[j][1] for j in members))
