"""Solving the ILP with CBC and HiGHS: closed loops, NO instances, uniqueness by a no-good cut,
time limits, LP/MPS files through Debian's cbc command line, solution files, bad input."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from reductions.sudoku.grid import Grid, check_solution, parse_grid
from reductions.encodings.ilp import CLUE_MODES, SudokuToIlp, sudoku_ilp
from solvers.routes import ilp
from solvers.formats import ilp_model
from solvers.formats.lp_solution import read_lp_solution
from solvers.outcome import Status
from solvers.tools import ilp_programs

from tests.conftest import instance_pairs, instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION
from tests.solvers.routes.test_exact_cover import hard_36


def cbc_available() -> bool:
    try:
        ilp_programs.find_cbc()
    except ilp.SolverUnavailable:
        return False
    return True


try:
    import highspy
except ImportError:
    highspy = None
HAVE_HIGHS = highspy is not None

CBC_CLI = shutil.which("cbc")
SOLVERS = [pytest.param("cbc", marks=pytest.mark.skipif(not cbc_available(),
                                                        reason="no CBC binary")),
           pytest.param("highs", marks=pytest.mark.skipif(not HAVE_HIGHS,
                                                          reason="highspy not installed"))]
needs_cbc_cli = pytest.mark.skipif(CBC_CLI is None, reason="no 'cbc' command on PATH "
                                                           "(Debian: coinor-cbc)")


# ----------------------------------------------------------------------------- closed loops

@pytest.mark.parametrize("solver", SOLVERS)
def test_nine_by_nine_sample_closed_loop(solver):
    for puzzle in instance_puzzles("royle17-sample300.txt", 8):
        outcome = ilp.solve_puzzle(puzzle, ilp_solver=solver, unique=True)
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)
        assert outcome.unique is True
    # the forum's hardest puzzles take CBC about 2 s each (branching): one is enough here
    puzzle = instance_puzzles("forum-hardest-sample100.txt", 1)[0]
    outcome = ilp.solve_puzzle(puzzle, ilp_solver=solver)
    assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("name", ["4x4.txt", "6x6-2x3.txt", "16x16.txt"])
def test_other_sizes_closed_loop(solver, name):
    for puzzle, known in instance_pairs(name):
        outcome = ilp.solve_puzzle(puzzle, ilp_solver=solver, unique=name != "16x16.txt")
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)
        if name != "16x16.txt":
            assert outcome.unique is True and outcome.grid == known


@pytest.mark.parametrize("solver", SOLVERS)
def test_full_model_with_clue_equalities(solver):
    outcome = ilp.solve_puzzle(parse_grid(PAPER_17), ilp_solver=solver, unique=True,
                               clues="equalities")
    assert outcome.grid == parse_grid(PAPER_17_SOLUTION) and outcome.unique is True
    assert outcome.stats["variables"] == 729 and outcome.stats["constraints"] == 341


# ----------------------------------------------------------------------------- NO instances

@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("clues", CLUE_MODES)
def test_unsolvable_puzzles_are_infeasible(solver, clues):
    for puzzle in instance_puzzles("unsolvable.txt"):
        outcome = ilp.solve_puzzle(puzzle, ilp_solver=solver, unique=True, clues=clues)
        assert outcome.status == Status.NO_SOLUTION and outcome.grid is None


@pytest.mark.parametrize("solver", SOLVERS)
def test_contradictory_clues_are_infeasible(solver):
    values = Grid.empty(4).values.copy()
    values[0, 0] = values[0, 3] = 2
    for clues in CLUE_MODES:
        outcome = ilp.solve_puzzle(Grid(values), ilp_solver=solver, clues=clues)
        assert outcome.status == Status.NO_SOLUTION


# ----------------------------------------------------------------------------- uniqueness

@pytest.mark.parametrize("solver", SOLVERS)
def test_several_solutions_reports_two_distinct_valid_grids(solver):
    puzzle = instance_puzzles("multiple-solutions.txt")[0]
    outcome = ilp.solve_puzzle(puzzle, ilp_solver=solver, unique=True)
    assert outcome.status == Status.SOLVED and outcome.unique is False
    assert outcome.second is not None and outcome.second != outcome.grid
    assert check_solution(puzzle, outcome.grid) and check_solution(puzzle, outcome.second)


# ----------------------------------------------------------------------------- limits

@pytest.mark.parametrize("solver", SOLVERS)
def test_time_limit_gives_unknown(solver):
    outcome = ilp.solve_puzzle(hard_36(), ilp_solver=solver, time_limit=1.0)
    assert outcome.status == Status.UNKNOWN and outcome.grid is None
    assert outcome.stats["reason"] == "time limit reached"


def test_missing_cbc_binary_is_one_clear_error(monkeypatch):
    with pytest.raises(ilp.SolverUnavailable, match="CBC program '/nowhere/cbc' not found"):
        ilp.solve_puzzle(parse_grid(PAPER_17), ilp_solver="cbc", cbc_path="/nowhere/cbc")
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(ilp_programs, "bundled_cbc", lambda: None)
    with pytest.raises(ilp.SolverUnavailable, match="CBC not found: no 'cbc' on PATH"):
        ilp.solve_puzzle(parse_grid(PAPER_17), ilp_solver="cbc")


def test_unknown_solver():
    with pytest.raises(ilp.IlpError, match="unknown ILP solver 'gurobi'"):
        ilp.solve_puzzle(parse_grid(PAPER_17), ilp_solver="gurobi")


# ----------------------------------------------------------------------------- files

def run_cbc(model_path, solution_path):
    result = subprocess.run([CBC_CLI, str(model_path), "solve", "solu", str(solution_path)],
                            capture_output=True, text=True, timeout=120,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout.lower().replace("0 errors", ""), result.stdout
    return result


@needs_cbc_cli
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
@pytest.mark.parametrize("clues", CLUE_MODES)
@pytest.mark.parametrize("name", ["4x4.txt", "6x6-2x3.txt", "16x16.txt"])
def test_files_load_unchanged_in_the_cbc_command_line(tmp_path, name, clues, suffix):
    puzzle = instance_puzzles(name)[0]
    model_path = tmp_path / f"model{suffix}"
    ilp_model.write_model(model_path, sudoku_ilp(puzzle, clues))
    run_cbc(model_path, tmp_path / "out.sol")
    solution = read_lp_solution(tmp_path / "out.sol")
    assert solution.status == Status.SOLVED
    model = ilp_model.model_from_file(model_path)
    assert model.puzzle == puzzle and model.clues == clues
    grid = ilp_model.grid_from_solution(SudokuToIlp(model.puzzle, model), solution,
                                        tmp_path / "out.sol",
                                        ilp_model.column_names(model, model_path))
    assert check_solution(puzzle, grid)


@needs_cbc_cli
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_cbc_command_line_proves_a_no_instance(tmp_path, suffix):
    model_path = tmp_path / f"no{suffix}"
    ilp_model.write_model(model_path, sudoku_ilp(instance_puzzles("unsolvable.txt")[0]))
    run_cbc(model_path, tmp_path / "no.sol")
    solution = read_lp_solution(tmp_path / "no.sol")
    assert solution.status == Status.NO_SOLUTION and "nfeasible" in solution.detail


@pytest.mark.skipif(not HAVE_HIGHS, reason="highspy not installed")
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_highs_reads_our_files_and_its_solution_file_decodes(tmp_path, suffix):
    ilp._highs_ready()
    puzzle = parse_grid(PAPER_17)
    model_path = tmp_path / f"model{suffix}"
    ilp_model.write_model(model_path, sudoku_ilp(puzzle, "equalities"))
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    assert highs.readModel(str(model_path)) == highspy.HighsStatus.kOk
    highs.run()
    highs.writeSolution(str(tmp_path / "highs.sol"), 0)
    solution = read_lp_solution(tmp_path / "highs.sol")
    assert solution.status == Status.SOLVED
    model = ilp_model.model_from_file(model_path)
    grid = ilp_model.grid_from_solution(SudokuToIlp(model.puzzle, model), solution, "highs.sol",
                                        ilp_model.column_names(model, model_path))
    assert grid == parse_grid(PAPER_17_SOLUTION)


# ----------------------------------------------------------------------------- bad files

@pytest.mark.parametrize("first_line,status", [
    ("Optimal - objective value 0.00000000", Status.SOLVED),
    ("Infeasible - objective value 0.00000000", Status.NO_SOLUTION),
    ("Integer infeasible - objective value 0.00000000", Status.NO_SOLUTION),
    ("Stopped on time - objective value 0.00000000", Status.SOLVED),
    ("Stopped on time (no integer solution - continuous used) - objective value 0", Status.UNKNOWN),
    ("Stopped on iterations - objective value 0", Status.SOLVED),
    ("Status unknown", Status.UNKNOWN),
])
def test_cbc_status_lines(tmp_path, first_line, status):
    (tmp_path / "s.sol").write_text(first_line + "\n")
    assert read_lp_solution(tmp_path / "s.sol").status == status


@pytest.mark.parametrize("solver", SOLVERS)
def test_complete_and_empty_grids(solver):
    full = parse_grid(PAPER_17_SOLUTION)
    for clues in CLUE_MODES:
        outcome = ilp.solve_puzzle(full, ilp_solver=solver, unique=True, clues=clues)
        assert outcome.grid == full and outcome.unique is True
    outcome = ilp.solve_puzzle(Grid.empty(9), ilp_solver=solver, unique=True)
    assert outcome.unique is False and check_solution(Grid.empty(9), outcome.second)


@needs_cbc_cli
def test_thirty_six_by_thirty_six_mps_loads_in_cbc(tmp_path):
    # CBC's MPS reader fails on comment lines of ~1,000 characters: the puzzle is written
    # one row per comment line. Only loading is checked (CBC needs long on this model).
    values = Grid.empty(36).values.copy()
    values[0] = range(1, 37)
    model_path = tmp_path / "m36.mps"
    ilp_model.write_model(model_path, sudoku_ilp(Grid(values), "eliminate"))
    assert max(len(line) for line in model_path.read_text().splitlines()) < 300
    result = subprocess.run([CBC_CLI, str(model_path), "quit"], capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, timeout=120)
    assert "read with 0 errors" in result.stdout, result.stdout
    assert ilp_model.model_from_file(model_path).puzzle == Grid(values)


# ----------------------------------------------------------------------------- kept HiGHS model

needs_highs = pytest.mark.skipif(not HAVE_HIGHS, reason="highspy not installed")


def kept_model_is_blank(shape) -> bool:
    """The process's kept model is back to the blank grid's: base rows only, bounds [0, 1]."""
    kept = ilp._KEPT_HIGHS.kept(shape)
    lp = kept.highs.getLp()
    return (kept.highs.getNumRow() == kept.rows
            and list(lp.col_lower_) == [0.0] * kept.columns
            and list(lp.col_upper_) == [1.0] * kept.columns)


@needs_highs
@pytest.mark.parametrize("clues", CLUE_MODES)
def test_kept_highs_model_alternates_yes_no_and_uniqueness_both_ways(clues):
    # One kept model serves every puzzle: a NO instance right after solvable ones, a
    # solvable one right after a NO instance, unique and not unique in turn.
    solvable = instance_puzzles("royle17-sample300.txt", 3)
    unsolvable = instance_puzzles("unsolvable.txt")
    several = instance_puzzles("multiple-solutions.txt")[0]
    sequence = [solvable[0], unsolvable[0], solvable[1], several, unsolvable[1], several,
                solvable[2], unsolvable[3]]
    for puzzle in sequence:
        outcome = ilp.solve_puzzle(puzzle, ilp_solver="highs", unique=True, clues=clues)
        assert outcome.stats["model"] == "kept"
        if puzzle in unsolvable:
            assert outcome.status == Status.NO_SOLUTION and outcome.grid is None
        elif puzzle is several:
            assert outcome.status == Status.SOLVED and outcome.unique is False
            assert outcome.second != outcome.grid and check_solution(puzzle, outcome.second)
        else:
            assert outcome.status == Status.SOLVED and outcome.unique is True
        if outcome.grid is not None:
            assert check_solution(puzzle, outcome.grid)
        assert kept_model_is_blank(puzzle.shape)
    kept = ilp._KEPT_HIGHS.models()
    assert len({id(m) for m in kept.values()}) == len(kept)


@needs_highs
def test_kept_highs_model_sizes_are_the_puzzle_models():
    # The records quote the size of the puzzle's own model, as the per-puzzle route did.
    for puzzle in instance_puzzles("royle17-sample300.txt", 2):
        for clues in CLUE_MODES:
            outcome = ilp.solve_puzzle(puzzle, ilp_solver="highs", clues=clues)
            model = sudoku_ilp(puzzle, clues)
            assert (outcome.stats["variables"], outcome.stats["constraints"]) == \
                (model.num_variables, model.num_constraints)


@needs_highs
def test_kept_highs_model_is_restored_after_a_time_limit_and_reused():
    puzzle = hard_36()
    outcome = ilp.solve_puzzle(puzzle, ilp_solver="highs", time_limit=0.3)
    assert outcome.status == Status.UNKNOWN and kept_model_is_blank(puzzle.shape)
    kept = ilp._KEPT_HIGHS.kept(puzzle.shape)
    # the pattern solution of 6x6 blocks, with its first row blanked: one solution
    full = np.fromfunction(lambda r, c: (6 * (r % 6) + r // 6 + c) % 36 + 1, (36, 36),
                           dtype=np.int64).astype(np.int16)
    assert check_solution(Grid.empty(36), Grid(full))
    blanked = full.copy()
    blanked[0] = 0
    outcome = ilp.solve_puzzle(Grid(blanked), ilp_solver="highs", unique=True, time_limit=60)
    assert outcome.grid == Grid(full) and outcome.unique is True
    assert ilp._KEPT_HIGHS.kept(puzzle.shape) is kept and kept_model_is_blank(puzzle.shape)
