"""Shared input handling of the workload readers: a path or the text itself."""

from __future__ import annotations

import os
from pathlib import Path

from exactsched.errors import InstanceError
from exactsched.instance import _read_text

__all__ = ["read_source"]


def read_source(
    source: str | os.PathLike[str], what: str, *, newline: str | None = None
) -> tuple[str, str, Path | None]:
    """The text of ``source`` and a label for error messages.

    A path-like object, or a string without a newline, is a file name; a string
    containing a newline is the file's text itself. Returns ``(text, label,
    path)``, where ``label`` is the file name (or ``what`` for text) and ``path``
    is None for text. ``newline`` is :func:`open`'s (None: universal newlines).
    """
    if isinstance(source, str) and "\n" in source:
        return source, what, None
    if not isinstance(source, str | os.PathLike):
        raise InstanceError(
            f"{what}: expected a path or the file text, got {type(source).__name__}"
        )
    path = Path(source)
    try:
        # The instance reader's bounded read: a folder, FIFO or device is refused, so
        # are /dev/zero and binaries at their first NUL byte, and nothing past 1 GiB.
        text = _read_text(path, "text").decode("utf-8")
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InstanceError(f"{path}: cannot read file: {reason}") from None
    if newline is None:  # universal newlines, as open() reads them
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, str(path), path
