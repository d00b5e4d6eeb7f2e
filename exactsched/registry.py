"""The method registry: one uniform interface for exact models and heuristics.

A heuristic is registered as ``func(problem, **options) -> Schedule``; an exact
method as ``func(problem, *, time_limit, workers, seed, **options) -> Result``.
:func:`solve` runs either, times it, attaches the proven lower bound of
:mod:`exactsched.bounds`, and checks the schedule with the validator before
returning it, so no method can hand out an invalid schedule unnoticed.

Built-in methods live in the ``heuristics`` and ``models`` packages, which
register themselves when imported; the registry imports them on first use.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import json
import math
import os
import random
import time
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from exactsched.errors import MethodError
from exactsched.problem import Problem
from exactsched.result import Result, Status

__all__ = [
    "MethodInfo",
    "register",
    "get_method",
    "available_methods",
    "solve",
    "parse_option",
    "parse_options",
    "check_options",
    "check_common",
    "HeuristicName",
    "Range",
    "OneOf",
    "DEFAULT_TIME_LIMIT",
    "MAX_WORKERS",
    "MAX_SEED",
]

_REGISTRY: dict[str, MethodInfo] = {}
# The option, and its value, by which a run of a method registered with
# ``assumes_identical_processors`` weighs each processor's cost instead: the
# project's heterogeneous adaptation (default "earliest-start", the published rule).
_IDENTICAL_OPTION = "processor_choice"
_IDENTICAL_LIFTED = "earliest-finish"
_COMMON_EXACT = ("time_limit", "workers", "seed")
# Arguments of :func:`solve` itself: never method options (``check`` would switch the
# referee off, the others have their own flags).
_RESERVED = ("time_limit", "workers", "seed", "method", "problem", "check", "certify")
# Options holding Python objects, which the command line cannot express.
_PYTHON_ONLY = ("callback",)

DEFAULT_TIME_LIMIT = 60.0
"""Seconds the ``solve`` command gives an exact method when ``--time-limit`` is not given."""

MAX_WORKERS = 256
"""Most solver threads accepted (CP-SAT allocates per worker; more only exhausts memory)."""

MAX_SEED = 2**31 - 1
"""Largest seed accepted: the solvers' seeds are 32-bit signed integers."""


class HeuristicName(str):
    """Annotation marker: an option whose value names registered heuristics.

    ``Sequence[HeuristicName]`` in a method's signature makes :func:`check_options`
    refuse names that are not registered heuristics.
    """


@dataclass(frozen=True)
class Range:
    """Annotation metadata: the numbers an ``int`` or ``float`` option accepts.

    ``Annotated[int, Range(1)]`` declares an integer >= 1; ``Annotated[float,
    Range(0, 1, high_open=True)]`` a number >= 0 and < 1. :func:`check_options`
    refuses other values and ``exactsched methods --json`` describes the
    option from the same declaration, so the two cannot disagree. A bare
    ``int`` or ``float`` means ``Range(0)`` (finite, >= 0).

    Examples
    --------
    >>> Range(1).phrase(int), Range(0, low_open=True).phrase(float)
    ('an integer >= 1', 'a finite number > 0')
    >>> Range(0, 1, high_open=True).phrase(float), Range(1, 8).phrase(int)
    ('a number >= 0 and < 1', 'an integer from 1 to 8')
    >>> Range(1).admits(int, 0), Range(1).admits(int, 2.0), Range(1).admits(int, 2)
    (False, False, True)
    """

    low: float = 0
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def admits(self, base: type, value: Any) -> bool:
        """Whether ``value`` is of ``base`` (``int`` or ``float``) and within the range."""
        ok = _is_int(value) if base is int else _is_real(value)
        try:
            ok = ok and math.isfinite(value)
        except OverflowError:  # an integer beyond every float: past any range here
            return False
        if not ok:
            return False
        if value < self.low or (self.low_open and value == self.low):
            return False
        if self.high is None:
            return True
        return value < self.high or (not self.high_open and value == self.high)

    def phrase(self, base: type) -> str:
        """What the range accepts, in words (the ``accepts`` text of the option)."""
        low = f"{'>' if self.low_open else '>='} {_num_text(self.low)}"
        if base is int:
            if self.high is None:
                return f"an integer {low}"
            if not self.low_open and not self.high_open:
                return f"an integer from {_num_text(self.low)} to {_num_text(self.high)}"
            return f"an integer {low} and {'<' if self.high_open else '<='} {_num_text(self.high)}"
        if self.high is None:
            return f"a finite number {low}"
        high = f"{'<' if self.high_open else '<='} {_num_text(self.high)}"
        return f"a number {low} and {high}"


@dataclass(frozen=True)
class OneOf:
    """Annotation metadata: the strings a ``str`` option accepts.

    ``Annotated[str, OneOf(WEIGHTINGS)]`` declares an enumeration whose values
    live in a tuple the method itself checks against: :func:`check_options`
    refuses other values and ``exactsched methods --json`` lists them, both
    from the tuple.

    Examples
    --------
    >>> OneOf(("highs", "scip")).phrase()
    "'highs' or 'scip'"
    """

    values: tuple[str, ...]

    def admits(self, value: Any) -> bool:
        """Whether ``value`` is one of :attr:`values`."""
        return isinstance(value, str) and value in self.values

    def phrase(self) -> str:
        """The values, quoted (``'a', 'b' or 'c'``)."""
        quoted = [repr(v) for v in self.values]
        if len(quoted) <= 2:
            return " or ".join(quoted)
        return ", ".join(quoted[:-1]) + " or " + quoted[-1]


# A signature and its annotations are read once per function: every solve checks its
# options, and reading them costs about 0.3 ms (a third of HEFT on 10 tasks).
@functools.cache
def _options_of(func: Callable[..., Any]) -> tuple[tuple[str, Any], ...]:
    params = list(inspect.signature(func).parameters.values())[1:]
    return tuple(
        (p.name, None if p.default is inspect.Parameter.empty else p.default)
        for p in params
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    )


def _option_types_of(func: Callable[..., Any]) -> tuple[tuple[str, Any], ...]:
    if func in _TYPES_READ:
        return _TYPES_READ[func]
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:  # a name only imported for type checkers: check nothing for it
        return tuple((name, Any) for name, _ in _options_of(func))  # not kept: may read later
    _TYPES_READ[func] = tuple((name, hints.get(name, Any)) for name, _ in _options_of(func))
    return _TYPES_READ[func]


_TYPES_READ: dict[Callable[..., Any], tuple[tuple[str, Any], ...]] = {}


def _expected(phrase: str, value: Any) -> str:
    """The refusal of a number out of range; an integer beyond every float says so."""
    huge = isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**1024
    return f"expected {phrase} below 1.8e308" if huge else f"expected {phrase}"


def _num_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


@dataclass(frozen=True)
class MethodInfo:
    """A registered method.

    Attributes
    ----------
    name : str
        What the user types (``heft``, ``cpsat``).
    kind : str
        ``"exact"`` or ``"heuristic"``.
    description : str
        One line.
    source : str
        The paper it implements.
    func : callable
        The implementation (see the module docstring for signatures).
    assumes_identical_processors : bool
        The method picks processors as if they were identical (by earliest
        start, by load, or one group per processor), as its source defines it,
        so on a platform of unlike processors (a GPU among CPUs) it can put a
        task where it runs far slower; shown by ``exactsched methods`` and
        marked in compare tables (default False). It describes the method's
        published rule; whether one run assumes it (its ``processor_choice``
        may switch to the adaptation) is :meth:`run_assumes_identical`.

    Examples
    --------
    >>> info = get_method("heft")
    >>> info.name, info.kind, info.assumes_identical_processors
    ('heft', 'heuristic', False)
    >>> info.options  # keyword options and their defaults
    {'ranking': 'mean', 'direction': 'upward', 'insertion': True}
    >>> info.to_json()["accepts"]["insertion"]
    'true or false'
    """

    name: str
    kind: str
    description: str
    source: str
    func: Callable[..., Any]
    assumes_identical_processors: bool = False

    @property
    def options(self) -> dict[str, Any]:
        """Keyword options and their defaults (the problem argument excluded)."""
        return dict(_options_of(self.func))

    @property
    def option_types(self) -> dict[str, Any]:
        """The annotation of each option (``Any`` where there is none or it cannot be read)."""
        return dict(_option_types_of(self.func))

    def run_assumes_identical(self, options: Mapping[str, Any] | str | None = None) -> bool:
        """Whether a run with ``options`` picks processors as if they were identical.

        True for a method registered with ``assumes_identical_processors``
        unless the run's ``processor_choice`` (given in ``options``, else the
        method's default) is ``"earliest-finish"``: the project's adaptation,
        which weighs what a task costs on each processor (docs/heuristics.md).
        ``options`` may be the JSON text a study stores with the run.

        Examples
        --------
        >>> info = get_method("bl-est")
        >>> info.run_assumes_identical(), info.run_assumes_identical(
        ...     {"processor_choice": "earliest-finish"})
        (True, False)
        >>> get_method("heft").run_assumes_identical({"ranking": "median"})
        False
        """
        if not self.assumes_identical_processors:
            return False
        if isinstance(options, str):
            options = json.loads(options)
        defaults = self.options
        if _IDENTICAL_OPTION not in defaults:
            return True
        choice = (options or {}).get(_IDENTICAL_OPTION, defaults[_IDENTICAL_OPTION])
        return choice != _IDENTICAL_LIFTED

    def to_json(self) -> dict[str, Any]:
        """``name``, ``kind``, ``description``, ``source``,
        ``assumes_identical_processors``, ``options`` (defaults) and ``accepts``
        (what each option accepts, as :func:`check_options` checks it)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "source": self.source,
            "assumes_identical_processors": self.assumes_identical_processors,
            "options": {k: _jsonable(v) for k, v in self.options.items()},
            "accepts": {
                k: _describe(t) for k, t in self.option_types.items() if k not in _COMMON_EXACT
            },
        }


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool | type(None)) else repr(value)


def register(
    name: str,
    *,
    kind: str,
    description: str,
    source: str,
    assumes_identical_processors: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator adding a method to the registry under ``name``.

    ``assumes_identical_processors=True`` marks a heuristic whose processor
    rule treats the processors as identical (see :class:`MethodInfo`).

    Parameters
    ----------
    name : str
        The registry name (unique).
    kind : {"exact", "heuristic"}
        An exact method returns a :class:`~exactsched.Result` and takes
        ``time_limit``, ``workers`` and ``seed``; a heuristic returns a
        :class:`~exactsched.Schedule`.
    description, source : str
        One line each: what it does, and the publication it implements.
    assumes_identical_processors : bool

    Returns
    -------
    callable
        The decorator; it returns the function unchanged.

    Raises
    ------
    ValueError
        For a ``kind`` other than ``"exact"`` or ``"heuristic"``, or a ``name``
        already registered to another function (the registry is left unchanged).

    Examples
    --------
    The built-in methods register themselves this way when the ``heuristics``
    and ``models`` packages are imported; a new heuristic is a decorated
    function (not run here: the registry offers no way to remove a method)::

        @register("first-proc", kind="heuristic",
                  description="every task on the first processor, in order",
                  source="none")
        def first_proc(problem):
            ...  # returns a Schedule

    It is then found by :func:`get_method` and run by :func:`solve`. A name
    already taken and an unknown kind are refused:

    >>> get_method("heft").kind  # loads the built-in methods
    'heuristic'
    >>> register("heft", kind="heuristic", description="", source="")(lambda problem: None)
    Traceback (most recent call last):
    ...
    ValueError: method 'heft' is already registered
    >>> register("mine", kind="greedy", description="", source="")
    Traceback (most recent call last):
    ...
    ValueError: kind must be 'exact' or 'heuristic', not 'greedy'
    """
    if kind not in ("exact", "heuristic"):
        raise ValueError(f"kind must be 'exact' or 'heuristic', not {kind!r}")

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        if name in _REGISTRY and _REGISTRY[name].func is not func:
            raise ValueError(f"method {name!r} is already registered")
        _REGISTRY[name] = MethodInfo(
            name, kind, description, source, func, bool(assumes_identical_processors)
        )
        return func

    return decorate


def _load_builtin(wanted: str | None = None) -> None:
    """Import the built-in methods (each registers on import): the heuristics, then
    the exact models, unless ``wanted`` is already registered (a heuristic need not
    wait for OR-Tools and SciPy: 0.6 s of a fresh process)."""
    import heuristics  # noqa: F401

    if wanted is None or wanted not in _REGISTRY:
        import models  # noqa: F401


def available_methods() -> list[MethodInfo]:
    """Every registered method, exact ones first, then by name.

    Returns
    -------
    list of MethodInfo
        The built-in methods (imported on the first call) and any registered since.

    Examples
    --------
    >>> methods = available_methods()
    >>> [m.name for m in methods if m.kind == "exact"]
    ['bruteforce', 'cpsat', 'milp']
    >>> "heft" in [m.name for m in methods]
    True
    """
    _load_builtin()
    return sorted(_REGISTRY.values(), key=lambda m: (m.kind != "exact", m.name))


def get_method(name: str) -> MethodInfo:
    """The method registered as ``name``.

    Parameters
    ----------
    name : str
        A registry name (``exactsched methods`` lists them).

    Returns
    -------
    MethodInfo
        Its kind, description, source and function.

    Raises
    ------
    MethodError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> from exactsched import load_instance
    >>> info = get_method("heft")
    >>> info.kind, info.source
    ('heuristic', 'Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002')
    >>> info.func(load_instance("examples/topcuoglu2002.json")).makespan  # a Schedule
    80
    >>> get_method("hefft")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: method: unknown method 'hefft'; known: bl-est, ...
    """
    _load_builtin(name)
    if name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY))
        raise MethodError(f"method: unknown method {name!r}; known: {known}")
    return _REGISTRY[name]


def parse_option(text: str) -> tuple[str, Any]:
    """Split a CLI ``key=value`` option; the value is read as a Python literal if it is one.

    Examples
    --------
    >>> parse_option("x=0.3"), parse_option("ranking=mean"), parse_option("exact=true")
    (('x', 0.3), ('ranking', 'mean'), ('exact', True))
    >>> parse_option('parameters={"log_search_progress": true}')
    ('parameters', {'log_search_progress': True})
    """
    if "=" not in text:
        raise MethodError(f"--option {text!r}: expected key=value")
    key, raw = text.split("=", 1)
    key = key.strip().replace("-", "_")
    lowered = raw.strip().lower()
    if lowered in ("true", "false"):
        return key, lowered == "true"
    if lowered in ("none", "null"):
        return key, None
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = raw
        if raw.lstrip().startswith(("{", "[")):  # JSON spells true, false, null in lower case
            with contextlib.suppress(ValueError, RecursionError):
                value = json.loads(raw)
    return key, value


def parse_options(method: str, texts: Sequence[str]) -> dict[str, Any]:
    """Read command-line ``key=value`` options of ``method`` and check them.

    Besides :func:`check_options`, the command line refuses the arguments of
    :func:`solve` itself (``time_limit``, ``workers``, ``seed``, ``check``, ...),
    which have their own flags, and options that hold Python objects
    (``callback``). A list option takes comma-separated names
    (``hint_heuristics=heft,peft``).

    Raises
    ------
    MethodError
        One line naming the option at fault.

    Examples
    --------
    >>> parse_options("heft", ["ranking=median", "insertion=false"])
    {'ranking': 'median', 'insertion': False}
    >>> parse_options("heft", ["insertion=no"])
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: option insertion: expected true or false, got 'no'
    >>> parse_options("cpsat", ["time_limit=5"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: option time_limit: a common argument, ...; use --time-limit
    """
    info = get_method(method)
    types_ = info.option_types
    options: dict[str, Any] = {}
    for text in texts:
        key, value = parse_option(text)
        if key in _RESERVED:
            flag = "--" + key.replace("_", "-")
            hint = f"use {flag}" if key in _COMMON_EXACT else "it cannot be set as an option"
            if key in ("method", "certify"):
                hint = f"use {flag}"
            raise MethodError(f"option {key}: a common argument, not a method option; {hint}")
        if key in _PYTHON_ONLY:
            raise MethodError(f"option {key}: holds a Python object; not settable from the CLI")
        if key in options:
            raise MethodError(f"option {key}: given twice")
        raw = text.split("=", 1)[1].strip()
        if _is_sequence_type(types_.get(key, Any)) and isinstance(value, str):
            value = [part.strip() for part in raw.split(",") if part.strip()]
        options[key] = value
    return check_options(method, options)


def check_common(
    time_limit: Any = None, workers: Any = None, seed: Any = 0
) -> tuple[float | None, int | None, int | None]:
    """Check the common arguments of :func:`solve`; returns them unchanged.

    ``time_limit`` None or a finite number of seconds >= 0; ``workers`` None or
    an integer from 1 to :data:`MAX_WORKERS`; ``seed`` None or an integer from
    0 to :data:`MAX_SEED`.

    Raises
    ------
    MethodError
        One line naming the argument.

    Examples
    --------
    >>> check_common(5, 2, 0)
    (5, 2, 0)
    >>> check_common(float("nan"))
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: time_limit: expected a finite number of seconds >= 0, got nan
    """
    if time_limit is not None and not (_is_real(time_limit) and 0 <= time_limit < math.inf):
        raise MethodError(
            f"time_limit: expected a finite number of seconds >= 0, got {_show(time_limit)}"
        )
    if workers is not None and not (_is_int(workers) and 1 <= workers <= MAX_WORKERS):
        raise MethodError(
            f"workers: expected an integer from 1 to {MAX_WORKERS}, got {_show(workers)}"
        )
    if seed is not None and not (_is_int(seed) and 0 <= seed <= MAX_SEED):
        raise MethodError(f"seed: expected an integer from 0 to {MAX_SEED}, got {_show(seed)}")
    return time_limit, workers, seed


def check_options(method: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Check options against the annotations of ``method``'s signature.

    ``bool`` accepts True/False only; ``int`` integers (not booleans); ``float``
    any real number; every number must be finite and >= 0 (every numeric option
    of this project is a count, an effort, a tolerance or a threshold), or
    within the :class:`Range` of an ``Annotated[int, Range(...)]`` annotation;
    ``Literal[...]`` its values; ``Annotated[str, OneOf(values)]`` one of the
    values; ``str`` any string; ``Sequence[str]`` a list or tuple of
    strings (``Sequence[HeuristicName]``: of registered heuristics);
    ``Mapping`` a mapping; ``Callable`` a callable; unions any of their arms.

    Returns
    -------
    dict
        The options (unchanged).

    Raises
    ------
    MethodError
        For an unknown option or a value of the wrong type or range.

    Examples
    --------
    >>> check_options("cpsat", {"path_cuts": "auto", "comm": "dest"})
    {'path_cuts': 'auto', 'comm': 'dest'}
    >>> check_options("cpsat", {"path_cuts": "maybe"})
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: option path_cuts: expected true, false or 'auto', got 'maybe'
    """
    info = get_method(method)
    accepted = info.options
    takes_any = any(
        p.kind == p.VAR_KEYWORD for p in inspect.signature(info.func).parameters.values()
    )
    types_ = info.option_types
    for key, value in options.items():
        if key in _RESERVED and key in accepted:
            raise MethodError(f"option {key}: a common argument of solve, not a method option")
        if key not in accepted:
            if takes_any:
                continue
            known = ", ".join(k for k in accepted if k not in _COMMON_EXACT) or "none"
            raise MethodError(f"option {key!r}: not an option of {method} (options: {known})")
        problem = _type_error(types_.get(key, Any), value)
        if problem is not None:
            raise MethodError(f"option {key}: {problem}, got {_show(value)}")
    return dict(options)


def _is_real(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _arms(annotation: Any) -> list[Any]:
    """The arms of a union annotation (the annotation itself otherwise)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return list(typing.get_args(annotation))
    return [annotation]


def _is_sequence_type(annotation: Any) -> bool:
    return any(typing.get_origin(arm) in (Sequence, list, tuple) for arm in _arms(annotation))


def _type_error(annotation: Any, value: Any) -> str | None:
    """None if ``value`` fits ``annotation``, else what was expected (a phrase)."""
    expected: list[str] = []
    for arm in _arms(annotation):
        phrase = _arm_error(arm, value)
        if phrase is None:
            return None
        expected.append(phrase)
    # Merge "true or false" and literal values into one readable list.
    words: list[str] = []
    for phrase in expected:
        for word in phrase.removeprefix("expected ").split(" or "):
            if word not in words:
                words.append(word)
    if len(words) > 2:
        return "expected " + ", ".join(words[:-1]) + " or " + words[-1]
    return "expected " + " or ".join(words)


_DEFAULT_RANGE = Range(0)


class _Nothing:
    """A value no annotation accepts, to read the phrase of what one expects."""


def _describe(annotation: Any) -> str:
    """What an option accepts, in words (``"true or false"``, ``"any value"``)."""
    phrase = _type_error(annotation, _Nothing())
    return "any value" if phrase is None else phrase.removeprefix("expected ")


def _arm_error(arm: Any, value: Any) -> str | None:
    origin = typing.get_origin(arm)
    if arm is Any:
        return None
    if arm is type(None):
        return None if value is None else "expected none"
    if arm is bool:
        return None if isinstance(value, bool) else "expected true or false"
    if origin is typing.Annotated:
        base, *meta = typing.get_args(arm)
        for mark in meta:
            if isinstance(mark, Range) and base in (int, float):
                return None if mark.admits(base, value) else _expected(mark.phrase(base), value)
            if isinstance(mark, OneOf) and base is str:
                return None if mark.admits(value) else f"expected {mark.phrase()}"
        return _arm_error(base, value)
    if arm is int or arm is float:
        if _DEFAULT_RANGE.admits(arm, value):
            return None
        return _expected(_DEFAULT_RANGE.phrase(arm), value)
    if arm is str:
        return None if isinstance(value, str) else "expected a string"
    if arm is HeuristicName:
        known = [m.name for m in available_methods() if m.kind == "heuristic"]
        return None if value in known else "expected a registered heuristic"
    if origin is Literal:
        values = typing.get_args(arm)
        scalar = isinstance(value, str | int | float) and not isinstance(value, bool)
        if scalar and value in values:
            return None
        return "expected " + " or ".join(repr(v) for v in values)
    if origin in (Sequence, list, tuple):
        (item,) = typing.get_args(arm)[:1] or (Any,)
        if item is HeuristicName:
            known = [m.name for m in available_methods() if m.kind == "heuristic"]
            wanted = f"expected a list of registered heuristics ({', '.join(known)})"
        else:
            wanted = "expected a list of " + _arm_error(item, object()).removeprefix("expected ")
        if isinstance(value, str) or not isinstance(value, list | tuple):
            return wanted
        return None if all(_arm_error(item, v) is None for v in value) else wanted
    if origin in (Mapping, dict) or arm in (Mapping, dict):
        return None if isinstance(value, Mapping) else "expected a mapping"
    if origin is Callable or arm is Callable or origin is typing.Callable:
        return None if callable(value) else "expected a callable"
    if isinstance(arm, type):
        if arm in (np.random.Generator, random.Random):
            return None if isinstance(value, arm) else f"expected a {arm.__name__}"
        return None if isinstance(value, arm) else f"expected a {arm.__name__}"
    return None  # an annotation this checker does not know: let the method judge


def _bound_within(problem: Problem, makespan: float) -> float:
    """:func:`~exactsched.bounds.lower_bound`, never above ``makespan``.

    On float data the bound may be summed more exactly than the schedule's finish
    times (costs 0.819, 8.2e-07 and 0.424 on one processor: bound 1.24300082,
    makespan 1.2430008199999998); both describe the same schedule, and a bound above
    the makespan would be a negative gap.
    """
    from exactsched.bounds import lower_bound  # late: bounds import the registry's users

    return min(lower_bound(problem), makespan)


def solve(
    problem: Problem | Mapping[str, Any] | str | os.PathLike[str],
    method: str = "cpsat",
    time_limit: float | None = None,
    *,
    workers: int | None = None,
    seed: int | None = 0,
    check: bool = True,
    certify: bool | None = None,
    **options: Any,
) -> Result:
    """Run a registered method on a problem.

    Parameters
    ----------
    problem : Problem, mapping or path
        The instance: a :class:`Problem`, an instance document (a dict) or the
        path of a JSON file (read with :func:`exactsched.load_instance`).
    method : str
        A name from :func:`available_methods` (default ``"cpsat"``).
    time_limit : float, optional
        Seconds for exact methods (ignored by heuristics); a finite number >= 0.
        None: no limit (the ``solve`` command's default is
        :data:`DEFAULT_TIME_LIMIT`).
    workers, seed : int, optional
        Solver threads (1 to :data:`MAX_WORKERS`) and random seed (0 to
        :data:`MAX_SEED`; ``seed`` also feeds randomised heuristics).
    check : bool
        Validate the returned schedule (default True); an invalid one raises
        :class:`~exactsched.errors.InvalidScheduleError` (a ``RuntimeError``:
        it is a bug in the method, not in the input).
    certify : bool, optional
        Certify a proven optimum by independent refutation (``Result.certified``,
        see :mod:`models.certify`): True always (within ``time_limit`` more, the
        witnesses and a witness-proven bound together), False
        never, None (default) at any size within about the solve time
        (:func:`models.certify.apply_policy`).
    **options
        Method options (see ``exactsched methods --json``), checked against the
        method's signature by :func:`check_options` before anything runs.

    Returns
    -------
    Result

    Raises
    ------
    InstanceError
        When ``problem`` is a document or file that is not a valid instance.
    MethodError
        For an unknown method, a bad common argument or option, or an
        instance the method refuses.
    InvalidScheduleError
        When ``check`` is on and the method's schedule fails validation.

    Examples
    --------
    >>> from exactsched import load_instance
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> solve(p, "heft").makespan
    80
    >>> solve("examples/topcuoglu2002.json", "heft", insertion=False).makespan
    80
    >>> solve(p, "heft", insertion="no")
    Traceback (most recent call last):
    ...
    exactsched.errors.MethodError: option insertion: expected true or false, got 'no'
    """
    from exactsched.errors import InvalidScheduleError
    from exactsched.validate import validate

    info = get_method(method)
    check_common(time_limit, workers, seed)
    if certify is not None and not isinstance(certify, bool):  # "no" would be truthy
        raise MethodError(f"certify: expected true, false or none, got {certify!r}")
    options = check_options(method, options)
    if not isinstance(problem, Problem):
        from exactsched.instance import load_instance

        problem = load_instance(problem)
    model = problem.communication
    if model not in getattr(info.func, "communication_models", ("delay",)):
        raise MethodError(
            f"{method}: does not support the {model!r} communication model "
            f"(platform.network.communication)"
        )
    accepted = info.options
    if "seed" in accepted:
        options["seed"] = seed
    started = time.perf_counter()
    if info.kind == "exact":
        result = info.func(problem, time_limit=time_limit, workers=workers, **options)
    else:
        schedule = info.func(problem, **options)
        seconds = time.perf_counter() - started
        result = Result(
            method=method,
            status=Status.FEASIBLE,
            schedule=schedule,
            makespan=schedule.makespan,
            # Computed when first read (cached in the problem): the algorithm alone
            # is what a heuristic's solve costs (issue 18, item 6).
            lower_bound=functools.partial(_bound_within, problem, schedule.makespan),
            seconds=seconds,
            stats={"options": _options_json(options)},
        )
    if check and result.schedule is not None:
        violations = validate(problem, result.schedule)
        if violations:
            raise InvalidScheduleError(method, violations)
    if info.kind == "exact":  # certify a claimed optimum; uncertified, it may be downgraded
        from models.certify import apply_policy

        result = apply_policy(
            problem, result, certify, time_limit=time_limit, seed=seed, workers=workers
        )
    return result


def _options_json(options: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _jsonable(v) for k, v in options.items()}
