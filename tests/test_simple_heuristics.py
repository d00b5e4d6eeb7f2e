"""Tests of rts, random-eft and minimal-serial."""

import random

import numpy as np
import pytest

from exactsched import MethodError, Problem, get_method, load_instance, solve, validate
from exactsched.generators import TOPOLOGIES, random_instance
from exactsched.metrics import minimal_serial_time
from heuristics.minimal_serial import minimal_serial
from heuristics.random_eft import random_eft, speed_weights
from heuristics.rts import as_generator, random_priority, rts


@pytest.fixture(scope="module")
def paper():
    return load_instance("examples/topcuoglu2002.json")


@pytest.mark.parametrize("name", ["heft", "cpop", "rts", "random-eft", "minimal-serial"])
def test_registered(name):
    info = get_method(name)
    assert info.kind == "heuristic" and info.source


# ---- rts ---------------------------------------------------------------------------


def test_rts_deterministic_for_a_seed(paper):
    assert rts(paper, seed=4) == rts(paper, seed=4)
    schedules = [rts(paper, seed=s) for s in range(20)]
    assert all(validate(paper, s) == [] for s in schedules)
    makespans = {s.makespan for s in schedules}
    assert len(makespans) > 1  # different seeds, different orders


def test_rts_seed_kinds(paper):
    a = rts(paper, seed=np.random.default_rng(9))
    b = rts(paper, seed=np.random.default_rng(9))
    c = rts(paper, seed=random.Random(9))
    assert a == b and validate(paper, c) == []


def test_rts_through_solve_uses_seed(paper):
    assert solve(paper, "rts", seed=3).schedule == rts(paper, seed=3)


def test_random_priority_is_a_permutation():
    p = Problem.from_lists([1] * 7, n_processors=1)
    assert sorted(random_priority(p, 1).tolist()) == list(range(7))


def test_as_generator_passes_generators_through():
    g = np.random.default_rng(0)
    assert as_generator(g) is g


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_rts_valid(topology):
    p = random_instance(40, 4, topology=topology, n_order=4, n_isolation=4, affinity=0.3, seed=8)
    assert validate(p, rts(p, seed=0)) == []
    assert validate(p, rts(p, seed=1, insertion=False)) == []


# ---- random-eft ----------------------------------------------------------------------


def test_speed_weights():
    p = Problem.from_lists([[1, 3], [0, 0], [2, 2]], affinity={2: [1]})
    w = speed_weights(p)
    np.testing.assert_allclose(w, [[0.75, 0.25], [0.5, 0.5], [0.0, 1.0]])


def test_random_eft_deterministic_and_valid(paper):
    s = random_eft(paper, seed=2)
    assert s == random_eft(paper, seed=2)
    assert validate(paper, s) == []
    assert solve(paper, "random-eft", seed=2).schedule == s


def test_random_eft_frequencies_follow_speed():
    # 400 independent tasks on a related-machines platform, speeds 1 and 3:
    # about 3/4 of the tasks must land on the fast processor.
    p = Problem.from_lists([[6, 2]] * 400)
    s = random_eft(p, seed=0)
    assert validate(p, s) == []
    share = sum(pl.processor == "p1" for pl in s.values()) / 400
    assert 0.68 < share < 0.82


def test_random_eft_respects_affinity():
    p = random_instance(60, 8, topology="hypercube", affinity=0.6, n_isolation=5, seed=4)
    s = random_eft(p, seed=1)
    assert validate(p, s) == []


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_random_eft_valid(topology):
    p = random_instance(40, 4, topology=topology, n_order=4, n_isolation=4, affinity=0.3, seed=6)
    assert validate(p, random_eft(p, seed=5, ranking="best")) == []


def test_random_eft_unknown_ranking():
    with pytest.raises(MethodError, match="ranking"):
        random_eft(Problem.from_lists([1], n_processors=1), ranking="x")


def test_random_eft_zero_cost_processor_always_chosen():
    p = Problem.from_lists([[3, 0, 3]] * 20)
    s = random_eft(p, seed=0)
    assert validate(p, s) == []
    assert {pl.processor for pl in s.values()} == {"p1"}


# ---- minimal-serial ------------------------------------------------------------------


def test_minimal_serial_paper(paper):
    s = minimal_serial(paper)
    assert s.makespan == minimal_serial_time(paper) == 127
    assert {pl.processor for pl in s.values()} == {"p1"}
    assert validate(paper, s) == []


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_minimal_serial_valid(topology):
    p = random_instance(30, 4, topology=topology, n_order=5, n_isolation=5, seed=1)
    s = minimal_serial(p)
    assert validate(p, s) == []
    assert s.makespan == pytest.approx(minimal_serial_time(p))


def test_minimal_serial_respects_affinity():
    p = Problem.from_lists([[1, 5, 4], [1, 5, 4]], affinity={0: [1, 2]})
    s = minimal_serial(p)
    assert s.makespan == 8 and s["t0"].processor == "p2"
    assert validate(p, s) == []


def test_minimal_serial_refuses_split_affinity():
    p = Problem.from_lists([[1, 1], [1, 1]], affinity={0: [0], 1: [1]})
    with pytest.raises(MethodError, match="no processor may run every task"):
        minimal_serial(p)


def test_minimal_serial_zero_costs():
    p = Problem.from_lists([[0, 0], [0, 0]], [(0, 1, 4)])
    s = minimal_serial(p)
    assert s.makespan == 0 and validate(p, s) == []
