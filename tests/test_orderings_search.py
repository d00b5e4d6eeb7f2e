"""Best priority list by branch and bound, HEFT/optimum comparison, isolation promotion."""

from __future__ import annotations

import json
import random
import warnings

import numpy as np
import pytest

import exactsched
from exactsched import Problem, validate
from exactsched.generators import random_instance
from models.orderings import (
    best_ordering,
    best_priority_list,
    ordering_schedule,
    priority_list_gap,
    promote_isolation,
)
from tests.test_orderings_cost import random_problem

TOPCUOGLU = "examples/topcuoglu2002.json"


@pytest.mark.parametrize("seed", range(10))
def test_branch_and_bound_equals_enumeration(seed):
    p = random_problem(7, 50 + seed)
    enum = best_ordering(p, "makespan")
    bb = best_priority_list(p, stop_at_bound=False, time_limit=None)
    assert bb.proven and bb.cost == enum.cost
    assert bb.indices.tolist() == enum.indices.tolist()  # same lexicographic tie-break
    quick = best_priority_list(p, time_limit=None)
    assert quick.proven and quick.cost == enum.cost
    s = ordering_schedule(p, quick.order)
    assert s.makespan == quick.cost and validate(p, s) == []


@pytest.mark.parametrize("seed", range(3))
def test_branch_and_bound_with_fixed_mapping(seed):
    p = random_problem(7, 80 + seed)
    mapping = exactsched.solve(p, "heft").schedule
    enum = best_ordering(p, "makespan", mapping=mapping)
    bb = best_priority_list(p, mapping=mapping, stop_at_bound=False, time_limit=None)
    assert bb.cost == enum.cost and bb.indices.tolist() == enum.indices.tolist()
    s = ordering_schedule(p, bb.order, mapping=mapping)
    assert s.makespan == bb.cost and validate(p, s) == []


def test_branch_and_bound_on_a_larger_instance_within_bounds():
    p = random_instance(16, 3, seed=1)
    heft = exactsched.solve(p, "heft").makespan
    bb = best_priority_list(p, time_limit=30)
    assert bb.lower_bound <= bb.cost <= heft
    s = ordering_schedule(p, bb.order)
    assert s.makespan == bb.cost and validate(p, s) == []


def test_time_limit_returns_an_unproven_incumbent():
    p = random_instance(20, 4, seed=0)
    bb = best_priority_list(p, time_limit=0.2)
    assert bb.cost <= exactsched.solve(p, "heft").makespan
    assert bb.lower_bound <= bb.cost
    assert validate(p, ordering_schedule(p, bb.order)) == []


def test_priority_list_gap_on_topcuoglu():
    g = priority_list_gap(exactsched.load_instance(TOPCUOGLU), time_limit=30, workers=1)
    # HEFT's 80 is all prioritisation: some priority list reaches the optimum 73.
    assert (g["heft"], g["best_list"], g["optimum"]) == (80, 73, 73)
    assert g["best_list_proven"] and g["optimum_proven"]
    assert g["heft_order"] == ["n1", "n3", "n4", "n2", "n5", "n6", "n9", "n7", "n8", "n10"]


def test_promote_isolation_follows_the_best_ordering(tmp_path):
    p = exactsched.load_instance("examples/mesh-isolation.json")
    best = best_ordering(p, "makespan")
    doc = promote_isolation(p, best.order)
    assert "isolation" not in doc
    pos = {t: k for k, t in enumerate(best.order)}
    promoted = [pair for pair in doc["order"] if pair not in p.to_json()["order"]]
    assert len(promoted) == len(p.iso_a)
    assert all(pos[a] < pos[b] for a, b in doc["order"])
    path = tmp_path / "promoted.json"
    path.write_text(json.dumps(doc))
    q = exactsched.load_instance(path)
    # The best ordering stays legal, gives the same list schedule, which is valid for both.
    s = ordering_schedule(q, best.order)
    assert s.makespan == best.cost
    assert validate(q, s) == [] and validate(p, s) == []
    exact = exactsched.solve(q, "cpsat", time_limit=20, workers=1, seed=0)
    assert validate(q, exact.schedule) == [] and validate(p, exact.schedule) == []


def test_promote_without_isolation_changes_nothing_but_the_name():
    p = Problem.from_lists([1, 2], [(0, 1, 1)], n_processors=2, name="x")
    doc = promote_isolation(p, [0, 1])
    assert "order" not in doc and doc["edges"] == p.to_json()["edges"]


def test_kong_fat_tree_test_at_2048_processors_is_instant():
    # Kong's fat-tree table, test 8: 2 tasks, 1 dependence, 2048 processors (5 min 31 s).
    procs = [{"id": f"p{k}"} for k in range(2048)]
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": procs, "network": {"topology": "fat-tree"}},
        "tasks": [
            {"id": "a", "cost": 1, "processors": ["p0"]},
            {"id": "b", "cost": 1, "processors": ["p2047"]},
        ],
        "edges": [{"src": "a", "dst": "b", "data": 1}],
    }
    p = exactsched.load_instance(doc)
    b = best_ordering(p, "network")
    assert b.order == ("a", "b") and b.cost == 2**10
    assert np.isfinite(b.cost)


def test_promote_by_schedule_keeps_the_list_schedule_valid():
    p = exactsched.load_instance("examples/orderings-mesh4x4.json")
    best = best_ordering(p, "makespan")
    s = ordering_schedule(p, best.order)
    q = exactsched.load_instance(promote_isolation(p, s))
    assert validate(q, s) == [] and validate(p, s) == []
    exact = exactsched.solve(q, "cpsat", time_limit=20, workers=1, seed=0)
    assert exact.makespan == s.makespan == 33 and validate(p, exact.schedule) == []


@pytest.mark.parametrize("seed", range(40))
def test_promoting_by_a_schedule_never_writes_a_cycle(seed):
    # Zero-cost tasks on a path share start and finish; their pair was directed by
    # task index, once against the arc b -> a (the audit's instance), which made the
    # promoted instance cyclic. Now ties go by topological position.
    rng = random.Random(seed)
    n = 6
    order = list(range(n))
    rng.shuffle(order)  # arcs follow a random order, so the index says nothing
    edges = [(order[i], order[j], 0) for i in range(n) for j in range(i + 1, n)
             if rng.random() < 0.35]  # fmt: skip
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    iso = rng.sample(pairs, 3)
    costs = [[rng.choice([0, 0, 1]) for _ in range(2)] for _ in range(n)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = Problem.from_lists(costs, edges, isolation=iso)
        schedule = exactsched.solve(p, "heft").schedule
        promoted = Problem.from_json(promote_isolation(p, schedule))  # refuses a cycle
    assert validate(promoted, schedule) == []


def test_the_audits_zero_cost_pair_is_directed_along_its_arc():
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}]},
        "tasks": [{"id": "a", "cost": 0}, {"id": "b", "cost": 0}, {"id": "c", "cost": 1}],
        "edges": [{"src": "b", "dst": "a"}, {"src": "a", "dst": "c"}],
        "isolation": [["a", "b"]],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the pair repeats the arc: harmless
        p = Problem.from_json(doc)
        schedule = exactsched.solve(p, "heft").schedule
        promoted = promote_isolation(p, schedule)
        assert promoted["order"] == [["b", "a"]]
        assert validate(Problem.from_json(promoted), schedule) == []
