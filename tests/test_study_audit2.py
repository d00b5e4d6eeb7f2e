"""Regression tests of the second study audit (audit C, defects 1 and 3-7).

Each test is one defect of the report: a study that reads stale, partial or
contradicted numbers as final ones, a plot that contradicts its table, or a
damaged database reported as a bug.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import sqlite3
import types
from pathlib import Path

import pytest
from shared_cases import profile_row

from exactsched.experiments import Store, load_rows, run_sweep
from exactsched.experiments import pool as pool_module
from exactsched.experiments import store as store_module
from exactsched.experiments.analysis import superseded_keys
from exactsched.experiments.instances import describe, instance_key, load_problem
from exactsched.instance import load_instance
from tests.test_cli_contract import assert_one_line, run

ROOT = Path(__file__).resolve().parents[1]
TOPCUOGLU = ROOT / "examples" / "topcuoglu2002.json"
MESH12 = ROOT / "examples" / "random-n12-mesh-2x2.json"
FAST = ["--exact", "none", "-j", "1", "--quiet"]


def _compare(capsys, db: Path, *args: object, methods: str = "heft,peft") -> str:
    status, out, err = run(capsys, ["compare", *args, "--db", db, "--methods", methods, *FAST])
    assert status == 0, err
    return out


def _results(capsys, db: Path, *args: object) -> tuple[int, str, str]:
    return run(capsys, ["results", db, *args])


def _scale_first_task(path: Path, factor: float) -> None:
    doc = json.loads(path.read_text())
    doc["tasks"][0]["cost"] = [c * factor for c in doc["tasks"][0]["cost"]]
    path.write_text(json.dumps(doc))


# ---- defect 1: a moved file, then edited ---------------------------------------------


def test_a_moved_then_edited_file_leaves_one_instance_with_the_new_numbers(capsys, tmp_path):
    study, db = tmp_path / "mv", tmp_path / "mv.sqlite"
    (study / "old").mkdir(parents=True)
    shutil.copy(MESH12, study / "old" / "x.json")
    _compare(capsys, db, study)
    (study / "new").mkdir()
    (study / "old" / "x.json").rename(study / "new" / "x.json")
    (study / "old").rmdir()
    _compare(capsys, db, study)
    _scale_first_task(study / "new" / "x.json", 3)
    _compare(capsys, db, study)
    rows = load_rows(db)
    assert len({r["instance_key"] for r in rows}) == 1
    new_key = instance_key(load_problem(study / "new" / "x.json"))
    assert {r["instance_key"] for r in rows} == {new_key}
    fresh = load_rows(db, keys=[(new_key, m, "{}") for m in ("heft", "peft")])
    assert {r["method"]: r["gap"] for r in rows} == {r["method"]: r["gap"] for r in fresh}
    # Markers are never instances.
    with Store(db, readonly=True) as store:
        assert all(key for key, _, _ in store.sources())
        assert "" not in superseded_keys(store)


def test_a_copy_in_an_unscanned_folder_that_still_exists_stays_current(capsys, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(MESH12, tmp_path / "a" / "x.json")
    shutil.copy(MESH12, tmp_path / "b" / "x.json")
    db = tmp_path / "s.sqlite"
    _compare(capsys, db, tmp_path / "a", tmp_path / "b")
    _scale_first_task(tmp_path / "a" / "x.json", 3)
    _compare(capsys, db, tmp_path / "a")  # b is not scanned and still holds the old content
    keys = {r["instance_key"] for r in load_rows(db)}
    assert instance_key(load_problem(tmp_path / "b" / "x.json")) in keys
    assert len(keys) == 2 and not superseded_keys(db)


def test_a_deleted_file_is_superseded_and_current_again_when_it_comes_back(capsys, tmp_path):
    study, db = tmp_path / "s", tmp_path / "s.sqlite"
    study.mkdir()
    shutil.copy(TOPCUOGLU, study / "a.json")
    shutil.copy(MESH12, study / "b.json")
    _compare(capsys, db, study)
    (study / "b.json").unlink()
    _compare(capsys, db, study)  # the folder is scanned again: b.json is gone
    gone = instance_key(load_problem(MESH12))
    assert superseded_keys(db) == {gone}
    assert gone not in {r["instance_key"] for r in load_rows(db)}
    shutil.copy(MESH12, study / "b.json")
    _compare(capsys, db, study)
    assert not superseded_keys(db)
    assert len({r["instance_key"] for r in load_rows(db)}) == 2


def test_a_file_left_off_the_command_line_is_not_marked_gone(capsys, tmp_path):
    shutil.copy(TOPCUOGLU, tmp_path / "a.json")
    shutil.copy(MESH12, tmp_path / "b.json")
    db = tmp_path / "s.sqlite"
    _compare(capsys, db, tmp_path / "a.json", tmp_path / "b.json")
    _compare(capsys, db, tmp_path / "a.json")
    assert len({r["instance_key"] for r in load_rows(db)}) == 2


# ---- defect 3: an interrupted study ----------------------------------------------------


def _interrupted_sweep(monkeypatch, folder: Path, db: Path) -> None:
    """A sweep stopped (Ctrl-C) after claiming its first run, before its second."""

    def stopped(self, tasks, on_result, *, claim=None):
        key, _ = next(iter(tasks))
        assert claim(key)
        raise KeyboardInterrupt

    monkeypatch.setattr(pool_module.LocalPool, "run", stopped)
    with pytest.raises(KeyboardInterrupt):
        run_sweep([folder], "heft", exact="none", db=db, progress="none", jobs=1)
    monkeypatch.undo()


def test_results_says_an_interrupted_study_is_incomplete(capsys, monkeypatch, tmp_path):
    study, db = tmp_path / "s", tmp_path / "s.sqlite"
    study.mkdir()
    shutil.copy(TOPCUOGLU, study / "a.json")
    shutil.copy(MESH12, study / "b.json")
    _interrupted_sweep(monkeypatch, study, db)
    report = tmp_path / "r.md"
    status, _, err = _results(capsys, db, "--report", report)
    assert status == 0
    warning = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1
    assert "1 run was started and not finished (interrupted or still running: 1 by" in err
    assert "1 planned run was never started" in err and "rerun compare" in err
    assert "Incomplete study" in report.read_text()
    # Finished by a second sweep: no warning any more.
    _compare(capsys, db, study, methods="heft")
    status, _, err = _results(capsys, db)
    assert status == 0 and "warning" not in err


def test_claims_left_in_the_database_are_reported(capsys, tmp_path):
    shutil.copy(TOPCUOGLU, tmp_path / "a.json")
    db = tmp_path / "s.sqlite"
    _compare(capsys, db, tmp_path / "a.json")
    key = instance_key(load_problem(TOPCUOGLU))
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO claims VALUES (?, 'cpop', '{}', 'v', 'elsewhere:42', 0)", (key,))
    status, _, err = _results(capsys, db)
    assert status == 0
    assert "warning: 1 run was started and not finished" in err and "elsewhere:42" in err


# ---- defect 4: performance profiles ----------------------------------------------------


def test_the_profile_leaves_out_instances_a_method_never_ran_on(capsys, tmp_path):
    from exactsched.experiments.plots import performance_profile

    (tmp_path / "A").mkdir()
    (tmp_path / "B").mkdir()
    shutil.copy(TOPCUOGLU, tmp_path / "A")
    shutil.copy(MESH12, tmp_path / "B")
    db = tmp_path / "pp.sqlite"
    _compare(capsys, db, tmp_path / "A")
    _compare(capsys, db, tmp_path / "B", methods="heft")
    fig = performance_profile(load_rows(db))
    tops = {line.get_label(): float(line.get_ydata()[-1]) for line in fig.axes[0].lines}
    assert tops == {"heft": 1.0, "peft": 1.0}  # peft was drawn as failing on B
    assert "1 instances, 1 left out" in fig.axes[0].get_title()


def test_the_profile_leaves_out_refusals_and_keeps_errors_as_failures():
    from exactsched.experiments.plots import performance_profile

    row = profile_row
    rows = [
        row("a", "x", 10.0), row("a", "y", 10.0),
        row("b", "x", 10.0), row("b", "y", None, "not-applicable"),
        row("c", "x", 10.0), row("c", "y", None, "error"),
    ]  # fmt: skip
    fig = performance_profile(rows)
    tops = {line.get_label(): float(line.get_ydata()[-1]) for line in fig.axes[0].lines}
    assert tops == {"x": 1.0, "y": 0.5}
    assert "2 instances, 1 left out" in fig.axes[0].get_title()


# ---- defect 5: a disputed instance exports no contradicted bound -----------------------


def test_a_disputed_instance_exports_no_bound_and_no_proven_zero(capsys, tmp_path):
    problem = load_instance(TOPCUOGLU)  # HEFT 80
    key = instance_key(problem)
    db = tmp_path / "l.sqlite"
    with Store(db) as store:
        store.add_instances([describe(problem, str(TOPCUOGLU))])
        base = {"status": "feasible", "certified": None}
        # The liar: HEFT's schedule with a bound of 1.5 x its makespan.
        store.add_run(key, "liar", "{}", "v", {**base, "kind": "exact", "makespan": 80.0,
                                               "lower_bound": 120.0})  # fmt: skip
        store.add_run(key, "heft", "{}", "v", {**base, "kind": "heuristic", "makespan": 80.0,
                                               "lower_bound": 54.0})  # fmt: skip
    rows = load_rows(db)
    assert all(r["disputed"] for r in rows)
    assert all(r["best_bound"] is None and r["gap_to_bound"] is None for r in rows)
    status, out, _ = _results(capsys, db, "--csv")
    assert status == 0
    for r in csv.DictReader(io.StringIO(out)):
        assert r["best_bound"] == "" and r["gap_to_bound"] == ""


def test_a_makespan_below_its_reference_has_no_gap_of_zero():
    from exactsched.experiments.analysis import _degradation

    assert _degradation(80.0, 120.0) is None
    assert _degradation(80.0, 80.0) == 0.0


# ---- defect 6: a damaged database ------------------------------------------------------


def _damaged_copy(capsys, tmp_path: Path, offset: int | None = None) -> Path:
    """A study whose stored text (or schedule at ``offset``) is overwritten by 0xff."""
    shutil.copy(TOPCUOGLU, tmp_path / "a.json")
    db = tmp_path / "s.sqlite"
    _compare(capsys, db, tmp_path / "a.json")
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    if offset is None:
        offset = data.index(b'"edges"')
    data[offset : offset + 40] = b"\xff" * 40
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(bytes(data))
    return broken


def test_results_on_damaged_text_is_one_line_exit_2(capsys, tmp_path):
    broken = _damaged_copy(capsys, tmp_path)
    status, _, err = _results(capsys, broken)
    assert_one_line(status, err)
    assert "broken.sqlite: damaged database" in err


def test_compare_on_damaged_text_is_one_line_exit_2(capsys, tmp_path):
    broken = _damaged_copy(capsys, tmp_path)
    status, _, err = run(
        capsys, ["compare", tmp_path / "a.json", "--db", broken, "--methods", "heft", *FAST]
    )
    assert_one_line(status, err)
    assert "damaged database" in err


def test_gantt_on_a_damaged_schedule_is_one_line_exit_2(capsys, tmp_path):
    shutil.copy(TOPCUOGLU, tmp_path / "a.json")
    db = tmp_path / "s.sqlite"
    _compare(capsys, db, tmp_path / "a.json")
    with sqlite3.connect(db) as con:
        con.execute("UPDATE runs SET schedule = ? WHERE method = 'heft'", (b"x\x9c\xff\xff",))
    key = instance_key(load_problem(TOPCUOGLU))[:8]
    argv = ["gantt", "--db", db, "--method", "heft", key, "-o", tmp_path / "g.png"]
    status, _, err = run(capsys, argv)
    assert_one_line(status, err)
    assert "damaged database (a stored schedule cannot be decompressed" in err


# ---- defect 7: cosmetic -----------------------------------------------------------------


def _zero_rows() -> list[dict]:
    def row(instance, label, gap, optimum):
        return dict(instance_key=instance, label=label, kind="heuristic", optimum=optimum,
                    gap_to_optimum=gap, gap=gap, ccr=1.0, tasks=3)  # fmt: skip

    return [
        row("a", "heft", 0.0, 0.0), row("a", "lmt", math.inf, 0.0),
        row("b", "heft", 0.1, 5.0), row("b", "lmt", 9.0, 5.0),
    ]  # fmt: skip


def test_a_heuristic_named_not_drawn_is_not_drawn():
    from exactsched.experiments.plots import gap_against, gap_distributions

    fig = gap_distributions(_zero_rows())
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["heft"]
    assert [t.get_text() for t in fig.axes[0].texts] == [
        "not drawn, infinite gap (optimum 0): lmt"
    ]
    fig = gap_against(_zero_rows(), "tasks")
    assert [line.get_label() for line in fig.axes[0].lines] == ["heft"]


def test_gap_plots_use_the_reference_of_the_tables():
    from exactsched.experiments.plots import gap_against

    # No certified optimum: the tables give the gap to the best known.
    rows = [dict(instance_key="a", label="heft", kind="heuristic", optimum=None,
                 gap_to_optimum=None, gap=0.25, ccr=1.0, tasks=3)]  # fmt: skip
    fig = gap_against(rows, "tasks")
    (line,) = fig.axes[0].lines
    assert list(line.get_ydata()) == [25.0]
    assert "best known" in fig.axes[0].get_ylabel()


def test_a_full_disk_before_the_tables_leaves_no_database(tmp_path, monkeypatch):
    def full(db):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store_module, "_upgrade", full)
    db = tmp_path / "s.sqlite"
    with pytest.raises(store_module.StoreWriteError):
        run_sweep([TOPCUOGLU], "heft", exact="none", db=db, progress="none", jobs=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# ---- defect 2: a method a script registered, then edited ------------------------------


def _register_from_file(tmp_path: Path, name: str, body: str):
    """Register ``name`` from a module file holding ``body`` (as a user's script does)."""
    import importlib.util

    from exactsched.registry import _REGISTRY

    _REGISTRY.pop(name, None)
    path = tmp_path / f"{name.replace('-', '_')}_{abs(hash(body))}.py"
    path.write_text(
        "import exactsched\n"
        "from exactsched.registry import register\n"
        f"@register({name!r}, kind='heuristic', description='test', source='test')\n"
        f"def method(problem):\n    {body}\n"
    )
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.method


def test_an_edited_script_method_is_run_again(tmp_path):
    from exactsched.experiments.fingerprint import outside_fingerprint
    from exactsched.registry import _REGISTRY, get_method

    db = tmp_path / "s.sqlite"
    try:
        first = _register_from_file(
            tmp_path, "audit-outside", "return exactsched.solve(problem, 'heft').schedule"
        )
        out = run_sweep([TOPCUOGLU], "audit-outside", exact="none", db=db, progress="none", jobs=1)
        assert out.ran == 1
        assert [k[2] for k in out.keys] == [f'{{"code":"{outside_fingerprint([first])}"}}']
        out.store.close()
        again = run_sweep(
            [TOPCUOGLU], "audit-outside", exact="none", db=db, progress="none", jobs=1
        )
        assert again.skipped == 1 and again.ran == 0  # the same code: reused
        again.store.close()
        second = _register_from_file(
            tmp_path, "audit-outside", "return exactsched.solve(problem, 'peft').schedule"
        )
        assert outside_fingerprint([second]) != outside_fingerprint([first])
        edited = run_sweep(
            [TOPCUOGLU], "audit-outside", exact="none", db=db, progress="none", jobs=1
        )
        assert edited.ran == 1 and edited.skipped == 0  # other code: run again
        rows = load_rows(edited.store, keys=edited.keys, version=edited.version)
        assert [r["makespan"] for r in rows] == [exactsched_solve_makespan("peft")]
        edited.store.close()
    finally:
        _REGISTRY.pop("audit-outside", None)
    assert outside_fingerprint([get_method("heft").func]) == ""


def exactsched_solve_makespan(method: str) -> float:
    from exactsched import solve

    return solve(load_problem(TOPCUOGLU, None), method).makespan


def test_a_device_as_database_is_refused_before_sqlite_writes_beside_it(capsys):
    """``--db /dev/full`` left ``/dev/full-journal`` behind (CLI robustness audit)."""
    import os

    existed = os.path.exists("/dev/full-journal")
    status, _, err = run(capsys, ["compare", TOPCUOGLU, "--db", "/dev/full", *FAST])
    assert_one_line(status, err)
    assert "--db /dev/full: not a regular file" in err
    assert os.path.exists("/dev/full-journal") == existed


def test_a_script_spawned_as_mp_main_has_its_own_fingerprint():
    # A spawned pool process imports the script as __mp_main__: the same code, so the
    # same fingerprint (else on Windows every run of a script's method was refused).
    from exactsched.experiments.fingerprint import outside_fingerprint

    space: dict = {}
    exec("def mine(problem):\n    return None\n", space)
    main, spawned = space["mine"], types.FunctionType(space["mine"].__code__, {})
    main.__module__, spawned.__module__ = "__main__", "__mp_main__"
    assert outside_fingerprint([main]) == outside_fingerprint([spawned]) != ""
