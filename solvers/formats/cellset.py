"""Cell sets (the S of Nishio(S)) as text files, and pictures of them (SVG, PNG).

Text format: one grid row per line, one character per cell: ``#`` or ``1`` for a cell in S,
``.`` or ``0`` for a cell outside. Spaces and ``|`` inside a line are ignored (so blocks may be
spaced out), as are blank lines and lines made only of ``-``, ``+``, ``=`` and spaces (block
separators). The block shape is square when N is a square, else the most square a×b
(``--box`` overrides: 6×6 defaults to 2×3 blocks). :func:`write_cell_set` writes plain ``#``/``.``
rows, atomically. Errors name the file, line and column.

Pictures (:func:`write_picture`, by the file suffix): ``.svg`` is written directly (no
dependency); ``.png`` needs matplotlib (the ``plots`` extra). Both draw the cells of S as dark
squares, block borders as thick lines, optional *regions* (block → kind and label; the gadget
blocks of a 3SAT instance) shaded and labelled, optional *kept* cells (Nishio(S): the other
cells of S are drawn pale, as eliminated), and an optional placement as red dots on top.
``rows`` / ``cols`` restrict the drawing to some rows and columns (the "core" view of a gadget:
only its rows and columns, blocks still separated).

What the commands write, each set of files all or none: :func:`write_gadget_files` (``gadget
nishio``: S, its map, its picture) and :func:`write_nishio_files` (``nishio``: Nishio(S) and
its picture).
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from reductions.errors import UserError
from reductions.sudoku.grid import Shape
from reductions.nishio.placements import Cell, CellSet, NishioError, shape_for_side
from reductions.reading import DEFAULT_MEMORY_LIMIT, ReadLimit, read_lines
from reductions.nishio.sizes import CELL_SET_READ_PER_BYTE

from .atomic import OutputGroup, atomic_write

ROW_CHARS_PER_CELL = 4
"""The most characters a cell takes in a row: itself and its share of the spacing (blocks
spaced out by ``|`` and blanks)."""

IN_CHARS = frozenset("#1")
OUT_CHARS = frozenset(".0")
IGNORED_CHARS = frozenset(" \t|")
SEPARATOR_LINE_CHARS = frozenset("-+= \t")

KIND_COLOURS = {"variable": "#cfe0ff", "term": "#d3f0d8", "terminal": "#ffe2b8",
                "other": "#eeeeee"}
CELL_COLOUR = "#2b2b2b"
ELIMINATED_COLOUR = "#c8c8c8"
PLACEMENT_COLOUR = "#e0201b"


class CellSetError(UserError):
    """A malformed cell-set file; the message names the file, line and column."""


# ----------------------------------------------------------------------------- text

_CLEAN = str.maketrans("", "", " \t|")
_CELL_LINE = re.compile(r"[#.01]*")


def parse_cell_set(text: str | Iterable[tuple[int, str]], box: Shape | None = None,
                   where: str = "") -> CellSet:
    """Parse the text format (see the module docstring) from a string or from numbered
    lines (a file streams through: only the rows are kept). Clean lines go through numpy (a
    3721×3721 gadget grid reads in a fraction of a second); the first bad character is
    located by a slow pass for the message."""
    lines = enumerate(text.splitlines(), start=1) if isinstance(text, str) else text
    rows: list[np.ndarray] = []
    for number, line in lines:
        if not line.strip() or set(line) <= SEPARATOR_LINE_CHARS:
            continue
        cleaned = line.translate(_CLEAN)
        if not _CELL_LINE.fullmatch(cleaned):
            for column, ch in enumerate(line, start=1):
                if ch not in IN_CHARS | OUT_CHARS | IGNORED_CHARS:
                    raise CellSetError(f"{where}line {number}, column {column}: unexpected "
                                       f"character {ch!r} (use # or 1 for cells in S, . or 0 "
                                       f"for the others)")
        codes = np.frombuffer(cleaned.encode("ascii"), dtype=np.uint8)
        row = (codes == ord("#")) | (codes == ord("1"))
        if rows and len(row) != len(rows[0]):
            raise CellSetError(f"{where}line {number}: {len(row)} cells, but the first row "
                               f"has {len(rows[0])}")
        rows.append(row)
    if not rows:
        raise CellSetError(f"{where}empty: no rows of cells")
    if len(rows) != len(rows[0]):
        raise CellSetError(f"{where}{len(rows)} rows of {len(rows[0])} cells: a cell set "
                           f"must be N rows of N cells")
    try:
        shape = shape_for_side(len(rows), box)
    except UserError as exc:
        raise CellSetError(f"{where}{exc}") from None
    return CellSet(np.array(rows, dtype=bool), shape)


def cell_set_limit(memory_limit: int) -> ReadLimit:
    """What a cell-set file may hold: what the memory limit allows (one byte a cell), in
    rows no longer than the side of the largest grid that fits, spaced out."""
    limit = ReadLimit.share(memory_limit, what="a cell set", per_byte=CELL_SET_READ_PER_BYTE)
    side = math.isqrt(limit.bytes)
    return limit.lines(ROW_CHARS_PER_CELL * side + 64,
                       f"longer than a row of the largest grid the memory limit allows "
                       f"({side:,} cells)")


def read_cell_set(path: str | Path, box: Shape | None = None, *,
                  memory_limit: int = DEFAULT_MEMORY_LIMIT) -> CellSet:
    """A cell-set file, streamed line by line within :func:`cell_set_limit`."""
    return parse_cell_set(read_lines(path, cell_set_limit(memory_limit), CellSetError), box,
                          where=f"{path}: ")


def format_cell_set(cells: CellSet, spaced: bool = False, kept: CellSet | None = None) -> str:
    """The text form, ``#`` / ``.`` per cell; ``spaced`` separates blocks (for reading).

    With ``kept`` (e.g. Nishio(S)), cells of S outside it are shown as ``x`` (a display
    form: :func:`parse_cell_set` does not read ``x``).
    """
    chars = np.where(cells.mask, "#", ".")
    if kept is not None:
        chars[cells.mask & ~kept.mask] = "x"
    if not spaced:
        return "\n".join("".join(row) for row in chars.tolist())
    a, b, n = cells.shape.box_rows, cells.shape.box_cols, cells.size
    lines = []
    for r, row in enumerate(chars.tolist()):
        if r and r % a == 0:
            lines.append("-" * (n + n // b - 1))
        lines.append("|".join("".join(row[c:c + b]) for c in range(0, n, b)))
    return "\n".join(lines)


def write_cell_set(path: str | Path, cells: CellSet, *,
                   group: OutputGroup | None = None) -> None:
    """Write ``#`` / ``.`` rows atomically (as bytes built by numpy: fast for huge grids;
    with ``group``: together with the group's other files)."""
    n = cells.size
    body = np.full((n, n + 1), ord("\n"), dtype=np.uint8)
    body[:, :n] = np.where(cells.mask, ord("#"), ord("."))
    with atomic_write(path, "wb", group=group) as out:
        out.write(body.tobytes())


# ----------------------------------------------------------------------------- pictures

@dataclass
class Picture:
    """What to draw. ``regions`` maps a block to (kind, label); kinds pick the shading."""

    cells: CellSet
    regions: dict[int, tuple[str, str]] = field(default_factory=dict)
    kept: CellSet | None = None
    placement: Sequence[Cell] | None = None
    rows: Sequence[int] | None = None
    cols: Sequence[int] | None = None
    title: str = ""
    band_labels: dict[int, str] = field(default_factory=dict)    # drawn in the left margin
    stack_labels: dict[int, str] = field(default_factory=dict)   # drawn in the top margin

    def __post_init__(self) -> None:
        n = self.cells.size
        self.rows = list(range(n)) if self.rows is None else sorted(self.rows)
        self.cols = list(range(n)) if self.cols is None else sorted(self.cols)
        if not self.rows or not self.cols:
            raise NishioError("nothing to draw: no rows or no columns selected")
        if self.kept is not None and self.kept.shape != self.cells.shape:
            raise NishioError("the kept cells are on a different grid")

    # geometry of the (possibly cropped) drawing
    def row_pos(self) -> dict[int, int]:
        return {r: i for i, r in enumerate(self.rows)}

    def col_pos(self) -> dict[int, int]:
        return {c: i for i, c in enumerate(self.cols)}

    def band_breaks(self) -> list[int]:
        """Positions (between drawn rows) where a new band starts, with 0 and the end."""
        a = self.cells.shape.box_rows
        return _breaks([r // a for r in self.rows])

    def stack_breaks(self) -> list[int]:
        b = self.cells.shape.box_cols
        return _breaks([c // b for c in self.cols])

    def band_spans(self) -> list[tuple[int, int, int]]:
        """(band, first drawn row, end) for every band with drawn rows."""
        a = self.cells.shape.box_rows
        edges = self.band_breaks()
        return [(self.rows[s] // a, s, e) for s, e in zip(edges, edges[1:])]

    def stack_spans(self) -> list[tuple[int, int, int]]:
        b = self.cells.shape.box_cols
        edges = self.stack_breaks()
        return [(self.cols[s] // b, s, e) for s, e in zip(edges, edges[1:])]

    def sub_mask(self, mask: np.ndarray) -> np.ndarray:
        return mask[np.ix_(self.rows, self.cols)]

    def region_boxes(self) -> list[tuple[int, int, int, int, str, str]]:
        """(top, left, height, width, kind, label) in drawn cells, one per visible region."""
        shape = self.cells.shape
        a, b = shape.box_rows, shape.box_cols
        stacks = shape.size // b
        band_rows: dict[int, list[int]] = {}
        for i, r in enumerate(self.rows):
            band_rows.setdefault(r // a, []).append(i)
        stack_cols: dict[int, list[int]] = {}
        for j, c in enumerate(self.cols):
            stack_cols.setdefault(c // b, []).append(j)
        boxes = []
        for block, (kind, label) in sorted(self.regions.items()):
            rs = band_rows.get(block // stacks)
            cs = stack_cols.get(block % stacks)
            if rs and cs:
                boxes.append((rs[0], cs[0], rs[-1] - rs[0] + 1, cs[-1] - cs[0] + 1, kind, label))
        return boxes

    def visible_placement(self) -> list[tuple[int, int]]:
        rp, cp = self.row_pos(), self.col_pos()
        return [(rp[r], cp[c]) for r, c in (self.placement or ()) if r in rp and c in cp]


def _breaks(groups: list[int]) -> list[int]:
    return [0] + [i for i in range(1, len(groups)) if groups[i] != groups[i - 1]] + [len(groups)]


def _runs(row: np.ndarray) -> list[tuple[int, int]]:
    """(start, length) of the runs of True in a boolean row."""
    padded = np.concatenate([[False], row, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return [(int(s), int(e - s)) for s, e in zip(edges[::2], edges[1::2])]


def picture_svg(picture: Picture, max_width: int = 1400) -> str:
    """The picture as an SVG document (cells merged into runs per row, so a 361×361 gadget
    stays a few hundred kilobytes)."""
    height_cells, width_cells = len(picture.rows), len(picture.cols)
    cell = max(1.0, min(24.0, max_width / max(width_cells, height_cells)))
    out, left, top = _svg_frame(picture, cell)
    out.append(f'<g transform="translate({left:.1f},{top:.1f})">')
    boxes = picture.region_boxes()
    for top_, left_, h, w, kind, _ in boxes:
        colour = KIND_COLOURS.get(kind, KIND_COLOURS["other"])
        out.append(f'<rect class="region {html.escape(kind)}" x="{left_ * cell:.1f}" '
                   f'y="{top_ * cell:.1f}" width="{w * cell:.1f}" height="{h * cell:.1f}" '
                   f'fill="{colour}"/>')
    out.extend(_svg_cells(picture, cell))
    out.extend(_svg_lines(picture, cell))
    out.extend(_svg_box_labels(boxes, cell))
    out.extend(_svg_placement(picture, cell))
    out.append('</g></svg>')
    return "\n".join(out) + "\n"


_SVG_FONT = 12.0
"""Font size of the band and stack labels."""


def _svg_frame(picture: Picture, cell: float) -> tuple[list[str], float, float]:
    """The document's opening, title, band and stack labels; the margins they take."""
    font = _SVG_FONT
    height_cells, width_cells = len(picture.rows), len(picture.cols)
    margin_left = 4 + (max(map(len, picture.band_labels.values())) * font * 0.65
                       if picture.band_labels else 0)
    margin_top = (24 if picture.title else 4) + (
        max(map(len, picture.stack_labels.values())) * font * 0.65 if picture.stack_labels
        else 0)
    width = max(width_cells * cell + margin_left + 4, 8 * len(picture.title) if picture.title
                else 0)
    height = height_cells * cell + margin_top + 4
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="sans-serif" '
           f'data-cell="{cell}">',
           '<rect width="100%" height="100%" fill="white"/>']
    if picture.title:
        out.append(f'<text x="4" y="16" font-size="13">{html.escape(picture.title)}</text>')
    for band, start, end in picture.band_spans():
        if band in picture.band_labels:
            out.append(f'<text class="band-label" x="{margin_left - 4:.1f}" '
                       f'y="{margin_top + (start + end) / 2 * cell + font / 3:.1f}" '
                       f'font-size="{font}" text-anchor="end">'
                       f'{html.escape(picture.band_labels[band])}</text>')
    for stack, start, end in picture.stack_spans():
        if stack in picture.stack_labels:
            x = margin_left + (start + end) / 2 * cell + font / 3
            out.append(f'<text class="stack-label" x="{x:.1f}" y="{margin_top - 4:.1f}" '
                       f'font-size="{font}" transform="rotate(-90 {x:.1f} {margin_top - 4:.1f})">'
                       f'{html.escape(picture.stack_labels[stack])}</text>')
    return out, margin_left, margin_top


def _svg_cells(picture: Picture, cell: float) -> list[str]:
    """The cells of S as runs per row (kept and eliminated apart when the picture has both)."""
    inset = 0.1 * cell if cell >= 5 else 0.0
    s_mask = picture.sub_mask(picture.cells.mask)
    layers = [("cells", CELL_COLOUR, s_mask)]
    if picture.kept is not None:
        kept = picture.sub_mask(picture.kept.mask)
        layers = [("cells", CELL_COLOUR, s_mask & kept),
                  ("eliminated", ELIMINATED_COLOUR, s_mask & ~kept)]
    out = []
    for name, colour, mask in layers:
        out.append(f'<g class="{name}" fill="{colour}">')
        for i, row in enumerate(mask):
            for start, length in _runs(row):
                out.append(f'<rect x="{start * cell + inset:.1f}" y="{i * cell + inset:.1f}" '
                           f'width="{length * cell - 2 * inset:.1f}" '
                           f'height="{cell - 2 * inset:.1f}"/>')
        out.append('</g>')
    return out


def _svg_lines(picture: Picture, cell: float) -> list[str]:
    """Thin cell lines (where they can be seen) and the block lines."""
    height_cells, width_cells = len(picture.rows), len(picture.cols)
    out = []
    if cell >= 6:
        out.append('<g stroke="#dddddd" stroke-width="0.5">')
        for i in range(1, height_cells):
            out.append(f'<line x1="0" y1="{i * cell:.1f}" x2="{width_cells * cell:.1f}" '
                       f'y2="{i * cell:.1f}"/>')
        for j in range(1, width_cells):
            out.append(f'<line x1="{j * cell:.1f}" y1="0" x2="{j * cell:.1f}" '
                       f'y2="{height_cells * cell:.1f}"/>')
        out.append('</g>')
    stroke = max(1.0, min(2.5, cell / 4))
    out.append(f'<g class="blocks" stroke="black" stroke-width="{stroke:.1f}">')
    for i in picture.band_breaks():
        out.append(f'<line x1="0" y1="{i * cell:.1f}" x2="{width_cells * cell:.1f}" '
                   f'y2="{i * cell:.1f}"/>')
    for j in picture.stack_breaks():
        out.append(f'<line x1="{j * cell:.1f}" y1="0" x2="{j * cell:.1f}" '
                   f'y2="{height_cells * cell:.1f}"/>')
    out.append('</g>')
    return out


def _svg_box_labels(boxes, cell: float) -> list[str]:
    """The region labels, at each box's bottom-left corner (the gadget cells sit in the
    first rows and columns of a block)."""
    out = []
    for top, left, h, w, kind, label in boxes:
        if not label:
            continue
        size = max(4.0, min(14.0, w * cell / max(len(label), 1) * 1.6, h * cell * 0.6))
        out.append(f'<text class="label" x="{left * cell + 2:.1f}" '
                   f'y="{(top + h) * cell - 3:.1f}" font-size="{size:.1f}" fill="#1a1a80">'
                   f'{html.escape(label)}</text>')
    return out


def _svg_placement(picture: Picture, cell: float) -> list[str]:
    """The placement's cells as dots (those inside the picture)."""
    dots = picture.visible_placement()
    if not dots:
        return []
    radius = max(0.5, 0.33 * cell)
    return ([f'<g class="placement" fill="{PLACEMENT_COLOUR}">']
            + [f'<circle cx="{(j + 0.5) * cell:.1f}" cy="{(i + 0.5) * cell:.1f}" '
               f'r="{radius:.1f}"/>' for i, j in dots]
            + ['</g>'])


def picture_png(picture: Picture, path: str | Path, max_pixels: int = 2000, *,
                group: OutputGroup | None = None) -> None:
    """Draw with matplotlib (Agg) and write a PNG atomically (with ``group``: together with
    the group's other files)."""
    plt, to_rgb, rectangle = _matplotlib()
    height_cells, width_cells = len(picture.rows), len(picture.cols)
    side = max(height_cells, width_cells)
    dpi = 100
    inches = min(max_pixels, max(800, side * 8)) / dpi
    fig, ax = plt.subplots(figsize=(inches * width_cells / side + 0.2,
                                    inches * height_cells / side + 0.5), dpi=dpi)
    try:
        ax.imshow(_png_image(picture, to_rgb), interpolation="nearest",
                  extent=(0, width_cells, height_cells, 0))
        _png_marks(ax, picture, rectangle, cell_points=inches * 72 / side)
        ax.set_xlim(0, width_cells)
        ax.set_ylim(height_cells, 0)
        _png_ticks(ax, picture)
        if picture.title:
            fig.suptitle(picture.title, fontsize=9)
        fig.tight_layout()
        with atomic_write(path, "wb", group=group) as out:
            fig.savefig(out, format="png", dpi=dpi)
    finally:
        plt.close(fig)


def _matplotlib() -> tuple:
    """pyplot on the Agg backend, ``to_rgb`` and ``Rectangle``, imported on first use (the
    CLI does not load matplotlib otherwise); UserError where it is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import to_rgb
        from matplotlib.patches import Rectangle
    except ImportError:
        raise UserError("PNG pictures need matplotlib (pip install 'sudoku-bridge[plots]'); "
                        "an .svg picture needs nothing") from None
    return plt, to_rgb, Rectangle


def _png_image(picture: Picture, to_rgb) -> np.ndarray:
    """One RGB pixel per cell: the region colours, then the set's cells (kept or eliminated)
    over them."""
    image = np.ones((len(picture.rows), len(picture.cols), 3))
    for top, left, h, w, kind, _ in picture.region_boxes():
        image[top:top + h, left:left + w] = to_rgb(KIND_COLOURS.get(kind, KIND_COLOURS["other"]))
    s_mask = picture.sub_mask(picture.cells.mask)
    if picture.kept is not None:
        kept = picture.sub_mask(picture.kept.mask)
        image[s_mask & ~kept] = to_rgb(ELIMINATED_COLOUR)
        image[s_mask & kept] = to_rgb(CELL_COLOUR)
    else:
        image[s_mask] = to_rgb(CELL_COLOUR)
    return image


def _png_marks(ax, picture: Picture, rectangle, *, cell_points: float) -> None:
    """Band and stack lines, region boxes with their labels, and the placement's dots;
    ``cell_points``: a cell's side in points (sizes the labels and the dots)."""
    for i in picture.band_breaks():
        ax.axhline(i, color="black", linewidth=1.2)
    for j in picture.stack_breaks():
        ax.axvline(j, color="black", linewidth=1.2)
    for top, left, h, w, kind, label in picture.region_boxes():
        ax.add_patch(rectangle((left, top), w, h, fill=False, edgecolor="#555555",
                               linewidth=0.5))
        if label:
            size = max(3.0, min(10.0, w * cell_points / max(len(label), 1) * 1.6))
            ax.text(left + 0.2, top + h - 0.2, label, fontsize=size, color="#1a1a80",
                    va="bottom", ha="left")
    dots = picture.visible_placement()
    if dots:
        ys, xs = zip(*dots)
        ax.scatter(np.array(xs) + 0.5, np.array(ys) + 0.5, s=max(1.0, (cell_points * 0.6) ** 2),
                   color=PLACEMENT_COLOUR, linewidths=0)


def _png_ticks(ax, picture: Picture) -> None:
    """Band labels down the left and stack labels across the top, at their spans' middles."""
    ax.set_yticks([(s + e) / 2 for band, s, e in picture.band_spans()
                   if band in picture.band_labels],
                  [picture.band_labels[band] for band, _, _ in picture.band_spans()
                   if band in picture.band_labels], fontsize=8)
    ax.set_xticks([(s + e) / 2 for stack, s, e in picture.stack_spans()
                   if stack in picture.stack_labels],
                  [picture.stack_labels[stack] for stack, _, _ in picture.stack_spans()
                   if stack in picture.stack_labels], fontsize=8, rotation=90)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)


def check_picture_name(path: str | Path) -> None:
    """A picture's suffix chooses its format: refuse any other before work is done."""
    if Path(path).suffix.lower() not in (".svg", ".png"):
        raise UserError(f"{path}: a picture must end in .svg or .png")


def write_picture(path: str | Path, picture: Picture, *,
                  group: OutputGroup | None = None) -> None:
    """``.svg`` (no dependency) or ``.png`` (matplotlib), chosen by the suffix; atomic (with
    ``group``: together with the group's other files)."""
    check_picture_name(path)
    if Path(path).suffix.lower() == ".svg":
        text = picture_svg(picture)
        with atomic_write(path, group=group) as out:
            out.write(text)
    else:
        picture_png(picture, path, group=group)


def gadget_picture(gadget, placement: Sequence[Cell] | None = None, view: str = "full",
                   kept: CellSet | None = None, title: str | None = None) -> Picture:
    """A :class:`Picture` of a :class:`reductions.nishio.gadget.NishioGadget`: variable,
    term and terminal blocks shaded and labelled (``x3``, ``C2:¬x3``, ``C2 end``).

    ``view="core"`` keeps only the gadget rows and columns (2L + c of each): the whole proof
    at a readable size, with band and stack borders still drawn.
    """
    if view not in ("full", "core"):
        raise UserError(f"unknown view {view!r} (full or core)")
    core = view == "core"
    regions = {block: (gadget.block_kind(block), "" if core else label)
               for block, label in gadget.labels.items()}
    rows = sorted(gadget.gadget_rows) if core else None
    cols = sorted(gadget.gadget_cols) if core else None
    if core and not rows:
        raise UserError("the formula has no clauses: the core view is empty")
    band_labels, stack_labels = {}, {}
    if core:
        band_labels = {g.band: f"x{g.variable}" for g in gadget.variables.values()}
        band_labels.update({c.band: f"C{c.index + 1}" for c in gadget.clauses})
        stack_labels = {t.occurrence: f"C{c.index + 1}:{gadget.labels[t.block].split(':')[1]}"
                        for c in gadget.clauses for t in c.terms}
        stack_labels[gadget.terminal_stack] = "end"
    if title is None:
        n = gadget.order
        f = gadget.formula
        title = (f"Nishio gadget: {f.num_vars} variables, {f.num_clauses} clauses; "
                 f"n = {n}, {n * n}x{n * n} grid, |S| = {gadget.cells.count():,}"
                 + (" (gadget rows and columns only)" if view == "core" else ""))
    return Picture(gadget.cells, regions, kept, placement, rows, cols, title, band_labels,
                   stack_labels)


def picture_format(path: str | Path) -> str:
    """"png" or "svg", as :func:`write_picture` chooses by the suffix."""
    return "png" if str(path).lower().endswith(".png") else "svg"


# ----------------------------------------------------------------------------- the commands' files

def write_gadget_files(built, *, cells_path: str | Path | None = None,
                       map_path: str | Path | None = None,
                       picture_path: str | Path | None = None,
                       placement: Sequence[Cell] | None = None, view: str = "full") -> None:
    """The files of a built Nishio gadget (a :class:`reductions.nishio.theorem3.BuiltGadget`),
    all or none: S as a cell set, its JSON map (:meth:`~reductions.nishio.theorem3.BuiltGadget.
    record`, one line) and its picture (``placement`` drawn on top, ``view`` full or core)."""
    with OutputGroup() as outputs:
        if cells_path:
            write_cell_set(cells_path, built.gadget.cells, group=outputs)
        if map_path:
            with atomic_write(map_path, group=outputs) as out:
                json.dump(built.record(), out)
                out.write("\n")
        if picture_path:
            write_picture(picture_path, gadget_picture(built.gadget, placement, view),
                          group=outputs)


def write_nishio_files(cells: CellSet, kept: CellSet, *, cells_path: str | Path | None = None,
                       picture_path: str | Path | None = None) -> None:
    """Nishio(S) = ``kept`` as a cell set and a picture of S with the eliminated cells pale:
    both or neither."""
    with OutputGroup() as outputs:
        if cells_path:
            write_cell_set(cells_path, kept, group=outputs)
        if picture_path:
            write_picture(picture_path, Picture(cells, kept=kept, title=(
                f"S: {cells.count()} cells; Nishio(S): {kept.count()} (pale: eliminated)")),
                group=outputs)
