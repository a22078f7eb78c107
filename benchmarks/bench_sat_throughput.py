"""Throughput of ``sudoku-bridge solve FILE`` against the plain pysat loop, in the same run.

    python benchmarks/bench_sat_throughput.py [--file ../shared/data/sudoku/royle-17clue-49151.txt]
        [--rounds 3] [--jobs 2] [--baseline OLD_CHECKOUT [--baseline-label NAME]]

Every measurement is a fresh process, start-up included, wall clock, output to a file:

* ``reference`` / ``reference --unique``: ``benchmarks/reference_loop.py`` — the fixed 9×9
  CNF in one CaDiCaL 1.9.5, clues as assumptions, the model read back and checked; with
  ``--unique`` a second call with a blocking clause;
* ``solve`` / ``solve --unique``: ``python -m solvers.cli solve FILE --jobs 2 [--unique]``
  (the CLI exactly as a user runs it: every answer verified; with ``--unique`` each line
  carries its verdict);
* the same two for ``--baseline`` (another checkout, e.g. ``git archive`` of an older commit).

Each output is checked: every puzzle solved (and, with ``--unique``, proved unique, for the
17-clue set where every puzzle is). The machine may be shared, so the subjects are interleaved
round by round and each ratio (puzzles/s of the subject ÷ puzzles/s of the matching reference
loop) is taken within its round; the table gives every round and the medians. Peak memory:
the largest resident set of the process tree's leader (``wait4``), per subject.

Targets (issue 16): ``solve`` ≥ 2.5× the loop; ``solve --unique`` ≥ 2× the loop with the
blocking-clause second call. Results: ``benchmarks/results/sat_throughput.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FULL = ROOT.parent / "shared" / "data" / "sudoku" / "royle-17clue-49151.txt"
TARGETS = {"plain": 2.5, "unique": 2.0}


def count_puzzles(path: Path) -> int:
    with open(path) as handle:
        return sum(1 for line in handle if line.strip() and not line.startswith("#"))


def run(args: list[str], checkout: Path) -> tuple[float, float, str]:
    """(seconds, peak MB, stdout) of one process run in ``checkout``."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(args, cwd=checkout, stdout=out, stderr=subprocess.PIPE,
                                env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"})
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(args)} in {checkout}: exit {proc.returncode}: "
                             f"{err[-500:]}")
        out.seek(0)
        return seconds, usage.ru_maxrss / 1024, out.read()


def check(subject: str, text: str, expect: int, unique: bool, verdicts: bool) -> None:
    """Every puzzle solved (and proved unique when the subject says so)."""
    if subject.startswith("reference"):
        counts = [int(x) for x in text.split()]
        good = counts == ([expect, expect] if unique else [expect])
    else:
        lines = text.splitlines()
        grids = [line.split("\t")[0] for line in lines]
        good = len(lines) == expect and all(len(g) == 81 and "." not in g for g in grids)
        if unique and verdicts:
            good = good and all(line.endswith("\tunique") for line in lines)
    if not good:
        raise SystemExit(f"{subject}: not every puzzle solved{' and unique' if unique else ''}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=FULL)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--baseline", type=Path, help="another checkout to measure alike")
    parser.add_argument("--baseline-label", default="baseline")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    python = sys.executable
    puzzles = count_puzzles(args.file)
    reference = [python, str(ROOT / "benchmarks" / "reference_loop.py"), str(args.file)]
    checkouts = {"this": ROOT}
    if args.baseline:
        checkouts[args.baseline_label] = args.baseline.resolve()
    subjects = {"reference": (reference, ROOT, False),
                "reference --unique": (reference + ["--unique"], ROOT, True)}
    for name, checkout in checkouts.items():
        solve = [python, "-m", "solvers.cli", "solve", str(args.file.resolve()),
                 "--jobs", str(args.jobs)]
        subjects[f"{name} solve"] = (solve, checkout, False)
        subjects[f"{name} solve --unique"] = (solve + ["--unique"], checkout, True)
    rounds, peaks = [], {}
    for r in range(args.rounds):
        row: dict = {"round": r + 1}
        for subject, (command, checkout, unique) in subjects.items():
            seconds, peak, text = run(command, checkout)
            check(subject, text, puzzles, unique, verdicts=checkout == ROOT)
            row[subject] = round(puzzles / seconds)
            peaks[subject] = max(peaks.get(subject, 0.0), round(peak, 1))
        for subject in subjects:
            if not subject.startswith("reference"):
                base = "reference --unique" if subject.endswith("--unique") else "reference"
                row[f"{subject} ratio"] = round(row[subject] / row[base], 2)
        rounds.append(row)
        print(json.dumps(row), flush=True)
    medians = {key: statistics.median(row[key] for row in rounds)
               for key in rounds[0] if key != "round"}
    result = {"machine": f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
                         f"Python {platform.python_version()}",
              "date": time.strftime("%Y-%m-%d %H:%M"), "file": args.file.name,
              "puzzles": puzzles, "jobs": args.jobs, "command": " ".join(sys.argv),
              "rounds": rounds, "medians": medians, "peak_mb": peaks}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sat_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "sat_throughput.md").write_text(markdown(result, list(subjects)))
    print((args.out / "sat_throughput.md").read_text())


def markdown(result: dict, subjects: list[str]) -> str:
    lines = [f"# `solve FILE` throughput vs the plain pysat loop ({result['date']}; "
             f"{result['machine']})", "",
             f"`{result['command']}` — {result['puzzles']:,} puzzles of `{result['file']}`, "
             f"each run a fresh process, start-up included, every answer verified; "
             f"`solve` with {result['jobs']} processes, the loop with one. Puzzles/s, and in "
             f"brackets the ratio to the matching loop of the same round.", "",
             "| round | " + " | ".join(subjects) + " |",
             "|---|" + "---:|" * len(subjects)]
    for row in result["rounds"] + [dict(result["medians"], round="median")]:
        cells = []
        for subject in subjects:
            ratio = row.get(f"{subject} ratio")
            cells.append(f"{row[subject]:,.0f}" + (f" ({ratio:.2f}×)" if ratio else ""))
        lines.append(f"| {row['round']} | " + " | ".join(cells) + " |")
    lines += ["", "Peak memory (largest process, MB): " + ", ".join(
        f"{s} {mb}" for s, mb in result["peak_mb"].items()) + ".", ""]
    for kind, target in TARGETS.items():
        key = "this solve --unique ratio" if kind == "unique" else "this solve ratio"
        met = result["medians"][key] >= target
        lines.append(f"- {'`solve --unique`' if kind == 'unique' else '`solve`'}: median "
                     f"{result['medians'][key]:.2f}× the loop (target ≥ {target}×): "
                     f"{'met' if met else 'not met'}.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
