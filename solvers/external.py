"""Running outside programs: every solver binary this project starts goes through here.

:func:`run_program` runs one program

* **without a shell**, stdin closed (or a file), in a **process group of its own** (its own
  session), so that it and anything it starts can be killed together;
* with its stdout and stderr going to files in a private scratch directory (no pipe can fill
  up and block it, no grandchild holding a pipe can keep us waiting), capped at
  ``max_output`` bytes each while it runs;
* under a **time limit that we enforce ourselves**: past it the whole group is killed and the
  run is marked ``timed_out`` — the caller answers "unknown", never "no solution";
* and when it ends, anything it left running in its group is killed too (a wrapper script's
  solver does not outlive the wrapper).

Ctrl-C, SIGTERM (the command line turns it into an exception) or any error while waiting
kills the group before the exception goes on. If *we* die without a chance to clean up
(SIGKILL), a tiny watchdog (``/bin/sh``, in a session of its own, reading a pipe from us)
sees the pipe close and kills the group, then removes the scratch directory.

:func:`find_program` resolves a program name or path; :class:`ExternalSolverError` is the
one error for "it ran, but gave no usable answer" (a crash, binary or unreadable output).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from reductions.errors import UserError

from .outcome import SolverUnavailable

MAX_OUTPUT_BYTES = 256 << 20
"""Default cap on each of a program's stdout and stderr (a model of a 64×64 Sudoku is a few
MB); past it the program is killed and the run is an :class:`ExternalSolverError`."""

_WATCHDOG = r"""
read -r group || exit 0
read -r word
if [ "$word" != done ]; then
    kill -s KILL -- "-$group" 2>/dev/null
    [ -n "$1" ] && rm -rf -- "$1"
fi
"""
# Line 1: the group to guard (EOF before it: nothing started yet). Line 2: "done" when the
# run ended normally; EOF instead means we died, so the group is killed and scratch removed.


class ExternalSolverError(UserError):
    """An outside program ran but gave no usable answer (crash, binary or unreadable output,
    more output than allowed)."""


def find_program(given: str | None, names: Iterable[str] = (), *, what: str) -> str | None:
    """Path of a program: ``given`` (a name on PATH or a path, which must exist and be
    executable, else :class:`SolverUnavailable` naming it), else the first of ``names`` on
    PATH, else None."""
    if given is not None:
        if not given.strip():
            raise SolverUnavailable(f"{what}: empty program name")
        found = shutil.which(given)
        if found is None:
            raise SolverUnavailable(f"{what} program {given!r} not found on PATH (or not "
                                    f"executable)")
        return found
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class ProgramRun:
    """What one run of a program left: exit code (None when it was killed at the time
    limit), whether it timed out, its wall time, and its output as bytes."""

    args: list[str]
    exit_code: int | None
    timed_out: bool
    seconds: float
    stdout: bytes
    stderr: bytes

    @property
    def name(self) -> str:
        return Path(self.args[0]).name

    def stdout_text(self) -> str:
        return output_text(self.stdout, f"output of {self.name}")

    def tail(self, lines: int = 2) -> str:
        """The last lines of its output (stderr first), for error messages; '' if none."""
        for data in (self.stderr, self.stdout):
            text = data[-4096:].decode("utf-8", "replace").strip()
            if text:
                return " / ".join(line.strip()[:200] for line in text.splitlines()[-lines:])
        return ""


def output_text(data: bytes, what: str) -> str:
    """``data`` as text; binary or non-UTF-8 output is an :class:`ExternalSolverError`
    naming where (e.g. a DRAT proof written where a model was expected)."""
    zero = data.find(b"\0")
    if zero >= 0:
        raise ExternalSolverError(f"{what}: binary data (a NUL byte at byte {zero}), not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExternalSolverError(f"{what}: not text ({exc.reason} at byte {exc.start})") \
            from None


def _kill_group(group: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _exited(pid: int) -> bool:
    """Has the process exited? Leaves it unreaped (a zombie keeps its group id reserved, so
    killing the group afterwards cannot hit an unrelated process)."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return info is not None and info.si_pid == pid


@contextlib.contextmanager
def _watchdog(scratch: Path) -> Iterator[subprocess.Popen]:
    guard = subprocess.Popen(["/bin/sh", "-c", _WATCHDOG, "watchdog", str(scratch)],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        yield guard
    finally:
        with contextlib.suppress(OSError, ValueError):
            guard.stdin.write(b"done\n")
            guard.stdin.close()
        guard.wait()


def run_program(args: Sequence[str], *, time_limit: float | None = None,
                cwd: str | Path | None = None, env: dict | None = None,
                stdin: str | Path | None = None,
                max_output: int = MAX_OUTPUT_BYTES) -> ProgramRun:
    """Run ``args`` (``args[0]`` a path or a name on PATH) as described in the module
    docstring. Raises :class:`SolverUnavailable` when it cannot be started,
    :class:`ExternalSolverError` when its output passes ``max_output``; a time-out is not an
    error (``timed_out`` is set)."""
    args = [str(a) for a in args]
    if time_limit is not None and time_limit <= 0:
        return ProgramRun(args, None, True, 0.0, b"", b"")
    with tempfile.TemporaryDirectory(prefix="sudoku-bridge-run-") as tmp:
        scratch = Path(tmp)
        with _watchdog(scratch) as guard, \
                open(scratch / "stdout", "w+b") as out, open(scratch / "stderr", "w+b") as err, \
                open(stdin if stdin is not None else os.devnull, "rb") as source:
            start = time.monotonic()
            try:
                proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=source, stdout=out,
                                        stderr=err, start_new_session=True)
            except OSError as exc:
                raise SolverUnavailable(f"cannot run {args[0]!r}: "
                                        f"{exc.strerror or exc}") from None
            try:
                guard.stdin.write(f"{proc.pid}\n".encode())
                guard.stdin.flush()
                timed_out = _wait(proc.pid, start, time_limit, (out, err), max_output)
            finally:
                _kill_group(proc.pid)       # leftovers, or everything on an exception
                proc.wait()
            seconds = time.monotonic() - start
            out.seek(0)
            err.seek(0)
            run = ProgramRun(args, None if timed_out else proc.returncode, timed_out, seconds,
                             out.read(max_output + 1), err.read(max_output + 1))
    for stream, data in (("stdout", run.stdout), ("stderr", run.stderr)):
        if len(data) > max_output:
            raise ExternalSolverError(f"{run.name} wrote more than {max_output:,} bytes on "
                                      f"{stream}; stopped")
    return run


def _wait(pid: int, start: float, time_limit: float | None, outputs, max_output: int) -> bool:
    """Wait for the process to exit; True when the time limit came first. Checks the output
    sizes as it goes (a program flooding its output is stopped)."""
    deadline = None if time_limit is None else start + time_limit
    delay = 0.0005
    while not _exited(pid):
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            return True
        if any(os.fstat(f.fileno()).st_size > max_output for f in outputs):
            return False
        time.sleep(delay if deadline is None else min(delay, max(deadline - now, 0.0)))
        delay = min(2 * delay, 0.05)
    return False
