"""Certified negatives of the gadget closed loops (solvers/certify/gadgets.py, ``gadget
nishio|nrpath --validate --certify``): real solvers, real proofs, real checker processes.

The certified formulas are checked against independent oracles first (the Nishio DAG, the
brute-force path search): satisfiable exactly when a placement / path exists, so a refutation
of them means none does. Every tamper is shown to matter before it is rejected.

drat-trim and cake_lpr are built from source (their tests skip without them); dratify comes
with the ``certify`` extra, so CI certifies for real through it."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st
from pysat.solvers import Solver

from reductions.nishio.dag import nishio_dag
from reductions.nishio.parts import independent_parts
from reductions.nishio.placements import CellSet
from reductions.nonrepetitive.labelled_graph import LabelledGraph
from reductions.sudoku.grid import Shape
from solvers.certify import checkers, refutation
from solvers.certify.checkers import check_proof, find_checker
from solvers.certify.gadgets import (EMPTY_CLAUSE, certify_no_path, certify_no_placement,
                                     path_clauses, placement_clauses, placement_units)
from solvers.certify.refutation import CertifyOptions
from solvers.gadgets.nishio import PlacementModel
from solvers.gadgets.nrpath import brute_force_cycle, brute_force_path
from solvers.outcome import WrongAnswer

from tests.conftest import INSTANCES
from tests.processes import script
from tests.solvers.certify.checkers import (MEMORY, NEEDS_DRATIFY,  # noqa: F401
                                            assert_empty_proof_rejected, checker)
from tests.solvers.gadgets.test_nishio import cell_sets
from tests.solvers.gadgets.test_nrpath import small_graphs

pytestmark = NEEDS_DRATIFY

FORMULAS = INSTANCES / "formulas"
NISHIO_UNSAT = ("8 sign patterns (unsat)", "short clauses (unsat)", "unit chain (unsat)")
NRPATH_UNSAT = ("example-unsat", "units-unsat", "pair-unsat")


def satisfiable(clauses: list[list[int]]) -> bool:
    if not all(clauses):
        return False
    with Solver(name="cadical195", bootstrap_with=clauses) as sat:
        return sat.solve()


def dratify() -> CertifyOptions:
    return CertifyOptions(find_checker("dratify"), MEMORY)


def rows_certified(out: str, names, claims: int, checker_name: str) -> None:
    """Each named row is followed by its line naming ``checker_name`` and ``claims`` claims."""
    lines = out.splitlines()
    for name in names:
        row = next(i for i, line in enumerate(lines) if line.startswith(name))
        certified = lines[row + 1]
        assert certified.startswith(f"    certified: {checker_name} ("), certified
        assert certified.count(";") == claims - 1, certified
    assert sum(line.startswith("    certified: ") for line in lines) == len(names)


# ----------------------------------------------------------------------------- the loops

def test_nishio_fixed_unsat_formulas_certified_on_both_sides(run, checker):
    code, out, err = run("gadget", "nishio", "--validate", "--certify", "--checker",
                         checker.name)
    assert (code, err) == (0, ""), out
    rows_certified(out, NISHIO_UNSAT, 3, checker.name)
    assert "the formula is unsatisfiable; S has no valid placement; S' has no valid " \
           "placement containing row" in out
    assert out.endswith(f"certified: 9 negative claims by {checker.name}\n")


@pytest.mark.parametrize("cycle", [False, True])
def test_nrpath_fixed_unsat_formulas_certified_on_both_sides(run, checker, cycle):
    code, out, err = run("gadget", "nrpath", "--validate", "--certify", "--checker",
                         checker.name, *(["--cycle"] if cycle else []))
    assert (code, err) == (0, ""), out
    rows_certified(out, NRPATH_UNSAT, 2, checker.name)
    claim = "no simple nonrepetitive cycle through the arc q -> p" if cycle \
        else "no simple nonrepetitive path p -> q"
    assert f"(the formula is unsatisfiable; {claim})" in out
    assert out.endswith(f"certified: 6 negative claims by {checker.name}\n")


@pytest.mark.parametrize("command", ["nishio", "nrpath"])
def test_without_certify_no_claim_is_said_to_be_certified(run, command):
    code, out, _ = run("gadget", command, "--validate")
    assert code == 0 and "certified" not in out


def test_kept_proofs_check_again_on_their_own(run, tmp_path):
    code, out, err = run("gadget", "nishio", "--validate", FORMULAS /
                         "nishio-unsat-unit-chain.cnf", "--certify", "--checker", "dratify",
                         "--keep-proofs", tmp_path)
    assert (code, err) == (0, ""), out
    stems = sorted(p.stem for p in tmp_path.glob("*.drat"))
    assert stems == [f"nishio-unsat-unit-chain.cnf-{what}"
                     for what in ("formula", "thm2", "thm3")]
    for stem in stems:
        again = check_proof(find_checker("dratify"), tmp_path / f"{stem}.cnf",
                            tmp_path / f"{stem}.drat", work=tmp_path, time_limit=None,
                            memory_limit=MEMORY, claim=stem)
        assert again.certified


# ----------------------------------------------------------------------------- the formulas

@given(cells=cell_sets(Shape(3, 3)), data=st.data())
@settings(max_examples=120, deadline=None)
def test_placement_formula_is_satisfiable_iff_a_placement_exists(cells, data):
    """Against the DAG: with the units placement_units chooses (a 9x9 unit has 9 cells:
    the sequential counter is in use)."""
    kept = nishio_dag(cells)
    clauses, _ = placement_clauses(cells, placement_units(cells))
    assert satisfiable(clauses) == (kept.count() > 0)
    if cells.count():
        cell = data.draw(st.sampled_from(cells.cells()))
        clauses, _ = placement_clauses(cells, placement_units(cells, cell), cell)
        assert satisfiable(clauses) == (cell in kept)


def test_every_placement_satisfies_the_whole_formula():
    """All 27 units of a full 9x9 S (9 cells a unit: the sequential counter): every valid
    placement, as the cell variables, extends to a model; one cell taken out does not."""
    from reductions.nishio.placements import random_placement
    shape = Shape(3, 3)
    cells = CellSet([[True] * 9 for _ in range(9)], shape)
    clauses, top = placement_clauses(cells, range(27))
    assert top > 81                             # the counter's variables are in use
    with Solver(name="cadical195", bootstrap_with=clauses) as sat:
        for seed in range(5):
            placement = set(random_placement(shape, random.Random(seed)))
            values = [(r * 9 + c + 1) * (1 if (r, c) in placement else -1)
                      for r in range(9) for c in range(9)]
            assert sat.solve(assumptions=values)
            first = next(i for i, v in enumerate(values) if v > 0)
            values[first] = -values[first]
            assert not sat.solve(assumptions=values)


@settings(max_examples=200, deadline=None)
@given(small_graphs(directed=True))
def test_path_formula_is_satisfiable_iff_a_simple_nonrepetitive_path_exists(graph):
    p, q = 0, graph.num_vertices - 1
    clauses, _ = path_clauses(graph, p, q)
    assert satisfiable(clauses) == (brute_force_path(graph, p, q) is not None)
    for arc in range(graph.num_arcs):
        clauses, _ = path_clauses(graph, None, None, cycle_arc=arc)
        assert satisfiable(clauses) == (brute_force_cycle(graph, arc) is not None)


@settings(max_examples=60, deadline=None)
@given(small_graphs(directed=False))
def test_path_formula_on_undirected_graphs(graph):
    p, q = 0, graph.num_vertices - 1
    clauses, _ = path_clauses(graph, p, q)
    assert satisfiable(clauses) == (brute_force_path(graph, p, q) is not None)


def test_a_part_the_presolve_proves_impossible_is_refuted_by_a_checked_proof():
    """The split model decides it by counting, without a solver; the certificate does not
    take that on its word: the part's units are in the formula and dratify checks the
    proof."""
    rows = [".#.......", "...##.###", "#........", "........#", "...#.....",
            "..#.....#", "....##.#.", ".......#.", "..##....."]
    cells = CellSet([[ch == "#" for ch in row] for row in rows], Shape(3, 3))
    parts = independent_parts(cells)
    assert all(part.cell_count for part in parts)          # every unit has cells of S
    assert any(not part.counts_match(cells.shape) for part in parts)
    with PlacementModel(cells) as model:
        assert model.impossible and model.find() is None
    certificate = certify_no_placement(cells, name="s", what="S", certify=dratify(),
                                       solver="cadical195")
    assert certificate.checker == "dratify" and certificate.proof_bytes > 0


def test_a_unit_without_cells_is_refuted_on_its_face():
    mask = [[r != 0 for c in range(4)] for r in range(4)]
    certificate = certify_no_placement(CellSet(mask, Shape(2, 2)), name="s", what="S",
                                       certify=dratify(), solver="cadical195")
    assert certificate.checker == EMPTY_CLAUSE


def test_a_placement_that_exists_is_never_certified_absent():
    cells = CellSet([[True] * 4 for _ in range(4)], Shape(2, 2))
    with pytest.raises(WrongAnswer, match="satisfiable"):
        certify_no_placement(cells, containing=(1, 2), name="s", what="S", certify=dratify(),
                             solver="cadical195")


def test_a_path_that_exists_is_never_certified_absent():
    graph = LabelledGraph.from_edges([("p", "m", 0), ("m", "q", 1)])
    with pytest.raises(WrongAnswer, match="satisfiable"):
        certify_no_path(graph, 0, 2, name="g", certify=dratify(), solver="cadical195")


# ----------------------------------------------------------------------------- tampers

def test_an_empty_proof_is_rejected(tmp_path, checker):
    """Unit propagation alone does not refute the kept Theorem 2 formula (shown first), so
    the proof "0" must be rejected."""
    keep = tmp_path / "kept"
    keep.mkdir()
    from solvers.gadgets.nishio import fixed_formulas, validate_formula
    formula = dict(fixed_formulas())["short clauses (unsat)"]
    validate_formula(formula, "short", variants=("thm2",),
                     certify=CertifyOptions(checker, MEMORY, keep))
    assert_empty_proof_rejected(checker, keep / "short-thm2.cnf", tmp_path)


@pytest.mark.parametrize("command, formula", [
    ("nishio", "nishio-unsat-short-clauses.cnf"), ("nrpath", "nrpath-pair-unsat.cnf")])
def test_a_tampered_proof_on_the_command_line_is_exit_4(run, monkeypatch, command, formula):
    """The first proof checked is the formula's, which has no unit clause: unit propagation
    derives nothing from it, so an empty proof cannot refute it."""
    path = FORMULAS / formula
    clauses = [line.split() for line in path.read_text().splitlines()
               if line and line[0] not in "cp"]
    assert all(len(clause) > 2 for clause in clauses)          # no unit clause
    real = refutation.write_proof
    monkeypatch.setattr(refutation, "write_proof",
                        lambda lines, where, **kw: real([], where, **kw))
    code, out, err = run("gadget", command, "--validate", path, "--certify", "--checker",
                         "dratify")
    assert code == 4 and "rejected by dratify" in err and "certified" not in out


@pytest.mark.parametrize("command", ["nishio", "nrpath"])
def test_a_rejecting_checker_is_exit_4(run, tmp_path, monkeypatch, command):
    fake = script(tmp_path / "drat-trim", 'echo "s NOT VERIFIED"\nexit 1\n')
    monkeypatch.setenv("SUDOKU_BRIDGE_DRAT_TRIM", str(fake))
    code, _, err = run("gadget", command, "--validate", "--certify", "--checker", "drat-trim")
    assert code == 4 and "rejected by drat-trim" in err


@pytest.mark.parametrize("command", ["nishio", "nrpath"])
def test_a_check_that_does_not_finish_is_exit_3(run, tmp_path, monkeypatch, command):
    fake = script(tmp_path / "drat-trim", 'echo "s TIMEOUT"\nexit 0\n')
    monkeypatch.setenv("SUDOKU_BRIDGE_DRAT_TRIM", str(fake))
    code, out, err = run("gadget", command, "--validate", "--certify", "--checker", "drat-trim")
    assert (code, err) == (3, ""), out
    assert "    not certified: the formula is unsatisfiable (drat-trim stopped at its own " \
           "time limit" in out
    assert "NOT certified (unknown)" in out


# ----------------------------------------------------------------------------- refused first

@pytest.mark.parametrize("command", ["nishio", "nrpath"])
def test_a_missing_checker_is_exit_2_before_any_work(run, tmp_path, monkeypatch, command):
    monkeypatch.setenv("SUDOKU_BRIDGE_DRAT_TRIM", str(tmp_path / "nowhere"))
    code, out, err = run("gadget", command, "--validate", "--certify", "--checker", "drat-trim")
    assert (code, out) == (2, "") and "SUDOKU_BRIDGE_DRAT_TRIM" in err
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SUDOKU_BRIDGE_DRAT_TRIM")
    monkeypatch.delenv("SUDOKU_BRIDGE_CAKE_LPR", raising=False)
    monkeypatch.setattr(checkers, "_dratify_installed", lambda: False)
    code, out, err = run("gadget", command, "--validate", "--certify")
    assert (code, out) == (2, "") and "no proof checker found" in err


@pytest.mark.parametrize("command", ["nishio", "nrpath"])
@pytest.mark.parametrize("argv, why", [
    (["--validate", "--certify", "--solver", "minisat22"], "cannot be certified"),
    (["--validate", "--certify", "--solver", "maplesat"], "do not check"),
    (["--validate", "--checker", "dratify"], "--checker needs --certify"),
    ([str(FORMULAS / "nishio-unsat-unit-chain.cnf"), "-o", "x.txt", "--certify"],
     "--certify goes with --validate")])
def test_refused_before_any_work(run, command, argv, why):
    code, out, err = run("gadget", command, *argv)
    assert (code, out) == (2, "") and why in err
