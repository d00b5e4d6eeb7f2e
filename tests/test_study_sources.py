"""Which contents of a study are current: the files they were read from (outside audit A).

* A file edited and then reverted (A -> B -> A) shows A again, although the
  third sweep reuses A's stored rows and writes no run: the content a file held
  when it was last read is current, not the one whose run finished last.
* A content read from several files stays current while one of them still
  holds it.
* Two processes opening a database written before the ``kind`` column both
  open it (the check and the change are one transaction).
* A database written before the ``sources`` table reads as it did, read-only
  too (nothing written), and a sweep fills the table in with the same answer.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
from pathlib import Path

import pytest

from exactsched import Schedule, load_instance, validate
from exactsched.cli import main
from exactsched.experiments import Store, load_rows, run_sweep
from exactsched.experiments.analysis import superseded_keys
from exactsched.experiments.instances import instance_key

ROOT = Path(__file__).resolve().parents[1]
TOPCUOGLU = ROOT / "examples" / "topcuoglu2002.json"


def _contents() -> tuple[dict, dict, dict]:
    """Three contents of one instance file (A, B and C differ in task 0's costs)."""
    a = json.loads(TOPCUOGLU.read_text())
    b = json.loads(json.dumps(a))
    b["tasks"][0]["cost"] = [x + 50 for x in a["tasks"][0]["cost"]]
    c = json.loads(json.dumps(a))
    c["tasks"][0]["cost"] = [x + 90 for x in a["tasks"][0]["cost"]]
    return a, b, c


def _key(doc: dict) -> str:
    return instance_key(load_instance(doc))


def _sweep(paths: list[Path], db: Path) -> object:
    out = run_sweep([str(p) for p in paths], "heft", exact="none", db=str(db),
                    progress="none", jobs=1)  # fmt: skip
    out.store.close()
    return out


def _shown(db: Path) -> set[str]:
    return {r["instance_key"] for r in load_rows(db)}


def _validated(db: Path) -> None:
    with Store(db, readonly=True) as store:
        documents = {i["key"]: i["document"] for i in store.instances()}
        runs = list(store.runs(schedules=True))
    assert runs
    for run in runs:
        problem = load_instance(json.loads(documents[run["instance"]]))
        schedule = Schedule.from_json(json.loads(run["schedule"]))
        assert validate(problem, schedule) == []


def test_a_reverted_file_shows_its_reverted_content(tmp_path, capsys):
    a, b, _ = _contents()
    path = tmp_path / "inst.json"
    db = tmp_path / "s.sqlite"
    ran = []
    for doc in (a, b, a):
        path.write_text(json.dumps(doc))
        ran.append(_sweep([path], db).ran)
    assert ran == [1, 1, 0]  # the third sweep reuses A's rows: no run finishes later
    assert _shown(db) == {_key(a)}
    assert superseded_keys(db) == {_key(b)}
    assert {r["instance_key"] for r in load_rows(db, superseded=True)} == {_key(a), _key(b)}
    capsys.readouterr()
    assert main(["results", str(db), "--json"]) == 0
    captured = capsys.readouterr()
    assert [r["instance_key"] for r in json.loads(captured.out)] == [_key(a)]
    assert "rows of 1 instance content(s) that a later sweep read" in captured.err
    # Back to B: B is current again, and A is left out.
    path.write_text(json.dumps(b))
    assert _sweep([path], db).ran == 0
    assert _shown(db) == {_key(b)} and superseded_keys(db) == {_key(a)}
    _validated(db)


def test_a_content_still_held_by_another_file_stays_current(tmp_path):
    x, y, z = _contents()
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    db = tmp_path / "s.sqlite"
    first.write_text(json.dumps(x))
    second.write_text(json.dumps(x))
    assert _sweep([first, second], db).ran == 1  # one content, one run
    first.write_text(json.dumps(y))
    _sweep([first], db)
    assert _shown(db) == {_key(x), _key(y)}  # b.json still holds X
    assert superseded_keys(db) == set()
    # Once every file that held X was read with another content, X is superseded.
    second.write_text(json.dumps(z))
    _sweep([second], db)
    assert _shown(db) == {_key(y), _key(z)} and superseded_keys(db) == {_key(x)}
    # ... until one of them holds it again.
    first.write_text(json.dumps(x))
    assert _sweep([first], db).ran == 0
    assert _shown(db) == {_key(x), _key(z)} and superseded_keys(db) == {_key(y)}
    _validated(db)


def _old_schema(db: Path) -> None:
    """Make ``db`` as a build before ``kind`` and ``sources`` wrote it."""
    with sqlite3.connect(db) as con:
        con.execute("DROP TABLE IF EXISTS sources")
        con.execute("ALTER TABLE runs DROP COLUMN kind")
    con.close()


def _tables(db: Path) -> set[str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        con.close()


def _open_after_both_looked(path: str, barrier: object, conn: object) -> None:
    """Open ``path`` in a child process, changing nothing before the other has looked too.

    The first ``BEGIN`` or ``ALTER`` this process sends waits for the other's:
    both then found the database old before either changes it, the
    interleaving that made one of them fail with "duplicate column name".
    """
    waited: list[str] = []

    class Paused(sqlite3.Connection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if not waited and sql.lstrip().upper().startswith(("BEGIN", "ALTER")):
                waited.append(sql)
                barrier.wait(timeout=60)  # type: ignore[attr-defined]
            return super().execute(sql, *args)

    connect = sqlite3.connect

    def paused(*args: object, **kwargs: object) -> sqlite3.Connection:
        return connect(*args, factory=Paused, **kwargs)  # type: ignore[misc]

    sqlite3.connect = paused  # only in this (forked) process
    try:
        Store(path).close()
        conn.send("ok" if waited else "never changed the database")  # type: ignore[attr-defined]
    except Exception as exc:  # reported to the test, which names it
        conn.send(f"{type(exc).__name__}: {exc}")  # type: ignore[attr-defined]


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_two_processes_upgrade_an_older_database_at_once(tmp_path):
    a, _, _ = _contents()
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(a))
    db = tmp_path / "s.sqlite"
    _sweep([path], db)
    _old_schema(db)
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(2)
    pipes = [context.Pipe(duplex=False) for _ in range(2)]
    children = [
        context.Process(target=_open_after_both_looked, args=(str(db), barrier, send))
        for _, send in pipes
    ]
    for child in children:
        child.start()
    answers = []
    for (receive, _), child in zip(pipes, children, strict=True):
        answers.append(receive.recv() if receive.poll(120) else "no answer")
        child.join(60)
    assert answers == ["ok", "ok"]
    with Store(db) as store:
        assert {run["kind"] for run in store.runs()} == {None}  # upgraded, rows kept
    assert "sources" in _tables(db)
    assert _shown(db) == {_key(a)}


def _old_study(tmp_path: Path) -> tuple[Path, dict, dict]:
    """An older database where ``inst.json`` went A -> B (B's run finished later)."""
    a, b, _ = _contents()
    path = tmp_path / "inst.json"
    db = tmp_path / "s.sqlite"
    for doc in (a, b):
        path.write_text(json.dumps(doc))
        _sweep([path], db)
    with sqlite3.connect(db) as con:  # the order such a database was read by
        con.execute("UPDATE runs SET finished = '2020-01-01T00:00:00.000Z' WHERE instance = ?",
                    (_key(a),))  # fmt: skip
    con.close()
    _old_schema(db)
    return db, a, b


def test_a_read_only_older_database_reads_as_before(tmp_path):
    db, a, b = _old_study(tmp_path)
    before, files = db.read_bytes(), sorted(tmp_path.iterdir())
    os.chmod(db, 0o444)
    os.chmod(tmp_path, 0o555)
    try:
        assert _shown(db) == {_key(b)} and superseded_keys(db) == {_key(a)}
        with Store(db, readonly=True) as store:
            assert {source for _, source, _ in store.sources()} == {str(tmp_path / "inst.json")}
            assert {run["kind"] for run in store.runs()} == {None}
    finally:
        os.chmod(tmp_path, 0o755)
        os.chmod(db, 0o644)
    assert db.read_bytes() == before and sorted(tmp_path.iterdir()) == files
    assert "sources" not in _tables(db)  # nothing written, no table added


def test_a_sweep_fills_in_the_sources_of_an_older_database(tmp_path):
    db, a, b = _old_study(tmp_path)
    with Store(db) as store:
        assert [key for key, _, _ in store.sources()] == [_key(a), _key(b)]
    assert _shown(db) == {_key(b)} and superseded_keys(db) == {_key(a)}  # as before
    # Reverting the file now counts: the reverted content is read last.
    (tmp_path / "inst.json").write_text(json.dumps(a))
    assert _sweep([tmp_path / "inst.json"], db).ran == 0  # A's stored rows are reused
    assert _shown(db) == {_key(a)} and superseded_keys(db) == {_key(b)}
    _validated(db)
