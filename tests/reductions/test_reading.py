"""Bounded reading (issue 22): no input can exhaust memory, every resumed record is re-checked.

One test per item of the issue, each failing on 1367bfd:

1. every decompression bomb and huge input (``tests/bombs.py``) is refused with exit 2, one
   line naming the file and the limit, in seconds, under a 3 GiB address-space limit;
2. corrupt gzip, xz and bzip2 data is a one-line error (exit 2) in every command;
3. ``crosscheck --resume`` re-checks the records it reads back: a grid with two cells
   swapped, a solution that is no grid, "no solution" for a solvable puzzle — each a
   mismatch (exit 4) naming the file and line;
4. one huge CNF token is refused at once (no quadratic re-joining);
5. an output path through ``/proc`` (as written, or where a link leads), an output that is
   the command's input, a control character in a path;
6. a SIGKILL between the renames of a graph and its sidecar leaves the old graph beside the
   new sidecar, which ``decode hcp`` refuses in one line saying so.

And the reading layer itself (:mod:`reductions.reading`): limits, lines, per-line costs.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reductions.errors import UserError
from solvers.cli import ExitCode, main

from reductions.sudoku.grid import format_grid

from tests.bombs import BOMBS, GIB, PAPER_17, PUZZLE_4, build, expanding
from tests.conftest import INSTANCES
from tests.fuzz_inputs import run_main
from tests.processes import child_env

ADDRESS_SPACE = 3 * GIB


def run(*argv) -> tuple[int, str, str]:
    return run_main(main, [*argv])


def one_line_error(err: str) -> bool:
    return (err.startswith("sudoku-bridge: error:") and err.count("\n") == 1
            and "Traceback" not in err)


def run_capped(argv: list[str], tmp_path: Path, timeout: float = 60) -> tuple[int, str, str,
                                                                              float]:
    """The command line in a child under a 3 GiB address-space limit: (exit code, stdout,
    stderr, seconds)."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    start = time.monotonic()
    done = subprocess.run(["prlimit", f"--as={ADDRESS_SPACE}", sys.executable, "-m",
                           "solvers.cli", *argv], capture_output=True, text=True,
                          env=child_env(tmpdir), timeout=timeout, cwd=tmp_path)
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


# ----------------------------------------------------------------------------- 1. bombs

@pytest.mark.parametrize("name", list(BOMBS))
def test_every_bomb_is_refused_in_seconds_under_3_gib(tmp_path, name, fakes):
    """Each bomb of the issue: exit 2, one line naming what was refused and the limit, in a
    few seconds, never near the 3 GiB the child may map (on 1367bfd: exit 70 after 3 GB,
    or 150 s and more)."""
    argv = build(BOMBS[name], tmp_path, fakes.script)
    code, out, err, seconds = run_capped(argv, tmp_path)
    assert code == ExitCode.BAD_INPUT, err
    assert one_line_error(err) and out == "", err
    assert "more than" in err or "longer than" in err, err
    assert seconds < 20, f"{seconds:.1f} s"


def test_a_bomb_read_in_process_stays_small(tmp_path):
    """The reading layer stops at the limit: a 1 GiB gzip bomb read here costs about the
    limit, not the GiB (the peak RSS of this process grows by less than 64 MiB)."""
    from reductions.reading import InputTooLarge, ReadLimit, read_lines, read_text
    bomb = tmp_path / "z.gz"
    bomb.write_bytes(expanding("gz", b"1\n", GIB))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    limit = ReadLimit(8 << 20, "more than this test allows")
    with pytest.raises(InputTooLarge, match=r"z\.gz: more than 8 MiB once decompressed — "
                                            r"more than this test allows"):
        read_text(bomb, limit)
    with pytest.raises(InputTooLarge):
        for _ in read_lines(bomb, limit):
            pass
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 << 10


# ----------------------------------------------------------------------------- 2. corrupt

CORRUPT = {
    "gzip, the issue's 11 bytes": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x07",
    "gzip, a bad block": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\xff" * 20,
    "gzip, truncated": gzip.compress(b"1" * 10_000)[:20],
    "xz, a bad block": b"\xfd7zXZ\x00" + b"\x00" * 40,
    "xz, truncated": lzma.compress(b"1" * 10_000)[:40],
    "bzip2, a bad block": b"BZh91AY&SY" + b"\xff" * 40,
    "bzip2, truncated": bz2.compress(b"1" * 10_000)[:30],
}


def _commands(tmp_path: Path, bad: Path) -> dict[str, list[str]]:
    cnf, graph, tour = tmp_path / "p.cnf", tmp_path / "g.hcp", tmp_path / "tour"
    run("emit", "cnf", PAPER_17, "-o", cnf)
    run("emit", "hcp", PAPER_17, "-o", graph)
    tour.write_text("1\n")
    return {"solve": ["solve", bad], "nishio": ["nishio", bad],
            "decode cnf (answer)": ["decode", "cnf", cnf, bad],
            "decode cnf (formula)": ["decode", "cnf", bad, tour],
            "decode hcp (tour)": ["decode", "hcp", graph, bad],
            "gadget nishio": ["gadget", "nishio", bad, "-o", tmp_path / "s.txt"],
            "nonrepetitive": ["nonrepetitive", bad, "--cyclic-edges"],
            "verify": ["verify", PAPER_17, bad]}


@pytest.mark.parametrize("kind", list(CORRUPT))
def test_corrupt_compressed_data_is_one_line_in_every_command(tmp_path, kind):
    bad = tmp_path / "bad"
    bad.write_bytes(CORRUPT[kind])
    for command, argv in _commands(tmp_path, bad).items():
        code, out, err = run(*argv)
        assert code == ExitCode.BAD_INPUT and one_line_error(err), (command, err)
        assert str(bad) in err and out == "", (command, err)


# ----------------------------------------------------------------------------- 3. resume

def _crosscheck(tmp_path: Path, *extra) -> tuple[int, str, str]:
    return run("crosscheck", tmp_path / "p.txt", "--routes", "sat,exact-cover", "--json",
               tmp_path / "out.jsonl", *extra)


def _records(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]


def _rewrite(tmp_path: Path, records: list[dict]) -> None:
    (tmp_path / "out.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture
def finished_run(tmp_path) -> Path:
    """A complete cross-check of two 4×4 puzzles on two routes: four verified records."""
    lines = [line for line in (INSTANCES / "4x4.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")][:2]
    (tmp_path / "p.txt").write_text("\n".join(lines) + "\n")
    code, _, err = _crosscheck(tmp_path)
    assert code == ExitCode.OK, err
    assert [r["verified"] for r in _records(tmp_path)] == [True] * 4
    return tmp_path


def _swap_two_cells(grid: str) -> str:
    cells = list(grid)
    j = next(j for j in range(1, len(cells)) if cells[j] != cells[0])
    cells[0], cells[j] = cells[j], cells[0]
    return "".join(cells)


@pytest.mark.parametrize("tamper, words", [
    (lambda r: r.update(solution=_swap_two_cells(r["solution"])),
     "its grid does not solve the puzzle"),
    (lambda r: r.update(solution="hello"), "its grid does not read"),
    (lambda r: r.update(verified=False, error="x"),
     "the record says its grid was not verified"),
])
def test_resume_rechecks_every_solved_record(finished_run, tamper, words):
    records = _records(finished_run)
    tamper(records[2])                       # the second puzzle's sat record: line 3
    _rewrite(finished_run, records)
    code, out, err = _crosscheck(finished_run, "--resume")
    assert code == ExitCode.MISMATCH, out
    assert f"out.jsonl line 3: {words}" in out and "no mismatches" not in out
    sat = next(line for line in out.splitlines() if line.startswith("sat "))
    assert sat.split()[1:3] == ["1", "0"], sat          # 1 solved, 0 no solution; not 2


def test_resume_runs_no_solution_claims_again(finished_run):
    """Both routes' records say "no solution" for a solvable puzzle: nothing in a record can
    prove that, so both pairs run again, and the contradiction is a mismatch."""
    records = _records(finished_run)
    for record in records[:2]:
        record.update(status="no solution", verified=None, solution=None, unique=None)
    _rewrite(finished_run, records)
    code, out, _ = _crosscheck(finished_run, "--resume")
    assert code == ExitCode.MISMATCH
    assert "out.jsonl line 1: the record said no solution, but run again the route solved" \
           in out and "out.jsonl line 2:" in out
    assert [r["status"] for r in _records(finished_run)] == ["solved"] * 4
    assert _crosscheck(finished_run, "--resume")[0] == ExitCode.OK     # the file is right now


def test_a_record_of_the_wrong_shape_is_refused(finished_run):
    records = _records(finished_run)
    records[1]["verified"] = "yes"
    _rewrite(finished_run, records)
    code, _, err = _crosscheck(finished_run, "--resume")
    assert code == ExitCode.BAD_INPUT and "out.jsonl line 2: not a cross-check record" in err


# ----------------------------------------------------------------------------- 4. one token

def test_one_huge_cnf_token_is_refused_at_once(tmp_path):
    """On 1367bfd a 32 MiB token took 18.7 s (the cut token joined to every piece)."""
    formula = tmp_path / "f.cnf"
    formula.write_bytes(b"p cnf 3 1\n" + b"1" * (32 << 20) + b" 0\n")
    start = time.monotonic()
    code, _, err = run("gadget", "nishio", formula, "-o", tmp_path / "s.txt")
    assert code == ExitCode.BAD_INPUT and one_line_error(err)
    assert "line 2: '1111" in err and "longer than any literal" in err
    assert time.monotonic() - start < 2


# ----------------------------------------------------------------------------- 5. outputs

def test_proc_paths_are_refused_however_they_are_reached(tmp_path):
    """/proc/self/fd/1 and /dev/stdout lead to whatever stdout is — here a file, which the
    write would have replaced on 1367bfd (exit 0)."""
    link = tmp_path / "link"
    link.symlink_to("/proc/self/fd/1")
    for target in ("/proc/self/fd/1", "/dev/stdout", str(link)):
        stdout = tmp_path / "f"
        stdout.write_text("keep me\n")
        with open(stdout, "a") as sink:
            done = subprocess.run([sys.executable, "-m", "solvers.cli", "emit", "cnf",
                                   PAPER_17, "-o", target], stdout=sink,
                                  stderr=subprocess.PIPE, text=True,
                                  env=child_env(tmp_path))
        assert done.returncode == ExitCode.BAD_INPUT, (target, done.stderr)
        assert "is under /proc" in done.stderr and done.stderr.count("\n") == 1
        assert stdout.read_text() == "keep me\n"


def test_an_output_that_is_an_input_is_refused(tmp_path):
    puzzle = tmp_path / "same.txt"
    puzzle.write_text(PAPER_17 + "\n")
    formula = tmp_path / "f.cnf"
    formula.write_text("p cnf 3 2\n1 -2 3 0\n-1 2 0\n")
    (tmp_path / "hard").hardlink_to(puzzle)
    sidecar_named = tmp_path / "g.hcp.json"
    sidecar_named.write_text(PAPER_17 + "\n")
    cases = [(["emit", "cnf", puzzle, "-o", puzzle], puzzle),
             (["emit", "exact-cover", puzzle, "-o", tmp_path / "hard"], puzzle),
             (["emit", "ilp", puzzle, "-o", puzzle], puzzle),
             (["gadget", "nishio", formula, "-o", formula], formula),
             (["gadget", "nrpath", formula, "-o", tmp_path / "g.txt", "--dot", formula],
              formula),
             (["emit", "hcp", sidecar_named, "-o", tmp_path / "g.hcp"], sidecar_named)]
    for argv, source in cases:
        before = source.read_bytes()
        code, out, err = run(*argv)
        assert code == ExitCode.BAD_INPUT and one_line_error(err), (argv, err)
        assert "is the input" in err and source.read_bytes() == before, argv
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.cnf", "g.hcp.json", "hard",
                                                          "same.txt"]


def test_control_characters_in_a_path_stay_on_one_line(tmp_path):
    target = tmp_path / "no such dir\nsecond line" / "out.cnf"
    code, _, err = run("emit", "cnf", PAPER_17, "-o", target)
    assert code == ExitCode.BAD_INPUT and one_line_error(err), err
    assert "no such dir\\nsecond line" in err
    code, _, err = run("solve", tmp_path / "missing\tfile\r.txt")
    assert code == ExitCode.BAD_INPUT and one_line_error(err) and "\\t" in err, err


# ----------------------------------------------------------------------------- 6. the pair

_KILL_BETWEEN_RENAMES = """
import os, signal, sys
real = os.replace
def replace_then_die(source, target):
    real(source, target)
    os.kill(os.getpid(), signal.SIGKILL)          # after the first rename of the pair
os.replace = replace_then_die
from solvers.cli import main
main(sys.argv[1:])
"""


def test_a_kill_between_the_renames_leaves_the_old_graph_refused(tmp_path):
    """The sidecar goes into place first: killed after that rename, the new sidecar stands
    beside the old graph, and ``decode hcp`` refuses the pair by the graph's digest, in one
    line that says what happened (on 1367bfd the new graph stood beside the old sidecar)."""
    graph, sidecar = tmp_path / "g.hcp", tmp_path / "g.hcp.json"
    puzzle = format_grid(PUZZLE_4)
    assert run("emit", "hcp", puzzle, "-o", graph, "--prune", "peers")[0] == ExitCode.OK
    old_graph, old_sidecar = graph.read_bytes(), sidecar.read_bytes()
    other = format_grid(PUZZLE_4.with_value(1, 0, 0))          # one clue fewer
    done = subprocess.run([sys.executable, "-c", _KILL_BETWEEN_RENAMES, "emit", "hcp",
                           other, "-o", str(graph), "--prune", "peers"],
                          env=child_env(tmp_path), capture_output=True, timeout=60)
    assert done.returncode == -9
    assert graph.read_bytes() == old_graph and sidecar.read_bytes() != old_sidecar
    tour = tmp_path / "tour"
    tour.write_text("1\n")
    code, out, err = run("decode", "hcp", graph, tour)
    assert code == ExitCode.BAD_INPUT and one_line_error(err) and out == ""
    assert "g.hcp does not match its sidecar g.hcp.json" in err
    assert "killed between putting the new sidecar and the new graph in place" in err


# ----------------------------------------------------------------------------- the layer

def test_read_lines_refuses_the_first_long_line_and_charges_each_line(tmp_path):
    from reductions.reading import InputTooLarge, ReadLimit, read_lines
    path = tmp_path / "f.txt"
    path.write_text("ab\ncdef\n" + "x" * 5000 + "\nlast")
    limit = ReadLimit(1 << 20, "too much").lines(4, "longer than a test line")
    seen = []
    with pytest.raises(InputTooLarge, match=r"f\.txt line 3: longer than 4 characters — "
                                            r"longer than a test line"):
        for number, line in read_lines(path, limit):
            seen.append((number, line))
    assert seen == [(1, "ab"), (2, "cdef")]
    costly = ReadLimit(100, "more than a hundred", per_line=40)
    with pytest.raises(InputTooLarge, match=r"counting 40 bytes a line"):
        list(read_lines(tmp_path / "f.txt", costly))
    # ends=True keeps each line end as the file has it (so that lengths add up to bytes)
    path.write_bytes(b"a\nb\r\nc\rd\r\r\ne")
    assert list(read_lines(path, ReadLimit(100, "x"), ends=True)) == [
        (1, "a\n"), (2, "b\r\n"), (3, "c\r"), (4, "d\r"), (5, "\r\n"), (6, "e")]
    assert list(read_lines(path, ReadLimit(100, "x"))) == [
        (1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, ""), (6, "e")]


@pytest.mark.parametrize("compress", [gzip.compress, lzma.compress, bz2.compress],
                         ids=["gzip", "xz", "bzip2"])
def test_members_read_as_one_text_and_a_last_one_cut_off_may_end_it(tmp_path, compress):
    """A file appended to a member at a time (a cross-check results file): the members
    read as one text; with cut_off_ok, a last member cut off at any byte ends the lines
    with a torn one (without its end, empty if need be), everything before it read;
    without it, that is an error, and so is anything but a member after a member."""
    from reductions.reading import ReadLimit, read_lines, read_text
    lines = [f"line {i} " + "x" * (i * 37 % 300) + "\n" for i in range(400)]
    whole = compress("".join(lines[:300]).encode())
    members = [compress(line.encode()) for line in lines[300:]]
    path = tmp_path / "f"
    path.write_bytes(whole + b"".join(members))
    limit = ReadLimit(1 << 20, "x")
    assert [line for _, line in read_lines(path, limit, ends=True, cut_off_ok=True)] == lines
    assert read_text(path, limit) == "".join(lines)
    last = members[-1]
    for cut in range(1, len(last)):
        path.write_bytes(whole + b"".join(members[:-1]) + last[:cut])
        got = [line for _, line in read_lines(path, limit, ends=True, cut_off_ok=True)]
        # what the cut member gave: part of its line, or all of it (cut in the trailer),
        # then a line without its end
        assert got[:399] == lines[:399] and not got[-1].endswith("\n"), cut
        assert lines[399].startswith("".join(got[399:])) and len(got) <= 401, cut
        with pytest.raises(UserError, match="compressed|gzip|end-of-stream"):
            list(read_lines(path, limit, ends=True))
    path.write_bytes(whole + b"not a member of any kind")
    with pytest.raises(UserError, match="corrupt compressed data"):
        list(read_lines(path, limit, ends=True, cut_off_ok=True))


def test_a_member_expands_no_more_than_the_limit_allows(tmp_path):
    from reductions.reading import InputTooLarge, ReadLimit, read_lines
    path = tmp_path / "bomb.gz"
    path.write_bytes(gzip.compress(b"1" * (10 << 20)) + gzip.compress(b"\n"))
    with pytest.raises(InputTooLarge, match="more than 1 MiB once decompressed"):
        list(read_lines(path, ReadLimit(1 << 20, "x"), ends=True, cut_off_ok=True))


def test_a_plain_file_over_its_limit_is_refused_before_it_is_read(tmp_path):
    from reductions.reading import InputTooLarge, ReadLimit, read_text
    path = tmp_path / "big.txt"
    with open(path, "wb") as handle:
        handle.truncate(GIB)                 # sparse: a GiB that costs nothing to write
    start = time.monotonic()
    with pytest.raises(InputTooLarge, match=r"big\.txt: more than 1 MiB — x"):
        read_text(path, ReadLimit(1 << 20, "x"))
    assert time.monotonic() - start < 0.5


def test_the_memory_share_names_the_limit():
    from reductions.reading import ReadLimit
    limit = ReadLimit.share(2 * GIB, what="a file of puzzles", per_byte=2, per_line=512)
    assert (limit.bytes, limit.per_line) == (GIB, 256)
    assert limit.refusal("p.txt").args[0] == (
        "p.txt: more than 1 GiB (counting 256 bytes a line) — more than the memory limit of "
        "2 GiB (--max-memory) allows for a file of puzzles")


def test_puzzle_files_stream_and_stop_at_the_first_impossible_line(tmp_path):
    from reductions.sudoku.grid import MAX_GRID_TEXT
    from reductions.sudoku.puzzle_files import puzzle_texts
    path = tmp_path / "p.txt"
    path.write_text("# two puzzles, then a line no grid can be\n" + PAPER_17 + "\n\n"
                    + PAPER_17 + "\n" + "1" * (MAX_GRID_TEXT + 1) + "\n" + PAPER_17 + "\n")
    code, _, err = run("solve", path)
    assert code == ExitCode.BAD_INPUT and one_line_error(err)
    assert f"p.txt line 5: longer than {MAX_GRID_TEXT:,} characters" in err
    path.write_text(PAPER_17 + "\n" * 3 + PAPER_17)
    assert puzzle_texts(str(path)) == [(f"{path}:1", PAPER_17), (f"{path}:4", PAPER_17)]
    code, _, err = run("solve", path, "--max-memory", "1K")
    assert code == ExitCode.BAD_INPUT and "allows for a file of puzzles" in err


def test_a_model_answer_longer_than_its_variables_is_refused(tmp_path):
    cnf, answer = tmp_path / "p.cnf", tmp_path / "a"
    run("emit", "cnf", format_grid(PUZZLE_4), "-o", cnf)
    answer.write_text("s SATISFIABLE\nv " + "1 " * 100_000 + "0\n")
    code, _, err = run("decode", "cnf", cnf, answer)
    assert code == ExitCode.BAD_INPUT and "more literals than the formula's" in err


def test_the_bomb_builders_expand_as_announced(tmp_path):
    data = expanding("xz", b"ab", 8 << 20, head=b"head")
    assert len(data) < 64 << 10 and lzma.decompress(data).startswith(b"headabab")
    assert len(lzma.decompress(data)) == 4 + (7 << 20)

