"""The Concorde bridge (solvers/tools/concorde.py).

Concorde is not installable here (academic licence), so its runs are tested only where a
``concorde`` binary is on PATH; the edge-file writer, the command line, the reading of its
solution files and the cost-0 acceptance are tested always, against the formats Concorde
uses: a ``-N 10`` sparse edge file (``ncount ecount`` then ``u v w``, 0-based) and the
``-o`` solution file (``ncount`` then the node order, 0-based, ten per line).
"""

from __future__ import annotations

import shutil
import stat

import numpy as np
import pytest

from solvers.formats.graph_files import write_concorde_edges
from solvers.formats.tsplib import read_tour
from solvers.hamiltonian import CycleStatus, normalized_graph
from solvers.outcome import SolverUnavailable
from solvers.tools.concorde import (SPARSE_NORM, concorde_command, find_concorde,
                                    solve_hcp_concorde)
from solvers.tools.tour_programs import heuristic_tour_result

CONCORDE = shutil.which("concorde")
needs_concorde = pytest.mark.skipif(CONCORDE is None, reason="no concorde binary on PATH "
                                                              "(Concorde is not packaged)")


def ring_with_chords(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ring = np.array([(i, (i + 1) % n) for i in range(n)])
    chords = rng.integers(0, n, size=(n // 2, 2))
    chords = chords[np.abs(chords[:, 0] - chords[:, 1]) > 1]
    return rng.permutation(n)[np.concatenate([ring, chords])]


def test_sparse_edge_file_format(tmp_path):
    edges = ring_with_chords(25, 1)
    path = tmp_path / "g.edg"
    write_concorde_edges(path, 25, edges)
    lines = path.read_text().splitlines()
    assert lines[0].split() == ["25", str(len(edges))]
    rows = np.array([[int(t) for t in line.split()] for line in lines[1:]])
    assert rows.shape == (len(edges), 3)
    assert np.array_equal(rows[:, :2], edges)              # 0-based, in the given order
    assert np.all(rows[:, 2] == 0)                          # weight 0 on every edge
    assert rows[:, :2].min() >= 0 and rows[:, :2].max() <= 24


def test_edge_file_of_an_empty_graph_and_other_weight(tmp_path):
    path = tmp_path / "g.edg"
    write_concorde_edges(path, 4, np.zeros((0, 2)))
    assert path.read_text() == "4 0\n"
    write_concorde_edges(path, 3, [(0, 1), (1, 2)], weight=5)
    assert path.read_text() == "3 2\n0 1 5\n1 2 5\n"


def test_command_line():
    args = concorde_command("/opt/concorde", "g.edg", "g.sol", seed=3)
    assert args[0] == "/opt/concorde" and args[-1] == "g.edg"
    assert args[args.index("-N") + 1] == str(SPARSE_NORM) == "10"
    assert args[args.index("-o") + 1] == "g.sol" and "-x" not in args   # -x: exit 255
    assert args[args.index("-s") + 1] == "3"
    assert "-s" not in concorde_command("c", "g.edg", "g.sol", seed=None)


def write_solution(path, order):
    """A solution file as Concorde's -o writes it: the count, then ten ids per line."""
    order = list(order)
    lines = [str(len(order))] + [" ".join(map(str, order[i:i + 10]))
                                 for i in range(0, len(order), 10)]
    path.write_text("\n".join(lines) + "\n")


def test_solution_file_is_read_and_checked(tmp_path):
    n = 23
    ring = np.array([(i, (i + 1) % n) for i in range(n)])
    edges = normalized_graph(n, ring, directed=False)
    sol = tmp_path / "g.sol"
    order = np.roll(np.arange(n), 5)[::-1]                 # rotated and reversed
    write_solution(sol, order)
    read = read_tour(sol, n)
    assert np.array_equal(read, order)
    result = heuristic_tour_result(n, edges, read, {}, "Concorde", "non_edges_in_tour")
    assert result.status == CycleStatus.HAMILTONIAN and np.array_equal(result.cycle, order)
    # A tour using two pairs that are not edges (cost > 0): unknown, never a cycle.
    bad = order.copy()
    bad[[0, 3]] = bad[[3, 0]]
    result = heuristic_tour_result(n, edges, bad, {}, "Concorde", "non_edges_in_tour")
    assert result.status == CycleStatus.UNKNOWN and result.stats["non_edges_in_tour"] > 0


def test_missing_binary_is_a_clear_error():
    with pytest.raises(SolverUnavailable, match="not found"):
        find_concorde("/nonexistent/concorde")
    if CONCORDE is None:
        with pytest.raises(SolverUnavailable, match="no concorde binary"):
            solve_hcp_concorde(3, [(0, 1), (1, 2), (2, 0)])


def test_a_program_without_solution_file(tmp_path):
    """Exit 0 without a solution file: unknown; non-zero: one clear error."""
    from solvers.tools.concorde import ConcordeError
    edges = ring_with_chords(12, 2)
    result = solve_hcp_concorde(12, edges, binary=shutil.which("true"))
    assert result.status == CycleStatus.UNKNOWN and "no tour" in result.stats["reason"]
    with pytest.raises(ConcordeError, match="exited with code 1 and wrote no tour"):
        solve_hcp_concorde(12, edges, binary=shutil.which("false"))


def test_time_limit(tmp_path):
    script = tmp_path / "slow-concorde"
    script.write_text("#!/bin/sh\nsleep 30\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    result = solve_hcp_concorde(12, ring_with_chords(12, 3), time_limit=0.5,
                                binary=str(script))
    assert result.status == CycleStatus.UNKNOWN and "time limit" in result.stats["reason"]


@needs_concorde
@pytest.mark.parametrize("seed", [1, 2])
def test_concorde_finds_a_hamiltonian_cycle(seed):
    edges = ring_with_chords(40, seed)
    result = solve_hcp_concorde(40, edges, time_limit=120)
    assert result.status == CycleStatus.HAMILTONIAN
    steps = {frozenset(p) for p in zip(result.cycle.tolist(), np.roll(result.cycle, -1).tolist())}
    assert steps <= {frozenset(e) for e in edges.tolist()}


@needs_concorde
def test_concorde_proves_petersen_has_no_cycle():
    """Concorde is exact: its optimum 10 (one non-edge of default length 10) is a proof."""
    petersen = np.array([(i, (i + 1) % 5) for i in range(5)] + [(i, i + 5) for i in range(5)]
                        + [(5 + i, 5 + (i + 2) % 5) for i in range(5)])
    result = solve_hcp_concorde(10, petersen, time_limit=120)
    assert result.status == CycleStatus.NO_CYCLE, result.stats
    assert result.stats["reported_optimum"] == 10 and result.stats["non_edges_in_tour"] == 1
