"""The study commands: compare, results and gantt (CLI), and the plots they draw."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from exactsched import load_instance, solve, validate
from exactsched.cli import main

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
    boxes = {p.get_gid(): p for p in ax.patches if isinstance(p, Rectangle) and p.get_gid()}
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
