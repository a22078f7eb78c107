"""Memory estimate of Haythorpe's graph and its pipeline, before it is built (see
:mod:`reductions.estimate` for what an estimate is and how its constants were measured)."""

from __future__ import annotations

from ..estimate import Estimate, count_text, with_base

# Haythorpe's graph, per arc of the directed graph (19N³ + ...).
HCP_DIRECTED_PER_ARC = 200       # measured 97-140
HCP_UNDIRECTED_PER_ARC = 350     # 3-split: measured 256
HCP_REDUCED_PER_ARC = 750        # 3-split + degree-2 reduction: measured 510-560
HCP_SOLVE_BASE = 16 * 2**20      # exact SAT model with subtour cuts, directed graph:
HCP_SOLVE_PER_ARC = 1_200        # measured 1,030 per arc at 25x25 (+ about 14 MB at 9x9);
HCP_SOLVE_UNDIRECTED_PER_ARC = 300   # undirected graph, per arc of the directed one


def hcp_estimate(n: int, *, directed: bool, triple: bool = False, reduce: bool = False,
                 solve: bool = False) -> Estimate:
    """Haythorpe's graph of an N×N puzzle (the blank grid's size bounds every puzzle's:
    clues only remove arcs), through the pipeline of :mod:`reductions.hamiltonian.hcp_pipeline`;
    ``solve``: also the exact SAT model of Hamiltonian cycles on it."""
    from .hcp import directed_size, undirected_size      # the registry imports this module
    vertices, arcs = directed_size(n)
    counts = (vertices, arcs)
    if directed:
        what = f"a directed graph of {count_text(vertices)} vertices and {count_text(arcs)} arcs"
        per_arc, solve_per_arc = HCP_DIRECTED_PER_ARC, HCP_SOLVE_PER_ARC
    else:
        u_vertices, u_edges = counts = undirected_size(n, triple)
        what = (f"an undirected graph of {count_text(u_vertices)} vertices and "
                f"{count_text(u_edges)} edges")
        per_arc = HCP_REDUCED_PER_ARC if reduce else HCP_UNDIRECTED_PER_ARC
        solve_per_arc = HCP_SOLVE_UNDIRECTED_PER_ARC
    return Estimate(what, with_base(per_arc * arcs,
                                    HCP_SOLVE_BASE + solve_per_arc * arcs if solve else 0), counts)
