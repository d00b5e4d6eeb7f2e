"""The immutable, array-based scheduling problem every method reads.

A :class:`Problem` holds one instance of the format ``exactsched/instance@1``
(see ``docs/instance-format.md``) in the form methods need for speed:

* ``cost``: an ``n x P`` float array, ``inf`` where a task may not run
  (affinity), and ``allowed``, the matching boolean mask;
* ``hops``: the ``P x P`` hop matrix of the network topology;
* *arcs*: every precedence constraint, i.e. the data edges followed by the order
  pairs that do not repeat an edge, as arrays ``arc_src``, ``arc_dst`` and
  ``arc_unit``.  The communication cost of arc ``a`` from processor ``p`` to
  ``q`` is ``arc_unit[a] * hops[p, q]`` (``latency + data / bandwidth`` per hop
  for an edge, 0 for an order pair), see :meth:`Problem.comm`;
* CSR adjacency: the arcs entering task ``j`` are
  ``pred_arcs[pred_ptr[j]:pred_ptr[j + 1]]`` and those leaving ``i`` are
  ``succ_arcs[succ_ptr[i]:succ_ptr[i + 1]]``;
* isolation partners in the same CSR form (``iso_ptr``, ``iso_partners``).

Build problems with :func:`exactsched.load_instance`,
:meth:`Problem.from_json`, :meth:`Problem.from_networkx` or
:meth:`Problem.from_lists`; all of them go through one validator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from exactsched.errors import InstanceError

__all__ = ["Problem", "require_problem"]


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _restore_problem(state: dict[str, Any]) -> Problem:
    """A problem from its pickled slots (:meth:`Problem.__reduce__`), arrays read-only."""
    problem = Problem.__new__(Problem)
    for key, value in state.items():
        if isinstance(value, np.ndarray):
            value = _frozen(value)
        object.__setattr__(problem, key, value)
    object.__setattr__(problem, "_cache", {})
    return problem


def _py(value: Any) -> Any:
    """Plain Python lists and numbers from (nested) sequences and numpy values."""
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, list | tuple | range):
        return [_py(v) for v in value]
    return value


def _csr(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Group the indices ``0..len(keys)-1`` by ``keys`` (stable)."""
    order = np.argsort(keys, kind="stable").astype(np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=ptr[1:])
    return _frozen(ptr), _frozen(order)


class Problem:
    """A validated scheduling problem: a task DAG on a networked platform.

    Do not call the constructor directly; use :func:`exactsched.load_instance`
    or one of the ``from_*`` class methods, which validate their input.

    Attributes
    ----------
    name : str
        Free text from the instance.
    task_ids, proc_ids, proc_types : tuple of str
        Tasks and processors in document order; index ``i`` of every array.
    cost : numpy.ndarray
        ``(n, P)`` execution times, ``inf`` outside a task's affinity.
    allowed : numpy.ndarray
        ``(n, P)`` boolean mask of the processors each task may run on.
    hops : numpy.ndarray
        ``(P, P)`` hop matrix of the topology (zero diagonal).
    latency, bandwidth : float
        Network parameters: one hop of an edge carrying ``data`` costs
        ``latency + data / bandwidth``.
    edge_src, edge_dst, edge_data : numpy.ndarray
        The data edges in document order.
    order_src, order_dst : numpy.ndarray
        The order pairs (duplicates removed, document order kept).
    iso_a, iso_b : numpy.ndarray
        The isolation pairs (duplicates removed).
    arc_src, arc_dst, arc_unit : numpy.ndarray
        All precedence arcs: the edges, then the order pairs that repeat no edge;
        ``arc_unit`` is the communication cost per hop (0 for order pairs).
    topological_order : numpy.ndarray
        A topological order of the tasks; ties go to the smaller task index.

    Examples
    --------
    >>> p = Problem.from_lists([3, 2, 4], [(0, 1, 5), (0, 2, 1)], n_processors=2)
    >>> p.n_tasks, p.n_processors, p.n_edges
    (3, 2, 2)
    >>> p.comm(0, 0, 1)
    5.0
    >>> p.predecessors(1).tolist()
    [0]
    """

    __slots__ = (
        "name",
        "task_ids",
        "proc_ids",
        "proc_types",
        "task_index",
        "proc_index",
        "network",
        "topology",
        "hops",
        "latency",
        "bandwidth",
        "cost",
        "allowed",
        "edge_src",
        "edge_dst",
        "edge_data",
        "order_src",
        "order_dst",
        "iso_a",
        "iso_b",
        "arc_src",
        "arc_dst",
        "arc_unit",
        "pred_ptr",
        "pred_arcs",
        "succ_ptr",
        "succ_arcs",
        "iso_ptr",
        "iso_partners",
        "topological_order",
        "_json",
        "_cache",
    )
    # The slots' types (for readers and type checkers; __init__ sets them all).
    name: str
    task_ids: tuple[str, ...]
    proc_ids: tuple[str, ...]
    proc_types: tuple[str, ...]
    task_index: dict[str, int]
    proc_index: dict[str, int]
    network: dict[str, Any]
    topology: Any
    hops: np.ndarray
    latency: float
    bandwidth: float
    cost: np.ndarray
    allowed: np.ndarray
    edge_src: np.ndarray
    edge_dst: np.ndarray
    edge_data: np.ndarray
    order_src: np.ndarray
    order_dst: np.ndarray
    iso_a: np.ndarray
    iso_b: np.ndarray
    arc_src: np.ndarray
    arc_dst: np.ndarray
    arc_unit: np.ndarray
    pred_ptr: np.ndarray
    pred_arcs: np.ndarray
    succ_ptr: np.ndarray
    succ_arcs: np.ndarray
    iso_ptr: np.ndarray
    iso_partners: np.ndarray
    topological_order: np.ndarray
    _json: dict[str, Any] | None
    _cache: dict[str, Any]

    def __init__(self, **fields: Any) -> None:
        for key, value in fields.items():
            if isinstance(value, np.ndarray):
                value = _frozen(value)
            object.__setattr__(self, key, value)
        n = len(self.task_ids)
        both = np.concatenate([self.iso_a, self.iso_b])
        partners = np.concatenate([self.iso_b, self.iso_a])
        iso_ptr, order = _csr(both, n)
        derived = {
            **dict(zip(("pred_ptr", "pred_arcs"), _csr(self.arc_dst, n), strict=True)),
            **dict(zip(("succ_ptr", "succ_arcs"), _csr(self.arc_src, n), strict=True)),
            "iso_ptr": iso_ptr,
            "iso_partners": _frozen(partners[order]),
        }
        for key, value in derived.items():
            object.__setattr__(self, key, value)
        # Derived quantities (lower bounds, ...) computed once: the problem is immutable.
        object.__setattr__(self, "_cache", {})

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Problem is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        # Slots and a refusing __setattr__: pickle cannot restore them by default, and
        # a Problem must travel to worker processes (multiprocessing, dask; an outside
        # audit). The cache is left behind: it is derived, and recomputed on demand.
        state = {key: getattr(self, key) for key in self.__slots__ if key != "_cache"}
        return (_restore_problem, (state,))

    # ---- construction -------------------------------------------------------------

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Problem:
        """Validate an instance document (a parsed JSON object) into a problem.

        Raises
        ------
        InstanceError
            With a one-line message naming the key, task or edge at fault.
        """
        from exactsched.instance import parse_instance

        return parse_instance(document)

    @classmethod
    def from_lists(
        cls,
        costs: Sequence[float] | Sequence[Sequence[float]],
        edges: Sequence[tuple[int, int, float]] | Sequence[tuple[int, int]] = (),
        *,
        n_processors: int | None = None,
        network: Mapping[str, Any] | None = None,
        order: Sequence[tuple[int, int]] = (),
        isolation: Sequence[tuple[int, int]] = (),
        affinity: Mapping[int, Sequence[int]] | None = None,
        name: str = "",
    ) -> Problem:
        """Build a problem from plain Python lists, tasks and processors by index.

        Parameters
        ----------
        costs : sequence or numpy.ndarray
            One number per task (same on every processor, then ``n_processors`` is
            required) or one row of ``P`` numbers per task. Numpy arrays and
            scalars are accepted here and in every other argument.
        edges : sequence of tuple
            ``(src, dst)`` or ``(src, dst, data)`` with task indices.
        n_processors : int, optional
            Number of processors when ``costs`` is one number per task.
        network : mapping, optional
            The ``platform.network`` object of the instance format.
        order, isolation : sequence of tuple
            Order and isolation pairs, by task index.
        affinity : mapping, optional
            Task index -> allowed processor indices.
        name : str
            Free text.

        Returns
        -------
        Problem
            Tasks are named ``t0, t1, ...`` and processors ``p0, p1, ...``.

        Raises
        ------
        InstanceError
            As :func:`exactsched.load_instance` for the equivalent document.
        TypeError
            When ``costs`` holds scalars and ``n_processors`` is missing.

        Examples
        --------
        >>> Problem.from_lists([[1, 2], [3, 4]], [(0, 1, 2)]).cost.tolist()
        [[1.0, 2.0], [3.0, 4.0]]
        """
        # numpy arrays and scalars become plain lists and numbers.
        rows = _py(costs)
        if not isinstance(rows, list):
            raise TypeError(f"costs must be a sequence, got {type(costs).__name__}")
        if n_processors is None:
            if rows and not isinstance(rows[0], list):
                raise TypeError("n_processors is required when costs are scalars")
            n_processors = len(rows[0]) if rows else 1
        n_processors = _py(n_processors)
        if isinstance(n_processors, bool) or not isinstance(n_processors, int):
            raise InstanceError(f"n_processors: expected an integer, got {n_processors!r}")
        procs = [{"id": f"p{k}"} for k in range(n_processors)]
        tasks: list[dict[str, Any]] = []
        affinity = {} if affinity is None else {_py(i): v for i, v in dict(affinity).items()}
        unknown = [i for i in affinity if isinstance(i, bool) or i not in range(len(rows))]
        if unknown:
            last = len(rows) - 1
            raise InstanceError(f"affinity: {unknown[0]!r} is not a task index (0 to {last})")
        for i, cost in enumerate(rows):
            task: dict[str, Any] = {"id": f"t{i}", "cost": cost}
            if i in affinity:
                task["processors"] = [f"p{k}" for k in _py(affinity[i])]
            tasks.append(task)
        edges = _py(edges)
        for k, e in enumerate(edges if isinstance(edges, list) else []):
            if not isinstance(e, list) or len(e) not in (2, 3):
                want = "(src, dst) or (src, dst, data)"
                raise InstanceError(f"edges[{k}]: expected {want}, got {e!r}")
        order = _py(order)
        isolation = _py(isolation)
        doc: dict[str, Any] = {
            "format": "exactsched/instance@1",
            "name": name,
            "platform": {"processors": procs},
            "tasks": tasks,
            "edges": [
                {"src": f"t{e[0]}", "dst": f"t{e[1]}", "data": e[2] if len(e) > 2 else 0}
                for e in edges
            ],
        }
        if network is not None:
            doc["platform"]["network"] = dict(network)
        if order:
            doc["order"] = [[f"t{a}", f"t{b}"] for a, b in order]
        if isolation:
            doc["isolation"] = [[f"t{a}", f"t{b}"] for a, b in isolation]
        return cls.from_json(doc)

    @classmethod
    def from_networkx(
        cls, graph: Any, platform: Mapping[str, Any], *, name: str | None = None
    ) -> Problem:
        """Build a problem from a ``networkx.DiGraph`` and an instance ``platform``.

        Node attributes: ``cost`` (required, any form of the instance format) and
        ``processors`` (affinity). Edge attributes: ``data`` (default 0); an edge
        with ``kind="order"`` is an order pair. The graph attribute
        ``isolation`` may list isolation pairs. Node names become task ids
        (converted with ``str``).

        Examples
        --------
        >>> import networkx as nx
        >>> g = nx.DiGraph()
        >>> g.add_node("a", cost=2); g.add_node("b", cost=3)
        >>> g.add_edge("a", "b", data=4)
        >>> Problem.from_networkx(g, {"processors": [{"id": "p"}, {"id": "q"}]}).n_edges
        1
        """
        if hasattr(graph, "is_directed") and not graph.is_directed():
            # An undirected edge has no direction to keep: networkx reports it either way.
            raise InstanceError("graph: expected a directed graph (networkx.DiGraph)")
        tasks = []
        for node, attrs in graph.nodes(data=True):
            task = {"id": str(node)}
            # An absent cost stays absent so that the reader says "missing".
            for key in ("cost", "processors"):
                if key in attrs:
                    task[key] = _py(attrs[key])
            tasks.append(task)
        edges, order = [], []
        for u, v, attrs in graph.edges(data=True):
            if attrs.get("kind") == "order":
                order.append([str(u), str(v)])
            else:
                edges.append({"src": str(u), "dst": str(v), "data": _py(attrs.get("data", 0))})
        doc: dict[str, Any] = {
            "format": "exactsched/instance@1",
            "name": name if name is not None else str(graph.graph.get("name", "")),
            "platform": dict(platform) if isinstance(platform, Mapping) else platform,
            "tasks": tasks,
            "edges": edges,
        }
        if order:
            doc["order"] = order
        if graph.graph.get("isolation"):
            doc["isolation"] = [[str(a), str(b)] for a, b in graph.graph["isolation"]]
        return cls.from_json(doc)

    # ---- sizes and views ----------------------------------------------------------

    @property
    def n_tasks(self) -> int:
        """Number of tasks ``n``."""
        return len(self.task_ids)

    @property
    def n_processors(self) -> int:
        """Number of processors ``P``."""
        return len(self.proc_ids)

    @property
    def n_edges(self) -> int:
        """Number of precedence arcs (data edges plus distinct order pairs)."""
        return len(self.arc_src)

    def predecessors(self, task: int) -> np.ndarray:
        """Indices of the tasks with an arc into ``task``."""
        return self.arc_src[self.pred_arcs[self.pred_ptr[task] : self.pred_ptr[task + 1]]]

    def successors(self, task: int) -> np.ndarray:
        """Indices of the tasks with an arc out of ``task``."""
        return self.arc_dst[self.succ_arcs[self.succ_ptr[task] : self.succ_ptr[task + 1]]]

    def isolation_partners(self, task: int) -> np.ndarray:
        """Indices of the tasks that must not overlap ``task`` in time."""
        return self.iso_partners[self.iso_ptr[task] : self.iso_ptr[task + 1]]

    def comm(self, arc: int, p: int, q: int) -> float:
        """Communication delay of ``arc`` from processor ``p`` to ``q`` (0 if equal).

        Raises
        ------
        IndexError
            Naming the index out of range (a negative one would count from the end).
        """
        n_procs = self.n_processors
        for what, k, size in (("arc", arc, len(self.arc_unit)), ("processor", p, n_procs),
                              ("processor", q, n_procs)):  # fmt: skip
            if not 0 <= k < size:
                raise IndexError(f"comm: {what} {k!r} out of range (0 to {size - 1})")
        return float(self.arc_unit[arc] * self.hops[p, q])

    def comm_matrix(self, arc: int) -> np.ndarray:
        """``(P, P)`` communication delays of ``arc`` for every processor pair."""
        return self.arc_unit[arc] * self.hops

    def allowed_processors(self, task: int) -> np.ndarray:
        """Indices of the processors ``task`` may run on."""
        return np.flatnonzero(self.allowed[task])

    @property
    def entry_tasks(self) -> np.ndarray:
        """Tasks without predecessors."""
        return np.flatnonzero(np.diff(self.pred_ptr) == 0)

    @property
    def exit_tasks(self) -> np.ndarray:
        """Tasks without successors."""
        return np.flatnonzero(np.diff(self.succ_ptr) == 0)

    @property
    def is_integral(self) -> bool:
        """Whether every execution time and communication delay is an integer.

        The delays of the delay model, ``arc_unit * hops``: every optimum of
        the delay model is then an integer, and every bound of
        :mod:`exactsched.bounds` (a relaxation of the delay model) may be
        rounded up. Under ``single-port`` and ``contention`` a stage of a
        message lasts ``arc_unit * weight``, and a fat tree's lowest links
        weigh 1/2, so an optimum there may be 5.5 on integral data: the
        searches of those models read :attr:`delay_multiples` (an outside
        audit: a brute force rounding its bounds to whole units claimed 6).

        Examples
        --------
        >>> p = Problem.from_lists([1, 1], [(0, 1, 3)], n_processors=4,
        ...                        network={"topology": "fat-tree"})
        >>> p.is_integral, p.with_communication("contention").is_integral
        (True, True)
        """
        finite = self.cost[self.allowed]
        if not np.all(finite == np.round(finite)):
            return False
        delays = np.multiply.outer(self.arc_unit, np.unique(self.hops)).ravel()
        return bool(np.all(delays == np.round(delays)))

    @property
    def delay_multiples(self) -> np.ndarray:
        """The distinct multiples of a per-hop unit a message can last or wait.

        The hop counts, and under ``single-port`` and ``contention`` also the
        weights of the stages of every route (``topologies.routing``).

        Examples
        --------
        >>> p = Problem.from_lists([1, 1], [(0, 1, 3)], n_processors=4,
        ...                        network={"topology": "fat-tree"})
        >>> p.with_communication("contention").delay_multiples.tolist()
        [0.0, 0.5, 1.0, 2.0]
        """
        hops = np.unique(self.hops)
        if self.communication == "delay":
            return hops
        everyone = range(self.n_processors)
        weights = self.routing.stage_weights(everyone, everyone)
        return np.union1d(hops, np.asarray(weights, dtype=float))

    def mean_cost(self) -> np.ndarray:
        """Mean execution time of each task over the processors it may run on."""
        finite = np.where(self.allowed, self.cost, 0.0)
        count = self.allowed.sum(axis=1)
        with np.errstate(over="ignore"):
            mean = finite.sum(axis=1) / count
        if not np.isfinite(mean).all():
            # Costs near the float limit (1e308): divide before adding, so the mean of
            # finite numbers stays finite.
            mean = (finite / count[:, None]).sum(axis=1)
        return mean

    def min_cost(self) -> np.ndarray:
        """Least execution time of each task over the processors it may run on."""
        return self.cost.min(axis=1)

    def ccr(self) -> float:
        """Communication-to-computation ratio: mean edge delay over mean task cost.

        The mean edge delay averages ``comm`` over ordered pairs of distinct
        processors; 0 with one processor, no edges or no delay (all costs 0
        included), ``inf`` when there is delay and no work.
        """
        # One definition for info, studies and the generators' --ccr targets.
        from exactsched.workloads.weights import ccr

        return ccr(self)

    # ---- communication model --------------------------------------------------------

    @property
    def communication(self) -> str:
        """The communication model: ``"delay"`` (default), ``"single-port"``, ``"contention"``."""
        return str(self.network.get("communication", "delay"))

    @property
    def duplex(self) -> bool:
        """Whether ports or links have one resource per direction (default True)."""
        return bool(self.network.get("duplex", True))

    @property
    def routing(self) -> Any:
        """The :class:`topologies.routing.Routing` of the platform under its model (cached).

        Examples
        --------
        >>> p = Problem.from_lists([1, 1], [(0, 1, 2)], n_processors=4,
        ...     network={"topology": "mesh", "dims": [2, 2], "communication": "contention"})
        >>> p.communication, [name for _, _, name in p.routing.route(0, 3)]
        ('contention', ['p0->p2', 'p2->p3'])
        """
        routing = self._cache.get("routing")
        if routing is None:
            from topologies.routing import Routing

            routing = Routing(
                self.topology, self.communication, duplex=self.duplex, proc_ids=self.proc_ids
            )
            self._cache["routing"] = routing
        return routing

    def with_communication(self, model: str, *, duplex: bool | None = None) -> Problem:
        """The same instance under another communication model (``duplex`` if given).

        ``with_communication("delay")`` is the relaxation of a single-port or
        contention instance: every schedule valid under those models is valid
        under it, so its optimum is a lower bound.

        Examples
        --------
        >>> p = Problem.from_lists([1, 1], [(0, 1, 2)], n_processors=2)
        >>> q = p.with_communication("single-port", duplex=False)
        >>> q.communication, q.duplex, q.with_communication("delay") == p
        ('single-port', False, True)
        """
        doc = self.to_json()
        platform = doc["platform"]
        if isinstance(platform, str):  # a bare preset name: spell its network out
            platform = doc["platform"] = {"preset": platform}
        network = dict(platform.get("network", {}))
        network.pop("communication", None)
        network.pop("duplex", None)
        if model != "delay":
            network["communication"] = model
        if duplex is not None and model != "delay":
            network["duplex"] = bool(duplex)
        if network:
            platform["network"] = network
        else:
            platform.pop("network", None)
        return Problem.from_json(doc)

    # ---- output -------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The instance document, equal to the one this problem was read from.

        Keys that were absent stay absent and defaults are not filled in, so
        ``load_instance(doc).to_json() == doc`` for every valid ``doc`` (tuples
        come back as lists, numpy numbers as Python numbers).

        Examples
        --------
        >>> doc = Problem.from_lists([1, 2], [(0, 1)], n_processors=1).to_json()
        >>> doc["edges"]
        [{'src': 't0', 'dst': 't1', 'data': 0}]
        >>> Problem.from_json(doc).to_json() == doc
        True
        """
        import copy

        return copy.deepcopy(self._json)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Problem) and self._json == other._json

    def __hash__(self) -> int:
        return hash((self.name, self.task_ids, self.proc_ids, len(self.arc_src)))

    def __repr__(self) -> str:
        return (
            f"Problem(name={self.name!r}, tasks={self.n_tasks}, arcs={self.n_edges}, "
            f"processors={self.n_processors}, topology={self.network.get('topology')!r})"
        )


def require_problem(value: Any, where: str) -> Problem:
    """``value`` itself if it is a :class:`Problem`; else a ``TypeError`` naming ``where``.

    The functions beside :func:`exactsched.solve` take a problem, not a path or a
    document (an ``AttributeError`` from deep inside them said nothing useful).

    Examples
    --------
    >>> require_problem("examples/topcuoglu2002.json", "lower_bound")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: lower_bound: expected a Problem (...), got str
    """
    if isinstance(value, Problem):
        return value
    raise TypeError(
        f"{where}: expected a Problem (exactsched.load_instance reads a file or a document),"
        f" got {type(value).__name__}"
    )
