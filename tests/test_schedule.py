"""Schedules in and out of JSON (``exactsched/schedule@1``) and through the CLI.

A malformed schedule document raises :class:`ScheduleError` with a one-line
message starting with the JSON path; ``exactsched validate INSTANCE SCHEDULE``
exits 2 on a schedule it cannot read, 1 on an invalid one (violations listed),
0 on a valid one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from exactsched import (
    Placement,
    Problem,
    Schedule,
    ScheduleError,
    load_instance,
    load_schedule,
    solve,
    validate,
)
from exactsched.cli import main
from exactsched.schedule import SCHEDULE_FORMAT

ROOT = Path(__file__).parent.parent
EXAMPLE = str(ROOT / "examples" / "topcuoglu2002.json")

GOOD = {
    "format": "exactsched/schedule@1",
    "makespan": 5,
    "tasks": [
        {"id": "a", "processor": "p", "start": 0, "finish": 2},
        {"id": "b", "processor": "q", "start": 2.5, "finish": 5},
    ],
}


def test_schedule_mapping_and_views():
    s = Schedule.from_json(GOOD)
    assert list(s) == ["a", "b"] and len(s) == 2
    assert s["b"] == Placement("q", 2.5, 5)
    assert s.makespan == 5
    assert s.by_processor() == {"p": [("a", s["a"])], "q": [("b", s["b"])]}
    assert repr(s) == "Schedule(2 tasks, makespan=5)"
    assert Schedule({}).makespan == 0


def test_json_round_trip():
    s = Schedule.from_json(GOOD)
    assert s.to_json() == GOOD
    assert Schedule.from_json(s.to_json()) == s
    doc = s.to_json(method="heft", status="feasible")
    assert doc["method"] == "heft" and doc["format"] == SCHEDULE_FORMAT
    assert list(doc)[-1] == "tasks"
    assert Schedule.from_json(doc) == s  # extra keys are ignored
    assert json.loads(json.dumps(doc)) == doc


def test_from_arrays_and_arrays():
    problem = Problem.from_lists([[2, 4], [1.5, 3]], [(0, 1, 1)])
    s = Schedule.from_arrays(problem, np.array([0, 1]), np.array([0.0, 3.0]))
    assert s["t0"] == Placement("p0", 0, 2) and s["t1"] == Placement("p1", 3, 6)
    assert all(type(v) is int for pl in s.values() for v in (pl.start, pl.finish))
    assert Schedule.from_arrays(problem, [1, 0], [0.25, 4])["t1"].finish == 5.5
    proc, start, finish = s.arrays(problem)
    assert proc.tolist() == [0, 1] and start.tolist() == [0, 3] and finish.tolist() == [2, 6]
    assert validate(problem, s) == []


def test_load_schedule_file(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(GOOD))
    assert load_schedule(path) == Schedule.from_json(GOOD)
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode())
    assert load_schedule(str(path)) == Schedule.from_json(GOOD)


def _with(**changes):
    doc = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if key.startswith("row_"):
            field = key[4:]
            if value is DELETE:
                del doc["tasks"][1][field]
            else:
                doc["tasks"][1][field] = value
        elif value is DELETE:
            del doc[key]
        else:
            doc[key] = value
    return doc


DELETE = object()

MALFORMED = [
    ([], r"schedule: expected a JSON object, got a list"),
    (None, r"schedule: expected a JSON object, got null"),
    (_with(format=DELETE), r"format: missing; expected 'exactsched/schedule@1'"),
    (_with(format="exactsched/instance@1"), r"format: expected .*, got 'exactsched/instance@1'"),
    (_with(format=1), r"format: expected 'exactsched/schedule@1', got a number"),
    (_with(tasks=DELETE), r"tasks: missing"),
    (_with(tasks={"a": 1}), r"tasks: expected a list of placements, got an object"),
    (_with(tasks=["a"]), r"tasks\[0\]: expected an object, got a string"),
    (_with(row_id=DELETE), r"tasks\[1\]\.id: expected a string, got null"),
    (_with(row_id=3), r"tasks\[1\]\.id: expected a string, got a number"),
    (_with(row_id="a"), r"tasks\[1\]\.id: task 'a' placed twice"),
    (_with(row_processor=DELETE), r"tasks\[1\]\.processor: expected a string, got null"),
    (_with(row_processor=["q"]), r"tasks\[1\]\.processor: expected .*, got a list"),
    (_with(row_start=DELETE), r"tasks\[1\]\.start: missing for task 'b'"),
    (_with(row_start="2.5"), r"tasks\[1\]\.start: expected a number for task 'b', got a string"),
    (_with(row_start=True), r"tasks\[1\]\.start: expected a number for task 'b', got a boolean"),
    (_with(row_finish=None), r"tasks\[1\]\.finish: expected a number for task 'b', got null"),
    (_with(row_finish=float("nan")), r"tasks\[1\]\.finish: not a finite number for task 'b'"),
    (_with(row_start=float("-inf")), r"tasks\[1\]\.start: not a finite number for task 'b'"),
    (_with(row_start=10**400), r"tasks\[1\]\.start: not a finite number for task 'b'"),
    (_with(makespan=6), r"makespan: 6 but the largest finish is 5"),
    (_with(makespan="5"), r"makespan: expected a number, got a string"),
    (_with(makespan=None), r"makespan: expected a number, got null"),
]


@pytest.mark.parametrize(
    "document, message", MALFORMED, ids=[m[1][:30] for m in MALFORMED]
)  # fmt: skip
def test_malformed_documents(document, message):
    with pytest.raises(ScheduleError, match="^" + message + "$") as info:
        Schedule.from_json(document)
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)


def test_makespan_is_optional_and_compared_like_every_time():
    assert Schedule.from_json(_with(makespan=DELETE)).makespan == 5
    # Exact decimals are compared exactly, at every magnitude: the old slack of 1e-9 x
    # the makespan let a claim of 5000000001499 stand for a largest finish of ...1166.
    with pytest.raises(ScheduleError, match=r"^makespan: 5.000000000001 but the largest"):
        Schedule.from_json(_with(makespan=5 + 1e-12))
    big = _with(makespan=5000000001499, row_finish=5000000001166)
    with pytest.raises(ScheduleError, match=r"^makespan: 5000000001499 but the largest finish "
                                            r"is 5000000001166$"):  # fmt: skip
        Schedule.from_json(big)
    # A floating-point artefact keeps the relative slack.
    artefact = {
        **GOOD,
        "makespan": 0.3,
        "tasks": [{"id": "a", "processor": "p", "start": 0.1, "finish": 0.30000000000000004}],
    }
    assert Schedule.from_json(artefact).claimed_makespan == 0.3
    with pytest.raises(ScheduleError, match=r"^makespan: 0.3 but the largest finish is 0.31$"):
        Schedule.from_json(
            {
                **artefact,
                "makespan": 0.3,
                "tasks": [{"id": "a", "processor": "p", "start": 0.1, "finish": 0.31}],
            }
        )
    # Not checked on reading when asked: validate() reports it with the other faults.
    lax = Schedule.from_json(big, check_makespan=False)
    assert lax.claimed_makespan == 5000000001499 and lax.makespan == 5000000001166


@pytest.mark.parametrize(
    "text, message",
    [
        ("", r"invalid JSON at line 1, column 1: Expecting value"),
        ('{"format": "exactsched/schedule@1",\n "tasks": [,]}', r"invalid JSON at line 2, col"),
        ('{"tasks": [], "tasks": []}', r"invalid JSON: key 'tasks' repeated in one object"),
        ("[" * 50000, r"invalid JSON: nested too deeply"),
        ('{"a": ' + "9" * 5000 + "}", r"invalid JSON: an integer with too many digits"),
    ],
    ids=["empty", "syntax", "duplicate-key", "deep", "long-int"],
)
def test_unreadable_files(tmp_path, text, message):
    path = tmp_path / "s.json"
    path.write_text(text)
    with pytest.raises(ScheduleError, match=re.escape(str(path)) + ": " + message):
        load_schedule(path)
    with pytest.raises(ScheduleError, match=r"nope\.json: cannot read file: No such file"):
        load_schedule(tmp_path / "nope.json")
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ScheduleError, match=r"cannot read file: .*utf-8"):
        load_schedule(path)


# ---- the CLI -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def heft_schedule():
    problem = load_instance(EXAMPLE)
    return solve(problem, "heft").schedule.to_json(method="heft")


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_valid_schedule_exit_0(capsys, tmp_path, heft_schedule):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(heft_schedule))
    status, out, err = run(capsys, "validate", EXAMPLE, str(path))
    assert status == 0 and err == ""
    assert out == f"{path}: valid schedule, makespan 80\n"
    status, out, _ = run(capsys, "validate", EXAMPLE, str(path), "--json")
    assert status == 0 and json.loads(out) == {"valid": True, "makespan": 80, "violations": []}


def test_cli_invalid_schedule_exit_1(capsys, tmp_path, heft_schedule):
    doc = json.loads(json.dumps(heft_schedule))
    doc.pop("makespan")
    doc["tasks"][-1]["start"] -= 1
    doc["tasks"][-1]["finish"] -= 1
    doc["tasks"].pop(0)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    status, out, err = run(capsys, "validate", EXAMPLE, str(path))
    assert status == 1 and err == ""
    lines = out.splitlines()
    assert re.fullmatch(r".*s\.json: invalid schedule, \d+ violation\(s\):", lines[0])
    assert "  - task n1: not scheduled" in lines
    assert any(re.match(r"  - edge n\d+ -> n10: n10 starts at ", line) for line in lines)
    status, out, _ = run(capsys, "validate", EXAMPLE, str(path), "--json")
    report = json.loads(out)
    assert status == 1 and report["valid"] is False and len(report["violations"]) == len(lines) - 1


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", r"invalid JSON at line 1, column 2"),
        ('{"format": "exactsched/schedule@1", "tasks": [{"id": 1}]}', r"tasks\[0\]\.id: "),
        ('{"format": "x", "tasks": []}', r"format: expected 'exactsched/schedule@1', got 'x'"),
        (None, r"cannot read file"),
    ],
    ids=["syntax", "bad-id", "bad-format", "missing"],
)
def test_cli_unreadable_schedule_exit_2(capsys, tmp_path, content, message):
    path = tmp_path / "s.json"
    if content is not None:
        path.write_text(content)
    status, out, err = run(capsys, "validate", EXAMPLE, str(path))
    assert status == 2 and out == ""
    assert err.startswith("exactsched: error: ") and err.count("\n") == 1
    assert re.search(message, err) and "Traceback" not in err


# ---- missing and extra fields through `exactsched validate` (issue 16, item 11) ----------


def _edit(doc, *, drop=(), add=(), **top):
    """A copy of a schedule document without the tasks ``drop``, with rows ``add`` appended
    and top-level keys set (DELETE removes one)."""
    out = json.loads(json.dumps(doc))
    out["tasks"] = [row for row in out["tasks"] if row["id"] not in drop] + list(add)
    for key, value in top.items():
        if value is DELETE:
            out.pop(key, None)
        else:
            out[key] = value
    return out


EXTRA = {"id": "zz", "processor": "p1", "start": 85, "finish": 90}
# (edit, exit status, the violations (exit 1) or the start of the error line (exit 2))
VALIDATE_CASES = {
    "last-task-missing": (dict(drop=["n10"]), 1, ["task n10: not scheduled"]),
    "two-missing": (dict(drop=["n1", "n10"]), 1,
                    ["task n1: not scheduled", "task n10: not scheduled"]),
    "missing-no-makespan": (dict(drop=["n10"], makespan=DELETE), 1, ["task n10: not scheduled"]),
    "wrong-makespan": (dict(makespan=81), 1, ["makespan: 81 but the largest finish is 80"]),
    "extra-task": (dict(add=[EXTRA], makespan=90), 1, ["task zz: not in the instance"]),
    "extra-task-old-makespan": (dict(add=[EXTRA]), 1, [
        "task zz: not in the instance", "makespan: 80 but the largest finish is 90"]),
    "extra-keys": (dict(note="hand-made", solver={"x": 1}), 0, []),
    "no-makespan": (dict(makespan=DELETE), 0, []),
    "unknown-processor": (dict(drop=["n10"], add=[
        {"id": "n10", "processor": "gpu9", "start": 73, "finish": 80}]), 1,
        ["task n10: unknown processor gpu9"]),
    "no-tasks": (dict(tasks=DELETE), 2, "tasks: missing"),
    "null-makespan": (dict(makespan=None), 2, "makespan: expected a number, got null"),
    "placed-twice": (dict(add=[{"id": "n1", "processor": "p1", "start": 0, "finish": 14}]), 2,
                     "tasks[10].id: task 'n1' placed twice"),
    "no-finish": (dict(drop=["n10"], add=[{"id": "n10", "processor": "p2", "start": 73}]), 2,
                  "tasks[9].finish: missing for task 'n10'"),
}  # fmt: skip


@pytest.mark.parametrize("case", VALIDATE_CASES)
def test_cli_missing_and_extra_fields(capsys, tmp_path, heft_schedule, case):
    edit, expected_status, expected = VALIDATE_CASES[case]
    edit = dict(edit)
    doc = _edit(heft_schedule, **edit) if "tasks" not in edit else {
        k: v for k, v in heft_schedule.items() if k != "tasks"}  # fmt: skip
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    status, out, err = run(capsys, "validate", EXAMPLE, str(path))
    assert status == expected_status, (out, err)
    if status == 2:
        assert out == "" and err == f"exactsched: error: {expected}\n"
        return
    assert err == ""
    lines = out.splitlines()
    if status == 0:
        assert lines == [f"{path}: valid schedule, makespan 80"]
        return
    assert lines == [f"{path}: invalid schedule, {len(expected)} violation(s):"] + [
        f"  - {v}" for v in expected
    ]
    status, out, _ = run(capsys, "validate", EXAMPLE, str(path), "--json")
    assert status == 1 and json.loads(out)["violations"] == expected
    # The API says the same, from the document and from the file.
    assert validate(EXAMPLE, doc) == expected == validate(EXAMPLE, path)
