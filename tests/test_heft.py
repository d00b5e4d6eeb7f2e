"""Tests of HEFT (heuristics.heft)."""

import time

import numpy as np
import pytest

from exactsched import MethodError, Problem, load_instance, solve, validate
from exactsched.generators import TOPOLOGIES, random_dag, random_instance
from heuristics.heft import heft, heft_priority
from heuristics.ranking import WEIGHTINGS, upward_rank

EXAMPLE = "examples/topcuoglu2002.json"


@pytest.fixture(scope="module")
def paper():
    return load_instance(EXAMPLE)


def test_paper_makespan_and_schedule(paper):
    """Fig. 4(a) of Topcuoglu et al. 2002: makespan 80."""
    s = heft(paper)
    assert s.makespan == 80
    assert validate(paper, s) == []
    expected = {
        "n1": ("p3", 0, 9),
        "n3": ("p3", 9, 28),
        "n4": ("p2", 18, 26),
        "n2": ("p1", 27, 40),
        "n5": ("p3", 28, 38),
        "n6": ("p2", 26, 42),
        "n9": ("p2", 56, 68),
        "n7": ("p3", 38, 49),
        "n8": ("p1", 57, 62),
        "n10": ("p2", 73, 80),
    }
    got = {t: (s[t].processor, s[t].start, s[t].finish) for t in expected}
    assert got == expected


def test_solve_runs_heft(paper):
    result = solve(paper, "heft", ranking="mean")
    assert result.makespan == 80
    assert result.lower_bound <= 80


@pytest.mark.parametrize("ranking", WEIGHTINGS)
@pytest.mark.parametrize("direction", ["upward", "downward"])
def test_every_ranking_gives_valid_schedules(ranking, direction):
    p = random_instance(40, 4, topology="mesh", n_order=4, n_isolation=4, affinity=0.3, seed=11)
    s = heft(p, ranking=ranking, direction=direction)
    assert validate(p, s) == []
    assert heft(p, ranking=ranking, direction=direction) == s  # deterministic


@pytest.mark.parametrize("topology", TOPOLOGIES)
@pytest.mark.parametrize("insertion", [True, False])
def test_valid_on_every_topology(topology, insertion):
    p = random_instance(
        50, 8, topology=topology, ccr=2.0, n_order=5, n_isolation=5, affinity=0.2, seed=3
    )
    assert validate(p, heft(p, insertion=insertion)) == []


def test_unknown_options():
    p = Problem.from_lists([1], n_processors=1)
    with pytest.raises(MethodError, match="ranking"):
        heft(p, ranking="average")
    with pytest.raises(MethodError, match="direction"):
        heft(p, direction="sideways")
    with pytest.raises(MethodError, match="not an option of heft"):
        solve(p, "heft", lookahead=True)


def test_downward_priority_is_increasing_rank_d(paper):
    prio = heft_priority(paper, direction="downward")
    assert prio[0] == 0.0 and (prio[1:] < 0).all()


@pytest.mark.parametrize(
    "problem",
    [
        Problem.from_lists([5], n_processors=1),
        Problem.from_lists([[3, 1, 2]]),
        Problem.from_lists([[0, 0], [0, 0], [0, 0]], [(0, 1, 5), (1, 2, 0)]),
        Problem.from_lists([[2, 3], [4, 1], [1, 1]]),
        Problem.from_lists([2, 2, 2], [(0, 1, 9), (1, 2, 9)], n_processors=1),
    ],
    ids=["one-task", "one-task-three-procs", "zero-cost", "no-edges", "one-processor"],
)
def test_edge_cases(problem):
    s = heft(problem)
    assert validate(problem, s) == []


def test_one_processor_is_serial():
    p = Problem.from_lists([2, 3, 4], [(0, 1, 9)], n_processors=1)
    s = heft(p)
    assert s.makespan == 9 and validate(p, s) == []


def test_ties_go_to_lowest_processor():
    p = Problem.from_lists([[2, 2, 2], [2, 2, 2]])
    s = heft(p)
    assert s["t0"].processor == "p0" and s["t1"].processor == "p1"
    assert validate(p, s) == []


def test_insertion_fills_gap():
    # t0 (only p1) -> t1 (only p0) leaves p0 idle on [0, 5); t2 (only p0, lowest
    # rank) fills that gap with insertion and goes last without.
    p = Problem.from_lists(
        [[5, 5], [4, 4], [3, 3]], [(0, 1, 0)], affinity={0: [1], 1: [0], 2: [0]}
    )
    s_ins, s_app = heft(p), heft(p, insertion=False)
    assert (s_ins["t2"].start, s_ins.makespan) == (0, 9)
    assert (s_app["t2"].start, s_app.makespan) == (9, 12)
    assert validate(p, s_ins) == [] and validate(p, s_app) == []


def _naive_heft(problem):
    """Textbook HEFT with plain Python lists (no isolation, no order pairs)."""
    rank = upward_rank(problem)
    order = sorted(range(problem.n_tasks), key=lambda i: (-rank[i], i))
    proc, start, finish = {}, {}, {}
    busy = [[] for _ in range(problem.n_processors)]
    preds = [[] for _ in range(problem.n_tasks)]
    for a in range(problem.n_edges):
        preds[int(problem.arc_dst[a])].append((int(problem.arc_src[a]), a))
    for t in order:
        best = None
        for q in range(problem.n_processors):
            d = problem.cost[t, q]
            if not np.isfinite(d):
                continue
            r = 0.0
            for i, a in preds[t]:
                r = max(r, finish[i] + problem.arc_unit[a] * problem.hops[proc[i], q])
            t0 = r
            for s, f in sorted(busy[q]):
                if max(t0, r) + d <= s:
                    break
                t0 = max(t0, f)
            cand = (t0 + d, q, t0)
            if best is None or cand[0] < best[0]:
                best = cand
        _, q, s = best
        proc[t], start[t], finish[t] = q, s, s + problem.cost[t, q]
        busy[q].append((s, finish[t]))
    return proc, start


@pytest.mark.parametrize("seed", range(8))
def test_matches_naive_heft(seed):
    topology = ["fully-connected", "mesh", "fat-tree", "matrix"][seed % 4]
    p = random_instance(60, 4, topology=topology, ccr=3.0, affinity=0.25, seed=seed)
    s = heft(p)
    assert validate(p, s) == []
    proc, start = _naive_heft(p)
    got_proc, got_start, _ = s.arrays(p)
    assert got_proc.tolist() == [proc[i] for i in range(p.n_tasks)]
    np.testing.assert_array_equal(got_start, [start[i] for i in range(p.n_tasks)])


@pytest.mark.slow
def test_speed_5000_tasks_25000_edges_50_processors():
    rng = np.random.default_rng(0)
    arcs = random_dag(5000, max_in_degree=9, seed=rng)
    speed = rng.uniform(1.0, 4.0, size=50)
    costs = (rng.integers(1, 21, size=5000)[:, None] / speed).tolist()
    data = rng.integers(0, 40, size=len(arcs)).tolist()
    p = Problem.from_lists(costs, [(a, b, d) for (a, b), d in zip(arcs, data, strict=True)])
    assert p.n_edges > 24000
    heft(p)  # warm-up
    started = time.process_time()
    s = heft(p)
    assert time.process_time() - started < 1.0
    assert validate(p, s) == []
