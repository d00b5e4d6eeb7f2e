"""Network topologies: how many hops separate two processors.

This module implements the "Networks" section of the exactsched instance format
(``docs``/``instance-format.md``, version 1). Processors are placed on a topology
in platform order: processor ``k`` is node ``k``. For an edge carrying ``data``
between tasks on distinct processors ``p`` and ``q`` the core charges
``hops(p, q) * (latency + data / bandwidth)``; this module only supplies
``hops``. The ``latency`` and ``bandwidth`` keys of the network object belong to
the core and are ignored here.

=================== ============ =================================================
``topology``        extra keys   ``hops(p, q)`` for ``p != q``
=================== ============ =================================================
``fully-connected``              1
``mesh``            ``dims``     Manhattan distance of the row-major coordinates
``torus``           ``dims``     per dimension ``min(d, n - d)``, summed
``hypercube``                    number of differing bits of ``p`` and ``q``
``fat-tree``        ``arity``    ``2 ** (l - 1)``, ``l`` the level of the lowest
                                 switch above both (siblings: ``l = 1``)
``accelerated-node``             0 between two ``cpu`` processors, else 1
``matrix``          ``hops``     as given
=================== ============ =================================================

Every topology object is immutable; :meth:`Topology.hops` builds the full
``(P, P)`` matrix with numpy broadcasting (no Python loop over pairs), caches it
and returns it read-only. :func:`from_network` builds a topology from the JSON
network object and validates it strictly: any defect raises
:class:`~topologies.errors.TopologyError` naming the key at fault.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from topologies.errors import TopologyError

__all__ = [
    "TOPOLOGIES",
    "AcceleratedNode",
    "FatTree",
    "FullyConnected",
    "Hypercube",
    "Matrix",
    "Mesh",
    "Topology",
    "Torus",
    "from_network",
    "hop_matrix",
]


# --------------------------------------------------------------------------- helpers


def _is_int(x: object) -> bool:
    """True for integers, but not for booleans (JSON ``true`` is not ``1`` here)."""
    return isinstance(x, numbers.Integral) and not isinstance(x, bool | np.bool_)


def _is_real(x: object) -> bool:
    """True for real numbers, but not for booleans."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool | np.bool_)


def _size(dims: Sequence[int]) -> str:
    """``prod(dims)`` as text; past 30 digits its power of ten (Python will not print
    an integer of more than 4,300 digits, and nobody reads one of 30).

    >>> _size([4, 3]), _size([10**40, 10**40]), _size([2] * 20000)
    ('12', 'about 1e80', 'about 1e6020')
    """
    digits = sum(math.log10(d) for d in dims)
    if digits < 30:
        return str(math.prod(dims))
    return f"about 1e{math.floor(digits + 1e-9)}"


def _show(x: object, limit: int = 40) -> str:
    """A short, JSON-flavoured rendering of a value for one-line messages."""
    if isinstance(x, np.generic):
        x = x.item()
    if x is None:
        text = "null"
    elif isinstance(x, bool):
        text = "true" if x else "false"
    elif isinstance(x, str):
        text = repr(x)
    elif isinstance(x, Mapping):
        text = "an object"
    else:
        try:
            text = repr(x)
        except ValueError:  # an integer past 4,300 digits, maybe inside lists
            if isinstance(x, int):
                digits = math.floor(x.bit_length() * math.log10(2)) + 1
                text = f"an integer of about {digits} digits"
            else:
                items = list(x)  # type: ignore[call-overload]
                shown = [_show(e, limit) for e in items[: limit // 3]]
                text = "[" + ", ".join(shown) + (", ...]" if len(items) > len(shown) else "]")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _exact_log(n: int, base: int) -> int | None:
    """The integer ``k`` with ``base ** k == n``, or None if there is none."""
    k = 0
    while n > 1 and n % base == 0:
        n //= base
        k += 1
    return k if n == 1 else None


def _check_count(n: object, what: str = "the platform") -> int:
    if not _is_int(n) or int(n) < 1:  # type: ignore[call-overload]
        raise TopologyError("topology", f"{what} must have at least one processor, got {_show(n)}")
    return int(n)  # type: ignore[call-overload]


def _check_dims(dims: object) -> tuple[int, ...]:
    """Validate the ``dims`` key: a non-empty list of positive integers."""
    if not isinstance(dims, Sequence) or isinstance(dims, str | bytes) or len(dims) == 0:
        raise TopologyError(
            "dims", f"expected a non-empty list of positive integers, got {_show(dims)}"
        )
    for i, n in enumerate(dims):
        if not _is_int(n) or int(n) < 1:
            raise TopologyError(
                "dims", f"expected a positive integer, got {_show(n)}", path=f"dims[{i}]"
            )
    return tuple(int(n) for n in dims)


def _check_arity(arity: object) -> int:
    if not _is_int(arity) or int(arity) < 2:  # type: ignore[call-overload]
        raise TopologyError("arity", f"expected an integer >= 2, got {_show(arity)}")
    return int(arity)  # type: ignore[call-overload]


def _check_types(processor_types: Iterable[str]) -> tuple[str, ...]:
    if isinstance(processor_types, str | bytes | Mapping) or not isinstance(
        processor_types, Iterable
    ):
        raise TypeError(f"processor types must be a list of strings, got {_show(processor_types)}")
    types = tuple(processor_types)
    for k, t in enumerate(types):
        if not isinstance(t, str):
            raise TypeError(f"processor type {k} must be a string, got {_show(t)}")
    if not types:
        raise TopologyError("topology", "the platform has no processors")
    return types


def _check_hops(hops: object, n: int | None = None) -> np.ndarray:
    """Validate a hop matrix given as a list of lists (or an array).

    Returns a fresh float64 ``(n, n)`` array. ``n`` defaults to the number of rows.
    Defects are reported at the first offending row and column.
    """
    if isinstance(hops, np.ndarray):
        if hops.ndim == 2 and hops.dtype.kind in "iuf" and hops.shape[0] == hops.shape[1]:
            arr = hops.astype(np.float64, copy=True)
            if arr.shape[0] == 0:
                raise TopologyError("hops", "expected a non-empty list of rows, got []")
            if n is not None and arr.shape[0] != n:
                raise TopologyError(
                    "hops", f"expected {n} rows (one per processor), got {arr.shape[0]}"
                )
            return _check_hop_values(arr, arr)
        hops = hops.tolist()
    if not isinstance(hops, Sequence) or isinstance(hops, str | bytes):
        want = "a list of rows" if n is None else f"a list of {n} rows"
        raise TopologyError("hops", f"expected {want}, got {_show(hops)}")
    n = len(hops) if n is None else n
    if n == 0:
        raise TopologyError("hops", "expected a non-empty list of rows, got []")
    if len(hops) != n:
        raise TopologyError("hops", f"expected {n} rows (one per processor), got {len(hops)}")
    for i, row in enumerate(hops):
        if not isinstance(row, Sequence) or isinstance(row, str | bytes):
            raise TopologyError(
                "hops", f"expected a list of {n} numbers, got {_show(row)}", path=f"hops[{i}]"
            )
        if len(row) != n:
            raise TopologyError("hops", f"expected {n} numbers, got {len(row)}", path=f"hops[{i}]")
        # Fast path for what JSON produces; scan the row only when it holds
        # something else (bools, strings, None, numpy scalars...).
        if not set(map(type, row)) <= {int, float}:
            for j, x in enumerate(row):
                if not _is_real(x):
                    raise TopologyError(
                        "hops", f"expected a number, got {_show(x)}", path=f"hops[{i}][{j}]"
                    )
    try:
        arr = np.array(hops, dtype=np.float64)
    except (OverflowError, ValueError, TypeError):
        for i, row in enumerate(hops):
            for j, x in enumerate(row):
                try:
                    float(x)
                except (OverflowError, ValueError, TypeError):
                    raise TopologyError(
                        "hops", f"not a finite number ({_show(x)})", path=f"hops[{i}][{j}]"
                    ) from None
        raise TopologyError("hops", "could not read the matrix as numbers") from None
    return _check_hop_values(arr, hops)


def _check_hop_values(arr: np.ndarray, original: Any) -> np.ndarray:
    """Reject non-finite, negative and non-zero diagonal entries of a square array."""

    def first(mask: np.ndarray) -> tuple[int, int] | None:
        hits = np.argwhere(mask)
        return (int(hits[0, 0]), int(hits[0, 1])) if len(hits) else None

    at = first(~np.isfinite(arr))
    if at is not None:
        i, j = at
        raise TopologyError(
            "hops", f"not a finite number ({_show(original[i][j])})", path=f"hops[{i}][{j}]"
        )
    at = first(arr < 0)
    if at is not None:
        i, j = at
        raise TopologyError(
            "hops", f"negative value {_show(original[i][j])}", path=f"hops[{i}][{j}]"
        )
    bad = np.flatnonzero(np.diagonal(arr) != 0)
    if len(bad):
        i = int(bad[0])
        raise TopologyError(
            "hops",
            f"diagonal entry must be 0 (a processor is 0 hops from itself), "
            f"got {_show(original[i][i])}",
            path=f"hops[{i}][{i}]",
        )
    return arr


def _read_only(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


def _restore(cls: type, state: dict[str, Any]) -> Any:
    """A topology from its pickled slots (:meth:`Topology.__reduce__`)."""
    obj = cls.__new__(cls)
    for slot, value in state.items():
        if isinstance(value, np.ndarray):  # immutable again, as built
            value = _read_only(value)
        object.__setattr__(obj, slot, value)
    return obj


# --------------------------------------------------------------------------- base class


class Topology(ABC):
    """A network of ``n_processors`` processors and the hops between them.

    Subclasses define :meth:`_pair`, the hop count for broadcastable arrays of
    processor indices; everything else (the full matrix, distances, neighbours,
    the diameter) follows from it. Topologies are immutable and compare equal
    when they describe the same network.
    """

    #: The value of the ``topology`` key of the network object.
    name: ClassVar[str]
    #: The extra keys of the network object this topology reads.
    keys: ClassVar[tuple[str, ...]] = ()

    __slots__ = ("_n", "_hops")
    _n: int
    _hops: np.ndarray | None  # built on first use

    def __init__(self, n_processors: int) -> None:
        object.__setattr__(self, "_n", n_processors)
        object.__setattr__(self, "_hops", None)

    def __setattr__(self, attr: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} objects are immutable")

    def __delattr__(self, attr: str) -> None:
        raise AttributeError(f"{type(self).__name__} objects are immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        # Slots and a __setattr__ that refuses: pickle's default restore cannot set
        # them, and a Problem must travel to worker processes (an outside audit).
        state = {
            slot: object.__getattribute__(self, slot)
            for cls in type(self).__mro__
            for slot in getattr(cls, "__slots__", ())
            if hasattr(self, slot)
        }
        return (_restore, (type(self), state))

    # -- what subclasses provide

    @abstractmethod
    def _pair(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Hops from ``p`` to ``q`` for broadcastable integer index arrays."""

    @abstractmethod
    def _params(self) -> tuple[Any, ...]:
        """The parameters that identify this network (for ==, hash and repr)."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The keys of the network object this topology owns.

        Returns
        -------
        dict
            ``{"topology": name}`` plus the extra keys (``dims``, ``arity`` or
            ``hops``); :func:`from_network` turns it back into an equal topology.
        """

    # -- shared behaviour

    @property
    def n_processors(self) -> int:
        """The number of processors ``P``."""
        return self._n

    def hops(self) -> np.ndarray:
        """The ``(P, P)`` hop matrix.

        Returns
        -------
        numpy.ndarray
            float64, zero diagonal; entry ``[p, q]`` is ``hops(p, q)``. Built once
            with numpy broadcasting and cached; the array is read-only (copy it
            to modify it).
        """
        if self._hops is None:
            full = self._full()
            np.fill_diagonal(full, 0.0)
            object.__setattr__(self, "_hops", _read_only(full))
        return self._hops  # type: ignore[return-value]

    def _full(self) -> np.ndarray:
        """A fresh, writable ``(P, P)`` float64 hop matrix."""
        idx = np.arange(self._n, dtype=np.int64)
        full = np.asarray(self._pair(idx[:, None], idx[None, :]), dtype=np.float64)
        if full.shape != (self._n, self._n) or not full.flags.writeable:
            full = np.broadcast_to(full, (self._n, self._n)).copy()
        return full

    def _check_processor(self, p: object) -> int:
        if not _is_int(p):
            raise TypeError(f"a processor is an integer index, got {_show(p)}")
        if not 0 <= int(p) < self._n:  # type: ignore[call-overload]
            raise IndexError(f"processor {p} out of range for {self._n} processors")
        return int(p)  # type: ignore[call-overload]

    def distance(self, p: int, q: int) -> float:
        """Hops from processor `p` to processor `q`.

        Parameters
        ----------
        p, q : int
            Processor indices in platform order, ``0 <= p, q < P``.

        Returns
        -------
        float
            ``hops(p, q)``; 0 when ``p == q``. Computed without building the
            full matrix.

        Raises
        ------
        IndexError
            If `p` or `q` is out of range.
        """
        p = self._check_processor(p)
        q = self._check_processor(q)
        if p == q:
            return 0.0
        return float(self._pair(np.int64(p), np.int64(q)))

    def _row(self, p: int) -> np.ndarray:
        if self._hops is not None:
            return np.array(self._hops[p], dtype=np.float64)
        idx = np.arange(self._n, dtype=np.int64)
        row = np.broadcast_to(
            np.asarray(self._pair(np.int64(p), idx), dtype=np.float64), (self._n,)
        ).copy()
        row[p] = 0.0
        return row

    def diameter(self) -> float:
        """The largest hop count between two processors (0 for one processor).

        Returns
        -------
        float
            ``hops().max()``.
        """
        return float(self.hops().max())

    def neighbours(self, p: int) -> tuple[int, ...]:
        """The other processors nearest to `p`, in increasing order.

        Parameters
        ----------
        p : int
            A processor index.

        Returns
        -------
        tuple of int
            Every ``q != p`` whose ``hops(p, q)`` is least among ``q != p``; empty
            when there is only one processor. This distance is positive except
            where the topology puts distinct processors 0 hops apart (two CPUs of
            an accelerated node, zeros in a matrix).
        """
        p = self._check_processor(p)
        if self._n == 1:
            return ()
        row = self._row(p)
        row[p] = np.inf
        return tuple(int(q) for q in np.flatnonzero(row == row.min()))

    def coordinates(self, p: int) -> tuple[int, ...]:
        """The position of processor `p` in the topology.

        Parameters
        ----------
        p : int
            A processor index.

        Returns
        -------
        tuple of int
            ``(p,)`` unless the topology has a structure of its own (see the
            subclasses).
        """
        return (self._check_processor(p),)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Topology):
            return NotImplemented
        return type(self) is type(other) and self._params() == other._params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._params()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._repr_args()})"

    def _repr_args(self) -> str:
        return f"n_processors={self._n}"

    @classmethod
    @abstractmethod
    def _from_json(cls, network: Mapping[str, Any], types: tuple[str, ...]) -> Topology:
        """Build from a network object already checked for foreign keys."""


# --------------------------------------------------------------------------- topologies


class FullyConnected(Topology):
    """Every pair of distinct processors is one hop apart.

    Parameters
    ----------
    n_processors : int
        ``P >= 1``.

    Raises
    ------
    TopologyError
        If `n_processors` is not a positive integer.

    Examples
    --------
    >>> net = FullyConnected(3)
    >>> net.hops()
    array([[0., 1., 1.],
           [1., 0., 1.],
           [1., 1., 0.]])
    >>> net.diameter(), net.neighbours(1), net.to_json()
    (1.0, (0, 2), {'topology': 'fully-connected'})
    """

    name = "fully-connected"
    __slots__ = ()

    def __init__(self, n_processors: int) -> None:
        super().__init__(_check_count(n_processors))

    def _pair(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        return (p != q).astype(np.float64)

    def _params(self) -> tuple[Any, ...]:
        return (self._n,)

    def diameter(self) -> float:
        return 1.0 if self._n > 1 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"topology": self.name}

    @classmethod
    def _from_json(cls, network: Mapping[str, Any], types: tuple[str, ...]) -> Topology:
        return cls(len(types))


class _Grid(Topology):
    """Shared part of :class:`Mesh` and :class:`Torus`."""

    keys = ("dims",)
    __slots__ = ("_dims", "_strides")
    _dims: tuple[int, ...]
    _strides: tuple[int, ...]

    def __init__(self, dims: Sequence[int]) -> None:
        dims = _check_dims(dims)
        super().__init__(math.prod(dims))
        # Row-major: the last coordinate varies fastest.
        strides = [1] * len(dims)
        for d in range(len(dims) - 2, -1, -1):
            strides[d] = strides[d + 1] * dims[d + 1]
        object.__setattr__(self, "_dims", dims)
        object.__setattr__(self, "_strides", tuple(strides))

    @property
    def dims(self) -> tuple[int, ...]:
        """The extent of each dimension; their product is ``P``."""
        return self._dims

    def _coord(self, p: np.ndarray, d: int) -> np.ndarray:
        return (p // self._strides[d]) % self._dims[d]

    def _pair(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        total = np.zeros(np.broadcast_shapes(np.shape(p), np.shape(q)), dtype=np.float64)
        for d, n in enumerate(self._dims):  # a loop over dimensions, not over pairs
            if n == 1:
                continue
            step = np.abs(self._coord(p, d) - self._coord(q, d))
            total += self._wrap(step, n)
        return total

    def _wrap(self, step: np.ndarray, n: int) -> np.ndarray:
        return step

    def _full(self) -> np.ndarray:
        # The hops of a grid are a Kronecker sum: viewed with shape dims + dims, entry
        # [c_p, c_q] is the sum over dimensions d of a small n_d x n_d table at axes
        # (d, D + d). One broadcast add per dimension, then a free reshape to (P, P).
        # Dimensions of size 1 add nothing (and numpy allows at most 64 axes).
        dims = tuple(n for n in self._dims if n > 1) or (1,)
        rank = len(dims)
        tables = []
        for n in dims:
            i = np.arange(n, dtype=np.float64)
            tables.append(self._wrap(np.abs(i[:, None] - i[None, :]), n))
        if rank == 1:
            return tables[0]
        out = np.zeros(dims + dims, dtype=np.float64)
        for d, (n, table) in enumerate(zip(dims, tables, strict=True)):
            shape = [1] * (2 * rank)
            shape[d] = shape[rank + d] = n
            out += table.reshape(shape)
        return out.reshape(self._n, self._n)

    def coordinates(self, p: int) -> tuple[int, ...]:
        """The row-major coordinates of processor `p` (one per dimension).

        Parameters
        ----------
        p : int
            A processor index.

        Returns
        -------
        tuple of int
            ``c`` with ``p = sum(c[d] * prod(dims[d + 1:]))``.
        """
        p = self._check_processor(p)
        return tuple(int(self._coord(np.int64(p), d)) for d in range(len(self._dims)))

    def _params(self) -> tuple[Any, ...]:
        return self._dims

    def _repr_args(self) -> str:
        return f"dims={list(self._dims)}"

    def to_json(self) -> dict[str, Any]:
        return {"topology": self.name, "dims": list(self._dims)}

    @classmethod
    def _from_json(cls, network: Mapping[str, Any], types: tuple[str, ...]) -> Topology:
        n = len(types)
        if "dims" not in network:
            raise TopologyError(
                "dims",
                f"missing; a {cls.name} needs dims, a list of positive integers whose "
                f"product is the number of processors ({n})",
            )
        dims = _check_dims(network["dims"])
        if math.prod(dims) != n:
            raise TopologyError(
                "dims",
                f"product of {_show(list(dims))} is {_size(dims)}, "
                f"but the platform has {n} processor{'s' if n != 1 else ''}",
            )
        return cls(dims)


class Mesh(_Grid):
    """A grid of any number of dimensions; hops are Manhattan distances.

    Processor ``k`` is node ``k`` of the grid in row-major order.

    Parameters
    ----------
    dims : sequence of int
        The extent of each dimension, all positive; ``P = prod(dims)``.

    Raises
    ------
    TopologyError
        If `dims` is not a non-empty list of positive integers.

    Examples
    --------
    >>> net = Mesh([2, 3])
    >>> net.hops()
    array([[0., 1., 2., 1., 2., 3.],
           [1., 0., 1., 2., 1., 2.],
           [2., 1., 0., 3., 2., 1.],
           [1., 2., 3., 0., 1., 2.],
           [2., 1., 2., 1., 0., 1.],
           [3., 2., 1., 2., 1., 0.]])
    >>> net.coordinates(5), net.distance(0, 5), net.diameter()
    ((1, 2), 3.0, 3.0)
    >>> net.neighbours(4)
    (1, 3, 5)
    >>> net.to_json()
    {'topology': 'mesh', 'dims': [2, 3]}
    """

    name = "mesh"
    __slots__ = ()

    def diameter(self) -> float:
        return float(sum(n - 1 for n in self._dims))


class Torus(_Grid):
    """A mesh with wrap-around links in every dimension.

    Per dimension of extent ``n`` the coordinates differ by ``d`` and the hops
    are ``min(d, n - d)``; the hops of a pair are the sum over dimensions.

    Parameters
    ----------
    dims : sequence of int
        The extent of each dimension, all positive; ``P = prod(dims)``.

    Raises
    ------
    TopologyError
        If `dims` is not a non-empty list of positive integers.

    Examples
    --------
    >>> net = Torus([5])
    >>> net.hops()[0]
    array([0., 1., 2., 2., 1.])
    >>> Torus([4, 4]).distance(0, 15), Torus([4, 4]).diameter()
    (2.0, 4.0)
    >>> net.neighbours(0), net.to_json()
    ((1, 4), {'topology': 'torus', 'dims': [5]})
    """

    name = "torus"
    __slots__ = ()

    def _wrap(self, step: np.ndarray, n: int) -> np.ndarray:
        return np.minimum(step, n - step)

    def diameter(self) -> float:
        return float(sum(n // 2 for n in self._dims))


class Hypercube(Topology):
    """A hypercube of dimension ``log2(P)``; hops count the differing bits.

    Parameters
    ----------
    n_processors : int
        ``P``, a power of two (1 is ``2 ** 0``).

    Raises
    ------
    TopologyError
        If `n_processors` is not a power of two (key ``topology``).

    Examples
    --------
    >>> net = Hypercube(4)
    >>> net.hops()
    array([[0., 1., 1., 2.],
           [1., 0., 2., 1.],
           [1., 2., 0., 1.],
           [2., 1., 1., 0.]])
    >>> Hypercube(8).coordinates(5), Hypercube(8).distance(0, 7)
    ((1, 0, 1), 3.0)
    >>> net.neighbours(0), net.to_json()
    ((1, 2), {'topology': 'hypercube'})
    """

    name = "hypercube"
    __slots__ = ("_dim",)
    _dim: int

    def __init__(self, n_processors: int) -> None:
        n = _check_count(n_processors)
        dim = _exact_log(n, 2)
        if dim is None:
            raise TopologyError(
                "topology",
                f"a hypercube needs a power-of-two number of processors, but the platform has {n}",
            )
        super().__init__(n)
        object.__setattr__(self, "_dim", dim)

    @property
    def dimension(self) -> int:
        """``log2(P)``, the number of bits of a processor index."""
        return self._dim

    def _pair(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        x = np.bitwise_xor(p, q)
        if hasattr(np, "bitwise_count"):  # numpy >= 2.0
            return np.bitwise_count(x).astype(np.float64)
        total = np.zeros(np.shape(x), dtype=np.float64)
        for b in range(self._dim):  # a loop over bits, not over pairs
            total += (x >> b) & 1
        return total

    def coordinates(self, p: int) -> tuple[int, ...]:
        """The bits of `p`, most significant first (``log2(P)`` of them).

        Parameters
        ----------
        p : int
            A processor index.

        Returns
        -------
        tuple of int
            Each 0 or 1; ``()`` for a single processor.
        """
        p = self._check_processor(p)
        return tuple((p >> b) & 1 for b in range(self._dim - 1, -1, -1))

    def diameter(self) -> float:
        return float(self._dim)

    def _params(self) -> tuple[Any, ...]:
        return (self._n,)

    def to_json(self) -> dict[str, Any]:
        return {"topology": self.name}

    @classmethod
    def _from_json(cls, network: Mapping[str, Any], types: tuple[str, ...]) -> Topology:
        return cls(len(types))


class FatTree(Topology):
    """A complete `arity`-ary tree of switches with the processors as leaves.

    The hops between distinct ``p`` and ``q`` are ``2 ** (l - 1)`` where ``l`` is
    the level of the lowest switch above both: the smallest ``l`` with
    ``p // arity ** l == q // arity ** l`` (siblings: ``l = 1``). With 8
    processors and arity 2 this is the distance table of Kong [1]_: 1, 2, 4.

    Parameters
    ----------
    n_processors : int
        ``P``, a power of `arity` (1 is ``arity ** 0``).
    arity : int, default 2
        The number of children of each switch, ``>= 2``.

    Raises
    ------
    TopologyError
        If `arity` is not an integer >= 2, or `n_processors` is not a power of
        it (key ``arity``).

    Examples
    --------
    >>> net = FatTree(8)
    >>> net.hops()[0]
    array([0., 1., 2., 2., 4., 4., 4., 4.])
    >>> net.neighbours(5), net.diameter(), net.coordinates(5)
    ((4,), 4.0, (0, 1, 2))
    >>> FatTree(9, arity=3).hops()[0]
    array([0., 1., 1., 2., 2., 2., 2., 2., 2.])
    >>> FatTree(9, arity=3).to_json()
    {'topology': 'fat-tree', 'arity': 3}

    References
    ----------
    .. [1] M. Kong, "Polyhedral Network Aware Task Scheduling", 9th Annual
       Concurrent Collections Workshop, College Station, TX, 2017.
    """

    name = "fat-tree"
    keys = ("arity",)
    __slots__ = ("_arity", "_levels")
    _arity: int
    _levels: int

    def __init__(self, n_processors: int, arity: int = 2) -> None:
        arity = _check_arity(arity)
        n = _check_count(n_processors)
        levels = _exact_log(n, arity)
        if levels is None:
            raise TopologyError(
                "arity",
                f"a fat-tree needs a number of processors that is a power of the arity "
                f"{_show(arity)}, but the platform has {n}",
            )
        super().__init__(n)
        object.__setattr__(self, "_arity", arity)
        object.__setattr__(self, "_levels", levels)

    @property
    def arity(self) -> int:
        """The number of children of each switch."""
        return self._arity

    @property
    def levels(self) -> int:
        """The level of the root switch, ``log_arity(P)``."""
        return self._levels

    def _pair(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        # l* = the number of levels l in [0, L) at which p // a**l != q // a**l:
        # once both fall under one switch they stay under one at every higher level.
        shape = np.broadcast_shapes(np.shape(p), np.shape(q))
        level = np.zeros(shape, dtype=np.int8 if self._levels < 127 else np.int64)
        width = 1
        for _ in range(self._levels):  # a loop over levels, not over pairs
            level += (p // width) != (q // width)
            width *= self._arity
        table = np.array([0.0] + [2.0 ** (lv - 1) for lv in range(1, self._levels + 1)])
        return table[level]

    def coordinates(self, p: int) -> tuple[int, ...]:
        """The switches on the path from the root down to processor `p`.

        Parameters
        ----------
        p : int
            A processor index.

        Returns
        -------
        tuple of int
            For each level ``l`` from the root (``l = levels``) down to 1, the
            index ``p // arity ** l`` of the level-``l`` switch above `p` among
            the switches of that level; ``()`` for a single processor.
        """
        p = self._check_processor(p)
        return tuple(p // self._arity**lv for lv in range(self._levels, 0, -1))

    def diameter(self) -> float:
        return 2.0 ** (self._levels - 1) if self._levels else 0.0

    def _params(self) -> tuple[Any, ...]:
        return (self._n, self._arity)

    def _repr_args(self) -> str:
        return f"n_processors={self._n}, arity={self._arity}"

    def to_json(self) -> dict[str, Any]:
        return {"topology": self.name, "arity": self._arity}

    @classmethod
    def _from_json(cls, network: Mapping[str, Any], types: tuple[str, ...]) -> Topology:
        arity = _check_arity(network.get("arity", 2))
        return cls(len(types), arity)


class AcceleratedNode(Topology):
    """One node of CPU cores sharing memory plus accelerators (McSweeney's model).

    Two distinct processors are 0 hops apart when both have type ``"cpu"``
    (shared memory), else 1. This is the communication model of [1]_: CPU-CPU
    transfers are free and the CPU-GPU, GPU-CPU and GPU-GPU costs are equal.

    Parameters
    ----------
    types : sequence of str
        The type of each processor in platform order; only ``"cpu"`` is special.

    Raises
    ------
    TopologyError
        If `types` is empty.
    TypeError
        If `types` is not a list of strings.

    Examples
    --------
    >>> net = AcceleratedNode(["cpu", "cpu", "gpu"])
    >>> net.hops()
    array([[0., 0., 1.],
           [0., 0., 1.],
           [1., 1., 0.]])
    >>> net.neighbours(0), net.neighbours(2), net.to_json()
    ((1,), (0, 1), {'topology': 'accelerated-node'})

    References
    ----------
    .. [1] T. McSweeney, N. Walton and M. Zounon, "An Efficient New Static
       Scheduling Heuristic for Accelerated Architectures", ICCS 2020,
       LNCS 12137, pp. 3-16, doi:10.1007/978-3-030-50371-0_1.
    """

    name = "accelerated-node"
    __slots__ = ("_types", "_cpu")
    _types: tuple[str, ...]
    _cpu: np.ndarray

    def __init__(self, types: Sequence[str]) -> None:
        checked = _check_types(types)
        super().__init__(len(checked))
        object.__setattr__(self, "_types", checked)
        cpu = np.array([t == "cpu" for t in checked], dtype=bool)
        object.__setattr__(self, "_cpu", _read_only(cpu))

    @property
    def types(self) -> tuple[str, ...]:
        """The processor types in platform order."""
        return self._types

    def _pair(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        shared = self._cpu[p] & self._cpu[q]
        return ((p != q) & ~shared).astype(np.float64)

    def twin_hops(self) -> np.ndarray:
        """Hops from each processor to another processor of its type, present or not.

        The model prices a transfer by the two types alone, so ``c(T, T)`` of
        [1]_ is defined even on a node with one GPU: 0 between CPU cores, 1
        otherwise. HOFT's expected child finish times (eq. (11)) charge it.

        Examples
        --------
        >>> AcceleratedNode(["cpu", "cpu", "gpu"]).twin_hops().tolist()
        [0.0, 0.0, 1.0]
        """
        return (~self._cpu).astype(np.float64)

    def diameter(self) -> float:
        return 1.0 if self._n > 1 and not self._cpu.all() else 0.0

    def _params(self) -> tuple[Any, ...]:
        return self._types

    def _repr_args(self) -> str:
        return f"types={list(self._types)}"

    def to_json(self) -> dict[str, Any]:
        return {"topology": self.name}

    @classmethod
    def _from_json(cls, network: Mapping[str, Any], types: tuple[str, ...]) -> Topology:
        return cls(types)


class Matrix(Topology):
    """Hops given explicitly, one number per ordered pair.

    The numbers need not be integers nor symmetric; ``1 / link speed`` expresses
    a related-machines network.

    Parameters
    ----------
    hops : list of lists of float, or numpy.ndarray
        ``P x P``, finite, ``>= 0``, zero diagonal.

    Raises
    ------
    TopologyError
        If `hops` is not such a matrix (key ``hops``; the message names the
        offending row and column).

    Examples
    --------
    >>> net = Matrix([[0, 2, 0.5], [1, 0, 1], [3, 1, 0]])
    >>> net.distance(0, 2), net.distance(2, 0), net.diameter()
    (0.5, 3.0, 3.0)
    >>> net.neighbours(0)
    (2,)
    >>> Matrix([[0, -1], [1, 0]])
    Traceback (most recent call last):
    ...
    topologies.errors.TopologyError: hops[0][1]: negative value -1
    """

    name = "matrix"
    keys = ("hops",)
    __slots__ = ()

    def __init__(self, hops: Sequence[Sequence[float]] | np.ndarray) -> None:
        arr = _check_hops(hops)
        super().__init__(arr.shape[0])
        object.__setattr__(self, "_hops", _read_only(arr))

    def _pair(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        return self.hops()[p, q]

    def _params(self) -> tuple[Any, ...]:
        return (self._n, self.hops().tobytes())

    def to_json(self) -> dict[str, Any]:
        arr = self.hops()
        if np.all(arr == np.round(arr)) and arr.max(initial=0) < 2**53:
            return {"topology": self.name, "hops": arr.astype(np.int64).tolist()}
        return {"topology": self.name, "hops": arr.tolist()}

    @classmethod
    def _from_json(cls, network: Mapping[str, Any], types: tuple[str, ...]) -> Topology:
        n = len(types)
        if "hops" not in network:
            raise TopologyError(
                "hops", f"missing; a matrix network needs hops, a {n} x {n} list of lists"
            )
        return cls(_check_hops(network["hops"], n))


# --------------------------------------------------------------------------- entry points

#: The topologies by the value of their ``topology`` key.
TOPOLOGIES: Mapping[str, type[Topology]] = MappingProxyType(
    {
        cls.name: cls
        for cls in (FullyConnected, Mesh, Torus, Hypercube, FatTree, AcceleratedNode, Matrix)
    }
)

_EXTRA_KEYS = ("arity", "dims", "hops")


def from_network(network: Mapping[str, Any], processor_types: Sequence[str]) -> Topology:
    """Build the topology described by an instance's ``platform.network`` object.

    Parameters
    ----------
    network : Mapping
        The network object: ``topology`` (default ``"fully-connected"``) and the
        extra keys of that topology (``dims``, ``arity`` or ``hops``). The
        ``latency`` and ``bandwidth`` keys belong to the core and are ignored, as
        are keys this package does not know.
    processor_types : sequence of str
        The type of each processor in platform order; its length is ``P``.

    Returns
    -------
    Topology
        The topology, with ``n_processors == P``.

    Raises
    ------
    TopologyError
        For an unknown topology, a missing or malformed extra key, an extra key
        that belongs to another topology, or a processor count the topology
        cannot hold. The error's ``key`` names the network key at fault and its
        one-line message starts with it.
    TypeError
        If `processor_types` is not a list of strings (a caller's bug, not a
        defect of the network).

    Examples
    --------
    >>> from_network({"topology": "mesh", "dims": [2, 2], "latency": 5}, ["cpu"] * 4)
    Mesh(dims=[2, 2])
    >>> from_network({}, ["cpu", "gpu"])
    FullyConnected(n_processors=2)
    >>> try:
    ...     from_network({"topology": "mesh", "dims": [3, 3]}, ["cpu"] * 8)
    ... except TopologyError as err:
    ...     print(err.key, "|", err)
    dims | dims: product of [3, 3] is 9, but the platform has 8 processors
    >>> try:
    ...     from_network({"topology": "hypercube", "dims": [2, 2]}, ["cpu"] * 4)
    ... except TopologyError as err:
    ...     print(err)
    dims: not a key of topology 'hypercube' (dims belongs to mesh, torus)
    """
    if not isinstance(network, Mapping):
        raise TopologyError("topology", f"the network must be an object, got {_show(network)}")
    types = _check_types(processor_types)
    name = network.get("topology", "fully-connected")
    if not isinstance(name, str):
        raise TopologyError(
            "topology", f"expected a string naming the topology, got {_show(name)}"
        )
    cls = TOPOLOGIES.get(name)
    if cls is None:
        known = ", ".join(sorted(TOPOLOGIES))
        raise TopologyError("topology", f"unknown topology {_show(name)}; known: {known}")
    for key in _EXTRA_KEYS:
        if key in network and key not in cls.keys:
            owners = ", ".join(sorted(n for n, c in TOPOLOGIES.items() if key in c.keys))
            raise TopologyError(key, f"not a key of topology {name!r} ({key} belongs to {owners})")
    return cls._from_json(network, types)


def hop_matrix(network: Mapping[str, Any], processor_types: Sequence[str]) -> np.ndarray:
    """The ``(P, P)`` hop matrix of a network object.

    Shorthand for ``from_network(network, processor_types).hops()``; see
    :func:`from_network` for the parameters and errors.

    Returns
    -------
    numpy.ndarray
        float64, read-only, zero diagonal.

    Examples
    --------
    >>> hop_matrix({"topology": "torus", "dims": [4]}, ["cpu"] * 4)
    array([[0., 1., 2., 1.],
           [1., 0., 1., 2.],
           [2., 1., 0., 1.],
           [1., 2., 1., 0.]])
    """
    return from_network(network, processor_types).hops()
