"""Speed and power of the rule-based solver (``reductions.rules``) on the shipped sets.

    PYTHONPATH=. python benchmarks/bench_rules.py [--repeat 3]

Per set: puzzles solved with the local + matching rules (levels 1-9), with Nishio (10) and
with every rule (16), beside the counts of Eppstein's PADS ``sudoku.py`` on the same files
(measured for issue 15: 298 / 36 / 0); and milliseconds per puzzle (median, mean, max) for
levels 1-9 and for all rules, in one process after a warm-up. Not a timed test.
"""

from __future__ import annotations

import argparse
import statistics
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per puzzle (best kept)")
    args = parser.parse_args()
    levels = {"1-9": select_rules(max_level=9), "1-10": select_rules(max_level=10),
              "all": select_rules()}
    deduce(next(read_puzzles(ROOT / "instances" / SETS[0][0]))[1])        # warm-up
    print("| set | puzzles | solved 1-9 | solved 1-10 | solved all | PADS | "
          "ms median 1-9 | ms mean 1-9 | ms max 1-9 | ms median all | ms max all |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, pads in SETS:
        puzzles = [g for _, g in read_puzzles(ROOT / "instances" / name)]
        local_solved, local_times = timed(puzzles, levels["1-9"], args.repeat)
        nishio_solved, _ = timed(puzzles, levels["1-10"], 1)
        all_solved, all_times = timed(puzzles, levels["all"], 1)
        print(f"| {name} | {len(puzzles)} | {local_solved} | {nishio_solved} | {all_solved} | "
              f"{pads if pads is not None else '-'} | {statistics.median(local_times):.2f} | "
              f"{statistics.mean(local_times):.2f} | {max(local_times):.1f} | "
              f"{statistics.median(all_times):.2f} | {max(all_times):.1f} |", flush=True)


if __name__ == "__main__":
    main()
