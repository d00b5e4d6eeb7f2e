"""Shared helper of the tiled linear-algebra task graphs: a DAG built task by task."""

from __future__ import annotations

from typing import Any

from exactsched.errors import MethodError

__all__ = ["TiledDag", "check_tiles"]


def check_tiles(n_tiles: Any) -> int:
    """``n_tiles`` if it is a positive integer, else a one-line MethodError."""
    if isinstance(n_tiles, bool) or not isinstance(n_tiles, int) or n_tiles < 1:
        raise MethodError(f"n_tiles: expected a positive integer, got {n_tiles!r}")
    return n_tiles


class TiledDag:
    """Tasks added in a topological order, each with the ids of its predecessors."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.ids: list[str] = []
        self.kernels: list[str] = []
        self.edges: list[tuple[int, int]] = []

    def add(self, task: str, kernel: str, *preds: str | None) -> None:
        """Append ``task`` running ``kernel`` after each of ``preds`` (None ones skipped)."""
        self.index[task] = len(self.ids)
        self.ids.append(task)
        self.kernels.append(kernel)
        self.edges.extend((self.index[p], self.index[task]) for p in preds if p is not None)
