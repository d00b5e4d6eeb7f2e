"""A mixed-integer linear programme for optimal makespans, solved with HiGHS or SCIP.

The method ``milp`` is the second exact formulation of exactsched, written
independently of the CP-SAT model so the two can check each other. It takes a
:class:`~exactsched.problem.Problem` and returns a :class:`~exactsched.result.Result`:

* ``OPTIMAL`` only when the solver proves it (the bound meets the makespan);
* ``FEASIBLE`` with the best bound otherwise (time limit, or a requested gap);
* ``INFEASIBLE`` never: every valid instance has a schedule (run the tasks one at
  a time in a topological order), and the model always gets one as a warm start;
* ``UNKNOWN`` never, for the same reason.

The returned schedule is not read off the solver's floating-point times: the
solver's processor assignment and the order of its start times are re-timed on
the original data by an earliest-start pass (:func:`models._milp_horizon.semi_active`),
so it validates exactly and is never longer than the solver's (up to tolerances).
The lower bound is the larger of the solver's dual bound and
:func:`exactsched.bounds.lower_bound`, rounded up on integer data, and on data
that are exact multiples of ``1 / resolution`` (see
:func:`models.cpsat.scale_data`) rounded up to that grid.

The solvers are the HiGHS (default) and SCIP bundled with OR-Tools, reached
through ``ortools.math_opt``; no licence is needed.
"""

from __future__ import annotations

import math
import time
from datetime import timedelta
from typing import Any

import numpy as np

from exactsched.bounds import lower_bound as _static_lower_bound
from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.registry import register
from exactsched.result import Result, Status
from exactsched.schedule import Schedule
from models._milp_horizon import horizon_schedule, optimistic_paths, order_from_times, semi_active
from models.cpsat import scale_data

__all__ = ["milp", "build_model"]

# math_opt solver types by option value; HiGHS and SCIP ship inside OR-Tools. The
# stand-alone ``highspy`` is deliberately not used: its libhighs.so.1 has the same
# soname as the one inside OR-Tools, so whichever loads second fails to import.
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


def build_model(problem: Problem, horizon: float) -> tuple[_Model, dict[str, Any]]:
    """The MILP of :func:`milp` for schedules no longer than ``horizon``.

    Parameters
    ----------
    problem : Problem
    horizon : float
        Makespan of a known valid schedule (big-M values and time windows use it).

    Returns
    -------
    (_Model, dict)
        The model and the column maps ``x`` ((task, processor) -> column),
        ``s`` (task -> column), ``y`` ((task, task) -> column) and ``cmax``.

    Notes
    -----
    Variables: ``x[i, p]`` (task ``i`` runs on ``p``), ``s[i]`` (start, in the
    window ``[min_p ready[i, p], horizon - min_p through[i, p]]`` of
    :func:`models._milp_horizon.optimistic_paths`), ``y[i, j]`` (``i``
    finishes before ``j`` starts) for every pair not ordered by a path of arcs that
    may compete for a processor or is an isolation pair, and ``C`` (makespan).
    With ``c_i(x) = sum_p cost[i, p] x[i, p]``:

    * ``sum_p x[i, p] = 1``;
    * arc ``a = (i, j)`` with ``u = arc_unit[a]``: for every processor ``p`` of
      ``i``, ``s_j >= s_i + c_i(x) + u sum_q hops[p, q] x[j, q] - u H_p (1 - x[i, p])``
      with ``H_p = max_q hops[p, q]``, and the mirror image for every ``q`` of ``j``;
      with ``u = 0`` just ``s_j >= s_i + c_i(x)``;
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
    cost, allowed, hops = problem.cost, problem.allowed, problem.hops
    ready, through = optimistic_paths(problem)
    head = np.where(allowed, ready, np.inf).min(axis=1)
    tail = np.where(allowed, through, np.inf).min(axis=1)
    max_cost = np.where(allowed, cost, 0.0).max(axis=1)
    model = _Model()
    x: dict[tuple[int, int], int] = {}
    for i in range(n):
        for p in np.flatnonzero(allowed[i]).tolist():
            x[i, p] = model.var(0.0, 1.0, integer=True)
    # Windows from optimistic paths; the slack keeps the warm start inside on fractional data.
    slack = 1e-7 * max(1.0, horizon)
    s_ub = np.maximum(head, horizon - tail + slack)
    s = [model.var(float(head[i]), float(s_ub[i])) for i in range(n)]
    cmax = model.var(0.0, horizon + slack, integer=problem.is_integral)

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
                [1.0] + [-cost[i, p] for i in tasks],
                0,
                math.inf,
            )

    for a in range(problem.n_edges):
        i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
        u = float(problem.arc_unit[a])
        ci, cv = c_terms(i)
        base_idx, base_val = [s[j], s[i], *ci], [1.0, -1.0, *(-v for v in cv)]
        pi, qj = np.flatnonzero(allowed[i]).tolist(), np.flatnonzero(allowed[j]).tolist()
        model.row(base_idx, base_val, 0.0, math.inf)
        if u == 0:
            continue
        for p in pi:  # i on p: pay the delay to wherever j runs
            big = u * max(float(hops[p, q]) for q in qj)
            if big == 0:
                continue
            idx, val = list(base_idx), list(base_val)
            idx += [x[j, q] for q in qj if hops[p, q] != 0]
            val += [-u * float(hops[p, q]) for q in qj if hops[p, q] != 0]
            idx.append(x[i, p])
            val.append(-big)
            model.row(idx, val, -big, math.inf)
        for q in qj:  # j on q: pay the delay from wherever i runs
            big = u * max(float(hops[p, q]) for p in pi)
            if big == 0:
                continue
            idx, val = list(base_idx), list(base_val)
            idx += [x[i, p] for p in pi if hops[p, q] != 0]
            val += [-u * float(hops[p, q]) for p in pi if hops[p, q] != 0]
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
    problem: Problem, schedule: Schedule, cols: dict[str, Any], n_cols: int
) -> list[float]:
    """Column values of ``schedule`` in the model's columns."""
    proc, start, finish = schedule.arrays(problem)
    value = [0.0] * n_cols
    for (i, p), c in cols["x"].items():
        value[c] = 1.0 if proc[i] == p else 0.0
    for i, c in enumerate(cols["s"]):
        value[c] = float(start[i])
    value[cols["cmax"]] = float(schedule.makespan)
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
    relative_gap: float = 0.0,
    solver: str = "highs",
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
        Stop once ``(makespan - bound) / makespan <= relative_gap`` (default 0).
    solver : str
        ``"highs"`` (default) or ``"scip"``, both bundled with OR-Tools and
        reached through ``ortools.math_opt``.
    log : bool
        Print the solver log.

    Returns
    -------
    Result
        ``stats`` holds ``horizon`` (warm start makespan), ``warm_start`` (its
        heuristic), ``columns``, ``rows``, ``nodes``, ``solver_status``,
        ``solver_bound``.

    Raises
    ------
    MethodError
        For a negative ``time_limit`` or ``relative_gap``, ``workers < 1`` or an
        unknown ``solver``.

    Examples
    --------
    >>> from exactsched import load_instance, validate
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> r = milp(p, time_limit=60, workers=1)
    >>> r.status.value, r.makespan, r.lower_bound, validate(p, r.schedule)
    ('optimal', 73, 73, [])

    Notes
    -----
    The model is :func:`build_model`: an assignment-and-pairwise-disjunction
    formulation, with communication linearised per processor of each end of an
    arc (``2 P`` rows per arc instead of ``P^2`` products), big-M values taken
    from time windows of least-cost paths under the warm start's makespan, and
    the makespan an integer variable on integer data (some optimal schedule then
    has integer times). Zero-length tasks never conflict, as in the validator.
    With integer data the solver may stop at an absolute gap below 1, since the
    re-timed schedule is then integral and the bound rounds up.

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
    if time_limit is not None and time_limit < 0:
        raise MethodError(f"time_limit: must be >= 0, got {time_limit}")
    if workers is not None and workers < 1:
        raise MethodError(f"workers: must be >= 1, got {workers}")
    if relative_gap < 0:
        raise MethodError(f"relative_gap: must be >= 0, got {relative_gap}")
    if solver not in _SOLVERS:
        raise MethodError(f"solver: unknown {solver!r}; known: {', '.join(_SOLVERS)}")
    from ortools.math_opt.python import mathopt

    started = time.perf_counter()
    integral = problem.is_integral
    # On data that are exact multiples of 1 / grid (decimals, halves, ...), every
    # semi-active schedule, an optimal one among them, ends on that grid, so the
    # dual bound may be rounded up to it.
    scaled = scale_data(problem)
    grid = float(scaled.resolution) if scaled.exact else None
    static = float(_static_lower_bound(problem))
    warm, warm_name = horizon_schedule(problem)
    horizon = float(warm.makespan)
    stats: dict[str, Any] = {"horizon": warm.makespan, "warm_start": warm_name, "solver": solver}
    best = warm
    bound = static
    if horizon - static > _tolerance(horizon, integral):
        model, cols = build_model(problem, horizon)
        mo = mathopt.Model(name="exactsched-milp")
        var = [
            mo.add_variable(lb=lo, ub=up, is_integer=bool(k))
            for lo, up, k in zip(model.lb, model.ub, model.integer, strict=True)
        ]
        for idx, val, lower, upper in model.rows:
            expr = mathopt.fast_sum(v * var[k] for k, v in zip(idx, val, strict=True))
            mo.add_linear_constraint(lb=lower, ub=upper, expr=expr)
        mo.minimize(var[cols["cmax"]])
        limit = None
        if time_limit is not None:
            limit = timedelta(seconds=max(0.01, time_limit - (time.perf_counter() - started)))
        params = mathopt.SolveParameters(
            time_limit=limit,
            # HiGHS through math_opt takes no thread count (it is a HiGHS global)
            threads=None if solver == "highs" else workers,
            random_seed=int(seed or 0),
            relative_gap_tolerance=float(relative_gap),
            absolute_gap_tolerance=(1 - 1e-6) / grid if grid else 1e-9 * max(1.0, horizon),
            enable_output=bool(log),
        )
        hint = _warm_start(problem, warm, cols, len(var))
        model_params = mathopt.ModelSolveParameters(
            solution_hints=[
                mathopt.SolutionHint(variable_values=dict(zip(var, hint, strict=True)))
            ]
        )
        result = mathopt.solve(
            mo, _SOLVERS[solver](mathopt), params=params, model_params=model_params
        )
        dual = float(result.termination.objective_bounds.dual_bound)
        stats.update(
            columns=len(var),
            rows=len(model.rows),
            nodes=int(result.solve_stats.node_count),
            solver_status=result.termination.reason.name.lower(),
            solver_bound=dual if math.isfinite(dual) else None,
        )
        if math.isfinite(dual):
            bound = max(bound, dual)
        if result.has_primal_feasible_solution():
            values = [result.variable_values(v) for v in var]
            candidate = _retime(problem, values, cols)
            if candidate.makespan < best.makespan:
                best = candidate
    makespan = best.makespan
    if integral:
        bound = math.ceil(bound - 1e-6)
    elif grid:
        bound = math.ceil(bound * grid - 1e-6) / grid
    bound = min(bound, makespan)  # a bound above a valid makespan can only be numerical noise
    proven = makespan - bound <= _tolerance(makespan, integral)
    if proven:
        bound = makespan
    return Result(
        method="milp",
        status=Status.OPTIMAL if proven else Status.FEASIBLE,
        schedule=best,
        makespan=makespan,
        lower_bound=int(bound) if integral else float(bound),
        seconds=time.perf_counter() - started,
        stats=stats,
    )


def _tolerance(makespan: float, integral: bool) -> float:
    """How close makespan and bound must be to call the makespan optimal."""
    return 0.0 if integral else 1e-6 * max(1.0, abs(makespan))


def _retime(problem: Problem, col_value: Any, cols: dict[str, Any]) -> Schedule:
    """Re-time the solver's assignment and start order on the original numbers."""
    n = problem.n_tasks
    values = np.asarray(col_value, dtype=float)
    proc = np.full(n, -1, dtype=np.int64)
    weight = np.full(n, -1.0)
    for (i, p), c in cols["x"].items():
        if values[c] > weight[i]:
            weight[i], proc[i] = values[c], p
    start = values[np.asarray(cols["s"], dtype=np.int64)]
    finish = start + problem.cost[np.arange(n), proc]
    order = order_from_times(problem, start, finish)
    return Schedule.from_arrays(problem, proc, semi_active(problem, proc, order))
