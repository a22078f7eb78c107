"""Memory estimates of nr(G), the simple-path searches and Theorem 4's gadget, before
anything is built (see :mod:`reductions.estimate` for what an estimate is and how its
constants were measured)."""

from __future__ import annotations

from ..estimate import Estimate, count_text, with_base
from ..formulas import Formula

# Theorem 4 (nonrepetitive simple path) gadgets and nr(G).
NRPATH_PER_VERTEX = 200          # names, lists, arrays: measured 280 per arc all in
NRPATH_PER_ARC = 300
EDGE_LINES_ROWS = 65_536         # edge-list lines assembled at once (the writer's CHUNK,
EDGE_LINES_PER_ROW = 800         # checked by a test): the bytes, their indices; measured
                                 # about 700 per line with the gadgets' names
PATH_MODEL_PER_ARC = 4_500       # SAT model of simple paths + nr(G): measured 2,900-3,600
NR_GRAPH_PER_ARC = 1_200         # nr(G) and its searches: measured 600-820 per arc of G
SIMPLE_PER_SSG_ARC = 70          # undirected simple paths (Theorem 3): usp(G), ssg, its
SIMPLE_PER_SSG_VERTEX = 50       # adjacency and the search's arrays, per arc / vertex of
                                 # ssg(usp(G)) at the bound K = 2m: measured 1,022 MiB at
                                 # m = 10^6 with K = 2m (estimate 1.34 GiB), 674 MiB with
                                 # 3 labels (K = 1.1m)


def nrpath_gadget_estimate(formula: Formula, *, cycle: bool = False,
                           validate: bool = False) -> Estimate:
    """Theorem 4's graph of ``formula`` (2 + 2n + 2L + 3c vertices, 1 + 3n + 4L + 2c arcs,
    n from the header: every variable gets its gadget), written as an edge list;
    ``validate``: instead of writing, the SAT model of simple paths and nr(G) on it."""
    from .nrpath_gadget import expected_size as nrpath_expected_size
    vertices, arcs = nrpath_expected_size(formula, cycle)
    last = (PATH_MODEL_PER_ARC * arcs if validate
            else EDGE_LINES_PER_ROW * min(arcs, EDGE_LINES_ROWS))
    return Estimate(f"a graph of {count_text(vertices)} vertices and {count_text(arcs)} arcs",
                    with_base(NRPATH_PER_VERTEX * vertices, NRPATH_PER_ARC * arcs, last),
                    (vertices, arcs))


def nr_graph_estimate(num_vertices: int, num_arcs: int, *, simple: bool = False) -> Estimate:
    """nr(G) of a labelled graph with ``num_arcs`` arcs (an undirected edge is two) and the
    searches on it: at most 2 (vertex, label) pairs per arc, each a Lemma 1 gadget of at most
    4 vertices and 6 arcs per label; ``simple``: the SAT model of simple paths instead."""
    per_arc = PATH_MODEL_PER_ARC if simple else NR_GRAPH_PER_ARC
    what = "a simple-path model" if simple else "nr(G)"
    return Estimate(f"{what} of a graph with {count_text(num_vertices)} vertices and "
                    f"{count_text(num_arcs)} arcs",
                    with_base(per_arc * num_arcs, 100 * num_vertices))


def simple_path_estimate(num_vertices: int, num_edges: int, *, cycles: bool = False
                         ) -> Estimate:
    """The polynomial search for simple nonrepetitive paths of an undirected graph with
    ``num_edges`` edges (Theorem 3, :mod:`reductions.nonrepetitive.simple_nonrepetitive`): usp(G) of
    n + 2K vertices and m + 3K edges and its skew-symmetric graph of 2(n + 2K) + 2 vertices and
    2(m + 3K) + 4 arcs, with K ≤ 2m (vertex, label) pairs taken at its bound; ``cycles``: one
    such search per edge, one at a time, after nr(G) for Theorem 1."""
    k = 2 * num_edges
    vertices = 2 * (num_vertices + 2 * k) + 2
    arcs = 2 * (num_edges + 3 * k) + 4
    search = Estimate(f"a skew-symmetric graph of at most {count_text(vertices)} vertices and "
                      f"{count_text(arcs)} arcs",
                      with_base(SIMPLE_PER_SSG_ARC * arcs, SIMPLE_PER_SSG_VERTEX * vertices),
                      (vertices, arcs))
    if not cycles:
        return search
    theorem_1 = nr_graph_estimate(num_vertices, 2 * num_edges)
    return search if search.bytes >= theorem_1.bytes else theorem_1
