"""The cross-check on a Dask cluster deployed as a user deploys one: a ``dask scheduler``
process and ``dask worker`` processes (each with its nanny), started as separate commands.
A worker killed mid-run costs no record; the scheduler killed mid-run is a one-line error,
the records so far kept, and ``--resume`` on a fresh cluster ends with the records of a local
run (the measured times apart)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from reductions.sudoku.puzzle_files import puzzle_texts
from solvers.cli import ExitCode
from solvers.crosscheck.results_file import read_results
from solvers.crosscheck.run import run_crosscheck
from solvers.crosscheck.runners import Execution

from tests.conftest import ROOT
from tests.solvers.crosscheck.test_runners import _complete_lines, _puzzle_file, _wait_until

pytest.importorskip("distributed", reason="the 'distributed' extra is not installed")

ROUTES = ["sat", "exact-cover"]
PUZZLES = 150
"""300 pairs: 34 chunks of 9 on a 2-thread cluster, several seconds of work on a 2-core
machine — the run is still going when the first record is in the file."""


def _untimed(records):
    return [dataclasses.replace(r, seconds=0.0) for r in records]


class Cluster:
    """``dask scheduler`` and ``dask worker`` processes, each in a process group of its own
    (a worker's group holds its nanny and the worker process the nanny starts), so that a
    test can kill one of them whole, and :meth:`kill_all` every one."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.groups: list[subprocess.Popen] = []
        self.file: Path | None = None

    def _start(self, *args: str) -> subprocess.Popen:
        log = open(self.tmp_path / f"dask-{len(self.groups)}.log", "wb")
        with log:
            proc = subprocess.Popen([sys.executable, "-m", "dask", *args], cwd=ROOT,
                                    env={**os.environ, "PYTHONPATH": str(ROOT)},
                                    stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        self.groups.append(proc)
        return proc

    def scheduler(self) -> tuple[subprocess.Popen, str]:
        """A new scheduler on a free port (its address read from the scheduler file, so
        that no port is guessed) and its address."""
        self.file = self.tmp_path / f"scheduler-{len(self.groups)}.json"
        proc = self._start("scheduler", "--scheduler-file", str(self.file), "--host",
                           "127.0.0.1", "--port", "0", "--no-dashboard")
        return proc, _wait_until(self._address, 30, "the scheduler file")

    def _address(self) -> str | None:
        try:
            return json.loads(self.file.read_text())["address"]
        except (FileNotFoundError, ValueError, KeyError):     # not yet, or half written
            return None

    def workers(self, count: int, address: str) -> list[subprocess.Popen]:
        """``count`` plain ``dask worker`` processes of one thread, joined."""
        import distributed
        procs = [self._start("worker", "--scheduler-file", str(self.file), "--nthreads", "1",
                             "--no-dashboard") for _ in range(count)]
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(count, timeout=60)
        return procs

    @staticmethod
    def kill(proc: subprocess.Popen) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def kill_all(self) -> None:
        for proc in self.groups:
            self.kill(proc)
        for proc in self.groups:        # the nannies' workers too (same group)
            _wait_until(lambda: subprocess.run(["pgrep", "-g", str(proc.pid)],
                                               capture_output=True).returncode == 1,
                        10, f"process group {proc.pid} to be gone")


@pytest.fixture
def cluster(tmp_path):
    started = Cluster(tmp_path)
    try:
        yield started
    finally:
        started.kill_all()


@pytest.fixture
def puzzles(tmp_path):
    path = _puzzle_file(tmp_path, PUZZLES)
    return path, puzzle_texts(str(path))


def test_a_worker_killed_mid_run_loses_no_record(tmp_path, cluster, puzzles):
    _, texts = puzzles
    _, address = cluster.scheduler()
    doomed, _ = cluster.workers(2, address)
    path = tmp_path / "r.jsonl"
    seen = []

    def kill_a_worker_at_the_first_record(result):
        seen.append(result)
        if len(seen) == 1:
            cluster.kill(doomed)

    results = run_crosscheck(texts, ROUTES, results_path=path,
                             execution=Execution(scheduler=address, worker_timeout=30),
                             on_result=kill_a_worker_at_the_first_record)
    assert doomed.returncode == -signal.SIGKILL and len(seen) == len(texts) * len(ROUTES)
    local = run_crosscheck(texts, ROUTES, execution=Execution(jobs=1))
    assert _untimed(results) == _untimed(local)
    assert _untimed(read_results(path)) == _untimed(local)


def test_scheduler_killed_mid_run_then_resume(tmp_path, cluster, puzzles):
    file, texts = puzzles
    scheduler, address = cluster.scheduler()
    cluster.workers(2, address)
    path = tmp_path / "r.jsonl"
    args = [sys.executable, "-m", "solvers.cli", "crosscheck", str(file), "--routes",
            ",".join(ROUTES), "--json", str(path)]
    run = subprocess.Popen([*args, "--scheduler", address], cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)},
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    try:
        _wait_until(lambda: _complete_lines(path) >= 1 or run.poll() is not None, 60,
                    "the first record")
        cluster.kill(scheduler)
        _, stderr = run.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert run.returncode == ExitCode.BAD_INPUT, stderr
    assert stderr.count("\n") == 1, stderr
    error = stderr.strip()
    assert f"lost the connection to the Dask scheduler {address}" in error
    kept = read_results(path)
    assert 1 <= len(kept) < len(texts) * len(ROUTES)
    assert f"the {len(kept)} record(s) so far are in {path}" in error

    _, fresh = cluster.scheduler()
    cluster.workers(1, fresh)
    resumed = subprocess.run([*args, "--scheduler", fresh, "--resume"], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)},
                             capture_output=True, text=True, timeout=120)
    assert resumed.returncode == ExitCode.OK, resumed.stderr
    local = run_crosscheck(texts, ROUTES, execution=Execution(jobs=1))
    assert _untimed(read_results(path)) == _untimed(local)
