"""The exit codes of every command, the contract with the shell (``sudoku-bridge --help``
prints them); light, so that ``--help`` needs nothing else."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """The contract with the shell (``sudoku-bridge --help`` prints it)."""

    OK = 0
    NO_SOLUTION = 1
    BAD_INPUT = 2
    UNKNOWN = 3
    MISMATCH = 4
    INTERNAL_ERROR = 70
    INTERRUPTED = 130
    TERMINATED = 143


EXIT_MEANINGS = {
    ExitCode.OK: "solved / done",
    ExitCode.NO_SOLUTION: "no solution (proved; by a checked proof with --certify)",
    ExitCode.BAD_INPUT: "bad input, bad usage, a solver that cannot run, or an instance "
                        "estimated over the memory limit (--max-memory)",
    ExitCode.UNKNOWN: "unknown (time limit, or a heuristic that found nothing)",
    ExitCode.MISMATCH: "a wrong answer, a disagreement between routes, or a rejected proof",
    ExitCode.INTERNAL_ERROR: "internal error (a bug: please report it; --debug shows the "
                             "traceback)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
    ExitCode.TERMINATED: "terminated (SIGTERM)",
}
