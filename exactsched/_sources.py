"""The project's source files, and whether they changed since this process imported them.

A study's results key names the code that computed each row
(:mod:`exactsched.experiments.fingerprint`). The fingerprint hashes the files on
disk; the code that runs is the code that was imported. The two differ when the
sources are edited (or reinstalled) while a process runs: modules imported
before the edit run the old code, modules imported after it the new one, and
neither is what the hash of the files says. So ``import exactsched`` records a
stamp of every source file (path, size, modification time; about 120 ``stat``
calls, a few milliseconds) in :data:`AT_IMPORT`, and :func:`changed_since_import`
tells a sweep that the code in memory may no longer be the code on disk.

No dependency but the standard library: this module is imported first.
"""

from __future__ import annotations

import math
import os
import sys
import time

__all__ = ["PACKAGES", "package_roots", "source_files", "stamp", "changed_since_import"]

#: The importable packages whose sources make the results (the whole distribution).
PACKAGES = ("exactsched", "topologies", "models", "heuristics")


def package_roots() -> list[tuple[str, str]]:
    """``(name, folder)`` of each of :data:`PACKAGES`, found without importing them.

    The four are one distribution, installed side by side: beside this package.
    """
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    roots = []
    for name in PACKAGES:
        folder = os.path.join(here, name)
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            roots.append((name, folder))
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


#: :func:`stamp` when ``exactsched`` was imported (set by ``exactsched/__init__.py``).
AT_IMPORT: tuple[tuple[str, int, int], ...] = ()


#: Seconds a "no change" answer is reused: a study asks once per row, and a row of a
#: fast heuristic takes a millisecond where a stamp takes a few.
RECHECK = 0.5
_last: list[float] = [-math.inf]


def changed_since_import() -> bool:
    """Whether a source file was added, removed or modified since ``import exactsched``.

    A change, once seen, is always reported; "no change" is checked again after
    :data:`RECHECK` seconds.

    Examples
    --------
    >>> import exactsched
    >>> changed_since_import()
    False
    """
    now = time.monotonic()
    if now - _last[0] < RECHECK:
        return False
    if "exactsched" in sys.modules and stamp() != AT_IMPORT:
        return True
    _last[0] = now
    return False
