"""Tests of CPOP (heuristics.cpop)."""

import warnings

import numpy as np
import pytest

from exactsched import MethodError, Problem, load_instance, solve, validate
from exactsched.generators import TOPOLOGIES, random_instance
from heuristics.cpop import cpop, critical_path, critical_path_processor
from heuristics.ranking import WEIGHTINGS, downward_rank, upward_rank


@pytest.fixture(scope="module")
def paper():
    return load_instance("examples/topcuoglu2002.json")


def test_paper_makespan(paper):
    """Fig. 4(b) of Topcuoglu et al. 2002: makespan 86, critical path on p2."""
    s = cpop(paper)
    assert s.makespan == 86
    assert validate(paper, s) == []
    assert [s[t].processor for t in ("n1", "n2", "n9", "n10")] == ["p2"] * 4
    assert solve(paper, "cpop").makespan == 86


def test_paper_critical_path(paper):
    prio = upward_rank(paper) + downward_rank(paper)
    path = critical_path(paper, prio)
    assert [paper.task_ids[i] for i in path] == ["n1", "n2", "n9", "n10"]
    assert np.allclose(prio[path], 108.0)
    assert critical_path_processor(paper, path) == 1


def test_several_entries_start_at_the_best():
    # t0 -> t2 is longer than t1 -> t2: the path starts at t0.
    p = Problem.from_lists([[5, 5], [1, 1], [1, 1]], [(0, 2, 0), (1, 2, 0)])
    prio = upward_rank(p) + downward_rank(p)
    assert critical_path(p, prio) == [0, 2]


def test_tied_paths_follow_lowest_index():
    p = Problem.from_lists([[1, 1]] * 4, [(0, 1, 0), (0, 2, 0), (1, 3, 0), (2, 3, 0)])
    prio = upward_rank(p) + downward_rank(p)
    assert critical_path(p, prio) == [0, 1, 3]


def test_critical_path_processor_with_affinity():
    # No processor may run both path tasks: p0 runs one (cheaper than p2's one).
    p = Problem.from_lists([[3, 1, 9], [3, 2, 1]], affinity={0: [0, 1], 1: [0, 2]})
    assert critical_path_processor(p, [0, 1]) == 0
    q = Problem.from_lists([[2, 9], [9, 1]], affinity={0: [0], 1: [1]})
    # Each processor runs one path task: the cheaper total (p1: 1 < p0: 2) wins.
    assert critical_path_processor(q, [0, 1]) == 1


def test_affinity_splits_critical_path():
    p = Problem.from_lists(
        [[2, 2, 2], [9, 9, 9], [2, 2, 2]], [(0, 1, 5), (1, 2, 5)], affinity={1: [2]}
    )
    s = cpop(p)
    assert validate(p, s) == []
    assert s["t1"].processor == "p2"


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_valid_on_every_topology(topology):
    p = random_instance(50, 8, topology=topology, n_order=5, n_isolation=5, affinity=0.3, seed=5)
    s = cpop(p)
    assert validate(p, s) == []
    assert cpop(p) == s


@pytest.mark.parametrize("ranking", WEIGHTINGS)
def test_every_ranking(ranking):
    p = random_instance(30, 4, topology="torus", n_order=3, n_isolation=3, seed=2)
    assert validate(p, cpop(p, ranking=ranking, insertion=False)) == []


def test_unknown_ranking():
    with pytest.raises(MethodError, match="ranking"):
        cpop(Problem.from_lists([1], n_processors=1), ranking="nope")


@pytest.mark.parametrize(
    "problem",
    [
        Problem.from_lists([5], n_processors=1),
        Problem.from_lists([[0, 0], [0, 0]], [(0, 1, 3)]),
        Problem.from_lists([[2, 3], [4, 1], [1, 1]]),
    ],
    ids=["one-task", "zero-cost", "no-edges"],
)
def test_edge_cases(problem):
    assert validate(problem, cpop(problem)) == []


def test_speedup_ranking_with_a_zero_cost_fastest_processor_keeps_the_critical_path():
    # a and b each cost 0 on their fastest processor: speedup x / 0. Infinite
    # weights made every rank inf and the path stop at the entry (inf - inf);
    # they now count as the largest finite ratio, so the chain stays critical.
    p = Problem.from_lists([[0, 4], [3, 0], [2, 2]], [(0, 1, 3), (1, 2, 1)])
    prio = upward_rank(p, "speedup") + downward_rank(p, "speedup")
    assert np.isfinite(prio).all()
    assert critical_path(p, prio) == [0, 1, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = cpop(p, ranking="speedup")
    assert validate(p, s) == []


@pytest.mark.parametrize("scale", [1, 10])
def test_equal_priorities_tie_to_the_lower_index(scale):
    # t0..t3 all have priority 49/15 (x 10: 98/3) exactly; added from ranks each rounded to
    # 12 digits, t3's came out below t2's, so t3 went first and t2 lost p1 (an outside
    # audit). Ties go to the lower index: t2 before t3, both on p1.
    cost = [[5, 3, 3], [2, 2, 2], [7, 5, 7], [3, 1, 6], [3, 5, 5], [7, 5, 7], [6, 1, 3], [1, 5, 7]]
    edges = [(0, 1, 5), (0, 2, 1), (1, 3, 1), (2, 4, 6), (2, 5, 5), (3, 5, 1), (1, 6, 1)]
    edges += [(3, 6, 5), (5, 6, 7), (0, 7, 6), (2, 7, 2), (3, 7, 1)]
    unit = scale / 10  # 0.1 x the integers (decimal data), or the integers themselves

    def times(k: int) -> float:
        return k if scale == 10 else k / 10

    problem = Problem.from_lists(
        [[times(c) for c in row] for row in cost], [(a, b, times(d)) for a, b, d in edges]
    )
    schedule = cpop(problem)
    assert validate(problem, schedule) == []
    assert schedule["t2"].processor == schedule["t3"].processor == "p1"
    assert schedule["t2"].start == pytest.approx(5 * unit)
    assert schedule["t3"].start == pytest.approx(10 * unit)
