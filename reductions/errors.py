"""The one base class for mistakes a user can make — bad input files, impossible options, a
missing solver binary — and the file-reading helpers that turn OS errors into it.

Every input file may be compressed: :func:`open_text` recognises gzip, xz and bzip2 by their
first bytes (not by the name) and decompresses while reading, so a reader that uses it (or
:func:`read_text`) takes ``p.cnf.gz`` as readily as ``p.cnf``.

The command line prints a :class:`UserError` as a single line (no traceback) and exits with a
non-zero code; anything else escaping is a bug in the project.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
from pathlib import Path
from typing import IO, Iterator


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
    except EOFError:
        raise error(f"{path}: compressed data ends early (a truncated file?)") from None
    except lzma.LZMAError as exc:
        raise error(f"{path}: corrupt xz data ({exc})") from None
    except OSError as exc:
        # gzip and bz2 report corrupt data as OSErrors without an errno.
        raise error(f"{path}: cannot read ({exc.strerror or f'corrupt compressed data: {exc}'})") \
            from None


COMPRESSED_MAGIC = {b"\x1f\x8b": gzip.open, b"\xfd7zXZ\x00": lzma.open, b"BZh": bz2.open}
"""The first bytes of gzip, xz and bzip2 files, and the opener of each."""


def open_text(path: str | Path) -> IO[str]:
    """``path`` opened for reading UTF-8 text, decompressed on the fly when its first bytes
    say gzip, xz or bzip2. Use inside :func:`reading` so that errors name the file."""
    with open(path, "rb") as probe:
        start = probe.read(6)
    for magic, opener in COMPRESSED_MAGIC.items():
        if start.startswith(magic):
            return opener(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def read_text(path: str | Path, error: type[UserError] = UserError) -> str:
    """The whole of a UTF-8 text file (decompressed if compressed), or ``error`` naming the
    file."""
    with reading(path, error), open_text(path) as handle:
        return handle.read()


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
