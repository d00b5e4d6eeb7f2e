"""Reading and validating instance documents (``exactsched/instance@1``).

The contract is ``docs/instance-format.md``. Every check that refuses input
raises :class:`~exactsched.errors.InstanceError` with a one-line message that
starts with the JSON path at fault (``tasks[2].cost[1]``, ``edges[0].dst``,
``platform.network.dims``) and names the task, edge or processor by id.
"""

from __future__ import annotations

import copy
import json
import math
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from exactsched.errors import InstanceError, InstanceWarning
from exactsched.problem import Problem

__all__ = ["FORMAT", "load_instance", "parse_instance", "read_json"]

FORMAT = "exactsched/instance@1"

_TOP_KEYS = {"format", "name", "platform", "tasks", "edges", "order", "isolation"}
_TASK_KEYS = {"id", "cost", "processors"}
_EDGE_KEYS = {"src", "dst", "data"}


def read_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file, turning every failure into a one-line :class:`InstanceError`.

    Raises
    ------
    InstanceError
        When the file cannot be read or is not JSON (with line and column).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InstanceError(f"{path}: cannot read file: {reason}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstanceError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise InstanceError(f"{path}: invalid JSON: nested too deeply") from None


def load_instance(source: str | os.PathLike[str] | Mapping[str, Any]) -> Problem:
    """Read an instance from a JSON file path or an already parsed document.

    Parameters
    ----------
    source : str, path-like or mapping
        A path to a JSON file, or the document itself.

    Returns
    -------
    Problem

    Raises
    ------
    InstanceError
        With a one-line message naming the key, task or edge at fault.

    Examples
    --------
    >>> doc = {"format": "exactsched/instance@1",
    ...        "platform": {"processors": [{"id": "p1"}, {"id": "p2"}]},
    ...        "tasks": [{"id": "a", "cost": 2}, {"id": "b", "cost": [3, 1]}],
    ...        "edges": [{"src": "a", "dst": "b", "data": 4}]}
    >>> problem = load_instance(doc)
    >>> problem.cost.tolist()
    [[2.0, 2.0], [3.0, 1.0]]
    >>> load_instance({**doc, "edges": [{"src": "a", "dst": "z"}]})
    Traceback (most recent call last):
    ...
    exactsched.errors.InstanceError: edges[0].dst: unknown task 'z'
    """
    if isinstance(source, Mapping):
        return parse_instance(source)
    return parse_instance(read_json(source))


# ---- small checkers ---------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any, where: str, *, positive: bool = False) -> float:
    """A finite number >= 0 (> 0 if ``positive``), else InstanceError naming ``where``."""
    if not _is_number(value):
        raise InstanceError(f"{where}: expected a number, got {_show(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise InstanceError(f"{where}: number {value} is too large") from None
    if not math.isfinite(number):
        raise InstanceError(f"{where}: number must be finite, got {value}")
    if positive and number <= 0:
        raise InstanceError(f"{where}: must be > 0, got {value}")
    if number < 0:
        raise InstanceError(f"{where}: negative number {value}")
    return number


def _show(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InstanceError(f"{where}: expected an object, got {_show(value)}")
    return value


def _list(value: Any, where: str, *, non_empty: bool = False) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise InstanceError(f"{where}: expected a list, got {_show(value)}")
    if non_empty and not value:
        raise InstanceError(f"{where}: must not be empty")
    return list(value)


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise InstanceError(f"{where}: expected a non-empty string, got {_show(value)}")
    return value


def _unknown_keys(obj: Mapping[str, Any], known: set[str], where: str) -> None:
    extra = sorted(set(obj) - known)
    if extra:
        warnings.warn(
            f"{where}: ignoring unknown key(s) {', '.join(map(repr, extra))}",
            InstanceWarning,
            stacklevel=4,
        )


def _task_ref(value: Any, index: Mapping[str, int], where: str) -> int:
    if not isinstance(value, str):
        raise InstanceError(f"{where}: expected a task id, got {_show(value)}")
    if value not in index:
        raise InstanceError(f"{where}: unknown task {value!r}")
    return index[value]


# ---- the parser -------------------------------------------------------------------


def parse_instance(document: Any) -> Problem:
    """Validate a parsed instance document and build its :class:`Problem`.

    See :func:`load_instance`; this is the single validation path every
    constructor of :class:`Problem` goes through.
    """
    doc = _object(document, "instance")
    if "format" not in doc:
        raise InstanceError(f"format: missing; expected {FORMAT!r}")
    if doc["format"] != FORMAT:
        raise InstanceError(f"format: unknown format {_show(doc['format'])}; expected {FORMAT!r}")
    _unknown_keys(doc, _TOP_KEYS, "instance")
    name = doc.get("name", "")
    if not isinstance(name, str):
        raise InstanceError(f"name: expected a string, got {_show(name)}")

    proc_ids, proc_types, network, topology, hops = _parse_platform(doc)
    n_procs = len(proc_ids)
    proc_index = {pid: k for k, pid in enumerate(proc_ids)}

    if "tasks" not in doc:
        raise InstanceError("tasks: missing")
    tasks = _list(doc["tasks"], "tasks", non_empty=True)
    task_ids: list[str] = []
    task_index: dict[str, int] = {}
    for i, raw in enumerate(tasks):
        task = _object(raw, f"tasks[{i}]")
        tid = _string(task.get("id"), f"tasks[{i}].id")
        if tid in task_index:
            raise InstanceError(f"tasks[{i}].id: duplicate task id {tid!r}")
        task_index[tid] = i
        task_ids.append(tid)
    n = len(task_ids)

    cost = np.full((n, n_procs), np.inf)
    allowed = np.zeros((n, n_procs), dtype=bool)
    for i, raw in enumerate(tasks):
        where = f"tasks[{i}] ({task_ids[i]!r})"
        _unknown_keys(raw, _TASK_KEYS, where)
        mask = _parse_affinity(raw, proc_index, where)
        allowed[i] = mask
        cost[i] = _parse_cost(raw, proc_types, mask, where)

    edge_src, edge_dst, edge_data = _parse_edges(doc, task_index)
    order = _parse_pairs(doc, "order", task_index)
    isolation = _parse_pairs(doc, "isolation", task_index)

    latency = _number(network.get("latency", 0), "platform.network.latency")
    bandwidth = _number(network.get("bandwidth", 1), "platform.network.bandwidth", positive=True)

    edge_set = set(zip(edge_src.tolist(), edge_dst.tolist(), strict=True))
    extra_order = [pair for pair in order if pair not in edge_set]
    arc_src = np.array(edge_src.tolist() + [a for a, _ in extra_order], dtype=np.int64)
    arc_dst = np.array(edge_dst.tolist() + [b for _, b in extra_order], dtype=np.int64)
    arc_unit = np.concatenate([latency + edge_data / bandwidth, np.zeros(len(extra_order))])
    topo = _topological_order(n, arc_src, arc_dst, task_ids)
    if isolation:
        _warn_redundant_isolation(n, arc_src, arc_dst, topo, isolation, task_ids)

    iso = np.array(isolation, dtype=np.int64).reshape(-1, 2)
    ordr = np.array(order, dtype=np.int64).reshape(-1, 2)
    return Problem(
        name=name,
        task_ids=tuple(task_ids),
        proc_ids=tuple(proc_ids),
        proc_types=tuple(proc_types),
        task_index=task_index,
        proc_index=proc_index,
        network=network,
        topology=topology,
        hops=hops,
        latency=latency,
        bandwidth=bandwidth,
        cost=cost,
        allowed=allowed,
        edge_src=edge_src,
        edge_dst=edge_dst,
        edge_data=edge_data,
        order_src=ordr[:, 0].copy(),
        order_dst=ordr[:, 1].copy(),
        iso_a=iso[:, 0].copy(),
        iso_b=iso[:, 1].copy(),
        arc_src=arc_src,
        arc_dst=arc_dst,
        arc_unit=arc_unit,
        topological_order=topo,
        _json=_plain(doc),
    )


def _plain(value: Any) -> Any:
    """A deep copy with tuples turned into lists and mappings into dicts."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return copy.copy(value)


def _parse_platform(doc: Mapping[str, Any]) -> tuple[list[str], list[str], dict, Any, np.ndarray]:
    from topologies import TopologyError, from_network

    if "platform" not in doc:
        raise InstanceError("platform: missing")
    platform = _object(doc["platform"], "platform")
    _unknown_keys(platform, {"processors", "network"}, "platform")
    if "processors" not in platform:
        raise InstanceError("platform.processors: missing")
    procs = _list(platform["processors"], "platform.processors", non_empty=True)
    proc_ids: list[str] = []
    proc_types: list[str] = []
    seen: set[str] = set()
    for k, raw in enumerate(procs):
        proc = _object(raw, f"platform.processors[{k}]")
        _unknown_keys(proc, {"id", "type"}, f"platform.processors[{k}]")
        pid = _string(proc.get("id"), f"platform.processors[{k}].id")
        if pid in seen:
            raise InstanceError(f"platform.processors[{k}].id: duplicate processor id {pid!r}")
        seen.add(pid)
        proc_ids.append(pid)
        proc_types.append(_string(proc.get("type", "default"), f"platform.processors[{k}].type"))
    network = dict(_object(platform.get("network", {}), "platform.network"))
    network.setdefault("topology", "fully-connected")
    try:
        topology = from_network(network, proc_types)
        hops = np.asarray(topology.hops(), dtype=float)
    except TopologyError as exc:
        raise InstanceError(f"platform.network.{exc}") from None
    return proc_ids, proc_types, network, topology, hops


def _parse_affinity(task: Mapping[str, Any], proc_index: Mapping[str, int], where: str) -> np.ndarray:
    mask = np.ones(len(proc_index), dtype=bool)
    if "processors" not in task:
        return mask
    names = _list(task["processors"], f"{where}.processors", non_empty=True)
    mask[:] = False
    for k, pid in enumerate(names):
        if not isinstance(pid, str) or pid not in proc_index:
            raise InstanceError(f"{where}.processors[{k}]: unknown processor {_show(pid)}")
        mask[proc_index[pid]] = True
    return mask


def _parse_cost(
    task: Mapping[str, Any], proc_types: list[str], mask: np.ndarray, where: str
) -> np.ndarray:
    if "cost" not in task:
        raise InstanceError(f"{where}.cost: missing")
    spec = task["cost"]
    n_procs = len(proc_types)
    row = np.full(n_procs, np.inf)
    if _is_number(spec):
        row[mask] = _number(spec, f"{where}.cost")
    elif isinstance(spec, Mapping):
        by_type = {t: _number(v, f"{where}.cost.{t}") for t, v in spec.items()}
        for k in np.flatnonzero(mask):
            ptype = proc_types[k]
            if ptype not in by_type:
                raise InstanceError(
                    f"{where}.cost: no cost for processor type {ptype!r} "
                    f"(the type of an allowed processor)"
                )
            row[k] = by_type[ptype]
    elif isinstance(spec, list | tuple):
        if len(spec) != n_procs:
            raise InstanceError(
                f"{where}.cost: list has {len(spec)} numbers, expected {n_procs} "
                f"(one per processor)"
            )
        values = np.array([_number(v, f"{where}.cost[{k}]") for k, v in enumerate(spec)])
        row[mask] = values[mask]
    else:
        raise InstanceError(
            f"{where}.cost: expected a number, an object keyed by processor type or a list, "
            f"got {_show(spec)}"
        )
    return row


def _parse_edges(
    doc: Mapping[str, Any], task_index: Mapping[str, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    edges = _list(doc.get("edges", []), "edges")
    src = np.empty(len(edges), dtype=np.int64)
    dst = np.empty(len(edges), dtype=np.int64)
    data = np.empty(len(edges))
    seen: dict[tuple[int, int], int] = {}
    for e, raw in enumerate(edges):
        edge = _object(raw, f"edges[{e}]")
        _unknown_keys(edge, _EDGE_KEYS, f"edges[{e}]")
        for key in ("src", "dst"):
            if key not in edge:
                raise InstanceError(f"edges[{e}].{key}: missing")
        a = _task_ref(edge["src"], task_index, f"edges[{e}].src")
        b = _task_ref(edge["dst"], task_index, f"edges[{e}].dst")
        label = f"edges[{e}] ({edge['src']} -> {edge['dst']})"
        if a == b:
            raise InstanceError(f"{label}: self-loop on task {edge['src']!r}")
        if (a, b) in seen:
            raise InstanceError(f"{label}: duplicate of edges[{seen[a, b]}]")
        seen[a, b] = e
        src[e], dst[e] = a, b
        data[e] = _number(edge.get("data", 0), f"{label}.data")
    return src, dst, data


def _parse_pairs(
    doc: Mapping[str, Any], key: str, task_index: Mapping[str, int]
) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    for k, raw in enumerate(_list(doc.get(key, []), key)):
        if not isinstance(raw, list | tuple) or len(raw) != 2:
            raise InstanceError(f"{key}[{k}]: expected a pair [a, b] of task ids, got {_show(raw)}")
        a = _task_ref(raw[0], task_index, f"{key}[{k}][0]")
        b = _task_ref(raw[1], task_index, f"{key}[{k}][1]")
        if a == b:
            raise InstanceError(f"{key}[{k}]: pair of task {raw[0]!r} with itself")
        pair = (min(a, b), max(a, b)) if key == "isolation" else (a, b)
        if pair not in seen:
            seen.add(pair)
            pairs.append((a, b))
    return pairs


def _topological_order(
    n: int, src: np.ndarray, dst: np.ndarray, task_ids: list[str]
) -> np.ndarray:
    """Kahn's algorithm, smallest ready index first; names a cycle if there is one."""
    import heapq

    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        succ[a].append(b)
        indeg[b] += 1
    ready = [i for i in range(n) if indeg[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for j in succ[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                heapq.heappush(ready, j)
    if len(order) < n:
        raise InstanceError(f"edges/order: cycle {_find_cycle(succ, indeg, task_ids)}")
    return np.array(order, dtype=np.int64)


def _find_cycle(succ: list[list[int]], indeg: list[int], task_ids: list[str]) -> str:
    """Walk successors inside the unsorted remainder until a task repeats."""
    remaining = {i for i, d in enumerate(indeg) if d > 0}
    node = min(remaining)
    path: list[int] = []
    position: dict[int, int] = {}
    while node not in position:
        position[node] = len(path)
        path.append(node)
        node = next(j for j in succ[node] if j in remaining)
    cycle = path[position[node] :] + [node]
    return " -> ".join(repr(task_ids[i]) for i in cycle)


def _warn_redundant_isolation(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    topo: np.ndarray,
    isolation: list[tuple[int, int]],
    task_ids: list[str],
) -> None:
    """Warn about isolation pairs already ordered by a path (harmless but redundant)."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        succ[a].append(b)
    reach = [0] * n  # bitset of the tasks reachable from each task
    for i in reversed(topo.tolist()):
        bits = 0
        for j in succ[i]:
            bits |= reach[j] | (1 << j)
        reach[i] = bits
    for k, (a, b) in enumerate(isolation):
        if reach[a] >> b & 1 or reach[b] >> a & 1:
            first, second = (a, b) if reach[a] >> b & 1 else (b, a)
            warnings.warn(
                f"isolation[{k}]: tasks {task_ids[a]!r} and {task_ids[b]!r} are already "
                f"ordered by a path from {task_ids[first]!r} to {task_ids[second]!r}",
                InstanceWarning,
                stacklevel=3,
            )
