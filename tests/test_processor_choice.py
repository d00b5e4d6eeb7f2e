"""The ``processor_choice`` option of the rules that assume identical processors.

``earliest-start`` (default) is the published rule; ``earliest-finish`` is the
project's adaptation to unlike processors (docs/heuristics.md). On the single-GPU
examples every task is 14-100 times faster on the GPU, so the adaptation must put
them there, where the published rules leave most on CPU cores.
"""

import pytest

import exactsched
from exactsched import MethodError, Problem, load_instance, solve, validate
from exactsched.generators import random_instance

IDENTICAL = sorted(
    m.name for m in exactsched.available_methods() if m.assumes_identical_processors
)
SINGLE_GPU = [
    "examples/cholesky-n3-single-gpu.json",
    "examples/cholesky-n4-single-gpu.json",
    "examples/daggen-n12-single-gpu-hoft.json",
]


def test_every_flagged_method_offers_the_option():
    assert IDENTICAL == [
        "bl-est",
        "bl-est-busy",
        "bl-est-part",
        "etf",
        "etf-busy",
        "etf-part",
        "lmt",
        "olb",
    ]
    for name in IDENTICAL:
        assert exactsched.get_method(name).options["processor_choice"] == "earliest-start"


@pytest.mark.parametrize("path", SINGLE_GPU)
@pytest.mark.parametrize("name", IDENTICAL)
def test_earliest_finish_puts_gpu_kernels_on_the_gpu(name, path):
    p = load_instance(path)
    gpu = p.proc_ids.index("g0")
    kernels = [t for t in range(p.n_tasks) if p.cost[t, gpu] * 10 < p.cost[t, :gpu].min()]
    assert len(kernels) == p.n_tasks  # every task of these examples is a GPU kernel
    plain = solve(p, name).schedule
    adapted = solve(p, name, processor_choice="earliest-finish").schedule
    assert validate(p, plain) == [] and validate(p, adapted) == []
    # The published rule puts some kernel on a CPU core.
    assert any(plain[p.task_ids[t]].processor != "g0" for t in kernels)
    assert adapted.makespan < plain.makespan
    if name.endswith("-busy") and "cholesky-n4" in path:
        # *-Busy keeps a new part off the busy GPU whenever a CPU is free: the rule
        # itself, not the processor choice, sends some kernels to CPU cores here.
        return
    assert all(adapted[p.task_ids[t]].processor == "g0" for t in kernels)
    # Here that is also what HEFT does.
    assert adapted.makespan == solve(p, "heft").makespan


def test_earliest_finish_by_hand():
    # t0 costs 9 on p0, 1 on p1; t1 (p1 only, cost 2) -> t2 (5 anywhere), no data.
    # Bottom levels 5, 7, 5: bl-est and etf place t1 first, on p1 in [0, 2). Then t0
    # starts earliest on p0 (0 < 2) but finishes earliest on p1 (3 < 9).
    p = Problem.from_lists([[9, 1], [2, 2], [5, 5]], [(1, 2, 0)], affinity={1: [1]})
    for name in ("bl-est", "etf"):
        plain = solve(p, name).schedule
        adapted = solve(p, name, processor_choice="earliest-finish").schedule
        assert (plain["t1"].processor, plain["t1"].start) == ("p1", 0), name
        assert (plain["t0"].processor, plain["t0"].start) == ("p0", 0), name
        assert (adapted["t0"].processor, adapted["t0"].start) == ("p1", 2), name
        assert (plain.makespan, adapted.makespan) == (9, 7), name
        assert validate(p, plain) == [] and validate(p, adapted) == []
    # OLB takes t0 first (first in, first out): both processors idle, the published
    # rule takes the lowest index, the adaptation the faster p1 -- MCT's choice.
    plain = solve(p, "olb").schedule
    adapted = solve(p, "olb", processor_choice="earliest-finish").schedule
    assert plain["t0"].processor == "p0" and adapted["t0"].processor == "p1"
    assert adapted == solve(p, "mct").schedule and validate(p, adapted) == []


def test_lmt_earliest_finish_may_give_a_processor_two_groups():
    # One level of two tasks, both 10x faster on p1: the published rule gives each
    # group its own processor; the adaptation puts both on p1 (ends at 2 < 10).
    p = Problem.from_lists([[10, 1], [10, 1]])
    plain = solve(p, "lmt").schedule
    adapted = solve(p, "lmt", processor_choice="earliest-finish").schedule
    assert {plain[t].processor for t in ("t0", "t1")} == {"p0", "p1"}
    assert {adapted[t].processor for t in ("t0", "t1")} == {"p1"}
    assert adapted.makespan == 2 and validate(p, adapted) == []


@pytest.mark.parametrize("name", IDENTICAL)
def test_earliest_finish_valid_on_constrained_instances(name):
    for seed, topology in enumerate(("mesh", "accelerated-node", "fat-tree", "matrix")):
        p = random_instance(
            25, 4, topology=topology, n_order=3, n_isolation=3, affinity=0.2, ccr=2.0, seed=seed
        )
        for insertion in (False, True):
            s = solve(p, name, processor_choice="earliest-finish", insertion=insertion).schedule
            assert validate(p, s) == []
            again = exactsched.get_method(name).func(
                p, processor_choice="earliest-finish", insertion=insertion
            )
            assert again == s


@pytest.mark.parametrize("name", IDENTICAL)
def test_unknown_choice_is_refused(name):
    p = Problem.from_lists([1, 1], n_processors=2)
    with pytest.raises(MethodError, match="processor_choice"):
        solve(p, name, processor_choice="fastest")
    with pytest.raises(MethodError, match="processor_choice"):
        exactsched.get_method(name).func(p, processor_choice="fastest")
