"""Reading and validating instance documents (``exactsched/instance@1``).

The contract is ``docs/instance-format.md``. Every check that refuses input
raises :class:`~exactsched.errors.InstanceError` with a one-line message that
starts with the JSON path at fault (``tasks[2].cost[1]``, ``edges[0].dst``,
``platform.network.dims``) and names the task, edge or processor by id; for a
file that is not JSON the message starts with the file name and gives the line
and column. No input raises anything else (no traceback, no hang): wrong types
anywhere, ``true`` where a number belongs (a boolean is not a number), NaN,
infinities, integers beyond the float range, deep nesting, keys repeated in
one JSON object, text that is not valid Unicode (a lone surrogate in an id),
files holding NUL bytes (``/dev/zero``) and instances whose serial schedule
overflows floating point (two costs of 1e308) are all refused this way, and so
is a key the format does not define (a misspelt ``"dta"`` on an edge would
otherwise be ignored and the edge scheduled without its data).

Harmless oddities raise :class:`~exactsched.errors.InstanceWarning` instead:
a repeated order or isolation pair or affinity entry (counted once) and an isolation pair whose
tasks a path of edges and order pairs already orders.

A parsed document may hold Python values JSON cannot (tuples, numpy numbers
and arrays); they are read as the JSON values they stand for, and
:meth:`Problem.to_json` returns plain JSON.

Examples
--------
>>> doc = {"format": "exactsched/instance@1",
...        "platform": {"processors": [{"id": "p"}]},
...        "tasks": [{"id": "a", "cost": [True]}]}
>>> load_instance(doc)
Traceback (most recent call last):
...
exactsched.errors.InstanceError: tasks[0].cost[0]: expected a number, got true (task 'a')
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import os
import re
import stat
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from exactsched.errors import InstanceError, InstanceWarning
from exactsched.limits import (
    MAX_COST_CELLS,
    MAX_EDGES,
    MAX_PROCESSORS,
    MAX_TASKS,
    check_size,
)
from exactsched.problem import Problem

__all__ = ["FORMAT", "load_instance", "parse_instance", "read_json"]

FORMAT = "exactsched/instance@1"

_TOP_KEYS = {"format", "name", "platform", "tasks", "edges", "order", "isolation"}
_TASK_KEYS = {"id", "cost", "processors"}
_EDGE_KEYS = {"src", "dst", "data"}


def read_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file, turning every failure into a one-line :class:`InstanceError`.

    A UTF-8 byte order mark is skipped. ``NaN`` and ``Infinity`` parse (Python's
    JSON extension) and are refused later as numbers that are not finite. A
    positive number that floats round to zero (``1e-400``) is refused here: read
    as 0 it would turn a task that takes time into one that occupies nothing.

    Parameters
    ----------
    path : str or path-like
        The file to read.

    Returns
    -------
    object
        The parsed document.

    Raises
    ------
    InstanceError
        When the file cannot be read, is not JSON (with line and column), nests
        too deeply, holds an integer too long to convert, or repeats a key in
        one object (which JSON leaves ambiguous), or writes a positive number
        below the smallest float (with its line and column).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
    ...     _ = fh.write('{"format": 1, "tasks": [}')
    >>> read_json(fh.name)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.InstanceError: ...: invalid JSON at line 1, column 25: Expecting value
    >>> os.remove(fh.name)
    """
    return _read_json(path, InstanceError)


def _read_json(path: str | os.PathLike[str], error: type[ValueError]) -> Any:
    """:func:`read_json` raising ``error`` (shared with the schedule reader)."""
    try:
        text = _read_text(path).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise error(f"{path}: cannot read file: {_one_line(reason)}") from None
    return parse_json_text(text, str(path), error)


def parse_json_text(text: str, label: str, error: type[ValueError] = InstanceError) -> Any:
    """Parse a JSON document strictly, every fault one line of ``error``.

    The one JSON reading of every input (instances, schedules, WfCommons):
    a key repeated in one object, a number that underflows to zero and
    nesting too deep for the parser are refused with their place, as a
    syntax error is.

    Examples
    --------
    >>> parse_json_text('{"a": 1, "a": 2}', "x.json")
    Traceback (most recent call last):
    ...
    exactsched.errors.InstanceError: x.json: invalid JSON: key 'a' repeated in one object
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_float=read_float)
    except UnderflowError as exc:
        raise error(f"{label}: {_locate(text, exc.text)}{exc}") from None
    except json.JSONDecodeError as exc:
        raise error(
            f"{label}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except _DuplicateKey as exc:
        raise error(f"{label}: invalid JSON: key {exc.args[0]!r} repeated in one object") from None
    except RecursionError:
        raise error(f"{label}: invalid JSON: nested too deeply") from None
    except ValueError:  # the one left: an integer longer than Python converts (4300 digits)
        raise error(f"{label}: invalid JSON: an integer with too many digits") from None


class UnderflowError(ValueError):
    """A nonzero number written below the smallest float, which would read as 0."""

    def __init__(self, text: str) -> None:
        super().__init__(
            f"the number {text} is below the smallest positive float (5e-324) and would read "
            "as 0; write 0 or at least 1e-300"
        )
        self.text = text


def read_float(text: str) -> float:
    """``float(text)``, refusing a nonzero number that rounds to zero (``-1e-400`` too).

    Raises
    ------
    UnderflowError
        Its message names the number; ``text`` is the number as written.
    ValueError
        When ``text`` is not a number.

    Examples
    --------
    >>> read_float("2.5"), read_float("-0.0"), read_float("0e-999")
    (2.5, -0.0, 0.0)
    >>> read_float("1e-400")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.instance.UnderflowError: the number 1e-400 is below the smallest positive float ...
    """
    value = float(text)
    if value == 0.0 and any(c in "123456789" for c in re.split("[eE]", text, maxsplit=1)[0]):
        raise UnderflowError(text)
    return value


# A JSON string (skipped whole) or a JSON number.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?')


def _locate(text: str, literal: str) -> str:
    """``"line L, column C: "`` of the first number ``literal`` in JSON ``text``.

    Strings are skipped, so an id or a name that reads ``"1e-400"`` is not taken
    for the number.

    Examples
    --------
    >>> _locate('{"id": "1e-400", "cost": 1e-400}', "1e-400")
    'line 1, column 26: '
    """
    for found in _JSON_TOKEN.finditer(text):
        if found.group() == literal:
            line = text.count("\n", 0, found.start()) + 1
            column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
            return f"line {line}, column {column}: "
    return ""


MAX_FILE_BYTES = 1 << 30
"""Largest instance or schedule file read (1 GiB); larger ones are refused, not loaded."""

_CHUNK = 1 << 20


def _read_text(path: str | os.PathLike[str], kind: str = "JSON text") -> bytes:
    """The bytes of a file, read in chunks: refuses NUL bytes and files above the cap.

    A NUL byte can never occur in JSON text, so ``/dev/zero``, binaries and
    random data are refused at their first chunk instead of filling memory.
    """
    why = not_a_file(path)
    if why:
        raise ValueError(why)
    parts: list[bytes] = []
    size = 0
    with Path(path).open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            if b"\0" in chunk:
                raise ValueError(f"not a {kind} file (it contains NUL bytes)")
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise ValueError(f"larger than {MAX_FILE_BYTES >> 20} MiB")
            parts.append(chunk)
    return b"".join(parts)


def not_a_file(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be read as an input file without waiting forever, or None.

    A named pipe (FIFO) with no writer blocks the reader for good, and a socket
    cannot be opened as a file; the readers refuse both at once. Anything else,
    including a missing path, is left to the open that follows.

    Examples
    --------
    >>> not_a_file("examples/topcuoglu2002.json") is None
    True
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file: reading it could wait forever"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return None


def refuse_if_not_a_file(path: str | os.PathLike[str], what: str = "cannot read file") -> None:
    """Raise ``InstanceError("PATH: WHAT: why")`` when :func:`not_a_file` says why.

    Examples
    --------
    >>> refuse_if_not_a_file("examples/topcuoglu2002.json")  # a regular file: nothing
    """
    why = not_a_file(path)
    if why:
        raise InstanceError(f"{path}: {what}: {why}")


class _DuplicateKey(ValueError):
    """Raised inside the JSON parser for a key repeated in one object."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return document


def _one_line(text: str) -> str:
    return " ".join(text.split())


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
    if not isinstance(source, str | os.PathLike):
        raise InstanceError(
            f"instance: expected a file path or a JSON object, got {type(source).__name__}"
        )
    return _parse_owned(read_json(source))


# ---- small checkers ---------------------------------------------------------------


def _is_number(value: Any) -> bool:
    # JSON true/false are not numbers (bool is an int subclass in Python).
    if type(value) in (int, float):
        return True
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _number(value: Any, where: str, *, positive: bool = False, about: str = "") -> float:
    """A finite number >= 0 (> 0 if ``positive``), else InstanceError naming ``where``.

    ``about`` (e.g. ``" (task 'a')"``) ends the message, naming the object at fault.
    """
    if not _is_number(value):
        raise InstanceError(f"{where}: expected a number, got {_show(value)}{about}")
    try:
        number = float(value)
    except OverflowError:
        raise InstanceError(f"{where}: number too large ({_show(value)}){about}") from None
    if not math.isfinite(number):
        raise InstanceError(f"{where}: number must be finite, got {_show(value)}{about}")
    if positive and number <= 0:
        raise InstanceError(f"{where}: must be > 0, got {_show(value)}{about}")
    if number < 0:
        raise InstanceError(f"{where}: negative number {_show(value)}{about}")
    return number


_LARGEST = sys.float_info.max


def _plain_numbers(values: list[Any] | tuple[Any, ...]) -> np.ndarray | None:
    """``values`` as floats when each is a finite non-negative JSON number, else None.

    The fast path of the cost lists; None sends the caller to :func:`_number`,
    which names the entry at fault.
    """
    for v in values:
        kind = type(v)  # bool is not int here
        if not ((kind is float or kind is int) and 0 <= v <= _LARGEST):  # NaN fails too
            return None
    return np.array(values, dtype=float)


def _show(value: Any) -> str:
    """A short JSON-like rendering of any value, safe for huge, deep or odd objects."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        text = repr(value)
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        text = f"an integer of {value.bit_length()} bits"
    else:
        try:
            text = json.dumps(value, default=lambda obj: f"<{type(obj).__name__}>")
        except (TypeError, ValueError, RecursionError):
            text = f"<{type(value).__name__}>"
    text = _one_line(text)
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
    # The format asks for a string, not a non-empty one: "" is an id like any other.
    if not isinstance(value, str):
        raise InstanceError(f"{where}: expected a string, got {_show(value)}")
    _unicode(value, where)
    return value


def _unicode(text: str, where: str) -> None:
    """Refuse text that is not valid Unicode (a lone surrogate such as ``"\\ud800"``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.start + 1].encode("unicode_escape").decode("ascii")
        raise InstanceError(
            f"{where}: not valid Unicode text (a lone surrogate {bad} at position {exc.start})"
        ) from None


def _unknown_keys(obj: Mapping[str, Any], known: set[str], where: str) -> None:
    """Refuse a key the format does not define: a misspelt key would be ignored silently.

    ``edges[0]`` with ``"dta": 5`` would otherwise schedule the edge with no data,
    a wrong answer to the instance its author meant.
    """
    if known.issuperset(obj):  # the common case, without sorting
        return
    extra = sorted(str(key) for key in obj if key not in known)
    key = extra[0]
    close = difflib.get_close_matches(key, sorted(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    shown = repr(key) if len(key) <= 60 else f"{key[:60]!r}..."
    raise InstanceError(
        f"{where}: unknown key {shown}{hint}; the format defines {', '.join(sorted(known))}"
    )


def _task_ref(value: Any, index: Mapping[str, int], where: str) -> int:
    if not isinstance(value, str):
        raise InstanceError(f"{where}: expected a task id (a string), got {_show(value)}")
    if value not in index:
        raise InstanceError(f"{where}: unknown task {value!r}")
    return index[value]


# ---- the parser -------------------------------------------------------------------


def parse_instance(document: Any) -> Problem:
    """Validate a parsed instance document and build its :class:`Problem`.

    See :func:`load_instance`; this is the single validation path every
    constructor of :class:`Problem` goes through.

    Parameters
    ----------
    document : mapping
        The parsed JSON document.

    Returns
    -------
    Problem

    Raises
    ------
    InstanceError
        With a one-line message starting with the JSON path at fault.

    Warns
    -----
    InstanceWarning
        For unknown keys, repeated pairs and isolation pairs already ordered by
        a path (all harmless).

    Examples
    --------
    >>> doc = {"format": "exactsched/instance@1",
    ...        "platform": {"processors": [{"id": "p"}]},
    ...        "tasks": [{"id": "a", "cost": 1}, {"id": "b", "cost": 1}],
    ...        "edges": [{"src": "a", "dst": "b"}], "order": [["b", "a"]]}
    >>> parse_instance(doc)
    Traceback (most recent call last):
    ...
    exactsched.errors.InstanceError: edges[0]: cycle 'a' -> 'b' -> 'a' (through edges[0], order[0])
    """
    return _parse_owned(document, keep_copy=True)


def _parse_owned(document: Any, *, keep_copy: bool = False) -> Problem:
    """:func:`parse_instance`; ``keep_copy=False`` for a document nobody else holds (just read)."""
    try:
        return _parse(document, keep_copy=keep_copy)
    except RecursionError:
        raise InstanceError("instance: nested too deeply") from None
    except MemoryError:  # e.g. the dense P x P hop matrix of a huge platform
        raise InstanceError("instance: too large to hold in memory") from None


def _parse(document: Any, *, keep_copy: bool) -> Problem:
    doc = _object(document, "instance")
    if "format" not in doc:
        raise InstanceError(f"format: missing; expected {FORMAT!r}")
    if not isinstance(doc["format"], str) or doc["format"] != FORMAT:
        raise InstanceError(f"format: unknown format {_show(doc['format'])}; expected {FORMAT!r}")
    _unknown_keys(doc, _TOP_KEYS, "instance")
    name = doc.get("name", "")
    if not isinstance(name, str):
        raise InstanceError(f"name: expected a string, got {_show(name)}")
    _unicode(name, "name")

    proc_ids, proc_types, network, topology, hops = _parse_platform(doc)
    n_procs = len(proc_ids)
    proc_index = {pid: k for k, pid in enumerate(proc_ids)}

    if "tasks" not in doc:
        raise InstanceError("tasks: missing")
    tasks = _list(doc["tasks"], "tasks", non_empty=True)
    check_size(len(tasks), MAX_TASKS, "tasks", "tasks")
    check_size(len(tasks) * n_procs, MAX_COST_CELLS, "task x processor costs", "tasks")
    if isinstance(doc.get("edges"), list):
        check_size(len(doc["edges"]), MAX_EDGES, "edges", "edges")
    task_ids: list[str] = []
    task_index: dict[str, int] = {}
    for i, raw in enumerate(tasks):
        task = _object(raw, f"tasks[{i}]")
        if "id" not in task:
            raise InstanceError(f"tasks[{i}].id: missing")
        tid = _string(task["id"], f"tasks[{i}].id")
        if tid in task_index:
            raise InstanceError(
                f"tasks[{i}].id: duplicate task id {tid!r} (also tasks[{task_index[tid]}])"
            )
        task_index[tid] = i
        task_ids.append(tid)
    n = len(task_ids)

    cost = np.full((n, n_procs), np.inf)
    allowed = np.ones((n, n_procs), dtype=bool)
    for i, raw in enumerate(tasks):
        _unknown_keys(raw, _TASK_KEYS, f"tasks[{i}]")
        about = f" (task {task_ids[i]!r})"
        if "processors" not in raw and _is_number(raw.get("cost")):
            # The common task (one number, no affinity): no per-task arrays (a million
            # tasks spent 6 s building them).
            cost[i] = _number(raw["cost"], f"tasks[{i}].cost", about=about)
            continue
        mask = _parse_affinity(raw, proc_ids, proc_index, f"tasks[{i}]", about)
        allowed[i] = mask
        cost[i] = _parse_cost(raw, proc_ids, proc_types, mask, f"tasks[{i}]", about)

    edge_src, edge_dst, edge_data = _parse_edges(doc, task_index)
    order = _parse_pairs(doc, "order", task_index)
    isolation = _parse_pairs(doc, "isolation", task_index)

    latency = _number(network.get("latency", 0), "platform.network.latency")
    bandwidth = _number(network.get("bandwidth", 1), "platform.network.bandwidth", positive=True)

    # Arcs: the edges, then the order pairs that do not repeat an edge.
    edge_set = set(zip(edge_src.tolist(), edge_dst.tolist(), strict=True))
    labels = [f"edges[{e}]" for e in range(len(edge_src))]
    extra_order = []
    for k, pair in order:
        if pair not in edge_set:
            extra_order.append(pair)
            labels.append(f"order[{k}]")
    arc_src = np.array(edge_src.tolist() + [a for a, _ in extra_order], dtype=np.int64)
    arc_dst = np.array(edge_dst.tolist() + [b for _, b in extra_order], dtype=np.int64)
    with np.errstate(over="ignore"):  # an infinite delay is refused just below
        unit = latency + edge_data / bandwidth
    arc_unit = np.concatenate([unit, np.zeros(len(extra_order))])
    _check_magnitude(cost, allowed, arc_unit, hops, task_ids, labels)
    topo = _topological_order(n, arc_src, arc_dst, task_ids, labels)
    if isolation:
        _warn_redundant_isolation(n, arc_src, arc_dst, topo, isolation, task_ids)

    iso = np.array([pair for _, pair in isolation], dtype=np.int64).reshape(-1, 2)
    ordr = np.array([pair for _, pair in order], dtype=np.int64).reshape(-1, 2)
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
        _json=_plain(doc) if keep_copy else doc,
    )


def _check_magnitude(
    cost: np.ndarray,
    allowed: np.ndarray,
    arc_unit: np.ndarray,
    hops: np.ndarray,
    task_ids: list[str],
    labels: list[str],
) -> None:
    """Refuse an instance whose serial schedule overflows floating point.

    Running every task one after another, each at its largest cost, with every
    communication at its longest, is a valid schedule; if its length is not a
    finite float, times of this instance cannot be written down, compared or
    summed (two costs of 1e308 in a chain), so the instance is refused with the
    task or edge at which the sum overflows rather than left to overflow later.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        largest = np.where(allowed, cost, 0.0).max(axis=1)
        total = np.cumsum(largest)
        if not np.isfinite(total[-1]):
            i = int(np.flatnonzero(~np.isfinite(total))[0])
            raise InstanceError(
                f"tasks[{i}].cost: the costs up to task {task_ids[i]!r} add up to more than "
                f"the largest float (1.8e308); scale the costs down"
            )
        max_hop = float(hops.max()) if hops.size else 0.0
        delays = arc_unit * max_hop
        total = total[-1] + np.cumsum(delays)
        if len(total) and not np.isfinite(total[-1]):
            e = int(np.flatnonzero(~np.isfinite(total))[0])
            raise InstanceError(
                f"{labels[e]}: communication delays add up, with the costs, to more than the "
                f"largest float (1.8e308); scale the data or the latency down"
            )


_SCALARS = (str, int, float, bool, type(None))


def _plain(value: Any) -> Any:
    """A deep copy as plain JSON values: lists, dicts, and Python numbers."""
    kind = type(value)
    if kind in _SCALARS:  # fast path for what json.loads produces
        return value
    if kind is dict:
        return {k if type(k) is str else str(k): _plain(v) for k, v in value.items()}
    if kind is list:
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    return copy.copy(value)


_NETWORK_KEYS = {
    "topology",
    "latency",
    "bandwidth",
    "dims",
    "arity",
    "hops",
    "communication",
    "duplex",
}


def _parse_platform(doc: Mapping[str, Any]) -> tuple[list[str], list[str], dict, Any, np.ndarray]:
    from topologies import TopologyError, from_network

    if "platform" not in doc:
        raise InstanceError("platform: missing")
    platform = _object(_expand_preset(doc["platform"]), "platform")
    _unknown_keys(platform, {"processors", "network"}, "platform")
    if "processors" not in platform:
        raise InstanceError("platform.processors: missing")
    procs = _list(platform["processors"], "platform.processors", non_empty=True)
    check_size(len(procs), MAX_PROCESSORS, "processors", "platform.processors")
    proc_ids: list[str] = []
    proc_types: list[str] = []
    seen: dict[str, int] = {}
    for k, raw in enumerate(procs):
        where = f"platform.processors[{k}]"
        proc = _object(raw, where)
        _unknown_keys(proc, {"id", "type"}, where)
        if "id" not in proc:
            raise InstanceError(f"{where}.id: missing")
        pid = _string(proc["id"], f"{where}.id")
        if pid in seen:
            raise InstanceError(
                f"{where}.id: duplicate processor id {pid!r} "
                f"(also platform.processors[{seen[pid]}])"
            )
        seen[pid] = k
        proc_ids.append(pid)
        proc_types.append(_string(proc.get("type", "default"), f"{where}.type"))
    network = _plain(_object(platform.get("network", {}), "platform.network"))
    _unknown_keys(network, _NETWORK_KEYS, "platform.network")
    network.setdefault("topology", "fully-connected")
    try:
        topology = from_network(network, proc_types)
        hops = np.asarray(topology.hops(), dtype=float)
    except TopologyError as exc:
        # Huge integers (dims, arity) would make the line unreadable: abbreviate them.
        message = re.sub(r"\d{31,}", lambda m: f"{m[0][:6]}...({len(m[0])} digits)", str(exc))
        raise InstanceError(f"platform.network.{message}") from None
    _check_communication(network, topology, proc_ids)
    return proc_ids, proc_types, network, topology, hops


def _check_communication(
    network: Mapping[str, Any], topology: Any, proc_ids: Sequence[str] = ()
) -> None:
    """The ``communication`` and ``duplex`` keys (docs/instance-format.md).

    Under ``contention`` a schedule names each link ``u->v`` by its ends: a
    processor id holding ``->``, or spelling a fat-tree switch (``sw<level>.<index>``),
    would let two links print alike (an outside audit: ``sw1.0->sw2.0`` was both
    an up-link to the root and a down-link to a processor called ``sw2.0``).
    Without ``->`` in any name, ``u->v`` splits one way only.
    """
    from topologies import TopologyError
    from topologies.routing import COMMUNICATION_MODELS, check_routable

    model = network.get("communication", "delay")
    if not isinstance(model, str) or model not in COMMUNICATION_MODELS:
        known = ", ".join(repr(m) for m in COMMUNICATION_MODELS)
        raise InstanceError(
            f"platform.network.communication: expected one of {known}, got {_show(model)}"
        )
    if "duplex" in network and not isinstance(network["duplex"], bool):
        raise InstanceError(
            f"platform.network.duplex: expected true or false, got {_show(network['duplex'])}"
        )
    try:
        check_routable(topology, model)
    except TopologyError as exc:
        raise InstanceError(f"platform.network.{exc}") from None
    if model != "contention":
        return
    switches = _switch_names(topology)
    for k, pid in enumerate(proc_ids):
        if "->" in pid or pid in switches:
            why = "holds '->'" if "->" in pid else "is the name of a switch of the fat tree"
            raise InstanceError(
                f"platform.processors[{k}].id: {_show(pid)} {why}, and under 'contention' "
                "a schedule names each link 'u->v' by its ends: rename the processor"
            )


def _switch_names(topology: Any) -> frozenset[str]:
    """The names ``sw<level>.<index>`` of a fat tree's switches (none elsewhere)."""
    from topologies import FatTree

    if not isinstance(topology, FatTree):
        return frozenset()
    n, arity = topology.n_processors, topology.arity
    return frozenset(
        f"sw{level}.{index}"
        for level in range(1, topology.levels + 1)
        for index in range(n // arity**level)
    )


def _expand_preset(platform: Any) -> Any:
    """A platform given by preset, as the full platform object; anything else as is.

    ``"summit"`` is the preset of :func:`topologies.presets.platform_preset`;
    ``{"preset": "summit", "network": {...}}`` replaces the preset's network keys
    by the given ones (e.g. ``bandwidth``, ``latency``).
    """
    if not isinstance(platform, str) and not (
        isinstance(platform, Mapping) and "preset" in platform
    ):
        return platform  # an ordinary platform object, or a wrong type the caller names
    from topologies.presets import platform_preset

    overrides: Mapping[str, Any] = {}
    name = platform
    if isinstance(platform, Mapping):
        name = platform["preset"]
        extra = sorted(str(key) for key in platform if key not in ("preset", "network"))
        if extra:
            raise InstanceError(
                f"platform.{extra[0]}: not allowed with 'preset' (only 'network' overrides)"
            )
        overrides = _object(platform.get("network", {}), "platform.network")
    if not isinstance(name, str):
        raise InstanceError(f"platform.preset: expected a preset name, got {_show(name)}")
    try:
        expanded = platform_preset(name)
    except ValueError as exc:
        where = "platform.preset" if isinstance(platform, Mapping) else "platform"
        raise InstanceError(f"{where}: {exc}") from None
    expanded["network"] = {**expanded["network"], **overrides}
    return expanded


def _parse_affinity(
    task: Mapping[str, Any],
    proc_ids: list[str],
    proc_index: Mapping[str, int],
    where: str,
    about: str,
) -> np.ndarray:
    mask = np.ones(len(proc_index), dtype=bool)
    if "processors" not in task:
        return mask
    names = task["processors"]
    if not isinstance(names, list | tuple):
        raise InstanceError(
            f"{where}.processors: expected a list of processor ids, got {_show(names)}{about}"
        )
    if not names:
        raise InstanceError(
            f"{where}.processors: empty affinity; list at least one processor{about}"
        )
    mask[:] = False
    for k, pid in enumerate(names):
        if not isinstance(pid, str):
            raise InstanceError(
                f"{where}.processors[{k}]: expected a processor id, got {_show(pid)}{about}"
            )
        if pid not in proc_index:
            raise InstanceError(f"{where}.processors[{k}]: unknown processor {pid!r}{about}")
        if mask[proc_index[pid]]:
            warnings.warn(
                f"{where}.processors[{k}]: repeats processor {pid!r}{about} (counted once)",
                InstanceWarning,
                stacklevel=5,
            )
        mask[proc_index[pid]] = True
    return mask


def _parse_cost(
    task: Mapping[str, Any],
    proc_ids: list[str],
    proc_types: list[str],
    mask: np.ndarray,
    where: str,
    about: str,
) -> np.ndarray:
    if "cost" not in task:
        raise InstanceError(f"{where}.cost: missing{about}")
    spec = task["cost"]
    n_procs = len(proc_types)
    row = np.full(n_procs, np.inf)
    if _is_number(spec):
        row[mask] = _number(spec, f"{where}.cost", about=about)
    elif isinstance(spec, Mapping):
        by_type = {t: _number(v, f"{where}.cost.{t}", about=about) for t, v in spec.items()}
        for k in np.flatnonzero(mask).tolist():
            ptype = proc_types[k]
            if ptype not in by_type:
                raise InstanceError(
                    f"{where}.cost: no cost for processor type {ptype!r} "
                    f"(type of processor {proc_ids[k]!r}, allowed for {about[2:-1]})"
                )
            row[k] = by_type[ptype]
    elif isinstance(spec, list | tuple):
        if len(spec) != n_procs:
            raise InstanceError(
                f"{where}.cost: list has {len(spec)} numbers, expected {n_procs} "
                f"(one per processor){about}"
            )
        values = _plain_numbers(spec)
        if values is None:  # something to name: the checks one number at a time
            values = np.array(
                [_number(v, f"{where}.cost[{k}]", about=about) for k, v in enumerate(spec)]
            )
        row[mask] = values[mask]
    else:
        raise InstanceError(
            f"{where}.cost: expected a number, an object keyed by processor type or a list, "
            f"got {_show(spec)}{about}"
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
        if a == b:
            raise InstanceError(f"edges[{e}]: self-loop on task {edge['src']!r}")
        if (a, b) in seen:
            about = f" (edge {edge['src']!r} -> {edge['dst']!r})"
            raise InstanceError(f"edges[{e}]: duplicate of edges[{seen[a, b]}]{about}")
        seen[a, b] = e
        src[e], dst[e] = a, b
        value = edge.get("data", 0)
        kind = type(value)
        if (kind is float or kind is int) and 0 <= value <= _LARGEST:
            data[e] = value  # the common case, without building the message
        else:
            about = f" (edge {edge['src']!r} -> {edge['dst']!r})"
            data[e] = _number(value, f"edges[{e}].data", about=about)
    return src, dst, data


def _parse_pairs(
    doc: Mapping[str, Any], key: str, task_index: Mapping[str, int]
) -> list[tuple[int, tuple[int, int]]]:
    """The distinct pairs of ``order`` or ``isolation`` with their document index."""
    pairs: list[tuple[int, tuple[int, int]]] = []
    seen: dict[tuple[int, int], int] = {}
    for k, raw in enumerate(_list(doc.get(key, []), key)):
        if not isinstance(raw, list | tuple) or len(raw) != 2:
            raise InstanceError(
                f"{key}[{k}]: expected a pair [a, b] of task ids, got {_show(raw)}"
            )
        a = _task_ref(raw[0], task_index, f"{key}[{k}][0]")
        b = _task_ref(raw[1], task_index, f"{key}[{k}][1]")
        if a == b:
            raise InstanceError(f"{key}[{k}]: pair of task {raw[0]!r} with itself")
        # An isolation pair is unordered; an order pair is not.
        pair = (min(a, b), max(a, b)) if key == "isolation" else (a, b)
        if pair in seen:
            warnings.warn(
                f"{key}[{k}]: repeats {key}[{seen[pair]}] ({raw[0]!r}, {raw[1]!r}); ignored",
                InstanceWarning,
                stacklevel=5,
            )
            continue
        seen[pair] = k
        pairs.append((k, (a, b)))
    return pairs


def _topological_order(
    n: int, src: np.ndarray, dst: np.ndarray, task_ids: list[str], labels: list[str]
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
        raise InstanceError(_cycle_message(src, dst, indeg, task_ids, labels))
    return np.array(order, dtype=np.int64)


def _cycle_message(
    src: np.ndarray, dst: np.ndarray, indeg: list[int], task_ids: list[str], labels: list[str]
) -> str:
    """Name one cycle among the tasks Kahn's algorithm could not sort.

    Every such task still has a predecessor among them, so walking predecessors
    from any of them must repeat a task: the walk between the repeats is a cycle.
    """
    remaining = {i for i, d in enumerate(indeg) if d > 0}
    pred_arc: dict[int, int] = {}  # one arc from a remaining task into each remaining task
    for a, (i, j) in enumerate(zip(src.tolist(), dst.tolist(), strict=True)):
        if i in remaining and j in remaining and j not in pred_arc:
            pred_arc[j] = a
    node = min(remaining)
    position: dict[int, int] = {}
    walk: list[int] = []  # arcs followed backwards
    while node not in position:
        position[node] = len(walk)
        arc = pred_arc[node]
        walk.append(arc)
        node = int(src[arc])
    arcs = walk[position[node] :][::-1]  # forwards along the cycle
    first = min(arcs)
    start = arcs.index(first)
    arcs = arcs[start:] + arcs[:start]  # begin the cycle with the arc we name
    tasks = [int(src[a]) for a in arcs] + [int(src[arcs[0]])]
    through = ", ".join(labels[a] for a in sorted(arcs))
    cycle = " -> ".join(repr(task_ids[i]) for i in tasks)
    return f"{labels[first]}: cycle {cycle} (through {through})"


_BITSET_LIMIT = 4096  # above this many tasks, bitsets of all reachable sets cost O(n^2) memory


#: Second tasks of isolation pairs per reachability pass (bits per task).
_TARGET_BLOCK = 4096


def _warn_redundant_isolation(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    topo: np.ndarray,
    isolation: list[tuple[int, tuple[int, int]]],
    task_ids: list[str],
) -> None:
    """Warn about isolation pairs already ordered by a path (harmless but redundant)."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        succ[a].append(b)
    position = np.empty(n, dtype=np.int64)
    position[topo] = np.arange(n)
    # Orient each pair along the topological order: only a path first -> second can exist.
    oriented = []
    for k, (a, b) in isolation:
        first, second = (a, b) if position[a] < position[b] else (b, a)
        oriented.append((k, a, b, first, second))
    if n <= _BITSET_LIMIT:
        reach = [0] * n  # bitset of the tasks reachable from each task
        for i in reversed(topo.tolist()):
            bits = 0
            for j in succ[i]:
                bits |= reach[j] | (1 << j)
            reach[i] = bits
        joined = {(f, s) for _, _, _, f, s in oriented if reach[f] >> s & 1}
    else:
        # Bitsets over the pairs' second tasks only, a block of them at a time: per
        # task, which of them it reaches. O((n + arcs) x blocks) time, O(n x block)
        # bits; one search per pair was O(pairs x (n + arcs)): 16 s at 100k tasks.
        seconds = sorted({s for _, _, _, _, s in oriented})
        joined = set()
        order = topo.tolist()[::-1]
        for start in range(0, len(seconds), _TARGET_BLOCK):
            bit = {s: k for k, s in enumerate(seconds[start : start + _TARGET_BLOCK])}
            reach = [0] * n  # the block's tasks reachable from each task (itself too)
            for i in order:
                bits = 1 << bit[i] if i in bit else 0
                for j in succ[i]:
                    bits |= reach[j]
                reach[i] = bits
            joined.update(
                (f, s) for _, _, _, f, s in oriented if s in bit and reach[f] >> bit[s] & 1
            )
    for k, a, b, first, second in oriented:
        if (first, second) in joined:
            warnings.warn(
                f"isolation[{k}]: tasks {task_ids[a]!r} and {task_ids[b]!r} are already "
                f"ordered by a path from {task_ids[first]!r} to {task_ids[second]!r} "
                f"(harmless)",
                InstanceWarning,
                stacklevel=5,
            )
