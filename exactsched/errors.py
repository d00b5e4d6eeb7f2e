"""Exceptions and warnings raised by exactsched.

Every error about user input is a :class:`ValueError` subclass with a one-line
message that starts with the key, task, edge or processor at fault, so the CLI
can print it as is and exit with status 2.
"""

__all__ = ["InstanceError", "InstanceWarning", "ScheduleError", "MethodError"]


class InstanceError(ValueError):
    """An instance document or Python description that is not a valid problem."""


class InstanceWarning(UserWarning):
    """Something legal but probably unintended in an instance (e.g. a redundant pair)."""


class ScheduleError(ValueError):
    """A schedule document that cannot be read against its problem."""


class MethodError(ValueError):
    """An unknown method, a bad option, or an instance a method refuses."""
