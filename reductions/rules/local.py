"""The local rules of Eppstein 2005 §3.1 (and DDJ's pile exclusion): each looks at one or two
units or one digit at a time.

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

The scans are bit-parallel over the packed candidate masks (:mod:`reductions.sudoku.candidates`):
singles from the unit tallies (which digit has one cell in which unit, for all units and
digits in a few dozen integer operations), pointing and claiming from the same tallies taken
over line segments (the cells a line shares with a block). Python loops only run over the
hits, or over units and digits for the subset rules. Deductions come out in the order of the
numpy implementation they replaced (tests/rules_reference), unit by unit, digit by digit.
"""

from __future__ import annotations

import functools

from ..sudoku.candidates import CandidateState, Layout, bits, layout
from ..sudoku.grid import Shape
from .base import Deduction, numbers_text


@functools.lru_cache(maxsize=16)
def _singles(shape: Shape, rule: str) -> dict[int, Deduction]:
    """The single deductions of one shape made so far. A hidden single's deduction depends on
    (unit, digit, cell) alone, a naked single's on (cell, digit) — effect, witness and words
    — so one frozen object serves every puzzle: a 9×9 puzzle has some sixty singles, and
    making each anew was a fifth of the time of an easy one. At most 3N³ + N³ of them."""
    return {}


def naked_singles(state: CandidateState) -> list[Deduction]:
    once, twice = state.digit_tallies()
    lay = state.lay
    made = _singles(lay.shape, "naked-single")
    out = []
    for c in bits(once & ~twice & state.open):
        d = next(e for e, mask in enumerate(state.where, 1) if mask >> c & 1)
        key = c * lay.n + d
        ded = made.get(key)
        if ded is None:
            ded = made[key] = Deduction(
                "naked-single", placements=((c, d),), witness={"cell": c, "digit": d},
                why=f"{lay.cell_names[c]} has only the candidate {d} left")
        out.append(ded)
    return out


def hidden_singles(state: CandidateState) -> list[Deduction]:
    """Digits with exactly one cell in a unit (``once & ~twice`` of the tallies), except
    where the unit has the digit placed already (``state.done``); by unit, then digit."""
    lay = state.lay
    area, done, width = lay.area, state.done, lay.area * lay.n
    hits = []
    for kind, (once, twice) in enumerate(state.tallies()):
        single = once & ~twice & ~(done >> (kind * width))
        names = lay.origin_unit[kind]
        while single:
            low = single & -single
            p = low.bit_length() - 1
            hits.append((names[p % area], p // area))
            single ^= low
    hits.sort()
    packed, unit_masks, n = state.packed, lay.unit_masks, lay.n
    made = _singles(lay.shape, "hidden-single")
    out, seen = [], set()
    for u, d in hits:
        c = ((packed >> (d * area)) & unit_masks[u]).bit_length() - 1
        if c * n + d in seen:
            continue
        seen.add(c * n + d)
        key = (u * n + d) * area + c
        ded = made.get(key)
        if ded is None:
            ded = made[key] = Deduction(
                "hidden-single", placements=((c, d + 1),),
                witness={"unit": u, "digit": d + 1, "cell": c},
                why=f"{lay.cell_names[c]} is the only place for {d + 1} in "
                    f"{lay.unit_names[u]}")
        out.append(ded)
    return out


# ----------------------------------------------------------------------------- line segments

def _segment_hits(lay: Layout, packed: int) -> dict[str, list[tuple[int, int, int]]]:
    """Pointing and claiming positions for every digit at once.

    A *segment* is the b cells a row shares with a block (a cells for a column). Over the
    packed masks: a segment is occupied when one of its cells has the digit; a block is
    *in one line* when exactly one of its segments along that line kind is occupied, a line
    *in one block* when exactly one of its segments is. Pointing fires at an occupied segment
    whose block is in one line while the line has the digit in other blocks; claiming at one
    whose line is in one block while the block has the digit in other lines.

    Returns, per rule and line kind ("pointing row", ...), the (digit, line, block) triples
    (0-based digit; line = row or column number; block number) in the order the rule
    reports them."""
    geometry = _geometry(lay.shape)
    out: dict[str, list[tuple[int, int, int]]] = {}
    for kind, g in geometry.items():
        segments = 0
        for shift in g["within"]:
            segments |= packed >> shift
        segments &= g["segment_origins"]
        block_once = block_twice = 0
        for shift in g["block_steps"]:
            x = (segments >> shift) & g["block_origins"]
            block_twice |= block_once & x
            block_once |= x
        line_once = line_twice = 0
        for shift in g["line_steps"]:
            x = (segments >> shift) & g["line_origins"]
            line_twice |= line_once & x
            line_once |= x

        def spread_block(mask: int) -> int:
            return _spread(mask, g["block_steps"])

        def spread_line(mask: int) -> int:
            return _spread(mask, g["line_steps"])
        pointing = segments & spread_block(block_once & ~block_twice) & spread_line(line_twice)
        claiming = segments & spread_line(line_once & ~line_twice) & spread_block(block_twice)
        decode = g["decode"]
        out[f"pointing {kind}"] = sorted((decode(p) for p in bits(pointing)),
                                         key=g["pointing_order"])
        out[f"claiming {kind}"] = sorted((decode(p) for p in bits(claiming)),
                                         key=g["claiming_order"])
    return out


def _spread(mask: int, steps: tuple[int, ...]) -> int:
    out = 0
    for shift in steps:
        out |= mask << shift
    return out


@functools.lru_cache(maxsize=16)
def _geometry(shape: Shape) -> dict[str, dict]:
    """Shifts and origin masks of the segments of one shape, per line kind."""
    lay = layout(shape)
    n, a, b, m = lay.n, shape.box_rows, shape.box_cols, lay.area
    stacks = n // b

    def packed(cells) -> int:
        cells = list(cells)
        return sum(1 << (d * m + c) for d in range(n) for c in cells)

    def block_of(r: int, c: int) -> int:
        return (r // a) * stacks + c // b

    def decode_row(p: int) -> tuple[int, int, int]:
        d, cell = divmod(p, m)
        r, c = divmod(cell, n)
        return d, r, block_of(r, c)

    def decode_column(p: int) -> tuple[int, int, int]:
        d, cell = divmod(p, m)
        r, c = divmod(cell, n)
        return d, c, block_of(r, c)
    block_origins = packed(r * n + c for r in range(0, n, a) for c in range(0, n, b))
    return {
        "row": {"within": tuple(range(b)),
                "segment_origins": packed(r * n + c for r in range(n) for c in range(0, n, b)),
                "block_steps": tuple(i * n for i in range(a)), "block_origins": block_origins,
                "line_steps": tuple(s * b for s in range(stacks)),
                "line_origins": packed(r * n for r in range(n)),
                "decode": decode_row,
                # the reference reports rows by (band, stack, digit) / (row, digit)
                "pointing_order": lambda h: (h[1] // a, h[2] % stacks, h[0]),
                "claiming_order": lambda h: (h[1], h[0])},
        "column": {"within": tuple(i * n for i in range(a)),
                   "segment_origins": packed(r * n + c for r in range(0, n, a)
                                             for c in range(n)),
                   "block_steps": tuple(range(b)), "block_origins": block_origins,
                   "line_steps": tuple(t * a * n for t in range(n // a)),
                   "line_origins": packed(range(n)),
                   "decode": decode_column,
                   # columns by (stack, band, digit) / (column, digit)
                   "pointing_order": lambda h: (h[1] // b, h[2] // stacks, h[0]),
                   "claiming_order": lambda h: (h[1], h[0])},
    }


def _line_deductions(state: CandidateState, rule: str) -> list[Deduction]:
    lay = state.lay
    hits = state.memo("segments", lambda: _segment_hits(lay, state.packed))
    n = lay.n
    out = []
    for kind in ("row", "column"):
        for d, line, block in hits[f"{rule} {kind}"]:
            line_unit = line if kind == "row" else n + line
            out.append(_line_block(state, rule, kind, line_unit, 2 * n + block, d))
    return out


def _line_block(state: CandidateState, rule: str, kind: str, line_unit: int, block_unit: int,
                d: int) -> Deduction:
    lay = state.lay
    names, unit_names, masks = lay.cell_names, lay.unit_names, lay.unit_masks
    where = state.where[d]
    digit = d + 1
    if rule == "pointing":
        source, target = block_unit, line_unit
        tail = f"no {digit} elsewhere in that {kind}"
    else:
        source, target = line_unit, block_unit
        tail = f"no {digit} elsewhere in that block"
    targets = bits(where & masks[target] & ~masks[source])
    inside = ", ".join(names[c] for c in bits(where & masks[source]))
    return Deduction(
        rule, eliminations=tuple((c, digit) for c in targets),
        witness={"digit": digit, "block": block_unit, "line": line_unit},
        why=f"in {unit_names[source]}, {digit} can only go in {inside}, all in "
            f"{unit_names[target]}: {tail}")


def pointing(state: CandidateState) -> list[Deduction]:
    return _line_deductions(state, "pointing")


def claiming(state: CandidateState) -> list[Deduction]:
    return _line_deductions(state, "claiming")


# ----------------------------------------------------------------------------- subsets

def _position_groups(state: CandidateState) -> dict[tuple[int, int], list[int]]:
    """(unit, cell mask) -> the digits (1-based) whose candidate cells in that unit are
    exactly those cells (only sets of 2..N-1 cells), by unit, then digit."""
    n = state.size
    groups: dict[tuple[int, int], list[int]] = {}
    where = state.where
    for u, unit in enumerate(state.lay.unit_masks):
        for d in range(n):
            cells = where[d] & unit
            if cells & (cells - 1) and cells.bit_count() < n:
                key = (u, cells)
                if key in groups:
                    groups[key].append(d + 1)
                else:
                    groups[key] = [d + 1]
    return groups


def _subset_deduction(state: CandidateState, rule: str, unit: int, cells: list[int],
                      digits: list[int], extra_unit: int | None = None) -> Deduction | None:
    """Cells ``cells`` of ``unit`` hold exactly ``digits``: remove other digits from them
    (and the digits from ``extra_unit`` outside the cells, for the line-block triple)."""
    lay = state.lay
    keep = sum(1 << (d - 1) for d in digits)
    cand = state.cells
    elims = [(c, d + 1) for c in cells for d in bits(cand[c] & ~keep)]
    if extra_unit is not None:
        inside = set(cells)
        elims += [(c, d) for c in lay.units[extra_unit] if c not in inside
                  for d in digits if cand[c] >> (d - 1) & 1]
    if not elims:
        return None
    names, unit_names = lay.cell_names, lay.unit_names
    cells_text = ", ".join(names[c] for c in cells)
    witness = {"unit": unit, "digits": list(digits), "cells": list(cells)}
    why = (f"in {unit_names[unit]}, the digits {numbers_text(digits)} can only go in "
           f"{cells_text}: those cells hold nothing else")
    if extra_unit is not None:
        witness["other_unit"] = extra_unit
        why += f", and {numbers_text(digits)} leave the rest of {unit_names[extra_unit]}"
    return Deduction(rule, eliminations=tuple(elims), witness=witness, why=why)


def _groups(state: CandidateState):
    return state.memo("position groups", lambda: _position_groups(state)).items()


def hidden_pairs(state: CandidateState) -> list[Deduction]:
    out = []
    for (unit, cells), digits in _groups(state):
        if len(digits) == 2 and cells.bit_count() == 2:
            ded = _subset_deduction(state, "hidden-pair", unit, list(bits(cells)), digits)
            if ded:
                out.append(ded)
    return out


def pile_exclusion(state: CandidateState) -> list[Deduction]:
    out = []
    for (unit, cells), digits in _groups(state):
        if len(digits) == cells.bit_count():
            ded = _subset_deduction(state, "pile-exclusion", unit, list(bits(cells)), digits)
            if ded:
                out.append(ded)
    return out


def line_block_triples(state: CandidateState) -> list[Deduction]:
    """§3.1's triple rule, for every line × block intersection (b cells for a row, a for a
    column; three at 9×9). A placed cell of the intersection counts as outside it; a digit is
    confined when no cell of the unit outside the open intersection has it."""
    lay = state.lay
    cand, units = state.cells, lay.units
    out = []
    for line, block, meet in _meetings(lay.shape):
        inside = meet & state.open
        if not inside & (inside - 1):
            continue
        size = inside.bit_count()
        open_meet = list(bits(inside))
        for unit, other in ((line, block), (block, line)):
            seen = 0
            for c in units[unit]:
                if not inside >> c & 1:
                    seen |= cand[c]
            confined = lay.all_digits & ~seen
            if confined.bit_count() == size:
                ded = _subset_deduction(state, "line-block-triple", unit, open_meet,
                                        [d + 1 for d in bits(confined)], extra_unit=other)
                if ded:
                    out.append(ded)
    return out


@functools.lru_cache(maxsize=16)
def _meetings(shape: Shape) -> list[tuple[int, int, int]]:
    """(line unit, block unit, cells of both as a mask) for every line and block that meet,
    by line, then block."""
    lay = layout(shape)
    n = lay.n
    return [(line, 2 * n + k, lay.unit_masks[line] & lay.unit_masks[2 * n + k])
            for line in range(2 * n) for k in range(n)
            if lay.unit_masks[line] & lay.unit_masks[2 * n + k]]
