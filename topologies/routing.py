"""Communication resources and fixed message routes of a platform.

The instance format (``docs/instance-format.md``, "Communication models") lets
the network say how messages share it:

``delay``
    A message is a pure delay; nothing is shared (no resources, no routes).
``single-port``
    Each processor has one send port and one receive port (duplex one-port
    model of Beaumont, Boudet and Robert [1]_); ``duplex=False`` gives each
    processor a single port for both. A message ``p -> q`` is one *stage*
    holding the send port of ``p`` and the receive port of ``q`` together
    for ``hops(p, q) * (latency + data / bandwidth)``.
``contention``
    The links of the topology are resources (Sinnen and Sousa [2]_, Sinnen's
    book [3]_, ch. 7). A message follows a fixed route, one stage per link,
    store-and-forward: link ``k + 1`` starts no earlier than link ``k`` ends.
    ``duplex=True`` (default) makes each direction of a link its own resource;
    ``duplex=False`` makes the two directions one resource.

A route is a tuple of stages ``(resources, weight, name)``: the resource
indices the stage holds, the multiple of ``latency + data / bandwidth`` it
lasts, and a readable name (``"p0->p1"``). The weights along a route add up to
``hops(p, q)``, so a message that meets no other arrives exactly when the delay
model says.

Fixed routes under ``contention``:

=================== ==========================================================
``fully-connected`` the direct link ``p -> q``
``mesh``            dimension order (first dimension first), one link per hop
``torus``           dimension order, each dimension the short way round (the
                    positive direction on a tie)
``hypercube``       dimension order: the differing bits from the lowest up
``fat-tree``        up to the nearest common ancestor switch, then down. The
                    format's hop count is ``2 ** (l - 1)`` (Kong's table), not
                    the ``2 l`` links of the path, so links carry weights:
                    levels 1 and 2 weigh ``1/2``, level ``k >= 3`` weighs
                    ``2 ** (k - 3)``; up and down add up to ``2 ** (l - 1)``
``accelerated-node`` the direct link between two processors one hop apart;
                    two ``cpu`` processors share memory (0 hops, no message)
``matrix``          refused: a hop matrix has no links to route on
=================== ==========================================================

Switches of a fat tree are named ``sw<level>.<index>`` (level 1 just above the
processors); processors by their ids.

References
----------
.. [1] O. Beaumont, V. Boudet, Y. Robert, "A realistic model and an efficient
   heuristic for scheduling with heterogeneous processors", HCW 2002.
.. [2] O. Sinnen, L. A. Sousa, "Communication contention in task scheduling",
   IEEE TPDS 16(6), 503-515, 2005. doi:10.1109/TPDS.2005.64
.. [3] O. Sinnen, "Task Scheduling for Parallel Systems", Wiley, 2007, ch. 7.

Examples
--------
>>> from topologies import Mesh
>>> r = Routing(Mesh([2, 2]), "contention", proc_ids=["a", "b", "c", "d"])
>>> [name for _, _, name in r.route(0, 3)]
['a->c', 'c->d']
>>> [weight for _, weight, _ in r.route(0, 3)]
[1.0, 1.0]
>>> r.route(0, 0)
()
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from topologies.errors import TopologyError
from topologies.networks import (
    AcceleratedNode,
    FatTree,
    FullyConnected,
    Hypercube,
    Matrix,
    Mesh,
    Topology,
    Torus,
)

__all__ = ["COMMUNICATION_MODELS", "Routing", "check_routable"]

COMMUNICATION_MODELS = ("delay", "single-port", "contention")
"""The values of the ``communication`` key of a network object."""

Stage = tuple[tuple[int, ...], float, str]


def check_routable(topology: Topology, model: str) -> None:
    """Refuse a communication model the topology cannot carry.

    Raises
    ------
    TopologyError
        Key ``communication``: an unknown model, or ``contention`` on a
        ``matrix`` network (it has hops but no links).

    Examples
    --------
    >>> from topologies import Matrix
    >>> check_routable(Matrix([[0, 1], [1, 0]]), "contention")
    Traceback (most recent call last):
    ...
    topologies.errors.TopologyError: communication: 'contention' needs links to route \
messages on, and a matrix network has none; use 'delay' or 'single-port'
    """
    if model not in COMMUNICATION_MODELS:
        known = ", ".join(repr(m) for m in COMMUNICATION_MODELS)
        raise TopologyError("communication", f"unknown model {model!r}; known: {known}")
    if model == "contention" and isinstance(topology, Matrix):
        raise TopologyError(
            "communication",
            "'contention' needs links to route messages on, and a matrix network has none; "
            "use 'delay' or 'single-port'",
        )


class Routing:
    """Resources and routes of one platform under one communication model.

    Parameters
    ----------
    topology : Topology
        The network.
    model : str
        ``"delay"``, ``"single-port"`` or ``"contention"``.
    duplex : bool
        Separate resources per direction (default True); see the module docstring.
    proc_ids : sequence of str, optional
        Processor names for resource and link names (default ``p0, p1, ...``).

    Attributes
    ----------
    model : str
    duplex : bool
    resources : list of str
        Resource names; a stage's resources index this list. Grows as routes
        are computed (links are numbered in order of first use).

    Raises
    ------
    TopologyError
        As :func:`check_routable`.

    Examples
    --------
    >>> from topologies import FatTree, FullyConnected
    >>> r = Routing(FatTree(4), "contention")
    >>> [(name, weight) for _, weight, name in r.route(0, 3)]
    [('p0->sw1.0', 0.5), ('sw1.0->sw2.0', 0.5), ('sw2.0->sw1.1', 0.5), ('sw1.1->p3', 0.5)]
    >>> sp = Routing(FullyConnected(3), "single-port")
    >>> [[sp.resources[k] for k in res] for res, _, _ in sp.route(2, 0)]
    [['send p2', 'recv p0']]
    """

    def __init__(
        self,
        topology: Topology,
        model: str,
        *,
        duplex: bool = True,
        proc_ids: Sequence[str] | None = None,
    ) -> None:
        check_routable(topology, model)
        self.topology = topology
        self.model = model
        self.duplex = bool(duplex)
        n = topology.n_processors
        self.proc_ids = list(proc_ids) if proc_ids is not None else [f"p{k}" for k in range(n)]
        self.hops = topology.hops()
        self.resources: list[str] = []
        self._index: dict[object, int] = {}
        self._routes: dict[tuple[int, int], tuple[Stage, ...]] = {}
        if model == "single-port":
            # Ports first, so that a port's index does not depend on the routes asked.
            for p, name in enumerate(self.proc_ids):
                if self.duplex:
                    self._resource(("send", p), f"send {name}")
                    self._resource(("recv", p), f"recv {name}")
                else:
                    self._resource(("port", p), f"port {name}")

    @property
    def n_resources(self) -> int:
        """Number of resources named so far."""
        return len(self.resources)

    def route(self, p: int, q: int) -> tuple[Stage, ...]:
        """The stages of a message from processor ``p`` to ``q`` (empty: no message).

        A message exists when ``p != q``, the model is not ``delay`` and
        ``hops(p, q) > 0``.
        """
        key = (p, q)
        cached = self._routes.get(key)
        if cached is None:
            cached = self._build(p, q)
            self._routes[key] = cached
        return cached

    def weights(self, p: int, q: int) -> float:
        """Sum of the stage weights of the route (``hops(p, q)`` when there is a message)."""
        return float(sum(w for _, w, _ in self.route(p, q)))

    def lengths(self, ps: Sequence[int], qs: Sequence[int]) -> np.ndarray:
        """Number of stages of the route from each of ``ps`` to each of ``qs``.

        Read off the hop matrix, without building a route (a model sizes itself
        with it before building any): one stage under ``single-port`` and on a
        ``fully-connected`` or ``accelerated-node`` network, one link per hop on
        a mesh, torus or hypercube, ``2 l`` links for the ``2 ** (l - 1)`` hops
        of a fat tree.

        Parameters
        ----------
        ps, qs : sequence of int
            Sending and receiving processors.

        Returns
        -------
        numpy.ndarray
            ``(len(ps), len(qs))`` int64; entry ``[a, b]`` is
            ``len(self.route(ps[a], qs[b]))``.

        Examples
        --------
        >>> from topologies import FatTree
        >>> Routing(FatTree(4), "contention").lengths([0], range(4)).tolist()
        [[0, 2, 4, 4]]
        """
        hops = self._hops_between(ps, qs)
        message = hops > 0
        if self.model == "delay":
            return np.zeros(hops.shape, dtype=np.int64)
        if self.model == "single-port" or isinstance(
            self.topology, FullyConnected | AcceleratedNode
        ):
            return message.astype(np.int64)
        if isinstance(self.topology, FatTree):
            level = np.rint(np.log2(np.where(message, hops, 1.0))) + 1
            return np.where(message, 2 * level, 0).astype(np.int64)
        return np.rint(hops).astype(np.int64)

    def stage_weights(self, ps: Sequence[int], qs: Sequence[int]) -> list[float]:
        """The distinct stage weights of the routes from any of ``ps`` to any of ``qs``.

        Like :meth:`lengths`, read off the hop matrix without building a route.
        A fat-tree route up to level ``l`` holds the links of every level below,
        so the routes through the highest level hold every weight.

        Returns
        -------
        list of float
            Sorted; empty when no pair exchanges a message.

        Examples
        --------
        >>> from topologies import FatTree
        >>> Routing(FatTree(8), "contention").stage_weights([0], range(8))
        [0.5, 1.0]
        >>> Routing(FatTree(8), "single-port").stage_weights([0], [0, 1, 2])
        [1.0, 2.0]
        """
        hops = self._hops_between(ps, qs)
        message = hops > 0
        if self.model == "delay" or not message.any():
            return []
        if self.model == "single-port":
            return np.unique(hops[message]).tolist()  # sorted, distinct
        if isinstance(self.topology, FatTree):
            top = int(np.rint(np.log2(hops.max()))) + 1
            return sorted({_fat_tree_weight(lv) for lv in range(1, top + 1)})
        return [1.0]

    # ---- internals -------------------------------------------------------------------

    def _resource(self, key: object, name: str) -> int:
        k = self._index.get(key)
        if k is None:
            k = self._index[key] = len(self.resources)
            self.resources.append(name)
        return k

    def _build(self, p: int, q: int) -> tuple[Stage, ...]:
        if p == q or self.model == "delay" or self.hops[p, q] == 0:
            return ()
        ids = self.proc_ids
        if self.model == "single-port":
            if self.duplex:
                res = (self._index[("send", p)], self._index[("recv", q)])
            else:
                res = (self._index[("port", p)], self._index[("port", q)])
            return ((res, float(self.hops[p, q]), f"{ids[p]}->{ids[q]}"),)
        stages = []
        for u, v, weight in _path(self.topology, p, q):
            name_u, name_v = self._node_name(u), self._node_name(v)
            if self.duplex:
                res = self._resource((u, v), f"{name_u}->{name_v}")
            else:
                a, b = sorted((u, v), key=repr)
                res = self._resource((a, b), f"{self._node_name(a)}--{self._node_name(b)}")
            stages.append(((res,), weight, f"{name_u}->{name_v}"))
        return tuple(stages)

    def _hops_between(self, ps: Sequence[int], qs: Sequence[int]) -> np.ndarray:
        rows, cols = np.asarray(ps, dtype=np.int64), np.asarray(qs, dtype=np.int64)
        n = len(self.hops)
        if len(rows) == len(cols) == n and (rows == np.arange(n)).all() and (cols == rows).all():
            return self.hops  # every pair: no (P, P) copy
        return self.hops[np.ix_(rows, cols)]

    def _node_name(self, node: object) -> str:
        if isinstance(node, tuple):  # a fat-tree switch (level, index)
            return f"sw{node[0]}.{node[1]}"
        return self.proc_ids[int(node)]  # type: ignore[call-overload]


def _fat_tree_weight(level: int) -> float:
    """Weight of a fat-tree link between levels ``level - 1`` and ``level``."""
    return 0.5 if level <= 2 else 2.0 ** (level - 3)


def _path(topology: Topology, p: int, q: int) -> list[tuple[object, object, float]]:
    """The links ``(u, v, weight)`` from ``p`` to ``q`` (processors are ints)."""
    if isinstance(topology, FullyConnected | AcceleratedNode):
        return [(p, q, 1.0)]
    if isinstance(topology, Mesh | Torus):
        # Integer arithmetic on the row-major strides, not numpy's (un)ravel_index,
        # which allows at most 64 dimensions; size-1 dimensions hold no hop.
        wrap = isinstance(topology, Torus)
        links: list[tuple[object, object, float]] = []
        cur, stride = p, topology.n_processors
        for n in topology.dims:
            stride //= n
            if n == 1:
                continue
            here, dest = (cur // stride) % n, (q // stride) % n
            if wrap:
                delta = (dest - here) % n
                step, count = (1, delta) if delta <= n - delta else (-1, n - delta)
            else:
                step, count = (1 if dest > here else -1), abs(dest - here)
            for _ in range(count):
                nxt = (here + step) % n
                after = cur + (nxt - here) * stride
                links.append((cur, after, 1.0))
                cur, here = after, nxt
        return links
    if isinstance(topology, Hypercube):
        links = []
        cur, diff, bit = p, p ^ q, 1
        while diff:
            if diff & 1:
                links.append((cur, cur ^ bit, 1.0))
                cur ^= bit
            diff >>= 1
            bit <<= 1
        return links
    if isinstance(topology, FatTree):
        a = topology.arity
        level = 0
        while p // a**level != q // a**level:
            level += 1

        def node(proc: int, lv: int) -> object:
            return proc if lv == 0 else (lv, proc // a**lv)

        w = _fat_tree_weight
        up = [(node(p, lv - 1), node(p, lv), w(lv)) for lv in range(1, level + 1)]
        down = [(node(q, lv), node(q, lv - 1), w(lv)) for lv in range(level, 0, -1)]
        return up + down
    raise TopologyError(  # Matrix is refused by check_routable; a new topology lands here
        "communication", f"no routes for topology {topology.name!r}"
    )
