"""Certified optima: an independent refutation of every shorter makespan.

An ``OPTIMAL`` status is the claim of one search. :func:`certify` checks it by
asking witnesses that share no search with that proof whether a schedule
shorter than the claimed optimum ``M`` exists (the witnesses are in
:mod:`models._refute`):

``bounds``
    The foundation lower bound of :func:`exactsched.bounds.lower_bound`, rounded
    up to the data's grid, already reaches ``M`` (no search at all).
``bruteforce``
    Exhaustive search on the original data (instances of at most
    :data:`BRUTEFORCE_MAX_TASKS` tasks).
``cpsat-time-indexed``, ``cpsat-cumulative``
    Identical processors without communication (the STG case) only, in
    :mod:`models._refute_cumulative`: a time-indexed 0-1 model (no interval,
    no resource) checks proofs made with a cumulative resource (``cpsat``
    pools identical processors), one cumulative resource of capacity ``P``
    checks the others; the one that matches the proof's formulation is skipped.
``cpsat-disjunctive``
    A CP-SAT model without interval variables, one worker, presolve off;
    interchangeable processors pooled or their symmetry broken (sound
    reductions argued in :mod:`models._refute_symmetry` and
    :func:`models._refute.refute_cpsat`).
``milp``
    The MILP of :mod:`models.milp` as a feasibility problem (HiGHS).

The question each one decides is "makespan ``<= target``" on data scaled by a
resolution and rounded down (a relaxation of the original problem). On
integer data and on data that are exact multiples of a power of ten up to
``10**-6`` (the grid of :func:`models.cpsat.scale_data`), ``target`` is ``M``
less one grid step, so a refutation proves ``M`` optimal. On other data the
rounding can shorten a chain of ``n`` tasks by up to ``2 n - 1`` grid steps, so
``target`` is lowered by as much and a refutation proves no schedule is shorter
than ``M - delta`` (``stats["certify"]["delta"]``); the witness's grid is then
made fine enough (the claim near 1e9 units for CP-SAT) to keep ``delta`` small.

Outcomes (:func:`certify` returns a new :class:`~exactsched.result.Result`):

* a witness refutes: ``certified=True``, ``certified_by`` names it; the search
  stops at the first refutation;
* a witness finds a schedule that is shorter on the original data: the proof
  was false. The shorter schedule (validated) is returned with status
  ``FEASIBLE``, the foundation lower bound, ``certified=False`` and
  ``stats["false_proof"]`` saying what was claimed and who caught it;
* no witness decides within the time (or each refuses): ``certified=False``,
  ``certified_by=()``, and the status stays ``OPTIMAL``: the method's proof is
  reported as it is, but a study should treat an uncertified optimum as a
  claim.

:func:`agree` compares the results of several methods on one instance and
reports ``"disputed"`` when they contradict each other.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from exactsched.bounds import lower_bound as foundation_lower_bound
from exactsched.problem import Problem
from exactsched.result import Result, Status
from exactsched.schedule import Schedule
from models._refute import (
    Floored,
    Verdict,
    floored_data,
    refute_bruteforce,
    refute_cpsat,
    refute_milp,
)
from models._refute_cumulative import (
    CUMULATIVE,
    TIME_INDEXED,
    refute_cumulative,
    refute_time_indexed,
    witness_for,
)

__all__ = [
    "WITNESSES",
    "DEFAULT_MAX_TASKS",
    "DEFAULT_BUDGET_FACTOR",
    "DEFAULT_MIN_BUDGET",
    "BRUTEFORCE_MAX_TASKS",
    "certify",
    "apply_policy",
    "agree",
    "Agreement",
]

#: Every witness, in the order tried (a method's own engine is skipped).
WITNESSES: tuple[str, ...] = (
    "bounds",
    "bruteforce",
    TIME_INDEXED,
    CUMULATIVE,
    "cpsat-disjunctive",
    "milp",
)

#: Default policy (``certify=None``): certify optima of instances up to this many tasks...
DEFAULT_MAX_TASKS = 30
#: ...within this multiple of the solve time...
DEFAULT_BUDGET_FACTOR = 1.0
#: ...but never less than this many seconds (measured in docs/exact-models.md).
DEFAULT_MIN_BUDGET = 2.0
#: Budget of ``certify=True`` when the call has no time limit.
EXPLICIT_BUDGET = 60.0
#: The brute-force witness runs on instances of at most this many tasks.
BRUTEFORCE_MAX_TASKS = 7

# CP-SAT's integers and the MILP's tolerances bound the magnitudes of a target.
_CPSAT_MAX = 2**50
# Witnesses that share their engine or model with a method are skipped for it.
_SAME_ENGINE = {"bruteforce": {"bruteforce"}, "milp": {"milp"}}


# Witness models hold a delay per (arc, processor, processor): above this many the
# CP-SAT and MILP witnesses decline (e.g. 30 tasks on 1024 processors).
_MAX_DELAY_ENTRIES = 4_000_000


def _too_large(problem: Problem) -> bool:
    return problem.n_edges * problem.n_processors**2 > _MAX_DELAY_ENTRIES


def _grid(problem: Problem) -> tuple[float, bool]:
    """The resolution of :func:`models.cpsat.scale_data` and whether the data lie on it."""
    if _too_large(problem):
        return 1.0, problem.is_integral
    from models.cpsat import scale_data

    resolution = float(scale_data(problem).resolution)
    return resolution, floored_data(problem, resolution).exact


@dataclass(frozen=True)
class _Question:
    """The decision problem of one witness: makespan <= target on floored data."""

    data: Floored
    target: int
    below: float  # a refutation rules out every makespan below this, original units


def _question(problem: Problem, claimed: float, resolution: float, cap: float) -> _Question:
    """Floored data and target refuting makespans shorter than ``claimed``.

    The resolution drops by powers of ten until ``claimed`` in model units is
    at most ``cap``. On data off the grid it rises instead to put ``claimed``
    near ``min(cap, 1e9)`` units, which keeps the rounding loss (and so
    ``delta``) near a relative ``2 n * 1e-9``.
    """
    while claimed * resolution > cap and resolution > 1e-300:
        resolution /= 10.0
    data = floored_data(problem, resolution)
    if not data.exact and claimed > 0:
        finer = 10.0 ** math.floor(math.log10(min(cap, 1e9) / claimed))
        if finer > resolution:
            resolution = finer
            data = floored_data(problem, resolution)
    scaled = claimed * resolution
    # The claim on the grid (a sum of grid values, up to float noise).
    top = math.ceil(scaled - max(1e-9, 1e-14 * scaled))
    # A floored chain of n tasks and n - 1 arcs is shorter by < 2n - 1 units.
    loss = 0 if data.exact else 2 * problem.n_tasks - 1
    target = top - loss - 1
    return _Question(data, target, (target + 1) / resolution)


def _shorter(schedule: Schedule, claimed: float, resolution: float, on_grid: bool) -> bool:
    """Whether ``schedule`` is shorter than ``claimed`` beyond floating-point noise."""
    makespan = float(schedule.makespan)
    if on_grid:
        # Both ends lie on the grid up to noise: compare grid steps.
        return round(makespan * resolution) < round(claimed * resolution)
    return makespan < claimed - 1e-9 * max(1.0, abs(claimed))


def certify(
    problem: Problem,
    result: Result,
    *,
    time_limit: float | None = None,
    seed: int | None = 0,
    witnesses: Sequence[str] | None = None,
) -> Result:
    """Refute every makespan shorter than the optimum ``result`` claims.

    Parameters
    ----------
    problem : Problem
    result : Result
        A method's result; only ``OPTIMAL`` ones are certified (others come back
        unchanged).
    time_limit : float, optional
        Seconds for all witnesses together (default: none).
    seed : int, optional
        Seed of the randomised witnesses (CP-SAT, MILP).
    witnesses : sequence of str, optional
        Witnesses to try, in order (default :data:`WITNESSES`, leaving out the
        ones that share the method's engine).

    Returns
    -------
    Result
        See the module docstring. ``stats["certify"]`` holds ``seconds``,
        ``delta``, ``resolution`` and each witness's outcome and reason.

    Raises
    ------
    ValueError
        For an unknown witness name.

    Examples
    --------
    >>> from exactsched import load_instance, solve
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> r = certify(p, solve(p, "cpsat", time_limit=10, workers=1, certify=False))
    >>> r.status.value, r.makespan, r.certified, r.certified_by
    ('optimal', 73, True, ('cpsat-disjunctive',))
    """
    chosen = tuple(WITNESSES if witnesses is None else witnesses)
    for name in chosen:
        if name not in WITNESSES:
            raise ValueError(f"witness {name!r}: unknown; known: {', '.join(WITNESSES)}")
    if witnesses is None:
        chosen = tuple(w for w in chosen if result.method not in _SAME_ENGINE.get(w, ()))
        # The STG-case witnesses: only the one whose formulation differs from the proof's.
        other = witness_for(problem, result)
        chosen = tuple(w for w in chosen if w not in (TIME_INDEXED, CUMULATIVE) or w == other)
    if result.status is not Status.OPTIMAL or result.schedule is None:
        return result
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    claimed = float(result.makespan)  # type: ignore[arg-type]
    resolution, on_grid = _grid(problem)
    report: dict[str, Any] = {"resolution": resolution, "witnesses": {}}
    refuted_by: list[str] = []
    delta = 0.0
    caught: tuple[str, Schedule] | None = None
    # Under single-port or contention the witnesses refute on the delay relaxation:
    # no schedule below the claim there means none here (messages only add waits).
    relaxed = problem if problem.communication == "delay" else problem.with_communication("delay")
    for name in chosen:
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0:
            report["witnesses"][name] = {"outcome": "unknown", "reason": "no time left"}
            continue
        verdict, below = _ask(
            relaxed, name, claimed, (resolution, on_grid), remaining, int(seed or 0)
        )
        report["witnesses"][name] = {
            "outcome": verdict.outcome,
            "reason": verdict.reason,
            "seconds": round(verdict.seconds, 6),
        }
        if verdict.outcome == "refuted":
            refuted_by.append(name)
            delta = max(0.0, claimed - below)
            break
        if verdict.outcome == "found" and relaxed is not problem:
            report["witnesses"][name]["outcome"] = "unknown"
            report["witnesses"][name]["reason"] = (
                f"a shorter schedule of the delay relaxation, which says nothing under "
                f"{problem.communication}"
            )
            continue
        if verdict.outcome == "found" and verdict.schedule is not None:
            from exactsched.validate import validate

            if validate(problem, verdict.schedule):
                report["witnesses"][name]["outcome"] = "unknown"
                report["witnesses"][name]["reason"] = "witness schedule invalid (a bug)"
                continue
            if _shorter(verdict.schedule, claimed, resolution, on_grid):
                caught = (name, verdict.schedule)
                break
            report["witnesses"][name]["outcome"] = "unknown"
            report["witnesses"][name]["reason"] = (
                "a schedule of the rounded-down data, not shorter on the original data"
            )
    report["seconds"] = round(time.perf_counter() - started, 6)
    report["delta"] = delta if refuted_by else None
    stats = {**dict(result.stats), "certify": report}
    if caught is not None:
        name, schedule = caught
        stats["false_proof"] = {
            "claimed": result.makespan,
            "claimed_bound": result.lower_bound,
            "caught_by": name,
            "makespan": schedule.makespan,
        }
        bound = min(foundation_lower_bound(problem), schedule.makespan)
        return replace(
            result,
            status=Status.FEASIBLE,
            schedule=schedule,
            makespan=schedule.makespan,
            lower_bound=bound,
            stats=stats,
            certified=False,
            certified_by=(),
        )
    return replace(result, stats=stats, certified=bool(refuted_by), certified_by=tuple(refuted_by))


def _ask(
    problem: Problem,
    name: str,
    claimed: float,
    grid: tuple[float, bool],
    time_limit: float | None,
    seed: int,
) -> tuple[Verdict, float]:
    """Run one witness; its verdict and the makespan below which a refutation holds."""
    resolution, on_grid = grid
    if name == "bounds":
        started = time.perf_counter()
        bound = float(foundation_lower_bound(problem))
        if on_grid:
            # Some optimal schedule ends on the grid of exact data: round up to it.
            scaled = bound * resolution
            bound = math.ceil(scaled - 1e-9 * max(1.0, scaled)) / resolution
            below = claimed - 0.5 / resolution
        else:
            below = claimed - 1e-9 * max(1.0, abs(claimed))
        if bound >= below:
            verdict = Verdict("refuted", reason="lower bound reaches the claim")
        else:
            verdict = Verdict("unknown", reason=f"lower bound {bound:g} below the claim")
        return replace(verdict, seconds=time.perf_counter() - started), max(below, bound)
    if name == "bruteforce":
        if problem.n_tasks > BRUTEFORCE_MAX_TASKS:
            return Verdict("unknown", reason=f"more than {BRUTEFORCE_MAX_TASKS} tasks"), claimed
        # On the grid of exact data "shorter" means one step shorter; else a relative 1e-9.
        step = 0.5 / resolution if on_grid else 0.0
        below = claimed - max(step, 1e-9 * max(1.0, abs(claimed)))
        return refute_bruteforce(problem, below, time_limit=time_limit), below
    if _too_large(problem):
        return Verdict("unknown", reason="too many (arc, processor pair) delays"), claimed
    if name in (TIME_INDEXED, CUMULATIVE):
        question = _question(problem, claimed, resolution, _CPSAT_MAX)
        if question.target < 0 and not question.data.exact:
            return Verdict("unknown", reason="rounding loss above the claim"), claimed
        refute = refute_time_indexed if name == TIME_INDEXED else refute_cumulative
        verdict = refute(problem, question.data, question.target, time_limit=time_limit, seed=seed)
        return verdict, question.below
    if name == "cpsat-disjunctive":
        question = _question(problem, claimed, resolution, _CPSAT_MAX)
        if question.target < 0 and not question.data.exact:
            return Verdict("unknown", reason="rounding loss above the claim"), claimed
        verdict = refute_cpsat(
            problem, question.data, question.target, time_limit=time_limit, seed=seed
        )
        return verdict, question.below
    from models import milp as milp_module

    n = max(1, problem.n_tasks)
    cap = milp_module._NUMERIC_BUDGET / (2.0 * n * milp_module._INT_TOL)
    question = _question(problem, claimed, resolution, cap)
    if question.target < 0 and not question.data.exact:
        return Verdict("unknown", reason="rounding loss above the claim"), claimed
    verdict = refute_milp(
        problem, question.data, question.target, time_limit=time_limit, seed=seed
    )
    return verdict, question.below


def apply_policy(
    problem: Problem,
    result: Result,
    certify_option: bool | None,
    *,
    time_limit: float | None = None,
    seed: int | None = 0,
) -> Result:
    """The certification :func:`exactsched.solve` applies after an exact method.

    ``certify_option`` False: nothing (``certified`` stays None). True: every
    ``OPTIMAL`` result is certified within ``time_limit`` (or
    :data:`EXPLICIT_BUDGET` seconds without one). None (the default policy):
    optima of instances with at most :data:`DEFAULT_MAX_TASKS` tasks (any
    size on identical processors without communication) are certified within
    ``max(DEFAULT_MIN_BUDGET, DEFAULT_BUDGET_FACTOR * seconds)`` of the solve,
    and within what is left of ``time_limit`` (at least 0.5 s);
    larger ones are left uncertified (``certified=None``). An explicit True
    gives the certification its own budget, so the call may take twice the limit.

    Examples
    --------
    >>> from exactsched import load_instance, solve
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> solve(p, "cpsat", time_limit=10, workers=1).certified
    True
    """
    if certify_option is False or result.status is not Status.OPTIMAL:
        return result
    if certify_option is None:
        # Identical processors without communication have fast witnesses at any size.
        if problem.n_tasks > DEFAULT_MAX_TASKS and witness_for(problem, result) is None:
            return result
        budget = max(DEFAULT_MIN_BUDGET, DEFAULT_BUDGET_FACTOR * result.seconds)
        if time_limit is not None:  # the call's limit holds, give or take half a second
            budget = min(budget, max(0.5, time_limit - result.seconds))
    else:
        budget = EXPLICIT_BUDGET if time_limit is None else float(time_limit)
    return certify(problem, result, time_limit=budget, seed=seed)


@dataclass(frozen=True)
class Agreement:
    """Whether several methods' answers on one instance are consistent.

    Attributes
    ----------
    status : str
        ``"agreed"`` (some optimum, and nothing contradicts it), ``"open"``
        (no method proved an optimum, nothing contradicts) or ``"disputed"``.
    optimum : float or None
        The agreed optimum.
    reasons : tuple of str
        For ``"disputed"``: each contradiction, one line each.
    """

    status: str
    optimum: float | None
    reasons: tuple[str, ...] = ()


def agree(results: Iterable[Result], *, rel_tol: float = 1e-9) -> Agreement:
    """Check the results of several methods on one instance against each other.

    Two contradictions make the instance ``"disputed"`` (a study must then
    report it as such and never pick one answer): two proven optima that differ,
    and a proven lower bound above another method's valid makespan (an optimum
    above a valid schedule is the same thing). A certified optimum does not
    override a contradiction either.

    Parameters
    ----------
    results : iterable of Result
        Results on the same instance (schedules already validated).
    rel_tol : float
        Relative tolerance of the comparisons (default 1e-9).

    Returns
    -------
    Agreement

    Examples
    --------
    >>> from exactsched import Problem, solve
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    >>> agree([solve(p, "bruteforce"), solve(p, "heft")])
    Agreement(status='agreed', optimum=5, reasons=())
    >>> bad = replace(solve(p, "heft"), lower_bound=6)
    >>> agree([solve(p, "bruteforce"), bad]).status
    'disputed'
    """
    results = list(results)

    def close(a: float, b: float) -> bool:
        return abs(a - b) <= rel_tol * max(1.0, abs(a), abs(b))

    reasons: list[str] = []
    optima = [r for r in results if r.status is Status.OPTIMAL and r.makespan is not None]
    for k, a in enumerate(optima):
        for b in optima[k + 1 :]:
            if not close(float(a.makespan), float(b.makespan)):  # type: ignore[arg-type]
                reasons.append(
                    f"{a.method} proves {a.makespan:g} but {b.method} proves {b.makespan:g}"
                )
    for a in results:
        if a.lower_bound is None:
            continue
        for b in results:
            if b is a or b.makespan is None:
                continue
            if a.lower_bound > b.makespan and not close(a.lower_bound, b.makespan):
                reasons.append(
                    f"{a.method}'s bound {a.lower_bound:g} is above "
                    f"{b.method}'s valid makespan {b.makespan:g}"
                )
    if reasons:
        return Agreement("disputed", None, tuple(reasons))
    if optima:
        return Agreement("agreed", optima[0].makespan, ())
    return Agreement("open", None, ())
