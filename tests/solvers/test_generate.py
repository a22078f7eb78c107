"""Eppstein's generator: same seed → same puzzles, every puzzle unique (checked by exact
cover, not the SAT oracle that made it) and minimal (no clue, or symmetric pair, can go),
symmetric mode symmetric, small sizes; the ``generate`` command's output and exit codes."""

from __future__ import annotations

import numpy as np
import pytest

from reductions.rules.generator import (construct, generate, is_symmetric, partner, puzzle_rng,
                                        remove_clues)
from reductions.sudoku.grid import Grid, Shape, format_grid, parse_grid
from reductions.rules.engine import deduce, select_rules
from reductions.status import Status
from solvers import cli
from solvers.routes.exact_cover import solve_puzzle as exact_cover_solve
from solvers.formats.atomic import temp_files_of
from solvers.generate import generate_puzzles, generator_estimate
from solvers.routes.sat_incremental import IncrementalSudokuSolver

from tests.conftest import instance_puzzles


def unique_by_exact_cover(puzzle: Grid) -> bool:
    """An independent check: the exact-cover route's search for two solutions."""
    outcome = exact_cover_solve(puzzle, cover_solver="dlx", unique=True)
    assert outcome.solved and outcome.unique is not None
    return outcome.unique


def exact_cover_oracle(shape: Shape):
    def oracle(clues: np.ndarray, solution: np.ndarray) -> bool:
        return unique_by_exact_cover(Grid(clues, shape))
    return oracle


def without(puzzle: Grid, cells) -> Grid:
    values = puzzle.values.ravel().copy()
    values[list(cells)] = 0
    return Grid(values, puzzle.shape)


def removable_groups(puzzle: Grid, symmetric: bool) -> list[tuple[int, ...]]:
    """The clues (or symmetric pairs) whose removal keeps the solution unique."""
    shape = puzzle.shape
    cells = np.flatnonzero(puzzle.values.ravel())
    groups = {tuple(sorted({int(c), partner(shape, int(c))})) if symmetric else (int(c),)
              for c in cells}
    return [g for g in sorted(groups) if unique_by_exact_cover(without(puzzle, g))]


def lines(puzzles) -> list[str]:
    return [format_grid(p.puzzle) for p in puzzles]


# ----------------------------------------------------------------------------- library

def test_same_seed_same_puzzles_and_each_independent():
    shape = Shape(3, 3)
    first = lines(generate_puzzles(shape, count=4, seed=11))
    assert first == lines(generate_puzzles(shape, count=4, seed=11))
    assert lines(generate_puzzles(shape, count=1, seed=11, start=2)) == first[2:3]
    assert len(set(first)) == 4
    assert set(first).isdisjoint(lines(generate_puzzles(shape, count=4, seed=12)))


@pytest.mark.parametrize("symmetric", [False, True])
def test_9x9_puzzles_unique_and_minimal(symmetric):
    for made in generate_puzzles(Shape(3, 3), count=2, seed=3, symmetric=symmetric):
        puzzle = made.puzzle
        assert unique_by_exact_cover(puzzle)
        assert made.solution == exact_cover_solve(puzzle, cover_solver="dlx").grid
        assert removable_groups(puzzle, symmetric) == []
        assert is_symmetric(puzzle) or not symmetric
        assert 17 <= made.clues <= made.placed


@pytest.mark.parametrize("box", ["2x2", "2x3", "3x2"])
def test_small_sizes_unique_minimal_symmetric(box):
    shape = Shape.parse(box)
    for made in generate_puzzles(shape, count=4, seed=1, symmetric=True):
        assert made.puzzle.shape == shape
        assert is_symmetric(made.puzzle)
        assert unique_by_exact_cover(made.puzzle)
        assert removable_groups(made.puzzle, symmetric=True) == []


def test_another_oracle_gives_the_same_puzzles():
    """Uniqueness is a fact, not a solver's opinion: the exact-cover oracle makes exactly the
    puzzles the SAT oracle makes."""
    shape = Shape(2, 3)
    by_sat = lines(generate_puzzles(shape, count=3, seed=5))
    by_cover = lines(generate(shape, count=3, seed=5, symmetric=False,
                              oracle=exact_cover_oracle(shape)))
    assert by_sat == by_cover


def test_construction_is_solved_by_the_singles():
    shape = Shape(3, 3)
    clues, groups, solution, _ = construct(shape, puzzle_rng(4, 0), symmetric=True)
    assert sorted(c for g in groups for c in g) == sorted(np.flatnonzero(clues).tolist())
    result = deduce(Grid(clues, shape), select_rules(max_level=2))
    assert result.verdict == Status.SOLVED
    assert np.array_equal(result.state.values.ravel(), solution)


def test_removal_follows_the_oracle():
    shape = Shape(2, 2)
    clues, groups, solution, _ = construct(shape, puzzle_rng(0, 0), symmetric=False)
    kept, calls = remove_clues(clues, solution, groups, lambda c, s: False)
    assert np.array_equal(kept, clues) and calls == len(groups)
    emptied, _ = remove_clues(clues, solution, groups, lambda c, s: True)
    assert not emptied.any()


def test_unique_solution_one_call():
    shape = Shape(3, 3)
    with IncrementalSudokuSolver(shape) as solver:
        puzzle = instance_puzzles("royle17-sample300.txt")[0]
        solution = solver.solve(puzzle).grid
        clues = puzzle.values.ravel().astype(np.uint8)
        digits = solution.values.ravel().astype(np.uint8)
        assert solver.unique_solution(clues, digits) is True
        several = instance_puzzles("multiple-solutions.txt")[0]
        other = solver.solve(several).grid
        assert solver.unique_solution(several.values.ravel().astype(np.uint8),
                                      other.values.ravel().astype(np.uint8)) is False
        with pytest.raises(ValueError):
            solver.unique_solution(clues, np.roll(digits, 1))


def test_estimate_grows_with_size():
    assert generator_estimate(Shape(4, 4)).bytes > generator_estimate(Shape(3, 3)).bytes


# ----------------------------------------------------------------------------- command

def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_same_seed_same_output(capsys):
    code, out, err = run(capsys, "generate", "--count", 3, "--seed", 9, "--symmetric")
    assert code == 0
    rows = out.splitlines()
    assert len(rows) == 3 and all(len(r) == 81 for r in rows)
    assert "--seed 9" in err and "symmetric" in err
    assert run(capsys, "generate", "--count", 3, "--seed", 9, "--symmetric")[1] == out
    assert all(is_symmetric(parse_grid(r)) for r in rows)
    assert run(capsys, "generate", "--count", 3, "--seed", 10, "--symmetric")[1] != out


def test_cli_random_seed_is_reported(capsys):
    code, out, err = run(capsys, "generate", "--size", 4)
    seed = err.split("--seed ")[1].split(")")[0]
    assert code == 0 and run(capsys, "generate", "--size", 4, "--seed", seed)[1] == out


def test_cli_output_file_written_atomically(capsys, tmp_path):
    target = tmp_path / "p.txt"
    code, out, _ = run(capsys, "generate", "--box", "2x3", "--count", 5, "--seed", 2,
                       "-o", target)
    assert code == 0 and out == f"wrote 5 puzzles to {target}\n"
    rows = target.read_text().splitlines()
    assert len(rows) == 5 and all(len(r) == 36 for r in rows)
    assert temp_files_of(target) == []
    assert rows == run(capsys, "generate", "--box", "2x3", "--count", 5, "--seed", 2)[1].split()


@pytest.mark.parametrize("argv, message", [
    (["--size", "7"], "size 7 has no a×b block shape"),
    (["--size", "25"], "generate takes N up to 16, not 25"),
    (["--size", "6", "--box", "3x3"], "--size 6 does not match --box 3x3"),
    (["--size", "16", "--max-memory", "1M"], "over the memory limit"),
    (["-o", "/proc/x"], "is under /proc"),
])
def test_cli_errors_are_one_line(capsys, tmp_path, argv, message):
    code, out, err = run(capsys, "generate", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize("argv", [["--count", "0"], ["--seed", "-1"], ["--count", "x"]])
def test_cli_bad_numbers_are_usage_errors(capsys, argv):
    code, out, err = run(capsys, "generate", *argv)
    assert code == 2 and out == "" and err.startswith("sudoku-bridge generate: error: --")


def test_cli_output_directory_refused(capsys, tmp_path):
    code, _, err = run(capsys, "generate", "-o", tmp_path)
    assert code == 2 and "sudoku-bridge: error:" in err
