"""Route options as data (solvers/routes/options.py): the registry takes each route's options
from its family's declaration, refuses any other in one line, and the ``solve`` command's
route flags are built from the same declarations."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect

import pytest

from reductions.errors import UserError
from reductions.sudoku.grid import parse_grid
from solvers import cli, routes
from solvers.routes import options as route_options
from solvers.routes.options import ALL_OPTIONS, COMMON_OPTIONS
from solvers.routes import ROUTES, TARGET_OPTIONS, Target, template_route

cli_main = importlib.import_module("solvers.cli.program")
PUZZLE = (".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1......"
          "..8.6...")


def solve_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    solve = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)) \
        .choices["solve"]
    return {action.dest: action for action in solve._actions}


def test_solve_flags_are_the_declared_options(monkeypatch):
    """Every route flag of ``solve`` is a declared option with its spelling, choices (the
    same objects argparse shows), type, metavar and help, defaulting to None; and ``solve``
    has no other flags besides its own."""
    actions = solve_actions(cli_main.build_parser())
    monkeypatch.setattr(cli_main, "COMMAND_MODULES", ["solvers.cli.certify"])
    own = set(solve_actions(cli_main.build_parser()))   # certification is solve's own
    assert set(actions) - own == set(ALL_OPTIONS)
    for name, option in ALL_OPTIONS.items():
        action = actions[name]
        assert action.option_strings == [option.flag] == ["--" + name.replace("_", "-")]
        assert action.help == option.help and action.default is None
        if option.type is bool:
            assert isinstance(action, argparse._StoreTrueAction)
        else:
            assert action.choices is option.choices and action.metavar == option.metavar
            assert action.type is (None if option.type is str else option.type)


def test_every_route_takes_its_familys_options_less_its_presets():
    for route in ROUTES.values():
        family = route_options.CNF_INCREMENTAL if route.name == "sat-incremental" \
            else TARGET_OPTIONS[route.target]
        assert route.family is family
        assert route.options == family.names - set(route.presets)
        assert set(route.presets) <= family.names
    assert template_route("mine=hcp:mytour {input}").options \
        == route_options.HCP.names - {"hcp_cmd"}
    assert set(TARGET_OPTIONS) == set(Target)


def test_every_runner_takes_its_declared_options_as_keywords():
    """The declarations are what the family functions take (keyword-only, or for the hcp
    routes the fields of the options class its ``**options`` builds), so a declared option
    can always be passed on."""
    from solvers.routes.hcp import HcpRouteOptions
    for route in ROUTES.values():
        parameters = inspect.signature(route.runner()).parameters
        names = route.family.names | COMMON_OPTIONS
        if route.target == Target.HCP:
            fields = {field.name for field in dataclasses.fields(HcpRouteOptions)}
            assert fields == route.family.names
            assert parameters["options"].kind is inspect.Parameter.VAR_KEYWORD
            names = COMMON_OPTIONS
        for name in names:
            assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY, (route.name, name)


def test_an_option_is_declared_once():
    """--clues is shared by three families as one object; no name means two things."""
    assert route_options.CNF.options[-1] is route_options.EXACT_COVER.options[-1] \
        is route_options.ILP.options[-1] is ALL_OPTIONS["clues"]
    with pytest.raises(ValueError, match="declared twice"):
        route_options._by_name([route_options.CNF, route_options.OptionFamily(
            "other", (route_options.RouteOption(name="clues", help="x"),))])


def test_unknown_option_is_refused_in_one_line():
    puzzle = parse_grid(PUZZLE)
    with pytest.raises(UserError) as refused:
        routes.solve(puzzle, "sat", bogus_option=1)
    assert str(refused.value) == ("--bogus-option does not apply to route sat (its options: "
                                  "--amo, --clues, --encoding, --solver, --solver-cmd)")
    with pytest.raises(UserError) as refused:
        ROUTES["sat-glucose"].solve(puzzle, encoding="extended")
    assert str(refused.value) == ("--encoding does not apply to route sat-glucose (its "
                                  "options: --amo, --solver-cmd)")
    no_options = routes.Route(name="plain", target=Target.DEDUCTION, summary="",
                              family=route_options.OptionFamily("none", ()))
    with pytest.raises(UserError) as refused:
        no_options.check_options({"max_level": 3})
    assert str(refused.value) == "--max-level does not apply to route plain (it takes no " \
                                 "options)"


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_refuses_before_reading_puzzles(capsys, tmp_path):
    """``solve`` makes the route's own checks before it reads the puzzles: the same one
    line, exit 2, even for a file that does not exist."""
    missing = str(tmp_path / "no-such-file.txt")
    code, out, err = run(capsys, "solve", missing, "--via", "exact-cover", "--amo", "pairwise")
    assert (code, out) == (2, "")
    assert err == ("sudoku-bridge: error: --amo does not apply to route exact-cover (its "
                   "options: --clues, --cover-cmd, --cover-solver)\n")
    code, out, err = run(capsys, "solve", missing, "--via", "lkh", "--unique")
    assert (code, out) == (2, "")
    assert err == ("sudoku-bridge: error: route lkh does not check uniqueness; use --via sat "
                   "--unique\n")
    with pytest.raises(UserError, match="^route linkern does not check uniqueness"):
        ROUTES["linkern"].solve(parse_grid(PUZZLE), unique=True)
