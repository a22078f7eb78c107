"""Start-up of the command line: ``solve`` on the sat route and ``--help`` build the whole
parser, so the command modules must not import the heavy solvers and reductions at module
level (see solvers/cli/main.py's docstring). Each check runs the CLI in a fresh interpreter
and looks at ``sys.modules`` afterwards; no timing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .processes import ROOT

HEAVY = ["scipy.sparse", "pulp", "reductions.rules", "reductions.hcp_pipeline",
         "reductions.graph_reduction", "solvers.hamiltonian", "solvers.hcp_puzzle",
         "reductions.nonrepetitive"]

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
    assert "reductions.rules" in result["modules"]


def test_copied_choices_match_their_modules():
    """The choice list and the number the command modules repeat instead of importing the
    HCP pipeline and the rules engine."""
    import reductions.rules
    import solvers.hcp_puzzle
    from solvers.cli import hcp_solve, rules

    copy, original = hcp_solve.HCP_SOLVERS, solvers.hcp_puzzle.HCP_SOLVERS
    assert list(map(repr, copy)) == list(map(repr, original))   # argparse's messages show repr
    assert rules.MAX_LEVEL == reductions.rules.MAX_LEVEL


def test_route_options_are_the_options_routes_take():
    """``solve`` collects the route options from its parser; they are the routes' own."""
    from solvers.cli.main import build_parser
    from solvers.routes import ROUTES

    args = build_parser().parse_args(["solve", "x"])
    assert set(args.route_option_names) == set().union(*(r.options for r in ROUTES.values()))


def test_outside_programs_load_only_when_one_runs():
    """solvers/tools/ (templates, DIMACS, ILP and exact-cover programs) is not loaded by a
    solve on the default route nor by --help; a --solver-cmd run loads it."""
    for argv in (["solve", "instances/haythorpe-17clue.txt"], ["--help"]):
        assert [m for m in run_cli(*argv)["modules"] if m.startswith("solvers.tools")] == []
    result = run_cli("solve", "instances/haythorpe-17clue.txt", "--solver-cmd",
                     "no-such-solver-xyz")
    assert "solvers.tools.dimacs_programs" in result["modules"]
