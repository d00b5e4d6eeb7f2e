"""Audits V and W: what ``exactsched methods --json`` says an option accepts is true.

Every option of every registered method is probed with boundary values (0, 1,
-1, 2.0, a random string, ...) through :func:`exactsched.solve`; the value must
be accepted exactly when the option's ``accepts`` text says so, and a refused
value must be refused with that very text (``option X: expected <accepts>, got
...``): both come from the one declaration in the method's signature
(``Annotated[int, Range(1)]``, ``Annotated[str, OneOf(values)]``). Where a
declaration narrows a type (a :class:`~exactsched.registry.Range` or
:class:`~exactsched.registry.OneOf`), the method called directly (without
:func:`~exactsched.registry.check_options`) must agree with it, so the
declaration cannot drift from what the method itself accepts.
"""

from __future__ import annotations

import math
import re
import types
import typing
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from exactsched import Problem, load_instance, solve
from exactsched.errors import MethodError
from exactsched.registry import OneOf, Range, available_methods, get_method

EXAMPLE = load_instance("examples/topcuoglu2002.json")
TINY = Problem.from_lists([[2, 3], [3, 1], [1, 2]], [(0, 1, 1), (0, 2, 1)])

PROBES: list[Any] = [0, 1, -1, 2, 2.0, 0.5, 1.5, 100, "zzz", "", None, True, False,
                     math.nan, math.inf, [1]]  # fmt: skip
# Lists of heuristic names, checked in tests/test_cli.py.
SKIPPED = {("cpsat", "hint_heuristics")}

OPTIONS = [
    (m.name, key)
    for m in available_methods()
    for key in m.to_json()["accepts"]
    if (m.name, key) not in SKIPPED
]


def _problem(name: str) -> Problem:
    return TINY if get_method(name).kind == "exact" else EXAMPLE


def _alternative(word: str) -> Callable[[Any], bool]:
    """A predicate for one alternative of an ``accepts`` text."""

    def real(v: Any) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)

    def compare(v: float, op: str, bound: str) -> bool:
        b = float(bound)
        return {">=": v >= b, ">": v > b, "<": v < b, "<=": v <= b}[op]

    if word == "true":
        return lambda v: v is True
    if word == "false":
        return lambda v: v is False
    if word == "none":
        return lambda v: v is None
    if re.fullmatch(r"'[^']*'", word):
        return lambda v: isinstance(v, str) and v == word[1:-1]
    if word == "a string":
        return lambda v: isinstance(v, str)
    if word == "a mapping":
        return lambda v: isinstance(v, Mapping)
    if word == "a callable":
        return callable
    if m := re.fullmatch(r"an integer (>=|>) (-?\d+)", word):
        op, bound = m.groups()
        return lambda v: isinstance(v, int) and not isinstance(v, bool) and compare(v, op, bound)
    if m := re.fullmatch(r"an integer from (-?\d+) to (-?\d+)", word):
        lo, hi = map(int, m.groups())
        return lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi
    if m := re.fullmatch(r"a finite number (>=|>) (\S+)", word):
        op, bound = m.groups()
        return lambda v: real(v) and compare(v, op, bound)
    if m := re.fullmatch(r"a number (>=|>) (\S+) and (<|<=) (\S+)", word):
        op1, b1, op2, b2 = m.groups()
        return lambda v: real(v) and compare(v, op1, b1) and compare(v, op2, b2)
    raise AssertionError(f"an accepts text this test cannot read: {word!r}")


def accepted_by_text(text: str) -> Callable[[Any], bool]:
    """What the ``accepts`` text ``'a', 'b' or an integer >= 1`` admits, as a predicate."""
    head, _, last = text.rpartition(" or ")
    words = ([*head.split(", ")] if head else []) + [last]
    tests = [_alternative(w) for w in words]
    return lambda v: any(t(v) for t in tests)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _refusal(name: str, key: str, value: Any) -> str | None:
    """The message refusing ``key=value`` through solve, or None if it is accepted.

    A refusal of the instance (bruteforce's ``max_tasks``) is no refusal of the value.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            solve(_problem(name), name, time_limit=5, workers=1, **{key: value})
    except MethodError as exc:
        message = str(exc)
        if message.startswith((f"option {key}:", f"{key}:")):
            return message
    return None


def test_every_signature_can_be_read():
    # An annotation that cannot be resolved would silently check nothing.
    for m in available_methods():
        typing.get_type_hints(m.func, include_extras=True)
        assert "any value" not in m.to_json()["accepts"].values(), m.name


@pytest.mark.parametrize(("name", "key"), OPTIONS)
def test_accepts_text_is_what_solve_accepts(name, key):
    text = get_method(name).to_json()["accepts"][key]
    admits = accepted_by_text(text)
    for value in PROBES:
        refusal = _refusal(name, key, value)
        assert (refusal is None) == admits(value), (name, key, value, text, refusal)
        if refusal is not None:
            assert refusal == f"option {key}: expected {text}, got {_show(value)}"


def _declared() -> list[tuple[str, str, type, Any]]:
    """(method, option, base type, Range or OneOf) for every narrowing declaration."""
    out = []
    for m in available_methods():
        for key, annotation in m.option_types.items():
            union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
            for arm in typing.get_args(annotation) if union else (annotation,):
                if typing.get_origin(arm) is typing.Annotated:
                    base, *marks = typing.get_args(arm)
                    out += [(m.name, key, base, k) for k in marks if isinstance(k, Range | OneOf)]
    return out


DECLARED = _declared()


def test_the_audited_options_are_declared():
    declared = {(name, key) for name, key, _, _ in DECLARED}
    for name in ("bl-est-part", "bl-est-busy", "bl-macro", "etf-part", "etf-busy", "etf-macro"):
        assert (name, "alpha") in declared
    for key in ("n_children", "proc_samples"):
        assert ("heft-lookahead", key) in declared
    assert ("milp", "solver") in declared
    # Every string option of the registry names its values.
    for m in available_methods():
        for key, text in m.to_json()["accepts"].items():
            assert "a string" not in text, (m.name, key, text)


@pytest.mark.parametrize(
    ("name", "key", "text"),
    [
        ("bl-est-part", "alpha", "an integer >= 1"),
        ("etf-macro", "alpha", "an integer >= 1"),
        ("heft-lookahead", "n_children", "an integer >= 1"),
        ("heft-lookahead", "proc_samples", "an integer >= 1 or none"),
        ("heft-lookahead", "child_sampling", "'random', 'priority' or none"),
        ("milp", "solver", "'highs' or 'scip'"),
        ("milp", "relative_gap", "a number >= 0 and < 1"),
        ("cpsat", "relative_gap", "a number >= 0 and < 1"),
        ("cpsat", "resolution", "a finite number > 0 or none"),
        ("bruteforce", "max_tasks", "an integer >= 0"),
        ("heft-nc", "x", "a finite number >= 0"),
        ("pets", "dtc", "'mean' or 'worst'"),
    ],
)
def test_audited_descriptions(name, key, text):
    assert get_method(name).to_json()["accepts"][key] == text


def test_alpha_two_point_zero_names_the_true_range():
    with pytest.raises(MethodError, match=r"^option alpha: expected an integer >= 1, got 2\.0$"):
        solve(EXAMPLE, "bl-est-part", alpha=2.0)
    with pytest.raises(MethodError, match=r"^option alpha: expected an integer >= 1, got 0$"):
        solve(EXAMPLE, "etf-macro", alpha=0)


def _direct(name: str, key: str, value: Any) -> None:
    info = get_method(name)
    extra = {"time_limit": 5, "workers": 1} if info.kind == "exact" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        info.func(_problem(name), **extra, **{key: value})


@pytest.mark.parametrize(
    ("name", "key", "base", "mark"), DECLARED, ids=[f"{d[0]}-{d[1]}" for d in DECLARED]
)
def test_the_method_itself_agrees_with_its_declaration(name, key, base, mark):
    # Called directly, past check_options: it must accept every declared value and
    # refuse those of the right type the declaration refuses.
    if isinstance(mark, OneOf):
        accepted = list(mark.values)
        refused: list[Any] = ["zzz", "", mark.values[0].upper() + "!"]
    else:
        candidates = [-1, 0, 1, 2, 3] if base is int else [-1.0, 0.0, 0.5, 1.0, 2.0]
        accepted = [v for v in candidates if mark.admits(base, v)]
        refused = [v for v in candidates if not mark.admits(base, v)]
    assert accepted and refused
    for value in accepted:
        _direct(name, key, value)
    for value in refused:
        with pytest.raises(MethodError):
            _direct(name, key, value)
