"""The SAT route end to end: pysat solvers, batches, command-line solvers, NO instances,
uniqueness, time limits. Every solution is checked against the puzzle."""

from __future__ import annotations

import shutil
import sys

import numpy as np
import pytest

from reductions.encodings.cnf import CnfError
from reductions.sudoku.grid import (Grid, Shape, check_solution, format_grid, parse_grid,
                                    pattern_solution)
from solvers.runtime.processes import ExternalSolverError
from solvers.outcome import SolverUnavailable, Status
from solvers.routes.sat import solve_puzzle, solve_with_command
from solvers.routes.sat_batch import solve_batch, solve_many
from solvers.routes.sat_incremental import IncrementalSudokuSolver

from tests.conftest import instance_pairs, instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION


def test_incremental_solver_on_the_17_clue_sample():
    puzzles = instance_puzzles("royle17-sample300.txt")
    with IncrementalSudokuSolver(Shape(3, 3)) as solver:
        for puzzle in puzzles:
            outcome = solver.solve(puzzle)
            assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)
    assert outcome.stats["solver"] == "cadical195"


@pytest.mark.parametrize("jobs", [1, 2])
def test_batch_of_hard_puzzles_with_uniqueness(jobs):
    puzzles = instance_puzzles("forum-hardest-sample100.txt")
    results = list(solve_many(puzzles, unique=True, jobs=jobs))
    assert [i for i, _ in results] == list(range(len(puzzles)))
    for (i, outcome), puzzle in zip(results, puzzles):
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)
        assert outcome.unique is True


@pytest.mark.parametrize("solver", ["cadical195", "glucose4", "minisat22", "lingeling",
                                    "maplechrono"])
def test_other_pysat_solvers(solver):
    for puzzle in instance_puzzles("top1465-sample100.txt", 5):
        outcome = solve_puzzle(puzzle, solver=solver)
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)


def test_unknown_pysat_solver_name():
    with pytest.raises(SolverUnavailable, match="unknown pysat solver 'nosuch'"):
        solve_puzzle(parse_grid(PAPER_17), solver="nosuch")


@pytest.mark.parametrize("name", ["4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt", "16x16.txt",
                                  "25x25.txt"])
def test_every_shipped_size(name):
    for puzzle, known in instance_pairs(name):
        outcome = solve_puzzle(puzzle, unique=puzzle.size <= 12)
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)
        if puzzle.size <= 12:                # these were made with unique solutions
            assert outcome.unique is True and outcome.grid == known


def partly_filled(n: int, holes: float, seed: int) -> Grid:
    rng = np.random.default_rng(seed)
    full = pattern_solution(Shape.for_size(n), rng.permutation(n) + 1)
    return Grid(np.where(rng.random((n, n)) < holes, 0, full.values), full.shape)


def test_large_grids():
    empty = Grid.empty(25)
    assert check_solution(empty, solve_puzzle(empty, amo="seqcounter").grid)
    # 30% holes: well below the quasigroup-completion hardness peak (around 40-50% holes,
    # where 36x36 puzzles take minutes)
    puzzle = partly_filled(36, 0.3, 3)
    outcome = solve_puzzle(puzzle, amo="seqcounter")
    assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)


@pytest.mark.slow
def test_largest_grids():
    empty = Grid.empty(36)
    assert check_solution(empty, solve_puzzle(empty, amo="seqcounter").grid)
    puzzle = partly_filled(64, 0.3, 3)
    assert check_solution(puzzle, solve_puzzle(puzzle).grid)


def test_unsolvable_puzzles_every_path():
    puzzles = instance_puzzles("unsolvable.txt")
    with IncrementalSudokuSolver(Shape(3, 3)) as solver:
        for puzzle in puzzles:
            assert solver.solve(puzzle).status == Status.NO_SOLUTION
            # the shared solver keeps working after an unsatisfiable call
            assert solver.solve(parse_grid(PAPER_17)).status == Status.SOLVED
    for puzzle in puzzles:
        for clues in ("units", "eliminate"):
            assert solve_puzzle(puzzle, clues=clues).status == Status.NO_SOLUTION
    assert all(o.status == Status.NO_SOLUTION for _, o in solve_many(puzzles, jobs=2))


def test_several_solutions_are_reported():
    [puzzle] = instance_puzzles("multiple-solutions.txt")
    for outcome in (solve_puzzle(puzzle, unique=True),
                    solve_puzzle(puzzle, unique=True, clues="eliminate"),
                    IncrementalSudokuSolver(puzzle.shape).solve(puzzle, unique=True)):
        assert outcome.status == Status.SOLVED and outcome.unique is False
        assert outcome.grid != outcome.second
        assert check_solution(puzzle, outcome.grid) and check_solution(puzzle, outcome.second)


def test_uniqueness_check_does_not_leak_into_the_next_puzzle():
    [several] = instance_puzzles("multiple-solutions.txt")
    paper = parse_grid(PAPER_17)
    with IncrementalSudokuSolver(paper.shape) as solver:
        assert solver.solve(paper, unique=True).unique is True
        # the blocking clause of the paper puzzle's solution must be retired: the
        # several-solution puzzle has that same grid as one of its solutions
        outcome = solver.solve(several, unique=True)
        assert outcome.unique is False
        assert solver.solve(paper).grid == parse_grid(PAPER_17_SOLUTION)


def test_time_limit_gives_unknown_never_no_solution():
    puzzle = instance_puzzles("unsolvable.txt")[0]
    assert solve_puzzle(puzzle, time_limit=0).status == Status.UNKNOWN
    with IncrementalSudokuSolver(puzzle.shape) as solver:
        outcome = solver.solve(puzzle, time_limit=0)
        assert outcome.status == Status.UNKNOWN and outcome.stats["reason"] == "time limit"
        assert solver.solve(puzzle, time_limit=30).status == Status.NO_SOLUTION


def test_batch_reports_bad_lines_and_keeps_going():
    lines = [PAPER_17, PAPER_17[:-1], "11" + PAPER_17[2:], PAPER_17]
    items = list(solve_batch(lines, Shape(3, 3)))
    assert [i.status for i in items] == [Status.SOLVED, "error", "error", Status.SOLVED]
    assert "80 cells" in items[1].error
    assert "row 1 has two 1s" in items[2].error
    assert items[0].grid(Shape(3, 3)) == parse_grid(PAPER_17_SOLUTION)


def test_batch_handles_other_sizes_in_one_file():
    four = format_grid(instance_puzzles("4x4.txt")[0])
    items = list(solve_batch([PAPER_17, four], Shape(3, 3)))
    assert items[1].status == Status.SOLVED and items[1].shape == Shape(2, 2)
    assert check_solution(instance_puzzles("4x4.txt")[0], items[1].grid(items[1].shape))


# ----------------------------------------------------------------------------- external

def test_missing_binary_is_a_clear_error():
    with pytest.raises(SolverUnavailable, match="'no-such-solver-xyz' not found on PATH"):
        solve_with_command(parse_grid(PAPER_17), "no-such-solver-xyz")


@pytest.mark.parametrize("binary", ["cadical", "minisat"])
def test_real_command_line_solvers(binary):
    if shutil.which(binary) is None:
        pytest.skip(f"{binary} not installed (Debian package '{binary}')")
    paper = parse_grid(PAPER_17)
    outcome = solve_with_command(paper, binary, unique=True)
    assert outcome.status == Status.SOLVED and outcome.grid == parse_grid(PAPER_17_SOLUTION)
    assert outcome.unique is True
    for clues in ("units", "eliminate"):
        for encoding in ("minimal", "extended"):
            outcome = solve_with_command(instance_puzzles("forum-hardest-sample100.txt")[0],
                                         binary, encoding=encoding, clues=clues)
            assert outcome.status == Status.SOLVED
    for puzzle in instance_puzzles("unsolvable.txt")[:3]:
        assert solve_with_command(puzzle, binary, clues="units").status == Status.NO_SOLUTION
    [several] = instance_puzzles("multiple-solutions.txt")
    outcome = solve_with_command(several, binary, unique=True)
    assert outcome.unique is False and check_solution(several, outcome.second)
    big = instance_puzzles("16x16.txt")[0]
    assert check_solution(big, solve_with_command(big, binary, amo="seqcounter").grid)


def fake_solver(tmp_path, body: str) -> str:
    script = tmp_path / "fake_solver.py"
    script.write_text(body)
    return f"{sys.executable} {script} {{input}}"


def test_command_timeout_is_unknown(tmp_path):
    cmd = fake_solver(tmp_path, "import time\ntime.sleep(30)\n")
    outcome = solve_with_command(parse_grid(PAPER_17), cmd, time_limit=0.5)
    assert outcome.status == Status.UNKNOWN and "time limit" in outcome.stats["reason"]


def test_command_that_crashes_is_an_error(tmp_path):
    cmd = fake_solver(tmp_path, "import sys\nprint('oops')\nsys.exit(3)\n")
    with pytest.raises(ExternalSolverError, match="exited with code 3"):
        solve_with_command(parse_grid(PAPER_17), cmd)


def test_command_with_a_wrong_model_is_caught(tmp_path):
    # A "solver" claiming every variable false: the decoder must refuse it, never print it.
    cmd = fake_solver(tmp_path, "import sys\nn = int([l for l in open(sys.argv[1]) "
                                "if l.startswith('p')][0].split()[2])\n"
                                "print('s SATISFIABLE')\n"
                                "print('v', ' '.join(str(-v) for v in range(1, n + 1)), 0)\n"
                                "sys.exit(10)\n")
    with pytest.raises(CnfError, match=r"model gives cell \(1,1\) 0 digits"):
        solve_with_command(parse_grid(PAPER_17), cmd)


def test_command_claiming_unknown(tmp_path):
    cmd = fake_solver(tmp_path, "print('s UNKNOWN')\n")
    assert solve_with_command(parse_grid(PAPER_17), cmd).status == Status.UNKNOWN


def test_solution_bytes_round_trip():
    items = list(solve_batch([np.frombuffer(PAPER_17.replace(".", "0").encode(), np.uint8)
                              - ord("0")], Shape(3, 3)))
    assert items[0].grid(Shape(3, 3)) == parse_grid(PAPER_17_SOLUTION)
