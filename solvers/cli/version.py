"""``sudoku-bridge --version``: one line, this package's version and those of the packages its
answers depend on, read from the installed metadata (nothing is imported for it)."""

from __future__ import annotations

import argparse
import platform

PACKAGE = "sudoku-bridge"
DEPENDENCIES = ("python-sat", "numpy")
"""The packages whose versions the line names beside Python's: the default SAT solver
(pysat's CaDiCaL) and the arrays every reduction is built in."""


def installed_version(name: str) -> str:
    """The installed version of the distribution ``name``, or ``not installed``."""
    from importlib import metadata          # here: it costs a command's start-up 10-20 ms
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def version_line() -> str:
    """``sudoku-bridge 0.1.0 (Python 3.11.2, python-sat 1.8.dev13, numpy 1.26.4)``; run from
    a source tree that was never installed, the version says so instead of guessing."""
    own = installed_version(PACKAGE)
    if own == "not installed":
        own = "(version unknown: not installed, run from its source tree)"
    others = ", ".join(f"{name} {installed_version(name)}" for name in DEPENDENCIES)
    return f"{PACKAGE} {own} (Python {platform.python_version()}, {others})"


class VersionAction(argparse.Action):
    """``--version``: print :func:`version_line` on stdout and exit 0."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="print the version (and those of Python, python-sat and numpy) and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        parser._print_message(version_line() + "\n")      # a failed write: one line, exit 2
        parser.exit(0)
