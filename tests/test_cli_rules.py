"""``sudoku-bridge rules``: grids, explanations, JSON records, summaries and exit codes."""

from __future__ import annotations

import json

from reductions.grid import format_grid, parse_grid
from reductions.rules import RULES
from solvers import cli
from solvers.sat import solve_puzzle

from .conftest import INSTANCES, instance_puzzles


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_solved_with_explanation(capsys):
    puzzle = instance_puzzles("royle17-sample300.txt")[0]
    code, out, _ = run(capsys, "rules", format_grid(puzzle), "--explain")
    assert code == 0
    assert out.startswith("1. hidden-single: r")
    assert "is the only place for" in out
    assert "solved by rules up to level 1" in out
    grid_lines = [line for line in out.splitlines() if line.startswith(" ") and "|" in line]
    solution = solve_puzzle(puzzle).grid
    assert parse_grid("\n".join(grid_lines)) == solution


def test_unknown_prints_candidates_and_exits_3(capsys):
    puzzle = instance_puzzles("hardest1905-sample100.txt")[0]
    code, out, _ = run(capsys, "rules", format_grid(puzzle))
    assert code == 3
    assert "{" in out and out.rstrip().splitlines()[-1].startswith("unknown: no rule makes")


def test_no_solution_exits_1(capsys):
    code, out, _ = run(capsys, "rules", "12345678" + "." * 8 + "9" + "." * 64)
    assert code == 1 and out.startswith("no solution:")


def test_max_level_and_rule_choice(capsys):
    puzzle = format_grid(instance_puzzles("top1465-sample100.txt")[4])   # needs level 13
    code_low, _, _ = run(capsys, "rules", puzzle, "--max-level", "2")
    code_all, _, _ = run(capsys, "rules", puzzle)
    code_local, _, _ = run(capsys, "rules", puzzle, "--max-level", "12")
    assert (code_low, code_local, code_all) == (3, 3, 0)
    code, _, err = run(capsys, "rules", puzzle, "--rules", "hidden-single,bogus")
    assert code == 2 and "unknown rule 'bogus'" in err
    code, _, err = run(capsys, "rules", puzzle, "--max-level", "0")
    assert code == 2 and "out of range" in err


def test_file_json_records_and_summary(capsys, tmp_path):
    lines = [format_grid(p) for p in instance_puzzles("top1465-sample100.txt")[:4]]
    path = tmp_path / "p.txt"
    path.write_text("\n".join(lines + ["12345"]) + "\n")
    code, out, err = run(capsys, "rules", path, "--json")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 2                        # the bad line
    assert [r["status"] for r in records][-1] == "error"
    for record, line in zip(records, lines):
        assert record["status"] in ("solved", "unknown")
        assert len(record["grid"]) == 81
        assert record["level"] == max((RULES[s["rule"]].level for s in record["steps"]),
                                      default=0)
        assert set(record) >= {"status", "grid", "level", "rules_used", "steps"}
        if record["status"] == "solved":
            assert record["grid"] == format_grid(solve_puzzle(parse_grid(line)).grid)
        else:
            assert len(record["candidates"]) == 81
    assert "solved by hardest level" in err and "steps per rule" in err


def test_file_lines_and_list(capsys):
    code, out, err = run(capsys, "rules", INSTANCES / "unsolvable.txt")
    assert code == 1
    assert all("\tno solution\t" in line for line in out.splitlines())
    code, out, _ = run(capsys, "rules", "--list")
    assert code == 0 and "bilocal-conflicting-paths" in out and out.startswith(" 1  hidden")
