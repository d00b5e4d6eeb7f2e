"""Reading instances: valid documents, warnings, Python inputs, exact round trips.

The bad-input corpus is in ``test_bad_instances.py``; here we check what valid
input becomes. Round trip means ``load_instance(doc).to_json() == doc`` and
``load_instance(problem.to_json()) == problem`` for every cost form, affinity,
order and isolation pairs and every topology, on hand-made documents and on
random ones drawn by hypothesis (see :func:`documents`) and by
:func:`exactsched.generators.random_instance`.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactsched import InstanceError, InstanceWarning, Problem, load_instance, parse_instance
from exactsched.generators import TOPOLOGIES, random_instance
from exactsched.instance import FORMAT, read_json

ROOT = Path(__file__).parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def quiet_load(doc):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InstanceWarning)
        return load_instance(doc)


def strict_load(doc):
    """Load, failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return load_instance(doc)


def doc_of(tasks, processors=("p1",), **extra):
    doc = {
        "format": FORMAT,
        "platform": {"processors": [{"id": p} for p in processors]},
        "tasks": tasks,
    }
    doc.update(extra)
    return doc


# ---- hand-made documents -----------------------------------------------------------

CONTRACT_EXAMPLE = {
    "format": "exactsched/instance@1",
    "name": "topcuoglu-2002-fig2",
    "platform": {
        "processors": [
            {"id": "p1", "type": "cpu"},
            {"id": "p2", "type": "cpu"},
            {"id": "g1", "type": "gpu"},
        ],
        "network": {"topology": "fully-connected", "latency": 0, "bandwidth": 1},
    },
    "tasks": [
        {"id": "a", "cost": 10},
        {"id": "b", "cost": {"cpu": 30, "gpu": 3}},
        {"id": "c", "cost": [14, 16, 9], "processors": ["p1", "g1"]},
    ],
    "edges": [{"src": "a", "dst": "b", "data": 18}, {"src": "a", "dst": "c"}],
    "order": [["b", "c"]],
    "isolation": [["b", "c"]],
}


def test_contract_example():
    with pytest.warns(InstanceWarning, match=r"^isolation\[0\]: .* already ordered"):
        problem = load_instance(CONTRACT_EXAMPLE)
    inf = math.inf
    assert problem.cost.tolist() == [[10, 10, 10], [30, 30, 3], [14, inf, 9]]
    assert problem.allowed.tolist() == [[True] * 3, [True] * 3, [True, False, True]]
    assert problem.task_ids == ("a", "b", "c")
    assert problem.proc_ids == ("p1", "p2", "g1")
    assert problem.proc_types == ("cpu", "cpu", "gpu")
    assert problem.edge_data.tolist() == [18, 0]
    assert problem.order_src.tolist() == [1] and problem.order_dst.tolist() == [2]
    assert problem.iso_a.tolist() == [1] and problem.iso_b.tolist() == [2]
    assert problem.n_edges == 3  # two edges and the order pair
    assert problem.name == "topcuoglu-2002-fig2"
    assert problem.to_json() == CONTRACT_EXAMPLE


def test_defaults():
    problem = strict_load(doc_of([{"id": "a", "cost": 1}], ("p", "q")))
    assert problem.name == ""
    assert problem.proc_types == ("default", "default")
    assert problem.network["topology"] == "fully-connected"
    assert problem.latency == 0 and problem.bandwidth == 1
    assert problem.hops.tolist() == [[0, 1], [1, 0]]
    assert problem.n_edges == 0 and len(problem.iso_a) == 0 and len(problem.order_src) == 0
    # Defaults are not written back.
    assert "network" not in problem.to_json()["platform"]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_examples_round_trip(path):
    doc = json.loads(path.read_text())
    problem = quiet_load(path)
    assert problem.to_json() == doc
    assert quiet_load(problem.to_json()) == problem
    assert load_instance(str(path)) == problem


def test_zero_costs_and_data_are_valid():
    doc = doc_of(
        [{"id": "a", "cost": 0}, {"id": "b", "cost": [0, 0]}],
        ("p", "q"),
        edges=[{"src": "a", "dst": "b", "data": 0}],
    )
    problem = strict_load(doc)
    assert problem.cost.tolist() == [[0, 0], [0, 0]]


def test_type_cost_needs_only_allowed_types():
    doc = doc_of([{"id": "a", "cost": {"gpu": 2}, "processors": ["g"]}], ())
    doc["platform"]["processors"] = [{"id": "c", "type": "cpu"}, {"id": "g", "type": "gpu"}]
    problem = strict_load(doc)
    assert problem.cost.tolist() == [[math.inf, 2]]
    # Extra types (no processor has them) are allowed.
    doc["tasks"][0]["cost"] = {"gpu": 2, "tpu": 1}
    assert strict_load(doc).cost.tolist() == [[math.inf, 2]]


def test_list_cost_outside_affinity_is_ignored_but_checked():
    doc = doc_of([{"id": "a", "cost": [1, 99], "processors": ["p"]}], ("p", "q"))
    assert strict_load(doc).cost.tolist() == [[1, math.inf]]
    doc["tasks"][0]["cost"] = [1, -1]
    with pytest.raises(InstanceError, match=r"^tasks\[0\]\.cost\[1\]: negative number -1"):
        load_instance(doc)


def test_order_pair_repeating_an_edge_adds_no_arc():
    doc = doc_of(
        [{"id": "a", "cost": 1}, {"id": "b", "cost": 1}],
        edges=[{"src": "a", "dst": "b", "data": 3}],
        order=[["a", "b"]],
    )
    problem = strict_load(doc)
    assert problem.n_edges == 1 and problem.arc_unit.tolist() == [3]
    assert problem.order_src.tolist() == [0]
    assert problem.to_json() == doc


def test_repeated_pairs_warn_and_count_once():
    doc = doc_of(
        [{"id": "a", "cost": 1}, {"id": "b", "cost": 1}],
        order=[["a", "b"], ["a", "b"]],
        isolation=[["a", "b"], ["b", "a"]],
    )
    with pytest.warns(InstanceWarning) as record:
        problem = load_instance(doc)
    messages = [str(w.message) for w in record]
    assert any(m.startswith("order[1]: repeats order[0]") for m in messages)
    assert any(m.startswith("isolation[1]: repeats isolation[0]") for m in messages)
    assert problem.order_src.tolist() == [0] and problem.iso_a.tolist() == [0]
    assert problem.n_edges == 1
    assert problem.to_json() == doc  # the document is kept as written


def test_a_repeated_affinity_entry_warns():
    doc = doc_of([{"id": "a", "cost": 1, "processors": ["p1", "p1"]}], processors=("p1", "p2"))
    message = r"^tasks\[0\]\.processors\[1\]: repeats processor 'p1'"
    with pytest.warns(InstanceWarning, match=message):
        problem = load_instance(doc)
    assert problem.allowed.tolist() == [[True, False]]


def test_redundant_isolation_warns_with_the_path():
    doc = doc_of(
        [{"id": x, "cost": 1} for x in "abc"],
        edges=[{"src": "a", "dst": "b"}],
        order=[["b", "c"]],
        isolation=[["c", "a"]],
    )
    with pytest.warns(
        InstanceWarning,
        match=r"^isolation\[0\]: tasks 'c' and 'a' are already ordered by a path from 'a' "
        r"to 'c' \(harmless\)$",
    ):
        problem = load_instance(doc)
    assert problem.isolation_partners(0).tolist() == [2]


@pytest.mark.parametrize(
    "where, value, message",
    [
        ([], {"x": 1}, r"^instance: unknown key 'x'; the format defines edges, format, "),
        (["platform"], {"y": 1}, r"^platform: unknown key 'y'; the format defines network, "),
        (
            ["platform", "network"],
            {"bandwith": 2},
            r"^platform\.network: unknown key 'bandwith' \(did you mean 'bandwidth'\?\)",
        ),
        (["platform", "processors", 0], {"typ": "cpu"}, r"^platform\.processors\[0\]: .*'typ'"),
        (["tasks", 0], {"kost": 2}, r"^tasks\[0\]: unknown key 'kost' \(did you mean 'cost'\?\)"),
        (["tasks", 1], {"processor": ["p1"]}, r"^tasks\[1\]: .*did you mean 'processors'"),
        (["edges", 0], {"dta": 2}, r"^edges\[0\]: unknown key 'dta' \(did you mean 'data'\?\)"),
    ],
)
def test_unknown_keys_are_refused(where, value, message):
    # A key the format does not define is refused, naming it: ignored, a misspelt
    # "dta" or "processor" would silently change the answer.
    doc = doc_of(
        [{"id": "a", "cost": 1}, {"id": "b", "cost": 1}],
        edges=[{"src": "a", "dst": "b"}],
    )
    doc["platform"]["network"] = {"topology": "fully-connected"}
    target = doc
    for key in where:
        target = target[key]
    target.update(value)
    with pytest.raises(InstanceError, match=message):
        load_instance(doc)


def test_cycle_names_every_task_on_it():
    tasks = [{"id": f"t{i}", "cost": 1} for i in range(6)]
    edges = [{"src": "t0", "dst": "t1"}]
    edges += [{"src": f"t{i}", "dst": f"t{i + 1}"} for i in range(2, 5)]
    edges += [{"src": "t5", "dst": "t2"}, {"src": "t5", "dst": "t0"}]
    with pytest.raises(InstanceError) as info:
        load_instance(doc_of(tasks, edges=edges))
    message = str(info.value)
    assert message.startswith("edges[1]: cycle 't2' -> 't3' -> 't4' -> 't5' -> 't2' (through")
    assert "t0" not in message and "t1'" not in message


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.integers(2, 12), st.data())
def test_random_cycles_are_found(n, data):
    """A random DAG plus one back arc: the message lists a real cycle."""
    perm = data.draw(st.permutations(range(n)))
    pairs = data.draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] < p[1]),
            min_size=1,
            max_size=3 * n,
            unique=True,
        )
    )
    a, b = data.draw(st.sampled_from(pairs))
    edges = [{"src": f"t{perm[i]}", "dst": f"t{perm[j]}"} for i, j in pairs]
    edges.append({"src": f"t{perm[b]}", "dst": f"t{perm[a]}"})  # closes a cycle
    tasks = [{"id": f"t{i}", "cost": 1} for i in range(n)]
    with pytest.raises(InstanceError, match=r"^edges\[\d+\]: cycle ") as info:
        load_instance(doc_of(tasks, edges=edges))
    cycle = str(info.value).split("cycle ")[1].split(" (through")[0].split(" -> ")
    assert cycle[0] == cycle[-1] and len(cycle) >= 3
    arcs = {(e["src"], e["dst"]) for e in edges}
    for u, v in zip(cycle, cycle[1:], strict=False):
        assert (u.strip("'"), v.strip("'")) in arcs


# ---- Python inputs -----------------------------------------------------------------


@pytest.mark.parametrize("value", [None, 3, [1], ("a",), {1, 2}, b"{}", 2.5])
def test_load_instance_refuses_non_documents(value):
    with pytest.raises(InstanceError, match=r"^instance: expected a file path or a JSON object"):
        load_instance(value)


@pytest.mark.parametrize("value", [None, 3, [1], "doc"])
def test_parse_instance_refuses_non_objects(value):
    with pytest.raises(InstanceError, match=r"^instance: expected an object"):
        parse_instance(value)


def test_python_values_are_accepted_as_json():
    doc = doc_of(
        (
            {"id": "a", "cost": np.int64(3)},
            {"id": "b", "cost": (np.float64(1.5), 2)},
        ),
        ("p", "q"),
        edges=({"src": "a", "dst": "b", "data": np.float32(0.5)},),
    )
    doc["platform"]["network"] = {"topology": "matrix", "hops": np.array([[0, 2], [1, 0]])}
    problem = strict_load(doc)
    assert problem.cost.tolist() == [[3, 3], [1.5, 2]]
    out = problem.to_json()
    assert json.loads(json.dumps(out)) == out  # plain JSON values only
    assert out["tasks"][1]["cost"] == [1.5, 2]
    assert out["platform"]["network"]["hops"] == [[0, 2], [1, 0]]
    assert load_instance(out) == problem


@pytest.mark.parametrize(
    "cost, message",
    [
        ({1, 2}, r"got \"<set>\""),
        (object(), r"got \"<object>\""),
        (np.bool_(True), r"got true"),
        (10**5000, r"number too large \(an integer of 16610 bits\)"),
        ([10**400, 1], r"^tasks\[0\]\.cost\[0\]: number too large \(an integer of"),
        (-(10**400), r"number too large"),
    ],
    ids=["set", "object", "numpy-bool", "int-5000-digits", "int-in-list", "negative-huge"],
)
def test_odd_python_values_give_one_line(cost, message):
    doc = doc_of([{"id": "a", "cost": cost}], ("p", "q"))
    with pytest.raises(InstanceError, match=message) as info:
        load_instance(doc)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


def test_non_string_keys_and_deep_nesting():
    doc = doc_of([{"id": "a", "cost": 1}])
    doc[7] = "seven"
    with pytest.raises(InstanceError, match="^instance: unknown key '7'"):
        load_instance(doc)
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(InstanceError, match=r"^name: expected a string"):
        load_instance({**doc_of([{"id": "a", "cost": 1}]), "name": deep})
    doc = doc_of([{"id": "a", "cost": 1}])
    doc["platform"]["network"] = {"topology": "matrix", "hops": deep}
    with pytest.raises(InstanceError, match="nested too deeply"):
        quiet_load(doc)


def test_read_json_text_forms(tmp_path):
    path = tmp_path / "doc.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc_of([{"id": "a", "cost": 1}])).encode())
    assert read_json(path)["tasks"] == [{"id": "a", "cost": 1}]  # a BOM is skipped
    path.write_text('{"a": 1,\n  "b": }')
    with pytest.raises(InstanceError, match=r"invalid JSON at line 2, column 8: Expecting value"):
        read_json(path)
    path.write_text('{"a": {"b": 1, "b": 2}}')
    with pytest.raises(InstanceError, match=r"invalid JSON: key 'b' repeated in one object"):
        read_json(path)
    path.write_text('{"a": 1e400, "b": NaN}')
    doc = read_json(path)  # parses; numbers are checked by the reader
    assert doc["a"] == math.inf and math.isnan(doc["b"])


# ---- hypothesis: random valid documents ------------------------------------------------

IDS = st.text(alphabet="abcdxyz0é-", min_size=1, max_size=3)
NUMBERS = st.integers(0, 1000) | st.floats(0, 1000, allow_nan=False, allow_infinity=False)


@st.composite
def networks(draw, n_procs: int):
    """A ``platform.network`` object valid for ``n_procs`` processors, or None."""
    options = ["fully-connected", "mesh", "torus", "accelerated-node", "matrix", None]
    if n_procs & (n_procs - 1) == 0:
        options += ["hypercube", "fat-tree"]
    if n_procs in (1, 3, 9):
        options.append("fat-tree-3")
    topology = draw(st.sampled_from(options))
    if topology is None:
        return None
    network: dict = {}
    if topology == "fat-tree-3":
        network = {"topology": "fat-tree", "arity": 3}
    elif topology == "fat-tree" and draw(st.booleans()):
        network = {"topology": "fat-tree", "arity": 2}
    elif topology in ("mesh", "torus"):
        divisors = [d for d in range(1, n_procs + 1) if n_procs % d == 0]
        first = draw(st.sampled_from(divisors))
        dims = [first, n_procs // first]
        if draw(st.booleans()):
            dims = [n_procs]
        network = {"topology": topology, "dims": dims}
    elif topology == "matrix":
        rows = draw(
            st.lists(
                st.lists(NUMBERS, min_size=n_procs, max_size=n_procs),
                min_size=n_procs,
                max_size=n_procs,
            )
        )
        for k in range(n_procs):
            rows[k][k] = 0
        network = {"topology": "matrix", "hops": rows}
    elif topology != "fully-connected" or draw(st.booleans()):
        network = {"topology": topology}
    if draw(st.booleans()):
        network["latency"] = draw(NUMBERS)
    if draw(st.booleans()):
        network["bandwidth"] = draw(
            st.integers(1, 100) | st.floats(0.01, 100, allow_nan=False, allow_infinity=False)
        )
    return network


@st.composite
def documents(draw, *, max_tasks: int = 8, max_procs: int = 6):
    """A random valid instance document using every optional feature."""
    n_procs = draw(st.integers(1, max_procs))
    proc_ids = draw(st.lists(IDS, min_size=n_procs, max_size=n_procs, unique=True))
    types = draw(
        st.lists(st.sampled_from(["cpu", "gpu", "fpga"]), min_size=n_procs, max_size=n_procs)
    )
    processors = []
    for pid, ptype in zip(proc_ids, types, strict=False):
        processors.append({"id": pid, "type": ptype} if draw(st.booleans()) else {"id": pid})
    proc_types = [p.get("type", "default") for p in processors]
    platform: dict = {"processors": processors}
    network = draw(networks(n_procs))
    if network is not None:
        platform["network"] = network

    n = draw(st.integers(1, max_tasks))
    task_ids = draw(st.lists(IDS, min_size=n, max_size=n, unique=True))
    tasks = []
    for tid in task_ids:
        task: dict = {"id": tid}
        allowed = list(range(n_procs))
        if draw(st.booleans()):
            allowed = draw(
                st.lists(
                    st.sampled_from(range(n_procs)), min_size=1, max_size=n_procs, unique=True
                )
            )
            task["processors"] = [proc_ids[k] for k in allowed]
        form = draw(st.sampled_from(["number", "type", "list"]))
        if form == "number":
            task["cost"] = draw(NUMBERS)
        elif form == "type":
            needed = sorted({proc_types[k] for k in allowed})
            extra = draw(st.lists(st.sampled_from(["cpu", "gpu", "tpu", "default"])))
            task["cost"] = {t: draw(NUMBERS) for t in [*needed, *extra]}
        else:
            task["cost"] = draw(st.lists(NUMBERS, min_size=n_procs, max_size=n_procs))
        tasks.append(task)

    doc: dict = {"format": FORMAT, "platform": platform, "tasks": tasks}
    if draw(st.booleans()):
        doc["name"] = draw(st.text(max_size=6))
    # Arcs go forward in a random permutation of the tasks: always a DAG.
    perm = draw(st.permutations(task_ids))
    forward = st.sampled_from(list(itertools.combinations(range(n), 2))) if n > 1 else None
    if forward is not None and draw(st.booleans()):
        pairs = draw(st.lists(forward, max_size=2 * n, unique=True))
        edges = []
        for i, j in pairs:
            edge: dict = {"src": perm[i], "dst": perm[j]}
            if draw(st.booleans()):
                edge["data"] = draw(NUMBERS)
            edges.append(edge)
        doc["edges"] = edges
    elif draw(st.booleans()):
        doc["edges"] = []
    if forward is not None and draw(st.booleans()):
        doc["order"] = [[perm[i], perm[j]] for i, j in draw(st.lists(forward, max_size=n))]
    if forward is not None and draw(st.booleans()):
        pairs = draw(st.lists(forward.map(lambda p: p[::-1]) | forward, max_size=n))
        doc["isolation"] = [[perm[i], perm[j]] for i, j in pairs]
    return doc


FAST = settings(
    max_examples=50,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FAST
@given(documents())
def test_random_documents_round_trip(doc):
    problem = quiet_load(doc)
    assert problem.to_json() == doc
    again = quiet_load(problem.to_json())
    assert again == problem
    assert again.to_json() == doc
    # A copy through JSON text is the same problem too.
    assert quiet_load(json.loads(json.dumps(doc))) == problem
    # to_json hands out a copy: mutating it changes nothing.
    out = problem.to_json()
    out["tasks"].clear()
    assert problem.to_json() == doc


@settings(max_examples=25, deadline=None, database=None, derandomize=True)
@given(
    n_tasks=st.integers(1, 16),
    topology=st.sampled_from(TOPOLOGIES),
    log_procs=st.integers(0, 3),
    ccr=st.floats(0, 5),
    heterogeneity=st.floats(0, 1),
    n_order=st.integers(0, 4),
    n_isolation=st.integers(0, 4),
    affinity=st.floats(0, 1),
    integral=st.booleans(),
    latency=st.integers(0, 3),
    seed=st.integers(0, 2**32),
)
def test_generated_instances_round_trip(
    n_tasks, topology, log_procs, ccr, heterogeneity, n_order, n_isolation, affinity, integral,
    latency, seed,
):  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # generated instances carry no redundant pair
        problem = random_instance(
            n_tasks,
            2**log_procs,
            topology=topology,
            ccr=ccr,
            heterogeneity=heterogeneity,
            n_order=n_order,
            n_isolation=n_isolation,
            affinity=affinity,
            integral=integral,
            latency=latency,
            seed=seed,
        )
        doc = problem.to_json()
        assert json.loads(json.dumps(doc)) == doc
        assert load_instance(doc) == problem
        assert load_instance(json.loads(json.dumps(doc))) == problem


def _graph_of(doc):
    """A networkx DiGraph holding what ``doc`` holds (edges carry explicit data)."""
    graph = nx.DiGraph(name=doc.get("name", ""))
    for task in doc["tasks"]:
        graph.add_node(task["id"], **{k: v for k, v in task.items() if k != "id"})
    for edge in doc.get("edges", []):
        graph.add_edge(edge["src"], edge["dst"], data=edge.get("data", 0))
    for a, b in doc.get("order", []):
        graph.add_edge(a, b, kind="order")
    if doc.get("isolation"):
        graph.graph["isolation"] = [tuple(pair) for pair in doc["isolation"]]
    return graph


def _networkx_form(doc):
    """``doc`` as from_networkx writes it: name and edges always, data explicit, and
    edges and order pairs grouped by source task in task order (networkx iterates
    the out-edges of each node in turn)."""
    position = {t["id"]: i for i, t in enumerate(doc["tasks"])}
    out = {**doc, "name": doc.get("name", "")}
    edges = [{**e, "data": e.get("data", 0)} for e in doc.get("edges", [])]
    out["edges"] = sorted(edges, key=lambda e: position[e["src"]])
    if doc.get("order"):
        out["order"] = sorted(doc["order"], key=lambda p: position[p[0]])
    else:
        out.pop("order", None)
    if not doc.get("isolation"):
        out.pop("isolation", None)
    return out


@FAST
@given(documents())
def test_networkx_problem_equals_json_problem(doc):
    # A DiGraph holds one arc per pair: no order pair may repeat an edge or another pair.
    edge_pairs = {(e["src"], e["dst"]) for e in doc.get("edges", [])}
    order = [tuple(p) for p in doc.get("order", [])]
    if len(set(order)) != len(order) or edge_pairs & set(order):
        doc["order"] = [list(p) for p in dict.fromkeys(order) if p not in edge_pairs]
    expected = quiet_load(_networkx_form(doc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InstanceWarning)
        built = Problem.from_networkx(_graph_of(doc), doc["platform"])
    assert built == expected
    assert built.to_json() == expected.to_json()
    assert np.array_equal(built.cost, expected.cost)
    assert np.array_equal(built.arc_src, expected.arc_src)
    assert np.array_equal(built.arc_unit, expected.arc_unit)


@pytest.mark.parametrize(
    ("limit", "block"),
    [(0, 4096), (0, 2), (4096, 4096)],
    ids=["blocks", "small-blocks", "bitsets"],
)
def test_redundant_isolation_both_algorithms(monkeypatch, limit, block):
    """Large instances keep reachable sets of the pairs' second tasks only, in blocks
    (one search per pair took 16 s at 100k tasks: an outside audit)."""
    import exactsched.instance

    monkeypatch.setattr(exactsched.instance, "_BITSET_LIMIT", limit)
    monkeypatch.setattr(exactsched.instance, "_TARGET_BLOCK", block)
    n = 50
    edges = [{"src": f"t{i}", "dst": f"t{i + 1}"} for i in range(0, n - 1) if i != 20]
    isolation = [["t49", "t21"], ["t3", "t20"], ["t20", "t21"], ["t0", "t49"], ["t10", "t30"]]
    doc = doc_of([{"id": f"t{i}", "cost": 1} for i in range(n)], edges=edges, isolation=isolation)
    with pytest.warns(InstanceWarning) as record:
        load_instance(doc)
    assert [str(w.message).split(":")[0] for w in record] == ["isolation[0]", "isolation[1]"]
    assert "from 't21' to 't49'" in str(record[0].message)


def test_memory_exhaustion_is_an_instance_error(monkeypatch):
    """A platform too large for its dense P x P hop matrix must not crash the CLI."""
    import exactsched.instance

    def exhausted(value):
        raise MemoryError

    monkeypatch.setattr(exactsched.instance, "_plain", exhausted)
    with pytest.raises(InstanceError, match=r"^instance: too large to hold in memory$"):
        load_instance(doc_of([{"id": "a", "cost": 1}]))


def test_empty_string_ids_and_types_are_ids_like_any_other():
    """The format asks for unique strings; ``""`` is one (outside contract audit, session 12)."""
    from exactsched import solve, validate
    from exactsched.schedule import Schedule

    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "", "type": ""}, {"id": "p1", "type": "cpu"}]},
        "tasks": [
            {"id": "", "cost": {"": 2, "cpu": 3}},
            {"id": "b", "cost": [1, 4], "processors": [""]},
        ],
        "edges": [{"src": "", "dst": "b", "data": 5}],
    }
    problem = load_instance(doc)
    assert problem.task_ids[0] == "" and problem.proc_ids[0] == ""
    for method in ("heft", "cpsat"):
        result = solve(problem, method, time_limit=5, workers=1)
        assert result.makespan == 3
        again = Schedule.from_json(json.loads(json.dumps(result.schedule.to_json())))
        assert validate(problem, again) == []


@pytest.mark.parametrize("seed", range(3))
def test_redundant_isolation_blocks_agree_with_bitsets(monkeypatch, seed):
    import exactsched.instance

    rng = np.random.default_rng(seed)
    n = 120
    edges = [{"src": f"t{a}", "dst": f"t{b}"} for a in range(n) for b in range(a + 1, n)
             if rng.random() < 0.02]  # fmt: skip
    pairs = {tuple(sorted(rng.choice(n, 2, replace=False).tolist())) for _ in range(80)}
    doc = doc_of([{"id": f"t{i}", "cost": 1} for i in range(n)], edges=edges,
                 isolation=[[f"t{a}", f"t{b}"] for a, b in sorted(pairs)])  # fmt: skip
    seen = []
    for limit, block in ((4096, 4096), (0, 7)):
        monkeypatch.setattr(exactsched.instance, "_BITSET_LIMIT", limit)
        monkeypatch.setattr(exactsched.instance, "_TARGET_BLOCK", block)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            load_instance(doc)
        seen.append(sorted(str(w.message) for w in record))
    assert seen[0] == seen[1] and seen[0]
