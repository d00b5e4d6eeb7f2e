"""Instances of a study: the one loading function, discovery and content keys.

Every instance a sweep runs goes through :func:`load_problem`, so a new input
format (STG, DOT, WfCommons, ``--platform``) reaches ``compare`` by changing
that one function. An instance is identified by :func:`instance_key`, a hash of
its content (the name excluded), so renaming or moving a file does not make a
study recompute it, and two files with the same content are one instance.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exactsched.errors import InstanceError
from exactsched.problem import Problem

__all__ = [
    "InstanceInfo",
    "load_problem",
    "discover",
    "instance_key",
    "describe",
    "INSTANCE_SUFFIXES",
    "canonical_json",
    "canonical_document",
    "canonical_spelling",
    "content_key",
    "file_key",
]

#: File suffixes a directory argument of ``compare`` is searched for: instance and
#: WfCommons JSON, and the graphs :func:`exactsched.workloads.load_problem` reads.
INSTANCE_SUFFIXES = (".json", ".stg", ".dot", ".gv")


def load_problem(
    source: str | os.PathLike[str] | Mapping[str, Any] | Problem,
    platform: str | os.PathLike[str] | Mapping[str, Any] | None = None,
) -> Problem:
    """Read one instance of a study, optionally on another platform.

    Parameters
    ----------
    source : path, mapping or Problem
        An instance file (``exactsched/instance@1`` JSON, or any format
        :mod:`exactsched.workloads` reads), a parsed document or a problem.
    platform : path or mapping, optional
        A ``platform`` object, or an instance document whose ``platform`` is
        taken, replacing the instance's own.

    Returns
    -------
    Problem

    Raises
    ------
    InstanceError
        With a one-line message naming the file and the key at fault.

    Examples
    --------
    >>> p = load_problem("examples/topcuoglu2002.json")
    >>> p.n_tasks, p.n_processors
    (10, 3)
    >>> q = load_problem("examples/mesh-isolation.json", "examples/mesh-isolation.json")
    >>> q == load_problem("examples/mesh-isolation.json")
    True
    """
    from exactsched import workloads
    from exactsched.instance import load_instance

    if isinstance(source, Problem):
        if platform is None:
            return source
        source = source.to_json()
    if not isinstance(source, Mapping):  # a file of any format the workloads read
        return workloads.load_problem(source, platform=platform)
    if platform is None:
        return load_instance(source)
    from exactsched.workloads.platforms import resolve_platform

    if isinstance(platform, Mapping) and "platform" in platform:  # an instance: its platform
        platform = platform["platform"]
    return load_instance({**source, "platform": resolve_platform(platform).document})


def discover(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The instance files named by ``paths``: files as given, directories searched.

    A directory contributes every file below it whose suffix is in
    :data:`INSTANCE_SUFFIXES`, in sorted order. Duplicates are
    dropped.

    Raises
    ------
    InstanceError
        For a path that does not exist or a directory without instances.

    Examples
    --------
    >>> names = [p.name for p in discover(["examples"])]
    >>> "mesh-isolation.json" in names and names == sorted(names)
    True
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            inside = sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in INSTANCE_SUFFIXES
            )
            if not inside:
                raise InstanceError(f"{path}: no instance files ({', '.join(INSTANCE_SUFFIXES)})")
            found.extend(inside)
        elif path.exists():
            found.append(path)
        else:
            raise InstanceError(f"{path}: no such file or directory")
    seen: set[Path] = set()
    unique = []
    for p in found:
        resolved = p.resolve()
        if resolved not in seen:
            seen.add(resolved)
            unique.append(p)
    return unique


#: Network keys whose documented default may be written out or left out alike.
_NETWORK_DEFAULTS: dict[str, Any] = {
    "topology": "fully-connected",
    "latency": 0,
    "bandwidth": 1,
    "communication": "delay",
}


def _integral_floats_as_ints(value: Any) -> Any:
    # ``2.0`` and ``2`` are one number to every reader (costs are floats), so
    # they must be one key; integers are never turned into floats (an integer
    # beyond 2**53 would lose digits).
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _integral_floats_as_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral_floats_as_ints(v) for v in value]
    return value


def canonical_document(problem: Problem) -> dict[str, Any]:
    """The instance document in one spelling per content.

    Two documents the reader takes for the same instance get the same
    spelling: an integral number written ``2.0``, ``2e0`` or ``2``; a default
    written out or left out (``latency`` 0, ``bandwidth`` 1, ``communication``
    ``"delay"``, ``duplex`` under ``delay`` where it is ignored, a fat tree's
    ``arity`` 2, a processor ``type`` ``"default"``, an edge's ``data`` 0,
    empty ``edges``, ``order`` and ``isolation`` lists); a platform preset
    and the platform it stands for. Everything that can change an answer
    (the order of tasks, processors and edges, which a tie-break reads; the
    form of a cost) is kept as written.

    Examples
    --------
    >>> from exactsched import load_instance
    >>> doc = {"format": "exactsched/instance@1", "tasks": [{"id": "a", "cost": 2.0}],
    ...        "platform": {"processors": [{"id": "p", "type": "default"}],
    ...                     "network": {"topology": "fully-connected", "bandwidth": 1.0}},
    ...        "edges": []}
    >>> canonical_document(load_instance(doc))
    {'format': 'exactsched/instance@1', 'tasks': [{'id': 'a', 'cost': 2}], \
'platform': {'processors': [{'id': 'p'}]}}
    """
    return canonical_spelling(problem.to_json())


def canonical_spelling(document: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`canonical_document` of a valid instance document, without parsing it.

    For documents already read once (a study's stored instances).

    Examples
    --------
    >>> canonical_spelling({"format": "exactsched/instance@1", "tasks": [{"id": "a", "cost": 1.0}],
    ...                     "platform": {"processors": [{"id": "p"}]}, "edges": []})
    {'format': 'exactsched/instance@1', 'tasks': [{'id': 'a', 'cost': 1}], \
'platform': {'processors': [{'id': 'p'}]}}
    """
    from exactsched.instance import _expand_preset

    doc = _integral_floats_as_ints(document)  # new containers: the input is left as it is
    platform = _integral_floats_as_ints(_expand_preset(doc["platform"]))
    processors = [
        {k: v for k, v in proc.items() if not (k == "type" and v == "default")}
        for proc in platform["processors"]
    ]
    network = dict(platform.get("network") or {})
    for key, default in _NETWORK_DEFAULTS.items():
        if key in network and network[key] == default and type(network[key]) is type(default):
            del network[key]
    if network.get("communication", "delay") == "delay":
        network.pop("duplex", None)  # ignored under delay (docs/instance-format.md)
    elif network.get("duplex") is True:
        del network["duplex"]
    if network.get("topology") == "fat-tree" and network.get("arity") == 2:
        del network["arity"]
    doc["platform"] = {"processors": processors, **({"network": network} if network else {})}
    if "edges" in doc:
        doc["edges"] = [
            {k: v for k, v in edge.items() if not (k == "data" and v == 0)}
            for edge in doc["edges"]
        ]
    for key in ("edges", "order", "isolation"):
        if key in doc and not doc[key]:
            del doc[key]
    return doc


def canonical_json(problem: Problem) -> str:
    """The instance document as compact JSON with sorted keys (one text per content).

    The text of :func:`canonical_document`: a study stores it, and
    :func:`instance_key` hashes it.
    """
    return json.dumps(canonical_document(problem), sort_keys=True, separators=(",", ":"))


def instance_key(problem: Problem) -> str:
    """A content hash of the instance: 20 hex digits of SHA-256, the name excluded.

    Examples
    --------
    >>> from exactsched import Problem
    >>> a = Problem.from_lists([1, 2], [(0, 1, 3)], n_processors=2)
    >>> doc = a.to_json()
    >>> b = Problem.from_json({**doc, "name": "renamed"})
    >>> instance_key(a) == instance_key(b)
    True
    """
    return content_key(canonical_document(problem))


def content_key(spelling: Mapping[str, Any]) -> str:
    """:func:`instance_key` of a document already in :func:`canonical_spelling`.

    Examples
    --------
    >>> doc = {"format": "exactsched/instance@1", "name": "x",
    ...        "tasks": [{"id": "a", "cost": 1}], "platform": {"processors": [{"id": "p"}]}}
    >>> content_key(doc) == content_key({**doc, "name": "y"})
    True
    """
    doc = {k: v for k, v in spelling.items() if k != "name"}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class InstanceInfo:
    """What a study records about an instance (the grouping columns of the report).

    Attributes
    ----------
    key : str
        :func:`instance_key`.
    name : str
        The instance's name, or the file stem when it has none.
    source : str
        Where it was read from.
    tasks, edges, processors : int
    topology : str
        The network topology.
    platform : str
        A short label of the platform: processor count and types, topology.
    ccr : float
        :meth:`Problem.ccr`.
    mst : float
        Minimal serial time (the failure threshold).
    document : str
        The instance as canonical JSON (so a study database is self-contained).
    base : str
        The content key of the file as read, before any ``--platform`` or
        ``--communication`` override (``""``: the same as ``key``). A sweep
        records it with each read, so an edit of the file is told apart from
        an override (see :meth:`~exactsched.experiments.store.Store.reads`).
    platform_source : str
        The ``--platform`` file the instance was put on (a real path), or ``""``.
    platform_key : str
        A content key of that platform file as read, or ``""``.
    """

    key: str
    name: str
    source: str
    tasks: int
    edges: int
    processors: int
    topology: str
    platform: str
    ccr: float
    mst: float
    document: str
    base: str = ""
    platform_source: str = ""
    platform_key: str = ""


def describe(
    problem: Problem,
    source: str = "",
    *,
    base: str = "",
    platform_source: str = "",
    platform_key: str = "",
) -> InstanceInfo:
    """The :class:`InstanceInfo` of a problem read from ``source``.

    ``base``, ``platform_source`` and ``platform_key`` say how the sweep read
    it (see :class:`InstanceInfo`); ``base`` defaults to the problem's key.

    Examples
    --------
    >>> info = describe(load_problem("examples/topcuoglu2002.json"), "topcuoglu2002.json")
    >>> info.tasks, info.platform
    (10, '3 processors, fully-connected')
    """
    from exactsched.metrics import minimal_serial_time

    types: dict[str, int] = {}
    for t in problem.proc_types:
        types[t] = types.get(t, 0) + 1
    topology = str(problem.network.get("topology", "fully-connected"))
    if len(types) > 1:
        kinds = " + ".join(f"{n} {t}" for t, n in types.items())
        label = f"{problem.n_processors} processors ({kinds}), {topology}"
    else:
        label = f"{problem.n_processors} processors, {topology}"
    name = problem.name or (Path(source).stem if source else "")
    key = instance_key(problem)
    return InstanceInfo(
        key=key,
        name=name,
        source=str(source),
        tasks=problem.n_tasks,
        edges=len(problem.edge_src),
        processors=problem.n_processors,
        topology=topology,
        platform=label,
        ccr=float(problem.ccr()),
        mst=float(minimal_serial_time(problem)),
        document=canonical_json(problem),
        base=base or key,
        platform_source=platform_source,
        platform_key=platform_key,
    )


def file_key(path: str | os.PathLike[str]) -> str:
    """A content key of a file's bytes (20 hex digits of SHA-256, prefixed ``file:``).

    The base of a file that cannot be read without a platform (STG, DOT,
    WfCommons), and the key of a ``--platform`` file.

    Examples
    --------
    >>> file_key("examples/topcuoglu2002.json").startswith("file:")
    True
    """
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return "file:" + digest.hexdigest()[:20]
