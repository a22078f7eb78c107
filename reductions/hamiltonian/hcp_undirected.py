"""Directed → undirected Hamiltonian cycle: the 3-split, and Haythorpe's triple trick (§4).

The 3-split. Each directed vertex u becomes a path ``u_in – u_mid – u_out``; each arc u → v
becomes the edge ``u_out – v_in``. With V vertices and A arcs: 3V vertices, 2V + A edges. Ids:
``u_in = 3u``, ``u_mid = 3u + 1``, ``u_out = 3u + 2`` (the paper's 3i−2, 3i−1, 3i, 1-based).
For the blank Sudoku graph: 18N³+15N²+6N+6 vertices, 31N³+12N²+6N+6 edges.

Why tours and cycles correspond. ``u_mid`` has degree 2, so a tour runs ``u_in, u_mid, u_out``
consecutively; ``u_in``'s other neighbours are out-vertices and ``u_out``'s are in-vertices, so
read in the right direction every vertex is entered at ``in`` and left at ``out``, along an edge
that is an arc. Hamiltonian cycles of the digraph and (undirected) tours of the split graph are
in one-to-one correspondence.

The triple trick. In the Sudoku graph ``x[i,j,k,1]`` touches only ``x[i,j,k,0]`` and
``x[i,j,k,2]`` (arcs both ways; the same for y). Its middle vertex can be dropped, joining
``x1_in – x1_out`` directly: 2N³ fewer vertices and edges (16N³+15N²+6N+6 / 29N³+12N²+6N+6).
Still correct: if a tour skipped the edge ``x1_in – x1_out``, then ``x1_in`` (neighbours
``x0_out``, ``x2_out`` besides ``x1_out``) and ``x1_out`` (``x0_in``, ``x2_in``) would both use
their two other edges, closing the 8-cycle ``x0_in x0_mid x0_out x1_in x2_out x2_mid x2_in
x1_out`` — not a tour of the whole graph. So every tour still walks ``x1_in, x1_out``
consecutively, entered from an out-vertex, and the reading above applies unchanged.
:func:`split_graph` accepts any set of such "middle" vertices and checks that condition.

Vertex ids with dropped middles: the 3V ids in the order above with the dropped ones removed
and the rest renumbered consecutively (``in_id``, ``mid_id``, ``out_id`` arrays; −1 = none).
Forward map :func:`tour_from_cycle`; back :func:`directed_cycle_from_tour`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .graphs import hamiltonian_cycle_problem
from .hcp import HaythorpeGraph, HcpError

IN, MID, OUT = 0, 1, 2
ROLE_NAMES = ("in", "mid", "out")


@dataclass(frozen=True)
class SplitGraph:
    """An undirected graph made from a digraph by the 3-split (optionally without some mids).

    ``in_id`` / ``mid_id`` / ``out_id``: the undirected vertices of each directed vertex
    (``mid_id`` −1 where dropped); ``owner[w]`` / ``role[w]``: the directed vertex and role
    (in/mid/out) of undirected vertex w (computed on first use: only decoding needs them).
    """

    num_vertices: int
    edges: np.ndarray
    directed_vertices: int
    arcs: np.ndarray
    in_id: np.ndarray
    mid_id: np.ndarray
    out_id: np.ndarray

    @property
    def num_edges(self) -> int:
        return len(self.edges)

    @functools.cached_property
    def owner(self) -> np.ndarray:
        counts = 2 + (self.mid_id >= 0)
        return np.repeat(np.arange(self.directed_vertices, dtype=np.int64), counts)

    @functools.cached_property
    def role(self) -> np.ndarray:
        roles = np.empty(self.num_vertices, dtype=np.int64)
        roles[self.in_id] = IN
        roles[self.out_id] = OUT
        roles[self.mid_id[self.mid_id >= 0]] = MID
        return roles


def split_graph(num_vertices: int, arcs: np.ndarray, drop_mid=None) -> SplitGraph:
    """The 3-split of a digraph; the vertices in ``drop_mid`` lose their middle vertex.

    Each vertex u in ``drop_mid`` must have all its arcs to and from two vertices p, q that
    keep their middles (the condition the correctness argument needs).
    """
    arcs = np.asarray(arcs, dtype=np.int64).reshape(-1, 2)
    present = np.ones((num_vertices, 3), dtype=bool)
    if drop_mid is not None and len(drop_mid):
        drop_mid = np.asarray(drop_mid, dtype=np.int64)
        _check_droppable(num_vertices, arcs, drop_mid)
        present[drop_mid, MID] = False
    ids = np.cumsum(present.ravel()).reshape(num_vertices, 3) - 1
    ids[~present] = -1
    in_id, mid_id, out_id = ids[:, IN].copy(), ids[:, MID].copy(), ids[:, OUT].copy()
    del ids
    total = int(present.sum())
    # Per directed vertex its internal edges, in order: in–mid and mid–out, or in–out alone.
    has_mid = mid_id >= 0
    m_in = len(in_id) + int(has_mid.sum())
    edges = np.empty((m_in + len(arcs), 2), dtype=np.int64)
    first = np.where(has_mid, mid_id, out_id)
    slots = np.cumsum(1 + has_mid) - (1 + has_mid)          # first internal edge of each u
    edges[slots, 0], edges[slots, 1] = in_id, first
    second = slots[has_mid] + 1
    edges[second, 0], edges[second, 1] = mid_id[has_mid], out_id[has_mid]
    edges[m_in:, 0] = out_id[arcs[:, 0]]
    edges[m_in:, 1] = in_id[arcs[:, 1]]
    return SplitGraph(total, edges, num_vertices, arcs, in_id, mid_id, out_id)


def _check_droppable(num_vertices: int, arcs: np.ndarray, drop_mid: np.ndarray) -> None:
    dropped = np.zeros(num_vertices, dtype=bool)
    dropped[drop_mid] = True
    ends = np.concatenate([arcs, arcs[:, ::-1]])           # (vertex, neighbour) both ways
    at = ends[dropped[ends[:, 0]]]
    if np.any(dropped[at[:, 1]]):
        raise ValueError("a vertex without middle is adjacent to another one")
    keys = np.sort(at[:, 0] * num_vertices + at[:, 1])
    pairs = keys[np.concatenate([[True], keys[1:] != keys[:-1]])]   # distinct (vertex, nbr)
    all_counts = np.bincount(pairs // num_vertices, minlength=num_vertices)
    counts = all_counts[drop_mid]
    if np.any(counts != 2):
        bad = int(drop_mid[np.flatnonzero(counts != 2)[0]])
        raise ValueError(f"vertex {bad} has {int(all_counts[bad])} neighbours; dropping its "
                         f"middle needs exactly two")


def haythorpe_split(graph: HaythorpeGraph, triple: bool = False) -> SplitGraph:
    """The undirected graph of a Haythorpe digraph; ``triple`` applies the triple trick to
    every ``x[i,j,k,1]`` and ``y[i,j,k,1]``."""
    drop = None
    if triple:
        L = graph.layout
        drop = np.concatenate([L.offset[kind] + 3 * np.arange(graph.size**3) + 1
                               for kind in ("x", "y")])
    return split_graph(graph.num_vertices, graph.arcs, drop)


def tour_from_cycle(split: SplitGraph, cycle) -> np.ndarray:
    """Forward map: a directed Hamiltonian cycle → its tour of the split graph."""
    cycle = np.asarray(cycle, dtype=np.int64)
    tour = np.stack([split.in_id[cycle], split.mid_id[cycle], split.out_id[cycle]],
                    axis=1).ravel()
    return tour[tour >= 0]


def describe_split_vertex(split: SplitGraph, vertex: int, name=str) -> str:
    """E.g. ``x[1,1,2,1].in`` (``name`` names directed vertices)."""
    return f"{name(int(split.owner[vertex]))}.{ROLE_NAMES[int(split.role[vertex])]}"


def directed_cycle_from_tour(split: SplitGraph, tour, name=str) -> np.ndarray:
    """Back map: a tour of the split graph (any start, either direction) → the directed
    Hamiltonian cycle it walks. Checks the tour first; :class:`HcpError` names the problem."""
    tour = np.asarray(tour, dtype=np.int64)
    problem = hamiltonian_cycle_problem(split.num_vertices, split.edges, tour, False,
                                        lambda w: describe_split_vertex(split, w, name))
    if problem:
        raise HcpError(f"not a Hamiltonian cycle of the undirected graph: {problem}")
    owner, role = split.owner[tour], split.role[tour]
    first_in = int(np.flatnonzero(role == IN)[0])
    after = (first_in + 1) % tour.size
    if owner[after] != owner[first_in]:                 # walked out → in: read it backwards
        tour = tour[::-1]
        owner, role = owner[::-1], role[::-1]
        first_in = int(np.flatnonzero(role == IN)[0])
    tour = np.roll(tour, -first_in)
    owner, role = np.roll(owner, -first_in), np.roll(role, -first_in)
    starts = np.flatnonzero(role == IN)
    same = owner[1:] == owner[:-1]
    rising = role[1:] > role[:-1]
    # Inside a vertex's run roles rise with the same owner; a new run starts at an in-vertex
    # right after an out-vertex.
    new_run = role[1:] == IN
    ok = np.where(new_run, role[:-1] == OUT, same & rising) & (role[-1] == OUT)
    if not np.all(ok) or starts.size != split.directed_vertices:
        p = int(np.flatnonzero(~ok)[0]) if not np.all(ok) else 0
        raise HcpError(
            f"the tour does not walk every vertex as in → out: at "
            f"{describe_split_vertex(split, int(tour[p]), name)} → "
            f"{describe_split_vertex(split, int(tour[(p + 1) % tour.size]), name)}")
    return owner[starts]
