"""MPS model files, fixed and free, and telling LP and MPS files apart by their content.

:func:`write_mps` writes a 0/1 model in either MPS form:

* **fixed** (the 1960s card layout, what ``glpsol --mps`` insists on): every field in its
  columns (2–3, 5–12, 15–22, 25–36, 40–47, 50–61), so names of at most 8 characters and
  numbers of at most 12, and no line longer than 80 characters, comments included. Names are
  short: column ``C<k>`` and row ``R<k>`` for the k-th column and row, k in base 36
  (:func:`short_name`); the caller records in the comments what they stand for.
* **free** (``glpsol --freemps``, and every other reader): blank-separated fields, the
  caller's own names.

Both forms have the same content in the same order (glpsol numbers the columns of its raw
solution in file order): an objective row ``N`` with no entries (a feasibility problem), the
rows, the integer columns between ``MARKER`` lines, the right-hand sides, and an upper bound
of 1 per column (the lower bound 0 is MPS's default). CBC, HiGHS, SCIP and glpsol read both.

:func:`sniff_model_format` tells an LP file, a fixed MPS file and a free MPS file apart by
their content, with a one-line error naming the file and the line when it is none of them.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence, TextIO

from reductions.errors import UserError, shown
from reductions.sudoku.grid import MAX_COMMENT_LINE
from reductions.reading import DEFAULT_MEMORY_LIMIT, ReadLimit, read_lines


class ModelFormat(enum.StrEnum):
    """The model file forms ``emit ilp --format`` writes."""

    LP = "lp"
    MPS = "mps"                   # fixed MPS
    FREE_MPS = "free-mps"


FIXED_WIDTH = 80
"""The longest line a fixed MPS file may have (a punched card)."""
FIELD_STARTS = (1, 4, 14, 24, 39, 49)
"""Where fields 1–6 of a fixed MPS data line start (0-based: card columns 2, 5, 15, 25, 40,
50)."""
FIELD_WIDTHS = (2, 8, 8, 12, 8, 12)
NAME_WIDTH = 8
NUMBER_WIDTH = 12
DIGITS36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
SECTIONS = ("NAME", "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS", "ENDATA", "OBJSENSE",
            "OBJNAME", "SOS", "QUADOBJ", "QMATRIX")
LP_STARTS = ("minimize", "minimise", "minimum", "min", "maximize", "maximise", "maximum",
             "max")
SENSES = {0: "E", -1: "L", 1: "G"}
"""PuLP's constraint senses → MPS row types."""


class ModelFileError(UserError):
    """A model file that is neither LP nor MPS, or one that cannot be written in a form."""


@dataclass(frozen=True)
class MpsRow:
    """One constraint: its name, type (``E``, ``L``, ``G``) and right-hand side."""

    name: str
    kind: str
    rhs: float


def short_name(prefix: str, index: int) -> str:
    """``prefix`` and ``index`` in base 36 (digits, then capital letters): ``C0``, ``R1A``."""
    digits = ""
    while True:
        index, digit = divmod(index, 36)
        digits = DIGITS36[digit] + digits
        if not index:
            return prefix + digits


def mps_number(value: float) -> str:
    """The shortest text of ``value`` that fits a 12-character field (``1``, ``-3``,
    ``0.5``); a value that cannot be written exactly in 12 characters is refused."""
    if not math.isfinite(value):
        raise ModelFileError(f"MPS: {value} is not a finite number")
    if value == int(value) and abs(value) < 10 ** (NUMBER_WIDTH - 1):
        return str(int(value))
    text = repr(float(value))
    if len(text) > NUMBER_WIDTH:
        raise ModelFileError(f"MPS: {text} does not fit a fixed field of {NUMBER_WIDTH} "
                             f"characters")
    return text


def _fixed_line(*fields: str) -> str:
    """A fixed MPS data line with ``fields`` (field 1 first; '' leaves one empty)."""
    line = ""
    for start, width, text in zip(FIELD_STARTS, FIELD_WIDTHS, fields):
        if len(text) > width:
            raise ModelFileError(f"MPS: {text!r} does not fit a fixed field of {width} "
                                 f"characters")
        line = line.ljust(start) + text
    return line.rstrip()


def _free_line(*fields: str) -> str:
    return " " + " ".join(f for f in fields if f)


def write_mps(out: TextIO, *, name: str, columns: Sequence[str], rows: Sequence[MpsRow],
              entries: Sequence[Sequence[tuple[int, float]]], fixed: bool,
              comments: Iterable[str] = ()) -> None:
    """Write a 0/1 model: ``columns`` (binary variables) by name, ``rows`` by name,
    ``entries[j]`` the (row index, coefficient) pairs of column j, the objective empty;
    ``comments`` first as ``*`` lines. ``fixed``: the fixed form (names and comments must
    fit; :class:`ModelFileError` otherwise)."""
    line = _fixed_line if fixed else _free_line
    for comment in comments:
        text = f"* {comment}".rstrip()
        if fixed and len(text) > FIXED_WIDTH:
            raise ModelFileError(f"MPS: comment longer than {FIXED_WIDTH} characters: "
                                 f"{text[:40]}...")
        out.write(text + "\n")
    out.write(f"NAME          {name}\n" if fixed else f"NAME {name}\n")
    out.write("ROWS\n")
    out.write(line("N", "OBJ") + "\n")
    for row in rows:
        out.write(line(row.kind, row.name) + "\n")
    out.write("COLUMNS\n")
    if columns:
        out.write(line("", "MARKER", "'MARKER'", "", "'INTORG'") + "\n")
        for column, pairs in zip(columns, entries):
            for row_index, coefficient in pairs:
                out.write(line("", column, rows[row_index].name, mps_number(coefficient))
                          + "\n")
        out.write(line("", "MARKER", "'MARKER'", "", "'INTEND'") + "\n")
    out.write("RHS\n")
    for row in rows:
        if row.rhs:
            out.write(line("", "RHS", row.name, mps_number(row.rhs)) + "\n")
    out.write("BOUNDS\n")
    for column in columns:
        out.write(line("UP", "BND", column, "1") + "\n")
    out.write("ENDATA\n")


# ----------------------------------------------------------------------------- reading

def _is_fixed_data_line(line: str) -> bool:
    """Does every field of this data line sit in one of the fixed MPS fields?"""
    if len(line) > FIXED_WIDTH:
        return False
    position = 0
    for token in line.split():
        start = line.index(token, position)
        position = start + len(token)
        if not any(start == s and position <= s + w
                   for s, w in zip(FIELD_STARTS, FIELD_WIDTHS)):
            return False
    return True


MODEL_BYTES_PER_BYTE = 4
"""Memory per byte of a model file read back whole (its text, and the names of its columns
in a dict: :func:`~solvers.formats.lp_solution.model_columns`)."""


def model_file_limit(memory_limit: int = DEFAULT_MEMORY_LIMIT) -> ReadLimit:
    """What an LP or MPS model file may hold: what the memory limit allows, in lines no
    longer than a comment recording a puzzle."""
    return ReadLimit.share(memory_limit, what="a model file", per_byte=MODEL_BYTES_PER_BYTE
                           ).lines(MAX_COMMENT_LINE, "longer than any line of a model file "
                                                     "written here")


def sniff_model_format(path: str | Path, error: type[UserError] = ModelFileError
                       ) -> ModelFormat:
    """LP, fixed MPS or free MPS, from the file's content: an LP file starts (after blank
    lines) with a ``\\`` comment or its objective sense; an MPS file with ``*`` comments and
    its section names; it is fixed when every line fits 80 characters and every field of
    every data line sits in its fixed columns. Anything else is ``error`` naming the line."""
    kind = None
    fixed = True
    for number, line in read_lines(path, model_file_limit(), error):
        if not line.strip():
            continue
        if kind is None:
            word = line.split()[0]
            if line.startswith("\\") or word.rstrip(":").lower() in LP_STARTS:
                return ModelFormat.LP
            if line.startswith("*"):
                fixed = fixed and len(line) <= FIXED_WIDTH
                continue
            if word.upper() not in SECTIONS:
                raise error(f"{path} line {number}: neither an LP nor an MPS model file "
                            f"(found {shown(line.strip())})")
            kind = "mps"
        if line.startswith("*"):
            fixed = fixed and len(line) <= FIXED_WIDTH
        elif line[0].isspace():
            fixed = fixed and _is_fixed_data_line(line)
        else:
            fixed = fixed and len(line) <= FIXED_WIDTH
        if not fixed:
            break
    if kind is None:
        raise error(f"{path}: empty model file (no LP or MPS content)")
    return ModelFormat.MPS if fixed else ModelFormat.FREE_MPS
