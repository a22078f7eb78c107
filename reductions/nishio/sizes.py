"""Memory estimates of Nishio(S) and of the 3SAT → Nishio gadgets (building, writing,
drawing, validating), before anything is built (see :mod:`reductions.estimate` for what an
estimate is and how its constants were measured). The gadget modules are imported when an
estimate needs their closed formulas, not at start-up."""

from __future__ import annotations

import math

from ..estimate import Estimate, count_text, with_base
from ..formulas import Formula, formula_sat_estimate
from ..sudoku.grid import Shape

# Nishio gadgets (Theorems 2 and 3): the n²×n² boolean mask and its temporaries dominate.
NISHIO_BUILD_PER_CELL = 4        # measured 3.0 bytes per grid cell (n^4 cells) at n = 61..181
NISHIO_WRITE_PER_CELL = 12       # building and writing S.txt: measured 10.0 per grid cell
SVG_PER_CELL = 6                 # an SVG picture, per grid cell drawn: measured 2.5-4
PNG_BASE = 40 * 2**20            # a PNG through matplotlib: a canvas of 800 to 2000 pixels
PNG_PER_PIXEL = 100              # a side (measured 83 MB at 800², 362 MB at 2000²) and
PNG_PER_CELL = 100               # the image of the cells (76 per cell)
PLACEMENT_MODEL_PER_CELL = 3_000  # SAT model of placements: measured 2,330 per cell variable
CELL_SET_READ_PER_BYTE = 6       # reading S.txt: text, lines, rows, array, copy
DAG_PER_VERTEX = 700             # the almost-balanced-matrix DAG: measured 390-520
OVERLAY_PER_ENTRY = 24           # pattern overlay: (placements, N) int64 arrays, 3 of them


def _grid(side: int) -> str:
    return f"a {side:,} x {side:,} grid of {count_text(side * side)} cells"


def nishio_gadget_estimate(formula: Formula, *, order: int | None = None,
                           write: bool = False, picture: str | None = None,
                           picture_cells: int = 0) -> Estimate:
    """Building the cell set S of Theorem 2 for ``formula`` (Theorem 3: pass its X'), on
    the n²×n² grid of ``order`` n (default Theorem 2's); ``write``: also writing S.txt;
    ``picture`` ("svg" or "png"): also drawing ``picture_cells`` grid cells."""
    from .gadget import theorem_order
    n = theorem_order(formula) if order is None else order
    side = n * n
    per_cell = NISHIO_WRITE_PER_CELL if write else NISHIO_BUILD_PER_CELL
    occurrences = sum(len(c) for c in formula.clauses)
    pixels = min(2000, max(800, 8 * math.isqrt(picture_cells)))    # as picture_png draws
    drawing = {None: 0, "svg": SVG_PER_CELL * picture_cells,
               "png": PNG_BASE + PNG_PER_PIXEL * pixels**2 + PNG_PER_CELL * picture_cells
               }[picture]
    return Estimate(_grid(side), with_base(per_cell * side * side, 2_000 * occurrences, drawing),
                    (side,))


def nishio_build_estimate(formula: Formula, *, variant: str = "thm2", order: int | None = None,
                          write: bool = False, picture: str | None = None,
                          view: str = "full", show_placement: bool = False) -> Estimate:
    """Building (and writing, drawing) the gadget of ``variant`` ("thm2", or "thm3": that
    of X') for ``formula`` before it is built: the grid, S.txt when ``write``, a
    ``picture`` ("svg" or "png") of the whole grid or of its gadget rows and columns only
    (``view="core"``: 2L + c of each), and the formula's own SAT call that
    ``show_placement`` needs."""
    from .theorem3 import theorem3_instance
    from .gadget import theorem_order
    built = theorem3_instance(formula).formula if variant == "thm3" else formula
    drawn = 0
    if picture:
        n = theorem_order(built) if order is None else order
        side = (2 * sum(len(c) for c in built.clauses) + built.num_clauses
                if view == "core" else n * n)
        drawn = side * side
    estimate = nishio_gadget_estimate(built, order=order, write=write, picture=picture,
                                      picture_cells=drawn)
    return estimate.plus(formula_sat_estimate(built)) if picture and show_placement else estimate


def nishio_validation_estimate(formula: Formula, *, order: int | None = None,
                               split: bool = True) -> Estimate:
    """Validating one theorem on ``formula`` (Theorem 3: pass its X'): S, the placement
    model, extraction and forward map. With ``split`` the model holds the gadget cells only
    (the filler is solved without SAT; :class:`solvers.gadgets.nishio.PlacementModel` checks its own
    size again), without it every cell of S."""
    from .gadget import expected_cell_count, theorem_order
    n = theorem_order(formula) if order is None else order
    occurrences = sum(len(c) for c in formula.clauses)
    model_cells = 6 * occurrences if split else expected_cell_count(formula, n)
    grid = nishio_gadget_estimate(formula, order=n)
    return grid.plus(placement_model_estimate(model_cells))


def placement_model_estimate(cell_variables: int) -> Estimate:
    """The SAT model of valid placements with ``cell_variables`` cells of S as variables."""
    return Estimate(f"a placement model of {count_text(cell_variables)} cell variables",
                    with_base(PLACEMENT_MODEL_PER_CELL * cell_variables))


def cell_set_reading_estimate(file_bytes: int) -> Estimate:
    """Reading a cell-set file of ``file_bytes`` bytes (one character per cell)."""
    return Estimate(f"a cell set of about {count_text(file_bytes)} cells",
                    with_base(CELL_SET_READ_PER_BYTE * file_bytes))


def nishio_dag_estimate(shape: Shape) -> Estimate:
    """Nishio(S) by the almost-balanced-matrix DAG (its vertices: a closed formula)."""
    from .dag import almost_balanced_count
    vertices = almost_balanced_count(shape)
    return Estimate(f"a DAG of {count_text(vertices)} vertices",
                    with_base(DAG_PER_VERTEX * vertices))


def nishio_overlay_estimate(shape: Shape) -> Estimate:
    """Nishio(S) by pattern overlay: every valid placement as a row of N cells."""
    from .placements import valid_placement_count
    count = valid_placement_count(shape)
    return Estimate(f"{count_text(count)} placements",
                    with_base(OVERLAY_PER_ENTRY * count * shape.size))
