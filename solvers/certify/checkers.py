"""Proof checkers: is this DRAT proof a refutation of this CNF file? Asked of a program that
is not the solver that wrote the proof.

Three checkers, in order of trust (:data:`CHECKERS`; the default is the first one found):

* ``cake_lpr`` — the CakeML checker, formally verified down to its machine code. It reads
  LRAT, not DRAT, so drat-trim first turns the proof into LRAT (``drat-trim F P -L F.lrat``,
  which must itself verify), then ``cake_lpr F F.lrat``. It exits 0 whatever the verdict:
  only its stdout line ``s VERIFIED UNSAT`` is success.
* ``drat-trim`` — Heule's checker, the SAT Competition's. The CNF and the proof must be its
  first two arguments; it exits 0 on some failures (a time-out, an unreadable header), so
  success is exit 0 *and* exactly one status line, ``s VERIFIED``.
* ``dratify`` — pure Python, from the package index (``pip install 'sudoku-bridge[certify]'``),
  run in a child Python process (:mod:`solvers.certify.dratify_check`) so that it is held to
  the same time and memory limits as the others, with RAT steps off: dratify's RAT check
  accepts proofs of satisfiable formulas, and the proofs our solvers write are RUP only.

Where they come from: ``drat-trim`` and ``cake_lpr`` on PATH, or the paths in the
environment variables ``SUDOKU_BRIDGE_DRAT_TRIM`` and ``SUDOKU_BRIDGE_CAKE_LPR``; dratify
when the Python package is installed. Each runs through
:func:`solvers.runtime.processes.run_program` (own process group, killed at its time limit,
on Ctrl-C and when we die) under an address-space limit.

Verdicts: :func:`check_proof` returns a :class:`Check` when the proof is accepted or when
the checker ran out of time or memory (``unfinished``: the claim is *not* certified, the
answer becomes "unknown", exit 3); a proof the checker rejects is :class:`ProofRejected` (exit 4: the solver and the
checker disagree); a checker that is missing or cannot run is :class:`CheckerUnavailable`
(exit 2, one line naming what to install).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..outcome import SolverUnavailable, WrongAnswer
from ..runtime.processes import ProgramRun, find_program, run_program

__all__ = ["CHECKERS", "Check", "CheckerUnavailable", "ProofRejected", "check_proof",
           "find_checker", "DEFAULT_CHECK_SECONDS"]

CHECKERS = ("cake_lpr", "drat-trim", "dratify")
"""The checkers, most trusted first."""

ENVIRONMENT = {"drat-trim": "SUDOKU_BRIDGE_DRAT_TRIM", "cake_lpr": "SUDOKU_BRIDGE_CAKE_LPR"}
"""Environment variables that name a checker program by path (else it is looked up on PATH)."""

INSTALL = {
    "drat-trim": "build drat-trim from https://github.com/marijnheule/drat-trim (make) and put "
                 "it on PATH or in $SUDOKU_BRIDGE_DRAT_TRIM",
    "cake_lpr": "build cake_lpr from https://github.com/tanyongkiam/cake_lpr (make) and put it "
                "on PATH or in $SUDOKU_BRIDGE_CAKE_LPR (it needs drat-trim too)",
    "dratify": "pip install 'sudoku-bridge[certify]'",
}

DEFAULT_CHECK_SECONDS = 600.0
"""The time limit of one proof check when the command gives none (``--time-limit``)."""

MIN_CHECK_MEMORY = 256 << 20
"""The least address space a checker is given (a Python interpreter alone maps ~30 MB, and
cake_lpr's heap and stack are carved out of it)."""


class CheckerUnavailable(SolverUnavailable):
    """No checker of that name can run here (exit 2): the message says what to install."""


class ProofRejected(WrongAnswer):
    """The checker rejected the solver's proof: the negative answer is not backed (exit 4)."""


@dataclass(frozen=True)
class Checker:
    """A checker ready to run: its name and the programs it needs (by path; dratify: the
    Python interpreter)."""

    name: str
    drat_trim: str | None = None
    cake_lpr: str | None = None


@dataclass
class Check:
    """A check that ended without rejecting: accepted by ``checker``, or ``unfinished``
    (the reason: it ran out of time or memory; the claim is then not certified)."""

    checker: str
    unfinished: str | None
    seconds: float
    proof_bytes: int

    @property
    def certified(self) -> bool:
        return self.unfinished is None


def _program(name: str) -> str | None:
    given = os.environ.get(ENVIRONMENT[name])
    if given:
        return find_program(given, what=f"proof checker {name} (${ENVIRONMENT[name]})")
    return find_program(None, [name], what=f"proof checker {name}")


def _dratify_installed() -> bool:
    return importlib.util.find_spec("dratify") is not None


def _ready(name: str) -> Checker | None:
    """The checker ``name`` if everything it needs is here, else None."""
    if name == "dratify":
        return Checker(name) if _dratify_installed() else None
    drat_trim = _program("drat-trim")
    if drat_trim is None:
        return None
    if name == "drat-trim":
        return Checker(name, drat_trim=drat_trim)
    cake = _program("cake_lpr")
    return None if cake is None else Checker(name, drat_trim=drat_trim, cake_lpr=cake)


def find_checker(name: str | None = None) -> Checker:
    """The checker ``name`` (one of :data:`CHECKERS`), or the most trusted one found; none
    is :class:`CheckerUnavailable` naming what to install."""
    if name is not None:
        if name not in CHECKERS:
            raise CheckerUnavailable(f"unknown proof checker {name!r}; choose from "
                                     f"{', '.join(CHECKERS)}")
        found = _ready(name)
        if found is None:
            missing = "drat-trim" if name == "cake_lpr" and _ready("drat-trim") is None \
                else name
            raise CheckerUnavailable(f"--certify: proof checker {name} not found: "
                                     f"{INSTALL[missing]}")
        return found
    for candidate in CHECKERS:
        found = _ready(candidate)
        if found is not None:
            return found
    raise CheckerUnavailable("--certify: no proof checker found: "
                             f"{INSTALL['dratify']} (or {INSTALL['drat-trim']})")


def check_proof(checker: Checker, cnf: Path, proof: Path, *, work: Path,
                time_limit: float | None, memory_limit: int, claim: str,
                plain: bool = False) -> Check:
    """Check that ``proof`` (DRAT, text or binary; dratify: text) refutes ``cnf`` with
    ``checker``, within ``time_limit`` seconds (default :data:`DEFAULT_CHECK_SECONDS`) and
    ``memory_limit`` bytes of address space. ``work`` is the caller's temporary directory
    (the LRAT file goes there). ``claim`` names what the proof is for, in messages
    ("cadical195's proof that the puzzle has no solution"). ``plain``: the proof's
    deletions are ignored (drat-trim ``-p``; sound, since unit propagation only gains
    from more clauses: for proofs whose last lemmas the solver never derived after its
    deletions, :mod:`solvers.certify.batch`)."""
    limit = DEFAULT_CHECK_SECONDS if time_limit is None else time_limit
    memory = max(memory_limit, MIN_CHECK_MEMORY)
    size = proof.stat().st_size
    if checker.name == "dratify":
        run = run_program([sys.executable, "-m", "solvers.certify.dratify_check", cnf, proof,
                           *(["--plain"] if plain else [])],
                          time_limit=limit, temp_dirs=[work], memory_limit=memory,
                          env=_python_env())
        return _verdict(run, checker.name, _dratify_says(run), size, claim)
    lrat = work / "proof.lrat"
    lrat.unlink(missing_ok=True)
    args = [checker.drat_trim, cnf, proof, "-w", "-t", str(int(limit) + 1),
            *(["-p"] if plain else [])]
    if checker.name == "cake_lpr":
        args += ["-L", lrat]
    run = run_program(args, time_limit=limit, temp_dirs=[work], memory_limit=memory,
                      output_files=[lrat])
    first = _verdict(run, "drat-trim", _drat_trim_says(run), size, claim)
    if checker.name == "drat-trim" or not first.certified:
        return Check(checker.name, first.unfinished, first.seconds, size)
    run = run_program([checker.cake_lpr, cnf, lrat], time_limit=max(limit - run.seconds, 0.1),
                      temp_dirs=[work], memory_limit=memory, env=_cake_env(memory))
    second = _verdict(run, "cake_lpr", _cake_says(run), size, claim)
    return Check(checker.name, second.unfinished, first.seconds + second.seconds, size)


class Unfinished(str):
    """A checker's own word that it did not finish (its time-out or memory-out): why."""


def _verdict(run: ProgramRun, name: str, accepted: bool | str, size: int,
             claim: str) -> Check:
    """The :class:`Check` of one checker run, or :class:`ProofRejected`. ``accepted``:
    True, :class:`Unfinished` (why it did not finish), or why it rejected the proof."""
    if run.timed_out:
        return Check(name, f"{name} stopped at the time limit", run.seconds, size)
    if isinstance(accepted, Unfinished):
        return Check(name, str(accepted), run.seconds, size)
    if accepted is True:
        return Check(name, None, run.seconds, size)
    raise ProofRejected(f"{claim} was rejected by {name}: {accepted}")


def _status_lines(run: ProgramRun) -> list[str]:
    text = run.stdout.decode("utf-8", "replace").replace("\r", "\n")
    return [line.strip() for line in text.splitlines() if line.startswith("s ")]


def _drat_trim_says(run: ProgramRun) -> bool | str:
    """drat-trim accepts with exit 0 and the one status line ``s VERIFIED``; it exits 0 on
    a time-out or an unreadable formula too, hence both. Its own time-out (``s TIMEOUT``)
    and memory-out (``c MEMOUT``, no status line) are :class:`Unfinished`."""
    lines = _status_lines(run)
    if run.exit_code == 0 and lines == ["s VERIFIED"]:
        return True
    if lines == ["s TIMEOUT"]:
        return Unfinished("drat-trim stopped at its own time limit")
    if not lines and b"MEMOUT" in run.stdout:
        return Unfinished("drat-trim ran out of memory")
    return f"{' '.join(lines) or 'no verdict'} ({run.ended()}; {_drat_trim_why(run)})"


def _drat_trim_why(run: ProgramRun) -> str:
    """drat-trim's last comment that says what went wrong (not its timing lines)."""
    text = run.stdout[-65536:].decode("utf-8", "replace").replace("\r", "\n")
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("c ") and "time" not in line and "clauses in core" not in line:
            return line[2:][:200]
    return run.tail() or "no output"


def _cake_says(run: ProgramRun) -> bool | str:
    """cake_lpr exits 0 whatever it found: only its line ``s VERIFIED UNSAT`` accepts. It
    exits 3 when it cannot have its heap (not finished)."""
    if run.exit_code == 0 and _status_lines(run) == ["s VERIFIED UNSAT"]:
        return True
    if run.exit_code == 3 and b"allocate" in run.stderr + run.stdout:
        return Unfinished("cake_lpr ran out of memory")
    return f"{run.tail() or 'no verdict'} ({run.ended()})"


def _dratify_says(run: ProgramRun) -> bool | str:
    """Our child process prints ``s VERIFIED`` and exits 0, or says why not; exit 3: it
    ran out of memory (not finished)."""
    if run.exit_code == 0 and _status_lines(run) == ["s VERIFIED"]:
        return True
    if run.exit_code == 3:
        return Unfinished("dratify ran out of memory")
    if run.exit_code == 2:          # it could not run: no dratify, unreadable input
        raise CheckerUnavailable(f"proof checker dratify cannot run: {run.tail()}")
    return f"{run.tail() or 'no verdict'} ({run.ended()})"


def _cake_env(memory: int) -> dict[str, str]:
    """cake_lpr's heap and stack (MB, from the environment: 4 GB each by default) within
    the address space it is given."""
    megabytes = memory >> 20
    return {**os.environ, "CML_HEAP_SIZE": str(megabytes * 5 // 8),
            "CML_STACK_SIZE": str(megabytes // 4)}


def _python_env() -> dict[str, str]:
    """The environment of the dratify child: ours, with this library's folder first on the
    module path (a checkout run without installing finds itself)."""
    root = str(Path(__file__).resolve().parent.parent.parent)
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root if not path else f"{root}{os.pathsep}{path}"}
