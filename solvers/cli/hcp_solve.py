"""CLI options of the ``hcp`` routes (``solve PUZZLE --via hcp ...``); the route itself is
:func:`solvers.hcp_puzzle.solve_puzzle`."""

from __future__ import annotations

import enum

from . import common


class HcpSolver(enum.StrEnum):
    """A copy of solvers.hcp_puzzle.HcpSolver, whose module imports the whole HCP pipeline;
    the same class and members keep argparse's messages (tests/test_startup.py holds them
    equal)."""

    SAT = "sat"
    CPSAT = "cpsat"
    LKH = "lkh"
    LINKERN = "linkern"
    CONCORDE = "concorde"


HCP_SOLVERS = tuple(HcpSolver)


def register(commands: common.Commands) -> None:
    group = commands.solve.add_argument_group(
        "--via hcp", "Haythorpe's Hamiltonian-cycle graph, solved by an exact SAT or CP-SAT "
                     "model, LKH-3, linkern, Concorde, or any program (--hcp-cmd)")
    group.add_argument("--graph", choices=["directed", "undirected"],
                       help="graph to solve (default: directed for sat/cpsat, undirected for "
                            "lkh/linkern/concorde/--hcp-cmd)")
    group.add_argument("--prune", choices=["none", "paper", "peers"],
                       help="clue pruning: none (blank graph; the clues become required "
                            "arcs), paper (the twelve arc sets of §5, default), peers (also "
                            "every (cell, digit) a clue excludes)")
    group.add_argument("--triple", action="store_true", default=None,
                       help="undirected graph with Haythorpe's triple trick")
    group.add_argument("--reduce", action="store_true", default=None,
                       help="undirected graph after the degree-2 reduction (§7)")
    group.add_argument("--hcp-solver", choices=HCP_SOLVERS,
                       help="sat (default), cpsat and concorde are exact (concorde needs a "
                            "concorde binary; its proved optimum > 0 is 'no solution'); lkh "
                            "and linkern are heuristics (never 'no solution'; 60 s unless "
                            "--time-limit)")
    group.add_argument("--break-symmetry", action="store_true", default=None,
                       help="for a puzzle without clues, solve the grid with its first row "
                            "fixed to 1..N (any solution relabels to one; the empty 25x25 "
                            "needs it)")
    group.add_argument("--hcp-workers", type=int, metavar="N",
                       help="CP-SAT search workers (default 1)")
    group.add_argument("--lkh-binary", metavar="PATH",
                       help="LKH executable (default: LKH on PATH, else the elkai package)")
    group.add_argument("--lkh-runs", type=int, metavar="N",
                       help="LKH's RUNS: independent runs (seeds S, S+1, ...); LKH stops at "
                            "the first Hamiltonian cycle (default 1)")
    group.add_argument("--lkh-seed", type=int, metavar="S",
                       help="LKH's SEED (default 1): the same seed, file and limits repeat "
                            "a run")
    group.add_argument("--linkern-binary", metavar="PATH",
                       help="linkern executable (default: linkern on PATH)")
    group.add_argument("--concorde-binary", metavar="PATH",
                       help="concorde executable (default: concorde on PATH)")
    group.add_argument("--hcp-cmd", metavar="'CMD {input} {output}'",
                       help="run any Hamiltonian-cycle program instead (no shell): {input} "
                            "is the graph as TSPLIB HCP (arc list if directed), "
                            "{input.FORMAT} in another form (tsplib, arcs, concorde, graphml, "
                            "edgelist), {output} its tour file (else its stdout is read); "
                            "the tour is read by content and checked; a heuristic: no tour "
                            "is 'unknown', never 'no solution'")
