"""Outside solvers through the command line, with real processes: ``python -m solvers.cli``
runs as a child with its own TMPDIR, fake solvers are marked scripts in tmp_path, and every
test checks in /proc that no solver process is left and that no temporary file remains.

Covers: a CBC that hangs and a wrapper that forks a solver (SAT and exact-cover commands), at
the time limit (exit 3);
SIGINT (130), SIGTERM (143) and SIGKILL of the command line while a solver runs; solver
commands that crash, print garbage, nothing, a binary proof or a flood (one line, exit 2);
Ctrl-C during an in-process pysat solve and during a pool of SAT workers.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import INSTANCES
from tests.processes import child_env, default_sigint, is_running, wait_until
from tests.reductions.sudoku.test_grid import PAPER_17

HANG = "$SLEEP 1000\n"
FORKING_WRAPPER = "$SLEEP 1000 &\n$SLEEP 1001\nwait\n"


@pytest.fixture
def tmpdir_for_cli(tmp_path):
    """The command line's TMPDIR: must be empty again when it has finished."""
    path = tmp_path / "tmp"
    path.mkdir()
    return path


def start_cli(args, tmpdir) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "solvers.cli", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=child_env(tmpdir), preexec_fn=default_sigint)


def run_cli(args, tmpdir, timeout: float = 30) -> tuple[int, str, str, float]:
    """Run to the end: (exit code, stdout, stderr, seconds)."""
    start = time.monotonic()
    cli = start_cli(args, tmpdir)
    try:
        out, err = cli.communicate(timeout=timeout)
    finally:
        cli.kill()
        cli.wait()
    return cli.returncode, out, err, time.monotonic() - start


def stop(cli: subprocess.Popen) -> tuple[str, str]:
    """Collect a command line's output after it was signalled (or kill it if it hangs)."""
    try:
        return cli.communicate(timeout=15)
    finally:
        cli.kill()
        cli.wait()


def assert_clean(fakes, tmpdir) -> None:
    assert wait_until(lambda: fakes.running() == [], 2), f"left running: {fakes.running()}"
    assert wait_until(lambda: os.listdir(tmpdir) == [], 2), f"left: {os.listdir(tmpdir)}"


# ----------------------------------------------------------------------------- time limits

def test_a_hanging_cbc_is_unknown_at_the_time_limit(fakes, tmpdir_for_cli):
    cbc = fakes.script("cbc", HANG)
    code, out, err, seconds = run_cli(["solve", PAPER_17, "--via", "ilp", "--cbc-path", cbc,
                                       "--time-limit", "3"], tmpdir_for_cli)
    assert (code, err) == (3, "") and out.startswith("unknown: no answer: time limit")
    assert 3 <= seconds < 8           # the fake hangs 1000 s; CLI start-up varies with load
    assert_clean(fakes, tmpdir_for_cli)


@pytest.mark.parametrize("route", ["sat", "exact-cover"])
def test_a_wrapper_forking_its_solver_is_stopped_at_the_time_limit(fakes, tmpdir_for_cli,
                                                                   route):
    code, out, err, seconds = run_cli(["solve", PAPER_17, *solver_options(fakes, route),
                                       "--time-limit", "2"], tmpdir_for_cli)
    assert (code, err) == (3, "") and out.startswith("unknown")
    assert 2 <= seconds < 6           # the wrapper sleeps 1000 s; start-up varies with load
    assert_clean(fakes, tmpdir_for_cli)


# ----------------------------------------------------------------------------- signals

def solver_options(fakes, route: str) -> list[str]:
    """Options making ``route`` run a marked solver that hangs after forking a child."""
    wrapper = fakes.script("wrapper", FORKING_WRAPPER)
    if route == "ilp":
        return ["--via", "ilp", "--cbc-path", wrapper]
    if route == "exact-cover":
        return ["--via", "exact-cover", "--cover-cmd", f"{wrapper} m1 < {{input}}"]
    return ["--solver-cmd", wrapper]


@pytest.mark.parametrize("route", ["sat", "ilp", "exact-cover"])
@pytest.mark.parametrize("signum,code,line", [(signal.SIGINT, 130, "interrupted"),
                                              (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_a_solver_hangs_stops_everything(fakes, tmpdir_for_cli, route, signum,
                                                        code, line):
    cli = start_cli(["solve", PAPER_17, *solver_options(fakes, route)], tmpdir_for_cli)
    try:
        assert wait_until(lambda: len(fakes.sleepers()) == 2, 10)
        cli.send_signal(signum)
        out, err = stop(cli)
    finally:
        cli.kill()
    assert (cli.returncode, out, err) == (code, "", f"sudoku-bridge: {line}\n")
    assert_clean(fakes, tmpdir_for_cli)


@pytest.mark.parametrize("route", ["sat", "ilp", "exact-cover"])
def test_sigkill_of_the_command_line_takes_the_solver_along(fakes, tmpdir_for_cli, route):
    cli = start_cli(["solve", PAPER_17, *solver_options(fakes, route)], tmpdir_for_cli)
    try:
        assert wait_until(lambda: len(fakes.sleepers()) == 2, 10)
        cli.kill()
        cli.wait()
    finally:
        cli.kill()
    assert_clean(fakes, tmpdir_for_cli)      # the CNF / MPS directory included


# ----------------------------------------------------------------------------- bad solvers

CADICAL = shutil.which("cadical")


@pytest.mark.parametrize("body,message", [
    ("echo hello garbage\n", (r"wrapper-\w+\.sh exited with code 0 and gave no usable answer "
                              r"\(output of .* line 1: .*found 'hello garbage'\); last "
                              r"output: hello garbage")),
    ("echo oops >&2; exit 3\n", r"exited with code 3 and gave no usable answer .*output: oops"),
    ("kill -s SEGV $$\n", r"was killed by SIGSEGV and gave no usable answer"),
    ("exit 0\n", r"exited with code 0 and gave no usable answer .*empty solver output"),
    ("echo s SATISFIABLE; echo v 1 0; exit 20\n", r"said SAT but exited with code 20"),
])
def test_solvers_without_a_usable_answer_are_one_line_errors(fakes, tmpdir_for_cli, body,
                                                             message):
    wrapper = fakes.script("wrapper", body)
    code, out, err, _ = run_cli(["solve", PAPER_17, "--solver-cmd", wrapper], tmpdir_for_cli)
    assert code == 2 and out == ""
    assert err.startswith("sudoku-bridge: error: ") and err.count("\n") == 1, err
    assert re.search(message, err), err
    assert_clean(fakes, tmpdir_for_cli)


def test_a_flood_of_output_is_a_one_line_error(fakes, tmpdir_for_cli):
    flood = fakes.copy("yes")
    code, out, err, seconds = run_cli(["solve", PAPER_17, "--solver-cmd", flood],
                                      tmpdir_for_cli)
    assert (code, out) == (2, "")
    assert err == (f"sudoku-bridge: error: {flood.name} wrote more than 268,435,456 bytes on "
                   f"stdout; stopped\n")
    assert seconds < 15
    assert_clean(fakes, tmpdir_for_cli)


@pytest.mark.parametrize("command,message", [
    ("", "--solver-cmd is empty: give a solver name or a command line"),
    ("   ", "--solver-cmd is empty: give a solver name or a command line"),
    ("'unbalanced", "No closing quotation"),
    ("no-such-solver-xyz {input}", "SAT solver program 'no-such-solver-xyz' not found"),
])
def test_bad_solver_commands_are_one_line_errors(tmpdir_for_cli, command, message):
    code, out, err, _ = run_cli(["solve", PAPER_17, "--solver-cmd", command], tmpdir_for_cli)
    assert (code, out) == (2, "") and err.count("\n") == 1 and message in err, err
    assert os.listdir(tmpdir_for_cli) == []


@pytest.mark.skipif(CADICAL is None, reason="cadical not installed (Debian package 'cadical')")
def test_cadical_writing_a_binary_proof_into_output_is_a_one_line_error(tmpdir_for_cli):
    code, out, err, _ = run_cli(["solve", PAPER_17, "--solver-cmd",
                                 "cadical -q {input} {output}"], tmpdir_for_cli)
    assert (code, out) == (2, "")
    assert err.startswith("sudoku-bridge: error: cadical's result file: binary data")
    assert err.count("\n") == 1 and os.listdir(tmpdir_for_cli) == []


def test_a_missing_cbc_path_is_a_one_line_error(tmpdir_for_cli):
    code, out, err, _ = run_cli(["solve", PAPER_17, "--via", "ilp", "--cbc-path",
                                 "no-such-cbc-xyz"], tmpdir_for_cli)
    assert (code, out) == (2, "")
    assert err == ("sudoku-bridge: error: CBC program 'no-such-cbc-xyz' not found on PATH (or "
                   "not executable)\n")


def test_a_cbc_that_writes_no_solution_is_a_one_line_error(fakes, tmpdir_for_cli):
    cbc = fakes.script("cbc", "echo 'Unable to open file'\n")
    code, out, err, _ = run_cli(["solve", PAPER_17, "--via", "ilp", "--cbc-path", cbc],
                                tmpdir_for_cli)
    assert (code, out) == (2, "")
    assert err == (f"sudoku-bridge: error: CBC ({cbc}) exited with code 0 and wrote no "
                   f"solution file; last output: Unable to open file\n")
    assert_clean(fakes, tmpdir_for_cli)


# ----------------------------------------------------------------------------- in process

def test_ctrl_c_during_an_in_process_pysat_solve(tmp_path, tmpdir_for_cli):
    """An empty 36×36 grid keeps pysat's CaDiCaL busy for a few seconds. The interrupt is
    taken when the C call returns (pysat's own handler, which jumps out of the C code, is
    kept off: it aborted or hung about 1 run in 10)."""
    puzzle = tmp_path / "empty36.txt"
    puzzle.write_text(" ".join(["0"] * 36 * 36) + "\n")
    cli = start_cli(["solve", puzzle, "--box", "6x6"], tmpdir_for_cli)
    try:
        time.sleep(2.0)            # past reading and loading the formula: inside the solve
        cli.send_signal(signal.SIGINT)
        out, err = stop(cli)
    finally:
        cli.kill()
    assert (cli.returncode, out, err) == (130, "", "sudoku-bridge: interrupted\n")


@pytest.mark.parametrize("signum,code,line", [(signal.SIGINT, 130, "interrupted"),
                                              (signal.SIGTERM, 143, "terminated"),
                                              (signal.SIGKILL, -9, None)])
def test_signals_during_a_pool_of_sat_workers(tmp_path, tmpdir_for_cli, signum, code, line):
    """More than one chunk of puzzles goes to a process pool: the workers leave Ctrl-C and
    SIGTERM to the parent (no traceback per worker) and die with it."""
    hardest = [line for line in (INSTANCES / "forum-hardest-sample100.txt").read_text()
               .splitlines() if line and not line.startswith("#")]
    many = tmp_path / "many.txt"
    many.write_text("\n".join(hardest * 40) + "\n")
    cli = start_cli(["solve", many, "--jobs", "2", "--unique"], tmpdir_for_cli)
    try:
        workers: list[int] = []

        def pool_started() -> bool:
            workers[:] = children(cli.pid)
            return len(workers) >= 2
        assert wait_until(pool_started, 10)
        cli.send_signal(signum)
        out, err = stop(cli)
    finally:
        cli.kill()
    assert cli.returncode == code
    if line is not None:
        assert err == f"sudoku-bridge: {line}\n" and out.count("\n") <= 4000
    assert wait_until(lambda: not any(is_running(pid) for pid in workers), 2)
    # after SIGKILL the pool's directory goes with its janitor, once the workers are gone
    assert wait_until(lambda: os.listdir(tmpdir_for_cli) == [], 5), os.listdir(tmpdir_for_cli)


def children(pid: int) -> list[int]:
    """Pids of a process's children (from /proc)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]
