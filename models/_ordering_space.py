"""The space of task orderings of an instance: counts, enumeration and its isl sets.

An *ordering* is a sequence holding every task once (an execution path in the
sense of Kong [1]_). It is *legal* when every precedence arc (data edge or
order pair) goes forward, i.e. it is a linear extension (topological sort) of
the DAG of arcs. Isolation pairs ask "a before b or b before a", which every
ordering meets, so they never prune a permutation; they only prune the
non-permutation points of Kong's sum-constrained space (see
:func:`semi_legal_count` and :func:`isl_text`).

Orderings are rows of ``int16`` task indices. :func:`iter_orderings` streams
them in lexicographic order in blocks of bounded size; :func:`count_legal`
counts them without enumerating (dynamic programming over the down-sets of each
weakly connected component, combined by a multinomial).

References
----------
.. [1] M. Kong, "Polyhedral Network Aware Task Scheduling", 9th Annual
   Concurrent Collections Workshop (CnC'17), College Station, TX, 2017 (slides:
   "Building the closed form of the exploration space", "Pruning the scheduling
   space", and the result tables).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from exactsched._output import listed
from exactsched.errors import MethodError
from exactsched.problem import Problem, require_problem

__all__ = [
    "MAX_TASKS",
    "count_legal",
    "isl_count",
    "isl_orderings",
    "isl_set",
    "isl_text",
    "iter_orderings",
    "ordering_counts",
    "predecessor_masks",
    "semi_legal_count",
]

MAX_TASKS = 62
"""Largest number of tasks of an ordering space (task sets are ``int64`` bit masks)."""

_ONE = np.int64(1)


def _check_size(problem: Problem) -> int:
    n = problem.n_tasks
    if n > MAX_TASKS:
        raise MethodError(f"orderings: {n} tasks, at most {MAX_TASKS} supported")
    return n


def predecessor_masks(problem: Problem) -> np.ndarray:
    """``(n,)`` bit mask of the direct predecessors (edges and order pairs) of each task.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 2), (1, 2)], n_processors=1)
    >>> predecessor_masks(p).tolist()
    [0, 0, 3]
    """
    n = _check_size(problem)
    masks = np.zeros(n, dtype=np.int64)
    np.bitwise_or.at(masks, problem.arc_dst, _ONE << problem.arc_src.astype(np.int64))
    return masks


def _ancestor_masks(problem: Problem) -> np.ndarray:
    """``(n,)`` bit mask of all ancestors of each task (transitive closure)."""
    pred = predecessor_masks(problem)
    anc = pred.copy()
    for v in problem.topological_order.tolist():
        for u in np.flatnonzero((pred[v] >> np.arange(len(pred))) & 1).tolist():
            anc[v] |= anc[u]
    return anc


def semi_legal_count(n: int) -> int:
    """Kong's semi-legal count: points of ``[1, n]^n`` whose coordinates sum to ``n(n+1)/2``.

    This is the space of [1]_ before any pruning edge is added (bounds plus the
    sum constraint that removes points such as ``(1, 1, 1)``); it still holds
    non-permutations such as ``(2, 2, 2)``. Computed as a coefficient of
    ``(x + x^2 + ... + x^n)^n``.

    Examples
    --------
    >>> [semi_legal_count(n) for n in (2, 3, 4, 5, 10)]
    [2, 7, 44, 381, 432457640]
    """
    poly = [1]
    for _ in range(n):
        new = [0] * (len(poly) + n)
        for k, c in enumerate(poly):
            if c:
                for j in range(1, n + 1):
                    new[k + j] += c
        poly = new
    target = n * (n + 1) // 2
    return poly[target] if n else 1


def _components(problem: Problem) -> list[np.ndarray]:
    """Weakly connected components of the arc graph, each a sorted index array."""
    n = problem.n_tasks
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(problem.arc_src.tolist(), problem.arc_dst.tolist(), strict=True):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    roots = np.array([find(i) for i in range(n)], dtype=np.int64)
    return [np.flatnonzero(roots == r) for r in np.unique(roots)]


def _count_downsets(pred: np.ndarray, max_states: int, deadline: float | None = None) -> int:
    """Linear extensions of one DAG given by predecessor masks: DP over its down-sets.

    Layer ``k`` holds the down-sets of size ``k`` with their number of
    orderings. Counts are kept in float64 (magnitude) and in uint64 (exact
    modulo 2**64), and recombined exactly at the end: the integer of that
    residue nearest to the float. That holds while the float's error stays
    below 2**63, about counts below 2**100; when ``m!`` (a bound on the count)
    may be larger, counts are also kept modulo as many primes below 2**40
    (:data:`_PRIMES`) as make the moduli's product exceed ``m!``, and the
    count is their Chinese remainder (a 62-task poset of 3.6e42 orderings was
    off by 3.5e26 with the float alone). A layer is built
    from blocks of the previous one, merged as they come, so that the guard
    ``max_states`` stops it before its memory is allocated (at most about
    ``max_states`` down-sets plus one block are held at once), and
    ``deadline`` (a :func:`time.monotonic` value) is checked between blocks.
    """
    m = len(pred)
    bits = np.arange(m, dtype=np.int64)
    masks = np.zeros(1, dtype=np.int64)
    c_float = np.ones(1)
    primes = _moduli_for(m)
    c_mod = np.ones((1, 1 + len(primes)), dtype=np.uint64)
    block = max(1, (1 << 21) // max(m, 1))  # rows per block: about 2M (state, task) pairs
    for layer in range(m):
        # Each down-set of size layer + 1 has at most layer + 1 parents in this layer, so
        # (parent, task) pairs / (layer + 1) bounds the next layer from below: refuse
        # before building it when that is already over the guard.
        pairs = 0
        for start in range(0, len(masks), block):
            placed = masks[start : start + block, None]
            avail = ((placed & pred[None, :]) == pred[None, :]) & (((placed >> bits) & 1) == 0)
            pairs += int(avail.sum())
        if pairs // (layer + 1) > max_states:
            raise MethodError(
                f"orderings: more than {max_states} down-sets of {m} connected tasks to count "
                f"(at least {pairs // (layer + 1):,} of size {layer + 1})"
            )
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        held = 0
        for start in range(0, len(masks), block):
            if deadline is not None and time.monotonic() > deadline:
                raise _TimeUp(f"layer {layer + 1} of {m}")
            placed = masks[start : start + block, None]
            avail = ((placed & pred[None, :]) == pred[None, :]) & (((placed >> bits) & 1) == 0)
            rows, cols = np.nonzero(avail)
            child = placed[rows, 0] | (_ONE << cols)
            parts.append(_merge([(child, c_float[start + rows], c_mod[start + rows])], primes))
            held += len(parts[-1][0])
            if held > max_states or start + block >= len(masks):
                parts = [_merge(parts, primes)]
                held = len(parts[0][0])
                if held > max_states:
                    raise MethodError(
                        f"orderings: more than {max_states} down-sets of {m} connected tasks "
                        "to count"
                    )
        masks, c_float, c_mod = parts[0]
    residues = [int(x) for x in c_mod[0]]
    if primes:
        return _chinese_remainder(residues, [2**64, *primes])
    f, r = float(c_float[0]), residues[0]
    # The exact count is the integer = r (mod 2**64) nearest to the float.
    return r + round((f - r) / 2.0**64) * 2**64


#: Primes below 2**40 for the residues of large counts: sums of up to 2**24 of them
#: stay below 2**64, and six of them with 2**64 exceed 64! (about 2**296).
_PRIMES = (1099511627689, 1099511627609, 1099511627581, 1099511627573, 1099511627563,
           1099511627491)  # fmt: skip


def _moduli_for(m: int) -> tuple[int, ...]:
    """The primes whose product with 2**64 exceeds ``m!``; none below 2**100.

    Examples
    --------
    >>> len(_moduli_for(20)), len(_moduli_for(40)), len(_moduli_for(64))
    (0, 3, 6)
    """
    bits = math.lgamma(m + 1) / math.log(2)
    if bits < 100:
        return ()
    return _PRIMES[: max(1, math.ceil((bits + 1 - 64) / 40))]


def _chinese_remainder(residues: list[int], moduli: list[int]) -> int:
    """The integer in ``[0, prod(moduli))`` with these residues (pairwise coprime moduli).

    Examples
    --------
    >>> _chinese_remainder([2, 3], [5, 7])
    17
    """
    value, modulus = 0, 1
    for r, q in zip(residues, moduli, strict=True):
        # value + modulus * t = r (mod q)
        t = ((r - value) * pow(modulus, -1, q)) % q
        value, modulus = value + modulus * t, modulus * q
    return value


def _forest_count(pred: np.ndarray) -> int | None:
    """Linear extensions of a forest by the hook length formula; None if not a forest.

    When every task has at most one immediate predecessor (an out-forest, once
    transitive arcs are set aside) the count is ``m! / prod(size of the subtree
    of v)``; when every task has at most one immediate successor (an in-forest)
    it is ``m! / prod(number of ancestors of v + 1)`` (Knuth, The Art of
    Computer Programming vol. 3, 5.1.4, exercise 20). Stars and trees of any
    width are counted at once, where the down-sets would be too many.
    """
    m = len(pred)
    order = _local_order(pred)
    anc = pred.copy()
    for v in order:
        for u in _bits_of(int(pred[v])):
            anc[v] |= anc[u]
    # Immediate predecessors: those that are not an ancestor of another predecessor.
    immediate = []
    for v in range(m):
        covered = 0
        for u in _bits_of(int(pred[v])):
            covered |= int(anc[u])
        immediate.append(int(pred[v]) & ~covered)
    n_anc = [int(a).bit_count() for a in anc.tolist()]
    n_desc = [sum(1 for w in range(m) if (int(anc[w]) >> v) & 1) for v in range(m)]
    n_succ = [sum(1 for w in range(m) if (immediate[w] >> v) & 1) for v in range(m)]
    if all(x.bit_count() <= 1 for x in immediate):
        sizes = [d + 1 for d in n_desc]
    elif all(k <= 1 for k in n_succ):
        sizes = [a + 1 for a in n_anc]
    else:
        return None
    return math.factorial(m) // math.prod(sizes)


def _bits_of(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if (mask >> k) & 1]


def _local_order(pred: np.ndarray) -> list[int]:
    """A topological order of a DAG given by predecessor bit masks."""
    done, order, m = 0, [], len(pred)
    while len(order) < m:
        for v in range(m):
            if not (done >> v) & 1 and int(pred[v]) & ~done == 0:
                order.append(v)
                done |= 1 << v
    return order


def _merge(
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    primes: tuple[int, ...] = (),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Down-sets with their counts, equal down-sets summed (float, modulo 2**64 and ``primes``)."""
    child = np.concatenate([p[0] for p in parts])
    weights = np.concatenate([p[1] for p in parts])
    mods = np.concatenate([p[2] for p in parts])
    masks, inv = np.unique(child, return_inverse=True)
    c_float = np.bincount(inv, weights=weights, minlength=len(masks))
    c_mod = np.zeros((len(masks), mods.shape[1]), dtype=np.uint64)
    np.add.at(c_mod, inv, mods)  # column 0 wraps modulo 2**64
    if primes:
        c_mod[:, 1:] %= np.array(primes, dtype=np.uint64)
    return masks, c_float, c_mod


class _TimeUp(Exception):
    """The deadline passed while counting (turned into a MethodError by the caller)."""


def _deadline(time_limit: float | None) -> float | None:
    if time_limit is None:
        return None
    if not (isinstance(time_limit, int | float) and 0 <= time_limit < math.inf):
        raise MethodError(
            f"time_limit: expected a finite number of seconds >= 0, got {time_limit!r}"
        )
    return time.monotonic() + float(time_limit)


def count_legal(
    problem: Problem,
    *,
    max_states: int = 4_000_000,
    time_limit: float | None = None,
    engine: str = "dp",
) -> int:
    """Number of legal orderings (linear extensions of edges and order pairs), exactly.

    Each weakly connected component is counted by dynamic programming over its
    down-sets; independent components interleave freely, which a multinomial
    coefficient counts. Practical up to about 25 tasks for any DAG (the
    number of down-sets of a component bounds the work), far beyond for
    narrow ones. A component that is a forest (stars, trees, chains) is
    counted by the hook length formula instead, at any width.

    Parameters
    ----------
    problem : Problem
    max_states : int
        Refuse when one layer of a component has more down-sets than this
        (checked before the layer is held in memory).
    time_limit : float, optional
        Seconds; refuse (MethodError) when counting takes longer.
    engine : {"dp", "isl"}
        ``"dp"`` (default): the dynamic programme above. ``"isl"``: build the
        position-encoded isl set (:func:`isl_set`) and count its points
        (:func:`isl_count`), orders of magnitude slower; a cross-check.

    Returns
    -------
    int

    Raises
    ------
    MethodError
        Over :data:`MAX_TASKS` tasks, too many down-sets, or past ``time_limit``.

    Examples
    --------
    >>> import exactsched
    >>> p = exactsched.load_instance("examples/topcuoglu2002.json")
    >>> count_legal(p), count_legal(p, engine="isl")
    (1680, 1680)
    """
    problem = require_problem(problem, "count_legal")
    _check_size(problem)
    deadline = _deadline(time_limit)
    if engine == "isl":
        return isl_count(isl_set(problem, deadline=deadline))
    if engine != "dp":
        raise MethodError(f"engine: unknown {engine!r} (dp or isl)")
    pred = predecessor_masks(problem)
    total, placed = 1, 0
    try:
        for comp in _components(problem):
            # Re-index the component's predecessor masks to 0..len(comp)-1.
            local = np.zeros(len(comp), dtype=np.int64)
            where = {int(t): k for k, t in enumerate(comp.tolist())}
            for k, t in enumerate(comp.tolist()):
                for u in np.flatnonzero((pred[t] >> np.arange(problem.n_tasks)) & 1).tolist():
                    local[k] |= _ONE << where[u]
            placed += len(comp)
            count = _forest_count(local)
            if count is None:
                count = _count_downsets(local, max_states, deadline)
            total *= math.comb(placed, len(comp)) * count
    except _TimeUp as exc:
        raise MethodError(
            f"orderings: counting the legal orderings took more than the time limit of "
            f"{time_limit:g} s (at {exc} of a component)"
        ) from None
    return total


def ordering_counts(
    problem: Problem,
    *,
    max_states: int = 4_000_000,
    time_limit: float | None = None,
    engine: str = "dp",
) -> dict[str, int]:
    """The four sizes of Kong's tables [1]_ for this instance.

    Parameters
    ----------
    problem : Problem
    max_states, time_limit, engine
        As in :func:`count_legal`.

    Returns
    -------
    dict
        ``complete`` ``n**n`` (the box ``[1, n]^n``), ``factorial`` ``n!``,
        ``semi_legal`` (:func:`semi_legal_count`: the box with Kong's sum
        constraint, before any pruning edge) and ``legal`` (orderings meeting
        every edge and order pair: :func:`count_legal`).

    Examples
    --------
    >>> import exactsched
    >>> ordering_counts(exactsched.load_instance("examples/topcuoglu2002.json"))
    {'complete': 10000000000, 'factorial': 3628800, 'semi_legal': 432457640, 'legal': 1680}
    """
    problem = require_problem(problem, "ordering_counts")
    n = _check_size(problem)
    return {
        "complete": n**n,
        "factorial": math.factorial(n),
        "semi_legal": semi_legal_count(n),
        "legal": count_legal(problem, max_states=max_states, time_limit=time_limit, engine=engine),
    }


def iter_orderings(problem: Problem, *, chunk: int = 1 << 16) -> Iterator[np.ndarray]:
    """Every legal ordering, in lexicographic order, as blocks of at most ``chunk`` rows.

    Depth-first over blocks of prefixes: a block is extended by one position
    for all its rows at once (rows stay in lexicographic order because the
    children of a row are taken in increasing task index), and split when it
    outgrows ``chunk``; memory stays ``O(n^2 * chunk)``.

    Parameters
    ----------
    problem : Problem
    chunk : int
        Largest block (rows per array yielded).

    Yields
    ------
    numpy.ndarray
        ``(k, n)`` ``int16`` task indices, ``k <= chunk``; row ``r`` is the task
        run first, second, ... in that ordering.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 2)], n_processors=1)
    >>> np.concatenate(list(iter_orderings(p))).tolist()
    [[0, 1, 2], [0, 2, 1], [1, 0, 2]]
    """
    problem = require_problem(problem, "iter_orderings")
    n = _check_size(problem)
    pred = predecessor_masks(problem)
    bits = np.arange(n, dtype=np.int64)
    chunk = max(1, int(chunk))
    stack: list[tuple[np.ndarray, np.ndarray]] = [
        (np.zeros((1, 0), dtype=np.int16), np.zeros(1, dtype=np.int64))
    ]
    out: list[np.ndarray] = []
    size = 0
    while stack:
        prefix, placed = stack.pop()
        while prefix.shape[1] < n and len(prefix) <= chunk:
            pm = placed[:, None]
            avail = ((pm & pred[None, :]) == pred[None, :]) & (((pm >> bits) & 1) == 0)
            rows, cols = np.nonzero(avail)
            prefix = np.concatenate([prefix[rows], cols[:, None].astype(np.int16)], axis=1)
            placed = placed[rows] | (_ONE << cols)
        if prefix.shape[1] < n:
            # Too many rows: process the pieces in order (the first one on top of the stack).
            for start in range((len(prefix) - 1) // chunk * chunk, -1, -chunk):
                stack.append((prefix[start : start + chunk], placed[start : start + chunk]))
            continue
        out.append(prefix)
        size += len(prefix)
        if size >= chunk:
            block = np.concatenate(out)
            yield from (block[i : i + chunk] for i in range(0, len(block) - chunk + 1, chunk))
            rest = len(block) % chunk
            out, size = ([block[-rest:]], rest) if rest else ([], 0)
    if size:
        yield np.concatenate(out)


# ---- isl ------------------------------------------------------------------------------


def isl_text(problem: Problem, encoding: str = "position") -> str:
    """The ordering space as an isl set in text form, for isl, barvinok or other tools.

    Parameters
    ----------
    problem : Problem
    encoding : {"position", "kong"}
        ``"kong"``: Kong's encoding [1]_, ``[t1, ..., tn]`` where ``tk`` is the
        number (1-based task index) of the task run ``k``-th; bounds ``1 <= tk
        <= n``, Kong's sum constraint, pairwise distinct entries (Kong checks
        this by hand after isl; here it is a constraint), and for each arc
        ``a -> b`` the disjunction over positions ``k < l`` of ``tk = a and tl =
        b``. ``"position"``: ``[p0, ..., p(n-1)]`` where ``pi`` is the 1-based
        position of task ``i``; bounds, ``pa < pb`` for each arc, and ``pi < pj
        or pi > pj`` only for the pairs the arcs leave unordered (the others
        are implied). One affine inequality per arc instead of ``n(n-1)/2``
        disjuncts is what makes it faster for isl.

    Returns
    -------
    str
        A comment line naming the variables' tasks, then the set.

    Notes
    -----
    Isolation pairs ``a ~ b`` are the disjunction "a before b or b before a".
    On permutations it always holds: in the position encoding it is the same
    constraint as ``pa != pb``, already present, and in Kong's encoding it is
    implied by distinctness; so neither text repeats it. (Without distinctness,
    in Kong's raw space, it would prune points where ``a`` or ``b`` is absent.)
    Variable names use task indices; the comment line maps them to task ids.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 2)], n_processors=1)
    >>> print(isl_text(p))
    # p0..p2: positions of tasks t0, t1, t2
    { [p0, p1, p2] : 1 <= p0 <= 3 and 1 <= p1 <= 3 and 1 <= p2 <= 3 and p0 < p2 and \
(p0 < p1 or p0 > p1) and (p1 < p2 or p1 > p2) }
    """
    problem = require_problem(problem, "isl_text")
    return "\n".join(_isl_parts(problem, encoding)[0:1] + [_isl_body(problem, encoding)])


def _isl_parts(problem: Problem, encoding: str) -> list[str]:
    n = _check_size(problem)
    # One comment line, whatever the ids hold (blanks, commas, newlines are quoted).
    ids = ", ".join(listed(t) for t in problem.task_ids)
    if encoding == "position":
        return [f"# p0..p{n - 1}: positions of tasks {ids}"]
    if encoding == "kong":
        return [f"# t1..t{n}: number of the task run k-th; task numbers 1..{n} are {ids}"]
    raise MethodError(f"orderings: unknown encoding {encoding!r} (position or kong)")


def _isl_constraints(problem: Problem, encoding: str) -> tuple[str, list[str], list[str]]:
    """Tuple, conjunctive constraints, and disjunctive constraints of the set."""
    n = problem.n_tasks
    arcs = sorted(set(zip(problem.arc_src.tolist(), problem.arc_dst.tolist(), strict=True)))
    if encoding == "position":
        tup = ", ".join(f"p{i}" for i in range(n))
        conj = [f"1 <= p{i} <= {n}" for i in range(n)] + [f"p{a} < p{b}" for a, b in arcs]
        anc = _ancestor_masks(problem)
        disj = [
            f"(p{i} < p{j} or p{i} > p{j})"
            for i in range(n)
            for j in range(i + 1, n)
            if not (anc[j] >> i) & 1 and not (anc[i] >> j) & 1
        ]
        return tup, conj, disj
    tup = ", ".join(f"t{k}" for k in range(1, n + 1))
    conj = [f"1 <= t{k} <= {n}" for k in range(1, n + 1)]
    if n:
        conj.append(" + ".join(f"t{k}" for k in range(1, n + 1)) + f" = {n * (n + 1) // 2}")
    disj = [
        "("
        + " or ".join(
            f"(t{k} = {a + 1} and t{m} = {b + 1})"
            for k in range(1, n + 1)
            for m in range(k + 1, n + 1)
        )
        + ")"
        for a, b in arcs
    ]
    disj += [f"(t{k} < t{m} or t{k} > t{m})" for k in range(1, n + 1) for m in range(k + 1, n + 1)]
    return tup, conj, disj


def _isl_body(problem: Problem, encoding: str) -> str:
    _isl_parts(problem, encoding)  # checks the encoding name
    tup, conj, disj = _isl_constraints(problem, encoding)
    return "{ [" + tup + "] : " + " and ".join(conj + disj) + " }" if conj else "{ [] }"


def isl_set(problem: Problem, encoding: str = "position", *, deadline: float | None = None) -> Any:
    """The ordering space as an ``islpy.Set`` (see :func:`isl_text` for the encodings).

    The set is built incrementally: the conjunctive part first, then one
    disjunction at a time, coalescing as it goes, which keeps isl's union of
    basic sets near the number of legal orderings instead of expanding the
    whole conjunction of disjunctions at once. Either way isl ends with about
    one basic set per legal ordering: the position encoding builds 4,200
    orderings of 8 tasks in about 3 s, 71,190 of 10 tasks in about a minute;
    Kong's encoding takes tens of seconds for a few dozen orderings of 8 tasks
    (the slides report 317 s for 10 tasks). Use :func:`iter_orderings` to
    enumerate and :func:`count_legal` to count: they are orders of magnitude
    faster.

    Parameters
    ----------
    problem : Problem
    encoding : {"position", "kong"}
        As in :func:`isl_text`.
    deadline : float, optional
        A :func:`time.monotonic` value, checked between disjunctions.

    Returns
    -------
    islpy.Set
        One point per legal ordering.

    Raises
    ------
    MethodError
        For an unknown encoding, too many tasks, or once ``deadline`` has passed.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 2)], n_processors=1)
    >>> isl_set(p).count_val().to_python(), isl_set(p, "kong").count_val().to_python()
    (3, 3)
    """
    problem = require_problem(problem, "isl_set")
    import islpy as isl  # slow to import (0.1 s): only when asked

    _isl_parts(problem, encoding)
    tup, conj, disj = _isl_constraints(problem, encoding)
    ctx = isl.Context()
    if not problem.n_tasks:
        return isl.Set("{ [] }", context=ctx)
    space = "{ [" + tup + "] : "
    result = isl.Set(space + " and ".join(conj) + " }", context=ctx)
    for k, d in enumerate(disj):
        if deadline is not None and time.monotonic() > deadline:
            raise MethodError(
                f"orderings: building the isl set took more than the time limit "
                f"({k} of {len(disj)} disjunctions intersected)"
            )
        result = result.intersect(isl.Set(space + d + " }", context=ctx))
        # Kong's disjuncts overlap and pile up: coalesce now and then. The position
        # encoding's pieces stay disjoint and few; coalescing them only costs time.
        if encoding == "kong" and k % 8 == 7:
            result = result.coalesce()
    return result.coalesce() if encoding == "kong" else result


def isl_count(space: Any, encoding: str = "position") -> int:
    """Number of points of an isl ordering space from :func:`isl_set`.

    The position encoding's basic sets are disjoint by construction (each
    disjunction splits a piece into two disjoint halves), so their counts add
    up, which is much faster than ``count_val`` on the union (that one first
    makes the pieces disjoint). Kong's encoding goes through ``count_val``.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 2)], n_processors=1)
    >>> isl_count(isl_set(p)), isl_count(isl_set(p, "kong"), "kong")
    (3, 3)
    """
    import islpy as isl

    if encoding == "kong":
        return int(space.count_val().to_python())
    return sum(
        int(isl.Set.from_basic_set(b).count_val().to_python()) for b in space.get_basic_sets()
    )


def isl_orderings(space: Any, encoding: str = "position") -> np.ndarray:
    """The points of an isl ordering space as orderings (task-index rows), sorted.

    Parameters
    ----------
    space : islpy.Set
        From :func:`isl_set`.
    encoding : {"position", "kong"}
        The encoding of ``space``.

    Returns
    -------
    numpy.ndarray
        ``(count, n)`` ``int16``, in lexicographic order.

    Examples
    --------
    >>> p = Problem.from_lists([1, 1, 1], [(0, 2)], n_processors=1)
    >>> isl_orderings(isl_set(p)).tolist()
    [[0, 1, 2], [0, 2, 1], [1, 0, 2]]
    """
    import islpy as isl

    n = space.get_space().dim(isl.dim_type.set)
    points: list[list[int]] = []

    def visit(point: Any) -> None:
        points.append(
            [point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n)]
        )

    if encoding == "position":
        for piece in space.get_basic_sets():  # disjoint pieces (see isl_count)
            isl.Set.from_basic_set(piece).foreach_point(visit)
    else:
        space.foreach_point(visit)
    values = np.array(points, dtype=np.int64).reshape(len(points), n)
    if encoding == "kong":
        rows = values - 1
    elif encoding == "position":
        # Position p_i = k means task i runs k-th: invert each permutation.
        rows = np.argsort(values, axis=1, kind="stable")
    else:
        raise MethodError(f"orderings: unknown encoding {encoding!r} (position or kong)")
    rows = rows.astype(np.int16)
    if len(rows):
        rows = rows[np.lexsort(rows.T[::-1])]
    return rows
