"""Batch deductions (reductions/sudoku/forced.py: singles, locked candidates): every forced digit is
in every solution, the fixpoint is the rules engine's for the same rules, a completed grid is
the only solution, NO instances are never "completed", and the batch path of the SAT route
gives the same answers as one puzzle at a time."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.sudoku.grid import Grid, Shape, check_solution, pattern_solution, solve_checks
from reductions.sudoku.forced import forced_digits
from reductions.rules.engine import deduce, select_rules
from solvers.outcome import Status
from solvers.routes.sat_batch import solve_batch
from solvers.routes.sat_incremental import FORCED_MIN_BATCH, IncrementalSudokuSolver

from tests.conftest import instance_pairs, instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION


def flat(grids: list[Grid]) -> np.ndarray:
    return np.stack([g.values.ravel().astype(np.uint8) for g in grids])


def test_forced_digits_agree_with_the_known_solutions():
    for name in ["4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt", "16x16.txt", "25x25.txt"]:
        pairs = instance_pairs(name)
        clues = flat([p for p, _ in pairs])
        solutions = flat([s for _, s in pairs])
        forced = forced_digits(clues, pairs[0][0].shape)
        assert np.all((forced == 0) | (forced == solutions)), name
        assert np.all((clues == 0) | (forced == clues)), name


def test_the_paper_puzzle_and_exact_counts_on_the_sample():
    """Haythorpe's 17-clue puzzle falls to singles alone. On the 300-puzzle sample some but
    not all puzzles are completed; each completed grid is valid, is the grid SAT finds, and
    SAT proves it unique (the soundness argument of the module, checked)."""
    paper = np.frombuffer(PAPER_17.replace(".", "0").encode(), np.uint8) - ord("0")
    answer = np.frombuffer(PAPER_17_SOLUTION.encode(), np.uint8) - ord("0")
    forced = forced_digits(paper[None, :], Shape(3, 3))[0]
    assert np.array_equal(forced, answer)

    puzzles = instance_puzzles("royle17-sample300.txt")
    clues = flat(puzzles)
    forced = forced_digits(clues, Shape(3, 3))
    complete = np.all(forced > 0, axis=1)
    assert 0 < complete.sum() < len(puzzles)
    assert np.all(solve_checks(clues[complete], forced[complete], Shape(3, 3)))
    with IncrementalSudokuSolver(Shape(3, 3)) as solver:
        for k in np.flatnonzero(complete)[:40].tolist():
            outcome = solver.solve(puzzles[k], unique=True)
            assert outcome.unique is True
            assert np.array_equal(outcome.grid.values.ravel(), forced[k])


def test_same_fixpoint_as_the_rules_engine_at_the_same_level():
    """Eppstein's engine (reductions/rules) with its levels 1-4 — hidden single, naked
    single, pointing, claiming — one puzzle at a time reaches the same placed digits, puzzle
    for puzzle, easy and hard: an independent implementation of the same sound rules."""
    puzzles = (instance_puzzles("royle17-sample300.txt", 80)
               + instance_puzzles("top1465-sample100.txt", 40))
    rules = select_rules(max_level=4)
    assert [r.name for r in rules] == ["hidden-single", "naked-single", "pointing", "claiming"]
    forced = forced_digits(flat(puzzles), Shape(3, 3))
    completed = 0
    for puzzle, mine in zip(puzzles, forced):
        state = deduce(puzzle, rules).state
        cand = state.cand.reshape(81, 9)
        engine = np.where(state.values.ravel() > 0, state.values.ravel(),
                          np.where(cand.sum(axis=1) == 1, cand.argmax(axis=1) + 1, 0))
        assert np.array_equal(engine, mine)
        completed += bool(np.all(mine > 0))
    assert 0 < completed < len(puzzles)
    singles_only = forced_digits(flat(puzzles), Shape(3, 3), locked=False)
    assert np.all((singles_only == 0) | (singles_only == forced))
    assert np.sum(np.all(singles_only > 0, axis=1)) < completed


def test_no_instances_are_never_completed_into_a_valid_grid():
    puzzles = instance_puzzles("unsolvable.txt")
    for shape in {p.shape for p in puzzles}:
        mine = [p for p in puzzles if p.shape == shape]
        clues = flat(mine)
        forced = forced_digits(clues, shape)
        complete = np.all(forced > 0, axis=1)
        assert not np.any(solve_checks(clues[complete], forced[complete], shape))


def test_contradictory_clues_stay_in_the_result():
    """A digit twice in a row empties those cells' candidates; the clues are still in the
    result (the batch path gives the result to the solver as its assumptions: without them
    it answered for a puzzle with fewer clues)."""
    clues = np.zeros((1, 81), dtype=np.uint8)
    clues[0, :2] = 1
    forced = forced_digits(clues, Shape(3, 3))[0]
    assert forced[0] == 1 and forced[1] == 1


def test_a_puzzle_with_several_solutions_is_left_open():
    puzzle = instance_puzzles("multiple-solutions.txt")[0]
    forced = forced_digits(flat([puzzle]), puzzle.shape)[0]
    assert np.any(forced == 0)


def test_64x64_uses_64_bit_masks():
    """A solved 64×64 grid with one cell emptied in each row: naked singles refill it."""
    shape = Shape(8, 8)
    solution = pattern_solution(shape).values.ravel().astype(np.uint8)
    clues = solution.copy()
    clues[np.arange(64) * 64 + (np.arange(64) * 7) % 64] = 0
    forced = forced_digits(clues[None, :], shape)[0]
    assert np.array_equal(forced, solution)


@st.composite
def puzzles_with_solutions(draw):
    shape = draw(st.sampled_from([Shape(2, 2), Shape(2, 3), Shape(3, 3), Shape(3, 4)]))
    n = shape.size
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    digits = rng.permutation(n) + 1
    solution = pattern_solution(shape, digits).values.ravel().astype(np.uint8)
    keep = rng.random(n * n) < draw(st.floats(0.1, 0.9))
    return shape, np.where(keep, solution, 0).astype(np.uint8), solution


@settings(max_examples=60, deadline=None)
@given(puzzles_with_solutions())
def test_property_forced_digits_are_in_the_solution(case):
    """The puzzle keeps a known solution; every forced digit must be that solution's, and
    when the grid is complete it *is* that solution."""
    shape, clues, solution = case
    forced = forced_digits(clues[None, :], shape)[0]
    assert np.all((forced == 0) | (forced == solution))
    if np.all(forced > 0):
        assert np.array_equal(forced, solution)


def test_batch_answers_equal_one_by_one_answers_with_no_instances_in_between():
    """A batch over the singles threshold mixing solvable, unsolvable and several-solution
    puzzles: the same statuses, verified grids and uniqueness verdicts as one by one."""
    puzzles = (instance_puzzles("royle17-sample300.txt", 60)
               + instance_puzzles("unsolvable.txt")
               + instance_puzzles("multiple-solutions.txt")
               + instance_puzzles("forum-hardest-sample100.txt", 20))
    puzzles = [p for p in puzzles if p.shape == Shape(3, 3)]
    assert len(puzzles) >= FORCED_MIN_BATCH
    rows = list(flat(puzzles))
    batch = list(solve_batch(rows, Shape(3, 3), unique=True))
    with IncrementalSudokuSolver(Shape(3, 3)) as solver:
        for puzzle, item in zip(puzzles, batch):
            alone = solver.solve(puzzle, unique=True)
            assert item.status == alone.status
            assert item.unique == alone.unique
            if item.status == Status.SOLVED:
                assert check_solution(puzzle, item.grid(puzzle.shape))
                if item.unique:
                    assert item.grid(puzzle.shape) == alone.grid
            if item.unique is False:
                second = item.second_grid(puzzle.shape)
                assert check_solution(puzzle, second) and second != item.grid(puzzle.shape)
    assert {item.status for item in batch} == {Status.SOLVED, Status.NO_SOLUTION}
    assert {item.unique for item in batch} == {True, False, None}
