"""The two matching rules of Eppstein 2005 §3.1, and Nishio as a rule.

**Hall sets from one perfect matching** (:func:`hall_analysis`). A square bipartite graph
(``adj[i, j]``: left vertex i may take right vertex j) is given. scipy finds a maximum
matching M. If M is not perfect, the alternating search from an unmatched left vertex reaches
a set S of left vertices whose neighbours N(S) are all matched back into S, so |N(S)| = |S|−1
(König): the witness of "no perfect matching". Otherwise orient matched edges left→right and
the other edges right→left; an edge lies in some perfect matching iff it is matched or its
ends share a strongly connected component. For an edge (i, j) in none, the vertices reachable
from i are left vertices S ∋ i and right vertices T = M(S) ∌ j, and every left vertex adjacent
to T is in S: T's vertices can only be matched into S, |S| = |T|, so S is used up by T and no
vertex of S can take a right vertex outside T. (S, T) is the Hall witness of the elimination,
re-checkable by counting; all edges from S to outside T go with it.

* **digit matching** (the blog's digit rule): for digit x, left = columns, right = rows, edge
  when x may go in the cell. Witness: rows R and equally many columns C such that x's cells in
  the rows R all lie in columns C (the paper's first Hall form); so the columns C take their x
  in rows R, and x leaves the rest of columns C (X-wing, swordfish, ... of any size).
* **unit matching** (DDJ's chain exclusion): for unit g, left = digits, right = cells of g.
  Witness: cells T of g that together can only hold the digits S, |S| = |T| (a naked set);
  the digits S leave the other cells of g.

A missing perfect matching is a proof of no solution (witness: the deficient set).

**Nishio** (:mod:`reductions.nishio.dag`, the almost-balanced-matrix DAG): per digit, the
cells of the candidate set S outside Nishio(S) (no valid placement of the digit inside S uses them)
are eliminated; Nishio(S) = ∅ proves there is no solution. Applied where the DAG is built
(9×9: 290 vertices, 16×16: 19,442); beyond :data:`reductions.nishio.dag.DAG_VERTEX_LIMIT` (25×25)
the rule finds nothing.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import (breadth_first_order, connected_components,
                                  maximum_bipartite_matching)

from reductions.sudoku.candidates import unit_name
from reductions.nishio.dag import DAG_VERTEX_LIMIT, almost_balanced_count, nishio_dag_sweep
from reductions.nishio.placements import CellSet
from reductions.rules.base import Deduction, cells_text, numbers_text

from .state import CandidateState


def _digraph(count: int, tails: np.ndarray, heads: np.ndarray) -> csr_matrix:
    return csr_matrix((np.ones(len(tails), dtype=np.int8), (tails, heads)),
                      shape=(count, count))


def _reach(graph: csr_matrix, start: int) -> np.ndarray:
    return breadth_first_order(graph, start, directed=True, return_predecessors=False)


def hall_analysis(adj: np.ndarray):
    """For a square bool matrix: ``("deficient", S, N(S))`` when there is no perfect matching,
    else ``("hall", [(S, T, edges), ...])`` covering every edge in no perfect matching (S left
    vertices, T right vertices, edges = the (i, j) with i in S, j outside T), possibly empty."""
    k = adj.shape[0]
    rows, cols = np.nonzero(adj)
    graph = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(k, k))
    match = maximum_bipartite_matching(graph, perm_type="column")   # left -> right or -1
    if (match < 0).any():
        start = int(np.flatnonzero(match < 0)[0])
        mate_of_right = np.full(k, -1)
        mate_of_right[match[match >= 0]] = np.flatnonzero(match >= 0)
        matched = mate_of_right[cols] >= 0
        alt = _digraph(2 * k, np.concatenate([rows, k + cols[matched]]),
                       np.concatenate([k + cols, mate_of_right[cols[matched]]]))
        reached = _reach(alt, start)
        left = np.sort(reached[reached < k])
        right = np.sort(reached[reached >= k] - k)
        return "deficient", left.tolist(), right.tolist()
    free = match[rows] != cols
    oriented = _digraph(2 * k, np.concatenate([np.arange(k), k + cols[free]]),
                        np.concatenate([k + match, rows[free]]))
    _, comp = connected_components(oriented, directed=True, connection="strong")
    bad = free & (comp[rows] != comp[k + cols])
    groups = []
    covered = np.zeros_like(adj)
    for i, j in zip(rows[bad].tolist(), cols[bad].tolist()):
        if covered[i, j]:
            continue
        reached = _reach(oriented, i)
        left = np.sort(reached[reached < k])
        right = np.sort(reached[reached >= k] - k)
        outside = np.ones(k, dtype=bool)
        outside[right] = False
        edges = [(int(a), int(b)) for a in left.tolist()
                 for b in np.flatnonzero(adj[a] & outside).tolist()]
        for a, b in edges:
            covered[a, b] = True
        groups.append((left.tolist(), right.tolist(), edges))
    return "hall", groups


def digit_matching(state: CandidateState) -> list[Deduction]:
    shape, n = state.shape, state.size
    out = []
    for d in range(n):
        adj = state.cand[:, :, d].T                   # left = columns, right = rows
        result = hall_analysis(adj)
        digit = d + 1
        if result[0] == "deficient":
            cols, rows = result[1], result[2]
            return [Deduction(
                "digit-matching", contradiction=True,
                witness={"digit": digit, "columns": cols, "rows": rows},
                why=f"{digit} must go once in each of columns {numbers_text(np.add(cols, 1))}, "
                    f"but there it can only use rows {numbers_text(np.add(rows, 1)) or 'none'} "
                    f"({len(rows)} rows for {len(cols)} columns): no solution")]
        for cols, rows, edges in result[1]:
            elims = tuple((r * n + c, digit) for c, r in edges)
            out.append(Deduction(
                "digit-matching", eliminations=elims,
                witness={"digit": digit, "columns": cols, "rows": rows},
                why=f"in rows {numbers_text(np.add(rows, 1))}, {digit} can only go in columns "
                    f"{numbers_text(np.add(cols, 1))} ({len(rows)} rows, {len(cols)} columns): "
                    f"those columns take their {digit} there, so {digit} leaves "
                    f"{cells_text(shape, [c for c, _ in elims])}"))
    return out


def unit_matching(state: CandidateState) -> list[Deduction]:
    shape, n = state.shape, state.size
    units = shape.units()
    by_unit = state.by_unit()
    out = []
    for u in range(3 * n):
        adj = by_unit[u].T                            # left = digits, right = positions
        result = hall_analysis(adj)
        if result[0] == "deficient":
            digits, positions = result[1], result[2]
            cells = units[u][positions].tolist()
            return [Deduction(
                "unit-matching", contradiction=True,
                witness={"unit": u, "digits": np.add(digits, 1).tolist(), "cells": cells},
                why=f"in {unit_name(shape, u)} the digits {numbers_text(np.add(digits, 1))} "
                    f"can only go in {cells_text(shape, cells) or 'no cell'} (fewer cells "
                    f"than digits): no solution")]
        for digits, positions, edges in result[1]:
            cells = units[u][positions].tolist()
            elims = tuple((int(units[u][p]), d + 1) for d, p in edges)
            # the naked set: cells T hold only digits S; S leaves the other cells
            out.append(Deduction(
                "unit-matching", eliminations=elims,
                witness={"unit": u, "digits": np.add(digits, 1).tolist(), "cells": cells},
                why=f"in {unit_name(shape, u)}, the cells {cells_text(shape, cells)} can "
                    f"only hold {numbers_text(np.add(digits, 1))} ({len(cells)} cells, "
                    f"{len(digits)} digits): those digits leave the unit's other cells"))
    return out


def nishio_applies(state: CandidateState) -> bool:
    return almost_balanced_count(state.shape) <= DAG_VERTEX_LIMIT


def nishio_rule(state: CandidateState) -> list[Deduction]:
    if not nishio_applies(state):
        return []
    shape, n = state.shape, state.size
    out = []
    for d in range(n):
        cells = state.cand[:, :, d]
        kept = nishio_dag_sweep(CellSet(cells, shape)).mask
        gone = np.flatnonzero((cells & ~kept).ravel())
        digit = d + 1
        if not kept.any():
            return [Deduction("nishio", contradiction=True, witness={"digit": digit},
                              why=f"no placement of {digit} (one per row, column and block) "
                                  f"fits its candidate cells: no solution")]
        if len(gone):
            out.append(Deduction(
                "nishio", eliminations=tuple((int(c), digit) for c in gone),
                witness={"digit": digit, "cells": gone.tolist()},
                why=f"no placement of {digit} in every row, column and block inside its "
                    f"candidate cells uses {cells_text(shape, gone.tolist())}"))
    return out


