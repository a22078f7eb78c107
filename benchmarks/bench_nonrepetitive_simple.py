"""Undirected simple nonrepetitive paths: Theorem 3 (usp(G) → ssg → one regular-path search)
against the SAT model, m = 10³ … 10⁶ edges.

    python benchmarks/bench_nonrepetitive_simple.py [--max-edges 1000000]
        [--sat-max-edges 100000] [--sat-timeout 300] [--rounds 3] [--baseline CHECKOUT]
        [--out benchmarks/results]

1. **Library, against m.** Uniform random undirected multigraphs with m edges, m/2 vertices
   and 3 labels (the issue's graph — 20,000 vertices, 40,000 edges — is the m = 40,000 row),
   plus one vertex without edges. Each run is a fresh process that builds the graph, resets
   its peak-RSS mark (as ``memprobe.py`` does), runs one case and reports its time, the
   peak memory the case added, and the answer:

   * ``found``: ``reductions.nonrepetitive.simple_nonrepetitive.simple_path`` from vertex 0 to
     vertex 1 (a path exists at every size here), with the answer checked by
     ``simple_path_problems``;
   * ``exhaustive``: from vertex 0 to the vertex without edges: no path, so the search
     explores everything regular paths reach from 0 — the worst case of one search;
   * ``sat``: ``solvers.gadgets.nrpath.find_simple_path`` (today's method) on the same graph and
     vertices, up to ``--sat-max-edges``, killed after ``--sat-timeout`` seconds.

   The ``exhaustive`` process then times the search alone on the skew-symmetric graph it
   builds again, and right after it the **same-run reference**: a plain depth-first
   reachability search, in the same pure Python, over the same adjacency arrays from the
   same source — linear by any account, so the ratio of the two shows whether the blossom
   search keeps pace with it as m grows (both slow down per arc on big graphs, where random
   memory access leaves the caches).

   Rounds interleave the cases (every round runs all of them, sizes in turn); medians of
   the times, maxima of the memory. Exponents: least squares of log(time) and log(memory)
   against log(m) over m ≥ 10⁴. The answers of ``found`` and ``sat`` must agree (yes/no).
2. **The command line** on the 40,000-edge graph file: ``nonrepetitive G.txt --path 0 1
   --simple`` of this checkout against the same command of ``--baseline CHECKOUT`` (e.g. the
   main branch, where it is the SAT model), alternating within each round; start-up, reading
   and printing included.
3. **Cyclic edges.** ``simple_cyclic_edges`` (one search per edge not yet settled, O(m²) at
   worst) on smaller graphs of the same kind, and, at the two smallest sizes, every edge's
   answer compared with ``simple_cycle`` called edge by edge (disagreements must be 0).

Results: ``benchmarks/results/nonrepetitive_simple.json`` and ``.md``. Synthetic graphs: no data
sets needed.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.nonrepetitive.labelled_graph import LabelledGraph, random_labelled_graph  # noqa: E402

SIZES = (1_000, 10_000, 40_000, 100_000, 300_000, 1_000_000)
CYCLE_SIZES = (250, 500, 1_000, 2_000, 4_000)


def bench_graph(m: int) -> LabelledGraph:
    """m edges, m/2 vertices, 3 labels, and vertex m/2 without edges."""
    g = random_labelled_graph(m // 2, m, 3, directed=False, seed=m)
    return LabelledGraph(m // 2 + 1, g.tails, g.heads, g.labels, directed=False)


# ----------------------------------------------------------------------------- worker

def _status_kb() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                out[key] = int(value.split()[0])
    return out


def worker(kind: str, m: int) -> dict:
    """One case in this (fresh) process: time, peak memory added, answer."""
    from reductions.nonrepetitive.nr_graph import simple_path_problems
    from reductions.nonrepetitive.simple_nonrepetitive import simple_path, simple_path_size
    from solvers.gadgets.nrpath import find_simple_path
    g = bench_graph(m)
    p, q = 0, (m // 2 if kind == "exhaustive" else 1)
    sizes = simple_path_size(g)
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")                       # peak := current: count the case only
    before = _status_kb()
    start = time.perf_counter()
    path = find_simple_path(g, p, q) if kind == "sat" else simple_path(g, p, q)
    seconds = time.perf_counter() - start
    after = _status_kb()
    ok = path is None or not simple_path_problems(g, path, p, q)
    result = {"kind": kind, "edges": m, "vertices": g.num_vertices, "seconds": seconds,
              "peak_mb": (after["VmHWM"] - before["VmRSS"]) / 1024,
              "found": path is not None, "length": None if path is None else len(path),
              "checked": ok, "ssg_vertices": sizes["ssg_vertices"],
              "ssg_arcs": sizes["ssg_arcs"]}
    if kind == "exhaustive":
        result.update(search_against_reachability(g, p, q))
    return result


def search_against_reachability(g: LabelledGraph, p: int, q: int) -> dict:
    """The blossom search alone, then a plain reachability search over the same arrays."""
    from reductions.nonrepetitive.skew_symmetric import regular_path
    from reductions.nonrepetitive.ssg import ssg_graph
    from reductions.nonrepetitive.usp import usp_graph
    usp = usp_graph(g)
    ssg = ssg_graph(usp.graph, usp.centre(p), usp.centre(q), first_label=1, last_label=1)
    indptr, targets, _ = ssg.graph.adjacency
    start = time.perf_counter()
    regular_path(ssg.graph, ssg.source)
    search = time.perf_counter() - start
    start = time.perf_counter()
    seen = bytearray(ssg.graph.num_vertices)
    seen[ssg.source] = 1
    stack = [ssg.source]
    while stack:
        x = stack.pop()
        for w in targets[indptr[x]:indptr[x + 1]]:
            if not seen[w]:
                seen[w] = 1
                stack.append(w)
    return {"search_s": search, "reach_s": time.perf_counter() - start}


def run_worker(kind: str, m: int, timeout: float | None = None) -> dict | None:
    """A case in a fresh process; None if it ran past ``timeout``."""
    try:
        out = subprocess.run([sys.executable, __file__, "--worker", kind, str(m)], cwd=ROOT,
                             capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- 1. library

def fit_exponent(xs: list[float], ys: list[float]) -> float | None:
    points = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x >= 10_000 and y > 0]
    if len(points) < 2:
        return None
    return round(float(np.polyfit(*zip(*points), 1)[0]), 2)


def bench_library(sizes: list[int], rounds: int, sat_max: int, sat_timeout: float) -> dict:
    runs: dict[tuple[str, int], list[dict | None]] = {}
    for round_ in range(rounds):
        for m in sizes:
            kinds = ["found", "exhaustive"] + (["sat"] if m <= sat_max else [])
            if round_ % 2:
                kinds.reverse()                 # neither kind always runs first
            for kind in kinds:
                if kind == "sat" and runs.get((kind, m)) and runs[(kind, m)][-1] is None:
                    continue                    # timed out once: not again
                result = run_worker(kind, m, sat_timeout if kind == "sat" else None)
                runs.setdefault((kind, m), []).append(result)
                shown = "timeout" if result is None else f"{result['seconds']:.3f} s"
                print(f"round {round_ + 1} m={m:,} {kind}: {shown}", flush=True)
    rows = []
    for m in sizes:
        row: dict = {"edges": m, "vertices": m // 2 + 1}
        for kind in ("found", "exhaustive", "sat"):
            results = runs.get((kind, m), [])
            done = [r for r in results if r is not None]
            if not results:
                continue
            if not done:
                row[kind] = {"timeout_s": sat_timeout}
                continue
            row["ssg_vertices"], row["ssg_arcs"] = done[0]["ssg_vertices"], done[0]["ssg_arcs"]
            row[kind] = {"seconds": round(statistics.median(r["seconds"] for r in done), 4),
                         "peak_mb": round(max(r["peak_mb"] for r in done), 1),
                         "found": done[0]["found"], "length": done[0]["length"],
                         "checked": all(r["checked"] for r in done),
                         "runs": len(done)}
            if kind == "exhaustive":
                for key in ("search_s", "reach_s"):
                    row[kind][key] = round(statistics.median(r[key] for r in done), 4)
                row[kind]["search_per_reach"] = round(statistics.median(
                    r["search_s"] / r["reach_s"] for r in done), 2)
        if "sat" in row and "seconds" in row["sat"]:
            row["sat_agrees"] = row["sat"]["found"] == row["found"]["found"]
            row["speedup"] = round(row["sat"]["seconds"] / row["found"]["seconds"], 1)
        rows.append(row)
    exponents = {}
    for kind in ("found", "exhaustive"):
        ms = [r["edges"] for r in rows if "seconds" in r.get(kind, {})]
        exponents[f"{kind}_time"] = fit_exponent(ms, [r[kind]["seconds"] for r in rows
                                                      if "seconds" in r.get(kind, {})])
        exponents[f"{kind}_memory"] = fit_exponent(ms, [r[kind]["peak_mb"] for r in rows
                                                        if "seconds" in r.get(kind, {})])
    ms = [r["edges"] for r in rows]
    for key in ("search_s", "reach_s"):
        exponents[key] = fit_exponent(ms, [r["exhaustive"][key] for r in rows])
    return {"rows": rows, "exponents": exponents}


# ----------------------------------------------------------------------------- 2. CLI

def _run(command: list[str], cwd: Path, env: dict) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak RSS MB, exit code) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return (time.perf_counter() - start, usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status))


def bench_cli(m: int, rounds: int, baseline: Path | None) -> dict:
    from solvers.formats.labelled_edges import write_labelled_edges
    checkouts = {"this": ROOT} | ({"baseline": baseline} if baseline else {})
    times: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.txt"
        write_labelled_edges(path, bench_graph(m))
        for round_ in range(rounds):
            order = list(checkouts.items())
            if round_ % 2:
                order.reverse()
            for name, checkout in order:
                env = {**os.environ, "PYTHONPATH": str(checkout)}
                command = [sys.executable, "-m", "solvers.cli", "nonrepetitive", str(path),
                           "--path", "0", "1", "--simple"]
                times[name].append(_run(command, checkout, env))
                print(f"cli round {round_ + 1} {name}: {times[name][-1][0]:.2f} s", flush=True)
    row: dict = {"edges": m, "rounds": rounds}
    for name, runs in times.items():
        row[name] = {"seconds": round(statistics.median(r[0] for r in runs), 3),
                     "cpu_seconds": round(statistics.median(r[1] for r in runs), 3),
                     "peak_mb": round(max(r[2] for r in runs)),
                     "exit_codes": sorted({r[3] for r in runs})}
    if baseline:
        row["baseline_checkout"] = _describe(baseline)
        pairs = list(zip(times["this"], times["baseline"]))
        row["speedup"] = round(statistics.median(b[0] / t[0] for t, b in pairs), 1)
        row["cpu_speedup"] = round(statistics.median(b[1] / t[1] for t, b in pairs), 1)
    return row


def _describe(checkout: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(checkout), "log", "-1", "--format=%h %s"],
                              capture_output=True, text=True, check=True).stdout.strip()[:60]
    except (OSError, subprocess.CalledProcessError):
        return str(checkout)


# ----------------------------------------------------------------------------- 3. cycles

def bench_cycles(sizes: list[int], compare_up_to: int) -> list[dict]:
    from reductions.nonrepetitive.simple_nonrepetitive import simple_cycle, simple_cyclic_edges
    rows = []
    for m in sizes:
        g = bench_graph(m)
        start = time.perf_counter()
        result = simple_cyclic_edges(g)
        seconds = time.perf_counter() - start
        row = {"edges": m, "seconds": round(seconds, 3), "cyclic": int(result.mask.sum()),
               "searches": result.searches}
        if m <= compare_up_to:
            start = time.perf_counter()
            each = [simple_cycle(g, e) is not None for e in range(m)]
            row["per_edge_seconds"] = round(time.perf_counter() - start, 3)
            row["disagreements"] = int(np.sum(np.asarray(each) != result.mask))
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


# ----------------------------------------------------------------------------- report

def markdown(results: dict) -> str:
    lib = results["library"]
    lines = [f"# Undirected simple nonrepetitive paths: Theorem 3 against the SAT model "
             f"({results['date']}; {results['machine']})", "",
             "## One path test against m (fresh process per run; random multigraphs, m/2 "
             "vertices, 3 labels)", "",
             "| m edges | ssg vertices / arcs | found: s | peak MB | path edges | exhaustive: s "
             "| peak MB | its search s | reference: plain reachability s | search ÷ reference "
             "| SAT model: s | peak MB | SAT ÷ found | answers agree |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in lib["rows"]:
        found, full, sat = r["found"], r["exhaustive"], r.get("sat")
        if sat is None:
            sat_cells = "not run | |"
        elif "seconds" in sat:
            sat_cells = f"{sat['seconds']} | {sat['peak_mb']} |"
        else:
            sat_cells = f"> {sat['timeout_s']:.0f} (stopped) | |"
        lines.append(
            f"| {r['edges']:,} | {r['ssg_vertices']:,} / {r['ssg_arcs']:,} | "
            f"{found['seconds']} | {found['peak_mb']} | {found['length']} | "
            f"{full['seconds']} | {full['peak_mb']} | {full['search_s']} | {full['reach_s']} | "
            f"{full['search_per_reach']} | {sat_cells} "
            f"{str(r['speedup']) + '×' if 'speedup' in r else ''} | "
            f"{'yes' if r.get('sat_agrees') else 'NO' if 'sat_agrees' in r else ''} |")
    e = lib["exponents"]
    lines += ["", f"Fitted exponents over m ≥ 10⁴ (time ~ m^k): found {e['found_time']}, "
                  f"exhaustive {e['exhaustive_time']} (its search {e['search_s']}, the plain "
                  f"reachability reference {e['reach_s']}); peak memory: found "
                  f"{e['found_memory']}, exhaustive {e['exhaustive_memory']}. Medians of "
                  f"{results['rounds']} interleaved rounds (the SAT model: as many as finished "
                  f"in time); memory is the peak the case adds to a process that holds the "
                  f"graph. Every path found was checked (simple, nonrepetitive, from 0 to 1).",
              ""]
    if results.get("cli"):
        c = results["cli"]
        lines += ["## The command line on the 40,000-edge file (`nonrepetitive G.txt --path 0 1 "
                  "--simple`, start-up included)", "",
                  "| checkout | wall s | CPU s | peak MB | exit |", "|---|---|---|---|---|",
                  f"| this (Theorem 3) | {c['this']['seconds']} | {c['this']['cpu_seconds']} | "
                  f"{c['this']['peak_mb']} | {c['this']['exit_codes']} |"]
        if "baseline" in c:
            lines.append(f"| baseline `{c['baseline_checkout']}` (SAT model) | "
                         f"{c['baseline']['seconds']} | {c['baseline']['cpu_seconds']} | "
                         f"{c['baseline']['peak_mb']} | {c['baseline']['exit_codes']} |")
            lines += ["", f"Ratio baseline ÷ this, median of the within-round ratios over "
                          f"{c['rounds']} rounds: **{c['speedup']}×** wall clock, "
                          f"**{c['cpu_speedup']}×** CPU time."]
        lines.append("")
    if results.get("cycles"):
        lines += ["## `simple_cyclic_edges` (one search per edge not settled by Theorem 1 or "
                  "by a cycle already found)", "",
                  "| m edges | seconds | cyclic edges | searches | edge-by-edge `simple_cycle` s "
                  "| disagreements |", "|---|---|---|---|---|---|"]
        for r in results["cycles"]:
            lines.append(f"| {r['edges']:,} | {r['seconds']} | {r['cyclic']:,} | "
                         f"{r['searches']:,} | {r.get('per_edge_seconds', '')} | "
                         f"{r.get('disagreements', '')} |")
        ms = [r["edges"] for r in results["cycles"]]
        lines += ["", f"Fitted exponent over these sizes (time ~ m^k): "
                      f"{fit_exponent_all(ms, [r['seconds'] for r in results['cycles']])}."]
    return "\n".join(lines) + "\n"


def fit_exponent_all(xs: list[float], ys: list[float]) -> float | None:
    points = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y > 0]
    return round(float(np.polyfit(*zip(*points), 1)[0]), 2) if len(points) > 1 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "M"), help=argparse.SUPPRESS)
    parser.add_argument("--max-edges", type=int, default=1_000_000)
    parser.add_argument("--sat-max-edges", type=int, default=100_000)
    parser.add_argument("--sat-timeout", type=float, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path,
                        help="another checkout whose CLI runs in the same rounds (e.g. main)")
    parser.add_argument("--max-cycle-edges", type=int, default=4_000)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]))))
        return
    results = {"machine": f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
                          f"Python {platform.python_version()}",
               "date": time.strftime("%Y-%m-%d"), "rounds": args.rounds}
    sizes = [m for m in SIZES if m <= args.max_edges]
    results["library"] = bench_library(sizes, args.rounds, args.sat_max_edges,
                                       args.sat_timeout)
    if 40_000 in sizes:
        results["cli"] = bench_cli(40_000, args.rounds, args.baseline)
    results["cycles"] = bench_cycles([m for m in CYCLE_SIZES if m <= args.max_cycle_edges],
                                     compare_up_to=500)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "nonrepetitive_simple.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out / "nonrepetitive_simple.md").write_text(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
