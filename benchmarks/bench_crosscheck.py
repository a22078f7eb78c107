"""Cross-check at corpus scale: the whole 17-clue set through several routes on a process pool.

    python benchmarks/bench_crosscheck.py [--data ../shared/data/sudoku] [--jobs 2]
        [--routes sat,exact-cover,ilp] [--limit N] [--hcp 1000] [--hcp-routes ...]

Part 1: every puzzle of ``royle-17clue-49151.txt`` through ``--routes`` with
:func:`solvers.crosscheck.run.run_crosscheck` (the code behind ``sudoku-bridge crosscheck``),
``--jobs`` worker processes, records streamed to a JSON-lines file. Part 2: the first
``--hcp`` puzzles of a seeded shuffle of the same set through both Hamiltonian-cycle routes.

Reported per part: total wall time; per route: statuses, verified count, median / max time
per puzzle (measured in the worker: build + solve + decode + verify), the route's summed time
and its throughput per worker process (puzzles per second of route time); and the mismatch
check: :func:`solvers.crosscheck.report.find_mismatches` plus, since every 17-clue puzzle has a
unique solution, whether all routes returned the same grid. Results:
``benchmarks/results/crosscheck.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solvers.crosscheck.report import find_mismatches  # noqa: E402
from solvers.crosscheck.run import run_crosscheck  # noqa: E402
from solvers.crosscheck.runners import Execution  # noqa: E402
from solvers.outcome import Status  # noqa: E402

ROYLE = "royle-17clue-49151.txt"


def read_lines(path: Path) -> list[str]:
    with open(path) as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


def run_part(name: str, lines: list[str], routes: list[str], jobs: int,
             time_limit: float | None) -> dict:
    puzzles = [(f"{i + 1}", text) for i, text in enumerate(lines)]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        results = run_crosscheck(puzzles, routes, execution=Execution(jobs=jobs),
                                 time_limit=time_limit, results_path=Path(tmp) / "results.jsonl")
        wall = time.perf_counter() - start
    mismatches = find_mismatches(results, unique=False)
    grids: dict[str, set[str]] = {}
    for r in results:
        if r.status == Status.SOLVED and r.verified:
            grids.setdefault(r.puzzle_id, set()).add(r.solution)
    differing = sum(1 for g in grids.values() if len(g) > 1)
    rows = []
    for route in routes:
        mine = [r for r in results if r.route == route]
        times = [r.seconds for r in mine]
        statuses: dict[str, int] = {}
        for r in mine:
            statuses[r.status] = statuses.get(r.status, 0) + 1
        total = sum(times)
        rows.append({"route": route, "puzzles": len(mine), "statuses": statuses,
                     "verified": sum(1 for r in mine if r.verified),
                     "median_s": round(statistics.median(times), 5),
                     "max_s": round(max(times), 4), "route_seconds": round(total, 1),
                     "per_process_per_s": round(len(mine) / total, 1)})
    return {"part": name, "puzzles": len(lines), "routes": routes, "jobs": jobs,
            "wall_seconds": round(wall, 1), "rows": rows,
            "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)], "mismatches": len(mismatches),
            "puzzles_with_different_grids": differing,
            "mismatch_examples": [m.reason for m in mismatches[:5]]}


def markdown(report: dict) -> str:
    out = [f"# Cross-check benchmark ({report['date']}; {report['machine']})", ""]
    for part in report["parts"]:
        out += [f"## {part['part']}: {part['puzzles']:,} puzzles × {len(part['routes'])} "
                f"routes, {part['jobs']} processes — wall {part['wall_seconds']:,} s", "",
                "| route | solved | verified | other | median ms | max ms | route s | "
                "puzzles/s per process |", "|---|---|---|---|---|---|---|---|"]
        for row in part["rows"]:
            other = {k: v for k, v in row["statuses"].items() if k != Status.SOLVED}
            out.append(f"| {row['route']} | {row['statuses'].get(Status.SOLVED, 0):,} | "
                       f"{row['verified']:,} | {other or '-'} | {row['median_s'] * 1000:.2f} | "
                       f"{row['max_s'] * 1000:,.1f} | {row['route_seconds']:,} | "
                       f"{row['per_process_per_s']:,} |")
        before, after = part["load_average_1min"]
        out += ["", f"Mismatches: {part['mismatches']}; puzzles where routes returned "
                f"different grids: {part['puzzles_with_different_grids']}. Load average "
                f"(1 min) {before} at the start, {after} at the end.", ""]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "sudoku")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--routes", default="sat,exact-cover,ilp")
    parser.add_argument("--limit", type=int, default=None, help="first N puzzles only")
    parser.add_argument("--hcp", type=int, default=1000, help="puzzles for the HCP routes")
    parser.add_argument("--hcp-routes", default="hcp-directed,hcp-undirected")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()

    lines = read_lines(args.data / ROYLE)
    parts = []
    if args.routes:
        chosen = lines[:args.limit] if args.limit else lines
        parts.append(run_part(f"{ROYLE}, SAT / exact cover / ILP", chosen,
                              args.routes.split(","), args.jobs, args.time_limit))
        print(json.dumps(parts[-1], indent=1), flush=True)
    if args.hcp:
        sample = random.Random(args.seed).sample(lines, args.hcp)
        parts.append(run_part(f"{ROYLE}, {args.hcp:,} sampled (seed {args.seed}), HCP routes",
                              sample, args.hcp_routes.split(","), args.jobs, args.time_limit))
        print(json.dumps(parts[-1], indent=1), flush=True)
    report = {"date": time.strftime("%Y-%m-%d"),
              "machine": f"{platform.machine()}, Python {platform.python_version()}",
              "parts": parts}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "crosscheck.json").write_text(json.dumps(report, indent=1) + "\n")
    (args.out / "crosscheck.md").write_text(markdown(report) + "\n")
    print(markdown(report))


if __name__ == "__main__":
    main()
