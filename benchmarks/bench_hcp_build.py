"""Haythorpe's Sudoku → HCP graph: build + undirected + write times and memory, the degree-2
reduction's speed, and graph sizes against the paper.

    python benchmarks/bench_hcp_build.py [--set ../shared/data/sudoku/royle-17clue-49151.txt]
                                         [--jobs 2] [--limit N] [--sizes 4,9,16,25,36,49,64]

1. Build + undirected + write, one fresh child process per case (so the time includes the
   first, uncached construction, and ``ru_maxrss`` is the peak of that case alone): the blank
   grid (``--prune none``, the largest graph) and a puzzle with about 55% of the cells given
   (``--prune paper``), for each N; time per stage, output size, file size, peak RSS, and the
   peak of Python/numpy allocations (``tracemalloc``, in a second child). Targets (issue 3):
   N = 9 / 25 / 64 within 50 ms / 1 s / 15 s.
2. The degree-2 reduction alone, on the same graphs (vectorised; time per graph).
3. Sizes after undirected + reduce for the paper's 17-clue puzzle (line 1 of the set), every
   pruning mode, with and without the triple trick, the paper's two rules and with rule 3,
   against the paper's 12,036 vertices / 19,301 edges.
4. The same sizes over the whole 17-clue set (``--set``): mean, min, max.

Results: ``benchmarks/results/hcp_build.json`` and ``hcp_build.md``.
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

import numpy as np  # noqa: E402

from reductions.hamiltonian.graph_reduction import reduce_degree_two  # noqa: E402
from reductions.sudoku.grid import Grid, Shape, parse_grid, pattern_solution  # noqa: E402
from reductions.hamiltonian.hcp import haythorpe_graph  # noqa: E402
from reductions.hamiltonian.hcp_undirected import haythorpe_split  # noqa: E402

PAPER_REDUCED = (12_036, 19_301)
TARGETS = {9: 0.05, 25: 1.0, 64: 15.0}


def half_filled(n: int, seed: int = 1) -> Grid:
    """A valid grid with about 55% of its cells kept (deterministic)."""
    rt = int(round(n ** 0.5))
    rng = np.random.default_rng(seed)
    solution = pattern_solution(Shape(rt, rt), rng.permutation(n) + 1)
    return Grid(np.where(rng.random((n, n)) < 0.55, solution.values, 0))


CHILD = """
import resource, sys, time, json, tracemalloc
sys.path.insert(0, {root!r})
from benchmarks.bench_hcp_build import build_case
n, kind, trace, out = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1", sys.argv[4]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if trace:
    tracemalloc.start()
row = build_case(n, kind, out)
if trace:
    row["tracemalloc_peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
row["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
row["base_rss_mb"] = round(base / 1024, 1)
print(json.dumps(row))
"""


def build_case(n: int, kind: str, out: str) -> dict:
    """One build + undirected + write, timed by stage (runs in a child process)."""
    from solvers.formats.tsplib import write_hcp
    puzzle = Grid.empty(n) if kind == "blank" else half_filled(n)
    prune = "none" if kind == "blank" else "paper"
    t0 = time.perf_counter()
    graph = haythorpe_graph(puzzle, prune)
    t1 = time.perf_counter()
    split = haythorpe_split(graph)
    t2 = time.perf_counter()
    write_hcp(out, split.num_vertices, split.edges, name="bench")
    t3 = time.perf_counter()
    return {"n": n, "case": kind, "prune": prune, "clues": puzzle.clue_count(),
            "directed_vertices": graph.num_vertices, "arcs": graph.num_arcs,
            "vertices": split.num_vertices, "edges": split.num_edges,
            "build_s": round(t1 - t0, 4), "undirected_s": round(t2 - t1, 4),
            "write_s": round(t3 - t2, 4), "total_s": round(t3 - t0, 4),
            "file_mb": round(Path(out).stat().st_size / 2**20, 1)}


def run_child(n: int, kind: str, trace: bool, tmp: Path) -> dict:
    out = tmp / f"bench-{n}-{kind}.hcp"
    proc = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT)), str(n), kind,
                           "1" if trace else "0", str(out)],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    out.unlink(missing_ok=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def build_table(sizes: list[int], tmp: Path) -> list[dict]:
    rows = []
    for n in sizes:
        for kind in ("blank", "half"):
            timed = min((run_child(n, kind, False, tmp) for _ in range(3 if n <= 25 else 1)),
                        key=lambda r: r["total_s"])
            traced = run_child(n, kind, True, tmp)
            timed["tracemalloc_peak_mb"] = traced["tracemalloc_peak_mb"]
            timed["us_per_edge"] = round(timed["total_s"] / timed["edges"] * 1e6, 3)
            timed["target_s"] = TARGETS.get(n)
            rows.append(timed)
            print(json.dumps(timed), flush=True)
    return rows


def reduction_table(sizes: list[int]) -> list[dict]:
    rows = []
    for n in sizes:
        for kind, prune in (("half", "paper"), ("half", "peers")):
            puzzle = half_filled(n)
            split = haythorpe_split(haythorpe_graph(puzzle, prune))
            times = []
            for _ in range(3 if n <= 25 else 1):
                t = time.perf_counter()
                red = reduce_degree_two(split.num_vertices, split.edges)
                times.append(time.perf_counter() - t)
            row = {"n": n, "prune": prune, "vertices": split.num_vertices,
                   "edges": split.num_edges, "reduced_vertices": red.num_vertices,
                   "reduced_edges": red.num_edges, "status": red.status, "rounds": red.rounds,
                   "seconds": round(min(times), 4),
                   "us_per_vertex": round(min(times) / split.num_vertices * 1e6, 3)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


VARIANTS = [(prune, triple, closing) for prune in ("none", "paper", "peers")
            for triple in (False, True) for closing in (False, True)]


def sizes_of(line: str, variants=VARIANTS) -> list[tuple]:
    """(undirected V, E, reduced V, E, status) per variant for one puzzle line."""
    puzzle = parse_grid(line)
    out = []
    graphs = {}
    for prune, triple, closing in variants:
        key = (prune, triple)
        if key not in graphs:
            graphs[key] = haythorpe_split(haythorpe_graph(puzzle, prune), triple)
        split = graphs[key]
        red = reduce_degree_two(split.num_vertices, split.edges, closing)
        out.append((split.num_vertices, split.num_edges, red.num_vertices, red.num_edges,
                    red.status))
    return out


def line_one_table(line: str) -> list[dict]:
    rows = []
    for (prune, triple, closing), (v, e, rv, re_, status) in zip(VARIANTS, sizes_of(line)):
        rows.append({"prune": prune, "triple": triple,
                     "rules": "1-3" if closing else "paper (1-2)", "undirected_vertices": v,
                     "undirected_edges": e, "reduced_vertices": rv, "reduced_edges": re_,
                     "status": status,
                     "share_of_paper_vertices": round(rv / PAPER_REDUCED[0], 3)})
    return rows


SET_VARIANTS = [(prune, False, closing) for prune in ("paper", "peers")
                for closing in (False, True)]


def _set_chunk(lines: list[str]) -> list[list[tuple]]:
    return [sizes_of(line, SET_VARIANTS) for line in lines]


def whole_set_table(path: Path, jobs: int, limit: int | None) -> dict:
    with open(path) as handle:
        lines = [ln.strip() for ln in handle if ln.strip() and not ln.startswith("#")]
    lines = lines[:limit] if limit else lines
    chunks = [lines[i:i + 200] for i in range(0, len(lines), 200)]
    start = time.perf_counter()
    results = []
    with multiprocessing.Pool(jobs) as pool:
        for done, part in enumerate(pool.imap(_set_chunk, chunks), 1):
            results.extend(part)
            if done % 25 == 0:
                print(f"  {len(results):,}/{len(lines):,} puzzles", flush=True)
    seconds = time.perf_counter() - start
    rows = []
    for index, (prune, triple, closing) in enumerate(SET_VARIANTS):
        cols = np.array([r[index][:4] for r in results])
        statuses = [r[index][4] for r in results]
        row = {"prune": prune, "triple": triple, "rules": "1-3" if closing else "paper (1-2)",
               "puzzles": len(results),
               "statuses": {s: statuses.count(s) for s in sorted(set(statuses))}}
        for k, name in enumerate(("undirected_vertices", "undirected_edges",
                                  "reduced_vertices", "reduced_edges")):
            row[name] = {"mean": round(float(cols[:, k].mean()), 1),
                         "min": int(cols[:, k].min()), "max": int(cols[:, k].max())}
        row["below_paper_vertices"] = int((cols[:, 2] < PAPER_REDUCED[0]).sum())
        row["at_most_60pct"] = int((cols[:, 2] <= 0.6 * PAPER_REDUCED[0]).sum())
        rows.append(row)
        print(json.dumps(row), flush=True)
    return {"set": path.name, "puzzles": len(results), "seconds": round(seconds, 1),
            "jobs": jobs, "rows": rows}


def markdown(results: dict) -> str:
    out = [f"# Haythorpe HCP graph benchmark ({results['date']}; {results['machine']})", "",
           "## Build + undirected (3-split) + write TSPLIB, fresh process per case", "",
           "| N | case | clues | vertices | edges | build s | undirected s | write s | total s "
           "| µs/edge | file MB | peak RSS MB | tracemalloc MB | target |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["build"]:
        target = f"≤ {r['target_s']} s" if r["target_s"] else ""
        out.append(f"| {r['n']} | {r['case']} ({r['prune']}) | {r['clues']:,} | "
                   f"{r['vertices']:,} | {r['edges']:,} | {r['build_s']} | "
                   f"{r['undirected_s']} | {r['write_s']} | {r['total_s']} | "
                   f"{r['us_per_edge']} | {r['file_mb']} | {r['peak_rss_mb']} | "
                   f"{r['tracemalloc_peak_mb']} | {target} |")
    out += ["", "Peak RSS includes the interpreter with numpy and pysat imported "
                f"(about {results['build'][0]['base_rss_mb']} MB before building).", "",
            "## Degree-2 reduction alone (rules 1-3), 55%-filled puzzles", "",
            "| N | prune | vertices | edges | reduced vertices | reduced edges | status | "
            "rounds | seconds | µs/vertex |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["reduction"]:
        out.append(f"| {r['n']} | {r['prune']} | {r['vertices']:,} | {r['edges']:,} | "
                   f"{r['reduced_vertices']:,} | {r['reduced_edges']:,} | {r['status']} | "
                   f"{r['rounds']} | {r['seconds']} | {r['us_per_vertex']} |")
    out += ["", "## The paper's 17-clue puzzle (line 1), undirected + reduced", "",
            "Paper: 12,036 vertices / 19,301 edges. Rules 1-2 are §7's; rule 3 also removes "
            "an edge that would close a forced path into a short cycle.", "",
            "| prune | triple trick | rules | undirected V / E | reduced V / E | "
            "share of paper's V |", "|---|---|---|---|---|---|"]
    for r in results["line_one"]:
        out.append(f"| {r['prune']} | {'yes' if r['triple'] else 'no'} | {r['rules']} | "
                   f"{r['undirected_vertices']:,} / {r['undirected_edges']:,} | "
                   f"{r['reduced_vertices']:,} / {r['reduced_edges']:,} | "
                   f"{100 * r['share_of_paper_vertices']:.1f}% |")
    whole = results.get("whole_set")
    if whole:
        out += ["", f"## Whole set: {whole['set']} ({whole['puzzles']:,} puzzles, "
                    f"{whole['seconds']} s with {whole['jobs']} processes, "
                    f"{whole.get('date', results['date'])}), plain 3-split", "",
                "| prune | rules | undirected E mean (min–max) | reduced V mean (min–max) | "
                "reduced E mean (min–max) | V < 12,036 | V ≤ 60% (7,221) |",
                "|---|---|---|---|---|---|---|"]
        for r in whole["rows"]:
            ue, rv, re_ = r["undirected_edges"], r["reduced_vertices"], r["reduced_edges"]
            out.append(f"| {r['prune']} | {r['rules']} | {ue['mean']:,} ({ue['min']:,}–"
                       f"{ue['max']:,}) | {rv['mean']:,} ({rv['min']:,}–{rv['max']:,}) | "
                       f"{re_['mean']:,} ({re_['min']:,}–{re_['max']:,}) | "
                       f"{r['below_paper_vertices']:,} | {r['at_most_60pct']:,} |")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path,
                        default=ROOT.parent / "shared" / "data" / "sudoku" /
                        "royle-17clue-49151.txt",
                        help="the 17-clue set (one puzzle per line)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, help="first N puzzles of the set (quick runs)")
    parser.add_argument("--sizes", default="4,9,16,25,36,49,64")
    parser.add_argument("--reduce-sizes", default="9,16,25,36,64")
    parser.add_argument("--skip-set", action="store_true",
                        help="skip the whole-set table (keep the one in the previous results)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    results = {"machine": f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
                          f"Python {platform.python_version()}, numpy {np.__version__}",
               "date": time.strftime("%Y-%m-%d")}
    with tempfile.TemporaryDirectory() as tmp:
        results["build"] = build_table([int(s) for s in args.sizes.split(",")], Path(tmp))
    results["reduction"] = reduction_table([int(s) for s in args.reduce_sizes.split(",")])
    line_one = (ROOT / "instances" / "haythorpe-17clue.txt").read_text().split()[0]
    if args.set.exists():
        with open(args.set) as handle:
            first = next(ln.strip() for ln in handle if ln.strip())
        assert first == line_one, "line 1 of the set is not the paper's puzzle"
    results["line_one"] = line_one_table(line_one)
    for row in results["line_one"]:
        print(json.dumps(row))
    previous = args.out / "hcp_build.json"
    if not args.skip_set and args.set.exists():
        results["whole_set"] = whole_set_table(args.set, args.jobs, args.limit)
        results["whole_set"]["date"] = results["date"]
    elif not args.skip_set:
        print(f"skip the whole-set table: {args.set} not found")
    elif previous.exists() and "whole_set" in json.loads(previous.read_text()):
        old = json.loads(previous.read_text())
        results["whole_set"] = old["whole_set"]
        results["whole_set"].setdefault("date", old["date"])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "hcp_build.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out / "hcp_build.md").write_text(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
