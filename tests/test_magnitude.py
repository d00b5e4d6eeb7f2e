"""Exact answers at every magnitude (issue 15): every case of tests/data/magnitude/.

Each exact method (cpsat, milp with HiGHS and SCIP, bruteforce, the
STRAIGHTFORWARD option set of cpsat), with certification on and off, gives the
true optimum or an honest ``feasible`` with a valid bound; on integer and
decimal data "true" means to the grid step, with no relative tolerance. The
data and their optima are described in tests/data/magnitude/README.md (copied
from the project's shared data, ``magnitude/``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import exactsched
import models.cpsat
from exactsched import MethodError, Problem, Result, Status, load_instance, validate
from models._grid import data_grid
from models.certify import agree, certify

HERE = Path(__file__).parent / "data" / "magnitude"

pytestmark = pytest.mark.filterwarnings("ignore::exactsched.InstanceWarning")

#: True optima (README of the folder; the float-sum and delay cases from brute force).
OPTIMA: dict[str, float | None] = {
    "cpsat-1e12.json": 5000000001166,
    "dispute-1e12.json": 3000000001998,
    "milp-1e10.json": 40000000000,
    "highs-small-57.json": 57,
    "highs-small-45.json": 45,
    "zero-length.json": 10,
    "delays-1e19.json": 8,
    "float-sum-instance.json": 90.0181655844156,
    "etf-fractional.json": None,  # 50 tasks: no known optimum, the answers must be consistent
}

METHODS: dict[str, tuple[str, dict]] = {
    "cpsat": ("cpsat", {}),
    "milp-highs": ("milp", {"solver": "highs"}),
    "milp-scip": ("milp", {"solver": "scip"}),
    "bruteforce": ("bruteforce", {}),
    "straightforward": ("cpsat", dict(models.cpsat.STRAIGHTFORWARD)),
}

SLOW = {"etf-fractional.json"}


def _cases() -> list:
    cases = []
    for name in OPTIMA:
        for label in METHODS:
            for certify_option in (None, False):
                marks = [pytest.mark.slow] if name in SLOW else []
                tag = "certify" if certify_option is None else "no-certify"
                cases.append(
                    pytest.param(
                        name, label, certify_option, marks=marks, id=f"{name[:-5]}-{label}-{tag}"
                    )
                )
    return cases


def _off_by_a_step(problem: Problem, a: float, b: float) -> bool:
    """``a`` and ``b`` differ by a grid step or more (float data: 1e-9 relative)."""
    return data_grid(problem).steps_apart(a, b)


def check_honest(problem: Problem, optimum: float | None, result: Result) -> None:
    """The result is the true optimum, or feasible with a bound at most the optimum."""
    assert result.schedule is not None
    assert validate(problem, result.schedule) == []
    assert result.lower_bound is not None
    assert result.lower_bound <= result.makespan or not _off_by_a_step(
        problem, float(result.lower_bound), float(result.makespan)
    )
    if result.certified:
        assert result.status is Status.OPTIMAL
    if optimum is None:
        return
    shorter = result.makespan < optimum and _off_by_a_step(problem, result.makespan, optimum)
    assert not shorter, f"a schedule of {result.makespan!r} below the optimum {optimum!r}"
    above = result.lower_bound > optimum and _off_by_a_step(
        problem, float(result.lower_bound), optimum
    )
    assert not above, f"bound {result.lower_bound!r} above the optimum {optimum!r}"
    if result.status is Status.OPTIMAL:
        assert not _off_by_a_step(problem, result.makespan, optimum), (
            f"false optimum {result.makespan!r} (true {optimum!r})"
        )
    else:
        assert result.status is Status.FEASIBLE


@pytest.mark.parametrize(("name", "label", "certify_option"), _cases())
def test_true_optimum_or_honest_feasible(name: str, label: str, certify_option: bool | None):
    problem = load_instance(HERE / name)
    method, options = METHODS[label]
    try:
        result = exactsched.solve(
            problem,
            method,
            time_limit=5,
            workers=1,
            seed=0,
            certify=certify_option,
            **options,
        )
    except MethodError as error:  # an honest refusal (brute force above 8 tasks): one line
        assert "\n" not in str(error) and str(error)
        return
    check_honest(problem, OPTIMA[name], result)


def test_recorded_schedule_is_valid_and_optimal() -> None:
    problem = load_instance(HERE / "cpsat-1e12.json")
    schedule = exactsched.load_schedule(HERE / "cpsat-1e12-schedule-5000000001166.json")
    assert validate(problem, schedule) == [] and schedule.makespan == OPTIMA["cpsat-1e12.json"]


def _claim(problem: Problem, makespan: float, method: str = "claim") -> Result:
    """A result claiming ``makespan`` optimal with the schedule of brute force (valid)."""
    best = exactsched.solve(problem, "bruteforce", certify=False)
    return replace(best, method=method, status=Status.OPTIMAL, makespan=makespan,
                   lower_bound=makespan)  # fmt: skip


def test_bruteforce_witness_refutes_one_step_below_the_claim() -> None:
    # The claim 5000000001499 (cpsat's false proof) is 333 above a valid schedule:
    # the old relative margin (5000 units) accepted it.
    problem = load_instance(HERE / "cpsat-1e12.json")
    claim = _claim(problem, 5000000001499)
    result = certify(problem, claim, witnesses=["bruteforce"], time_limit=30)
    assert result.certified is False and result.status is Status.FEASIBLE
    assert result.makespan == 5000000001166
    assert result.stats["false_proof"]["caught_by"] == "bruteforce"
    # One unit above the optimum is caught too, and the optimum itself is certified.
    assert not certify(problem, _claim(problem, 5000000001167), witnesses=["bruteforce"]).certified
    assert certify(problem, _claim(problem, 5000000001166), witnesses=["bruteforce"]).certified
    one_above = certify(problem, _claim(problem, 5000000001167), witnesses=["cpsat-disjunctive"])
    assert one_above.certified is False
    exact = certify(problem, _claim(problem, 5000000001166), witnesses=["cpsat-disjunctive"])
    assert exact.certified and exact.stats["certify"]["delta"] == 0


def test_milp_infeasible_never_certifies_alone() -> None:
    # HiGHS says "infeasible" for makespan <= 58 and <= 59 on this instance; both
    # are feasible (the optimum is 57), so a claim of 59 or 60 must not be certified by it.
    problem = load_instance(HERE / "highs-small-57.json")
    cpsat = exactsched.solve(problem, "cpsat", time_limit=10, workers=1, seed=0, certify=False)
    assert cpsat.makespan == 57
    for false in (59, 60):
        claim = replace(cpsat, method="claim", makespan=false, lower_bound=false)
        result = certify(problem, claim, witnesses=["milp"], time_limit=20)
        assert not result.certified


def test_agree_sees_the_dispute_at_1e12() -> None:
    problem = load_instance(HERE / "dispute-1e12.json")
    cpsat = exactsched.solve(problem, "cpsat", time_limit=10, workers=1, seed=0)
    assert cpsat.makespan == 3000000001998 and cpsat.certified
    other = replace(cpsat, method="milp", makespan=3000000002331, lower_bound=3000000002331)
    assert agree([other, cpsat], problem=problem).status == "disputed"
    assert agree([other, cpsat]).status == "disputed"  # integers without the problem too
    assert agree([cpsat, replace(cpsat, method="again")], problem=problem).status == "agreed"


def test_delays_beyond_2_63_do_not_raise() -> None:
    problem = load_instance(HERE / "delays-1e19.json")
    for option in (None, True, False):
        result = exactsched.solve(problem, "bruteforce", certify=option, time_limit=20)
        assert result.status is Status.FEASIBLE  # sums beyond 2**53: never "optimal"
        assert result.makespan == 8 and result.lower_bound <= 8


@pytest.mark.parametrize("method", ["cpsat", "milp"])
def test_a_planted_fault_in_the_bound_is_not_certified(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 15 item 5: the foundation bound is a constraint of cpsat and milp and was
    # the whole "bounds" witness. Raise it above the optimum (73) in every proof:
    # no witness may certify an answer resting on it.
    import exactsched.bounds
    import models.bruteforce
    import models.milp

    true_bound = exactsched.bounds.lower_bound

    def faulty(problem: Problem) -> float:
        return float(true_bound(problem)) + 3

    def faulty_within(problem: Problem, seconds: float | None) -> tuple[float, bool]:
        return faulty(problem), True

    monkeypatch.setattr(models.milp, "lower_bound_within", faulty_within)
    monkeypatch.setattr(models.cpsat, "lower_bound_within", faulty_within)
    monkeypatch.setattr(models.bruteforce, "_static_lower_bound", faulty)
    problem = load_instance("examples/topcuoglu2002.json")
    result = exactsched.solve(problem, method, time_limit=10, workers=1, seed=0, certify=True)
    if result.certified:
        assert result.makespan == 73
    assert result.status is not Status.OPTIMAL or result.makespan == 73


def test_cli_prints_exact_figures_and_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    from exactsched.cli import main

    path = str(HERE / "highs-small-57.json")
    assert main(["solve", path, "-m", "milp", "--no-certify", "-w", "1", "-t", "20"]) == 0
    out = capsys.readouterr().out
    assert "status      feasible" in out
    assert "not trusted without a witness (certification off)" in out
    path = str(HERE / "delays-1e19.json")
    assert main(["solve", path, "-m", "bruteforce", "-t", "20"]) == 0
    out = capsys.readouterr().out
    assert "status      feasible" in out and "beyond what floating point holds" in out


@pytest.mark.parametrize("method", ["heft", "etf", "cpop", "peft", "mct", "cpsat", "bruteforce"])
def test_no_bound_above_the_makespan_on_float_sums(method: str) -> None:
    # The bound is summed more exactly than the finish times: costs 0.819, 8.2e-07 and
    # 0.424 on one processor gave heft a bound of 1.24300082 above its makespan
    # 1.2430008199999998 (a negative gap). Every method's bound is at most its makespan.
    p = Problem.from_lists([0.819, 8.2e-07, 0.424], n_processors=1)
    result = exactsched.solve(p, method, time_limit=5, workers=1)
    assert validate(p, result.schedule) == []
    assert result.lower_bound <= result.makespan and result.gap >= 0


def test_costs_near_the_least_float_next_to_large_data() -> None:
    # Session 13: costs of a few 5e-324 next to data of 9e15 crashed cpsat (the
    # path-load LP divided the delays by the largest cost: inf) and certification
    # (no power of ten brings a claim of 4e-323 to whole units).
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}]},
        "tasks": [
            {"id": "a", "cost": [5e-324 * 3, 5e-324 * 8]},
            {"id": "b", "cost": [5e-324 * 2, 5e-324 * 5]},
            {"id": "c", "cost": [5e-324 * 7, 5e-324]},
        ],
        "edges": [{"src": "a", "dst": "b", "data": 9007199254751000.0 * 3},
                  {"src": "a", "dst": "c", "data": 5e-324}],
    }  # fmt: skip
    problem = Problem.from_json(doc)
    for method in ("cpsat", "milp", "bruteforce"):
        result = exactsched.solve(problem, method, time_limit=5, workers=1, seed=0)
        assert validate(problem, result.schedule) == []
        assert result.lower_bound <= result.makespan
