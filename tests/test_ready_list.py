"""Tests of heuristics._ready_list: the incremental ready table and the two drivers."""

import numpy as np
import pytest

from exactsched import Problem, validate
from exactsched.generators import random_instance
from heuristics._ready_list import (
    ReadyTable,
    batch_schedule,
    completion_times,
    first_min,
    immediate_schedule,
)
from heuristics.eft import ScheduleBuilder


def _fresh_est(builder: ScheduleBuilder, task: int) -> np.ndarray:
    return builder.eft(task)[0]


def _place_checking(problem: Problem, insertion: bool, rng, processors=None) -> None:
    """Place random ready tasks; before each, every ready row equals a fresh engine query.

    ``processors(t)`` the processors a task may be placed on (default: its allowed ones).
    """
    table = ReadyTable(ScheduleBuilder(problem, insertion=insertion))
    while len(table):
        tasks = table.ready()
        for t in tasks.tolist():
            assert np.array_equal(table.est[t], _fresh_est(table.builder, t)), t
        t = int(rng.choice(tasks))
        allowed = np.flatnonzero(problem.allowed[t]) if processors is None else processors(t)
        table.place(t, int(rng.choice(allowed)))
    assert validate(problem, table.builder.to_schedule()) == []


@pytest.mark.parametrize("insertion", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_table_stays_exact_under_random_placements(seed, insertion):
    # After every placement, every ready row equals a from-scratch engine query: the
    # incremental update (only clashing rows and isolation partners) loses nothing.
    topology = ("fully-connected", "mesh", "fat-tree")[seed % 3]
    problem = random_instance(
        25, 4, topology=topology, n_order=3, n_isolation=6, affinity=0.2, ccr=2.0, seed=seed
    )
    _place_checking(problem, insertion, np.random.default_rng(seed))


@pytest.mark.parametrize("insertion", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_table_stays_exact_with_zero_cost_tasks(seed, insertion):
    # A zero-cost task occupies nothing: without insertion the table moved every other
    # row's start on its processor to its finish (an outside audit: DLS, min-min,
    # max-min and sufferage started a task at 15 where the engine gives 5).
    rng = np.random.default_rng(100 + seed)
    base = random_instance(16, 3, n_isolation=3, ccr=1.0, seed=seed)
    costs = np.where(rng.random(base.cost.shape) < 0.3, 0.0, base.cost)
    problem = Problem.from_lists(
        costs.tolist(),
        [(int(a), int(b), float(u)) for a, b, u in zip(base.edge_src, base.edge_dst,
                                                      base.arc_unit, strict=False)],
        isolation=list(zip(base.iso_a.tolist(), base.iso_b.tolist(), strict=True)),
    )  # fmt: skip
    _place_checking(problem, insertion, rng)


def _tiny_cost_instance(seed: int) -> Problem:
    """Costs near 1e12 and positive costs below half an ulp of such times (issue 15)."""
    rng = np.random.default_rng(seed)
    n, n_procs = 20, 3
    big = rng.uniform(1e11, 1e12, size=(n, n_procs)).round()
    costs = np.where(rng.random((n, n_procs)) < 0.4, 1e-6, big).tolist()
    edges = [(i, j, float(rng.uniform(1e10, 1e11))) for i in range(n) for j in range(i + 1, n)
             if rng.random() < 0.1]  # fmt: skip
    iso = [(int(a), int(b)) for a, b in rng.choice(n, size=(4, 2)) if a != b]
    return Problem.from_lists(costs, edges, isolation=iso)


@pytest.mark.parametrize("insertion", [False, True])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.filterwarnings("ignore:.*already ordered")
def test_table_stays_exact_with_sub_ulp_positive_costs(seed, insertion):
    # A task whose float finish equals its start still occupies its processor: the
    # incremental table must recompute exactly the rows such a placement affects.
    problem = _tiny_cost_instance(seed)
    every = np.arange(problem.n_processors)
    _place_checking(problem, insertion, np.random.default_rng(seed), lambda t: every)


def test_rounds_hold_released_tasks():
    # t0 -> t1; t2 independent. Continuous: t1 becomes ready after t0 and competes with
    # t2; in rounds it waits until t2 (ready at the start) is placed.
    p = Problem.from_lists([1, 1, 5], [(0, 1)], n_processors=1)
    table = ReadyTable(ScheduleBuilder(p), rounds=True)
    table.place(0, 0)
    assert table.ready().tolist() == [2]
    table.place(2, 0)
    assert len(table) == 0 and table.release() and table.ready().tolist() == [1]
    assert not ReadyTable(ScheduleBuilder(p), rounds=True).release()


def test_immediate_schedule_is_first_in_first_out():
    # t0 -> t2 and t1 entry: order t0, t1 (entries by index), then t2.
    p = Problem.from_lists([1, 1, 1], [(0, 2)], n_processors=1)
    seen = []

    def choose(task, est, eft):
        seen.append(task)
        return 0

    s = immediate_schedule(p, choose)
    assert validate(p, s) == []
    assert seen == [0, 1, 2]
    assert [s[t].start for t in ("t0", "t1", "t2")] == [0, 1, 2]


def test_batch_schedule_passes_ready_tasks_in_index_order():
    p = Problem.from_lists([1, 1, 1], [(2, 0)], n_processors=2)
    calls = []

    def pick(tasks, est):
        calls.append(tasks.tolist())
        return len(tasks) - 1, 0  # always the highest index

    s = batch_schedule(p, pick)
    assert calls == [[1, 2], [0, 1], [0]]
    assert validate(p, s) == []


def test_helpers():
    assert first_min(np.array([[2.0, 1.0], [1.0, 3.0]])) == (0, 1)
    eft, best, least = completion_times(
        np.array([[1.0, 1.0], [2.0, np.inf]]), np.array([0, 1]), np.zeros((2, 2))
    )
    assert best.tolist() == [0, 0] and least.tolist() == [1.0, 2.0]
