"""Witnesses that refute "some schedule is shorter than the claimed optimum".

Not a registered method (the leading underscore keeps the auto-import away); the
policy that runs them is :mod:`models.certify`.

Each witness decides the question *is there a schedule of makespan at most*
``target`` on :class:`Floored` data, the instance scaled by a resolution and
rounded **down** to integers. Rounding down makes the question a relaxation of
the original one: a valid schedule of the original data with makespan ``M``,
scaled and with every time rounded down, is a valid integer schedule of the
floored data with makespan at most ``floor(M * resolution)`` (for integers ``c``,
``x >= y + c`` implies ``floor(x) >= floor(y) + c``). So "infeasible" from a
witness refutes every original schedule of makespan below
``(target + 1) / resolution``. On data that are exact multiples of
``1 / resolution`` (integers, decimals) nothing is rounded and the question is
the original one.

A witness answers with a :class:`Verdict`: ``"refuted"`` (infeasible),
``"found"`` (a schedule, re-timed on the original data by the earliest-start
pass of :func:`models._horizon.semi_active`, so it is valid), or
``"unknown"`` (time out, numerics it cannot hold, an engine error), with a reason.

The witnesses share no search with the methods whose proofs they check:

* :func:`refute_cpsat`: a CP-SAT model written for this purpose with **no
  interval variables** (so none of the disjunctive/no-overlap machinery behind the
  known false proofs of CP-SAT 9.15, ``tests/data/engine-false-optimum``):
  assignment literals, start variables, one order literal per direction for
  each pair of tasks that may compete, and enforced linear inequalities; one
  worker, fixed seed, presolve off, linearization level 0; interchangeable
  processors (the cores of a CPU-GPU node) are pooled or their symmetry broken,
  with their own class analysis (:mod:`models._refute_symmetry`);
* :func:`refute_milp`: the MILP of :func:`models.milp.build_model` on the floored
  data as a pure feasibility problem (no objective) bounded by ``target``;
* :func:`refute_bruteforce`: the exhaustive search of :mod:`models.bruteforce`
  on the original data (tiny instances).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal, localcontext
from typing import Any

import numpy as np

from exactsched._output import rough
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.schedule import Schedule
from models._cpsat_run import run_solver
from models._grid import exact_units
from models._horizon import order_from_times, semi_active
from models._refute_symmetry import interchangeable_classes

__all__ = [
    "Floored",
    "Verdict",
    "floored_data",
    "grid_data",
    "witness_bound",
    "refute_bound",
    "refute_cpsat",
    "refute_milp",
    "refute_bruteforce",
]


@dataclass(frozen=True)
class Floored:
    """Integer data, rounded down, of a refutation.

    Attributes
    ----------
    resolution : float
        Model units per original unit.
    exact : bool
        Whether no value was rounded (then the floored problem is the original one).
    cost : numpy.ndarray
        ``(n, P)`` floored costs (``inf`` outside the affinity).
    delay : numpy.ndarray
        ``(n_arcs, P, P)`` floored communication delays.
    """

    resolution: float
    exact: bool
    cost: np.ndarray
    delay: np.ndarray


@dataclass(frozen=True)
class Verdict:
    """What one witness found.

    Attributes
    ----------
    outcome : str
        ``"refuted"``, ``"found"`` or ``"unknown"``.
    schedule : Schedule or None
        For ``"found"``: the witness's schedule re-timed on the original data.
    reason : str
        One line: why unknown, or what refuted.
    seconds : float
    """

    outcome: str
    schedule: Schedule | None = None
    reason: str = ""
    seconds: float = 0.0


def _floor_exact(
    values: np.ndarray, resolution: float, factor: float = 1.0
) -> tuple[np.ndarray, bool]:
    """``floor(value * factor * resolution)``, decided exactly; and whether all were exact.

    Values, factor and resolution are read as their shortest decimals.

    Written for the witnesses (it shares nothing with the models' scaling): a
    value is never rounded up, however close to the next integer, so the data
    stay a relaxation.
    """
    values = np.asarray(values, dtype=float)
    if (
        float(resolution) == int(resolution)
        and float(factor) == int(factor)
        and np.all(values == np.floor(values))
    ):
        product = values * factor * resolution
        if np.all(np.abs(product) < 2.0**53):  # 2**53 may be 2**53 + 1 rounded
            return product, True
    distinct, code = np.unique(values, return_inverse=True)
    out = np.empty(len(distinct))
    exact = True
    with localcontext() as context:
        context.prec = 800
        scale = Decimal(repr(float(resolution))) * Decimal(repr(float(factor)))
        for k, v in enumerate(distinct.tolist()):
            d = Decimal(repr(v)) * scale
            down = int(d.to_integral_value(rounding=ROUND_FLOOR))
            exact = exact and d == down
            try:
                value = float(down)  # compared as a Python float: numpy would round the int
            except OverflowError:  # beyond every float: the largest is still below it
                value = sys.float_info.max
            if value > down:  # a huge integer's float above it: keep a relaxation
                value = math.nextafter(value, -math.inf)
            exact = exact and value == down
            out[k] = value
    return out[code.reshape(values.shape)], exact


def grid_data(problem: Problem, resolution: float) -> Floored:
    """Scale ``problem`` by ``resolution`` and round every cost and delay down, exactly.

    Examples
    --------
    >>> p = Problem.from_lists([[1.5, 2.25]], n_processors=2)
    >>> d = grid_data(p, 10)
    >>> d.exact, d.cost.tolist()
    (False, [[15.0, 22.0]])
    >>> grid_data(p, 100).exact
    True
    >>> grid_data(Problem.from_lists([[0.7]]), 10).cost.tolist()
    [[7.0]]
    """
    cost, cost_exact = _floor_exact(np.where(problem.allowed, problem.cost, 0.0), resolution)
    cost = np.where(problem.allowed, cost, np.inf)
    # Delays: the decimal unit times the decimal hop count, floored exactly.
    hop_values, hop_code = np.unique(problem.hops, return_inverse=True)
    table = np.empty((problem.n_edges, len(hop_values)))
    delay_exact = True
    for m, h in enumerate(hop_values.tolist()):
        column, ok = _floor_exact(exact_units(problem), resolution, factor=h)
        table[:, m] = column
        delay_exact = delay_exact and ok
    delay = table[:, hop_code.reshape(problem.hops.shape)]
    return Floored(float(resolution), cost_exact and delay_exact, cost, delay)


#: Former name of :func:`grid_data`.
floored_data = grid_data


def witness_bound(problem: Problem, data: Floored) -> int:
    """A lower bound on the makespan of the integer data, computed for the witnesses alone.

    It shares no code with :mod:`exactsched.bounds` (a constraint of the
    ``cpsat`` and ``milp`` models, and the early exit of ``bruteforce``), so a
    fault there cannot make this witness confirm a claim that rests on it. The
    larger of

    * the optimistic path with communication: the earliest finish of each task
      on each processor when every predecessor sits where it arrives soonest
      (no delay on the same processor; skipped on platforms too large for it);
    * the load: the least costs of all tasks spread over the processors,
      rounded up;
    * through each task: the work of its ancestors spread over the processors, its
      least cost, and the work of its descendants spread likewise
      (:func:`precedence_spread`; at least the least-cost path through it);
    * energetic reasoning (:func:`_energy_bound`): the work that must fall inside a
      window ``[t1, M - t2]``, spread over the processors.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    >>> witness_bound(p, grid_data(p, 1))
    3
    """
    n, n_procs = problem.n_tasks, problem.n_processors
    if n == 0:
        return 0
    cost = data.cost  # inf outside the affinity; every task may run somewhere
    least = cost.min(axis=1)
    bound = -(-int(sum(int(c) for c in least.tolist())) // n_procs)  # the load
    if problem.n_edges * n_procs * n_procs <= _WINDOW_CELLS:
        head, _ = placement_windows(problem, data, tails=False)
        bound = max(bound, int((head + cost).min(axis=1).max()))
    before, after = precedence_spread(problem, least, n_procs)
    spread = max(b + int(c) + a for b, c, a in zip(before, least.tolist(), after, strict=True))
    return _energy_bound(problem, least, n_procs, max(bound, spread), (before, after))


def precedence_spread(
    problem: Problem, work: np.ndarray, n_procs: int
) -> tuple[list[int], list[int]]:
    """Least time before each task starts and after it ends, from precedence and work.

    ``head[j]``: the longest path of ``work`` before ``j``, or the work of all its
    ancestors spread over ``n_procs`` processors, ``ceil(W / P)``, whichever is
    longer (every ancestor ends before ``j`` starts), propagated along the arcs.
    ``tail[i]``: the mirror over the descendants (all of them start after ``i``
    ends). With ``work`` each task's least cost on integer data, both hold in every
    schedule, whatever the delays (they only add). Written for the witnesses
    (:func:`witness_bound`, the time-indexed windows).

    Examples
    --------
    >>> # Three tasks of 2 before a task of 1, on 2 processors: it starts at 3 or later.
    >>> p = Problem.from_lists([2, 2, 2, 1], [(0, 3), (1, 3), (2, 3)], n_processors=2)
    >>> precedence_spread(p, np.array([2, 2, 2, 1]), 2)
    ([0, 0, 0, 3], [1, 1, 1, 0])
    """
    n = problem.n_tasks
    ints = [int(c) for c in np.asarray(work).tolist()]
    weights = np.asarray(ints, dtype=object)  # Python integers: exact sums at any magnitude
    size = (n + 7) // 8
    if n > _SPREAD_MAX_TASKS:  # O(n^2) bits: the longest paths alone
        n_procs = 0

    def spread(mask: int) -> int:
        if not mask or not n_procs:
            return 0
        raw = np.frombuffer(mask.to_bytes(size, "little"), np.uint8)
        members = np.flatnonzero(np.unpackbits(raw, bitorder="little")[:n])
        return -(-int(weights[members].sum()) // n_procs)

    head, tail = [0] * n, [0] * n
    above, below = [0] * n, [0] * n  # bit k set: task k is an ancestor / a descendant
    track = n_procs > 0
    order = problem.topological_order.tolist()
    for j in order:
        for i in problem.predecessors(j).tolist():
            head[j] = max(head[j], head[i] + ints[i])
            if track:
                above[j] |= above[i] | (1 << i)
        head[j] = max(head[j], spread(above[j]))
    for i in reversed(order):
        for j in problem.successors(i).tolist():
            tail[i] = max(tail[i], tail[j] + ints[j])
            if track:
                below[i] |= below[j] | (1 << j)
        tail[i] = max(tail[i], spread(below[i]))
    return head, tail


#: Above this many tasks :func:`precedence_spread` keeps to the longest paths.
_SPREAD_MAX_TASKS = 5000
#: Most window ends (``t1`` and ``t2`` each) :func:`_energy_bound` tries per pass.
_ENERGY_STEPS = 64


def _energy_bound(
    problem: Problem,
    least: np.ndarray,
    n_procs: int,
    start: int,
    windows: tuple[list[int], list[int]] | None = None,
) -> int:
    """Energetic reasoning on the integer data, written for the witnesses alone.

    Task ``i`` starts no sooner than its head ``r_i`` and ends at least its tail
    ``q_i`` before the makespan ``M`` (:func:`precedence_spread` of the least costs,
    or ``windows``).
    Inside a window ``[t1, M - t2]`` it then runs at least ``rem_i = max(0, c_i -
    max(0, t1 - r_i) - max(0, t2 - q_i))``, ``c_i`` its least cost, on whatever
    processor; the ``P`` processors offer ``P (M - t1 - t2)`` there. So ``M >= t1 +
    t2 + ceil(sum_i rem_i / P)`` (``M`` is at most an integer target), for every
    window that is not empty: ``t1 + t2`` at most a bound already proven, starting
    from ``start`` and repeated to a fixed point. Heads and tails are taken at up to
    :data:`_ENERGY_STEPS` of their distinct values. Exact integer arithmetic; ``start``
    when the costs are not finite or their sum would not fit in 62 bits.

    Examples
    --------
    >>> # Task 0 (4) precedes three tasks (4, 4, 3) on 2 processors; optimum 11.
    >>> p = Problem.from_lists([4, 4, 4, 3], [(0, 1), (0, 2), (0, 3)], n_processors=2)
    >>> _energy_bound(p, np.array([4.0, 4.0, 4.0, 3.0]), 2, 8)
    10
    """
    n = problem.n_tasks
    if n == 0 or not np.all(np.isfinite(least)) or float(least.sum()) * 2 > 2.0**62:
        return start
    c = least.astype(np.int64)
    before, after = precedence_spread(problem, least, n_procs) if windows is None else windows
    head = np.asarray(before, dtype=np.int64)
    tail = np.asarray(after, dtype=np.int64)

    def ends(values: np.ndarray) -> np.ndarray:
        distinct = np.unique(values)
        if len(distinct) > _ENERGY_STEPS:
            picks = np.linspace(0, len(distinct) - 1, _ENERGY_STEPS).round().astype(np.int64)
            distinct = distinct[picks]
        return distinct

    firsts, lasts = ends(head), ends(tail)
    late = np.maximum(0, lasts[:, None] - tail[None, :])  # (t2, task)
    best = int(start)
    while True:
        before = best
        for t1 in firsts.tolist():
            usable = t1 + lasts <= best  # the window [t1, M - t2] is not empty
            if not usable.any():
                continue
            rem = np.maximum(0, c - np.maximum(0, t1 - head) - late[usable])
            need = -(-rem.sum(axis=1) // n_procs)  # ceil, exact on integers
            best = max(best, int((t1 + lasts[usable] + need).max()))
        if best == before:
            return best


# Above this many (arc x processor x processor) cells the placement windows are skipped.
_WINDOW_CELLS = 4_000_000


def placement_windows(
    problem: Problem, data: Floored, *, tails: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Earliest start and least remaining time of each task on each processor.

    ``head[j, q]``: every predecessor ``i`` runs somewhere, at the earliest
    ``head[i, p]`` on ``p``, so its data reach ``q`` no sooner than
    ``min_p head[i, p] + cost[i, p] + delay(p, q)`` (no delay on ``q`` itself).
    ``tail[j, q]``: likewise over the successors, the least time from the end of
    ``j`` on ``q`` to the makespan. Both are lower bounds in every schedule of the
    floored data, computed by the witnesses alone (``O(arcs P^2)``; ``inf`` outside
    the affinity). ``tails=False`` leaves ``tail`` at zero.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    >>> head, tail = placement_windows(p, grid_data(p, 1))
    >>> head.tolist(), tail.tolist()
    ([[0.0, 0.0], [0.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    """
    n, n_procs = problem.n_tasks, problem.n_processors
    cost = data.cost
    off = ~np.eye(n_procs, dtype=bool)
    head = np.zeros((n, n_procs))
    tail = np.zeros((n, n_procs))
    order = problem.topological_order.tolist()
    for j in order:
        for a in problem.pred_arcs[problem.pred_ptr[j] : problem.pred_ptr[j + 1]].tolist():
            i = int(problem.arc_src[a])
            arrive = (head[i] + cost[i])[:, None] + np.where(off, data.delay[a], 0.0)
            np.maximum(head[j], arrive.min(axis=0), out=head[j])
    if tails:
        for i in reversed(order):
            for a in problem.succ_arcs[problem.succ_ptr[i] : problem.succ_ptr[i + 1]].tolist():
                k = int(problem.arc_dst[a])
                need = np.where(off, data.delay[a], 0.0) + (cost[k] + tail[k])[None, :]
                np.maximum(tail[i], need.min(axis=1), out=tail[i])
    outside = ~np.isfinite(cost)
    head[outside] = np.inf
    tail[outside] = np.inf
    return head, tail


def windows_or_none(
    problem: Problem, data: Floored, enabled: bool
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`placement_windows` when ``enabled`` and within ``_WINDOW_CELLS``, else zeros."""
    if enabled and problem.n_edges * problem.n_processors**2 <= _WINDOW_CELLS:
        return placement_windows(problem, data)
    return np.zeros(data.cost.shape), np.zeros(data.cost.shape)


def enforce_window(
    model: Any, start: Any, placed: Any, head: float, tail: float, cost: float, target: int
) -> None:
    """``placed`` implies ``head <= start <= target - cost - tail`` (only the sides that bind)."""
    if head > 0:
        model.add(start >= int(head)).only_enforce_if(placed)
    if tail > 0:
        model.add(start <= int(target - cost - tail)).only_enforce_if(placed)


def refute_bound(problem: Problem, data: Floored, target: int) -> Verdict:
    """Refuted when :func:`witness_bound` on the integer data exceeds ``target``.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    >>> refute_bound(p, grid_data(p, 1), 2).outcome, refute_bound(p, grid_data(p, 1), 3).outcome
    ('refuted', 'unknown')
    """
    started = time.perf_counter()
    bound = witness_bound(problem, data)
    if bound > target:
        reason = "witness bound reaches the claim"
        return Verdict("refuted", reason=reason, seconds=_since(started))
    return Verdict(
        "unknown", reason=f"witness bound {bound} units below the claim", seconds=_since(started)
    )


def _retime(problem: Problem, proc: np.ndarray, start: np.ndarray, data: Floored) -> Schedule:
    """The witness's assignment and start order, timed on the original data."""
    n = problem.n_tasks
    finish = start + data.cost[np.arange(n), proc]
    order = order_from_times(problem, start, finish)
    return Schedule.from_arrays(problem, proc, semi_active(problem, proc, order))


def _reach(problem: Problem) -> list[int]:
    """Bit ``j`` of ``reach[i]``: a path of arcs leads from ``i`` to ``j``."""
    reach = [0] * problem.n_tasks
    for i in problem.topological_order[::-1].tolist():
        for j in problem.successors(i).tolist():
            reach[i] |= reach[j] | (1 << j)
    return reach


def _competing_pairs(problem: Problem, cost: np.ndarray) -> list[tuple[int, int, list[int], bool]]:
    """Pairs ``(i, j, shared, isolated)`` that may overlap in time and must not.

    ``shared`` lists the processors on which both have positive (floored) cost;
    ``isolated`` says whether the pair is an isolation pair. Pairs joined by a
    path of arcs never overlap and are left out.
    """
    reach = _reach(problem)
    isolated = {
        (min(a, b), max(a, b))
        for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True)
    }
    positive = problem.allowed & (cost > 0)
    pairs = []
    n = problem.n_tasks
    for i in range(n):
        for j in range(i + 1, n):
            if reach[i] >> j & 1 or reach[j] >> i & 1:
                continue
            shared = np.flatnonzero(positive[i] & positive[j]).tolist()
            iso = (i, j) in isolated
            if shared or iso:
                pairs.append((i, j, shared, iso))
    return pairs


# CP-SAT keeps every integer within about 2**62; stay far below it.
_CPSAT_MAX = 2**50
# Seconds to build the pairwise model per (task pair x processor): measured 2.7e-6
# (tiled Cholesky N = 12, 364 tasks, 32 processors) to 8.3e-6 (600 random tasks, 8).
_BUILD_SECONDS_PER_CELL = 8e-6


#: The full-problem subsolvers of a multi-threaded interval-free witness: CP-SAT's
#: portfolio would add LP-based ones (``default_lp``, ``max_lp``), the machinery the
#: witness leaves out; these two keep linearization level 0.
NO_LP_SUBSOLVERS = ("no_lp", "quick_restart_no_lp")


def set_threads(params: Any, workers: int, *, lp: bool) -> None:
    """Threads of a witness's CP-SAT solver: ``workers`` (1 = deterministic search).

    With ``lp=False`` and two or more workers, the threads run the
    :data:`NO_LP_SUBSOLVERS` only (so at most two), each a complete search on the
    whole problem: a refutation asks for a proof of infeasibility, which the
    interleaved neighbourhood searches cannot give.

    Examples
    --------
    >>> from ortools.sat.python import cp_model
    >>> params = cp_model.CpSolver().parameters
    >>> set_threads(params, 2, lp=False)
    >>> params.num_workers, list(params.subsolvers), params.num_full_subsolvers
    (2, ['no_lp', 'quick_restart_no_lp'], 2)
    """
    workers = max(1, int(workers))
    if lp or workers == 1:
        params.num_workers = workers
        return
    names = NO_LP_SUBSOLVERS[:workers]
    params.num_workers = len(names)
    for name in names:
        params.subsolvers.append(name)
    params.num_full_subsolvers = len(names)


def build_seconds(problem: Problem) -> float:
    """Estimated seconds to build the interval-free witness model (pairs x processors).

    The witnesses :func:`refute_cpsat` and :func:`models._refute_comm.refute_messages`
    order every pair of tasks that may compete for a processor: ``O(n^2 P)`` terms
    built in Python. Above their time limit they decline instead of overrunning it.

    Examples
    --------
    >>> round(build_seconds(Problem.from_lists([1, 2, 3], n_processors=2)), 6)
    0.000144
    """
    n = problem.n_tasks
    return _BUILD_SECONDS_PER_CELL * n * n * problem.n_processors


def too_slow_to_build(problem: Problem, time_limit: float | None) -> Verdict | None:
    """An ``unknown`` verdict when the model would take longer than ``time_limit`` to build."""
    estimate = build_seconds(problem)
    if time_limit is None or estimate <= time_limit:
        return None
    return Verdict(
        "unknown",
        reason=f"building the model would take about {estimate:.3g} s, "
        f"{max(0.0, time_limit):.3g} s left",
    )


def refute_cpsat(
    problem: Problem,
    data: Floored,
    target: int,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    symmetry: bool = True,
    cuts: bool = True,
    pool: bool = True,
    windows: bool = True,
    workers: int = 1,
) -> Verdict:
    """Decide "makespan <= target" on the floored data with an interval-free CP-SAT model.

    Parameters
    ----------
    problem : Problem
    data : Floored
    target : int
        Makespan to reach, in model units.
    time_limit : float, optional
        Seconds for the solver.
    seed : int
        CP-SAT's random seed (one worker: the search is deterministic).
    symmetry : bool
        Value-precedence clauses over classes of interchangeable processors
        (:mod:`models._refute_symmetry`, where their soundness is argued).
    cuts : bool
        Redundant load cuts (see Notes).
    pool : bool
        Pool each class of interchangeable processors that communicate for free
        among each other into one location of capacity ``m`` (see Notes).
    windows : bool
        Placement windows (:func:`placement_windows`): a placement whose earliest
        start, cost and least tail exceed ``target`` is left out, and each placement
        bounds the start from both sides (see Notes).
    workers : int
        CP-SAT threads (:func:`set_threads`, no LP in any of them); 1 is deterministic.

    Returns
    -------
    Verdict

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    >>> refute_cpsat(p, floored_data(p, 1), 4).outcome
    'refuted'
    >>> refute_cpsat(p, floored_data(p, 1), 5).schedule.makespan
    5

    Notes
    -----
    With ``d_i = sum_p cost[i, p] x[i, p]``: ``0 <= s_i``, ``s_i + d_i <= target``;
    per arc ``s_j >= s_i + d_i`` and, per processor ``p`` of ``i``,
    ``s_j >= s_i + cost[i, p] + sum_q delay(p, q) x[j, q]`` enforced by ``x[i, p]``;
    per competing pair two order literals ``b_ij => s_j >= s_i + d_i`` with the
    clause ``not x[i, p] or not x[j, p] or b_ij or b_ji`` on every shared
    processor, and ``b_ij or b_ji`` (or a zero-length placement) for isolation.

    The load cuts ``sum_i cost[i, p] x[i, p] <= target`` per processor ``p``
    (and their sum over each class of interchangeable processors, bounded by
    the class size times ``target``) are implied by the model, so they remove
    no solution: tasks of positive cost on one processor are pairwise ordered,
    by an order literal or by a path of arcs (each arc gives
    ``s_j >= s_i + d_i``), so they occupy disjoint parts of ``[0, target]``.
    They let propagation see at once that a claim equal to a load bound cannot
    be beaten, e.g. every task on the one GPU.

    **Pooling** (``pool``). A class ``C`` of ``m`` interchangeable processors
    (:mod:`models._refute_symmetry`) whose members communicate for free in the
    witness's data (every floored delay between two members, itself included,
    is zero: the CPU cores of an accelerated node) keeps only the literals of
    its first member ``k``, which then means "on some member of ``C``". The
    per-processor disjunction on ``k`` is replaced by a capacity: at the start
    of each task ``i`` on ``C``, at most ``m - 1`` other tasks of ``C`` are
    running (:func:`_capacity`). Exact both ways, hence sound:

    * every schedule gives a solution: a task on any member sets ``x[i, k]``;
      its durations are equal (equal cost columns); a delay from a member ``p``
      to a processor ``q`` outside ``C`` equals the delay from ``k`` (the swap
      ``(k p)`` preserves hops) and inside ``C`` is zero, like ``delay(k, k)``;
      a processor runs one task at a time, so at most ``m`` run on ``C`` at
      any time;
    * every solution gives a schedule of the same starts: the most tasks of
      positive length running at once on ``C`` is reached at some task's start,
      where the capacity allows ``m``, so colouring the intervals in start
      order (:func:`_colour`) needs at most ``m`` members.

    Value precedence then applies to the classes that are not pooled (they are
    disjoint from the pools, so the relabelling argument is unchanged).

    **Placement windows** (``windows``). In every schedule of makespan at most
    ``target``, a task on ``p`` starts at or after ``head[i, p]`` and ends at least
    ``tail[i, p]`` before ``target`` (:func:`placement_windows`: lower bounds over
    wherever its predecessors and successors run), so ``x[i, p]`` implies
    ``head[i, p] <= s_i <= target - cost[i, p] - tail[i, p]``, and a placement where
    that is empty is never taken. No schedule is removed. On a pooled class the
    first member's windows stand for the class: its members are interchangeable,
    so their windows are equal.
    """
    from ortools.sat.python import cp_model

    started = time.perf_counter()
    if target < 0:
        return Verdict("refuted", reason="target below zero", seconds=0.0)
    if target > _CPSAT_MAX:
        return Verdict("unknown", reason=f"target {rough(target)} too large for CP-SAT")
    slow = too_slow_to_build(problem, time_limit)
    if slow is not None:
        return slow
    n = problem.n_tasks
    cost = data.cost
    model = cp_model.CpModel()
    x: dict[tuple[int, int], Any] = {}
    dur: list[Any] = []
    start = [model.new_int_var(0, int(target), f"s{i}") for i in range(n)]
    classes = (
        interchangeable_classes(cost, problem.hops, has_arcs=problem.n_edges > 0)
        if symmetry or cuts or pool
        else []
    )
    # Pooled classes: one literal, on the first member, stands for the class.
    pooled = {c[0]: c for c in classes if pool and _free_inside(data, c)}
    hidden = {p for members in pooled.values() for p in members[1:]}
    head, tail = windows_or_none(problem, data, windows)
    for i in range(n):
        procs = problem.allowed_processors(i).tolist()
        for p in procs:
            if cost[i, p] > target or p in hidden:
                continue  # cannot run there within the target, or pooled
            if head[i, p] + cost[i, p] + tail[i, p] > target:
                continue  # its window on p is empty
            x[i, p] = model.new_bool_var(f"x{i}_{p}")
            enforce_window(model, start[i], x[i, p], head[i, p], tail[i, p], cost[i, p], target)
        lits = [x[i, p] for p in procs if (i, p) in x]
        if not lits:
            return Verdict("refuted", reason=f"task {i} fits no processor", seconds=0.0)
        model.add_exactly_one(lits)
        dur.append(sum(int(cost[i, p]) * x[i, p] for p in procs if (i, p) in x))
        model.add(start[i] + dur[i] <= int(target))
    for a in range(problem.n_edges):
        i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
        model.add(start[j] >= start[i] + dur[i])
        # A delay above the target forbids the placement as well as target + 1 does:
        # clipped, every coefficient stays within CP-SAT's integers (delays of 1e19).
        d = np.minimum(data.delay[a], float(target) + 1.0)
        qs = [q for q in problem.allowed_processors(j).tolist() if (j, q) in x]
        for p in problem.allowed_processors(i).tolist():
            if (i, p) not in x or not any(d[p, q] for q in qs):
                continue
            arrival = sum(int(d[p, q]) * x[j, q] for q in qs if d[p, q])
            model.add(start[j] >= start[i] + int(cost[i, p]) + arrival).only_enforce_if(x[i, p])
    single = [c for c in classes if c[0] not in pooled]
    if cuts:
        _load_cuts(model, x, cost, single, pooled, int(target))
    if symmetry:
        _value_precedence(model, x, n, single)
    rivals: dict[int, list[tuple[int, int, Any, Any]]] = {k: [] for k in pooled}
    add_pair_orders(model, problem, cost, x, start, dur, pooled, rivals)
    for k, pairs in rivals.items():
        _capacity(model, x, start, cost, k, len(pooled[k]), pairs)
    solver = cp_model.CpSolver()
    params = solver.parameters
    set_threads(params, workers, lp=False)
    params.random_seed = int(seed)
    params.cp_model_presolve = False
    params.linearization_level = 0
    if time_limit is not None:  # the model's building counts against the budget
        params.max_time_in_seconds = max(0.01, float(time_limit) - _since(started))
    try:
        status = run_solver(solver, model)
    except Exception as error:  # noqa: BLE001  an engine failure is no verdict
        return Verdict("unknown", reason=f"CP-SAT failed: {error}", seconds=_since(started))
    if status == cp_model.INFEASIBLE:
        return Verdict("refuted", reason="CP-SAT: infeasible", seconds=_since(started))
    if status in (cp_model.FEASIBLE, cp_model.OPTIMAL):
        proc = np.array(
            [
                next(
                    p for p in range(problem.n_processors) if (i, p) in x and solver.value(x[i, p])
                )
                for i in range(n)
            ],
            dtype=np.int64,
        )
        times = np.array([solver.value(s) for s in start], dtype=float)
        for k, members in pooled.items():
            _colour(proc, times, cost, k, members)
        schedule = _retime(problem, proc, times, data)
        return Verdict("found", schedule, "CP-SAT: a schedule", _since(started))
    return Verdict(
        "unknown", reason=f"CP-SAT: {solver.status_name(status).lower()}", seconds=_since(started)
    )


def add_pair_orders(
    model: Any,
    problem: Problem,
    cost: np.ndarray,
    x: dict[tuple[int, int], Any],
    start: list[Any],
    dur: list[Any],
    pooled: Any = (),
    rivals: dict[int, list[tuple[int, int, Any, Any]]] | None = None,
) -> None:
    """Order literals of every competing pair (:func:`_competing_pairs`), event-based.

    ``before``/``after`` enforce one order; one of them holds when both tasks sit
    on a shared processor (a clause over the placement literals ``x``), or, for an
    isolation pair, unless one of them runs at zero cost. A pooled location
    ``p`` (in ``pooled``) gets no clause: the pair goes to ``rivals[p]`` for its
    capacity constraint instead.
    """
    for i, j, shared, iso in _competing_pairs(problem, cost):
        before = model.new_bool_var(f"b{i}_{j}")
        after = model.new_bool_var(f"b{j}_{i}")
        model.add(start[j] >= start[i] + dur[i]).only_enforce_if(before)
        model.add(start[i] >= start[j] + dur[j]).only_enforce_if(after)
        for p in shared:
            if (i, p) in x and (j, p) in x:
                if p in pooled and rivals is not None:
                    rivals[p].append((i, j, before, after))
                else:
                    model.add_bool_or([x[i, p].Not(), x[j, p].Not(), before, after])
        if iso:
            zero = [
                x[k, p]
                for k in (i, j)
                for p in range(problem.n_processors)
                if (k, p) in x and cost[k, p] == 0
            ]
            model.add_bool_or([before, after, *zero])


def _load_cuts(
    model: Any,
    x: dict[tuple[int, int], Any],
    cost: np.ndarray,
    classes: list[list[int]],
    pooled: dict[int, list[int]],
    target: int,
) -> None:
    """Each processor (pool of ``m``: ``m`` times), and each class, works at most ``target``."""
    load: dict[int, list[tuple[int, Any]]] = {}
    for (i, p), lit in x.items():
        if cost[i, p] > 0:
            load.setdefault(p, []).append((int(cost[i, p]), lit))
    for p, terms in load.items():
        room = len(pooled.get(p, [p])) * target
        if sum(c for c, _ in terms) > room:
            model.add(sum(c * lit for c, lit in terms) <= room)
    for members in classes:
        terms = [t for p in members for t in load.get(p, [])]
        if sum(c for c, _ in terms) > len(members) * target:
            model.add(sum(c * lit for c, lit in terms) <= len(members) * target)


def _free_inside(data: Floored, members: list[int]) -> bool:
    """Whether every delay between two members of a class is zero in the witness's data."""
    inside = np.ix_(np.arange(data.delay.shape[0]), members, members)
    return bool(np.all(data.delay[inside] == 0))


def _capacity(
    model: Any,
    x: dict[tuple[int, int], Any],
    start: list[Any],
    cost: np.ndarray,
    k: int,
    m: int,
    pairs: list[tuple[int, int, Any, Any]],
) -> None:
    """At the start of each task on pool ``k``, at most ``m - 1`` others of it are running.

    For each ordered rival pair ``(j, i)`` (both of positive cost on the pool), a
    literal ``o`` is forced true when both are on the pool and ``j`` runs at
    ``s_i`` (``s_j <= s_i < s_j + c_j``): the clause ``o or not x[i, k] or not
    x[j, k] or late or done`` with ``late => s_j >= s_i + 1`` and ``done`` the
    pair's own order literal ``s_i >= s_j + d_j`` (``d_j = c_j`` on the pool).
    Then ``x[i, k] => sum_j o[j, i] <= m - 1``. A task with fewer than ``m``
    rivals gets neither (the sum could not exceed ``m - 1``): on a node of 28
    cores this leaves out most literals.
    """
    rivals: dict[int, int] = {}
    for a, b, _, _ in pairs:
        rivals[a] = rivals.get(a, 0) + 1
        rivals[b] = rivals.get(b, 0) + 1
    running: dict[int, list[Any]] = {}
    for a, b, a_first, b_first in pairs:
        # ``a_first`` is the pair's order literal s_b >= s_a + d_a: "a done at s_b".
        for i, j, done in ((a, b, b_first), (b, a, a_first)):
            if rivals[i] < m:
                continue  # fewer than m rivals: the capacity cannot bind at s_i
            o = model.new_bool_var(f"o{j}_{i}")
            late = model.new_bool_var(f"l{j}_{i}")
            model.add(start[j] >= start[i] + 1).only_enforce_if(late)
            model.add_bool_or([o, x[i, k].Not(), x[j, k].Not(), late, done])
            running.setdefault(i, []).append(o)
    for i, lits in running.items():
        model.add(sum(lits) <= m - 1).only_enforce_if(x[i, k])


def _colour(
    proc: np.ndarray, times: np.ndarray, cost: np.ndarray, k: int, members: list[int]
) -> None:
    """Give the tasks the witness put on pool ``k`` a member each (interval colouring).

    In start order, each task takes the first member free at its start. The
    capacity constraint of :func:`_capacity` keeps at most ``m`` tasks of
    positive cost running at any start, so a member is always free for those;
    a zero-length task that finds none stays on ``k`` (the re-timing on the
    original data then orders it, so the schedule stays valid).
    """
    free = dict.fromkeys(members, -np.inf)
    tasks = sorted(np.flatnonzero(proc == k).tolist(), key=lambda i: (times[i], i))
    for i in tasks:
        member = next((q for q in members if free[q] <= times[i]), k)
        proc[i] = member
        end = times[i] + cost[i, k]
        if end > times[i]:
            free[member] = max(free[member], end)


def _value_precedence(
    model: Any, x: dict[tuple[int, int], Any], n: int, classes: list[list[int]]
) -> None:
    """``x[i, k_r] => OR_{j < i} x[j, k_{r-1}]`` per class ``k_0 < k_1 < ...``.

    Sound by :mod:`models._refute_symmetry`: the members of a class have equal
    cost columns, so a task has a literal on all of them or on none.
    """
    for members in classes:
        for prev, proc in zip(members, members[1:], strict=False):
            earlier: list[Any] = []
            for i in range(n):
                if (i, proc) in x:
                    model.add_bool_or([x[i, proc].Not(), *earlier])
                if (i, prev) in x:
                    earlier.append(x[i, prev])


def refute_milp(
    problem: Problem,
    data: Floored,
    target: int,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    solver: str = "highs",
) -> Verdict:
    """Decide "makespan <= target" on the floored data with the MILP as a feasibility problem.

    The model is :func:`models.milp.build_model` with ``horizon = target``
    (every window and big-M then follows from the target, not from a schedule),
    without objective. Refused (``"unknown"``) when the target is beyond what
    the solver's tolerances hold (:data:`models.milp._NUMERIC_BUDGET`).

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    >>> refute_milp(p, floored_data(p, 1), 4).outcome
    'refuted'
    """
    from ortools.math_opt.python import mathopt

    from models import milp as milp_module

    started = time.perf_counter()
    if target < 0:
        return Verdict("refuted", reason="target below zero")
    n = max(1, problem.n_tasks)
    if 2.0 * target * n * milp_module._INT_TOL > milp_module._NUMERIC_BUDGET:
        return Verdict("unknown", reason=f"target {rough(target)} beyond the MILP tolerances")
    deadline = None if time_limit is None else started + time_limit
    if np.any(np.where(problem.allowed, data.cost, np.inf).min(axis=1) > target):
        return Verdict("refuted", reason="a task longer than the target")
    try:
        model, cols = milp_module.build_model(problem, float(target), data, deadline)  # type: ignore[arg-type]
    except milp_module.BuildTimeout:
        return Verdict("unknown", reason="MILP: time out while building", seconds=_since(started))
    mo = mathopt.Model(name="exactsched-refute")
    var = [
        mo.add_variable(lb=lo, ub=up, is_integer=bool(k))
        for lo, up, k in zip(model.lb, model.ub, model.integer, strict=True)
    ]
    for idx, val, lower, upper in model.rows:
        expr = mathopt.fast_sum(v * var[k] for k, v in zip(idx, val, strict=True))
        mo.add_linear_constraint(lb=lower, ub=upper, expr=expr)
    limit = None
    if deadline is not None:
        limit = mathopt_timedelta(max(0.01, deadline - time.perf_counter()))
    params = mathopt.SolveParameters(
        time_limit=limit,
        random_seed=int(seed),
        enable_output=False,
        **milp_module._tolerances(solver),
    )
    try:
        with milp_module._solver_output(False):
            result = mathopt.solve(mo, milp_module._SOLVERS[solver](mathopt), params=params)
    except Exception as error:  # noqa: BLE001  an engine failure is no verdict
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        return Verdict("unknown", reason=f"MILP failed: {first}", seconds=_since(started))
    reason = result.termination.reason
    if reason == mathopt.TerminationReason.INFEASIBLE:
        return Verdict("refuted", reason=f"MILP ({solver}): infeasible", seconds=_since(started))
    if result.has_primal_feasible_solution():
        values = np.array([result.variable_values(v) for v in var])
        proc = np.full(problem.n_tasks, -1, dtype=np.int64)
        weight = np.full(problem.n_tasks, -1.0)
        for (i, p), c in cols["x"].items():
            if values[c] > weight[i]:
                weight[i], proc[i] = values[c], p
        times = values[np.asarray(cols["s"], dtype=np.int64)]
        schedule = _retime(problem, proc, times, data)
        return Verdict("found", schedule, f"MILP ({solver}): a schedule", _since(started))
    return Verdict(
        "unknown", reason=f"MILP ({solver}): {reason.name.lower()}", seconds=_since(started)
    )


def mathopt_timedelta(seconds: float) -> Any:
    """``datetime.timedelta`` of ``seconds`` (math_opt's time-limit type), at most a year.

    A year is as good as no limit, and timedelta overflows near 1e14 s.
    """
    from datetime import timedelta

    return timedelta(seconds=min(seconds, 3.2e7))


def refute_bruteforce(
    problem: Problem,
    shorter: float | Callable[[float], bool],
    *,
    time_limit: float | None = None,
) -> Verdict:
    """Exhaustive search on the original data: is some schedule shorter than the claim?

    ``shorter(makespan)`` says whether a makespan beats the claim (a number
    ``below`` means ``makespan < below``). The search runs without the early
    exit on :func:`exactsched.bounds.lower_bound` (``trust_bound=False``), so
    its verdict does not rest on that bound. Refuted when it proves an optimum
    that is not shorter; ``"found"`` with its schedule when the optimum is.

    Examples
    --------
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    >>> refute_bruteforce(p, 5).outcome, refute_bruteforce(p, 5.5).outcome
    ('refuted', 'found')
    """
    from exactsched.result import Status
    from models.bruteforce import bruteforce

    if not callable(shorter):
        below = float(shorter)

        def shorter(makespan: float) -> bool:
            return makespan < below

    started = time.perf_counter()
    try:
        result = bruteforce(problem, time_limit=time_limit, trust_bound=False)
    except MethodError as error:
        return Verdict("unknown", reason=str(error), seconds=_since(started))
    assert result.makespan is not None and result.schedule is not None
    if shorter(float(result.makespan)):
        return Verdict("found", result.schedule, "bruteforce: a schedule", _since(started))
    if result.status is Status.OPTIMAL:
        return Verdict("refuted", reason="bruteforce: optimum", seconds=_since(started))
    return Verdict("unknown", reason="bruteforce: time limit", seconds=_since(started))


def _since(started: float) -> float:
    return time.perf_counter() - started
