"""The ``rules`` route: deduction only — verified grids that agree with the other routes,
proved "no solution", "unknown" when stuck (never a guess), uniqueness only when solved."""

from __future__ import annotations

import pytest

from reductions.errors import UserError
from reductions.sudoku.grid import format_grid
from reductions.rules.sizes import rules_estimate
from solvers import cli
from solvers.crosscheck.report import find_mismatches, summary_rows
from solvers.crosscheck.run import run_crosscheck
from solvers.routes.deduction import solve_puzzle
from solvers.outcome import Status
from solvers.routes import ROUTES, Target, route_estimate, template_route

from tests.conftest import instance_pairs, instance_puzzles


def pairs(name: str, limit: int | None = None) -> list[tuple[str, str]]:
    return [(f"{name}:{k}", format_grid(p))
            for k, p in enumerate(instance_puzzles(name, limit))]


def test_crosscheck_agrees_on_shipped_puzzles():
    puzzles = pairs("royle17-sample300.txt", 40) + pairs("top1465-sample100.txt", 10) \
        + pairs("unsolvable.txt") + pairs("multiple-solutions.txt")
    routes = ["rules", "sat", "exact-cover"]
    results = run_crosscheck(puzzles, routes, unique=True)
    assert find_mismatches(results, unique=True) == []
    rules = {r.puzzle_id: r for r in results if r.route == "rules"}
    sat = {r.puzzle_id: r for r in results if r.route == "sat"}
    for pid, record in rules.items():
        if record.status == Status.SOLVED:
            assert record.verified and record.unique is True
            assert record.solution == sat[pid].solution and sat[pid].unique is True
        elif record.status == Status.NO_SOLUTION:
            assert sat[pid].status == Status.NO_SOLUTION
    # deduction solves most Royle puzzles; a several-solution puzzle is never "solved"
    row = summary_rows(results, routes)[0]
    assert row["route"] == "rules" and row["solved"] >= 35 and row["error"] == 0
    for pid in (p for p, _ in pairs("multiple-solutions.txt")):
        assert rules[pid].status == Status.UNKNOWN


def test_unknown_on_the_hardest():
    for puzzle in instance_puzzles("hardest1905-sample100.txt", 5):
        outcome = solve_puzzle(puzzle, unique=True)
        assert outcome.status == Status.UNKNOWN and outcome.grid is None
        assert outcome.unique is None and outcome.stats["reason"] == "no rule makes progress"


def test_no_solution_is_proved_by_a_rule():
    refuted = instance_puzzles("unsolvable.txt")[-1]
    outcome = solve_puzzle(refuted)
    assert outcome.status == Status.NO_SOLUTION and "no candidate" in outcome.stats["reason"]


def test_other_shapes_against_known_solutions():
    for name in ("4x4.txt", "6x6-2x3.txt", "12x12-3x4.txt"):
        for puzzle, solution in instance_pairs(name):
            outcome = solve_puzzle(puzzle, unique=True)
            assert outcome.status in (Status.SOLVED, Status.UNKNOWN)
            if outcome.solved:
                assert outcome.grid == solution and outcome.unique is True


def test_max_level_and_time_limit():
    puzzle = instance_puzzles("top1465-sample100.txt")[0]
    low = solve_puzzle(puzzle, max_level=1)
    assert low.status == Status.UNKNOWN and low.stats["level"] <= 1
    assert solve_puzzle(puzzle, time_limit=0).stats["reason"] == "time limit"
    with pytest.raises(UserError, match="out of range"):
        solve_puzzle(puzzle, max_level=99)


def test_registered_as_a_route():
    route = ROUTES["rules"]
    assert route.target == Target.DEDUCTION and route.options == {"max_level"}
    assert route_estimate(route, instance_puzzles("16x16.txt")[0].shape, {}) \
        == rules_estimate(instance_puzzles("16x16.txt")[0].shape)
    with pytest.raises(UserError, match="unknown target 'deduction'"):
        template_route("mine=deduction:true {input}")


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_via_rules_exit_codes(capsys):
    royle = format_grid(instance_puzzles("royle17-sample300.txt")[0])
    code, out, _ = run(capsys, "solve", royle, "--via", "rules", "--unique")
    assert code == 0 and "unique: yes" in out
    hardest = format_grid(instance_puzzles("hardest1905-sample100.txt")[0])
    code, out, _ = run(capsys, "solve", hardest, "--via", "rules")
    assert code == 3 and out.startswith("unknown: no answer: no rule makes progress")
    refuted = format_grid(instance_puzzles("unsolvable.txt")[-1])
    assert run(capsys, "solve", refuted, "--via", "rules")[0] == 1
    code, out, err = run(capsys, "solve", royle, "--via", "rules", "--max-level", "1")
    assert code == 0
    for argv, message in [(["--via", "rules", "--max-level", "0"], "level 0 is out of range"),
                          (["--via", "sat", "--max-level", "3"],
                           "--max-level does not apply to route sat"),
                          (["--via", "rules", "--encoding", "minimal"],
                           "--encoding does not apply to route rules")]:
        code, out, err = run(capsys, "solve", royle, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_crosscheck_command_with_rules(capsys, tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("\n".join(t for _, t in pairs("hardest1905-sample100.txt", 3)
                              + pairs("royle17-sample300.txt", 3)) + "\n")
    code, out, err = run(capsys, "crosscheck", path, "--routes", "rules,sat", "--unique")
    assert code == 0, err
    assert "6 puzzle(s) x 2 route(s)" in out and "no mismatches" in out
    rules_row = next(line for line in out.splitlines() if line.startswith("rules "))
    assert rules_row.split()[1:4] == ["3", "0", "3"]        # solved, no solution, unknown
