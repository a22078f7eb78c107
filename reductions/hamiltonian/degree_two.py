"""The state of the degree-2 reduction while rules 2 and 3 run, and rule 1's layout
(Haythorpe 2016, §7; the rules and how they run are in
:mod:`reductions.hamiltonian.graph_reduction`).

- :class:`ForcedEdges` — the graph being reduced: live edges and degrees on the original
  numbering, an incidence table (CSR), and rule 2 propagated one frontier at a time;
- :class:`ChainEnds` — the outer ends of every path of degree-2 vertices, kept incrementally
  for rule 3 (pointer jumping over a small compressed graph: :func:`ranked_chains`);
- :class:`ChainWalks` — every maximal path of degree-2 vertices in walking order, for rule 1;
- :func:`bounded_unique`, :func:`counting_sort`, :func:`ragged_ranges` — orders made by
  counting over bounded integer keys, not by comparison sorts.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .graphs import list_ranking

SMALL_FRONTIER = 1000
"""Frontiers of rule 2 up to this many vertices are propagated in plain Python (a numpy
round costs a few dozen calls of a few microseconds whatever its size)."""


def bounded_unique(values: np.ndarray, bound: int) -> np.ndarray:
    """Sorted distinct values, all in ``0 .. bound-1``. Many values: marked in a table of
    ``bound`` flags and read back in order (linear); few: sorted (a stable sort, as the
    values come in sorted runs, which it merges), so a small round costs no whole table."""
    if values.size * 8 >= bound:
        seen = np.zeros(bound, dtype=bool)
        seen[values] = True
        return np.flatnonzero(seen)
    values = np.sort(values, kind="stable")
    if values.size:
        values = values[np.concatenate(([True], values[1:] != values[:-1]))]
    return values


def counting_sort(keys: np.ndarray, bound: int, values: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stable counting sort of the integer keys ``0 <= key < bound``, in time linear in
    ``len(keys) + bound``: (start, order, values[order]), where the entries with key k are
    ``order[start[k]:start[k + 1]]`` in their input order.

    Done by scipy's conversion of a sparse matrix from coordinates to rows (CSR), which is a
    counting sort: row = key, column = position, data = value. The columns of a row come out
    increasing and distinct, so scipy has nothing to re-sort or sum."""
    size = keys.size
    rows = sparse.csr_matrix((values, (keys, np.arange(size))), shape=(bound, size))
    return (rows.indptr.astype(np.int64), rows.indices.astype(np.int64),
            rows.data.astype(np.int64, copy=False))


def ragged_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + c)`` for each (s, c)."""
    total = int(counts.sum())
    shift = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    return np.arange(total, dtype=np.int64) + shift


class ForcedEdges:
    """The graph being reduced: live edges and degrees on the original numbering, with an
    incidence table (CSR) to reach the edges of any set of vertices at once."""

    def __init__(self, n: int, edges: np.ndarray, describe):
        m = len(edges)
        self.n, self.edges, self.describe = n, edges, describe
        self.u, self.v = edges[:, 0], edges[:, 1]
        # Incidence i is edge i % m seen from its end u (i < m) or v: sorted by that end.
        self.start, order, self.inc_nbr = counting_sort(
            np.concatenate([self.u, self.v]), n, np.concatenate([self.v, self.u]))
        self.inc_edge = np.where(order < m, order, order - m)
        # Degrees and live marks live in Python buffers with numpy views over them: the
        # vectorised steps use the views, the small rounds of rule 2 (:meth:`_round_small`)
        # index the buffers directly, and both always see the same state.
        self.deg_buffer = array("q", np.diff(self.start).tobytes())
        self.deg = np.frombuffer(self.deg_buffer, dtype=np.int64)
        self.alive_buffer = bytearray(b"\x01" * m)
        self.alive = np.frombuffer(self.alive_buffer, dtype=bool)
        self._lists: tuple | None = None
        self.rounds = self.deleted = 0
        self.new_two = [np.flatnonzero(self.deg == 2)]   # degree-2 vertices not yet seen

    def incidences(self, vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(position in ``vertices``, incidence index) of every incidence of ``vertices``."""
        counts = self.start[vertices + 1] - self.start[vertices]
        return (np.repeat(np.arange(vertices.size), counts),
                ragged_ranges(self.start[vertices], counts))

    def delete(self, dead: np.ndarray) -> tuple[str | None, np.ndarray]:
        """Remove edges; returns (reason there is no cycle, or None; vertices to look at)."""
        self.alive[dead] = False
        self.deleted += dead.size
        touched_ends = np.concatenate([self.u[dead], self.v[dead]])
        np.subtract.at(self.deg, touched_ends, 1)
        touched = bounded_unique(touched_ends, self.n)
        low = touched[self.deg[touched] < 2]
        if low.size:
            return (f"vertex {self.describe(int(low[0]))} is left with degree "
                    f"{self.deg[low[0]]} after removing edges no cycle can use"), touched
        # A vertex that drops to degree 2 changes its neighbours' count of forced edges.
        became2 = touched[self.deg[touched] == 2]
        self.new_two.append(became2)
        _, idx = self.incidences(became2)
        nbrs = self.inc_nbr[idx][self.alive[self.inc_edge[idx]]]
        return None, bounded_unique(np.concatenate([touched, nbrs]), self.n)

    def propagate(self, frontier: np.ndarray) -> str | None:
        """Rule 2 until nothing changes; the reason there is no cycle, or None.

        Rounds are synchronous (each looks at the graph as the previous round left it), so
        their number does not depend on how a round is computed: with numpy over large
        frontiers, in plain Python over small ones (most of the rounds, each a few dozen
        vertices, where numpy's cost per call would dominate)."""
        while frontier.size > SMALL_FRONTIER:
            self.rounds += 1
            big = frontier[self.deg[frontier] > 2]
            at, idx = self.incidences(big)
            e = self.inc_edge[idx]
            live = self.alive[e]
            forced = live & (self.deg[self.inc_nbr[idx]] == 2)
            fcount = np.bincount(at[forced], minlength=big.size)
            if np.any(fcount > 2):
                bad = int(big[np.flatnonzero(fcount > 2)[0]])
                return self._too_many_forced(bad, int(fcount.max()))
            dead = bounded_unique(e[live & ~forced & (fcount == 2)[at]], len(self.edges))
            if dead.size == 0:
                return None
            reason, frontier = self.delete(dead)
            if reason:
                return reason
        return self._propagate_small(sorted(frontier.tolist()))

    def _too_many_forced(self, vertex: int, count: int) -> str:
        return (f"vertex {self.describe(vertex)} has {count} neighbours of degree 2 (each "
                f"of those edges must be on the cycle)")

    def _propagate_small(self, frontier: list[int]) -> str | None:
        """:meth:`propagate` by Python rounds over the buffers (``frontier`` sorted); the
        same rounds, deletions and reasons as the numpy rounds."""
        if self._lists is None:
            self._lists = tuple(array("q", a.tobytes())
                                for a in (self.start, self.inc_nbr, self.inc_edge, self.u,
                                          self.v))
        start, nbr, edge, eu, ev = self._lists
        deg, alive = self.deg_buffer, self.alive_buffer
        while frontier:
            self.rounds += 1
            dead: set[int] = set()
            bad, most = -1, 0
            for x in frontier:
                if deg[x] <= 2:
                    continue
                forced = 0
                others = []
                for i in range(start[x], start[x + 1]):
                    e = edge[i]
                    if alive[e]:
                        if deg[nbr[i]] == 2:
                            forced += 1
                        else:
                            others.append(e)
                if forced > 2:
                    if bad < 0:
                        bad = x
                    most = max(most, forced)
                elif forced == 2 and bad < 0:
                    dead.update(others)
            if bad >= 0:
                return self._too_many_forced(bad, most)
            if not dead:
                return None
            touched: set[int] = set()
            for e in dead:
                alive[e] = 0
                a, b = eu[e], ev[e]
                deg[a] -= 1
                deg[b] -= 1
                touched.add(a)
                touched.add(b)
            self.deleted += len(dead)
            ordered = sorted(touched)
            for x in ordered:
                if deg[x] < 2:
                    return (f"vertex {self.describe(x)} is left with degree {deg[x]} after "
                            f"removing edges no cycle can use")
            became2 = [x for x in ordered if deg[x] == 2]
            self.new_two.append(np.array(became2, dtype=np.int64))
            # Only a vertex next to a new degree-2 vertex can have gained a forced edge
            # (the numpy rounds also look at the touched ones, which yields nothing more).
            around: set[int] = set()
            for x in became2:
                for i in range(start[x], start[x + 1]):
                    if alive[edge[i]]:
                        around.add(nbr[i])
            frontier = sorted(around)
        return None

    def live_neighbours(self, vertices: np.ndarray) -> np.ndarray:
        """``(len, 2)``: the two live neighbours of each degree-2 vertex given."""
        _, idx = self.incidences(vertices)
        return self.inc_nbr[idx][self.alive[self.inc_edge[idx]]].reshape(-1, 2)

    def closing_edges(self, p: np.ndarray, q: np.ndarray, length: np.ndarray) -> np.ndarray:
        """Rule 3: live edges joining the outer ends p, q of a chain (p–chain–q–p would close
        a cycle missing the rest of the graph), unless chain, p and q are all vertices."""
        short = length + 2 < self.n
        p, q = p[short], q[short]
        at, idx = self.incidences(p)                 # the edge p–q, if any, is one of p's
        found = self.inc_edge[idx[self.inc_nbr[idx] == q[at]]]
        return bounded_unique(found[self.alive[found]], len(self.edges))


class ChainEnds:
    """Incremental view of the chains (maximal paths of degree-2 vertices) for rule 3.

    Only chain *ends* are remembered: ``mate[e]`` is the other end of e's chain and
    ``length[e]`` its number of vertices. Vertices that reached degree 2 since the last call
    join old chains only at their ends (an inner chain vertex has no edge to spare), so each
    call ranks a small compressed graph: the new degree-2 vertices, the ends of the old chains
    they touch, and one weighted edge per old chain between its ends.
    """

    def __init__(self, n: int):
        self.was_chain = np.zeros(n, dtype=bool)
        self.mate = np.arange(n, dtype=np.int64)
        self.length = np.ones(n, dtype=np.int64)
        self.pos = np.full(n, -1, dtype=np.int64)

    def update(self, graph: ForcedEdges) -> tuple[np.ndarray, ...] | str:
        """(p, q, length) for every chain that is new or grew since the last call, or the
        reason there is no cycle (a ring of degree-2 vertices)."""
        fresh = bounded_unique(np.concatenate(graph.new_two), graph.n)
        graph.new_two = []
        fresh = fresh[~self.was_chain[fresh]]
        if fresh.size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        nodes, nb, target, head, weight = self._compressed_graph(graph, fresh)
        last, total, converged = rank_half_edges(head, weight)
        if not converged:
            tail = np.repeat(np.arange(nodes.size), 2)
            ring = int(nodes[tail[np.flatnonzero(last[last] != last)[0]]])
            return (f"vertex {graph.describe(ring)} lies on a ring of degree-2 vertices that "
                    f"misses the rest of the graph")
        p, q, length, ends_a, ends_b = ranked_chains(nodes, nb, target, head, weight,
                                                      last, total)
        self.mate[ends_a], self.mate[ends_b] = ends_b, ends_a
        self.length[ends_a] = self.length[ends_b] = length
        self.was_chain[fresh] = True
        return p, q, length

    def _compressed_graph(self, graph: ForcedEdges, fresh: np.ndarray
                          ) -> tuple[np.ndarray, ...]:
        """The small graph this call ranks: ``nodes`` (sorted: the fresh degree-2 vertices,
        and the ends of the old chains they touch), their two live neighbours ``nb``
        (k, 2), and per half-edge (node, slot) its ``target`` vertex (k, 2: the neighbour,
        the old chain's other end across it, or −1 if it leaves the chains), the ``head``
        (the target's position in ``nodes``, or −1; flat, 2k) and the ``weight`` (edges
        it stands for; flat, 2k)."""
        chain = graph.deg == 2
        is_fresh = np.zeros(graph.n, dtype=bool)
        is_fresh[fresh] = True
        fresh_nb = graph.live_neighbours(fresh)
        touched_old = bounded_unique(fresh_nb[self.was_chain[fresh_nb]], graph.n)
        if touched_old.size:
            nodes = bounded_unique(np.concatenate([fresh, touched_old, self.mate[touched_old]]),
                            graph.n)
            nb = graph.live_neighbours(nodes)                      # (k, 2)
        else:                                  # e.g. the first call: no old chain to join
            nodes, nb = fresh, fresh_nb
        self.pos[nodes] = np.arange(nodes.size)
        old = self.was_chain[nodes][:, None]
        inside = old & self.was_chain[nb]                          # edge inside an old chain
        real = chain[nb] & (is_fresh[nodes][:, None] | is_fresh[nb])
        target = np.where(inside, self.mate[nodes][:, None], np.where(real, nb, -1))
        weight = np.where(inside, self.length[nodes][:, None] - 1, 1)
        head = np.where(target >= 0, self.pos[np.maximum(target, 0)], -1).ravel()
        self.pos[nodes] = -1
        return nodes, nb, target, head, weight.ravel()


def rank_half_edges(head: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, ...]:
    """List ranking along the compressed chains: half-edge 2i + slot (node i's slot) is
    followed by the half-edge that leaves its head on the other side; returns
    :func:`list_ranking`'s (last, total, converged) (not converged: a ring)."""
    k = head.size // 2
    tail = np.repeat(np.arange(k), 2)
    exists = head >= 0
    h = np.maximum(head, 0)
    head_slots = head.reshape(k, 2)
    back = (head_slots[h, 1] == tail).astype(np.int64)        # head's slot back to tail
    nxt_slot = 2 * h + 1 - back
    has_next = exists & (head_slots[h, 1 - back] >= 0)
    succ = np.where(has_next, nxt_slot, np.arange(2 * k))
    dist = np.where(has_next, weight[nxt_slot], 0)
    return list_ranking(succ, dist)


def ranked_chains(nodes: np.ndarray, nb: np.ndarray, target: np.ndarray, head: np.ndarray,
                   weight: np.ndarray, last: np.ndarray, total: np.ndarray
                   ) -> tuple[np.ndarray, ...]:
    """The chains read from the ranking (see :meth:`ChainEnds._compressed_graph` for the
    arguments): (p, q, length) as :meth:`ChainEnds.update` returns them, and each chain's
    two ends (ends_a, ends_b, equal for a chain of one vertex)."""
    k = nodes.size
    tail = np.repeat(np.arange(k), 2)
    exists = head >= 0
    # Chain ends: nodes with at most one compressed neighbour; each path is read from
    # the half-edge leaving its smaller end, a lone node is a chain of its own.
    links = exists.reshape(k, 2).sum(axis=1)
    leaving = exists & (links[tail] == 1)
    start = nodes[tail[leaving]]
    end = nodes[head[last[leaving]]]
    keep = start < end
    s, e = start[keep], end[keep]
    steps = weight[leaving][keep] + total[leaving][keep]
    lone = nodes[links == 0]
    outer_of = np.where(target.reshape(k, 2) >= 0, -1, nb).max(axis=1)    # one outer nb
    node_pos = np.searchsorted(nodes, np.concatenate([s, e]))
    p, q = outer_of[node_pos[:s.size]], outer_of[node_pos[s.size:]]
    lone_nb = nb[np.searchsorted(nodes, lone)]
    p = np.concatenate([p, lone_nb[:, 0]])
    q = np.concatenate([q, lone_nb[:, 1]])
    length = np.concatenate([steps + 1, np.ones(lone.size, dtype=np.int64)])
    return p, q, length, np.concatenate([s, lone]), np.concatenate([e, lone])


@dataclass(frozen=True)
class ChainWalks:
    """Maximal paths ("chains") of degree-2 vertices, by list ranking on half-edges.

    A half-edge a→b joins two chain vertices; it continues as b→c, c being the other chain
    neighbour of b. Pointer jumping (O(log length) vectorised passes) gives each half-edge
    ``dist``, the number of steps to the end of its path, and ``end``, the vertex there.
    """

    chain_vertices: np.ndarray
    outer_nb: np.ndarray      # (n, 2): non-chain neighbours of chain vertices, −1 padded
    tail: np.ndarray          # half-edges: tail, head, dist, end
    head: np.ndarray
    dist: np.ndarray
    end: np.ndarray
    reverse: np.ndarray       # index of the opposite half-edge

    @staticmethod
    def find(graph: ForcedEdges) -> "ChainWalks | str":
        n = graph.n
        chain = graph.deg == 2
        cv = np.flatnonzero(chain)
        k = cv.size
        nb = graph.live_neighbours(cv)
        is_chain_nb = chain[nb]
        outer_nb = np.full((n, 2), -1, dtype=np.int64)
        outer_nb[cv] = np.where(is_chain_nb, -1, nb)
        # Chain vertices renumbered 0..k-1; half-edge 2i+s goes from chain vertex i to its
        # s-th neighbour (a dummy, ending at once, when that neighbour is not in a chain).
        pos = np.full(n, -1, dtype=np.int64)
        pos[cv] = np.arange(k)
        nbpos = np.where(is_chain_nb, pos[nb], -1)
        tail = np.repeat(np.arange(k), 2)
        head = nbpos.ravel()
        real = head >= 0
        h = np.where(real, head, 0)
        back_slot = (nbpos[h, 1] == tail).astype(np.int64)    # head's slot back to tail
        reverse = np.where(real, 2 * h + back_slot, -1)
        nxt = np.where(real, nbpos[h, 1 - back_slot], -1)
        own = np.arange(2 * k, dtype=np.int64)
        succ = np.where(nxt >= 0, 2 * h + 1 - back_slot, own)
        dist = (nxt >= 0).astype(np.int64)
        succ, dist, converged = list_ranking(succ, dist)
        if not converged:
            ring = int(cv[tail[np.flatnonzero(succ[succ] != succ)[0]]])
            return (f"vertex {graph.describe(ring)} lies on a ring of degree-2 vertices that "
                    f"misses the rest of the graph")
        keep = np.flatnonzero(real)
        end = cv[head[succ[keep]]]
        rank = np.cumsum(real) - 1                          # half-edge → index in keep
        return ChainWalks(cv, outer_nb, cv[tail[keep]], cv[head[keep]], dist[keep], end,
                           rank[reverse[keep]])

    def ordered(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(members, start, outer): chain c is ``members[start[c]:start[c+1]]`` walked from
        its smaller end; ``outer[c]`` the vertices beyond its first and last member."""
        chosen = self.end > self.end[self.reverse]            # walk towards the larger end
        n = self.outer_nb.shape[0]
        # Chains ordered by the vertex they end at (a singleton: itself), each walked from
        # its start (steps 0) to that end; every vertex's slot is computed, no sort needed.
        key_end = np.arange(n, dtype=np.int64)
        steps = np.zeros(n, dtype=np.int64)                   # from the end: the start's
        key_end[self.tail[chosen]] = self.end[chosen]         # is filled in below
        key_end[self.head[chosen]] = self.end[chosen]
        steps[self.head[chosen]] = self.dist[chosen]
        cv = self.chain_vertices
        size = np.bincount(key_end[cv], minlength=n)          # chain length, by its end
        first = np.cumsum(size) - size
        is_head = np.zeros(n, dtype=bool)
        is_head[self.head[chosen]] = True
        # The start is the one vertex of its chain that no chosen half-edge enters.
        slot = first[key_end[cv]] + np.where(is_head[cv],
                                             size[key_end[cv]] - 1 - steps[cv], 0)
        members = np.empty(cv.size, dtype=np.int64)
        members[slot] = cv
        start = np.concatenate([first[size > 0], [members.size]]).astype(np.int64)
        firsts, lasts = members[start[:-1]], members[start[1:] - 1]
        outer = np.stack([self.outer_nb[firsts].max(axis=1),
                          self.outer_nb[lasts].max(axis=1)], axis=1)
        single = firsts == lasts
        outer[single] = self.outer_nb[firsts[single]]
        return members, start, outer
