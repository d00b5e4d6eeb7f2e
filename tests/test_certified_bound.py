"""Tests of models/_certified_bound.py: the witness-proven bound of an uncertified claim.

The ladder must never prove a bound above the optimum, at any magnitude or kind of
data (brute force is the referee), and an uncertified claim must report it.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

import exactsched
import models.certify as certify_module
from exactsched import Problem, Status, validate
from exactsched.generators import random_instance
from models._certified_bound import bound_ladder
from models._grid import data_grid
from models._refute import Verdict, grid_data, refute_cpsat
from models.bruteforce import bruteforce
from models.certify import apply_policy, certify, settle, trusted_bound
from tests.test_magnitude_sweep import KINDS, MAGNITUDES, judge, magnitude_instance


def _threshold_witness(refutable_below: int, calls: list[int]) -> Any:
    """A fake witness: refutes every target below ``refutable_below``, times out above."""

    def witness(problem: Problem, data: Any, target: int, **_: Any) -> Verdict:
        calls.append(target)
        if target < refutable_below:
            return Verdict("refuted", reason="fake", seconds=0.0)
        return Verdict("unknown", reason="CP-SAT: unknown", seconds=0.01)

    return witness


def test_bisection_finds_the_largest_refutable_target() -> None:
    p = Problem.from_lists([1000, 1000], n_processors=2)  # witness bound 1000
    calls: list[int] = []
    step = bound_ladder(p, _threshold_witness(1700, calls), grid_data(p, 1), 2000, seconds=5)
    assert step.target == 1699 and step.bound == Fraction(1700)
    assert all(999 < t < 2000 for t in calls) and len(calls) <= 12


def test_a_witness_that_declines_stops_the_ladder() -> None:
    p = Problem.from_lists([1000, 1000], n_processors=2)
    calls: list[int] = []

    def declines(problem: Problem, data: Any, target: int, **_: Any) -> Verdict:
        calls.append(target)
        return Verdict("unknown", reason="building the model would take 9 s", seconds=0.0)

    step = bound_ladder(p, declines, grid_data(p, 1), 2000, seconds=5)
    assert len(calls) == 1 and step.target == 999  # the witness's own bound only


def test_a_target_at_the_witness_bound_is_not_asked() -> None:
    p = Problem.from_lists([4, 4, 4, 4], n_processors=2)
    calls: list[int] = []
    step = bound_ladder(p, _threshold_witness(0, calls), grid_data(p, 1), 8, seconds=5)
    assert calls == [] and step.bound == 8  # the load bound alone


def test_a_schedule_met_on_the_way_stops_the_ladder() -> None:
    p = Problem.from_lists([3, 3, 3], n_processors=3)
    step = bound_ladder(p, refute_cpsat, grid_data(p, 1), 10, seconds=5)
    assert step.schedule is not None and validate(p, step.schedule) == []
    assert step.bound == 3 and step.schedule.makespan == 3


@pytest.mark.parametrize("seed", range(24))
def test_the_ladder_bound_never_exceeds_the_optimum(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every magnitude and kind: a claim above the optimum (HEFT's makespan, or the
    # optimum plus a step) that the witness cannot decide gets a bound from the
    # ladder; that bound, and what settle reports, stays at or below the optimum.
    magnitude = MAGNITUDES[seed % len(MAGNITUDES)]
    kind = KINDS[seed // len(MAGNITUDES) % len(KINDS)]
    problem = magnitude_instance(seed, magnitude, kind)
    optimum = float(bruteforce(problem).makespan)  # type: ignore[arg-type]
    heft = exactsched.solve(problem, "heft")
    claim = replace(heft, method="cpsat", status=Status.OPTIMAL, lower_bound=heft.makespan)
    grid = data_grid(problem)
    monkeypatch.setitem(
        certify_module._CPSAT_WITNESSES, "cpsat-disjunctive", _sabotaged_at_claim()
    )
    checked = certify(problem, claim, witnesses=["cpsat-disjunctive"], time_limit=5, bound_time=5)
    settled = settle(problem, checked)
    assert judge(problem, optimum, settled) == []
    proven = checked.stats["certify"].get("bound")
    if proven is not None:
        assert proven["value"] <= optimum or not grid.steps_apart(optimum, proven["value"])


def _sabotaged_at_claim() -> Any:
    """Time out on the first target asked (the claim's), decide the others."""
    asked: list[int] = []

    def witness(p: Problem, data: Any, target: int, **kw: Any) -> Verdict:
        asked.append(target)
        if len(asked) == 1:
            return Verdict("unknown", reason="CP-SAT: unknown (test)", seconds=0.0)
        return refute_cpsat(p, data, target, **kw)

    return witness


def test_an_uncertified_claim_reports_the_ladder_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # End to end through the default policy: the witness times out on the claim,
    # the ladder proves a bound above the foundation bound, and solve reports it.
    problem = random_instance(14, 3, topology="mesh", ccr=2.0, seed=7)
    solved = exactsched.solve(problem, "cpsat", time_limit=20, workers=1, certify=False)
    assert solved.stats["claim"]["makespan"] == solved.makespan  # the engine's claim
    monkeypatch.setitem(
        certify_module._CPSAT_WITNESSES, "cpsat-disjunctive", _sabotaged_at_claim()
    )
    result = apply_policy(problem, solved, None, time_limit=30, workers=1)
    assert result.status is Status.FEASIBLE and result.certified is False
    proven = result.stats["certify"]["bound"]
    assert proven["witness"] == "cpsat-disjunctive"
    assert result.lower_bound == max(trusted_bound(problem), proven["value"])
    assert trusted_bound(problem) <= result.lower_bound <= solved.makespan
    assert validate(problem, result.schedule) == []


def test_a_witness_that_never_certifies_alone_gives_no_bound() -> None:
    problem = random_instance(8, 2, seed=3)
    heft = exactsched.solve(problem, "heft")
    claim = replace(heft, method="cpsat", status=Status.OPTIMAL, lower_bound=heft.makespan)
    forged = {"certify": {"bound": {"value": float(heft.makespan), "witness": "milp"}}}
    tried = replace(claim, certified=False, certified_by=(), stats=forged)
    assert settle(problem, tried).lower_bound == min(trusted_bound(problem), heft.makespan)
