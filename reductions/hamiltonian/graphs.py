"""General graph helpers on numpy arrays: pair keys, cycle steps, cycle and component labels,
list ranking, and THE check of a proposed Hamiltonian cycle.

Graphs are ``num_vertices`` and an ``(m, 2)`` int64 array of pairs: arcs ``(tail, head)`` of a
digraph, or edges ``(u, v)`` of an undirected graph (vertices ``0 .. num_vertices - 1``). Each
helper is one idea, vectorised, with no Python loop over vertices or pairs; every reduction and
solver that needs the idea uses the helper here rather than its own copy.

* :func:`pair_keys` — one integer per pair (``u * n + v``; undirected as ``min * n + max``),
  so that "is this pair in the graph" is a sort and a binary search (the solvers number their
  variables in this order).
* :func:`cycle_steps` — the consecutive pairs of a closed vertex order.
* :func:`non_edge_steps` — which steps of a closed order are not pairs of the graph (the cost
  of a tour in the HCP-as-TSP reading: :func:`count_non_edges`).
* :func:`hamiltonian_cycle_problem` — what is wrong with a proposed Hamiltonian cycle (or
  None): every reduction's way back and every solver's answer is checked with it.
* :func:`cycle_labels` / :func:`component_labels` / :func:`label_roots` — the cycles of a
  permutation and the components of a graph, each vertex labelled by the smallest vertex of its
  own, by pointer doubling and by scipy's compiled search.
* :func:`list_ranking` — pointer jumping to the end of each list (paths of forced pairs).

Only numpy is imported at module level (the command line loads this module at start-up through
:mod:`reductions.hamiltonian.hcp`); :func:`component_labels` imports scipy when first called.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pair_keys", "cycle_steps", "non_edge_steps", "count_non_edges",
           "hamiltonian_cycle_problem", "is_hamiltonian_cycle", "cycle_labels",
           "component_labels", "label_roots", "list_ranking"]


def pair_keys(num_vertices: int, pairs: np.ndarray, directed: bool) -> np.ndarray:
    """One int64 per row of ``pairs``: ``u * n + v`` for an arc u→v, ``min * n + max`` for an
    edge (so both orientations of an edge get the same key). Distinct pairs get distinct keys,
    and the keys of normalised pairs (sorted, edges as ``u < v``) come sorted."""
    if directed:
        return pairs[:, 0] * num_vertices + pairs[:, 1]
    lo, hi = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
    return lo * num_vertices + hi


def cycle_steps(cycle: np.ndarray) -> np.ndarray:
    """The consecutive pairs ``(u, next u)`` of a closed vertex order, the last back to the
    first."""
    return np.stack([cycle, np.roll(cycle, -1)], axis=1)


def _sorted_keys(num_vertices: int, pairs, directed: bool) -> np.ndarray:
    """:func:`pair_keys` of ``pairs``, sorted (the builders' pairs usually come sorted, so
    they are only checked; otherwise a stable sort, which merges their sorted runs)."""
    keys = pair_keys(num_vertices, np.asarray(pairs, dtype=np.int64).reshape(-1, 2), directed)
    if np.any(keys[1:] < keys[:-1]):
        keys = np.sort(keys, kind="stable")
    return keys


def _absent(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Positions in ``wanted`` of the keys not in the sorted array ``keys``."""
    if keys.size == 0:
        return np.arange(wanted.size)
    pos = np.searchsorted(keys, wanted).clip(max=keys.size - 1)
    return np.flatnonzero(keys[pos] != wanted)


def non_edge_steps(num_vertices: int, pairs, order, directed: bool = False) -> np.ndarray:
    """Positions p of the closed vertex order ``order`` whose step ``order[p] → order[p + 1]``
    (the last back to the first) is not an arc (``directed``) or edge of the graph."""
    order = np.asarray(order, dtype=np.int64)
    keys = _sorted_keys(num_vertices, pairs, directed)
    return _absent(keys, pair_keys(num_vertices, cycle_steps(order), directed))


def count_non_edges(num_vertices: int, edges, order, directed: bool = False) -> int:
    """How many consecutive pairs of the closed tour ``order`` are not edges (arcs, if
    ``directed``) of the graph: its cost in the HCP-as-TSP reading (0 = a Hamiltonian
    cycle, when ``order`` visits every vertex once)."""
    return int(non_edge_steps(num_vertices, edges, order, directed).size)


def hamiltonian_cycle_problem(num_vertices: int, edges: np.ndarray, cycle,
                              directed: bool = True, describe=str, *,
                              required=None) -> str | None:
    """Why ``cycle`` is not a Hamiltonian cycle of the graph, or None when it is one.

    ``cycle`` lists the vertices in cycle order (any start); for undirected graphs either
    direction. Checked in this order, the first failure named: the number of vertices, that
    they are vertex numbers in range, each vertex once, every step an arc (edge) of the graph,
    and, when given, every ``required`` pair (an ``(r, 2)`` array of vertices of the graph) a
    step of the cycle. ``describe(vertex)`` names vertices in the message.

    Vectorised and linear: once the cycle is known to be a permutation, its successor array
    says for every pair of the graph whether it is a step (:func:`_unwalked`), with no sort
    or search, so the pairs may come in any order."""
    cycle = np.asarray(cycle)
    if cycle.ndim != 1 or cycle.size != num_vertices:
        return f"the cycle has {cycle.size} vertices, the graph {num_vertices}"
    if not np.issubdtype(cycle.dtype, np.integer):
        return "the cycle is not a list of vertex numbers"
    if cycle.size and (cycle.min() < 0 or cycle.max() >= num_vertices):
        bad = np.flatnonzero((cycle < 0) | (cycle >= num_vertices))
        return f"position {bad[0] + 1}: {cycle[bad[0]]} is not a vertex (0..{num_vertices - 1})"
    seen = np.bincount(cycle, minlength=num_vertices)
    if seen.size and seen.max() > 1:         # n entries, each at most once: a permutation
        v = int(np.flatnonzero(seen > 1)[0])
        where = np.flatnonzero(cycle == v)[:2] + 1
        return f"vertex {describe(v)} appears twice (positions {where[0]} and {where[1]})"
    kind = "arc" if directed else "edge"
    successor = np.empty(num_vertices, dtype=np.int64)
    successor[cycle] = np.roll(cycle, -1)
    missing = _unwalked(successor, edges, directed)[cycle]
    if missing.any():
        p = int(np.argmax(missing))
        u, v = int(cycle[p]), int(successor[cycle[p]])
        return (f"positions {p + 1}→{(p + 1) % num_vertices + 1}: {describe(u)} → "
                f"{describe(v)} is not an {kind} of the graph")
    if required is not None and len(required):
        required = np.asarray(required, dtype=np.int64).reshape(-1, 2)
        a, b = required[:, 0], required[:, 1]
        used = successor[a] == b
        if not directed:
            used |= successor[b] == a
        if not used.all():
            u, v = (int(x) for x in required[np.argmin(used)])
            return f"the cycle does not use the required {kind} {describe(u)} → {describe(v)}"
    return None


def _unwalked(successor: np.ndarray, pairs, directed: bool) -> np.ndarray:
    """For the successor array of a Hamiltonian order: which vertices' step out
    (``u → successor[u]``) is no pair of the graph. Each pair is looked at once (is it the
    step out of its tail, or undirected of its head?): linear, no sort, so the pairs may
    come in any order, repeated."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if pairs.size and (pairs.min() < 0 or pairs.max() >= successor.size):
        pairs = pairs[((pairs >= 0) & (pairs < successor.size)).all(axis=1)]  # no such pair
    u, v = pairs[:, 0], pairs[:, 1]
    unwalked = np.ones(successor.size, dtype=bool)
    unwalked[u[successor[u] == v]] = False
    if not directed:
        unwalked[v[successor[v] == u]] = False
    return unwalked


def is_hamiltonian_cycle(num_vertices: int, arcs: np.ndarray, cycle,
                         directed: bool = True) -> bool:
    """True when ``cycle`` visits every vertex once along arcs (edges) of the graph."""
    return hamiltonian_cycle_problem(num_vertices, arcs, cycle, directed) is None


def cycle_labels(successor: np.ndarray) -> np.ndarray:
    """For a permutation, each vertex's smallest cycle-mate (pointer doubling: after round
    r every label is the minimum over 2^r successive vertices)."""
    label = np.arange(successor.size, dtype=np.int64)
    jump = successor.astype(np.int64)
    span = 1
    while span < successor.size:
        label = np.minimum(label, label[jump])
        jump = jump[jump]
        span *= 2
    return label


def component_labels(num_vertices: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Connected components of the graph with edges ``u[i]–v[i]``: each vertex gets the
    smallest vertex id of its component.

    scipy's compiled search numbers components in order of their smallest vertex, so that
    vertex is where each number first occurs."""
    from scipy import sparse              # not at start-up (see the module's docstring)
    from scipy.sparse import csgraph
    adjacency = sparse.coo_matrix((np.ones(len(u), dtype=np.int8), (u, v)),
                                  shape=(num_vertices, num_vertices)).tocsr()
    _, number = csgraph.connected_components(adjacency, directed=False)
    smallest = np.empty(int(number.max(initial=-1)) + 1, dtype=np.int64)
    smallest[number[::-1]] = np.arange(num_vertices - 1, -1, -1, dtype=np.int64)
    return smallest[number]


def label_roots(label: np.ndarray) -> np.ndarray:
    """The distinct labels of :func:`cycle_labels` / :func:`component_labels` (each vertex
    labelled by the smallest vertex of its cycle), ascending: the vertices that are their
    own label (no sort)."""
    return np.flatnonzero(label == np.arange(label.size))


def list_ranking(succ: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Pointer jumping: ``succ`` (a terminal points to itself) and ``dist`` (weight to the
    successor's head) → (last element reached, total weight to it, converged). Elements on
    a cycle never reach a terminal: then converged is False."""
    for _ in range(int(np.ceil(np.log2(max(succ.size, 2)))) + 2):
        jumped = succ[succ]
        if np.array_equal(jumped, succ):
            return succ, dist, True
        dist = dist + dist[succ]
        succ = jumped
    return succ, dist, False
