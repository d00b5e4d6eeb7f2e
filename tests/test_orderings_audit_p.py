"""Regression tests for outside audit P of the ordering spaces (models/orderings.py).

Items: (1) a network cost that overflows to infinity, (2) ``--search`` overrunning
its time limit, (3) a mapping naming a task the instance lacks, (4) API orderings with
odd ids, non-integral or boolean indices, (5) ``--limit`` where nothing enumerates.
The auditor's instances are embedded here.
"""

from __future__ import annotations

import json
import time
import types

import numpy as np
import pytest

import exactsched
from exactsched import Problem
from exactsched.cli import main
from exactsched.errors import MethodError
from exactsched.generators import random_instance
from exactsched.instance import parse_instance
from models import _ordering_search
from models.orderings import (
    best_ordering,
    best_priority_list,
    ordering_costs,
    ordering_schedule,
    promote_isolation,
    resolve_mapping,
)

TOPCUOGLU = "examples/topcuoglu2002.json"

# Three tasks pinned to three processors 1e308 hops apart: every path costs 2e308 = inf.
HOPOVF3 = {
    "format": "exactsched/instance@1",
    "platform": {
        "processors": [{"id": "p0"}, {"id": "p1"}, {"id": "p2"}],
        "network": {
            "topology": "matrix",
            "hops": [[0, 1e308, 1e308], [1e308, 0, 1e308], [1e308, 1e308, 0]],
        },
    },
    "tasks": [
        {"id": "t0", "cost": 1, "processors": ["p0"]},
        {"id": "t1", "cost": 1, "processors": ["p1"]},
        {"id": "t2", "cost": 1, "processors": ["p2"]},
    ],
}

SMALL3 = {
    "format": "exactsched/instance@1",
    "platform": {"processors": [{"id": "p0"}, {"id": "p1"}]},
    "tasks": [{"id": "t0", "cost": 1}, {"id": "t1", "cost": 1}, {"id": "t2", "cost": 1}],
    "edges": [{"src": "t0", "dst": "t1", "data": 1}],
    "isolation": [["t0", "t2"]],
}

# HEFT's schedule of SMALL3 plus a task the instance does not have.
MAP_EXTRA = {
    "format": "exactsched/schedule@1",
    "tasks": [
        {"id": "t0", "processor": "p0", "start": 0, "finish": 1},
        {"id": "t1", "processor": "p0", "start": 1, "finish": 2},
        {"id": "t2", "processor": "p1", "start": 1, "finish": 2},
        {"id": "zz", "processor": "p0", "start": 0, "finish": 1},
    ],
}


def run(capsys, *argv):
    status = main(["orderings", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def two_roots(n):
    """Two roots each joined to the same n - 2 tasks, unit costs, two processors."""
    arcs = [(r, k, 1) for r in (0, 1) for k in range(2, n)]
    return Problem.from_lists([1] * n, arcs, n_processors=2)


# ---- item 1: network cost overflow -----------------------------------------------------------


@pytest.mark.parametrize("engine", ["dp", "isl"])
def test_network_overflow_is_one_line_exit_2_on_both_engines(capsys, tmp_path, engine):
    path = write(tmp_path, "hopovf3.json", HOPOVF3)
    status, out, err = run(capsys, path, "--best", "network", "--engine", engine, "--json")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "network cost: the path 't0' -> 't1' -> 't2'" in err
    assert "largest float" in err


@pytest.mark.parametrize("engine", ["dp", "isl"])
def test_network_overflow_api(engine):
    p = parse_instance(HOPOVF3)
    with pytest.raises(MethodError, match="the path 't0' -> 't1' -> 't2' .2 steps. costs more"):
        best_ordering(p, "network", engine=engine)
    with pytest.raises(MethodError, match="the path 't0' -> 't2' -> 't1' .2 steps."):
        ordering_costs(p, np.array([[0, 2, 1]]))


def test_network_overflow_names_where_a_long_path_overflows():
    """Only the third step overflows: the path up to it is named, the rest is not."""
    big = 1e308
    hops = [[0, 1, big, big], [1, 0, big, big], [big, big, 0, 1], [big, big, 1, 0]]
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"p{k}"} for k in range(4)],
            "network": {"topology": "matrix", "hops": hops},
        },
        "tasks": [{"id": f"t{k}", "cost": 1, "processors": [f"p{k}"]} for k in range(4)],
    }
    p = parse_instance(doc)
    # 0 -> 2 (1e308) -> 1 (1e308: overflows here) -> 3.
    with pytest.raises(MethodError, match=r"the path 't0' -> 't2' -> 't1' \(2 steps\)"):
        ordering_costs(p, np.array([[0, 2, 1, 3]]))
    # A path that stays finite is costed as before (1 + 1e308 + 1 rounds to 1e308).
    assert ordering_costs(p, np.array([[0, 1, 2, 3]])).tolist() == [big]


# ---- item 2: --search within its time limit --------------------------------------------------


def test_search_stops_without_bounding_after_the_limit(monkeypatch):
    """The audit's tworoot40: at the limit the whole stack was bounded again (about 3 s
    at --time-limit 4). Now no bound starts after the limit."""
    p = two_roots(40)
    limit = 1.0
    late = []
    t_start = time.perf_counter()
    original = _ordering_search._Bounds.lower

    def lower(self, batch, part=slice(None)):
        if time.perf_counter() - t_start > limit + 0.05:
            late.append(1)
        return original(self, batch, part)

    monkeypatch.setattr(_ordering_search._Bounds, "lower", lower)
    best = best_priority_list(p, time_limit=limit)
    wall = time.perf_counter() - t_start
    assert not best.proven and late == []
    assert exactsched.lower_bound(p) <= best.lower_bound <= best.cost
    assert wall < limit + 1.5  # was about twice the limit


class _Clock:
    """A fake clock for :mod:`models._ordering_search`: one unit per reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1.0
        return self.now


@pytest.mark.parametrize("seed", range(4))
def test_bound_at_the_time_limit_stays_a_lower_bound(monkeypatch, seed):
    """Stopped after any number of clock readings (also inside a block bounded a slice
    at a time), the bound never exceeds the best priority list found by enumeration."""
    p = random_instance(7, 3, seed=seed)
    best = best_ordering(p, "makespan").cost
    monkeypatch.setattr(_ordering_search, "_BOUND_ROWS", 3)
    stopped = 0
    for ticks in range(2, 80, 3):
        clock = _Clock()
        monkeypatch.setattr(
            _ordering_search, "time", types.SimpleNamespace(perf_counter=clock.perf_counter)
        )
        r = _ordering_search.branch_and_bound(p, time_limit=ticks, stop_at_bound=False)
        assert r.lower_bound <= best <= r.makespan
        if r.proven:
            assert r.makespan == best
        else:
            stopped += 1
    assert stopped


# ---- item 3: a mapping naming a task the instance lacks --------------------------------------


def test_mapping_with_an_unknown_task_is_refused(capsys, tmp_path):
    inst = write(tmp_path, "small3.json", SMALL3)
    mapping = write(tmp_path, "map_extra.json", MAP_EXTRA)
    status, out, err = run(capsys, inst, "--best", "network", "--mapping", mapping)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "mapping: task 'zz' is not in the instance" in err


def test_resolve_mapping_refuses_unknown_tasks():
    p = parse_instance(SMALL3)
    with pytest.raises(MethodError, match="task 'zz' is not in the instance"):
        resolve_mapping(p, {"t0": "p0", "t1": "p0", "t2": "p1", "zz": "p0"})
    schedule = exactsched.Schedule.from_json(MAP_EXTRA, check_makespan=False)
    with pytest.raises(MethodError, match="task 'zz' is not in the instance"):
        resolve_mapping(p, schedule)
    assert resolve_mapping(p, {"t0": "p0", "t1": "p0", "t2": "p1"}).tolist() == [0, 0, 1]


# ---- item 4: API orderings -------------------------------------------------------------------


ODD_IDS = {
    "format": "exactsched/instance@1",
    "platform": {"processors": [{"id": "p0"}]},
    "tasks": [{"id": "", "cost": 1}, {"id": "a b", "cost": 1}],
    "edges": [{"src": "", "dst": "a b"}],
}


def test_odd_ids_are_quoted_in_the_illegal_ordering_message():
    p = parse_instance(ODD_IDS)
    with pytest.raises(MethodError, match=r"^ordering: 'a b' comes before its predecessor ''$"):
        ordering_schedule(p, ["a b", ""])
    with pytest.raises(MethodError, match="'a b' comes before its predecessor ''"):
        promote_isolation(p, [1, 0])
    assert ordering_schedule(p, ["", "a b"]).makespan == 2


@pytest.mark.parametrize(
    ("ordering", "message"),
    [
        ([0, 1.9, 2], "task index 1.9 is not an integer"),
        ([0, np.float64(1.5), 2], "task index 1.5 is not an integer"),
        ([0, True, 2], "True is not a task index"),
        ([False, 1, 2], "False is not a task index"),
        ([np.True_, 1, 2], "True is not a task index"),
        ([0, 1, 7], "task index 7 outside 0..2"),
        ([0, 1, None], "None is not a task index"),
    ],
)
def test_ordering_schedule_refuses_bad_indices(ordering, message):
    p = Problem.from_lists([1, 1, 1], [(0, 1)], n_processors=1)
    with pytest.raises(MethodError, match=f"^ordering: {message}$"):
        ordering_schedule(p, ordering)


@pytest.mark.parametrize(
    ("orderings", "message"),
    [
        ([[0, 1.7, 2.2]], "task index 1.7 is not an integer"),
        (np.array([[0.0, 1.7, 2.2]]), "task index 1.7 is not an integer"),
        ([[0, True, 2]], "True is not a task index"),
        (np.array([[True, False, True]]), "True is not a task index"),
        ([[0, 1, "t2"]], "'t2' is not a task index"),
        ([[0, 1, 2**70]], "task index 1180591620717411303424 outside 0..2"),
        ([[0, 1], [2]], "shape|ragged"),
    ],
)
def test_ordering_costs_refuses_bad_indices(orderings, message):
    p = Problem.from_lists([1, 1, 1], [(0, 1)], n_processors=1)
    with pytest.raises(MethodError, match=f"^orderings: ({message})"):
        ordering_costs(p, orderings, "makespan")


def test_integral_indices_are_still_accepted():
    p = Problem.from_lists([1, 1, 1], [(0, 1)], n_processors=1)
    assert ordering_schedule(p, [0, 1.0, np.int64(2)]).makespan == 3
    assert ordering_costs(p, [[0, 1, 2], [2, 0, 1]], "makespan").tolist() == [3.0, 3.0]
    assert ordering_costs(p, np.array([[0.0, 1.0, 2.0]]), "makespan").tolist() == [3.0]
    assert ordering_costs(p, np.array([[0, 1, 2]], dtype=np.int16), "makespan").tolist() == [3.0]


# ---- item 5: --limit where nothing enumerates ------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["--count", "--limit", "0"],
        ["--best", "makespan", "--search", "--limit", "0"],
        ["--best", "makespan", "--search", "--count", "--limit", "5000"],
        ["--isl", "kong", "--limit", "0"],
        ["--limit", "100"],
    ],
)
def test_limit_outside_enumeration_is_refused(capsys, argv):
    status, out, err = run(capsys, TOPCUOGLU, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "--limit: needs --best without --search" in err


def test_limit_still_bounds_enumeration(capsys):
    status, _, err = run(capsys, TOPCUOGLU, "--best", "network", "--limit", "10")
    assert status == 2 and "over --limit 10" in err
    status, out, _ = run(capsys, TOPCUOGLU, "--best", "makespan", "--limit", "1680", "--json")
    assert status == 0 and json.loads(out)["best"]["cost"] == 73
