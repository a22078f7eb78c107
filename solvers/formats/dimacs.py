"""DIMACS CNF files and SAT-solver output.

* :func:`write_cnf` streams clauses to a file atomically; the ``p cnf`` header needs the clause
  count, which a stream does not know in advance, so the body goes to a temporary file first
  and is copied behind the header (one extra sequential pass, no clause list in memory).
  Comment lines (``c key value``) carry metadata such as the puzzle and the encoding.
* :func:`read_cnf` parses a CNF file strictly: errors name the file and line. The file
  streams through in pieces (never whole in memory, not even one long line); header counts
  must be plain digits up to 2^31 − 1; reading stops at the first clause beyond the declared
  count (or wider than a given width). :func:`read_formula` reads a gadget's input formula,
  sized from its header against a memory limit before the clauses are read;
  :func:`read_formulas` those of a validation run.
* :func:`parse_solver_output` reads a solver's answer in the SAT-competition form
  (``s SATISFIABLE`` and ``v`` lines) or MiniSat's result-file form (``SAT`` then the model).
"""

from __future__ import annotations

import enum
import io
import sys
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from reductions.errors import UserError, parse_int
from reductions.sudoku.grid import MAX_COMMENT_LINE
from reductions.reading import (CHATTER_BYTES, DEFAULT_MEMORY_LIMIT, STDIN_NAME, ReadLimit,
                                is_stdin, open_text, read_text, reading, shown_name)
from reductions.formulas import Formula, from_dimacs_clauses
from reductions.estimate import TooLarge, ensure_fits
from reductions.formulas import formula_reading_estimate

from .atomic import OutputError, check_output_target, naming_write_errors, open_output


class DimacsError(UserError):
    """A malformed DIMACS file or solver output; the message names the file and line."""


@dataclass
class CnfFile:
    """The contents of a DIMACS CNF file."""

    num_vars: int
    clauses: list[list[int]]
    comments: list[str] = field(default_factory=list)
    declared_clauses: int | None = None

    def metadata(self) -> dict[str, str]:
        """``c key value`` comment lines as a dict (first word is the key)."""
        meta = {}
        for line in self.comments:
            key, _, value = line.partition(" ")
            if key and key not in meta:
                meta[key] = value.strip()
        return meta


FORMAT_ROWS = 1 << 16
"""Clauses of a fixed-width block formatted at a time (bounds the text and its tuple)."""


def _format_clause_block(block: np.ndarray | Sequence[Sequence[int]]) -> Iterator[str]:
    """The DIMACS lines of a block, in pieces of at most ``FORMAT_ROWS`` clauses."""
    if isinstance(block, np.ndarray) and block.ndim == 2:
        # Fixed-width clauses (e.g. a block of binary clauses): one %-format per piece,
        # its loop over the integers in C.
        line = "%d " * block.shape[1] + "0\n"
        for start in range(0, len(block), FORMAT_ROWS):
            rows = block[start:start + FORMAT_ROWS]
            yield (line * len(rows)) % tuple(rows.ravel().tolist())
        return
    yield "".join(" ".join(map(str, clause)) + " 0\n" for clause in block)


def write_cnf(path: str | Path, num_vars: int,
              clause_blocks: Iterable[np.ndarray | Sequence[Sequence[int]]],
              comments: Iterable[str] = ()) -> int:
    """Write a DIMACS CNF file atomically (``-``: to stdout); returns the number of clauses.

    ``clause_blocks`` yields blocks of clauses (lists of ints, or 2-D integer arrays of
    equal-width clauses) so that huge formulas stream through without being held in memory.
    The body waits in an anonymous temporary file beside the target (it has no name, so it
    vanishes with the process however that ends) until the clause count of the header is
    known.
    """
    target = check_output_target(path, stdout_ok=True)      # before the work
    count = 0
    with naming_write_errors("stdout" if target is None else path):
        try:
            body = tempfile.TemporaryFile("w+", encoding="ascii", newline="\n",
                                          buffering=1 << 20,
                                          dir=None if target is None else target.parent)
        except OSError as exc:
            raise OutputError(f"{path}: cannot create a temporary file ({exc.strerror})") \
                from None
        with body:
            for block in clause_blocks:
                count += len(block)
                body.writelines(_format_clause_block(block))
            body.seek(0)
            with open_output(path) as out:
                for line in comments:
                    out.write(f"c {line}\n" if line else "c\n")
                out.write(f"p cnf {num_vars} {count}\n")
                shutil.copyfileobj(body, out, 1 << 20)
    return count


MAX_DIMACS = 2**31 - 1
"""The largest variable or clause count a header may declare: DIMACS solvers read literals
as signed 32-bit integers."""

WIDE_SHOWN = 16
"""A clause wider than allowed is reported when it ends, or as soon as it is this many
literals too wide (then the rest is not read)."""

PIECE = 1 << 16
"""Characters read at a time: a clause line of any length is parsed piece by piece, so a huge
file never sits in memory as one string or one list of tokens."""

MAX_TOKEN = len(str(MAX_DIMACS)) + 1
"""The longest literal: a sign and the digits of :data:`MAX_DIMACS`. A longer token is
refused as soon as it is (it cannot be a literal), however long it goes on."""

CNF_BYTES_PER_BYTE = 2
"""Memory per byte read, counted against ``--max-memory`` while a CNF file streams through:
the comment lines kept (their text and list entries) — the clauses are bounded by the
header's count, checked by :func:`read_formula` before they are read."""


def cnf_limit(memory_limit: int) -> ReadLimit:
    """What a CNF file may hold: whatever the memory limit allows for its comments; its
    clauses are bounded by its header."""
    return ReadLimit.share(memory_limit, what="a CNF file", per_byte=CNF_BYTES_PER_BYTE)


def read_cnf(path: str | Path, *, max_width: int | None = None,
             memory_limit: int = DEFAULT_MEMORY_LIMIT) -> CnfFile:
    """Read a DIMACS CNF file; errors name the line. Clauses may span lines.

    The file streams through (see :func:`parse_cnf`): reading stops at the first clause
    beyond the header's count or wider than ``max_width`` literals, so memory stays within
    what the header declares."""
    with reading(path, DimacsError), open_text(path, cnf_limit(memory_limit)) as handle:
        return parse_cnf(handle, shown_name(path), max_width=max_width)


def read_cnf_header(path: str | Path, *, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> CnfFile:
    """Only the comments and the ``p cnf`` line (no clauses): enough to decode a model of a
    file written by sudoku-bridge, or to size a formula before reading it."""
    with reading(path, DimacsError), open_text(path, cnf_limit(memory_limit)) as handle:
        return parse_cnf(handle, shown_name(path), header_only=True)


def read_formula(path: str | Path, *, max_width: int | None = 3,
                 max_memory: int | None = None) -> Formula:
    """A CNF file as a :class:`~reductions.formulas.Formula` (clauses of 1 to ``max_width``
    literals, no repeated variable), the gadgets' input.

    The header is read first: with ``max_memory`` (bytes), a file whose declared clauses
    would not fit is refused (:class:`~reductions.estimate.TooLarge`) before they are read.
    """
    memory_limit = DEFAULT_MEMORY_LIMIT if max_memory is None else max_memory
    if max_memory is not None and max_width is not None:
        header = read_cnf_header(path, memory_limit=memory_limit)
        ensure_fits(formula_reading_estimate(header.declared_clauses or 0, max_width),
                    max_memory, f"{shown_name(path)}: reading the formula")
    cnf = read_cnf(path, max_width=max_width, memory_limit=memory_limit)
    return from_dimacs_clauses(cnf.num_vars, cnf.clauses, max_width=max_width, name=shown_name(path))


def read_formulas(paths: Iterable[str | Path], *,
                  max_memory: int | None) -> list[tuple[str, Formula | TooLarge]]:
    """The formulas of a validation run, each named by its file name; one whose reading is
    estimated over ``max_memory`` becomes its refusal, a row of the run's table rather than
    the end of the run (any other error ends it)."""
    out: list[tuple[str, Formula | TooLarge]] = []
    for path in paths:
        try:
            out.append((_short_name(path), read_formula(path, max_memory=max_memory)))
        except TooLarge as exc:
            out.append((_short_name(path), exc))
    return out


def _short_name(path: str | Path) -> str:
    """A formula's name in a validation table: its file name, or ``<stdin>``."""
    return STDIN_NAME if is_stdin(path) else Path(path).name


def _pieces(source: str | Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line number, piece) pairs; a piece is a whole line or, for a line longer than
    :data:`PIECE` characters read from a file, a part of it (only the last part of a line
    ends with a newline)."""
    if isinstance(source, str):
        source = io.StringIO(source)
    if hasattr(source, "readline"):
        number, piece = 1, "\n"
        while next_piece := source.readline(PIECE):
            piece = next_piece
            yield number, piece
            number += piece.endswith("\n")
        if not piece.endswith("\n"):
            yield number, "\n"                  # the last line had no newline: end it
        return
    for number, line in enumerate(source, start=1):
        yield number, line if line.endswith("\n") else line + "\n"


def _header_number(text: str, what: str, name: str, number: int, line: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise DimacsError(f"{name} line {number}: bad header {line[:80]!r}, expected "
                          f"'p cnf VARS CLAUSES' with two counts")
    value = int(text)
    if value > MAX_DIMACS:
        raise DimacsError(f"{name} line {number}: the header declares {value:,} {what}, more "
                          f"than {MAX_DIMACS:,} (the most a DIMACS file can have)")
    return value


def _too_wide(name: str, number: int, index: int, clause: list[int], max_width: int) -> None:
    if len(clause) > max_width + WIDE_SHOWN:          # cut short: the rest was not read
        shown, count = [*map(str, clause[:max_width + 1]), "..."], f"more than {max_width}"
    else:
        shown, count = list(map(str, clause)), str(len(clause))
    raise DimacsError(f"{name} line {number}: clause {index} [{', '.join(shown)}] has {count} "
                      f"literals; at most {max_width} are allowed")


def parse_cnf(text: str | Iterable[str], name: str = "<cnf>", header_only: bool = False,
              max_width: int | None = None) -> CnfFile:
    """Parse DIMACS CNF from a string, an open file or an iterable of lines.

    With ``header_only``, stop at the ``p cnf`` line: the result has the comments, the
    variable count and ``declared_clauses`` but no clauses. Header counts must be plain
    digits up to :data:`MAX_DIMACS`. Parsing stops with an error at the first clause beyond
    the declared count, and (with ``max_width``) at the first clause wider than that.
    """
    comments: list[str] = []
    header: tuple[int, int] | None = None
    clauses: list[list[int]] = []
    current: list[int] = []
    kind = None             # of the line being read: "c", "p", "clause" (None: not known yet)
    pending = _TextLine(name)       # the comment or header line being read
    carry = ""              # a token cut at the end of a piece
    # The loop over clause lines stays in this function: a call per line is measurably
    # slower (benchmarks/results/design_figures.md). Comment and header lines, errors and the
    # end go to helpers.
    for number, piece in _pieces(text):
        ends = piece.endswith("\n")
        if kind is None:
            stripped = piece.lstrip()
            if not stripped:
                continue                              # blank (so far)
            kind = {"c": "c", "p": "p", "%": "%"}.get(stripped[0], "clause")
            if kind == "%":                           # SATLIB files end with '%' then '0'
                break
        if kind in ("c", "p"):
            line = pending.add(piece, kind == "p", number)
            if line is None:
                continue
            kind = None
            if line.startswith("c"):
                comments.append(line[1:].strip())
                continue
            header = _read_header(line, header, name, number)
            if header_only:
                return CnfFile(header[0], [], comments, header[1])
            continue
        if header is None:
            raise DimacsError(f"{name} line {number}: clause before the 'p cnf' header")
        tokens = (carry + piece).split()
        carry = "" if ends or piece[-1:].isspace() or not tokens else tokens.pop()
        if len(carry) > MAX_TOKEN:
            raise _clause_error(name, number, "long token", carry)
        for tok in tokens:
            try:
                lit = int(tok)
            except ValueError:
                raise _clause_error(name, number, "not an integer", tok) from None
            if lit == 0:
                if len(clauses) == header[1]:
                    raise _clause_error(name, number, "too many clauses", header[1])
                if max_width is not None and len(current) > max_width:
                    _too_wide(name, number, len(clauses) + 1, current, max_width)
                clauses.append(current)
                current = []
            elif abs(lit) > header[0]:
                raise _clause_error(name, number, "literal too large", lit, header[0])
            else:
                current.append(lit)
                if max_width is not None and len(current) > max_width + WIDE_SHOWN:
                    _too_wide(name, number, len(clauses) + 1, current, max_width)
        if ends:
            kind = None
    return _finished(name, header, clauses, current, comments)


class _TextLine:
    """A comment or header line of :func:`parse_cnf`, read in pieces: bounded (a header to
    200 characters, a comment to ``MAX_COMMENT_LINE``) before it is joined."""

    __slots__ = ("name", "pieces", "length")

    def __init__(self, name: str) -> None:
        self.name = name
        self.pieces: list[str] = []
        self.length = 0

    def add(self, piece: str, is_header: bool, number: int) -> str | None:
        """Take the next piece; the whole line, stripped, once a piece ends it, else None."""
        self.pieces.append(piece)
        self.length += len(piece)
        if is_header and self.length > 200:
            raise DimacsError(f"{self.name} line {number}: bad header "
                              f"{''.join(self.pieces)[:80]!r}..., expected 'p cnf VARS "
                              f"CLAUSES'")
        if self.length > MAX_COMMENT_LINE:
            raise DimacsError(f"{self.name} line {number}: a comment line longer than "
                              f"{MAX_COMMENT_LINE:,} characters")
        if not piece.endswith("\n"):
            return None
        line = "".join(self.pieces).strip()
        self.pieces, self.length = [], 0
        return line


def _read_header(line: str, header: tuple[int, int] | None, name: str,
                 number: int) -> tuple[int, int]:
    """(variables, clauses) of the ``p cnf`` line ``line``; DimacsError if it is malformed
    or ``header`` was read already."""
    parts = line.split()
    if header is not None:
        raise DimacsError(f"{name} line {number}: second 'p' header")
    if len(parts) != 4 or parts[:2] != ["p", "cnf"]:
        raise DimacsError(
            f"{name} line {number}: bad header {line[:80]!r}, expected "
            f"'p cnf VARS CLAUSES'")
    return (_header_number(parts[2], "variables", name, number, line),
            _header_number(parts[3], "clauses", name, number, line))


def _clause_error(name: str, number: int, problem: str, *values) -> DimacsError:
    """The error for a clause line that cannot be read (``problem`` says which)."""
    where = f"{name} line {number}"
    if problem == "long token":
        return DimacsError(f"{where}: {values[0][:40]!r}... is longer than any literal "
                           f"({MAX_TOKEN} characters)")
    if problem == "not an integer":
        return DimacsError(f"{where}: {values[0][:40]!r} is not an integer literal")
    if problem == "too many clauses":
        return DimacsError(f"{where}: more clauses than the {values[0]:,} the header declares")
    return DimacsError(f"{where}: literal {values[0]} exceeds the declared {values[1]} "
                       f"variables")


def _finished(name: str, header: tuple[int, int] | None, clauses: list[list[int]],
              current: list[int], comments: list[str]) -> CnfFile:
    """The file read to its end: the header is there, a last clause without its 0 is
    kept, and the clause count is the declared one."""
    if header is None:
        raise DimacsError(f"{name}: no 'p cnf' header")
    if current:
        clauses.append(current)  # tolerate a missing final 0
    if len(clauses) != header[1]:
        raise DimacsError(
            f"{name}: header declares {header[1]} clauses but the file has {len(clauses)}")
    return CnfFile(header[0], clauses, comments, header[1])


class SatAnswer(enum.StrEnum):
    """A SAT solver's verdict, in the words of MiniSat's result file."""

    SAT = "SAT"
    UNSAT = "UNSAT"
    UNKNOWN = "UNKNOWN"


@dataclass
class SolverAnswer:
    """A SAT solver's verdict and, for ``SAT``, the model as signed literals."""

    status: SatAnswer
    model: list[int] | None = None


STOPPED_COMMENTS = frozenset({"c UNKNOWN", "c s UNKNOWN"})
"""How CaDiCaL 1.5 (``c UNKNOWN``) and Lingeling (``c s UNKNOWN``) say they stopped on a limit:
as a comment, with no ``s`` line."""


class _Literals:
    """The literals of the model lines of one form (``v`` lines, or the lines after
    MiniSat's ``SAT``), collected as they come. A problem (a token that is no integer, more
    literals than the formula has variables) is kept, not raised, and ends the collecting:
    it matters only when the answer turns out to be in this form."""

    def __init__(self, name: str, num_vars: int | None):
        self.name = name
        self.room = sys.maxsize if num_vars is None else num_vars + 1    # and the closing 0
        self.model: list[int] = []
        self.problem: DimacsError | None = None

    def add(self, text: str, number: int) -> None:
        """The literals of ``text`` (line ``number``), split no further than the model can
        go: a line of millions of tokens never becomes a list of millions."""
        if self.problem is not None:
            return
        tokens = text.split(maxsplit=self.room)
        self.room -= len(tokens)
        if self.room < 0:
            self.problem = DimacsError(f"{self.name} line {number}: more literals than the "
                                       f"formula's variables")
            self.model = []
            return
        try:
            self.model.extend(_parse_literals(tokens, self.name, number))
        except DimacsError as exc:
            self.problem = exc

    def answer(self) -> "SolverAnswer":
        if self.problem is not None:
            raise self.problem
        return SolverAnswer(SatAnswer.SAT, _strip_zero(self.model, self.name))


def parse_solver_output(text: str | Iterable[str], name: str = "<solver output>", *,
                        num_vars: int | None = None) -> SolverAnswer:
    """Parse SAT-competition output (``s``/``v`` lines), a MiniSat result file (``SAT`` then
    the model) or Glucose's (the bare model), from a string or from lines. Without an ``s``
    line, a limit stop announced in a comment (:data:`STOPPED_COMMENTS`) is ``UNKNOWN``. With
    ``num_vars`` (the formula's), a model of more literals is refused as soon as it is.

    Raises :class:`DimacsError` when the text holds neither form, or a model is malformed.
    """
    lines = text.splitlines() if isinstance(text, str) else text
    status: tuple[int, str] | None = None          # the first 's' line
    first: tuple[int, str] | None = None           # the first content line (not 'c')
    stopped = False
    v_model = _Literals(name, num_vars)            # from 'v' lines
    body = _Literals(name, num_vars)               # from the content lines after the first
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if line[0] == "c":
            stopped = stopped or line in STOPPED_COMMENTS
            continue
        if line[0] == "v" and (len(line) == 1 or line[1] == " "):
            v_model.add(line[1:], number)
        elif status is None and line.startswith("s "):
            status = number, line
        if first is None:
            first = number, line
            if line.split(maxsplit=1)[0].lstrip("-").isdigit():
                body.add(line, number)             # Glucose's bare model starts here
        elif status is None:
            body.add(line, number)
    if status is not None:
        number, line = status
        word = line[2:].strip().upper()
        if word == "SATISFIABLE":
            if not v_model.model and v_model.problem is None:
                raise DimacsError(f"{name} line {number}: SATISFIABLE but no 'v' model lines")
            return v_model.answer()
        if word == "UNSATISFIABLE":
            return SolverAnswer(SatAnswer.UNSAT)
        if word in ("UNKNOWN", "INDETERMINATE"):
            return SolverAnswer(SatAnswer.UNKNOWN)
        raise DimacsError(f"{name} line {number}: unknown status {line!r}")
    if stopped:
        return SolverAnswer(SatAnswer.UNKNOWN)
    if first is None:
        raise DimacsError(f"{name}: empty solver output (no status line)")
    number, line = first
    word = line.upper()
    if word in ("SAT", "SATISFIABLE"):
        if not body.model and body.problem is None:
            raise DimacsError(f"{name} line {number}: SAT but no model follows")
        return body.answer()
    if word in ("UNSAT", "UNSATISFIABLE"):
        return SolverAnswer(SatAnswer.UNSAT)
    if word in ("INDET", "UNKNOWN", "INDETERMINATE"):
        return SolverAnswer(SatAnswer.UNKNOWN)
    if line.split(maxsplit=1)[0].lstrip("-").isdigit():
        return body.answer()
    raise DimacsError(
        f"{name} line {number}: expected 's SATISFIABLE'-style status lines or a MiniSat "
        f"result (SAT/UNSAT), found {line[:40]!r}")


def _parse_literals(tokens: list[str], name: str, number: int) -> list[int]:
    return [parse_int(tok, f"{name} line {number}", "literal", DimacsError) for tok in tokens]


def _strip_zero(model: list[int], name: str) -> list[int]:
    if model and model[-1] == 0:
        model = model[:-1]
    if 0 in model:
        raise DimacsError(f"{name}: a 0 inside the model")
    return model


def answer_limit(num_vars: int) -> ReadLimit:
    """The most a SAT solver's answer for ``num_vars`` variables can take: every literal
    once, one to a line at worst (``v -123``), and what solvers print beside it."""
    return ReadLimit(CHATTER_BYTES + (num_vars + 1) * (len(str(num_vars)) + 4),
                     f"more than a SAT answer for {num_vars:,} variables can take")


def read_solver_output(path: str | Path, *, num_vars: int) -> SolverAnswer:
    """A solver's answer saved in a file (stdout of a SAT-competition solver, or MiniSat's
    result file) for a formula of ``num_vars`` variables, at most :func:`answer_limit`."""
    return parse_solver_output(read_text(path, answer_limit(num_vars), DimacsError),
                               shown_name(path), num_vars=num_vars)
