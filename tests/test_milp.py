"""Tests of models/milp.py: proven optima on known instances, time limits, errors."""

from __future__ import annotations

import math
import sys

import pytest
from shared_cases import fork

import exactsched
from exactsched import MethodError, Problem, Status, validate
from exactsched.generators import random_instance
from models.milp import build_model
from models.milp import milp as raw_milp

OPTS = {"workers": 1, "seed": 0, "time_limit": 30}


def milp(problem: Problem, **options: object) -> exactsched.Result:
    """The method as ``exactsched.solve`` runs it, certification on.

    A MILP proof counts as ``optimal`` only once a witness of another engine
    certifies it (``models.certify.PROVES_ALONE``); :func:`raw_milp` returns the claim.
    """
    return exactsched.solve(problem, "milp", certify=True, **options)  # type: ignore[arg-type]


ACCEL = ["cpu", "cpu", "cpu", "gpu"]
ASYM = [[0, 1, 1, 2.5], [1, 0, 1, 1], [1, 1, 0, 1], [0.5, 1, 1, 0]]


@pytest.mark.parametrize(
    ("problem", "expected"),
    [
        pytest.param(fork({"topology": "fully-connected"}), 6, id="fully-connected"),
        pytest.param(fork({"topology": "mesh", "dims": [4]}), 8, id="mesh-line"),
        pytest.param(fork({"topology": "torus", "dims": [4]}), 6, id="torus-ring"),
        pytest.param(fork({"topology": "hypercube"}), 7, id="hypercube"),
        pytest.param(fork({"topology": "fat-tree"}), 7, id="fat-tree"),
        pytest.param(fork({"topology": "accelerated-node"}, ACCEL), 6, id="accel-gpu"),
        pytest.param(fork({"topology": "accelerated-node"}, ACCEL, "p2"), 5, id="accel-cpu"),
        pytest.param(fork({"topology": "matrix", "hops": ASYM}), 7.5, id="matrix-asymmetric"),
    ],
)
def test_fork_per_topology(problem: Problem, expected: float) -> None:
    result = milp(problem, **OPTS)
    assert result.status is Status.OPTIMAL
    assert result.makespan == expected
    assert result.lower_bound == expected
    assert validate(problem, result.schedule) == []


def test_topcuoglu_optimum() -> None:
    # HEFT gives 80 (Topcuoglu et al. 2002); the optimum, also found by cpsat and
    # bruteforce, is 73.
    p = exactsched.load_instance("examples/topcuoglu2002.json")
    result = exactsched.solve(p, "milp", **OPTS)
    assert result.status is Status.OPTIMAL
    assert (result.makespan, result.lower_bound, result.gap) == (73, 73, 0.0)
    assert validate(p, result.schedule) == []
    assert result.stats["horizon"] <= 80


def test_topcuoglu_with_scip() -> None:
    p = exactsched.load_instance("examples/topcuoglu2002.json")
    result = milp(p, solver="scip", **OPTS)
    assert (result.status, result.makespan) == (Status.OPTIMAL, 73)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, 4),  # t2 (cost 1) follows t0 or t1
        ({"isolation": [(0, 1)]}, 6),
        ({"order": [(0, 1)]}, 6),
        ({"affinity": {0: [0], 1: [0]}}, 6),
        ({"isolation": [(0, 1)], "affinity": {0: [0], 1: [1]}}, 6),
    ],
)
def test_pairs_and_affinity(kwargs: dict, expected: float) -> None:
    p = Problem.from_lists([3, 3, 1], n_processors=2, **kwargs)
    result = milp(p, **OPTS)
    assert (result.status, result.makespan) == (Status.OPTIMAL, expected)
    assert validate(p, result.schedule) == []


def test_optimum_needs_idle_time() -> None:
    p = Problem.from_lists(
        [[10, 99], [1, 1], [1, 99], [99, 10]],
        [(1, 2, 1), (2, 3, 0)],
        affinity={0: [0], 1: [1], 2: [0], 3: [1]},
    )
    assert milp(p, **OPTS).makespan == 13


def test_zero_length_task_may_sit_inside_another() -> None:
    p = Problem.from_lists(
        [[99, 1], [0, 99], [5, 99], [99, 3]],
        [(0, 1, 1), (1, 3, 0)],
        affinity={0: [1], 1: [0], 2: [0], 3: [1]},
        isolation=[(1, 2)],  # zero-length isolation partners never overlap either
    )
    result = milp(p, **OPTS)
    assert (result.status, result.makespan) == (Status.OPTIMAL, 5)
    assert validate(p, result.schedule) == []


def test_non_integer_data_validate_exactly() -> None:
    p = random_instance(8, 3, topology="matrix", integral=False, n_isolation=2, seed=4)
    result = milp(p, **OPTS)
    assert result.status is Status.OPTIMAL
    # The default reading is exact on decimal data (finishes are rounded to the data's
    # grid, exactsched._time_grid, so plain float sums, tol=0.0, would be an ulp off).
    assert validate(p, result.schedule) == []
    assert math.isclose(result.lower_bound, result.makespan, rel_tol=1e-6)
    assert result.lower_bound >= exactsched.lower_bound(p)


def test_bound_rounds_up_to_the_grid_of_the_data() -> None:
    # The generator's matrix networks have delays in tenths: every semi-active
    # schedule ends on the 0.1 grid, so a fractional dual bound rounds up to it.
    p = random_instance(30, 4, topology="matrix", seed=30000)
    result = milp(p, workers=1, seed=0, time_limit=1)
    assert validate(p, result.schedule) == []
    assert math.isclose(result.lower_bound * 10, round(result.lower_bound * 10), abs_tol=1e-6)
    assert exactsched.lower_bound(p) <= result.lower_bound <= result.makespan


def test_heuristic_already_optimal_skips_solver() -> None:
    p = Problem.from_lists([2, 2, 2], n_processors=3)
    result = milp(p, **OPTS)
    assert (result.status, result.makespan) == (Status.OPTIMAL, 2)
    assert "rows" not in result.stats


def test_time_limit_gives_feasible_with_bound() -> None:
    p = random_instance(40, 6, topology="mesh", n_isolation=3, seed=11)
    result = milp(p, workers=1, seed=0, time_limit=0.5)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert validate(p, result.schedule) == []
    assert exactsched.lower_bound(p) <= result.lower_bound <= result.makespan
    assert result.makespan <= result.stats["horizon"]
    assert result.seconds < 15


def test_relative_gap_stops_early_but_stays_sound() -> None:
    p = random_instance(14, 4, topology="torus", seed=3)
    result = milp(p, relative_gap=0.5, **OPTS)
    assert result.gap is not None and result.gap <= 0.5 + 1e-9
    assert validate(p, result.schedule) == []


def test_model_size() -> None:
    p = Problem.from_lists([1, 1], [(0, 1, 2)], n_processors=2)
    model, cols = build_model(p, 10.0)
    # x: 4, s: 2, C: 1; no y (the pair is ordered by the arc)
    assert len(model.lb) == 7 and not cols["y"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"time_limit": -1}, r"^time_limit: must be >= 0, got -1$"),
        ({"workers": 0}, r"^workers: must be >= 1, got 0$"),
        ({"relative_gap": -0.1}, r"^relative_gap: expected a number in \[0, 1\), got -0.1$"),
        ({"solver": "gurobi"}, r"^solver: unknown 'gurobi'; known: highs, scip$"),
    ],
)
def test_bad_options(options: dict, message: str) -> None:
    p = Problem.from_lists([1], n_processors=1)
    with pytest.raises(MethodError, match=message):
        raw_milp(p, **options)


def test_unknown_option_through_solve() -> None:
    p = Problem.from_lists([1], n_processors=1)
    with pytest.raises(MethodError, match="option 'gap': not an option of milp"):
        exactsched.solve(p, "milp", gap=0.1)


@pytest.mark.parametrize(
    ("problem", "expected"),
    [
        pytest.param(Problem.from_lists([3], n_processors=1), 3, id="one-task"),
        pytest.param(
            Problem.from_lists([2, 3, 4], [(0, 1, 1), (1, 2, 1)], n_processors=1),
            9,
            id="one-processor",
        ),
        pytest.param(
            Problem.from_lists([0, 0, 0], [(0, 1, 5)], n_processors=2), 0, id="zero-costs"
        ),
        pytest.param(
            Problem.from_lists([[0, 2], [3, 0], [1, 1]], [(0, 2, 4)], isolation=[(0, 1)]),
            1,
            id="zero-cost-isolation",
        ),
    ],
)
def test_edge_cases(problem: Problem, expected: float) -> None:
    result = milp(problem, **OPTS)
    assert (result.status, result.makespan, result.lower_bound) == (
        Status.OPTIMAL,
        expected,
        expected,
    )
    assert validate(problem, result.schedule) == []


def test_does_not_load_highspy() -> None:
    # highspy's libhighs.so.1 has the soname of the HiGHS inside OR-Tools: once one
    # is loaded the other fails to import, which would break cpsat in the same process.
    milp(Problem.from_lists([1, 2], [(0, 1, 1)], n_processors=2), **OPTS)
    assert "highspy" not in sys.modules


def test_issue_8_grid_example_is_proven_at_its_true_optimum() -> None:
    # milp used to call 1100002.4 optimal (anything within 1e-6 x makespan was
    # "proven"); brute force gives 1100001.3. The model now runs on the data
    # times 10, which are integers, and proves optimality at zero gap.
    p = exactsched.load_instance("tests/exact_counterexamples/milp-grid-1100001.3.json")
    for solver in ("highs", "scip"):
        r = milp(p, solver=solver, **OPTS)
        assert (r.status, r.makespan, r.lower_bound) == (Status.OPTIMAL, 1100001.3, 1100001.3)
        assert r.stats["resolution"] == 10 and r.stats["exact_data"]


def test_magnitudes_beyond_the_tolerances_are_rescaled_and_honest() -> None:
    # Integer data near 1e9: a big-M of the horizon times the integrality tolerance
    # would exceed a unit, so the model runs on coarser data rounded up.
    p = random_instance(6, 4, topology="mesh", max_cost=10**9, seed=1, n_isolation=1)
    r = milp(p, **OPTS)
    optimum = exactsched.solve(p, "bruteforce").makespan
    assert r.stats["resolution"] < 1
    assert r.lower_bound <= optimum <= r.makespan
    assert validate(p, r.schedule) == []


def test_solver_failure_gives_the_warm_start(monkeypatch: pytest.MonkeyPatch) -> None:
    from ortools.math_opt.python import mathopt

    def broken(*args: object, **kwargs: object) -> None:
        raise AttributeError("'StatusNotOk' object has no attribute 'canonical_code'")

    monkeypatch.setattr(mathopt, "solve", broken)
    p = exactsched.load_instance("examples/topcuoglu2002.json")
    r = milp(p, **OPTS)
    assert r.status is Status.FEASIBLE and r.stats["solver_status"] == "error"
    assert "canonical_code" in r.stats["solver_error"]
    assert validate(p, r.schedule) == [] and r.lower_bound <= 73


def test_time_limit_bounds_model_building() -> None:
    p = random_instance(120, 8, topology="mesh", seed=3)
    r = milp(p, time_limit=0.0, workers=1)
    assert r.status is Status.FEASIBLE
    assert r.stats["solver_status"] == "time_limit_while_building"
    assert validate(p, r.schedule) == []


def test_identical_calls_give_identical_answers() -> None:
    p = random_instance(8, 3, topology="matrix", integral=False, seed=5)
    first, second = raw_milp(p, **OPTS), raw_milp(p, **OPTS)
    assert (first.status, first.makespan, first.lower_bound) == (
        second.status,
        second.makespan,
        second.lower_bound,
    )


def test_a_milp_proof_alone_is_a_claim() -> None:
    # HiGHS proves false optima (tests/data/magnitude/highs-small-57.json claims 58):
    # the method's own proof is a claim, FEASIBLE with the foundation bound.
    p = exactsched.load_instance("examples/topcuoglu2002.json")
    raw = raw_milp(p, **OPTS)
    assert raw.status is Status.FEASIBLE and raw.stats["claim"]["makespan"] == 73
    alone = exactsched.solve(p, "milp", certify=False, **OPTS)
    assert alone.status is Status.FEASIBLE and alone.lower_bound <= 73
    certified = exactsched.solve(p, "milp", **OPTS)
    assert certified.status is Status.OPTIMAL and certified.certified
    assert "milp" not in certified.certified_by


def test_seed_makes_the_horizon_reproducible() -> None:
    from models._horizon import horizon_schedule

    p = exactsched.load_instance("tests/data/magnitude/dispute-1e12.json")
    first = {horizon_schedule(p, seed=0)[0].makespan for _ in range(5)}
    assert len(first) == 1
    runs = {raw_milp(p, **OPTS).makespan for _ in range(4)}
    assert len(runs) == 1


def test_refuses_more_tasks_than_it_can_build_in_time():
    # Issue 16 item 5: 2000 tasks took 4-7 s of -t 1/-t 2 before the guard.
    from models.milp import MAX_TASKS

    problem = random_instance(MAX_TASKS + 1, 2, seed=0)
    with pytest.raises(MethodError, match="more than 1000"):
        raw_milp(problem, time_limit=1)


def test_a_loaded_machine_does_not_change_the_warm_start(monkeypatch) -> None:
    # An audit saw the MILP's warm start switch between "heft" and "list" on a
    # 10-task instance under load: the heuristics were cut by the wall clock.
    import models._horizon as horizon

    p = exactsched.load_instance("examples/cholesky-n3-single-gpu.json")
    quiet = horizon.horizon_schedule(p, budget=1.0)
    clock = iter(range(1000))
    monkeypatch.setattr(horizon.time, "perf_counter", lambda: 0.3 * next(clock))
    loaded = horizon.horizon_schedule(p, budget=1.0)
    assert loaded[1] == quiet[1] == horizon.horizon_schedule(p)[1]
    assert loaded[0].makespan == quiet[0].makespan


def test_the_warm_start_budget_skips_the_costly_heuristics() -> None:
    from models._horizon import heuristic_seconds, horizon_schedule

    p = exactsched.load_instance("examples/lu-n3-summit.json")  # 50 processors
    assert heuristic_seconds(p, "hbmct") > heuristic_seconds(p, "heft")
    schedule, name = horizon_schedule(p, budget=heuristic_seconds(p, "heft") / 10)
    assert name == "heft" and not validate(p, schedule)  # only the first one ran
