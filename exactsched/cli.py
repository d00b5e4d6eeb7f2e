"""The ``exactsched`` command line.

Commands: ``info``, ``validate``, ``solve`` and ``methods`` here, and those of
the modules in :mod:`exactsched.commands` (``compare``, ``results`` and ``gantt``
in :mod:`exactsched.commands.experiments`).
Exit status: 0 success, 1 an invalid schedule (``validate``), 2 bad input,
usage or an environment failure (a missing folder, a full disk, out of memory),
or a method that returned an invalid schedule (:class:`InvalidScheduleError`),
3 an internal error (a bug), 130 interrupted. Every failure prints exactly one
line on standard error, never a traceback (``EXACTSCHED_TRACEBACK=1`` shows the
traceback of an internal error; instance warnings are printed only when the
command succeeds). A closed pipe on standard output
(``exactsched methods | head -1``) stops quietly with status 0.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import errno
import json
import math
import os
import re
import sqlite3
import stat
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from exactsched._output import atomic_write, json_number, number_text, printable, writes_stdout
from exactsched.errors import (
    InstanceError,
    InstanceWarning,
    InvalidScheduleError,
    MethodError,
    ScheduleError,
)

__all__ = [
    "main",
    "gantt",
    "seconds_arg",
    "workers_arg",
    "seed_arg",
    "int_arg",
    "finite_arg",
    "strict_json",
    "dumps_json",
    "emit_json",
    "check_output",
    "USER_ERRORS",
]

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130

#: Errors printed as they are (one line) with exit status 2: the user's input, and a
#: method's invalid schedule caught by the referee.
USER_ERRORS: tuple[type[Exception], ...] = (
    InstanceError,
    ScheduleError,
    MethodError,
    InvalidScheduleError,
)

# Kept in step with exactsched.registry (not imported here so that --help stays fast).
DEFAULT_TIME_LIMIT = 60.0
MAX_WORKERS = 256
MAX_SEED = 2**31 - 1


def seconds_arg(text: str) -> float:
    """argparse type of ``--time-limit``: a finite number of seconds >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds >= 0, got {text!r}")
    return value


def finite_arg(text: str) -> float:
    """argparse type of a real-valued option: a finite number (ranges are checked later)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        shown = text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
        raise argparse.ArgumentTypeError(f"expected a finite number, got {shown!r}")
    return value


def workers_arg(text: str) -> int:
    """argparse type of ``--workers``: an integer from 1 to 256."""
    return _int_arg(text, 1, MAX_WORKERS)


def seed_arg(text: str) -> int:
    """argparse type of ``--seed``: an integer from 0 to 2**31 - 1 (the solvers' range)."""
    return _int_arg(text, 0, MAX_SEED)


def int_arg(low: int, high: int) -> Any:
    """An argparse type: an integer from ``low`` to ``high``, else a one-line usage error.

    Examples
    --------
    >>> int_arg(1, 10)("3")
    3
    >>> int_arg(1, 10)("-5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer from 1 to 10, got '-5'
    """

    def parse(text: str) -> int:
        return _int_arg(text, low, high)

    parse.__name__ = "integer"
    return parse


def _int_arg(text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        shown = text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
        raise argparse.ArgumentTypeError(
            f"expected an integer from {low} to {high}, got {shown!r}"
        )
    return value


class _Parser(argparse.ArgumentParser):
    """argparse with our one-line error style (status 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse swallows write errors; let a full disk under --help reach main().
        if message:
            (file or sys.stderr).write(message)


_PLATFORM_HELP = (
    "platform: a preset (single-gpu, multi-gpu, titan, summit), a JSON file or a shorthand "
    "such as mesh:4x4; required for STG, DOT and WfCommons files, replaces an instance's own"
)


def _load(args: argparse.Namespace) -> Any:
    from exactsched.workloads.loader import load_problem

    return load_problem(args.instance, getattr(args, "platform", None))


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="exactsched",
        description="Optimal and heuristic schedules of task graphs on networked processors.",
    )
    from exactsched import __version__

    parser.add_argument("--version", action="version", version=f"exactsched {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    info = sub.add_parser("info", help="summarise an instance: sizes, network, CCR, bounds")
    info.add_argument(
        "instance", help="instance JSON (exactsched/instance@1), STG, DOT or WfCommons file"
    )
    info.add_argument("--platform", help=_PLATFORM_HELP)
    info.add_argument("--json", action="store_true", help="print one JSON document")

    val = sub.add_parser("validate", help="check an instance, and a schedule against it")
    val.add_argument("instance", help="instance JSON, STG, DOT or WfCommons file")
    val.add_argument("--platform", help=_PLATFORM_HELP)
    val.add_argument("schedule", nargs="?", help="schedule JSON file (exactsched/schedule@1)")
    val.add_argument("--json", action="store_true", help="print one JSON document")

    solve = sub.add_parser("solve", help="schedule an instance with an exact method or heuristic")
    solve.add_argument("instance", help="instance JSON, STG, DOT or WfCommons file")
    solve.add_argument("--platform", help=_PLATFORM_HELP)
    solve.add_argument("--method", "-m", default="cpsat", help="method name (default cpsat)")
    solve.add_argument(
        "--time-limit",
        "-t",
        type=seconds_arg,
        default=DEFAULT_TIME_LIMIT,
        help=f"seconds for an exact method, model building included "
        f"(default {DEFAULT_TIME_LIMIT:g}); ignored by heuristics",
    )
    solve.add_argument(
        "--workers", "-w", type=workers_arg, default=None, help=f"solver threads (1-{MAX_WORKERS})"
    )
    solve.add_argument("--seed", type=seed_arg, default=0, help="random seed (default 0)")
    solve.add_argument(
        "--option",
        "-O",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="method option, repeatable (see `exactsched methods --json`); -O, capital: "
        "-o is --output in every command",
    )
    solve.add_argument(
        "--certify",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="certify a proven optimum by independent refutation "
        "(default: on, within the solve's own time)",
    )
    solve.add_argument("--json", action="store_true", help="print the schedule document")
    solve.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="also write the schedule JSON to FILE (checked first)",
    )
    solve.add_argument("--quiet", "-q", action="store_true", help="no progress lines")

    methods = sub.add_parser("methods", help="list every method with its source")
    methods.add_argument("--json", action="store_true", help="print a JSON list")

    from exactsched.commands import command_modules

    for module in command_modules():
        _COMMANDS.update(module.add_parsers(sub))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    The one place where errors become exit statuses: every handler runs inside
    :func:`_guarded`, so no error reaches the user as a traceback.
    """
    # Ids are refused unless they are valid Unicode, but never let printing crash.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    real_stdout = sys.stdout
    sys.stdout = _Stdout(real_stdout)  # type: ignore[assignment]
    try:
        return _guarded(argv)
    finally:
        sys.stdout = real_stdout


def _guarded(argv: Sequence[str] | None) -> int:
    command = "exactsched"
    args = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InstanceWarning)
        try:
            try:
                args = _parser().parse_args(argv)
            except SystemExit as exc:  # argparse: --help, --version, usage errors
                status = _exit_code(exc)
            else:
                command = args.command
                token = _INPUTS.set(_input_paths(args))
                try:
                    status = _COMMANDS[args.command](args)
                finally:
                    _INPUTS.reset(token)
            sys.stdout.flush()  # inside the guard: a full disk is caught here
        except BaseException as exc:  # noqa: BLE001 - the CLI's single error boundary
            if isinstance(exc, sqlite3.DatabaseError) and _DAMAGED.search(str(exc)):
                # damaged pages met while reading a study (opening checks only the header)
                exc = InstanceError(f"{getattr(args, 'db', None) or command}: {exc}")
            status, message = _error_status(exc, command)
            if message is not None:
                # The error alone: warnings about the input are printed on success only,
                # so that a failure is always exactly one line.
                _print_error(message)
            return status
    _flush_warnings(caught)
    return status


#: The files the running command reads: :func:`check_output` never lets an output
#: replace one of them (``solve in.json -o in.json`` destroyed the instance).
_INPUTS: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "exactsched_inputs", default=()
)
#: The arguments that name files a command reads.
_INPUT_ARGUMENTS = ("instance", "instances", "input", "schedule", "mapping", "platform", "db")


def _input_paths(args: argparse.Namespace) -> tuple[str, ...]:
    """The existing files and folders among the arguments of :data:`_INPUT_ARGUMENTS`
    (a folder of ``compare``: the instance files below it are read)."""
    paths: list[str] = []
    for name in _INPUT_ARGUMENTS:
        value = getattr(args, name, None)
        for item in value if isinstance(value, list | tuple) else [value]:
            if isinstance(item, str) and item and os.path.exists(item):
                paths.append(item)
    return tuple(paths)


def _read_by_command(path: str, other: str) -> bool:
    """Whether writing ``path`` would replace ``other``, an input file, or an instance
    file a folder input holds (what ``compare`` reads from it)."""
    if os.path.isdir(other):
        from exactsched.experiments.instances import INSTANCE_SUFFIXES

        inside = os.path.realpath(path).startswith(os.path.realpath(other) + os.sep)
        return inside and os.path.splitext(path)[1].lower() in INSTANCE_SUFFIXES
    return os.path.exists(other) and os.path.samefile(path, other)


# SQLite's words for a file it cannot read (not for a mistake in a query).
_DAMAGED = re.compile(r"malformed|not a database|disk I/O error|corrupt", re.IGNORECASE)


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return EXIT_OK
    return code if isinstance(code, int) else EXIT_USAGE


class OutputError(OSError):
    """Writing standard output failed (a full disk, a closed pipe)."""


class _Stdout:
    """``sys.stdout`` whose write failures say they are standard output's."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is None:  # started with standard output closed
            raise OutputError(errno.EBADF, "standard output is closed")
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise _output_error(exc) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._stream is None:
            return  # nothing was written (write refused it)
        try:
            self._stream.flush()
        except OSError as exc:
            raise _output_error(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _output_error(exc: OSError) -> OutputError:
    error = OutputError(exc.errno, exc.strerror or str(exc))
    error.__cause__ = exc
    return error


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is an interrupt, or an error an interrupt caused.

    Ctrl-C while OR-Tools loads its extension surfaces as ``ImportError:
    initialization failed`` raised from the ``KeyboardInterrupt`` (an outside audit
    saw exit 3 there); the chain of causes tells it from a real import failure.
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return False


def _error_status(exc: BaseException, command: str) -> tuple[int, str | None]:
    """The exit status and one-line message of an error escaping a command."""
    if isinstance(exc, SystemExit):  # a command chose its status (it printed its reason)
        return _exit_code(exc), None
    if _interrupted(exc):
        return EXIT_INTERRUPTED, "interrupted"
    if isinstance(exc, OutputError):
        _silence_stdout()
        if exc.errno == errno.EPIPE:
            # The reader went away (``exactsched ... | head``): stop quietly.
            return EXIT_OK, None
        return EXIT_USAGE, f"cannot write standard output: {exc.strerror}"
    if isinstance(exc, BrokenPipeError) and exc.filename is None:
        _silence_stdout()
        return EXIT_OK, None
    if isinstance(exc, USER_ERRORS):
        return EXIT_USAGE, _one_line(str(exc))
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc)
        where = exc.filename if exc.filename is not None else command
        return EXIT_USAGE, _one_line(f"{where}: {reason}")
    if isinstance(exc, MemoryError):
        return EXIT_USAGE, f"{command}: out of memory; the input or a requested size is too large"
    if isinstance(exc, RecursionError):
        return EXIT_USAGE, f"{command}: the input is nested too deeply"
    if os.environ.get("EXACTSCHED_TRACEBACK"):
        import traceback

        traceback.print_exception(exc)
    name = type(exc).__name__
    detail = _one_line(str(exc))
    return EXIT_INTERNAL, (
        f"internal error in `{command}`: {name}{': ' + detail if detail else ''} "
        "(a bug: please report it; EXACTSCHED_TRACEBACK=1 shows the traceback)"
    )


def _one_line(text: str) -> str:
    return " ".join(text.split()) if "\n" in text or "\r" in text else text


def _print_error(message: str) -> None:
    if sys.stderr is None:  # started with standard error closed: nowhere to say it
        return
    with contextlib.suppress(OSError, ValueError):
        # A message may quote a name: no escape sequence reaches the terminal.
        print(f"exactsched: error: {printable(message)}", file=sys.stderr)
        sys.stderr.flush()


def _silence_stdout() -> None:
    """After standard output failed, let the interpreter's last flush succeed."""
    stream = sys.stdout
    inner = getattr(stream, "_stream", stream)
    if inner is sys.__stdout__ and inner is not None:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), inner.fileno())


def _flush_warnings(caught: list[warnings.WarningMessage]) -> None:
    for w in caught:
        if issubclass(w.category, InstanceWarning):
            with contextlib.suppress(OSError, ValueError):
                print(f"exactsched: warning: {printable(w.message)}", file=sys.stderr)


def strict_json(document: Any) -> Any:
    """``document`` with every non-finite float (inf, nan) replaced by None.

    JSON has no Infinity or NaN: every ``--json`` output goes through
    :func:`dumps_json`, which calls this and then refuses anything non-finite.

    Examples
    --------
    >>> strict_json({"ccr": float("inf"), "xs": [1.5, float("nan")]})
    {'ccr': None, 'xs': [1.5, None]}
    """
    if isinstance(document, float):
        return document if math.isfinite(document) else None
    if isinstance(document, dict):
        return {k: strict_json(v) for k, v in document.items()}
    if isinstance(document, list | tuple):
        return [strict_json(v) for v in document]
    if hasattr(document, "item") and hasattr(document, "dtype"):  # a numpy scalar
        return strict_json(document.item())
    return document


def dumps_json(document: Any, indent: int | None = 2) -> str:
    """Strict JSON text of ``document`` (non-finite numbers become null)."""
    return json.dumps(strict_json(document), indent=indent, allow_nan=False)


def emit_json(document: Any, stream: Any = None) -> None:
    """Print ``document`` as strict JSON on ``stream`` (default standard output)."""
    out = sys.stdout if stream is None else stream
    out.write(dumps_json(document) + "\n")


_emit = emit_json


# ---- info -------------------------------------------------------------------------


def _cmd_info(args: argparse.Namespace) -> int:
    from exactsched.bounds import lower_bound, lower_bounds
    from exactsched.metrics import minimal_serial_time

    problem = _load(args)
    types: dict[str, int] = {}
    for t in problem.proc_types:
        types[t] = types.get(t, 0) + 1
    topology = problem.topology
    mst = minimal_serial_time(problem)
    doc = {
        "name": problem.name,
        "tasks": problem.n_tasks,
        "edges": len(problem.edge_src),
        "order_pairs": len(problem.order_src),
        "isolation_pairs": len(problem.iso_a),
        "restricted_tasks": int((~problem.allowed).any(axis=1).sum()),
        "processors": problem.n_processors,
        "processor_types": types,
        "topology": problem.network["topology"],
        "communication": problem.communication,
        "duplex": problem.duplex,
        "diameter": json_number(topology.diameter()),
        "latency": json_number(problem.latency),
        "bandwidth": json_number(problem.bandwidth),
        "ccr": json_number(problem.ccr()),  # every digit: a CCR of 1e-9 is not 0
        "integral": problem.is_integral,
        "minimal_serial_time": json_number(mst) if mst != float("inf") else None,
        "lower_bounds": {k: json_number(v) for k, v in lower_bounds(problem).items()},
        "lower_bound": json_number(lower_bound(problem)),
    }
    if args.json:
        _emit(doc)
        return EXIT_OK
    print(f"instance        {printable(problem.name or args.instance)}")
    print(
        f"tasks           {doc['tasks']} ({doc['edges']} edges, {doc['order_pairs']} order "
        f"pairs, {doc['isolation_pairs']} isolation pairs, "
        f"{doc['restricted_tasks']} with affinity)"
    )
    kinds = ", ".join(f"{n} {t}" for t, n in types.items())
    print(f"processors      {doc['processors']} ({kinds})")
    print(
        f"network         {doc['topology']}, diameter {doc['diameter']} hops, "
        f"latency {doc['latency']}, bandwidth {doc['bandwidth']}, "
        f"{doc['communication']}{'' if doc['duplex'] else ' (half duplex)'} communication"
    )
    print(f"CCR             {problem.ccr():.4g}")
    print(f"integral data   {'yes' if doc['integral'] else 'no'}")
    serial = doc["minimal_serial_time"]
    shown = "n/a: no processor may run every task" if serial is None else number_text(serial)
    print(f"min serial time {shown}")
    skipped = _path_load_skipped(problem)
    bounds = ", ".join(
        f"{k} n/a: {skipped}" if k == "path_load" and skipped else f"{k} {number_text(v)}"
        for k, v in doc["lower_bounds"].items()
    )
    print(f"lower bound     {number_text(doc['lower_bound'])} (best of: {bounds})")
    return EXIT_OK


# ---- validate ---------------------------------------------------------------------


def _cmd_validate(args: argparse.Namespace) -> int:
    from exactsched.instance import _read_json
    from exactsched.schedule import Schedule, ScheduleError
    from exactsched.validate import validate

    problem = _load(args)
    if args.schedule is None:
        if args.json:
            _emit({"instance": args.instance, "valid": True})
        else:
            print(f"{args.instance}: valid instance ({problem.n_tasks} tasks)")
        return EXIT_OK
    document = _read_json(args.schedule, ScheduleError)  # read once: schedule and claims
    schedule = Schedule.from_json(document, check_makespan=False)  # validate judges it
    violations = validate(problem, schedule) + _claim_violations(document, schedule)
    if args.json:
        _emit({"valid": not violations, "makespan": schedule.makespan, "violations": violations})
    elif violations:
        print(f"{args.schedule}: invalid schedule, {len(violations)} violation(s):")
        for v in violations:
            print(f"  - {v}")
    else:
        print(f"{args.schedule}: valid schedule, makespan {number_text(schedule.makespan)}")
    return EXIT_INVALID if violations else EXIT_OK


def _claim_violations(document: dict[str, Any], schedule: Any) -> list[str]:
    """What a schedule file claims beside its schedule that cannot be true.

    A ``lower_bound`` above the schedule's own makespan (beyond float noise) is no
    lower bound, and a ``status`` outside the format's four words says nothing; the
    referee judges the schedule, and these two claims need nothing else to refute
    (an outside audit found both passed as "valid").
    """
    from exactsched.result import Status

    out = []  # ``document`` is an object: Schedule.from_json refused anything else
    bound = document.get("lower_bound")
    makespan = float(schedule.makespan)
    numeric = isinstance(bound, int | float) and not isinstance(bound, bool)
    if numeric and _bound_above(bound, makespan):
        out.append(
            f"lower_bound: {number_text(bound)} is above the schedule's own makespan "
            f"{number_text(makespan)}, so it bounds nothing"
        )
    status = document.get("status")
    known = [s.value for s in Status]
    if "status" in document and status not in known:
        out.append(f"status: {status!r} is not one of {', '.join(known)}")
    return out


def _bound_above(bound: float, makespan: float) -> bool:
    """Whether a claimed lower bound is above a (finite) makespan beyond the float noise.

    Infinity (which ``1e400`` reads as) and an integer too large for a float are
    above every makespan (an outside audit: the first passed, the second crashed);
    NaN is above nothing.

    Examples
    --------
    >>> _bound_above(10**400, 4.0), _bound_above(float("inf"), 4.0), _bound_above(4.0, 4.0)
    (True, True, False)
    >>> _bound_above(-(10**400), 4.0), _bound_above(float("nan"), 4.0)
    (False, False)
    """
    from exactsched.validate import float_noise

    try:
        value = float(bound)
    except OverflowError:  # an integer past the largest float
        return bound > 0
    if math.isinf(value):
        return value > 0
    return value - makespan > float_noise(value, makespan)


# ---- solve ------------------------------------------------------------------------


def _cmd_solve(args: argparse.Namespace) -> int:
    import time

    from exactsched.registry import get_method, parse_options, solve

    if args.output is not None:
        if re.match(r"[A-Za-z_][A-Za-z0-9_]*=", args.output) and "/" not in args.output:
            # Before -o became --output it meant --option: never write a file "log=true".
            raise MethodError(
                f"--output {args.output}: looks like a method option; -o is --output FILE, "
                f"options take -O/--option KEY=VALUE (write ./{args.output} for such a file)"
            )
        _check_writable(args.output)  # before the solve, which may take long
    info = get_method(args.method)
    options = parse_options(args.method, args.option)
    problem = _load(args)
    if info.kind == "exact" and "callback" in info.options and not (args.quiet or args.json):
        started = time.perf_counter()

        def progress(makespan: float, bound: float, seconds: float | None = None) -> None:
            elapsed = time.perf_counter() - started
            print(
                f"  {elapsed:8.2f}s  makespan {number_text(makespan)}  bound {number_text(bound)}",
                file=sys.stderr,
            )

        options.setdefault("callback", progress)
    # Whatever a solver prints (its log) goes to standard error: stdout is the result.
    with _stdout_to_stderr():
        result = solve(
            problem,
            args.method,
            time_limit=args.time_limit,
            workers=args.workers,
            seed=args.seed,
            certify=args.certify,
            **options,
        )
    document = result.to_json()
    failure = _write_output(args.output, document) if args.output is not None else None
    # -o /dev/stdout: the document is standard output; the summary goes beside it.
    aside = args.output is not None and not args.json and writes_stdout(args.output)
    with contextlib.redirect_stdout(sys.stderr) if aside else contextlib.nullcontext():
        status = _print_result(args, problem, result, document)
    if failure:
        print(f"exactsched: error: {failure}", file=sys.stderr)
        return EXIT_USAGE
    return status


def _print_result(args: argparse.Namespace, problem: Any, result: Any, document: Any) -> int:
    if args.json:
        _emit(document)
        return EXIT_OK
    print(f"method      {result.method}")
    print(f"status      {result.status.value}")
    if result.schedule is None:
        if result.status.value == "infeasible":
            print("no valid schedule exists for this instance")
        else:
            print("no schedule found within the limits")
        return EXIT_OK
    print(f"makespan    {number_text(result.makespan)}")
    bound = result.lower_bound
    print(f"lower bound {number_text(bound)}" if bound is not None else "")
    gap = "-" if result.gap is None else f"{100 * result.gap:.2f}%"
    print(f"gap         {gap} (makespan - lower bound) / lower bound")
    if result.certified is not None:
        by = ", ".join(result.certified_by)
        took = result.stats.get("certify", {}).get("seconds", 0.0)
        if result.certified:
            verdict = f"yes, by {by}"
        elif result.status.value == "optimal":
            verdict = "no (the optimum is a claim)"
        else:
            verdict = "no"
        print(f"certified   {verdict} in {took:.3f} s")
    claim = result.stats.get("claim")
    if isinstance(claim, dict) and claim.get("why_not_optimal"):
        # Exact figures: at 1e12 two claims a few units apart print alike with :g.
        why = claim["why_not_optimal"]
        print(f"claim       {claim['makespan']!r} not reported optimal: {why}")
    if "false_proof" in result.stats:
        caught = result.stats["false_proof"]
        print(
            f"false proof caught: {result.method} claimed {caught['claimed']!r}, "
            f"{caught['caught_by']} found {caught['makespan']!r}"
        )
    print(f"seconds     {result.seconds:.3f}")
    print()
    print(gantt(problem, result.schedule))
    return EXIT_OK


def check_distinct(*outputs: tuple[str, str | None]) -> None:
    """Refuse two outputs (or an output and the study database) at one path, before
    any work: one would replace the other (a report written over a new database, a
    report and its plots in one folder; outside audits).

    Examples
    --------
    >>> check_distinct(("--report", "a.md"), ("--output", "./a.md"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: --output ./a.md: is also --report a.md; one would ...
    """
    from exactsched._output import is_device, writes_stdout

    seen: dict[str, tuple[str, str]] = {}
    for option, path in outputs:
        if not path or path == ":memory:" or writes_stdout(path) or is_device(path):
            continue
        key = os.path.realpath(path)
        if key in seen:
            first, where = seen[key]
            raise MethodError(
                f"{option} {path}: is also {first} {where}; one would replace the other"
            )
        seen[key] = (option, path)


def check_output(
    path: str | None, option: str, folder: bool = False, keep: Sequence[str | None] = ()
) -> None:
    """Refuse an output path that cannot be written, before any work.

    ``option`` names the argument in the message (``--output``, ``--report``);
    ``folder`` says the path is a folder to create or fill (``--plots``);
    ``keep`` are inputs the output must not overwrite (the study database);
    the files the running command reads (its instance, schedule, mapping,
    platform, database) are kept always.
    A named pipe is written when the result is ready, and refused then if no
    process reads it (:func:`exactsched._output.atomic_write`). None (the
    option not given) passes.

    Examples
    --------
    >>> check_output("", "--report")
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: --report: empty path
    """
    if path is None:
        return
    if not path.strip():
        raise MethodError(f"{option}: empty path")
    parent = os.path.dirname(os.path.abspath(path))
    if folder:
        if os.path.exists(path) and not os.path.isdir(path):
            raise MethodError(f"{option} {path}: exists and is not a folder")
        if os.path.isdir(path):
            if not os.access(path, os.W_OK):
                raise MethodError(f"{option} {path}: folder is not writable")
            _probe_write(path, option, folder)
            return
    elif os.path.isdir(path):
        raise MethodError(f"{option} {path}: is a folder")
    if not os.path.isdir(parent):
        what = "is a file, not a folder" if os.path.exists(parent) else "does not exist"
        raise MethodError(f"{option} {path}: folder {parent} {what}")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise MethodError(f"{option} {path}: file is not writable")
        for other in (*keep, *_INPUTS.get()):
            if other and _read_by_command(path, other):
                folder = os.path.isdir(other)
                what = "an instance file in the input folder" if folder else "the input"
                raise MethodError(f"{option} {path}: is {what} {other}, it would be lost")
        if stat.S_ISSOCK(os.stat(path).st_mode):
            raise MethodError(f"{option} {path}: is a socket, not a file")
    elif not os.access(parent, os.W_OK):
        raise MethodError(f"{option} {path}: folder {parent} is not writable")
    else:
        name = os.path.basename(os.path.abspath(path))
        try:
            longest = os.pathconf(parent, "PC_NAME_MAX")
        except (OSError, ValueError):
            longest = 255
        if len(os.fsencode(name)) > longest:
            raise MethodError(f"{option}: file name too long (at most {longest} bytes)")
    _probe_write(path, option, folder)


def _probe_write(path: str, option: str, folder: bool) -> None:
    """Write to where the output will go, so a full disk fails before the work.

    The output goes where :func:`exactsched._output.atomic_write` puts it, and
    is probed there: our own standard output (``/dev/stdout``, ``/dev/fd/1``)
    is not probed; a character device (``/dev/full``, ``/dev/null``, a
    terminal) takes an empty write, which reports a full device and shows
    nothing; a named pipe is not opened (that would wait for a reader);
    anywhere else a one-byte file is made and removed in the folder of the
    real target (through symbolic links), which finds a full or read-only file
    system. A writable file in a folder where no file can be created is
    written in place, so it passes.
    """
    import tempfile

    from exactsched._output import is_device, writes_stdout

    try:
        if writes_stdout(path):
            return
        if is_device(path):
            if os.path.exists(path) and stat.S_ISCHR(os.stat(path).st_mode):
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                try:
                    os.write(fd, b"")
                finally:
                    os.close(fd)
            return
        target = os.path.realpath(path)
        where = target if folder and os.path.isdir(target) else os.path.dirname(target)
        try:
            with tempfile.NamedTemporaryFile(dir=where, prefix=".exactsched-probe-") as fh:
                fh.write(b"\n")
                fh.flush()
                os.fsync(fh.fileno())
        except PermissionError:
            if not folder and os.path.isfile(target) and os.access(target, os.W_OK):
                return  # written in place (atomic_write's fallback)
            raise
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise MethodError(f"{option} {path}: cannot write: {reason}") from None


def _check_writable(path: str) -> None:
    check_output(path, "--output")


def _write_output(path: str, document: Any) -> str | None:
    """Write the result; the reason as one line if that fails (a full disk, ...).

    The file is written whole or not at all: a failure leaves no truncated JSON.
    """
    text = dumps_json(document) + "\n"
    try:
        with atomic_write(path, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return f"--output {path}: cannot write the result: {reason} (it is printed above)"
    return None


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Send file descriptor 1 (and ``sys.stdout``) to standard error for a while.

    Solvers written in C (HiGHS, SCIP, CP-SAT) print their logs on descriptor 1;
    redirecting the descriptor keeps ``--json`` output a single JSON document.
    """
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 at all: nothing to protect
        yield
        return
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _path_load_skipped(problem: Any) -> str | None:
    """Why ``info`` has no path-load bound to show (its value is then 0)."""
    from exactsched._path_load import path_load_skipped
    from exactsched.bounds import processor_classes

    return path_load_skipped(problem, len(processor_classes(problem)))


def gantt(problem: Any, schedule: Any, width: int = 64) -> str:
    """A text Gantt chart: one line per processor, task labels in their intervals.

    Examples
    --------
    >>> from exactsched import Placement, Problem, Schedule
    >>> p = Problem.from_lists([[2, 2], [2, 2]])
    >>> s = Schedule({"t0": Placement("p0", 0, 2), "t1": Placement("p1", 0, 2)})
    >>> print(gantt(p, s, width=8))
    p0 |t0======| 0-2
    p1 |t1======| 0-2
    """
    span = schedule.makespan or 1
    lanes = schedule.by_processor()
    comm = _message_rows(schedule)
    name_width = max(len(printable(p)) for p in [*problem.proc_ids, *comm])
    lines = []
    for proc in problem.proc_ids:
        row = [" "] * width
        busy = lanes.get(proc, [])
        for task, place in busy:
            a = int(round(place.start / span * width))
            b = max(a + 1, int(round(place.finish / span * width)))
            for k in range(a, min(b, width)):
                row[k] = "="
            label = printable(task)[: max(1, b - a)]
            for k, ch in enumerate(label):
                if a + k < width:
                    row[a + k] = ch
        if busy:
            first, last = busy[0][1].start, max(pl.finish for _, pl in busy)
            spans = f" {number_text(first)}-{number_text(last)}"
        else:
            spans = " idle"
        lines.append(f"{printable(proc):<{name_width}} |{''.join(row)}|{spans}")
    for name, busy in comm.items():  # single-port and contention: one row per port or link
        row = [" "] * width
        for label, start, finish in busy:
            a = int(round(start / span * width))
            b = max(a + 1, int(round(finish / span * width)))
            for k in range(a, min(b, width)):
                row[k] = "~"
            for k, ch in enumerate(printable(label)[: max(1, b - a)]):
                if a + k < width:
                    row[a + k] = ch
        spans = f" {number_text(busy[0][1])}-{number_text(max(f for _, _, f in busy))}"
        lines.append(f"{printable(name):<{name_width}} |{''.join(row)}|{spans}")
    return "\n".join(lines)


def _message_rows(schedule: Any) -> dict[str, list[tuple[str, float, float]]]:
    """Message intervals per link (contention) or port (single-port), first start first.

    Examples
    --------
    >>> from exactsched import Placement, Problem, Schedule
    >>> from exactsched.messages import LinkTime, Message
    >>> p = Problem.from_lists([[1, 1], [1, 1]], [(0, 1, 2)],
    ...                        network={"communication": "contention"})
    >>> s = Schedule({"t0": Placement("p0", 0, 1), "t1": Placement("p1", 3, 4)},
    ...              [Message("t0", "t1", 1, 3, (LinkTime("p0->p1", 1, 3),))])
    >>> print(gantt(p, s, width=8))
    p0     |t0      | 0-1
    p1     |      t1| 3-4
    p0->p1 |  t0>t  | 1-3
    """
    rows: dict[str, list[tuple[str, float, float]]] = {}
    for m in getattr(schedule, "messages", ()):
        label = f"{m.src}>{m.dst}"
        if m.links:
            for h in m.links:
                if h.finish > h.start:
                    rows.setdefault(h.link, []).append((label, h.start, h.finish))
        elif m.finish > m.start and m.src in schedule and m.dst in schedule:
            for name in (f"send {schedule[m.src].processor}", f"recv {schedule[m.dst].processor}"):
                rows.setdefault(name, []).append((label, m.start, m.finish))
    for busy in rows.values():
        busy.sort(key=lambda item: (item[1], item[2]))
    return dict(sorted(rows.items(), key=lambda item: (item[1][0][1], item[0])))


# ---- methods ----------------------------------------------------------------------


def _cmd_methods(args: argparse.Namespace) -> int:
    from exactsched.registry import available_methods

    methods = available_methods()
    if args.json:
        _emit([m.to_json() for m in methods])
        return EXIT_OK
    width = max(len(m.name) for m in methods)
    for m in methods:
        print(f"{m.name:<{width}}  {m.kind:<9}  {m.description}")
        print(f"{'':<{width}}  {'':<9}  source: {m.source}")
        if m.assumes_identical_processors:
            print(
                f"{'':<{width}}  {'':<9}  assumes identical processors: picks processors"
                " as if all were alike (see docs/heuristics.md)"
            )
    return EXIT_OK


_COMMANDS = {
    "info": _cmd_info,
    "validate": _cmd_validate,
    "solve": _cmd_solve,
    "methods": _cmd_methods,
}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
