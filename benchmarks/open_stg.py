"""Benchmark: the open rows of the published STG results, solved and certified.

Each row of ``benchmarks/data/stg-open/open.csv`` (84 rows: a published lower
and upper bound, no proven optimum; 50 and 100 tasks on 2, 4 and 8 identical
processors without communication) is solved with ``cpsat`` (``--time-limit``,
default 60 s, ``--workers``, default 2), and every proven optimum is certified
with the default policy of :func:`models.certify.apply_policy` (on this kind of
instance: any size, within ``max(2 s, solve time)``; the witness is the
time-indexed model of :mod:`models._refute_cumulative`, which shares no search
and no formulation with the cumulative model of the proof).

It prints one markdown row per instance (published bounds, makespan, bound,
status, certified, seconds, what changed) and a summary: proven optima (and
how many certified), improved upper bounds (makespan below the published
upper bound), improved lower bounds (proven bound above the published lower
bound), and contradictions (a valid schedule below the published lower bound,
or a proven bound above the published upper bound), by size band.

Every proven optimum and every improved upper bound is stored under
``--store`` (default ``benchmarks/results/stg-open/``) as an
``exactsched/schedule@1`` document named ``N-randXXXX-P.json``, with the row's
published bounds, the bound proven here and the certification; existing files
are only replaced by a shorter schedule or a proof. ``tests/test_open_stg_results.py``
validates each stored schedule against its instance.

Examples
--------
``python benchmarks/open_stg.py`` (the whole run: about 84 x (up to 60 s + certification))
``python benchmarks/open_stg.py --limit 5 --time-limit 10 --no-store``
``python benchmarks/open_stg.py --rows 100/rand0156 50/rand0114:8``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from exactsched import solve, validate
from exactsched.workloads import read_stg, read_stg_optima
from models.certify import apply_policy, engine_view

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data" / "stg-open"  # open.csv
GRAPHS = ROOT / "benchmarks" / "data" / "stg"  # the task graphs it names
STORE = ROOT / "benchmarks" / "results" / "stg-open"

__all__ = ["open_rows", "run_row", "store_schedule", "main", "DATA", "GRAPHS", "STORE"]


def open_rows(data: Path = DATA) -> list[Any]:
    """The open rows (``StgOptimum`` with ``bound = (LB, UB)``), in file order."""
    return [r for r in read_stg_optima(data / "open.csv") if not r.proven]


def stored_name(row: Any) -> str:
    """``N-randXXXX-P.json`` for the row ``N/randXXXX.stg`` on ``P`` processors."""
    size, graph = row.file.split("/")
    return f"{size}-{graph.removesuffix('.stg')}-{row.n_processors}.json"


def run_row(row: Any, *, time_limit: float, workers: int, seed: int, data: Path = GRAPHS) -> dict:
    """Solve one row, certify a proven optimum; the figures of its table line."""
    problem = read_stg(data / row.file, row.n_processors)
    started = time.perf_counter()
    result = engine_view(  # the engine's claim, certified below
        solve(problem, "cpsat", time_limit, workers=workers, seed=seed, certify=False)
    )
    solved = time.perf_counter() - started
    certified = None
    certify_seconds = None
    if result.status.value == "optimal":
        began = time.perf_counter()
        result = apply_policy(problem, result, None, seed=seed, workers=workers)
        certify_seconds = time.perf_counter() - began
        certified = result.certified
    makespan, bound = result.makespan, result.lower_bound
    assert validate(problem, result.schedule) == [], row  # the referee, independent of cpsat
    lower, upper = row.bound
    return {
        "row": row,
        "problem": problem,
        "result": result,
        "status": result.status.value,
        "makespan": makespan,
        "bound": bound,
        "seconds": solved,
        "certified": certified,
        "certified_by": ",".join(result.certified_by or ()),
        "certify_seconds": certify_seconds,
        "improved_ub": makespan < upper,
        "improved_lb": bound > lower,
        "contradiction": makespan < lower or bound > upper,
    }


def store_schedule(line: dict, folder: Path = STORE) -> Path | None:
    """Write the row's schedule if it is an optimum or beats the published upper bound.

    An existing file is kept unless the new line is better: a shorter schedule,
    else proven where the stored one is not, else certified, else a higher bound.
    """
    result, row = line["result"], line["row"]
    if not (line["status"] == "optimal" or line["improved_ub"]):
        return None
    path = folder / stored_name(row)
    if path.is_file():
        old = json.loads(path.read_text())

        def rank(makespan: float, status: str, certified: Any, bound: float) -> tuple:
            return (-makespan, status == "optimal", bool(certified), bound)

        new = rank(line["makespan"], line["status"], line["certified"], line["bound"])
        if new <= rank(old["makespan"], old["status"], old["certified"], old["lower_bound"]):
            return None
    folder.mkdir(parents=True, exist_ok=True)
    doc = result.schedule.to_json(
        instance=row.file,
        processors=row.n_processors,
        published={"lower": row.bound[0], "upper": row.bound[1]},
        status=line["status"],
        lower_bound=line["bound"],
        certified=line["certified"],
        certified_by=line["certified_by"] or None,
        method="cpsat",
        time_limit=line.get("time_limit"),
    )
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


def certify_stored(
    row: Any, budget: float, folder: Path = STORE, seed: int = 0, workers: int = 1
) -> dict | None:
    """Certify a stored, still uncertified optimum with ``budget`` seconds; update its file.

    The claim is the stored schedule, proven by ``cpsat`` (a cumulative model),
    so the witness is the time-indexed one (:func:`models._refute_cumulative.witness_for`).
    """
    from exactsched import Schedule
    from exactsched.result import Result, Status
    from models.certify import certify

    path = folder / stored_name(row)
    if not path.is_file():
        return None
    doc = json.loads(path.read_text())
    if doc["status"] != "optimal" or doc["certified"]:
        return None
    problem = read_stg(GRAPHS / row.file, row.n_processors)
    schedule = Schedule.from_json(doc)
    claim = Result(
        "cpsat",
        Status.OPTIMAL,
        schedule,
        schedule.makespan,
        schedule.makespan,
        0.0,
        {"pooled": [row.n_processors]},
    )
    began = time.perf_counter()
    checked = certify(problem, claim, time_limit=budget, seed=seed, workers=workers)
    seconds = time.perf_counter() - began
    if checked.stats.get("false_proof"):  # a witness found a shorter schedule
        stale = ("format", "makespan", "tasks", "lower_bound", "gap", "certified_by")
        doc = checked.schedule.to_json(**{k: v for k, v in doc.items() if k not in stale})
        doc.update(
            status="feasible",
            lower_bound=checked.lower_bound,  # the old one was the refuted claim
            certified=False,
            false_proof=checked.stats["false_proof"],
        )
    else:
        doc.update(
            certified=checked.certified,
            certified_by=",".join(checked.certified_by) or None,
            certify_seconds=round(seconds, 2),
        )
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return {"certified": checked.certified, "seconds": seconds, "status": checked.status.value}


def _selects(selector: str, row: Any) -> bool:
    """``FILE`` (a substring of the row's file) or ``FILE:P``."""
    name, _, procs = selector.partition(":")
    return name in row.file and (not procs or int(procs) == row.n_processors)


def _band(n_tasks: int) -> str:
    return "<= 30" if n_tasks <= 30 else ("31-60" if n_tasks <= 60 else "61-100")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None, help="only the first N rows")
    parser.add_argument(
        "--rows", nargs="+", default=None, help="only these rows: FILE substring or FILE:P"
    )
    parser.add_argument("--processors", type=int, nargs="+", default=None)
    parser.add_argument("--store", type=Path, default=STORE)
    parser.add_argument("--no-store", action="store_true")
    parser.add_argument(
        "--certify-stored",
        type=float,
        default=None,
        metavar="SECONDS",
        help="only certify the stored, uncertified optima of the rows with this budget",
    )
    args = parser.parse_args(argv)
    rows = open_rows()
    if args.rows:
        for selector in args.rows:
            _, _, procs = selector.partition(":")
            if procs and not procs.isdigit():
                parser.error(f"--rows {selector}: P after ':' must be a processor count")
            if not any(_selects(selector, r) for r in rows):
                parser.error(f"--rows {selector}: matches none of the {len(rows)} open rows")
        rows = [r for r in rows if any(_selects(s, r) for s in args.rows)]
    if args.processors:
        rows = [r for r in rows if r.n_processors in args.processors]
    if args.limit is not None:
        rows = rows[: args.limit]
    if args.certify_stored is not None:
        print("| instance | P | certified | s |\n|---|---|---|---|")
        for row in rows:
            done = certify_stored(row, args.certify_stored, args.store, args.seed, args.workers)
            if done is not None:
                print(
                    f"| {row.file} | {row.n_processors} | {done['certified']} "
                    f"| {done['seconds']:.1f} |",
                    flush=True,
                )
        return 0
    print(
        f"{len(rows)} open rows, cpsat, {args.time_limit:g} s, {args.workers} workers, "
        f"seed {args.seed}; certification: default policy (max(2 s, solve time))\n"
    )
    print(
        "| instance | P | published | makespan | bound | status | certified | s "
        "| certify s | change |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    lines = []
    for row in rows:
        line = run_row(row, time_limit=args.time_limit, workers=args.workers, seed=args.seed)
        line["time_limit"] = args.time_limit
        lines.append(line)
        flags = (("UB", "improved_ub"), ("LB", "improved_lb"), ("CONTRADICTION", "contradiction"))
        change = [name for name, key in flags if line[key]]
        cert = "" if line["certified"] is None else ("yes" if line["certified"] else "no")
        cs = "" if line["certify_seconds"] is None else f"{line['certify_seconds']:.2f}"
        print(
            f"| {row.file} | {row.n_processors} | {row.bound[0]}-{row.bound[1]} "
            f"| {line['makespan']} | {line['bound']} | {line['status']} | {cert} "
            f"| {line['seconds']:.1f} | {cs} "
            f"| {' '.join(change)} |",
            flush=True,
        )
        if not args.no_store:
            store_schedule(line, args.store)
    print(
        "\n| tasks | rows | proven optimal | certified | improved UB | improved LB "
        "| contradictions | median s to proof |"
    )
    print("|---|---|---|---|---|---|---|---|")
    bands: dict[str, list[dict]] = {}
    for line in lines:
        bands.setdefault(_band(line["problem"].n_tasks), []).append(line)
    bands["all"] = lines
    for band, group in bands.items():
        proven = [g for g in group if g["status"] == "optimal"]
        times = [g["seconds"] for g in proven]
        median = f"{statistics.median(times):.1f}" if times else "-"
        certified = sum(bool(g["certified"]) for g in proven)
        print(
            f"| {band} | {len(group)} | {len(proven)} | {certified} "
            f"| {sum(g['improved_ub'] for g in group)} | {sum(g['improved_lb'] for g in group)} "
            f"| {sum(g['contradiction'] for g in group)} | {median} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
