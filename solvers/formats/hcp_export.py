"""The files of a Haythorpe graph, as ``emit hcp`` writes them (any ``--format``).

One code path for every writer of those files: ``emit hcp`` (the command line) and the LKH
bridge (``solve --via hcp --hcp-solver lkh``) both call :func:`write_export`, so the
file LKH reads inside ``solve`` is byte for byte the file a user gets from ``emit hcp`` with
the same options (same NAME and COMMENT lines, same edge order). LKH's search depends on the
order of the edges in the file (it breaks ties between equal candidates by it), so a run
repeated by hand on the emitted file behaves exactly as the bridge's run.
"""

from __future__ import annotations

from pathlib import Path

from reductions.sudoku.grid import format_grid
from reductions.hamiltonian.hcp_pipeline import HcpPipeline

from .atomic import OutputGroup
from .graph_files import GraphFormat, write_graph


def graph_name(pipeline: HcpPipeline) -> str:
    """The NAME line: size and pruning (LKH names its tours ``NAME.COST.tour``)."""
    size = pipeline.puzzle.size
    return f"haythorpe-{size}x{size}-{pipeline.options.prune}"


def graph_comment(pipeline: HcpPipeline) -> str:
    """The COMMENT line: the puzzle (up to 35×35) and the steps that built the graph."""
    options = pipeline.options
    steps = [f"prune {options.prune}",
             "directed" if options.directed else "undirected 3-split"]
    if options.triple:
        steps.append("triple trick")
    if options.reduce:
        steps.append("degree-2 reduced")
    return (f"Haythorpe Sudoku->HCP, {pipeline.puzzle.size}x{pipeline.puzzle.size} puzzle "
            f"{format_grid(pipeline.puzzle, 'line') if pipeline.puzzle.size <= 35 else ''}; "
            f"{', '.join(steps)}; decode with the sidecar .json")


def write_export(path: str | Path, pipeline: HcpPipeline, fmt: GraphFormat | str, *,
                 group: OutputGroup | None = None) -> None:
    """Write the pipeline's graph in ``fmt`` (:mod:`solvers.formats.graph_files`), the edges
    in the pipeline's own order, atomically (with ``group``: together with the group's
    files)."""
    write_graph(path, fmt, pipeline.num_vertices, pipeline.edges,
                directed=pipeline.directed, name=graph_name(pipeline),
                comment=graph_comment(pipeline), group=group)
