"""Reader of the Standard Task Graph (STG) format of Tobita and Kasahara.

Contract
--------
:func:`read_stg` turns one ``.stg`` file into a :class:`~exactsched.Problem`
on ``n_processors`` identical processors, fully connected, without
communication (every edge carries ``data = 0``): the model under which the
STG optimal schedule lengths were published. The dummy entry task ``0`` and
exit task ``n + 1`` (cost 0) are kept; they change no makespan. Task ``k``
of the file becomes the task with id ``"t{k}"`` at index ``k``.

:func:`read_stg_optima` reads the published results, one CSV row per graph and
processor count: ``N/randXXXX.stg,P,OPT`` (proven optimum) or
``N/randXXXX.stg,P,LB,UB`` (open: best known bounds).

The file format
---------------
The first number is ``n``, the number of real tasks. Then come ``n + 2`` task
records ``id cost n_pred pred_1 ... pred_{n_pred}`` in any order of ``id``
(usually one record per line; a record may continue on the next lines). Text
from ``#`` to the end of a line is a comment (the generator's notes).

Every malformed input raises :class:`~exactsched.InstanceError` whose message
starts with ``file:line:``.

References
----------
.. [1] T. Tobita and H. Kasahara, "A standard task graph set for fair evaluation
   of multiprocessor scheduling algorithms", Journal of Scheduling 5(5),
   pp. 379-394, 2002, doi:10.1002/jos.116.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from exactsched.errors import InstanceError
from exactsched.limits import MAX_TASKS, check_size
from exactsched.problem import Problem
from exactsched.workloads._source import read_source

__all__ = ["StgOptimum", "read_stg", "read_stg_optima", "write_stg"]


class StgOptimum(NamedTuple):
    """One published STG result: ``bound`` is the optimum or ``(lower, upper)``.

    Examples
    --------
    >>> StgOptimum("50/rand0000.stg", 2, 131).proven
    True
    >>> row = StgOptimum("100/rand0012.stg", 2, (296, 312))
    >>> row.proven, row.lower, row.upper
    (False, 296, 312)
    """

    file: str
    n_processors: int
    bound: int | tuple[int, int]

    @property
    def proven(self) -> bool:
        """Whether the optimum is known (``bound`` is a single number)."""
        return isinstance(self.bound, int)

    @property
    def lower(self) -> int:
        """The optimum, or the best known lower bound of an open row."""
        return self.bound if isinstance(self.bound, int) else self.bound[0]

    @property
    def upper(self) -> int:
        """The optimum, or the best known upper bound of an open row."""
        return self.bound if isinstance(self.bound, int) else self.bound[1]


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    """Whitespace-separated tokens with their 1-based line numbers, comments removed."""
    for number, line in enumerate(text.splitlines(), start=1):
        for token in line.split("#", 1)[0].split():
            yield token, number


def _int(token: str, line: int, label: str, what: str) -> int:
    try:
        if not _INTEGER.fullmatch(token):  # int() also takes "1_0" and other scripts' digits
            raise ValueError(token)
        value = int(token)
    except ValueError:
        raise InstanceError(
            f"{label}:{line}: {what}: expected an integer, got {_excerpt(token)}"
        ) from None
    if value < 0:
        raise InstanceError(f"{label}:{line}: {what}: negative value {value}")
    return value


def _excerpt(text: str, limit: int = 40) -> str:
    """``text`` quoted, cut to ``limit`` characters: an error is one short line.

    >>> _excerpt("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (100 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}"[:-1] + f"...' ({len(text)} characters)"


def _default_name(path: Path | None) -> str:
    if path is None:
        return "stg"
    # "50/rand0000.stg", the key of the optima CSV files, when the folder is the size.
    return f"{path.parent.name}/{path.name}" if path.parent.name.isdigit() else path.name


def read_stg(
    source: str | os.PathLike[str],
    n_processors: int | None = None,
    *,
    platform: Any = None,
    keep_dummies: bool = True,
    name: str | None = None,
) -> Problem:
    """Read an STG task graph as a problem on identical processors without communication.

    Parameters
    ----------
    source : str or path-like
        A file path, or the text of the file (a string containing a newline).
    n_processors : int, optional
        Number of identical processors (>= 1), fully connected.
    platform : str, path or mapping, optional
        Instead of ``n_processors``: any platform
        :func:`~exactsched.workloads.platforms.resolve_platform` takes; a task
        costs its STG cost on every processor.
    keep_dummies : bool
        Keep the zero-cost dummy entry ``t0`` and exit ``t{n+1}`` (default
        True); False drops them and their edges.
    name : str, optional
        Problem name; default ``"N/randXXXX.stg"`` (the key of the optima files)
        when the file sits in a folder named by its size, else the file name.

    Returns
    -------
    Problem
        Tasks ``"t0" .. "t{n+1}"`` (index = STG id) including the zero-cost
        dummy entry and exit tasks; processors ``"p0" ..``; edges with data 0.

    Raises
    ------
    InstanceError
        ``file:line: ...`` for a malformed file: a missing or non-integer field,
        an id out of ``0..n+1`` or repeated, an unknown or repeated predecessor,
        too few or too many records; and for a cycle.
    MethodError
        If ``n_processors`` is not a positive integer.

    Examples
    --------
    >>> text = '''2
    ... 0 0 0
    ... 1 3 1 0
    ... 2 4 1 0
    ... 3 0 2 1 2
    ... # CP Length : 4
    ... '''
    >>> p = read_stg(text, 2)
    >>> p.task_ids, p.cost[:, 0].tolist(), p.n_edges
    (('t0', 't1', 't2', 't3'), [0.0, 3.0, 4.0, 0.0], 4)
    >>> read_stg(text, platform="single-gpu", keep_dummies=False).task_ids
    ('t1', 't2')
    >>> read_stg("1\\n0 0 0\\n1 5 1 9\\n2 0 1 1\\n", 1)
    Traceback (most recent call last):
    ...
    exactsched.errors.InstanceError: stg:3: task 1: predecessor 9 is not a task id (0..2)

    Notes
    -----
    The published optima of the STG set assume no communication, so every edge
    here has data 0; ids need not be sorted in the file.

    References
    ----------
    .. [1] T. Tobita and H. Kasahara, "A standard task graph set for fair
       evaluation of multiprocessor scheduling algorithms", Journal of
       Scheduling 5(5), 2002.
    """
    from exactsched.errors import MethodError

    if platform is None and (
        isinstance(n_processors, bool) or not isinstance(n_processors, int) or n_processors < 1
    ):
        raise MethodError(f"n_processors: expected a positive integer, got {n_processors!r}")
    text, label, path = read_source(source, "stg")
    text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark, as for DOT and JSON
    tokens = _tokens(text)
    last_line = max(1, len(text.splitlines()))

    def take(what: str) -> tuple[int, int]:
        try:
            token, line = next(tokens)
        except StopIteration:
            raise InstanceError(f"{label}:{last_line}: file ends before {what}") from None
        return _int(token, line, label, what), line

    n, line = take("the number of tasks")
    check_size(n, MAX_TASKS, "tasks", f"{label}:{line}: the header")
    n_all = n + 2
    costs: list[int | None] = [None] * n_all
    edges: list[tuple[int, int, int]] = []
    for _record in range(n_all):
        task, line = take(f"task record {_record + 1} of {n_all}")
        if task >= n_all:
            raise InstanceError(f"{label}:{line}: task id {task} out of range 0..{n_all - 1}")
        if costs[task] is not None:
            raise InstanceError(f"{label}:{line}: task {task} appears twice")
        costs[task], _ = take(f"the cost of task {task}")
        n_pred, _ = take(f"the number of predecessors of task {task}")
        seen: set[int] = set()
        for _k in range(n_pred):
            pred, pline = take(f"predecessor {_k + 1} of {n_pred} of task {task}")
            if pred >= n_all:
                raise InstanceError(
                    f"{label}:{pline}: task {task}: predecessor {pred} is not a task id "
                    f"(0..{n_all - 1})"
                )
            if pred == task or pred in seen:
                why = "itself" if pred == task else f"predecessor {pred} twice"
                raise InstanceError(f"{label}:{pline}: task {task} lists {why}")
            seen.add(pred)
            edges.append((pred, task, 0))
    extra = next(tokens, None)
    if extra is not None:
        raise InstanceError(
            f"{label}:{extra[1]}: unexpected {extra[0]!r} after the {n_all} task records"
        )
    if not keep_dummies:
        _check_dummies(costs, edges, n_all, label)
    keep = range(n_all) if keep_dummies else range(1, n_all - 1)
    if platform is None:
        # No network key: fully connected by default (the document of Problem.from_lists).
        platform_doc: Any = {
            "processors": [{"id": f"p{k}"} for k in range(int(n_processors or 1))]
        }
    else:
        from exactsched.workloads.platforms import resolve_platform

        platform_doc = resolve_platform(platform).document
    document = {
        "format": "exactsched/instance@1",
        "name": name if name is not None else _default_name(path),
        "platform": platform_doc,
        "tasks": [{"id": f"t{k}", "cost": int(costs[k] or 0)} for k in keep],
        "edges": [
            {"src": f"t{a}", "dst": f"t{b}", "data": 0}
            for a, b, _ in edges
            if keep_dummies or (0 < a < n_all - 1 and 0 < b < n_all - 1)
        ],
    }
    try:
        return Problem.from_json(document)
    except InstanceError as exc:  # a cycle: the core names the tasks
        raise InstanceError(f"{label}: {exc}") from None


def _check_dummies(
    costs: list[int | None], edges: list[tuple[int, int, int]], n_all: int, label: str
) -> None:
    """Refuse to drop tasks ``0`` and ``n+1`` unless they are the zero-cost entry and exit.

    Dropping a task that works, or that sits inside a chain, would lose work or a
    precedence silently (an outside audit: a lower bound fell from 16 to 4).
    """
    last = n_all - 1
    for task, role in ((0, "entry"), (last, "exit")):
        if costs[task]:
            raise InstanceError(
                f"{label}: cannot drop the dummies: task {task} costs {costs[task]} "
                f"(a dummy {role} costs 0)"
            )
    for a, b, _ in edges:
        if b == 0 or a == last:
            raise InstanceError(
                f"{label}: cannot drop the dummies: task {b if b == 0 else a} has a "
                f"{'predecessor' if b == 0 else 'successor'} (task {a if b == 0 else b})"
            )


def _numbering(
    problem: Problem, weights: Any
) -> tuple[list[set[int]], list[int], dict[int, int], bool]:
    """Predecessors, exit tasks, STG id of each task, and whether the problem's own
    first and last tasks are the dummies (else the writer adds them)."""
    import numpy as np

    order = problem.topological_order.tolist()
    n = problem.n_tasks
    src = np.concatenate([problem.edge_src, problem.order_src]).tolist()
    dst = np.concatenate([problem.edge_dst, problem.order_dst]).tolist()
    preds: list[set[int]] = [set() for _ in range(n)]
    for a, b in zip(src, dst, strict=True):
        preds[b].add(a)
    entries = [i for i in range(n) if not preds[i]]
    has_succ = set(src)
    exits = [i for i in range(n) if i not in has_succ]
    dummies = (
        n >= 2
        and entries == [order[0]]
        and exits == [order[-1]]
        and weights[order[0]] == 0
        and weights[order[-1]] == 0
    )
    first = 0 if dummies else 1
    stg_id = {task: k for k, task in enumerate(order, start=first)}
    return preds, exits, stg_id, bool(dummies)


def read_back_ids(problem: Problem, cost: str = "mean") -> list[str]:
    """The id :func:`read_stg` gives each task of ``problem`` after :func:`write_stg`
    (``t`` and its STG number; with dummies kept), in task order.

    Examples
    --------
    >>> from exactsched import Problem
    >>> read_back_ids(Problem.from_lists([1, 2], [(1, 0)], n_processors=1))
    ['t2', 't1']
    """
    weights = problem.mean_cost() if cost == "mean" else problem.min_cost()
    stg_id = _numbering(problem, weights)[2]
    return [f"t{stg_id[i]}" for i in range(problem.n_tasks)]


def write_stg(
    problem: Problem, path: str | os.PathLike[str] | None = None, *, cost: str = "mean"
) -> str:
    """The task graph of ``problem`` in STG form.

    STG task ``k`` (1..n) is the ``k``-th task of the problem's topological
    order, so every predecessor has a smaller id. When the problem already
    starts with a single entry task of cost 0 and ends with a single exit task
    of cost 0 (an STG read with its dummies), those are the dummies; otherwise
    a dummy entry ``0`` and exit ``n+1`` are added, joined to every entry and
    exit task. Edges and order pairs become predecessors; data, isolation pairs
    and the platform are not part of the format and are dropped.

    Parameters
    ----------
    problem : Problem
    path : str or path-like, optional
        Also write the text to this file.
    cost : str
        STG costs are integers, one per task: the task's ``"mean"`` (default)
        or ``"min"`` cost over the processors it may run on, rounded.

    Returns
    -------
    str

    Examples
    --------
    >>> p = Problem.from_lists([3, 4], [(0, 1)], n_processors=2)
    >>> print(write_stg(p), end="")
    2
    0 0 0
    1 3 1 0
    2 4 1 1
    3 0 1 2
    >>> read_stg(write_stg(p), 2, keep_dummies=False).to_json()["edges"]
    [{'src': 't1', 'dst': 't2', 'data': 0}]
    """

    if cost not in ("mean", "min"):
        raise InstanceError(f"cost: expected 'mean' or 'min', got {cost!r}")
    weights = problem.mean_cost() if cost == "mean" else problem.min_cost()
    order = problem.topological_order.tolist()
    n = problem.n_tasks
    preds, exits, stg_id, dummies = _numbering(problem, weights)
    lines: list[str] = []
    if dummies:
        n_real = n - 2
    else:
        n_real = n
        lines.append("0 0 0")
    lines.insert(0, str(n_real))
    for task in order:
        ps = sorted(stg_id[p] for p in preds[task])
        if not dummies and not ps:
            ps = [0]
        lines.append(" ".join(map(str, [stg_id[task], int(round(weights[task])), len(ps), *ps])))
    if not dummies:
        last = sorted(stg_id[t] for t in exits)
        lines.append(" ".join(map(str, [n + 1, 0, len(last), *last])))
    text = "\n".join(lines) + "\n"
    if path is not None:
        from exactsched._output import atomic_write

        with atomic_write(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text


def read_stg_optima(csv_path: str | os.PathLike[str]) -> list[StgOptimum]:
    """Read a file of published STG results.

    Parameters
    ----------
    csv_path : str or path-like
        A CSV file (or its text) with rows ``file,P,OPT`` or ``file,P,LB,UB``;
        blank lines and lines starting with ``#`` are skipped.

    Returns
    -------
    list of StgOptimum
        In file order.

    Raises
    ------
    InstanceError
        ``file:line: ...`` for a row with the wrong number of fields, a
        non-integer, or ``LB > UB``.

    Examples
    --------
    >>> rows = read_stg_optima("50/rand0000.stg,2,131\\n100/rand0012.stg,2,296,312\\n")
    >>> [(r.file, r.n_processors, r.proven, r.lower, r.upper) for r in rows]
    [('50/rand0000.stg', 2, True, 131, 131), ('100/rand0012.stg', 2, False, 296, 312)]
    """
    text, label, _ = read_source(csv_path, "optima")
    rows: list[StgOptimum] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) not in (3, 4) or not fields[0]:
            raise InstanceError(
                f"{label}:{number}: expected 'file,P,OPT' or 'file,P,LB,UB', got {_excerpt(line)}"
            )
        n_procs = _int(fields[1], number, label, "P")
        values = [_int(f, number, label, "bound") for f in fields[2:]]
        if n_procs < 1:
            raise InstanceError(f"{label}:{number}: P must be >= 1")
        if len(values) == 2 and values[0] > values[1]:
            raise InstanceError(f"{label}:{number}: LB {values[0]} > UB {values[1]}")
        bound: int | tuple[int, int] = values[0] if len(values) == 1 else (values[0], values[1])
        rows.append(StgOptimum(fields[0], n_procs, bound))
    return rows
