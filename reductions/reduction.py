"""One interface for every reduction: build, forward map, extraction, and size as data.

A reduction maps an instance of a *source* problem (a Sudoku puzzle, a CNF formula) to an
instance of a *target* problem (a CNF formula, an exact-cover matrix, a 0/1 ILP, a graph, a
cell set). Each one here is correct in both directions, and says so through the same five
methods (:class:`ReductionRule`), in the spirit of the ``ReduceTo`` trait and its
``extract_solution`` in problem-reductions:

* ``build(source, **options)`` — the reduction applied to one source instance;
* ``forward(solution)`` — a source solution → a *witness* of the target (a model, a set of
  rows, a 0/1 vector, a Hamiltonian cycle, a placement, a path): the "if" half of the proof,
  made executable. A solution that does not solve the source is refused;
* ``extract(witness)`` — a target witness → the source solution it encodes: the "only if"
  half. The result is checked against the source; anything that is not a witness is refused
  with the reduction's own error (a :class:`~reductions.errors.UserError`);
* ``expected_size()`` — the counts the paper's size formula predicts, as data
  (:data:`SizeCounts`), computed from the source alone; ``actual_size()`` — the same counts
  measured on the built target.

The rules, one per reduction, each next to the reduction it adapts:

* :class:`reductions.encodings.cnf.SudokuToCnf` — Sudoku → CNF (Lynce & Ouaknine; Kwon & Jain);
* :class:`reductions.encodings.exact_cover.SudokuToExactCover` — Sudoku → exact cover (Knuth);
* :class:`reductions.encodings.ilp.SudokuToIlp` — Sudoku → 0/1 ILP (Bartlett et al.);
* :class:`reductions.hamiltonian.hcp_pipeline.SudokuToHcp` — Sudoku → Hamiltonian cycle (Haythorpe),
  directed, 3-split or degree-2 reduced;
* :class:`reductions.nishio.gadget.SatToNishio` — 3SAT → Nishio placement (Eppstein 2012);
* :class:`reductions.nonrepetitive.nrpath_gadget.SatToNrPath` — 3SAT → simple nonrepetitive path or
  cycle (Eppstein 2005).

To add a reduction: write its builder, forward map and extraction as plain functions in its
module (with the paper's argument in the module docstring), then a small frozen dataclass
with fields ``source`` and ``target`` that implements the five methods by calling them, and
add a case to ``tests/reductions/test_reduction.py``: the closed loop, the exact sizes, the
witness check and a NO instance are then tested like every other rule's.

The rules from Sudoku (:class:`PuzzleRule`, the ones a solving route is made of) split
``extract`` in its two halves, so that a route can tell a malformed answer from a wrong one:

* ``decode(witness)`` — the candidate grid a target witness writes, *not* checked against the
  puzzle; a witness that writes no grid at all (two digits in a cell, an option number out
  of range, a tour that is not a cycle of the graph) is refused with the reduction's error;
* ``problems(grid)`` — the closed loop: what is wrong with a candidate grid as a solution of
  :attr:`source` (empty when it solves it), the same check for every rule
  (:func:`grid_problems`);
* ``estimate(shape, **options)`` — what building (and solving) the target of an N×N puzzle
  of ``shape`` takes in memory, by the size model beside its construction (the ``sizes``
  module of its folder), before any puzzle is read.

``extract`` is ``decode`` then the check, with the reduction's error. The solving routes
(:mod:`solvers.routes`) are (rule, backend) pairs: each builds the instance it solves through
its rule's ``build``, decodes the solver's answer with the rule's ``decode`` and checks it
with the rule's ``problems`` (raising :class:`~solvers.outcome.WrongAnswer`, not the
reduction's error: there a wrong grid is a solver's bug, not bad input), and the registry
sizes a route by its rule's ``estimate`` (``tests/reductions/test_reduction.py`` checks all
three), so what is tested here is what users run.

A count with no closed formula for some options (the sizes after clue elimination of a CNF,
the degree-2 reduced graph) is left out of ``expected_size()``; ``actual_size()`` always
measures every count, so ``expected.items() <= actual.items()`` is the size check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence, TypeVar, runtime_checkable

from .estimate import Estimate
from .formulas import Formula
from .sudoku.grid import Grid, Shape, check_solution, solution_problems

__all__ = ["PuzzleRule", "ReductionRule", "SizeCounts", "SolvesPuzzle", "checked_grid",
           "grid_problems", "satisfying_values"]

SizeCounts = dict[str, int]
"""Named counts of a target instance, e.g. ``{"variables": 729, "clauses": 11_988}``."""

Source = TypeVar("Source")
Target = TypeVar("Target", covariant=True)
Witness = TypeVar("Witness")
Solution = TypeVar("Solution")


@runtime_checkable
class ReductionRule(Protocol[Source, Target, Witness, Solution]):
    """A reduction applied to one source instance (see the module docstring).

    Attributes
    ----------
    source : Source
        The instance reduced (a :class:`~reductions.sudoku.grid.Grid` puzzle, a
        :class:`~reductions.formulas.Formula`).
    target : Target
        The built instance of the target problem.
    """

    @property
    def source(self) -> Source: ...

    @property
    def target(self) -> Target: ...

    def expected_size(self) -> SizeCounts:
        """The target's size by the reduction's formula, from the source alone.

        Returns
        -------
        SizeCounts
            The counts the formula predicts; a count with no formula is left out.
        """
        ...

    def actual_size(self) -> SizeCounts:
        """The same counts (and any without a formula) measured on :attr:`target`."""
        ...

    def forward(self, solution: Solution) -> Witness:
        """The target witness of a source solution.

        Parameters
        ----------
        solution : Solution
            A solution of :attr:`source` (a solved grid, a satisfying assignment).

        Returns
        -------
        Witness
            A solution of :attr:`target` that :meth:`extract` maps back to ``solution``.

        Raises
        ------
        UserError
            The reduction's own error, when ``solution`` does not solve the source.
        """
        ...

    def extract(self, witness: Witness) -> Solution:
        """The source solution a target witness encodes, checked against the source.

        Parameters
        ----------
        witness : Witness
            A solution of :attr:`target`, e.g. a solver's answer.

        Returns
        -------
        Solution
            A solution of :attr:`source`.

        Raises
        ------
        UserError
            The reduction's own error, when ``witness`` does not encode a solution of the
            source (a witness wrong only where extraction does not look, e.g. a model
            wrong on auxiliary variables only, still gives its solution).
        """
        ...


@runtime_checkable
class PuzzleRule(ReductionRule[Grid, Target, Witness, Grid], Protocol[Target, Witness]):
    """A reduction from Sudoku, as the solving routes use it: :class:`ReductionRule` with
    ``extract`` split into ``decode`` and the closed-loop check ``problems``, and the
    memory ``estimate`` of its construction (see the module docstring)."""

    def decode(self, witness: Witness) -> Grid:
        """The grid ``witness`` writes, not checked against :attr:`source`.

        Raises
        ------
        UserError
            The reduction's own error, when ``witness`` writes no grid.
        """
        ...

    def problems(self, grid: Grid) -> list[str]:
        """What is wrong with ``grid`` as a solution of :attr:`source` (empty: it solves it)."""
        ...

    @classmethod
    def estimate(cls, shape: Shape, **options: Any) -> Estimate:
        """What building the target of an N×N puzzle of ``shape`` takes in memory (the
        blank grid's, which bounds every puzzle's), by the size model of its folder."""
        ...


def grid_problems(puzzle: Grid, grid: Grid) -> list[str]:
    """What is wrong with ``grid`` as a solution of ``puzzle``: empty when it solves it.
    The vectorised check first (:func:`~reductions.sudoku.grid.check_solution`: a right
    grid costs microseconds), the problems spelt out only for a wrong one; a grid the check
    refuses with nothing to name (a digit out of range) is an ``invalid grid``."""
    if check_solution(puzzle, grid):
        return []
    return solution_problems(puzzle, grid) or ["invalid grid"]


@dataclass(frozen=True)
class SolvesPuzzle:
    """The closed loop of every reduction from Sudoku: a candidate grid must solve
    :attr:`source`. The base of the Sudoku rules (their ``problems``); on its own, the check
    of a route that reduces nothing (the deduction rules work on the puzzle itself)."""

    source: Grid

    def problems(self, grid: Grid) -> list[str]:
        """:func:`grid_problems` of ``grid`` against :attr:`source`."""
        return grid_problems(self.source, grid)


def checked_grid(puzzle: Grid, grid: Grid, error: type[Exception]) -> Grid:
    """``grid`` when it solves ``puzzle``; otherwise ``error`` naming the first problem."""
    problems = grid_problems(puzzle, grid)
    if problems:
        raise error(f"the grid does not solve the puzzle: {problems[0]}")
    return grid


def satisfying_values(formula: Formula, assignment: Mapping[int, bool] | Sequence[bool],
                      error: type[Exception]) -> tuple[bool, ...]:
    """``assignment`` as the tuple of the values of variables 1..num_vars (a mapping's
    missing variables read false) when it satisfies ``formula``; otherwise ``error``."""
    if isinstance(assignment, Mapping):
        values = tuple(bool(assignment.get(v, False)) for v in range(1, formula.num_vars + 1))
    else:
        values = tuple(bool(x) for x in assignment)
        if len(values) != formula.num_vars:
            raise error(f"{len(values)} values given for {formula.num_vars} variables")
    falsified = formula.falsified_clauses(values)
    if falsified:
        j = falsified[0]
        raise error(f"the assignment falsifies clause {j + 1} {list(formula.clauses[j])}")
    return values
