"""A witness under the single-port and contention models: interval-free CP-SAT with messages.

Not a registered method; :mod:`models.certify` runs it (witness
``"cpsat-messages"``) to certify optima of instances whose network says
``"communication": "single-port"`` or ``"contention"``
(``docs/instance-format.md``, "Communication models"). It extends the
interval-free model of :func:`models._refute.refute_cpsat` with the messages
of Sinnen and Sousa's edge scheduling [1]_, written with **no interval
variables, no no-overlap constraint, no presolve and no LP** (one worker,
fixed seed), so it shares no search with the ``cpsat`` proof of
:mod:`models._cpsat_contention` (optional intervals and ``add_no_overlap`` per
port or link). It decides "makespan <= target" on exact integer data:

* per task ``i``: literals ``x[i, p]``, a start ``s_i``, ``d_i = sum_p c_ip x[i, p]``,
  ``s_i + d_i <= target``; per arc ``s_j >= s_i + d_i``; per pair of tasks that
  may overlap (not joined by a path), two order literals and the clause
  ``not x[i, p] or not x[j, p] or b_ij or b_ji`` on each shared processor
  (and ``b_ij or b_ji`` for an isolation pair), as in ``refute_cpsat``;
* per data edge ``e = i -> j`` and per *slot* of its message a start ``t[e, k]``:
  under ``single-port`` one slot (the message), under ``contention`` one slot per
  link (a fixed route crosses a link at most once). For each pair ``(p, q)`` of
  allowed processors whose route (:class:`topologies.routing.Routing`) has stages,
  enforced by both ``x[i, p]`` and ``x[j, q]``: the first stage starts after
  ``i`` ends, each stage after the previous one ends (store-and-forward), ``j``
  starts after the last one ends, the slot lasts at least the stage's duration
  (``weight * unit``), and a literal ``u[e, r]`` is set for each port or link
  ``r`` the stage holds (zero-length stages hold nothing);
* per resource ``r`` and per pair of edges ``e, f`` that may both hold it (and
  whose messages are not ordered by a path, ``j_e`` reaching ``i_f``): two order
  literals ``o_efr => t[f, .] >= t[e, .] + len[e, .]`` and the clause
  ``not u[e, r] or not u[f, r] or o_efr or o_fer``;
* redundant constraints, implied hence sound: load cuts (per processor and per
  resource the durations that may sit on it add up to at most ``target``: they are
  pairwise ordered within ``[0, target]``) and arrivals (per edge and processor
  ``p`` of the sender, enforced by ``x[i, p]``: ``s_j >= s_i + c_ip + sum_q
  len(p, q) x[j, q]``, ``len`` the sum of the route's stage durations); under
  single-port the send and the receive port of two messages share one pair of
  order literals (both order the same two slots).

Why it is exact. Every schedule of makespan at most ``target`` gives a
solution (its starts, its messages' stage starts, ``u`` true exactly on the
resources used, the orders it shows). Conversely a solution's task starts and
the stage starts of the messages its assignment makes remote are a schedule
the validator accepts: each stage is held for its duration (a slot's length is
at least it), stages of one message are chained, messages on one resource are
ordered, tasks on one processor are ordered. Literals ``u`` set without need
and lengths above the duration only remove solutions, so "infeasible" still
refutes.

The data are the instance at a resolution making every cost and every stage
duration an integer (:func:`comm_resolution`: the data grid's, times 2 on a fat
tree whose links weigh 1/2), exactly; data off such a grid are refused
(``"unknown"``), as ``cpsat`` refuses them.

References
----------
.. [1] O. Sinnen, L. A. Sousa, "Communication contention in task scheduling",
   IEEE TPDS 16(6), 503-515, 2005. doi:10.1109/TPDS.2005.64
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import numpy as np

from exactsched._output import rough
from exactsched.messages import LinkTime, Message
from exactsched.problem import Problem
from exactsched.schedule import Schedule, _tidy
from models._cpsat_run import run_solver
from models._grid import data_grid, exact_units
from models._refute import (
    Verdict,
    _floor_exact,
    _reach,
    _since,
    add_pair_orders,
    enforce_window,
    grid_data,
    set_threads,
    too_slow_to_build,
    windows_or_none,
)

__all__ = ["WITNESS", "comm_resolution", "refute_messages"]

#: The witness's name in :data:`models.certify.WITNESSES`.
WITNESS = "cpsat-messages"

# CP-SAT keeps every integer within about 2**62; stay far below it.
_CPSAT_MAX = 2**50
# Above this many (edge, processor pair) routes the model is declined.
_MAX_ROUTES = 400_000


def _stage_weights(problem: Problem) -> list[float]:
    routing = problem.routing
    weights = set()
    for p in range(problem.n_processors):
        for q in range(problem.n_processors):
            for _, w, _ in routing.route(p, q):
                weights.add(float(w))
    return sorted(weights)


def comm_resolution(problem: Problem) -> int | None:
    """Units per original unit making every cost and stage duration an integer (None: none).

    The data grid's resolution (:func:`models._grid.data_grid`) times the least
    of 1, 2, 4, 8 that also makes each stage's ``weight * unit`` an integer.
    Every makespan of a schedule in which each task and stage starts when a
    predecessor or a rival ends is then a multiple of one such unit.

    Examples
    --------
    >>> net = {"topology": "fat-tree", "arity": 2, "communication": "contention"}
    >>> p = Problem.from_lists([1, 1], [(0, 1, 3)], n_processors=4, network=net)
    >>> comm_resolution(p), comm_resolution(p.with_communication("single-port"))
    (2, 1)
    """
    grid = data_grid(problem)
    if not grid.exact:
        return None
    units = exact_units(problem)[: len(problem.edge_src)]
    weights = _stage_weights(problem)
    for factor in (1, 2, 4, 8):
        resolution = grid.resolution * factor
        if all(_floor_exact(units, resolution, factor=w)[1] for w in weights):
            return resolution
    return None


def refute_messages(
    problem: Problem,
    target: int,
    resolution: int,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    arrivals: bool = True,
    windows: bool = True,
    workers: int = 1,
) -> Verdict:
    """Decide "makespan <= target" (units of ``1 / resolution``) under the problem's model.

    Parameters
    ----------
    problem : Problem
        An instance under ``single-port`` or ``contention``.
    target : int
        Makespan to reach, in units of ``1 / resolution``.
    resolution : int
        From :func:`comm_resolution`; the data must be exact at it.
    time_limit : float, optional
        Seconds for the solver.
    seed : int
        CP-SAT's random seed (one worker).
    arrivals : bool
        Add the implied arrivals (:func:`_implied_arrivals`).
    windows : bool
        Placement windows of the delay model (:func:`models._refute.placement_windows`):
        a message meeting no other arrives when the delay model says, so they
        bound every schedule here too.
    workers : int
        CP-SAT threads (:func:`models._refute.set_threads`, no LP); 1 is deterministic.

    Returns
    -------
    Verdict
        ``"found"`` carries the schedule, with its messages, on the original data.

    Examples
    --------
    >>> net = {"topology": "fully-connected", "communication": "single-port"}
    >>> p = Problem.from_lists([[1, 9], [1, 9], [9, 1], [9, 1]],
    ...                        [(0, 2, 2), (1, 3, 2)], n_processors=2, network=net)
    >>> refute_messages(p, 5, 1).outcome
    'refuted'
    >>> refute_messages(p, 6, 1).schedule.makespan
    6
    """
    from ortools.sat.python import cp_model

    started = time.perf_counter()
    if problem.communication == "delay":
        return Verdict("unknown", reason="the delay model has no messages")
    if target < 0:
        return Verdict("refuted", reason="target below zero", seconds=0.0)
    if target > _CPSAT_MAX:
        return Verdict("unknown", reason=f"target {rough(target)} too large for CP-SAT")
    slow = too_slow_to_build(problem, time_limit)  # the task pairs alone: messages add more
    if slow is not None:
        return slow
    data = grid_data(problem, resolution)
    if not data.exact:
        return Verdict("unknown", reason="data off the witness's grid")
    routing = problem.routing
    contention = problem.communication == "contention"
    n, n_edges = problem.n_tasks, len(problem.edge_src)
    cost = data.cost
    horizon = int(target)
    model = cp_model.CpModel()
    x: dict[tuple[int, int], Any] = {}
    dur: list[Any] = []
    start = [model.new_int_var(0, horizon, f"s{i}") for i in range(n)]
    # Windows of the delay model: a message meeting no other takes its delay, so
    # they bound every schedule of this model too.
    head, tail = windows_or_none(problem, data, windows)
    for i in range(n):
        procs = problem.allowed_processors(i).tolist()
        for p in procs:
            if head[i, p] + cost[i, p] + tail[i, p] <= target:
                x[i, p] = model.new_bool_var(f"x{i}_{p}")
                enforce_window(
                    model, start[i], x[i, p], head[i, p], tail[i, p], cost[i, p], horizon
                )
        lits = [x[i, p] for p in procs if (i, p) in x]
        if not lits:
            return Verdict("refuted", reason=f"task {i} fits no processor", seconds=0.0)
        model.add_exactly_one(lits)
        dur.append(sum(int(cost[i, p]) * x[i, p] for p in procs if (i, p) in x))
        model.add(start[i] + dur[i] <= horizon)
    for a in range(problem.n_edges):
        i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
        model.add(start[j] >= start[i] + dur[i])

    # ---- messages: stage durations, exact at this resolution
    weights = _stage_weights(problem)
    units = exact_units(problem)[:n_edges]
    scaled = {w: _floor_exact(units, resolution, factor=w)[0] for w in weights}
    slot_start: dict[tuple[int, int], Any] = {}
    slot_lengths: dict[tuple[int, int], set[int]] = {}
    holders: dict[int, dict[int, tuple[int, int]]] = {}  # resource -> edge -> slot
    uses: dict[tuple[int, int], Any] = {}
    chosen: dict[int, list[tuple[int, int, list[tuple[int, int, str, int]]]]] = {}
    n_routes = 0
    for e in range(n_edges):
        i, j = int(problem.edge_src[e]), int(problem.edge_dst[e])
        for p in problem.allowed_processors(i).tolist():
            if (i, p) not in x:
                continue
            for q in problem.allowed_processors(j).tolist():
                if (j, q) not in x:
                    continue
                route = routing.route(p, q)
                if not route:
                    continue
                n_routes += 1
                if n_routes > _MAX_ROUTES:
                    return Verdict("unknown", reason=f"more than {_MAX_ROUTES} message routes")
                stages = []
                for k, (res, w, name) in enumerate(route):
                    d = int(scaled[float(w)][e])
                    slot = res[0] if contention else 0
                    stages.append((slot, d, name, k))
                    if (e, slot) not in slot_start:
                        slot_start[e, slot] = model.new_int_var(0, horizon, f"t{e}_{slot}")
                    slot_lengths.setdefault((e, slot), set()).add(d)
                    if d > 0:
                        for r in res:
                            holders.setdefault(r, {})[e] = (e, slot)
                            if (e, r) not in uses:
                                uses[e, r] = model.new_bool_var(f"u{e}_{r}")
                chosen.setdefault(e, []).append((p, q, stages))
    # A slot's length: its duration when every route gives the same, else a variable
    # at least the duration of the route taken.
    length: dict[tuple[int, int], Any] = {}
    for key, values in slot_lengths.items():
        if len(values) == 1:
            length[key] = next(iter(values))
        else:
            length[key] = model.new_int_var(0, horizon + 1, f"len{key[0]}_{key[1]}")
    for e, routes in chosen.items():
        i, j = int(problem.edge_src[e]), int(problem.edge_dst[e])
        for p, q, stages in routes:
            both = [x[i, p], x[j, q]]
            before: Any = start[i] + int(cost[i, p])
            for slot, d, _, k in stages:
                t = slot_start[e, slot]
                model.add(t >= before).only_enforce_if(both)
                if not isinstance(length[e, slot], int):
                    model.add(length[e, slot] >= d).only_enforce_if(both)
                before = t + d
                if d > 0:
                    for r in route_resources(routing, p, q, k):
                        model.add_bool_or([x[i, p].Not(), x[j, q].Not(), uses[e, r]])
            model.add(start[j] >= before).only_enforce_if(both)
    if arrivals:
        _implied_arrivals(problem, model, x, start, cost, chosen)
    for e, routes in chosen.items():  # a message starts after its sender ends, always
        i = int(problem.edge_src[e])
        for slot in {s for _, _, stages in routes for s, _, _, _ in stages}:
            model.add(slot_start[e, slot] >= start[i] + dur[i])

    # ---- order on each port or link
    reach = _reach(problem)
    orders: dict[tuple[tuple[int, int], tuple[int, int]], tuple[Any, Any]] = {}
    for r, edges in holders.items():
        listed = sorted(edges)
        least = {e: min(slot_lengths[edges[e]]) for e in listed}
        terms = [(least[e], uses[e, r]) for e in listed if least[e] > 0]
        if sum(c for c, _ in terms) > horizon:
            model.add(sum(c * lit for c, lit in terms) <= horizon)
        for a_, e in enumerate(listed):
            for f in listed[a_ + 1 :]:
                je, jf = int(problem.edge_dst[e]), int(problem.edge_dst[f])
                ie, if_ = int(problem.edge_src[e]), int(problem.edge_src[f])
                # e's message ends before j_e starts; if j_e leads to i_f, f's starts later.
                if je == if_ or reach[je] >> if_ & 1 or jf == ie or reach[jf] >> ie & 1:
                    continue
                se, sf = edges[e], edges[f]
                # One pair of literals per pair of slots: under single-port the send
                # and the receive port of two messages share it.
                lits = orders.get((se, sf))
                if lits is None:
                    first = model.new_bool_var(f"o{e}_{f}_{r}")
                    second = model.new_bool_var(f"o{f}_{e}_{r}")
                    ts, tf = slot_start[se], slot_start[sf]
                    model.add(tf >= ts + length[se]).only_enforce_if(first)
                    model.add(ts >= tf + length[sf]).only_enforce_if(second)
                    lits = orders[se, sf] = (first, second)
                model.add_bool_or([uses[e, r].Not(), uses[f, r].Not(), *lits])

    # ---- tasks on one processor, isolation pairs, load cuts
    add_pair_orders(model, problem, cost, x, start, dur)
    load: dict[int, list[tuple[int, Any]]] = {}
    for (i, p), lit in x.items():
        if cost[i, p] > 0:
            load.setdefault(p, []).append((int(cost[i, p]), lit))
    for terms in load.values():
        if sum(c for c, _ in terms) > horizon:
            model.add(sum(c * lit for c, lit in terms) <= horizon)

    solver = cp_model.CpSolver()
    params = solver.parameters
    set_threads(params, workers, lp=False)
    params.random_seed = int(seed)
    params.cp_model_presolve = False
    params.linearization_level = 0
    if time_limit is not None:
        params.max_time_in_seconds = max(0.01, float(time_limit) - _since(started))
    try:
        status = run_solver(solver, model)
    except Exception as error:  # noqa: BLE001  an engine failure is no verdict
        return Verdict("unknown", reason=f"CP-SAT failed: {error}", seconds=_since(started))
    if status == cp_model.INFEASIBLE:
        reason = "CP-SAT with messages: infeasible"
        return Verdict("refuted", reason=reason, seconds=_since(started))
    if status in (cp_model.FEASIBLE, cp_model.OPTIMAL):
        schedule = _extract(problem, solver, x, start, slot_start, chosen, resolution)
        return Verdict("found", schedule, "CP-SAT with messages: a schedule", _since(started))
    return Verdict(
        "unknown", reason=f"CP-SAT: {solver.status_name(status).lower()}", seconds=_since(started)
    )


def _implied_arrivals(
    problem: Problem,
    model: Any,
    x: dict[tuple[int, int], Any],
    start: list[Any],
    cost: np.ndarray,
    chosen: dict[int, list[tuple[int, int, list[tuple[int, int, str, int]]]]],
) -> None:
    """Per edge ``i -> j`` and processor ``p`` of ``i``, enforced by ``x[i, p]``:
    ``s_j >= s_i + c_ip + sum_q len(p, q) x[j, q]``, ``len`` the route's stage durations.

    Implied (a message lasts at least the sum of its stages, waits only add), so
    sound; it lets the assignment of the sender alone bound the receiver, as the
    delay arrival constraints of :func:`models._refute.refute_cpsat` do.
    """
    for e, routes in chosen.items():
        i, j = int(problem.edge_src[e]), int(problem.edge_dst[e])
        by_sender: dict[int, list[tuple[int, int]]] = {}
        for p, q, stages in routes:
            total = sum(d for _, d, _, _ in stages)
            if total > 0:
                by_sender.setdefault(p, []).append((q, total))
        for p, terms in by_sender.items():
            arrival = sum(total * x[j, q] for q, total in terms)
            model.add(start[j] >= start[i] + int(cost[i, p]) + arrival).only_enforce_if(x[i, p])


def route_resources(routing: Any, p: int, q: int, k: int) -> tuple[int, ...]:
    """The ports or links stage ``k`` of the route ``p -> q`` holds."""
    return tuple(routing.route(p, q)[k][0])


def _extract(
    problem: Problem,
    solver: Any,
    x: dict[tuple[int, int], Any],
    start: list[Any],
    slot_start: dict[tuple[int, int], Any],
    chosen: dict[int, list[tuple[int, int, list[tuple[int, int, str, int]]]]],
    resolution: int,
) -> Schedule:
    """The solution as a schedule on the original data (exact: the data are on the grid)."""
    n = problem.n_tasks
    ids = problem.task_ids
    proc = np.array(
        [
            next(p for p in range(problem.n_processors) if (i, p) in x and solver.value(x[i, p]))
            for i in range(n)
        ],
        dtype=np.int64,
    )

    def at(value: int) -> float:
        return _tidy(float(Fraction(value, resolution)))

    begin = np.array([at(solver.value(s)) for s in start], dtype=float)
    links = problem.communication == "contention"
    messages = []
    for e in sorted(chosen):
        i, j = int(problem.edge_src[e]), int(problem.edge_dst[e])
        for p, q, stages in chosen[e]:
            if proc[i] != p or proc[j] != q:
                continue
            times = []
            for slot, d, name, _ in stages:
                t = solver.value(slot_start[e, slot])
                times.append((name, at(t), at(t + d)))
            hops = tuple(LinkTime(*t) for t in times) if links else ()
            messages.append(Message(ids[i], ids[j], times[0][1], times[-1][2], hops))
    return Schedule.from_arrays(problem, proc, begin, messages)
