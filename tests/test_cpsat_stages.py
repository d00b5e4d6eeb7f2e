"""Tests of the CP-SAT model stage by stage, its time limit and its numbers.

Covers models/_cpsat_locations.py, _cpsat_scaling.py, _cpsat_warm.py,
_cpsat_bounds.py, _cpsat_build.py, _clock.py and the stages of models/cpsat.py:
each strengthening switched off alone keeps the brute-force optimum, the
bounds never exceed it, a time limit always gives a valid schedule, costs of
1e-10 and 1e17 or more neither crash nor give a false optimum, and the solver
log goes to standard error.
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest

from exactsched import InstanceError, MethodError, Problem, Status, solve, validate
from exactsched.generators import TOPOLOGIES, random_instance
from models._clock import Clock
from models._cpsat_bounds import compute_bounds
from models._cpsat_build import ModelVars, add_precedence_and_communication, add_variables
from models._cpsat_locations import interchangeable_classes, processor_locations
from models._cpsat_scaling import ceil_tol, scale_data
from models._cpsat_warm import find_warm_start, hint_candidates
from models._relocate import priority_search, relocation_search
from models._warmstart import serial_schedule
from models.bruteforce import bruteforce
from models.cpsat import STRAIGHTFORWARD, cpsat, final_status, scaled_limit

FAST = {"workers": 1, "seed": 0, "time_limit": 20}


def _procs(topology: str) -> int:
    return 4 if topology in ("hypercube", "fat-tree") else 3


def _small(topology: str, seed: int, **kwargs) -> Problem:
    return random_instance(
        6, _procs(topology), topology=topology, n_isolation=1, n_order=1, seed=seed, **kwargs
    )


def _check(problem: Problem, result, optimum: float) -> None:
    """Valid schedule; bound never above the optimum; optimal only at the optimum."""
    assert result.schedule is not None
    assert validate(problem, result.schedule) == []
    assert result.makespan == pytest.approx(result.schedule.makespan, rel=1e-12)
    assert result.lower_bound <= optimum * (1 + 1e-9) + 1e-12
    assert result.makespan >= optimum * (1 - 1e-9) - 1e-12
    if result.status is Status.OPTIMAL:
        assert result.makespan == pytest.approx(optimum, rel=1e-9, abs=1e-12)


# ---- locations ---------------------------------------------------------------------------


def _swappable_reference(problem: Problem, p: int, q: int) -> bool:
    """The definition, pair by pair (cubic): the test oracle of the vectorised analysis."""
    if not np.array_equal(problem.cost[:, p], problem.cost[:, q]):
        return False
    if not np.any(problem.arc_unit > 0):
        return True
    perm = np.arange(problem.n_processors)
    perm[[p, q]] = [q, p]
    return np.array_equal(problem.hops[np.ix_(perm, perm)], problem.hops)


@pytest.mark.parametrize("topology", TOPOLOGIES)
@pytest.mark.parametrize("heterogeneity", [0.0, 0.5])
def test_interchangeable_classes_match_the_definition(topology, heterogeneity):
    for n_procs in (4, 8):
        problem = random_instance(
            5, n_procs, topology=topology, heterogeneity=heterogeneity, seed=n_procs
        )
        label = interchangeable_classes(problem)
        for p in range(n_procs):
            for q in range(p):
                same = bool(label[p] == label[q])
                assert same == _swappable_reference(problem, p, q), (topology, p, q)


def test_location_analysis_of_1024_processors():
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"p{k}"} for k in range(1024)],
            "network": {"topology": "mesh", "dims": [32, 32]},
        },
        "tasks": [{"id": "a", "cost": 1}, {"id": "b", "cost": 1}],
        "edges": [{"src": "a", "dst": "b", "data": 1}],
    }
    loc = processor_locations(Problem.from_json(doc))
    # On a 32 x 32 mesh no exchange of two processors is an automorphism.
    assert len(loc.members) == 1024 and loc.symmetric == []
    fully = Problem.from_lists([[1] * 1024], [])
    assert [len(m) for m in processor_locations(fully).members] == [1024]


# ---- scaling ----------------------------------------------------------------------------


def test_ceil_tol_never_rounds_a_positive_value_to_zero():
    values, exact = ceil_tol(np.array([1e-9, 1e-12, 0.0, 7.000000000000001]))
    assert values.tolist() == [1.0, 1.0, 0.0, 7.0] and not exact


def test_scale_data_limit_rescales_and_refuses_overflow():
    big = Problem.from_lists([[3e17, 1e17], [2e17, 2e17]], [(0, 1, 1e17)])
    data = scale_data(big, limit=scaled_limit(big))
    assert data.resolution < 1 and data.total <= scaled_limit(big)
    # Costs whose sum overflows never reach scale_data: the Problem refuses them.
    with pytest.raises(InstanceError, match="more than the largest float"):
        Problem.from_lists([[1e308], [1e308]], n_processors=1)
    with pytest.raises(MethodError, match="resolution"):
        scale_data(big, resolution=1, limit=1e6)


def test_final_status_needs_a_proof_on_the_original_numbers():
    p = Problem.from_lists([[1.5]])
    exact = scale_data(p)
    assert final_status(p, 1.5, 1.4999999999, exact)[0] is Status.OPTIMAL
    rounded = scale_data(p, resolution=1)  # 1.5 -> 2: inexact
    assert not rounded.exact
    assert final_status(p, 1.5, 1.4999999999, rounded) == (Status.FEASIBLE, 1.4999999999)
    integral = Problem.from_lists([[3]])
    assert final_status(integral, 3, 2.9999999, scale_data(integral)) == (Status.OPTIMAL, 3)


@pytest.mark.parametrize("unit", [4, 0.25, 2.5e-9, 3e11])
def test_bound_is_rounded_up_to_the_data_common_divisor(unit):
    """Data all multiples of ``unit``: every semi-active makespan is one, so is the bound."""
    rng = np.random.default_rng(7)

    def times(k: int) -> float:  # k units as the decimal a file would hold
        return float(Decimal(k) * Decimal(repr(unit)))

    for _ in range(4):
        costs = [[times(int(c)) for c in rng.integers(1, 6, 2)] for _ in range(5)]
        edges = [(0, 2, times(2)), (1, 3, times(1)), (2, 4, times(3))]
        problem = Problem.from_lists(costs, edges)
        data = scale_data(problem)
        assert data.exact and data.step > 1
        optimum = bruteforce(problem).makespan
        for raw in np.linspace(0, optimum, 7):
            status, bound = final_status(problem, optimum + times(1), float(raw), data)
            assert status is Status.FEASIBLE
            assert raw <= bound <= optimum * (1 + 1e-12)
            units = round(bound * data.resolution)
            assert units % data.step == 0
        # One step below the optimum rounds up to it: a proof without the engine's.
        below = optimum - times(1) / 2
        assert final_status(problem, optimum, below, data) == (Status.OPTIMAL, optimum)


def test_refusal_when_the_delays_would_not_fit_in_memory():
    chain = [(i, i + 1, 1) for i in range(59)]
    mesh = {"topology": "mesh", "dims": [32, 32]}
    problem = Problem.from_lists([1] * 60, chain, n_processors=1024, network=mesh)
    with pytest.raises(MethodError, match=r"^cpsat: 59 arcs on 1024 processors need .* delays"):
        cpsat(problem, **FAST)


# ---- numbers CP-SAT could not hold (issue 8, item C) -------------------------------------


@pytest.mark.parametrize("scale", [1e-10, 1e-7, 1.0, 1e12, 1e17, 1e18, 1e300])
def test_extreme_magnitudes_neither_crash_nor_lie(scale):
    costs = [[2, 3], [1, 1], [3, 1], [2, 2]]
    edges = [(0, 2, 5), (1, 2, 1), (0, 3, 2)]
    problem = Problem.from_lists(
        [[c * scale for c in row] for row in costs], [(a, b, d * scale) for a, b, d in edges]
    )
    optimum = bruteforce(problem).makespan
    _check(problem, cpsat(problem, **FAST), optimum)


def test_tiny_costs_next_to_unit_costs():
    # Issue 8: "cpsat crashes on costs of 1e-10 (retime: the sequencing contradicts
    # the precedence arcs)": 1e-10 * 10 was taken for 0, so a task and its
    # successor tied in the solver's order.
    for costs, edges in (
        ([[1e-10] * 2] * 3, [(2, 1, 0), (1, 0, 1e-10)]),
        ([[1e-10, 1e-10], [1, 1], [1e-10, 2]], [(1, 0, 0), (0, 2, 0)]),
        ([[1e-10, 3], [1, 1e-10], [2, 1e-10], [1e-10, 1]], [(0, 1, 1e-10), (1, 3, 1), (2, 3, 0)]),
    ):
        problem = Problem.from_lists(costs, edges)
        optimum = bruteforce(problem).makespan
        _check(problem, cpsat(problem, **FAST), optimum)


@pytest.mark.parametrize("seed", range(4))
def test_rounded_data_never_give_a_false_optimum(seed):
    # Non-integer data on a forced coarse grid: the scaled proof is not one on
    # the original numbers, so OPTIMAL only where the optimum is really met.
    problem = _small("mesh", seed, integral=False)
    optimum = bruteforce(problem).makespan
    for resolution in (1, 3):
        result = cpsat(problem, resolution=resolution, **FAST)
        assert not result.stats["exact_scaling"]
        _check(problem, result, optimum)


# ---- each strengthening switched off alone ------------------------------------------------

SWITCHES = [
    {},
    {"bounds": False},
    {"placement": False},
    {"load": False},
    {"symmetry": False},
    {"pooling": False},
    {"comm": "dest"},
    {"comm": "pairs"},
    {"path_cuts": True},
    {"path_cuts": False},
    {"hint": False},
    {"horizon": "sum"},
    {"relocate": 0},
    {"relocate": 40},
    {"lb_search": False, "workers": 2},
    STRAIGHTFORWARD,
]


@pytest.mark.parametrize("topology", ["fully-connected", "mesh", "accelerated-node", "fat-tree"])
def test_every_switch_alone_keeps_the_optimum(topology):
    problem = _small(topology, 3)
    optimum = bruteforce(problem).makespan
    for switch in SWITCHES:
        options = {**FAST, **switch}
        result = cpsat(problem, **options)
        _check(problem, result, optimum)
        assert result.status is Status.OPTIMAL, switch


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_root_bound_never_exceeds_the_optimum(topology):
    for seed in range(3):
        problem = _small(topology, seed)
        optimum = bruteforce(problem).makespan
        data = scale_data(problem)
        loc = processor_locations(problem)
        rep = loc.representative
        delay_l = data.delay[:, rep][:, :, rep]
        diag = np.arange(len(rep))
        delay_l[:, diag, diag] = 0
        sb = compute_bounds(
            problem,
            data.cost[:, rep],
            delay_l,
            loc.capacity,
            horizon=10**9,
            foundation=0.0,
            resolution=data.resolution,
            bounds=True,
            placement=True,
        )
        assert (sb.lower - data.slack) / data.resolution <= optimum + 1e-9


def test_model_stages_can_be_built_one_at_a_time():
    from ortools.sat.python import cp_model

    problem = Problem.from_lists([[2, 3], [3, 2], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    loc = processor_locations(problem, pooling=False)
    data = scale_data(problem)
    mv = ModelVars(cp_model.CpModel(), loc, data.cost, data.delay, loc.capacity, horizon=20)
    add_variables(mv, None, None, data.cost.min(axis=1))
    assert len(mv.start) == 3 and all(len(lits) == 2 for lits in mv.x)
    before = len(mv.model.proto.constraints)
    add_precedence_and_communication(mv, problem, comm="levels")
    # two arcs: s_j >= e_i, a level literal, its clauses, its enforced and linear rows
    assert len(mv.model.proto.constraints) > before + 2


# ---- warm start and time limits (issue 8, item B) ----------------------------------------


def test_serial_schedule_is_valid_everywhere():
    for topology in TOPOLOGIES:
        problem = random_instance(
            30,
            4 if topology != "fat-tree" else 8,
            topology=topology,
            n_isolation=4,
            n_order=3,
            affinity=0.3,
            seed=1,
        )
        proc, start = serial_schedule(problem)
        from exactsched import Schedule

        assert validate(problem, Schedule.from_arrays(problem, proc, start)) == []


def test_warm_start_with_no_time_left_is_the_serial_schedule():
    problem = random_instance(40, 4, seed=2)
    found, errors = hint_candidates(problem, ["heft", "peft"], clock=Clock(0.0))
    assert [name for name, _ in found] == ["serial"]
    assert errors["heft"] == "skipped: time limit"
    loc = processor_locations(problem)
    warm = find_warm_start(
        problem,
        loc,
        scale_data(problem),
        names=["heft"],
        relocate=10,
        relocate_seconds=1,
        symmetry=True,
        target=0,
        seed=0,
        clock=Clock(0.0),
    )
    assert warm.name == "serial" and validate(problem, warm.schedule) == []


def test_relocation_respects_a_past_deadline():
    problem = random_instance(20, 4, topology="accelerated-node", seed=0)
    loc = processor_locations(problem)
    start = np.zeros(problem.n_tasks, dtype=np.int64)
    for search in (relocation_search, priority_search):
        makespan, proc, begin = search(problem, loc.members, start, deadline=0.0)
        from exactsched import Schedule

        assert validate(problem, Schedule.from_arrays(problem, proc, begin)) == []


def test_tiny_time_limit_on_2000_tasks_still_gives_a_valid_schedule():
    problem = random_instance(2000, 16, seed=1)
    result = solve(problem, "cpsat", 0.3, workers=1)
    assert result.status is Status.FEASIBLE
    assert validate(problem, result.schedule) == []
    assert result.stats["stopped"] is not None  # the model could not be built in time
    assert 0 < result.lower_bound <= result.makespan


def test_bruteforce_honours_a_zero_time_limit_on_many_processors():
    rng = np.random.default_rng(0)
    problem = Problem.from_lists(
        rng.integers(1, 50, (3, 64)).tolist(),
        [(0, 1, 3), (0, 2, 3)],
        network={"topology": "mesh", "dims": [8, 8]},
    )
    optimum = bruteforce(problem).makespan
    result = bruteforce(problem, time_limit=0)
    assert result.status is Status.FEASIBLE and validate(problem, result.schedule) == []
    assert result.lower_bound <= optimum < result.makespan


# ---- solver log (issue 8, item D) --------------------------------------------------------


def test_solver_log_goes_to_standard_error(capsys):
    problem = Problem.from_lists([[2, 3], [3, 2], [1, 1]], [(0, 2, 4), (1, 2, 4)])
    # No warm start: otherwise the heuristic meets the bound and CP-SAT never runs.
    result = cpsat(problem, log=True, hint=False, horizon="sum", **FAST)
    captured = capsys.readouterr()
    assert result.status is Status.OPTIMAL
    assert captured.out == ""
    assert "CP-SAT" in captured.err or "#Done" in captured.err or "Starting" in captured.err


def test_cli_log_keeps_json_on_standard_output(capsys):
    import json

    from exactsched.cli import main

    argv = ["solve", "examples/topcuoglu2002.json", "-O", "log=true", "--json", "-t", "20"]
    assert main([*argv, "-w", "1"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["makespan"] == 73
    assert "CP-SAT" in captured.err


def test_stage_seconds_name_every_stage():
    problem = random_instance(12, 4, seed=0)
    stats = cpsat(problem, **FAST).stats
    assert stats["stopped"] is None
    for stage in (
        "locations",
        "warm start",
        "bounds",
        "variables",
        "resources",
        "precedence and communication",
        "bounds and cuts",
        "solve",
        "extraction",
    ):
        assert stage in stats["stage_seconds"], stage
    assert math.isclose(
        stats["build_seconds"],
        sum(v for k, v in stats["stage_seconds"].items() if k not in ("solve", "extraction")),
        abs_tol=1e-3,
    )


def test_stops_when_the_warm_start_meets_the_bound():
    # Issue 16 item 7: two tasks on 1024 processors spent 4 s of -t 5 building a model.
    problem = Problem.from_lists(
        [1, 1], [(0, 1, 1)], n_processors=1024, network={"topology": "mesh", "dims": [32, 32]}
    )
    result = cpsat(problem, time_limit=5, workers=1, seed=0)
    assert result.status is Status.OPTIMAL and result.makespan == 2
    # No wall-clock assertion (the suite runs on loaded machines): the stop reason
    # says that no search ran.
    assert result.stats["stopped"] == "bound met"
    assert validate(problem, result.schedule) == []
