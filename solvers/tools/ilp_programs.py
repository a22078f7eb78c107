"""ILP solver programs: CBC, glpsol and any program by a command template (``--ilp-cmd``),
each run once on a model file written for it, its answer read back.

* ``cbc`` — the binary is, in order: the ``cbc_path`` given (a name on PATH or a path), a
  ``cbc`` on PATH (Debian's ``coinor-cbc``, or the one ``pip install pulp[cbc]`` brings),
  the binary bundled inside older PuLP wheels (:func:`find_cbc`). It runs
  ``cbc MODEL.mps [-sec S -timeMode elapsed] -solve -solution ANSWER``.
* ``glpsol`` — GLPK's command line: ``glpsol --mps MODEL.mps [--tmlim S] -w ANSWER`` (the
  raw solution: ``s mip ... o|f`` solved, ``n`` no integer feasible solution, anything else
  unknown).
* ``--ilp-cmd`` — any other program, by a command template (:func:`ilp_template`, parsed by
  :mod:`solvers.tools.templates`): ``{input}`` is the model file (fixed MPS;
  ``{input.lp}`` / ``{input.mps}`` / ``{input.free-mps}`` ask for that form), ``{output}`` a
  file for the answer (without it, the answer is read from the program's stdout).

Every program runs through :func:`solvers.runtime.processes.run_program` (its own process group,
killed at our time limit, on Ctrl-C and when we die); the model goes to a temporary file
and the answer is read by content by :func:`solvers.formats.lp_solution.parse_lp_solution`,
the one reader of solution files (also used by ``decode ilp``). With a time limit the
program's own limit (CBC's ``-sec``, glpsol's ``--tmlim``) is set a little below ours, so
that it normally stops by itself and writes what it has; one still running at our limit is
killed and the answer is "unknown".
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

from ..runtime.budget import Deadline
from ..runtime.processes import ExternalSolverError, find_program, read_output_file, run_program
from ..runtime.scratch import temporary_directory
from ..formats.lp_solution import (SolutionFormatError, model_columns, parse_lp_solution,
                                   solution_limit)
from ..formats.mps import ModelFormat
from ..outcome import SolverUnavailable, Status
from .templates import CommandTemplate, TemplateRules, parse_template

if TYPE_CHECKING:
    from reductions.encodings.ilp import SudokuToIlp

    from ..formats.ilp_model import IlpAnswer

__all__ = ["Command", "ILP_TEMPLATES", "bundled_cbc", "cbc_command", "find_cbc",
           "find_glpsol", "glpsol_command", "ilp_template", "own_limit", "run_cbc",
           "run_glpsol", "run_ilp_command", "run_program_on_model"]

INPUT_FORMS = {"mps": ModelFormat.MPS, "lp": ModelFormat.LP, "free-mps": ModelFormat.FREE_MPS}
"""The model forms an ``--ilp-cmd`` template may ask for (``{input.FORM}``)."""

ILP_TEMPLATES = TemplateRules(
    option="--ilp-cmd", hint="give a command line, e.g. 'glpsol --mps {input} -w {output}'",
    default_format=ModelFormat.MPS, input_format=INPUT_FORMS.get, one_format="model form")
"""``--ilp-cmd``: ``{input}`` (fixed MPS, appended when no model field is named) or
``{input.FORM}``, one form per command; ``{output}``."""


def bundled_cbc() -> str | None:
    """The CBC binary shipped inside the PuLP wheel, when there is one and it runs."""
    try:
        from pulp.apis import coin_api
    except ImportError:
        return None
    path = getattr(coin_api, "pulp_cbc_path", None)
    if path and os.path.isfile(path) and os.access(path, os.X_OK):
        return os.path.realpath(path)
    return None


def find_cbc(cbc_path: str | None = None) -> str:
    """Path of the CBC binary to run: ``cbc_path`` (a name on PATH or a path; a missing one
    is :class:`SolverUnavailable`), else ``cbc`` on PATH, else PuLP's bundled one, else
    :class:`SolverUnavailable` saying what to install."""
    found = find_program(cbc_path, ("cbc",), what="CBC") or bundled_cbc()
    if not found:
        raise SolverUnavailable("CBC not found: no 'cbc' on PATH and no binary bundled with "
                                "PuLP (install Debian's coinor-cbc or 'pip install pulp[cbc]', "
                                "or use --ilp-solver highs)")
    return found


def find_glpsol() -> str:
    found = find_program(None, ("glpsol",), what="glpsol")
    if not found:
        raise SolverUnavailable("glpsol not found on PATH (install Debian's glpk-utils)")
    return found


def own_limit(time_limit: float) -> float:
    """An outside solver's own time limit: below our hard limit, leaving time to read the
    model and write the answer (solvers check their clock only between steps)."""
    return max(0.5 * time_limit, time_limit - max(0.5, 0.1 * time_limit))


def cbc_command(binary: str, model_file: str, solution_file: str,
                time_limit: float | None = None) -> list[str]:
    """The CBC argument list: read the model, solve, write the solution file."""
    args = [binary, model_file]
    if time_limit is not None:
        args += ["-sec", f"{own_limit(time_limit):.2f}", "-timeMode", "elapsed"]
    return args + ["-solve", "-solution", solution_file]


def glpsol_command(binary: str, model_file: str, solution_file: str,
                   time_limit: float | None = None) -> list[str]:
    """The glpsol argument list: read the fixed MPS model, solve, write the raw solution
    (``--tmlim`` takes whole seconds; below one, only our own limit applies)."""
    args = [binary, "--mps", model_file]
    if time_limit is not None and own_limit(time_limit) >= 1:
        args += ["--tmlim", str(int(own_limit(time_limit)))]
    return args + ["-w", solution_file]


def ilp_template(ilp_cmd: str) -> CommandTemplate:
    """The parsed ``--ilp-cmd`` template (module docstring): its one model form is
    :attr:`~solvers.tools.templates.CommandTemplate.input_formats`' one member."""
    return parse_template(ilp_cmd, ILP_TEMPLATES)


Command = Callable[[str, str, float | None], list[str]]
"""(model file, answer file, time left) → the argument list of a run."""


def run_ilp_command(rule: SudokuToIlp, ilp_cmd: str,
                    time_limit: float | None) -> IlpAnswer:
    """Solve the model once with the program of the ``ilp_cmd`` template, run in our
    directory (where a user's template may name files)."""
    template = ilp_template(ilp_cmd)
    binary = os.path.abspath(find_program(template.program, what="ILP solver"))
    [fmt] = template.input_formats

    def command(model_file: str, answer_file: str, _: float | None) -> list[str]:
        return template.argv(binary, inputs={fmt: model_file}, output=answer_file)
    return run_program_on_model(rule, command, fmt, time_limit,
                                from_file=template.answer_in_file, in_work=False)


def run_cbc(rule: SudokuToIlp, binary: str, time_limit: float | None) -> IlpAnswer:
    """Solve the model once with the CBC binary (:func:`find_cbc`) on its fixed MPS file."""
    return run_program_on_model(rule, lambda m, a, t: cbc_command(binary, m, a, t),
                                ModelFormat.MPS, time_limit, what=f"CBC ({binary})")


def run_glpsol(rule: SudokuToIlp, binary: str, time_limit: float | None) -> IlpAnswer:
    """Solve the model once with glpsol (:func:`find_glpsol`) on its fixed MPS file."""
    return run_program_on_model(rule, lambda m, a, t: glpsol_command(binary, m, a, t),
                                ModelFormat.MPS, time_limit, what=f"glpsol ({binary})")


def run_program_on_model(rule: SudokuToIlp, command: Command, fmt: ModelFormat,
                         time_limit: float | None, *, from_file: bool = True,
                         what: str | None = None, in_work: bool = True) -> IlpAnswer:
    """Write the model in ``fmt``, run the program under the time limit (writing the file
    counts; ``in_work``: in the temporary directory, else in ours, where a user's template
    may name files), read its answer (the answer file, or its stdout when ``from_file`` is
    false) by content, decode it with ``rule`` (the model is its target). A program that
    gives no usable answer is an :class:`ExternalSolverError` naming it and how it ended."""
    model = rule.target
    # The model files and their decoding live in solvers.routes.ilp (imported here, when a program
    # runs, so that solvers.routes.ilp may import this module).
    from ..formats.ilp_model import (FILE_NAMES, IlpAnswer, answer_from_solution,
                                     column_names, write_model)
    deadline = Deadline(time_limit)
    with temporary_directory("sudoku-bridge-ilp-") as work:
        model_path = work / FILE_NAMES[fmt]
        answer_path = work / "answer.sol"
        write_model(model_path, model, fmt)
        remaining = deadline.remaining()
        args = command(str(model_path), str(answer_path), remaining)
        run = run_program(args, cwd=work if in_work else None, time_limit=remaining,
                          temp_dirs=[work], output_files=[answer_path] if from_file else [])
        what = what or run.name
        if run.timed_out:
            return IlpAnswer(Status.UNKNOWN, None, "time limit reached")
        limit = solution_limit(model.num_variables)
        if from_file:
            if not answer_path.exists():
                raise ExternalSolverError(f"{what} {run.ended()} and wrote no solution "
                                          f"file; last output: {run.tail() or '(none)'}")
            where = f"{run.name}'s answer file"
            text = read_output_file(answer_path, limit, where)
        else:
            where = f"output of {run.name}"
            text = run.stdout_text(limit)
        try:
            solution = parse_lp_solution(text.splitlines(), where, model_columns(model_path))
        except SolutionFormatError as exc:
            raise ExternalSolverError(f"{what} {run.ended()} and gave no usable answer "
                                      f"({exc}); last output: {run.tail() or '(none)'}") \
                from None
        answer = answer_from_solution(rule, solution, where, column_names(model, model_path))
    if answer.status == Status.UNKNOWN and time_limit is not None:
        answer.detail = "time limit reached"
    return answer
