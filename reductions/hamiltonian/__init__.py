"""Sudoku to the Hamiltonian-cycle problem: Haythorpe's directed graph (M. Haythorpe,
*Reducing the generalised Sudoku problem to the Hamiltonian cycle problem*, 2016: §2-3 the
graph, §4 the undirected 3-split, §5 clue pruning, §6 reading a cycle's grid back, §7 the
degree-2 reduction), and the graph helpers every Hamiltonian-cycle model shares; see
docs/reductions.md, "Haythorpe's Hamiltonian-cycle graph".

Modules:

- :mod:`~reductions.hamiltonian.graphs` — pair keys, cycle labels, component labels and the
  Hamiltonian-cycle check, for any graph (also used by :mod:`solvers.hamiltonian`);
- :mod:`~reductions.hamiltonian.hcp` — Haythorpe's directed graph, clue pruning, sizes, and a
  cycle's grid;
- :mod:`~reductions.hamiltonian.hcp_undirected` — the 3-split to an undirected graph (with
  the triple trick) and back;
- :mod:`~reductions.hamiltonian.graph_reduction` — the degree-2 reduction of any undirected
  graph to a fixpoint (§7), and tours carried across it;
- :mod:`~reductions.hamiltonian.degree_two` — its working state: rule 2 propagated by
  frontiers, the ends of degree-2 paths for rule 3, the paths laid out for rule 1;
- :mod:`~reductions.hamiltonian.split_reduction` — the degree-2 reduction of a 3-split graph,
  run on the directed graph;
- :mod:`~reductions.hamiltonian.hcp_pipeline` — puzzle → graph → (split, reduced) graph and a
  tour back to a checked grid;
- :mod:`~reductions.hamiltonian.prune` — the clue-pruning modes (light: the route options
  name them);
- :mod:`~reductions.hamiltonian.sizes` — the pipeline's memory estimate.
"""
