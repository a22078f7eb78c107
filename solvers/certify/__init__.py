"""Certified negative answers: "no solution", "unique" and the like backed by a DRAT proof
that an independent checker accepts.

* :mod:`.checkers` — the checkers (cake_lpr, drat-trim, dratify) run as outside processes;
* :mod:`.proofs` — proof logging by pysat's solvers in this process;
* :mod:`.refutation` — :class:`~.refutation.CertifyOptions` and the one way a formula and its
  proof are written, checked, and kept or deleted (:func:`~.refutation.check_refutation`);
* what is certified, each with its formula and why every clause of it holds: :mod:`.sudoku`
  (one puzzle), :mod:`.batch` (a file's puzzles, one proof a batch), :mod:`.outside` (a
  DIMACS program's own proof), :mod:`.hamiltonian` (no Hamiltonian cycle in any graph),
  :mod:`.hcp_puzzle` (the ``hcp`` routes), :mod:`.gadgets` (the gadgets' closed loops).

Light on purpose: :mod:`.dratify_check` runs as a child process and imports this package.
"""
