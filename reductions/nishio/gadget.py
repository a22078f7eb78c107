"""3-CNF → Nishio decision instance: the NP-hardness gadgets of Eppstein (FUN 2012), §6.

Given a CNF formula with clauses of 1 to 3 literals, :func:`nishio_gadget` builds a cell set S
on an n²×n² grid with n×n blocks such that S contains a valid placement (one cell per row,
column and block; see :mod:`reductions.nishio.placements`) **iff the formula is satisfiable**
(Theorem 2). The order is n = max(v + c, 3c + 1) for v variables and c clauses (the theorem's
bound; a larger n may be asked for). A *band* is a row of n blocks, a *stack* a column of n
blocks. Rows, columns, blocks are 0-based; blocks row-major as in :mod:`reductions.sudoku.grid`.

Layout. Number the literal occurrences o = 0..L-1 in clause order (L ≤ 3c); occurrence o owns
stack o, whose first two columns are X_o and Y_o. Stack L is the *terminal stack*. Each
variable that occurs gets a band (in variable order), then each clause a band.

* Variable gadget, variable x with occurrences o_0..o_{k-1}: rows ρ_0..ρ_{k-1} (the first k
  rows of its band) and the k blocks (band x, stack o_t). Block t holds the *true cell*
  (ρ_t, X_{o_t}) and the *false cell* (ρ_{t+1 mod k}, Y_{o_t}). Block t and rows ρ_t, ρ_{t+1}
  chain the 2k cells into one conflict cycle, so the gadget's k rows and k blocks are covered
  by exactly two choices: all true cells (x = true, columns X used, Y left free) or all false
  cells (x = false, Y used, X left free).
* Clause gadget, clause j with literals ℓ_0..ℓ_{w-1} (w ≤ 3): truth-setting row T_j (first row
  of its band) and conflict rows K_{j,0..w-1} (the next w rows). Term block p is the block
  (band j, stack o) of the occurrence o of ℓ_p; it holds the *truth cell* (T_j, free column of
  ℓ_p) — Y_o for a positive literal, X_o for a negative one, i.e. the column the variable block
  leaves free exactly when ℓ_p is true — and the two *conflict cells* (K_{j,p}, X_o),
  (K_{j,p}, Y_o). The terminal block (band j, terminal stack) holds w cells in its own column
  Z_j, one in each conflict row.
* Filler: every cell whose row, column and block are all outside the gadgets.

Why it is correct. Count first: every band has as many gadget rows as gadget blocks (k and k;
w + 1 and w + 1) and every stack as many gadget columns as gadget blocks (2 and 2; c and c), so
the filler — a complete sub-grid — always has a placement
(:func:`reductions.nishio.parts.subgrid_placement`), independent of the gadgets (no cell joins a
gadget unit to a filler unit). In a valid placement P ⊆ S: each variable gadget is all-true or
all-false, giving an assignment. In clause j the terminal block uses some conflict row K_{j,p};
every other conflict row K_{j,q} has cells only in term block q, which must therefore use it;
so term block p must use the truth row, in its truth cell, whose column the variable block
must leave free: ℓ_p is true. Conversely a satisfying assignment and a true literal per clause
give P directly (:func:`placement_from_assignment`).

Sizes (L occurrences, w_j clause widths, k_x occurrence counts): gadget rows = gadget columns
= gadget blocks = 2L + c; gadget cells = 6L (2 per variable block, 3 per term block, w_j per
terminal block); with F = n² − 2L − c free rows (= free columns),

    |S| = 6L + F² − Σ_x k_x (n − k_x)(n − 2) − Σ_j (n − w_j − 1) (w_j (n − 2) + (n − c)).

For 5 variables and 6 three-literal clauses: n = 19, a 361×361 grid, |S| ≈ 92,000 (of 130,321).

Explicit choices the paper leaves open:

* clauses with fewer than 3 literals get w term blocks, w conflict rows and w terminal cells
  (the argument above never uses w = 3): no padding, no new variables, same satisfiability;
* a variable that occurs once has a one-block "cycle": both of its cells lie in the single row
  ρ_0 (ρ_{1 mod 1} = ρ_0); the block and the row still admit exactly the two choices;
* a variable that never occurs gets no gadget and no band (any value satisfies the same
  clauses); extraction sets it to false;
* empty clauses and clauses wider than 3 are refused (:class:`GadgetError` names the clause).

Extraction (:func:`assignment_from_placement`): read each variable gadget (all-true or
all-false), and for each clause the term block using the truth row names a true literal; both
facts are checked, not assumed. As a :class:`~reductions.reduction.ReductionRule`:
:class:`SatToNishio`.

Theorem 3's variant and what ``gadget nishio`` writes (either theorem's gadget and its JSON
map) are in :mod:`reductions.nishio.theorem3`.

"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ..errors import UserError
from ..formulas import Formula, literal_value
from ..sudoku.grid import Shape
from .placements import Cell, CellSet, placement_problems
from .parts import subgrid_placement
from ..reduction import satisfying_values


class GadgetError(UserError):
    """A formula the construction does not accept, or an answer that does not decode."""


# ----------------------------------------------------------------------------- records

@dataclass(frozen=True)
class VariableGadget:
    """The cycle of one variable: block t holds true_cells[t] and false_cells[t]."""

    variable: int
    band: int
    rows: tuple[int, ...]                    # ρ_0..ρ_{k-1}
    occurrences: tuple[int, ...]             # global occurrence numbers (= stacks)
    blocks: tuple[int, ...]
    true_cells: tuple[Cell, ...]
    false_cells: tuple[Cell, ...]


@dataclass(frozen=True)
class TermGadget:
    """Term p of clause j: the block under the variable block of the same occurrence."""

    clause: int
    position: int
    literal: int
    occurrence: int                          # = its stack
    block: int
    variable_block: int
    columns: tuple[int, int]                 # (X, Y): X is used by "true", Y by "false"
    truth_cell: Cell
    conflict_cells: tuple[Cell, Cell]


@dataclass(frozen=True)
class ClauseGadget:
    index: int
    literals: tuple[int, ...]
    band: int
    truth_row: int
    conflict_rows: tuple[int, ...]
    terms: tuple[TermGadget, ...]
    terminal_block: int
    terminal_column: int
    terminal_cells: tuple[Cell, ...]         # one per conflict row


@dataclass(frozen=True, eq=False)
class NishioGadget:
    """The cell set S of Theorem 2 with the bookkeeping needed to decode placements."""

    formula: Formula
    order: int                               # n: the grid is n²×n², blocks n×n
    cells: CellSet
    variables: dict[int, VariableGadget]     # only variables that occur
    clauses: tuple[ClauseGadget, ...]
    terminal_stack: int
    gadget_rows: frozenset[int]
    gadget_cols: frozenset[int]
    gadget_blocks: frozenset[int]
    labels: dict[int, str] = field(default_factory=dict)   # block -> short label

    @property
    def shape(self) -> Shape:
        return self.cells.shape

    @property
    def occurrences(self) -> int:
        return sum(len(c.terms) for c in self.clauses)

    def gadget_cells(self) -> list[Cell]:
        """All cells of S inside gadget rows (= inside gadget columns, = gadget blocks)."""
        return _gadget_cells(self.variables, self.clauses)

    def block_kind(self, block: int) -> str | None:
        """'variable', 'term', 'terminal' or None (a filler block)."""
        return self._kinds().get(block)

    def _kinds(self) -> dict[int, str]:
        kinds = {b: "variable" for g in self.variables.values() for b in g.blocks}
        for clause in self.clauses:
            kinds.update({t.block: "term" for t in clause.terms})
            kinds[clause.terminal_block] = "terminal"
        return kinds

    def owner_of_row(self, row: int) -> str | None:
        """Which gadget a row belongs to, e.g. 'x2 ρ1', 'C3 truth', 'C3 conflict 2'."""
        for g in self.variables.values():
            if row in g.rows:
                return f"x{g.variable} ρ{g.rows.index(row)}"
        for clause in self.clauses:
            if row == clause.truth_row:
                return f"C{clause.index + 1} truth"
            if row in clause.conflict_rows:
                return f"C{clause.index + 1} conflict {clause.conflict_rows.index(row) + 1}"
        return None

    def owner_of_column(self, col: int) -> str | None:
        for clause in self.clauses:
            for term in clause.terms:
                if col in term.columns:
                    side = "X" if col == term.columns[0] else "Y"
                    literal = _literal_name(term.literal)
                    return f"occurrence {term.occurrence + 1} ({literal}) {side}"
            if col == clause.terminal_column:
                return f"C{clause.index + 1} terminal"
        return None


@dataclass(frozen=True)
class Extraction:
    """What a placement inside S says: the assignment and, per clause, the true term used."""

    assignment: dict[int, bool]
    witnesses: tuple[int, ...]               # clause j: position of the term on the truth row


def _gadget_cells(variables: Mapping[int, VariableGadget],
                  clauses: Sequence[ClauseGadget]) -> list[Cell]:
    out = [cell for g in variables.values() for cell in g.true_cells + g.false_cells]
    for clause in clauses:
        for term in clause.terms:
            out.append(term.truth_cell)
            out.extend(term.conflict_cells)
        out.extend(clause.terminal_cells)
    return sorted(out)


def _literal_name(lit: int) -> str:
    return f"x{lit}" if lit > 0 else f"¬x{-lit}"


# ----------------------------------------------------------------------------- order

def theorem_order(formula: Formula) -> int:
    """Theorem 2's n = max(v + c, 3c + 1), and at least 2."""
    v, c = formula.num_vars, formula.num_clauses
    return max(v + c, 3 * c + 1, 2)


def order_problems(formula: Formula, order: int) -> list[str]:
    """Why the gadgets do not fit n×n blocks of an n²×n² grid; empty when they fit."""
    occurring = {abs(x) for clause in formula.clauses for x in clause}
    occurrences = sum(len(c) for c in formula.clauses)
    c = formula.num_clauses
    problems = []
    if order < 2:
        problems.append(f"order {order} < 2")
    if len(occurring) + c > order:
        problems.append(f"{len(occurring)} variable bands + {c} clause bands > {order} bands")
    if c and occurrences + 1 > order:
        problems.append(f"{occurrences} occurrence stacks + 1 terminal stack > {order} stacks")
    if c > order:
        problems.append(f"{c} terminal columns > {order} columns of the terminal stack")
    most = max((sum(1 for cl in formula.clauses for x in cl if abs(x) == v) for v in occurring),
               default=0)
    if most > order:
        problems.append(f"a variable with {most} occurrences needs {most} rows > {order}")
    if formula.max_width + 1 > order:
        problems.append(f"a {formula.max_width}-literal clause needs {formula.max_width + 1} "
                        f"rows > {order}")
    return problems


def check_formula(formula: Formula) -> None:
    for index, clause in enumerate(formula.clauses, start=1):
        if not clause:
            raise GadgetError(f"clause {index} is empty: the gadgets need 1 to 3 literals")
        if len(clause) > 3:
            raise GadgetError(f"clause {index} {list(clause)} has {len(clause)} literals; "
                              f"the Nishio gadgets take at most 3")


# ----------------------------------------------------------------------------- construction

def nishio_gadget(formula: Formula, order: int | None = None) -> NishioGadget:
    """Build S for ``formula`` on an n²×n² grid (n = ``order``, default :func:`theorem_order`).

    Linear in the grid: one boolean mask, gadget rows / columns / blocks cleared, then the 6L
    gadget cells set.
    """
    n = _checked_order(formula, order)
    shape = Shape(n, n)
    # occurrences in clause order: o -> (clause, position, literal)
    occurrence_list = [(j, p, lit) for j, clause in enumerate(formula.clauses)
                       for p, lit in enumerate(clause)]
    X = [o * n for o in range(len(occurrence_list))]
    Y = [o * n + 1 for o in range(len(occurrence_list))]
    terminal_stack = len(occurrence_list)
    variables = _variable_gadgets(occurrence_list, n, X, Y)
    clauses = _clause_gadgets(formula, occurrence_list, variables, n, X, Y, terminal_stack)
    gadget_rows, gadget_cols, gadget_blocks = _gadget_lines(variables, clauses)
    mask = _outside_lines_mask(shape, gadget_rows, gadget_cols, gadget_blocks)
    labels = _block_labels(variables, clauses)
    for r, c in _gadget_cells(variables, clauses):
        mask[r, c] = True
    return NishioGadget(formula=formula, order=n, cells=CellSet(mask, shape),
                        variables=variables, clauses=tuple(clauses),
                        terminal_stack=terminal_stack, gadget_rows=frozenset(gadget_rows),
                        gadget_cols=frozenset(gadget_cols),
                        gadget_blocks=frozenset(gadget_blocks), labels=labels)


def _checked_order(formula: Formula, order: int | None) -> int:
    """The order n to build on, after refusing formulas and orders the gadgets do not fit."""
    check_formula(formula)
    n = theorem_order(formula) if order is None else order
    problems = order_problems(formula, n)
    if problems:
        raise GadgetError(f"order {n} is too small: " + "; ".join(problems))
    return n


def _variable_gadgets(occurrence_list, n: int, X, Y) -> dict[int, VariableGadget]:
    """One band per occurring variable: its cycle of true/false cells over its occurrences."""
    variables: dict[int, VariableGadget] = {}
    occurring = sorted({abs(lit) for _, _, lit in occurrence_list})
    for band, var in enumerate(occurring):
        occ = [o for o, (_, _, lit) in enumerate(occurrence_list) if abs(lit) == var]
        k = len(occ)
        rows = tuple(band * n + t for t in range(k))
        variables[var] = VariableGadget(
            variable=var, band=band, rows=rows, occurrences=tuple(occ),
            blocks=tuple(band * n + o for o in occ),
            true_cells=tuple((rows[t], X[o]) for t, o in enumerate(occ)),
            false_cells=tuple((rows[(t + 1) % k], Y[o]) for t, o in enumerate(occ)))
    return variables


def _clause_gadgets(formula: Formula, occurrence_list, variables, n: int, X, Y,
                    terminal_stack: int) -> list[ClauseGadget]:
    """One band per clause (after the variable bands): its terms and its terminal block."""
    occurrence_of = {(j, p): o for o, (j, p, _) in enumerate(occurrence_list)}
    clauses = []
    for j, literals in enumerate(formula.clauses):
        band = len(variables) + j
        truth_row = band * n
        conflict_rows = tuple(band * n + 1 + p for p in range(len(literals)))
        terms = []
        for p, lit in enumerate(literals):
            o = occurrence_of[(j, p)]
            free_column = Y[o] if lit > 0 else X[o]       # left free when lit is true
            terms.append(TermGadget(
                clause=j, position=p, literal=lit, occurrence=o, block=band * n + o,
                variable_block=variables[abs(lit)].band * n + o, columns=(X[o], Y[o]),
                truth_cell=(truth_row, free_column),
                conflict_cells=((conflict_rows[p], X[o]), (conflict_rows[p], Y[o]))))
        terminal_column = terminal_stack * n + j
        clauses.append(ClauseGadget(
            index=j, literals=tuple(literals), band=band, truth_row=truth_row,
            conflict_rows=conflict_rows, terms=tuple(terms),
            terminal_block=band * n + terminal_stack, terminal_column=terminal_column,
            terminal_cells=tuple((r, terminal_column) for r in conflict_rows)))
    return clauses


def _gadget_lines(variables, clauses) -> tuple[set[int], set[int], set[int]]:
    """The rows, columns and blocks the gadgets use."""
    gadget_rows = {r for g in variables.values() for r in g.rows}
    gadget_rows |= {r for c in clauses for r in (c.truth_row, *c.conflict_rows)}
    gadget_cols = {x for c in clauses for t in c.terms for x in t.columns}
    gadget_cols |= {c.terminal_column for c in clauses}
    gadget_blocks = {b for g in variables.values() for b in g.blocks}
    gadget_blocks |= {b for c in clauses for b in (*(t.block for t in c.terms), c.terminal_block)}
    return gadget_rows, gadget_cols, gadget_blocks


def _outside_lines_mask(shape: Shape, rows, cols, blocks) -> np.ndarray:
    """The grid's cells in no gadget row, column or block (True = in S)."""
    n, N = shape.box_rows, shape.size
    in_row = np.zeros(N, dtype=bool)
    in_row[sorted(rows)] = True
    in_col = np.zeros(N, dtype=bool)
    in_col[sorted(cols)] = True
    in_block = np.zeros(N, dtype=bool)
    in_block[sorted(blocks)] = True
    block_mask = np.repeat(np.repeat(in_block.reshape(n, n), n, axis=0), n, axis=1)
    return ~(in_row[:, None] | in_col[None, :] | block_mask)


def _block_labels(variables, clauses) -> dict[int, str]:
    """Short labels of the gadget blocks: the variable, the clause's literal, the clause end."""
    labels = {}
    for g in variables.values():
        for b in g.blocks:
            labels[b] = f"x{g.variable}"
    for c in clauses:
        for t in c.terms:
            labels[t.block] = f"C{c.index + 1}:{_literal_name(t.literal)}"
        labels[c.terminal_block] = f"C{c.index + 1} end"
    return labels


def expected_cell_count(formula: Formula, order: int | None = None) -> int:
    """|S| by the closed formula of the module docstring (checked against the build)."""
    n = theorem_order(formula) if order is None else order
    c = formula.num_clauses
    widths = [len(cl) for cl in formula.clauses]
    occ = sum(widths)
    counts: dict[int, int] = {}
    for cl in formula.clauses:
        for lit in cl:
            counts[abs(lit)] = counts.get(abs(lit), 0) + 1
    free = n * n - 2 * occ - c
    total = 6 * occ + free * free
    total -= sum(k * (n - k) * (n - 2) for k in counts.values())
    total -= sum((n - w - 1) * (w * (n - 2) + (n - c)) for w in widths)
    return total


def filler_units(gadget: NishioGadget) -> tuple[list[int], list[int], list[int]]:
    """The rows, columns and blocks outside every gadget."""
    N = gadget.shape.size
    return ([r for r in range(N) if r not in gadget.gadget_rows],
            [c for c in range(N) if c not in gadget.gadget_cols],
            [b for b in range(N) if b not in gadget.gadget_blocks])


# ----------------------------------------------------------------------------- forward map

def value_function(assignment: Mapping[int, bool] | Sequence[bool]):
    """The truth value of a literal under ``assignment`` (a mapping or a sequence of values)."""
    return lambda var: literal_value(assignment, var)


def placement_from_assignment(gadget: NishioGadget,
                              assignment: Mapping[int, bool] | Sequence[bool]) -> list[Cell]:
    """A satisfying assignment → a valid placement inside S (checked before it is returned).

    Variable gadgets take their true or false cells; in each clause the first true literal's
    term block takes its truth cell and the terminal block the matching conflict row; the
    other term blocks take the conflict cell in the column their variable leaves free; the
    filler is completed band by band and stack by stack.
    """
    formula = gadget.formula
    falsified = formula.falsified_clauses(assignment)
    if falsified:
        j = falsified[0]
        raise GadgetError(f"the assignment falsifies clause {j + 1} "
                          f"{list(formula.clauses[j])}: no placement to map it to")
    value = value_function(assignment)
    placement: list[Cell] = []
    for var, g in gadget.variables.items():
        placement.extend(g.true_cells if value(var) else g.false_cells)
    for clause in gadget.clauses:
        witness = next(t for t in clause.terms if value(abs(t.literal)) == (t.literal > 0))
        placement.append(clause.terminal_cells[witness.position])
        for term in clause.terms:
            if term is witness:
                placement.append(term.truth_cell)
            else:
                x_col, y_col = term.columns
                free = y_col if value(abs(term.literal)) else x_col
                placement.append((clause.conflict_rows[term.position], free))
    rows, cols, blocks = filler_units(gadget)
    filler = subgrid_placement(gadget.shape, rows, cols, blocks)
    if filler is None:
        raise GadgetError("bug: the filler's rows, columns and blocks do not balance")
    placement = sorted(placement + filler)
    problems = placement_problems(placement, gadget.shape, gadget.cells)
    if problems:
        raise GadgetError("bug: the forward map built an invalid placement: "
                          + "; ".join(problems[:3]))
    return placement


# ----------------------------------------------------------------------------- extraction

def assignment_from_placement(gadget: NishioGadget, placement: Sequence[Cell]) -> Extraction:
    """Any valid placement inside S → a satisfying assignment, with a true term per clause.

    Raises :class:`GadgetError` when the placement is not valid inside S, or — which the
    theorem rules out, so it would be a bug — when a gadget is read inconsistently.
    """
    problems = placement_problems(list(placement), gadget.shape, gadget.cells)
    if problems:
        raise GadgetError("not a valid placement inside S: " + "; ".join(problems[:3]))
    chosen = set(map(tuple, placement))
    assignment = {v: False for v in range(1, gadget.formula.num_vars + 1)}
    for var, g in gadget.variables.items():
        true_used = sum(cell in chosen for cell in g.true_cells)
        false_used = sum(cell in chosen for cell in g.false_cells)
        if (true_used, false_used) not in ((len(g.rows), 0), (0, len(g.rows))):
            raise GadgetError(f"variable x{var}'s gadget uses {true_used} true and "
                              f"{false_used} false cells: not a consistent value")
        assignment[var] = true_used > 0
    witnesses = []
    for clause in gadget.clauses:
        used = [t for t in clause.terms if t.truth_cell in chosen]
        if len(used) != 1:
            raise GadgetError(f"clause {clause.index + 1}: {len(used)} terms use the truth row")
        term = used[0]
        if assignment[abs(term.literal)] != (term.literal > 0):
            raise GadgetError(f"clause {clause.index + 1}: term {_literal_name(term.literal)} "
                              f"uses the truth row but is false")
        witnesses.append(term.position)
    if not gadget.formula.is_satisfied_by(assignment):
        raise GadgetError("the extracted assignment does not satisfy the formula")
    return Extraction(assignment, tuple(witnesses))


# ----------------------------------------------------------------------------- the rule

@dataclass(frozen=True)
class SatToNishio:
    """3SAT → Nishio placement as a :class:`~reductions.reduction.ReductionRule` (Eppstein,
    FUN 2012, §6, Theorem 2; the module docstring gives the layout and the proof).

    Solution: the values of variables 1..num_vars, a tuple of bools. Witness: a valid
    placement inside S, its cells sorted. Size formula (n the order, L occurrences, c
    clauses): an n²×n² grid, 2L + c gadget rows, columns and blocks, and |S| as in the module
    docstring (:func:`expected_cell_count`). A variable that never occurs has no gadget and
    extracts as false, so the closed loop holds for assignments that set those false.
    """

    source: Formula
    target: NishioGadget

    @classmethod
    def build(cls, formula: Formula, *, order: int | None = None) -> "SatToNishio":
        """The cell set S of ``formula`` (:func:`nishio_gadget`)."""
        return cls(formula, nishio_gadget(formula, order))

    def expected_size(self) -> dict[str, int]:
        formula, n = self.source, self.target.order
        gadget_units = 2 * sum(map(len, formula.clauses)) + formula.num_clauses
        return {"side": n * n, "cells": expected_cell_count(formula, n),
                "gadget rows": gadget_units, "gadget columns": gadget_units,
                "gadget blocks": gadget_units}

    def actual_size(self) -> dict[str, int]:
        gadget = self.target
        return {"side": gadget.shape.size, "cells": gadget.cells.count(),
                "gadget rows": len(gadget.gadget_rows),
                "gadget columns": len(gadget.gadget_cols),
                "gadget blocks": len(gadget.gadget_blocks)}

    def forward(self, solution: Mapping[int, bool] | Sequence[bool]) -> tuple[Cell, ...]:
        """The placement of a satisfying assignment (:func:`placement_from_assignment`)."""
        values = satisfying_values(self.source, solution, GadgetError)
        return tuple(placement_from_assignment(self.target, values))

    def extract(self, witness: Sequence[Cell]) -> tuple[bool, ...]:
        """The assignment a valid placement inside S spells
        (:func:`assignment_from_placement`, which checks the placement and the result)."""
        assignment = assignment_from_placement(self.target, witness).assignment
        return tuple(assignment[v] for v in range(1, self.source.num_vars + 1))
