"""The bilocation and bivalue graphs of a candidate state (Eppstein 2005 §3.2 and §3.5) and
what their nonrepetitive walks force, for the rules of :mod:`reductions.rules.chains` and
:mod:`reductions.rules.chain_paths` (the graphs and rules are described there).

**Finding, then explaining** (issue 27). Rules 11–19 ask the same questions of the same two
graphs: which (cell, digit) pairs do the walks from each start force, and which edges lie on
nonrepetitive cycles. :class:`Reach` answers them for every start at once, once per state
(memoised on the state and shared by all nine rules): the *pair graph* has a vertex for
"enter cell v by label x" and one for "leave v by x" — the in- and out-vertices of nr(G)'s
pairs, with the same numbers, and an arc in → out for every other label at v instead of the
Lemma 1 gadget (a vertex has few labels here) — so its reachability between pair vertices and
its strong components are nr(G)'s. One strong-components pass (Tarjan, in reverse topological
order) gives each vertex the union of what every vertex it reaches forces, as bit masks over
(digit, cell): the forced pairs themselves, the candidates their digits take from their
peers, and the other candidates of their cells. A clash is then one AND (a forced pair that
another one blocks), an emptied unit or cell a few shifts over the packed masks
(:mod:`reductions.sudoku.candidates`). Graphs here have at most a few hundred pair vertices (9×9),
so this is plain Python. Only for a start where a rule fires is nr(G) built (:class:`ChainGraph`)
and searched breadth-first for the shortest walks of the witness, exactly as before; the
deductions are the ones the per-start searches gave (tests/rules_reference).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..sudoku.candidates import CandidateState, Layout, bits, cell_name, peer_matrix

NO_PREDECESSOR = -9999


# ----------------------------------------------------------------------------- the graphs

def _bilocation_edges(state: CandidateState) -> list[tuple[int, int, int]]:
    """(cell, cell, digit) with cell < cell, digit 1-based, sorted, each once: two cells that
    are the only places of the digit in some unit."""
    edges = set()
    where = state.where
    for unit in state.lay.unit_masks:
        for d, mask in enumerate(where):
            cells = mask & unit
            if cells.bit_count() == 2:
                low = cells & -cells
                edges.add((low.bit_length() - 1, (cells ^ low).bit_length() - 1, d + 1))
    return sorted(edges)


def _bivalue_cells(state: CandidateState) -> int:
    """The mask of the open cells with exactly two candidates."""
    once = twice = thrice = 0
    for mask in state.where:
        thrice |= twice & mask
        twice |= once & mask
        once |= mask
    return twice & ~thrice & state.open


def _bivalue_edges(state: CandidateState) -> list[tuple[int, int, int]]:
    """(cell, cell, digit), cell < cell, sorted, each once: two bivalue open cells of a
    common unit sharing the digit."""
    bivalue = _bivalue_cells(state)
    edges = set()
    for unit in state.lay.unit_masks:
        mine = unit & bivalue
        if not mine & (mine - 1):
            continue
        for d, mask in enumerate(state.where):
            having = list(bits(mask & mine))
            for i, a in enumerate(having):
                for b in having[i + 1:]:
                    edges.add((a, b, d + 1))
    return sorted(edges)


def bilocation_edges(state: CandidateState) -> np.ndarray:
    """``(m, 3)`` int array of (cell, cell, digit) with cell < cell, digit 1-based, distinct."""
    return _as_array(_bilocation_edges(state))


def bivalue_edges(state: CandidateState) -> np.ndarray:
    """``(m, 3)`` (cell, cell, digit): two bivalue open cells of a common unit sharing digit."""
    return _as_array(_bivalue_edges(state))


def _as_array(edges: list[tuple[int, int, int]]) -> np.ndarray:
    return np.array(edges, dtype=np.int64).reshape(-1, 3)


class ChainGraph:
    """A bilocation or bivalue graph with its nr(G), ready for walks (built only where a rule
    fires, for the witness).

    ``edges`` as from :func:`bilocation_edges`; vertices are the flat cells, labels the
    0-based digits. nr(G) numbering: pair p = (vertex, label) has in-vertex 2p and out-vertex
    2p + 1; nr-arc a < 2m is G's arc a. scipy and :mod:`reductions.nonrepetitive.nr_graph` are
    imported here, on first use: most puzzles never get this far, and the ``rules`` command
    starts without them.
    """

    def __init__(self, state: CandidateState, edges: np.ndarray):
        from scipy.sparse import csr_matrix

        from ..nonrepetitive.labelled_graph import LabelledGraph
        from ..nonrepetitive.nr_graph import nr_graph
        n = state.size
        self.state = state
        self.edges = edges
        self.graph = LabelledGraph(n * n, edges[:, 0], edges[:, 1], edges[:, 2] - 1,
                                   directed=False)
        self.nr = nr_graph(self.graph)
        arcs = self.graph.arcs()
        self.arc_tails, self.arc_heads = arcs.tails, arcs.heads
        self.arc_digits = arcs.labels + 1
        self.matrix = csr_matrix((np.ones(self.nr.num_arcs, dtype=np.int8),
                                  (self.nr.tails, self.nr.heads)),
                                 shape=(self.nr.num_vertices, self.nr.num_vertices))
        self.out_vertex = 2 * self.nr.arc_tail_pair + 1        # per G arc
        self.in_vertex = 2 * self.nr.arc_head_pair             # per G arc

    @cached_property
    def arc_of_step(self) -> dict[tuple[int, int], int]:
        """(nr tail, nr head) of a G arc -> the arc (G has no parallel equal-label edges)."""
        return {(int(t), int(h)): a for a, (t, h) in
                enumerate(zip(self.out_vertex.tolist(), self.in_vertex.tolist()))}

    @cached_property
    def cyclic(self) -> np.ndarray:
        """Per G arc: on a nonrepetitive closed walk (Theorem 1, scipy strong components)."""
        from scipy.sparse.csgraph import connected_components
        _, comp = connected_components(self.matrix, directed=True, connection="strong")
        return comp[self.out_vertex] == comp[self.in_vertex]

    def search(self, start: int) -> np.ndarray:
        """Predecessors of a breadth-first search in nr(G) from nr-vertex ``start``."""
        from scipy.sparse.csgraph import breadth_first_order
        _, pred = breadth_first_order(self.matrix, start, directed=True,
                                      return_predecessors=True)
        return pred

    def walk(self, pred: np.ndarray, start: int, target: int) -> list[int]:
        """The G arcs of the search path start → target (target must be reached)."""
        vertices = [target]
        while vertices[-1] != start:
            vertices.append(int(pred[vertices[-1]]))
        vertices.reverse()
        steps = self.arc_of_step
        return [steps[(a, b)] for a, b in zip(vertices, vertices[1:]) if (a, b) in steps]

    def triples(self, arcs: list[int]) -> list[list[int]]:
        return [[int(self.arc_tails[a]), int(self.arc_heads[a]), int(self.arc_digits[a])]
                for a in arcs]

    def start_vertex(self, cell: int, digit: int) -> int | None:
        pair = self.nr.pair(cell, digit - 1)
        return None if pair is None else 2 * pair + 1


class Reach:
    """What the nonrepetitive walks of one graph force, from every start at once (see the
    module docstring): the pair graph, its strong components and, per vertex, the union of
    the *bundles* of the in-vertices it reaches.

    A bundle is three masks over (digit, cell) bits, as in the packed form (bit d·N² + c),
    laid side by side in one integer (unions stay unions): the forced pairs, their peers'
    lost candidates (``blocked``) and their cells' other candidates (``crowded``). Entering
    cell v by label x forces (v, x) in the bilocation graph (push) and (v, the other
    candidate) in the bivalue graph (pull)."""

    def __init__(self, state: CandidateState, edges: list[tuple[int, int, int]], kind: str):
        lay = state.lay
        self.lay = lay
        self.edges = edges
        pairs = sorted({(c, d - 1) for a, b, d in edges for c in (a, b)})
        self.pairs = pairs
        index = {pair: j for j, pair in enumerate(pairs)}
        self.index = index
        # G's arcs as LabelledGraph numbers them: the edges forwards, then backwards
        self.arcs = [(a, b, d - 1) for a, b, d in edges] + [(b, a, d - 1) for a, b, d in edges]
        succ: list[list[int]] = [[] for _ in range(2 * len(pairs))]
        for tail, head, x in self.arcs:
            succ[2 * index[tail, x] + 1].append(2 * index[head, x])
        labels_at: dict[int, list[int]] = {}
        for j, (c, x) in enumerate(pairs):
            labels_at.setdefault(c, []).append(j)
        own = [0] * len(succ)
        cand = state.cells
        for j, (c, x) in enumerate(pairs):
            succ[2 * j] = [2 * k + 1 for k in labels_at[c] if k != j]
            forced = x if kind == "bilocal" else (cand[c] & ~(1 << x)).bit_length() - 1
            own[2 * j] = bundle(lay, c, forced)
        self.comp, self.closure = _components_and_closure(succ, own)

    @property
    def starts(self) -> list[tuple[int, int, int]]:
        """(cell, 1-based digit, out-vertex) for every label at every vertex, in order."""
        return [(c, x + 1, 2 * j + 1) for j, (c, x) in enumerate(self.pairs)]

    def out_vertex(self, cell: int, digit: int) -> int | None:
        j = self.index.get((cell, digit - 1))
        return None if j is None else 2 * j + 1

    def cyclic_arcs(self) -> list[int]:
        """G's arcs on nonrepetitive closed walks, in arc order (Theorem 1)."""
        comp, index = self.comp, self.index
        return [a for a, (tail, head, x) in enumerate(self.arcs)
                if comp[2 * index[tail, x] + 1] == comp[2 * index[head, x]]]

    def forced(self, vertex: int) -> tuple[int, int, int]:
        """(forced, blocked, crowded) of the walks from ``vertex``."""
        return split(self.lay, self.closure[vertex])


def bundle(lay: Layout, cell: int, digit: int) -> int:
    """The bundle of one forced pair (0-based digit): the pair, the digit's bits at the
    cell's peers, the other digits' bits at the cell."""
    m, width = lay.area, lay.area * lay.n
    pair = 1 << (digit * m + cell)
    column = lay.column << cell
    return pair | (lay.peers[cell] << (digit * m + width)) | ((column ^ pair) << (2 * width))


def split(lay: Layout, value: int) -> tuple[int, int, int]:
    width = lay.area * lay.n
    full = (1 << width) - 1
    return value & full, (value >> width) & full, value >> (2 * width)


def _components_and_closure(succ: list[list[int]], own: list[int]
                            ) -> tuple[list[int], list[int]]:
    """Strong components (Tarjan, iteratively) and, per vertex, the union of ``own`` over
    every vertex it reaches. Tarjan closes a component only after every component it leads
    to, so their unions are ready when it closes."""
    count = len(succ)
    index = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    comp = [-1] * count
    closure = [0] * count
    stack: list[int] = []
    counter = components = 0
    for root in range(count):
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, 0)]
        while work:
            v, i = work[-1]
            nexts = succ[v]
            if i < len(nexts):
                work[-1] = (v, i + 1)
                w = nexts[i]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[v] < low[parent]:
                    low[parent] = low[v]
            if low[v] != index[v]:
                continue
            members = []
            while True:
                w = stack.pop()
                on_stack[w] = False
                comp[w] = components
                members.append(w)
                if w == v:
                    break
            value = 0
            for w in members:
                value |= own[w]
                for x in succ[w]:
                    if comp[x] != components:
                        value |= closure[x]
            for w in members:
                closure[w] = value
            components += 1
    return comp, closure


class Graphs:
    """One graph kind of a state: its edges, :class:`Reach`, and (on demand) nr(G)."""

    def __init__(self, state: CandidateState, kind: str, edges: list[tuple[int, int, int]]):
        self.state = state
        self.kind = kind
        self.reach = Reach(state, edges, kind)

    @cached_property
    def chain(self) -> ChainGraph:
        return ChainGraph(self.state, _as_array(self.reach.edges))


def state_graphs(state: CandidateState, kind: str) -> Graphs | None:
    """The state's graphs of ``kind`` ("bilocal" or "bivalue"), None without edges;
    memoised on the state, so rules 11–19 build them once."""
    def build():
        edges = _bilocation_edges(state) if kind == "bilocal" else _bivalue_edges(state)
        return Graphs(state, kind, edges) if edges else None
    return state.memo(("chains", kind), build)


def state_chain(state: CandidateState, kind: str) -> ChainGraph | None:
    graphs = state_graphs(state, kind)
    return None if graphs is None else graphs.chain


def walk_text(shape, walk: list[list[int]]) -> str:
    if not walk:
        return ""
    parts = [cell_name(shape, walk[0][0])]
    for _, to, digit in walk:
        parts.append(f"-{digit}- {cell_name(shape, to)}")
    return " ".join(parts)


def closed_walk(chain: ChainGraph, arc: int) -> list[int]:
    """A closed nonrepetitive walk starting with G arc ``arc`` (which must be cyclic)."""
    pred = chain.search(int(chain.in_vertex[arc]))
    return [arc] + chain.walk(pred, int(chain.in_vertex[arc]), int(chain.out_vertex[arc]))


def clashes(forced: int, blocked: int, crowded: int) -> bool:
    """Do the forced pairs clash: one blocked by another (a digit twice in a unit) or two in
    one cell?"""
    return bool(forced & (blocked | crowded))


def forced_conflict(state: CandidateState, cells: np.ndarray, digits: np.ndarray
              ) -> tuple[int, int] | None:
    """Indices i, j of two forced (cell, digit) pairs that cannot both hold: one cell with
    two digits, or one digit in two peer cells (all pairs at once through the peer matrix)."""
    n = state.size
    forced = np.zeros((n * n, n), dtype=np.float32)
    forced[cells, digits - 1] = 1
    doubled = np.flatnonzero((forced > 0).sum(axis=1) >= 2)
    if len(doubled):
        i, j = np.flatnonzero(cells == doubled[0])[:2]
        return int(i), int(j)
    clash = ((peer_matrix(state.shape) @ forced) > 0) & (forced > 0)
    if not clash.any():
        return None
    p, d = np.argwhere(clash)[0]
    i = np.flatnonzero((cells == p) & (digits == d + 1))[0]
    j = np.flatnonzero((digits == d + 1) & (peer_matrix(state.shape)[p, cells] > 0))[0]
    return int(i), int(j)


def other_candidates(state: CandidateState, cells: np.ndarray, digits: np.ndarray) -> np.ndarray:
    """The other candidate of bivalue cells (1-based)."""
    flat = state.flat_cand()[cells].copy()
    flat[np.arange(len(cells)), digits - 1] = False
    return flat.argmax(axis=1) + 1


def other_candidate(state: CandidateState, cell: int, digit: int) -> int:
    """The other candidate (1-based) of a bivalue cell."""
    return (state.cells[cell] & ~(1 << (digit - 1))).bit_length()
