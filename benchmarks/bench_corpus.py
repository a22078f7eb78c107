"""The whole 17-clue set through every reduction: ``crosscheck`` over Royle's 49,151 puzzles
with five routes, uniqueness checked where a route can, every answer verified.

    python benchmarks/bench_corpus.py [--limit N] [--out RECORDS.jsonl] [--jobs 2] [--fresh]
        [--routes R1,R2,...] [--name corpus]

What runs: :func:`solvers.crosscheck.run.run_crosscheck` over the first ``--limit`` puzzles (all
by default) of ``shared/data/sudoku/royle-17clue-49151.txt`` (beside the checkout or a
parent of it; ``--file``) with the routes
sat-incremental, exact-cover, ilp-highs, hcp-directed and hcp-undirected (or ``--routes``),
``unique=True`` (every one of them proves uniqueness; a route that cannot would run
without it, its grids still compared with the others'), on ``--jobs`` worker processes. Each route keeps its model between puzzles
in each worker (the incremental CaDiCaL, the kept HiGHS model, the shared HCP SAT model);
exact cover builds each puzzle's small instance (under 1 ms). Records stream to the JSON-lines
file ``--out`` (default ``benchmarks/out/corpus-records-<N|all>.jsonl``, not committed): a run
that is killed keeps its records, and running the same command again resumes (``--fresh``
starts over). The wall time of every invocation that ran records is kept in
``OUT.runs.json`` (updated every 1,000 records), so a run done in several pieces still reports
its total wall time.

Reference, measured in the same invocation (before and after the crosscheck, the mean of
the two; for a run done in pieces, of every piece, kept in ``OUT.runs.json``): the plain one-process pysat loop of ``benchmarks/reference_loop.py`` (the blank 9×9
CNF in one CaDiCaL, clues as assumptions, grid read back and checked) over the same puzzles,
start-up included. Per-route medians are quoted as ratios to its seconds per puzzle.

Target (issue 16): the whole set, 0 mismatches, 0 errors, ≤ 1 hour wall on 2 processes.
Results: ``benchmarks/results/NAME.md`` and ``NAME.json`` (the summary, not the records;
``--name``, default ``corpus``) and ``NAME_time_vs_size.png`` (:func:`solvers.crosscheck.report.plot_results`; skipped with a
message without matplotlib).
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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_hcp_corpus import REFERENCE, read_lines, run  # noqa: E402

from solvers.crosscheck.records import RecordStatus, RouteResult, TIMED  # noqa: E402
from solvers.crosscheck.report import find_mismatches, plot_results, summary_rows  # noqa: E402
from solvers.crosscheck.run import run_crosscheck  # noqa: E402
from solvers.crosscheck.runners import Execution  # noqa: E402

ROUTES = ["sat-incremental", "exact-cover", "ilp-highs", "hcp-directed", "hcp-undirected"]
RESULTS = ROOT / "benchmarks" / "results"
SET = Path("shared") / "data" / "sudoku" / "royle-17clue-49151.txt"


def default_file() -> Path:
    """``shared/data/sudoku/royle-17clue-49151.txt`` beside this checkout or beside one of
    its parents (a worktree sits one level deeper than the main checkout)."""
    for parent in ROOT.parents:
        if (parent / SET).exists():
            return parent / SET
    return ROOT.parent / SET


def percentile(values: list[float], q: float) -> float | None:
    """The q-quantile (nearest rank) of ``values``, None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def reference_seconds(puzzles: list[str]) -> float:
    """Seconds per puzzle of the plain pysat loop over ``puzzles`` (one fresh process,
    start-up included; every puzzle must come back solved and checked)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "puzzles.txt"
        path.write_text("\n".join(puzzles) + "\n")
        seconds = run([sys.executable, str(REFERENCE), str(path)], ROOT, len(puzzles),
                      "reference")
    return seconds / len(puzzles)


def route_summary(results: list[RouteResult], routes: list[str], reference: float
                  ) -> list[dict]:
    """Per route: the crosscheck summary row, with p90, size range and the median's ratio
    to the reference's seconds per puzzle."""
    rows = summary_rows(results, routes)
    for row in rows:
        mine = [r for r in results if r.route == row["route"]]
        times = [r.seconds for r in mine if r.status in TIMED]
        sizes = [r.size for r in mine if r.size is not None]
        row["puzzles"] = len(mine)
        row["p90 s"] = percentile(times, 0.9)
        row["min size"] = min(sizes) if sizes else None
        row["max size"] = max(sizes) if sizes else None
        row["route seconds"] = sum(times)
        row["median ratio"] = row["median s"] / reference if row["median s"] else None
    return rows


def read_runs(path: Path) -> list[dict]:
    return json.loads(path.read_text()) if path.exists() else []


def markdown(summary: dict, command: str) -> str:
    wall = summary["wall_seconds"]
    rate = f"{summary['puzzles'] / wall:.1f}" if wall else "-"
    lines = [f"# The 17-clue set through every reduction ({summary['date']}; "
             f"{summary['machine']})", "",
             f"`{command}` — commit {summary['commit']}. `crosscheck` over "
             f"{summary['puzzles']:,} of the {summary['file_puzzles']:,} puzzles of "
             f"`{summary['file']}`, {summary['jobs']} worker processes, uniqueness checked "
             f"by every route that can ('unchecked' where it could not), every grid "
             f"verified against the puzzle and the rules. Load average (1 min) before / "
             f"after this invocation: {summary['load_average'][0]} / "
             f"{summary['load_average'][1]} (2 cores: above 2, other work shared them).",
             "",
             f"**Wall time {summary['wall_seconds']:,.0f} s** over {summary['invocations']} "
             f"invocation(s) ({summary['records']:,} records; {rate} puzzles/s through all "
             f"{len(summary['routes'])} routes: {', '.join(summary['route_names'])}). **Mismatches: {summary['mismatches']}**, errors: "
             f"{summary['errors']}.", ""]
    if summary["puzzles"] < summary["file_puzzles"]:
        lines += [f"Extrapolated to all {summary['file_puzzles']:,} puzzles: "
                  f"**{summary['extrapolated_full_wall_seconds'] / 60:,.0f} min** wall "
                  f"(target ≤ 60 min).", ""]
    lines += [f"Reference, same invocation: the plain one-process pysat loop "
              f"(`benchmarks/reference_loop.py`) over the same puzzles, start-up included: "
              f"{1000 * summary['reference_s_per_puzzle']:.3f} ms a puzzle (runs: "
              + ", ".join(f"{1000 * s:.3f}" for s in summary["reference_runs"])
              + " ms). Ratio = the route's median seconds a puzzle (inside a crosscheck "
                "worker, build and verification included) / the reference's.", "",
              "| route | solved | no solution | unknown | errors | unique | several | "
              "unchecked | median ms | ratio | p90 ms | max ms | size (median, min–max) |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{1000 * value:.2f}"

    for row in summary["routes"]:
        size = "-" if row["median size"] is None else (
            f"{row['median size']:,.0f} {row['size kind']} "
            f"({row['min size']:,}–{row['max size']:,})")
        ratio = "-" if row["median ratio"] is None else f"{row['median ratio']:.1f}"
        lines.append(f"| {row['route']} | {row['solved']:,} | {row['no solution']} | "
                     f"{row['unknown']} | {row['error'] + row['invalid']} | "
                     f"{row['unique']:,} | {row['several']} | {row['unchecked']:,} | "
                     f"{ms(row['median s'])} | {ratio} | {ms(row['p90 s'])} | "
                     f"{ms(row['max s'])} | {size} |")
    lines += ["", "Sizes are each route's main instance size as its records hold it: "
              "clauses of the fixed CNF (sat-incremental), options (exact cover, clues "
              "eliminated), variables (ILP, clues eliminated), arcs of the pruned directed "
              "graph, edges of the 3-split reduced undirected graph.", ""]
    if summary.get("plot"):
        lines += [f"Time against size: `{summary['plot']}`.", ""]
    return "\n".join(lines)


def git_commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=default_file())
    parser.add_argument("--limit", type=int, help="the first N puzzles only")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, help="the JSON-lines records (resumed)")
    parser.add_argument("--fresh", action="store_true", help="start the records afresh")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--routes", default=",".join(ROUTES),
                        help="comma-separated routes (default: %(default)s)")
    parser.add_argument("--name", default="corpus", help="results file name (no suffix)")
    args = parser.parse_args()
    routes = args.routes.split(",")
    lines = read_lines(args.file)
    puzzles = lines[:args.limit] if args.limit else lines
    tag = str(len(puzzles)) if args.limit else "all"
    out = args.out or ROOT / "benchmarks" / "out" / f"{args.name}-records-{tag}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    runs_path = out.with_name(out.name + ".runs.json")
    if args.fresh:
        runs_path.unlink(missing_ok=True)
    texts = [(str(i + 1), text) for i, text in enumerate(puzzles)]

    load_before = os.getloadavg()[0]
    reference_runs = [reference_seconds(puzzles)]
    earlier = read_runs(runs_path)
    this_run = {"date": time.strftime("%Y-%m-%d %H:%M"), "wall_seconds": 0.0,
                "records_run": 0, "reference_runs": reference_runs}

    def note_wall() -> None:
        """Record this invocation's wall time so far (a killed run keeps most of it)."""
        this_run["wall_seconds"] = time.perf_counter() - start
        if this_run["records_run"]:
            runs_path.write_text(json.dumps(earlier + [this_run], indent=1) + "\n")

    def progress(_: RouteResult) -> None:
        this_run["records_run"] += 1
        if this_run["records_run"] % 1000 == 0:
            note_wall()
        if this_run["records_run"] % 10000 == 0:
            print(f"  {this_run['records_run']:,} records this invocation, "
                  f"{this_run['wall_seconds']:,.0f} s", file=sys.stderr, flush=True)

    start = time.perf_counter()
    results = run_crosscheck(texts, routes, unique=True, execution=Execution(jobs=args.jobs),
                             results_path=out, resume=not args.fresh, on_result=progress)
    note_wall()
    reference_runs.append(reference_seconds(puzzles))
    runs = earlier + ([this_run] if this_run["records_run"] else [])
    runs_path.write_text(json.dumps(runs, indent=1) + "\n")
    # the reference of the invocations whose records are summarised (this one's when
    # every record was already there)
    reference_runs = [s for run in runs for s in run.get("reference_runs", [])] \
        or reference_runs

    reference = statistics.mean(reference_runs)
    mismatches = find_mismatches(results, unique=True)
    errors = [r for r in results if r.status == RecordStatus.ERROR]
    total_wall = sum(r["wall_seconds"] for r in runs)
    summary = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
                   f"Python {platform.python_version()}",
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "commit": git_commit(), "file": args.file.name, "file_puzzles": len(lines),
        "puzzles": len(puzzles), "jobs": args.jobs, "records": len(results),
        "records_file": str(out), "invocations": len(runs), "wall_seconds": total_wall,
        "extrapolated_full_wall_seconds": total_wall * len(lines) / len(puzzles),
        "reference_runs": reference_runs, "reference_s_per_puzzle": reference,
        "mismatches": len(mismatches), "errors": len(errors),
        "mismatch_examples": [m.reason for m in mismatches[:5]],
        "route_names": routes, "routes": route_summary(results, routes, reference),
    }
    args.results.mkdir(parents=True, exist_ok=True)
    plot = args.results / f"{args.name}_time_vs_size.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
    else:
        plot_results(results, routes, plot)
        summary["plot"] = str(plot.relative_to(ROOT)) if plot.is_relative_to(ROOT) \
            else str(plot)
    command = "python benchmarks/bench_corpus.py" + (f" --limit {args.limit}"
                                                      if args.limit else "")
    if routes != ROUTES:
        command += f" --routes {args.routes} --name {args.name}"
    (args.results / f"{args.name}.json").write_text(json.dumps(summary, indent=1) + "\n")
    (args.results / f"{args.name}.md").write_text(markdown(summary, command))
    print((args.results / f"{args.name}.md").read_text())
    return 1 if mismatches or errors else 0


if __name__ == "__main__":
    sys.exit(main())
