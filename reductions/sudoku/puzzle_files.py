"""Puzzles from the command line and from files: the argument of every command that takes
puzzles is a regular file of them (one per line, or one multi-line grid) or the puzzle itself;
the texts come back with where each came from, not yet parsed (:class:`PuzzleLines`), or
parsed (:func:`load_puzzles`, :func:`read_puzzles`).

A file streams through :func:`puzzle_file_limit` (:mod:`reductions.reading`): lines no longer
than the largest grid, and no more of them than the memory limit allows. Something else at
the path (a directory, a FIFO) is refused, naming what it is; a mistyped file name is not
read as a puzzle.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import printable
from ..reading import (DEFAULT_MEMORY_LIMIT, STDIN_NAME, ReadLimit, file_kind, is_stdin,
                       read_lines)
from .grid import MAX_GRID_TEXT, MAX_SIZE, Grid, GridError, Shape, parse_grid

PUZZLE_BYTES_PER_BYTE = 2
PUZZLE_BYTES_PER_LINE = 512
"""What a file of puzzles costs in memory, charged against ``--max-memory`` while it is read
(:func:`puzzle_file_limit`): each puzzle line is kept as its text, its label (``file:line``)
and a pair, and ``solve`` keeps about as much again until the puzzle is answered. Measured on
the 49,151-puzzle set (82 bytes a line): reading it takes 18 MB (4.5 bytes a byte), and
``solve --jobs 1`` peaks 26 MB above a one-puzzle run (540 bytes a puzzle); charged: 676."""


def puzzle_file_limit(memory_limit: int) -> ReadLimit:
    """What a file of puzzles may hold: lines no longer than the largest grid, and as many
    as ``memory_limit`` allows (see :data:`PUZZLE_BYTES_PER_LINE`)."""
    return ReadLimit.share(memory_limit, what="a file of puzzles",
                           per_byte=PUZZLE_BYTES_PER_BYTE, per_line=PUZZLE_BYTES_PER_LINE
                           ).lines(MAX_GRID_TEXT, f"longer than any puzzle (a {MAX_SIZE}x"
                                                  f"{MAX_SIZE} grid written out)")


@dataclass
class PuzzleLines:
    """The puzzles of a command-line argument as texts, not yet parsed, with where each came
    from: ``texts[k]`` is line ``numbers[k]`` of the file ``source`` (label
    ``source:number``), or, when ``numbers`` is None, the one text of a literal puzzle
    (``source`` ``"puzzle"``) or of a file holding one multi-line grid (``source`` the file).

    The line numbers are kept as numbers and the labels made only when asked for
    (:meth:`label`): a file of 49,151 puzzles needs none of them on the ``solve`` batch
    path's fast rows, whose records write the number after a prefix escaped once."""

    source: str
    texts: list[str]
    numbers: list[int] | None = None

    def __len__(self) -> int:
        return len(self.texts)

    def label(self, index: int) -> str:
        return self.source if self.numbers is None else f"{self.source}:{self.numbers[index]}"

    def pairs(self) -> list[tuple[str, str]]:
        """(label, text) for every puzzle."""
        if self.numbers is None:
            return [(self.source, text) for text in self.texts]
        prefix = self.source + ":"
        return [(f"{prefix}{number}", text) for number, text in zip(self.numbers, self.texts)]


def puzzle_lines_in_file(path: str | Path, shape: Shape | None = None, *,
                         memory_limit: int = DEFAULT_MEMORY_LIMIT) -> PuzzleLines:
    """The puzzles of a file, not yet parsed.

    A file whose first puzzle line is a whole grid holds one puzzle per line (blank lines and
    ``#`` comments skipped; labels are ``file:line``); otherwise the whole file is one
    multi-line grid (label ``file``). The file streams through :func:`puzzle_file_limit`:
    only the puzzle lines are kept.
    """
    lines = read_lines(path, puzzle_file_limit(memory_limit), GridError)
    path = STDIN_NAME if is_stdin(path) else str(Path(path))     # labels and messages
    kept: list[str] = []                 # up to the first puzzle line, comments left out
    for number, line in lines:
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        kept.append(line)
        if stripped:
            break
    else:
        raise GridError(f"{path}: no puzzle found")
    try:
        parse_grid(stripped, shape, check=False)
    except GridError as exc:
        return PuzzleLines(path, [_multi_line_grid(path, kept, lines, exc)])
    texts, numbers = [stripped], [number]
    for number, line in lines:
        stripped = line.strip()
        if stripped and stripped[0] != "#":
            texts.append(stripped)
            numbers.append(number)
    return PuzzleLines(path, texts, numbers)


def puzzle_texts_in_file(path: str | Path, shape: Shape | None = None, *,
                         memory_limit: int = DEFAULT_MEMORY_LIMIT) -> list[tuple[str, str]]:
    """The puzzles of a file as (label, text) pairs, not yet parsed
    (:func:`puzzle_lines_in_file`)."""
    return puzzle_lines_in_file(path, shape, memory_limit=memory_limit).pairs()


def _multi_line_grid(path: str, kept: list[str], lines: Iterator[tuple[int, str]],
                     first_error: GridError) -> str:
    """The text of a file holding one multi-line grid (comment lines left out, as
    :func:`parse_grid` leaves them out): ``kept`` and the rest of ``lines``, at most
    :data:`MAX_GRID_TEXT` characters."""
    size = sum(len(line) + 1 for line in kept)
    for _, line in lines:
        if line.lstrip().startswith("#"):
            continue
        size += len(line) + 1
        if size > MAX_GRID_TEXT:
            raise GridError(f"{path}: its first puzzle line is not a puzzle ({first_error}), "
                            f"and the file is longer than one grid can be ({MAX_GRID_TEXT:,} "
                            f"characters)")
        kept.append(line)
    return "\n".join(kept)


def puzzle_lines(source: str, shape: Shape | None = None, *,
                 memory_limit: int = DEFAULT_MEMORY_LIMIT) -> PuzzleLines:
    """The puzzles of a command-line argument: the path of a regular file, or the puzzle
    itself; ``-`` is standard input, read as a file is.

    Something else at that path (a directory, ``/dev/null``, a FIFO) is refused, naming what
    it is — never read as puzzle text. An argument that names nothing is the puzzle itself
    when it reads as one (the caller parses it, with its own error messages); otherwise it
    is refused as no such file — "and not a puzzle either" (with why not), unless it plainly
    is a path (a ``/`` or a puzzle file's suffix), so that a mistyped file name is not
    reported as a grid of the wrong size."""
    name = printable(source)
    kind = "regular" if is_stdin(source) else _existing_kind(source)
    if kind == "regular":
        return puzzle_lines_in_file(source, shape, memory_limit=memory_limit)
    if kind is not None:
        raise GridError(f"{name}: is {kind}, not a regular file")
    if "\n" in source or not source.strip():     # only ever a puzzle (or no puzzle at all)
        return PuzzleLines("puzzle", [source])
    if "/" in source or re.search(r"\.(txt|sdk|sudoku|puz|csv|dat|gz|xz|bz2)$", source, re.I):
        raise GridError(f"{name}: no such file")
    try:
        parse_grid(source, shape, check=False)
    except GridError as exc:
        raise GridError(f"{name}: no such file, and not a puzzle either ({exc})") from None
    return PuzzleLines("puzzle", [source])


def _existing_kind(source: str) -> str | None:
    """What is at the path ``source``: "regular" for a regular file, the kind of anything
    else (:func:`~reductions.reading.file_kind`), or None when nothing is (no such file, no
    such directory on the way, a name too long to be a path or holding a NUL)."""
    try:
        mode = os.stat(source).st_mode
    except (OSError, ValueError):
        return None
    return file_kind(mode) or "regular"


def puzzle_texts(source: str, shape: Shape | None = None, *,
                 memory_limit: int = DEFAULT_MEMORY_LIMIT) -> list[tuple[str, str]]:
    """(label, text) pairs for a command-line argument (:func:`puzzle_lines`)."""
    return puzzle_lines(source, shape, memory_limit=memory_limit).pairs()


def _label_prefix(label: str) -> str:
    return "" if label == "puzzle" else f"{label}: "


def read_puzzles(path: str | Path, shape: Shape | None = None, check: bool = True, *,
                 memory_limit: int = DEFAULT_MEMORY_LIMIT) -> Iterator[tuple[int, Grid]]:
    """Yield (line number, grid) for a file of puzzles (see :func:`puzzle_texts_in_file`)."""
    for label, text in puzzle_texts_in_file(path, shape, memory_limit=memory_limit):
        number = int(label.rsplit(":", 1)[1]) if ":" in label else 1
        yield number, parse_grid(text, shape, where=_label_prefix(label), check=check)


def load_puzzles(source: str, shape: Shape | None = None, check: bool = True, *,
                 memory_limit: int = DEFAULT_MEMORY_LIMIT) -> list[tuple[str, Grid]]:
    """Puzzles from a command-line argument (file or literal) as (label, grid) pairs."""
    return [(label, parse_grid(text, shape, where=_label_prefix(label), check=check))
            for label, text in puzzle_texts(source, shape, memory_limit=memory_limit)]
