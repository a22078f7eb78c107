"""The Sudoku model every reduction starts from: N×N grids with N = n² (or any box shape),
their text formats, candidates and forced digits, and the puzzle records written beside
emitted instances.

Modules:

- :mod:`~reductions.sudoku.grid` — :class:`~reductions.sudoku.grid.Shape`,
  :class:`~reductions.sudoku.grid.Grid`, parsing one grid, printing, and the checks of clues
  and solutions;
- :mod:`~reductions.sudoku.puzzle_files` — puzzles from files and command-line arguments
  (bounded reading), as texts with where each came from, or parsed;
- :mod:`~reductions.sudoku.candidates` — the candidate state the rules engine works on
  (bitmask per cell, peers, units);
- :mod:`~reductions.sudoku.forced` — the digits forced by singles alone, for whole batches;
- :mod:`~reductions.sudoku.puzzle_record` — the comment lines that make an emitted file its
  own instance (shape, clues, settings).

Nothing here imports another folder of :mod:`reductions` (only the shared modules at its top:
errors, reading): every reduction imports the model, never the reverse.
"""
