"""Certified negatives of the gadget closed loops (``gadget nishio|nrpath --validate
--certify``): every "no" the loop rests on backed by a DRAT proof that an independent checker
accepts, of a formula written here from the definition alone.

On an unsatisfiable formula both sides of a closed loop are negative claims. Each becomes a
formula whose every clause holds of every solution of the claim's question, so that a checked
refutation of it means there is none:

* **the formula is unsatisfiable** (:func:`certify_formula`): the formula's own clauses, as
  read (its DIMACS), nothing added.
* **no valid placement inside S** (containing a cell z) (:func:`placement_clauses`): one
  variable per cell of S in the chosen units (below); for each chosen unit (row, column,
  block), "exactly one of its cells of S" (:func:`~solvers.certify.clauses.exactly_one`); with
  z, the unit clause z. A valid placement inside S has exactly one cell in every unit and
  every one of its cells is in S, so it satisfies each unit's clauses, whichever units are
  chosen; one containing z satisfies z. The formula is a sub-formula of the whole placement
  model, read from S's cells alone.

  Which units: those of every independent part of S (:func:`reductions.nishio.parts.
  independent_parts`) that is not a complete sub-grid with balanced counts — the parts
  Nishio's presolve (``split=True``) gives the solver or proves impossible — and z's three
  units. Soundness does not depend on this choice (any set of units gives clauses true of
  every placement); it only keeps the formula to the gadgets (a few hundred cells of a
  grid with millions). It is also complete: a placement is one placement of each part, and a
  complete balanced part always has one through any of its cells
  (:func:`~reductions.nishio.parts.subgrid_placement`), so when no placement exists some
  chosen part has none and the formula is unsatisfiable. The parts the presolve proves
  impossible by counting are not taken on its word: their units are in the formula too, and
  the refutation covers them.
* **no simple nonrepetitive path p → q** (or **cycle through the arc e**)
  (:func:`path_clauses`): one variable per arc ("the arc is used") and

  - at every vertex other than p and q (every vertex, for a cycle): at most one used arc in,
    at most one out, and one in exactly when one out (¬a ∨ some out-arc, for every in-arc a,
    and the converse) — a simple path passes through a vertex once or not at all;
  - p: exactly one arc out and no arc in; q: exactly one in and none out — the path starts
    at p, ends at q, and being simple never comes back to either;
  - for every vertex v, every arc a into v and every arc b out of v with the same label:
    ¬a ∨ ¬b — on a simple path (cycle) the arcs used at v are consecutive, and consecutive
    labels differ; a loop (a = b) is never used;
  - cycle: the unit clause e.

  The arcs of a simple nonrepetitive path (cycle through e) satisfy every clause. (The
  formula allows vertex-disjoint cycles besides the path; they do not matter for "no".)

Each formula is solved once from scratch by a proof-logging pysat solver
(:func:`~solvers.certify.proofs.solve_with_proof`) and its proof checked
(:func:`~solvers.certify.checkers.check_proof`): accepted gives a :class:`Certificate`
naming the checker; a check that did not finish one with ``checker`` None (the claim is not
certified); a rejected proof is :class:`~solvers.certify.checkers.ProofRejected` (exit 4).
A certified formula found satisfiable is :class:`~solvers.outcome.WrongAnswer`: the
validation's solver said "no" where the proof-logging solver says "yes". A formula with an
empty clause (a chosen unit without any cell of S) is refuted on its face and needs no
proof: its certificate names :data:`EMPTY_CLAUSE` (drat-trim would not check it: it exits 1
on a "trivial UNSAT").
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from reductions.formulas import Formula
from reductions.nishio.parts import independent_parts
from reductions.nishio.placements import Cell, CellSet
from reductions.nonrepetitive.labelled_graph import LabelledGraph

from ..outcome import WrongAnswer
from ..runtime.budget import Deadline
from .clauses import exactly_one
from .proofs import proof_solver, solve_with_proof
from .refutation import CertifyOptions, check_refutation

__all__ = ["EMPTY_CLAUSE", "Certificate", "certify_formula", "certify_no_path", "certify_no_placement",
           "path_clauses", "placement_clauses", "placement_units"]


EMPTY_CLAUSE = "empty clause"
"""The ``checker`` of a claim whose formula holds the empty clause (module docstring)."""


@dataclass(frozen=True)
class Certificate:
    """One negative claim and its check: ``checker`` accepted the proof, or None when the
    check did not finish (``reason``: why; the claim is then not certified)."""

    claim: str
    checker: str | None
    reason: str | None = None
    proof_bytes: int = 0
    seconds: float = 0.0

    @property
    def certified(self) -> bool:
        return self.checker is not None


def certify_unsat(clauses: list[list[int]], num_vars: int, *, claim: str, name: str,
                  certify: CertifyOptions, solver: str,
                  time_limit: float | None = None) -> Certificate:
    """Certify that ``clauses`` (over variables 1..``num_vars``) are unsatisfiable, which
    means ``claim``: a fresh proof-logging ``solver`` refutes them and the checker accepts
    its proof. ``name`` is the stem of the kept files (``NAME.cnf``, ``NAME.drat``)."""
    start = time.perf_counter()
    solver = proof_solver(solver)
    if not all(clauses):
        return Certificate(claim, EMPTY_CLAUSE, seconds=time.perf_counter() - start)
    run = solve_with_proof(clauses, solver=solver, deadline=Deadline(time_limit))
    if run.satisfiable is None:
        return Certificate(claim, None, "time limit (solving the certified formula)",
                           seconds=time.perf_counter() - start)
    if run.satisfiable:
        raise WrongAnswer(f"{solver} found the certified formula of '{claim}' ({name}) "
                          "satisfiable after the validation's solver refuted it")
    check = check_refutation(certify, num_vars=num_vars, clause_blocks=[clauses],
                             comments=[claim], proof=run.proof,
                             claim=f"{solver}'s proof that {claim} ({name})", name=name,
                             time_limit=time_limit)
    return Certificate(claim, check.checker if check.certified else None, check.unfinished,
                       check.proof_bytes, time.perf_counter() - start)


def certify_formula(formula: Formula, *, name: str, certify: CertifyOptions,
                    solver: str) -> Certificate:
    """The formula itself is unsatisfiable (its clauses as read)."""
    return certify_unsat([list(c) for c in formula.clauses], formula.num_vars,
                         claim="the formula is unsatisfiable", name=name, certify=certify,
                         solver=solver)


# ----------------------------------------------------------------------------- placements

def placement_units(cells: CellSet, containing: Cell | None = None) -> np.ndarray:
    """The units (rows 0..N-1, columns N..2N-1, blocks 2N..3N-1) of the certified placement
    formula: those of every part of S that is not a balanced complete sub-grid, and the
    units of ``containing`` (module docstring); increasing."""
    shape, n = cells.shape, cells.size
    units: list[int] = []
    for part in independent_parts(cells):
        if part.counts_match(shape) and part.is_complete(shape):
            continue
        units += list(part.rows) + [n + c for c in part.cols] + [2 * n + k for k in part.blocks]
    if containing is not None:
        r, c = containing
        units += [r, n + c, 2 * n + shape.block_of(r, c)]
    return np.unique(np.asarray(units, dtype=np.int64))


def placement_clauses(cells: CellSet, units: Sequence[int],
                      containing: Cell | None = None) -> tuple[list[list[int]], int]:
    """The certified formula "a valid placement inside S (containing the cell)" restricted to
    ``units`` (module docstring), and its top variable. Cell variables are the cells of S in
    some listed unit, 1.. in row-major order; counter variables follow."""
    shape, n = cells.shape, cells.size
    chosen = np.zeros(3 * n, dtype=bool)
    chosen[np.asarray(units, dtype=np.int64)] = True
    a, b = shape.box_rows, shape.box_cols
    index = np.arange(n)
    block_grid = (index // a)[:, None] * (n // b) + (index // b)[None, :]
    in_formula = cells.mask & (chosen[index][:, None] | chosen[n + index][None, :]
                               | chosen[2 * n + block_grid])
    flat = np.flatnonzero(in_formula)
    rows, cols = flat // n, flat % n
    of_cell = np.concatenate([rows, n + cols, 2 * n + block_grid.ravel()[flat]])
    variables = np.tile(np.arange(1, flat.size + 1), 3)
    order = np.argsort(of_cell, kind="stable")
    of_cell, variables = of_cell[order], variables[order]
    starts = np.searchsorted(of_cell, np.arange(3 * n + 1))
    clauses: list[list[int]] = []
    top = int(flat.size)
    for unit in np.flatnonzero(chosen).tolist():
        more, top = exactly_one(variables[starts[unit]:starts[unit + 1]].tolist(), top)
        clauses += more
    if containing is not None:
        r, c = containing
        where = np.searchsorted(flat, r * n + c)
        if where == flat.size or flat[where] != r * n + c:
            raise ValueError(f"cell ({r + 1},{c + 1}) is not in S")
        clauses.append([int(where) + 1])
    return clauses, top


def certify_no_placement(cells: CellSet, *, containing: Cell | None = None, name: str,
                         what: str, certify: CertifyOptions, solver: str) -> Certificate:
    """No valid placement inside the cell set (``what`` names it: "S", "S'") contains
    ``containing`` (None: no valid placement at all)."""
    units = placement_units(cells, containing)
    clauses, top = placement_clauses(cells, units, containing)
    claim = f"{what} has no valid placement" + (
        "" if containing is None
        else f" containing row {containing[0] + 1}, column {containing[1] + 1}")
    return certify_unsat(clauses, top, claim=claim, name=name, certify=certify,
                         solver=solver)


# ----------------------------------------------------------------------------- paths

def path_clauses(graph: LabelledGraph, p: int | None, q: int | None,
                 cycle_arc: int | None = None) -> tuple[list[list[int]], int]:
    """The certified formula of a simple nonrepetitive path p → q (p ≠ q), or with
    ``cycle_arc`` (p = q = None) of a simple nonrepetitive cycle through that arc (module
    docstring), and its top variable. Arc a is variable a + 1; counter variables follow."""
    if cycle_arc is None and (p is None or q is None or p == q):
        raise ValueError("the path formula needs two different end vertices")
    arcs = graph.arcs()
    labels = arcs.labels.tolist()
    outgoing, incoming = graph.adjacency()
    top = graph.num_arcs
    clauses: list[list[int]] = []
    for v in range(graph.num_vertices):
        ins = [a + 1 for a in incoming[v]]
        outs = [b + 1 for b in outgoing[v]]
        if cycle_arc is None and v in (p, q):
            ones, nones = (outs, ins) if v == p else (ins, outs)
            more, top = exactly_one(ones, top)
            clauses += more + [[-x] for x in nones]
        else:
            for side, other in ((ins, outs), (outs, ins)):
                more, top = exactly_one(side, top)
                clauses += more[1:]                         # at most one, not at least
                clauses += [[-x] + other for x in side]     # in exactly when out
        clauses += [sorted({-(a + 1), -(b + 1)}) for a in incoming[v] for b in outgoing[v]
                    if labels[a] == labels[b]]                  # a loop: one literal
    if cycle_arc is not None:
        clauses.append([cycle_arc + 1])
    return clauses, top


def certify_no_path(graph: LabelledGraph, p: int | None, q: int | None, *,
                    cycle_arc: int | None = None, name: str, certify: CertifyOptions,
                    solver: str) -> Certificate:
    """The graph has no simple nonrepetitive path p → q (with ``cycle_arc``: no simple
    nonrepetitive cycle through that arc)."""
    clauses, top = path_clauses(graph, p, q, cycle_arc)
    if cycle_arc is None:
        claim = (f"no simple nonrepetitive path {graph.vertex_name(p)} -> "
                 f"{graph.vertex_name(q)}")
    else:
        tail, head = graph.arc_names(cycle_arc)[:2]
        claim = f"no simple nonrepetitive cycle through the arc {tail} -> {head}"
    return certify_unsat(clauses, top, claim=claim, name=name, certify=certify,
                         solver=solver)
