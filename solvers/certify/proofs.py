"""DRAT proofs from pysat's solvers in this process (``with_proof=True``, ``get_proof()``).

Which solvers' proofs check (measured: drat-trim verified all 54 proofs of 50 royle17
puzzles with their blocking clause and 4 unsolvable puzzles, for each of
:data:`PROOF_SOLVERS`): CaDiCaL 1.0.3 / 1.5.3 / 1.9.5 / 3.0.0, Glucose 3 / 4 / 4.2 and
Gluecard 3 / 4 (not incremental: pysat refuses ``incr`` with proofs), Lingeling,
MapleChrono and MapleCM. Two quirks are smoothed over when a proof is written
(:func:`write_proof`): the Glucose family writes a bare ``0`` after every UNSAT call, and
MapleCM never writes the empty clause; every proof gets exactly one ``0``, at the end
(deleting lines cannot make a proof wrongly pass, and a final ``0`` holds only when the
formula and the lemmas propagate to a conflict).

Refused (:func:`proof_solver`, one line): Maplesat, whose deletion lines name each variable
plus one (pysat issue #139; 28 of 28 proofs that needed a lemma were rejected), and the
solvers that log no proof through pysat (MiniSat, Minicard, MergeSat, Kissat, CryptoMiniSat).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..outcome import SolverUnavailable
from ..runtime.budget import Deadline, solve_within
from ..runtime.pysat_solvers import new_pysat_solver, pysat_solver_names

__all__ = ["PROOF_SOLVERS", "ProvedRun", "proof_solver", "solve_with_proof", "write_proof"]

PROOF_SOLVERS = ("cadical103", "cadical153", "cadical195", "cadical300", "glucose3", "glucose4",
                 "glucose42", "gluecard3", "gluecard4", "lingeling", "maplechrono", "maplecm")
"""pysat solvers whose DRAT proofs are accepted (by their canonical pysat names)."""

_BROKEN = {"maplesat": "its DRAT proofs do not check (the deletion lines name each variable "
                       "plus one, pysat issue #139)"}


class ProofTooLarge(SolverUnavailable):
    """A proof larger than the memory limit allows (exit 2)."""


def canonical_name(name: str) -> str | None:
    """pysat's own name for a solver name or alias (``cd19`` → ``cadical195``), None when
    pysat knows no such solver."""
    from pysat.solvers import SolverNames
    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_") and name in aliases:
            return canonical
    return None


def proof_solver(name: str) -> str:
    """The canonical name of ``name`` if its proofs can be certified, else
    :class:`SolverUnavailable` saying why in one line (exit 2)."""
    canonical = canonical_name(name)
    if canonical is None:
        raise SolverUnavailable(f"unknown pysat solver {name!r}; available: "
                                f"{', '.join(pysat_solver_names())}")
    if canonical in PROOF_SOLVERS:
        return canonical
    why = _BROKEN.get(canonical, "it writes no proof through pysat")
    raise SolverUnavailable(f"--certify: pysat solver {name} cannot be certified: {why}; "
                            f"use one of {', '.join(PROOF_SOLVERS)}")


@dataclass
class ProvedRun:
    """One solver call with proof logging: ``satisfiable`` True (``model`` set), False
    (``proof`` holds its lemma lines) or None (the deadline passed)."""

    satisfiable: bool | None
    model: list[int] | None = None
    proof: list[str] | None = None


def solve_with_proof(clauses: Sequence[Sequence[int]], *, solver: str,
                     deadline: Deadline) -> ProvedRun:
    """Solve ``clauses`` once on a fresh ``solver`` (a name :func:`proof_solver` took)
    logging a DRAT proof; the proof is only read when the answer is UNSAT."""
    with new_pysat_solver(solver, with_proof=True) as sat:
        sat.append_formula([list(clause) for clause in clauses])
        answer = solve_within(sat, deadline)
        if answer is None:
            return ProvedRun(None)
        if answer:
            return ProvedRun(True, model=sat.get_model())
        return ProvedRun(False, proof=list(sat.get_proof() or []))


def write_proof(lines: Sequence[str], path: Path, *, max_bytes: int) -> int:
    """Write a pysat proof (lines without their newline) to ``path`` as text DRAT: its bare
    ``0`` lines dropped and one ``0`` put at the end (module docstring). Returns its size;
    over ``max_bytes`` it is :class:`ProofTooLarge`."""
    size = 0
    with open(path, "w", encoding="ascii", newline="\n") as out:
        for line in lines:
            if line.strip() == "0":
                continue
            size += len(line) + 1
            if size > max_bytes:
                raise ProofTooLarge(f"the proof is larger than the memory limit "
                                    f"({max_bytes:,} bytes); raise --max-memory")
            out.write(line)
            out.write("\n")
        out.write("0\n")
    return size + 2
