"""The referee: every kind of violation is caught, valid schedules pass.

Hand-made schedules on tiny problems, one violation each, with the message
pinned; communication on every topology (multi-hop distances, latency and
bandwidth) checked at the exact boundary; touching intervals and zero-length
tasks; the documented tolerance on non-integer data.
"""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactsched import Placement, Problem, Schedule, ScheduleError, assert_valid, validate
from exactsched.generators import TOPOLOGIES, random_instance


def sched(**placements: tuple[str, float, float]) -> Schedule:
    return Schedule({t: Placement(*pl) for t, pl in placements.items()})


def problem_of(tasks, processors, network=None, **extra) -> Problem:
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": processors},
        "tasks": tasks,
    }
    if network is not None:
        doc["platform"]["network"] = network
    doc.update(extra)
    return Problem.from_json(doc)


def procs(*ids: str, types: tuple[str, ...] = ()) -> list[dict]:
    return [{"id": p, "type": t} for p, t in zip(ids, types or ("cpu",) * len(ids), strict=True)]


# A chain a -> b (data 4) plus c, on two processors.
CHAIN = problem_of(
    [{"id": "a", "cost": 2}, {"id": "b", "cost": 3}, {"id": "c", "cost": [1, 5]}],
    procs("p", "q"),
    edges=[{"src": "a", "dst": "b", "data": 4}],
)


def one(violations: list[str], pattern: str) -> None:
    assert len(violations) == 1, violations
    assert re.fullmatch(pattern, violations[0]), violations[0]


# ---- valid schedules ---------------------------------------------------------------


def test_valid_schedules():
    # Same processor: no communication; touching intervals are fine.
    assert validate(CHAIN, sched(a=("p", 0, 2), b=("p", 2, 5), c=("p", 5, 6))) == []
    # Other processor: data arrive at 2 + 4.
    assert validate(CHAIN, sched(a=("p", 0, 2), b=("q", 6, 9), c=("p", 2, 3))) == []
    assert validate(CHAIN, sched(a=("p", 0, 2), b=("q", 7.5, 10.5), c=("q", 0, 5))) == []
    assert_valid(CHAIN, sched(a=("p", 0, 2), b=("p", 2, 5), c=("q", 0, 5)))


def test_zero_length_tasks_never_overlap():
    problem = problem_of(
        [{"id": "long", "cost": 10}, {"id": "z", "cost": 0}, {"id": "z2", "cost": 0}],
        procs("p", "q"),
        isolation=[["long", "z"], ["z", "z2"]],
    )
    # Zero-length inside a busy interval of its processor and of its isolation partner.
    ok = sched(long=("p", 0, 10), z=("p", 5, 5), z2=("p", 5, 5))
    assert validate(problem, ok) == []
    assert validate(problem, sched(long=("p", 0, 10), z=("q", 3, 3), z2=("q", 3, 3))) == []
    assert validate(problem, sched(long=("p", 0, 10), z=("p", 0, 0), z2=("p", 10, 10))) == []


def test_touching_isolation_and_order():
    problem = problem_of(
        [{"id": "a", "cost": 2}, {"id": "b", "cost": 2}, {"id": "c", "cost": 1}],
        procs("p", "q"),
        order=[["a", "c"]],
        isolation=[["a", "b"]],
    )
    assert validate(problem, sched(a=("p", 0, 2), b=("q", 2, 4), c=("q", 4, 5))) == []
    assert validate(problem, sched(a=("p", 2, 4), b=("q", 0, 2), c=("q", 4, 5))) == []


# ---- one violation of each kind ------------------------------------------------------


def test_overlap_on_a_processor():
    one(
        validate(CHAIN, sched(a=("p", 0, 2), b=("p", 2, 5), c=("p", 4, 5))),
        r"processor p: b \[2, 5\) overlaps c \[4, 5\)",
    )
    # Same start.
    one(
        validate(CHAIN, sched(a=("p", 0, 2), b=("q", 6, 9), c=("q", 6, 11))),
        r"processor q: .* overlaps .*",
    )


def test_overlap_hidden_behind_a_long_task():
    problem = problem_of([{"id": x, "cost": c} for x, c in [("l", 10), ("s", 1), ("t", 2)]],
                         procs("p"))  # fmt: skip
    # t overlaps l although s lies between them in start order.
    violations = validate(problem, sched(l=("p", 0, 10), s=("p", 1, 2), t=("p", 3, 5)))
    assert len(violations) == 2
    assert all(v.startswith("processor p: l [0, 10) overlaps") for v in violations)


def test_edge_communication_too_early():
    one(
        validate(CHAIN, sched(a=("p", 0, 2), b=("q", 5, 8), c=("p", 2, 3))),
        r"edge a -> b: b starts at 5 on q but the data arrive at 6 "
        r"\(a finishes at 2 on p, communication 4\)",
    )


def test_edge_before_predecessor_on_the_same_processor():
    one(
        validate(CHAIN, sched(a=("p", 3, 5), b=("p", 0, 3), c=("q", 0, 5))),
        r"edge a -> b: b starts at 0 on p but the data arrive at 5 .*communication 0\)",
    )


def test_order_pair():
    problem = problem_of(
        [{"id": "a", "cost": 2}, {"id": "b", "cost": 2}], procs("p", "q"), order=[["a", "b"]]
    )
    assert validate(problem, sched(a=("p", 0, 2), b=("q", 2, 4))) == []
    one(
        validate(problem, sched(a=("p", 0, 2), b=("q", 1, 3))),
        r"order a -> b: b starts at 1 before a finishes at 2",
    )


def test_order_pair_repeating_an_edge_is_checked_once_as_an_edge():
    problem = problem_of(
        [{"id": "a", "cost": 2}, {"id": "b", "cost": 2}],
        procs("p", "q"),
        edges=[{"src": "a", "dst": "b", "data": 3}],
        order=[["a", "b"]],
    )
    violations = validate(problem, sched(a=("p", 0, 2), b=("q", 4, 6)))
    assert violations and violations[0].startswith("edge a -> b")


def test_isolation_overlap_across_processors():
    problem = problem_of(
        [{"id": "a", "cost": 2}, {"id": "b", "cost": 2}], procs("p", "q"), isolation=[["b", "a"]]
    )
    one(
        validate(problem, sched(a=("p", 0, 2), b=("q", 1, 3))),
        r"isolation b / a: \[1, 3\) and \[0, 2\) overlap in time",
    )


def test_negative_start():
    one(
        validate(CHAIN, sched(a=("p", -1, 1), b=("p", 1, 4), c=("q", 0, 5))),
        r"task a: starts at -1 < 0",
    )


def test_wrong_finish():
    one(
        validate(CHAIN, sched(a=("p", 0, 3), b=("p", 3, 6), c=("q", 0, 5))),
        r"task a: finish 3 is not start 0 \+ cost 2 on p",
    )


def test_affinity():
    problem = problem_of(
        [{"id": "a", "cost": 2, "processors": ["q"]}], procs("p", "q"),
    )  # fmt: skip
    one(
        validate(problem, sched(a=("p", 0, 2))),
        r"task a: may not run on processor p \(affinity\)",
    )
    assert validate(problem, sched(a=("q", 0, 2))) == []


def test_unknown_processor_missing_and_unknown_task():
    one(
        validate(CHAIN, sched(a=("p", 0, 2), b=("p", 2, 5), c=("r", 0, 1))),
        r"task c: unknown processor r",
    )
    one(validate(CHAIN, sched(a=("p", 0, 2), b=("p", 2, 5))), r"task c: not scheduled")
    one(
        validate(CHAIN, sched(a=("p", 0, 2), b=("p", 2, 5), c=("q", 0, 5), z=("p", 9, 9))),
        r"task z: not in the instance",
    )
    assert validate(CHAIN, Schedule({})) == [
        "task a: not scheduled",
        "task b: not scheduled",
        "task c: not scheduled",
    ]


def test_every_violation_is_reported():
    bad = sched(a=("p", -1, 2), b=("p", 0, 3), c=("x", 0, 1), d=("p", 0, 0))
    violations = validate(CHAIN, bad)
    assert len(violations) == 6, violations  # a breaks two rules
    with pytest.raises(ScheduleError, match=r"^invalid schedule: task d: not in the instance; "):
        assert_valid(CHAIN, bad)


# ---- communication on every topology -------------------------------------------------


def _pair(network, n_procs, types=None, data=6, latency=None, bandwidth=None):
    network = dict(network)
    if latency is not None:
        network["latency"] = latency
    if bandwidth is not None:
        network["bandwidth"] = bandwidth
    return problem_of(
        [{"id": "a", "cost": 1}, {"id": "b", "cost": 1}],
        procs(*[f"p{k}" for k in range(n_procs)], types=types or ("cpu",) * n_procs),
        network=network,
        edges=[{"src": "a", "dst": "b", "data": data}],
    )


@pytest.mark.parametrize(
    "network, n_procs, types, src, dst, hops",
    [
        ({"topology": "fully-connected"}, 3, None, 0, 2, 1),
        ({"topology": "mesh", "dims": [3, 3]}, 9, None, 0, 8, 4),  # corner to corner
        ({"topology": "mesh", "dims": [3, 3]}, 9, None, 4, 5, 1),
        ({"topology": "mesh", "dims": [2, 2, 2]}, 8, None, 0, 7, 3),
        ({"topology": "torus", "dims": [5]}, 5, None, 0, 4, 1),  # wrap-around
        ({"topology": "torus", "dims": [3, 4]}, 12, None, 0, 6, 3),
        ({"topology": "hypercube"}, 8, None, 1, 6, 3),
        ({"topology": "fat-tree"}, 8, None, 0, 5, 4),
        ({"topology": "fat-tree"}, 8, None, 2, 3, 1),
        ({"topology": "fat-tree", "arity": 4}, 16, None, 0, 15, 2),
        ({"topology": "accelerated-node"}, 3, ("cpu", "cpu", "gpu"), 0, 1, 0),
        ({"topology": "accelerated-node"}, 3, ("cpu", "cpu", "gpu"), 0, 2, 1),
        ({"topology": "matrix", "hops": [[0, 2.5], [0.5, 0]]}, 2, None, 0, 1, 2.5),
        ({"topology": "matrix", "hops": [[0, 2.5], [0.5, 0]]}, 2, None, 1, 0, 0.5),
    ],
)
@pytest.mark.parametrize("latency, bandwidth", [(None, None), (1, 4), (0.5, 0.5)])
def test_communication_on_every_topology(
    network, n_procs, types, src, dst, hops, latency, bandwidth
):
    problem = _pair(network, n_procs, types, latency=latency, bandwidth=bandwidth)
    delay = hops * ((latency or 0) + 6 / (bandwidth or 1))
    assert problem.comm(0, src, dst) == pytest.approx(delay)
    arrive = 1 + delay
    exact = sched(a=(f"p{src}", 0, 1), b=(f"p{dst}", arrive, arrive + 1))
    assert validate(problem, exact) == []
    if delay > 0:
        early = arrive - min(0.25, delay / 2)
        late = sched(a=(f"p{src}", 0, 1), b=(f"p{dst}", early, early + 1))
        one(
            validate(problem, late),
            rf"edge a -> b: b starts at {early:g} on p{dst} but the data arrive at "
            rf"{arrive:g} \(a finishes at 1 on p{src}, communication {delay:g}\)",
        )


# ---- tolerance ---------------------------------------------------------------------


def test_float_artefacts_get_the_float_noise_as_slack():
    # 0.1 + 0.2 != 0.3 in floating point: times with 17 digits get the noise slack.
    problem_cost = problem_of(
        [{"id": "a", "cost": 0.1}, {"id": "b", "cost": 0.2}], procs("p"),
        edges=[{"src": "a", "dst": "b"}],
    )  # fmt: skip
    assert validate(problem_cost, sched(a=("p", 0, 0.1), b=("p", 0.1, 0.30000000000000004))) == []
    assert (
        validate(problem_cost, sched(a=("p", 0.2, 0.30000000000000004), b=("p", 0.3, 0.5))) == []
    )
    # Starts with 16-17 digits just below the arrival 0.3: a few units in the last place
    # early is float noise (8 ulps), 1e-12 early is not.
    a = ("p", 0.2, 0.30000000000000004)
    inside = 0.30000000000000004
    for _ in range(4):
        inside = math.nextafter(inside, 0.0)
    outside = 0.2999999999990001
    assert validate(problem_cost, sched(a=a, b=("p", inside, inside + 0.2))) == []
    violations = validate(problem_cost, sched(a=a, b=("p", outside, outside + 0.2)))
    assert any(v.startswith("edge a -> b") for v in violations)


SLACK = Path(__file__).parent / "data" / "validator-slack"


@pytest.mark.parametrize(
    ("instance", "schedule", "message"),
    [
        ("inst_big", "s_overlap999", r"processor p0: a \[0, 1e\+12\) overlaps b"),
        ("inst_big", "s_lateMsg", r"edge a -> c: c starts at 1000000004000.0001"),
        ("inst_1p", "s_1p_below_opt", r"processor p0: a \[0, 1e\+15\) overlaps b"),
        ("inst_neartie", "s_neartie_late", r"edge a -> b: b starts at 1999999999000.0039"),
        ("inst_neartie", "s_wrong_duration", r"task a: finish 999999999001.00012 is not start"),
    ],
)
def test_a_sixteen_digit_time_does_not_buy_a_relative_slack(instance, schedule, message):
    """An outside audit's schedules: one time with 16-17 digits switched exactness off,
    and the old 1e-9 relative slack hid 1000 units at 1e12 (a one-processor schedule
    below the optimum was valid). The slack is now the float noise only."""
    violations = validate(str(SLACK / f"{instance}.json"), str(SLACK / f"{schedule}.json"))
    one(violations, message + ".*")


def test_exact_decimals_are_compared_exactly():
    problem = _pair({"topology": "fully-connected"}, 2, data=0.2, latency=0.1)
    # Data arrive at 1 + 0.1 + 0.2 = 1.3 exactly (in decimals).
    assert validate(problem, sched(a=("p0", 0, 1), b=("p1", 1.3, 2.3))) == []
    # 2e-9 early is a violation: no slack for exact decimals, however small the gap.
    one(
        validate(problem, sched(a=("p0", 0, 1), b=("p1", 1.3 - 2e-9, 2.3 - 2e-9))),
        r"edge a -> b: b starts at 1.299999998 on p1 but the data arrive at 1.3 .*",
    )
    one(
        validate(problem, sched(a=("p0", 0, 1), b=("p1", 1.3, 2.3 + 1e-12))),
        r"task b: finish 2.300000000001 is not start 1.3 \+ cost 1 on p1",
    )


def test_slack_is_the_noise_of_the_quantities_compared():
    problem = problem_of(
        [{"id": "a", "cost": 1e6 / 3}, {"id": "b", "cost": 1}, {"id": "c", "cost": 1}],
        procs("p", "q"),
        order=[["a", "b"]],
    )  # fmt: skip
    finish = 1e6 / 3  # 333333.3333333333: not an exact decimal
    assert (
        validate(problem, sched(a=("p", 0, finish), b=("p", finish, finish + 1), c=("q", 0, 1)))
        == []
    )
    # Two units in the last place early on times near 3.3e5: inside the float noise of
    # the pair (8 ulp(3.3e5), about 5e-10), wherever the other tasks are; 1e-6
    # early: outside it, even with a task at 1e9 (whose noise would be about 1e-6).
    close = math.nextafter(math.nextafter(finish, 0.0), 0.0)
    inside = sched(a=("p", 0, finish), b=("q", close, close + 1), c=("q", 0, 1))
    assert validate(problem, inside) == []
    late_c = ("p", 1e9, 1e9 + 1)
    early = sched(a=("p", 0, finish), b=("q", finish - 1e-6, finish - 1e-6 + 1), c=late_c)
    violations = validate(problem, early)
    assert any(v.startswith("order a -> b") for v in violations), violations
    # An explicit absolute tolerance replaces exact and relative comparisons.
    assert validate(problem, early, tol=1e-2) == []


def test_integer_data_are_exact():
    problem = _pair({"topology": "mesh", "dims": [1, 2]}, 2, data=7, latency=2)
    assert validate(problem, sched(a=("p0", 0, 1), b=("p1", 10, 11))) == []
    assert validate(problem, sched(a=("p0", 0, 1), b=("p1", 9.999999, 10.999999))) != []


def test_heft_example_is_valid():
    from exactsched import load_instance, solve

    problem = load_instance(Path(__file__).parent.parent / "examples" / "topcuoglu2002.json")
    result = solve(problem, "heft")
    assert validate(problem, result.schedule) == []
    assert Schedule.from_json(result.schedule.to_json()) == result.schedule


def test_times_that_are_not_finite_numbers():
    import numpy as np

    # An unplaced task of a list scheduler has a NaN start: NaN fails every
    # comparison, so the referee must refuse it explicitly.
    nan_start = Schedule.from_arrays(CHAIN, np.array([0, 0, 1]), np.array([0, np.nan, 0]))
    assert validate(CHAIN, nan_start) == [
        "task b: start nan is not a finite number",
        "task b: finish nan is not a finite number",
    ]
    odd = sched(a=("p", 0, float("inf")), b=("p", None, 5), c=("q", True, 5))
    assert validate(CHAIN, odd) == [
        "task a: finish inf is not a finite number",
        "task b: start None is not a finite number",
        "task c: start True is not a finite number",
    ]
    numpy_times = sched(a=("p", np.int64(0), np.float32(2)), b=("p", 2, 5), c=("q", 0, 5))
    assert validate(CHAIN, numpy_times) == []


# ---- agreement with a naive referee --------------------------------------------------


def naive_kinds(problem: Problem, schedule: Schedule) -> set[str]:
    """The kinds of violation, found by checking every pair of tasks (O(n^2))."""
    kinds = set()
    ids = problem.task_ids
    rows = {}
    for i, task in enumerate(ids):
        pl = schedule[task]
        p = problem.proc_ids.index(pl.processor)
        if not problem.allowed[i, p]:
            kinds.add("affinity")
            continue
        if pl.start < 0:
            kinds.add("start")
        if pl.finish != pl.start + problem.cost[i, p]:
            kinds.add("finish")
        rows[i] = (p, pl.start, pl.start + problem.cost[i, p])

    def overlap(a, b):
        (_, sa, fa), (_, sb, fb) = rows[a], rows[b]
        return sa < fa and sb < fb and max(sa, sb) < min(fa, fb)

    for a, b in itertools.combinations(rows, 2):
        if rows[a][0] == rows[b][0] and overlap(a, b):
            kinds.add("processor")
    for e in range(len(problem.edge_src)):
        a, b = int(problem.edge_src[e]), int(problem.edge_dst[e])
        if a in rows and b in rows:
            pa, pb = rows[a][0], rows[b][0]
            delay = (
                0
                if pa == pb
                else problem.hops[pa, pb]
                * (problem.latency + problem.edge_data[e] / problem.bandwidth)
            )
            if rows[b][1] < rows[a][2] + delay:
                kinds.add("edge")
    for a, b in zip(problem.order_src.tolist(), problem.order_dst.tolist(), strict=True):
        if a in rows and b in rows and rows[b][1] < rows[a][2]:
            kinds.add("order")
    for a, b in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True):
        if a in rows and b in rows and overlap(a, b):
            kinds.add("isolation")
    return kinds


def kinds_of(violations: list[str]) -> set[str]:
    kinds = set()
    for v in violations:
        head = v.split(" ")[0]
        if head == "task":
            kinds.add("affinity" if "(affinity)" in v else "start" if "< 0" in v else "finish")
        else:
            kinds.add(head)
    return kinds


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.data())
def test_agrees_with_a_naive_referee(data):
    """Random integral instances and random, mostly nearly valid schedules."""
    topology = data.draw(st.sampled_from(TOPOLOGIES))
    problem = random_instance(
        data.draw(st.integers(2, 9)),
        4,
        topology=topology,
        n_order=data.draw(st.integers(0, 2)),
        n_isolation=data.draw(st.integers(0, 3)),
        affinity=data.draw(st.sampled_from([0.0, 0.5])),
        latency=data.draw(st.integers(0, 2)),
        seed=data.draw(st.integers(0, 10**6)),
    )
    # Start from a valid schedule: tasks in topological order, one after another.
    proc = [int(problem.allowed_processors(i)[0]) for i in range(problem.n_tasks)]
    start = [0.0] * problem.n_tasks
    clock = 0.0
    for i in problem.topological_order.tolist():
        start[i] = clock
        clock += float(problem.cost[i, proc[i]])
    for _ in range(data.draw(st.integers(0, 3))):  # then break a few things
        i = data.draw(st.integers(0, problem.n_tasks - 1))
        proc[i] = data.draw(st.integers(0, problem.n_processors - 1))
        start[i] = float(data.draw(st.integers(-2, int(clock) + 2)))
    finish = [
        s + (problem.cost[i, p] if problem.allowed[i, p] else 1) for i, (p, s) in
        enumerate(zip(proc, start, strict=True))
    ]  # fmt: skip
    if data.draw(st.booleans()):
        k = data.draw(st.integers(0, problem.n_tasks - 1))
        finish[k] += data.draw(st.sampled_from([0, 1, -1]))
    schedule = Schedule(
        {
            t: Placement(problem.proc_ids[p], s, float(f))
            for t, p, s, f in zip(problem.task_ids, proc, start, finish, strict=True)
        }
    )
    assert kinds_of(validate(problem, schedule)) == naive_kinds(problem, schedule)


# ---- exactness (issue 8) -------------------------------------------------------------

ISSUE_8 = {
    "format": "exactsched/instance@1",
    "platform": {
        "processors": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
        "network": {"topology": "mesh", "dims": [1, 3], "latency": 1, "bandwidth": 2},
    },
    "tasks": [
        {"id": "x", "cost": 2},
        {"id": "y", "cost": 2},
        {"id": "z", "cost": 3},
        {"id": "w", "cost": 1, "processors": ["a", "b"]},
        {"id": "v", "cost": 1},
    ],
    "edges": [{"src": "x", "dst": "y", "data": 4}],
    "order": [["z", "v"]],
    "isolation": [["x", "z"]],
}


def test_a_far_task_does_not_hide_a_violation():
    # Issue 8: y starts 5.5 units before its data arrive (2 hops x (1 + 4 / 2) after 2);
    # with a slack of 1e-9 x the largest time (1e12) the old referee called it valid.
    problem = Problem.from_json(ISSUE_8)
    far = 1e12
    bad = sched(
        x=("a", 0, 2), y=("c", 2.5, 4.5), z=("b", 2, 5), w=("a", 2, 3), v=("b", far, far + 1)
    )
    one(
        validate(problem, bad),
        r"edge x -> y: y starts at 2.5 on c but the data arrive at 8 "
        r"\(x finishes at 2 on a, communication 6\)",
    )
    good = sched(
        x=("a", 0, 2), y=("c", 8, 10), z=("b", 2, 5), w=("a", 2, 3), v=("b", far, far + 1)
    )
    assert validate(problem, good) == []
    # The same through a schedule document and through files.
    assert validate(ISSUE_8, bad.to_json()) == validate(problem, bad)


def test_documents_and_paths(tmp_path):
    import json

    problem = Problem.from_json(ISSUE_8)
    good = sched(x=("a", 0, 2), y=("c", 8, 10), z=("b", 2, 5), w=("a", 2, 3), v=("b", 5, 6))
    (tmp_path / "i.json").write_text(json.dumps(ISSUE_8))
    (tmp_path / "s.json").write_text(json.dumps(good.to_json()))
    assert validate(str(tmp_path / "i.json"), tmp_path / "s.json") == []
    with pytest.raises(ScheduleError, match="^schedule: expected a Schedule"):
        validate(problem, 42)
    with pytest.raises(ScheduleError, match="^format: missing"):
        validate(problem, {"tasks": []})


def test_exact_on_huge_integers_and_tiny_decimals():
    # Integer data at 1e15 (sums exact in floats up to 2**53) and decimals at 1e-7.
    big = _pair({"topology": "fully-connected"}, 2, data=3)
    base = 1e15
    assert validate(big, sched(a=("p0", base, base + 1), b=("p1", base + 4, base + 5))) == []
    assert validate(big, sched(a=("p0", base, base + 1), b=("p1", base + 3, base + 4))) != []
    tiny = problem_of(
        [{"id": "a", "cost": 1e-7}, {"id": "b", "cost": 3e-7}], procs("p", "q"),
        edges=[{"src": "a", "dst": "b", "data": 2e-7}],
    )  # fmt: skip
    assert validate(tiny, sched(a=("p", 0, 1e-7), b=("q", 3e-7, 6e-7))) == []
    one(
        validate(tiny, sched(a=("p", 0, 1e-7), b=("q", 2.99e-7, 5.99e-7))),
        r"edge a -> b: b starts at 2.99e-07 on q but the data arrive at 3e-07 .*",
    )


def _integral_case(data):
    """A random integral instance and a random, often invalid, schedule of it."""
    problem = random_instance(
        data.draw(st.integers(2, 7)),
        4,
        topology=data.draw(st.sampled_from(TOPOLOGIES)),
        n_order=data.draw(st.integers(0, 2)),
        n_isolation=data.draw(st.integers(0, 2)),
        latency=data.draw(st.integers(0, 2)),
        seed=data.draw(st.integers(0, 10**6)),
    )
    rows = {}
    for i, task in enumerate(problem.task_ids):
        p = int(
            problem.allowed_processors(i)[data.draw(st.integers(0, 10)) % problem.allowed[i].sum()]
        )
        s = data.draw(st.integers(0, 40))
        rows[task] = (problem.proc_ids[p], s, s + int(problem.cost[i, p]))
    return problem, rows


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.data())
def test_verdict_invariant_to_shifting_times(data):
    """Shifting every time by the same amount (any size) never changes the violations' kinds."""
    problem, rows = _integral_case(data)
    shift = data.draw(st.sampled_from([1, 7, 10**6, 10**12, 2**40]))
    before = validate(problem, sched(**rows))
    shifted = {t: (p, s + shift, f + shift) for t, (p, s, f) in rows.items()}
    after = validate(problem, sched(**shifted))
    assert kinds_of(after) == kinds_of(before)
    assert len(after) == len(before)


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.data())
def test_verdict_invariant_to_scaling(data):
    """Scaling every number of instance and schedule by a power of ten keeps the verdict."""
    problem, rows = _integral_case(data)
    k = data.draw(st.sampled_from([-7, -3, -1, 1, 3]))
    factor = 10.0**k

    def scale(x):
        return float(f"{x}e{k}")  # the decimal x * 10**k, as typed

    doc = problem.to_json()
    for task in doc["tasks"]:
        c = task["cost"]
        task["cost"] = [scale(v) for v in c] if isinstance(c, list) else (
            {t: scale(v) for t, v in c.items()} if isinstance(c, dict) else scale(c)
        )  # fmt: skip
    for edge in doc.get("edges", []):
        edge["data"] = scale(edge.get("data", 0))
    net = doc["platform"].setdefault("network", {})
    net["latency"] = scale(net.get("latency", 0))  # bandwidth unchanged: delays scale too
    scaled = Problem.from_json(doc)
    assert factor > 0
    before = validate(problem, sched(**rows))
    after = validate(
        scaled, sched(**{t: (p, scale(s), scale(f)) for t, (p, s, f) in rows.items()})
    )
    assert kinds_of(after) == kinds_of(before)
    assert len(after) == len(before)


def test_exact_sums_that_no_float_can_hold_are_judged_on_the_floats() -> None:
    # 2e6 + 1e-10 is no float: the nearest one, 2e6, is the only finish a schedule can
    # write, and a successor may start there; a real gap of 0.01 is still caught.
    p = Problem.from_lists([[2e6, 2e6], [1e-10, 1e-10], [1, 1]], [(0, 1, 0.5), (1, 2, 0.25)],
                           n_processors=2)  # fmt: skip
    ok = Schedule({"t0": Placement("p0", 0, 2e6), "t1": Placement("p0", 2e6, 2e6),
                   "t2": Placement("p1", 2e6 + 0.25, 2e6 + 1.25)})  # fmt: skip
    assert validate(p, ok) == []
    late = Schedule({"t0": Placement("p0", 0, 2e6), "t1": Placement("p0", 2e6, 2e6),
                     "t2": Placement("p1", 2e6 + 0.24, 2e6 + 1.24)})  # fmt: skip
    assert validate(p, late) == [
        "edge t1 -> t2: t2 starts at 2000000.24 on p1 but the data arrive at 2000000.25 "
        "(t1 finishes at 2000000 on p0, communication 0.25)"
    ]


# ---- what the schedule builder writes (issue 15, item 6) --------------------------------

MAGNITUDE = Path(__file__).parent / "data" / "magnitude"


def test_the_float_sum_written_by_the_builder_is_a_correct_finish() -> None:
    # 85.1156893939394 + 4.90247619047619 is 90.01816558441559 in decimals, which rounds to
    # the float 90.01816558441558; the float sum of the two floats is 90.0181655844156.
    # Both are correct finishes; one digit more in the 15th place is not.
    problem = MAGNITUDE / "float-sum-instance.json"
    assert validate(problem, MAGNITUDE / "float-sum-schedule.json") == []
    t0 = ("p0", 0, 85.1156893939394)
    for finish in (90.0181655844156, 90.01816558441558, 90.01816558441559):
        assert validate(problem, sched(t0=t0, t1=("p0", 85.1156893939394, finish))) == []
    one(
        validate(problem, sched(t0=t0, t1=("p0", 85.1156893939394, 90.0181655844157))),
        r"task t1: finish 90.0181655844157 is not start 85.1156893939394 "
        r"\+ cost 4.90247619047619 on p0",
    )


def test_float_sums_of_arrivals_and_ends_are_correct_starts() -> None:
    # Each comparison holds either exactly on the decimals or on the IEEE evaluation of
    # the same expression (end = start + cost, arrival = end + hops * (lat + data / bw)).
    # Here the float sum is below the exact decimal sum and below its nearest float:
    # a start at the float end is early by both other readings.
    a, c = 94.132717702651, 4.51430696025031
    end = a + c
    assert repr(end) == "98.6470246629013"  # exactly 98.64702466290131 in decimals
    assert float(Fraction(repr(a)) + Fraction(repr(c))) > end
    p = problem_of(
        [{"id": t, "cost": cost} for t, cost in [("x", a), ("y", c), ("z", 1), ("w", 1),
                                                 ("v", 1), ("u", 1)]],
        procs("p", "q", "r", "s"),
        network={"topology": "fully-connected", "latency": 0.5},
        edges=[{"src": "y", "dst": "z", "data": 0.25}],
        order=[["y", "v"]],
        isolation=[["y", "w"]],
    )  # fmt: skip
    arrival = end + (0.5 + 0.25 / 1)
    assert repr(arrival) == "99.3970246629013"

    def at(t_end: float, t_arrival: float) -> Schedule:
        # z waits for the data, w (isolation) and v (order) for y's end on other
        # processors, u for y's end on y's processor.
        return sched(x=("p", 0, a), y=("p", a, end), z=("q", t_arrival, t_arrival + 1),
                     w=("r", t_end, t_end + 1), v=("s", t_end, t_end + 1),
                     u=("p", t_end, t_end + 1))  # fmt: skip

    assert validate(p, at(end, arrival)) == []
    # One unit in the 15th digit early is still early, under every rule.
    kinds = {v.split(" ")[0] for v in validate(p, at(98.6470246629012, 99.3970246629012))}
    assert kinds == {"processor", "edge", "order", "isolation"}


def test_a_cost_below_half_an_ulp_of_its_start_still_occupies_the_processor() -> None:
    # 5e8 + 1e-8 == 5e8 in floating point, but the task is not zero-length: starting
    # strictly inside another task is an overlap (moving it out takes 5e8, not an ulp),
    # on its processor and with an isolation partner; touching is fine. This is the
    # reading of bruteforce, cpsat and milp (a positive cost occupies the processor).
    p = problem_of(
        [{"id": "a", "cost": 1e9}, {"id": "b", "cost": 1e-8}, {"id": "c", "cost": 1e-8}],
        procs("p", "q"),
        isolation=[["a", "c"]],
    )  # fmt: skip
    assert 5e8 + 1e-8 == 5e8
    assert validate(p, sched(a=("p", 0, 1e9), b=("p", 1e9, 1e9), c=("q", 1e9, 1e9))) == []
    assert validate(p, sched(a=("p", 5e8, 1.5e9), b=("p", 5e8, 5e8), c=("q", 1.5e9, 1.5e9))) == []
    inside = validate(p, sched(a=("p", 0, 1e9), b=("p", 5e8, 5e8), c=("q", 5e8, 5e8)))
    assert inside == [
        "processor p: a [0, 1000000000) overlaps b [500000000, 500000000)",
        "isolation a / c: [0, 1000000000) and [500000000, 500000000) overlap in time",
    ]


# ---- the floating-point screen (issue 18, item 6) ---------------------------------------


class _Unscreened:
    """What ``validate`` did before the screen: every comparison read exactly."""

    def __init__(self, *args):
        self.exact = _validate_module()._Numbers(*args)

    def finish_violations(self):
        return self.exact.finish_violations()

    def lanes_to_check(self, by_lane, rank):
        return np.ones(len(by_lane), dtype=bool)

    def edge_violations(self, src, dst, both):
        return self.exact.edge_violations(src, dst, both)

    def __getattr__(self, name):
        return getattr(self.exact, name)


def _validate_module():
    import sys

    return sys.modules["exactsched.validate"]


def _near_miss(problem, schedule, rng):
    """Move a few times by an ulp, by the slack or by a real amount (often invalid)."""
    rows = {t: [pl.processor, pl.start, pl.finish] for t, pl in schedule.items()}
    ids = list(rows)
    for _ in range(rng.randint(1, 3)):
        row = rows[rng.choice(ids)]
        kind = rng.randint(0, 5)
        if kind == 0:  # one ulp earlier
            row[1], row[2] = np.nextafter(row[1], -np.inf), np.nextafter(row[2], -np.inf)
        elif kind == 1:  # within or just beyond the relative slack
            d = abs(row[1]) * rng.choice([1e-12, 1e-10, 1e-8])
            row[1], row[2] = row[1] - d, row[2] - d
        elif kind == 2:  # the finish an ulp off
            row[2] = np.nextafter(row[2], rng.choice([-np.inf, np.inf]))
        elif kind == 3:
            row[0] = rng.choice(problem.proc_ids)
        else:  # a real move
            d = rng.choice([0.1, 0.5, 1.0]) * max(1.0, abs(row[2] - row[1]))
            row[1], row[2] = max(0.0, row[1] - d), max(0.0, row[1] - d) + (row[2] - row[1])
    return Schedule({t: Placement(p, s, f) for t, (p, s, f) in rows.items()})


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.data())
def test_the_screen_changes_no_verdict(data):
    """The float screen gives the same list, message for message, as reading all exactly.

    Instances at magnitudes 1e-9 to 1e14 in integers, decimals and floats, with
    zero costs, order and isolation pairs and affinity; schedules from list
    heuristics, moved by an ulp, by the slack or by a real amount.
    """
    import random

    from exactsched import solve

    rng = random.Random(data.draw(st.integers(0, 10**9)))
    processors = rng.choice([1, 2, 4])  # every topology builds these
    topology = rng.choice(TOPOLOGIES)
    problem = random_instance(
        rng.randint(2, 25), processors, topology=topology, n_order=rng.randint(0, 3),
        n_isolation=rng.randint(0, 3), affinity=rng.choice([0.0, 0.3]),
        latency=rng.randint(0, 2), seed=rng.randint(0, 10**6),
    )  # fmt: skip
    doc = problem.to_json()
    mode, k = rng.choice(["int", "scale", "decimal", "float"]), rng.choice([-9, -3, 0, 6, 12, 14])

    def number(v):
        if mode == "int":
            return v
        if mode == "scale":
            return float(f"{v}e{k}")
        if mode == "decimal":
            return float(f"{v}.{rng.randint(0, 99)}e{k}")
        return v * (1 + rng.random()) * 10.0**k

    for task in doc["tasks"]:
        c = 0 if rng.random() < 0.1 and not isinstance(task["cost"], list | dict) else task["cost"]
        task["cost"] = [number(v) for v in c] if isinstance(c, list) else (
            {p: number(v) for p, v in c.items()} if isinstance(c, dict) else number(c)
        )  # fmt: skip
    for edge in doc.get("edges", []):
        edge["data"] = number(edge.get("data", 0))
    net = doc["platform"].setdefault("network", {})
    if "latency" in net:
        net["latency"] = number(net["latency"])
    problem = Problem.from_json(doc)
    schedule = solve(problem, rng.choice(["heft", "cpop", "random-eft"]), check=False).schedule
    module = _validate_module()
    for candidate in (schedule, _near_miss(problem, schedule, rng)):
        for tol in (None, 0.0):
            screened = validate(problem, candidate, tol=tol)
            saved = module._Screen
            module._Screen = _Unscreened
            try:
                unscreened = validate(problem, candidate, tol=tol)
            finally:
                module._Screen = saved
            assert screened == unscreened


@pytest.mark.parametrize(
    ("n", "cost", "t0"), [(10, 5.0, 1000000000000000.4), (3000, 10.0, 1e13 + 1 / 3)]
)
def test_a_long_schedule_buys_no_slack(n, cost, t0):
    """A regression audit: a slack of (4n + 2) ulps let two tasks share a slot on one
    processor among ten tasks at 1e15 (busy 45 for 50 units of work). Every rule is
    local, so the slack is a fixed few ulps."""
    from exactsched.schedule import Placement

    problem = Problem.from_lists([cost] * n, [], n_processors=1)
    places, t = {}, t0
    for i in range(n - 1):
        places[f"t{i}"] = Placement("p0", t, t + cost)
        t = t + cost
    prev = places[f"t{n - 2}"]
    places[f"t{n - 1}"] = Placement("p0", prev.start, prev.finish)  # the same slot
    violations = validate(problem, Schedule(places))
    assert len(violations) == 1 and "overlaps" in violations[0]


@pytest.mark.parametrize(
    ("processors", "network", "data", "cost_b", "placed"),
    [
        # One processor, a receiver of length 0 (no overlap rule can catch it); the
        # network's latency has 17 digits, but an edge inside a processor reads none.
        ([{"id": "p0"}], {"latency": 0.30000000000000004}, 0, 0,
         (("p0", 0, 1e14), ("p0", 99999999999999.9, 99999999999999.9))),
        ([{"id": "p0"}], None, 0.30000000000000004, 0,
         (("p0", 0, 1e14), ("p0", 99999999999999.9, 99999999999999.9))),
        # Two CPUs of a CPU-GPU node are 0 hops apart: a whole unit early at 1e15.
        ([{"id": "c0", "type": "cpu"}, {"id": "c1", "type": "cpu"}],
         {"topology": "accelerated-node", "bandwidth": 0.30000000000000004}, 7, 5,
         (("c0", 0, 1e15), ("c1", 999999999999999, 1000000000000004))),
        # Near 0 the 8-ulp slack of a 17-digit network was the whole time involved.
        ([{"id": "p0"}], {"latency": 0.30000000000000004}, 0, 0,
         (("p0", 1e-323, 1e-323), ("p0", 0, 0))),
    ],
)  # fmt: skip
def test_an_edge_without_communication_is_checked_exactly(
    processors, network, data, cost_b, placed
) -> None:
    # The rule reads start(b), start(a) and cost(a) only: exact when those are (audit Z).
    cost_a = placed[0][2] - placed[0][1]
    p = problem_of(
        [{"id": "a", "cost": cost_a}, {"id": "b", "cost": cost_b}],
        processors,
        network,
        edges=[{"src": "a", "dst": "b", "data": data}],
    )
    one(validate(p, sched(a=placed[0], b=placed[1])), r"edge a -> b: b starts at .*")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(min_value=-1e16, max_value=1e16, allow_nan=False),
            st.integers(0, 10**15).flatmap(
                lambda n: st.integers(0, 15).map(lambda k: n / 10**k)  # short decimals
            ),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_the_numpy_reading_of_decimals_is_the_repr_reading(values):
    # _fast_decimals reads places and digits in numpy; where it decides, it must agree
    # with _decimal, the one repr-based reading of a number.
    from exactsched.validate import _decimal, _fast_decimals

    v = np.array(values, dtype=float)
    k, digits = _fast_decimals(v, np.ones(len(v), dtype=bool))
    for x, kk, n in zip(v.tolist(), k.tolist(), digits.tolist(), strict=True):
        if kk >= 0:
            m, e = _decimal(x)
            assert Fraction(m) * Fraction(10) ** e == Fraction(int(n), 10**kk), x


@pytest.mark.parametrize("tol", [float("nan"), -1, float("inf"), "x", True])
def test_a_tolerance_that_is_no_slack_is_refused(tol):
    # nan passed every schedule, -1 failed valid ones, "x" raised a TypeError (an audit).
    p = Problem.from_lists([[2, 2], [1, 1]], [(0, 1, 3)])
    ok = Schedule({"t0": Placement("p0", 0, 2), "t1": Placement("p0", 2, 3)})
    with pytest.raises(ScheduleError, match=r"^tol: expected None or a finite number >= 0"):
        validate(p, ok, tol=tol)
    assert validate(p, ok, tol=np.float64(0.5)) == [] and validate(p, ok, tol=0) == []
