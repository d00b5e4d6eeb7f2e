"""Study commands: ``compare``, ``results`` and ``gantt``.

``compare`` runs every method on every instance (a sweep, see
:mod:`exactsched.experiments`) and prints optimality gaps; ``results`` exports
or summarises a study database; ``gantt`` draws a schedule.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from typing import Any

from exactsched._output import atomic_write, number_text, printable
from exactsched.cli import (
    check_distinct,
    check_output,
    emit_json,
    seconds_arg,
    seed_arg,
    workers_arg,
)
from exactsched.errors import MethodError

__all__ = ["add_parsers"]

EXIT_OK = 0


def add_parsers(sub: Any) -> dict[str, Any]:
    """Add ``compare``, ``results`` and ``gantt`` to the sub-parser action ``sub``."""
    cmp = sub.add_parser(
        "compare",
        help="run every method on instances, store the results, report optimality gaps",
        description=(
            "Run exact methods and heuristics on every instance (files or directories), "
            "validate every schedule and report each method's gap to the optimum. With "
            "--db the results are stored as they finish and the same command resumes."
        ),
    )
    cmp.add_argument("instances", nargs="+", metavar="INSTANCE_OR_DIR")
    cmp.add_argument(
        "--methods",
        action="append",
        metavar="M",
        help="heuristics: all (default), none, or names: heft,cpop (repeatable; options as "
        "heft:ranking=median)",
    )
    cmp.add_argument(
        "--exact", default="cpsat", help="exact methods: cpsat (default), cpsat,milp, or none"
    )
    cmp.add_argument(
        "--time-limit",
        "-t",
        type=seconds_arg,
        default=60.0,
        help="seconds per exact run (default 60)",
    )
    cmp.add_argument(
        "--workers",
        "-w",
        type=workers_arg,
        default=None,
        help="solver threads per exact run, as in solve (default: the cores, at most 8)",
    )
    cmp.add_argument(
        "--jobs",
        "-j",
        type=workers_arg,
        default=None,
        help="parallel processes (default: the cores; an exact run holds --workers cores)",
    )
    cmp.add_argument("--seed", type=seed_arg, default=0, help="random seed (default 0)")
    cmp.add_argument(
        "--certify",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="certify proven optima by independent refutation (default: solve's policy)",
    )
    cmp.add_argument("--db", metavar="FILE", help="study database (SQLite); resumes if it exists")
    cmp.add_argument("--fresh", action="store_true", help="recompute runs the database holds")
    cmp.add_argument(
        "--retry-errors", action="store_true", help="run again stored runs that ended in error"
    )
    cmp.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster (or 'local')")
    cmp.add_argument("--platform", metavar="FILE", help="run every instance on this platform")
    cmp.add_argument(
        "--communication",
        metavar="MODELS",
        help="run every instance under each model: delay, single-port, contention "
        "(comma-separated; overrides the model an instance file names; default: its own)",
    )
    cmp.add_argument("--report", metavar="FILE", help="write a Markdown report")
    cmp.add_argument("--plots", metavar="DIR", help="write plots (PNG) to DIR")
    cmp.add_argument("--json", action="store_true", help="print one JSON document")
    cmp.add_argument("--quiet", "-q", action="store_true", help="no progress output")

    res = sub.add_parser(
        "results", help="export or summarise a study database (rows as JSON or CSV)"
    )
    res.add_argument("db", help="study database written by compare --db")
    fmt = res.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="every row as a JSON list")
    fmt.add_argument("--csv", action="store_true", help="every row as CSV")
    res.add_argument("--output", "-o", metavar="FILE", help="write there instead of stdout")
    res.add_argument("--report", metavar="FILE", help="write a Markdown report")
    res.add_argument("--plots", metavar="DIR", help="write plots (PNG) to DIR")
    res.add_argument(
        "--superseded",
        action="store_true",
        help="also the rows of instance contents a later sweep found changed in their file "
        "(left out by default)",
    )

    gan = sub.add_parser(
        "gantt",
        help="draw a schedule as a Gantt chart (PNG or SVG)",
        description="Draw SCHEDULE (a schedule JSON file) of INSTANCE, or the schedule of "
        "--method on an instance (its key or name) stored in --db.",
    )
    gan.add_argument("schedule", nargs="?", help="schedule JSON file (exactsched/schedule@1)")
    gan.add_argument("instance", nargs="?", help="instance file")
    gan.add_argument("--output", "-o", required=True, metavar="FILE", help="out.png or out.svg")
    gan.add_argument("--db", metavar="FILE", help="take the schedule from a study database")
    gan.add_argument(
        "--method",
        "-m",
        help="with --db: the method as results labels it (heft, heft[ranking=median]); "
        "where several configurations are stored, add the settings that tell them apart: "
        "'cpsat{time_limit=2}'",
    )
    gan.add_argument(
        "--communication",
        metavar="MODEL",
        help="with --db: the instance under this model (compare --communication stores "
        "one instance per model)",
    )
    gan.add_argument("--title", help="chart title")
    gan.add_argument(
        "--allow-invalid",
        action="store_true",
        help="draw a schedule that does not validate (to see what is wrong), with a warning; "
        "by default it is refused (exit status 2)",
    )
    return {"compare": _cmd_compare, "results": _cmd_results, "gantt": _cmd_gantt}


def _check_args(args: argparse.Namespace) -> None:
    for option, texts in (("--methods", args.methods or []), ("--exact", [args.exact])):
        for text in texts:
            if text is not None and not text.replace(",", "").strip():
                raise MethodError(f"{option}: empty; give method names, all or none")
    from exactsched.experiments.sweep import parse_methods

    if not parse_methods(args.methods) and not parse_methods(args.exact, kind="exact"):
        # Nothing would run, and the summary would say "no results" with exit 0.
        raise MethodError("--methods, --exact: no method to run (both name none)")
    limit = args.time_limit
    if limit is not None and not (math.isfinite(limit) and limit >= 0):
        # 0, as for solve: the exact methods return their warm start and bound
        raise MethodError(f"--time-limit: expected a number of seconds >= 0, got {limit}")
    for name in ("workers", "jobs"):
        value = getattr(args, name)
        if value is not None and not 1 <= value <= 4096:
            raise MethodError(f"--{name}: expected an integer from 1 to 4096, got {value}")
    if not 0 <= args.seed < 2**31:
        raise MethodError(f"--seed: expected an integer from 0 to 2147483647, got {args.seed}")


def _cmd_compare(args: argparse.Namespace) -> int:
    from exactsched.experiments.analysis import load_rows, unfinished_note
    from exactsched.experiments.report import compare_text, write_outputs
    from exactsched.experiments.store import damaged_database
    from exactsched.experiments.sweep import parse_communication, run_sweep

    _check_args(args)
    parse_communication(args.communication)  # a bad model is refused before anything runs
    _check_outputs(args)
    if args.db is not None and not args.db.strip():
        raise MethodError("--db: empty path")
    if args.db is not None:
        _check_db_writable(args.db)
    with damaged_database(args.db or ":memory:"):
        outcome = _sweep(run_sweep, args)
    try:
        # Only the rows of the configuration asked for: the database may hold others.
        rows = load_rows(outcome.store, keys=outcome.keys, version=outcome.version)
        # Another sweep may still hold some of this study's runs.
        note = unfinished_note(outcome.store, outcome.keys, outcome.version)
        written = _write_outputs(write_outputs, rows, args, note)
        if args.json:
            _emit_json(compare_json(rows, outcome))
        else:
            print(compare_text(rows, outcome))
            for path in written:
                print(f"wrote {path}")
        if note:
            print(f"warning: {note}", file=sys.stderr)
    finally:
        outcome.store.close()
    return EXIT_OK


def _sweep(run_sweep: Any, args: argparse.Namespace) -> Any:
    """:func:`~exactsched.experiments.sweep.run_sweep` with ``compare``'s arguments."""
    return run_sweep(
        args.instances,
        args.methods or "all",
        exact=args.exact,
        time_limit=args.time_limit,
        workers=args.workers,
        seed=args.seed,
        certify=args.certify,
        db=args.db or ":memory:",
        jobs=args.jobs,
        dask=args.dask,
        fresh=args.fresh,
        retry_errors=args.retry_errors,
        platform=args.platform,
        communication=args.communication,
        progress="none" if (args.quiet or args.json) else "auto",
    )


def _check_db_writable(path: str) -> None:
    """Refuse a study database ``compare`` could not write, before any run.

    SQLite needs the file and its folder (for the journal beside it) to be
    writable; otherwise it says only "unable to open database file". A path that
    exists and is not a file is left to :class:`~exactsched.experiments.store.Store`,
    which says what it is. ``results`` and ``gantt --db`` read a read-only study.

    Raises
    ------
    MethodError
        If the file, or the folder it is in or would be created in, cannot be written.
    """
    if path == ":memory:":
        return
    if os.path.exists(path) and not os.path.isfile(path):
        if not os.path.isdir(path):
            # A device or a pipe: SQLite would write its journal beside it (/dev/full-journal).
            raise MethodError(f"--db {path}: not a regular file (a study database is a file)")
        return
    folder = os.path.dirname(os.path.abspath(path))
    where = f"--db {path}: cannot be written"
    if os.path.isfile(path) and not os.access(path, os.W_OK):
        reason = "the file is read-only"
    elif not os.path.isdir(folder):
        reason = f"folder {folder} does not exist"
    elif not os.access(folder, os.W_OK):
        reason = f"folder {folder} is read-only (SQLite writes its journal there)"
    else:
        return
    read = " (`exactsched results` reads it)" if os.path.isfile(path) else ""
    raise MethodError(f"{where}: {reason}{read}")


def compare_json(rows: list[dict[str, Any]], outcome: Any) -> dict[str, Any]:
    """The ``compare --json`` document: sweep counts, per-method summary, every row."""
    from exactsched.experiments.analysis import summarise

    return {
        "planned": outcome.planned,
        "skipped": outcome.skipped,
        "ran": outcome.ran,
        "errors": outcome.errors,
        "summary": summarise(rows),
        "rows": rows,
    }


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse ``--report``, ``--plots`` and ``--output`` paths that cannot be written."""
    study = (getattr(args, "db", None),)  # never write a report over the database
    check_distinct(
        ("--db", getattr(args, "db", None)),
        ("--report", args.report),
        ("--plots", args.plots),
        ("--output", getattr(args, "output", None)),
    )
    check_output(args.report, "--report", keep=study)
    check_output(args.plots, "--plots", folder=True, keep=study)
    check_output(getattr(args, "output", None), "--output", keep=study)


def _write_outputs(
    write_outputs: Any, rows: Any, args: argparse.Namespace, note: str | None = None
) -> list[str]:
    """``write_outputs`` with a write failure (a full disk) naming its option.

    The files are written whole or not at all, so a failure leaves none truncated.
    ``note`` says in the report that the study is incomplete.
    """
    try:
        return write_outputs(rows, report=args.report, plots=args.plots, note=note)
    except OSError as exc:
        where = os.path.abspath(exc.filename) if exc.filename else None
        in_plots = args.plots and where and where.startswith(os.path.abspath(args.plots))
        on_report = args.report and (where == os.path.abspath(args.report) or not in_plots)
        option, path = ("--report", args.report) if on_report else ("--plots", args.plots)
        raise MethodError(f"{option} {path}: cannot write: {exc.strerror or exc}") from None


def _emit_json(document: Any, stream: Any = None) -> None:
    emit_json(document, stream)  # the CLI's one strict JSON writer (null, not NaN)


def _cmd_results(args: argparse.Namespace) -> int:
    from exactsched.experiments.analysis import (
        EXPORT_COLUMNS,
        load_rows,
        respelt_note,
        superseded_keys,
        unfinished_note,
    )
    from exactsched.experiments.report import communication_text, summary_text, write_outputs
    from exactsched.experiments.store import Store, damaged_database

    _check_outputs(args)
    # Read-only: results never writes into what it reads (a 0-byte file, someone
    # else's SQLite file and a read-only study stay byte-for-byte as they are).
    # Damage met while reading is one line, exit 2, whatever reads it.
    with damaged_database(args.db), Store(args.db, readonly=True) as store:
        rows = load_rows(store, superseded=args.superseded)
        stale = set() if args.superseded else superseded_keys(store)
        note = unfinished_note(store)
        respelt = respelt_note(store, {r["instance_key"] for r in rows})
    if note:
        # An interrupted study must not read as a finished one.
        print(f"warning: {note}", file=sys.stderr)
    if respelt:
        print(f"warning: {respelt}", file=sys.stderr)
    if stale:
        print(
            f"left out: the rows of {len(stale)} instance content(s) that a later sweep read"
            " as other content (an edit of the file, or an exactsched version that keys"
            " instances otherwise; --superseded shows them)",
            file=sys.stderr,
        )
    # A file is written whole or not at all: a full disk leaves no truncated export.
    with _output_errors(args.output), contextlib.ExitStack() as stack:
        out = (
            stack.enter_context(atomic_write(args.output, "w", encoding="utf-8", newline=""))
            if args.output
            else sys.stdout
        )
        if args.json:
            _emit_json([{c: r[c] for c in EXPORT_COLUMNS} for r in rows], out)
        elif args.csv:
            import csv

            writer = csv.DictWriter(out, fieldnames=list(EXPORT_COLUMNS), extrasaction="ignore")
            writer.writeheader()
            for r in rows:
                writer.writerow({k: "" if r[k] is None else r[k] for k in EXPORT_COLUMNS})
        else:
            models = communication_text(rows)
            if models:
                print(models + "\n", file=out)
            print(summary_text(rows), file=out)
            configs = _configurations(rows)
            if len(configs) > 1:
                print("\nconfigurations in the database (rows):", file=out)
                for text, count in configs:
                    print(f"  {printable(text)}  ({count})", file=out)
    for path in _write_outputs(write_outputs, rows, args, note):
        print(f"wrote {path}", file=sys.stderr)
    return EXIT_OK


@contextlib.contextmanager
def _output_errors(path: str | None) -> Any:
    """A failure to write ``--output`` (a full disk) as one line naming it."""
    from exactsched.cli import OutputError

    try:
        yield
    except OutputError:
        raise  # standard output: the CLI reports it
    except OSError as exc:
        if path is None:
            raise
        raise MethodError(f"--output {path}: cannot write: {exc.strerror or exc}") from None


def _configurations(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """Each (method, configuration) of the rows with its row count, sorted."""
    from collections import Counter

    counts = Counter(f"{r['method']}: {r['config']}" for r in rows)
    return sorted(counts.items())


def _method_of(path: str) -> str | None:
    """The ``method`` a schedule document names (``solve --json`` writes it), if any."""
    try:
        with open(path, encoding="utf-8") as fh:
            method = json.load(fh).get("method")
    except (OSError, ValueError, AttributeError):
        return None
    return method if isinstance(method, str) else None


_MAX_TITLE = 200  # characters of a chart title; matplotlib lays out each one


def _cmd_gantt(args: argparse.Namespace) -> int:
    from exactsched.experiments.instances import load_problem
    from exactsched.experiments.plots import gantt_chart
    from exactsched.schedule import Schedule, load_schedule

    check_output(args.output, "--output")
    if not args.output.lower().endswith((".png", ".svg", ".pdf")):
        raise MethodError(f"--output {args.output}: expected a .png, .svg or .pdf file")
    if args.db:
        from exactsched.experiments.store import Store, damaged_database
        from exactsched.experiments.sweep import parse_communication

        # What is wrong with the database or the model is said before what is missing.
        models = parse_communication(args.communication)
        if models is not None and len(models) != 1:
            raise MethodError("gantt --communication: give one model")
        with damaged_database(args.db), Store(args.db, readonly=True) as store:
            if not args.method or not (args.instance or args.schedule):
                raise MethodError("gantt --db: give the instance (key or name) and --method")
            doc, sched = store.schedule(
                args.instance or args.schedule,
                args.method,
                None if models is None else models[0],
            )
        problem = load_problem(doc)
        schedule = Schedule.from_json(sched)
        method = args.method
    else:
        if not (args.schedule and args.instance):
            raise MethodError("gantt: give SCHEDULE and INSTANCE (or --db, --method)")
        if args.communication is not None:
            raise MethodError("gantt --communication: only with --db (a file names its model)")
        if args.method:
            raise MethodError("gantt --method: only with --db (a schedule file names its method)")
        problem = load_problem(args.instance)
        # The referee below names what is wrong (a task left out, a wrong makespan).
        schedule = load_schedule(args.schedule, check_makespan=False)
        method = _method_of(args.schedule)
    from exactsched.validate import validate

    violations = validate(problem, schedule)
    if violations and not args.allow_invalid:
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        raise MethodError(
            f"gantt: the schedule is invalid: {violations[0]}{more}; --allow-invalid draws it"
        )
    title = args.title
    if title is None and method:
        name = printable(problem.name or "schedule")
        title = f"{name}: {printable(method)}, makespan {number_text(schedule.makespan)}"
    if title is not None and len(title) > _MAX_TITLE:  # a chart title is one line
        title = title[: _MAX_TITLE - 1] + "\u2026"
    fig = gantt_chart(problem, schedule, title=title)
    try:
        with atomic_write(args.output, "wb") as fh:  # whole or not at all
            fig.savefig(fh, format=args.output.rsplit(".", 1)[-1].lower(), dpi=120,
                        bbox_inches="tight")  # fmt: skip
    except OSError as exc:
        raise MethodError(f"--output {args.output}: {exc.strerror or exc}") from None
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)  # main() may run many times in one process (tests, notebooks)
    print(f"wrote {args.output}")
    if violations:
        print(f"warning: the schedule is invalid: {violations[0]}", file=sys.stderr)
    return EXIT_OK
