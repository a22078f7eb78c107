"""Independent parts of a cell set (Eppstein, *Solving single-digit Sudoku subproblems*, FUN
2012): the rows, columns and blocks that cells of S link, each covered by a placement
independently of the others.

**Independent parts** (:func:`independent_parts`, used by the SAT presolve and by the gadgets'
filler). Rows, columns and blocks linked by cells of S fall into connected parts that a
placement covers independently. In every band a part needs as many of its rows as of its blocks
(each block takes one row of its band), and likewise columns and blocks per stack. A part that
holds *every* cell of its rows × columns inside its blocks (a complete sub-grid) with balanced
counts always has placements, through any of its cells: pair rows with blocks band by band and
columns with blocks stack by stack (:func:`subgrid_placement`).

Cells are (row, column) pairs, 0-based; flat index r·N + c. Rows, columns and blocks are
numbered as in :mod:`reductions.sudoku.grid`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..sudoku.grid import Shape
from .placements import Cell, CellSet, NishioError


# ----------------------------------------------------------------------------- independent parts

@dataclass(frozen=True, eq=False)
class Part:
    """A connected piece of S: the rows, columns and blocks its cells touch.

    Two units (rows, columns, blocks) are connected when a cell of S lies in both; every cell
    lies in exactly one part with its three units, so a valid placement inside S is exactly one
    valid placement of each part (covering that part's units once) — the parts are independent.
    The cells of a part are the cells of S in its rows (:func:`part_cells`).
    """

    rows: tuple[int, ...]
    cols: tuple[int, ...]
    blocks: tuple[int, ...]
    cell_count: int

    def counts_match(self, shape: Shape) -> bool:
        """Necessary for any placement: in every band, as many rows as blocks of the part (each
        block takes one row of its band, each row needs one block); likewise columns and
        blocks in every stack."""
        return subgrid_counts_match(shape, self.rows, self.cols, self.blocks)

    def is_complete(self, shape: Shape) -> bool:
        """True when S holds *every* cell lying in a row, a column and a block of the part."""
        return self.cell_count == subgrid_cell_count(shape, self.rows, self.cols, self.blocks)


def _band_and_stack_counts(shape: Shape, rows, cols, blocks):
    a, b, n = shape.box_rows, shape.box_cols, shape.size
    bands, stacks = n // a, n // b
    rows_in_band = np.bincount(np.asarray(rows, dtype=np.int64) // a, minlength=bands)
    cols_in_stack = np.bincount(np.asarray(cols, dtype=np.int64) // b, minlength=stacks)
    blocks_arr = np.asarray(blocks, dtype=np.int64)
    blocks_in_band = np.bincount(blocks_arr // stacks, minlength=bands)
    blocks_in_stack = np.bincount(blocks_arr % stacks, minlength=stacks)
    return rows_in_band, cols_in_stack, blocks_in_band, blocks_in_stack


def subgrid_counts_match(shape: Shape, rows, cols, blocks) -> bool:
    rib, cis, bib, bis = _band_and_stack_counts(shape, rows, cols, blocks)
    return bool(np.array_equal(rib, bib) and np.array_equal(cis, bis))


def subgrid_cell_count(shape: Shape, rows, cols, blocks) -> int:
    """Cells (r, c) with r in ``rows``, c in ``cols`` and block(r, c) in ``blocks``."""
    rib, cis, _, _ = _band_and_stack_counts(shape, rows, cols, blocks)
    stacks = shape.size // shape.box_cols
    return int(sum(int(rib[k // stacks]) * int(cis[k % stacks]) for k in blocks))


def subgrid_placement(shape: Shape, rows, cols, blocks,
                      containing: Cell | None = None) -> list[Cell] | None:
    """One cell for every listed block, covering each listed row and column once, using only
    cells whose row, column and block are listed — or None when the counts per band / stack
    differ (then none exists).

    Construction (the filler argument of Theorem 2): in each band pair its listed blocks with
    its listed rows, in each stack pair its listed blocks with its listed columns; block k gets
    the cell (its row, its column), which lies in block k. ``containing`` (a cell whose row,
    column and block are listed) is honoured by pairing its block with its row and column.
    """
    if not subgrid_counts_match(shape, rows, cols, blocks):
        return None
    a, b, n = shape.box_rows, shape.box_cols, shape.size
    stacks = n // b
    by_band: dict[int, list[int]] = {}
    by_stack: dict[int, list[int]] = {}
    for k in sorted(blocks):
        by_band.setdefault(k // stacks, []).append(k)
        by_stack.setdefault(k % stacks, []).append(k)
    rows_by_band: dict[int, list[int]] = {}
    for r in sorted(rows):
        rows_by_band.setdefault(r // a, []).append(r)
    cols_by_stack: dict[int, list[int]] = {}
    for c in sorted(cols):
        cols_by_stack.setdefault(c // b, []).append(c)
    row_of: dict[int, int] = {}
    col_of: dict[int, int] = {}
    for band, band_blocks in by_band.items():
        row_of.update(zip(band_blocks, rows_by_band[band]))
    for stack, stack_blocks in by_stack.items():
        col_of.update(zip(stack_blocks, cols_by_stack[stack]))
    if containing is not None:
        r, c = containing
        k = shape.block_of(r, c)
        if k not in row_of or r not in rows_by_band.get(r // a, ()) or \
                c not in cols_by_stack.get(c // b, ()):
            raise NishioError(f"cell ({r + 1},{c + 1}) is not in this sub-grid")
        # swap so that block k takes row r and column c
        other = next(j for j in by_band[k // stacks] if row_of[j] == r)
        row_of[other], row_of[k] = row_of[k], r
        other = next(j for j in by_stack[k % stacks] if col_of[j] == c)
        col_of[other], col_of[k] = col_of[k], c
    return sorted((row_of[k], col_of[k]) for k in blocks)


def independent_parts(cells: CellSet) -> list[Part]:
    """Split S into its independent parts (connected components of units linked by cells).

    Units are numbered rows 0..N-1, columns N..2N-1, blocks 2N..3N-1; a unit holding no cell
    of S is a part of its own (with no cells: it cannot be covered). A cell links its row and
    its column to its block, so union-find runs over the distinct (row, block) and (column,
    block) links — at most 2·N·(N/b + N/a) of them, found with array reductions over the mask
    — never over the cells themselves (a gadget grid has millions).
    """
    shape = cells.shape
    a, b, n = shape.box_rows, shape.box_cols, shape.size
    bands, stacks = n // a, n // b
    mask = cells.mask
    row_meets = mask.reshape(n, stacks, b).any(axis=2)          # row r meets stack s
    col_meets = mask.reshape(bands, a, n).any(axis=1)           # band t meets column c
    parent = list(range(3 * n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(u: int, v: int) -> None:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv

    for r, s in zip(*(x.tolist() for x in np.nonzero(row_meets))):
        union(r, 2 * n + (r // a) * stacks + s)
    for t, c in zip(*(x.tolist() for x in np.nonzero(col_meets))):
        union(n + c, 2 * n + t * stacks + c // b)
    root = np.array([find(u) for u in range(3 * n)])
    per_row = mask.sum(axis=1)
    parts = []
    for label in np.unique(root).tolist():
        units = np.flatnonzero(root == label)
        rows = units[units < n]
        parts.append(Part(
            rows=tuple(rows.tolist()),
            cols=tuple((units[(units >= n) & (units < 2 * n)] - n).tolist()),
            blocks=tuple((units[units >= 2 * n] - 2 * n).tolist()),
            cell_count=int(per_row[rows].sum())))
    return parts


def part_cells(cells: CellSet, part: Part) -> np.ndarray:
    """Flat indices of the cells of S in ``part`` (the cells of S in its rows), increasing."""
    in_part = np.zeros(cells.size, dtype=bool)
    in_part[list(part.rows)] = True
    return np.flatnonzero(cells.mask & in_part[:, None])
