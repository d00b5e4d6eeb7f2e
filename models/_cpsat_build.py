"""Stages *variables*, *resources*, *precedence and communication* (with isolation and
symmetry breaking) and the *hint* of the CP-SAT model.

Each stage adds one group of variables or constraints to a :class:`ModelVars`
and can be audited alone (``tests/test_cpsat_stages.py`` builds them one at a
time). The strengthenings each have an option of :func:`models.cpsat.cpsat`:
``pooling`` (the redundant cumulative over interchangeable processors in
:func:`add_resources`), ``comm`` (the encoding of
:func:`add_precedence_and_communication`), ``symmetry``
(:func:`add_symmetry_breaking`) and ``hint`` (:func:`add_hint`). Long loops
ask the :class:`~models._clock.Clock` and stop with
:class:`~models._warmstart.OutOfTime` once the time limit has passed.

References
----------
.. [1] L. Perron and F. Didier, CP-SAT, OR-Tools, Google,
   https://developers.google.com/optimization (optional fixed-size intervals,
   ``add_no_overlap``, ``add_cumulative``, hints).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from exactsched.problem import Problem
from models._clock import Clock
from models._cpsat_locations import Locations

__all__ = [
    "COMM_ENCODINGS",
    "ModelVars",
    "new_model",
    "add_variables",
    "add_resources",
    "add_precedence_and_communication",
    "add_isolation",
    "add_symmetry_breaking",
    "add_hint",
]

#: Communication encodings: "levels" (default), "dest", "pairs" (see cpsat's Notes).
COMM_ENCODINGS: tuple[str, ...] = ("levels", "dest", "pairs")

# Loop iterations between two looks at the clock.
_CHECK_EVERY = 64


@dataclass
class ModelVars:
    """The CP-SAT model under construction and its variables.

    Attributes
    ----------
    model : cp_model.CpModel
    loc : Locations
    cost : numpy.ndarray
        ``(n, L)`` scaled cost per location (``inf`` outside the affinity).
    delay : numpy.ndarray
        ``(n_arcs, L, L)`` scaled delays between locations (zero inside one).
    capacity : list of int
        Processors per location.
    horizon : int
        Upper bound of every time variable.
    x : list of dict
        ``x[i][l]``: presence literal of task ``i`` on location ``l``; ``True``
        when the task has a single location.
    start, end : list
        Start variable and end expression of every task.
    end_is_var : list of bool
        Whether the end is a variable of its own (the task's costs differ).
    class_lits : dict
        ``(task, symmetric group)``: literal "the task runs in that group".
    aux_hints : list
        ``(variable, value)`` hints of auxiliary literals, from the warm start.
    makespan : cp_model.IntVar or None
        Set by the stage *bounds and cuts*.
    """

    model: cp_model.CpModel
    loc: Locations
    cost: np.ndarray
    delay: np.ndarray
    capacity: list[int]
    horizon: int
    x: list[dict[int, Any]] = field(default_factory=list)
    start: list[Any] = field(default_factory=list)
    end: list[Any] = field(default_factory=list)
    end_is_var: list[bool] = field(default_factory=list)
    class_lits: dict[tuple[int, int], Any] = field(default_factory=dict)
    aux_hints: list[tuple[Any, int]] = field(default_factory=list)
    makespan: Any = None

    @property
    def n_literals(self) -> int:
        """Number of presence literals (tasks with one location have none)."""
        return sum(len(lits) for lits in self.x if len(lits) > 1)


def new_model(problem: Problem, data: Any, loc: Locations, horizon: int = 0) -> ModelVars:
    """An empty model on the locations: costs and delays per location, scaled.

    ``data`` is the :class:`~models._cpsat_scaling.ScaledData`; inside a
    pooled location communication is free (zero delay).

    Examples
    --------
    >>> from models._cpsat_locations import processor_locations
    >>> from models._cpsat_scaling import scale_data
    >>> p = Problem.from_lists([[2, 3], [3, 2]], [(0, 1, 4)])
    >>> mv = new_model(p, scale_data(p), processor_locations(p), horizon=10)
    >>> mv.cost.tolist(), mv.delay.tolist(), mv.capacity
    ([[2.0, 3.0], [3.0, 2.0]], [[[0.0, 4.0], [4.0, 0.0]]], [1, 1])
    """
    rep = loc.representative
    cost_l = data.cost[:, rep]  # (n, L), inf outside the affinity
    diag = np.arange(len(rep))
    if len(rep) == problem.n_processors and not data.delay[:, diag, diag].any():
        delay_l = data.delay  # one location per processor: no copy of the largest array
    else:
        delay_l = data.delay[:, rep][:, :, rep]  # (n_arcs, L, L)
        delay_l[:, diag, diag] = 0
    return ModelVars(cp_model.CpModel(), loc, cost_l, delay_l, loc.capacity, horizon)


def _tick(clock: Clock | None, k: int, stage: str) -> None:
    if clock is not None and k % _CHECK_EVERY == 0:
        clock.check(stage)


def add_variables(
    mv: ModelVars,
    head: np.ndarray | None,
    tail: np.ndarray | None,
    min_dur: np.ndarray,
    clock: Clock | None = None,
) -> None:
    """Stage *variables*: start, end and presence literals of every task.

    Per task ``i``: start ``s_i`` in ``[head_i, horizon - tail_i - min_dur_i]``
    (``[0, horizon]`` when ``head`` is None), a presence literal ``x_il`` per
    allowed location with ``add_exactly_one`` (none when there is one
    location), and the end ``e_i = s_i + sum_l c_il x_il`` (a constant offset
    when all its costs are equal).

    Examples
    --------
    >>> from models._cpsat_locations import processor_locations
    >>> from models._cpsat_scaling import scale_data
    >>> p = Problem.from_lists([[2, 3], [4, 4]])
    >>> mv = new_model(p, scale_data(p), processor_locations(p), horizon=10)
    >>> add_variables(mv, None, None, mv.cost.min(axis=1))
    >>> [sorted(lits) for lits in mv.x], mv.end_is_var
    ([[0, 1], [0, 1]], [True, False])
    """
    model, cost_l = mv.model, mv.cost
    allowed_l = np.isfinite(cost_l)
    big = mv.horizon
    for i in range(len(cost_l)):
        _tick(clock, i, "variables")
        if head is not None:
            lo, hi = int(head[i]), int(big - tail[i] - min_dur[i])
        else:
            lo, hi = 0, big
        s = model.new_int_var(lo, max(lo, hi), f"s{i}")
        locs = np.flatnonzero(allowed_l[i]).tolist()
        costs = sorted({int(cost_l[i, k]) for k in locs})
        if len(locs) == 1:
            mv.x.append({locs[0]: True})
        else:
            lits = {k: model.new_bool_var(f"x{i}_{k}") for k in locs}
            model.add_exactly_one(lits.values())
            mv.x.append(lits)
        if len(costs) == 1:
            e = s + costs[0]
        else:
            e = model.new_int_var(lo + costs[0], big, f"e{i}")
            model.add(e == s + sum(int(cost_l[i, k]) * lit for k, lit in mv.x[i].items()))
        mv.start.append(s)
        mv.end.append(e)
        mv.end_is_var.append(len(costs) > 1)


def add_resources(mv: ModelVars, *, pooling: bool, clock: Clock | None = None) -> None:
    """Stage *resources*: no overlap per processor, a cumulative per pooled location.

    One optional fixed-size interval per (task, location) shares the task's
    start; ``add_no_overlap`` on single processors, ``add_cumulative`` of the
    capacity on pooled locations. Zero-length tasks occupy nothing (the
    validator lets them sit inside another task). With ``pooling``, also a
    redundant cumulative over every symmetric group of interchangeable
    processors (the ``z`` literals "task in the group" go to ``class_lits``).

    Examples
    --------
    >>> from models._cpsat_locations import processor_locations
    >>> from models._cpsat_scaling import scale_data
    >>> p = Problem.from_lists([[2, 3], [3, 2], [0, 1]])   # task 2 may take no time
    >>> mv = new_model(p, scale_data(p), processor_locations(p), horizon=10)
    >>> add_variables(mv, None, None, mv.cost.min(axis=1))
    >>> add_resources(mv, pooling=True)
    >>> sizes = [len(c.no_overlap.intervals) for c in mv.model.proto.constraints]
    >>> [k for k in sizes if k]   # task 2 is left out where it takes no time
    [2, 3]
    """
    model, x, cost_l, cap = mv.model, mv.x, mv.cost, mv.capacity
    n, n_locs = cost_l.shape
    per_loc: list[list[Any]] = [[] for _ in range(n_locs)]
    for i in range(n):
        _tick(clock, i, "resources")
        for k, lit in x[i].items():
            c = int(cost_l[i, k])
            if c == 0:
                continue  # a zero-length task occupies nothing
            if lit is True:
                per_loc[k].append(model.new_fixed_size_interval_var(mv.start[i], c, f"I{i}_{k}"))
            else:
                per_loc[k].append(
                    model.new_optional_fixed_size_interval_var(mv.start[i], c, lit, f"I{i}_{k}")
                )
    for k in range(n_locs):
        if not per_loc[k]:
            continue
        if cap[k] == 1:
            model.add_no_overlap(per_loc[k])
        else:
            model.add_cumulative(per_loc[k], [1] * len(per_loc[k]), cap[k])
    if not pooling:
        return
    for g, group in enumerate(mv.loc.symmetric):
        intervals = []
        for i in range(n):
            _tick(clock, i, "resources")
            lits = [x[i][k] for k in group if k in x[i]]
            if not lits:
                continue
            c = int(cost_l[i, group[0]])
            if len(lits) == len(x[i]):
                z: Any = True
                if c > 0:
                    intervals.append(model.new_fixed_size_interval_var(mv.start[i], c, ""))
            else:
                z = model.new_bool_var(f"z{i}_{g}")
                model.add(z == sum(lits))
                if c > 0:
                    intervals.append(
                        model.new_optional_fixed_size_interval_var(mv.start[i], c, z, "")
                    )
            mv.class_lits[i, g] = z
        if intervals:
            model.add_cumulative(intervals, [1] * len(intervals), len(group))


def add_precedence_and_communication(
    mv: ModelVars,
    problem: Problem,
    *,
    comm: str,
    hint_loc: np.ndarray | None = None,
    clock: Clock | None = None,
) -> None:
    """Stage *precedence and communication*: ``s_j >= e_i`` plus the delay where needed.

    Every arc (order pairs included) gets ``s_j >= e_i``; arcs whose tasks can
    incur a positive delay get it in the encoding ``comm`` (see the Notes of
    :func:`models.cpsat.cpsat`). ``hint_loc`` (the warm start's locations)
    yields hints of the ``levels`` literals.
    """
    model, x, start_v, end_v = mv.model, mv.x, mv.start, mv.end
    for a in range(len(problem.arc_src)):
        _tick(clock, a, "precedence and communication")
        i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
        model.add(start_v[j] >= end_v[i])
        li, lj = list(x[i]), list(x[j])
        d = mv.delay[a]
        sub = d[np.ix_(li, lj)]
        if not np.any(sub > 0):
            continue
        if comm == "pairs":
            for k in li:
                for m in lj:
                    if d[k, m] > 0:
                        enf = [lit for lit in (x[i][k], x[j][m]) if lit is not True]
                        model.add(start_v[j] >= end_v[i] + int(d[k, m])).only_enforce_if(enf)
        elif comm == "dest":
            for m in lj:
                if not np.any(d[li, m] > 0):
                    continue
                expr = sum(int(d[k, m]) * (1 if x[i][k] is True else x[i][k]) for k in li)
                ct = model.add(start_v[j] >= end_v[i] + expr)
                if x[j][m] is not True:
                    ct.only_enforce_if(x[j][m])
        else:
            _levels(mv, a, i, j, li, lj, sub, hint_loc, clock)


def _levels(
    mv: ModelVars,
    a: int,
    i: int,
    j: int,
    li: list[int],
    lj: list[int],
    sub: np.ndarray,
    hint_loc: np.ndarray | None,
    clock: Clock | None,
) -> None:
    """The ``levels`` encoding of arc ``a = i -> j`` (``sub``: delays between their locations)."""
    model, x, d = mv.model, mv.x, mv.delay[a]
    values = np.unique(sub[sub > 0]).astype(np.int64).tolist()
    previous = None
    paid = 0  # delay every placement pays
    levels: list[tuple[int, Any]] = []  # (v, f_v)
    steps: list[Any] = []  # (v - previous v) * f_v
    last_v = 0
    for v in values:
        if clock is not None:
            clock.check("precedence and communication")
        if np.all(sub >= v):  # every placement pays at least v
            paid, last_v = v, v
            continue
        f = model.new_bool_var(f"f{a}_{v}")
        steps.append((v - last_v) * f)
        levels.append((v, f))
        last_v = v
        if previous is not None:
            model.add_implication(f, previous)
        previous = f
        # Locations of j sharing the set of "near" locations of i share one
        # aggregated constraint f >= sum x_jm - sum x_il (e.g. a fat-tree
        # subtree), which is stronger in the LP than one clause per m.
        for below, near in _near_groups(li, lj, sub < v):
            if len(near) == 1:
                clause = [f] + [x[i][k] for k in below]
                if x[j][near[0]] is not True:
                    clause.append(~x[j][near[0]])
                model.add_bool_or(clause)
            else:
                model.add(f + sum(x[i][k] for k in below) >= sum(x[j][m] for m in near))
        if hint_loc is not None:
            mv.aux_hints.append((f, int(d[hint_loc[i], hint_loc[j]] >= v)))
    start_j, end_i = mv.start[j], mv.end[i]
    if paid:
        model.add(start_j >= end_i + paid)
    for v, f in levels:
        model.add(start_j >= end_i + v).only_enforce_if(f)
    if levels:
        # The same delays as one linear row, start_j >= end_i + paid +
        # sum (v_t - v_{t-1}) f_t: tight in the LP, where the enforced
        # rows are big-M. Both kept: on the fat-trees the enforced rows
        # alone gave the better bounds, the row alone better schedules.
        model.add(start_j >= end_i + paid + sum(steps))


def _near_groups(
    li: list[int], lj: list[int], near_of: np.ndarray
) -> list[tuple[list[int], list[int]]]:
    """Locations of ``j`` grouped by their set of near locations of ``i``.

    ``near_of[r, c]``: location ``li[r]`` is near ``lj[c]`` (delay below the
    level). Locations of ``j`` near every location of ``i`` are left out.
    Groups come in the order of their first member, members in ``lj`` order;
    columns are grouped by their bytes, not by a Python loop over pairs.

    Examples
    --------
    >>> near = np.array([[True, False, True], [False, False, False]])
    >>> _near_groups([0, 1], [0, 1, 2], near)
    [([0], [0, 2]), ([], [1])]
    """
    cols = np.flatnonzero(~near_of.all(axis=0))
    rows = np.ascontiguousarray(near_of[:, cols].T)  # one row per far location of j
    groups: dict[bytes, list[int]] = {}
    for c, row in zip(cols.tolist(), rows, strict=True):
        groups.setdefault(row.tobytes(), []).append(c)
    li_arr = np.asarray(li, dtype=np.int64)
    return [
        (li_arr[np.frombuffer(key, dtype=bool)].tolist(), [lj[c] for c in members])
        for key, members in groups.items()
    ]


def add_isolation(
    mv: ModelVars,
    problem: Problem,
    *,
    hint_start: np.ndarray | None = None,
    hint_end: np.ndarray | None = None,
) -> None:
    """Isolation pairs (part of *precedence and communication*): one runs before the other.

    Per pair ``(a, b)``, literals ``a before b`` (``e_a <= s_b``) and ``b before
    a``: one literal and its negation when neither task can have zero length,
    else the clause ``before or after or (a has length 0) or (b has length 0)``.

    Examples
    --------
    >>> from models._cpsat_locations import processor_locations
    >>> from models._cpsat_scaling import scale_data
    >>> p = Problem.from_lists([1, 1], n_processors=2, isolation=[(0, 1)])
    >>> mv = new_model(p, scale_data(p), processor_locations(p), horizon=10)
    >>> add_variables(mv, None, None, mv.cost.min(axis=1))
    >>> before = len(mv.model.proto.constraints)
    >>> add_isolation(mv, p)
    >>> len(mv.model.proto.constraints) - before   # e_a <= s_b if o, e_b <= s_a if not o
    2
    """
    model, x, cost_l = mv.model, mv.x, mv.cost
    hinted = hint_start is not None
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        zero_a = [lit for k, lit in x[a].items() if cost_l[a, k] == 0]
        zero_b = [lit for k, lit in x[b].items() if cost_l[b, k] == 0]
        if any(lit is True for lit in zero_a + zero_b):
            continue
        before = model.new_bool_var(f"o{a}_{b}")
        model.add(mv.end[a] <= mv.start[b]).only_enforce_if(before)
        if not zero_a and not zero_b:
            model.add(mv.end[b] <= mv.start[a]).only_enforce_if(~before)
        else:
            after = model.new_bool_var(f"o{b}_{a}")
            model.add(mv.end[b] <= mv.start[a]).only_enforce_if(after)
            model.add_bool_or([before, after, *zero_a, *zero_b])
            if hinted:
                mv.aux_hints.append((after, int(hint_end[b] <= hint_start[a])))
        if hinted:
            mv.aux_hints.append((before, int(hint_end[a] <= hint_start[b])))


def add_symmetry_breaking(mv: ModelVars, *, hint_loc: np.ndarray | None = None) -> None:
    """Stage part of *bounds and cuts*: value precedence over interchangeable processors.

    Over every symmetric group ``q_1 .. q_k`` (interchangeable, not pooled)
    and with tasks in index order, task ``i`` may use ``q_m`` only if an
    earlier task uses ``q_{m-1}`` (prefix literals ``u``, ``O(k n)`` clauses).
    The warm start is relabelled to satisfy it
    (:func:`models._cpsat_locations.relabel_symmetric`).

    Examples
    --------
    >>> from models._cpsat_locations import processor_locations
    >>> from models._cpsat_scaling import scale_data
    >>> p = Problem.from_lists([1, 1], [(0, 1, 1)], n_processors=3)
    >>> loc = processor_locations(p)
    >>> loc.symmetric
    [[0, 1, 2]]
    >>> mv = new_model(p, scale_data(p), loc, horizon=10)
    >>> add_variables(mv, None, None, mv.cost.min(axis=1))
    >>> add_symmetry_breaking(mv)
    >>> solver = cp_model.CpSolver()
    >>> _ = solver.solve(mv.model)
    >>> solver.boolean_value(mv.x[0][0])   # the first task takes the first processor
    True
    """
    model, x = mv.model, mv.x
    n = len(x)
    for group in mv.loc.symmetric:
        tasks = [i for i in range(n) if group[0] in x[i]]
        used_prev: list[Any] = []
        for pos, k in enumerate(group):
            used: list[Any] = []
            for t, i in enumerate(tasks):
                lit = x[i][k]
                if pos > 0:
                    if t == 0:
                        model.add(lit == 0)
                    else:
                        model.add_implication(lit, used_prev[t - 1])
                if pos < len(group) - 1:
                    u = model.new_bool_var(f"u{k}_{i}")
                    model.add_bool_or([~u, lit] + ([used[-1]] if used else []))
                    if used:
                        model.add_implication(used[-1], u)
                    used.append(u)
                    if hint_loc is not None:
                        hinted = any(hint_loc[tt] == k for tt in tasks[: t + 1])
                        mv.aux_hints.append((u, int(hinted)))
            used_prev = used


def add_hint(
    mv: ModelVars, hint_loc: np.ndarray, hint_start: np.ndarray, hint_makespan: int
) -> None:
    """Stage *warm start* (in the model): a complete hint from the best schedule.

    Starts, ends, presence literals, group literals, the auxiliary literals
    collected by the other stages and the makespan: CP-SAT reports the hint
    as its first solution.

    Examples
    --------
    >>> from models._cpsat_locations import processor_locations
    >>> from models._cpsat_scaling import scale_data
    >>> p = Problem.from_lists([[2, 3], [3, 2]])
    >>> mv = new_model(p, scale_data(p), processor_locations(p), horizon=10)
    >>> add_variables(mv, None, None, mv.cost.min(axis=1))
    >>> mv.makespan = mv.model.new_int_var(0, 10, "M")
    >>> add_hint(mv, np.array([0, 1]), np.array([0, 0]), 2)
    >>> len(mv.model.proto.solution_hint.vars)   # 2 starts, 2 ends, 4 literals, makespan
    9
    """
    model, x = mv.model, mv.x
    for i in range(len(x)):
        model.add_hint(mv.start[i], int(hint_start[i]))
        if mv.end_is_var[i]:
            model.add_hint(mv.end[i], int(hint_start[i] + mv.cost[i, hint_loc[i]]))
        for k, lit in x[i].items():
            if lit is not True:
                model.add_hint(lit, int(hint_loc[i] == k))
        for g, group in enumerate(mv.loc.symmetric):
            z = mv.class_lits.get((i, g))
            if z is not None and z is not True:
                model.add_hint(z, int(hint_loc[i] in group))
    for var, value in mv.aux_hints:
        model.add_hint(var, value)
    model.add_hint(mv.makespan, hint_makespan)
