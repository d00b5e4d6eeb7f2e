"""Certified optima: an independent refutation of every makespan one grid step shorter.

An ``OPTIMAL`` status (or a method's claim, ``stats["claim"]``) is the claim of
one search. :func:`certify` checks it by asking witnesses whose verdicts rest
on nothing that proof used as a constraint (:func:`independent_witnesses`,
:data:`PROOF_COMPONENTS`, :data:`WITNESS_COMPONENTS`) whether a schedule
shorter than the claimed optimum ``M`` exists (the witnesses are in
:mod:`models._refute`, :mod:`models._refute_cumulative` and :mod:`models._refute_comm`):

``bounds``
    :func:`models._refute.witness_bound`, a lower bound computed for the
    witnesses alone (not :func:`exactsched.bounds.lower_bound`, which the
    ``cpsat`` and ``milp`` models use as a constraint), exceeds the target.
``bruteforce``
    Exhaustive search on the original data (instances of at most
    :data:`BRUTEFORCE_MAX_TASKS` tasks), without the early exit on the
    foundation bound.
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
``cpsat-messages``
    Single-port and contention only (:mod:`models._refute_comm`): the
    interval-free model extended with message stages, start variables per port
    or link and order literals between messages; decided on the exact data at
    the resolution of the stage durations (:func:`models._refute_comm.comm_resolution`).
``milp``
    The MILP of :mod:`models.milp` as a feasibility problem (HiGHS). Its
    "infeasible" never certifies alone (:data:`NOT_ALONE`).

The question each one decides is "makespan ``<= target``" on integer data. The
grid of the data is decided exactly (:mod:`models._grid`): on integer and
decimal data the witness gets the data exactly and ``target`` is the claim
less **one grid step**, whatever the magnitude; data whose sums floating point
cannot hold exactly (beyond ``2**53``) are not certified. On float data the
data are rounded down (a relaxation), the rounding can shorten a chain of
``n`` tasks by up to ``2 n - 1`` units, so ``target`` is lowered by as much and
a refutation proves no schedule is shorter than ``M - delta``
(``stats["certify"]["delta"]``, about a relative ``2 n * 1e-9``).

Outcomes (:func:`certify` returns a new :class:`~exactsched.result.Result`):

* a witness refutes: ``OPTIMAL``, ``certified=True``, ``certified_by`` names
  it; the search stops at the first refutation;
* a witness finds a schedule that is a grid step shorter on the original data:
  the proof was false. The shorter schedule (validated) is returned with status
  ``FEASIBLE``, the foundation lower bound, ``certified=False`` and
  ``stats["false_proof"]`` saying what was claimed and who caught it;
* no witness decides within the time (or each refuses): ``certified=False``,
  ``certified_by=()``, and :func:`certify` returns the claim settled
  (:func:`settle`): ``FEASIBLE`` with the bound a proof stands behind and
  ``stats["claim"]`` saying what was claimed and why it is not optimal. An
  undecided claim is never ``OPTIMAL``, whoever calls. :func:`settle` (run by
  :func:`apply_policy`, hence by :func:`exactsched.solve`) also keeps
  ``OPTIMAL`` only for a proof that stands alone: never an engine's (MILP,
  CP-SAT: not in :data:`PROVES_ALONE`) uncertified, never on data that are not
  held. With ``certify=False`` only the exact bound (:data:`INSTANT_WITNESS`)
  is asked, so an engine's claim it does not meet is ``FEASIBLE`` with
  ``stats["claim"]``.

:func:`agree` compares the results of several methods on one instance and
reports ``"disputed"`` when they differ by a grid step or more.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from exactsched._output import rough
from exactsched.bounds import lower_bound as foundation_lower_bound
from exactsched.errors import MethodError, ScheduleError
from exactsched.limits import default_workers
from exactsched.problem import Problem
from exactsched.registry import check_common
from exactsched.result import Result, Status
from exactsched.schedule import Schedule
from exactsched.validate import validate
from models._grid import EXACT_LIMIT, FLOAT_TOLERANCE, Grid, data_grid
from models._refute import (
    Floored,
    Verdict,
    grid_data,
    refute_bound,
    refute_bruteforce,
    refute_cpsat,
    refute_milp,
)
from models._refute_comm import WITNESS as MESSAGES
from models._refute_comm import comm_resolution, refute_messages
from models._refute_cumulative import (
    CUMULATIVE,
    TIME_INDEXED,
    refute_cumulative,
    refute_time_indexed,
    witness_for,
)

__all__ = [
    "WITNESSES",
    "DEFAULT_BUDGET_FACTOR",
    "DEFAULT_MIN_BUDGET",
    "BRUTEFORCE_MAX_TASKS",
    "PROOF_COMPONENTS",
    "WITNESS_COMPONENTS",
    "independent_witnesses",
    "claimed_optimum",
    "engine_view",
    "certify",
    "settle",
    "trusted_bound",
    "settled_bound",
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
    MESSAGES,
    "milp",
)

#: Default policy (``certify=None``): certify every optimum, at any size, within this
#: multiple of the solve time...
DEFAULT_BUDGET_FACTOR = 1.0
#: ...but never less than this many seconds (measured in docs/exact-models.md).
DEFAULT_MIN_BUDGET = 2.0
#: Budget of ``certify=True`` when the call has no time limit.
EXPLICIT_BUDGET = 60.0
#: The brute-force witness runs on instances of at most this many tasks.
BRUTEFORCE_MAX_TASKS = 7

# CP-SAT's integers and the MILP's tolerances bound the magnitudes of a target.
_CPSAT_MAX = 2**50

#: What each method's proof rests on as a constraint (its engine and model, the
#: components it imports). A witness whose verdict rests on one of these is not
#: asked to certify that method (docs/exact-models.md, "Independence").
PROOF_COMPONENTS: dict[str, frozenset[str]] = {
    "cpsat": frozenset(
        {
            "CP-SAT interval model",
            "CP-SAT pulse time-indexed model",  # the ladder, models/_cpsat_time_indexed.py
            "foundation bound",
            "cpsat class analysis",
            "cpsat scaling",
        }
    ),
    "milp": frozenset(
        {"MILP engine", "MILP model", "foundation bound", "optimistic paths", "cpsat scaling"}
    ),
    "bruteforce": frozenset({"exhaustive search", "foundation bound"}),
}
#: What each witness's verdict rests on. The brute-force witness runs the search
#: without the foundation bound's early exit; the ``bounds`` witness computes its
#: own bound (:func:`models._refute.witness_bound`); the CP-SAT witness shares
#: the engine with ``cpsat`` but none of its encoding (no intervals, no presolve,
#: no LP).
WITNESS_COMPONENTS: dict[str, frozenset[str]] = {
    "bounds": frozenset({"witness bound"}),
    "bruteforce": frozenset({"exhaustive search"}),
    TIME_INDEXED: frozenset({"CP-SAT time-indexed model"}),
    CUMULATIVE: frozenset({"CP-SAT cumulative model"}),
    "cpsat-disjunctive": frozenset({"CP-SAT clause model"}),
    MESSAGES: frozenset({"CP-SAT message clause model"}),
    "milp": frozenset({"MILP engine", "MILP model", "optimistic paths"}),
}
#: Witnesses whose "infeasible" never certifies alone (HiGHS has proven false
#: infeasibility on small integer instances, tests/data/magnitude): their
#: refutations are recorded, their schedules still catch false proofs.
NOT_ALONE = frozenset({"milp"})
#: Methods whose own proof stands alone (exhaustive search over every schedule that
#: matters). Any other method's ``optimal`` is a claim until certified: both engines
#: have proven false optima, HiGHS 58 on tests/data/magnitude/highs-small-57.json
#: (optimum 57), CP-SAT 9.15 57 on tests/data/engine-false-optimum/straightforward-q030.json
#: (optimum 56) and 5000000001499 on tests/data/magnitude/cpsat-1e12.json.
PROVES_ALONE = frozenset({"bruteforce"})
#: Above this many scaled units a ``feasible`` CP-SAT result's bound is not the
#: engine's word either (:func:`_engine_bound_checked`): CP-SAT proved the false
#: 5000000001499 there.
CPSAT_TRUSTED_UNITS = 2**31
#: The witness that runs even with ``certify=False``: the exact lower bound of
#: :func:`models._refute.witness_bound` (integer sums, O(n + e) per processor).
INSTANT_WITNESS = ("bounds",)


# Witness models hold a delay per (arc, processor, processor): above this many the
# CP-SAT and MILP witnesses decline (e.g. 30 tasks on 1024 processors).
_MAX_DELAY_ENTRIES = 4_000_000


def _too_large(problem: Problem) -> bool:
    return problem.n_edges * problem.n_processors**2 > _MAX_DELAY_ENTRIES


def _grid(problem: Problem) -> tuple[float, bool]:
    """Grid units per original unit, and whether the data lie on a grid (:mod:`models._grid`).

    Under single-port and contention the finer grid of the message stages
    (:func:`models._refute_comm.comm_resolution`: a fat tree's links weigh
    1/2), so that two makespans half a unit apart are never read as one.
    """
    grid = data_grid(problem)
    if grid.exact and problem.communication != "delay":
        from models._refute_comm import comm_resolution

        fine = comm_resolution(problem)
        if fine is None:
            # Units too large to check exactly: the stage weights alone say how much
            # finer than the data the stages may be (a fat tree's 1/2).
            weights = problem.delay_multiples.tolist()
            factor = next((f for f in (1, 2, 4, 8) if all((w * f).is_integer() for w in weights)),
                          None)  # fmt: skip
            if factor is None:
                return float(grid.resolution), False
            fine = grid.resolution * factor
        return float(fine), True
    return float(grid.resolution), grid.exact


def _components(method: str) -> frozenset[str]:
    return PROOF_COMPONENTS.get(method, frozenset({f"method {method}"}))


def independent_witnesses(method: str) -> tuple[str, ...]:
    """The witnesses, in order, whose verdicts rest on nothing ``method``'s proof used.

    Examples
    --------
    >>> independent_witnesses("milp")[-3:]
    ('cpsat-cumulative', 'cpsat-disjunctive', 'cpsat-messages')
    >>> "bruteforce" in independent_witnesses("bruteforce")
    False
    """
    used = _components(method)
    return tuple(w for w in WITNESSES if not WITNESS_COMPONENTS[w] & used)


@dataclass(frozen=True)
class _Question:
    """The decision problem of one witness: makespan <= target on integer data."""

    data: Floored
    target: int
    below: float  # a refutation rules out every makespan below this, original units


def _question(problem: Problem, claimed: float, grid: Grid, cap: float) -> _Question | None:
    """Integer data and the target whose refutation certifies ``claimed``.

    On held grid data: the data exactly (no rounding) and ``target = G - 1``,
    ``G`` the claim in grid units, so a refutation leaves no schedule one grid
    step shorter. None when ``G`` exceeds ``cap`` (what the witness's engine
    holds). On float data: the data rounded down at a power of ten putting
    the claim near ``min(cap, 1e9)`` units, and the target lowered by the
    rounding loss of a chain (``2 n - 1`` units): a refutation then leaves no
    schedule shorter than the claim by more than ``delta``.
    """
    if grid.exact:
        top = grid.claim_units(claimed)
        if top > cap:
            return None
        data = grid_data(problem, grid.resolution)
        if data.exact:  # always, on held grid data (both read the same decimals)
            return _Question(data, top - 1, top / grid.resolution)
        return None
    ratio = min(cap, 1e9) / claimed if claimed > 0 else 1.0
    if not math.isfinite(ratio) or ratio > 1e300:
        return None  # a claim near 5e-324: no power of ten brings it to whole units
    resolution = 10.0 ** math.floor(math.log10(ratio))
    data = grid_data(problem, resolution)
    top = math.ceil(Fraction(claimed) * Fraction(repr(resolution)))
    target = top - (2 * problem.n_tasks - 1) - 1
    return _Question(data, target, (target + 1) / resolution)


def _shorter(makespan: float, claimed: float, grid: Grid, fine: int | None = None) -> bool:
    """Whether a valid schedule of ``makespan`` beats the claim by a grid step.

    A grid step on grid data; on float data, a relative :data:`FLOAT_TOLERANCE`.

    ``fine``: the resolution of a single-port or contention problem's makespans
    (:func:`models._refute_comm.comm_resolution`), whose step may be a fraction
    of the data grid's (fat-tree links of weight 1/2).
    """
    if grid.exact and fine is not None:
        scale = Fraction(fine, grid.resolution)
        noise = grid.noise(makespan) * scale
        top = math.ceil(Fraction(float(claimed)) * fine - grid.noise(claimed) * scale)
        return Fraction(float(makespan)) * fine <= top - 1 + noise
    if grid.exact:
        return grid.units(makespan) <= grid.claim_units(claimed) - 1 + grid.noise(makespan)
    # Relative, at every magnitude: a flat 1e-9 below 1 let a claim 14 times the
    # optimum of 1e-10 data pass (an outside audit).
    return makespan < claimed - FLOAT_TOLERANCE * abs(claimed)


def claimed_optimum(result: Result) -> float | None:
    """The makespan ``result`` claims optimal: an ``OPTIMAL`` one, or a method's unproven claim.

    ``stats["claim"]`` holds the claim of a method whose proof never stands
    alone (not in :data:`PROVES_ALONE`): such a result is ``FEASIBLE`` until certified.
    """
    if result.schedule is None or result.makespan is None:
        return None
    if result.status is Status.OPTIMAL or result.stats.get("claim") is not None:
        return float(result.makespan)
    return None


def engine_view(result: Result) -> Result:
    """``result`` as its method claimed it, before :func:`settle`: for benchmarks that
    count an engine's claims (``certify=False``) beside a model that has no policy.

    An uncertified claim (``stats["claim"]``) becomes ``OPTIMAL`` with its claimed
    bound; any other result comes back unchanged. Not an answer to report: a claim
    is no proof.

    Examples
    --------
    >>> from exactsched import load_instance, solve
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> said = solve(p, "cpsat", time_limit=10, workers=1, certify=False)
    >>> said.status.value, engine_view(said).status.value, engine_view(said).lower_bound
    ('feasible', 'optimal', 73)
    """
    claim = result.stats.get("claim")
    if result.status is Status.OPTIMAL or not isinstance(claim, dict):
        return result
    stats = {k: v for k, v in result.stats.items() if k != "claim"}
    bound = min(claim["bound"], result.makespan, key=float)  # a claim's bound is its own word
    return replace(result, status=Status.OPTIMAL, lower_bound=bound, stats=stats)


def certify(
    problem: Problem,
    result: Result,
    *,
    time_limit: float | None = None,
    seed: int | None = 0,
    witnesses: Sequence[str] | None = None,
    workers: int = 1,
    bound_time: float = 0.0,
) -> Result:
    """Refute every makespan one grid step shorter than the optimum ``result`` claims.

    Parameters
    ----------
    problem : Problem
    result : Result
        A method's result; only claimed optima (:func:`claimed_optimum`) are
        certified (others come back unchanged).
    time_limit : float, optional
        Seconds for all witnesses together (default: none).
    seed : int, optional
        Seed of the randomised witnesses (CP-SAT, MILP).
    witnesses : sequence of str, optional
        Witnesses to try, in order (default: :func:`independent_witnesses` of
        the method). An explicit list is tried as given.
    workers : int
        Threads of the CP-SAT witnesses (default 1: a deterministic search; more
        run complete searches side by side, none with an LP, see
        :func:`models._refute.set_threads`).
    bound_time : float
        Seconds, beyond ``time_limit``, for a witness-proven lower bound when no
        witness decides the claim (:func:`models._certified_bound.bound_ladder`;
        default 0: none). The bound is in ``stats["certify"]["bound"]`` and
        :func:`settle` reports it.

    Returns
    -------
    Result
        See the module docstring. A certified claim is ``OPTIMAL`` with
        ``lower_bound == makespan``; an undecided one ``FEASIBLE``
        (:func:`settle`), with ``certified=False``. ``stats["certify"]`` holds ``seconds``,
        ``delta``, ``grid`` and each witness's outcome and reason.

    Raises
    ------
    ValueError
        For an unknown witness name.
    MethodError
        For a ``time_limit``, ``workers``, ``seed`` or ``bound_time`` out of
        range (:func:`exactsched.registry.check_common`).
    ScheduleError
        If the claimed schedule does not validate, or is longer than the claim.

    Examples
    --------
    >>> from exactsched import load_instance, solve
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> r = certify(p, solve(p, "cpsat", time_limit=10, workers=1, certify=False))
    >>> r.status.value, r.makespan, r.certified, r.certified_by
    ('optimal', 73, True, ('cpsat-disjunctive',))
    """
    check_common(time_limit, workers, seed)  # as solve checks them: one line naming each
    if isinstance(bound_time, bool) or not (
        isinstance(bound_time, numbers.Real) and 0 <= bound_time < math.inf
    ):
        raise MethodError(
            f"bound_time: expected a finite number of seconds >= 0, got {bound_time!r}"
        )
    chosen = tuple(independent_witnesses(result.method) if witnesses is None else witnesses)
    for name in chosen:
        if name not in WITNESSES:
            raise ValueError(f"witness {name!r}: unknown; known: {', '.join(WITNESSES)}")
    if witnesses is None:
        # The STG-case witnesses: only the one whose formulation differs from the proof's.
        other = witness_for(problem, result)
        chosen = tuple(w for w in chosen if w not in (TIME_INDEXED, CUMULATIVE) or w == other)
        if problem.communication == "delay":
            chosen = tuple(w for w in chosen if w != MESSAGES)
    claim = claimed_optimum(result)
    if claim is None:
        return result
    # The witnesses refute schedules shorter than the claim; the claim itself must be a
    # valid schedule of that makespan (an invalid or mislabelled one was certified).
    violations = validate(problem, result.schedule)
    if violations:
        raise ScheduleError(f"certify: the claimed schedule is invalid: {violations[0]}")
    if float(result.schedule.makespan) > float(claim):
        # No schedule of the claimed length to stand behind it. (A shorter schedule
        # than the claim contradicts it: the witnesses catch that as a false proof.)
        raise ScheduleError(
            f"certify: the claim {claim!r} is below its schedule's makespan"
            f" {result.schedule.makespan!r}"
        )
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    grid = data_grid(problem)
    report: dict[str, Any] = {
        "grid": grid.kind,
        "resolution": grid.resolution,
        "witnesses": {},
    }
    refuted_by: list[str] = []
    delta = 0.0
    caught: tuple[str, Schedule] | None = None
    # Under single-port or contention the witnesses refute on the delay relaxation (no
    # schedule below the claim there means none here: messages only add waits), except
    # bruteforce and cpsat-messages, which search the model itself. Their makespans
    # live on a finer grid when fat-tree links weigh 1/2 (comm_resolution): "shorter"
    # is judged there.
    relaxed = problem if problem.communication == "delay" else problem.with_communication("delay")
    fine = None if relaxed is problem else comm_resolution(problem)
    itself = ("bruteforce", MESSAGES)
    # Data floats cannot hold exactly: no certificate, but a witness's valid
    # schedule that is clearly shorter still catches a false proof.
    catch_only = grid.exact and not grid.held
    if catch_only:
        report["reason"] = (
            f"the data sum to {rough(grid.total)} grid units: "
            "beyond what floating point holds exactly (no certificate)"
        )
    for name in chosen:
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0:
            report["witnesses"][name] = {"outcome": "unknown", "reason": "no time left"}
            continue
        asked = problem if name in itself else relaxed
        later = chosen[chosen.index(name) + 1 :]
        if asked is not problem and remaining is not None and MESSAGES in later:
            remaining /= 3  # the relaxation settles only some claims: keep time for the model
        elif name == "bruteforce" and remaining is not None and MESSAGES in later:
            # Exhaustive search may take its whole budget on 7 tasks; cpsat-messages
            # settles such claims in a fraction of a second (an outside audit saw it
            # left with no time on a loaded machine).
            remaining /= 2
        verdict, below = _ask(
            asked, name, claim, grid, remaining, int(seed or 0), fine, workers=workers
        )
        report["witnesses"][name] = {
            "outcome": verdict.outcome,
            "reason": verdict.reason,
            "seconds": round(verdict.seconds, 6),
        }
        if verdict.outcome == "refuted":
            if catch_only:
                report["witnesses"][name]["reason"] += " (data not held: no certificate)"
                continue
            if name in NOT_ALONE:
                report["witnesses"][name]["reason"] += " (never certifies alone)"
                continue
            refuted_by.append(name)
            delta = max(0.0, claim - below)
            break
        if verdict.outcome == "found" and asked is not problem:
            report["witnesses"][name]["outcome"] = "unknown"
            report["witnesses"][name]["reason"] = (
                f"a shorter schedule of the delay relaxation, which says nothing under "
                f"{problem.communication}"
            )
            continue
        if verdict.outcome == "found" and verdict.schedule is not None:
            if validate(problem, verdict.schedule):
                report["witnesses"][name]["outcome"] = "unknown"
                report["witnesses"][name]["reason"] = "witness schedule invalid (a bug)"
                continue
            if _shorter(float(verdict.schedule.makespan), claim, grid, fine):
                caught = (name, verdict.schedule)
                break
            report["witnesses"][name]["outcome"] = "unknown"
            report["witnesses"][name]["reason"] = (
                "a schedule of the rounded-down data, not shorter on the original data"
            )
    if not refuted_by and caught is None and bound_time > 0 and not catch_only:
        caught = _ladder(
            problem, relaxed, chosen, report, claim, grid, fine, bound_time, seed, workers
        )
    report["seconds"] = round(time.perf_counter() - started, 6)
    report["delta"] = delta if refuted_by else None
    stats = {**dict(result.stats), "certify": report}
    if caught is not None:
        name, schedule = caught
        stats["false_proof"] = {
            "claimed": result.makespan,
            "claimed_bound": result.stats.get("claim", {}).get("bound", result.lower_bound)
            if isinstance(result.stats.get("claim"), dict)
            else result.lower_bound,
            "caught_by": name,
            "makespan": schedule.makespan,
        }
        stats.pop("claim", None)
        bound: float = min(trusted_bound(problem, grid), float(schedule.makespan))
        if problem.is_integral and bound.is_integer():
            bound = int(bound)
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
    if refuted_by:
        stats.pop("claim", None)
        return replace(
            result,
            status=Status.OPTIMAL,
            lower_bound=result.makespan,
            stats=stats,
            certified=True,
            certified_by=tuple(refuted_by),
        )
    # Undecided: the claim is no proof, whoever calls (not only solve's policy).
    return settle(problem, replace(result, stats=stats, certified=False, certified_by=()))


def trusted_bound(problem: Problem, grid: Grid | None = None) -> float:
    """The foundation lower bound, lowered by the float noise of data that are not held.

    The bound no engine computed: what an uncertified claim falls back to.
    """
    grid = data_grid(problem) if grid is None else grid
    bound = float(foundation_lower_bound(problem))
    if grid.kind == "integer" and grid.held:
        return bound  # every sum exact
    # Otherwise the bound is a float computation over the data: take off its rounding.
    return bound - (4 * problem.n_tasks + 2) * math.ulp(abs(bound))


# The CP-SAT witnesses that decide "makespan <= target" on integer data.
_CPSAT_WITNESSES: dict[str, Any] = {
    TIME_INDEXED: refute_time_indexed,
    CUMULATIVE: refute_cumulative,
    "cpsat-disjunctive": refute_cpsat,
}


def _ladder(
    problem: Problem,
    relaxed: Problem,
    chosen: Sequence[str],
    report: dict[str, Any],
    claim: float,
    grid: Grid,
    fine: int | None,
    seconds: float,
    seed: int | None,
    workers: int,
) -> tuple[str, Schedule] | None:
    """A lower bound from the first CP-SAT witness that ran out of time on the claim.

    Writes ``report["bound"]`` (``value``, ``witness``, ``target``, ``tried``) when a
    target above the witness's own bound is refuted; returns ``(witness, schedule)``
    when a witness schedule beats the claim by a grid step (a false proof).
    """
    from models._certified_bound import bound_ladder

    name = next(
        (
            name
            for name in chosen
            if name in _CPSAT_WITNESSES
            and report["witnesses"].get(name, {}).get("outcome") == "unknown"
            and str(report["witnesses"][name].get("reason", "")).startswith("CP-SAT:")
        ),
        None,
    )
    if name is None:
        return None
    question = _question(relaxed, claim, grid, _CPSAT_MAX)
    if question is None or question.target <= 0:
        return None
    step = bound_ladder(
        relaxed,
        _CPSAT_WITNESSES[name],
        question.data,
        question.target,
        seconds=seconds,
        seed=int(seed or 0),
        workers=workers,
    )
    if step.schedule is not None and relaxed is problem:
        from exactsched.validate import validate

        if not validate(problem, step.schedule) and _shorter(
            float(step.schedule.makespan), claim, grid, fine
        ):
            return name, step.schedule
    if step.bound is not None:
        report["bound"] = {
            "value": _at_most(step.bound),
            "witness": name,
            "target": step.target,
            "tried": step.tried,
        }
    return None


def _at_most(value: Fraction) -> float:
    """The largest float not above ``value`` (an int when ``value`` is a held integer)."""
    if value.denominator == 1 and abs(value) <= 2**53:
        return int(value)
    down = float(value)
    return math.nextafter(down, -math.inf) if Fraction(down) > value else down


def settled_bound(problem: Problem, result: Result, grid: Grid | None = None) -> float:
    """The bound an uncertified claim keeps: :func:`trusted_bound` or a witness's, the larger.

    The witness's bound is the one :func:`certify` proved with ``bound_time``
    (``stats["certify"]["bound"]``); a refutation by a witness that never certifies
    alone (:data:`NOT_ALONE`) never gives one.
    """
    bound = trusted_bound(problem, grid)
    proven = result.stats.get("certify", {}).get("bound")
    if isinstance(proven, dict) and proven.get("witness") not in NOT_ALONE:
        bound = max(bound, float(proven["value"]))
    return bound


def _ask(
    problem: Problem,
    name: str,
    claimed: float,
    grid: Grid,
    time_limit: float | None,
    seed: int,
    fine: int | None = None,
    *,
    workers: int = 1,
) -> tuple[Verdict, float]:
    """Run one witness; its verdict and the makespan below which a refutation holds."""
    if name == "bruteforce":
        if problem.n_tasks > BRUTEFORCE_MAX_TASKS:
            return Verdict("unknown", reason=f"more than {BRUTEFORCE_MAX_TASKS} tasks"), claimed
        # On float data a refutation leaves schedules within the relative tolerance.
        below = claimed if grid.exact else claimed - FLOAT_TOLERANCE * abs(claimed)
        return (
            refute_bruteforce(
                problem, lambda m: _shorter(m, claimed, grid, fine), time_limit=time_limit
            ),
            below,
        )
    if name == MESSAGES:
        if problem.communication == "delay":
            return Verdict("unknown", reason="the delay model has no messages"), claimed
        if not grid.exact or fine is None:
            reason = "data on no grid that makes every stage duration an integer"
            return Verdict("unknown", reason=reason), claimed
        scale = Fraction(fine, grid.resolution)
        top = math.ceil(Fraction(float(claimed)) * fine - grid.noise(claimed) * scale)
        if top > _CPSAT_MAX:
            return Verdict("unknown", reason="claim beyond what CP-SAT holds"), claimed
        verdict = refute_messages(
            problem, top - 1, fine, time_limit=time_limit, seed=seed, workers=workers
        )
        return verdict, claimed
    if name == "bounds":
        question = _question(problem, claimed, grid, EXACT_LIMIT)
        if question is None:
            return Verdict("unknown", reason="claim beyond the witness's integers"), claimed
        return refute_bound(problem, question.data, question.target), question.below
    if _too_large(problem):
        return Verdict("unknown", reason="too many (arc, processor pair) delays"), claimed
    if name in _CPSAT_WITNESSES:
        question = _question(problem, claimed, grid, _CPSAT_MAX)
        if question is None:
            return Verdict("unknown", reason="claim beyond what CP-SAT holds"), claimed
        if question.target < 0 and not question.data.exact:
            return Verdict("unknown", reason="rounding loss above the claim"), claimed
        verdict = _CPSAT_WITNESSES[name](
            problem,
            question.data,
            question.target,
            time_limit=time_limit,
            seed=seed,
            workers=workers,
        )
        return verdict, question.below
    from models import milp as milp_module

    n = max(1, problem.n_tasks)
    cap = milp_module._NUMERIC_BUDGET / (2.0 * n * milp_module._INT_TOL)
    question = _question(problem, claimed, grid, cap)
    if question is None:
        return Verdict("unknown", reason="claim beyond the MILP's tolerances"), claimed
    if question.target < 0 and not question.data.exact:
        return Verdict("unknown", reason="rounding loss above the claim"), claimed
    verdict = refute_milp(
        problem, question.data, question.target, time_limit=time_limit, seed=seed
    )
    return verdict, question.below


def settle(problem: Problem, result: Result) -> Result:
    """What an uncertified claim may say: ``optimal`` only when the proof stands alone.

    A proof stands alone unless (a) the method is not in :data:`PROVES_ALONE`
    (an engine's word, MILP's or CP-SAT's, is no proof) and certification was
    off, (b) the data are on a grid that floating point does not hold
    (:mod:`models._grid`), or (c) certification was tried and no witness
    confirmed it (``certified=False``). Such a result becomes ``FEASIBLE``
    with :func:`settled_bound` (the foundation bound, or a witness's proven bound
    when larger; ``stats["claim"]`` keeps what the method claimed). Certified
    results come back unchanged. A result that claims nothing keeps its bound,
    except a CP-SAT bound above :data:`CPSAT_TRUSTED_UNITS` scaled units
    (:func:`_engine_bound_checked`).

    Rule (c) is measured: on the frontier set (``benchmarks/frontier.py``) one
    two-worker run of ``cpsat`` claimed 105 optimal on a 90-task instance whose
    optimum is 104 (another run found and proved 104, certified); the witness
    found no schedule of 104 within the solve's time, so the claim stayed
    uncertified, and before this rule it was reported ``optimal``.
    """
    if claimed_optimum(result) is None:
        return _engine_bound_checked(problem, result)
    if result.certified:
        return result
    grid = data_grid(problem)
    reason = None
    if grid.exact and not grid.held:
        reason = "the data are beyond what floating point holds exactly"
    elif result.method not in PROVES_ALONE and result.certified is None:
        reason = f"a {result.method} proof is not trusted without a witness (certification off)"
    if reason is None and result.certified is False:
        reason = "no independent witness confirmed the claim within its time"
    if reason is None:
        return result
    claim = result.stats.get("claim") or {"makespan": result.makespan, "bound": result.lower_bound}
    stats = {**dict(result.stats), "claim": {**claim, "why_not_optimal": reason}}
    bound = min(settled_bound(problem, result, grid), float(result.makespan))  # type: ignore[arg-type]
    bound = _reported(problem, bound)
    return replace(result, status=Status.FEASIBLE, lower_bound=bound, stats=stats)


def _engine_bound_checked(problem: Problem, result: Result) -> Result:
    """A ``feasible`` CP-SAT result keeps its engine's bound only where a proof would stand.

    Above :data:`CPSAT_TRUSTED_UNITS` scaled units CP-SAT has proven a false
    optimum, so its bound there is no proof either: the result falls back to
    :func:`trusted_bound` (``stats["engine_bound"]`` keeps the engine's).

    Examples
    --------
    >>> from exactsched import Placement, Problem, Result, Schedule, Status
    >>> p = Problem.from_lists([[4e9]])
    >>> late = Schedule({"t0": Placement("p0", 1e9, 5e9)})
    >>> told = Result("cpsat", Status.FEASIBLE, late, 5e9, 4.5e9, 1.0, {"resolution": 1})
    >>> _engine_bound_checked(p, told).lower_bound   # the foundation's, not the engine's
    4000000000
    """
    bound = result.lower_bound
    if result.method != "cpsat" or bound is None or result.makespan is None:
        return result
    if _scaled_units(result) <= CPSAT_TRUSTED_UNITS:
        return result
    # The foundation bound the method computed itself (not the engine's word) often
    # settles it already; the whole one costs seconds on 50,000 tasks.
    known = result.stats.get("foundation_bound")
    if isinstance(known, str):  # "B (LPs skipped or stopped: time)": B is still a bound
        with contextlib.suppress(ValueError, IndexError):
            known = float(known.split()[0])
    if isinstance(known, int | float) and math.isfinite(known) and float(bound) <= known:
        grid = data_grid(problem)
        exact = grid.kind == "integer" and grid.held  # every sum of the bound exact
        noise = 0.0 if exact else (4 * problem.n_tasks + 2) * math.ulp(abs(float(known)))
        if float(bound) <= min(float(known) - noise, float(result.makespan)):
            return result
        # Within the float noise of that bound: report the bound less its noise.
        trusted = min(float(known) - noise, float(result.makespan))
        stats = {**dict(result.stats), "engine_bound": bound}
        return replace(result, lower_bound=_reported(problem, trusted), stats=stats)
    trusted = min(trusted_bound(problem), float(result.makespan))
    if float(bound) <= trusted:
        return result
    stats = {**dict(result.stats), "engine_bound": bound}
    return replace(result, lower_bound=_reported(problem, trusted), stats=stats)


def _scaled_units(result: Result) -> float:
    """The makespan in the model's units (``stats["resolution"]`` per unit of time)."""
    return float(result.makespan) * float(result.stats.get("resolution", 1.0))  # type: ignore[arg-type]


def _reported(problem: Problem, bound: float) -> float:
    """A bound as a result reports it: an int on integer data when it is whole."""
    return int(bound) if problem.is_integral and bound.is_integer() else bound


def apply_policy(
    problem: Problem,
    result: Result,
    certify_option: bool | None,
    *,
    time_limit: float | None = None,
    seed: int | None = 0,
    workers: int | None = 1,
) -> Result:
    """The certification :func:`exactsched.solve` applies after an exact method.

    ``certify_option`` False: only :data:`INSTANT_WITNESS` (``certified`` stays None
    unless it certifies; an engine's claim it does not meet is ``feasible``). True: every
    claimed optimum (:func:`claimed_optimum`) is certified within ``time_limit`` (or
    :data:`EXPLICIT_BUDGET` seconds without one). None (the default policy):
    every claimed optimum, at any size, is certified within
    ``max(DEFAULT_MIN_BUDGET, DEFAULT_BUDGET_FACTOR * seconds)`` of the solve,
    and within what is left of ``time_limit`` (at least 0.5 s); a witness whose
    model would take longer than that to build declines (``certified=False``
    then says that no witness decided in time). An explicit True
    gives the certification its own budget, ``time_limit`` again, so the call may
    take twice the limit. When no witness decides the claim, a witness-proven lower
    bound is sought (``bound_time`` of :func:`certify`) for as long again as the
    certification had, within what is left of ``time_limit`` (none when nothing is);
    with True, within the certification's own budget: two thirds of it for the
    witnesses, one third for the bound. :func:`settle` reports it as the bound.
    The CP-SAT witnesses run on ``workers`` threads (None: the machine's cores,
    at most 8, as :func:`models.cpsat.cpsat`); see :func:`certify`.
    In every case an uncertified claim then goes through :func:`settle`: it
    stays ``optimal`` only when its proof stands alone.

    Examples
    --------
    >>> from exactsched import load_instance, solve
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> solve(p, "cpsat", time_limit=10, workers=1).certified
    True
    """
    if claimed_optimum(result) is None:
        return settle(problem, result)
    if certify_option is False:  # the exact bound alone; a claim it does not meet stays one
        checked = certify(problem, result, witnesses=INSTANT_WITNESS)
        return settle(problem, checked if checked.certified else result)
    if certify_option is None:
        budget = max(DEFAULT_MIN_BUDGET, DEFAULT_BUDGET_FACTOR * result.seconds)
        bound_time = budget
        if time_limit is not None:  # the call's limit holds, give or take half a second
            budget = min(budget, max(0.5, time_limit - result.seconds))
            bound_time = max(0.0, min(bound_time, time_limit - result.seconds - budget))
    else:
        # The certification within the limit, the witnesses' and the bound's time
        # together: the call takes at most twice the limit (it took 2.5 times).
        total = EXPLICIT_BUDGET if time_limit is None else float(time_limit)
        budget, bound_time = 2 * total / 3, total / 3
    # The witnesses get the threads the solve had (None: the cores, at most 8, as cpsat).
    threads = default_workers() if workers is None else int(workers)
    checked = certify(
        problem, result, time_limit=budget, seed=seed, workers=threads, bound_time=bound_time
    )
    return settle(problem, checked)


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


def agree(
    results: Iterable[Result],
    *,
    problem: Problem | None = None,
    rel_tol: float = FLOAT_TOLERANCE,
) -> Agreement:
    """Check the results of several methods on one instance against each other.

    Two contradictions make the instance ``"disputed"`` (a study must then
    report it as such and never pick one answer): two proven optima that differ,
    and a proven lower bound above another method's valid makespan (an optimum
    above a valid schedule is the same thing). A certified optimum does not
    override a contradiction either.

    "Differ" is decided on the data's grid (:mod:`models._grid`): on integer
    and decimal data two answers one grid step apart or more differ, whatever
    their size (3000000001998 and 3000000002331 differ); only on float data
    is there a tolerance, ``rel_tol`` relative. Without ``problem`` the grid is
    the integers when every number compared is an integer, else ``rel_tol``
    applies: pass the problem.

    Parameters
    ----------
    results : iterable of Result
        Results on the same instance (schedules already validated).
    problem : Problem, optional
        The instance, whose grid decides what "differ" means.
    rel_tol : float
        Relative tolerance on float data (default :data:`models._grid.FLOAT_TOLERANCE`, 1e-9).

    Returns
    -------
    Agreement

    Examples
    --------
    >>> from exactsched import Problem, solve
    >>> p = Problem.from_lists([[2, 3], [2, 3], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    >>> agree([solve(p, "bruteforce"), solve(p, "heft")], problem=p)
    Agreement(status='agreed', optimum=5, reasons=())
    >>> bad = replace(solve(p, "heft"), lower_bound=6)
    >>> agree([solve(p, "bruteforce"), bad]).status
    'disputed'
    >>> a = replace(solve(p, "bruteforce"), makespan=3000000001998)
    >>> b = replace(solve(p, "bruteforce"), makespan=3000000002331)
    >>> agree([a, b]).status
    'disputed'
    """
    results = list(results)
    numbers = [
        float(x)
        for r in results
        for x in (r.makespan, r.lower_bound)
        if x is not None and math.isfinite(float(x))
    ]
    if problem is not None:
        grid = data_grid(problem)
    elif numbers and all(x.is_integer() for x in numbers):
        grid = Grid("integer", 0, None, 1, True)
    else:
        grid = Grid("float", None, None, 1, False)

    def differ(a: float, b: float) -> bool:
        if not grid.exact:
            return abs(a - b) > rel_tol * max(abs(a), abs(b))
        return grid.steps_apart(a, b)

    reasons: list[str] = []
    # Uncertified claims (``stats["claim"]``) take part: they must not contradict either.
    optima = [
        r
        for r in results
        if r.makespan is not None
        and (r.status is Status.OPTIMAL or isinstance(r.stats.get("claim"), dict))
    ]
    for k, a in enumerate(optima):
        for b in optima[k + 1 :]:
            if differ(float(a.makespan), float(b.makespan)):  # type: ignore[arg-type]
                reasons.append(
                    f"{a.method} {_verb(a)} {a.makespan!r} but {b.method} {_verb(b)} "
                    f"{b.makespan!r}"
                )
    for a in results:
        said = _said_bound(a)
        if said is None:
            continue
        for b in results:
            if b is a or b.makespan is None:
                continue
            if said > b.makespan and differ(float(said), float(b.makespan)):
                reasons.append(
                    f"{a.method}'s bound {said!r} is above "
                    f"{b.method}'s valid makespan {b.makespan!r}"
                )
    if reasons:
        return Agreement("disputed", None, tuple(reasons))
    proven = [r for r in optima if r.status is Status.OPTIMAL]
    if proven:
        return Agreement("agreed", proven[0].makespan, ())
    return Agreement("open", None, ())


def _verb(result: Result) -> str:
    return "proves" if result.status is Status.OPTIMAL else "claims"


def _said_bound(result: Result) -> float | None:
    """The largest bound ``result`` states: its own, or its uncertified claim's."""
    said = [result.lower_bound]
    claim = result.stats.get("claim")
    if isinstance(claim, dict):
        said.append(claim.get("bound"))
    values = [x for x in said if isinstance(x, int | float) and not isinstance(x, bool)]
    return max(values, key=float) if values else None
