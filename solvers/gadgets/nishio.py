"""Nishio(S) at any size by SAT: "is there a valid placement inside S containing cell z?"

The third method beside the DAG (:mod:`reductions.nishio.dag`) and pattern overlay
(:mod:`reductions.nishio.placements`), and the only one usable on the big grids the 3SAT
reduction produces (a 361×361 grid for 6 clauses).

Model (exact cover as CNF). One Boolean variable per cell *of S* (cells outside S are simply
absent: the model is as sparse as S), numbered 1..m in row-major order; auxiliary variables come
from pysat's ``IDPool``. Every row, column and block gets "exactly one of its cells in S": one
at-least-one clause and an at-most-one from ``CardEnc`` (``seqcounter`` by default, pairwise
for units of at most :data:`PAIRWISE_MAX` cells). Its models are exactly the valid placements
inside S.

One incremental solver (CaDiCaL 1.9.5 by default) answers every question by *assumptions*:
"a placement containing z" is one call assuming z's variable. Nishio(S) asks, for each cell of
S not yet covered by an earlier answer, whether a placement contains it; every model found
covers N cells at once, and every refuted cell becomes a unit clause ¬z that the later calls
keep.

Presolve (``split=True``, the default). S falls apart into independent parts
(:func:`reductions.nishio.parts.independent_parts`): a placement inside S is one placement of each
part. A part fails at once when some band (stack) has a different number of its rows
(columns) and blocks. A *complete* part — S holds every cell of its rows × columns inside its
blocks — with matching counts always has placements through every one of its cells
(:func:`reductions.nishio.parts.subgrid_placement` builds them), so it needs no solver. Only the
other parts become SAT variables. This matters for the gadget grids: their filler (all cells
away from the gadgets) is one huge complete part, while the gadgets are a part of a few hundred
cells. ``split=False`` puts every cell of S into the SAT model (the tests check both agree).

Every placement returned is checked (:func:`reductions.nishio.placements.placement_problems`);
a wrong one raises :class:`solvers.outcome.WrongAnswer`.

Sizes and times: ``benchmarks/results/nishio.md`` (the split model decides the big gadget
grids far faster than the pure one, whose time goes mostly into building its clauses).

:func:`validate_formula` runs the closed loop of the 3SAT reduction on one formula (the
``gadget nishio --validate`` command): the formula's satisfiability by a SAT solver against
the placement model on S, extraction, forward map, and the Theorem 3 instance;
:func:`validate_formulas` a whole run (:func:`fixed_formulas` by default). With ``certify``
(``--certify``) each negative answer of the loop is backed by a checked proof of a formula
written from the definition (:mod:`solvers.certify.gadgets`, which says why the presolve's
split needs no trust).

For the ``nishio`` command: :func:`choose_method` (``auto``: the DAG while it is small, else
SAT), :func:`check_nishio_method` (what a method cannot do, refused before any work) and
:func:`nishio_with_stats`; for ``gadget nishio --show-placement``: :func:`shown_placement`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from reductions.errors import UserError
from reductions.formulas import Formula, all_sign_patterns, example_satisfiable
from reductions.nishio.dag import DAG_VERTEX_LIMIT, almost_balanced_count, nishio
from reductions.nishio.placements import (OVERLAY_LIMIT, Cell, CellSet, NishioError,
                                          is_valid_placement, placement_problems,
                                          valid_placement_count)
from reductions.nishio.parts import Part, independent_parts, subgrid_placement
from reductions.nishio.gadget import (GadgetError, NishioGadget, assignment_from_placement,
                                      nishio_gadget, placement_from_assignment)
from reductions.nishio.theorem3 import theorem3_gadget, theorem3_instance, v0_false_cells
from reductions.estimate import TooLarge, ensure_fits
from reductions.formulas import formula_sat_estimate
from reductions.nishio.sizes import (nishio_dag_estimate, nishio_overlay_estimate,
                                     nishio_validation_estimate, placement_model_estimate)

from ..outcome import WrongAnswer
from ..certify.gadgets import Certificate, certify_formula, certify_no_placement
from ..certify.refutation import CertifyOptions, proof_name
from ..runtime.pysat_solvers import DEFAULT_SOLVER, new_pysat_solver, solve_formula

PAIRWISE_MAX = 4
"""Units with at most this many cells of S get pairwise at-most-one clauses (≤ 6 clauses,
no auxiliary variable); larger ones the sequential counter."""

AMO_ENCODINGS = {"seqcounter": EncType.seqcounter, "ladder": EncType.ladder,
                 "totalizer": EncType.totalizer, "pairwise": EncType.pairwise}


class PlacementModel:
    """The SAT model of the valid placements inside one cell set, with one shared solver.

    ``find(z)`` returns a checked placement containing z (or any placement for z = None), or
    None when there is none; ``nishio()`` is Nishio(S); ``stats`` records sizes and calls.
    Use as a context manager (or call ``close``) to free the solver. With ``max_memory``
    (bytes), a model whose estimate (:func:`reductions.nishio.sizes.placement_model_estimate`) is
    over it raises :class:`~reductions.estimate.TooLarge` before its clauses are made.
    """

    def __init__(self, cells: CellSet, solver: str = DEFAULT_SOLVER, split: bool = True,
                 amo: str = "seqcounter", *, max_memory: int | None = None):
        if amo not in AMO_ENCODINGS:
            raise NishioError(f"unknown at-most-one encoding {amo!r} "
                              f"(choose from {', '.join(AMO_ENCODINGS)})")
        start = time.perf_counter()
        self.cells = cells
        self.shape = cells.shape
        self.impossible = False           # proved without the solver
        self.complete_parts: list[Part] = []
        self._complete_part_of_row: dict[int, Part] = {}
        sat_cells = self._presolved_sat_cells() if split else cells.flat()
        m = len(sat_cells)
        # The cells that become variables are known now: refuse a model that will not fit
        # before any clause is made.
        ensure_fits(placement_model_estimate(m), max_memory, "the placement model")
        self.sat_cells = sat_cells                         # variable i+1 is cell sat_cells[i]
        self._var_of = {c: i + 1 for i, c in enumerate(sat_cells.tolist())}
        pool = IDPool(occupied=[[1, m]] if m else [])
        self.solver = new_pysat_solver(solver)
        clauses, covered = self._add_exactly_one_clauses(pool, amo) if m else (0, 0)
        if not split and covered < 3 * self.shape.size:
            # A unit without any cell of S cannot be covered: no placement at all.
            self.impossible = True
        self.stats: dict[str, Any] = {
            "cells": cells.count(),
            "sat_variables": max(pool.top, m),
            "cell_variables": m,
            "clauses": clauses,
            "parts": None if not split else len(self.complete_parts) + (1 if m else 0),
            "complete_parts": len(self.complete_parts),
            "complete_cells": sum(p.cell_count for p in self.complete_parts),
            "solver_calls": 0,
            "build_seconds": round(time.perf_counter() - start, 4),
            "solve_seconds": 0.0,
        }

    def _presolved_sat_cells(self) -> np.ndarray:
        """Sort S's independent parts: record impossible and complete ones; the rest's cells."""
        n = self.shape.size
        sat_rows = np.zeros(n, dtype=bool)
        for part in independent_parts(self.cells):
            if not part.counts_match(self.shape):
                self.impossible = True
            elif part.is_complete(self.shape):
                self.complete_parts.append(part)
                self._complete_part_of_row.update(dict.fromkeys(part.rows, part))
            else:
                sat_rows[list(part.rows)] = True
        return np.flatnonzero(self.cells.mask & sat_rows[:, None])

    def _add_exactly_one_clauses(self, pool: IDPool, amo: str) -> tuple[int, int]:
        """Give the solver "exactly one" for every unit with a variable: (clauses, units)."""
        n, a, b = self.shape.size, self.shape.box_rows, self.shape.box_cols
        sat_cells, m = self.sat_cells, len(self.sat_cells)
        clauses = 0
        covered = 0
        rows, cols = sat_cells // n, sat_cells % n
        blocks = (rows // a) * (n // b) + cols // b
        units = np.concatenate([rows, n + cols, 2 * n + blocks])
        variables = np.tile(np.arange(1, m + 1), 3)
        order = np.argsort(units, kind="stable")
        units, variables = units[order], variables[order]
        bounds = np.flatnonzero(np.diff(units)) + 1
        for lits in np.split(variables, bounds):
            lits = lits.tolist()
            self.solver.add_clause(lits)
            clauses += 1
            covered += 1
            if len(lits) > 1:
                encoding = (EncType.pairwise if len(lits) <= PAIRWISE_MAX
                            else AMO_ENCODINGS[amo])
                amo_clauses = CardEnc.atmost(lits, bound=1, vpool=pool,
                                             encoding=encoding).clauses
                self.solver.append_formula(amo_clauses)
                clauses += len(amo_clauses)
        return clauses, covered

    # -------------------------------------------------------------- solving

    def _solve(self, assumptions: list[int]) -> bool:
        start = time.perf_counter()
        result = self.solver.solve(assumptions=assumptions)
        self.stats["solver_calls"] += 1
        self.stats["solve_seconds"] += time.perf_counter() - start
        return bool(result)

    def _model_cells(self) -> list[int]:
        m = len(self.sat_cells)
        if not m:
            return []
        model = np.asarray(self.solver.get_model()[:m])
        return self.sat_cells[model > 0].tolist()

    def find(self, containing: Cell | None = None) -> list[Cell] | None:
        """A valid placement inside S (containing the given cell), checked; None if none."""
        n = self.shape.size
        if self.impossible:
            return None
        assumptions = []
        forced_part = None
        if containing is not None:
            r, c = containing
            if not (0 <= r < n and 0 <= c < n) or not self.cells.mask[r, c]:
                return None
            flat = r * n + c
            if flat in self._var_of:
                assumptions = [self._var_of[flat]]
            else:
                forced_part = self._complete_part_of_row[r]
        if (self.sat_cells.size or assumptions) and not self._solve(assumptions):
            return None
        placement = [divmod(flat, n) for flat in self._model_cells()]
        for part in self.complete_parts:
            placement += subgrid_placement(self.shape, part.rows, part.cols, part.blocks,
                                           containing if part is forced_part else None)
        placement.sort()
        problems = placement_problems(placement, self.shape, self.cells)
        if containing is not None and tuple(containing) not in set(placement):
            problems.append(f"cell ({containing[0] + 1},{containing[1] + 1}) was asked for "
                            f"but is not in the placement")
        if problems:
            raise WrongAnswer("the placement model returned an invalid placement: "
                              + "; ".join(problems[:3]))
        return placement

    def has_placement(self) -> bool:
        """The decision version: Nishio(S) ≠ ∅."""
        return self.find() is not None

    def nishio(self) -> CellSet:
        """Nishio(S): the cells of S lying in some valid placement inside S."""
        n = self.shape.size
        mask = np.zeros(n * n, dtype=bool)
        first = self.find()
        if first is None:
            return CellSet(mask.reshape(n, n), self.shape)
        for r, c in first:
            mask[r * n + c] = True
        complete_rows = np.zeros(n, dtype=bool)
        complete_rows[list(self._complete_part_of_row)] = True
        mask |= (self.cells.mask & complete_rows[:, None]).ravel()   # all usable (see above)
        for flat in self.sat_cells.tolist():
            if mask[flat]:
                continue
            var = self._var_of[flat]
            if self._solve([var]):
                mask[self._model_cells()] = True
            else:
                self.solver.add_clause([-var])   # no placement uses this cell: keep that
        return CellSet(mask.reshape(n, n), self.shape)

    # -------------------------------------------------------------- lifetime

    def close(self) -> None:
        if self.solver is not None:
            self.solver.delete()
            self.solver = None

    def __enter__(self) -> "PlacementModel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def nishio_sat(cells: CellSet, solver: str = DEFAULT_SOLVER, split: bool = True) -> CellSet:
    """Nishio(S) by the placement SAT model."""
    with PlacementModel(cells, solver, split) as model:
        return model.nishio()


def find_placement(cells: CellSet, containing: Cell | None = None,
                   solver: str = DEFAULT_SOLVER, split: bool = True) -> list[Cell] | None:
    """A valid placement inside S (through ``containing``), or None; checked."""
    with PlacementModel(cells, solver, split) as model:
        return model.find(containing)


def has_valid_placement(cells: CellSet, solver: str = DEFAULT_SOLVER, split: bool = True) -> bool:
    """The Nishio decision problem: does S contain a valid placement (Nishio(S) ≠ ∅)?"""
    return find_placement(cells, None, solver, split) is not None


METHODS = ("dag", "dag-sweep", "overlay", "sat")

DAG_AUTO_LIMIT = 50_000
"""Method ``auto`` uses the DAG (array sweeps) up to this many vertices (16×16: 19,442),
else SAT."""


def compute_nishio(cells: CellSet, method: str = "dag", solver: str = DEFAULT_SOLVER) -> CellSet:
    """Nishio(S) by any of the three methods."""
    if method == "sat":
        return nishio_sat(cells, solver)
    if method in ("dag", "dag-sweep", "overlay"):
        return nishio(cells, method)
    raise UserError(f"unknown Nishio method {method!r} (choose from {', '.join(METHODS)})")


def choose_method(cells: CellSet, method: str) -> str:
    """``method`` itself, or for ``auto``: the DAG by array sweeps while its vertices are
    few (:data:`DAG_AUTO_LIMIT`), else the SAT model (any size)."""
    if method != "auto":
        return method
    return "dag-sweep" if almost_balanced_count(cells.shape) <= DAG_AUTO_LIMIT else "sat"


def check_nishio_method(cells: CellSet, method: str, *, solver: str, decide: bool,
                        max_memory: int | None, subject: str) -> None:
    """Refuse, before any work, what ``method`` cannot do on ``cells``: an unknown pysat
    ``solver`` (when SAT is used: ``method`` "sat", or ``decide``, a question for the
    placement model), a DAG too large to number, or a DAG or overlay estimated over
    ``max_memory`` (:class:`~reductions.estimate.TooLarge`, naming ``subject``)."""
    if method == "sat" or decide:
        new_pysat_solver(solver).delete()        # an unknown name fails here, first
    dag = method in ("dag", "dag-sweep")
    if dag and almost_balanced_count(cells.shape) > DAG_VERTEX_LIMIT:
        raise UserError(f"--method dag: the DAG for blocks {cells.shape} would have "
                        f"{almost_balanced_count(cells.shape):,} vertices; use --method sat")
    if dag and not decide:
        ensure_fits(nishio_dag_estimate(cells.shape), max_memory, subject)
    if method == "overlay" and valid_placement_count(cells.shape) <= OVERLAY_LIMIT:
        ensure_fits(nishio_overlay_estimate(cells.shape), max_memory, subject)


def nishio_with_stats(cells: CellSet, method: str, *, solver: str = DEFAULT_SOLVER,
                      max_memory: int | None = None) -> tuple[CellSet, dict[str, Any] | None]:
    """Nishio(S) by ``method``, and for the SAT model its :attr:`PlacementModel.stats`
    (solver calls, cell variables); None for the other methods."""
    if method != "sat":
        return nishio(cells, method), None
    with PlacementModel(cells, solver, max_memory=max_memory) as model:
        return model.nishio(), model.stats


# ----------------------------------------------------------------------------- validation

def formula_model(formula: Formula, solver: str = DEFAULT_SOLVER) -> dict[int, bool] | None:
    """A satisfying assignment of the formula itself as {variable: value}, or None when it is
    unsatisfiable (:func:`solvers.runtime.pysat_solvers.solve_formula`)."""
    values = solve_formula(formula, solver)
    return None if values is None else dict(enumerate(values, start=1))


def fixed_formulas() -> list[tuple[str, Formula]]:
    """Small fixed formulas, both answers, every clause width, single and missing occurrences
    (the same ones ship as ``instances/formulas/nishio-*.cnf``)."""
    return [
        ("example_satisfiable", example_satisfiable()),
        ("mixed widths (sat)", Formula(5, ((1, 2, -3), (-1, 3), (-2,), (3, 4)))),
        ("single occurrences (sat)", Formula(6, ((1, -2, 3), (-4, 5, -6)))),
        ("8 sign patterns (unsat)", all_sign_patterns(3)),
        ("short clauses (unsat)", Formula(3, ((1, 2), (1, -2), (-1, 3), (-1, -3)))),
        ("unit chain (unsat)", Formula(3, ((1,), (-1, 2), (-2, 3), (-3,)))),
    ]


def shown_placement(gadget: NishioGadget, solver: str = DEFAULT_SOLVER) -> list[Cell] | None:
    """A valid placement inside the gadget's S to draw, mapped forward from a satisfying
    assignment of its formula; None when the formula is unsatisfiable."""
    model = formula_model(gadget.formula, solver)
    return None if model is None else placement_from_assignment(gadget, model)


@dataclass
class Validation:
    """The closed loop on one formula; ``ok`` when every check passed."""

    name: str
    num_vars: int
    num_clauses: int
    satisfiable: bool | None                # None: not decided (the formula was too large)
    order: int | None = None
    cells: int | None = None
    placement_found: bool | None = None     # Theorem 2: S contains a valid placement
    extraction_ok: bool | None = None       # the placement decodes to a satisfying assignment
    forward_ok: bool | None = None          # the SAT solver's assignment maps to a placement
    seconds: float = 0.0
    thm3_order: int | None = None
    thm3_cells: int | None = None
    thm3_nonempty: bool | None = None       # Nishio(S') ≠ ∅ (always, by Theorem 3)
    thm3_v0_false: bool | None = None       # v0's false cells in Nishio(S') (iff satisfiable)
    thm3_checks_ok: bool | None = None      # extraction / forward maps of the Theorem 3 instance
    thm3_seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    too_large: dict[str, str] = field(default_factory=dict)
    """What was skipped as over the memory limit: "formula", "thm2" or "thm3" -> the
    estimate against the limit (``too large: ... > ...``)."""
    certificates: list[Certificate] = field(default_factory=list)
    """With ``certify``: the check of each negative claim the row rests on."""

    @property
    def ok(self) -> bool:
        """No check failed (skipped parts are not failures: see ``validated``)."""
        return not self.problems

    @property
    def uncertified(self) -> list[Certificate]:
        """The negative claims whose check did not finish (the row is then unknown)."""
        return [c for c in self.certificates if not c.certified]

    @property
    def validated(self) -> list[str]:
        """The theorems that were checked (not skipped as too large)."""
        ran = {"thm2": self.order is not None, "thm3": self.thm3_order is not None}
        return [v for v, done in ran.items() if done and v not in self.too_large]

    @classmethod
    def too_large_formula(cls, name: str, error: TooLarge, num_vars: int | None = None,
                          num_clauses: int | None = None) -> "Validation":
        """The row of a formula too large to read or decide at all."""
        return cls(name, num_vars, num_clauses, None, too_large={"formula": error.row_text})


def _validate_theorem2(result: Validation, formula: Formula, model: dict[int, bool] | None,
                       solver: str, split: bool, order: int | None,
                       max_memory: int | None, certify: CertifyOptions | None) -> None:
    ensure_fits(nishio_validation_estimate(formula, order=order, split=split), max_memory,
                "Theorem 2")
    start = time.perf_counter()
    gadget = nishio_gadget(formula, order)
    result.order, result.cells = gadget.order, gadget.cells.count()
    with PlacementModel(gadget.cells, solver, split, max_memory=max_memory) as placements:
        placement = placements.find()
    result.placement_found = placement is not None
    if result.placement_found != result.satisfiable:
        result.problems.append(f"formula {'satisfiable' if result.satisfiable else 'unsatisfiable'}"
                               f" but S {'contains' if placement else 'has no'} valid placement")
    if placement is None and certify is not None:
        result.certificates.append(certify_no_placement(
            gadget.cells, name=f"{proof_name(result.name)}-thm2", what="S", certify=certify,
            solver=solver))
    if placement is not None:
        try:
            extraction = assignment_from_placement(gadget, placement)
            result.extraction_ok = formula.is_satisfied_by(extraction.assignment)
        except GadgetError as exc:
            result.extraction_ok = False
            result.problems.append(f"extraction: {exc}")
    if model is not None:
        try:
            forward = placement_from_assignment(gadget, model)
            back = assignment_from_placement(gadget, forward).assignment
            result.forward_ok = (is_valid_placement(forward, gadget.shape, gadget.cells)
                                 and all(back[v] == model[v] for v in gadget.variables))
        except GadgetError as exc:
            result.forward_ok = False
            result.problems.append(f"forward map: {exc}")
        if not result.forward_ok and not result.problems:
            result.problems.append("forward map: the round trip changed the assignment")
    result.seconds = time.perf_counter() - start


def _validate_theorem3(result: Validation, formula: Formula, model: dict[int, bool] | None,
                       solver: str, split: bool, max_memory: int | None,
                       certify: CertifyOptions | None) -> None:
    ensure_fits(nishio_validation_estimate(theorem3_instance(formula).formula, split=split),
                max_memory, "Theorem 3")
    start = time.perf_counter()
    instance, gadget = theorem3_gadget(formula)
    result.thm3_order, result.thm3_cells = gadget.order, gadget.cells.count()
    false_cells = v0_false_cells(instance, gadget)
    checks = []
    with PlacementModel(gadget.cells, solver, split, max_memory=max_memory) as placements:
        any_placement = placements.find()
        through_false = placements.find(false_cells[0]) if false_cells else any_placement
    result.thm3_nonempty = any_placement is not None
    result.thm3_v0_false = through_false is not None
    if through_false is None and false_cells and certify is not None:
        result.certificates.append(certify_no_placement(
            gadget.cells, containing=false_cells[0], name=f"{proof_name(result.name)}-thm3",
            what="S'", certify=certify, solver=solver))
    if not result.thm3_nonempty:
        result.problems.append("Theorem 3: Nishio(S') is empty")
    if result.thm3_v0_false != result.satisfiable:
        are = "are" if through_false else "are not"
        answer = "satisfiable" if result.satisfiable else "unsatisfiable"
        result.problems.append(f"Theorem 3: v0's false cells {are} in Nishio(S') but the "
                               f"formula is {answer}")
    try:
        if through_false is not None:
            chosen = set(through_false)
            extraction = assignment_from_placement(gadget, through_false)
            checks.append(all(cell in chosen for cell in false_cells))
            checks.append(formula.is_satisfied_by(instance.restrict(extraction.assignment)))
        all_false = {v: False for v in range(1, formula.num_vars + 1)}
        lifted = [instance.lift(all_false, True)]
        if model is not None:
            lifted.append(instance.lift(model, False))
        for assignment in lifted:
            forward = placement_from_assignment(gadget, assignment)
            checks.append(is_valid_placement(forward, gadget.shape, gadget.cells))
    except GadgetError as exc:
        checks.append(False)
        result.problems.append(f"Theorem 3: {exc}")
    result.thm3_checks_ok = all(checks)
    if not result.thm3_checks_ok and not any(p.startswith("Theorem 3: ") for p in result.problems):
        result.problems.append("Theorem 3: an extraction or forward-map check failed")
    result.thm3_seconds = time.perf_counter() - start


def validate_formula(formula: Formula, name: str = "formula",
                     variants: Sequence[str] = ("thm2", "thm3"), solver: str = DEFAULT_SOLVER,
                     split: bool = True, order: int | None = None,
                     max_memory: int | None = None,
                     certify: CertifyOptions | None = None) -> Validation:
    """Run the closed loop on one formula.

    Theorem 2: satisfiable (SAT solver on the formula) ⇔ S contains a valid placement
    (placement model); a found placement decodes to a satisfying assignment; the solver's
    assignment maps forward to a valid placement inside S and decodes back to itself.
    Theorem 3: Nishio(S') ≠ ∅; v0's false cells lie in a placement ⇔ satisfiable; that
    placement holds all of them and decodes to a satisfying assignment of the original; the
    v0-true and (if satisfiable) v0-false lifts map forward to valid placements.

    With ``max_memory`` (bytes), each step is estimated first (:mod:`reductions.estimate`); a
    step over the limit is skipped, not run, and recorded in ``too_large``.

    With ``certify``, every negative answer the loop rests on — the formula unsatisfiable, S
    without a valid placement, no placement of S' through v0's false cell — is backed by a
    checked proof (:mod:`solvers.certify.gadgets`; ``solver`` must log proofs), recorded in
    ``certificates``; a rejected proof raises
    :class:`~solvers.certify.checkers.ProofRejected`.
    """
    try:
        ensure_fits(formula_sat_estimate(formula), max_memory, "deciding the formula")
    except TooLarge as exc:
        return Validation.too_large_formula(name, exc, formula.num_vars, formula.num_clauses)
    model = formula_model(formula, solver)
    result = Validation(name, formula.num_vars, formula.num_clauses, model is not None)
    if model is None and certify is not None:
        result.certificates.append(certify_formula(
            formula, name=f"{proof_name(name)}-formula", certify=certify, solver=solver))
    if "thm2" in variants:
        try:
            _validate_theorem2(result, formula, model, solver, split, order, max_memory,
                               certify)
        except TooLarge as exc:
            result.too_large["thm2"] = exc.row_text
    if "thm3" in variants:
        try:
            _validate_theorem3(result, formula, model, solver, split, max_memory, certify)
        except TooLarge as exc:
            result.too_large["thm3"] = exc.row_text
    return result


def validate_formulas(formulas: Iterable[tuple[str, Formula | TooLarge]], *,
                      variants: Sequence[str] = ("thm2", "thm3"), solver: str = DEFAULT_SOLVER,
                      split: bool = True, order: int | None = None,
                      max_memory: int | None = None,
                      certify: CertifyOptions | None = None) -> Iterator[Validation]:
    """:func:`validate_formula` on each named formula, one result at a time (so that a run
    can show its progress); a formula that was too large to read is its refusal's row."""
    for name, formula in formulas:
        if isinstance(formula, TooLarge):
            yield Validation.too_large_formula(name, formula)
        else:
            yield validate_formula(formula, name, variants, solver, split=split, order=order,
                                   max_memory=max_memory, certify=certify)
