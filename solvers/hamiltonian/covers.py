"""Cycle covers as arrays: the vertex order of a cover that is one cycle, the two neighbours
of every vertex of a 2-factor, and the model positions of a set of pairs.

A directed cover is a successor array (every vertex one arc out, one in); an undirected one a
2-regular edge set."""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from reductions.hamiltonian.graphs import pair_keys

__all__: list[str] = []


def _cycle_order(successor: np.ndarray) -> np.ndarray:
    """The vertices of a one-cycle permutation in cycle order, from vertex 0."""
    n = successor.size
    order = np.empty(n, dtype=np.int64)
    succ = successor.tolist()
    v = 0
    for p in range(n):
        order[p] = v
        v = succ[v]
    return order


def _order_of(num_vertices: int, chosen: np.ndarray, directed: bool) -> np.ndarray:
    """Vertex order of a cover that is one cycle."""
    if directed:
        successor = np.empty(num_vertices, dtype=np.int64)
        successor[chosen[:, 0]] = chosen[:, 1]
        return _cycle_order(successor)
    return _undirected_order(num_vertices, chosen)


def _undirected_order(num_vertices: int, chosen: np.ndarray) -> np.ndarray:
    """The vertex order of a 2-regular connected edge set (one cycle), from vertex 0: a
    depth-first search from vertex 0 can only walk around the cycle (scipy, compiled)."""
    n = num_vertices
    adjacency = sparse.coo_matrix((np.ones(len(chosen), dtype=np.int8),
                                   (chosen[:, 0], chosen[:, 1])), shape=(n, n)).tocsr()
    order = csgraph.depth_first_order(adjacency, 0, directed=False,
                                      return_predecessors=False)
    return order.astype(np.int64)


def _two_neighbours(num_vertices: int, chosen: np.ndarray) -> np.ndarray:
    """``(n, 2)``: the two neighbours of every vertex of a 2-regular edge set, each row in
    the order its edges come in ``chosen`` read as (u, v) rows then as (v, u) rows (as a
    stable sort of both orientations by first end would give; without the sort)."""
    tails = np.concatenate([chosen[:, 0], chosen[:, 1]])
    heads = np.concatenate([chosen[:, 1], chosen[:, 0]])
    index = np.arange(tails.size, dtype=np.int64)
    first = np.empty(num_vertices, dtype=np.int64)
    first[tails[::-1]] = index[::-1]                    # the earliest row of each vertex
    is_first = first[tails] == index
    nbr = np.empty((num_vertices, 2), dtype=np.int64)
    nbr[tails[is_first], 0] = heads[is_first]
    nbr[tails[~is_first], 1] = heads[~is_first]
    return nbr


def _pair_index(num_vertices: int, pairs: np.ndarray, subset: np.ndarray,
                directed: bool) -> np.ndarray:
    """Positions in ``pairs`` (normalised, sorted by key) of the pairs in ``subset``."""
    return np.searchsorted(pair_keys(num_vertices, pairs, directed),
                           pair_keys(num_vertices, subset, directed))
