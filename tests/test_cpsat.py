"""Tests of the CP-SAT model (models/cpsat.py) and its warm start (models/_warmstart.py)."""

from __future__ import annotations

import numpy as np
import pytest

from exactsched import MethodError, Problem, Status, load_instance, solve, validate
from exactsched.generators import TOPOLOGIES, random_instance
from models._warmstart import delay_matrix, retime, simple_list_schedule, upward_rank
from models.cpsat import (
    STRAIGHTFORWARD,
    _near_subsets,
    _placement_heads_tails,
    cpsat,
    processor_locations,
    scale_data,
)

FAST = {"workers": 1, "seed": 0, "time_limit": 20}


def _check(problem: Problem, result) -> None:
    assert result.schedule is not None
    assert validate(problem, result.schedule) == []
    assert result.makespan == result.schedule.makespan
    assert result.lower_bound <= result.makespan + 1e-9


def test_topcuoglu_optimum_proven():
    problem = load_instance("examples/topcuoglu2002.json")
    result = solve(problem, "cpsat", 20, workers=1)
    _check(problem, result)
    assert result.status is Status.OPTIMAL
    assert (result.makespan, result.lower_bound) == (73, 73)  # HEFT gives 80
    assert result.gap == 0


def test_topcuoglu_straightforward_model_agrees():
    problem = load_instance("examples/topcuoglu2002.json")
    result = cpsat(problem, **FAST, **STRAIGHTFORWARD)
    _check(problem, result)
    assert (result.status, result.makespan) == (Status.OPTIMAL, 73)


# Fork a -> b, a -> c with data 4 on two processors; costs 2, 3, 3.
# All on one processor: 8. b elsewhere: 2 + comm + 3.
@pytest.mark.parametrize(
    ("network", "types", "expected"),
    [
        ({"topology": "fully-connected"}, ["cpu", "cpu"], 8),  # comm 4: 9 > 8
        ({"topology": "mesh", "dims": [2]}, ["cpu", "cpu"], 8),
        ({"topology": "accelerated-node"}, ["cpu", "cpu"], 5),  # shared memory: free
        ({"topology": "accelerated-node"}, ["cpu", "gpu"], 8),
        ({"topology": "matrix", "hops": [[0, 0.5], [0.5, 0]]}, ["cpu", "cpu"], 7),
        ({"topology": "fully-connected", "latency": 0, "bandwidth": 4}, ["a", "b"], 6),
    ],
)
def test_fork_optimum_per_topology(network, types, expected):
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"p{k}", "type": t} for k, t in enumerate(types)],
            "network": network,
        },
        "tasks": [{"id": "a", "cost": 2}, {"id": "b", "cost": 3}, {"id": "c", "cost": 3}],
        "edges": [{"src": "a", "dst": "b", "data": 4}, {"src": "a", "dst": "c", "data": 4}],
    }
    problem = Problem.from_json(doc)
    for options in ({}, STRAIGHTFORWARD, {"comm": "dest"}):
        result = cpsat(problem, **FAST, **options)
        _check(problem, result)
        assert (result.status, result.makespan) == (Status.OPTIMAL, expected), options


def test_hypercube_three_hops():
    # 8 processors; a on p0, b only on p7 (3 hops away) or p0 costs 10.
    costs = [[1] * 8, [10, 9, 9, 9, 9, 9, 9, 1]]
    problem = Problem.from_lists(costs, [(0, 1, 2)], network={"topology": "hypercube"})
    result = cpsat(problem, **FAST)
    _check(problem, result)
    # a on p7 with b: 1 + 1 = 2.
    assert (result.status, result.makespan) == (Status.OPTIMAL, 2)
    pinned = Problem.from_lists(
        costs, [(0, 1, 2)], network={"topology": "hypercube"}, affinity={0: [0]}
    )
    result = cpsat(pinned, **FAST)
    # a on p0 only: b on p7 at 1 + 3 * 2 = 7, finish 8; b on p1/p2/p4 at 3, finish 12; p0: 11.
    assert (result.status, result.makespan) == (Status.OPTIMAL, 8)


def test_isolation_order_and_affinity():
    two = Problem.from_lists([3, 3], n_processors=2)
    assert cpsat(two, **FAST).makespan == 3
    isolated = Problem.from_lists([3, 3], n_processors=2, isolation=[(0, 1)])
    result = cpsat(isolated, **FAST)
    _check(isolated, result)
    assert (result.status, result.makespan) == (Status.OPTIMAL, 6)
    ordered = Problem.from_lists([3, 2], n_processors=2, order=[(1, 0)])
    result = cpsat(ordered, **FAST)
    _check(ordered, result)
    assert result.makespan == 5
    assert result.schedule["t0"].start >= result.schedule["t1"].finish
    pinned = Problem.from_lists([[3, 1], [3, 1]], affinity={0: [0], 1: [0]})
    result = cpsat(pinned, **FAST)
    _check(pinned, result)
    assert result.makespan == 6
    assert {p.processor for p in result.schedule.values()} == {"p0"}


def test_zero_length_task_may_sit_inside_an_isolation_partner():
    # t1 costs 0; isolation with the long t0 must not push t2 (after t1) back.
    problem = Problem.from_lists(
        [[5, 5], [0, 0], [2, 2]], [(1, 2, 0)], isolation=[(0, 1)], n_processors=None
    )
    result = cpsat(problem, **FAST)
    _check(problem, result)
    assert (result.status, result.makespan) == (Status.OPTIMAL, 5)


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_random_instances_agree_with_straightforward_model(topology):
    problem = random_instance(
        8, 4, topology=topology, n_order=1, n_isolation=2, affinity=0.3, seed=11
    )
    fast = cpsat(problem, **FAST)
    plain = cpsat(problem, **FAST, **STRAIGHTFORWARD)
    for result in (fast, plain):
        _check(problem, result)
        assert result.status is Status.OPTIMAL
    assert fast.makespan == plain.makespan


def test_pooling_identical_processors_without_communication():
    problem = random_instance(12, 4, heterogeneity=0.0, ccr=0.0, n_isolation=2, seed=5)
    loc = processor_locations(problem)
    assert [len(m) for m in loc.members] == [4]
    pooled = cpsat(problem, **FAST)
    per_core = cpsat(problem, **FAST, pooling=False)
    _check(problem, pooled)
    assert pooled.stats["pooled"] == [4]
    assert pooled.status is per_core.status is Status.OPTIMAL
    assert pooled.makespan == per_core.makespan


def test_cpu_cores_are_pooled_and_gpus_symmetric():
    from topologies import platform_preset

    platform = platform_preset("hoft-multi-gpu")
    problem = Problem.from_json(
        {
            "format": "exactsched/instance@1",
            "platform": platform,
            "tasks": [{"id": f"t{i}", "cost": {"cpu": 10, "gpu": 1}} for i in range(3)],
            "edges": [
                {"src": "t0", "dst": "t1", "data": 2},
                {"src": "t0", "dst": "t2", "data": 2},
            ],
        }
    )
    loc = processor_locations(problem)
    assert [len(m) for m in loc.members] == [28, 1, 1, 1, 1]
    assert len(loc.symmetric) == 1 and len(loc.symmetric[0]) == 4
    result = cpsat(problem, **FAST)
    _check(problem, result)
    # Everything on one GPU: 3. A second GPU: 1 + 2 + 1 = 4.
    assert (result.status, result.makespan) == (Status.OPTIMAL, 3)


def test_non_integer_data_are_scaled_and_validated():
    problem = random_instance(9, 3, topology="matrix", integral=False, n_isolation=1, seed=4)
    assert not problem.is_integral
    exact = cpsat(problem, **FAST)
    _check(problem, exact)
    assert exact.stats["exact_scaling"] and exact.status is Status.OPTIMAL
    coarse = cpsat(problem, **FAST, resolution=2)
    _check(problem, coarse)
    assert not coarse.stats["exact_scaling"]
    # The bound stays valid for the original problem even with rounding.
    assert coarse.lower_bound <= exact.makespan + 1e-9
    assert coarse.makespan >= exact.makespan - 1e-9


def test_scale_data_rounds_up():
    problem = Problem.from_lists([[0.25, 1.0]], [], n_processors=None)
    data = scale_data(problem, resolution=2)
    assert data.cost.tolist() == [[1.0, 2.0]] and not data.exact
    assert scale_data(problem).resolution == 100
    with pytest.raises(MethodError, match="resolution"):
        scale_data(problem, resolution=0)


def test_time_limit_gives_feasible_schedule_with_gap():
    problem = random_instance(70, 12, topology="mesh", seed=2)
    result = cpsat(problem, workers=1, seed=0, time_limit=1.0)
    _check(problem, result)
    assert result.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert result.seconds < 5
    if result.status is Status.FEASIBLE:
        assert result.gap > 0
    assert result.stats["hint"] is not None


def test_workers_one_is_deterministic():
    problem = random_instance(14, 4, topology="torus", seed=8)
    # A limit far above the need: the relocation warm start (on, 4 locations) has a
    # wall-clock share of the limit, which a loaded machine could otherwise reach.
    first = cpsat(problem, workers=1, seed=3, time_limit=100)
    second = cpsat(problem, workers=1, seed=3, time_limit=100)
    assert first.schedule.to_json() == second.schedule.to_json()


def test_callback_reports_improving_solutions():
    problem = random_instance(16, 4, topology="fat-tree", seed=9)
    seen = []
    result = cpsat(problem, **FAST, callback=lambda m, b, s: seen.append((m, b, s)))
    assert seen, "the warm start is reported at least"
    makespans = [m for m, _, _ in seen]
    assert all(b <= m + 1e-9 for m, b, _ in seen)
    assert makespans[-1] >= result.makespan - 1e-9
    assert min(makespans) == pytest.approx(result.makespan)


@pytest.mark.parametrize(
    ("option", "value", "match"),
    [
        ("time_limit", -1, "time_limit"),
        ("workers", 0, "workers"),
        ("relative_gap", 1.5, "relative_gap"),
        ("horizon", "huge", "horizon"),
        ("comm", "magic", "comm"),
        ("relocate", -1, "relocate"),
        ("relocate", True, "relocate"),
        ("relocate", "always", "relocate"),
    ],
)
def test_bad_options(option, value, match):
    problem = Problem.from_lists([1], n_processors=1)
    with pytest.raises(MethodError, match=match):
        cpsat(problem, **{option: value})


def test_single_processor_and_single_task():
    one = Problem.from_lists([4], n_processors=1)
    result = cpsat(one, **FAST)
    assert (result.status, result.makespan) == (Status.OPTIMAL, 4)
    chain = Problem.from_lists([1, 2, 3], [(0, 1, 5), (1, 2, 5)], n_processors=1)
    assert cpsat(chain, **FAST).makespan == 6


def test_warmstart_list_schedule_is_valid_with_isolation():
    from exactsched import Schedule

    problem = random_instance(20, 4, topology="mesh", n_isolation=4, n_order=2, seed=1)
    delay = delay_matrix(problem)
    proc, start = simple_list_schedule(
        problem, problem.cost, delay, upward_rank(problem, problem.cost, delay)
    )
    schedule = Schedule.from_arrays(problem, proc, start)
    assert validate(problem, schedule) == []
    again = retime(problem, proc, start, problem.cost, delay)
    assert np.all(again <= start + 1e-9)
    assert validate(problem, Schedule.from_arrays(problem, proc, again)) == []


def test_extra_cp_sat_parameters():
    problem = Problem.from_lists([2, 3], n_processors=2)
    result = cpsat(problem, **FAST, parameters={"linearization_level": 2})
    assert result.makespan == 3 and result.stats["options"]["parameters"]
    with pytest.raises(MethodError, match="parameters"):
        cpsat(problem, parameters={"no_such_parameter": 1})


def test_hint_is_a_valid_first_schedule_within_a_second():
    problem = random_instance(60, 8, topology="torus", seed=3)
    seen = []
    result = cpsat(problem, workers=1, time_limit=2, callback=lambda m, b, s: seen.append(s))
    _check(problem, result)
    assert result.stats["hint_seconds"] < 1.0
    assert seen[0] == pytest.approx(result.stats["hint_seconds"], abs=0.05)


def test_placement_heads_tails_fork_pays_communication_or_serialisation():
    # a -> b, a -> c, data 4 on a 2-processor mesh, costs 2, 3, 3: the optimum is 8
    # (all on one processor) while the critical path with least costs is 5.
    problem = Problem.from_lists(
        [2, 3, 3],
        [(0, 1, 4), (0, 2, 4)],
        n_processors=2,
        network={"topology": "mesh", "dims": [2]},
    )
    head, tail = _placement_heads_tails(problem, problem.cost, delay_matrix(problem), [1, 1])
    assert head.tolist() == [[0, 0], [2, 2], [2, 2]]
    assert tail[0].tolist() == [8, 8]  # b and c: both local (3 + 3) or one remote (4 + 3)
    assert (head + tail).min(axis=1).max() == 8


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_placement_heads_tails_hold_for_brute_force_optima(topology):
    for seed in range(3):
        n_procs = 4 if topology in ("hypercube", "fat-tree") else 3
        problem = random_instance(
            6, n_procs, topology=topology, n_order=1, n_isolation=1, affinity=0.3, seed=seed
        )
        ref = solve(problem, "bruteforce")
        proc, start, _ = ref.schedule.arrays(problem)
        head, tail = _placement_heads_tails(
            problem, problem.cost, delay_matrix(problem), [1] * n_procs
        )
        idx = np.arange(problem.n_tasks)
        assert np.all(start >= head[idx, proc] - 1e-9)
        assert np.all(start + tail[idx, proc] <= ref.makespan + 1e-9)


def test_near_subsets_follow_the_network():
    tree = random_instance(10, 8, topology="fat-tree", seed=0)
    subsets = _near_subsets(tree)
    assert [k for k, _ in subsets] == [2] * 4 + [4] * 2  # leaf pairs, then halves
    assert all(members.sum() == k for k, members in subsets)
    assert _near_subsets(random_instance(10, 8, topology="fully-connected", seed=0)) == []


def test_relocation_warm_start_on_a_cpu_gpu_node():
    # 2 locations (7 pooled cores + 1 GPU): "auto" runs the relocation search,
    # whose schedule joins the candidates; on 16 processors "auto" leaves it off.
    from exactsched.workloads import cholesky_instance

    problem = cholesky_instance(6, "hoft-single-gpu")
    result = cpsat(problem, workers=1, seed=0, time_limit=3)
    _check(problem, result)
    assert result.stats["hint"] == "relocate"  # list schedules: 36,070 at best
    assert result.stats["hint_makespan"] < solve(problem, "heft").makespan
    off = cpsat(problem, workers=1, seed=0, time_limit=3, relocate=0)
    _check(problem, off)
    assert off.stats["hint"] != "relocate"
    wide = random_instance(20, 16, topology="fat-tree", seed=1)
    assert cpsat(wide, workers=1, time_limit=2).stats["hint"] != "relocate"
