"""Start-up of the command line: one puzzle, ``--help``, against the interpreter's own start.

    python benchmarks/bench_startup.py [--rounds 10] [--baseline OLD_CHECKOUT [--baseline-label NAME]]

Every measurement is a fresh process, wall clock from start to exit:

* ``python``: ``python -c pass`` — the interpreter alone (the floor no command goes below);
* ``numpy+pysat``: ``python -c "import numpy, pysat.solvers"`` — what the SAT route needs
  in any case;
* ``solve``: ``python -m solvers.cli solve instances/haythorpe-17clue.txt`` (the README's
  command: SAT route, answer verified; the printed grid is checked against the shipped
  solution);
* ``--help``: ``python -m solvers.cli --help`` (the whole parser);
* the same two for ``--baseline`` (another checkout, e.g. ``git archive`` of an older commit).

The subjects are interleaved within each round, so a shared machine slows them alike; the
table gives medians and ranges over the rounds. Results: ``benchmarks/results/startup.md``
and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PUZZLE = "instances/haythorpe-17clue.txt"
SOLUTION = (ROOT / "instances" / "haythorpe-17clue.solution.txt").read_text().strip()


def timed(argv: list[str], checkout: Path) -> tuple[float, str]:
    """(seconds, stdout) of one fresh process in ``checkout``; a failure stops the run."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=checkout, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"})
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} in {checkout}: exit {done.returncode}: "
                         f"{done.stderr[-300:]}")
    return seconds, done.stdout


def subjects(checkouts: dict[str, Path]) -> list[tuple[str, list[str], Path]]:
    python = sys.executable
    out = [("python", [python, "-c", "pass"], ROOT),
           ("numpy+pysat", [python, "-c", "import numpy, pysat.solvers"], ROOT)]
    for label, checkout in checkouts.items():
        out.append((f"{label}: solve", [python, "-m", "solvers.cli", "solve", PUZZLE], checkout))
        out.append((f"{label}: --help", [python, "-m", "solvers.cli", "--help"], checkout))
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
    args = parser.parse_args()
    checkouts = {"this": ROOT}
    if args.baseline:
        checkouts[args.baseline_label] = args.baseline.resolve()
    plan = subjects(checkouts)
    times: dict[str, list[float]] = {name: [] for name, _, _ in plan}
    for _ in range(args.rounds):
        for name, argv, checkout in plan:
            seconds, text = timed(argv, checkout)
            check(name, text)
            times[name].append(seconds)
    rows = [{"subject": name, "median_s": round(statistics.median(t), 3),
             "min_s": round(min(t), 3), "max_s": round(max(t), 3)} for name, t in times.items()]
    stamp = datetime.now().strftime("%Y-%m-%d %H:%M")
    meta = {"date": stamp, "python": platform.python_version(), "machine": platform.machine(),
            "rounds": args.rounds, "command": " ".join(["python", *sys.argv])}
    results = ROOT / "benchmarks" / "results"
    (results / "startup.json").write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    lines = [f"# Command-line start-up ({stamp}; {meta['machine']}, Python {meta['python']})",
             "", f"`{meta['command']}`: fresh processes, wall clock, {args.rounds} interleaved "
             "rounds; the solve subjects' answers checked against the shipped solution.", "",
             "| subject | median s | min s | max s |", "|---|---:|---:|---:|"]
    lines += [f"| {r['subject']} | {r['median_s']:.3f} | {r['min_s']:.3f} | {r['max_s']:.3f} |"
              for r in rows]
    (results / "startup.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
