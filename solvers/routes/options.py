"""The options of the solving routes, declared once as data: the registry
(:mod:`solvers.routes`) validates a route's options against them and the command line builds
its ``solve`` flags from them (:func:`solvers.cli.common.add_route_options`).

Each route family (CNF, exact cover, ILP, Hamiltonian cycle, deduction) has one
:class:`OptionFamily`: the :class:`RouteOption` s its ``solve_puzzle`` takes besides
``unique`` and ``time_limit``, each with its flag spelling, value type, choices and help text.
A route takes its family's options less the ones it presets (``ROUTES["lkh"]`` fixes
``hcp_solver``), so an option is added to a family here, to its ``solve_puzzle`` as a
keyword (for the hcp family: a field of :class:`solvers.routes.hcp.HcpRouteOptions`, which
its ``solve_puzzle`` builds from its keywords), and nowhere else.

This module is light on purpose: the command line imports it to build its parser, so it
imports only :mod:`reductions` modules the command line loads anyway (for the encodings,
clue modes and pruning modes they own) and :mod:`reductions.rules.levels`, never a solver
module. The small vocabularies of solver names that a route option chooses from live here,
and the solver modules import them from here (:class:`HcpSolver` for
:mod:`solvers.routes.hcp`, :class:`CoverSolver`, :class:`IlpSolver`).

Every flag defaults to None on the command line (the route decides; an option given for
another route is refused, see :meth:`solvers.routes.Route.check_options`). The defaults are
declared once, here (each family's ``defaults``, and the CNF's named ones such as
:data:`DEFAULT_ENCODING`): the ``solve_puzzle`` keyword defaults, the memory estimates and
the ``emit`` commands take them from here, and the help texts say them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from reductions.encodings.cnf import AMO_ENCODINGS, DEFAULT_AMO, DEFAULT_ENCODING, ENCODINGS
from reductions.hamiltonian.prune import PRUNE_MODES
from reductions.rules.levels import MAX_LEVEL

from ..runtime.pysat_solvers import DEFAULT_SOLVER

__all__ = ["ALL_OPTIONS", "CNF", "CNF_CLUES", "CNF_COMMAND_CLUES", "CNF_INCREMENTAL",
           "COMMON_OPTIONS", "CoverSolver", "DEDUCTION", "DEFAULT_AMO", "DEFAULT_ENCODING",
           "DEFAULT_SOLVER", "EXACT_COVER", "EXACT_HCP_SOLVERS", "GRAPH_KINDS", "GraphKind", "HCP",
           "HCP_SOLVERS", "HcpSolver", "ILP", "IlpSolver", "OptionFamily", "Program",
           "RouteOption", "flag_of", "natural_graph_kind"]


# ----------------------------------------------------------------------------- vocabularies


class CoverSolver(enum.StrEnum):
    """The exact-cover search: the C package when it fits, the package, our Algorithm X, or
    Knuth's dlx1 program."""

    AUTO = "auto"
    PACKAGE = "exact-cover"
    DLX = "dlx"
    DLX1 = "dlx1"


class IlpSolver(enum.StrEnum):
    """The ILP solvers a route can name (see :mod:`solvers.routes.ilp`)."""

    CBC = "cbc"
    HIGHS = "highs"
    GLPSOL = "glpsol"
    SCIP = "scip"


class HcpSolver(enum.StrEnum):
    """Who looks for the Hamiltonian cycle: the exact SAT or CP-SAT models, or the LKH-3,
    linkern and Concorde bridges."""

    SAT = "sat"
    CPSAT = "cpsat"
    LKH = "lkh"
    LINKERN = "linkern"
    CONCORDE = "concorde"


HCP_SOLVERS = tuple(HcpSolver)
EXACT_HCP_SOLVERS = (HcpSolver.SAT, HcpSolver.CPSAT)
"""The exact Hamiltonian-cycle solvers: their "no cycle" is a proof, and they can be asked
for a second cycle."""


class Program(enum.StrEnum):
    """A solver not of a route's own vocabulary: any outside program given as a command
    template (``--hcp-cmd``), named so in the route's checks and its answer's stats."""

    COMMAND = "command"


class GraphKind(enum.StrEnum):
    """The graphs an ``hcp`` route can solve (``--graph``)."""

    DIRECTED = "directed"
    UNDIRECTED = "undirected"


GRAPH_KINDS = tuple(GraphKind)


def natural_graph_kind(*, hcp_solver: str, hcp_cmd: str | None, triple: bool,
                       reduce: bool) -> GraphKind:
    """The graph an ``hcp`` route solves when ``--graph`` is not given: directed for the
    exact solvers unless ``triple``/``reduce`` ask for the undirected graph; undirected for
    the heuristics and an ``--hcp-cmd`` program. The route (:mod:`solvers.routes.hcp`) and
    its memory estimate (:mod:`solvers.routes.registry`) both ask here."""
    exact = hcp_solver in EXACT_HCP_SOLVERS and hcp_cmd is None
    return GraphKind.DIRECTED if exact and not (triple or reduce) else GraphKind.UNDIRECTED


# ----------------------------------------------------------------------------- the data

COMMON_OPTIONS = frozenset({"unique", "time_limit"})
"""Options every route takes, besides its family's (a route that cannot check uniqueness
refuses ``unique``); the ``solve`` command has its own flags for them."""

def flag_of(name: str) -> str:
    """The command-line spelling of the option ``name`` (``hcp_solver`` → ``--hcp-solver``)."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True, kw_only=True)
class RouteOption:
    """One option a route family takes: ``name`` is its keyword in ``solve_puzzle`` and
    :func:`solvers.routes.solve`, :attr:`flag` its spelling on the command line. ``type``
    ``bool`` is a switch (a flag without a value); ``choices`` are kept as the objects
    argparse shows: strings (an enum's members become their values, since argparse names
    the choices by ``repr`` when it refuses a value, ``<AtMostOne.PAIRWISE: ...>``)."""

    name: str
    help: str
    type: type = str
    choices: tuple[Any, ...] | None = None
    metavar: str | None = None

    def __post_init__(self):
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(map(str, self.choices)))

    @property
    def flag(self) -> str:
        return flag_of(self.name)


@dataclass(frozen=True)
class OptionFamily:
    """The options of one route family, in the order ``solve --help`` lists them, and the
    default of each option that has one for this family (its ``solve_puzzle`` keyword
    defaults are these; an option shared by several families, ``--clues``, may default
    differently in each)."""

    name: str
    options: tuple[RouteOption, ...]
    defaults: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(option.name for option in self.options)


# One option may belong to several families (``--clues``): it is declared once, here.
CLUES = RouteOption(
    name="clues", choices=("units", "eliminate", "keep", "equalities"),
    help="how clues enter the instance: sat: units (as assumptions; default in process) or "
         "eliminate (default for --solver-cmd); exact-cover: eliminate (default) or keep; "
         "ilp: eliminate (default) or equalities")
CNF_CLUES = "units"
"""How clues enter a CNF built in process (a unit clause a clue; a kept solver assumes them)
unless ``--clues`` says otherwise."""
ENCODING = RouteOption(name="encoding", choices=ENCODINGS,
                       help=f"CNF encoding (default: {DEFAULT_ENCODING})")
AMO = RouteOption(name="amo", choices=(DEFAULT_AMO, *AMO_ENCODINGS),
                  help="at-most-one encoding (default auto: pairwise up to N=16, sequential "
                       "counter above)")
SOLVER = RouteOption(name="solver", help=f"pysat solver name (default: {DEFAULT_SOLVER})")

CNF = OptionFamily("cnf", (
    SOLVER,
    RouteOption(name="solver_cmd", metavar="CMD",
                help="use a DIMACS command-line solver instead: a name (cadical, minisat, "
                     "kissat, cryptominisat5, picosat, lingeling, glucose) or a command line "
                     "with {input} and optionally {output}"),
    ENCODING, AMO, CLUES),
    defaults={"encoding": DEFAULT_ENCODING, "amo": DEFAULT_AMO, "clues": CNF_CLUES})

CNF_COMMAND_CLUES = "eliminate"
"""How clues enter the CNF written for an outside DIMACS program unless ``--clues`` says
otherwise (in process the default is the family's, ``units``)."""

CNF_INCREMENTAL = OptionFamily("cnf-incremental", (SOLVER,))
"""``sat-incremental``: one kept solver per process, so only the solver can be chosen."""

EXACT_COVER = OptionFamily("exact-cover", (
    RouteOption(name="cover_solver", choices=tuple(CoverSolver),
                help="exact-cover backend: the C 'exact-cover' package, our own Algorithm X "
                     "(dlx), Knuth's dlx1 program on PATH, or auto (the package when "
                     "installed and the dense matrix fits, default)"),
    RouteOption(name="cover_cmd", metavar="CMD",
                help="run an outside exact-cover program instead: a name (dlx1, dlx2) or a "
                     "command line with {input} (the file in Knuth's format; '< {input}' "
                     "gives it on stdin), optionally {output} (a file it writes; else stdout "
                     "and stderr are read) and {limit} (solutions wanted: 1, or 2 with "
                     "--unique)"),
    CLUES),
    defaults={"cover_solver": CoverSolver.AUTO, "clues": "eliminate"})

ILP = OptionFamily("ilp", (
    RouteOption(name="ilp_solver", choices=tuple(IlpSolver),
                help="ILP solver: the cbc or glpsol program, HiGHS (highspy) or SCIP "
                     "(pyscipopt) in process (default: cbc)"),
    RouteOption(name="ilp_cmd", metavar="CMD",
                help="any ILP program, as a command template run without a shell: {input} "
                     "is the model (fixed MPS; {input.lp}, {input.free-mps} for LP or free "
                     "MPS), {output} the answer file it writes (without {output}, its stdout "
                     "is the answer), e.g. 'glpsol --mps {input} -w {output}'"),
    RouteOption(name="cbc_path", metavar="PATH",
                help="CBC binary to run (default: 'cbc' on PATH, else PuLP's bundled one)"),
    CLUES),
    defaults={"ilp_solver": IlpSolver.CBC, "clues": "eliminate"})

HCP = OptionFamily("hcp", (
    RouteOption(name="graph", choices=GRAPH_KINDS,
                help="graph to solve (default: directed for sat/cpsat, undirected for "
                     "lkh/linkern/concorde/--hcp-cmd)"),
    RouteOption(name="prune", choices=tuple(map(str, PRUNE_MODES)),
                help="clue pruning: none (blank graph; the clues become required arcs), "
                     "paper (the twelve arc sets of §5, default), peers (also every (cell, "
                     "digit) a clue excludes)"),
    RouteOption(name="triple", type=bool,
                help="undirected graph with Haythorpe's triple trick"),
    RouteOption(name="reduce", type=bool,
                help="undirected graph after the degree-2 reduction (§7)"),
    RouteOption(name="hcp_solver", choices=HCP_SOLVERS,
                help="sat (default), cpsat and concorde are exact (concorde needs a concorde "
                     "binary; its proved optimum > 0 is 'no solution'); lkh and linkern are "
                     "heuristics (never 'no solution'; 60 s unless --time-limit)"),
    RouteOption(name="break_symmetry", type=bool,
                help="for a puzzle without clues, solve the grid with its first row fixed to "
                     "1..N (any solution relabels to one; the empty 25x25 needs it)"),
    RouteOption(name="hcp_workers", type=int, metavar="N",
                help="CP-SAT search workers (default 1)"),
    RouteOption(name="lkh_binary", metavar="PATH",
                help="LKH executable (default: LKH on PATH, else the elkai package)"),
    RouteOption(name="lkh_runs", type=int, metavar="N",
                help="LKH's RUNS: independent runs (seeds S, S+1, ...); LKH stops at the "
                     "first Hamiltonian cycle (default 1)"),
    RouteOption(name="lkh_seed", type=int, metavar="S",
                help="LKH's SEED (default 1): the same seed, file and limits repeat a run"),
    RouteOption(name="linkern_binary", metavar="PATH",
                help="linkern executable (default: linkern on PATH)"),
    RouteOption(name="concorde_binary", metavar="PATH",
                help="concorde executable (default: concorde on PATH)"),
    RouteOption(name="hcp_cmd", metavar="'CMD {input} {output}'",
                help="run any Hamiltonian-cycle program instead (no shell): {input} is the "
                     "graph as TSPLIB HCP (arc list if directed), {input.FORMAT} in another "
                     "form (tsplib, arcs, concorde, graphml, edgelist), {output} its tour "
                     "file (else its stdout is read); the tour is read by content and "
                     "checked; a heuristic: no tour is 'unknown', never 'no solution'")),
    defaults={"prune": "paper", "hcp_solver": "sat", "hcp_workers": 1})

DEDUCTION = OptionFamily("deduction", (
    RouteOption(name="max_level", type=int, metavar="L",
                help=f"deduce with the rules of levels 1..L (1..{MAX_LEVEL}; default all; "
                     f"see 'rules --list')"),))


def _by_name(families: Iterable[OptionFamily]) -> dict[str, RouteOption]:
    """Every option once, by name; two families may share an option only as one object."""
    options: dict[str, RouteOption] = {}
    for family in families:
        for option in family.options:
            if options.setdefault(option.name, option) is not option:
                raise ValueError(f"option {option.name} is declared twice")
    return options


ALL_OPTIONS = _by_name([CNF, CNF_INCREMENTAL, EXACT_COVER, ILP, HCP, DEDUCTION])
"""Every route option, by name: the flags ``solve`` adds besides its own."""
