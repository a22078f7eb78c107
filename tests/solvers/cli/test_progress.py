"""Progress of the long commands, on stderr only: a tqdm bar with rate and time left on a
terminal; nothing when stderr is not one, unless ``--progress`` asks for plain lines (in
tqdm's words); stdout the same whatever is shown."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest

from solvers.cli import common

from tests.conftest import ROOT

INSTANCES = ROOT / "instances"
FORMULAS = INSTANCES / "formulas"


def on_a_terminal(argv: list[str], stdout) -> tuple[int, bytes]:
    """Run the command line with stderr a terminal (100 columns) and stdout the file
    ``stdout``: (exit code, what the terminal showed)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with subprocess.Popen([sys.executable, "-m", "solvers.cli", *argv], cwd=ROOT,
                          stdout=stdout, stderr=follower) as child:
        os.close(follower)
        shown = b""
        while True:
            try:
                block = os.read(leader, 1 << 16)
            except OSError:                     # the terminal's other end closed
                break
            if not block:
                break
            shown += block
        code = child.wait(timeout=300)
    os.close(leader)
    return code, shown


def test_a_terminal_shows_a_bar_with_rate_and_time_left(tmp_path):
    argv = ["rules", str(INSTANCES / "royle17-sample300.txt"), "--jobs", "1"]
    with open(tmp_path / "out", "wb") as stdout:
        code, shown = on_a_terminal(argv, stdout)
    out = (tmp_path / "out").read_bytes()
    text = shown.decode()
    bars = re.findall(r"\rrules: +\d+%\|[^|]*\| *(\d+)/300 \[[0-9:]+<[0-9:?]+, +[0-9.?]+ "
                      r"puzzle/s\]", text)
    assert bars and bars[-1] == "300", text[:400]
    plain = subprocess.run([sys.executable, "-m", "solvers.cli", *argv], cwd=ROOT,
                           capture_output=True, timeout=300)
    assert (code, out) == (plain.returncode, plain.stdout)         # never on stdout
    assert b"puzzle/s" not in plain.stderr and b"\r" not in plain.stderr


def timeless(text: str) -> str:
    """``text`` with its measured times left out."""
    return re.sub(r" *\b[0-9]+\.[0-9]+(e-?[0-9]+)?\b", " TIME", text)


@pytest.fixture
def every_step(monkeypatch):
    """--progress prints a line at every step (not every 10 s)."""
    monkeypatch.setattr(common, "PLAIN_EVERY", 0.0)


@pytest.mark.parametrize("argv, label, total, unit", [
    (["solve", INSTANCES / "4x4.txt"], "solve --via sat", 4, "puzzle"),
    (["solve", INSTANCES / "4x4.txt", "--via", "rules"], "solve --via rules", 4, "puzzle"),
    (["rules", INSTANCES / "4x4.txt", "--jobs", "1"], "rules", 4, "puzzle"),
    (["crosscheck", INSTANCES / "4x4.txt", "--routes", "sat,rules", "--jobs", "1"],
     "crosscheck", 8, "run"),
    (["generate", "--count", "3", "--seed", "1", "--size", "4"], "generate", 3, "puzzle"),
    (["gadget", "nishio", "--validate", FORMULAS / "nishio-sat-example.cnf",
      FORMULAS / "nishio-unsat-unit-chain.cnf"], "validate", 2, "formula"),
    (["gadget", "nrpath", "--validate", FORMULAS / "nrpath-example-sat.cnf",
      FORMULAS / "nrpath-example-unsat.cnf"], "validate", 2, "formula"),
])
def test_progress_gives_plain_lines_where_stderr_is_no_terminal(run, every_step, argv, label,
                                                                 total, unit):
    code, quiet_out, quiet_err = run(*argv)
    assert f"{label}: " not in quiet_err                # off by default
    again, out, err = run(*argv, "--progress")
    assert again == code and timeless(out) == timeless(quiet_out)
    lines = [line for line in err.splitlines() if line.startswith(f"{label}: ")]
    assert lines, err
    for line in lines:
        assert re.fullmatch(rf"{re.escape(label)}: \d+/{total} \(\d+%\) in [0-9:]+, "
                            rf"[0-9.?]+ {unit}/s, [0-9:?]+ left", line), line
    assert lines[-1].startswith(f"{label}: {total}/{total} (100%) in ")


def test_plain_lines_come_at_most_every_interval(run):
    assert common.PLAIN_EVERY == 10.0
    code, _, err = run("rules", INSTANCES / "4x4.txt", "--jobs", "1", "--progress")
    assert code == 0
    assert [line for line in err.splitlines() if line.startswith("rules: ")] == \
        [line for line in err.splitlines() if line.startswith("rules: 4/4")]
