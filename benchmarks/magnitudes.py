"""False claims, certification and its cost per magnitude band (issue 15).

Runs the differential sweep of tests/test_magnitude_sweep.py (random 3-6-task
instances at magnitudes 1e-9 to 1e15, values less than 1e-9 relative apart,
integer, decimal and float data) for the exact methods, with the default
certification and without it, against brute force, and prints per magnitude:

* ``false``: false ``optimal``, false ``certified`` and lower bounds above the
  optimum (must be 0);
* ``optimal`` and ``certified``: shares of the runs with the default policy;
* ``cert/solve``: certification time over solve time (median and max) of the
  runs that were certified or tried.

Usage::

    python benchmarks/magnitudes.py --instances 108 --methods cpsat milp-highs milp-scip \\
        straightforward
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path


def _sweep_module():
    path = Path(__file__).resolve().parents[1] / "tests" / "test_magnitude_sweep.py"
    spec = importlib.util.spec_from_file_location("magnitude_sweep", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=54, help="seeds 0..N-1")
    parser.add_argument("--methods", nargs="+", default=["cpsat", "milp-highs"])
    parser.add_argument("--time-limit", type=float, default=5.0)
    parser.add_argument("--magnitudes", nargs="+", type=float, help="default 1e-9 .. 1e15")
    parser.add_argument("--kinds", nargs="+", choices=("integer", "decimal", "float"))
    args = parser.parse_args()
    module = _sweep_module()
    if args.magnitudes:
        module.MAGNITUDES = tuple(args.magnitudes)
    if args.kinds:
        module.KINDS = tuple(args.kinds)
    started = time.perf_counter()
    rows = module.sweep(
        range(args.instances),
        methods=tuple(args.methods),
        certify_options=(None, False),
        magnitudes=module.MAGNITUDES,
        kinds=module.KINDS,
        time_limit=args.time_limit,
    )
    header = (
        f"{'magnitude':>9} {'runs':>5} {'false':>5} {'optimal':>8} {'certified':>9} "
        f"{'cert/solve median':>17} {'max':>7}   (default policy; false counts both policies)"
    )
    print(header)
    for magnitude in module.MAGNITUDES:
        band = [r for r in rows if r["magnitude"] == magnitude]
        if not band:
            continue
        default = [r for r in band if r["certify"] is None]
        s = module.summary(default)
        false = sum(len(r["wrong"]) for r in band)
        med = "-" if s["ratio_median"] is None else f"{s['ratio_median']:.2f}"
        top = "-" if s["ratio_max"] is None else f"{s['ratio_max']:.2f}"
        runs = max(1, s["runs"])
        print(
            f"{magnitude:>9.0e} {len(band):>5} {false:>5} {s['optimal'] / runs:>8.0%} "
            f"{s['certified'] / runs:>9.0%} {med:>17} {top:>7}"
        )
    print()
    print(f"{'data':>9} {'runs':>5} {'false':>5} {'optimal':>8} {'certified':>9}")
    for kind in module.KINDS:
        band = [r for r in rows if r["kind"] == kind]
        default = [r for r in band if r["certify"] is None]
        s = module.summary(default)
        runs = max(1, s["runs"])
        false = sum(len(r["wrong"]) for r in band)
        print(f"{kind:>9} {len(band):>5} {false:>5} {s['optimal'] / runs:>8.0%} "
              f"{s['certified'] / runs:>9.0%}")  # fmt: skip
    total = sum(len(r["wrong"]) for r in rows)
    print(f"all: {len(rows)} runs, {total} false claims, {time.perf_counter() - started:.0f} s")
    for r in rows:
        for w in r["wrong"]:
            print(f"  seed {r['seed']} {r['method']} certify={r['certify']}: {w}")


if __name__ == "__main__":
    main()
