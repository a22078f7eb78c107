"""Certified "no Hamiltonian cycle": a checked DRAT proof of a formula whose every clause is
either rebuilt here from the graph alone or a subtour cut re-checked against the graph, so
that the certificate trusts neither the solver's model nor its cut loop.

The certified formula, over the arcs of the graph (an undirected graph's directed double:
each edge both ways; a simple undirected cycle on n ≥ 3 vertices is a directed Hamiltonian
cycle of the double and back), arc e (of :func:`certified_arcs`, sorted) being variable
e + 1:

* **degree clauses** (:func:`model_clauses`): at least one arc out of and into every vertex,
  and at most one (pairwise, or Sinz's sequential counter past :data:`PAIRWISE_UP_TO` arcs,
  whose auxiliary variables are fresh and defined only there). A Hamiltonian cycle leaves
  and enters every vertex exactly once, so it satisfies them.
* **no 2-cycles**: ¬(u→v) ∨ ¬(v→u) — a Hamiltonian cycle on n ≥ 3 vertices never walks an
  arc and then its reverse (undirected: n < 3 has no simple cycle at all, so the clause
  holds of every cycle there is).
* **subtour cuts** (:func:`cut_problem`): a clause of positive arc literals is kept only when
  its arcs are *exactly* the arcs leaving one vertex set T, ∅ ≠ T ≠ V. Every Hamiltonian
  cycle leaves every such T, so it satisfies the clause. ("Some arc enters S" is "some arc
  leaves V \\ S": the one check covers both kinds the cut loop adds; |T| = 1 is the
  out-degree clause again, valid too.)

* **the caller's clauses** (``extra``, over the same arc variables; auxiliary variables are
  not allowed): each must hold for every Hamiltonian cycle the claim is about, by the
  caller's argument, stated where it is made (:mod:`solvers.certify.hcp_puzzle`: the clue
  arcs a cycle must use, the clause blocking a grid's cycles). With them the claim
  certified is "no Hamiltonian cycle satisfies them".

Nothing else: not the portfolio's orientation clauses, not the Sudoku routes' together
clauses or the undirected model's forced-edge units (true of every Hamiltonian cycle, but
each would need its own argument). Every clause above holds for every Hamiltonian cycle, so
an unsatisfiable formula means none exists.

The cuts come from the solver that answered (the portfolio's shared cuts,
:attr:`HcpResult.cuts <solvers.hamiltonian.results.HcpResult>`), each re-checked; when they
are not enough (another member proved it, or the orientation clauses were needed) a loop here
adds the cuts of each model's subtours, re-checked the same way, until the formula is
unsatisfiable. Then a proof-logging pysat solver solves the fixed formula once from scratch
and the checker judges its proof (:func:`solvers.certify.checkers.check_proof`).
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from reductions.hamiltonian.graphs import cycle_labels, hamiltonian_cycle_problem, label_roots

from ..hamiltonian.graph_input import normalized_graph
from ..hamiltonian.results import CycleStatus, HcpResult
from ..outcome import WrongAnswer
from ..runtime.budget import Deadline, solve_within
from ..runtime.pysat_solvers import new_pysat_solver
from .clauses import PAIRWISE_UP_TO, exactly_one
from .proofs import proof_solver, solve_with_proof
from .refutation import CertifyOptions, check_refutation, proof_name

__all__ = ["CutRejected", "GRAPH_CHECK", "graph_reason", "PAIRWISE_UP_TO", "arc_variables",
           "certified_arcs", "certify_no_cycle", "cut_problem", "model_clauses"]


class CutRejected(WrongAnswer):
    """A cut that is not a valid subtour-elimination constraint of the graph (exit 4)."""


GRAPH_CHECK = "graph check"
"""The ``certified`` of a "no cycle" that needs no proof: too few vertices, or a vertex set
no arc leaves (:func:`graph_reason`)."""


def graph_reason(num_vertices: int, arcs: np.ndarray, *, directed: bool) -> str | None:
    """Why the graph has no Hamiltonian cycle on its face, or None: fewer than 3 vertices
    undirected (no simple cycle), one vertex without a loop, or not strongly connected (some
    vertex set has no arc out: a cycle through every vertex would leave it). The certified
    formula needs this first: a set without an arc out would be an empty cut."""
    if num_vertices < (2 if directed else 3):
        return f"{num_vertices} vertices: no {'cycle' if directed else 'simple cycle'}"
    forward = _reached(num_vertices, arcs, np.zeros(1, dtype=np.int64))
    backward = _reached(num_vertices, arcs[:, ::-1], np.zeros(1, dtype=np.int64))
    for reached, how in ((forward, "reached from"), (backward, "reaching")):
        if not reached.all():
            return (f"not strongly connected: {int(reached.sum())} of {num_vertices} vertices "
                    f"{how} vertex 1 along the {'arcs' if directed else 'edges'}")
    return None


def certified_arcs(num_vertices: int, pairs, *, directed: bool) -> np.ndarray:
    """The arcs of the certified formula: the graph's arcs, or an undirected graph's
    directed double; loops and repeats dropped, sorted (arc e is variable e + 1)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if not directed:
        pairs = np.concatenate([pairs, pairs[:, ::-1]])
    return normalized_graph(num_vertices, pairs, True)


def arc_variables(num_vertices: int, arcs: np.ndarray, pairs) -> np.ndarray:
    """The variables (1-based) of ``pairs`` among the sorted ``arcs`` of
    :func:`certified_arcs`; a pair that is not an arc is an internal error (the caller
    derived it from this very graph)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    keys = arcs[:, 0] * num_vertices + arcs[:, 1]
    wanted = pairs[:, 0] * num_vertices + pairs[:, 1]
    pos = np.searchsorted(keys, wanted).clip(max=max(len(arcs) - 1, 0))
    if len(arcs) == 0 or not np.array_equal(keys[pos], wanted):
        raise RuntimeError("internal error: a pair for the certified formula is not an arc "
                           "of its graph")
    return pos + 1


def model_clauses(num_vertices: int, arcs: np.ndarray) -> tuple[list[list[int]], int]:
    """The degree and no-2-cycle clauses of the certified formula (module docstring) and
    its top variable."""
    m = len(arcs)
    top = m
    clauses: list[list[int]] = []
    for side in (0, 1):
        order = np.argsort(arcs[:, side], kind="stable")
        starts = np.searchsorted(arcs[order, side], np.arange(num_vertices + 1))
        for v in range(num_vertices):
            lits = (order[starts[v]:starts[v + 1]] + 1).tolist()
            more, top = exactly_one(lits, top)
            clauses += more
    keys = arcs[:, 0] * num_vertices + arcs[:, 1]
    back = arcs[:, 1] * num_vertices + arcs[:, 0]
    pos = np.searchsorted(keys, back).clip(max=max(m - 1, 0))
    pair = np.flatnonzero((keys[pos] == back) & (arcs[:, 0] < arcs[:, 1])) if m else pos[:0]
    clauses += [[-int(e) - 1, -int(pos[e]) - 1] for e in pair]
    return clauses, top


def cut_problem(num_vertices: int, arcs: np.ndarray, clause: Sequence[int]) -> str | None:
    """Why ``clause`` is not "some arc leaves T" for a vertex set ∅ ≠ T ≠ V of the graph
    ``arcs``, or None when it is exactly that.

    The only candidate T is found, not guessed: T must hold the tails of the clause's arcs
    and every vertex an arc outside the clause reaches from T (else that arc would leave T
    too), so the least candidate is the set reached from the tails along arcs not in the
    clause. Any valid T contains it, and then the clause's arcs are exactly the arcs leaving
    it too: the clause is valid iff no clause arc's head is in that set."""
    m = len(arcs)
    lits = np.asarray(list(clause), dtype=np.int64)
    if lits.size == 0:
        return "an empty clause is not a subtour cut"
    if lits.min() < 1 or lits.max() > m:
        return f"literal {int(lits[(lits < 1) | (lits > m)][0])} is not an arc (cuts are " \
               f"positive arc literals 1..{m})"
    if np.unique(lits).size != lits.size:
        return "a literal is repeated"
    in_cut = np.zeros(m, dtype=bool)
    in_cut[lits - 1] = True
    reached = _reached(num_vertices, arcs[~in_cut], arcs[lits - 1, 0])
    inside = reached[arcs[lits - 1, 1]]
    if inside.any():
        u, v = arcs[lits - 1][inside][0]
        return (f"arc {u + 1}->{v + 1} does not leave the set its tails span along the other "
                f"arcs ({int(reached.sum())} vertices): not the arcs leaving any vertex set")
    return None


def _reached(num_vertices: int, arcs: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """Which vertices ``arcs`` reach from ``sources`` (frontier by frontier, on CSR rows)."""
    order = np.argsort(arcs[:, 0], kind="stable")
    heads = arcs[order, 1]
    starts = np.searchsorted(arcs[order, 0], np.arange(num_vertices + 1))
    seen = np.zeros(num_vertices, dtype=bool)
    frontier = np.unique(sources)
    seen[frontier] = True
    while frontier.size:
        counts = starts[frontier + 1] - starts[frontier]
        index = np.repeat(starts[frontier] - np.cumsum(counts) + counts, counts) \
            + np.arange(counts.sum())
        nxt = np.unique(heads[index])
        frontier = nxt[~seen[nxt]]
        seen[frontier] = True
    return seen


def certify_no_cycle(num_vertices: int, pairs, *, directed: bool, certify: CertifyOptions,
                     cuts: Sequence[Sequence[int]] = (),
                     extra: Sequence[Sequence[int]] = (), name: str = "graph",
                     solver: str = "cadical195",
                     time_limit: float | None = None) -> dict[str, Any]:
    """Certify that the graph has no Hamiltonian cycle (module docstring), starting from the
    answering solver's ``cuts`` (over :func:`certified_arcs`' variables), with the caller's
    ``extra`` clauses (module docstring; the claim is then "no Hamiltonian cycle satisfies
    them", which ``name`` should say). Returns the record's
    additions: ``certified`` (the checker), ``proof_bytes``, ``check_seconds``, ``cuts_checked``
    and ``certify_seconds``; ``certified`` None with a ``reason`` when a time or memory limit
    stopped it. Raises :class:`CutRejected` for a cut that is not a subtour cut,
    :class:`~solvers.certify.checkers.ProofRejected` for a rejected proof, and
    :class:`~solvers.outcome.WrongAnswer` when the formula has a Hamiltonian cycle after all."""
    start = time.perf_counter()
    solver = proof_solver(solver)
    arcs = certified_arcs(num_vertices, pairs, directed=directed)
    plain = graph_reason(num_vertices, arcs, directed=directed)
    if plain is not None:
        return {"certified": GRAPH_CHECK, "reason": plain,
                "certify_seconds": round(time.perf_counter() - start, 4)}
    model, top = model_clauses(num_vertices, arcs)
    given = [list(map(int, clause)) for clause in extra]
    if any(abs(lit) > len(arcs) or lit == 0 for clause in given for lit in clause):
        raise RuntimeError("internal error: an extra clause is not over the arc variables")
    model += given
    kept = [list(map(int, cut)) for cut in cuts]
    for cut in kept:
        _checked(num_vertices, arcs, cut, "the solver's")
    deadline = Deadline(time_limit)
    found = _more_cuts(num_vertices, arcs, model, kept, deadline)
    if found is not None:
        return {"certified": None, "reason": f"not certified: {found}"}
    formula = model + kept
    run = solve_with_proof(formula, solver=solver, deadline=deadline)
    if run.satisfiable is None:
        return {"certified": None, "reason": "not certified: time limit"}
    if run.satisfiable:
        raise WrongAnswer(f"internal error: {solver} found the certified formula of {name} "
                          "satisfiable after another solver refuted it")
    claim = f"{solver}'s proof that {name} has no Hamiltonian cycle"
    comment = (f"no Hamiltonian cycle: {num_vertices} vertices, {len(arcs)} arcs "
               f"({'directed' if directed else 'undirected, both ways'}), "
               f"{len(kept)} subtour cuts, {len(given)} more clauses")
    check = check_refutation(certify, num_vars=top, clause_blocks=[formula],
                             comments=[comment], proof=run.proof, claim=claim, name=name,
                             time_limit=time_limit)
    added = {"certified": check.checker if check.certified else None,
             "proof_bytes": check.proof_bytes, "check_seconds": round(check.seconds, 4),
             "cuts_checked": len(kept),
             "certify_seconds": round(time.perf_counter() - start, 4)}
    if not check.certified:
        added["reason"] = f"not certified: {check.unfinished}"
    return added


def _checked(num_vertices: int, arcs: np.ndarray, cut: list[int], whose: str) -> None:
    problem = cut_problem(num_vertices, arcs, cut)
    if problem is not None:
        raise CutRejected(f"{whose} subtour cut {_short(cut)} is not a valid subtour-"
                          f"elimination constraint of the graph: {problem}")


def _short(cut: list[int]) -> str:
    return " ".join(map(str, cut[:8])) + (" …" if len(cut) > 8 else "")


def _more_cuts(num_vertices: int, arcs: np.ndarray, model: list[list[int]],
               kept: list[list[int]], deadline: Deadline) -> str | None:
    """Add to ``kept`` the cuts of each model's subtours (each re-checked) until the formula
    is unsatisfiable, on a plain incremental solver (it proves nothing: the proof comes from
    the fresh solve after). None when done, else why it stopped (the time limit)."""
    m = len(arcs)
    with new_pysat_solver("cadical195") as sat:
        sat.append_formula(model + kept)
        while True:
            answer = solve_within(sat, deadline)
            if answer is None:
                return "time limit (adding subtour cuts)"
            if not answer:
                return None
            values = np.asarray(sat.get_model()[:m], dtype=np.int64)
            chosen = arcs[values > 0]
            if not (len(chosen) == num_vertices
                    and np.unique(chosen[:, 0]).size == num_vertices
                    and np.unique(chosen[:, 1]).size == num_vertices):
                raise RuntimeError("internal error: a model of the certified formula is not "
                                   "a cycle cover")
            successor = np.empty(num_vertices, dtype=np.int64)
            successor[chosen[:, 0]] = chosen[:, 1]
            label = cycle_labels(successor)
            roots = label_roots(label)
            if roots.size == 1:
                _refuse_cycle(num_vertices, arcs, successor)
            for root in roots.tolist():
                inside = label == root
                for cut in (inside[arcs[:, 0]] & ~inside[arcs[:, 1]],
                            ~inside[arcs[:, 0]] & inside[arcs[:, 1]]):
                    clause = (np.flatnonzero(cut) + 1).tolist()
                    _checked(num_vertices, arcs, clause, "a")
                    kept.append(clause)
                    sat.add_clause(clause)


def _refuse_cycle(num_vertices: int, arcs: np.ndarray, successor: np.ndarray) -> None:
    """The model is one cycle: when it is a Hamiltonian cycle of the graph, the "no cycle"
    being certified was wrong (:class:`WrongAnswer`); otherwise our formula is."""
    order = [0]
    for _ in range(num_vertices - 1):
        order.append(int(successor[order[-1]]))
    problem = hamiltonian_cycle_problem(num_vertices, arcs, np.asarray(order), True)
    if problem is None:
        raise WrongAnswer("the solver said 'no cycle', but the graph has a Hamiltonian "
                          f"cycle: {' '.join(str(v + 1) for v in order[:20])}"
                          f"{' …' if num_vertices > 20 else ''}")
    raise RuntimeError(f"internal error: the certified formula's model is no cycle: {problem}")


def certify_result(result: HcpResult, num_vertices: int, pairs, *, directed: bool,
                   certify: CertifyOptions, name: str,
                   time_limit: float | None) -> HcpResult:
    """``result`` with its "no cycle" certified (stats gain ``certified`` …) or withdrawn
    (``unknown`` when a limit stopped the certificate); other answers unchanged. ``name``:
    the graph's file (its kept proof is named after it, :func:`~.refutation.proof_name`)."""
    if result.status != CycleStatus.NO_CYCLE:
        return result
    added = certify_no_cycle(num_vertices, pairs, directed=directed, certify=certify,
                             cuts=result.cuts or (), name=proof_name(name),
                             time_limit=time_limit)
    if added["certified"] is None:
        reason = added.pop("reason")
        return HcpResult(CycleStatus.UNKNOWN, None, {**result.stats, **added,
                                                     "reason": reason})
    result.stats = {**result.stats, **added}
    return result
