"""The command line (``sudoku-bridge``): :func:`main` and the exit codes. Nothing outside this
package imports it.

:func:`main` is defined here, before any of the command line's modules is imported: they
import numpy, scipy and the routes, most of the start-up, and a Ctrl-C landing there must
end as the contract says (one line, exit 130), not as a traceback — nor as the
``ImportError`` some C extensions turn an interrupted import into.
"""

from __future__ import annotations

import signal
import sys

__all__ = ["main", "ExitCode"]

INTERRUPTED_EXIT = 130
""":attr:`ExitCode.INTERRUPTED`, known before :mod:`.common` can be imported."""


def main(argv: list[str] | None = None) -> int:
    """Run ``sudoku-bridge`` with ``argv`` (default: the process's arguments); the exit
    code (:class:`ExitCode`)."""
    arrived: list[int] = []

    def interrupt(signum, frame):
        arrived.append(signum)
        raise KeyboardInterrupt

    watch = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    previous = signal.signal(signal.SIGINT, interrupt) if watch else None
    words = sys.argv[1:] if argv is None else argv
    try:
        from .parser import names_a_command, parse_without_command
        if not names_a_command(words):     # --help, --version: the top level alone (light)
            return parse_without_command(words)
        from .program import main as run_command
    except BaseException as exc:  # noqa: BLE001 - the contract: one line, never a traceback
        if arrived or isinstance(exc, KeyboardInterrupt):
            forget_interrupt_mark()
            return _say("interrupted", INTERRUPTED_EXIT)
        return _say(f"internal error, please report: cannot start ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0] if str(exc) else ''})", 70)
    finally:
        if watch:
            signal.signal(signal.SIGINT, previous)
    if arrived:                                 # came in as the import ended
        forget_interrupt_mark()
        return _say("interrupted", INTERRUPTED_EXIT)
    return run_command(argv)


def forget_interrupt_mark() -> None:
    """Make the exit code returned after a Ctrl-C the process's exit code.

    CPython 3.11 marks a KeyboardInterrupt that came out of ``exec`` of a string
    (dataclasses and namedtuples make their methods so, scipy runs ``from numpy import *``
    so) as never handled, even once caught, and then ends the process by SIGINT instead of
    with the code returned. Each ``exec`` of a string clears the mark first: an empty one
    does."""
    exec("")  # noqa: S102 - clears the mark (see above)


def _say(message: str, code: int) -> int:
    if sys.stderr is not None:
        try:
            print(f"sudoku-bridge: {message}", file=sys.stderr)
        except (OSError, ValueError):
            pass
    return code


def __getattr__(name: str):
    if name == "ExitCode":                      # imported when asked for, not at start-up
        from .common import ExitCode
        return ExitCode
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
