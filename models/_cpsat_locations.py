"""Stage *locations* of the CP-SAT model: where a task can be put.

Processors are grouped into classes of *interchangeable* processors (same cost
column, affinity included, and swapping the two maps the hop matrix onto
itself; when nothing communicates the network is irrelevant). A class whose
members communicate for free is *pooled* into one location of capacity ``k``
(option ``pooling``): the model then chooses the type and the core is chosen
afterwards by interval colouring (:func:`colour_cores`). Every other processor
is its own location; interchangeable single-processor locations form the
*symmetric* groups that value-precedence symmetry breaking works on.

The class analysis is vectorised and quadratic in the number of processors
``P`` (a hashed comparison of every pair, then one exact check per processor),
so a 1024-processor mesh takes a fraction of a second.

References
----------
.. [1] T. McSweeney, N. Walton and M. Zounon, ICCS 2020 (the CPU cores of an
   accelerated node as one pool, the type chosen first).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from exactsched.problem import Problem

__all__ = [
    "Locations",
    "interchangeable_classes",
    "processor_locations",
    "colour_cores",
    "relabel_symmetric",
]

# Rows of the pairwise hash comparison handled at once (bounds the memory at
# about 3 * _BLOCK * P floats).
_BLOCK = 256


@dataclass
class Locations:
    """Where a task can be put in the model.

    Attributes
    ----------
    members : list of list of int
        Processors of each location (one, or a pooled class).
    of_processor : numpy.ndarray
        Location of each processor.
    symmetric : list of list of int
        Groups of single-processor locations that are interchangeable (size >= 2).
    classes : list of list of int
        All classes of interchangeable processors.
    """

    members: list[list[int]]
    of_processor: np.ndarray
    symmetric: list[list[int]] = field(default_factory=list)
    classes: list[list[int]] = field(default_factory=list)

    @property
    def capacity(self) -> list[int]:
        """Number of processors of every location."""
        return [len(m) for m in self.members]

    @property
    def representative(self) -> np.ndarray:
        """First processor of every location (its cost column is the location's)."""
        return np.array([m[0] for m in self.members], dtype=np.int64)


def _codes(values: np.ndarray) -> np.ndarray:
    """Small integer codes with the same equality pattern as ``values`` (``inf`` included)."""
    if values.size and np.isfinite(values).all():
        top = float(values.max())
        if top < 2**20 and float(values.min()) >= 0 and (values == np.floor(values)).all():
            return values.astype(float)  # whole hop counts code themselves (no sort of P**2)
    _, inverse = np.unique(values, return_inverse=True)
    return inverse.reshape(values.shape).astype(float)


def _swap_maps_hops(hops: np.ndarray, p: int, q: int) -> bool:
    """Whether exchanging processors ``p`` and ``q`` maps ``hops`` onto itself (O(P))."""
    others = np.ones(len(hops), dtype=bool)
    others[[p, q]] = False
    return bool(
        hops[p, q] == hops[q, p]
        and hops[p, p] == hops[q, q]
        and np.array_equal(hops[p, others], hops[q, others])
        and np.array_equal(hops[others, p], hops[others, q])
    )


def _uniform(hops: np.ndarray) -> bool:
    """Whether ``hops`` holds one value off its diagonal and one on it.

    >>> _uniform(np.ones((3, 3)) - np.eye(3)), _uniform(np.array([[0, 1], [2, 0]]))
    (True, False)
    """
    n = len(hops)
    if n < 2:
        return True
    off, diagonal = hops[0, 1], np.diag(hops)
    if not (diagonal == diagonal[0]).all():
        return False
    expected = n * n - n + (n if diagonal[0] == off else 0)
    return int(np.count_nonzero(hops == off)) == expected


def interchangeable_classes(problem: Problem) -> np.ndarray:
    """Label of every processor: the least processor interchangeable with it.

    Two processors are interchangeable when they have the same cost for every
    task (affinity included) and, unless no arc carries data, exchanging them
    maps the hop matrix onto itself. This is an equivalence (the conjugate of
    two such exchanges is one), so each processor only needs to be matched
    with one earlier member of its class.

    Examples
    --------
    >>> p = Problem.from_lists([[1, 1, 2, 1]], [], network={"topology": "fully-connected"})
    >>> interchangeable_classes(p).tolist()
    [0, 0, 2, 0]

    Notes
    -----
    Quadratic in ``P``: with random weights ``w``, the row sums
    ``s_p = sum_r w_r h_pr`` of two exchangeable processors differ by exactly
    ``w_p (h_pp - h_qp) + w_q (h_pq - h_qq)`` (the entries at ``p`` and ``q``
    are the only ones allowed to differ), and likewise the column sums. Pairs
    meeting both identities (computed on integer codes of the hop values, in
    blocks of rows) are the candidates; each processor is checked exactly
    against its candidates in increasing order and joins the class of the
    first that passes. A false candidate only costs one ``O(P)`` check.
    """
    n_procs = problem.n_processors
    cost = np.where(problem.allowed, problem.cost, -1.0)  # costs are >= 0
    _, cost_label = np.unique(cost.T, axis=0, return_inverse=True)
    cost_label = cost_label.ravel()
    label = np.arange(n_procs)
    if not np.any(problem.arc_unit > 0) or _uniform(problem.hops):
        # Nothing communicates, or every exchange maps the hops onto themselves (one
        # value off the diagonal, one on it: fully connected): equal columns suffice.
        first = {}
        for p, c in enumerate(cost_label.tolist()):
            label[p] = first.setdefault(c, p)
        return label
    hops = _codes(problem.hops)
    w = np.random.default_rng(0).uniform(1.0, 2.0, n_procs)
    row, col, diag = hops @ w, w @ hops, np.diag(hops)
    tol = 1e-9 * float(w.sum()) * max(1.0, float(hops.max()))
    cand = np.zeros((n_procs, n_procs), dtype=bool)
    for lo in range(0, n_procs, _BLOCK):
        hi = min(lo + _BLOCK, n_procs)
        p = np.arange(lo, hi)[:, None]
        q = np.arange(n_procs)[None, :]
        h_pq, h_qp = hops[lo:hi, :], hops[:, lo:hi].T  # slices: no fancy-index copies
        r = row[p] - row[q] - w[p] * (diag[p] - h_qp) - w[q] * (h_pq - diag[q])
        c = col[p] - col[q] - w[p] * (diag[p] - h_pq) - w[q] * (h_qp - diag[q])
        cand[p.ravel()] = (
            (q < p)
            & (cost_label[p] == cost_label[q])
            & (np.abs(r) <= tol)
            & (np.abs(c) <= tol)
            & (h_pq == h_qp)
        )
    for p in range(1, n_procs):
        for q in np.flatnonzero(cand[p, :p]).tolist():
            if np.array_equal(cost[:, p], cost[:, q]) and _swap_maps_hops(problem.hops, p, q):
                label[p] = label[q]
                break
    return label


def processor_locations(problem: Problem, *, pooling: bool = True) -> Locations:
    """Group interchangeable processors and pool those where the core does not matter.

    A class of interchangeable processors (:func:`interchangeable_classes`) is
    *pooled* (one location of capacity ``k``) when communication inside it is
    free: zero hops between its members, or no arc carries data at all.

    Parameters
    ----------
    problem : Problem
    pooling : bool
        Pool the classes with free communication inside (else every processor
        is its own location and such classes become symmetric groups).

    Returns
    -------
    Locations
        Locations numbered by their first processor.

    Examples
    --------
    >>> from topologies import platform_preset
    >>> import networkx as nx
    >>> g = nx.DiGraph(); g.add_node("a", cost={"cpu": 5, "gpu": 1})
    >>> p = Problem.from_networkx(g, platform_preset("hoft-single-gpu"))
    >>> loc = processor_locations(p)
    >>> [len(m) for m in loc.members], loc.symmetric
    ([7, 1], [])
    >>> processor_locations(p, pooling=False).symmetric
    [[0, 1, 2, 3, 4, 5, 6]]
    """
    n_procs = problem.n_processors
    label = interchangeable_classes(problem)
    classes = [np.flatnonzero(label == r).tolist() for r in np.unique(label).tolist()]
    no_comm = not np.any(problem.arc_unit > 0)
    members: list[list[int]] = []
    symmetric: list[list[int]] = []
    for cls in classes:
        free = no_comm or not np.any(problem.hops[np.ix_(cls, cls)])
        if pooling and len(cls) > 1 and free:
            members.append(list(cls))
            continue
        first = len(members)
        members.extend([p] for p in cls)
        if len(cls) > 1:
            symmetric.append(list(range(first, first + len(cls))))
    order = sorted(range(len(members)), key=lambda k: members[k][0])
    members = [members[k] for k in order]
    renumber = np.empty(len(order), dtype=np.int64)
    renumber[order] = np.arange(len(order))
    symmetric = [renumber[group].tolist() for group in symmetric]
    of_processor = np.zeros(n_procs, dtype=np.int64)
    for k, procs in enumerate(members):
        of_processor[procs] = k
    return Locations(members, of_processor, symmetric, classes)


def colour_cores(
    loc_of: np.ndarray, start: np.ndarray, cost_l: np.ndarray, loc: Locations
) -> np.ndarray:
    """Processors from locations: pooled tasks get cores by greedy interval colouring.

    Tasks of a pooled location, sorted by start, take the lowest-index core that is
    free; a cumulative of capacity ``k`` never has more than ``k`` overlapping
    intervals, so a core is always free (interval graphs are perfect).

    Raises
    ------
    RuntimeError
        If more intervals overlap than the location has cores (a model bug).

    Examples
    --------
    >>> loc = Locations([[0, 1]], np.array([0, 0]))
    >>> colour_cores(np.array([0, 0, 0]), np.array([0, 1, 3]), np.full((3, 1), 2.0), loc)
    array([0, 1, 0])
    """
    n = len(loc_of)
    proc = np.array([loc.members[k][0] for k in loc_of.tolist()], dtype=np.int64)
    ends = start + cost_l[np.arange(n), loc_of]
    for k, members in enumerate(loc.members):
        if len(members) == 1:
            continue
        tasks = np.flatnonzero(loc_of == k)
        free = [-math.inf] * len(members)
        for i in sorted(tasks.tolist(), key=lambda t: (start[t], ends[t], t)):
            if ends[i] <= start[i]:
                continue  # zero length: the first core
            core = next((c for c in range(len(members)) if free[c] <= start[i]), None)
            if core is None:
                raise RuntimeError("cpsat: cumulative solution does not colour")
            free[core] = ends[i]
            proc[i] = members[core]
    return proc


def relabel_symmetric(proc: np.ndarray, loc: Locations) -> np.ndarray:
    """Permute interchangeable processors so their first tasks come in processor order.

    This makes a schedule satisfy the value-precedence symmetry breaking
    (task ``i`` may use the ``m``-th processor of a group only if an earlier
    task uses the ``(m-1)``-th), so it can be a complete hint.

    Examples
    --------
    >>> loc = Locations([[0], [1], [2]], np.arange(3), symmetric=[[0, 1, 2]])
    >>> relabel_symmetric(np.array([2, 2, 0]), loc).tolist()
    [0, 0, 1]
    """
    proc = proc.copy()
    for group in loc.symmetric:
        procs = [loc.members[k][0] for k in group]
        first = {p: (np.flatnonzero(proc == p)[:1].tolist() or [len(proc)])[0] for p in procs}
        ranked = sorted(procs, key=lambda p: (first[p], p))
        mapping = dict(zip(ranked, procs, strict=True))
        old = proc.copy()
        for src, dst in mapping.items():
            proc[old == src] = dst
    return proc
