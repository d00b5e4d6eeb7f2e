"""Tests of exactsched.workloads: STG and DOT readers, the tiled Cholesky generator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from exactsched import InstanceError, MethodError, Problem
from exactsched.bounds import class_load_bound, critical_path_bound
from exactsched.workloads import (
    KERNEL_TIMES,
    KERNELS,
    StgOptimum,
    cholesky_dag,
    cholesky_instance,
    read_dot,
    read_dot_optima,
    read_stg,
    read_stg_optima,
)

DATA = Path(__file__).parent / "data"
STG = DATA / "stg"
DOT = DATA / "sinnen-dot"


# ---- STG ------------------------------------------------------------------------------


def test_stg_rand0000_counts_and_costs():
    p = read_stg(STG / "50" / "rand0000.stg", 4)
    assert p.name == "50/rand0000.stg"
    assert p.n_tasks == 52 and p.n_processors == 4
    assert p.task_ids[0] == "t0" and p.task_ids[-1] == "t51"
    # 96 edges plus 23 dummy edges, per the generator's notes in the file.
    assert p.n_edges == 96 + 23
    assert np.all(p.edge_data == 0) and p.network["topology"] == "fully-connected"
    assert p.cost[0, 0] == 0 and p.cost[51, 0] == 0  # dummy entry and exit
    assert p.cost[1].tolist() == [9.0] * 4 and p.cost[10, 0] == 2
    assert p.predecessors(10).tolist() == [2, 6, 8]
    # The notes give the real costs' mean (5.24 over 50 tasks) and the CP length.
    assert p.cost[:, 0].sum() == pytest.approx(5.24 * 50)
    assert critical_path_bound(p) == 55
    assert p.entry_tasks.tolist() == [0] and p.exit_tasks.tolist() == [51]


def test_stg_100_task_file():
    p = read_stg(STG / "100" / "rand0000.stg", 2)
    assert p.n_tasks == 102 and p.name == "100/rand0000.stg"
    assert p.is_integral


def test_stg_unsorted_ids_and_wrapped_record():
    text = "2\n2 4 1 0\n0 0 0\n1 3\n 1 0\n3 0 2\n1 2\n"
    p = read_stg(text, 1)
    assert p.cost[:, 0].tolist() == [0, 3, 4, 0]
    pairs = sorted(zip(p.edge_src.tolist(), p.edge_dst.tolist(), strict=True))
    assert pairs == [(0, 1), (0, 2), (1, 3), (2, 3)]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("# only a comment\n", r"stg:1: file ends before the number of tasks"),
        ("x\n", r"stg:1: the number of tasks: expected an integer, got 'x'"),
        ("1\n0 0 0\n1 2 1 0\n", r"stg:3: file ends before task record 3 of 3"),
        ("1\n0 0 0\n1 -2 1 0\n2 0 1 1\n", r"stg:3: the cost of task 1: negative value -2"),
        ("1\n0 0 0\n1 2.5 1 0\n2 0 1 1\n", r"stg:3: the cost of task 1: expected an integer"),
        ("1\n0 0 0\n5 2 1 0\n2 0 1 1\n", r"stg:3: task id 5 out of range 0..2"),
        ("1\n0 0 0\n0 2 1 0\n2 0 1 1\n", r"stg:3: task 0 appears twice"),
        ("1\n0 0 0\n1 2 1 7\n2 0 1 1\n", r"stg:3: task 1: predecessor 7 is not a task id"),
        ("1\n0 0 0\n1 2 2 0 0\n2 0 1 1\n", r"stg:3: task 1 lists predecessor 0 twice"),
        ("1\n0 0 0\n1 2 1 1\n2 0 1 1\n", r"stg:3: task 1 lists itself"),
        ("1\n0 0 0\n1 2 1 0\n2 0 1 1\n9 9\n", r"stg:5: unexpected '9' after the 3 task records"),
        ("1\n0 0 1 2\n1 2 1 0\n2 0 1 1\n", r"cycle"),
    ],
)
def test_stg_malformed(text, match):
    with pytest.raises(InstanceError, match=match):
        read_stg(text, 2)


def test_stg_bad_processor_count_and_missing_file(tmp_path):
    with pytest.raises(MethodError, match="n_processors"):
        read_stg(STG / "50" / "rand0000.stg", 0)
    with pytest.raises(InstanceError, match="cannot read file"):
        read_stg(tmp_path / "missing.stg", 2)


def test_stg_optima_sample():
    rows = read_stg_optima(STG / "optima.csv")
    assert len(rows) == 33
    assert rows[0] == StgOptimum("50/rand0000.stg", 2, 131)
    open_rows = [r for r in rows if not r.proven]
    assert [(r.file, r.n_processors, r.lower, r.upper) for r in open_rows] == [
        ("50/rand0133.stg", 4, 122, 124),
        ("100/rand0012.stg", 2, 296, 312),
    ]
    # Every graph named in the CSV is in the folder.
    assert all((STG / r.file).is_file() for r in rows)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("a.stg,2\n", r"optima:1: expected 'file,P,OPT'"),
        ("a.stg,two,5\n", r"optima:1: P: expected an integer"),
        ("a.stg,2,9,5\n", r"optima:1: LB 9 > UB 5"),
        ("# c\n\na.stg,0,3\n", r"optima:3: P must be >= 1"),
    ],
)
def test_stg_optima_malformed(text, match):
    with pytest.raises(InstanceError, match=match):
        read_stg_optima(text)


# ---- DOT ------------------------------------------------------------------------------

DOT_COUNTS = {
    # file: (tasks, edges, total work, graph name prefix)
    "Nodes_7_OutTree.dot": (7, 6, 40, "OutTree-Balanced-MaxBf-3_Nodes_7_CCR_2.0"),
    "Nodes_8_Random.dot": (8, 16, 969, "Random_Nodes_8_Density_2.0"),
    "Nodes_9_SeriesParallel.dot": (9, 12, 55, "SeriesParallel-MaxBf-3_Nodes_9"),
    "Nodes_10_Random.dot": (10, 19, 63, "Random_Nodes_10_Density_1.90"),
    "Nodes_11_OutTree.dot": (11, 10, 640, "OutTree-Balanced-MaxBf-3_Nodes_11"),
}


@pytest.mark.parametrize("name", sorted(DOT_COUNTS))
def test_dot_files(name):
    n_tasks, n_edges, work, prefix = DOT_COUNTS[name]
    p = read_dot(DOT / name, 3)
    assert (p.n_tasks, p.n_edges, p.n_processors) == (n_tasks, n_edges, 3)
    assert p.cost[:, 0].sum() == work
    assert p.name.startswith(prefix)
    assert p.task_ids == tuple(str(k) for k in range(n_tasks))  # sorted by number


def test_dot_weights_are_costs_and_communication():
    p = read_dot(DOT / "Nodes_10_Random.dot", 2)
    assert p.cost[:, 0].tolist() == [6, 5, 5, 10, 3, 7, 8, 3, 8, 8]
    a = next(k for k in range(p.n_edges) if (p.arc_src[k], p.arc_dst[k]) == (0, 3))
    assert p.comm(a, 0, 1) == 34 and p.comm(a, 1, 1) == 0
    assert read_dot(DOT / "Nodes_10_Random.dot", 2, name="x").name == "x"


def test_dot_subset_features():
    text = """/* header */ strict digraph G {
      node [Weight=1];   // default node weight
      edge [Weight=2];
      rankdir = LR;
      "a b" -> c -> d [Weight=7];
      c [Weight="4"];
      # a preprocessor-style line
      e;
    }"""
    p = read_dot(text, 2)
    assert p.task_ids == ("a b", "c", "d", "e")  # first appearance (names not numbers)
    assert p.cost[:, 0].tolist() == [1, 4, 1, 1]
    assert p.edge_data.tolist() == [7, 7]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("graph {\n a; }", r"dot:1: expected 'digraph'"),
        ("digraph {\n a [Weight=1];\n a -- b;\n}", r"dot:3: '--' is an undirected edge"),
        ("digraph {\n a [Weight=1]\n", r"dot:3: expected '\}' before the end"),
        ("digraph {\n a [Weight=x];\n}", r"dot:2: node 'a': Weight must be a number, got 'x'"),
        ("digraph {\n a [Weight=-1];\n}", r"dot:2: node 'a': Weight must be finite and >= 0"),
        ("digraph {\n a [Weight=1];\n a -> b;\n}", r"dot:3: node 'b' has no Weight"),
        ("digraph {\n a [Weight=1];\n a -> a;\n}", r"dot:3: self loop on node 'a'"),
        ("digraph {\n a[Weight=1];b[Weight=1];\n a -> b;\n a -> b;\n}", r"dot:4: edge 'a' -> 'b'"),
        ("digraph {\n subgraph s { a; }\n}", r"dot:2: subgraphs are not supported"),
        ("digraph {\n a:p1 -> b;\n}", r"dot:2: ports"),
        ("digraph {\n a [Weight=1;\n}", r"dot:3: expected an attribute name or '\]'"),
        ("digraph {\n a [Weight=1] ! \n}", r"dot:2: unexpected character '!'"),
        (
            "digraph {\n a [Weight=1e3];\n}",
            r"dot:2: unexpected character '1' in '1e3' \(a DOT "
            r"number has no exponent: quote it",
        ),
        (
            'digraph {\n a [Weight="1e-400"];\n}',
            r"dot:2: node 'a': Weight: the number 1e-400 "
            r"is below the smallest positive float .* would read as 0",
        ),
        ("digraph {\n}", r"dot:1: the graph has no nodes"),
        ("digraph { a [Weight=1]; }\n extra", r"dot:2: unexpected 'extra' after the graph"),
        ("digraph {\n a[Weight=1]; b[Weight=1];\n a -> b; b -> a;\n}", r"cycle"),
    ],
)
def test_dot_malformed(text, match):
    with pytest.raises(InstanceError, match=match):
        read_dot(text, 2)


def test_dot_optima_table():
    table = read_dot_optima(DOT / "OPTIMA.txt")
    assert len(table) == 15
    for name in DOT_COUNTS:
        # One processor: the optimum is the total work.
        assert table[(name, 1)] == DOT_COUNTS[name][2]
    with pytest.raises(InstanceError, match=r"optima:2: expected 'file P optimum'"):
        read_dot_optima("a.dot 1 2\na.dot x 3\n")
    with pytest.raises(InstanceError, match=r"optima:2: a.dot with P = 1 appears twice"):
        read_dot_optima("a.dot 1 2\na.dot 1 3\n")


# ---- Cholesky ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 9))
def test_cholesky_task_counts(n):
    ids, kernels, edges = cholesky_dag(n)
    assert len(ids) == n * (n + 1) * (n + 2) // 6
    assert kernels.count("POTRF") == n
    assert kernels.count("TRSM") == kernels.count("SYRK") == n * (n - 1) // 2
    assert kernels.count("GEMM") == n * (n - 1) * (n - 2) // 6
    assert len(set(ids)) == len(ids)
    # The listing order is topological.
    assert all(a < b for a, b in edges)


def test_cholesky_edge_counts():
    # 60 edges for N = 5, as the HOFT simulator's 35-task DAG; 252 for N = 8.
    assert [len(cholesky_dag(n)[2]) for n in (1, 2, 5, 8)] == [0, 3, 60, 252]


def test_cholesky_structure():
    ids, kernels, edges = cholesky_dag(4)
    idx = {t: i for i, t in enumerate(ids)}
    preds = {t: sorted(ids[a] for a, b in edges if b == idx[t]) for t in ids}
    assert preds["potrf_0"] == []
    assert preds["potrf_2"] == ["syrk_2_1"]  # the last update of the diagonal tile
    assert preds["trsm_3_1"] == ["gemm_3_1_0", "potrf_1"]
    assert preds["syrk_3_1"] == ["syrk_3_0", "trsm_3_1"]
    assert preds["gemm_3_2_1"] == ["gemm_3_2_0", "trsm_2_1", "trsm_3_1"]
    assert preds["gemm_2_1_0"] == ["trsm_1_0", "trsm_2_0"]
    assert max(len(v) for v in preds.values()) == 3
    # A single entry (potrf_0) and a single exit (potrf_{N-1}).
    succs = {t for a, _ in edges for t in [ids[a]]}
    assert [t for t in ids if not preds[t]] == ["potrf_0"]
    assert [t for t in ids if t not in succs] == ["potrf_3"]


def test_cholesky_instance_costs_and_platform():
    p = cholesky_instance(3)
    assert p.n_tasks == 10 and p.n_processors == 8
    assert p.proc_types == ("cpu",) * 7 + ("gpu",)
    assert p.network["topology"] == "accelerated-node" and p.is_integral
    times = KERNEL_TIMES[1024]
    example = {"POTRF": "potrf_1", "TRSM": "trsm_2_0", "SYRK": "syrk_2_1", "GEMM": "gemm_2_1_0"}
    for kernel in KERNELS:
        task = p.task_ids.index(example[kernel])
        assert p.cost[task, 0] == round(times[kernel]["cpu"])
        assert p.cost[task, 7] == round(times[kernel]["gpu"])
    # GEMM is ~93 times faster on the GPU; POTRF only ~14 times.
    gemm = p.task_ids.index("gemm_2_1_0")
    assert p.cost[gemm, 0] / p.cost[gemm, 7] > 90
    # An edge carries the transfer time of its destination's kernel; CPU-CPU is free.
    a = next(k for k in range(p.n_edges) if p.task_ids[p.arc_dst[k]] == "gemm_2_1_0")
    assert p.comm(a, 0, 1) == 0 and p.comm(a, 0, 7) == round(times["GEMM"]["transfer"])


def test_cholesky_options():
    floats = cholesky_instance(2, tile_size=128, integral=False)
    assert not floats.is_integral
    assert floats.cost[0, 7] == pytest.approx(KERNEL_TIMES[128]["POTRF"]["gpu"])
    free = cholesky_instance(2, communication=False)
    assert np.all(free.edge_data == 0)
    multi = cholesky_instance(2, "hoft-multi-gpu")
    assert multi.n_processors == 32 and multi.proc_types.count("gpu") == 4
    custom = cholesky_instance(
        2, {"processors": [{"id": "c", "type": "cpu"}, {"id": "g", "type": "gpu"}]}, name="x"
    )
    assert custom.name == "x" and custom.n_processors == 2
    assert cholesky_instance(2).name == "cholesky-N2-nb1024"


def test_cholesky_calibration_n8_single_gpu():
    p = cholesky_instance(8)
    assert p.n_tasks == 120
    # Class-load bound of the published kernel means; everything on the GPU is an
    # upper bound (no transfer at all).
    assert class_load_bound(p) == pytest.approx(52551.3, abs=1)
    assert p.cost[:, 7].sum() == 71864


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_tiles": 0}, "n_tiles"),
        ({"n_tiles": 2.0}, "n_tiles"),
        ({"n_tiles": 2, "tile_size": 256}, r"tile_size: no timing data for 256; known: 128, 1024"),
        ({"n_tiles": 2, "platform": "nope"}, r"platform: unknown platform preset"),
        ({"n_tiles": 2, "platform": {"processors": [{"id": "x"}]}}, r"processor types"),
        ({"n_tiles": 2, "platform": {"processors": []}}, r"non-empty list"),
        ({"n_tiles": 2, "platform": 3}, r"platform: expected a preset name"),
    ],
)
def test_cholesky_bad_options(kwargs, match):
    with pytest.raises(MethodError, match=match):
        cholesky_instance(**kwargs)


# ---- examples -----------------------------------------------------------------------------

EXAMPLES = Path(__file__).parent.parent / "examples"


def test_example_cholesky_n4_single_gpu():
    from exactsched import load_instance

    p = load_instance(EXAMPLES / "cholesky-n4-single-gpu.json")
    # The name is the one `exactsched generate` gives (examples/README.md).
    assert p == cholesky_instance(4, name="cholesky-N4-nb1024-single-gpu")


def test_example_mesh_isolation():
    from exactsched import load_instance

    p = load_instance(EXAMPLES / "mesh-isolation.json")
    assert isinstance(p, Problem)
    assert p.network["topology"] == "mesh" and p.network["dims"] == [2, 2]
    assert len(p.iso_a) > 0 and len(p.order_src) > 0
    assert not p.allowed.all()  # some task has an affinity


def test_readers_accept_crlf_line_endings():
    stg = read_stg("1\r\n0 0 0\r\n1 4 1 0\r\n2 0 1 1\r\n", 1)
    assert stg.cost[:, 0].tolist() == [0, 4, 0]
    dot = read_dot(
        'digraph "g" {\r\n  a [Weight=2];\r\n  b [Weight=1];\r\n  a -> b [Weight=3];\r\n}', 2
    )
    assert dot.edge_data.tolist() == [3]


def test_dot_optima_wide_table_matches_the_long_one(tmp_path) -> None:
    # The layout of shared/data/sinnen-dot/OPTIMA.txt: a header "graph P=1 P=2 P=4".
    wide = tmp_path / "OPTIMA.txt"
    wide.write_text(
        "# graph   P=1 P=2 P=4   (optimal makespans)\n"
        "Nodes_7_OutTree  40 28 22\n"
        "Nodes_11_OutTree 640 350 227\n"
    )
    table = read_dot_optima(wide)
    long = read_dot_optima(DATA / "sinnen-dot" / "OPTIMA.txt")
    assert table[("Nodes_7_OutTree.dot", 4)] == 22 and len(table) == 6
    assert all(long[key] == value for key, value in table.items() if key in long)
    with pytest.raises(InstanceError, match=r"OPTIMA.txt:2: expected 'graph' and 3 optima"):
        wide.write_text("# graph P=1 P=2 P=4\nNodes_7_OutTree 40 28\n")
        read_dot_optima(wide)


@pytest.mark.parametrize(("tiles", "published"), [(5, 20.78), (10, 19.06)])
def test_the_hoft_ccr_is_the_hoft_simulators(tiles, published):
    # An outside audit: the HOFT paper's CCR figures are its simulator's
    # (DAG.compute_CCR: sums, each edge's mean over all P^2 pairs), not the mean
    # computation over mean communication its text names (31.2 and 37.5 here).
    from exactsched.workloads.cholesky import cholesky_instance
    from exactsched.workloads.weights import ccr

    p = cholesky_instance(tiles, "hoft-single-gpu", tile_size=1024, integral=False)
    assert round(ccr(p, "hoft"), 2) == published
    assert ccr(p, "hoft") == pytest.approx(8 / (7 * ccr(p, "total")))


@pytest.mark.parametrize("target", [0.5, 20.0, 35.0])
def test_generate_hits_a_hoft_ccr(target):
    from exactsched.workloads.weights import ccr, scale_to_ccr

    p = Problem.from_lists([[2, 1], [4, 2], [3, 3]], [(0, 1, 1), (0, 2, 2)], n_processors=2)
    q = scale_to_ccr(p, target, "hoft")
    assert ccr(q, "hoft") == pytest.approx(target, rel=1e-6)


def test_the_data_regimes_average_the_real_tasks_only():
    # An outside audit: an STG graph's zero-cost dummies took the mean m low.
    from exactsched.workloads.weights import data_regime

    times = {"cpu": np.array([0.0, 50.0, 50.0, 0.0]), "gpu": np.array([0.0, 4.0, 4.0, 0.0])}
    edges = [(1, 2)] * 2000
    dummy = np.array([True, False, False, True])
    wide = data_regime(edges, 4, times, "low", seed=0, dummy=dummy)
    narrow = data_regime(edges, 4, times, "low", seed=0)
    assert wide[0] == pytest.approx(2 * narrow[0])  # m = 4, not 2: the same draw doubled
    assert 0 <= wide[0] <= 8


def test_a_huge_hoft_target_is_not_blamed_on_the_latency():
    # A review: target * share * edges overflowed, and the refusal named a latency of 0.
    from exactsched.workloads.weights import ccr, scale_to_ccr

    p = Problem.from_lists([[2, 1], [4, 2]], [(0, 1, 1)], n_processors=2)
    assert ccr(scale_to_ccr(p, 1e300, "hoft"), "hoft") == pytest.approx(1e300, rel=1e-6)
    assert ccr(Problem.from_lists([1, 1], [(0, 1, 1)], n_processors=1), "hoft") == float("inf")
