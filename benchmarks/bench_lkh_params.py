"""LKH-3 parameter sets on Haythorpe's graphs: which finds the Hamiltonian cycle fastest.

    PATH=/path/to/LKH/dir:$PATH python benchmarks/bench_lkh_params.py [--seeds 1,2,3]
        [--time-limit 30] [--jobs 2] [--configs NAME,...] [--graphs NAME,...]

Each graph is the file ``emit hcp`` writes (:func:`solvers.formats.hcp_export.
write_export`, the same file the LKH bridge writes), each run is ``LKH params.par``
with ``OPTIMUM = 0``, ``TOTAL_TIME_LIMIT`` = ``--time-limit`` and the configuration's
keywords, started through :func:`solvers.runtime.processes.run_program` (killed 5 s after
``--time-limit``). Reported per graph and configuration: runs that ended with a
Hamiltonian cycle (cost 0), the median wall seconds of those runs, LKH's own preprocessing
time (the ascent), and the best cost of the others. Graphs: the 16×16 puzzles of
``instances/16x16.txt`` and four more made from their solutions (45% of the cells emptied,
``random.Random(11/12)``), reduced (``--prune peers --reduce``); 9×9 puzzles reduced and
unreduced; the empty 9×9 and 16×16 grids with the first row fixed (``--break-symmetry``).
Results: ``benchmarks/results/lkh_params.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.hamiltonian.graphs import count_non_edges  # noqa: E402
from reductions.sudoku.grid import Grid, Shape, parse_grid  # noqa: E402
from reductions.sudoku.puzzle_files import read_puzzles  # noqa: E402
from reductions.hamiltonian.hcp_pipeline import HcpOptions, build_hcp_pipeline, first_row_fixed  # noqa: E402
from solvers.runtime.processes import run_program  # noqa: E402
from solvers.formats.hcp_export import write_export  # noqa: E402
from solvers.formats.tsplib import read_tour, write_hcp  # noqa: E402
from solvers.hamiltonian import normalized_graph  # noqa: E402
from solvers.tools.lkh import find_lkh  # noqa: E402

CONFIGS: dict[str, dict[str, str]] = {
    "default": {},
    "sorted-edges": {},          # default keywords on the edges sorted (the old bridge)
    "runs10": {"RUNS": "10"},
    "subgradient-no": {"SUBGRADIENT": "NO"},
    "initial-period-100": {"INITIAL_PERIOD": "100"},
    "move-type-3": {"MOVE_TYPE": "3"},
    "patching": {"PATCHING_C": "3", "PATCHING_A": "2"},
    "trials200-runs50": {"MAX_TRIALS": "200", "RUNS": "50"},
    "subgradient-no+trials200-runs50": {"SUBGRADIENT": "NO", "MAX_TRIALS": "200",
                                        "RUNS": "50"},
    "kicks": {"KICKS": "3", "KICK_TYPE": "4"},
    "subgradient-no+patching": {"SUBGRADIENT": "NO", "PATCHING_C": "3", "PATCHING_A": "2"},
}
"""Keywords on top of ``OPTIMUM = 0``, ``RUNS = 1``, ``POPULATION_SIZE = 1`` (without a
population LKH goes on with its remaining RUNS after a run has found the optimum)."""


def derived_16x16(solution: Grid, seed: int) -> Grid:
    rng = random.Random(seed)
    values = solution.values.copy()
    cells = [(r, c) for r in range(16) for c in range(16)]
    for r, c in rng.sample(cells, int(0.45 * len(cells))):
        values[r, c] = 0
    return Grid(values, solution.shape)


def graphs() -> dict[str, tuple[Grid, bool]]:
    """name -> (puzzle, reduce); pruning is always peers, the graph undirected."""
    sixteen = [g for _, g in read_puzzles(ROOT / "instances/16x16.txt", Shape(4, 4))]
    solutions = [g for _, g in read_puzzles(ROOT / "instances/16x16.solutions.txt",
                                            Shape(4, 4))]
    out = {f"16x16-{i + 1}": (g, True) for i, g in enumerate(sixteen)}
    for i, solution in enumerate(solutions):
        for seed in (11, 12):
            out[f"16x16-s{i + 1}r{seed}"] = (derived_16x16(solution, seed), True)
    royle = [g for _, g in read_puzzles(ROOT / "instances/royle17-sample300.txt")][:3]
    hardest = [g for _, g in read_puzzles(ROOT / "instances/forum-hardest-sample100.txt")][:2]
    for i, g in enumerate(royle + hardest):
        out[f"9x9-{'royle' if i < 3 else 'hardest'}{i + 1}-reduced"] = (g, True)
    out["9x9-royle1-unreduced"] = (royle[0], False)
    out["9x9-hardest4-unreduced"] = (hardest[0], False)
    out["9x9-empty-row1-reduced"] = (first_row_fixed(parse_grid("." * 81)), True)
    out["16x16-empty-row1-reduced"] = (first_row_fixed(parse_grid("." * 256, Shape(4, 4))),
                                       True)
    return out


def run_one(lkh: str, work: Path, graph: str, config: str, seed: int, time_limit: float,
            n: int, edges) -> dict:
    problem = work / (f"{graph}.sorted.hcp" if config == "sorted-edges" else f"{graph}.hcp")
    stem = f"{graph}.{config}.{seed}"
    keywords = {"PROBLEM_FILE": problem.name, "OUTPUT_TOUR_FILE": f"{stem}.tour",
                "OPTIMUM": "0", "RUNS": "1", "POPULATION_SIZE": "1", "SEED": str(seed),
                "TOTAL_TIME_LIMIT": f"{time_limit:g}", **CONFIGS[config]}
    (work / f"{stem}.par").write_text("".join(f"{k} = {v}\n" for k, v in keywords.items()))
    run = run_program([lkh, f"{stem}.par"], cwd=work, time_limit=3 * time_limit + 10)
    text = run.stdout.decode("utf-8", "replace")
    pre = re.search(r"Preprocessing time = ([\d.]+)", text)
    total = re.search(r"Time.total = ([\d.]+)", text)
    cost = None
    tour = work / f"{stem}.tour"
    if tour.exists():
        try:
            cost = count_non_edges(n, edges, read_tour(tour, n))
        except Exception:           # a tour cut short by the kill
            cost = None
    return {"graph": graph, "config": config, "seed": seed, "seconds": round(run.seconds, 2),
            "cpu": float(total.group(1)) if total else None,
            "preprocessing": float(pre.group(1)) if pre else None, "cost": cost,
            "timed_out": run.timed_out, "exit_code": run.exit_code}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--graphs", default="")
    parser.add_argument("--output", default=str(ROOT / "benchmarks/results/lkh_params"))
    args = parser.parse_args()
    lkh = find_lkh()
    if lkh is None:
        sys.exit("no LKH binary on PATH")
    seeds = [int(s) for s in args.seeds.split(",")]
    configs = args.configs.split(",")
    wanted = set(args.graphs.split(",")) if args.graphs else None
    runs, sizes = [], {}
    with tempfile.TemporaryDirectory(prefix="bench-lkh-") as tmp:
        work = Path(tmp)
        jobs = []
        for name, (puzzle, reduce) in graphs().items():
            if wanted and name not in wanted:
                continue
            pipeline = build_hcp_pipeline(puzzle, HcpOptions(directed=False, prune="peers",
                                                             reduce=reduce))
            n, edges = pipeline.num_vertices, pipeline.edges
            sizes[name] = {"vertices": n, "edges": int(len(edges))}
            write_export(work / f"{name}.hcp", pipeline, "tsplib")
            write_hcp(work / f"{name}.sorted.hcp", n, normalized_graph(n, edges, False), name)
            jobs += [(name, c, s, n, edges) for c in configs for s in seeds]
        start = time.time()
        with ThreadPoolExecutor(args.jobs) as pool:
            for result in pool.map(lambda j: run_one(lkh, work, j[0], j[1], j[2],
                                                     args.time_limit, j[3], j[4]), jobs):
                runs.append(result)
                print(json.dumps(result), flush=True)
    table = ["| graph (vertices / edges) | configuration | cycles found | median LKH s (found) "
             "| preprocessing s | best cost otherwise |", "|---|---|---|---|---|---|"]
    for name in sizes:
        for config in configs:
            mine = [r for r in runs if r["graph"] == name and r["config"] == config]
            found = [r for r in mine if r["cost"] == 0]
            others = [r["cost"] for r in mine if r["cost"] != 0]
            pre = [r["preprocessing"] for r in mine if r["preprocessing"] is not None]
            table.append(
                f"| {name} ({sizes[name]['vertices']:,} / {sizes[name]['edges']:,}) | {config} "
                f"| {len(found)}/{len(mine)} "
                f"| {statistics.median(r['cpu'] for r in found) if found else '-'} "
                f"| {statistics.median(pre) if pre else '-'} "
                f"| {min((c for c in others if c is not None), default='no tour') if others else '-'} |")
    Path(args.output + ".json").write_text(json.dumps(
        {"lkh": lkh, "machine": platform.platform(), "time_limit": args.time_limit,
         "seeds": seeds, "jobs": args.jobs, "wall": round(time.time() - start, 1),
         "sizes": sizes, "runs": runs}, indent=1) + "\n")
    Path(args.output + ".md").write_text("\n".join(table) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
