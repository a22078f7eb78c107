"""The linkern bridge (solvers/tools/linkern.py) and the ``linkern`` route, with fake linkern
programs: real processes (shell scripts the tests write, marked) that take linkern's command
line, read the edge file it names and write linkern's ``-o`` edge list (``n n``, then ``u v w``
in tour order, 0-based). They give a Hamiltonian cycle, a tour that is not one, garbage,
nothing, crash, hang past the limit, or hang after writing a tour: the bridge answers with a
checked cycle, "unknown" or a one-line error (never "no solution"), and nothing it started
is left running. The real linkern's runs are in tests/solvers/formats/test_hcp_formats.py (skipped when it is
not on PATH).
"""

from __future__ import annotations

import numpy as np
import pytest

from reductions.sudoku.grid import format_grid
from reductions.hamiltonian.hcp_pipeline import HcpOptions, build_hcp_pipeline
from solvers.cli import ExitCode
from solvers.formats.graph_files import write_concorde_edges
from solvers.hamiltonian import CycleStatus, normalized_graph
from solvers.tools.linkern import LinkernError, _inner_limit, linkern_command, solve_hcp_linkern

from tests.conftest import instance_pairs
from tests.processes import wait_until

PUZZLE, SOLUTION = instance_pairs("4x4.txt")[0]

# A fake linkern's preamble: $OUT is its -o file, $CPU its -t, $GRAPH the edge file (the last
# argument), $N the number of vertices (the file's first number).
PREAMBLE = r"""
for arg; do
    case "$prev" in -o) OUT="$arg" ;; -t) CPU="$arg" ;; esac
    prev="$arg"
    GRAPH="$arg"
done
N=$(head -n 1 "$GRAPH" | cut -d " " -f 1)
write_ring() {    # the tour 0, 1, ..., N-1 (a Hamiltonian cycle only of that ring)
    { echo "$N $N"; i=0
      while [ "$i" -lt "$N" ]; do echo "$i $(( (i + 1) % N )) 0"; i=$((i + 1)); done
    } > "$OUT"
    echo "Overall Best Cycle: 0.00"
}
"""


def fake_linkern(fakes, name: str, body: str) -> str:
    return str(fakes.script(name, PREAMBLE + body))


def ring(n: int) -> np.ndarray:
    return np.array([(i, (i + 1) % n) for i in range(n)])


def shuffled_ring(n: int, seed: int) -> np.ndarray:
    """A Hamiltonian graph on which 0, 1, ..., n-1 is not a cycle."""
    rng = np.random.default_rng(seed)
    return rng.permutation(n)[ring(n)]


def nothing_left(fakes) -> bool:
    """Nothing carrying the fakes' marker runs (a killed process takes a moment to go)."""
    return wait_until(lambda: fakes.running() == [], 2)


# ----------------------------------------------------------------------------- the bridge

COPY_INPUTS = r"""
printf '%s\n' "$@" > "$COPY_TO/args"
cp "$GRAPH" "$COPY_TO/graph.edg"
"""


def test_linkern_gets_its_command_line_and_the_edge_file(fakes, tmp_path, monkeypatch):
    monkeypatch.setenv("COPY_TO", str(tmp_path))
    binary = fake_linkern(fakes, "copy-linkern", COPY_INPUTS)
    edges = shuffled_ring(12, 1)
    result = solve_hcp_linkern(12, edges, time_limit=20, binary=binary, seed=7)
    assert result.status == CycleStatus.UNKNOWN and result.stats["reason"] == \
        f"linkern ({binary}) gave no tour"
    assert (tmp_path / "args").read_text().splitlines() == linkern_command(
        binary, "graph.edg", "graph.lk", seed=7, cpu_seconds=_inner_limit(20))[1:]
    expected = tmp_path / "expected.edg"          # the graph as the bridge hands it on
    write_concorde_edges(expected, 12, normalized_graph(12, edges, directed=False))
    assert (tmp_path / "graph.edg").read_bytes() == expected.read_bytes()
    assert nothing_left(fakes)


def test_a_hamiltonian_cycle_is_checked_and_kept(fakes):
    binary = fake_linkern(fakes, "ring-linkern", "write_ring\n")
    result = solve_hcp_linkern(15, ring(15), time_limit=20, binary=binary)
    assert result.status == CycleStatus.HAMILTONIAN
    assert sorted(result.cycle.tolist()) == list(range(15))
    steps = {frozenset(p) for p in zip(result.cycle.tolist(),
                                       np.roll(result.cycle, -1).tolist())}
    assert steps == {frozenset(e) for e in ring(15).tolist()}
    assert result.stats["exit_code"] == 0 and result.stats["reported_length"] == 0.0
    assert nothing_left(fakes)


def test_a_tour_that_is_not_a_cycle_of_the_graph_is_unknown(fakes):
    """linkern's own length says 0, the tour uses non-edges: the check decides, unknown."""
    binary = fake_linkern(fakes, "liar-linkern", "write_ring\n")
    result = solve_hcp_linkern(15, shuffled_ring(15, 2), time_limit=20, binary=binary)
    assert result.status == CycleStatus.UNKNOWN and result.cycle is None
    assert result.stats["non_edges_in_tour"] >= 1
    assert "linkern's best tour uses" in result.stats["reason"]


@pytest.mark.parametrize("body, message", [
    ('echo "hello" > "$OUT"\n', r"linkern's tour file line 1: .*'hello'"),
    ('write_ring\nsed -i "3s/.*/7 8 0/" "$OUT"\n', r"linkern's tour file line 3: .*'7 8'"),
    ('echo "$N $N" > "$OUT"\n', r"linkern's tour file"),
    ("kill -s SEGV $$\n", r"linkern \(.*\) was killed by SIGSEGV without a tour"),
    ('echo "cannot read $GRAPH" >&2\nexit 1\n',
     r"linkern \(.*\) exited with code 1 without a tour: cannot read graph\.edg"),
])
def test_garbage_or_a_crash_is_a_one_line_error(fakes, body, message):
    binary = fake_linkern(fakes, "bad-linkern", body)
    with pytest.raises(LinkernError, match=message) as caught:
        solve_hcp_linkern(10, ring(10), time_limit=20, binary=binary)
    assert "\n" not in str(caught.value)
    assert nothing_left(fakes)


def test_a_hanging_linkern_is_killed_at_the_limit(fakes):
    binary = fake_linkern(fakes, "hang-linkern", "$SLEEP 300 &\n$SLEEP 300\n")
    result = solve_hcp_linkern(10, ring(10), time_limit=1, binary=binary)
    assert result.status == CycleStatus.UNKNOWN and result.stats["exit_code"] is None
    assert result.stats["reason"] == \
        f"time limit 1 s reached before linkern ({binary}) gave a tour"
    assert nothing_left(fakes)                   # the sleeper in the background too


def test_the_tour_of_a_linkern_killed_at_the_limit_is_read(fakes):
    binary = fake_linkern(fakes, "tour-then-hang-linkern", "write_ring\n$SLEEP 300\n")
    found = solve_hcp_linkern(10, ring(10), time_limit=1, binary=binary)
    assert found.status == CycleStatus.HAMILTONIAN and found.stats["exit_code"] is None
    half = fake_linkern(fakes, "half-tour-linkern",
                        'echo "$N $N" > "$OUT"\necho "0 1 0" >> "$OUT"\n$SLEEP 300\n')
    cut = solve_hcp_linkern(10, ring(10), time_limit=1, binary=half)
    assert cut.status == CycleStatus.UNKNOWN
    assert cut.stats["reason"] == f"time limit 1 s reached while linkern ({half}) wrote its tour"
    assert nothing_left(fakes)


# ----------------------------------------------------------------------------- the route

def solution_tour(tmp_path) -> str:
    """The 4×4 puzzle's solution as a tour of the graph the linkern route builds, in
    linkern's -o form."""
    pipeline = build_hcp_pipeline(PUZZLE, HcpOptions(directed=False, prune="peers",
                                                     reduce=True))
    order = pipeline.tour_of_solution(SOLUTION)
    path = tmp_path / "solution.lk"
    path.write_text(f"{len(order)} {len(order)}\n" + "".join(
        f"{u} {v} 0\n" for u, v in zip(order, np.roll(order, -1))))
    return str(path)


def test_linkern_through_the_command_line(fakes, tmp_path, run):
    """``solve --via hcp --hcp-solver linkern`` on the graph of the linkern route: linkern's
    cycle becomes the solved grid (0); a tour with non-edges or a hang is unknown (3); a crash
    or garbage one line and 2 — never 1."""
    cases = {"solves": (f'cp {solution_tour(tmp_path)} "$OUT"\n', ExitCode.OK),
             "nonedge": ("write_ring\n", ExitCode.UNKNOWN),
             "hang": ("$SLEEP 300\n", ExitCode.UNKNOWN),
             "crash": ("kill -s SEGV $$\n", ExitCode.BAD_INPUT),
             "garbage": ('echo garbage > "$OUT"\n', ExitCode.BAD_INPUT)}
    for name, (body, expected) in cases.items():
        binary = fake_linkern(fakes, f"{name}-linkern", body)
        code, out, err = run("solve", format_grid(PUZZLE, "line"), "--via", "hcp",
                             "--hcp-solver", "linkern", "--prune", "peers", "--reduce",
                             "--linkern-binary", binary, "--time-limit", 3)
        assert code == expected, (name, out, err)
        if expected == ExitCode.OK:
            assert "".join(c for c in out if c.isdigit()) == format_grid(SOLUTION, "line")
        elif expected == ExitCode.UNKNOWN:
            assert out.startswith("unknown"), (name, out)
        else:
            assert out == "" and err.startswith("sudoku-bridge: error: ") \
                and err.count("\n") == 1, (name, err)
    assert nothing_left(fakes)
