"""bruteforce under the single-port and contention models: the referee of issue 19.

Hand-checked optima (worked out in the comments) and properties on tiny random
instances: the optimum under single-port or contention is never below the
delay optimum, equals it with zero communication, and no message-aware
heuristic beats it.
"""

from __future__ import annotations

import pytest

import heuristics
from exactsched import Problem, Status, get_method, solve, validate
from exactsched.generators import random_instance


def with_model(problem: Problem, model: str, duplex: bool = True) -> Problem:
    return problem.with_communication(model, duplex=None if duplex else False)


def optimum(problem: Problem) -> float:
    result = solve(problem, "bruteforce", time_limit=60, certify=False)
    assert result.status is Status.OPTIMAL
    assert validate(problem, result.schedule) == []
    return result.makespan


def fork(b_cost: int) -> Problem:
    """a (p0 only, cost 1) -> b (p1 only), a -> c (p2 only, cost 1), data 4 each, 1 x 3 mesh."""
    return Problem.from_lists(
        [1, b_cost, 1],
        [(0, 1, 4), (0, 2, 4)],
        n_processors=3,
        network={"topology": "mesh", "dims": [1, 3]},
        affinity={0: [0], 1: [1], 2: [2]},
    )


def test_fork_where_ordering_the_messages_hides_contention():
    # b costs 1. Delay: b at 1 + 4 = 5, c at 1 + 8 = 9: makespan 10. Contention: send
    # a -> c first (p0->p1 [1, 5), p1->p2 [5, 9), c at 9) and a -> b second (p0->p1
    # [5, 9), b at 9): makespan 10 again, which HEFT (b's message first, 14) misses.
    # Single-port: a's send port carries a -> c (8 units) and a -> b (4) one after the
    # other: the second arrives at 1 + 12 = 13, so the optimum is 14.
    p = fork(1)
    assert optimum(p) == 10
    assert optimum(with_model(p, "contention")) == 10
    assert solve(with_model(p, "contention"), "heft").makespan == 14
    assert optimum(with_model(p, "single-port")) == 14


def test_fork_where_contention_costs_time():
    # b costs 5. Delay: b at 5, ends 10; c at 9, ends 10: makespan 10. Contention: the
    # message sent second on p0->p1 leaves at 5; b second: b at 9, ends 14; c second: c
    # at 13, ends 14. So 14; single-port likewise.
    p = fork(5)
    assert optimum(p) == 10
    assert optimum(with_model(p, "contention")) == 14
    assert optimum(with_model(p, "single-port")) == 14


def test_half_duplex_ping_pong():
    # x (p0) -> y (p1) and u (p1) -> v (p0), data 3, all costs 1, two processors, every
    # task pinned. Duplex: both messages over [1, 4): makespan 5. Half duplex: one link
    # resource, so one message waits: [1, 4) then [4, 7): makespan 8.
    p = Problem.from_lists(
        [1, 1, 1, 1],
        [(0, 1, 3), (2, 3, 3)],
        n_processors=2,
        affinity={0: [0], 1: [1], 2: [1], 3: [0]},
    )
    assert optimum(with_model(p, "contention")) == 5
    assert optimum(with_model(p, "contention", duplex=False)) == 8
    assert optimum(with_model(p, "single-port", duplex=False)) == 8


CASES = [
    (topology, seed)
    for topology in ("mesh", "fat-tree", "fully-connected", "hypercube")
    for seed in range(2)
]


@pytest.mark.parametrize(("topology", "seed"), CASES)
def test_models_never_below_delay_and_heuristics_never_below_optimum(topology, seed):
    base = random_instance(5, 4, topology=topology, ccr=3.0, n_isolation=1, seed=40 + seed)
    delay = optimum(base)
    for model in ("single-port", "contention"):
        problem = with_model(base, model)
        best = optimum(problem)
        assert best >= delay
        for name in ("heft", "cpop", "etf", "mct"):
            assert name in heuristics.MESSAGE_AWARE
            info = get_method(name)
            assert info.func(problem).makespan >= best


def test_zero_communication_same_optimum():
    base = random_instance(5, 4, topology="mesh", seed=3)
    doc = base.to_json()
    for edge in doc["edges"]:
        edge["data"] = 0
    zero = Problem.from_json(doc)
    delay = optimum(zero)
    for model in ("single-port", "contention"):
        assert optimum(with_model(zero, model)) == delay


def test_schedule_lists_the_messages():
    p = with_model(fork(5), "contention")
    schedule = solve(p, "bruteforce", certify=False).schedule
    assert {m.dst for m in schedule.messages} == {"t1", "t2"}
    assert all(m.links for m in schedule.messages)
