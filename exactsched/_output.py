"""How text and files leave exactsched: names shown safely, files written whole.

* :func:`printable`: a name (an instance's, a method label, an id) as it may be
  shown on a terminal or in Markdown. Names are data: a file name or a ``name``
  field may hold an ANSI escape, a newline, a ``|`` or a backtick, which must
  neither reach the terminal as a control sequence nor break a table. JSON and
  CSV keep the exact name; only what is shown to a reader goes through here.
* :func:`atomic_write`: open a file to be written through a temporary file in
  its folder, moved over the target only once complete, so a failed write (a
  full disk) leaves the old file, or none, never a truncated one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import stat
import sys
from collections.abc import Iterator
from decimal import Decimal
from typing import IO, Any

__all__ = ["printable", "atomic_write", "number_text", "json_number", "rough"]

# Inline Markdown that a name could start: a backslash (it would escape what follows),
# code spans, table cells, emphasis, links, HTML, math and strike-through.
_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`|*_[]<>$~"})
# "1. x" or "1) x" starts an ordered list (a marker is followed by a blank or the end);
# CommonMark escapes it as "1\. x" (a backslash before a digit stays visible).
_ORDERED = re.compile(r"\d+(?=[.)](\s|$))")


# A line that starts with one of these is a heading, list item, quote or rule in Markdown.
_BLOCK_START = ("#", "-", "+", "=", ">")


def printable(text: object, markdown: bool = False) -> str:
    """``text`` as it may be shown: no control character, and in Markdown no markup.

    Every character that is not printable (a control character such as ESC,
    a newline, a tab, a bidirectional override) becomes its visible Python
    escape (``\\x1b``, ``\\n``), so a name stays one line and sends nothing to
    the terminal. With ``markdown``, a line break or tab becomes a space
    instead and Markdown's inline punctuation (``\\ ` | * _ [ ] < > $ ~``) is
    backslash-escaped, as is a leading ``#``, ``-``, ``+``, ``=``, ``>`` or
    ``1.``, so a name shows as it is and cannot break a table cell, a list
    item or a code span around it, nor become a heading.

    Parameters
    ----------
    text : object
        The name (anything else is converted with ``str``).
    markdown : bool
        Escape for a Markdown table or list instead of a terminal.

    Returns
    -------
    str
        The text to show; ``text`` itself when there is nothing to escape.

    Examples
    --------
    >>> printable("heft"), printable("a\\nb"), printable("\\x1b[31mred")
    ('heft', 'a\\\\nb', '\\\\x1b[31mred')
    >>> printable("we|ird\\nname `x`", markdown=True)
    'we\\\\|ird name \\\\`x\\\\`'
    >>> printable("# Evil", markdown=True), printable("1. item", markdown=True)
    ('\\\\# Evil', '1\\\\. item')
    >>> printable("0.25%", markdown=True)   # a number is no list marker
    '0.25%'
    """
    text = str(text)
    if markdown:
        text = text.translate(_MARKDOWN)
        if text.startswith(_BLOCK_START):
            text = "\\" + text  # it may start a line: no heading, list or quote
        elif marker := _ORDERED.match(text):
            text = f"{marker.group()}\\{text[marker.end() :]}"
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable()
        else " " if markdown and ch.isspace()
        else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )  # fmt: skip


def listed(text: object) -> str:
    """``text`` as one item of a list separated by blanks: :func:`printable`, or JSON-quoted.

    A name holding a blank, a comma, a quote, a control character or nothing is
    shown as a JSON string, so the items of ``a b`` and ``"a b"`` cannot be confused.

    Examples
    --------
    >>> listed("t1"), listed("a b"), listed("x\\ny"), listed("")
    ('t1', '"a b"', '"x\\\\ny"', '""')
    """
    text = str(text)
    if text and text.isprintable() and not any(c.isspace() or c in "\"'," for c in text):
        return text
    return printable(json.dumps(text, ensure_ascii=False))


def is_device(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is written in place: a device, a pipe, ``/dev/stdout``.

    A link under ``/dev`` or ``/proc`` (``/dev/stdout`` resolves to
    ``/proc/self/fd/1``, then to a pipe or to whatever file the shell opened),
    or an existing path that is not a regular file or a folder. A regular file
    under ``/dev/shm`` is a file like any other.

    Examples
    --------
    >>> is_device("/dev/stdout"), is_device("/dev/null"), is_device("out.json")
    (True, True, False)
    """
    text = os.fspath(path)
    if text.startswith(("/dev/", "/proc/")) and os.path.islink(text):
        return True
    try:
        mode = os.stat(path).st_mode  # through links, as open() would
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def writes_stdout(path: str | os.PathLike[str]) -> bool:
    """Whether writing ``path`` writes this process's standard output."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(1))
    except (OSError, ValueError):
        return False


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO]:
    """Open ``path`` for writing; it gets the whole text or is left as it was.

    The file object writes a temporary file in the target's folder; on leaving
    the block without error it is flushed to disk and moved over ``path``
    (:func:`os.replace`, atomic on one file system). On any error the
    temporary file is removed and the error propagates, with ``path`` as its
    file name where it named the temporary file.

    A path that exists and is not a regular file (``/dev/full``,
    ``/dev/stdout``, a named pipe) is written in place: nothing can stand in
    for it. So is a writable file in a folder where no file can be created.
    A symbolic link is written through, as :func:`open` would.

    Parameters
    ----------
    path : str or path-like
        The file to write.
    mode : str
        ``"w"`` (text) or ``"wb"`` (bytes).
    **kwargs
        Passed to :func:`open` (``encoding``, ``newline``, ``errors``).

    Yields
    ------
    file object

    Raises
    ------
    OSError
        If the file cannot be written; ``path`` is then unchanged.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_write(folder / "a.txt", encoding="utf-8") as fh:
    ...     _ = fh.write("whole")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('whole', ['a.txt'])
    """
    target = os.path.realpath(path)
    if writes_stdout(path):
        # Our own standard output (a terminal, a pipe, or a file the shell opened, perhaps
        # for appending): write through it, so that its offset and mode are kept and
        # nothing is truncated or written over.
        stream = sys.stdout.buffer if "b" in mode else sys.stdout
        stream.flush()
        yield stream
        stream.flush()
        return
    if is_device(path):
        with _open_in_place(path, mode, **kwargs) as fh:
            yield fh
        return
    try:
        fd, temp = _create_temporary(target)
    except PermissionError:
        with open(path, mode, **kwargs) as fh:
            yield fh
        return
    except OSError as exc:  # a missing folder: say which file was asked for
        exc.filename = os.fspath(path)
        raise
    try:
        with contextlib.suppress(OSError):
            os.fchmod(fd, stat.S_IMODE(os.stat(target).st_mode))  # an existing file keeps its mode
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())  # a full disk shows here, before the old file is replaced
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError) and exc.filename in (temp, None):
            exc.filename = os.fspath(path)  # a full disk (write, fsync) names no file
        raise


def _open_in_place(path: str | os.PathLike[str], mode: str, **kwargs: Any) -> IO:
    """Open a device or named pipe for writing; a pipe that no process reads is an error.

    Opening such a pipe would wait forever for a reader; opened without
    blocking it fails at once (``ENXIO``), and with a reader the descriptor is
    switched back to blocking writes.
    """
    if not stat.S_ISFIFO(os.stat(path).st_mode):
        return open(path, mode, **kwargs)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            reason = "a named pipe that no process reads"
            raise OSError(exc.errno, reason, os.fspath(path)) from None
        raise
    os.set_blocking(fd, True)
    return os.fdopen(fd, mode, **kwargs)


def _create_temporary(target: str) -> tuple[int, str]:
    """A new empty file beside ``target`` (its descriptor and path), mode as the umask says."""
    folder, name = os.path.split(target)
    # The target's name may be as long as a name can be: keep the temporary one short.
    stem = name[:40]
    for _ in range(100):
        temp = os.path.join(folder, f".{stem}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temp
        except FileExistsError:
            continue
    raise FileExistsError(f"{target}: no free temporary name beside it")


def json_number(value: float) -> float | int:
    """A number for a JSON document: a whole float below 2**53 as an int (73, not 73.0).

    Beyond 2**53 a float's integer digits are binary noise (1.000000001e24
    would print as 1000000001000000037322752), so it stays a float; other
    floats keep every bit (rounding to places would turn a bound of 1e-10 into 0).

    Examples
    --------
    >>> json_number(73.0), json_number(1e-10), json_number(1e24)
    (73, 1e-10, 1e+24)
    """
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def number_text(value: float | int) -> str:
    """A time or bound as text with every digit it holds (3000000002331, not 3e+12).

    A whole float below 2**53 is shown as the integer it is. Another float is
    shown in the fewest significant digits that give it back within
    :data:`CLOSE_ULPS` units in its last place: the noise of binary arithmetic
    on decimal data goes (0.1 + 0.2 + 0.3 is 0.6000000000000001: shown 0.6),
    every digit a float can hold stays (3000000002331.5, 133456789012345.5).
    From 2**53 on, a float is shown as it round-trips (``repr``). Only the text
    changes; stored values and JSON keep every bit.

    Examples
    --------
    >>> number_text(3000000002331.0), number_text(80.0), number_text(0.1 + 0.2 + 0.3)
    ('3000000002331', '80', '0.6')
    >>> number_text(3000000002331.5), number_text(1 / 3), number_text(2.5e-20)
    ('3000000002331.5', '0.3333333333333333', '2.5e-20')
    >>> number_text(10000000000001.0), number_text(2.0**53 - 1), number_text(1e300)
    ('10000000000001', '9007199254740991', '1e+300')
    >>> number_text(1e15 + 0.75)  # every digit a float holds: not 1000000000000001
    '1000000000000000.8'
    """
    exact_int = isinstance(value, int) and not isinstance(value, bool)
    if exact_int and (abs(value) < 2**53 or not _is_a_float(value)):
        return str(value)  # every digit of an exact integer
    # beyond 2**53 an integer that is a float (a ceiling of one) shows as the float
    value = float(value)
    if math.isfinite(value) and value == int(value) and abs(value) < 2.0**53:
        return str(int(value))  # every digit, before any rounding of noise
    if not abs(value) < 2.0**53:
        return repr(value)  # as a float round-trips: every unit there may be a digit
    value = _fewest_digits(value)
    if value == int(value):
        return str(int(value))
    return repr(value)


#: Units in the last place within which :func:`number_text` shows a float by a
#: shorter decimal: the rounding of a few sums (0.1 + 0.2 + 0.3), never a digit the
#: float holds (2000000000000.003 is 12 units from 2000000000000; 16 hid it).
CLOSE_ULPS = 4


def rough(value: float | int) -> str:
    """A size in three significant digits for a message, at any magnitude.

    ``f"{v:.3g}"`` converts an integer to a float and fails beyond 1.8e308 (a
    search space of 200 tasks, a sum of grid units of data near 1e308).

    Examples
    --------
    >>> rough(1234567), rough(0.000123456), rough(10**400)
    ('1.23e+06', '0.000123', '1.00e+400')
    """
    try:
        return f"{value:.3g}"
    except OverflowError:  # an integer beyond every float
        return f"{Decimal(value):.3g}"


def _is_a_float(value: int) -> bool:
    """Whether the integer ``value`` is exactly a (finite) float."""
    try:
        return float(value) == value
    except OverflowError:
        return False


def _fewest_digits(value: float) -> float:
    """The float of fewest significant digits within :data:`CLOSE_ULPS` ulps of ``value``."""
    if not math.isfinite(value) or value == 0:
        return value
    close = CLOSE_ULPS * math.ulp(value)
    # Noise leaves a long tail (0.6000000000000001: 16 digits for 1); a shorter text
    # that saves only a digit or two is a value the float holds (1000000000000000.75
    # is not 1000000000000001).
    held = len(repr(value).split("e")[0].replace("-", "").replace(".", "").strip("0"))
    for digits in range(1, held - 2):
        near = float(f"{value:.{digits}g}")
        if abs(near - value) <= close:
            return near
    return value
