"""The one exception of the topologies package.

Every malformed network description, whatever is wrong with it, raises
:class:`TopologyError`, never a bare ``TypeError`` or ``KeyError``. The error
carries the JSON key at fault in :attr:`TopologyError.key` so that the core package
can report it as ``platform.network.<key>: ...``; its message is one line that
starts with that key (or with a more precise path below it, such as ``hops[2][3]``).
"""

from __future__ import annotations

__all__ = ["TopologyError"]


class TopologyError(ValueError):
    """A network description that does not follow the instance format.

    Parameters
    ----------
    key : str
        The key of the ``platform.network`` object at fault: ``"topology"``,
        ``"dims"``, ``"arity"`` or ``"hops"``.
    detail : str
        One human sentence saying what is wrong, without the key.
    path : str, optional
        Where exactly below `key` the fault lies, for instance ``"hops[2][3]"``;
        defaults to `key`. It must start with `key`.

    Attributes
    ----------
    key : str
        The top-level key at fault.
    path : str
        The precise location, `key` possibly followed by indices.
    detail : str
        The sentence after the path.

    Examples
    --------
    >>> err = TopologyError("hops", "negative value -1", path="hops[2][3]")
    >>> str(err)
    'hops[2][3]: negative value -1'
    >>> err.key, err.path, err.detail
    ('hops', 'hops[2][3]', 'negative value -1')
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(self, key: str, detail: str, *, path: str | None = None) -> None:
        path = key if path is None else path
        if not path.startswith(key):
            raise ValueError(f"path {path!r} does not start with key {key!r}")
        # Keep the message on one line whatever the detail holds.
        detail = " ".join(str(detail).split())
        super().__init__(f"{path}: {detail}")
        self.key = key
        self.path = path
        self.detail = detail

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuild from the keyword form so that the error survives pickling
        # (for instance when raised inside a worker process).
        return (_rebuild, (self.key, self.detail, self.path))


def _rebuild(key: str, detail: str, path: str) -> TopologyError:
    return TopologyError(key, detail, path=path)
