"""A wall clock for one call of an exact method: the time limit bounds the whole call.

Every stage of a model (warm start, bounds, building, solving) asks the same
:class:`Clock` how much time is left, and long loops call :meth:`Clock.check`,
which raises :class:`~models._warmstart.OutOfTime` once the limit has passed;
the method then returns the best schedule it already has instead of hanging.
"""

from __future__ import annotations

import math
import time

from models._warmstart import OutOfTime

__all__ = ["Clock", "OutOfTime", "LOAD_SHARE"]

#: Share of its building time a model needs left for CP-SAT to load it: with less, a
#: model is not solved (models/cpsat.py, models/_cpsat_contention.py).
LOAD_SHARE = 0.25


class Clock:
    """Time since the call started and time left before ``time_limit`` seconds.

    Parameters
    ----------
    time_limit : float, optional
        Seconds for the whole call; None: no limit (nothing ever expires).
    started : float, optional
        The :func:`time.perf_counter` instant the call started (default: now).

    Examples
    --------
    >>> clock = Clock(None)
    >>> clock.left(), clock.expired(), clock.until(0.5)
    (inf, False, None)
    >>> Clock(0.0).expired()
    True
    """

    def __init__(self, time_limit: float | None, started: float | None = None) -> None:
        self.started = time.perf_counter() if started is None else started
        self.limit = None if time_limit is None else float(time_limit)

    @property
    def deadline(self) -> float | None:
        """The :func:`time.perf_counter` instant the limit ends (None without a limit)."""
        return None if self.limit is None else self.started + self.limit

    def elapsed(self) -> float:
        """Seconds since the call started."""
        return time.perf_counter() - self.started

    def left(self) -> float:
        """Seconds before the limit (``inf`` without one; negative once past it)."""
        return math.inf if self.limit is None else self.limit - self.elapsed()

    def expired(self) -> bool:
        """Whether the limit has passed."""
        return self.left() <= 0

    def until(self, share: float) -> float | None:
        """The instant ``share`` of the limit has passed (None without a limit)."""
        return None if self.limit is None else self.started + share * self.limit

    def check(self, stage: str) -> None:
        """Raise :class:`OutOfTime` naming ``stage`` if the limit has passed."""
        if self.expired():
            raise OutOfTime(stage)
