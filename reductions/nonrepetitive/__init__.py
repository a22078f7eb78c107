"""Nonrepetitive paths and cycles in edge-labelled graphs (D. Eppstein, *Nonrepetitive paths
and cycles in graphs with application to Sudoku*, 2005): walks through nr(G) (Lemmas 1-2,
Theorems 1-2), simple paths in undirected graphs through usp(G) and a skew-symmetric graph
(Lemmas 3-4, Theorem 3), and the NP-hardness gadget for directed simple paths (Theorem 4);
see docs/reductions.md, "Nonrepetitive paths".

Modules:

- :mod:`~reductions.nonrepetitive.labelled_graph` — the edge-labelled graph (directed or
  undirected) every construction here takes;
- :mod:`~reductions.nonrepetitive.nr_graph` — nr(G) (Lemma 1's label gadgets), its searches
  (cyclic edges, edges from a vertex, one path) and the checks of walks, simple paths and
  cycles, with naive references;
- :mod:`~reductions.nonrepetitive.usp` — usp(G): any labels to 0/1 (Lemma 3);
- :mod:`~reductions.nonrepetitive.skew_symmetric` — regular paths in skew-symmetric graphs;
- :mod:`~reductions.nonrepetitive.ssg` — the skew-symmetric graph of usp(G) and p, q
  (Lemma 4);
- :mod:`~reductions.nonrepetitive.simple_nonrepetitive` — Theorem 3: simple nonrepetitive
  paths and cycles of undirected graphs in polynomial time;
- :mod:`~reductions.nonrepetitive.nrpath_gadget` — Theorem 4: 3SAT to directed simple
  nonrepetitive paths (and cycles), with the forward map and extraction;
- :mod:`~reductions.nonrepetitive.sizes` — their memory estimates.
"""
