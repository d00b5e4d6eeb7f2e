"""Times of list schedules on decimal data lie on the data's grid (exactsched._time_grid).

Float sums blur a decimal grid by an ulp (``0.2 + 0.1 > 0.3``); without rounding, a
task that exactly fills an idle slot or ends where its isolation partner starts was
pushed later, and exact ties between processors broke by the ulp. Cases from outside
audits: an isolation pair whose intervals only touch (orderings: 3.075 for three
orders where exact arithmetic gives 2.975), and a tie between two processors under a
latency of 0.1 (``0.1 + 0.7`` is ``0.7999999999999999``).
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from exactsched import Problem, load_instance, parse_instance, solve, validate
from exactsched._time_grid import snap, time_resolution
from heuristics.eft import ScheduleBuilder, list_schedule
from models._ordering_cost import batch_makespans
from models.orderings import best_ordering, ordering_schedule


def _doc(tasks, edges=(), network=None, processors=2, **extra):
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": f"p{k}"} for k in range(processors)]},
        "tasks": [{"id": t, "cost": c} for t, c in tasks],
        "edges": [{"src": a, "dst": b, "data": d} for a, b, d in edges],
    }
    if network:
        doc["platform"]["network"] = network
    doc.update(extra)
    return doc


@pytest.mark.parametrize(
    ("doc", "resolution"),
    [
        (_doc([("a", 1), ("b", 2)], [("a", "b", 3)]), None),  # integers add up exactly
        (_doc([("a", 0.1), ("b", 2.675)], [("a", "b", 0.5)]), 1000.0),
        (_doc([("a", 0.30000000000000004)]), None),  # 17 digits: no grid
        (_doc([("a", 1e-9), ("b", 1)]), 1e9),
        (_doc([("a", 1e-12), ("b", 1)]), 1e12),
        (_doc([("a", 1e-13), ("b", 1)]), None),  # finer than MAX_PLACES
        (_doc([("a", 1e-12), ("b", 100)]), None),  # 1e14 steps: beyond 2**46
        (_doc([("a", 1e15 + 0.5)]), None),  # the grid would not survive a float sum
        # The float unit 0.1 + 0.7 is 0.7999999999999999; its decimal is 0.8.
        (_doc([("a", 1), ("b", 1)], [("a", "b", 0.7)], {"latency": 0.1}), 10.0),
        # 0.3 / 3 is 0.09999999999999999 in floats, exactly 0.1.
        (_doc([("a", 1), ("b", 1)], [("a", "b", 0.3)], {"bandwidth": 3}), 10.0),
        (_doc([("a", 1), ("b", 1)], [("a", "b", 1)], {"bandwidth": 3}), None),  # 1/3
        # One processor: no message travels, so the unit's 9 + 2 places never count.
        (_doc([("a", 0.1), ("b", 0.2)], [("a", "b", 1e-9)], {"bandwidth": 4}, processors=1), 10.0),
        # 1.1 + 8e-17 is the float 1.1, but the exact unit has 17 places (an audit).
        (_doc([("a", 2.2), ("b", 1)], [("a", "b", 1.1)], {"latency": 8e-17}), None),
        (
            _doc(
                [("a", 0.5), ("b", 1)],
                [("a", "b", 1)],
                {"topology": "matrix", "hops": [[0, 0.25], [0.5, 0]]},
            ),
            100.0,
        ),
    ],
)
def test_time_resolution(doc, resolution):
    assert time_resolution(parse_instance(doc)) == resolution


def test_the_grid_under_ports_and_links_counts_the_stage_weights():
    p = Problem.from_lists([[0.1, 0.2], [0.3, 0.1]], [(0, 1, 0.5)])
    assert time_resolution(p) == 10.0
    assert time_resolution(p.with_communication("contention")) == 10.0
    assert time_resolution(p.with_communication("single-port")) == 10.0
    # A fat tree's lowest links weigh 1/2: a stage of 0.1 data lasts 0.05.
    tree = Problem.from_lists(
        [[0.1] * 4, [0.2] * 4], [(0, 1, 0.1)], n_processors=4, network={"topology": "fat-tree"}
    )
    assert time_resolution(tree) == 10.0
    assert time_resolution(tree.with_communication("contention")) == 100.0


@pytest.mark.parametrize("model", ["contention", "single-port"])
@pytest.mark.parametrize("method", ["cpsat", "bruteforce", "heft"])
def test_message_models_write_the_exact_decimal(model, method):
    # An outside audit: under ports and links every method wrote float sums,
    # and cpsat certified 0.30000000000000004 (and 0.6499999999999999 for 0.65).
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": "p0"}, {"id": "p1"}],
            "network": {"communication": model, "latency": 0.3},
        },
        "tasks": [{"id": "a", "cost": [0.1, 0.7]}, {"id": "b", "cost": [0.2, 0.05]},
                  {"id": "c", "cost": [1.1, 0.3]}],
        "edges": [{"src": "a", "dst": "b", "data": 0.25}, {"src": "a", "dst": "c", "data": 0.7},
                  {"src": "b", "dst": "c", "data": 0.3}],
    }  # fmt: skip
    p = load_instance(doc)
    kw = {"time_limit": 10, "workers": 1} if method != "heft" else {}
    result = solve(p, method, **kw)
    assert validate(p, result.schedule) == []
    sched = result.schedule
    times = [t for task in sched for t in (sched[task].start, sched[task].finish)]
    for m in result.schedule.messages:
        times += [m.start, m.finish, *(t for k in m.links for t in (k.start, k.finish))]
    assert all(len(repr(float(t))) <= 6 for t in times), times  # 0.35, never 0.35000000000000003


def test_snap_gives_the_float_of_the_decimal():
    assert snap(0.1 + 0.2, 10.0) == 0.3
    assert snap(np.array([0.7999999999999999, np.inf, -np.inf]), 10.0).tolist() == [
        0.8,
        np.inf,
        -np.inf,
    ]
    assert np.isnan(snap(np.nan, 10.0))
    assert snap(0.1 + 0.2, None) == 0.30000000000000004


def test_a_task_fills_the_slot_it_exactly_fits():
    # c (0.2) then a (0.3) on p0 leave the slot [0.2, 0.3) before b... here built by hand:
    p = Problem.from_lists([[0.2], [0.1], [0.4]], n_processors=1)
    b = ScheduleBuilder(p)
    b.place(0, 0)  # [0, 0.2)
    b.place(2, 0, start=0.3)  # [0.3, 0.7): the idle slot [0.2, 0.3) is left
    est, eft = b.eft(1)
    assert (est[0], eft[0]) == (0.2, 0.3)  # 0.2 + 0.1 is 0.30000000000000004 in floats
    b.place(1, 0)
    assert b.finish.tolist() == [0.2, 0.3, 0.7]


def test_isolation_partners_may_touch_on_decimal_data():
    doc = _doc(
        [("a", 0.3), ("b", 0.1), ("c", 0.2), ("d", 2.675)],
        order=[["a", "d"]],
        isolation=[["b", "d"]],
    )
    p = parse_instance(doc)
    best = best_ordering(p, "makespan")
    assert (best.cost, best.ties) == (2.975, 10)
    s = ordering_schedule(p, ["a", "c", "d", "b"])
    assert s.makespan == 2.975 and validate(p, s) == []
    assert (s["b"].start, s["b"].finish) == (0.2, 0.3)  # next to d, which starts at 0.3


def test_exact_ties_between_processors_go_to_the_lower_index():
    doc = _doc(
        [("t4", [2.675, 0.1, 0.2]), ("t0", [0.1, 2.675, 2.675]), ("t3", [0.7, 0.2, 0.7]),
         ("t2", 1.1), ("t1", 0.3)],
        [("t0", "t3", 0.7), ("t1", "t2", 0.2)],
        {"topology": "fully-connected", "latency": 0.1},
        processors=3,
        order=[["t0", "t1"]],
        isolation=[["t0", "t4"], ["t4", "t2"]],
    )  # fmt: skip
    p = parse_instance(doc)
    s = ordering_schedule(p, ["t0", "t4", "t1", "t3", "t2"])
    # t3 finishes at 1.1 on p0 (0.4 + 0.7) and on p1 (0.9 + 0.2): the tie goes to p0.
    assert s["t3"].processor == "p0" and s.makespan == 1.8
    assert validate(p, s) == []


def _exact_times(problem: Problem, schedule) -> bool:
    """Every finish is the exact decimal sum of its start and cost (read as decimals)."""
    for k, task in enumerate(problem.task_ids):
        place = schedule[task]
        cost = problem.cost[k, problem.proc_index[place.processor]]
        exact = Fraction(repr(float(place.start))) + Fraction(repr(float(cost)))
        if Fraction(repr(float(place.finish))) != exact:
            return False
    return True


@pytest.mark.parametrize("seed", range(6))
def test_heuristics_write_decimal_times_on_decimal_data(seed):
    from exactsched.generators import random_instance

    p = random_instance(30, 4, topology="mesh", integral=False, seed=seed)
    assert time_resolution(p) is not None
    for method in ("heft", "cpop", "peft", "min-min", "sufferage", "heft-lookahead", "bl-est"):
        s = solve(p, method).schedule
        assert validate(p, s) == [], method
        assert _exact_times(p, s), method
        text = json.dumps(s.to_json())
        assert "99999999" not in text and "00000000" not in text, method


@pytest.mark.parametrize("seed", range(4))
def test_batch_schedules_equal_the_builder_on_decimal_data(seed):
    rng = np.random.default_rng(seed)
    values = np.array([0.1, 0.2, 0.3, 0.7, 1.1, 2.675])
    n, procs = 6, 3
    cost = rng.choice(values, size=(n, procs))
    edges = [(i, j, float(rng.choice(values))) for i, j in itertools.combinations(range(n), 2)
             if rng.random() < 0.3]  # fmt: skip
    p = Problem.from_lists(cost.tolist(), edges, network={"latency": 0.1})
    orders = np.array(list(itertools.permutations(range(n)))[::37])
    orders = orders[[all(o.tolist().index(i) < o.tolist().index(j) for i, j, _ in edges)
                     for o in orders]]  # fmt: skip
    if not len(orders):
        pytest.skip("no sampled order is legal")
    got = batch_makespans(p, orders)
    for row, order in zip(got.tolist(), orders, strict=True):
        priority = np.empty(n)
        priority[order] = np.arange(n, 0, -1)
        assert row == list_schedule(p, priority).makespan


def test_schedules_from_float_sums_are_put_on_the_grid():
    # minimal-serial adds its starts up in floats: 0.1 + 0.7 is 0.7999999999999999, one
    # ulp before t1's finish 0.8 (an audit); bruteforce and milp time their schedules
    # in floats too. Schedule.from_arrays rounds starts and finishes to the grid.
    p = Problem.from_lists([[0.1, 5], [0.7, 5], [0.5, 5]], [(0, 1, 0), (1, 2, 0)])
    for method in ("minimal-serial", "bruteforce", "milp", "cpsat"):
        s = solve(p, method, time_limit=10, workers=1).schedule
        assert validate(p, s) == [] and _exact_times(p, s), method
        assert (s["t2"].start, s.makespan) == (0.8, 1.3), method


def test_lookahead_ties_on_its_own_finish_go_to_the_lower_index():
    # Both processors give t1 the lookahead value 1.3 and the own finish 0.3 (0.2 + 0.1
    # on p0 in floats is 0.30000000000000004): the tie goes to p0 (an audit).
    p = Problem.from_lists([[0.2, 100], [0.1, 0.3], [1, 1]], [(1, 2, 0)])
    s = solve(p, "heft-lookahead").schedule
    assert s["t1"].processor == "p0" and validate(p, s) == []


# ---- audit R --------------------------------------------------------------------------


def test_no_grid_near_the_float_limit():
    # 1e9 grid units per time unit and times near 1.1e6: about 2**50 steps, where an ulp
    # is a quarter step and HEFT rounded b's arrival down a step (an audit).
    doc = _doc(
        [("a", 16495.495227001), ("b", 1)],
        [("a", "b", 18448.220268469)],
        {"latency": 0.654303270, "bandwidth": 0.017},
    )
    doc["tasks"][0]["processors"], doc["tasks"][1]["processors"] = ["p0"], ["p1"]
    p = parse_instance(doc)
    assert time_resolution(p) is None
    for method in ("heft", "etf", "cpsat"):
        assert validate(p, solve(p, method, time_limit=5, workers=1).schedule) == [], method


def test_etf_earliest_finish_ties_go_to_the_lower_index():
    p = Problem.from_lists([[0.2, 10], [0.1, 0.3]])  # t1 ends at 0.3 on both processors
    for method in ("etf", "bl-est"):
        s = solve(p, method, processor_choice="earliest-finish").schedule
        assert s["t1"].processor == "p0" and validate(p, s) == [], method


def test_sufferage_ties_stay_ties():
    from heuristics.sufferage import sufferage_values

    eft = np.array([[0.3, 0.1], [0.4, 0.2]])  # both suffer 0.2 if denied p1
    assert sufferage_values(eft, eft.min(axis=1)).tolist() == [0.19999999999999998, 0.2]
    assert sufferage_values(eft, eft.min(axis=1), 10.0).tolist() == [0.2, 0.2]
