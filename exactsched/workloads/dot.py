"""Reader and writer of Sinnen's task graphs in Graphviz DOT form.

Contract
--------
:func:`read_dot` reads one ``digraph`` whose node attribute ``Weight`` is the
task's execution time and whose edge attribute ``Weight`` is the communication
delay of the edge, paid only when its two tasks run on different processors.
The result is a :class:`~exactsched.Problem` on ``n_processors`` identical,
fully connected processors (``latency = 0``, ``bandwidth = 1``), or on any
``platform``, so the
``data`` of an edge equals its ``Weight``: the classic model of Sinnen's
textbook and of the optimal-scheduling benchmarks built on his generator.

Task ids are the DOT node names; tasks are ordered by number when every name
is a non-negative integer, else by first appearance.

The default reader takes the DOT subset that graph generators write, with
line-numbered errors; ``engine="pydot"`` reads all of DOT through pydot
(measured far slower, see :func:`read_dot`), and :func:`write_dot` writes
through networkx and pydot. The subset: ``[strict] digraph [ID] { ... }``
holding node statements ``ID [attrs]``, edge statements
``ID -> ID (-> ID)* [attrs]``, graph/node/edge default statements
(``graph [...]``, ``node [...]``, ``edge [...]``, ``a = b``), quoted or bare
IDs, and ``//``, ``/* */`` and ``#`` comments. Subgraphs, ports and undirected
graphs are refused (the pydot engine flattens subgraphs and drops ports).
Every error raises :class:`~exactsched.InstanceError` with a message starting
``file:line:`` (``file:`` when pydot gives no line).

References
----------
.. [1] O. Sinnen, "Task Scheduling for Parallel Systems", Wiley, 2007.
"""

from __future__ import annotations

import os
import re
from typing import Any

from exactsched.errors import InstanceError, MethodError
from exactsched.instance import UnderflowError, read_float
from exactsched.problem import Problem
from exactsched.workloads._source import read_source

__all__ = ["read_dot", "read_dot_optima", "write_dot"]

_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/|\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<arrow>->|--)
  | (?P<id>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?![A-Za-z_])
          |[A-Za-z_\x80-\uffff][A-Za-z_0-9\x80-\uffff]*)
  | (?P<symbol>[{}\[\]=,;:])
    """,
    re.VERBOSE | re.DOTALL,
)

_KEYWORDS = {"strict", "graph", "digraph", "node", "edge", "subgraph"}


class _Lexer:
    """Tokens ``(kind, text, line)``; ``kind`` is ``id``, ``string``, ``arrow`` or the symbol."""

    def __init__(self, text: str, label: str) -> None:
        self.label = label
        self.tokens: list[tuple[str, str, int]] = []
        self.quoted: set[int] = set()
        line, pos = 1, 0
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None:
                word = re.match(r"[^\s;,\]\[{}=]+", text[pos:])
                near = f" in {word.group()!r}" if word and len(word.group()) > 1 else ""
                hint = ""
                if word and re.fullmatch(r"-?[0-9.]+[eE][-+]?[0-9]+", word.group()):
                    hint = ' (a DOT number has no exponent: quote it, e.g. "1e3")'
                raise InstanceError(
                    f"{label}:{line}: unexpected character {text[pos]!r}{near}{hint}"
                )
            kind, value = match.lastgroup or "", match.group()
            if kind == "string":  # a quoted ID is never a keyword
                self.quoted.add(len(self.tokens))
                self.tokens.append(("id", _unescape(value[1:-1]), line))
            elif kind == "id":
                self.tokens.append(("id", value, line))
            elif kind == "arrow":
                self.tokens.append(("arrow", value, line))
            elif kind == "symbol":
                self.tokens.append((value, value, line))
            line += value.count("\n")
            pos = match.end()
        self.end_line = line
        self.pos = 0

    def peek(self) -> tuple[str, str, int]:
        if self.pos < len(self.tokens):
            return self.tokens[self.pos]
        return ("eof", "end of file", self.end_line)

    def next(self) -> tuple[str, str, int]:
        token = self.peek()
        self.pos += 1
        return token

    def expect(self, kind: str, what: str) -> tuple[str, str, int]:
        token = self.next()
        if token[0] != kind:
            self.fail(token, f"expected {what}, got {token[1]!r}")
        return token

    def fail(self, token: tuple[str, str, int], message: str) -> None:
        raise InstanceError(f"{self.label}:{token[2]}: {message}")


def _attributes(lex: _Lexer) -> dict[str, tuple[str, int]]:
    """One or more ``[k = v, ...]`` lists; values with their line numbers."""
    attrs: dict[str, tuple[str, int]] = {}
    while lex.peek()[0] == "[":
        lex.next()
        while lex.peek()[0] != "]":
            key = lex.expect("id", "an attribute name or ']'")
            if lex.peek()[0] == "=":
                lex.next()
                value = lex.expect("id", f"a value for attribute {key[1]!r}")
                attrs[key[1]] = (value[1], value[2])
            else:
                attrs[key[1]] = ("true", key[2])
            if lex.peek()[0] in (",", ";"):
                lex.next()
        lex.next()
    return attrs


# A number as DOT tools write one: ASCII digits (Python's float() also takes "1_5"
# and other scripts' digits, "٣"), or a word for infinity or nan, refused later.
_NUMBER = re.compile(
    r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
    re.IGNORECASE,
)
_INTEGER = re.compile(r"\+?[0-9]+")


def _read_number(text: str) -> int | float:
    """``text`` as a number: an integer exactly (2**53 + 1 stays), any other as a float.

    Raises
    ------
    ValueError
        For anything but a plain decimal number.
    UnderflowError
        For a nonzero number that rounds to 0.
    """
    text = text.strip()  # a quoted " 3" is 3, as float() reads it
    if not _NUMBER.fullmatch(text):
        raise ValueError(text)
    if _INTEGER.fullmatch(text):
        return int(text)
    return read_float(text)


def _weight(attrs: dict[str, tuple[str, int]], label: str, what: str) -> int | float | None:
    for key in ("Weight", "weight"):
        if key in attrs:
            text, line = attrs[key]
            try:
                value = _read_number(text)
            except UnderflowError as exc:
                raise InstanceError(f"{_where(label, line)}: {what}: Weight: {exc}") from None
            except ValueError:
                raise InstanceError(
                    f"{label}:{line}: {what}: Weight must be a number, got {text!r}"
                ) from None
            if not value >= 0 or value == float("inf"):
                raise InstanceError(f"{label}:{line}: {what}: Weight must be finite and >= 0")
            if isinstance(value, int):
                return value
            return int(value) if value.is_integer() else value
    return None


def _node_id(lex: _Lexer) -> tuple[str, int]:
    quoted = lex.pos in lex.quoted
    kind, text, line = lex.next()
    if kind != "id" or (text.lower() in _KEYWORDS and not quoted):
        lex.fail((kind, text, line), f"expected a node name, got {text!r}")
    if lex.peek()[0] == ":":
        lex.fail(lex.peek(), "ports (node:port) are not supported")
    return text, line


def _parse(text: str, label: str) -> tuple[str, list[Any], list[Any]]:
    """The graph name, nodes ``(name, attrs, line)`` and edges ``(src, dst, attrs, line)``."""
    lex = _Lexer(text, label)
    token = lex.next()
    if token[0] == "id" and token[1].lower() == "strict":
        token = lex.next()
    if token[0] != "id" or token[1].lower() != "digraph":
        lex.fail(token, f"expected 'digraph', got {token[1]!r} (only directed graphs are read)")
    name = ""
    if lex.peek()[0] == "id":
        name = lex.next()[1]
    lex.expect("{", "'{'")
    nodes: dict[str, list[Any]] = {}
    edges: list[Any] = []
    edge_defaults: dict[str, tuple[str, int]] = {}
    node_defaults: dict[str, tuple[str, int]] = {}
    while True:
        token = lex.peek()
        if token[0] == "}":
            lex.next()
            break
        if token[0] == "eof":
            lex.fail(token, "expected '}' before the end of the file")
        if token[0] == ";":
            lex.next()
            continue
        if token[0] != "id":
            lex.fail(token, f"expected a statement, got {token[1]!r}")
        word = "" if lex.pos in lex.quoted else token[1].lower()
        if word == "subgraph":
            lex.fail(token, "subgraphs are not supported")
        if word in ("graph", "node", "edge"):
            lex.next()
            if lex.peek()[0] != "[":
                lex.fail(lex.peek(), f"expected '[' after {token[1]!r}, got {lex.peek()[1]!r}")
            attrs = _attributes(lex)
            if word == "node":
                node_defaults.update(attrs)
            elif word == "edge":
                edge_defaults.update(attrs)
            continue
        first, line = _node_id(lex)
        if lex.peek()[0] == "=":  # graph attribute a = b
            lex.next()
            lex.expect("id", f"a value for {first!r}")
            continue
        chain = [(first, line)]
        while lex.peek()[0] == "arrow":
            arrow = lex.next()
            if arrow[1] == "--":
                lex.fail(arrow, "'--' is an undirected edge; expected '->'")
            chain.append(_node_id(lex))
        attrs = _attributes(lex)
        for node, node_line in chain:
            if node not in nodes:
                nodes[node] = [node, dict(node_defaults), node_line]
        if len(chain) == 1:
            nodes[first][1].update(attrs)
            nodes[first][2] = line
        else:
            for (src, _), (dst, dst_line) in zip(chain, chain[1:], strict=False):
                edges.append((src, dst, {**edge_defaults, **attrs}, dst_line))
    extra = lex.peek()
    if extra[0] != "eof":
        lex.fail(extra, f"unexpected {extra[1]!r} after the graph")
    return name, list(nodes.values()), edges


def _where(label: str, line: int | None) -> str:
    return f"{label}:{line}" if line else label


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return _unescape(text[1:-1])
    return text


def _unescape(text: str) -> str:
    """A quoted DOT ID's text: ``\\"`` is a quote and ``\\\\`` a backslash (as written by
    :func:`write_dot`), a backslash before a line end continues the line (the DOT
    grammar; Graphviz splits long strings so); any other backslash stays as it is.
    """
    return re.sub(r'\\([\\"]|\r?\n)', lambda m: "" if m[1][-1] == "\n" else m[1], text)


def _costs(
    attrs: dict[str, Any], label: str, what: str, proc_ids: list[str]
) -> tuple[list[float], list[str]] | None:
    """A node's ``Costs`` (one number per processor, ``inf`` where it may not run)."""
    if "Costs" not in attrs:
        return None
    text, line = attrs["Costs"]
    where = _where(label, line)
    try:
        values = [_read_number(x) for x in text.split()]
    except UnderflowError as exc:
        raise InstanceError(f"{where}: {what}: Costs: {exc}") from None
    except ValueError:
        raise InstanceError(f"{where}: {what}: Costs must be numbers, got {text!r}") from None
    if len(values) != len(proc_ids):
        raise InstanceError(
            f"{where}: {what}: Costs lists {len(values)} numbers, the platform has "
            f"{len(proc_ids)} processors"
        )
    if any(not v >= 0 for v in values):
        raise InstanceError(f"{where}: {what}: Costs must be >= 0 (inf where it may not run)")
    allowed = [pid for pid, v in zip(proc_ids, values, strict=True) if v != float("inf")]
    if not allowed:
        raise InstanceError(f"{where}: {what}: Costs is inf on every processor")
    numbers = [
        v if isinstance(v, int) else (int(v) if v.is_integer() else v) if v != float("inf") else 0
        for v in values
    ]
    return numbers, allowed


def _parse_pydot(text: str, label: str) -> tuple[str, list[Any], list[Any]]:
    """:func:`_parse` through pydot and networkx: the whole DOT language, no line numbers.

    Subgraphs are flattened and ports dropped; ``node [...]`` and ``edge [...]``
    default statements are not applied.
    """
    import contextlib
    import io
    import warnings

    captured = io.StringIO()
    # pydot prints its parse errors; its pyparsing grammar warns of deprecations.
    with contextlib.redirect_stdout(captured), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pydot

        graphs = pydot.graph_from_dot_data(text)
    if not graphs:
        found = re.search(r"\(line:(\d+), col:\d+\)", captured.getvalue())
        lines = [x.strip() for x in captured.getvalue().splitlines() if x.strip()]
        reason = next((x for x in lines if x.startswith("Expected")), "not a DOT graph")
        reason = re.sub(r"\s*\(at char \d+\).*", "", reason)
        raise InstanceError(f"{_where(label, int(found[1]) if found else None)}: {reason}")
    graph = graphs[0]
    if graph.get_type() != "digraph":
        raise InstanceError(f"{label}: expected 'digraph' (only directed graphs are read)")
    name = graph.get_name().strip('"')

    def clean(node_id: str) -> str:
        return _unquote(str(node_id).split(":", 1)[0] if not node_id.startswith('"') else node_id)

    def attrs(values: dict[str, Any]) -> dict[str, tuple[str, int | None]]:
        return {k: (_unquote(str(v)), None) for k, v in values.items()}

    found: dict[str, list[Any]] = {}
    edges: list[Any] = []

    def walk(g: Any) -> None:  # the graph, then its subgraphs, flattened
        for node in g.get_nodes():
            key = clean(node.get_name())
            if key in ("node", "edge", "graph"):
                continue
            entry = found.setdefault(key, [key, {}, None])
            entry[1].update(attrs(node.get_attributes()))
        for edge in g.get_edges():
            src, dst = clean(edge.get_source()), clean(edge.get_destination())
            for key in (src, dst):
                found.setdefault(key, [key, {}, None])
            edges.append((src, dst, attrs(edge.get_attributes()), None))
        for sub in g.get_subgraphs():
            walk(sub)

    walk(graph)
    nodes = list(found.values())
    return name, nodes, edges


def read_dot(
    source: str | os.PathLike[str],
    n_processors: int | None = None,
    *,
    platform: Any = None,
    name: str | None = None,
    engine: str = "builtin",
) -> Problem:
    """Read a DOT task graph with ``Weight`` attributes as a problem with communication.

    Parameters
    ----------
    source : str or path-like
        A file path, or the DOT text itself (a string containing a newline).
    n_processors : int, optional
        Number of identical processors (>= 1), fully connected.
    platform : str, path or mapping, optional
        Instead of ``n_processors``: any platform
        :func:`~exactsched.workloads.platforms.resolve_platform` takes (a task
        then costs its ``Weight`` on every processor, an edge carries its
        ``Weight`` as data).
    name : str, optional
        Problem name; default the graph's name in the file.
    engine : str
        ``"builtin"`` (default): the reader of this module (the subset above,
        errors with line numbers); ``"pydot"``: parse with pydot and networkx
        (all of DOT; see Notes).

    Returns
    -------
    Problem
        One task per node (cost = node ``Weight``), one data edge per DOT edge
        (``data`` = edge ``Weight``, 0 when absent), except an edge with
        ``kind=order``, an order pair (no message: no latency, no port);
        processors ``"p0" ..``.

    Raises
    ------
    InstanceError
        ``file:line: ...`` for a syntax error, an unsupported construct, a node
        without ``Weight``, a non-numeric or negative weight, a repeated edge,
        a self loop; and for a cycle.
    MethodError
        If ``n_processors`` is not a positive integer, or neither it nor
        ``platform`` is given, or the engine is unknown.

    Examples
    --------
    >>> text = '''digraph "g" {
    ...   a [Weight=2];
    ...   b [Weight=3];
    ...   a -> b [Weight=5];
    ... }'''
    >>> p = read_dot(text, 2)
    >>> p.task_ids, p.cost[:, 0].tolist(), p.comm(0, 0, 1), p.comm(0, 1, 1)
    (('a', 'b'), [2.0, 3.0], 5.0, 0.0)
    >>> read_dot(text, 2, engine="pydot") == p
    True
    >>> read_dot(text, platform="mesh:2x2").network["topology"]
    'mesh'
    >>> read_dot('digraph {\\n a [Weight=2];\\n a -> b;\\n}', 1)
    Traceback (most recent call last):
    ...
    exactsched.errors.InstanceError: dot:3: node 'b' has no Weight

    Notes
    -----
    The built-in reader is kept as the default because it is measured about 65
    times faster than pydot (a 2000-node, 10,000-edge graph: 0.38 s against
    25 s of CPU time, ``benchmarks/workloads.py``), gives the line of every
    error, and pydot reports syntax errors only by printing them.
    :func:`write_dot` writes through networkx and pydot.

    References
    ----------
    .. [1] O. Sinnen, "Task Scheduling for Parallel Systems", Wiley, 2007.
    """
    if engine not in ("builtin", "pydot"):
        raise MethodError(f"engine: unknown {engine!r}; known: builtin, pydot")
    if platform is None:
        if n_processors is None:
            raise MethodError("read_dot: give n_processors or a platform")
        if isinstance(n_processors, bool) or not isinstance(n_processors, int) or n_processors < 1:
            raise MethodError(f"n_processors: expected a positive integer, got {n_processors!r}")
        platform_doc: Any = {
            "processors": [{"id": f"p{k}"} for k in range(n_processors)],
            "network": {"topology": "fully-connected"},
        }
    else:
        from exactsched.workloads.platforms import resolve_platform

        platform_doc = resolve_platform(platform).document
    # newline="": a carriage return inside a quoted id stays one (the tokens treat
    # it as a blank elsewhere); read as a line end, "x\ry" came back as "x\ny".
    text, label, _ = read_source(source, "dot", newline="")
    # A UTF-8 byte-order mark (Windows editors) is no part of the graph, as for instances.
    text = text.removeprefix("\ufeff")
    parse = _parse if engine == "builtin" else _parse_pydot
    graph_name, nodes, edges = parse(text, label)
    if not nodes:
        raise InstanceError(f"{label}:1: the graph has no nodes")
    if all(node[0].isascii() and node[0].isdigit() for node in nodes):  # not "²"
        nodes.sort(key=lambda node: int(node[0]))
    proc_ids = _processor_ids(platform_doc)
    tasks = []
    for node_name, attrs, line in nodes:
        weight = _weight(attrs, label, f"node {node_name!r}")
        if weight is None:
            raise InstanceError(f"{_where(label, line)}: node {node_name!r} has no Weight")
        task: dict[str, Any] = {"id": node_name, "cost": weight}
        costs = _costs(attrs, label, f"node {node_name!r}", proc_ids)
        if costs is not None:
            task["cost"], allowed = costs
            if len(allowed) < len(proc_ids):
                task["processors"] = allowed
        tasks.append(task)
    seen: set[tuple[str, str]] = set()
    doc_edges = []
    order = []
    for src, dst, attrs, line in edges:
        if src == dst:
            raise InstanceError(f"{_where(label, line)}: self loop on node {src!r}")
        if (src, dst) in seen:
            raise InstanceError(f"{_where(label, line)}: edge {src!r} -> {dst!r} appears twice")
        seen.add((src, dst))
        data = _weight(attrs, label, f"edge {src!r} -> {dst!r}")
        if attrs.get("kind", ("",))[0] == "order":  # a precedence without a message
            if data:
                raise InstanceError(
                    f"{_where(label, line)}: edge {src!r} -> {dst!r}: an order pair"
                    f" (kind=order) carries no data, got Weight {data!r}"
                )
            order.append([src, dst])
            continue
        doc_edges.append({"src": src, "dst": dst, "data": 0 if data is None else data})
    document = {
        "format": "exactsched/instance@1",
        "name": name if name is not None else graph_name,
        "platform": platform_doc,
        "tasks": tasks,
        "edges": doc_edges,
    }
    if order:
        document["order"] = order
    try:
        return Problem.from_json(document)
    except InstanceError as exc:  # a cycle: the core names the tasks
        raise InstanceError(f"{label}: {exc}") from None


def write_dot(problem: Problem, path: str | os.PathLike[str] | None = None) -> str:
    """The task graph of ``problem`` as DOT text (Sinnen's ``Weight`` attributes).

    Written through networkx and pydot. A node's ``Weight`` is the task's cost
    when it is the same on every processor it may run on, else its mean cost
    there (and the attribute ``Costs`` lists the cost per processor, ``inf``
    outside its affinity); an edge's ``Weight`` is its data. An order pair
    that is not also an edge becomes an edge of ``Weight`` 0 with ``kind=order``
    (a precedence without a message, read back as an order pair; tools that
    know only ``Weight`` see a data-free edge). Isolation pairs and the platform
    are not part of the format and are dropped
    (:func:`exactsched.commands.workloads.write_problem` warns).

    Parameters
    ----------
    problem : Problem
    path : str or path-like, optional
        Also write the text to this file.

    Returns
    -------
    str

    Examples
    --------
    >>> p = Problem.from_lists([2, 3], [(0, 1, 5)], n_processors=2, name="g")
    >>> print(write_dot(p), end="")
    strict digraph g {
    t0 [Weight=2];
    t1 [Weight=3];
    t0 -> t1 [Weight=5];
    }
    >>> read_dot(write_dot(p), 2).to_json()["edges"]
    [{'src': 't0', 'dst': 't1', 'data': 5}]
    """
    import networkx as nx

    # DOT is text: a NUL cannot be quoted, and the reader refuses a file holding one.
    for i, task in enumerate(problem.task_ids):
        if "\0" in task:
            raise InstanceError(f"tasks[{i}].id: {task!r} holds a NUL, which DOT cannot hold")
    if "\0" in (problem.name or ""):
        raise InstanceError(f"name: {problem.name!r} holds a NUL, which DOT cannot hold")
    g = nx.DiGraph(name=problem.name or "G")

    def number(value: float) -> str:
        return str(int(value)) if float(value).is_integer() else repr(float(value))

    mean = problem.mean_cost()
    for i, task in enumerate(problem.task_ids):
        allowed = problem.cost[i][problem.allowed[i]]
        same = len(set(allowed.tolist())) == 1
        # One cost everywhere: that number itself, not a float mean of its copies (the
        # mean of three 0.1 is 0.10000000000000002; an outside audit, session 17).
        attrs = {"Weight": number(allowed[0] if same else mean[i])}
        if not same or not problem.allowed[i].all():
            attrs["Costs"] = '"' + " ".join(number(c) for c in problem.cost[i]) + '"'
        g.add_node(_dot_id(task), **attrs)
    for a, b, d in zip(
        problem.edge_src.tolist(),
        problem.edge_dst.tolist(),
        problem.edge_data.tolist(),
        strict=True,
    ):
        g.add_edge(_dot_id(problem.task_ids[a]), _dot_id(problem.task_ids[b]), Weight=number(d))
    for a, b in zip(problem.order_src.tolist(), problem.order_dst.tolist(), strict=True):
        src, dst = _dot_id(problem.task_ids[a]), _dot_id(problem.task_ids[b])
        if not g.has_edge(src, dst):  # an order pair that repeats an edge adds nothing
            # kind=order: read back as an order pair; a data edge of Weight 0 would pay
            # the network's latency (and hold ports under contention).
            g.add_edge(src, dst, Weight="0", kind="order")
    dot = nx.nx_pydot.to_pydot(g)
    dot.set_name(_dot_id(problem.name or "G"))
    dot.obj_dict["attributes"].pop("name", None)
    text = dot.to_string()
    if path is not None:
        from exactsched._output import atomic_write

        with atomic_write(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text


def _processor_ids(platform_doc: Any) -> list[str]:
    """The processor ids of a platform document (a preset expanded)."""
    from exactsched.instance import _expand_preset

    expanded = _expand_preset(platform_doc)
    return [str(p["id"]) for p in expanded["processors"]]


def _dot_id(name: str) -> str:
    """``name`` as a DOT ID: bare when it is one, else quoted."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)", name) and (
        name.lower() not in _KEYWORDS
    ):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def read_dot_optima(path: str | os.PathLike[str]) -> dict[tuple[str, int], int]:
    """Read a table of optimal makespans (``#`` starts a comment).

    Two layouts are read: lines ``file P optimum``, or a wide table whose
    header (a comment is fine) names two or more columns ``P=1 P=2 ...`` followed by
    lines ``graph optimum optimum ...``, one per graph (``.dot`` is added to a
    graph name without a suffix).

    Parameters
    ----------
    path : str or path-like
        A file path, or the text itself (a string containing a newline).

    Returns
    -------
    dict
        ``(file, P) -> optimum``.

    Raises
    ------
    InstanceError
        ``file:line: ...`` for a line that fits neither layout or a repeated key.

    Examples
    --------
    >>> read_dot_optima("# comment\\nNodes_7_OutTree.dot 2 28\\n")
    {('Nodes_7_OutTree.dot', 2): 28}
    >>> read_dot_optima("# graph P=2 P=4\\nNodes_7_OutTree 28 22\\n")
    {('Nodes_7_OutTree.dot', 2): 28, ('Nodes_7_OutTree.dot', 4): 22}
    """
    text, label, _ = read_source(path, "optima")
    columns: list[int] = []
    header = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        found = re.findall(r"\bP=(\d+)\b", raw)
        if len(found) >= 2:  # a header row "graph P=1 P=2 ...", not prose about P = 2
            columns, header = [int(c) for c in found], number
            break
    table: dict[tuple[str, int], int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split("#", 1)[0].split()
        if not fields or number == header:
            continue
        values = fields[1:]
        if columns:  # a wide table has only wide rows
            if len(values) != len(columns) or not all(v.isdigit() for v in values):
                raise InstanceError(
                    f"{label}:{number}: expected 'graph' and {len(columns)} optima, "
                    f"got {raw.strip()!r}"
                )
            name = fields[0] if "." in fields[0] else f"{fields[0]}.dot"
            rows = [(name, c, int(v)) for c, v in zip(columns, values, strict=True)]
        elif len(fields) == 3 and fields[1].isdigit() and fields[2].isdigit():
            rows = [(fields[0], int(fields[1]), int(fields[2]))]
        else:
            raise InstanceError(
                f"{label}:{number}: expected 'file P optimum', got {raw.strip()!r}"
            )
        for name, procs, optimum in rows:
            if (name, procs) in table:
                raise InstanceError(f"{label}:{number}: {name} with P = {procs} appears twice")
            table[name, procs] = optimum
    return table
