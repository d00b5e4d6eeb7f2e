"""SQLite storage of a study: one row per instance x method x options x version.

A study database is a plain SQLite file (no server). Each finished run is
written in its own transaction the moment it finishes, in WAL mode, so killing
the sweep at any moment loses only the runs still in flight, and the same
command run again skips every finished key. The database also keeps each
instance's document, so it is self-contained: reports, exports and Gantt charts
need nothing else.

Tables
------
``instances``
    ``key`` (content hash), ``name``, ``source``, ``tasks``, ``edges``,
    ``processors``, ``topology``, ``platform``, ``ccr``, ``mst``, ``document``.
``runs``
    ``instance``, ``method``, ``options`` (canonical JSON), ``version`` (the
    results key, unique together), then ``status``, ``makespan``,
    ``lower_bound``, ``certified``, ``certified_by``, ``speedup``, ``slr``,
    ``failed``, ``seconds``, ``error``, ``schedule`` (zlib-compressed JSON),
    ``stats`` (JSON) and ``finished`` (UTC time).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from exactsched.experiments.instances import InstanceInfo

__all__ = ["Store", "SCHEMA_VERSION", "RUN_COLUMNS"]

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS instances (
    key TEXT PRIMARY KEY, name TEXT, source TEXT, tasks INTEGER, edges INTEGER,
    processors INTEGER, topology TEXT, platform TEXT, ccr REAL, mst REAL, document TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    instance TEXT NOT NULL REFERENCES instances(key), method TEXT NOT NULL,
    options TEXT NOT NULL, version TEXT NOT NULL, status TEXT NOT NULL,
    makespan REAL, lower_bound REAL, certified INTEGER, certified_by TEXT,
    speedup REAL, slr REAL, failed INTEGER, seconds REAL, error TEXT,
    schedule BLOB, stats TEXT, finished TEXT,
    PRIMARY KEY (instance, method, options, version)
);
"""

#: Columns of ``runs`` in table order (``schedule`` is decompressed on reading).
RUN_COLUMNS = (
    "instance", "method", "options", "version", "status", "makespan", "lower_bound",
    "certified", "certified_by", "speedup", "slr", "failed", "seconds", "error",
    "schedule", "stats", "finished",
)  # fmt: skip
_INSTANCE_COLUMNS = (
    "key", "name", "source", "tasks", "edges", "processors", "topology", "platform",
    "ccr", "mst", "document",
)  # fmt: skip


class Store:
    """A study database (SQLite).

    Parameters
    ----------
    path : str or path-like
        The database file, created if missing; ``":memory:"`` for a throw-away one.

    Examples
    --------
    >>> store = Store(":memory:")
    >>> store.finished_keys("0.1.0")
    set()
    >>> store.close()
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        from exactsched.errors import InstanceError

        self.path = str(path)
        try:
            # isolation_level=None: we open each transaction ourselves.
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives the death of the process (not of the machine)
            # without an fsync per run.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            found = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise InstanceError(f"{self.path}: not a study database ({exc})") from None
        if found is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        elif found[0] != SCHEMA_VERSION:
            raise InstanceError(
                f"{self.path}: study database schema {found[0]}, expected {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing ------------------------------------------------------------------

    def add_instances(self, infos: Iterable[InstanceInfo]) -> None:
        """Record instances (existing keys keep their first name and source)."""
        rows = [tuple(getattr(i, c) for c in _INSTANCE_COLUMNS) for i in infos]
        with self._transaction():
            marks = ", ".join("?" * len(_INSTANCE_COLUMNS))
            self._db.executemany(f"INSERT OR IGNORE INTO instances VALUES ({marks})", rows)

    def add_run(
        self, instance: str, method: str, options: str, version: str, row: dict[str, Any]
    ) -> None:
        """Write one finished run in its own transaction (replacing an older one)."""
        schedule = row.get("schedule")
        blob = None if schedule is None else zlib.compress(schedule.encode(), 6)
        values = (
            instance, method, options, version, row["status"], row.get("makespan"),
            row.get("lower_bound"), _bool(row.get("certified")), row.get("certified_by"),
            row.get("speedup"), row.get("slr"), _bool(row.get("failed")), row.get("seconds"),
            row.get("error"), blob, row.get("stats"),
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )  # fmt: skip
        with self._transaction():
            self._db.execute(
                f"INSERT OR REPLACE INTO runs VALUES ({', '.join('?' * len(RUN_COLUMNS))})",
                values,
            )

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    # ---- reading ------------------------------------------------------------------

    def finished_keys(
        self, version: str, *, except_status: tuple[str, ...] = ()
    ) -> set[tuple[str, str, str]]:
        """``(instance, method, options)`` of every run recorded for ``version``.

        Runs whose status is in ``except_status`` are left out (to run them again).
        """
        marks = ", ".join("?" * len(except_status))
        cur = self._db.execute(
            "SELECT instance, method, options FROM runs WHERE version = ?"
            + (f" AND status NOT IN ({marks})" if except_status else ""),
            (version, *except_status),
        )
        return {tuple(r) for r in cur}  # type: ignore[misc]

    def instances(self) -> list[dict[str, Any]]:
        """Every instance as a dict (``document`` is the JSON text)."""
        cur = self._db.execute(
            f"SELECT {', '.join(_INSTANCE_COLUMNS)} FROM instances ORDER BY name, key"
        )
        return [dict(zip(_INSTANCE_COLUMNS, r, strict=True)) for r in cur]

    def runs(self, *, schedules: bool = False) -> Iterator[dict[str, Any]]:
        """Every run as a dict, in key order; ``schedule`` decompressed if asked."""
        cols = [c for c in RUN_COLUMNS if schedules or c != "schedule"]
        cur = self._db.execute(
            f"SELECT {', '.join(cols)} FROM runs ORDER BY instance, method, options, version"
        )
        for r in cur:
            row = dict(zip(cols, r, strict=True))
            if schedules and row["schedule"] is not None:
                row["schedule"] = zlib.decompress(row["schedule"]).decode()
            for key in ("certified", "failed"):
                if row[key] is not None:
                    row[key] = bool(row[key])
            yield row

    def schedule(self, instance: str, method: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The instance document and the latest schedule of ``method`` on it.

        ``instance`` may be a key, a key prefix or an instance name.

        Raises
        ------
        InstanceError
            If no such instance or no schedule of that method on it is stored.
        """
        from exactsched.errors import InstanceError

        cur = self._db.execute(
            "SELECT key, document FROM instances WHERE key LIKE ? OR name = ?",
            (instance + "%", instance),
        )
        found = cur.fetchall()
        if len(found) != 1:
            what = "no instance" if not found else f"{len(found)} instances"
            raise InstanceError(f"instance {instance!r}: {what} with this key or name")
        key, document = found[0]
        row = self._db.execute(
            "SELECT schedule FROM runs WHERE instance = ? AND method = ? AND schedule IS NOT NULL"
            " ORDER BY finished DESC LIMIT 1",
            (key, method),
        ).fetchone()
        if row is None:
            raise InstanceError(f"method {method!r}: no schedule stored for instance {key}")
        return json.loads(document), json.loads(zlib.decompress(row[0]))


def _bool(value: Any) -> int | None:
    return None if value is None else int(bool(value))


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self._db.execute("ROLLBACK" if exc_type else "COMMIT")
