"""The command line: emit hcp / decode hcp, closed loops through files, --stats, exit codes
and one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reductions.sudoku.grid import Grid, format_grid, parse_grid
from solvers.cli import ExitCode
from solvers.formats.sidecar import load_hcp_export, sidecar_path
from solvers.formats.tsplib import read_arc_list, read_hcp, write_tour

from tests.conftest import INSTANCES, instance_puzzles
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION


def solution_tour(graph_path, solution: Grid, tour_path, reverse=False, shift=0):
    """What an outside solver would hand back: a Hamiltonian cycle of the written graph."""
    pipeline, _ = load_hcp_export(graph_path)
    order = np.roll(pipeline.tour_of_solution(solution), shift)
    write_tour(tour_path, order[::-1] if reverse else order, "solution")
    return pipeline


@pytest.mark.parametrize("options", [
    [],
    ["--prune", "peers"],
    ["--prune", "none"],
    ["--triple"],
    ["--reduce"],
    ["--reduce", "--prune", "peers", "--triple"],
    ["--reduce", "--reduce-rules", "paper"],
    ["--directed"],
    ["--directed", "--prune", "peers"],
])
def test_emit_then_decode_closed_loop(run, tmp_path, options):
    graph = tmp_path / "p17.hcp"
    code, out, err = run("emit", "hcp", PAPER_17, "-o", graph, *options)
    assert code == ExitCode.OK, err
    assert f"wrote {graph}" in out and sidecar_path(graph).exists()
    record = json.loads(sidecar_path(graph).read_text())
    if "--directed" in options:
        n, arcs = read_arc_list(graph)
        assert record["graph_format"] == "arc-list"
    else:
        n, arcs = read_hcp(graph)
        assert record["graph_format"] == "tsplib-hcp"
    assert (n, len(arcs)) == (record["num_vertices"], record["num_edges"])
    tour = tmp_path / "p17.tour"
    solution_tour(graph, parse_grid(PAPER_17_SOLUTION), tour, reverse="--directed" not in options,
                  shift=11)
    code, out, err = run("decode", "hcp", graph, tour)
    assert code == ExitCode.OK, err
    assert parse_grid(out) == parse_grid(PAPER_17_SOLUTION)


def test_stats_print_every_stage_beside_the_papers_figures(run, tmp_path):
    code, out, _ = run("emit", "hcp", PAPER_17, "-o", tmp_path / "g.hcp", "--stats",
                       "--triple", "--reduce", "--prune", "paper")
    assert code == ExitCode.OK
    lines = out.splitlines()
    assert any(line.startswith("directed, blank grid") and "4,799" in line and "14,033" in line
               for line in lines)
    assert any(line.startswith("undirected, 3-split + triple trick") and "12,939 / 22,173"
               in line for line in lines)
    assert any(line.startswith("degree-2 reduction") and "12,036 / 19,301" in line
               for line in lines)
    assert "1,514 arcs removed for 17 clues (at most 12(N-1) = 96 per clue" in out
    assert "19N^3+2N^2+2N+2" in out


def test_unsolvable_puzzle_proved_by_the_reduction(run, tmp_path):
    puzzle = format_grid(instance_puzzles("unsolvable.txt")[-1])
    graph = tmp_path / "u.hcp"
    code, out, _ = run("emit", "hcp", puzzle, "-o", graph, "--reduce")
    assert code == ExitCode.NO_SOLUTION
    assert out.startswith("no Hamiltonian cycle:") and "nothing written" in out
    assert not graph.exists() and not sidecar_path(graph).exists()
    # Without --reduce the graph is written (the exact solver refutes it; tests/reductions/hamiltonian/test_hcp.py).
    code, _, _ = run("emit", "hcp", puzzle, "-o", graph)
    assert code == ExitCode.OK and graph.exists()


def test_non_square_and_bad_options_are_one_line_errors(run, tmp_path):
    six = (INSTANCES / "6x6-2x3.txt").read_text().splitlines()[2]
    code, _, err = run("emit", "hcp", six, "-o", tmp_path / "g.hcp")
    assert code == ExitCode.BAD_INPUT
    assert err.count("\n") == 1 and "needs square blocks (N = n²" in err and "2x3" in err
    code, _, err = run("emit", "hcp", PAPER_17, "-o", tmp_path / "g", "--directed", "--reduce")
    assert code == ExitCode.BAD_INPUT and "undirected graph" in err
    code, _, err = run("emit", "hcp", PAPER_17, "-o", tmp_path / "missing" / "g.hcp")
    assert code == ExitCode.BAD_INPUT and "does not exist" in err


def test_decode_refuses_wrong_tours_and_changed_files(run, tmp_path):
    graph, tour = tmp_path / "g.hcp", tmp_path / "g.tour"
    assert run("emit", "hcp", PAPER_17, "-o", graph)[0] == ExitCode.OK
    pipeline = solution_tour(graph, parse_grid(PAPER_17_SOLUTION), tour)
    order = pipeline.tour_of_solution(parse_grid(PAPER_17_SOLUTION))
    order[[10, 20]] = order[[20, 10]]
    write_tour(tour, order)
    code, _, err = run("decode", "hcp", graph, tour)
    assert code == ExitCode.BAD_INPUT and "are consecutive in the tour but not an edge" in err
    assert err.count("\n") == 1 and "line " in err
    code, _, err = run("decode", "hcp", tmp_path / "other.hcp", tour)
    assert code == ExitCode.BAD_INPUT and "no such file" in err
    text = graph.read_text()
    graph.write_text(text.replace("EOF", "EOF\n"))
    code, _, err = run("decode", "hcp", graph, tour)
    assert code == ExitCode.BAD_INPUT and "does not match its sidecar" in err
    sidecar_path(graph).write_text("{not json")
    code, _, err = run("decode", "hcp", graph, tour)
    assert code == ExitCode.BAD_INPUT and "not valid JSON" in err


def test_prune_none_does_not_encode_the_clues(run, tmp_path):
    """With --prune none every valid grid is a cycle; one that breaks a clue decodes, then
    fails the check against the puzzle (exit 4)."""
    graph, tour = tmp_path / "g.hcp", tmp_path / "g.tour"
    code, out, _ = run("emit", "hcp", PAPER_17, "-o", graph, "--prune", "none")
    assert code == ExitCode.OK and "clues are not encoded" in out
    solution = parse_grid(PAPER_17_SOLUTION).values
    swapped = Grid(np.where(solution == 1, 2, np.where(solution == 2, 1, solution)))
    solution_tour(graph, swapped, tour)
    code, out, err = run("decode", "hcp", graph, tour)
    assert code == ExitCode.MISMATCH and "invalid:" in err and out == ""   # no grid printed
    code, out, _ = run("decode", "hcp", graph, tour, "--json")
    record = json.loads(out)
    assert code == ExitCode.MISMATCH and record["status"] == "invalid"
    assert record["solutions"] == [] and any("puzzle gives" in p for p in record["problems"])


def test_concorde_tours_are_accepted(run, tmp_path):
    graph, tour = tmp_path / "g.hcp", tmp_path / "g.sol"
    assert run("emit", "hcp", PAPER_17, "-o", graph, "--reduce", "--prune", "peers")[0] == 0
    pipeline, _ = load_hcp_export(graph)
    order = pipeline.tour_of_solution(parse_grid(PAPER_17_SOLUTION))
    lines = [str(order.size)] + [" ".join(map(str, order[i:i + 10]))
                                 for i in range(0, order.size, 10)]
    tour.write_text("\n".join(lines) + "\n")
    code, out, _ = run("decode", "hcp", graph, tour)
    assert code == ExitCode.OK and parse_grid(out) == parse_grid(PAPER_17_SOLUTION)


def test_a_4x4_file_with_one_puzzle(run, tmp_path):
    puzzle_file = tmp_path / "p.txt"
    puzzle_file.write_text((INSTANCES / "4x4.txt").read_text().splitlines()[2] + "\n")
    code, out, _ = run("emit", "hcp", puzzle_file, "-o", tmp_path / "g.hcp", "--stats")
    assert code == ExitCode.OK and "474" in out and "1,258" in out


@pytest.mark.parametrize("options", [["--reduce", "--prune", "peers"], ["--prune", "paper"]])
def test_a_tour_found_by_the_exact_solver_decodes(run, tmp_path, options):
    """A tour from a real solver (solvers/hamiltonian/), not from the forward map."""
    import solvers.hamiltonian as hcp
    puzzle = format_grid(instance_puzzles("4x4.txt")[1])
    graph, tour = tmp_path / "g.hcp", tmp_path / "g.tour"
    assert run("emit", "hcp", puzzle, "-o", graph, *options)[0] == ExitCode.OK
    n, edges = read_hcp(graph)
    result = hcp.solve_undirected_hcp(n, edges, time_limit=120)
    assert result.status == "hamiltonian"
    write_tour(tour, result.cycle, "found")
    code, out, _ = run("decode", "hcp", graph, tour)
    assert code == ExitCode.OK
    solved = parse_grid(out)
    assert solved.is_full() and all(solved[r, c] == v
                                    for r, c, v in parse_grid(puzzle).clues())
