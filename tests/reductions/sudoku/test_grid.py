"""The grid model: shapes, parsing and printing in every format, errors, and the checker."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.sudoku.grid import (Grid, GridError, Shape, check_clues, check_solution,
                                    clue_array_from_line, format_grid, parse_grid,
                                    pattern_solution, solution_problems, solves_clues)
from reductions.sudoku.puzzle_files import load_puzzles, puzzle_texts, read_puzzles

from tests.conftest import INSTANCES, instance_pairs

PAPER_17 = ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6..."
PAPER_17_SOLUTION = ("693784512487512936125963874932651487568247391741398625"
                     "319475268856129743274836159")

SHAPES = [Shape(2, 2), Shape(2, 3), Shape(3, 2), Shape(3, 3), Shape(3, 4), Shape(4, 4),
          Shape(2, 4), Shape(5, 5), Shape(6, 6), Shape(8, 8)]


def random_solution(shape: Shape, seed: int) -> Grid:
    """A valid grid: the pattern grid with digits relabelled, rows shuffled inside bands and
    bands shuffled (all three keep validity)."""
    rng = np.random.default_rng(seed)
    n, a, b = shape.size, shape.box_rows, shape.box_cols
    grid = pattern_solution(shape, rng.permutation(n) + 1).values
    bands = rng.permutation(n // a)
    rows = [band * a + r for band in bands for r in rng.permutation(a)]
    stacks = rng.permutation(n // b)
    cols = [stack * b + c for stack in stacks for c in rng.permutation(b)]
    return Grid(grid[np.ix_(rows, cols)], shape)


# ----------------------------------------------------------------------------- shapes

def test_default_shapes():
    assert Shape.for_size(4) == Shape(2, 2)
    assert Shape.for_size(6) == Shape(2, 3)
    assert Shape.for_size(9) == Shape(3, 3)
    assert Shape.for_size(12) == Shape(3, 4)
    assert Shape.for_size(64) == Shape(8, 8)
    for bad in (3, 5, 7, 13):
        with pytest.raises(GridError, match=f"size {bad}"):
            Shape.for_size(bad)


def test_shape_parse_and_blocks():
    assert Shape.parse("2x3") == Shape(2, 3) and Shape.parse("3×2") == Shape(3, 2)
    with pytest.raises(GridError, match="AxB"):
        Shape.parse("6")
    shape = Shape(2, 3)
    assert shape.block_of(0, 0) == 0 and shape.block_of(0, 3) == 1 and shape.block_of(2, 0) == 2
    assert shape.block_cells(3) == [(2, 3), (2, 4), (2, 5), (3, 3), (3, 4), (3, 5)]
    blocks = shape.block_index_array()
    for k in range(6):
        assert sorted(map(tuple, np.argwhere(blocks == k))) == shape.block_cells(k)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_pattern_solution_is_valid(shape):
    grid = pattern_solution(shape)
    assert check_solution(Grid.empty(shape), grid)
    assert solution_problems(Grid.empty(shape), grid) == []


# ----------------------------------------------------------------------------- parsing

def test_one_line_format():
    grid = parse_grid(PAPER_17)
    assert grid.size == 9 and grid.clue_count() == 17
    assert grid[0, 7] == 1 and grid[1, 0] == 4
    assert parse_grid(PAPER_17.replace(".", "0")) == grid
    assert format_grid(grid) == PAPER_17


def test_multi_line_format_with_separators():
    text = """
    # a comment line
    1 2 | 3 4
    3 4 | . 2
    ----+----
    2 1 | 4 3
    4 . | 2 1
    """
    grid = parse_grid(text)
    assert grid.values.tolist() == [[1, 2, 3, 4], [3, 4, 0, 2], [2, 1, 4, 3], [4, 0, 2, 1]]


def test_pretty_output_parses_back():
    grid = parse_grid(PAPER_17)
    assert parse_grid(format_grid(grid, "pretty")) == grid
    assert parse_grid(str(grid)) == grid


def test_symbols_above_nine_and_lower_case():
    grid = pattern_solution(Shape(4, 4))
    line = format_grid(grid)
    assert set(line) == set("123456789ABCDEFG")
    assert parse_grid(line.lower()) == grid


def test_integer_format_for_large_n():
    shape = Shape(6, 6)                                   # N = 36: past the symbol alphabet
    grid = pattern_solution(shape)
    text = format_grid(grid, "ints")
    assert parse_grid(text) == grid
    with pytest.raises(GridError, match="single-character"):
        format_grid(grid, "line")
    big = pattern_solution(Shape(8, 8))
    assert parse_grid(format_grid(big, "auto")) == big


def test_non_default_box_shape():
    grid = pattern_solution(Shape(3, 2))
    line = format_grid(grid)
    assert parse_grid(line, Shape(3, 2)) == grid
    # read with the default 2x3 blocks the same digits repeat inside a block
    with pytest.raises(GridError, match="contradictory clues"):
        parse_grid(line)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), holes=st.floats(0, 1))
def test_round_trip_every_style(shape, seed, holes):
    solution = random_solution(shape, seed)
    rng = np.random.default_rng(seed)
    values = np.where(rng.random(solution.values.shape) < holes, 0, solution.values)
    puzzle = Grid(values, shape)
    styles = ["ints", "pretty", "line"] if shape.size <= 35 else ["ints"]
    for style in styles:
        assert parse_grid(format_grid(puzzle, style), shape) == puzzle
    assert check_solution(puzzle, solution)


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("text, message", [
    ("." * 80, "80 cells is not a square number"),
    ("." * 49, "7x7 grid"),
    ("", "empty input"),
    ("1x" + "." * 14, "character 2 .*symbol 'x'"),
    ("12?4" + "." * 12, "character 3 .*unknown symbol '?'"),
    ("12..\n..?.\n....\n....", "line 2, character 3 \\(row 2, column 3\\): unknown symbol"),
    ("5" + "." * 15, "value|symbol '5' means 5, out of range 1..4"),
    ("11" + "." * 14, "row 1 has two 1s, at cells \\(1,1\\) and \\(1,2\\)"),
    ("1...1" + "." * 11, "column 1 has two 1s"),
    ("1....1" + "." * 10, "block 1 has two 1s"),
])
def test_bad_input_messages(text, message):
    with pytest.raises(GridError, match=message):
        parse_grid(text)


def test_error_names_the_file_line(tmp_path):
    path = tmp_path / "puzzles.txt"
    path.write_text(PAPER_17 + "\n\n" + PAPER_17[:-1] + "Z\n")
    with pytest.raises(GridError, match="puzzles.txt:3: character 81 \\(row 9, column 9\\)"):
        list(read_puzzles(path))


def test_integer_out_of_range():
    tokens = ["0"] * 256
    tokens[17] = "17"
    with pytest.raises(GridError, match="row 2, column 2: value 17 is out of range 1..16"):
        parse_grid(" ".join(tokens))


def test_missing_file_is_reported():
    with pytest.raises(GridError, match="no such file"):
        load_puzzles("does/not/exist.txt")
    with pytest.raises(GridError, match="no such file"):
        load_puzzles("missing.txt")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_arbitrary_text_never_crashes(text):
    try:
        grid = parse_grid(text)
    except GridError as exc:
        assert str(exc)
    else:
        assert grid.size >= 4
        check_clues(grid)


GRID_ALPHABET = "0123456789.ABCDEFG? -|+\n"
"""Symbols, separators, one character that is neither."""


@st.composite
def grid_like_text(draw) -> str:
    """Text that looks like a grid: characters of the grid alphabet at random, or a real
    puzzle (a solution with cells blanked) in any style with a few characters changed, so
    that many of them parse."""
    if draw(st.booleans()):
        return draw(st.text(alphabet=GRID_ALPHABET, max_size=300))
    shape = draw(st.sampled_from(SHAPES[:6]))
    solution = random_solution(shape, draw(st.integers(0, 1000)))
    blank = np.array(draw(st.lists(st.booleans(), min_size=shape.size ** 2,
                                   max_size=shape.size ** 2)), dtype=bool)
    puzzle = Grid(np.where(blank.reshape(solution.values.shape), 0, solution.values), shape)
    text = list(format_grid(puzzle, draw(st.sampled_from(["line", "pretty", "ints"]))))
    for _ in range(draw(st.integers(0, 3))):
        text[draw(st.integers(0, len(text) - 1))] = draw(st.sampled_from(GRID_ALPHABET))
    return "".join(text)


@settings(max_examples=300, deadline=None)
@given(grid_like_text())
def test_grid_like_text_is_a_grid_that_round_trips_or_a_one_line_error(text):
    try:
        grid = parse_grid(text)
    except GridError as exc:
        assert str(exc) and "\n" not in str(exc), repr(str(exc))
        return
    assert isinstance(grid, Grid) and grid.size >= 4
    check_clues(grid)
    for style in ("line", "pretty", "ints"):
        assert parse_grid(format_grid(grid, style), grid.shape) == grid, style


# ----------------------------------------------------------------------------- files

def test_shipped_files_read():
    puzzles = [g for _, g in read_puzzles(INSTANCES / "royle17-sample300.txt")]
    assert len(puzzles) == 300 and all(p.clue_count() == 17 for p in puzzles)
    assert format_grid(puzzles[0]) == PAPER_17
    for name in ["4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt", "16x16.txt", "25x25.txt"]:
        for puzzle, solution in instance_pairs(name):
            assert check_solution(puzzle, solution), name


def test_file_with_one_multiline_grid(tmp_path):
    path = tmp_path / "grid.txt"
    path.write_text(format_grid(parse_grid(PAPER_17), "pretty") + "\n")
    [(label, grid)] = load_puzzles(str(path))
    assert grid == parse_grid(PAPER_17) and label == str(path)


def test_puzzle_texts_literal_versus_file(tmp_path):
    assert puzzle_texts(PAPER_17) == [("puzzle", PAPER_17)]
    path = tmp_path / "two.txt"
    path.write_text(f"# header\n{PAPER_17}\n{PAPER_17}\n")
    assert [label for label, _ in puzzle_texts(str(path))] == [f"{path}:2", f"{path}:3"]


def test_fast_line_parser_agrees_with_full_parser():
    for _, grid in read_puzzles(INSTANCES / "top1465-sample100.txt"):
        line = format_grid(grid)
        assert np.array_equal(clue_array_from_line(line, grid.shape), grid.values.ravel())
    assert clue_array_from_line(PAPER_17[:-1], Shape(3, 3)) is None
    assert clue_array_from_line(PAPER_17[:-1] + "A", Shape(3, 3)) is None


# ----------------------------------------------------------------------------- checking

def test_checker_accepts_the_paper_solution_and_rejects_changes():
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    assert check_solution(puzzle, solution)
    swapped = solution.values.copy()
    swapped[0, [0, 1]] = swapped[0, [1, 0]]                # rows fine, columns broken
    assert not check_solution(Grid.empty(9), Grid(swapped))
    problems = solution_problems(Grid.empty(9), Grid(swapped))
    assert any("column 1 has two 9s" in p for p in problems)
    other_clue = puzzle.with_value(0, 0, 5)                # the solution has 6 there
    assert not check_solution(other_clue, solution)
    assert "puzzle gives 5" in solution_problems(other_clue, solution)[0]
    assert not check_solution(puzzle, puzzle)              # not full
    assert "empty" in solution_problems(puzzle, puzzle)[0]


@pytest.mark.parametrize("shape", SHAPES + [Shape(8, 9), Shape(10, 10)], ids=str)
def test_checker_on_every_size(shape):
    grid = random_solution(shape, 7)
    flat = grid.values.ravel()
    assert solves_clues(np.zeros_like(flat), flat, shape)
    broken = flat.copy()
    broken[0] = broken[1]                                  # a repeat in row 1
    assert not solves_clues(np.zeros_like(flat), broken, shape)
    broken = flat.copy()
    broken[5] = 0
    assert not solves_clues(np.zeros_like(flat), broken, shape)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), cell=st.integers(0, 80), digit=st.integers(1, 9))
def test_checker_rejects_any_single_change(seed, cell, digit):
    shape = Shape(3, 3)
    grid = random_solution(shape, seed)
    flat = grid.values.ravel().copy()
    changed = flat[cell] != digit
    flat[cell] = digit
    assert solves_clues(np.zeros(81, np.uint8), flat, shape) == (not changed)
    assert (solution_problems(Grid.empty(shape), Grid(flat, shape)) == []) == (not changed)


def test_grids_larger_than_the_limit_are_refused():
    with pytest.raises(GridError, match="size 256 is larger than the supported maximum 255"):
        Grid.empty(Shape(16, 16))
    assert Grid.empty(Shape(15, 17)).shape.size == 255


def test_clue_exclusions_never_exclude_the_solution_of_an_empty_cell():
    from reductions.sudoku.grid import clue_exclusions
    from tests.conftest import instance_pairs
    pairs = instance_pairs("12x12-3x4.txt") + instance_pairs("16x16.txt") + \
        instance_pairs("6x6-2x3.txt")
    for puzzle, solution in pairs:
        excluded = clue_exclusions(puzzle)
        rows, cols = np.nonzero(puzzle.values == 0)
        assert not excluded[rows, cols, solution.values[rows, cols] - 1].any()
        # a clue's digit is excluded from every cell of its row
        r, c = np.argwhere(puzzle.values)[0]
        assert excluded[r, :, puzzle.values[r, c] - 1].all()
