"""Which puzzle a written file is about: one record, written into a file's header and read back.

Every instance file written here — a DIMACS CNF, Knuth's exact-cover format, an LP or MPS
model, the JSON sidecar of an exported graph — records the puzzle it was built from and the
settings of its reduction (clue mode, encoding...), so that a solver's answer can be decoded
from the file alone: every reduction is deterministic, so the record *is* the instance.
:class:`PuzzleRecord` is that record, and every format writes and reads it here.

Comment headers. The record is a few ``key value`` lines — ``shape``, the settings in order,
then ``puzzle`` — behind the format's comment prefix (``c`` DIMACS, ``|`` dlx, ``\\`` LP,
``*`` MPS; :func:`prefixed`). The formats spell it in one of two ways (:class:`Spelling`),
fixed by the files already written, which must stay readable and byte-for-byte the same:

* :data:`CNF_SPELLING`: ``shape N A B`` and the whole puzzle on one ``puzzle`` line (numbers
  padded to one width beyond 35×35);
* :data:`MODEL_SPELLING` (dlx, LP, MPS): ``shape AxB`` and ``puzzle TEXT`` — or, when the
  text is longer than the line width the format allows, one ``puzzle-row R TEXT`` line per
  grid row, a long row continued on further lines with the same R (fixed MPS allows 80
  characters a line; CBC fails on lines of about 1,000).

Reading back (:func:`comment_metadata`, then :meth:`PuzzleRecord.from_metadata`) re-verifies
what it reads: every key present, the shape well formed (and, spelled ``N A B``, consistent),
the puzzle a grid of that shape; each failure is a one-line error of the caller's class
naming the file. A format then checks its body against the instance the record rebuilds (a
changed file is refused). :func:`read_comment_header` reads the comment lines at the top of a
file through :mod:`reductions.reading` (bounded, compressed or not).

JSON: the sidecar of a graph file holds the same record as fields ``puzzle``, ``size`` and
``box`` (:meth:`PuzzleRecord.json_fields`, :meth:`PuzzleRecord.from_json_fields`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from ..errors import UserError
from .grid import MAX_GRID_TEXT, MAX_SIZE, SYMBOLS, Grid, GridError, Shape, format_grid, parse_grid
from ..reading import ReadLimit, read_lines

__all__ = ["CNF_SPELLING", "COMMENT_WIDTH", "MODEL_SPELLING", "PuzzleRecord", "Spelling",
           "comment_metadata", "prefixed", "puzzle_comment_lines", "puzzle_text",
           "read_comment_header"]

COMMENT_WIDTH = 200
"""Longest puzzle comment written on one line (:data:`MODEL_SPELLING`). CBC's MPS reader
fails on lines of about 1,000 characters, so larger puzzles are written one grid row per
comment line."""


@dataclass(frozen=True)
class Spelling:
    """How a family of formats spells the record (see the module docstring).

    ``numbered_shape``: ``shape N A B`` (else ``shape AxB``); ``one_line``: the puzzle in
    :func:`~reductions.sudoku.grid.format_grid`'s ``auto`` style on one line (else
    :func:`puzzle_comment_lines`); ``check_clues``: a puzzle read back must not repeat a digit
    in a unit; ``missing``: the error when a key is missing or unreadable (``{where}``,
    ``{key}``); ``puzzle_where``: what a puzzle error starts with (``{where}``)."""

    numbered_shape: bool
    one_line: bool
    check_clues: bool
    missing: str
    puzzle_where: str


CNF_SPELLING = Spelling(
    numbered_shape=True, one_line=True, check_clues=True,
    missing="the CNF file has no sudoku-bridge comments (c shape/encoding/amo/clues/puzzle); "
            "it was not written by sudoku-bridge emit cnf",
    puzzle_where="CNF comment 'puzzle': ")
"""DIMACS CNF files (``c`` comments)."""

MODEL_SPELLING = Spelling(
    numbered_shape=False, one_line=False, check_clues=False,
    missing="{where}: no '{key} ...' comment line: not written by sudoku-bridge's emit, "
            "cannot be decoded",
    puzzle_where="{where}: puzzle comment: ")
"""Knuth's exact-cover files and the LP / MPS models (``|``, ``\\``, ``*`` comments)."""


def puzzle_text(puzzle: Grid) -> str:
    """The puzzle on one line: symbols for N ≤ 35, blank-separated integers beyond."""
    if puzzle.size <= len(SYMBOLS):
        return format_grid(puzzle, "line")
    return " ".join(str(v) for v in puzzle.values.ravel().tolist())


def puzzle_comment_lines(puzzle: Grid, width: int = COMMENT_WIDTH) -> list[str]:
    """``puzzle TEXT`` when it fits in ``width`` characters, else one ``puzzle-row R TEXT``
    line per grid row (rows from 0); a row of blank-separated numbers (N > 35) longer than
    the width goes on several ``puzzle-row R`` lines with the same R."""
    text = puzzle_text(puzzle)
    if len(text) + len("puzzle ") <= width:
        return [f"puzzle {text}"]
    if puzzle.size <= len(SYMBOLS):
        return [f"puzzle-row {r} {text[r * puzzle.size:(r + 1) * puzzle.size]}"
                for r in range(puzzle.size)]
    lines = []
    for r, row in enumerate(puzzle.values.tolist()):
        prefix = f"puzzle-row {r} "
        part: list[str] = []
        for value in map(str, row):
            if part and len(prefix) + len(" ".join([*part, value])) > width:
                lines.append(prefix + " ".join(part))
                part = []
            part.append(value)
        lines.append(prefix + " ".join(part))
    return lines


def prefixed(prefix: str, texts: Iterable[str]) -> list[str]:
    """Comment lines of a header: each text behind the format's prefix and a blank."""
    return [f"{prefix} {text}" for text in texts]


@dataclass(frozen=True)
class PuzzleRecord:
    """The puzzle a file was built from and its reduction's settings (``(key, value)``
    pairs, in the order they are written: e.g. ``(("clues", "eliminate"),)``)."""

    puzzle: Grid
    settings: tuple[tuple[str, str], ...] = ()

    @property
    def shape(self) -> Shape:
        return self.puzzle.shape

    def setting(self, key: str) -> str:
        return dict(self.settings)[key]

    def comments(self, spelling: Spelling, width: int = COMMENT_WIDTH) -> list[str]:
        """The record's comment texts, without the format's prefix (:func:`prefixed`):
        ``shape``, the settings, ``puzzle`` (``width``: see :func:`puzzle_comment_lines`)."""
        shape = self.shape
        shape_text = (f"{shape.size} {shape.box_rows} {shape.box_cols}"
                      if spelling.numbered_shape else str(shape))
        lines = [f"shape {shape_text}", *(f"{key} {value}" for key, value in self.settings)]
        if spelling.one_line:
            return lines + [f"puzzle {format_grid(self.puzzle, 'auto').replace(chr(10), ' ')}"]
        return lines + puzzle_comment_lines(self.puzzle, width)

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, str], spelling: Spelling, keys: Iterable[str],
                      *, where: str, error: type[UserError],
                      clue_modes: Sequence[str] | None = None) -> PuzzleRecord:
        """The record of a file's comments (:func:`comment_metadata`), with the settings
        ``keys``, re-verified (see the module docstring; ``clue_modes``: the ``clues``
        values the format knows); ``error`` names ``where``."""
        keys = tuple(keys)
        for key in ("shape", *keys, "puzzle"):
            if key not in metadata:
                raise error(spelling.missing.format(where=where, key=key))
        try:
            shape = _parse_shape(metadata["shape"], spelling, where, error)
            puzzle = parse_grid(metadata["puzzle"], shape,
                                where=spelling.puzzle_where.format(where=where),
                                check=spelling.check_clues)
        except GridError as exc:
            raise error(str(exc)) from None
        clues = metadata.get("clues")
        if clue_modes is not None and clues not in clue_modes:
            raise error(f"{where}: unknown clue mode {clues!r} in the comments "
                        f"(expected {' or '.join(clue_modes)})")
        return cls(puzzle, tuple((key, metadata[key]) for key in keys))

    def json_fields(self) -> dict:
        """The record as the fields of a JSON file (the graph sidecar)."""
        return {"puzzle": format_grid(self.puzzle, "auto"), "size": self.puzzle.size,
                "box": str(self.shape)}

    @classmethod
    def from_json_fields(cls, record: Mapping, *, where: str,
                         error: type[UserError]) -> PuzzleRecord:
        """The record of a JSON file's fields (:meth:`json_fields`), re-verified: the shape
        well formed, the size its own, the puzzle a grid of it."""
        try:
            shape = Shape.parse(record["box"])
            puzzle = parse_grid(record["puzzle"], shape)
        except (KeyError, TypeError, AttributeError) as exc:
            raise error(f"{where}: malformed pipeline record ({exc})") from None
        except UserError as exc:
            raise error(f"{where}: {exc}") from None
        if record.get("size") != shape.size:
            raise error(f"{where}: size {record.get('size')!r} disagrees with blocks {shape}: "
                        f"the file was changed")
        return cls(puzzle)


def _parse_shape(text: str, spelling: Spelling, where: str, error: type[UserError]) -> Shape:
    """The block shape of a ``shape`` comment in the spelling's form."""
    if not spelling.numbered_shape:
        return Shape.parse(text)
    try:
        n, a, b = (int(x) for x in text.split())
    except ValueError:
        raise error(spelling.missing.format(where=where, key="shape")) from None
    shape = Shape(a, b)
    if shape.size != n:
        raise error(f"CNF comments disagree: shape {n} with blocks {a}x{b}")
    return shape


def comment_metadata(comments: Iterable[str], where: str,
                     error: type[UserError]) -> dict[str, str]:
    """``key value`` comment texts as a dict (first value of a key wins); ``puzzle-row``
    lines are joined, in order, into ``puzzle`` (lines repeating a row number continue
    that row)."""
    metadata: dict[str, str] = {}
    rows: list[str] = []
    for comment in comments:
        key, _, value = comment.strip().partition(" ")
        if key == "puzzle-row":
            index, _, row = value.strip().partition(" ")
            if rows and index == str(len(rows) - 1):
                rows[-1] += " " + row           # a long row continued
                if len(rows[-1]) > MAX_GRID_TEXT // MAX_SIZE:
                    raise error(f"{where}: puzzle row {index} is longer than any grid's row")
                continue
            if index != str(len(rows)) or len(rows) == MAX_SIZE:
                raise error(f"{where}: comment 'puzzle-row {index}' comes where row "
                            f"{len(rows)} is expected")
            rows.append(row)
        else:
            metadata.setdefault(key, value.strip())
    if rows and "puzzle" not in metadata:
        metadata["puzzle"] = "\n".join(rows)
    return metadata


def read_comment_header(path: str | Path, prefix: str, limit: ReadLimit,
                        error: type[UserError]) -> list[str]:
    """The comment texts (``prefix`` removed) at the top of a file, up to its first other
    non-blank line, read within ``limit``."""
    comments = []
    for _, line in read_lines(path, limit, error):
        if not line.strip():
            continue
        if not line.startswith(prefix):
            break
        comments.append(line[len(prefix):])
    return comments
