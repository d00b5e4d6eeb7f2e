"""The study commands: compare, results and gantt (CLI), and the plots they draw."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from exactsched import Problem, load_instance, parse_instance, solve, validate
from exactsched.cli import main
from exactsched.experiments.fingerprint import results_version

ROOT = Path(__file__).resolve().parents[1]
TOPCUOGLU = str(ROOT / "examples" / "topcuoglu2002.json")
MESH = str(ROOT / "examples" / "mesh-isolation.json")


def run(capsys, *argv):
    try:
        status = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse: usage errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def test_compare_reports_gaps_and_refusals(capsys):
    # Issue 8, item 6: minimal-serial refuses this instance; the others are reported.
    status, out, err = run(capsys, "compare", MESH, "-w", "1", "-t", "30", "-q")
    assert status == 0, err
    assert "optimum 20" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert "not-applicable" in lines["minimal-serial"] and "affinity" in lines["minimal-serial"]
    assert "feasible" in lines["heft"] and "20.00%" in lines["heft"]  # 24 vs 20
    assert "method" in out and "APD" in out  # the summary table


def test_compare_json(capsys):
    status, out, _ = run(
        capsys, "compare", "--methods", "heft", "--methods", "cpop", TOPCUOGLU, "--json", "-w",
        "1", "-t", "20",
    )  # fmt: skip
    doc = json.loads(out)
    assert status == 0 and doc["ran"] == 3 and doc["errors"] == 0
    rows = {r["method"]: r for r in doc["rows"]}
    assert rows["cpsat"]["status"] == "optimal" and rows["cpsat"]["makespan"] == 73
    assert rows["heft"]["optimum"] == 73 and rows["heft"]["gap_to_optimum"] == pytest.approx(
        7 / 73
    )
    summary = {s["method"]: s for s in doc["summary"]}
    assert summary["heft"]["wins"] == 1 and summary["cpop"]["apd"] == pytest.approx(100 * 6 / 80)


def test_exact_method_among_methods_gets_the_time_limit(capsys):
    # Issue 8, item 4: `compare --methods heft milp` ran milp without a time limit.
    argv = ["compare", TOPCUOGLU, "--methods", "heft,milp", "--exact", "none", "-t", "9"]
    status, out, _ = run(capsys, *argv, "-w", "1", "--json")
    rows = {r["method"]: r for r in json.loads(out)["rows"]}
    assert status == 0 and set(rows) == {"heft", "milp"}
    assert json.loads(rows["milp"]["options"])["time_limit"] == 9


def test_compare_progress_lines_when_not_a_terminal(capsys):
    status, _, err = run(capsys, "compare", TOPCUOGLU, "--exact", "none", "--methods", "heft")
    assert status == 0 and "[1/1] 100%" in err


def test_compare_db_resume_report_plots_and_results(tmp_path, capsys):
    db = tmp_path / "study.sqlite"
    args = ["compare", TOPCUOGLU, MESH, "--methods", "heft,peft,minimal-serial", "-w", "1",
            "-t", "30", "-q", "--db", db]  # fmt: skip
    status, out, _ = run(capsys, *args, "--report", tmp_path / "r.md", "--plots", tmp_path / "p")
    assert status == 0 and "8 run(s) now, 0 from the database" in out
    status, out, _ = run(capsys, *args)
    assert status == 0 and "0 run(s) now, 8 from the database" in out
    report = (tmp_path / "r.md").read_text()
    assert "## Per method" in report and "## By CCR" in report and "![profile.png]" in report
    assert "minimal-serial (not-applicable)" in report
    for name in ("profile.png", "profile_runtime.png", "gaps.png", "gap_vs_ccr.png",
                 "gap_vs_size.png"):  # fmt: skip
        assert (tmp_path / "p" / name).read_bytes()[:4] == b"\x89PNG"
    status, out, _ = run(capsys, "results", db, "--json")
    rows = json.loads(out)
    assert status == 0 and len(rows) == 8
    needed = {"instance", "method", "options", "status", "makespan", "lower_bound",
              "gap_to_optimum", "seconds", "error"}  # fmt: skip
    assert needed <= set(rows[0])
    status, out, _ = run(capsys, "results", db, "--csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert len(table) == 8 and needed <= set(table[0])
    status, out, _ = run(capsys, "results", db)
    assert status == 0 and "peft" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", TOPCUOGLU, "--seed", "-1"], "--seed"),
        (["compare", TOPCUOGLU, "-t", "nan"], "--time-limit"),
        (["compare", TOPCUOGLU, "-w", "100000"], "--workers"),
        (["compare", TOPCUOGLU, "--methods", "nosuch"], "unknown method 'nosuch'"),
        (["compare", TOPCUOGLU, "--exact", "heft"], "--exact: heft is not an exact method"),
        (["compare", TOPCUOGLU, "--methods", "heft:nosuch=1"], "not an option of heft"),
        # Issue 16, item 9: a value the method rejects, refused before any run.
        (
            ["compare", TOPCUOGLU, "--methods", "heft:ranking=bogus"],
            "option ranking: expected 'mean', ",
        ),
        (
            ["compare", TOPCUOGLU, "--methods", "cpop:ranking=bogus", "--exact", "none"],
            "or 'wm', got 'bogus'",
        ),
        (["compare", "missing.json"], "missing.json: no such file"),
        (["compare", TOPCUOGLU, "--report", "/no/such/dir/r.md"], "does not exist"),
        (["results", "missing.sqlite"], "no such study database"),
        (["gantt", "a.json", TOPCUOGLU, "-o", "out.txt"], ".png, .svg or .pdf"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_gantt_command_png_and_svg(tmp_path, capsys):
    problem = load_instance(MESH)
    result = solve(problem, "heft")
    sched = tmp_path / "heft.json"
    sched.write_text(json.dumps(result.to_json()))
    for suffix in ("png", "svg"):
        status, out, err = run(capsys, "gantt", sched, MESH, "-o", tmp_path / f"g.{suffix}")
        assert status == 0, err
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    assert "<svg" in (tmp_path / "g.svg").read_text()[:500]


def test_gantt_from_a_study_database(tmp_path, capsys):
    db = tmp_path / "s.sqlite"
    run(capsys, "compare", TOPCUOGLU, "--exact", "none", "--methods", "heft", "-q", "--db", db)
    status, _, err = run(
        capsys, "gantt", "--db", db, "--method", "heft", "Topcuoglu", "-o", tmp_path / "g.png"
    )
    # "Topcuoglu" is neither a key nor the full name: refused with one line.
    assert status == 2 and "no instance" in err
    name = load_instance(TOPCUOGLU).name
    status, _, err = run(capsys, "gantt", "--db", db, "--method", "heft", name, "-o",
                         tmp_path / "g.png")  # fmt: skip
    assert status == 0, err and (tmp_path / "g.png").exists()


def test_gantt_chart_places_tasks_where_the_schedule_says(tmp_path):
    from matplotlib.patches import FancyArrowPatch, Rectangle

    from exactsched.experiments.plots import gantt_chart

    problem = load_instance(MESH)
    schedule = solve(problem, "cpsat", time_limit=30, workers=1).schedule
    assert validate(problem, schedule) == []
    fig = gantt_chart(problem, schedule)
    fig.savefig(tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == list(problem.proc_ids)
    boxes = {
        p.get_gid().removeprefix("task:"): p
        for p in ax.patches
        if isinstance(p, Rectangle) and str(p.get_gid()).startswith("task:")
    }
    assert set(boxes) == set(problem.task_ids)
    rows = {p: k for k, p in enumerate(problem.proc_ids)}
    for task, place in schedule.items():
        box = boxes[task]
        assert box.get_x() == pytest.approx(place.start)
        assert box.get_width() == pytest.approx(place.finish - place.start)
        assert box.get_y() + box.get_height() / 2 == pytest.approx(rows[place.processor])
    labels = {t.get_text() for t in ax.texts}
    assert labels >= {t for t, p in schedule.items() if p.finish > p.start}
    # One arrow per data edge between two processors.
    cross = sum(
        schedule[problem.task_ids[s]].processor != schedule[problem.task_ids[d]].processor
        for s, d in zip(problem.edge_src, problem.edge_dst, strict=True)
    )
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == cross
    # Idle time: a background band under each processor's row.
    bands = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch() == "//"]
    assert len(bands) == problem.n_processors


def test_performance_profile_png(tmp_path):
    from exactsched.experiments import load_rows, run_sweep
    from exactsched.experiments.plots import performance_profile

    out = run_sweep([TOPCUOGLU, MESH], "heft,peft,cpop", exact="none", progress="none")
    rows = load_rows(out.store, latest=True)
    fig = performance_profile(rows)
    fig.savefig(tmp_path / "profile.png")
    assert (tmp_path / "profile.png").read_bytes()[:4] == b"\x89PNG"
    lines = {line.get_label(): line for line in fig.axes[0].lines}
    assert set(lines) == {"heft", "peft", "cpop"}

    # Makespans (Topcuoglu, mesh): heft (80, 24), peft (85, 20), cpop (86, 21).
    def rho(method, tau):
        x, y = lines[method].get_xdata(), lines[method].get_ydata()
        return float(y[x.searchsorted(tau, side="right") - 1])

    assert (rho("heft", 1.0), rho("heft", 1.19), rho("heft", 1.21)) == (0.5, 0.5, 1.0)
    assert (rho("peft", 1.0), rho("peft", 1.07)) == (0.5, 1.0)
    assert (rho("cpop", 1.0), rho("cpop", 1.06), rho("cpop", 1.08)) == (0.0, 0.5, 1.0)


def test_module_entry_point_compare():
    proc = subprocess.run(
        [sys.executable, "-m", "exactsched", "compare", TOPCUOGLU, "--exact", "none",
         "--methods", "heft", "--json"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["rows"][0]["makespan"] == 80


def test_compare_dask_local(capsys):
    pytest.importorskip("distributed")
    status, out, err = run(
        capsys, "compare", TOPCUOGLU, "--exact", "none", "--methods", "heft,cpop",
        "--dask", "local", "-j", "1", "--json",
    )  # fmt: skip
    assert status == 0, err
    assert {r["method"]: r["makespan"] for r in json.loads(out)["rows"]} == {
        "heft": 80,
        "cpop": 86,
    }


# ---- issue 16: studies that cannot mix, leak or mislead -----------------------------


def test_compare_reports_only_the_configuration_asked_for(tmp_path, capsys):
    # Item 1: -t 2, then -t 1, then -t 2 again: the third run reports the -t 2 rows.
    db = tmp_path / "s.sqlite"
    base = ["compare", TOPCUOGLU, "--methods", "heft", "-w", "1", "--db", db, "--json"]
    for limit in ("2", "1"):
        status, out, err = run(capsys, *base, "-t", limit)
        assert status == 0, err
    status, out, _ = run(capsys, *base, "-t", "2")
    doc = json.loads(out)
    assert (doc["ran"], doc["skipped"]) == (0, 2)
    limits = {r["method"]: json.loads(r["options"]).get("time_limit") for r in doc["rows"]}
    assert limits == {"cpsat": 2, "heft": None} and len(doc["rows"]) == 2
    # Both configurations stay in the database; results lists them, labelled apart.
    status, out, _ = run(capsys, "results", db, "--json")
    rows = json.loads(out)
    assert sorted(r["label"] for r in rows) == [
        "cpsat{time_limit=1}", "cpsat{time_limit=2}", "heft"
    ]  # fmt: skip
    assert {r["config"] for r in rows if r["method"] == "cpsat"} == {
        f"time_limit={t} workers=1 seed=0 certify=default exactsched={results_version()}"
        for t in (1, 2)
    }
    status, out, _ = run(capsys, "results", db)
    assert "cpsat{time_limit=1}" in out and "configurations in the database" in out
    # gantt --db never picks whichever configuration ran last: it asks which one.
    name = load_instance(TOPCUOGLU).name
    png = tmp_path / "g.png"
    status, _, err = run(capsys, "gantt", "--db", db, "-m", "cpsat", name, "-o", png)
    assert status == 2 and err.count("\n") == 1
    assert "2 configurations" in err and "cpsat{time_limit=1}, cpsat{time_limit=2}" in err
    status, _, err = run(capsys, "gantt", "--db", db, "-m", "cpsat{time_limit=1}", name, "-o", png)
    assert status == 0, err
    assert run(capsys, "gantt", "--db", db, "-m", "heft", name, "-o", png)[0] == 0
    status, _, err = run(capsys, "gantt", "--db", db, "-m", "cpsat{time_limit=9}", name, "-o", png)
    assert status == 2 and "no schedule stored" in err


def _study(tmp_path, capsys) -> Path:
    db = tmp_path / "study.sqlite"
    run(capsys, "compare", TOPCUOGLU, "--exact", "none", "--methods", "heft,cpop", "-q",
        "--db", db)  # fmt: skip
    return db


def _foreign_sqlite(path: Path) -> None:
    import sqlite3

    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE mine (x INTEGER)")
        con.execute("INSERT INTO mine VALUES (1)")
    con.close()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_bytes(b""), "not a study database (empty file)"),
        (lambda p: p.write_text("hello\n" * 50), "not a study database (not an SQLite file)"),
        (_foreign_sqlite, "not a study database (an SQLite file without its tables)"),
        (lambda p: p.mkdir(), "a folder, not a study database"),
    ],
)
def test_results_refuses_what_is_not_a_study_and_leaves_it_unchanged(
    tmp_path, capsys, make, message
):
    # Item 2: results never writes into what it reads.
    path = tmp_path / "thing"
    make(path)
    before = _snapshot(tmp_path)
    for extra in ([], ["--json"], ["--csv"]):
        status, out, err = run(capsys, "results", path, *extra)
        assert status == 2 and message in err and len(err.strip().splitlines()) == 1
    assert _snapshot(tmp_path) == before


def _snapshot(folder: Path) -> dict[str, str]:
    import hashlib

    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    } | {"dirs": ",".join(str(p) for p in sorted(folder.rglob("*")) if p.is_dir())}


def test_results_reads_a_read_only_study_without_touching_it(tmp_path, capsys):
    db = _study(tmp_path, capsys)
    db.chmod(0o444)
    before = _snapshot(tmp_path)
    status, out, err = run(capsys, "results", db, "--json")
    assert status == 0, err and len(json.loads(out)) == 2
    status, out, err = run(capsys, "results", db)
    assert status == 0 and "heft" in out
    assert _snapshot(tmp_path) == before  # no byte changed, no -wal or -shm file added


def test_results_reads_a_study_that_a_sweep_is_writing(tmp_path, capsys):
    from exactsched.experiments import Store

    db = _study(tmp_path, capsys)
    with Store(db) as writer:  # a sweep holding the database open (WAL files exist)
        writer.add_run("k", "heft", "{}", "0", {"status": "feasible", "makespan": 1.0})
        status, out, err = run(capsys, "results", db, "--json")
    assert status == 0, err
    assert len(json.loads(out)) == 3


def test_store_claims_share_runs_and_retake_dead_ones(tmp_path):
    from exactsched.experiments import Store

    db = tmp_path / "c.sqlite"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    with Store(db) as a, Store(db) as b:
        from exactsched.experiments.store import _owner

        host = a.owner.rpartition(":")[0]
        b.owner = _owner(os.getppid())  # a live process
        key = ("i", "heft", "{}", "1")
        assert b.claim(*key) and not a.claim(*key)  # held by a live sweep
        assert not a.claim(*key, take=False)
        a._db.execute("UPDATE claims SET owner = ?", (f"{host}:{dead.stdout.strip()}",))
        assert a.claim(*key)  # its process is gone: taken over
        assert not b.claim(*key)
        # A live pid that started later than the claim's process: a reused pid.
        a._db.execute("UPDATE claims SET owner = ?", (_owner(os.getppid()) + "0",))
        assert b.claim(*key)
        # From another host: taken over once older than stale_after.
        a._db.execute("UPDATE claims SET owner = 'elsewhere:1', since = since - 100")
        assert not a.claim(*key, stale_after=1000) and a.claim(*key, stale_after=50)
        a.add_run(*key, {"status": "feasible", "makespan": 1.0})
        assert not a.claim(*key) and not b.claim(*key)  # stored: nobody runs it again
        assert a.claim(*key, redo=("feasible",))


_SLOW_SCRIPT = """
import sys, time
import exactsched
from exactsched.cli import main

@exactsched.register("test-slow", kind="heuristic", description="heft, slowly", source="test")
def slow(problem):
    time.sleep(0.25)
    return exactsched.solve(problem, "heft").schedule

@exactsched.register("test-sleep", kind="heuristic", description="sleeps", source="test")
def sleep(problem):
    time.sleep(120)

sys.exit(main(sys.argv[1:]))
"""


def _env() -> dict[str, str]:
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def _instances(folder: Path, count: int) -> Path:
    from exactsched.generators import random_instance

    folder.mkdir()
    for seed in range(count):
        p = random_instance(6, 3, seed=seed)
        (folder / f"r{seed}.json").write_text(json.dumps(p.to_json()))
    return folder


def test_concurrent_compares_share_the_work(tmp_path):
    # Item 3: two compare processes on one database split the runs between them.
    script = tmp_path / "run.py"
    script.write_text(_SLOW_SCRIPT)
    folder = _instances(tmp_path / "inst", 12)
    db = tmp_path / "s.sqlite"
    argv = [sys.executable, str(script), "compare", str(folder), "--methods", "test-slow",
            "--exact", "none", "-j", "1", "--db", str(db), "--json"]  # fmt: skip
    procs = [subprocess.Popen(argv, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]  # fmt: skip
    docs = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        docs.append(json.loads(out))
    assert sum(d["ran"] for d in docs) == 12  # each run once, by one of them
    assert all(len(d["rows"]) == 12 for d in docs)  # and each reports all of them
    from exactsched.experiments import Store

    with Store(db, readonly=True) as store:
        assert len(list(store.runs())) == 12
        assert store._db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_pool_workers_die_within_2_s_of_their_parent(tmp_path, sig):
    # Item 4: compare -j 2 killed by any signal leaves no worker behind.
    script = tmp_path / "run.py"
    script.write_text(_SLOW_SCRIPT)
    argv = [sys.executable, str(script), "compare", TOPCUOGLU, MESH, "--methods", "test-sleep",
            "--exact", "none", "-j", "2", "-q"]  # fmt: skip
    proc = subprocess.Popen(argv, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert len(workers) >= 2, "the pool did not start"
        time.sleep(0.5)  # the runs are under way
        proc.send_signal(sig)
        proc.wait(10)
        killed = time.monotonic()
        while any(_alive(w) for w in workers) and time.monotonic() - killed < 5:
            time.sleep(0.02)
        assert not any(_alive(w) for w in workers)
        assert time.monotonic() - killed < 2.0
    finally:
        for w in _children(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(w, signal.SIGKILL)


def test_compare_table_legend_units_and_denominators(capsys):
    # Item 16: self-explaining columns, a legend, % signs, refusals in no denominator.
    status, out, err = run(capsys, "compare", TOPCUOGLU, MESH, "--methods",
                           "heft,olb,minimal-serial", "-w", "1", "-t", "30", "-q")  # fmt: skip
    assert status == 0, err
    head = next(line for line in out.splitlines() if line.startswith("method  "))
    for column in ("optimum found", "mean gap", "vs best known", "APD", "WPD", "wins",
                   "> serial time", "refused", "errors", "mean s"):  # fmt: skip
        assert column in head
    summary = {line.split()[0]: line for line in out.splitlines()[out.splitlines().index(head):]
               if line and not line.startswith(" ")}  # fmt: skip
    # minimal-serial refuses the mesh instance: 1 run with an optimum, not 2.
    assert " 0/1 " in summary["minimal-serial"] and summary["heft"].count("%") == 5
    assert summary["olb"].startswith("olb *")
    for words in ("gap: (makespan - reference) / reference", "> serial time: valid schedules",
                  "refused: the method does not apply", "count in no denominator",
                  "errors: runs that raised", "* picks processors by earliest start"):  # fmt: skip
        assert words in " ".join(out.split())  # the legend lines are wrapped


def test_compare_without_certification_gaps_to_best_known(capsys):
    # Issue 15, item 3: an uncertified optimum is not the reference.
    status, out, _ = run(capsys, "compare", TOPCUOGLU, "--methods", "heft", "-w", "1", "-t",
                         "30", "--no-certify", "--json")  # fmt: skip
    rows = {r["method"]: r for r in json.loads(out)["rows"]}
    assert rows["cpsat"]["status"] == "feasible" and rows["cpsat"]["certified"] is None
    assert rows["heft"]["optimum"] is None and rows["heft"]["reference_kind"] == "best known"
    assert rows["heft"]["gap"] == pytest.approx(7 / 73) and rows["heft"]["gap_to_optimum"] is None
    status, out, _ = run(capsys, "compare", TOPCUOGLU, "--methods", "heft", "-w", "1", "-t",
                         "30", "--no-certify", "-q")  # fmt: skip
    assert "reference: best known 73 (no certified optimum" in out
    assert "gap to best known" in out and "certified optimum known for 0" in out


def test_result_gap_is_relative_to_the_bound():
    # One gap definition: (makespan - reference) / reference.
    from exactsched import Result, Status
    from exactsched.result import relative_gap

    r = Result("x", Status.FEASIBLE, None, 80.0, 72.0, 0.0)
    assert r.gap == pytest.approx(8 / 72) and r.to_json()["gap"] == pytest.approx(8 / 72)
    assert relative_gap(0, 0) == 0.0 and relative_gap(3, 0) is None
    assert relative_gap(70, 72) == 0.0 and relative_gap(None, 1) is None


# ---- item 17: plots read through matplotlib's artists -------------------------------


def _many_rows(n_methods: int = 24) -> list[dict]:
    rows = []
    for i in range(6):
        for m in range(n_methods):
            makespan = 100.0 + m * (i + 1) * 3
            rows.append(dict(instance_key=f"i{i}", label=f"method-{m:02d}", kind="heuristic",
                             makespan=makespan, seconds=0.001 * (m + 1), optimum=100.0,
                             gap_to_optimum=(makespan - 100) / 100 * (50 if m == 3 else 1),
                             ccr=[0.1, 1, 10][i % 3], tasks=10 * (i + 1)))  # fmt: skip
    return rows


def _inside(fig, artist) -> bool:
    fig.canvas.draw()
    box, frame = artist.get_window_extent(), fig.bbox
    return (box.x0 >= frame.x0 - 1 and box.y0 >= frame.y0 - 1 and box.x1 <= frame.x1 + 1
            and box.y1 <= frame.y1 + 1)  # fmt: skip


@pytest.mark.parametrize("metric", ["makespan", "seconds"])
def test_profile_legend_shows_every_method_inside_the_figure(metric):
    from exactsched.experiments.plots import performance_profile

    rows = _many_rows()
    fig = performance_profile(rows, metric=metric)
    legend = fig.legends[0]
    assert {t.get_text() for t in legend.get_texts()} == {r["label"] for r in rows}
    assert _inside(fig, legend)  # not cut off
    assert fig.axes[0].get_xscale() == ("log" if metric == "seconds" else "linear")


def test_gap_plots_use_a_symlog_axis_and_show_their_legend():
    from exactsched.experiments.plots import gap_against, gap_distributions

    rows = _many_rows(10)
    fig = gap_distributions(rows)
    ax = fig.axes[0]
    assert ax.get_yscale() == "symlog" and ax.get_ylim()[1] > 1000  # a 3,000 % outlier
    assert [t.get_text() for t in ax.get_xticklabels()][0] == "method-00"
    for key in ("ccr", "tasks"):
        fig = gap_against(rows, key)
        assert fig.axes[0].get_yscale() == "symlog"
        legend = fig.legends[0]
        assert len(legend.get_texts()) == 8 and _inside(fig, legend)


def test_gantt_legend_does_not_overlap_the_x_label():
    from exactsched.experiments.plots import gantt_chart

    problem = load_instance(TOPCUOGLU)
    fig = gantt_chart(problem, solve(problem, "heft").schedule)
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["idle", "data transfer (arrival)"]
    assert _inside(fig, legend)
    label = fig.axes[0].xaxis.label
    assert not legend.get_window_extent().overlaps(label.get_window_extent())


def test_gantt_with_dollar_signs_and_an_unknown_processor(tmp_path, capsys):
    # Item 8 (gantt): "$" is plain text, not math; a schedule naming a processor the
    # instance lacks is refused with one line.
    doc = json.loads(Path(TOPCUOGLU).read_text())
    doc["name"] = "cost $5 and $6"
    inst = tmp_path / "dollar.json"
    inst.write_text(json.dumps(doc))
    result = solve(load_instance(inst), "heft")
    sched = tmp_path / "s.json"
    sched.write_text(json.dumps(result.to_json()))
    status, _, err = run(capsys, "gantt", sched, inst, "-o", tmp_path / "a.png")
    assert status == 0, err
    status, _, err = run(capsys, "gantt", sched, inst, "-o", tmp_path / "b.png", "--title",
                         "$x^$ and $")  # fmt: skip
    assert status == 0, err and (tmp_path / "b.png").read_bytes()[:4] == b"\x89PNG"
    bad = result.to_json()
    bad["tasks"][0]["processor"] = "nowhere"
    sched.write_text(json.dumps(bad))
    status, _, err = run(capsys, "gantt", sched, TOPCUOGLU, "-o", tmp_path / "c.png")
    assert status == 2 and "nowhere" in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_databases_from_before_the_claims_table_still_open(tmp_path, capsys):
    import sqlite3

    db = _study(tmp_path, capsys)
    with sqlite3.connect(db) as con:  # as written by the previous release
        con.execute("DROP TABLE claims")
    con.close()
    status, out, err = run(capsys, "results", db, "--json")
    assert status == 0, err and len(json.loads(out)) == 2
    status, out, err = run(capsys, "compare", TOPCUOGLU, "--exact", "none", "--methods",
                           "heft,cpop,peft", "-q", "--db", db)  # fmt: skip
    assert status == 0 and "1 run(s) now, 2 from the database" in out
    with sqlite3.connect(db) as con:
        con.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    con.close()
    for argv in (["results", db], ["compare", TOPCUOGLU, "--exact", "none", "--db", db]):
        status, _, err = run(capsys, *argv)
        assert status == 2 and "schema 0, expected 1" in err
        assert len(err.strip().splitlines()) == 1


def test_gantt_chart_marks_zero_length_tasks():
    # An outside audit: a task of cost 0 drew nothing (a rectangle of width 0).
    from exactsched.experiments.plots import gantt_chart

    problem = Problem.from_lists([0, 2, 0], [(0, 1, 0), (1, 2, 0)], n_processors=1)
    schedule = solve(problem, "heft").schedule
    fig = gantt_chart(problem, schedule)
    marks = {line.get_gid(): line.get_xydata().tolist() for line in fig.axes[0].lines}
    assert marks["zero:t0"] == [[0.0, 0.0]] and marks["zero:t2"] == [[2.0, 0.0]]
    assert "zero:t1" not in marks


def test_gantt_svg_ids_are_unique_and_name_every_task(tmp_path):
    # A task named like one of matplotlib's own ids ("patch_1") gave two elements of that
    # id, and a task named "" none (an outside audit): every task is "task:" + its id.
    import re

    from exactsched.experiments.plots import gantt_chart

    names = ["patch_1", "", "a b", "<&>"]
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}]},
        "tasks": [{"id": n, "cost": k + 1} for k, n in enumerate(names)],
        "edges": [{"src": "patch_1", "dst": "", "data": 1}],
    }
    problem = parse_instance(doc)
    schedule = solve(problem, "heft").schedule
    assert validate(problem, schedule) == []
    fig = gantt_chart(problem, schedule)
    fig.savefig(tmp_path / "g.svg")
    ids = re.findall(r' id="([^"]*)"', (tmp_path / "g.svg").read_text(encoding="utf-8"))
    assert len(ids) == len(set(ids))
    escaped = {"<&>": "&lt;&amp;&gt;"}
    assert {f"task:{escaped.get(n, n)}" for n in names} <= set(ids)


# ---- outputs that would replace each other; addresses where no scheduler speaks ----


@pytest.mark.parametrize(
    ("argv", "clash"),
    [
        (["compare", "{t}", "--exact", "none", "--methods", "heft", "--db", "x.sqlite",
          "--report", "x.sqlite"], "--report x.sqlite: is also --db x.sqlite"),
        (["compare", "{t}", "--exact", "none", "--methods", "heft", "--report", "pl",
          "--plots", "pl"], "--plots pl: is also --report pl"),
        (["results", "{db}", "--json", "-o", "x.md", "--report", "./x.md"],
         "--output x.md: is also --report ./x.md"),
    ],
)  # fmt: skip
def test_two_outputs_at_one_path_are_refused_before_any_work(
    tmp_path, capsys, monkeypatch, argv, clash
):
    # A report written over a new study database lost every run; a report and plots in
    # one folder failed after the study; results -o and --report kept one of the two.
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "s.sqlite"
    assert run(capsys, "compare", TOPCUOGLU, "--exact", "none", "--methods", "heft", "-q",
               "--db", db)[0] == 0  # fmt: skip
    status, _, err = run(capsys, *[a.format(t=TOPCUOGLU, db=db) for a in argv])
    assert status == 2 and clash in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.sqlite").exists() and not (tmp_path / "pl").exists()


def test_a_dask_address_where_no_scheduler_speaks_is_refused(tmp_path, capsys, monkeypatch):
    # Client() waited forever on a port where a web server (or nothing that speaks)
    # listens; tls:// without a security context was an internal error (exit 3).
    pytest.importorskip("distributed")
    import socket
    import threading

    from exactsched.experiments import cluster

    monkeypatch.setattr(cluster, "HANDSHAKE_SECONDS", 0.5)
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    db = tmp_path / "d.sqlite"
    base = ["compare", TOPCUOGLU, "--exact", "none", "--methods", "heft", "-q", "--db", db]
    try:
        status, _, err = run(capsys, *base, "--dask", f"tcp://127.0.0.1:{port}")
        assert status == 2 and "no Dask scheduler answered" in err and not db.exists()
        status, _, err = run(capsys, *base, "--dask", "tls://127.0.0.1:1")
        assert status == 2 and "cannot connect" in err and "Traceback" not in err
    finally:
        server.close()
