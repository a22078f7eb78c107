"""Nishio(S) by the almost-balanced-matrix DAG and by pattern overlay (reductions/nishio/dag.py,
placements.py, parts.py): the paper's sizes, exact placement counts, the two methods against each
other, and the independent-parts lemma used by the SAT presolve."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.sudoku.grid import MAX_SIZE, Shape
from reductions.nishio.placements import (CellSet, NishioError, all_placements,
                                          count_placements_overlay, is_valid_placement,
                                          nishio_overlay, placement_problems, random_cell_set,
                                          random_placement, shape_for_side, valid_placement_count)
from reductions.nishio.dag import (almost_balanced_count, count_placements_dag, has_placement_dag,
                                   nishio, nishio_dag, nishio_dag_sweep, placement_dag,
                                   usable_arcs)
from reductions.nishio.parts import independent_parts, part_cells, subgrid_placement

SMALL_SHAPES = [Shape(2, 2), Shape(2, 3), Shape(3, 2), Shape(2, 4), Shape(4, 2), Shape(3, 3)]


# ----------------------------------------------------------------------------- DAG sizes

@pytest.mark.parametrize("shape, vertices, arcs", [
    (Shape(2, 2), 14, 24),          # §3, Figure 3
    (Shape(3, 3), 290, 936),        # §4: "290 vertices and at most 936 edges"
    (Shape(4, 4), 19_442, 100_000),  # §4: 19,442 vertices
])
def test_dag_sizes_of_the_paper(shape, vertices, arcs):
    dag = placement_dag(shape)
    assert dag.num_vertices == vertices == almost_balanced_count(shape)
    assert dag.num_arcs == arcs


def brute_force_dag_size(shape: Shape) -> tuple[int, int]:
    """Count almost-balanced row sets and the arcs between them over all 2^N row sets."""
    a, n = shape.box_rows, shape.size
    bands = n // a
    sets = np.arange(1 << n, dtype=np.int64)

    def balanced(masks):
        sums = np.stack([np.array([bin(x).count("1") for x in range(1 << a)])[
            (masks >> (t * a)) & ((1 << a) - 1)] for t in range(bands)])
        return sums.max(axis=0) - sums.min(axis=0) <= 1

    ok = balanced(sets)
    arcs = 0
    for r in range(n):
        without = ok & ((sets >> r) & 1 == 0)
        arcs += int(np.count_nonzero(without & ok[sets | (1 << r)]))
    return int(ok.sum()), arcs


@pytest.mark.parametrize("shape", SMALL_SHAPES + [Shape(3, 4), Shape(4, 3), Shape(4, 4)])
def test_dag_matches_brute_force_and_the_closed_formula(shape):
    vertices, arcs = brute_force_dag_size(shape)
    dag = placement_dag(shape)
    assert (dag.num_vertices, dag.num_arcs) == (vertices, arcs)
    assert almost_balanced_count(shape) == vertices


def test_dag_layers_and_matrices():
    dag = placement_dag(Shape(3, 3))
    assert dag.row_sets[dag.source] == 0 and dag.row_sets[dag.sink] == (1 << 9) - 1
    # every arc adds one row, in the column equal to the tail's count, and stays balanced
    for v in range(dag.num_vertices):
        count = dag.row_sets[v].bit_count()
        for k in range(dag.arc_start[v], dag.arc_start[v + 1]):
            w, (row, col) = dag.arc_head[k], divmod(dag.arc_cell[k], 9)
            assert dag.row_sets[w] == dag.row_sets[v] | (1 << row) != dag.row_sets[v]
            assert col == count
            sums = dag.matrix(w).sum(axis=1)
            assert sums.max() - sums.min() <= 1
    assert dag.matrix(dag.sink).shape == (3, 3)


def test_dag_refuses_huge_shapes():
    assert almost_balanced_count(Shape(5, 5)) == 4_528_052
    with pytest.raises(NishioError, match="use the sat method"):
        placement_dag(Shape(5, 5))


# ----------------------------------------------------------------------------- placements

@pytest.mark.parametrize("shape", SMALL_SHAPES)
def test_overlay_enumerates_every_valid_placement_once(shape):
    placements = all_placements(shape)
    a, b = shape.box_rows, shape.box_cols
    assert len(placements) == valid_placement_count(shape) == (
        math.factorial(a) ** b * math.factorial(b) ** a)
    assert len({tuple(sorted(p)) for p in placements.tolist()}) == len(placements)
    n = shape.size
    rows, cols = placements // n, placements % n
    blocks = shape.block_index_array().ravel()[placements]
    for units in (rows, cols, blocks):
        assert np.all(np.sort(units, axis=1) == np.arange(n))


def test_placement_counts_of_the_paper():
    assert valid_placement_count(Shape(3, 3)) == 46_656
    assert valid_placement_count(Shape(4, 4)) == 110_075_314_176
    with pytest.raises(NishioError, match="pattern overlay"):
        all_placements(Shape(4, 4))


@pytest.mark.parametrize("shape", SMALL_SHAPES + [Shape(4, 4)])
def test_dag_paths_of_the_full_grid_count_all_placements(shape):
    """Lemma 1 on U: source→sink paths = valid placements, (a!)^b (b!)^a of them."""
    assert count_placements_dag(CellSet.full(shape)) == valid_placement_count(shape)


@given(seed=st.integers(0, 10 ** 9), shape=st.sampled_from(SMALL_SHAPES))
@settings(max_examples=60, deadline=None)
def test_random_placements_are_valid(seed, shape):
    placement = random_placement(shape, random.Random(seed))
    assert is_valid_placement(placement, shape)
    assert count_placements_dag(CellSet.from_cells(shape, placement)) == 1


def test_placement_problems_name_the_fault():
    shape = Shape(2, 2)
    good = [(0, 0), (1, 2), (2, 1), (3, 3)]
    assert placement_problems(good, shape) == []
    assert "column 2 has 0 cells" in placement_problems([(0, 0), (1, 2), (2, 3), (3, 1)][:3] +
                                                        [(3, 0)], shape)
    assert any("not in S" in p for p in
               placement_problems(good, shape, CellSet.from_cells(shape, good[:3])))
    assert "outside" in placement_problems([(0, 4)], shape)[-1]


# ----------------------------------------------------------------------------- methods agree

def instance(shape: Shape, rng: random.Random) -> CellSet:
    return random_cell_set(shape, rng, placements=rng.randint(0, 3), density=rng.random() * 0.4)


def test_dag_and_overlay_agree_on_thousands_of_9x9_sets():
    rng = random.Random(20120)
    shape = Shape(3, 3)
    kinds = {"empty": 0, "all of S": 0, "part of S": 0}
    for _ in range(2000):
        cells = instance(shape, rng)
        by_dag = nishio_dag(cells)
        assert by_dag == nishio_overlay(cells) == nishio_dag_sweep(cells)
        assert count_placements_dag(cells) == count_placements_overlay(cells)
        assert has_placement_dag(cells) == (by_dag.count() > 0)
        kinds["empty" if not by_dag.count() else
              "all of S" if by_dag == cells else "part of S"] += 1
    assert min(kinds.values()) >= 200, kinds          # every outcome well represented


@pytest.mark.parametrize("shape", [Shape(2, 2), Shape(2, 3), Shape(3, 2), Shape(2, 4),
                                   Shape(4, 2)])
def test_dag_and_overlay_agree_on_small_shapes(shape):
    rng = random.Random(shape.size)
    for _ in range(300):
        cells = instance(shape, rng)
        assert nishio_dag(cells) == nishio_overlay(cells) == nishio_dag_sweep(cells)


@st.composite
def cell_sets_9x9(draw):
    shape = Shape(3, 3)
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    mask = np.zeros((9, 9), dtype=bool)
    for _ in range(draw(st.integers(0, 3))):
        for r, c in random_placement(shape, rng):
            mask[r, c] = True
    extra = draw(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=25))
    removed = draw(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=4))
    for r, c in extra:
        mask[r, c] = True
    for r, c in removed:
        mask[r, c] = False
    return CellSet(mask, shape)


@given(cells=cell_sets_9x9())
@settings(max_examples=300, deadline=None)
def test_nishio_properties(cells):
    kept = nishio_dag(cells)
    assert kept == nishio_overlay(cells) == nishio_dag_sweep(cells)
    assert kept <= cells
    assert nishio_dag(kept) == kept                       # idempotent
    assert count_placements_dag(kept) == count_placements_dag(cells)
    bigger = CellSet(cells.mask | np.eye(9, dtype=bool), cells.shape)
    assert kept <= nishio_dag(bigger)                     # monotone


def test_usable_arcs_are_exactly_the_arcs_on_paths():
    rng = random.Random(7)
    shape = Shape(3, 3)
    dag = placement_dag(shape)
    for _ in range(50):
        cells = instance(shape, rng)
        marked = usable_arcs(cells)
        in_s = cells.mask.ravel()
        # forward reachability and backward co-reachability, computed independently
        reach = [False] * dag.num_vertices
        reach[dag.source] = True
        back = [False] * dag.num_vertices
        back[dag.sink] = True
        arcs = [(v, k) for v in range(dag.num_vertices)
                for k in range(dag.arc_start[v], dag.arc_start[v + 1]) if in_s[dag.arc_cell[k]]]
        for v, k in arcs:                    # vertices are in topological (layer) order
            if reach[v]:
                reach[dag.arc_head[k]] = True
        for v, k in reversed(arcs):
            if back[dag.arc_head[k]]:
                back[v] = True
        on_path = {k for v, k in arcs if reach[v] and back[dag.arc_head[k]]}
        assert {k for k in range(dag.num_arcs) if marked[k]} == on_path


def test_nishio_edge_cases():
    shape = Shape(3, 3)
    assert nishio_dag(CellSet.empty(shape)).count() == 0
    assert nishio_dag(CellSet.full(shape)) == CellSet.full(shape)
    assert nishio(CellSet.full(shape), "overlay") == CellSet.full(shape)
    assert nishio(CellSet.full(shape), "dag-sweep") == CellSet.full(shape)
    assert nishio_dag_sweep(CellSet.empty(shape)).count() == 0
    with pytest.raises(NishioError, match="unknown Nishio method"):
        nishio(CellSet.full(shape), "magic")
    # one valid placement minus one cell: nothing survives
    placement = random_placement(shape, random.Random(3))
    assert nishio_dag(CellSet.from_cells(shape, placement[1:])).count() == 0


def test_the_paper_16x16_dag_agrees_with_a_known_placement():
    shape = Shape(4, 4)
    rng = random.Random(16)
    placement = random_placement(shape, rng)
    cells = random_cell_set(shape, rng, placements=0, density=0.2)
    cells = CellSet(cells.mask | CellSet.from_cells(shape, placement).mask, shape)
    kept = nishio_dag(cells)
    assert all(cell in kept for cell in placement)
    assert nishio_dag_sweep(cells) == kept


def test_dfs_and_sweep_agree_at_16x16():
    rng = random.Random(161)
    shape = Shape(4, 4)
    for _ in range(150):
        cells = instance(shape, rng)
        assert nishio_dag(cells) == nishio_dag_sweep(cells)


# ----------------------------------------------------------------------------- shapes

def test_cell_set_shapes_beyond_the_grid_limit():
    # Gadget cell sets are larger than any Grid may be; their Shape has no size limit.
    big = Shape(19, 19)
    assert big.size == 361 > MAX_SIZE
    assert big.block_of(360, 360) == 360 and big.block_of(19, 0) == 19
    assert shape_for_side(361) == big
    assert shape_for_side(6) == Shape(2, 3)
    with pytest.raises(NishioError, match="does not fit"):
        shape_for_side(9, Shape(2, 2))


def test_cell_set_basics():
    shape = Shape(2, 2)
    cells = CellSet.from_cells(shape, [(0, 0), (3, 3)])
    assert cells.count() == len(cells) == 2 and (3, 3) in cells and (1, 1) not in cells
    assert cells.cells() == [(0, 0), (3, 3)] and cells.flat().tolist() == [0, 15]
    assert cells == CellSet.from_cells(shape, [(3, 3), (0, 0)])
    assert len({cells, CellSet.from_cells(shape, [(3, 3), (0, 0)])}) == 1
    with pytest.raises(NishioError):
        CellSet(np.ones((4, 5), dtype=bool))
    with pytest.raises(NishioError):
        CellSet(np.ones((4, 4), dtype=bool), Shape(3, 3))
    with pytest.raises(ValueError):
        cells.mask[0, 0] = False                          # read-only


# ----------------------------------------------------------------------------- independent parts

def test_parts_partition_units_and_cells():
    rng = random.Random(5)
    for shape in (Shape(3, 3), Shape(2, 3), Shape(4, 4)):
        n = shape.size
        for _ in range(40):
            cells = random_cell_set(shape, rng, placements=rng.randint(0, 2),
                                    density=rng.random() * 0.1)
            parts = independent_parts(cells)
            assert sorted(r for p in parts for r in p.rows) == list(range(n))
            assert sorted(c for p in parts for c in p.cols) == list(range(n))
            assert sorted(k for p in parts for k in p.blocks) == list(range(n))
            flat = np.concatenate([part_cells(cells, p) for p in parts])
            assert sorted(flat.tolist()) == cells.flat().tolist()
            for p in parts:                  # a cell's three units lie in its part
                for f in part_cells(cells, p).tolist():
                    r, c = divmod(f, n)
                    assert c in p.cols and shape.block_of(r, c) in p.blocks
                assert p.cell_count == len(part_cells(cells, p))


def sub_grid(shape: Shape, rows, cols, blocks) -> CellSet:
    n = shape.size
    mask = np.zeros((n, n), dtype=bool)
    for r in rows:
        for c in cols:
            if shape.block_of(r, c) in blocks:
                mask[r, c] = True
    return CellSet(mask, shape)


def test_complete_subgrids_are_decided_by_counting():
    """The filler lemma: a complete sub-grid has a placement iff rows = blocks in every band
    and columns = blocks in every stack; then every one of its cells is in one."""
    shape = Shape(3, 3)
    rng = random.Random(11)
    decided = {True: 0, False: 0}
    for _ in range(300):
        blocks = [k for k in range(9) if rng.random() < 0.6]
        rows = [r for t in range(3)
                for r in rng.sample(range(3 * t, 3 * t + 3), sum(k // 3 == t for k in blocks))]
        cols = [c for s in range(3)
                for c in rng.sample(range(3 * s, 3 * s + 3), sum(k % 3 == s for k in blocks))]
        if rng.random() < 0.5:               # break the balance half of the time
            flip = rng.randrange(9)
            if rng.random() < 0.5:
                rows = sorted(set(rows) ^ {flip})
            else:
                cols = sorted(set(cols) ^ {flip})
        cells = sub_grid(shape, rows, cols, blocks)
        # Exact check by the DAG: add the complementary complete sub-grid (missing rows x
        # missing columns inside missing blocks); a placement of the union is one of each.
        missing_rows = [r for r in range(9) if r not in rows]
        missing_cols = [c for c in range(9) if c not in cols]
        missing_blocks = [k for k in range(9) if k not in blocks]
        outside = sub_grid(shape, missing_rows, missing_cols, missing_blocks)
        union = CellSet(cells.mask | outside.mask, shape)
        placement = subgrid_placement(shape, rows, cols, blocks)
        other = subgrid_placement(shape, missing_rows, missing_cols, missing_blocks)
        expected = count_placements_dag(union) > 0
        assert ((placement is not None) and (other is not None)) == expected
        if placement is not None:
            decided[True] += 1
            assert len(placement) == len(blocks) and all(cell in cells for cell in placement)
            for cell in rng.sample(cells.cells(), min(3, cells.count())):
                through = subgrid_placement(shape, rows, cols, blocks, containing=cell)
                assert cell in through and all(x in cells for x in through)
                assert sorted(shape.block_of(*x) for x in through) == sorted(blocks)
                assert sorted(r for r, _ in through) == sorted(rows)
                assert sorted(c for _, c in through) == sorted(cols)
        else:
            decided[False] += 1
    assert min(decided.values()) >= 30, decided


def test_subgrid_placement_refuses_a_foreign_cell():
    shape = Shape(2, 2)
    with pytest.raises(NishioError, match="not in this sub-grid"):
        subgrid_placement(shape, [0, 2], [0, 2], [0, 3], containing=(1, 1))
