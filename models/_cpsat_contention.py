"""CP-SAT model under the single-port and contention models (private helper of cpsat).

The communication models of ``docs/instance-format.md`` ("Communication
models") make ports or links resources. The model, after Sinnen and Sousa's
edge scheduling [1]_ written as constraint programming:

* per task ``j`` a start ``s_j`` and, per allowed processor ``q``, a literal
  ``x_jq`` and an optional interval ``[s_j, s_j + cost_jq)`` present when
  ``x_jq``; exactly one ``x_jq`` per task; ``add_no_overlap`` per processor;
* per data edge ``i -> j`` and per pair ``(p, q)`` of allowed processors whose
  route (:class:`topologies.routing.Routing`) has stages, a literal
  ``y = x_ip and x_jq`` and, per stage ``k``, a start ``m_k`` and an optional
  interval ``[m_k, m_k + weight_k * unit)`` present when ``y``, on each port or
  link of the stage (``add_no_overlap`` per port or link); enforced by ``y``:
  ``m_0 >= end_i``, ``m_{k+1} >= m_k + dur_k`` (store-and-forward) and
  ``s_j >= m_last + dur_last``;
* every arc: ``s_j >= end_i`` (a pair without a route is 0 hops apart, so its
  delay is 0); isolation pairs: one ``add_no_overlap`` over the positive-length
  intervals of both tasks;
* objective: the makespan; hint and horizon from the best message-aware
  heuristic schedule.

Data are scaled by the least power of ten (times 2 on a fat tree, whose links
weigh 1/2) that makes every cost and stage duration (the decimal weight times
the decimal ``latency + data / bandwidth``) an integer, exactly; data that
need more than 10**6 are refused with one line, and so are models of more
than ``_MAX_INTERVALS`` stages, counted off the hop matrix before any route is
built. Zero-length intervals are left out (they hold nothing). The time limit
covers the whole call: when it runs out while the model is built, the best
heuristic schedule is returned as ``FEASIBLE``. The result is ``OPTIMAL`` only
when CP-SAT proves it; the lower bound is the better of CP-SAT's bound and
the delay model's :func:`exactsched.bounds.lower_bound_within` the time left
(contention only adds waits).

References
----------
.. [1] O. Sinnen, L. A. Sousa, "Communication contention in task scheduling",
   IEEE TPDS 16(6), 503-515, 2005. doi:10.1109/TPDS.2005.64
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from exactsched.bounds import lower_bound_within
from exactsched.errors import MethodError
from exactsched.messages import LinkTime, Message
from exactsched.problem import Problem
from exactsched.result import Result, Status
from exactsched.schedule import Schedule, _tidy
from models._clock import LOAD_SHARE, Clock, OutOfTime
from models._cpsat_run import run_solver
from models._grid import exact_units

__all__ = ["solve_contention", "HINT_HEURISTICS"]

HINT_HEURISTICS = ("heft", "cpop", "peft", "etf", "mct", "bl-est")
"""Message-aware heuristics whose best schedule is the hint and horizon."""

_MAX_SCALE = 10**6
#: Largest horizon x (tasks + 1) in scaled units: CP-SAT's linear sums stay in 2**62,
#: and the times of the returned schedule are exact floats (2**53).
_MAX_SCALED = 2**53
_MAX_INTERVALS = 2_000_000

_StageVars = dict[tuple[int, int, int], tuple[Any, list[Any]]]
"""Per (edge, sending processor, receiving processor): the literal and the stage starts."""
_Model = tuple[cp_model.CpModel, list[Any], list[dict[int, Any]], _StageVars]
"""The model, the task starts, the placement literals and the stage variables."""


def _fraction(x: float) -> Fraction:
    return Fraction(repr(float(x))) if not float(x).is_integer() else Fraction(int(x))


def _scale(values: list[Fraction]) -> int:
    """The least ``10**k`` or ``2 * 10**k`` making every value an integer (or 0)."""
    dens = {v.denominator for v in values if v > 0}
    for k in range(7):
        for scale in (10**k, 2 * 10**k):
            if scale <= _MAX_SCALE and all(scale % d == 0 for d in dens):
                return scale
    return 0


def solve_contention(
    problem: Problem,
    *,
    time_limit: float | None,
    workers: int | None,
    seed: int | None,
    log: bool = False,
) -> Result:
    """Solve ``problem`` (single-port or contention) with the model of the module docstring."""
    clock = Clock(time_limit)
    from exactsched.registry import get_method

    routing = problem.routing
    n = problem.n_tasks
    n_edges = len(problem.edge_src)
    # latency + data / bandwidth as its decimal, exactly: a stage lasts weight x unit,
    # and 3 x 0.1 in floats is 0.30000000000000004, which no scale makes whole.
    unit = [_fraction(u) for u in exact_units(problem)[:n_edges].tolist()]
    allowed = [problem.allowed_processors(j).tolist() for j in range(n)]

    # ---- size and exact integer scaling, read off the hop matrix: no route built yet
    # (89 million stages on a 32 x 32 mesh took 322 s and 8 GB to refuse).
    values = [_fraction(c) for c in set(problem.cost[problem.allowed].tolist())]
    per_pair: dict[tuple[bytes, bytes], tuple[int, list[float]]] = {}
    n_intervals = 0
    for e in range(n_edges):
        i, j = int(problem.edge_src[e]), int(problem.edge_dst[e])
        key = (problem.allowed[i].tobytes(), problem.allowed[j].tobytes())
        if key not in per_pair:
            count = int(routing.lengths(allowed[i], allowed[j]).sum())
            per_pair[key] = (count, routing.stage_weights(allowed[i], allowed[j]))
        count, weights = per_pair[key]
        n_intervals += count
        if n_intervals > _MAX_INTERVALS:
            raise MethodError(
                f"cpsat: {n_intervals} or more message stages to model under "
                f"{problem.communication}, more than {_MAX_INTERVALS}; use a heuristic"
            )
        values.extend(_fraction(w) * unit[e] for w in weights)
    scale = _scale(values)
    if not scale:
        raise MethodError(
            f"cpsat: under {problem.communication} the costs and message durations must be "
            f"integers after scaling by at most {_MAX_SCALE:g} (decimals up to 6 places)"
        )

    def sc(x: float | Fraction) -> int:
        return int((x if isinstance(x, Fraction) else _fraction(x)) * scale)

    # ---- warm start: the best message-aware heuristic schedule (the first one always:
    # it is the answer when the time runs out)
    best: Schedule | None = None
    best_name = ""
    for name in HINT_HEURISTICS:
        if best is not None and clock.expired():
            break
        schedule = get_method(name).func(problem)
        if best is None or schedule.makespan < best.makespan:
            best, best_name = schedule, name
    assert best is not None
    foundation, complete = lower_bound_within(
        problem, None if time_limit is None else max(0.0, clock.left())
    )
    foundation = float(foundation)
    stats: dict[str, Any] = {
        "scale": scale,
        "hint": best_name,
        "message_stages": n_intervals,
        "foundation_bound": foundation if complete else f"{foundation} (cut short: time)",
    }
    if best.makespan <= foundation:
        return Result(
            "cpsat",
            Status.OPTIMAL,
            best,
            best.makespan,
            best.makespan,
            clock.elapsed(),
            {**stats, "stopped": "bound met"},
        )

    # Ceiling: the heuristic's float makespan may sit an ulp below its exact value, and
    # a horizon one unit too long costs nothing.
    horizon = math.ceil(_fraction(best.makespan) * scale)
    if horizon * (n + 1) > _MAX_SCALED:  # CP-SAT holds 64-bit sums of these times
        raise MethodError(
            f"cpsat: under {problem.communication} the times scaled to integers (x{scale}) "
            f"reach {horizon:.3g}, beyond what CP-SAT can sum exactly; use a heuristic "
            "(or give the data in coarser units)"
        )
    built: _Model | None = None
    try:
        built = _build(problem, best, horizon, unit, allowed, sc, clock)
    except OutOfTime as exc:
        stats["stopped"] = str(exc)
    stats["build_seconds"] = round(clock.elapsed(), 4)
    if built is None:  # the heuristic's schedule, with the bound proven so far
        # (read the clock after the partial model, freed with the exception, is gone)
        return Result(
            "cpsat",
            Status.FEASIBLE,
            best,
            best.makespan,
            min(foundation, best.makespan),
            clock.elapsed(),
            stats,
        )
    model, start, x, stage_vars = built

    solver = cp_model.CpSolver()
    params = solver.parameters
    if time_limit is not None:
        params.max_time_in_seconds = max(0.0, clock.left())
    params.num_workers = int(workers) if workers else 1
    params.random_seed = int(seed or 0)
    params.log_search_progress = bool(log)
    code = run_solver(solver, model)
    stats.update(
        solver_status=solver.status_name(code),
        branches=solver.num_branches,
        conflicts=solver.num_conflicts,
        variables=len(model.proto.variables),
    )
    schedule = best
    bound = foundation
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        found = _extract(problem, solver, start, x, stage_vars, scale, unit)
        if found.makespan <= schedule.makespan:
            schedule = found
        bound = max(bound, solver.best_objective_bound / scale)
    elif code == cp_model.UNKNOWN:
        bound = max(bound, solver.best_objective_bound / scale)
    if code == cp_model.OPTIMAL or schedule.makespan <= bound:
        status = Status.OPTIMAL
        bound = schedule.makespan
    else:
        status = Status.FEASIBLE
        bound = min(bound, schedule.makespan)
    return Result("cpsat", status, schedule, schedule.makespan, bound, clock.elapsed(), stats)


def _build(
    problem: Problem,
    best: Schedule,
    horizon: int,
    unit: list[Fraction],
    allowed: list[list[int]],
    sc: Callable[[float | Fraction], int],
    clock: Clock,
) -> _Model:
    """The model of the module docstring with ``best`` as its hint.

    Raises
    ------
    OutOfTime
        Naming the stage, when the clock runs out while building or when the
        time left would not even load the model.
    """
    routing = problem.routing
    n = problem.n_tasks
    n_edges = len(problem.edge_src)
    began = clock.elapsed()

    def check(stage: str) -> None:
        # Out of time, or already too little left to load what is built (see the end):
        # stopping then also leaves time to free the partial model.
        if clock.left() < LOAD_SHARE * (clock.elapsed() - began):
            raise OutOfTime(stage)

    duration: dict[tuple[float, Fraction], int] = {}  # (weight, unit): scaled, exactly
    model = cp_model.CpModel()
    start = [model.new_int_var(0, horizon, f"s{j}") for j in range(n)]
    end = [model.new_int_var(0, horizon, f"e{j}") for j in range(n)]
    makespan = model.new_int_var(0, horizon, "makespan")
    x: list[dict[int, Any]] = []
    per_resource: dict[tuple[str, int], list[Any]] = {}
    task_ivs: list[list[Any]] = []
    for j in range(n):
        check("tasks")
        lits = {}
        ivs = []
        for q in allowed[j]:
            lit = model.new_bool_var(f"x{j},{q}")
            lits[q] = lit
            c = sc(problem.cost[j, q])
            if c > horizon:  # cannot run there within the heuristic's makespan
                model.add(lit == 0)
                continue
            model.add(end[j] == start[j] + c).only_enforce_if(lit)
            if c > 0:
                iv = model.new_optional_fixed_size_interval_var(start[j], c, lit, f"t{j},{q}")
                per_resource.setdefault(("proc", q), []).append(iv)
                ivs.append(iv)
        model.add_exactly_one(lits.values())
        x.append(lits)
        task_ivs.append(ivs)
        model.add(makespan >= end[j])
    for a in range(len(problem.arc_src)):
        model.add(start[int(problem.arc_dst[a])] >= end[int(problem.arc_src[a])])
    for a_, b_ in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        both = task_ivs[a_] + task_ivs[b_]
        if task_ivs[a_] and task_ivs[b_]:
            model.add_no_overlap(both)
    stage_vars: _StageVars = {}
    for e in range(n_edges):
        i, j = int(problem.edge_src[e]), int(problem.edge_dst[e])
        for p, q in itertools.product(allowed[i], allowed[j]):
            route = routing.route(p, q)
            if not route:
                continue  # no message: s_j >= end_i above is the whole delay
            check("message stages")
            y = model.new_bool_var(f"y{e},{p},{q}")
            model.add_implication(y, x[i][p])
            model.add_implication(y, x[j][q])
            model.add_bool_or([x[i][p].Not(), x[j][q].Not(), y])
            before = end[i]
            ms = []
            durations = []
            for _, w, _ in route:
                if (w, unit[e]) not in duration:
                    duration[w, unit[e]] = sc(_fraction(w) * unit[e])
                durations.append(duration[w, unit[e]])
            if max(durations, default=0) > horizon:
                model.add(y == 0)  # a stage longer than the heuristic's whole makespan
                continue
            for k, ((res, _, _), d) in enumerate(zip(route, durations, strict=True)):
                m = model.new_int_var(0, horizon, f"m{e},{p},{q},{k}")
                model.add(m >= before).only_enforce_if(y)
                if d > 0:
                    iv = model.new_optional_fixed_size_interval_var(m, d, y, f"c{e},{p},{q},{k}")
                    for r in res:
                        per_resource.setdefault(("res", r), []).append(iv)
                before = m + d  # a linear expression: unbounded when the message is absent
                ms.append(m)
            model.add(start[j] >= before).only_enforce_if(y)
            stage_vars[e, p, q] = (y, ms)
    for ivs in per_resource.values():
        if len(ivs) > 1:
            model.add_no_overlap(ivs)
    model.minimize(makespan)

    # ---- hint: the heuristic schedule, scaled (exact: same data, same scale)
    where = [problem.proc_index[best[t].processor] for t in problem.task_ids]
    for j in range(n):
        model.add_hint(start[j], sc(best[problem.task_ids[j]].start))
        for q, lit in x[j].items():
            model.add_hint(lit, int(q == where[j]))
    hinted = {(m.src, m.dst): m for m in best.messages}
    for (e, p, q), (y, ms) in stage_vars.items():
        check("hint")
        i, j = int(problem.edge_src[e]), int(problem.edge_dst[e])
        on = where[i] == p and where[j] == q
        model.add_hint(y, int(on))
        msg = hinted.get((problem.task_ids[i], problem.task_ids[j])) if on else None
        if msg is not None:
            times = [h.start for h in msg.links] if msg.links else [msg.start]
            for m, t in zip(ms, times, strict=True):
                model.add_hint(m, sc(t))
    # CP-SAT takes time to load and presolve a model whatever its limit (as in
    # models/cpsat.py): not started when the time left is below a share of the build's.
    check("solve")
    return model, start, x, stage_vars


def _extract(
    problem: Problem,
    solver: cp_model.CpSolver,
    start: list[Any],
    x: list[dict[int, Any]],
    stage_vars: _StageVars,
    scale: int,
    unit: list[Fraction],
) -> Schedule:
    ids = problem.task_ids
    routing = problem.routing
    links = problem.communication == "contention"
    proc = np.array([next(q for q, lit in lits.items() if solver.value(lit)) for lits in x])
    begin = [_unscale(solver.value(s), scale) for s in start]
    messages = []
    for (e, p, q), (y, ms) in sorted(stage_vars.items()):
        if not solver.value(y):
            continue
        i, j = int(problem.edge_src[e]), int(problem.edge_dst[e])
        times = []
        for m, (_, w, name) in zip(ms, routing.route(p, q), strict=True):
            s = Fraction(solver.value(m), scale)
            times.append((name, _tidy(float(s)), _tidy(float(s + _fraction(w) * unit[e]))))
        hops = tuple(LinkTime(*t) for t in times) if links else ()
        messages.append(Message(ids[i], ids[j], times[0][1], times[-1][2], hops))
    return Schedule.from_arrays(problem, proc, np.array(begin), messages)


def _unscale(value: int, scale: int) -> float:
    return float(Fraction(value, scale)) if scale != 1 else float(value)
