"""The project's source files, and whether they changed since this process imported them.

A study's results key names the code that computed each row
(:mod:`exactsched.experiments.fingerprint`). The fingerprint hashes the files on
disk; the code that runs is the code that was imported. The two differ when the
sources are edited (or reinstalled) while a process runs: modules imported
before the edit run the old code, modules imported after it the new one, and
neither is what a hash of the files taken later says. So ``import exactsched``
hashes every source file then (:data:`DIGEST_AT_IMPORT`, the fingerprint of the
code this process runs; about 120 files, 1.7 MB, some 15-20 ms) and records a stamp
of each (size, modification time); :func:`changed_since_import` tells a sweep
that the files changed since (a stamp that moved with the same contents, after
``touch`` or ``git stash pop``, is no change).

No dependency but the standard library: this module is imported first.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import sys
import time

__all__ = [
    "PACKAGES",
    "package_roots",
    "source_files",
    "stamp",
    "digest",
    "changed_since_import",
]

#: The importable packages whose sources make the results (the whole distribution).
PACKAGES = ("exactsched", "topologies", "models", "heuristics")


def package_roots() -> list[tuple[str, str]]:
    """``(name, folder)`` of each of :data:`PACKAGES`, where Python finds it (not imported)."""
    roots = []
    for name in PACKAGES:
        module = sys.modules.get(name)
        spec = getattr(module, "__spec__", None) or importlib.util.find_spec(name)
        locations = list(getattr(spec, "submodule_search_locations", None) or [])
        if locations and os.path.isdir(locations[0]):
            roots.append((name, os.path.realpath(locations[0])))
    return roots


def source_files() -> list[tuple[str, str]]:
    """Every ``.py`` file of :data:`PACKAGES` as ``(package/relative/path, path)``, sorted."""
    files = []
    for name, root in package_roots():
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for file in names:
                if file.endswith(".py"):
                    path = os.path.join(folder, file)
                    relative = os.path.relpath(path, root).replace(os.sep, "/")
                    files.append((f"{name}/{relative}", path))
    return sorted(files)


def stamp() -> tuple[tuple[str, int, int], ...]:
    """``(file, size, mtime_ns)`` of every source file (a file gone: size -1)."""
    out = []
    for relative, path in source_files():
        try:
            st = os.stat(path)
            out.append((relative, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((relative, -1, 0))
    return tuple(out)


def digest() -> str:
    """SHA-256 (hex) over every source file's path and contents, in path order."""
    h = hashlib.sha256()
    for relative, path in source_files():
        h.update(f"{relative}\0".encode())
        try:
            with open(path, "rb") as fh:
                h.update(fh.read())
        except OSError:
            h.update(b"\1gone")
        h.update(b"\0")
    return h.hexdigest()


#: :func:`stamp` and :func:`digest` when ``exactsched`` was imported (set by
#: ``exactsched/__init__.py``; the stamp moves on to a new one with the same digest).
AT_IMPORT: tuple[tuple[str, int, int], ...] = ()
DIGEST_AT_IMPORT: str = ""

#: Seconds a "no change" answer is reused while no module of the packages is newly
#: imported: a study asks once per row, and a row of a fast heuristic takes a
#: millisecond where a stamp takes a few.
RECHECK = 0.5
_last: list[float] = [-math.inf]
_loaded: list[int] = [0]  # modules of the packages loaded at the last "no change"
_changed: list[bool] = [False]  # once seen, for the life of the process


def _package_modules() -> int:
    return sum(1 for name in list(sys.modules) if name.partition(".")[0] in PACKAGES)


def record() -> None:
    """Take :data:`AT_IMPORT` and :data:`DIGEST_AT_IMPORT` (at ``import exactsched``)."""
    global AT_IMPORT, DIGEST_AT_IMPORT
    AT_IMPORT = stamp()
    DIGEST_AT_IMPORT = digest()
    _loaded[0] = _package_modules()


def changed_since_import() -> bool:
    """Whether the code this process runs may differ from the sources it hashed at import.

    The stamps are compared first (cheap); only when one moved are the contents
    hashed again. A stamp that moved with the same contents (``touch``, ``git
    stash pop``) is no change, unless a module of the packages was imported since the
    last check (it may have been read while the contents differed). A change, once
    seen, is reported for the life of the process (the edited code may be loaded).
    "No change" is reused for :data:`RECHECK` seconds while no module is newly imported.

    Examples
    --------
    >>> import exactsched
    >>> changed_since_import()
    False
    """
    global AT_IMPORT
    if _changed[0]:
        return True
    now = time.monotonic()
    loaded = _package_modules()
    if now - _last[0] < RECHECK and loaded == _loaded[0]:
        return False
    current = stamp()
    if current != AT_IMPORT:
        if loaded != _loaded[0] or digest() != DIGEST_AT_IMPORT:
            _changed[0] = True
            return True
        AT_IMPORT = current  # touched, same contents, nothing read meanwhile
    _last[0], _loaded[0] = now, loaded
    return False
