"""Start-up of the command line: one puzzle, ``--help``, against the interpreter's own start;
and ``rules FILE`` against Eppstein's own program as a process.

    python benchmarks/bench_startup.py [--rounds 10] [--pads DIR]
        [--baseline OLD_CHECKOUT [--baseline-label NAME]]

Every measurement is a fresh process, wall clock from start to exit, and its CPU time (user +
system, its children included):

* ``python``: ``python -c pass`` — the interpreter alone (the floor no command goes below);
* ``numpy``: ``python -c "import numpy"`` — the reference of the ``--help`` target (at most
  1.2 times it);
* ``numpy+pysat``: ``python -c "import numpy, pysat.solvers"`` — what the SAT route needs
  in any case;
* ``solve``: ``python -m solvers.cli solve instances/haythorpe-17clue.txt`` (the README's
  command: SAT route, answer verified; the printed grid is checked against the shipped
  solution);
* ``--help``: ``python -m solvers.cli --help`` (the whole parser);
* the same two for ``--baseline`` (another checkout, e.g. ``git archive`` of an older commit);
* with ``--pads DIR`` (a copy of https://github.com/jfinkels/PADS, not part of this project):
  ``rules FILE``, ``python -m solvers.cli rules instances/royle17-sample300.txt`` (every rule,
  the default ``--jobs``), beside ``PADS FILE``: one Python process that imports Eppstein's
  ``pads/sudoku.py`` and runs its rule loop (``step`` until no progress, its default rules)
  on each puzzle of the same file — the program as a process, reading the file itself.

The subjects are interleaved within each round, so a shared machine slows them alike; the
table gives medians and ranges over the rounds. Results: ``benchmarks/results/startup.md``
and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PUZZLE = "instances/haythorpe-17clue.txt"
RULES_FILE = "instances/royle17-sample300.txt"
PADS_LOOP = """
import sys
sys.path[:0] = [sys.argv[1] + "/pads", sys.argv[1]]
from pads import sudoku
solved = 0
for line in open(sys.argv[2]):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    grid = sudoku.Sudoku([0 if c in ".0" else int(c) for c in line])
    grid.assume_unique = True
    try:
        while sudoku.step(grid):
            pass
    except sudoku.BadSudoku:
        continue
    solved += grid.complete()
print(solved)
"""
"""Eppstein's rule loop over a file of one-line puzzles, as benchmarks/bench_rules.py runs it
on one puzzle (``pads_solve``)."""
SOLUTION = (ROOT / "instances" / "haythorpe-17clue.solution.txt").read_text().strip()


def timed(argv: list[str], checkout: Path) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one fresh process in ``checkout``; a failure
    stops the run (``rules`` may exit 3: a puzzle the rules cannot finish)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=checkout, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"})
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in ((0, 3) if "rules" in argv else (0,)):
        raise SystemExit(f"{' '.join(argv)} in {checkout}: exit {done.returncode}: "
                         f"{done.stderr[-300:]}")
    return seconds, cpu, done.stdout


def subjects(checkouts: dict[str, Path], pads: Path | None) -> list[tuple[str, list[str], Path]]:
    python = sys.executable
    out = [("python", [python, "-c", "pass"], ROOT),
           ("numpy", [python, "-c", "import numpy"], ROOT),
           ("numpy+pysat", [python, "-c", "import numpy, pysat.solvers"], ROOT)]
    for label, checkout in checkouts.items():
        out.append((f"{label}: solve", [python, "-m", "solvers.cli", "solve", PUZZLE], checkout))
        out.append((f"{label}: --help", [python, "-m", "solvers.cli", "--help"], checkout))
        if pads is not None:
            out.append((f"{label}: rules FILE", [python, "-m", "solvers.cli", "rules",
                                                 RULES_FILE], checkout))
    if pads is not None:
        out.append(("PADS FILE", [python, "-c", PADS_LOOP, str(pads), RULES_FILE], ROOT))
    return out


def check(subject: str, text: str) -> None:
    if subject.endswith(": solve"):
        digits = "".join(ch for ch in text if ch.isdigit())
        if digits != SOLUTION:
            raise SystemExit(f"{subject}: printed {text[:200]!r}, not the shipped solution")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--baseline", type=Path, help="another checkout to measure alike")
    parser.add_argument("--baseline-label", default="baseline")
    parser.add_argument("--pads", type=Path, help="a copy of Eppstein's PADS: rules FILE is "
                                                  "measured beside it")
    args = parser.parse_args()
    checkouts = {"this": ROOT}
    if args.baseline:
        checkouts[args.baseline_label] = args.baseline.resolve()
    plan = subjects(checkouts, args.pads.resolve() if args.pads else None)
    times: dict[str, list[float]] = {name: [] for name, _, _ in plan}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in plan}
    for _ in range(args.rounds):
        for name, argv, checkout in plan:
            seconds, cpu, text = timed(argv, checkout)
            check(name, text)
            times[name].append(seconds)
            cpus[name].append(cpu)
    rows = [{"subject": name, "median_s": round(statistics.median(t), 3),
             "min_s": round(min(t), 3), "max_s": round(max(t), 3),
             "cpu_median_s": round(statistics.median(cpus[name]), 3)}
            for name, t in times.items()]
    stamp = datetime.now().strftime("%Y-%m-%d %H:%M")
    load = round(os.getloadavg()[0], 1)
    meta = {"date": stamp, "python": platform.python_version(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "load_average": load,
            "rounds": args.rounds, "command": " ".join(["python", *sys.argv])}
    results = ROOT / "benchmarks" / "results"
    (results / "startup.json").write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    lines = [f"# Command-line start-up ({stamp}; {meta['machine']}, {meta['cpus']} CPUs, load "
             f"average {load} at the end, Python {meta['python']})",
             "", f"`{meta['command']}`: fresh processes, wall clock and CPU (user + system, "
             f"children included), {args.rounds} interleaved rounds; the solve subjects' "
             "answers checked against the shipped solution.", "",
             "| subject | median s | min s | max s | CPU median s |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {r['subject']} | {r['median_s']:.3f} | {r['min_s']:.3f} | {r['max_s']:.3f} | "
              f"{r['cpu_median_s']:.3f} |" for r in rows]
    lines += ["", *ratios({r["subject"]: r for r in rows})]
    (results / "startup.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def ratios(rows: dict[str, dict]) -> list[str]:
    """The targets, as measured: --help against import numpy, solve's wall time, rules FILE
    against PADS in wall and CPU time."""
    out = [f"* `--help` / `import numpy`: "
           f"{rows['this: --help']['median_s'] / rows['numpy']['median_s']:.2f} (target ≤ 1.2)",
           f"* one puzzle through `solve`: {rows['this: solve']['median_s']:.3f} s wall "
           f"(target ≤ 0.25 s)"]
    if "PADS FILE" in rows:
        ours, pads = rows["this: rules FILE"], rows["PADS FILE"]
        out.append(f"* `rules FILE` / PADS: wall {ours['median_s'] / pads['median_s']:.2f}, CPU "
                   f"{ours['cpu_median_s'] / pads['cpu_median_s']:.2f} (target ≤ 1 for both)")
    return out


if __name__ == "__main__":
    main()
