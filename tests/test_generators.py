"""Seeded random instances: reproducible, every topology, the pairs asked for."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from exactsched import InstanceWarning, MethodError, load_instance, solve, validate
from exactsched.generators import (
    DAG_GENERATORS,
    TOPOLOGIES,
    daggen_dag,
    erdos_renyi_dag,
    layered_dag,
    random_dag,
    random_instance,
    random_network,
    random_workload,
    topcuoglu_dag,
    topcuoglu_instance,
)
from exactsched.workloads.weights import ccr, gamma_times, scale_to_ccr

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


# ---- generators of the literature and their weights -----------------------------------

GENERATOR_ARGS = {
    "topcuoglu": {"alpha": 1.0, "out_degree": 3},
    "layered": {"n_layers": 5, "p": 0.3},
    "erdos-renyi": {"p": 0.1},
    "daggen": {"fat": 0.5, "density": 0.4, "regularity": 0.5, "jump": 2},
}


@pytest.mark.parametrize("name", sorted(DAG_GENERATORS))
def test_dag_generators_are_seeded_dags(name):
    generate = DAG_GENERATORS[name]
    arcs = generate(60, seed=5, **GENERATOR_ARGS[name])
    assert arcs == generate(60, seed=5, **GENERATOR_ARGS[name])
    assert arcs == generate(60, seed=np.random.default_rng(5), **GENERATOR_ARGS[name])
    assert arcs != generate(60, seed=6, **GENERATOR_ARGS[name])
    assert arcs == sorted(set(arcs)) and all(0 <= a < b < 60 for a, b in arcs)


def test_topcuoglu_alpha_shapes_the_dag():
    import networkx as nx

    def depth(alpha):
        lengths = []
        for seed in range(10):
            g = nx.DiGraph(topcuoglu_dag(100, alpha=alpha, seed=seed))
            lengths.append(nx.dag_longest_path_length(g) if g.number_of_edges() else 0)
        return np.mean(lengths)

    # Height ~ sqrt(v) / alpha: alpha 0.5 gives about 20 levels, alpha 2 about 5.
    assert depth(0.5) > 2 * depth(2.0)
    arcs = topcuoglu_dag(200, out_degree=3, seed=1)
    out = np.bincount([a for a, _ in arcs], minlength=200)
    assert 2.0 < out[out > 0].mean() < 3.5  # mean out-degree about 3 (the last level has none)


def test_layered_erdos_renyi_daggen_shapes():
    assert len(erdos_renyi_dag(6, 1.0, seed=0)) == 15 and erdos_renyi_dag(6, 0.0, seed=0) == []
    counts = [len(erdos_renyi_dag(100, 0.05, seed=s)) for s in range(20)]
    assert abs(np.mean(counts) - 0.05 * 4950) < 25  # E[arcs] = p n (n-1) / 2
    arcs = layered_dag(30, 6, 0.0, seed=0)  # only the parents every task must have
    assert len({b for _, b in arcs}) == len(arcs)
    assert daggen_dag(10, fat=0.0, seed=3) == [(i, i + 1) for i in range(9)]
    assert daggen_dag(10, fat=1.0, regularity=1.0, seed=3) == []


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: topcuoglu_dag(0), "v: expected a positive integer"),
        (lambda: topcuoglu_dag(5, alpha=0), "alpha: expected a positive number"),
        (lambda: layered_dag(5, 2, 1.5), r"p: must lie in \[0, 1\]"),
        (lambda: daggen_dag(5, jump=0), "jump: expected a positive integer"),
        (lambda: erdos_renyi_dag(5, -0.1), r"p: must lie in \[0, 1\]"),
    ],
)
def test_dag_generator_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("definition", ["comm/comp", "comp/comm", "total"])
@pytest.mark.parametrize("target", [0.1, 1.0, 10.0, 25.0])
@pytest.mark.parametrize("platform", ["mesh:2x3", "single-gpu", "fat-tree:8"])
def test_ccr_targets_are_hit(definition, target, platform):
    # Exactly (to 1e-6) for real-valued data; within 5 % once data are rounded to integers.
    arcs = topcuoglu_dag(40, seed=2)
    weights = "hoft-low" if platform == "single-gpu" else "topcuoglu"
    kwargs = {"weights": weights, "ccr": target, "ccr_definition": definition, "seed": 1}
    p = random_workload(arcs, 40, platform, **kwargs)
    assert ccr(p, definition) == pytest.approx(target, rel=1e-6)
    q = random_workload(arcs, 40, platform, integral=True, w_dag=500.0, **kwargs)
    assert ccr(q, definition) == pytest.approx(target, rel=0.05)


def test_ccr_definitions_relate():
    p = topcuoglu_instance(30, "fully-connected:4", ccr=2.0, seed=0)
    assert p.ccr() == pytest.approx(2.0)  # Problem.ccr is Topcuoglu's definition
    assert ccr(p, "comp/comm") == pytest.approx(0.5)
    assert ccr(p, "total") == pytest.approx(2.0 * p.n_edges / p.n_tasks)


def test_scale_to_ccr_with_latency_and_errors():
    from exactsched import Problem

    p = Problem.from_lists([4, 4], [(0, 1, 0)], n_processors=2)
    assert scale_to_ccr(p, 0.5).edge_data.tolist() == [2.0]  # data 0 -> 1 -> scaled
    with pytest.raises(MethodError, match="ccr: the graph has no edges"):
        scale_to_ccr(Problem.from_lists([1], [], n_processors=2), 1.0)
    with pytest.raises(MethodError, match="no two processors pay communication"):
        scale_to_ccr(Problem.from_lists([1, 1], [(0, 1)], n_processors=1), 1.0)
    with pytest.raises(MethodError, match="ccr_definition: unknown 'x'"):
        scale_to_ccr(p, 1.0, "x")
    with pytest.raises(MethodError, match="ccr: expected a positive number"):
        scale_to_ccr(p, 0)
    doc = p.to_json()
    doc["platform"]["network"] = {"latency": 10}
    with pytest.raises(MethodError, match="latency 10 alone exceeds the target 1"):
        scale_to_ccr(Problem.from_json(doc), 1.0)


@pytest.mark.parametrize(("scheme", "mean"), [("hoft-low", 5), ("hoft-high", 50), ("canon", 15)])
def test_gamma_acceleration(scheme, mean):
    times = gamma_times(40000, scheme, seed=0)
    ratio = times["cpu"] / times["gpu"]
    assert ratio.mean() == pytest.approx(mean, rel=0.05)
    assert ratio.std() == pytest.approx(mean, rel=0.1)  # mean = sd in all three sources
    assert times["gpu"].min() >= 1 and times["gpu"].max() <= 100


def test_weight_schemes_on_platforms():
    arcs = topcuoglu_dag(30, seed=0)
    flops = random_workload(arcs, 30, "titan", weights="flops", ccr=1.0, seed=0)
    assert flops.n_processors == 17
    low = random_workload(arcs, 30, "summit", weights="hoft-high", data="low", seed=0)
    high = random_workload(arcs, 30, "summit", weights="hoft-high", data="high", seed=0)
    assert ccr(high) > 10 * ccr(low)  # high data: communication of the order of CPU times
    with pytest.raises(MethodError, match="needs processor types 'cpu' and 'gpu'"):
        random_workload(arcs, 30, "mesh:2x2", weights="hoft-low")
    with pytest.raises(MethodError, match="weights: unknown scheme 'x'"):
        random_workload(arcs, 30, "mesh:2x2", weights="x")
    with pytest.raises(MethodError, match="low and high regimes need the CPU-GPU"):
        random_workload(arcs, 30, "mesh:2x2", data="low")


@pytest.mark.parametrize(
    "platform", ["fully-connected:4", "mesh:2x2", "torus:2x2x2", "hypercube:4", "fat-tree:4",
                 "cpu-gpu:3+1", "multi-gpu"]
)  # fmt: skip
def test_generated_instances_schedule_validly(platform):
    p = topcuoglu_instance(25, platform, ccr=1.0, beta=1.0, integral=True, seed=4)
    result = solve(p, "heft")
    assert validate(p, result.schedule) == []


@pytest.mark.parametrize(("regime", "kind"), [("low", "gpu"), ("high", "cpu")])
def test_data_regimes_match_the_mean_gpu_or_cpu_time(regime, kind):
    # McSweeney's report, 3.2.3: delays of the order of the mean GPU (low) or CPU (high) time.
    arcs = erdos_renyi_dag(400, 0.02, seed=0)
    p = random_workload(arcs, 400, "titan", weights="hoft-low", data=regime, seed=0)
    delay = p.edge_data / p.bandwidth
    column = p.proc_types.index(kind)
    # Each task's delay is uniform on [0, 2 m]: the mean over sources is m.
    sources = np.unique(p.edge_src)
    per_source = np.array([delay[p.edge_src == s][0] for s in sources])
    assert per_source.max() <= 2 * p.cost[:, column].mean() + 1e-6
    assert per_source.mean() == pytest.approx(p.cost[:, column].mean(), rel=0.15)
    # Every edge out of one task carries the same data.
    assert all(len(set(delay[p.edge_src == s].tolist())) == 1 for s in sources)
