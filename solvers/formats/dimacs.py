"""DIMACS CNF files and SAT-solver output.

* :func:`write_cnf` streams clauses to a file atomically; the ``p cnf`` header needs the clause
  count, which a stream does not know in advance, so the body goes to a temporary file first
  and is copied behind the header (one extra sequential pass, no clause list in memory).
  Comment lines (``c key value``) carry metadata such as the puzzle and the encoding.
* :func:`read_cnf` parses a CNF file strictly: errors name the file and line.
* :func:`parse_solver_output` reads a solver's answer in the SAT-competition form
  (``s SATISFIABLE`` and ``v`` lines) or MiniSat's result-file form (``SAT`` then the model).
"""

from __future__ import annotations

import enum
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from reductions.errors import UserError, parse_int, read_text, reading

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


def _format_clause_block(block: np.ndarray | Sequence[Sequence[int]]) -> str:
    if isinstance(block, np.ndarray) and block.ndim == 2:
        # Fixed-width clauses (e.g. a block of binary clauses) format in one join.
        rows = block.astype(str)
        return "".join(" ".join(r) + " 0\n" for r in rows.tolist())
    return "".join(" ".join(map(str, clause)) + " 0\n" for clause in block)


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
                body.write(_format_clause_block(block))
            body.seek(0)
            with open_output(path) as out:
                for line in comments:
                    out.write(f"c {line}\n" if line else "c\n")
                out.write(f"p cnf {num_vars} {count}\n")
                shutil.copyfileobj(body, out, 1 << 20)
    return count


def read_cnf(path: str | Path) -> CnfFile:
    """Read a DIMACS CNF file; errors name the line. Clauses may span lines."""
    return parse_cnf(read_text(path, DimacsError), str(path))


def read_cnf_header(path: str | Path) -> CnfFile:
    """Only the comments and the ``p cnf`` line (no clauses): enough to decode a model of a
    file written by sudoku-bridge, without parsing a file of millions of clauses."""
    with reading(path, DimacsError), open(path, encoding="utf-8") as handle:
        return parse_cnf(handle, str(path), header_only=True)


def parse_cnf(text: str | Iterable[str], name: str = "<cnf>",
              header_only: bool = False) -> CnfFile:
    """Parse DIMACS CNF from a string or an iterable of lines (e.g. an open file).

    With ``header_only``, stop at the ``p cnf`` line: the result has the comments, the
    variable count and ``declared_clauses`` but no clauses.
    """
    lines = text.splitlines() if isinstance(text, str) else text
    comments: list[str] = []
    header: tuple[int, int] | None = None
    clauses: list[list[int]] = []
    current: list[int] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("c"):
            comments.append(line[1:].strip())
            continue
        if line.startswith("%"):  # SATLIB files end with '%' then '0'
            break
        if line.startswith("p"):
            parts = line.split()
            if header is not None:
                raise DimacsError(f"{name} line {number}: second 'p' header")
            if len(parts) != 4 or parts[1] != "cnf" or not all(
                    p.isdigit() for p in parts[2:]):
                raise DimacsError(
                    f"{name} line {number}: bad header {line!r}, expected 'p cnf VARS CLAUSES'")
            header = (int(parts[2]), int(parts[3]))
            if header_only:
                return CnfFile(header[0], [], comments, header[1])
            continue
        if header is None:
            raise DimacsError(f"{name} line {number}: clause before the 'p cnf' header")
        for tok in line.split():
            try:
                lit = int(tok)
            except ValueError:
                raise DimacsError(
                    f"{name} line {number}: {tok!r} is not an integer literal") from None
            if lit == 0:
                clauses.append(current)
                current = []
            elif abs(lit) > header[0]:
                raise DimacsError(
                    f"{name} line {number}: literal {lit} exceeds the declared "
                    f"{header[0]} variables")
            else:
                current.append(lit)
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


def parse_solver_output(text: str, name: str = "<solver output>") -> SolverAnswer:
    """Parse SAT-competition output (``s``/``v`` lines) or a MiniSat result file.

    Raises :class:`DimacsError` when the text holds neither form, or a model is malformed.
    """
    lines = [line.strip() for line in text.splitlines()]
    status_lines = [(i, line) for i, line in enumerate(lines, 1) if line.startswith("s ")]
    if status_lines:
        number, line = status_lines[0]
        word = line[2:].strip().upper()
        if word == "SATISFIABLE":
            model = []
            for i, vline in enumerate(lines, 1):
                if vline.startswith("v ") or vline == "v":
                    model.extend(_parse_literals(vline[1:].split(), name, i))
            if not model:
                raise DimacsError(f"{name} line {number}: SATISFIABLE but no 'v' model lines")
            return SolverAnswer(SatAnswer.SAT, _strip_zero(model, name))
        if word == "UNSATISFIABLE":
            return SolverAnswer(SatAnswer.UNSAT)
        if word in ("UNKNOWN", "INDETERMINATE"):
            return SolverAnswer(SatAnswer.UNKNOWN)
        raise DimacsError(f"{name} line {number}: unknown status {line!r}")
    content = [(i, line) for i, line in enumerate(lines, 1) if line and not line.startswith("c")]
    if content:
        number, first = content[0]
        word = first.upper()
        if word in ("SAT", "SATISFIABLE"):
            model = []
            for i, line in content[1:]:
                model.extend(_parse_literals(line.split(), name, i))
            if not model:
                raise DimacsError(f"{name} line {number}: SAT but no model follows")
            return SolverAnswer(SatAnswer.SAT, _strip_zero(model, name))
        if word in ("UNSAT", "UNSATISFIABLE"):
            return SolverAnswer(SatAnswer.UNSAT)
        if word in ("INDET", "UNKNOWN", "INDETERMINATE"):
            return SolverAnswer(SatAnswer.UNKNOWN)
        raise DimacsError(
            f"{name} line {number}: expected 's SATISFIABLE'-style status lines or a MiniSat "
            f"result (SAT/UNSAT), found {first[:40]!r}")
    raise DimacsError(f"{name}: empty solver output (no status line)")


def _parse_literals(tokens: list[str], name: str, number: int) -> list[int]:
    return [parse_int(tok, f"{name} line {number}", "literal", DimacsError) for tok in tokens]


def _strip_zero(model: list[int], name: str) -> list[int]:
    if model and model[-1] == 0:
        model = model[:-1]
    if 0 in model:
        raise DimacsError(f"{name}: a 0 inside the model")
    return model


def read_solver_output(path: str | Path) -> SolverAnswer:
    """A solver's answer saved in a file (stdout of a SAT-competition solver, or MiniSat's
    result file)."""
    return parse_solver_output(read_text(path, DimacsError), str(path))
