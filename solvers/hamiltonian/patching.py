"""Karp's patching: the cycles of a cycle cover (a 2-factor) merged by 2-exchanges that use
only graph pairs. A heuristic shortcut of the cut loop: with one cycle left the cover is a
Hamiltonian cycle; otherwise it only seeds the solver's phases."""

from __future__ import annotations

import numpy as np

from reductions.hamiltonian.graphs import component_labels, cycle_labels, label_roots, pair_keys

from .covers import _two_neighbours

__all__ = ["PATCH_SLICE", "patch_cover"]


PATCH_SLICE = 64
"""Moves :func:`patch_cover` tries between two vectorised filterings."""


def patch_cover(num_vertices: int, pairs: np.ndarray, chosen: np.ndarray, directed: bool,
                protected: np.ndarray | None = None, label: np.ndarray | None = None
                ) -> tuple[np.ndarray, int, int]:
    """Merge the cycles of a cycle cover by 2-exchanges (Karp's patching for the ATSP).

    ``chosen`` are the cover's arcs (every vertex one out, one in) or, undirected, its edges
    (two per vertex). An exchange removes two cover arcs a→b and c→d of different cycles and
    puts in the graph arcs a→d and c→b; undirected, it removes edges a–b and c–d and puts in
    a–c and b–d (either pairing closes one cycle). Each exchange turns two cycles into one.
    Candidates are found with numpy, then applied greedily while still valid (both removed
    pairs still in the cover, their cycles still different: union-find); pairs in
    ``protected`` (required ones, as keys from :func:`pair_keys`) are never removed.

    ``label``: the cover's cycle labels when the caller has them (:func:`cycle_labels`,
    :func:`~reductions.hamiltonian.graph_reduction.component_labels`), else computed here.

    Returns ``(chosen, cycles, merges)``: the patched cover, how many cycles it has, and how
    many exchanges were made. Only a heuristic: with one cycle left the cover is a
    Hamiltonian cycle of the graph (every pair put in is a graph pair), otherwise the caller
    goes on with cuts.
    """
    n = num_vertices
    keys = pair_keys(n, pairs, directed)
    if np.any(keys[1:] < keys[:-1]):               # normalised pairs come sorted
        keys = np.sort(keys, kind="stable")
    protected = np.zeros(0, dtype=np.int64) if protected is None else np.sort(protected)
    if directed:
        moves, nbr, label = _directed_moves(n, pairs, chosen, keys, protected, label)
    else:
        moves, nbr, label = _undirected_moves(n, pairs, chosen, keys, protected, label)
    roots = label_roots(label)
    changed, cycles, merges = _apply_moves(n, moves, nbr, label, roots, directed)
    nb = nbr.copy()
    if changed:
        nb[list(changed)] = list(changed.values())
    if directed:
        patched = np.stack([np.arange(n), nb[:, 0]], axis=1)
    else:
        patched = np.stack([np.repeat(np.arange(n), 2), nb.ravel()], axis=1)
        patched = patched[patched[:, 0] < patched[:, 1]]
    return patched, cycles, merges


def _has(sorted_keys: np.ndarray, n: int, u: np.ndarray, v: np.ndarray, directed: bool
         ) -> np.ndarray:
    """Which pairs (u[i], v[i]) are among the pairs with the sorted keys ``sorted_keys``."""
    if sorted_keys.size == 0:
        return np.zeros(np.shape(u), dtype=bool)
    wanted = pair_keys(n, np.stack([u, v], axis=1), directed)
    pos = np.searchsorted(sorted_keys, wanted).clip(max=sorted_keys.size - 1)
    return sorted_keys[pos] == wanted


def _directed_moves(n: int, pairs: np.ndarray, chosen: np.ndarray, keys: np.ndarray,
                    protected: np.ndarray, label: np.ndarray | None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exchanges of a directed cover: for each graph arc a→d between two cycles, take out
    a→b and c→d (b = succ a, c = pred d) and put in a→d and c→b when c→b is an arc. Returns
    the moves as rows (a, b, c, d), the ``(n, 1)`` successor table, and the cycle labels."""
    succ = np.empty(n, dtype=np.int64)
    succ[chosen[:, 0]] = chosen[:, 1]
    if label is None:
        label = cycle_labels(succ)
    pred = np.empty(n, dtype=np.int64)
    pred[succ] = np.arange(n)
    a, d = pairs[:, 0], pairs[:, 1]                 # put in a→d, then c→b
    keep = label[a] != label[d]
    a, d = a[keep], d[keep]
    b, c = succ[a], pred[d]
    ok = (_has(keys, n, c, b, True) & ~_has(protected, n, a, b, True)
          & ~_has(protected, n, c, d, True))
    return np.stack([a[ok], b[ok], c[ok], d[ok]], axis=1), succ[:, None], label


def _undirected_moves(n: int, pairs: np.ndarray, chosen: np.ndarray, keys: np.ndarray,
                      protected: np.ndarray, label: np.ndarray | None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exchanges of a 2-factor: for each graph edge a–c between two cycles and each choice
    of neighbours b of a and d of c, take out a–b and c–d and put in a–c and b–d when b–d
    is an edge. Returns the moves as rows (a, b, c, d), the ``(n, 2)`` neighbour table, and
    the cycle labels."""
    nbr = _two_neighbours(n, chosen)
    if label is None:
        label = component_labels(n, chosen[:, 0], chosen[:, 1])
    a, c = pairs[:, 0], pairs[:, 1]                 # put in a–c, then b–d
    if np.any(a > c):
        a, c = np.minimum(a, c), np.maximum(a, c)
    keep = label[a] != label[c]
    a, c = a[keep], c[keep]
    found = []
    for i in range(2):
        for j in range(2):
            b, d = nbr[a, i], nbr[c, j]
            ok = (_has(keys, n, b, d, False) & ~_has(protected, n, a, b, False)
                  & ~_has(protected, n, c, d, False))
            found.append(np.stack([a[ok], b[ok], c[ok], d[ok]], axis=1))
    return np.concatenate(found), nbr, label


def _apply_moves(n: int, moves: np.ndarray, nbr: np.ndarray, label: np.ndarray,
                 roots: np.ndarray, directed: bool
                 ) -> tuple[dict[int, list[int]], int, int]:
    """The moves applied greedily in order while still valid (both pairs taken out still in
    the cover, their cycles still different: union-find over the cycle labels ``roots``).
    Returns the neighbour rows changed, the number of cycles left, and of merges made."""
    parent = dict(zip(roots.tolist(), roots.tolist()))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    cycles, merges = len(roots), 0
    changed: dict[int, list[int]] = {}     # neighbour rows edited so far (the rest: nbr)

    def row(u: int) -> list[int]:
        got = changed.get(u)
        if got is None:
            got = changed[u] = nbr[u].tolist()
        return got

    # In slices: the first few moves usually leave one cycle. Before each slice, moves
    # between cycles already merged are dropped at once (most of them, after a few merges).
    chunk = np.concatenate([moves, label[moves[:, 0], None], label[moves[:, 2], None]],
                           axis=1)
    root_of = np.arange(n, dtype=np.int64)
    for first in range(0, len(moves), PATCH_SLICE):
        if cycles == 1:
            break
        part = chunk[first:first + PATCH_SLICE]
        if merges:
            root_of[roots] = [find(r) for r in roots.tolist()]
            part = part[root_of[part[:, 4]] != root_of[part[:, 5]]]
        for a_, b_, c_, d_, la, lc in part.tolist():
            if cycles == 1:
                break
            ra, rc = find(la), find(lc)
            if ra == rc or b_ not in row(a_) or d_ not in row(c_):
                continue
            if directed:
                row(a_)[0], row(c_)[0] = d_, b_
            else:
                for u, old, new in ((a_, b_, c_), (b_, a_, d_), (c_, d_, a_), (d_, c_, b_)):
                    r = row(u)
                    r[r.index(old)] = new
            parent[ra] = rc
            cycles -= 1
            merges += 1
    return changed, cycles, merges
