"""Tests of topologies.networks and topologies.errors: exact hop matrices, the
examples of Kong's slides, strict validation of network objects, and metric
properties checked with hypothesis."""

import math
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import topologies
from topologies import (
    TOPOLOGIES,
    AcceleratedNode,
    FatTree,
    FullyConnected,
    Hypercube,
    Matrix,
    Mesh,
    Topology,
    TopologyError,
    Torus,
    from_network,
    hop_matrix,
)


def test_package_resolves_inside_this_project():
    root = Path(__file__).resolve().parent.parent
    assert Path(topologies.__file__).resolve().parent == root / "topologies"


# --------------------------------------------------------------------------- exact matrices

EXACT = [
    pytest.param(FullyConnected(3), [[0, 1, 1], [1, 0, 1], [1, 1, 0]], id="fully-connected-3"),
    pytest.param(Mesh([4]), [[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 1, 0]], id="mesh-4"),
    pytest.param(
        Mesh([2, 3]),
        [
            [0, 1, 2, 1, 2, 3],
            [1, 0, 1, 2, 1, 2],
            [2, 1, 0, 3, 2, 1],
            [1, 2, 3, 0, 1, 2],
            [2, 1, 2, 1, 0, 1],
            [3, 2, 1, 2, 1, 0],
        ],
        id="mesh-2x3",
    ),
    pytest.param(
        Mesh([2, 1, 2]), [[0, 1, 1, 2], [1, 0, 2, 1], [1, 2, 0, 1], [2, 1, 1, 0]], id="mesh-2x1x2"
    ),
    pytest.param(
        Torus([4]), [[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]], id="torus-4"
    ),
    pytest.param(
        Torus([5]),
        [
            [0, 1, 2, 2, 1],
            [1, 0, 1, 2, 2],
            [2, 1, 0, 1, 2],
            [2, 2, 1, 0, 1],
            [1, 2, 2, 1, 0],
        ],
        id="torus-5",
    ),
    pytest.param(
        Torus([2, 3]),
        [
            [0, 1, 1, 1, 2, 2],
            [1, 0, 1, 2, 1, 2],
            [1, 1, 0, 2, 2, 1],
            [1, 2, 2, 0, 1, 1],
            [2, 1, 2, 1, 0, 1],
            [2, 2, 1, 1, 1, 0],
        ],
        id="torus-2x3",
    ),
    pytest.param(
        Hypercube(4), [[0, 1, 1, 2], [1, 0, 2, 1], [1, 2, 0, 1], [2, 1, 1, 0]], id="hypercube-4"
    ),
    pytest.param(Hypercube(2), [[0, 1], [1, 0]], id="hypercube-2"),
    pytest.param(
        FatTree(4), [[0, 1, 2, 2], [1, 0, 2, 2], [2, 2, 0, 1], [2, 2, 1, 0]], id="fat-tree-4"
    ),
    pytest.param(
        FatTree(9, arity=3),
        [[1 + (i // 3 != j // 3) if i != j else 0 for j in range(9)] for i in range(9)],
        id="fat-tree-9-arity-3",
    ),
    pytest.param(
        AcceleratedNode(["cpu", "gpu", "cpu", "gpu"]),
        [[0, 1, 0, 1], [1, 0, 1, 1], [0, 1, 0, 1], [1, 1, 1, 0]],
        id="accelerated-node",
    ),
    pytest.param(
        AcceleratedNode(["cpu", "default", "fpga"]),
        [[0, 1, 1], [1, 0, 1], [1, 1, 0]],
        id="accelerated-node-other-types",
    ),
    pytest.param(
        Matrix([[0, 2, 0.5], [1, 0, 1], [3, 1, 0]]),
        [[0, 2, 0.5], [1, 0, 1], [3, 1, 0]],
        id="matrix-asymmetric",
    ),
]


@pytest.mark.parametrize(("net", "expected"), EXACT)
def test_exact_hop_matrix(net, expected):
    hops = net.hops()
    assert hops.dtype == np.float64
    assert hops.shape == (net.n_processors, net.n_processors)
    np.testing.assert_array_equal(hops, np.array(expected, dtype=float))
    for p in range(net.n_processors):
        for q in range(net.n_processors):
            assert net.distance(p, q) == expected[p][q]
    assert net.diameter() == max(max(row) for row in expected)


def test_fat_tree_matches_kong_slides():
    # The distance table printed in Kong, "Polyhedral Network Aware Task Scheduling"
    # (CNC workshop 2017), slide "Network Topologies: Fat Trees", rows P0..P7.
    kong = [
        [0, 1, 2, 2, 4, 4, 4, 4],
        [1, 0, 2, 2, 4, 4, 4, 4],
        [2, 2, 0, 1, 4, 4, 4, 4],
        [2, 2, 1, 0, 4, 4, 4, 4],
        [4, 4, 4, 4, 0, 1, 2, 2],
        [4, 4, 4, 4, 1, 0, 2, 2],
        [4, 4, 4, 4, 2, 2, 0, 1],
        [4, 4, 4, 4, 2, 2, 1, 0],
    ]
    np.testing.assert_array_equal(FatTree(8).hops(), kong)
    np.testing.assert_array_equal(hop_matrix({"topology": "fat-tree"}, ["cpu"] * 8), kong)


def test_mesh_matches_kong_slides():
    # Kong's driving example: a 4x4 mesh and tasks A, B, C, D with
    # Dir(A,B) = [3,3], Dir(B,C) = [0,-3], Dir(C,D) = [-3,1] (Dir = target - source).
    # Coordinates lie in 0..3, so A = (0,0) is forced, then B = (3,3), C = (3,0),
    # D = (0,1); in row-major order these are processors 0, 15, 12 and 1.
    mesh = Mesh([4, 4])
    place = {"A": 0, "B": 15, "C": 12, "D": 1}

    def direction(s, t):
        cs, ct = mesh.coordinates(place[s]), mesh.coordinates(place[t])
        return [b - a for a, b in zip(cs, ct, strict=True)]

    assert direction("A", "B") == [3, 3]
    assert direction("B", "C") == [0, -3]
    assert direction("C", "D") == [-3, 1]
    assert mesh.distance(place["A"], place["B"]) == 6
    assert mesh.distance(place["B"], place["C"]) == 3
    assert mesh.distance(place["C"], place["D"]) == 4


# --------------------------------------------------------------------------- single processor


@pytest.mark.parametrize(
    "net",
    [
        FullyConnected(1),
        Mesh([1]),
        Mesh([1, 1, 1]),
        Torus([1]),
        Hypercube(1),
        FatTree(1),
        FatTree(1, arity=5),
        AcceleratedNode(["gpu"]),
        Matrix([[0]]),
    ],
    ids=repr,
)
def test_one_processor(net):
    assert net.n_processors == 1
    np.testing.assert_array_equal(net.hops(), [[0.0]])
    assert net.distance(0, 0) == 0.0
    assert net.diameter() == 0.0
    assert net.neighbours(0) == ()
    assert isinstance(net.coordinates(0), tuple)


@pytest.mark.parametrize(
    ("network", "types"),
    [
        ({"topology": "mesh", "dims": [1]}, ["cpu"]),
        ({"topology": "torus", "dims": [1, 1]}, ["cpu"]),
        ({"topology": "hypercube"}, ["cpu"]),
        ({"topology": "fat-tree", "arity": 3}, ["cpu"]),
        ({"topology": "matrix", "hops": [[0]]}, ["cpu"]),
    ],
)
def test_one_processor_from_network(network, types):
    np.testing.assert_array_equal(hop_matrix(network, types), [[0.0]])


# ------------------------------------------------------------------ coordinates, neighbours


@pytest.mark.parametrize(
    ("net", "p", "coords"),
    [
        (Mesh([4, 4]), 6, (1, 2)),
        (Mesh([2, 3, 4]), 23, (1, 2, 3)),
        (Mesh([2, 3, 4]), 13, (1, 0, 1)),
        (Torus([3, 5]), 7, (1, 2)),
        (Hypercube(8), 6, (1, 1, 0)),
        (Hypercube(2), 1, (1,)),
        (FatTree(8), 0, (0, 0, 0)),
        (FatTree(8), 6, (0, 1, 3)),
        (FatTree(27, arity=3), 26, (0, 2, 8)),
        (FullyConnected(4), 2, (2,)),
        (AcceleratedNode(["cpu", "gpu"]), 1, (1,)),
        (Matrix([[0, 1], [1, 0]]), 1, (1,)),
    ],
)
def test_coordinates(net, p, coords):
    assert net.coordinates(p) == coords


@pytest.mark.parametrize(
    ("net", "p", "expected"),
    [
        (Mesh([3, 3]), 4, (1, 3, 5, 7)),
        (Mesh([3, 3]), 0, (1, 3)),
        (Torus([3, 3]), 0, (1, 2, 3, 6)),
        (Hypercube(8), 5, (1, 4, 7)),
        (FatTree(8), 6, (7,)),
        (FatTree(9, arity=3), 4, (3, 5)),
        (FullyConnected(3), 2, (0, 1)),
        (AcceleratedNode(["cpu", "cpu", "gpu", "gpu"]), 0, (1,)),
        (AcceleratedNode(["cpu", "cpu", "gpu", "gpu"]), 3, (0, 1, 2)),
        (Matrix([[0, 3, 2, 2], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]]), 0, (2, 3)),
    ],
)
def test_neighbours(net, p, expected):
    assert net.neighbours(p) == expected


# --------------------------------------------------------------------------- from_network


@pytest.mark.parametrize(
    ("network", "types", "expected"),
    [
        ({}, ["cpu", "gpu"], FullyConnected(2)),
        ({"topology": "fully-connected", "latency": 3, "bandwidth": 2}, ["a"], FullyConnected(1)),
        ({"topology": "mesh", "dims": [2, 2]}, ["cpu"] * 4, Mesh([2, 2])),
        ({"topology": "torus", "dims": [3, 1]}, ["cpu"] * 3, Torus([3, 1])),
        ({"topology": "hypercube"}, ["cpu"] * 8, Hypercube(8)),
        ({"topology": "fat-tree"}, ["cpu"] * 4, FatTree(4)),
        ({"topology": "fat-tree", "arity": 4}, ["cpu"] * 16, FatTree(16, 4)),
        (
            {"topology": "accelerated-node"},
            ["cpu", "gpu"],
            AcceleratedNode(["cpu", "gpu"]),
        ),
        (
            {"topology": "matrix", "hops": [[0, 1.5], [2, 0]]},
            ["cpu", "cpu"],
            Matrix([[0, 1.5], [2, 0]]),
        ),
    ],
)
def test_from_network(network, types, expected):
    net = from_network(network, types)
    assert net == expected
    assert hash(net) == hash(expected)
    assert isinstance(net, Topology)
    assert net.n_processors == len(types)
    # Round trip through the JSON keys the topology owns.
    assert from_network(net.to_json(), types) == net


def test_to_json():
    assert Mesh([4, 4]).to_json() == {"topology": "mesh", "dims": [4, 4]}
    assert Torus([2, 5]).to_json() == {"topology": "torus", "dims": [2, 5]}
    assert Hypercube(4).to_json() == {"topology": "hypercube"}
    assert FatTree(8).to_json() == {"topology": "fat-tree", "arity": 2}
    assert FullyConnected(2).to_json() == {"topology": "fully-connected"}
    assert AcceleratedNode(["cpu"]).to_json() == {"topology": "accelerated-node"}
    assert Matrix([[0, 1], [2, 0]]).to_json() == {"topology": "matrix", "hops": [[0, 1], [2, 0]]}
    assert Matrix([[0, 0.5], [2, 0]]).to_json()["hops"] == [[0.0, 0.5], [2.0, 0.0]]


def test_registry_names():
    assert sorted(TOPOLOGIES) == [
        "accelerated-node",
        "fat-tree",
        "fully-connected",
        "hypercube",
        "matrix",
        "mesh",
        "torus",
    ]
    for name, cls in TOPOLOGIES.items():
        assert cls.name == name


def test_unknown_keys_latency_and_bandwidth_are_ignored():
    network = {"topology": "mesh", "dims": [2], "latency": "junk", "bandwidth": -1, "x": None}
    assert from_network(network, ["cpu"] * 2) == Mesh([2])


ERRORS = [
    # topology
    ({"topology": "ring"}, 4, "topology", r"^topology: unknown topology 'ring'; known: accel"),
    ({"topology": None}, 4, "topology", r"^topology: expected a string .* got null"),
    ({"topology": 3}, 4, "topology", r"^topology: expected a string"),
    ([("topology", "mesh")], 4, "topology", r"^topology: the network must be an object"),
    ("mesh", 4, "topology", r"^topology: the network must be an object"),
    ({}, 0, "topology", r"^topology: the platform has no processors"),
    # dims
    ({"topology": "mesh"}, 4, "dims", r"^dims: missing; a mesh needs dims"),
    ({"topology": "torus"}, 4, "dims", r"^dims: missing; a torus needs dims"),
    ({"topology": "mesh", "dims": []}, 4, "dims", r"^dims: expected a non-empty list"),
    ({"topology": "mesh", "dims": 4}, 4, "dims", r"^dims: expected a non-empty list"),
    ({"topology": "mesh", "dims": "22"}, 4, "dims", r"^dims: expected a non-empty list"),
    ({"topology": "mesh", "dims": None}, 4, "dims", r"^dims: .* got null"),
    ({"topology": "mesh", "dims": {"a": 1}}, 4, "dims", r"^dims: .* got an object"),
    ({"topology": "mesh", "dims": [2, 2.0]}, 4, "dims", r"^dims\[1\]: expected a positive int"),
    ({"topology": "mesh", "dims": [2.5, 2]}, 5, "dims", r"^dims\[0\]: .* got 2\.5"),
    ({"topology": "mesh", "dims": [True, 4]}, 4, "dims", r"^dims\[0\]: .* got true"),
    ({"topology": "mesh", "dims": [0, 4]}, 4, "dims", r"^dims\[0\]: .* got 0"),
    ({"topology": "mesh", "dims": [-2, -2]}, 4, "dims", r"^dims\[0\]: .* got -2"),
    ({"topology": "mesh", "dims": ["2", 2]}, 4, "dims", r"^dims\[0\]: .* got '2'"),
    (
        {"topology": "mesh", "dims": [3, 3]},
        8,
        "dims",
        r"^dims: product of \[3, 3\] is 9, but the platform has 8 processors$",
    ),
    (
        {"topology": "torus", "dims": [2]},
        1,
        "dims",
        r"^dims: product of \[2\] is 2, but the platform has 1 processor$",
    ),
    # a product Python will not print (over 4,300 digits): once exit 3, an outside audit
    (
        {"topology": "mesh", "dims": [2] * 20000},
        4,
        "dims",
        r"^dims: product of \[2, 2, .*\.\.\. is about 1e6020, but the platform has 4 proc",
    ),
    # hypercube
    ({"topology": "hypercube"}, 6, "topology", r"^topology: a hypercube needs a power-of-two"),
    # fat-tree
    ({"topology": "fat-tree"}, 6, "arity", r"^arity: .* power of the arity 2, .* has 6$"),
    ({"topology": "fat-tree", "arity": 3}, 8, "arity", r"power of the arity 3"),
    ({"topology": "fat-tree", "arity": 1}, 1, "arity", r"^arity: expected an integer >= 2, got 1"),
    ({"topology": "fat-tree", "arity": 0}, 1, "arity", r"got 0"),
    ({"topology": "fat-tree", "arity": 2.0}, 4, "arity", r"got 2\.0"),
    ({"topology": "fat-tree", "arity": True}, 4, "arity", r"got true"),
    ({"topology": "fat-tree", "arity": None}, 4, "arity", r"got null"),
    ({"topology": "fat-tree", "arity": "2"}, 4, "arity", r"got '2'"),
    # matrix
    ({"topology": "matrix"}, 2, "hops", r"^hops: missing; a matrix network needs hops, a 2 x 2"),
    ({"topology": "matrix", "hops": None}, 2, "hops", r"^hops: expected a list of 2 rows"),
    ({"topology": "matrix", "hops": "00"}, 2, "hops", r"^hops: expected a list of 2 rows"),
    ({"topology": "matrix", "hops": [[0]]}, 2, "hops", r"^hops: expected 2 rows .* got 1$"),
    ({"topology": "matrix", "hops": [[0, 1], 5]}, 2, "hops", r"^hops\[1\]: expected a list"),
    ({"topology": "matrix", "hops": [[0, 1], [1]]}, 2, "hops", r"^hops\[1\]: expected 2 numbers"),
    (
        {"topology": "matrix", "hops": [[0, 1], [1, 0, 2]]},
        2,
        "hops",
        r"^hops\[1\]: expected 2 numbers, got 3",
    ),
    ({"topology": "matrix", "hops": [[0, "1"], [1, 0]]}, 2, "hops", r"^hops\[0\]\[1\]: .* '1'"),
    ({"topology": "matrix", "hops": [[0, None], [1, 0]]}, 2, "hops", r"^hops\[0\]\[1\]: .*null"),
    ({"topology": "matrix", "hops": [[0, 1], [True, 0]]}, 2, "hops", r"^hops\[1\]\[0\]: .*true"),
    ({"topology": "matrix", "hops": [[0, [1]], [1, 0]]}, 2, "hops", r"^hops\[0\]\[1\]: expected"),
    (
        {"topology": "matrix", "hops": [[0, 1, 1], [1, 0, 1], [1, 1, float("nan")]]},
        3,
        "hops",
        r"^hops\[2\]\[2\]: not a finite number \(nan\)$",
    ),
    (
        {"topology": "matrix", "hops": [[0, float("inf")], [1, 0]]},
        2,
        "hops",
        r"^hops\[0\]\[1\]: not a finite number \(inf\)$",
    ),
    (
        {"topology": "matrix", "hops": [[0, 10**400], [1, 0]]},
        2,
        "hops",
        r"^hops\[0\]\[1\]: not a finite number",
    ),
    (
        {
            "topology": "matrix",
            "hops": [[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, -1], [1, 1, 1, 0]],
        },
        4,
        "hops",
        r"^hops\[2\]\[3\]: negative value -1$",
    ),
    (
        {"topology": "matrix", "hops": [[0, 1], [1, 2]]},
        2,
        "hops",
        r"^hops\[1\]\[1\]: diagonal entry must be 0 .* got 2$",
    ),
    ({"topology": "matrix", "hops": []}, 1, "hops", r"^hops: expected 1 rows"),
    # keys that belong to another topology
    ({"topology": "hypercube", "dims": [4]}, 4, "dims", r"^dims: not a key of .*'hypercube'"),
    ({"dims": [4]}, 4, "dims", r"^dims: not a key of topology 'fully-connected'"),
    ({"topology": "mesh", "dims": [4], "arity": 2}, 4, "arity", r"belongs to fat-tree\)$"),
    ({"topology": "torus", "dims": [4], "hops": []}, 4, "hops", r"belongs to matrix\)$"),
    ({"topology": "matrix", "hops": [[0]], "dims": [1]}, 1, "dims", r"belongs to mesh, torus"),
    ({"topology": "fat-tree", "hops": [[0]]}, 1, "hops", r"^hops: not a key of .*'fat-tree'"),
    ({"topology": "accelerated-node", "arity": 2}, 2, "arity", r"'accelerated-node'"),
]


@pytest.mark.parametrize(("network", "n", "key", "match"), ERRORS)
def test_from_network_errors(network, n, key, match):
    with pytest.raises(TopologyError, match=match) as info:
        from_network(network, ["cpu"] * n)
    err = info.value
    assert err.key == key
    assert str(err).startswith(key)
    assert "\n" not in str(err)
    assert isinstance(err, ValueError)


def test_processor_types_must_be_strings():
    with pytest.raises(TypeError, match="processor type 1 must be a string"):
        from_network({}, ["cpu", 3])
    with pytest.raises(TypeError, match="list of strings"):
        from_network({}, "cpu")


@pytest.mark.parametrize(
    ("build", "key", "match"),
    [
        (lambda: FullyConnected(0), "topology", "at least one processor"),
        (lambda: FullyConnected(2.0), "topology", "at least one processor"),
        (lambda: Mesh([]), "dims", "non-empty"),
        (lambda: Torus([2, 0]), "dims", r"dims\[1\]"),
        (lambda: Hypercube(12), "topology", "power-of-two"),
        (lambda: FatTree(8, arity=3), "arity", "power of the arity 3"),
        (lambda: FatTree(9, arity=1.5), "arity", "integer >= 2"),
        (lambda: AcceleratedNode([]), "topology", "no processors"),
        (lambda: Matrix([[0, 1], [1, 0.0, 1]]), "hops", r"hops\[1\]"),
        (lambda: Matrix(np.array([[0.0, -2.0], [1.0, 0.0]])), "hops", r"hops\[0\]\[1\]: neg"),
        (lambda: Matrix(np.array([[True, False], [False, True]])), "hops", r"hops\[0\]\[0\]"),
        (lambda: Matrix(np.zeros((2, 3))), "hops", r"hops\[0\]: expected 2 numbers, got 3"),
        (lambda: Matrix(np.zeros((0, 0))), "hops", r"^hops: expected a non-empty list"),
        (lambda: Matrix([]), "hops", r"^hops: expected a non-empty list"),
    ],
)
def test_constructor_errors(build, key, match):
    with pytest.raises(TopologyError, match=match) as info:
        build()
    assert info.value.key == key


def test_matrix_accepts_numpy_input_and_copies_it():
    arr = np.array([[0, 1], [3, 0]])
    net = Matrix(arr)
    arr[0, 1] = 7
    assert net.distance(0, 1) == 1.0
    assert net.distance(1, 0) == 3.0


def test_error_is_one_line_and_picklable():
    err = TopologyError("hops", "negative value\n-1", path="hops[2][3]")
    assert str(err) == "hops[2][3]: negative value -1"
    again = pickle.loads(pickle.dumps(err))
    assert (again.key, again.path, again.detail, str(again)) == (
        err.key,
        err.path,
        err.detail,
        str(err),
    )
    with pytest.raises(ValueError, match="does not start with key"):
        TopologyError("hops", "x", path="dims[0]")


# JSON-like values, to check that no malformed network escapes as another exception.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 10)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["mesh", "2", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None)
@given(
    topology=st.sampled_from([*TOPOLOGIES, "ring", None, 1]),
    dims=json_values,
    arity=json_values,
    hops=json_values,
    present=st.sets(st.sampled_from(["topology", "dims", "arity", "hops"])),
    n=st.integers(1, 9),
)
def test_malformed_networks_raise_only_topology_error(topology, dims, arity, hops, present, n):
    candidate = {"topology": topology, "dims": dims, "arity": arity, "hops": hops}
    network = {k: v for k, v in candidate.items() if k in present}
    try:
        net = from_network(network, ["cpu"] * n)
    except TopologyError as err:
        assert err.key in {"topology", "dims", "arity", "hops"}
        assert str(err).startswith(err.key)
        assert "\n" not in str(err)
    else:
        assert net.n_processors == n


# --------------------------------------------------------------------------- behaviour


def test_immutable_and_read_only():
    net = Mesh([2, 2])
    with pytest.raises(AttributeError):
        net.dims = (4,)
    with pytest.raises(AttributeError):
        net.foo = 1
    hops = net.hops()
    assert hops is net.hops()  # cached
    with pytest.raises(ValueError, match="read-only"):
        hops[0, 1] = 5


def test_equality_and_repr():
    assert Mesh([2, 2]) == Mesh((2, 2))
    assert Mesh([2, 2]) != Torus([2, 2])
    assert Mesh([4]) != Mesh([2, 2])
    assert FatTree(16, 2) != FatTree(16, 4)
    assert len({Hypercube(4), Hypercube(4), FullyConnected(4)}) == 2
    assert repr(Mesh([2, 2])) == "Mesh(dims=[2, 2])"
    assert repr(FatTree(8)) == "FatTree(n_processors=8, arity=2)"
    assert repr(AcceleratedNode(["cpu", "gpu"])) == "AcceleratedNode(types=['cpu', 'gpu'])"


@pytest.mark.parametrize("bad", [-1, 4, 1.0, True, None])
def test_distance_rejects_bad_processors(bad):
    net = FullyConnected(4)
    with pytest.raises((IndexError, TypeError)):
        net.distance(0, bad)
    with pytest.raises((IndexError, TypeError)):
        net.neighbours(bad)


def test_distance_without_building_the_matrix():
    net = FatTree(2**20)
    assert net.distance(0, 2**20 - 1) == 2**19
    assert net.distance(6, 7) == 1
    assert net.neighbours(2**20 - 1) == (2**20 - 2,)
    assert Mesh([1000, 1000]).distance(0, 999_999) == 1998
    assert Hypercube(2**30).distance(0, 2**30 - 1) == 30


@pytest.mark.parametrize(
    "net", [Mesh([64, 64]), Hypercube(4096), FatTree(4096), FatTree(4096, arity=8)], ids=repr
)
def test_4096_processors(net):
    hops = net.hops()
    assert hops.shape == (4096, 4096)
    assert hops.dtype == np.float64
    assert not hops.diagonal().any()
    assert hops.max() == net.diameter()
    assert hops[0, 4095] == net.distance(0, 4095)


# --------------------------------------------------------------------------- properties


@st.composite
def topologies_strategy(draw):
    kind = draw(
        st.sampled_from(
            ["fully-connected", "mesh", "torus", "hypercube", "fat-tree", "accelerated-node"]
        )
    )
    if kind == "fully-connected":
        return FullyConnected(draw(st.integers(1, 12)))
    if kind in ("mesh", "torus"):
        dims = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
        return Mesh(dims) if kind == "mesh" else Torus(dims)
    if kind == "hypercube":
        return Hypercube(2 ** draw(st.integers(0, 5)))
    if kind == "fat-tree":
        arity = draw(st.integers(2, 4))
        return FatTree(arity ** draw(st.integers(0, 6 if arity == 2 else 3)), arity)
    return AcceleratedNode(draw(st.lists(st.sampled_from(["cpu", "gpu"]), min_size=1, max_size=9)))


def _check_metric(hops, symmetric):
    assert not hops.diagonal().any()
    assert (hops >= 0).all()
    assert np.isfinite(hops).all()
    if symmetric:
        np.testing.assert_array_equal(hops, hops.T)
    # Triangle inequality: hops[i, k] <= hops[i, j] + hops[j, k] for all i, j, k.
    assert (hops[:, None, :] <= hops[:, :, None] + hops[None, :, :]).all()


@settings(max_examples=100, deadline=None)
@given(net=topologies_strategy())
def test_topology_properties(net):
    hops = net.hops()
    n = net.n_processors
    assert hops.shape == (n, n)
    _check_metric(hops, symmetric=True)
    assert net.diameter() == hops.max()
    # distance and neighbours agree with the matrix: ask an equal instance that has
    # not built its matrix, so that they are computed without it.
    other = from_network(net.to_json(), list(getattr(net, "types", ["cpu"] * n)))
    for p in sorted({0, n // 3, n - 1}):
        for q in range(n):
            assert other.distance(p, q) == hops[p, q]
        others = [q for q in range(n) if q != p]
        if others:
            best = min(hops[p, q] for q in others)
            assert other.neighbours(p) == tuple(q for q in others if hops[p, q] == best)
            assert best > 0 or isinstance(net, AcceleratedNode)
        else:
            assert other.neighbours(p) == ()


@settings(max_examples=100, deadline=None)
@given(dims=st.lists(st.integers(1, 5), min_size=1, max_size=3), data=st.data())
def test_grid_hops_from_coordinates(dims, data):
    mesh, torus = Mesh(dims), Torus(dims)
    n = math.prod(dims)
    p = data.draw(st.integers(0, n - 1))
    q = data.draw(st.integers(0, n - 1))
    cp, cq = mesh.coordinates(p), mesh.coordinates(q)
    assert cp == torus.coordinates(p)
    assert int(np.ravel_multi_index(cp, dims)) == p
    steps = [abs(a - b) for a, b in zip(cp, cq, strict=True)]
    assert mesh.hops()[p, q] == sum(steps)
    assert torus.hops()[p, q] == sum(min(d, k - d) for d, k in zip(steps, dims, strict=True))


@settings(max_examples=100, deadline=None)
@given(data=st.data(), levels=st.integers(0, 4), arity=st.integers(2, 4))
def test_fat_tree_definition(data, levels, arity):
    n = arity**levels
    net = FatTree(n, arity)
    p = data.draw(st.integers(0, n - 1))
    q = data.draw(st.integers(0, n - 1))
    if p == q:
        expected = 0
    else:
        lowest = min(lv for lv in range(1, levels + 1) if p // arity**lv == q // arity**lv)
        expected = 2 ** (lowest - 1)
    assert net.hops()[p, q] == expected
    # The coordinates are the switches above p; the lowest shared one sets the hops.
    assert len(net.coordinates(p)) == levels


@settings(max_examples=100, deadline=None)
@given(data=st.data(), bits=st.integers(0, 6))
def test_hypercube_definition(data, bits):
    net = Hypercube(2**bits)
    p = data.draw(st.integers(0, 2**bits - 1))
    q = data.draw(st.integers(0, 2**bits - 1))
    assert net.hops()[p, q] == bin(p ^ q).count("1")
    differing = sum(a != b for a, b in zip(net.coordinates(p), net.coordinates(q), strict=True))
    assert differing == net.hops()[p, q]


@settings(max_examples=50, deadline=None)
@given(data=st.data(), n=st.integers(1, 6))
def test_matrix_keeps_what_it_is_given(data, n):
    values = st.floats(0, 1e6, allow_nan=False) | st.integers(0, 10**6)
    rows = [[0 if i == j else data.draw(values) for j in range(n)] for i in range(n)]
    net = from_network({"topology": "matrix", "hops": rows}, ["cpu"] * n)
    np.testing.assert_array_equal(net.hops(), np.array(rows, dtype=float))
    assert net.diameter() == max(max(r) for r in rows)
    for p in range(n):
        for q in range(n):
            assert net.distance(p, q) == float(rows[p][q])
    assert from_network(net.to_json(), ["cpu"] * n) == net
