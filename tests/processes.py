"""Helpers for tests that start, signal and kill real processes.

Every fake program a test writes carries a unique *marker* in its command line (its file name
holds it, and the sleepers are copies of ``sleep`` named after it), so that the test can ask
/proc what is still running, and the ``marker`` fixture can kill whatever is left even when
the test fails. Zombies (exited, not yet reaped by their new parent) count as gone: they run
nothing.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def running_with(marker: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


def is_running(pid: int) -> bool:
    """Is ``pid`` a live process (not a zombie)?"""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_until(condition, timeout: float, step: float = 0.02) -> bool:
    """Poll ``condition()`` until it is true or ``timeout`` seconds pass; its last value."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return bool(condition())
        time.sleep(step)
    return True


def script(path: Path, body: str) -> Path:
    """An executable /bin/sh script at ``path``."""
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


class Fakes:
    """Fake programs in ``directory``, all marked with ``marker``."""

    def __init__(self, directory: Path, marker: str):
        self.directory = directory
        self.marker = marker
        self.sleeper = directory / f"sleep-{marker}"
        shutil.copy(shutil.which("sleep"), self.sleeper)

    def script(self, name: str, body: str) -> Path:
        """A marked shell script; ``$SLEEP`` in ``body`` is the marked sleeper."""
        return script(self.directory / f"{name}-{self.marker}.sh",
                      body.replace("$SLEEP", str(self.sleeper)))

    def copy(self, program: str) -> Path:
        """A marked copy of a system program (e.g. ``yes``)."""
        path = self.directory / f"{program}-{self.marker}"
        shutil.copy(shutil.which(program), path)
        return path

    def running(self) -> list[int]:
        return running_with(self.marker)

    def sleepers(self) -> list[int]:
        """Pids of the live marked sleepers."""
        return [pid for pid in self.running() if str(self.sleeper).encode() in _cmdline(pid)]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@pytest.fixture
def fakes(tmp_path):
    """Marked fake programs; whatever carries the marker is killed after the test."""
    marker = f"sbtest{uuid.uuid4().hex[:12]}"
    directory = tmp_path / "bin"
    directory.mkdir()
    made = Fakes(directory, marker)
    yield made
    for pid in running_with(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def child_env(tmpdir: Path) -> dict:
    """Environment for a child Python running this checkout, temporary files in ``tmpdir``."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmpdir),
            "PYTHONDONTWRITEBYTECODE": "1"}


def default_sigint() -> None:
    """preexec_fn: a test run from a background job inherits SIGINT ignored, and Python then
    ignores Ctrl-C too; the child under test must see it as a terminal would send it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
