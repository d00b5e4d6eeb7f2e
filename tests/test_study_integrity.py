"""Study integrity: what a whole-database report may show (the audit of session 8).

A wrong number in a study is worse than a crash: rows computed by other code,
rows of an edited instance, configurations that print alike, a method's kind
guessed from the reading process, a gap with no finite ratio, contradictions a
bound alone does not show, a full disk and a stopped sweep.
"""

from __future__ import annotations

import json
import math
import os
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from exactsched import Schedule, get_method, load_instance, validate
from exactsched.experiments import Store, instance_references, load_rows, run_sweep, summarise
from exactsched.experiments.analysis import config
from exactsched.experiments.fingerprint import code_fingerprint, results_version
from exactsched.experiments.instances import instance_key
from exactsched.experiments.runner import run_options
from exactsched.experiments.store import StoreWriteError

ROOT = Path(__file__).resolve().parents[1]
TOPCUOGLU = ROOT / "examples" / "topcuoglu2002.json"


def _sweep(paths: list[Path], db: Path, methods: str = "heft,cpop") -> object:
    out = run_sweep([str(p) for p in paths], methods, exact="none", db=str(db),
                    progress="none", jobs=1)  # fmt: skip
    out.store.close()
    return out


def _validated(db: Path) -> None:
    with Store(db, readonly=True) as store:
        documents = {i["key"]: i["document"] for i in store.instances()}
        for run in store.runs(schedules=True):
            if run["schedule"] is not None:
                problem = load_instance(json.loads(documents[run["instance"]]))
                schedule = Schedule.from_json(json.loads(run["schedule"]))
                assert validate(problem, schedule) == []


def test_the_results_key_carries_the_code():
    version = results_version()
    assert version.endswith("+" + code_fingerprint()) and len(code_fingerprint()) == 12


def test_rows_computed_by_other_code_are_not_reused(tmp_path):
    db = tmp_path / "s.sqlite"
    first = _sweep([TOPCUOGLU], db)
    assert first.ran == 2
    with sqlite3.connect(db) as con:  # as if an older build of exactsched wrote them
        con.execute("UPDATE runs SET version = '0.1.0'")
    again = _sweep([TOPCUOGLU], db)
    assert (again.ran, again.skipped) == (2, 0)
    # Both stay stored, under two configurations that say which code made them.
    configs = {r["config"] for r in load_rows(db)}
    assert configs == {"exactsched=0.1.0", f"exactsched={results_version()}"}
    _validated(db)


def _swept_copy(tmp_path: Path) -> tuple[Path, dict, Path]:
    """A copy of Topcuoglu's instance in a folder, swept once: (file, document, db)."""
    path = tmp_path / "inst" / "t.json"
    path.parent.mkdir()
    doc = json.loads(TOPCUOGLU.read_text())
    path.write_text(json.dumps(doc))
    db = tmp_path / "s.sqlite"
    _sweep([path.parent], db)
    return path, doc, db


def test_a_file_edited_between_sweeps_supersedes_its_old_rows(tmp_path):
    path, doc, db = _swept_copy(tmp_path)
    doc["tasks"][0]["cost"] = [x + 50 for x in doc["tasks"][0]["cost"]]
    path.write_text(json.dumps(doc))
    time.sleep(0.01)  # the second sweep's rows finish later
    _sweep([path.parent], db)
    new_key = instance_key(load_instance(doc))
    rows = load_rows(db)
    assert {r["instance_key"] for r in rows} == {new_key} and len(rows) == 2
    assert {r["instance_key"] for r in load_rows(db, superseded=True)} != {new_key}
    assert len(load_rows(db, superseded=True)) == 4
    _validated(db)


def test_a_claim_left_on_an_edited_instance_is_not_an_unfinished_run(tmp_path):
    # A sweep killed during a run, then the file edited: the old content is never planned
    # again, so its claim must not keep the study "unfinished" for good (an outside
    # audit, session 17: compare said complete while results said not).
    from exactsched.experiments.analysis import unfinished_note

    path, doc, db = _swept_copy(tmp_path)
    old_key = instance_key(load_instance(doc))
    with Store(db) as store:
        assert store.claim(old_key, "peft", "{}", results_version())
        with sqlite3.connect(db) as con:  # as if its process died
            con.execute("UPDATE claims SET owner = 'elsewhere:1'")
    with Store(db, readonly=True) as store:
        assert sum(store.unfinished()[0].values()) == 1
    doc["tasks"][0]["cost"] = [x + 50 for x in doc["tasks"][0]["cost"]]
    path.write_text(json.dumps(doc))
    time.sleep(0.01)
    _sweep([path.parent], db)
    with Store(db, readonly=True) as store:
        assert store.unfinished() == ({}, 0)
        assert unfinished_note(store) is None
    # A sweep that read the old file and still runs here is still said to run.
    with Store(db) as store:
        assert store.claim(old_key, "dls", "{}", results_version())
        assert store.unfinished()[0] == {store.owner: 1}


def test_a_platform_override_is_not_an_edit(tmp_path):
    db = tmp_path / "s.sqlite"
    for platform in ("fully-connected:3", "mesh:3x1"):
        out = run_sweep([str(TOPCUOGLU)], "heft", exact="none", db=str(db), progress="none",
                        jobs=1, platform=platform)  # fmt: skip
        out.store.close()
    assert len({r["instance_key"] for r in load_rows(db)}) == 2


def test_instances_of_one_name_from_two_files_are_named_apart(tmp_path):
    doc = json.loads(TOPCUOGLU.read_text())
    for folder, extra in (("a", 0), ("b", 7)):
        (tmp_path / folder).mkdir()
        doc["tasks"][1]["cost"] = [x + extra for x in doc["tasks"][1]["cost"]]
        (tmp_path / folder / "x.json").write_text(json.dumps(doc))
    db = tmp_path / "s.sqlite"
    _sweep([tmp_path / "a", tmp_path / "b"], db, "heft")
    names = {r["instance"] for r in load_rows(db)}
    assert len(names) == 2 and all(" [" in n for n in names)


def test_a_time_limit_is_one_configuration_however_it_is_written():
    cpsat = get_method("cpsat")
    as_int = run_options(cpsat, {}, time_limit=60, workers=1, seed=0, certify=None)
    as_float = run_options(cpsat, {}, time_limit=60.0, workers=1, seed=0, certify=None)
    assert json.dumps(as_int, sort_keys=True) == json.dumps(as_float, sort_keys=True)
    # ... and two limits that differ print apart.
    assert config({"time_limit": 1.0}, "v") != config({"time_limit": 1.0000001}, "v")


def _add(store: Store, problem, method: str, kind: str | None, **row) -> None:
    key = instance_key(problem)
    store.add_instances([_info(problem, key)])
    full = {"status": "feasible", "makespan": None, "lower_bound": None, "certified": None,
            "kind": kind, **row}  # fmt: skip
    store.add_run(key, method, "{}", "v", full)


def _info(problem, key):
    from exactsched.experiments.instances import describe

    info = describe(problem, "")
    assert info.key == key
    return info


def test_the_kind_is_stored_so_an_unregistered_exact_claim_is_no_optimum(tmp_path):
    problem = load_instance(TOPCUOGLU)  # optimum 73, HEFT 80
    db = tmp_path / "s.sqlite"
    with Store(db) as store:
        # A script's exact method claimed HEFT's 80 optimal without certification.
        _add(store, problem, "script-exact", "exact", status="optimal", makespan=80.0,
             lower_bound=80.0)  # fmt: skip
        _add(store, problem, "heft", "heuristic", makespan=80.0, lower_bound=54.0)
    rows = {r["method"]: r for r in load_rows(db)}
    assert rows["script-exact"]["kind"] == "exact"
    assert rows["heft"]["optimum"] is None  # was 80, "certified" by a lower bound


def test_an_unknown_method_of_an_older_database_gives_no_analytic_bound(tmp_path):
    problem = load_instance(TOPCUOGLU)
    db = tmp_path / "s.sqlite"
    with Store(db) as store:
        _add(store, problem, "gone-method", None, status="feasible", makespan=80.0,
             lower_bound=80.0)  # fmt: skip
    rows = load_rows(db)
    assert rows[0]["kind"] == "unknown" and rows[0]["optimum"] is None


def test_a_gap_against_an_optimum_of_zero_is_infinite_not_dropped():
    ex = {"kind": "exact", "status": "optimal", "certified": True, "makespan": 0.0,
          "lower_bound": 0.0, "label": "cpsat", "instance_key": "i"}  # fmt: skip
    heuristic = {
        "kind": "heuristic",
        "status": "feasible",
        "certified": None,
        "makespan": 10.0,
        "lower_bound": 0.0,
        "label": "lmt",
        "instance_key": "i",
    }
    ref = instance_references([ex, heuristic])
    assert ref["optimum"] == 0.0
    from exactsched.experiments.analysis import _degradation

    rows = []
    for r in (ex, heuristic):
        gap = _degradation(r["makespan"], ref["reference"])
        rows.append({**r, **ref, "gap": gap, "gap_to_optimum": gap, "failed": False,
                     "seconds": 0.1})  # fmt: skip
    lmt = next(s for s in summarise(rows) if s["method"] == "lmt")
    assert lmt["worst_gap"] == math.inf and lmt["mean_gap"] == math.inf


@pytest.mark.parametrize(
    "claim, reason",
    [
        ({"status": "optimal", "makespan": 86.0, "lower_bound": None}, "proves 86"),
        ({"status": "infeasible", "makespan": None, "lower_bound": None}, "says infeasible"),
    ],
)
def test_claims_a_valid_schedule_refutes_are_disputed(claim, reason):
    rows = [
        {"label": "bad", "kind": "exact", "certified": None, **claim},
        {"label": "heft", "kind": "heuristic", "status": "feasible", "makespan": 80.0,
         "lower_bound": 54.0, "certified": None},
    ]  # fmt: skip
    disputed = instance_references(rows)["disputed"]
    assert disputed is not None and (reason in disputed or "80" in disputed)


def test_a_stopped_sweeps_claim_is_taken_over_after_its_deadline(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    # The parent process is alive (as a sweep stopped with kill -STOP would be).
    from exactsched.experiments.store import _owner

    alive = _owner(os.getppid())
    store._db.execute("INSERT INTO claims VALUES ('i', 'heft', '{}', 'v', ?, ?)",
                      (alive, time.time() - 1000))  # fmt: skip
    assert store.claim("i", "heft", "{}", "v", stale_after=100.0)
    store.close()
    store = Store(tmp_path / "t.sqlite")
    store._db.execute("INSERT INTO claims VALUES ('i', 'heft', '{}', 'v', ?, ?)",
                      (alive, time.time()))  # fmt: skip
    assert not store.claim("i", "heft", "{}", "v", stale_after=100.0)  # still in its time
    store.close()


def _limit_file_size() -> None:
    # Python ignores SIGXFSZ: writes past the limit fail with EFBIG, as on a full disk.
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE semantics")
def test_a_full_disk_during_a_sweep_is_one_line_and_exit_2(tmp_path):
    folder = tmp_path / "inst"
    folder.mkdir()
    from exactsched.generators import random_instance

    for seed in range(6):
        p = random_instance(30, 4, seed=seed)
        (folder / f"r{seed}.json").write_text(json.dumps(p.to_json()))
    db = tmp_path / "full.sqlite"
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    proc = subprocess.run(
        [sys.executable, "-m", "exactsched", "compare", str(folder), "--methods",
         "heft,cpop,peft,hoft,pets,lmt", "--exact", "none", "-j", "1", "--db", str(db), "-q"],
        env=env, capture_output=True, text=True, preexec_fn=_limit_file_size, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(db) in lines[0] and "cannot write" in lines[0], lines
    assert "internal error" not in proc.stderr


def test_store_write_errors_are_os_errors_naming_the_file():
    error = StoreWriteError("s.sqlite", sqlite3.OperationalError("database or disk is full"))
    assert isinstance(error, OSError) and error.filename == "s.sqlite"


def test_results_leaves_superseded_rows_out_and_says_so(tmp_path, capsys):
    from exactsched.cli import main

    path = tmp_path / "inst" / "t.json"
    path.parent.mkdir()
    doc = json.loads(TOPCUOGLU.read_text())
    path.write_text(json.dumps(doc))
    db = tmp_path / "s.sqlite"
    _sweep([path.parent], db, "heft")
    doc["tasks"][2]["cost"] = [x + 9 for x in doc["tasks"][2]["cost"]]
    path.write_text(json.dumps(doc))
    time.sleep(0.01)
    _sweep([path.parent], db, "heft")
    capsys.readouterr()
    assert main(["results", str(db), "--json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)) == 1 and "--superseded" in captured.err
    assert main(["results", str(db), "--json", "--superseded"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2


def test_an_absurd_time_limit_is_not_an_internal_error(capsys):
    # -t 1e300 made the pool's wait overflow the OS timeout: exit 3, "a bug".
    from exactsched.cli import main

    assert main(["compare", str(TOPCUOGLU), "--methods", "heft", "--exact", "none",
                 "-j", "1", "-t", "1e300", "-q"]) == 0  # fmt: skip
    assert "internal error" not in capsys.readouterr().err


_BASE = {
    "format": "exactsched/instance@1",
    "platform": {"processors": [{"id": "p0"}, {"id": "p1"}]},
    "tasks": [{"id": "a", "cost": [2, 3]}, {"id": "b", "cost": [4, 1.5]}],
    "edges": [{"src": "a", "dst": "b", "data": 3}],
}


def _respelt(**changes: object) -> dict:
    doc = json.loads(json.dumps(_BASE))
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
        node[int(last) if isinstance(node, list) else last] = value
    return doc


@pytest.mark.parametrize(
    "changes",
    [
        {"tasks__0__cost": [2.0, 3.0]},
        {"tasks__0__cost": [2e0, 3e0]},
        {"platform__network__bandwidth": 1},
        {"platform__network__bandwidth": 1.0},
        {"platform__network__latency": 0},
        {"platform__network__topology": "fully-connected"},
        {"platform__network__communication": "delay", "platform__network__duplex": False},
        {"platform__processors__0__type": "default"},
        {"edges__0__data": 3.0},
        {"order": [], "isolation": []},
    ],
    ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()),
)
def test_one_instance_spelt_two_ways_is_one_key(changes):
    # An outside audit: "bandwidth": 1.0 against 1 made two instances of one, so
    # a study counted it twice in every mean and win count.
    base, respelt = load_instance(_BASE), load_instance(_respelt(**changes))
    assert instance_key(respelt) == instance_key(base)


@pytest.mark.parametrize(
    "changes",
    [
        {"tasks__0__cost": [2, 3.5]},
        {"platform__network__bandwidth": 2},
        {"platform__network__latency": 1e-9},
        {"platform__processors__0__type": "cpu"},
        {"edges__0__data": 0},
        {"order": [["a", "b"]]},
        {"platform__network__communication": "single-port"},
    ],
    ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()),
)
def test_another_instance_is_another_key(changes):
    base, other = load_instance(_BASE), load_instance(_respelt(**changes))
    assert instance_key(other) != instance_key(base)


def test_a_study_of_two_spellings_counts_one_instance(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    (tmp_path / "x" / "a.json").write_text(json.dumps(_BASE))
    (tmp_path / "y" / "a.json").write_text(json.dumps(_respelt(tasks__0__cost=[2.0, 3.0])))
    out = _sweep([tmp_path / "x", tmp_path / "y"], tmp_path / "s.sqlite", methods="heft")
    rows = load_rows(str(tmp_path / "s.sqlite"))
    assert len({r["instance_key"] for r in rows}) == 1
    assert out is not None


def test_a_bound_beyond_64_bits_is_stored(tmp_path):
    # An outside audit: costs of 1e19 gave a bound of 19999999999999959040, an int
    # SQLite's INTEGER cannot hold (exit 3, internal error).
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}]},
        "tasks": [{"id": "a", "cost": [1e19, 1e19]}, {"id": "b", "cost": [1e19, 1e19]}],
        "edges": [{"src": "a", "dst": "b", "data": 1}],
    }
    (tmp_path / "big.json").write_text(json.dumps(doc))
    _sweep([tmp_path / "big.json"], tmp_path / "s.sqlite", methods="heft")
    rows = load_rows(str(tmp_path / "s.sqlite"))
    assert len(rows) == 1 and rows[0]["makespan"] == 2e19


def test_results_warns_of_one_content_stored_under_two_keys(tmp_path, monkeypatch, capsys):
    # An outside audit: a database written by an exactsched that keyed instances by
    # their spelling counts "bandwidth": 1.0 and 1 as two instances in `results`.
    import hashlib

    import exactsched.experiments.instances as instances
    from exactsched.cli import main

    def spelt_key(problem):  # the key before the canonical spelling
        doc = problem.to_json()
        doc.pop("name", None)
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    for folder, cost in (("x", [2, 3]), ("y", [2.0, 3.0])):
        (tmp_path / folder).mkdir()
        doc = json.loads(json.dumps(_BASE))
        doc["tasks"][0]["cost"] = cost
        (tmp_path / folder / "a.json").write_text(json.dumps(doc))
    monkeypatch.setattr(instances, "instance_key", spelt_key)
    _sweep([tmp_path / "x", tmp_path / "y"], tmp_path / "s.sqlite", methods="heft")
    monkeypatch.undo()
    assert main(["results", str(tmp_path / "s.sqlite")]) == 0
    err = capsys.readouterr().err
    assert "2 stored instances are 1 content(s) spelt in several ways" in err
    _sweep([tmp_path / "x", tmp_path / "y"], tmp_path / "s.sqlite", methods="heft")
    assert main(["results", str(tmp_path / "s.sqlite")]) == 0
    assert "spelt in several ways" not in capsys.readouterr().err  # read again: one key
