"""The ``exactsched orderings`` command."""

from __future__ import annotations

import json
import time

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
    # The search counts nothing (issue 16, item 15); --count adds the counts.
    assert status == 0 and "best makespan: 73 (proven" in out and "legal" not in out
    status, out, _ = run(capsys, TOPCUOGLU, "--best", "makespan", "--search", "--count")
    assert status == 0 and "best makespan: 73 (proven" in out and "legal (dp)" in out


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


# ---- issue 16, item 15 ------------------------------------------------------------------------


def _star(tmp_path, n):
    """Two tasks, then n - 2 independent children of both: 2 (n - 2)! legal orderings and
    about 2**(n-2) down-sets (a star would be counted by the hook length formula)."""
    arcs = [(r, k, 1) for r in (0, 1) for k in range(2, n)]
    p = exactsched.Problem.from_lists([1] * n, arcs, n_processors=2)
    path = tmp_path / f"star{n}.json"
    path.write_text(json.dumps(p.to_json()))
    return str(path)


def test_count_and_best_prints_both(capsys):
    status, out, _ = run(capsys, TOPCUOGLU, "--count", "--best", "makespan")
    assert status == 0
    assert "legal (dp)" in out and "1,680" in out
    assert "best makespan: 73 (proven" in out and "n1 n2 n3 n5 n4 n6 n7 n9 n8 n10" in out
    status, out, _ = run(capsys, TOPCUOGLU, "--count", "--best", "makespan", "--json")
    doc = json.loads(out)
    assert doc["legal"] == 1680 and doc["engine"] == "dp" and doc["best"]["cost"] == 73


def test_search_does_not_count_first(capsys, tmp_path):
    # 2 * 28! legal orderings and 2**28 down-sets: counting is refused, the search is not.
    star = _star(tmp_path, 30)
    status, _, err = run(capsys, star, "--count", "--time-limit", "1")
    assert status == 2 and ("down-sets" in err or "time limit" in err)
    status, out, err = run(capsys, star, "--best", "makespan", "--search", "--time-limit", "1",
                           "--json")  # fmt: skip
    assert status == 0, err
    doc = json.loads(out)
    assert "legal" not in doc and doc["best"]["engine"] == "search"
    assert doc["best"]["cost"] >= doc["best"]["lower_bound"] >= 15


def test_count_guard_is_one_line_before_allocating(capsys, tmp_path):
    from models.orderings import count_legal

    star = exactsched.load_instance(_star(tmp_path, 40))
    # The bound (pairs / size) refuses the layer before it is built.
    with pytest.raises(exactsched.MethodError, match=r"more than 1000 down-sets of 40 .*at least"):
        count_legal(star, max_states=1000)
    status, _, err = run(capsys, _star(tmp_path, 40), "--count", "--time-limit", "0.5")
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "took more than the time limit of 0.5 s" in err or "down-sets" in err


def test_time_limit_covers_counting():
    from models.orderings import count_legal

    wide = exactsched.Problem.from_lists(
        [1] * 30, [(r, k, 0) for r in (0, 1) for k in range(2, 30)], n_processors=1
    )
    with pytest.raises(exactsched.MethodError, match="took more than the time limit of 0 s"):
        count_legal(wide, time_limit=0)
    assert count_legal(exactsched.load_instance(TOPCUOGLU), time_limit=10) == 1680


@pytest.mark.parametrize("seed", range(6))
def test_isl_engine_agrees_with_the_dp(seed):
    from exactsched.generators import random_instance
    from models.orderings import best_ordering, count_legal

    p = random_instance(4 + seed % 4, 3, seed=seed)
    assert count_legal(p, engine="isl") == count_legal(p)
    for objective in ("makespan",):
        a, b = best_ordering(p, objective), best_ordering(p, objective, engine="isl")
        assert (a.cost, a.order, a.ties, a.count) == (b.cost, b.order, b.ties, b.count)


def test_isl_engine_on_the_command_line(capsys):
    status, out, _ = run(capsys, MESH, "--count", "--engine", "isl", "--json")
    doc = json.loads(out)
    assert status == 0 and doc["engine"] == "isl"
    status, out, _ = run(capsys, MESH, "--count", "--json")
    assert json.loads(out)["legal"] == doc["legal"]


def test_a_huge_cost_prints_as_a_float_not_binary_noise(capsys, tmp_path):
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}]},
        "tasks": [{"id": "a", "cost": 1.000000001e24}, {"id": "b", "cost": 1}],
        "edges": [{"src": "a", "dst": "b"}],
    }
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc))
    status, out, _ = run(capsys, str(path), "--best", "makespan", "--json")
    assert status == 0 and "1000000001000000037322752" not in out
    assert json.loads(out)["best"]["cost"] == 1.000000001e24


AUDIT = "tests/data/orderings-audit"


@pytest.mark.parametrize("model", ["contention", "single-port"])
@pytest.mark.parametrize(
    "extra",
    [[], ["--search", "--time-limit", "5"], ["--search", "--cpsat-bound", "30"], ["--limit", "1"]],
)
def test_makespan_costs_refuse_queued_messages(capsys, tmp_path, model, extra):
    """An outside audit: under contention the costs were those of delays (10, "proven"),
    below the certified optimum 14. The batch scheduler models delays only: refused."""
    from exactsched.errors import MethodError
    from models import orderings as mo

    problem = exactsched.load_instance("examples/contention-fork.json").with_communication(model)
    path = tmp_path / f"fork-{model}.json"
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(problem.to_json(), fh)
    started = time.monotonic()
    status, out, err = run(capsys, str(path), "--best", "makespan", *extra)
    assert status == 2 and out == ""
    # The model first: no CP-SAT run (--cpsat-bound) and no --limit hint that would be
    # refused in turn (an outside audit, session 17: 22.8 s before the refusal).
    assert err.count("\n") == 1 and f"communication model is '{model}'" in err
    assert time.monotonic() - started < 20
    with pytest.raises(MethodError, match="delay model only"):
        mo.priority_list_gap(problem, time_limit=5, workers=1)
    # one ordering is still scheduled under the instance's own model
    schedule = mo.ordering_schedule(problem, [0, 1, 2])
    assert exactsched.validate(problem, schedule) == []


def test_promotion_says_when_it_loses_the_best_schedule(capsys, tmp_path):
    """A zero-length task inside its isolation partner: no order pair keeps it there
    (the audit's instance: the optimum went from 8 to 11), and the output now says so."""
    out_path = tmp_path / "promoted.json"
    status, out, _ = run(capsys, f"{AUDIT}/promote_zero.json", "--best", "makespan",
                         "--promote-isolation", str(out_path), "--json")  # fmt: skip
    doc = json.loads(out)
    assert status == 0 and doc["promoted_keeps_schedule"] is False
    assert doc["promoted_loses"] == "order A -> Z: Z starts at 5 before A finishes at 8"
    status, out, _ = run(capsys, MESH, "--best", "makespan", "--promote-isolation",
                         str(out_path), "--json")  # fmt: skip
    assert json.loads(out)["promoted_keeps_schedule"] is True


def test_odd_task_ids_are_quoted(capsys):
    """ESC, a blank and a newline in task ids: quoted and escaped in the order line and
    in the --isl comment, which islpy parses back."""
    import islpy as isl

    status, out, _ = run(capsys, f"{AUDIT}/esc.json", "--best", "makespan")
    assert status == 0 and "\x1b" not in out
    assert '  "\\u001b[31mRED" "a b" "c\\nd"\n' in out
    status, out, _ = run(capsys, f"{AUDIT}/esc.json", "--isl", "position")
    assert out.count("\n") == 2 and "\x1b" not in out
    assert isl.Set(out).count_val().to_python() == 6


def test_tree_minimum_within_its_memory(monkeypatch):
    """The depth-first stack is sized by TREE_MEMORY: a tiny budget gives the same answer."""
    from models import _ordering_search
    from models._ordering_search import tree_minimum

    problem = exactsched.load_instance(TOPCUOGLU)
    want = tree_minimum(problem)
    monkeypatch.setattr(_ordering_search, "TREE_MEMORY", 1)
    got = tree_minimum(problem)
    assert (got[0], got[1].tolist(), got[2:]) == (want[0], want[1].tolist(), want[2:])


def test_best_costs_are_the_grid_values_they_stand_for(capsys, tmp_path):
    """Decimal data: a least network cost prints 0.3, not 0.30000000000000004 (an
    outside audit, session 17), and the search returns enumeration's first best list."""
    from models.orderings import best_ordering, best_priority_list

    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}, {"id": "p2"}]},
        "tasks": [
            {"id": "a", "cost": 0.1, "processors": ["p0"]},
            {"id": "b", "cost": 0.2, "processors": ["p1"]},
            {"id": "c", "cost": 0.3, "processors": ["p2"]},
        ],
        "edges": [{"src": "a", "dst": "b", "data": 0.1}, {"src": "b", "dst": "c", "data": 0.2}],
    }
    path = tmp_path / "net.json"
    path.write_text(json.dumps(doc))
    status, out, _ = run(capsys, str(path), "--best", "network", "--weight", "data", "--json")
    assert status == 0 and json.loads(out)["best"]["cost"] == 0.3
    tie = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}], "network": {"latency": 5}},
        "tasks": [{"id": "t0", "cost": 0.3}, {"id": "t1", "cost": 0.1}, {"id": "t2", "cost": 0.2}],
        "edges": [{"src": "t1", "dst": "t2"}],
    }
    problem = exactsched.load_instance(tie)
    first = best_ordering(problem, "makespan")
    searched = best_priority_list(problem, stop_at_bound=False)
    assert first.order == searched.order == ("t0", "t1", "t2") and searched.cost == 0.3
