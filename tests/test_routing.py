"""Routes and resources of the single-port and contention models (topologies.routing)."""

from __future__ import annotations

import itertools

import pytest

from exactsched import InstanceError, Problem
from topologies import (
    AcceleratedNode,
    FatTree,
    FullyConnected,
    Hypercube,
    Matrix,
    Mesh,
    TopologyError,
    Torus,
)
from topologies.routing import Routing

NETWORKS = [
    Mesh([3, 4]),
    Mesh([2, 2, 2]),
    Torus([4, 5]),
    Torus([2, 3]),
    Hypercube(16),
    FatTree(8),
    FatTree(27, arity=3),
    FullyConnected(5),
    AcceleratedNode(["cpu", "cpu", "gpu", "gpu"]),
]


@pytest.mark.parametrize("net", NETWORKS, ids=repr)
@pytest.mark.parametrize("duplex", [True, False])
def test_route_weights_add_up_to_hops_and_links_chain(net, duplex):
    r = Routing(net, "contention", duplex=duplex)
    hops = net.hops()
    for p, q in itertools.product(range(net.n_processors), repeat=2):
        route = r.route(p, q)
        assert sum(w for _, w, _ in route) == hops[p, q]
        names = [name.split("->") for _, _, name in route]
        for (_, v), (u, _) in itertools.pairwise(names):
            assert v == u  # each link starts where the previous one ends
        if route:
            assert names[0][0] == f"p{p}" and names[-1][1] == f"p{q}"
        if not isinstance(net, FatTree):
            assert all(w == 1 for _, w, _ in route)  # one link per hop


def test_mesh_dimension_order_and_link_count():
    r = Routing(Mesh([3, 3]), "contention")
    # 0 = (0, 0) to 8 = (2, 2): first dimension first.
    assert [n for _, _, n in r.route(0, 8)] == ["p0->p3", "p3->p6", "p6->p7", "p7->p8"]
    for p, q in itertools.product(range(9), repeat=2):
        r.route(p, q)
    assert r.n_resources == 2 * 12  # 12 undirected links, one resource per direction
    half = Routing(Mesh([3, 3]), "contention", duplex=False)
    for p, q in itertools.product(range(9), repeat=2):
        half.route(p, q)
    assert half.n_resources == 12
    # Both directions of a link are one resource when half duplex.
    assert half.route(0, 1)[0][0] == half.route(1, 0)[0][0]
    assert r.route(0, 1)[0][0] != r.route(1, 0)[0][0]


def test_torus_takes_the_short_way_and_the_positive_one_on_ties():
    r = Routing(Torus([5]), "contention")
    assert [n for _, _, n in r.route(0, 4)] == ["p0->p4"]
    r4 = Routing(Torus([4]), "contention")
    assert [n for _, _, n in r4.route(0, 2)] == ["p0->p1", "p1->p2"]


def test_hypercube_lowest_bit_first():
    r = Routing(Hypercube(8), "contention")
    assert [n for _, _, n in r.route(0, 7)] == ["p0->p1", "p1->p3", "p3->p7"]


def test_fat_tree_up_to_the_common_ancestor_and_down():
    r = Routing(FatTree(8), "contention")
    assert [(n, w) for _, w, n in r.route(0, 1)] == [("p0->sw1.0", 0.5), ("sw1.0->p1", 0.5)]
    assert [(n, w) for _, w, n in r.route(0, 7)] == [
        ("p0->sw1.0", 0.5),
        ("sw1.0->sw2.0", 0.5),
        ("sw2.0->sw3.0", 1.0),
        ("sw3.0->sw2.1", 1.0),
        ("sw2.1->sw1.3", 0.5),
        ("sw1.3->p7", 0.5),
    ]
    # Two messages into the two halves share no link; two out of one leaf share its up-link.
    assert r.route(0, 4)[0][0] == r.route(0, 2)[0][0]


def test_single_port_routes_on_every_topology_including_matrix():
    r = Routing(Matrix([[0, 2, 0], [1, 0, 3], [0, 1, 0]]), "single-port", proc_ids="abc")
    ((res, w, name),) = r.route(1, 2)
    assert [r.resources[k] for k in res] == ["send b", "recv c"] and w == 3 and name == "b->c"
    assert r.route(0, 2) == ()  # zero hops: no message
    one = Routing(FullyConnected(2), "single-port", duplex=False)
    ((res, _, _),) = one.route(0, 1)
    assert [one.resources[k] for k in res] == ["port p0", "port p1"]


def test_accelerated_node_cpus_share_memory():
    r = Routing(AcceleratedNode(["cpu", "cpu", "gpu"]), "contention")
    assert r.route(0, 1) == ()
    assert [n for _, _, n in r.route(0, 2)] == ["p0->p2"]


def test_delay_has_no_routes():
    assert Routing(Mesh([2, 2]), "delay").route(0, 3) == ()


def test_refusals():
    with pytest.raises(TopologyError, match="^communication: 'contention' needs links"):
        Routing(Matrix([[0, 1], [1, 0]]), "contention")
    with pytest.raises(TopologyError, match="^communication: unknown model 'x'"):
        Routing(Mesh([2]), "x")


# ---- the instance keys -------------------------------------------------------------------


def net_problem(network):
    return Problem.from_lists([1, 1], [(0, 1, 2)], n_processors=4, network=network)


@pytest.mark.parametrize(
    ("network", "message"),
    [
        ({"communication": "wormhole"}, r"platform\.network\.communication: expected one of"),
        ({"communication": None}, r"platform\.network\.communication: expected one of"),
        ({"duplex": "yes"}, r"platform\.network\.duplex: expected true or false, got .yes."),
        ({"duplex": 0}, r"platform\.network\.duplex: expected true or false, got 0"),
        (
            {
                "topology": "matrix",
                "hops": [[int(i != j) for j in range(4)] for i in range(4)],
                "communication": "contention",
            },
            r"platform\.network\.communication: 'contention' needs links",
        ),
    ],
)
def test_bad_keys_one_line(network, message):
    with pytest.raises(InstanceError, match=message) as err:
        net_problem(network)
    assert "\n" not in str(err.value)


def test_problem_exposes_model_and_routes():
    p = net_problem({"topology": "mesh", "dims": [2, 2], "communication": "contention"})
    assert p.communication == "contention" and p.duplex
    assert [n for _, _, n in p.routing.route(3, 0)] == ["p3->p1", "p1->p0"]
    d = net_problem({"topology": "mesh", "dims": [2, 2]})
    assert d.communication == "delay" and d.routing.route(3, 0) == ()
    h = net_problem({"communication": "single-port", "duplex": False})
    assert not h.duplex and h.to_json()["platform"]["network"]["duplex"] is False


def test_preset_network_override_takes_the_model():
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"preset": "titan", "network": {"communication": "contention"}},
        "tasks": [{"id": "a", "cost": {"cpu": 1, "gpu": 1}}],
    }
    assert Problem.from_json(doc).communication == "contention"
