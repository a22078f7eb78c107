"""Degree-2 reduction of an undirected Hamiltonian-cycle instance (Haythorpe 2016, §7).

Both edges of a degree-2 vertex must be on every Hamiltonian cycle ("forced"). The paper's
two rules, applied until nothing changes:

1. two adjacent degree-2 vertices merge into one (they are walked consecutively);
2. a vertex with two degree-2 neighbours loses all its other edges (its two cycle edges are
   already known); this makes new degree-2 vertices, and so on.

and one more, on by default (``closing=False`` gives the paper's rules alone):

3. a maximal path of degree-2 vertices with outer neighbours p and q is walked p → … → q by
   every Hamiltonian cycle, so an edge p–q would close a cycle that misses the rest of the
   graph: it is removed (unless the path, p and q are all the vertices). On the 3-split of a
   digraph this is the familiar "a forced arc u→v rules out v→u" and more.

The same facts prove that no Hamiltonian cycle exists when: a vertex has degree < 2; a vertex
has three or more degree-2 neighbours (three forced edges); degree-2 vertices close a ring that
misses vertices; the remaining graph is disconnected. When the remaining edges form one cycle
through every vertex, the reduction has *found* the Hamiltonian cycle (status ``solved``).

How it runs (numpy, no Python object per vertex or edge). Rule 2 is propagated on the original
numbering one frontier at a time (vertices whose degree changed, and neighbours of vertices
that just reached degree 2), so each round costs time proportional to its frontier. Rule 3
needs the outer ends of every path of degree-2 vertices; they are kept incrementally
(:class:`ChainEnds`: only path ends are remembered, and new degree-2 vertices can only extend
paths at their ends), each update ranked by pointer jumping over a small compressed graph.
Rules 2 and 3 alternate until neither applies; then rule 1 is applied at once, on first use of
the reduced graph (its sizes are counted without it): every maximal path of degree-2 vertices
becomes one vertex (a *group*), its members ordered by list ranking. Where vertices or edges
are put in order, the keys are bounded integers and the order is made by counting (the
incidence table is a counting sort, chains and groups are laid out by computed slots), not by
comparison sorts.
The fixpoint does not depend on the order: deleting an edge never makes another deletion
wrong, and merging leaves degrees unchanged.

Size: at most the input; every reduced vertex is a group of original vertices (a path, in
walking order), every reduced edge is an original edge between the ends of two groups. The
result has exactly the same Hamiltonian cycles (tested against brute force on random graphs):
rules 2 and 3 remove only edges no cycle uses, rule 1 only contracts paths every cycle walks.
:func:`expand_tour` maps a tour of the reduced graph back to the original graph (each group
walked in the direction its end edges require, then checked); :func:`compress_tour` is the
forward map.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .degree_two import ChainEnds, ChainWalks, ForcedEdges, bounded_unique, ragged_ranges
from .graphs import component_labels, hamiltonian_cycle_problem
from .hcp import HcpError


class ReductionStatus(enum.StrEnum):
    """What the degree-2 reduction ended with."""

    REDUCED = "reduced"
    NO_CYCLE = "no cycle"
    SOLVED = "solved"


REDUCED, NO_CYCLE, SOLVED = ReductionStatus


@dataclass(frozen=True)
class ReducedGraph:
    """Rule 1's output: the reduced graph and its groups (see :class:`Reduction`)."""

    edges: np.ndarray
    group_start: np.ndarray
    members: np.ndarray
    end_groups: np.ndarray


class _Contraction:
    """Rule 1, done on first use: a solver that searches the original graph less the deleted
    edges (the shared SAT model) never needs the reduced graph, and contracting the paths
    costs as much as a quarter of the whole reduction of a 9×9 puzzle. The graph being
    reduced is kept until then, and let go once contracted."""

    def __init__(self, graph: "ForcedEdges | Callable[[], ForcedEdges] | None" = None,
                 reduced: ReducedGraph | None = None):
        self._graph, self._reduced = graph, reduced

    def reduced(self) -> ReducedGraph:
        if self._reduced is None:
            graph = self._graph() if callable(self._graph) else self._graph
            self._reduced, self._graph = _contract(graph), None
        return self._reduced


@dataclass(frozen=True)
class Reduction:
    """Outcome of :func:`reduce_degree_two`.

    ``status``: ``reduced`` (a smaller equivalent graph), ``no cycle`` (proved: ``reason``
    says why; the graph fields are then empty) or ``solved`` (the remaining edges are one
    Hamiltonian cycle, ``forced_tour``; the reduced graph is then a triangle of three groups).
    Group g is ``members[group_start[g]:group_start[g+1]]``, a path in walking order;
    ``end_groups[g]`` are the groups adjacent to its first and last member (−1 for a single
    vertex). ``alive`` (reduced or solved): bool mask over ``original_edges`` of the edges
    the reduction kept (the paths inside groups and the edges the reduced graph stands for);
    every other edge is on no Hamiltonian cycle of the original graph. The sizes are known at
    once; the reduced graph itself (``edges``, the groups) is built on first use.
    """

    status: str
    reason: str | None
    num_vertices: int
    num_edges: int
    contraction: _Contraction = field(repr=False, compare=False)
    original_vertices: int
    original_edges: np.ndarray
    rounds: int = 0
    deleted_edges: int = 0
    forced_tour: np.ndarray | None = None
    alive: np.ndarray | None = None

    @property
    def infeasible(self) -> bool:
        return self.status == NO_CYCLE

    @property
    def edges(self) -> np.ndarray:
        return self.contraction.reduced().edges

    @property
    def group_start(self) -> np.ndarray:
        return self.contraction.reduced().group_start

    @property
    def members(self) -> np.ndarray:
        return self.contraction.reduced().members

    @property
    def end_groups(self) -> np.ndarray:
        return self.contraction.reduced().end_groups

    def group(self, g: int) -> np.ndarray:
        return self.members[self.group_start[g]:self.group_start[g + 1]]

    def group_of(self) -> np.ndarray:
        """Array: original vertex → its reduced vertex."""
        out = np.empty(self.original_vertices, dtype=np.int64)
        out[self.members] = np.repeat(np.arange(self.num_vertices), np.diff(self.group_start))
        return out


def _no_cycle(reason: str, n: int, edges: np.ndarray, rounds: int = 0,
              deleted: int = 0) -> Reduction:
    empty = np.zeros((0, 2), dtype=np.int64)
    nothing = ReducedGraph(empty, np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                           empty)
    return Reduction(NO_CYCLE, reason, 0, 0, _Contraction(reduced=nothing), n, edges, rounds,
                     deleted)


def reduce_degree_two(num_vertices: int, edges: np.ndarray, closing: bool = True,
                      describe=str) -> Reduction:
    """Apply the rules to a fixpoint (see the module docstring).

    ``edges``: ``(m, 2)`` array of a simple undirected graph (no loops, no repeated edges).
    ``closing`` adds rule 3 (not in the paper): an edge joining the two outer ends of a
    maximal path of degree-2 vertices is removed, unless that path and its ends are the whole
    graph. ``describe(vertex)`` names vertices in the reason given for "no cycle".
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    n = num_vertices
    graph = ForcedEdges(n, edges, describe)

    def no_cycle(reason: str) -> Reduction:
        return _no_cycle(reason, n, edges, graph.rounds, graph.deleted)

    low = np.flatnonzero(graph.deg < 2)
    if low.size:
        return no_cycle(f"vertex {describe(int(low[0]))} has degree {graph.deg[low[0]]}")
    frontier = np.arange(n, dtype=np.int64)
    chains = ChainEnds(n)
    while True:
        reason = graph.propagate(frontier)
        if reason:
            return no_cycle(reason)
        if np.all(graph.deg == 2):
            break
        grown = chains.update(graph)
        if isinstance(grown, str):
            return no_cycle(grown)
        dead = graph.closing_edges(*grown) if closing else np.zeros(0, dtype=np.int64)
        if dead.size == 0:
            break
        reason, frontier = graph.delete(dead)
        if reason:
            return no_cycle(reason)
    keep = np.flatnonzero(graph.alive)
    labels = component_labels(n, graph.u[keep], graph.v[keep])
    pieces = bounded_unique(labels, n).size
    if pieces > 1:
        return no_cycle(f"the graph falls apart into {pieces} pieces once edges no cycle "
                        f"can use are removed")
    if np.all(graph.deg == 2):
        return _solved(graph)
    # Sizes of the reduced graph without building it: in a connected graph that is not one
    # cycle the chains are paths, so each live edge between two degree-2 vertices lies inside
    # a chain and merges two of its vertices; every other live edge joins two groups.
    inner = int(np.count_nonzero(graph.alive & (graph.deg[graph.u] == 2)
                                 & (graph.deg[graph.v] == 2)))
    return Reduction(REDUCED, None, n - inner, keep.size - inner, _Contraction(graph), n,
                     graph.edges, graph.rounds, graph.deleted, alive=graph.alive.copy())


def reduction_from_mask(num_vertices: int, edges: np.ndarray, alive: np.ndarray, *,
                        deleted: int, describe=str) -> Reduction:
    """The ``reduced`` outcome of :func:`reduce_degree_two` for the kept edges ``alive``
    when another algorithm has found its fixpoint (one that proved a reduced graph: every
    vertex of degree ≥ 2, connected, not one cycle): the same sizes, counted here, and the
    same reduced graph, contracted on first use. ``rounds`` is 0: no rounds were run."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    keep = np.flatnonzero(alive)
    deg = np.bincount(edges[keep].ravel(), minlength=num_vertices)
    inner = int(np.count_nonzero((deg[edges[keep, 0]] == 2) & (deg[edges[keep, 1]] == 2)))

    def graph() -> ForcedEdges:
        forced = ForcedEdges(num_vertices, edges, describe)
        forced.alive[:] = alive
        forced.deg[:] = deg
        return forced

    return Reduction(REDUCED, None, num_vertices - inner, keep.size - inner,
                     _Contraction(graph), num_vertices, edges, 0, deleted,
                     alive=np.array(alive, dtype=bool))


def _contract(graph: ForcedEdges) -> ReducedGraph:
    """Rule 1 at once: each chain becomes one vertex; groups numbered by smallest member."""
    walks = ChainWalks.find(graph)
    if isinstance(walks, str):
        raise AssertionError(f"a ring of degree-2 vertices in a connected graph: {walks}")
    chain_members, chain_start, chain_outer = walks.ordered()
    n = graph.n
    chain = graph.deg == 2
    singles = np.flatnonzero(~chain)
    chain_sizes = np.diff(chain_start)
    chain_min = (np.minimum.reduceat(chain_members, chain_start[:-1])
                 if chain_members.size else chain_members)
    keys = np.concatenate([chain_min, singles])
    sizes = np.concatenate([chain_sizes, np.ones(singles.size, dtype=np.int64)])
    block_start = np.cumsum(sizes) - sizes
    pool = np.concatenate([chain_members, singles])
    # The keys are distinct vertex ids: their sorting permutation is read off a table.
    slot_of = np.full(n, -1, dtype=np.int64)
    slot_of[keys] = np.arange(keys.size)
    rank = slot_of[slot_of >= 0]
    counts = sizes[rank]
    members = pool[ragged_ranges(block_start[rank], counts)]
    group_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    num_groups = rank.size
    group_of = np.empty(n, dtype=np.int64)
    group_of[members] = np.repeat(np.arange(num_groups), counts)
    live = np.flatnonzero(graph.alive)
    u, v = graph.u[live], graph.v[live]
    external = group_of[u] != group_of[v]
    red_edges = np.stack([group_of[u[external]], group_of[v[external]]], axis=1)
    end_groups = np.full((num_groups, 2), -1, dtype=np.int64)
    position = np.empty(num_groups, dtype=np.int64)
    position[rank] = np.arange(num_groups)
    long = chain_sizes > 1
    end_groups[position[np.flatnonzero(long)]] = group_of[chain_outer[long]]
    return ReducedGraph(red_edges, group_start, members, end_groups)


def _solved(graph: ForcedEdges) -> Reduction:
    """Every vertex has degree 2 and the graph is connected: it is one Hamiltonian cycle.
    The reduced graph is a triangle of three consecutive stretches of it."""
    n = graph.n
    nbrs = graph.live_neighbours(np.arange(n, dtype=np.int64)).tolist()
    tour = np.empty(n, dtype=np.int64)
    prev, cur = -1, 0
    for p in range(n):
        tour[p] = cur
        a, b = nbrs[cur]
        prev, cur = cur, (a if a != prev else b)
    group_start = np.array([0, n // 3, 2 * n // 3, n], dtype=np.int64)
    red_edges = np.array([[0, 1], [1, 2], [2, 0]], dtype=np.int64)
    end_groups = np.array([[2, 1], [0, 2], [1, 0]], dtype=np.int64)
    reduced = ReducedGraph(red_edges, group_start, tour.copy(), end_groups)
    return Reduction(SOLVED, None, 3, 3, _Contraction(reduced=reduced), n,
                     graph.edges, graph.rounds, graph.deleted, forced_tour=tour,
                     alive=graph.alive.copy())


def expand_tour(reduction: Reduction, tour, *, check_expanded: bool = True) -> np.ndarray:
    """A tour of the reduced graph → the tour of the original graph it stands for (checked;
    ``check_expanded=False`` leaves the check of the expanded tour to a caller that checks it
    on the original graph anyway)."""
    if reduction.infeasible:
        raise HcpError(f"the reduced graph does not exist: {reduction.reason}")
    tour = np.asarray(tour, dtype=np.int64)
    problem = hamiltonian_cycle_problem(reduction.num_vertices, reduction.edges, tour, False)
    if problem:
        raise HcpError(f"not a Hamiltonian cycle of the reduced graph: {problem}")
    prev = np.roll(tour, 1)
    forward = reduction.end_groups[tour, 0] == prev
    starts = reduction.group_start[tour]
    counts = reduction.group_start[tour + 1] - starts
    offsets = ragged_ranges(np.zeros(tour.size, dtype=np.int64), counts)
    within = np.where(np.repeat(forward, counts), offsets,
                      np.repeat(counts - 1, counts) - offsets)
    full = reduction.members[np.repeat(starts, counts) + within]
    if not check_expanded:
        return full
    problem = hamiltonian_cycle_problem(reduction.original_vertices, reduction.original_edges,
                                        full, False)
    if problem:
        raise HcpError(f"the expanded tour is not a Hamiltonian cycle of the original graph: "
                       f"{problem}")
    return full


def compress_tour(reduction: Reduction, tour) -> np.ndarray:
    """Forward map: a Hamiltonian cycle of the original graph → the reduced graph's tour
    (every cycle survives the reduction, and walks each group consecutively)."""
    if reduction.infeasible:
        raise HcpError(f"the graph has no Hamiltonian cycle: {reduction.reason}")
    groups = reduction.group_of()[np.asarray(tour, dtype=np.int64)]
    change = groups != np.roll(groups, 1)
    if not change.any():
        raise HcpError("the tour lies inside one group")
    first = int(np.flatnonzero(change)[0])
    groups = np.roll(groups, -first)
    change = np.roll(change, -first)
    reduced = groups[change]
    problem = hamiltonian_cycle_problem(reduction.num_vertices, reduction.edges, reduced,
                                        False)
    if problem:
        raise HcpError(f"the tour does not survive the reduction: {problem}")
    return reduced

