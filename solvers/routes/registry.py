"""The one registry of solving routes: ``solve --via``, ``crosscheck --routes`` and the Python
API all take their routes from :data:`ROUTES`.

A route is a reduction rule plus a solver, as one :class:`Route` (rule, backend): its name,
what it needs to run here, which puzzles it applies to, the options fixed by the route
(``presets``) and the options a user may still set. ``route.solve(puzzle, unique=...,
time_limit=..., **options)`` returns an :class:`~solvers.outcome.Outcome` whose grid has been
verified against the puzzle; an option the route does not take is refused with one line, never
silently ignored. The options a route takes are its family's, declared once as data in
:mod:`solvers.routes.options` (the command line builds its flags from the same data), less
its presets::

    from solvers.routes import ROUTES
    outcome = ROUTES["hcp"].solve(puzzle, time_limit=10, prune="peers")

A route's family (:class:`Family`: its reduction rule, its options, the function that runs
it, which of its options shape what it builds in memory, the option naming an outside program)
is found through objects, not names: the rule's class
(:class:`~reductions.reduction.PuzzleRule`, e.g. :class:`~reductions.encodings.cnf.SudokuToCnf`)
and the family's module are each imported by a small loader function when first needed, so
that start-up stays light and a missing optional package disables only the routes that need
it (:meth:`Route.unavailable` says why). The family's ``run`` builds its instance with the
rule's ``build``, decodes a solver's answer with the rule's ``decode`` and checks it with the
rule's ``problems``; :func:`route_estimate` asks the rule's ``estimate``. A new reduction is
one rule (in :mod:`reductions`) and one line of :data:`FAMILIES`.
"""

from __future__ import annotations

import enum
import importlib
import shutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence

from reductions.errors import UserError
from reductions.sudoku.grid import Grid, Shape
from reductions.estimate import Estimate
from reductions.rules.sizes import rules_estimate
from reductions.suggestions import unknown_name

from ..outcome import Outcome, SolverUnavailable
from ..runtime.programs import missing_package, missing_program
from .options import (CNF, CNF_COMMAND_CLUES, CNF_INCREMENTAL, DEDUCTION,
                      EXACT_COVER as COVER_OPTIONS, HCP as HCP_OPTIONS, ILP as ILP_OPTIONS,
                      CoverSolver, GraphKind, OptionFamily, flag_of, natural_graph_kind)

if TYPE_CHECKING:
    from reductions.reduction import PuzzleRule

    from .sat_batch import LineBatch


class Target(enum.StrEnum):
    """The problem a route reduces Sudoku to (``deduction``: none — the rules work on the
    puzzle itself and may answer unknown)."""

    CNF = "cnf"
    EXACT_COVER = "exact-cover"
    ILP = "ilp"
    HCP = "hcp"
    DEDUCTION = "deduction"


Runner = Callable[..., Outcome]
"""A route family's ``solve_puzzle``: the puzzle, ``unique``, ``time_limit`` and the family's
options as keywords; returns an :class:`~solvers.outcome.Outcome` whose grids are verified."""

BuildOptions = Callable[[Mapping[str, Any]], dict[str, Any]]
"""What a route builds in this process, as the options of its rule's ``estimate``
(:meth:`PuzzleRule.estimate <reductions.reduction.PuzzleRule.estimate>`), given the route's
presets and the options set (:func:`route_estimate`)."""


class BatchCapability(Protocol):
    """A route's batch capability: the puzzle lines of a file solved together, faster than
    one by one (e.g. one kept solver per process), the answers in input order; or None when
    these options rule it out (then the caller solves the lines one by one). ``what`` names
    the run in a memory refusal."""

    def __call__(self, lines: Sequence[str], *, box: Shape | None, unique: bool,
                 time_limit: float | None, jobs: int, memory_limit: int, what: str,
                 **options: Any) -> LineBatch | None: ...


# The loaders: each imports its family's module when a route of it first runs (not at
# start-up), and returns the function.

def _sat() -> Runner:
    from .sat import solve_puzzle
    return solve_puzzle


def _sat_incremental() -> Runner:
    from .sat_incremental import solve_incremental
    return solve_incremental


def _exact_cover() -> Runner:
    from .exact_cover import solve_puzzle
    return solve_puzzle


def _ilp() -> Runner:
    from .ilp import solve_puzzle
    return solve_puzzle


def _hcp() -> Runner:
    from .hcp import solve_puzzle
    return solve_puzzle


def _deduction() -> Runner:
    from .deduction import solve_puzzle
    return solve_puzzle


def _sat_lines() -> BatchCapability:
    from .sat_batch import solve_lines
    return solve_lines


def _sat_lines_incremental() -> BatchCapability:
    from .sat_batch import solve_lines_incremental
    return solve_lines_incremental


# The rules: each loader imports its rule's module (numpy, and for some of them more) when a
# route of it first runs or is sized, not at start-up.

def _cnf_rule() -> type[PuzzleRule]:
    from reductions.encodings.cnf import SudokuToCnf
    return SudokuToCnf


def _exact_cover_rule() -> type[PuzzleRule]:
    from reductions.encodings.exact_cover import SudokuToExactCover
    return SudokuToExactCover


def _ilp_rule() -> type[PuzzleRule]:
    from reductions.encodings.ilp import SudokuToIlp
    return SudokuToIlp


def _hcp_rule() -> type[PuzzleRule]:
    from reductions.hamiltonian.hcp_pipeline import SudokuToHcp
    return SudokuToHcp


def _lkh_unavailable(options: Mapping[str, Any]) -> str | None:
    from ..tools.lkh import unavailable_reason
    return unavailable_reason(options)


# What each family builds in memory, as its rule's estimate options (the blank grid's
# instance, which bounds every puzzle's: clues only shrink it). Outside solver programs run in
# processes of their own; only what is built here counts.

def _cnf_build(given: Mapping[str, Any]) -> dict[str, Any]:
    external = given.get("solver_cmd") is not None
    clues = given.get("clues") or (CNF_COMMAND_CLUES if external else CNF.defaults["clues"])
    return {"encoding": given.get("encoding", CNF.defaults["encoding"]),
            "amo": given.get("amo", CNF.defaults["amo"]), "clues": clues,
            "solve": not external}


def _kept_cnf_build(given: Mapping[str, Any]) -> dict[str, Any]:
    """The kept incremental solver: the rules only, the clues assumed."""
    return {"solve": True}


def _cover_build(given: Mapping[str, Any]) -> dict[str, Any]:
    solver = given.get("cover_solver", COVER_OPTIONS.defaults["cover_solver"])
    dense = solver in (CoverSolver.AUTO, CoverSolver.PACKAGE) \
        and given.get("cover_cmd") is None         # an outside program builds its own
    return {"solve": True, "dense": dense}


def _ilp_build(given: Mapping[str, Any]) -> dict[str, Any]:
    return {"solve": True}


def _hcp_build(given: Mapping[str, Any]) -> dict[str, Any]:
    triple, reduce = bool(given.get("triple")), bool(given.get("reduce"))
    graph = given.get("graph")
    if graph is None:
        graph = natural_graph_kind(
            hcp_solver=given.get("hcp_solver", HCP_OPTIONS.defaults["hcp_solver"]),
            hcp_cmd=given.get("hcp_cmd"), triple=triple, reduce=reduce)
    return {"directed": graph == GraphKind.DIRECTED, "triple": triple, "reduce": reduce,
            "solve": True}


def _no_build(given: Mapping[str, Any]) -> dict[str, Any]:
    """The deduction route reduces nothing: no rule, no options."""
    return {}


@dataclass(frozen=True)
class Family:
    """What the routes of one target share unless a route says otherwise: the loader of its
    reduction rule's class (None: the target reduces nothing), the options its ``run``
    takes, the loader of ``run``, what it builds in memory (``build``: the rule's estimate
    options), and the option that runs an outside program given as a command template
    (None: the target takes none, and ``--route`` cannot name it)."""

    rule: Callable[[], type[PuzzleRule]] | None
    options: OptionFamily
    run: Callable[[], Runner]
    build: BuildOptions
    command_option: str | None = None


FAMILIES = {
    Target.CNF: Family(_cnf_rule, CNF, _sat, _cnf_build, "solver_cmd"),
    Target.EXACT_COVER: Family(_exact_cover_rule, COVER_OPTIONS, _exact_cover, _cover_build,
                               "cover_cmd"),
    Target.ILP: Family(_ilp_rule, ILP_OPTIONS, _ilp, _ilp_build, "ilp_cmd"),
    Target.HCP: Family(_hcp_rule, HCP_OPTIONS, _hcp, _hcp_build, "hcp_cmd"),
    Target.DEDUCTION: Family(None, DEDUCTION, _deduction, _no_build),
}
"""The route family of each target: (rule, backend) — the rule a route is made of, and the
backend's options and runner."""

TARGET_OPTIONS = {target: family.options for target, family in FAMILIES.items()}
"""The options of each target's route family (a route may name other ones: ``family``)."""


@dataclass(frozen=True, kw_only=True)
class Route:
    """One way from a puzzle to a verified answer."""

    name: str
    target: Target
    summary: str
    run: Callable[[], Runner] = None  # type: ignore[assignment]
    """The loader of the function that runs the route (default: the target's family's,
    :data:`FAMILIES`), called when the route first runs."""
    build: BuildOptions = None  # type: ignore[assignment]
    """What the route builds in memory, as its rule's estimate options (default: the target's
    family's)."""
    batch: Callable[[], BatchCapability] | None = None
    """The loader of the route's batch capability, when it has one (see
    :meth:`solve_batch`)."""
    presets: Mapping[str, Any] = field(default_factory=dict)
    needs_program: str | None = None
    """A program that must be on PATH (e.g. ``cadical``)..."""
    program_option: str | None = None
    """... unless this option gives its path (``linkern_binary``)."""
    needs_module: str | None = None
    """A Python package that must be importable (e.g. ``highspy``)."""
    needs: Callable[[Mapping[str, Any]], str | None] | None = None
    """For anything else (e.g. LKH: a binary *or* the elkai package): a function taking
    the route's options and returning why the route cannot run here with them, or None when
    it can."""
    square_blocks: bool = False
    """Only for n×n blocks (Haythorpe's graph exists for N = n² only)."""
    checks_uniqueness: bool = True
    family: OptionFamily = None  # type: ignore[assignment]
    """The options ``run`` takes besides ``unique`` and ``time_limit`` (default: those of
    the target's family, :data:`TARGET_OPTIONS`)."""

    def __post_init__(self):
        family = FAMILIES[self.target]
        for name, default in (("family", family.options), ("run", family.run),
                              ("build", family.build)):
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)

    def runner(self) -> Runner:
        """The function that runs the route, its module imported now."""
        return self.run()

    def rule(self) -> type[PuzzleRule] | None:
        """The reduction rule the route is made of (its module imported now), or None for
        a route that reduces nothing (``deduction``)."""
        load = FAMILIES[self.target].rule
        return None if load is None else load()

    @property
    def options(self) -> frozenset[str]:
        """The options a user may set on this route (besides ``unique`` and
        ``time_limit``): its family's, less its presets."""
        return self.family.names - set(self.presets)

    def unavailable(self, options: Mapping[str, Any] | None = None) -> str | None:
        """Why this route cannot run here with ``options`` (None when it can): an option
        may name the program itself (``--lkh-binary``)."""
        given = (options or {}).get(self.program_option) if self.program_option else None
        if self.needs_program and not given and shutil.which(self.needs_program) is None:
            flag = flag_of(self.program_option) if self.program_option else None
            return f"route {self.name} {missing_program(self.needs_program, option=flag)}"
        if self.needs_module:
            try:
                importlib.import_module(self.needs_module)
            except ImportError:
                return f"route {self.name} {missing_package(self.needs_module)}"
        if self.needs:
            reason = self.needs(options or {})
            if reason:
                return f"route {self.name}: {reason}"
        return None

    def not_applicable(self, shape: Shape) -> str | None:
        """Why this route does not apply to puzzles of ``shape`` (None when it does)."""
        if self.square_blocks and not shape.is_square:
            return (f"route {self.name} needs square n×n blocks (Haythorpe's graph); this "
                    f"puzzle has {shape.box_rows}x{shape.box_cols} blocks")
        return None

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Refuse, in one line, an option this route does not take."""
        foreign = sorted(set(options) - self.options)
        if foreign:
            accepted = ", ".join(flag_of(o) for o in sorted(self.options))
            raise UserError(f"{flag_of(foreign[0])} does not apply to route {self.name} "
                            f"({'its options: ' + accepted if accepted else 'it takes no options'})")

    def check_request(self, options: Mapping[str, Any], *, unique: bool) -> None:
        """Refuse, in one line, options this route does not take, or ``unique`` when it
        cannot check uniqueness (before any puzzle is read)."""
        self.check_options(options)
        if unique and not self.checks_uniqueness:
            raise UserError(f"route {self.name} does not check uniqueness; use --via sat "
                            f"--unique")

    def solve(self, puzzle: Grid, *, unique: bool = False, time_limit: float | None = None,
              **options: Any) -> Outcome:
        """Solve ``puzzle`` on this route (see the module docstring)."""
        self.check_request(options, unique=unique)
        reason = self.not_applicable(puzzle.shape)
        if reason:
            raise UserError(reason)
        return self.runner()(puzzle, unique=unique, time_limit=time_limit,
                             **{**self.presets, **options})

    def solve_batch(self, lines: Sequence[str], *, unique: bool = False,
                    time_limit: float | None = None, jobs: int = 1, box: Shape | None = None,
                    memory_limit: int, what: str, **options: Any) -> LineBatch | None:
        """The puzzle lines of a file solved together (:class:`BatchCapability`): a
        :class:`~solvers.routes.sat_batch.LineBatch` (answers in input order), or None when
        this route has no batch capability or these options rule it out — then the caller
        solves the puzzles one by one (:meth:`solve`)."""
        if self.batch is None:
            return None
        self.check_request(options, unique=unique)
        return self.batch()(lines, box=box, unique=unique, time_limit=time_limit, jobs=jobs,
                            memory_limit=memory_limit, what=what,
                            **{**self.presets, **options})


def _routes(*routes: Route) -> dict[str, Route]:
    return {route.name: route for route in routes}


ROUTES: dict[str, Route] = _routes(
    Route(name="sat", target=Target.CNF, batch=_sat_lines,
          summary="pysat CaDiCaL 1.9.5 (or --solver / --solver-cmd), extended encoding, clues "
                  "as unit clauses"),
    Route(name="sat-glucose", target=Target.CNF,
          presets={"solver": "glucose4", "encoding": "minimal", "clues": "eliminate"},
          summary="Glucose 4, minimal encoding, clues eliminated (an independent encoding)"),
    Route(name="sat-incremental", target=Target.CNF, run=_sat_incremental,
          build=_kept_cnf_build, family=CNF_INCREMENTAL, batch=_sat_lines_incremental,
          summary="one CaDiCaL per process with the rules loaded once, clues as assumptions "
                  "(fast on corpora)"),
    # The DIMACS solver programs known by name (solvers.tools.dimacs_programs.KNOWN_COMMANDS),
    # each when on PATH.
    *(Route(name=program, target=Target.CNF, presets={"solver_cmd": program},
            needs_program=program, summary=f"the {program} program through a DIMACS file")
      for program in ("cadical", "kissat", "minisat", "glucose", "picosat", "cryptominisat5",
                      "lingeling")),
    Route(name="exact-cover", target=Target.EXACT_COVER,
          summary="the exact-cover package when installed, else the built-in Algorithm X"),
    Route(name="exact-cover-dlx", target=Target.EXACT_COVER, presets={"cover_solver": "dlx"},
          summary="the built-in Algorithm X"),
    Route(name="dlx1", target=Target.EXACT_COVER, presets={"cover_solver": "dlx1"},
          needs_program="dlx1",
          summary="Knuth's dlx1 program (dlx1 m1 t1|t2 < FILE), both output streams read"),
    Route(name="ilp", target=Target.ILP,
          summary="the 0/1 ILP through CBC (or --ilp-solver glpsol|highs|scip, or "
                  "--ilp-cmd)"),
    Route(name="ilp-highs", target=Target.ILP, presets={"ilp_solver": "highs"},
          needs_module="highspy", summary="the 0/1 ILP through HiGHS (extra highs)"),
    Route(name="cbc", target=Target.ILP, presets={"ilp_solver": "cbc"},
          needs_program="cbc", program_option="cbc_path",
          summary="the cbc program on the fixed MPS file"),
    Route(name="glpsol", target=Target.ILP, presets={"ilp_solver": "glpsol"},
          needs_program="glpsol", summary="GLPK's glpsol program on the fixed MPS file"),
    Route(name="scip", target=Target.ILP, presets={"ilp_solver": "scip"},
          needs_module="pyscipopt", summary="SCIP in process (pyscipopt, extra scip) on the "
                                            "fixed MPS file"),
    Route(name="hcp", target=Target.HCP, square_blocks=True,
          summary="Haythorpe's Hamiltonian-cycle graph, any pipeline and HCP solver "
                  "(--unique with the exact ones)"),
    Route(name="hcp-directed", target=Target.HCP, square_blocks=True,
          presets={"graph": "directed", "prune": "peers"},
          summary="Haythorpe's directed graph, peers pruning, exact SAT solver"),
    Route(name="hcp-undirected", target=Target.HCP, square_blocks=True,
          presets={"graph": "undirected", "prune": "peers", "reduce": True},
          summary="the same graph 3-split and degree-2 reduced, exact SAT solver"),
    Route(name="lkh", target=Target.HCP, square_blocks=True, checks_uniqueness=False,
          presets={"graph": "undirected", "prune": "peers", "reduce": True,
                   "hcp_solver": "lkh"},
          needs=_lkh_unavailable,
          summary="LKH-3 (an LKH binary on PATH, else the elkai package) on the reduced "
                  "undirected graph; a heuristic: unknown when it finds no cycle"),
    Route(name="linkern", target=Target.HCP, square_blocks=True,
          checks_uniqueness=False, needs_program="linkern", program_option="linkern_binary",
          presets={"graph": "undirected", "prune": "peers", "reduce": True,
                   "hcp_solver": "linkern"},
          summary="Concorde's linkern (chained Lin-Kernighan, a heuristic: never 'no "
                  "solution') on the reduced undirected graph"),
    Route(name="concorde", target=Target.HCP, square_blocks=True,
          checks_uniqueness=False, needs_program="concorde", program_option="concorde_binary",
          presets={"graph": "undirected", "prune": "peers", "reduce": True,
                   "hcp_solver": "concorde"},
          summary="Concorde (exact TSP; optimum > 0 proves 'no solution') on the reduced "
                  "undirected graph"),
    Route(name="rules", target=Target.DEDUCTION,
          summary="Eppstein's deduction rules only (--max-level): unknown when stuck, never "
                  "a guess; a solve proves uniqueness"),
)


# ----------------------------------------------------------------------------- user commands

def template_route(spec: str) -> Route:
    """A route for any outside program, from ``NAME=TARGET:COMMAND`` (``solve --route``,
    ``crosscheck --route``), e.g. ``mysat=cnf:'kissat -q {input}'``: the family of TARGET
    writes its file, runs COMMAND (no shell; ``{input}`` the file written, ``{output}`` a file
    the program writes, else its standard output is read), reads the answer by its content and
    verifies it. The program must be on PATH (or a path) for the route to be available."""
    name, equals, rest = spec.partition("=")
    target_name, colon, command = rest.partition(":")
    name, target_name, command = name.strip(), target_name.strip(), command.strip()
    if not (equals and colon and name and command):
        raise UserError(f"--route {spec!r}: expected NAME=TARGET:COMMAND, e.g. "
                        f"\"mysat=cnf:kissat -q {{input}}\"")
    if name in ROUTES:
        raise UserError(f"--route {spec!r}: {name} is a built-in route; choose another name")
    if not all(ch.isalnum() or ch in "-_." for ch in name):
        raise UserError(f"--route {spec!r}: a route name is letters, digits, '-', '_', '.'")
    commands = [target for target, family in FAMILIES.items() if family.command_option]
    try:
        target = Target(target_name)
        if target not in commands:
            raise ValueError(target_name)
    except ValueError:
        raise UserError(f"--route {spec!r}: unknown target {target_name!r} (targets: "
                        f"{', '.join(commands)})") from None
    from ..tools.templates import split_command       # not at start-up
    program = split_command(command, f"--route {name}", "give NAME=TARGET:COMMAND")[0]
    return Route(name=name, target=target,
                 presets={FAMILIES[target].command_option: command}, needs_program=program,
                 square_blocks=target == Target.HCP,
                 checks_uniqueness=target != Target.HCP,
                 summary=f"{target} file through the command {command!r}")


def template_routes(specs: Sequence[str]) -> dict[str, Route]:
    """The routes of several ``--route`` options, by name (a name given twice is an error)."""
    routes: dict[str, Route] = {}
    for spec in specs:
        route = template_route(spec)
        if route.name in routes:
            raise UserError(f"--route {route.name} is defined twice")
        routes[route.name] = route
    return routes


def get_route(name: str, extra: Mapping[str, Route] | None = None) -> Route:
    """The route called ``name`` (built in, or one of ``extra``: routes from ``--route``), or
    a one-line error listing the routes."""
    known = {**ROUTES, **(extra or {})}
    try:
        return known[name]
    except KeyError:
        raise UserError(unknown_name("route", name, known, "routes")) from None


def available_routes() -> list[str]:
    """Names of the routes that can run here."""
    return [name for name, route in ROUTES.items() if route.unavailable() is None]


def solve(puzzle: Grid, via: str = "sat", *, unique: bool = False,
          time_limit: float | None = None, **options: Any) -> Outcome:
    """Solve ``puzzle`` on the route ``via`` (the Python API's one entry point)."""
    route = get_route(via)
    reason = route.unavailable(options)
    if reason:
        raise SolverUnavailable(reason)
    return route.solve(puzzle, unique=unique, time_limit=time_limit, **options)


# ----------------------------------------------------------------------------- memory

def route_estimate(route: Route, shape: Shape, options: Mapping[str, Any]) -> Estimate:
    """What solving an N×N puzzle on ``route`` with ``options`` builds in this process (the
    blank grid's instance, which bounds every puzzle's: clues only shrink it). Outside
    solver programs run in processes of their own; only what is built here counts."""
    given = {**route.presets, **{k: v for k, v in options.items() if v is not None}}
    rule = route.rule()
    if rule is None:                        # the deduction rules work on the puzzle itself
        return rules_estimate(shape)
    return rule.estimate(shape, **route.build(given))
