"""3SAT → directed nonrepetitive *simple* path (Eppstein 2005, Theorem 4, §2.3).

Given a CNF formula, build a digraph with arc labels 0/1 and two vertices p, q such that a
simple nonrepetitive p → q path (no vertex twice, no two consecutive arcs with one label)
exists iff the formula is satisfiable. The cycle version adds the arc q → p (label 0): it
lies on a simple nonrepetitive cycle iff the formula is satisfiable.

**Construction.** Gadgets in a chain ``p → x1 → … → xn → C1 → … → Cc → q``, consecutive gadgets
joined by 1-arcs (the chain arcs). Literal names: ``x3`` and ``~x3``.

* Variable gadget for v: entry ``xv:in``, exit ``xv:out``, and one *route* per literal
  ℓ ∈ {v, ¬v}. The route of ℓ holds one *term vertex* per occurrence of ℓ in the formula, each
  entered by a 1-arc and left by a 0-arc along the route, with a connector before it::

      xv:in -0-> ℓ:1 -1-> (term) -0-> ℓ:2 -1-> (term) -0-> … -0-> xv:out

  A route with t occurrences has 2t vertices and 2t + 1 arcs (t = 0: the single arc
  ``xv:in -0-> xv:out``, so a variable without occurrences gets two parallel 0-arcs).
* Clause gadget for clause j with r ≥ 1 literals: ``cj:in``, ``cj:mid``, ``cj:out``, and per
  literal i (its term vertex ``cjti:ℓ`` on the route of ℓ)::

      cj:in -0-> cjti:ℓ -1-> cj:mid -0-> cj:out

* Chain: ``p -1-> x1:in``, ``xv:out -1-> x(v+1):in``, ``xn:out -1-> c1:in``,
  ``cj:out -1-> c(j+1):in``, ``cc:out -1-> q``; the cycle version adds ``q -0-> p``.

**Size** (n variables, c clauses, L = Σ|C_j| literal occurrences; :func:`expected_size`)::

    vertices = 2 + 2n + 2L + 3c          (3-CNF, L = 3c: 2 + 2n + 9c)
    arcs     = 1 + 3n + 4L + 2c  (+1)    (3-CNF: 1 + 3n + 14c; +1 for the cycle arc q→p)

**Why it is correct.** A term vertex has in-arcs 1 (its route) and 0 (its clause) and
out-arcs 0 (its route) and 1 (its clause): a nonrepetitive walk entering by the route must
leave by the route, and one entering from the clause must return to the clause. Connectors
are entered only from the previous route vertex, so a walk cannot join a route midway;
hence a nonrepetitive p → q path runs through the gadgets in chain order, takes one whole
route in each variable gadget and one term vertex in each clause gadget. Simplicity forbids a
clause from using a term vertex that its variable's route already used. So with the reading
*"v is true iff the path takes the route of ¬v"* (which uses up the ¬v term vertices and
leaves the v term vertices free), every clause passes through a true literal: the
assignment satisfies the formula. Conversely a satisfying assignment gives the path
(:func:`path_from_assignment`): the route of the false literal of each variable, and in each
clause the term vertex of a true literal. Paths correspond one-to-one to pairs (satisfying
assignment, a true literal chosen in each clause). Without simplicity a nonrepetitive walk
p → q always exists (a clause may revisit a used term vertex), which nr(G) finds in linear
time even for unsatisfiable formulas — simplicity is what makes the problem NP-complete.

The formula may have clauses of any width ≥ 1 (Theorem 4 is stated for ≤ 3); an empty clause
makes a gadget without routes, so no path — matching an unsatisfiable formula. As a
:class:`~reductions.reduction.ReductionRule`: :class:`SatToNrPath`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..errors import UserError
from ..formulas import Formula, literal_value
from .labelled_graph import LabelledGraph
from .nr_graph import simple_cycle_problems, simple_path_problems
from ..reduction import satisfying_values

LABEL_NAMES = ("0", "1")
ZERO, ONE = 0, 1


class NrPathError(UserError):
    """A path or assignment that does not fit the gadget; the message says why."""


@dataclass(frozen=True, eq=False)
class NrPathGadget:
    """The labelled digraph of a formula and the bookkeeping to decode paths in it.

    ``route_arcs[ℓ]``: the arcs of the route through literal ℓ's term vertices, in order
    (taking it makes ℓ false). ``term_vertex[j][i]``: the term vertex of literal i of
    clause j; ``term_arcs[j][i]``: the clause arcs ``cj:in → term`` and ``term → cj:mid``.
    ``chain_arcs``: the 1-arcs joining the gadgets from p to q; ``clause_exit_arcs[j]``: the
    arc ``cj:mid → cj:out``. ``cycle_arc``: the arc q → p (cycle version) or None.
    """

    formula: Formula
    graph: LabelledGraph
    p: int
    q: int
    cycle_arc: int | None
    variable_entry: tuple[int, ...]
    variable_exit: tuple[int, ...]
    route_arcs: Mapping[int, tuple[int, ...]]
    term_vertex: tuple[tuple[int, ...], ...]
    term_arcs: tuple[tuple[tuple[int, int], ...], ...]
    clause_exit_arcs: tuple[int, ...]
    chain_arcs: tuple[int, ...]

    @property
    def is_cycle_version(self) -> bool:
        return self.cycle_arc is not None


def literal_name(literal: int) -> str:
    return f"x{literal}" if literal > 0 else f"~x{-literal}"


def expected_size(formula: Formula, cycle: bool = False) -> tuple[int, int]:
    """(vertices, arcs) of the gadget by the size formula of the module docstring."""
    n, c = formula.num_vars, formula.num_clauses
    occurrences = sum(len(clause) for clause in formula.clauses)
    return 2 + 2 * n + 2 * occurrences + 3 * c, 1 + 3 * n + 4 * occurrences + 2 * c + int(cycle)


def nrpath_gadget(formula: Formula, cycle: bool = False) -> NrPathGadget:
    """Build the Theorem 4 graph for ``formula`` (with the arc q → p when ``cycle``)."""
    names: list[str] = []
    tails: list[int] = []
    heads: list[int] = []
    labels: list[int] = []

    def vertex(name: str) -> int:
        names.append(name)
        return len(names) - 1

    def arc(tail: int, head: int, label: int) -> int:
        tails.append(tail)
        heads.append(head)
        labels.append(label)
        return len(tails) - 1

    occurrences = formula.occurrences()
    term_vertex: list[list[int]] = [[-1] * len(clause) for clause in formula.clauses]
    route_arcs: dict[int, tuple[int, ...]] = {}
    entries, exits, chain = [], [], []
    p = vertex("p")
    q = vertex("q")
    previous = p
    for v in range(1, formula.num_vars + 1):
        entry, exit_ = vertex(f"x{v}:in"), vertex(f"x{v}:out")
        chain.append(arc(previous, entry, ONE))
        for literal in (v, -v):
            name = literal_name(literal)
            route = []
            current = entry
            for number, (j, i) in enumerate(occurrences.get(literal, []), start=1):
                connector = vertex(f"{name}:{number}")
                term = vertex(f"c{j + 1}t{i + 1}:{name}")
                route += [arc(current, connector, ZERO), arc(connector, term, ONE)]
                term_vertex[j][i] = term
                current = term
            route.append(arc(current, exit_, ZERO))
            route_arcs[literal] = tuple(route)
        entries.append(entry)
        exits.append(exit_)
        previous = exit_
    term_arcs = []
    clause_exit_arcs = []
    for j, clause in enumerate(formula.clauses):
        entry, middle, exit_ = (vertex(f"c{j + 1}:in"), vertex(f"c{j + 1}:mid"),
                                vertex(f"c{j + 1}:out"))
        chain.append(arc(previous, entry, ONE))
        term_arcs.append(tuple((arc(entry, term_vertex[j][i], ZERO),
                                arc(term_vertex[j][i], middle, ONE))
                               for i in range(len(clause))))
        clause_exit_arcs.append(arc(middle, exit_, ZERO))
        previous = exit_
    chain.append(arc(previous, q, ONE))
    cycle_arc = arc(q, p, ZERO) if cycle else None
    graph = LabelledGraph(len(names), np.array(tails, dtype=np.int64),
                          np.array(heads, dtype=np.int64), np.array(labels, dtype=np.int64),
                          directed=True, vertex_names=tuple(names), label_names=LABEL_NAMES)
    return NrPathGadget(formula, graph, p, q, cycle_arc, tuple(entries), tuple(exits),
                        route_arcs, tuple(tuple(t) for t in term_vertex), tuple(term_arcs),
                        tuple(clause_exit_arcs), tuple(chain))


# ----------------------------------------------------------------------------- forward map

def path_from_assignment(gadget: NrPathGadget,
                         assignment: Mapping[int, bool] | Sequence[bool]) -> list[int]:
    """The simple nonrepetitive p → q path of a satisfying assignment (arc indices), checked.

    Each variable takes the route of its false literal; each clause passes through the term
    vertex of its first true literal. :class:`NrPathError` if a clause is left false.
    """
    formula = gadget.formula
    path = []
    chain = iter(gadget.chain_arcs)
    for v in range(1, formula.num_vars + 1):
        path.append(next(chain))
        false_literal = -v if literal_value(assignment, v) else v
        path += gadget.route_arcs[false_literal]
    for j, clause in enumerate(formula.clauses):
        path.append(next(chain))
        true_terms = [i for i, lit in enumerate(clause)
                      if literal_value(assignment, lit)]
        if not true_terms:
            raise NrPathError(f"the assignment leaves clause {j + 1} {list(clause)} false")
        path += gadget.term_arcs[j][true_terms[0]]
        path.append(gadget.clause_exit_arcs[j])
    path.append(next(chain))
    problems = simple_path_problems(gadget.graph, path, gadget.p, gadget.q)
    if problems:  # the construction guarantees a valid path: this would be a bug
        raise AssertionError("forward map built an invalid path: " + "; ".join(problems))
    return path


def cycle_from_assignment(gadget: NrPathGadget,
                          assignment: Mapping[int, bool] | Sequence[bool]) -> list[int]:
    """Cycle version: the path of :func:`path_from_assignment` closed by the arc q → p."""
    if gadget.cycle_arc is None:
        raise NrPathError("this gadget has no arc q → p (build it with cycle=True)")
    cycle = path_from_assignment(gadget, assignment) + [gadget.cycle_arc]
    problems = simple_cycle_problems(gadget.graph, cycle)
    if problems:
        raise AssertionError("forward map built an invalid cycle: " + "; ".join(problems))
    return cycle


# ----------------------------------------------------------------------------- extraction

def assignment_from_path(gadget: NrPathGadget, path: Sequence[int]) -> tuple[bool, ...]:
    """The assignment read off a simple nonrepetitive p → q path: variable v is true iff the
    path takes the route of ¬v. :class:`NrPathError` if ``path`` is not such a path."""
    path = [int(a) for a in path]
    problems = simple_path_problems(gadget.graph, path, gadget.p, gadget.q)
    if problems:
        raise NrPathError("not a simple nonrepetitive p → q path: " + "; ".join(problems[:3]))
    used = set(path)
    values = []
    for v in range(1, gadget.formula.num_vars + 1):
        positive_route = gadget.route_arcs[v][0] in used
        negative_route = gadget.route_arcs[-v][0] in used
        if positive_route == negative_route:  # impossible by the proof in the docstring
            raise AssertionError(f"path takes {'both' if positive_route else 'neither'} "
                                 f"route of variable {v}")
        values.append(negative_route)
    return tuple(values)


def chosen_terms(gadget: NrPathGadget, path: Sequence[int]) -> list[int]:
    """For each clause, the position of the literal whose term vertex the path passes."""
    used = set(int(a) for a in path)
    chosen = []
    for j, arcs in enumerate(gadget.term_arcs):
        positions = [i for i, (into, _) in enumerate(arcs) if into in used]
        if len(positions) != 1:
            raise NrPathError(f"the path passes {len(positions)} terms of clause {j + 1}")
        chosen.append(positions[0])
    return chosen


def path_from_cycle(gadget: NrPathGadget, cycle: Sequence[int]) -> list[int]:
    """The p → q path of a simple nonrepetitive cycle through the arc q → p."""
    cycle = [int(a) for a in cycle]
    if gadget.cycle_arc is None:
        raise NrPathError("this gadget has no arc q → p (build it with cycle=True)")
    problems = simple_cycle_problems(gadget.graph, cycle)
    if problems:
        raise NrPathError("not a simple nonrepetitive cycle: " + "; ".join(problems[:3]))
    if gadget.cycle_arc not in cycle:
        raise NrPathError("the cycle does not pass through the arc q → p")
    k = cycle.index(gadget.cycle_arc)
    return cycle[k + 1:] + cycle[:k]


def assignment_from_cycle(gadget: NrPathGadget, cycle: Sequence[int]) -> tuple[bool, ...]:
    """Cycle version of :func:`assignment_from_path`."""
    return assignment_from_path(gadget, path_from_cycle(gadget, cycle))


# ----------------------------------------------------------------------------- the rule

@dataclass(frozen=True)
class SatToNrPath:
    """3SAT → simple nonrepetitive path (or cycle) as a
    :class:`~reductions.reduction.ReductionRule` (Eppstein 2005, Theorem 4, §2.3).

    Solution: the values of variables 1..num_vars, a tuple of bools. Witness: the arcs of a
    simple nonrepetitive p → q path in order (with ``cycle``: of a simple nonrepetitive
    cycle through q → p). Size formula (n variables, c clauses, L occurrences):
    2 + 2n + 2L + 3c vertices and 1 + 3n + 4L + 2c arcs, one more with ``cycle``
    (:func:`expected_size`).
    """

    source: Formula
    target: NrPathGadget

    @classmethod
    def build(cls, formula: Formula, *, cycle: bool = False) -> "SatToNrPath":
        """The labelled digraph of ``formula`` (:func:`nrpath_gadget`)."""
        return cls(formula, nrpath_gadget(formula, cycle))

    def expected_size(self) -> dict[str, int]:
        vertices, arcs = expected_size(self.source, self.target.is_cycle_version)
        return {"vertices": vertices, "arcs": arcs}

    def actual_size(self) -> dict[str, int]:
        graph = self.target.graph
        return {"vertices": graph.num_vertices, "arcs": graph.num_arcs}

    def forward(self, solution: Mapping[int, bool] | Sequence[bool]) -> tuple[int, ...]:
        """The path (cycle) of a satisfying assignment (:func:`path_from_assignment`,
        :func:`cycle_from_assignment`)."""
        values = satisfying_values(self.source, solution, NrPathError)
        if self.target.is_cycle_version:
            return tuple(cycle_from_assignment(self.target, values))
        return tuple(path_from_assignment(self.target, values))

    def extract(self, witness: Sequence[int]) -> tuple[bool, ...]:
        """The assignment a simple nonrepetitive path (cycle) spells
        (:func:`assignment_from_path`, :func:`assignment_from_cycle`; both check the
        witness), checked against the formula."""
        if self.target.is_cycle_version:
            values = assignment_from_cycle(self.target, witness)
        else:
            values = assignment_from_path(self.target, witness)
        return satisfying_values(self.source, values, NrPathError)
