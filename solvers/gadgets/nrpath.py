"""Exact search for simple nonrepetitive paths and cycles: a SAT model and a brute force.

Finding a simple nonrepetitive path in a labelled digraph is NP-complete (Eppstein 2005,
Theorem 4; ``reductions.nonrepetitive.nrpath_gadget.nrpath_gadget``), so the exact check is a SAT model.

**SAT model** (:func:`path_model`). One variable per arc (1 = the arc is used) and:

* every vertex v other than p and q: a variable ``used(v)`` with exactly one of
  ``in-arcs(v) ∪ {¬used(v)}`` and exactly one of ``out-arcs(v) ∪ {¬used(v)}`` — i.e. at most
  one arc in, at most one out, and in = out (``CardEnc.equals`` with ``vpool``);
* path version: exactly one arc leaves p and none enters it; exactly one enters q and none
  leaves it. The used arcs form one p → q path plus possibly vertex-disjoint cycles; those
  cycles obey the same label rule and do no harm: the answer is decoded by following arcs
  from p, and it is a simple nonrepetitive path by itself;
* cycle version (an arc e = u → w must be on the cycle): the unit clause e and in = out ≤ 1
  at every vertex. The decoded cycle is the one through e, followed from w back to u; other
  cycles in the model are ignored (they are not the answer);
* labels: for a vertex v and label x, a variable ``in(v, x)`` implied by every in-arc of v
  labelled x, and excluding every out-arc of v labelled x — the arc after an arc labelled x
  must have another label. (A self-loop is thus never used: it would follow itself.)

Size: one variable per arc and per vertex, plus one per (vertex, label) pair with both an
in- and an out-arc of that label; clauses linear in the arcs (pairwise exactly-one up to 6
literals, sequential counter above).

**Brute force** (:func:`brute_force_paths`): depth-first enumeration of the simple
nonrepetitive paths, for tiny graphs, to check the model itself.

:func:`validate_formula` runs the closed loop of the 3SAT reduction on one formula:
satisfiable (pysat on the formula) ⇔ path found (SAT model on the gadget); the extracted
assignment satisfies the formula; the forward map gives a valid path; nr(G) finds a
nonrepetitive (not necessarily simple) walk p → q; brute force agrees on tiny gadgets.
Undirected graphs work too (each edge is two arcs; using both directions of one edge would
repeat its label). With ``certify`` (``--certify``) the loop's negative answers are backed by
checked proofs (:mod:`solvers.certify.gadgets`).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from reductions.formulas import Formula, example_satisfiable, example_unsatisfiable
from reductions.nonrepetitive.labelled_graph import LabelledGraph
from reductions.nonrepetitive.nr_graph import (
    nonrepetitive_path,
    simple_cycle_problems,
    simple_path_problems,
    walk_problems,
)
from reductions.nonrepetitive.nrpath_gadget import (
    NrPathGadget,
    assignment_from_cycle,
    assignment_from_path,
    cycle_from_assignment,
    expected_size,
    nrpath_gadget,
    path_from_assignment,
)
from reductions.estimate import TooLarge, ensure_fits
from reductions.formulas import formula_sat_estimate
from reductions.nonrepetitive.sizes import nrpath_gadget_estimate

from ..outcome import WrongAnswer
from ..certify.gadgets import Certificate, certify_formula, certify_no_path
from ..certify.refutation import CertifyOptions, proof_name
from ..runtime.pysat_solvers import DEFAULT_SOLVER, new_pysat_solver, solve_formula

PAIRWISE_UP_TO = 6
BRUTE_FORCE_ARCS = 200
"""validate_formula also runs the brute force when the gadget has at most this many arcs."""


# ----------------------------------------------------------------------------- SAT model

@dataclass
class PathModel:
    """The clauses of the model and the variable of every arc (``arc_var[a]``)."""

    clauses: list[list[int]]
    arc_var: list[int]
    pool: IDPool

    @property
    def num_vars(self) -> int:
        return self.pool.top


def _exactly_one(lits: list[int], pool: IDPool) -> list[list[int]]:
    if not lits:
        return [[]]
    encoding = EncType.pairwise if len(lits) <= PAIRWISE_UP_TO else EncType.seqcounter
    return CardEnc.equals(lits=lits, bound=1, vpool=pool, encoding=encoding).clauses


def path_model(graph: LabelledGraph, p: int | None, q: int | None,
               cycle_arc: int | None = None) -> PathModel:
    """The model for a simple nonrepetitive p → q path (p ≠ q), or, with ``cycle_arc``
    (and p = q = None), for a simple nonrepetitive cycle through that arc."""
    if cycle_arc is None and (p is None or q is None or p == q):
        raise ValueError("the path model needs two different end vertices")
    pool = IDPool()
    arcs = graph.arcs()
    arc_var = [pool.id(("arc", a)) for a in range(len(arcs))]
    outgoing, incoming = graph.adjacency()
    clauses: list[list[int]] = []
    for v in range(graph.num_vertices):
        ins = [arc_var[a] for a in incoming[v]]
        outs = [arc_var[a] for a in outgoing[v]]
        if cycle_arc is None and v == p:
            clauses += _exactly_one(outs, pool) + [[-x] for x in ins]
        elif cycle_arc is None and v == q:
            clauses += _exactly_one(ins, pool) + [[-x] for x in outs]
        else:
            used = pool.id(("used", v))
            clauses += _exactly_one(ins + [-used], pool) + _exactly_one(outs + [-used], pool)
    labels = arcs.labels.tolist()
    for v in range(graph.num_vertices):
        in_labels = {labels[a] for a in incoming[v]}
        for b in outgoing[v]:
            x = labels[b]
            if x in in_labels:
                clauses.append([-pool.id(("in", v, x)), -arc_var[b]])
        out_labels = {labels[b] for b in outgoing[v]}
        for a in incoming[v]:
            if labels[a] in out_labels:
                clauses.append([-arc_var[a], pool.id(("in", v, labels[a]))])
    if cycle_arc is not None:
        clauses.append([arc_var[cycle_arc]])
    return PathModel(clauses, arc_var, pool)


def _solve(model: PathModel, solver_name: str) -> set[int] | None:
    with new_pysat_solver(solver_name, model.clauses) as solver:
        if not solver.solve():
            return None
        true = {lit for lit in solver.get_model() if lit > 0}
    return {a for a, var in enumerate(model.arc_var) if var in true}


def _follow(graph: LabelledGraph, chosen: set[int], start: int, stop: int) -> list[int]:
    """Follow the chosen arcs from ``start`` until ``stop`` is reached."""
    arcs = graph.arcs()
    successor = {int(arcs.tails[a]): a for a in chosen}
    path = []
    v = start
    while v != stop:
        if v not in successor or len(path) > len(chosen):
            raise WrongAnswer(f"the SAT model's arcs break off at vertex "
                              f"{graph.vertex_name(v)!r}")
        a = successor[v]
        path.append(a)
        v = int(arcs.heads[a])
    return path


def find_simple_path(graph: LabelledGraph, p: int, q: int,
                     solver_name: str = DEFAULT_SOLVER) -> list[int] | None:
    """A simple nonrepetitive p → q path (arc indices, checked), or None if none exists."""
    if p == q:
        return []
    chosen = _solve(path_model(graph, p, q), solver_name)
    if chosen is None:
        return None
    path = _follow(graph, chosen, p, q)
    problems = simple_path_problems(graph, path, p, q)
    if problems:
        raise WrongAnswer("the SAT model gave an invalid path: " + "; ".join(problems[:3]))
    return path


def find_simple_cycle(graph: LabelledGraph, arc: int,
                      solver_name: str = DEFAULT_SOLVER) -> list[int] | None:
    """A simple nonrepetitive cycle starting with ``arc`` (checked), or None."""
    chosen = _solve(path_model(graph, None, None, cycle_arc=arc), solver_name)
    if chosen is None:
        return None
    arcs = graph.arcs()
    head, tail = int(arcs.heads[arc]), int(arcs.tails[arc])
    cycle = [arc] + (_follow(graph, chosen - {arc}, head, tail) if head != tail else [])
    problems = simple_cycle_problems(graph, cycle)
    if problems:
        raise WrongAnswer("the SAT model gave an invalid cycle: " + "; ".join(problems[:3]))
    return cycle


# ----------------------------------------------------------------------------- brute force

def brute_force_paths(graph: LabelledGraph, p: int, q: int, first_label_not: int | None = None,
                      last_label_not: int | None = None) -> Iterator[list[int]]:
    """Every simple nonrepetitive p → q path (p ≠ q), optionally with the first / last arc
    not labelled as given. Exponential: for tiny graphs only."""
    outgoing, _ = graph.adjacency()
    arcs = graph.arcs()
    heads, labels = arcs.heads.tolist(), arcs.labels.tolist()
    path: list[int] = []
    on_path = {p}
    # Explicit stack of iterators over the arcs still to try at each depth.
    stack = [iter(outgoing[p])]
    while stack:
        a = next(stack[-1], None)
        if a is None:
            stack.pop()
            if path:
                on_path.discard(heads[path.pop()])
            continue
        h, x = heads[a], labels[a]
        if h in on_path:
            continue
        if path and labels[path[-1]] == x:
            continue
        if not path and x == first_label_not:
            continue
        if h == q:
            if x != last_label_not:
                yield path + [a]
            continue
        path.append(a)
        on_path.add(h)
        stack.append(iter(outgoing[h]))


def brute_force_path(graph: LabelledGraph, p: int, q: int) -> list[int] | None:
    if p == q:
        return []
    return next(brute_force_paths(graph, p, q), None)


def brute_force_cycle(graph: LabelledGraph, arc: int) -> list[int] | None:
    """A simple nonrepetitive cycle through ``arc`` = u → w: ``arc`` then a simple path
    w → u whose first and last labels differ from ``arc``'s."""
    arcs = graph.arcs()
    tail, head, label = int(arcs.tails[arc]), int(arcs.heads[arc]), int(arcs.labels[arc])
    if tail == head:
        return None  # a loop alone follows itself: its label repeats
    rest = next(brute_force_paths(graph, head, tail, label, label), None)
    return None if rest is None else [arc] + rest


# ----------------------------------------------------------------------------- validation

def fixed_formulas() -> list[tuple[str, Formula]]:
    """Small fixed formulas covering the special cases: clauses of 1–3 literals, a variable
    without occurrences, pure literals, no clauses, no variables; both answers."""
    return [
        ("example-sat", example_satisfiable()),
        ("example-unsat", example_unsatisfiable()),
        ("mixed-widths-sat", Formula.of([(1,), (-1, 2), (2, -3, 4), (-4, -2, 3)], 5)),
        ("units-unsat", Formula.of([(1,), (-1, 2), (-2,)], 2)),
        ("pure-literal-sat", Formula.of([(1, 2, 3), (1, -2, 3), (1, 2, -3)], 3)),
        ("pair-unsat", Formula.of([(1, 2), (1, -2), (-1, 2), (-1, -2)], 2)),
        ("no-clauses-sat", Formula(3, ())),
        ("empty-sat", Formula(0, ())),
    ]


@dataclass
class FormulaCheck:
    """The closed loop on one formula (see :func:`validate_formula`)."""

    name: str
    num_vars: int
    num_clauses: int
    vertices: int
    arcs: int
    size_as_expected: bool
    satisfiable: bool
    path_found: bool
    extraction_ok: bool | None        # None: no path to extract from
    forward_ok: bool | None           # None: formula unsatisfiable
    walk_found: bool                  # nr(G) found a nonrepetitive p → q walk
    walk_simple: bool | None
    brute_force_agrees: bool | None   # None: too big for the brute force
    seconds: dict[str, float] = field(default_factory=dict)
    certificates: list[Certificate] = field(default_factory=list)
    """With ``certify``: the check of each negative claim the row rests on."""

    @property
    def uncertified(self) -> list[Certificate]:
        """The negative claims whose check did not finish (the row is then unknown)."""
        return [c for c in self.certificates if not c.certified]

    @property
    def ok(self) -> bool:
        return (self.size_as_expected and self.satisfiable == self.path_found
                and self.extraction_ok is not False and self.forward_ok is not False
                and self.walk_found and self.brute_force_agrees is not False
                and (self.satisfiable or self.walk_simple is False))


def validate_formula(formula: Formula, name: str = "formula", cycle: bool = False,
                     solver_name: str = DEFAULT_SOLVER,
                     brute_force_arcs: int = BRUTE_FORCE_ARCS,
                     max_memory: int | None = None,
                     certify: CertifyOptions | None = None) -> FormulaCheck:
    """Build the gadget and check the reduction both ways on one formula.

    With ``max_memory`` (bytes), the whole check is estimated first
    (:func:`reductions.nonrepetitive.sizes.nrpath_gadget_estimate` and the formula's own SAT call)
    and refused with :class:`~reductions.estimate.TooLarge` before anything is built.

    With ``certify``, the two negative answers of an unsatisfiable formula — the formula
    unsatisfiable, no simple nonrepetitive path p → q (cycle through q → p) — are backed by
    checked proofs (:mod:`solvers.certify.gadgets`; ``solver_name`` must log proofs), in
    ``certificates``; a rejected proof raises
    :class:`~solvers.certify.checkers.ProofRejected`."""
    ensure_fits(nrpath_gadget_estimate(formula, cycle=cycle, validate=True)
                .plus(formula_sat_estimate(formula)), max_memory, name)
    seconds: dict[str, float] = {}
    with _timed(seconds, "build"):
        gadget: NrPathGadget = nrpath_gadget(formula, cycle)
    graph = gadget.graph
    with _timed(seconds, "formula_sat"):
        assignment = solve_formula(formula, solver_name)
    forward_ok = None if assignment is None else _forward_ok(gadget, assignment)
    with _timed(seconds, "path_sat"):
        found = (find_simple_cycle(graph, gadget.cycle_arc, solver_name) if cycle
                 else find_simple_path(graph, gadget.p, gadget.q, solver_name))
    extraction_ok = None
    if found is not None:
        values = (assignment_from_cycle(gadget, found) if cycle
                  else assignment_from_path(gadget, found))
        extraction_ok = formula.is_satisfied_by(values)
    with _timed(seconds, "nr_walk"):
        walk = nonrepetitive_path(graph, gadget.p, gadget.q)
    walk_simple = None if walk is None else _walk_is_simple(gadget, walk)
    brute = None
    if graph.num_arcs <= brute_force_arcs:
        with _timed(seconds, "brute_force"):
            brute = _brute_force_exists(gadget) == (found is not None)
    certificates = []
    if certify is not None:
        with _timed(seconds, "certify"):
            certificates = _certificates(formula, gadget, name, certify, solver_name,
                                         unsatisfiable=assignment is None,
                                         no_path=found is None)
    return FormulaCheck(name, formula.num_vars, formula.num_clauses, graph.num_vertices,
                        graph.num_arcs,
                        (graph.num_vertices, graph.num_arcs) == expected_size(formula, cycle),
                        assignment is not None, found is not None, extraction_ok, forward_ok,
                        walk is not None, walk_simple, brute, seconds, certificates)


def _certificates(formula: Formula, gadget: NrPathGadget, name: str, certify: CertifyOptions,
                  solver: str, *, unsatisfiable: bool, no_path: bool) -> list[Certificate]:
    """The checked proofs of the loop's negative answers: the formula's, the gadget's."""
    stem = proof_name(name)
    certificates = []
    if unsatisfiable:
        certificates.append(certify_formula(formula, name=f"{stem}-formula", certify=certify,
                                            solver=solver))
    if no_path:
        cycle = gadget.is_cycle_version
        certificates.append(certify_no_path(
            gadget.graph, None if cycle else gadget.p, None if cycle else gadget.q,
            cycle_arc=gadget.cycle_arc if cycle else None,
            name=f"{stem}-{'cycle' if cycle else 'path'}", certify=certify, solver=solver))
    return certificates


@contextmanager
def _timed(seconds: dict[str, float], step: str) -> Iterator[None]:
    """Record the seconds the block takes as ``seconds[step]`` (when it completes)."""
    start = time.perf_counter()
    yield
    seconds[step] = time.perf_counter() - start


def _forward_ok(gadget: NrPathGadget, assignment) -> bool:
    """The forward map of a satisfying assignment is a simple nonrepetitive path p → q (a
    cycle through q → p in the cycle version)."""
    graph = gadget.graph
    if gadget.is_cycle_version:
        return not simple_cycle_problems(graph, cycle_from_assignment(gadget, assignment))
    path = path_from_assignment(gadget, assignment)
    return not simple_path_problems(graph, path, gadget.p, gadget.q)


def _walk_is_simple(gadget: NrPathGadget, walk: list[int]) -> bool:
    """Whether nr(G)'s walk p → q is simple; a walk that is not even nonrepetitive is a
    wrong answer."""
    if walk_problems(gadget.graph, walk):
        raise WrongAnswer("nr(G) returned a walk that is not nonrepetitive")
    return not simple_path_problems(gadget.graph, walk, gadget.p, gadget.q)


def _brute_force_exists(gadget: NrPathGadget) -> bool:
    """A simple nonrepetitive path p → q (cycle through q → p) exists, by enumeration."""
    if gadget.is_cycle_version:
        return brute_force_cycle(gadget.graph, gadget.cycle_arc) is not None
    return brute_force_path(gadget.graph, gadget.p, gadget.q) is not None


def validate_formulas(formulas: Iterable[tuple[str, Formula | TooLarge]], *,
                      cycle: bool = False, solver_name: str = DEFAULT_SOLVER,
                      max_memory: int | None = None, certify: CertifyOptions | None = None
                      ) -> Iterator[tuple[str, Formula | None, FormulaCheck | TooLarge]]:
    """:func:`validate_formula` on each named formula, one at a time (a run shows its
    progress): the name, the formula (None when it was too large to read) and its check,
    or the refusal of a formula estimated over ``max_memory`` (a row, not a failure)."""
    for name, formula in formulas:
        if isinstance(formula, TooLarge):
            yield name, None, formula
            continue
        try:
            result = validate_formula(formula, name, cycle=cycle, solver_name=solver_name,
                                      max_memory=max_memory, certify=certify)
        except TooLarge as exc:
            result = exc
        yield name, formula, result
