"""Certified "no Hamiltonian cycle" (solvers/certify/hamiltonian.py): real solvers, real proofs,
real checker processes. Each tamper is first shown to matter: without the re-check, the
tampered cut would get a false "no cycle" certified.

drat-trim and cake_lpr are built from source (their tests skip without them); dratify comes
with the ``certify`` extra, so CI certifies for real through it."""

from __future__ import annotations

import importlib.util
import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from solvers.certify import hamiltonian as certify_hcp
from solvers.certify.checkers import CheckerUnavailable, check_proof, find_checker
from solvers.certify.hamiltonian import (GRAPH_CHECK, CutRejected, certified_arcs,
                                         certify_no_cycle, cut_problem, model_clauses)
from solvers.certify.refutation import CertifyOptions
from solvers.outcome import WrongAnswer

from tests.conftest import INSTANCES
from tests.solvers.certify.checkers import (MEMORY, NEEDS_DRATIFY, checker,  # noqa: F401
                                            assert_empty_proof_rejected, checker_or_skip)
from tests.processes import script
from tests.solvers.cli.test_hamiltonian import PETERSEN, PRISM, brute_force, col_file

MEMORY = 1 << 30
K34 = [(a, b) for a in range(3) for b in range(3, 7)]     # bipartite, sides 3 and 4

pytestmark = pytest.mark.skipif(importlib.util.find_spec("dratify") is None,
                                reason="dratify not installed (pip install '.[certify]'): "
                                       "every test here checks through it at least")


def options(checker, keep=None) -> CertifyOptions:
    return CertifyOptions(checker, MEMORY, keep)


def has_cycle(n: int, arcs) -> bool:
    """Brute force over every order (n ≤ 8), directed."""
    have = {tuple(a) for a in np.asarray(arcs).tolist()}
    return any(all((o[i], o[(i + 1) % n]) in have for i in range(n))
               for o in ((0, *rest) for rest in itertools.permutations(range(1, n))))


# ----------------------------------------------------------------------------- certified "no"

@pytest.mark.parametrize("graph, n", [(PETERSEN, 10), (K34, 7)])
def test_no_cycle_is_certified_by_each_checker(graph, n, checker):
    added = certify_no_cycle(n, graph, directed=False, certify=options(checker))
    assert added["certified"] == checker.name and added["proof_bytes"] > 0
    assert not brute_force(n, graph, False)


def test_petersen_file_certified_on_the_command_line(run, tmp_path):
    checker = find_checker()
    out_json = tmp_path / "r.jsonl"
    code, out, err = run("hamiltonian", INSTANCES / "graphs" / "petersen.col", "--certify",
                         "--keep-proofs", tmp_path, "--json", out_json)
    assert code == 1, err
    assert f"certified by {checker.name}" in out
    record = json.loads(out_json.read_text())
    assert record["certified"] == checker.name and record["cuts_checked"] > 0
    # The kept formula and proof check again on their own.
    again = check_proof(checker, tmp_path / "petersen.col.cnf", tmp_path / "petersen.col.drat",
                        work=tmp_path, time_limit=None, memory_limit=MEMORY, claim="kept")
    assert again.certified


def test_uncertified_no_cycle_says_whose_word(run, tmp_path):
    code, out, _ = run("hamiltonian", col_file(tmp_path / "k.col", 7, K34))
    assert code == 1 and "; uncertified)" in out and "certified by" not in out


@pytest.mark.parametrize("solver", ["sat", "cpsat"])
def test_bipartite_certified_whoever_answered(run, tmp_path, solver):
    """CP-SAT gives no cuts: the certificate finds its own, each re-checked."""
    pytest.importorskip("ortools") if solver == "cpsat" else None
    code, out, err = run("hamiltonian", col_file(tmp_path / "k.col", 7, K34), "--solver",
                         solver, "--certify", "--checker", "dratify")
    assert code == 1, err
    assert "certified by dratify" in out


def test_not_strongly_connected_is_a_graph_check():
    two_triangles = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]
    added = certify_no_cycle(6, two_triangles, directed=False,
                             certify=options(find_checker("dratify")))
    assert added["certified"] == GRAPH_CHECK and "not strongly connected" in added["reason"]


# ----------------------------------------------------------------------------- never a false "no"

def test_a_graph_with_a_cycle_is_never_certified_no_cycle():
    with pytest.raises(WrongAnswer, match="has a Hamiltonian cycle"):
        certify_no_cycle(6, PRISM, directed=False, certify=options(find_checker("dratify")))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 7).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                         min_size=n, max_size=3 * n))),
       st.booleans())
def test_certified_exactly_when_there_is_no_cycle(graph, directed):
    n, pairs = graph
    checker = find_checker("drat-trim") if _have("drat-trim") else find_checker("dratify")
    if brute_force(n, pairs, directed):
        with pytest.raises(WrongAnswer):
            certify_no_cycle(n, pairs, directed=directed, certify=options(checker))
    else:
        added = certify_no_cycle(n, pairs, directed=directed, certify=options(checker))
        assert added["certified"] in (checker.name, GRAPH_CHECK)


def _have(name: str) -> bool:
    try:
        find_checker(name)
    except CheckerUnavailable:
        return False
    return True


# ----------------------------------------------------------------------------- tampered cuts

# A digraph with one Hamiltonian cycle, 0→1→…→5→0, and chords no Hamiltonian cycle can use.
RING = [(i, (i + 1) % 6) for i in range(6)] + [(0, 3), (3, 0), (1, 4), (2, 0)]


def off_ring_cut(arcs: np.ndarray) -> list[int]:
    """"Some chord is used": false on the one Hamiltonian cycle; not the arcs leaving any set."""
    ring = {(i, (i + 1) % 6) for i in range(6)}
    return [e + 1 for e, arc in enumerate(arcs.tolist()) if tuple(arc) not in ring]


def test_the_ring_has_exactly_one_hamiltonian_cycle():
    arcs = certified_arcs(6, RING, directed=True)
    have = {tuple(a) for a in arcs.tolist()}
    cycles = [o for o in ((0, *r) for r in itertools.permutations(range(1, 6)))
              if all((o[i], o[(i + 1) % 6]) in have for i in range(6))]
    assert cycles == [(0, 1, 2, 3, 4, 5)]


def test_a_tampered_cut_would_certify_a_false_no_cycle(monkeypatch):
    """The tamper matters: with the cut re-check switched off, the bogus cut makes the
    Hamiltonian ring's formula unsatisfiable and a checker accepts the proof."""
    arcs = certified_arcs(6, RING, directed=True)
    monkeypatch.setattr(certify_hcp, "cut_problem", lambda *args: None)
    added = certify_no_cycle(6, RING, directed=True, cuts=[off_ring_cut(arcs)],
                             certify=options(find_checker("dratify")))
    assert added["certified"] == "dratify"      # a false certificate: what the re-check stops


def test_a_tampered_cut_is_rejected():
    arcs = certified_arcs(6, RING, directed=True)
    assert cut_problem(6, arcs, off_ring_cut(arcs)) is not None
    with pytest.raises(CutRejected, match="not a valid subtour-elimination constraint"):
        certify_no_cycle(6, RING, directed=True, cuts=[off_ring_cut(arcs)],
                         certify=options(find_checker("dratify")))


@given(st.integers(3, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                         min_size=1, max_size=4 * n),
    st.lists(st.integers(0, 4 * n), min_size=1, max_size=4 * n))))
@settings(max_examples=200, deadline=None)
def test_cut_check_agrees_with_every_vertex_set(case):
    """A clause passes exactly when it is the set of arcs leaving some ∅ ≠ T ≠ V (all sets
    tried)."""
    n, pairs, picks = case
    arcs = certified_arcs(n, pairs, directed=True)
    if len(arcs) == 0:
        return
    clause = sorted({p % len(arcs) + 1 for p in picks})
    leaving = set()
    for size in range(1, n):
        for subset in itertools.combinations(range(n), size):
            inside = np.zeros(n, dtype=bool)
            inside[list(subset)] = True
            leaving.add(tuple(np.flatnonzero(inside[arcs[:, 0]] & ~inside[arcs[:, 1]]) + 1))
    assert (cut_problem(n, arcs, clause) is None) == (tuple(clause) in leaving)


@pytest.mark.parametrize("clause, why", [([], "empty"), ([0], "not an arc"),
                                         ([99], "not an arc"), ([1, 1], "repeated")])
def test_malformed_cuts_are_refused(clause, why):
    assert why in cut_problem(6, certified_arcs(6, RING, directed=True), clause)


@pytest.mark.parametrize("sides", [(3, 12), (9, 10)])
def test_high_degrees_use_the_counter_and_stay_exact(sides):
    """Vertices past PAIRWISE_UP_TO arcs get the sequential counter: K3,12 (no cycle) is
    certified, K9,10 (no cycle either, odd sides) too, K10,10 never."""
    a, b = sides
    graph = [(u, a + v) for u in range(a) for v in range(b)]
    assert max(a, b) > certify_hcp.PAIRWISE_UP_TO
    checker = find_checker("dratify")
    assert certify_no_cycle(a + b, graph, directed=False,
                            certify=options(checker))["certified"] == "dratify"
    square = [(u, 10 + v) for u in range(10) for v in range(10)]
    with pytest.raises(WrongAnswer):
        certify_no_cycle(20, square, directed=False, certify=options(checker))


@pytest.mark.parametrize("seed", range(5))
def test_the_counter_allows_any_hamiltonian_cycle_of_a_complete_graph(seed):
    """Soundness of the sequential counter: a random Hamiltonian cycle of K12 (11 arcs out
    of every vertex) satisfies the model, its auxiliary variables found by the solver."""
    from pysat.solvers import Solver
    n = 12
    arcs = certified_arcs(n, [(u, v) for u in range(n) for v in range(n)], directed=True)
    clauses, _ = model_clauses(n, arcs)
    order = np.random.default_rng(seed).permutation(n).tolist()
    index = {tuple(a): e + 1 for e, a in enumerate(arcs.tolist())}
    used = {index[(order[i], order[(i + 1) % n])] for i in range(n)}
    with Solver(name="cadical195", bootstrap_with=clauses) as sat:
        assert sat.solve(assumptions=[e if e in used else -e for e in index.values()])


def test_the_model_alone_allows_every_hamiltonian_cycle():
    """Soundness of the rebuilt model: each of the prism's Hamiltonian cycles, both ways,
    satisfies every model clause (auxiliary variables aside, found by the solver)."""
    from pysat.solvers import Solver
    arcs = certified_arcs(6, PRISM, directed=False)
    clauses, _ = model_clauses(6, arcs)
    index = {tuple(a): e + 1 for e, a in enumerate(arcs.tolist())}
    orders = [o for o in ((0, *r) for r in itertools.permutations(range(1, 6)))
              if all(tuple(sorted((o[i], o[(i + 1) % 6]))) in set(map(tuple, PRISM))
                     or (o[i], o[(i + 1) % 6]) in set(PRISM)
                     for i in range(6))]
    assert orders
    for order in orders:
        used = {index[(order[i], order[(i + 1) % 6])] for i in range(6)}
        with Solver(name="cadical195", bootstrap_with=clauses) as sat:
            assert sat.solve(assumptions=[e if e in used else -e for e in index.values()])


# ----------------------------------------------------------------------------- tampered proofs

def test_an_empty_proof_of_petersen_is_rejected(tmp_path, checker):
    """Unit propagation alone does not refute Petersen's formula (shown first), so the
    proof "0" must be rejected."""
    keep = tmp_path / "kept"
    keep.mkdir()
    certify_no_cycle(10, PETERSEN, directed=False, certify=options(checker, keep),
                     name="petersen")
    assert_empty_proof_rejected(checker, keep / "petersen.cnf", tmp_path)


def test_a_rejecting_checker_is_exit_4(run, tmp_path, monkeypatch):
    fake = script(tmp_path / "drat-trim", 'echo "s NOT VERIFIED"\nexit 1\n')
    monkeypatch.setenv("SUDOKU_BRIDGE_DRAT_TRIM", str(fake))
    code, _, err = run("hamiltonian", INSTANCES / "graphs" / "petersen.col", "--certify",
                       "--checker", "drat-trim")
    assert code == 4 and "rejected by drat-trim" in err


def test_a_checker_past_its_time_limit_is_exit_3(run, tmp_path, monkeypatch):
    fake = script(tmp_path / "drat-trim", "exec sleep 30\n")
    monkeypatch.setenv("SUDOKU_BRIDGE_DRAT_TRIM", str(fake))
    code, out, err = run("hamiltonian", INSTANCES / "graphs" / "petersen.col", "--certify",
                         "--checker", "drat-trim", "--time-limit", "2")
    assert code == 3, (out, err)
    assert "unknown" in out and "not certified" in out


def test_a_missing_checker_is_exit_2(run, tmp_path, monkeypatch):
    monkeypatch.setenv("SUDOKU_BRIDGE_DRAT_TRIM", str(tmp_path / "nowhere"))
    code, out, err = run("hamiltonian", INSTANCES / "graphs" / "petersen.col", "--certify",
                         "--checker", "drat-trim")
    assert code == 2 and out == "" and "SUDOKU_BRIDGE_DRAT_TRIM" in err
