"""The ``nonrepetitive`` command's answers: which method answers a question about a labelled
graph, the answer checked, and the answer as text or one JSON record.

**Which method answers** (:func:`simple_path`, :func:`simple_cycle`,
:func:`simple_cyclic_edges`): on an undirected graph the polynomial algorithm of Theorem 3
(:mod:`reductions.nonrepetitive.simple_nonrepetitive`: usp(G), ssg, one regular-path search), on a directed
graph the SAT model of :mod:`solvers.gadgets.nrpath` (Theorem 4: NP-complete). Either way the
answer is checked with :func:`~reductions.nonrepetitive.nr_graph.simple_path_problems` or
:func:`~reductions.nonrepetitive.nr_graph.simple_cycle_problems` before it is returned
(:class:`~solvers.outcome.WrongAnswer` otherwise), and says which method gave it.

**The questions** (:func:`cyclic_edges_answer`, :func:`edges_from_answer`,
:func:`path_answer`, :func:`cycle_answer`): each gives an :class:`Answer`, the path, cycle or
edges with the method that found them, which the command prints as text or as one JSON
record (:meth:`Answer.record`); :func:`task_estimate` sizes a question before it is asked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reductions.nonrepetitive import simple_nonrepetitive
from reductions.errors import UserError
from reductions.nonrepetitive.labelled_graph import LabelledGraph
from reductions.nonrepetitive.nr_graph import (
    cyclic_edges,
    edges_from,
    nonrepetitive_path,
    simple_cycle_problems,
    simple_path_problems,
)
from reductions.estimate import Estimate
from reductions.nonrepetitive.sizes import nr_graph_estimate, simple_path_estimate

from .gadgets.nrpath import find_simple_cycle, find_simple_path
from .outcome import WrongAnswer
from .runtime.pysat_solvers import DEFAULT_SOLVER

METHOD_SKEW = "skew-symmetric"
"""Theorem 3: usp(G) → ssg → one regular-path search (undirected graphs, polynomial)."""
METHOD_SAT = "sat"
"""The SAT model of this module (directed graphs: the problem is NP-complete)."""


@dataclass(frozen=True)
class SimpleAnswer:
    """A checked simple nonrepetitive path or cycle (``arcs``), or None when there is none
    (proved by the method), and the method that answered."""

    arcs: list[int] | None
    method: str


def method_for(graph: LabelledGraph) -> str:
    """The method that answers the simple questions on ``graph``."""
    return METHOD_SAT if graph.directed else METHOD_SKEW


def simple_path(graph: LabelledGraph, p: int, q: int,
                solver_name: str = DEFAULT_SOLVER) -> SimpleAnswer:
    """A simple nonrepetitive p → q path, checked (p = q: the empty path)."""
    if graph.directed:
        return SimpleAnswer(find_simple_path(graph, p, q, solver_name), METHOD_SAT)
    path = simple_nonrepetitive.simple_path(graph, p, q)
    if path is not None:
        problems = simple_path_problems(graph, path, p, q)
        if problems:
            raise WrongAnswer("the skew-symmetric search gave an invalid path: "
                              + "; ".join(problems[:3]))
    return SimpleAnswer(path, METHOD_SKEW)


def _checked_cycle(graph: LabelledGraph, arc: int) -> list[int] | None:
    cycle = simple_nonrepetitive.simple_cycle(graph, arc)
    if cycle is not None:
        problems = simple_cycle_problems(graph, cycle)
        if problems or cycle[0] != arc:
            raise WrongAnswer("the skew-symmetric search gave an invalid cycle: "
                              + "; ".join(problems[:3] or ["it does not start with the arc"]))
    return cycle


def simple_cycle(graph: LabelledGraph, arc: int,
                 solver_name: str = DEFAULT_SOLVER) -> SimpleAnswer:
    """A simple nonrepetitive cycle starting with ``arc``, checked, or None."""
    if graph.directed:
        return SimpleAnswer(find_simple_cycle(graph, arc, solver_name), METHOD_SAT)
    return SimpleAnswer(_checked_cycle(graph, arc), METHOD_SKEW)


def simple_cyclic_edges(graph: LabelledGraph, solver_name: str = DEFAULT_SOLVER
                        ) -> tuple[simple_nonrepetitive.CyclicEdges, str]:
    """The edges on simple nonrepetitive cycles, each witnessed by a checked cycle through it
    (:func:`reductions.nonrepetitive.simple_nonrepetitive.simple_cyclic_edges`), and the method."""
    if graph.directed:
        result = simple_nonrepetitive.simple_cyclic_edges(
            graph, find_cycle=lambda g, arc: find_simple_cycle(g, arc, solver_name))
    else:
        result = simple_nonrepetitive.simple_cyclic_edges(graph, find_cycle=_checked_cycle)
    passes = np.zeros(graph.num_edges, dtype=bool)     # edge e is on cycle witness[e]
    for i, cycle in enumerate(result.cycles):
        edges = np.asarray(cycle, dtype=np.int64) % graph.num_edges
        passes[edges[result.witness[edges] == i]] = True
    if not np.array_equal(passes, result.mask):
        raise WrongAnswer("an edge was listed with a cycle that does not pass through it")
    return result, method_for(graph)


METHOD_NR = "nr(G)"
"""nr(G) (:mod:`reductions.nonrepetitive.nr_graph`): walks, not necessarily simple, in linear time."""

TASKS = ("cyclic-edges", "simple-cyclic-edges", "from", "path", "simple-path", "simple-cycle")
"""The questions of the ``nonrepetitive`` command."""


@dataclass
class Answer:
    """What one question about a labelled graph found, before it is printed as text or as
    JSON.

    ``found``: a path or cycle was found (None for the listing tasks); ``arcs``: that path or
    cycle, in order; ``mask``: the edges listed; ``summary``: the text line that goes with it
    (a ``#`` line above a path, below a listing; the whole answer when nothing was found)."""

    task: str
    method: str
    summary: str
    found: bool | None = None
    arcs: list[int] = field(default_factory=list)
    mask: np.ndarray | None = None
    details: dict = field(default_factory=dict)

    @property
    def highlight(self) -> list[int]:
        """The arcs (or edges) to draw highlighted."""
        return np.flatnonzero(self.mask).tolist() if self.mask is not None else self.arcs

    def record(self, graph: LabelledGraph, path: str, seconds: float) -> dict:
        """The answer as one JSON-ready record (``status``: found, none or listed)."""
        status = "listed" if self.found is None else "found" if self.found else "none"
        record = {"task": self.task, "method": self.method, "status": status,
                  "graph": path, "directed": graph.directed,
                  "vertices": graph.num_vertices, "edges": graph.num_edges, **self.details}
        if self.mask is not None:
            listed = np.flatnonzero(self.mask)
            record["count"] = len(listed)
            record["listed"] = [list(map(str, graph.edge_names(int(e)))) for e in listed]
        elif self.found:
            record["length"] = len(self.arcs)
            record["path" if "path" in self.task else "cycle"] = arc_records(graph, self.arcs)
        record["summary"] = self.summary.lstrip("# ")
        record["seconds"] = round(seconds, 6)
        return record


def arc_records(graph: LabelledGraph, arcs) -> list[list[str]]:
    """Arcs as ``[tail, head, label]`` names."""
    return [[str(x) for x in graph.arc_names(int(a))] for a in arcs]


def _proof(method: str) -> str:
    """Why "none" is proved, by the method that said so."""
    return ("proved: the SAT model is unsatisfiable" if method == METHOD_SAT else
            "proved: no regular path in the skew-symmetric graph, Theorem 3")


def task_estimate(graph: LabelledGraph, task: str) -> Estimate:
    """What ``task`` builds: nr(G), the SAT model (digraphs) or Theorem 3's search."""
    simple = task.startswith("simple")
    if simple and not graph.directed:
        return simple_path_estimate(graph.num_vertices, graph.num_edges,
                                    cycles=task == "simple-cyclic-edges")
    return nr_graph_estimate(graph.num_vertices, graph.num_arcs, simple=simple)


def cyclic_edges_answer(graph: LabelledGraph, *, simple: bool,
                        solver_name: str = DEFAULT_SOLVER) -> Answer:
    """The edges on nonrepetitive cycles (Theorem 1, nr(G)), or on *simple* ones (one
    checked cycle test per edge)."""
    m = graph.num_edges
    if not simple:
        mask = cyclic_edges(graph)
        return Answer("cyclic-edges", METHOD_NR, f"# {int(mask.sum())} of {m} edges lie on "
                      f"nonrepetitive cycles", mask=mask)
    result, method = simple_cyclic_edges(graph, solver_name)
    return Answer("simple-cyclic-edges", method, f"# {int(result.mask.sum())} of {m} edges "
                  f"lie on simple nonrepetitive cycles ({method}: {result.searches} "
                  f"search{'' if result.searches == 1 else 'es'})",
                  mask=result.mask, details={"searches": result.searches})


def edges_from_answer(graph: LabelledGraph, vertex: int, label: int, *, start_name: str,
                      label_name: str) -> Answer:
    """The edges on nonrepetitive walks from ``vertex`` whose first label is ``label``
    (Theorem 2); the names are those the question used."""
    mask = edges_from(graph, vertex, label)
    return Answer("from", METHOD_NR, f"# {int(mask.sum())} of {graph.num_edges} edges lie on "
                  f"nonrepetitive walks from {start_name} starting with label {label_name}",
                  mask=mask, details={"from": start_name, "label": label_name})


def path_answer(graph: LabelledGraph, p: int, q: int, *, simple: bool,
                solver_name: str = DEFAULT_SOLVER) -> Answer:
    """A nonrepetitive walk p → q with fewest edges (nr(G)), or a simple nonrepetitive path
    (:func:`simple_path`)."""
    name = graph.vertex_name
    ends = {"source": str(name(p)), "target": str(name(q))}
    if simple:
        answer = simple_path(graph, p, q, solver_name)
        if answer.arcs is None:
            return Answer("simple-path", answer.method, f"no simple nonrepetitive path from "
                          f"{name(p)} to {name(q)} ({_proof(answer.method)})", False,
                          details=ends)
        return Answer("simple-path", answer.method, f"# simple nonrepetitive path from "
                      f"{name(p)} to {name(q)}: {len(answer.arcs)} edges ({answer.method})",
                      True, answer.arcs, details=ends)
    path = nonrepetitive_path(graph, p, q)
    if path is None:
        return Answer("path", METHOD_NR, f"no nonrepetitive path from {name(p)} to {name(q)}",
                      False, details=ends)
    is_simple = not simple_path_problems(graph, path, p, q)
    return Answer("path", METHOD_NR, f"# nonrepetitive path from {name(p)} to {name(q)} with "
                  f"fewest edges: {len(path)} edges, {'simple' if is_simple else 'not simple'}",
                  True, path, details={**ends, "simple": is_simple})


def cycle_answer(graph: LabelledGraph, u: int, v: int, *, source: str,
                 solver_name: str = DEFAULT_SOLVER) -> Answer:
    """Is an arc u → v on a simple nonrepetitive cycle? (Theorem 3 undirected, the SAT model
    directed; ``source`` names the graph in the error when there is no such arc.)"""
    name = graph.vertex_name
    candidates = graph.arcs_between(u, v)
    if not candidates:
        raise UserError(f"no arc from {name(u)} to {name(v)} in {source}")
    if not graph.directed:
        # Parallel edges with one label have the same answer (the test removes them all).
        labels = graph.arcs().labels
        candidates = list({int(labels[a]): a for a in reversed(candidates)}.values())[::-1]
    ends = {"source": str(name(u)), "target": str(name(v))}
    method = method_for(graph)
    for arc in candidates:
        answer = simple_cycle(graph, arc, solver_name)
        if answer.arcs is not None:
            return Answer("simple-cycle", method, f"# simple nonrepetitive cycle through "
                          f"{name(u)} -> {name(v)}: {len(answer.arcs)} edges ({method})", True,
                          answer.arcs, details=ends)
    return Answer("simple-cycle", method, f"no simple nonrepetitive cycle through an arc "
                  f"{name(u)} -> {name(v)} ({_proof(method)})", False, details=ends)
