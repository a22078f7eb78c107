"""Sudoku → ILP: exact sizes, names, the forward map satisfies every constraint, extraction,
the no-good cut, NO instances. (Solving is in test_routes_ilp.py.)"""

from __future__ import annotations

import numpy as np
import pulp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.encodings.exact_cover import sudoku_exact_cover
from reductions.sudoku.grid import Grid, Shape, parse_grid
from reductions.encodings.ilp import (CLUE_MODES, IlpError, expected_size, parse_variable_name,
                                      sudoku_ilp)

from tests.conftest import instance_pairs, instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION, random_solution
from tests.reductions.encodings.test_exact_cover import with_holes

SHAPES = [Shape(2, 2), Shape(2, 3), Shape(3, 3), Shape(3, 4), Shape(4, 4)]


def measured_size(model) -> tuple[int, int, int]:
    """(variables, constraints, nonzeros) counted from the PuLP problem itself."""
    constraints = list(model.problem._constraints.values())
    variables = {v.name for c in constraints for v in c.keys()}
    return len(variables), len(constraints), sum(len(c) for c in constraints)


def satisfied(model, values: dict[str, int]) -> list[str]:
    """Names of the constraints that the 0/1 ``values`` violate."""
    bad = []
    for name, constraint in model.problem._constraints.items():
        total = sum(coef * values[v.name] for v, coef in constraint.items()) + constraint.constant
        ok = {pulp.LpConstraintEQ: total == 0, pulp.LpConstraintLE: total <= 0,
              pulp.LpConstraintGE: total >= 0}[constraint.sense]
        if not ok:
            bad.append(name)
    return bad


# ----------------------------------------------------------------------------- sizes

@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_empty_grid_sizes(shape):
    n = shape.size
    model = sudoku_ilp(Grid.empty(shape))
    assert measured_size(model) == (n ** 3, 4 * n * n, 4 * n ** 3)
    assert (model.num_variables, model.num_constraints, model.num_nonzeros) == \
        (n ** 3, 4 * n * n, 4 * n ** 3)
    assert all(len(c) == n for c in model.problem._constraints.values())


@pytest.mark.parametrize("name", ["4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt",
                                  "royle17-sample300.txt"])
def test_size_formulas_with_clues(name):
    for puzzle in instance_puzzles(name, limit=5):
        k = puzzle.clue_count()
        model = sudoku_ilp(puzzle, "equalities")
        assert measured_size(model) == expected_size(puzzle.shape, k) == \
            (model.num_variables, model.num_constraints, model.num_nonzeros)
        # eliminate: the same reduction as the exact cover's
        small = sudoku_ilp(puzzle, "eliminate")
        cover = sudoku_exact_cover(puzzle, "eliminate")
        assert (small.num_variables, small.num_constraints, small.num_nonzeros) == \
            (cover.num_options, cover.num_items, cover.num_nonzeros) == measured_size(small)


def test_paper_puzzle_numbers():
    model = sudoku_ilp(parse_grid(PAPER_17))
    assert (model.num_variables, model.num_constraints, model.num_nonzeros) == \
        (729, 324 + 17, 2916 + 17)


def test_names():
    model = sudoku_ilp(parse_grid(PAPER_17))
    names = set(model.problem._constraints)
    assert {"cell_0_0", "row_8_9", "col_8_9", "blk_8_9", "clue_0_7"} <= names
    assert parse_variable_name("x_3_4_9") == (3, 4, 9)
    assert parse_variable_name("__dummy") is None
    assert model.variables[0].name == "x_0_0_1" and model.variables[-1].name == "x_8_8_9"
    block = model.problem._constraints["blk_4_2"]
    assert sorted(v.name for v in block) == sorted(
        f"x_{r}_{c}_2" for r in range(3, 6) for c in range(3, 6))


# ----------------------------------------------------------------------------- forward map

@pytest.mark.parametrize("mode", CLUE_MODES)
@pytest.mark.parametrize("name", ["4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt", "16x16.txt"])
def test_forward_map_satisfies_every_constraint(name, mode):
    for puzzle, solution in instance_pairs(name):
        model = sudoku_ilp(puzzle, mode)
        values = model.values_from_grid(solution)
        assert satisfied(model, values) == []
        assert model.grid_from_values(values) == solution
        ones = sum(values.values())
        assert ones == puzzle.size ** 2 - (puzzle.clue_count() if mode == "eliminate" else 0)


@given(st.sampled_from(SHAPES), st.integers(0, 10 ** 6), st.floats(0.0, 1.0),
       st.sampled_from(CLUE_MODES))
@settings(max_examples=25, deadline=None)
def test_forward_map_property(shape, seed, fraction, mode):
    solution = random_solution(shape, seed)
    model = sudoku_ilp(with_holes(solution, fraction, seed), mode)
    values = model.values_from_grid(solution)
    assert satisfied(model, values) == []
    assert model.grid_from_values(values) == solution


def test_wrong_grids_break_constraints():
    puzzle, solution = parse_grid(PAPER_17), parse_grid(PAPER_17_SOLUTION)
    model = sudoku_ilp(puzzle, "equalities")
    swapped = solution.values.copy()
    swapped[[0, 1], 0] = swapped[[1, 0], 0]         # two cells of a column exchanged
    bad = satisfied(model, model.values_from_grid(Grid(swapped)))
    # same column and block, so only rows break (and the clue at (2,1))
    assert {"row_0_4", "row_0_6", "row_1_4", "row_1_6"} <= set(bad)
    assert all(name.startswith(("row_", "clue_")) for name in bad)
    other = random_solution(Shape(3, 3), 3)
    assert any(name.startswith("clue_") for name in
               satisfied(model, model.values_from_grid(other)))
    with pytest.raises(IlpError, match="not a variable of the model"):
        sudoku_ilp(puzzle, "eliminate").values_from_grid(other)


def test_extraction_errors():
    model = sudoku_ilp(parse_grid(PAPER_17), "eliminate")
    name = model.variables[0].name
    with pytest.raises(IlpError, match=f"variable {name} = 0.5: not a 0/1 solution"):
        model.grid_from_values({name: 0.5})
    with pytest.raises(IlpError, match="variable x_0_7_1 is not in the model"):
        model.grid_from_values({"x_0_7_1": 1.0})         # a clue cell: eliminated
    first, second = model.variables[0].name, model.variables[1].name   # same cell
    with pytest.raises(IlpError, match=r"cell \(1,1\) gets two digits"):
        model.grid_from_values({first: 1.0, second: 1.0})
    assert model.grid_from_values({"__dummy": 0.0}) == model.puzzle   # other names ignored


# ----------------------------------------------------------------------------- no-good cut

def test_no_good_cut_excludes_exactly_the_given_solution():
    puzzle = instance_puzzles("multiple-solutions.txt")[0]
    cover = sudoku_exact_cover(puzzle, "eliminate")
    from solvers.routes.exact_cover import find_covers
    first, second = (cover.grid_from_options(s) for s in find_covers(cover, 2, "dlx").solutions)
    for mode in CLUE_MODES:
        model = sudoku_ilp(puzzle, mode)
        before = model.num_constraints
        name = model.add_no_good(first)
        assert model.num_constraints == before + 1
        assert satisfied(model, model.values_from_grid(first)) == [name]
        assert satisfied(model, model.values_from_grid(second)) == []


# ----------------------------------------------------------------------------- NO instances

def test_contradictory_clues_make_an_empty_equality():
    values = np.zeros((9, 9), dtype=int)
    values[0, 0] = values[4, 0] = 5                 # two 5s in column 1
    model = sudoku_ilp(Grid(values), "eliminate")
    empty = [name for name, c in model.problem._constraints.items() if len(c) == 0]
    assert {"cell_0_0", "cell_4_0"} <= set(empty)   # 0 = 1: infeasible
    keep = sudoku_ilp(Grid(values), "equalities")
    col = keep.problem._constraints["col_0_5"]
    clue_vars = {"x_0_0_5", "x_4_0_5"}
    assert clue_vars <= {v.name for v in col}       # both forced to 1 in one equality = 1


def test_unknown_mode():
    with pytest.raises(IlpError, match="unknown clue mode"):
        sudoku_ilp(Grid.empty(4), "keep")
