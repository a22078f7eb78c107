"""Single-digit Sudoku subproblems (D. Eppstein, *Solving single-digit Sudoku subproblems*,
FUN 2012): valid placements of one digit in a cell set S, Nishio(S) (the union of the valid
placements inside S) by the paper's DAG of almost-balanced matrices or by overlaying every
placement, and the 3SAT gadgets of Theorems 2 and 3; see docs/reductions.md, "3SAT → Nishio".

Modules:

- :mod:`~reductions.nishio.placements` — cell sets, valid placements, and Nishio(S) by
  overlaying every placement (§2, §4);
- :mod:`~reductions.nishio.dag` — Nishio(S) by the DAG of almost-balanced matrices (§3) and
  :func:`~reductions.nishio.dag.nishio`, the entry point for every method;
- :mod:`~reductions.nishio.parts` — independent parts of a cell set and the placements of a
  complete sub-grid (the SAT presolve's and the gadgets' filler);
- :mod:`~reductions.nishio.gadget` — Theorem 2's gadget of a 3SAT formula (§6), its forward
  map and extraction, and the reduction rule :class:`~reductions.nishio.gadget.SatToNishio`;
- :mod:`~reductions.nishio.theorem3` — Theorem 3's variant (X' with v0), and what
  ``gadget nishio`` writes for either theorem;
- :mod:`~reductions.nishio.sizes` — their memory estimates.

The 3SAT formulas both gadget families take are in :mod:`reductions.formulas`.
"""
