"""The command line for the exact-cover and ILP routes: solve, emit, decode, exit codes and
one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from reductions.encodings.exact_cover import sudoku_exact_cover
from reductions.sudoku.grid import check_solution, format_grid, parse_grid
from solvers import cli
from solvers.cli import ExitCode
from solvers.routes.exact_cover import find_covers

from tests.conftest import INSTANCES, ROOT, instance_puzzles
from tests.solvers.formats.test_dlx import DLX1, needs_dlx1
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION
from tests.solvers.routes.test_ilp import HAVE_HIGHS, cbc_available

CBC_CLI = shutil.which("cbc")
needs_cbc = pytest.mark.skipif(not cbc_available(), reason="no CBC binary")


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def grids_in(text: str):
    """The pretty-printed 9×9 grids in a text, in order."""
    rows = [line for line in text.splitlines() if line.count("|") == 2]
    return [parse_grid("\n".join(rows[i:i + 9])) for i in range(0, len(rows), 9)]


# ----------------------------------------------------------------------------- solve

def test_solve_via_exact_cover(capsys):
    code, out, _ = run(capsys, "solve", PAPER_17, "--via", "exact-cover", "--unique")
    assert code == ExitCode.OK and "unique: yes" in out
    assert grids_in(out) == [parse_grid(PAPER_17_SOLUTION)]
    code, out, _ = run(capsys, "solve", PAPER_17, "--via", "exact-cover", "--cover-solver",
                       "dlx", "--json")
    record = json.loads(out)
    assert record["stats"]["backend"] == "dlx" and record["route"] == "exact-cover"
    assert record["solution"] == format_grid(parse_grid(PAPER_17_SOLUTION))


@pytest.mark.parametrize("solver", [pytest.param("cbc", marks=needs_cbc),
                                    pytest.param("highs", marks=pytest.mark.skipif(
                                        not HAVE_HIGHS, reason="highspy not installed"))])
def test_solve_via_ilp(capsys, solver):
    code, out, _ = run(capsys, "solve", PAPER_17, "--via", "ilp", "--ilp-solver", solver,
                       "--unique", "--json")
    record = json.loads(out)
    assert code == ExitCode.OK and record["unique"] is True
    assert record["solution"] == format_grid(parse_grid(PAPER_17_SOLUTION))
    assert record["stats"]["solver"] == solver


@pytest.mark.skipif(not HAVE_HIGHS, reason="highspy not installed")
def test_highs_banner_does_not_reach_stdout():
    # HiGHS prints its banner from C on file descriptor 1: only a real process shows it.
    result = subprocess.run([sys.executable, "-m", "solvers.cli", "solve", PAPER_17, "--via", "ilp",
                             "--ilp-solver", "highs", "--json"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == ExitCode.OK, result.stderr
    assert len(result.stdout.splitlines()) == 1 and json.loads(result.stdout)["status"] == "solved"


@pytest.mark.parametrize("route", ["exact-cover", pytest.param("ilp", marks=needs_cbc)])
def test_solve_files(capsys, route):
    code, out, err = run(capsys, "solve", INSTANCES / "6x6-2x3.txt", "--via", route)
    assert code == ExitCode.OK and "solved 4, no solution 0" in err
    for line, puzzle in zip(out.splitlines(), instance_puzzles("6x6-2x3.txt")):
        assert check_solution(puzzle, parse_grid(line, puzzle.shape))
    code, out, _ = run(capsys, "solve", INSTANCES / "unsolvable.txt", "--via", route)
    assert code == ExitCode.NO_SOLUTION and out.splitlines() == ["no solution"] * 4


@pytest.mark.parametrize("route", ["exact-cover", pytest.param("ilp", marks=needs_cbc)])
def test_several_solutions_are_both_printed(capsys, route):
    code, out, _ = run(capsys, "solve", INSTANCES / "multiple-solutions.txt", "--via", route,
                       "--unique")
    assert code == ExitCode.OK and "unique: no" in out
    first, second = grids_in(out)
    puzzle = instance_puzzles("multiple-solutions.txt")[0]
    assert first != second and check_solution(puzzle, first) and check_solution(puzzle, second)


def test_time_limit_exit_code(capsys):
    from tests.solvers.routes.test_exact_cover import hard_36
    from reductions.sudoku.grid import format_grid as fmt
    text = fmt(hard_36(), "ints").replace("\n", " ")
    code, out, _ = run(capsys, "solve", text, "--via", "exact-cover", "--cover-solver", "dlx",
                       "--time-limit", "0.3")
    assert code == ExitCode.UNKNOWN and out.startswith("unknown")


def test_missing_cbc_is_a_one_line_error(capsys):
    code, out, err = run(capsys, "solve", PAPER_17, "--via", "ilp", "--cbc-path",
                         "/nowhere/cbc")
    assert code == ExitCode.BAD_INPUT and out == ""
    assert err == ("sudoku-bridge: error: CBC program '/nowhere/cbc' not found on PATH (or not "
                   "executable)\n")


# ----------------------------------------------------------------------------- exact cover files

def test_emit_exact_cover_reports_sizes(capsys, tmp_path):
    code, out, _ = run(capsys, "emit", "exact-cover", PAPER_17, "-o", tmp_path / "p.dlx")
    assert code == ExitCode.OK
    assert "593 options, 324 items, 2,372 nonzeros, clues keep" in out
    code, out, _ = run(capsys, "emit", "exact-cover", INSTANCES / "unsolvable.txt", "-o",
                       tmp_path / "p.dlx")
    assert code == ExitCode.BAD_INPUT                   # four puzzles in the file: one wanted
    last = format_grid(instance_puzzles("unsolvable.txt")[-1])
    code, out, _ = run(capsys, "emit", "exact-cover", last, "-o", tmp_path / "no.dlx",
                       "--clues", "eliminate")
    assert code == ExitCode.OK and "item p0_0 has no option: the puzzle has no solution" in out


@pytest.mark.parametrize("clues", ["keep", "eliminate"])
def test_exact_cover_emit_then_decode_answers_from_elsewhere(capsys, tmp_path, clues):
    puzzle = instance_puzzles("multiple-solutions.txt")[0]
    matrix = tmp_path / "m.dlx"
    run(capsys, "emit", "exact-cover", format_grid(puzzle), "-o", matrix, "--clues", clues)
    cover = sudoku_exact_cover(puzzle, clues)
    first, second = find_covers(cover, 2, "dlx").solutions
    answer = tmp_path / "answer.txt"
    answer.write_text("1:\n" + "\n".join(" ".join(cover.option_names(int(o))) + " (1 of 2)"
                                         for o in first) +
                      "\n2:\n" + "\n".join(" ".join(cover.option_names(int(o)))
                                           for o in second) + "\n")
    code, out, err = run(capsys, "decode", "exact-cover", matrix, answer)
    assert code == ExitCode.OK and "solution 2:" in out
    grids = grids_in(out)
    assert len(grids) == 2 and grids[0] != grids[1]
    assert all(check_solution(puzzle, g) for g in grids)
    # option numbers from 0
    answer.write_text(" ".join(str(int(o)) for o in first))
    code, out, _ = run(capsys, "decode", "exact-cover", matrix, answer, "--zero-based")
    assert code == ExitCode.OK and grids_in(out) == grids[:1]
    # an incomplete answer decodes to a grid with holes: reported as a wrong answer
    answer.write_text(" ".join(str(int(o) + 1) for o in first[:-1]))
    code, out, err = run(capsys, "decode", "exact-cover", matrix, answer)
    assert code == ExitCode.MISMATCH and "invalid:" in err


@needs_dlx1
def test_exact_cover_through_knuths_dlx1(capsys, tmp_path):
    matrix = tmp_path / "m.dlx"
    run(capsys, "emit", "exact-cover", PAPER_17, "-o", matrix)
    with open(matrix) as handle:
        result = subprocess.run([DLX1, "m1"], stdin=handle, capture_output=True, text=True)
    (tmp_path / "dlx1.out").write_text(result.stdout + result.stderr)
    code, out, _ = run(capsys, "decode", "exact-cover", matrix, tmp_path / "dlx1.out")
    assert code == ExitCode.OK and grids_in(out) == [parse_grid(PAPER_17_SOLUTION)]


def test_decode_exact_cover_no_solution_and_bad_files(capsys, tmp_path):
    matrix = tmp_path / "m.dlx"
    run(capsys, "emit", "exact-cover", format_grid(instance_puzzles("unsolvable.txt")[0]),
        "-o", matrix)
    (tmp_path / "none.out").write_text("Altogether 0 solutions, 10+20 mems, 3 updates\n")
    code, out, _ = run(capsys, "decode", "exact-cover", matrix, tmp_path / "none.out")
    assert code == ExitCode.NO_SOLUTION and out.startswith("no solution")
    (tmp_path / "broken.dlx").write_text("p0_0 p0_0\n")
    code, out, err = run(capsys, "decode", "exact-cover", tmp_path / "broken.dlx",
                         tmp_path / "none.out")
    assert code == ExitCode.BAD_INPUT and err.count("\n") == 1
    assert "broken.dlx line 1: item 'p0_0' is named twice" in err
    (tmp_path / "bad.out").write_text("1:\n p0_0 r0_1 nothing b0_1 (1 of 2)\n")
    code, out, err = run(capsys, "decode", "exact-cover", matrix, tmp_path / "bad.out")
    assert code == ExitCode.BAD_INPUT and "bad.out line 2: 'nothing' is not an item" in err


# ----------------------------------------------------------------------------- ILP files

@pytest.mark.skipif(CBC_CLI is None, reason="no 'cbc' command on PATH (Debian: coinor-cbc)")
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_ilp_emit_then_decode_a_cbc_solution(capsys, tmp_path, suffix):
    model = tmp_path / f"m{suffix}"
    code, out, _ = run(capsys, "emit", "ilp", PAPER_17, "-o", model)
    assert code == ExitCode.OK
    assert "729 variables, 341 constraints, 2,933 nonzeros, clues equalities" in out
    subprocess.run([CBC_CLI, str(model), "solve", "solu", str(tmp_path / "s.sol")],
                   capture_output=True, check=True,
                   stdin=subprocess.DEVNULL, timeout=120)
    code, out, _ = run(capsys, "decode", "ilp", model, tmp_path / "s.sol")
    assert code == ExitCode.OK and grids_in(out) == [parse_grid(PAPER_17_SOLUTION)]
    # a NO instance: cbc proves infeasibility, decode says so
    no = tmp_path / f"no{suffix}"
    run(capsys, "emit", "ilp", format_grid(instance_puzzles("unsolvable.txt")[1]), "-o", no,
        "--clues", "eliminate")
    subprocess.run([CBC_CLI, str(no), "solve", "solu", str(tmp_path / "no.sol")],
                   capture_output=True, check=True,
                   stdin=subprocess.DEVNULL, timeout=120)
    code, out, _ = run(capsys, "decode", "ilp", no, tmp_path / "no.sol")
    assert code == ExitCode.NO_SOLUTION and "Infeasible" in out


def test_decode_ilp_bad_input(capsys, tmp_path):
    model = tmp_path / "m.lp"
    run(capsys, "emit", "ilp", PAPER_17, "-o", model)
    (tmp_path / "bad.sol").write_text("Optimal - objective value 0\n  7 x_0_0_6\n")
    code, out, err = run(capsys, "decode", "ilp", model, tmp_path / "bad.sol")
    assert code == ExitCode.BAD_INPUT and err.count("\n") == 1
    assert "bad.sol line 2: expected 'index name value" in err
    (tmp_path / "stopped.sol").write_text("Stopped on time (no integer solution - continuous "
                                          "used) - objective value 0\n")
    code, out, _ = run(capsys, "decode", "ilp", model, tmp_path / "stopped.sol")
    assert code == ExitCode.UNKNOWN and out.startswith("unknown")
    code, out, err = run(capsys, "emit", "ilp", PAPER_17, "-o", tmp_path / "m.txt")
    assert code == ExitCode.BAD_INPUT and "unknown model format '.txt'; use .lp or .mps" in err
    code, out, err = run(capsys, "decode", "ilp", tmp_path / "missing.lp", tmp_path / "bad.sol")
    assert code == ExitCode.BAD_INPUT and "missing.lp: no such file" in err
