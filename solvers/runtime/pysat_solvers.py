"""The one place this project makes a pysat SAT solver (CaDiCaL, Glucose, MiniSat, ...).

Every in-process SAT search — the Sudoku CNF route, the Hamiltonian-cycle models, the Nishio
and nrpath gadgets — asks :func:`new_pysat_solver` for its solver by pysat name, so an
unknown name is the same one-line :class:`~solvers.outcome.SolverUnavailable` everywhere.
:func:`solve_formula` solves a whole :class:`~reductions.formulas.Formula` once and checks
the assignment it returns. Time limits are :mod:`solvers.runtime.budget`'s.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from reductions.formulas import Formula
from reductions.suggestions import unknown_name

from ..outcome import SolverUnavailable, WrongAnswer
from .signals import signals_held

if TYPE_CHECKING:
    from pysat.solvers import Solver

# pysat is imported where a solver is made, so that this module (and its DEFAULT_SOLVER,
# which the command line's options name) stays light at start-up.

__all__ = ["DEFAULT_SOLVER", "new_pysat_solver", "pysat_solver_names", "solve_formula"]

DEFAULT_SOLVER = "cadical195"
"""CaDiCaL 1.9.5, the default pysat solver of every in-process SAT search."""


def pysat_solver_names() -> list[str]:
    """Every name pysat accepts for a solver, sorted (for error messages)."""
    from pysat.solvers import SolverNames
    names = []
    for attr in vars(SolverNames):
        if not attr.startswith("_"):
            names.extend(getattr(SolverNames, attr))
    return sorted(set(names))


def new_pysat_solver(name: str, clauses=None, *, with_proof: bool = False) -> Solver:
    """A new pysat solver called ``name`` holding ``clauses`` (if given); an unknown name is
    :class:`~solvers.outcome.SolverUnavailable` listing the names there are. The caller
    deletes it (``with``, or ``.delete()``); the deletion holds Ctrl-C and SIGTERM back
    (:func:`_held_solver_class`). ``with_proof``: it logs a DRAT proof (pysat's
    ``get_proof``; which solvers can is :mod:`solvers.certify.proofs`' business)."""
    from pysat.solvers import NoSuchSolverError
    try:
        solver = _held_solver_class()(name=name, with_proof=with_proof)
    except (NoSuchSolverError, NotImplementedError, ValueError, KeyError):
        raise SolverUnavailable(unknown_name("pysat solver", name, pysat_solver_names(),
                                             "available")) from None
    if clauses is not None:
        solver.append_formula(clauses)
    return solver


@functools.cache
def _held_solver_class() -> type[Solver]:
    """pysat's ``Solver``, its deletion safe from signals. pysat frees the C solver, then
    forgets its pointer (``cadical195_del(...)``, then ``self.cadical = None``): a Ctrl-C
    turned into an exception between the two leaves the pointer, and the object's
    ``__del__`` frees it again at exit ("double free detected", SIGABRT, after the command
    line had said "interrupted"). Held back over the deletion, the signal comes after."""
    from pysat.solvers import Solver

    class HeldSolver(Solver):
        def delete(self) -> None:
            if self.solver:                 # pysat's __del__ calls this on every solver
                with signals_held():
                    super().delete()

    return HeldSolver


def solve_formula(formula: Formula, solver: str = DEFAULT_SOLVER) -> tuple[bool, ...] | None:
    """A satisfying assignment of a CNF :class:`~reductions.formulas.Formula` (value v−1 is
    variable v), checked against the formula, or None when it is unsatisfiable."""
    with new_pysat_solver(solver, [list(c) for c in formula.clauses]) as sat:
        if not sat.solve():
            return None
        model = set(sat.get_model() or [])
    values = tuple(v in model for v in range(1, formula.num_vars + 1))
    if not formula.is_satisfied_by(values):
        raise WrongAnswer(f"{solver} returned an assignment that does not satisfy the formula")
    return values
