"""Costs of 1e-9 beside costs of 1e14 in one instance (outside soundness fuzz, session 9).

* The referee's relative slack (``1e-9 x`` the times compared) is 2.5e5 near
  2.5e14, which hid a whole task of cost 5.94 overlapping another; the slack
  is now the float noise of the times compared only
  (``exactsched.validate.float_noise``).
* The relocation warm start placed a task of cost 1e-4 (``t + d == t`` in
  floats) inside another; ``cpsat`` reported that schedule optimal, 5.94 below
  the true optimum, and the referee let it pass. Both instances
  (``tests/data/tiny-beside-huge``, from the fuzz) are now solved to the
  brute-force optimum.
* ``cpsat``'s warm start ordered a task of cost 5e-9 after its successor (a tie
  of float starts broken by index) and raised ``ValueError``; ties now follow a
  topological order.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from exactsched import InstanceWarning, Placement, Problem, Schedule, solve, validate

DATA = Path(__file__).parent / "data" / "tiny-beside-huge"


def _load(name: str) -> Problem:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InstanceWarning)
        return Problem.from_json(json.loads((DATA / name).read_text()))


@pytest.mark.parametrize("name", ["one-processor-a.json", "one-processor-b.json"])
def test_cpsat_reaches_the_brute_force_optimum(name):
    problem = _load(name)
    truth = solve(problem, "bruteforce")
    result = solve(problem, "cpsat", time_limit=5, workers=1, seed=0)
    assert validate(problem, result.schedule) == []
    assert result.makespan >= truth.makespan * (1 - 1e-15)
    assert result.lower_bound <= truth.makespan * (1 + 1e-15)


def test_a_cost_below_the_float_noise_beside_its_successor():
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}]},
        "tasks": [
            {"id": "t1", "cost": 0.3159788578853},
            {"id": "t5", "cost": 5.0878915856259e-09},
            {"id": "t6", "cost": 34336123055688.0},
        ],
        "edges": [{"src": "t5", "dst": "t1"}],
    }
    problem = Problem.from_json(doc)
    result = solve(problem, "cpsat", time_limit=5, workers=1, seed=0)
    assert validate(problem, result.schedule) == []
    assert result.makespan == solve(problem, "bruteforce").makespan


def test_the_slack_never_hides_a_task():
    problem = Problem.from_lists([2.5e14, 5.94, 40.0, 1e-4], n_processors=1)
    base = 2.5e14
    rows = {
        "t0": Placement("p0", 0.0, base),
        "t1": Placement("p0", base + 0.22, base + 0.22 + 5.94),
        "t2": Placement("p0", base + 0.22, base + 0.22 + 40.0),  # starts where t1 does
        "t3": Placement("p0", base + 50.0, base + 50.0 + 1e-4),
    }
    violations = validate(problem, Schedule(rows))
    assert len(violations) == 1 and "overlaps" in violations[0]
    # a cost below the float noise there (1e-4 against an ulp of 0.03) still passes
    rows["t2"] = Placement("p0", base + 10.0, base + 50.0)
    rows["t3"] = Placement("p0", base + 50.0, base + 50.0)
    assert validate(problem, Schedule(rows)) == []


@pytest.mark.parametrize(
    "name, method",
    [
        ("contention-heft.json", "heft"),
        ("contention-bl-macro.json", "bl-macro"),  # the pinned tasks' scalar path
        ("message-model-cpsat.json", "cpsat"),
        # cpsat's own list schedules left a task of cost 4e-6 at 7e11 off the lane
        # (its float end equals its start) and put a task of 9e11 over it
        ("list-warm-start.json", "cpsat"),
    ],
)
def test_messages_below_the_float_noise_still_take_their_delay(name, method):
    """Transfers of 8e-6 per hop at 2e11 vanish in each hop's float sum (from a fuzz).

    HEFT booked such a message hop by hop, started the successor at 2e11 and
    failed the referee (the data arrive at 2e11 + 1.6e-5, a float above); the
    data-ready time now also waits for the whole delay. ``cpsat`` under a
    message model, on a cost scaled beyond 64 bits, raised ``TypeError``; a
    placement or a stage longer than the heuristic's makespan is now left out
    of its model.
    """
    problem = _load(name)
    result = solve(problem, method, time_limit=5, workers=1, seed=0)
    assert validate(problem, result.schedule) == []
