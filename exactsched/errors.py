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
    """An instance document or Python description that is not a valid problem.

    Examples
    --------
    >>> import exactsched
    >>> doc = {"format": "exactsched/instance@1",
    ...        "platform": {"processors": [{"id": "p"}]},
    ...        "tasks": [{"id": "a", "cost": [1]}], "edges": [{"src": "a", "dst": "b"}]}
    >>> try:
    ...     exactsched.load_instance(doc)
    ... except InstanceError as err:
    ...     print(err)
    edges[0].dst: unknown task 'b'
    """


class InstanceWarning(UserWarning):
    """Something legal but probably unintended in an instance (e.g. a redundant pair).

    Examples
    --------
    >>> import warnings
    >>> from exactsched import Problem
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always", InstanceWarning)
    ...     p = Problem.from_lists([[1], [1]], order=[(0, 1), (0, 1)])
    >>> [str(w.message) for w in caught if issubclass(w.category, InstanceWarning)]
    ["order[1]: repeats order[0] ('t0', 't1'); ignored"]
    >>> len(p.order_src)  # the repeated pair is counted once
    1
    """


class ScheduleError(ValueError):
    """A schedule document that cannot be read against its problem.

    Examples
    --------
    >>> from exactsched import Schedule
    >>> doc = {"format": "exactsched/schedule@1", "makespan": 4,
    ...        "tasks": [{"id": "a", "processor": "p", "start": 1, "finish": 3}]}
    >>> try:
    ...     Schedule.from_json(doc)
    ... except ScheduleError as err:
    ...     print(err)
    makespan: 4 but the largest finish is 3
    """


class MethodError(ValueError):
    """An unknown method, a bad option, or an instance a method refuses.

    Examples
    --------
    >>> import exactsched
    >>> try:
    ...     exactsched.solve("examples/topcuoglu2002.json", "heft", insertion="no")
    ... except MethodError as err:
    ...     print(err)
    option insertion: expected true or false, got 'no'
    >>> exactsched.get_method("hefft")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: method: unknown method 'hefft'; known: bl-est, ...
    """


class InvalidScheduleError(RuntimeError):
    """A method returned a schedule that :func:`exactsched.validate` rejects.

    Raised by :func:`exactsched.solve` (with ``check=True``) instead of
    returning the schedule. It is a bug in the method, not in the input, so it
    is not a :class:`ValueError`; the message is one line naming the method
    and the first violation. ``violations`` holds them all.

    Examples
    --------
    No built-in method returns an invalid schedule, so this one is built by hand,
    as :func:`exactsched.solve` builds it from :func:`exactsched.validate`'s list:

    >>> err = InvalidScheduleError("mine", ["task t1: not scheduled", "task t2: not scheduled"])
    >>> print(err)
    mine returned an invalid schedule: task t1: not scheduled (and 1 more)
    >>> err.method, len(err.violations), isinstance(err, ValueError)
    ('mine', 2, False)
    """

    def __init__(self, method: str, violations: list[str]) -> None:
        self.method = method
        self.violations = list(violations)
        first = " ".join(self.violations[0].split()) if self.violations else "?"
        more = f" (and {len(self.violations) - 1} more)" if len(self.violations) > 1 else ""
        super().__init__(f"{method} returned an invalid schedule: {first}{more}")
