"""``-`` reads standard input wherever a command reads a file: through the one reading layer
(bounded, compressed by content, errors naming ``<stdin>``), with the same output as the file
itself; given twice it is refused, and an output ``-`` never reads it."""

from __future__ import annotations

import gzip
import io
import re
import shutil
import subprocess
import sys

import pytest

from reductions.reading import ReadLimit, read_lines, read_text

from tests.conftest import ROOT

INSTANCES = ROOT / "instances"
PUZZLE = INSTANCES / "haythorpe-17clue.txt"
SOLUTION = INSTANCES / "haythorpe-17clue.solution.txt"
FORMULAS = INSTANCES / "formulas"


@pytest.fixture
def stdin(monkeypatch):
    """``stdin(data)``: standard input holds ``data`` (bytes) for what runs next."""
    def give(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    return give


def same_through_stdin(run, stdin, argv: list, path, *, compress: bool = False):
    """Run ``argv`` with ``path`` (an item of it) as a file, then with ``-`` in its place and
    the file on standard input: the same exit code and stdout (file names aside); the stdin
    run's (code, out, err)."""
    file_run = run(*argv)
    data = path.read_bytes()
    stdin(gzip.compress(data, mtime=0) if compress else data)
    where = argv.index(path)
    stdin_run = run(*argv[:where], "-", *argv[where + 1:])
    assert stdin_run[0] == file_run[0], (stdin_run, file_run)
    named = file_run[1].replace(str(path), "<stdin>")
    named = re.sub(rf"^{re.escape(path.name)} *", "<stdin>", named, flags=re.M)  # a table's
    assert timeless(re.sub(r"^<stdin> *", "<stdin>", stdin_run[1], flags=re.M)) == \
        timeless(named)
    return stdin_run


def timeless(text: str) -> str:
    """``text`` with its measured times left out."""
    return re.sub(r'"seconds": [0-9.e-]+|\b[0-9]+\.[0-9]+(e-?[0-9]+)?\b', "TIME", text)


@pytest.mark.parametrize("compress", [False, True])
def test_solve_a_file_of_puzzles_from_stdin(run, stdin, compress):
    code, out, err = same_through_stdin(run, stdin, ["solve", INSTANCES / "4x4.txt", "--json"],
                                        INSTANCES / "4x4.txt", compress=compress)
    assert code == 0 and '"puzzle_id": "<stdin>:3"' in out


def test_every_file_reading_command_takes_stdin(run, stdin, tmp_path):
    emitted = {target: tmp_path / f"p.{target}" for target in ("cnf", "exact-cover", "ilp")}
    for target, path in emitted.items():
        same_through_stdin(run, stdin, ["emit", target, PUZZLE, "-o", path], PUZZLE)
    nrpath = FORMULAS / "nrpath-example-unsat.cnf"
    cases = [
        (["verify", PUZZLE, SOLUTION], PUZZLE), (["verify", PUZZLE, SOLUTION], SOLUTION),
        (["rules", INSTANCES / "4x4.txt"], INSTANCES / "4x4.txt"),
        (["crosscheck", INSTANCES / "4x4.txt", "--routes", "sat,rules"], INSTANCES / "4x4.txt"),
        (["gadget", "nishio", "--validate", FORMULAS / "nishio-sat-example.cnf"],
         FORMULAS / "nishio-sat-example.cnf"),
        (["gadget", "nrpath", nrpath, "-o", tmp_path / "G.txt"], nrpath),
    ]
    for argv, path in cases:
        same_through_stdin(run, stdin, argv, path)
    graph = tmp_path / "G.txt"
    assert same_through_stdin(run, stdin, ["nonrepetitive", graph, "--path", "--simple"],
                              graph)[0] == 1
    cells = tmp_path / "S.txt"
    run("gadget", "nishio", FORMULAS / "nishio-unsat-short-clauses.cnf", "-o", cells)
    assert same_through_stdin(run, stdin, ["nishio", cells, "--decide"], cells)[0] == 1


def test_hamiltonian_reads_a_graph_from_stdin(run, stdin, tmp_path):
    """``hamiltonian -`` (also beside files, on worker processes) reads standard input in
    this process; its line and its errors name ``<stdin>``; ``-`` twice is refused."""
    graphs = INSTANCES / "graphs"
    code, out, _ = same_through_stdin(run, stdin, ["hamiltonian", graphs / "prism.hcp"],
                                      graphs / "prism.hcp", compress=True)
    assert code == 0 and out.startswith("<stdin>: hamiltonian (6 vertices, 9 edges")
    argv = ["hamiltonian", graphs / "petersen.col", graphs / "prism.hcp", "--jobs", "2"]
    code, out, _ = same_through_stdin(run, stdin, argv, graphs / "petersen.col")
    assert code == 1 and out.splitlines()[0].startswith("<stdin>: no cycle")
    stdin(b"p edge 3 1\ne 1 x\n")
    code, out, err = run("hamiltonian", "-")
    assert code == 2 and out == "" and err.startswith("<stdin> line 2: expected 'e U V'")
    stdin(b"")
    code, _, err = run("hamiltonian", "-", "-")
    assert code == 2 and "'-' (standard input) is given 2 times" in err


def test_decode_reads_either_file_from_stdin(run, stdin, tmp_path):
    cnf = tmp_path / "p.cnf"
    assert run("emit", "cnf", PUZZLE, "-o", cnf)[0] == 0
    answer = tmp_path / "p.out"
    code, grid, _ = run("solve", PUZZLE)
    values = [int(c) for c in grid if c.isdigit()]
    # The model of the extended encoding: variable 81*r + 9*c + d true for each cell's digit.
    true = {81 * (k // 9) + 9 * (k % 9) + v for k, v in enumerate(values)}
    answer.write_text("s SATISFIABLE\nv " + " ".join(
        str(v if v in true else -v) for v in range(1, 730)) + " 0\n")
    assert run("decode", "cnf", cnf, answer)[0] == 0, "the model is not the encoding's"
    same_through_stdin(run, stdin, ["decode", "cnf", cnf, answer], answer)
    same_through_stdin(run, stdin, ["decode", "cnf", cnf, answer], cnf, compress=True)


def test_an_error_names_stdin_and_the_line(run, stdin, tmp_path):
    stdin(b"# a comment\n....1.4...3.4..2\n....1.4...3.4..x\n")
    code, out, err = run("solve", "-")
    assert code == 2 and out.splitlines()[-1] == "error"
    assert "sudoku-bridge: error: <stdin>:3: " in err
    stdin(b"\xff\xfe")
    code, _, err = run("solve", "-")
    assert code == 2 and err.startswith("sudoku-bridge: error: <stdin>: not a text file")


def test_stdin_is_bounded_like_a_file(run, stdin):
    stdin(b"....1.4...3.4..2\n" * 100_000)
    code, out, err = run("solve", "-", "--max-memory", "1M")
    assert code == 2 and out == ""
    assert err.startswith("sudoku-bridge: error: <stdin>: more than ") and "--max-memory" in err
    assert err.count("\n") == 1


def test_an_endless_stdin_is_cut_at_its_limit():
    """A real pipe from a producer that never stops: the read stops at the limit."""
    producer = subprocess.Popen(["yes", "....1.4...3.4..2"], stdout=subprocess.PIPE)
    try:
        done = subprocess.run([sys.executable, "-m", "solvers.cli", "solve", "-",
                               "--max-memory", "4M"], stdin=producer.stdout,
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
    finally:
        producer.kill()
        producer.wait()
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("sudoku-bridge: error: <stdin>: more than ")


def test_a_real_pipe_and_a_closed_stdin():
    command = [sys.executable, "-m", "solvers.cli", "solve", "-"]
    piped = subprocess.run(command, input=PUZZLE.read_text(), capture_output=True, text=True,
                           cwd=ROOT, timeout=120)
    assert piped.returncode == 0 and piped.stdout.startswith(" 6 9 3 | 7 8 4 | 5 1 2\n")
    closed = subprocess.run(command, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert closed.returncode == 2 and closed.stderr == \
        "sudoku-bridge: error: <stdin>: no puzzle found\n"
    if shutil.which("sh"):
        shut = subprocess.run(["sh", "-c", '"$@" <&-', "sh", *command], capture_output=True,
                              text=True, cwd=ROOT, timeout=120)
        assert shut.returncode == 2 and shut.stderr == \
            "sudoku-bridge: error: <stdin>: cannot read (standard input is closed)\n"


@pytest.mark.parametrize("argv", [["verify", "-", "-"],
                                  ["gadget", "nishio", "--validate", "-", "-"]])
def test_stdin_twice_is_refused(run, stdin, argv):
    stdin(PUZZLE.read_bytes())
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.startswith("sudoku-bridge: error: '-' (standard input) is given 2 times")


def test_decode_hcp_needs_the_graph_file(run, stdin):
    stdin(b"")
    code, _, err = run("decode", "hcp", "-", "tour.txt")
    assert code == 2 and "decoding needs the graph's own file" in err


def test_a_file_named_dash_is_read_as_dot_slash(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("....1.4...3.4..2\n")
    assert run("solve", "./-")[0] == 0


def test_an_output_dash_never_reads_stdin(run, stdin, tmp_path):
    """``--json -`` is an output: refused as one (it cannot be stdout), never resumed from
    standard input; ``emit -o -`` writes to stdout."""
    stdin(b"{}\n")
    code, out, err = run("crosscheck", INSTANCES / "4x4.txt", "--json", "-", "--resume")
    assert code == 2 and out == "" and "cannot go to stdout" in err
    code, out, _ = run("emit", "cnf", PUZZLE, "-o", "-")
    assert code == 0 and out.startswith("c ")


def test_the_layer_reads_stdin_again_from_its_start(stdin):
    """A reader may open ``-`` twice (as it may a file): the second read replays the first."""
    stdin(gzip.compress(b"one\ntwo\n"))
    limit = ReadLimit(1 << 20, "test")
    assert [line for _, line in read_lines("-", limit)] == ["one", "two"]
    assert read_text("-", limit) == "one\ntwo\n"
