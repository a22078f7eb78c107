"""The chain rules 17–19: paths of one graph, and conflicts of paths of both.

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

The graphs and their nr(G) are in :mod:`reductions.rules.chain_graphs`; witnesses are walks,
as for the rules of :mod:`reductions.rules.chains`.
"""

from __future__ import annotations

import numpy as np

from ..sudoku.candidates import (CandidateState, Layout, bits, cell_name, coverage, peer_matrix,
                                 unit_matrix, unit_name)
from .base import Deduction
from .chain_graphs import (ChainGraph, Graphs, NO_PREDECESSOR, bundle, clashes, forced_conflict,
                           other_candidate, other_candidates, split, state_chain, state_graphs,
                           walk_text)


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


def _news(state: CandidateState, cell: int, digit: int, ends: int, claimed: set) -> bool:
    """Would a path rule remove anything not yet claimed: ``digit`` from a cell seeing
    ``cell`` and one of the ``ends``?"""
    d = digit - 1
    peers = state.lay.peers
    near = peers[cell] & state.where[d]
    for end in bits(ends):
        for c in bits(near & peers[end]):
            if (c, digit) not in claimed:
                return True
    return False


def _useful_searches(state: CandidateState, graphs: Graphs, claimed: set, *,
                     digit_of=lambda cell, label: label):
    """The walks' searches worth making, for the path rules: for each start (a cell left by
    a label) whose digit ``digit_of(cell, label)`` could leave some cell not yet ``claimed``
    (:func:`_news`, on the cells the closure reaches), yields (cell, digit, label, start,
    predecessors, reached) of one search from it."""
    lay, reach, chain = state.lay, graphs.reach, graphs.chain
    for cell, label, start in reach.starts:
        digit = digit_of(cell, label)
        if not lay.peers[cell] & state.where[digit - 1]:
            continue
        ends = (reach.closure[start] >> ((digit - 1) * lay.area)) & lay.all_cells
        if not _news(state, cell, digit, ends & ~(1 << cell), claimed):
            continue
        pred = chain.search(start)
        reached = pred != NO_PREDECESSOR
        reached[start] = True
        yield cell, digit, label, start, pred, reached


def bilocal_path(state: CandidateState) -> list[Deduction]:
    """A nonrepetitive bilocation walk leaving cell u by label d and entering cell w ≠ u by
    label d: if u is not d, pushing along the walk makes w = d. So d is in u or w, and leaves
    every cell that sees both (PADS ``path``, bilocation part)."""
    graphs = state_graphs(state, "bilocal")
    if graphs is None:
        return []
    shape, chain = state.shape, graphs.chain
    out, claimed = [], set()
    for cell, digit, _, start, pred, reached in _useful_searches(state, graphs, claimed):
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
    graphs = state_graphs(state, "bivalue")
    if graphs is None:
        return []
    shape, chain = state.shape, graphs.chain
    out, claimed = [], set()
    for cell, digit, label, start, pred, reached in _useful_searches(
            state, graphs, claimed,
            digit_of=lambda cell, label: other_candidate(state, cell, label)):
        arcs = np.flatnonzero(reached[chain.out_vertex])
        heads = chain.arc_heads[arcs]
        pulled = other_candidates(state, heads, chain.arc_digits[arcs])
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
        other = int(other_candidates(state, np.array([cell]), np.array([digit]))[0])
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
            digits.append(other_candidates(state, heads, bivalue.arc_digits[arcs]))
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


def _blocks_everything(lay: Layout, packed: int, blocked: int, open_cells: int) -> bool:
    """With the ``blocked`` (digit, cell) bits gone from the packed candidates, has some
    unit lost every place of a digit, or some open cell every candidate?"""
    left = packed & ~blocked
    if coverage(lay, left) != lay.origins:
        return True
    anywhere, span = left, lay.area
    while span < lay.n * lay.area:                # OR every digit's plane onto plane 0
        anywhere |= anywhere >> span
        span *= 2
    return bool(open_cells & ~anywhere)


def mixed_conflicting_paths(state: CandidateState) -> list[Deduction]:
    """Assume ``cell`` is not ``digit``; follow both graphs at once (bilocation walks push,
    and, for a bivalue cell, bivalue walks from its other value pull). If the forced digits
    clash (one cell, two digits; one digit, two cells of a unit), or their peers take every
    place of a digit in some unit, or every candidate of some cell, then ``cell`` is
    ``digit`` (§3.5's mixed conflicting paths; PADS ``conflict`` with its unit form)."""
    bilocal, bivalue = state_graphs(state, "bilocal"), state_graphs(state, "bivalue")
    if bilocal is None and bivalue is None:
        return []
    packed = state.packed
    for cell in bits(state.open):
        for d in bits(state.cells[cell]):
            if not _mixed_fires(state, bilocal, bivalue, packed, cell, d + 1):
                continue
            return [_mixed_deduction(state, cell, d + 1)]
    return []


def _mixed_fires(state: CandidateState, bilocal: Graphs | None, bivalue: Graphs | None,
                 packed: int, cell: int, digit: int) -> bool:
    lay = state.lay
    found, value = False, 0
    if bilocal is not None:
        start = bilocal.reach.out_vertex(cell, digit)
        if start is not None:
            found, value = True, bilocal.reach.closure[start]
    if state.cells[cell].bit_count() == 2:
        other = other_candidate(state, cell, digit)
        found = True
        value |= bundle(lay, cell, other - 1)
        start = bivalue.reach.out_vertex(cell, other) if bivalue is not None else None
        if start is not None:
            value |= bivalue.reach.closure[start]
    if not found:
        return False
    forced, blocked, crowded = split(lay, value)
    return clashes(forced, blocked, crowded) or _blocks_everything(lay, packed, blocked,
                                                                  state.open)


def _mixed_deduction(state: CandidateState, cell: int, digit: int) -> Deduction:
    """The deduction (with its walks) for a (cell, digit) where the mixed rule fires."""
    shape = state.shape
    sources, cells, digits = _forced_if_not(state, state_chain(state, "bilocal"),
                                            state_chain(state, "bivalue"), cell, digit)
    hit = forced_conflict(state, cells, digits)
    if hit is not None:
        used, conflict = list(hit), {"kind": "pair"}
        (p, dp), (q, dq) = [(int(cells[k]), int(digits[k])) for k in hit]
        clash = (f"{cell_name(shape, p)} would be {dp} and {dq}" if p == q else
                 f"{cell_name(shape, p)} and {cell_name(shape, q)} (in one unit) "
                 f"would both be {dp}")
    else:
        kind, where, d, used = _emptied(state, cells, digits)
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
    return Deduction(
        "mixed-conflicting-paths", placements=((cell, digit),),
        witness={"cell": cell, "digit": digit, "paths": paths, "forced": forced,
                 "conflict": conflict},
        why=f"if {cell_name(shape, cell)} were not {digit}: {shown}; then {clash}; "
            f"so {cell_name(shape, cell)} is {digit}")
