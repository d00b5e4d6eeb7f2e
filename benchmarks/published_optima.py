"""Check an exact method against published optimal makespans.

Runs the exact method (default ``cpsat``) on

* every graph of the Standard Task Graph set (Tobita and Kasahara) with a
  published result for 2, 4, 8 and 16 processors: on a proven row the method
  must return exactly the optimum (and prove it, within the time limit); on an
  open row (best known ``LB``, ``UB``) its schedule must not beat ``LB`` and its
  proven bound must not exceed ``UB``;
* Sinnen's DOT graphs with communication on 1, 2 and 4 processors, against
  ``sinnen-dot/OPTIMA.txt``.

Every schedule is validated. A summary table per group is printed, then every
mismatch; the exit status is 1 when there is a mismatch or an error.

Data layout of ``--data DIR`` (default ``benchmarks/data``, the whole published
STG set copied into the repository; ``tests/data`` holds a 36-row sample):
``DIR/stg/<N>/randXXXX.stg`` with ``DIR/stg/optimal/*.csv`` (the full set) or
``DIR/stg/optima.csv`` (the sample); ``DIR/sinnen-dot/*.dot`` with
``OPTIMA.txt`` (taken from ``tests/data/sinnen-dot`` when ``DIR`` has none).

Examples::

    python3 benchmarks/published_optima.py --data tests/data --time-limit 10
    python3 benchmarks/published_optima.py --sizes 50 --processors 2,4 --limit 20
    python3 benchmarks/published_optima.py --method milp --only dot
    python3 benchmarks/published_optima.py -o hint=false   # pass a method option
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import exactsched
from exactsched import Problem, Status, validate
from exactsched.registry import parse_option
from exactsched.workloads import read_dot, read_dot_optima, read_stg, read_stg_optima

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "data"


@dataclass
class Row:
    """One solved instance and its verdict."""

    group: str
    instance: str
    processors: int
    published: str  # "OPT" or "LB..UB"
    status: str
    makespan: float | None
    lower_bound: float | None
    seconds: float
    verdict: str  # reproduced, unproven, within, above-ub, mismatch, error
    note: str = ""


def default_data() -> Path:
    """The whole published set, copied into the repository (``benchmarks/data``)."""
    return ROOT / "benchmarks" / "data"


def stg_rows(data: Path, sizes: set[int], processors: set[int]) -> list[Any]:
    folder = data / "stg" / "optimal"
    files = sorted(folder.glob("*.csv")) if folder.is_dir() else [data / "stg" / "optima.csv"]
    rows = [r for f in files if f.is_file() for r in read_stg_optima(f)]
    rows = [r for r in rows if r.n_processors in processors and int(r.file.split("/")[0]) in sizes]
    return sorted(rows, key=lambda r: (int(r.file.split("/")[0]), r.n_processors, r.file))


def dot_rows(data: Path, processors: set[int]) -> list[tuple[Path, int, int]]:
    folder = data / "sinnen-dot"
    if not folder.is_dir():  # benchmarks/data: the graphs are the tests' (all five)
        folder = SAMPLE / "sinnen-dot"
    table_path = folder / "OPTIMA.txt"
    if not table_path.is_file():
        table_path = SAMPLE / "sinnen-dot" / "OPTIMA.txt"
    table = read_dot_optima(table_path)
    rows = []
    for path in sorted(folder.glob("*.dot"), key=lambda p: (len(p.name), p.name)):
        for p in sorted(processors):
            if (path.name, p) in table:
                rows.append((path, p, table[(path.name, p)]))
    return rows


def run(problem: Problem, method: str, args: argparse.Namespace) -> tuple[Any, float, str]:
    started = time.perf_counter()
    try:
        result = exactsched.solve(
            problem,
            method,
            time_limit=args.time_limit,
            workers=args.workers,
            seed=args.seed,
            **args.options,
        )
    except Exception as exc:  # reported as a row with verdict "error"
        return None, time.perf_counter() - started, f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - started
    if result.schedule is not None:
        violations = validate(problem, result.schedule)
        if violations:
            return result, seconds, f"invalid schedule: {violations[0]}"
    return result, seconds, ""


def judge_proven(result: Any, optimum: int) -> tuple[str, str]:
    if result.makespan is None:
        return "unproven", "no schedule"
    if result.makespan < optimum - 1e-6:
        return "mismatch", f"schedule {result.makespan} beats the published optimum {optimum}"
    if result.lower_bound is not None and result.lower_bound > optimum + 1e-6:
        return "mismatch", f"proven bound {result.lower_bound} exceeds the optimum {optimum}"
    if result.status is Status.OPTIMAL:
        if abs(result.makespan - optimum) > 1e-6:
            return "mismatch", f"claimed optimal {result.makespan} != published {optimum}"
        return "reproduced", ""
    return "unproven", f"gap [{result.lower_bound}, {result.makespan}]"


def judge_open(result: Any, lower: int, upper: int) -> tuple[str, str]:
    if result.makespan is None:
        return "unproven", "no schedule"
    if result.makespan < lower - 1e-6:
        return "mismatch", f"schedule {result.makespan} beats the published lower bound {lower}"
    if result.lower_bound is not None and result.lower_bound > upper + 1e-6:
        return "mismatch", f"proven bound {result.lower_bound} exceeds the known schedule {upper}"
    note = "closed: proven optimal" if result.status is Status.OPTIMAL else ""
    if result.makespan < upper - 1e-6:
        note = (note + "; " if note else "") + f"improves UB {upper} -> {result.makespan}"
    return ("within" if result.makespan <= upper + 1e-6 else "above-ub"), note


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="data folder (see module doc)")
    parser.add_argument("--method", default="cpsat", help="exact method (default cpsat)")
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds per instance")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "-o", "--option", action="append", default=[], help="method option key=value (repeat)"
    )
    parser.add_argument("--sizes", default="50,100", help="STG sizes (default 50,100)")
    parser.add_argument("--processors", default="2,4,8,16", help="STG processor counts")
    parser.add_argument("--dot-processors", default="1,2,4", help="DOT processor counts")
    parser.add_argument("--only", choices=("all", "stg", "dot"), default="all")
    parser.add_argument("--limit", type=int, default=None, help="at most this many rows per group")
    parser.add_argument("--json", type=Path, default=None, help="write every row to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per instance")
    args = parser.parse_args(argv)
    data = args.data or default_data()
    args.options = dict(parse_option(text) for text in args.option)
    exactsched.get_method(args.method)  # fail early on an unknown method
    print(
        f"data: {data}   method: {args.method} {args.options or ''}  "
        f"time limit: {args.time_limit} s   workers: {args.workers}   seed: {args.seed}"
    )

    results: list[Row] = []
    per_group: dict[str, int] = defaultdict(int)

    def record(row: Row) -> None:
        results.append(row)
        if args.verbose:
            print(
                f"  {row.group:10s} {row.instance:28s} P={row.processors:<3d} "
                f"pub={row.published:9s} got={row.makespan} lb={row.lower_bound} "
                f"{row.status:9s} {row.seconds:7.2f}s {row.verdict} {row.note}",
                flush=True,
            )

    if args.only in ("all", "stg"):
        sizes = {int(s) for s in args.sizes.split(",")}
        procs = {int(p) for p in args.processors.split(",")}
        for opt in stg_rows(data, sizes, procs):
            group = f"stg-{opt.file.split('/')[0]} P={opt.n_processors}"
            if args.limit is not None and per_group[group] >= args.limit:
                continue
            per_group[group] += 1
            problem = read_stg(data / "stg" / opt.file, opt.n_processors)
            result, seconds, error = run(problem, args.method, args)
            published = str(opt.bound) if opt.proven else f"{opt.lower}..{opt.upper}"
            if error or result is None:
                verdict, note = "error", error
            elif opt.proven:
                verdict, note = judge_proven(result, opt.lower)
            else:
                verdict, note = judge_open(result, opt.lower, opt.upper)
            record(
                Row(
                    group,
                    opt.file,
                    opt.n_processors,
                    published,
                    str(result.status) if result else "-",
                    result.makespan if result else None,
                    result.lower_bound if result else None,
                    seconds,
                    verdict,
                    note,
                )
            )
    if args.only in ("all", "dot"):
        procs = {int(p) for p in args.dot_processors.split(",")}
        for path, n_procs, optimum in dot_rows(data, procs):
            group = f"dot P={n_procs}"
            if args.limit is not None and per_group[group] >= args.limit:
                continue
            per_group[group] += 1
            problem = read_dot(path, n_procs)
            result, seconds, error = run(problem, args.method, args)
            if error or result is None:
                verdict, note = "error", error
            else:
                verdict, note = judge_proven(result, optimum)
            record(
                Row(
                    group,
                    path.name,
                    n_procs,
                    str(optimum),
                    str(result.status) if result else "-",
                    result.makespan if result else None,
                    result.lower_bound if result else None,
                    seconds,
                    verdict,
                    note,
                )
            )

    print_summary(results)
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")
    return 1 if any(r.verdict in ("mismatch", "error") for r in results) else 0


def print_summary(rows: list[Row]) -> None:
    verdicts = ("reproduced", "unproven", "within", "above-ub", "mismatch", "error")
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[row.group].append(row)
    header = f"{'group':14s} {'rows':>5s} " + " ".join(f"{v:>10s}" for v in verdicts)
    header += f" {'total s':>9s} {'max s':>7s}"
    print()
    print(header)
    print("-" * len(header))
    for name, members in list(groups.items()) + [("TOTAL", rows)]:
        counts = [sum(r.verdict == v for r in members) for v in verdicts]
        total = sum(r.seconds for r in members)
        longest = max((r.seconds for r in members), default=0.0)
        print(
            f"{name:14s} {len(members):5d} "
            + " ".join(f"{c:10d}" for c in counts)
            + f" {total:9.1f} {longest:7.2f}"
        )
    bad = [r for r in rows if r.verdict in ("mismatch", "error")]
    print(f"\nmismatches and errors: {len(bad)}")
    for r in bad:
        print(
            f"  {r.group}: {r.instance} P={r.processors} published {r.published}: "
            f"{r.verdict}: {r.note}"
        )
    notes = [r for r in rows if r.verdict in ("within", "above-ub") and r.note]
    for r in notes:
        print(f"  open row {r.instance} P={r.processors} ({r.published}): {r.note}")


if __name__ == "__main__":
    sys.exit(main())
