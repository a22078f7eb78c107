"""Sudoku → exact cover: exact sizes, names, numbering, forward map, extraction, NO instances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.encodings.exact_cover import (CLUE_MODES, ExactCoverError, base_item_names,
                                              base_option_items, candidate_mask, expected_size,
                                              item_name, option_cells_digits, option_number,
                                              parse_item_name, sudoku_exact_cover)
from reductions.sudoku.grid import Grid, Shape, check_solution, parse_grid

from tests.conftest import instance_pairs, instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION, random_solution

SHAPES = [Shape(2, 2), Shape(2, 3), Shape(3, 2), Shape(3, 3), Shape(3, 4), Shape(4, 4),
          Shape(5, 5), Shape(6, 6)]
SHIPPED = ["4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt", "16x16.txt", "25x25.txt"]


def with_holes(solution: Grid, fraction: float, seed: int) -> Grid:
    rng = np.random.default_rng(seed)
    values = solution.values.copy()
    values[rng.random(values.shape) < fraction] = 0
    return Grid(values, solution.shape)


# ----------------------------------------------------------------------------- base structure

@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_full_model_sizes_and_structure(shape):
    n = shape.size
    cover = sudoku_exact_cover(Grid.empty(shape))
    assert (cover.num_options, cover.num_items, cover.num_nonzeros) == \
        (n ** 3, 4 * n * n, 4 * n ** 3)
    # every item is in exactly N options, every option has one item of each kind
    assert np.all(np.bincount(cover.option_items.ravel()) == n)
    kinds = cover.option_items // (n * n)
    assert np.all(kinds == np.arange(4))


def test_nine_by_nine_numbers():
    cover = sudoku_exact_cover(Grid.empty(9))
    assert (cover.num_options, cover.num_items, cover.num_nonzeros) == (729, 324, 2916)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_option_items_mean_what_they_say(shape):
    n = shape.size
    base = base_option_items(shape)
    names = base_item_names(shape)
    for option in [0, n - 1, n * n + 3, n ** 3 - 1, (n ** 3) // 2]:
        r, c, d = (int(x[0]) for x in option_cells_digits(shape, np.array([option])))
        assert option_number(shape, r, c, d) == option
        assert [names[i] for i in base[option]] == [
            f"p{r}_{c}", f"r{r}_{d}", f"c{c}_{d}", f"b{shape.block_of(r, c)}_{d}"]


@given(st.sampled_from(SHAPES), st.data())
@settings(max_examples=60, deadline=None)
def test_option_numbering_round_trip(shape, data):
    n = shape.size
    r, c = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    d = data.draw(st.integers(1, n))
    rows, cols, digits = option_cells_digits(shape, np.array([option_number(shape, r, c, d)]))
    assert (rows[0], cols[0], digits[0]) == (r, c, d)
    # and through an instance's local numbers, both ways
    cover = sudoku_exact_cover(Grid.empty(shape))
    local = cover.local_option(r, c, d)
    assert cover.option_cell_digit(local) == (r, c, d)
    assert cover.option_names(local)[:2] == [f"p{r}_{c}", f"r{r}_{d}"]


@pytest.mark.parametrize("shape", SHAPES + [Shape(15, 17)], ids=str)
def test_item_names_are_legal_for_knuth(shape):
    n = shape.size
    if n <= 36:
        names = base_item_names(shape)
        assert len(set(names)) == len(names) == 4 * n * n
    else:   # N = 255: check the longest names without building all 260,100
        names = [item_name(shape, i) for i in (n * n - 1, 2 * n * n - 1, 4 * n * n - 1, 0)]
        assert names[0] == "p254_254" and names[1] == "r254_255"
    for name in names:
        assert 1 <= len(name) <= 8 and ":" not in name and "|" not in name
        assert parse_item_name(shape, name) is not None
        assert item_name(shape, parse_item_name(shape, name)) == name


def test_parse_item_name_rejects_strangers():
    shape = Shape(3, 3)
    for bad in ["p9_0", "r0_0", "r0_10", "x1_1", "p1", "p01_1", "", "b3_x"]:
        assert parse_item_name(shape, bad) is None


# ----------------------------------------------------------------------------- clues

@pytest.mark.parametrize("name", SHIPPED)
def test_keep_mode_size_formula(name):
    for puzzle in instance_puzzles(name):
        n, k = puzzle.size, puzzle.clue_count()
        cover = sudoku_exact_cover(puzzle, "keep")
        assert (cover.num_options, cover.num_items, cover.num_nonzeros) == \
            expected_size(puzzle.shape, k, "keep") == \
            (n ** 3 - (n - 1) * k, 4 * n * n, 4 * (n ** 3 - (n - 1) * k))
        # a clue cell keeps exactly the clue's option
        for r, c, d in puzzle.clues()[:10]:
            kept = [o for o in range(n) if cover.local_option(r, c, o + 1) is not None]
            assert kept == [d - 1]


@pytest.mark.parametrize("name", SHIPPED + ["royle17-sample300.txt"])
def test_eliminate_mode_sizes_by_independent_count(name):
    for puzzle in instance_puzzles(name, limit=20):
        n, k = puzzle.size, puzzle.clue_count()
        cover = sudoku_exact_cover(puzzle, "eliminate")
        # candidates counted cell by cell from the peers' clues, without numpy tricks
        count = 0
        for r in range(n):
            for c in range(n):
                if puzzle[r, c]:
                    continue
                peers = {puzzle[r, j] for j in range(n)} | {puzzle[i, c] for i in range(n)}
                peers |= {puzzle[i, j] for i, j in puzzle.shape.block_cells(
                    puzzle.shape.block_of(r, c))}
                count += len(set(range(1, n + 1)) - peers)
        assert cover.num_options == count
        assert cover.num_items == 4 * (n * n - k)
        assert cover.num_nonzeros == 4 * count
        assert expected_size(puzzle.shape, k, "eliminate") is None


def test_paper_puzzle_sizes():
    puzzle = parse_grid(PAPER_17)
    keep = sudoku_exact_cover(puzzle, "keep")
    eliminate = sudoku_exact_cover(puzzle, "eliminate")
    assert (keep.num_options, keep.num_items) == (729 - 8 * 17, 324)
    assert eliminate.num_items == 4 * (81 - 17)
    assert eliminate.num_options == int(candidate_mask(puzzle).sum())


# ----------------------------------------------------------------------------- forward map

@pytest.mark.parametrize("mode", CLUE_MODES)
@pytest.mark.parametrize("name", SHIPPED)
def test_forward_map_gives_an_exact_cover_and_extraction_inverts_it(name, mode):
    for puzzle, solution in instance_pairs(name):
        cover = sudoku_exact_cover(puzzle, mode)
        chosen = cover.options_from_grid(solution)
        expected = puzzle.size ** 2 - (puzzle.clue_count() if mode == "eliminate" else 0)
        assert len(chosen) == expected
        assert cover.is_exact_cover(chosen)
        assert cover.grid_from_options(chosen) == solution
        # one option less is no longer a cover
        assert not cover.is_exact_cover(chosen[1:])


@given(st.sampled_from(SHAPES), st.integers(0, 10 ** 6), st.floats(0.0, 1.0),
       st.sampled_from(CLUE_MODES))
@settings(max_examples=40, deadline=None)
def test_forward_map_property(shape, seed, fraction, mode):
    solution = random_solution(shape, seed)
    puzzle = with_holes(solution, fraction, seed)
    cover = sudoku_exact_cover(puzzle, mode)
    chosen = cover.options_from_grid(solution)
    assert cover.is_exact_cover(chosen)
    assert cover.grid_from_options(chosen) == solution
    assert cover.uncoverable_items().size == 0


def test_forward_map_rejects_a_grid_that_breaks_a_clue():
    puzzle = parse_grid(PAPER_17)
    other = random_solution(Shape(3, 3), 1)
    for mode in CLUE_MODES:
        with pytest.raises(ExactCoverError, match=r"cell \(\d,\d\) holds"):
            sudoku_exact_cover(puzzle, mode).options_from_grid(other)


def test_extraction_errors():
    cover = sudoku_exact_cover(parse_grid(PAPER_17), "keep")
    solution = parse_grid(PAPER_17_SOLUTION)
    chosen = list(cover.options_from_grid(solution))
    with pytest.raises(ExactCoverError, match="two chosen options fill cell"):
        cover.grid_from_options(chosen + [cover.local_option(0, 0, 1)])
    with pytest.raises(ExactCoverError, match="does not exist"):
        cover.grid_from_options([cover.num_options])
    # an incomplete choice extracts to an incomplete grid, which the checker refuses
    assert not check_solution(cover.puzzle, cover.grid_from_options(chosen[:-1]))


# ----------------------------------------------------------------------------- NO instances

def test_contradictory_clues_leave_an_uncoverable_item():
    values = np.zeros((9, 9), dtype=int)
    values[0, 0] = values[0, 5] = 7            # two 7s in row 1
    puzzle = Grid(values)
    cover = sudoku_exact_cover(puzzle, "eliminate")
    names = cover.item_names()
    empty = {names[i] for i in cover.uncoverable_items()}
    assert {"p0_0", "p0_5"} <= empty
    # in keep mode both clue options stay, and they share the item r0_7: no exact cover
    keep = sudoku_exact_cover(puzzle, "keep")
    a, b = keep.local_option(0, 0, 7), keep.local_option(0, 5, 7)
    assert set(keep.option_names(a)) & set(keep.option_names(b)) == {"r0_7"}


def test_a_cell_without_candidates_is_an_uncoverable_item():
    puzzle = instance_puzzles("unsolvable.txt")[-1]     # (1,1) has no candidate left
    cover = sudoku_exact_cover(puzzle, "eliminate")
    assert "p0_0" in {cover.item_names()[i] for i in cover.uncoverable_items()}


def test_full_puzzle_eliminates_to_nothing():
    solution = parse_grid(PAPER_17_SOLUTION)
    cover = sudoku_exact_cover(solution, "eliminate")
    assert (cover.num_options, cover.num_items) == (0, 0)
    assert cover.grid_from_options([]) == solution


# ----------------------------------------------------------------------------- dense form

def test_dense_matrix_matches_the_sparse_one():
    cover = sudoku_exact_cover(parse_grid(PAPER_17), "eliminate")
    dense = cover.dense_matrix()
    assert dense.shape == (cover.num_options, cover.num_items)
    assert dense.sum() == cover.num_nonzeros
    rows, cols = np.nonzero(dense)
    assert np.array_equal(np.sort(cols.reshape(-1, 4), axis=1),
                          np.sort(cover.option_items, axis=1))


def test_dense_matrix_refusal_names_the_size():
    cover = sudoku_exact_cover(Grid.empty(36))
    with pytest.raises(ExactCoverError, match=r"36x36 .*46,656 options x 5,184 items.*"
                                              r"231 MiB"):
        cover.dense_matrix(max_bytes=100 * 2 ** 20)


def test_unknown_mode():
    with pytest.raises(ExactCoverError, match="unknown clue mode"):
        sudoku_exact_cover(Grid.empty(4), "remove")
