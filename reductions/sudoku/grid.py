"""The generalized Sudoku model: shapes, grids, parsing, printing and checking.

A Sudoku of size N has an N×N grid split into N blocks of ``a`` rows by ``b`` columns
(a·b = N). Square Sudoku (N = n², n×n blocks) is the default; 6×6 with 2×3 blocks, 12×12 with
3×4 blocks and so on are supported wherever a target allows them.

Conventions used everywhere in the project:

* rows, columns, blocks and digits are numbered from 0 in code (the papers count from 1);
  blocks are numbered row-major (block 0 is top-left, block 1 is to its right);
* a grid is an ``(N, N)`` numpy array of ``int16``; 0 is an empty cell, 1..N are digits;
* user mistakes raise :class:`GridError` (a ``ValueError``), whose message names what is wrong
  and where (line, row, column), so the command line can print it as one line.

Text formats read by :func:`parse_grid`:

* one line of N² characters, ``.`` or ``0`` for an empty cell (the usual 81-character line);
* a multi-line picture of the grid; spaces and the separators ``| - + =`` are ignored;
* single-character symbols for N ≤ 35: ``1``-``9`` then ``A``-``Z`` (10..35), either case;
* whitespace-separated integers (``0`` or ``.`` empty) for any N.

:func:`check_solution` is the single checker every route uses to accept an answer. Files of
puzzles and the command line's puzzle arguments are read by :mod:`reductions.sudoku.puzzle_files`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..errors import UserError

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""Single-character symbols: SYMBOLS[d - 1] is digit d, for d = 1..35."""

MAX_SIZE = 255
"""Largest N of a :class:`Grid` (far beyond what any target here can handle). A bare
:class:`Shape` has no limit: the Nishio gadget's cell sets are larger grids of cells."""

MAX_GRID_TEXT = 16 * MAX_SIZE * MAX_SIZE
"""The most text one grid takes: 16 characters a cell (a number of up to three digits, its
spacing and block separators, with room to spare) for the largest N. No line of a puzzle file
is longer, nor is the whole text of a multi-line grid (comment lines aside)."""

MAX_COMMENT_LINE = MAX_GRID_TEXT + (1 << 16)
"""The longest comment line a file written here holds: a puzzle recorded in a CNF, dlx, LP or
MPS file's comments (``c puzzle ...``) with its key. Readers of those files refuse longer
lines as soon as they see them."""

EMPTY_CHARS = frozenset(".0")
SEPARATOR_CHARS = frozenset("|-+=")


class GridError(UserError):
    """A malformed or inconsistent puzzle; the message names the problem and its place."""


@dataclass(frozen=True)
class Shape:
    """Block geometry of an N×N Sudoku: blocks of ``box_rows`` × ``box_cols`` cells."""

    box_rows: int
    box_cols: int

    def __post_init__(self) -> None:
        if self.box_rows < 1 or self.box_cols < 1:
            raise GridError(f"block dimensions must be positive, got {self.box_rows}x{self.box_cols}")

    @property
    def size(self) -> int:
        """N, the number of digits, rows, columns and blocks."""
        return self.box_rows * self.box_cols

    @property
    def is_square(self) -> bool:
        return self.box_rows == self.box_cols

    @classmethod
    def for_size(cls, size: int) -> "Shape":
        """Default block shape for N: n×n when N = n², else the most square a×b with a < b.

        Sizes whose only factorization is 1×N (primes, N < 4) are refused: they are Latin
        squares, not Sudoku.
        """
        if size < 4:
            raise GridError(f"size {size} is too small: a Sudoku needs N >= 4")
        for a in range(math.isqrt(size), 1, -1):
            if size % a == 0:
                return cls(a, size // a)
        raise GridError(f"size {size} has no a×b block shape with a, b >= 2")

    @classmethod
    def parse(cls, text: str) -> "Shape":
        """Parse ``"AxB"`` (e.g. ``"2x3"``, block rows × block columns)."""
        parts = text.lower().replace("×", "x").split("x")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise GridError(f"block shape {text!r} is not of the form AxB, e.g. 2x3")
        a, b = (int(p) for p in parts)
        if a < 2 or b < 2:
            raise GridError(f"block shape {text!r}: both block dimensions must be at least 2")
        return cls(a, b)

    def __str__(self) -> str:
        return f"{self.box_rows}x{self.box_cols}"

    def block_of(self, row: int, col: int) -> int:
        """Block index (row-major) of a cell."""
        return (row // self.box_rows) * (self.size // self.box_cols) + col // self.box_cols

    def block_cells(self, block: int) -> list[tuple[int, int]]:
        """Cells of a block, row-major."""
        blocks_per_row = self.size // self.box_cols
        r0 = (block // blocks_per_row) * self.box_rows
        c0 = (block % blocks_per_row) * self.box_cols
        return [(r0 + r, c0 + c) for r in range(self.box_rows) for c in range(self.box_cols)]

    def block_index_array(self) -> np.ndarray:
        """``(N, N)`` array whose entry (r, c) is the block of cell (r, c)."""
        rows = np.arange(self.size)[:, None] // self.box_rows
        cols = np.arange(self.size)[None, :] // self.box_cols
        return rows * (self.size // self.box_cols) + cols

    def units(self) -> np.ndarray:
        """``(3N, N)`` array of flat cell indices (r·N + c): the N rows, N columns, N blocks.

        Cached per shape and read-only: checking answers calls it for every puzzle.
        """
        return _units(self)


@functools.lru_cache(maxsize=64)
def _units(shape: Shape) -> np.ndarray:
    n = shape.size
    idx = np.arange(n * n).reshape(n, n)
    blocks = np.array([[r * n + c for r, c in shape.block_cells(k)] for k in range(n)])
    units = np.concatenate([idx, idx.T, blocks])
    units.setflags(write=False)
    return units


def shape_for_cell_count(count: int, shape: Shape | None = None, where: str = "") -> Shape:
    """The shape whose grid has ``count`` cells, or an error naming the count."""
    if shape is not None:
        if count != shape.size ** 2:
            raise GridError(
                f"{where}{count} cells given, but a {shape.size}x{shape.size} grid "
                f"(blocks {shape}) needs {shape.size ** 2}")
        return shape
    n = math.isqrt(count)
    if n * n != count:
        raise GridError(f"{where}{count} cells is not a square number: not an N×N grid")
    try:
        return Shape.for_size(n)
    except GridError as exc:
        raise GridError(f"{where}{count} cells gives a {n}x{n} grid: {exc}") from None


class Grid:
    """An N×N Sudoku grid (a puzzle or a solution) with its block shape.

    ``values`` is an ``(N, N)`` int16 array, 0 for empty cells. Grids compare equal when shape
    and values agree, and are hashable (the array is kept read-only).
    """

    __slots__ = ("shape", "values")

    def __init__(self, values: np.ndarray | Iterable[Iterable[int]], shape: Shape | None = None):
        arr = np.array(values, dtype=np.int16)
        if arr.ndim == 1:
            shape = shape_for_cell_count(arr.size, shape)
            arr = arr.reshape(shape.size, shape.size)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise GridError(f"grid values must form an N×N array, got shape {arr.shape}")
        if arr.shape[0] > MAX_SIZE:
            raise GridError(f"size {arr.shape[0]} is larger than the supported maximum {MAX_SIZE}")
        if shape is None:
            shape = Shape.for_size(arr.shape[0])
        if arr.shape[0] != shape.size:
            raise GridError(f"a {arr.shape[0]}x{arr.shape[0]} grid does not fit blocks {shape}")
        if arr.size and (arr.min() < 0 or arr.max() > shape.size):
            bad = np.argwhere((arr < 0) | (arr > shape.size))[0]
            raise GridError(
                f"row {bad[0] + 1}, column {bad[1] + 1}: value {arr[bad[0], bad[1]]} is out of "
                f"range 1..{shape.size}")
        arr.setflags(write=False)
        self.values = arr
        self.shape = shape

    @classmethod
    def empty(cls, shape: Shape | int) -> "Grid":
        if isinstance(shape, int):
            shape = Shape.for_size(shape)
        return cls(np.zeros((shape.size, shape.size), dtype=np.int16), shape)

    @property
    def size(self) -> int:
        return self.shape.size

    def __getitem__(self, cell: tuple[int, int]) -> int:
        return int(self.values[cell])

    def clues(self) -> list[tuple[int, int, int]]:
        """The filled cells as (row, col, digit) triples, row-major."""
        rows, cols = np.nonzero(self.values)
        return [(int(r), int(c), int(self.values[r, c])) for r, c in zip(rows, cols)]

    def clue_count(self) -> int:
        return int(np.count_nonzero(self.values))

    def is_full(self) -> bool:
        return bool(np.all(self.values))

    def with_value(self, row: int, col: int, digit: int) -> "Grid":
        values = self.values.copy()
        values[row, col] = digit
        return Grid(values, self.shape)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Grid) and self.shape == other.shape
                and np.array_equal(self.values, other.values))

    def __hash__(self) -> int:
        return hash((self.shape, self.values.tobytes()))

    def __repr__(self) -> str:
        return f"Grid({format_grid(self, 'auto')!r}, shape={self.shape})"

    def __str__(self) -> str:
        return format_grid(self, "pretty")


def pattern_solution(shape: Shape, digits: "np.ndarray | None" = None) -> Grid:
    """A valid full grid for any block shape, by the shifted-rows pattern.

    Cell (r, c) holds ((r mod a)·b + r div a + c) mod N + 1: inside a band, row r mod a is the
    previous row shifted by b (so a block's rows hold disjoint runs of b digits); from band to
    band, rows shift by 1. ``digits`` (a permutation of 1..N) relabels the digits, which
    gives many distinct valid grids for tests and benchmarks.
    """
    n, a, b = shape.size, shape.box_rows, shape.box_cols
    r = np.arange(n)[:, None]
    c = np.arange(n)[None, :]
    values = ((r % a) * b + r // a + c) % n + 1
    if digits is not None:
        values = np.asarray(digits)[values - 1]
    return Grid(values, shape)


# ----------------------------------------------------------------------------- parsing

def symbol_value(ch: str, size: int | None = None) -> int:
    """Digit of a single-character symbol (0 for empty), or -1 when it is not a symbol."""
    if ch in EMPTY_CHARS:
        return 0
    idx = SYMBOLS.find(ch.upper())
    return idx + 1 if idx >= 0 else -1


def _parse_int_tokens(tokens: list[str], shape: Shape | None, where: str) -> Grid:
    shape = shape_for_cell_count(len(tokens), shape, where)
    values = []
    for pos, tok in enumerate(tokens):
        r, c = divmod(pos, shape.size)
        if tok == ".":
            values.append(0)
            continue
        if not tok.isdigit():
            raise GridError(f"{where}row {r + 1}, column {c + 1}: {tok!r} is not an integer")
        v = int(tok)
        if v > shape.size:
            raise GridError(
                f"{where}row {r + 1}, column {c + 1}: value {v} is out of range 1..{shape.size}")
        values.append(v)
    return Grid(values, shape)


def _parse_symbols(lines: list[str], count: int, shape: Shape | None, where: str) -> Grid:
    """The grid of single-character symbols in ``lines`` (``count`` of them, separators and
    spaces aside); the shape is checked before any per-character work."""
    shape = shape_for_cell_count(count, shape, where)
    if shape.size > len(SYMBOLS):
        raise GridError(
            f"{where}a {shape.size}x{shape.size} grid cannot be written with single-character "
            f"symbols (at most {len(SYMBOLS)}); use whitespace-separated integers")
    chars = [(ch, ln + 1, col + 1) for ln, line in enumerate(lines)
             for col, ch in enumerate(line)
             if not ch.isspace() and ch not in SEPARATOR_CHARS]
    values = []
    one_line = len({line for _, line, _ in chars}) == 1
    for pos, (ch, line, col) in enumerate(chars):
        v = symbol_value(ch)
        r, c = divmod(pos, shape.size)
        at_line = "" if one_line else f"line {line}, "
        place = f"{where}{at_line}character {col} (row {r + 1}, column {c + 1})"
        if v < 0:
            raise GridError(f"{place}: unknown symbol {ch!r}")
        if v > shape.size:
            raise GridError(
                f"{place}: symbol {ch!r} means {v}, out of range 1..{shape.size}")
        values.append(v)
    return Grid(values, shape)


def _looks_like_int_tokens(tokens: list[str]) -> bool:
    """Whitespace-separated integers: N² tokens, each an integer no wider than N, or '.'."""
    n = math.isqrt(len(tokens))
    if n < 4 or n * n != len(tokens):
        return False
    width = len(str(n))
    return all(t == "." or (t.isdigit() and len(t) <= width) for t in tokens) and any(
        len(t) > 1 for t in tokens)


def parse_grid(text: str, shape: Shape | None = None, where: str = "",
               check: bool = True) -> Grid:
    """Parse a puzzle or solution from text (see the module docstring for the formats).

    ``shape`` fixes the block shape (needed for non-default shapes such as 3×2); ``where`` is
    prefixed to error messages (e.g. ``"puzzles.txt line 4: "``). With ``check`` the clues are
    checked for repeats (:func:`check_clues`).
    """
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    if not any(line.strip() for line in lines):
        raise GridError(f"{where}empty input: no grid found")
    tokens = [tok for line in lines for tok in line.split()
              if not set(tok) <= SEPARATOR_CHARS]
    cleaned = [t.strip("|") for t in tokens]
    cleaned = [t for t in cleaned if t]
    if _looks_like_int_tokens(cleaned) or (shape is not None and shape.size > len(SYMBOLS)):
        grid = _parse_int_tokens(cleaned, shape, where)
    else:
        count = sum(len(tok) - sum(tok.count(sep) for sep in SEPARATOR_CHARS)
                    for tok in tokens)
        grid = _parse_symbols(lines, count, shape, where)
    if check:
        check_clues(grid, where)
    return grid


_SYMBOL_TABLE = np.full(256, 255, dtype=np.uint8)
_SYMBOL_TABLE[ord(".")] = _SYMBOL_TABLE[ord("0")] = 0
for _i, _ch in enumerate(SYMBOLS):
    _SYMBOL_TABLE[ord(_ch)] = _SYMBOL_TABLE[ord(_ch.lower())] = _i + 1


def clue_array_from_line(line: str | bytes, shape: Shape) -> np.ndarray | None:
    """Fast path for batches: a one-line puzzle as a flat uint8 array of N² clues.

    Returns None when the line is not a clean one-line puzzle of this shape (wrong length,
    unknown or out-of-range symbol); :func:`parse_grid` then gives the precise error. Repeated
    clues are not checked here (a solver finds them unsatisfiable; see :func:`check_clues`).
    """
    data = line.encode("latin-1", "replace") if isinstance(line, str) else line
    n = shape.size
    if len(data) != n * n or n > len(SYMBOLS):
        return None
    clues = _SYMBOL_TABLE[np.frombuffer(data, dtype=np.uint8)]
    if clues.max(initial=0) > n:
        return None
    return clues


def clue_rows(lines: list[str], shape: Shape) -> np.ndarray:
    """Many one-line grids of one shape at once (each exactly N² ASCII characters): a (K, N²)
    uint8 array of their digits, 0 for empty; a character that is no symbol becomes 255, so
    that the row passes no check of :func:`solve_checks`."""
    data = "".join(lines).encode("ascii")
    return _SYMBOL_TABLE[np.frombuffer(data, dtype=np.uint8)].reshape(len(lines), -1)


# ----------------------------------------------------------------------------- printing

def format_grid(grid: Grid, style: str = "line") -> str:
    """Text of a grid.

    ``line``: one line of N² symbols, ``.`` for empty (single-character symbols, N ≤ 35);
    ``pretty``: rows on lines with block separators; ``ints``: whitespace-separated integers,
    one row per line; ``auto``: ``line`` when N ≤ 35, else ``ints``.
    """
    n = grid.size
    if style == "auto":
        style = "line" if n <= len(SYMBOLS) else "ints"
    if style == "ints":
        width = len(str(n))
        return "\n".join(" ".join(f"{v:>{width}}" for v in row) for row in grid.values.tolist())
    if n > len(SYMBOLS):
        raise GridError(f"a {n}x{n} grid has no single-character form; use the 'ints' style")
    chars = np.array(["."] + list(SYMBOLS[:n]))[grid.values]
    if style == "line":
        return "".join(chars.ravel())
    if style != "pretty":
        raise ValueError(f"unknown grid style {style!r}")
    a, b = grid.shape.box_rows, grid.shape.box_cols
    out = []
    rule = "+".join(["-" * (2 * b + 1)] * (n // b))
    for r in range(n):
        if r and r % a == 0:
            out.append(rule)
        parts = [" ".join(chars[r, c0:c0 + b]) for c0 in range(0, n, b)]
        out.append(" " + " | ".join(parts))
    return "\n".join(out)


# ----------------------------------------------------------------------------- checking

_UNIT_KINDS = ("row", "column", "block")


def _describe_unit(shape: Shape, unit: int) -> str:
    kind, index = divmod(unit, shape.size)
    return f"{_UNIT_KINDS[kind]} {index + 1}"


def _cell_name(shape: Shape, flat: int) -> str:
    r, c = divmod(flat, shape.size)
    return f"({r + 1},{c + 1})"


def clue_exclusions(puzzle: Grid) -> np.ndarray:
    """``(N, N, N)`` bools: [r, c, d−1] when a clue with digit d sits in the row, column or
    block of cell (r, c) — so d cannot go there (clue cells included; the reductions that
    eliminate clues start from this)."""
    n = puzzle.shape.size
    rows, cols = np.nonzero(puzzle.values)
    digits = puzzle.values[rows, cols].astype(np.int64) - 1
    blocks = puzzle.shape.block_index_array()
    in_row = np.zeros((n, n), dtype=bool)
    in_col = np.zeros((n, n), dtype=bool)
    in_block = np.zeros((n, n), dtype=bool)
    in_row[rows, digits] = True
    in_col[cols, digits] = True
    in_block[blocks[rows, cols], digits] = True
    return in_row[:, None, :] | in_col[None, :, :] | in_block[blocks]


def clue_conflicts(grid: Grid) -> list[str]:
    """Repeated digits among the filled cells: one message per (unit, digit) repeat."""
    units = grid.shape.units()
    flat = grid.values.ravel()
    problems = []
    for u, cells in enumerate(units):
        vals = flat[cells]
        filled = vals[vals > 0]
        if filled.size == len(set(filled.tolist())):   # not np.unique: it imports numpy.ma
            continue
        for d in np.unique(filled):
            where = cells[vals == d]
            if where.size > 1:
                names = " and ".join(_cell_name(grid.shape, int(c)) for c in where)
                problems.append(
                    f"{_describe_unit(grid.shape, u)} has two {d}s, at cells {names}")
    return problems


def check_clues(grid: Grid, where: str = "") -> None:
    """Raise :class:`GridError` when a digit repeats in a row, column or block."""
    problems = clue_conflicts(grid)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise GridError(f"{where}contradictory clues: {problems[0]}{more}")


def solution_problems(puzzle: Grid, solution: Grid) -> list[str]:
    """Everything wrong with ``solution`` as an answer to ``puzzle``; empty when it is right."""
    if solution.shape != puzzle.shape:
        return [f"solution has shape {solution.size}x{solution.size} blocks {solution.shape}, "
                f"puzzle has {puzzle.size}x{puzzle.size} blocks {puzzle.shape}"]
    problems = []
    empty = np.argwhere(solution.values == 0)
    if empty.size:
        r, c = empty[0]
        problems.append(f"cell ({r + 1},{c + 1}) is empty ({len(empty)} empty cells)")
    given = puzzle.values != 0
    changed = np.argwhere(given & (solution.values != puzzle.values))
    for r, c in changed[:3]:
        problems.append(f"cell ({r + 1},{c + 1}) holds {solution.values[r, c]} but the "
                        f"puzzle gives {puzzle.values[r, c]}")
    problems.extend(clue_conflicts(solution))
    return problems


def check_solution(puzzle: Grid, solution: Grid) -> bool:
    """True when ``solution`` is a full valid grid agreeing with every clue of ``puzzle``."""
    if solution.shape != puzzle.shape:
        return False
    return solves_clues(puzzle.values.ravel(), solution.values.ravel(), puzzle.shape)


def solves_clues(clues: np.ndarray, values: np.ndarray, shape: Shape) -> bool:
    """:func:`check_solution` on flat arrays (N² entries, row-major)."""
    return bool(solve_checks(clues[None, :], values[None, :], shape)[0])


def solve_checks(clues: np.ndarray, values: np.ndarray, shape: Shape) -> np.ndarray:
    """Check K answers at once: ``clues`` and ``values`` are (K, N²) arrays; returns K bools.

    Each unit must hold every digit 1..N exactly once, and every clue must be kept. For
    N ≤ 62 units are tested with bit masks: N powers of two sum to 2 + 4 + … + 2^N only when
    they are all distinct (a repeat would carry and leave fewer than N one-bits), so one sum
    per unit decides it. One vectorised pass over a whole batch costs a few microseconds per
    9×9 grid, which is what lets the batch path verify every answer for free.
    """
    clues = np.asarray(clues)
    values = np.asarray(values)
    n = shape.size
    keeps_clues = np.all((clues == 0) | (values == clues), axis=1)
    units = values[:, shape.units()].astype(np.int64)        # (K, 3N, N)
    in_range = np.all((units >= 1) & (units <= n), axis=(1, 2))
    if n <= 62:
        full = (1 << (n + 1)) - 2
        masks = np.left_shift(1, np.clip(units, 0, 63)).sum(axis=2)
        units_ok = np.all(masks == full, axis=1)
    else:
        units_ok = np.all(np.sort(units, axis=2) == np.arange(1, n + 1), axis=(1, 2))
    return keeps_clues & in_range & units_ok
