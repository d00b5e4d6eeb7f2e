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
        'digraph { "\u00b2" [Weight=1]; "\u00b3" [Weight=2]; "\u00b2" -> "\u00b3" [Weight=1]; }\n'
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


def test_dev_stdout_redirected_to_a_file_keeps_the_file_whole(tmp_path):
    """A regression audit: opened anew, /dev/stdout truncated the shell's file and the
    summary was written over the JSON; appending (>>) erased what the file held."""
    out = tmp_path / "solve.txt"
    with open(out, "w") as fh:
        done = subprocess.run(
            [sys.executable, "-m", "exactsched", "solve", "examples/topcuoglu2002.json",
             "-m", "heft", "-o", "/dev/stdout"],
            stdout=fh, stderr=subprocess.PIPE, text=True, check=False,
        )  # fmt: skip
    assert done.returncode == 0 and json.loads(out.read_text())["makespan"] == 80
    assert done.stderr.startswith("method      heft")  # the summary beside it
    log = tmp_path / "log.txt"
    log.write_text("EARLIER LINE\n")
    with open(log, "a") as fh:
        done = subprocess.run(
            [sys.executable, "-m", "exactsched", "generate", "random", "--tasks", "4",
             "--platform", "fully-connected:2", "-o", "/dev/stdout"],
            stdout=fh, stderr=subprocess.PIPE, text=True, check=False,
        )  # fmt: skip
    text = log.read_text()
    assert done.returncode == 0 and text.startswith("EARLIER LINE\n{")
    assert json.loads(text.removeprefix("EARLIER LINE\n"))["format"] == "exactsched/instance@1"


def test_generate_stg_dummy_edges_carry_nothing_even_alone(capsys, tmp_path):
    """Every edge touches a dummy: scaling had no other data and made them ones."""
    stg = tmp_path / "two.stg"
    stg.write_text("2\n0 0 0\n1 3 1 0\n2 4 1 0\n3 0 2 1 2\n")
    out = tmp_path / "g.json"
    for extra in ([], ["--integral", "--ccr", "0:10"]):
        status, _, err = run(capsys, "generate", "stg", str(stg), "--platform",
                             "fully-connected:2", "-o", str(out), *extra)  # fmt: skip
        assert status == 0, err
        assert all(e["data"] == 0 for e in json.loads(out.read_text())["edges"])
