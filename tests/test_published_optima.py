"""Exact methods against published optimal makespans (a fast sample).

The full sets run with ``benchmarks/published_optima.py``. Here: a handful of
Standard Task Graph instances (identical processors, no communication) whose
optimum Tobita and Kasahara published, one open STG row, and the five Sinnen DOT
graphs with communication on 1, 2 and 4 processors. Every schedule is validated.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import exactsched
from exactsched import MethodError, Status, validate
from exactsched.workloads import read_dot, read_dot_optima, read_stg, read_stg_optima

DATA = Path(__file__).parent / "data"
STG_OPTIMA = {(r.file, r.n_processors): r for r in read_stg_optima(DATA / "stg" / "optima.csv")}
DOT_OPTIMA = read_dot_optima(DATA / "sinnen-dot" / "OPTIMA.txt")

# Each is proven by CP-SAT in well under a second on 2 workers. 50/rand0074 on 2
# processors and 50/rand0001 on 2 are above the trivial bound max(CP, work / P).
STG_FAST = [
    ("50/rand0000.stg", 2),
    ("50/rand0000.stg", 4),
    ("50/rand0001.stg", 2),
    ("50/rand0002.stg", 4),
    ("50/rand0074.stg", 2),
    ("50/rand0133.stg", 8),
    ("100/rand0000.stg", 4),
]


def _require(method: str) -> None:
    try:
        exactsched.get_method(method)
    except MethodError:
        pytest.skip(f"method {method!r} is not registered")


def _solve(problem, method, time_limit=20.0):
    result = exactsched.solve(problem, method, time_limit=time_limit, workers=2, seed=0)
    assert result.schedule is not None
    assert validate(problem, result.schedule) == []
    assert result.makespan == pytest.approx(result.schedule.makespan)
    return result


@pytest.mark.parametrize(("file", "n_procs"), STG_FAST)
def test_stg_published_optimum_cpsat(file, n_procs):
    _require("cpsat")
    row = STG_OPTIMA[(file, n_procs)]
    assert row.proven
    problem = read_stg(DATA / "stg" / file, n_procs)
    result = _solve(problem, "cpsat")
    assert result.status is Status.OPTIMAL
    assert result.makespan == row.bound


def test_stg_open_row_cpsat_consistent():
    # 50/rand0133 on 4 processors is open at publication: 122 <= OPT <= 124.
    _require("cpsat")
    row = STG_OPTIMA[("50/rand0133.stg", 4)]
    assert not row.proven
    problem = read_stg(DATA / "stg" / row.file, 4)
    result = _solve(problem, "cpsat", time_limit=2.0)
    assert result.makespan >= row.lower  # the published lower bound is proven
    assert result.lower_bound <= row.upper  # a schedule of length UB is known


@pytest.mark.parametrize(("file", "n_procs"), sorted(DOT_OPTIMA))
def test_sinnen_dot_optimum_cpsat(file, n_procs):
    _require("cpsat")
    problem = read_dot(DATA / "sinnen-dot" / file, n_procs)
    result = _solve(problem, "cpsat")
    assert result.status is Status.OPTIMAL
    assert result.makespan == DOT_OPTIMA[(file, n_procs)]


@pytest.mark.parametrize(
    ("file", "n_procs"),
    [key for key in sorted(DOT_OPTIMA) if key[0].startswith(("Nodes_7", "Nodes_8"))],
)
def test_sinnen_dot_optimum_bruteforce(file, n_procs):
    _require("bruteforce")
    problem = read_dot(DATA / "sinnen-dot" / file, n_procs)
    result = _solve(problem, "bruteforce")
    assert result.status is Status.OPTIMAL
    assert result.makespan == DOT_OPTIMA[(file, n_procs)]


@pytest.mark.parametrize("file", sorted({key[0] for key in DOT_OPTIMA}))
def test_sinnen_dot_heft_not_below_optimum(file):
    # A heuristic schedule is valid, so it can never beat the optimum.
    _require("heft")
    for n_procs in (1, 2, 4):
        problem = read_dot(DATA / "sinnen-dot" / file, n_procs)
        result = exactsched.solve(problem, "heft")
        assert validate(problem, result.schedule) == []
        assert result.makespan >= DOT_OPTIMA[(file, n_procs)]
        if n_procs == 1:
            assert result.makespan == DOT_OPTIMA[(file, 1)]
