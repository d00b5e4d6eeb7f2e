"""One reader for every supported file: instance JSON, STG, DOT and WfCommons.

Contract
--------
:func:`load_problem` picks the reader from the file's extension (``.json``,
``.stg``, ``.dot`` / ``.gv``), or from its first characters when the extension
is another one, and returns a :class:`~exactsched.Problem`:

========================== ============================================================
file                       platform
========================== ============================================================
instance JSON              its own; ``platform`` given: replaces it (re-targeting)
WfCommons JSON (WfFormat)  ``platform`` required
STG                        ``platform`` required; costs the same on every processor,
                           edges without data
DOT (Sinnen's ``Weight``)  ``platform`` required; node Weight = cost, edge Weight = data
========================== ============================================================

``platform`` is anything :func:`~exactsched.workloads.platforms.resolve_platform`
takes: a preset (``single-gpu``, ``multi-gpu``, ``titan``, ``summit``), a
shorthand (``mesh:4x4``), a JSON file or a platform object. Every failure is one
:class:`~exactsched.InstanceError` line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from exactsched.errors import InstanceError
from exactsched.instance import refuse_if_not_a_file
from exactsched.problem import Problem

__all__ = ["FORMATS", "detect_format", "load_problem"]

#: The input formats :func:`load_problem` reads.
FORMATS = ("instance", "wfcommons", "stg", "dot")

_ARTICLE = {"stg": "an STG", "dot": "a DOT", "wfcommons": "a WfCommons"}
_EXTENSIONS = {".stg": "stg", ".dot": "dot", ".gv": "dot"}


def detect_format(path: str | os.PathLike[str], document: Any = None) -> str:
    """The format of ``path``: one of :data:`FORMATS`.

    A ``.json`` file (or one starting with ``{``) is a WfCommons workflow when
    its document has a ``workflow`` key and no ``format`` key, else an instance.

    Examples
    --------
    >>> detect_format("examples/topcuoglu2002.json")
    'instance'
    >>> detect_format("tests/data/stg/50/rand0000.stg")
    'stg'
    """
    suffix = Path(path).suffix.lower()
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    if suffix != ".json":
        refuse_if_not_a_file(path)
        try:
            with open(path, encoding="utf-8-sig") as fh:
                head = fh.read(512).lstrip()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise InstanceError(f"{path}: cannot read file: {reason}") from None
        word = head.split(None, 1)[0].lower() if head.split() else ""
        if word in ("digraph", "strict", "graph") or head.startswith(("/*", "//")):
            return "dot"
        if word.isdigit():
            return "stg"
        if not head.startswith("{"):
            raise InstanceError(
                f"{path}: unknown file type; expected instance or WfCommons JSON, STG or DOT"
            )
    if document is None:
        from exactsched.instance import read_json

        document = read_json(path)
    if isinstance(document, Mapping) and "workflow" in document and "format" not in document:
        return "wfcommons"
    return "instance"


def load_problem(
    path: str | os.PathLike[str],
    platform: Any = None,
    *,
    keep_dummies: bool = True,
    speeds: Mapping[str, float] | None = None,
) -> Problem:
    """Read any supported file as a problem, on ``platform`` when given.

    Parameters
    ----------
    path : str or path-like
        An instance JSON, WfCommons JSON, STG or DOT file.
    platform : str, path or mapping, optional
        Required for STG, DOT and WfCommons files; for an instance it replaces
        the instance's own platform.
    keep_dummies : bool
        For STG files: keep the dummy entry and exit tasks (default True).
    speeds : mapping, optional
        For WfCommons files: processor type -> speed relative to the machine
        that recorded the runtimes (default 1 for every type).

    Returns
    -------
    Problem

    Raises
    ------
    InstanceError
        One line naming the file and what is wrong with it or the platform.

    Examples
    --------
    >>> p = load_problem("tests/data/stg/50/rand0000.stg", "fully-connected:4")
    >>> p.n_tasks, p.n_processors
    (52, 4)
    >>> load_problem("examples/cholesky-n4-single-gpu.json", "titan").n_processors
    17
    >>> load_problem("tests/data/stg/50/rand0000.stg")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.InstanceError: ...rand0000.stg: an STG file has no platform; give one ...
    """
    from exactsched.instance import load_instance, read_json

    kind = detect_format(path)
    if kind in ("stg", "dot", "wfcommons") and platform is None:
        raise InstanceError(
            f"{path}: {_ARTICLE[kind]} file has no "
            "platform; give one (--platform single-gpu, multi-gpu, titan, summit, a JSON "
            "file, or a shorthand such as fully-connected:4 or mesh:2x2)"
        )
    if kind == "stg":
        from exactsched.workloads.stg import read_stg

        return read_stg(path, platform=platform, keep_dummies=keep_dummies)
    if kind == "dot":
        from exactsched.workloads.dot import read_dot

        return read_dot(path, platform=platform)
    if kind == "wfcommons":
        from exactsched.workloads.wfcommons import read_wfcommons

        return read_wfcommons(path, platform, speeds=speeds)
    if platform is None:
        return load_instance(path)
    from exactsched.workloads.platforms import resolve_platform

    document = read_json(path)
    if not isinstance(document, Mapping):
        return load_instance(document)  # the parser names what is wrong
    document = {**document, "platform": resolve_platform(platform).document}
    try:
        return load_instance(document)
    except InstanceError as exc:  # e.g. per-processor cost lists of another platform
        raise InstanceError(f"{path} on platform {platform}: {exc}") from None
