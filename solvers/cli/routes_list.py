"""``sudoku-bridge routes``: every built-in route, what it needs (a package or a program, and
where that comes from), whether it can run here, and the version found.

Program versions are asked of the programs themselves, all at once and each bounded
(:func:`solvers.runtime.programs.program_versions`); a missing one is named with how to get
it (:func:`~solvers.runtime.programs.how_to_get`).
"""

from __future__ import annotations

import argparse
import json
import shutil
from dataclasses import asdict, dataclass

from ..routes import ROUTES, Route
from ..routes.options import HcpSolver
from ..routes.registry import Target
from ..runtime.programs import (EXTRAS, how_to_get, package_name, package_version,
                                program_versions)
from . import common
from .parser import COMMAND_SUMMARIES
from .common import ExitCode

LKH_PROGRAM = "LKH"
"""The name the ``lkh`` route's binary is listed under (it also looks for ``lkh``, ...)."""


@dataclass
class RouteNeeds:
    """One line of the listing: the route, whether it can run here (else why not), what it
    needs, and what was found (a program's path, a package's version)."""

    route: str
    runs_here: bool
    needs: str
    found: str
    why_not: str | None = None


def register(commands: common.Commands) -> None:
    parser = commands.top.add_parser(
        "routes", help=COMMAND_SUMMARIES["routes"],
        description="List every built-in route of 'solve --via' and 'crosscheck --routes': "
                    "what it needs (a Python package or an outside program, and where that "
                    "comes from), whether it can run here, and the version found (asked of "
                    "each program, at most a few seconds each).")
    parser.add_argument("--json", action="store_true",
                        help="one JSON record per route (route, runs_here, needs, found, "
                             "why_not)")
    parser.set_defaults(run=run_routes)


def run_routes(args: argparse.Namespace) -> int:
    rows = route_needs(ROUTES.values())
    if args.json:
        for row in rows:
            print(json.dumps(asdict(row)))
        return ExitCode.OK
    width = max(len(row.route) for row in rows) + 2
    print(f"{'route':<{width}}here  needs: found")
    for row in rows:
        print(f"{row.route:<{width}}{'yes' if row.runs_here else 'no':<6}{row.needs}: "
              f"{row.found}")
    return ExitCode.OK


def route_needs(routes) -> list[RouteNeeds]:
    """The listing's lines, the programs' versions asked all at once."""
    routes = list(routes)
    paths = {name: shutil.which(name) for name in _programs(routes)}
    versions = program_versions(path for path in paths.values() if path)
    return [_needs(route, paths, versions) for route in routes]


def _programs(routes: list[Route]) -> list[str]:
    names = [route.needs_program for route in routes if route.needs_program]
    return names + ["cbc", LKH_PROGRAM]          # the ilp route's and the lkh route's


def _needs(route: Route, paths: dict, versions: dict) -> RouteNeeds:
    reason = route.unavailable()
    if route.needs_program:
        needs = f"program {route.needs_program} ({how_to_get(route.needs_program)})"
        found = _program_found(route.needs_program, paths, versions)
    elif route.needs_module:
        needs = _package_needs(route.needs_module)
        found = _package_found(route.needs_module)
    elif route.presets.get("hcp_solver") == HcpSolver.LKH:        # a binary, else elkai
        needs = (f"program {LKH_PROGRAM} or the Python package elkai "
                 f"({how_to_get(LKH_PROGRAM)})")
        found = (f"{_program_found(LKH_PROGRAM, paths, versions)}; elkai "
                 f"{package_version('elkai') or 'not installed'}")
    elif route.target == Target.ILP and "ilp_solver" not in route.presets:   # cbc, else PuLP's
        needs = "program cbc when on PATH, else PuLP's bundled CBC"
        found = f"{_program_found('cbc', paths, versions)}; pulp {package_version('pulp')}"
    elif route.target == Target.EXACT_COVER and "cover_solver" not in route.presets:
        needs = f"{_package_needs('exact_cover')} when installed, else built in"
        found = _package_found("exact_cover")
    else:
        needs, found = _built_in(route)
    return RouteNeeds(route.name, reason is None, needs, found, reason)


def _built_in(route: Route) -> tuple[str, str]:
    """What a route that needs nothing outside this package runs on."""
    if route.target in ("cnf", "hcp"):
        return "built in, on python-sat", f"python-sat {package_version('pysat')}"
    return "built in", "-"


def _program_found(name: str, paths: dict, versions: dict) -> str:
    path = paths.get(name)
    if path is None:
        return f"{name} not on PATH"
    version = versions.get(path)
    return f"{path}, version {version}" if version else f"{path} (version not reported)"


def _package_needs(module: str) -> str:
    extra = EXTRAS.get(module)
    return f"Python package {package_name(module)}" + (f" (extra {extra})" if extra else "")


def _package_found(module: str) -> str:
    version = package_version(module)
    return f"{package_name(module)} {version}" if version else "not installed"
