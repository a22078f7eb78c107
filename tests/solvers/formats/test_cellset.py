"""Cell-set files and pictures (solvers/formats/cellset.py)."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from reductions.errors import UserError
from reductions.formulas import Formula, example_satisfiable
from reductions.sudoku.grid import Shape
from reductions.nishio.placements import CellSet, random_cell_set, random_placement
from reductions.nishio.dag import nishio_dag
from reductions.nishio.gadget import nishio_gadget, placement_from_assignment
from solvers.formats.cellset import (CellSetError, Picture, format_cell_set, gadget_picture,
                                     parse_cell_set, picture_svg, read_cell_set,
                                     write_cell_set, write_picture)

SVG = "{http://www.w3.org/2000/svg}"


# ----------------------------------------------------------------------------- text

def test_round_trip(tmp_path):
    rng = random.Random(1)
    for shape in (Shape(2, 2), Shape(3, 3), Shape(2, 3), Shape(4, 4)):
        cells = random_cell_set(shape, rng)
        path = tmp_path / f"s{shape}.txt"
        write_cell_set(path, cells)
        assert read_cell_set(path, shape) == cells
        assert parse_cell_set(format_cell_set(cells, spaced=True), shape) == cells
        text = path.read_text()
        assert text.count("\n") == shape.size and set(text) <= set("#.\n")


def test_both_alphabets_spaces_and_separators():
    text = "10|01\n01 10\n--+--\n1.|.#\n.#|#.\n"
    cells = parse_cell_set(text)
    assert cells.shape == Shape(2, 2)
    assert cells.cells() == [(0, 0), (0, 3), (1, 1), (1, 2), (2, 0), (2, 3), (3, 1), (3, 2)]


def test_shape_choice():
    six = "\n".join(["######"] * 6)
    assert parse_cell_set(six).shape == Shape(2, 3)
    assert parse_cell_set(six, Shape(3, 2)).shape == Shape(3, 2)
    big = parse_cell_set("\n".join(["#" * 361] * 361))
    assert big.shape.box_rows == big.shape.box_cols == 19


@pytest.mark.parametrize("text, message", [
    ("#.\n.x\n", "line 2, column 2: unexpected character 'x'"),
    ("##\n###\n", "line 2: 3 cells, but the first row has 2"),
    ("###\n###\n", "2 rows of 3 cells"),
    ("\n\n", "empty"),
    ("#####\n" * 5, "size 5"),
])
def test_bad_text_names_the_place(text, message):
    with pytest.raises(CellSetError, match=re.escape(message)):
        parse_cell_set(text, where="s.txt: ")


def test_bad_files(tmp_path):
    with pytest.raises(CellSetError, match="no such file"):
        read_cell_set(tmp_path / "missing.txt")
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(CellSetError, match="not a text file"):
        read_cell_set(binary)
    nine = tmp_path / "nine.txt"
    nine.write_text("#########\n" * 9)
    with pytest.raises(CellSetError, match="does not fit blocks 2x2"):
        read_cell_set(nine, Shape(2, 2))


def test_display_form_marks_eliminated_cells():
    shape = Shape(2, 2)
    cells = CellSet.from_cells(shape, [(0, 0), (0, 1), (1, 2), (2, 1), (3, 3)])
    kept = nishio_dag(cells)
    shown = format_cell_set(cells, spaced=True, kept=kept)
    assert shown.count("x") == cells.count() - kept.count() == 1
    assert shown.splitlines()[2] == "-----"


# ----------------------------------------------------------------------------- SVG

def svg_cells(root, group: str, cell: float, rows: int, cols: int) -> np.ndarray:
    """Rebuild the drawn cells from the run rectangles of one group."""
    mask = np.zeros((rows, cols), dtype=bool)
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != group:
            continue
        for rect in g.iter(f"{SVG}rect"):
            x, y = float(rect.get("x")), float(rect.get("y"))
            width = float(rect.get("width"))
            r = int(y // cell)
            c0 = int(x // cell)
            length = int(round((width + (x - c0 * cell) * 2) / cell))
            mask[r, c0:c0 + length] = True
    return mask


def cell_size(root) -> float:
    return float(root.get("data-cell"))


def test_svg_draws_exactly_s_and_the_placement(tmp_path):
    shape = Shape(3, 3)
    rng = random.Random(5)
    cells = random_cell_set(shape, rng)
    placement = random_placement(shape, rng)
    path = tmp_path / "s.svg"
    write_picture(path, Picture(cells, placement=placement, title="test"))
    root = ET.parse(path).getroot()
    cell = cell_size(root)
    assert np.array_equal(svg_cells(root, "cells", cell, 9, 9), cells.mask)
    circles = [c for g in root.iter(f"{SVG}g") if g.get("class") == "placement"
               for c in g.iter(f"{SVG}circle")]
    drawn = sorted((int(float(c.get("cy")) // cell), int(float(c.get("cx")) // cell))
                   for c in circles)
    assert drawn == sorted(placement)


def test_svg_with_kept_cells():
    shape = Shape(3, 3)
    cells = random_cell_set(shape, random.Random(2), placements=1, density=0.3)
    kept = nishio_dag(cells)
    root = ET.fromstring(picture_svg(Picture(cells, kept=kept)))
    cell = cell_size(root)
    assert np.array_equal(svg_cells(root, "cells", cell, 9, 9), kept.mask)
    assert np.array_equal(svg_cells(root, "eliminated", cell, 9, 9), cells.mask & ~kept.mask)


def test_gadget_svg_is_labelled_and_shaded():
    formula = example_satisfiable()
    gadget = nishio_gadget(formula)
    placement = placement_from_assignment(gadget, {1: True, 3: True})
    root = ET.fromstring(picture_svg(gadget_picture(gadget, placement)))
    regions = [r for r in root.iter(f"{SVG}rect") if (r.get("class") or "").startswith("region")]
    kinds = [r.get("class").split()[1] for r in regions]
    L, c = 12, 4
    assert kinds.count("variable") == L and kinds.count("term") == L
    assert kinds.count("terminal") == c
    labels = {t.text for t in root.iter(f"{SVG}text") if t.get("class") == "label"}
    assert {"x1", "x4", "C1:x1", "C1:¬x3", "C4 end"} <= labels
    circles = list(root.iter(f"{SVG}circle"))
    assert len(circles) == gadget.shape.size


def test_gadget_core_view():
    gadget = nishio_gadget(Formula(3, ((1, -2, 3), (-1, 2))))
    picture = gadget_picture(gadget, view="core")
    assert len(picture.rows) == len(picture.cols) == 2 * 5 + 2
    root = ET.fromstring(picture_svg(picture))
    bands = {t.text for t in root.iter(f"{SVG}text") if t.get("class") == "band-label"}
    stacks = {t.text for t in root.iter(f"{SVG}text") if t.get("class") == "stack-label"}
    assert bands == {"x1", "x2", "x3", "C1", "C2"}
    assert stacks == {"C1:x1", "C1:¬x2", "C1:x3", "C2:¬x1", "C2:x2", "end"}
    # exactly the gadget cells are drawn in the core view
    drawn = svg_cells(root, "cells", cell_size(root), 12, 12)
    rows, cols = picture.rows, picture.cols
    expected = np.zeros((12, 12), dtype=bool)
    for r, c in gadget.gadget_cells():
        expected[rows.index(r), cols.index(c)] = True
    assert np.array_equal(drawn, expected) and drawn.sum() == 6 * 5
    with pytest.raises(UserError, match="core view is empty"):
        gadget_picture(nishio_gadget(Formula(2, ())), view="core")


def test_picture_suffix_is_checked(tmp_path):
    with pytest.raises(UserError, match=".svg or .png"):
        write_picture(tmp_path / "s.gif", Picture(CellSet.full(Shape(2, 2))))


# ----------------------------------------------------------------------------- PNG

def test_png_picture(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.image as mpimg
    gadget = nishio_gadget(example_satisfiable())
    placement = placement_from_assignment(gadget, {1: True, 3: True})
    for view in ("full", "core"):
        path = tmp_path / f"g-{view}.png"
        write_picture(path, gadget_picture(gadget, placement, view))
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        image = mpimg.imread(path)
        assert image.shape[0] > 300 and image.shape[1] > 300
        red = (image[..., 0] > 0.8) & (image[..., 1] < 0.3) & (image[..., 2] < 0.3)
        blue_shade = (np.abs(image[..., 0] - 0xcf / 255) < 0.02) & \
                     (np.abs(image[..., 2] - 1.0) < 0.02)
        assert red.any() and blue_shade.any()
    assert not list(tmp_path.glob(".*part"))          # atomic writes left no temporary file
