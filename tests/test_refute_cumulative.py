"""Tests of the witnesses for identical processors without communication.

``models/_refute_cumulative.py``: the cumulative and the time-indexed decision
models must agree with brute force on tiny instances (refute ``optimum - 1``,
find a valid schedule of at most ``optimum``), and the certification must pick
the one whose formulation differs from the proof's.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import exactsched
from exactsched import Problem, Status, validate
from exactsched.workloads import read_stg
from models._refute import floored_data
from models._refute_cumulative import (
    CUMULATIVE,
    TIME_INDEXED,
    identical_without_communication,
    refute_cumulative,
    refute_time_indexed,
    witness_for,
)
from models.bruteforce import bruteforce
from models.certify import apply_policy, certify

DATA = Path(__file__).resolve().parent / "data"
WITNESSES = [refute_cumulative, refute_time_indexed]


def _tiny(seed: int) -> Problem:
    """A random DAG of 4-7 tasks with integer costs 0-6 on 2-3 identical processors."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 8))
    costs = rng.integers(0, 7, n).tolist()
    edges = [(i, j, 0) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.3]
    isolation = [(0, n - 1)] if seed % 3 == 0 and (0, n - 1, 0) not in edges else []
    return Problem.from_lists(
        costs, edges, n_processors=int(rng.integers(2, 4)), isolation=isolation
    )


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("witness", WITNESSES)
def test_agrees_with_brute_force(witness, seed: int) -> None:
    problem = _tiny(seed)
    assert identical_without_communication(problem)
    optimum = int(bruteforce(problem).makespan)
    data = floored_data(problem, 1)
    found = witness(problem, data, optimum, time_limit=10)
    assert found.outcome == "found"
    assert validate(problem, found.schedule) == [] and found.schedule.makespan <= optimum
    if optimum > 0:
        assert witness(problem, data, optimum - 1, time_limit=10).outcome == "refuted"


def test_decline_other_instances() -> None:
    comm = Problem.from_lists([2, 3], [(0, 1, 4)], n_processors=2)
    unrelated = Problem.from_lists([[2, 3], [3, 2]])
    for problem in (comm, unrelated):
        assert not identical_without_communication(problem)
        for witness in WITNESSES:
            assert witness(problem, floored_data(problem, 1), 10).outcome == "unknown"


def test_time_indexed_declines_huge_horizons() -> None:
    problem = Problem.from_lists([10**7, 10**7], n_processors=2)
    verdict = refute_time_indexed(problem, floored_data(problem, 1), 2 * 10**7)
    assert verdict.outcome == "unknown" and "points" in verdict.reason


def test_time_indexed_stops_building_when_the_budget_is_spent() -> None:
    # 50/rand0001 on 2 processors at a target inside its windows: tens of thousands of
    # literals; with nothing left of the budget the build stops before the solver.
    problem = read_stg(DATA / "stg" / "50" / "rand0001.stg", 2)
    data = floored_data(problem, 1)
    target = int(data.cost[:, 0].sum()) // 2 + 10
    verdict = refute_time_indexed(problem, data, target, time_limit=0.0)
    assert verdict.outcome == "unknown" and verdict.reason == "time limit while building"


@pytest.mark.parametrize("witness", WITNESSES)
def test_long_tasks_with_narrow_windows(witness) -> None:
    # Two chains (1 then K) whose heads are isolated: optimum K + 2. The time-indexed
    # model has literals only in the windows; it once built a row per time unit, so
    # K = 1e9 took hours whatever the time limit (an outside audit, K = 1e7: 57 s).
    k = 10**9
    problem = Problem.from_lists(
        [1, k, 1, k], [(0, 1), (2, 3)], n_processors=2, isolation=[(0, 2)]
    )
    data = floored_data(problem, 1)
    assert witness(problem, data, k + 1, time_limit=10).outcome == "refuted"
    found = witness(problem, data, k + 2, time_limit=10)
    assert found.outcome == "found" and validate(problem, found.schedule) == []


@pytest.mark.parametrize(
    ("isolation", "why"),
    [([], "more than 2 tasks must run at once"), ([(0, 1)], "must run at the same time")],
)
def test_time_indexed_refutes_overlapping_compulsory_parts(isolation, why: str) -> None:
    # Tasks of 10 within 15 surely run during [5, 10): three at once on two processors,
    # or an isolated pair together, is refuted before any search.
    problem = Problem.from_lists(
        [10, 10, 10][: 3 - len(isolation)], n_processors=2, isolation=isolation
    )
    verdict = refute_time_indexed(problem, floored_data(problem, 1), 15)
    assert verdict.outcome == "refuted" and why in verdict.reason


def test_the_witness_differs_from_the_proof() -> None:
    problem = Problem.from_lists([3, 2, 2], [(0, 1)], n_processors=2)
    pooled = exactsched.solve(problem, "cpsat", time_limit=10, workers=1, certify=False)
    assert pooled.stats["pooled"] and witness_for(problem, pooled) == TIME_INDEXED
    assert certify(problem, pooled).certified
    milp = exactsched.solve(problem, "milp", time_limit=10, workers=1, certify=False)
    assert witness_for(problem, milp) == CUMULATIVE
    claim = {"makespan": milp.makespan, "bound": milp.makespan}  # a MILP proof is a claim
    claim_only = replace(milp, status=Status.FEASIBLE, stats={"claim": claim})
    report = certify(problem, claim_only, witnesses=None).stats["certify"]
    assert TIME_INDEXED not in report["witnesses"]


def test_stg_optimum_above_the_trivial_bound_is_certified_past_30_tasks() -> None:
    # 50/rand0001 on 4 processors: published optimum 94, above max(critical path, work / P).
    problem = read_stg(DATA / "stg" / "50" / "rand0001.stg", 4)
    result = exactsched.solve(problem, "cpsat", time_limit=20, workers=1, seed=0)
    assert result.status is Status.OPTIMAL and result.makespan == 94
    # The energetic bound reaches 94 (the "bounds" witness); the time-indexed model too.
    assert result.certified is True
    alone = certify(problem, replace(result, certified=None), witnesses=[TIME_INDEXED])
    assert alone.certified_by == (TIME_INDEXED,)
    # The default policy certifies this case at any size.
    assert problem.n_tasks > 30
    again = apply_policy(problem, replace(result, certified=None), None)
    assert again.certified is True


def test_a_false_claim_is_caught() -> None:
    problem = read_stg(DATA / "stg" / "50" / "rand0001.stg", 4)
    heft = exactsched.solve(problem, "heft")  # 96, the optimum is 94
    for method, stats in (("cpsat", {"pooled": [4]}), ("milp", {})):
        claim = replace(
            heft, method=method, status=Status.OPTIMAL, lower_bound=heft.makespan, stats=stats
        )
        caught = certify(problem, claim, time_limit=20)
        assert caught.status is Status.FEASIBLE and caught.makespan < heft.makespan
        assert caught.stats["false_proof"]["caught_by"] == witness_for(problem, claim)
        assert validate(problem, caught.schedule) == []
