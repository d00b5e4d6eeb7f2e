"""Whole numbers near the format's top (1e15): an outside audit, session 14.

On integer data above about 5e14 ``cpsat`` answered ``feasible`` on a trivial
instance with a bound below the exact foundation bound (999999999999999.8 for an
optimum of 1000000000000001): the final rounding took 8 ulps (a whole unit there)
off a bound that was already a whole number, and the check of an engine's bound
above CP-SAT's trusted range took the float noise of decimal sums off a bound
whose integer sums are exact. ``info`` printed the bound 1000000000000000.75 as
1000000000000001, above the optimum.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from exactsched import Placement, Problem, Result, Schedule, Status, solve, validate
from models.certify import settle


@pytest.mark.parametrize(
    "costs",
    [[10**15, 1], [6 * 10**14, 1], [10**15, 3, 7], [2**50, 2**49, 1]],
)
@pytest.mark.parametrize("method", ["cpsat", "milp", "bruteforce"])
def test_a_whole_optimum_near_1e15_is_proven(costs, method):
    problem = Problem.from_lists([[c] for c in costs])
    result = solve(problem, method, 5, workers=1, seed=0)
    assert validate(problem, result.schedule) == []
    assert result.status is Status.OPTIMAL and result.certified
    assert result.makespan == result.lower_bound == sum(costs)


def test_an_engine_bound_on_whole_data_keeps_the_exact_foundation():
    """A ``feasible`` CP-SAT result above its trusted range falls back to the
    foundation bound; on integer data held exactly that bound has no noise."""
    top = 6 * 10**14
    problem = Problem.from_lists([[top], [1]])
    late = Schedule({"t0": Placement("p0", 0, top), "t1": Placement("p0", top + 1, top + 2)})
    assert validate(problem, late) == []
    told = Result(
        "cpsat", Status.FEASIBLE, late, top + 2, top + 1, 1.0,
        {"resolution": 1, "foundation_bound": top + 1},
    )  # fmt: skip
    assert settle(problem, told).lower_bound == top + 1


def test_info_never_prints_a_bound_above_its_value(tmp_path):
    instance = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}]},
        "tasks": [{"id": "a", "cost": 1e15}, {"id": "b", "cost": 0.5}, {"id": "c", "cost": 0.25}],
    }
    path = tmp_path / "top.json"
    path.write_text(json.dumps(instance))
    done = subprocess.run(
        [sys.executable, "-m", "exactsched", "info", str(path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "1000000000000001" not in done.stdout
    assert "1000000000000000.8" in done.stdout
