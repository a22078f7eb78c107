"""The HCP routes on a file of 17-clue puzzles against the plain SAT loop, in the same run.

    python benchmarks/bench_hcp_corpus.py [--puzzles 200] [--rounds 3]
        [--baseline OLD_CHECKOUT [--baseline-label NAME]] [--reference-file FILE]

Each measurement is a fresh process, start-up included, wall clock:

* ``reference``: the plain one-process pysat loop (``benchmarks/reference_loop.py``): the
  fixed 9×9 CNF of the blank grid (extended encoding) in one CaDiCaL 1.9.5, each puzzle's clues as
  assumptions, the model read back into a grid and checked against the clues and the rules.
  Run over ``--reference-file`` (default ``../shared/data/sudoku/royle-17clue-49151.txt``,
  the whole 17-clue set; the benchmark stops if it is missing);
* ``directed``: ``sudoku-bridge solve FILE --via hcp --prune peers --jobs 1``;
* ``undirected``: ``sudoku-bridge solve FILE --via hcp-undirected --jobs 1`` (3-split,
  peers pruning, degree-2 reduction);
* ``directed-unique``, ``undirected-unique``: the same with ``--unique`` (every 17-clue
  puzzle must come out ``unique``: the second question on the same model);

over the first ``--puzzles`` puzzles of ``instances/royle17-sample300.txt``, for this checkout
and, with ``--baseline``, for another checkout (e.g. ``git archive main``), every answer
checked to be solved. The machine is shared: the runs are interleaved round by round and the
ratio (HCP seconds a puzzle / reference seconds a puzzle) is taken within each round; the
table gives each round's ratios and their median. Target (issue 16): ratio ≤ 100.
Results: ``benchmarks/results/hcp_corpus.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "instances" / "royle17-sample300.txt"
FULL = ROOT.parent / "shared" / "data" / "sudoku" / "royle-17clue-49151.txt"

REFERENCE = ROOT / "benchmarks" / "reference_loop.py"
"""The plain pysat loop every 9×9 ratio is quoted against (run as a script; prints the count
of puzzles solved and checked)."""


def read_lines(path: Path, limit: int | None = None) -> list[str]:
    with open(path) as handle:
        lines = [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    return lines[:limit] if limit else lines


def run(args: list[str], checkout: Path, expect: int, what: str) -> float:
    """Seconds for one process in ``checkout``; checks that ``expect`` puzzles were solved."""
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=checkout, env={"PYTHONPATH": str(checkout),
                                                   "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if what == "reference":
        solved = int(proc.stdout.strip() or -1)
    else:
        # a grid per puzzle; with --unique, a tab and the verdict after it
        grids = [line.split("\t") for line in proc.stdout.splitlines()]
        solved = sum(1 for grid, *verdict in grids
                     if len(grid.replace(' ', '')) == 81 and '.' not in grid
                     and verdict in ([], ["unique"]))
    if solved != expect:
        raise SystemExit(f"{what} in {checkout}: {solved} of {expect} solved "
                         f"(exit {proc.returncode}): {proc.stderr[-500:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puzzles", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout to measure alike")
    parser.add_argument("--baseline-label", default="baseline",
                        help="its name in the table (e.g. the commit it was exported from)")
    parser.add_argument("--reference-file", type=Path,
                        default=FULL)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    python = sys.executable
    if not args.reference_file.exists():
        # No silent fallback to the small sample: over 300 puzzles the loop's time is mostly
        # start-up and every ratio would come out several times too small.
        raise SystemExit(f"{args.reference_file}: not found; give --reference-file (the "
                         f"49,151 17-clue puzzles)")
    puzzles = read_lines(SAMPLE, args.puzzles)
    reference_count = len(read_lines(args.reference_file))
    checkouts = {"this": ROOT}
    if args.baseline:
        checkouts[args.baseline_label] = args.baseline.resolve()
    routes = {"directed": ["--via", "hcp", "--prune", "peers"],
              "undirected": ["--via", "hcp-undirected"],
              "directed-unique": ["--via", "hcp", "--prune", "peers", "--unique"],
              "undirected-unique": ["--via", "hcp-undirected", "--unique"]}
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "puzzles.txt"
        file.write_text("\n".join(puzzles) + "\n")
        for r in range(args.rounds):
            row: dict = {"round": r + 1}
            ref = run([python, str(REFERENCE), str(args.reference_file)], ROOT,
                      reference_count, "reference")
            row["reference_s_per_puzzle"] = ref / reference_count
            for name, checkout in checkouts.items():
                for route, flags in routes.items():
                    seconds = run([python, "-m", "solvers.cli", "solve", str(file), *flags,
                                   "--jobs", "1"], checkout, len(puzzles), route)
                    row[f"{name}/{route}_s_per_puzzle"] = seconds / len(puzzles)
                    row[f"{name}/{route}_ratio"] = seconds / len(puzzles) / (
                        ref / reference_count)
            rounds.append(row)
            print(json.dumps(row), flush=True)
    keys = [k for k in rounds[0] if k.endswith("_ratio")]
    medians = {k: statistics.median(row[k] for row in rounds) for k in keys}
    result = {"machine": f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
                         f"Python {platform.python_version()}",
              "date": time.strftime("%Y-%m-%d %H:%M"), "puzzles": len(puzzles),
              "reference_file": args.reference_file.name,
              "reference_puzzles": reference_count,
              "baseline": args.baseline_label if args.baseline else None,
              "rounds": rounds, "median_ratios": medians}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "hcp_corpus.json").write_text(json.dumps(result, indent=1) + "\n")
    command = (f"python benchmarks/bench_hcp_corpus.py --puzzles {len(puzzles)} --rounds "
               f"{args.rounds}" + (" --baseline BASE" if args.baseline else ""))
    base = f" (BASE: `git archive {args.baseline_label}`)" if args.baseline else ""
    lines = [f"# HCP routes on 17-clue puzzles vs the plain SAT loop ({result['date']}; "
             f"{result['machine']})", "",
             f"`{command}`{base}. Each cell: one process, start-up included; HCP = `solve "
             f"FILE --jobs 1` over the first {len(puzzles)} puzzles of "
             f"`instances/royle17-sample300.txt`; reference = the plain pysat loop over "
             f"{reference_count:,} puzzles of `{args.reference_file.name}`. Ratio = HCP "
             f"seconds a puzzle / reference "
             f"seconds a puzzle, within the round (target ≤ 100).", "",
             "| round | reference ms/puzzle | " + " | ".join(
                 f"{k.removesuffix('_ratio')} ms/puzzle (ratio)" for k in keys) + " |",
             "|---|---:|" + "---:|" * len(keys)]
    for row in rounds:
        cells = [f"{1000 * row[k.replace('_ratio', '_s_per_puzzle')]:.2f} ({row[k]:.0f})"
                 for k in keys]
        lines.append(f"| {row['round']} | {1000 * row['reference_s_per_puzzle']:.3f} | "
                     + " | ".join(cells) + " |")
    lines.append("| median ratio | | " + " | ".join(f"**{medians[k]:.0f}**" for k in keys)
                 + " |")
    (args.out / "hcp_corpus.md").write_text("\n".join(lines) + "\n")
    print((args.out / "hcp_corpus.md").read_text())


if __name__ == "__main__":
    main()
