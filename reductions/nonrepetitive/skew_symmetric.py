"""Skew-symmetric graphs and regular paths, found by one blossom search in O(m α(m, n)) time
(Goldberg & Karzanov 1996, after Edmonds 1965; labels and paths as in Gabow 1976).

A *skew-symmetric graph* is a digraph with an involution σ on its vertices, without fixed
points, that reverses arcs: u → w is an arc exactly when σ(w) → σ(u) is one, its *mate*.
Here σ(x) = x ^ 1 (vertices come in pairs 2k, 2k + 1) and arcs come in mate pairs as well:
arc 2k + 1 is the mate of arc 2k (:meth:`SkewSymmetricGraph.from_arcs` adds the mates), so
every :class:`SkewSymmetricGraph` is skew-symmetric by construction.

A path s = x_0 → x_1 → … → x_k = σ(s), k ≥ 1, is **regular** when it uses no vertex pair
{x, σ(x)} twice: x_1, …, x_{k−1} lie in distinct pairs, none of them s's pair. The
*r-reachability* problem asks for such a path (Eppstein 2005, §2.2, after Goldberg and
Karzanov, "Path problems in skew-symmetric graphs", Combinatorica 16, 1996). This is the
vertex form that Lemma 4 (:mod:`reductions.nonrepetitive.ssg`) needs; a form stated for arcs (no arc
together with its mate) reduces to it by splitting every vertex into an arc.

**Why a matching search decides it.** Let H be the undirected graph on the same vertices in
which σ(s) is merged into s (call the merged vertex r), every other pair {x, σ(x)} is a
*matched* edge, and every arc u → w gives the unmatched edge {u, σ(w)} (an arc and its mate
give the same edge; arcs into s and out of σ(s) are never on a regular path and are
ignored). The path s → x_1 → … → x_{k−1} → σ(s) becomes the closed walk

    r, σ(x_1), x_1, σ(x_2), x_2, …, σ(x_{k−1}), x_{k−1}, r

whose edges alternate unmatched, matched, …, unmatched, and regularity is exactly its
simplicity. So s and σ(s) are r-reachable iff H has an odd alternating cycle through the
exposed vertex r, iff some vertex x with an arc x → σ(s) (a neighbour of r) is reachable from
r by an even-length alternating path. Those vertices are what Edmonds' blossom search from r
labels *even*; r is H's only exposed vertex, so the search never augments: it grows one
alternating tree and shrinks the odd cycles (blossoms) it closes.

**The search in graph terms.** Even vertices are those that regular paths from s reach; a
vertex is odd when its mate is even and it is not. Scanning an even x along an arc x → w:

* w = σ(s): x is a neighbour of r — the path is found;
* neither w nor σ(w) labelled: w becomes even, reached from x (a *tree* vertex), σ(w) odd;
* σ(w) even and in another blossom than x: the edge {x, σ(w)} of H joins two even vertices and
  closes an odd cycle through their nearest common blossom base b; every blossom on the two
  tree paths below b is merged into b's (union–find keeps the bases) and the odd vertices
  between them become even (*bridge* vertices, labelled with the arc's two ends, Gabow);
* otherwise (w even, or both ends in one blossom) nothing.

**The path** (Gabow's recursion, run with an explicit stack). For an even vertex v, P(v) is
the even-length alternating path of H from v to r that starts with v's matched edge:
P(v) = v, σ(v), P(pred(v)) for a tree vertex reached from pred(v), and for a bridge vertex
labelled (a, b) — the odd vertex v lay on a's tree path — P(v) = reverse(P(a) up to v), P(b).
When x → σ(s) is found, every other vertex of P(x), read backwards, is the regular path
s → … → x, followed by σ(s).

**Time.** Each vertex becomes even once and is scanned once, each arc is looked at once; the
common base of a new blossom is found by climbing from both sides alternately (cost
proportional to the blossoms merged, each merged once); union by size with path halving.
Total O((n + m) α(m, n)) for one search, near-linear. (Goldberg and Karzanov state linear time;
Gabow and Tarjan's incremental tree set union would remove the α factor; not done here.) The
adjacency is grouped by a numpy radix sort (linear) and held in compact arrays; the search
itself is a tight loop of plain Python over them.

:func:`regular_path_problems` checks a path against the definition; tests compare the search
with an exhaustive search and with a maximum-matching formulation (networkx).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

from .labelled_graph import GraphError


@dataclass(frozen=True, eq=False)
class SkewSymmetricGraph:
    """A skew-symmetric digraph: σ(x) = x ^ 1, arc ``a ^ 1`` is the mate of arc ``a``.

    Parameters
    ----------
    num_vertices : int
        Even; vertices are ``0 .. num_vertices - 1``.
    tails, heads : array of int
        All arcs, mates interleaved (arc 2k+1 = σ(heads[2k]) → σ(tails[2k])); checked.

    Examples
    --------
    >>> g = SkewSymmetricGraph.from_arcs(4, [0], [2])      # 0 → 2 and its mate 3 → 1
    >>> g.tails.tolist(), g.heads.tolist()
    ([0, 3], [2, 1])
    """

    num_vertices: int
    tails: np.ndarray
    heads: np.ndarray

    def __post_init__(self) -> None:
        tails = np.ascontiguousarray(self.tails, dtype=np.int64).reshape(-1)
        heads = np.ascontiguousarray(self.heads, dtype=np.int64).reshape(-1)
        n = int(self.num_vertices)
        if n < 0 or n % 2:
            raise GraphError(f"a skew-symmetric graph has an even number of vertices, not {n}")
        if len(tails) != len(heads) or len(tails) % 2:
            raise GraphError("arcs must come in mate pairs (equal, even numbers of tails and "
                             "heads)")
        if len(tails) and (min(int(tails.min()), int(heads.min())) < 0
                           or max(int(tails.max()), int(heads.max())) >= n):
            raise GraphError(f"an arc end is outside the vertices 0..{n - 1}")
        if not (np.array_equal(tails[1::2], heads[0::2] ^ 1)
                and np.array_equal(heads[1::2], tails[0::2] ^ 1)):
            raise GraphError("arc 2k+1 must be the mate σ(head) → σ(tail) of arc 2k")
        for array_ in (tails, heads):
            array_.setflags(write=False)
        object.__setattr__(self, "num_vertices", n)
        object.__setattr__(self, "tails", tails)
        object.__setattr__(self, "heads", heads)

    @classmethod
    def from_arcs(cls, num_vertices: int, tails: Sequence[int] | np.ndarray,
                  heads: Sequence[int] | np.ndarray) -> "SkewSymmetricGraph":
        """The graph of the given arcs and their mates: arc ``2k`` is ``tails[k] → heads[k]``,
        arc ``2k + 1`` its mate ``σ(heads[k]) → σ(tails[k])``."""
        tails = np.asarray(tails, dtype=np.int64).reshape(-1)
        heads = np.asarray(heads, dtype=np.int64).reshape(-1)
        return cls(num_vertices, np.stack([tails, heads ^ 1], axis=1).reshape(-1),
                   np.stack([heads, tails ^ 1], axis=1).reshape(-1))

    @property
    def num_arcs(self) -> int:
        return len(self.tails)

    @cached_property
    def adjacency(self) -> tuple[array, array, np.ndarray]:
        """Out-adjacency for searches: ``indptr`` and ``targets`` as compact arrays (indexing
        them gives plain ints), and the arc number at each position (numpy)."""
        n = self.num_vertices
        index = _index_dtype(max(n, self.num_arcs) + 1)
        order = _stable_order(self.tails, n).astype(index, copy=False)
        indptr = np.zeros(n + 1, dtype=index)
        np.cumsum(np.bincount(self.tails, minlength=n), out=indptr[1:])
        return _compact(indptr, index), _compact(self.heads[order], index), order

    def arc_between(self, tail: int, head: int) -> int:
        """An arc ``tail → head`` (the first in adjacency order); GraphError if none."""
        indptr, targets, arc_ids = self.adjacency
        for i in range(indptr[tail], indptr[tail + 1]):
            if targets[i] == head:
                return int(arc_ids[i])
        raise GraphError(f"no arc {tail} -> {head}")


def _stable_order(keys: np.ndarray, bound: int) -> np.ndarray:
    """The permutation that sorts ``keys`` (integers in 0..bound−1), equal keys in their
    order: a least-significant-digit radix sort over 16-bit digits (numpy's stable sort of
    uint16 values is a radix sort), so linear time for any bound below 2⁴⁸."""
    order = np.arange(len(keys))
    shift = 0
    while shift == 0 or bound > 1 << shift:
        digit = ((keys[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    return order


def _index_dtype(bound: int) -> type:
    """int32 for vertex and arc numbers below 2³¹ (half the memory, fewer cache misses in the
    search), else int64."""
    return np.int32 if bound < 2**31 else np.int64


def _compact(values: np.ndarray, dtype: type) -> array:
    """A numpy vector as a Python ``array`` of the same width (a copy, no Python ints)."""
    out = array("i" if dtype == np.int32 else "q")
    out.frombytes(np.ascontiguousarray(values, dtype=dtype).tobytes())
    return out


def _filled(count: int, value: int, dtype: type) -> array:
    """A Python ``array`` of ``count`` copies of ``value``."""
    return array("i" if dtype == np.int32 else "q", [value]) * count


# ----------------------------------------------------------------------------- the search

def regular_path(graph: SkewSymmetricGraph, source: int) -> list[int] | None:
    """The arcs of a regular path ``source → σ(source)``, or None if there is none.

    Parameters
    ----------
    graph : SkewSymmetricGraph
    source : int
        The vertex s; the path ends at σ(s) = s ^ 1.

    Returns
    -------
    list of int or None
        Arc numbers of ``graph``, in path order (checked by :func:`regular_path_problems`
        in the tests; the callers check what they decode from it).

    Examples
    --------
    >>> g = SkewSymmetricGraph.from_arcs(6, [0, 2], [2, 1])   # 0 → 2 → 1, or its mate path
    >>> path = regular_path(g, 0)                              # 0 → 3 → 1
    >>> len(path), regular_path_problems(g, 0, path)
    (2, [])
    >>> regular_path(SkewSymmetricGraph.from_arcs(6, [0, 2], [2, 3]), 0) is None  # 2 and 3
    True
    """
    if not 0 <= source < graph.num_vertices:
        raise GraphError(f"no vertex {source} in the graph")
    vertices = _search(graph, source)
    if vertices is None:
        return None
    return [graph.arc_between(u, w) for u, w in zip(vertices, vertices[1:])]


def _search(graph: SkewSymmetricGraph, s: int) -> list[int] | None:
    """The blossom search of the module docstring; the path as a list of vertices."""
    indptr, targets, _ = graph.adjacency
    return _BlossomSearch(graph.num_vertices, s).run(indptr, targets)


class _BlossomSearch:
    """The state of one blossom search from s: the even labels, the tree and bridge links
    that spell P(v), and the union–find that keeps each blossom's base.

    :meth:`run` is the scan, :meth:`_shrink` closes a blossom, :meth:`_common_base` finds the
    base it closes at, :func:`_find` is the union–find. A vertex's blossom base,
    ``root_base[_find(parent, v)]`` or the root itself where that is −1, is written out inline
    where it is needed: the search spends its time in these lines, and a call per lookup
    made it measurably slower.
    """

    __slots__ = ("s", "even", "pred", "near", "far", "parent", "root_base", "stack")

    def __init__(self, num_vertices: int, s: int) -> None:
        n = num_vertices
        index = _index_dtype(n + 1)
        self.s = s
        self.even = bytearray(n)
        self.pred = _filled(n, -1, index)        # tree vertex → the even vertex it was
        #                                          reached from
        self.near = _filled(n, -1, index)        # bridge vertex → (near[v], far[v]): the
        self.far = _filled(n, -1, index)         # ends of the closing arc, near[v] on v's
        #                                          side (else −1)
        self.parent = _filled(n, -1, index)      # union–find: parent, or −size at a root
        self.root_base = _filled(n, -1, index)   # base of a root's blossom (−1: the root)
        self.stack = [s]
        self.even[s] = 1

    def run(self, indptr: array, targets: array) -> list[int] | None:
        """Scan even vertices until one has an arc into σ(s): the path to it, else None."""
        s = self.s
        sink = s ^ 1
        even, pred, parent, root_base = self.even, self.pred, self.parent, self.root_base
        stack, shrink = self.stack, self._shrink
        while stack:
            x = stack.pop()
            r = x if parent[x] < 0 else _find(parent, x)            # bx = base_of(x), inlined
            bx = root_base[r]
            if bx < 0:
                bx = r
            for w in targets[indptr[x]:indptr[x + 1]]:
                if w == sink:
                    return _path_to(x, s, pred, self.near, self.far) + [sink]
                y = w ^ 1
                if even[y]:
                    r = y                # by = base_of(y), inlined with its path halving
                    p = parent[r]
                    while p >= 0:
                        g = parent[p]
                        if g < 0:
                            r = p
                            break
                        parent[r] = g
                        r = g
                        p = parent[r]
                    by = root_base[r]
                    if by < 0:
                        by = r
                    if by != bx:
                        bx = shrink(x, y, bx, by)
                elif not even[w]:        # (an arc into s lands here with even[s] set)
                    even[w] = 1
                    pred[w] = x
                    stack.append(w)
        return None

    def _shrink(self, x: int, y: int, bx: int, by: int) -> int:
        """The blossom closed by the edge {x, y} of H (x, y even, bases bx ≠ by); returns
        its base. One method, locals bound once: it runs about once per six arcs scanned."""
        even, near, far, pred, parent, root_base = (self.even, self.near, self.far, self.pred,
                                                    self.parent, self.root_base)
        top = self._common_base(bx, by)
        root = _find(parent, top)
        for c, this_end, other_end in ((bx, x, y), (by, y, x)):
            while c != top:              # c: base of a blossom below top (so c != s)
                odd = c ^ 1              # the odd vertex just above it becomes even
                even[odd] = 1
                near[odd] = this_end
                far[odd] = other_end
                self.stack.append(odd)
                v = pred[c]              # above = base_of(pred[c]), inlined
                r = v if parent[v] < 0 else _find(parent, v)
                above = root_base[r]
                if above < 0:
                    above = r
                # c's set joins top's, union by size (stored negated at the roots); then
                # odd, a single vertex until now.
                other = _find(parent, c)
                if parent[other] < parent[root]:
                    other, root = root, other
                parent[root] += parent[other] - 1
                parent[other] = root
                parent[odd] = root
                root_base[root] = top
                c = above
        return top

    def _common_base(self, bx: int, by: int) -> int:
        """The nearest common blossom base of bx and by, found by climbing the two tree
        paths alternately (cost ~ the blossoms to be merged)."""
        s, pred, parent, root_base = self.s, self.pred, self.parent, self.root_base
        seen: set[int] = set()
        a, b = bx, by
        while True:
            if a >= 0:
                if a in seen:
                    return a
                seen.add(a)
                if a == s:
                    a = -1
                else:                    # a = base_of(pred[a]), inlined
                    v = pred[a]
                    r = v if parent[v] < 0 else _find(parent, v)
                    a = root_base[r]
                    if a < 0:
                        a = r
            a, b = b, a


def _find(parent: array, v: int) -> int:
    """The root of v's set in the union–find ``parent`` (a parent, or −size at a root), with
    path halving. A plain function on the array: the search calls it often, and a method
    reading ``self.parent`` each time measured slower."""
    p = parent[v]
    while p >= 0:
        g = parent[p]
        if g < 0:
            return p
        parent[v] = g
        v = g
        p = parent[v]
    return v


def _path_to(x: int, s: int, pred: array, near: array, far: array) -> list[int]:
    """The regular path s → … → x: every other vertex of P(x), read backwards."""
    walk = _alternating_path(x, s, pred, near, far)
    return walk[::2][::-1]


def _alternating_path(v: int, stop: int, pred: array,
                      near: array, far: array) -> list[int]:
    """P(v) up to ``stop`` (a vertex on it), as H's vertices; Gabow's recursion unrolled:
    a task is a vertex to emit or (start, stop, forward) — a piece of P, maybe reversed."""
    out: list[int] = []
    tasks: list = [(v, stop, True)]
    while tasks:
        task = tasks.pop()
        if type(task) is int:
            out.append(task)
            continue
        u, end, forward = task
        if u == end:
            out.append(u)
        elif near[u] >= 0:               # P(u) = reverse(P(a) up to u), P(b)
            a, b = near[u], far[u]
            if forward:
                tasks += [(b, end, True), (a, u, False)]
            else:
                tasks += [(a, u, True), (b, end, False)]
        else:                            # P(u) = u, σ(u), P(pred(u))
            mate = u ^ 1
            if mate == end:
                tasks += [mate, u] if forward else [u, mate]
            elif pred[u] < 0:
                raise AssertionError(f"vertex {end} is not on the alternating path of {v}")
            elif forward:
                tasks += [(pred[u], end, True), mate, u]
            else:
                tasks += [u, mate, (pred[u], end, False)]
    return out


# ----------------------------------------------------------------------------- checks

def regular_path_problems(graph: SkewSymmetricGraph, source: int,
                          arcs: Sequence[int]) -> list[str]:
    """Why ``arcs`` is not a regular path ``source → σ(source)``; [] if it is."""
    sequence = [int(a) for a in arcs]
    if not sequence:
        return ["the path is empty"]
    if any(not 0 <= a < graph.num_arcs for a in sequence):
        return ["an arc does not exist"]
    tails, heads = graph.tails, graph.heads
    problems = []
    for step, (a, b) in enumerate(zip(sequence, sequence[1:]), start=1):
        if heads[a] != tails[b]:
            problems.append(f"step {step}: arc {a} ends at {int(heads[a])}, arc {b} starts "
                            f"at {int(tails[b])}")
    if int(tails[sequence[0]]) != source:
        problems.append(f"the path starts at {int(tails[sequence[0]])}, not at {source}")
    if int(heads[sequence[-1]]) != source ^ 1:
        problems.append(f"the path ends at {int(heads[sequence[-1]])}, not at {source ^ 1}")
    inner = [int(heads[a]) >> 1 for a in sequence[:-1]]
    if source >> 1 in inner:
        problems.append("the path passes through the pair of its source again")
    if len(set(inner)) < len(inner):
        problems.append("not regular: a vertex pair {x, σ(x)} is used twice")
    return problems


__all__ = ["SkewSymmetricGraph", "regular_path", "regular_path_problems"]
