"""Tests of models/certify.py and models/_refute.py: refutations, caught false proofs, policy.

The engine cases come from tests/data/engine-false-optimum/ (see SOURCE.md there).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import exactsched
from exactsched import MethodError, Problem, Result, Status, load_instance, solve, validate
from exactsched.cli import main
from exactsched.generators import random_instance
from exactsched.registry import _REGISTRY, register
from models._refute import floored_data, refute_bruteforce, refute_cpsat, refute_milp
from models.certify import (
    WITNESSES,
    agree,
    apply_policy,
    certify,
    claimed_optimum,
    engine_view,
)

ENGINE = Path(__file__).parent / "data" / "engine-false-optimum"
FALSE = "test-false-optimum"


def _claim_heft_optimal(problem: Problem, **_: object) -> Result:
    """A lying solver: HEFT's schedule, claimed optimal with its makespan as bound."""
    heft = exactsched.solve(problem, "heft")
    return replace(heft, method=FALSE, status=Status.OPTIMAL, lower_bound=heft.makespan)


@pytest.fixture
def false_solver() -> Iterator[str]:
    """Register the lying solver under a test-only name, and remove it afterwards."""

    def lying(
        problem: Problem,
        *,
        time_limit: float | None = None,
        workers: int | None = None,
        seed: int | None = 0,
    ) -> Result:
        return _claim_heft_optimal(problem)

    register(FALSE, kind="exact", description="test stub", source="none")(lying)
    try:
        yield FALSE
    finally:
        _REGISTRY.pop(FALSE, None)


# ---- witnesses --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_witnesses_decide_exactly_at_the_brute_force_optimum(seed: int) -> None:
    topologies = ("fully-connected", "mesh", "matrix", "accelerated-node")
    p = random_instance(
        5, 3, topology=topologies[seed % 4], n_isolation=1, n_order=1, affinity=0.3, seed=seed
    )
    optimum = exactsched.solve(p, "bruteforce").makespan
    data = floored_data(p, 1)
    assert data.exact
    for refute in (refute_cpsat, refute_milp):
        assert refute(p, data, optimum - 1).outcome == "refuted"
        found = refute(p, data, optimum)
        assert found.outcome == "found"
        assert validate(p, found.schedule) == [] and found.schedule.makespan <= optimum
    assert refute_bruteforce(p, optimum).outcome == "refuted"
    assert refute_bruteforce(p, optimum + 0.5).outcome == "found"


def test_floored_data_is_a_relaxation() -> None:
    p = Problem.from_lists([[1.25, 2.75], [0.5, 3.0]], [(0, 1, 1.7)])
    data = floored_data(p, 1)
    assert not data.exact
    assert (data.cost <= p.cost).all()
    assert data.cost.tolist() == [[1.0, 2.0], [0.0, 3.0]]


def test_witness_reports_unknown_on_time_out() -> None:
    p = random_instance(30, 8, topology="mesh", seed=4)
    verdict = refute_milp(p, floored_data(p, 1), 1, time_limit=0.0)
    assert verdict.outcome in ("unknown", "refuted")


# ---- certify ------------------------------------------------------------------------------


def test_true_optimum_is_certified() -> None:
    p = load_instance(ENGINE / "instance.json")
    claim = exactsched.solve(p, "cpsat", time_limit=20, workers=1, certify=False)
    assert (claim.status, claimed_optimum(claim)) == (Status.FEASIBLE, 35)  # a claim only
    result = certify(p, claim, time_limit=30)
    assert result.status is Status.OPTIMAL
    assert result.certified is True and result.certified_by == ("cpsat-disjunctive",)
    assert result.stats["certify"]["delta"] == 0


@pytest.mark.parametrize("witness", ["cpsat-disjunctive", "milp"])
def test_each_witness_catches_a_false_proof(witness: str) -> None:
    p = load_instance(ENGINE / "instance.json")
    claim = _claim_heft_optimal(p)
    assert claim.makespan > 35
    result = certify(p, claim, time_limit=30, witnesses=[witness])
    assert result.status is Status.FEASIBLE and result.certified is False
    assert result.makespan < claim.makespan
    assert validate(p, result.schedule) == []
    caught = result.stats["false_proof"]
    assert (caught["claimed"], caught["caught_by"]) == (claim.makespan, witness)
    assert result.lower_bound <= 35


def test_engine_false_optimum_of_a_plain_cpsat_model_is_caught() -> None:
    # The plain model of tests/data/engine-false-optimum/README.md: OR-Tools 9.15
    # claimed OPTIMAL 38 on it where 35 is valid. Whatever it claims now,
    # certification must end on 35, certified, or catch the claim.
    p = load_instance(ENGINE / "instance.json")
    schedule = exactsched.load_schedule(ENGINE / "schedule-35.json")
    assert validate(p, schedule) == [] and schedule.makespan == 35
    claimed = _plain_cpsat(p)
    result = certify(p, claimed, time_limit=30)
    if claimed.makespan > 35:
        assert result.status is Status.FEASIBLE and "false_proof" in result.stats
        assert result.makespan < claimed.makespan
    else:
        assert result.certified is True
    assert validate(p, result.schedule) == []


def test_cholesky_claim_of_the_engine_readme_is_caught() -> None:
    # CP-SAT 9.15 claimed OPTIMAL 1272 here where 1267 is valid (engine README): the
    # claim is rebuilt from the valid schedule with its last tasks 5 units later.
    p = load_instance(ENGINE / "cholesky-n5.json")
    valid = exactsched.load_schedule(ENGINE / "cholesky-n5-schedule-1267.json")
    proc, start, finish = valid.arrays(p)
    start = start.copy()
    start[finish == finish.max()] += 5
    claimed = exactsched.Schedule.from_arrays(p, proc, start)
    assert validate(p, claimed) == [] and claimed.makespan == 1272
    claim = Result("claimed", Status.OPTIMAL, claimed, 1272, 1272, 0.0)
    result = certify(p, claim, time_limit=60)
    assert result.status is Status.FEASIBLE and result.makespan <= 1271
    assert result.stats["false_proof"]["claimed"] == 1272
    assert validate(p, result.schedule) == []


def test_engine_false_proof_of_the_straightforward_cpsat_model_is_caught() -> None:
    # Engine README: CP-SAT 9.15 proves 57 "optimal" on this instance with the
    # straightforward option set, where a schedule of 56 is valid. The default
    # certification policy of solve() catches it and returns a schedule of 56.
    from models.cpsat import STRAIGHTFORWARD

    p = load_instance(ENGINE / "straightforward-q030.json")
    valid = exactsched.load_schedule(ENGINE / "straightforward-q030-schedule-56.json")
    assert validate(p, valid) == [] and valid.makespan == 56
    options = {"time_limit": 10, "workers": 1, "seed": 0, **STRAIGHTFORWARD}
    off = exactsched.solve(p, "cpsat", certify=False, **options)
    # With certification off the false claim is no answer either (audit W, session 14).
    assert off.status is not Status.OPTIMAL or off.makespan == 56
    claim = engine_view(off)
    result = exactsched.solve(p, "cpsat", **options)
    assert validate(p, result.schedule) == []
    if claim.status is Status.OPTIMAL and claim.makespan > 56:
        assert result.status is Status.FEASIBLE and result.makespan <= 56
        assert result.stats["false_proof"]["claimed"] == claim.makespan
    else:
        assert result.makespan >= 56 and (result.certified or result.status is Status.FEASIBLE)


def test_solve_certify_catches_a_false_proof(false_solver: str) -> None:
    p = load_instance(ENGINE / "instance.json")
    result = exactsched.solve(p, false_solver, certify=True, time_limit=30)
    assert result.status is Status.FEASIBLE and result.certified is False
    assert result.stats["false_proof"]["caught_by"] in WITNESSES
    assert validate(p, result.schedule) == []


def test_cli_solve_certify_catches_a_false_proof(
    false_solver: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(ENGINE / "instance.json")
    assert main(["solve", path, "-m", false_solver, "--certify", "--json", "-t", "30"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["status"] == "feasible" and document["certified"] is False
    assert document["stats"]["false_proof"]["claimed"] > document["makespan"]
    assert main(["solve", path, "-m", false_solver, "--certify", "-t", "30"]) == 0
    assert "false proof caught" in capsys.readouterr().out


def test_cli_no_certify_leaves_the_claim(
    false_solver: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(ENGINE / "instance.json")
    assert main(["solve", path, "-m", false_solver, "--no-certify", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["status"] == "feasible" and document["certified"] is None
    assert document["stats"]["claim"]["makespan"] == document["makespan"]


def test_non_grid_data_certify_within_delta() -> None:
    p = Problem.from_lists(
        [[1.0 / 3, 2.0 / 7], [0.25, 1.0 / 9], [2.0 / 3, 0.4]], [(0, 2, 0.35), (1, 2, 0.1)]
    )
    claim = exactsched.solve(p, "bruteforce", certify=False)
    result = certify(p, claim, witnesses=["cpsat-disjunctive"], time_limit=10)
    report = result.stats["certify"]
    if result.certified:
        assert 0 < report["delta"] < 1e-3
    assert result.status is Status.OPTIMAL


def test_bounds_witness_needs_no_search() -> None:
    p = Problem.from_lists([3, 4], n_processors=1)
    result = exactsched.solve(p, "cpsat", time_limit=10, workers=1, certify=True)
    assert result.certified_by == ("bounds",)


@pytest.mark.parametrize("seed", range(40))
def test_witness_bound_with_energy_never_exceeds_the_optimum(seed: int) -> None:
    # The witness's own energetic reasoning (models._refute._energy_bound) against
    # brute force: identical processors without communication (where it bites),
    # unrelated ones with delays, affinity and isolation pairs.
    from models._refute import _energy_bound, grid_data, witness_bound
    from models.bruteforce import bruteforce

    rng = np.random.default_rng(seed)
    n, n_procs = int(rng.integers(4, 8)), int(rng.integers(1, 4))
    identical = seed % 2 == 0
    problem = random_instance(
        n,
        n_procs,
        ccr=0.0 if identical else 1.0,
        heterogeneity=0.0 if identical else 0.5,
        affinity=0.0 if identical else 0.2,
        n_isolation=seed % 3,
        seed=seed,
    )
    optimum = float(bruteforce(problem).makespan)  # type: ignore[arg-type]
    data = grid_data(problem, 1)
    bound = witness_bound(problem, data)
    assert bound <= optimum + 1e-9
    least = np.where(np.isfinite(data.cost), data.cost, np.inf).min(axis=1)
    assert _energy_bound(problem, least, problem.n_processors, 0) <= optimum + 1e-9


def test_stg_energy_certifies_a_claim_met_by_the_foundation_bound() -> None:
    # 100/rand0105 on 4 processors: the foundation's energetic bound is 252, the
    # published upper bound; the witnesses' own bound reaches it too (239 before).
    from exactsched.workloads import read_stg
    from models._refute import grid_data, witness_bound

    root = Path(__file__).resolve().parents[1]
    problem = read_stg(root / "benchmarks" / "data" / "stg" / "100" / "rand0105.stg", 4)
    assert witness_bound(problem, grid_data(problem, 1)) == 252


def test_unknown_witness_is_refused() -> None:
    p = Problem.from_lists([3], n_processors=1)
    claim = exactsched.solve(p, "bruteforce", certify=False)
    with pytest.raises(ValueError, match="^witness 'nosuch': unknown"):
        certify(p, claim, witnesses=["nosuch"])


def test_not_optimal_results_are_not_certified() -> None:
    p = Problem.from_lists([3, 4], n_processors=2)
    heft = exactsched.solve(p, "heft", certify=True)
    assert heft.certified is None
    assert certify(p, heft) is heft


def test_time_out_leaves_the_claim_uncertified() -> None:
    p = load_instance(ENGINE / "instance.json")
    claim = exactsched.solve(p, "cpsat", time_limit=20, workers=1, certify=False)
    result = certify(p, claim, time_limit=0.0)
    assert claimed_optimum(result) == 35 and result.certified is False
    assert result.certified_by == ()


# ---- policy ------------------------------------------------------------------------------


def test_default_policy_certifies_at_any_size() -> None:
    # Issue 18, item 2: every proven optimum, within the solve's own time.
    small = random_instance(8, 3, topology="mesh", seed=2)
    result = exactsched.solve(small, "cpsat", time_limit=20, workers=1)
    assert result.status is Status.OPTIMAL and result.certified is True
    assert apply_policy(small, result, False) is result
    # Past 30 tasks the default tries too (certified is None only when not tried).
    big = random_instance(40, 2, seed=1)
    claim = _claim_heft_optimal(big)
    checked = apply_policy(big, claim, None)
    assert checked.certified is not None and "certify" in checked.stats
    # With time enough, the false claim (HEFT called optimal) is caught.
    caught = apply_policy(big, claim, True, time_limit=60)
    assert caught.status is Status.FEASIBLE and caught.stats["false_proof"]
    assert caught.makespan < claim.makespan
    assert validate(big, caught.schedule) == []


def test_a_witness_declines_a_model_it_cannot_build_in_time() -> None:
    from models._refute import build_seconds, grid_data, refute_cpsat

    problem = random_instance(300, 8, seed=0)
    assert build_seconds(problem) > 1.0
    started = time.perf_counter()
    verdict = refute_cpsat(problem, grid_data(problem, 1), 10**6, time_limit=0.5)
    assert verdict.outcome == "unknown" and "building the model" in verdict.reason
    assert time.perf_counter() - started < 0.5


# ---- agreement ---------------------------------------------------------------------------


def _result(method: str, status: Status, makespan: float, bound: float) -> Result:
    return Result(method, status, None, makespan, bound, 0.0)


@pytest.mark.parametrize(
    ("results", "status"),
    [
        ([("a", Status.OPTIMAL, 10, 10), ("b", Status.OPTIMAL, 10, 10)], "agreed"),
        ([("a", Status.OPTIMAL, 10, 10), ("b", Status.FEASIBLE, 12, 8)], "agreed"),
        ([("a", Status.FEASIBLE, 11, 9), ("b", Status.FEASIBLE, 12, 8)], "open"),
        ([("a", Status.OPTIMAL, 10, 10), ("b", Status.OPTIMAL, 11, 11)], "disputed"),
        ([("a", Status.OPTIMAL, 10, 10), ("b", Status.FEASIBLE, 9, 8)], "disputed"),
        ([("a", Status.FEASIBLE, 12, 11), ("b", Status.FEASIBLE, 10, 9)], "disputed"),
        ([("a", Status.OPTIMAL, 1e12, 1e12), ("b", Status.OPTIMAL, 1e12 + 1e-4, 1e12)], "agreed"),
    ],
)
def test_agree(results: list, status: str) -> None:
    verdict = agree([_result(*r) for r in results])
    assert verdict.status == status
    assert bool(verdict.reasons) == (status == "disputed")


# ---- a plain CP-SAT model (the one of the engine README) ------------------------------------


def _plain_cpsat(problem: Problem) -> Result:
    """The plain model of tests/data/engine-false-optimum/README.md, default parameters."""
    from ortools.sat.python import cp_model

    from exactsched import Schedule

    n, n_procs = problem.n_tasks, problem.n_processors
    horizon = int(np.where(problem.allowed, problem.cost, 0).max(axis=1).sum())
    horizon += int(problem.arc_unit.sum() * problem.hops.max())
    m = cp_model.CpModel()
    start = [m.new_int_var(0, horizon, f"s{i}") for i in range(n)]
    end = [m.new_int_var(0, horizon, f"e{i}") for i in range(n)]
    present: dict[tuple[int, int], cp_model.IntVar] = {}
    per_proc: list[list] = [[] for _ in range(n_procs)]
    size = []
    for i in range(n):
        procs = problem.allowed_processors(i).tolist()
        for p in procs:
            lit = m.new_bool_var(f"x{i}_{p}")
            present[i, p] = lit
            c = int(problem.cost[i, p])
            per_proc[p].append(m.new_optional_fixed_size_interval_var(start[i], c, lit, ""))
            m.add(end[i] == start[i] + c).only_enforce_if(lit)
        m.add_exactly_one(present[i, p] for p in procs)
        low = int(problem.cost[i, procs].min())
        high = int(problem.cost[i, procs].max())
        size.append(m.new_int_var(low, high, f"d{i}"))
        m.add(size[i] == sum(int(problem.cost[i, p]) * present[i, p] for p in procs))
    for p in range(n_procs):
        m.add_no_overlap(per_proc[p])
    iso = [m.new_interval_var(start[i], size[i], end[i], f"iso{i}") for i in range(n)]
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        m.add_no_overlap([iso[a], iso[b]])
    for arc in range(problem.n_edges):
        i, j = int(problem.arc_src[arc]), int(problem.arc_dst[arc])
        m.add(start[j] >= end[i])
        for p in problem.allowed_processors(i).tolist():
            for q in problem.allowed_processors(j).tolist():
                delay = int(problem.arc_unit[arc] * problem.hops[p, q])
                if delay:
                    m.add(start[j] >= end[i] + delay).only_enforce_if(
                        [present[i, p], present[j, q]]
                    )
    makespan = m.new_int_var(0, horizon, "makespan")
    m.add_max_equality(makespan, end)
    m.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 20
    status = solver.solve(m)
    assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    proc = [
        next(p for p in range(n_procs) if (i, p) in present and solver.value(present[i, p]))
        for i in range(n)
    ]
    schedule = Schedule.from_arrays(
        problem, np.array(proc), np.array([solver.value(s) for s in start], dtype=float)
    )
    assert validate(problem, schedule) == []
    return Result(
        "plain-cpsat",
        Status.OPTIMAL if status == cp_model.OPTIMAL else Status.FEASIBLE,
        schedule,
        schedule.makespan,
        solver.best_objective_bound,
        solver.wall_time,
    )


def test_witnesses_decline_too_many_processor_pairs() -> None:
    p = Problem.from_lists([5, 2], [(0, 1, 1)], n_processors=2100)
    schedule = exactsched.Schedule.from_arrays(p, np.array([0, 0]), np.array([0.0, 5.0]))
    claim = Result("claim", Status.OPTIMAL, schedule, 7, 7, 0.0)
    result = certify(p, claim, witnesses=["cpsat-disjunctive", "milp"], time_limit=5)
    # Undecided: no longer a claim of optimality, whoever called (not only solve).
    assert result.status is Status.FEASIBLE and result.certified is False
    assert result.stats["claim"]["makespan"] == 7
    assert result.lower_bound <= 7
    reasons = {w["reason"] for w in result.stats["certify"]["witnesses"].values()}
    assert reasons == {"too many (arc, processor pair) delays"}
    assert certify(p, claim, time_limit=5).certified_by == ("bounds",)


def test_an_undecided_certification_leaves_no_optimum() -> None:
    # Rule (c) of settle: tried and not confirmed is not optimal (a 2-worker cpsat run
    # once claimed 105 optimal where 104 is valid); switched off, a claim only (an
    # engine's word is no proof: CP-SAT 9.15 proved 57 where 56 exists).
    from models.certify import settle

    problem = random_instance(12, 3, topology="mesh", seed=4)
    heft = exactsched.solve(problem, "heft")
    claim = replace(heft, method="cpsat", status=Status.OPTIMAL, lower_bound=heft.makespan)
    tried = settle(problem, replace(claim, certified=False, certified_by=()))
    assert tried.status is Status.FEASIBLE
    assert tried.stats["claim"]["makespan"] == heft.makespan
    assert "no independent witness" in tried.stats["claim"]["why_not_optimal"]
    assert tried.lower_bound <= heft.makespan
    off = settle(problem, replace(claim, certified=None))
    assert off.status is Status.FEASIBLE and off.stats["claim"]["makespan"] == heft.makespan
    # certify itself settles what it cannot decide (an explicit witness list included)
    # and settling twice changes nothing.
    direct = certify(problem, claim, witnesses=["milp"], time_limit=0.01)
    assert direct.certified is False and direct.status is Status.FEASIBLE
    assert settle(problem, direct) == direct
    assert "certification off" in off.stats["claim"]["why_not_optimal"]
    brute = replace(claim, method="bruteforce", certified=None)  # exhaustive: a proof
    assert settle(problem, brute).status is Status.OPTIMAL


@pytest.mark.parametrize("scale", [1, 10**9])
def test_a_cpsat_bound_stands_only_below_the_trusted_units(scale: int) -> None:
    # At 1e9 the scaled makespan is past 2**31 units, where CP-SAT has proven a false
    # optimum: neither its claim nor its bound is a proof there, so the result is
    # feasible with the foundation bound (the engine's in stats["engine_bound"], or
    # in stats["claim"] when it claimed an optimum).
    document = random_instance(25, 8, topology="fat-tree", ccr=1.0, seed=4).to_json()
    for task in document["tasks"]:
        task["cost"] = [c * scale for c in task["cost"]]
    for edge in document["edges"]:
        edge["data"] *= scale
    problem = load_instance(document)
    result = exactsched.solve(problem, "cpsat", time_limit=1.0, workers=1, certify=False)
    assert validate(problem, result.schedule) == []
    engine = result.stats.get("engine_bound")
    if scale == 1:
        assert engine is None
    else:
        foundation = exactsched.lower_bound(problem)
        assert result.status is Status.FEASIBLE and result.lower_bound == foundation
        # The engine said more, as a bound or (when it closed the gap in time) a claim.
        said = engine if engine is not None else result.stats["claim"]["bound"]
        assert said > foundation


@pytest.mark.parametrize(
    ("option", "value"),
    [("time_limit", -1), ("time_limit", float("nan")), ("time_limit", "1"), ("bound_time", -1),
     ("workers", 0), ("seed", -1)],
)  # fmt: skip
def test_certify_checks_its_arguments_as_solve_does(option, value):
    # A negative or nan limit came back certified=False, as if the witnesses had failed.
    problem = Problem.from_lists([[2, 3], [3, 2]], [(0, 1, 1)])
    result = solve(problem, "cpsat", time_limit=5, workers=1, certify=False)
    with pytest.raises(MethodError, match=rf"^{option}: expected"):
        certify(problem, result, **{option: value})


@pytest.mark.parametrize("scale", [1e-10, 1e-8, 1e-3, 1.0, 1e6])
def test_a_late_claim_on_float_data_is_never_certified(scale):
    # On float data the tolerance was 1e-9 * max(1, claim): absolute below 1, so a claim
    # 14 times the optimum of 1e-10 data was certified by brute force (an outside audit).
    from exactsched import Placement, Schedule

    a = scale / 3  # float data: no decimal grid
    problem = Problem.from_lists([a, a], n_processors=1)
    late = Schedule({"t0": Placement("p0", 0.0, a), "t1": Placement("p0", 2 * a, 3 * a)})
    assert validate(problem, late) == []
    claim = Result("cpsat", Status.OPTIMAL, late, late.makespan, late.makespan, 0.0)
    result = certify(problem, claim, time_limit=10, workers=1)
    assert result.status is not Status.OPTIMAL and result.certified is not True
    optimum = solve(problem, "bruteforce")
    assert exactsched.agree([optimum, replace(claim, method="x")], problem=problem).status == (
        "disputed"
    )


def test_a_claim_must_be_a_valid_schedule_of_its_makespan():
    from exactsched import Placement, Schedule, ScheduleError

    problem = Problem.from_lists([3, 4], [(0, 1)], n_processors=1)  # optimum 7
    overlap = Schedule({"t0": Placement("p0", 0, 3), "t1": Placement("p0", 1, 5)})
    with pytest.raises(ScheduleError, match="certify: the claimed schedule is invalid"):
        certify(problem, Result("cpsat", Status.OPTIMAL, overlap, 5, 5, 0.0))
    good = Schedule({"t0": Placement("p0", 0, 3), "t1": Placement("p0", 3, 7)})
    with pytest.raises(ScheduleError, match="is below its schedule's makespan 7"):
        certify(problem, Result("cpsat", Status.OPTIMAL, good, 6, 6, 0.0))
    assert certify(problem, Result("cpsat", Status.OPTIMAL, good, 7, 7, 0.0)).certified
