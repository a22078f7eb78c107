"""Holding Ctrl-C and SIGTERM back over a few lines that must not be cut in the middle.

The command line turns SIGINT and SIGTERM into exceptions (``KeyboardInterrupt`` and
``solvers.cli.program.Terminated``). Python runs signal handlers between bytecodes, so such an
exception could land between two renames of files that belong together, in the middle of
removing temporary files, or while a process pool forks its workers. :func:`signals_held`
records a signal arriving inside its block and delivers it when the block ends.
"""

from __future__ import annotations

import contextlib
import signal
from typing import Iterator


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block ends, then deliver them (in the main thread;
    elsewhere no handler runs anyway, and nothing is changed)."""
    caught: list[int] = []
    held = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) is not None:
                held[signum] = signal.signal(signum, lambda number, _: caught.append(number))
    except ValueError:              # not the main thread
        pass
    try:
        yield
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)
        for signum in caught:
            signal.raise_signal(signum)
