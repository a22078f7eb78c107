"""Sudoku → CNF (SAT), the encodings of Lynce & Ouaknine (2006) and Kwon & Jain (2006).

Variables. ``x(r, c, d)`` is true when digit d is in cell (r, c); for 0-based r, c and digit
d in 1..N it is variable ``r·N² + c·N + d`` (so variables 1..N³ are the grid, in row-major
cell order, digits innermost). Auxiliary variables of the at-most-one encodings come after N³,
allocated by pysat's ``IDPool``.

Constraints come in four kinds of *groups* of N variables each: a cell (its N digits), a
row-digit (digit d in the N cells of row r), a column-digit and a block-digit. A solution
makes exactly one variable of every group true.

* ``minimal`` encoding: at-least-one per cell, at-most-one per row-, column- and block-digit.
  Enough, by counting: N² cells each need ≥ 1 digit, and each digit fits ≤ N times.
  Pairwise size: N² + 3·N³(N−1)/2 clauses (9×9: 8,829).
* ``extended`` encoding: at-least-one and at-most-one for all four kinds (more propagation).
  Pairwise size: 4N² + 2·N³(N−1) clauses (9×9: 11,988, of which 1,458 repeat: a pair of cells
  in one row and one block is excluded twice; the repeats are kept so the counts match the
  literature).

At-most-one constraints go through ``pysat.card.CardEnc``: ``pairwise`` (no extra variables,
N(N−1)/2 clauses per group; the default up to N = 16), ``seqcounter`` (Sinz 2005; N−1 extra
variables, 3N−4 clauses per group; the default above 16 — extended size 12N²(N−1) clauses and
N³ + 4N²(N−1) variables), ``ladder``, ``bitwise`` or ``totalizer``.

Clues, two ways:

* ``units``: one unit clause per clue; the formula is the same for every puzzle of a shape
  (this is what lets one incremental solver serve many puzzles, clues as assumptions);
* ``eliminate`` (Kwon & Jain's optimized encoding): every clue fixes its variable true, the
  other digits of its cell and its digit in every peer cell false; clauses satisfied by a
  fixed literal are dropped, false literals removed, and the remaining variables renumbered
  1..K. The map from new to original numbers is kept (``var_map``) and is re-derived from the
  puzzle and the encoding alone, so a model of a written file can be decoded from its
  comments. An empty clause after elimination proves the puzzle has no solution.

Forward map: :func:`assignment_from_grid` (a solved grid → a satisfying assignment, extended
to auxiliary variables by :func:`complete_assignment`). Extraction: :func:`grid_from_model`.
All three as a :class:`~reductions.reduction.ReductionRule`: :class:`SudokuToCnf`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from ..errors import UserError
from ..estimate import Estimate
from ..sudoku.grid import Grid, Shape, clue_exclusions
from ..sudoku.puzzle_record import CNF_SPELLING, PuzzleRecord
from ..reduction import SolvesPuzzle, checked_grid

class Encoding(enum.StrEnum):
    """Which clauses (Lynce & Ouaknine): the minimal or the extended encoding."""

    MINIMAL = "minimal"
    EXTENDED = "extended"


class AtMostOne(enum.StrEnum):
    """How "at most one" is written (pysat's ``CardEnc`` encodings)."""

    PAIRWISE = "pairwise"
    SEQCOUNTER = "seqcounter"
    LADDER = "ladder"
    BITWISE = "bitwise"
    TOTALIZER = "totalizer"


class CnfClues(enum.StrEnum):
    """Clues as unit clauses, or eliminated from the formula (Kwon & Jain)."""

    UNITS = "units"
    ELIMINATE = "eliminate"


ENCODINGS = tuple(Encoding)
DEFAULT_ENCODING = Encoding.EXTENDED.value
"""The encoding every builder, route and certificate uses unless told otherwise."""
DEFAULT_AMO = "auto"
"""At-most-one written pairwise for small digit counts, else by a counter (:func:`resolve_amo`)."""
AMO_ENCODINGS = {AtMostOne.PAIRWISE: EncType.pairwise, AtMostOne.SEQCOUNTER: EncType.seqcounter,
                 AtMostOne.LADDER: EncType.ladder, AtMostOne.BITWISE: EncType.bitwise,
                 AtMostOne.TOTALIZER: EncType.totalizer}
CLUE_MODES = tuple(CnfClues)
PAIRWISE_MAX_N = 16
"""Largest N for which the ``auto`` at-most-one choice is pairwise (N=25 pairwise has 3.8 M
clauses, N=64 33 M; the sequential counter grows as N³ instead of N⁴)."""


class CnfError(UserError):
    """An impossible encoding request or an undecodable model."""


RECORD_KEYS = ("encoding", "amo", "clues")
"""The settings a CNF file's comments record (:class:`~reductions.sudoku.puzzle_record.PuzzleRecord`),
in the order written, between the shape and the puzzle."""


# ----------------------------------------------------------------------------- groups

def grid_variables(shape: Shape) -> np.ndarray:
    """``(N, N, N)`` array: entry [r, c, d-1] is the variable of digit d in cell (r, c)."""
    n = shape.size
    return np.arange(1, n ** 3 + 1, dtype=np.int64).reshape(n, n, n)


def constraint_groups(shape: Shape) -> dict[str, np.ndarray]:
    """The four kinds of groups as ``(N², N)`` arrays of variables.

    ``cell`` rows are indexed r·N + c; ``row``/``column``/``block`` rows are indexed
    (unit·N + d − 1), each row listing the N candidate positions of digit d in that unit.
    """
    n = shape.size
    v = grid_variables(shape)
    by_cell = v.reshape(n * n, n)                           # [cell, digit]
    blocks = shape.units()[2 * n:]                          # [block, k] -> flat cell
    return {
        "cell": by_cell,
        "row": v.transpose(0, 2, 1).reshape(n * n, n),      # [r, d, c]
        "column": v.transpose(1, 2, 0).reshape(n * n, n),   # [c, d, r]
        "block": by_cell[blocks].transpose(0, 2, 1).reshape(n * n, n),  # [b, d, k]
    }


def resolve_amo(amo: str, n: int) -> str:
    if amo == "auto":
        return "pairwise" if n <= PAIRWISE_MAX_N else "seqcounter"
    if amo not in AMO_ENCODINGS:
        raise CnfError(f"unknown at-most-one encoding {amo!r}; choose auto or one of "
                       f"{', '.join(AMO_ENCODINGS)}")
    return amo


def _pairwise_block(groups: np.ndarray) -> np.ndarray:
    """All clauses (¬a ∨ ¬b) for pairs a < b inside each group, as an (m, 2) array."""
    i, j = np.triu_indices(groups.shape[1], k=1)
    return np.stack([-groups[:, i], -groups[:, j]], axis=-1).reshape(-1, 2)


def _take_ids(pool: IDPool, grid_top: int, count: int) -> int:
    """Reserve ``count`` consecutive auxiliary variables after the grid's and those the pool
    gave already, as pysat's ``CardEnc`` would draw them one by one; returns the first."""
    first = max(pool.top, grid_top) + 1
    pool.top = first + count - 1          # the occupied grid range lies below: never reused
    return first


def _seqcounter_block(groups: np.ndarray, first_aux: int) -> np.ndarray:
    """Sinz's sequential counter (at most one) for each row of ``groups`` (G, n), n ≥ 3, as
    a (G·(3n−4), 2) array: the same clauses, in the same order and with the same auxiliary
    numbers as ``CardEnc.atmost(group, 1, encoding=seqcounter)`` called group after group
    (``s_1 .. s_{n−1}`` of group g are ``first_aux + g(n−1) + 0 .. n−2``), built at once.

    Per group: (¬x1 ∨ s1); for i = 2..n−1: (¬s_{i−1} ∨ s_i), (¬x_i ∨ ¬s_{i−1}),
    (¬x_i ∨ s_i); then (¬x_n ∨ ¬s_{n−1})."""
    g, n = groups.shape
    s = first_aux + np.arange(g * (n - 1), dtype=np.int64).reshape(g, n - 1)
    x = groups.astype(np.int64)
    middle = np.stack([np.stack([-s[:, :-1], s[:, 1:]], axis=-1),
                       np.stack([-x[:, 1:-1], -s[:, :-1]], axis=-1),
                       np.stack([-x[:, 1:-1], s[:, 1:]], axis=-1)], axis=2)   # (g, n-2, 3, 2)
    return np.concatenate([np.stack([-x[:, 0], s[:, 0]], axis=-1)[:, None],
                           middle.reshape(g, 3 * (n - 2), 2),
                           np.stack([-x[:, -1], -s[:, -1]], axis=-1)[:, None]],
                          axis=1).reshape(-1, 2)


def encoding_blocks(shape: Shape, encoding: str = DEFAULT_ENCODING, amo: str = DEFAULT_AMO,
                    pool: IDPool | None = None) -> Iterator[np.ndarray | list[list[int]]]:
    """The rule clauses (no clues), in blocks: 2-D arrays for fixed-width clauses, lists
    otherwise. Auxiliary variables are drawn from ``pool`` (made fresh if not given)."""
    if encoding not in ENCODINGS:
        raise CnfError(f"unknown encoding {encoding!r}; choose {' or '.join(ENCODINGS)}")
    n = shape.size
    amo = resolve_amo(amo, n)
    pool = pool or IDPool(occupied=[[1, n ** 3]])
    groups = constraint_groups(shape)
    alo_kinds = ("cell",) if encoding == "minimal" else ("cell", "row", "column", "block")
    amo_kinds = ("row", "column", "block") if encoding == "minimal" else alo_kinds
    for kind in alo_kinds:
        yield groups[kind]
    for kind in amo_kinds:
        if amo == "pairwise":
            yield _pairwise_block(groups[kind])
        elif amo == "seqcounter" and n >= 3:
            for start in range(0, n * n, 256):
                chunk = groups[kind][start:start + 256]
                yield _seqcounter_block(chunk, _take_ids(pool, n ** 3, len(chunk) * (n - 1)))
        else:
            enc = AMO_ENCODINGS[amo]
            for start in range(0, n * n, 256):
                block: list[list[int]] = []
                for group in groups[kind][start:start + 256].tolist():
                    block.extend(CardEnc.atmost(group, 1, vpool=pool, encoding=enc).clauses)
                yield block


def expected_size(shape: Shape, encoding: str, amo: str) -> tuple[int, int] | None:
    """(variables, clauses) of the rule clauses by formula, where one is known."""
    n = shape.size
    amo = resolve_amo(amo, n)
    kinds_alo = 1 if encoding == "minimal" else 4
    kinds_amo = 3 if encoding == "minimal" else 4
    groups_amo = kinds_amo * n * n
    if amo == "pairwise":
        return n ** 3, kinds_alo * n * n + groups_amo * n * (n - 1) // 2
    if amo == "seqcounter":
        return n ** 3 + groups_amo * (n - 1), kinds_alo * n * n + groups_amo * (3 * n - 4)
    return None


# ----------------------------------------------------------------------------- clues

def fixed_values(puzzle: Grid) -> np.ndarray:
    """Value of every grid variable implied directly by the clues: +1 true, −1 false, 0 free.

    Index 0 is unused; index v is variable v. A clue fixes its own variable true, the other
    digits of its cell false, and its digit false in every cell of its row, column and block.
    """
    shape = puzzle.shape
    n = shape.size
    val = np.zeros((n, n, n), dtype=np.int8)                # [r, c, d-1]
    clues = puzzle.values
    rows, cols = np.nonzero(clues)
    digits = clues[rows, cols].astype(np.int64) - 1
    val[clue_exclusions(puzzle)] = -1
    val[rows, cols, :] = -1
    val[rows, cols, digits] = 1
    return np.concatenate([[0], val.ravel()])


class _GrowingValues:
    """Clue-implied values indexed by variable; auxiliary variables (created while the
    encoding is generated, after this table) read as 0, i.e. free."""

    def __init__(self, fixed: np.ndarray):
        self.fixed = fixed

    def __getitem__(self, index):
        if isinstance(index, np.ndarray):
            out = np.zeros(index.shape, dtype=np.int8)
            inside = index < self.fixed.size
            out[inside] = self.fixed[index[inside]]
            return out
        return int(self.fixed[index]) if index < self.fixed.size else 0


def _eliminate(blocks: Iterable[np.ndarray | list[list[int]]], value: np.ndarray
               ) -> tuple[list[list[int]], bool]:
    """Drop satisfied clauses and false literals. Returns (clauses, has_empty_clause)."""
    out: list[list[int]] = []
    empty = False
    for block in blocks:
        if isinstance(block, np.ndarray):
            lits = block
            lit_val = value[np.abs(lits)] * np.sign(lits)
            keep_rows = ~np.any(lit_val == 1, axis=1)
            for clause, vals in zip(lits[keep_rows].tolist(), lit_val[keep_rows].tolist()):
                reduced = [lit for lit, lv in zip(clause, vals) if lv == 0]
                empty |= not reduced
                out.append(reduced)
        else:
            for clause in block:
                vals = [value[abs(lit)] * (1 if lit > 0 else -1) for lit in clause]
                if 1 in vals:
                    continue
                reduced = [lit for lit, lv in zip(clause, vals) if lv == 0]
                empty |= not reduced
                out.append(reduced)
    return out, empty


# ----------------------------------------------------------------------------- the formula

@dataclass
class SudokuCnf:
    """A puzzle's CNF, in the final numbering (variables 1..num_vars).

    ``units`` mode keeps no clause list: :meth:`clause_blocks` regenerates the rule clauses
    block by block each time it is iterated (they depend only on the shape and the encoding),
    so a 64×64 formula of 3 M clauses streams to a file in a few MB of memory.

    ``eliminate`` mode holds the reduced ``clauses``; ``var_map[k]`` is the original variable
    of new variable k (``var_map[0]`` unused) and ``fixed`` the clue-implied values of the
    original grid variables (see :func:`fixed_values`).
    """

    puzzle: Grid
    encoding: str
    amo: str
    clue_mode: str
    num_vars: int
    rule_clause_count: int
    clauses: list[list[int]] | None = None
    var_map: np.ndarray | None = None
    fixed: np.ndarray | None = None
    contradiction: bool = False

    @property
    def shape(self) -> Shape:
        return self.puzzle.shape

    def clause_blocks(self) -> Iterator[np.ndarray | list[list[int]]]:
        """The clauses in blocks, for streaming writers (no flat list is built)."""
        if self.clauses is not None:
            yield self.clauses
            return
        yield from encoding_blocks(self.shape, self.encoding, self.amo)
        yield [[v] for v in clue_literals(self.puzzle)]

    def iter_clauses(self) -> Iterator[list[int]]:
        for block in self.clause_blocks():
            yield from (block.tolist() if isinstance(block, np.ndarray) else block)

    @property
    def num_clauses(self) -> int:
        if self.clauses is not None:
            return len(self.clauses)
        return self.rule_clause_count + self.puzzle.clue_count()

    def record(self) -> PuzzleRecord:
        """Which puzzle the formula is about, with the settings that rebuild it."""
        return PuzzleRecord(self.puzzle, tuple(zip(RECORD_KEYS, (self.encoding, self.amo,
                                                                 self.clue_mode))))

    def metadata(self) -> list[str]:
        """DIMACS comment lines from which the formula (and a model's grid) is re-derived."""
        n = self.shape.size
        lines = ["sudoku-bridge cnf", *self.record().comments(CNF_SPELLING),
                 f"grid-variables x(r,c,d) = r*{n * n} + c*{n} + d for 0-based row r, column c "
                 f"and digit d in 1..{n}" + (" (before renumbering)"
                                             if self.clue_mode == "eliminate" else "")]
        if self.contradiction:
            lines.append("contradiction the clues leave an empty clause: no solution")
        return lines


def clue_literals(puzzle: Grid) -> list[int]:
    n = puzzle.size
    return [r * n * n + c * n + d for r, c, d in puzzle.clues()]


def sudoku_cnf(puzzle: Grid, encoding: str = DEFAULT_ENCODING, amo: str = DEFAULT_AMO,
               clue_mode: str = "units") -> SudokuCnf:
    """Build the CNF of a puzzle (see the module docstring).

    In ``units`` mode the rule clauses are generated lazily, block by block, whenever
    ``clause_blocks`` is iterated; in ``eliminate`` mode the reduced clause list is
    materialised (it is what remains after the clues, usually small).
    """
    if clue_mode not in CLUE_MODES:
        raise CnfError(f"unknown clue mode {clue_mode!r}; choose units or eliminate")
    if encoding not in ENCODINGS:
        raise CnfError(f"unknown encoding {encoding!r}; choose {' or '.join(ENCODINGS)}")
    shape = puzzle.shape
    n = shape.size
    amo = resolve_amo(amo, n)
    if clue_mode == "units":
        size = expected_size(shape, encoding, amo)
        if size is None:                  # no closed formula: generate once to count
            pool = IDPool(occupied=[[1, n ** 3]])
            count = sum(len(b) for b in encoding_blocks(shape, encoding, amo, pool))
            size = (max(pool.top, n ** 3), count)
        return SudokuCnf(puzzle, encoding, amo, clue_mode, num_vars=size[0],
                         rule_clause_count=size[1])
    pool = IDPool(occupied=[[1, n ** 3]])
    fixed = fixed_values(puzzle)
    reduced, contradiction = _eliminate(encoding_blocks(shape, encoding, amo, pool),
                                        _GrowingValues(fixed))
    top = max(pool.top, n ** 3)
    used = np.zeros(top + 1, dtype=bool)
    for clause in reduced:
        used[[abs(lit) for lit in clause]] = True
    var_map = np.flatnonzero(used)                          # sorted original ids
    new_id = np.zeros(top + 1, dtype=np.int64)
    new_id[var_map] = np.arange(1, var_map.size + 1)
    renumbered = [[int(new_id[lit]) if lit > 0 else -int(new_id[-lit]) for lit in clause]
                  for clause in reduced]
    return SudokuCnf(puzzle, encoding, amo, clue_mode, num_vars=int(var_map.size),
                     rule_clause_count=len(reduced), clauses=renumbered,
                     var_map=np.concatenate([[0], var_map]), fixed=fixed,
                     contradiction=contradiction)


# ----------------------------------------------------------------------------- decode

def model_values(model: Iterable[int], num_vars: int) -> np.ndarray:
    """Signed literals → array ``val`` with val[v] = +1 / −1 / 0 (not mentioned)."""
    lits = np.fromiter(model, dtype=np.int64)
    if lits.size and (np.abs(lits).max() > num_vars or np.any(lits == 0)):
        bad = lits[(np.abs(lits) > num_vars) | (lits == 0)][0]
        raise CnfError(f"model literal {bad} is outside variables 1..{num_vars}")
    val = np.zeros(num_vars + 1, dtype=np.int8)
    val[np.abs(lits)] = np.sign(lits)
    return val


def grid_from_model(cnf: SudokuCnf, model: Iterable[int]) -> Grid:
    """Extraction: the grid a model describes (clue-fixed values filled in).

    Raises :class:`CnfError` when a cell has no true digit or more than one.
    """
    shape = cnf.shape
    n = shape.size
    val = model_values(model, cnf.num_vars)
    if cnf.clue_mode == "eliminate":
        grid_val = cnf.fixed[1:].copy()
        mapped = cnf.var_map[1:]
        is_grid = mapped <= n ** 3
        grid_val[mapped[is_grid] - 1] = val[1:][is_grid]
    else:
        grid_val = val[1: n ** 3 + 1]
    return grid_from_truth(shape, grid_val > 0)


def model_digits(models: np.ndarray, n: int) -> np.ndarray:
    """The digits of models of the N×N rules (the first N³ literals of each, in the last
    axis): one digit per cell, N² entries a model, 0 for a cell with no true digit or
    several."""
    truth = np.asarray(models)[..., :n ** 3].reshape(*np.shape(models)[:-1], n * n, n) > 0
    digits = (truth.argmax(axis=-1) + 1).astype(np.uint8)
    digits[truth.sum(axis=-1) != 1] = 0
    return digits


def grid_from_truth(shape: Shape, truth: np.ndarray) -> Grid:
    """Grid from the N³ truth values of the grid variables (in variable order)."""
    n = shape.size
    t = np.asarray(truth, dtype=bool).reshape(n, n, n)
    counts = t.sum(axis=2)
    if np.any(counts != 1):
        r, c = np.argwhere(counts != 1)[0]
        raise CnfError(f"model gives cell ({r + 1},{c + 1}) {counts[r, c]} digits; "
                       f"a solution gives exactly one")
    return Grid(t.argmax(axis=2) + 1, shape)


def assignment_from_grid(cnf: SudokuCnf, grid: Grid) -> dict[int, bool]:
    """Forward map: a solved grid → the values of the formula's grid variables (in the
    formula's numbering). Auxiliary variables are left out; see :func:`complete_assignment`."""
    n = grid.size
    truth = np.zeros(n ** 3 + 1, dtype=bool)
    truth[1:] = (grid.values[:, :, None] == np.arange(1, n + 1)).ravel()
    if cnf.clue_mode == "eliminate":
        original = cnf.var_map[1:]
        return {k + 1: bool(truth[v]) for k, v in enumerate(original.tolist()) if v <= n ** 3}
    return {v: bool(truth[v]) for v in range(1, n ** 3 + 1)}


def complete_assignment(clauses: Sequence[Sequence[int]], partial: dict[int, bool],
                        num_vars: int) -> dict[int, bool] | None:
    """Extend ``partial`` by unit propagation, unassigned variables false; return the full
    assignment if it satisfies every clause, else None.

    For the at-most-one encodings here, fixing the grid variables determines the auxiliary
    ones by propagation (the counters' outputs), so this completes a forward-mapped solution.
    """
    value = dict(partial)
    changed = True
    while changed:
        changed = False
        for clause in clauses:
            unassigned = [l for l in clause if abs(l) not in value]
            if any(value.get(abs(l)) == (l > 0) for l in clause if abs(l) in value):
                continue
            if len(unassigned) == 1:
                lit = unassigned[0]
                value[abs(lit)] = lit > 0
                changed = True
    full = {v: value.get(v, False) for v in range(1, num_vars + 1)}
    ok = all(any(full[abs(l)] == (l > 0) for l in clause) for clause in clauses)
    return full if ok else None


def cnf_from_metadata(meta: dict[str, str]) -> SudokuCnf:
    """Rebuild the formula described by a DIMACS file's comments (see ``metadata``)."""
    return sudoku_cnf(*cnf_recipe(meta))


def cnf_recipe(meta: dict[str, str]) -> tuple[Grid, str, str, str]:
    """(puzzle, encoding, at-most-one, clue mode) from a DIMACS file's comments: what
    :func:`sudoku_cnf` builds the formula from (a caller can size it first)."""
    record = PuzzleRecord.from_metadata(meta, CNF_SPELLING, RECORD_KEYS, where="CNF",
                                        error=CnfError)
    return (record.puzzle, record.setting("encoding"), record.setting("amo"),
            record.setting("clues"))


# ----------------------------------------------------------------------------- the rule

@dataclass(frozen=True)
class SudokuToCnf(SolvesPuzzle):
    """Sudoku → CNF as a :class:`~reductions.reduction.ReductionRule` (Lynce & Ouaknine 2006,
    §3; Kwon & Jain 2006 for ``clue_mode="eliminate"``).

    Witness: a model, the tuple of signed literals of variables 1..num_vars (DIMACS ``v``
    order). Size formula (``units``, pairwise at-most-one): N³ variables and
    N² + 3·N³(N−1)/2 (minimal) or 4N² + 2·N³(N−1) (extended) rule clauses, plus one unit
    clause per clue; sequential counter: 3N − 4 clauses and N − 1 variables per group
    (:func:`expected_size`). Other at-most-one encodings and ``eliminate`` have no closed
    formula: only what is known is predicted.
    """

    target: SudokuCnf

    @classmethod
    def build(cls, puzzle: Grid, *, encoding: str = DEFAULT_ENCODING, amo: str = DEFAULT_AMO,
              clue_mode: str = "units") -> "SudokuToCnf":
        """The CNF of ``puzzle`` (:func:`sudoku_cnf`; options as there)."""
        return cls(puzzle, sudoku_cnf(puzzle, encoding, amo, clue_mode))

    def expected_size(self) -> dict[str, int]:
        cnf = self.target
        size = expected_size(self.source.shape, cnf.encoding, cnf.amo)
        if size is None or cnf.clue_mode != "units":
            return {}
        return {"variables": size[0], "clauses": size[1] + self.source.clue_count()}

    def actual_size(self) -> dict[str, int]:
        return {"variables": self.target.num_vars,
                "clauses": sum(len(block) for block in self.target.clause_blocks())}

    def forward(self, solution: Grid) -> tuple[int, ...]:
        """The model of a solved grid: :func:`assignment_from_grid`, completed to the
        auxiliary variables by :func:`complete_assignment` (which checks every clause)."""
        checked_grid(self.source, solution, CnfError)
        cnf = self.target
        full = complete_assignment(list(cnf.iter_clauses()),
                                   assignment_from_grid(cnf, solution), cnf.num_vars)
        if full is None:
            raise CnfError("bug: the grid's assignment leaves a clause false")
        return tuple(v if full[v] else -v for v in range(1, cnf.num_vars + 1))

    def decode(self, witness: Iterable[int]) -> Grid:
        """The grid of a model (:func:`grid_from_model`), not checked against the puzzle."""
        return grid_from_model(self.target, witness)

    def decode_rows(self, models: np.ndarray) -> np.ndarray:
        """:meth:`decode` of K models at once, for a kept solver's batch (``units`` mode,
        the clues assumed): ``(K, ≥N³)`` literals → ``(K, N²)`` digits (:func:`model_digits`).
        No Grid objects and no per-cell error: a cell without exactly one true digit reads
        0 (empty), which the batch's check (:func:`~reductions.sudoku.grid.solve_checks`,
        the check :meth:`problems` runs) refuses."""
        if self.target.clue_mode != "units":
            raise CnfError("decode_rows reads the grid variables of a units-mode formula")
        return model_digits(models, self.source.size)

    def extract(self, witness: Sequence[int]) -> Grid:
        """The grid of a model (:meth:`decode`), checked against the puzzle."""
        return checked_grid(self.source, self.decode(witness), CnfError)

    @classmethod
    def estimate(cls, shape: Shape, **options) -> Estimate:
        """What building (``solve``: and loading into pysat) the CNF of an N×N puzzle
        takes (:func:`reductions.encodings.sizes.cnf_estimate`; options as there)."""
        from .sizes import cnf_estimate         # sizes reads this module's formulas
        return cnf_estimate(shape, **options)
