"""Integers beyond every float in messages and witnesses: an outside audit, session 14.

Data near 1e308 (finite, so the format accepts them) made the grid's sum of units
an integer above 1.8e308; formatting it with ``:.3g`` and flooring it to a float
raised ``OverflowError`` (exit 3) in every exact method. ``bruteforce`` with a raised
``max_tasks`` did the same computing its search space (200!).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from exactsched import MethodError, Problem, Status, solve, validate
from exactsched._output import rough

NEAR_MAX = {
    "format": "exactsched/instance@1",
    "platform": {"processors": [{"id": "p"}, {"id": "q"}]},
    "tasks": [{"id": "a", "cost": 0.5}, {"id": "b", "cost": 1}],
    "edges": [{"src": "a", "dst": "b", "data": 1e308}],
}


@pytest.mark.parametrize("method", ["cpsat", "milp", "bruteforce"])
def test_data_near_the_float_limit_get_an_honest_answer(tmp_path, method):
    path = tmp_path / "near-max.json"
    path.write_text(json.dumps(NEAR_MAX))
    done = subprocess.run(
        [sys.executable, "-m", "exactsched", "solve", str(path), "-m", method,
         "-w", "1", "-t", "5", "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    # Both tasks on one processor: 1.5; the sums of units are beyond what floats hold.
    assert document["makespan"] == 1.5 and document["status"] == "feasible"
    assert document["lower_bound"] <= 1.5


def test_a_search_space_beyond_every_float_is_refused_in_one_line():
    problem = Problem.from_lists([[1, 2]] * 200, n_processors=2)
    with pytest.raises(MethodError, match=r"^bruteforce: search space inf is more than"):
        solve(problem, "bruteforce", 5, max_tasks=200)


def test_rough_formats_any_integer():
    assert rough(10**400) == "1.00e+400" and rough(2.5e-7) == "2.5e-07"


def test_small_data_are_unchanged():
    problem = Problem.from_lists([[1, 2], [2, 1]], [(0, 1, 3)])
    result = solve(problem, "bruteforce")
    assert result.status is Status.OPTIMAL and validate(problem, result.schedule) == []
