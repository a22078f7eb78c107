"""Solution files of LP/MIP solvers, every common form, recognised by their content.

:func:`read_lp_solution` reads what these tools write for a model and returns one
:class:`LpSolution` (our status, the solver's own words, and the variables' values by name):

==================  ===========================================  ==============================
format              written by                                   recognised by
==================  ===========================================  ==============================
``cbc``             ``cbc M solve solu F``                       ``Optimal - objective value``…
``cbc-csv``         ``cbc M solve printi csv solu F``            the header ``name,solution``
``highs``           HiGHS ``writeSolution(F, 0)`` (raw)          ``Model status`` on its own line
``highs-pretty``    HiGHS ``writeSolution(F, 1)``                ``Columns`` then ``Index Status``
``glpsol``          ``glpsol M -o F`` (printable)                ``Problem:`` … ``Status:``
``glpsol-raw``      ``glpsol M -w F`` (raw; columns by number)   ``s mip`` / ``s bas`` lines
``scip``            SCIP ``writeBestSol`` / ``write solution``   ``objective value:``, or
                                                                 ``no solution available``
==================  ===========================================  ==============================

Statuses: a solver's "optimal" or "feasible" (a time limit with an incumbent) is ``solved`` —
the values are then decoded and the grid verified, so a claim is never trusted; "infeasible"
(proved by the solver) is ``no solution``; anything else is ``unknown``. Two forms cannot say
"infeasible": CBC's csv has no status at all (``status`` is None: the values decide), and SCIP
writes ``no solution available`` both for an infeasible model and for a stopped search
(``unknown``). glpsol's raw form numbers the columns instead of naming them: the caller passes
the model's column names in glpsol's order (:func:`model_columns`).

Every error names the file and the line.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from reductions.errors import UserError, parse_int, shown
from reductions.reading import CHATTER_BYTES, DEFAULT_MEMORY_LIMIT, ReadLimit, read_text

from ..outcome import Status
from .mps import model_file_limit


class SolutionFormatError(UserError):
    """A solution file that is none of the known forms, or a malformed one."""


class LpSolutionFormat(enum.StrEnum):
    CBC = "cbc"
    CBC_CSV = "cbc-csv"
    HIGHS = "highs"
    HIGHS_PRETTY = "highs-pretty"
    GLPSOL = "glpsol"
    GLPSOL_RAW = "glpsol-raw"
    SCIP = "scip"


@dataclass
class LpSolution:
    """One solution file: its ``format``, our ``status`` (None: the file does not say),
    the solver's ``detail`` words, and the values by variable name with their line numbers."""

    format: LpSolutionFormat
    status: Status | None
    detail: str
    values: dict[str, float] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def set(self, name: str, token: str, where: str, number: int) -> None:
        self.values[name] = finite_value(token, f"{where} line {number}", name)
        self.lines[name] = number


def finite_value(token: str, where: str, name: str) -> float:
    """A variable's value: a finite number, or a one-line error naming the line."""
    try:
        value = float(token)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise SolutionFormatError(f"{where}: value {shown(token)} of {name[:40]} is not a "
                                  f"finite number")
    return value


SOLUTION_LINE_BYTES = 256
"""The most one variable takes in any solution form: its line (index, name, value, cost and
spacing; HiGHS's pretty form adds bounds and a status), and a row's line for each variable
(a Sudoku model has fewer rows than columns)."""


SOLUTION_BYTES_PER_BYTE = 8
"""Memory per byte of a solution file read back: its text, its lines, a value and a line
number per variable."""


def solution_limit(num_columns: int) -> ReadLimit:
    """The most a solution file of a model of ``num_columns`` variables can take."""
    return ReadLimit(CHATTER_BYTES + 2 * SOLUTION_LINE_BYTES * num_columns,
                     f"more than a solution of {num_columns:,} variables can take")


def read_lp_solution(path: str | Path, columns: Sequence[str] | None = None, *,
                     num_columns: int | None = None) -> LpSolution:
    """Read a solution file in any form of the module docstring, for a model of
    ``num_columns`` variables (default: as many as ``columns``, the model's column names in
    glpsol's order, needed only for glpsol's raw form; without either, what the default
    memory limit allows)."""
    if num_columns is None and columns is not None:
        num_columns = len(columns)
    limit = ReadLimit.share(DEFAULT_MEMORY_LIMIT, what="a solution file",
                            per_byte=SOLUTION_BYTES_PER_BYTE) if num_columns is None \
        else solution_limit(num_columns)
    lines = read_text(path, limit, SolutionFormatError).splitlines()
    return parse_lp_solution(lines, str(path), columns)


def parse_lp_solution(lines: list[str], where: str,
                      columns: Sequence[str] | None = None) -> LpSolution:
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise SolutionFormatError(f"{where}: empty solution file")
    head = lines[first].strip()
    if head == "Model status":
        return _highs(lines, where)
    if head == "Columns":
        return _highs_pretty(lines, where)
    if head.replace(" ", "") == "name,solution":
        return _cbc_csv(lines, where, first)
    if head.startswith(("Problem:", "c Problem:")) or head.startswith(("s mip", "s bas")):
        if head.startswith("Problem:"):
            return _glpsol(lines, where)
        return _glpsol_raw(lines, where, columns)
    if head.startswith(("objective value:", "solution status:")) \
            or head == "no solution available":
        return _scip(lines, where, first)
    if _CBC_STATUS.match(head):
        return _cbc(lines, where, first)
    raise SolutionFormatError(
        f"{where} line {first + 1}: not a solution file of CBC, HiGHS, glpsol or SCIP "
        f"(found {shown(head)})")


# ----------------------------------------------------------------------------- CBC

_CBC_STATUS = re.compile(r"^(Optimal|Infeasible|Integer infeasible|Stopped|Unbounded|"
                         r"Status unknown|Linear relaxation)\b")


def _cbc_status(words: str) -> Status:
    """Our status for CBC's first line, e.g. 'Optimal - objective value 0.00000000'."""
    tokens = words.split()
    if tokens[:1] == ["Optimal"]:
        return Status.SOLVED
    if tokens[:1] == ["Infeasible"] or tokens[:2] == ["Integer", "infeasible"]:
        return Status.NO_SOLUTION
    if tokens[:1] == ["Stopped"] and tokens[4:5] == ["objective"]:
        return Status.SOLVED      # stopped with a feasible point: decoded, then verified
    return Status.UNKNOWN


def _cbc(lines: list[str], where: str, first: int) -> LpSolution:
    words = lines[first].strip()
    result = LpSolution(LpSolutionFormat.CBC, _cbc_status(words), words)
    for number, raw in enumerate(lines[first + 1:], first + 2):
        tokens = raw.split()
        if not tokens:
            continue
        if tokens[0] == "**":          # CBC marks values outside their bounds
            tokens = tokens[1:]
        if len(tokens) < 3 or not tokens[0].isdigit():
            raise SolutionFormatError(f"{where} line {number}: expected 'index name value "
                                      f"[reduced cost]' as CBC writes, got "
                                      f"{shown(raw.strip())}")
        result.set(tokens[1], tokens[2], where, number)
    return result


def _cbc_csv(lines: list[str], where: str, first: int) -> LpSolution:
    result = LpSolution(LpSolutionFormat.CBC_CSV, None, "CBC's csv (no status)")
    for number, raw in enumerate(lines[first + 1:], first + 2):
        if not raw.strip():
            continue
        name, comma, value = raw.partition(",")
        if not comma or not name.strip():
            raise SolutionFormatError(f"{where} line {number}: expected 'name,value' as "
                                      f"CBC's printi csv writes, got {shown(raw.strip())}")
        result.set(name.strip(), value.strip(), where, number)
    return result


# ----------------------------------------------------------------------------- HiGHS

_HIGHS_STATUS = {"optimal": Status.SOLVED, "infeasible": Status.NO_SOLUTION}


def _highs(lines: list[str], where: str) -> LpSolution:
    words = lines[1].strip() if len(lines) > 1 else ""
    status = _HIGHS_STATUS.get(words.lower(), Status.UNKNOWN)
    result = LpSolution(LpSolutionFormat.HIGHS, status, words)
    start = next((i for i, line in enumerate(lines) if line.startswith("# Columns")), None)
    if start is None:
        if status == Status.SOLVED:
            raise SolutionFormatError(f"{where}: no '# Columns' section with the values")
        return result
    for number in range(start + 2, len(lines) + 1):
        raw = lines[number - 1]
        if raw.startswith("#") or not raw.strip():
            break
        tokens = raw.split()
        if len(tokens) < 2:
            raise SolutionFormatError(f"{where} line {number}: expected 'name value', got "
                                      f"{shown(raw.strip())}")
        result.set(tokens[0], tokens[1], where, number)
    primal = "\n".join(lines[:start])
    if status == Status.UNKNOWN and result.values and "\nFeasible" in primal:
        result.status = Status.SOLVED      # e.g. a time limit with a feasible point
    return result


def _highs_pretty(lines: list[str], where: str) -> LpSolution:
    """Columns table (Index Status Lower Upper Primal Dual Type Name), then Rows, then
    ``Model status: ...``. An infeasible model leaves the Primal column empty."""
    words = next((line.split(":", 1)[1].strip() for line in lines
                  if line.startswith("Model status:")), "")
    status = _HIGHS_STATUS.get(words.lower(), Status.UNKNOWN)
    result = LpSolution(LpSolutionFormat.HIGHS_PRETTY, status, words)
    header = lines[1] if len(lines) > 1 else ""
    if not re.search(r"\bUpper +Primal\b.*\bName\b", header):
        raise SolutionFormatError(f"{where} line 2: expected the column header 'Index Status "
                                  f"Lower Upper Primal Dual Type Name'")
    # Numbers are right-aligned under their header word: Primal's value lies between the
    # end of "Upper" and the end of "Primal".
    start = header.index("Upper") + len("Upper")
    end = header.index("Primal") + len("Primal")
    for number in range(3, len(lines) + 1):
        raw = lines[number - 1]
        if not raw.strip() or not raw.split()[0].isdigit():
            break
        name = raw.split()[-1]
        value = raw[start:end].strip()
        if not value:
            if status == Status.SOLVED:
                raise SolutionFormatError(f"{where} line {number}: no primal value for "
                                          f"{name[:40]}")
            continue
        result.set(name, value, where, number)
    return result


# ----------------------------------------------------------------------------- glpsol

_GLPSOL_STATUS = {
    "INTEGER OPTIMAL": Status.SOLVED, "INTEGER NON-OPTIMAL": Status.SOLVED,
    "OPTIMAL": Status.SOLVED, "FEASIBLE": Status.SOLVED,
    "INTEGER EMPTY": Status.NO_SOLUTION, "EMPTY": Status.NO_SOLUTION,
    "INFEASIBLE (FINAL)": Status.NO_SOLUTION,
}
"""glpsol's printable status → ours (INTEGER EMPTY: no integer feasible solution exists;
INFEASIBLE (FINAL): the LP relaxation has none, so the 0/1 problem has none either)."""


def _glpsol(lines: list[str], where: str) -> LpSolution:
    words = next((line.split(":", 1)[1].strip() for line in lines
                  if line.startswith("Status:")), "")
    result = LpSolution(LpSolutionFormat.GLPSOL, _GLPSOL_STATUS.get(words, Status.UNKNOWN),
                        words)
    header = next((i for i, line in enumerate(lines) if "Column name" in line), None)
    if header is None:
        raise SolutionFormatError(f"{where}: no column table ('No. Column name Activity')")
    number = header + 3                      # past the header and the dashes
    pending = None                           # a long name gets a line of its own
    while number <= len(lines):
        tokens = lines[number - 1].split()
        if not tokens or not (tokens[0].isdigit() or pending):
            break
        if pending is None and len(tokens) == 2:
            pending = tokens[1]
        else:
            name = pending if pending is not None else tokens[1]
            values = tokens if pending is not None else tokens[2:]
            if values[:1] == ["*"]:          # the mark of an integer column
                values = values[1:]
            if not values:
                raise SolutionFormatError(f"{where} line {number}: no activity for "
                                          f"{name[:40]}")
            result.set(name, values[0], where, number)
            pending = None
        number += 1
    return result


_GLPSOL_RAW_MIP = {"o": Status.SOLVED, "f": Status.SOLVED, "n": Status.NO_SOLUTION}
_GLPSOL_RAW_LP = {"f": Status.SOLVED, "n": Status.NO_SOLUTION}


def _glpsol_raw(lines: list[str], where: str, columns: Sequence[str] | None) -> LpSolution:
    """``s mip ROWS COLS STATUS OBJ`` / ``s bas ROWS COLS PRIMAL DUAL OBJ``, then ``i`` row
    and ``j`` column lines (``j COL VALUE`` for a MIP, ``j COL STAT PRIMAL DUAL`` for an LP)."""
    number, tokens = next(((k, line.split()) for k, line in enumerate(lines, 1)
                           if line.startswith("s ")), (0, []))
    if len(tokens) < 5 or tokens[1] not in ("mip", "bas", "ipt"):
        raise SolutionFormatError(f"{where} line {number}: expected glpsol's 's mip ...' or "
                                  f"'s bas ...' line")
    kind = tokens[1]
    table = _GLPSOL_RAW_MIP if kind == "mip" else _GLPSOL_RAW_LP
    result = LpSolution(LpSolutionFormat.GLPSOL_RAW, table.get(tokens[4], Status.UNKNOWN),
                        " ".join(tokens[1:]))
    count = parse_int(tokens[3], f"{where} line {number}", "column count",
                      SolutionFormatError)
    if columns is not None and count != len(columns):
        raise SolutionFormatError(f"{where} line {number}: {count} columns, but the model "
                                  f"has {len(columns)}")
    for k, raw in enumerate(lines[number:], number + 1):
        parts = raw.split()
        if not parts or parts[0] != "j":
            continue
        if columns is None:
            raise SolutionFormatError(f"{where}: glpsol's raw solution numbers the columns; "
                                      f"the model file is needed to name them")
        index = parse_int(parts[1] if len(parts) > 1 else "", f"{where} line {k}",
                          "column number", SolutionFormatError)
        if not 1 <= index <= len(columns):
            raise SolutionFormatError(f"{where} line {k}: column {index} is out of range "
                                      f"(1..{len(columns)})")
        value = parts[2] if kind == "mip" else (parts[3] if len(parts) > 3 else "")
        result.set(columns[index - 1], value, where, k)
    return result


# ----------------------------------------------------------------------------- SCIP

def _scip(lines: list[str], where: str, first: int) -> LpSolution:
    """``[solution status: ...]``, ``objective value: V``, then ``name value (obj:c)`` for the
    nonzero variables only; ``no solution available`` when SCIP has none (infeasible or
    stopped: it does not say which)."""
    head = lines[first].strip()
    if head == "no solution available":
        return LpSolution(LpSolutionFormat.SCIP, Status.UNKNOWN, head)
    result = LpSolution(LpSolutionFormat.SCIP, Status.SOLVED, head)
    for number, raw in enumerate(lines[first:], first + 1):
        line = raw.strip()
        if not line or line.startswith(("solution status:", "objective value:")):
            if line.startswith("solution status:"):
                result.detail = line
            continue
        tokens = line.split()
        if len(tokens) < 2:
            raise SolutionFormatError(f"{where} line {number}: expected 'name value "
                                      f"(obj:...)' as SCIP writes, got {shown(line)}")
        result.set(tokens[0], tokens[1], where, number)
    return result


# ----------------------------------------------------------------------------- models

_LP_KEYWORDS = {"minimize", "maximize", "minimise", "maximise", "min", "max", "subject",
                "to", "such", "that", "st", "s.t.", "st.", "bounds", "bound", "general",
                "generals", "gen", "integer", "integers", "binary", "binaries", "bin",
                "end", "free", "inf", "infinity"}
_LP_TOKEN = re.compile(r"[A-Za-z_!\"#$%&()/,;?@`'{}|~][A-Za-z0-9_!\"#$%&()/,.;?@`'{}|~]*:?")


def model_columns(path: str | Path, *, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
    """The model's column names in the order glpsol numbers them: the order of the COLUMNS
    section of an MPS file, or of first appearance in a CPLEX LP file (comments, section
    keywords and ``label:`` names skipped)."""
    text = read_text(path, model_file_limit(memory_limit), SolutionFormatError)
    names: dict[str, None] = {}
    if re.search(r"^COLUMNS\s*$", text, re.M):
        section = False
        for line in text.splitlines():
            if line.startswith("*") or not line.strip():
                continue
            if not line[0].isspace():
                section = line.split()[0] == "COLUMNS"
                continue
            tokens = line.split()
            if section and "'MARKER'" not in tokens:
                names.setdefault(tokens[0])
        return list(names)
    for line in text.splitlines():
        line = line.split("\\", 1)[0]
        for token in _LP_TOKEN.findall(line):
            if token.endswith(":") or token.lower() in _LP_KEYWORDS:
                continue
            names.setdefault(token)
    return list(names)
