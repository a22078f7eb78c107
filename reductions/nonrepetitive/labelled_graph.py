"""Edge-labelled (multi)graphs, directed or undirected, held as three integer arrays.

A :class:`LabelledGraph` has vertices ``0..num_vertices-1`` and edges ``i`` given by
``tails[i]``, ``heads[i]``, ``labels[i]`` (numpy int64 arrays), so that transforms such as
``nr(G)`` (``reductions.nonrepetitive.nr_graph``) work on whole arrays and handle millions of edges.
Parallel edges and self-loops are allowed. Vertices and labels carry optional names: any
hashable tokens (strings in files) mapped to consecutive integers in first-seen order by
:meth:`LabelledGraph.from_edges`; without names a vertex or label is called by its number.

*Arcs.* A path walks along arcs. In a directed graph arc ``a`` is edge ``a``. In an undirected
graph with ``m`` edges there are ``2m`` arcs: arc ``a < m`` is edge ``a`` from tail to head,
arc ``m + a`` is edge ``a`` backwards (:meth:`LabelledGraph.arcs`). Results about edges (e.g.
"lies on a nonrepetitive cycle") are reported per edge; paths are lists of arc indices.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Hashable, Iterable, Sequence

import numpy as np

from ..errors import UserError


class GraphError(UserError):
    """A graph that is malformed, or a vertex or label that it does not have."""


@dataclass(frozen=True)
class Arcs:
    """The arcs of a graph: ``tails``, ``heads``, ``labels`` and the ``edge`` each arc walks."""

    tails: np.ndarray
    heads: np.ndarray
    labels: np.ndarray
    edge: np.ndarray

    def __len__(self) -> int:
        return len(self.tails)


@dataclass(frozen=True, eq=False)
class LabelledGraph:
    """An edge-labelled multigraph; see the module docstring."""

    num_vertices: int
    tails: np.ndarray
    heads: np.ndarray
    labels: np.ndarray
    directed: bool = True
    vertex_names: tuple[Hashable, ...] | None = None
    label_names: tuple[Hashable, ...] | None = None

    def __post_init__(self) -> None:
        arrays = [np.ascontiguousarray(a, dtype=np.int64).reshape(-1)
                  for a in (self.tails, self.heads, self.labels)]
        if not (len(arrays[0]) == len(arrays[1]) == len(arrays[2])):
            raise GraphError(f"tails, heads and labels differ in length: "
                             f"{len(arrays[0])}, {len(arrays[1])}, {len(arrays[2])}")
        for name, array in zip(("tails", "heads", "labels"), arrays):
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        n = int(self.num_vertices)
        if n < 0:
            raise GraphError(f"negative vertex count {n}")
        object.__setattr__(self, "num_vertices", n)
        if len(self.tails):
            low = min(int(self.tails.min()), int(self.heads.min()))
            high = max(int(self.tails.max()), int(self.heads.max()))
            if low < 0 or high >= n:
                raise GraphError(f"an edge end is outside the vertices 0..{n - 1}")
            if int(self.labels.min()) < 0:
                raise GraphError("labels must be non-negative integers")
            if self.label_names is not None and int(self.labels.max()) >= len(self.label_names):
                raise GraphError(f"label {int(self.labels.max())} has no name "
                                 f"({len(self.label_names)} label names given)")
        if self.vertex_names is not None:
            names = tuple(self.vertex_names)
            if len(names) != n:
                raise GraphError(f"{len(names)} vertex names for {n} vertices")
            object.__setattr__(self, "vertex_names", names)
        if self.label_names is not None:
            object.__setattr__(self, "label_names", tuple(self.label_names))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_edges(cls, edges: Iterable[tuple[Hashable, Hashable, Hashable]],
                   directed: bool = True, vertices: Iterable[Hashable] = (),
                   labels: Iterable[Hashable] = ()) -> "LabelledGraph":
        """A graph from ``(tail, head, label)`` triples of hashable names.

        Vertices and labels are numbered in first-seen order: first the ``vertices`` and
        ``labels`` given (e.g. isolated vertices, or to fix label numbers), then as the edges
        mention them.
        """
        vertex_ids: dict[Hashable, int] = {}
        label_ids: dict[Hashable, int] = {}
        for v in vertices:
            vertex_ids.setdefault(v, len(vertex_ids))
        for x in labels:
            label_ids.setdefault(x, len(label_ids))
        tails, heads, labs = [], [], []
        for tail, head, label in edges:
            tails.append(vertex_ids.setdefault(tail, len(vertex_ids)))
            heads.append(vertex_ids.setdefault(head, len(vertex_ids)))
            labs.append(label_ids.setdefault(label, len(label_ids)))
        return cls(len(vertex_ids), np.array(tails, dtype=np.int64),
                   np.array(heads, dtype=np.int64), np.array(labs, dtype=np.int64),
                   directed, tuple(vertex_ids), tuple(label_ids))

    # ------------------------------------------------------------------ sizes and names
    @property
    def num_edges(self) -> int:
        return len(self.tails)

    @property
    def num_labels(self) -> int:
        """Label ids run over ``0..num_labels-1`` (named labels count even if unused)."""
        if self.label_names is not None:
            return len(self.label_names)
        return int(self.labels.max()) + 1 if len(self.labels) else 0

    def vertex_name(self, v: int) -> Hashable:
        return self.vertex_names[v] if self.vertex_names is not None else v

    def label_name(self, x: int) -> Hashable:
        return self.label_names[x] if self.label_names is not None else x

    @cached_property
    def _vertex_index(self) -> dict[Hashable, int]:
        names = self.vertex_names if self.vertex_names is not None else range(self.num_vertices)
        return {name: i for i, name in enumerate(names)}

    @cached_property
    def _label_index(self) -> dict[Hashable, int]:
        names = self.label_names if self.label_names is not None else range(self.num_labels)
        return {name: i for i, name in enumerate(names)}

    def vertex_id(self, name: Hashable) -> int:
        """The number of the vertex called ``name`` (a string of digits also matches an
        unnamed vertex); :class:`GraphError` if there is none."""
        index = self._vertex_index
        if name in index:
            return index[name]
        if self.vertex_names is None and isinstance(name, str) and name.isdigit():
            if int(name) in index:
                return int(name)
        raise GraphError(f"no vertex {name!r} in the graph")

    def label_id(self, name: Hashable) -> int:
        index = self._label_index
        if name in index:
            return index[name]
        if self.label_names is None and isinstance(name, str) and name.isdigit():
            if int(name) in index:
                return int(name)
        raise GraphError(f"no label {name!r} in the graph")

    def edge_names(self, e: int) -> tuple[Hashable, Hashable, Hashable]:
        """Edge ``e`` as ``(tail name, head name, label name)``."""
        return (self.vertex_name(int(self.tails[e])), self.vertex_name(int(self.heads[e])),
                self.label_name(int(self.labels[e])))

    # ------------------------------------------------------------------ arcs
    @cached_property
    def _arcs(self) -> Arcs:
        edge = np.arange(self.num_edges, dtype=np.int64)
        if self.directed:
            return Arcs(self.tails, self.heads, self.labels, edge)
        return Arcs(np.concatenate([self.tails, self.heads]),
                    np.concatenate([self.heads, self.tails]),
                    np.concatenate([self.labels, self.labels]),
                    np.concatenate([edge, edge]))

    def arcs(self) -> Arcs:
        """The arcs a path can walk (see the module docstring)."""
        return self._arcs

    @property
    def num_arcs(self) -> int:
        return self.num_edges if self.directed else 2 * self.num_edges

    def arc_names(self, a: int) -> tuple[Hashable, Hashable, Hashable]:
        arcs = self.arcs()
        return (self.vertex_name(int(arcs.tails[a])), self.vertex_name(int(arcs.heads[a])),
                self.label_name(int(arcs.labels[a])))

    def arcs_between(self, tail: int, head: int) -> list[int]:
        """The arcs from ``tail`` to ``head`` (several in a multigraph)."""
        arcs = self.arcs()
        return np.flatnonzero((arcs.tails == tail) & (arcs.heads == head)).tolist()

    def adjacency(self) -> tuple[list[list[int]], list[list[int]]]:
        """Per vertex, the lists of outgoing and incoming arc indices (for small searches)."""
        arcs = self.arcs()
        outgoing: list[list[int]] = [[] for _ in range(self.num_vertices)]
        incoming: list[list[int]] = [[] for _ in range(self.num_vertices)]
        for a, (t, h) in enumerate(zip(arcs.tails.tolist(), arcs.heads.tolist())):
            outgoing[t].append(a)
            incoming[h].append(a)
        return outgoing, incoming

    def same_as(self, other: "LabelledGraph") -> bool:
        """Same direction, same vertex names, and the same edges in the same order, compared
        by the names' text (numbering may differ, as after a round trip through a file)."""
        def named_edges(g: "LabelledGraph") -> list:
            return [tuple(map(str, g.edge_names(e))) for e in range(g.num_edges)]

        def vertex_set(g: "LabelledGraph") -> set:
            return {str(g.vertex_name(v)) for v in range(g.num_vertices)}

        return (self.directed == other.directed and self.num_vertices == other.num_vertices
                and vertex_set(self) == vertex_set(other)
                and named_edges(self) == named_edges(other))


def random_labelled_graph(num_vertices: int, num_edges: int, num_labels: int,
                          directed: bool = True, seed: int | None = None,
                          self_loops: bool = True) -> LabelledGraph:
    """Uniform random labelled multigraph (numpy, fast for millions of edges): every edge
    picks its ends and label uniformly at random."""
    if num_vertices < 1 and num_edges:
        raise GraphError("edges need at least one vertex")
    if num_labels < 1 and num_edges:
        raise GraphError("edges need at least one label")
    rng = np.random.default_rng(seed)
    tails = rng.integers(0, max(num_vertices, 1), num_edges, dtype=np.int64)
    heads = rng.integers(0, max(num_vertices, 1), num_edges, dtype=np.int64)
    if not self_loops and num_vertices > 1:
        same = tails == heads
        while same.any():
            heads[same] = rng.integers(0, num_vertices, int(same.sum()), dtype=np.int64)
            same = tails == heads
    labels = rng.integers(0, max(num_labels, 1), num_edges, dtype=np.int64)
    return LabelledGraph(num_vertices, tails, heads, labels, directed)


def edge_list(graph: LabelledGraph, arcs: Sequence[int]) -> list[tuple[Hashable, Hashable,
                                                                       Hashable]]:
    """Arcs as named ``(tail, head, label)`` triples, e.g. to print a path."""
    return [graph.arc_names(int(a)) for a in arcs]
