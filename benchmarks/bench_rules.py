"""Speed and power of the rule-based solver (``reductions.rules``) on the shipped sets, with
Eppstein's own program as the same-run reference.

    PYTHONPATH=. python benchmarks/bench_rules.py [--rounds 3] [--pads DIR] [--before]
        [--sets NAME,...]

Power, per set: puzzles solved with the local + matching rules (levels 1-9), with Nishio (10),
with the paper's rules (1-16) and with every rule (1-19: + the path and mixed
conflicting-path rules of Eppstein's own program).

Speed, per set: milliseconds per puzzle with every rule, from the parsed puzzle to the end
of deduction — mean, median and max over the puzzles, each puzzle's time the best of
``--rounds`` rounds. In every round each puzzle is run by each program in turn (this engine,
PADS twice, and with ``--before`` the engine as it was before issue 27, tests/rules_reference),
so that the machine's load falls on all of them alike. One process, after a warm-up.

PADS: Eppstein's ``Sudoku.py`` (https://github.com/jfinkels/PADS; not part of this project,
never copied into it). ``--pads DIR`` names a copy: DIR holds the ``pads`` package (the public
repository names the module ``pads/sudoku.py``, older copies ``pads/Sudoku.py``) or the
module itself (:func:`find_pads`). It runs on the 9×9 sets with its default rules (which
include ``rectangle`` and ``trapezoid``, assuming a unique solution: the reference the
speed ratio is taken against) and without them (its ``-u``, the rules closest to ours).
Without ``--pads`` the counts measured for issue 15 are shown (298 / 36 / 0) and there is no
speed reference.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

from reductions.sudoku.puzzle_files import read_puzzles
from reductions.rules.engine import deduce, select_rules
from reductions.status import Status

ROOT = Path(__file__).resolve().parent.parent
SETS = [("royle17-sample300.txt", 298), ("top1465-sample100.txt", 36),
        ("hardest1905-sample100.txt", 0), ("16x16.txt", None), ("25x25.txt", None)]
PADS_NAMES = ("pads.sudoku", "pads.Sudoku", "sudoku", "Sudoku")


def find_pads(directory: Path) -> ModuleType:
    """Eppstein's Sudoku module in a copy of PADS, whatever the copy calls it
    (:data:`PADS_NAMES`, under ``directory``). The package's own directory goes on the path
    too: the public repository's ``wrap.py`` imports its sibling ``smawk`` as a top-level
    module."""
    for path in (directory / "pads", directory):
        sys.path.insert(0, str(path))
    for name in PADS_NAMES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if all(hasattr(module, attr) for attr in ("Sudoku", "step", "BadSudoku")):
            return module
    raise SystemExit(f"no PADS Sudoku module ({', '.join(PADS_NAMES)}) under {directory}")


def pads_solve(sudoku: ModuleType, puzzle, assume_unique: bool = True) -> bool:
    """PADS's rule loop (``step`` until no progress) on one puzzle; solved or not."""
    grid = sudoku.Sudoku([int(v) for v in puzzle.values.ravel()])
    grid.assume_unique = assume_unique
    try:
        while sudoku.step(grid):
            pass
    except sudoku.BadSudoku:
        return False
    return grid.complete()


def solved_count(puzzles, rules) -> int:
    return sum(deduce(puzzle, rules).verdict == Status.SOLVED for puzzle in puzzles)


def best_times(puzzles, programs: dict, rounds: int) -> tuple[dict, dict]:
    """Per program, per puzzle: the best of ``rounds`` runs in ms (within a round every
    program runs a puzzle before the next puzzle), and how many puzzles it solved."""
    best = {name: [float("inf")] * len(puzzles) for name in programs}
    solved = dict.fromkeys(programs, 0)
    for round_ in range(rounds):
        for i, puzzle in enumerate(puzzles):
            for name, run in programs.items():
                start = time.perf_counter()
                done = run(puzzle)
                best[name][i] = min(best[name][i], (time.perf_counter() - start) * 1000)
                solved[name] += bool(done) and round_ == 0
    return best, solved


def summary(times: list[float]) -> str:
    return (f"{statistics.mean(times):.2f} | {statistics.median(times):.2f} | "
            f"{max(times):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs per puzzle (best kept)")
    parser.add_argument("--pads", type=Path, metavar="DIR",
                        help="a copy of Eppstein's PADS, run alongside as the reference")
    parser.add_argument("--before", action="store_true",
                        help="also time the engine as it was before issue 27 "
                             "(tests/rules_reference)")
    parser.add_argument("--sets", help="only these sets (comma-separated file names)")
    args = parser.parse_args()
    sudoku = find_pads(args.pads) if args.pads is not None else None
    before = None
    if args.before:
        sys.path.insert(0, str(ROOT))
        before = importlib.import_module("tests.rules_reference.engine")
    levels = {"1-9": select_rules(max_level=9), "1-10": select_rules(max_level=10),
              "1-16": select_rules(max_level=16)}
    every = select_rules()
    sets = [(name, pads) for name, pads in SETS
            if args.sets is None or name in args.sets.split(",")]
    power, speed = [], []
    for name, pads_known in sets:
        puzzles = [g for _, g in read_puzzles(ROOT / "instances" / name)]
        programs = {"ours": lambda p: deduce(p, every).verdict == Status.SOLVED}
        if sudoku is not None and puzzles[0].size == 9:
            programs["PADS"] = lambda p: pads_solve(sudoku, p)
            programs["PADS -u"] = lambda p: pads_solve(sudoku, p, assume_unique=False)
        if before is not None:
            programs["before"] = lambda p: before.deduce(p).verdict == Status.SOLVED
        for run in programs.values():                                     # warm-up
            run(puzzles[0])
        times, solved = best_times(puzzles, programs, args.rounds)
        counts = [solved_count(puzzles, rules) for rules in levels.values()]
        counts.append(solved["ours"])
        if "PADS" in programs:
            pads_cells = f"{solved['PADS']} | {solved['PADS -u']}"
        else:
            pads_cells = f"{pads_known if pads_known is not None else '-'} | -"
        power.append(f"| {name} | {len(puzzles)} | {' | '.join(map(str, counts))} | "
                     f"{pads_cells} |")
        row = f"| {name} | "
        for program in ("PADS", "PADS -u"):
            row += (summary(times[program]) if program in times else "- | - | -") + " | "
        row += summary(times["ours"])
        if before is not None:
            row += " | " + summary(times["before"])
        if "PADS" in times:
            ratio = statistics.median(times["ours"]) / statistics.median(times["PADS"])
            row += f" | {ratio:.2f}"
        else:
            row += " | -"
        speed.append(row + " |")
        print(f"  {name} done", file=sys.stderr, flush=True)
    print("| set | puzzles | solved 1-9 | solved 1-10 | solved 1-16 | solved all | PADS | "
          "PADS -u |")
    print("|---" * 8 + "|")
    print("\n".join(power))
    print()
    head = ("| set | PADS ms mean | median | max | PADS -u ms mean | median | max | "
            "ours ms mean | median | max |")
    if before is not None:
        head += " before ms mean | median | max |"
    head += " ours / PADS, median |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    print("\n".join(speed))


if __name__ == "__main__":
    main()
