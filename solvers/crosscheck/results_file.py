"""The JSON-lines results file: read back (complete records only, within the memory
limit), resumed from (made ready for appending, its records kept or run again), and
appended to one record at a time."""

from __future__ import annotations

import codecs
import contextlib
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from reductions.sudoku.grid import MAX_GRID_TEXT, Shape
from reductions.reading import DEFAULT_MEMORY_LIMIT, ReadLimit, compression, read_lines

from ..formats.atomic import atomic_write, compressor_for
from .recheck import recheck
from .records import CrosscheckError, RecordStatus, RouteResult, first_line


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
                          f"({first_line(exc)}); fix or remove the line, or run again "
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


def contradicted(result: RouteResult, claims: dict[tuple[str, str], tuple[str, RouteResult]]
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


def start_results(path: Path | None, *, resume: bool, puzzles: list[tuple[str, str]],
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
def record_writer(path: Path | None) -> Iterator[Callable[[RouteResult], None]]:
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

