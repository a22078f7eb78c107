"""Knuth's exact-cover text format (the input of his ``dlx1`` and its successors) and answers.

The format (``dlx1.w``, "Intro"):

* lines starting with ``|`` (after optional blanks) are comments, blank lines are ignored;
* the first other line names the items, separated by blanks; a ``|`` on it would separate
  primary from secondary items (Sudoku has only primary items, so we never write one);
* every further line is one option: the names of its items;
* a name has 1 to 8 characters, none of them blank, ``:`` or ``|``.

:func:`write_dlx` writes a :class:`~reductions.encodings.exact_cover.SudokuExactCover` so that it
runs unchanged in ``dlx1`` (``dlx1 m1 < file.dlx`` prints every solution). Comment lines at the top
record the shape, the clue mode and the puzzle (the
:class:`~reductions.sudoku.puzzle_record.PuzzleRecord` every format writes: ``| puzzle TEXT``, or
one ``| puzzle-row R TEXT`` line per grid row when the puzzle is longer than 200 characters; the
ILP files use the same lines), so :func:`cover_from_dlx` rebuilds the instance from the file
alone and :func:`read_answer` decodes answers produced elsewhere:

* ``dlx1`` output: a line ``K:`` before each solution, then one line per chosen option, its
  item names (starting with the item dlx1 branched on) and ``(i of n)``;
* plain option lines (item names in any order), one chosen option per line;
* option numbers: integers counting the options in file order from 1, as ``dlx1`` numbers
  them (``zero_based`` for tools that count from 0).

dlx1 writes the solutions on stdout and its totals (``Altogether K solutions, ...``, or
``TIMEOUT!`` first when its mems limit stopped it) on stderr; an answer holding both
(``dlx1 m1 < FILE > OUT 2>&1``) says everything: ``Altogether 0 solutions`` is a proof that
there is none. Without the totals line an answer with no solution says nothing and is refused.

Every reading error names the file and the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from reductions.errors import UserError, parse_int
from reductions.encodings.exact_cover import (CLUE_MODES, ITEM_LETTERS, MAX_NAME_LENGTH,
                                              SudokuExactCover, base_item_names, parse_item_name,
                                              sudoku_exact_cover)
from reductions.sudoku.puzzle_record import MODEL_SPELLING, PuzzleRecord, comment_metadata, prefixed
from reductions.reading import CHATTER_BYTES, DEFAULT_MEMORY_LIMIT, ReadLimit, read_text
from reductions.estimate import ensure_fits
from reductions.encodings.sizes import exact_cover_estimate

from .atomic import open_output

MAGIC = "sudoku-bridge exact cover"
DLX1_MAX_ITEMS = 100_000
DLX1_MAX_NODES = 25_000_000
DLX1_MAX_LEVEL = 500
"""Limits compiled into ``dlx1`` (``max_cols``, ``max_nodes``, ``max_level`` in dlx1.w; the
level limit is 500 in early releases). A file beyond them needs a recompiled dlx1."""

_ILLEGAL_NAME_CHARS = set(":|")
_DLX1_COUNT = re.compile(r"\s*\((\d+ of \d+|\?)\)\s*$")
_DLX1_HEADER = re.compile(r"^(\d+):$")
_DLX1_TOTAL = re.compile(r"^Altogether (\d{1,18}) solutions?\b")
_DLX1_STATS = re.compile(r"^\(\d+ options?, \d+\+\d+ items?, |^\(\d+ rows, |^Option ignored|"
                         r"^Row ignored")
_DLX1_STATE_END = re.compile(r"\bso far\.$")


class DlxFormatError(UserError):
    """A malformed exact-cover file or answer; the message names the file and the line."""


# ----------------------------------------------------------------------------- writing

def puzzle_record(cover: SudokuExactCover) -> PuzzleRecord:
    """Which puzzle an exact-cover file is about: the puzzle and the clue mode."""
    return PuzzleRecord(cover.puzzle, (("clues", cover.clues),))


def header_lines(cover: SudokuExactCover) -> list[str]:
    """The comment texts in front of an exact-cover file: what it is, then its record."""
    n = cover.shape.size
    return [
        f"{MAGIC} of a {n}x{n} Sudoku (blocks {cover.shape}), Knuth's dlx format",
        "items: pR_C cell (R,C) is filled; rR_D row R holds digit D; cC_D column C holds D;",
        "       bK_D block K holds D (rows, columns, blocks from 0; digits from 1)",
        "options: one per line, 'digit D in cell (R,C)' = pR_C rR_D cC_D bK_D",
        *puzzle_record(cover).comments(MODEL_SPELLING),
        f"size {cover.num_options} options, {cover.num_items} items, "
        f"{cover.num_nonzeros} nonzeros",
    ]


def write_dlx(path: str | Path, cover: SudokuExactCover) -> int:
    """Write the instance in Knuth's format (atomically; ``-``: to stdout); returns the
    number of options."""
    names = base_item_names(cover.shape)
    local_names = [names[i] for i in cover.items.tolist()]
    with open_output(path) as out:
        for line in prefixed("|", header_lines(cover)):
            out.write(line + "\n")
        out.write(" ".join(local_names) + "\n")
        for items in cover.option_items.tolist():
            out.write(" ".join([local_names[i] for i in items]) + "\n")
    return cover.num_options


def dlx1_limit_notes(cover: SudokuExactCover) -> list[str]:
    """Warnings for instances beyond the limits compiled into dlx1."""
    notes = []
    if cover.num_items == 0:
        notes.append("nothing is left to cover (the puzzle is complete): dlx1 refuses a file "
                     "without items")
    if cover.num_items > DLX1_MAX_ITEMS:
        notes.append(f"{cover.num_items:,} items exceed dlx1's max_cols ({DLX1_MAX_ITEMS:,}): "
                     f"recompile dlx1 with a larger max_cols")
    nodes = cover.num_items + cover.num_nonzeros + cover.num_options + 1
    if nodes >= DLX1_MAX_NODES:
        notes.append(f"{nodes:,} nodes exceed dlx1's max_nodes ({DLX1_MAX_NODES:,}): "
                     f"recompile dlx1 with a larger max_nodes")
    n = cover.shape.size
    levels = n * n if cover.clues == "keep" else n * n - cover.puzzle.clue_count()
    if levels >= DLX1_MAX_LEVEL:
        notes.append(f"a solution chooses {levels:,} options; dlx1 builds with max_level 500 "
                     f"stop with 'Too many levels!' (recompile with a larger max_level, or "
                     f"emit with clues eliminated)")
    return notes


# ----------------------------------------------------------------------------- reading

@dataclass
class DlxFile:
    """A parsed exact-cover file: item names, options (as name lists) with their line
    numbers, and the ``| key value`` comment lines as metadata."""

    path: str
    primary: list[str]
    secondary: list[str]
    options: list[list[str]]
    option_lines: list[int]
    metadata: dict[str, str] = field(default_factory=dict)


def _check_name(name: str, where: str) -> None:
    if len(name) > MAX_NAME_LENGTH:
        raise DlxFormatError(f"{where}: item name {name!r} is longer than "
                             f"{MAX_NAME_LENGTH} characters")
    if _ILLEGAL_NAME_CHARS & set(name):
        raise DlxFormatError(f"{where}: item name {name!r} contains ':' or '|'")


DLX_BYTES_PER_BYTE = 32
"""Memory per byte of an exact-cover file or answer read back: the text, its lines, and a
list of item names for every option (a Sudoku option line of about 20 bytes becomes four
names and a list, some 400 bytes)."""


def dlx_limit(memory_limit: int, what: str) -> ReadLimit:
    """What an exact-cover file or answer (``what``) may hold: what the memory limit
    allows."""
    return ReadLimit.share(memory_limit, what=what, per_byte=DLX_BYTES_PER_BYTE)


OPTION_LINE_BYTES = 128
"""The most one chosen option takes in a solver's answer: its item names (four, of up to
a dozen characters) and dlx1's ``(k of m)``."""


def answer_limit(cover: SudokuExactCover, solutions: int) -> ReadLimit:
    """The most an answer listing ``solutions`` solutions of ``cover`` can take (each one
    option per cell), with what the program prints beside it."""
    n = cover.shape.size
    return ReadLimit(CHATTER_BYTES + solutions * n * n * OPTION_LINE_BYTES,
                     f"more than {solutions} solution(s) of a {n}x{n} Sudoku can take")


def read_dlx(path: str | Path, *, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> DlxFile:
    """Parse and validate a file in Knuth's format (any exact-cover problem)."""
    lines = read_text(path, dlx_limit(memory_limit, "an exact-cover file"),
                      DlxFormatError).splitlines()
    comments: list[str] = []
    primary: list[str] | None = None
    secondary: list[str] = []
    known: dict[str, int] = {}
    options: list[list[str]] = []
    option_lines: list[int] = []
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        where = f"{path} line {number}"
        if not line:
            continue
        if line.startswith("|"):
            comments.append(line[1:])
            continue
        if primary is None:
            head, bar, tail = line.partition("|")
            if "|" in tail:
                raise DlxFormatError(f"{where}: the item line contains '|' twice")
            primary, secondary = head.split(), tail.split()
            if not primary:
                raise DlxFormatError(f"{where}: the item line names no primary item")
            for index, name in enumerate(primary + secondary):
                _check_name(name, where)
                if name in known:
                    raise DlxFormatError(f"{where}: item {name!r} is named twice")
                known[name] = index
            continue
        names = line.split()
        seen = set()
        for name in names:
            if name not in known:
                _check_name(name, where)
                raise DlxFormatError(f"{where}: unknown item {name!r} in an option")
            if name in seen:
                raise DlxFormatError(f"{where}: item {name!r} appears twice in one option")
            seen.add(name)
        if not any(known[name] < len(primary) for name in names):
            raise DlxFormatError(f"{where}: the option has no primary item")
        options.append(names)
        option_lines.append(number)
    if primary is None:
        raise DlxFormatError(f"{path}: no item line: not an exact-cover file")
    metadata = comment_metadata(comments, str(path), DlxFormatError)
    return DlxFile(str(path), primary, secondary, options, option_lines, metadata)


def cover_from_metadata(metadata: dict[str, str], where: str, *,
                        memory_limit: int = DEFAULT_MEMORY_LIMIT) -> SudokuExactCover:
    """Rebuild the instance a file was written from, using its comment lines only (sized
    against ``memory_limit`` first)."""
    record = PuzzleRecord.from_metadata(metadata, MODEL_SPELLING, ("clues",), where=where,
                                        error=DlxFormatError, clue_modes=CLUE_MODES)
    puzzle, clues = record.puzzle, record.setting("clues")
    n = puzzle.size
    ensure_fits(exact_cover_estimate(puzzle.shape), memory_limit,
                f"{where}: the {n}x{n} puzzle of its comments")
    return sudoku_exact_cover(puzzle, clues)


def cover_from_dlx(path: str | Path, *,
                   memory_limit: int = DEFAULT_MEMORY_LIMIT) -> SudokuExactCover:
    """The instance of a file written by :func:`write_dlx`, checked against the file."""
    parsed = read_dlx(path, memory_limit=memory_limit)
    cover = cover_from_metadata(parsed.metadata, str(path), memory_limit=memory_limit)
    if parsed.primary != cover.item_names() or parsed.secondary:
        raise DlxFormatError(f"{path}: the item line does not match the puzzle in the "
                             f"comments: the file was changed")
    if len(parsed.options) != cover.num_options:
        raise DlxFormatError(f"{path}: {len(parsed.options)} options, but the puzzle in the "
                             f"comments gives {cover.num_options}: the file was changed")
    for k, (names, line) in enumerate(zip(parsed.options, parsed.option_lines)):
        if names != cover.option_names(k):
            raise DlxFormatError(f"{path} line {line}: option {k + 1} differs from the "
                                 f"model ({' '.join(cover.option_names(k))}): the file "
                                 f"was changed")
    return cover


# ----------------------------------------------------------------------------- answers

@dataclass
class DlxAnswer:
    """Chosen options (local numbers), one list per solution in the answer, and what dlx1
    said about its search: ``reported_count`` is its 'Altogether K solutions' (None when the
    answer has no such line), ``timed_out`` that it printed ``TIMEOUT!`` (its ``T<mems>``
    limit: the search was cut, the count is not a proof)."""

    solutions: list[list[int]]
    reported_count: int | None = None
    timed_out: bool = False

    @property
    def finished(self) -> bool:
        """dlx1 ended its search and said how it went (a totals line, no time-out)."""
        return self.reported_count is not None and not self.timed_out


DLX1_CAPTURE_HINT = ("dlx1 prints solutions only with m1, on stdout, and its totals on "
                     "stderr: capture both, e.g. 'dlx1 m1 < FILE > OUT 2>&1'")


def _option_from_names(cover: SudokuExactCover, names: list[str], where: str) -> int:
    """The local option whose items are exactly ``names`` (in any order)."""
    shape = cover.shape
    n = shape.size
    cell = row = None
    for name in names:
        item = parse_item_name(shape, name)
        if item is None:
            raise DlxFormatError(f"{where}: {name!r} is not an item of a {n}x{n} Sudoku "
                                 f"(blocks {shape})")
        kind, rest = divmod(item, n * n)
        if ITEM_LETTERS[kind] == "p":
            cell = divmod(rest, n)
        elif ITEM_LETTERS[kind] == "r":
            row = divmod(rest, n)
    option = None
    if cell is not None and row is not None and cell[0] == row[0]:
        option = cover.local_option(cell[0], cell[1], row[1] + 1)
    if option is None or sorted(cover.option_names(option)) != sorted(names):
        raise DlxFormatError(f"{where}: no option of the matrix has exactly the items "
                             f"{' '.join(names)}")
    return option


def read_answer(path: str | Path, cover: SudokuExactCover, zero_based: bool = False, *,
                memory_limit: int = DEFAULT_MEMORY_LIMIT) -> DlxAnswer:
    """Read a file of chosen options (dlx1 output, option lines or option numbers; see the
    module docstring) into local option numbers; see :func:`parse_answer`."""
    text = read_text(path, dlx_limit(memory_limit, "an exact-cover answer"), DlxFormatError)
    return parse_answer(text, str(path), cover, zero_based=zero_based)


def parse_answer(text: str, source: str, cover: SudokuExactCover, *, zero_based: bool = False,
                 partial: bool = False) -> DlxAnswer:
    """Chosen options from an answer's text; ``source`` names it in errors (``SOURCE line
    N: ...``).

    dlx1's own lines are understood wherever they come (its stdout and stderr may be one
    file): the input statistics, ``Altogether K solutions`` (dlx2's form too), ``TIMEOUT!``,
    and the ``Current state`` reports of its ``d<n>`` option are skipped; any other line of
    dlx1's ending in ``!`` (``Too many levels!``, ``Unknown item name!``...) is an error
    quoting it. An answer from dlx1 (``K:`` lines or its statistics) whose last solution is
    not a whole cover and is not followed by the totals line was cut short: an error naming
    its last line. An answer with neither a solution nor a totals line is an error too: nothing in
    it says whether a solution exists.

    ``partial``: the text is what a program killed at its time limit had written: an
    unfinished last line and an unfinished last solution are dropped, not errors."""
    lines = _answer_lines(text, partial)
    solutions: list[list[int]] = []
    ends: list[int] = []                    # the last line of each solution
    current: list[int] | None = None
    reported = None
    timed_out = from_dlx1 = in_state_report = False
    first_number = 0 if zero_based else 1
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        where = f"{source} line {number}"
        if in_state_report:
            in_state_report = not _DLX1_STATE_END.search(line)
            continue
        if not line or line.startswith("|"):
            continue
        if _DLX1_STATS.match(line):
            from_dlx1 = True
            continue
        total = _DLX1_TOTAL.match(line)
        if total:
            reported = int(total.group(1))
            current = None
            continue
        if line == "TIMEOUT!":
            timed_out = True
            continue
        if line.startswith("Current state (level "):
            in_state_report = True
            continue
        if line.endswith("!") or line.startswith("Usage: "):
            raise DlxFormatError(f"{where}: the solver stopped with an error: {line[:200]}")
        if _DLX1_HEADER.match(line):
            from_dlx1 = True
            current = []
            solutions.append(current)
            ends.append(number)
            continue
        if current is None:
            current = []
            solutions.append(current)
            ends.append(number)
        ends[-1] = number
        tokens = line.split()
        if all(t.lstrip("-").isdigit() for t in tokens):
            for token in tokens:
                k = parse_int(token, where, "option number", DlxFormatError) - first_number
                if not 0 <= k < cover.num_options:
                    raise _out_of_range(where, token, cover.num_options, first_number)
                current.append(k)
            continue
        names = _DLX1_COUNT.sub("", line).split()
        current.append(_option_from_names(cover, names, where))
    # The end's checks are helpers; the loop stays here (a call per line is measurably
    # slower: benchmarks/results/design_figures.md).
    if (from_dlx1 or partial) and current is not None and not cover.is_exact_cover(current):
        _open_last_solution(source, solutions, ends, partial)
    solutions = _distinct_solutions(source, solutions, ends)
    if not solutions and not partial:
        _refuse_empty_answer(source, reported, timed_out)
    return DlxAnswer(solutions, reported, timed_out)


def _answer_lines(text: str, partial: bool) -> list[str]:
    """The answer's lines, less an unfinished last line of a ``partial`` answer."""
    lines = text.splitlines()
    if partial and text and not text.endswith("\n"):
        lines = lines[:-1]
    return lines


def _out_of_range(where: str, token: str, num_options: int, first_number: int
                  ) -> DlxFormatError:
    """The error for an option number outside the matrix."""
    return DlxFormatError(f"{where}: option number {token} is out of range: the matrix has "
                          f"{num_options} options, numbered from {first_number}")


def _open_last_solution(source: str, solutions: list[list[int]], ends: list[int],
                        partial: bool) -> None:
    """The last solution is still open (no totals line after it) and covers too little:
    dropped from a ``partial`` answer (with its end), else an error (the file is cut)."""
    if partial:
        solutions.pop()
        ends.pop()
        return
    raise DlxFormatError(
        f"{source} line {ends[-1]}: the answer ends inside solution {len(solutions)} "
        f"({len(solutions[-1])} options, not a whole cover) with no 'Altogether N "
        f"solutions' line after it: the file is cut short")


def _distinct_solutions(source: str, solutions: list[list[int]],
                        ends: list[int]) -> list[list[int]]:
    """The solutions that choose something (a ``K:`` line may have none after it); an
    error naming its last line if one chooses an option twice."""
    kept = [(s, end) for s, end in zip(solutions, ends) if s]
    for solution, end in kept:
        if len(set(solution)) != len(solution):
            raise DlxFormatError(f"{source} line {end}: a solution chooses an option twice")
    return [s for s, _ in kept]


def _refuse_empty_answer(source: str, reported: int | None, timed_out: bool) -> None:
    """An answer without solutions must say why: a totals line of 0, or a time-out."""
    if reported is None and not timed_out:
        raise DlxFormatError(f"{source}: no chosen options and no 'Altogether N "
                             f"solutions' line: nothing says whether a solution exists "
                             f"({DLX1_CAPTURE_HINT})")
    if reported:
        raise DlxFormatError(f"{source}: the solver reports {reported} solution"
                             f"{'s' if reported != 1 else ''} but lists none "
                             f"({DLX1_CAPTURE_HINT})")
