"""Regression tests of an outside study-integrity audit (defects 1-3).

Each defect made a study show a wrong number rather than fail: runs that never
ran stored as ``error`` rows when the Dask scheduler was lost, a file's old
content shown as current after two sweeps read it in the order opposite to
their stamps, and an interrupted study of new code reported (nearly) complete
because rows of the older code counted as its runs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from exactsched.errors import InstanceError, MethodError
from exactsched.experiments import Store, load_rows, run_sweep
from exactsched.experiments import cluster as cluster_module
from exactsched.experiments import fingerprint as fingerprint_module
from exactsched.experiments import pool as pool_module
from exactsched.experiments import sweep as sweep_module
from exactsched.experiments.analysis import superseded_keys, unfinished_note
from exactsched.experiments.instances import canonical_json, instance_key, load_problem
from exactsched.experiments.runner import Task, execute
from tests.test_cli_contract import run

ROOT = Path(__file__).resolve().parents[1]
TOPCUOGLU = ROOT / "examples" / "topcuoglu2002.json"
MESH12 = ROOT / "examples" / "random-n12-mesh-2x2.json"


def _write(path: Path, variant: int = 0) -> Path:
    """A 3-task instance; ``variant`` changes task a's cost (so the content key)."""
    doc = {
        "format": "exactsched/instance@1",
        "name": "x",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}]},
        "tasks": [{"id": "a", "cost": [3 + variant] * 2},
                  {"id": "b", "cost": [4] * 2},
                  {"id": "c", "cost": [5] * 2}],
        "edges": [{"src": "a", "dst": "b", "data": 2}, {"src": "a", "dst": "c", "data": 2}],
    }  # fmt: skip
    path.write_text(json.dumps(doc))
    return path


def _key(path: Path) -> str:
    return instance_key(load_problem(path))


def _sweep(paths: list[Path], db: Path, methods: str = "heft") -> None:
    out = run_sweep([str(p) for p in paths], methods, exact="none", db=str(db),
                    progress="none", jobs=1)  # fmt: skip
    out.store.close()


# ---- defect 1: losing the Dask scheduler ----------------------------------------------


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        yield cluster


def _tasks(n: int) -> list[tuple[int, Task]]:
    problem = load_problem(TOPCUOGLU)
    doc, key = canonical_json(problem), instance_key(problem)
    return [(i, Task(key, doc, "heft", "heuristic", {"seed": i})) for i in range(n)]


@pytest.mark.parametrize("how", ["close", "cancel"])
def test_a_lost_client_stores_no_row_for_the_runs_in_flight(dask_cluster, how):
    """A closed client (the next submit fails) or cancelled futures (results fail).

    Each was recorded as an ``error`` row ("dask: FutureCancelledError ...") for
    runs that never ran, and the closed client's submit was an internal error.
    """
    import distributed

    client = distributed.Client(dask_cluster)
    rows: dict[int, dict] = {}
    claimed: list[int] = []

    def on_result(tid: int, row: dict) -> None:
        rows[tid] = row
        if how == "close":
            client.close()
        else:  # what the client does to every future when it loses the scheduler
            client.cancel([distributed.Future(key, client) for key in list(client.futures)])

    def claim(tid: int) -> bool:
        claimed.append(tid)
        return True

    try:
        with pytest.raises(MethodError, match="lost the connection to the scheduler") as info:
            cluster_module.run_on_dask(_tasks(20), on_result, client, claim=claim)
    finally:
        client.close()
    assert str(info.value).startswith(f"--dask {dask_cluster.scheduler.address}: ")
    assert "run the same command again" in str(info.value)
    assert [row["status"] for row in rows.values()] == ["feasible"]
    assert len(claimed) > len(rows)  # the others stay claimed, with no row


def test_a_run_that_fails_on_the_cluster_is_still_an_error_row(dask_cluster, monkeypatch):
    import distributed

    monkeypatch.setattr(cluster_module, "execute", _fail_on_odd_seeds)
    rows: dict[int, dict] = {}
    with distributed.Client(dask_cluster) as client:
        cluster_module.run_on_dask(_tasks(4), rows.__setitem__, client)
    assert {tid: row["status"] for tid, row in rows.items()} == {
        0: "feasible", 1: "error", 2: "feasible", 3: "error",
    }  # fmt: skip
    assert rows[1]["error"] == "dask: RuntimeError: boom on the worker"


def _fail_on_odd_seeds(task: Task) -> dict:
    if task.options["seed"] % 2:
        raise RuntimeError("boom on the worker")
    return execute(task)


def test_compare_that_loses_the_scheduler_stops_and_reruns_the_lost_runs(
    capsys, monkeypatch, tmp_path
):
    """The audit's scenario through the CLI: exit 2 and one line, no row for a lost run."""
    pytest.importorskip("distributed")
    study, db = tmp_path / "s", tmp_path / "s.sqlite"
    study.mkdir()
    shutil.copy(TOPCUOGLU, study / "a.json")
    shutil.copy(MESH12, study / "b.json")
    clients = []
    connect, add_run = cluster_module.connect, Store.add_run

    def remember(address, processes=None):
        client, close = connect(address, processes)
        clients.append(client)
        return client, close

    def lose_the_scheduler(self, *args, **kwargs):
        add_run(self, *args, **kwargs)
        clients[0].close()  # after the first row: every later run is lost

    monkeypatch.setattr(cluster_module, "connect", remember)
    monkeypatch.setattr(Store, "add_run", lose_the_scheduler)
    command = ["compare", study, "--db", db, "--methods", "heft,cpop,peft", "--exact", "none",
               "-q", "-j", "1"]  # fmt: skip
    status, _, err = run(capsys, [*command, "--dask", "local"])
    monkeypatch.undo()
    assert status == 2, err
    errors = [line for line in err.splitlines() if line.startswith("exactsched: error:")]
    assert len(errors) == 1 and "Traceback" not in err
    assert errors[0].startswith("exactsched: error: --dask local: lost the connection")
    with Store(db, readonly=True) as store:
        assert [row["status"] for row in store.runs()] == ["feasible"]
        assert unfinished_note(store) is not None  # results says: interrupted
    status, _, err = run(capsys, ["results", db])
    assert status == 0 and "rerun compare to finish the study" in err
    # The same command (on the local pool here) runs the lost runs; no error row anywhere.
    status, _, err = run(capsys, command)
    assert status == 0, err
    with Store(db, readonly=True) as store:
        statuses = [row["status"] for row in store.runs()]
        assert len(statuses) == 6 and "error" not in statuses
        assert unfinished_note(store) is None


# ---- defect 2: stamp order against read order -----------------------------------------


def test_a_sweep_that_started_first_and_read_a_file_last_shows_what_it_read(tmp_path, monkeypatch):
    """Sweep A starts; sweep B reads F whole; F is edited; only then A reads F.

    A took its stamp when it started: B's older read of F got the larger stamp
    and F's old content was shown as current, A's rows as "replaced by a later edit".
    """
    f, db = _write(tmp_path / "F.json", 0), tmp_path / "s.db"
    old = _key(f)
    load_all = sweep_module._load_all
    order: list[str] = []

    def late_read(*args, **kwargs):
        if not order:  # in sweep A, before it reads anything
            order.append("B")
            _sweep([f], db)  # sweep B reads F's content as it was
            _write(f, 1)  # F is edited
        order.append("read")
        return load_all(*args, **kwargs)

    monkeypatch.setattr(sweep_module, "_load_all", late_read)
    _sweep([f], db)  # sweep A
    assert order == ["B", "read", "read"]
    assert {r["instance_key"] for r in load_rows(db)} == {_key(f)} != {old}
    assert superseded_keys(db) == {old}


def test_a_file_edited_between_its_read_and_its_stamp_is_read_again(tmp_path, monkeypatch):
    """Sweep A reads F; F is edited and sweep B runs whole; only then A takes its stamp.

    A stamp taken after the read with no check would make A's older content
    current: A finds F changed and reads it again, so its read of F is F's new
    content (and it computes no row of the old one).
    """
    f, db = _write(tmp_path / "F.json", 0), tmp_path / "s.db"
    old = _key(f)
    reserve, load_file = Store.reserve_stamp, sweep_module._load_file
    reads: list[int] = []

    def counted(*args, **kwargs):
        reads.append(1)
        return load_file(*args, **kwargs)

    def stamp_late(self):
        if len(reads) == 1:  # A has read F once: B runs on F's new content first
            reads.append(0)
            _write(f, 1)
            _sweep([f], db)
        return reserve(self)

    monkeypatch.setattr(sweep_module, "_load_file", counted)
    monkeypatch.setattr(Store, "reserve_stamp", stamp_late)
    _sweep([f], db)  # sweep A
    assert reads == [1, 0, 1, 1]  # A, B, then A again
    with Store(db, readonly=True) as store:
        newest = max(store.reads(), key=lambda r: r.seen)
        assert {(r["instance"], r["version"]) for r in store.runs()} == {
            (_key(f), r["version"]) for r in store.runs()
        }
    assert newest.instance == _key(f) != old
    assert {r["instance_key"] for r in load_rows(db)} == {_key(f)}
    assert superseded_keys(db) == set()


def test_a_file_that_changes_at_every_read_is_refused(tmp_path, monkeypatch):
    f, db = _write(tmp_path / "F.json", 0), tmp_path / "s.db"
    load_file = sweep_module._load_file
    edits = iter(range(1, 100))

    def always_edited(*args, **kwargs):
        loaded = load_file(*args, **kwargs)
        _write(f, next(edits))
        return loaded

    monkeypatch.setattr(sweep_module, "_load_file", always_edited)
    with pytest.raises(InstanceError, match="F.json: changed while it was being read, 5 times"):
        _sweep([f], db)
    assert next(edits) == sweep_module.READ_ATTEMPTS + 1


def test_a_platform_file_edited_while_the_instances_are_read_is_read_again(tmp_path, monkeypatch):
    f, g, db = _write(tmp_path / "F.json", 0), _write(tmp_path / "G.json", 1), tmp_path / "s.db"
    platform = tmp_path / "p.json"

    def write_platform(latency: float) -> None:
        network = {"topology": "fully-connected", "latency": latency}
        platform.write_text(json.dumps({"processors": [{"id": "p0"}, {"id": "p1"}],
                                        "network": network}))  # fmt: skip

    write_platform(1.0)
    load_file = sweep_module._load_file
    reads: list[str] = []

    def edited_once(path, *args, **kwargs):
        loaded = load_file(path, *args, **kwargs)
        if not reads:  # F was read on the old platform; G will be on the new one
            write_platform(2.0)
        reads.append(Path(path).name)
        return loaded

    monkeypatch.setattr(sweep_module, "_load_file", edited_once)
    out = run_sweep([str(f), str(g)], "heft", exact="none", db=str(db), progress="none",
                    jobs=1, platform=str(platform))  # fmt: skip
    out.store.close()
    assert reads == ["F.json", "F.json", "G.json"]
    on_platform = [instance_key(load_problem(x, str(platform))) for x in (f, g)]
    assert out.instances == on_platform
    with Store(db, readonly=True) as store:
        assert {r.platform_key for r in store.reads()} == {
            sweep_module._platform_file(str(platform))[1]
        }


def test_a_file_back_before_its_gone_marker_is_stamped_is_not_marked(tmp_path, monkeypatch):
    """A gone marker brackets its stamp as a read does: gone before it and after it."""
    study, db = tmp_path / "s", tmp_path / "s.db"
    study.mkdir()
    a, b = _write(study / "a.json", 0), _write(study / "b.json", 1)
    _sweep([study], db)
    saved, b_key = b.read_bytes(), _key(b)
    b.unlink()
    gone_sources = sweep_module._gone_sources

    def back_again(*args, **kwargs):
        gone = gone_sources(*args, **kwargs)
        assert gone == [str(b.resolve())]
        b.write_bytes(saved)  # restored before the marker is stamped
        return gone

    monkeypatch.setattr(sweep_module, "_gone_sources", back_again)
    _sweep([study], db)
    assert superseded_keys(db) == set()
    assert {r["instance_key"] for r in load_rows(db)} == {_key(a), b_key}
    monkeypatch.undo()
    b.unlink()
    _sweep([study], db)  # gone for good: marked
    assert superseded_keys(db) == {b_key}


# ---- defect 3: an interrupted study of new code ---------------------------------------


def _version(monkeypatch, version: str) -> None:
    monkeypatch.setattr(fingerprint_module, "results_version", lambda: version)


def _stopped_after(n: int):
    """A LocalPool.run that finishes ``n`` runs, claims one more, and is interrupted."""

    def stopped(self, tasks, on_result, *, claim=None):
        for i, (key, task) in enumerate(tasks):
            assert claim(key)
            if i == n:
                raise KeyboardInterrupt
            on_result(key, execute(task))

    return stopped


@pytest.mark.parametrize("finished", [0, 3])
def test_results_counts_the_runs_a_new_version_never_started(
    capsys, monkeypatch, tmp_path, finished
):
    """A complete study, the code changes, the same compare is interrupted.

    Rows of the old code counted as the new plan's runs: only the claimed run
    was reported, and nothing at all when the interruption came before a claim.
    """
    study, db = tmp_path / "s", tmp_path / "s.sqlite"
    study.mkdir()
    shutil.copy(TOPCUOGLU, study / "a.json")
    shutil.copy(MESH12, study / "b.json")
    methods = "heft,cpop,peft,etf"  # 8 runs
    pool_run = pool_module.LocalPool.run
    _version(monkeypatch, "0.1.0+old")
    _sweep([study], db, methods)
    status, _, err = run(capsys, ["results", db])
    assert status == 0 and "warning" not in err
    _version(monkeypatch, "0.1.0+new")
    monkeypatch.setattr(pool_module.LocalPool, "run", _stopped_after(finished))
    with pytest.raises(KeyboardInterrupt):
        _sweep([study], db, methods)
    monkeypatch.setattr(pool_module.LocalPool, "run", pool_run)
    with Store(db, readonly=True) as store:
        claimed, not_started = store.unfinished()
        assert sum(claimed.values()) == 1 and not_started == 8 - finished - 1
        keys = [(k, m, o) for k, m, o, v in _plan(store) if v == "0.1.0+new"]
        assert store.unfinished(keys, "0.1.0+new")[1] == 8 - finished - 1
        assert store.unfinished(keys, "0.1.0+old") == ({}, 0)  # the old study is complete
    status, _, err = run(capsys, ["results", db])
    assert status == 0
    assert f"{8 - finished - 1} planned runs were never started" in err
    # The same compare, run again by the new code, finishes the new study.
    _sweep([study], db, methods)
    status, _, err = run(capsys, ["results", db])
    assert status == 0 and "warning" not in err


def _plan(store: Store) -> list[tuple[str, str, str, str]]:
    return [tuple(r) for r in store._db.execute("SELECT * FROM plans")]


def test_a_claim_of_another_version_does_not_start_the_plan_s_run():
    store = Store(":memory:")
    try:
        store.add_plan([("i", "heft", "{}")], "new")
        store.add_run("i", "heft", "{}", "old", {"status": "feasible", "makespan": 1.0})
        assert store.unfinished() == ({}, 1)
        assert store.claim("i", "heft", "{}", "older")
        claimed, not_started = store.unfinished()
        assert sum(claimed.values()) == 1 and not_started == 1
        store.add_run("i", "heft", "{}", "new", {"status": "feasible", "makespan": 1.0})
        assert store.unfinished([("i", "heft", "{}")], "new") == ({}, 0)
    finally:
        store.close()
