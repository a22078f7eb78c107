"""Any exact-cover program (``--cover-cmd``, Knuth's ``dlx1`` and ``dlx2`` by name): its
command template, one run on a file in Knuth's format, its answer.

The template (:mod:`solvers.tools.templates`, split as a shell would split words; no shell
runs it): ``{input}`` the exact-cover file in Knuth's format, ``< {input}`` to give it on
stdin instead (the one redirection understood); ``{output}`` a file the program writes its
answer to (else its stdout, then its stderr, are the answer); ``{limit}`` the number of
solutions wanted (1, or 2 to check uniqueness). A known name (:data:`COVER_COMMANDS`, also as
a path) stands for its whole command. :func:`run_cover_command` runs it through
:func:`solvers.runtime.processes.run_program` (own process group, killed at the time limit) and reads
the answer with the one dlx answer reader, :func:`solvers.formats.dlx.parse_answer`.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reductions.encodings.exact_cover import SudokuExactCover
from reductions.reading import ReadLimit, check_size

from ..runtime.budget import Deadline
from ..runtime.processes import (ExternalSolverError, ProgramRun, find_program, output_text,
                        read_output_file, run_program)
from ..runtime.scratch import temporary_directory
from ..formats.dlx import DlxAnswer, DlxFormatError, answer_limit, parse_answer, write_dlx
from ..outcome import WrongAnswer
from .templates import CommandTemplate, TemplateRules, parse_template

__all__ = ["COVER_COMMANDS", "COVER_TEMPLATES", "ProgramCovers", "cover_command",
           "run_cover_command"]

COVER_COMMANDS = {
    "dlx1": "dlx1 m1 t{limit} < {input}",
    "dlx2": "dlx2 m1 t{limit} < {input}",
}
"""Programs known by name: Knuth's dlx1 and dlx2 print every solution with ``m1``, stop
after ``{limit}`` with ``t<n>`` and read the file on stdin."""

COVER_TEMPLATES = TemplateRules(
    option="--cover-cmd", hint="give a program name or a command line",
    fields=frozenset({"output", "limit"}), default_format="exact-cover",
    known={name: shlex.split(command) for name, command in COVER_COMMANDS.items()},
    shell_syntax=True,
    missing_input="{option} {template}: the command must read the exact-cover file: put "
                  "{{input}} among its arguments, or '< {{input}}' for a program that reads "
                  "stdin (as dlx1 does)")
"""``--cover-cmd``: ``{input}`` or ``< {input}`` required, ``{output}``, ``{limit}``."""


def cover_command(template: str) -> CommandTemplate:
    """The parsed ``--cover-cmd`` template (module docstring); one-line errors."""
    return parse_template(template, COVER_TEMPLATES)


@dataclass
class ProgramCovers:
    """What an exact-cover program found: its ``solutions`` (sorted local option arrays,
    each checked to be an exact cover), whether the search is ``complete`` (see
    :func:`run_cover_command`), why not, and what the run left (command, exit code,
    seconds)."""

    solutions: list[np.ndarray]
    complete: bool
    reason: str
    seconds: float
    details: dict = field(default_factory=dict)


def run_cover_command(command: CommandTemplate, cover: SudokuExactCover, *, limit: int,
                      time_limit: float | None = None) -> ProgramCovers:
    """Write ``cover`` in Knuth's format, run ``command`` on it through
    :func:`solvers.runtime.processes.run_program` and read its answer with the dlx answer reader.

    The search is complete when the program listed ``limit`` solutions, or reported its
    totals (``Altogether K solutions``) with K = 0, or K < ``limit`` when it was told the
    limit (``{limit}``). Killed at the time limit: the whole solutions it printed are kept,
    the search is incomplete. Options that are not an exact cover are a
    :class:`~solvers.outcome.WrongAnswer`; a crash or an unreadable answer an
    :class:`~solvers.runtime.processes.ExternalSolverError`."""
    deadline = Deadline(time_limit)
    binary = find_program(command.program, what="exact-cover solver")
    with temporary_directory("sudoku-bridge-cover-") as work:
        input_path, output_path = work / "puzzle.dlx", work / "answer.txt"
        write_dlx(input_path, cover)
        args = command.argv(binary, inputs={"exact-cover": input_path}, output=output_path,
                            limit=limit)
        run = run_program(args, time_limit=deadline.remaining(), temp_dirs=[work],
                          stdin=input_path if command.stdin else None,
                          output_files=[output_path] if command.answer_in_file else [])
        details = {"command": args, "exit_code": run.exit_code,
                   "program_seconds": round(run.seconds, 6)}
        if not run.timed_out and run.exit_code != 0:
            raise ExternalSolverError(f"{run.name} {run.ended()}; last output: "
                                      f"{run.tail() or '(none)'}")
        source, text = _answer_text(command, run, output_path, answer_limit(cover, limit))
    try:
        answer = parse_answer(text, source, cover, partial=run.timed_out)
    except DlxFormatError as exc:
        raise ExternalSolverError(f"{run.name} {run.ended()} and gave no usable answer "
                                  f"({exc})") from None
    solutions = [np.asarray(sorted(s), dtype=np.int64) for s in answer.solutions[:limit]]
    for index, solution in enumerate(solutions, 1):
        if not cover.is_exact_cover(solution):
            raise WrongAnswer(f"{run.name}'s solution {index} is not an exact cover of the "
                              f"matrix")
    complete, reason = _completeness(command, run, answer, len(solutions), limit)
    return ProgramCovers(solutions, complete, reason, deadline.seconds(), details)


def _answer_text(command: CommandTemplate, run: ProgramRun, output_path: Path,
                 most: ReadLimit) -> tuple[str, str]:
    """(where the answer was read, its text): the ``{output}`` file, or stdout (only stdout
    for a killed program: its totals never came and what it flushed may end mid-solution),
    then stderr."""
    if command.answer_in_file:
        source = f"{run.name}'s answer file"
        if output_path.exists():
            return source, read_output_file(output_path, most, source)
        if run.timed_out:
            return source, ""
        raise ExternalSolverError(f"{run.name} {run.ended()} without writing its "
                                  f"answer file ({{output}}); last output: "
                                  f"{run.tail() or '(none)'}")
    if run.timed_out:
        return f"stdout of {run.name}", run.stdout_text(most)
    text = run.stdout_text(most)
    if text and not text.endswith("\n"):
        text += "\n"
    check_size(run.stderr, most, f"stderr of {run.name}")
    text += output_text(run.stderr, f"stderr of {run.name}")
    return f"output of {run.name} (stdout, then stderr)", text


def _completeness(command: CommandTemplate, run: ProgramRun, answer: DlxAnswer, found: int,
                  limit: int) -> tuple[bool, str]:
    """(complete, why not): see :func:`run_cover_command`."""
    if run.timed_out:
        return found >= limit, "time limit reached"
    if answer.timed_out:
        return found >= limit, "the solver stopped at its mems limit (TIMEOUT!)"
    if found >= limit or answer.reported_count == 0:
        return True, ""
    if answer.reported_count is not None and command.takes_limit:
        return True, ""
    return False, ("the solver was not told the limit ({limit}): its count does not prove "
                   "that there is no other solution" if answer.reported_count is not None
                   else "the solver's answer has no 'Altogether N solutions' line: nothing "
                        "proves that there is no other solution")
