"""Throughput of the SAT route on the public 9×9 sets, and streamed emission of a 64×64 CNF.

    python benchmarks/bench_sat.py [--data ../shared/data/sudoku] [--jobs 2] [--limit N]

For each set, the whole file goes through ``solvers.routes.sat_batch.solve_batch`` (one incremental CaDiCaL
1.9.5 per process, the fixed extended CNF loaded once, clues as assumptions), wall clock from
reading the file to the last answer, every answer verified against its puzzle in the worker
(``reductions.sudoku.grid.solves_clues``). Also a single-process run for reference.

Then ``emit cnf`` of the empty 64×64 grid with the sequential counter: time and peak memory of
a child process. Results: ``benchmarks/results/sat.json`` and ``sat.md``.

Targets (issue 2): ≥ 10,000 puzzles/s on the 17-clue set and ≥ 1,000/s on
forum-hardest-1905-11plus with 2 processes; the N=64 emission ≤ 10 s.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.sudoku.grid import Shape
from solvers.routes.sat_batch import solve_batch  # noqa: E402

SETS = {
    "royle-17clue-49151.txt": 10_000,
    "forum-hardest-1905-11plus.txt": 1_000,
    "magictour-top1465.txt": None,
    "forum-hardest-1106.txt": None,
}


def read_lines(path: Path, limit: int | None) -> list[str]:
    with open(path) as handle:
        lines = [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    return lines[:limit] if limit else lines


def run_set(path: Path, jobs: int, limit: int | None) -> dict:
    start = time.perf_counter()
    lines = read_lines(path, limit)
    statuses: dict[str, int] = {}
    for item in solve_batch(lines, Shape(3, 3), jobs=jobs, chunk_size=2000):
        statuses[item.status] = statuses.get(item.status, 0) + 1
    seconds = time.perf_counter() - start
    return {"set": path.name, "puzzles": len(lines), "jobs": jobs, "seconds": round(seconds, 3),
            "puzzles_per_second": round(len(lines) / seconds), "statuses": statuses}


def emit_64() -> dict:
    code = (
        "import resource, sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from reductions.sudoku.grid import Grid\n"
        "from reductions.encodings.cnf import sudoku_cnf\n"
        "from solvers.formats.dimacs import write_cnf\n"
        "t = time.perf_counter()\n"
        "cnf = sudoku_cnf(Grid.empty(64), 'extended', 'seqcounter')\n"
        "n = write_cnf(sys.argv[1], cnf.num_vars, cnf.clause_blocks(), cnf.metadata())\n"
        "print(time.perf_counter() - t, cnf.num_vars, n,\n"
        "      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "empty64.cnf"
        proc = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True,
                              text=True, check=True)
        seconds, variables, clauses, rss_kb = proc.stdout.split()
        size = out.stat().st_size
    return {"seconds": round(float(seconds), 2), "variables": int(variables),
            "clauses": int(clauses), "file_mb": round(size / 2 ** 20, 1),
            "peak_rss_mb": round(int(rss_kb) / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "sudoku")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, help="first N puzzles of each set (quick runs)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    results = {"machine": f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
                          f"Python {platform.python_version()}",
               "date": time.strftime("%Y-%m-%d"), "sets": [], "emit_64": None}
    for name, target in SETS.items():
        path = args.data / name
        if not path.exists():
            print(f"skip {name}: not found under {args.data}")
            continue
        for jobs in sorted({1, args.jobs}):
            row = run_set(path, jobs, args.limit)
            row["target_per_second"] = target if jobs == args.jobs else None
            results["sets"].append(row)
            print(json.dumps(row))
    results["emit_64"] = emit_64()
    print(json.dumps(results["emit_64"]))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sat.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = [f"# SAT route benchmark ({results['date']}; {results['machine']})", "",
             "| set | puzzles | processes | seconds | puzzles/s | target | all solved+verified |",
             "|---|---|---|---|---|---|---|"]
    for row in results["sets"]:
        ok = row["statuses"].get("solved", 0) == row["puzzles"]
        lines.append(f"| {row['set']} | {row['puzzles']:,} | {row['jobs']} | {row['seconds']} | "
                     f"{row['puzzles_per_second']:,} | {row['target_per_second'] or ''} | "
                     f"{'yes' if ok else row['statuses']} |")
    e = results["emit_64"]
    lines += ["", f"Emit the empty 64×64 grid, extended encoding, sequential counter: "
                  f"{e['variables']:,} variables, {e['clauses']:,} clauses, {e['file_mb']} MB "
                  f"in {e['seconds']} s, peak memory {e['peak_rss_mb']} MB (target ≤ 10 s)."]
    (args.out / "sat.md").write_text("\n".join(lines) + "\n")
    print((args.out / "sat.md").read_text())


if __name__ == "__main__":
    main()
