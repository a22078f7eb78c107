"""Atomic output files: write to a temporary file beside the target, rename on success.

A run that fails (an exception, Ctrl-C, a full disk) leaves the target untouched and no
temporary file behind. Every writer in the project goes through :func:`atomic_write`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator

from reductions.errors import UserError


class OutputError(UserError):
    """An output file cannot be written; the message names the file."""


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", buffering: int = 1 << 20) -> Iterator[IO]:
    """Open a temporary file next to ``path``; on clean exit it replaces ``path``.

    ``mode`` is ``"w"`` (text, UTF-8, ``\\n`` line ends) or ``"wb"``.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', not {mode!r}")
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(f"{path}: cannot write, directory {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=directory)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        if mode == "w":
            handle = os.fdopen(fd, "w", encoding="utf-8", newline="\n", buffering=buffering)
        else:
            handle = os.fdopen(fd, "wb", buffering=buffering)
        with handle:
            yield handle
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
