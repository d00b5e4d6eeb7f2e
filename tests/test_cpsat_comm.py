"""cpsat under the single-port and contention models (models._cpsat_contention).

cpsat must agree with the bruteforce referee on tiny instances, prove optima of
15-task instances on a 2 x 2 mesh (and, marked slow, an 8-processor fat tree),
never go below the delay optimum, and hand back schedules the validator
accepts with every message's times. Methods without a message model refuse
with one line.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from exactsched import MethodError, Problem, Status, solve, validate
from exactsched.generators import random_instance

sys.path.insert(0, str(Path(__file__).parent))
from test_bruteforce_comm import fork  # noqa: E402


def cp(problem, limit=60):
    """The model's own answer (the certification is tested elsewhere): a proof is
    the engine's claim, reported ``optimal`` here with the claimed bound."""
    result = solve(problem, "cpsat", time_limit=limit, workers=1, seed=0, certify=False)
    assert validate(problem, result.schedule) == []
    claim = result.stats.get("claim")
    if claim is not None:
        return replace(result, status=Status.OPTIMAL, lower_bound=claim["bound"])
    return result


@pytest.mark.parametrize(
    ("b_cost", "model", "expected"),
    [(1, "contention", 10), (1, "single-port", 14), (5, "contention", 14), (5, "single-port", 14)],
)
def test_hand_checked_forks(b_cost, model, expected):
    # The forks of test_bruteforce_comm.py, whose optima are worked out there.
    result = cp(fork(b_cost).with_communication(model))
    assert result.status is Status.OPTIMAL and result.makespan == expected


CASES = [("mesh", 0), ("fat-tree", 1), ("fully-connected", 3), ("torus", 6)]


@pytest.mark.parametrize(("topology", "seed"), CASES)
def test_cpsat_equals_bruteforce_on_tiny_instances(topology, seed):
    # High CCR and in-degree: contention changes these optima (found by a sweep).
    base = random_instance(
        6, 4, topology=topology, ccr=5.0, seed=100 + seed, max_in_degree=3, n_isolation=seed % 2
    )
    delay = solve(base, "bruteforce", certify=False).makespan
    for model, duplex in (("single-port", True), ("contention", True), ("contention", False)):
        problem = base.with_communication(model, duplex=duplex)
        referee = solve(problem, "bruteforce", time_limit=60, certify=False)
        assert referee.status is Status.OPTIMAL
        result = cp(problem)
        assert result.status is Status.OPTIMAL
        assert result.makespan == referee.makespan >= delay
        assert result.lower_bound == result.makespan


def test_decimal_data_scale_exactly_and_floats_are_refused():
    # latency 0.5, bandwidth 4 and fat-tree links of weight 1/2: stage durations in
    # eighths, with a cost of 2.3: solved exactly at a scale of 10 or more.
    base = random_instance(5, 4, topology="fat-tree", ccr=3.0, seed=9)
    doc = base.to_json()
    doc["platform"]["network"].update(latency=0.5, bandwidth=4, communication="contention")
    doc["tasks"][0]["cost"] = 2.3
    problem = Problem.from_json(doc)
    result = cp(problem)
    assert result.status is Status.OPTIMAL and result.stats["scale"] % 10 == 0
    referee = solve(problem, "bruteforce", time_limit=60, certify=False)
    assert result.makespan == referee.makespan
    third = Problem.from_lists(
        [[1 / 3, 1], [1, 1]], [(0, 1, 1)], network={"communication": "contention"}
    )
    with pytest.raises(MethodError, match=r"^cpsat: under contention the costs and message"):
        cp(third)


def test_proves_15_tasks_on_a_2x2_mesh():
    base = random_instance(15, 4, topology="mesh", ccr=1.0, seed=1)
    delay = cp(base)
    for model in ("single-port", "contention"):
        result = cp(base.with_communication(model))
        assert result.status is Status.OPTIMAL
        assert result.makespan >= delay.makespan
        assert len(result.schedule.messages) > 0


@pytest.mark.slow
def test_proves_15_tasks_on_an_8_processor_fat_tree():
    base = random_instance(15, 8, topology="fat-tree", ccr=1.0, seed=1)
    delay = cp(base, limit=120)
    result = cp(base.with_communication("contention"), limit=120)
    assert result.status is Status.OPTIMAL and result.makespan >= delay.makespan


def test_milp_refuses_with_one_line():
    method = "milp"
    problem = fork(1).with_communication("contention")
    with pytest.raises(MethodError, match=r"^\w+: does not support the 'contention'") as err:
        solve(problem, method, time_limit=5)
    assert "\n" not in str(err.value)


def test_chain_optimum_equals_delay():
    # In a chain no two messages can overlap (each ends before the next task starts),
    # so the optimum under single-port and contention is the delay optimum.
    costs = [[3, 1, 4, 2], [2, 5, 1, 3], [4, 2, 2, 1], [1, 3, 5, 2], [2, 2, 1, 4]]
    base = Problem.from_lists(
        costs, [(k, k + 1, 2 + k) for k in range(4)], network={"topology": "mesh", "dims": [2, 2]}
    )
    delay = cp(base).makespan
    for model in ("single-port", "contention"):
        result = cp(base.with_communication(model))
        assert result.status is Status.OPTIMAL and result.makespan == delay


def test_certification_under_each_model():
    # bruteforce and cpsat-messages witness under the model itself; the others refute on
    # the delay relaxation, which settles the fork of b cost 1 under contention (optimum 10
    # = the delay bound) but not the others (their optimum 14 exceeds the delay one).
    for b_cost, model, witness in (
        (1, "contention", "bounds"),
        (1, "single-port", "bruteforce"),
        (5, "contention", "bruteforce"),
    ):
        problem = fork(b_cost).with_communication(model)
        result = solve(problem, "cpsat", time_limit=20, workers=1, certify=True)
        assert result.certified is True and witness in result.certified_by
    # 9 tasks, contention optimum 107 against 93 under delay: beyond bruteforce and the
    # relaxation, certified by the witness with messages (models/_refute_comm.py).
    big = random_instance(9, 4, topology="mesh", ccr=5.0, seed=2, max_in_degree=3)
    result = solve(
        big.with_communication("contention"), "cpsat", time_limit=20, workers=1, certify=True
    )
    assert result.status is Status.OPTIMAL and result.makespan > cp(big).makespan
    assert result.certified is True and result.certified_by == ("cpsat-messages",)
    reasons = result.stats["certify"]["witnesses"]
    assert reasons["bruteforce"]["reason"] == "more than 7 tasks"
