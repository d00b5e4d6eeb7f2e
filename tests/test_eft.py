"""Tests of the shared insertion-based EFT engine (heuristics.eft)."""

import json
from pathlib import Path

import numpy as np
import pytest

from exactsched import MethodError, Problem, solve, validate
from exactsched.generators import TOPOLOGIES, random_instance
from heuristics.eft import ScheduleBuilder, list_schedule, min_eft

INF = np.inf


def indep(costs, **kw):
    """Independent tasks, one cost row each."""
    return Problem.from_lists(costs, **kw)


def test_entry_task_eft_is_cost():
    b = ScheduleBuilder(indep([[3, 5]]))
    est, eft = b.eft(0)
    assert est.tolist() == [0, 0]
    assert eft.tolist() == [3, 5]


def test_insertion_into_gap():
    b = ScheduleBuilder(indep([[2], [1], [3], [4]]))
    b.place(0, 0)  # [0, 2)
    b.place(1, 0, start=5.0)  # [5, 6): leaves the gap [2, 5)
    assert b.gaps(0) == [(2.0, 5.0)]
    assert b.eft(2)[0].tolist() == [2.0]  # cost 3 fits [2, 5)
    assert b.eft(3)[0].tolist() == [6.0]  # cost 4 does not
    b.place(2, 0)
    assert b.gaps(0) == []
    assert b.available.tolist() == [6.0]


def test_insertion_splits_gap_and_picks_earliest_fitting():
    b = ScheduleBuilder(indep([[1], [1], [2], [1], [3]]))
    b.place(0, 0, start=10.0)  # gap [0, 10)
    b.place(1, 0, start=4.0)  # gaps [0, 4) and [5, 10)
    assert b.gaps(0) == [(0.0, 4.0), (5.0, 10.0)]
    assert b.eft(2)[0].tolist() == [0.0]
    b.place(2, 0, start=1.0)  # gaps [0, 1), [3, 4), [5, 10)
    assert b.gaps(0) == [(0.0, 1.0), (3.0, 4.0), (5.0, 10.0)]
    assert b.eft(3)[0].tolist() == [0.0]
    assert b.eft(4)[0].tolist() == [5.0]


def test_gap_search_respects_data_ready():
    # t0 -> t3 with data 3; the gap [2, 8) on p1 starts before the data arrive.
    p = Problem.from_lists([[2, 9], [9, 2], [9, 1], [1, 3]], [(0, 3, 3)])
    b = ScheduleBuilder(p)
    b.place(0, 0)  # p0 [0, 2)
    b.place(1, 1)  # p1 [0, 2)
    b.place(2, 1, start=8.0)  # p1 [8, 9): gap [2, 8)
    est, eft = b.eft(3)
    assert b.data_ready(3).tolist() == [2.0, 5.0]
    assert est.tolist() == [2.0, 5.0]
    assert eft.tolist() == [3.0, 8.0]


def test_no_insertion_appends():
    b = ScheduleBuilder(indep([[2], [1], [3]]), insertion=False)
    b.place(0, 0)
    b.place(1, 0, start=5.0)
    assert b.eft(2)[0].tolist() == [6.0]


def test_gap_storage_grows():
    n = 40
    b = ScheduleBuilder(indep([[1]] * n))
    for i in range(n):
        b.place(i, 0, start=2.0 * i + 1)
    assert len(b.gaps(0)) == n
    b2 = b.copy()
    b2._occupy(0, 0.0, 1.0)  # noqa: SLF001 (fill the first gap directly)
    assert len(b2.gaps(0)) == n - 1 and len(b.gaps(0)) == n


def test_gap_found_after_growth_during_split():
    # Four gaps fill the initial slots; splitting one grows the storage and the
    # new gaps must stay visible to the search.
    b = ScheduleBuilder(indep([[1]] * 5 + [[1], [3]]))
    for i in range(4):
        b.place(i, 0, start=10.0 * (i + 1))
    b.place(4, 0, start=12.0)  # splits [11, 20) into [11, 12) and [13, 20)
    assert len(b.gaps(0)) == 5
    # the gap [0, 10), read with two ulps of its end to spare (exact fits in floats)
    assert b._max_len[0] == 10.0 + 2 * np.spacing(10.0)  # noqa: SLF001
    b.place(5, 0, start=0.0)
    assert b.eft(6)[0].tolist() == [1.0]


def test_zero_cost_fits_anywhere_and_occupies_nothing():
    p = Problem.from_lists([[10, 10], [0, 0], [0, 3], [1, 1]], [(0, 1, 2)])
    b = ScheduleBuilder(p)
    b.place(0, 0)  # p0 [0, 10)
    assert b.data_ready(1).tolist() == [10.0, 12.0]
    b.place(3, 1, start=0.0)
    assert b.eft(2)[0].tolist() == [0.0, 1.0]  # zero cost starts inside p0's busy time
    b.place(2, 0)
    assert b.available.tolist() == [10.0, 1.0]
    assert b.gaps(0) == []
    b.place(1, 1)
    assert b.start[1] == 12.0


def test_zero_cost_without_insertion_appends():
    b = ScheduleBuilder(indep([[4], [0]]), insertion=False)
    b.place(0, 0)
    assert b.eft(1)[0].tolist() == [4.0]


# A positive cost below half an ulp of its start (`start + cost == start` in floats)
# still occupies its processor (issue 15): the point [s, s] may touch other tasks or
# share their start, but no task of positive cost may span it or hold it inside.
BIG, TINY = 1e12, 1e-6  # half an ulp of 1e12 is about 6e-5


def test_tiny_positive_cost_blocks_a_task_spanning_it():
    p = indep([[BIG], [TINY], [150.0], [50.0]])
    b = ScheduleBuilder(p)
    b.place(0, 0)  # [0, 1e12)
    b.place(1, 0, start=BIG + 100)  # finish == start in floats, yet not zero-length
    assert b.finish[1] == b.start[1]
    assert b.gaps(0) == [(BIG, BIG + 100)]
    assert b.eft(2)[0].tolist() == [BIG + 100]  # [1e12, 1e12 + 150) would span it
    assert b.eft(3)[0].tolist() == [BIG]  # [1e12, 1e12 + 50) touches nothing
    b.place(2, 0)
    b.place(3, 0)
    assert validate(p, b.to_schedule()) == []


def test_tiny_positive_cost_splits_a_gap_and_may_touch():
    p = indep([[BIG], [1.0], [TINY], [TINY], [60.0], [40.0]])
    b = ScheduleBuilder(p)
    b.place(0, 0)
    b.place(1, 0, start=BIG + 100)  # gap [1e12, 1e12 + 100)
    b.place(2, 0, start=BIG + 50)  # the point splits it
    assert b.gaps(0) == [(BIG, BIG + 50), (BIG + 50, BIG + 100)]
    b.place(3, 0, start=BIG + 100)  # at another task's start: allowed
    assert b.eft(4)[0].tolist() == [BIG + 101]  # 60 fits neither half
    assert b.eft(5)[0].tolist() == [BIG]  # 40 fits the first half
    b.place(4, 0)
    b.place(5, 0)
    assert validate(p, b.to_schedule()) == []


def test_tiny_positive_cost_at_a_touching_point_is_accepted():
    # A given start where two busy intervals touch lies in no gap; it is not inside.
    p = indep([[BIG], [BIG], [TINY], [TINY]])
    b = ScheduleBuilder(p)
    b.place(0, 0)
    b.place(1, 0)  # [1e12, 2e12)
    b.place(2, 0, start=BIG)
    assert b.available.tolist() == [2 * BIG] and b.gaps(0) == []
    with pytest.raises(ValueError, match="overlaps a placed task"):
        b.place(3, 0, start=BIG / 2)  # strictly inside [0, 1e12)
    b.place(3, 0)
    assert b.start[3] == 2 * BIG
    assert validate(p, b.to_schedule()) == []


def test_tiny_positive_cost_isolation_partner_blocks():
    p = indep([[TINY, TINY], [2 * BIG, 2 * BIG], [TINY, TINY]], isolation=[(0, 1), (1, 2)])
    b = ScheduleBuilder(p)
    b.place(0, 0, start=BIG)
    assert b.eft(1)[0].tolist() == [BIG, BIG]  # not [0, 2e12), which holds 1e12 inside
    with pytest.raises(ValueError, match="isolation partner"):
        b.place(1, 1, start=0.0)
    b.place(1, 1)  # [1e12, 3e12) on p1
    with pytest.raises(ValueError, match="isolation partner"):
        b.place(2, 0, start=2 * BIG)  # a point strictly inside its partner
    b.place(2, 0, start=BIG)  # at the partner's start: allowed
    assert validate(p, b.to_schedule()) == []


def test_affinity_gives_inf():
    p = indep([[2, 3, 4]], affinity={0: [1]})
    est, eft = ScheduleBuilder(p).eft(0)
    assert est.tolist() == [INF, 0.0, INF]
    assert eft.tolist() == [INF, 3.0, INF]


def test_affinity_refused_by_place():
    p = indep([[2, 3]], affinity={0: [1]})
    with pytest.raises(ValueError, match="affinity"):
        ScheduleBuilder(p).place(0, 0)


def test_order_pair_waits_without_communication():
    p = Problem.from_lists([[2, 2], [1, 1]], order=[(0, 1)])
    b = ScheduleBuilder(p)
    b.place(0, 0)
    assert b.data_ready(1).tolist() == [2.0, 2.0]


def test_multi_hop_communication():
    # Processors 0 and 3 of a 2 x 2 mesh are 2 hops apart.
    net = {"topology": "mesh", "dims": [2, 2], "latency": 1}
    p = Problem.from_lists([[1] * 4, [1] * 4], [(0, 1, 3)], network=net)
    b = ScheduleBuilder(p)
    b.place(0, 0)
    assert b.data_ready(1).tolist() == [1.0, 5.0, 5.0, 9.0]


def test_isolation_blocks_every_processor():
    p = indep([[4, 4], [2, 2]], isolation=[(0, 1)])
    b = ScheduleBuilder(p)
    b.place(0, 0)  # [0, 4) on p0
    est, _ = b.eft(1)
    assert est.tolist() == [4.0, 4.0]


def test_isolation_chains_through_gaps():
    # p1 has the gap [0, 6); partners occupy [0, 2) and [3, 5) on p0 (via gap use);
    # a task of cost 2 isolated from both starts at 5 on p1, not 2.
    p = indep([[2, 2], [2, 2], [1, 1], [2, 2], [1, 1]], isolation=[(0, 3), (1, 3)])
    b = ScheduleBuilder(p)
    b.place(0, 0)  # p0 [0, 2)
    b.place(1, 0, start=3.0)  # p0 [3, 5)
    b.place(2, 1, start=6.0)  # p1 [6, 7): gap [0, 6)
    est, _ = b.eft(3)
    assert est.tolist() == [5.0, 7.0]  # p1: [5, 7) overlaps [6, 7), so after it
    b.place(4, 1, start=7.0)
    assert b.eft(3)[0].tolist() == [5.0, 8.0]


def test_isolation_ignores_zero_length():
    p = indep([[0, 0], [3, 3]], isolation=[(0, 1)])
    b = ScheduleBuilder(p)
    b.place(0, 0, start=1.0)
    assert b.eft(1)[0].tolist() == [0.0, 0.0]


def test_place_checks_given_start():
    p = Problem.from_lists([[2, 2], [2, 2], [1, 1], [1, 1]], [(0, 1, 5)], isolation=[(0, 2)])
    b = ScheduleBuilder(p)
    b.place(0, 0)
    with pytest.raises(ValueError, match="data are ready"):
        b.place(1, 1, start=6.0)
    with pytest.raises(ValueError, match="isolation partner"):
        b.place(2, 1, start=1.0)
    with pytest.raises(ValueError, match="overlaps a placed task"):
        b.place(3, 0, start=1.0)
    with pytest.raises(ValueError, match="already placed"):
        b.place(0, 1)


def test_data_ready_needs_placed_predecessors():
    b = ScheduleBuilder(Problem.from_lists([[1], [1]], [(0, 1, 0)]))
    with pytest.raises(ValueError, match="predecessor t0 is not placed"):
        b.data_ready(1)
    assert b.ready_tasks().tolist() == [0]
    b.place(0, 0)
    assert b.ready_tasks().tolist() == [1]


def test_copy_is_independent():
    b = ScheduleBuilder(indep([[1, 1], [1, 1]]))
    b.place(0, 0)
    c = b.copy()
    c.place(1, 0)
    assert not b.is_placed(1) and c.is_placed(1)
    assert b.makespan == 1.0 and c.makespan == 2.0
    assert b.available.tolist() == [1.0, 0.0]


def test_to_schedule_requires_all():
    with pytest.raises(ValueError, match="not placed"):
        ScheduleBuilder(indep([[1]])).to_schedule()


def test_min_eft_ties_lowest_index():
    assert min_eft(ScheduleBuilder(indep([[2, 1, 1]])), 0) == 1


def test_list_schedule_bad_priority():
    p = indep([[1], [1]])
    with pytest.raises(MethodError, match="priority"):
        list_schedule(p, [1.0])
    with pytest.raises(MethodError, match="nan"):
        list_schedule(p, [1.0, np.nan])


def test_list_schedule_priority_against_precedence_is_valid():
    # The priority prefers the sink, but the ready list keeps precedence.
    p = Problem.from_lists([[1, 2], [2, 1], [1, 1]], [(0, 1, 1), (1, 2, 1)], order=[(0, 2)])
    s = list_schedule(p, [0.0, 1.0, 2.0])
    assert validate(p, s) == []


def test_list_schedule_custom_select():
    p = indep([[1, 1, 1]] * 3)
    s = list_schedule(p, [0, 0, 0], select=lambda b, t: 2)
    assert validate(p, s) == []
    assert {pl.processor for pl in s.values()} == {"p2"}
    assert s.makespan == 3
    with pytest.raises(MethodError, match="select"):
        list_schedule(p, [0, 0, 0], select=lambda b, t: 7)


def _reference_est(b, task):
    """Naive earliest start on every processor: scan candidate times."""
    problem = b.problem
    ready = b.data_ready(task)
    placed = np.flatnonzero(b.proc >= 0)
    iso = set(problem.isolation_partners(task).tolist())
    out = []
    for q in range(problem.n_processors):
        d = problem.cost[task, q]
        if not np.isfinite(d):
            out.append(INF)
            continue
        if d == 0:
            out.append(ready[q])
            continue
        busy = [
            (b.start[i], b.finish[i])
            for i in placed
            if (b.proc[i] == q or i in iso) and b.finish[i] > b.start[i]
        ]
        times = sorted({ready[q]} | {f for _, f in busy if f >= ready[q]})
        for t in times:
            if all(not (s < t + d and t < f) for s, f in busy):
                out.append(t)
                break
    return np.array(out)


@pytest.mark.parametrize("seed", range(12))
def test_eft_matches_naive_reference(seed):
    rng = np.random.default_rng(seed)
    topology = TOPOLOGIES[seed % len(TOPOLOGIES)]
    p = random_instance(
        25, 4, topology=topology, n_order=3, n_isolation=4, affinity=0.3, seed=seed
    )
    if seed % 2:
        # Zero costs on some processors exercise the "fits anywhere" rule.
        doc = p.to_json()
        for task in doc["tasks"][::3]:
            task["cost"] = [0 if k % 2 else c for k, c in enumerate(task["cost"])]
        p = Problem.from_json(doc)
    b = ScheduleBuilder(p)
    while not all(b.is_placed(i) for i in range(p.n_tasks)):
        ready = b.ready_tasks()
        task = int(ready[rng.integers(len(ready))])
        est, eft = b.eft(task)
        np.testing.assert_array_equal(est, _reference_est(b, task))
        allowed = np.flatnonzero(np.isfinite(eft))
        b.place(task, int(rng.choice(allowed)))
    assert validate(p, b.to_schedule()) == []


@pytest.mark.parametrize("topology", TOPOLOGIES)
@pytest.mark.parametrize("insertion", [True, False])
def test_list_schedule_valid_on_random_instances(topology, insertion):
    p = random_instance(60, 4, topology=topology, n_order=5, n_isolation=6, affinity=0.3, seed=7)
    rng = np.random.default_rng(1)
    s = list_schedule(p, rng.random(p.n_tasks), insertion=insertion)
    assert validate(p, s) == []


def test_zero_cost_instance_is_valid():
    p = Problem.from_lists(
        [[0, 0], [3, 0], [0, 2], [1, 1]], [(0, 1, 1), (0, 2, 2), (1, 3, 1)], isolation=[(2, 3)]
    )
    s = list_schedule(p, [4, 3, 2, 1])
    assert validate(p, s) == []


def test_earliest_start_from_given_ready_time():
    p = Problem.from_lists([[2, 2], [1, 1], [1, 1]], [(0, 1, 0)], isolation=[(0, 2)])
    b = ScheduleBuilder(p)
    b.place(0, 0)  # [0, 2) on p0
    # t1's parent is placed, but any ready time may be given; t2 is blocked by t0.
    assert b.earliest_start(1, np.array([0.5, 0.5])).tolist() == [2.0, 0.5]
    assert b.earliest_start(2, np.zeros(2)).tolist() == [2.0, 2.0]


def test_select_may_modify_the_arrays_it_gets():
    # list_schedule reuses the est that select computed; a select that scribbles
    # on its copy must not move the placement.
    p = Problem.from_lists([[2, 2], [3, 1]], [(0, 1, 5)])

    def select(builder, task):
        est, eft = builder.eft(task)
        choice = int(np.argmin(eft))
        est[:] = -1.0
        trial = builder.copy()  # a lookahead on a copy leaves the builder alone
        trial.place(task, choice)
        return choice

    s = list_schedule(p, [2.0, 1.0], select=select)
    assert validate(p, s) == []
    assert s == list_schedule(p, [2.0, 1.0])


# ---- exact fits in floating point (outside heuristics audit, session 12) ----------------

EXACT_FIT = Path(__file__).parent / "data" / "eft-exact-fit"


def test_a_task_that_fits_a_gap_exactly_in_floats_goes_into_it():
    """``a + d == b`` in floats while ``b - a < d``: the gap [0, b) holds y exactly.

    The prefilters read the gap's length ``b - a`` and ruled the gap out, so y went
    after the processor's last task (makespan 17958.44 instead of 14399.97).
    """
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}, {"id": "p2"}]},
        "tasks": [
            {"id": "z", "cost": 6526.889143889583, "processors": ["p2"]},
            {"id": "a", "cost": 3668.4220774072655, "processors": ["p1"]},
            {"id": "x", "cost": 3573.0838331028967, "processors": ["p0"]},
            {"id": "y", "cost": 2858.4670664823175, "processors": ["p0"]},
            {"id": "v", "cost": 4300, "processors": ["p2"]},
            {"id": "w", "cost": 5000, "processors": ["p1"]},
        ],
        "edges": [
            {"src": "z", "dst": "x"}, {"src": "a", "dst": "y"},
            {"src": "x", "dst": "v"}, {"src": "y", "dst": "w"},
        ],
    }  # fmt: skip
    problem = Problem.from_json(doc)
    assert 3668.4220774072655 + 2858.4670664823175 == 6526.889143889583
    assert 6526.889143889583 - 3668.4220774072655 < 2858.4670664823175
    schedule = solve(problem, "heft").schedule
    assert validate(problem, schedule) == []
    assert schedule["y"].start == 3668.4220774072655 and schedule.makespan == 14399.97297699248


def test_an_exact_fit_found_by_the_random_comparison():
    """Integer data over bandwidth 0.257: t40 fits p0's gap ending at 64.0194... exactly."""
    problem = Problem.from_json(
        json.loads((EXACT_FIT / "integer-data-bandwidth-0.257.json").read_text())
    )
    schedule = solve(problem, "heft").schedule
    assert validate(problem, schedule) == []
    assert schedule["t40"].start == pytest.approx(55.019455252918284, rel=1e-15)
    assert schedule.makespan == pytest.approx(86.01945525291828, rel=1e-15)
