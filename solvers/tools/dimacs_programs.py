"""Any DIMACS SAT solver program (``--solver-cmd``, the routes ``--via cadical`` ...): its
command template, one run on a CNF file, its answer.

A solver is a name (:data:`KNOWN_COMMANDS`: the command line it stands for) or a command
template (:mod:`solvers.tools.templates`): ``{input}`` the CNF file (appended when absent),
``{output}`` a result file the solver writes, MiniSat style (without it, its stdout is the
answer), ``{proof}`` the file it writes a DRAT proof to (``--certify``:
:func:`proof_command`). :func:`run_dimacs_solver` runs it without a shell through
:func:`solvers.runtime.processes.run_program` (its own process group, killed at the time limit, on
Ctrl-C and when we die) and reads SAT-competition ``s``/``v`` lines or MiniSat's result file
(:func:`solvers.formats.dimacs.parse_solver_output`), with exit codes 10/20 checked against
the answer. A time-out is "unknown", never "unsatisfiable".
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ..outcome import SolverUnavailable
from ..runtime.processes import ExternalSolverError, find_program, read_output_file, run_program
from ..formats.dimacs import DimacsError, SatAnswer, answer_limit, parse_solver_output
from .templates import CommandTemplate, TemplateRules, parse_template, split_command

__all__ = ["DIMACS_TEMPLATES", "KNOWN_COMMANDS", "NO_PROOF", "PROOF_COMMANDS", "dimacs_template",
           "proof_command", "run_dimacs_solver"]

KNOWN_COMMANDS = {
    # name: the command line; {output} = a result file the solver writes (MiniSat style)
    "cadical": ["cadical", "-q", "{input}"],
    "kissat": ["kissat", "-q", "{input}"],
    "cryptominisat5": ["cryptominisat5", "--verb", "0", "{input}"],
    "picosat": ["picosat", "{input}"],
    "lingeling": ["lingeling", "-q", "{input}"],
    "minisat": ["minisat", "-verb=0", "{input}", "{output}"],
    # glucose prints its model only with -model.
    "glucose": ["glucose", "-verb=0", "-model", "{input}"],
}
"""The DIMACS solvers known by name (``--solver-cmd kissat``, ``solve --via kissat``)."""

PROOF_COMMANDS = {
    # cadical and kissat take the proof file as a second argument (text with --no-binary:
    # every checker reads text DRAT, dratify nothing else); glucose writes it with
    # -certified; picosat writes RUP with a '%RUPD32' header line (removed before checking).
    "cadical": ["cadical", "-q", "--no-binary", "{input}", "{proof}"],
    "kissat": ["kissat", "-q", "--no-binary", "{input}", "{proof}"],
    "glucose": ["glucose", "-verb=0", "-model", "-certified", "-certified-output={proof}",
                "{input}"],
    "picosat": ["picosat", "-R", "{proof}", "{input}"],
}
"""The known solvers' command lines with a DRAT proof (``--certify``)."""

NO_PROOF = {
    "cryptominisat5": "it writes FRAT, which no checker here reads",
    "minisat": "it writes no proof",
    "lingeling": "its proof option (-t) needs a build with the druplig library",
}
"""Known solvers refused for ``--certify``, and why."""

DIMACS_TEMPLATES = TemplateRules(option="--solver-cmd",
                                 hint="give a solver name or a command line",
                                 default_format="cnf", known=KNOWN_COMMANDS,
                                 fields=frozenset({"output", "proof"}))
"""``--solver-cmd``: ``{input}`` (appended when absent), ``{output}`` and ``{proof}``."""


def dimacs_template(solver_cmd: str) -> CommandTemplate:
    """The parsed template of a solver given by name (see :data:`KNOWN_COMMANDS`) or as a
    command line (module docstring)."""
    return parse_template(solver_cmd, DIMACS_TEMPLATES)


def proof_command(solver_cmd: str) -> str:
    """The command line of ``solver_cmd`` that writes a DRAT proof to ``{proof}``: the
    template itself when it names ``{proof}``, a known solver's proof command line
    (:data:`PROOF_COMMANDS`, under the program name or path given), else a one-line
    :class:`~solvers.outcome.SolverUnavailable` (exit 2) saying why."""
    template = dimacs_template(solver_cmd)
    if template.writes_proof:
        return solver_cmd
    words = split_command(solver_cmd, "--solver-cmd", "give a solver name or a command line")
    name = Path(words[0]).name
    if len(words) == 1 and name in PROOF_COMMANDS:
        return shlex.join([words[0], *PROOF_COMMANDS[name][1:]])
    if len(words) == 1 and name in NO_PROOF:
        raise SolverUnavailable(f"--certify: {name} cannot be certified: {NO_PROOF[name]}; "
                                f"use one of {', '.join(PROOF_COMMANDS)} or a pysat --solver")
    raise SolverUnavailable(f"--certify: --solver-cmd {solver_cmd!r} names no {{proof}} file; "
                            f"give the solver's DRAT proof option with {{proof}} in it")


def run_dimacs_solver(solver_cmd: str, cnf_path: Path, *, work: Path, num_vars: int,
                      time_limit: float | None = None,
                      proof: Path | None = None) -> tuple[SatAnswer, list[int] | None, dict]:
    """Run a DIMACS solver on a file (of ``num_vars`` variables) through
    :func:`solvers.runtime.processes.run_program` (its own process group, killed at the time limit,
    on Ctrl-C and when we die). ``work`` is the caller's temporary directory: ``{output}``
    files go there, and it is removed if we die. Returns (verdict, model, stats); a
    time-out is ``UNKNOWN``. A program that gives no usable answer (crash, garbage, binary
    output, nothing, more than an answer for ``num_vars`` variables can take) is an
    :class:`~solvers.runtime.processes.ExternalSolverError`."""
    template = dimacs_template(solver_cmd)
    binary = find_program(template.program, what="SAT solver")
    result_path = work / "result.txt"
    result_path.unlink(missing_ok=True)       # never read an earlier run's answer
    if proof is None and template.writes_proof:
        proof = work / "unchecked-proof.drat"  # named, so written where it is cleaned up
    values = {"output": result_path} if proof is None else {"output": result_path,
                                                           "proof": proof}
    args = template.argv(binary, inputs={"cnf": cnf_path}, **values)
    written = [result_path] if template.answer_in_file else []
    run = run_program(args, time_limit=time_limit, temp_dirs=[work],
                      output_files=written + ([proof] if proof is not None else []))
    stats = {"command": args, "exit_code": run.exit_code, "seconds": run.seconds}
    if run.timed_out:
        return SatAnswer.UNKNOWN, None, stats | {"reason": "time limit reached"}
    limit = answer_limit(num_vars)
    if template.answer_in_file and result_path.exists():
        where = f"{run.name}'s result file"
        text = read_output_file(result_path, limit, where)
    else:
        where = f"output of {run.name}"
        text = run.stdout_text(limit)
    try:
        answer = parse_solver_output(text, where, num_vars=num_vars)
    except DimacsError as exc:
        raise ExternalSolverError(
            f"{run.name} {run.ended()} and gave no usable answer ({exc}); last output: "
            f"{run.tail() or '(none)'}") from None
    # Exit codes 10/20 are the convention; a contradicting code means a confused run.
    if (answer.status == SatAnswer.SAT and run.exit_code not in (0, 10)) or (
            answer.status == SatAnswer.UNSAT and run.exit_code not in (0, 20)):
        raise ExternalSolverError(f"{run.name} said {answer.status} but {run.ended()}")
    if answer.status == SatAnswer.UNKNOWN:
        stats["reason"] = "solver reported unknown"
    return answer.status, answer.model, stats
