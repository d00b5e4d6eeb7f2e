"""The identical-processor rules on accelerator platforms, published and adapted.

For every method registered with ``assumes_identical_processors`` (the
bl-est and etf families, olb, lmt) this prints the makespan of the published
processor rule (``processor_choice="earliest-start"``) and of the project's
heterogeneous adaptation (``"earliest-finish"``), next to HEFT, on the
single-GPU examples (7 CPU cores and one GPU on which every task is 14-100
times faster), and how many tasks each puts on the GPU. Every schedule is
validated.

Usage::

    python benchmarks/processor_choice.py
    python benchmarks/processor_choice.py examples/cholesky-n4-multi-gpu.json
"""

from __future__ import annotations

import argparse

import exactsched
from exactsched import load_instance, solve, validate

EXAMPLES = (
    "examples/cholesky-n3-single-gpu.json",
    "examples/cholesky-n4-single-gpu.json",
    "examples/daggen-n12-single-gpu-hoft.json",
)


def main(paths: list[str]) -> None:
    names = [m.name for m in exactsched.available_methods() if m.assumes_identical_processors]
    print("| instance | method | earliest-start | on GPU | earliest-finish | on GPU | heft |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        p = load_instance(path)
        gpus = {q for q, t in zip(p.proc_ids, p.proc_types, strict=True) if "gpu" in t.lower()}
        heft = solve(p, "heft").makespan
        for name in names:
            row = []
            for choice in ("earliest-start", "earliest-finish"):
                s = solve(p, name, processor_choice=choice).schedule
                assert validate(p, s) == []
                on_gpu = sum(pl.processor in gpus for pl in s.values())
                row += [f"{s.makespan:g}", f"{on_gpu} / {p.n_tasks}"]
            print(f"| {path.split('/')[-1]} | {name} | {' | '.join(row)} | {heft:g} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "instances", nargs="*", help="instance files (default: the single-GPU examples)"
    )
    main(parser.parse_args().instances or list(EXAMPLES))
