"""The command line: info, validate, solve, methods (in-process and subprocess).

``compare``, ``results`` and ``gantt`` are tested in tests/test_compare.py.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from exactsched import Schedule, load_instance, validate
from exactsched.cli import main

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "topcuoglu2002.json")


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_info_human_and_json(capsys):
    status, out, _ = run(capsys, "info", EXAMPLE)
    assert status == 0
    assert "tasks           10 (15 edges" in out
    status, out, _ = run(capsys, "info", EXAMPLE, "--json")
    doc = json.loads(out)
    assert doc["tasks"] == 10 and doc["processors"] == 3
    assert doc["topology"] == "fully-connected" and doc["diameter"] == 1
    assert doc["minimal_serial_time"] == 127
    assert doc["lower_bound"] <= 80


def test_validate_instance_only(capsys):
    status, out, _ = run(capsys, "validate", EXAMPLE)
    assert status == 0 and "valid instance" in out


def test_solve_heuristic_json_validates(capsys, tmp_path):
    out_file = tmp_path / "s.json"
    status, out, _ = run(
        capsys, "solve", EXAMPLE, "--method", "heft", "--json", "--output", str(out_file)
    )
    assert status == 0
    doc = json.loads(out)
    assert doc["format"] == "exactsched/schedule@1"
    assert doc["method"] == "heft" and doc["status"] == "feasible"
    assert doc["makespan"] == 80
    assert {"lower_bound", "gap", "seconds", "tasks"} <= set(doc)
    problem = load_instance(EXAMPLE)
    assert validate(problem, Schedule.from_json(doc)) == []
    assert json.loads(out_file.read_text())["makespan"] == 80
    status, out, _ = run(capsys, "validate", EXAMPLE, str(out_file))
    assert status == 0 and "valid schedule, makespan 80" in out


def test_solve_human_output_has_gantt(capsys):
    status, out, _ = run(capsys, "solve", EXAMPLE, "-m", "heft")
    assert status == 0
    assert "makespan    80" in out and "p1 |" in out


def test_solve_exact_default_proves_optimum(capsys):
    status, out, _ = run(capsys, "solve", EXAMPLE, "--json", "--workers", "1", "-t", "30")
    doc = json.loads(out)
    assert status == 0 and doc["method"] == "cpsat"
    assert doc["status"] == "optimal" and doc["gap"] == 0
    assert doc["lower_bound"] == doc["makespan"] <= 80


def test_invalid_schedule_exit_1(capsys, tmp_path):
    bad = {
        "format": "exactsched/schedule@1",
        "tasks": [
            {"id": f"n{i}", "processor": "p1", "start": 0, "finish": 1} for i in range(1, 11)
        ],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    status, out, _ = run(capsys, "validate", EXAMPLE, str(path))
    assert status == 1 and "invalid schedule" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve", EXAMPLE, "--method", "nope"], "unknown method 'nope'"),
        (["solve", EXAMPLE, "--method", "heft", "-o", "bogus=1"], "option 'bogus'"),
        (["solve", EXAMPLE, "--method", "heft", "-o", "novalue"], "expected key=value"),
        (["info", "/nonexistent/x.json"], "cannot read file"),
    ],
)
def test_errors_exit_2_one_line(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_usage_error_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["solve"])
    assert exc.value.code == 2


def test_methods_listing(capsys):
    status, out, _ = run(capsys, "methods", "--json")
    methods = json.loads(out)
    names = {m["name"] for m in methods}
    assert {"cpsat", "heft"} <= names
    for m in methods:
        assert m["kind"] in ("exact", "heuristic")
        assert m["description"] and m["source"]


def test_subprocess_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "exactsched", "info", EXAMPLE, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tasks"] == 10
    proc = subprocess.run(
        [sys.executable, "-m", "exactsched", "validate", "/nonexistent.json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
