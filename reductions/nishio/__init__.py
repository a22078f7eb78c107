"""Single-digit Sudoku subproblems (D. Eppstein, *Solving single-digit Sudoku subproblems*,
FUN 2012): valid placements of one digit in a cell set S, Nishio(S) (the union of the valid
placements inside S) by the paper's DAG of almost-balanced matrices or by overlaying every
placement, and the 3SAT gadgets of Theorems 2 and 3; see docs/reductions.md, "3SAT → Nishio".

Modules:

- :mod:`~reductions.nishio.placements` — cell sets, valid placements and Nishio(S);
- :mod:`~reductions.nishio.gadget` — Theorem 2's gadget of a 3SAT formula, its forward map
  and extraction, and Theorem 3's variant.

The 3SAT formulas both gadget families take are in :mod:`reductions.formulas`.
"""
