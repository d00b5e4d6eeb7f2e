"""Reader of WfCommons workflow instances (WfFormat JSON).

Contract
--------
:func:`read_wfcommons` turns a WfFormat document [1]_ into a
:class:`~exactsched.Problem` on a given platform:

* one task per workflow task (id = the task's ``id``, else its ``name``);
* its cost on a processor of type ``T`` is its measured runtime in seconds,
  times ``time_scale`` (default ``1e6``: microseconds, the unit of the
  presets' bandwidths), divided by ``speeds[T]`` (default 1 for every type:
  the platform's processors run as fast as the machine that recorded the
  trace);
* one edge per parent-child pair, listed by the child (``parents``), the
  parent (``children``) or both, whose ``data`` is the total size in bytes of
  the files the parent writes and the child reads (0 when they share none);
  ``parents`` and ``children`` hold task ids in schema 1.5 and task names in
  1.3-1.4, and are matched by that alone (one task's id may be another's name).

Both layouts of the format are read: schema 1.5 (``workflow.specification``
with ``tasks`` and ``files``, ``workflow.execution.tasks`` with
``runtimeInSeconds``) and schemas 1.3-1.4 (``workflow.tasks`` with
``runtimeInSeconds`` or ``runtime`` and inline ``files`` entries with ``link``
``"input"``/``"output"`` and ``sizeInBytes`` or ``size`` in kB for 1.3).
A ``schemaVersion`` other than 1.3, 1.4 or 1.5 is refused (1.0-1.2 list
``jobs``, and a later version may change the layout); a document without one is
read by its layout. Every error is one :class:`~exactsched.InstanceError` line
naming the file and the JSON path at fault; a cost that would overflow
floating point names the task's runtime in the file, or the speed (``speeds.T``)
that is too small.

References
----------
.. [1] T. Coleman, H. Casanova, L. Pottier, M. Kaushik, E. Deelman and R. Ferreira
   da Silva, "WfCommons: A framework for enabling scientific workflow research and
   development", Future Generation Computer Systems 128, pp. 16-27, 2022,
   doi:10.1016/j.future.2021.09.043; format: https://github.com/wfcommons/wfformat
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from exactsched.errors import InstanceError
from exactsched.instance import parse_json_text
from exactsched.problem import Problem
from exactsched.workloads._source import read_source

__all__ = ["SCHEMA_VERSIONS", "read_wfcommons"]

#: The WfFormat versions whose layout :func:`read_wfcommons` reads (1.0-1.2 list ``jobs``).
SCHEMA_VERSIONS = ("1.3", "1.4", "1.5")


def _fail(label: str, where: str, message: str) -> InstanceError:
    return InstanceError(f"{label}: {where}: {message}")


def _number(value: Any, label: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(label, where, f"expected a number, got {json.dumps(value)[:40]}")
    if isinstance(value, int) and abs(value) > sys.float_info.max:  # isfinite() overflows
        raise _fail(label, where, f"expected a finite number, got {str(value)[:20]}...")
    if not math.isfinite(value) or value < 0:
        raise _fail(label, where, f"expected a finite number >= 0, got {value!r}")
    return float(value)


def _size(value: Any, label: str, where: str) -> int | float:
    """A file size as written (an integer stays one: 2**53 + 1 bytes is not rounded)."""
    _number(value, label, where)
    return value


def _total(sizes: list[int | float]) -> int | float:
    """The exact sum of file sizes, as the decimals they are written as (0.1 + 0.2 is 0.3).

    Examples
    --------
    >>> _total([0.1, 0.2]), _total([2**53, 1]), _total([])
    (0.3, 9007199254740993, 0)
    """
    if all(isinstance(v, int) for v in sizes):
        return sum(sizes)
    return float(sum(Decimal(repr(v)) if isinstance(v, float) else Decimal(v) for v in sizes))


def _list(value: Any, label: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(label, where, "expected a list")
    return value


def _task_key(task: Any, label: str, where: str) -> str:
    if not isinstance(task, Mapping):
        raise _fail(label, where, "expected an object")
    key = task.get("id", task.get("name"))
    if not isinstance(key, str) or not key:
        raise _fail(label, f"{where}.id", "expected a non-empty string id or name")
    return key


def _check_version(doc: Mapping[str, Any], label: str) -> None:
    """Refuse a ``schemaVersion`` outside :data:`SCHEMA_VERSIONS` (a missing one is read).

    Another version may lay tasks out differently; reading it by the known
    layouts could silently drop runtimes or files.
    """
    if "schemaVersion" not in doc:
        return
    version = doc["schemaVersion"]
    if isinstance(version, bool) or not isinstance(version, str | int | float):
        raise _fail(label, "schemaVersion", f"expected a string, got {json.dumps(version)[:40]}")
    if str(version) not in SCHEMA_VERSIONS:
        raise _fail(
            label,
            "schemaVersion",
            f"WfFormat {str(version)[:40]!r} is not supported; supported: "
            f"{', '.join(SCHEMA_VERSIONS)}",
        )


def _parse(doc: Any, label: str) -> tuple[str, list[str], dict, dict, dict, dict, dict[str, str]]:
    """Name, task ids, runtime by id, parents by id, output and input files (name -> bytes),
    and the JSON path of each task's runtime (to name it when its cost overflows)."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("workflow"), Mapping):
        raise _fail(label, "workflow", "missing; not a WfFormat document")
    _check_version(doc, label)
    name = doc.get("name", "")
    wf = doc["workflow"]
    runtime: dict[str, float] = {}
    runtime_at: dict[str, str] = {}
    parents: dict[str, list[str]] = {}
    outputs: dict[str, dict[str, int | float]] = {}
    inputs: dict[str, dict[str, int | float]] = {}
    children: dict[str, list[str]] = {}  # files may list only children: both are read
    ids: list[str] = []
    # How parents and children name a task: 1.5 by id; 1.3/1.4 by name (a task
    # without one is named by its key). Never both: one task's id may be another's name.
    refs: dict[str, str] = {}
    shared: dict[str, list[str]] = {}  # 1.3/1.4: a name several tasks bear -> their keys
    if "specification" in wf:  # schema 1.5
        spec = wf["specification"]
        if not isinstance(spec, Mapping):
            raise _fail(label, "workflow.specification", "expected an object")
        sizes: dict[str, int | float] = {}
        for k, f in enumerate(_list(spec.get("files", []), label, "workflow.specification.files")):
            where = f"workflow.specification.files[{k}]"
            if not isinstance(f, Mapping) or not isinstance(f.get("id"), str):
                raise _fail(label, where, "expected an object with a string 'id'")
            if "sizeInBytes" not in f:  # required by WfFormat 1.5: not taken as 0
                raise _fail(label, f"{where}.sizeInBytes", "missing (the file's size)")
            size = _size(f["sizeInBytes"], label, f"{where}.sizeInBytes")
            if sizes.get(f["id"], size) != size:
                raise _fail(label, where, f"file {f['id']!r} listed twice, with sizes "
                            f"{sizes[f['id']]:g} and {size:g} bytes")  # fmt: skip
            sizes[f["id"]] = size
        tasks = _list(spec.get("tasks"), label, "workflow.specification.tasks")
        for k, task in enumerate(tasks):
            where = f"workflow.specification.tasks[{k}]"
            key = _task_key(task, label, where)
            if key in parents:
                raise _fail(label, f"{where}.id", f"duplicate task {key!r}")
            ids.append(key)
            refs[key] = key
            parents[key] = list(_list(task.get("parents", []), label, f"{where}.parents"))
            children[key] = list(_list(task.get("children", []), label, f"{where}.children"))
            for kind, store in (("outputFiles", outputs), ("inputFiles", inputs)):
                store[key] = {}
                for j, fid in enumerate(_list(task.get(kind, []), label, f"{where}.{kind}")):
                    if not isinstance(fid, str):
                        got = json.dumps(fid)[:40]
                        raise _fail(
                            label, f"{where}.{kind}[{j}]", f"expected a file id, got {got}"
                        )
                    if fid not in sizes:
                        raise _fail(label, f"{where}.{kind}[{j}]", f"unknown file {fid!r}")
                    store[key][fid] = sizes[fid]
        execution = wf.get("execution", {})
        if not isinstance(execution, Mapping):
            raise _fail(label, "workflow.execution", "expected an object")
        for k, task in enumerate(
            _list(execution.get("tasks", []), label, "workflow.execution.tasks")
        ):
            where = f"workflow.execution.tasks[{k}]"
            key = _task_key(task, label, where)
            if key not in parents:
                raise _fail(label, f"{where}.id", f"unknown task {key!r}")
            seconds = _number(task.get("runtimeInSeconds"), label, f"{where}.runtimeInSeconds")
            if key in runtime and runtime[key] != seconds:
                raise _fail(label, f"{where}.id", f"task {key!r} executed twice, in "
                            f"{runtime[key]:g} and {seconds:g} s")  # fmt: skip
            runtime_at[key] = f"{where}.runtimeInSeconds"
            runtime[key] = seconds
    else:  # schemas 1.3 and 1.4
        for k, task in enumerate(_list(wf.get("tasks"), label, "workflow.tasks")):
            where = f"workflow.tasks[{k}]"
            key = _task_key(task, label, where)
            if key in parents:
                raise _fail(label, f"{where}.id", f"duplicate task {key!r}")
            ids.append(key)
            named = str(task.get("name", key))
            refs.setdefault(named, key)
            if refs[named] != key:
                shared.setdefault(named, [refs[named]]).append(key)
            parents[key] = list(_list(task.get("parents", []), label, f"{where}.parents"))
            children[key] = list(_list(task.get("children", []), label, f"{where}.children"))
            field = "runtimeInSeconds" if "runtimeInSeconds" in task else "runtime"
            runtime_at[key] = f"{where}.{field}"
            runtime[key] = _number(task.get(field), label, runtime_at[key])
            outputs[key], inputs[key] = {}, {}
            for j, f in enumerate(_list(task.get("files", []), label, f"{where}.files")):
                fwhere = f"{where}.files[{j}]"
                if not isinstance(f, Mapping) or f.get("link") not in ("input", "output"):
                    raise _fail(label, fwhere, "expected an object with link input or output")
                fname = f.get("name", f.get("id"))
                if not isinstance(fname, str):
                    raise _fail(label, f"{fwhere}.name", "expected a string")
                if "sizeInBytes" in f:
                    size = _size(f["sizeInBytes"], label, f"{fwhere}.sizeInBytes")
                elif "size" not in f:  # required (one or the other): not taken as 0
                    raise _fail(label, f"{fwhere}.sizeInBytes", "missing (the file's size)")
                else:
                    # Before 1.4 the schema's own words for a file's "size" are "File
                    # size in KB" (wfcommons/WfFormat, wfcommons-schema.json at commit
                    # 9f9be968, and README.md of 1.1); 1.4 replaced it by "sizeInBytes",
                    # "File size in bytes" (commit 51c170f4), and requires that, so a
                    # "size" alone is the older field in kB. WfFormat's migration tool
                    # (tools/wfcommons-migrate-instance.py, _migrate_to_14) renames
                    # "size" to "sizeInBytes" without scaling it, against those words:
                    # the schema's text is followed here, not the tool.
                    kb = _size(f["size"], label, f"{fwhere}.size")
                    size = kb * 1000 if isinstance(kb, int) else float(Decimal(repr(kb)) * 1000)
                files = (outputs if f["link"] == "output" else inputs)[key]
                if fname in files and files[fname] != size:
                    raise _fail(label, fwhere, f"file {fname!r} listed twice, with sizes "
                                f"{files[fname]:g} and {size:g} bytes")  # fmt: skip
                files[fname] = size
    if not ids:
        raise _fail(label, "workflow", "has no tasks")
    missing = [key for key in ids if key not in runtime]
    if missing:
        raise _fail(label, "workflow", f"task {missing[0]!r} has no runtime")
    resolved: dict[str, list[str]] = {}
    for key in ids:
        resolved[key] = []
        for parent in parents[key]:
            if str(parent) in shared:
                raise _ambiguous(label, key, "parent", str(parent), shared)
            pid = refs.get(str(parent))
            if pid is None:
                raise _fail(label, f"task {key!r}", f"unknown parent {parent!r}")
            if pid not in resolved[key]:
                resolved[key].append(pid)
    for key in ids:
        for child in children[key]:
            if str(child) in shared:
                raise _ambiguous(label, key, "child", str(child), shared)
            cid = refs.get(str(child))
            if cid is None:
                raise _fail(label, f"task {key!r}", f"unknown child {child!r}")
            if key not in resolved[cid]:
                resolved[cid].append(key)
    return str(name), ids, runtime, resolved, outputs, inputs, runtime_at


def _cost(value: float) -> float:
    """A cost rounded to 6 places, as written; a positive one never to 0.

    6 places take off the noise of the product (2.675 s is 2675000.0000000005
    us) and keep the data on a grid the exact models can scale; a runtime so
    short that they leave nothing keeps 15 significant digits instead (1e-13 s
    cost 0: an outside audit).

    Examples
    --------
    >>> _cost(2675000.0000000005), _cost(1e-07), _cost(1e6 / 3)
    (2675000.0, 1e-07, 333333.333333)
    """
    return round(value, 6) or float(f"{value:.15g}")


def _ambiguous(
    label: str, key: str, what: str, name: str, shared: Mapping[str, list[str]]
) -> InstanceError:
    """A 1.3/1.4 reference by a name that several tasks bear: which one is meant?"""
    keys = ", ".join(repr(k) for k in shared[name])
    return _fail(label, f"task {key!r}", f"ambiguous {what} {name!r} (the name of tasks {keys})")


def _check_scale(
    runtime: Mapping[str, float],
    runtime_at: Mapping[str, str],
    speeds: Mapping[str, float],
    time_scale: float,
    label: str,
) -> None:
    """Refuse costs that overflow floating point, naming their cause.

    A cost is ``runtime x time_scale / speed``: the runtime in the file is at
    fault when ``runtime x time_scale`` (or the sum of them, the serial
    schedule) overflows; otherwise a speed so small that the division
    overflows is. Left to the instance parser, both read as a task's infinite
    cost.
    """
    longest = max(runtime, key=runtime.__getitem__)
    seconds = runtime[longest]
    largest = sys.float_info.max
    if seconds * time_scale > largest:
        raise _fail(
            label,
            runtime_at[longest],
            f"{seconds:g} s is too long: times {time_scale:g} time units per second "
            f"it exceeds the largest float ({largest:.2g})",
        )
    total = sum(runtime.values()) * time_scale
    if total > largest:
        raise _fail(
            label,
            "workflow",
            f"the task runtimes add up to more than the largest float ({largest:.2g}) "
            f"in time units ({time_scale:g} per second)",
        )
    slowest = min(speeds, key=speeds.__getitem__)
    speed = speeds[slowest]
    if total / speed > largest:
        raise InstanceError(
            f"speeds.{slowest}: {speed:g} is too small: the task costs, {total:.3g} time "
            f"units in all at speed 1, divided by it exceed the largest float ({largest:.2g})"
        )


def read_wfcommons(
    source: str | os.PathLike[str],
    platform: Any,
    *,
    speeds: Mapping[str, float] | None = None,
    time_scale: float = 1e6,
    name: str | None = None,
) -> Problem:
    """Read a WfCommons (WfFormat) workflow as a problem on ``platform``.

    Parameters
    ----------
    source : str or path-like
        A file path, or the JSON text itself (a string containing a newline).
    platform : str, path or mapping
        Anything :func:`~exactsched.workloads.platforms.resolve_platform` takes.
    speeds : mapping, optional
        Processor type -> speed relative to the machine that recorded the
        runtimes (default 1 for every type).
    time_scale : float
        Time units per second of runtime (default ``1e6``: microseconds).
    name : str, optional
        Default the workflow's ``name``.

    Returns
    -------
    Problem

    Raises
    ------
    InstanceError
        For a file that is not WfFormat JSON, naming the JSON path at fault, an
        unsupported ``schemaVersion``, an unknown parent or file, a task without
        runtime, a runtime whose cost overflows, or a cycle; for a speed so small
        that the costs overflow, naming ``speeds.T``.

    Examples
    --------
    >>> text = '''{"name": "w", "schemaVersion": "1.4", "workflow": {"tasks": [
    ...   {"name": "a", "runtimeInSeconds": 2.0, "parents": [],
    ...    "files": [{"link": "output", "name": "f", "sizeInBytes": 300}]},
    ...   {"name": "b", "runtimeInSeconds": 1.5, "parents": ["a"],
    ...    "files": [{"link": "input", "name": "f", "sizeInBytes": 300}]}]}}
    ... '''
    >>> p = read_wfcommons(text, "cpu-gpu:1+1", speeds={"cpu": 1, "gpu": 4})
    >>> p.cost.tolist(), p.edge_data.tolist()
    ([[2000000.0, 500000.0], [1500000.0, 375000.0]], [300.0])
    """
    from exactsched.workloads.platforms import resolve_platform

    text, label, _ = read_source(source, "wfcommons")
    doc = parse_json_text(text, label)
    wf_name, ids, runtime, parents, outputs, inputs, runtime_at = _parse(doc, label)
    spec = resolve_platform(platform)
    types = sorted(set(spec.types))
    speeds = dict(speeds or {})
    for t in types:
        value = speeds.setdefault(t, 1.0)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise InstanceError(f"speeds.{t}: expected a positive number, got {value!r}")
    if not 0 < time_scale < float("inf"):
        raise InstanceError(f"time_scale: expected a positive number, got {time_scale!r}")
    _check_scale(runtime, runtime_at, {t: speeds[t] for t in types}, time_scale, label)

    def cost(seconds: float) -> dict[str, float] | float:
        by_type = {t: _cost(seconds * time_scale / speeds[t]) for t in types}
        values = set(by_type.values())
        return values.pop() if len(values) == 1 else by_type

    edges = []
    for key in ids:
        for parent in parents[key]:
            shared = outputs[parent].keys() & inputs[key].keys()
            data = _total([outputs[parent][f] for f in sorted(shared)])
            edges.append({"src": parent, "dst": key, "data": data})
    document = {
        "format": "exactsched/instance@1",
        "name": name if name is not None else wf_name,
        "platform": spec.document,
        "tasks": [{"id": key, "cost": cost(runtime[key])} for key in ids],
        "edges": edges,
    }
    try:
        return Problem.from_json(document)
    except InstanceError as exc:
        raise InstanceError(f"{label}: {exc}") from None
