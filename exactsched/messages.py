"""Message times of a schedule under the ``single-port`` and ``contention`` models.

Under the ``delay`` model a schedule lists tasks only. Under the other models
(``docs/instance-format.md``, "Communication models") each *remote* message,
a data edge whose tasks sit on processors with a route between them, also gets
its times, so that :mod:`exactsched.validate_comm` can check that ports and
links are never used by two messages at once:

.. code-block:: json

    "messages": [
      {"src": "a", "dst": "b", "start": 2, "finish": 6,
       "links": [{"link": "p0->p1", "start": 2, "finish": 4},
                 {"link": "p1->p3", "start": 4, "finish": 6}]}
    ]

Under ``single-port`` a message has ``start`` and ``finish`` (the interval it
holds the sender's send port and the receiver's receive port) and no
``links``; under ``contention`` it has one ``links`` entry per link of its
route, in route order, and ``start`` / ``finish`` are those of the first and
last link (``finish`` is the arrival).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from exactsched.errors import ScheduleError

__all__ = ["LinkTime", "Message", "messages_from_json"]


@dataclass(frozen=True, slots=True)
class LinkTime:
    """One link of a message's route and the interval ``[start, finish)`` it holds it."""

    link: str
    start: float
    finish: float


@dataclass(frozen=True, slots=True)
class Message:
    """The times of the message of edge ``src -> dst``.

    Examples
    --------
    >>> m = Message("a", "b", 2, 6, (LinkTime("p0->p1", 2, 4), LinkTime("p1->p3", 4, 6)))
    >>> m.to_json()["links"][1]
    {'link': 'p1->p3', 'start': 4, 'finish': 6}
    >>> messages_from_json([m.to_json()]) == (m,)
    True
    """

    src: str
    dst: str
    start: float
    finish: float
    links: tuple[LinkTime, ...] = ()

    def to_json(self) -> dict[str, Any]:
        from exactsched.schedule import _tidy

        doc: dict[str, Any] = {
            "src": self.src,
            "dst": self.dst,
            "start": _tidy(self.start),
            "finish": _tidy(self.finish),
        }
        if self.links:
            doc["links"] = [
                {"link": h.link, "start": _tidy(h.start), "finish": _tidy(h.finish)}
                for h in self.links
            ]
        return doc


def messages_from_json(rows: Any) -> tuple[Message, ...]:
    """Read the ``messages`` list of a schedule document (form only).

    Raises
    ------
    ScheduleError
        One line starting with the JSON path at fault.

    Examples
    --------
    >>> messages_from_json([{"src": "a", "dst": "b", "start": 1}])
    Traceback (most recent call last):
    ...
    exactsched.errors.ScheduleError: messages[0].finish: missing for edge 'a' -> 'b'
    """
    if not isinstance(rows, list | tuple):
        raise ScheduleError("messages: expected a list of messages")
    out = []
    seen: dict[tuple[str, str], int] = {}
    for k, row in enumerate(rows):
        where = f"messages[{k}]"
        if not isinstance(row, Mapping):
            raise ScheduleError(f"{where}: expected an object")
        for key in ("src", "dst"):
            if not isinstance(row.get(key), str):  # "" is a task id like any other
                raise ScheduleError(f"{where}.{key}: expected a task id")
        about = f" for edge {row['src']!r} -> {row['dst']!r}"
        pair = (row["src"], row["dst"])
        if pair in seen:
            raise ScheduleError(f"{where}: repeats messages[{seen[pair]}]{about}")
        seen[pair] = k
        start = _time(row, "start", where, about)
        finish = _time(row, "finish", where, about)
        links = []
        raw_links = row.get("links", [])
        if not isinstance(raw_links, list | tuple):
            raise ScheduleError(f"{where}.links: expected a list{about}")
        for h, link in enumerate(raw_links):
            at = f"{where}.links[{h}]"
            if not isinstance(link, Mapping):
                raise ScheduleError(f"{at}: expected an object{about}")
            if not isinstance(link.get("link"), str):
                raise ScheduleError(f"{at}.link: expected a link name{about}")
            begin, end = _time(link, "start", at, about), _time(link, "finish", at, about)
            links.append(LinkTime(link["link"], begin, end))
        out.append(Message(row["src"], row["dst"], start, finish, tuple(links)))
    return tuple(out)


def _time(row: Mapping[str, Any], key: str, where: str, about: str) -> float:
    if key not in row:
        raise ScheduleError(f"{where}.{key}: missing{about}")
    value = row[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ScheduleError(f"{where}.{key}: expected a number{about}")
    try:
        finite = math.isfinite(value)
    except OverflowError:
        finite = False
    if not finite:
        raise ScheduleError(f"{where}.{key}: not a finite number{about}")
    return value
