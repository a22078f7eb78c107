"""Memory estimate of the rules engine on an N×N puzzle, before it runs (see
:mod:`reductions.estimate` for what an estimate is and how its constants were measured)."""

from __future__ import annotations

from ..estimate import Estimate, count_text, with_base
from ..nonrepetitive.sizes import NR_GRAPH_PER_ARC
from ..sudoku.grid import Shape

RULES_PER_CELL_PAIR = 16          # peer matrix (float32) and the rules' per-unit copies
RULES_PER_ARC = NR_GRAPH_PER_ARC  # bilocation / bipartite bivalue graphs through nr(G)


def rules_estimate(shape: Shape) -> Estimate:
    """The rule engine (:mod:`reductions.rules`) on an N×N puzzle: the (N², N²) peer matrix
    and candidate arrays, and the nonlocal rules' graphs — the bipartite bivalue graph has at
    most 6N² edges and the bilocation graph 3N² (Eppstein 2005 §3.5), each through nr(G)."""
    n = shape.size
    arcs = 2 * (6 + 3) * n * n
    return Estimate(f"the rule engine's state for {n}x{n} ({count_text(arcs)} graph arcs)",
                    with_base(RULES_PER_CELL_PAIR * n**4, RULES_PER_ARC * arcs), (n,))
