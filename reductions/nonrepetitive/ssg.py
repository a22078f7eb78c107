"""ssg(G): simple nonrepetitive paths of a graph labelled 0/1 → regular paths of a
skew-symmetric graph (Eppstein 2005, §2.2, Lemma 4 and Figure 3).

**What it builds.** G is undirected with edge labels 0 and 1, p ≠ q two of its vertices, and
a, b ∈ {0, 1} the wanted first and last labels of a path p → q. ssg(G) has the vertices
(v, 0) = 2v and (v, 1) = 2v + 1 for every vertex v of G, with σ((v, i)) = (v, 1 − i), and two
more, s = 2n and σ(s) = 2n + 1. (v, i) stands for "at v, having arrived by an edge labelled
i", so the next edge must be labelled 1 − i. Arcs, in mate pairs (arc 2k + 1 is the mate of
arc 2k, :class:`~reductions.nonrepetitive.skew_symmetric.SkewSymmetricGraph`):

* edge e = {v, w} labelled 0: (v, 1) → (w, 0) = arc 2e and its mate (w, 1) → (v, 0) = 2e + 1;
* edge e = {v, w} labelled 1: (v, 0) → (w, 1) = arc 2e and its mate (w, 0) → (v, 1) = 2e + 1;
* s → (p, 1 − a) = arc 2m and its mate (p, a) → σ(s) = 2m + 1;
* s → (q, 1 − b) = arc 2m + 2 and its mate (q, b) → σ(s) = 2m + 3.

Arc 2e walks edge e from its tail to its head, arc 2e + 1 from head to tail (G's arcs e and
m + e). **Size** (:func:`ssg_size`): 2n + 2 vertices and 2m + 4 arcs.

**The seed text's slip.** The paper's proof gives the rule "for each edge (v, w) labeled 0"
twice; the second must read *labeled 1*: a 1-edge joins (v, 0) to (w, 1). Read literally,
every 0-edge would give all four arcs and 1-edges none, and a path could take two 0-edges in
a row. (The statement also says "one of the two graphs" where it built four: one per choice
of (a, b); :func:`ssg_graph` builds the one asked for.)

**Why it is correct.** Along a path of ssg(G) the second coordinate alternates, so its arcs
are the edges of a nonrepetitive walk of G; a regular path s → σ(s) uses each vertex pair
{(v, 0), (v, 1)} once, so the walk is simple, and it runs from p to q starting with label a
and ending with label b (or, read along the mate arcs, from q to p starting with b and
ending with a: :func:`graph_path` turns it round). Conversely, a simple nonrepetitive path
p = v_0, …, v_k = q with labels l_1 = a, …, l_k = b maps to s → (v_0, 1 − a) → (v_1, l_1)
→ … → (v_k, l_k) → σ(s), regular because the v_i are distinct (:func:`ssg_path`). Hence
s and σ(s) are r-reachable (:func:`reductions.nonrepetitive.skew_symmetric.regular_path`) iff G has
such a path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .labelled_graph import GraphError, LabelledGraph
from .skew_symmetric import SkewSymmetricGraph


@dataclass(frozen=True, eq=False)
class SsgGraph:
    """ssg(G) for one choice of ends and of first and last labels."""

    graph: SkewSymmetricGraph
    num_graph_vertices: int       # n: (v, i) = 2v + i, s = 2n
    num_graph_edges: int          # m: arcs 2e, 2e + 1 walk edge e; s's arcs are 2m .. 2m+3
    p: int
    q: int
    first_label: int
    last_label: int

    @property
    def source(self) -> int:
        return 2 * self.num_graph_vertices


def ssg_size(graph: LabelledGraph) -> tuple[int, int]:
    """(vertices, arcs) of ssg(G): 2n + 2 and 2m + 4."""
    return 2 * graph.num_vertices + 2, 2 * graph.num_edges + 4


def _check_binary(graph: LabelledGraph, p: int, q: int, labels: Sequence[int]) -> None:
    if graph.directed:
        raise GraphError("ssg(G) is defined for undirected graphs (Lemma 4)")
    if graph.num_edges and (int(graph.labels.min()) < 0 or int(graph.labels.max()) > 1):
        raise GraphError("ssg(G) needs edge labels 0 and 1 (use usp(G) first, Lemma 3)")
    if not (0 <= p < graph.num_vertices and 0 <= q < graph.num_vertices):
        raise GraphError(f"p = {p} or q = {q} is not a vertex")
    if p == q:
        raise GraphError("ssg(G) needs two different ends p and q")
    if any(x not in (0, 1) for x in labels):
        raise GraphError(f"first and last labels must be 0 or 1, not {tuple(labels)}")


def ssg_graph(graph: LabelledGraph, p: int, q: int, *, first_label: int,
              last_label: int) -> SsgGraph:
    """Build ssg(G) for paths p → q whose first edge is labelled ``first_label`` and last edge
    ``last_label`` (Lemma 4); linear time.

    Parameters
    ----------
    graph : LabelledGraph
        Undirected, labels 0 and 1 (label numbers, whatever their names).
    p, q : int
        Different vertices.
    first_label, last_label : int
        0 or 1.

    Returns
    -------
    SsgGraph

    Examples
    --------
    >>> g = LabelledGraph(3, [0, 1], [1, 2], [0, 1], directed=False)
    >>> ssg = ssg_graph(g, 0, 2, first_label=0, last_label=1)
    >>> (ssg.graph.num_vertices, ssg.graph.num_arcs) == ssg_size(g) == (8, 8)
    True
    """
    _check_binary(graph, p, q, (first_label, last_label))
    n = graph.num_vertices
    label = graph.labels
    # Edge labelled j walks from (tail, 1 − j) to (head, j); the mates walk it backwards.
    tails = np.concatenate([2 * graph.tails + 1 - label,
                            [2 * n, 2 * n]])
    heads = np.concatenate([2 * graph.heads + label,
                            [2 * p + 1 - first_label, 2 * q + 1 - last_label]])
    skew = SkewSymmetricGraph.from_arcs(2 * n + 2, tails, heads)
    return SsgGraph(skew, n, graph.num_edges, p, q, first_label, last_label)


def ssg_path(ssg: SsgGraph, graph: LabelledGraph, arcs: Sequence[int]) -> list[int]:
    """Forward map: a simple nonrepetitive path p → q of G (arc numbers, first label a, last
    label b as ``ssg`` was built for) → the regular path s → σ(s) of ssg(G) (arc numbers)."""
    m = ssg.num_graph_edges
    inner = [2 * a if a < m else 2 * (a - m) + 1 for a in (int(x) for x in arcs)]
    return [2 * m] + inner + [2 * m + 3]


def graph_path(ssg: SsgGraph, arcs: Sequence[int]) -> list[int]:
    """Backward map: a regular path s → σ(s) of ssg(G) → the simple nonrepetitive path p → q
    of G (arc numbers of G), turned round when it was found from q's side."""
    m = ssg.num_graph_edges
    sequence = [int(a) for a in arcs]
    path = [c >> 1 if c % 2 == 0 else m + (c >> 1) for c in sequence if c < 2 * m]
    if sequence and sequence[0] == 2 * m + 2:     # s → (q, ·): the path runs q → p
        path = [a + m if a < m else a - m for a in reversed(path)]
    return path


__all__ = ["SsgGraph", "ssg_graph", "ssg_size", "ssg_path", "graph_path"]
