"""The local rules of Eppstein 2005 §3.1 (and DDJ's pile exclusion): each looks at one or two
units or one digit at a time. All scans are numpy over the whole candidate array; Python loops
only run over the hits.

* hidden single — a digit with one cell left in a unit goes there;
* naked single — a cell with one candidate gets it;
* pointing — a block's cells for a digit all in one row (column): the digit leaves the rest of
  that row (column);
* claiming — a row's (column's) cells for a digit all in one block: the digit leaves the rest
  of that block;
* hidden pair (§3.1 "pair") — two digits whose only two cells in a unit are the same two cells:
  other digits leave those cells;
* line-block triple (§3.1 "triple") — the open cells where a line meets a block, and as many
  digits confined (within the line, or within the block) to those cells: the cells hold only
  those digits, and the digits leave the rest of the other unit;
* pile exclusion (DDJ) — k digits whose cells in a unit are the same k cells: other digits
  leave those cells (the hidden pair for any k).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from reductions.sudoku.candidates import cell_name, unit_matrix, unit_name
from reductions.rules.base import Deduction, cells_text, numbers_text

from .state import CandidateState


def naked_singles(state: CandidateState) -> list[Deduction]:
    flat = state.flat_cand()
    open_ = state.values.reshape(-1) == 0
    cells = np.flatnonzero(open_ & (flat.sum(axis=1) == 1))
    digits = flat[cells].argmax(axis=1) + 1
    shape = state.shape
    return [Deduction("naked-single", placements=((int(c), int(d)),),
                      witness={"cell": int(c), "digit": int(d)},
                      why=f"{cell_name(shape, c)} has only the candidate {d} left")
            for c, d in zip(cells.tolist(), digits.tolist())]


def hidden_singles(state: CandidateState) -> list[Deduction]:
    shape, n = state.shape, state.size
    flat = state.flat_cand().astype(np.float32)
    members = unit_matrix(shape)
    counts = members @ flat                                    # (3N, digit)
    unit_idx, digit_idx = np.nonzero(counts == 1)
    if not len(unit_idx):
        return []
    # where the count is 1, the sum of (cell + 1) over the unit's candidates names the cell
    named = (members @ (flat * np.arange(1, n * n + 1, dtype=np.float32)[:, None]))
    cells = named[unit_idx, digit_idx].astype(np.int64) - 1
    fresh = state.values.reshape(-1)[cells] == 0
    out, seen = [], set()
    for u, d, c in zip(unit_idx[fresh].tolist(), (digit_idx[fresh] + 1).tolist(),
                       cells[fresh].tolist()):
        if (c, d) in seen:
            continue
        seen.add((c, d))
        out.append(Deduction("hidden-single", placements=((c, d),),
                             witness={"unit": u, "digit": d, "cell": c},
                             why=f"{cell_name(shape, c)} is the only place for {d} in "
                                 f"{unit_name(shape, u)}"))
    return out


def _box_view(state: CandidateState) -> np.ndarray:
    """``(bands, a, stacks, b, N)`` view of the candidates (a×b blocks)."""
    a, b, n = state.shape.box_rows, state.shape.box_cols, state.size
    return state.cand.reshape(n // a, a, n // b, b, n)


def _line_block_hits(state: CandidateState, kind: str, rule: str) -> list[Deduction]:
    """Pointing or claiming (``rule``) for rows (kind ``row``) or columns (``column``)."""
    shape = state.shape
    n, a, b = state.size, shape.box_rows, shape.box_cols
    view = _box_view(state)
    blocks_per_row = n // b
    if kind == "row":
        occupied = view.any(axis=3)                  # (band, row in band, stack, digit)
        line_of = lambda band, i: band * a + i       # noqa: E731
        block_of = lambda band, i, stack: band * blocks_per_row + stack  # noqa: E731
        line_axis, block_axis = 1, 2
    else:
        occupied = view.any(axis=1).transpose(1, 2, 0, 3)   # (stack, col in stack, band, d)
        line_of = lambda stack, i: stack * b + i     # noqa: E731
        block_of = lambda stack, i, band: band * blocks_per_row + stack  # noqa: E731
        line_axis, block_axis = 1, 2
    lines_per_block = occupied.sum(axis=line_axis)     # (group, other group, digit)
    blocks_per_line = occupied.sum(axis=block_axis)    # (group, line in group, digit)
    groups = np.arange(occupied.shape[0])[:, None, None]
    digit_axis = np.arange(occupied.shape[3])[None, None, :]
    out = []
    if rule == "pointing":      # a block's digit in one line of it; the line has it elsewhere
        line_in = occupied.argmax(axis=line_axis)      # (group, other group, digit)
        spread = blocks_per_line[groups, line_in, digit_axis]
        for g, other, d in np.argwhere((lines_per_block == 1) & (spread > 1)).tolist():
            i = int(line_in[g, other, d])
            out.append(_pointing(state, kind, line_of(g, i), block_of(g, i, other), d + 1))
    else:                       # a line's digit in one block; the block has it in other lines
        block_in = occupied.argmax(axis=block_axis)    # (group, line in group, digit)
        crowd = lines_per_block[groups, block_in, digit_axis]
        for g, i, d in np.argwhere((blocks_per_line == 1) & (crowd > 1)).tolist():
            other = int(block_in[g, i, d])
            out.append(_claiming(state, kind, line_of(g, i), block_of(g, i, other), d + 1))
    return [d for d in out if d is not None]


def _unit_cells(state: CandidateState, unit: int) -> np.ndarray:
    return state.shape.units()[unit]


def _line_unit(state: CandidateState, kind: str, line: int) -> int:
    return line if kind == "row" else state.size + line


def _pointing(state, kind, line, block, digit) -> Deduction | None:
    n, shape = state.size, state.shape
    line_unit = _line_unit(state, kind, line)
    block_cells = set(_unit_cells(state, 2 * n + block).tolist())
    flat = state.flat_cand()
    targets = [c for c in _unit_cells(state, line_unit).tolist()
               if c not in block_cells and flat[c, digit - 1]]
    if not targets:
        return None
    inside = [c for c in sorted(block_cells) if flat[c, digit - 1]]
    return Deduction(
        "pointing", eliminations=tuple((c, digit) for c in targets),
        witness={"digit": digit, "block": 2 * n + block, "line": line_unit},
        why=f"in {unit_name(shape, 2 * n + block)}, {digit} can only go in "
            f"{cells_text(shape, inside)}, all in {unit_name(shape, line_unit)}: no {digit} "
            f"elsewhere in that {kind}")


def _claiming(state, kind, line, block, digit) -> Deduction | None:
    n, shape = state.size, state.shape
    line_unit = _line_unit(state, kind, line)
    line_cells = set(_unit_cells(state, line_unit).tolist())
    flat = state.flat_cand()
    targets = [c for c in _unit_cells(state, 2 * n + block).tolist()
               if c not in line_cells and flat[c, digit - 1]]
    if not targets:
        return None
    inside = [c for c in sorted(line_cells) if flat[c, digit - 1]]
    return Deduction(
        "claiming", eliminations=tuple((c, digit) for c in targets),
        witness={"digit": digit, "block": 2 * n + block, "line": line_unit},
        why=f"in {unit_name(shape, line_unit)}, {digit} can only go in "
            f"{cells_text(shape, inside)}, all in {unit_name(shape, 2 * n + block)}: no "
            f"{digit} elsewhere in that block")


def pointing(state: CandidateState) -> list[Deduction]:
    return _line_block_hits(state, "row", "pointing") + _line_block_hits(state, "column",
                                                                           "pointing")


def claiming(state: CandidateState) -> list[Deduction]:
    return _line_block_hits(state, "row", "claiming") + _line_block_hits(state, "column",
                                                                           "claiming")


def _position_groups(state: CandidateState) -> dict[tuple[int, tuple[int, ...]], list[int]]:
    """(unit, cells) -> the unplaced digits whose candidate cells in that unit are exactly
    those cells (only sets of 2..N-1 cells)."""
    units = state.shape.units()
    by_unit = state.by_unit()
    counts = by_unit.sum(axis=1)
    groups: dict[tuple[int, tuple[int, ...]], list[int]] = defaultdict(list)
    for u, d in np.argwhere((counts >= 2) & (counts < state.size)).tolist():
        cells = tuple(units[u][by_unit[u, :, d]].tolist())
        groups[(u, cells)].append(d + 1)
    return groups


def _subset_deduction(state, rule, unit, cells, digits, extra_unit=None) -> Deduction | None:
    """Cells ``cells`` of ``unit`` hold exactly ``digits``: remove other digits from them
    (and the digits from ``extra_unit`` outside the cells, for the line-block triple)."""
    flat = state.flat_cand()
    shape = state.shape
    keep = set(digits)
    elims = [(c, d + 1) for c in cells for d in np.flatnonzero(flat[c]).tolist()
             if d + 1 not in keep]
    if extra_unit is not None:
        inside = set(cells)
        elims += [(c, d) for c in _unit_cells(state, extra_unit).tolist() if c not in inside
                  for d in digits if flat[c, d - 1]]
    if not elims:
        return None
    witness = {"unit": int(unit), "digits": list(digits), "cells": list(cells)}
    why = (f"in {unit_name(shape, unit)}, the digits {numbers_text(digits)} can only go in "
           f"{cells_text(shape, cells)}: those cells hold nothing else")
    if extra_unit is not None:
        witness["other_unit"] = int(extra_unit)
        why += (f", and {numbers_text(digits)} leave the rest of "
                f"{unit_name(shape, extra_unit)}")
    return Deduction(rule, eliminations=tuple(elims), witness=witness, why=why)


def hidden_pairs(state: CandidateState) -> list[Deduction]:
    out = []
    for (unit, cells), digits in _position_groups(state).items():
        if len(cells) == 2 and len(digits) == 2:
            ded = _subset_deduction(state, "hidden-pair", unit, cells, digits)
            if ded:
                out.append(ded)
    return out


def pile_exclusion(state: CandidateState) -> list[Deduction]:
    out = []
    for (unit, cells), digits in _position_groups(state).items():
        if len(digits) == len(cells):
            ded = _subset_deduction(state, "pile-exclusion", unit, cells, digits)
            if ded:
                out.append(ded)
    return out


def line_block_triples(state: CandidateState) -> list[Deduction]:
    """§3.1's triple rule, for every line × block intersection (b cells for a row, a for a
    column; three at 9×9)."""
    shape, n = state.shape, state.size
    units = shape.units()
    flat = state.flat_cand()
    values = state.values.reshape(-1)
    block_sets = [set(units[2 * n + k].tolist()) for k in range(n)]
    out = []
    for line in range(2 * n):
        line_cells = units[line].tolist()
        for k in range(n):
            meet = [c for c in line_cells if c in block_sets[k]]
            if not meet:
                continue
            open_meet = [c for c in meet if values[c] == 0]
            if len(open_meet) < 2:
                continue
            inside = set(open_meet)
            for unit, other in ((line, 2 * n + k), (2 * n + k, line)):
                cells = units[unit].tolist()
                outside = [c for c in cells if c not in inside]
                placed = {int(values[c]) for c in cells if values[c]}
                confined = [d for d in range(1, n + 1) if d not in placed
                            and not any(flat[c, d - 1] for c in outside)]
                if len(confined) == len(open_meet):
                    ded = _subset_deduction(state, "line-block-triple", unit, open_meet,
                                            confined, extra_unit=other)
                    if ded:
                        out.append(ded)
    return out
