"""Do the builders stay linear up to N = 64? Time and peak memory of each builder against
its output size, from the empty N×N grid (and optionally a 55%-filled one), with the fitted
exponent.

    python benchmarks/bench_builders.py [--sizes 4,9,16,25,36,49,64] [--only cnf,cover]
                                        [--half] [--rounds 3] [--timeout 300]
                                        [--fit-from 25] [--max-memory 8G]

Builders (each case in a fresh child process; its input is built first, untimed):

* ``hcp-directed``  Haythorpe's directed graph (``reductions.hamiltonian.hcp.haythorpe_graph``);
  size = arcs.
* ``hcp-split``     the undirected 3-split of that graph
  (``reductions.hamiltonian.hcp_undirected``); size = edges.
* ``hcp-reduce``    the degree-2 reduction of the 3-split
  (``reductions.hamiltonian.graph_reduction``, rules 1-3); size = the edges it is given.
* ``hcp-emit``      ``emit hcp`` (undirected, TSPLIB file + JSON sidecar), build included;
  size = edges written.
* ``cnf-emit``      ``emit cnf`` (``reductions.encodings.cnf.sudoku_cnf`` + ``write_cnf``, extended
  encoding, at-most-one auto, clue units); size = literals written.
* ``cover-emit``    ``emit exact-cover`` (``sudoku_exact_cover`` + ``write_dlx``);
  size = nonzeros (option × item entries).

Measured per case: wall time of the builder alone; the peak RSS the builder adds (the
kernel's high-water mark reset just before it, ``/proc/self/clear_refs`` as in
``memprobe.py``: VmHWM after − VmRSS before); the case's whole peak (input included) minus
the interpreter's baseline (a child that imports the same modules and builds nothing,
measured in the same run); output counts and bytes written. Rounds are interleaved (every
case once, then again) and medians reported, so a busy machine slows every size alike;
with ``--before`` the two checkouts take turns at running first.

The reference is the run itself: the exponent is the least-squares slope of log(time) and
log(peak) against log(size) over the sizes N ≥ ``--fit-from`` (per-element costs at small N
are dominated by fixed costs), so "linear" means an exponent of about 1 in the output size
(3 against N: every output here grows as N³). Target: exponent ≤ 1.15 for every builder.
Cases whose estimate (``reductions/*/sizes.py``) is over ``--max-memory`` (default: the same
safe share of the machine as the command line's) are skipped and shown so; a case over
``--timeout`` seconds is killed and shown so.

Results: ``benchmarks/results/builders.md`` and ``builders.json``.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.bench_hcp_build import half_filled  # noqa: E402
from benchmarks.memprobe import status_kb  # noqa: E402
from reductions.sudoku.grid import Grid, Shape  # noqa: E402
from reductions.estimate import Estimate  # noqa: E402
from reductions.encodings.sizes import cnf_estimate, exact_cover_estimate  # noqa: E402
from reductions.errors import format_bytes  # noqa: E402
from reductions.hamiltonian.sizes import hcp_estimate  # noqa: E402
from solvers.runtime.memory import default_limit, parse_size  # noqa: E402

BUILDERS = ("hcp-directed", "hcp-split", "hcp-reduce", "hcp-emit", "cnf-emit", "cover-emit")
SIZE_NAMES = {"hcp-directed": "arcs", "hcp-split": "edges", "hcp-reduce": "edges in",
              "hcp-emit": "edges", "cnf-emit": "literals", "cover-emit": "nonzeros"}
PRUNE = {"blank": "none", "half": "peers"}
TARGET_EXPONENT = 1.15


# ----------------------------------------------------------------------------- the child

def puzzle_of(n: int, kind: str) -> Grid:
    return Grid.empty(n) if kind == "blank" else half_filled(n)


def reset_peak() -> dict[str, int]:
    """Reset the kernel's peak-RSS mark to the current RSS; returns the status before."""
    before = status_kb()
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    return before


def run_builder(builder: str, n: int, kind: str, out: Path) -> dict:
    """Build the input (untimed), then time and measure the builder alone."""
    from reductions.encodings.cnf import sudoku_cnf
    from reductions.encodings.exact_cover import sudoku_exact_cover
    from reductions.hamiltonian.graph_reduction import reduce_degree_two
    from reductions.hamiltonian.hcp import haythorpe_graph
    from reductions.hamiltonian.hcp_pipeline import HcpOptions, build_hcp_pipeline
    from reductions.hamiltonian.hcp_undirected import haythorpe_split
    from solvers.formats.atomic import OutputGroup
    from solvers.formats.dimacs import write_cnf
    from solvers.formats.dlx import write_dlx
    from solvers.formats.graph_files import SIDECAR_NAMES, GraphFormat
    from solvers.formats.hcp_export import write_export
    from solvers.formats.sidecar import write_sidecar

    puzzle = puzzle_of(n, kind)
    prune = PRUNE[kind]
    graph = split = None
    if builder in ("hcp-split", "hcp-reduce"):
        graph = haythorpe_graph(puzzle, prune)
    if builder == "hcp-reduce":
        split = haythorpe_split(graph)
    row: dict = {"clues": puzzle.clue_count()}
    prep = reset_peak()
    start = time.perf_counter()
    if builder == "hcp-directed":
        result = haythorpe_graph(puzzle, prune)
        row |= {"vertices": result.num_vertices, "size": result.num_arcs}
    elif builder == "hcp-split":
        result = haythorpe_split(graph)
        row |= {"vertices": result.num_vertices, "size": result.num_edges}
    elif builder == "hcp-reduce":
        result = reduce_degree_two(split.num_vertices, split.edges)
        len(result.edges)                # rule 1 is done on first use of the reduced graph
        row |= {"vertices": split.num_vertices, "size": split.num_edges,
                "reduced": [result.num_vertices, result.num_edges], "status": result.status,
                "rounds": result.rounds}
    elif builder == "hcp-emit":
        pipeline = build_hcp_pipeline(puzzle, HcpOptions(prune=prune))
        with OutputGroup() as outputs:
            write_export(out, pipeline, GraphFormat.TSPLIB, group=outputs)
            side = write_sidecar(out, pipeline, SIDECAR_NAMES[GraphFormat.TSPLIB],
                                 group=outputs)
        row |= {"vertices": pipeline.num_vertices, "size": len(pipeline.edges),
                "bytes": out.stat().st_size + side.stat().st_size}
    elif builder == "cnf-emit":
        cnf = sudoku_cnf(puzzle)
        clauses = write_cnf(out, cnf.num_vars, cnf.clause_blocks(), cnf.metadata())
        row |= {"variables": cnf.num_vars, "clauses": clauses, "bytes": out.stat().st_size}
    elif builder == "cover-emit":
        cover = sudoku_exact_cover(puzzle)
        write_dlx(out, cover)
        row |= {"options": cover.num_options, "items": cover.num_items,
                "size": cover.num_nonzeros, "bytes": out.stat().st_size}
    else:
        raise ValueError(builder)
    seconds = time.perf_counter() - start
    after = status_kb()
    if builder == "cnf-emit":
        row["size"] = dimacs_literals(out)          # untimed: counted from the file
    return row | {"seconds": seconds,
                  "stage_peak": 1024 * (after["VmHWM"] - prep["VmRSS"]),
                  "case_hwm": 1024 * max(prep["VmHWM"], after["VmHWM"])}


def dimacs_literals(path: Path) -> int:
    """Literals of a DIMACS file: one space before each ``0`` terminator per literal."""
    literals = 0
    with open(path, "rb") as handle:
        for line in handle:                         # the comments and header come first
            if line.startswith(b"p "):
                break
        while chunk := handle.read(1 << 22):
            literals += chunk.count(b" ")
    return literals


def child_main(argv: list[str]) -> None:
    builder, n, kind, out = argv[0], int(argv[1]), argv[2], Path(argv[3])
    if builder == "baseline":
        import reductions.encodings.cnf, reductions.encodings.exact_cover, reductions.hamiltonian.graph_reduction  # noqa: F401,E401
        import reductions.hamiltonian.hcp_pipeline, solvers.formats.dimacs, solvers.formats.dlx  # noqa: F401,E401
        import solvers.formats.hcp_export, solvers.formats.sidecar  # noqa: F401,E401
        print(json.dumps({"case_hwm": 1024 * status_kb()["VmHWM"]}))
        return
    print(json.dumps(run_builder(builder, n, kind, out)))


# ----------------------------------------------------------------------------- the parent

def estimate_of(builder: str, n: int) -> Estimate:
    """The estimate the command line checks before building (the blank grid bounds all)."""
    shape = Shape.for_size(n)
    if builder == "hcp-directed":
        return hcp_estimate(n, directed=True)
    if builder in ("hcp-split", "hcp-emit"):
        return hcp_estimate(n, directed=False)
    if builder == "hcp-reduce":
        return hcp_estimate(n, directed=False, reduce=True)
    if builder == "cnf-emit":
        return cnf_estimate(shape)
    return exact_cover_estimate(shape)


def run_child(builder: str, n: int, kind: str, tmp: Path, timeout: float,
              root: Path = ROOT) -> dict:
    """One case in a fresh interpreter, with the code of the checkout ``root``."""
    out = tmp / f"{builder}-{n}-{kind}.out"
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
    try:
        proc = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_builders.py"),
                               "--child", builder, str(n), kind, str(out)],
                              capture_output=True, text=True, timeout=timeout, cwd=root,
                              env=env)
    except subprocess.TimeoutExpired:
        return {"skipped": f"timeout > {timeout:g} s"}
    finally:
        for path in tmp.iterdir():
            path.unlink()
    if proc.returncode != 0:
        raise RuntimeError(f"{builder} {n} {kind}: exit {proc.returncode}: "
                           f"{proc.stderr.strip()[-800:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median_row(runs: list[dict], baseline: int) -> dict:
    """One row from the rounds of a case: the first run's counts, median time and peaks."""
    row = dict(runs[0])
    row["seconds"] = statistics.median(r["seconds"] for r in runs)
    row["stage_peak"] = int(statistics.median(r["stage_peak"] for r in runs))
    row["case_peak"] = int(statistics.median(r["case_hwm"] for r in runs)) - baseline
    row["rounds"] = len(runs) if "rounds" not in row else row["rounds"]
    row["runs"] = len(runs)
    del row["case_hwm"]
    return row


def fit(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of log(y) against log(x) (None below two distinct points)."""
    pairs = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len({p[0] for p in pairs}) < 2:
        return None
    lx, ly = np.array(pairs).T
    return round(float(np.polyfit(lx, ly, 1)[0]), 3)


def exponents(rows: list[dict], fit_from: int) -> list[dict]:
    out = []
    for builder in BUILDERS:
        for kind in ("blank", "half"):
            done = [r for r in rows if r["builder"] == builder and r["kind"] == kind
                    and "skipped" not in r and r["n"] >= fit_from]
            if len(done) < 2:
                continue
            sizes = [r["size"] for r in done]
            ns = [r["n"] for r in done]
            times = [r["seconds"] for r in done]
            peaks = [r["stage_peak"] for r in done]
            out.append({"builder": builder, "kind": kind, "fit_ns": ns,
                        "time_vs_size": fit(sizes, times), "peak_vs_size": fit(sizes, peaks),
                        "time_vs_n": fit(ns, times), "peak_vs_n": fit(ns, peaks),
                        "size_vs_n": fit(ns, sizes)})
    return out


def measure(args: argparse.Namespace) -> dict:
    sizes = [int(s) for s in args.sizes.split(",")]
    builders = [b for b in BUILDERS
                if not args.only or any(b.startswith(o) for o in args.only.split(","))]
    kinds = ("blank", "half") if args.half else ("blank",)
    limit = parse_size(args.max_memory) if args.max_memory else default_limit()
    cases, rows = [], []
    for builder in builders:
        for n in sizes:
            est = estimate_of(builder, n)
            for kind in kinds:
                row = {"builder": builder, "n": n, "kind": kind, "estimate": est.bytes}
                if est.bytes > limit:
                    rows.append(row | {"skipped": f"estimate {format_bytes(est.bytes)} > "
                                                  f"{format_bytes(limit)}"})
                else:
                    cases.append(row)
    runs: dict[int, list[dict]] = {i: [] for i in range(len(cases))}
    before: dict[int, list[dict]] = {i: [] for i in range(len(cases))}
    skipped: dict[int, str] = {}
    baselines = []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for round_ in range(args.rounds):
            baselines.append(run_child("baseline", 0, "blank", tmp, args.timeout)["case_hwm"])
            for i, case in enumerate(cases):
                if i in skipped or (round_ and case["n"] > args.repeat_below
                                    and len(runs[i]) >= 1):
                    continue
                # With --before, which checkout goes first alternates by round: on the
                # 2-core test machine the first of the two runs of a case was often slower
                # (the previous case's memory just freed), which favoured --before.
                old_first = bool(args.before) and round_ % 2 == 1
                if old_first:
                    old = run_child(case["builder"], case["n"], case["kind"], tmp,
                                    args.timeout, args.before)
                got = run_child(case["builder"], case["n"], case["kind"], tmp, args.timeout)
                if "skipped" in got:
                    skipped[i] = got["skipped"]
                else:
                    runs[i].append(got)
                if args.before and "skipped" not in got:
                    if not old_first:
                        old = run_child(case["builder"], case["n"], case["kind"], tmp,
                                        args.timeout, args.before)
                    if "skipped" not in old:
                        before[i].append(old)
                print(f"round {round_ + 1} {case['builder']:<13} N={case['n']:<3} "
                      f"{case['kind']:<6} " + (got.get("skipped") or
                                               f"{got['seconds']:.4f} s, "
                                               f"{format_bytes(got['stage_peak'])}"),
                      flush=True)
    baseline = int(statistics.median(baselines))
    for i, case in enumerate(cases):
        if i in skipped:
            rows.append(case | {"skipped": skipped[i]})
        else:
            row = case | median_row(runs[i], baseline)
            if before[i]:
                old = median_row(before[i], baseline)
                row["before"] = {"seconds": old["seconds"], "stage_peak": old["stage_peak"],
                                 "same_size": old["size"] == row["size"]}
            rows.append(row)
    order = {b: k for k, b in enumerate(BUILDERS)}
    rows.sort(key=lambda r: (order[r["builder"]], r["kind"], r["n"]))
    return {"date": time.strftime("%Y-%m-%d"),
            "machine": f"{platform.machine()}, {multiprocessing.cpu_count()} cores, "
                       f"Python {platform.python_version()}, numpy {np.__version__}",
            "command": "python benchmarks/bench_builders.py " + " ".join(sys.argv[1:]),
            "before": str(args.before) if args.before else None,
            "baseline_rss": baseline, "memory_limit": limit, "fit_from": args.fit_from,
            "rows": rows, "exponents": exponents(rows, args.fit_from)}


def _mb(count: int) -> str:
    return f"{count / 2**20:,.1f}"


def markdown(results: dict) -> str:
    out = [f"# Builders against N ({results['date']}; {results['machine']})", "",
           f"`{results['command']}`", "",
           "Each case in a fresh child process; time and *builder peak* = the builder alone "
           "(its input built first: the directed graph for the 3-split, the 3-split for the "
           "reduction); *case peak* = the child's whole peak RSS minus the interpreter's "
           f"baseline ({_mb(results['baseline_rss'])} MB, measured in the same run). Medians "
           "over interleaved rounds. Size = the builder's output elements (arcs, edges, "
           "literals, nonzeros; for the reduction the edges it is given). Empty grid: prune "
           "none; half (55% of the cells given): prune peers.", "",
           "## Exponents", "",
           f"Least-squares slopes of log(time) and log(builder peak) over N ≥ "
           f"{results['fit_from']} (target ≤ {TARGET_EXPONENT} against the size; 3 against "
           "N is linear in the size, which grows as N³).", "",
           "| builder | grid | N fitted | time ~ size^ | peak ~ size^ | time ~ N^ | peak ~ N^ "
           "| size ~ N^ |", "|---|---|---|---|---|---|---|---|"]
    for e in results["exponents"]:
        out.append(f"| {e['builder']} | {e['kind']} | {','.join(map(str, e['fit_ns']))} | "
                   f"{e['time_vs_size']} | {e['peak_vs_size']} | {e['time_vs_n']} | "
                   f"{e['peak_vs_n']} | {e['size_vs_n']} |")
    out += ["", "## Cases", "",
            "| builder | grid | N | output | size | seconds | ns / element | builder peak MB "
            "| case peak MB | bytes / element | file MB | estimate MB |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["rows"]:
        head = f"| {r['builder']} | {r['kind']} | {r['n']} |"
        if "skipped" in r:
            out.append(f"{head} skipped: {r['skipped']} | | | | | | | | {_mb(r['estimate'])} |")
            continue
        out.append(f"{head} {describe_output(r)} | {r['size']:,} | {r['seconds']:.4f} | "
                   f"{1e9 * r['seconds'] / r['size']:.0f} | {_mb(r['stage_peak'])} | "
                   f"{_mb(r['case_peak'])} | {r['stage_peak'] / r['size']:.1f} | "
                   f"{_mb(r['bytes']) if 'bytes' in r else ''} | {_mb(r['estimate'])} |")
    compared = [r for r in results["rows"] if "before" in r]
    if compared:
        out += ["", f"## Before and after (same run; before = `{results['before']}`)", "",
                "| builder | grid | N | seconds before | seconds after | speed-up | "
                "builder peak MB before | after | same size |",
                "|---|---|---|---|---|---|---|---|---|"]
        for r in compared:
            b = r["before"]
            out.append(f"| {r['builder']} | {r['kind']} | {r['n']} | {b['seconds']:.4f} | "
                       f"{r['seconds']:.4f} | {b['seconds'] / r['seconds']:.2f}× | "
                       f"{_mb(b['stage_peak'])} | {_mb(r['stage_peak'])} | "
                       f"{'yes' if b['same_size'] else 'NO'} |")
    return "\n".join(out) + "\n"


def describe_output(r: dict) -> str:
    b = r["builder"]
    if b == "hcp-reduce":
        return (f"{r['vertices']:,} V → {r['reduced'][0]:,} V / {r['reduced'][1]:,} E, "
                f"{r['status']}, {r['rounds']} rounds")
    if b.startswith("hcp"):
        return f"{r['vertices']:,} V / {r['size']:,} {SIZE_NAMES[b]}"
    if b == "cnf-emit":
        return f"{r['variables']:,} vars / {r['clauses']:,} clauses"
    return f"{r['options']:,} options / {r['items']:,} items"


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="4,9,16,25,36,49,64")
    parser.add_argument("--only", default="",
                        help="comma-separated builder name prefixes (e.g. hcp,cnf)")
    parser.add_argument("--half", action="store_true",
                        help="also the 55%%-filled grid (prune peers)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat-below", type=int, default=64,
                        help="only N up to this are measured every round (default: all)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per case")
    parser.add_argument("--fit-from", type=int, default=25,
                        help="fit the exponents over N from this size up")
    parser.add_argument("--max-memory", help="skip cases estimated above this (e.g. 8G)")
    parser.add_argument("--before", type=Path,
                        help="a checkout of the code before a change: every case is also "
                             "run with it, interleaved, and the ratios reported")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--name", default="builders", help="results file stem")
    args = parser.parse_args()
    results = measure(args)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(results, indent=1) + "\n")
    (args.out / f"{args.name}.md").write_text(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
