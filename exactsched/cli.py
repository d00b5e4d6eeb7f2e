"""The ``exactsched`` command line.

Commands: ``info``, ``validate``, ``solve``, ``methods`` and ``compare`` here,
and those of the modules in :mod:`exactsched.commands`.
Exit status: 0 success, 1 an invalid schedule (``validate``), 2 bad input or
usage (a one-line message on standard error, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from exactsched.errors import InstanceError, InstanceWarning, MethodError, ScheduleError

__all__ = ["main", "gantt"]

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse with our one-line error style (status 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="exactsched",
        description="Optimal and heuristic schedules of task graphs on networked processors.",
    )
    from exactsched import __version__

    parser.add_argument("--version", action="version", version=f"exactsched {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    info = sub.add_parser("info", help="summarise an instance: sizes, network, CCR, bounds")
    info.add_argument("instance", help="instance JSON file (exactsched/instance@1)")
    info.add_argument("--json", action="store_true", help="print one JSON document")

    val = sub.add_parser("validate", help="check an instance, and a schedule against it")
    val.add_argument("instance", help="instance JSON file")
    val.add_argument("schedule", nargs="?", help="schedule JSON file (exactsched/schedule@1)")
    val.add_argument("--json", action="store_true", help="print one JSON document")

    solve = sub.add_parser("solve", help="schedule an instance with an exact method or heuristic")
    solve.add_argument("instance", help="instance JSON file")
    solve.add_argument("--method", "-m", default="cpsat", help="method name (default cpsat)")
    solve.add_argument("--time-limit", "-t", type=float, default=None, help="seconds (exact)")
    solve.add_argument("--workers", "-w", type=int, default=None, help="solver threads")
    solve.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    solve.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="method option, repeatable (see `exactsched methods --json`)",
    )
    solve.add_argument(
        "--certify",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="certify a proven optimum by independent refutation (default: on up to 30 tasks)",
    )
    solve.add_argument("--json", action="store_true", help="print the schedule document")
    solve.add_argument("--output", metavar="FILE", help="also write the schedule JSON to FILE")
    solve.add_argument("--quiet", "-q", action="store_true", help="no progress lines")

    methods = sub.add_parser("methods", help="list every method with its source")
    methods.add_argument("--json", action="store_true", help="print a JSON list")

    compare = sub.add_parser(
        "compare", help="run an exact method and every heuristic; report optimality gaps"
    )
    compare.add_argument("instance", help="instance JSON file")
    compare.add_argument("--exact", default="cpsat", help="exact method (default cpsat)")
    compare.add_argument("--time-limit", "-t", type=float, default=60.0, help="seconds (exact)")
    compare.add_argument("--workers", "-w", type=int, default=None, help="solver threads")
    compare.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    compare.add_argument("--methods", nargs="*", help="heuristics to run (default: all)")
    compare.add_argument("--json", action="store_true", help="print a JSON list")

    from exactsched.commands import command_modules

    for module in command_modules():
        _COMMANDS.update(module.add_parsers(sub))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InstanceWarning)
        try:
            status = _COMMANDS[args.command](args)
        except (InstanceError, ScheduleError, MethodError) as exc:
            _flush_warnings(caught)
            print(f"exactsched: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except KeyboardInterrupt:
            print("exactsched: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            # The reader went away (``exactsched ... | head``): stop quietly.
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_OK
    _flush_warnings(caught)
    return status


def _flush_warnings(caught: list[warnings.WarningMessage]) -> None:
    for w in caught:
        if issubclass(w.category, InstanceWarning):
            print(f"exactsched: warning: {w.message}", file=sys.stderr)


def _emit(document: Any) -> None:
    print(json.dumps(document, indent=2))


# ---- info -------------------------------------------------------------------------


def _cmd_info(args: argparse.Namespace) -> int:
    from exactsched.bounds import lower_bound, lower_bounds
    from exactsched.instance import load_instance
    from exactsched.metrics import minimal_serial_time

    problem = load_instance(args.instance)
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
        "diameter": _num(topology.diameter()),
        "latency": _num(problem.latency),
        "bandwidth": _num(problem.bandwidth),
        "ccr": round(problem.ccr(), 6),
        "integral": problem.is_integral,
        "minimal_serial_time": _num(mst) if mst != float("inf") else None,
        "lower_bounds": {k: _num(v) for k, v in lower_bounds(problem).items()},
        "lower_bound": _num(lower_bound(problem)),
    }
    if args.json:
        _emit(doc)
        return EXIT_OK
    print(f"instance        {problem.name or args.instance}")
    print(
        f"tasks           {doc['tasks']} ({doc['edges']} edges, {doc['order_pairs']} order "
        f"pairs, {doc['isolation_pairs']} isolation pairs, "
        f"{doc['restricted_tasks']} with affinity)"
    )
    kinds = ", ".join(f"{n} {t}" for t, n in types.items())
    print(f"processors      {doc['processors']} ({kinds})")
    print(
        f"network         {doc['topology']}, diameter {doc['diameter']} hops, "
        f"latency {doc['latency']}, bandwidth {doc['bandwidth']}"
    )
    print(f"CCR             {doc['ccr']:.4g}")
    print(f"integral data   {'yes' if doc['integral'] else 'no'}")
    print(f"min serial time {doc['minimal_serial_time']}")
    bounds = ", ".join(f"{k} {v:g}" for k, v in doc["lower_bounds"].items())
    print(f"lower bound     {doc['lower_bound']:g} (best of: {bounds})")
    return EXIT_OK


def _num(value: float) -> float | int:
    value = float(value)
    return int(value) if value.is_integer() else round(value, 9)


# ---- validate ---------------------------------------------------------------------


def _cmd_validate(args: argparse.Namespace) -> int:
    from exactsched.instance import load_instance
    from exactsched.schedule import load_schedule
    from exactsched.validate import validate

    problem = load_instance(args.instance)
    if args.schedule is None:
        if args.json:
            _emit({"instance": args.instance, "valid": True})
        else:
            print(f"{args.instance}: valid instance ({problem.n_tasks} tasks)")
        return EXIT_OK
    schedule = load_schedule(args.schedule)
    violations = validate(problem, schedule)
    if args.json:
        _emit({"valid": not violations, "makespan": schedule.makespan, "violations": violations})
    elif violations:
        print(f"{args.schedule}: invalid schedule, {len(violations)} violation(s):")
        for v in violations:
            print(f"  - {v}")
    else:
        print(f"{args.schedule}: valid schedule, makespan {schedule.makespan:g}")
    return EXIT_INVALID if violations else EXIT_OK


# ---- solve ------------------------------------------------------------------------


def _cmd_solve(args: argparse.Namespace) -> int:
    import time

    from exactsched.instance import load_instance
    from exactsched.registry import get_method, parse_option, solve

    problem = load_instance(args.instance)
    info = get_method(args.method)
    options = dict(parse_option(text) for text in args.option)
    if info.kind == "exact" and "callback" in info.options and not (args.quiet or args.json):
        started = time.perf_counter()

        def progress(makespan: float, bound: float, seconds: float | None = None) -> None:
            elapsed = time.perf_counter() - started
            print(f"  {elapsed:8.2f}s  makespan {makespan:g}  bound {bound:g}", file=sys.stderr)

        options.setdefault("callback", progress)
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
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            json.dump(document, fh, indent=2)
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
    print(f"makespan    {result.makespan:g}")
    print(f"lower bound {result.lower_bound:g}" if result.lower_bound is not None else "")
    print(f"gap         {100 * (result.gap or 0):.2f}%")
    if result.certified is not None:
        by = ", ".join(result.certified_by)
        took = result.stats.get("certify", {}).get("seconds", 0.0)
        verdict = f"yes, by {by}" if result.certified else "no (the optimum is a claim)"
        print(f"certified   {verdict} in {took:.3f} s")
    if "false_proof" in result.stats:
        caught = result.stats["false_proof"]
        print(
            f"false proof caught: {result.method} claimed {caught['claimed']:g}, "
            f"{caught['caught_by']} found {caught['makespan']:g}"
        )
    print(f"seconds     {result.seconds:.3f}")
    print()
    print(gantt(problem, result.schedule))
    return EXIT_OK


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
    name_width = max(len(p) for p in problem.proc_ids)
    lines = []
    for proc in problem.proc_ids:
        row = [" "] * width
        busy = lanes.get(proc, [])
        for task, place in busy:
            a = int(round(place.start / span * width))
            b = max(a + 1, int(round(place.finish / span * width)))
            for k in range(a, min(b, width)):
                row[k] = "="
            label = task[: max(1, b - a)]
            for k, ch in enumerate(label):
                if a + k < width:
                    row[a + k] = ch
        if busy:
            spans = f" {_num(busy[0][1].start):g}-{_num(max(pl.finish for _, pl in busy)):g}"
        else:
            spans = " idle"
        lines.append(f"{proc:<{name_width}} |{''.join(row)}|{spans}")
    return "\n".join(lines)


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
    return EXIT_OK


# ---- compare ----------------------------------------------------------------------


def _cmd_compare(args: argparse.Namespace) -> int:
    from exactsched.instance import load_instance
    from exactsched.registry import available_methods, get_method, solve

    problem = load_instance(args.instance)
    exact = solve(
        problem, args.exact, time_limit=args.time_limit, workers=args.workers, seed=args.seed
    )
    names = args.methods or [m.name for m in available_methods() if m.kind == "heuristic"]
    rows = []
    reference = exact.makespan
    for name in names:
        info = get_method(name)
        result = exact if name == args.exact else solve(problem, info.name, seed=args.seed)
        gap = None
        if reference:
            gap = (result.makespan - reference) / reference
        rows.append(
            {
                "method": name,
                "makespan": result.makespan,
                "gap_to_exact": gap,
                "seconds": round(result.seconds, 6),
            }
        )
    rows.sort(key=lambda r: (r["makespan"], r["method"]))
    summary = {
        "exact": {
            "method": args.exact,
            "status": exact.status.value,
            "makespan": exact.makespan,
            "lower_bound": exact.lower_bound,
            "gap": exact.gap,
            "seconds": round(exact.seconds, 6),
        },
        "heuristics": rows,
    }
    if args.json:
        _emit(summary)
        return EXIT_OK
    print(
        f"{args.exact}: {exact.status.value}, makespan {exact.makespan:g}, lower bound "
        f"{exact.lower_bound:g}, gap {100 * (exact.gap or 0):.2f}%, {exact.seconds:.2f}s"
    )
    print()
    print(f"{'method':<22} {'makespan':>10} {'vs exact':>9} {'seconds':>9}")
    for r in rows:
        gap_text = "" if r["gap_to_exact"] is None else f"{100 * r['gap_to_exact']:+.2f}%"
        print(f"{r['method']:<22} {r['makespan']:>10g} {gap_text:>9} {r['seconds']:>9.4f}")
    return EXIT_OK


_COMMANDS = {
    "info": _cmd_info,
    "validate": _cmd_validate,
    "solve": _cmd_solve,
    "methods": _cmd_methods,
    "compare": _cmd_compare,
}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
