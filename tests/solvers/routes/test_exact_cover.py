"""Exact-cover solving: closed loops with both backends, NO instances, counting, uniqueness,
time limits, the dense-size refusal and the fallback when the C package is missing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.encodings.exact_cover import ExactCoverError, sudoku_exact_cover
from reductions.sudoku.grid import Grid, Shape, check_solution, parse_grid
from solvers.routes import exact_cover as ec
from solvers.outcome import Status

from tests.conftest import instance_pairs, instance_puzzles, shared_set
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION, random_solution

HAVE_PACKAGE = ec.exact_cover_package() is not None
BACKENDS = [pytest.param("exact-cover", marks=pytest.mark.skipif(
    not HAVE_PACKAGE, reason="the 'exact-cover' package is not installed")), "dlx"]


def hard_36(seed: int = 0) -> Grid:
    """A 36×36 puzzle with half the cells emptied: neither dancing links nor HiGHS finds a
    solution within 10–30 s (measured), so short time limits must end 'unknown'."""
    solution = random_solution(Shape(6, 6), seed)
    values = solution.values.copy()
    values[np.random.default_rng(seed).random(values.shape) < 0.5] = 0
    return Grid(values, solution.shape)


# ----------------------------------------------------------------------------- closed loops

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,limit", [("royle17-sample300.txt", 60),
                                        ("forum-hardest-sample100.txt", 15),
                                        ("top1465-sample100.txt", 20)])
def test_nine_by_nine_samples_closed_loop(backend, name, limit):
    for puzzle in instance_puzzles(name, limit):
        outcome = ec.solve_puzzle(puzzle, unique=True, cover_solver=backend)
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)
        assert outcome.unique is True      # these published puzzles have one solution
        assert outcome.stats["backend"] == backend


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt", "16x16.txt"])
def test_other_sizes_closed_loop(backend, name):
    for puzzle, known in instance_pairs(name):
        outcome = ec.solve_puzzle(puzzle, unique=name != "16x16.txt", cover_solver=backend)
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)
        if name != "16x16.txt":             # minimal puzzles: unique, so the known answer
            assert outcome.unique is True and outcome.grid == known


@pytest.mark.skipif(not HAVE_PACKAGE, reason="the 'exact-cover' package is not installed")
def test_twenty_five_closed_loop_with_the_c_backend():
    for puzzle in instance_puzzles("25x25.txt"):
        outcome = ec.solve_puzzle(puzzle, cover_solver="exact-cover")
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("clues", ["keep", "eliminate"])
def test_both_clue_modes_solve_to_the_known_answer(backend, clues):
    puzzle = parse_grid(PAPER_17)
    outcome = ec.solve_puzzle(puzzle, unique=True, cover_solver=backend, clues=clues)
    assert outcome.grid == parse_grid(PAPER_17_SOLUTION) and outcome.unique is True


def test_shared_17_clue_sample():
    path = shared_set("royle-17clue-49151.txt")
    lines = [line.strip() for line in path.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    for line in lines[::500]:
        puzzle = parse_grid(line)
        outcome = ec.solve_puzzle(puzzle, unique=True)
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)
        assert outcome.unique is True


# ----------------------------------------------------------------------------- NO instances

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("clues", ["keep", "eliminate"])
def test_unsolvable_puzzles_have_no_solution(backend, clues):
    for puzzle in instance_puzzles("unsolvable.txt"):
        outcome = ec.solve_puzzle(puzzle, unique=True, cover_solver=backend, clues=clues)
        assert outcome.status == Status.NO_SOLUTION and outcome.grid is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_contradictory_clues_have_no_solution(backend):
    values = np.zeros((4, 4), dtype=int)
    values[0, 0] = values[1, 1] = 3              # two 3s in the top-left block
    for clues in ("keep", "eliminate"):
        outcome = ec.solve_puzzle(Grid(values), cover_solver=backend, clues=clues)
        assert outcome.status == Status.NO_SOLUTION


# ----------------------------------------------------------------------------- uniqueness

@pytest.mark.parametrize("backend", BACKENDS)
def test_several_solutions_reports_two_distinct_valid_grids(backend):
    puzzle = instance_puzzles("multiple-solutions.txt")[0]
    outcome = ec.solve_puzzle(puzzle, unique=True, cover_solver=backend)
    assert outcome.status == Status.SOLVED and outcome.unique is False
    assert outcome.second is not None and outcome.second != outcome.grid
    assert check_solution(puzzle, outcome.grid) and check_solution(puzzle, outcome.second)


@pytest.mark.parametrize("backend", BACKENDS)
def test_count_solutions_of_the_empty_four_by_four(backend):
    cover = sudoku_exact_cover(Grid.empty(4))
    assert ec.count_solutions(cover, 1000, backend) == (288, True)    # all 4×4 Sudoku grids
    assert ec.count_solutions(cover, 10, backend) == (10, False)


def test_backends_return_the_same_sets_of_solutions():
    if not HAVE_PACKAGE:
        pytest.skip("the 'exact-cover' package is not installed")
    puzzle = instance_puzzles("multiple-solutions.txt")[0]
    for cover, limit in [(sudoku_exact_cover(Grid.empty(4)), 1000),
                         (sudoku_exact_cover(puzzle, "eliminate"), 50)]:
        c_side = ec.find_covers(cover, limit, "exact-cover")
        ours = ec.find_covers(cover, limit, "dlx")
        assert c_side.complete and ours.complete
        as_set = lambda search: {tuple(s.tolist()) for s in search.solutions}   # noqa: E731
        assert len(as_set(ours)) == len(as_set(c_side)) == min(limit, 288)
        if limit > 288:                    # all solutions: the very same set
            assert as_set(c_side) == as_set(ours)
        for solution in ours.solutions + c_side.solutions:
            assert cover.is_exact_cover(solution)


def test_algorithm_x_on_knuths_example():
    # Knuth's example (dlx1.w): items A..G (F, G handled here as primary too would change
    # the answer, so only the primary part A..E with options restricted accordingly).
    options = [[2, 4], [0, 3], [1, 2], [0, 3], [1], [3, 4]]
    solutions, complete = ec.algorithm_x(options, 5, limit=10)
    assert complete
    assert sorted(solutions) == [[0, 1, 4], [0, 3, 4]]
    assert ec.algorithm_x([[0], [0]], 2, limit=5) == ([], True)      # item 1 uncoverable


# ----------------------------------------------------------------------------- limits

def test_time_limit_gives_unknown_with_our_algorithm_x():
    outcome = ec.solve_puzzle(hard_36(), cover_solver="dlx", time_limit=0.5)
    assert outcome.status == Status.UNKNOWN and outcome.grid is None
    assert "time limit" in outcome.stats["reason"]


@pytest.mark.skipif(not HAVE_PACKAGE, reason="the 'exact-cover' package is not installed")
def test_time_limit_gives_unknown_with_the_c_package():
    outcome = ec.solve_puzzle(hard_36(), cover_solver="exact-cover", time_limit=0.5)
    assert outcome.status == Status.UNKNOWN and outcome.grid is None
    # and a quick instance still comes back through the child process
    puzzle = parse_grid(PAPER_17)
    outcome = ec.solve_puzzle(puzzle, unique=True, cover_solver="exact-cover", time_limit=10)
    assert outcome.grid == parse_grid(PAPER_17_SOLUTION) and outcome.unique is True


def test_counting_cut_by_the_time_limit_is_not_exact():
    cover = sudoku_exact_cover(Grid.empty(9))
    count, exact = ec.count_solutions(cover, 10 ** 9, "dlx", time_limit=0.2)
    assert not exact and count > 0


def test_explicit_c_backend_refuses_a_matrix_too_large():
    if not HAVE_PACKAGE:
        pytest.skip("the 'exact-cover' package is not installed")
    cover = sudoku_exact_cover(Grid.empty(16))
    with pytest.raises(ExactCoverError, match=r"4,096 options x 1,024 items"):
        ec.find_covers(cover, 1, "exact-cover", max_dense_bytes=1000)
    # auto falls back to the sparse backend instead
    search = ec.find_covers(cover, 1, "auto", max_dense_bytes=1000)
    assert search.backend == "dlx" and cover.is_exact_cover(search.solutions[0])


def test_without_the_package_auto_uses_our_solver(monkeypatch):
    monkeypatch.setattr(ec, "exact_cover_package", lambda: None)
    outcome = ec.solve_puzzle(parse_grid(PAPER_17))
    assert outcome.stats["backend"] == "dlx" and outcome.grid == parse_grid(PAPER_17_SOLUTION)
    with pytest.raises(ec.SolverUnavailable, match="pip install exact-cover"):
        ec.solve_puzzle(parse_grid(PAPER_17), cover_solver="exact-cover")


def test_bad_backend_and_limit():
    cover = sudoku_exact_cover(Grid.empty(4))
    with pytest.raises(ExactCoverError, match="unknown exact-cover backend"):
        ec.find_covers(cover, 1, "knuth")
    with pytest.raises(ExactCoverError, match="at least 1"):
        ec.find_covers(cover, 0)


# ----------------------------------------------------------------------------- properties

@given(st.sampled_from([Shape(2, 2), Shape(2, 3), Shape(3, 2), Shape(3, 3)]),
       st.integers(0, 10 ** 6), st.floats(0.2, 0.9), st.booleans())
@settings(max_examples=40, deadline=None)
def test_backends_agree_on_random_puzzles(shape, seed, fraction, corrupt):
    """Holes punched in a valid grid (always solvable); with ``corrupt`` one clue is changed
    to another digit, which may or may not leave a solution: both backends must agree on the
    status and on whether the solution is unique, and every grid must check."""
    solution = random_solution(shape, seed)
    values = solution.values.copy()
    rng = np.random.default_rng(seed)
    values[rng.random(values.shape) < fraction] = 0
    if corrupt and values.any():
        r, c = np.argwhere(values)[0]
        values[r, c] = values[r, c] % shape.size + 1
    puzzle = Grid(values, shape)
    answers = [ec.solve_puzzle(puzzle, unique=True, cover_solver=b) for b in
               (["exact-cover", "dlx"] if HAVE_PACKAGE else ["dlx"])]
    assert len({(a.status, a.unique) for a in answers}) == 1
    for answer in answers:
        if not corrupt:
            assert answer.status == Status.SOLVED
        for grid in (answer.grid, answer.second):
            assert grid is None or check_solution(puzzle, grid)


def test_a_complete_grid_is_its_own_unique_solution():
    full = parse_grid(PAPER_17_SOLUTION)
    for backend in ["dlx"] + (["exact-cover"] if HAVE_PACKAGE else []):
        outcome = ec.solve_puzzle(full, unique=True, cover_solver=backend)
        assert outcome.grid == full and outcome.unique is True
        assert ec.solve_puzzle(Grid.empty(9), unique=True, cover_solver=backend).unique is False


@pytest.mark.skipif(not HAVE_PACKAGE, reason="the 'exact-cover' package is not installed")
def test_c_package_solution_that_uses_every_option():
    # After elimination both empty cells have one candidate: the single exact cover takes
    # every option, which the package's own get_all_solutions (1.5.0) returns as ().
    puzzle = parse_grid("12.334212.144132")
    cover = sudoku_exact_cover(puzzle, "eliminate")
    search = ec.find_covers(cover, 2, "exact-cover")
    assert [s.tolist() for s in search.solutions] == [list(range(cover.num_options))]
    outcome = ec.solve_puzzle(puzzle, unique=True, cover_solver="exact-cover")
    assert outcome.unique is True and check_solution(puzzle, outcome.grid)


@pytest.mark.skipif(not HAVE_PACKAGE, reason="the 'exact-cover' package is not installed")
def test_time_limited_search_without_a_child_process_uses_our_solver(monkeypatch):
    def cannot_fork():
        raise ec.WorkerUnavailable("daemonic processes are not allowed to have children")
    monkeypatch.setattr(ec.package_worker(), "process", None)
    monkeypatch.setattr(ec.package_worker(), "_start", cannot_fork)
    outcome = ec.solve_puzzle(parse_grid(PAPER_17), unique=True, time_limit=10)
    assert outcome.stats["backend"] == "dlx" and outcome.unique is True
    assert outcome.grid == parse_grid(PAPER_17_SOLUTION)
