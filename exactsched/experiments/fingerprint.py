"""The code a study's results came from: the version and a hash of the sources.

A stored run is reused only under the same results key, and the key's version
must change whenever the code that computes a result may have changed. The
package version alone does not (it stays the same between releases, while
methods, their defaults and the validator change), so :func:`results_version`
appends a fingerprint of every Python source of the four packages.

Examples
--------
>>> v = results_version()
>>> v.startswith(__import__("exactsched").__version__ + "+"), len(v.split("+")[1])
(True, 12)
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["code_fingerprint", "results_version", "PACKAGES"]

#: The importable packages whose sources make the results (the whole distribution).
PACKAGES = ("exactsched", "topologies", "models", "heuristics")


@functools.cache
def code_fingerprint() -> str:
    """The first 12 hex digits of SHA-256 over every ``.py`` file of :data:`PACKAGES`.

    Files are taken in sorted order of their path inside the package, each
    hashed with that path, so a renamed or moved module changes the result too.
    Computed once per process (about 150 files: a few milliseconds).
    """
    import importlib

    digest = hashlib.sha256()
    for name in PACKAGES:
        package = importlib.import_module(name)
        root = Path(package.__file__).resolve().parent
        for path in sorted(root.rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if "__pycache__" in relative:
                continue
            digest.update(f"{name}/{relative}\0".encode())
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()[:12]


def results_version() -> str:
    """``"<exactsched version>+<code fingerprint>"``: the version part of a results key."""
    from exactsched import __version__

    return f"{__version__}+{code_fingerprint()}"
