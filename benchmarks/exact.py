"""Benchmark of the exact methods: share proven optimal, time to proof, final gap.

For every instance family and method it prints one markdown row: instances,
share proven optimal within the time limit, median seconds to proof (over the
proven ones), mean and largest final gap (:attr:`exactsched.Result.gap`,
``(makespan - bound) / bound``; a run without a schedule counts as 100 %), and for
CP-SAT the median time to the first schedule.

Families
--------
``random``
    :func:`exactsched.generators.random_instance` with ``--sizes`` tasks on
    ``--processors`` processors (instance ``k`` uses ``processors[k % len]``)
    over ``--topologies``, ``--seeds`` seeds each.
``large``
    Random DAGs of 60 to 100 tasks on 8 or 16 processors over every topology
    (the CP-SAT target: at least 75 % proven, every gap within 10 %).
``probe``
    Four large random instances and the two Cholesky ones: the set on which each
    speed feature is switched off in turn (``docs/exact-models.md``).
``cholesky``
    Tiled Cholesky, N = 6 on ``hoft-multi-gpu`` (28 CPUs + 4 GPUs) and N = 8 on
    ``hoft-single-gpu`` (7 CPUs + 1 GPU), from :mod:`exactsched.workloads`.

Methods
-------
``cpsat``: the default model; ``cpsat-plain``: the straightforward model
(``models.cpsat.STRAIGHTFORWARD``: no hint, horizon = sum of costs, no bounds,
no load or path cuts, no symmetry breaking, no pooling, pairwise communication);
``cpsat:key=value,...``: CP-SAT with options (one feature switched, e.g.
``cpsat:symmetry=False``); ``milp``: the MILP model when registered (else
skipped with a note).

Certification (:mod:`models.certify`): ``--certify default`` (the policy of
``exactsched.solve``), ``on`` (every optimum, within the time limit) or
``off``. Each method is first run without certification; the certification of
its optimum is then timed separately, and the table reports the share of
proven optima certified, the median certification time and its median ratio
to the solve time (``python benchmarks/exact.py --methods cpsat --certify on``
gives the measurement behind the default policy). A false proof caught counts
as not proven.

Examples
--------
``python benchmarks/exact.py --sizes 10 20 --time-limit 10 --seeds 3``
``python benchmarks/exact.py --family large --time-limit 60 --seeds 1``
``python benchmarks/exact.py --family cholesky --methods cpsat cpsat-plain``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from typing import Any

from exactsched import Problem, get_method, solve
from exactsched.errors import MethodError
from exactsched.generators import TOPOLOGIES, random_instance
from exactsched.registry import parse_option

__all__ = ["instances", "run", "summarise", "main"]


_POW2 = ("hypercube", "fat-tree")

#: The small, varied set used to measure each speed feature (family "probe").
PROBE = (
    (80, 8, "fully-connected"),
    (100, 16, "mesh"),
    (70, 12, "matrix"),
    (90, 16, "accelerated-node"),
)


def instances(
    family: str,
    sizes: list[int],
    processors: list[int],
    topologies: list[str],
    seeds: int,
    large_sizes: list[int] = (60, 70, 80, 90, 100),
) -> Iterator[tuple[str, str, Problem]]:
    """Yield ``(group, name, problem)`` for a family (see the module docstring)."""
    if family == "random":
        k = 0
        for n in sizes:
            for topo in topologies:
                for seed in range(seeds):
                    procs = processors[k % len(processors)]
                    k += 1
                    if topo in _POW2 and procs & (procs - 1):
                        procs = 1 << (procs.bit_length() - 1)
                    problem = random_instance(n, procs, topology=topo, seed=1000 * n + seed)
                    yield f"random n={n}", f"n{n}-P{procs}-{topo}-s{seed}", problem
    elif family == "large":
        k = 0
        for n in large_sizes:
            for topo in topologies:
                for seed in range(seeds):
                    procs = (8, 16, 12)[k % 3]
                    k += 1
                    if topo in _POW2 and procs == 12:
                        procs = 16
                    problem = random_instance(n, procs, topology=topo, seed=7000 + 10 * n + seed)
                    yield "random 60-100", f"n{n}-P{procs}-{topo}-s{seed}", problem
    elif family == "cholesky":
        from exactsched.workloads import cholesky_instance

        yield "cholesky N=6 28+4", "chol6-multi", cholesky_instance(6, "hoft-multi-gpu")
        yield "cholesky N=8 7+1", "chol8-single", cholesky_instance(8, "hoft-single-gpu")
    elif family == "probe":
        from exactsched.workloads import cholesky_instance

        for n, procs, topo in PROBE:
            problem = random_instance(n, procs, topology=topo, seed=7000 + 10 * n)
            yield "probe", f"n{n}-P{procs}-{topo}", problem
        yield "probe", "chol6-multi", cholesky_instance(6, "hoft-multi-gpu")
        yield "probe", "chol8-single", cholesky_instance(8, "hoft-single-gpu")
    else:
        raise SystemExit(f"--family: unknown {family!r} (random, large, cholesky, probe)")


def _method(spec: str) -> tuple[str, dict[str, Any]]:
    """``cpsat-plain`` and ``cpsat:key=value,...`` to a method name and options."""
    if spec == "cpsat-plain":
        from models.cpsat import STRAIGHTFORWARD

        return "cpsat", dict(STRAIGHTFORWARD)
    name, _, rest = spec.partition(":")
    options = dict(parse_option(item) for item in rest.split(",") if item)
    return name, options


def run(
    problem: Problem,
    spec: str,
    time_limit: float,
    workers: int,
    seed: int = 0,
    certify: str = "default",
) -> dict[str, Any] | None:
    """One solve, then its certification; a row of results, or None when not registered."""
    from models.certify import apply_policy, claimed_optimum, engine_view

    name, options = _method(spec)
    try:
        get_method(name)
    except MethodError:
        return None
    started = time.perf_counter()
    result = engine_view(
        solve(problem, name, time_limit, workers=workers, seed=seed, certify=False, **options)
    )
    wall = time.perf_counter() - started
    certified, certify_seconds, caught = None, None, False
    # The method's own proof: OPTIMAL, or a claim that needs a witness (milp).
    claimed = claimed_optimum(result) is not None
    if certify != "off" and claimed:
        option = None if certify == "default" else True
        started = time.perf_counter()
        checked = apply_policy(problem, result, option, time_limit=time_limit, seed=seed)
        if checked.certified is not None:
            certify_seconds = time.perf_counter() - started
            certified = checked.certified
        caught = "false_proof" in checked.stats
        result = checked
    return {
        "claimed": claimed,
        "certified": certified,
        "certify_seconds": certify_seconds,
        "certified_by": list(result.certified_by),
        "false_proof": caught,
        "status": result.status.value,
        "makespan": result.makespan,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "seconds": wall,
        "first": result.stats.get("hint_seconds", result.stats.get("first_solution_seconds")),
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Share optimal, median time to proof, mean and max gap, median first solution."""
    proven = [r["seconds"] for r in rows if r.get("claimed", r["status"] == "optimal")]
    gaps = [r["gap"] if r["gap"] is not None else 1.0 for r in rows]
    firsts = [r["first"] for r in rows if r.get("first") is not None]
    tried = [r for r in rows if r.get("certified") is not None]
    ratios = [r["certify_seconds"] / max(r["seconds"], 1e-3) for r in tried]
    return {
        "certified": sum(r["certified"] for r in tried) / len(tried) if tried else None,
        "median_certify": statistics.median(r["certify_seconds"] for r in tried)
        if tried
        else None,
        "certify_ratio": statistics.median(ratios) if ratios else None,
        "max_certify_ratio": max(ratios) if ratios else None,
        "false_proofs": sum(bool(r.get("false_proof")) for r in rows),
        "n": len(rows),
        "optimal": len(proven) / len(rows) if rows else 0.0,
        "median_proof": statistics.median(proven) if proven else None,
        "mean_gap": statistics.fmean(gaps) if gaps else None,
        "max_gap": max(gaps) if gaps else None,
        "first": statistics.median(firsts) if firsts else None,
    }


def _fmt(value: Any, pct: bool = False) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.1f}%" if pct else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; prints a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", nargs="+", default=["random"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10, 20, 30, 40, 50])
    parser.add_argument("--large-sizes", nargs="+", type=int, default=[60, 70, 80, 90, 100])
    parser.add_argument("--processors", nargs="+", type=int, default=[4, 8])
    parser.add_argument("--topologies", nargs="+", default=list(TOPOLOGIES))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--methods", nargs="+", default=["cpsat", "milp"])
    parser.add_argument(
        "--certify",
        choices=("default", "on", "off"),
        default="default",
        help="certify proven optima: the solve() policy (default), always, or never",
    )
    parser.add_argument("--json", help="write every row to this file")
    parser.add_argument("--quiet", action="store_true", help="no per-instance lines")
    args = parser.parse_args(argv)

    table: dict[tuple[str, str], list[dict[str, Any]]] = {}
    skipped: set[str] = set()
    raw = []
    for family in args.family:
        for group, name, problem in instances(
            family, args.sizes, args.processors, args.topologies, args.seeds, args.large_sizes
        ):
            for spec in args.methods:
                if spec in skipped:
                    continue
                row = run(problem, spec, args.time_limit, args.workers, certify=args.certify)
                if row is None:
                    skipped.add(spec)
                    continue
                row.update(group=group, instance=name, method=spec)
                raw.append(row)
                table.setdefault((group, spec), []).append(row)
                if not args.quiet:
                    print(
                        f"  {name:28s} {spec:24s} {row['status']:9s} {row['makespan']!s:>10} "
                        f"lb {row['lower_bound']!s:>10} gap {_fmt(row['gap'], True):>6} "
                        f"{row['seconds']:6.1f}s cert {row['certified']!s:5s} "
                        f"{_fmt(row['certify_seconds'])}s",
                        file=sys.stderr,
                        flush=True,
                    )
    print(
        f"\n{args.time_limit:g} s per instance, {args.workers} workers\n\n"
        "| instances | method | n | proven optimal | median s to proof | mean gap | max gap "
        "| median s to first | certified | median s to certify | certify / solve "
        "(median, max) | false proofs |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    for (group, spec), rows in table.items():
        s = summarise(rows)
        print(
            f"| {group} | {spec} | {s['n']} | {_fmt(s['optimal'], True)} | "
            f"{_fmt(s['median_proof'])} | {_fmt(s['mean_gap'], True)} | "
            f"{_fmt(s['max_gap'], True)} | {_fmt(s['first'])} | "
            f"{_fmt(s['certified'], True)} | {_fmt(s['median_certify'])} | "
            f"{_fmt(s['certify_ratio'])}, {_fmt(s['max_certify_ratio'])} | {s['false_proofs']} |"
        )
    by_instance: dict[str, set[float]] = {}
    for row in raw:
        if row["status"] == "optimal":
            by_instance.setdefault(row["instance"], set()).add(round(row["makespan"], 6))
    for name, values in by_instance.items():
        if len(values) > 1:
            print(f"\nWARNING: proven optima disagree on {name}: {sorted(values)}")
    for spec in sorted(skipped):
        print(f"\nNote: method {spec!r} is not registered; skipped.")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(raw, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
