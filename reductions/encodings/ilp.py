"""Sudoku → 0/1 integer linear program (Bartlett, Chartier, Langville & Rankin 2008), in PuLP.

Variables. One binary ``x_R_C_D`` per (row R, column C, digit D): 1 when D is written in cell
(R, C) (rows, columns from 0, digits 1..N, the project's conventions) — N³ variables.

Constraints: 4N² equalities, each a sum of N variables equal to 1 (the paper's (1)–(4)):

* ``cell_R_C``  — Σ_D x_R_C_D = 1 (each cell holds one digit);
* ``row_R_D``   — Σ_C x_R_C_D = 1 (each digit once per row);
* ``col_C_D``   — Σ_R x_R_C_D = 1 (each digit once per column);
* ``blk_K_D``   — Σ over the cells of block K (row-major) of x_·_·_D = 1 (once per block);

so 4N³ nonzeros (9×9: 729 variables, 324 equalities, 2,916 nonzeros). The objective is empty
(a feasibility problem; the paper's objective is arbitrary too). This is the exact-cover
matrix of ``reductions.encodings.exact_cover`` read as A·x = 1 with x binary, so its 0/1 solutions
are exactly the solved grids, by the same argument.

Clues, two modes (``clues=``):

* ``equalities`` — one more equality ``clue_R_C``: x_R_C_D = 1 per clue (the paper's
  (5)): N³ variables, 4N² + k constraints, 4N³ + k nonzeros.
* ``eliminate`` — the variables a clue fixes are left out: the clue's own variable (its
  four equalities are then satisfied and dropped) and every variable the clue forces to 0
  (other digits in its cell, its digit in the cell's row, column and block). What remains
  are the candidates of the empty cells and 4(N² − k) equalities — the same reduction as
  ``eliminate`` in the exact-cover model. An equality left with no variable reads 0 = 1 and
  makes the model infeasible, which is correct: that cell or digit has no place left.

Forward map :meth:`SudokuIlp.values_from_grid` (a solved grid → a 0/1 assignment of the
model's variables) and extraction :meth:`SudokuIlp.grid_from_values` (solver values → grid).
:meth:`SudokuIlp.add_no_good` adds the cut that excludes one solution, Σ over the variables
set to 1 in it ≤ (their number) − 1, which keeps every other solution (PuLP's own second
Sudoku example uses it to enumerate all solutions); solving again tells whether the
solution is unique. No solver is called here (``solvers.routes.ilp`` does that). As a
:class:`~reductions.reduction.ReductionRule`: :class:`SudokuToIlp`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

import numpy as np

from ..errors import UserError
from ..estimate import Estimate
from .exact_cover import (base_option_items, candidate_mask, eliminated_size, item_parts,
                          option_cells_digits)
from ..sudoku.grid import Grid, Shape
from ..reduction import SolvesPuzzle, checked_grid

if TYPE_CHECKING:       # PuLP is imported where a model is built: every command line
    import pulp         # start-up would pay for it otherwise

class IlpClues(enum.StrEnum):
    """Clues as equalities x = 1, or the variables they fix left out."""

    EQUALITIES = "equalities"
    ELIMINATE = "eliminate"


CLUE_MODES = tuple(IlpClues)
CONSTRAINT_PREFIXES = ("cell", "row", "col", "blk")
VARIABLE_NAME = re.compile(r"^x_(\d+)_(\d+)_(\d+)$")
INTEGRALITY_TOLERANCE = 1e-6


class IlpError(UserError):
    """An impossible model request or solver values that do not decode to a grid."""


def variable_name(row: int, col: int, digit: int) -> str:
    return f"x_{row}_{col}_{digit}"


def constraint_name(shape: Shape, item: int) -> str:
    """Name of the equality for a global exact-cover item number."""
    kind, first, second = item_parts(shape, item)
    if kind == 0:
        return f"cell_{first}_{second}"
    return f"{CONSTRAINT_PREFIXES[kind]}_{first}_{second + 1}"


def _new_binary(problem: pulp.LpProblem, name: str) -> pulp.LpVariable:
    # PuLP 3.x wants variables created through the problem (LpVariable(...) is deprecated
    # ahead of PuLP 4); older releases only have the constructor.
    import pulp
    add_variable = getattr(problem, "add_variable", None)
    if add_variable is not None:
        return add_variable(name, 0, 1, cat=pulp.LpBinary)
    return pulp.LpVariable(name, 0, 1, cat=pulp.LpBinary)


@dataclass
class SudokuIlp:
    """The ILP of one puzzle: the PuLP problem and the (global) option of each variable.

    ``options[k]`` is the option number (r·N + c)·N + d − 1 of ``variables[k]``.
    """

    puzzle: Grid
    clues: str
    problem: pulp.LpProblem
    options: np.ndarray
    variables: list[pulp.LpVariable]
    num_constraints: int
    num_nonzeros: int
    cuts: int = 0
    _by_name: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def shape(self) -> Shape:
        return self.puzzle.shape

    @property
    def num_variables(self) -> int:
        return len(self.variables)

    def index_of(self, name: str) -> int | None:
        """Position of a variable name in ``variables``, or None."""
        if not self._by_name:
            self._by_name = {v.name: k for k, v in enumerate(self.variables)}
        return self._by_name.get(name)

    # ------------------------------------------------------------------ forward map, extraction

    def values_from_grid(self, grid: Grid) -> dict[str, int]:
        """Forward map: the 0/1 value of every model variable for a solved grid."""
        if grid.shape != self.shape:
            raise IlpError(f"grid of shape {grid.shape} given for a {self.shape} model")
        n = self.shape.size
        rows, cols, digits = option_cells_digits(self.shape, self.options)
        chosen = grid.values[rows, cols] == digits
        if self.clues == "eliminate":
            empty = self.puzzle.values == 0
            cells_chosen = np.zeros((n, n), dtype=np.int64)
            np.add.at(cells_chosen, (rows[chosen], cols[chosen]), 1)
            if np.any(empty & (cells_chosen != 1)):
                r, c = np.argwhere(empty & (cells_chosen != 1))[0]
                raise IlpError(f"cell ({r + 1},{c + 1}) holds {grid.values[r, c]}, which is "
                               f"not a variable of the model (it breaks a clue)")
        return {v.name: int(x) for v, x in zip(self.variables, chosen.tolist())}

    def grid_from_values(self, values: Mapping[str, float]) -> Grid:
        """Extraction: the grid whose cells hold the digits of the variables equal to 1.

        ``values`` maps variable names to values (missing names count as 0; names of other
        variables, e.g. PuLP's ``__dummy``, are ignored). A value that is neither 0 nor 1
        (within 1e-6) is an error: that is not an integer solution. The rules are not
        checked here (``reductions.sudoku.grid.check_solution`` does that).
        """
        n = self.shape.size
        grid = self.puzzle.values.copy() if self.clues == "eliminate" else \
            np.zeros((n, n), dtype=np.int16)
        filled = grid != 0
        for name, value in values.items():
            k = self.index_of(name)
            if k is None:
                if VARIABLE_NAME.match(name):
                    raise IlpError(f"variable {name} is not in the model")
                continue
            if value is None:
                raise IlpError(f"variable {name} has no value")
            if abs(value) <= INTEGRALITY_TOLERANCE:
                continue
            if not abs(value - 1) <= INTEGRALITY_TOLERANCE:       # NaN is not 1 either
                raise IlpError(f"variable {name} = {value}: not a 0/1 solution")
            rows, cols, digits = option_cells_digits(self.shape, self.options[[k]])
            r, c, d = int(rows[0]), int(cols[0]), int(digits[0])
            if filled[r, c]:
                raise IlpError(f"cell ({r + 1},{c + 1}) gets two digits "
                               f"({grid[r, c]} and {d})")
            grid[r, c] = d
            filled[r, c] = True
        return Grid(grid, self.shape)

    def solver_values(self) -> dict[str, float | None]:
        """The values PuLP holds after a solve, by variable name."""
        return {v.name: v.varValue for v in self.variables}

    def add_no_good(self, grid: Grid) -> str:
        """Add the cut excluding ``grid``'s assignment; returns the constraint's name."""
        chosen = [self.variables[self.index_of(name)]
                  for name, value in self.values_from_grid(grid).items() if value]
        self.cuts += 1
        name = f"nogood_{self.cuts}"
        import pulp
        self.problem.addConstraint(pulp.LpConstraint(
            pulp.LpAffineExpression([(v, 1) for v in chosen]), pulp.LpConstraintLE, name,
            len(chosen) - 1))
        self.num_constraints += 1
        self.num_nonzeros += len(chosen)
        return name


def model_parts(puzzle: Grid, clues: str) -> tuple[np.ndarray, np.ndarray]:
    """(options, items) of the model of ``puzzle`` in clue mode ``clues``: the global option
    number of each variable and the exact-cover item of each equality (clue equalities not
    included), both ascending."""
    if clues not in CLUE_MODES:
        raise IlpError(f"unknown clue mode {clues!r}; choose one of {', '.join(CLUE_MODES)}")
    n = puzzle.size
    if clues == "equalities":
        return np.arange(n ** 3), np.arange(4 * n * n)
    base = base_option_items(puzzle.shape)
    options = np.flatnonzero(candidate_mask(puzzle).ravel())
    # Items of clues are satisfied by the clues and dropped; contradictory clues
    # (a repeated digit in a unit) keep theirs, which then have no variable: 0 = 1.
    flat = puzzle.values.ravel().astype(np.int64)
    cells = np.flatnonzero(flat)
    clue_options = cells * n + flat[cells] - 1
    counts = np.bincount(base[clue_options].ravel(), minlength=4 * n * n)
    consistent = clue_options[np.all(counts[base[clue_options]] == 1, axis=1)]
    covered = np.zeros(4 * n * n, dtype=bool)
    covered[base[consistent].ravel()] = True
    return options, np.flatnonzero(~covered)


def model_size(puzzle: Grid, clues: str) -> tuple[int, int]:
    """(variables, constraints) of :func:`sudoku_ilp` ``(puzzle, clues)``, without building
    it."""
    options, items = model_parts(puzzle, clues)
    extra = puzzle.clue_count() if clues == "equalities" else 0
    return len(options), len(items) + extra


def sudoku_ilp(puzzle: Grid, clues: str = "equalities") -> SudokuIlp:
    """Build the PuLP model of ``puzzle`` (see the module docstring for the clue modes)."""
    import pulp
    shape = puzzle.shape
    n = shape.size
    base = base_option_items(shape)
    options, kept_items = model_parts(puzzle, clues)
    problem = pulp.LpProblem(f"sudoku_{n}x{n}_blocks_{shape}", pulp.LpMinimize)
    rows, cols, digits = option_cells_digits(shape, options)
    variables = [_new_binary(problem, variable_name(r, c, d))
                 for r, c, d in zip(rows.tolist(), cols.tolist(), digits.tolist())]
    members: dict[int, list[pulp.LpVariable]] = {int(i): [] for i in kept_items}
    for variable, items in zip(variables, base[options].tolist()):
        for item in items:
            members[item].append(variable)
    nonzeros = 0
    for item in kept_items.tolist():
        terms = members[item]
        nonzeros += len(terms)
        problem.addConstraint(pulp.LpConstraint(
            pulp.LpAffineExpression([(v, 1) for v in terms]), pulp.LpConstraintEQ,
            constraint_name(shape, item), 1))
    count = len(kept_items)
    if clues == "equalities":
        for r, c, d in puzzle.clues():
            problem.addConstraint(pulp.LpConstraint(
                pulp.LpAffineExpression([(variables[(r * n + c) * n + d - 1], 1)]),
                pulp.LpConstraintEQ, f"clue_{r}_{c}", 1))
        count += puzzle.clue_count()
        nonzeros += puzzle.clue_count()
    return SudokuIlp(puzzle, clues, problem, options, variables, count, nonzeros)


def expected_size(shape: Shape, clue_count: int, clues: str = "equalities"
                  ) -> tuple[int, int, int] | None:
    """(variables, constraints, nonzeros) by formula in ``equalities`` mode; None for
    ``eliminate`` (the size depends on where the clues are)."""
    if clues != "equalities":
        return None
    n = shape.size
    return n ** 3, 4 * n * n + clue_count, 4 * n ** 3 + clue_count


def parse_variable_name(name: str) -> tuple[int, int, int] | None:
    """(row, col, digit) of an ``x_R_C_D`` name, or None."""
    match = VARIABLE_NAME.match(name)
    return tuple(int(g) for g in match.groups()) if match else None


# ----------------------------------------------------------------------------- the rule

def model_constraints(problem: pulp.LpProblem) -> list[pulp.LpConstraint]:
    """The constraints of a PuLP problem in the order they were added:
    ``problem.constraints()`` from PuLP 3.3 on (the mapping is deprecated there), the
    mapping's values before."""
    constraints = problem.constraints
    return list(constraints()) if callable(constraints) else list(constraints.values())


@dataclass(frozen=True)
class SudokuToIlp(SolvesPuzzle):
    """Sudoku → 0/1 ILP as a :class:`~reductions.reduction.ReductionRule` (Bartlett,
    Chartier, Langville & Rankin 2008, constraints (1)–(5)).

    Witness: the 0/1 value of every model variable, by name (what a solver reports).
    Size formula: ``equalities`` — N³ variables, 4N² + k equalities, 4N³ + k nonzeros
    (:func:`expected_size`); ``eliminate`` — one variable per candidate of an empty cell,
    4(N² − k) equalities, 4 nonzeros per variable (the exact-cover count,
    :func:`reductions.encodings.exact_cover.eliminated_size`). Sizes are measured on the PuLP
    problem.
    """

    target: SudokuIlp

    @classmethod
    def build(cls, puzzle: Grid, *, clues: str = "equalities") -> "SudokuToIlp":
        """The PuLP model of ``puzzle`` (:func:`sudoku_ilp`)."""
        return cls(puzzle, sudoku_ilp(puzzle, clues))

    def expected_size(self) -> dict[str, int]:
        if self.target.clues == "eliminate":
            counts = eliminated_size(self.source)
            names = {"options": "variables", "items": "constraints", "nonzeros": "nonzeros"}
            return {names[key]: value for key, value in counts.items()}
        variables, constraints, nonzeros = expected_size(self.source.shape,
                                                         self.source.clue_count())
        return {"variables": variables, "constraints": constraints, "nonzeros": nonzeros}

    def actual_size(self) -> dict[str, int]:
        constraints = model_constraints(self.target.problem)
        return {"variables": len(self.target.variables), "constraints": len(constraints),
                "nonzeros": sum(len(c) for c in constraints)}

    def forward(self, solution: Grid) -> dict[str, int]:
        """The 0/1 values of a solved grid (:meth:`SudokuIlp.values_from_grid`)."""
        checked_grid(self.source, solution, IlpError)
        return self.target.values_from_grid(solution)

    def decode(self, witness: Mapping[str, float]) -> Grid:
        """The grid of the variables equal to 1 (:meth:`SudokuIlp.grid_from_values`), not
        checked against the puzzle."""
        return self.target.grid_from_values(witness)

    def extract(self, witness: Mapping[str, float]) -> Grid:
        """The grid of the variables equal to 1 (:meth:`decode`), checked against the
        puzzle."""
        return checked_grid(self.source, self.decode(witness), IlpError)

    @classmethod
    def estimate(cls, shape: Shape, **options) -> Estimate:
        """What building (``solve``: and solving) the model of an N×N puzzle takes
        (:func:`reductions.encodings.sizes.ilp_estimate`)."""
        from .sizes import ilp_estimate
        return ilp_estimate(shape, **options)
