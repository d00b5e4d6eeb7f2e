"""The bad-input corpus: every malformed instance is refused with one line, exit 2.

Each file in ``tests/bad_instances/`` holds one defect. ``exactsched validate FILE``
must exit with status 2 and print exactly one line on standard error,
``exactsched: error: <message>``, whose message matches the regular expression
pinned below (it starts with the JSON path at fault, or the file name for text
that is not JSON) and never a traceback. A hypothesis fuzz test then mutates a
valid document at random and checks that nothing but :class:`InstanceError`
ever escapes the reader.
"""

from __future__ import annotations

import copy
import json
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactsched import InstanceError, InstanceWarning, load_instance
from exactsched.cli import main

CORPUS = Path(__file__).parent / "bad_instances"
ROOT = Path(__file__).parent.parent

# File name (without .json) -> regular expression the message must match from its start.
P = r"platform\.network\."
EXPECTED: dict[str, str] = {
    # Link names u->v must split one way (an outside audit, session 17).
    "contention_processor_id_with_arrow": r"platform\.processors\[1\]\.id: \"a->b\" holds '->'",
    "contention_processor_named_like_a_switch": r"platform\.processors\[1\]\.id: \"sw2\.0\" is "
    r"the name of a switch of the fat tree",
    "affinity_empty": r"tasks\[2\]\.processors: empty affinity.*\(task 'c'\)$",
    "affinity_number": r"tasks\[2\]\.processors\[0\]: expected a processor id, got 0",
    "affinity_string": r"tasks\[2\]\.processors: expected a list of processor ids, got \"p1\"",
    "affinity_type_missing": r"tasks\[1\]\.cost: no cost for processor type 'gpu' .*'g1'.*'b'",
    "affinity_unknown": r"tasks\[2\]\.processors\[1\]: unknown processor 'x9' \(task 'c'\)$",
    "bandwidth_negative": P + r"bandwidth: must be > 0, got -2\.5$",
    "bandwidth_true": P + r"bandwidth: expected a number, got true$",
    "bandwidth_zero": P + r"bandwidth: must be > 0, got 0$",
    "cost_1e400": r"tasks\[0\]\.cost: number must be finite, got inf \(task 'a'\)$",
    # A positive number that would read as 0: a task that takes time would occupy nothing.
    "cost_1e_minus_400": r".*cost_1e_minus_400\.json: line 1, column \d+: the number 1e-400 is "
    r"below the smallest positive float .* would read as 0; write 0 or at least 1e-300$",
    "cost_huge_integer": r"tasks\[0\]\.cost: number too large \(an integer of \d+ bits\)",
    "cost_infinity": r"tasks\[0\]\.cost: number must be finite, got inf",
    "cost_integer_too_long": r".*cost_integer_too_long\.json: invalid JSON: .*too many digits",
    "cost_list_bool": r"tasks\[2\]\.cost\[1\]: expected a number, got false \(task 'c'\)$",
    "cost_list_negative": r"tasks\[2\]\.cost\[1\]: negative number -16 \(task 'c'\)$",
    "cost_list_nested": r"tasks\[2\]\.cost\[1\]: expected a number, got \[16\]",
    "cost_list_string": r"tasks\[2\]\.cost\[1\]: expected a number, got \"16\"",
    "cost_list_too_long": r"tasks\[2\]\.cost: list has 4 numbers, expected 3",
    "cost_list_too_short": r"tasks\[2\]\.cost: list has 2 numbers, expected 3",
    "cost_missing": r"tasks\[0\]\.cost: missing \(task 'a'\)$",
    "cost_nan": r"tasks\[0\]\.cost: number must be finite, got nan",
    "cost_negative": r"tasks\[0\]\.cost: negative number -3 \(task 'a'\)$",
    "cost_null": r"tasks\[0\]\.cost: expected a number, an object .* or a list, got null",
    "cost_sum_overflow": r"tasks\[3\]\.cost: the costs up to task 'd' add up to more than the "
    r"largest float \(1\.8e308\); scale the costs down$",
    "edge_delay_overflow": r"edges\[0\]: communication delays add up, with the costs, to more",
    "id_lone_surrogate": r"tasks\[3\]\.id: not valid Unicode text \(a lone surrogate \\udc00 at "
    r"position 1\)$",
    "nul_bytes": r".*nul_bytes\.json: cannot read file: not a JSON text file \(it contains NUL",
    "cost_string": r"tasks\[0\]\.cost: expected a number, .* got \"10\"",
    "cost_true": r"tasks\[0\]\.cost: expected a number, .* got true",
    "cost_type_missing": r"tasks\[1\]\.cost: no cost for processor type 'gpu' \(type of "
    r"processor 'g1', allowed for task 'b'\)$",
    "cost_type_negative": r"tasks\[1\]\.cost\.gpu: negative number -3 \(task 'b'\)$",
    "cost_type_null": r"tasks\[1\]\.cost\.gpu: expected a number, got null",
    "cycle_edges": r"edges\[0\]: cycle 'a' -> 'b' -> 'd' -> 'a' "
    r"\(through edges\[0\], edges\[2\], edges\[3\]\)$",
    "cycle_order_only": r"order\[0\]: cycle 'b' -> 'd' -> 'c' -> 'b' "
    r"\(through order\[0\], order\[1\], order\[2\]\)$",
    "cycle_order_with_edges": r"edges\[0\]: cycle 'a' -> 'b' -> 'a' "
    r"\(through edges\[0\], order\[0\]\)$",
    "document_list": r"instance: expected an object, got \[\]$",
    "document_null": r"instance: expected an object, got null$",
    "document_string": r"instance: expected an object, got \"exactsched/instance@1\"$",
    "edge_data_negative": r"edges\[0\]\.data: negative number -18 \(edge 'a' -> 'b'\)$",
    "edge_data_null": r"edges\[0\]\.data: expected a number, got null",
    "edge_data_string": r"edges\[0\]\.data: expected a number, got \"18\"",
    "edge_data_true": r"edges\[0\]\.data: expected a number, got true",
    "edge_dst_number": r"edges\[1\]\.dst: expected a task id \(a string\), got 2$",
    "edge_duplicate": r"edges\[2\]: duplicate of edges\[0\] \(edge 'a' -> 'b'\)$",
    "edge_not_object": r"edges\[1\]: expected an object, got \[\"a\", \"c\"\]$",
    "edge_self_loop": r"edges\[1\]: self-loop on task 'a'$",
    "edge_src_missing": r"edges\[1\]\.src: missing$",
    "edge_unknown_dst": r"edges\[1\]\.dst: unknown task 'z'$",
    "edge_unknown_src": r"edges\[1\]\.src: unknown task 'z'$",
    "edges_object": r"edges: expected a list, got \{",
    "fat_tree_arity_one": P + r"arity: expected an integer >= 2, got 1$",
    "fat_tree_arity_true": P + r"arity: expected an integer >= 2, got true$",
    "fat_tree_not_power_of_arity": P + r"arity: .*power of the arity 2.* has 3",
    "format_missing": r"format: missing; expected 'exactsched/instance@1'$",
    "format_number": r"format: unknown format 1; expected",
    "format_unknown": r"format: unknown format \"exactsched/instance@2\"; expected",
    "hypercube_not_power_of_two": P + r"topology: a hypercube needs a power-of-two .* has 3$",
    "hypercube_with_dims": P + r"dims: not a key of topology 'hypercube'",
    "invalid_json_duplicate_key": r".*duplicate_key\.json: invalid JSON: key 'cost' repeated",
    "invalid_json_empty_file": r".*empty_file\.json: invalid JSON at line 1, column 1: ",
    "invalid_json_nested_too_deeply": r".*too_deeply\.json: invalid JSON: nested too deeply$",
    "invalid_json_single_quotes": r".*single_quotes\.json: invalid JSON at line 1, column 2: ",
    "invalid_json_trailing_comma": r".*trailing_comma\.json: invalid JSON at line 3, column 1: ",
    "invalid_json_truncated": r".*truncated\.json: invalid JSON at line \d+, column \d+: ",
    "invalid_utf8": r".*invalid_utf8\.json: cannot read file: .*utf-8",
    "isolation_null": r"isolation: expected a list, got null$",
    "isolation_pair_object": r"isolation\[0\]: expected a pair \[a, b\] of task ids",
    "isolation_self_pair": r"isolation\[0\]: pair of task 'c' with itself$",
    "isolation_unknown_task": r"isolation\[0\]\[0\]: unknown task 'q'$",
    "latency_nan": P + r"latency: number must be finite, got nan$",
    "latency_negative": P + r"latency: negative number -1$",
    "latency_string": P + r"latency: expected a number, got \"1\"$",
    "matrix_diagonal_nonzero": P + r"hops\[1\]\[1\]: diagonal entry must be 0",
    "matrix_missing_hops": P + r"hops: missing",
    "matrix_negative": P + r"hops\[1\]\[2\]: negative value -1$",
    "matrix_not_list": P + r"hops: expected a list of 3 rows",
    "matrix_short_row": P + r"hops\[1\]: expected 3 numbers, got 2$",
    "matrix_string_entry": P + r"hops\[0\]\[1\]: expected a number",
    "matrix_too_few_rows": P + r"hops: expected 3 rows \(one per processor\), got 2$",
    "mesh_dims_float": P + r"dims\[0\]: expected a positive integer, got 3\.0$",
    "mesh_dims_missing": P + r"dims: missing",
    "mesh_dims_not_list": P + r"dims: expected a non-empty list of positive integers",
    "mesh_dims_product": P + r"dims: product of \[2, 2\] is 4, but the platform has 3 ",
    "mesh_dims_zero": P + r"dims\[1\]: expected a positive integer, got 0$",
    "name_number": r"name: expected a string, got 7$",
    "network_list": r"platform\.network: expected an object, got \[\]$",
    "order_not_list": r"order: expected a list, got \{",
    "order_pair_numbers": r"order\[0\]\[0\]: expected a task id \(a string\), got 1$",
    "order_pair_one": r"order\[0\]: expected a pair \[a, b\] of task ids, got \[\"b\"\]$",
    "order_pair_string": r"order\[0\]: expected a pair \[a, b\] of task ids, got \"bd\"$",
    "order_pair_three": r"order\[0\]: expected a pair \[a, b\] of task ids, got \[",
    "order_self_pair": r"order\[0\]: pair of task 'd' with itself$",
    "order_unknown_task": r"order\[0\]\[1\]: unknown task 'q'$",
    "platform_list": r"platform: expected an object, got \[\]$",
    "platform_missing": r"platform: missing$",
    "processor_id_duplicate": r"platform\.processors\[1\]\.id: duplicate processor id 'p1'",
    "processor_id_missing": r"platform\.processors\[0\]\.id: missing$",
    "processor_id_null": r"platform\.processors\[0\]\.id: expected a string, got null",
    "processor_id_number": r"platform\.processors\[0\]\.id: expected a string, got 1",
    "processor_not_object": r"platform\.processors\[1\]: expected an object, got \"p2\"$",
    "processor_type_number": r"platform\.processors\[2\]\.type: expected a string",
    "processors_empty": r"platform\.processors: must not be empty$",
    "processors_missing": r"platform\.processors: missing$",
    "processors_object": r"platform\.processors: expected a list, got \{",
    "task_id_duplicate": r"tasks\[3\]\.id: duplicate task id 'a' \(also tasks\[0\]\)$",
    "task_id_missing": r"tasks\[3\]\.id: missing$",
    "task_id_number": r"tasks\[3\]\.id: expected a string, got 4$",
    "task_not_object": r"tasks\[3\]: expected an object, got \"d\"$",
    "tasks_empty": r"tasks: must not be empty$",
    "tasks_missing": r"tasks: missing$",
    "tasks_object": r"tasks: expected a list, got \{",
    "topology_number": P + r"topology: expected a string naming the topology, got 3$",
    "topology_unknown": P + r"topology: unknown topology 'ring'; known: .*fat-tree",
    "torus_dims_product": P + r"dims: product of \[4\] is 4, but the platform has 3 ",
}

FILES = sorted(CORPUS.glob("*.json"))


def _validate(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, str, str]:
    status = main(["validate", str(path)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_corpus_and_expectations_match():
    assert {f.stem for f in FILES} == set(EXPECTED)
    assert len(FILES) >= 100


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_bad_instance_exits_2_with_one_line(capsys, path):
    status, out, err = _validate(capsys, path)
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("exactsched: error: ")
    message = err[len("exactsched: error: ") : -1]
    assert re.match(EXPECTED[path.stem], message), message
    assert len(message) < 200


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_bad_instance_raises_instance_error(path):
    with pytest.raises(InstanceError, match=EXPECTED[path.stem]) as info:
        load_instance(path)
    assert isinstance(info.value, ValueError)
    assert info.value.__cause__ is None or isinstance(info.value.__cause__, ValueError)


@pytest.mark.parametrize(
    "name", ["cycle_edges", "invalid_json_truncated", "cost_nan", "id_lone_surrogate"]
)
def test_bad_instance_subprocess(name):
    proc = subprocess.run(
        [sys.executable, "-m", "exactsched", "validate", str(CORPUS / f"{name}.json")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert re.match(EXPECTED[name], proc.stderr.removeprefix("exactsched: error: "))


def test_missing_file_and_directory(capsys, tmp_path):
    status, _, err = _validate(capsys, tmp_path / "nope.json")
    assert status == 2 and "nope.json: cannot read file: No such file" in err
    status, _, err = _validate(capsys, tmp_path)
    assert status == 2 and "cannot read file" in err and err.count("\n") == 1


def test_redundant_isolation_is_a_warning_not_an_error(capsys, tmp_path):
    doc = json.loads((CORPUS.parent / "bad_instances" / "edge_self_loop.json").read_text())
    doc["edges"][1]["dst"] = "c"  # repair it
    doc["isolation"] = [["a", "c"]]  # a -> c is an edge: the pair is redundant
    path = tmp_path / "redundant.json"
    path.write_text(json.dumps(doc))
    status, out, err = _validate(capsys, path)
    assert status == 0 and "valid instance" in out
    assert re.fullmatch(
        r"exactsched: warning: isolation\[0\]: tasks 'a' and 'c' are already ordered by a "
        r"path from 'a' to 'c' \(harmless\)\n",
        err,
    )


def test_the_base_of_the_corpus_is_valid():
    doc = json.loads((CORPUS / "edge_self_loop.json").read_text())
    doc["edges"][1]["dst"] = "c"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        problem = load_instance(doc)
    assert problem.n_tasks == 4 and problem.n_processors == 3


# ---- fuzzing ----------------------------------------------------------------------

VALID = {
    "format": "exactsched/instance@1",
    "name": "fuzz",
    "platform": {
        "processors": [
            {"id": "p1", "type": "cpu"},
            {"id": "p2", "type": "cpu"},
            {"id": "g1", "type": "gpu"},
            {"id": "g2", "type": "gpu"},
        ],
        "network": {"topology": "mesh", "dims": [2, 2], "latency": 1, "bandwidth": 2},
    },
    "tasks": [
        {"id": "a", "cost": 10},
        {"id": "b", "cost": {"cpu": 30, "gpu": 3}},
        {"id": "c", "cost": [14, 16, 9, 9], "processors": ["p1", "g1"]},
        {"id": "d", "cost": 0},
    ],
    "edges": [{"src": "a", "dst": "b", "data": 18}, {"src": "a", "dst": "c"}],
    "order": [["b", "d"]],
    "isolation": [["b", "c"]],
}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["a", "b", "p1", "g1", "cpu", "mesh", "hypercube", "matrix", "", "x"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["id", "cost", "src", "dst", "data", "type", "dims", "hops", "x"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=8,
)


def _paths(value, prefix=()):
    """Every path to a value inside a document (the root excluded)."""
    if isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in items:
            yield (*prefix, key)
            yield from _paths(child, (*prefix, key))


ALL_PATHS = list(_paths(VALID))


@st.composite
def mutated(draw):
    doc = copy.deepcopy(VALID)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(ALL_PATHS))
        parent = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            if draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = draw(json_values)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this path
    return doc


def _load_quietly(doc):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InstanceWarning)
        return load_instance(doc)


@settings(
    max_examples=150,
    deadline=2000,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    database=None,
)
@given(mutated())
def test_fuzz_mutations_raise_only_instance_error(doc):
    try:
        problem = _load_quietly(doc)
    except InstanceError as exc:
        message = str(exc)
        assert "\n" not in message and message
        assert len(message) < 300
        return
    # Accepted: then it is a coherent problem that round-trips.
    assert problem.to_json() == doc
    assert problem.cost.shape == (problem.n_tasks, problem.n_processors)
    assert all(math.isfinite(c) for c in problem.cost[problem.allowed])


@settings(max_examples=150, deadline=2000, derandomize=True, database=None)
@given(json_values)
def test_fuzz_any_json_value_as_document(value):
    with pytest.raises(InstanceError):
        _load_quietly(value if isinstance(value, dict) else {"x": value})


@settings(max_examples=100, deadline=2000, derandomize=True, database=None)
@given(st.text(max_size=60))
def test_fuzz_any_text_as_file(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "doc.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    with pytest.raises(InstanceError) as info:
        _load_quietly(path)
    assert "\n" not in str(info.value)


TEXT = json.dumps(VALID)
PIECES = list('{}[],:"0123456789.-e ') + ["true", "null", "NaN", "1e400", '"a"', '"p1"', "[]"]


@st.composite
def mutated_text(draw):
    text = TEXT
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(0, len(text) - 1))
        piece = draw(st.sampled_from(PIECES))
        cut = draw(st.integers(0, 2))
        text = text[:k] + piece + text[k + cut :]
    return text


@settings(max_examples=150, deadline=2000, derandomize=True, database=None)
@given(mutated_text())
def test_fuzz_mutated_json_text(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "doc.json"
    path.write_text(text)
    try:
        problem = _load_quietly(path)
    except InstanceError as exc:
        assert "\n" not in str(exc)
        return
    assert problem.to_json() == json.loads(text)


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("cost", float("nan"), r"tasks\[1\]\.cost\[1\]: number must be finite, got nan \(task"),
        ("cost", float("inf"), r"tasks\[1\]\.cost\[1\]: number must be finite, got inf"),
        ("cost", 10**400, r"tasks\[1\]\.cost\[1\]: number too large \(an integer of \d+ bits\)"),
        ("cost", -1e-9, r"tasks\[1\]\.cost\[1\]: negative number -1e-09 \(task 'b'\)$"),
        ("cost", True, r"tasks\[1\]\.cost\[1\]: expected a number, got true"),
        ("data", float("nan"), r"edges\[0\]\.data: number must be finite, got nan \(edge 'a'"),
        ("data", float("-inf"), r"edges\[0\]\.data: number must be finite, got -inf"),
        ("data", 10**400, r"edges\[0\]\.data: number too large \(an integer of \d+ bits\)"),
        ("data", -3, r"edges\[0\]\.data: negative number -3 \(edge 'a' -> 'b'\)$"),
        ("data", False, r"edges\[0\]\.data: expected a number, got false"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 8 else None,
)  # fmt: skip
def test_fast_number_paths_name_the_entry(where, value, message):
    """The fast paths of cost lists and edge data refuse what the checks one by one refuse."""
    doc = {
        "format": "exactsched/instance@1",
        "platform": {"processors": [{"id": "p"}, {"id": "q"}]},
        "tasks": [{"id": "a", "cost": [1, 2]}, {"id": "b", "cost": [3, 4]}],
        "edges": [{"src": "a", "dst": "b", "data": 5}],
    }
    if where == "cost":
        doc["tasks"][1]["cost"][1] = value
    else:
        doc["edges"][0]["data"] = value
    with pytest.raises(InstanceError, match=message):
        load_instance(doc)
    # and the largest float, zero and negative zero pass both paths
    for ok in (1.7976931348623157e308 / 4, 0, -0.0, 10**300):
        doc["tasks"][1]["cost"][1] = ok if where == "cost" else 3
        doc["edges"][0]["data"] = ok if where == "data" else 5
        assert load_instance(doc).n_tasks == 2


@pytest.mark.parametrize(
    ("text", "where"),
    [
        # The literal inside a string (an id, a name) is not the number at fault.
        ('{"name": "cost 1e-400", "tasks": [{"id": "1e-400", "cost": 1e-400}]}',
         "line 1, column 60"),
        ('{"tasks": [{"id": "a", "cost": -1e-400}]}', "line 1, column 32"),
        ('{"tasks": [{"id": "a",\n  "cost": 1E-400}]}', "line 2, column 11"),
    ],
)  # fmt: skip
def test_an_underflowing_number_is_located(tmp_path, text, where):
    path = tmp_path / "u.json"
    path.write_text(text)
    with pytest.raises(InstanceError, match=f"u.json: {where}: the number .* would read"):
        load_instance(path)


def test_wfcommons_refuses_an_underflowing_runtime():
    from exactsched.workloads.wfcommons import read_wfcommons

    text = (
        '{"name": "w", "schemaVersion": "1.4", "workflow": {"tasks": ['
        '{"name": "a", "runtimeInSeconds": 1e-400, "parents": [], "files": []}]}}\n'
    )
    with pytest.raises(InstanceError, match=r"wfcommons: line 1, column \d+: the number 1e-400"):
        read_wfcommons(text, "cpu-gpu:1+1")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            '{"name": "w", "schemaVersion": "1.4", "workflow": {"tasks": ['
            '{"name": "a", "runtimeInSeconds": 1, "runtimeInSeconds": 2, "parents": [],'
            ' "files": []}]}}\n',
            "key 'runtimeInSeconds' repeated in one object",
        ),
        (
            '{"name": "w", "schemaVersion": "1.4", "workflow": {"tasks": ['
            '{"name": "a", "runtimeInSeconds": 1' + "0" * 5000 + ', "parents": [],'
            ' "files": []}]}}\n',
            "an integer with too many digits",
        ),
    ],
    ids=["repeated-key", "long-integer"],
)
def test_wfcommons_reads_json_as_strictly_as_instances(text, match):
    # One JSON reading for every input: a repeated key would otherwise keep
    # its last value silently.
    from exactsched.workloads.wfcommons import read_wfcommons

    with pytest.raises(InstanceError, match=match):
        read_wfcommons(text, "cpu-gpu:1+1")


@pytest.mark.parametrize(
    ("tasks", "match"),
    [
        (  # two tasks named x: a parent "x" could be either (1.3/1.4 refer by name)
            '[{"id": "1", "name": "x", "runtimeInSeconds": 1, "parents": []},'
            ' {"id": "2", "name": "x", "runtimeInSeconds": 2, "parents": []},'
            ' {"id": "3", "name": "y", "runtimeInSeconds": 3, "parents": ["x"]}]',
            "task '3': ambiguous parent 'x' \\(the name of tasks '1', '2'\\)",
        ),
        (  # one file listed twice with two sizes
            '[{"name": "a", "runtimeInSeconds": 1, "parents": [], "files": ['
            '{"link": "output", "name": "f", "sizeInBytes": 3},'
            ' {"link": "output", "name": "f", "sizeInBytes": 4}]}]',
            "files\\[1\\]: file 'f' listed twice, with sizes 3 and 4 bytes",
        ),
    ],
    ids=["ambiguous-parent", "file-twice"],
)
def test_wfcommons_refuses_what_it_would_resolve_silently(tasks, match):
    # An outside audit: the first task of a shared name was taken, the last size kept.
    from exactsched.workloads.wfcommons import read_wfcommons

    text = '{"name": "w", "schemaVersion": "1.4", "workflow": {"tasks": ' + tasks + "}}\n"
    with pytest.raises(InstanceError, match=match):
        read_wfcommons(text, "cpu-gpu:1+1")


def test_wfcommons_refuses_a_task_executed_twice():
    from exactsched.workloads.wfcommons import read_wfcommons

    text = (
        '{"name": "w", "schemaVersion": "1.5", "workflow": {'
        '"specification": {"tasks": [{"id": "a", "name": "a", "parents": []}], "files": []},'
        '"execution": {"tasks": [{"id": "a", "runtimeInSeconds": 1},'
        ' {"id": "a", "runtimeInSeconds": 5}]}}}\n'
    )
    with pytest.raises(InstanceError, match=r"tasks\[1\].id: task 'a' executed twice, in 1 and 5"):
        read_wfcommons(text, "cpu-gpu:1+1")
    same = text.replace('"runtimeInSeconds": 5', '"runtimeInSeconds": 1')
    assert read_wfcommons(same, "cpu-gpu:1+1").cost.tolist() == [[1e6, 1e6]]  # harmless


def test_wfcommons_1_5_refuses_a_file_specified_twice_with_two_sizes():
    from exactsched.workloads.wfcommons import read_wfcommons

    text = (
        '{"name": "w", "schemaVersion": "1.5", "workflow": {"specification": {'
        '"tasks": [{"id": "a", "name": "a", "parents": [], "outputFiles": ["f"]}],'
        ' "files": [{"id": "f", "sizeInBytes": 300}, {"id": "f", "sizeInBytes": 999}]},'
        '"execution": {"tasks": [{"id": "a", "runtimeInSeconds": 1}]}}}\n'
    )
    with pytest.raises(InstanceError, match=r"files\[1\]: file 'f' listed twice, with sizes"):
        read_wfcommons(text, "cpu-gpu:1+1")


def test_wfcommons_costs_keep_6_places_for_the_exact_models():
    # An outside review: 15 significant digits gave 333333.333333333 (9 places), which
    # the exact models could no longer scale; 6 places, and a tiny runtime kept > 0.
    from exactsched.workloads.wfcommons import read_wfcommons

    text = (
        '{"name": "w", "schemaVersion": "1.4", "workflow": {"tasks": ['
        '{"name": "a", "runtimeInSeconds": 1, "parents": []}]}}\n'
    )
    p = read_wfcommons(text, "cpu-gpu:1+1", speeds={"cpu": 1, "gpu": 3})
    assert p.cost.tolist() == [[1e6, 333333.333333]]


def test_wfcommons_keeps_a_tiny_positive_runtime_positive():
    from exactsched.workloads.wfcommons import read_wfcommons

    text = (
        '{"name": "w", "schemaVersion": "1.4", "workflow": {"tasks": ['
        '{"name": "a", "runtimeInSeconds": 1e-13, "parents": []},'
        ' {"name": "b", "runtimeInSeconds": 2.675, "parents": ["a"]}]}}\n'
    )
    p = read_wfcommons(text, "cpu-gpu:1+1")
    assert p.cost.tolist() == [[1e-07, 1e-07], [2675000.0, 2675000.0]]
