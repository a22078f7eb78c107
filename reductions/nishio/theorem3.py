"""Theorem 3 of Eppstein (FUN 2012, §6) on top of Theorem 2's gadget
(:mod:`reductions.nishio.gadget`), and what ``gadget nishio`` writes.

Theorem 3 (:func:`theorem3_instance`): add a fresh variable v0 to every clause and split each
resulting 4-clause (a ∨ b ∨ c ∨ v0) into (a ∨ b ∨ x) ∧ (¬x ∨ c ∨ v0) with a fresh x. The new
formula X' is satisfied by v0 = true (x = true), so Nishio(S') is never empty, and it has a
satisfying assignment with v0 = false iff the original is satisfiable — i.e. the false cells of
v0's gadget lie in Nishio(S') iff the original formula is satisfiable.

What ``gadget nishio`` writes: :func:`build_gadget` (either theorem) and its JSON map
(:meth:`BuiltGadget.record`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from ..formulas import Formula
from .gadget import (GadgetError, NishioGadget, TermGadget, check_formula, nishio_gadget,
                     value_function)
from .placements import Cell


# ----------------------------------------------------------------------------- Theorem 3

@dataclass(frozen=True)
class Theorem3Instance:
    """X' built from X: v0 added to every clause, 4-clauses split with fresh variables."""

    original: Formula
    formula: Formula
    v0: int
    split_variables: dict[int, int]          # original clause index -> its fresh x

    def lift(self, assignment: Mapping[int, bool] | Sequence[bool],
             v0_value: bool) -> dict[int, bool]:
        """An assignment of X (satisfying, when v0_value is false) → one of X'.

        x_j is true exactly when the first two literals of clause j are both false, which
        satisfies both halves of the split whenever the clause (or v0) is true.
        """
        value = value_function(assignment)
        out = {v: value(v) for v in range(1, self.original.num_vars + 1)}
        out[self.v0] = v0_value
        for j, x in self.split_variables.items():
            a, b = self.original.clauses[j][:2]
            out[x] = not (value(abs(a)) == (a > 0) or value(abs(b)) == (b > 0))
        return out

    def restrict(self, assignment: Mapping[int, bool]) -> dict[int, bool]:
        """An assignment of X' → its original variables."""
        return {v: bool(assignment.get(v, False)) for v in range(1, self.original.num_vars + 1)}


def theorem3_instance(formula: Formula) -> Theorem3Instance:
    """X' of Theorem 3: v0 = num_vars + 1, then one fresh variable per 3-literal clause."""
    check_formula(formula)
    v0 = formula.num_vars + 1
    next_var = v0 + 1
    clauses: list[tuple[int, ...]] = []
    split: dict[int, int] = {}
    for j, clause in enumerate(formula.clauses):
        if len(clause) < 3:
            clauses.append((*clause, v0))
        else:
            x = next_var
            next_var += 1
            split[j] = x
            a, b, c = clause
            clauses.append((a, b, x))
            clauses.append((-x, c, v0))
    return Theorem3Instance(formula, Formula(next_var - 1, tuple(clauses)), v0, split)


def theorem3_gadget(formula: Formula,
                    order: int | None = None) -> tuple[Theorem3Instance, NishioGadget]:
    instance = theorem3_instance(formula)
    return instance, nishio_gadget(instance.formula, order)


def v0_false_cells(instance: Theorem3Instance, gadget: NishioGadget) -> tuple[Cell, ...]:
    """The cells of v0's false choice: in Nishio(S') iff the original formula is satisfiable
    (empty when the formula has no clause, so v0 never occurs)."""
    g = gadget.variables.get(instance.v0)
    return g.false_cells if g else ()


# ------------------------------------------------------------------ what gadget nishio writes

VARIANTS = ("thm2", "thm3")
"""Theorem 2's S for the formula itself, or Theorem 3's S' for its X'."""


@dataclass(frozen=True)
class BuiltGadget:
    """The gadget of one theorem on one formula: ``gadget`` is built from the formula
    (Theorem 2) or from its X' (Theorem 3: ``theorem3`` and the cells of v0's false choice,
    which lie in Nishio(S') iff the formula is satisfiable)."""

    gadget: NishioGadget
    theorem3: Theorem3Instance | None = None
    v0_false: tuple[Cell, ...] = ()

    def record(self) -> dict:
        """The bookkeeping as JSON-ready data (0-based rows, columns, blocks; cells as
        [r, c]): which rows, columns, blocks and cells belong to which variable, clause and
        term, then the theorem (and for Theorem 3: v0, the split variables of each clause
        and v0's false cells)."""
        return {**gadget_record(self.gadget), **self._theorem_record()}

    def _theorem_record(self) -> dict:
        instance = self.theorem3
        if instance is None:
            return {"theorem": 2}
        return {"theorem": 3, "v0": instance.v0,
                "split_variables": {str(j + 1): x for j, x in instance.split_variables.items()},
                "v0_false_cells": [list(c) for c in self.v0_false]}


def build_gadget(formula: Formula, *, variant: str = "thm2",
                 order: int | None = None) -> BuiltGadget:
    """Theorem 2's gadget of ``formula`` (``variant="thm2"``) or Theorem 3's
    (``"thm3"``), on the grid of ``order`` (default: the theorem's)."""
    if variant == "thm3":
        instance, gadget = theorem3_gadget(formula, order)
        return BuiltGadget(gadget, instance, v0_false_cells(instance, gadget))
    if variant != "thm2":
        raise GadgetError(f"unknown variant {variant!r} (choose from {', '.join(VARIANTS)})")
    return BuiltGadget(nishio_gadget(formula, order))


def gadget_record(gadget: NishioGadget) -> dict:
    """A gadget's layout as JSON-ready data (see :meth:`BuiltGadget.record`)."""
    return {
        "order": gadget.order, "grid": gadget.shape.size,
        "num_vars": gadget.formula.num_vars, "clauses": [list(c) for c in gadget.formula.clauses],
        "terminal_stack": gadget.terminal_stack,
        "variables": {str(v): {"band": g.band, "rows": list(g.rows), "blocks": list(g.blocks),
                               "true_cells": [list(c) for c in g.true_cells],
                               "false_cells": [list(c) for c in g.false_cells]}
                      for v, g in gadget.variables.items()},
        "clause_gadgets": [{"band": c.band, "truth_row": c.truth_row,
                            "conflict_rows": list(c.conflict_rows),
                            "terminal_block": c.terminal_block,
                            "terminal_column": c.terminal_column,
                            "terms": [_term_record(t) for t in c.terms]}
                           for c in gadget.clauses],
    }


def _term_record(term: TermGadget) -> dict:
    return {"literal": term.literal, "block": term.block, "columns": list(term.columns),
            "truth_cell": list(term.truth_cell),
            "conflict_cells": [list(x) for x in term.conflict_cells]}
