"""Exact-cover programs (solvers/tools/cover_programs.py). Knuth's dlx1 end to end: what it
really prints (solutions on stdout with ``m1``, totals on stderr), decoded from one file
holding both streams; the ``dlx1`` route and ``--cover-cmd`` templates run through real
processes.

* format tests on dlx1's exact output (recorded from dlx1 built from cwebtest's dlx1.w, see
  /work/tools/NOTES.md): a solution, "Altogether 0 solutions", "TIMEOUT!", stdout only,
  every way of cutting the file short, garbage;
* fake tools (marked shell scripts the tests write) for the route and the template paths:
  hangs (stopped at the time limit, nothing left running), garbage, crashes, wrong covers,
  answer files, a solution printed before a hang;
* the real dlx1 (and dlx2) when on PATH: the command lines of docs/routes.md, round trips
  emit → dlx1 → decode and the route, against the built-in search.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reductions.errors import UserError
from reductions.encodings.exact_cover import sudoku_exact_cover
from reductions.sudoku.grid import check_solution, parse_grid
from solvers import cli
from solvers.cli import ExitCode
from solvers.routes.exact_cover import CoverSolver, find_covers, solve_puzzle
from solvers.runtime.processes import ExternalSolverError
from solvers.formats.dlx import DlxFormatError, read_answer, write_dlx
from solvers.outcome import SolverUnavailable, Status, WrongAnswer
from solvers.routes import ROUTES, solve
from solvers.tools.cover_programs import cover_command

from tests.conftest import instance_puzzles
from tests.processes import child_env, script, wait_until

DLX1 = shutil.which("dlx1")
DLX2 = shutil.which("dlx2")
needs_dlx1 = pytest.mark.skipif(DLX1 is None, reason="Knuth's dlx1 is not on PATH (built from "
                                                     "cwebtest's dlx1.w; see docs/routes.md)")
needs_dlx2 = pytest.mark.skipif(DLX2 is None, reason="Knuth's dlx2 is not on PATH")

FOUR = "....1.4...3.4..2"
FOUR_SOLUTION = "3421124321344312"
FOUR_STATS = "(49 options, 64+0 items, 245 entries successfully read)\n"
FOUR_SOLUTION_LINES = """\
1:
 p1_0 r1_1 c0_1 b0_1 (1 of 1)
 p1_2 r1_4 c2_4 b1_4 (1 of 1)
 p2_2 r2_3 c2_3 b3_3 (1 of 1)
 p3_0 r3_4 c0_4 b2_4 (1 of 1)
 p2_0 r2_2 c0_2 b2_2 (1 of 1)
 p0_0 r0_3 c0_3 b0_3 (1 of 1)
 p1_1 r1_2 c1_2 b0_2 (1 of 1)
 p0_1 r0_4 c1_4 b0_4 (1 of 1)
 p1_3 r1_3 c3_3 b1_3 (1 of 1)
 p2_1 r2_1 c1_1 b2_1 (1 of 1)
 p2_3 r2_4 c3_4 b3_4 (1 of 1)
 p3_1 r3_3 c1_3 b2_3 (1 of 1)
 p3_3 r3_2 c3_2 b3_2 (1 of 1)
 p0_3 r0_1 c3_1 b1_1 (1 of 1)
 p0_2 r0_2 c2_2 b1_2 (1 of 1)
 p3_2 r3_1 c2_1 b3_1 (1 of 1)
"""
FOUR_TOTALS = ("Altogether 1 solution, 13470+3944 mems, 211 updates, 6064 bytes, 17 nodes, "
               "ccost 28%.\n")
FOUR_OUT = FOUR_STATS + FOUR_SOLUTION_LINES + FOUR_TOTALS
"""``emit exact-cover FOUR`` (clues keep), then ``dlx1 m1 < f.dlx > f.out 2>&1``: verbatim."""

FOUR_TIMEOUT = (FOUR_STATS + "TIMEOUT!\nAltogether 0 solutions, 13470+550 mems, 44 updates, "
                "6008 bytes, 3 nodes, ccost 45%.\n")
"""The same with ``T500`` (give up after 500 mems): verbatim."""

UNSOLVABLE = instance_puzzles("unsolvable.txt")[0]
"""A 17-clue Royle puzzle plus one wrong clue: peer-consistent, no solution, refuted only by
search (the SAT route agrees: test_the_unsolvable_puzzle_is_unsolvable_by_sat)."""
UNSOLVABLE_OUT = (
    "(300 options, 252+0 items, 1500 entries successfully read)\n"
    "Altogether 0 solutions, 211862+27623 mems, 959 updates, 32264 bytes, 44 nodes, "
    "ccost 52%.\n")
"""``emit exact-cover UNSOLVABLE --clues eliminate``, ``dlx1 m1 < u.dlx > u.out 2>&1``:
verbatim (stdout is empty)."""


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def files(tmp_path: Path, puzzle, answer: str, clues: str = "keep") -> tuple[Path, Path]:
    """The matrix as ``emit exact-cover`` writes it and an answer file."""
    matrix, out = tmp_path / "p.dlx", tmp_path / "p.out"
    write_dlx(matrix, sudoku_exact_cover(parse_grid(puzzle) if isinstance(puzzle, str)
                                         else puzzle, clues))
    out.write_text(answer)
    return matrix, out


def one_line_error(err: str) -> str:
    assert err.startswith("sudoku-bridge: error: ") and err.count("\n") == 1, err
    return err


# ----------------------------------------------------------------------------- formats

def test_the_unsolvable_puzzle_is_unsolvable_by_sat():
    assert solve(UNSOLVABLE, via="sat").status == Status.NO_SOLUTION


def test_both_streams_in_one_file_decode_to_the_verified_grid(tmp_path, capsys):
    matrix, out = files(tmp_path, FOUR, FOUR_OUT)
    code, stdout, _ = run(capsys, "decode", "exact-cover", matrix, out, "--json")
    assert code == ExitCode.OK
    assert json.loads(stdout)["solutions"] == [FOUR_SOLUTION]
    answer = read_answer(out, sudoku_exact_cover(parse_grid(FOUR), "keep"))
    assert answer.reported_count == 1 and answer.finished


def test_altogether_0_solutions_is_no_solution(tmp_path, capsys):
    matrix, out = files(tmp_path, UNSOLVABLE, UNSOLVABLE_OUT, clues="eliminate")
    code, stdout, _ = run(capsys, "decode", "exact-cover", matrix, out)
    assert code == ExitCode.NO_SOLUTION
    assert stdout == "no solution: the solver searched everything and reports 0 solutions\n"


def test_timeout_of_dlx1_is_unknown_not_no_solution(tmp_path, capsys):
    matrix, out = files(tmp_path, FOUR, FOUR_TIMEOUT)
    code, stdout, _ = run(capsys, "decode", "exact-cover", matrix, out)
    assert code == ExitCode.UNKNOWN and stdout.startswith("unknown: ")
    assert "TIMEOUT!" in stdout


def test_stdout_only(tmp_path, capsys):
    # A solution is a solution without the totals line...
    matrix, out = files(tmp_path, FOUR, FOUR_SOLUTION_LINES)
    code, stdout, _ = run(capsys, "decode", "exact-cover", matrix, out, "--json")
    assert code == ExitCode.OK and json.loads(stdout)["solutions"] == [FOUR_SOLUTION]
    # ... but dlx1's empty stdout says nothing: not "no solution".
    matrix, out = files(tmp_path, UNSOLVABLE, "", clues="eliminate")
    code, stdout, err = run(capsys, "decode", "exact-cover", matrix, out)
    assert code == ExitCode.BAD_INPUT and stdout == ""
    assert one_line_error(err) == (
        f"sudoku-bridge: error: {out}: no chosen options and no 'Altogether N solutions' "
        f"line: nothing says whether a solution exists (dlx1 prints solutions only with m1, "
        f"on stdout, and its totals on stderr: capture both, e.g. 'dlx1 m1 < FILE > OUT "
        f"2>&1')\n")


def test_totals_without_solutions_means_m1_was_missing(tmp_path, capsys):
    matrix, out = files(tmp_path, FOUR, FOUR_STATS + FOUR_TOTALS)
    code, _, err = run(capsys, "decode", "exact-cover", matrix, out)
    assert code == ExitCode.BAD_INPUT
    assert "the solver reports 1 solution but lists none (dlx1 prints solutions only with " \
           "m1" in one_line_error(err)


def test_every_cut_of_a_dlx1_answer_is_an_error_naming_a_line_or_the_whole_solution(
        tmp_path):
    """Cut anywhere after the statistics line: a one-line error naming the file and a line;
    once the last option's items are all there, the whole solution may decode instead (as
    stdout alone does)."""
    cover = sudoku_exact_cover(parse_grid(FOUR), "keep")
    whole = FOUR_OUT.index(" (1 of 1)\nAltogether")
    path = tmp_path / "cut.out"
    decoded = 0
    for end in range(len(FOUR_STATS) + 1, len(FOUR_OUT) - 1):
        path.write_text(FOUR_OUT[:end])
        try:
            answer = read_answer(path, cover)
        except DlxFormatError as exc:
            message = str(exc)
            assert "\n" not in message
            assert re.match(rf"{re.escape(str(path))} line \d+: ", message), (end, message)
            continue
        assert end >= whole, f"a cut at {end} decoded"
        assert cover.grid_from_options(answer.solutions[0]) == parse_grid(FOUR_SOLUTION)
        decoded += 1
    assert decoded >= 2             # right after the last item, and after its '(1 of 1)'


def test_a_cut_at_a_line_end_says_the_file_is_cut_short(tmp_path, capsys):
    lines = FOUR_OUT.splitlines(keepends=True)
    matrix, out = files(tmp_path, FOUR, "".join(lines[:10]))
    code, stdout, err = run(capsys, "decode", "exact-cover", matrix, out)
    assert (code, stdout) == (ExitCode.BAD_INPUT, "")
    assert one_line_error(err) == (
        f"sudoku-bridge: error: {out} line 10: the answer ends inside solution 1 (8 options, "
        f"not a whole cover) with no 'Altogether N solutions' line after it: the file is "
        f"cut short\n")


@pytest.mark.parametrize("text,message", [
    ("hello\n", r"line 1: 'hello' is not an item of a 4x4 Sudoku"),
    (FOUR_STATS + "Too many levels!\n", r"line 2: the solver stopped with an error: Too many"),
    ("Usage: dlx1 [v<n>] [m<n>] < foo.dlx\n", r"line 1: the solver stopped with an error: "
                                              r"Usage: dlx1"),
    ("\x00\x01", r"not a text file|is not an item"),
])
def test_garbage_answers_are_one_line_errors(tmp_path, capsys, text, message):
    matrix, out = files(tmp_path, FOUR, text)
    code, stdout, err = run(capsys, "decode", "exact-cover", matrix, out)
    assert (code, stdout) == (ExitCode.BAD_INPUT, "")
    assert re.search(message, one_line_error(err)), err


def test_a_complete_answer_that_is_no_cover_is_a_wrong_answer(tmp_path, capsys):
    lines = FOUR_OUT.splitlines(keepends=True)
    matrix, out = files(tmp_path, FOUR, "".join(lines[:5] + lines[-1:]))
    code, _, err = run(capsys, "decode", "exact-cover", matrix, out)
    assert code == ExitCode.MISMATCH and "invalid: " in err


# ----------------------------------------------------------------------------- templates

@pytest.mark.parametrize("template,args,stdin", [
    ("dlx1", ["dlx1", "m1", "t{limit}"], True),
    ("/opt/bin/dlx2", ["/opt/bin/dlx2", "m1", "t{limit}"], True),
    ("dlx1 m1 < {input}", ["dlx1", "m1"], True),
    ("dlx1 m1 <{input}", ["dlx1", "m1"], True),
    ("mysolver --in {input} --out {output}", ["mysolver", "--in", "{input}", "--out",
                                              "{output}"], False),
])
def test_templates(template, args, stdin):
    command = cover_command(template)
    assert (list(command.args), command.stdin) == (args, stdin)


@pytest.mark.parametrize("template,message", [
    ("", "--cover-cmd is empty"),
    ("'open", "No closing quotation"),
    ("dlx1 m1", "the command must read the exact-cover file: put {input} among its "
                "arguments, or '< {input}'"),
    ("dlx1 m1 < {input} > out.txt", "'>': no shell runs the command"),
    ("dlx1 m1 < {input} 2>&1", "'2>&1': no shell runs the command"),
    ("dlx1 m1 < {input} | tee x", "'|': no shell runs the command"),
    ("dlx1 m1 < other.dlx", "the one redirection understood is '< {input}'"),
    ("dlx1 < {input} < {input}", "the one redirection understood"),
    ("{input}", "the program name cannot be a placeholder"),
])
def test_bad_templates_are_one_line_errors(template, message):
    with pytest.raises(UserError, match=re.escape(message)):
        cover_command(template)


def test_cover_solver_and_cover_cmd_together_are_refused(capsys):
    code, _, err = run(capsys, "solve", FOUR, "--via", "exact-cover", "--cover-solver", "dlx",
                       "--cover-cmd", "dlx2")
    assert code == ExitCode.BAD_INPUT
    assert one_line_error(err).endswith("give a --cover-solver or a --cover-cmd, not both\n")


# ----------------------------------------------------------------------------- fake tools

@pytest.fixture
def canned(tmp_path):
    """Files holding dlx1's verbatim stdout and stderr for FOUR (clues keep)."""
    (tmp_path / "stdout.txt").write_text(FOUR_SOLUTION_LINES)
    (tmp_path / "stderr-head.txt").write_text(FOUR_STATS)
    (tmp_path / "stderr-tail.txt").write_text(FOUR_TOTALS)
    return tmp_path


def as_dlx1(fakes, body: str) -> Path:
    """A fake ``dlx1`` (the exact name, in a marked directory) to put first on PATH."""
    directory = fakes.directory / f"path-{fakes.marker}"
    directory.mkdir(exist_ok=True)
    script(directory / "dlx1", body.replace("$SLEEP", str(fakes.sleeper)))
    return directory


def assert_nothing_left(fakes):
    assert wait_until(lambda: fakes.running() == [], 2), f"left running: {fakes.running()}"


def like_dlx1(canned) -> str:
    return (f"cat {canned}/stderr-head.txt >&2\ncat {canned}/stdout.txt\n"
            f"cat {canned}/stderr-tail.txt >&2\n")


def test_fake_dlx1_route_reads_both_streams(fakes, canned, monkeypatch):
    directory = as_dlx1(fakes, "cat > /dev/null\n" + like_dlx1(canned))
    monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ['PATH']}")
    outcome = solve(parse_grid(FOUR), via="dlx1", clues="keep", unique=True)
    assert outcome.status == Status.SOLVED and outcome.unique is True
    assert check_solution(parse_grid(FOUR), outcome.grid)
    assert outcome.stats["command"][1:] == ["m1", "t2"]
    assert_nothing_left(fakes)


@pytest.mark.parametrize("via_route", [True, False])
def test_a_hanging_tool_is_unknown_at_the_time_limit(fakes, monkeypatch, via_route):
    body = "$SLEEP 1000 &\n$SLEEP 1001\n"           # and a child in its group
    if via_route:
        monkeypatch.setenv("PATH", f"{as_dlx1(fakes, body)}{os.pathsep}{os.environ['PATH']}")
        options = {"via": "dlx1"}
    else:
        options = {"via": "exact-cover",
                   "cover_cmd": f"{fakes.script('hang', body)} < {{input}}"}
    start = time.monotonic()
    outcome = solve(parse_grid(FOUR), time_limit=1.0, **options)
    assert outcome.status == Status.UNKNOWN and outcome.stats["reason"] == "time limit reached"
    assert time.monotonic() - start < 5
    assert_nothing_left(fakes)


def test_a_solution_printed_before_a_hang_is_kept_uniqueness_unknown(fakes, canned):
    tool = fakes.script("half", f"cat {canned}/stdout.txt\n$SLEEP 1000\n")
    outcome = solve_puzzle(parse_grid(FOUR), cover_cmd=f"{tool} t{{limit}} < {{input}}",
                           clues="keep", unique=True, time_limit=1.0)
    assert outcome.status == Status.SOLVED and outcome.unique is None
    assert outcome.stats["reason"] == "time limit reached"
    assert_nothing_left(fakes)


def test_half_a_solution_before_a_hang_is_dropped(fakes, canned):
    half = "".join(FOUR_SOLUTION_LINES.splitlines(keepends=True)[:7]) + " p0_1 r0"
    (canned / "half.txt").write_text(half)
    tool = fakes.script("half", f"cat {canned}/half.txt\n$SLEEP 1000\n")
    outcome = solve_puzzle(parse_grid(FOUR), cover_cmd=f"{tool} < {{input}}", clues="keep",
                           time_limit=1.0)
    assert outcome.status == Status.UNKNOWN
    assert_nothing_left(fakes)


@pytest.mark.parametrize("body,error,message", [
    ("echo hello garbage\n", ExternalSolverError,
     r"exited with code 0 and gave no usable answer \(output of half-\w+\.sh \(stdout, then "
     r"stderr\) line 1: 'hello' is not an item"),
    ("exit 0\n", ExternalSolverError, r"no chosen options and no 'Altogether N solutions'"),
    ("echo 'Too many levels!' >&2; exit 252\n", ExternalSolverError,
     r"exited with code 252; last output: Too many levels!"),
    ("kill -s SEGV $$\n", ExternalSolverError, r"was killed by SIGSEGV"),
    ("printf '\\000\\001'\n", ExternalSolverError, r"binary data"),
    ("head -n 6 {stdout}; cat {tail} >&2\n", WrongAnswer, r"solution 1 is not an exact cover"),
    ("cat {stdout}; echo 'Altogether 0 solutions' >&2\n", None, None),
])
def test_tools_without_a_usable_answer(fakes, canned, body, error, message):
    body = body.format(stdout=canned / "stdout.txt", tail=canned / "stderr-tail.txt")
    tool = fakes.script("half", body)
    if error is None:       # a count contradicting the listed solution: the solution counts
        outcome = solve_puzzle(parse_grid(FOUR), cover_cmd=f"{tool} < {{input}}",
                               clues="keep")
        assert outcome.status == Status.SOLVED
    else:
        with pytest.raises(error, match=message):
            solve_puzzle(parse_grid(FOUR), cover_cmd=f"{tool} < {{input}}", clues="keep")
    assert_nothing_left(fakes)


def test_a_tool_writing_an_answer_file(fakes, canned):
    tool = fakes.script("writer", f'cat "$1" > /dev/null\ncat {canned}/stdout.txt > "$2"\n')
    outcome = solve_puzzle(parse_grid(FOUR), cover_cmd=f"{tool} {{input}} {{output}}",
                           clues="keep", unique=True)
    # One solution and no totals line: nothing proves there is no other.
    assert outcome.status == Status.SOLVED and outcome.unique is None
    assert "no 'Altogether N solutions' line" in outcome.stats["reason"]
    silent = fakes.script("silent", "exit 0\n")
    with pytest.raises(ExternalSolverError, match=r"without writing its answer file"):
        solve_puzzle(parse_grid(FOUR), cover_cmd=f"{silent} {{input}} {{output}}",
                     clues="keep")
    assert_nothing_left(fakes)


def test_uniqueness_needs_the_limit_or_two_solutions(fakes, canned):
    tool = fakes.script("dlx", "cat > /dev/null\n" + like_dlx1(canned))
    told = solve_puzzle(parse_grid(FOUR), cover_cmd=f"{tool} t{{limit}} < {{input}}",
                        clues="keep", unique=True)
    untold = solve_puzzle(parse_grid(FOUR), cover_cmd=f"{tool} < {{input}}", clues="keep",
                          unique=True)
    assert (told.unique, untold.unique) == (True, None)


def test_cover_cmd_on_the_command_line(fakes, canned, tmp_path):
    tool = fakes.script("dlx", "cat > /dev/null\n" + like_dlx1(canned))
    result = subprocess.run(
        [sys.executable, "-m", "solvers.cli", "solve", FOUR, "--via", "exact-cover",
         "--cover-cmd", f"{tool} m1 t{{limit}} < {{input}}", "--clues", "keep", "--unique",
         "--json"], capture_output=True, text=True, env=child_env(tmp_path), timeout=60)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["solution"] == FOUR_SOLUTION and record["unique"] is True
    assert record["stats"]["command"][1:3] == ["m1", "t2"]
    assert_nothing_left(fakes)


def test_route_dlx1_is_not_available_without_the_program(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert ROUTES["dlx1"].unavailable() == (
        "route dlx1 needs the 'dlx1' program on PATH (build it from Knuth's dlx1.w, "
        "https://cs.stanford.edu/~knuth/programs/dlx1.w, with CWEB's ctangle and a C compiler)")
    with pytest.raises(SolverUnavailable, match="needs the 'dlx1' program"):
        solve(parse_grid(FOUR), via="dlx1")
    with pytest.raises(SolverUnavailable, match="program 'dlx1' not found on PATH"):
        find_covers(sudoku_exact_cover(parse_grid(FOUR)), 1, CoverSolver.DLX1)


# ----------------------------------------------------------------------------- real dlx1

def shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """A documented command line, run as a user would type it."""
    return subprocess.run(["/bin/sh", "-c", command], cwd=cwd, capture_output=True, text=True,
                          env=child_env(cwd), timeout=120)


SB = f"{sys.executable} -m solvers.cli"


@needs_dlx1
def test_readme_commands_solution(tmp_path):
    puzzle = instance_puzzles("royle17-sample300.txt", 1)[0]
    text = "".join(str(v) if v else "." for v in puzzle.values.ravel().tolist())
    assert shell(f"{SB} emit exact-cover '{text}' -o p.dlx", tmp_path).returncode == 0
    assert shell("dlx1 m1 < p.dlx > p.out 2>&1", tmp_path).returncode == 0
    decoded = shell(f"{SB} decode exact-cover p.dlx p.out --json", tmp_path)
    assert decoded.returncode == 0, decoded.stderr
    grid = parse_grid(json.loads(decoded.stdout)["solutions"][0])
    assert check_solution(puzzle, grid)
    for command in (f"{SB} solve '{text}' --via dlx1 --unique",
                    f"{SB} solve '{text}' --via exact-cover --cover-cmd 'dlx1 m1 t{{limit}} < "
                    f"{{input}}' --unique"):
        solved = shell(command, tmp_path)
        assert solved.returncode == 0 and "unique: yes" in solved.stdout, solved.stderr


@needs_dlx1
@pytest.mark.parametrize("clues", ["keep", "eliminate"])
def test_readme_commands_no_solution(tmp_path, clues):
    text = "".join(str(v) if v else "." for v in UNSOLVABLE.values.ravel().tolist())
    assert shell(f"{SB} emit exact-cover '{text}' -o u.dlx --clues {clues}",
                 tmp_path).returncode == 0
    assert shell("dlx1 m1 < u.dlx > u.out 2>&1", tmp_path).returncode == 0
    decoded = shell(f"{SB} decode exact-cover u.dlx u.out", tmp_path)
    assert decoded.returncode == 1 and decoded.stdout.startswith("no solution: ")
    if clues == "eliminate":
        assert (tmp_path / "u.out").read_text().splitlines()[0] == UNSOLVABLE_OUT.splitlines()[0]
    # stdout alone: an empty file, which proves nothing.
    assert shell("dlx1 m1 < u.dlx > u.stdout", tmp_path).returncode == 0
    assert shell(f"{SB} decode exact-cover u.dlx u.stdout", tmp_path).returncode == 2


@needs_dlx1
def test_readme_commands_uniqueness_and_timeout(tmp_path):
    several = instance_puzzles("multiple-solutions.txt")[0]
    text = "".join(str(v) if v else "." for v in several.values.ravel().tolist())
    shell(f"{SB} emit exact-cover '{text}' -o m.dlx", tmp_path)
    assert shell("dlx1 m1 t2 < m.dlx > m.out 2>&1", tmp_path).returncode == 0
    decoded = shell(f"{SB} decode exact-cover m.dlx m.out --json", tmp_path)
    assert decoded.returncode == 0 and len(json.loads(decoded.stdout)["solutions"]) == 2
    assert shell("dlx1 m1 T1000 < m.dlx > t.out 2>&1", tmp_path).returncode == 0
    assert shell(f"{SB} decode exact-cover m.dlx t.out", tmp_path).returncode == 3


@needs_dlx1
def test_real_dlx1_output_is_what_the_format_tests_use(tmp_path):
    matrix, _ = files(tmp_path, FOUR, "")
    with open(matrix) as handle:
        result = subprocess.run([DLX1, "m1"], stdin=handle, capture_output=True, text=True,
                                timeout=60)
    assert result.stdout == FOUR_SOLUTION_LINES
    assert result.stderr.splitlines()[0] + "\n" == FOUR_STATS
    assert result.stderr.startswith(FOUR_STATS + "Altogether 1 solution, ")


@needs_dlx1
def test_route_dlx1_against_the_built_in_search():
    for puzzle in instance_puzzles("royle17-sample300.txt", 10):
        ours = solve(puzzle, via="exact-cover-dlx", unique=True)
        theirs = solve(puzzle, via="dlx1", unique=True)
        assert theirs.status == Status.SOLVED and theirs.unique is True
        assert theirs.grid == ours.grid
    for puzzle in instance_puzzles("unsolvable.txt"):
        assert solve(puzzle, via="dlx1", unique=True).status == Status.NO_SOLUTION
    several = solve(instance_puzzles("multiple-solutions.txt")[0], via="dlx1", unique=True)
    assert several.unique is False and several.grid != several.second


@needs_dlx1
def test_route_dlx1_other_sizes_and_clue_modes():
    for name in ("4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt", "16x16.txt"):
        puzzle = instance_puzzles(name, 1)[0]
        for clues in ("keep", "eliminate"):
            outcome = solve(puzzle, via="dlx1", clues=clues, unique=True)
            ours = solve(puzzle, via="exact-cover-dlx", clues=clues, unique=True)
            assert outcome.status == Status.SOLVED, (name, clues)
            assert outcome.unique is ours.unique is (name != "16x16.txt"), (name, clues)
    complete = solve(parse_grid(FOUR_SOLUTION), via="dlx1")     # nothing left to cover
    assert complete.grid == parse_grid(FOUR_SOLUTION)


@needs_dlx1
def test_real_dlx1_timeout_option_through_the_template():
    outcome = solve_puzzle(UNSOLVABLE, cover_cmd="dlx1 m1 T1000 < {input}")
    assert outcome.status == Status.UNKNOWN and "TIMEOUT!" in outcome.stats["reason"]


@needs_dlx2
def test_dlx2_by_name():
    puzzle = instance_puzzles("royle17-sample300.txt", 1)[0]
    outcome = solve_puzzle(puzzle, cover_cmd="dlx2", unique=True)
    assert outcome.status == Status.SOLVED and outcome.unique is True
    assert outcome.stats["backend"] == "dlx2"
    assert solve_puzzle(UNSOLVABLE, cover_cmd="dlx2").status == Status.NO_SOLUTION
