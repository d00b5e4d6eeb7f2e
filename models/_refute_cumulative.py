"""Witnesses for identical processors without communication (the STG case).

Not a registered method (the leading underscore keeps the auto-import away); the
policy that runs them is :mod:`models.certify`, the question they decide is the
one of :mod:`models._refute` ("is there a schedule of makespan at most
``target`` on the floored data?").

When every task costs the same on every processor, every processor is allowed
and no arc carries a positive delay (:func:`identical_without_communication`),
the problem has exact formulations without any processor assignment:

* **cumulative** (:func:`refute_cumulative`): one fixed-size interval per task
  and one cumulative resource of capacity ``P``. Exact because interval
  colouring maps any schedule in which at most ``P`` tasks run at once onto
  ``P`` processors (greedy in start order, the first free processor);
* **time-indexed** (:func:`refute_time_indexed`): a pure 0-1 model, one literal
  per task and time ("started by ``t``"), one linear capacity row per time; no
  interval variable and none of the engine's scheduling propagators.

A proof made with one formulation is certified by another (:func:`witness_for`):
:func:`models.cpsat.cpsat` pools identical processors into a cumulative location,
so its optima are checked by the time-indexed model; the optima of per-processor
models (``cpsat`` with ``pooling=False``, ``milp``, ``bruteforce``) by the
cumulative one. Each witness is a new CP-SAT decision model built here from the
floored data alone (its own heads and tails, no hint, no cut or bound of the
method), one worker, fixed seed. A per-processor witness (optional intervals, one
no-overlap per processor, value precedence) was tried for the cumulative proofs
and dropped: on STG 50/rand0114 with 8 processors it found no schedule of the
optimum 43 in 30 s, where the time-indexed model decides both 42 and 43 in 0.2 s.

References
----------
.. [1] T. Tobita and H. Kasahara, "A standard task graph set for fair evaluation
   of multiprocessor scheduling algorithms", J. Scheduling 5(5), 2002 (the STG
   set and its model: identical processors, no communication).
.. [2] P. Baptiste, C. Le Pape and W. Nuijten, *Constraint-Based Scheduling*,
   Kluwer, 2001 (cumulative resources, energetic reasoning).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from exactsched.problem import Problem
from exactsched.result import Result
from models._cpsat_run import run_solver
from models._refute import Floored, Verdict, _retime, precedence_spread, set_threads

__all__ = [
    "identical_without_communication",
    "refute_cumulative",
    "refute_time_indexed",
    "witness_for",
    "CUMULATIVE",
    "TIME_INDEXED",
    "MAX_POINTS",
]

#: Witness names (as listed in :data:`models.certify.WITNESSES`).
CUMULATIVE = "cpsat-cumulative"
TIME_INDEXED = "cpsat-time-indexed"
#: The time-indexed witness declines above this many (task, time) literals.
MAX_POINTS = 400_000


def identical_without_communication(problem: Problem) -> bool:
    """Whether every task costs the same everywhere and no arc carries a delay.

    Isolation pairs are allowed (both witnesses model them). Every processor
    must be allowed to every task.

    Examples
    --------
    >>> identical_without_communication(Problem.from_lists([3, 2], [(0, 1, 0)], n_processors=2))
    True
    >>> identical_without_communication(Problem.from_lists([3, 2], [(0, 1, 4)], n_processors=2))
    False
    >>> identical_without_communication(Problem.from_lists([[2, 3], [1, 1]]))
    False
    """
    if not problem.allowed.all():
        return False
    cost = problem.cost
    if cost.size and not (cost == cost[:, :1]).all():
        return False
    if len(problem.arc_unit) == 0 or problem.n_processors == 1:
        return True
    off_diagonal = problem.hops[~np.eye(problem.n_processors, dtype=bool)]
    return bool((problem.arc_unit == 0).all() or (off_diagonal == 0).all())


def witness_for(problem: Problem, result: Result) -> str | None:
    """The witness whose formulation differs from the one that made ``result``'s proof.

    ``None`` when the instance is not of the identical, communication-free kind.
    A ``cpsat`` result that pooled processors (``stats["pooled"]``) was proven
    with a cumulative resource: the time-indexed witness checks it; every
    other method's proof (per-processor ``cpsat``, ``milp``, ``bruteforce``,
    anything else) is checked by the cumulative witness.

    Examples
    --------
    >>> from exactsched.result import Status
    >>> p = Problem.from_lists([3, 2], n_processors=2)
    >>> witness_for(p, Result("cpsat", Status.OPTIMAL, None, 3, 3, 0.1, {"pooled": [2]}))
    'cpsat-time-indexed'
    >>> witness_for(p, Result("milp", Status.OPTIMAL, None, 3, 3, 0.1, {}))
    'cpsat-cumulative'
    """
    if not identical_without_communication(problem):
        return None
    pooled = result.method == "cpsat" and bool(result.stats.get("pooled"))
    return TIME_INDEXED if pooled else CUMULATIVE


def _windows(problem: Problem, cost: np.ndarray, target: int) -> tuple[list[int], list[int]]:
    """Earliest and latest start of every task under ``target``.

    :func:`models._refute.precedence_spread`: the longest path before the task or
    the work of all its ancestors spread over the ``P`` processors, whichever is
    longer, and the mirror over its descendants. On STG 100-task instances on two
    processors this alone empties a window at the claim less one (100/rand0012 at
    311, rand0075 at 480), and the time-indexed model refutes in no time.

    Examples
    --------
    >>> p = Problem.from_lists([2, 2, 2, 1], [(0, 3), (1, 3), (2, 3)], n_processors=2)
    >>> _windows(p, np.array([2, 2, 2, 1]), 5)
    ([0, 0, 0, 3], [2, 2, 2, 4])
    """
    head, tail = precedence_spread(problem, cost, problem.n_processors)
    return head, [target - int(c) - t for c, t in zip(cost.tolist(), tail, strict=True)]


#: Points (literals, clause times) built between two looks at the clock.
_CLOCK_EVERY = 8192


def _left(time_limit: float | None, started: float) -> float | None:
    """What is left of ``time_limit`` seconds since ``started`` (the model's building
    counts: an outside audit saw a witness given 3.5 s take 5.0 s)."""
    return None if time_limit is None else float(time_limit) - (time.perf_counter() - started)


def _solver(time_limit: float | None, seed: int, workers: int = 1) -> Any:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    params = solver.parameters
    set_threads(params, workers, lp=True)
    params.random_seed = int(seed)
    if time_limit is not None:
        params.max_time_in_seconds = max(0.01, float(time_limit))
    return solver


def _common(
    problem: Problem, data: Floored, target: int
) -> tuple[Any, list[Any], np.ndarray, str | None]:
    """Model, start variables and costs; or a reason the windows are already empty."""
    from ortools.sat.python import cp_model

    cost = data.cost[:, 0].astype(np.int64)
    model = cp_model.CpModel()
    head, latest = _windows(problem, cost, target)
    if any(lo > up for lo, up in zip(head, latest, strict=True)):
        return model, [], cost, "a path is longer than the target"
    start = [model.new_int_var(head[i], latest[i], f"s{i}") for i in range(problem.n_tasks)]
    for a in range(len(problem.arc_src)):
        i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
        model.add(start[j] >= start[i] + int(cost[i]))
    return model, start, cost, None


def _isolation(model: Any, problem: Problem, start: list[Any], cost: np.ndarray) -> None:
    """Isolation pairs of positive length never overlap (zero-length ones always may)."""
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        if cost[a] > 0 and cost[b] > 0:
            before = model.new_bool_var(f"iso{a}_{b}")
            model.add(start[b] >= start[a] + int(cost[a])).only_enforce_if(before)
            model.add(start[a] >= start[b] + int(cost[b])).only_enforce_if(~before)


def _verdict(
    problem: Problem,
    data: Floored,
    solver: Any,
    status: int,
    extract: Any,
    started: float,
) -> Verdict:
    from ortools.sat.python import cp_model

    seconds = time.perf_counter() - started
    if status == cp_model.INFEASIBLE:
        return Verdict("refuted", reason="CP-SAT: infeasible", seconds=seconds)
    if status in (cp_model.FEASIBLE, cp_model.OPTIMAL):
        proc, times = extract()
        schedule = _retime(problem, proc, times, data)
        return Verdict("found", schedule, "CP-SAT: a schedule", time.perf_counter() - started)
    reason = f"CP-SAT: {solver.status_name(status).lower()}"
    return Verdict("unknown", reason=reason, seconds=seconds)


def _colour(times: np.ndarray, cost: np.ndarray, n_procs: int) -> np.ndarray:
    """Processors by greedy interval colouring in start order (first free processor).

    Valid whenever at most ``n_procs`` tasks of positive length run at any time;
    zero-length tasks take processor 0 (they occupy nothing; the re-timing on
    the original data orders them).
    """
    proc = np.zeros(len(times), dtype=np.int64)
    free = [-np.inf] * n_procs
    for i in sorted(range(len(times)), key=lambda k: (times[k], k)):
        if cost[i] == 0:
            continue
        q = next(q for q in range(n_procs) if free[q] <= times[i])
        proc[i] = q
        free[q] = times[i] + cost[i]
    return proc


def _most_at_once(spans: list[tuple[int, int]]) -> int:
    """Most of the half-open spans ``[lo, hi)`` that share a moment (empty spans count 0).

    Examples
    --------
    >>> _most_at_once([(0, 3), (2, 5), (3, 4), (4, 4)])
    2
    """
    kept = [(lo, hi) for lo, hi in spans if lo < hi]
    events = sorted([(hi, -1) for _, hi in kept] + [(lo, 1) for lo, _ in kept])
    most = now = 0
    for _, step in events:  # at equal times an end (-1) sorts before a start
        now += step
        most = max(most, now)
    return most


def refute_cumulative(
    problem: Problem,
    data: Floored,
    target: int,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    workers: int = 1,
) -> Verdict:
    """Decide "makespan <= target" with one cumulative resource of capacity ``P``.

    Only for :func:`identical_without_communication` instances (else
    ``"unknown"``). Fixed-size intervals (zero-length tasks left out: they
    occupy nothing), precedences, isolation pairs, start windows from longest
    paths; no assignment: a schedule found is coloured onto the processors.
    ``workers`` CP-SAT threads (1, the default, is deterministic).

    Examples
    --------
    >>> from models._refute import floored_data
    >>> p = Problem.from_lists([2, 2, 2, 1], [(0, 3, 0)], n_processors=2)
    >>> refute_cumulative(p, floored_data(p, 1), 3).outcome
    'refuted'
    >>> refute_cumulative(p, floored_data(p, 1), 4).schedule.makespan
    4
    """
    started = time.perf_counter()
    if not identical_without_communication(problem):
        return Verdict("unknown", reason="not identical processors without communication")
    model, start, cost, empty = _common(problem, data, target)
    if empty:
        return Verdict("refuted", reason=empty, seconds=time.perf_counter() - started)
    intervals, demands = [], []
    for i in range(problem.n_tasks):
        if cost[i] > 0:
            intervals.append(model.new_fixed_size_interval_var(start[i], int(cost[i]), f"i{i}"))
            demands.append(1)
    model.add_cumulative(intervals, demands, problem.n_processors)
    _isolation(model, problem, start, cost)
    solver = _solver(_left(time_limit, started), seed, workers)  # building counts too
    status = run_solver(solver, model)

    def extract() -> tuple[np.ndarray, np.ndarray]:
        times = np.array([solver.value(s) for s in start], dtype=float)
        return _colour(times, cost, problem.n_processors), times

    return _verdict(problem, data, solver, status, extract, started)


def refute_time_indexed(
    problem: Problem,
    data: Floored,
    target: int,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    max_points: int = MAX_POINTS,
    workers: int = 1,
) -> Verdict:
    """Decide "makespan <= target" with a time-indexed 0-1 model (no interval, no resource).

    Only for :func:`identical_without_communication` instances (else
    ``"unknown"``). Per task ``i`` and time ``t`` of its window, the literal
    ``y[i, t]`` = "``i`` has started by ``t``" (monotone in ``t``, true at the
    latest start). Precedence ``i -> j``: ``y[j, t]`` implies ``y[i, t - c_i]``.
    Capacity: the tasks running during ``[t, t + 1)`` are those with
    ``y[i, t] - y[i, t - c_i] = 1``, so ``sum_i y[i, t] - y[i, t - c_i] <= P``,
    one linear row per time where a literal appears (outside its window ``y``
    is a constant). A relaxation-strong, pure 0-1 formulation: no interval
    variable and no scheduling propagator of the engine is used. Isolation
    pairs: never running at the same time, a clause per such time. More than
    ``P`` compulsory parts (``[latest_i, head_i + c_i)``, where a task surely
    runs) at once, or an isolated pair's two, refute before any search.
    ``"unknown"`` when the windows hold more than ``max_points`` (task, time)
    pairs: the model grows with the windows, not with the makespan. ``workers``
    CP-SAT threads (1, the default, is deterministic).

    Examples
    --------
    >>> from models._refute import floored_data
    >>> p = Problem.from_lists([2, 2, 2, 1], [(0, 3, 0)], n_processors=2)
    >>> refute_time_indexed(p, floored_data(p, 1), 3).outcome
    'refuted'
    >>> refute_time_indexed(p, floored_data(p, 1), 4).schedule.makespan
    4
    """
    from ortools.sat.python import cp_model

    started = time.perf_counter()
    if not identical_without_communication(problem):
        return Verdict("unknown", reason="not identical processors without communication")
    n, n_procs = problem.n_tasks, problem.n_processors
    cost = data.cost[:, 0].astype(np.int64)
    head, latest = _windows(problem, cost, target)
    if any(lo > up for lo, up in zip(head, latest, strict=True)):
        return Verdict("refuted", reason="a path is longer than the target", seconds=0.0)
    points = sum(up - lo + 1 for lo, up in zip(head, latest, strict=True))
    if points > max_points:
        return Verdict("unknown", reason=f"{points} (task, time) points, more than {max_points}")
    model = cp_model.CpModel()
    true = model.new_constant(1)
    deadline = None if time_limit is None else started + float(time_limit)

    def late() -> Verdict | None:
        """An ``unknown`` verdict once the budget has run out while building."""
        if deadline is None or time.perf_counter() <= deadline:
            return None
        return Verdict(
            "unknown", reason="time limit while building", seconds=time.perf_counter() - started
        )

    def started_by(i: int, t: int) -> Any:
        """``y[i, t]``: a literal, or True/False outside the window."""
        if t >= latest[i]:
            return True
        if t < head[i]:
            return False
        return y[i][t - head[i]]

    # The clock is read every _CLOCK_EVERY points too: a few tasks with long windows
    # hold up to max_points literals (a 0.05 s witness took 1.2 s: an outside audit).
    y: list[list[Any]] = []
    for i in range(n):
        lits: list[Any] = []
        for lo in range(head[i], latest[i], _CLOCK_EVERY):
            if (timed_out := late()) is not None:
                return timed_out
            hi = min(lo + _CLOCK_EVERY, latest[i])
            lits.extend(model.new_bool_var(f"y{i}_{t}") for t in range(lo, hi))
        for a, b in zip(lits, lits[1:], strict=False):
            model.add_implication(a, b)
        y.append(lits)
    for a in range(len(problem.arc_src)):
        if (timed_out := late()) is not None:
            return timed_out
        i, j = int(problem.arc_src[a]), int(problem.arc_dst[a])
        for t in range(head[j], latest[j] + 1):
            if (t - head[j]) % _CLOCK_EVERY == _CLOCK_EVERY - 1 and (timed_out := late()):
                return timed_out
            need = started_by(i, t - int(cost[i]))
            have = started_by(j, t)
            if need is True or have is False:
                continue
            if need is False:  # j cannot have started by t
                model.add_bool_or([have.Not()] if have is not True else [true.Not()])
            elif have is True:
                model.add_bool_or([need])
            else:
                model.add_implication(have, need)

    def running(i: int, t: int) -> tuple[Any, Any]:
        return started_by(i, t), started_by(i, t - int(cost[i]))

    # Task i surely runs on its compulsory part [latest_i, head_i + c_i) and has a
    # literal only in its two windows [head_i, latest_i) and [head_i + c_i, latest_i + c_i):
    # rows and clauses are built there alone, so the model grows with the windows, not
    # with the makespan (a 1e7-long task would otherwise cost 1e7 Python steps).
    sized = [i for i in range(n) if cost[i] > 0]
    if _most_at_once([(latest[i], head[i] + int(cost[i])) for i in sized]) > n_procs:
        reason = f"more than {n_procs} tasks must run at once"
        return Verdict("refuted", reason=reason, seconds=time.perf_counter() - started)
    terms: dict[int, list[Any]] = {}
    for i in sized:
        if (timed_out := late()) is not None:
            return timed_out
        for k, lit in enumerate(y[i]):  # y[i][k] = started_by(i, head_i + k)
            terms.setdefault(head[i] + k, []).append(lit)
            terms.setdefault(head[i] + k + int(cost[i]), []).append(-lit)
    if terms:
        # The constant part of the row at t: tasks surely started and not surely ended.
        began = np.sort([latest[i] for i in sized])
        done = np.sort([latest[i] + int(cost[i]) for i in sized])
        times = np.array(sorted(terms))
        constant = np.searchsorted(began, times, "right") - np.searchsorted(done, times, "right")
        for k, (t, fixed) in enumerate(zip(times.tolist(), constant.tolist(), strict=True)):
            if k % 256 == 0 and (timed_out := late()) is not None:
                return timed_out
            if len(terms[t]) + fixed > n_procs:
                model.add(sum(terms[t]) + fixed <= n_procs)
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        if cost[a] == 0 or cost[b] == 0:
            continue
        parts = [(latest[k], head[k] + int(cost[k])) for k in (a, b)]
        if _most_at_once(parts) > 1:
            pair = f"{problem.task_ids[a]!r} and {problem.task_ids[b]!r}"
            reason = f"isolated tasks {pair} must run at the same time"
            return Verdict("refuted", reason=reason, seconds=time.perf_counter() - started)
        if (timed_out := late()) is not None:
            return timed_out
        lo = max(head[a], head[b])
        hi = min(latest[a] + cost[a], latest[b] + cost[b])
        moments: set[int] = set()
        for k in (a, b):  # elsewhere one of the two surely does not run
            for first in (head[k], head[k] + int(cost[k])):
                moments.update(range(max(lo, first), min(hi, first + latest[k] - head[k])))
        for t in sorted(moments):
            # not (a running and b running) at t
            clause = []
            for k in (a, b):
                now, before = running(k, t)
                if now is False or before is True:
                    break
                if now is not True:
                    clause.append(now.Not())
                if before is not False:
                    clause.append(before)
            else:
                model.add_bool_or(clause or [true.Not()])
    solver = _solver(_left(time_limit, started), seed, workers)  # building counts too
    status = run_solver(solver, model)

    def first_true(i: int) -> int:
        found = (head[i] + k for k, lit in enumerate(y[i]) if solver.boolean_value(lit))
        return next(found, latest[i])

    def extract() -> tuple[np.ndarray, np.ndarray]:
        times = np.array([first_true(i) for i in range(n)], dtype=float)
        return _colour(times, cost, n_procs), times

    return _verdict(problem, data, solver, status, extract, started)
