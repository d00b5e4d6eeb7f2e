"""A sweep: every method on every instance, stored as each run finishes, resumable.

:func:`run_sweep` plans the runs (instances x methods, exact ones with their time
limit, workers, seed and certification), drops those the database already holds
for this exactsched version (unless ``fresh``), and runs the rest on the local
pool (:mod:`~exactsched.experiments.pool`) or on a Dask cluster
(:mod:`~exactsched.experiments.cluster`). Rows are written by this process, one
transaction each, in the order runs finish.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exactsched.errors import MethodError
from exactsched.experiments.instances import describe, discover, load_problem
from exactsched.experiments.runner import RUN_STATUSES, Task, expected_code, run_options
from exactsched.experiments.store import Store, utc_now
from exactsched.problem import Problem

__all__ = [
    "SweepOutcome",
    "run_sweep",
    "parse_methods",
    "parse_communication",
    "MethodSpec",
    "default_grace",
]

#: The communication models of the instance format (``platform.network.communication``).
COMMUNICATION_MODELS = ("delay", "single-port", "contention")


@dataclass(frozen=True)
class MethodSpec:
    """A method with its options, as given on the command line (``heft:ranking=median``)."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        """``name`` or ``name[key=value,...]``."""
        if not self.options:
            return self.name
        return f"{self.name}[{','.join(f'{k}={v}' for k, v in self.options)}]"


def parse_methods(text: str | Sequence[str] | None, kind: str = "heuristic") -> list[MethodSpec]:
    """Method specs from ``all``, ``heft,cpop`` or ``heft:ranking=median`` (lists allowed).

    ``all`` (or None) means every registered method of ``kind``; ``none`` none.

    Raises
    ------
    MethodError
        For an unknown method or a malformed option.

    Examples
    --------
    >>> [m.label for m in parse_methods("heft,heft:ranking=median")]
    ['heft', 'heft[ranking=median]']
    >>> len(parse_methods("all")) > 10
    True
    >>> parse_methods("heft:ranking=bogus")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: method 'heft:ranking=bogus': option ranking: expected ...
    """
    from exactsched.registry import available_methods, get_method, parse_options

    items: list[str] = []
    for part in [text] if isinstance(text, str) or text is None else text:
        if part is None:
            items.append("all")
        else:
            items.extend(s.strip() for s in part.split(",") if s.strip())
    specs: list[MethodSpec] = []
    for item in items:
        if item.lower() == "none":
            continue
        if item.lower() == "all":
            specs.extend(MethodSpec(m.name) for m in available_methods() if m.kind == kind)
            continue
        name, *raw = item.split(":")
        info = get_method(name.strip())
        try:
            checked = parse_options(info.name, raw)
        except MethodError as exc:
            raise MethodError(f"method {item!r}: {exc}") from None
        options = tuple(sorted(checked.items()))
        if options:
            _probe(info, dict(options), item)
        specs.append(MethodSpec(info.name, options))
    seen: set[MethodSpec] = set()
    return [s for s in specs if not (s in seen or seen.add(s))]  # type: ignore[func-returns-value]


def _probe(info: Any, options: dict[str, Any], item: str) -> None:
    """Refuse option values the method itself rejects, before a sweep runs anything.

    :func:`exactsched.registry.check_options` checks types; enumerations in
    strings (``heft:ranking=bogus``) are checked by each method before any
    work. So the variant runs once on a one-task instance: a ``MethodError``
    there that the method without options does not raise is the options'.
    """
    from exactsched.problem import Problem
    from exactsched.registry import solve

    tiny = Problem.from_lists([[1.0]], [])
    common = {"time_limit": 10.0, "workers": 1, "certify": False} if info.kind == "exact" else {}
    try:
        solve(tiny, info.name, **common, **options)
    except MethodError as exc:
        try:
            solve(tiny, info.name, **common)
        except MethodError:
            return  # the method refuses the probe itself: the sweep will say why
        raise MethodError(f"method {item!r}: {' '.join(str(exc).split())}") from None
    except Exception:  # noqa: BLE001  (a method bug: recorded as an error row later)
        return


def parse_communication(text: str | Sequence[str] | None) -> list[str] | None:
    """The communication models of ``compare --communication``: ``delay,contention``.

    Returns the models in the order given, without repeats (None for None: each
    instance keeps the model its file names).

    Raises
    ------
    MethodError
        For an empty list or a name that is not a model.

    Examples
    --------
    >>> parse_communication("delay, contention,delay")
    ['delay', 'contention']
    >>> parse_communication("bogus")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: --communication: unknown model 'bogus'; expected delay, ...
    """
    if text is None:
        return None
    parts = [text] if isinstance(text, str) else list(text)
    models = [m.strip() for part in parts for m in str(part).split(",") if m.strip()]
    if not models:
        raise MethodError("--communication: empty; give delay, single-port or contention")
    for model in models:
        if model not in COMMUNICATION_MODELS:
            raise MethodError(
                f"--communication: unknown model {model!r}; expected delay, single-port "
                "or contention"
            )
    return list(dict.fromkeys(models))


def with_model(problem: Problem, model: str, source: str = "") -> Problem:
    """``problem`` under communication ``model``, keeping the duplex setting it names.

    The model given here overrides the one the instance's file names.

    Raises
    ------
    InstanceError
        One line naming the source when the network cannot carry ``model`` (a
        ``matrix`` network has no links for ``contention``).

    Examples
    --------
    >>> p = Problem.from_lists([1, 1], [(0, 1, 2)], n_processors=4,
    ...     network={"topology": "mesh", "dims": [2, 2], "duplex": False})
    >>> q = with_model(p, "contention")
    >>> q.communication, q.duplex, with_model(q, "delay").communication
    ('contention', False, 'delay')
    """
    from exactsched.errors import InstanceError

    duplex = problem.network.get("duplex")
    try:
        return problem.with_communication(
            model, duplex=None if duplex is None or model == "delay" else bool(duplex)
        )
    except InstanceError as exc:
        where = f"{source}: " if source else ""
        raise InstanceError(f"{where}--communication {model}: {exc}") from None


def default_grace(time_limit: float | None) -> float | None:
    """Seconds past the time limit before the pool kills a run (None: no limit).

    Examples
    --------
    >>> default_grace(60), default_grace(None)
    (20.0, None)
    """
    if time_limit is None:
        return None
    return max(10.0, 0.25 * time_limit) + 5.0


@dataclass
class SweepOutcome:
    """What a sweep did.

    Attributes
    ----------
    store : Store
        The database (open).
    planned, skipped, ran, errors : int
        Runs in the plan, already in the database, run now, and of those the
        ones with status ``error`` or ``invalid``.
    seconds : float
        Wall-clock time of the sweep.
    instances : list of str
        Keys of the instances of this sweep, in input order.
    keys : list of tuple
        ``(instance, method, options)`` of every planned run: with ``version``,
        the results keys of this study's configuration (what it reports).
    version : str
        The version part of the rows' keys: the exactsched version and the
        fingerprint of its code (:func:`~exactsched.experiments.fingerprint.results_version`).
    """

    store: Store
    planned: int
    skipped: int
    ran: int
    errors: int
    seconds: float
    instances: list[str]
    keys: list[tuple[str, str, str]] = field(default_factory=list)
    version: str = ""


def run_sweep(
    instances: Iterable[str | os.PathLike[str] | Problem],
    methods: str | Sequence[str] | Sequence[MethodSpec] | None = "all",
    *,
    exact: str | Sequence[str] | Sequence[MethodSpec] | None = "cpsat",
    time_limit: float | None = 60.0,
    workers: int | None = None,
    seed: int = 0,
    certify: bool | None = None,
    db: str | os.PathLike[str] | Store = ":memory:",
    jobs: int | None = None,
    cores: int | None = None,
    dask: Any = None,
    fresh: bool = False,
    retry_errors: bool = False,
    platform: str | os.PathLike[str] | None = None,
    communication: str | Sequence[str] | None = None,
    deadline: float | None | str = "auto",
    progress: str = "auto",
) -> SweepOutcome:
    """Run a study: every method on every instance, each result stored as it finishes.

    Parameters
    ----------
    instances : iterable
        Instance files, directories (searched for instance files) or problems.
    methods : str or list
        Heuristics: ``"all"`` (default), ``"heft,cpop"``, ``"heft:ranking=median"``,
        a list of those or of :class:`MethodSpec`; ``"none"`` for none. An exact
        method named here runs as those of ``exact`` do.
    exact : str or list
        Exact methods, same syntax (default ``"cpsat"``; ``"none"`` for none).
    time_limit : float, optional
        Seconds per exact run (passed to every exact method; default 60).
    workers : int, optional
        Solver threads per exact run; default: the cores, at most 8.
    seed : int
        Seed of every run.
    certify : bool, optional
        Passed to :func:`exactsched.solve` (None: its default policy).
    db : path or Store
        The study database (default: in memory).
    jobs : int, optional
        Local pool processes (default: the cores).
    cores : int, optional
        Cores shared by the runs (default: those this process may use).
    dask : str or distributed.Client, optional
        Run on this Dask cluster (a scheduler address, ``"local"`` for a local
        cluster, or a client) instead of the local pool.
    fresh : bool
        Recompute runs the database already holds.
    retry_errors : bool
        Run again the stored runs whose status is ``error`` (crashes, time-outs).
    platform : path, optional
        Run every instance on this platform instead of its own.
    communication : str or list of str, optional
        Run every instance under each of these communication models
        (``"delay,contention"``; see :func:`parse_communication`). Each model
        overrides the one the instance's file names; without it every instance
        runs under its own model. An instance under another model has another
        content key, so its rows never mix with the others.
    deadline : float, None or "auto"
        Seconds after which the local pool kills a run; ``auto``: the time limit
        plus :func:`default_grace`.
    progress : {"auto", "bar", "lines", "none"}

    Returns
    -------
    SweepOutcome

    Raises
    ------
    InstanceError, MethodError
        For an instance that cannot be read, an unknown method or communication
        model, or a model an instance's network cannot carry (before any run).

    Examples
    --------
    >>> out = run_sweep(["examples/topcuoglu2002.json"], "heft,cpop", exact="none",
    ...                 progress="none", jobs=1)
    >>> out.planned, out.ran, out.errors
    (2, 2, 0)
    >>> out = run_sweep(["examples/topcuoglu2002.json"], "heft,cpop", exact="none",
    ...                 progress="none", db=out.store)
    >>> out.skipped, out.ran
    (2, 0)
    """
    from exactsched.experiments.fingerprint import results_version
    from exactsched.experiments.pool import LocalPool, default_cores
    from exactsched.experiments.progress import Progress
    from exactsched.registry import check_common, get_method

    started = time.monotonic()
    instances = list(instances)  # read twice: loaded, and its folders (_scanned_folders)
    # The arguments every run shares, refused before anything is stored (as the CLI does).
    check_common(time_limit, workers, seed)
    for name, value in (("jobs", jobs), ("cores", cores)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):  # fmt: skip
            raise MethodError(f"{name}: expected an integer >= 1, got {value!r}")
    from exactsched._sources import changed_since_import

    if changed_since_import():
        # The results key hashes the files; this process runs what it imported.
        raise MethodError(
            "exactsched's sources changed after this Python process imported them (an edit"
            " or a reinstall): start a new process to run the study, so that its results"
            " key names the code that runs"
        )

    if isinstance(dask, str) and dask != "local":
        from exactsched.experiments.cluster import check_address

        check_address(dask)  # before a database is created for a sweep that cannot run

    # An exact method named among the heuristics runs as the exact ones do: with the
    # time limit, workers, seed and certification.
    listed = _specs(methods, "heuristic")
    heuristics = [s for s in listed if get_method(s.name).kind != "exact"]
    exacts = _specs(exact, "exact")
    exacts += [s for s in listed if get_method(s.name).kind == "exact" and s not in exacts]
    cores = max(1, cores or default_cores())
    if workers is None:
        workers = max(1, min(8, cores))
    models = parse_communication(communication)
    # A study this sweep creates is removed again if its instances cannot be read.
    # So is one a full disk stops before its tables exist.
    created = not isinstance(db, Store) and str(db) != ":memory:" and not os.path.exists(db)
    store: Store | None = db if isinstance(db, Store) else None
    try:
        store = store or Store(db)
        # Each file's read is stamped once it is read (_load_all): stamp order is
        # read order, whichever sweep starts or writes first.
        on_file, problems = _read_stamped(store, instances, platform)
        if models is not None:
            problems = [
                (src, with_model(p, m, src), base, stamp)
                for src, p, base, stamp in problems
                for m in models
            ]
        # Real paths: a file reached through a symbolic link or ``..`` is one
        # source, and two files are never taken for one.
        infos = [
            describe(
                p,
                os.path.realpath(src) if src else "",
                base=base,
                platform_source=on_file[0] if on_file and src else "",
                platform_key=on_file[1] if on_file and src else "",
            )
            for src, p, base, _ in problems
        ]
        gone = _gone_sources(store, infos, _scanned_folders(instances))
        stamps = [read for *_, read in problems]
        # The stamp of what is no file's read: the last file's, but a gone marker's
        # is taken after the file was found gone, and the file looked for once more.
        taken = [read for read in stamps if read is not None]
        if gone or not taken:
            stamp = store.reserve_stamp()
            gone = [path for path in gone if not os.path.lexists(path)]
        else:
            stamp = max(taken)
        store.add_instances(infos, stamp=stamp, stamps=stamps, gone=gone)
    except BaseException:
        if store is not None and not isinstance(db, Store):
            store.close()
        if created:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    os.remove(f"{db}{suffix}")
        raise
    limit = (
        (None if time_limit is None else time_limit + (default_grace(time_limit) or 0))
        if deadline == "auto"
        else deadline
    )
    common = {"time_limit": time_limit, "workers": workers, "seed": seed, "certify": certify}
    plan = _plan(infos, [*exacts, *heuristics], common, limit)  # type: ignore[arg-type]
    # The code is part of the key: rows computed by other code are never reused.
    version = results_version()
    kinds = {key: task.kind for key, task in plan}
    expected = {key: expected_code(task.options) for key, task in plan}
    retry = ("error",) if retry_errors else ()
    redo = RUN_STATUSES if fresh else retry
    done = set() if fresh else store.finished_keys(version, except_status=retry)
    todo = [(key, task) for key, task in plan if key not in done]
    # Before any run: a stopped sweep leaves planned runs without rows, which
    # results reports as unfinished (Store.unfinished).
    store.add_plan([key for key, _ in plan], version)
    # Rows another sweep on the same database writes from now on count as done here.
    since = utc_now()
    stale = None if limit is None else limit + 60.0

    def claim(key: tuple[str, str, str], take: bool = True) -> bool:
        # Concurrent sweeps share the work: a run starts only where it was claimed.
        return store.claim(
            *key, version, stale_after=stale, redo=redo, newer_than=since, take=take
        )

    errors = 0
    ran: set[tuple[str, str, str]] = set()
    with Progress(len(todo), mode=progress) as bar:

        def on_result(key: tuple[str, str, str], row: dict[str, Any]) -> None:
            nonlocal errors
            ran_by = row.pop("ran_by", None)
            if ran_by is not None and ran_by != expected[key]:
                raise MethodError(_other_code(key[1], ran_by, expected[key]))
            store.add_run(*key, version, {**row, "kind": kinds[key]})
            ran.add(key)
            errors += row["status"] in ("error", "invalid")
            bar.update(key[1], row["status"])

        remaining = todo
        while remaining:
            if not any(claim(key, take=False) for key, _ in remaining):
                time.sleep(0.5)  # every run left is in another sweep's hands
            elif dask is not None:
                from exactsched.experiments.cluster import run_on_dask

                run_on_dask(remaining, on_result, dask, processes=jobs, claim=claim)
            else:
                # --jobs above the cores is the user's explicit choice: a slot per process.
                LocalPool(processes=jobs or cores, cores=max(cores, jobs or 0)).run(
                    remaining, on_result, claim=claim
                )
            # What is left is claimed by other sweeps: wait for their rows, and take
            # over the runs of a sweep that died.
            stored = store.finished_keys(version, newer_than=since, except_status=redo)
            for k, _ in remaining:
                if k in stored and k not in ran:
                    bar.update(k[1], "elsewhere")  # done by another sweep
            remaining = [(k, t) for k, t in remaining if k not in ran and k not in stored]
    return SweepOutcome(
        store=store,
        planned=len(plan),
        skipped=len(plan) - len(ran),
        ran=len(ran),
        errors=errors,
        seconds=time.monotonic() - started,
        instances=list(dict.fromkeys(i.key for i in infos)),
        keys=[key for key, _ in plan],
        version=version,
    )


def _other_code(method: str, ran_by: str, expected: str) -> str:
    """Why a row computed by other code than the sweep's key is not stored.

    >>> print(_other_code("die", "0.1+a/unregistered", "0.1+a/"))  # doctest: +NORMALIZE_WHITESPACE
    die: the method is not registered where it ran (a Dask worker must import the
    script that registers it); nothing was stored for it: run again once it is
    """
    if ran_by.endswith("/unregistered"):
        return (
            f"{method}: the method is not registered where it ran (a Dask worker must import"
            " the script that registers it); nothing was stored for it: run again once it is"
        )
    if ran_by.endswith("/sources-changed-since-import"):
        return (
            f"{method}: exactsched's sources changed after the process that ran it imported"
            " them (an edit or a reinstall during the sweep); nothing was stored for it:"
            " restart the workers and run again"
        )
    return (
        f"{method}: ran on other code ({ran_by}) than this sweep's ({expected}): a Dask"
        " worker started before an edit, or another study on the cluster that registered"
        " another method of that name; nothing was stored for it: restart the workers"
        " from this installation and run again"
    )


def _scanned_folders(instances: Sequence[Any]) -> list[str]:
    """The real paths of the folders among a sweep's instance arguments."""
    return [
        os.path.realpath(item)
        for item in instances
        if isinstance(item, (str, os.PathLike)) and os.path.isdir(item)
    ]


def _gone_sources(store: Store, infos: Sequence[Any], folders: Sequence[str]) -> list[str]:
    """Recorded files this sweep did not read and that no longer exist.

    Only those it has evidence about: a file in a folder it scanned, or one
    whose recorded content it read at another path (moved or copied). Each
    gets a *gone* marker (see :mod:`~exactsched.experiments.store`), so its
    old content is no longer current. A file merely left off the command line,
    or still on disk, is not touched.
    """
    read = {i.source for i in infos if i.source}
    bases = {i.base or i.key for i in infos if i.source}
    prefixes = tuple(os.path.join(folder, "") for folder in folders)
    gone = set()
    for r in store.reads():
        if not r.source or not r.instance or r.source in read:
            continue
        if not (r.source.startswith(prefixes) or r.base in bases):
            continue
        if not os.path.lexists(r.source):
            gone.add(r.source)
    return sorted(gone)


def _plan(
    infos: Sequence[Any],
    specs: Sequence[MethodSpec],
    common: dict[str, Any],
    deadline: float | None,
) -> list[tuple[tuple[str, str, str], Task]]:
    """Every (results key, task) of the sweep, instance by instance, without repeats."""
    from exactsched.registry import get_method

    plan: list[tuple[tuple[str, str, str], Task]] = []
    seen: set[tuple[str, str, str]] = set()
    # Per method once: its options do not depend on the instance (and a script's
    # method is fingerprinted from its file, read once).
    methods = []
    for spec in specs:
        minfo = get_method(spec.name)
        methods.append((spec, minfo, run_options(minfo, dict(spec.options), **common)))
    for info in infos:
        for spec, minfo, options in methods:
            task = Task(
                instance=info.key,
                document=info.document,
                method=spec.name,
                kind=minfo.kind,
                options=dict(options),
                threads=common["workers"] if minfo.kind == "exact" else 1,
                deadline=deadline,
            )
            key = (info.key, spec.name, task.options_key)
            if key not in seen:
                seen.add(key)
                plan.append((key, task))
    return plan


def _specs(value: Any, kind: str) -> list[MethodSpec]:
    if (
        value is not None
        and not isinstance(value, str)
        and all(isinstance(v, MethodSpec) for v in value)
    ):
        return list(value)
    specs = parse_methods(value if value is not None else "none", kind)
    from exactsched.registry import get_method

    for s in specs:
        if kind == "exact" and get_method(s.name).kind != kind:
            raise MethodError(f"--exact: {s.name} is not an exact method (use --methods)")
    return specs


#: How many times a sweep reads a file again when it changes while it is read.
READ_ATTEMPTS = 5


class _PlatformChanged(Exception):
    """The ``--platform`` file changed while a sweep read its instances."""


def _read_stamped(
    store: Store, instances: Sequence[Any], platform: Any
) -> tuple[tuple[str, str] | None, list[tuple[str, Problem, str, int | None]]]:
    """:func:`_platform_file` and :func:`_load_all` of a sweep, each file's read stamped.

    A ``--platform`` file edited while the instances are read (each read
    checks it) has them all read again, on its new content.

    Raises
    ------
    InstanceError
        If an instance cannot be read, or a file changes while it is read
        :data:`READ_ATTEMPTS` times in a row.
    """

    on_disk = _platform_path(platform)
    for _ in range(READ_ATTEMPTS):
        watched = None if on_disk is None else (on_disk, _bytes_key(on_disk))
        on_file = _platform_file(platform)
        try:
            return on_file, _load_all(instances, platform, store, watched)
        except _PlatformChanged:
            continue
    raise _kept_changing(on_disk)


def _kept_changing(path: str | os.PathLike[str] | None) -> Exception:
    """The refusal of a file that changed at each of :data:`READ_ATTEMPTS` reads."""
    from exactsched.errors import InstanceError

    return InstanceError(
        f"{path}: changed while it was being read, {READ_ATTEMPTS} times; run the sweep"
        " again once it is no longer being written"
    )


def _bytes_key(path: str | os.PathLike[str]) -> str | None:
    """The key of the bytes of ``path`` (None if it cannot be read: reading it says why)."""
    from exactsched.experiments.instances import file_key

    # Only a regular file: opening a FIFO would wait for a writer (the read that
    # follows refuses anything else with one line).
    try:
        return file_key(path) if os.path.isfile(path) else None
    except OSError:
        return None


def _platform_path(platform: Any) -> str | None:
    """The path of a ``--platform`` that is a file on disk, else None."""
    if platform is None or not isinstance(platform, (str, os.PathLike)):
        return None
    return str(platform) if os.path.isfile(platform) else None


def _load_all(
    instances: Iterable[str | os.PathLike[str] | Problem],
    platform: Any,
    store: Store,
    watched: tuple[str, str | None] | None = None,
) -> list[tuple[str, Problem, str, int | None]]:
    """``(source, problem, base, stamp)`` of every instance (``source`` ``""`` for a problem).

    ``base`` is the content key of the file's own content, before ``platform``
    (see :class:`~exactsched.experiments.instances.InstanceInfo`): the
    problem's key when no platform replaces the file's, else :func:`_own_key`.

    ``stamp`` is None for a problem. Each file's
    read gets a stamp (:meth:`Store.reserve_stamp`) taken once the file is
    read, and the file must then still hold the bytes it held before it was
    read (``watched``, the platform file's path and key, likewise): what was
    read is what the file held when the stamp was taken, so stamp order is
    read order between sweeps on one database. Taken before the read, a sweep
    that started first and read a file after an edit would stamp the edit as
    older than another sweep's read of the old content (an outside audit saw
    it); taken after the read with no check, a read made before an edit could
    be stamped after another sweep's read of the edit. A file edited meanwhile
    is read again.

    Raises
    ------
    InstanceError
        If an instance cannot be read, or a file changes while it is read
        :data:`READ_ATTEMPTS` times in a row.
    """
    from exactsched.errors import InstanceError
    from exactsched.experiments.instances import instance_key

    items = list(instances)
    if not items:
        raise InstanceError("instances: none given")
    out: list[tuple[str, Problem, str, int | None]] = []
    for item in items:
        if isinstance(item, Problem):
            loaded = load_problem(item, platform)
            out.append(("", loaded, instance_key(loaded), None))
            continue
        for path in discover([item]):
            before = _bytes_key(path)
            for _ in range(READ_ATTEMPTS):
                problem, own = _load_file(path, platform)
                stamp = store.reserve_stamp()
                if watched is not None and _bytes_key(watched[0]) != watched[1]:
                    raise _PlatformChanged
                after = _bytes_key(path)
                if after == before:
                    break
                before = after  # what the next read must still find after it
            else:
                raise _kept_changing(path)
            out.append((str(path), problem, own, stamp))
    return out


def _load_file(path: Path, platform: Any) -> tuple[Problem, str]:
    """The problem of the instance file ``path`` on ``platform``, and its base.

    The base as :func:`_load_all` gives it; an error names the file.
    """
    from exactsched.errors import InstanceError
    from exactsched.experiments.instances import instance_key

    try:
        problem = load_problem(path, platform)
    except InstanceError as exc:
        text = str(exc)
        raise InstanceError(text if str(path) in text else f"{path}: {text}") from None
    # On another platform, the file's own content is read once more.
    return problem, instance_key(problem) if platform is None else _own_key(path)


def _own_key(path: os.PathLike[str] | str) -> str:
    """The content key of an instance file without any platform override.

    The :func:`~exactsched.experiments.instances.instance_key` of the file read
    on its own, or, for a file that cannot be (an STG, DOT or WfCommons file,
    or an instance valid only on another platform), the key of its bytes.
    """
    from exactsched.errors import InstanceError
    from exactsched.experiments.instances import file_key, instance_key
    from exactsched.workloads.loader import detect_format

    try:
        if detect_format(path) == "instance":
            return instance_key(load_problem(path))
    except InstanceError:
        pass
    return file_key(path)


def _platform_file(platform: Any) -> tuple[str, str] | None:
    """``(real path, content key)`` of a ``--platform`` that is a file, else None.

    A preset or shorthand name never changes; a platform file may be edited
    between sweeps, and the rows made on its old content are then superseded.
    The key is of the platform it resolves to, so an edit elsewhere in an
    instance file used as a platform changes nothing.
    """
    import hashlib
    import json
    from collections.abc import Mapping

    from exactsched.workloads.platforms import resolve_platform
    from topologies.presets import PRESET_ALIASES, PRESET_HARDWARE

    if platform is None or isinstance(platform, Mapping):
        return None
    spec = str(platform)
    # As resolve_platform reads it: a preset name wins over a file of that name.
    if spec in PRESET_ALIASES or spec in PRESET_HARDWARE or not os.path.isfile(spec):
        return None
    try:
        document = resolve_platform(spec).document
    except (ValueError, OSError):
        return None  # load_problem says what is wrong with it, naming the instance
    text = json.dumps(document, sort_keys=True, separators=(",", ":"))
    return os.path.realpath(platform), "platform:" + hashlib.sha256(text.encode()).hexdigest()[:20]
