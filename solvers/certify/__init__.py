"""Certified negative answers: "no solution", "unique" and the like backed by a DRAT proof
that an independent checker accepts.

* :mod:`.checkers` — the checkers (cake_lpr, drat-trim, dratify) run as outside processes;
* :mod:`.proofs` — proof logging by pysat's solvers in this process;
* :mod:`.sudoku` — one puzzle solved with every negative claim certified.

Light on purpose: :mod:`.dratify_check` runs as a child process and imports this package.
"""
