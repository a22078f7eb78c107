"""Start-up of the command line: ``solve`` on the sat route and ``--help`` build the whole
parser, so the command modules must not import the heavy solvers and reductions at module
level (see solvers/cli/program.py's docstring). Each check runs the CLI in a fresh interpreter
and looks at ``sys.modules`` afterwards; no timing."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from solvers.cli.parser import COMMAND_SUMMARIES, command_named
from solvers.cli.program import build_parser
from tests.processes import ROOT

HEAVY = ["scipy.sparse", "pulp", "reductions.rules.engine", "reductions.hamiltonian.hcp_pipeline",
         "reductions.hamiltonian.graph_reduction", "solvers.hamiltonian", "solvers.routes.hcp",
         "reductions.nonrepetitive.nr_graph"]

RUN = """
import contextlib, io, json, sys
from solvers.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def run_cli(*argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", RUN, *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("argv", [["solve", "instances/haythorpe-17clue.txt"], ["--help"]],
                         ids=["solve", "help"])
def test_light_commands_import_no_heavy_module(argv):
    result = run_cli(*argv)
    assert result["code"] == 0
    if argv[0] == "solve":
        assert result["out"].count("\n") >= 9          # the solved grid was printed
    loaded = [name for name in HEAVY if name in result["modules"]]
    assert loaded == []


def test_the_check_can_fail():
    """A route that needs a heavy module does load it (so the test above can see one)."""
    result = run_cli("solve", "instances/haythorpe-17clue.txt", "--via", "rules")
    assert "reductions.rules.engine" in result["modules"]


def test_route_options_module_is_light():
    """The CLI builds its route flags from solvers.routes.options: importing it loads no
    heavy module and no solver module."""
    code = ("import json, sys; import solvers.routes.options; "
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    modules = json.loads(done.stdout)
    heavy = HEAVY + ["solvers.routes.sat", "solvers.routes.ilp", "solvers.routes.exact_cover", "solvers.routes.deduction",
                     "scipy", "pysat.solvers"]
    assert [name for name in heavy if name in modules] == []


def test_solver_modules_use_the_declared_vocabularies():
    """The solver modules take the names their route options choose from from
    solvers.routes.options (the same objects, not copies)."""
    import reductions.hamiltonian.hcp
    import reductions.rules.engine
    import solvers.routes.exact_cover
    import solvers.routes.hcp
    import solvers.routes.ilp
    import solvers.routes.sat
    from reductions.rules import levels as rule_levels
    from solvers.routes import options as declared

    assert solvers.routes.hcp.HcpSolver is declared.HcpSolver
    assert solvers.routes.hcp.HCP_SOLVERS is declared.HCP_SOLVERS
    assert solvers.routes.exact_cover.CoverSolver is declared.CoverSolver
    assert solvers.routes.ilp.IlpSolver is declared.IlpSolver
    assert solvers.routes.sat.DEFAULT_SOLVER is declared.DEFAULT_SOLVER
    assert reductions.rules.engine.MAX_LEVEL is rule_levels.MAX_LEVEL
    prune_modes = reductions.hamiltonian.hcp.PRUNE_MODES
    assert declared.ALL_OPTIONS["prune"].choices == tuple(map(str, prune_modes))


def test_outside_programs_load_only_when_one_runs():
    """solvers/tools/ (templates, DIMACS, ILP and exact-cover programs) is not loaded by a
    solve on the default route nor by --help; a --solver-cmd run loads it."""
    for argv in (["solve", "instances/haythorpe-17clue.txt"], ["--help"]):
        assert [m for m in run_cli(*argv)["modules"] if m.startswith("solvers.tools")] == []
    result = run_cli("solve", "instances/haythorpe-17clue.txt", "--solver-cmd",
                     "no-such-solver-xyz")
    assert "solvers.tools.dimacs_programs" in result["modules"]


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["--debug", "--help"]])
def test_the_top_level_imports_neither_numpy_nor_the_solvers(argv):
    """``--help`` and ``--version`` are answered by solvers/cli/parser.py alone."""
    result = run_cli(*argv)
    assert result["code"] == 0 and result["out"]
    loaded = [name for name in ("numpy", "scipy", "pysat", "pulp", "reductions.sudoku.grid",
                                "solvers.cli.program") if name in result["modules"]]
    assert loaded == []


def test_the_light_help_is_the_full_parsers_help(capsys):
    """The top level answered alone prints what the whole parser prints."""
    from solvers.cli.parser import parse_without_command
    assert parse_without_command(["--help"]) == 0
    assert capsys.readouterr().out == build_parser().format_help()


NOT_FOR_ONE_PUZZLE = ("scipy", "pulp", "solvers.crosscheck", "solvers.hamiltonian",
                      "reductions.hamiltonian.hcp", "reductions.hamiltonian.graphs",
                      "solvers.cli.crosscheck", "solvers.cli.hamiltonian", "solvers.cli.hcp",
                      "solvers.cli.nishio", "solvers.cli.nonrepetitive", "solvers.cli.generate",
                      "solvers.routes.sat_batch", "solvers.routes.sat_incremental",
                      "multiprocessing", "concurrent.futures", "importlib.metadata",
                      "numpy.ma", "hashlib")


def test_one_puzzle_loads_only_what_solving_it_needs():
    """``solve`` of one puzzle builds the solve command's parser alone: no other command's
    module, no cross-checking, no Hamiltonian graph, no scipy, no worker pool."""
    result = run_cli("solve", "instances/haythorpe-17clue.txt")
    assert result["code"] == 0 and result["out"].count("\n") >= 9
    loaded = [name for name in result["modules"]
              if name in NOT_FOR_ONE_PUZZLE or name.startswith(tuple(f"{package}."
                                                                    for package in NOT_FOR_ONE_PUZZLE))]
    assert loaded == []


def test_the_module_check_can_fail():
    """A file of puzzles does start a pool and load the batch path (so the test above can
    see a module it names)."""
    result = run_cli("solve", "instances/royle17-sample300.txt", "--jobs", "2")
    assert {"solvers.routes.sat_batch", "multiprocessing"} <= set(result["modules"])


def _parsers(parser, path=()):
    """Every parser under ``parser`` by its command words, ``parser`` itself first."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


@pytest.mark.parametrize("command", list(COMMAND_SUMMARIES))
def test_one_commands_parser_is_the_full_parsers(command):
    """The parser built for one command (what a command line naming it builds) prints the
    same help, takes the same options and runs the same functions as the whole parser, for
    the command and every sub-command of it; the top level lists every command alike."""
    full = dict(_parsers(build_parser()))
    alone = dict(_parsers(build_parser(command)))
    mine = [path for path in full if path[:1] == (command,)]
    assert mine and [path for path in alone if path[:1] == (command,)] == mine
    for path in [(), *mine]:
        assert alone[path].format_help() == full[path].format_help(), path
        assert _named(alone[path]._defaults) == _named(full[path]._defaults), path
        assert _options(alone[path]) == _options(full[path]), path


def _options(parser) -> list[tuple]:
    """What each option of ``parser`` is (its type by name: some are made per build)."""
    return [(a.option_strings, a.dest, a.default, a.choices, _named(a.type))
            for a in parser._actions if not isinstance(a, argparse._SubParsersAction)]


def _named(value):
    """``value`` with functions by their names (some are made per build)."""
    if isinstance(value, dict):
        return {key: _named(item) for key, item in value.items()}
    return getattr(value, "__qualname__", value) if callable(value) else value


def test_a_command_line_builds_its_commands_parser_only():
    """The command is the first word that is no option; a word that is no command builds
    the whole parser (its error lists every command)."""
    assert command_named(["--debug", "solve", "x"]) == "solve"
    assert command_named(["emit", "cnf", "-"]) == "emit"
    assert command_named(["slove", "x"]) is None
    assert command_named(["-", "solve"]) is None
    assert command_named(["--help"]) is None
