"""DIMACS solver programs (solvers/tools/dimacs_programs.py): the ``--solver-cmd`` template
(known names, ``{input}`` appended, ``{output}`` a result file) and one run of a program on
a CNF file, answer on stdout or in a result file, exit codes checked. The programs here are
real processes (small shell scripts); the Sudoku route through them is in test_routes_sat.py."""

from __future__ import annotations

import pytest

from reductions.errors import UserError
from solvers.runtime.processes import ExternalSolverError
from solvers.formats.dimacs import SatAnswer
from solvers.tools.dimacs_programs import KNOWN_COMMANDS, dimacs_template, run_dimacs_solver

from tests.processes import fakes, wait_until  # noqa: F401  (fixture)

CNF = "p cnf 2 2\n1 2 0\n-1 0\n"


def test_command_templates():
    assert dimacs_template("minisat").args == ("minisat", "-verb=0", "{input}", "{output}")
    assert dimacs_template("/opt/bin/cadical").args == ("/opt/bin/cadical", "-q", "{input}")
    assert dimacs_template("mysolver --fast").args == ("mysolver", "--fast", "{input}")
    assert dimacs_template("minisat").answer_in_file
    assert not dimacs_template("kissat").answer_in_file


def test_every_known_command_reads_its_input():
    for name, words in KNOWN_COMMANDS.items():
        template = dimacs_template(name)
        assert template.args == tuple(words) and template.inputs == {"input": "cnf"}


@pytest.mark.parametrize("template, message", [
    ("", "--solver-cmd is empty: give a solver name or a command line"),
    ("'open", "--solver-cmd \"'open\": cannot split it (No closing quotation)"),
])
def test_bad_templates(template, message):
    with pytest.raises(UserError) as caught:
        dimacs_template(template)
    assert str(caught.value) == message


def run_script(fakes, tmp_path, body: str, *, output: bool = False):
    program = fakes.script("solver", body)
    cnf = tmp_path / "f.cnf"
    cnf.write_text(CNF)
    template = f"{program} {{input}}" + (" {output}" if output else "")
    return run_dimacs_solver(template, cnf, work=tmp_path, num_vars=2, time_limit=10)


def test_answer_on_stdout(fakes, tmp_path):
    status, model, stats = run_script(fakes, tmp_path, 'grep -q "^p cnf 2 2" "$1" || exit 1\n'
                                                       'echo "s SATISFIABLE"; echo "v -1 2 0"; '
                                                       'exit 10\n')
    assert (status, model, stats["exit_code"]) == (SatAnswer.SAT, [-1, 2], 10)


def test_answer_in_the_result_file(fakes, tmp_path):
    status, model, _ = run_script(fakes, tmp_path, 'printf "SAT\\n-1 2 0\\n" > "$2"\n',
                                  output=True)
    assert (status, model) == (SatAnswer.SAT, [-1, 2])


def test_an_exit_code_that_contradicts_the_answer_is_an_error(fakes, tmp_path):
    with pytest.raises(ExternalSolverError, match="said UNSAT but exited with code 10"):
        run_script(fakes, tmp_path, 'echo "s UNSATISFIABLE"; exit 10\n')


def test_time_limit_is_unknown(fakes, tmp_path):
    program = fakes.script("solver", "$SLEEP 30\n")
    cnf = tmp_path / "f.cnf"
    cnf.write_text(CNF)
    status, model, stats = run_dimacs_solver(f"{program}", cnf, work=tmp_path, num_vars=2,
                                             time_limit=0.3)
    assert (status, model, stats["reason"]) == (SatAnswer.UNKNOWN, None, "time limit reached")
    # SIGKILL was sent to the group; a loaded machine may take a moment to carry it out.
    assert wait_until(lambda: fakes.sleepers() == [], 5), fakes.sleepers()
