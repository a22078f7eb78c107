"""Every reduction through one interface (reductions/reduction.py), tested one way.

For each rule (Sudoku → CNF, exact cover, ILP, Hamiltonian cycle; 3SAT → Nishio, nrpath)
and several of its options:

* sizes: every count the formula predicts equals the count measured on the built target
  (and the rules with a closed formula for every count predict them all);
* closed loop: ``extract(forward(solution)) == solution``, the forward witness checked by a
  checker written here, independent of the reduction's own code;
* non-witnesses: a witness spoilt in one place fails that checker and ``extract`` refuses it;
* NO instances (unsolvable puzzles, unsatisfiable formulas): an exact solver finds no
  witness in the target, and ``forward`` refuses every candidate solution given to it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reductions.encodings.cnf import SudokuToCnf
from reductions.errors import UserError
from reductions.encodings.exact_cover import SudokuToExactCover
from reductions.formulas import Formula, example_satisfiable
from reductions.sudoku.grid import Grid, parse_grid
from reductions.hamiltonian.hcp_pipeline import HcpOptions, SudokuToHcp, required_pairs
from reductions.encodings.ilp import SudokuToIlp, model_constraints
from reductions.nishio.gadget import SatToNishio
from reductions.nonrepetitive.nrpath_gadget import SatToNrPath
from reductions.reduction import PuzzleRule, ReductionRule, grid_problems

from tests.conftest import INSTANCES, instance_pairs, instance_puzzles

# ----------------------------------------------------------------------------- instances

PAPER_17 = (parse_grid((INSTANCES / "haythorpe-17clue.txt").read_text()),
            parse_grid((INSTANCES / "haythorpe-17clue.solution.txt").read_text()))
SUDOKU_YES = [*instance_pairs("4x4.txt"), PAPER_17]
UNSOLVABLE = instance_puzzles("unsolvable.txt")
SUDOKU_NO = [UNSOLVABLE[0], UNSOLVABLE[-1]]     # refuted by search only; by propagation

FORMULA_YES = [example_satisfiable(),
               Formula.of([(1,), (-1, 2), (2, -3, 4), (-4, -2, 3)], 5),    # x5 never occurs
               Formula.of([(1, 2), (-1, 3), (-2, -3), (2, 3, 4)], 4)]
FORMULA_NO = [Formula.of([(1,), (-1,)], 1), Formula.of([(1, 2), (-1, 2), (1, -2), (-1, -2)], 2),
              Formula.of([(1, 2, 3), (-1,), (-2,), (-3, 4), (-4,)], 4)]


def satisfying_assignments(formula: Formula) -> list[tuple[bool, ...]]:
    """Every satisfying assignment with the variables that never occur set false (they
    have no gadget in the Nishio construction, which extracts them as false)."""
    occurring = {abs(lit) for clause in formula.clauses for lit in clause}
    found = set()
    for values in itertools.product((False, True), repeat=formula.num_vars):
        values = tuple(v and (i + 1) in occurring for i, v in enumerate(values))
        if formula.is_satisfied_by(values):
            found.add(values)
    return sorted(found)


# ----------------------------------------------------------------------------- checkers

def cnf_is_model(rule: SudokuToCnf, model) -> bool:
    true = {lit for lit in model if lit > 0}
    if sorted(abs(lit) for lit in model) != list(range(1, rule.target.num_vars + 1)):
        return False
    return all(any(lit in true if lit > 0 else -lit not in true for lit in clause)
               for clause in rule.target.iter_clauses())


def cnf_has_model(rule: SudokuToCnf) -> bool:
    from pysat.solvers import Solver
    clauses = list(rule.target.iter_clauses())
    if any(not clause for clause in clauses):
        return False
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        return solver.solve()


def is_exact_cover(rule: SudokuToExactCover, options) -> bool:
    cover = rule.target
    if len(set(options)) != len(options) or not all(0 <= o < cover.num_options for o in options):
        return False
    covered = [item for o in options for item in cover.option_items[o].tolist()]
    return sorted(covered) == list(range(cover.num_items))


def has_exact_cover(rule: SudokuToExactCover) -> bool:
    from solvers.routes.exact_cover import algorithm_x
    cover = rule.target
    covers, complete = algorithm_x(cover.option_items.tolist(), cover.num_items, limit=1)
    assert covers or complete
    return bool(covers)


def ilp_is_feasible(rule: SudokuToIlp, values) -> bool:
    """Every variable 0 or 1, every constraint of the PuLP problem satisfied."""
    if set(values) != {v.name for v in rule.target.variables} or \
            not set(values.values()) <= {0, 1}:
        return False
    for constraint in model_constraints(rule.target.problem):
        total = sum(coefficient * values[v.name] for v, coefficient in constraint.items())
        total += constraint.constant
        if not (total == 0 if constraint.sense == 0 else total * constraint.sense >= 0):
            return False
    return True


def ilp_has_solution(rule: SudokuToIlp) -> bool:
    pulp = pytest.importorskip("pulp")
    from solvers.outcome import SolverUnavailable
    from solvers.tools.ilp_programs import find_cbc
    try:                        # CBC (PuLP's bundled one, or on PATH) comes with every install
        solver = pulp.COIN_CMD(path=find_cbc(), msg=False)
    except SolverUnavailable:
        solver = pulp.HiGHS(msg=False)
        if not solver.available():
            pytest.skip("no ILP solver for PuLP here (CBC or highspy)")
    status = rule.target.problem.solve(solver)
    assert pulp.LpStatus[status] in ("Optimal", "Infeasible"), pulp.LpStatus[status]
    return pulp.LpStatus[status] == "Optimal"


def is_hamiltonian_cycle(rule: SudokuToHcp, cycle) -> bool:
    pipeline = rule.target
    order = [int(v) for v in cycle]
    if sorted(order) != list(range(pipeline.num_vertices)):
        return False
    pairs = {tuple(e) for e in pipeline.edges.tolist()}
    if not pipeline.directed:
        pairs |= {(v, u) for u, v in pairs}
    return all((u, v) in pairs for u, v in zip(order, order[1:] + order[:1]))


def has_hamiltonian_cycle(rule: SudokuToHcp) -> bool:
    from solvers.hamiltonian import solve_directed_hcp, solve_undirected_hcp
    pipeline = rule.target
    solve = solve_directed_hcp if pipeline.directed else solve_undirected_hcp
    num_vertices, edges = pipeline.num_vertices, pipeline.edges
    if pipeline.reduction is not None and pipeline.reduction.infeasible:
        # the reduction proved it and left no graph: ask the solver about the 3-split
        num_vertices, edges = pipeline.split.num_vertices, pipeline.split.edges
    result = solve(num_vertices, edges, required=required_pairs(pipeline), time_limit=120)
    assert result.status in ("hamiltonian", "no cycle"), result.stats
    return result.status == "hamiltonian"


def is_placement_inside(rule: SatToNishio, cells) -> bool:
    """One cell in every row, column and block, every cell in S."""
    shape = rule.target.shape
    rows, cols = (sorted(x) for x in zip(*cells)) if cells else ([], [])
    blocks = sorted(shape.block_of(r, c) for r, c in cells)
    everything = list(range(shape.size))
    return rows == cols == blocks == everything and all(
        bool(rule.target.cells.mask[r, c]) for r, c in cells)


def has_placement(rule: SatToNishio) -> bool:
    from solvers.gadgets.nishio import has_valid_placement
    return has_valid_placement(rule.target.cells)


def is_simple_nonrepetitive(rule: SatToNrPath, arcs) -> bool:
    """Arcs joined head to tail, labels alternating, no vertex twice; from p to q, or
    (cycle version) closed through the arc q → p."""
    gadget, graph = rule.target, rule.target.graph
    arcs = [int(a) for a in arcs]
    if not arcs:
        return False
    tails, heads, labels = (graph.tails[arcs].tolist(), graph.heads[arcs].tolist(),
                            graph.labels[arcs].tolist())
    joined = all(h == t for h, t in zip(heads, tails[1:]))
    if gadget.is_cycle_version:
        joined = joined and heads[-1] == tails[0] and labels[-1] != labels[0]
        ends_ok = gadget.cycle_arc in arcs
        vertices = tails
    else:
        ends_ok = tails[0] == gadget.p and heads[-1] == gadget.q
        vertices = tails + heads[-1:]
    alternating = all(a != b for a, b in zip(labels, labels[1:]))
    return joined and ends_ok and alternating and len(set(vertices)) == len(vertices)


def has_simple_nonrepetitive(rule: SatToNrPath) -> bool:
    from solvers.gadgets.nrpath import find_simple_cycle, find_simple_path
    gadget = rule.target
    if gadget.is_cycle_version:
        return find_simple_cycle(gadget.graph, gadget.cycle_arc) is not None
    return find_simple_path(gadget.graph, gadget.p, gadget.q) is not None


# ----------------------------------------------------------------------------- spoilers

def negate_first_true(model):
    k = next(i for i, lit in enumerate(model) if lit > 0)
    return model[:k] + (-model[k],) + model[k + 1:]


def first_one_to_zero(values):
    name = next(name for name, value in values.items() if value == 1)
    return {**values, name: 0}


def swap_first_two(cycle):
    cycle = np.array(cycle)
    cycle[[1, 2]] = cycle[[2, 1]]
    return cycle


# ----------------------------------------------------------------------------- the cases

@dataclass(frozen=True)
class Case:
    """One rule with one set of options, its instances and the checkers of its target."""

    name: str
    build: Callable[[Any], ReductionRule]
    is_witness: Callable[[Any, Any], bool]
    has_witness: Callable[[Any], bool]
    spoil: Callable[[Any], Any]
    sudoku: bool = True
    every_count_predicted: bool = True


def sudoku_case(name, rule, is_witness, has_witness, spoil, complete=True, **options):
    return Case(name, lambda puzzle: rule.build(puzzle, **options), is_witness, has_witness,
                spoil, True, complete)


def gadget_case(name, rule, is_witness, has_witness, spoil, **options):
    return Case(name, lambda formula: rule.build(formula, **options), is_witness,
                has_witness, spoil, False)


CNF, EC, ILP, HCP = ((cnf_is_model, cnf_has_model, negate_first_true),
                     (is_exact_cover, has_exact_cover, lambda options: options[1:]),
                     (ilp_is_feasible, ilp_has_solution, first_one_to_zero),
                     (is_hamiltonian_cycle, has_hamiltonian_cycle, swap_first_two))
CASES = [
    sudoku_case("cnf-extended-pairwise", SudokuToCnf, *CNF, amo="pairwise"),
    sudoku_case("cnf-minimal-pairwise", SudokuToCnf, *CNF, encoding="minimal", amo="pairwise"),
    sudoku_case("cnf-extended-seqcounter", SudokuToCnf, *CNF, amo="seqcounter"),
    sudoku_case("cnf-minimal-ladder", SudokuToCnf, *CNF, False, encoding="minimal",
                amo="ladder"),
    sudoku_case("cnf-eliminate", SudokuToCnf, *CNF, False, clue_mode="eliminate"),
    sudoku_case("exact-cover-keep", SudokuToExactCover, *EC, clues="keep"),
    sudoku_case("exact-cover-eliminate", SudokuToExactCover, *EC, clues="eliminate"),
    sudoku_case("ilp-equalities", SudokuToIlp, *ILP, clues="equalities"),
    sudoku_case("ilp-eliminate", SudokuToIlp, *ILP, clues="eliminate"),
    sudoku_case("hcp-directed-blank", SudokuToHcp, *HCP,
                options=HcpOptions(directed=True, prune="none")),
    sudoku_case("hcp-directed-paper", SudokuToHcp, *HCP, False,
                options=HcpOptions(directed=True, prune="paper")),
    sudoku_case("hcp-directed-peers", SudokuToHcp, *HCP,
                options=HcpOptions(directed=True, prune="peers")),
    sudoku_case("hcp-split-blank", SudokuToHcp, *HCP, options=HcpOptions(prune="none")),
    sudoku_case("hcp-split-peers-triple", SudokuToHcp, *HCP,
                options=HcpOptions(prune="peers", triple=True)),
    sudoku_case("hcp-reduced-paper", SudokuToHcp, *HCP, False,
                options=HcpOptions(prune="paper", reduce=True)),
    sudoku_case("hcp-reduced-peers-triple-paper-rules", SudokuToHcp, *HCP, False,
                options=HcpOptions(prune="peers", triple=True, reduce=True, closing=False)),
    gadget_case("nishio", SatToNishio, is_placement_inside, has_placement,
                lambda cells: cells[1:]),
    gadget_case("nrpath", SatToNrPath, is_simple_nonrepetitive, has_simple_nonrepetitive,
                lambda arcs: arcs[:-1]),
    gadget_case("nrpath-cycle", SatToNrPath, is_simple_nonrepetitive,
                has_simple_nonrepetitive, lambda arcs: arcs[1:], cycle=True),
]
CASE_IDS = [case.name for case in CASES]


def yes_instances(case: Case) -> list[tuple[Any, list]]:
    if case.sudoku:
        return [(puzzle, [solution]) for puzzle, solution in SUDOKU_YES]
    return [(formula, satisfying_assignments(formula)) for formula in FORMULA_YES]


def candidate_solutions(case: Case, source) -> list:
    """Things that look like solutions of a NO instance: for a puzzle, a valid grid that
    keeps all clues but one; for a formula, every assignment."""
    if not case.sudoku:
        return list(itertools.product((False, True), repeat=source.num_vars))
    from solvers.routes.exact_cover import algorithm_x
    from reductions.encodings.exact_cover import sudoku_exact_cover
    for r, c, _ in source.clues():
        relaxed = source.with_value(r, c, 0)
        cover = sudoku_exact_cover(relaxed)
        found, _ = algorithm_x(cover.option_items.tolist(), cover.num_items, limit=1)
        if found:
            return [cover.grid_from_options(found[0])]
    return [Grid(np.zeros_like(source.values), source.shape)]


def check_sizes(case: Case, rule: ReductionRule) -> None:
    expected, actual = rule.expected_size(), rule.actual_size()
    assert expected.items() <= actual.items(), (expected, actual)
    if case.every_count_predicted:
        assert expected.keys() == actual.keys()


def check_closed_loop(case: Case, rule: ReductionRule, solution) -> None:
    witness = rule.forward(solution)
    assert case.is_witness(rule, witness)
    assert rule.extract(witness) == solution
    if case.sudoku:         # extract's two halves, as the routes call them
        assert isinstance(rule, PuzzleRule)
        assert rule.decode(witness) == solution and rule.problems(solution) == []
        wrong = Grid(np.roll(solution.values, 1, axis=1), solution.shape)
        assert rule.problems(wrong) == grid_problems(rule.source, wrong) != []
    spoilt = case.spoil(witness)
    assert not case.is_witness(rule, spoilt)
    with pytest.raises(UserError):
        rule.extract(spoilt)


# ----------------------------------------------------------------------------- the tests

@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_closed_loop_and_exact_sizes(case):
    for source, solutions in yes_instances(case):
        rule = case.build(source)
        assert isinstance(rule, ReductionRule)
        assert rule.source is source
        check_sizes(case, rule)
        assert solutions
        for solution in solutions:
            check_closed_loop(case, rule, solution)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_no_instance_has_no_witness(case):
    for source in (SUDOKU_NO if case.sudoku else FORMULA_NO):
        rule = case.build(source)
        check_sizes(case, rule)
        assert not case.has_witness(rule)
        for candidate in candidate_solutions(case, source):
            with pytest.raises(UserError):
                rule.forward(candidate)


@pytest.mark.parametrize("case", [c for c in CASES if c.sudoku], ids=lambda c: c.name)
def test_a_yes_instance_has_a_witness_by_the_same_solver(case):
    """The exact solvers the NO test trusts do find a witness where there is one."""
    rule = case.build(SUDOKU_YES[0][0])
    assert case.has_witness(rule)


formulas = st.integers(1, 4).flatmap(lambda n: st.lists(
    st.lists(st.integers(1, n), min_size=1, max_size=min(3, n), unique=True).flatmap(
        lambda vs: st.tuples(*[st.sampled_from([v, -v]) for v in vs])),
    min_size=1, max_size=5).map(lambda clauses: Formula.of(clauses, n)))


@pytest.mark.parametrize("case", [c for c in CASES if not c.sudoku], ids=lambda c: c.name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formula=formulas)
def test_gadgets_on_random_formulas(case, formula):
    """Satisfiable ⇔ the gadget has a witness (an exact solver on the target); sizes; the
    closed loop for up to four satisfying assignments."""
    rule = case.build(formula)
    check_sizes(case, rule)
    solutions = satisfying_assignments(formula)
    assert case.has_witness(rule) == bool(solutions)
    for solution in solutions[:4]:
        check_closed_loop(case, rule, solution)


def test_the_examples_cover_both_answers():
    assert all(satisfying_assignments(f) for f in FORMULA_YES)
    assert not any(satisfying_assignments(f) for f in FORMULA_NO)


# ----------------------------------------------------------------------------- production

ROUTE_RULES = [("sat", SudokuToCnf, {}), ("sat", SudokuToCnf, {"solver_cmd": "cadical"}),
               ("sat-incremental", SudokuToCnf, {}), ("exact-cover", SudokuToExactCover, {}),
               ("ilp", SudokuToIlp, {}), ("hcp", SudokuToHcp, {})]


@pytest.mark.parametrize("via, rule, options", ROUTE_RULES,
                         ids=[f"{via}{'-' + ','.join(o) if o else ''}"
                              for via, _, o in ROUTE_RULES])
def test_the_routes_build_their_instances_through_the_rules(monkeypatch, via, rule, options):
    """What users run is what this file tests: each route builds its instance with its
    rule's ``build`` (a route that built its own way would not be seen here)."""
    from solvers.routes import ROUTES
    from solvers.routes.sat_incremental import close_process_solvers

    route = ROUTES[via]
    if route.unavailable(options):
        pytest.skip(route.unavailable(options))
    built = []
    original = rule.build.__func__

    def spy(cls, *args, **kwargs):
        built.append(cls)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(rule, "build", classmethod(spy))
    close_process_solvers()          # a kept solver would have been built already
    try:
        outcome = route.solve(instance_puzzles("4x4.txt")[0], **options)
    finally:
        close_process_solvers()
    assert outcome.status == "solved" and built and set(built) == {rule}


def spy_on(monkeypatch, rule: type, name: str, calls: list, *, answer=None) -> None:
    """Record each call of ``rule.name`` (a method, or with ``answer`` a classmethod) as
    (name, arguments, result); ``answer``, when given, replaces the result."""
    original = getattr(rule, name)
    bound = getattr(original, "__self__", None) is rule

    def spy(first, *args, **kwargs):
        result = original.__func__(first, *args, **kwargs) if bound else \
            original(first, *args, **kwargs)
        if answer is not None:
            result = answer(result)
        calls.append((name, args, result))
        return result

    monkeypatch.setattr(rule, name, classmethod(spy) if bound else spy)


def solve_on(via: str, options: dict):
    from solvers.routes import ROUTES
    from solvers.routes.sat_incremental import close_process_solvers

    route = ROUTES[via]
    if route.unavailable(options):
        pytest.skip(route.unavailable(options))
    close_process_solvers()          # a kept solver would have been built already
    try:
        return route.solve(instance_puzzles("4x4.txt")[0], **options)
    finally:
        close_process_solvers()


@pytest.mark.parametrize("via, rule, options", ROUTE_RULES,
                         ids=[f"{via}{'-' + ','.join(o) if o else ''}"
                              for via, _, o in ROUTE_RULES])
def test_the_routes_decode_and_check_through_the_rules(monkeypatch, via, rule, options):
    """Each route decodes its solver's answer with its rule's ``decode`` (the kept solver:
    ``decode_rows``, its models at once) and checks the grid with the rule's ``problems``
    (the kept solver checks its rows against their own clues: the same function,
    ``solve_checks``, on arrays); the grid answered is the one decoded."""
    calls: list = []
    kept = via == "sat-incremental"
    spy_on(monkeypatch, rule, "decode_rows" if kept else "decode", calls)
    if not kept:
        spy_on(monkeypatch, rule, "problems", calls)
    outcome = solve_on(via, options)
    assert outcome.status == "solved"
    decoded = [result for name, _, result in calls if name.startswith("decode")]
    assert decoded
    if kept:
        assert decoded[-1].ravel().tolist() == outcome.grid.values.ravel().tolist()
    else:
        assert decoded[-1] == outcome.grid
        assert ("problems", (outcome.grid,), []) in calls


@pytest.mark.parametrize("via, rule, options", ROUTE_RULES,
                         ids=[f"{via}{'-' + ','.join(o) if o else ''}"
                              for via, _, o in ROUTE_RULES])
def test_a_grid_the_rule_refuses_is_a_wrong_answer(monkeypatch, via, rule, options):
    """The rule's verdict is the route's: problems the rule's check names (the kept solver:
    a decoded row that is no solution) make the route raise WrongAnswer with its own
    message, naming them."""
    from solvers.outcome import WrongAnswer

    if via == "sat-incremental":
        spy_on(monkeypatch, rule, "decode_rows", [], answer=lambda digits: digits * 0)
        planted = "returned a grid that does not solve puzzle 1 of the batch"
    else:
        monkeypatch.setattr(rule, "problems", lambda self, grid: ["planted by the test"])
        planted = "returned a grid that does not solve the puzzle: planted by the test"
    with pytest.raises(WrongAnswer, match=planted):
        solve_on(via, options)


def test_the_registry_sizes_every_route_by_its_rule(monkeypatch):
    """``route_estimate`` asks the route's rule (its family's, :data:`FAMILIES`); only the
    deduction route, which reduces nothing, has none."""
    from solvers.routes import ROUTES, route_estimate
    from solvers.routes.registry import Target

    rules = {Target.CNF: SudokuToCnf, Target.EXACT_COVER: SudokuToExactCover,
             Target.ILP: SudokuToIlp, Target.HCP: SudokuToHcp, Target.DEDUCTION: None}
    calls: list = []
    for rule in filter(None, rules.values()):
        spy_on(monkeypatch, rule, "estimate", calls)
    for route in ROUTES.values():
        assert route.rule() is rules[route.target], route.name
        calls.clear()
        estimate = route_estimate(route, parse_grid("." * 81).shape, {})
        assert [result for *_, result in calls] == ([estimate] if route.rule() else [])
