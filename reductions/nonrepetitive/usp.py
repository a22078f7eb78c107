"""usp(G): any edge labels → two labels, keeping simple nonrepetitive paths (Eppstein 2005, §2.2,
Lemma 3 and Figure 2).

**What it builds.** G is an undirected edge-labelled multigraph. Every vertex v whose incident
edges carry k distinct labels becomes a gadget of 2k + 1 vertices: the *centre* v and, per
label i at v, the vertices (v, i, 0) and (v, i, 1). Edges, all labelled 0 or 1:

* each edge {v, w} of G labelled i: (v, i, 0) — (w, i, 0), label 0;
* per (v, i): v — (v, i, 0) label 1, v — (v, i, 1) label 0, (v, i, 0) — (v, i, 1) label 1.

**Size** (:func:`usp_size`; K = number of distinct (vertex, label) pairs at edge ends)::

    vertices = n + 2K,   edges = m + 3K          (K ≤ 2m, so both O(n + m))

**Numbering.** The pairs (v, i), sorted by (v, i), are numbered j = 0..K−1. Each gadget is
one block of consecutive vertices — the centre of v is v + 2·(pairs of the vertices before v)
(:meth:`UspGraph.centre`), and pair j of vertex v has (v, i, 0) = v + 1 + 2j and
(v, i, 1) = v + 2 + 2j — because most of a search's steps stay inside a gadget, and on big
graphs memory locality is time (30 % of the search at 10⁶ edges). Edge e < m of usp(G) is
edge e of G (same orientation, so usp arc e / arc m' + e walk G's arc e / m + e,
m' = m + 3K); pair j's three gadget edges are m + 3j (v — (v,i,0)), m + 3j + 1
(v — (v,i,1)), m + 3j + 2 ((v,i,0) — (v,i,1)). Building is a handful of numpy operations (the
pairs are grouped as in nr(G), :func:`reductions.nonrepetitive.nr_graph.group_pairs`).

**Why it is correct** (the paper's proof, with the details). A path of usp(G) can only get
from one (v, ·, ·) group to another through the centre v, and arriving at (v, i, 0) along an
edge of G (label 0) it must go on with label 1: to v, or to (v, i, 1) and then (label 0) to v.
From v it leaves, with the other label, towards some (v, j, 0) — directly (label 1) or by
(v, j, 1) (label 0, then 1) — and then along an edge of G labelled j. Had j = i, the walk
would come back to (v, i, 0) or (v, i, 1): not simple. So the edges of G that a simple
nonrepetitive path of usp(G) uses, in order, form a nonrepetitive walk of G passing each centre
once, a simple nonrepetitive path (:func:`graph_path`). Conversely, a simple nonrepetitive path
p = v_0, …, v_k = q of G maps to (:func:`usp_path`)

    p, (p, i_1, 0), (v_1, i_1, 0), v_1, (v_1, i_2, 1), (v_1, i_2, 0), (v_2, i_2, 0), v_2, …, q

whose labels run 1, 0, 1, 0, 1, 0, …, 0, 1. Every simple nonrepetitive path between two
centres can be taken to start and end with label 1: one starting v →0 (v, i, 1) →1 (v, i, 0)
shortens to v →1 (v, i, 0), and likewise at its end —
:mod:`reductions.nonrepetitive.simple_nonrepetitive` uses this to need one of Lemma 4's
skew-symmetric graphs instead of four.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .labelled_graph import GraphError, LabelledGraph
from .nr_graph import group_pairs


@dataclass(frozen=True, eq=False)
class UspGraph:
    """usp(G) and what is needed to map paths between G and it (see the module docstring)."""

    graph: LabelledGraph          # usp(G): undirected, labels 0 and 1
    num_graph_vertices: int       # n
    num_graph_edges: int          # m: edge e < m of usp(G) is edge e of G
    num_labels: int               # pair keys are vertex * num_labels + label
    pair_keys: np.ndarray         # sorted keys of the K pairs (v, i)
    centres: np.ndarray           # centres[v]: the centre of v's gadget

    @property
    def num_pairs(self) -> int:
        return len(self.pair_keys)

    def centre(self, vertex: int) -> int:
        """The vertex of usp(G) that stands for ``vertex`` of G."""
        return int(self.centres[vertex])

    def pair(self, vertex: int, label: int) -> int:
        """The number j of the pair (vertex, label); GraphError if no edge at vertex has it."""
        key = vertex * self.num_labels + label
        j = int(np.searchsorted(self.pair_keys, key))
        if 0 <= label < self.num_labels and j < len(self.pair_keys) and \
                int(self.pair_keys[j]) == key:
            return j
        raise GraphError(f"no edge labelled {label} at vertex {vertex}")

    def low(self, pair: int) -> int:
        """The vertex (v, i, 0) of pair j = (v, i)."""
        return int(self.pair_keys[pair]) // self.num_labels + 1 + 2 * pair

    def high(self, pair: int) -> int:
        """The vertex (v, i, 1) of pair j = (v, i)."""
        return self.low(pair) + 1


def usp_size(graph: LabelledGraph) -> tuple[int, int]:
    """(vertices, edges) of usp(G) by the formula n + 2K, m + 3K, counting the pairs K in
    plain Python (independently of the builder)."""
    pairs = set()
    for t, h, x in zip(graph.tails.tolist(), graph.heads.tolist(), graph.labels.tolist()):
        pairs.add((t, x))
        pairs.add((h, x))
    return graph.num_vertices + 2 * len(pairs), graph.num_edges + 3 * len(pairs)


def usp_graph(graph: LabelledGraph) -> UspGraph:
    """Build usp(G) of an undirected labelled graph (Lemma 3); linear time and memory.

    Parameters
    ----------
    graph : LabelledGraph
        Undirected; any labels, parallel edges and self-loops allowed (a self-loop of G
        becomes one of usp(G), on no simple path either way).

    Returns
    -------
    UspGraph

    Examples
    --------
    >>> g = LabelledGraph.from_edges([("a", "b", "x"), ("b", "c", "y")], directed=False)
    >>> u = usp_graph(g)
    >>> (u.graph.num_vertices, u.graph.num_edges) == usp_size(g) == (3 + 2 * 4, 2 + 3 * 4)
    True
    """
    if graph.directed:
        raise GraphError("usp(G) is defined here for undirected graphs (Lemma 3)")
    n, m = graph.num_vertices, graph.num_edges
    num_labels = max(graph.num_labels, 1)
    keys = np.concatenate([graph.tails * num_labels + graph.labels,
                           graph.heads * num_labels + graph.labels])
    pair_keys, pair_of_end = group_pairs(keys, n * num_labels)
    k = len(pair_keys)
    vertex_of_pair = pair_keys // num_labels
    # Pairs are sorted by vertex: vertex v's gadget starts after those of 0..v−1.
    centres = np.arange(n, dtype=np.int64) + 2 * np.searchsorted(vertex_of_pair, np.arange(n))
    low = vertex_of_pair + 1 + 2 * np.arange(k, dtype=np.int64)
    centre = centres[vertex_of_pair]
    gadget_tails = np.stack([centre, centre, low], axis=1).reshape(-1)
    gadget_heads = np.stack([low, low + 1, low + 1], axis=1).reshape(-1)
    gadget_labels = np.tile(np.array([1, 0, 1], dtype=np.int64), k)
    usp = LabelledGraph(n + 2 * k,
                        np.concatenate([low[pair_of_end[:m]], gadget_tails]),
                        np.concatenate([low[pair_of_end[m:]], gadget_heads]),
                        np.concatenate([np.zeros(m, dtype=np.int64), gadget_labels]),
                        directed=False, label_names=(0, 1))
    return UspGraph(usp, n, m, num_labels, pair_keys, centres)


def usp_path(usp: UspGraph, graph: LabelledGraph, arcs: Sequence[int]) -> list[int]:
    """Forward map: a simple nonrepetitive path of G (its arcs) → the path of usp(G) between
    the centres of its ends that the module docstring describes (labels 1, 0, 1, …, 0, 1).

    The arcs are not checked here (map a valid path; the tests check the image)."""
    sequence = np.asarray([int(a) for a in arcs], dtype=np.int64)
    if not len(sequence):
        return []
    g_arcs = graph.arcs()
    m, m_usp = usp.num_graph_edges, usp.graph.num_edges
    keys_in = g_arcs.heads[sequence] * usp.num_labels + g_arcs.labels[sequence]
    keys_out = g_arcs.tails[sequence] * usp.num_labels + g_arcs.labels[sequence]
    pair_in = np.searchsorted(usp.pair_keys, keys_in)     # (head, label) of every arc
    pair_out = np.searchsorted(usp.pair_keys, keys_out)   # (tail, label) of every arc
    edge = g_arcs.edge[sequence]
    along = np.where(sequence < m, edge, m_usp + edge)    # the arc's own edge in usp(G)
    # Through each inner vertex: (v,i,0) → v → (v,j,1) → (v,j,0), against, along, against
    # the stored orientation of the gadget edges m+3j, m+3j+1, m+3j+2.
    into_centre = m_usp + m + 3 * pair_in[:-1]
    to_high = m + 3 * pair_out[1:] + 1
    high_to_low = m_usp + m + 3 * pair_out[1:] + 2
    middle = np.stack([along[:-1], into_centre, to_high, high_to_low], axis=1).reshape(-1)
    first = m + 3 * pair_out[0]                           # p → (p, i_1, 0)
    last = m_usp + m + 3 * pair_in[-1]                    # (q, i_k, 0) → q
    return [int(first)] + middle.tolist() + [int(along[-1]), int(last)]


def graph_path(usp: UspGraph, usp_arcs: Sequence[int]) -> list[int]:
    """Backward map: a simple nonrepetitive path of usp(G) between two centres → the path of
    G made of the edges of G it uses, in order (arc numbers of G)."""
    sequence = np.asarray([int(a) for a in usp_arcs], dtype=np.int64)
    m, m_usp = usp.num_graph_edges, usp.graph.num_edges
    forward = sequence < m_usp
    edge = np.where(forward, sequence, sequence - m_usp)
    keep = edge < m
    return np.where(forward[keep], edge[keep], m + edge[keep]).tolist()


__all__ = ["UspGraph", "usp_graph", "usp_size", "usp_path", "graph_path"]
