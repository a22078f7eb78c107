"""Temporary directories, and their removal however a run ends.

Every temporary directory this project makes comes from :func:`temporary_directory`, which
makes and removes it whole: Ctrl-C and SIGTERM (exceptions on the command line) are held
back over both steps (:func:`solvers.runtime.signals.signals_held`), so a process that
unwinds from an interruption leaves no directory, nor half of one, behind.

Pool workers do not unwind: :func:`solvers.runtime.processes.worker_pool` kills them
outright, and a group's SIGTERM ends them at once, wherever they are (halfway through
writing a model, or reading a solver's answer). So each pool has a :class:`PoolScratch`: a
directory of its own under TMPDIR that is its workers' temporary directory
(``tempfile.tempdir``, and the ``TMPDIR`` of the programs they run), removed by the parent
when the pool ends — after the workers **and their outside programs** are gone, so that no
dying program writes into a directory being removed.

"Gone" is told by a pipe. The workers inherit its write end, and so does the watchdog of
every program a worker runs (:func:`solvers.runtime.processes.run_program` passes it on),
which outlives its worker just long enough to kill the program and remove its directories.
The parent closes its own write end once the workers are forked; end of file on the read
end means the last of them is gone.

If the parent is killed outright (SIGKILL, the OOM killer), a janitor removes the
directory: a tiny ``/bin/sh`` outside our process tree (not our child, in a session of its
own, deaf to HUP, INT, QUIT and TERM) that reads the same pipe. The workers die with the
parent (``PR_SET_PDEATHSIG``), their watchdogs clean up and exit, end of file comes, and
the janitor removes the directory. When the parent ends normally, both remove it; whoever
comes second finds nothing left.

What a SIGKILL of a process that is not a pool worker leaves: the directory of a program
then running goes with the program's watchdog
(:func:`~solvers.runtime.processes.run_program`'s ``temp_dirs``), but one being written or
read at that moment (``--jobs 1``: the command line's own) stays; and the pool's directory
stays if the janitor itself is killed, or if SIGKILL lands in the millisecond between making
the directory and starting its janitor.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

from .signals import signals_held

GONE_WAIT_SECONDS = 10.0
"""How long the parent of a pool waits for its workers' watchdogs to finish (they take
milliseconds; only something holding the pipe by mistake makes it wait this long, and the
janitor still removes the directory once that is gone)."""

_JANITOR = r"""
trap '' HUP INT QUIT TERM
exec 3<&0
{ read -r _ <&3; rm -rf -- "$1"; } </dev/null >/dev/null 2>&1 &
"""
# The pipe is the shell's stdin, kept as fd 3 (a background list's stdin is /dev/null, and
# dash redirects single-digit fds only). The braces run in the background, so the shell we
# start exits at once and the janitor is nobody's child but init's. `read` returns at end
# of file: no one ever writes to the pipe.

_watchdog_fds: tuple[int, ...] = ()
"""In a pool worker: the pipe's write end, which each program's watchdog inherits."""


@contextlib.contextmanager
def temporary_directory(prefix: str) -> Iterator[Path]:
    """A new directory under the temporary directory (``TMPDIR``; a pool's directory in a
    pool worker), removed with everything in it when the block ends, however it ends."""
    path = None
    try:
        with signals_held():
            path = Path(tempfile.mkdtemp(prefix=prefix))
        yield path
    finally:
        if path is not None:
            with signals_held():
                shutil.rmtree(path, ignore_errors=True)


def watchdog_fds() -> tuple[int, ...]:
    """The file descriptors a program's watchdog must hold open while it lives (see the
    module docstring): the pool's pipe in a pool worker, none elsewhere."""
    return _watchdog_fds


class PoolScratch:
    """The temporary directory of one pool's workers (module docstring). Made in the
    parent before the workers are forked; :meth:`enter` runs in each worker,
    :meth:`workers_started` and :meth:`remove` in the parent."""

    def __init__(self) -> None:
        self.gone, self.hold = os.pipe()
        try:
            self.root = Path(tempfile.mkdtemp(prefix="sudoku-bridge-pool-"))
            subprocess.Popen(["/bin/sh", "-c", _JANITOR, "janitor", self.root],
                             stdin=self.gone, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True).wait()
        except BaseException:
            os.close(self.gone)
            os.close(self.hold)
            if hasattr(self, "root"):
                shutil.rmtree(self.root, ignore_errors=True)
            raise

    def worker_args(self) -> tuple[str, int]:
        """What a worker's :meth:`enter` takes (the workers are forked: the pipe's write end
        is the same number there)."""
        return str(self.root), self.hold

    @staticmethod
    def enter(root: str, hold: int) -> None:
        """In a worker: temporary files and directories, its own and its programs', go into
        ``root``; the watchdogs of its programs hold the pipe ``hold``."""
        global _watchdog_fds
        tempfile.tempdir = root
        os.environ["TMPDIR"] = root
        _watchdog_fds = (hold,)

    def workers_started(self) -> None:
        """In the parent, once the workers are forked: from now on only they (and their
        watchdogs) hold the pipe."""
        if self.hold >= 0:
            os.close(self.hold)
            self.hold = -1

    def remove(self, wait: float = GONE_WAIT_SECONDS) -> None:
        """In the parent, once the workers are killed and reaped: wait (up to ``wait``
        seconds) until their watchdogs are gone too, then remove the directory."""
        self.workers_started()
        _wait_for_end_of_file(self.gone, wait)
        os.close(self.gone)
        shutil.rmtree(self.root, ignore_errors=True)


def _wait_for_end_of_file(fd: int, seconds: float) -> bool:
    """Read ``fd`` (a pipe no one writes to) until end of file or ``seconds`` pass; True at
    end of file."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(int(left * 1000) + 1):
            return False
        if not os.read(fd, 4096):
            return True
