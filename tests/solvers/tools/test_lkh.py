"""The LKH-3 bridge (solvers/tools/lkh.py) and the ``lkh`` route.

Always run (no LKH needed): the parameter file's format; the bridge writes byte for byte the
file ``emit hcp`` writes, and RUNS/SEED reach the parameter file (a fake LKH, a real shell
script, copies what it is given); fake LKH programs written by the tests — real processes —
that hang, hang after writing a tour, crash, write garbage, write a tour with non-edges, or do
not know TOTAL_TIME_LIMIT: "unknown" (exit 3) or a one-line error (exit 2), never "no
solution", and nothing left running. With a real ``LKH`` binary on PATH (or the elkai
package, which bundles LKH-3): round trips on reduced 4×4 and 9×9 puzzles, the time limit on
a graph without a Hamiltonian cycle; those skip with the reason otherwise.
"""

from __future__ import annotations

import json
import shutil
import time

import numpy as np
import pytest

from reductions.errors import UserError
from reductions.sudoku.grid import Grid, check_solution, format_grid
from solvers.cli import ExitCode
from solvers.hamiltonian import CycleStatus
from solvers.routes.hcp import solve_puzzle as solve_hcp_puzzle
from solvers.outcome import SolverUnavailable, Status
from solvers.routes import ROUTES
from solvers.tools.lkh import (LKH_NAMES, SEARCH_KEYWORDS, LkhError, elkai_available,
                               find_lkh, lkh_parameters, solve_hcp_lkh, write_lkh_parameters)

from tests.conftest import instance_puzzles
from tests.processes import fakes, wait_until  # noqa: F401  (fakes: a fixture)

LKH_BINARY = next((shutil.which(name) for name in LKH_NAMES if shutil.which(name)), None)
needs_binary = pytest.mark.skipif(LKH_BINARY is None,
                                  reason=f"no LKH binary on PATH (tried {', '.join(LKH_NAMES)})")
needs_elkai = pytest.mark.skipif(not elkai_available(),
                                 reason="the elkai package (LKH-3 bundled) is not installed")
needs_any = pytest.mark.skipif(LKH_BINARY is None and not elkai_available(),
                               reason="neither an LKH binary nor elkai is available")

ROYLE_1 = format_grid(instance_puzzles("royle17-sample300.txt")[0], "line")


def ring_with_chords(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A Hamiltonian graph with its vertices shuffled: the ring 0..n-1 plus random chords."""
    rng = np.random.default_rng(seed)
    ring = np.array([(i, (i + 1) % n) for i in range(n)])
    chords = rng.integers(0, n, size=(n, 2))
    chords = chords[np.abs(chords[:, 0] - chords[:, 1]) > 1]
    perm = rng.permutation(n)
    return perm[np.concatenate([ring, chords])], perm


def ring(n: int) -> np.ndarray:
    return np.array([(i, (i + 1) % n) for i in range(n)])


def petersen() -> np.ndarray:
    return np.array([(i, (i + 1) % 5) for i in range(5)] + [(i, i + 5) for i in range(5)]
                    + [(5 + i, 5 + (i + 2) % 5) for i in range(5)])


def two_rings(n: int) -> np.ndarray:
    """Two rings of ``n`` vertices joined by one edge (a bridge): no Hamiltonian cycle."""
    return np.concatenate([ring(n), ring(n) + n, [(0, n)]])


def parse_parameters(text: str) -> dict[str, str]:
    """LKH's parameter syntax: one ``KEY = VALUE`` per line."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        assert sep, f"not a KEY = VALUE line: {line!r}"
        assert key.strip() == key.strip().upper() and key.strip()
        out[key.strip()] = value.strip()
    return out


# A fake LKH's preamble: $PAR is the parameter file, $PROBLEM and $TOUR the files it names,
# $N the DIMENSION of the problem.
PREAMBLE = r"""
PAR="$1"
PROBLEM=$(sed -n 's/^PROBLEM_FILE = //p' "$PAR")
TOUR=$(sed -n 's/^OUTPUT_TOUR_FILE = //p' "$PAR")
N=$(sed -n 's/^DIMENSION : //p' "$PROBLEM")
write_tour() {   # the vertices 1..N in order (a Hamiltonian cycle only of a ring 1..N)
    { echo "NAME : fake.tour"; echo "TYPE : TOUR"; echo "DIMENSION : $N";
      echo "TOUR_SECTION"; seq 1 "$N"; echo "-1"; echo "EOF"; } > "$TOUR"
}
"""


def nothing_left(fakes) -> bool:  # noqa: F811
    """Nothing carrying the fakes' marker runs any more (a killed process takes a moment to
    leave /proc)."""
    return wait_until(lambda: fakes.running() == [], 2)


def fake_lkh(fakes, name: str, body: str):  # noqa: F811
    return fakes.script(name, PREAMBLE + body)


# ----------------------------------------------------------------------------- files

def test_parameter_file_format(tmp_path):
    path = tmp_path / "graph.par"
    write_lkh_parameters(path, "graph.hcp", "graph.tour", time_limit=12.5, runs=2, seed=7)
    params = parse_parameters(path.read_text())
    assert params == {"PROBLEM_FILE": "graph.hcp", "OUTPUT_TOUR_FILE": "graph.tour",
                      "OPTIMUM": "0", "STOP_AT_OPTIMUM": "YES", "RUNS": "2",
                      "POPULATION_SIZE": "1", "SEED": "7", "TRACE_LEVEL": "1",
                      **SEARCH_KEYWORDS, "TOTAL_TIME_LIMIT": "12.50"}
    assert "TOTAL_TIME_LIMIT" not in parse_parameters(lkh_parameters("g.hcp", None))
    assert "OUTPUT_TOUR_FILE" not in parse_parameters(lkh_parameters("g.hcp", None,
                                                                     time_limit=3))
    old = parse_parameters(lkh_parameters("g.hcp", None, time_limit=12, runs=4,
                                          total_time_limit=False))
    assert old["TIME_LIMIT"] == "3.00" and "TOTAL_TIME_LIMIT" not in old


COPY_INPUTS = r"""
cp "$PROBLEM" "$COPY_TO/problem.hcp"
cp "$PAR" "$COPY_TO/params.par"
exit 0
"""


def test_bridge_writes_the_emitted_file_and_runs_seed(fakes, tmp_path, run,  # noqa: F811
                                                       monkeypatch):
    """The file LKH gets inside ``solve`` is byte for byte ``emit hcp``'s for the same
    options, and --lkh-runs/--lkh-seed and the time limits are in its parameter file."""
    monkeypatch.setenv("COPY_TO", str(tmp_path))
    lkh = fake_lkh(fakes, "copy-lkh", COPY_INPUTS)
    code, out, err = run("solve", ROYLE_1, "--via", "lkh", "--lkh-binary", lkh,
                         "--lkh-runs", 3, "--lkh-seed", 7, "--time-limit", 30)
    assert code == ExitCode.UNKNOWN and out.startswith("unknown"), (out, err)
    emitted = tmp_path / "emitted.hcp"
    assert run("emit", "hcp", ROYLE_1, "--prune", "peers", "--reduce", "-o", emitted)[0] == 0
    assert (tmp_path / "problem.hcp").read_bytes() == emitted.read_bytes()
    params = parse_parameters((tmp_path / "params.par").read_text())
    assert params["RUNS"] == "3" and params["SEED"] == "7" and params["OPTIMUM"] == "0"
    assert params["POPULATION_SIZE"] == "1"          # stop at the first cycle
    assert 20 < float(params["TOTAL_TIME_LIMIT"]) < 30
    assert nothing_left(fakes)


def test_lkh_options_are_checked(run):
    text = "." * 16
    code, out, err = run("solve", text, "--via", "hcp", "--lkh-runs", 2)
    assert code == ExitCode.BAD_INPUT and "--lkh-runs applies to --hcp-solver lkh only" in err
    with pytest.raises(UserError, match="--lkh-runs must be a positive integer, got 0"):
        solve_hcp_lkh(3, ring(3), runs=0)
    with pytest.raises(UserError, match=r"--lkh-seed must be an integer from 0 to 2\^32-1, "
                                        r"got -1"):
        solve_hcp_lkh(3, ring(3), seed=-1)


# ----------------------------------------------------------------------------- fake LKH

def test_missing_binary_is_a_clear_error():
    with pytest.raises(SolverUnavailable, match="not found"):
        find_lkh("/nonexistent/LKH")
    with pytest.raises(SolverUnavailable, match="not found"):
        solve_hcp_lkh(3, [(0, 1), (1, 2), (2, 0)], binary="/nonexistent/LKH")


def test_a_tour_with_non_edges_is_unknown(fakes):  # noqa: F811
    lkh = fake_lkh(fakes, "nonedge-lkh", "write_tour\nexit 0\n")
    edges, _ = ring_with_chords(12, 2)          # shuffled: 1..N is not a cycle of it
    result = solve_hcp_lkh(12, edges, time_limit=10, binary=str(lkh))
    assert result.status == CycleStatus.UNKNOWN and result.cycle is None
    assert result.stats["tour_cost"] >= 1 and "non-edge" in result.stats["reason"]
    ok = solve_hcp_lkh(12, ring(12), time_limit=10, binary=str(lkh))
    assert ok.status == CycleStatus.HAMILTONIAN and ok.stats["exit_code"] == 0


def test_garbage_and_crash_are_errors(fakes):  # noqa: F811
    garbage = fake_lkh(fakes, "garbage-lkh", 'printf "TOUR_SECTION\\n1 x 2\\n" > "$TOUR"\n')
    with pytest.raises(LkhError, match="tour file is unusable.*not an integer"):
        solve_hcp_lkh(10, ring(10), time_limit=10, binary=str(garbage))
    crash = fake_lkh(fakes, "crash-lkh", 'write_tour\nkill -SEGV $$\n')
    with pytest.raises(LkhError, match="killed by SIGSEGV"):
        solve_hcp_lkh(10, ring(10), time_limit=10, binary=str(crash))
    with pytest.raises(LkhError, match="exited with code 1"):
        solve_hcp_lkh(10, ring(10), time_limit=5, binary=shutil.which("false"))
    result = solve_hcp_lkh(10, ring(10), time_limit=5, binary=shutil.which("true"))
    assert result.status == CycleStatus.UNKNOWN and "no tour" in result.stats["reason"]


def test_a_hanging_lkh_is_killed_at_the_limit(fakes):  # noqa: F811
    hang = fake_lkh(fakes, "hang-lkh", "$SLEEP 300 &\n$SLEEP 300\n")
    start = time.monotonic()
    result = solve_hcp_lkh(10, ring(10), time_limit=1, binary=str(hang))
    assert time.monotonic() - start < 5
    assert result.status == CycleStatus.UNKNOWN
    assert "time limit 1 s reached before LKH wrote a tour" in result.stats["reason"]
    assert nothing_left(fakes)                   # the sleeper in the background too


def test_the_last_tour_of_a_killed_lkh_is_read(fakes):  # noqa: F811
    """LKH rewrites its tour file at each improvement: when we kill it at the limit, the
    tour it left is read — a cycle is an answer (checked), a tour with non-edges unknown."""
    lkh = fake_lkh(fakes, "tour-then-hang-lkh", "write_tour\n$SLEEP 300\n")
    found = solve_hcp_lkh(10, ring(10), time_limit=1, binary=str(lkh))
    assert found.status == CycleStatus.HAMILTONIAN and found.stats["exit_code"] is None
    edges, _ = ring_with_chords(10, 5)
    result = solve_hcp_lkh(10, edges, time_limit=1, binary=str(lkh))
    assert result.status == CycleStatus.UNKNOWN and result.stats["tour_cost"] >= 1
    assert result.stats["reason"].startswith("time limit 1 s reached; LKH's best tour uses")
    half = fake_lkh(fakes, "half-tour-lkh",
                    'printf "TOUR_SECTION\\n1\\n2\\n" > "$TOUR"\n$SLEEP 300\n')
    cut = solve_hcp_lkh(10, ring(10), time_limit=1, binary=str(half))
    assert cut.status == CycleStatus.UNKNOWN and "unusable" in cut.stats["reason"]
    assert nothing_left(fakes)


def test_an_lkh_without_total_time_limit_gets_time_limit(fakes):  # noqa: F811
    old = fake_lkh(fakes, "old-lkh", r"""
if grep -q '^TOTAL_TIME_LIMIT' "$PAR"; then
    echo; echo "*** Error ***"; echo "Unknown keyword: TOTAL_TIME_LIMIT"; exit 1
fi
grep -q '^TIME_LIMIT = ' "$PAR" || exit 5
write_tour
""")
    result = solve_hcp_lkh(10, ring(10), time_limit=10, binary=str(old), runs=2)
    assert result.status == CycleStatus.HAMILTONIAN
    assert result.stats["lkh_time_limit"][0] == "TIME_LIMIT (per run)"


def test_cli_exit_codes_with_fake_lkh(fakes, run):  # noqa: F811
    """Through ``solve``: a tour with non-edges and a hang are unknown (3), a crash or
    garbage one line and 2 — never 1 (no solution)."""
    cases = {"nonedge": ("write_tour\n", ExitCode.UNKNOWN),
             "hang": ("$SLEEP 300\n", ExitCode.UNKNOWN),
             "crash": ("kill -SEGV $$\n", ExitCode.BAD_INPUT),
             "garbage": ('echo garbage > "$TOUR"\n', ExitCode.BAD_INPUT)}
    for name, (body, expected) in cases.items():
        lkh = fake_lkh(fakes, f"{name}-lkh", body)
        code, out, err = run("solve", ROYLE_1, "--via", "lkh", "--lkh-binary", lkh,
                             "--time-limit", 2)
        assert code == expected, (name, out, err)
        assert out == "" or out.startswith("unknown"), (name, out)
        if expected == ExitCode.BAD_INPUT:
            assert len(err.strip().splitlines()) == 1 and "sudoku-bridge: error:" in err
    assert nothing_left(fakes)


# ----------------------------------------------------------------------------- route

def test_lkh_route_is_registered():
    route = ROUTES["lkh"]
    assert {"lkh_runs", "lkh_seed", "lkh_binary"} <= route.options
    reason = route.unavailable()
    assert (reason is None) == (LKH_BINARY is not None or elkai_available())
    if reason:
        assert "no LKH binary on PATH" in reason and "elkai" in reason


# ----------------------------------------------------------------------------- real LKH

@needs_binary
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_binary_finds_a_hamiltonian_cycle(seed):
    edges, _ = ring_with_chords(60, seed)
    result = solve_hcp_lkh(60, edges, time_limit=20, backend="binary")
    assert result.status == CycleStatus.HAMILTONIAN and result.stats["tour_cost"] == 0
    steps = {frozenset(p) for p in zip(result.cycle.tolist(), np.roll(result.cycle, -1).tolist())}
    assert steps <= {frozenset(e) for e in edges.tolist()}
    assert sorted(result.cycle.tolist()) == list(range(60))
    assert result.stats["lkh_time_limit"][0] == "TOTAL_TIME_LIMIT"


@needs_elkai
def test_elkai_finds_a_hamiltonian_cycle():
    edges, _ = ring_with_chords(40, 4)
    result = solve_hcp_lkh(40, edges, time_limit=20, backend="elkai")
    assert result.status == CycleStatus.HAMILTONIAN and result.stats["lkh"] == "elkai"
    assert result.stats["lkh_time_limit"][0] == "TOTAL_TIME_LIMIT"


@needs_any
def test_lkh_never_claims_no_cycle():
    """Petersen has no Hamiltonian cycle: LKH's best tour costs ≥ 1, the answer is unknown."""
    result = solve_hcp_lkh(10, petersen(), time_limit=5)
    assert result.status == CycleStatus.UNKNOWN and result.cycle is None
    assert result.stats["tour_cost"] >= 1 and "cost" in result.stats["reason"]


@needs_binary
def test_real_lkh_stops_at_its_total_time_limit():
    """No Hamiltonian cycle (a bridge): LKH searches until TOTAL_TIME_LIMIT, writes its best
    tour and exits by itself before our limit (on a loaded machine its CPU clock may lag our
    wall clock: then we kill it and read the tour it left)."""
    start = time.monotonic()
    result = solve_hcp_lkh(2000, two_rings(1000), time_limit=3, backend="binary")
    assert time.monotonic() - start < 4.5
    assert result.status == CycleStatus.UNKNOWN
    if result.stats["exit_code"] == 0:
        # The best tour crosses the bridge once and comes back by one non-edge: cost 1.
        assert result.stats["tour_cost"] >= 1


@needs_any
def test_lkh_solves_a_reduced_4x4_puzzle(run):
    text = format_grid(instance_puzzles("4x4.txt")[0], "line")
    code, out, err = run("solve", text, "--via", "lkh", "--time-limit", 30, "--json")
    assert code == ExitCode.OK, err
    record = json.loads(out)
    assert record["status"] == "solved" and record["stats"]["solver"]["tour_cost"] == 0


def half_emptied(solution: Grid, seed: int) -> Grid:
    """The solution with half of its cells emptied (a solvable puzzle with many clues)."""
    values = solution.values.copy()
    cells = np.random.default_rng(seed).permutation(values.size)[: values.size // 2]
    values.ravel()[cells] = 0
    return Grid(values, solution.shape)


@needs_binary
@pytest.mark.parametrize("name", ["haythorpe-17clue.solution.txt", "16x16.solutions.txt"])
def test_lkh_solves_reduced_9x9_and_16x16_puzzles(name):
    """LKH finds these cycles in a few seconds (17-clue 9×9 graphs it does not: see
    benchmarks/results/lkh_params.md)."""
    puzzle = half_emptied(instance_puzzles(name)[0], 1) if name.startswith("haythorpe") \
        else instance_puzzles("16x16.txt")[0]
    outcome = solve_hcp_puzzle(puzzle, graph="undirected", prune="peers", reduce=True,
                               hcp_solver="lkh", time_limit=60)
    assert outcome.status == Status.SOLVED, outcome.stats["solver"]
    assert check_solution(puzzle, outcome.grid)
