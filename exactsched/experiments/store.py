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
    ``stats`` (JSON), ``finished`` (UTC time) and ``kind`` (``exact`` or
    ``heuristic``, as registered when the run was made: a study read where the
    method is not registered must still know an exact method's claim from a
    heuristic's analytical bound). Databases written before ``kind`` existed
    get the column when a sweep opens them; their rows read ``None``.
``claims``
    ``instance``, ``method``, ``options``, ``version`` (a results key), ``owner``
    (``host:pid`` of the sweep running it) and ``since`` (Unix time): the runs
    in flight. Concurrent sweeps on one database each claim a run before
    starting it (:meth:`Store.claim`), so they share the work; a claim whose
    process is gone (same host) or that is older than its deadline is taken over.
    Databases written before this table existed get it when a sweep opens them.
``sources``
    ``instance``, ``source`` (an absolute path) and ``seen``: every file an
    instance was read from, ``seen`` being when it was last read (a stamp,
    :meth:`Store.reserve_stamp`: a counter that grows with each file a sweep
    reads, also a sweep that reuses stored rows). The
    content of a file is the instance it was last read as; an instance that
    is no file's content is *superseded* (see
    :func:`~exactsched.experiments.analysis.load_rows`). A sweep that opens a
    database written before this table existed fills it in from ``instances``
    (each instance's first source, ordered by its latest run, as such
    databases were read); read-only, it is read the same way. Kept up to date
    for older readers; this version decides by ``reads``.
``reads``
    ``instance``, ``source`` (a real path, ``""`` for a generated instance),
    ``base``, ``platform_source``, ``platform_key``, ``seen`` and ``name``:
    how each instance was read. ``base`` is the content key of the file as
    read, before any ``--platform`` or ``--communication`` override;
    ``platform_source`` and ``platform_key`` name the ``--platform`` file and
    the content it held (``""`` without one). One row per distinct read, with
    the stamp and instance name of its latest occurrence. An instance whose
    reads are all of content no file holds any more is *superseded* (see
    :func:`~exactsched.experiments.analysis.load_rows`). A sweep that opens a
    database written before this table existed fills it in from ``sources``
    (or, older still, as ``sources`` is filled in), each read's base being its
    stored key; read-only, it is read the same way.

    A row with instance ``""`` (base ``""``, no platform, name NULL) is a
    *gone* marker: a sweep found that file ``source`` no longer exists, either
    in a folder it scanned or because it read the file's last content at
    another path (a move or a copy). Being that file's newest read, it makes
    none of the file's earlier reads current, so a moved-then-edited file's
    old content is superseded. Markers are never instances: every reader
    (:func:`current_reads`, :func:`shown_reads`, :func:`superseded_reads`,
    :meth:`Store.sources`) leaves them out; a file that comes back is read
    again with a newer stamp and is current again. ``results`` never looks at
    the disk: a file deleted with no sweep since keeps its rows current.
``plans``
    ``instance``, ``method``, ``options``, ``version``: every run a sweep
    planned, written in one transaction before its first run. A planned run
    with neither a row nor a claim was never started (an interrupted study;
    see :meth:`Store.unfinished`); a row or a claim of another version is
    another run. Databases written before this table existed get it when a
    sweep opens them; read-only, they have no plan.

``meta`` holds ``schema`` (the schema version) and ``stamp``, the last stamp a
sweep took (:meth:`Store.reserve_stamp`).

The configuration of a run (method options, time limit, workers, seed,
certification, version) is all in its key, so rows of different configurations
live side by side and a study reads back only the keys it planned.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import time
import zlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from exactsched.experiments.instances import InstanceInfo

__all__ = [
    "Store",
    "Read",
    "StoreWriteError",
    "SCHEMA_VERSION",
    "RUN_COLUMNS",
    "utc_now",
    "damaged_database",
    "GONE",
]

#: The instance of a *gone* marker in ``reads`` (see the module's notes).
GONE = ""

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
    schedule BLOB, stats TEXT, finished TEXT, kind TEXT,
    PRIMARY KEY (instance, method, options, version)
);
CREATE TABLE IF NOT EXISTS claims (
    instance TEXT NOT NULL, method TEXT NOT NULL, options TEXT NOT NULL,
    version TEXT NOT NULL, owner TEXT NOT NULL, since REAL NOT NULL,
    PRIMARY KEY (instance, method, options, version)
);
CREATE TABLE IF NOT EXISTS plans (
    instance TEXT NOT NULL, method TEXT NOT NULL, options TEXT NOT NULL,
    version TEXT NOT NULL, PRIMARY KEY (instance, method, options, version)
);
"""

# Not in _SCHEMA: _upgrade fills it in from an older database's instances, once,
# in the transaction that creates it.
_SOURCES = """
CREATE TABLE sources (
    instance TEXT NOT NULL, source TEXT NOT NULL, seen INTEGER NOT NULL,
    PRIMARY KEY (instance, source)
)
"""

# Not in _SCHEMA either: filled in from ``sources`` (or the legacy rule) when created.
_READS = """
CREATE TABLE IF NOT EXISTS reads (
    instance TEXT NOT NULL, source TEXT NOT NULL, base TEXT NOT NULL,
    platform_source TEXT NOT NULL, platform_key TEXT NOT NULL, seen INTEGER NOT NULL,
    name TEXT,
    PRIMARY KEY (instance, source, base, platform_source, platform_key)
)
"""

_READ_COLUMNS = (
    "instance", "source", "base", "platform_source", "platform_key", "seen", "name",
)  # fmt: skip

_STUDY_TABLES = frozenset({"meta", "instances", "runs", "claims", "plans", "sources", "reads"})

_HEADER = b"SQLite format 3\x00"

#: Columns of ``runs`` in table order (``schedule`` is decompressed on reading).
RUN_COLUMNS = (
    "instance", "method", "options", "version", "status", "makespan", "lower_bound",
    "certified", "certified_by", "speedup", "slr", "failed", "seconds", "error",
    "schedule", "stats", "finished", "kind",
)  # fmt: skip
_INSTANCE_COLUMNS = (
    "key", "name", "source", "tasks", "edges", "processors", "topology", "platform",
    "ccr", "mst", "document",
)  # fmt: skip


class Read(NamedTuple):
    """One way an instance was read by a sweep (a row of the ``reads`` table).

    Attributes
    ----------
    instance : str
        The stored key (after any override).
    source : str
        The file's real path; ``""`` for a generated instance (never superseded).
    base : str
        The content key of the file itself, before any override.
    platform_source, platform_key : str
        The ``--platform`` file and the key of its content, or ``""``.
    seen : int
        The stamp of the latest sweep that read it so (larger is later).
    name : str or None
        The instance's name as that sweep read it.
    """

    instance: str
    source: str
    base: str
    platform_source: str
    platform_key: str
    seen: int
    name: str | None


class Store:
    """A study database (SQLite).

    Parameters
    ----------
    path : str or path-like
        The database file, created if missing; ``":memory:"`` for a throw-away one.
    readonly : bool
        Open an existing study for reading only (SQLite ``mode=ro``): nothing is
        created or written, not even WAL side files when no writer has them
        open, so the file stays byte-for-byte unchanged. A file that is not a
        study database (empty, text, another SQLite database) is refused.

    Raises
    ------
    InstanceError
        If the file is not a study database (one line saying why).

    Examples
    --------
    >>> store = Store(":memory:")
    >>> store.finished_keys("0.1.0")
    set()
    >>> store.close()
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        from exactsched.errors import InstanceError

        self.path = str(path)
        self.readonly = readonly
        self.owner = _owner(os.getpid())
        if readonly:
            self._db = _open_readonly(self.path)
            return
        from exactsched.instance import refuse_if_not_a_file

        if self.path != ":memory:":
            refuse_if_not_a_file(self.path, "not a study database")
        try:
            # isolation_level=None: we open each transaction ourselves.
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            tables = {
                r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if tables and "meta" not in tables:  # someone else's database: leave it alone
                self._db.close()
                raise InstanceError(
                    f"{self.path}: not a study database (an SQLite file with other tables)"
                )
            _set_wal(self._db)
            # NORMAL in WAL mode survives the death of the process (not of the machine)
            # without an fsync per run.
            self._db.execute("PRAGMA synchronous=NORMAL")
            _upgrade(self._db)
            found = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(AttributeError, sqlite3.Error):
                self._db.close()
            if _write_failure(exc):
                raise StoreWriteError(self.path, exc) from None
            raise InstanceError(f"{self.path}: not a study database ({exc})") from None
        if found[0] != SCHEMA_VERSION:  # _upgrade wrote it if it was missing
            self._db.close()
            raise InstanceError(
                f"{self.path}: study database schema {found[0]}, expected {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        """Close the connection (releasing the runs this process still claims)."""
        if not self.readonly:
            try:
                with self._transaction():
                    self._db.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))
            except (sqlite3.Error, StoreWriteError):
                pass  # a claim left behind is retaken once its process is gone
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing ------------------------------------------------------------------

    def reserve_stamp(self) -> int:
        """Take the next stamp of a sweep's reads (atomic across processes).

        A sweep takes one for each file once it has read it, then checks that
        the file still holds the bytes it read (reading it again if not; see
        ``_load_all`` in :mod:`~exactsched.experiments.sweep`), so a sweep that
        reads a file later (and may see a later edit of it) gets a larger
        stamp, whichever of the two starts or writes first. Stamps only grow,
        also past the ``seen`` of rows an older build wrote.

        Examples
        --------
        >>> store = Store(":memory:")
        >>> store.reserve_stamp(), store.reserve_stamp()
        (1, 2)
        >>> store.close()
        """
        with self._transaction():
            return _next_stamp(self._db)

    def add_instances(
        self,
        infos: Iterable[InstanceInfo],
        *,
        stamp: int | None = None,
        gone: Iterable[str] = (),
        stamps: Sequence[int | None] | None = None,
    ) -> None:
        """Record instances read by one sweep, and how each was read (``reads``).

        Existing keys keep their first name and source in ``instances``. Each
        read gets its stamp in ``stamps`` (one per info, taken when its file
        was read: see :meth:`reserve_stamp`), else ``stamp`` (default: a new
        one now), also when its rows are stored already, so a file reverted
        to an older content makes that content current again. A stamp never
        lowers one already stored: a slow sweep that read a file before
        another sweep does not undo what the other read. Each path of
        ``gone`` gets a *gone* marker with ``stamp`` (see the module's notes
        on ``reads``).
        """
        infos = list(infos)
        rows = [tuple(getattr(i, c) for c in _INSTANCE_COLUMNS) for i in infos]
        with self._transaction():
            seen = _next_stamp(self._db) if stamp is None else stamp
            # A read made twice (a file given twice) keeps its latest stamp and name.
            reads: dict[tuple[str, ...], tuple[int, str | None]] = {}
            for i, at in zip(infos, stamps or [None] * len(infos), strict=True):
                read = (i.key, i.source or "", i.base or i.key, i.platform_source or "",
                        i.platform_key or "")  # fmt: skip
                at = seen if at is None else at
                if read not in reads or at >= reads[read][0]:
                    reads[read] = (at, i.name)
            markers = {(GONE, path, "", "", ""): (seen, None) for path in gone if path}
            marks = ", ".join("?" * len(_INSTANCE_COLUMNS))
            self._db.executemany(f"INSERT OR IGNORE INTO instances VALUES ({marks})", rows)
            self._db.executemany(
                "INSERT INTO reads VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (instance, source, base, platform_source, platform_key) DO UPDATE"
                " SET name = CASE WHEN excluded.seen >= seen THEN excluded.name ELSE name END,"
                " seen = MAX(seen, excluded.seen)",
                [(*read, at, name) for read, (at, name) in sorted({**reads, **markers}.items())],
            )
            # For older builds reading this database (they decide by sources).
            self._db.executemany(
                "INSERT INTO sources VALUES (?, ?, ?) ON CONFLICT (instance, source) DO UPDATE"
                " SET seen = MAX(seen, excluded.seen)",
                sorted({(read[0], read[1], at) for read, (at, _) in reads.items() if read[1]}),
            )

    def add_plan(self, keys: Iterable[tuple[str, str, str]], version: str) -> None:
        """Record the runs a sweep planned (one transaction, before any run).

        With the rows and claims, they tell an interrupted study from a
        finished one (:meth:`unfinished`).
        """
        with self._transaction():
            self._db.executemany(
                "INSERT OR IGNORE INTO plans VALUES (?, ?, ?, ?)",
                sorted({(*key, version) for key in keys}),
            )

    def add_run(
        self, instance: str, method: str, options: str, version: str, row: dict[str, Any]
    ) -> None:
        """Write one finished run in its own transaction (replacing an older one)."""
        schedule = row.get("schedule")
        blob = None if schedule is None else zlib.compress(schedule.encode(), 6)
        values = (
            instance, method, options, version, row["status"], _sql(row.get("makespan")),
            _sql(row.get("lower_bound")), _bool(row.get("certified")), row.get("certified_by"),
            _sql(row.get("speedup")), _sql(row.get("slr")), _bool(row.get("failed")),
            _sql(row.get("seconds")), row.get("error"), blob, row.get("stats"),
            utc_now(), row.get("kind"),
        )  # fmt: skip
        with self._transaction():
            self._db.execute(
                f"INSERT OR REPLACE INTO runs VALUES ({', '.join('?' * len(RUN_COLUMNS))})",
                values,
            )
            self._db.execute(
                "DELETE FROM claims WHERE instance = ? AND method = ? AND options = ?"
                " AND version = ?",
                (instance, method, options, version),
            )

    def claim(
        self,
        instance: str,
        method: str,
        options: str,
        version: str,
        *,
        stale_after: float | None = None,
        redo: tuple[str, ...] = (),
        newer_than: str | None = None,
        take: bool = True,
    ) -> bool:
        """Claim a run for this process; False if it is stored or another live sweep has it.

        One transaction (``BEGIN IMMEDIATE``): the check and the claim are atomic
        across processes. A run already stored counts as done unless its status
        is in ``redo``. Another process's claim is taken over when that process
        no longer exists (same host) or when it is older than ``stale_after``
        seconds, wherever it runs (a live but stopped sweep, ``kill -STOP`` or
        Ctrl-Z, must not hold the others forever). ``take=False`` only tells
        whether the run could be claimed.

        Examples
        --------
        >>> store = Store(":memory:")
        >>> store.claim("i", "heft", "{}", "1"), store.claim("i", "heft", "{}", "1")
        (True, True)
        >>> store.close()
        """
        key = (instance, method, options, version)
        now = time.time()
        with self._transaction():
            done = self._db.execute(
                "SELECT status, finished FROM runs WHERE instance = ? AND method = ?"
                " AND options = ? AND version = ?",
                key,
            ).fetchone()
            if done is not None and (
                done[0] not in redo or (newer_than is not None and done[1] >= newer_than)
            ):
                return False
            held = self._db.execute(
                "SELECT owner, since FROM claims WHERE instance = ? AND method = ?"
                " AND options = ? AND version = ?",
                key,
            ).fetchone()
            if (
                held is not None
                and held[0] != self.owner
                and _alive(held[0], held[1], now, stale_after)
            ):
                return False
            if not take:
                return True
            self._db.execute(
                "INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?)", (*key, self.owner, now)
            )
        return True

    def release(self, instance: str, method: str, options: str, version: str) -> None:
        """Drop this process's claim on a run (it will not be run here after all)."""
        with self._transaction():
            self._db.execute(
                "DELETE FROM claims WHERE instance = ? AND method = ? AND options = ?"
                " AND version = ? AND owner = ?",
                (instance, method, options, version, self.owner),
            )

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db, self.path)

    # ---- reading ------------------------------------------------------------------

    def finished_keys(
        self,
        version: str,
        *,
        except_status: tuple[str, ...] = (),
        newer_than: str | None = None,
    ) -> set[tuple[str, str, str]]:
        """``(instance, method, options)`` of every run recorded for ``version``.

        Runs whose status is in ``except_status`` are left out (to run them again),
        unless they finished at or after ``newer_than`` (an ISO UTC time).
        """
        marks = ", ".join("?" * len(except_status))
        cond = f"status NOT IN ({marks})" if except_status else "1"
        if newer_than is not None:
            cond = f"({cond} OR finished >= ?)"
        cur = self._db.execute(
            f"SELECT instance, method, options FROM runs WHERE version = ? AND {cond}",
            (version, *except_status, *([newer_than] if newer_than is not None else [])),
        )
        return {tuple(r) for r in cur}  # type: ignore[misc]

    def instances(self) -> list[dict[str, Any]]:
        """Every instance as a dict (``document`` is the JSON text)."""
        cur = self._db.execute(
            f"SELECT {', '.join(_INSTANCE_COLUMNS)} FROM instances ORDER BY name, key"
        )
        return [dict(zip(_INSTANCE_COLUMNS, r, strict=True)) for r in cur]

    def sources(self) -> list[tuple[str, str, int]]:
        """Every ``(instance, source, seen)``: the files each instance was read from.

        ``seen`` orders the reads (larger is later): the latest read of that
        file as that instance, under any override. Derived from :meth:`reads`;
        kept for compatibility.

        Examples
        --------
        >>> from exactsched import Problem
        >>> from exactsched.experiments.instances import describe
        >>> store = Store(":memory:")
        >>> store.add_instances([describe(Problem.from_lists([1], [], n_processors=1), "/a.json")])
        >>> [(source, seen) for _, source, seen in store.sources()]
        [('/a.json', 1)]
        >>> store.close()
        """
        latest: dict[tuple[str, str], int] = {}
        for read in self.reads():
            if read.source and read.instance != GONE:
                pair = (read.instance, read.source)
                latest[pair] = max(latest.get(pair, 0), read.seen)
        return sorted(
            ((key, source, seen) for (key, source), seen in latest.items()),
            key=lambda r: (r[2], r[0], r[1]),
        )

    def reads(self) -> list[Read]:
        """Every :class:`Read`, in stamp order: how each instance was read.

        A read-only database written before the ``reads`` table existed gives
        what a sweep would fill it in with (see the module's notes on ``reads``).

        Examples
        --------
        >>> from exactsched import Problem
        >>> from exactsched.experiments.instances import describe
        >>> store = Store(":memory:")
        >>> store.add_instances([describe(Problem.from_lists([1], [], n_processors=1))])
        >>> [(r.source, r.seen, r.base == r.instance) for r in store.reads()]
        [('', 1, True)]
        >>> store.close()
        """
        if "reads" not in _tables(self._db):
            return [Read(*r) for r in _legacy_reads(self._db)]
        cur = self._db.execute(
            f"SELECT {', '.join(_READ_COLUMNS)} FROM reads"
            " ORDER BY seen, instance, source, base, platform_source, platform_key"
        )
        return [Read(*r) for r in cur]

    def unfinished(
        self, keys: Iterable[tuple[str, str, str]] | None = None, version: str | None = None
    ) -> tuple[dict[str, int], int]:
        """What an interrupted (or still running) study has not finished.

        Parameters
        ----------
        keys : iterable of (instance, method, options), optional
            Only these runs (with ``version``); default: the whole study.
        version : str, optional
            The version part of ``keys``.

        Returns
        -------
        claimed : dict of str to int
            Runs claimed and not finished, per owner (``host:pid``): in flight,
            or left by a sweep that was stopped. Claims on superseded contents
            (:func:`stale_instances`) count only while their process runs on this
            host: no sweep plans them again.
        not_started : int
            Planned runs (``plans``) of current instances with neither a row
            nor a claim of the version the plan recorded: a sweep stopped
            before it reached them. A row or a claim of another version (the
            same run made by other code) does not count: after a code change,
            the new study is incomplete until its own runs are stored. A
            database without ``plans`` has none.

        Examples
        --------
        >>> store = Store(":memory:")
        >>> store.add_plan([("i", "heft", "{}")], "1")
        >>> store.claim("j", "peft", "{}", "1")
        True
        >>> claimed, not_started = store.unfinished()
        >>> sum(claimed.values()), not_started
        (1, 1)
        >>> store.close()
        """
        tables = _tables(self._db)
        wanted = None if keys is None else {(*k, version) for k in keys}
        claims = (
            self._db.execute(
                "SELECT instance, method, options, version, owner, since FROM claims"
            ).fetchall()
            if "claims" in tables
            else []
        )
        claimed: dict[str, int] = defaultdict(int)
        held = set()
        # A content since superseded (its file edited) is never planned again: a claim
        # left on it by a stopped sweep is no unfinished run of this study. One whose
        # process still runs here is (a sweep that read the old file is writing).
        stale = stale_instances(self.reads())
        now = time.time()
        # Full keys, version included: a run of other code is not this plan's run.
        for *key, owner, since in claims:
            if wanted is not None and tuple(key) not in wanted:
                continue
            if key[0] in stale and not _running_here(owner, since, now):
                continue
            claimed[owner] += 1
            held.add(tuple(key))
        if "plans" not in tables:
            return dict(claimed), 0
        done = {
            tuple(r)
            for r in self._db.execute("SELECT instance, method, options, version FROM runs")
        }
        planned = {
            tuple(r)
            for r in self._db.execute("SELECT instance, method, options, version FROM plans")
            if wanted is None or tuple(r) in wanted
        }
        not_started = {
            key for key in planned if key[0] not in stale and key not in done and key not in held
        }
        return dict(claimed), len(not_started)

    def runs(self, *, schedules: bool = False) -> Iterator[dict[str, Any]]:
        """Every run as a dict, in key order; ``schedule`` decompressed if asked."""
        have = _columns(self._db, "runs")  # a read-only older database has no kind
        cols = [c for c in RUN_COLUMNS if (schedules or c != "schedule") and c in have]
        cur = self._db.execute(
            f"SELECT {', '.join(cols)} FROM runs ORDER BY instance, method, options, version"
        )
        for r in cur:
            row = dict(zip(cols, r, strict=True))
            row.setdefault("kind", None)
            if schedules and row["schedule"] is not None:
                row["schedule"] = zlib.decompress(row["schedule"]).decode()
            for key in ("certified", "failed"):
                if row[key] is not None:
                    row[key] = bool(row[key])
            yield row

    def schedule(
        self, instance: str, method: str, communication: str | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The instance document and the latest schedule of ``method`` on it.

        ``instance`` may be a key, a key prefix or an instance name; with
        ``communication``, only the instances under that model (one name run
        under several models by ``compare --communication`` is several instances).

        Raises
        ------
        InstanceError
            If no such instance or no schedule of that method on it is stored.
        """
        with damaged_database(self.path):
            return self._schedule(instance, method, communication)

    def _schedule(
        self, instance: str, method: str, communication: str | None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        from exactsched.errors import InstanceError
        from exactsched.experiments.analysis import communication_of

        # A name is the one results shows: that of the instance's newest current read,
        # with the start of its key when contents of one name differ ("dup [106ebfd6]").
        shown = {key: read.name for key, read in shown_reads(self.reads()).items() if read.name}
        prefix = instance.lower()
        found = []
        for key, name, document in self._db.execute(
            "SELECT key, name, document FROM instances ORDER BY key"
        ):
            label = shown.get(key, name)
            if (
                key.lower().startswith(prefix)
                or label == instance
                or f"{label} [{communication_of(document)[1][:8]}]" == instance
            ):
                found.append((key, document))
        if communication is not None:
            found = [f for f in found if communication_of(f[1])[0] == communication]
        if len(found) > 1:
            # One name, an old content and the current one (a file edited, or keyed
            # otherwise by a newer version): the current one is the one results shows.
            stale = superseded_reads(self.reads(), list(self.runs()))
            current = [f for f in found if f[0] not in stale]
            if len(current) == 1:
                found = current
        if len(found) != 1:
            what = "no instance" if not found else f"{len(found)} instances"
            under = "" if communication is None else f" under {communication}"
            hint = ""
            if len(found) > 1 and communication is None:
                models = sorted({communication_of(f[1])[0] for f in found})
                if len(models) > 1:
                    hint = f" (models {', '.join(models)}: give --communication or the key)"
            if len(found) > 1:
                hint += f"; keys: {self._keys_text(sorted(f[0] for f in found))}"
            raise InstanceError(
                f"instance {instance!r}: {what} with this key or name{under}{hint}"
            )
        key, document = found[0]
        blob = _one_configuration(
            key,
            method,
            self._db.execute(
                "SELECT method, options, version, schedule FROM runs WHERE instance = ?"
                " AND schedule IS NOT NULL ORDER BY finished DESC",
                (key,),
            ).fetchall(),
        )
        return json.loads(document), json.loads(zlib.decompress(blob))

    def _keys_text(self, keys: list[str]) -> str:
        """The first 8 characters of each key, the superseded ones marked.

        What ``gantt --db`` lists when a name fits several instances: enough
        of a key to name one (current ones first).
        """
        stale = superseded_reads(self.reads(), self.runs())
        ordered = sorted(keys, key=lambda k: (k in stale, k))
        return ", ".join(k[:8] + (" (superseded)" if k in stale else "") for k in ordered)


def _one_configuration(key: str, wanted: str, rows: list[tuple[Any, ...]]) -> bytes:
    """The schedule of the one stored configuration that ``wanted`` names.

    ``wanted`` is a method (``cpsat``), a label with its own options
    (``heft[ranking=median]``), or either followed by the settings that tell
    configurations apart, as ``results`` prints them (``cpsat{time_limit=2}``).
    A name that fits several configurations is refused with their list, never
    answered with whichever ran last.
    """
    from exactsched.errors import InstanceError
    from exactsched.experiments.analysis import config, label

    name, _, settings = wanted.partition("{")
    parts = [p for p in settings.rstrip("}").replace(",", " ").split() if p]
    method = name.split("[", 1)[0]
    fits = []
    for run_method, options, version, blob in rows:
        own = label(run_method, options)
        if run_method != method or own != name:
            continue
        setting = config(options, version).split()
        if all(part in setting for part in parts):
            fits.append((own, config(options, version), blob))
    if not fits:
        raise InstanceError(f"method {wanted!r}: no schedule stored for instance {key}")
    configurations = sorted({(own, conf) for own, conf, _ in fits})
    if len(configurations) > 1:
        split = [set(conf.split()) for _, conf in configurations]
        differ = [
            ",".join(p for p in conf.split() if not all(p in other for other in split))
            for _, conf in configurations
        ]
        listed = ", ".join(f"{name}{{{d}}}" for d in differ)
        raise InstanceError(
            f"method {wanted!r}: {len(configurations)} configurations stored for instance"
            f" {key}: name one of {listed}"
        )
    return fits[0][2]


def utc_now() -> str:
    """The UTC time as ISO text with milliseconds (``finished`` of a row).

    Examples
    --------
    >>> len(utc_now()), utc_now()[-1]
    (24, 'Z')
    """
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def _started(pid: int) -> str:
    """When process ``pid`` started, in clock ticks since boot (Linux; "" elsewhere).

    With the pid it names one process: a pid reused by a later process differs.
    """
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _owner(pid: int) -> str:
    """``host:pid`` or, where the start time is known, ``host:pid@start``."""
    start = _started(pid)
    return f"{socket.gethostname()}:{pid}" + (f"@{start}" if start else "")


def _running_here(owner: str, since: float, now: float) -> bool:
    """Whether ``owner`` is a live process of this host (elsewhere nobody can tell)."""
    host = owner.rpartition(":")[0]
    return host == socket.gethostname() and _alive(owner, since, now, None)


def _alive(owner: str, since: float, now: float, stale_after: float | None) -> bool:
    """Whether the claim of ``owner`` (see :func:`_owner`) still holds.

    A claim older than ``stale_after`` has outlived its run's deadline (the pool
    kills a run past it), so its owner is stuck or stopped, wherever it runs.
    """
    if stale_after is not None and now - since >= stale_after:
        return False
    host, _, who = owner.rpartition(":")
    pid, _, start = who.partition("@")
    if host == socket.gethostname():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            # Another user's process: /proc still tells whether it is the claimant or a
            # later process that took its pid (else trust the time).
            return not start or _started(int(pid)) in ("", start)
        except ValueError:
            pass  # a malformed owner: trust the time
        else:
            return not start or _started(int(pid)) in ("", start)
    return True


def _open_readonly(path: str) -> sqlite3.Connection:
    """A read-only connection to the study database ``path`` (see :class:`Store`)."""
    from exactsched.errors import InstanceError
    from exactsched.instance import refuse_if_not_a_file

    refuse_if_not_a_file(path, "not a study database")
    try:
        with open(path, "rb") as fh:
            header = fh.read(len(_HEADER))
    except IsADirectoryError:
        raise InstanceError(f"{path}: a folder, not a study database") from None
    except FileNotFoundError:
        raise InstanceError(f"{path}: no such study database") from None
    except OSError as exc:
        raise InstanceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not header:
        raise InstanceError(f"{path}: not a study database (empty file)")
    if header != _HEADER:
        raise InstanceError(f"{path}: not a study database (not an SQLite file)")
    from urllib.parse import quote

    uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
    # No writer has the database open (no WAL file): read it as immutable, so
    # SQLite creates no side files (-shm, -wal) next to it.
    immutable = not os.path.exists(path + "-wal")
    db = None
    try:
        try:
            db = sqlite3.connect(uri + ("&immutable=1" if immutable else ""), uri=True,
                                 isolation_level=None, timeout=30)  # fmt: skip
            tables = _tables(db)
        except sqlite3.OperationalError:
            if immutable:
                raise
            # A WAL file without its -shm in a folder we may not write: read the
            # file as it is (what the last checkpoint holds).
            if db is not None:
                db.close()
            db = sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None)
            tables = _tables(db)
            _warn_unread_wal(path)
        if not {"meta", "instances", "runs"} <= tables:
            db.close()
            raise InstanceError(
                f"{path}: not a study database (an SQLite file without its tables)"
            )
        found = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.DatabaseError as exc:
        if db is not None:
            db.close()
        raise InstanceError(f"{path}: not a study database ({exc})") from None
    if found is None or found[0] != SCHEMA_VERSION:
        db.close()
        what = "no schema version" if found is None else f"schema {found[0]}"
        raise InstanceError(f"{path}: study database {what}, expected {SCHEMA_VERSION}")
    return db


def _warn_unread_wal(path: str) -> None:
    """Say that the writes in ``path``-wal are not read (when it holds any).

    Reading them needs the ``-shm`` index, which a reader without write access
    to the folder cannot create: what the read shows is then the database as
    of its last checkpoint, possibly without the latest sweep's rows.
    """
    import warnings

    from exactsched.errors import InstanceWarning

    try:
        pending = os.path.getsize(path + "-wal") > 0
    except OSError:
        return
    if pending:
        warnings.warn(
            f"{path}: its -wal file holds writes that cannot be read without write access"
            " to its folder (no -shm file): rows committed after the last checkpoint may be"
            " missing (open it once with write access, e.g. by a sweep, to merge them)",
            InstanceWarning,
            stacklevel=3,
        )


def _set_wal(db: sqlite3.Connection, attempts: int = 300) -> None:
    """Switch to write-ahead logging, waiting while another process creates the file.

    The switch can fail at once with "database is locked" (SQLite's busy
    handler does not cover it) when two sweeps create one database together;
    it is retried for up to 30 s, as long as any other lock is waited for.
    """
    for attempt in range(attempts):
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.1)


def _upgrade(db: sqlite3.Connection) -> None:
    """Create the tables of a new study, or add what an older one lacks.

    The ``kind`` column of ``runs``, the ``claims``, ``sources`` and ``reads``
    tables and the schema version in ``meta``, all in one ``BEGIN IMMEDIATE`` transaction
    that looks again once it holds the lock: two processes opening one older
    database at once would otherwise both add the column, and the second fail
    with "duplicate column name". A current database takes no write lock here.
    """

    def current() -> bool:
        return (
            _tables(db) >= _STUDY_TABLES
            and "kind" in _columns(db, "runs")
            and db.execute("SELECT 1 FROM meta WHERE key='schema'").fetchone() is not None
        )

    if current():
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        if not current():  # another process may have done it meanwhile
            new_sources = "sources" not in _tables(db)
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            if "kind" not in _columns(db, "runs"):
                db.execute("ALTER TABLE runs ADD COLUMN kind TEXT")
            new_reads = "reads" not in _tables(db)
            if new_reads:
                # Before sources is filled in: from it if it exists, else the legacy rule.
                reads = _legacy_reads(db)
            if new_sources:
                legacy = _legacy_sources(db)
                db.execute(_SOURCES)
                db.executemany("INSERT INTO sources VALUES (?, ?, ?)", legacy)
            if new_reads:
                db.execute(_READS)
                db.executemany("INSERT INTO reads VALUES (?, ?, ?, ?, ?, ?, ?)", reads)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):  # the transaction may be gone already
            db.execute("ROLLBACK")
        raise


def _legacy_sources(db: sqlite3.Connection) -> list[tuple[str, str, int]]:
    """The ``sources`` of a database written before that table existed.

    Such a database kept each instance's first source only and no read times:
    its instances with a source and a run are ranked by their latest finished
    run (then key), the rule those databases were read by, so an upgrade
    changes nothing a report of them showed.
    """
    last = dict(
        db.execute(
            "SELECT instance, MAX(COALESCE(finished, '')) FROM runs GROUP BY instance"
        ).fetchall()
    )
    found = db.execute(
        "SELECT key, source FROM instances WHERE source IS NOT NULL AND source != ''"
    ).fetchall()
    ranked = sorted((last[key], key, source) for key, source in found if key in last)
    return [(key, source, seen) for seen, (_, key, source) in enumerate(ranked, 1)]


def _legacy_reads(db: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """The ``reads`` of a database written before that table existed.

    From its ``sources`` if it has them, else from :func:`_legacy_sources`:
    each read's base is its stored key (how the file was read is not known),
    with no platform file and the instance's stored name.
    """
    found = (
        db.execute("SELECT instance, source, seen FROM sources").fetchall()
        if "sources" in _tables(db)
        else _legacy_sources(db)
    )
    names = dict(db.execute("SELECT key, name FROM instances").fetchall())
    return sorted((key, source, key, "", "", seen, names.get(key)) for key, source, seen in found)


def _next_stamp(db: sqlite3.Connection) -> int:
    """Take the next stamp in ``meta`` (inside the caller's ``BEGIN IMMEDIATE``).

    Larger than every stamp taken before and every ``seen`` stored, including
    those an older build wrote without the counter.
    """
    tables = _tables(db)
    found = [
        db.execute("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'stamp'").fetchone(),
        *(db.execute(f"SELECT MAX(seen) FROM {t}").fetchone()
          for t in ("reads", "sources") if t in tables),
    ]  # fmt: skip
    stamp = 1 + max((r[0] for r in found if r is not None and r[0] is not None), default=0)
    db.execute("INSERT OR REPLACE INTO meta VALUES ('stamp', ?)", (str(stamp),))
    return stamp


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}


class StoreWriteError(OSError):
    """The study database could not be written (a full disk, an I/O error, a lock).

    An :class:`OSError` naming the file, so the CLI reports it in one line with
    exit status 2, like every other file it cannot write.

    Examples
    --------
    >>> error = StoreWriteError("s.sqlite", sqlite3.OperationalError("disk I/O error"))
    >>> error.filename, error.strerror
    ('s.sqlite', 'cannot write the study database (disk I/O error)')
    """

    def __init__(self, path: str, exc: sqlite3.Error) -> None:
        super().__init__(None, f"cannot write the study database ({exc})", path)


@contextlib.contextmanager
def damaged_database(path: str | os.PathLike[str]) -> Iterator[None]:
    """Errors met while reading a study's contents, as one :class:`InstanceError`.

    ``PRAGMA integrity_check`` passes a file whose payload is damaged (bytes
    overwritten inside a page): SQLite then fails on the text it cannot
    decode, zlib on a schedule, JSON on a document. Each is the user's file,
    not a bug, so it becomes one line naming the database and what is damaged
    (exit status 2 in the CLI). A write failure stays a :class:`StoreWriteError`.

    Examples
    --------
    >>> with damaged_database("s.sqlite"):  # doctest: +ELLIPSIS
    ...     zlib.decompress(b"bogus")
    Traceback (most recent call last):
    ...
    exactsched.errors.InstanceError: s.sqlite: damaged database (a stored schedule cannot ...
    """
    from exactsched.errors import InstanceError

    try:
        yield
    except sqlite3.DatabaseError as exc:
        if _write_failure(exc):
            raise StoreWriteError(str(path), exc) from None
        what = "stored text is not valid UTF-8" if "decode" in str(exc) else "SQLite"
        raise InstanceError(f"{path}: damaged database ({what}: {_short(exc)})") from None
    except zlib.error as exc:
        raise InstanceError(
            f"{path}: damaged database (a stored schedule cannot be decompressed: {_short(exc)})"
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InstanceError(
            f"{path}: damaged database (a stored document cannot be read: {_short(exc)})"
        ) from None


def _short(exc: BaseException, limit: int = 100) -> str:
    """The message of ``exc`` cut to ``limit`` characters (SQLite quotes the bad text)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _write_failure(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says the disk or the file refused a write (not a bad file)."""
    text = str(exc).lower()
    reasons = ("disk", "full", "readonly", "read-only", "locked", "unable to open")
    return isinstance(exc, sqlite3.OperationalError) and any(why in text for why in reasons)


def _bool(value: Any) -> int | None:
    return None if value is None else int(bool(value))


def _sql(value: Any) -> Any:
    """A number as SQLite stores it: an integer beyond 64 bits as its float.

    Such an integer comes from a float (a bound rounded up on costs of 1e19), so
    the float holds it exactly; SQLite's INTEGER would overflow (exit 3 before,
    found by an outside audit).

    Examples
    --------
    >>> _sql(19999999999999959040), _sql(7), _sql(None)
    (1.999999999999996e+19, 7, None)
    """
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        return float(value)
    return value


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error).

    SQLite's own errors on the way (a full disk, an I/O error, a lock held past
    the timeout) become :class:`StoreWriteError`: the user's disk, not a bug.
    """

    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self._db = db
        self._path = path

    def __enter__(self) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreWriteError(self._path, exc) from None

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            try:
                self._db.execute("COMMIT")
            except sqlite3.OperationalError as failed:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise StoreWriteError(self._path, failed) from None
            return
        with contextlib.suppress(sqlite3.Error):  # the transaction may be gone already
            self._db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.OperationalError):
            raise StoreWriteError(self._path, exc) from None


def current_reads(reads: Sequence[Read]) -> list[Read]:
    """The reads of what their files still hold (as of each file's latest read).

    A file's current content is the base of its newest read (every base read
    at that stamp, for reads a migration could not tell apart); a platform
    file's likewise. A read is current when its file's base is current and,
    with a platform file, that file's content is current too; a read of no
    file (a generated instance) always is. Overrides are no edit: reads of one
    base under several models or platforms are all current.

    Examples
    --------
    >>> r = lambda key, base, seen, p="", pk="": Read(key, "/x", base, p, pk, seen, "x")
    >>> [c.instance for c in current_reads([r("k1", "A", 1), r("k2", "B", 2)])]
    ['k2']
    >>> reads = [r("k1", "A", 1, "/p", "P1"), r("k2", "A", 2, "/p", "P2"), r("k3", "A", 3)]
    >>> [c.instance for c in current_reads(reads)]
    ['k2', 'k3']

    A gone marker (instance ``""``) supersedes its file's reads and is never returned:

    >>> [c.instance for c in current_reads([r("k1", "A", 1), r("", "", 2)])]
    []
    """
    newest: dict[tuple[str, str], int] = {}
    # A gone marker (instance "") is its file's newest read, holding no instance.
    for r in reads:
        for slot in (("file", r.source), ("platform", r.platform_source)):
            if slot[1]:
                newest[slot] = max(newest.get(slot, r.seen), r.seen)
    held: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in reads:
        for slot, content in ((("file", r.source), r.base),
                              (("platform", r.platform_source), r.platform_key)):  # fmt: skip
            if slot[1] and r.seen == newest[slot]:
                held[slot].add(content)
    return [
        r for r in reads
        if r.instance != GONE
        and (not r.source or r.base in held[("file", r.source)])
        and (not r.platform_source or r.platform_key in held[("platform", r.platform_source)])
    ]  # fmt: skip


def shown_reads(reads: Sequence[Read]) -> dict[str, Read]:
    """The read each instance is shown by: its newest current read, else its newest.

    Its name labels the instance's rows and its file is their ``source``, so a
    content two files swapped is named after the file that holds it now.
    """
    current = set(current_reads(reads))
    shown: dict[str, Read] = {}
    for r in sorted(reads, key=lambda r: (r in current, r.seen, r.source, r.name or "")):
        if r.instance != GONE:
            shown[r.instance] = r
    return shown


def superseded_reads(reads: Sequence[Read], runs: Iterable[dict[str, Any]]) -> set[str]:
    """Instance keys with rows that are no file's content any more.

    :func:`exactsched.experiments.analysis.load_rows` leaves their rows out.

    Parameters
    ----------
    reads : sequence of Read
        Every read of the study (:meth:`Store.reads`).
    runs : iterable of dict
        The runs (:meth:`Store.runs`); a key without any hides nothing, so it
        is never reported.

    Returns
    -------
    set of str
        The keys with rows and at least one read, none of them current
        (:func:`current_reads`).
    """
    with_rows = {run["instance"] for run in runs}
    return stale_instances(reads) & with_rows


def stale_instances(reads: Sequence[Read]) -> set[str]:
    """Instance keys read at least once and not current (gone markers left out)."""
    read = {r.instance for r in reads if r.instance != GONE}
    return read - {r.instance for r in current_reads(reads)}
