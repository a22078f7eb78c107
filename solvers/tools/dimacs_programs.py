"""Any DIMACS SAT solver program (``--solver-cmd``, the routes ``--via cadical`` ...): its
command template, one run on a CNF file, its answer.

A solver is a name (:data:`KNOWN_COMMANDS`: the command line it stands for) or a command
template (:mod:`solvers.tools.templates`): ``{input}`` the CNF file (appended when absent),
``{output}`` a result file the solver writes, MiniSat style (without it, its stdout is the
answer). :func:`run_dimacs_solver` runs it without a shell through
:func:`solvers.runtime.processes.run_program` (its own process group, killed at the time limit, on
Ctrl-C and when we die) and reads SAT-competition ``s``/``v`` lines or MiniSat's result file
(:func:`solvers.formats.dimacs.parse_solver_output`), with exit codes 10/20 checked against
the answer. A time-out is "unknown", never "unsatisfiable".
"""

from __future__ import annotations

from pathlib import Path

from ..runtime.processes import ExternalSolverError, find_program, read_output_file, run_program
from ..formats.dimacs import DimacsError, SatAnswer, answer_limit, parse_solver_output
from .templates import CommandTemplate, TemplateRules, parse_template

__all__ = ["DIMACS_TEMPLATES", "KNOWN_COMMANDS", "dimacs_template", "run_dimacs_solver"]

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

DIMACS_TEMPLATES = TemplateRules(option="--solver-cmd",
                                 hint="give a solver name or a command line",
                                 default_format="cnf", known=KNOWN_COMMANDS)
"""``--solver-cmd``: ``{input}`` (appended when absent) and ``{output}``."""


def dimacs_template(solver_cmd: str) -> CommandTemplate:
    """The parsed template of a solver given by name (see :data:`KNOWN_COMMANDS`) or as a
    command line (module docstring)."""
    return parse_template(solver_cmd, DIMACS_TEMPLATES)


def run_dimacs_solver(solver_cmd: str, cnf_path: Path, *, work: Path, num_vars: int,
                      time_limit: float | None = None) -> tuple[SatAnswer, list[int] | None, dict]:
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
    args = template.argv(binary, inputs={"cnf": cnf_path}, output=result_path)
    run = run_program(args, time_limit=time_limit, temp_dirs=[work],
                      output_files=[result_path] if template.answer_in_file else [])
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
