"""The command line's parser, light: :class:`OneLineParser` (the parser of every command), the
top level (``--help``, ``--version``, ``--debug``) and each command's one-line summary.

``sudoku-bridge --help`` (and ``--version``, or no command at all) needs nothing more: it is
answered here (:func:`parse_without_command`) without importing the command modules, whose
solvers and reductions bring numpy, scipy and pysat — most of the start-up of a command.
The full parser (:func:`solvers.cli.program.build_parser`) starts from the same
:func:`top_parser` and the same summaries, so the two print the same help.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from reductions.errors import printable
from reductions.suggestions import close_match

from .exit_codes import EXIT_MEANINGS, ExitCode
from .version import VersionAction

COMMAND_SUMMARIES = {
    "solve": "solve puzzles through a reduction",
    "emit": "write a reduced instance to a file",
    "decode": "decode an outside solver's answer into a grid",
    "gadget": "NP-hardness gadgets built from 3-CNF formulas",
    "verify": "check a grid against a puzzle",
    "hamiltonian": "a Hamiltonian cycle of any graph file (TSPLIB HCP, DIMACS, FHCP .col, "
                   "edge lists)",
    "nishio": "Nishio(S): the cells of S that lie in some valid placement",
    "nonrepetitive": "nonrepetitive paths and cycles in a labelled graph",
    "crosscheck": "run puzzles through several routes and compare the answers",
    "rules": "solve by deduction rules (Eppstein), explain, grade",
    "generate": "generate minimal puzzles (Eppstein's generator, SAT-checked)",
    "routes": "list the routes: what each needs, whether it can run here",
}
"""Every command, in the order ``--help`` lists them, with its summary there."""


def names_a_command(argv: list[str]) -> bool:
    """Does ``argv`` hold a word that is no top-level option (a command, or a mistake only
    the full parser can name)?"""
    return any(not word.startswith("-") or word == "-" for word in argv)


def command_named(argv: list[str]) -> str | None:
    """The command ``argv`` names (its first word that is no option: the top-level options
    take no value), or None when that word is no command."""
    word = next((word for word in argv if not word.startswith("-") or word == "-"), None)
    return word if word in COMMAND_SUMMARIES else None


def parse_without_command(argv: list[str]) -> int:
    """``--help``, ``--version`` or a missing command, answered from the top level alone;
    the exit code."""
    parser, top, _ = top_parser()
    for name, summary in COMMAND_SUMMARIES.items():
        top.add_parser(name, help=summary)
    try:
        parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return ExitCode.BAD_INPUT            # not reached: a command is required


def top_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction,
                          argparse.ArgumentParser]:
    """The top-level parser, its collection of commands (empty) and the ``--debug`` parent
    every command's parser takes."""
    # --debug is accepted before or after the command (SUPPRESS keeps a later default from
    # overwriting an earlier --debug).
    debug = argparse.ArgumentParser(add_help=False)
    debug.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="on an internal error, print the traceback")
    parser = OneLineParser(
        prog="sudoku-bridge", parents=[debug],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Reduce Sudoku to SAT, exact cover, ILP and Hamiltonian cycle; solve, "
                    "decode, verify and cross-check. NP-hardness gadgets from 3SAT.",
        epilog="exit codes:\n" + "\n".join(f"  {int(code):>3}  {meaning}"
                                           for code, meaning in EXIT_MEANINGS.items()))
    parser.add_argument("--version", action=VersionAction)
    top = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    with_parent(top, debug)
    return parser, top, debug


class OneLineParser(argparse.ArgumentParser):
    """The parser of every command (sub-parsers take their parent's class): a usage error
    is one line naming the command, ``sudoku-bridge solve: error: --jobs: '0': give a number
    from 1 to 4096 (see --help)``, and exit 2 — not argparse's usage block, which buries the
    problem under twenty lines of options."""

    def error(self, message: str):
        self.exit(ExitCode.BAD_INPUT, f"{self.prog}: error: "
                                      f"{printable(message.removeprefix('argument '))} "
                                      f"(see --help)\n")

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, noting on the namespace the innermost parser (the command's, not the
        top level's) that left arguments unrecognized, so that :meth:`parse_args` can
        suggest its options."""
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and not hasattr(namespace, _EXTRAS_OWNER):
            setattr(namespace, _EXTRAS_OWNER, self)
        return namespace, extras

    def parse_args(self, args=None, namespace=None):
        """argparse's, with a close match for a mistyped option: "unrecognized arguments:
        --vai sat; did you mean --via?" (Python 3.12's argparse has no such suggestion
        for options either)."""
        namespace, extras = self.parse_known_args(args, namespace)
        owner = vars(namespace).pop(_EXTRAS_OWNER, self)
        if extras:
            owner.error(f"unrecognized arguments: {' '.join(extras)}"
                        f"{owner.option_suggestion(extras)}")
        return namespace

    def option_suggestion(self, extras: list[str]) -> str:
        """"; did you mean --via?" for the first of ``extras`` that is an option close to
        one of this parser's, else ""."""
        options = [name for name in self._option_string_actions if name.startswith("--")]
        for word in extras:
            if word.startswith("-") and word != "-":
                match = close_match(word.split("=", 1)[0], options)
                if match is not None:
                    return f"; did you mean {match}?"
        return ""

    def _check_value(self, action: argparse.Action, value) -> None:
        """argparse's check of a choice (a command, a target, ``--encoding``...), saying
        "invalid choice: 'slove'; did you mean 'solve'?" when one is close, instead of
        every choice."""
        if action.choices is not None and value not in action.choices:
            match = close_match(str(value), [str(choice) for choice in action.choices])
            if match is not None:
                raise argparse.ArgumentError(action, f"invalid choice: {value!r}; did you "
                                                     f"mean {match!r}?")
        super()._check_value(action, value)

    def _print_message(self, message: str, file=None) -> None:
        """Print ``--help`` or ``--version`` on stdout (argparse's errors on stderr) as every
        command prints: a stdout that cannot take it is one line and exit 2 (argparse
        would drop the error and exit 0), a reader gone away (``| head``) ends quietly."""
        if not message:
            return
        if file is not None and file is not sys.stdout:
            with contextlib.suppress(OSError, ValueError):       # stderr: as argparse does
                file.write(message)
            return
        if sys.stdout is None:
            self.exit(ExitCode.BAD_INPUT, "sudoku-bridge: error: stdout is closed, so "
                                          "nothing could be shown; redirect it instead\n")
        try:
            sys.stdout.write(message)
            sys.stdout.flush()
        except BrokenPipeError:
            to_devnull(1)
        except OSError as exc:
            to_devnull(1)
            self.exit(ExitCode.BAD_INPUT,
                      f"sudoku-bridge: error: stdout: cannot write ({exc.strerror})\n")


_EXTRAS_OWNER = "_unrecognized_by"
"""The namespace attribute :meth:`OneLineParser.parse_known_args` notes its parser in."""


def with_parent(subparsers, debug: argparse.ArgumentParser) -> None:
    """Every parser ``subparsers`` adds accepts ``--debug`` too."""
    plain = subparsers.add_parser
    subparsers.add_parser = lambda name, **kwargs: plain(name, parents=[debug], **kwargs)


def to_devnull(descriptor: int) -> None:
    """Point ``descriptor`` at /dev/null: after a failed write to stdout, so that the
    interpreter's final flush does not print a second error; for a closed stderr."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        if devnull != descriptor:
            os.dup2(devnull, descriptor)
            os.close(devnull)
