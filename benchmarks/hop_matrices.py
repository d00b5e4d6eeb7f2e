"""Time building the hop matrix of each topology for large processor counts.

Usage: ``python benchmarks/hop_matrices.py [--processors 1024 4096] [--repeat 3]``.
Prints a markdown table of the best wall time over the repeats (seconds).
Target (foundation issue): well under a second for 4096 processors.
"""

from __future__ import annotations

import argparse
import time

from topologies import hop_matrix


def networks(n: int) -> dict[str, tuple[dict, list[str]]]:
    side = int(round(n**0.5))
    cube = int(round(n ** (1 / 3)))
    cases = {
        "fully-connected": ({"topology": "fully-connected"}, ["cpu"] * n),
        "hypercube": ({"topology": "hypercube"}, ["cpu"] * n),
        "fat-tree (arity 2)": ({"topology": "fat-tree", "arity": 2}, ["cpu"] * n),
        "accelerated-node": (
            {"topology": "accelerated-node"},
            ["cpu"] * (n - n // 8) + ["gpu"] * (n // 8),
        ),
    }
    if side * side == n:
        cases["mesh 2-D"] = ({"topology": "mesh", "dims": [side, side]}, ["cpu"] * n)
        cases["torus 2-D"] = ({"topology": "torus", "dims": [side, side]}, ["cpu"] * n)
    if cube**3 == n:
        cases["torus 3-D"] = ({"topology": "torus", "dims": [cube] * 3}, ["cpu"] * n)
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processors", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| topology | processors | seconds (best) |")
    print("| --- | ---: | ---: |")
    for n in args.processors:
        for name, (network, types) in networks(n).items():
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                hop_matrix(network, types)
                best = min(best, time.perf_counter() - start)
            print(f"| {name} | {n} | {best:.3f} |")


if __name__ == "__main__":
    main()
