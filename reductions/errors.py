"""The one base class for mistakes a user can make — bad input files, impossible options, a
missing solver binary — and the file-reading helpers that turn OS errors into it.

The command line prints a :class:`UserError` as a single line (no traceback) and exits with a
non-zero code; anything else escaping is a bug in the project.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator


class UserError(ValueError):
    """A problem with the user's input or environment; the message names what and where."""


@contextlib.contextmanager
def reading(path: str | Path, error: type[UserError] = UserError) -> Iterator[None]:
    """Turn the OS and decoding errors of reading ``path`` into one-line ``error``s."""
    try:
        yield
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a text file ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror})") from None


def read_text(path: str | Path, error: type[UserError] = UserError) -> str:
    """The whole of a UTF-8 text file, or ``error`` naming the file."""
    with reading(path, error):
        return Path(path).read_text(encoding="utf-8")


MAX_INTEGER_DIGITS = 18
"""Longest integer token a reader accepts: every count and index in this project fits in 18
digits, and Python refuses to convert strings beyond 4,300 digits (with an error of its own)."""


def parse_int(token: str, where: str, what: str = "number",
              error: type[UserError] = UserError) -> int:
    """A decimal integer token (optional sign, ASCII digits, at most
    :data:`MAX_INTEGER_DIGITS` digits), or ``error`` naming ``where`` (a file and line)."""
    digits = token[1:] if token[:1] in ("+", "-") else token
    if not (digits.isascii() and digits.isdigit()):
        raise error(f"{where}: {what} {shown(token)} is not an integer")
    if len(digits) > MAX_INTEGER_DIGITS:
        raise error(f"{where}: {what} {shown(token)} is out of range ({len(digits):,} digits)")
    return int(token)


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a one-line message, shortened in the middle when long."""
    if len(text) > limit:
        text = f"{text[:limit // 2]}…{text[-limit // 4:]}"
    return repr(text)
