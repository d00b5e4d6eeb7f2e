"""Tiled Cholesky, QR and LU task graphs and their flop-based weights."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from exactsched import MethodError, Problem, solve, validate
from exactsched.workloads import cholesky_dag, lu_dag, qr_dag, tiled_instance
from exactsched.workloads.weights import KERNEL_FLOPS
from topologies.presets import PRESET_HARDWARE


def named_edges(builder, n):
    ids, _, edges = builder(n)
    return ids, {(ids[a], ids[b]) for a, b in edges}


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 10])
def test_cholesky_count_formula(n):
    ids, kernels, edges = cholesky_dag(n)
    assert len(ids) == n * (n + 1) * (n + 2) // 6
    assert kernels.count("POTRF") == n and kernels.count("GEMM") == n * (n - 1) * (n - 2) // 6


def test_cholesky_n50_has_22100_tasks():
    # McSweeney, Walton, Zounon (ICCS 2020): Cholesky DAGs of 35 to 22,100 tasks, N = 5..50.
    assert len(cholesky_dag(5)[0]) == 35
    assert len(cholesky_dag(50)[0]) == 22100


def test_cholesky_n2_as_in_figure_3_1():
    # McSweeney's report, Algorithm 3.1 on a 2 x 2 tile matrix: POTRF, TRSM, SYRK, POTRF.
    ids, edges = named_edges(cholesky_dag, 2)
    assert ids == ["potrf_0", "trsm_1_0", "syrk_1_0", "potrf_1"]
    assert edges == {("potrf_0", "trsm_1_0"), ("trsm_1_0", "syrk_1_0"), ("syrk_1_0", "potrf_1")}


def test_cholesky_n3_as_in_figure_3_1():
    # Figure 3.1 of McSweeney's report: the 10-task DAG of a 3 x 3 tile matrix.
    ids, edges = named_edges(cholesky_dag, 3)
    assert sorted(ids) == sorted(
        ["potrf_0", "trsm_1_0", "trsm_2_0", "syrk_1_0", "syrk_2_0", "gemm_2_1_0",
         "potrf_1", "trsm_2_1", "syrk_2_1", "potrf_2"]
    )  # fmt: skip
    assert edges == {
        ("potrf_0", "trsm_1_0"), ("potrf_0", "trsm_2_0"),
        ("trsm_1_0", "syrk_1_0"), ("trsm_2_0", "syrk_2_0"),
        ("trsm_1_0", "gemm_2_1_0"), ("trsm_2_0", "gemm_2_1_0"),
        ("syrk_1_0", "potrf_1"), ("potrf_1", "trsm_2_1"), ("gemm_2_1_0", "trsm_2_1"),
        ("trsm_2_1", "syrk_2_1"), ("syrk_2_0", "syrk_2_1"), ("syrk_2_1", "potrf_2"),
    }  # fmt: skip


@pytest.mark.parametrize("builder", [qr_dag, lu_dag])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_qr_lu_counts(builder, n):
    ids, kernels, edges = builder(n)
    assert len(ids) == n * (n + 1) * (2 * n + 1) // 6
    # Every task but the first has 1 to 3 predecessors; the ids are a topological order.
    g = nx.DiGraph(edges)
    g.add_nodes_from(range(len(ids)))
    assert nx.is_directed_acyclic_graph(g) and all(a < b for a, b in edges)
    assert len(set(edges)) == len(edges)
    assert [g.in_degree(i) for i in range(len(ids))].count(0) == 1
    assert max(dict(g.in_degree()).values(), default=0) <= 3
    # Step k (r = N - k - 1): the diagonal task, 2r panel tasks with 1 input each and
    # r^2 updates with 2; from step 1 on, every task also follows the last update of its tile.
    expected = sum(2 * r + 2 * r * r + (k > 0) * (r + 1) ** 2 for k, r in
                   ((k, n - k - 1) for k in range(n)))  # fmt: skip
    assert len(edges) == expected


def _writes(task):
    """Tiles written by a task, from its name (module docstrings of qr.py and lu.py)."""
    kind, *idx = task.split("_")
    idx = [int(x) for x in idx]
    if kind in ("getrf", "geqrt", "potrf"):
        return [(idx[0], idx[0])]
    if kind == "trsm":
        return [(idx[0], idx[1])]
    if kind == "gemm":
        return [(idx[0], idx[1])]
    if kind == "unmqr":
        return [(idx[0], idx[1])]
    if kind == "tsqrt":
        return [(idx[1], idx[1]), (idx[0], idx[1])]
    if kind == "tsmqr":
        return [(idx[2], idx[1]), (idx[0], idx[1])]
    raise AssertionError(task)


@pytest.mark.parametrize("builder", [qr_dag, lu_dag])
def test_writers_of_each_tile_are_ordered(builder):
    # Data-flow soundness: two tasks writing the same tile are joined by a path.
    ids, _, edges = builder(4)
    g = nx.DiGraph(edges)
    closure = nx.transitive_closure_dag(g)
    writers = {}
    for i, task in enumerate(ids):
        for tile in _writes(task):
            writers.setdefault(tile, []).append(i)
    for tasks in writers.values():
        for a, b in itertools.combinations(tasks, 2):
            assert closure.has_edge(a, b), (ids[a], ids[b])


def test_qr_lu_n2_exact():
    _, edges = named_edges(lu_dag, 2)
    assert edges == {
        ("getrf_0", "trsm_0_1"), ("getrf_0", "trsm_1_0"), ("trsm_1_0", "gemm_1_1_0"),
        ("trsm_0_1", "gemm_1_1_0"), ("gemm_1_1_0", "getrf_1"),
    }  # fmt: skip
    _, edges = named_edges(qr_dag, 2)
    assert edges == {
        ("geqrt_0", "unmqr_0_1"), ("geqrt_0", "tsqrt_1_0"), ("tsqrt_1_0", "tsmqr_1_1_0"),
        ("unmqr_0_1", "tsmqr_1_1_0"), ("tsmqr_1_1_0", "geqrt_1"),
    }  # fmt: skip


@pytest.mark.parametrize("algorithm", ["cholesky", "qr", "lu"])
@pytest.mark.parametrize("preset", ["single-gpu", "multi-gpu", "titan", "summit"])
def test_flop_weights_without_noise(algorithm, preset):
    b = 64
    p = tiled_instance(algorithm, 3, preset, tile_size=b, noise=(1, 1))
    hw = PRESET_HARDWARE[{"single-gpu": "hoft-single-gpu", "multi-gpu": "hoft-multi-gpu"}.get(
        preset, preset)]  # fmt: skip
    for i, task in enumerate(p.task_ids):
        kernel = {"potrf": "POTRF", "trsm": "TRSM", "syrk": "SYRK", "gemm": "GEMM",
                  "getrf": "GETRF", "geqrt": "GEQRT", "unmqr": "UNMQR", "tsqrt": "TSQRT",
                  "tsmqr": "TSMQR"}[task.split("_")[0]]  # fmt: skip
        flops = KERNEL_FLOPS[kernel](b)
        cpu = p.proc_types.index("cpu")
        gpu = p.proc_types.index("gpu")
        assert p.cost[i, cpu] == pytest.approx(flops / hw.cpu, rel=1e-5)
        assert p.cost[i, gpu] == pytest.approx(flops / hw.gpu, rel=1e-5, abs=1e-6)
    # Data: one b x b tile of 8-byte doubles; communication at the preset's bandwidth.
    assert (p.edge_data == b * b * 8).all()
    assert p.bandwidth == hw.bandwidth
    assert p.to_json()["platform"]["preset"] == preset


def test_gemm_is_2b3_flops():
    assert KERNEL_FLOPS["GEMM"](100) == 2e6


def test_noise_factor_within_bounds_and_seeded():
    lower = tiled_instance("cholesky", 4, "summit", noise=(1, 1))
    a = tiled_instance("cholesky", 4, "summit", seed=3)
    ratio = a.cost / lower.cost
    assert ratio.min() >= 1 - 1e-6 and ratio.max() <= 10 + 1e-6
    assert a == tiled_instance("cholesky", 4, "summit", seed=3)
    assert a != tiled_instance("cholesky", 4, "summit", seed=4)
    # CPU and GPU factors are drawn independently: the CPU/GPU ratio varies.
    assert len(set(np.round(a.cost[:, 0] / a.cost[:, -1], 6))) > 1


def test_custom_platform_needs_rates():
    platform = {"preset": "titan", "network": {"bandwidth": 100}}
    p = tiled_instance("lu", 2, platform, noise=(1, 1), tile_size=10)
    assert p.bandwidth == 100
    custom = {"processors": [{"id": "a", "type": "cpu"}, {"id": "b", "type": "gpu"}]}
    with pytest.raises(MethodError, match="rates: the platform is not a preset"):
        tiled_instance("qr", 2, custom)
    q = tiled_instance("qr", 2, custom, rates={"cpu": 1.0, "gpu": 10.0}, noise=(1, 1), tile_size=3)
    assert q.cost[0].tolist() == pytest.approx([36.0, 3.6])  # GEQRT 4/3 b^3 = 36 flops
    with pytest.raises(MethodError, match="rates: no peak rate for processor type 'gpu'"):
        tiled_instance("qr", 2, custom, rates={"cpu": 1.0})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"algorithm": "svd"}, "algorithm: unknown 'svd'; known: cholesky, lu, qr"),
        ({"n_tiles": 0}, "n_tiles: expected a positive integer"),
        ({"tile_size": 0}, "tile_size: expected a positive integer"),
        ({"noise": (5, 1)}, r"noise: expected 0 < l <= u, got \(5, 1\)"),
        ({"precision": 0}, "precision: expected a positive integer"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = {"algorithm": "cholesky", "n_tiles": 2} | kwargs
    with pytest.raises(MethodError, match=match):
        tiled_instance(args.pop("algorithm"), args.pop("n_tiles"), **args)


def test_integral_and_schedulable():
    p = tiled_instance("cholesky", 4, "single-gpu", tile_size=512, integral=True, seed=0)
    assert p.is_integral
    for method in ("heft", "hoft"):
        result = solve(p, method)
        assert validate(p, result.schedule) == []
    assert isinstance(Problem.from_json(p.to_json()), Problem)


@pytest.mark.parametrize(
    "options", [{"tile_size": 1}, {"tile_size": 2, "noise": (1e-300, 1e-300)}]
)
def test_a_positive_tiled_time_is_never_written_as_zero(options):
    # Six places wrote GPU times of tile size 1 as 0 (an outside audit, session 17):
    # the times keep significant digits on one decimal grid instead.
    p = tiled_instance("cholesky", 6, **options)
    assert (p.cost > 0).all()
    assert validate(p, solve(p, "heft").schedule) == []
