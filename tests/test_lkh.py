"""The LKH-3 bridge (solvers/lkh.py).

The parameter file and the problem file are checked against the formats LKH reads, always.
Runs need LKH: an ``LKH`` binary on PATH, or the ``elkai`` package (which bundles LKH-3);
those tests skip with the reason otherwise. LKH is a heuristic: it may only ever answer
"hamiltonian" (checked) or "unknown".
"""

from __future__ import annotations

import shutil
import stat

import numpy as np
import pytest

from reductions.grid import Grid, Shape, check_solution
from reductions.hcp_pipeline import HcpOptions, build_hcp_pipeline
from solvers.formats.tsplib import read_hcp
from solvers.hcp import CycleStatus
from solvers.lkh import (LKH_NAMES, LkhError, elkai_available, find_lkh, lkh_parameters,
                         solve_hcp_lkh, write_lkh_parameters)
from solvers.sat import SolverUnavailable

LKH_BINARY = next((shutil.which(name) for name in LKH_NAMES if shutil.which(name)), None)
needs_binary = pytest.mark.skipif(LKH_BINARY is None,
                                  reason=f"no LKH binary on PATH (tried {', '.join(LKH_NAMES)})")
needs_elkai = pytest.mark.skipif(not elkai_available(),
                                 reason="the elkai package (LKH-3 bundled) is not installed")
needs_any = pytest.mark.skipif(LKH_BINARY is None and not elkai_available(),
                               reason="neither an LKH binary nor elkai is available")


def ring_with_chords(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A Hamiltonian graph with its vertices shuffled: the ring 0..n-1 plus random chords."""
    rng = np.random.default_rng(seed)
    ring = np.array([(i, (i + 1) % n) for i in range(n)])
    chords = rng.integers(0, n, size=(n, 2))
    chords = chords[np.abs(chords[:, 0] - chords[:, 1]) > 1]
    perm = rng.permutation(n)
    return perm[np.concatenate([ring, chords])], perm


def petersen() -> np.ndarray:
    return np.array([(i, (i + 1) % 5) for i in range(5)] + [(i, i + 5) for i in range(5)]
                    + [(5 + i, 5 + (i + 2) % 5) for i in range(5)])


def parse_parameters(text: str) -> dict[str, str]:
    """LKH's parameter syntax: one ``KEY = VALUE`` per line."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        assert sep, f"not a KEY = VALUE line: {line!r}"
        assert key.strip() == key.strip().upper() and key.strip()
        out[key.strip()] = value.strip()
    return out


def test_parameter_file_format(tmp_path):
    path = tmp_path / "graph.par"
    write_lkh_parameters(path, "graph.hcp", "graph.tour", 12.5, seed=7, runs=2)
    params = parse_parameters(path.read_text())
    assert params == {"PROBLEM_FILE": "graph.hcp", "OUTPUT_TOUR_FILE": "graph.tour",
                      "OPTIMUM": "0", "STOP_AT_OPTIMUM": "YES", "RUNS": "2", "SEED": "7",
                      "TRACE_LEVEL": "1", "TIME_LIMIT": "12.50"}
    assert "TIME_LIMIT" not in parse_parameters(lkh_parameters("g.hcp", None, None))
    assert "OUTPUT_TOUR_FILE" not in parse_parameters(lkh_parameters("g.hcp", None, 3))


def test_problem_file_is_the_hcp_lkh_reads(tmp_path):
    """The bridge writes TSPLIB HCP with EDGE_LIST (the section LKH reads correctly)."""
    edges, _ = ring_with_chords(30, 1)
    keep = tmp_path / "work"
    if LKH_BINARY is None and not elkai_available():
        pytest.skip("the files are written only when LKH can run")
    solve_hcp_lkh(30, edges, time_limit=10, keep_dir=keep)
    text = (keep / "graph.hcp").read_text()
    assert "TYPE : HCP" in text and "EDGE_DATA_FORMAT : EDGE_LIST" in text
    n, read_back = read_hcp(keep / "graph.hcp")
    assert n == 30
    assert {tuple(sorted(e)) for e in read_back.tolist()} == \
        {tuple(sorted(e)) for e in edges.tolist() if e[0] != e[1]}


def test_missing_binary_is_a_clear_error():
    with pytest.raises(SolverUnavailable, match="not found"):
        find_lkh("/nonexistent/LKH")
    with pytest.raises(SolverUnavailable, match="not found"):
        solve_hcp_lkh(3, [(0, 1), (1, 2), (2, 0)], binary="/nonexistent/LKH")


def test_a_binary_that_fails_is_reported(tmp_path):
    """A program that exits non-zero without a tour is an LKH failure (one clear error); one
    that exits 0 without a tour gives 'unknown'."""
    edges, _ = ring_with_chords(10, 2)
    with pytest.raises(LkhError, match="exited with code 1 and wrote no tour"):
        solve_hcp_lkh(10, edges, time_limit=5, binary=shutil.which("false"))
    result = solve_hcp_lkh(10, edges, time_limit=5, binary=shutil.which("true"))
    assert result.status == CycleStatus.UNKNOWN and "no tour" in result.stats["reason"]


def test_a_slow_binary_hits_the_time_limit(tmp_path):
    script = tmp_path / "slow-lkh"
    script.write_text("#!/bin/sh\nsleep 30\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    edges, _ = ring_with_chords(10, 3)
    result = solve_hcp_lkh(10, edges, time_limit=0.5, binary=str(script))
    assert result.status == CycleStatus.UNKNOWN and "time limit" in result.stats["reason"]


@needs_binary
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_binary_finds_a_hamiltonian_cycle(seed):
    edges, _ = ring_with_chords(60, seed)
    result = solve_hcp_lkh(60, edges, time_limit=20, backend="binary")
    assert result.status == CycleStatus.HAMILTONIAN and result.stats["tour_cost"] == 0
    steps = {frozenset(p) for p in zip(result.cycle.tolist(), np.roll(result.cycle, -1).tolist())}
    assert steps <= {frozenset(e) for e in edges.tolist()}
    assert sorted(result.cycle.tolist()) == list(range(60))


@needs_elkai
def test_elkai_finds_a_hamiltonian_cycle():
    edges, _ = ring_with_chords(40, 4)
    result = solve_hcp_lkh(40, edges, time_limit=20, backend="elkai")
    assert result.status == CycleStatus.HAMILTONIAN and result.stats["lkh"] == "elkai"


@needs_any
def test_lkh_never_claims_no_cycle():
    """Petersen has no Hamiltonian cycle: LKH's best tour costs ≥ 1, the answer is unknown."""
    result = solve_hcp_lkh(10, petersen(), time_limit=5)
    assert result.status == CycleStatus.UNKNOWN and result.cycle is None
    assert result.stats["tour_cost"] >= 1 and "cost" in result.stats["reason"]


@needs_any
def test_lkh_on_a_4x4_sudoku_graph():
    """A 4×4 puzzle with clues: the pruned undirected graph is small enough for LKH here (on
    the blank 4×4 graph and on 9×9 graphs LKH finds no Hamiltonian cycle: see the benchmark
    notes). Whatever it answers must be right: a decoded grid is verified."""
    values = np.array([[0, 0, 0, 0], [1, 0, 4, 0], [0, 0, 3, 0], [4, 0, 0, 2]])
    puzzle = Grid(values, Shape(2, 2))
    pipeline = build_hcp_pipeline(puzzle, HcpOptions(directed=False, prune="peers"))
    result = solve_hcp_lkh(pipeline.num_vertices, pipeline.edges, time_limit=20)
    assert result.status in (CycleStatus.HAMILTONIAN, CycleStatus.UNKNOWN)
    if result.status == CycleStatus.HAMILTONIAN:
        assert check_solution(puzzle, pipeline.decode(result.cycle))
