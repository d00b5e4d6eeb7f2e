"""Stage *warm start* of the CP-SAT model: the best valid schedule found before solving.

Candidates, cheapest first: a serial schedule (:func:`serial_schedule`, O(n + e),
so a schedule exists even when the time limit is almost nothing), our own
insertion-based EFT list schedules (upward rank with mean and least costs,
then restricted to the ``k`` processors nearest to each processor on
multi-hop networks, :func:`near_subsets`), the registered heuristics of
``hint_heuristics``, and with ``relocate`` the relocation and priority
searches of :mod:`models._relocate`. The best becomes the hint and the
horizon, and is the answer if CP-SAT finds nothing better.

With a time limit ``T`` the candidates stop at ``0.3 T``: HEFT runs first
after the serial schedule (the cheapest good one; it may run until ``0.6 T``
when its predicted time, ``P`` serial schedules, fits), list schedules are
interrupted, a registered heuristic is skipped when its predicted time (a
multiple of HEFT's measured time) would pass that point; and
the relocation searches at ``0.4 T`` (and at most ``0.1 T``): what is skipped
is recorded in ``WarmStart.errors``.

References
----------
.. [1] H. Topcuoglu, S. Hariri and M.-Y. Wu, IEEE TPDS 13(3), 2002 (list scheduling).
.. [2] T. McSweeney, N. Walton and M. Zounon, ICCS 2020 (choosing the type on CPU-GPU nodes).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exactsched.problem import Problem
from exactsched.schedule import Schedule
from exactsched.validate import validate
from models._clock import Clock, OutOfTime
from models._cpsat_locations import Locations, processor_locations, relabel_symmetric
from models._cpsat_scaling import ScaledData
from models._relocate import priority_search, relocation_search
from models._warmstart import (
    delay_matrix,
    retime,
    serial_schedule,
    simple_list_schedule,
    upward_rank,
)

__all__ = ["WarmStart", "hint_candidates", "near_subsets", "find_warm_start"]

# Share of the time limit the candidates may use, and the relocation searches with them.
_CANDIDATE_SHARE = 0.3
_RELOCATE_SHARE = 0.1
# Predicted time of a registered heuristic, in units of HEFT's measured time (or of our
# first list schedule's when HEFT is not tried). Measured on 2000 tasks x 16 processors:
# cpop 2, the others at most 1.5, lookahead 36 (about 2.3 P: it tries every processor).
_COST_RATIO: dict[str, Callable[[int], float]] = {"heft-lookahead": lambda n_procs: 3.0 * n_procs}
_DEFAULT_RATIO = 3.0
# HEFT, the first schedule after the serial one, may run until this share of the limit;
# its time is predicted as this many serial schedules per processor.
_HEFT_SHARE = 0.6
_HEFT_PER_PROCESSOR = 1.0


@dataclass
class WarmStart:
    """The best valid schedule before solving, and its image on the scaled data.

    Attributes
    ----------
    name : str
        Which candidate it is (``"serial"``, ``"list-mean"``, ``"heft"``, ...).
    schedule : Schedule
        On the original data.
    errors : dict
        Candidates that failed, gave an invalid schedule or were skipped for time.
    first_seconds : float
        Seconds from the start of the call to the first valid schedule.
    loc, start, end : numpy.ndarray
        Location, scaled start and scaled end of every task (processors
        relabelled for the symmetry breaking when it is on).
    makespan : int
        Scaled makespan: the horizon of the model.
    """

    name: str
    schedule: Schedule
    errors: dict[str, str] = field(default_factory=dict)
    first_seconds: float = 0.0
    loc: np.ndarray | None = None
    start: np.ndarray | None = None
    end: np.ndarray | None = None
    makespan: int = 0


def near_subsets(problem: Problem, limit: int = 24) -> list[tuple[int, np.ndarray]]:
    """Distinct sets of the ``k`` processors nearest to each processor (``k = 2, 4, ...``).

    Only when data travel over at least two hop distances (else every subset
    of a size is as near as another); ties by processor index; sets that leave
    a task without an allowed processor are skipped; at most ``limit`` sets.

    Examples
    --------
    >>> mesh = {"topology": "mesh", "dims": [4]}
    >>> p = Problem.from_lists([1, 1], [(0, 1, 1)], n_processors=4, network=mesh)
    >>> [(k, m.astype(int).tolist()) for k, m in near_subsets(p)]
    [(2, [1, 1, 0, 0]), (2, [0, 1, 1, 0]), (2, [0, 0, 1, 1])]
    """
    n_procs = problem.n_processors
    if problem.n_edges == 0 or not np.any(problem.arc_unit > 0):
        return []
    if len(np.unique(problem.hops[~np.eye(n_procs, dtype=bool)])) < 2:
        return []
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[int, np.ndarray]] = []
    k = 2
    while k < n_procs and len(out) < limit:
        for p in range(n_procs):
            near = np.lexsort((np.arange(n_procs), problem.hops[p]))[:k]
            key = tuple(sorted(near.tolist()))
            if key in seen:
                continue
            seen.add(key)
            members = np.zeros(n_procs, dtype=bool)
            members[near] = True
            if problem.allowed[:, members].any(axis=1).all():
                out.append((k, members))
            if len(out) >= limit:
                break
        k *= 2
    return out


def hint_candidates(
    problem: Problem,
    names: Sequence[str],
    report: Callable[[Schedule], Any] | None = None,
    *,
    loc: Locations | None = None,
    relocate: int = 0,
    relocate_seconds: float = 2.0,
    target: float = 0.0,
    seed: int = 0,
    clock: Clock | None = None,
) -> tuple[list[tuple[str, Schedule]], dict[str, str]]:
    """Valid schedules of our own list schedules and of the registered heuristics.

    ``report(schedule)`` is called on each candidate better than all before it,
    so a first schedule (the serial one) is out at once. With
    ``relocate > 0`` the best one is then improved by that many moves of
    :func:`models._relocate.relocation_search` (when tasks have a choice of
    location) and as many tries of :func:`models._relocate.priority_search`,
    at most ``relocate_seconds`` in all; the latter stops at ``target``.
    ``clock`` (with a time limit) cuts the candidates short as the module
    docstring says; the serial schedule is always there.

    Examples
    --------
    >>> from exactsched import load_instance
    >>> found, errors = hint_candidates(load_instance("examples/topcuoglu2002.json"), ["heft"])
    >>> sorted((name, s.makespan) for name, s in found)
    [('heft', 80), ('list-mean', 80), ('list-min', 80), ('serial', 117)]
    """
    from exactsched.registry import available_methods

    clock = clock or Clock(None)
    stop = clock.until(_CANDIDATE_SHARE)
    found: list[tuple[str, Schedule]] = []
    errors: dict[str, str] = {}
    best = math.inf

    def keep(name: str, schedule: Schedule) -> None:
        nonlocal best
        found.append((name, schedule))
        if schedule.makespan < best:
            best = schedule.makespan
            if report is not None:
                report(schedule)

    began = time.perf_counter()
    serial = serial_schedule(problem)
    # HEFT is O(e P) where the serial schedule is O(n + e): about 0.75 P times its time.
    heft_predicted = _HEFT_PER_PROCESSOR * problem.n_processors * (time.perf_counter() - began)
    keep("serial", Schedule.from_arrays(problem, *serial))
    registered = {m.name: m for m in available_methods() if m.kind == "heuristic"}
    names = [name for name in names if name in registered]
    unit: list[float] = []  # seconds of the first list schedule: the yardstick of predictions

    def run_registered(name: str) -> None:
        if stop is not None:
            ratio = _COST_RATIO.get(name, lambda _: _DEFAULT_RATIO)(problem.n_processors)
            if name == "heft":  # the fallback worth having: until 60 % of the limit
                late, predicted = clock.until(_HEFT_SHARE), heft_predicted
            else:
                late, predicted = stop, ratio * unit[0] if unit else math.inf
            if time.perf_counter() + predicted > late:
                errors[name] = "skipped: time limit"
                return
        began = time.perf_counter()
        try:
            schedule = registered[name].func(problem)
        except Exception as exc:  # a colleague's heuristic must never break the model
            errors[name] = f"{type(exc).__name__}: {exc}"
            return
        if not unit and name == "heft":
            unit.append(time.perf_counter() - began)
        if not isinstance(schedule, Schedule) or validate(problem, schedule):
            errors[name] = "invalid schedule"
            return
        keep(name, schedule)

    # HEFT first: it is the cheapest good schedule (0.06 s on 2000 tasks x 16
    # processors), so a short time limit still gets it.
    if "heft" in names:
        run_registered("heft")
    # The (arcs, P, P) delays only when a list schedule may still run (on 1024
    # processors they are 8 MB per arc).
    late = stop is not None and time.perf_counter() > stop
    delay = None if late else delay_matrix(problem)
    lists = [("mean", None, problem.cost), ("min", None, problem.cost)]
    # On multi-hop networks with much data the greedy list schedules spread the
    # tasks far apart (80 x 16 fat-tree: 227); the same schedule restricted to
    # the k processors nearest to some processor is often much shorter (137).
    for k, members in near_subsets(problem):
        lists.append(("mean", k, np.where(members[None, :], problem.cost, np.inf)))
    for how, k, cost in lists:
        name = f"list-{how}" if k is None else f"list-near{k}"
        if delay is None or (stop is not None and time.perf_counter() > stop):
            errors[name] = "skipped: time limit"
            break
        try:
            began = time.perf_counter()
            rank = upward_rank(problem, cost, delay, how)
            proc, start = simple_list_schedule(problem, cost, delay, rank, deadline=stop)
            if not unit:
                unit.append(time.perf_counter() - began)
        except OutOfTime:
            errors[name] = "skipped: time limit"
            break
        schedule = Schedule.from_arrays(problem, proc, start)
        if validate(problem, schedule):  # the referee has the last word on every candidate
            errors[name] = "invalid schedule"
            continue
        keep(name, schedule)
    for name in names:
        if name != "heft":
            run_registered(name)
    # The order of the candidates (ties of the relocation origin): own list
    # schedules, then the registered heuristics as listed, the serial one last.
    order = {
        f"list-{how}" if k is None else f"list-near{k}": r for r, (how, k, _) in enumerate(lists)
    }
    order.update({name: len(lists) + r for r, name in enumerate(names)})
    found.sort(key=lambda c: order.get(c[0], len(order)))
    if relocate > 0 and relocate_seconds > 0 and not clock.expired():
        loc = loc or processor_locations(problem)
        schedule = _relocated(problem, loc, found, relocate, relocate_seconds, target, seed, clock)
        if validate(problem, schedule):  # never expected: the scheduler honours every rule
            errors["relocate"] = "invalid schedule"
        else:
            keep("relocate", schedule)
    return found, errors


def _relocated(
    problem: Problem,
    loc: Locations,
    found: list[tuple[str, Schedule]],
    relocate: int,
    relocate_seconds: float,
    target: float,
    seed: int,
    clock: Clock,
) -> Schedule:
    """The best candidate improved by the relocation and priority searches."""
    deadline = clock.until(_CANDIDATE_SHARE + _RELOCATE_SHARE)
    # The best candidate, the first of equals in the order tried (the serial
    # schedule only when nothing else is as good).
    listed = [c for c in found if c[0] != "serial"] or found
    origin = loc.of_processor[min(listed, key=lambda c: c[1].makespan)[1].arrays(problem)[0]]
    budget = relocate_seconds
    if len(loc.members) > 1:
        # Four climbs with half the moves each (one stalls after ~1000 moves
        # on Cholesky N = 8), from the best schedule and from every task on
        # its fastest location (all on the GPU there), alternately: the
        # local optima reached vary much with the seed (66,401-67,791).
        rep = loc.representative
        fastest = np.argmin(np.where(problem.allowed, problem.cost, np.inf)[:, rep], axis=1)
        climbs = [
            relocation_search(
                problem,
                loc.members,
                start_from,
                moves=(relocate + 1) // 2,
                seconds=relocate_seconds / 8,
                seed=seed + k,
                deadline=deadline,
            )
            for k, start_from in enumerate((origin, fastest, origin, fastest))
        ]
        _, proc, _ = min(climbs, key=lambda c: c[0])
        origin = loc.of_processor[proc]
        budget = relocate_seconds / 2
    # Then the same assignment under perturbed priorities (the order is
    # what the single-location STG instances need).
    _, proc, start = priority_search(
        problem,
        loc.members,
        origin,
        tries=relocate,
        seconds=budget,
        target=target,
        seed=seed,
        deadline=deadline,
    )
    return Schedule.from_arrays(problem, proc, start)


def find_warm_start(
    problem: Problem,
    loc: Locations,
    data: ScaledData,
    *,
    names: Sequence[str],
    relocate: int,
    relocate_seconds: float,
    symmetry: bool,
    target: float,
    seed: int,
    clock: Clock,
    report: Callable[[Schedule], Any] | None = None,
    relocate_loc: Locations | None = None,
) -> WarmStart:
    """Stage *warm start*: the best candidate, re-timed on the scaled data.

    Parameters
    ----------
    problem : Problem
    loc : Locations
        The locations of the model (the hint is expressed in them).
    data : ScaledData
        The scaled data the hint is re-timed on.
    names : sequence of str
        Registered heuristics to try.
    relocate : int
        Moves of the relocation search (0: off).
    relocate_seconds : float
        Its time budget.
    symmetry : bool
        Relabel interchangeable processors to satisfy the symmetry breaking.
    target : float
        A proven lower bound (the priority search stops there).
    seed : int
    clock : Clock
    report : callable, optional
        Called with each improving candidate.
    relocate_loc : Locations, optional
        The locations the relocation search moves tasks between (default:
        :func:`~models._cpsat_locations.processor_locations` with pooling).

    Returns
    -------
    WarmStart
        The best candidate (ties: by name) with its scaled image.

    Examples
    --------
    >>> from exactsched import load_instance
    >>> from models._cpsat_locations import processor_locations
    >>> from models._cpsat_scaling import scale_data
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> w = find_warm_start(p, processor_locations(p), scale_data(p), names=["heft"],
    ...     relocate=0, relocate_seconds=0, symmetry=True, target=0, seed=0, clock=Clock(None))
    >>> w.name, w.makespan
    ('heft', 80)
    """
    first: list[float] = []

    def seen(schedule: Schedule) -> None:
        first.append(clock.elapsed())
        if report is not None:
            report(schedule)

    candidates, errors = hint_candidates(
        problem,
        names,
        seen,
        loc=relocate_loc,
        relocate=relocate,
        relocate_seconds=relocate_seconds,
        target=target,
        seed=seed,
        clock=clock,
    )
    name, schedule = min(candidates, key=lambda c: (c[1].makespan, c[0]))
    proc, start, _ = schedule.arrays(problem)
    if symmetry:
        proc = relabel_symmetric(proc, loc)
    n = problem.n_tasks
    start_s = retime(problem, proc, start, data.cost, data.delay)
    end_s = start_s + data.cost[np.arange(n), proc]
    makespan = int(end_s.max()) if n else 0
    return WarmStart(
        name, schedule, errors, first[0], loc.of_processor[proc], start_s, end_s, makespan
    )
