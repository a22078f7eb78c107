"""The direct encodings of a Sudoku puzzle: CNF (Lynce and Ouaknine 2006; clue elimination
as Kwon and Jain 2006), exact cover (Knuth's dancing links) and the 0/1 ILP of the same
matrix (Bartlett et al. 2008), each with its decoding and closed-form sizes; see
docs/reductions.md, "CNF" and "Exact cover and ILP".

Modules:

- :mod:`~reductions.encodings.cnf` — the CNF: variables per (cell, digit), at-least-one and
  at-most-one groups (pysat's ``CardEnc``), clues as units or eliminated;
- :mod:`~reductions.encodings.exact_cover` — options and items, their sizes with clues kept
  or eliminated;
- :mod:`~reductions.encodings.ilp` — the exact-cover matrix as A·x = 1 (a PuLP model);
- :mod:`~reductions.encodings.sizes` — their memory estimates, written or solved.
"""
