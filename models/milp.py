"""A mixed-integer linear programme for optimal makespans, solved with HiGHS or SCIP.

The method ``milp`` is the second exact formulation of exactsched, written
independently of the CP-SAT model so the two can check each other. It takes a
:class:`~exactsched.problem.Problem` and returns a :class:`~exactsched.result.Result`:

* a *claim* (``stats["claim"]``) on a proof at zero gap on integer-scaled data:
  the model runs on the data times the resolution of
  :func:`models.cpsat.scale_data` (1 on integers, 10 for one decimal, ...,
  decided exactly, no snapping), and the makespan is proven when the solver's
  dual bound, less what its tolerances can cost and rounded up to an integer,
  reaches the makespan in those units. The result is still ``FEASIBLE`` with
  the foundation bound: a MILP proof is never trusted alone (HiGHS has proven
  false optima on small integer instances, ``tests/data/magnitude``), and
  :func:`exactsched.solve` reports ``OPTIMAL`` only once a witness of another
  engine certifies the claim (:mod:`models.certify`);
* ``FEASIBLE`` without a claim otherwise: time limit, a requested gap, a
  solver failure, a time limit that ran out while building, or magnitudes the
  tolerances cannot hold (the data are then rescaled coarser and rounded up, a
  restriction);
* ``INFEASIBLE`` never: every valid instance has a schedule (run the tasks one at
  a time in a topological order), and the model always gets one as a warm start;
* ``UNKNOWN`` never, for the same reason.

The returned schedule is not read off the solver's floating-point times: the
solver's processor assignment and the order of its start times are re-timed on
the original data by an earliest-start pass (:func:`models._horizon.semi_active`),
so it validates exactly. The lower bound is :func:`exactsched.bounds.lower_bound`
(rounded up on integer data); the solver's corrected bound is in
``stats["solver_bound_original"]``. Both gap tolerances are 0 and the integrality and feasibility
tolerances of both solvers 1e-9; anything the solvers print on standard output
goes to standard error.

The solvers are the HiGHS (default) and SCIP bundled with OR-Tools, reached
through ``ortools.math_opt``; no licence is needed.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from fractions import Fraction
from typing import Annotated, Any

import numpy as np

from exactsched.bounds import lower_bound_within
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import OneOf, register
from exactsched.result import Result, Status
from exactsched.schedule import Schedule
from models._horizon import horizon_schedule, optimistic_paths, order_from_times, semi_active
from models.cpsat import RelativeGap, ScaledData, scale_data

__all__ = ["milp", "build_model", "model_data", "BuildTimeout", "MAX_TASKS"]

# math_opt solver types by option value; HiGHS and SCIP ship inside OR-Tools. The
# stand-alone ``highspy`` is deliberately not used: its libhighs.so.1 has the same
# soname as the one inside OR-Tools, so whichever loads second fails to import.
#: Larger instances are refused up front: the pairwise-disjunction model grows with
#: the square of the tasks (2000 tasks: 4e6 ordering variables, minutes to build).
MAX_TASKS = 1000

#: Most arcs x processors**2 the model is built for: its arc rows hold that many
#: terms in Python lists (20 tasks on 4096 processors would need 6e8, 10 GB).
MAX_DELAY_ENTRIES = 5_000_000
_SOLVERS = {
    "highs": lambda mathopt: mathopt.SolverType.HIGHS,
    "scip": lambda mathopt: mathopt.SolverType.GSCIP,
}


class _Model:
    """Column bounds, integrality and rows of the MILP before they go to the solver."""

    def __init__(self) -> None:
        self.lb: list[float] = []
        self.ub: list[float] = []
        self.integer: list[int] = []
        self.rows: list[tuple[list[int], list[float], float, float]] = []

    def var(self, lb: float, ub: float, integer: bool = False) -> int:
        self.lb.append(lb)
        self.ub.append(ub)
        self.integer.append(1 if integer else 0)
        return len(self.lb) - 1

    def row(self, index: list[int], value: list[float], lower: float, upper: float) -> None:
        merged: dict[int, float] = {}
        for k, v in zip(index, value, strict=True):  # HiGHS rejects repeated columns
            merged[k] = merged.get(k, 0.0) + float(v)
        self.rows.append((list(merged), list(merged.values()), lower, upper))


def _reachability(problem: Problem) -> list[int]:
    """Bit ``j`` of ``reach[i]`` is set when a path of arcs leads from ``i`` to ``j``."""
    reach = [0] * problem.n_tasks
    for i in problem.topological_order[::-1].tolist():
        for j in problem.successors(i).tolist():
            reach[i] |= reach[j] | (1 << j)
    return reach


def build_model(
    problem: Problem,
    horizon: float,
    data: ScaledData | None = None,
    deadline: float | None = None,
) -> tuple[_Model, dict[str, Any]]:
    """The MILP of :func:`milp` for schedules no longer than ``horizon``.

    Parameters
    ----------
    problem : Problem
    horizon : float
        Upper bound on the makespan (big-M values and time windows use it), in
        the units of ``data``; :func:`milp` passes a known schedule's makespan,
        the certification (:mod:`models.certify`) the makespan to refute.
    data : ScaledData, optional
        Integer-scaled costs and delays (:func:`models.cpsat.scale_data`);
        default the problem's own numbers.
    deadline : float, optional
        A ``time.perf_counter()`` value; building raises :class:`BuildTimeout`
        once it is passed, so a time limit bounds the building too.

    Returns
    -------
    (_Model, dict)
        The model and the column maps ``x`` ((task, processor) -> column),
        ``s`` (task -> column), ``y`` ((task, task) -> column) and ``cmax``.

    Notes
    -----
    Variables: ``x[i, p]`` (task ``i`` runs on ``p``), ``s[i]`` (start, in the
    window ``[min_p ready[i, p], horizon - min_p through[i, p]]`` of
    :func:`models._horizon.optimistic_paths`), ``y[i, j]`` (``i``
    finishes before ``j`` starts) for every pair not ordered by a path of arcs that
    may compete for a processor or is an isolation pair, and ``C`` (makespan,
    integer when the data are).
    With ``c_i(x) = sum_p cost[i, p] x[i, p]`` and ``d_a(p, q)`` the delay of arc ``a``:

    * ``sum_p x[i, p] = 1``;
    * arc ``a = (i, j)``: for every processor ``p`` of ``i``,
      ``s_j >= s_i + c_i(x) + sum_q d_a(p, q) x[j, q] - H_p (1 - x[i, p])``
      with ``H_p = max_q d_a(p, q)``, and the mirror image for every ``q`` of ``j``;
      without delays just ``s_j >= s_i + c_i(x)``;
    * ``s_j >= s_i + c_i(x) - M_ij (1 - y[i, j])`` with
      ``M_ij = max s_i + max c_i - min s_j`` from the windows;
    * ``y[i, j] + y[j, i] >= x[i, p] + x[j, p] - 1`` on every processor ``p`` where
      both tasks have positive cost (zero-length tasks never conflict);
    * isolation: ``y[i, j] + y[j, i] >= 1`` less the ``x`` of zero-cost processors;
    * ``y[i, j] + y[j, i] <= 1``;
    * ``s_i >= sum_p ready[i, p] x[i, p]`` and ``C >= s_i + sum_p through[i, p] x[i, p]``
      (optimistic paths with communication, per processor of ``i``);
    * ``C >= sum_i cost[i, p] x[i, p]`` on every processor.
    """
    n, n_procs = problem.n_tasks, problem.n_processors
    allowed = problem.allowed
    if data is None:
        cost = problem.cost
        integral = problem.is_integral

        def arc_delay(a: int) -> np.ndarray:
            return problem.arc_unit[a] * problem.hops

        ready, through = optimistic_paths(problem)
    else:
        cost = data.cost
        integral = True

        def arc_delay(a: int) -> np.ndarray:
            return data.delay[a]

        ready, through = optimistic_paths(problem, cost=data.cost, delay=data.delay)

    def check_time() -> None:
        if deadline is not None and time.perf_counter() > deadline:
            raise BuildTimeout("milp: the time limit ran out while building the model")

    head = np.where(allowed, ready, np.inf).min(axis=1)
    tail = np.where(allowed, through, np.inf).min(axis=1)
    max_cost = np.where(allowed, cost, 0.0).max(axis=1)
    model = _Model()
    x: dict[tuple[int, int], int] = {}
    for i in range(n):
        for p in np.flatnonzero(allowed[i]).tolist():
            x[i, p] = model.var(0.0, 1.0, integer=True)
    # Windows from optimistic paths. Integer data need no slack (the horizon is an
    # exact makespan); on raw fractional data a little keeps the warm start inside.
    slack = 0.0 if integral else 1e-7 * max(1.0, horizon)
    s_ub = np.maximum(head, horizon - tail + slack)
    s = [model.var(float(head[i]), float(s_ub[i])) for i in range(n)]
    cmax = model.var(0.0, horizon + slack, integer=integral)

    def c_terms(i: int) -> tuple[list[int], list[float]]:
        procs = np.flatnonzero(allowed[i]).tolist()
        return [x[i, p] for p in procs], [float(cost[i, p]) for p in procs]

    for i in range(n):
        procs = np.flatnonzero(allowed[i]).tolist()
        model.row([x[i, p] for p in procs], [1.0] * len(procs), 1.0, 1.0)
        # C >= s_i + through[i, p] and s_i >= ready[i, p] for the processor p of i
        model.row(
            [cmax, s[i], *(x[i, p] for p in procs)],
            [1.0, -1.0, *(-float(through[i, p]) for p in procs)],
            0.0,
            math.inf,
        )
        if any(ready[i, p] > head[i] for p in procs):
            model.row(
                [s[i], *(x[i, p] for p in procs)],
                [1.0, *(-float(ready[i, p]) for p in procs)],
                0.0,
                math.inf,
            )
    for p in range(n_procs):
        tasks = [i for i in range(n) if allowed[i, p] and cost[i, p] > 0]
        if tasks:
            model.row(
                [cmax] + [x[i, p] for i in tasks],
                [1.0] + [-float(cost[i, p]) for i in tasks],
                0,
                math.inf,
            )
    check_time()

    for a in range(problem.n_edges):
        if a % 64 == 0:
            check_time()
        i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
        ci, cv = c_terms(i)
        base_idx, base_val = [s[j], s[i], *ci], [1.0, -1.0, *(-v for v in cv)]
        pi, qj = np.flatnonzero(allowed[i]).tolist(), np.flatnonzero(allowed[j]).tolist()
        model.row(base_idx, base_val, 0.0, math.inf)
        d = arc_delay(a)
        if problem.arc_unit[a] == 0 or not np.any(d[np.ix_(pi, qj)]):
            continue
        for k, p in enumerate(pi):  # i on p: pay the delay to wherever j runs
            if k % 64 == 63:  # one arc on 1024 processors holds 2 million terms
                check_time()
            big = max(float(d[p, q]) for q in qj)
            if big == 0:
                continue
            idx, val = list(base_idx), list(base_val)
            idx += [x[j, q] for q in qj if d[p, q] != 0]
            val += [-float(d[p, q]) for q in qj if d[p, q] != 0]
            idx.append(x[i, p])
            val.append(-big)
            model.row(idx, val, -big, math.inf)
        for k, q in enumerate(qj):  # j on q: pay the delay from wherever i runs
            if k % 64 == 63:
                check_time()
            big = max(float(d[p, q]) for p in pi)
            if big == 0:
                continue
            idx, val = list(base_idx), list(base_val)
            idx += [x[i, p] for p in pi if d[p, q] != 0]
            val += [-float(d[p, q]) for p in pi if d[p, q] != 0]
            idx.append(x[j, q])
            val.append(-big)
            model.row(idx, val, -big, math.inf)

    reach = _reachability(problem)
    isolated = {
        (min(a, b), max(a, b))
        for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True)
    }
    positive = allowed & (cost > 0)
    y: dict[tuple[int, int], int] = {}
    for i in range(n):
        check_time()
        for j in range(i + 1, n):
            if reach[i] >> j & 1 or reach[j] >> i & 1:
                continue  # ordered by a path: never overlap
            shared = np.flatnonzero(positive[i] & positive[j]).tolist()
            iso = (i, j) in isolated
            if not shared and not iso:
                continue
            y[i, j] = model.var(0.0, 1.0, integer=True)
            y[j, i] = model.var(0.0, 1.0, integer=True)
            for first, second in ((i, j), (j, i)):
                ci, cv = c_terms(first)
                big = float(s_ub[first] + max_cost[first] - head[second])
                if big <= 0:
                    big = 0.0
                # s_second - s_first - c_first(x) - big * y >= -big
                model.row(
                    [s[second], s[first], *ci, y[first, second]],
                    [1.0, -1.0, *(-v for v in cv), -big],
                    -big,
                    math.inf,
                )
            model.row([y[i, j], y[j, i]], [1.0, 1.0], -math.inf, 1.0)
            for p in shared:
                model.row(
                    [y[i, j], y[j, i], x[i, p], x[j, p]], [1.0, 1.0, -1.0, -1.0], -1.0, math.inf
                )
            if iso:
                zero = [
                    x[k, p]
                    for k in (i, j)
                    for p in np.flatnonzero(allowed[k] & (cost[k] == 0)).tolist()
                ]
                model.row([y[i, j], y[j, i], *zero], [1.0] * (2 + len(zero)), 1.0, math.inf)
    return model, {"x": x, "s": s, "y": y, "cmax": cmax}


def _warm_start(
    proc: np.ndarray, start: np.ndarray, finish: np.ndarray, cols: dict[str, Any], n_cols: int
) -> list[float]:
    """Column values of a schedule (processors, starts, finishes in the model's units)."""
    value = [0.0] * n_cols
    for (i, p), c in cols["x"].items():
        value[c] = 1.0 if proc[i] == p else 0.0
    for i, c in enumerate(cols["s"]):
        value[c] = float(start[i])
    value[cols["cmax"]] = float(finish.max()) if len(finish) else 0.0
    for (i, j), c in cols["y"].items():
        if i < j:
            before = finish[i] <= start[j]
            after = finish[j] <= start[i]
            if before and after:  # zero-length tasks: pick one direction
                after = False
            value[c] = 1.0 if before else 0.0
            value[cols["y"][j, i]] = 1.0 if after else 0.0
    return value


@register(
    "milp",
    kind="exact",
    description="MILP (assignment + pairwise disjunctions, windowed big-M), HiGHS or SCIP",
    source="assignment-and-ordering MILP as reviewed by Venugopalan and Sinnen, IEEE TPDS 2015",
)
def milp(
    problem: Problem,
    *,
    time_limit: float | None = None,
    workers: int | None = None,
    seed: int | None = 0,
    relative_gap: RelativeGap = 0.0,
    solver: Annotated[str, OneOf(tuple(_SOLVERS))] = "highs",
    log: bool = False,
) -> Result:
    """Minimise the makespan with a mixed-integer linear programme (HiGHS or SCIP).

    Parameters
    ----------
    problem : Problem
    time_limit : float, optional
        Wall-clock seconds for the whole method (default: none).
    workers : int, optional
        Solver threads for SCIP. HiGHS through ``math_opt`` takes no thread
        count (it is a process-wide HiGHS setting) and its MIP search is
        sequential, so ``workers`` is checked but not passed on.
    seed : int, optional
        Solver random seed (default 0).
    relative_gap : float
        Stop once ``(makespan - bound) / makespan <= relative_gap`` (default 0):
        the solver's own stopping ratio, not :attr:`exactsched.Result.gap`.
    solver : str
        ``"highs"`` (default) or ``"scip"``, both bundled with OR-Tools and
        reached through ``ortools.math_opt``.
    log : bool
        Print the solver log.

    Returns
    -------
    Result
        ``stats`` holds ``horizon`` (warm start makespan), ``warm_start`` (its
        heuristic), ``resolution`` and ``exact_data`` (the model's scaling),
        ``columns``, ``rows``, ``nodes``, ``solver_status`` (``error`` with
        ``solver_error``, or ``time_limit_while_building``) and ``solver_bound``
        (in model units).

    Raises
    ------
    MethodError
        For a negative ``time_limit`` or ``relative_gap``, ``workers < 1``, an
        unknown ``solver``, more than :data:`MAX_TASKS` tasks or more than
        :data:`MAX_DELAY_ENTRIES` arc-processor-pair terms (refused up front).

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> r = milp(p, time_limit=60, workers=1)
    >>> r.status.value, r.makespan, r.stats["claim"]["makespan"], validate(p, r.schedule)
    ('feasible', 73, 73, [])
    >>> from exactsched import solve
    >>> r = solve(p, "milp", time_limit=60, workers=1)  # certified by another engine
    >>> r.status.value, r.makespan, r.lower_bound, r.certified
    ('optimal', 73, 73, True)

    Notes
    -----
    The model is :func:`build_model`: an assignment-and-pairwise-disjunction
    formulation, with communication linearised per processor of each end of an
    arc (``2 P`` rows per arc instead of ``P^2`` products), big-M values taken
    from time windows of least-cost paths under the warm start's makespan, and
    the makespan an integer variable (the model's data are integers, so some
    optimal schedule has integer times). Zero-length tasks never conflict, as in
    the validator. See the module docstring for when ``OPTIMAL`` is reported.

    References
    ----------
    .. [1] S. Venugopalan and O. Sinnen, "ILP formulations for optimal task
       scheduling with communication delays on parallel systems", IEEE TPDS,
       2015 (compares this family of assignment-and-ordering MILPs with their
       packing formulation).
    .. [2] T. Davidovic et al., "Mathematical programming-based approach to
       scheduling of communicating tasks", Les Cahiers du GERAD G-2004-99, 2004
       (MILP with communication delays on an arbitrary network).
    """
    if time_limit is not None and not time_limit >= 0:
        raise MethodError(f"time_limit: must be >= 0, got {time_limit}")
    if workers is not None and workers < 1:
        raise MethodError(f"workers: must be >= 1, got {workers}")
    if not 0 <= relative_gap < 1:  # as cpsat's: a gap of 1 or more stops at any schedule
        raise MethodError(f"relative_gap: expected a number in [0, 1), got {relative_gap}")
    if solver not in _SOLVERS:
        raise MethodError(f"solver: unknown {solver!r}; known: {', '.join(_SOLVERS)}")
    if problem.n_tasks > MAX_TASKS:  # the pairwise model alone would take minutes to build
        raise MethodError(
            f"milp: {problem.n_tasks} tasks is more than {MAX_TASKS}: the pairwise-disjunction "
            f"model would have up to {problem.n_tasks * (problem.n_tasks - 1):.3g} ordering "
            "variables; use cpsat or a heuristic"
        )
    entries = len(problem.arc_src) * problem.n_processors**2
    if entries > MAX_DELAY_ENTRIES:  # one row per arc and processor, P terms each
        raise MethodError(
            f"milp: {len(problem.arc_src)} arcs on {problem.n_processors} processors need "
            f"{entries:.3g} communication terms, more than {MAX_DELAY_ENTRIES:.3g}; "
            "use cpsat or a heuristic"
        )
    from ortools.math_opt.python import mathopt

    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    # The foundation bound gets at most a third of the limit (its LPs are estimated).
    static = float(lower_bound_within(problem, None if time_limit is None else time_limit / 3)[0])
    # The warm start may use about a third of the limit (HEFT and the like, then
    # the model gets the rest); the first heuristic always runs. Which ones run is
    # decided from the sizes, and the seed goes to the randomised ones, so the
    # warm start is reproducible.
    warm, warm_name = horizon_schedule(
        problem, None if time_limit is None else time_limit / 3, seed
    )
    best = warm
    data, horizon = model_data(problem, warm)
    res = float(data.resolution)
    stats: dict[str, Any] = {
        "horizon": warm.makespan,
        "warm_start": warm_name,
        "solver": solver,
        "resolution": data.resolution,
        "exact_data": data.exact,
    }
    bound = static  # on the original data
    scaled_bound = -math.inf  # proven on the model's (scaled) data
    if warm.makespan > static:
        try:
            scaled_bound = _solve_model(
                problem,
                data,
                horizon,
                warm,
                deadline,
                solver,
                workers,
                seed,
                relative_gap,
                log,
                stats,
                mathopt,
            )
        except BuildTimeout:
            stats["solver_status"] = "time_limit_while_building"
        else:
            candidate = stats.pop("_candidate", None)
            if candidate is not None and candidate.makespan < best.makespan:
                best = candidate
    makespan = best.makespan
    solver_bound = bound
    if math.isfinite(scaled_bound):
        # An exact model's bound is a bound of the original times the resolution; a
        # rounded-up model's optimum exceeds that by less than ``slack`` units.
        solver_bound = max(bound, (scaled_bound - data.slack) / res)
    proven = _proven(problem, makespan, solver_bound, scaled_bound, data)
    # The solver's bound is a claim (HiGHS has proven false optima on small
    # integers, tests/data/magnitude): the reported bound is the foundation's.
    stats["solver_bound_original"] = solver_bound
    if proven:
        stats["claim"] = {"makespan": makespan, "bound": solver_bound}
    if problem.is_integral:
        bound = math.ceil(bound - 1e-9 * max(1.0, abs(bound)))
    bound = min(bound, makespan)
    return Result(
        method="milp",
        status=Status.FEASIBLE,
        schedule=best,
        makespan=makespan,
        lower_bound=int(bound) if problem.is_integral else float(bound),
        seconds=time.perf_counter() - started,
        stats=stats,
    )


class BuildTimeout(Exception):
    """The time limit ran out while :func:`build_model` was building."""


# Integrality and feasibility tolerances asked of HiGHS and SCIP (their smallest
# safe setting; the defaults are 1e-6).
_INT_TOL = 1e-9
# Largest total error, in model units, that the tolerances may cause along the
# model: a bound is trusted after subtracting it and rounding up to an integer.
_NUMERIC_BUDGET = 0.25


def model_data(problem: Problem, schedule: Schedule) -> tuple[ScaledData, float]:
    """Integer data for the MILP and the makespan of ``schedule`` on them.

    The resolution of :func:`models.cpsat.scale_data` is kept when the model's
    numbers stay within what the solvers' tolerances can hold: a big-M of ``2 H``
    (``H`` the horizon in model units) relaxed by the integrality tolerance on
    each of ``n`` tasks of a path must cost less than ``_NUMERIC_BUDGET`` units.
    Otherwise the resolution drops by powers of ten until it does; the data are
    then rounded up (a restriction: its schedules are valid, its bound is
    corrected by ``slack``), so the answer is usually ``feasible`` with a valid bound.

    Examples
    --------
    >>> p = Problem.from_lists([[1.5, 2.5], [3.5, 1]], [(0, 1, 2)])
    >>> data, horizon = model_data(p, Schedule.from_arrays(p, [0, 0], [0.0, 1.5]))
    >>> data.resolution, data.exact, horizon
    (10, True, 50.0)
    """
    data = scale_data(problem)
    n = max(1, problem.n_tasks)
    proc, start, _ = schedule.arrays(problem)
    order = order_from_times(problem, start, start + problem.cost[np.arange(n), proc])
    for _ in range(40):
        times = semi_active(problem, proc, order, cost=data.cost, delay=data.delay)
        horizon = float(np.max(times + data.cost[np.arange(problem.n_tasks), proc], initial=0))
        if 2.0 * horizon * n * _INT_TOL <= _NUMERIC_BUDGET:
            break
        data = scale_data(problem, resolution=float(data.resolution) / 10.0)
    return data, horizon


def _proven(
    problem: Problem, makespan: float, bound: float, scaled_bound: float, data: ScaledData
) -> bool:
    """Whether the solver's bound meets the makespan, compared in the model's integer units.

    On exact data the makespan lies on the grid up to the float rounding of a
    schedule's sums (none on integer data): it counts as the least grid value
    it may stand for, with no relative snapping.
    """
    if makespan <= bound:
        return True
    if not data.exact or not math.isfinite(scaled_bound):
        return False
    units = Fraction(float(makespan)) * Fraction(repr(float(data.resolution)))
    noise = Fraction(0)
    if not problem.is_integral:
        noise = Fraction(math.ulp(float(makespan))) * (4 * problem.n_tasks + 2) * units
        noise /= max(Fraction(float(makespan)), Fraction(1, 10**300))
    return scaled_bound >= math.ceil(units - noise)


def _solve_model(
    problem: Problem,
    data: ScaledData,
    horizon: float,
    warm: Schedule,
    deadline: float | None,
    solver: str,
    workers: int | None,
    seed: int | None,
    relative_gap: float,
    log: bool,
    stats: dict[str, Any],
    mathopt: Any,
) -> float:
    """Build and solve the model; the proven bound in model units (``-inf`` if none).

    The best schedule, re-timed on the original data, is left in ``stats["_candidate"]``.
    """
    model, cols = build_model(problem, horizon, data, deadline)
    mo = mathopt.Model(name="exactsched-milp")
    var = [
        mo.add_variable(lb=lo, ub=up, is_integer=bool(k))
        for lo, up, k in zip(model.lb, model.ub, model.integer, strict=True)
    ]
    for r, (idx, val, lower, upper) in enumerate(model.rows):
        if r % 256 == 0 and deadline is not None and time.perf_counter() > deadline:
            raise BuildTimeout("milp: the time limit ran out while building the model")
        expr = mathopt.fast_sum(v * var[k] for k, v in zip(idx, val, strict=True))
        mo.add_linear_constraint(lb=lower, ub=upper, expr=expr)
    mo.minimize(var[cols["cmax"]])
    limit = None
    if deadline is not None:
        # A year is as good as no limit; timedelta (and the solver) overflow near 1e14 s.
        limit = timedelta(seconds=min(max(0.01, deadline - time.perf_counter()), 3.2e7))
    params = mathopt.SolveParameters(
        time_limit=limit,
        # HiGHS through math_opt takes no thread count (it is a HiGHS global)
        threads=None if solver == "highs" else workers,
        random_seed=int(seed or 0),
        # Stop only on a closed gap (or the gap asked for): no tolerance on top.
        relative_gap_tolerance=float(relative_gap),
        absolute_gap_tolerance=0.0,
        enable_output=bool(log),
        **_tolerances(solver),
    )
    proc, start, _ = warm.arrays(problem)
    order = order_from_times(problem, start, start + problem.cost[np.arange(len(proc)), proc])
    s_scaled = semi_active(problem, proc, order, cost=data.cost, delay=data.delay)
    f_scaled = s_scaled + data.cost[np.arange(len(proc)), proc]
    hint = _warm_start(proc, s_scaled, f_scaled, cols, len(var))
    model_params = mathopt.ModelSolveParameters(
        solution_hints=[mathopt.SolutionHint(variable_values=dict(zip(var, hint, strict=True)))]
    )
    stats.update(columns=len(var), rows=len(model.rows))
    try:
        with _solver_output(bool(log)):
            result = mathopt.solve(
                mo, _SOLVERS[solver](mathopt), params=params, model_params=model_params
            )
    except Exception as error:  # noqa: BLE001  a solver failure must not lose the schedule
        # math_opt can fail inside its own error translation (seen on times near
        # 1e9: "'StatusNotOk' object has no attribute 'canonical_code'").
        stats.update(solver_status="error", solver_error=str(error).splitlines()[0][:200])
        return -math.inf
    dual = float(result.termination.objective_bounds.dual_bound)
    stats.update(
        nodes=int(result.solve_stats.node_count),
        solver_status=result.termination.reason.name.lower(),
        solver_bound=dual if math.isfinite(dual) else None,
    )
    if result.has_primal_feasible_solution():
        values = [result.variable_values(v) for v in var]
        stats["_candidate"] = _retime(problem, values, cols, data)
    if not math.isfinite(dual):
        return -math.inf
    # The scaled optimum is an integer: round the dual bound up, after taking
    # off what the tolerances may have cost.
    return float(math.ceil(dual - _NUMERIC_BUDGET))


@contextlib.contextmanager
def _solver_output(log: bool) -> Iterator[None]:
    """Send what the solver libraries print on file descriptor 1 to standard error, or nowhere.

    HiGHS prints some messages even with output off (its MIP solver's
    ``HighsMipSolverData::transformNewIntegerFeasibleSolution`` debug line): on
    standard output they would corrupt ``exactsched solve --json``, and without
    ``log`` they are dropped, as the solver's log is. With ``log`` the log goes to
    standard error.
    """
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no file descriptor 1 (embedded interpreters): nothing to protect
        yield
        return
    sink = os.open(os.devnull, os.O_WRONLY) if not log else None
    try:
        os.dup2(2 if sink is None else sink, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        if sink is not None:
            os.close(sink)


def _tolerances(solver: str) -> dict[str, Any]:
    """Solver-specific parameters: integrality and feasibility tolerances of ``_INT_TOL``."""
    if solver == "highs":
        from ortools.math_opt.solvers import highs_pb2

        options = highs_pb2.HighsOptionsProto()
        for key in ("mip_feasibility_tolerance", "primal_feasibility_tolerance"):
            options.double_options[key] = _INT_TOL
        return {"highs": options}
    from ortools.math_opt.solvers.gscip import gscip_pb2

    scip = gscip_pb2.GScipParameters()
    scip.real_params["numerics/feastol"] = _INT_TOL
    return {"gscip": scip}


def _retime(problem: Problem, col_value: Any, cols: dict[str, Any], data: ScaledData) -> Schedule:
    """Re-time the solver's assignment and start order on the original numbers."""
    n = problem.n_tasks
    values = np.asarray(col_value, dtype=float)
    proc = np.full(n, -1, dtype=np.int64)
    weight = np.full(n, -1.0)
    for (i, p), c in cols["x"].items():
        if values[c] > weight[i]:
            weight[i], proc[i] = values[c], p
    start = values[np.asarray(cols["s"], dtype=np.int64)]
    finish = start + data.cost[np.arange(n), proc]
    order = order_from_times(problem, start, finish)
    return Schedule.from_arrays(problem, proc, semi_active(problem, proc, order))
