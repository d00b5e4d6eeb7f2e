"""Progress of a sweep: a bar with counts and ETA on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

__all__ = ["Progress"]


class Progress:
    """Count finished runs and show it.

    Parameters
    ----------
    total : int
        Runs to do.
    mode : {"auto", "bar", "lines", "none"}
        ``auto``: a tqdm bar when ``stream`` is a terminal, else lines.
    stream : file, optional
        Default standard error.
    every : float
        Seconds between two plain lines (the last one is always printed).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with Progress(2, mode="lines", stream=out, every=0) as bar:
    ...     bar.update("heft", "feasible")
    ...     bar.update("cpsat", "error")
    >>> print(out.getvalue().strip().splitlines()[-1][:26])
    [2/2] 100% 1 error(s) done
    """

    def __init__(
        self, total: int, mode: str = "auto", stream: TextIO | None = None, every: float = 5.0
    ) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.done = 0
        self.errors = 0
        self.every = every
        self._started = time.monotonic()
        self._last = self._started
        if mode == "auto":
            mode = "bar" if getattr(self.stream, "isatty", lambda: False)() else "lines"
        self.mode = mode if total else "none"
        self._bar: Any = None
        if self.mode == "bar":
            try:
                from tqdm import tqdm
            except ImportError:  # pragma: no cover - tqdm is a dependency
                self.mode = "lines"
            else:
                self._bar = tqdm(total=total, file=self.stream, unit="run", dynamic_ncols=True)

    def update(self, method: str, status: str) -> None:
        """One run finished with ``status``."""
        self.done += 1
        if status in ("error", "invalid"):
            self.errors += 1
        if self._bar is not None:
            self._bar.update(1)
            if self.errors:
                self._bar.set_postfix_str(f"{self.errors} error(s)", refresh=False)
        elif self.mode == "lines":
            now = time.monotonic()
            if now - self._last >= self.every or self.done == self.total:
                self._last = now
                self._line(now)

    def _line(self, now: float) -> None:
        elapsed = now - self._started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else float("nan")
        eta = "done" if self.done == self.total else f"ETA {left:.0f} s"
        errors = f" {self.errors} error(s)" if self.errors else ""
        print(
            f"[{self.done}/{self.total}] {100 * self.done / self.total:.0f}%{errors} {eta}"
            f" ({elapsed:.1f} s elapsed)",
            file=self.stream,
            flush=True,
        )

    def close(self) -> None:
        """Finish the bar."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
