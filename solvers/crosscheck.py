"""Cross-checking: the same puzzles through several routes, every answer verified, and any
disagreement shown plainly.

The routes are those of :data:`solvers.routes.ROUTES`. :func:`run_crosscheck` runs every (puzzle, route) pair — in this
process, on a local process pool, or on a Dask distributed cluster — streams one JSON record per
pair to a JSON-lines file as results arrive (so an interrupted run keeps what finished, and
``resume`` skips it), and :func:`find_mismatches` then compares the routes puzzle by puzzle.

A **mismatch** is: a route returning a grid that does not solve the puzzle; "no solution" from
one route where another solved it (solved grids are verified, so the "no solution" is wrong);
and, when uniqueness is checked, routes disagreeing about it or returning different grids for a
puzzle they call unique. Different grids are *not* a mismatch when uniqueness is not checked —
the puzzle may have several solutions. A route that crashes is an **error**, listed too. A
route that does not apply to a puzzle's shape (the HCP routes on non-square blocks) is recorded
as **not applicable**, and one that cannot run here (its program or package is missing) as
**not available**; neither is a mismatch or an error. The record statuses are
:class:`RecordStatus`.

Interruptions: each record is appended in one write (to a file named ``.gz``, ``.xz`` or
``.bz2``, as a compressed member of its own), so a run killed at any point leaves complete
records and at most a torn last line or member, which ``resume`` cuts off before appending:
byte-exact in a plain file, whatever its line ends; by rewriting the complete records
(atomically) in a compressed one. ``resume`` believes nothing it reads back: what it keeps
is re-checked, and the claims no record can prove are run again (:func:`run_crosscheck`).
Pool workers die with the process that started them (even when it is killed by SIGKILL), and
are killed at once on Ctrl-C, SIGTERM or an error. A Dask run without any worker for
``worker_timeout`` seconds stops with a :class:`CrosscheckError` instead of waiting forever.
"""

from __future__ import annotations

import codecs
import contextlib
import enum
import io
import json
import math
import os
import statistics
import time
import traceback
from concurrent.futures import as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from reductions.errors import UserError
from reductions.grid import (MAX_GRID_TEXT, SYMBOLS, Grid, Shape, clue_rows, format_grid,
                             parse_grid, solution_problems, solve_checks)
from reductions.reading import DEFAULT_MEMORY_LIMIT, ReadLimit, compression, read_lines

from .runtime.processes import worker_pool
from .formats.atomic import atomic_write, check_output_target, compressor_for
from .certify.checkers import ProofRejected
from .outcome import Outcome, SolverUnavailable, Status, WrongAnswer
from .routes import ROUTES, template_route, template_routes

SIZE_KEYS = ("edges", "arcs", "clauses", "nonzeros", "options", "variables", "vertices")


class RecordStatus(enum.StrEnum):
    """The status of one (puzzle, route) record: a route's :class:`~solvers.outcome.Status`,
    or why there is none. The values are the words written to the JSON-lines file."""

    SOLVED = Status.SOLVED.value
    NO_SOLUTION = Status.NO_SOLUTION.value
    UNKNOWN = Status.UNKNOWN.value
    ERROR = "error"                       # the route crashed, or the puzzle line is unreadable
    NOT_APPLICABLE = "not applicable"     # the route does not take this puzzle's shape
    NOT_AVAILABLE = "not available"       # the route cannot run here (program/package missing)


TIMED = (RecordStatus.SOLVED, RecordStatus.NO_SOLUTION, RecordStatus.UNKNOWN)
"""Statuses whose times are route times."""


class CrosscheckError(UserError):
    """Bad cross-check request or a run that cannot go on: unknown route, unreadable results
    file, no Dask worker, a worker process killed."""


DEFAULT_ROUTES = ["sat", "sat-glucose", "exact-cover", "ilp"]
"""Four routes through three different reductions, each fast on 9×9 (milliseconds); the HCP
routes (about 0.2 s a puzzle) are asked for by name."""


# ----------------------------------------------------------------------------- records

@dataclass
class RouteResult:
    """One (puzzle, route) run: the JSON-lines record."""

    puzzle_id: str
    puzzle: str
    route: str
    status: RecordStatus
    seconds: float
    verified: bool | None = None      # the grid solves the puzzle (None: no grid)
    solution: str | None = None
    unique: bool | None = None
    second_solution: str | None = None
    size: int | None = None           # the instance's main size (edges, clauses, ...)
    size_kind: str | None = None
    error: str | None = None          # the error, or why the route did not run
    certified: str | None = None      # the checker that accepted the negative claim's proof
    resume_problem: str | None = field(default=None, compare=False)
    """Why this pair's record in the file being resumed failed its re-check (names the file
    and line): the pair is a mismatch. Not written to the file: each resume checks anew."""

    def __post_init__(self) -> None:
        self.status = RecordStatus(self.status)

    @classmethod
    def from_json(cls, line: str) -> "RouteResult":
        """A record read back; a field of the wrong type or value (NaN or Infinity, which
        are not JSON; a negative time or size; a size of no known kind) is a ValueError:
        the line is not a record. Whether its answer holds is :func:`recheck`'s to say."""
        fields = _DECODER.decode(line)
        if type(fields) is not dict or not fields.keys() <= _FIELD_TYPES.keys():
            raise ValueError("not the fields of a record")
        for name, value in fields.items():
            if type(value) not in _FIELD_TYPES[name]:
                raise ValueError(f"field {name!r} is {type(value).__name__}")
        record = cls(**fields)
        if not (math.isfinite(record.seconds) and record.seconds >= 0):
            raise ValueError(f"'seconds' is {record.seconds!r}, not a time")
        if (record.size is None) != (record.size_kind is None) \
                or record.size is not None and (record.size < 0
                                                or record.size_kind not in SIZE_KEYS):
            raise ValueError(f"'size' {record.size!r} of {record.size_kind!r} is not an "
                             f"instance size")
        return record

    def json_line(self) -> bytes:
        # vars(), not dataclasses.asdict: the fields are plain values, and asdict's deep
        # copies were most of the time of rewriting a 245k-record file. allow_nan=False:
        # what is written is JSON, always
        fields = dict(vars(self))
        del fields["resume_problem"]
        if fields["certified"] is None:     # written by --certify runs only
            del fields["certified"]
        return (json.dumps(fields, allow_nan=False) + "\n").encode("utf-8")


def _not_json(word: str):
    """Python's JSON reader takes NaN, Infinity and -Infinity by default; a record has
    none."""
    raise ValueError(f"{word} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_not_json)
"""One decoder for every record read back (json.loads with an option makes one a call)."""


_FIELD_TYPES = {"puzzle_id": (str,), "puzzle": (str,), "route": (str,), "status": (str,),
                "seconds": (int, float), "verified": (bool, type(None)),
                "solution": (str, type(None)), "unique": (bool, type(None)),
                "second_solution": (str, type(None)), "size": (int, type(None)),
                "size_kind": (str, type(None)), "error": (str, type(None)),
                "certified": (str, type(None))}
"""The types each field of a record read back may have (exactly: a bool is no number)."""


@dataclass(frozen=True, kw_only=True)
class Task:
    """One (puzzle, route) pair to run, with the options of the run."""

    route: str
    puzzle_id: str
    puzzle: str                       # the puzzle text as given
    shape: Shape | None = None
    unique: bool = False
    time_limit: float | None = None
    template: str | None = None       # the NAME=TARGET:CMD of a route defined by --route
    certify: tuple[str, int] | None = None
    """--certify: (the checker's name, the memory limit) for the routes that certify."""

    def record(self, status: RecordStatus, seconds: float = 0.0, **fields) -> RouteResult:
        return RouteResult(self.puzzle_id, self.puzzle, self.route, status, seconds, **fields)


def run_route(task: Task) -> RouteResult:
    """Run one (puzzle, route) pair; never raises (a failure is an 'error' record)."""
    start = time.perf_counter()
    try:
        puzzle = parse_grid(task.puzzle, task.shape)
    except UserError as exc:
        return task.record(RecordStatus.ERROR, error=str(exc))
    route = template_route(task.template) if task.template else ROUTES[task.route]
    reason = route.unavailable()
    if reason:
        return task.record(RecordStatus.NOT_AVAILABLE, error=reason)
    reason = route.not_applicable(puzzle.shape)
    if reason:
        return task.record(RecordStatus.NOT_APPLICABLE, error=reason)
    try:
        if task.certify is not None and certifies(route):
            outcome = _certified_outcome(task, route, puzzle)
        else:
            outcome = route.solve(puzzle, unique=task.unique and route.checks_uniqueness,
                                  time_limit=task.time_limit)
    except SolverUnavailable as exc:           # found out only when starting it
        return task.record(RecordStatus.NOT_AVAILABLE, error=str(exc))
    except ProofRejected as exc:
        # the solver's negative claim and the checker disagree: no answer, an error
        return task.record(RecordStatus.ERROR, time.perf_counter() - start,
                           error=f"proof rejected: {exc}")
    except WrongAnswer as exc:
        # the route produced a grid and the check refused it: recorded as unverified
        return task.record(RecordStatus.SOLVED, time.perf_counter() - start, verified=False,
                           error=str(exc))
    except Exception as exc:  # noqa: BLE001 - a crashing route must not stop the batch
        return task.record(RecordStatus.ERROR, time.perf_counter() - start,
                           error=_error_text(exc))
    return _outcome_record(task, puzzle, outcome, time.perf_counter() - start)


def certifies(route) -> bool:
    """Does ``route`` back its negative answers by checked proofs under --certify? The CNF
    routes with a proof-logging pysat solver or an outside program that writes a proof;
    not ``sat-incremental`` (:mod:`solvers.cli.certify`)."""
    from .certify.proofs import proof_solver
    from .routes.registry import Target
    from .tools.dimacs_programs import proof_command
    if route.target != Target.CNF or route.name == "sat-incremental":
        return False
    try:
        if route.presets.get("solver_cmd") is not None:
            proof_command(route.presets["solver_cmd"])
        else:
            proof_solver(route.presets.get("solver") or "cadical195")
    except SolverUnavailable:
        return False
    return True


def _certified_outcome(task: Task, route, puzzle: Grid) -> Outcome:
    """The route's answer with its negative claims certified: its solver (or program) and
    encoding on the plain formula, clues as unit clauses."""
    from .certify.checkers import find_checker
    from .certify.outside import certified_with_command
    from .certify.sudoku import CertifyOptions, certified_solve
    checker, memory = task.certify
    settings = dict(certify=CertifyOptions(find_checker(checker), memory),
                    encoding=route.presets.get("encoding") or "extended",
                    amo=route.presets.get("amo") or "auto", unique=task.unique,
                    time_limit=task.time_limit)
    if route.presets.get("solver_cmd") is not None:
        return certified_with_command(puzzle, route.presets["solver_cmd"], **settings)
    return certified_solve(puzzle, solver=route.presets.get("solver"), **settings)


def _error_text(exc: Exception) -> str:
    """A route's failure: the one-line message of a user error, else also where it came
    from (the last frames of the traceback)."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, UserError):
        return text
    return f"{text}\n{traceback.format_exc(limit=3)}"


def _outcome_record(task: Task, puzzle: Grid, outcome: Outcome, seconds: float) -> RouteResult:
    """The record of a route's answer, its grids verified here again (the record must not
    depend on the route's own checking)."""
    result = task.record(RecordStatus(outcome.status), seconds, unique=outcome.unique,
                         certified=outcome.stats.get("certified"))
    for key in SIZE_KEYS:
        if isinstance(outcome.stats.get(key), int):
            result.size, result.size_kind = outcome.stats[key], key
            break
    if outcome.grid is not None:
        result.solution = format_grid(outcome.grid, "auto")
        problems = solution_problems(puzzle, outcome.grid)
        result.verified = not problems
        if problems:
            result.error = "; ".join(problems[:3])
    if outcome.second is not None:
        result.second_solution = format_grid(outcome.second, "auto")
        if solution_problems(puzzle, outcome.second):
            result.verified = False
            result.error = "the second solution is not valid"
    return result


# ----------------------------------------------------------------------------- results file

RECORD_LINE = 3 * MAX_GRID_TEXT + (1 << 16)
"""The longest record line: the puzzle, a solution and a second solution written out, and an
error (a one-line message, or one with three frames of traceback)."""

RESULTS_BYTES_PER_BYTE = 4
RESULTS_BYTES_PER_LINE = 1024
"""What the records of a results file cost in memory once read back (a record object and its
strings: about 4 bytes per byte of JSON and 1 KiB per record), counted against
``--max-memory`` while the file is read."""


def results_limit(memory_limit: int) -> ReadLimit:
    """What a results file may hold: as many records as the memory limit allows, each line
    no longer than a record can be."""
    return ReadLimit.share(memory_limit, what="a cross-check results file",
                           per_byte=RESULTS_BYTES_PER_BYTE, per_line=RESULTS_BYTES_PER_LINE
                           ).lines(RECORD_LINE, "longer than any cross-check record")


def read_results(path: Path, *, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> list[RouteResult]:
    """The complete records of a JSON-lines results file, plain or compressed (a torn last
    line, or a compressed member cut off at the end, is left out; any other line that is
    not a record is a :class:`CrosscheckError` naming the file and line). The records are
    read as they were written; :func:`recheck` says whether their answers hold."""
    return [record for _, record in _complete_records(path, memory_limit).records]


@dataclass
class _ResultsFile:
    """What :func:`_complete_records` found in a results file."""

    records: list[tuple[int, RouteResult]]     # (line number, record): every complete one
    end: int       # the bytes up to the end of the last one (of a plain file: where to cut)
    torn: bool     # it ends with a torn line, or a compressed member cut off


def _complete_records(path: Path, memory_limit: int) -> _ResultsFile:
    """Every complete record of ``path``, with its line number, and where the last one ends.

    A record is complete when its line ends (``\n``, ``\r\n`` or ``\r``). A last line
    without an end is a write cut off by an interruption, and so is a compressed file's
    last member cut off (records are appended a member each): either is left out. A line
    with an end that is not a record is corruption, refused rather than guessed around,
    wherever it is. The file streams through :func:`results_limit`.
    """
    records: list[tuple[int, RouteResult]] = []
    end = offset = 0
    for number, line in read_lines(path, results_limit(memory_limit), CrosscheckError,
                                   ends=True, cut_off_ok=True):
        if not line.endswith(("\n", "\r")):            # only ever the last line
            return _ResultsFile(records, end, torn=True)
        offset += len(line) if line.isascii() else len(line.encode("utf-8"))
        if line.isspace():
            continue
        try:
            records.append((number, RouteResult.from_json(line)))
        except (ValueError, TypeError) as exc:     # JSONDecodeError too
            _corrupt(path, number, exc)
        end = offset
    return _ResultsFile(records, end, torn=False)


def _corrupt(path: Path, number: int, exc: Exception) -> None:
    raise CrosscheckError(f"{path} line {number}: not a cross-check record "
                          f"({_first_line(exc)}); fix or remove the line, or run again "
                          f"without --resume") from None


RERUN = (RecordStatus.NO_SOLUTION, RecordStatus.NOT_APPLICABLE, RecordStatus.NOT_AVAILABLE)
"""Records that ``resume`` does not keep but runs again: a claim that cannot be re-checked
from the record (no solution, does not apply), or that may have changed (the program may
have been installed since). A "no solution" contradicted by the new run is a mismatch. So
are some solved records (:func:`_kept`)."""


@dataclass
class Resumed:
    """What a resumed run starts from: the records kept (each re-checked), and where each
    pair run again had its record (``FILE line N``), to compare the new answer with."""

    kept: list[RouteResult]
    claims: dict[tuple[str, str], tuple[str, RouteResult]]


def _resumed_records(path: Path, puzzles: list[tuple[str, str]], routes: list[str], *,
                     verdicts: set[str], shape: Shape | None, memory_limit: int) -> Resumed:
    """The records of an interrupted run that this run can keep, the file made ready for
    appending first (:func:`_ready_to_append`).

    Records of other puzzles or routes are left out (the final file holds this run's pairs).
    A record whose puzzle id names a different puzzle now is an error: the file is from
    another run (refused before the file is touched). ``verdicts``: the routes whose records
    carry a uniqueness verdict in this run. A record is kept or run again as :func:`_kept`
    says; every record kept is re-checked as a fresh one would be (:func:`recheck`).
    """
    if not path.exists():
        return Resumed([], {})
    found = _complete_records(path, memory_limit)
    texts = dict(puzzles)
    kept: dict[tuple[str, str], tuple[str, RouteResult]] = {}
    claims: dict[tuple[str, str], tuple[str, RouteResult]] = {}
    for number, record in found.records:
        if record.puzzle_id in texts and record.puzzle != texts[record.puzzle_id]:
            raise CrosscheckError(f"{path} line {number}: the record of {record.puzzle_id} is "
                                  f"for another puzzle than the one given now; resume with "
                                  f"the same puzzles, or run again without --resume")
        if record.puzzle_id not in texts or record.route not in routes:
            continue
        pair = record.puzzle_id, record.route
        kept.pop(pair, None)
        claims.pop(pair, None)
        keep = _kept(record, verdict=record.route in verdicts)
        (kept if keep else claims)[pair] = f"{path} line {number}", record
    _ready_to_append(path, found)
    for _, record in kept.values():
        record.certified = None             # earned by a run, never read back
    for where, record, problem in recheck(list(kept.values()), shape):
        if record.status == RecordStatus.SOLVED:
            record.verified = False
        record.error = record.resume_problem = f"{where}: {problem}"
    return Resumed([record for _, record in kept.values()], claims)


def _kept(record: RouteResult, *, verdict: bool) -> bool:
    """Whether resume keeps ``record`` (to re-check it) rather than run its pair again.

    Run again: the statuses of :data:`RERUN`, and a solved record whose uniqueness verdict
    is not one to keep. Where the run checks uniqueness (``verdict``), only "several" is
    kept: its second grid shows it. "Unique" is a claim that no record can prove (the
    route proves it again), and no verdict at all is a record of a run without the check
    (run again, the check is made, and the file ends as an uninterrupted run's). Where the
    run does not check it, a record with a verdict or a second grid is not one this run
    would write: run again too.
    """
    if record.status in RERUN:
        return False
    if record.status != RecordStatus.SOLVED:
        return True
    if verdict:
        return record.unique is False
    return record.unique is None and record.second_solution is None


def _ready_to_append(path: Path, found: _ResultsFile) -> None:
    """Make ``path`` end with its last complete record, in the format its name says, so
    that new records can follow it. A plain file named so is cut there (byte-exact,
    whatever its line ends); a compressed one named so is left as it is unless it ends
    torn. Any other — torn and compressed, compressed and named plain, plain and named
    compressed, plain with a byte-order mark (which reading drops, so the records' lengths
    do not add up to the file's) — is rewritten with its complete records in the format its
    name says (atomically: an interruption leaves it as it was), since what is compressed
    cannot be cut in place."""
    named = path.suffix.lower() if compressor_for(path) is not None else None
    found_format = compression(path, CrosscheckError)
    content = found_format.suffix if found_format is not None else None
    if content is None and named is None and not _starts_with_bom(path):
        try:
            if found.end < path.stat().st_size:
                os.truncate(path, found.end)
        except OSError as exc:
            raise CrosscheckError(f"{path}: cannot write ({exc.strerror})") from None
        return
    if content == named and not found.torn:
        return
    with atomic_write(path, "wb") as out:
        for _, record in found.records:
            out.write(record.json_line())


def _starts_with_bom(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(3) == codecs.BOM_UTF8
    except OSError as exc:
        raise CrosscheckError(f"{path}: cannot read ({exc.strerror})") from None


def recheck(records: list[tuple[str, RouteResult]], shape: Shape | None
            ) -> Iterator[tuple[str, RouteResult, str]]:
    """(where, record, why) for every record read back that does not hold, checked as a
    fresh record is made: a solved record's grid (and second grid) must solve its puzzle —
    by :func:`~reductions.grid.solve_checks` on all of them at once, and
    :func:`~reductions.grid.solution_problems` to say what is wrong — and its verdicts on
    them must be the ones they earn; a record of another status must have the fields a
    fresh one has (:func:`_fields_problem`)."""
    solved = [(where, r) for where, r in records if r.status == RecordStatus.SOLVED]
    grids = [(k, what, r.puzzle, text) for k, (_, r) in enumerate(solved)
             for what, text in (("its grid", r.solution), ("its second grid", r.second_solution))
             if text is not None]
    failed = {}
    for k, problem in _failing_grids(grids, shape):
        failed.setdefault(k, problem)
    for k, (where, r) in enumerate(solved):
        problem = failed.get(k) or _verdict_problem(r)
        if problem is not None:
            yield where, r, problem
    for where, r in records:
        problem = None if r.status == RecordStatus.SOLVED else _fields_problem(r)
        if problem is not None:
            yield where, r, problem


def _verdict_problem(record: RouteResult) -> str | None:
    """What is wrong with a solved record's verdicts, its grids being right (or absent)."""
    if record.solution is None:
        # a grid the route's own check refused (WrongAnswer): kept as the invalid answer
        if record.verified is not False or record.error is None:
            return "the record says solved but has no grid"
        if record.unique is not None or record.second_solution is not None:
            return "the record has a uniqueness verdict but no grid"
        return None
    if record.second_solution is not None and (
            record.unique is not False or record.second_solution == record.solution):
        return "its second grid does not show the puzzle has several solutions"
    if record.unique is False and record.second_solution is None:
        return "the record says several solutions but has no second grid"
    if record.verified is not True:
        return "the record says its grid was not verified, yet it solves the puzzle"
    if record.error is not None:
        return "the record carries an error, yet its grid solves the puzzle"
    return None


def _fields_problem(record: RouteResult) -> str | None:
    """What a record of a status other than solved holds that a fresh one never does: a
    grid, a verdict, an instance size with an error, an error missing or out of place."""
    if record.solution is not None or record.second_solution is not None:
        return f"the record says {record.status} but has a grid"
    if record.verified is not None or record.unique is not None:
        return f"the record says {record.status} but has a verdict on a grid"
    if record.status == RecordStatus.ERROR and (record.error is None
                                                or record.size is not None):
        return "the record says error but has no error message, or an instance size"
    if record.status == RecordStatus.UNKNOWN and record.error is not None:
        return "the record says unknown but carries an error"
    return None


CHECK_ROWS = 1 << 14
"""Grids checked by one array pass (bounds the arrays: about 2 KB a 9×9 grid)."""


def _failing_grids(grids: list[tuple[int, str, str, str]], shape: Shape | None
                   ) -> Iterator[tuple[int, str]]:
    """(k, why) for each (k, what, puzzle text, grid text) whose grid does not solve the
    puzzle. Each distinct (puzzle, grid) pair is checked once; one-line grids are checked in
    array passes of :data:`CHECK_ROWS` (a 245,755-record file in about a second), the others,
    and those that fail, go through the parser, which says what is wrong."""
    pairs: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for k, what, puzzle, text in grids:
        pairs.setdefault((puzzle, text), []).append((k, what))
    fast: dict[Shape, list[tuple[str, str]]] = {}
    slow = []
    for pair in pairs:
        puzzle, text = pair
        line_shape = shape or _one_line_shape(puzzle)
        if line_shape is not None and len(puzzle) == len(text) == line_shape.size ** 2 \
                and puzzle.isascii() and text.isascii():
            fast.setdefault(line_shape, []).append(pair)
        else:
            slow.append(pair)
    for line_shape, checked in fast.items():
        for start in range(0, len(checked), CHECK_ROWS):
            part = checked[start:start + CHECK_ROWS]
            good = solve_checks(clue_rows([p for p, _ in part], line_shape),
                                clue_rows([t for _, t in part], line_shape), line_shape)
            slow.extend(pair for pair, ok in zip(part, good) if not ok)
    for puzzle, text in slow:
        for k, what in pairs[puzzle, text]:
            problem = _grid_problem(what, puzzle, text, shape)
            if problem is not None:
                yield k, problem


def _one_line_shape(text: str) -> Shape | None:
    """The shape of a one-line puzzle of N² symbols, or None."""
    n = math.isqrt(len(text))
    if n * n != len(text) or not 4 <= n <= len(SYMBOLS):
        return None
    try:
        return Shape.for_size(n)
    except UserError:
        return None


def _grid_problem(what: str, puzzle_text: str, text: str, shape: Shape | None) -> str | None:
    """Why the grid ``text`` does not solve the puzzle, in words, or None when it does."""
    try:
        puzzle = parse_grid(puzzle_text, shape)
    except UserError as exc:
        return f"the record says solved, but the puzzle does not read ({_first_line(exc)})"
    try:
        grid = parse_grid(text, puzzle.shape, check=False)
    except UserError as exc:
        return f"{what} does not read ({_first_line(exc)})"
    problems = solution_problems(puzzle, grid)
    if problems:
        return f"{what} does not solve the puzzle ({'; '.join(problems[:3])})"
    return None


def _contradicted(result: RouteResult, claims: dict[tuple[str, str], tuple[str, RouteResult]]
                  ) -> None:
    """Mark a new record that contradicts the record it replaces: where the route, run
    again, solved the puzzle (its grid verified), a resumed "no solution"; or, where it
    found a second solution (verified), a resumed "unique"."""
    where, old = claims.get((result.puzzle_id, result.route), (None, None))
    if old is None or result.status != RecordStatus.SOLVED or not result.verified:
        return
    if old.status == RecordStatus.NO_SOLUTION:
        said = "no solution, but run again the route solved the puzzle (its grid verified)"
    elif old.status == RecordStatus.SOLVED and old.unique is True and result.unique is False:
        said = ("the solution is unique, but run again the route found a second one "
                "(verified)")
    else:
        return
    result.resume_problem = f"{where}: the record said {said}"


def _start_results(path: Path | None, *, resume: bool, puzzles: list[tuple[str, str]],
                   routes: list[str], verdicts: set[str], shape: Shape | None,
                   memory_limit: int) -> Resumed:
    """The records a run starts from: those of an interrupted run with ``resume`` (see
    :func:`_resumed_records`), else none, and the file removed."""
    if path is None:
        return Resumed([], {})
    if resume:
        return _resumed_records(path, puzzles, routes, verdicts=verdicts, shape=shape,
                                memory_limit=memory_limit)
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise CrosscheckError(f"{path}: cannot write ({exc.strerror})") from None
    return Resumed([], {})


@contextlib.contextmanager
def _record_writer(path: Path | None) -> Iterator[Callable[[RouteResult], None]]:
    """A function that appends one record to ``path`` (nothing when None), each record in
    one unbuffered write, so that an interruption leaves at most the last line torn. A
    file named ``.gz``, ``.xz`` or ``.bz2`` gets each record as a compressed member of its
    own (its readers read the members as one text), so that it is what its name says
    while the run goes on too."""
    if path is None:
        yield lambda record: None
        return
    compressor = compressor_for(path)
    try:
        sink = open(path, "ab", buffering=0)
    except OSError as exc:
        raise CrosscheckError(f"{path}: cannot write ({exc.strerror})") from None

    def write(record: RouteResult) -> None:
        data = record.json_line()
        if compressor is not None:
            data = _member(compressor, data)
        try:
            while data:                    # a short write (a full disk) is written on
                data = data[sink.write(data):]
        except OSError as exc:             # e.g. a full disk
            raise CrosscheckError(f"{path}: cannot write ({exc.strerror})") from None

    with sink:
        yield write


def _member(compressor, data: bytes) -> bytes:
    """``data`` as one complete compressed member (``compressor``: one of
    :data:`~solvers.formats.atomic.COMPRESSORS`, whose wrappers do not close the buffer)."""
    buffer = io.BytesIO()
    with compressor(buffer) as member:
        member.write(data)
    return buffer.getvalue()


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


# ----------------------------------------------------------------------------- running

@dataclass(frozen=True, kw_only=True)
class Execution:
    """Where a cross-check's pairs run: in this process (``jobs`` 1), on ``jobs`` local
    worker processes, or, with ``scheduler`` (an address such as ``tcp://host:8786``), on a
    Dask cluster — reached within ``scheduler_timeout`` seconds, and given up after
    ``worker_timeout`` seconds without any worker."""

    jobs: int = 1
    scheduler: str | None = None
    scheduler_timeout: float = 10.0
    worker_timeout: float = 60.0


def run_crosscheck(puzzles: list[tuple[str, str]], routes: list[str], *,
                   shape: Shape | None = None, unique: bool = False,
                   time_limit: float | None = None,
                   execution: Execution = Execution(),
                   results_path: Path | None = None, resume: bool = False,
                   on_result: Callable[[RouteResult], None] | None = None,
                   templates: Sequence[str] = (),
                   memory_limit: int = DEFAULT_MEMORY_LIMIT,
                   certify: str | None = None) -> list[RouteResult]:
    """Run every (puzzle, route) pair; returns all records (resumed ones included).

    ``puzzles`` are (id, text) pairs. With ``results_path``, each record is appended to the
    JSON-lines file as it arrives; with ``resume``, pairs already in the file are skipped
    (without it, the file is started afresh). When the run completes, the file is rewritten
    in puzzle and route order, so a resumed run ends with the same file as an uninterrupted
    one (up to the measured times). An interrupted or failed run leaves the records written
    so far, complete, for ``resume``.

    Nothing read back by ``resume`` is believed. Every record kept is re-checked as a
    fresh one would be: one that fails is kept as a mismatch (``resume_problem`` naming the
    file and line). A claim no record can prove is run again: a "no solution" (a mismatch
    if the route now solves the puzzle) and, with ``unique``, a "unique" (a mismatch if
    the route now finds a second solution). So is a record this run would not write: with
    ``unique``, one without a uniqueness verdict; without it, one with. The results file
    is read within ``memory_limit``; a compressed one (named ``.gz``, ``.xz``, ``.bz2``) is
    written compressed throughout, a member per record while the run goes on.

    ``execution`` says where the pairs run (:class:`Execution`); a Dask cluster fails
    after its ``worker_timeout`` seconds without any worker. A route that cannot
    run here gives 'not available' records; an unknown route name is a
    :class:`CrosscheckError`. ``templates`` define more routes, each ``NAME=TARGET:CMD``
    (:func:`solvers.routes.template_route`); ``routes`` may name them.

    ``certify`` (a checker's name): the routes that can (:func:`certifies`) back their
    negative answers by proofs that checker accepts, records naming it. A record's
    ``certified`` is never read back: the claims it could stand for ("no solution",
    "unique") are run again by ``resume`` anyway, and earn it again.
    """
    if results_path is not None:
        check_output_target(results_path)       # never a device, a directory, /proc...
    defined = dict(zip(template_routes(templates), templates))     # name -> its spec
    known = [*ROUTES, *defined]
    unknown = [route for route in routes if route not in known]
    if unknown:
        raise CrosscheckError(f"unknown route {unknown[0]!r}; routes: {', '.join(known)}")
    # the routes whose records carry a uniqueness verdict in this run
    verdicts = {name for name in routes if unique and (
        template_route(defined[name]) if name in defined else ROUTES[name]).checks_uniqueness}
    resumed = _start_results(results_path, resume=resume, puzzles=puzzles, routes=routes,
                             verdicts=verdicts, shape=shape, memory_limit=memory_limit)
    done = resumed.kept
    finished = {(r.puzzle_id, r.route) for r in done}
    tasks = [Task(route=route, puzzle_id=pid, puzzle=text, shape=shape, unique=unique,
                  time_limit=time_limit, template=defined.get(route),
                  certify=None if certify is None else (certify, memory_limit))
             for pid, text in puzzles for route in routes if (pid, route) not in finished]
    results = list(done)
    stream = _execute(tasks, execution)
    with _record_writer(results_path) as write, contextlib.closing(stream):
        try:
            for result in stream:
                _contradicted(result, resumed.claims)
                write(result)
                results.append(result)
                if on_result is not None:
                    on_result(result)
        except CrosscheckError as exc:
            if results_path is None:
                raise
            raise CrosscheckError(f"{exc}; the {len(results)} record(s) so far are in "
                                  f"{results_path} (--resume goes on from there)") from None
    order = {pid: i for i, (pid, _) in enumerate(puzzles)}
    route_order = {r: i for i, r in enumerate(routes)}
    results.sort(key=lambda r: (order[r.puzzle_id], route_order[r.route]))
    if results_path is not None:
        with atomic_write(results_path, "wb") as out:
            for result in results:
                out.write(result.json_line())
    return results


def _execute(tasks: list[Task], execution: Execution) -> Iterator[RouteResult]:
    """The records of ``tasks`` as they finish: here, on a process pool, or on Dask."""
    if not tasks:
        return
    if execution.scheduler:
        yield from _execute_dask(tasks, scheduler=execution.scheduler,
                                 connect_timeout=execution.scheduler_timeout,
                                 worker_timeout=execution.worker_timeout)
    elif execution.jobs <= 1:
        for task in tasks:
            yield run_route(task)
    else:
        yield from _execute_pool(tasks, jobs=min(execution.jobs, len(tasks)))


# ----------------------------------------------------------------------------- process pool

CHUNK_MAX = 50
"""Most (puzzle, route) pairs one pool task runs. One pair per task costs a round trip
through the pool's queues each (about 2 ms on a busy 2-core machine, as much as a sat
route's solve); 50 pairs of the five corpus routes are about one second of work, all an
interruption can lose per worker (finished chunks are written at once)."""


def chunk_size(tasks: int, workers: int) -> int:
    """Pairs per task, for the local pool and for Dask alike: at least 16 tasks per worker
    process (Dask: per worker thread) so that the workers finish close together, at most
    :data:`CHUNK_MAX` pairs each."""
    return max(1, min(CHUNK_MAX, tasks // (16 * workers)))


def run_routes(tasks: Sequence[Task]) -> list[RouteResult]:
    """The records of several pairs, in order (one pool or Dask task)."""
    return [run_route(task) for task in tasks]


def _execute_pool(tasks: list[Task], *, jobs: int) -> Iterator[RouteResult]:
    """The records of ``tasks`` from ``jobs`` worker processes
    (:func:`solvers.runtime.processes.worker_pool`: gone however this ends), :func:`chunk_size`
    consecutive pairs per pool task."""
    size = chunk_size(len(tasks), jobs)
    with worker_pool(jobs) as pool:
        try:
            futures = [pool.submit(run_routes, tasks[i:i + size])
                       for i in range(0, len(tasks), size)]
            for future in as_completed(futures):
                yield from future.result()
        except BrokenProcessPool:
            raise CrosscheckError("a worker process died (killed from outside, or out of "
                                  "memory)") from None


# ----------------------------------------------------------------------------- Dask

def _execute_dask(tasks: list[Task], *, scheduler: str, connect_timeout: float,
                  worker_timeout: float) -> Iterator[RouteResult]:
    """The records of ``tasks`` from a Dask cluster, :func:`chunk_size` consecutive pairs per
    Dask task (for the cluster's thread count when the run starts), each chunk's records
    yielded as soon as it finishes. A worker lost mid-run costs nothing: the scheduler runs
    its chunks again elsewhere. No worker at all for ``worker_timeout`` seconds (none
    joined, or all left, or the scheduler gone) is a :class:`CrosscheckError`: without one
    the tasks would wait forever. However this ends, the chunks still pending are cancelled
    on the cluster."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise CrosscheckError("--scheduler needs the 'distributed' package: "
                              "pip install 'sudoku-bridge[distributed]'") from None
    try:
        client = Client(scheduler, timeout=connect_timeout)
    except (OSError, TimeoutError) as exc:
        raise CrosscheckError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    pending: dict = {}              # future -> the pairs of its chunk
    try:
        threads = sum(_cluster_threads(client).values())
        size = chunk_size(len(tasks), max(1, threads))
        chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
        pending = dict(zip(client.map(run_routes, chunks, pure=False), map(len, chunks)))
        left = len(tasks)
        # as_completed queues each chunk's future as it finishes: taking what is queued is
        # O(1) per chunk, where a wait() on the pending set is O(pending) per call. Taken
        # without blocking, with a short sleep when nothing is there, so that the no-worker
        # check below runs on time; the sleep does not slow the workers (the scheduler keeps
        # them fed), it only delays the writing. The records are fetched here, one round
        # trip per chunk, not by as_completed's with_results: a fetch that fails there (the
        # scheduler gone) is only logged, and its future never comes out.
        finished = as_completed(pending, loop=client.loop)
        watch = _WorkerWatch(client, scheduler, worker_timeout)
        while pending:
            batch = finished.next_batch(block=False)
            for future in batch:
                records = _dask_records(client, future, worker_timeout)
                if records is None:
                    # finished, but its worker died before handing the records over: the
                    # scheduler runs the chunk again when a worker is there (the watch below
                    # ends the run if none comes)
                    finished.add(future)
                    continue
                left -= pending.pop(future)
                future.release()        # the cluster may forget it (and not recompute it)
                yield from records
            watch.check(left)
            if not batch:
                time.sleep(DASK_POLL)
    finally:
        _close_client(client, list(pending))


def _close_client(client, pending: list) -> None:
    """Cancel ``pending`` on the cluster and close ``client``. Quietly: when the scheduler
    is gone, closing stops the client's attempts to reconnect, which distributed logs as an
    error with its traceback (the run has already said in one line what went wrong)."""
    import logging
    logger = logging.getLogger("distributed.client")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with contextlib.suppress(Exception):
            if pending:
                client.cancel(pending)
        client.close()
    finally:
        logger.setLevel(level)


DASK_POLL = 0.01
"""Seconds between looks at the finished chunks when none was there (a chunk is about a
second of work: the wait is a small part of it)."""


class _WorkerWatch:
    """Fails the run when the cluster has had no worker for ``timeout`` seconds, asking the
    scheduler at most every ``timeout / 4`` seconds (between 0.05 and 1 s)."""

    def __init__(self, client, scheduler: str, timeout: float):
        self.client, self.scheduler, self.timeout = client, scheduler, timeout
        self.every = min(max(timeout / 4, 0.05), 1.0)
        self.asked = time.monotonic()
        self.none_since: float | None = None

    def check(self, left: int) -> None:
        now = time.monotonic()
        if now - self.asked < self.every:
            return
        self.asked = now
        if _cluster_threads(self.client):
            self.none_since = None
        elif self.none_since is None:
            self.none_since = now
        elif now - self.none_since >= self.timeout:
            raise CrosscheckError(f"no Dask worker reachable through the scheduler "
                                  f"{self.scheduler} for {self.timeout:g} s, "
                                  f"{left} task(s) left")


def _cluster_threads(client) -> dict:
    """Worker -> its threads, now; empty when the scheduler is unreachable (the client is
    then reconnecting, or gave up)."""
    if client.status != "running":
        return {}
    try:
        return client.nthreads()
    except (OSError, TimeoutError):
        return {}


def _dask_records(client, future, timeout: float) -> list[RouteResult] | None:
    """A finished chunk's records, or None when they did not come within ``timeout``
    seconds (the worker that held them died: the chunk is to be run again).
    :func:`run_routes` does not raise, so a failure here is the cluster's: a worker died
    running it too often (KilledWorker), the scheduler lost it (the connection to the
    scheduler gone), or the workers cannot import this project."""
    try:
        return future.result(timeout=timeout)
    except TimeoutError:
        return None
    except Exception as exc:  # noqa: BLE001 - whatever the cluster raises, one line
        raise _cluster_error(client, exc) from None


def _cluster_error(client, exc: BaseException) -> CrosscheckError:
    # records come through the scheduler: a connection error is the scheduler's, even
    # before the client has noticed that it is gone (a timeout is not one)
    lost = isinstance(exc, OSError) and not isinstance(exc, TimeoutError)
    if lost or client.status != "running":
        return CrosscheckError(f"lost the connection to the Dask scheduler "
                               f"{client.scheduler.address}")
    return CrosscheckError(f"a Dask task failed on the cluster: {type(exc).__name__}: "
                           f"{_first_line(exc)}")


# ----------------------------------------------------------------------------- analysis

@dataclass
class Mismatch:
    puzzle_id: str
    puzzle: str
    reason: str
    answers: dict[str, str]           # route -> what it said (status and grid)


def find_mismatches(results: Iterable[RouteResult], unique: bool) -> list[Mismatch]:
    by_puzzle: dict[str, list[RouteResult]] = {}
    for r in results:
        by_puzzle.setdefault(r.puzzle_id, []).append(r)
    mismatches = []
    for pid, rows in by_puzzle.items():
        answers = {r.route: _answer_text(r) for r in rows}

        def add(reason: str) -> None:
            mismatches.append(Mismatch(pid, rows[0].puzzle, reason, answers))

        for r in rows:
            if r.resume_problem is not None:
                add(f"{r.route}: {r.resume_problem}")
            elif r.status == RecordStatus.SOLVED and r.verified is False:
                add(f"{r.route} returned an invalid grid: {r.error}")
        solved = [r for r in rows if r.status == RecordStatus.SOLVED and r.verified]
        refuted = [r for r in rows if r.status == RecordStatus.NO_SOLUTION]
        if solved and refuted:
            add(f"{', '.join(r.route for r in refuted)} said no solution, but "
                f"{solved[0].route} found a valid one")
        if unique and solved:
            said_unique = [r for r in solved if r.unique is True]
            said_several = [r for r in solved if r.unique is False]
            grids = {r.solution for r in solved} | {r.second_solution for r in said_several}
            grids.discard(None)
            if said_unique and (said_several or len(grids) > 1):
                add(f"{', '.join(r.route for r in said_unique)} called the solution unique, "
                    f"but {len(grids)} different valid grids were found")
    return mismatches


def _answer_text(r: RouteResult) -> str:
    if r.status == RecordStatus.SOLVED:
        text = f"solved {r.solution}" + ("" if r.verified else " (INVALID)")
        if r.unique is not None:
            text += f", unique={r.unique}"
        return text
    if r.status == RecordStatus.ERROR:
        return f"error: {(r.error or '').splitlines()[0] if r.error else ''}"
    return r.status


SUMMARY_COLUMNS = ["route", "solved", "no solution", "unknown", "invalid", "error",
                   "not applicable", "not available", "median s", "max s", "median size"]
UNIQUENESS_COLUMNS = ["unique", "several", "unchecked"]
"""The verdicts on the verified solved puzzles when uniqueness is checked: 'unchecked' when
the route cannot check it (a heuristic: LKH, linkern, an ``--hcp-cmd`` program) or its
second search was cut short; the summary shows that column only when some count is not 0."""


def summary_rows(results: list[RouteResult], routes: list[str]) -> list[dict]:
    """Per route: the count of each status ('solved' only verified grids, unverified ones
    'invalid'), the uniqueness verdicts on the solved ones (:data:`UNIQUENESS_COLUMNS`),
    median and maximum route time, median instance size."""
    rows = []
    for route in routes:
        mine = [r for r in results if r.route == route]
        times = [r.seconds for r in mine if r.status in TIMED]
        sizes = [r.size for r in mine if r.size is not None]
        row: dict = {"route": route}
        for status in RecordStatus:
            row[status.value] = sum(r.status == status for r in mine)
        row["solved"] = sum(r.status == RecordStatus.SOLVED and r.verified is True for r in mine)
        row["invalid"] = sum(r.status == RecordStatus.SOLVED and r.verified is False
                             for r in mine)
        solved = [r for r in mine if r.status == RecordStatus.SOLVED and r.verified is True]
        row["unique"] = sum(r.unique is True for r in solved)
        row["several"] = sum(r.unique is False for r in solved)
        row["unchecked"] = sum(r.unique is None for r in solved)
        row.update({
            "median s": statistics.median(times) if times else None,
            "max s": max(times) if times else None,
            "median size": statistics.median(sizes) if sizes else None,
            "size kind": next((r.size_kind for r in mine if r.size_kind), None),
        })
        rows.append(row)
    return rows


def format_summary(rows: list[dict], unique: bool = False) -> str:
    """The summary table; with ``unique``, the uniqueness verdicts after the statuses
    (the status columns keep their places; 'unchecked' only when some route has one)."""
    statuses = SUMMARY_COLUMNS.index("median s")
    verdicts = [c for c in UNIQUENESS_COLUMNS
                if c != "unchecked" or any(row["unchecked"] for row in rows)]
    head = SUMMARY_COLUMNS[:statuses] + (verdicts if unique else []) \
        + SUMMARY_COLUMNS[statuses:]
    table = [head]
    for row in rows:
        cells = []
        for key in head:
            value = row[key]
            if isinstance(value, float) and key.endswith(" s"):
                cells.append(f"{value:.4f}")
            elif key == "median size" and value is not None:
                cells.append(f"{value:,.0f} {row['size kind']}")
            else:
                cells.append("-" if value is None else str(value))
        table.append(cells)
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def unavailable_routes(results: Iterable[RouteResult]) -> dict[str, str]:
    """Route -> why it could not run, for the routes with 'not available' records."""
    return {r.route: r.error or "" for r in results if r.status == RecordStatus.NOT_AVAILABLE}


def plot_results(results: list[RouteResult], routes: list[str], path: Path) -> None:
    """PNG: per-route time distributions (box plot, log scale) and time against size."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CrosscheckError("--plot needs matplotlib: pip install "
                              "'sudoku-bridge[plots]'") from None
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    data = [[max(r.seconds, 1e-6) for r in results if r.route == route and r.status in TIMED]
            for route in routes]
    left.boxplot([d or [float("nan")] for d in data], showfliers=True)
    left.set_xticks(range(1, len(routes) + 1), routes, rotation=20)
    left.set_yscale("log")
    left.set_ylabel("seconds per puzzle")
    left.set_title("time per route")
    for route in routes:
        pts = [(r.size, r.seconds) for r in results if r.route == route and r.size]
        if pts:
            xs, ys = zip(*pts)
            right.scatter(xs, ys, s=8, label=route, alpha=0.6)
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("instance size (edges / clauses / options / nonzeros)")
    right.set_ylabel("seconds")
    right.set_title("time against instance size")
    if right.has_data():
        right.legend(fontsize=8)
    fig.tight_layout()
    with atomic_write(path, "wb") as out:
        fig.savefig(out, format="png", dpi=110)
    plt.close(fig)
