"""The placement SAT model (solvers/gadgets/nishio.py) against the DAG, with and without the
independent-parts presolve, and the closed-loop validation of the 3SAT gadgets."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.errors import UserError
from reductions.formulas import Formula, example_satisfiable, example_unsatisfiable, random_cnf
from reductions.sudoku.grid import Shape
from reductions.nishio.placements import (CellSet, NishioError, is_valid_placement,
                                          random_cell_set, random_placement)
from reductions.nishio.dag import count_placements_dag, nishio_dag
from reductions.nishio.gadget import nishio_gadget
from solvers.gadgets.nishio import (PlacementModel, compute_nishio, find_placement, formula_model,
                                    has_valid_placement, nishio_sat, validate_formula)

from tests.reductions.nishio.test_nishio import sub_grid


def instance(shape: Shape, rng: random.Random) -> CellSet:
    return random_cell_set(shape, rng, placements=rng.randint(0, 3), density=rng.random() * 0.4)


# ----------------------------------------------------------------------------- SAT vs DAG

def test_sat_agrees_with_the_dag_on_thousands_of_9x9_sets():
    rng = random.Random(9)
    shape = Shape(3, 3)
    nonempty = 0
    for _ in range(2000):
        cells = instance(shape, rng)
        by_dag = nishio_dag(cells)
        assert nishio_sat(cells) == by_dag
        nonempty += by_dag.count() > 0
    assert 500 <= nonempty <= 1800


@pytest.mark.parametrize("shape, count", [(Shape(2, 2), 300), (Shape(2, 3), 300),
                                          (Shape(3, 2), 300), (Shape(4, 4), 200)])
def test_sat_agrees_with_the_dag_on_other_shapes(shape, count):
    rng = random.Random(shape.size * 31 + shape.box_rows)
    outcomes = set()
    for _ in range(count):
        cells = instance(shape, rng)
        by_dag = nishio_dag(cells)
        with PlacementModel(cells) as model:
            assert model.nishio() == by_dag
            assert model.has_placement() == (by_dag.count() > 0)
        outcomes.add("empty" if not by_dag.count() else "all" if by_dag == cells else "part")
    assert outcomes == {"empty", "all", "part"}


@st.composite
def cell_sets(draw, shape: Shape):
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    n = shape.size
    mask = np.zeros((n, n), dtype=bool)
    for _ in range(draw(st.integers(0, 3))):
        for r, c in random_placement(shape, rng):
            mask[r, c] = True
    for r, c in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                              max_size=3 * n)):
        mask[r, c] = True
    return CellSet(mask, shape)


@given(cells=cell_sets(Shape(4, 4)))
@settings(max_examples=100, deadline=None)
def test_sat_and_dag_agree_at_16x16_property(cells):
    assert nishio_sat(cells) == nishio_dag(cells)


@given(cells=cell_sets(Shape(3, 3)), data=st.data())
@settings(max_examples=200, deadline=None)
def test_a_placement_through_a_cell_exists_iff_the_cell_is_in_nishio(cells, data):
    kept = nishio_dag(cells)
    with PlacementModel(cells) as model:
        for cell in data.draw(st.lists(st.sampled_from(cells.cells()), max_size=5)
                              if cells.count() else st.just([])):
            placement = model.find(cell)
            assert (placement is not None) == (cell in kept)
            if placement is not None:
                assert cell in placement and is_valid_placement(placement, cells.shape, cells)
        assert model.find((0, 9)) is None                     # outside the grid
        free = [c for c in ((r, c) for r in range(9) for c in range(9)) if c not in cells]
        if free:
            assert model.find(free[0]) is None                 # not in S


def test_split_and_pure_models_agree():
    rng = random.Random(4)
    for shape in (Shape(2, 2), Shape(3, 3), Shape(2, 3), Shape(4, 4)):
        for _ in range(60):
            cells = random_cell_set(shape, rng, placements=rng.randint(0, 2),
                                    density=rng.random() * 0.2)
            assert nishio_sat(cells, split=True) == nishio_sat(cells, split=False)


@pytest.mark.parametrize("amo", ["seqcounter", "ladder", "totalizer", "pairwise"])
def test_every_at_most_one_encoding_gives_the_same_answers(amo):
    rng = random.Random(12)
    for _ in range(40):
        cells = instance(Shape(3, 3), rng)
        with PlacementModel(cells, split=False, amo=amo) as model:
            assert model.nishio() == nishio_dag(cells)


def test_unknown_encoding_and_method():
    with pytest.raises(NishioError, match="at-most-one"):
        PlacementModel(CellSet.full(Shape(2, 2)), amo="magic")
    with pytest.raises(UserError, match="unknown Nishio method"):
        compute_nishio(CellSet.full(Shape(2, 2)), "magic")


def test_three_methods_through_one_entry_point():
    cells = instance(Shape(3, 3), random.Random(1))
    results = {m: compute_nishio(cells, m) for m in ("dag", "dag-sweep", "overlay", "sat")}
    assert len(set(results.values())) == 1


# ----------------------------------------------------------------------------- presolve

def test_complete_parts_need_no_solver():
    shape = Shape(4, 4)
    # a 16x16 sub-grid: drop one row per band and the matching block, and a column per stack
    dropped_blocks = [0, 5, 10, 15]                     # one per band and one per stack
    rows = [r for r in range(16) if r % 4 != 1]
    cols = [c for c in range(16) if c % 4 != 2]
    blocks = [k for k in range(16) if k not in dropped_blocks]
    filler = sub_grid(shape, rows, cols, blocks)
    gadget = [(1 + 4 * t, 2 + 4 * t) for t in range(4)]   # covers the dropped units
    cells = CellSet(filler.mask | CellSet.from_cells(shape, gadget).mask, shape)
    with PlacementModel(cells) as model:
        assert model.stats["complete_parts"] >= 1
        assert model.stats["cell_variables"] < 10
        kept = model.nishio()
    assert kept == nishio_dag(cells) == cells
    # column 3 emptied: its stack has 3 filler columns left for 3 filler blocks, but the
    # column itself cannot be covered -> no placement at all
    unbalanced = cells.mask.copy()
    unbalanced[:, 3] = False
    unbalanced = CellSet(unbalanced, shape)
    with PlacementModel(unbalanced) as model:
        assert model.impossible and model.nishio().count() == 0
    assert nishio_dag(unbalanced).count() == 0


def test_placements_are_checked_and_complete():
    rng = random.Random(8)
    for _ in range(50):
        cells = instance(Shape(3, 3), rng)
        placement = find_placement(cells)
        assert (placement is None) == (count_placements_dag(cells) == 0)
        if placement is not None:
            assert is_valid_placement(placement, cells.shape, cells)
        assert has_valid_placement(cells) == (placement is not None)


def test_pure_model_sizes_follow_s():
    cells = instance(Shape(3, 3), random.Random(3))
    with PlacementModel(cells, split=False) as model:
        assert model.stats["cell_variables"] == cells.count()
        assert model.stats["parts"] is None


# ----------------------------------------------------------------------------- gadgets

def test_big_gadget_grid_pure_and_split_agree():
    """A 361×361 grid (5 variables, 6 clauses) with every cell of S in the SAT model."""
    timings = []
    for seed, expected in ((0, True), (1, False)):
        formula = random_cnf(5, 6, (1, 1, 2, 3), seed=seed)
        assert (formula_model(formula) is not None) == expected
        gadget = nishio_gadget(formula)
        assert gadget.shape.size == 361
        start = time.perf_counter()
        with PlacementModel(gadget.cells, split=False) as model:
            placement = model.find()
            assert model.stats["cell_variables"] == gadget.cells.count() > 90_000
        timings.append(time.perf_counter() - start)
        assert (placement is not None) == expected == has_valid_placement(gadget.cells)
    assert max(timings) < 30


def test_validate_formula_on_fixed_examples():
    sat = validate_formula(example_satisfiable(), "sat")
    assert sat.ok and sat.satisfiable and sat.placement_found and sat.extraction_ok
    assert sat.forward_ok and sat.thm3_nonempty and sat.thm3_v0_false and sat.thm3_checks_ok
    unsat = validate_formula(example_unsatisfiable(), "unsat")
    assert unsat.ok and not unsat.satisfiable and unsat.placement_found is False
    assert unsat.thm3_nonempty and unsat.thm3_v0_false is False and unsat.thm3_checks_ok
    assert unsat.order == 25 and unsat.thm3_order == 49


def test_validate_formula_on_random_formulas_both_answers():
    answers = {True: 0, False: 0}
    for seed in range(60):
        rng = random.Random(seed)
        formula = random_cnf(rng.randint(3, 5), rng.randint(4, 6), (1, 1, 2, 3), seed=seed)
        result = validate_formula(formula, f"seed {seed}")
        assert result.ok, result.problems
        answers[result.satisfiable] += 1
    assert min(answers.values()) >= 15, answers


def test_validate_reports_a_broken_gadget(monkeypatch):
    """The loop can fail: with a gadget that drops a clause the placement exists for an
    unsatisfiable formula, and the validation says so."""
    import solvers.gadgets.nishio as module
    real = module.nishio_gadget

    def drop_last_clause(formula, order=None):
        shorter = Formula(formula.num_vars, formula.clauses[:-1])
        return real(shorter, order)

    monkeypatch.setattr(module, "nishio_gadget", drop_last_clause)
    result = validate_formula(Formula(1, ((1,), (-1,))), "x and not x", variants=("thm2",))
    assert not result.ok and result.placement_found and not result.satisfiable
    assert any("unsatisfiable but S contains" in p for p in result.problems)


def test_formula_model():
    model = formula_model(Formula(3, ((1, -2), (2,), (-3,))))
    assert model == {1: True, 2: True, 3: False}
    assert formula_model(Formula(1, ((1,), (-1,)))) is None
    assert formula_model(Formula(2, ())) == {1: False, 2: False}


@pytest.mark.slow
def test_pure_sat_model_on_many_gadget_grids():
    """Every cell of S in the SAT model, on 40 formulas of up to 5 variables and 6 clauses."""
    for seed in range(40):
        rng = random.Random(seed)
        formula = random_cnf(rng.randint(3, 5), rng.randint(4, 6), (1, 1, 2, 3), seed=seed)
        gadget = nishio_gadget(formula)
        expected = formula_model(formula) is not None
        assert has_valid_placement(gadget.cells, split=False) == expected


def test_the_nishio_command_s_method_choice_and_checks():
    from reductions.estimate import TooLarge
    from solvers.gadgets.nishio import (DAG_AUTO_LIMIT, check_nishio_method, choose_method,
                                        nishio_with_stats)
    from reductions.nishio.dag import almost_balanced_count
    rng = random.Random(5)
    small = instance(Shape(3, 3), rng)
    assert almost_balanced_count(Shape(3, 3)) <= DAG_AUTO_LIMIT
    assert choose_method(small, "auto") == "dag-sweep"
    assert choose_method(small, "overlay") == "overlay"
    big = CellSet(np.ones((49, 49), dtype=bool), Shape(7, 7))
    assert almost_balanced_count(Shape(7, 7)) > DAG_AUTO_LIMIT
    assert choose_method(big, "auto") == "sat"
    with pytest.raises(UserError, match="unknown pysat solver"):
        check_nishio_method(small, "sat", solver="nosuch", decide=False, max_memory=None,
                            subject="S")
    with pytest.raises(TooLarge, match="S"):
        check_nishio_method(small, "dag", solver="nosuch", decide=False, max_memory=1,
                            subject="S")
    check_nishio_method(small, "dag", solver="nosuch", decide=False, max_memory=None,
                        subject="S")                     # no SAT: the name is not looked up
    kept = {}
    for method in ("dag", "dag-sweep", "overlay", "sat"):
        kept[method], stats = nishio_with_stats(small, method)
        assert (stats is None) == (method != "sat")
    assert len({k.count() for k in kept.values()}) == 1
    assert all(np.array_equal(k.mask, kept["dag"].mask) for k in kept.values())
    assert stats["solver_calls"] >= 1
