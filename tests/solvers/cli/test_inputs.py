"""What the command line takes as input (issue 32), each test failing on 3788535:

* a PUZZLE argument is the path of a regular file or the puzzle itself: a directory or a
  device (``/dev/null``) is refused, naming what it is — it was read as the text of its
  name ("4 cells gives a 2x2 grid"); a name that is neither a file nor a puzzle is "no such
  file, and not a puzzle either" — a mistyped file name was reported as a grid of the wrong
  size ("6 cells is not a square number");
* every reader refuses what is not a regular file before opening it (a FIFO would have been
  waited on for ever);
* a UTF-8 byte-order mark at the start of a file is dropped by every reader (the reading
  layer, :func:`reductions.reading.open_text`): a puzzle file saved with one failed as a
  whole ("17 cells is not a square number"), a CNF with "clause before the 'p cnf' header".
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from solvers.cli import ExitCode, main

from tests.conftest import INSTANCES, ROOT
from tests.fuzz_inputs import READERS, run_main, seed_files, write_case
from tests.reductions.sudoku.test_grid import PAPER_17

BOM = b"\xef\xbb\xbf"
FOUR = "....1.4...3.4..2"


def run(*argv) -> tuple[int, str, str]:
    return run_main(main, [str(a) for a in argv])


def assert_one_line(code: int, out: str, err: str, *parts: str) -> None:
    assert code == ExitCode.BAD_INPUT and out == "", err
    assert err.startswith("sudoku-bridge: error: ") and err.count("\n") == 1, err
    for part in parts:
        assert part in err, err


# Every command that takes a PUZZLE (text or a file), with the argument in {}.
PUZZLE_COMMANDS = {
    "solve": ["solve", "{}"],
    "solve --json": ["solve", "{}", "--json"],
    "rules": ["rules", "{}"],
    "emit cnf": ["emit", "cnf", "{}", "-o", "-"],
    "emit exact-cover": ["emit", "exact-cover", "{}", "-o", "-"],
    "verify PUZZLE": ["verify", "{}", PAPER_17],
    "verify GRID": ["verify", PAPER_17, "{}"],
    "crosscheck": ["crosscheck", "{}", "--routes", "sat", "--jobs", "1"],
}


def puzzle_argv(command: str, argument) -> list[str]:
    return [str(argument) if a == "{}" else a for a in PUZZLE_COMMANDS[command]]


@pytest.mark.parametrize("command", PUZZLE_COMMANDS)
def test_a_directory_or_a_device_is_no_puzzle(tmp_path, command):
    for path, kind in ((tmp_path, "is a directory"), ("/dev/null", "is a character device")):
        assert_one_line(*run(*puzzle_argv(command, path)),
                        f"{path}: {kind}, not a regular file")


@pytest.mark.parametrize("command", PUZZLE_COMMANDS)
def test_a_mistyped_file_name_is_no_such_file(tmp_path, command):
    os.chdir(tmp_path)
    assert_one_line(*run(*puzzle_argv(command, "puzles")),
                    "puzles: no such file, and not a puzzle either (6 cells ")
    assert_one_line(*run(*puzzle_argv(command, "puzzles.txt")), "puzzles.txt: no such file")
    assert_one_line(*run(*puzzle_argv(command, "p.txt/")), "p.txt/: no such file")


def test_a_puzzle_as_text_still_works(tmp_path):
    os.chdir(tmp_path)
    assert run("solve", FOUR)[0] == ExitCode.OK
    sixteen = (INSTANCES / "16x16.txt").read_text().splitlines()
    sixteen = next(line for line in sixteen if line and not line.startswith("#"))
    assert len(sixteen) > 255                       # too long to be a file name
    assert run("solve", sixteen)[0] == ExitCode.OK
    code, _, err = run("solve", "12" + FOUR[2:])    # a puzzle: its own error, no "file"
    assert code == ExitCode.BAD_INPUT and "contradictory clues" in err and "file" not in err


def test_a_fifo_is_refused_by_every_reader(tmp_path):
    """A FIFO was opened and waited on (``decode cnf p.cnf FIFO`` never ended)."""
    seeds = seed_files(tmp_path)
    (tmp_path / "answer").write_bytes(seeds["cnf answer"])
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for argv in (["decode", "cnf", tmp_path / "p.cnf", fifo],
                 ["decode", "cnf", fifo, tmp_path / "answer"],
                 ["solve", fifo], ["nonrepetitive", fifo, "--cyclic-edges"], ["nishio", fifo],
                 ["gadget", "nishio", fifo, "-o", tmp_path / "out.txt"]):
        done = subprocess.run([sys.executable, "-m", "solvers.cli", *map(str, argv)],
                              capture_output=True, text=True, env=env, timeout=60)
        assert_one_line(done.returncode, done.stdout, done.stderr,
                        f"{fifo}: is a FIFO (named pipe), not a regular file")


@pytest.mark.parametrize("reader", [name for name in READERS if name != "decode hcp: graph"])
def test_a_byte_order_mark_is_dropped_by_every_reader(tmp_path, reader):
    """(The graph of ``decode hcp`` is left out: its sidecar holds the digest of its bytes,
    so a mark added to it is a change that the sidecar rightly refuses.)"""
    seeds = seed_files(tmp_path)
    case = READERS[reader]
    work = tmp_path / "case"
    work.mkdir()
    argv = write_case(work, case, seeds, BOM + seeds[case.files[case.mutated]])
    code, out, err = run(*argv)
    assert code == ExitCode.OK, err


def test_a_file_of_puzzles_with_a_byte_order_mark(tmp_path):
    lines = [line for line in (INSTANCES / "royle17-sample300.txt").read_text().splitlines()
             if line and not line.startswith("#")][:4]
    path = tmp_path / "p.txt"
    path.write_bytes(BOM + "\r\n".join(lines).encode() + b"\r\n")      # as Notepad saves
    code, out, err = run("solve", path)
    assert code == ExitCode.OK, err
    assert len(out.splitlines()) == 4
