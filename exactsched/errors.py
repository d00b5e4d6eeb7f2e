"""Exceptions and warnings raised by exactsched.

Every error about user input is a :class:`ValueError` subclass with a one-line
message that starts with the key, task, edge or processor at fault, so the CLI
can print it as is and exit with status 2. :class:`InvalidScheduleError` is
not about user input but a bug in a method; the CLI prints it the same way.
"""

__all__ = [
    "InstanceError",
    "InstanceWarning",
    "ScheduleError",
    "MethodError",
    "InvalidScheduleError",
]


class InstanceError(ValueError):
    """An instance document or Python description that is not a valid problem."""


class InstanceWarning(UserWarning):
    """Something legal but probably unintended in an instance (e.g. a redundant pair)."""


class ScheduleError(ValueError):
    """A schedule document that cannot be read against its problem."""


class MethodError(ValueError):
    """An unknown method, a bad option, or an instance a method refuses."""


class InvalidScheduleError(RuntimeError):
    """A method returned a schedule that :func:`exactsched.validate` rejects.

    Raised by :func:`exactsched.solve` (with ``check=True``) instead of
    returning the schedule. It is a bug in the method, not in the input, so it
    is not a :class:`ValueError`; the message is one line naming the method
    and the first violation. ``violations`` holds them all.
    """

    def __init__(self, method: str, violations: list[str]) -> None:
        self.method = method
        self.violations = list(violations)
        first = " ".join(self.violations[0].split()) if self.violations else "?"
        more = f" (and {len(self.violations) - 1} more)" if len(self.violations) > 1 else ""
        super().__init__(f"{method} returned an invalid schedule: {first}{more}")
