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
