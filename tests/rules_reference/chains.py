"""The nonlocal rules of Eppstein 2005 §3.2–3.5 on the bilocation and bivalue graphs, through
nr(G) (:mod:`reductions.nonrepetitive.nr_graph`, Theorems 1 and 2).

**Bilocation graph** (§3.2). A vertex per open cell; an edge labelled x joins two cells that
are the only two places for digit x in some row, column or block (an edge found by two units
is drawn once). Along an edge labelled x, exactly one end holds x. So on a nonrepetitive walk
(consecutive labels differ) whose first cell does *not* hold the first label, every later
cell holds the label of the edge it was entered by ("push").

* cycle rule (Lemma 6): a closed nonrepetitive walk from cell c, leaving by label x and
  returning by label z (z ≠ x): if c ≠ x, pushing around gives c = z. So c ∈ {x, z}; every
  other candidate of c goes. Edges on nonrepetitive cycles come from the strong components of
  nr(G) (Theorem 1); the walk is a shortest path in nr(G) back to the start.
* repetitive cycle rule (Lemma 7): a nonrepetitive walk leaving c by label d and returning by
  label d: if c ≠ d, pushing gives c = d. So c = d.
* conflicting paths rule (Lemma 8): two nonrepetitive walks leaving c by label d that push the
  same digit into two distinct cells of one unit (or two digits into one cell): c = d.
  Reachability from "leave c by d" in nr(G) (Theorem 2) gives every pushed (cell, digit) at
  once; conflicts are found with the peer matrix.

**Bivalue graph** (§3.5). A vertex per open cell with exactly two candidates; an edge labelled
x joins two such cells in a common unit that both have x. Along an edge labelled x, at most one
end holds x, and a bivalue cell entered by label x and left by label y ≠ x has exactly the
candidates {x, y}. So if the first cell of a nonrepetitive walk holds the first label, every
later cell holds its candidate other than the label it was entered by ("pull").

* cycle rule: an edge (u, w, x) on a closed nonrepetitive walk: x is in u or in w (if u ≠ x,
  pull from u around the walk forces w = x), so x leaves every common peer of u and w.
* repetitive cycle rule: a walk leaving c by label d and returning by label d: c = d would
  pull c ≠ d, so c ≠ d.
* conflicting paths rule: two walks leaving c by label d that pull equal digits into two
  peers (or two digits into one cell, or d into a peer of c): c ≠ d.

**Path rules and mixed conflicts** (Eppstein's own solver, PADS ``Sudoku.py``: its ``path``
and ``conflict`` rules; the paper names the mixed form in one sentence of §3.5):

* bilocal path: a walk leaving u by d and entering w ≠ u by d: if u ≠ d, pushing gives w = d;
  so d is in u or w and leaves every cell seeing both (an X-chain / alternating chain);
* bivalue path: a walk from u = {d, o} leaving by o and pulling d into w ≠ u: d is in u or w
  and leaves every cell seeing both (an XY-chain);
* mixed conflicting paths: assume c ≠ d and follow both graphs at once (bilocation walks
  leaving c by d push; if c is bivalue it is its other value o, and bivalue walks leaving by o
  pull). A clash of two forced digits, or forced digits whose peers take every place of a
  digit in a unit (PADS's unit form) or every candidate of a cell, proves c = d.

Every deduction's witness is the walk (or two walks) as ``[from cell, to cell, digit]``
triples; :mod:`reductions.rules.checks` re-checks the edges against the state and the
nonrepetitive condition by plain loops. Paths are shortest in nr(G) (scipy breadth-first
search), so the explanations stay short. The paper's bipartite, flag-labelled bivalue graph
only changes the worst-case time bound, not what the rules find; the plain bivalue graph is
used here.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components

from reductions.sudoku.candidates import cell_name, peer_matrix, unit_matrix, unit_name
from reductions.nonrepetitive.labelled_graph import LabelledGraph
from reductions.nonrepetitive.nr_graph import nr_graph
from reductions.rules.base import Deduction

from .state import CandidateState

NO_PREDECESSOR = -9999


def bilocation_edges(state: CandidateState) -> np.ndarray:
    """``(m, 3)`` int array of (cell, cell, digit) with cell < cell, digit 1-based, distinct."""
    units = state.shape.units()
    by_unit = state.by_unit()
    counts = by_unit.sum(axis=1)
    unit_idx, digit_idx = np.nonzero(counts == 2)
    if not len(unit_idx):
        return np.zeros((0, 3), dtype=np.int64)
    masks = by_unit[unit_idx, :, digit_idx]                      # (k, N) positions
    positions = np.nonzero(masks)[1].reshape(-1, 2)
    cells = units[unit_idx[:, None], positions]
    edges = np.column_stack([cells.min(axis=1), cells.max(axis=1), digit_idx + 1])
    return np.unique(edges, axis=0)


def bivalue_edges(state: CandidateState) -> np.ndarray:
    """``(m, 3)`` (cell, cell, digit): two bivalue open cells of a common unit sharing digit."""
    flat = state.flat_cand()
    bivalue = (flat.sum(axis=1) == 2) & (state.values.reshape(-1) == 0)
    rows = []
    for cells in state.shape.units():
        mine = cells[bivalue[cells]]
        if len(mine) < 2:
            continue
        sub = flat[mine]                                        # (k, N)
        for d in np.flatnonzero(sub.sum(axis=0) >= 2).tolist():
            having = mine[sub[:, d]]
            i, j = np.triu_indices(len(having), 1)
            rows.append(np.column_stack([having[i], having[j], np.full(len(i), d + 1)]))
    if not rows:
        return np.zeros((0, 3), dtype=np.int64)
    edges = np.concatenate(rows)
    edges[:, :2].sort(axis=1)
    return np.unique(edges, axis=0)


class ChainGraph:
    """A bilocation or bivalue graph with its nr(G), ready for walks.

    ``edges`` as from :func:`bilocation_edges`; vertices are the flat cells, labels the
    0-based digits. nr(G) numbering: pair p = (vertex, label) has in-vertex 2p and out-vertex
    2p + 1; nr-arc a < 2m is G's arc a.
    """

    def __init__(self, state: CandidateState, edges: np.ndarray):
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
        _, comp = connected_components(self.matrix, directed=True, connection="strong")
        return comp[self.out_vertex] == comp[self.in_vertex]

    def search(self, start: int) -> np.ndarray:
        """Predecessors of a breadth-first search in nr(G) from nr-vertex ``start``."""
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

    def starts(self) -> list[tuple[int, int, int]]:
        """(cell, digit, nr out-vertex) for every label at every vertex."""
        keys = self.nr.pair_keys
        labels = self.nr.num_labels
        return [(int(k) // labels, int(k) % labels + 1, 2 * p + 1)
                for p, k in enumerate(keys.tolist())]


def walk_text(shape, walk: list[list[int]]) -> str:
    if not walk:
        return ""
    parts = [cell_name(shape, walk[0][0])]
    for _, to, digit in walk:
        parts.append(f"-{digit}- {cell_name(shape, to)}")
    return " ".join(parts)


def _graph(state: CandidateState, kind: str) -> ChainGraph | None:
    edges = bilocation_edges(state) if kind == "bilocal" else bivalue_edges(state)
    return ChainGraph(state, edges) if len(edges) else None


def _closed_walk(chain: ChainGraph, arc: int) -> list[int]:
    """A closed nonrepetitive walk starting with G arc ``arc`` (which must be cyclic)."""
    pred = chain.search(int(chain.in_vertex[arc]))
    return [arc] + chain.walk(pred, int(chain.in_vertex[arc]), int(chain.out_vertex[arc]))


# ----------------------------------------------------------------------------- bilocation

def bilocal_cycle(state: CandidateState) -> list[Deduction]:
    chain = _graph(state, "bilocal")
    if chain is None:
        return []
    flat = state.flat_cand()
    shape = state.shape
    out, done = [], set()
    for arc in np.flatnonzero(chain.cyclic).tolist():
        cell = int(chain.arc_tails[arc])
        if cell in done or flat[cell].sum() <= 2:
            continue
        walk = chain.triples(_closed_walk(chain, arc))
        keep = {walk[0][2], walk[-1][2]}
        elims = tuple((cell, d) for d in (np.flatnonzero(flat[cell]) + 1).tolist()
                      if d not in keep)
        if not elims:
            continue
        done.add(cell)
        x, z = walk[0][2], walk[-1][2]
        out.append(Deduction(
            "bilocal-cycle", eliminations=elims,
            witness={"cell": cell, "walk": walk},
            why=f"the bilocation cycle {walk_text(shape, walk)} leaves "
                f"{cell_name(shape, cell)} by {x} and returns by {z}: if it is not {x}, each "
                f"link forces the next, so it is {z}; {cell_name(shape, cell)} is {x} or {z}"))
    return out


def _pushed(chain: ChainGraph, reached: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """G arcs on walks from the search start (their out-vertex reached), and per such arc
    the cell and digit it forces (bilocal push: the head holds the label)."""
    arcs = np.flatnonzero(reached[chain.out_vertex])
    return arcs, chain.arc_heads[arcs]


def bilocal_repetitive_cycle(state: CandidateState) -> list[Deduction]:
    chain = _graph(state, "bilocal")
    if chain is None:
        return []
    shape = state.shape
    out = []
    for cell, digit, start in chain.starts():
        pred = chain.search(start)
        back = start - 1                                     # in-vertex of the same pair
        if pred[back] == NO_PREDECESSOR:
            continue
        walk = chain.triples(chain.walk(pred, start, back))
        out.append(Deduction(
            "bilocal-repetitive-cycle", placements=((cell, digit),),
            witness={"cell": cell, "digit": digit, "walk": walk},
            why=f"the bilocation walk {walk_text(shape, walk)} leaves and re-enters "
                f"{cell_name(shape, cell)} by {digit}: if {cell_name(shape, cell)} were not "
                f"{digit}, the links would force it to be {digit}"))
        return out                  # one placement changes the graph
    return out


def _conflict(state: CandidateState, cells: np.ndarray, digits: np.ndarray
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


def bilocal_conflicting_paths(state: CandidateState) -> list[Deduction]:
    chain = _graph(state, "bilocal")
    if chain is None:
        return []
    shape = state.shape
    for cell, digit, start in chain.starts():
        pred = chain.search(start)
        reached = pred != NO_PREDECESSOR
        reached[start] = True
        arcs, heads = _pushed(chain, reached)
        digits = chain.arc_digits[arcs]
        # one forced pair per (cell, digit), first arc found
        _, first = np.unique(heads * (state.size + 1) + digits, return_index=True)
        arcs, heads, digits = arcs[first], heads[first], digits[first]
        hit = _conflict(state, heads, digits)
        if hit is None:
            continue
        walks = [chain.triples(chain.walk(pred, start, int(chain.out_vertex[arcs[k]]))
                               + [int(arcs[k])]) for k in hit]
        (p, dp), (q, dq) = (walks[0][-1][1:], walks[1][-1][1:])
        clash = (f"{cell_name(shape, p)} would be {dp} and {dq}" if p == q else
                 f"{cell_name(shape, p)} and {cell_name(shape, q)} (in one unit) would both "
                 f"be {dp}")
        return [Deduction(
            "bilocal-conflicting-paths", placements=((cell, digit),),
            witness={"cell": cell, "digit": digit, "walks": walks},
            why=f"if {cell_name(shape, cell)} were not {digit}, the bilocation walks "
                f"{walk_text(shape, walks[0])} and {walk_text(shape, walks[1])} force "
                f"{clash}; so {cell_name(shape, cell)} is {digit}")]
    return []


# ----------------------------------------------------------------------------- bivalue

def _other(state: CandidateState, cells: np.ndarray, digits: np.ndarray) -> np.ndarray:
    """The other candidate of bivalue cells (1-based)."""
    flat = state.flat_cand()[cells].copy()
    flat[np.arange(len(cells)), digits - 1] = False
    return flat.argmax(axis=1) + 1


def bivalue_cycle(state: CandidateState) -> list[Deduction]:
    chain = _graph(state, "bivalue")
    if chain is None:
        return []
    shape = state.shape
    flat = state.flat_cand()
    peers = peer_matrix(shape)
    out, done = [], set()
    for arc in np.flatnonzero(chain.cyclic).tolist():
        u, w, x = int(chain.arc_tails[arc]), int(chain.arc_heads[arc]), int(chain.arc_digits[arc])
        key = (min(u, w), max(u, w), x)
        if key in done:
            continue
        done.add(key)
        common = np.flatnonzero((peers[u] > 0) & (peers[w] > 0) & flat[:, x - 1])
        if not len(common):
            continue
        walk = chain.triples(_closed_walk(chain, arc))
        out.append(Deduction(
            "bivalue-cycle", eliminations=tuple((int(c), x) for c in common),
            witness={"edge": [u, w, x], "walk": walk},
            why=f"the bivalue cycle {walk_text(shape, walk)} puts {x} in "
                f"{cell_name(shape, u)} or {cell_name(shape, w)} (if one is not {x}, each "
                f"link forces the next around to the other), so {x} leaves their common "
                f"peers {', '.join(cell_name(shape, c) for c in common.tolist())}"))
    return out


def _bivalue_forced(state: CandidateState, chain: ChainGraph, pred: np.ndarray, start: int,
                    cell: int, digit: int):
    """Arcs reached from ``start`` (leave ``cell`` by ``digit``), with the (cell, digit) each
    forces under "cell holds digit" (pull: the head holds its other value); the assumption
    itself is entry -1."""
    reached = pred != NO_PREDECESSOR
    reached[start] = True
    arcs = np.flatnonzero(reached[chain.out_vertex])
    heads = chain.arc_heads[arcs]
    forced = _other(state, heads, chain.arc_digits[arcs])
    return (np.concatenate([[-1], arcs]), np.concatenate([[cell], heads]),
            np.concatenate([[digit], forced]))


def _bivalue_walk(chain: ChainGraph, pred, start, arc: int) -> list[list[int]]:
    if arc < 0:
        return []
    return chain.triples(chain.walk(pred, start, int(chain.out_vertex[arc])) + [arc])


def bivalue_repetitive_cycle(state: CandidateState) -> list[Deduction]:
    chain = _graph(state, "bivalue")
    if chain is None:
        return []
    shape = state.shape
    for cell, digit, start in chain.starts():
        pred = chain.search(start)
        back = start - 1
        if pred[back] == NO_PREDECESSOR:
            continue
        walk = chain.triples(chain.walk(pred, start, back))
        return [Deduction(
            "bivalue-repetitive-cycle", eliminations=((cell, digit),),
            witness={"cell": cell, "digit": digit, "walk": walk},
            why=f"the bivalue walk {walk_text(shape, walk)} leaves and re-enters "
                f"{cell_name(shape, cell)} by {digit}: if it were {digit}, the links would "
                f"force it not to be; so {cell_name(shape, cell)} is not {digit}")]
    return []


def bivalue_conflicting_paths(state: CandidateState) -> list[Deduction]:
    chain = _graph(state, "bivalue")
    if chain is None:
        return []
    shape = state.shape
    for cell, digit, start in chain.starts():
        pred = chain.search(start)
        arcs, cells, digits = _bivalue_forced(state, chain, pred, start, cell, digit)
        _, first = np.unique(cells * (state.size + 1) + digits, return_index=True)
        first.sort()                                           # keep the assumption first
        arcs, cells, digits = arcs[first], cells[first], digits[first]
        hit = _conflict(state, cells, digits)
        if hit is None:
            continue
        walks = [_bivalue_walk(chain, pred, start, int(arcs[k])) for k in hit]
        ends = [(int(cells[k]), int(digits[k])) for k in hit]
        (p, dp), (q, dq) = ends
        clash = (f"{cell_name(shape, p)} would be {dp} and {dq}" if p == q else
                 f"{cell_name(shape, p)} and {cell_name(shape, q)} (in one unit) would both "
                 f"be {dp}")
        shown = " and ".join(walk_text(shape, w) for w in walks if w)
        return [Deduction(
            "bivalue-conflicting-paths", eliminations=((cell, digit),),
            witness={"cell": cell, "digit": digit, "walks": walks,
                     "forced": [list(e) for e in ends]},
            why=f"if {cell_name(shape, cell)} were {digit}, the bivalue walks {shown} force "
                f"{clash}; so {cell_name(shape, cell)} is not {digit}")]
    return []


# ----------------------------------------------------------------------------- paths
# Rules of Eppstein's own solver (PADS ``Sudoku.py``, rules ``path`` and ``conflict``) that
# the paper states only in passing (§3.5: "a version of the conflicting paths rule that allows
# one of the two paths to be from the bilocation graph and the other from the bivalue graph").

def _common_peers(state: CandidateState, u: int, ends: np.ndarray, digit: int) -> np.ndarray:
    """``(len(ends), N²)`` bool: cells other than u and the end that see both u and the end
    and still have ``digit``."""
    peers = peer_matrix(state.shape) > 0
    return peers[u][None, :] & peers[ends] & state.flat_cand()[:, digit - 1][None, :]


def _path_deductions(state, rule, chain, cell, digit, start, pred, arcs, ends, claimed,
                     explain) -> list[Deduction]:
    """For walks from ``start`` ending with G arcs ``arcs`` at cells ``ends`` (each end holds
    ``digit`` unless ``cell`` does): ``digit`` leaves the common peers of ``cell`` and the end.
    One deduction per end with something new to remove (``claimed`` keeps them disjoint)."""
    keep = ends != cell
    arcs, ends = arcs[keep], ends[keep]
    ends, first = np.unique(ends, return_index=True)
    arcs = arcs[first]
    common = _common_peers(state, cell, ends, digit)
    out = []
    for k in np.flatnonzero(common.any(axis=1)).tolist():
        elims = tuple((int(c), digit) for c in np.flatnonzero(common[k]).tolist()
                      if (int(c), digit) not in claimed)
        if not elims:
            continue
        claimed.update(elims)
        arc = int(arcs[k])
        walk = chain.triples(chain.walk(pred, start, int(chain.out_vertex[arc])) + [arc])
        out.append(Deduction(rule, eliminations=elims,
                             witness={"cell": cell, "digit": digit, "walk": walk},
                             why=explain(walk, [c for c, _ in elims])))
    return out


def bilocal_path(state: CandidateState) -> list[Deduction]:
    """A nonrepetitive bilocation walk leaving cell u by label d and entering cell w ≠ u by
    label d: if u is not d, pushing along the walk makes w = d. So d is in u or w, and leaves
    every cell that sees both (PADS ``path``, bilocation part)."""
    chain = _graph(state, "bilocal")
    if chain is None:
        return []
    shape = state.shape
    peers = peer_matrix(shape) > 0
    flat = state.flat_cand()
    out, claimed = [], set()
    for cell, digit, start in chain.starts():
        if not (peers[cell] & flat[:, digit - 1]).any():
            continue
        pred = chain.search(start)
        reached = pred != NO_PREDECESSOR
        reached[start] = True
        arcs = np.flatnonzero(reached[chain.out_vertex] & (chain.arc_digits == digit))

        def explain(walk, cells, cell=cell, digit=digit):
            end = walk[-1][1]
            return (f"the bilocation walk {walk_text(shape, walk)} leaves "
                    f"{cell_name(shape, cell)} and enters {cell_name(shape, end)} by "
                    f"{digit}: if {cell_name(shape, cell)} is not {digit}, each link forces "
                    f"the next, so {cell_name(shape, end)} is {digit}; {digit} is in one of "
                    f"them and leaves {', '.join(cell_name(shape, c) for c in cells)}, "
                    f"which see both")
        out += _path_deductions(state, "bilocal-path", chain, cell, digit, start, pred, arcs,
                                chain.arc_heads[arcs], claimed, explain)
    return out


def bivalue_path(state: CandidateState) -> list[Deduction]:
    """A nonrepetitive bivalue walk from a cell u with candidates {d, o}, leaving by o and
    entering a cell w ≠ u by a label whose other candidate at w is d: if u is not d it is o,
    and pulling along the walk makes w = d. So d is in u or w, and leaves every cell that sees
    both (PADS ``path``, bivalue part; an XY-chain)."""
    chain = _graph(state, "bivalue")
    if chain is None:
        return []
    shape = state.shape
    peers = peer_matrix(shape) > 0
    flat = state.flat_cand()
    out, claimed = [], set()
    for cell, label, start in chain.starts():
        digit = int(_other(state, np.array([cell]), np.array([label]))[0])
        if not (peers[cell] & flat[:, digit - 1]).any():
            continue
        pred = chain.search(start)
        reached = pred != NO_PREDECESSOR
        reached[start] = True
        arcs = np.flatnonzero(reached[chain.out_vertex])
        heads = chain.arc_heads[arcs]
        pulled = _other(state, heads, chain.arc_digits[arcs])
        arcs, heads = arcs[pulled == digit], heads[pulled == digit]

        def explain(walk, cells, cell=cell, digit=digit, label=label):
            end = walk[-1][1]
            return (f"the bivalue walk {walk_text(shape, walk)}: if {cell_name(shape, cell)} "
                    f"is not {digit} it is {label}, and each link forces the next, so "
                    f"{cell_name(shape, end)} is {digit}; {digit} is in one of them and "
                    f"leaves {', '.join(cell_name(shape, c) for c in cells)}, which see both")
        out += _path_deductions(state, "bivalue-path", chain, cell, digit, start, pred, arcs,
                                heads, claimed, explain)
    return out


def _forced_if_not(state: CandidateState, bilocal: ChainGraph | None,
                   bivalue: ChainGraph | None, cell: int, digit: int):
    """What "``cell`` is not ``digit``" forces, through both graphs: bilocation walks leaving
    ``cell`` by ``digit`` push their labels; if ``cell`` is bivalue it holds its other value
    o, and bivalue walks leaving it by o pull. Returns the sources (graph kind, chain, search
    start, predecessors, G arc or -1 for "cell holds o") and the forced cells and digits, one
    entry per (cell, digit), first source kept."""
    sources, cells, digits = [], [], []
    if bilocal is not None:
        start = bilocal.start_vertex(cell, digit)
        if start is not None:
            pred = bilocal.search(start)
            reached = pred != NO_PREDECESSOR
            reached[start] = True
            arcs = np.flatnonzero(reached[bilocal.out_vertex])
            sources += [("bilocal", bilocal, start, pred, int(a)) for a in arcs.tolist()]
            cells.append(bilocal.arc_heads[arcs])
            digits.append(bilocal.arc_digits[arcs])
    flat = state.flat_cand()
    if flat[cell].sum() == 2:
        other = int(_other(state, np.array([cell]), np.array([digit]))[0])
        sources.append(("bivalue", bivalue, None, None, -1))
        cells.append(np.array([cell]))
        digits.append(np.array([other]))
        start = bivalue.start_vertex(cell, other) if bivalue is not None else None
        if start is not None:
            pred = bivalue.search(start)
            reached = pred != NO_PREDECESSOR
            reached[start] = True
            arcs = np.flatnonzero(reached[bivalue.out_vertex])
            sources += [("bivalue", bivalue, start, pred, int(a)) for a in arcs.tolist()]
            heads = bivalue.arc_heads[arcs]
            cells.append(heads)
            digits.append(_other(state, heads, bivalue.arc_digits[arcs]))
    if not sources:
        return [], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cells, digits = np.concatenate(cells).astype(np.int64), np.concatenate(digits).astype(np.int64)
    _, first = np.unique(cells * (state.size + 1) + digits, return_index=True)
    first.sort()
    return [sources[k] for k in first.tolist()], cells[first], digits[first]


def _source_path(source) -> dict:
    kind, chain, start, pred, arc = source
    walk = [] if arc < 0 else chain.triples(chain.walk(pred, start, int(chain.out_vertex[arc]))
                                            + [arc])
    return {"graph": kind, "walk": walk}


def _emptied(state: CandidateState, cells: np.ndarray, digits: np.ndarray):
    """A unit where the forced digits' peers take every place of some digit, or an open cell
    whose every candidate is a digit forced into one of its peers: ``("unit", unit, digit,
    blockers)`` or ``("cell", cell, None, blockers)`` with the forced entries (indices) used,
    else None."""
    n = state.size
    peers = peer_matrix(state.shape)
    forced = np.zeros((n * n, n), dtype=np.float32)
    forced[cells, digits - 1] = 1
    blocked = (peers @ forced) > 0                                  # (cell, digit) ruled out
    flat = state.flat_cand()
    left = flat & ~blocked
    counts = unit_matrix(state.shape) @ left.astype(np.float32)
    empty_units = np.argwhere(counts == 0)
    peer_bool = peers > 0

    def blocker(target: int, d: int) -> int:
        return int(np.flatnonzero((digits == d) & peer_bool[target, cells])[0])
    if len(empty_units):
        unit, d = (int(x) for x in empty_units[0])
        where = [int(c) for c in state.shape.units()[unit] if flat[c, d]]
        return "unit", unit, d + 1, sorted({blocker(c, d + 1) for c in where})
    dead = np.flatnonzero(~left.any(axis=1) & (state.values.reshape(-1) == 0))
    if len(dead):
        c = int(dead[0])
        return "cell", c, None, sorted({blocker(c, int(d) + 1)
                                        for d in np.flatnonzero(flat[c]).tolist()})
    return None


def mixed_conflicting_paths(state: CandidateState) -> list[Deduction]:
    """Assume ``cell`` is not ``digit``; follow both graphs at once (bilocation walks push,
    and, for a bivalue cell, bivalue walks from its other value pull). If the forced digits
    clash (one cell, two digits; one digit, two cells of a unit), or their peers take every
    place of a digit in some unit, or every candidate of some cell, then ``cell`` is
    ``digit`` (§3.5's mixed conflicting paths; PADS ``conflict`` with its unit form)."""
    bilocal, bivalue = _graph(state, "bilocal"), _graph(state, "bivalue")
    if bilocal is None and bivalue is None:
        return []
    shape = state.shape
    flat = state.flat_cand()
    for cell in state.open_cells().tolist():
        for digit in (np.flatnonzero(flat[cell]) + 1).tolist():
            sources, cells, digits = _forced_if_not(state, bilocal, bivalue, cell, digit)
            if not len(cells):
                continue
            hit = _conflict(state, cells, digits)
            if hit is not None:
                used, conflict = list(hit), {"kind": "pair"}
                (p, dp), (q, dq) = [(int(cells[k]), int(digits[k])) for k in hit]
                clash = (f"{cell_name(shape, p)} would be {dp} and {dq}" if p == q else
                         f"{cell_name(shape, p)} and {cell_name(shape, q)} (in one unit) "
                         f"would both be {dp}")
            else:
                empty = _emptied(state, cells, digits)
                if empty is None:
                    continue
                kind, where, d, used = empty
                if kind == "unit":
                    conflict = {"kind": "unit", "unit": where, "digit": d}
                    clash = f"{d} would have no place left in {unit_name(shape, where)}"
                else:
                    conflict = {"kind": "cell", "cell": where}
                    clash = f"{cell_name(shape, where)} would have no candidate left"
            paths = [_source_path(sources[k]) for k in used]
            forced = [[int(cells[k]), int(digits[k])] for k in used]
            shown = "; ".join(
                f"{p['graph']} walk {walk_text(shape, p['walk'])} forces "
                f"{cell_name(shape, f[0])}={f[1]}" if p["walk"] else
                f"{cell_name(shape, f[0])}={f[1]} (its other value)"
                for p, f in zip(paths, forced))
            return [Deduction(
                "mixed-conflicting-paths", placements=((cell, digit),),
                witness={"cell": cell, "digit": digit, "paths": paths, "forced": forced,
                         "conflict": conflict},
                why=f"if {cell_name(shape, cell)} were not {digit}: {shown}; then {clash}; "
                    f"so {cell_name(shape, cell)} is {digit}")]
    return []
