"""An outside audit of topologies, workloads and converters (session 11): its defects.

DOT names of non-ASCII digits crashed the reader; a carriage return in an id came
back as a newline; ``--ccr 0:10`` (the HOFT interval the help names) was refused;
``--drop-dummies`` dropped tasks that were no dummies; ``generate stg`` weighted the
dummies; ``-o /dev/stdout`` failed on a pipe; ``--integral`` kept a fractional
latency; ``info`` printed ``None``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import exactsched
from exactsched.cli import main
from exactsched.workloads.dot import read_dot, write_dot

DATA = Path(__file__).parent / "data" / "workloads-audit"
STG = Path(__file__).parent / "data" / "stg" / "50" / "rand0000.stg"


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_dot_names_of_unicode_digits_read_back():
    text = (
        'digraph { "\u00b2" [Weight=1]; "\u00b3" [Weight=2]; '
        '"\u00b2" -> "\u00b3" [Weight=1]; }\n'
    )
    problem = read_dot(text, platform="fully-connected:2")
    assert problem.task_ids == ("\u00b2", "\u00b3")


def test_a_carriage_return_in_an_id_survives_dot(tmp_path):
    problem = exactsched.load_instance(DATA / "cr_names.json")
    path = tmp_path / "cr.dot"
    write_dot(problem, path)
    back = read_dot(path, platform="fully-connected:2")
    assert sorted(back.task_ids) == sorted(problem.task_ids)
    assert back.n_tasks == 3 and "x\ry" in back.task_ids


def test_ccr_interval_may_start_at_zero(capsys, tmp_path):
    out = tmp_path / "g.json"
    status, _, err = run(capsys, "generate", "random", "--tasks", "12", "--platform",
                         "mesh:2x2", "--ccr", "0:10", "--seed", "5", "-o", str(out))  # fmt: skip
    assert status == 0, err
    for bad in ("0", "0:0", "-1:2", "3:1"):
        status, _, err = run(capsys, "generate", "random", "--tasks", "12", "--platform",
                             "mesh:2x2", "--ccr", bad, "-o", str(out))  # fmt: skip
        assert status == 2 and err.count("\n") == 1 and "--ccr" in err


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("dummycost.stg", "task 0 costs 5 (a dummy entry costs 0)"),
        ("mid.stg", "task 0 has a predecessor (task 2)"),
    ],
)
def test_drop_dummies_refuses_tasks_that_are_no_dummies(capsys, tmp_path, name, message):
    target = str(tmp_path / "x.json")
    status, out, err = run(capsys, "convert", str(DATA / name), "--platform",
                           "fully-connected:2", "--drop-dummies", "-o", target)  # fmt: skip
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"cannot drop the dummies: {message}" in err
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("platform", ["single-gpu", "mesh:2x2"])
def test_generate_stg_keeps_the_dummies_dummies(capsys, tmp_path, platform):
    out = tmp_path / "g.json"
    status, _, err = run(capsys, "generate", "stg", str(STG), "--platform", platform,
                         "--ccr", "2", "--seed", "1", "-o", str(out))  # fmt: skip
    assert status == 0, err
    problem = exactsched.load_instance(out)
    first, last = problem.task_ids[0], problem.task_ids[-1]
    assert (problem.cost[[0, -1]] == 0).all()
    doc = json.loads(out.read_text())
    ends = {first, last}
    dummy_edges = [e for e in doc["edges"] if ends & {e["src"], e["dst"]}]
    assert dummy_edges and all(e["data"] == 0 for e in dummy_edges)
    assert problem.ccr() == pytest.approx(2.0, rel=1e-6)  # the target, zeros included


def test_dev_stdout_on_a_pipe_gets_the_json_and_the_line_goes_to_stderr():
    done = subprocess.run(
        [sys.executable, "-m", "exactsched", "convert", str(DATA / "het.json"),
         "-o", "/dev/stdout"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["format"] == "exactsched/instance@1"
    assert done.stderr.startswith("/dev/stdout: json (")


def test_integral_refuses_a_fractional_latency(capsys, tmp_path):
    platform = tmp_path / "lat.json"
    platform.write_text(json.dumps({
        "processors": [{"id": "c0", "type": "cpu"}, {"id": "g0", "type": "gpu"}],
        "network": {"topology": "fully-connected", "latency": 0.5},
    }))  # fmt: skip
    status, out, err = run(capsys, "generate", "cholesky", "--tiles", "2", "--platform",
                           str(platform), "--rate", "cpu=67200", "--rate", "gpu=7.8e6",
                           "--integral", "-o", str(tmp_path / "c.json"))  # fmt: skip
    assert status == 2 and err.count("\n") == 1 and "latency 0.5 is not an integer" in err


def test_info_says_why_there_is_no_serial_time(capsys):
    status, out, _ = run(capsys, "info", str(DATA / "het.json"))
    assert status == 0
    assert "min serial time n/a: no processor may run every task" in out and "None" not in out
