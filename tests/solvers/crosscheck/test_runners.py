"""The cross-check runner under hostile conditions, with real processes: SIGKILL, Ctrl-C and
SIGTERM in the middle of a pooled run (workers gone, records complete, ``--resume`` ends with
the file of an uninterrupted run), torn and corrupt results files, a Dask cluster without
workers, and routes that cannot run here."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reductions.sudoku.puzzle_files import puzzle_texts
from solvers.cli import ExitCode, main
from solvers.crosscheck.records import CrosscheckError, RecordStatus
from solvers.crosscheck.report import summary_rows
from solvers.crosscheck.results_file import read_results
from solvers.crosscheck.run import run_crosscheck
from solvers.crosscheck.runners import Execution
from solvers.routes import ROUTES

from tests.conftest import INSTANCES, ROOT

ROUTE_PAIR = ["sat", "exact-cover"]
MARKER = "crosscheck-runner-test-f3c1"     # in every Dask worker's command line we start


# ----------------------------------------------------------------------------- helpers

def _puzzle_file(tmp_path: Path, count: int) -> Path:
    """The first ``count`` puzzles of royle17-sample300.txt (sat + exact-cover on 150 of
    them take about 1.5 s on 2 processes)."""
    lines = [line for line in (INSTANCES / "royle17-sample300.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    path = tmp_path / "puzzles.txt"
    path.write_text("\n".join(lines[:count]) + "\n")
    return path


def _start_time(pid: int) -> str | None:
    """The process's start time (field 22 of /proc/PID/stat), None when it is gone or a
    zombie; with the pid, it names one process even if the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None if fields[0] in ("Z", "X") else fields[19]


def _children(pid: int) -> dict[int, str]:
    """The live children of ``pid`` -> their start times."""
    found = {}
    with contextlib.suppress(FileNotFoundError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(FileNotFoundError):
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    for child in map(int, handle.read().split()):
                        start = _start_time(child)
                        if start is not None:
                            found[child] = start
    return found


def _alive(processes: dict[int, str]) -> list[int]:
    return [pid for pid, start in processes.items() if _start_time(pid) == start]


def _wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def _gone_after(processes: dict[int, str], start: float, timeout: float = 2.0) -> float:
    """Seconds from ``start`` until none of ``processes`` is alive (fails past timeout)."""
    _wait_until(lambda: not _alive(processes), timeout, f"the workers {processes} to go")
    return time.monotonic() - start


def _complete_lines(path: Path) -> int:
    if not path.exists():
        return 0
    return path.read_bytes().count(b"\n")


class CLIRun:
    """``python -m solvers.cli crosscheck ...`` as a real process in a session of its own
    (so that cleanup can kill its whole group), SIGINT at its default (an ignored SIGINT
    would be inherited and kept by Python)."""

    def __init__(self, args: list[str], tmp_path: Path):
        self.stderr_path = tmp_path / f"stderr-{time.monotonic_ns()}.txt"
        with open(self.stderr_path, "wb") as stderr:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "solvers.cli", "crosscheck", *args],
                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True,
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.workers: dict[int, str] = {}

    def wait_for_workers_and(self, results: Path, records: int) -> dict[int, str]:
        """Wait until both pool workers run and ``results`` holds ``records`` lines."""
        def ready():
            self.workers = _children(self.proc.pid) or self.workers
            finished = self.proc.poll() is not None
            return finished or len(self.workers) == 2 and _complete_lines(results) >= records
        _wait_until(ready, 20, f"2 workers and {records} records")
        assert self.proc.poll() is None, "the run finished before it could be interrupted"
        return self.workers

    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def kill_all(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for pid in _alive(self.workers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait()


@pytest.fixture
def cli_runs(tmp_path):
    """Start CLI runs; whatever happens in the test, none of them, nor their workers, is
    left running."""
    started: list[CLIRun] = []

    def start(*args: str) -> CLIRun:
        run = CLIRun(list(args), tmp_path)
        started.append(run)
        return run

    yield start
    for run in started:
        run.kill_all()
    for run in started:
        _wait_until(lambda: not _alive(run.workers), 2, "the workers to be killed")


class Hung(BaseException):
    """Raised by SIGALRM in a test that would otherwise wait forever (a BaseException, so
    that no handler of the code under test takes it for an error of its own)."""


@contextlib.contextmanager
def fails_after(seconds: float):
    def alarm(signum, frame):
        raise Hung(f"still running after {seconds} s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def comparable(records):
    """Records without their measured times."""
    return [(r.puzzle_id, r.puzzle, r.route, r.status, r.verified, r.solution, r.unique,
             r.size, r.size_kind, r.error) for r in records]


def _assert_consistent(path: Path) -> list:
    """Every line of ``path`` a record (a torn last line at most), no pair twice."""
    records = read_results(path)
    pairs = [(r.puzzle_id, r.route) for r in records]
    assert len(pairs) == len(set(pairs)), "a (puzzle, route) pair recorded twice"
    assert all(r.status == RecordStatus.SOLVED and r.verified for r in records)
    return records


# ----------------------------------------------------------------------------- kill and resume

def test_sigkill_and_torn_lines_then_resume_gives_the_uninterrupted_file(tmp_path, cli_runs):
    puzzles = _puzzle_file(tmp_path, 60)
    reference = run_crosscheck(puzzle_texts(str(puzzles)), ROUTE_PAIR,
                               execution=Execution(jobs=2))
    out = tmp_path / "out.jsonl"
    common = [str(puzzles), "--routes", ",".join(ROUTE_PAIR), "--jobs", "2", "--json",
              str(out)]
    seen = 0
    for extra in ([], ["--resume"]):
        run = cli_runs(*common, *extra)
        workers = run.wait_for_workers_and(out, seen + 20)
        start = time.monotonic()
        run.proc.send_signal(signal.SIGKILL)
        run.proc.wait()
        # PR_SET_PDEATHSIG: the workers die with their parent, even killed by SIGKILL
        assert _gone_after(workers, start) < 2.0
        kept = _assert_consistent(out)           # no torn line in the middle, no duplicate
        assert len(kept) > seen
        seen = len(kept)
        with open(out, "ab") as handle:        # a record cut off in the middle of a write
            handle.write(out.read_bytes().splitlines()[0][:70])
    run = cli_runs(*common, "--resume")
    assert run.proc.wait(timeout=30) == ExitCode.OK, run.stderr()
    final = read_results(out)
    assert len(final) == 2 * 60
    assert comparable(final) == comparable(reference)
    assert out.read_bytes().endswith(b"\n") and b'"status": "solved"' in out.read_bytes()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


@pytest.mark.parametrize("signum, to_group, code, word", [
    (signal.SIGINT, False, ExitCode.INTERRUPTED, "interrupted"),
    (signal.SIGINT, True, ExitCode.INTERRUPTED, "interrupted"),     # a terminal's Ctrl-C
    (signal.SIGTERM, False, ExitCode.TERMINATED, "terminated"),
    (signal.SIGTERM, True, ExitCode.TERMINATED, "terminated")])    # e.g. a service stopped
def test_ctrl_c_and_sigterm_stop_the_workers(tmp_path, cli_runs, signum, to_group, code, word):
    puzzles = _puzzle_file(tmp_path, 150)
    out = tmp_path / "out.jsonl"
    run = cli_runs(str(puzzles), "--routes", ",".join(ROUTE_PAIR), "--jobs", "2", "--json",
                   str(out))
    workers = run.wait_for_workers_and(out, 20)
    start = time.monotonic()
    if to_group:
        os.killpg(run.proc.pid, signum)
    else:
        run.proc.send_signal(signum)
    assert run.proc.wait(timeout=5) == code
    assert _gone_after(workers, start) < 2.0
    assert run.stderr().strip() == f"sudoku-bridge: {word}"
    records = _assert_consistent(out)
    assert 20 <= len(records) < 300 and out.read_bytes().endswith(b"\n")


def test_a_killed_worker_is_a_one_line_error_and_the_records_are_kept(tmp_path, cli_runs):
    puzzles = _puzzle_file(tmp_path, 150)
    out = tmp_path / "out.jsonl"
    run = cli_runs(str(puzzles), "--routes", ",".join(ROUTE_PAIR), "--jobs", "2", "--json",
                   str(out))
    workers = run.wait_for_workers_and(out, 20)
    os.kill(next(iter(workers)), signal.SIGKILL)
    assert run.proc.wait(timeout=5) == ExitCode.BAD_INPUT
    [line] = run.stderr().splitlines()
    assert "a worker process died" in line and "--resume" in line and str(out) in line
    assert _gone_after(workers, time.monotonic()) < 2.0
    assert len(_assert_consistent(out)) >= 20


def test_torn_last_line_is_cut_before_appending(tmp_path):
    puzzles = [(f"p{i}", text) for i, (_, text) in
               enumerate(puzzle_texts(str(_puzzle_file(tmp_path, 4))))]
    path = tmp_path / "r.jsonl"
    full = run_crosscheck(puzzles, ["sat"], results_path=path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + lines[1][:50])       # one record, then a torn one

    def stop_after_one(result):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_crosscheck(puzzles, ["sat"], results_path=path, resume=True,
                       on_result=stop_after_one)
    # the torn line was dropped, not left in the middle: two complete records
    assert len(read_results(path)) == 2 and path.read_bytes().count(b"\n") == 2
    resumed = run_crosscheck(puzzles, ["sat"], results_path=path, resume=True)
    assert comparable(resumed) == comparable(full) == comparable(read_results(path))


def test_corrupt_line_in_the_middle_is_a_one_line_error(tmp_path, capsys):
    puzzles = _puzzle_file(tmp_path, 3)
    path = tmp_path / "r.jsonl"
    assert main(["crosscheck", str(puzzles), "--routes", "sat", "--jobs", "1", "--json",
                 str(path)]) == ExitCode.OK
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + lines[1][:40] + "\n" + lines[2])
    capsys.readouterr()
    assert main(["crosscheck", str(puzzles), "--routes", "sat", "--json", str(path),
                 "--resume"]) == ExitCode.BAD_INPUT
    [error] = capsys.readouterr().err.splitlines()
    assert error.startswith(f"sudoku-bridge: error: {path} line 2: not a cross-check record")
    assert path.read_text().count("\n") == 3            # left as it was


def test_records_of_other_puzzles_are_refused_on_resume(tmp_path):
    puzzles = [(f"p{i}", text) for i, (_, text) in
               enumerate(puzzle_texts(str(_puzzle_file(tmp_path, 3))))]
    path = tmp_path / "r.jsonl"
    run_crosscheck(puzzles[:1], ["sat"], results_path=path)
    with pytest.raises(CrosscheckError, match="line 1: the record of p0 is for another"):
        run_crosscheck([("p0", puzzles[1][1])], ["sat"], results_path=path, resume=True)


# ----------------------------------------------------------------------------- routes not here

@pytest.fixture
def minisat_missing(monkeypatch):
    monkeypatch.setitem(ROUTES, "minisat", dataclasses.replace(
        ROUTES["minisat"], needs_program="no-such-solver-program-f3c1"))


def test_route_not_available_is_its_own_status_not_an_error(tmp_path, capsys, minisat_missing):
    puzzles = _puzzle_file(tmp_path, 3)
    path = tmp_path / "r.jsonl"
    assert main(["crosscheck", str(puzzles), "--routes", "sat,minisat", "--jobs", "1",
                 "--json", str(path)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "not available here: minisat (route minisat needs the " \
           "'no-such-solver-program-f3c1' program on PATH)" in out
    header, _, sat_row, minisat_row = out.splitlines()[1:5]
    assert "not available" in header and "ERROR" not in out and "MISMATCH" not in out
    assert minisat_row.split()[:8] == ["minisat", "0", "0", "0", "0", "0", "0", "3"]
    assert sat_row.split()[:8] == ["sat", "3", "0", "0", "0", "0", "0", "0"]
    statuses = [json.loads(line)["status"] for line in path.read_text().splitlines()]
    assert statuses == ["solved", "not available"] * 3          # plain words in the JSON
    # an unknown route is still an error of the run
    assert main(["crosscheck", str(puzzles), "--routes", "sat,no-such-route"]) == 2
    assert "unknown route 'no-such-route'" in capsys.readouterr().err


def test_not_available_records_run_again_on_resume(tmp_path, monkeypatch, minisat_missing):
    puzzles = [(f"p{i}", text) for i, (_, text) in
               enumerate(puzzle_texts(str(_puzzle_file(tmp_path, 2))))]
    path = tmp_path / "r.jsonl"
    first = run_crosscheck(puzzles, ["sat", "minisat"], results_path=path,
                           execution=Execution(jobs=2))
    rows = {row["route"]: row for row in summary_rows(first, ["sat", "minisat"])}
    assert rows["minisat"]["not available"] == 2 and rows["minisat"]["error"] == 0
    monkeypatch.undo()                  # the program is "installed" now
    assert ROUTES["minisat"].unavailable() is None
    resumed = run_crosscheck(puzzles, ["sat", "minisat"], results_path=path, resume=True)
    assert [r.status for r in resumed] == [RecordStatus.SOLVED] * 4
    assert len(read_results(path)) == 4


# ----------------------------------------------------------------------------- Dask

@pytest.fixture
def empty_cluster():
    """A Dask scheduler in this process, with no worker."""
    distributed = pytest.importorskip("distributed", reason="the 'distributed' extra is "
                                                            "not installed")
    cluster = distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                                       host="127.0.0.1", dashboard_address=None)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def test_dask_without_workers_is_a_one_line_error(tmp_path, capsys, empty_cluster):
    puzzles = _puzzle_file(tmp_path, 3)
    path = tmp_path / "r.jsonl"
    start = time.monotonic()
    with fails_after(20):
        code = main(["crosscheck", str(puzzles), "--routes", "sat", "--scheduler",
                     empty_cluster, "--worker-timeout", "0.5", "--json", str(path)])
    assert code == ExitCode.BAD_INPUT and time.monotonic() - start < 5
    [error] = capsys.readouterr().err.strip().splitlines()
    assert f"no Dask worker reachable through the scheduler {empty_cluster} for 0.5 s" in error
    assert "3 task(s) left" in error and "--resume" in error
    assert path.read_text() == ""


def _dask_worker(address: str, workers: list[subprocess.Popen]) -> None:
    """Start a Dask worker process (no nanny, so that killing it is final), add it to
    ``workers``, and wait until it has joined the scheduler."""
    import distributed
    workers.append(subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--no-nanny",
         "--nthreads", "1", "--no-dashboard", "--name", f"{MARKER}-{len(workers)}"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    with distributed.Client(address, timeout=10) as client:
        client.wait_for_workers(1, timeout=30)


def test_dask_workers_gone_mid_run_then_resume(tmp_path, empty_cluster):
    puzzles = [(f"p{i}", text) for i, (_, text) in
               enumerate(puzzle_texts(str(_puzzle_file(tmp_path, 20))))]
    path = tmp_path / "r.jsonl"
    workers: list[subprocess.Popen] = []
    try:
        _dask_worker(empty_cluster, workers)
        seen = []

        def kill_the_worker_after_five(result):
            seen.append(result)
            if len(seen) == 5:
                workers[0].kill()
                workers[0].wait()

        with fails_after(20), pytest.raises(CrosscheckError, match="no Dask worker reachable"):
            run_crosscheck(puzzles, ["sat"], results_path=path,
                           execution=Execution(scheduler=empty_cluster, worker_timeout=0.5),
                           on_result=kill_the_worker_after_five)
        kept = read_results(path)
        assert 5 <= len(kept) < 20
        _dask_worker(empty_cluster, workers)
        with fails_after(20):
            resumed = run_crosscheck(puzzles, ["sat"], results_path=path, resume=True,
                                     execution=Execution(scheduler=empty_cluster,
                                                         worker_timeout=20))
    finally:
        for worker in workers:
            worker.kill()
            worker.wait()
    assert comparable(resumed) == comparable(run_crosscheck(puzzles, ["sat"]))
    assert comparable(read_results(path)) == comparable(resumed)
    left = subprocess.run(["pgrep", "-f", MARKER], capture_output=True, text=True).stdout
    assert left == ""


# ----------------------------------------------------------------------------- many cycles

@pytest.mark.slow
@pytest.mark.parametrize("cycles", [20])
def test_many_kill_cycles(tmp_path, cli_runs, cycles):
    """SIGKILL at a varying point of each run, a torn line after each kill, then --resume:
    the file ends equal to an uninterrupted run's. Prints the worker exit times."""
    puzzles = _puzzle_file(tmp_path, 300)
    reference = run_crosscheck(puzzle_texts(str(puzzles)), ROUTE_PAIR,
                               execution=Execution(jobs=2))
    out = tmp_path / "out.jsonl"
    common = [str(puzzles), "--routes", ",".join(ROUTE_PAIR), "--jobs", "2", "--json",
              str(out)]
    seen, latencies, killed = 0, [], 0
    for cycle in range(cycles):
        run = cli_runs(*common, *(["--resume"] if cycle else []))
        try:
            workers = run.wait_for_workers_and(out, seen + 5 + (cycle * 7) % 23)
        except AssertionError:
            break                                     # it finished: nothing left to kill
        start = time.monotonic()
        run.proc.send_signal(signal.SIGKILL)
        run.proc.wait()
        latencies.append(_gone_after(workers, start))
        killed += 1
        seen = len(_assert_consistent(out))
        with open(out, "ab") as handle:
            handle.write(out.read_bytes().splitlines()[0][:30 + cycle])
    run = cli_runs(*common, "--resume")
    assert run.proc.wait(timeout=60) == ExitCode.OK, run.stderr()
    assert comparable(read_results(out)) == comparable(reference)
    print(f"\n{killed} kill cycles; workers gone after SIGKILL: max "
          f"{max(latencies) * 1000:.1f} ms, median "
          f"{sorted(latencies)[len(latencies) // 2] * 1000:.1f} ms")
