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

The path rules and mixed conflicts are in :mod:`reductions.rules.chain_paths`; the graphs,
and how one pass finds what every start forces, in :mod:`reductions.rules.chain_graphs`.

Every deduction's witness is the walk (or two walks) as ``[from cell, to cell, digit]``
triples; :mod:`reductions.rules.checks` re-checks the edges against the state and the
nonrepetitive condition by plain loops. Paths are shortest in nr(G) (scipy breadth-first
search), so the explanations stay short. The paper's bipartite, flag-labelled bivalue graph
only changes the worst-case time bound, not what the rules find; the plain bivalue graph is
used here.
"""

from __future__ import annotations

import numpy as np

from ..sudoku.candidates import CandidateState, bits, cell_name
from .base import Deduction
from .chain_graphs import (ChainGraph, NO_PREDECESSOR, bundle, clashes, closed_walk,
                           forced_conflict, other_candidate, other_candidates, split, state_graphs,
                           walk_text)


# ----------------------------------------------------------------------------- bilocation

def bilocal_cycle(state: CandidateState) -> list[Deduction]:
    graphs = state_graphs(state, "bilocal")
    if graphs is None:
        return []
    cand = state.cells
    shape = state.shape
    out, done = [], set()
    for arc in graphs.reach.cyclic_arcs():
        cell = graphs.reach.arcs[arc][0]
        if cell in done or cand[cell].bit_count() <= 2:
            continue
        chain = graphs.chain
        walk = chain.triples(closed_walk(chain, arc))
        keep = {walk[0][2], walk[-1][2]}
        elims = tuple((cell, d + 1) for d in bits(cand[cell]) if d + 1 not in keep)
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
    graphs = state_graphs(state, "bilocal")
    if graphs is None:
        return []
    shape, m = state.shape, state.lay.area
    reach = graphs.reach
    for cell, digit, start in reach.starts:
        if not reach.closure[start] >> ((digit - 1) * m + cell) & 1:
            continue                        # the walks never re-enter cell by digit
        chain = graphs.chain
        pred = chain.search(start)
        back = start - 1                                     # in-vertex of the same pair
        walk = chain.triples(chain.walk(pred, start, back))
        return [Deduction(
            "bilocal-repetitive-cycle", placements=((cell, digit),),
            witness={"cell": cell, "digit": digit, "walk": walk},
            why=f"the bilocation walk {walk_text(shape, walk)} leaves and re-enters "
                f"{cell_name(shape, cell)} by {digit}: if {cell_name(shape, cell)} were not "
                f"{digit}, the links would force it to be {digit}")]
    return []


def bilocal_conflicting_paths(state: CandidateState) -> list[Deduction]:
    graphs = state_graphs(state, "bilocal")
    if graphs is None:
        return []
    shape = state.shape
    reach = graphs.reach
    for cell, digit, start in reach.starts:
        if not clashes(*reach.forced(start)):
            continue
        chain = graphs.chain
        pred = chain.search(start)
        reached = pred != NO_PREDECESSOR
        reached[start] = True
        arcs, heads = _pushed(chain, reached)
        digits = chain.arc_digits[arcs]
        # one forced pair per (cell, digit), first arc found
        _, first = np.unique(heads * (state.size + 1) + digits, return_index=True)
        arcs, heads, digits = arcs[first], heads[first], digits[first]
        hit = forced_conflict(state, heads, digits)
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

def bivalue_cycle(state: CandidateState) -> list[Deduction]:
    graphs = state_graphs(state, "bivalue")
    if graphs is None:
        return []
    shape = state.shape
    peers, where = state.lay.peers, state.where
    out, done = [], set()
    for arc in graphs.reach.cyclic_arcs():
        u, w, x = graphs.reach.arcs[arc]
        key = (min(u, w), max(u, w), x + 1)
        if key in done:
            continue
        done.add(key)
        common = list(bits(peers[u] & peers[w] & where[x]))
        if not common:
            continue
        chain = graphs.chain
        x += 1
        walk = chain.triples(closed_walk(chain, arc))
        out.append(Deduction(
            "bivalue-cycle", eliminations=tuple((c, x) for c in common),
            witness={"edge": [u, w, x], "walk": walk},
            why=f"the bivalue cycle {walk_text(shape, walk)} puts {x} in "
                f"{cell_name(shape, u)} or {cell_name(shape, w)} (if one is not {x}, each "
                f"link forces the next around to the other), so {x} leaves their common "
                f"peers {', '.join(cell_name(shape, c) for c in common)}"))
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
    forced = other_candidates(state, heads, chain.arc_digits[arcs])
    return (np.concatenate([[-1], arcs]), np.concatenate([[cell], heads]),
            np.concatenate([[digit], forced]))


def _bivalue_walk(chain: ChainGraph, pred, start, arc: int) -> list[list[int]]:
    if arc < 0:
        return []
    return chain.triples(chain.walk(pred, start, int(chain.out_vertex[arc])) + [arc])


def bivalue_repetitive_cycle(state: CandidateState) -> list[Deduction]:
    graphs = state_graphs(state, "bivalue")
    if graphs is None:
        return []
    shape, m = state.shape, state.lay.area
    reach = graphs.reach
    for cell, digit, start in reach.starts:
        # entering cell by digit pulls its other value there
        other = other_candidate(state, cell, digit)
        if not reach.closure[start] >> ((other - 1) * m + cell) & 1:
            continue
        chain = graphs.chain
        pred = chain.search(start)
        back = start - 1
        walk = chain.triples(chain.walk(pred, start, back))
        return [Deduction(
            "bivalue-repetitive-cycle", eliminations=((cell, digit),),
            witness={"cell": cell, "digit": digit, "walk": walk},
            why=f"the bivalue walk {walk_text(shape, walk)} leaves and re-enters "
                f"{cell_name(shape, cell)} by {digit}: if it were {digit}, the links would "
                f"force it not to be; so {cell_name(shape, cell)} is not {digit}")]
    return []


def bivalue_conflicting_paths(state: CandidateState) -> list[Deduction]:
    graphs = state_graphs(state, "bivalue")
    if graphs is None:
        return []
    shape, lay = state.shape, state.lay
    reach = graphs.reach
    for cell, digit, start in reach.starts:
        assumed = split(lay, reach.closure[start] | bundle(lay, cell, digit - 1))
        if not clashes(*assumed):
            continue
        chain = graphs.chain
        pred = chain.search(start)
        arcs, cells, digits = _bivalue_forced(state, chain, pred, start, cell, digit)
        _, first = np.unique(cells * (state.size + 1) + digits, return_index=True)
        first.sort()                                           # keep the assumption first
        arcs, cells, digits = arcs[first], cells[first], digits[first]
        hit = forced_conflict(state, cells, digits)
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
