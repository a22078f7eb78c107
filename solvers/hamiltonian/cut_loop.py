"""Lazy subtour elimination: solve the SAT model, cut every subtour of its cover, solve again,
until the cover is one cycle (a Hamiltonian cycle) or the formula is unsatisfiable (a proof
that none exists). Each round may first try Karp's patching (:func:`patch_cover`), which
either finds a Hamiltonian cycle from the cover or steers the next solve's phases.

Also the guard every found cycle passes before it is returned (:func:`_check_cycle`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from reductions.hamiltonian.graphs import (component_labels, cycle_labels, cycle_steps,
                                           hamiltonian_cycle_problem, label_roots, pair_keys)

from ..runtime.budget import Deadline, solve_within
from .covers import _order_of, _pair_index
from .patching import patch_cover
from .results import CycleStatus, HcpResult

__all__: list[str] = []


def _cut_loop(solver, num_vertices: int, model_pairs: np.ndarray, pairs: np.ndarray,
              directed: bool, required: np.ndarray, assumptions, deadline: Deadline,
              both_cuts: bool, patching: bool, stats: dict[str, Any],
              not_all_of: np.ndarray | None = None, steer: bool = True) -> HcpResult:
    """Solve, cut the subtours of the model, solve again, until one cycle or a proof.

    ``model_pairs`` are the pairs of the solver's model (pair e is variable e + 1); ``pairs``
    the graph searched, a subset of them whose other pairs are false by ``assumptions``
    (``required``: indices into ``pairs``). Subtour cuts are over ``model_pairs``: valid for
    every Hamiltonian cycle of that graph, so they may stay in the solver for later calls.
    ``not_all_of``: indices into ``model_pairs`` that the caller has forbidden together (a
    clause in the solver, see :meth:`SharedHcpModel.solve`); a cycle found by patching that
    uses all of them is not an answer, only a phase hint. ``steer``: set the patched cover
    as the next solve's phases (the Sudoku graphs' shortcut; on the FHCP graphs it keeps the
    solver circling one region, :mod:`solvers.hamiltonian.portfolio`)."""
    stats.update(iterations=0, cuts=0, largest_subtours=0, patch_merges=0,
                 found_by_patching=False)
    m = len(model_pairs)
    required_keys = pair_keys(num_vertices, pairs[required], directed)
    forbidden_keys = None if not_all_of is None else \
        pair_keys(num_vertices, model_pairs[not_all_of], directed)
    while True:
        if deadline.passed():
            return _unknown(stats, deadline)
        stats["iterations"] += 1
        result = solve_within(solver, deadline, assumptions)
        if result is None:
            return _unknown(stats, deadline)
        if result is False:
            return _no_cycle(stats, deadline, "the SAT model is unsatisfiable after "
                                              f"{stats['cuts']} subtour cuts")
        model = np.fromiter(solver.get_model(), dtype=np.int64, count=m)
        chosen = model_pairs[model > 0]
        label = _cover_labels(num_vertices, chosen, directed)
        subtours = label_roots(label).size
        stats["largest_subtours"] = max(stats["largest_subtours"], subtours)
        if subtours == 1:
            return _found(stats, deadline, _order_of(num_vertices, chosen, directed))
        if patching:
            found = _patch(solver, num_vertices, model_pairs, pairs, chosen, directed,
                           required_keys, forbidden_keys, label, deadline, stats, steer)
            if found is not None:
                return found
        cuts = _subtour_cuts(model_pairs, label, directed, both_cuts)
        if isinstance(cuts, str):
            return _no_cycle(stats, deadline, cuts)
        for clause in cuts:
            solver.add_clause(clause)
        stats["cuts"] += len(cuts)


def _cover_labels(num_vertices: int, chosen: np.ndarray, directed: bool) -> np.ndarray:
    """The cycle labels of a model's cover (``chosen``: its arcs, or its edges)."""
    if directed:
        successor = np.empty(num_vertices, dtype=np.int64)
        successor[chosen[:, 0]] = chosen[:, 1]
        return cycle_labels(successor)
    return component_labels(num_vertices, chosen[:, 0], chosen[:, 1])


def _patch(solver, num_vertices: int, model_pairs: np.ndarray, pairs: np.ndarray,
           chosen: np.ndarray, directed: bool, required_keys: np.ndarray,
           forbidden_keys: np.ndarray | None, label: np.ndarray, deadline: Deadline,
           stats: dict[str, Any], steer: bool = True) -> HcpResult | None:
    """Karp's patching of the cover ``chosen``: the Hamiltonian cycle it leaves (when it
    leaves one cycle that is not forbidden), else None with the patched cover set as the
    solver's phases for the next solve."""
    patched, left, merges = patch_cover(num_vertices, pairs, chosen, directed,
                                        required_keys, label)
    stats["patch_merges"] += merges
    if left == 1 and not _uses_all(num_vertices, patched, forbidden_keys, directed):
        stats["found_by_patching"] = True
        return _found(stats, deadline, _order_of(num_vertices, patched, directed))
    if not steer:
        return None
    # Steer the next solve towards the patched cover (phases only): its pairs true, the
    # others false.
    phase = -np.arange(1, len(model_pairs) + 1, dtype=np.int64)
    used = _pair_index(num_vertices, model_pairs, patched, directed)
    phase[used] = -phase[used]
    solver.set_phases(phase.tolist())
    return None


def _found(stats: dict[str, Any], deadline: Deadline, order: np.ndarray) -> HcpResult:
    stats["seconds"] = deadline.seconds()
    return HcpResult(CycleStatus.HAMILTONIAN, order, stats)


def _no_cycle(stats: dict[str, Any], deadline: Deadline, reason: str) -> HcpResult:
    stats["seconds"] = deadline.seconds()
    stats["reason"] = reason
    return HcpResult(CycleStatus.NO_CYCLE, None, stats)


def _uses_all(num_vertices: int, chosen: np.ndarray, keys: np.ndarray | None,
              directed: bool) -> bool:
    """Whether the pairs ``chosen`` include every pair of ``keys`` (False when None)."""
    if keys is None:
        return False
    return bool(np.all(np.isin(keys, pair_keys(num_vertices, chosen, directed))))


def _unknown(stats: dict[str, Any], deadline: Deadline) -> HcpResult:
    stats["seconds"] = deadline.seconds()
    stats["reason"] = "time limit reached"
    return HcpResult(CycleStatus.UNKNOWN, None, stats)


def _subtour_cuts(pairs: np.ndarray, label: np.ndarray, directed: bool,
                  both_cuts: bool) -> list[list[int]] | str:
    """One clause per subtour S (per direction for digraphs): some arc/edge crosses S.

    Returns a reason string instead when some S has no crossing arc at all (then no
    Hamiltonian cycle exists)."""
    tail_label, head_label = label[pairs[:, 0]], label[pairs[:, 1]]
    crossing = np.flatnonzero(tail_label != head_label)
    lits = crossing + 1
    subtours = label_roots(label)
    if directed:
        sides = [(tail_label[crossing], "leaves")]
        if both_cuts:
            sides.append((head_label[crossing], "enters"))
    else:
        keys = np.concatenate([tail_label[crossing], head_label[crossing]])
        sides = [(keys, "crosses")]
        lits = np.concatenate([lits, lits])
    cuts: list[list[int]] = []
    for keys, verb in sides:
        groups = _groups(keys, lits)
        if len(groups) < subtours.size:
            lonely = np.setdiff1d(subtours, np.unique(keys))[0]
            size = int(np.count_nonzero(label == lonely))
            return (f"no {'arc' if directed else 'edge'} {verb} the set of {size} vertices "
                    f"around vertex {lonely}")
        cuts.extend(g.tolist() for g in groups)
    return cuts


def _groups(keys: np.ndarray, values: np.ndarray) -> list[np.ndarray]:
    """``values`` split into groups of equal ``keys``."""
    if keys.size == 0:
        return []
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    cuts = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    return np.split(values, cuts)


def _check_cycle(num_vertices: int, pairs: np.ndarray, cycle: np.ndarray, directed: bool,
                 required: np.ndarray, blocked: np.ndarray | None = None) -> None:
    """Guard against bugs: the cycle visits every vertex once along pairs of the graph and
    uses every required pair (:func:`~reductions.hamiltonian.graphs.hamiltonian_cycle_problem`;
    ``required``: indices into ``pairs``), and (``blocked``: indices into ``pairs``, a
    no-good) leaves out at least one blocked pair."""
    if hamiltonian_cycle_problem(num_vertices, pairs, cycle, directed,
                                 required=pairs[required]) is not None:
        raise RuntimeError("internal error: the solver's cycle is not a Hamiltonian cycle of "
                           "the graph")
    if blocked is not None and _uses_all(num_vertices, cycle_steps(cycle),
                                         pair_keys(num_vertices, pairs[blocked], directed),
                                         directed):
        raise RuntimeError("internal error: the cycle uses every blocked pair")
