"""STG and DOT round trips, WfCommons input, the format-dispatching loader, platforms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exactsched import InstanceError, MethodError, load_instance
from exactsched.cli import main
from exactsched.workloads import (
    detect_format,
    load_problem,
    read_dot,
    read_stg,
    read_wfcommons,
    resolve_platform,
    write_dot,
    write_stg,
)

DATA = Path(__file__).parent / "data"
STG_FILES = sorted((DATA / "stg").glob("*/*.stg"))
DOT_FILES = sorted((DATA / "sinnen-dot").glob("*.dot"))
WF = DATA / "wfcommons" / "blast-small.json"


def tokens(text):
    return [t for line in text.splitlines() for t in line.split("#", 1)[0].split()]


def graph(problem):
    """Tasks with costs and edges with data, independent of order."""
    doc = problem.to_json()
    return (
        sorted((t["id"], json.dumps(t["cost"])) for t in doc["tasks"]),
        sorted((e["src"], e["dst"], e.get("data", 0)) for e in doc.get("edges", [])),
    )


# ---- STG ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", STG_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stg_round_trip_is_token_exact(path):
    # STG -> instance -> STG gives the same records (comments aside).
    text = path.read_text()
    problem = read_stg(path, 2)
    assert tokens(write_stg(problem)) == tokens(text)
    # Without dummies the writer adds them back: the same graph again.
    dropped = read_stg(path, 2, keep_dummies=False)
    assert dropped.n_tasks == problem.n_tasks - 2
    assert "t0" not in dropped.task_ids and f"t{problem.n_tasks - 1}" not in dropped.task_ids
    assert tokens(write_stg(dropped)) == tokens(text)


def test_stg_write_adds_dummies_and_orders_topologically(tmp_path):
    from exactsched import Problem

    p = Problem.from_lists([3, 4, 5], [(2, 0), (2, 1)], n_processors=2)
    text = write_stg(p, tmp_path / "g.stg")
    assert (tmp_path / "g.stg").read_text() == text
    assert tokens(text) == tokens("3\n0 0 0\n1 5 1 0\n2 3 1 1\n3 4 1 1\n4 0 2 2 3\n")
    back = read_stg(text, 2, keep_dummies=False)
    assert back.cost[:, 0].tolist() == [5, 3, 4]


def test_stg_write_uses_mean_or_min_cost():
    from exactsched import Problem

    p = Problem.from_lists([[2, 6]], [], n_processors=2)
    assert tokens(write_stg(p))[5] == "4"
    assert tokens(write_stg(p, cost="min"))[5] == "2"
    with pytest.raises(InstanceError, match="cost: expected 'mean' or 'min'"):
        write_stg(p, cost="max")


def test_stg_on_a_platform():
    p = read_stg(STG_FILES[0], platform="titan")
    assert p.n_processors == 17 and p.to_json()["platform"] == {"preset": "titan"}
    with pytest.raises(MethodError, match="n_processors: expected a positive integer"):
        read_stg(STG_FILES[0])


# ---- DOT ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", DOT_FILES, ids=lambda p: p.name)
def test_dot_round_trip_keeps_the_graph(path, tmp_path):
    problem = read_dot(path, 2)
    out = tmp_path / "g.dot"
    text = write_dot(problem, out)
    assert out.read_text() == text
    again = read_dot(out, 2)
    assert again.to_json() == problem.to_json()  # same tasks, order, costs, edges, name
    # The pydot engine reads the same graph (edge order may differ).
    assert graph(read_dot(path, 2, engine="pydot")) == graph(problem)


def test_dot_write_heterogeneous_costs_and_odd_names():
    from exactsched import Problem

    p = Problem.from_lists([[1, 3], [2, 2]], [(0, 1, 1.5)], n_processors=2)
    text = write_dot(p)
    assert 't0 [Weight=2, Costs="1 3"];' in text and "t1 [Weight=2];" in text
    doc = {
        "format": "exactsched/instance@1",
        "name": "a graph",
        "platform": {"processors": [{"id": "p"}]},
        "tasks": [
            {"id": "node", "cost": 1},
            {"id": 'say "hi"', "cost": 2},
            {"id": "7", "cost": 0},
        ],
        "edges": [{"src": "node", "dst": 'say "hi"', "data": 4}],
    }
    q = load_instance(doc)
    back = read_dot(write_dot(q), 1)
    assert graph(back) == graph(q) and back.task_ids == q.task_ids and back.name == "a graph"


def test_dot_on_a_platform_and_engines():
    p = read_dot(DOT_FILES[0], platform="mesh:2x2")
    assert p.network == {"topology": "mesh", "dims": [2, 2]}
    with pytest.raises(MethodError, match="engine: unknown 'x'"):
        read_dot(DOT_FILES[0], 2, engine="x")
    with pytest.raises(MethodError, match="give n_processors or a platform"):
        read_dot(DOT_FILES[0])


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("graph {\n a; }", r"^dot: expected 'digraph'"),
        ("digraph {\n a [Weight=1]\n", r"^dot:3: Expected "),
        ("digraph {\n a [Weight=1];\n a -> b;\n}", r"^dot: node 'b' has no Weight"),
        ("digraph {\n a [Weight=x];\n}", r"node 'a': Weight must be a number, got 'x'"),
    ],
)
def test_dot_pydot_engine_errors_are_one_line(text, match):
    with pytest.raises(InstanceError, match=match) as info:
        read_dot(text, 2, engine="pydot")
    assert "\n" not in str(info.value)


def test_dot_subgraphs_with_pydot():
    text = "digraph {\n subgraph s { a [Weight=1]; b [Weight=2]; }\n a -> b [Weight=3];\n}\n"
    p = read_dot(text, 2, engine="pydot")
    assert p.task_ids == ("a", "b") and p.edge_data.tolist() == [3]


# ---- WfCommons ---------------------------------------------------------------------


def test_wfcommons_blast_small():
    p = read_wfcommons(WF, "single-gpu", speeds={"gpu": 10.0})
    assert p.n_tasks == 6 and p.n_edges == 7
    i = p.task_ids.index("blastall_00000002")
    assert p.cost[i, 0] == pytest.approx(81.204e6) and p.cost[i, -1] == pytest.approx(8.1204e6)
    # split -> blastall carries the chunk it wrote; blastall -> cat_blast its output.
    data = {
        (p.task_ids[a], p.task_ids[b]): d
        for a, b, d in zip(
            p.edge_src.tolist(), p.edge_dst.tolist(), p.edge_data.tolist(), strict=True
        )
    }
    assert data["split_fasta_00000001", "blastall_00000003"] == 614400
    assert data["blastall_00000004", "cat_blast_00000005"] == 2304000
    assert data["cat_blast_00000005", "cat_00000006"] == 6451200
    assert p.name == "blast-small"


def test_wfcommons_schema_1_3_sizes_in_kb_and_seconds_scale():
    text = json.dumps(
        {
            "name": "old",
            "workflow": {
                "tasks": [
                    {
                        "name": "a",
                        "runtime": 2,
                        "files": [{"link": "output", "name": "f", "size": 3}],
                    },
                    {
                        "name": "b",
                        "runtime": 1,
                        "parents": ["a"],
                        "files": [{"link": "input", "name": "f", "size": 3}],
                    },
                ]
            },
        }  # fmt: skip
    )
    p = read_wfcommons(text + "\n", "fully-connected:2", time_scale=1.0)
    assert p.cost[:, 0].tolist() == [2, 1] and p.edge_data.tolist() == [3000]


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        ({"name": "x"}, "workflow: missing; not a WfFormat document"),
        ({"workflow": {"tasks": []}}, "workflow: has no tasks"),
        (
            {"workflow": {"tasks": [{"name": "a"}]}},
            r"workflow.tasks\[0\].runtime: expected a number",
        ),
        (
            {"workflow": {"tasks": [{"name": "a", "runtime": 1, "parents": ["z"]}]}},
            "task 'a': unknown parent 'z'",
        ),
        (
            {"workflow": {"specification": {"tasks": [{"id": "a", "inputFiles": ["f"]}]}}},
            r"tasks\[0\].inputFiles\[0\]: unknown file 'f'",
        ),
        (
            {"workflow": {"specification": {"tasks": [{"id": "a"}]}, "execution": {"tasks": []}}},
            "task 'a' has no runtime",
        ),
        (
            {"workflow": {"tasks": [{"name": "a", "runtime": -1}]}},
            "expected a finite number >= 0",
        ),
        (  # an unhashable id was an internal error (exit 3)
            {"workflow": {"specification": {"tasks": [{"id": "a", "outputFiles": [["f"]]}],
                                            "files": [{"id": "f", "sizeInBytes": 3}]}}},
            r"tasks\[0\].outputFiles\[0\]: expected a file id, got \[\"f\"\]",
        ),
        (  # a size the schema requires was taken as 0 bytes
            {"workflow": {"specification": {"tasks": [{"id": "a"}], "files": [{"id": "f"}]}}},
            r"files\[0\].sizeInBytes: missing",
        ),
        (
            {"workflow": {"tasks": [{"name": "a", "runtime": 1,
                                     "files": [{"link": "output", "name": "f"}]}]}},
            r"tasks\[0\].files\[0\].sizeInBytes: missing",
        ),
    ],
)  # fmt: skip
def test_wfcommons_errors_name_the_path(doc, match):
    with pytest.raises(InstanceError, match=match):
        read_wfcommons(json.dumps(doc) + "\n", "fully-connected:2")


def test_wfcommons_sizes_add_up_exactly(tmp_path):
    # 0.1 + 0.2 bytes gave data 0.30000000000000004, and 2**53 + 1 bytes lost its 1.
    def doc(sizes):
        files = [{"id": f"f{k}", "sizeInBytes": v} for k, v in enumerate(sizes)]
        ids = [f["id"] for f in files]
        tasks = [{"id": "a", "outputFiles": ids}, {"id": "b", "parents": ["a"], "inputFiles": ids}]
        run = [{"id": t, "runtimeInSeconds": 1} for t in "ab"]
        spec = {"tasks": tasks, "files": files}
        return json.dumps({"workflow": {"specification": spec, "execution": {"tasks": run}}})

    small = read_wfcommons(doc([0.1, 0.2]) + "\n", "fully-connected:2")
    assert small.edge_data.tolist() == [0.3]
    source, out = tmp_path / "w.json", tmp_path / "i.json"
    source.write_text(doc([2**53 + 1]))
    assert main(["convert", str(source), "--platform", "fully-connected:2", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["edges"][0]["data"] == 2**53 + 1  # as written


def test_wfcommons_not_json():
    with pytest.raises(InstanceError, match=r"wfcommons: invalid JSON at line 1"):
        read_wfcommons("{oops\n", "single-gpu")


# ---- loader and platforms ----------------------------------------------------------


def test_detect_format(tmp_path):
    assert detect_format(WF) == "wfcommons"
    assert detect_format(DOT_FILES[0]) == "dot"
    assert detect_format(STG_FILES[0]) == "stg"
    assert detect_format("examples/topcuoglu2002.json") == "instance"
    odd = tmp_path / "graph.txt"
    odd.write_text(DOT_FILES[0].read_text())
    assert detect_format(odd) == "dot"
    odd.write_text(STG_FILES[0].read_text())
    assert detect_format(odd) == "stg"
    odd.write_text("hello")
    with pytest.raises(InstanceError, match="unknown file type"):
        detect_format(odd)


def test_load_problem_every_format():
    assert load_problem(STG_FILES[0], "multi-gpu").n_processors == 32
    assert load_problem(STG_FILES[0], "multi-gpu", keep_dummies=False).n_tasks == 100
    assert load_problem(DOT_FILES[0], "fully-connected:3").n_processors == 3
    assert load_problem(WF, "summit").n_tasks == 6
    assert load_problem("examples/topcuoglu2002.json").n_processors == 3
    retargeted = load_problem("examples/cholesky-n4-single-gpu.json", "summit")
    assert retargeted.n_processors == 50
    for path in (STG_FILES[0], DOT_FILES[0], WF):
        with pytest.raises(InstanceError, match="has no platform; give one"):
            load_problem(path)
    with pytest.raises(InstanceError, match="on platform summit: tasks"):
        load_problem("examples/topcuoglu2002.json", "summit")  # per-processor cost lists


@pytest.mark.parametrize(
    ("spec", "n", "topology"),
    [
        ("single-gpu", 8, "accelerated-node"),
        ("hoft-multi-gpu", 32, "accelerated-node"),
        ("fully-connected:5", 5, "fully-connected"),
        ("mesh:12", 12, "mesh"),
        ("torus:2x2x2", 8, "torus"),
        ("hypercube:8", 8, "hypercube"),
        ("fat-tree:4", 4, "fat-tree"),
        ("cpu-gpu:3+2", 5, "accelerated-node"),
        ({"preset": "titan", "network": {"latency": 2}}, 17, "accelerated-node"),
    ],
)
def test_resolve_platform(spec, n, topology):
    resolved = resolve_platform(spec)
    assert len(resolved.types) == n and resolved.network["topology"] == topology


def test_resolve_platform_from_files(tmp_path):
    instance = resolve_platform("examples/mesh-isolation.json")
    assert instance.network["topology"] == "mesh"
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"preset": "summit", "network": {"bandwidth": 5}}))
    spec = resolve_platform(path)
    assert spec.network["bandwidth"] == 5 and spec.hardware.gpu == 7.8e6


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("nowhere", "is not a preset, a shorthand like 'mesh:4x4' or a file"),
        ("ring:4", "unknown shorthand topology 'ring'"),
        ("hypercube:6", "platform.network"),
        ("mesh:0", "has no processors"),
        ("cpu-gpu:3", "bad shape"),
        (3, "expected a preset name, a file or a platform object"),
    ],
)
def test_resolve_platform_errors(spec, match):
    with pytest.raises(InstanceError, match=match):
        resolve_platform(spec)


# ---- presets inside instances ------------------------------------------------------

DOC = {
    "format": "exactsched/instance@1",
    "tasks": [
        {"id": "a", "cost": {"cpu": 4, "gpu": 1}},
        {"id": "b", "cost": {"cpu": 4, "gpu": 1}},
    ],
    "edges": [{"src": "a", "dst": "b", "data": 10}],
}


@pytest.mark.parametrize("name", ["single-gpu", "multi-gpu", "titan", "summit", "hoft-multi-gpu"])
def test_instance_platform_by_preset_name(name):
    p = load_instance({**DOC, "platform": name})
    assert p.topology is not None and "gpu" in p.proc_types
    assert p.to_json()["platform"] == name  # the document keeps the preset


def test_instance_preset_with_network_overrides():
    p = load_instance({**DOC, "platform": {"preset": "summit", "network": {"bandwidth": 4}}})
    assert p.n_processors == 50 and p.bandwidth == 4
    assert p.network == {"topology": "accelerated-node", "bandwidth": 4}


@pytest.mark.parametrize(
    ("platform", "match"),
    [
        ("frontier", r"^platform: unknown platform preset 'frontier'; known: hoft-multi-gpu"),
        ({"preset": 5}, r"^platform.preset: expected a preset name, got 5"),
        ({"preset": "titan", "processors": []}, r"^platform.processors: not allowed with"),
        ({"preset": "titan", "network": []}, r"^platform.network: expected an object"),
        ({"preset": "titan", "network": {"bandwidth": 0}}, r"^platform.network.bandwidth"),
    ],
)
def test_instance_preset_errors(platform, match):
    with pytest.raises(InstanceError, match=match):
        load_instance({**DOC, "platform": platform})


# ---- issue 16, item 13: conversions keep what they can carry --------------------------------

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "topcuoglu2002.json"


def test_json_dot_json_keeps_per_processor_costs(tmp_path):
    from exactsched import solve, validate
    from exactsched.cli import main

    dot, back = tmp_path / "t.dot", tmp_path / "t.json"
    assert main(["convert", str(EXAMPLE), "-o", str(dot)]) == 0
    assert 'Costs="14 16 9"' in dot.read_text()
    assert main(["convert", str(dot), "-o", str(back), "--platform", str(EXAMPLE)]) == 0
    original, again = load_instance(EXAMPLE), load_instance(back)
    assert (again.cost == original.cost).all() and graph(again)[1] == graph(original)[1]
    result = solve(again, "heft")
    assert result.makespan == 80 and validate(again, result.schedule) == []


@pytest.mark.parametrize("engine", ["builtin", "pydot"])
def test_dot_round_trip_keeps_odd_ids_and_affinity(engine):
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p"}, {"id": "q"}]},
        "tasks": [
            {"id": "a\\b", "cost": [1, 2]},
            {"id": 'c"d\\', "cost": 3, "processors": ["q"]},
            {"id": "e\\\\f", "cost": 1},
        ],
        "edges": [{"src": "a\\b", "dst": 'c"d\\', "data": 2}],
    }
    problem = load_instance(doc)
    again = read_dot(write_dot(problem), platform=doc["platform"], engine=engine)
    assert again.task_ids == problem.task_ids
    assert (again.allowed == problem.allowed).all()
    assert (again.cost[again.allowed] == problem.cost[problem.allowed]).all()


@pytest.mark.parametrize("engine", ["builtin", "pydot"])
def test_dot_round_trip_keeps_decimal_costs_alike_everywhere(engine):
    # A cost the same on every processor is written as itself, not as the float mean
    # of its copies (0.1 on three processors came back 0.10000000000000002; an outside
    # audit, session 17).
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p0"}, {"id": "p1"}, {"id": "p2"}]},
        "tasks": [
            {"id": "a", "cost": 0.1},
            {"id": "b", "cost": 0.7},
            {"id": "c", "cost": [1, 2, 4]},
            {"id": "d", "cost": 0.3, "processors": ["p0", "p2"]},
        ],
        "edges": [{"src": "a", "dst": "b", "data": 0.3}],
    }
    problem = load_instance(doc)
    text = write_dot(problem)
    assert "a [Weight=0.1]" in text and "b [Weight=0.7]" in text
    again = read_dot(text, platform=doc["platform"], engine=engine)
    assert (again.cost[again.allowed] == problem.cost[problem.allowed]).all()


def test_dot_costs_must_match_the_platform():
    text = 'digraph g {\n a [Weight=2, Costs="1 3"];\n}\n'
    with pytest.raises(InstanceError, match=r"dot:2: node 'a': Costs lists 2 numbers, the "
                       r"platform has 3 processors"):  # fmt: skip
        read_dot(text, 3)
    with pytest.raises(InstanceError, match="Costs must be numbers"):
        read_dot('digraph g {\n a [Weight=2, Costs="1 x"];\n}\n', 2)


def test_wfcommons_children_only_gives_the_same_edges(tmp_path):
    doc = json.loads(WF.read_text())
    wf = doc["workflow"]
    tasks = wf["specification"]["tasks"] if "specification" in wf else wf["tasks"]
    for task in tasks:
        task.pop("parents", None)
    children_only = tmp_path / "children.json"
    children_only.write_text(json.dumps(doc))
    expected = read_wfcommons(WF, "single-gpu")
    got = read_wfcommons(children_only, "single-gpu")
    assert expected.n_edges > 0 and graph(got) == graph(expected)
    tasks[0]["children"] = ["nowhere"]
    children_only.write_text(json.dumps(doc))
    with pytest.raises(InstanceError, match="unknown child 'nowhere'"):
        read_wfcommons(children_only, "single-gpu")


@pytest.mark.parametrize("engine", ["builtin", "pydot"])
def test_an_order_pair_through_dot_stays_an_order_pair(engine):
    # It came back as a data edge of Weight 0, which pays the network latency: the
    # optimum went from 5 to 10 after a round trip (an outside audit).
    from exactsched import Problem, solve

    network = {"topology": "fully-connected", "latency": 5}
    problem = Problem.from_lists([[2, 3], [3, 3]], network=network, order=[(0, 1)],
                                 affinity={0: [0], 1: [1]})  # fmt: skip
    text = write_dot(problem)
    assert "kind=order" in text
    back = read_dot(text, platform={"processors": [{"id": "p0"}, {"id": "p1"}],
                                    "network": network}, engine=engine)  # fmt: skip
    assert back.edge_src.tolist() == [] and back.order_src.tolist() == [0]
    for p in (problem, back):
        assert solve(p, "bruteforce").makespan == 5


def test_an_order_pair_in_dot_carries_no_data():
    text = "digraph {\n a [Weight=1];\n b [Weight=1];\n a -> b [Weight=3, kind=order];\n}\n"
    with pytest.raises(InstanceError, match=r"an order pair \(kind=order\) carries no data"):
        read_dot(text, 2)


@pytest.mark.parametrize("token", ["1_0", "\uff13", "\u0663", "+ 3"])
def test_stg_numbers_are_plain_ascii_integers(token):
    # int() takes "1_0" (10) and other scripts' digits: an STG field is a plain integer.
    text = f"1\n0 0 0\n1 {token} 1 0\n2 0 1 1\n"
    with pytest.raises(InstanceError, match="expected an integer"):
        read_stg(text, 2)


@pytest.mark.parametrize("weight", ["1_5", '"1_5"', "\u0663", "0x10"])
def test_dot_weights_are_plain_decimal_numbers(weight):
    # (Unquoted, the tokenizer refuses some first: refused either way, never read.)
    with pytest.raises(InstanceError, match="Weight must be a number|unexpected character"):
        read_dot(f"digraph {{\n a [Weight={weight}];\n}}\n", 2)


def test_dot_integers_above_2_53_are_read_exactly(tmp_path):
    text = "digraph {\n a [Weight=9007199254740993];\n b [Weight=1];\n a -> b [Weight=5];\n}\n"
    source, out = tmp_path / "g.dot", tmp_path / "g.json"
    source.write_text(text)
    assert main(["convert", str(source), "--platform", "fully-connected:2", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["tasks"][0]["cost"] == 2**53 + 1


def test_an_stg_file_may_start_with_a_byte_order_mark():
    assert read_stg("\ufeff1\n0 0 0\n1 3 1 0\n2 0 1 1\n", 2).n_tasks == 3


def test_writing_stg_warns_that_task_ids_are_not_kept(tmp_path, capsys):
    from exactsched import Problem

    doc = Problem.from_lists([1, 2], [(0, 1)], n_processors=1).to_json()
    doc["tasks"][0]["id"], doc["edges"][0]["src"] = "load", "load"
    source = tmp_path / "i.json"
    source.write_text(json.dumps(doc))
    assert main(["convert", str(source), "-o", str(tmp_path / "i.stg")]) == 0
    err = capsys.readouterr().err
    assert "the ids of 2 tasks dropped" in err and "'load' reads back as 't1'" in err
    # An STG file read with its dummies reads back with the same ids: nothing to say.
    stg = tmp_path / "i.stg"
    assert main(["convert", str(stg), "--platform", "fully-connected:1", "-o",
                 str(tmp_path / "again.stg")]) == 0  # fmt: skip
    assert "ids" not in capsys.readouterr().err


def test_a_quoted_dot_id_continues_across_a_backslash_line_end():
    text = 'digraph {\n "ab\\\ncd" [Weight=1];\n "x\\\\" [Weight=2];\n "ab\\\ncd" -> "x\\\\";\n}\n'
    problem = read_dot(text, 1)
    assert problem.task_ids == ("abcd", "x\\")


def test_a_quoted_dot_weight_may_have_blanks_around_it():
    assert read_dot('digraph {\n a [Weight=" 3 "];\n}\n', 1).cost.tolist() == [[3.0]]


@pytest.mark.parametrize("size", [10**400, -(10**400)])
def test_a_wfcommons_size_beyond_floats_is_named(size):
    files = [{"id": "f", "sizeInBytes": size}]
    spec = {"tasks": [{"id": "a", "outputFiles": ["f"]}], "files": files}
    run = {"tasks": [{"id": "a", "runtimeInSeconds": 1}]}
    text = json.dumps({"workflow": {"specification": spec, "execution": run}}) + "\n"
    with pytest.raises(InstanceError, match=r"files\[0\].sizeInBytes: expected a finite number"):
        read_wfcommons(text, "fully-connected:1")
