"""What the study commands show and write (audit h2, section 9, "Cosmetic").

* Names are data: an instance name holding an ANSI escape, a newline, ``|`` or
  a backtick reaches neither the terminal as a control sequence nor a Markdown
  table as markup, while CSV and JSON keep it exactly (``exactsched._output.printable``).
* An output that cannot be written whole (a full disk) leaves the old file, or
  none, never a truncated one (``exactsched._output.atomic_write``), and the
  command ends with one line and exit status 2.
* Numbers in tables drop binary noise (0.6, not 0.6000000000000001); stored,
  JSON and CSV values keep every bit.
* ``compare --db`` on a location it cannot write says so; ``results`` and
  ``gantt --db`` still read it.
* ``examples/optimality_gap_study.py`` names a command line that reads back
  the script's study.

Every schedule a test makes is checked with :func:`exactsched.validate.validate`.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import importlib.util
import inspect
import json
import os
import shlex
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from exactsched import Schedule, solve
from exactsched._output import atomic_write, printable
from exactsched.cli import main
from exactsched.experiments.instances import load_problem
from exactsched.experiments.report import _num
from exactsched.experiments.store import Store
from exactsched.generators import random_instance
from exactsched.schedule import load_schedule
from exactsched.validate import validate
from tests.test_cli_contract import assert_one_line, run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "topcuoglu2002.json")
STUDY_SCRIPT = ROOT / "examples" / "optimality_gap_study.py"


def assert_valid_study(db) -> int:
    """Validate every schedule stored in study ``db``; how many there were."""
    count = 0
    with Store(db, readonly=True) as store:
        documents = {i["key"]: json.loads(i["document"]) for i in store.instances()}
        for run_ in store.runs(schedules=True):
            if run_["schedule"] is None:
                continue
            problem = load_problem(documents[run_["instance"]])
            schedule = Schedule.from_json(json.loads(run_["schedule"]))
            assert validate(problem, schedule) == [], run_["method"]
            count += 1
    assert count > 0
    return count


def write_instance(path: Path, name: str, seed: int = 1) -> Path:
    doc = {**random_instance(6, 2, seed=seed).to_json(), "name": name}
    path.write_text(json.dumps(doc))
    return path


def shown_on_a_terminal(text: str) -> bool:
    """No character a terminal would act on: printable ones and line ends only."""
    return all(ch.isprintable() or ch == "\n" for ch in text)


def markdown_tables(text: str) -> list[list[int]]:
    """Each Markdown table of ``text`` as the number of cell separators on each row."""

    def separators(line: str) -> int:
        count, escaped = 0, False
        for ch in line:
            count += ch == "|" and not escaped
            escaped = ch == "\\" and not escaped
        return count

    tables: list[list[int]] = []
    previous = False
    for line in text.splitlines():
        row = line.startswith("|")
        if row and not previous:
            tables.append([])
        if row:
            tables[-1].append(separators(line))
        previous = row
    return tables


# ---- 1. names: escaped on a terminal and in Markdown, exact in CSV and JSON -------------

PRINTABLE_CASES = [
    # (text, markdown, shown)
    ("heft", False, "heft"),
    ("Topcuoglu, Hariri, Wu 2002", True, "Topcuoglu, Hariri, Wu 2002"),
    ("\x1b[31mred\x1b[0m", False, "\\x1b[31mred\\x1b[0m"),
    ("two\nlines", False, "two\\nlines"),
    ("two\r\nlines", True, "two  lines"),
    ("a\tb", False, "a\\tb"),
    ("a\tb", True, "a b"),
    ("abc\u202edef", False, "abc\\u202edef"),  # a right-to-left override
    ("a|b", False, "a|b"),
    ("a|b", True, "a\\|b"),
    ("co`de`", True, "co\\`de\\`"),
    ("a\\|b", True, "a\\\\\\|b"),  # a backslash cannot unescape the pipe
    ("*x* _y_ [l](u) <b> $z$ ~s~", True, "\\*x\\* \\_y\\_ \\[l\\](u) \\<b\\> \\$z\\$ \\~s\\~"),
    ("ünï cødé 中", True, "ünï cødé 中"),
    (42, False, "42"),
]


@pytest.mark.parametrize(("text", "markdown", "shown"), PRINTABLE_CASES)
def test_printable(text, markdown, shown):
    assert printable(text, markdown) == shown
    assert shown_on_a_terminal(shown) and "\n" not in shown


ODD_NAMES = {
    "ansi": "\x1b[31mred\x1b[0m",
    "newline": "two\nlines",
    "pipe": "a|b",
    "backticks": "co`de` ``x",
    "markup": "*b* _i_ [l](u) <i> $x$",
    "bidi": "abc\u202edef",
    "all": "bad|name\nsecond line `x` $\\alpha$ é中\x1b[31mRED",
}


@pytest.mark.parametrize("name", ODD_NAMES.values(), ids=ODD_NAMES.keys())
def test_odd_names_in_tables_reports_csv_and_json(capsys, tmp_path, name):
    instance = write_instance(tmp_path / "odd.json", name)
    db, report = tmp_path / "study.sqlite", tmp_path / "report.md"
    # Two models: the per-instance tables, the communication table and the list of
    # instances without a certified optimum all show the name.
    status, out, err = run(capsys, [
        "compare", instance, "--exact", "none", "--methods", "heft,cpop", "-j", "1", "-q",
        "--communication", "delay,single-port", "--db", db, "--report", report,
    ])  # fmt: skip
    assert status == 0, err
    assert_valid_study(db)
    assert shown_on_a_terminal(out + err)
    assert printable(name) in out
    status, text, err = run(capsys, ["results", db])
    assert status == 0 and shown_on_a_terminal(text + err), err

    markdown = report.read_text(encoding="utf-8")
    assert shown_on_a_terminal(markdown)
    assert printable(name, markdown=True) in markdown
    tables = markdown_tables(markdown)
    assert len(tables) >= 3
    for rows in tables:
        assert len(set(rows)) == 1, rows  # no row split or widened by the name
    listed = [line for line in markdown.splitlines() if printable(name, True) in line]
    assert listed and all(line.startswith(("- ", "| ")) for line in listed)

    status, _, err = run(capsys, ["results", db, "--csv", "-o", tmp_path / "rows.csv"])
    assert status == 0, err
    with open(tmp_path / "rows.csv", encoding="utf-8", newline="") as fh:
        assert {row["instance"] for row in csv.DictReader(fh)} == {name}
    status, out, err = run(capsys, ["results", db, "--json"])
    assert status == 0, err
    assert {row["instance"] for row in json.loads(out)} == {name}


@pytest.mark.parametrize(
    "argv",
    [
        ["results", "\x1b[31mmissing.sqlite"],
        ["gantt", "--db", "{db}", "\x1b[2Jx", "-m", "heft", "-o", "{tmp}/g.png"],
        ["compare", "{instance}", "--exact", "none", "--methods", "\x1b[2Jx", "-q"],
    ],
    ids=["results", "gantt", "compare"],
)
def test_error_lines_quote_names_escaped(capsys, tmp_path, argv):
    instance = write_instance(tmp_path / "i.json", "x")
    db = tmp_path / "s.sqlite"
    status, _, err = run(capsys, ["compare", instance, "--exact", "none", "--methods", "heft",
                                  "-j", "1", "-q", "--db", db])  # fmt: skip
    assert status == 0, err
    assert_valid_study(db)
    filled = [a.format(db=db, tmp=tmp_path, instance=instance) for a in argv]
    status, _, err = run(capsys, filled)
    assert_one_line(status, err)
    assert "\x1b" not in err and "\\x1b" in err


def test_info_and_plots_show_names_escaped(capsys, tmp_path):
    from exactsched.experiments.plots import gantt_chart, performance_profile

    name = ODD_NAMES["all"]
    instance = write_instance(tmp_path / "i.json", name)
    status, out, _ = run(capsys, ["info", instance])
    assert status == 0 and shown_on_a_terminal(out) and printable(name) in out

    problem = load_problem(str(instance))
    schedule = solve(problem, "heft").schedule
    assert validate(problem, schedule) == []
    title = gantt_chart(problem, schedule).axes[0].get_title()
    assert title.startswith(printable(name)) and shown_on_a_terminal(title)
    rows = [dict(instance_key="a", label=label, makespan=m, seconds=0.1)
            for label, m in ((name, 10.0), ("heft", 12.0))]  # fmt: skip
    labels = {line.get_label() for line in performance_profile(rows).axes[0].lines}
    assert labels == {printable(name), "heft"}


# ---- 2. outputs written whole or not at all ---------------------------------------------


def test_atomic_write_replaces_whole_or_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("OLD")
    os.chmod(target, 0o640)
    with atomic_write(target, encoding="utf-8") as fh:
        fh.write("NEW")
    assert target.read_text() == "NEW" and stat.S_IMODE(target.stat().st_mode) == 0o640

    with pytest.raises(OSError, match="disk full"), atomic_write(target) as fh:
        fh.write("half")
        raise OSError(errno.ENOSPC, "disk full")
    assert target.read_text() == "NEW"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]

    new = tmp_path / "new.txt"
    with pytest.raises(ValueError), atomic_write(new) as fh:
        raise ValueError
    assert not new.exists()

    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with atomic_write(link) as fh:
        fh.write("THROUGH")
    assert link.is_symlink() and target.read_text() == "THROUGH"

    with atomic_write(os.devnull, "wb") as fh:  # not a regular file: written in place
        fh.write(b"x")
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A small finished study: its database and its instance's name."""
    tmp = tmp_path_factory.mktemp("study")
    db = tmp / "study.sqlite"
    status = main(["compare", EXAMPLE, "--methods", "heft,cpop", "-t", "10", "-w", "1",
                   "-j", "1", "-q", "--db", str(db)])  # fmt: skip
    assert status == 0
    assert_valid_study(db)
    with Store(db, readonly=True) as store:
        (instance,) = store.instances()
    return {"db": str(db), "name": instance["name"], "key": instance["key"]}


@contextlib.contextmanager
def file_size_limit(limit: int):
    """Writes beyond ``limit`` bytes fail with EFBIG, as on a full disk (Python ignores
    SIGXFSZ)."""
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


LIMIT = 1024  # bytes: less than any file below
OUTPUT_CASES = {
    # case: (option named in the error, argv, what is written, files to check)
    "results-report": ("--report", ["results", "{db}", "--report", "{out}"], "r.md", ["r.md"]),
    "results-csv": ("--output", ["results", "{db}", "--csv", "-o", "{out}"], "r.csv", ["r.csv"]),
    "results-json": ("--output", ["results", "{db}", "--json", "-o", "{out}"], "r.json",
                     ["r.json"]),
    "results-plots": ("--plots", ["results", "{db}", "--plots", "{out}"], "plots",
                      ["plots/profile.png", "plots/gaps.png"]),
    "gantt-db": ("--output", ["gantt", "--db", "{db}", "{key}", "-m", "heft", "-o", "{out}"],
                 "g.png", ["g.png"]),
    "gantt-svg": ("--output", ["gantt", "--db", "{db}", "{key}", "-m", "cpop", "-o", "{out}"],
                  "g.svg", ["g.svg"]),
    "solve": ("--output", ["solve", EXAMPLE, "-m", "heft", "-o", "{out}"], "s.json",
              ["s.json"]),
}  # fmt: skip


@pytest.mark.parametrize("case", OUTPUT_CASES)
def test_a_failed_write_leaves_the_old_file(capsys, tmp_path, study, case):
    option, argv, written, files = OUTPUT_CASES[case]
    filled = [a.format(out=tmp_path / written, **study) for a in argv]
    status, _, err = run(capsys, filled)  # whole: each file larger than the limit
    assert status == 0, err
    if case == "solve":
        assert validate(load_problem(EXAMPLE), load_schedule(tmp_path / written)) == []
    for name in files:
        assert (tmp_path / name).stat().st_size > LIMIT, name
        (tmp_path / name).write_bytes(b"OLD")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with file_size_limit(LIMIT):
        status, _, err = run(capsys, filled)
    assert_one_line(status, err)
    assert option in err and "File too large" in err, err
    for name in files:
        assert (tmp_path / name).read_bytes() == b"OLD", name
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # no temp


def test_compare_report_on_a_full_disk(capsys, monkeypatch, tmp_path):
    instance = write_instance(tmp_path / "i.json", "x")
    db, report = tmp_path / "s.sqlite", tmp_path / "report.md"
    report.write_text("OLD")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    # The disk fills during the study: the probe before the runs found room.
    monkeypatch.setattr("exactsched.cli._probe_write", lambda *args: None)
    status, _, err = run(capsys, ["compare", instance, "--exact", "none", "--methods", "heft",
                                  "-j", "1", "-q", "--db", db, "--report", report])  # fmt: skip
    assert_one_line(status, err)
    assert f"--report {report}: cannot write: No space left on device" in err
    assert report.read_text() == "OLD"
    left = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("s.sqlite"))
    assert left == ["i.json", "report.md"]  # no temporary file
    monkeypatch.undo()
    assert_valid_study(db)  # the runs were stored before the report failed


# ---- 3. numbers: readable in tables, exact in the data ----------------------------------

NUMBER_CASES = [
    (0.1 + 0.2 + 0.3, "0.6"),
    (0.1 + 0.2, "0.3"),
    (2.9999999999999996, "3"),
    (80.0, "80"),
    (73, "73"),
    (3000000002331.0, "3000000002331"),
    (3000000002331.5, "3000000002331.5"),
    (123456.789, "123456.789"),
    (2.5e-20, "2.5e-20"),
    (-0.6000000000000001, "-0.6"),
    (float("inf"), "inf"),
    (None, "-"),
]


@pytest.mark.parametrize(("value", "shown"), NUMBER_CASES)
def test_numbers_in_tables(value, shown):
    assert _num(value) == shown


def test_a_decimal_optimum_reads_as_its_decimal(capsys, tmp_path):
    doc = {
        "format": "exactsched/instance@1",
        "name": "decimal-chain",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}]},
        "tasks": [{"id": "a", "cost": [0.1, 0.7]}, {"id": "b", "cost": [0.2, 0.7]},
                  {"id": "c", "cost": [0.3, 0.7]}, {"id": "d", "cost": [0.7, 0.1]}],
        "edges": [{"src": "a", "dst": "b", "data": 0.1}, {"src": "b", "dst": "c", "data": 0.1}],
    }  # fmt: skip
    instance = tmp_path / "dec.json"
    instance.write_text(json.dumps(doc))
    db, report = tmp_path / "s.sqlite", tmp_path / "r.md"
    status, out, err = run(capsys, ["compare", instance, "--methods", "heft", "-t", "10",
                                    "-w", "1", "-j", "1", "-q", "--db", db,
                                    "--report", report])  # fmt: skip
    assert status == 0, err
    assert_valid_study(db)
    assert "reference: optimum 0.6 (certified" in out
    for text in (out, report.read_text()):
        assert "0.6000000000000001" not in text
    status, out, err = run(capsys, ["results", db, "--json"])
    assert status == 0, err
    stored = {row["makespan"] for row in json.loads(out)}
    # HEFT's times are rounded to the data's grid (exactsched._time_grid): 0.1 + 0.2 + 0.3
    # is stored as 0.6, not as the float sum 0.6000000000000001.
    assert stored == {0.6}
    status, out, err = run(capsys, ["results", db, "--csv"])
    assert status == 0 and "0.6000000000000001" not in out, err


# ---- 4. a study database that cannot be written -----------------------------------------


@contextlib.contextmanager
def read_only(*paths: Path):
    """Make ``paths`` unwritable: chattr +i as root (root ignores modes), else chmod."""
    if not paths:
        yield
        return
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in paths}
        try:
            for p in paths:
                os.chmod(p, stat.S_IMODE(modes[p]) & ~0o222)
            yield
        finally:
            for p, mode in modes.items():
                os.chmod(p, mode)
        return
    chattr = shutil.which("chattr")
    try:
        command = [chattr or "chattr", "+i", *map(str, paths)]
        if chattr is None or subprocess.run(command, capture_output=True).returncode != 0:
            pytest.skip("root ignores file modes and chattr +i is not available here")
        yield
    finally:
        if chattr is not None:
            subprocess.run([chattr, "-i", *map(str, paths)], capture_output=True, check=False)


DB_CASES = {
    # case: (the --db path in folder "ro", what is made read-only, the reason)
    "read-only-file": ("study.sqlite", ["study.sqlite"], "the file is read-only"),
    "read-only-folder": ("study.sqlite", ["."], "is read-only (SQLite writes its journal"),
    "new-file-in-read-only-folder": ("new.sqlite", ["."], "is read-only"),
    "missing-folder": ("no/such/study.sqlite", [], "does not exist"),
}


@pytest.mark.parametrize("case", DB_CASES)
def test_compare_refuses_a_database_it_cannot_write(capsys, tmp_path, study, case):
    path, locked, reason = DB_CASES[case]
    folder = tmp_path / "ro"
    folder.mkdir()
    shutil.copy(study["db"], folder / "study.sqlite")
    db = folder / path
    before = (folder / "study.sqlite").read_bytes()
    with read_only(*(folder / p for p in locked)):
        status, _, err = run(capsys, ["compare", EXAMPLE, "--methods", "heft,cpop", "-t", "10",
                                      "-w", "1", "-j", "1", "-q", "--db", db])  # fmt: skip
        assert_one_line(status, err)
        assert f"--db {db}: cannot be written: " in err and reason in err, err
        if db.exists():  # reading still works, and leaves the file as it was
            status, out, err = run(capsys, ["results", db])
            assert status == 0 and "heft" in out, err
            png = tmp_path / "g.png"
            status, _, err = run(capsys, ["gantt", "--db", db, study["key"], "-m", "heft",
                                          "-o", png])  # fmt: skip
            assert status == 0 and png.stat().st_size > 0, err
    assert (folder / "study.sqlite").read_bytes() == before
    assert not (folder / "new.sqlite").exists()


# ---- 5. the example's command line reads back the script's study ------------------------


class _Stop(Exception):
    """Raised by the stand-in of run_sweep once it has its arguments."""


def test_the_example_command_is_the_scripts_study(capsys, monkeypatch, tmp_path):
    import exactsched.experiments.sweep as sweep

    signature = inspect.signature(sweep.run_sweep)
    calls = []

    def record(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        calls.append(bound.arguments)
        raise _Stop

    spec = importlib.util.spec_from_file_location("optimality_gap_study", STUDY_SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(script, "run_sweep", record)
    monkeypatch.setattr(sweep, "run_sweep", record)
    with pytest.raises(_Stop):
        script.main(["--quick"])
    capsys.readouterr()

    lines = script.__doc__.splitlines()
    start = next(k for k, line in enumerate(lines) if line.strip().startswith("exactsched "))
    command = lines[start].strip()
    while command.endswith("\\"):
        start += 1
        command = command[:-1] + lines[start].strip()
    assert main(shlex.split(command)[1:]) == 3  # the stand-in stopped it (an "internal error")
    script_call, command_call = calls
    for name in ("methods", "exact", "time_limit", "workers", "seed", "certify", "platform",
                 "communication"):  # fmt: skip
        assert command_call[name] == script_call[name], name
        assert type(command_call[name]) is type(script_call[name]), name
    assert [os.path.normpath(p) for p in command_call["instances"]] == [
        os.path.normpath(p) for p in script_call["instances"]]  # fmt: skip
    assert os.path.normpath(command_call["db"]) == os.path.normpath(script_call["db"])
