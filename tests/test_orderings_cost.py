"""Costs of orderings (models._ordering_cost, models.orderings): batch vs. one at a time."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

import exactsched
from exactsched import MethodError, Problem, validate
from heuristics.eft import ScheduleBuilder, list_schedule
from models._ordering_cost import BatchSchedule, ordering_priority
from models.orderings import (
    best_ordering,
    iter_orderings,
    ordering_costs,
    ordering_schedule,
    resolve_mapping,
)

NETWORKS = [
    None,
    {"topology": "mesh", "dims": [2, 2], "latency": 1},
    {"topology": "fat-tree"},
    {"topology": "fully-connected", "bandwidth": 2},
]


def random_problem(n: int, seed: int) -> Problem:
    """Random DAG on 4 processors: zero costs, affinity, order and isolation pairs."""
    rng = random.Random(seed)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    edges = [(i, j, rng.choice([0, 1, 3, 8])) for i, j in pairs if rng.random() < 0.3]
    taken = {(a, b) for a, b, _ in edges}
    rest = [pr for pr in pairs if pr not in taken]
    rng.shuffle(rest)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Problem.from_lists(
            [[rng.choice([0, 1, 2, 5, 9]) for _ in range(4)] for _ in range(n)],
            edges,
            order=rest[:1],
            isolation=rest[1 : 1 + rng.randint(0, 3)],
            affinity={i: rng.sample(range(4), 2) for i in range(n) if rng.random() < 0.25},
            network=NETWORKS[seed % len(NETWORKS)],
        )


def orderings_of(problem: Problem) -> np.ndarray:
    return np.concatenate(list(iter_orderings(problem)))


def direct_network_cost(problem, ordering, mapping, weight):
    """Kong's path cost of one ordering, the plain way."""
    unit = {}
    for a, b, u in zip(problem.arc_src, problem.arc_dst, problem.arc_unit, strict=True):
        unit[int(a), int(b)] = float(u)
    total = 0.0
    for x, y in zip(ordering[:-1], ordering[1:], strict=True):
        w = 1.0 if weight == "hops" else unit.get((int(x), int(y)), 0.0)
        total += w * problem.hops[mapping[x], mapping[y]]
    return total


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("insertion", [True, False])
def test_batch_makespan_equals_list_schedule(seed, insertion):
    p = random_problem(6, seed)
    o = orderings_of(p)
    batch = BatchSchedule(p, len(o), insertion=insertion)
    for k in range(p.n_tasks):
        batch.step(o[:, k])
    rows = range(0, len(o), max(1, len(o) // 12))
    for r in rows:
        s = list_schedule(p, ordering_priority(o[r]), insertion=insertion)
        assert validate(p, s) == []
        assert batch.schedule(r) == s  # same processors and start times
        assert batch.makespan()[r] == s.makespan


@pytest.mark.parametrize("seed", range(6))
def test_fixed_mapping_makespan_equals_schedule_builder(seed):
    p = random_problem(6, seed)
    mapping = np.array(
        [int(np.flatnonzero(p.allowed[i])[i % p.allowed[i].sum()]) for i in range(p.n_tasks)]
    )
    o = orderings_of(p)
    costs = ordering_costs(p, o, "makespan", mapping=mapping)
    for r in range(0, len(o), max(1, len(o) // 10)):
        b = ScheduleBuilder(p)
        for t in o[r].tolist():
            b.place(t, int(mapping[t]))
        s = b.to_schedule()
        assert validate(p, s) == []
        assert costs[r] == s.makespan
        assert ordering_schedule(p, o[r], mapping=mapping) == s


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weight", ["hops", "data"])
def test_network_costs_equal_direct_computation(seed, weight):
    p = random_problem(7, seed)
    mapping = list_schedule(p, np.zeros(p.n_tasks))
    m = resolve_mapping(p, mapping)
    o = orderings_of(p)
    costs = ordering_costs(p, o, "network", mapping=mapping, weight=weight)
    for r in range(0, len(o), max(1, len(o) // 20)):
        assert costs[r] == pytest.approx(direct_network_cost(p, o[r].tolist(), m, weight))


@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_best_ordering_is_the_lexicographic_minimum(seed):
    p = random_problem(7, seed)
    mapping = list_schedule(p, np.zeros(p.n_tasks))
    o = orderings_of(p)
    for objective in ("network", "makespan"):
        costs = ordering_costs(
            p, o, objective, mapping=mapping if objective == "network" else None
        )
        first = int(np.flatnonzero(costs == costs.min())[0])  # rows are in lexicographic order
        for chunk in (5, 1 << 15):
            b = best_ordering(
                p, objective, mapping=mapping if objective == "network" else None, chunk=chunk
            )
            assert b.cost == costs.min()
            assert b.indices.tolist() == o[first].tolist()
            assert b.ties == int((costs == costs.min()).sum())
            assert b.count == len(o)
        s = ordering_schedule(p, b.indices)
        assert validate(p, s) == []


def test_topcuoglu_priority_lists():
    # 1,680 legal orderings; 24 of them give the optimum 73 as EFT priority lists.
    p = exactsched.load_instance("examples/topcuoglu2002.json")
    o = orderings_of(p)
    ms = ordering_costs(p, o, "makespan")
    assert len(o) == 1680 and ms.min() == 73 and int((ms == 73).sum()) == 24
    s = ordering_schedule(p, o[int(np.argmin(ms))])
    assert s.makespan == 73 and validate(p, s) == []


def test_mapping_from_affinity_and_errors():
    p = Problem.from_lists([1, 1], n_processors=2, affinity={0: [1], 1: [0]})
    assert resolve_mapping(p).tolist() == [1, 0]
    loose = Problem.from_lists([1, 1], n_processors=2)
    with pytest.raises(MethodError, match="task t0 may run on 2 processors"):
        resolve_mapping(loose)
    with pytest.raises(MethodError, match="task t1 has no processor"):
        resolve_mapping(loose, {"t0": "p0"})
    with pytest.raises(MethodError, match="task t0: unknown processor 'x'"):
        resolve_mapping(loose, ["x", "p0"])
    with pytest.raises(MethodError, match="t0 may not run on p0"):
        resolve_mapping(p, [0, 0])
    with pytest.raises(MethodError, match="weight: must be"):
        ordering_costs(p, np.array([[0, 1]]), mapping=[1, 0], weight="bytes")
    with pytest.raises(MethodError, match="objective: must be"):
        ordering_costs(p, np.array([[0, 1]]), "energy")


def test_illegal_ordering_is_refused():
    p = Problem.from_lists([1, 1], [(0, 1)], n_processors=1)
    with pytest.raises(MethodError, match="'t1' comes before its predecessor 't0'"):
        ordering_schedule(p, ["t1", "t0"])
    with pytest.raises(MethodError, match="each of the 2 tasks once"):
        ordering_schedule(p, [0, 0])


@pytest.mark.parametrize("seed", range(4))
def test_best_makespan_with_fixed_mapping_matches_every_ordering(seed):
    p = random_problem(7, 20 + seed)
    mapping = exactsched.solve(p, "heft").schedule
    o = orderings_of(p)
    costs = ordering_costs(p, o, "makespan", mapping=mapping)
    b = best_ordering(p, "makespan", mapping=mapping, chunk=8)
    assert b.cost == costs.min() and b.ties == int((costs == costs.min()).sum())
    assert b.indices.tolist() == o[int(np.argmin(costs))].tolist()
    s = ordering_schedule(p, b.indices, mapping=mapping)
    assert s.makespan == b.cost and validate(p, s) == []


def sub_ulp_problem(seed: int) -> Problem:
    """Costs near 1e15 next to costs below half a float step there (0.003 at 2e15)."""
    rng = random.Random(seed)
    n = 6
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    edges = [(i, j, 0) for i, j in pairs if rng.random() < 0.3]
    rest = [pr for pr in pairs if (pr[0], pr[1], 0) not in edges]
    rng.shuffle(rest)
    costs = [[rng.choice([1e15, 2e15, 3e15, 0.003, 0.25]) for _ in range(2)] for _ in range(n)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an isolation pair on a path: harmless
        return Problem.from_lists(costs, edges, isolation=rest[: rng.randint(0, 2)])


@pytest.mark.parametrize("seed", range(16))
def test_a_sub_ulp_cost_occupies_its_instant_in_the_batch_too(seed):
    # BatchSchedule booked only f > s; a 0.003 task at 2e15 (f == s in floats) was
    # then spanned by a later long task: the audit's best makespan 3e15 < the optimum.
    p = sub_ulp_problem(seed)
    o = orderings_of(p)
    batch = BatchSchedule(p, len(o))
    for k in range(p.n_tasks):
        batch.step(o[:, k])
    for r in range(len(o)):
        s = list_schedule(p, ordering_priority(o[r]))
        assert validate(p, batch.schedule(r)) == []
        assert batch.schedule(r) == s and batch.makespan()[r] == s.makespan


def test_the_audits_sub_ulp_instance_has_best_makespan_4e15():
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}]},
        "tasks": [{"id": "A", "cost": 2e15, "processors": ["p1"]},
                  {"id": "B", "cost": 0.003, "processors": ["p0"]},
                  {"id": "C", "cost": 3e15, "processors": ["p0"]},
                  {"id": "D", "cost": 1e15, "processors": ["p1"]}],
        "edges": [{"src": "A", "dst": "B"}, {"src": "B", "dst": "D"}],
    }  # fmt: skip
    p = Problem.from_json(doc)
    best = best_ordering(p, objective="makespan")
    assert best.cost == 4e15  # A C B D; A B C D costs 5e15 (C may not span B)
    assert validate(p, ordering_schedule(p, best.order)) == []


def test_a_float_rounding_does_not_split_a_tie():
    # All six orders of 0.1, 0.2, 0.3 on one processor cost exactly 0.6; three of
    # them sum to 0.6000000000000001. Ties and the tie-break are the exact ones.
    p = Problem.from_lists([0.1, 0.2, 0.3], n_processors=1)
    best = best_ordering(p, "makespan")
    assert (best.order, best.ties) == (("t0", "t1", "t2"), 6)
    hops = [[0, 0.1, 1, 1], [0.1, 0, 0.2, 1], [1, 0.2, 0, 0.3], [1, 1, 0.3, 0]]
    q = Problem.from_lists([1] * 4, n_processors=4, affinity={i: [i] for i in range(4)},
                           network={"topology": "matrix", "hops": hops})  # fmt: skip
    best = best_ordering(q, "network")  # t0 t1 t2 t3 and t3 t2 t1 t0: exactly 0.6
    assert (best.order, best.ties) == (("t0", "t1", "t2", "t3"), 2)


@pytest.mark.parametrize("seed", range(12))
def test_network_ties_on_decimal_hops_are_the_exact_ones(seed):
    from fractions import Fraction

    rng = random.Random(seed)
    n = 5
    values = [rng.choice([0.1, 0.2, 0.3, 0.7, 1.1]) for _ in range(n * n)]
    hops = [[0.0 if i == j else values[min(i, j) * n + max(i, j)] for j in range(n)]
            for i in range(n)]  # fmt: skip
    edges = [(i, j, 0) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.2]
    p = Problem.from_lists([1] * n, edges, n_processors=n,
                           affinity={i: [i] for i in range(n)},
                           network={"topology": "matrix", "hops": hops})  # fmt: skip
    exact = {}
    for o in orderings_of(p).tolist():
        steps = zip(o[:-1], o[1:], strict=True)
        exact[tuple(o)] = sum(Fraction(repr(hops[a][b])) for a, b in steps)
    low = min(exact.values())
    tied = sorted(o for o, c in exact.items() if c == low)
    best = best_ordering(p, "network")
    assert best.indices.tolist() == list(tied[0]) and best.ties == len(tied)
