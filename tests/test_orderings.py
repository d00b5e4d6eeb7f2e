"""Ordering spaces (models.orderings, models._ordering_space): counts, enumeration, isl."""

from __future__ import annotations

import math
import random
import warnings
from itertools import permutations

import networkx as nx
import numpy as np
import pytest

import exactsched
from exactsched import MethodError, Problem
from models.orderings import (
    count_legal,
    isl_count,
    isl_orderings,
    isl_set,
    isl_text,
    iter_orderings,
    ordering_counts,
    semi_legal_count,
)

TOPCUOGLU = "examples/topcuoglu2002.json"


def random_problem(n: int, seed: int, *, order: bool = True, isolation: bool = True) -> Problem:
    """A random DAG of ``n`` tasks with data edges, and optionally order and isolation pairs."""
    rng = random.Random(seed)
    # Denser graphs for 8-9 tasks keep networkx's enumeration short.
    density = rng.choice([0.1, 0.25, 0.45] if n <= 7 else [0.3, 0.45])
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    edges = [(i, j, rng.randint(0, 5)) for i, j in pairs if rng.random() < density]
    rest = [pr for pr in pairs if pr not in {(a, b) for a, b, _ in edges}]
    rng.shuffle(rest)
    order_pairs = rest[: rng.randint(0, 2)] if order else []
    iso = rest[2 : 2 + rng.randint(0, 3)] if isolation else []
    # Relabel so that task indices are not already a topological order.
    perm = list(range(n))
    rng.shuffle(perm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # isolation pairs on ordered tasks are harmless
        return Problem.from_lists(
            [[rng.randint(0, 6) for _ in range(3)] for _ in range(n)],
            [(perm[a], perm[b], d) for a, b, d in edges],
            order=[(perm[a], perm[b]) for a, b in order_pairs],
            isolation=[(perm[a], perm[b]) for a, b in iso],
        )


def nx_graph(problem: Problem) -> nx.DiGraph:
    """Edges plus order pairs; isolation pairs do not constrain a topological sort."""
    g = nx.DiGraph()
    g.add_nodes_from(range(problem.n_tasks))
    g.add_edges_from(zip(problem.arc_src.tolist(), problem.arc_dst.tolist(), strict=True))
    return g


def all_orderings(problem: Problem) -> np.ndarray:
    blocks = list(iter_orderings(problem))
    return np.concatenate(blocks) if blocks else np.zeros((0, problem.n_tasks), np.int16)


CASES = [
    (n, seed, o, i)
    for n in range(1, 10)
    for seed in range(3)
    for o, i in [(False, False), (True, False), (True, True)]
]


@pytest.mark.parametrize(("n", "seed", "order", "iso"), CASES)
def test_legal_count_equals_networkx_topological_sorts(n, seed, order, iso):
    p = random_problem(n, seed, order=order, isolation=iso)
    ref = sorted(tuple(s) for s in nx.all_topological_sorts(nx_graph(p)))
    assert count_legal(p) == len(ref)
    got = all_orderings(p)
    assert [tuple(r) for r in got.tolist()] == ref  # same set, lexicographic order


@pytest.mark.parametrize("seed", range(8))
def test_isl_position_encoding_points_are_the_legal_orderings(seed):
    p = random_problem(2 + seed % 6, seed)
    space = isl_set(p, "position")
    assert isl_count(space) == space.count_val().to_python() == count_legal(p)
    assert np.array_equal(isl_orderings(space, "position"), all_orderings(p))


@pytest.mark.parametrize("seed", range(6))
def test_kong_encoding_equals_position_encoding(seed):
    p = random_problem(2 + seed % 5, 100 + seed)
    kong = isl_orderings(isl_set(p, "kong"), "kong")
    position = isl_orderings(isl_set(p, "position"), "position")
    assert np.array_equal(kong, position)


def test_isl_text_parses_back_to_the_same_set():
    import islpy as isl

    p = random_problem(5, 3)
    for encoding in ("position", "kong"):
        built = isl_set(p, encoding)
        parsed = isl.Set(isl_text(p, encoding), context=built.get_ctx())
        assert parsed.count_val().to_python() == count_legal(p)
        assert parsed.is_equal(built)


def test_isolation_pairs_do_not_change_the_space():
    with_iso = Problem.from_lists([1, 1, 1, 1], [(0, 1)], n_processors=2, isolation=[(2, 3)])
    without = Problem.from_lists([1, 1, 1, 1], [(0, 1)], n_processors=2)
    assert count_legal(with_iso) == count_legal(without) == 12
    assert isl_text(with_iso) == isl_text(without)


def test_kong_semi_legal_column_of_the_parametric_mesh_table():
    # Kong's slides, "Mesh Results: Parametric", column Semi-legal, T = 2..10.
    published = [2, 7, 44, 381, 4332, 60691, None, 19610233, 432457640]
    for n, value in zip(range(2, 11), published, strict=True):
        if value is not None:
            assert semi_legal_count(n) == value


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_semi_legal_by_brute_force(n):
    box = [t for t in np.ndindex(*(n,) * n) if sum(t) + n == n * (n + 1) // 2]
    assert semi_legal_count(n) == len(box)


def test_counts_of_topcuoglu():
    p = exactsched.load_instance(TOPCUOGLU)
    assert ordering_counts(p) == {
        "complete": 10**10,
        "factorial": math.factorial(10),
        "semi_legal": 432457640,
        "legal": 1680,
    }


def test_count_without_enumeration_wide_and_deep():
    # 25 independent tasks: 25!; a chain: 1; two chains of 12 and 13: C(25, 12).
    free = Problem.from_lists([1] * 25, n_processors=1)
    chain = Problem.from_lists([1] * 25, [(i, i + 1) for i in range(24)], n_processors=1)
    two = Problem.from_lists(
        [1] * 25,
        [(i, i + 1) for i in range(11)] + [(i, i + 1) for i in range(12, 24)],
        n_processors=1,
    )
    assert count_legal(free) == math.factorial(25)
    assert count_legal(chain) == 1
    assert count_legal(two) == math.comb(25, 12)


def test_count_large_random_dag_matches_a_second_method():
    # 24 tasks in one component: DP over down-sets vs. a memoised recursion.
    from exactsched.generators import random_instance

    p = random_instance(24, 2, seed=5)
    pred = [set(p.predecessors(v).tolist()) for v in range(p.n_tasks)]

    from functools import cache

    @cache
    def count(placed: frozenset) -> int:
        if len(placed) == p.n_tasks:
            return 1
        return sum(
            count(placed | {v}) for v in range(p.n_tasks) if v not in placed and pred[v] <= placed
        )

    assert count_legal(p) == count(frozenset())


def test_iter_orderings_chunks_keep_lexicographic_order():
    p = exactsched.load_instance(TOPCUOGLU)
    whole = np.concatenate(list(iter_orderings(p, chunk=1 << 20)))
    for chunk in (1, 7, 100):
        blocks = list(iter_orderings(p, chunk=chunk))
        assert max(len(b) for b in blocks) <= chunk
        assert np.array_equal(np.concatenate(blocks), whole)
    assert np.array_equal(whole[np.lexsort(whole.T[::-1])], whole)


def test_one_task_and_no_edges():
    one = Problem.from_lists([[2, 3]])
    assert all_orderings(one).tolist() == [[0]]
    assert ordering_counts(one) == {"complete": 1, "factorial": 1, "semi_legal": 1, "legal": 1}
    free = Problem.from_lists([1, 1, 1], n_processors=1)
    assert all_orderings(free).tolist() == [list(q) for q in permutations(range(3))]


def test_bad_encoding_is_a_method_error():
    with pytest.raises(MethodError, match="unknown encoding 'lex'"):
        isl_text(Problem.from_lists([1], n_processors=1), "lex")


def test_public_api_is_re_exported_from_exactsched():
    import models.orderings as mo

    for name in (
        "best_ordering",
        "best_priority_list",
        "count_legal",
        "ordering_counts",
        "promote_isolation",
        "isl_text",
        "ordering_costs",
        "iter_orderings",
    ):
        assert getattr(exactsched, name) is getattr(mo, name)
        assert name in exactsched.__all__
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        exactsched.nope  # noqa: B018


# ---- issue 16, item 15: forests are counted by the hook length formula ----------------------


@pytest.mark.parametrize("seed", range(40))
def test_forest_count_matches_the_down_set_dp(seed):
    import random

    from models._ordering_space import _count_downsets, _forest_count, predecessor_masks

    rng = random.Random(seed)
    m = rng.randint(2, 11)
    parent = {v: rng.randrange(v) for v in range(1, m) if rng.random() < 0.8}
    arcs = {(u, v) for v, u in parent.items()}
    for v, u in list(parent.items()):  # a transitive arc to the grandparent changes nothing
        if u in parent and rng.random() < 0.5:
            arcs.add((parent[u], v))
    if seed % 2:  # an in-forest: every arc reversed
        arcs = {(m - 1 - v, m - 1 - u) for u, v in arcs}
    p = Problem.from_lists([1] * m, sorted((a, b, 0) for a, b in arcs), n_processors=1)
    pred = predecessor_masks(p)
    assert _forest_count(pred) == _count_downsets(pred, 10**7)


def test_forest_count_refuses_other_dags_and_counts_wide_stars():
    from models._ordering_space import _forest_count, predecessor_masks

    diamond = Problem.from_lists(
        [1] * 4, [(0, 1, 0), (0, 2, 0), (1, 3, 0), (2, 3, 0)], n_processors=1
    )
    assert _forest_count(predecessor_masks(diamond)) is None
    star = Problem.from_lists([1] * 62, [(0, k, 0) for k in range(1, 62)], n_processors=1)
    assert count_legal(star) == math.factorial(61)


def test_counts_beyond_2_to_the_100_are_exact():
    # A root, six chains of 10 and a sink: 60! / (10!)**6 = 3.6e42 orderings. The
    # float with the residue modulo 2**64 alone gave ...3465878388249909620238862080,
    # off by 3.5e26; with the residues modulo primes below 2**40 it is exact.
    chains, length = 6, 10
    n = 2 + chains * length
    edges = []
    for c in range(chains):
        first = 1 + c * length
        edges.append((0, first))
        edges += [(first + k, first + k + 1) for k in range(length - 1)]
        edges.append((first + length - 1, n - 1))
    p = Problem.from_lists([1] * n, edges, n_processors=1)
    expected = math.factorial(chains * length) // math.factorial(length) ** chains
    assert count_legal(p) == expected


@pytest.mark.parametrize(
    "rows, message",
    [
        ([[1, 0]], "puts task 't1' before its predecessor 't0'"),
        ([[0, 0]], "does not hold each of the 2 tasks once"),
        ([[0, 5]], r"task indices must lie in 0\.\.1"),
    ],
)
@pytest.mark.parametrize("objective", ["makespan", "network"])
def test_ordering_costs_refuses_rows_that_are_not_legal_orderings(rows, message, objective):
    """Outside orderings audit (session 12): such rows were costed, or failed in numpy."""
    from models.orderings import ordering_costs

    problem = Problem.from_lists([[2, 3], [1, 1]], [(0, 1, 4)])
    with pytest.raises(MethodError, match=message):
        ordering_costs(problem, np.array(rows), objective, mapping=[0, 1])
