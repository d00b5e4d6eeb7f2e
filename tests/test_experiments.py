"""Sweeps (exactsched.experiments): storage, resume after SIGKILL, crashes, limits, Dask."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import exactsched
from exactsched import MethodError, Placement, Result, Schedule, Status, load_instance, validate
from exactsched.experiments import (
    LocalPool,
    Store,
    Task,
    instance_references,
    load_rows,
    run_sweep,
    to_dataframe,
)
from exactsched.experiments.instances import canonical_json, instance_key
from exactsched.generators import random_instance
from exactsched.registry import _REGISTRY

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TOPCUOGLU = str(EXAMPLES / "topcuoglu2002.json")
MESH = str(EXAMPLES / "mesh-isolation.json")
# Columns that depend on timing, not on what was computed.
TIMING = ("seconds", "finished", "stats")


def _content(store: Store) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMING} for r in store.runs(schedules=True)]


@contextlib.contextmanager
def _local_cluster(processes: bool = False):
    """A local Dask cluster of one single-threaded worker and its client: in this process
    (``processes=False``, for monkeypatched runs) or in a process of its own."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=processes, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield cluster, client


@contextlib.contextmanager
def _threads_cluster():
    """A client of an in-process Dask cluster: one worker thread (for monkeypatched runs)."""
    with _local_cluster() as (_, client):
        yield client


# ---- methods that misbehave, registered only for the test that uses them ----------


def _crash(problem):
    os._exit(3)


def _segfault(problem):
    import ctypes
    import faulthandler

    faulthandler.disable()  # pytest's dump of the crash is noise here
    ctypes.string_at(0)  # reads address 0: SIGSEGV, as a crashing solver would


def _raise(problem):
    raise RuntimeError("boom\nsecond line")


def _invalid(problem):
    # Every task at time 0 on the first processor: overlapping, so invalid.
    return Schedule(
        {t: Placement(problem.proc_ids[0], 0, float(problem.cost[i, 0]))
         for i, t in enumerate(problem.task_ids)}
    )  # fmt: skip


def _sleep(problem):
    time.sleep(60)


def _stamp(problem, path: str = ""):
    start = time.time()
    time.sleep(0.3)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"{start} {time.time()}\n")
    return exactsched.solve(problem, "heft").schedule


def _bounded(problem, *, time_limit=None, workers=None, seed=0):
    """An exact method that stops early: HEFT's schedule and the cheap lower bound."""
    schedule = exactsched.solve(problem, "heft").schedule
    bound = exactsched.lower_bound(problem)
    return Result("test-bounded", Status.FEASIBLE, schedule, schedule.makespan, bound, 0.0)


def _certified(problem, *, time_limit=None, workers=None, seed=0, certify=None):
    """cpsat's answer, marked certified by a witness (as the trust work will do)."""
    r = exactsched.solve(problem, "cpsat", time_limit=time_limit, workers=workers, seed=seed)
    return Result("test-certified", r.status, r.schedule, r.makespan, r.lower_bound, 0.0,
                  certified=True, certified_by=("milp", "bruteforce"))  # fmt: skip


def _false_optimum(problem, *, time_limit=None, workers=None, seed=0):
    """An exact method that claims its (HEFT) schedule optimal: a false proof."""
    schedule = exactsched.solve(problem, "minimal-serial").schedule
    m = schedule.makespan
    return Result("test-false-optimum", Status.OPTIMAL, schedule, m, m, 0.0)


@pytest.fixture
def bad_methods():
    names = {
        "test-crash": (_crash, "heuristic"),
        "test-segfault": (_segfault, "heuristic"),
        "test-raise": (_raise, "heuristic"),
        "test-invalid": (_invalid, "heuristic"),
        "test-sleep": (_sleep, "heuristic"),
        "test-stamp": (_stamp, "heuristic"),
        "test-false-optimum": (_false_optimum, "exact"),
        "test-bounded": (_bounded, "exact"),
        "test-certified": (_certified, "exact"),
    }
    for name, (func, kind) in names.items():
        exactsched.register(name, kind=kind, description="test", source="test")(func)
    yield
    for name in names:
        _REGISTRY.pop(name, None)


# ---- sweeps -----------------------------------------------------------------------


def test_sweep_records_every_run_and_validates_every_schedule(tmp_path):
    db = tmp_path / "s.sqlite"
    out = run_sweep(
        [TOPCUOGLU, MESH], "heft,minimal-serial,heft:ranking=median", exact="cpsat",
        time_limit=30, workers=1, db=db, progress="none",
    )  # fmt: skip
    assert (out.planned, out.ran, out.errors) == (8, 8, 0)
    rows = {(r["instance"][:4], r["label"]): r for r in load_rows(out.store)}
    assert rows["Topc", "cpsat"]["status"] == "optimal"
    assert rows["Topc", "heft"]["makespan"] == 80 and rows["Topc", "heft"]["optimum"] == 73
    assert rows["Topc", "heft"]["gap_to_optimum"] == pytest.approx(7 / 73)
    refused = rows["mesh", "minimal-serial"]
    assert refused["status"] == "not-applicable" and "affinity" in refused["error"]
    assert rows["mesh", "heft"]["status"] == "feasible"  # the others still reported
    assert ("Topc", "heft[ranking=median]") in rows
    docs = {i["key"]: json.loads(i["document"]) for i in out.store.instances()}
    for run in out.store.runs(schedules=True):
        if run["schedule"] is not None:
            problem = load_instance(docs[run["instance"]])
            assert validate(problem, Schedule.from_json(json.loads(run["schedule"]))) == []
    out.store.close()


def test_time_limit_and_certify_reach_every_exact_method(tmp_path):
    out = run_sweep(
        [TOPCUOGLU], "heft", exact="cpsat,milp", time_limit=7, workers=1, certify=True,
        progress="none",
    )  # fmt: skip
    options = {r["method"]: json.loads(r["options"]) for r in out.store.runs()}
    for method in ("cpsat", "milp"):
        assert options[method]["time_limit"] == 7 and options[method]["certify"] is True
    assert options["heft"] == {}  # heuristics ignore both: not in their key
    rows = load_rows(out.store)
    assert all("certified" in r for r in rows)


def test_certification_is_stored_and_summarised(bad_methods):
    from exactsched.experiments import summarise
    from exactsched.experiments.report import summary_text

    out = run_sweep([TOPCUOGLU], "heft", exact="test-certified", workers=1, time_limit=30,
                    progress="none")  # fmt: skip
    rows = {r["method"]: r for r in load_rows(out.store)}
    assert rows["test-certified"]["certified"] is True
    # solve()'s own certification ran on top of the stub's claim and names its witnesses.
    assert rows["test-certified"]["certified_by"]
    assert rows["heft"]["certified"] is None
    summary = {s["method"]: s for s in summarise(load_rows(out.store))}
    assert (summary["test-certified"]["proofs"], summary["test-certified"]["certified"]) == (1, 1)
    assert "test-certified: 1 proven optima, 1 certified" in summary_text(load_rows(out.store))


def test_resume_skips_finished_runs_and_fresh_recomputes(tmp_path):
    db = tmp_path / "r.sqlite"
    first = run_sweep([TOPCUOGLU], "heft,cpop", exact="none", db=db, progress="none")
    first.store.close()
    again = run_sweep([TOPCUOGLU], "heft,cpop,peft", exact="none", db=db, progress="none")
    assert (again.skipped, again.ran) == (2, 1)
    again.store.close()
    fresh = run_sweep([TOPCUOGLU], "heft", exact="none", db=db, fresh=True, progress="none")
    assert fresh.ran == 1
    assert len(list(fresh.store.runs())) == 3  # replaced, not duplicated


def test_crash_exception_invalid_and_timeout_become_rows(tmp_path, bad_methods):
    out = run_sweep(
        [TOPCUOGLU], "test-crash,test-segfault,test-raise,test-invalid,test-sleep,heft",
        exact="none", deadline=2.0, jobs=2, progress="none",
    )  # fmt: skip
    rows = {r["method"]: r for r in out.store.runs()}
    assert len(rows) == 6 and out.errors == 5
    assert "killed by signal SIGSEGV" in rows["test-segfault"]["error"]
    assert rows["test-crash"]["status"] == "error"
    assert "died" in rows["test-crash"]["error"] and "exit code 3" in rows["test-crash"]["error"]
    assert rows["test-raise"]["error"] == "RuntimeError: boom second line"
    assert rows["test-invalid"]["status"] == "invalid"
    assert rows["test-invalid"]["error"].startswith("invalid schedule:")
    assert rows["test-sleep"]["status"] == "error"
    assert rows["test-sleep"]["error"].startswith("time limit: killed after")
    assert rows["test-sleep"]["seconds"] < 10
    assert rows["heft"]["status"] == "feasible" and rows["heft"]["makespan"] == 80
    again = run_sweep(
        [TOPCUOGLU], "test-crash,test-raise,test-invalid,heft", exact="none", db=out.store,
        retry_errors=True, progress="none",
    )  # fmt: skip
    assert (again.ran, again.skipped) == (2, 2)  # the crash and the exception, not the rest


def test_progress_bar_and_lines():
    import io

    from exactsched.experiments.progress import Progress

    stream = io.StringIO()
    with Progress(3, mode="bar", stream=stream) as bar:
        for status in ("feasible", "error", "optimal"):
            bar.update("m", status)
    assert "3/3" in stream.getvalue() and "1 error(s)" in stream.getvalue()
    stream = io.StringIO()
    with Progress(3, mode="auto", stream=stream, every=3600) as lines:
        for status in ("feasible", "error", "optimal"):
            lines.update("m", status)
    assert stream.getvalue().splitlines() == [stream.getvalue().splitlines()[-1]]
    assert stream.getvalue().startswith("[3/3] 100% 1 error(s) done")


def test_pool_never_oversubscribes_cores(tmp_path, bad_methods):
    problem = load_instance(TOPCUOGLU)
    key, doc = instance_key(problem), canonical_json(problem)
    stamps = {k: tmp_path / f"{k}.txt" for k in range(5)}
    widths = [2, 1, 1, 2, 1]
    tasks = [
        (k, Task(key, doc, "test-stamp", "heuristic", {"path": str(stamps[k])}, threads=w))
        for k, w in enumerate(widths)
    ]
    rows = {}
    LocalPool(processes=2, cores=2).run(tasks, lambda tid, row: rows.update({tid: row}))
    assert all(r["status"] == "feasible" for r in rows.values())
    spans = {k: tuple(map(float, p.read_text().split())) for k, p in stamps.items()}
    for k, w in enumerate(widths):
        if w == 2:  # a two-core run shares the two cores with nothing
            for j in spans:
                if j != k:
                    a, b = spans[k], spans[j]
                    assert a[1] <= b[0] + 0.05 or b[1] <= a[0] + 0.05


def test_an_uncertified_claim_is_never_picked(bad_methods):
    # Without certification neither cpsat's claim nor the false one is an optimum
    # (an engine's word is no proof): the reference is the best schedule known.
    out = run_sweep(
        [TOPCUOGLU], "heft", exact="cpsat,test-false-optimum", workers=1, time_limit=30,
        certify=False, progress="none",
    )  # fmt: skip
    rows = load_rows(out.store)
    assert {r["status"] for r in rows if r["kind"] == "exact"} == {"feasible"}
    assert {r["optimum"] for r in rows} == {None}
    assert {(r["reference"], r["reference_kind"]) for r in rows} == {(73, "best known")}


def test_contradicting_claims_are_disputed():
    # Uncertified claims take part in the agreement: two claims a grid step apart.
    from exactsched import Result, Status
    from models.certify import agree

    def claim(name: str, makespan: int) -> Result:
        said = {"claim": {"makespan": makespan, "bound": makespan}}
        return Result(name, Status.FEASIBLE, None, makespan, 58, 0.0, said)

    verdict = agree([claim("a", 73), claim("b", 127)])
    assert verdict.status == "disputed" and verdict.optimum is None
    assert "a claims 73 but b claims 127" in verdict.reasons
    assert "b's bound 127 is above a's valid makespan 73" in verdict.reasons


def test_certification_turns_a_false_optimum_into_a_feasible_result(bad_methods):
    # With the default policy the false proof is caught, so nothing is disputed.
    out = run_sweep(
        [TOPCUOGLU], "heft", exact="cpsat,test-false-optimum", workers=1, time_limit=30,
        progress="none",
    )  # fmt: skip
    rows = {r["method"]: r for r in load_rows(out.store)}
    assert rows["test-false-optimum"]["status"] == "feasible"
    assert {r["disputed"] for r in rows.values()} == {None}
    assert {r["optimum"] for r in rows.values()} == {73}


def test_bounded_exact_run_gives_gaps_to_best_and_bound(bad_methods, capsys):
    from exactsched.cli import main

    out = run_sweep([TOPCUOGLU], "cpop,heft", exact="test-bounded", progress="none")
    rows = {r["method"]: r for r in load_rows(out.store)}
    cpop = rows["cpop"]  # 86; heft 80 is the best known; the bound is 58 (path-load LP)
    assert cpop["optimum"] is None and cpop["gap_to_optimum"] is None
    assert cpop["best_known"] == 80 and cpop["gap_to_best"] == pytest.approx(6 / 80)
    assert cpop["best_bound"] == 58 and cpop["gap_to_bound"] == pytest.approx(28 / 58)
    status = main(["compare", TOPCUOGLU, "--exact", "test-bounded", "--methods", "cpop", "-q"])
    text = capsys.readouterr().out
    assert status == 0 and "reference: best known 80 (no certified optimum; best lower" in text
    assert "bound 58" in text and "<=48.28% above the optimum" in text
    assert "gap to best known" in text and "7.50%" in text  # cpop: 86 vs 80


def test_loading_goes_through_the_workloads_loader_when_present(monkeypatch):
    import exactsched.workloads as workloads
    from exactsched.experiments.instances import load_problem

    calls = []

    def fake(path, platform=None):
        calls.append((str(path), platform))
        return load_instance(TOPCUOGLU)

    monkeypatch.setattr(workloads, "load_problem", fake, raising=False)
    run_sweep(["tests/data/stg"], "heft", exact="none", progress="none").store.close()
    assert load_problem(MESH, "plat.json").name == load_instance(TOPCUOGLU).name
    assert calls[-1] == (MESH, "plat.json")
    assert any(path.endswith(".stg") for path, _ in calls)  # its formats are discovered


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ([("exact", "optimal", 7, 7), ("exact", "optimal", 8, 8)], "a proves 7 but b proves 8"),
        ([("exact", "optimal", 8, 8), ("heuristic", "feasible", 7, 5)],
         "a's bound 8 is above b's valid makespan 7"),
        ([("exact", "optimal", 8, 8), ("exact", "feasible", 10, 9)],
         "b's bound 9 is above a's valid makespan 8"),
        ([("exact", "optimal", 8, 8), ("exact", "optimal", 8 * (1 + 1e-12), 8)], None),
    ],
)  # fmt: skip
def test_instance_references_disputes(claims, reason):
    rows = [
        dict(method=name, kind=kind, status=status, makespan=m, lower_bound=lb, certified=True)
        for name, (kind, status, m, lb) in zip("abcd", claims, strict=False)
    ]
    ref = instance_references(rows)
    if reason is None:
        assert ref["disputed"] is None and ref["optimum"] == 8
    else:
        assert reason in ref["disputed"] and ref["optimum"] is None


@pytest.mark.parametrize(
    ("costs", "a", "b", "disputed"),
    [
        # Issue 15, item 3: 1998 and 2331 at 3e12 are 1.1e-10 relative apart, one
        # grid step and more on integer data: a dispute, whatever the magnitude.
        ([[3e12, 1]], 3000000001998, 3000000002331, True),
        ([[3e12, 1]], 3000000001998, 3000000001999, True),  # one step
        ([[3e12, 1]], 3000000001998, 3000000001998 + 1e-4, False),  # float noise
        ([[0.1, 1]], 1e9 + 0.1, 1e9 + 0.2, True),  # decimal data: grid 0.1
        ([[1 / 3, 1]], 1e9 + 0.1, 1e9 + 0.1 + 1e-3, False),  # off any grid: 1e-9 relative
    ],
)
def test_disputes_are_decided_on_the_data_grid(costs, a, b, disputed):
    from exactsched import Problem

    problem = Problem.from_lists(costs, [])
    claim = dict(kind="exact", status="optimal", certified=True)
    rows = [
        dict(method="m", makespan=a, lower_bound=a, **claim),
        dict(method="n", makespan=b, lower_bound=b, **claim),
    ]
    ref = instance_references(rows, problem)
    assert (ref["disputed"] is not None) == disputed
    assert (ref["optimum"] is None) == disputed


def test_only_a_certified_optimum_is_the_reference():
    # Issue 15, item 3: an uncertified "optimal" (e.g. witnesses timed out, or a
    # heuristic schedule injected as optimal) is not a reference optimum.
    rows = [
        dict(method="x", kind="exact", status="optimal", makespan=8, lower_bound=8,
             certified=None),
        dict(method="h", kind="heuristic", status="feasible", makespan=9, lower_bound=5),
    ]  # fmt: skip
    ref = instance_references(rows)
    assert ref["optimum"] is None
    assert (ref["reference"], ref["reference_kind"]) == (8, "best known")
    rows[0]["certified"] = False
    assert instance_references(rows)["optimum"] is None
    rows[0]["certified"] = True
    ref = instance_references(rows)
    assert (ref["optimum"], ref["reference_kind"]) == (8, "optimum")


def test_optimum_from_a_bound_met_by_a_heuristic():
    rows = [dict(method="heft", kind="heuristic", status="feasible", makespan=5, lower_bound=5)]
    assert instance_references(rows)["optimum"] == 5


def test_export_columns_and_dataframe(tmp_path):
    pd = pytest.importorskip("pandas")
    db = tmp_path / "e.sqlite"
    run_sweep([MESH], "heft,minimal-serial", exact="none", db=db, progress="none").store.close()
    frame = to_dataframe(db)
    assert isinstance(frame, pd.DataFrame) and len(frame) == 2
    needed = {"instance", "method", "options", "status", "makespan", "lower_bound",
              "gap_to_optimum", "seconds", "error"}  # fmt: skip
    assert needed <= set(frame.columns)


def test_store_refuses_foreign_files(tmp_path):
    bad = tmp_path / "x.sqlite"
    bad.write_text("not a database at all" * 100)
    with pytest.raises(exactsched.InstanceError, match="not a study database"):
        Store(bad)


# ---- the two done-when tests of issue 11 ------------------------------------------

_SLOW_SCRIPT = """
import sys, time
import exactsched
from exactsched.cli import main

@exactsched.register("test-slow", kind="heuristic", description="heft, slowly", source="test")
def slow(problem):
    time.sleep(0.15)
    return exactsched.solve(problem, "heft").schedule

sys.exit(main(sys.argv[1:]))
"""


def _instances(folder: Path) -> Path:
    folder.mkdir()
    for name in ("topcuoglu2002.json", "mesh-isolation.json"):
        (folder / name).write_text((EXAMPLES / name).read_text())
    for seed, topology in enumerate(("mesh", "accelerated-node", "fat-tree", "matrix")):
        p = random_instance(8, 4, topology=topology, n_isolation=1, affinity=0.2, seed=seed)
        (folder / f"random-{seed}.json").write_text(json.dumps(p.to_json()))
    return folder


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_sigkill_mid_sweep_then_resume_equals_clean_run(tmp_path):
    folder = _instances(tmp_path / "inst")
    script = tmp_path / "run.py"
    script.write_text(_SLOW_SCRIPT)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    args = ["compare", str(folder), "--methods", "test-slow,heft,peft,minimal-serial",
            "--exact", "cpsat", "-t", "20", "-w", "1", "-j", "2", "-q"]  # fmt: skip
    total = 6 * 5

    def command(db: Path) -> list[str]:
        return [sys.executable, str(script), *args, "--db", str(db)]

    killed = tmp_path / "killed.sqlite"
    proc = subprocess.Popen(
        command(killed), env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while _count(killed) < 4 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    at_kill = _count(killed)
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its pool processes
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert 0 < at_kill < total, "the sweep was not killed mid-run"
    resumed = subprocess.run(command(killed), env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    clean = tmp_path / "clean.sqlite"
    fresh = subprocess.run(command(clean), env=env, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stderr
    with Store(killed) as a, Store(clean) as b:
        rows_a, rows_b = _content(a), _content(b)
    keys = [(r["instance"], r["method"]) for r in rows_a]
    assert len(keys) == len(set(keys)) == total  # every (instance, method) exactly once
    assert rows_a == rows_b


def test_local_pool_and_dask_local_cluster_give_the_same_database(tmp_path):
    distributed = pytest.importorskip("distributed")
    folder = _instances(tmp_path / "inst")
    common = dict(methods="heft,cpop,peft,random-eft,minimal-serial", exact="cpsat",
                  time_limit=20, workers=1, progress="none")  # fmt: skip
    local = run_sweep([folder], db=tmp_path / "local.sqlite", jobs=2, **common)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        remote = run_sweep([folder], db=tmp_path / "dask.sqlite", dask=client, **common)
    assert remote.ran == local.ran == 36 and remote.errors == 0
    assert _content(local.store) == _content(remote.store)


def test_rows_from_other_code_on_a_dask_cluster_are_not_stored(tmp_path, monkeypatch):
    # A worker started before an edit ran heft without insertion, and its rows were stored
    # under this code's key (an outside audit); a worker without a script's method stored
    # "not-applicable" for good. The sweep now stops with one line and stores neither.
    pytest.importorskip("distributed")
    from exactsched.experiments import runner

    folder = _instances(tmp_path / "inst")
    common = dict(methods="heft", exact="none", progress="none")
    real = runner.code_of
    for ran_by, why in ((real("heft") + "x", "ran on other code"),
                        ("0+a/unregistered", "not registered where it ran")):  # fmt: skip
        monkeypatch.setattr(runner, "code_of", lambda method, ran_by=ran_by: ran_by)
        db = tmp_path / f"{len(why)}.sqlite"
        with (
            _threads_cluster() as client,
            pytest.raises(MethodError, match=f"^heft: .*{why}.*nothing was stored"),
        ):
            run_sweep([folder], db=db, dask=client, **common)
        with Store(db) as store:
            assert _content(store) == []
    monkeypatch.setattr(runner, "code_of", real)
    again = run_sweep([folder], db=db, jobs=1, **common)  # the same database, then finished
    assert again.errors == 0 and again.ran == again.planned > 0


def test_a_row_from_an_older_dask_worker_is_not_stored(tmp_path, monkeypatch):
    # Workers of an exactsched from before the code check send rows without ran_by: they
    # were stored under this code's key (an outside audit: heft 216 where the code gives
    # 206). The sweep stops with one line and stores nothing.
    pytest.importorskip("distributed")
    from exactsched.experiments import cluster, runner

    monkeypatch.setattr(cluster, "execute", runner._execute)  # an older worker's execute
    db = tmp_path / "s.sqlite"
    with (
        _threads_cluster() as client,
        pytest.raises(MethodError, match=r"^--dask: a worker returned a row without the code"),
    ):
        run_sweep([TOPCUOGLU], "heft", exact="none", db=db, dask=client, progress="none")
    with Store(db) as store:
        assert _content(store) == []


def test_a_sweep_refuses_sources_edited_since_import(tmp_path, monkeypatch):
    # Modules imported before an edit run old code, those imported after it new code, and
    # the fingerprint hashes the files: a study would file either under the wrong key.
    from exactsched import _sources
    from exactsched.experiments import runner

    monkeypatch.setattr(_sources, "AT_IMPORT", (("exactsched/edited.py", 1, 1),))
    monkeypatch.setattr(_sources, "DIGEST_AT_IMPORT", "0" * 64)  # other contents
    monkeypatch.setattr(_sources, "_last", [-math.inf])  # no "unchanged" from before
    monkeypatch.setattr(_sources, "_changed", [False])  # sticky: restored after the test
    assert runner.code_of("heft").endswith("/sources-changed-since-import")
    with pytest.raises(MethodError, match=r"^exactsched's sources changed after this Python"):
        run_sweep([TOPCUOGLU], "heft", exact="none", db=tmp_path / "s.sqlite", progress="none")
    assert not (tmp_path / "s.sqlite").exists()


def test_a_script_method_that_cannot_travel_is_named(tmp_path):
    pytest.importorskip("distributed")
    import threading

    lock = threading.Lock()

    def locked(problem):  # a closure over a lock: it cannot be pickled
        with lock:
            return exactsched.solve(problem, "heft").schedule

    exactsched.register("test-locked", kind="heuristic", description="t", source="t")(locked)
    try:
        with (
            _threads_cluster() as client,
            pytest.raises(MethodError, match=r"^test-locked: cannot be sent to the Dask workers"),
        ):
            run_sweep([TOPCUOGLU], "test-locked", exact="none", db=tmp_path / "s.sqlite",
                      dask=client, progress="none")  # fmt: skip
    finally:
        _REGISTRY.pop("test-locked", None)


def test_sources_touched_without_a_change_are_no_change(monkeypatch):
    # touch, git stash && git stash pop: the stamps move, the contents stay; a study in
    # that process was refused (an outside review). The fingerprint is the contents'.
    from exactsched import _sources
    from exactsched.experiments.fingerprint import code_fingerprint

    monkeypatch.setattr(_sources, "AT_IMPORT", (("exactsched/touched.py", 1, 1),))
    monkeypatch.setattr(_sources, "_last", [-math.inf])
    monkeypatch.setattr(_sources, "_changed", [False])
    monkeypatch.setattr(_sources, "_loaded", [_sources._package_modules()])
    assert _sources.changed_since_import() is False
    assert _sources.stamp() == _sources.AT_IMPORT  # the new stamp, same contents
    assert code_fingerprint() == _sources.DIGEST_AT_IMPORT[:12] == _sources.digest()[:12]
    assert [name for name, _ in _sources.package_roots()] == list(_sources.PACKAGES)
    # A stamp that moved while a module was newly imported: it may hold other code.
    monkeypatch.setattr(_sources, "AT_IMPORT", (("exactsched/touched.py", 1, 1),))
    monkeypatch.setattr(_sources, "_last", [-math.inf])
    monkeypatch.setattr(_sources, "_loaded", [0])
    assert _sources.changed_since_import() is True
    assert _sources.changed_since_import() is True  # and stays so (sticky)


def test_script_methods_travel_to_dask_worker_processes(tmp_path, bad_methods):
    # Worker processes know only the packages' methods: the sweep ships a script's to
    # them (they stored "not-applicable: unknown method" for good, an outside audit),
    # and a run that kills its worker process is an error row, the sweep going on.
    with _local_cluster(processes=True) as (cluster, client):
        common = dict(exact="none", db=tmp_path / "s.sqlite", dask=client, progress="none")
        run_sweep([TOPCUOGLU], "test-stamp:path=" + str(tmp_path / "stamps") + ",heft", **common)
        # One death is enough (no retries); alone, so that no queued run dies with it.
        cluster.scheduler.allowed_failures = 0
        out = run_sweep([TOPCUOGLU], "test-crash", **common)
    assert out.ran == 1 and out.errors == 1
    rows = {r["method"]: r for r in out.store.runs()}
    assert rows["test-stamp"]["status"] == "feasible" and rows["heft"]["status"] == "feasible"
    assert rows["test-stamp"]["makespan"] == rows["heft"]["makespan"] == 80
    # (An unknown method in the worker stops the sweep: these rows came from the worker.)
    crash = rows["test-crash"]
    assert crash["status"] == "error" and "KilledWorker" in crash["error"]


def test_example_study_runs_quick(tmp_path, capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "optimality_gap_study", EXAMPLES / "optimality_gap_study.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--quick", "--out", str(tmp_path / "study"), "--time-limit", "30"])
    out = capsys.readouterr().out
    assert "5 instance(s), certified optimum known for 5" in out
    assert (tmp_path / "study" / "report.md").read_text().startswith("# Optimality-gap study")
    assert (tmp_path / "study" / "plots" / "profile.png").exists()


def test_a_study_on_big_integers_sees_one_step_disputes_and_gaps():
    # Issue 15, item 3 through the database: 1998 and 2331 at 3e12 are a dispute,
    # gaps are to the best known and 2331 is not "the optimum found".
    from exactsched import Problem
    from exactsched.experiments.instances import describe
    from exactsched.experiments.report import compare_text

    problem = Problem.from_lists([[3e12, 3e12 + 7], [5, 9]], [(0, 1, 3)])
    store = Store(":memory:")
    info = describe(problem, "")
    store.add_instances([info])
    row = dict(lower_bound=None, certified=True, speedup=None, slr=None, failed=False,
               seconds=0.1, error=None, schedule=None, stats=None)  # fmt: skip
    store.add_run(info.key, "cpsat", "{}", "1",
                  {**row, "status": "optimal", "makespan": 3000000001998.0,
                   "lower_bound": 3000000001998.0})  # fmt: skip
    store.add_run(info.key, "milp", "{}", "1",
                  {**row, "status": "optimal", "makespan": 3000000002331.0,
                   "lower_bound": 3000000002331.0})  # fmt: skip
    store.add_run(info.key, "heft", "{}", "1",
                  {**row, "status": "feasible", "makespan": 3000000002331.0})  # fmt: skip
    rows = {r["method"]: r for r in load_rows(store)}
    assert rows["heft"]["disputed"] == "cpsat proves 3000000001998 but milp proves 3000000002331"
    assert rows["heft"]["optimum"] is None and rows["heft"]["reference"] == 3000000001998
    assert rows["heft"]["gap"] == pytest.approx(333 / 3000000001998, rel=1e-6)
    assert rows["cpsat"]["gap"] == 0.0
    text = compare_text(list(rows.values()))
    assert "1.1e-08%" in text and "3000000002331" in text


def test_a_bound_one_step_below_the_best_known_makes_no_optimum_on_big_integers():
    from exactsched import Problem

    problem = Problem.from_lists([[3e12, 1]], [])
    rows = [dict(method="heft", kind="heuristic", status="feasible", makespan=3000000002331,
                 lower_bound=3000000002330)]  # fmt: skip
    assert instance_references(rows, problem)["optimum"] is None
    rows[0]["lower_bound"] = 3000000002331
    assert instance_references(rows, problem)["optimum"] == 3000000002331
