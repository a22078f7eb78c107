"""Simple nonrepetitive paths and cycles of undirected labelled graphs, in near-linear time
per path (Eppstein 2005, §2.2, Theorem 3).

A path is *simple* when no vertex repeats and *nonrepetitive* when no two consecutive edges
share a label. For directed graphs deciding it is NP-complete (Theorem 4,
:mod:`reductions.nonrepetitive.nrpath_gadget`); for undirected ones the paper's route is:

1. usp(G) (:mod:`reductions.nonrepetitive.usp`, Lemma 3): labels 0/1, n + 2K vertices, m + 3K edges
   (K ≤ 2m distinct (vertex, label) pairs);
2. ssg(usp(G)) (:mod:`reductions.nonrepetitive.ssg`, Lemma 4): a skew-symmetric graph of 2(n + 2K) +
   2 vertices and 2(m + 3K) + 4 arcs (:func:`simple_path_size`);
3. a regular path s → σ(s) (:mod:`reductions.nonrepetitive.skew_symmetric`), in O((n + m) α(m, n));
4. its decoding back through both lemmas: a simple nonrepetitive path of G.

**One skew-symmetric graph, not four.** Lemma 4 builds one graph per choice of first and
last labels. Between two centres of usp(G) a path can always be taken to start and end with
label 1 (Lemma 3, :mod:`reductions.nonrepetitive.usp`), so the (1, 1) graph alone decides it.
:func:`binary_simple_path` is Lemma 4 as stated — all four graphs, straight on a graph
labelled 0/1 without usp(G) — an independent route the tests compare with this one.

**Cycles.** An edge e = {u, v} labelled x lies on a simple nonrepetitive cycle iff, once e and
every other edge labelled x at u or at v are removed (they cannot follow or precede e on a
cycle through e), a simple nonrepetitive path v → u remains (:func:`simple_cycle`): the cycle
is e followed by that path, whose first and last labels differ from x by construction. A
self-loop is on no such cycle (it would follow itself). All edges: one such test per edge,
O(m² α(m, n)) in all (:func:`simple_cyclic_edges`; the paper's O(m²) assumes a linear-time
search); two shortcuts keep the number of tests down, both exact: an edge that is on no
nonrepetitive cycle at all (Theorem 1, linear time through nr(G)) is on no simple one, and
every edge of a cycle found is cyclic without a test of its own.
(The paper's faster existence test for a single cycle is not implemented.)

Each function returns arcs of G (arc ``a < m`` is edge ``a`` from tail to head, ``m + a``
backwards; :mod:`reductions.nonrepetitive.labelled_graph`) and does not check them: callers check
with :func:`reductions.nonrepetitive.nr_graph.simple_path_problems` /
:func:`~reductions.nonrepetitive.nr_graph.simple_cycle_problems` (the command line does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .labelled_graph import GraphError, LabelledGraph
from .nr_graph import cyclic_edges
from .skew_symmetric import regular_path
from .ssg import graph_path as ssg_graph_path, ssg_graph
from .usp import graph_path as usp_graph_path, usp_graph


def _check_undirected(graph: LabelledGraph) -> None:
    if graph.directed:
        raise GraphError("this polynomial algorithm is for undirected graphs; simple "
                         "nonrepetitive paths in digraphs are NP-complete (Theorem 4)")


def simple_path_size(graph: LabelledGraph) -> dict[str, int]:
    """Sizes of the graphs one path search builds: usp(G) and ssg(usp(G)), by the formulas
    (K counted with one numpy pass)."""
    num_labels = max(graph.num_labels, 1)
    keys = np.concatenate([graph.tails * num_labels + graph.labels,
                           graph.heads * num_labels + graph.labels])
    k = len(np.unique(keys))
    usp_vertices, usp_edges = graph.num_vertices + 2 * k, graph.num_edges + 3 * k
    return {"pairs": k, "usp_vertices": usp_vertices, "usp_edges": usp_edges,
            "ssg_vertices": 2 * usp_vertices + 2, "ssg_arcs": 2 * usp_edges + 4}


def simple_path(graph: LabelledGraph, p: int, q: int) -> list[int] | None:
    """A simple nonrepetitive path p → q (G's arcs), or None if there is none (Theorem 3).

    Parameters
    ----------
    graph : LabelledGraph
        Undirected; any labels, parallel edges and self-loops.
    p, q : int
        Vertices; p = q gives the empty path ``[]``.

    Returns
    -------
    list of int or None

    Examples
    --------
    >>> g = LabelledGraph.from_edges([("p", "a", 1), ("a", "q", 1), ("a", "b", 2),
    ...                               ("b", "q", 1)], directed=False)
    >>> [g.arc_names(a) for a in simple_path(g, 0, 2)]
    [('p', 'a', 1), ('a', 'b', 2), ('b', 'q', 1)]
    """
    _check_undirected(graph)
    if p == q:
        return []
    usp = usp_graph(graph)
    ssg = ssg_graph(usp.graph, usp.centre(p), usp.centre(q), first_label=1, last_label=1)
    found = regular_path(ssg.graph, ssg.source)
    if found is None:
        return None
    return usp_graph_path(usp, ssg_graph_path(ssg, found))


def binary_simple_path(graph: LabelledGraph, p: int, q: int) -> list[int] | None:
    """The same for a graph labelled 0/1, by Lemma 4 alone: the four skew-symmetric graphs of
    the (first, last) label choices, no usp(G). A cross-check of :func:`simple_path`."""
    _check_undirected(graph)
    if p == q:
        return []
    for first in (0, 1):
        for last in (0, 1):
            ssg = ssg_graph(graph, p, q, first_label=first, last_label=last)
            found = regular_path(ssg.graph, ssg.source)
            if found is not None:
                return ssg_graph_path(ssg, found)
    return None


def _without(graph: LabelledGraph, removed: np.ndarray) -> tuple[LabelledGraph, np.ndarray]:
    """G minus the edges of the mask ``removed``, and the kept edges' numbers in G."""
    kept = np.flatnonzero(~removed)
    return LabelledGraph(graph.num_vertices, graph.tails[kept], graph.heads[kept],
                         graph.labels[kept], directed=False), kept


def simple_cycle(graph: LabelledGraph, arc: int) -> list[int] | None:
    """A simple nonrepetitive cycle that starts with ``arc`` (G's arcs), or None.

    The module docstring says why: remove the edges labelled like ``arc`` at its two ends and
    look for a simple nonrepetitive path back from its head to its tail."""
    _check_undirected(graph)
    arcs = graph.arcs()
    if not 0 <= arc < len(arcs):
        raise GraphError(f"no arc {arc} in the graph")
    u, v, x = int(arcs.tails[arc]), int(arcs.heads[arc]), int(arcs.labels[arc])
    if u == v:
        return None
    at_ends = np.isin(graph.tails, (u, v)) | np.isin(graph.heads, (u, v))
    rest, kept = _without(graph, at_ends & (graph.labels == x))
    back = simple_path(rest, v, u)
    if back is None:
        return None
    m, m_rest = graph.num_edges, rest.num_edges
    back_arcs = np.asarray(back, dtype=np.int64)
    edges = kept[np.where(back_arcs < m_rest, back_arcs, back_arcs - m_rest)]
    return [arc] + np.where(back_arcs < m_rest, edges, m + edges).tolist()


@dataclass(frozen=True)
class CyclicEdges:
    """Which edges lie on simple nonrepetitive cycles, each with a witness.

    ``mask[e]``: edge e lies on one; ``witness[e]``: the index in ``cycles`` of a cycle
    through it (−1 when it lies on none); ``cycles``: the cycles found (G's arcs);
    ``searches``: how many path searches were run (the rest were settled by Theorem 1 or by
    an earlier cycle)."""

    mask: np.ndarray
    witness: np.ndarray
    cycles: list[list[int]]
    searches: int


def simple_cyclic_edges(graph: LabelledGraph, *,
                        find_cycle: Callable[[LabelledGraph, int], list[int] | None] | None
                        = None) -> CyclicEdges:
    """Every edge on a simple nonrepetitive cycle: one cycle test per edge, O(m² α(m, n)) in all
    for undirected graphs (module docstring), with Theorem 1 and the cycles found as shortcuts.

    Parameters
    ----------
    graph : LabelledGraph
    find_cycle : callable, optional
        ``find_cycle(graph, arc)`` → a simple nonrepetitive cycle starting with ``arc`` or
        None; default :func:`simple_cycle` (undirected graphs). A directed graph needs one
        (e.g. the SAT model of :mod:`solvers.gadgets.nrpath`: the problem is NP-complete there).

    Examples
    --------
    >>> g = LabelledGraph.from_edges([("a", "b", 0), ("b", "c", 1), ("c", "a", 2),
    ...                               ("c", "d", 0)], directed=False)
    >>> simple_cyclic_edges(g).mask.tolist()
    [True, True, True, False]
    """
    if find_cycle is None:
        _check_undirected(graph)
        find_cycle = simple_cycle
    m = graph.num_edges
    candidate = cyclic_edges(graph)            # Theorem 1: necessary, linear time
    witness = np.full(m, -1, dtype=np.int64)
    cycles: list[list[int]] = []
    searches = 0
    for e in np.flatnonzero(candidate).tolist():
        if witness[e] >= 0:
            continue
        searches += 1
        cycle = find_cycle(graph, e)           # arc e walks edge e
        if cycle is not None:
            edges = np.asarray(cycle, dtype=np.int64) % m
            witness[edges[witness[edges] < 0]] = len(cycles)
            cycles.append(cycle)
    return CyclicEdges(witness >= 0, witness, cycles, searches)


__all__ = ["simple_path", "binary_simple_path", "simple_cycle", "simple_cyclic_edges",
           "simple_path_size", "CyclicEdges"]
