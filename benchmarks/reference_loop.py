"""The reference every 9×9 speed figure is quoted against: the plain one-process pysat loop.

    python benchmarks/reference_loop.py PUZZLES [--unique]

The fixed CNF of the blank 9×9 grid (extended encoding, as ``emit cnf`` writes it) in one
CaDiCaL 1.9.5; for each puzzle line its clues as assumptions, the model read back into a grid
and checked against the clues and the rules in plain numpy/Python. With ``--unique``, the same
loop then asks for a second solution: a blocking clause (some free cell differs) behind a
fresh activation literal, switched off after the call. Prints the number of puzzles solved
(and, with ``--unique``, of those proved unique). What a careful user would write in an
afternoon with pysat — the bar the library's batch path has to clear by a wide margin.
"""

import sys

import numpy as np
from pysat.solvers import Solver

from reductions.encodings.cnf import sudoku_cnf
from reductions.sudoku.grid import Grid

n = 9
unique = "--unique" in sys.argv[2:]
cnf = sudoku_cnf(Grid.empty(n), "extended", "auto", "units")
solver = Solver(name="cadical195")
for block in cnf.clause_blocks():
    solver.append_formula(block.tolist() if isinstance(block, np.ndarray) else block)
top = cnf.num_vars
solved = proved_unique = 0
with open(sys.argv[1]) as handle:
    for line in handle:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        clues = np.array([0 if ch in ".0" else int(ch) for ch in line[:81]])
        cells = np.flatnonzero(clues)
        assumptions = (cells * n + clues[cells]).tolist()   # variable (r*9+c)*9 + d
        if not solver.solve(assumptions=assumptions):
            continue
        model = np.asarray(solver.get_model()[:n ** 3]) > 0
        grid = model.reshape(n * n, n).argmax(axis=1) + 1
        rows = grid.reshape(n, n)
        boxes = rows.reshape(3, 3, 3, 3).swapaxes(1, 2).reshape(n, n)
        ok = (np.all(grid[cells] == clues[cells])
              and all(len(set(part.tolist())) == n for group in (rows, rows.T, boxes)
                      for part in group))
        solved += bool(ok)
        if ok and unique:
            top += 1
            free = np.flatnonzero(clues == 0)
            solver.add_clause([-top] + (-(free * n + grid[free])).tolist())
            proved_unique += not solver.solve(assumptions=assumptions + [top])
            solver.add_clause([-top])
print(solved, proved_unique) if unique else print(solved)
