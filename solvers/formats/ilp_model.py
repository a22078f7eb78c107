"""Files of the Sudoku ILP: LP, fixed MPS and free MPS models that can be decoded alone.

:func:`write_model` writes a :class:`~reductions.encodings.ilp.SudokuIlp` as LP (PuLP's ``writeLP``,
names kept), fixed MPS (short names ``C<k>`` / ``R<k>``, k in base 36, every line within 80
characters: what ``glpsol --mps`` needs) or free MPS (names kept), each with comment lines in
front (``\\`` in LP, ``*`` in MPS) saying what the file is and recording its puzzle and clue
mode (:class:`~reductions.sudoku.puzzle_record.PuzzleRecord`, spelled as in the exact-cover files)
and its size. :func:`model_from_file` rebuilds the model from those comments alone and checks
the size line against it; :func:`column_names` maps the file's column names back to the
model's variables (a changed file is refused), and :func:`grid_from_solution` decodes a
solver's values with them. Which form a file is in is read from its content
(:func:`solvers.formats.mps.sniff_model_format`).

Decoding errors are :class:`~solvers.runtime.processes.ExternalSolverError`: the same reading serves
``decode ilp`` and the answers of the ILP programs the routes run.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from reductions.errors import UserError
from reductions.sudoku.grid import Grid
from reductions.encodings.ilp import CLUE_MODES, IlpError, SudokuIlp, SudokuToIlp, sudoku_ilp
from reductions.sudoku.puzzle_record import (MODEL_SPELLING, PuzzleRecord, comment_metadata,
                                             prefixed, read_comment_header)
from reductions.reading import DEFAULT_MEMORY_LIMIT
from reductions.estimate import ensure_fits
from reductions.encodings.sizes import ilp_estimate
from reductions.status import Status

from ..runtime.processes import ExternalSolverError
from .atomic import atomic_write, scratch_path
from .lp_solution import LpSolution, model_columns
from .mps import (FIXED_WIDTH, SENSES, ModelFormat, MpsRow, model_file_limit, short_name,
                  sniff_model_format, write_mps)

if TYPE_CHECKING:
    import pulp         # only in annotations (reductions.encodings.ilp imports it to build a model)

__all__ = ["COMMENT_PREFIX", "FILE_NAMES", "IlpAnswer", "MAGIC", "SUFFIXES",
           "answer_from_solution", "column_names", "grid_from_solution",
           "header_lines", "model_format", "model_from_file", "mps_parts", "puzzle_record",
           "read_metadata", "write_model"]

MAGIC = "sudoku-bridge ILP"
SUFFIXES = {".lp": ModelFormat.LP, ".mps": ModelFormat.MPS}
"""The form a model file gets by its name when none is asked for."""
COMMENT_PREFIX = {ModelFormat.LP: "\\", ModelFormat.MPS: "*", ModelFormat.FREE_MPS: "*"}
RECORD_WIDTH = {ModelFormat.LP: 200, ModelFormat.MPS: FIXED_WIDTH - 2, ModelFormat.FREE_MPS: 200}
"""The longest puzzle comment of each form: fixed MPS lines stay within 80 characters with
their ``* ``."""


def model_format(path: str | Path, fmt: str | None = None) -> ModelFormat:
    """The form to write: ``fmt`` when given, else by the suffix (.lp, .mps = fixed MPS)."""
    if fmt is not None:
        try:
            return ModelFormat(fmt)
        except ValueError:
            raise IlpError(f"unknown model format {fmt!r}; choose one of "
                           f"{', '.join(ModelFormat)}") from None
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise IlpError(f"{path}: unknown model format {suffix or '(no suffix)'!r}; "
                       f"use .lp or .mps, or --format {'|'.join(ModelFormat)}")
    return SUFFIXES[suffix]


def puzzle_record(model: SudokuIlp) -> PuzzleRecord:
    """Which puzzle a model file is about: the puzzle and the clue mode."""
    return PuzzleRecord(model.puzzle, (("clues", model.clues),))


def header_lines(model: SudokuIlp, fmt: ModelFormat) -> list[str]:
    """The comment texts in front of a model file (in fixed MPS each within 78 characters,
    so that the lines stay within 80 with their ``* ``)."""
    n = model.shape.size
    lines = [
        f"{MAGIC} model (Bartlett et al. 2008), {n}x{n} Sudoku",
        "x_R_C_D = 1: digit D in cell (R,C); rows, cols, blocks from 0, digits from 1",
        "equalities (= 1): cell_R_C, row_R_D, col_C_D, blk_K_D; clue_R_C per clue",
        *puzzle_record(model).comments(MODEL_SPELLING, RECORD_WIDTH[fmt]),
        f"size {model.num_variables} variables, {model.num_constraints} constraints, "
        f"{model.num_nonzeros} nonzeros",
    ]
    if fmt == ModelFormat.MPS:
        lines += [
            "names base36: column C<k> is the k-th variable, row R<k> the k-th constraint",
            "(k in base 36), in the order of 'emit ilp --format free-mps', which keeps",
            "the names above; decode ilp rebuilds them from the puzzle",
        ]
    return lines


def _constraints(problem: pulp.LpProblem) -> list[tuple[str, pulp.LpConstraint]]:
    """(name, constraint) in the order they were added: ``problem.constraints()`` from PuLP
    3.3 on (the mapping is deprecated there), the mapping before."""
    constraints = problem.constraints
    if callable(constraints):
        return [(c.name, c) for c in constraints()]
    return list(constraints.items())


def mps_parts(model: SudokuIlp, short: bool) -> tuple[list[str], list[MpsRow], list]:
    """(columns, rows, entries by column) of the model for :func:`write_mps`, in the model's
    order; ``short``: the names ``C<k>`` / ``R<k>``."""
    index = {v.name: j for j, v in enumerate(model.variables)}
    rows: list[MpsRow] = []
    entries: list[list[tuple[int, float]]] = [[] for _ in model.variables]
    for i, (name, constraint) in enumerate(_constraints(model.problem)):
        rows.append(MpsRow(short_name("R", i) if short else name, SENSES[constraint.sense],
                           -constraint.constant))
        for variable, coefficient in constraint.items():
            entries[index[variable.name]].append((i, coefficient))
    columns = [short_name("C", j) if short else v.name for j, v in enumerate(model.variables)]
    return columns, rows, entries


def write_model(path: str | Path, model: SudokuIlp, fmt: str | None = None) -> ModelFormat:
    """Write the model as LP, fixed MPS or free MPS (``fmt``, else by suffix), atomically,
    comments first; returns the form."""
    fmt = model_format(path, fmt)
    if fmt != ModelFormat.LP:
        columns, rows, entries = mps_parts(model, short=fmt == ModelFormat.MPS)
        with atomic_write(path) as out:
            write_mps(out, name="SUDOKU", columns=columns, rows=rows, entries=entries,
                      fixed=fmt == ModelFormat.MPS, comments=header_lines(model, fmt))
        return fmt
    # PuLP writes only to a file name: a scratch file beside the target (named so that a
    # killed writer's is removed by the next write).
    with scratch_path(path) as raw:
        model.problem.writeLP(str(raw))
        with atomic_write(path) as out, open(raw, encoding="utf-8") as body:
            for line in prefixed(COMMENT_PREFIX[fmt], header_lines(model, fmt)):
                out.write(line + "\n")
            shutil.copyfileobj(body, out)
    return fmt


def read_metadata(path: str | Path, *,
                  memory_limit: int = DEFAULT_MEMORY_LIMIT) -> dict[str, str]:
    """The ``key value`` comment lines at the top of a model file (LP or MPS, by content)."""
    prefix = COMMENT_PREFIX[sniff_model_format(path, ExternalSolverError)]
    comments = read_comment_header(path, prefix, model_file_limit(memory_limit),
                                   ExternalSolverError)
    return comment_metadata(comments, str(path), ExternalSolverError)


def model_from_file(path: str | Path, *,
                    memory_limit: int = DEFAULT_MEMORY_LIMIT) -> SudokuIlp:
    """Rebuild the model a file was written from (:func:`write_model`), from its comments
    (sized against ``memory_limit`` first)."""
    metadata = read_metadata(path, memory_limit=memory_limit)
    record = PuzzleRecord.from_metadata(metadata, MODEL_SPELLING, ("clues",), where=str(path),
                                        error=ExternalSolverError, clue_modes=CLUE_MODES)
    puzzle, clues = record.puzzle, record.setting("clues")
    n = puzzle.size
    ensure_fits(ilp_estimate(puzzle.shape), memory_limit,
                f"{path}: the {n}x{n} puzzle of its comments")
    model = sudoku_ilp(puzzle, clues)
    size = metadata.get("size", "")
    expected = (f"{model.num_variables} variables, {model.num_constraints} constraints, "
                f"{model.num_nonzeros} nonzeros")
    if size != expected:
        raise ExternalSolverError(f"{path}: the size comment says {size!r} but the puzzle "
                                  f"gives {expected!r}: the file was changed")
    return model


def column_names(model: SudokuIlp, path: str | Path) -> dict[str, str]:
    """The file's column names → the model's variable names: the same names (LP, free
    MPS; PuLP's ``__dummy`` column of an LP file kept as itself), or ``C<k>`` → the k-th
    variable (fixed MPS). Columns that are neither are an error: the file was changed."""
    columns = model_columns(path)
    names = [v.name for v in model.variables]
    if set(columns) - {"__dummy"} == set(names):
        return {name: name for name in columns}
    if columns == [short_name("C", k) for k in range(len(names))]:
        return dict(zip(columns, names))
    raise ExternalSolverError(f"{path}: its {len(columns)} columns are not the "
                              f"{len(names)} variables of the model its comments describe: "
                              f"the file was changed")


def grid_from_solution(rule: SudokuToIlp, solution: LpSolution, path: str | Path,
                       names: Mapping[str, str] | None = None) -> Grid:
    """Decode a solution file's values with the model's rule (:meth:`SudokuToIlp.decode
    <reductions.encodings.ilp.SudokuToIlp.decode>`: names checked, 0/1 checked; the grid
    not yet checked against the puzzle); ``names`` maps the model file's column names to
    the model's (:func:`column_names`; None: the model's own names)."""
    model = rule.target
    if names is None:
        names = {v.name: v.name for v in model.variables}
    values = {}
    file_names = {}
    for name, value in solution.values.items():
        if name not in names:
            if name == "__dummy":
                continue
            raise ExternalSolverError(f"{path} line {solution.lines[name]}: variable "
                                      f"{name[:40]} is not in the model")
        values[names[name]] = value
        file_names[names[name]] = name
    try:
        return rule.decode(values)
    except IlpError as exc:
        name = str(exc).split()[1] if str(exc).startswith("variable ") else None
        where = f" line {solution.lines[file_names[name]]}" if name in file_names else ""
        column = f" (column {file_names[name]} of the model file)" \
            if file_names.get(name, name) != name else ""
        raise ExternalSolverError(f"{path}{where}: {exc}{column}") from None


FILE_NAMES = {ModelFormat.LP: "model.lp", ModelFormat.MPS: "model.mps",
              ModelFormat.FREE_MPS: "model.free.mps"}
"""The model file each form is written to in a scratch folder for a program."""


@dataclass
class IlpAnswer:
    """One solver run: ``status`` (solved / no solution / unknown), the decoded grid (not yet
    verified) and the solver's own status words."""

    status: str
    grid: Grid | None = None
    detail: str = ""


def answer_from_solution(rule: SudokuToIlp, solution: LpSolution, where: str,
                         names: Mapping[str, str] | None = None) -> IlpAnswer:
    """Our answer from a solution file: its status, and for a solved one the decoded grid
    (not yet verified). A file without a status (CBC's csv) is solved only when its values
    make a solution of the puzzle, else unknown."""
    if solution.status in (Status.NO_SOLUTION, Status.UNKNOWN):
        return IlpAnswer(solution.status, None, f"solver status {solution.detail!r}")
    if solution.status is None:
        try:
            grid = grid_from_solution(rule, solution, where, names)
        except UserError:
            grid = None
        if grid is None or rule.problems(grid):
            return IlpAnswer(Status.UNKNOWN, None, f"{where} ({solution.detail}) does not "
                                                   f"say whether a solution was found, and "
                                                   f"its values are none")
        return IlpAnswer(Status.SOLVED, grid, solution.detail)
    return IlpAnswer(Status.SOLVED, grid_from_solution(rule, solution, where, names),
                     solution.detail)
