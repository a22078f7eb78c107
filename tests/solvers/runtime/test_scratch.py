"""Temporary directories (solvers/runtime/scratch.py) are removed however a run ends: the
helper under Ctrl-C, a pool's killed workers (their directories, and what their programs
were writing), a pool whose parent is SIGKILLed, and the command line on SIGINT / SIGTERM at
seeded points, with ``--jobs 1`` and ``--jobs 2``, on every kind of outside program.

Every test gives its processes a fresh TMPDIR whose name holds the test's marker, so that
the model paths in a solver's command line, a watchdog's and a janitor's arguments carry the
marker too: "nothing marked runs" covers the real solvers, not only the fakes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Callable

import pytest

from solvers.runtime import scratch
from solvers.runtime.processes import run_program, worker_pool

from tests.conftest import INSTANCES
from tests.processes import child_env, default_sigint, wait_until


@pytest.fixture
def tmpdir(tmp_path, fakes):
    """An empty TMPDIR named after the test's marker."""
    path = tmp_path / f"tmp-{fakes.marker}"
    path.mkdir()
    return path


def everything_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


# ----------------------------------------------------------------------------- the helper

def test_a_temporary_directory_goes_with_its_block(tmpdir, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    with pytest.raises(ValueError, match="inside"):
        with scratch.temporary_directory("sudoku-bridge-x-") as work:
            assert work.parent == tmpdir and work.name.startswith("sudoku-bridge-x-")
            (work / "sub").mkdir()
            (work / "sub" / "model.part").write_text("half a model")
            raise ValueError("inside")
    assert everything_under(tmpdir) == []


@pytest.mark.parametrize("step", ["mkdtemp", "rmtree"])
def test_ctrl_c_while_making_or_removing_it_leaves_nothing(tmpdir, monkeypatch, step):
    """Ctrl-C lands in the middle of making (right after the directory exists) or of
    removing (before a file is gone): it is taken once the step is done."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    module = tempfile if step == "mkdtemp" else scratch.shutil
    real = getattr(module, step)

    def interrupted(*args, **kwargs):
        if step == "mkdtemp":
            made = real(*args, **kwargs)
            Path(made, "early").write_text("x")
            os.kill(os.getpid(), signal.SIGINT)
            return made
        os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)
    monkeypatch.setattr(module, step, interrupted)
    with pytest.raises(KeyboardInterrupt):
        with scratch.temporary_directory("sudoku-bridge-x-") as work:
            (work / "model.cnf").write_text("p cnf 1 1\n1 0\n")
    assert everything_under(tmpdir) == []


# ----------------------------------------------------------------------------- pool scratch

def holder(scratch_dir: scratch.PoolScratch, body: str) -> subprocess.Popen:
    """A process that holds the pool's pipe (as a worker or a watchdog does) while it runs
    ``body`` (a shell script; ``$1`` is the pool's directory)."""
    return subprocess.Popen(["/bin/sh", "-c", body, "holder", str(scratch_dir.root)],
                            pass_fds=(scratch_dir.hold,))


def test_the_pool_directory_is_removed_once_its_last_holder_is_gone(tmpdir, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    pool_dir = scratch.PoolScratch()
    assert pool_dir.root.parent == tmpdir
    # a dying program, still writing into the directory for a moment
    writer = holder(pool_dir, 'for i in 1 2 3 4 5 6 7 8 9 10; do : > "$1/f$i" || exit 1; '
                              'sleep 0.05; done')
    pool_dir.workers_started()
    pool_dir.remove()
    # every write found the directory (exit 0), and it is gone now; the writer is waited
    # for, not polled: a process closes its files a moment before it can be reaped
    assert writer.wait(timeout=10) == 0, "removed while a holder still ran"
    assert everything_under(tmpdir) == []


def test_a_holder_that_never_goes_delays_the_removal_only_so_long(tmpdir, monkeypatch):
    """Something holding the pipe by mistake: the parent gives up waiting after ``wait``
    seconds and removes the directory; the janitor removes it again when the holder goes."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    pool_dir = scratch.PoolScratch()
    stray = holder(pool_dir, 'sleep 0.5; mkdir "$1"; : > "$1/late"; sleep 0.5')
    try:
        pool_dir.remove(wait=0.1)
        assert stray.poll() is None and everything_under(tmpdir) == []
        stray.wait(30)
        assert wait_until(lambda: everything_under(tmpdir) == [], 10), \
            everything_under(tmpdir)
    finally:
        stray.kill()
        stray.wait()


# ----------------------------------------------------------------------------- pool workers

def _hold_a_directory(program: str | None) -> None:
    """A pool task that stays inside its temporary directory: in Python (as while writing a
    model), or while ``program`` runs in it."""
    with scratch.temporary_directory("sudoku-bridge-task-") as work:
        (work / ".model.mps.part").write_text("half a model")
        if program is None:
            time.sleep(1000)
        else:
            run_program([program], cwd=work, temp_dirs=[work])


WRITER = "while :; do for f in a b c d e f g h; do : > $f; done; $SLEEP 0.001; done\n"
"""A program that keeps (re)creating files where it runs, until it is killed: a directory
removed while it still runs is not empty when its removal ends."""


def task_directories(tmpdir: Path) -> list[Path]:
    return list(tmpdir.glob("**/sudoku-bridge-task-*"))


def writing(fakes) -> bool:
    """Is the marked writer running (its script, not only its sleeps)?"""
    return any(b"writer-" in Path(f"/proc/{pid}/cmdline").read_bytes()
               for pid in fakes.running() if Path(f"/proc/{pid}").exists())


def _watchdog_holds() -> tuple[tuple[int, ...], list[str]]:
    """In a pool worker: the descriptors a watchdog must hold, and those the watchdog of a
    program holds (the leader of the program's group)."""
    run = run_program(["sh", "-c", 'ls "/proc/$(cut -d" " -f5 /proc/$$/stat)/fd"'])
    return scratch.watchdog_fds(), run.stdout_text().split()


def test_the_watchdog_of_a_workers_program_holds_the_pool_pipe():
    assert scratch.watchdog_fds() == ()              # not in a worker: nothing to hold
    with worker_pool(1) as pool:
        fds, held = pool.submit(_watchdog_holds).result()
    assert len(fds) == 1 and str(fds[0]) in held, (fds, held)


def test_a_pool_ended_mid_task_leaves_no_directory_and_no_program(tmpdir, fakes,
                                                                  monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    writer = fakes.script("writer", WRITER)
    with pytest.raises(KeyboardInterrupt):
        with worker_pool(2) as pool:
            pool.submit(_hold_a_directory, None)
            pool.submit(_hold_a_directory, str(writer))
            assert wait_until(lambda: len(task_directories(tmpdir)) == 2 and writing(fakes),
                              20)
            raise KeyboardInterrupt       # as Ctrl-C would, while both tasks run
    # at once: the pool waited until the writer was killed before removing its directory
    assert everything_under(tmpdir) == []
    assert wait_until(lambda: fakes.running() == [], 2), fakes.running()


POOL_PARENT = textwrap.dedent("""
    import os, time
    from solvers.runtime.processes import worker_pool
    from tests.solvers.runtime.test_scratch import _hold_a_directory
    with worker_pool(2) as pool:
        pool.submit(_hold_a_directory, None)
        pool.submit(_hold_a_directory, os.environ["WRITER"])
        time.sleep(1000)
""")
# The writer's path goes through the environment: in the command line it would mark the
# parent and its workers as writers too.


def test_a_pool_whose_parent_is_killed_leaves_nothing(tmpdir, fakes):
    """SIGKILL of the parent: the workers die with it, the watchdog kills the writer, and
    the janitor removes the pool's directory once they are all gone."""
    writer = fakes.script("writer", WRITER)
    parent = subprocess.Popen([sys.executable, "-c", POOL_PARENT],
                              env={**child_env(tmpdir), "WRITER": str(writer)})
    try:
        assert wait_until(lambda: len(task_directories(tmpdir)) == 2 and writing(fakes), 20)
        parent.kill()
        parent.wait()
        assert wait_until(lambda: everything_under(tmpdir) == [], 10), \
            everything_under(tmpdir)
        assert wait_until(lambda: fakes.running() == [], 5), fakes.running()
    finally:
        parent.kill()
        parent.wait()


# ----------------------------------------------------------------------------- command line

FAKE_SOLVER = "$SLEEP 0.02\necho not an answer\n"
"""A marked program for the targets that have no real solver here: a moment of work, then
an answer the route cannot use (an error record; the run goes on)."""

REAL_ROUTES = ["cbc", "glpsol", "minisat", "cadical", "exact-cover-dlx"]
"""Routes of real outside programs (CBC, GLPK, two SAT solvers; in process: the exact cover
search), 'not available' where one is missing."""
FAKE_ROUTES = {"fake-cnf": "cnf", "fake-cover": "exact-cover", "fake-hcp": "hcp"}


class CliRun:
    """``python -m solvers.cli ARGS`` in a session of its own (a signal to its group reaches
    its pool workers, as a terminal's Ctrl-C or ``timeout`` does), its output in files."""

    def __init__(self, args: list[str], tmpdir: Path, tmp_path: Path):
        stamp = time.monotonic_ns()
        self.stdout, self.stderr = tmp_path / f"out-{stamp}", tmp_path / f"err-{stamp}"
        with open(self.stdout, "wb") as out, open(self.stderr, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "solvers.cli", *args],
                                         stdout=out, stderr=err, env=child_env(tmpdir),
                                         start_new_session=True, preexec_fn=default_sigint)

    def wait_until_busy(self, busy) -> None:
        """Wait until ``busy()``; it must still be running then."""
        assert wait_until(lambda: busy() or self.proc.poll() is not None, 60)
        assert self.proc.poll() is None, self.stderr.read_text()

    def interrupt(self, signum: int, to_group: bool) -> tuple[int, str]:
        """Send ``signum`` to the command line (or its whole group): its exit code and
        stderr once it has ended."""
        if to_group:
            os.killpg(self.proc.pid, signum)
        else:
            self.proc.send_signal(signum)
        self.proc.wait(60)
        return self.proc.returncode, self.stderr.read_text()

    def kill_group(self) -> None:
        """Whatever is left of its group (cleanup, also when a test fails)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()


def crosscheck_args(fakes, records: Path, jobs: int) -> list[str]:
    """A crosscheck that runs for many seconds: the real routes, and marked fake programs
    on the CNF, exact-cover and Hamiltonian-cycle files."""
    fake = fakes.script("solver", FAKE_SOLVER)
    args = ["crosscheck", str(INSTANCES / "royle17-sample300.txt"),
            "--routes", ",".join([*REAL_ROUTES, *FAKE_ROUTES]),
            "--json", str(records), "--jobs", str(jobs)]
    for name, target in FAKE_ROUTES.items():
        args += ["--route", f"{name}={target}:{fake} {{input}}"]
    return args


def every_route_recorded(records: Path) -> bool:
    """Has every route answered once? (Then each has loaded what it loads lazily: an
    interruption inside a lazy scipy import ends the command line by SIGINT instead of 130,
    a quirk of Python's exit, not what these tests are about.)"""
    if not records.exists():
        return False
    lines = records.read_text().splitlines()[:-1]          # the last may be torn
    return {json.loads(line)["route"] for line in lines} >= {*REAL_ROUTES, *FAKE_ROUTES}


def assert_nothing_left(fakes, tmpdir: Path) -> None:
    """TMPDIR empty as soon as the command line has exited; nothing marked running (a
    moment's grace: a janitor that found nothing left to remove may still be exiting)."""
    assert everything_under(tmpdir) == []
    assert wait_until(lambda: fakes.running() == [], 5), fakes.running()


EXIT = {signal.SIGINT: (130, "sudoku-bridge: interrupted"),
        signal.SIGTERM: (143, "sudoku-bridge: terminated")}


def interrupt_at_seeded_points(start, signum: int, *, attempts: int, seed: str, fakes,
                               tmpdir: Path) -> None:
    """``attempts`` runs, each started by ``start(attempt)`` (the run, and when it is busy);
    once busy, after a seeded delay, ``signum`` goes to the command line alone or to its
    whole group, and :func:`interrupt_and_check` checks what is left."""
    chance = random.Random(seed)
    for attempt in range(attempts):
        delay, to_group = chance.uniform(0, 0.6), chance.random() < 0.5
        run, busy = start(attempt)
        try:
            run.wait_until_busy(busy)
            time.sleep(delay)
            where = f"attempt {attempt}: {delay:.2f} s, to the " \
                    f"{'group' if to_group else 'process'}"
            interrupt_and_check(run, signum, to_group, where, fakes, tmpdir)
        finally:
            run.kill_group()


def interrupt_and_check(run: CliRun, signum: int, to_group: bool, where: str, fakes,
                        tmpdir: Path) -> None:
    code, err = run.interrupt(signum, to_group)
    assert (code, err.splitlines()[-1:]) == (EXIT[signum][0], [EXIT[signum][1]]), \
        f"{where}: {err}"
    assert "Traceback" not in err, where
    assert_nothing_left(fakes, tmpdir)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_crosscheck_interrupted_anywhere_leaves_nothing(tmp_path, tmpdir, fakes, jobs,
                                                        signum):
    """Seeded points: a delay once every route has answered (the routes are in full swing:
    models being written, programs running, answers being read), the signal to the command
    line alone or to its whole group."""
    def start(attempt: int) -> tuple[CliRun, Callable[[], bool]]:
        records = tmp_path / f"records-{attempt}.jsonl"
        return (CliRun(crosscheck_args(fakes, records, jobs), tmpdir, tmp_path),
                lambda: every_route_recorded(records))

    interrupt_at_seeded_points(start, signum, attempts=3, seed=f"{jobs}-{int(signum)}",
                               fakes=fakes, tmpdir=tmpdir)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
@pytest.mark.parametrize("route", ["ilp", "sat"])
def test_solve_on_a_file_interrupted_leaves_nothing(tmp_path, tmpdir, fakes, route, signum):
    """``solve FILE --jobs 2``: the ilp route with a marked CBC solves the puzzles one by
    one in the command line itself; the sat route spreads them over a pool of workers."""
    puzzles = tmp_path / "many.txt"
    # long enough to be running when the signal comes: the sat route's pool answers
    # thousands of these puzzles a second
    copies = 40 if route == "ilp" else 1000
    puzzles.write_text((INSTANCES / "forum-hardest-sample100.txt").read_text() * copies)
    args = ["solve", str(puzzles), "--jobs", "2", "--via", route, "--unique"]
    if route == "ilp":
        cbc = fakes.script("cbc", 'cbc "$@"\n')       # the real CBC under a marked name
        args += ["--cbc-path", str(cbc)]
    def start(attempt: int) -> tuple[CliRun, Callable[[], bool]]:
        run = CliRun(args, tmpdir, tmp_path)
        return run, lambda: run.stdout.stat().st_size > 0          # answers coming

    interrupt_at_seeded_points(start, signum, attempts=2, seed=f"{route}-{int(signum)}",
                               fakes=fakes, tmpdir=tmpdir)


def test_crosscheck_killed_outright_leaves_nothing(tmp_path, tmpdir, fakes):
    """SIGKILL of a ``--jobs 2`` crosscheck: its workers die with it, and the janitor
    removes their directory once their programs are gone."""
    records = tmp_path / "records.jsonl"
    run = CliRun(crosscheck_args(fakes, records, 2), tmpdir, tmp_path)
    try:
        run.wait_until_busy(lambda: every_route_recorded(records))
        time.sleep(0.3)
        run.proc.kill()
        run.proc.wait()
        assert wait_until(lambda: everything_under(tmpdir) == [], 10), \
            everything_under(tmpdir)
        assert wait_until(lambda: fakes.running() == [], 5), fakes.running()
    finally:
        run.kill_group()
