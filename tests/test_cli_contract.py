"""The command-line contract, table-driven (issue 16, items 8 and 12).

Every subcommand against a table of hostile inputs: bad paths (missing, a
folder, an empty file, a binary file), a full disk (``/dev/full`` as an output
file and as standard output), bad numbers (negative, NaN, huge, non-numeric)
and bad names (``$``, a backslash, Unicode, empty). Each case must end with
exit status 2 (1 for ``validate``'s invalid schedule), exactly one line on
standard error and no traceback. Most cases run in-process; a small sample
runs the installed entry point in a subprocess.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from exactsched import load_instance, solve
from exactsched.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "topcuoglu2002.json")
WFCOMMONS = str(ROOT / "tests" / "data" / "wfcommons" / "blast-small.json")
FULL = Path("/dev/full")

needs_dev_full = pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")

COMMANDS = (
    "info",
    "validate",
    "solve",
    "methods",
    "compare",
    "results",
    "gantt",
    "orderings",
    "generate",
    "convert",
)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Good and bad files shared by every case: paths by role."""
    tmp = tmp_path_factory.mktemp("contract")
    (tmp / "folder").mkdir()
    (tmp / "empty.json").write_bytes(b"")
    (tmp / "binary.json").write_bytes(bytes(range(256)) * 4)
    os.mkfifo(tmp / "fifo.json")  # a named pipe no one writes to: reading it would block
    problem = load_instance(EXAMPLE)
    schedule = solve(problem, "heft").schedule
    (tmp / "heft.json").write_text(json.dumps(schedule.to_json()))
    # An invalid schedule: n2 moved to time 0, before its predecessor n1 finishes.
    bad = schedule.to_json()
    for entry in bad["tasks"]:
        if entry["id"] == "n2":
            entry["finish"] -= entry["start"]
            entry["start"] = 0
    (tmp / "invalid.json").write_text(json.dumps(bad))
    db = tmp / "study.db"
    status = main(["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "--db", str(db),
                   "-q", "-j", "1"])  # fmt: skip
    assert status == 0
    return {
        "tmp": tmp,
        "missing": str(tmp / "missing.json"),
        "folder": str(tmp / "folder"),
        "empty": str(tmp / "empty.json"),
        "binary": str(tmp / "binary.json"),
        "fifo": str(tmp / "fifo.json"),
        "schedule": str(tmp / "heft.json"),
        "invalid": str(tmp / "invalid.json"),
        "db": str(db),
        "out": str(tmp / "out"),
    }


def run(capsys, argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line(status, err, expected=2):
    assert "Traceback" not in err, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert status == expected, err


# ---- bad paths ------------------------------------------------------------------------

# {bad} is the bad path; other {keys} are good files of the fixture.
PATH_CASES = {
    "info": [["info", "{bad}"], ["info", EXAMPLE, "--platform", "{bad}"]],
    "validate": [["validate", "{bad}"], ["validate", EXAMPLE, "{bad}"]],
    "solve": [["solve", "{bad}", "-m", "heft"], ["solve", EXAMPLE, "-m", "heft", "--platform",
                                                  "{bad}"]],  # fmt: skip
    "compare": [["compare", "{bad}", "--exact", "none", "--methods", "heft", "-q"]],
    "results": [["results", "{bad}"], ["results", "{bad}", "--json"]],
    "gantt": [["gantt", "{bad}", EXAMPLE, "-o", "{out}.png"],
              ["gantt", "{schedule}", "{bad}", "-o", "{out}.png"],
              ["gantt", "--db", "{bad}", EXAMPLE, "-m", "heft", "-o", "{out}.png"]],
    "orderings": [["orderings", "{bad}", "--count"],
                  ["orderings", EXAMPLE, "--best", "makespan", "--mapping", "{bad}"]],
    "generate": [["generate", "stg", "{bad}", "-o", "{out}.json"],
                 ["generate", "random", "--tasks", "5", "--platform", "{bad}", "-o",
                  "{out}.json"]],
    "convert": [["convert", "{bad}", "-o", "{out}.json", "--platform", "single-gpu"]],
}  # fmt: skip
BAD_PATHS = ("missing", "folder", "empty", "binary", "fifo")


def _fill(argv, files, bad):
    return [a.format(bad=files[bad] if bad else "", **files) for a in argv]


@pytest.mark.parametrize("bad", BAD_PATHS)
@pytest.mark.parametrize(
    "argv",
    [argv for command in PATH_CASES for argv in PATH_CASES[command]],
    ids=lambda a: "-".join(x.strip("{}-") for x in a[:3]),
)
def test_bad_paths(capsys, files, argv, bad):
    status, _, err = run(capsys, _fill(argv, files, bad))
    assert_one_line(status, err)


# ---- outputs: missing folder, a folder, empty, a full disk -------------------------------

OUTPUT_CASES = [
    ["solve", EXAMPLE, "-m", "heft", "--output", "{target}"],
    ["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "-q", "--report", "{target}"],
    ["results", "{db}", "--csv", "-o", "{target}"],
    ["results", "{db}", "--json", "--output", "{target}"],
    ["results", "{db}", "--report", "{target}"],
    ["orderings", EXAMPLE, "--best", "makespan", "--promote-isolation", "{target}"],
    ["generate", "cholesky", "--tiles", "2", "-o", "{target}"],
    ["convert", EXAMPLE, "-o", "{target}"],
    ["gantt", "{schedule}", EXAMPLE, "-o", "{target}"],
]
TARGETS = {
    "missing-folder": "{tmp}/no/such/folder/x.json",
    "folder": "{folder}",
    "empty": "",
    "full-disk": "/dev/full",
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("argv", OUTPUT_CASES, ids=lambda a: "-".join(a[:1] + a[-2:-1]))
def test_bad_outputs(capsys, files, argv, target):
    if target == "full-disk" and not FULL.exists():
        pytest.skip("needs /dev/full")
    path = TARGETS[target].format(**files)
    filled = [path if a == "{target}" else a.format(**files) for a in argv]
    status, _, err = run(capsys, filled)
    assert_one_line(status, err)
    assert target != "full-disk" or "No space left" in err or "expected a" in err, err


@needs_dev_full
@pytest.mark.parametrize("option", ["--report", "--plots"])
def test_an_output_that_cannot_be_written_stops_a_study_before_it_runs(capsys, tmp_path, option):
    # An outside audit: the study ran to the end and only then failed to write.
    target = "/dev/full" if option == "--report" else "/proc/exactsched-plots"
    db = tmp_path / "s.sqlite"
    argv = ["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "-q"]
    status, _, err = run(capsys, [*argv, "--db", str(db), option, target])
    assert_one_line(status, err)
    assert f"{option} {target}: cannot write" in err
    assert not db.exists()  # nothing ran


def test_an_existing_plots_folder_on_a_full_disk_stops_the_study_first(
    capsys, monkeypatch, tmp_path
):
    # A review of the probe: an existing --plots folder was never probed.
    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    (tmp_path / "plots").mkdir()
    db = tmp_path / "s.sqlite"
    argv = ["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "-q"]
    status, _, err = run(capsys, [*argv, "--db", str(db), "--plots", str(tmp_path / "plots")])
    assert_one_line(status, err)
    assert "cannot write: No space left on device" in err
    assert not db.exists()


@pytest.mark.parametrize("target", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_standard_output_by_name_into_a_file_is_not_probed(tmp_path, target):
    # A review of the probe: it made a file in /dev or /proc/self/fd, and failed.
    if not os.path.exists(target):
        pytest.skip(f"no {target}")
    out = tmp_path / "out.json"
    with open(out, "w") as fh:
        done = subprocess.run(
            [sys.executable, "-m", "exactsched", "solve", EXAMPLE, "-m", "heft", "--json",
             "--output", target],
            stdout=fh, stderr=subprocess.PIPE, text=True, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text().split("\n}\n")[0] + "\n}")["makespan"] == 80


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_a_writable_file_in_a_read_only_folder_is_written_in_place(capsys, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    target = folder / "out.json"
    target.write_text("{}")
    folder.chmod(0o555)
    try:
        status, _, err = run(capsys, ["solve", EXAMPLE, "-m", "heft", "--output", str(target)])
        assert status == 0, err
        assert json.loads(target.read_text())["makespan"] == 80
    finally:
        folder.chmod(0o755)


PLOTS_CASES = [
    ["results", "{db}", "--plots", "{target}"],
    ["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "-q", "--plots", "{target}"],
]


@pytest.mark.parametrize("target", ["{db}", "", "{tmp}/no/such/folder/plots"])
@pytest.mark.parametrize("argv", PLOTS_CASES, ids=lambda a: a[0])
def test_bad_plot_folders(capsys, files, argv, target):
    filled = [target.format(**files) if a == "{target}" else a.format(**files) for a in argv]
    status, _, err = run(capsys, filled)
    assert_one_line(status, err)
    assert "--plots" in err


class _FullStdout(io.TextIOBase):
    """Standard output on a full disk: every write fails as on /dev/full."""

    def writable(self):
        return True

    def write(self, text):
        raise OSError(errno.ENOSPC, "No space left on device")


STDOUT_CASES = [
    ["info", EXAMPLE],
    ["info", EXAMPLE, "--json"],
    ["validate", EXAMPLE, "{schedule}"],
    ["solve", EXAMPLE, "-m", "heft"],
    ["solve", EXAMPLE, "-m", "heft", "--json"],
    ["methods"],
    ["methods", "--json"],
    ["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "--json"],
    ["results", "{db}"],
    ["results", "{db}", "--csv"],
    ["gantt", "{schedule}", EXAMPLE, "-o", "{out}.png"],
    ["orderings", EXAMPLE, "--count", "--json"],
    ["generate", "random", "--tasks", "5", "-o", "{out}.json"],
    ["convert", EXAMPLE, "-o", "{out}.dot"],
    ["--help"],
    ["solve", "--help"],
]


@pytest.mark.parametrize("argv", STDOUT_CASES, ids=lambda a: "-".join(a[:1] + a[-1:]))
def test_stdout_on_a_full_disk(capsys, monkeypatch, files, argv):
    monkeypatch.setattr(sys, "stdout", _FullStdout())
    status = main([a.format(**files) for a in argv])
    err = capsys.readouterr().err
    assert_one_line(status, err)
    assert "cannot write standard output: No space left on device" in err


# ---- bad numbers ------------------------------------------------------------------------

NEGATIVE, NAN, HUGE, TEXT = "-1", "nan", "1e400", "abc"
BIG_INT = "99999999999999999999"
GEN = ["generate", "random", "--tasks", "5", "-o", "{out}.json"]
TILED = ["generate", "cholesky", "--tiles", "2", "-o", "{out}.json"]

# (argv prefix, option, bad values): the option followed by each value must be refused.
NUMBER_CASES = [
    (["solve", EXAMPLE, "-m", "heft"], "--time-limit", (NEGATIVE, NAN, HUGE, TEXT)),
    (["solve", EXAMPLE, "-m", "heft"], "--workers", (NEGATIVE, NAN, HUGE, TEXT, BIG_INT)),
    (["solve", EXAMPLE, "-m", "heft"], "--seed", (NEGATIVE, NAN, HUGE, TEXT, BIG_INT)),
    (["solve", EXAMPLE, "-m", "cpsat"], "-O", ("relative_gap=-1", "relative_gap=nan",
                                               "relative_gap=1e400", "relative_gap=abc")),
    (["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "-q"], "--time-limit",
     (NEGATIVE, NAN, HUGE, TEXT)),
    (["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "-q"], "--jobs",
     (NEGATIVE, NAN, HUGE, TEXT, BIG_INT)),
    (["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "-q"], "--seed",
     (NEGATIVE, NAN, HUGE, TEXT, BIG_INT)),
    (GEN, "--seed", (NEGATIVE, NAN, HUGE, TEXT, BIG_INT)),
    (GEN, "--count", (NEGATIVE, NAN, HUGE, TEXT, BIG_INT, "0")),
    (["generate", "random", "-o", "{out}.json"], "--tasks", (NEGATIVE, NAN, HUGE, TEXT, BIG_INT,
                                                              "0")),
    (GEN, "--alpha", (NEGATIVE, NAN, HUGE, TEXT)),
    (GEN, "--out-degree", (NEGATIVE, NAN, HUGE, TEXT)),
    (GEN, "--beta", (NEGATIVE, NAN, HUGE, TEXT)),
    (GEN, "--w-dag", (NEGATIVE, NAN, HUGE, TEXT)),
    (GEN, "--ccr", (NEGATIVE, NAN, HUGE, TEXT, "0")),
    (GEN + ["--generator", "erdos-renyi"], "--p", (NEGATIVE, NAN, HUGE, TEXT)),
    (GEN + ["--generator", "layered"], "--layers", (NEGATIVE, NAN, HUGE, TEXT, "0")),
    (GEN + ["--generator", "daggen"], "--fat", (NEGATIVE, NAN, HUGE, TEXT)),
    (GEN + ["--generator", "daggen"], "--density", (NEGATIVE, NAN, HUGE, TEXT)),
    (GEN + ["--generator", "daggen"], "--regularity", (NEGATIVE, NAN, HUGE, TEXT)),
    (GEN + ["--generator", "daggen"], "--jump", (NEGATIVE, NAN, HUGE, TEXT, "0")),
    (["generate", "cholesky", "-o", "{out}.json"], "--tiles", (NEGATIVE, NAN, HUGE, TEXT,
                                                               BIG_INT, "0")),
    (TILED, "--tile-size", (NEGATIVE, NAN, HUGE, TEXT, BIG_INT, "0")),
    (TILED, "--precision", (NEGATIVE, NAN, HUGE, TEXT, BIG_INT, "0")),
    (TILED + ["--noise", "1"], "", (NEGATIVE, NAN, HUGE, TEXT)),  # --noise 1 X
    (TILED + ["--platform", "cpu-gpu:1+1", "--rate", "cpu=1"], "--rate",
     ("gpu=-1", "gpu=nan", "gpu=1e400", "gpu=abc")),
    (["convert", "{wf}", "-o", "{out}.json", "--platform", "single-gpu"], "--speed",
     ("cpu=-1", "cpu=nan", "cpu=1e400", "cpu=abc")),
    (["orderings", EXAMPLE, "--count"], "--time-limit", (NEGATIVE, NAN, HUGE, TEXT)),
    (["orderings", EXAMPLE, "--best", "makespan"], "--limit", (NEGATIVE, NAN, HUGE, TEXT)),
    (["orderings", EXAMPLE, "--best", "makespan", "--search"], "--cpsat-bound",
     (NEGATIVE, NAN, HUGE, TEXT)),
    (["info", EXAMPLE], "--platform", ("fully-connected:-1", "mesh:nanx2",
                                       "fully-connected:99999999999", "mesh:abc")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "value"),
    [(p + ([o] if o else []), v) for p, o, values in NUMBER_CASES for v in values],
    ids=lambda x: x if isinstance(x, str) else "-".join(x[:1] + x[-1:]),
)
def test_bad_numbers(capsys, files, argv, value):
    filled = [a.format(wf=WFCOMMONS, **files) for a in argv] + [value]
    status, _, err = run(capsys, filled)
    assert_one_line(status, err)


# ---- bad names --------------------------------------------------------------------------

NAMES = {"dollar": "$x$", "backslash": "a\\b", "unicode": "ü→\u2603", "empty": ""}
NAME_CASES = [
    ["solve", EXAMPLE, "--method", "{name}"],
    ["solve", EXAMPLE, "-m", "heft", "-O", "{name}=1"],
    ["info", EXAMPLE, "--platform", "{name}"],
    ["compare", EXAMPLE, "--exact", "none", "--methods", "{name}", "-q"],
    ["compare", EXAMPLE, "--exact", "{name}", "--methods", "none", "-q"],
    ["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "--dask", "{name}", "-q"],
    ["gantt", "--db", "{db}", "{name}", "-m", "heft", "-o", "{out}.png"],
    ["gantt", "--db", "{db}", EXAMPLE, "-m", "{name}", "-o", "{out}.png"],
    ["orderings", EXAMPLE, "--isl", "{name}"],
    ["generate", "{name}", "-o", "{out}.json"],
    ["generate", "random", "--tasks", "5", "--generator", "{name}", "-o", "{out}.json"],
    ["generate", "random", "--tasks", "5", "--rate", "{name}=1", "-o", "{out}.json"],
    ["convert", EXAMPLE, "-o", "{out}.json", "--to", "{name}"],
    ["results", "{name}"],
    ["methods", "{name}"],
    ["validate", EXAMPLE, "--platform", "{name}"],
]


@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES.keys())
@pytest.mark.parametrize("argv", NAME_CASES, ids=lambda a: "-".join(a[:1] + a[-2:-1]))
def test_bad_names(capsys, files, argv, name):
    filled = [a.replace("{name}", name).format(**files) for a in argv]
    status, _, err = run(capsys, filled)
    assert_one_line(status, err)


@pytest.mark.parametrize("name", ["$x$", "a\\b", "ü→\u2603", "a_{1}^2"])
def test_odd_names_inside_an_instance_work(capsys, files, name):
    # Legal names must not break a command: the instance name, a task and a processor.
    doc = json.loads(Path(EXAMPLE).read_text())
    doc["name"] = name
    doc["tasks"][0]["id"] = f"n1{name}"
    for edge in doc.get("edges", []):
        for end in ("src", "dst"):
            if edge[end] == "n1":
                edge[end] = f"n1{name}"
    path = files["tmp"] / "odd.json"
    path.write_text(json.dumps(doc))
    for argv in (["info", path], ["solve", path, "-m", "heft", "--output", files["out"] + ".s"],
                 ["gantt", files["out"] + ".s", path, "-o", files["out"] + ".png",
                  "--title", name]):  # fmt: skip
        status, _, err = run(capsys, argv)
        assert status == 0 and "Traceback" not in err, err


def test_invalid_schedule_exit_1(capsys, files):
    status, out, err = run(capsys, ["validate", EXAMPLE, files["invalid"]])
    assert status == 1 and "invalid schedule" in out and err == ""


def test_every_subcommand_is_in_the_tables():
    covered = {a[0] for argv_list in PATH_CASES.values() for a in argv_list}
    covered |= {a[0] for a in OUTPUT_CASES + STDOUT_CASES + NAME_CASES}
    covered |= {p[0] for p, _, _ in NUMBER_CASES}
    assert set(COMMANDS) <= covered


# ---- unexpected errors: one line, exit 3 --------------------------------------------------


def test_an_internal_error_is_one_line_exit_3(capsys, monkeypatch):
    from exactsched import cli

    def broken(args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setitem(cli._COMMANDS, "methods", broken)
    status, _, err = run(capsys, ["methods"])
    assert_one_line(status, err, expected=3)
    assert "internal error in `methods`: ZeroDivisionError: division by zero" in err


def test_memory_error_is_one_line_exit_2(capsys, monkeypatch):
    from exactsched import cli

    def greedy(args):
        raise MemoryError

    monkeypatch.setitem(cli._COMMANDS, "methods", greedy)
    status, _, err = run(capsys, ["methods"])
    assert_one_line(status, err)
    assert "methods: out of memory" in err


def test_json_is_strict(capsys, files):
    # Item 10: a zero-cost instance has an infinite CCR; JSON has no Infinity.
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p"}, {"id": "q"}]},
        "tasks": [{"id": "a", "cost": 0}, {"id": "b", "cost": 0}],
        "edges": [{"src": "a", "dst": "b", "data": 5}],
    }
    path = files["tmp"] / "zero.json"
    path.write_text(json.dumps(doc))
    status, out, err = run(capsys, ["info", path, "--json"])
    assert status == 0, err
    assert "Infinity" not in out and "NaN" not in out
    assert json.loads(out)["ccr"] is None


# ---- a subprocess sample: the installed entry point, real /dev/full ----------------------

SUBPROCESS_CASES = [
    (["info", EXAMPLE], True),
    (["methods", "--json"], True),
    (["generate", "cholesky", "--tiles", "99999999", "-o", "x.json"], False),
    (["info", EXAMPLE, "--platform", "fully-connected:99999999999"], False),
    (["generate", "random", "--tasks", "5", "--count", "99999999999", "-o", "d"], False),
]


@pytest.mark.parametrize(("argv", "stdout_full"), SUBPROCESS_CASES, ids=lambda x: str(x)[:30])
def test_subprocess_sample(tmp_path, argv, stdout_full):
    if stdout_full and not FULL.exists():
        pytest.skip("needs /dev/full")
    with open(FULL if stdout_full else os.devnull, "w") as out:
        proc = subprocess.run(
            [sys.executable, "-m", "exactsched", *argv],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
    assert_one_line(proc.returncode, proc.stderr)


# ---- item 6: absurd sizes are refused up front, with the size they would have -------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["generate", "cholesky", "--tiles", "99999999"],
         "generate cholesky --tiles 99999999: 166,666,666,666,666,650,000,000 tasks, more "
         "than the limit of 1,000,000 (exactsched.limits.MAX_TASKS)"),
        (["generate", "qr", "--tiles", "2000"], "generate qr --tiles 2000: 2,668,667,000 tasks"),
        (["generate", "lu", "--tiles", "200"], "generate lu --tiles 200: 2,686,700 tasks"),
        (["generate", "random", "--tasks", "5", "--count", "99999999999"],
         "argument --count: expected an integer from 1 to 100000"),
        (["generate", "random", "--tasks", "2000000"],
         "argument --tasks: expected an integer from 1 to 1000000"),
        (["generate", "random", "--tasks", "200000", "--generator", "erdos-renyi"],
         "5,999,970,000 edges expected, more than the limit of 20,000,000"),
        (["generate", "random", "--tasks", "5", "--platform", "fully-connected:99999999999"],
         "platform 'fully-connected:99999999999': 99,999,999,999 processors, more than the "
         "limit of 4,096 (exactsched.limits.MAX_PROCESSORS)"),
        (["info", EXAMPLE, "--platform", "mesh:100000x100000"], "10,000,000,000 processors"),
        (["info", EXAMPLE, "--platform", "cpu-gpu:99999+1"], "100,000 processors"),
        (["info", EXAMPLE, "--platform", "torus:99x99x99"], "970,299 processors"),
        (["info", EXAMPLE, "--platform", "hypercube:8192"], "8,192 processors"),
    ],
)  # fmt: skip
def test_absurd_sizes_are_refused_with_their_size(capsys, tmp_path, argv, message):
    if argv[0] == "generate":
        argv = [*argv, "-o", str(tmp_path / "x.json")]
    status, _, err = run(capsys, argv)
    assert_one_line(status, err)
    assert message in err
    assert not list(tmp_path.iterdir())


def test_an_stg_header_of_a_trillion_tasks(capsys, tmp_path):
    path = tmp_path / "big.stg"
    path.write_text("999999999999\n0 0 0\n")
    status, _, err = run(capsys, ["info", path, "--platform", "single-gpu"])
    assert_one_line(status, err)
    assert "big.stg:1: the header: 999,999,999,999 tasks, more than the limit" in err


def test_instances_over_the_limits(capsys, tmp_path):
    from exactsched.limits import MAX_PROCESSORS

    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": f"p{k}"} for k in range(MAX_PROCESSORS + 1)]},
        "tasks": [{"id": "a", "cost": 1}],
    }
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(doc))
    status, _, err = run(capsys, ["info", path])
    assert_one_line(status, err)
    assert "platform.processors: 4,097 processors, more than the limit of 4,096" in err


# ---- item 12: options that would be ignored are refused ----------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["generate", "cholesky", "--tiles", "3", "--ccr", "2", "-o", "{out}.json"],
         "--ccr: not an option of generate cholesky"),
        (["generate", "random", "--tasks", "5", "--tiles", "3", "-o", "{out}.json"],
         "--tiles: not an option of generate random"),
        (["generate", "random", "--tasks", "5", "--layers", "3", "-o", "{out}.json"],
         "--layers: only with --generator layered"),
        (["generate", "random", "--tasks", "5", "--drop-dummies", "-o", "{out}.json"],
         "--drop-dummies: not an option of generate random"),
        (["generate", "lu", "--tiles", "2", "--platform", "cpu-gpu:1+1", "--rate", "cpu=1",
          "--rate", "tpu=3", "-o", "{out}.json"],
         "--rate tpu=3: the platform cpu-gpu:1+1 has no processor type 'tpu' (its types: "
         "cpu, gpu)"),
        (["convert", "{wf}", "-o", "{out}.json", "--platform", "single-gpu", "--speed", "tpu=3"],
         "--speed tpu=3: the platform single-gpu has no processor type 'tpu'"),
        (["convert", "{dot}", "-o", "{out}.json", "--platform", "single-gpu", "--drop-dummies"],
         "--drop-dummies: only for STG input"),
        (["convert", EXAMPLE, "-o", "{out}.json", "--speed", "gpu=3"],
         "--speed: only for WfCommons input"),
        (["orderings", EXAMPLE, "--count", "--time-limit", "-2"],
         "argument --time-limit: expected a finite number of seconds >= 0, got '-2'"),
        (["solve", EXAMPLE, "-m", "heft", "--output", ""], "--output: empty path"),
        (["results", "{db}", "--report", ""], "--report: empty path"),
        (["results", "{db}", "--plots", ""], "--plots: empty path"),
        (["compare", EXAMPLE, "--exact", "none", "--methods", "heft", "--db", ""],
         "--db: empty path"),
        (["generate", "random", "--tasks", "5", "-o", ""], "--output: empty path"),
        (["convert", EXAMPLE, "-o", ""], "--output: empty path"),
        (["solve", EXAMPLE, "-m", "heft", "-o", "log=true"],
         "--output log=true: looks like a method option; -o is --output FILE, options take "
         "-O/--option KEY=VALUE"),
    ],
)  # fmt: skip
def test_ignored_or_empty_options_are_refused(capsys, files, argv, message):
    dot = str(ROOT / "tests" / "data" / "sinnen-dot" / "Nodes_7_OutTree.dot")
    status, _, err = run(capsys, [a.format(wf=WFCOMMONS, dot=dot, **files) for a in argv])
    assert_one_line(status, err)
    assert message in err


def test_solve_takes_options_with_capital_o(capsys, files):
    status, out, err = run(capsys, ["solve", EXAMPLE, "-m", "heft", "-O", "ranking=median",
                                    "-o", files["out"] + ".heft.json", "--json"])  # fmt: skip
    assert status == 0, err
    assert json.loads(out)["makespan"] > 0
    assert Path(files["out"] + ".heft.json").exists()


# ---- item 14: generated instances are told apart by name ---------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["random", "--tasks", "8"],
        ["random", "--tasks", "8", "--generator", "daggen"],
        ["cholesky", "--tiles", "2"],
        ["stg", str(ROOT / "tests" / "data" / "stg" / "50" / "rand0000.stg")],
        ["random", "--tasks", "8", "--name", "mine"],
    ],
    ids=lambda a: "-".join(a[:1] + a[-2:]),
)
def test_generate_count_gives_distinct_names(capsys, tmp_path, argv):
    count = 12 if argv[0] == "random" else 3
    status, _, err = run(capsys, ["generate", *argv, "--seed", "5", "--count", str(count),
                                  "-o", str(tmp_path)])  # fmt: skip
    assert status == 0, err
    names = [json.loads(p.read_text())["name"] for p in sorted(tmp_path.iterdir())]
    assert len(names) == len(set(names)) == count
    for seed in range(5, 5 + count):
        assert sum(name.endswith(f"-seed{seed}") for name in names) == 1
    if "--name" not in argv:
        what = {"cholesky": "cholesky", "stg": "rand0000"}.get(argv[0], "topcuoglu")
        if "--generator" in argv:
            what = argv[argv.index("--generator") + 1]
        size = "-n8-" if argv[0] == "random" else ("-N2-" if argv[0] == "cholesky" else "-n52-")
        assert all(what in n and size in n for n in names), names


def _strict(text):
    def reject(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    return json.loads(text, parse_constant=reject)


@pytest.mark.parametrize(
    "argv",
    [
        ["info", "{zero}", "--json"],
        ["validate", EXAMPLE, "{schedule}", "--json"],
        ["solve", "{zero}", "-m", "heft", "--json"],
        ["solve", EXAMPLE, "-m", "cpsat", "-t", "5", "-w", "1", "--json"],
        ["methods", "--json"],
        ["compare", "{zero}", "--exact", "none", "--methods", "heft", "--json"],
        ["results", "{db}", "--json"],
        ["orderings", "{zero}", "--count", "--best", "makespan", "--json"],
        ["orderings", "{zero}", "--best", "makespan", "--search", "--json"],
    ],
    ids=lambda a: "-".join(a[:1] + a[-2:-1]),
)
def test_every_json_output_is_strict(capsys, files, argv):
    # Item 10: one JSON writer; a zero-cost instance has an infinite CCR and NaN gaps.
    zero = files["tmp"] / "zero-costs.json"
    zero.write_text(json.dumps({
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p"}, {"id": "q"}]},
        "tasks": [{"id": "a", "cost": 0}, {"id": "b", "cost": 0}],
        "edges": [{"src": "a", "dst": "b", "data": 5}],
    }))  # fmt: skip
    status, out, err = run(capsys, [a.format(zero=zero, **files) for a in argv])
    assert status == 0, err
    _strict(out)


def test_generate_refuses_a_cost_matrix_over_the_limit(capsys, tmp_path):
    argv = ["generate", "random", "--tasks", "100000", "--platform", "fully-connected:4096",
            "-o", str(tmp_path / "x.json")]  # fmt: skip
    status, _, err = run(capsys, argv)
    assert_one_line(status, err)
    assert "409,600,000 task x processor costs, more than the limit of 100,000,000" in err


def test_interrupt_is_one_line_exit_130(capsys, monkeypatch):
    from exactsched import cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli._COMMANDS, "methods", interrupted)
    status, _, err = run(capsys, ["methods"])
    assert_one_line(status, err, expected=130)


class _ClosedPipe(io.TextIOBase):
    """Standard output whose reader went away (``exactsched ... | head``)."""

    def writable(self):
        return True

    def write(self, text):
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


def test_a_closed_pipe_ends_quietly(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    status = main(["methods", "--json"])
    assert status == 0 and capsys.readouterr().err == ""


def test_gantt_with_a_schedule_naming_an_unknown_processor(capsys, files):
    doc = json.loads(Path(files["schedule"]).read_text())
    doc["tasks"][0]["processor"] = "zzz"
    bad = files["tmp"] / "unknown-processor.json"
    bad.write_text(json.dumps(doc))
    status, _, err = run(capsys, ["gantt", bad, EXAMPLE, "-o", files["out"] + ".png"])
    assert_one_line(status, err)
    assert "unknown processor zzz" in err  # the referee's verdict, before any drawing
    status, _, err = run(capsys, ["gantt", bad, EXAMPLE, "-o", files["out"] + ".png",
                                  "--allow-invalid"])  # fmt: skip
    assert_one_line(status, err)
    assert "processor 'zzz'" in err  # a task on no row cannot be drawn


def test_a_failure_after_an_instance_warning_is_still_one_line(capsys, files):
    doc = json.loads(Path(EXAMPLE).read_text())
    doc["isolation"] = [["n1", "n2"]]  # n1 -> n2 is an edge: a harmless redundant pair
    path = files["tmp"] / "redundant.json"
    path.write_text(json.dumps(doc))
    status, _, err = run(capsys, ["validate", path])
    assert status == 0 and "warning" in err
    status, _, err = run(capsys, ["validate", path, files["missing"]])
    assert_one_line(status, err)
    assert "warning" not in err


# An output over a file the command reads: the input would be lost. Each was written
# over silently except for the study database (an outside audit, session 17).
OVER_AN_INPUT = [
    (["solve", "{i}", "-m", "heft", "-o", "{i}"], "--output"),
    (["compare", "{i}", "--exact", "none", "--methods", "heft", "-q", "--report", "{i}"],
     "--report"),
    (["orderings", "{i}", "--best", "network", "--promote-isolation", "{i}"],
     "--promote-isolation"),
    (["orderings", "{i}", "--best", "network", "--mapping", "{s}", "--promote-isolation",
      "{s}"], "--promote-isolation"),
    (["convert", "{i}", "-o", "{i}"], "--output"),
    (["solve", "{i}", "-m", "heft", "--platform", "{p}", "-o", "{p}"], "--output"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "option"), OVER_AN_INPUT)
def test_an_output_never_replaces_an_input(capsys, tmp_path, argv, option):
    instance = tmp_path / "in.json"
    instance.write_text(Path(EXAMPLE).read_text())
    schedule = tmp_path / "s.json"
    schedule.write_text(json.dumps(solve(load_instance(EXAMPLE), "heft").to_json()))
    platform = tmp_path / "p.json"
    platform.write_text(json.dumps(json.loads(instance.read_text())["platform"]))
    paths = {"{i}": str(instance), "{s}": str(schedule), "{p}": str(platform)}
    before = {p: Path(p).read_bytes() for p in paths.values()}
    status = main([paths.get(a, a) for a in argv])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert f"{option} " in err and "is the input" in err and "would be lost" in err
    assert {p: Path(p).read_bytes() for p in paths.values()} == before


@pytest.mark.parametrize(
    "argv",
    [
        ["--methods", "none", "--exact", "none"],
        ["--methods", "NONE", "--exact", "none"],
        ["--methods", "none,none", "--exact", "none"],
        ["--methods", "none", "--methods", "none", "--exact", ",none"],
    ],
)
def test_compare_with_nothing_to_run_is_refused(capsys, argv):
    status = main(["compare", EXAMPLE, *argv])
    err = capsys.readouterr().err
    assert status == 2 and err.endswith("--methods, --exact: no method to run (both name none)\n")


def test_an_output_never_replaces_an_instance_of_an_input_folder(capsys, tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    instance = folder / "a.json"
    instance.write_text(Path(EXAMPLE).read_text())
    before = instance.read_bytes()
    argv = ["compare", str(folder), "--methods", "heft", "--exact", "none", "-q"]
    assert main([*argv, "--report", str(instance)]) == 2
    assert "is an instance file in the input folder" in capsys.readouterr().err
    assert instance.read_bytes() == before
    assert main([*argv, "--report", str(folder / "report.md")]) == 0  # not an instance


def test_generated_names_never_replace_an_input(capsys, tmp_path):
    stg = tmp_path / "g0.stg"
    stg.write_text((ROOT / "tests" / "data" / "workloads-audit" / "mid.stg").read_text())
    before = stg.read_bytes()
    pattern = str(tmp_path / "g{seed}.stg")
    assert main(["generate", "stg", str(stg), "--platform", "single-gpu", "-o", pattern]) == 2
    assert "is the input" in capsys.readouterr().err and stg.read_bytes() == before
