"""Time of ``solve --via hcp``: Sudoku → Haythorpe graph → Hamiltonian cycle → verified grid.

    python benchmarks/bench_hcp_solve.py [--data ../shared/data/sudoku] [--royle 200]
        [--hardest 50] [--configs all|NAME,...] [--time-limit 60] [--quick]

Puzzles: ``--royle`` sampled from ``royle-17clue-49151.txt`` and ``--hardest`` from
``forum-hardest-1106.txt`` (``random.Random(--seed)``), all under ``--data``. Every
configuration (graph kind, pruning, triple trick, reduction, solver) solves every puzzle with
:func:`solvers.routes.hcp.solve_puzzle` in this process, one at a time: the time is the
whole route per puzzle (build the graph, solve, decode, verify against the puzzle). Reported:
median / mean / max seconds, how many were verified, unknown (time limit) or no solution.

Also (unless ``--skip-big``): the shipped half-filled 16×16 puzzles (``instances/16x16.txt``),
the empty 16×16 grid, and the empty 25×25 grid (``--big-time-limit``), directed SAT; and, when
LKH is available (an ``LKH`` binary or the ``elkai`` package), LKH-3 on the first
``--lkh`` puzzles of the sample and on the 4×4 puzzles. CP-SAT on the undirected graph and on
the blank directed graph with the clues as required arcs (``--prune none``) is run on
``--cpsat-hopeless`` puzzles only, with a short limit: it finds nothing there.

Targets (issue 4): median ≤ 0.5 s and max ≤ 5 s per 9×9 puzzle; a half-filled 16×16 ≤ 10 s;
the empty 25×25 grid solved. Results: ``benchmarks/results/hcp_solve.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.sudoku.grid import Grid, Shape, parse_grid  # noqa: E402
from reductions.sudoku.puzzle_files import read_puzzles  # noqa: E402
from solvers.routes.hcp import solve_puzzle as solve_hcp_puzzle  # noqa: E402
from solvers.tools.lkh import LKH_NAMES, elkai_available, find_lkh  # noqa: E402
from solvers.outcome import Status  # noqa: E402

# name: (graph, prune, triple, reduce, solver)
CONFIGS = {
    "directed/none/sat": ("directed", "none", False, False, "sat"),
    "directed/paper/sat": ("directed", "paper", False, False, "sat"),
    "directed/peers/sat": ("directed", "peers", False, False, "sat"),
    "directed/paper/cpsat": ("directed", "paper", False, False, "cpsat"),
    "directed/peers/cpsat": ("directed", "peers", False, False, "cpsat"),
    "undirected/none/sat": ("undirected", "none", False, False, "sat"),
    "undirected/paper/sat": ("undirected", "paper", False, False, "sat"),
    "undirected/peers/sat": ("undirected", "peers", False, False, "sat"),
    "undirected+triple/paper/sat": ("undirected", "paper", True, False, "sat"),
    "undirected+reduce/paper/sat": ("undirected", "paper", False, True, "sat"),
    "undirected+reduce/peers/sat": ("undirected", "peers", False, True, "sat"),
    "undirected+triple+reduce/peers/sat": ("undirected", "peers", True, True, "sat"),
}


def sample(path: Path, count: int, rng: random.Random) -> list[Grid]:
    lines = [line.strip() for line in open(path) if line.strip() and not line.startswith("#")]
    chosen = sorted(rng.sample(range(len(lines)), min(count, len(lines))))
    return [parse_grid(lines[i]) for i in chosen]


def run_config(name: str, puzzles: list[tuple[str, Grid]], time_limit: float,
               spec: tuple | None = None) -> dict:
    graph, prune, triple, reduce, solver = spec or CONFIGS[name]
    rows = []
    for label, puzzle in puzzles:
        start = time.perf_counter()
        outcome = solve_hcp_puzzle(puzzle, graph=graph, prune=prune, triple=triple,
                                   reduce=reduce, hcp_solver=solver, time_limit=time_limit)
        seconds = time.perf_counter() - start
        solver_stats = outcome.stats.get("solver", {})
        rows.append({"puzzle": label, "status": outcome.status, "seconds": round(seconds, 4),
                     "iterations": solver_stats.get("iterations"),
                     "cuts": solver_stats.get("cuts"),
                     "patched": solver_stats.get("found_by_patching"),
                     "vertices": outcome.stats["sizes"][-1]["vertices"],
                     "edges": outcome.stats["sizes"][-1]["edges"]})
    return summarize(name, rows, time_limit)


def summarize(name: str, rows: list[dict], time_limit: float) -> dict:
    times = [r["seconds"] for r in rows]
    count = {s: sum(r["status"] == s for r in rows) for s in Status}
    iterations = [r["iterations"] for r in rows if r["iterations"] is not None]
    return {"config": name, "puzzles": len(rows), "verified": count[Status.SOLVED],
            "no_solution": count[Status.NO_SOLUTION], "unknown": count[Status.UNKNOWN],
            "time_limit": time_limit,
            "median_s": round(statistics.median(times), 4) if times else None,
            "mean_s": round(statistics.mean(times), 4) if times else None,
            "max_s": round(max(times), 4) if times else None,
            "median_iterations": statistics.median(iterations) if iterations else None,
            "max_iterations": max(iterations) if iterations else None,
            "rows": rows}


def half_filled(solutions: Path, count: int, seed: int) -> list[tuple[str, Grid]]:
    """``count`` puzzles with exactly half the cells of a shipped solution given (so each is
    solvable), cells chosen by ``random.Random(seed)``."""
    rng = random.Random(seed)
    grids = [g for _, g in read_puzzles(solutions)]
    out = []
    for t in range(count):
        grid = grids[t % len(grids)]
        values = grid.values.copy()
        cells = rng.sample(range(values.size), values.size - values.size // 2)
        values.flat[cells] = 0
        out.append((f"{solutions.name}:{t % len(grids) + 1} half #{t + 1}",
                    Grid(values, grid.shape)))
    return out


def big_instances(time_limit: float, seed: int) -> list[dict]:
    out = []
    half = [(f"16x16.txt:{i + 1} (55%)", g) for i, (_, g) in
            enumerate(read_puzzles(ROOT / "instances" / "16x16.txt"))]
    half += half_filled(ROOT / "instances" / "16x16.solutions.txt", 4, seed)
    for spec_name, spec in (("16x16 half-filled directed/peers/sat",
                             ("directed", "peers", False, False, "sat")),
                            ("16x16 half-filled undirected+reduce/peers/sat",
                             ("undirected", "peers", False, True, "sat")),
                            ("16x16 half-filled directed/paper/sat",
                             ("directed", "paper", False, False, "sat")),
                            ("16x16 half-filled undirected/peers/sat",
                             ("undirected", "peers", False, False, "sat")),
                            ("16x16 half-filled directed/peers/cpsat",
                             ("directed", "peers", False, False, "cpsat"))):
        out.append(run_config(spec_name, half, 60.0, spec))
        print_row(out[-1])
    big25 = [(f"25x25.txt:{i + 1}", g) for i, (_, g) in
             enumerate(read_puzzles(ROOT / "instances" / "25x25.txt"))]
    out.append(run_config("25x25 55%-filled directed/peers/sat", big25, 120.0,
                          ("directed", "peers", False, False, "sat")))
    print_row(out[-1])
    for n in (3, 4, 5):
        empty = [(f"empty {n * n}x{n * n}", Grid.empty(Shape(n, n)))]
        out.append(run_config(f"empty {n * n}x{n * n} directed/none/sat", empty, time_limit,
                              ("directed", "none", False, False, "sat")))
        print_row(out[-1])
    return out


def lkh_runs(puzzles: list[tuple[str, Grid]], time_limit: float) -> list[dict]:
    out = []
    four = [(f"4x4.txt:{i + 1}", g) for i, (_, g) in
            enumerate(read_puzzles(ROOT / "instances" / "4x4.txt"))]
    four.append(("empty 4x4", Grid.empty(Shape(2, 2))))
    for name, items, reduce in (("LKH 4x4 undirected/peers", four, False),
                                ("LKH 9x9 undirected/peers", puzzles, False),
                                ("LKH 9x9 undirected+reduce/peers", puzzles, True)):
        # The empty 4x4 grid has no clue to prune: "peers" is then the blank graph.
        out.append(run_config(name, items, time_limit,
                              ("undirected", "peers", False, reduce, "lkh")))
        print_row(out[-1])
    return out


def print_row(result: dict) -> None:
    print(f"{result['config']:<44} n={result['puzzles']:>4} ok={result['verified']:>4} "
          f"unknown={result['unknown']:>3} median={result['median_s']} "
          f"max={result['max_s']} it(med/max)={result['median_iterations']}/"
          f"{result['max_iterations']}", flush=True)


def markdown(report: dict) -> str:
    lines = ["# `solve --via hcp` benchmark", "",
             f"{report['machine']}; {report['date']}. Each puzzle: build Haythorpe's graph, "
             f"solve, decode, verify (whole route, one process). Puzzles: "
             f"{report['royle']} sampled from royle-17clue-49151 and {report['hardest']} "
             f"from forum-hardest-1106 (random.Random({report['seed']})).", "",
             "| configuration | puzzles | verified | unknown | median s | mean s | max s | "
             "SAT rounds (median / max) |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for section in ("nine", "big", "lkh"):
        for r in report.get(section, []):
            rounds = (f"{r['median_iterations']} / {r['max_iterations']}"
                      if r["median_iterations"] is not None else "-")
            lines.append(f"| {r['config']} | {r['puzzles']} | {r['verified']} | "
                         f"{r['unknown']} | {r['median_s']} | {r['mean_s']} | {r['max_s']} | "
                         f"{rounds} |")
    lines += ["", "Targets (issue 4): median ≤ 0.5 s, max ≤ 5 s per 9×9 puzzle; half-filled "
              "16×16 ≤ 10 s; empty 25×25 solved. 'unknown' = time limit reached (never "
              "counted as solved)."]
    if report.get("notes"):
        lines += [""] + [f"- {note}" for note in report["notes"]]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "sudoku")
    parser.add_argument("--royle", type=int, default=200)
    parser.add_argument("--hardest", type=int, default=50)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--configs", default="all",
                        help="comma-separated names (see CONFIGS) or 'all'")
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds per puzzle (default 60)")
    parser.add_argument("--cpsat-hopeless", type=int, default=3,
                        help="puzzles for CP-SAT on the undirected graph and on the blank "
                             "directed graph (0: skip)")
    parser.add_argument("--cpsat-hopeless-limit", type=float, default=30.0)
    parser.add_argument("--lkh", type=int, default=5, help="puzzles for LKH (0: skip)")
    parser.add_argument("--lkh-time-limit", type=float, default=30.0)
    parser.add_argument("--skip-big", action="store_true")
    parser.add_argument("--big-time-limit", type=float, default=600.0,
                        help="limit for the empty grids (default 600 s)")
    parser.add_argument("--quick", action="store_true",
                        help="10 + 5 puzzles, no big instances, no LKH (a smoke run)")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" /
                        "hcp_solve")
    args = parser.parse_args()
    if args.quick:
        args.royle, args.hardest, args.skip_big, args.lkh = 10, 5, True, 0
    rng = random.Random(args.seed)
    royle = sample(args.data / "royle-17clue-49151.txt", args.royle, rng)
    hardest = sample(args.data / "forum-hardest-1106.txt", args.hardest, rng)
    puzzles = [(f"royle:{i}", g) for i, g in enumerate(royle)] + \
        [(f"hardest:{i}", g) for i, g in enumerate(hardest)]
    names = list(CONFIGS) if args.configs == "all" else args.configs.split(",")
    report = {"machine": f"{platform.processor() or platform.machine()}, "
                         f"Python {platform.python_version()}",
              "date": time.strftime("%Y-%m-%d"), "royle": len(royle),
              "hardest": len(hardest), "seed": args.seed, "nine": [], "big": [], "lkh": [],
              "notes": []}
    for name in names:
        report["nine"].append(run_config(name, puzzles, args.time_limit))
        print_row(report["nine"][-1])
    if args.cpsat_hopeless:
        few = puzzles[:args.cpsat_hopeless]
        for spec in (("directed", "none", False, False, "cpsat"),
                     ("undirected", "paper", False, False, "cpsat")):
            name = f"{spec[0]}/{spec[1]}/cpsat (first {len(few)} only)"
            report["nine"].append(run_config(name, few, args.cpsat_hopeless_limit, spec))
            print_row(report["nine"][-1])
    if not args.skip_big:
        report["big"] = big_instances(args.big_time_limit, args.seed)
    if args.lkh:
        try:
            available = find_lkh() is not None or elkai_available()
        except Exception:
            available = False
        if available:
            report["lkh"] = lkh_runs(puzzles[:args.lkh], args.lkh_time_limit)
            report["notes"].append("LKH: " + (find_lkh() or "elkai (LKH-3 bundled)"))
        else:
            report["notes"].append(f"LKH not available (no {'/'.join(LKH_NAMES)} on PATH, "
                                   f"no elkai): not run")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with open(args.output.with_suffix(".json"), "w") as out:
        json.dump(report, out, indent=1)
    with open(args.output.with_suffix(".md"), "w") as out:
        out.write(markdown(report))
    print(f"wrote {args.output.with_suffix('.json')} and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
