"""The Problem arrays agree with the document they come from.

For random valid documents (the hypothesis strategy of ``test_instance.py``) the
cost matrix (``inf`` outside affinity), the hop matrix of every topology
(recomputed here from the definitions of the instance format, independently of
the ``topologies`` package), ``arc_unit = latency + data / bandwidth`` and the
CSR adjacency are checked entry by entry. Then the small methods, on tiny
hand-made problems with exact expected values.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from test_instance import documents, quiet_load

import exactsched
from exactsched import InstanceError, InstanceWarning, MethodError, Problem, load_instance

# ---- an independent reading of the document -----------------------------------------


def reference_hops(network: dict | None, types: list[str]) -> np.ndarray:
    """hops(p, q) from the table "Networks" of docs/instance-format.md."""
    network = network or {}
    topology = network.get("topology", "fully-connected")
    n = len(types)
    hops = np.zeros((n, n))
    for p, q in itertools.product(range(n), repeat=2):
        if p == q:
            continue
        if topology == "fully-connected":
            h = 1
        elif topology in ("mesh", "torus"):
            dims = network["dims"]
            cp, cq = np.unravel_index(p, dims), np.unravel_index(q, dims)  # row-major
            h = 0
            for a, b, size in zip(cp, cq, dims, strict=True):
                d = abs(int(a) - int(b))
                h += min(d, size - d) if topology == "torus" else d
        elif topology == "hypercube":
            h = bin(p ^ q).count("1")
        elif topology == "fat-tree":
            arity = network.get("arity", 2)
            level = 1
            while p // arity**level != q // arity**level:
                level += 1
            h = 2 ** (level - 1)
        elif topology == "accelerated-node":
            h = 0 if types[p] == types[q] == "cpu" else 1
        elif topology == "matrix":
            h = network["hops"][p][q]
        else:  # pragma: no cover
            raise AssertionError(topology)
        hops[p, q] = h
    return hops


def reference_arrays(doc: dict) -> dict:
    procs = doc["platform"]["processors"]
    proc_ids = [p["id"] for p in procs]
    types = [p.get("type", "default") for p in procs]
    tasks = doc["tasks"]
    index = {t["id"]: i for i, t in enumerate(tasks)}
    n, n_procs = len(tasks), len(procs)
    cost = np.full((n, n_procs), math.inf)
    for i, task in enumerate(tasks):
        allowed = [proc_ids.index(p) for p in task.get("processors", proc_ids)]
        for k in allowed:
            c = task["cost"]
            if isinstance(c, dict):
                cost[i, k] = c[types[k]]
            elif isinstance(c, list):
                cost[i, k] = c[k]
            else:
                cost[i, k] = c
    network = doc["platform"].get("network") or {}
    latency = network.get("latency", 0)
    bandwidth = network.get("bandwidth", 1)
    arcs = []  # (src, dst, unit)
    for edge in doc.get("edges", []):
        unit = latency + edge.get("data", 0) / bandwidth
        arcs.append((index[edge["src"]], index[edge["dst"]], unit))
    edge_pairs = {(a, b) for a, b, _ in arcs}
    for a, b in doc.get("order", []):
        pair = (index[a], index[b])
        if pair not in edge_pairs:
            arcs.append((*pair, 0.0))
            edge_pairs.add(pair)
    iso = set()
    for a, b in doc.get("isolation", []):
        iso.add(frozenset((index[a], index[b])))
    return {
        "cost": cost,
        "hops": reference_hops(network, types),
        "arcs": arcs,
        "iso": iso,
        "latency": latency,
        "bandwidth": bandwidth,
    }


SETTINGS = settings(
    max_examples=50,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(documents())
def test_arrays_match_the_document(doc):
    problem = quiet_load(doc)
    ref = reference_arrays(doc)
    n, n_procs = problem.n_tasks, problem.n_processors

    assert problem.task_ids == tuple(t["id"] for t in doc["tasks"])
    assert problem.proc_ids == tuple(p["id"] for p in doc["platform"]["processors"])
    assert problem.cost.shape == (n, n_procs) and problem.cost.dtype == float
    np.testing.assert_array_equal(problem.cost, ref["cost"])
    np.testing.assert_array_equal(problem.allowed, np.isfinite(ref["cost"]))
    assert problem.allowed.any(axis=1).all()
    np.testing.assert_allclose(problem.hops, ref["hops"], rtol=0, atol=0)
    assert problem.latency == ref["latency"] and problem.bandwidth == ref["bandwidth"]

    # Arcs: edges first in document order, then the new order pairs.
    arcs = list(zip(problem.arc_src.tolist(), problem.arc_dst.tolist(), strict=True))
    assert arcs == [(a, b) for a, b, _ in ref["arcs"]]
    assert problem.n_edges == len(ref["arcs"])
    np.testing.assert_allclose(problem.arc_unit, [u for *_, u in ref["arcs"]], rtol=1e-15)
    n_data = len(doc.get("edges", []))
    assert len(problem.edge_src) == n_data
    np.testing.assert_array_equal(problem.arc_unit[n_data:], 0)
    for a in range(problem.n_edges):
        np.testing.assert_allclose(problem.comm_matrix(a), problem.arc_unit[a] * ref["hops"])
        p, q = divmod(a, n_procs) if n_procs > 1 else (0, 0)
        assert problem.comm(a, p % n_procs, q) == pytest.approx(
            problem.arc_unit[a] * ref["hops"][p % n_procs, q]
        )

    # CSR adjacency holds every arc exactly once, on both sides.
    for ptr, items, side in (
        (problem.pred_ptr, problem.pred_arcs, problem.arc_dst),
        (problem.succ_ptr, problem.succ_arcs, problem.arc_src),
    ):
        assert ptr[0] == 0 and ptr[-1] == problem.n_edges and len(ptr) == n + 1
        assert np.all(np.diff(ptr) >= 0)
        assert sorted(items.tolist()) == list(range(problem.n_edges))
        for j in range(n):
            assert np.all(side[items[ptr[j] : ptr[j + 1]]] == j)
    for j in range(n):
        preds = sorted(a for a, b, _ in ref["arcs"] if b == j)
        succs = sorted(b for a, b, _ in ref["arcs"] if a == j)
        assert sorted(problem.predecessors(j).tolist()) == preds
        assert sorted(problem.successors(j).tolist()) == succs
    assert set(problem.entry_tasks.tolist()) == {j for j in range(n) if not any(
        b == j for _, b, _ in ref["arcs"])}  # fmt: skip
    assert set(problem.exit_tasks.tolist()) == {j for j in range(n) if not any(
        a == j for a, _, _ in ref["arcs"])}  # fmt: skip

    # A topological order respecting every arc.
    position = {int(t): k for k, t in enumerate(problem.topological_order)}
    assert sorted(position) == list(range(n))
    assert all(position[a] < position[b] for a, b, _ in ref["arcs"])

    # Isolation partners are symmetric and hold the distinct pairs.
    pairs = {
        frozenset(p) for p in zip(problem.iso_a.tolist(), problem.iso_b.tolist(), strict=True)
    }
    assert pairs == ref["iso"] and len(problem.iso_a) == len(ref["iso"])
    for i in range(n):
        expected = sorted(next(iter(p - {i})) for p in ref["iso"] if i in p)
        assert sorted(problem.isolation_partners(i).tolist()) == expected

    # Every array is read-only.
    for name in ("cost", "allowed", "hops", "arc_src", "arc_unit", "pred_ptr", "iso_a"):
        assert not getattr(problem, name).flags.writeable


# ---- hand-made problems -----------------------------------------------------------


@pytest.mark.parametrize(
    "network, types, row0",
    [
        ({"topology": "fully-connected"}, ["cpu"] * 4, [0, 1, 1, 1]),
        ({"topology": "mesh", "dims": [2, 3]}, ["cpu"] * 6, [0, 1, 2, 1, 2, 3]),
        ({"topology": "mesh", "dims": [6]}, ["cpu"] * 6, [0, 1, 2, 3, 4, 5]),
        ({"topology": "torus", "dims": [6]}, ["cpu"] * 6, [0, 1, 2, 3, 2, 1]),
        ({"topology": "torus", "dims": [2, 3]}, ["cpu"] * 6, [0, 1, 1, 1, 2, 2]),
        ({"topology": "hypercube"}, ["cpu"] * 8, [0, 1, 1, 2, 1, 2, 2, 3]),
        ({"topology": "fat-tree"}, ["cpu"] * 8, [0, 1, 2, 2, 4, 4, 4, 4]),
        ({"topology": "fat-tree", "arity": 3}, ["cpu"] * 9, [0, 1, 1, 2, 2, 2, 2, 2, 2]),
        ({"topology": "accelerated-node"}, ["cpu", "cpu", "gpu", "gpu"], [0, 0, 1, 1]),
        (
            {"topology": "matrix", "hops": [[0, 0.5, 2], [1, 0, 1], [3, 3, 0]]},
            ["x"] * 3,
            [0, 0.5, 2],
        ),
    ],
)
def test_hops_of_every_topology(network, types, row0):
    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"p{k}", "type": t} for k, t in enumerate(types)],
            "network": network,
        },
        "tasks": [{"id": "a", "cost": 1}],
    }
    problem = load_instance(doc)
    assert problem.hops[0].tolist() == row0
    np.testing.assert_array_equal(problem.hops, reference_hops(network, types))
    assert np.all(np.diagonal(problem.hops) == 0)
    assert problem.to_json() == doc and load_instance(problem.to_json()) == problem


def test_multi_hop_latency_and_bandwidth():
    problem = Problem.from_lists(
        [[1] * 4, [1] * 4],
        [(0, 1, 6)],
        network={"topology": "mesh", "dims": [2, 2], "latency": 0.5, "bandwidth": 4},
    )
    assert problem.arc_unit.tolist() == [0.5 + 6 / 4]
    assert problem.comm(0, 0, 3) == 2 * 2.0  # opposite corners: 2 hops
    assert problem.comm(0, 0, 1) == 2.0
    assert problem.comm(0, 2, 2) == 0.0


def test_from_lists_forms():
    p = Problem.from_lists([3, 2], [(0, 1)], n_processors=2, name="x")
    assert p.cost.tolist() == [[3, 3], [2, 2]] and p.name == "x"
    assert p.edge_data.tolist() == [0]
    with pytest.warns(InstanceWarning, match=r"^isolation\[0\]: .* already ordered"):
        q = Problem.from_lists(
            np.array([[1.0, 2.0], [3.0, 4.0]]),
            np.array([[0, 1, 5]]),
            order=[(0, 1)],
            isolation=np.array([[1, 0]]),
            affinity={np.int64(1): np.array([1])},
            network={"topology": "torus", "dims": np.array([2])},
        )
    assert q.iso_a.tolist() == [1] and q.iso_b.tolist() == [0]
    assert q.cost.tolist() == [[1, 2], [math.inf, 4]]
    assert q.to_json()["platform"]["network"]["dims"] == [2]
    assert q.edge_data.tolist() == [5] and q.n_edges == 1
    doc = q.to_json()
    assert doc["tasks"][1] == {"id": "t1", "cost": [3.0, 4.0], "processors": ["p1"]}
    assert quiet_load(doc) == q
    with pytest.raises(TypeError, match="n_processors"):
        Problem.from_lists([1, 2])
    with pytest.raises(InstanceError, match=r"^tasks: must not be empty$"):
        Problem.from_lists([], n_processors=2)
    with pytest.raises(InstanceError, match=r"^tasks\[1\]\.cost: list has 1 numbers, expected 2"):
        Problem.from_lists([[1, 2], [3]])
    with pytest.raises(InstanceError, match=r"^edges\[0\]: cycle"):
        Problem.from_lists([1, 1], [(0, 1), (1, 0)], n_processors=1)


def test_from_networkx():
    graph = nx.DiGraph(name="g", isolation=[(2, 3)])
    graph.add_node(1, cost=2)
    graph.add_node(2, cost={"cpu": 3, "gpu": 1}, processors=["g"])
    graph.add_node(3, cost=np.array([4, 5]))
    graph.add_edge(1, 2, data=np.int64(7))
    graph.add_edge(1, 3, kind="order")
    platform = {"processors": [{"id": "c", "type": "cpu"}, {"id": "g", "type": "gpu"}]}
    problem = Problem.from_networkx(graph, platform)
    assert problem.task_ids == ("1", "2", "3") and problem.name == "g"
    assert problem.cost.tolist() == [[2, 2], [math.inf, 1], [4, 5]]
    assert problem.edge_data.tolist() == [7] and problem.order_dst.tolist() == [2]
    assert problem.iso_a.tolist() == [1] and problem.iso_b.tolist() == [2]
    assert Problem.from_networkx(graph, platform, name="h").name == "h"
    graph.add_node(4)  # no cost
    with pytest.raises(InstanceError, match=r"^tasks\[3\]\.cost: missing \(task '4'\)$"):
        Problem.from_networkx(graph, platform)
    with pytest.raises(InstanceError, match=r"^platform: expected an object"):
        Problem.from_networkx(nx.DiGraph(), [])


def test_small_methods():
    problem = Problem.from_lists(
        [[2, 4], [3, 1], [0, 0]],
        [(0, 1, 3), (0, 2, 1)],
        affinity={1: [1]},
        isolation=[(1, 2)],
    )
    assert problem.n_tasks == 3 and problem.n_processors == 2 and problem.n_edges == 2
    assert problem.mean_cost().tolist() == [3, 1, 0]
    assert problem.min_cost().tolist() == [2, 1, 0]
    assert problem.allowed_processors(1).tolist() == [1]
    assert problem.entry_tasks.tolist() == [0] and problem.exit_tasks.tolist() == [1, 2]
    assert problem.isolation_partners(2).tolist() == [1]
    assert problem.is_integral
    # CCR: mean edge delay (2) times mean hops (1) over mean cost (4/3).
    assert problem.ccr() == pytest.approx(2 / (4 / 3))
    assert Problem.from_lists([[1.5, 1]]).is_integral is False
    half = Problem.from_lists([[1, 1], [1, 1]], [(0, 1, 1)], network={"bandwidth": 2})
    assert half.is_integral is False  # a delay of 0.5
    assert Problem.from_lists([[1], [1]], [(0, 1, 5)]).ccr() == 0.0  # one processor


def test_immutable_equal_hashable_repr():
    p = Problem.from_lists([1, 2], [(0, 1)], n_processors=2)
    with pytest.raises(AttributeError, match="immutable"):
        p.name = "x"
    with pytest.raises(ValueError, match="read-only"):
        p.cost[0, 0] = 5
    q = Problem.from_json(p.to_json())
    assert p == q and hash(p) == hash(q) and p != "p"
    assert p != Problem.from_lists([1, 3], [(0, 1)], n_processors=2)
    assert "tasks=2" in repr(p) and "fully-connected" in repr(p)


@pytest.mark.parametrize(
    "network",
    [
        {"topology": "fully-connected"},
        {"topology": "mesh", "dims": [2, 2], "communication": "contention"},
        {"topology": "torus", "dims": [4], "communication": "single-port"},
        {"topology": "hypercube"},
        {"topology": "fat-tree", "communication": "contention"},
        {"topology": "accelerated-node"},
        {"topology": "matrix", "hops": [[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]]},
    ],
)
def test_a_problem_travels_to_other_processes(network):
    # Pickled for multiprocessing and dask: the slots of Problem and of every topology
    # could not be restored (an outside audit, session 17).
    import concurrent.futures
    import multiprocessing
    import pickle

    import exactsched

    doc = {
        "format": "exactsched/instance@1",
        "platform": {
            "processors": [{"id": f"p{i}", "type": "gpu" if i == 3 else "cpu"} for i in range(4)],
            "network": network,
        },
        "tasks": [{"id": "a", "cost": 1}, {"id": "b", "cost": 2}, {"id": "c", "cost": 2}],
        "edges": [{"src": "a", "dst": "b", "data": 3}, {"src": "a", "dst": "c", "data": 3}],
    }
    problem = exactsched.load_instance(doc)
    here = exactsched.solve(problem, "heft")
    back = pickle.loads(pickle.dumps(problem))
    assert back.to_json() == problem.to_json() and back.topology == problem.topology
    assert not back.cost.flags.writeable
    with pytest.raises(AttributeError, match="immutable"):
        back.name = "x"
    if network["topology"] == "mesh":  # once end to end, in a spawned process
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
            there = pool.submit(exactsched.solve, problem, "heft").result(timeout=120)
    else:
        there = exactsched.solve(back, "heft")
    assert there.makespan == here.makespan and exactsched.validate(problem, there.schedule) == []


# ---- the Python API refuses what cannot be meant, naming it (an outside audit) ------------


def _topcuoglu():
    return load_instance("examples/topcuoglu2002.json")


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: exactsched.lower_bound("examples/topcuoglu2002.json"), TypeError,
         r"^lower_bound: expected a Problem"),
        (lambda: exactsched.minimal_serial_time({}), TypeError, r"^minimal_serial_time: expected"),
        (lambda: exactsched.count_legal("x"), TypeError, r"^count_legal: expected a Problem"),
        (lambda: exactsched.speedup(_topcuoglu(), -5), MethodError, r"^speedup: makespan must"),
        (lambda: exactsched.speedup(_topcuoglu(), float("nan")), MethodError, r"^speedup: make"),
        (lambda: exactsched.schedule_length_ratio(_topcuoglu(), -5), MethodError, r"makespan"),
        (lambda: exactsched.failed(_topcuoglu(), float("nan")), MethodError, r"^failed: makespan"),
        (lambda: exactsched.speedup(_topcuoglu(), "80"), MethodError, r"^speedup: makespan"),
        (lambda: exactsched.summarise(None), TypeError, r"^summarise: expected rows"),
        (lambda: Problem.from_lists([1, 2], n_processors=True), InstanceError, r"^n_processors"),
        (lambda: Problem.from_lists([1, 2], n_processors=2.5), InstanceError, r"^n_processors"),
        (lambda: Problem.from_lists([1, 2], [(0,)], n_processors=2), InstanceError,
         r"^edges\[0\]"),
        (lambda: Problem.from_lists([1, 2], n_processors=2, affinity={7: [0]}), InstanceError,
         r"^affinity: 7 is not a task index"),
        (lambda: Problem.from_lists([1, 2], [(0, 1, 3)], n_processors=2).comm(0, -1, 0),
         IndexError, r"^comm: processor -1 out of range"),
        (lambda: Problem.from_lists([1, 2], [(0, 1, 3)], n_processors=2).comm(9, 0, 1),
         IndexError, r"^comm: arc 9 out of range"),
    ],
)  # fmt: skip
def test_python_misuse_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_an_undirected_networkx_graph_is_refused():
    nx = pytest.importorskip("networkx")
    graph = nx.Graph()
    graph.add_node("b", cost=1)
    graph.add_node("a", cost=2)
    graph.add_edge("a", "b")  # stored as b - a: its direction would be a guess
    with pytest.raises(InstanceError, match=r"^graph: expected a directed graph"):
        Problem.from_networkx(graph, {"processors": [{"id": "p"}]})


def test_metrics_of_a_real_makespan_are_unchanged():
    p = _topcuoglu()
    assert exactsched.speedup(p, 80) == 1.5875 and exactsched.speedup(p, 0) == float("inf")
    assert exactsched.failed(p, 127) is False and exactsched.failed(p, 128) is True
