"""Seeded random instances: reproducible, every topology, the pairs asked for."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from exactsched import InstanceWarning, load_instance
from exactsched.generators import TOPOLOGIES, random_dag, random_instance, random_network

PROCS = {"hypercube": 8, "fat-tree": 8, "accelerated-node": 5}


def quietly_strict(**kwargs):
    """random_instance, failing on any warning (a generated pair is never redundant)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return random_instance(**kwargs)


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_determinism(topology):
    args = {"n_tasks": 15, "n_processors": PROCS.get(topology, 6), "topology": topology}
    args |= {"n_order": 2, "n_isolation": 2, "affinity": 0.3}
    a = random_instance(**args, seed=7).to_json()
    assert random_instance(**args, seed=7).to_json() == a
    assert random_instance(**args, seed=np.random.default_rng(7)).to_json() == a
    assert random_instance(**args, seed=8).to_json() != a


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_every_topology(topology):
    n_procs = PROCS.get(topology, 6)
    problem = quietly_strict(n_tasks=20, n_processors=n_procs, topology=topology, seed=1)
    network = problem.to_json()["platform"]["network"]
    assert network["topology"] == topology and network["latency"] == 0
    assert problem.n_processors == n_procs and problem.n_tasks == 20
    assert problem.hops.shape == (n_procs, n_procs) and np.all(np.diagonal(problem.hops) == 0)
    if topology in ("mesh", "torus"):
        assert int(np.prod(network["dims"])) == n_procs == 6 and network["dims"] == [3, 2]
    if topology == "fat-tree":
        assert network["arity"] == 2 and problem.hops.max() == 4
    if topology == "hypercube":
        assert problem.hops.max() == 3
    if topology == "accelerated-node":
        assert problem.proc_types == ("cpu",) * 4 + ("gpu",)
        assert problem.hops[0, 1] == 0 and problem.hops[0, 4] == 1
    if topology == "matrix":
        off = problem.hops[~np.eye(n_procs, dtype=bool)]
        assert set(off.tolist()) <= {0.5, 1.0, 1.5, 2.0}
    assert load_instance(problem.to_json()) == problem


@pytest.mark.parametrize("seed", range(8))
def test_requested_pairs_are_present(seed):
    problem = quietly_strict(
        n_tasks=30, n_processors=4, n_order=5, n_isolation=6, topology="torus", seed=seed
    )
    doc = problem.to_json()
    assert len(doc["order"]) == 5 and len(problem.order_src) == 5
    assert len(doc["isolation"]) == 6 and len(problem.iso_a) == 6
    edges = {(e["src"], e["dst"]) for e in doc["edges"]}
    assert not edges & {tuple(p) for p in doc["order"]}  # order pairs add arcs
    assert problem.n_edges == len(doc["edges"]) + 5
    # No isolation pair is already ordered by a path (else quietly_strict raised).
    assert len({frozenset(p) for p in doc["isolation"]}) == 6


def test_pairs_on_tiny_instances():
    one = quietly_strict(n_tasks=1, n_processors=2, n_order=3, n_isolation=3, seed=0)
    assert "order" not in one.to_json() and "isolation" not in one.to_json()
    two = quietly_strict(n_tasks=2, n_processors=1, n_order=3, n_isolation=3, seed=0)
    assert len(two.order_src) + len(two.iso_a) <= 1  # at most one pair of two tasks


def test_affinity_and_costs():
    problem = quietly_strict(n_tasks=40, n_processors=4, affinity=1.0, seed=3)
    tasks = problem.to_json()["tasks"]
    assert all(0 < len(t["processors"]) < 4 for t in tasks)
    assert np.array_equal(np.isfinite(problem.cost), problem.allowed)
    assert problem.allowed.any(axis=1).all()
    none = quietly_strict(n_tasks=40, n_processors=4, affinity=0.0, seed=3)
    assert none.allowed.all()
    same = quietly_strict(n_tasks=10, n_processors=3, heterogeneity=0.0, seed=3)
    assert np.all(same.cost == same.cost[:, :1])


def test_integral_and_fractional():
    assert quietly_strict(n_tasks=20, n_processors=3, seed=2).is_integral
    frac = quietly_strict(n_tasks=20, n_processors=3, integral=False, seed=2)
    assert not frac.is_integral and np.all(frac.cost > 0)
    lat = quietly_strict(n_tasks=20, n_processors=3, latency=2, ccr=0, seed=2)
    assert lat.latency == 2 and np.all(lat.arc_unit[: len(lat.edge_src)] == 2)


def test_ccr_is_near_the_target():
    for target in (0.5, 2.0):
        problem = quietly_strict(n_tasks=300, n_processors=4, ccr=target, seed=5)
        assert problem.ccr() == pytest.approx(target, rel=0.25)


def test_random_dag():
    for seed in range(5):
        arcs = random_dag(40, max_in_degree=2, seed=seed)
        assert arcs == sorted(set(arcs))
        assert all(a < b for a, b in arcs)  # arcs go up in index: acyclic
        indegree = np.bincount([b for _, b in arcs], minlength=40)
        assert indegree.max() <= 2
    assert random_dag(1, seed=0) == [] and random_dag(0, seed=0) == []


def test_random_network():
    network, types = random_network("accelerated-node", 1, seed=0)
    assert types == ["cpu"] and network == {"topology": "accelerated-node"}
    network, _ = random_network("mesh", 12, seed=0)
    assert network["dims"] == [4, 3]
    network, _ = random_network("torus", 7, seed=0)
    assert network["dims"] == [7, 1]
    with pytest.raises(ValueError, match=r"^topology: unknown 'ring'; known: fully-connected"):
        random_network("ring", 4)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_tasks": 0}, r"^n_tasks: must be a finite number >= 1, got 0$"),
        ({"n_processors": -1}, r"^n_processors: must be a finite number >= 1"),
        ({"n_tasks": 2.5}, r"^n_tasks: expected an integer, got 2\.5$"),
        ({"ccr": -1}, r"^ccr: must be a finite number >= 0"),
        ({"ccr": float("nan")}, r"^ccr: must be a finite number >= 0, got nan$"),
        ({"latency": float("inf")}, r"^latency: must be a finite number >= 0"),
        ({"affinity": 1.5}, r"^affinity: a share must be <= 1, got 1\.5$"),
        ({"n_order": True}, r"^n_order: expected a number, got True$"),
        ({"max_in_degree": 0}, r"^max_in_degree: must be a finite number >= 1"),
        ({"topology": "hypercube", "n_processors": 6}, r"^platform\.network\.topology: a hyp"),
    ],
)
def test_bad_parameters(kwargs, message):
    args = {"n_tasks": 4, "n_processors": 2, "seed": 0} | kwargs
    with pytest.raises(ValueError, match=message):
        random_instance(**args)


def test_no_instance_warning_over_many_seeds():
    with warnings.catch_warnings():
        warnings.simplefilter("error", InstanceWarning)
        for seed in range(40):
            random_instance(
                12, 4, topology="mesh", n_order=4, n_isolation=4, affinity=0.5, seed=seed
            )
