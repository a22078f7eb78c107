"""Speed and power of the rule-based solver (``reductions.rules``) on the shipped sets.

    PYTHONPATH=. python benchmarks/bench_rules.py [--repeat 3] [--pads DIR]

Per set: puzzles solved with the local + matching rules (levels 1-9), with Nishio (10), with
the paper's rules (1-16) and with every rule (1-19: + the path and mixed conflicting-path rules
of Eppstein's own program); milliseconds per puzzle (median, mean, max) for levels 1-9 and for
all rules, in one process after a warm-up. Not a timed test.

PADS: Eppstein's ``Sudoku.py`` (https://github.com/QuantumApplicationLab/PADS mirrors it; not
part of this project). With ``--pads DIR`` (DIR holds the ``pads`` package) it runs in this
process on the 9×9 sets, twice: its default rules (including ``rectangle`` and ``trapezoid``,
which assume a unique solution) and without them (its ``-u``); solved count and median ms per
puzzle. Without ``--pads`` the counts measured for issue 15 are shown (298 / 36 / 0).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path

from reductions.grid import read_puzzles
from reductions.rules import Verdict, deduce, select_rules

ROOT = Path(__file__).resolve().parent.parent
SETS = [("royle17-sample300.txt", 298), ("top1465-sample100.txt", 36),
        ("hardest1905-sample100.txt", 0), ("16x16.txt", None), ("25x25.txt", None)]


def timed(puzzles, rules, repeat):
    times, solved = [], 0
    for puzzle in puzzles:
        best = None
        for _ in range(repeat):
            start = time.perf_counter()
            result = deduce(puzzle, rules)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        times.append(best * 1000)
        solved += result.verdict == Verdict.SOLVED
    return solved, times


def pads_run(sudoku, puzzles, assume_unique: bool) -> tuple[int, float]:
    """Solved count and median ms of PADS's rule loop (``step`` until no progress)."""
    solved, times = 0, []
    for puzzle in puzzles:
        start = time.perf_counter()
        grid = sudoku.Sudoku([int(v) for v in puzzle.values.ravel()])
        grid.assume_unique = assume_unique
        try:
            while sudoku.step(grid):
                pass
        except sudoku.BadSudoku:
            pass
        times.append((time.perf_counter() - start) * 1000)
        solved += grid.complete()
    return solved, statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per puzzle (best kept)")
    parser.add_argument("--pads", type=Path, metavar="DIR",
                        help="directory holding Eppstein's PADS package, to run it alongside")
    args = parser.parse_args()
    sudoku = None
    if args.pads is not None:
        sys.path.insert(0, str(args.pads))
        sudoku = importlib.import_module("pads.Sudoku")
    levels = {"1-9": select_rules(max_level=9), "1-10": select_rules(max_level=10),
              "1-16": select_rules(max_level=16), "all": select_rules()}
    deduce(next(read_puzzles(ROOT / "instances" / SETS[0][0]))[1])        # warm-up
    pads_head = ("PADS | PADS -u | PADS ms median" if sudoku else "PADS")
    print(f"| set | puzzles | solved 1-9 | solved 1-10 | solved 1-16 | solved all | {pads_head} "
          "| ms median 1-9 | ms mean 1-9 | ms max 1-9 | ms median all | ms max all |")
    print("|---" * (11 + (2 if sudoku else 0)) + "|")
    for name, pads in SETS:
        puzzles = [g for _, g in read_puzzles(ROOT / "instances" / name)]
        local_solved, local_times = timed(puzzles, levels["1-9"], args.repeat)
        nishio_solved, _ = timed(puzzles, levels["1-10"], 1)
        paper_solved, _ = timed(puzzles, levels["1-16"], 1)
        all_solved, all_times = timed(puzzles, levels["all"], 1)
        if sudoku is None:
            pads_cells = f"{pads if pads is not None else '-'}"
        elif puzzles[0].size != 9:
            pads_cells = "- | - | -"
        else:
            unique_solved, unique_ms = pads_run(sudoku, puzzles, True)
            plain_solved, _ = pads_run(sudoku, puzzles, False)
            pads_cells = f"{unique_solved} | {plain_solved} | {unique_ms:.2f}"
        print(f"| {name} | {len(puzzles)} | {local_solved} | {nishio_solved} | {paper_solved} | "
              f"{all_solved} | {pads_cells} | {statistics.median(local_times):.2f} | "
              f"{statistics.mean(local_times):.2f} | {max(local_times):.1f} | "
              f"{statistics.median(all_times):.2f} | {max(all_times):.1f} |", flush=True)


if __name__ == "__main__":
    main()
