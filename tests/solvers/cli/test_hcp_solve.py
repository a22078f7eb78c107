"""``solve --via hcp``: Sudoku → Haythorpe graph → Hamiltonian cycle → grid, end to end.

Closed loop on shipped puzzles (17-clue and "hardest" samples, 4×4, 16×16, empty grids) in
both graph kinds, every pruning mode, the triple trick and the reduction; unsolvable puzzles
must come out "no solution" (proved); tours decode from any start and in either direction;
the command line's options, exit codes and one-line errors.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from reductions.sudoku.grid import Grid, Shape, check_solution, parse_grid
from reductions.sudoku.puzzle_files import read_puzzles
from reductions.hamiltonian.hcp import HcpError
from solvers.cli import ExitCode
from reductions.hamiltonian.hcp_pipeline import (HcpOptions, build_hcp_pipeline, clue_choice_arcs,
                                                 required_pairs)
from solvers.routes.hcp import solve_puzzle as solve_hcp_puzzle
from solvers.hamiltonian import solve_directed_hcp, solve_undirected_hcp
from solvers.outcome import Status

from tests.conftest import INSTANCES, instance_pairs, instance_puzzles

try:
    import ortools  # noqa: F401
    HAVE_ORTOOLS = True
except ImportError:
    HAVE_ORTOOLS = False
needs_ortools = pytest.mark.skipif(not HAVE_ORTOOLS, reason="ortools not installed "
                                                            "(extra cpsat)")

ROYLE = instance_puzzles("royle17-sample300.txt")
HARDEST = instance_puzzles("forum-hardest-sample100.txt")
SAMPLE = ROYLE[:6] + HARDEST[:4]


# ----------------------------------------------------------------------------- closed loop

@pytest.mark.parametrize("graph, prune, triple, reduce", [
    ("directed", "paper", False, False),
    ("directed", "peers", False, False),
    ("directed", "none", False, False),
    ("undirected", "paper", False, False),
    ("undirected", "peers", False, True),
    ("undirected", "paper", True, True),
])
def test_sample_puzzles_solve_and_verify(graph, prune, triple, reduce):
    puzzles = SAMPLE if prune != "none" else SAMPLE[:3]
    for puzzle in puzzles:
        outcome = solve_hcp_puzzle(puzzle, graph=graph, prune=prune, triple=triple,
                                   reduce=reduce, time_limit=60)
        assert outcome.status == Status.SOLVED, outcome.stats
        assert check_solution(puzzle, outcome.grid)


def test_both_graph_kinds_give_the_same_grid():
    """The sample puzzles have one solution each, so every route must find that one."""
    for puzzle in SAMPLE[:4]:
        grids = {solve_hcp_puzzle(puzzle, graph=kind).grid.values.tobytes()
                 for kind in ("directed", "undirected")}
        assert len(grids) == 1


@needs_ortools
def test_cpsat_agrees_with_sat():
    for puzzle in ROYLE[:2] + HARDEST[:2]:
        sat = solve_hcp_puzzle(puzzle, graph="directed", prune="peers", hcp_solver="sat")
        cpsat = solve_hcp_puzzle(puzzle, graph="directed", prune="peers",
                                 hcp_solver="cpsat")
        assert sat.status == cpsat.status == Status.SOLVED
        assert sat.grid == cpsat.grid
        assert cpsat.stats["solver"]["backend"] == "cpsat"


def test_haythorpe_17_clue_instance_gives_the_papers_solution():
    puzzle, solution = instance_pairs_haythorpe()
    for kind in ("directed", "undirected"):
        assert solve_hcp_puzzle(puzzle, graph=kind).grid == solution


def instance_pairs_haythorpe():
    puzzle = instance_puzzles("haythorpe-17clue.txt")[0]
    solution = [g for _, g in read_puzzles(INSTANCES / "haythorpe-17clue.solution.txt")][0]
    return puzzle, solution


@pytest.mark.parametrize("graph, prune, reduce", [
    ("directed", "paper", False), ("directed", "peers", False), ("directed", "none", False),
    ("undirected", "paper", False), ("undirected", "none", False),
    ("undirected", "paper", True), ("undirected", "peers", True),
])
def test_unsolvable_puzzles_are_proved_unsolvable(graph, prune, reduce):
    for puzzle in instance_puzzles("unsolvable.txt"):
        outcome = solve_hcp_puzzle(puzzle, graph=graph, prune=prune, reduce=reduce)
        assert outcome.status == Status.NO_SOLUTION, outcome.stats
        assert outcome.grid is None and outcome.stats["reason"]


@needs_ortools
def test_unsolvable_puzzles_with_cpsat():
    for puzzle in instance_puzzles("unsolvable.txt"):
        assert solve_hcp_puzzle(puzzle, hcp_solver="cpsat").status == Status.NO_SOLUTION


def test_small_and_big_grids():
    for puzzle, solution in instance_pairs("4x4.txt"):
        for kind in ("directed", "undirected"):
            assert solve_hcp_puzzle(puzzle, graph=kind).grid == solution     # unique solutions
    for puzzle in instance_puzzles("16x16.txt")[:1]:
        outcome = solve_hcp_puzzle(puzzle, graph="directed", prune="peers", time_limit=120)
        assert outcome.status == Status.SOLVED and check_solution(puzzle, outcome.grid)


@pytest.mark.parametrize("graph", ["directed", "undirected"])
def test_empty_grids(graph):
    for box in (2, 3):
        empty = Grid.empty(Shape(box, box))
        outcome = solve_hcp_puzzle(empty, graph=graph, prune="none", time_limit=120)
        assert outcome.status == Status.SOLVED and check_solution(empty, outcome.grid)


def test_non_square_puzzles_are_refused():
    puzzle = instance_puzzles("6x6-2x3.txt")[0]
    with pytest.raises(HcpError, match="needs square blocks .* this 6x6 puzzle has 2x3 blocks"):
        solve_hcp_puzzle(puzzle)


# ----------------------------------------------------------------------------- decoding

@pytest.mark.parametrize("options", [
    HcpOptions(directed=True, prune="paper"),
    HcpOptions(directed=False, prune="peers"),
    HcpOptions(directed=False, prune="paper", triple=True),
    HcpOptions(directed=False, prune="paper", reduce=True),
])
def test_decoding_a_rotated_and_reversed_tour(options):
    puzzle = HARDEST[5]
    pipeline = build_hcp_pipeline(puzzle, options)
    solve = solve_directed_hcp if options.directed else solve_undirected_hcp
    cycle = solve(pipeline.num_vertices, pipeline.edges).cycle
    grid = pipeline.decode(cycle)
    assert check_solution(puzzle, grid)
    rng = np.random.default_rng(0)
    for shift in rng.integers(1, len(cycle), size=3):
        rotated = np.roll(cycle, int(shift))
        assert pipeline.decode(rotated) == grid
        assert pipeline.decode(rotated[::-1]) == grid


def test_prune_none_turns_clues_into_required_arcs():
    puzzle = ROYLE[0]
    pipeline = build_hcp_pipeline(puzzle, HcpOptions(directed=True, prune="none"))
    arcs = clue_choice_arcs(pipeline)
    assert len(arcs) == puzzle.clue_count() == 17
    names = [pipeline.graph.layout.name(int(t)) for t in arcs[:, 0]]
    assert all(name.startswith("b[") for name in names)
    # The same arcs are found in the pruned graph, which keeps every clue's choice arc.
    pruned = build_hcp_pipeline(puzzle, HcpOptions(directed=True, prune="paper"))
    assert np.array_equal(clue_choice_arcs(pruned), arcs)
    assert required_pairs(pruned) is None
    undirected = build_hcp_pipeline(puzzle, HcpOptions(directed=False, prune="none"))
    pairs = required_pairs(undirected)
    keys = {tuple(e) for e in undirected.edges.tolist()}
    assert all(tuple(p) in keys for p in pairs.tolist())


# ----------------------------------------------------------------------------- CLI

PAPER_17 = (".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1......"
            "..8.6...")


@pytest.mark.parametrize("box, graph", [(2, "directed"), (3, "directed"), (3, "undirected")])
def test_symmetry_breaking_solves_empty_grids_with_the_first_row_fixed(box, graph):
    empty = Grid.empty(Shape(box, box))
    outcome = solve_hcp_puzzle(empty, graph=graph, prune="peers", reduce=graph == "undirected",
                               time_limit=120, break_symmetry=True)
    assert outcome.status == Status.SOLVED and check_solution(empty, outcome.grid)
    assert list(outcome.grid.values[0]) == list(range(1, box * box + 1))
    assert outcome.stats["symmetry_breaking"] == "first row fixed to 1..N"
    # fixing the first row prunes the graph: fewer arcs than the blank graph
    assert outcome.stats["sizes"][1]["edges"] < outcome.stats["sizes"][0]["edges"]


def test_symmetry_breaking_leaves_puzzles_with_clues_alone(run):
    code, out, _ = run("solve", PAPER_17, "--via", "hcp", "--break-symmetry", "--json")
    record = json.loads(out)
    assert code == ExitCode.OK and record["stats"]["symmetry_breaking"].startswith("none")
    assert parse_grid(record["solution"]) == instance_pairs_haythorpe()[1]


def test_cli_prints_the_grid(run):
    code, out, err = run("solve", PAPER_17, "--via", "hcp")
    puzzle, solution = instance_pairs_haythorpe()
    assert code == ExitCode.OK and parse_grid(out) == solution and not err


def test_cli_json_has_sizes_and_solver_stats(run):
    code, out, _ = run("solve", PAPER_17, "--via", "hcp", "--graph", "undirected",
                       "--prune", "peers", "--reduce", "--json")
    record = json.loads(out)
    stats = record["stats"]
    assert code == ExitCode.OK and record["status"] == "solved" and record["route"] == "hcp"
    assert [s["stage"] for s in stats["sizes"]][-1] == "degree-2 reduction"
    assert stats["sizes"][0]["vertices"] == 4799 and stats["sizes"][0]["edges"] == 14033
    assert stats["solver"]["backend"] == "sat"
    assert stats["solver"]["iterations"] >= 1 and "cuts" in stats["solver"]
    assert stats["seconds"] > 0 and stats["graph"] == "undirected"


def test_cli_file_of_puzzles_and_unsolvable_exit_code(run):
    code, out, err = run("solve", INSTANCES / "unsolvable.txt", "--via", "hcp")
    assert code == ExitCode.NO_SOLUTION and out.splitlines() == ["no solution"] * 4
    code, out, err = run("solve", INSTANCES / "4x4.txt", "--via", "hcp", "--graph",
                         "undirected")
    assert code == ExitCode.OK and "solved 4" in err


def test_cli_time_limit_gives_unknown(run):
    code, out, _ = run("solve", PAPER_17, "--via", "hcp", "--time-limit", "0")
    assert code == ExitCode.UNKNOWN and "unknown" in out and "time limit" in out


@pytest.mark.parametrize("argv, message", [
    (["--hcp-solver", "lkh", "--graph", "directed"], "use --graph undirected"),
    (["--graph", "directed", "--triple"], "undirected graph"),
    (["--prune", "none", "--graph", "undirected", "--reduce"], "not supported"),
    (["--prune", "none", "--hcp-solver", "concorde"], "required edges"),
    (["--unique", "--hcp-solver", "lkh"], "--unique needs an exact"),
    (["--hcp-solver", "concorde", "--concorde-binary", "/nonexistent/concorde"],
     "not found"),
    (["--hcp-solver", "lkh", "--lkh-binary", "/nonexistent/LKH"], "not found"),
])
def test_cli_bad_options_are_one_line_errors(run, argv, message):
    code, out, err = run("solve", PAPER_17, "--via", "hcp", *argv)
    assert code == ExitCode.BAD_INPUT
    assert err.startswith("sudoku-bridge: error:") and message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_non_square_puzzle_is_one_line_error(run):
    code, out, err = run("solve", INSTANCES / "6x6-2x3.txt", "--via", "hcp", "--box", "2x3")
    assert code == ExitCode.BAD_INPUT and "square" in err and "Traceback" not in err
