"""Which contents of a study are current, read by read (outside audit D).

A sweep records every read of an instance file: the stored key, the key of
the file's own content before any ``--platform`` or ``--communication``
override (its *base*), and the ``--platform`` file's path and content. A read
is current when its file (and its platform file) still held that content at
its latest read; an instance with rows and reads but no current read is
superseded. Each test is one scenario of the audit (findings 1-7).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from exactsched.errors import InstanceWarning
from exactsched.experiments import Store, load_rows, run_sweep
from exactsched.experiments import store as store_module
from exactsched.experiments import sweep as sweep_module
from exactsched.experiments.analysis import EXPORT_COLUMNS, superseded_keys
from exactsched.experiments.instances import describe, instance_key, load_problem
from tests.test_cli_contract import run

FAST = ["--exact", "none", "--methods", "heft,cpop", "-t", "2", "-j", "1", "--quiet"]


def _write(path: Path, variant: int = 0, *, name: str = "x", comm: str = "",
           processors: int = 2) -> Path:  # fmt: skip
    """A 3-task instance; ``variant`` changes task a's cost (0: makespan 9, 1: 10, 2: 11)."""
    doc: dict = {
        "format": "exactsched/instance@1",
        "name": name,
        "platform": {"processors": [{"id": f"p{i}"} for i in range(processors)]},
        "tasks": [{"id": "a", "cost": [3 + variant] * processors},
                  {"id": "b", "cost": [4] * processors},
                  {"id": "c", "cost": [5] * processors}],
        "edges": [{"src": "a", "dst": "b", "data": 2}, {"src": "a", "dst": "c", "data": 2}],
    }  # fmt: skip
    if comm:
        doc["platform"]["network"] = {"topology": "fully-connected", "communication": comm}
    path.write_text(json.dumps(doc))
    return path


def _platform(path: Path, latency: float) -> Path:
    network = {"topology": "fully-connected", "latency": latency}
    path.write_text(json.dumps({"processors": [{"id": "p0"}, {"id": "p1"}], "network": network}))
    return path


def _compare(capsys, db: Path, *args: object) -> None:
    status, _, err = run(capsys, ["compare", *args, "--db", db, *FAST])
    assert status == 0, err


def _results(capsys, db: Path, *args: object) -> tuple[list[dict], str]:
    status, out, err = run(capsys, ["results", db, "--csv", *args])
    assert status == 0, err
    return list(csv.DictReader(io.StringIO(out))), err


def _keys(rows: list[dict]) -> set[str]:
    return {r["instance_key"] for r in rows}


def _key(path: Path, platform: Path | None = None, model: str | None = None) -> str:
    problem = load_problem(path, platform)
    if model is not None:
        problem = sweep_module.with_model(problem, model)
    return instance_key(problem)


def _only(capsys, db: Path, current: set[str], left_out: int) -> None:
    """``results`` shows exactly ``current``; the note counts ``left_out`` contents."""
    rows, err = _results(capsys, db)
    assert _keys(rows) == current
    if left_out:
        assert f"rows of {left_out} instance content(s) that a later sweep read" in err, err
    else:
        assert "left out" not in err, err
    shown, _ = _results(capsys, db, "--superseded")
    assert len(_keys(shown)) == len(current) + left_out


# ---- finding 1: an edit is told apart from an override -------------------------------


def test_an_edit_of_the_processor_count_supersedes_the_old_content(capsys, tmp_path):
    x, db = tmp_path / "x.json", tmp_path / "s.db"
    _compare(capsys, db, _write(x, processors=2))
    _compare(capsys, db, _write(x, processors=3))
    _only(capsys, db, {_key(x)}, 1)


def test_an_edit_of_the_files_own_model_supersedes_the_old_content(capsys, tmp_path):
    x, db = tmp_path / "x.json", tmp_path / "s.db"
    _compare(capsys, db, _write(x, comm="delay"))
    _compare(capsys, db, _write(x, comm="single-port"))
    _only(capsys, db, {_key(x)}, 1)


def test_an_edit_after_a_communication_sweep_supersedes_both_models(capsys, tmp_path):
    x, db = tmp_path / "x.json", tmp_path / "s.db"
    _compare(capsys, db, _write(x), "--communication", "delay,single-port")
    _compare(capsys, db, _write(x, 1))
    _only(capsys, db, {_key(x)}, 2)


def test_an_edit_of_the_instance_after_a_platform_sweep_supersedes_it(capsys, tmp_path):
    x, db = tmp_path / "x.json", tmp_path / "s.db"
    p = _platform(tmp_path / "P.json", 5)
    _compare(capsys, db, _write(x), "--platform", p)
    _compare(capsys, db, _write(x, 1))
    _only(capsys, db, {_key(x)}, 1)


def test_an_edit_of_the_platform_file_supersedes_the_rows_made_on_it(capsys, tmp_path):
    x, db = _write(tmp_path / "x.json"), tmp_path / "s.db"
    p = _platform(tmp_path / "P.json", 5)
    _compare(capsys, db, x, "--platform", p)
    on_five = _key(x, p)
    _compare(capsys, db, x)  # the file on its own platform: another current content
    _compare(capsys, db, x, "--platform", _platform(p, 1))
    assert on_five not in {_key(x, p)}
    _only(capsys, db, {_key(x), _key(x, p)}, 1)
    assert superseded_keys(db) == {on_five}


def test_one_file_under_two_platforms_and_two_models_keeps_all_current(capsys, tmp_path):
    x, db = _write(tmp_path / "x.json"), tmp_path / "s.db"
    p, q = _platform(tmp_path / "P.json", 5), _platform(tmp_path / "Q.json", 1)
    _compare(capsys, db, x, "--platform", p)
    _compare(capsys, db, x, "--platform", q)
    _compare(capsys, db, x, "--communication", "delay,single-port")
    current = {_key(x, p), _key(x, q), _key(x, model="delay"), _key(x, model="single-port")}
    assert len(current) == 4
    _only(capsys, db, current, 0)


def test_a_content_two_files_hold_stays_current_while_one_holds_it(capsys, tmp_path):
    a, b, db = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "s.db"
    _write(a), _write(b)
    held = _key(a)
    _compare(capsys, db, a, b)
    _compare(capsys, db, _write(a, 1))
    _only(capsys, db, {held, _key(a)}, 0)
    _compare(capsys, db, _write(b, 2))
    _only(capsys, db, {_key(a), _key(b)}, 1)


def test_a_reverted_file_makes_its_first_content_current(capsys, tmp_path):
    x, db = tmp_path / "x.json", tmp_path / "s.db"
    for variant in (0, 1, 0):
        _compare(capsys, db, _write(x, variant))
    _only(capsys, db, {_key(x)}, 1)


# ---- finding 2: real paths ------------------------------------------------------------


def test_a_file_read_through_a_symbolic_link_is_one_source(capsys, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "d")
    x, db = tmp_path / "d" / "x.json", tmp_path / "s.db"
    _compare(capsys, db, _write(x, 0).parent)
    _compare(capsys, db, _write(x, 1))
    _write(x, 2)
    _compare(capsys, db, tmp_path / "link")
    _only(capsys, db, {_key(x)}, 2)
    rows, _ = _results(capsys, db)
    assert {r["source"] for r in rows} == {str(x.resolve())}


def test_a_dotdot_path_through_a_link_is_the_file_it_opens(capsys, tmp_path):
    (tmp_path / "deep" / "sub").mkdir(parents=True)
    (tmp_path / "d").symlink_to(tmp_path / "deep" / "sub")
    top, deep, db = tmp_path / "x.json", tmp_path / "deep" / "x.json", tmp_path / "s.db"
    _write(top, 0), _write(deep, 1)
    _compare(capsys, db, top)
    _compare(capsys, db, f"{tmp_path}/d/../x.json")  # opens deep/x.json, not x.json
    _only(capsys, db, {_key(top), _key(deep)}, 0)


# ---- finding 3: a generated instance ---------------------------------------------------


def test_a_generated_instance_stays_current_when_a_file_of_its_content_is_edited(tmp_path):
    x, db = _write(tmp_path / "x.json"), tmp_path / "s.db"

    def sweep(items: list) -> None:
        run_sweep(items, "heft,cpop", exact="none", db=str(db), progress="none",
                  jobs=1).store.close()  # fmt: skip

    generated = load_problem(x)
    sweep([generated])
    sweep([str(x)])
    sweep([str(_write(x, 1))])
    assert {r["instance_key"] for r in load_rows(db)} == {instance_key(generated), _key(x)}
    assert superseded_keys(db) == set()
    sources = {r["instance_key"]: r["source"] for r in load_rows(db)}
    assert sources == {instance_key(generated): None, _key(x): str(x.resolve())}


# ---- finding 4: stamps are taken before the files are read ----------------------------


def test_a_slow_sweep_that_read_first_does_not_undo_a_later_read(tmp_path):
    x, db = tmp_path / "x.json", tmp_path / "s.db"
    first, second = Store(db), Store(db)
    try:
        early = first.reserve_stamp()  # sweep X starts and reads content A ...
        a = describe(load_problem(_write(x, 0)), str(x))
        late = second.reserve_stamp()  # ... the file is edited; sweep Y reads B
        b = describe(load_problem(_write(x, 1)), str(x))
        assert late > early
        second.add_instances([b], stamp=late)
        first.add_instances([a], stamp=early)  # X writes last, with its earlier stamp
        for store, info in ((first, a), (second, b)):
            store.add_run(info.key, "heft", "{}", "v", {"status": "feasible", "makespan": 1.0})
        # The same read written again with an older stamp lowers nothing either.
        second.add_instances([b], stamp=late)
        first.add_instances([b], stamp=early)
        assert {r.seen for r in second.reads() if r.instance == b.key} == {late}
    finally:
        first.close()
        second.close()
    assert {r["instance_key"] for r in load_rows(db)} == {b.key}
    assert superseded_keys(db) == {a.key}


def test_a_read_made_before_another_sweep_read_an_edit_stays_older(tmp_path, monkeypatch):
    """Sweep X reads A; the file is edited and sweep Y runs whole; then X stores A."""
    x, db = _write(tmp_path / "x.json", 0), tmp_path / "s.db"
    load_all = sweep_module._load_all
    interleaved: list[str] = []

    def slow_load(*args, **kwargs):
        loaded = load_all(*args, **kwargs)
        if not interleaved:  # in sweep X only: Y runs on B before X goes on
            interleaved.append("y")
            _write(x, 1)
            run_sweep([str(x)], "heft", exact="none", db=str(db), progress="none",
                      jobs=1).store.close()  # fmt: skip
        return loaded

    monkeypatch.setattr(sweep_module, "_load_all", slow_load)
    run_sweep([str(x)], "heft", exact="none", db=str(db), progress="none",
              jobs=1).store.close()  # fmt: skip
    assert interleaved == ["y"]
    assert {r["instance_key"] for r in load_rows(db)} == {_key(x)}  # B, what the file holds
    assert len(superseded_keys(db)) == 1


# ---- finding 5: a WAL a read-only reader cannot read -----------------------------------


def test_results_warns_when_the_wal_cannot_be_read(capsys, tmp_path, monkeypatch):
    x, db = _write(tmp_path / "x.json"), tmp_path / "s.db"
    writer = Store(db)
    try:
        run_sweep([str(x)], "heft", exact="none", db=writer, progress="none", jobs=1)
        writer._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        writer._db.execute("PRAGMA wal_autocheckpoint=0")  # the next rows stay in the -wal
        run_sweep([str(_write(x, 1))], "heft", exact="none", db=writer, progress="none",
                  jobs=1)  # fmt: skip
        assert Path(f"{db}-wal").stat().st_size > 0
        connect = sqlite3.connect

        def no_shm(database: str, *args, **kwargs):
            # What a reader without write access to the folder meets: no -shm to create.
            if str(database).startswith("file:") and "immutable=1" not in str(database):
                raise sqlite3.OperationalError("unable to open database file")
            return connect(database, *args, **kwargs)

        monkeypatch.setattr(store_module.sqlite3, "connect", no_shm)
        with pytest.warns(InstanceWarning, match="rows committed after the last checkpoint"):
            Store(db, readonly=True).close()
        status, _, err = run(capsys, ["results", db])
        assert status == 0 and err.count("-wal file holds writes") == 1, err
    finally:
        monkeypatch.undo()
        writer.close()


# ---- finding 6: the name and file of a row are those of its current read ---------------


def test_rows_are_named_after_the_file_that_holds_them_now(capsys, tmp_path):
    f1, f2, db = tmp_path / "f1.json", tmp_path / "f2.json", tmp_path / "s.db"
    _write(f1, 0, name="f1"), _write(f2, 1, name="f2")
    _compare(capsys, db, tmp_path)
    _write(f1, 1, name="f1"), _write(f2, 0, name="f2")
    _compare(capsys, db, f1, f2)
    rows, _ = _results(capsys, db)
    named = {(r["instance"], r["instance_key"], r["source"]) for r in rows}
    assert named == {("f1", _key(f1), str(f1.resolve())), ("f2", _key(f2), str(f2.resolve()))}
    assert "source" in EXPORT_COLUMNS
    status, out, _ = run(capsys, ["results", db, "--json"])
    assert status == 0 and {r["source"] for r in json.loads(out)} == {
        str(f1.resolve()),
        str(f2.resolve()),
    }


# ---- finding 7: gantt names the keys it could mean -------------------------------------


def test_gantt_takes_a_name_for_its_current_content(capsys, tmp_path):
    # The name results shows is the current content's; the superseded one is still
    # there by its key (an outside audit: after an upgrade every name was ambiguous).
    x, db = tmp_path / "x.json", tmp_path / "s.db"
    _compare(capsys, db, _write(x, 0))
    old = _key(x)
    _compare(capsys, db, _write(x, 1))
    for name in ("x", _key(x)[:8], old[:8]):
        status, _, err = run(capsys, ["gantt", name, "--db", db, "-m", "heft",
                                      "-o", tmp_path / "g.png"])  # fmt: skip
        assert status == 0, err


def test_gantt_lists_the_keys_a_name_fits(capsys, tmp_path):
    a, b, db = tmp_path / "a" / "x.json", tmp_path / "b" / "x.json", tmp_path / "s.db"
    a.parent.mkdir(), b.parent.mkdir()
    _compare(capsys, db, _write(a, 0), _write(b, 1))
    status, _, err = run(capsys, ["gantt", "x", "--db", db, "-m", "heft",
                                  "-o", tmp_path / "g.png"])  # fmt: skip
    assert status == 2
    assert f"keys: {', '.join(sorted([_key(a)[:8], _key(b)[:8]]))}" in err, err


# ---- older databases -------------------------------------------------------------------


def test_a_database_with_sources_but_no_reads_is_read_and_filled_in(capsys, tmp_path):
    x, db = tmp_path / "x.json", tmp_path / "s.db"
    for variant in (0, 1, 0):
        _compare(capsys, db, _write(x, variant))
    with sqlite3.connect(db) as con:  # as the previous build wrote it
        con.execute("DROP TABLE reads")
        con.execute("DELETE FROM meta WHERE key = 'stamp'")
    con.close()
    before = db.read_bytes()
    _only(capsys, db, {_key(x)}, 1)  # read-only: the reads computed from sources
    assert db.read_bytes() == before
    _compare(capsys, db, _write(x, 2))  # a sweep fills reads in, its stamp comes after
    _only(capsys, db, {_key(x)}, 2)
    with Store(db, readonly=True) as store:
        assert max(r.seen for r in store.reads()) == 4
