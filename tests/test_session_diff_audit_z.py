"""An outside audit of session 14's changes (audit Z).

* Integer data whose sums floats cannot hold (costs near 2**52): the foundation bound
  was the float load bound K + 0.5 rounded up to K + 1 for an optimum of K, reported
  by ``info`` and every heuristic, taken by a study as a certified optimum, and, once
  ``final_status`` kept whole bounds, claimed by ``cpsat`` as its optimum.
* ``engine_view`` copied a claim's bound above its makespan.
* A study summary counted a claim its certification refuted (reported feasible)
  both as "NOT certified" and against the proofs: "-1 not attempted".
* An integer option beyond every float crashed the option check.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from exactsched import MethodError, Placement, Problem, Result, Schedule, Status, solve, validate
from models.certify import engine_view

K = 4503599626370496  # 2**52 - 2**20 - ...: four such costs sum past 2**53
COSTS = [3, K - 6, K - 6, K, 2, 3, K, 2, 2]


def _trap() -> Problem:
    return Problem.from_lists([[c] * 4 for c in COSTS])


def _optimal_schedule(problem: Problem) -> Schedule:
    # {K}, {K}, {K-6, 3, 3}, {K-6, 2, 2, 2}: every processor ends by K.
    lanes = {"p0": [3], "p1": [6], "p2": [1, 0, 5], "p3": [2, 4, 7, 8]}
    placements = {}
    for proc, tasks in lanes.items():
        t = 0
        for i in tasks:
            placements[f"t{i}"] = Placement(proc, t, t + COSTS[i])
            t += COSTS[i]
    return Schedule(placements)


def test_the_trap_optimum_is_k():
    problem = _trap()
    schedule = _optimal_schedule(problem)
    assert validate(problem, schedule) == [] and schedule.makespan == K


@pytest.mark.parametrize("method", ["heft", "cpop", "cpsat", "milp"])
def test_no_bound_above_the_optimum_when_sums_are_rounded(method):
    problem = _trap()
    result = solve(problem, method, 5, workers=1, seed=0)
    assert validate(problem, result.schedule) == []
    assert result.lower_bound <= K
    assert result.status is not Status.OPTIMAL or result.makespan == K
    said = engine_view(solve(problem, method, 5, workers=1, seed=0, certify=False))
    assert said.lower_bound <= K and (said.status is not Status.OPTIMAL or said.makespan == K)


def test_no_single_bound_above_the_optimum_when_sums_are_rounded():
    # Audit Z2: info's "best of" list showed load, class_load and energetic at K + 0.5.
    from exactsched import lower_bound, lower_bounds

    problem = _trap()
    assert all(v <= K for v in lower_bounds(problem).values())
    assert lower_bound(problem) <= K


def test_engine_view_never_states_a_bound_above_its_makespan():
    schedule = Schedule({"t0": Placement("p0", 0, 5)})
    claim = Result(
        "milp", Status.FEASIBLE, schedule, 5, 3, 0.0, {"claim": {"makespan": 5, "bound": 6.0}}
    )
    viewed = engine_view(claim)
    assert viewed.status is Status.OPTIMAL and viewed.lower_bound == 5


def test_a_study_summary_counts_a_refuted_claim_once(monkeypatch):
    from exactsched.experiments import report

    # Two instances: one proof certified, one claim refuted (so reported feasible).
    summary = [{"method": "cpsat", "kind": "exact", "proofs": 1, "certified": 1, "refuted": 1}]
    monkeypatch.setattr(report, "summarise", lambda rows: summary)
    monkeypatch.setattr(report, "_table", lambda head, rows, markdown: "table")
    monkeypatch.setattr(report, "_summary_cells", lambda s: [])
    monkeypatch.setattr(report, "summary_legend", lambda s: [])
    text = report.summary_text([{"method": "cpsat"}])
    assert "-1" not in text
    said = "cpsat: 1 proven optima, 1 certified; 1 claimed, NOT certified (reported feasible)"
    assert said in text


def test_an_integer_option_beyond_every_float_is_refused_in_one_line(tmp_path):
    big = "1" + "0" * 320
    with pytest.raises(MethodError, match=r"^option max_tasks: expected an integer >= 0 below"):
        solve(Problem.from_lists([[1]]), "bruteforce", max_tasks=int(big))
    done = subprocess.run(
        [sys.executable, "-m", "exactsched", "solve", "examples/topcuoglu2002.json",
         "-m", "bruteforce", "-O", f"max_tasks={big}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr


def test_the_trap_in_a_study_has_no_false_reference(tmp_path):
    folder = tmp_path / "trap"
    folder.mkdir()
    (folder / "trap.json").write_text(json.dumps(_trap().to_json()))
    done = subprocess.run(
        [sys.executable, "-m", "exactsched", "compare", str(folder), "-j", "1", "-w", "1",
         "-t", "5", "--exact", "cpsat", "--methods", "heft", "--db", str(tmp_path / "s.db"),
         "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert all(r["optimum"] is None or r["optimum"] == K for r in rows)
    assert all(r["lower_bound"] is None or r["lower_bound"] <= K for r in rows)
