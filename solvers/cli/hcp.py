"""CLI for the Hamiltonian-cycle reduction: ``emit hcp`` and ``decode hcp``.

* ``emit hcp PUZZLE [--directed|--undirected] [--triple] [--prune none|paper|peers]
  [--reduce [--reduce-rules paper|extended]] [--format tsplib|arcs|concorde|graphml|edgelist]
  -o FILE [--stats]`` — Haythorpe's graph of the puzzle in the file form asked
  (:mod:`solvers.formats.graph_files`; default TSPLIB HCP for the undirected graph, the plain
  arc list for the directed one); whatever the form, one sidecar ``FILE.json`` records how to
  decode. ``--stats`` prints vertices and edges after every step beside the paper's figures.
* ``decode hcp GRAPH TOUR`` — a tour of GRAPH → the grid, verified against the puzzle, using
  GRAPH and its sidecar only. The tour's form is recognised by content
  (:func:`solvers.formats.tsplib.tour_numbers`): TSPLIB TOUR, Concorde's ``-o`` order,
  linkern's ``-o`` edge list, or a plain vertex list.

Exit codes: 0 written / decoded and valid; 1 the degree-2 reduction proved there is no
Hamiltonian cycle (no file written); 2 bad input (including a tour that is not a Hamiltonian
cycle of GRAPH); 4 the tour decodes to a grid that does not solve the puzzle (possible only
with ``--prune none``, whose graph does not encode the clues).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from reductions.hamiltonian.hcp import PRUNE_MODES

from . import common
from .common import ExitCode
from ..formats.graph_files import GRAPH_FORMATS
from ..formats.tsplib import TOUR_FORMS_HELP
from ..outcome import Status
from ..routes.options import HCP as HCP_OPTIONS

if TYPE_CHECKING:
    from reductions.hamiltonian.hcp_pipeline import HcpPipeline


def print_stats(pipeline: HcpPipeline, out=None) -> None:
    out = out or sys.stdout
    print(f"{'stage':<38} {'vertices':>10} {'edges':>10}   paper (vertices / edges)",
          file=out)
    for stage in pipeline.stages:
        paper = f"{stage.paper[0]:,} / {stage.paper[1]:,}" if stage.paper else "-"
        print(f"{stage.name:<38} {stage.vertices:>10,} {stage.edges:>10,}   {paper}", file=out)
        if stage.note:
            print(f"{'':<4}{stage.note}", file=out)
    print("paper's formulas, blank grid: directed 6N^3+5N^2+2N+2 / 19N^3+2N^2+2N+2; "
          "undirected 18N^3+15N^2+6N+6 / 31N^3+12N^2+6N+6; triple trick 16N^3+15N^2+6N+6 / "
          "29N^3+12N^2+6N+6", file=out)


def run_emit_hcp(args: argparse.Namespace) -> int:
    from reductions.hamiltonian.hcp import check_square
    from reductions.hamiltonian.hcp_pipeline import HcpOptions, build_hcp_pipeline
    from reductions.estimate import ensure_fits
    from reductions.hamiltonian.sizes import hcp_estimate
    from ..formats.atomic import OutputGroup, check_outputs
    from ..formats.graph_files import SIDECAR_NAMES, check_format, default_format
    from ..formats.hcp_export import write_export
    from ..formats.sidecar import sidecar_path, write_sidecar
    check_outputs({"-o": args.output, "sidecar": sidecar_path(args.output)},
                  inputs=[args.puzzle])
    fmt = check_format(args.format or default_format(args.directed), args.directed)
    puzzle = common.read_puzzle_arg(args, single=True)[0][1]
    check_square(puzzle.shape)
    n = puzzle.size
    ensure_fits(hcp_estimate(n, directed=args.directed, triple=args.triple,
                             reduce=args.reduce), common.memory_limit(args),
                f"emit hcp: the {n}x{n} puzzle")
    options = HcpOptions(directed=args.directed, triple=args.triple, prune=args.prune,
                         reduce=args.reduce, closing=args.reduce_rules == "extended")
    pipeline = build_hcp_pipeline(puzzle, options)
    if args.stats:
        print_stats(pipeline)
    if pipeline.status == Status.NO_SOLUTION:
        print(f"no Hamiltonian cycle: {pipeline.reduction.reason} — the puzzle has no "
              f"solution; nothing written")
        return ExitCode.NO_SOLUTION
    # The graph and its sidecar appear together or not at all: a new graph beside an old
    # sidecar would not decode. The sidecar, written last with the digest of the new graph,
    # goes into place first (OutputGroup.commit): a kill between the two renames leaves it
    # beside the old graph, which decode refuses by that digest.
    with OutputGroup() as outputs:
        write_export(args.output, pipeline, fmt, group=outputs)
        side = write_sidecar(args.output, pipeline, SIDECAR_NAMES[fmt], group=outputs)
    kind = f"{'arcs' if options.directed else 'edges'} ({FORMAT_TITLES[fmt]})"
    print(f"wrote {args.output}: {pipeline.num_vertices:,} vertices, {len(pipeline.edges):,} "
          f"{kind}; sidecar {side}")
    if pipeline.status == Status.SOLVED:
        print("note: the degree-2 reduction alone determines the Hamiltonian cycle (the graph "
              "written is a triangle standing for it)")
    if options.prune == "none" and puzzle.clue_count():
        print("note: --prune none builds the blank-grid graph: the clues are not encoded")
    return ExitCode.OK


FORMAT_TITLES = {"tsplib": "TSPLIB HCP", "arcs": "arc list", "concorde": "Concorde edge file",
                 "graphml": "GraphML", "edgelist": "edge list, ids from 0"}


def run_decode_hcp(args: argparse.Namespace) -> int:
    from ..formats.sidecar import load_hcp_export
    from ..formats.tsplib import read_tour
    pipeline, record = load_hcp_export(args.graph, memory_limit=common.memory_limit(args))
    order = read_tour(args.tour, pipeline.num_vertices, pipeline.edges, pipeline.directed)
    return common.report_decoded(args, pipeline.puzzle, [pipeline.decode(order)])


def register(commands: common.Commands) -> None:
    _declare_emit_hcp(commands.emit)
    _declare_decode_hcp(commands.decode)


def _declare_emit_hcp(emit) -> None:
    parser = common.add_emit_parser(
        emit, "hcp", help="Haythorpe's Hamiltonian-cycle graph (TSPLIB HCP)",
        description="Write Haythorpe's Sudoku → Hamiltonian cycle graph of a square (N = n²) "
                    "puzzle (TSPLIB HCP for the undirected graph and a plain arc list for the "
                    "directed one unless --format says otherwise), with a sidecar FILE.json "
                    "for 'decode hcp'.",
        output_help="output graph file")
    common.add_shape_option(parser)
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--undirected", dest="directed", action="store_false",
                      help="undirected 3-split, TSPLIB HCP (default)")
    kind.add_argument("--directed", dest="directed", action="store_true",
                      help="the directed graph, as an arc list ('V A' then 'tail head', "
                           "1-based)")
    parser.add_argument("--format", choices=GRAPH_FORMATS,
                        help="tsplib: TSPLIB HCP, EDGE_LIST, ids from 1 (LKH; undirected only; "
                             "default for the undirected graph); arcs: '# comments', 'V A', "
                             "then 'u v' lines, ids from 1 (default for --directed); concorde: "
                             "Concorde's sparse edge file 'n m' then 'u v 0', ids from 0 "
                             "(linkern/concorde -N 10; undirected only); graphml: GraphML, ids "
                             "from 0 (networkx.read_graphml(f, node_type=int)); edgelist: 'u v' "
                             "lines, ids from 0, '#' comments (networkx.read_edgelist(f, "
                             "nodetype=int))")
    _add_construction_options(parser)
    common.add_memory_option(parser)
    parser.set_defaults(run=run_emit_hcp, directed=False, format=None)


def _add_construction_options(parser: argparse.ArgumentParser) -> None:
    """How the graph is built: triple trick, clue pruning, degree-2 reduction, statistics."""
    parser.add_argument("--triple", action="store_true",
                        help="Haythorpe's triple trick: 2N³ fewer vertices and edges")
    parser.add_argument("--prune", choices=PRUNE_MODES, default=HCP_OPTIONS.defaults["prune"],
                        help="clue pruning: none (blank grid, clues NOT encoded), paper (the "
                             "twelve arc sets of §5; default), peers (all arcs of every "
                             "(cell, digit) a clue excludes)")
    parser.add_argument("--reduce", action="store_true",
                        help="apply the degree-2 reduction (§7); a puzzle it proves unsolvable "
                             "exits 1 without writing")
    parser.add_argument("--reduce-rules", choices=["paper", "extended"], default="extended",
                        help="paper: the paper's two rules only; extended (default): also "
                             "remove edges closing a forced path into a short cycle")
    parser.add_argument("--stats", action="store_true",
                        help="print vertices/edges after every step beside the paper's figures")


def _declare_decode_hcp(decode) -> None:
    parser = common.add_decode_parser(
        decode, "hcp", help="decode a tour of a graph written by emit hcp",
        description="Decode a Hamiltonian cycle of a graph written by 'emit hcp' into the "
                    "grid, using only GRAPH and its sidecar GRAPH.json; the grid is verified "
                    "against the puzzle.",
        files={"graph": "the graph file written by emit hcp",
               "tour": "the tour, recognised by content: " + TOUR_FORMS_HELP})
    common.add_decode_json_option(parser)
    parser.set_defaults(run=run_decode_hcp)
