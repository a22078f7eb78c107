"""Nonrepetitive paths and cycles through the transform nr(G) (Eppstein 2005, §2.1).

A walk in an edge-labelled graph is *nonrepetitive* when no two consecutive edges carry the
same label; a closed walk (a *cycle*, not necessarily simple) must also have its last and
first edge labelled differently. Vertices and edges may repeat. nr(G) is an unlabelled
digraph whose plain paths are exactly these walks, so reachability and strongly connected
components answer the nonrepetitive questions in linear time.

**Lemma 1 gadget** (:func:`label_gadget`). For k labels: in-vertices ``x`` and out-vertices
``x̄`` (x = 0..k-1) such that ``x`` reaches ``ȳ`` iff ``x ≠ y``. Built as in the paper's proof:
k = 1: two vertices, no arc; k = 2: arcs 0→1̄, 1→0̄; k ≥ 3: pair the labels (2i, 2i+1), join
each label to its partner's out-vertex, and route everything else through a gadget D' for the
⌈k/2⌉ pairs (x → in-vertex of its pair in D', out-vertex of its pair in D' → x̄; an odd last
label is a pair on its own). Within D', pair i reaches pair j̄ iff i ≠ j, so x reaches ȳ
exactly when y is x's partner or in another pair — never x̄ itself. Exact size
(:func:`label_gadget_size`), for k ≥ 3::

    V(k) = 2k + V(⌈k/2⌉),   A(k) = 3k − (k mod 2) + A(⌈k/2⌉),
    V(1) = 2, A(1) = 0, V(2) = 4, A(2) = 2,

so V(k) ≤ 4k + 2⌈log₂k⌉ and A(k) ≤ 6k + 2⌈log₂k⌉ (e.g. k = 9: 38 vertices, 50 arcs).
(The paper's proof says "For D = 2" where it means k = 2.)

**nr(G)** (:func:`nr_graph`). Each vertex v of G with k_v distinct labels on its incident
edges (in or out) gets a gadget for those labels; each arc (v → w, label x) of G becomes one
arc from x̄ in v's gadget to x in w's gadget (an undirected edge gives both arcs). Size:
``Σ_v V(k_v)`` vertices and ``arcs(G) + Σ_v A(k_v)`` arcs, O(m). A path in nr(G) passes
through gadgets exactly along a nonrepetitive walk of G and vice versa (Lemma 2): inside a
gadget it can only turn from arriving label x to a leaving label y ≠ x. Vertex numbering: the
(vertex, label) pairs are sorted, pair j has in-vertex 2j and out-vertex 2j+1; gadget-internal
vertices follow. Arc a < arcs(G) of nr(G) stands for arc a of G. Building is numpy work per
gadget level (⌈log₂ k⌉ levels, geometric sizes). The (vertex, label) pairs are grouped with
a table indexed by vertex × label when that is at most a few times the number of arcs (a
small alphabet, e.g. the 9 Sudoku digits): linear time, like the paper's hashing; with huge
alphabets (e.g. every edge its own label) one numpy sort instead.

**Theorem 1** (:func:`cyclic_edges`): arc (v→w, x) lies on a nonrepetitive cycle iff x̄ at v
and x at w are in one strongly connected component of nr(G) (scipy's strong components,
linear time).
**Theorem 2** (:func:`edges_from`): the edges on nonrepetitive walks that start at v with
label x are the arcs (u→w, y) whose ȳ at u is reachable from x̄ at v.
:func:`nonrepetitive_path` finds a walk with fewest edges between two vertices (0-1 BFS:
gadget arcs cost 0) and decodes it to G's arcs.

The reference for tests is the naive state graph (:func:`naive_cyclic_edges`,
:func:`naive_edges_from`, :func:`naive_path_length`): states (vertex, label of the arc just
used), a transition for every arc whose label differs — quadratic, obviously right.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from functools import cached_property
from typing import Hashable, Sequence

import numpy as np

from .labelled_graph import GraphError, LabelledGraph


# ----------------------------------------------------------------------------- Lemma 1

def label_gadget_size(k: int) -> tuple[int, int]:
    """(vertices, arcs) of the Lemma 1 gadget for k labels (the recurrence above)."""
    if k <= 0:
        return 0, 0
    if k == 1:
        return 2, 0
    if k == 2:
        return 4, 2
    vertices, arcs = label_gadget_size((k + 1) // 2)
    return 2 * k + vertices, 3 * k - k % 2 + arcs


def _label_gadgets(sizes: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """Lemma 1 gadgets for many groups at once.

    Group g has ``sizes[g]`` labels; the labels of all groups are numbered consecutively
    (group by group) and label i has in-vertex 2i and out-vertex 2i+1. Returns the total
    vertex count and the gadget arcs. Each loop turn builds one level of every gadget that
    still has ≥ 3 labels, so the work is O(Σ sizes).
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    sizes = sizes[sizes > 0]
    total = int(sizes.sum())
    in_ids = 2 * np.arange(total, dtype=np.int64)
    out_ids = in_ids + 1
    next_vertex = 2 * total
    tails: list[np.ndarray] = []
    heads: list[np.ndarray] = []
    while len(sizes):
        starts = np.cumsum(sizes) - sizes
        group = np.repeat(np.arange(len(sizes)), sizes)
        item = np.arange(len(group), dtype=np.int64)
        pos = item - starts[group]
        k = sizes[group]
        # A label joins its partner's out-vertex directly (this is the whole gadget for k=2).
        partner = np.where(pos % 2 == 0, item + 1, item - 1)
        paired = (pos ^ 1) < k
        tails.append(in_ids[paired])
        heads.append(out_ids[partner[paired]])
        # Labels of gadgets with k ≥ 3 also pass through the gadget D' of their pairs.
        big_group = sizes >= 3
        new_sizes = (sizes[big_group] + 1) // 2
        new_start = np.zeros(len(sizes), dtype=np.int64)
        new_start[big_group] = np.cumsum(new_sizes) - new_sizes
        big = k >= 3
        pair_of = new_start[group[big]] + pos[big] // 2
        count = int(new_sizes.sum())
        new_in = next_vertex + 2 * np.arange(count, dtype=np.int64)
        new_out = new_in + 1
        next_vertex += 2 * count
        tails += [in_ids[big], new_out[pair_of]]
        heads += [new_in[pair_of], out_ids[big]]
        in_ids, out_ids, sizes = new_in, new_out, new_sizes
    if not tails:
        empty = np.zeros(0, dtype=np.int64)
        return next_vertex, empty, empty.copy()
    return next_vertex, np.concatenate(tails), np.concatenate(heads)


def label_gadget(k: int) -> tuple[int, np.ndarray, np.ndarray]:
    """The Lemma 1 gadget for k labels: (vertex count, arc tails, arc heads); label x has
    in-vertex 2x and out-vertex 2x+1."""
    return _label_gadgets(np.array([k]))


# ----------------------------------------------------------------------------- nr(G)

@dataclass(frozen=True, eq=False)
class NrGraph:
    """nr(G) for a labelled graph G (see the module docstring for the numbering)."""

    num_vertices: int
    tails: np.ndarray
    heads: np.ndarray
    num_graph_arcs: int          # nr-arcs 0..num_graph_arcs-1 are G's arcs, in order
    num_labels: int
    pair_keys: np.ndarray        # sorted keys vertex * num_labels + label of the pairs
    arc_tail_pair: np.ndarray    # per G arc: pair (tail, label) — leaves from its out-vertex
    arc_head_pair: np.ndarray    # per G arc: pair (head, label) — enters its in-vertex

    @property
    def num_arcs(self) -> int:
        return len(self.tails)

    @property
    def num_pairs(self) -> int:
        return len(self.pair_keys)

    def pair(self, vertex: int, label: int) -> int | None:
        """The pair index of (vertex, label), or None if no edge at vertex has that label."""
        if not 0 <= label < self.num_labels or vertex < 0:
            return None
        key = vertex * self.num_labels + label
        i = int(np.searchsorted(self.pair_keys, key))
        if i < len(self.pair_keys) and int(self.pair_keys[i]) == key:
            return i
        return None

    def pairs_of(self, vertex: int) -> range:
        """The pair indices of one vertex (its labels, in increasing label order)."""
        if self.num_labels == 0:
            return range(0)
        lo = int(np.searchsorted(self.pair_keys, vertex * self.num_labels))
        hi = int(np.searchsorted(self.pair_keys, (vertex + 1) * self.num_labels))
        return range(lo, hi)

    @cached_property
    def csr(self) -> tuple[list[int], list[int], list[int]]:
        """Out-adjacency as Python lists: ``indptr``, ``targets``, ``arc ids`` (for searches)."""
        order = np.argsort(self.tails, kind="stable")
        counts = np.bincount(self.tails, minlength=self.num_vertices)
        indptr = np.zeros(self.num_vertices + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return indptr.tolist(), self.heads[order].tolist(), order.tolist()


def group_pairs(keys: np.ndarray, key_range: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys in increasing order and, per key, its index among them.

    Keys below a small ``key_range`` (at most a few times the number of keys, as with a small
    label alphabet) are grouped with a table of that size, in linear time; otherwise with
    one sort (``np.unique``).
    """
    if key_range <= 4 * len(keys) + 1024:
        present = np.zeros(key_range, dtype=bool)
        present[keys] = True
        index = np.cumsum(present, dtype=np.int64) - 1
        return np.flatnonzero(present), index[keys]
    distinct, inverse = np.unique(keys, return_inverse=True)
    return distinct, inverse.reshape(-1)


def nr_graph(graph: LabelledGraph) -> NrGraph:
    """Build nr(G): linear time (the (vertex, label) pairs are grouped with a table when
    vertices × labels is at most a few times the arcs, else with one numpy sort)."""
    arcs = graph.arcs()
    num_labels = max(graph.num_labels, 1)
    tail_keys = arcs.tails * num_labels + arcs.labels
    head_keys = arcs.heads * num_labels + arcs.labels
    pair_keys, inverse = group_pairs(np.concatenate([tail_keys, head_keys]),
                                      graph.num_vertices * num_labels)
    count = len(arcs)
    arc_tail_pair = inverse[:count]
    arc_head_pair = inverse[count:]
    # Pairs are sorted by vertex, so each vertex's labels are one consecutive group.
    labels_per_vertex = np.bincount(pair_keys // num_labels, minlength=graph.num_vertices)
    num_vertices, gadget_tails, gadget_heads = _label_gadgets(labels_per_vertex)
    tails = np.concatenate([2 * arc_tail_pair + 1, gadget_tails])
    heads = np.concatenate([2 * arc_head_pair, gadget_heads])
    return NrGraph(num_vertices, tails, heads, count, num_labels, pair_keys,
                   arc_tail_pair, arc_head_pair)


def nr_graph_size(graph: LabelledGraph) -> tuple[int, int]:
    """(vertices, arcs) of nr(G) by the formula Σ V(k_v), arcs(G) + Σ A(k_v)."""
    arcs = graph.arcs()
    labels_at: list[set[int]] = [set() for _ in range(graph.num_vertices)]
    for t, h, x in zip(arcs.tails.tolist(), arcs.heads.tolist(), arcs.labels.tolist()):
        labels_at[t].add(x)
        labels_at[h].add(x)
    sizes = [label_gadget_size(len(s)) for s in labels_at]
    return sum(v for v, _ in sizes), len(arcs) + sum(a for _, a in sizes)


# ----------------------------------------------------------------------------- searches

def _adjacency(num_vertices: int, tails: np.ndarray, heads: np.ndarray):
    """The digraph as a scipy sparse matrix (parallel arcs summed: only reachability counts).
    scipy is imported here, by the searches that need it, not with the module: the simple
    path search (:mod:`reductions.nonrepetitive.simple_nonrepetitive`) uses this module without
    them."""
    from scipy.sparse import csr_matrix
    ones = np.ones(len(tails), dtype=np.int8)
    return csr_matrix((ones, (np.asarray(tails), np.asarray(heads))),
                      shape=(num_vertices, num_vertices))


def strongly_connected_components(num_vertices: int, tails: np.ndarray,
                                  heads: np.ndarray) -> np.ndarray:
    """Component number of every vertex (scipy's linear-time strong components; the numbers
    themselves mean nothing, only which vertices share one)."""
    if num_vertices == 0:
        return np.zeros(0, dtype=np.int64)
    from scipy.sparse.csgraph import connected_components
    _, labels = connected_components(_adjacency(num_vertices, tails, heads), directed=True,
                                     connection="strong")
    return labels.astype(np.int64, copy=False)


def _reachable(nr: NrGraph, start: int) -> np.ndarray:
    """Boolean mask of the nr(G) vertices reachable from ``start`` (scipy breadth-first)."""
    from scipy.sparse.csgraph import breadth_first_order
    order = breadth_first_order(_adjacency(nr.num_vertices, nr.tails, nr.heads), start,
                                directed=True, return_predecessors=False)
    seen = np.zeros(nr.num_vertices, dtype=bool)
    seen[order] = True
    return seen


def _per_edge(graph: LabelledGraph, arc_mask: np.ndarray) -> np.ndarray:
    """An arc property as an edge property (an undirected edge: either direction)."""
    if graph.directed:
        return arc_mask
    m = graph.num_edges
    return arc_mask[:m] | arc_mask[m:]


def cyclic_arcs(graph: LabelledGraph, nr: NrGraph | None = None) -> np.ndarray:
    """Per arc of G: does it lie on a nonrepetitive cycle? (Theorem 1)"""
    nr = nr or nr_graph(graph)
    comp = strongly_connected_components(nr.num_vertices, nr.tails, nr.heads)
    return comp[2 * nr.arc_tail_pair + 1] == comp[2 * nr.arc_head_pair]


def cyclic_edges(graph: LabelledGraph, nr: NrGraph | None = None) -> np.ndarray:
    """Per edge of G: does it lie on a nonrepetitive cycle (closed walk)? (Theorem 1)"""
    return _per_edge(graph, cyclic_arcs(graph, nr))


def edges_from(graph: LabelledGraph, vertex: int, label: int,
               nr: NrGraph | None = None) -> np.ndarray:
    """Per edge of G: does it lie on a nonrepetitive walk that starts at ``vertex`` with an
    edge labelled ``label``? (Theorem 2; all False if no such first edge exists)"""
    nr = nr or nr_graph(graph)
    pair = nr.pair(vertex, label)
    if pair is None:
        return np.zeros(graph.num_edges, dtype=bool)
    reached = _reachable(nr, 2 * pair + 1)
    return _per_edge(graph, reached[2 * nr.arc_tail_pair + 1])


def nonrepetitive_path(graph: LabelledGraph, source: int, target: int,
                       nr: NrGraph | None = None) -> list[int] | None:
    """A nonrepetitive walk from ``source`` to ``target`` with the fewest edges, as a list of
    G's arc indices (``[]`` when source == target), or None if there is none.

    0-1 breadth-first search in nr(G): arcs standing for G's arcs cost 1, gadget arcs 0.
    """
    if source == target:
        return []
    nr = nr or nr_graph(graph)
    indptr, targets, arc_ids = nr.csr
    goal = {2 * p for p in nr.pairs_of(target)}
    if not goal:
        return None
    infinity = len(nr.tails) + 1
    dist = [infinity] * nr.num_vertices
    parent_arc = [-1] * nr.num_vertices
    queue: deque[int] = deque()
    for p in nr.pairs_of(source):
        dist[2 * p + 1] = 0
        queue.append(2 * p + 1)
    graph_arcs = nr.num_graph_arcs
    nr_tails = nr.tails
    found = -1
    while queue:
        v = queue.popleft()
        if v in goal:
            found = v
            break
        d = dist[v]
        for i in range(indptr[v], indptr[v + 1]):
            w = targets[i]
            a = arc_ids[i]
            cost = 1 if a < graph_arcs else 0
            if d + cost < dist[w]:
                dist[w] = d + cost
                parent_arc[w] = a
                if cost:
                    queue.append(w)
                else:
                    queue.appendleft(w)
    if found < 0:
        return None
    path = []
    v = found
    while parent_arc[v] >= 0:
        a = parent_arc[v]
        if a < graph_arcs:
            path.append(a)
        v = int(nr_tails[a])
    path.reverse()
    return path


# ----------------------------------------------------------------------------- checks

def walk_problems(graph: LabelledGraph, arcs: Sequence[int], closed: bool = False) -> list[str]:
    """Why ``arcs`` is not a nonrepetitive walk (closed: a nonrepetitive cycle); [] if it is."""
    problems = []
    all_arcs = graph.arcs()
    tails, heads, labels = all_arcs.tails, all_arcs.heads, all_arcs.labels
    sequence = [int(a) for a in arcs]
    for a in sequence:
        if not 0 <= a < graph.num_arcs:
            return [f"arc {a} does not exist"]
    pairs = list(zip(sequence, sequence[1:]))
    if closed and sequence:
        pairs.append((sequence[-1], sequence[0]))
    for step, (a, b) in enumerate(pairs, start=1):
        if heads[a] != tails[b]:
            problems.append(f"step {step}: arc {graph.arc_names(a)} does not end where arc "
                            f"{graph.arc_names(b)} starts")
        elif labels[a] == labels[b]:
            problems.append(f"step {step}: arcs {graph.arc_names(a)} and "
                            f"{graph.arc_names(b)} repeat label {graph.label_name(labels[a])!r}")
    return problems


def walk_vertices(graph: LabelledGraph, arcs: Sequence[int], start: int) -> list[int]:
    """The vertices a walk visits, starting with ``start``."""
    heads = graph.arcs().heads
    return [start] + [int(heads[a]) for a in arcs]


def _repeated(vertices: list[int]) -> list[int]:
    """The vertices that occur more than once, sorted (linear: paths may be long)."""
    return sorted(v for v, count in Counter(vertices).items() if count > 1)


def simple_path_problems(graph: LabelledGraph, arcs: Sequence[int], source: int,
                         target: int) -> list[str]:
    """Why ``arcs`` is not a simple nonrepetitive path from source to target; [] if it is."""
    problems = walk_problems(graph, arcs)
    if problems:
        return problems
    all_arcs = graph.arcs()
    if not arcs:
        return [] if source == target else ["the path is empty but source != target"]
    if int(all_arcs.tails[arcs[0]]) != source:
        problems.append(f"the path starts at {graph.vertex_name(int(all_arcs.tails[arcs[0]]))!r}"
                        f", not at {graph.vertex_name(source)!r}")
    if int(all_arcs.heads[arcs[-1]]) != target:
        problems.append(f"the path ends at {graph.vertex_name(int(all_arcs.heads[arcs[-1]]))!r}"
                        f", not at {graph.vertex_name(target)!r}")
    vertices = walk_vertices(graph, arcs, int(all_arcs.tails[arcs[0]]))
    repeated = _repeated(vertices)
    if repeated:
        problems.append("not simple: visits " + ", ".join(
            repr(graph.vertex_name(v)) for v in repeated[:5]) + " more than once")
    return problems


def simple_cycle_problems(graph: LabelledGraph, arcs: Sequence[int]) -> list[str]:
    """Why ``arcs`` is not a simple nonrepetitive cycle; [] if it is."""
    if not arcs:
        return ["the cycle is empty"]
    problems = walk_problems(graph, arcs, closed=True)
    if problems:
        return problems
    vertices = [int(graph.arcs().tails[a]) for a in arcs]
    repeated = _repeated(vertices)
    if repeated:
        problems.append("not simple: visits " + ", ".join(
            repr(graph.vertex_name(v)) for v in repeated[:5]) + " more than once")
    return problems


# ----------------------------------------------------------------------------- naive reference

def _out_arcs(graph: LabelledGraph) -> list[list[tuple[int, int, int]]]:
    arcs = graph.arcs()
    out: list[list[tuple[int, int, int]]] = [[] for _ in range(graph.num_vertices)]
    for a, (t, h, x) in enumerate(zip(arcs.tails.tolist(), arcs.heads.tolist(),
                                      arcs.labels.tolist())):
        out[t].append((a, h, x))
    return out


def _naive_search(out: list[list[tuple[int, int, int]]],
                  starts: list[tuple[int, int]]) -> tuple[set[tuple[int, int]], set[int]]:
    """States (vertex, last label) reachable from ``starts``, and the arcs used getting there
    (each transition takes an arc whose label differs from the last one)."""
    seen = set(starts)
    used: set[int] = set()
    todo = list(starts)
    while todo:
        v, last = todo.pop()
        for a, h, x in out[v]:
            if x != last:
                used.add(a)
                if (h, x) not in seen:
                    seen.add((h, x))
                    todo.append((h, x))
    return seen, used


def naive_cyclic_edges(graph: LabelledGraph) -> np.ndarray:
    """Theorem 1 the slow way: arc (v→w, x) is on a nonrepetitive cycle iff the state
    (w, x) can reach a state (v, z) with z ≠ x."""
    out = _out_arcs(graph)
    arcs = graph.arcs()
    result = np.zeros(graph.num_arcs, dtype=bool)
    for a, (v, w, x) in enumerate(zip(arcs.tails.tolist(), arcs.heads.tolist(),
                                      arcs.labels.tolist())):
        states, _ = _naive_search(out, [(w, x)])
        result[a] = any(u == v and z != x for u, z in states)
    return _per_edge(graph, result)


def naive_edges_from(graph: LabelledGraph, vertex: int, label: int) -> np.ndarray:
    """Theorem 2 the slow way: every arc used by a search of the state graph that starts
    with the arcs leaving ``vertex`` with ``label``."""
    out = _out_arcs(graph)
    starts = []
    used = set()
    for a, h, x in out[vertex]:
        if x == label:
            used.add(a)
            starts.append((h, x))
    _, more = _naive_search(out, starts)
    mask = np.zeros(graph.num_arcs, dtype=bool)
    mask[list(used | more)] = True
    return _per_edge(graph, mask)


def naive_path_length(graph: LabelledGraph, source: int, target: int) -> int | None:
    """Fewest edges of a nonrepetitive walk source → target (breadth-first search over the
    states), None if there is none."""
    if source == target:
        return 0
    out = _out_arcs(graph)
    start: tuple[int, Hashable] = (source, None)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        v, last = state
        for _, h, x in out[v]:
            if x != last and (h, x) not in dist:
                if h == target:
                    return dist[state] + 1
                dist[(h, x)] = dist[state] + 1
                queue.append((h, x))
    return None


__all__ = [
    "GraphError", "NrGraph", "group_pairs", "label_gadget", "label_gadget_size", "nr_graph",
    "nr_graph_size",
    "strongly_connected_components", "cyclic_arcs", "cyclic_edges", "edges_from",
    "nonrepetitive_path", "walk_problems", "simple_path_problems", "simple_cycle_problems",
    "naive_cyclic_edges", "naive_edges_from", "naive_path_length",
]
