"""``exactsched orderings``: count, cost and search the task orderings of an instance (Kong).

Examples::

    exactsched orderings examples/topcuoglu2002.json --count --json
    exactsched orderings examples/topcuoglu2002.json --count --best makespan --engine isl
    exactsched orderings examples/topcuoglu2002.json --best makespan
    exactsched orderings INSTANCE --best network --mapping heft.json --limit 1000000
    exactsched orderings INSTANCE --best makespan --search --time-limit 60
    exactsched orderings INSTANCE --best network --promote-isolation promoted.json
    exactsched orderings INSTANCE --isl position

See :mod:`models.orderings` and ``docs/orderings.md``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from exactsched._output import atomic_write, json_number, listed, printable
from exactsched.cli import check_output, dumps_json, emit_json, seconds_arg

__all__ = ["add_parsers"]

DEFAULT_LIMIT = 10_000_000


def add_parsers(sub: Any) -> dict[str, Any]:
    """Add the ``orderings`` sub-command to ``sub``; return its handler."""
    p = sub.add_parser(
        "orderings",
        help="count, cost and search task orderings (Kong's network-aware orderings)",
        description=(
            "Count the legal task orderings of an instance (Kong's tables), find the best "
            "one for the network path cost or the list-schedule makespan, and promote "
            "isolation pairs to order pairs in its direction."
        ),
    )
    p.add_argument("instance", help="instance JSON file")
    p.add_argument(
        "--count",
        action="store_true",
        help="print the counts (with --best: the counts and the best ordering)",
    )
    p.add_argument(
        "--engine",
        choices=("dp", "isl"),
        default=None,
        help="count and enumerate by dynamic programming over down-sets (dp, default, "
        "fast) or through the islpy set of the position encoding (isl, slow: a cross-check); "
        "not with --search alone, which neither counts nor enumerates",
    )
    p.add_argument(
        "--best",
        choices=("network", "makespan"),
        help="find the best ordering: network path cost, or list-schedule makespan",
    )
    p.add_argument(
        "--mapping",
        metavar="SCHEDULE",
        help="schedule file whose processors map the tasks (network cost; fixed makespan); "
        "needs --best",
    )
    p.add_argument(
        "--weight",
        choices=("hops", "data"),
        default=None,
        help="with --best network: every consecutive pair weighs 1 (hops, default) or its "
        "arc's delay (data)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        help=f"refuse to enumerate more legal orderings (default {DEFAULT_LIMIT}); only with "
        "--best without --search, the one mode that enumerates",
    )
    p.add_argument(
        "--search",
        action="store_true",
        help="--best makespan by branch and bound over prefixes instead of enumeration",
    )
    p.add_argument(
        "--time-limit",
        type=seconds_arg,
        default=60.0,
        help="seconds for counting and --search (default 60)",
    )
    p.add_argument(
        "--cpsat-bound",
        type=seconds_arg,
        default=None,
        metavar="SECONDS",
        help="--search: first run CP-SAT this long and use its lower bound (default off; "
        "refused without --search)",
    )
    p.add_argument(
        "--promote-isolation",
        metavar="OUT",
        help="write the instance with isolation pairs turned into order pairs (needs --best)",
    )
    p.add_argument(
        "--isl", choices=("position", "kong"), help="print the ordering space as an isl set"
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")
    return {"orderings": _cmd_orderings}


def _cmd_orderings(args: argparse.Namespace) -> int:
    from exactsched.errors import MethodError
    from exactsched.instance import load_instance
    from models import orderings as mo

    problem = load_instance(args.instance)
    if args.limit is not None and args.limit < 0:
        raise MethodError("--limit: must be >= 0")
    check_output(args.promote_isolation, "--promote-isolation")
    if args.promote_isolation and not args.best:
        raise MethodError("--promote-isolation: needs --best network or --best makespan")
    if args.search and args.best != "makespan":
        raise MethodError("--search: only with --best makespan")
    # Options that only --search or --best read: refused rather than silently ignored.
    if args.cpsat_bound is not None and not args.search:
        raise MethodError("--cpsat-bound: needs --search (with --best makespan)")
    if args.mapping is not None and not args.best:
        raise MethodError("--mapping: needs --best network or --best makespan")
    if args.weight is not None and args.best != "network":
        raise MethodError("--weight: only with --best network (the network cost it weighs)")
    if args.engine is not None and args.search and not args.count:
        raise MethodError("--engine: --search neither counts nor enumerates; add --count")
    if args.limit is not None and (not args.best or args.search):
        raise MethodError("--limit: needs --best without --search (the only mode that enumerates)")
    if args.best == "makespan":
        mo.require_delay_model(problem)  # before a count, a --limit hint or a CP-SAT run
    args.limit = DEFAULT_LIMIT if args.limit is None else args.limit
    args.weight = args.weight or "hops"
    args.engine = args.engine or "dp"
    if args.isl and not args.json:
        print(mo.isl_text(problem, args.isl))
        if not (args.count or args.best):
            return 0
    started = time.monotonic()
    doc: dict[str, Any] = {"instance": args.instance, "tasks": problem.n_tasks}
    # Count when asked, when nothing else is, and before enumerating (--limit needs the
    # count); the branch and bound of --search needs none.
    if args.count or not args.best or not args.search:
        counts = mo.ordering_counts(problem, time_limit=args.time_limit, engine=args.engine)
        doc.update(counts)
        doc["engine"] = args.engine
    if args.isl and args.json:
        doc["isl"] = mo.isl_text(problem, args.isl)  # keep standard output one JSON document
    if args.best:
        mapping = None
        if args.mapping:
            from exactsched.schedule import load_schedule

            mapping = load_schedule(args.mapping)
        if args.search:
            best = mo.best_priority_list(
                problem,
                mapping=mapping,
                time_limit=max(0.0, args.time_limit - (time.monotonic() - started)),
                exact_time_limit=args.cpsat_bound or None,
            )
        else:
            if doc["legal"] > args.limit:
                seconds = mo.estimate_seconds(doc["legal"], problem.n_tasks, args.best)
                hint = " or use --search" if args.best == "makespan" else ""
                raise MethodError(
                    f"orderings: {doc['legal']} legal orderings, over --limit {args.limit}; "
                    f"enumerating and costing them could take up to about {seconds:.3g} s"
                    f"; raise --limit{hint}"
                )
            best = mo.best_ordering(
                problem, args.best, mapping=mapping, weight=args.weight, engine=args.engine
            )
        doc["best"] = {
            "objective": best.objective,
            "engine": "search" if args.search else args.engine,
            "order": list(best.order),
            "cost": json_number(best.cost),
            "proven": best.proven,
            "lower_bound": json_number(best.lower_bound),
            "evaluated": best.count,
            "ties": best.ties,
            "seconds": round(best.seconds, 3),
        }
        if best.stopped is not None:
            doc["best"]["stopped"] = best.stopped
        if args.best == "network":
            doc["best"]["weight"] = args.weight
        if args.promote_isolation:
            # Network orderings are execution paths: direct by position. A makespan
            # ordering is a priority list: direct by the start times of its schedule.
            source: Any = best.indices
            if args.best == "makespan":
                source = mo.ordering_schedule(problem, best.indices, mapping=mapping)
            promoted = mo.promote_isolation(problem, source)
            _write_json(args.promote_isolation, promoted)
            doc["promoted"] = args.promote_isolation
            if args.best == "makespan":
                # A zero-length task inside its partner's interval is isolated (an empty
                # interval overlaps nothing) but no order pair keeps it there.
                from exactsched.instance import parse_instance
                from exactsched.validate import validate

                lost = validate(parse_instance(promoted), source)
                doc["promoted_keeps_schedule"] = not lost
                if lost:
                    doc["promoted_loses"] = lost[0]
    if args.json:
        emit_json(doc)
        return 0
    print(f"{printable(problem.name or args.instance)}: {problem.n_tasks} tasks")
    if "legal" in doc:
        for key, label in (
            ("complete", "complete (T^T)"),
            ("factorial", "factorial (T!)"),
            ("semi_legal", "semi-legal"),
            ("legal", f"legal ({doc['engine']})"),
        ):
            print(f"  {label:<16} {doc[key]:>24,}")
    if "best" in doc:
        b = doc["best"]
        status = "proven" if b["proven"] else f"not proven, lower bound {b['lower_bound']}"
        if "stopped" in b:
            status += f", stopped: {b['stopped']}"
        print(f"best {b['objective']}: {b['cost']} ({status}; {b['evaluated']:,} evaluated)")
        print("  " + " ".join(listed(t) for t in b["order"]))
        if b["ties"] > 1:
            print(f"  {b['ties']:,} orderings share this cost; the lexicographically first")
        if "promoted" in doc:
            print(f"isolation promoted to order pairs: {printable(doc['promoted'])}")
            if doc.get("promoted_keeps_schedule") is False:
                print(
                    "  the best schedule is not one of the promoted instance (a zero-length "
                    "task lies inside its isolation partner; no order pair keeps it there), "
                    "so its optimum may be larger: " + printable(doc["promoted_loses"])
                )
    return 0


def _write_json(path: str, document: Any) -> None:
    from exactsched.errors import MethodError

    try:
        with atomic_write(path, "w", encoding="utf-8") as fh:
            fh.write(dumps_json(document) + "\n")
    except OSError as exc:
        raise MethodError(
            f"--promote-isolation {path}: cannot write: {exc.strerror or exc}"
        ) from None
