"""Time the workload generators and readers on large inputs.

Usage: ``python benchmarks/workloads.py [--tiles 50] [--repeat 3] [--quick]``.
Prints a markdown table of the best and median wall time over the repeats and
the least CPU time (seconds). Target (workloads issue): the N = 50 tiled Cholesky instance
(22,100 tasks) on the multiple-GPU platform generated in under 5 s; the row
``generate cholesky (CLI, JSON written)`` is the end-to-end figure, from the
command line to the file on disk.

Also measured: tiled QR and LU (42,925 tasks at N = 50), the random DAG
generators at 10,000 tasks, and the DOT readers (the built-in reader against
pydot, the reason the built-in one stays the default).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def measure(run: Callable[[], object], repeat: int) -> tuple[float, float, float]:
    """Best and median wall time, and the least CPU time (less hurt by a shared machine)."""
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(times), statistics.median(times), min(cpu)


def dot_text(n: int, out_degree: int = 5, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    lines = ['digraph "bench" {']
    lines += [f"\t{i}\t [Weight={rng.integers(1, 10)}];" for i in range(n)]
    for i in range(n - 1):
        for j in rng.choice(np.arange(i + 1, n), size=min(out_degree, n - i - 1), replace=False):
            lines.append(f"\t{i} -> {j}\t [Weight={rng.integers(1, 10)}];")
    return "\n".join(lines + ["}"]) + "\n"


def main() -> None:
    from exactsched.cli import main as cli
    from exactsched.generators import DAG_GENERATORS, random_workload
    from exactsched.workloads import cholesky_instance, read_dot, tiled_instance

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiles", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip the slow pydot row")
    args = parser.parse_args()
    n = args.tiles
    tmp = Path(tempfile.mkdtemp())
    rows: list[tuple[str, str, Callable[[], object]]] = [
        (
            "generate cholesky (CLI, JSON written)",
            f"N = {n}, multi-gpu",
            lambda: cli(["generate", "cholesky", "--tiles", str(n), "--platform", "multi-gpu",
                         "-o", str(tmp / "c.json")]),
        ),
        ("tiled_instance cholesky (flops)", f"N = {n}, multi-gpu",
         lambda: tiled_instance("cholesky", n, "multi-gpu", seed=0)),
        ("cholesky_instance (measured times)", f"N = {n}, hoft-multi-gpu",
         lambda: cholesky_instance(n, "hoft-multi-gpu")),
        ("tiled_instance qr", f"N = {n}, multi-gpu",
         lambda: tiled_instance("qr", n, "multi-gpu", seed=0)),
        ("tiled_instance lu", f"N = {n}, summit",
         lambda: tiled_instance("lu", n, "summit", seed=0)),
    ]  # fmt: skip
    params = {
        "topcuoglu": {"alpha": 1.0, "out_degree": 3},
        "layered": {"n_layers": 100, "p": 0.03},
        "erdos-renyi": {"p": 0.0005},
        "daggen": {"fat": 0.5, "density": 0.03, "jump": 2},
    }
    for name, kwargs in params.items():
        rows.append(
            (f"{name} DAG + topcuoglu weights, CCR 1", "10,000 tasks, mesh:4x4",
             lambda name=name, kwargs=kwargs: random_workload(
                 DAG_GENERATORS[name](10_000, seed=0, **kwargs), 10_000, "mesh:4x4", seed=0)),
        )  # fmt: skip
    text = dot_text(2000)
    rows.append(("read_dot built-in", "2000 nodes, 9985 edges", lambda: read_dot(text, 2)))
    if not args.quick:
        rows.append(
            ("read_dot pydot engine", "2000 nodes, 9985 edges",
             lambda: read_dot(text, 2, engine="pydot")),
        )  # fmt: skip
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print("| what | size | best s | median s | CPU s |")
    print("| --- | --- | ---: | ---: | ---: |")
    for what, size, run in rows:
        best, median, cpu = measure(run, 1 if "pydot" in what else args.repeat)
        print(f"| {what} | {size} | {best:.2f} | {median:.2f} | {cpu:.2f} |", flush=True)


if __name__ == "__main__":
    main()
