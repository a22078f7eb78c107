"""Per-puzzle times of the exact-cover and ILP routes, model build included.

    python benchmarks/bench_exact_cover_ilp.py [--data ../shared/data/sudoku] [--sample 2000]
        [--ilp-sample 200] [--big-time-limit 60] [--quick]

Each puzzle goes through the route's ``solve_puzzle`` exactly as ``sudoku-bridge solve --via
exact-cover|ilp`` runs it: build the instance (clues eliminated), solve, decode, verify the
grid against the puzzle. Wall-clock time per puzzle, one process; medians, 90th percentiles
and maxima are reported.

* exact cover on a sample of the 17-clue set (every k-th puzzle of royle-17clue-49151.txt),
  C package (``exact-cover``) and our own Algorithm X (``dlx``), with and without the
  uniqueness check; the 375 forum-hardest puzzles;
* ILP with CBC (``COIN_CMD``, Debian's binary) and HiGHS (``highspy``) side by side, on a
  smaller sample of the 17-clue set, for both clue modes (full model with clue equalities,
  and clues eliminated), and on 20 forum-hardest puzzles;
* 25×25 (``instances/25x25.txt``) and 36×36 puzzles through both routes. The 36×36 puzzles
  are made here: a valid full grid (the shifted-rows pattern, digits relabelled, rows and
  columns shuffled inside bands and stacks), then 40% of the cells emptied at random; and,
  to show where the wall is, 50% emptied under ``--big-time-limit``.

Targets (issue 5): exact cover ≤ 1 ms median on the 17-clue set; ILP ≤ 20 ms median.
Results: ``benchmarks/results/exact_cover_ilp.json`` and ``exact_cover_ilp.md``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.sudoku.grid import Grid, Shape, parse_grid, pattern_solution  # noqa: E402
from reductions.sudoku.puzzle_files import read_puzzles  # noqa: E402
from solvers.routes import exact_cover as ec  # noqa: E402
from solvers.routes import ilp
from solvers.tools.ilp_programs import find_cbc  # noqa: E402


def read_lines(path: Path) -> list[str]:
    with open(path) as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


def every_kth(lines: list[str], count: int) -> list[str]:
    step = max(1, len(lines) // count)
    return lines[::step][:count]


def shuffled_solution(shape: Shape, rng: np.random.Generator) -> Grid:
    n, a, b = shape.size, shape.box_rows, shape.box_cols
    values = pattern_solution(shape, rng.permutation(n) + 1).values
    rows = [band * a + r for band in rng.permutation(n // a) for r in rng.permutation(a)]
    cols = [stack * b + c for stack in rng.permutation(n // b) for c in rng.permutation(b)]
    return Grid(values[np.ix_(rows, cols)], shape)


def holey_puzzle(shape: Shape, empty_fraction: float, seed: int) -> Grid:
    rng = np.random.default_rng(seed)
    values = shuffled_solution(shape, rng).values.copy()
    values[rng.random(values.shape) < empty_fraction] = 0
    return Grid(values, shape)


def timed(label: str, puzzles: list[Grid], solve) -> dict:
    """Run ``solve(puzzle) -> Outcome`` on every puzzle; times in milliseconds."""
    times, statuses = [], {}
    for puzzle in puzzles:
        start = time.perf_counter()
        outcome = solve(puzzle)
        times.append((time.perf_counter() - start) * 1000)
        statuses[outcome.status] = statuses.get(outcome.status, 0) + 1
    t = np.array(times)
    row = {"run": label, "puzzles": len(puzzles), "median_ms": round(float(np.median(t)), 3),
           "p90_ms": round(float(np.percentile(t, 90)), 3), "max_ms": round(float(t.max()), 3),
           "total_s": round(float(t.sum()) / 1000, 2), "statuses": statuses}
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "sudoku")
    parser.add_argument("--sample", type=int, default=2000,
                        help="17-clue puzzles for exact cover (default 2000)")
    parser.add_argument("--ilp-sample", type=int, default=200,
                        help="17-clue puzzles for the ILP solvers (default 200)")
    parser.add_argument("--big-time-limit", type=float, default=60.0,
                        help="seconds per 36×36 puzzle with half the cells empty (0: skip)")
    parser.add_argument("--quick", action="store_true", help="small samples, for a smoke run")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    if args.quick:
        args.sample, args.ilp_sample, args.big_time_limit = 100, 20, 0
    results = {"machine": f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
                          f"Python {platform.python_version()}",
               "date": time.strftime("%Y-%m-%d"), "runs": [],
               "load_average_at_start": round(os.getloadavg()[0], 2)}
    runs = results["runs"]
    cbc = find_cbc()
    results["cbc"] = cbc

    royle_path = args.data / "royle-17clue-49151.txt"
    hardest_path = args.data / "forum-hardest-1106.txt"
    if royle_path.exists():
        lines = read_lines(royle_path)
        royle = [parse_grid(line) for line in every_kth(lines, args.sample)]
        royle_ilp = [parse_grid(line) for line in every_kth(lines, args.ilp_sample)]
        tag = f"17-clue sample of {len(royle)}"
        runs.append(timed(f"exact cover, C package, {tag}", royle,
                          lambda p: ec.solve_puzzle(p, cover_solver="exact-cover")))
        runs.append(timed(f"exact cover, C package, unique, {tag}", royle,
                          lambda p: ec.solve_puzzle(p, unique=True, cover_solver="exact-cover")))
        few = royle[:max(len(royle) // 10, 1)]
        runs.append(timed(f"exact cover, C package, time limit 10 s (child process), "
                          f"17-clue sample of {len(few)}", few,
                          lambda p: ec.solve_puzzle(p, cover_solver="exact-cover", time_limit=10)))
        small = royle[:max(len(royle) // 4, 1)]
        runs.append(timed(f"exact cover, own dlx, 17-clue sample of {len(small)}", small,
                          lambda p: ec.solve_puzzle(p, cover_solver="dlx")))
        tag = f"17-clue sample of {len(royle_ilp)}"
        for solver in ilp.SOLVERS:
            for clues in ("eliminate", "equalities"):
                runs.append(timed(f"ILP {solver}, clues {clues}, {tag}", royle_ilp,
                                  lambda p: ilp.solve_puzzle(p, ilp_solver=solver, clues=clues)))
        runs.append(timed(f"ILP highs, clues eliminate, unique, {tag}", royle_ilp,
                          lambda p: ilp.solve_puzzle(p, ilp_solver="highs", unique=True)))
    else:
        print(f"skip the 17-clue set: {royle_path} not found")
    if hardest_path.exists():
        hardest = [parse_grid(line) for line in read_lines(hardest_path)]
        runs.append(timed(f"exact cover, C package, forum-hardest {len(hardest)}", hardest,
                          lambda p: ec.solve_puzzle(p, cover_solver="exact-cover")))
        few = hardest[:20]
        for solver in ilp.SOLVERS:
            runs.append(timed(f"ILP {solver}, clues eliminate, forum-hardest first {len(few)}",
                              few, lambda p: ilp.solve_puzzle(p, ilp_solver=solver)))

    big25 = [g for _, g in read_puzzles(ROOT / "instances" / "25x25.txt")]
    big36 = [holey_puzzle(Shape(6, 6), 0.4, seed) for seed in range(5)]
    for label, puzzles in (("25x25 (instances, 45% empty)", big25),
                           ("36x36 (40% empty)", big36)):
        runs.append(timed(f"exact cover, C package, {label}", puzzles,
                          lambda p: ec.solve_puzzle(p, cover_solver="exact-cover")))
        runs.append(timed(f"exact cover, own dlx, {label}", puzzles,
                          lambda p: ec.solve_puzzle(p, cover_solver="dlx")))
        for solver in ilp.SOLVERS:
            runs.append(timed(f"ILP {solver}, clues eliminate, {label}", puzzles,
                              lambda p: ilp.solve_puzzle(p, ilp_solver=solver)))
    if args.big_time_limit > 0:
        limit = args.big_time_limit
        hard = [holey_puzzle(Shape(6, 6), 0.5, 0)]
        label = f"36x36 (50% empty), time limit {limit:g} s"
        runs.append(timed(f"exact cover, C package, {label}", hard,
                          lambda p: ec.solve_puzzle(p, cover_solver="exact-cover", time_limit=limit)))
        for solver in ilp.SOLVERS:
            runs.append(timed(f"ILP {solver}, clues eliminate, {label}", hard,
                              lambda p: ilp.solve_puzzle(p, ilp_solver=solver, time_limit=limit)))

    results["load_average_at_end"] = round(os.getloadavg()[0], 2)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "exact_cover_ilp.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = [f"# Exact-cover and ILP routes ({results['date']}; {results['machine']}; "
             f"CBC {cbc})", "",
             "Per puzzle, one process, model build + solve + decode + verify. Load average "
             f"(1 min) {results['load_average_at_start']} at the start, "
             f"{results['load_average_at_end']} at the end (the machine is shared: "
             f"times grow with the load).", "",
             "| run | puzzles | median ms | p90 ms | max ms | statuses |",
             "|---|---|---|---|---|---|"]
    for row in runs:
        statuses = ", ".join(f"{k} {v}" for k, v in row["statuses"].items())
        lines.append(f"| {row['run']} | {row['puzzles']:,} | {row['median_ms']:,} | "
                     f"{row['p90_ms']:,} | {row['max_ms']:,} | {statuses} |")
    (args.out / "exact_cover_ilp.md").write_text("\n".join(lines) + "\n")
    print((args.out / "exact_cover_ilp.md").read_text())


if __name__ == "__main__":
    main()
