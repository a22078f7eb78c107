"""The command line (``sudoku-bridge``): :func:`main` and the exit codes. Nothing outside this
package imports it."""

from .common import ExitCode
from .main import main

__all__ = ["main", "ExitCode"]
