"""Tests of the time-indexed ladder of ``cpsat`` (``models/_cpsat_time_indexed.py``).

The pulse model must agree with brute force on tiny instances (refute ``optimum - 1``,
find a valid schedule of ``optimum``), the ladder must never raise the bound above the
optimum at any magnitude the format accepts, a proof that used it must be certified
by the other time-indexed encoding (the witness), and it must close the STG row that
600 s of the interval model left open (50/rand0110 on 4 processors, optimum 70).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from exactsched import Problem, Status, solve, validate
from exactsched.workloads import read_stg
from models._cpsat_locations import processor_locations
from models._cpsat_time_indexed import decide, time_indexed_ladder, time_indexed_windows
from models._refute_cumulative import TIME_INDEXED, witness_for
from models.bruteforce import bruteforce
from models.cpsat import cpsat

ROOT = Path(__file__).resolve().parents[1]
STG_OPEN = ROOT / "benchmarks" / "data" / "stg"


def _tiny(seed: int, scale: float = 1.0) -> Problem:
    """A random DAG of 4-7 tasks, costs 0-6 times ``scale``, on 2-3 identical processors.

    Some order pairs and an isolation pair; zero-cost tasks happen.
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 8))
    costs = [c * scale for c in rng.integers(0, 7, n).tolist()]
    edges = [(i, j, 0) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.3]
    order = [(0, n - 2)] if seed % 4 == 1 and (0, n - 2, 0) not in edges else []
    isolation = [(0, n - 1)] if seed % 3 == 0 and (0, n - 1, 0) not in edges else []
    return Problem.from_lists(
        costs, edges, n_processors=int(rng.integers(2, 4)), isolation=isolation, order=order
    )


@pytest.mark.parametrize("seed", range(16))
def test_the_pulse_model_agrees_with_brute_force(seed: int) -> None:
    problem = _tiny(seed)
    optimum = int(bruteforce(problem).makespan)
    cost = problem.cost[:, 0].astype(np.int64)
    head, tail = time_indexed_windows(problem, cost, None, None, 1)
    capacity = problem.n_processors
    outcome, start, _ = decide(
        problem, cost, capacity, head, tail, optimum, seconds=10, workers=1, seed=0
    )
    assert outcome == "found" and int((start + cost).max(initial=0)) <= optimum
    if optimum > 0:
        below = decide(
            problem, cost, capacity, head, tail, optimum - 1, seconds=10, workers=1, seed=0
        )
        assert below[0] == "refuted"


@pytest.mark.parametrize(("scale", "resolution"), [(1, 1), (0.1, 10), (0.25, 4), (1e12, 1e-12)])
@pytest.mark.parametrize("seed", range(12))
def test_the_ladder_stops_at_the_optimum(seed: int, scale: float, resolution: float) -> None:
    """From a bound of 0 up: every target below the optimum refuted, then its schedule."""
    problem = _tiny(seed, scale)
    optimum = bruteforce(problem).makespan
    cost = np.rint(problem.cost[:, 0] * resolution).astype(np.int64)
    head, tail = time_indexed_windows(problem, cost, None, None, resolution)
    ladder = time_indexed_ladder(
        problem,
        cost,
        processor_locations(problem),
        head,
        tail,
        0,
        int(cost.sum()) + 1,
        seconds=20,
        workers=1,
        seed=0,
    )
    assert ladder.lower == ladder.makespan == round(optimum * resolution)
    assert validate(problem, ladder.schedule) == []
    assert ladder.schedule.makespan == pytest.approx(optimum, rel=1e-12)
    assert all(outcome == "refuted" for _, outcome, _ in ladder.tried[:-1])


@pytest.mark.parametrize("scale", [1e-9, 0.1, 1.0, 3.0, 1e6, 1e12, 1e15])
@pytest.mark.parametrize("seed", [0, 1, 2, 5])
def test_cpsat_with_the_ladder_at_every_magnitude(seed: int, scale: float) -> None:
    """Never a bound above the optimum; the ladder runs only where the data are exact."""
    problem = _tiny(seed, scale)
    optimum = bruteforce(problem).makespan
    result = cpsat(problem, time_limit=20, workers=1, seed=0, time_indexed=True)
    assert validate(problem, result.schedule) == []
    assert result.lower_bound <= optimum <= result.makespan
    if result.status is Status.OPTIMAL:
        assert result.makespan == optimum
    ladder = result.stats.get("time_indexed")
    if ladder is not None and ladder.get("bound") is not None:
        assert ladder["bound"] <= optimum


def test_off_by_option_and_in_the_straightforward_model() -> None:
    problem = _tiny(3)
    off = cpsat(problem, time_limit=10, workers=1, time_indexed=False)
    assert "time_indexed" not in off.stats
    with pytest.raises(Exception, match="time_indexed"):
        cpsat(problem, time_limit=10, workers=1, time_indexed="yes")  # type: ignore[arg-type]


def test_only_on_one_pooled_location() -> None:
    unrelated = Problem.from_lists([[2, 3], [3, 2], [1, 1]], [(0, 2, 0)])
    comm = Problem.from_lists([2, 3, 2], [(0, 1, 4), (0, 2, 4)], n_processors=2)
    for problem in (unrelated, comm):
        assert "time_indexed" not in cpsat(problem, time_limit=10, workers=1).stats


def test_a_huge_horizon_declines_quickly() -> None:
    """Costs near 1e12: too many (task, time) points; the main model decides instead."""
    problem = Problem.from_lists(
        [10**12, 10**12 + 1, 7, 10**12 - 3, 5], [(0, 2), (1, 2), (2, 3)], n_processors=2
    )
    result = cpsat(problem, time_limit=20, workers=1, time_indexed=True)
    assert validate(problem, result.schedule) == []
    assert result.makespan == bruteforce(problem).makespan
    ladder = result.stats.get("time_indexed")
    if ladder is not None:
        assert all(outcome != "refuted" for _, outcome, _ in ladder["tried"])


def test_a_ladder_proof_is_certified_by_the_other_encoding() -> None:
    """50/rand0110 on 4 processors: open after 600 s of the interval model, optimum 70."""
    problem = read_stg(STG_OPEN / "50" / "rand0110.stg", 4)
    result = solve(problem, "cpsat", time_limit=40, workers=1, seed=0)
    assert validate(problem, result.schedule) == []
    ladder = result.stats["time_indexed"]
    assert any(outcome == "refuted" for _, outcome, _ in ladder["tried"])
    assert witness_for(problem, result) == TIME_INDEXED  # not the pulse model the proof used
    assert result.status is Status.OPTIMAL and result.makespan == 70 == result.lower_bound
    assert result.certified and result.certified_by == (TIME_INDEXED,)


def test_the_time_limit_holds() -> None:
    """50/rand0117 on 4: the ladder's 137 takes seconds; 1.5 s in all is honoured."""
    problem = read_stg(STG_OPEN / "50" / "rand0117.stg", 4)
    result = cpsat(problem, time_limit=1.5, workers=1, seed=0)
    assert validate(problem, result.schedule) == []
    assert result.seconds < 3.0
    assert result.lower_bound <= 139 <= result.makespan


def test_window_products_near_1e15_do_not_wrap_the_size_check() -> None:
    """Windows of 2048 units times costs of 1.1e15 overflow 64-bit integers; the check
    once wrapped to a negative size, passed, and built rows until memory ran out."""
    c = 1125625096028164
    problem = Problem.from_lists(
        [c, c, c, c, 2 * c + 2047], [(0, 1), (2, 3)], n_processors=3, isolation=[(0, 2), (1, 3)]
    )
    result = cpsat(problem, time_limit=5, workers=1, time_indexed=True)
    assert validate(problem, result.schedule) == []
    assert result.seconds < 7
    ladder = result.stats.get("time_indexed") or {}
    assert all(outcome != "refuted" for _, outcome, _ in ladder.get("tried", ()))


@pytest.mark.parametrize("limit", [1.0, 2.0])
def test_building_the_decision_model_keeps_to_the_time_limit(limit: float) -> None:
    """29 tasks of 50 and one of 52 on 2 processors: the bound 751 is one below the
    optimum and its model (about a million literal occurrences) takes seconds to build."""
    problem = Problem.from_lists([50] * 29 + [52], n_processors=2)
    result = cpsat(problem, time_limit=limit, workers=1, time_indexed=True)
    assert validate(problem, result.schedule) == []
    assert result.seconds < limit + 0.5
    assert result.lower_bound <= 752 <= result.makespan


def test_the_option_takes_booleans_and_auto_only() -> None:
    problem = _tiny(3)
    for value in (1, 0.0, "yes", None):
        with pytest.raises(Exception, match="time_indexed"):
            cpsat(problem, time_limit=5, workers=1, time_indexed=value)  # type: ignore[arg-type]
