"""Certified answers through an outside DIMACS solver: the program writes a DRAT proof to the
``{proof}`` file of its command line (:func:`solvers.tools.dimacs_programs.proof_command`:
cadical and kissat take it as a second argument, glucose with ``-certified-output``, picosat
with ``-R``), and the proof is checked as a pysat solver's is (:mod:`solvers.certify.sudoku`:
the same formula, the same claims).

Also :func:`check_outside_proof`: the proof an outside solver wrote for a CNF that
``emit cnf`` wrote (``decode cnf --proof FILE --certify``).
"""

from __future__ import annotations

import time
from pathlib import Path

from reductions.encodings.cnf import DEFAULT_AMO, DEFAULT_ENCODING, SudokuCnf, SudokuToCnf
from reductions.sudoku.grid import Grid

from ..formats.dimacs import SatAnswer, write_cnf
from ..outcome import Outcome, Status, verified
from ..runtime.budget import Deadline
from ..runtime.processes import find_program
from ..runtime.scratch import temporary_directory
from ..tools.dimacs_programs import dimacs_template, proof_command, run_dimacs_solver
from .checkers import Check, check_proof
from .proofs import ProofTooLarge
from .refutation import CertifyOptions, keep_files
from .sudoku import blocking_clause, with_check

__all__ = ["certified_with_command", "check_outside_proof", "clean_proof"]

PICOSAT_HEADER = b"%RUPD"
"""The first line of picosat's ``-R`` proof (``%RUPD32 VARS CLAUSES``), which no DRAT checker
reads."""


def clean_proof(path: Path) -> None:
    """Drop a picosat ``%RUPD`` header line from the proof at ``path`` (in place)."""
    with open(path, "rb") as proof:
        if proof.read(len(PICOSAT_HEADER)) != PICOSAT_HEADER:
            return
        proof.seek(0)
        proof.readline()
        cleaned = path.with_suffix(".cleaned")
        with open(cleaned, "wb") as out:
            while chunk := proof.read(1 << 20):
                out.write(chunk)
    cleaned.replace(path)


def certified_with_command(puzzle: Grid, solver_cmd: str, *, certify: CertifyOptions,
                           name: str = "puzzle", encoding: str = DEFAULT_ENCODING,
                           amo: str = DEFAULT_AMO, unique: bool = False,
                           time_limit: float | None = None) -> Outcome:
    """Solve ``puzzle`` with the outside program ``solver_cmd``, certifying "no solution"
    and "unique" by the proofs it writes (module docstring)."""
    command = proof_command(solver_cmd)
    find_program(dimacs_template(command).program, what="SAT solver")
    start, deadline = time.perf_counter(), Deadline(time_limit)
    rule = SudokuToCnf.build(puzzle, encoding=encoding, amo=amo, clue_mode="units")
    cnf = rule.target
    clauses = list(cnf.iter_clauses())
    stats = {"solver": solver_cmd, "encoding": encoding, "amo": cnf.amo, "clues": "units",
             "variables": cnf.num_vars, "clauses": len(clauses)}
    with temporary_directory("sudoku-bridge-proof-") as work:
        def run(formula: list[list[int]]):
            write_cnf(work / "formula.cnf", cnf.num_vars, [formula], cnf.metadata())
            (work / "proof.drat").unlink(missing_ok=True)
            return run_dimacs_solver(command, work / "formula.cnf", work=work,
                                     num_vars=cnf.num_vars, time_limit=deadline.remaining(),
                                     proof=work / "proof.drat")

        def certified(outcome: Outcome, claim: str) -> Outcome:
            check = _check_written(work, certify, claim=f"{solver_cmd}'s proof that {name} "
                                                        f"has {claim}", name=name,
                                   time_limit=time_limit)
            return with_check(outcome, check)

        status, model, _ = run(clauses)
        if status == SatAnswer.UNKNOWN:
            outcome = Outcome(Status.UNKNOWN, stats=stats | {"reason": "time limit"})
        elif status == SatAnswer.UNSAT:
            outcome = certified(Outcome(Status.NO_SOLUTION, stats=stats), "no solution")
        else:
            grid = verified(rule, rule.decode(model), f"SAT ({solver_cmd})")
            outcome = Outcome(Status.SOLVED, grid, stats=stats)
            if unique:
                status, model, _ = run(clauses + [blocking_clause(puzzle, grid)])
                if status == SatAnswer.SAT:
                    outcome.unique = False
                    outcome.second = verified(rule, rule.decode(model),
                                              f"SAT ({solver_cmd})")
                elif status == SatAnswer.UNSAT:
                    outcome.unique = True
                    outcome = certified(outcome, "no solution but its first grid")
    outcome.stats["seconds"] = time.perf_counter() - start
    return outcome


def _check_written(work: Path, certify: CertifyOptions, *, claim: str, name: str,
                   time_limit: float | None) -> Check:
    """Check the proof the program left in ``work`` against the formula there."""
    formula, proof = work / "formula.cnf", work / "proof.drat"
    if not proof.exists():
        proof.touch()          # no proof written: an empty one, which the checker judges
    clean_proof(proof)
    check = check_proof(certify.checker, formula, proof, work=work, time_limit=time_limit,
                        memory_limit=certify.memory_limit, claim=claim)
    if certify.keep_proofs is not None:
        keep_files(certify.keep_proofs, name, {".cnf": formula, ".drat": proof})
    return check


def check_outside_proof(cnf: SudokuCnf, proof: Path, *, certify: CertifyOptions,
                        time_limit: float | None, claim: str) -> Check:
    """Check ``proof`` (an outside solver's, for a formula ``emit cnf`` wrote) against the
    formula rebuilt from its recipe — never the file itself, which could have been edited
    while keeping its header and comments."""
    with temporary_directory("sudoku-bridge-proof-") as work:
        formula, copy = work / "formula.cnf", work / "proof.drat"
        write_cnf(formula, cnf.num_vars, cnf.clause_blocks(), cnf.metadata())
        with open(proof, "rb") as given, open(copy, "wb") as out:
            limit = certify.memory_limit
            data = given.read(limit + 1)
            if len(data) > limit:
                raise ProofTooLarge(f"{proof}: larger than the memory limit ({limit:,} "
                                    f"bytes); raise --max-memory")
            out.write(data)
        clean_proof(copy)
        check = check_proof(certify.checker, formula, copy, work=work, time_limit=time_limit,
                            memory_limit=certify.memory_limit, claim=claim)
        if certify.keep_proofs is not None:
            keep_files(certify.keep_proofs, proof.stem, {".cnf": formula, ".drat": copy})
    return check
