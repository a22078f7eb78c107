"""A graph given to the solvers, checked and normalised, and the reasons for "no cycle" that
its degrees alone show (before any model is built).

Pairs are checked to be an ``(m, 2)`` array of vertices in range (:class:`GraphInputError`
otherwise); :func:`normalized_graph` keeps each arc (edge, as ``u < v``) once, loops dropped,
sorted by :func:`~reductions.hamiltonian.graphs.pair_keys` — the order every model numbers its
variables in (pair e is variable e + 1)."""

from __future__ import annotations

import numpy as np

from reductions.hamiltonian.graphs import pair_keys

from .results import GraphInputError

__all__ = ["normalized_graph"]


def _as_pairs(num_vertices: int, pairs, what: str) -> np.ndarray:
    pairs = np.asarray(pairs if pairs is not None else np.zeros((0, 2)), dtype=np.int64)
    if pairs.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise GraphInputError(f"{what} must be an (m, 2) array, got shape {pairs.shape}")
    if 0 <= pairs.min() and pairs.max() < num_vertices:
        return pairs                         # the usual case: two reductions, no row scan
    bad = np.flatnonzero(((pairs < 0) | (pairs >= num_vertices)).any(axis=1))
    if bad.size:
        u, v = pairs[bad[0]]
        raise GraphInputError(f"{what} row {bad[0]}: ({u}, {v}) has a vertex outside "
                              f"0..{num_vertices - 1}")
    return pairs


def normalized_graph(num_vertices: int, pairs, directed: bool) -> np.ndarray:
    """The distinct arcs (edges, as ``u < v``) of the graph, loops dropped, sorted."""
    if num_vertices < 1:
        raise GraphInputError(f"a graph needs at least one vertex, got {num_vertices}")
    pairs = _as_pairs(num_vertices, pairs, "arcs" if directed else "edges")
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    keys = pair_keys(num_vertices, pairs, directed)
    if keys.size and np.all(keys[1:] > keys[:-1]) and (directed
                                                       or np.all(pairs[:, 0] < pairs[:, 1])):
        return pairs                   # already normalised (the builders' usual output)
    keys = np.unique(keys)
    return np.stack(np.divmod(keys, num_vertices), axis=1).astype(np.int64)


def _required_indices(num_vertices: int, pairs: np.ndarray, required, directed: bool
                      ) -> np.ndarray | str:
    """Indices into ``pairs`` of the required arcs/edges; a reason string if one is absent."""
    required = _as_pairs(num_vertices, required, "required")
    if required.size == 0:
        return np.zeros(0, dtype=np.int64)
    keys = pair_keys(num_vertices, pairs, directed)
    wanted = pair_keys(num_vertices, required, directed)
    pos = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
    missing = np.flatnonzero(keys[pos] != wanted) if len(keys) else np.arange(len(wanted))
    if missing.size:
        u, v = required[missing[0]]
        return f"the required {'arc' if directed else 'edge'} ({u}, {v}) is not in the graph"
    return np.unique(pos)


def _degree_problem(num_vertices: int, pairs: np.ndarray, directed: bool) -> str | None:
    """A reason no Hamiltonian cycle can exist that degrees alone show, or None."""
    if directed:
        out_deg = np.bincount(pairs[:, 0], minlength=num_vertices)
        in_deg = np.bincount(pairs[:, 1], minlength=num_vertices)
        for name, deg in (("out", out_deg), ("in", in_deg)):
            zero = np.flatnonzero(deg == 0)
            if zero.size:
                return f"vertex {zero[0]} has no arc {name}"
        return None
    deg = np.bincount(pairs.ravel(), minlength=num_vertices)
    low = np.flatnonzero(deg < 2)
    if low.size:
        return f"vertex {low[0]} has degree {deg[low[0]]} (a cycle needs 2)"
    forced = pairs[(deg[pairs[:, 0]] == 2) | (deg[pairs[:, 1]] == 2)]
    fdeg = np.bincount(forced.ravel(), minlength=num_vertices)
    many = np.flatnonzero(fdeg > 2)
    if many.size:
        return (f"vertex {many[0]} has {fdeg[many[0]]} neighbours of degree 2 (a cycle "
                f"would need all those edges)")
    return None


def _simple_too_small(num_vertices: int, directed: bool) -> str | None:
    """Why an undirected simple graph this small has no Hamiltonian cycle (it would need a
    loop or two parallel edges), or None."""
    if not directed and num_vertices <= 2:
        return f"a simple graph on {num_vertices} vertices has no cycle"
    return None
