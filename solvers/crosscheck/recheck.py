"""Re-checking records read back: a record believed is one earned again, its grids
verified and its verdicts the ones they earn, as a fresh record is made."""

from __future__ import annotations

import math
from typing import Iterator

from reductions.errors import UserError
from reductions.sudoku.grid import (
    SYMBOLS,
    Shape,
    clue_rows,
    parse_grid,
    solution_problems,
    solve_checks,
)

from .records import RecordStatus, RouteResult, first_line

def recheck(records: list[tuple[str, RouteResult]], shape: Shape | None
            ) -> Iterator[tuple[str, RouteResult, str]]:
    """(where, record, why) for every record read back that does not hold, checked as a
    fresh record is made: a solved record's grid (and second grid) must solve its puzzle —
    by :func:`~reductions.sudoku.grid.solve_checks` on all of them at once, and
    :func:`~reductions.sudoku.grid.solution_problems` to say what is wrong — and its verdicts on
    them must be the ones they earn; a record of another status must have the fields a
    fresh one has (:func:`_fields_problem`)."""
    solved = [(where, r) for where, r in records if r.status == RecordStatus.SOLVED]
    grids = [(k, what, r.puzzle, text) for k, (_, r) in enumerate(solved)
             for what, text in (("its grid", r.solution), ("its second grid", r.second_solution))
             if text is not None]
    failed = {}
    for k, problem in _failing_grids(grids, shape):
        failed.setdefault(k, problem)
    for k, (where, r) in enumerate(solved):
        problem = failed.get(k) or _verdict_problem(r)
        if problem is not None:
            yield where, r, problem
    for where, r in records:
        problem = None if r.status == RecordStatus.SOLVED else _fields_problem(r)
        if problem is not None:
            yield where, r, problem


def _verdict_problem(record: RouteResult) -> str | None:
    """What is wrong with a solved record's verdicts, its grids being right (or absent)."""
    if record.solution is None:
        # a grid the route's own check refused (WrongAnswer): kept as the invalid answer
        if record.verified is not False or record.error is None:
            return "the record says solved but has no grid"
        if record.unique is not None or record.second_solution is not None:
            return "the record has a uniqueness verdict but no grid"
        return None
    if record.second_solution is not None and (
            record.unique is not False or record.second_solution == record.solution):
        return "its second grid does not show the puzzle has several solutions"
    if record.unique is False and record.second_solution is None:
        return "the record says several solutions but has no second grid"
    if record.verified is not True:
        return "the record says its grid was not verified, yet it solves the puzzle"
    if record.error is not None:
        return "the record carries an error, yet its grid solves the puzzle"
    return None


def _fields_problem(record: RouteResult) -> str | None:
    """What a record of a status other than solved holds that a fresh one never does: a
    grid, a verdict, an instance size with an error, an error missing or out of place."""
    if record.solution is not None or record.second_solution is not None:
        return f"the record says {record.status} but has a grid"
    if record.verified is not None or record.unique is not None:
        return f"the record says {record.status} but has a verdict on a grid"
    if record.status == RecordStatus.ERROR and (record.error is None
                                                or record.size is not None):
        return "the record says error but has no error message, or an instance size"
    if record.status == RecordStatus.UNKNOWN and record.error is not None:
        return "the record says unknown but carries an error"
    return None


CHECK_ROWS = 1 << 14
"""Grids checked by one array pass (bounds the arrays: about 2 KB a 9×9 grid)."""


def _failing_grids(grids: list[tuple[int, str, str, str]], shape: Shape | None
                   ) -> Iterator[tuple[int, str]]:
    """(k, why) for each (k, what, puzzle text, grid text) whose grid does not solve the
    puzzle. Each distinct (puzzle, grid) pair is checked once; one-line grids are checked in
    array passes of :data:`CHECK_ROWS` (figures: ``benchmarks/results/design_figures.md``),
    the others,
    and those that fail, go through the parser, which says what is wrong."""
    pairs: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for k, what, puzzle, text in grids:
        pairs.setdefault((puzzle, text), []).append((k, what))
    fast: dict[Shape, list[tuple[str, str]]] = {}
    slow = []
    for pair in pairs:
        puzzle, text = pair
        line_shape = shape or _one_line_shape(puzzle)
        if line_shape is not None and len(puzzle) == len(text) == line_shape.size ** 2 \
                and puzzle.isascii() and text.isascii():
            fast.setdefault(line_shape, []).append(pair)
        else:
            slow.append(pair)
    for line_shape, checked in fast.items():
        for start in range(0, len(checked), CHECK_ROWS):
            part = checked[start:start + CHECK_ROWS]
            good = solve_checks(clue_rows([p for p, _ in part], line_shape),
                                clue_rows([t for _, t in part], line_shape), line_shape)
            slow.extend(pair for pair, ok in zip(part, good) if not ok)
    for puzzle, text in slow:
        for k, what in pairs[puzzle, text]:
            problem = _grid_problem(what, puzzle, text, shape)
            if problem is not None:
                yield k, problem


def _one_line_shape(text: str) -> Shape | None:
    """The shape of a one-line puzzle of N² symbols, or None."""
    n = math.isqrt(len(text))
    if n * n != len(text) or not 4 <= n <= len(SYMBOLS):
        return None
    try:
        return Shape.for_size(n)
    except UserError:
        return None


def _grid_problem(what: str, puzzle_text: str, text: str, shape: Shape | None) -> str | None:
    """Why the grid ``text`` does not solve the puzzle, in words, or None when it does."""
    try:
        puzzle = parse_grid(puzzle_text, shape)
    except UserError as exc:
        return f"the record says solved, but the puzzle does not read ({first_line(exc)})"
    try:
        grid = parse_grid(text, puzzle.shape, check=False)
    except UserError as exc:
        return f"{what} does not read ({first_line(exc)})"
    problems = solution_problems(puzzle, grid)
    if problems:
        return f"{what} does not solve the puzzle ({'; '.join(problems[:3])})"
    return None

