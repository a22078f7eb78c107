"""nr(G) on big labelled graphs, and the 3SAT → nonrepetitive simple path gadget.

    python benchmarks/bench_nonrepetitive.py [--max-edges 1000000] [--max-validate-vars 200]
                                             [--out benchmarks/results]

1. nr(G) (``reductions.nonrepetitive.nr_graph``) on uniform random labelled multigraphs with m
   edges, m/4 vertices and 9 labels (the Sudoku digits), directed and undirected, m = 10³ … 10⁶:
   time to build nr(G) and its size; then Theorem 1 (all edges on nonrepetitive cycles:
   strongly connected components, scipy), Theorem 2 (edges on walks
   that start with the first edge's tail and label: one search) and a shortest nonrepetitive
   walk from that vertex to the last edge's head (0-1 BFS), each on the nr(G) already
   built. Linearity shows as a flat µs/edge (build: best of 5 runs, 3 at 10⁶).
2. The Theorem 4 gadget of random 3-CNF at clause/variable ratio 4.26: build + write the
   edge list (``gadget nrpath -o``) for n = 10 … 10⁵ variables; then the closed-loop
   validation (``solvers.gadgets.nrpath.validate_formula``: pysat on the formula, the SAT model on the
   gadget, extraction, forward map, nr(G) walk) on 5 formulas per size up to
   ``--max-validate-vars``.

3. The command line end to end on a 10⁶-edge directed graph file (9 labels, m/4 vertices):
   ``nonrepetitive G.txt --cyclic-edges`` and ``--from V --label L`` (start-up, reading the
   file, nr(G), the search, printing every edge found), each against the reference measured
   in the same run: one scipy ``connected_components(connection='strong')`` on a random
   digraph with nr(G)'s numbers of vertices and arcs, interleaved round by round, ratios
   taken within each round (target: within 5×).

Results: ``benchmarks/results/nonrepetitive.json`` and ``nonrepetitive.md``. The graphs are
synthetic: no data sets needed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.formulas import random_3sat  # noqa: E402
from reductions.nonrepetitive.labelled_graph import LabelledGraph, random_labelled_graph  # noqa: E402
from reductions.nonrepetitive.nr_graph import cyclic_edges, edges_from, nonrepetitive_path, nr_graph  # noqa: E402
from reductions.nonrepetitive.nrpath_gadget import expected_size, nrpath_gadget  # noqa: E402
from solvers.formats.labelled_edges import write_labelled_edges  # noqa: E402
from solvers.gadgets.nrpath import validate_formula  # noqa: E402

RATIO = 4.26


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def bench_nr(edges: int, directed: bool, labels: int = 9) -> dict:
    graph = random_labelled_graph(max(edges // 4, 1), edges, labels, directed, seed=edges)
    repeats = 5 if edges <= 100_000 else 3
    build = min(timed(nr_graph, graph)[1] for _ in range(repeats))
    nr, _ = timed(nr_graph, graph)
    _, csr_seconds = timed(lambda: nr.csr)
    cyclic, scc_seconds = timed(cyclic_edges, graph, nr)
    start, label, end = int(graph.tails[0]), int(graph.labels[0]), int(graph.heads[-1])
    reach, reach_seconds = timed(edges_from, graph, start, label, nr)
    walk, walk_seconds = timed(nonrepetitive_path, graph, start, end, nr)
    row = {"edges": edges, "directed": directed, "vertices": graph.num_vertices,
           "labels": labels, "nr_vertices": nr.num_vertices, "nr_arcs": nr.num_arcs,
           "build_s": round(build, 4), "build_us_per_edge": round(1e6 * build / edges, 3),
           "adjacency_s": round(csr_seconds, 3),
           "thm1_s": round(scc_seconds, 3),
           "thm1_us_per_edge": round(1e6 * scc_seconds / edges, 2),
           "cyclic_edges": int(cyclic.sum()),
           "thm2_s": round(reach_seconds, 3), "thm2_edges": int(reach.sum()),
           "walk_s": round(walk_seconds, 3), "walk_edges": None if walk is None else len(walk),
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
    return row


def bench_build_many_labels(edges: int) -> dict:
    """nr(G) build only, every edge its own label (Eppstein's trick for undirected graphs:
    walks that never go straight back along an edge); the pairs are grouped by sorting."""
    graph = random_labelled_graph(max(edges // 4, 1), edges, 1, False, seed=edges)
    graph = LabelledGraph(graph.num_vertices, graph.tails, graph.heads,
                          np.arange(edges, dtype=np.int64), directed=False)
    build = min(timed(nr_graph, graph)[1] for _ in range(3))
    nr = nr_graph(graph)
    return {"edges": edges, "nr_vertices": nr.num_vertices, "nr_arcs": nr.num_arcs,
            "build_s": round(build, 4), "build_us_per_edge": round(1e6 * build / edges, 3)}


def bench_cli_vs_scc(edges: int, repeats: int = 3) -> dict:
    """The CLI's Theorem 1 and Theorem 2 runs on a graph file, and the same-run reference:
    one scipy strong-components pass over a random digraph of nr(G)'s size."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    graph = random_labelled_graph(max(edges // 4, 1), edges, 9, True, seed=edges)
    nr = nr_graph(graph)
    rng = np.random.default_rng(edges)
    tails = rng.integers(0, nr.num_vertices, nr.num_arcs)
    heads = rng.integers(0, nr.num_vertices, nr.num_arcs)

    def scc() -> None:
        matrix = csr_matrix((np.ones(nr.num_arcs, dtype=np.int8), (tails, heads)),
                            shape=(nr.num_vertices, nr.num_vertices))
        connected_components(matrix, directed=True, connection="strong")

    start, label = str(graph.vertex_name(int(graph.tails[0]))), str(int(graph.labels[0]))
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.txt"
        write_labelled_edges(path, graph)
        # Interleaved: each round times the reference and both commands back to back, and
        # the ratios are taken within the round (the machine may be shared).
        for _ in range(repeats):
            reference = timed(scc)[1]
            row = {"scc_reference_s": reference}
            for name, extra in (("cyclic_edges", ["--cyclic-edges"]),
                                ("from", ["--from", start, "--label", label])):
                command = [sys.executable, "-m", "solvers.cli", "nonrepetitive", str(path),
                           *extra]
                row[name], row[f"{name}_peak_mb"] = _run_seconds(command)
            rounds.append(row)
    median = statistics.median
    return {"edges": edges, "nr_vertices": nr.num_vertices, "nr_arcs": nr.num_arcs,
            "rounds": len(rounds),
            "scc_reference_s": round(median(r["scc_reference_s"] for r in rounds), 3),
            "cli_cyclic_edges_s": round(median(r["cyclic_edges"] for r in rounds), 3),
            "cli_from_s": round(median(r["from"] for r in rounds), 3),
            "cyclic_ratio": round(median(r["cyclic_edges"] / r["scc_reference_s"]
                                         for r in rounds), 2),
            "from_ratio": round(median(r["from"] / r["scc_reference_s"] for r in rounds), 2),
            "cli_cyclic_edges_peak_mb": round(max(r["cyclic_edges_peak_mb"] for r in rounds)),
            "cli_from_peak_mb": round(max(r["from_peak_mb"] for r in rounds))}


def _run_seconds(command: list[str]) -> tuple[float, float]:
    """(seconds, peak resident MB) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)}: exit {os.waitstatus_to_exitcode(status)}")
    return seconds, usage.ru_maxrss / 1024


def bench_emit(num_vars: int) -> dict:
    formula = random_3sat(num_vars, round(RATIO * num_vars), seed=num_vars)
    start = time.perf_counter()
    gadget = nrpath_gadget(formula)
    build = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "g.txt"
        start = time.perf_counter()
        write_labelled_edges(out, gadget.graph, gadget.p, gadget.q)
        write = time.perf_counter() - start
        size = out.stat().st_size
    graph = gadget.graph
    assert (graph.num_vertices, graph.num_arcs) == expected_size(formula)
    return {"variables": num_vars, "clauses": formula.num_clauses,
            "vertices": graph.num_vertices, "arcs": graph.num_arcs,
            "build_s": round(build, 3), "write_s": round(write, 3),
            "us_per_arc": round(1e6 * (build + write) / graph.num_arcs, 2),
            "file_mb": round(size / 2 ** 20, 1)}


def bench_validate(num_vars: int, count: int = 5) -> dict:
    checks = [validate_formula(random_3sat(num_vars, round(RATIO * num_vars), seed),
                               f"s{seed}") for seed in range(count)]
    keys = checks[0].seconds.keys()
    mean = {k: round(sum(c.seconds.get(k, 0.0) for c in checks) / count, 4) for k in keys}
    return {"variables": num_vars, "clauses": round(RATIO * num_vars), "formulas": count,
            "satisfiable": sum(c.satisfiable for c in checks),
            "all_ok": all(c.ok for c in checks), "arcs": checks[0].arcs,
            "mean_s": mean, "max_total_s": round(max(sum(c.seconds.values())
                                                       for c in checks), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-edges", type=int, default=1_000_000)
    parser.add_argument("--max-emit-vars", type=int, default=100_000)
    parser.add_argument("--max-validate-vars", type=int, default=200)
    parser.add_argument("--cli-edges", type=int, default=1_000_000,
                        help="edges of the graph file for the command-line runs (0: skip)")
    parser.add_argument("--only-cli", action="store_true",
                        help="only the command-line runs (keeps the other tables of the "
                             "results file)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    results = {"machine": f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
                          f"Python {platform.python_version()}",
               "date": time.strftime("%Y-%m-%d"), "nr": [], "many_labels": [], "emit": [],
               "validate": [], "cli": []}
    saved = args.out / "nonrepetitive.json"
    if args.only_cli and saved.exists():
        results = {**json.loads(saved.read_text()), "cli": []}
    else:
        for directed in (True, False):
            edges = 1000
            while edges <= args.max_edges:
                row = bench_nr(edges, directed)
                results["nr"].append(row)
                print(json.dumps(row), flush=True)
                edges *= 10
        edges = 1000
        while edges <= args.max_edges:
            row = bench_build_many_labels(edges)
            results["many_labels"].append(row)
            print(json.dumps(row), flush=True)
            edges *= 10
        n = 10
        while n <= args.max_emit_vars:
            row = bench_emit(n)
            results["emit"].append(row)
            print(json.dumps(row), flush=True)
            n *= 10
        for n in (10, 25, 50, 100, 150, 200, 250, 300):
            if n > args.max_validate_vars:
                break
            row = bench_validate(n)
            results["validate"].append(row)
            print(json.dumps(row), flush=True)
    if args.cli_edges:
        row = bench_cli_vs_scc(args.cli_edges)
        results["cli"].append(row)
        print(json.dumps(row), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "nonrepetitive.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out / "nonrepetitive.md").write_text(markdown(results))
    print(markdown(results))


def markdown(results: dict) -> str:
    lines = [f"# Nonrepetitive paths benchmark ({results['date']}; {results['machine']})", "",
             "## nr(G) on random labelled multigraphs (m/4 vertices, 9 labels)", "",
             "| m edges | kind | nr(G) vertices | nr(G) arcs | build s | build µs/edge | "
             "Thm 1 (SCC) s | Thm 1 µs/edge | cyclic edges | Thm 2 s | Thm 2 edges | walk s | "
             "walk edges | peak MB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["nr"]:
        lines.append(f"| {r['edges']:,} | {'directed' if r['directed'] else 'undirected'} | "
                     f"{r['nr_vertices']:,} | {r['nr_arcs']:,} | {r['build_s']} | "
                     f"{r['build_us_per_edge']} | {r['thm1_s']} | {r['thm1_us_per_edge']} | "
                     f"{r['cyclic_edges']:,} | {r['thm2_s']} | {r['thm2_edges']:,} | "
                     f"{r['walk_s']} | "
                     f"{r['walk_edges']} | "
                     f"{r['peak_rss_mb']:,} |")
    lines += ["", "Peak MB is the process's peak so far (rows run in order). Theorem 1 is "
                  "scipy's strong components and Theorem 2 scipy's breadth-first order on "
                  "nr(G); timings vary with machine load.",
              "", "## nr(G) build, undirected, every edge its own label (pairs grouped by "
                  "sorting)",
              "", "| m edges | nr(G) vertices | nr(G) arcs | build s | build µs/edge |",
              "|---|---|---|---|---|"]
    for r in results["many_labels"]:
        lines.append(f"| {r['edges']:,} | {r['nr_vertices']:,} | {r['nr_arcs']:,} | "
                     f"{r['build_s']} | {r['build_us_per_edge']} |")
    lines += ["", "## Theorem 4 gadget: build and write the edge list (random 3-CNF, "
                  f"{RATIO} clauses per variable)", "",
              "| variables | clauses | vertices | arcs | build s | write s | µs/arc | file MB |",
              "|---|---|---|---|---|---|---|---|"]
    for r in results["emit"]:
        lines.append(f"| {r['variables']:,} | {r['clauses']:,} | {r['vertices']:,} | "
                     f"{r['arcs']:,} | {r['build_s']} | {r['write_s']} | {r['us_per_arc']} | "
                     f"{r['file_mb']} |")
    lines += ["", "## The command line on a graph file, against one scipy SCC of nr(G)'s size "
                  "(same run)", "",
              "| m edges | nr(G) vertices | nr(G) arcs | reference: scipy SCC s | "
              "`--cyclic-edges` s | ratio | peak MB | `--from V --label L` s | ratio | peak MB |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results.get("cli", []):
        lines.append(f"| {r['edges']:,} | {r['nr_vertices']:,} | {r['nr_arcs']:,} | "
                     f"{r['scc_reference_s']} | {r['cli_cyclic_edges_s']} | "
                     f"{r['cyclic_ratio']}× | {r.get('cli_cyclic_edges_peak_mb', '')} | "
                     f"{r['cli_from_s']} | {r['from_ratio']}× | {r.get('cli_from_peak_mb', '')} |")
    lines += ["", "The command-line times include Python's start-up, reading the file, "
                  "building nr(G) and printing every edge found. Rounds interleave the "
                  "reference and both commands; medians of the times and of the within-round "
                  "ratios (target: within 5×)."]
    lines += ["", "## Closed-loop validation per formula (mean of 5 random formulas, seconds)",
              "", "| variables | clauses | gadget arcs | satisfiable | all ok | build | "
                  "pysat on formula | SAT model on gadget | nr(G) walk | max total |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["validate"]:
        m = r["mean_s"]
        lines.append(f"| {r['variables']} | {r['clauses']} | {r['arcs']:,} | "
                     f"{r['satisfiable']}/{r['formulas']} | {'yes' if r['all_ok'] else 'NO'} | "
                     f"{m['build']} | {m['formula_sat']} | {m['path_sat']} | {m['nr_walk']} | "
                     f"{r['max_total_s']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
