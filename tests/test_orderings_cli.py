"""The ``exactsched orderings`` command."""

from __future__ import annotations

import json

import pytest

import exactsched
from exactsched.cli import main

TOPCUOGLU = "examples/topcuoglu2002.json"
MESH = "examples/mesh-isolation.json"


def run(capsys, *argv):
    status = main(["orderings", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_count_json(capsys):
    status, out, _ = run(capsys, TOPCUOGLU, "--count", "--json")
    doc = json.loads(out)
    assert status == 0
    assert {k: doc[k] for k in ("factorial", "complete", "semi_legal", "legal")} == {
        "factorial": 3628800,
        "complete": 10**10,
        "semi_legal": 432457640,
        "legal": 1680,
    }
    assert all(isinstance(doc[k], int) for k in ("factorial", "complete", "semi_legal", "legal"))


def test_best_makespan_json(capsys):
    status, out, _ = run(capsys, TOPCUOGLU, "--best", "makespan", "--json")
    best = json.loads(out)["best"]
    assert status == 0 and best["cost"] == 73 and best["proven"]
    assert best["order"] == ["n1", "n2", "n3", "n5", "n4", "n6", "n7", "n9", "n8", "n10"]
    assert best["ties"] == 24


def test_best_network_with_schedule_mapping(capsys, tmp_path):
    p = exactsched.load_instance(TOPCUOGLU)
    heft = exactsched.solve(p, "heft")
    path = tmp_path / "heft.json"
    path.write_text(json.dumps(heft.to_json()))
    status, out, _ = run(capsys, TOPCUOGLU, "--best", "network", "--mapping", str(path), "--json")
    best = json.loads(out)["best"]
    assert status == 0 and best["cost"] == 3 and len(best["order"]) == 10


def test_search_and_text_output(capsys):
    status, out, _ = run(capsys, TOPCUOGLU, "--best", "makespan", "--search")
    assert status == 0 and "best makespan: 73 (proven" in out and "legal" in out


def test_refuses_over_limit_with_count_and_estimate(capsys):
    status, _, err = run(capsys, TOPCUOGLU, "--best", "makespan", "--limit", "100")
    assert status == 2
    assert err.startswith("exactsched: error: orderings: 1680 legal orderings, over --limit 100")
    assert "about" in err and err.count("\n") == 1


def test_network_without_mapping_is_a_one_line_error(capsys):
    status, _, err = run(capsys, TOPCUOGLU, "--best", "network")
    assert status == 2 and "task n1 may run on 3 processors" in err and err.count("\n") == 1


def test_promote_isolation_writes_a_solvable_instance(capsys, tmp_path):
    out_path = tmp_path / "promoted.json"
    status, out, _ = run(
        capsys, MESH, "--best", "makespan", "--promote-isolation", str(out_path), "--json"
    )
    assert status == 0 and json.loads(out)["promoted"] == str(out_path)
    q = exactsched.load_instance(out_path)
    assert len(q.iso_a) == 0
    result = exactsched.solve(q, "heft")
    assert exactsched.validate(q, result.schedule) == []
    assert exactsched.validate(exactsched.load_instance(MESH), result.schedule) == []


def test_isl_text(capsys):
    status, out, _ = run(capsys, MESH, "--isl", "kong")
    assert status == 0 and out.startswith("# t1..t8") and "t1 + t2" in out
    status, out, _ = run(capsys, MESH, "--isl", "position", "--json")
    doc = json.loads(out)
    assert status == 0 and doc["isl"].startswith("# p0..p7") and doc["legal"] == 57


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--promote-isolation", "x.json"], "needs --best"),
        (["--search"], "--search: only with --best makespan"),
        (["--limit", "-1", "--count"], "--limit: must be >= 0"),
    ],
)
def test_usage_errors(capsys, argv, message):
    status, _, err = run(capsys, TOPCUOGLU, *argv)
    assert status == 2 and message in err


def test_bad_instance(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    status, _, err = run(capsys, str(bad), "--count")
    assert status == 2 and err.count("\n") == 1
