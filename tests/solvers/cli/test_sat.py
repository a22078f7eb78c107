"""The command line: solve / emit cnf / decode cnf / verify, exit codes, one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reductions.sudoku.grid import Grid, Shape, check_solution, format_grid, parse_grid
from solvers.cli import ExitCode, main

from tests.conftest import INSTANCES, ROOT, instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_a_literal_puzzle(capsys):
    code, out, err = run(capsys, "solve", PAPER_17, "--unique")
    assert code == ExitCode.OK
    assert parse_grid(out.split("unique")[0]) == parse_grid(PAPER_17_SOLUTION)
    assert "unique: yes" in out


def test_solve_a_file_prints_one_line_per_puzzle(capsys):
    code, out, err = run(capsys, "solve", INSTANCES / "top1465-sample100.txt", "--jobs", 2)
    assert code == ExitCode.OK
    lines = out.splitlines()
    puzzles = instance_puzzles("top1465-sample100.txt")
    assert len(lines) == len(puzzles)
    for line, puzzle in zip(lines, puzzles):
        assert check_solution(puzzle, parse_grid(line))
    assert "solved 100, no solution 0" in err


def test_json_lines(capsys):
    code, out, _ = run(capsys, "solve", INSTANCES / "4x4.txt", "--json", "--unique")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == ExitCode.OK and len(records) == 4
    for record in records:
        assert record["status"] == "solved" and record["unique"] is True
        assert check_solution(parse_grid(record["puzzle"]), parse_grid(record["solution"]))
        assert record["puzzle_id"].startswith(str(INSTANCES / "4x4.txt"))


def test_unsolvable_file_exit_code(capsys):
    code, out, _ = run(capsys, "solve", INSTANCES / "unsolvable.txt")
    assert code == ExitCode.NO_SOLUTION and out.splitlines() == ["no solution"] * 4
    code, out, _ = run(capsys, "solve", format_grid(instance_puzzles("unsolvable.txt")[0]))
    assert code == ExitCode.NO_SOLUTION and "no solution" in out


def test_several_solutions_shown(capsys):
    code, out, _ = run(capsys, "solve", INSTANCES / "multiple-solutions.txt", "--unique")
    assert code == ExitCode.OK and "unique: no" in out


def test_time_limit_exit_code(capsys):
    code, out, _ = run(capsys, "solve", format_grid(instance_puzzles("unsolvable.txt")[0]),
                       "--time-limit", 0)
    assert code == ExitCode.UNKNOWN and out.startswith("unknown")


@pytest.mark.parametrize("argv, message", [
    (["solve", "12345"], "5 cells is not a square number"),
    (["solve", "11" + "." * 79], "contradictory clues: row 1 has two 1s"),
    (["solve", "no/such/file.txt"], "no such file"),
    (["solve", PAPER_17, "--solver", "nosuch"], "unknown pysat solver"),
    (["solve", PAPER_17, "--solver-cmd", "no-such-binary-x"], "not found on PATH"),
    (["emit", "cnf", PAPER_17, "-o", "/nonexistent-dir/x.cnf"], "does not exist"),
    (["decode", "cnf", "/nonexistent.cnf", "/nonexistent.out"], "no such file"),
    (["verify", PAPER_17, "123"], "3 cells"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == ExitCode.BAD_INPUT
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_line_in_a_file_is_reported_with_its_place(capsys, tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_text(f"{PAPER_17}\n{PAPER_17[:-3]}\n{PAPER_17}\n")
    code, out, err = run(capsys, "solve", path)
    assert code == ExitCode.BAD_INPUT
    assert out.splitlines()[1] == "error" and len(out.splitlines()) == 3
    assert f"{path}:2: 78 cells" in err


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet="0123456789.ABCxyz |-+\n#", max_size=120))
def test_arbitrary_puzzle_text_never_gives_a_traceback(capsys, text):
    code = main(["solve", "--time-limit", "5", "--", text])
    assert code in (ExitCode.OK, ExitCode.NO_SOLUTION, ExitCode.BAD_INPUT, ExitCode.UNKNOWN)
    capsys.readouterr()


# ----------------------------------------------------------------------------- emit/decode

@pytest.mark.parametrize("clues", ["units", "eliminate"])
def test_emit_then_decode_with_a_pysat_model(capsys, tmp_path, clues):
    from pysat.solvers import Solver

    from solvers.formats.dimacs import read_cnf
    cnf_path = tmp_path / "p.cnf"
    code, out, _ = run(capsys, "emit", "cnf", PAPER_17, "-o", cnf_path, "--clues", clues)
    assert code == ExitCode.OK and "variables" in out
    cnf = read_cnf(cnf_path)
    with Solver(name="glucose4", bootstrap_with=cnf.clauses) as s:
        assert s.solve()
        model = s.get_model()
    answer = tmp_path / "answer.txt"
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    code, out, _ = run(capsys, "decode", "cnf", cnf_path, answer)
    assert code == ExitCode.OK and parse_grid(out) == parse_grid(PAPER_17_SOLUTION)
    # a model that is not a solution: decoded, shown, and flagged as wrong
    flipped = [-lit if abs(lit) in (1, 2) else lit for lit in model]
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, flipped)) + " 0\n")
    code, _, err = run(capsys, "decode", "cnf", cnf_path, answer)
    assert code in (ExitCode.MISMATCH, ExitCode.BAD_INPUT) and err


def test_decode_refuses_a_changed_file(capsys, tmp_path):
    cnf_path = tmp_path / "p.cnf"
    run(capsys, "emit", "cnf", PAPER_17, "-o", cnf_path)
    text = cnf_path.read_text().replace("c clues units", "c clues eliminate")
    cnf_path.write_text(text)
    answer = tmp_path / "a.txt"
    answer.write_text("s UNSATISFIABLE\n")
    code, _, err = run(capsys, "decode", "cnf", cnf_path, answer)
    assert code == ExitCode.BAD_INPUT and "the file was changed" in err


def test_decode_unsat_and_unknown_answers(capsys, tmp_path):
    cnf_path = tmp_path / "p.cnf"
    run(capsys, "emit", "cnf", PAPER_17, "-o", cnf_path)
    answer = tmp_path / "a.txt"
    answer.write_text("UNSAT\n")
    assert run(capsys, "decode", "cnf", cnf_path, answer)[0] == ExitCode.NO_SOLUTION
    answer.write_text("s UNKNOWN\n")
    assert run(capsys, "decode", "cnf", cnf_path, answer)[0] == ExitCode.UNKNOWN


@pytest.mark.parametrize("binary, args", [("cadical", ["-q"]), ("minisat", ["-verb=0"])])
def test_dimacs_round_trip_through_real_solvers(capsys, tmp_path, binary, args):
    if shutil.which(binary) is None:
        pytest.skip(f"{binary} not installed (Debian package '{binary}')")
    for name, encoding, amo in [("16x16.txt", "extended", "seqcounter"),
                                ("6x6-2x3.txt", "minimal", "pairwise")]:
        puzzle = instance_puzzles(name)[0]
        cnf_path = tmp_path / "p.cnf"
        code, _, _ = run(capsys, "emit", "cnf", format_grid(puzzle), "-o", cnf_path,
                         "--encoding", encoding, "--amo", amo, "--clues", "eliminate")
        assert code == ExitCode.OK
        answer = tmp_path / "answer.txt"
        if binary == "minisat":
            subprocess.run([binary, *args, str(cnf_path), str(answer)], capture_output=True)
        else:
            proc = subprocess.run([binary, *args, str(cnf_path)], capture_output=True,
                                  text=True)
            assert proc.returncode == 10
            answer.write_text(proc.stdout)
        code, out, _ = run(capsys, "decode", "cnf", cnf_path, answer)
        assert code == ExitCode.OK
        assert check_solution(puzzle, parse_grid(out, puzzle.shape))


def test_verify(capsys):
    assert run(capsys, "verify", PAPER_17, PAPER_17_SOLUTION)[0] == ExitCode.OK
    wrong = PAPER_17_SOLUTION[1] + PAPER_17_SOLUTION[0] + PAPER_17_SOLUTION[2:]
    code, out, err = run(capsys, "verify", PAPER_17, wrong)
    assert code == ExitCode.MISMATCH and "invalid" in err and out == ""


def test_six_by_six_with_explicit_box(capsys):
    shape = Shape(3, 2)
    code, out, _ = run(capsys, "solve", "." * 36, "--box", "3x2")
    assert code == ExitCode.OK and check_solution(Grid.empty(shape), parse_grid(out, shape))


def test_console_entry_point_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "solvers.cli", "solve", "abc"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == ExitCode.BAD_INPUT
    assert proc.stderr.startswith("sudoku-bridge: error:") and "Traceback" not in proc.stderr
