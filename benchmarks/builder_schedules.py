"""How many builder and heuristic schedules the referee checked, and how many it rejected.

Runs the sweep of tests/test_builder_schedules.py (random fractional instances at
magnitudes 1e-9 to 1e15, every topology, every registered heuristic plus a plain
float list builder) over ``--instances`` seeds and prints the counts; every
rejection is a disagreement between the referee and the float sums the builders
write (issue 15), so the expected number is 0. Rejections of one fault of the
heuristics, fixed since (a positive cost below half an ulp of its start placed inside
another task, ``sub_ulp_overlap`` there), are counted apart; expected 0 as well.

Usage::

    python benchmarks/builder_schedules.py --instances 1000
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path


def _sweep_module():
    path = Path(__file__).resolve().parents[1] / "tests" / "test_builder_schedules.py"
    spec = importlib.util.spec_from_file_location("builder_schedules_sweep", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=28)
    args = parser.parse_args()
    module = _sweep_module()
    started = time.perf_counter()
    out = module.sweep(range(args.first_seed, args.first_seed + args.instances))
    counts = out["counts"]
    print(f"instances {counts['instances']}, schedules checked {counts['schedules']}, "
          f"refused by their method {counts['refused']}, rejected {len(out['rejected'])}, "
          f"sub-ulp overlaps of heuristics {len(out['sub_ulp'])} "
          f"({time.perf_counter() - started:.0f} s)")  # fmt: skip
    print("styles:", {k[6:]: v for k, v in counts.items() if k.startswith("style ")})
    for line in out["rejected"][:20] + out["sub_ulp"][:20]:
        print("  ", line)


if __name__ == "__main__":
    main()
