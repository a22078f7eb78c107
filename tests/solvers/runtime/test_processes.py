"""The process layer (solvers/runtime/processes.py) with real processes: fake programs are
shell scripts and marked copies of ``sleep`` / ``yes`` written into tmp_path, and every test looks
in /proc that nothing it started is still running (tests/processes.py)."""

from __future__ import annotations

import contextlib
import importlib.util
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from reductions.encodings.exact_cover import sudoku_exact_cover
from reductions.sudoku.grid import Grid
from solvers.routes import exact_cover
from solvers.runtime.processes import (ExternalSolverError, die_with_parent, find_program,
                                       output_text, run_program)
from solvers.outcome import SolverUnavailable

from tests.processes import child_env, is_running, script, wait_until

NEVER = 30.0
"""Seconds no run in these tests comes near unless it was not stopped: their programs hang
for 1000 s or loop forever. (A bound that catches "never stopped", not a timing: a loaded
machine may take its time. The latencies themselves are measured in
benchmarks/bench_processes.py.)"""


@contextlib.contextmanager
def stopped_before_never():
    """Fail, instead of hanging, when the block still runs after :data:`NEVER` seconds: an
    AssertionError raised by SIGALRM where the block waits (run_program kills the group on
    its way out)."""
    def alarm(signum, frame):
        raise AssertionError(f"still running after {NEVER:g} s: never stopped")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, NEVER)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def all_gone(fakes) -> bool:
    """Nothing marked still runs. The group was sent SIGKILL before run_program returned; a
    grandchild that we cannot wait for (its parent was the wrapper) may take a moment to be
    torn down, so a short grace is allowed."""
    return wait_until(lambda: fakes.running() == [], 5)


# ----------------------------------------------------------------------------- plain runs

def test_exit_code_and_both_outputs_pass_through(fakes):
    program = fakes.script("talk", "echo out; echo err >&2; exit 7\n")
    run = run_program([program], time_limit=10)
    assert (run.exit_code, run.timed_out, run.stdout, run.stderr) == (7, False, b"out\n",
                                                                      b"err\n")
    assert run.ended() == "exited with code 7" and run.tail() == "err"


def test_a_program_killed_by_a_signal_is_named(fakes):
    run = run_program([fakes.script("crash", "kill -s SEGV $$\n")])
    assert run.exit_code == -signal.SIGSEGV and run.ended() == "was killed by SIGSEGV"


def test_stdin_is_empty_or_the_given_file(tmp_path):
    assert run_program(["cat"], time_limit=10).stdout == b""
    (tmp_path / "input.txt").write_bytes(b"p cnf 1 1\n1 0\n")
    run = run_program(["cat"], stdin=tmp_path / "input.txt", time_limit=10)
    assert run.stdout == b"p cnf 1 1\n1 0\n" and run.exit_code == 0


def test_arguments_and_working_directory(tmp_path):
    run = run_program(["sh", "-c", 'pwd; printf "%s|" "$@"', "sh", "a b", "", "ü"],
                      cwd=tmp_path)
    assert run.stdout_text() == f"{tmp_path}\na b||ü|"


def test_a_zero_time_limit_does_not_start_the_program(tmp_path):
    witness = tmp_path / "ran"
    run = run_program(["touch", witness], time_limit=0)
    assert run.timed_out and run.exit_code is None and not witness.exists()


# ----------------------------------------------------------------------------- time limits

def test_a_hanging_program_is_killed_at_the_limit(fakes):
    with stopped_before_never():
        run = run_program([fakes.sleeper, "1000"], time_limit=0.5)
    assert run.timed_out and run.exit_code is None and run.ended() == \
        "was stopped at the time limit"
    assert run.seconds >= 0.5                             # not before the limit
    assert all_gone(fakes)


def test_a_wrapper_waiting_on_its_background_child_loses_both_at_the_limit(fakes):
    wrapper = fakes.script("wrapper", "$SLEEP 1000 &\n$SLEEP 1001\n")
    with stopped_before_never():
        run = run_program([wrapper], time_limit=0.5)
    assert run.timed_out and run.exit_code is None and run.seconds >= 0.5
    assert all_gone(fakes)


def test_a_child_left_running_by_a_finished_wrapper_is_killed(fakes):
    # The child also holds the wrapper's stdout: with pipes we would wait for it.
    wrapper = fakes.script("wrapper", "$SLEEP 1000 &\necho started\nexit 0\n")
    with stopped_before_never():                     # not waiting for the child's 1000 s
        run = run_program([wrapper], time_limit=2 * NEVER)
    assert (run.exit_code, run.stdout, run.timed_out) == (0, b"started\n", False)
    assert all_gone(fakes)


def test_an_exception_while_waiting_kills_the_group(fakes):
    wrapper = fakes.script("wrapper", "$SLEEP 1000 &\n$SLEEP 1001\n")

    def alarm(signum, frame):
        raise RuntimeError("alarm")
    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(RuntimeError, match="alarm"):
            run_program([wrapper])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert all_gone(fakes)


def test_an_exit_ends_the_wait_not_the_time_limit():
    """A program that exits is done: the wait does not run on to the time limit (how soon
    it notices is measured in benchmarks/bench_processes.py)."""
    with stopped_before_never():
        run = run_program(["sleep", "0.2"], time_limit=2 * NEVER)
    assert (run.exit_code, run.timed_out) == (0, False) and run.seconds >= 0.2


# ----------------------------------------------------------------------------- bad output

def test_binary_or_non_utf8_output_is_a_one_line_error():
    run = run_program(["printf", r"c proof\000\001"])
    with pytest.raises(ExternalSolverError, match="output of printf: binary data .* byte 7"):
        run.stdout_text()
    with pytest.raises(ExternalSolverError, match=r"result: not text \(invalid start byte"):
        output_text(b"s SAT\n\xff\n", "result")


def test_a_flood_of_output_is_stopped(fakes):
    with stopped_before_never(), \
            pytest.raises(ExternalSolverError, match=r"yes-\w+ wrote more than 1,000,000 "
                                                     r"bytes on stdout; stopped"):
        run_program([fakes.copy("yes")], max_output=1_000_000)   # `yes` never stops itself
    assert all_gone(fakes)


# ----------------------------------------------------------------------------- cannot start

def test_programs_that_cannot_start_are_unavailable(tmp_path):
    not_executable = tmp_path / "plain.sh"
    not_executable.write_text("#!/bin/sh\necho hi\n")
    no_interpreter = script(tmp_path / "odd.sh", "")
    no_interpreter.write_text("echo no shebang line\n")     # executable, but no #! line
    for program, reason in [(tmp_path / "missing", "No such file"),
                            (not_executable, "Permission denied"),
                            (tmp_path, "Permission denied"),
                            (no_interpreter, "Exec format error")]:
        with pytest.raises(SolverUnavailable, match=f"cannot run .*{reason}"):
            run_program([program])
    with pytest.raises(SolverUnavailable, match="cannot run 'true'.*No such file.*nowhere"):
        run_program(["true"], cwd=tmp_path / "nowhere")


def test_find_program(tmp_path):
    assert find_program(None, ["no-such-program-x", "sh"], what="X").endswith("/sh")
    assert find_program(None, ["no-such-program-x"], what="X") is None
    assert find_program("sh", ["cat"], what="X").endswith("/sh")
    for given, message in [("", "X: empty program name"), ("  ", "X: empty program name"),
                           ("no-such-program-x", "X program 'no-such-program-x' not found"),
                           (str(tmp_path), "not found on PATH \\(or not executable\\)")]:
        with pytest.raises(SolverUnavailable, match=message):
            find_program(given, ["sh"], what="X")


# ----------------------------------------------------------------------------- our death

RUNNER = textwrap.dedent("""
    import sys, tempfile
    from solvers.runtime.processes import run_program
    work = tempfile.mkdtemp(prefix="sudoku-bridge-test-")
    open(work + "/model.cnf", "w").write("p cnf 1 1\\n1 0\\n")
    print(work, flush=True)
    run_program([sys.argv[1]], temp_dirs=[work])
""")


def test_when_we_are_killed_the_watchdog_kills_the_group_and_removes_temp_dirs(fakes,
                                                                                tmp_path):
    wrapper = fakes.script("wrapper", "$SLEEP 1000 &\n$SLEEP 1001\n")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, wrapper],
                              stdout=subprocess.PIPE, text=True, env=child_env(tmpdir))
    try:
        work = runner.stdout.readline().strip()
        assert work.startswith(str(tmpdir))
        assert wait_until(lambda: len(fakes.sleepers()) == 2, 10)
        runner.kill()
        runner.wait()
        assert wait_until(lambda: fakes.running() == [], 2), fakes.running()
        assert wait_until(lambda: os.listdir(tmpdir) == [], 2), os.listdir(tmpdir)
    finally:
        runner.kill()
        runner.wait()


# ----------------------------------------------------------------------------- Python workers

def _sleep_forever(parent: int) -> None:
    die_with_parent(parent)
    time.sleep(1000)


def test_die_with_parent_when_the_parent_is_already_gone():
    # A parent pid that is not ours stands for "the parent died before the prctl".
    child = multiprocessing.get_context("fork").Process(target=_sleep_forever,
                                                        args=(os.getpid() + 10**6,))
    child.start()
    child.join(5)
    assert child.exitcode == -signal.SIGKILL


WORKER_PARENT = textwrap.dedent("""
    import multiprocessing, os, time, sys
    from solvers.routes import exact_cover
    from solvers.runtime.processes import die_with_parent
    def sleep_forever(parent):
        die_with_parent(parent)
        time.sleep(1000)
    child = multiprocessing.get_context("fork").Process(target=sleep_forever,
                                                        args=(os.getpid(),))
    child.start()
    exact_cover.package_worker()._start()
    print(child.pid, exact_cover.package_worker().process.pid, flush=True)
    time.sleep(1000)
""")


def test_python_workers_die_with_their_parent(tmp_path):
    """A plain die_with_parent child and the exact-cover package's search process."""
    parent = subprocess.Popen([sys.executable, "-c", WORKER_PARENT], stdout=subprocess.PIPE,
                              text=True, env=child_env(tmp_path))
    try:
        children = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(children) == 2 and all(is_running(pid) for pid in children)
        parent.kill()
        parent.wait()
        assert wait_until(lambda: not any(is_running(pid) for pid in children), 2)
    finally:
        parent.kill()
        parent.wait()
        for pid in children if "children" in locals() else []:
            if is_running(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(importlib.util.find_spec("exact_cover") is None,
                    reason="the 'exact-cover' package is not installed (extra exact-cover)")
def test_the_exact_cover_worker_still_answers_and_is_replaced_after_a_kill():
    matrix = sudoku_exact_cover(Grid.empty(4), "eliminate").dense_matrix()
    worker = exact_cover.PackageWorker()
    try:
        assert len(worker.search(matrix, 1, 10)) == 1
        first = worker.process.pid
        worker.process.kill()
        worker.process.join()
        assert len(worker.search(matrix, 1, 10)) == 1 and worker.process.pid != first
    finally:
        worker.stop()
