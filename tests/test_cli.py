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
        (["solve", EXAMPLE, "--method", "heft", "-O", "bogus=1"], "option 'bogus'"),
        (["solve", EXAMPLE, "--method", "heft", "-O", "novalue"], "expected key=value"),
        (["info", "/nonexistent/x.json"], "cannot read file"),
    ],
)
def test_errors_exit_2_one_line(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_usage_error_exit_2(capsys):
    # main() returns argparse's status instead of raising SystemExit.
    assert main(["solve"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


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


# ---- issue 8: every bad input exits 2 with one line, never a traceback ---------------------

TINY = {
    "format": "exactsched/instance@1",
    "platform": {"processors": [{"id": "p"}, {"id": "q"}]},
    "tasks": [{"id": "a", "cost": 2}, {"id": "b", "cost": 3}],
    "edges": [{"src": "a", "dst": "b", "data": 1}],
}


def write(tmp_path, name, document):
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def fails_one_line(capsys, argv, message, json_flag=True):
    """Exit 2, one line on stderr holding ``message``, nothing on stdout; also with --json."""
    runs = [argv, [*argv, "--json"]] if json_flag else [argv]
    for args in runs:
        try:
            status = main(args)
        except SystemExit as exc:  # argparse: usage errors
            status = exc.code
        out, err = capsys.readouterr()
        assert status == 2, (args, out, err)
        assert out == "", out
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert message in err, err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--seed", "-1"], "argument --seed: expected an integer from 0 to 2147483647, got '-1'"),
        (["--seed", "2147483648"], "argument --seed: expected an integer from 0 to 2147483647"),
        (["-w", "100000"], "argument --workers/-w: expected an integer from 1 to 256"),
        (["-w", "0"], "argument --workers/-w: expected an integer from 1 to 256"),
        (["-t", "nan"], "argument --time-limit/-t: expected a finite number of seconds >= 0"),
        (["-t", "-1"], "argument --time-limit/-t: expected a finite number of seconds >= 0"),
        (["-t", "inf"], "argument --time-limit/-t: expected a finite number of seconds >= 0"),
    ],
)
def test_common_arguments_are_checked(capsys, flags, message):
    fails_one_line(capsys, ["solve", EXAMPLE, *flags], message)


@pytest.mark.parametrize(
    "option, message",
    [
        (
            "time_limit=5",
            "option time_limit: a common argument, not a method option; use --time-limit",
        ),
        ("seed=3", "option seed: a common argument, not a method option; use --seed"),
        ("workers=2", "option workers: a common argument, not a method option; use --workers"),
        ("method=heft", "option method: a common argument, not a method option; use --method"),
        ("problem=x", "option problem: a common argument, not a method option"),
        ("check=false", "option check: a common argument, not a method option"),
        ("callback=1", "option callback: holds a Python object; not settable from the CLI"),
        ("parameters=5", "option parameters: expected a mapping or none, got 5"),
        ("relocate=-1", "option relocate: expected an integer >= 0 or 'auto', got -1"),
        ("relocate=2.5", "option relocate: expected an integer >= 0 or 'auto', got 2.5"),
        ("path_cuts=maybe", "option path_cuts: expected true, false or 'auto', got 'maybe'"),
        ("hint_heuristics=nosuch", "option hint_heuristics: expected a list of registered heur"),
        ("comm=wires", "option comm: expected 'levels', 'dest' or 'pairs', got 'wires'"),
        ("relative_gap=nan", "option relative_gap: expected a number >= 0 and < 1, got 'nan'"),
        ("log=1", "option log: expected true or false, got 1"),
    ],
)
def test_cpsat_options_are_typed(capsys, option, message):
    fails_one_line(capsys, ["solve", EXAMPLE, "-O", option], message)


@pytest.mark.parametrize(
    "method, option, message",
    [
        ("heft", "insertion=no", "option insertion: expected true or false, got 'no'"),
        ("heft", "ranking=nosuch", "ranking"),
        ("heft-nc", "x=inf", "option x: expected a finite number >= 0, got 'inf'"),
        ("bruteforce", "max_tasks=-3", "option max_tasks: expected an integer >= 0, got -3"),
        ("milp", "relative_gap=x", "option relative_gap: expected a number >= 0 and < 1, got 'x'"),
    ],
)
def test_options_of_other_methods_are_typed(capsys, method, option, message):
    fails_one_line(capsys, ["solve", EXAMPLE, "-m", method, "-O", option], message)


def test_python_api_checks_options_too():
    from exactsched import MethodError, solve

    problem = load_instance(EXAMPLE)
    with pytest.raises(MethodError, match=r"^option insertion: expected true or false, got 'no'$"):
        solve(problem, "heft", insertion="no")
    with pytest.raises(MethodError, match=r"^seed: expected an integer from 0 to 2147483647"):
        solve(problem, "heft", seed=-1)
    with pytest.raises(MethodError, match=r"^time_limit: expected a finite number"):
        solve(problem, "cpsat", time_limit=float("nan"))
    with pytest.raises(MethodError, match=r"^option hint_heuristics: expected a list"):
        solve(problem, "cpsat", hint_heuristics=["nosuch"])
    # A path and a document work as well as a Problem.
    assert solve(EXAMPLE, "heft").makespan == 80
    assert solve(problem.to_json(), "heft").makespan == 80


def test_hint_heuristics_takes_a_comma_list(capsys):
    status, out, _ = run(
        capsys, "solve", EXAMPLE, "-O", "hint_heuristics=heft,peft", "-w", "1", "--json"
    )
    assert status == 0 and json.loads(out)["status"] == "optimal"


def test_output_into_a_missing_folder_is_refused_before_solving(capsys, tmp_path):
    target = str(tmp_path / "missing" / "out.json")
    fails_one_line(capsys, ["solve", EXAMPLE, "-m", "heft", "--output", target], "does not exist")
    fails_one_line(
        capsys, ["solve", EXAMPLE, "-m", "heft", "--output", str(tmp_path)], "is a folder"
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("json_flag", [False, True])
def test_output_on_a_disk_that_fills_during_the_run_still_prints_the_result(
    capsys, monkeypatch, json_flag
):
    # The probe before the run passes (the disk had room then); the write fails.
    monkeypatch.setattr("exactsched.cli._probe_write", lambda *args: None)
    argv = ["solve", EXAMPLE, "-m", "heft", "--output", "/dev/full"]
    status, out, err = run(capsys, *argv, *(["--json"] if json_flag else []))
    assert status == 2
    assert err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err
    if json_flag:
        assert json.loads(out)["makespan"] == 80
    else:
        assert "makespan    80" in out


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_on_a_full_disk_is_refused_before_the_run(capsys):
    status, out, err = run(capsys, "solve", EXAMPLE, "-m", "cpsat", "--output", "/dev/full")
    assert status == 2 and out == ""
    assert err == "exactsched: error: --output /dev/full: cannot write: No space left on device\n"


def test_lone_surrogate_in_a_task_id(capsys, tmp_path):
    path = write(tmp_path, "s.json", json.dumps(TINY).replace('"id": "a"', '"id": "a\\ud800"'))
    message = "tasks[0].id: not valid Unicode text (a lone surrogate \\ud800 at position 1)"
    fails_one_line(capsys, ["info", path], message)
    fails_one_line(capsys, ["solve", path, "-m", "heft"], message)


def test_costs_beyond_the_float_range(capsys, tmp_path):
    doc = {**TINY, "tasks": [{"id": "a", "cost": 1e308}, {"id": "b", "cost": 1e308}]}
    path = write(tmp_path, "big.json", doc)
    message = "tasks[1].cost: the costs up to task 'b' add up to more than the largest float"
    fails_one_line(capsys, ["info", path], message)
    # One such cost is fine: info reports it.
    doc = {**TINY, "tasks": [{"id": "a", "cost": 1e308}, {"id": "b", "cost": 1e300}]}
    status, out, _ = run(capsys, "info", write(tmp_path, "one.json", doc), "--json")
    info = json.loads(out)
    assert status == 0 and info["lower_bound"] >= 1e308 and 0 <= info["ccr"] < 1e-300


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_info_dev_zero(capsys):
    fails_one_line(capsys, ["info", "/dev/zero"], "/dev/zero: unknown file type")


def test_solver_log_stays_off_stdout(capfd):
    # HiGHS prints its log from C on descriptor 1: --json output must stay one document.
    status = main(["solve", EXAMPLE, "-m", "milp", "-O", "log=true", "--json", "-w", "1"])
    out, err = capfd.readouterr()
    assert status == 0
    assert json.loads(out)["status"] == "optimal"
    assert "HiGHS" in err or "MIP" in err


def test_solve_help_shows_the_default_time_limit(capsys):
    assert main(["solve", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(default 60)" in out


def test_methods_json_says_what_each_option_accepts(capsys):
    status, out, _ = run(capsys, "methods", "--json")
    methods = {m["name"]: m for m in json.loads(out)}
    accepts = methods["cpsat"]["accepts"]
    assert accepts["path_cuts"] == "true, false or 'auto'"
    assert accepts["relocate"] == "an integer >= 0 or 'auto'"
    assert "time_limit" not in accepts and "seed" not in accepts
    assert methods["heft"]["accepts"]["insertion"] == "true or false"


IDENTICAL = {"bl-est", "bl-est-part", "bl-est-busy", "etf", "etf-part", "etf-busy", "lmt", "olb"}


def test_methods_show_which_assume_identical_processors(capsys):
    status, out, _ = run(capsys, "methods", "--json")
    flagged = {m["name"] for m in json.loads(out) if m["assumes_identical_processors"]}
    assert status == 0 and flagged == IDENTICAL
    status, out, _ = run(capsys, "methods")
    blocks = out.split("\n")
    marked = {
        blocks[i - 2].split()[0] for i, line in enumerate(blocks) if "assumes identical" in line
    }
    assert marked == IDENTICAL


def test_gantt_keeps_one_line_per_processor_with_odd_ids(capsys, tmp_path):
    # A task id holding a newline (valid JSON text) is escaped in the chart.
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p\n1"}]},
        "tasks": [{"id": "a\nb", "cost": 4}],
    }
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(doc))
    assert main(["solve", str(path), "-m", "heft"]) == 0
    out = capsys.readouterr().out
    chart = [line for line in out.splitlines() if "|" in line]
    assert len(chart) == 1 and "a\\nb" in chart[0] and chart[0].startswith("p\\n1 |")


def test_info_says_why_the_path_load_bound_is_missing(capsys, tmp_path):
    # 6 unrelated processors are 6 classes: the LP is skipped, and info says so
    # instead of printing a bound of 0.
    from exactsched.generators import random_instance

    path = tmp_path / "r.json"
    path.write_text(json.dumps(random_instance(12, 6, topology="mesh", seed=1).to_json()))
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "path_load n/a: 6 processor classes (runs for 2 to 4)" in out
    assert main(["info", EXAMPLE]) == 0
    assert "path_load 57.5766" in capsys.readouterr().out


@pytest.mark.parametrize(
    "claims, message",
    [
        ({"lower_bound": 90}, "lower_bound: 90 is above the schedule's own makespan 80"),
        ({"status": "bogus"}, "status: 'bogus' is not one of optimal, feasible"),
    ],
)
def test_validate_refutes_claims_a_schedule_file_cannot_hold(capsys, tmp_path, claims, message):
    """A bound above the makespan, an unknown status: both passed as valid (CLI audit)."""
    status, out, _ = run(capsys, "solve", str(EXAMPLE), "-m", "heft", "--json")
    doc = {**json.loads(out), **claims}
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(doc))
    status, out, _ = run(capsys, "validate", str(EXAMPLE), str(path))
    assert status == 1 and message in out
    doc.pop(next(iter(claims)))
    path.write_text(json.dumps(doc))
    assert run(capsys, "validate", str(EXAMPLE), str(path))[0] == 0


def test_highs_debug_lines_need_the_log(capfd):
    # HiGHS's MIP solver prints "HighsMipSolverData::transformNewIntegerFeasibleSolution
    # tmpSolver.run();" even with output off (7 times in 4 s on this instance).
    path = Path(__file__).parent / "data" / "magnitude" / "highs-small-57.json"
    status = main(["solve", str(path), "-m", "milp", "-t", "4", "-w", "1", "-q", "--json"])
    out, err = capfd.readouterr()
    assert status == 0 and json.loads(out)["makespan"] >= 57
    assert "HighsMipSolverData" not in err


def test_info_shows_a_small_ccr_with_its_digits(capsys, tmp_path):
    # An outside audit: the CCR was rounded to 6 places, so 1e-9 read "0".
    doc = {**TINY, "tasks": [{"id": "a", "cost": 1e9}, {"id": "b", "cost": 1e9}]}
    doc["edges"] = [{"src": "a", "dst": "b", "data": 2}]
    path = write(tmp_path, "small.json", doc)
    status, out, _ = run(capsys, "info", path, "--json")
    assert status == 0 and json.loads(out)["ccr"] == pytest.approx(2e-9)
    status, out, _ = run(capsys, "info", path)
    assert "CCR             2e-09" in out


def test_convert_to_dot_warns_of_integers_no_float_holds(capsys, tmp_path):
    doc = {**TINY, "tasks": [{"id": "a", "cost": 2**53 + 1}, {"id": "b", "cost": 1}]}
    doc["edges"] = [{"src": "a", "dst": "b", "data": 2**53 + 1}]
    path = write(tmp_path, "big.json", doc)
    status, _, err = run(capsys, "convert", path, "-o", str(tmp_path / "big.dot"))
    assert status == 0
    assert "task 'a' costs 9007199254740993, written 9007199254740992" in err
    assert "edge 'a' -> 'b' carries 9007199254740993, written 9007199254740992" in err


def test_convert_to_dot_refuses_a_nul_in_an_id(capsys, tmp_path):
    # An outside audit: the DOT written was one its own reader refuses.
    doc = {**TINY, "tasks": [{"id": "a\0b", "cost": 2}, {"id": "b", "cost": 3}], "edges": []}
    path = write(tmp_path, "nul.json", doc)
    status, _, err = run(capsys, "convert", path, "-o", str(tmp_path / "nul.dot"))
    assert status == 2 and err.count("\n") == 1
    assert "tasks[0].id: 'a\\x00b' holds a NUL, which DOT cannot hold" in err
    assert not (tmp_path / "nul.dot").exists()


def test_measured_times_on_another_node_are_named(capsys, tmp_path):
    # An outside audit: Skylake/V100 times were written onto titan without a word.
    status, _, err = run(capsys, "generate", "cholesky", "--tiles", "2", "--measured",
                         "--platform", "titan", "-o", str(tmp_path / "t.json"))  # fmt: skip
    assert status == 0 and "measured on a Skylake core and a V100" in err
    status, _, err = run(capsys, "generate", "cholesky", "--tiles", "2", "--measured",
                         "--platform", "single-gpu", "-o", str(tmp_path / "s.json"))  # fmt: skip
    assert status == 0 and "warning" not in err


def test_measured_times_on_a_hoft_node_spelt_otherwise_are_not_warned(capsys, tmp_path):
    (tmp_path / "p.json").write_text('{"preset": "single-gpu"}')
    first = str(tmp_path / "a.json")
    for platform, out in ((str(tmp_path / "p.json"), first), (first, str(tmp_path / "b.json"))):
        status, _, err = run(capsys, "generate", "cholesky", "--tiles", "2", "--measured",
                             "--platform", platform, "-o", out)  # fmt: skip
        assert status == 0 and "warning" not in err, err
