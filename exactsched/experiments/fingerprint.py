"""The code a study's results came from: the version and a hash of the sources.

A stored run is reused only under the same results key, and the key's version
must change whenever the code that computes a result may have changed. The
package version alone does not (it stays the same between releases, while
methods, their defaults and the validator change), so :func:`results_version`
appends a fingerprint of every Python source of the four packages. A method
registered from outside them (a user's script) is not in that fingerprint, so
its runs carry one of its own code, :func:`outside_fingerprint`, in their options
(``code``; see :func:`~exactsched.experiments.runner.run_options`).

Examples
--------
>>> v = results_version()
>>> v.startswith(__import__("exactsched").__version__ + "+"), len(v.split("+")[1])
(True, 12)
"""

from __future__ import annotations

import hashlib
import inspect
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from exactsched import _sources
from exactsched._sources import PACKAGES

__all__ = ["code_fingerprint", "outside_fingerprint", "results_version", "PACKAGES"]


def code_fingerprint() -> str:
    """The first 12 hex digits of SHA-256 over every ``.py`` file of :data:`PACKAGES`.

    Files are taken in sorted order of their path inside the package, each
    hashed with that path, so a renamed or moved module changes the result too.
    Hashed when ``exactsched`` was imported (:data:`exactsched._sources.DIGEST_AT_IMPORT`):
    the files of the code this process runs, not those on disk later;
    :func:`exactsched._sources.changed_since_import` tells whether they still are.
    """
    return (_sources.DIGEST_AT_IMPORT or _sources.digest())[:12]


def results_version() -> str:
    """``"<exactsched version>+<code fingerprint>"``: the version part of a results key."""
    from exactsched import __version__

    return f"{__version__}+{code_fingerprint()}"


def outside_fingerprint(funcs: Iterable[Callable[..., Any]]) -> str:
    """12 hex digits over the code of the methods registered outside :data:`PACKAGES`.

    Each such function counts by the whole source file it was defined in (so an
    edited helper of the script counts too), or, without a readable file (a
    function typed at a prompt), by its compiled code. ``""`` when every function
    belongs to the packages, whose code :func:`code_fingerprint` covers. Behaviour
    that depends on anything else (command-line arguments, data files, globals
    set at run time) is not seen: such a variant needs a name of its own.

    Examples
    --------
    >>> from exactsched.registry import get_method
    >>> outside_fingerprint([get_method("heft").func])
    ''
    >>> space = {}
    >>> exec("def mine(problem): return None", space)  # no file, no package
    >>> len(outside_fingerprint([space["mine"]]))
    12
    """
    digest = hashlib.sha256()
    outside = False
    for func in funcs:
        func = inspect.unwrap(func)
        module = getattr(func, "__module__", None) or ""
        if module.split(".")[0] in PACKAGES:
            continue
        outside = True
        # A spawned process (the pool on Windows and macOS) imports the script as
        # __mp_main__: the same code, which must give the same fingerprint.
        module = "__main__" if module == "__mp_main__" else module
        digest.update(f"{module}.{getattr(func, '__qualname__', '')}\0".encode())
        digest.update(_source_bytes(func) or _code_bytes(getattr(func, "__code__", None)))
        digest.update(b"\0")
    return digest.hexdigest()[:12] if outside else ""


def _source_bytes(func: Callable[..., Any]) -> bytes | None:
    """The bytes of the file ``func`` was defined in; None when there is none to read."""
    try:
        name = inspect.getsourcefile(func)
        return Path(name).read_bytes() if name else None
    except (TypeError, OSError):
        return None


def _code_bytes(code: types.CodeType | None) -> bytes:
    """The compiled instructions, names and constants of ``code``, nested code included."""
    if code is None:
        return b""
    parts = [code.co_code, repr(code.co_names).encode()]
    for const in code.co_consts:
        parts.append(
            _code_bytes(const) if isinstance(const, types.CodeType) else repr(const).encode()
        )
    return b"\1".join(parts)
