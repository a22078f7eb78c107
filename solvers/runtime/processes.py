"""Running outside programs: every solver binary this project starts goes through here.

:func:`run_program` runs one program

* **without a shell**, stdin ``/dev/null`` (or a file), in a **process group of its own**, so
  that it and anything it starts can be killed together;
* with its stdout and stderr going to anonymous temporary files (no pipe can fill up and block
  it, no grandchild holding a pipe can keep us waiting, no name is ever left on disk), capped
  at ``max_output`` bytes each while it runs;
* under a **time limit that we enforce ourselves**: past it the whole group is killed and the
  run is marked ``timed_out`` — the caller answers "unknown", never "no solution";
* and when it ends, anything it left running in its group is killed too (a wrapper script's
  solver does not outlive the wrapper). Only a program that leaves its group on purpose
  (``setsid``, a daemon) is out of reach.

Ctrl-C, SIGTERM (the command line turns it into an exception) or any error while waiting
kills the group before the exception goes on.

**If we die** without a chance to clean up (SIGKILL, the OOM killer), a watchdog kills the
group: a tiny ``/bin/sh``, started first, that leads the group and only reads a pipe from us
(we never write to it). When our process dies the pipe closes, the watchdog kills the whole
group and removes the caller's temporary directories (``temp_dirs``). Because the watchdog is
the group's leader and stays unreaped while we live, the group id cannot be reused: every
kill of the group, ours or its own, hits only this run's processes. (The group stays in our
session — a group can only be joined within one — as a background group: a terminal's Ctrl-C
reaches us, not the solver, and we kill it. A Python process forked from ours during a run
holds the pipe too; made with :func:`die_with_parent`, it dies with us and the pipe closes.)
In a pool worker the watchdog also holds its pool's pipe until it has finished
(:mod:`solvers.runtime.scratch`): the pool's directory is removed only after that.

:func:`die_with_parent` is the same guarantee for Python worker processes (``multiprocessing``
children): the kernel kills them when their parent dies.

:func:`find_program` resolves a program name or path; :class:`ExternalSolverError` is the
one error for "it ran, but gave no usable answer" (a crash, binary or unreadable output).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

from reductions.errors import UserError
from reductions.reading import ReadLimit, check_size, read_bytes

from ..outcome import SolverUnavailable
from .scratch import PoolScratch, watchdog_fds
from .signals import signals_held

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

MAX_OUTPUT_BYTES = 256 << 20
"""Default cap on each of a program's stdout and stderr (a model of a 64×64 Sudoku is a few
MB); past it the program is killed and the run is an :class:`ExternalSolverError`."""

OUTPUT_CHECK_SECONDS = 0.02
"""How often the output sizes are looked at while a program runs (its exit is noticed at
once; this only bounds how far a flood of output can run past ``max_output``)."""

_WATCHDOG = r"""
trap '' HUP INT QUIT TERM
read -r _
if command -v setsid >/dev/null 2>&1; then
    setsid /bin/sh -c 'kill -s KILL -- "-$1"; shift; rm -rf -- "$@"' cleanup "$$" "$@"
fi
rm -rf -- "$@"
kill -s KILL 0
"""
# The watchdog reads until end of file: the process that started it has died. It kills its
# group (the program's), then removes the directories. The kill comes from a process outside
# the group (setsid), so the removal starts after every member is gone; without setsid(1),
# it removes first and then kills the group, itself included.


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
    limit; negative: killed by that signal), whether it timed out, its wall time, and its
    output as bytes."""

    args: list[str]
    exit_code: int | None
    timed_out: bool
    seconds: float
    stdout: bytes
    stderr: bytes

    @property
    def name(self) -> str:
        return Path(self.args[0]).name

    def stdout_text(self, limit: ReadLimit | None = None) -> str:
        """Its stdout as text, held to ``limit`` (what the answer it should hold can take)
        beside the cap every output has."""
        where = f"output of {self.name}"
        if limit is not None:
            check_size(self.stdout, limit, where)
        return output_text(self.stdout, where)

    def ended(self) -> str:
        """How it ended, for messages: 'exited with code 3', 'was killed by SIGSEGV'."""
        if self.timed_out:
            return "was stopped at the time limit"
        if self.exit_code is not None and self.exit_code < 0:
            try:
                return f"was killed by {signal.Signals(-self.exit_code).name}"
            except ValueError:
                return f"was killed by signal {-self.exit_code}"
        return f"exited with code {self.exit_code}"

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


def output_limit(max_output: int = MAX_OUTPUT_BYTES) -> ReadLimit:
    """The cap on everything a program writes: its stdout and stderr, and an ``{output}``
    file (once decompressed, when it is compressed)."""
    return ReadLimit(max_output, "more than a program's output may be (the cap on every "
                                 "output of an outside program)")


def read_output_file(path: Path, limit: ReadLimit, what: str) -> str:
    """The text of a file a program wrote (its ``{output}``), decompressed when compressed,
    held to ``limit`` (what its answer can take) and to :func:`output_limit`, as stdout is;
    errors name it as ``what`` (e.g. "minisat's result file")."""
    try:
        data = read_bytes(path, limit.within(output_limit()), ExternalSolverError)
    except UserError as exc:
        raise ExternalSolverError(str(exc).replace(str(path), what)) from None
    return output_text(data, what)


def run_program(args: Sequence[str | os.PathLike], *, time_limit: float | None = None,
                cwd: str | Path | None = None, env: dict | None = None,
                stdin: str | Path | None = None, max_output: int = MAX_OUTPUT_BYTES,
                temp_dirs: Sequence[str | Path] = (),
                output_files: Sequence[str | Path] = (),
                memory_limit: int | None = None) -> ProgramRun:
    """Run ``args`` (``args[0]`` a path or a name on PATH) as described in the module
    docstring; ``temp_dirs`` are the caller's temporary directories, removed by the watchdog
    if this process dies during the run (otherwise the caller's own cleanup runs).
    ``output_files`` are files the program writes (its ``{output}``), capped at
    ``max_output`` bytes while it runs as its stdout and stderr are. ``memory_limit``
    (bytes) caps the program's address space (``RLIMIT_AS``, as ``ulimit -v``): past it
    its allocations fail (a proof checker, whose input can be made as large as one likes).

    Raises :class:`SolverUnavailable` when the program cannot be started,
    :class:`ExternalSolverError` when an output passes ``max_output``; a time-out is not an
    error (``timed_out`` is set)."""
    args = [os.fspath(a) for a in args]
    if time_limit is not None and time_limit <= 0:
        return ProgramRun(args, None, True, 0.0, b"", b"")
    with open(stdin if stdin is not None else os.devnull, "rb") as source, \
            tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        guard = proc = None
        try:
            guard = subprocess.Popen(["/bin/sh", "-c", _WATCHDOG, "watchdog",
                                      *(os.fspath(d) for d in temp_dirs)],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, process_group=0,
                                     pass_fds=watchdog_fds())
            start = time.monotonic()
            try:
                proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=source, stdout=out,
                                        stderr=err, process_group=guard.pid,
                                        preexec_fn=_address_space(memory_limit))
            except OSError as exc:
                where = f" ({exc.filename})" if exc.filename not in (None, args[0]) else ""
                raise SolverUnavailable(f"cannot run {args[0]!r}: {exc.strerror or exc}"
                                        f"{where}") from None
            deadline = None if time_limit is None else start + time_limit
            timed_out = _wait(proc, deadline, (out, err), output_files, max_output)
            seconds = time.monotonic() - start
        finally:
            if guard is not None:
                # The program, its leftovers and the watchdog are one group whose id the
                # unreaped watchdog holds: this kill cannot reach any other process.
                _kill_group(guard.pid)
                if proc is not None:
                    proc.wait()
                guard.wait()
                guard.stdin.close()
        out.seek(0)
        err.seek(0)
        run = ProgramRun(args, None if timed_out else proc.returncode, timed_out, seconds,
                         out.read(max_output + 1), err.read(max_output + 1))
    for stream, data in (("stdout", run.stdout), ("stderr", run.stderr)):
        if len(data) > max_output:
            raise ExternalSolverError(f"{run.name} wrote more than {max_output:,} bytes on "
                                      f"{stream}; stopped")
    if _oversized(output_files, max_output):
        raise ExternalSolverError(f"{run.name} wrote more than {max_output:,} bytes to its "
                                  f"output file ({{output}}); stopped")
    return run


def _address_space(limit: int | None) -> Callable[[], None] | None:
    """What the child runs before the program: its address space held to ``limit`` bytes
    (None: nothing to run)."""
    if limit is None:
        return None

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)           # a limit can be lowered, never raised

    def hold() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return hold


def _oversized(paths: Sequence[str | Path], max_output: int) -> bool:
    """Does one of ``paths`` (files a program writes) hold more than ``max_output`` bytes?"""
    for path in paths:
        with contextlib.suppress(OSError):
            if os.stat(path).st_size > max_output:
                return True
    return False


def _kill_group(group: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _wait(proc: subprocess.Popen, deadline: float | None, outputs, output_files,
          max_output: int) -> bool:
    """Wait for the program to exit; True when the deadline came first. Looks at the output
    sizes (stdout and stderr, and the ``output_files``) every :data:`OUTPUT_CHECK_SECONDS`
    (a program flooding an output is stopped)."""
    with _exit_waiter(proc) as exited_within:
        while True:
            pause = OUTPUT_CHECK_SECONDS
            if deadline is not None:
                pause = min(pause, deadline - time.monotonic())
                if pause <= 0:
                    return proc.poll() is None
            if exited_within(pause):
                return False
            if any(os.fstat(f.fileno()).st_size > max_output for f in outputs) \
                    or _oversized(output_files, max_output):
                return False


@contextlib.contextmanager
def _exit_waiter(proc: subprocess.Popen):
    """A function ``exited_within(seconds) -> bool`` that sleeps until the process exits or
    the seconds pass. On Linux a pidfd wakes us the moment it exits; elsewhere
    ``Popen.wait`` polls."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is None:
        def exited_within(seconds: float) -> bool:
            try:
                proc.wait(seconds)
            except subprocess.TimeoutExpired:
                return False
            return True
        yield exited_within
        return
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        yield lambda seconds: bool(poller.poll(math.ceil(seconds * 1000)))
    finally:
        os.close(pidfd)


# ----------------------------------------------------------------------------- workers

_PR_SET_PDEATHSIG = 1       # <linux/prctl.h>
_libc = None


def die_with_parent(parent: int | None = None) -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux
    ``prctl(PR_SET_PDEATHSIG)``; a no-op elsewhere). For Python worker processes: call it
    first thing in the child (e.g. as a ``multiprocessing`` pool's ``initializer``).

    ``parent`` is the parent's pid as the parent saw it (``os.getpid()`` before starting the
    child): if the parent died before this call, no signal would ever come, so the process
    kills itself at once. The signal follows the parent *thread* that started the child; a
    child started from a short-lived thread dies with that thread."""
    global _libc
    if not sys.platform.startswith("linux"):
        return
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    if _libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl(PR_SET_PDEATHSIG): {os.strerror(error)}")
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)



def become_worker(parent: int) -> None:
    """Set-up of a Python worker process (a ``multiprocessing`` initializer or child): it
    dies with its parent (:func:`die_with_parent`), leaves Ctrl-C to the parent (a terminal's
    Ctrl-C reaches the whole group; the parent stops its workers), and lets SIGTERM end it
    (the parent's handler, inherited through fork, would raise inside a task and print a
    traceback per worker)."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def worker_pool(jobs: int, initializer: Callable[..., None] = become_worker,
                initargs: tuple = ()) -> Iterator[ProcessPoolExecutor]:
    """A process pool of ``jobs`` Python workers, each set up by ``initializer(parent_pid,
    *initargs)`` (default :func:`become_worker`; a custom one must call it first). Ctrl-C and
    SIGTERM are held back while the workers are forked, so that an interruption cannot leave
    half a pool behind; however the block ends (done, Ctrl-C, SIGTERM, an error, a consumer
    that stops reading) the workers are killed and reaped, without first running the queued
    tasks as a graceful shutdown would.

    Killed workers cannot remove their temporary directories: theirs go into the pool's own
    (:class:`solvers.runtime.scratch.PoolScratch`), removed once the workers and the
    programs they ran are gone — by us, or by its janitor if we are killed outright."""
    import multiprocessing      # here: a run that starts no pool (one puzzle) goes without
    from concurrent.futures import ProcessPoolExecutor
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with signals_held():
        scratch = PoolScratch()
    pool = None
    try:
        pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker,
                                   initargs=(scratch.worker_args(), initializer,
                                             (os.getpid(), *initargs)))
        with signals_held():
            pool.submit(int).result()        # forks every worker (fork context: all at once)
            scratch.workers_started()
        yield pool
    finally:
        # A second Ctrl-C waits until the workers and their directories are gone.
        with signals_held():
            if pool is not None:
                _stop_workers(pool)
            scratch.remove()


def _start_worker(scratch: tuple[str, int], initializer: Callable[..., None],
                  args: tuple) -> None:
    """A pool worker's set-up: its temporary directories in the pool's, then
    ``initializer(*args)``."""
    PoolScratch.enter(*scratch)
    initializer(*args)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Kill and reap the workers of ``pool`` and wait for its manager thread."""
    # No public way reaches the workers; _processes (pid -> Process) is what the
    # executor's own shutdown uses.
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.kill()
    for worker in workers:
        worker.join()
    # The executor's manager thread ends once its workers are gone; waiting for it here
    # keeps it from closing its wake-up pipe while the interpreter's exit hook writes to
    # it (a CPython race that printed "Exception ignored ... Bad file descriptor" after
    # our one-line message on Ctrl-C).
    if manager is not None:
        manager.join(timeout=5)
