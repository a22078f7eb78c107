"""The exit-code contract of solvers/cli/program.py for what nothing else exercises: a bug
(an unexpected exception) is one line and exit 70 — never 1, which means "no solution" — with
the traceback only under --debug; --help lists every code; every usage error is one line and
exit 2; and a stdout that cannot be written (a full device, a closed descriptor) is one line
and exit 2 for every command."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from reductions.sudoku.grid import format_grid, parse_grid
from solvers.cli import ExitCode, main
from solvers.routes import ROUTES, Route, Target

from tests.conftest import ROOT
from tests.fuzz_inputs import seed_files
from tests.reductions.sudoku.test_grid import PAPER_17, PAPER_17_SOLUTION


def broken_route(puzzle, *, unique, time_limit):
    """A route with a bug in it (planted by the tests below)."""
    return {}["no such key"]


@pytest.fixture
def broken(monkeypatch):
    monkeypatch.setitem(ROUTES, "broken", Route(name="broken", target=Target.CNF,
                                               summary="planted by the test",
                                               run=lambda: broken_route))


def test_a_bug_is_one_line_and_exit_70(broken, capsys, monkeypatch):
    monkeypatch.delenv("SUDOKU_BRIDGE_DEBUG", raising=False)
    code = main(["solve", PAPER_17, "--via", "broken"])
    out, err = capsys.readouterr()
    assert code == ExitCode.INTERNAL_ERROR == 70 and out == ""
    assert err == ("sudoku-bridge: internal error, please report: KeyError: 'no such key' "
                   "(run with --debug for the traceback)\n")


@pytest.mark.parametrize("where", ["before", "after", "environment"])
def test_debug_shows_the_traceback(broken, capsys, monkeypatch, where):
    argv = ["solve", PAPER_17, "--via", "broken"]
    if where == "before":
        argv.insert(0, "--debug")
    elif where == "after":
        argv.append("--debug")
    else:
        monkeypatch.setenv("SUDOKU_BRIDGE_DEBUG", "1")
    assert main(argv) == ExitCode.INTERNAL_ERROR
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "broken_route" in err
    assert err.rstrip().endswith("internal error, please report: KeyError: 'no such key'")


def test_help_lists_every_exit_code(capsys):
    assert main(["--help"]) == ExitCode.OK
    out = capsys.readouterr().out
    for code in ExitCode:
        assert f"{int(code):>3}  " in out, code


# ----------------------------------------------------------------------------- usage errors

BAD_USAGE = [
    [], ["bogus"], ["solve"], ["solve", PAPER_17, "--time-limit", "-1"],
    ["solve", PAPER_17, "--time-limit", "x"], ["solve", PAPER_17, "--jobs", "0"],
    ["solve", PAPER_17, "--jobs", "5000"], ["solve", PAPER_17, "--jobs", "1\n2"],
    ["solve", PAPER_17, "--via"], ["solve", PAPER_17, "--amo", "z"],
    ["solve", PAPER_17, "--box", "1"], ["solve", PAPER_17, "--no-such-option"],
    ["solve", PAPER_17, "--bad\noption"], ["solve", PAPER_17, "--max-memory", "lots"],
    ["emit"], ["emit", "nope"], ["emit", "cnf"], ["emit", "cnf", PAPER_17],
    ["emit", "ilp", PAPER_17, "-o", "x.lp", "--format", "q"], ["decode", "cnf", "x.cnf"],
    ["gadget"], ["gadget", "nishio", "--variant", "thm9"], ["verify", PAPER_17],
    ["rules", PAPER_17, "--max-level", "x"],
    ["rules", PAPER_17, "--max-level", "3", "--rules", "naked-single"],
    ["generate", "--count", "0"], ["generate", "--size", "x"], ["crosscheck"],
    ["crosscheck", PAPER_17, "--jobs", "-3"], ["nishio"], ["nonrepetitive"],
]


@pytest.mark.parametrize("argv", BAD_USAGE, ids=lambda argv: " ".join(argv) or "nothing")
def test_every_usage_error_is_one_line_and_exit_2(capsys, argv):
    """On 3788535 argparse printed its usage block first: 20 lines for ``--time-limit -1``,
    8 for ``--jobs 0``."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == ExitCode.BAD_INPUT and out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("sudoku-bridge") and ": error: " in lines[0]
    assert "usage:" not in err and "<" not in err       # no enum reprs in the choices


def test_a_usage_error_names_the_command_and_the_option(capsys):
    assert main(["solve", PAPER_17, "--time-limit", "-1"]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err == (
        "sudoku-bridge solve: error: --time-limit: '-1': give 0 or more seconds (below 10^9) "
        "(see --help)\n")


# ----------------------------------------------------------------------------- stdout failures

FOUR = "....1.4...3.4..2"

# Every command, printing to stdout (files as tests/fuzz_inputs.py seeds them, in {dir}).
PRINTING = {
    "solve": ["solve", FOUR],
    "solve FILE": ["solve", "{dir}/many.txt"],
    "solve FILE --json": ["solve", "{dir}/many.txt", "--json"],
    "emit cnf -o -": ["emit", "cnf", FOUR, "-o", "-"],
    "emit exact-cover -o -": ["emit", "exact-cover", FOUR, "-o", "-"],
    "emit ilp": ["emit", "ilp", FOUR, "-o", "{out}/p.lp"],
    "emit hcp": ["emit", "hcp", FOUR, "-o", "{out}/g.hcp"],
    "decode cnf": ["decode", "cnf", "{dir}/p.cnf", "{dir}/cnf.answer"],
    "decode exact-cover": ["decode", "exact-cover", "{dir}/p.dlx", "{dir}/cover.answer"],
    "decode ilp": ["decode", "ilp", "{dir}/p.lp", "{dir}/cbc.answer"],
    "decode hcp": ["decode", "hcp", "{dir}/g.hcp", "{dir}/tour"],
    "gadget nishio": ["gadget", "nishio", "{dir}/f.cnf", "-o", "{out}/s.txt"],
    "gadget nrpath": ["gadget", "nrpath", "{dir}/f.cnf", "-o", "{out}/g.txt"],
    "verify": ["verify", "{dir}/p.txt", "{dir}/solution.txt"],
    "nishio": ["nishio", "{dir}/s.txt"],
    "nonrepetitive": ["nonrepetitive", "{dir}/edges.txt", "--cyclic-edges"],
    "crosscheck": ["crosscheck", "{dir}/p.txt", "--routes", "sat,exact-cover", "--jobs", "1"],
    "rules": ["rules", FOUR, "--explain"],
    "rules FILE": ["rules", "{dir}/many.txt", "--jobs", "1"],
    "rules --list": ["rules", "--list"],
    "generate": ["generate", "--size", "4", "--seed", "1"],
}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """Valid input files of every kind, answers included."""
    directory = tmp_path_factory.mktemp("inputs")
    seeds = seed_files(directory)
    for name, seed in {"cnf.answer": "cnf answer", "cover.answer": "cover answer",
                       "cbc.answer": "cbc answer", "tour": "hcp tour",
                       "solution.txt": "solution", "edges.txt": "edges"}.items():
        (directory / name).write_bytes(seeds[seed])
    (directory / "many.txt").write_text(f"{FOUR}\n{PAPER_17}\n" * 40)
    return directory


def run_printing(command: str | list[str], directory, out,
                 **popen) -> subprocess.CompletedProcess:
    """A command of :data:`PRINTING` (or a command line like theirs) in a child process."""
    template = PRINTING[command] if isinstance(command, str) else command
    argv = [a.format(dir=directory, out=out) for a in template]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("SUDOKU_BRIDGE_DEBUG", None)
    popen.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "solvers.cli", *argv], text=True, env=env,
                          timeout=300, **popen)


def assert_failed_in_one_line(done: subprocess.CompletedProcess, line: str) -> None:
    assert done.returncode == ExitCode.BAD_INPUT, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[-1] == line and lines.count(line) == 1, done.stderr


def test_every_command_prints(seeded, tmp_path):
    """The commands below do print on stdout (so the failures below are stdout's)."""
    for command in PRINTING:
        done = run_printing(command, seeded, tmp_path, stdout=subprocess.PIPE)
        assert done.returncode == ExitCode.OK and done.stdout, (command, done.stderr)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("command", PRINTING)
def test_a_full_stdout_is_one_line_and_exit_2(seeded, tmp_path, command):
    """On 3788535 ``solve``, ``rules``, ``verify``, ``decode``, ``crosscheck`` and
    ``nonrepetitive`` ended in exit 70 ("internal error ... OSError: [Errno 28]")."""
    with open("/dev/full", "w") as full:
        done = run_printing(command, seeded, tmp_path, stdout=full)
    assert_failed_in_one_line(done, "sudoku-bridge: error: stdout: cannot write "
                                    "(No space left on device)")


@pytest.mark.parametrize("command", PRINTING)
def test_a_closed_stdout_is_one_line_and_exit_2(seeded, tmp_path, command):
    """On 3788535 ``solve p.txt >&-`` ended in exit 1 ("no solution") with a traceback."""
    done = run_printing(command, seeded, tmp_path, preexec_fn=lambda: os.close(1))
    assert_failed_in_one_line(done, "sudoku-bridge: error: stdout is closed, so no result "
                                    "could be shown; redirect it instead (e.g. >/dev/null)")
    assert not list(tmp_path.iterdir())          # refused before any work


def test_a_full_or_closed_stderr(seeded, tmp_path):
    """On 3788535 both were exit 70 (internal error); a closed stderr sent the error
    messages of ``print(file=sys.stderr)`` to stdout."""
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            done = run_printing("solve FILE", seeded, tmp_path, stdout=subprocess.PIPE,
                                stderr=full)
        assert done.returncode == ExitCode.BAD_INPUT        # the summary could not be shown
    closed = {"preexec_fn": lambda: os.close(2), "stdout": subprocess.PIPE}
    done = run_printing("solve FILE", seeded, tmp_path, **closed)
    assert done.returncode == ExitCode.OK and len(done.stdout.splitlines()) == 80
    done = run_printing(["solve", "{dir}/missing.txt"], seeded, tmp_path, **closed)
    assert done.returncode == ExitCode.BAD_INPUT and done.stdout == ""


def test_a_closed_stderr_does_not_move_errors_to_stdout(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stderr", None)
    assert main(["solve", "no-such-file.txt"]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().out == ""


# ----------------------------------------------------------------------------- Ctrl-C at start-up

INTERRUPTED_IMPORT = """
import builtins, signal, sys
real_import = builtins.__import__
fired = []

def interrupting_import(name, *args, **kwargs):
    if name == {module!r} and not fired:
        fired.append(name)
        {how}
    return real_import(name, *args, **kwargs)

builtins.__import__ = interrupting_import
from solvers.cli import main
sys.exit(main(["solve", {puzzle!r}]))
"""

HOW = {
    "a plain KeyboardInterrupt": "signal.raise_signal(signal.SIGINT)",
    # numpy's C import turns an interrupt into an ImportError (seen: exit 1, a traceback)
    "one a C extension turned into an ImportError": """try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            raise ImportError('PyCapsule_Import could not import module "datetime"')""",
    # an interrupt out of exec() of a string (dataclasses make their methods so) marks
    # the process as interrupted by the signal in CPython 3.11 (seen: exit -2)
    "one out of exec": """try:
            exec("raise KeyboardInterrupt")
        except KeyboardInterrupt:
            pass
        signal.raise_signal(signal.SIGINT)""",
}


@pytest.mark.parametrize("module", ["numpy", "reductions.sudoku.grid", "dataclasses",
                                    "pysat.solvers"])
@pytest.mark.parametrize("how", list(HOW))
def test_ctrl_c_during_the_imports_is_one_line_and_exit_130(module, how):
    """The command line's modules import numpy, scipy and the routes: most of the start-up,
    before :func:`solvers.cli.program` of old had any handler in place."""
    script = INTERRUPTED_IMPORT.format(module=module, how=HOW[how], puzzle=PAPER_17)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr, done.stdout) == \
        (ExitCode.INTERRUPTED, "sudoku-bridge: interrupted\n", "")


# ----------------------------------------------------------------------------- a Ctrl-C swallowed

SWALLOWED_INTERRUPT = """
import gc, signal, sys
from reductions.sudoku.grid import parse_grid
from solvers.cli import main
from solvers.outcome import Outcome, Status
from solvers.routes import ROUTES, Route, Target


class Collected:
    def __del__(self):                      # Python ignores what a destructor raises
        signal.raise_signal(signal.SIGINT)


def route(puzzle, *, unique, time_limit):
    Collected()                             # the Ctrl-C lands in its destructor
    gc.collect()
    {then}


ROUTES["swallowing"] = Route(name="swallowing", target=Target.CNF, summary="planted",
                             run=lambda: route)
sys.exit(main(["solve", {puzzle!r}, "--via", "swallowing"]))
"""

THEN = {
    "answers": f"return Outcome(Status.SOLVED, parse_grid({PAPER_17_SOLUTION!r}))",
    # the same Ctrl-C ended the pool's workers: "a worker process died"
    "fails as bad input": "from reductions.errors import UserError; "
                          "raise UserError('a worker process died')",
    "crashes": "return {}['no such key']",
}


@pytest.mark.parametrize("then", list(THEN))
def test_a_ctrl_c_swallowed_by_a_destructor_is_still_exit_130(then):
    """Seen under load: a SIGINT to the group landed in ``Popen.__del__``; the parent went
    on, its pool workers had died of the same signal, and the run ended with exit 4 ("900
    errors") instead of 130."""
    script = SWALLOWED_INTERRUPT.format(then=THEN[then], puzzle=PAPER_17)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr.splitlines()[-1:]) == \
        (ExitCode.INTERRUPTED, ["sudoku-bridge: interrupted"])
    # what was printed before the interrupt counted is the verified answer, or nothing
    expected = format_grid(parse_grid(PAPER_17_SOLUTION), "pretty") if then == "answers" else ""
    assert done.stdout.strip() == expected.strip()
