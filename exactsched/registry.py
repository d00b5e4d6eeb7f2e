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
import inspect
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
]

_REGISTRY: dict[str, MethodInfo] = {}
_COMMON_EXACT = ("time_limit", "workers", "seed")


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
    """

    name: str
    kind: str
    description: str
    source: str
    func: Callable[..., Any]

    @property
    def options(self) -> dict[str, Any]:
        """Keyword options and their defaults (the problem argument excluded)."""
        params = list(inspect.signature(self.func).parameters.values())[1:]
        return {
            p.name: (None if p.default is inspect.Parameter.empty else p.default)
            for p in params
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        }

    def to_json(self) -> dict[str, Any]:
        """``name``, ``kind``, ``description``, ``source`` and ``options``."""
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "source": self.source,
            "options": {k: _jsonable(v) for k, v in self.options.items()},
        }


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool | type(None)) else repr(value)


def register(
    name: str, *, kind: str, description: str, source: str
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator adding a method to the registry under ``name``."""
    if kind not in ("exact", "heuristic"):
        raise ValueError(f"kind must be 'exact' or 'heuristic', not {kind!r}")

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        if name in _REGISTRY and _REGISTRY[name].func is not func:
            raise ValueError(f"method {name!r} is already registered")
        _REGISTRY[name] = MethodInfo(name, kind, description, source, func)
        return func

    return decorate


def _load_builtin() -> None:
    import heuristics  # noqa: F401  (registers on import)
    import models  # noqa: F401


def available_methods() -> list[MethodInfo]:
    """Every registered method, exact ones first, then by name."""
    _load_builtin()
    return sorted(_REGISTRY.values(), key=lambda m: (m.kind != "exact", m.name))


def get_method(name: str) -> MethodInfo:
    """The method registered as ``name``.

    Raises
    ------
    MethodError
        For an unknown name (the message lists the known ones).
    """
    _load_builtin()
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
    except (ValueError, SyntaxError):
        value = raw
    return key, value


def solve(
    problem: Problem,
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
    problem : Problem
    method : str
        A name from :func:`available_methods` (default ``"cpsat"``).
    time_limit : float, optional
        Seconds for exact methods (ignored by heuristics).
    workers, seed : int, optional
        Solver threads and random seed (``seed`` also feeds randomised heuristics).
    check : bool
        Validate the returned schedule (default True); an invalid one raises
        ``RuntimeError``, since it is a bug in the method.
    certify : bool, optional
        Certify a proven optimum by independent refutation (``Result.certified``,
        see :mod:`models.certify`): True always (within ``time_limit``), False
        never, None (default) on instances of at most 30 tasks within about the
        solve time (:func:`models.certify.apply_policy`).
    **options
        Method options (see ``exactsched methods --json``).

    Returns
    -------
    Result

    Examples
    --------
    >>> from exactsched import load_instance
    >>> p = load_instance("examples/topcuoglu2002.json")
    >>> solve(p, "heft").makespan
    80
    """
    from exactsched.bounds import lower_bound
    from exactsched.validate import validate

    info = get_method(method)
    accepted = info.options
    takes_any = any(
        p.kind == p.VAR_KEYWORD for p in inspect.signature(info.func).parameters.values()
    )
    for key in options:
        if key not in accepted and not takes_any:
            known = ", ".join(k for k in accepted if k not in _COMMON_EXACT) or "none"
            raise MethodError(f"option {key!r}: not an option of {method} (options: {known})")
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
            lower_bound=lower_bound(problem),
            seconds=seconds,
            stats={"options": _options_json(options)},
        )
    if check and result.schedule is not None:
        violations = validate(problem, result.schedule)
        if violations:
            raise RuntimeError(f"{method} returned an invalid schedule: {violations[0]}")
    if info.kind == "exact" and result.status is Status.OPTIMAL and certify is not False:
        from models.certify import apply_policy

        result = apply_policy(problem, result, certify, time_limit=time_limit, seed=seed)
    return result


def _options_json(options: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _jsonable(v) for k, v in options.items()}
