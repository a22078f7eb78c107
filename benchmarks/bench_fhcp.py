"""The FHCP Challenge Set through the ``hamiltonian`` command's solvers, in the same run, beside
the published times of the SAT-based CEGAR solver.

    python benchmarks/bench_fhcp.py --graphs DIR [--range 1-200 | A-B:STEP] [--time-limit 60]
        [--jobs 2] [--solvers sat,sat-plain,lkh,cpsat] [--cegar-csv FILE] [--name NAME]

``DIR`` holds ``graph1.col`` … ``graph1001.col`` (repository TakehideSoh/SAT-based-CEGAR,
folder ``FHCPCS-col``; 88 MB, never committed — e.g. ``git archive`` of a clone into
/work/fhcp). Solvers (each graph and solver one task of
:func:`solvers.tools.graph_runs.run_graph_task`: read, solve, tour checked):

* ``sat`` — the command's default, the portfolio of :mod:`solvers.hamiltonian.portfolio`;
* ``sat-plain`` — the one-off SAT cut loop the Sudoku routes use (``portfolio=False``):
  the solver before this benchmark existed, for before/after in one run;
* ``lkh`` — LKH-3 (a binary on PATH, or the elkai package); ``cpsat`` — OR-Tools.

A solver that cannot run here is reported 'not available'. The published CEGAR time per
graph is read from the repository's ``data/proposed-cegar-ccadical-cpu.csv`` (default
``DIR/../data/``): column ``proposed-cegar-ffi-2loop-lowest-asymmetry3-2opt3-cadical`` (all
of the paper's options; 1,800 s limit, their machine — a yardstick, not the same run), and the
virtual best of their configurations (``VBS``).

Results: ``benchmarks/results/NAME.jsonl`` (a record per graph and solver), ``NAME.md``
(solved counts and median times per solver, the per-graph table) and ``NAME.png`` (cactus
plot: graphs solved within t seconds; needs matplotlib).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import statistics
import sys
from concurrent.futures import as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solvers.tools.graph_runs import GraphTask, run_graph_task  # noqa: E402
from solvers.runtime.processes import worker_pool  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
CEGAR_COLUMN = "proposed-cegar-ffi-2loop-lowest-asymmetry3-2opt3-cadical"
SOLVED = ("hamiltonian", "no cycle")


def parse_range(text: str) -> list[int]:
    """``A-B`` (A to B), ``A`` (one graph) or ``A-B:STEP`` (every STEP-th graph from A: a
    sample of a range too long to run whole)."""
    span, _, step = text.partition(":")
    first, _, last = span.partition("-")
    return list(range(int(first), int(last or first) + 1, int(step or 1)))


def read_cegar(path: Path) -> dict[int, dict[str, float | None]]:
    """Graph number -> {'cegar': seconds or None (timed out), 'vbs': ...}."""
    if not path.exists():
        return {}
    with open(path, encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    head = rows[0]

    def seconds(text: str) -> float | None:
        try:
            return float(text)
        except ValueError:
            return None                      # "TO": over their 1,800 s
    columns = {"cegar": head.index(CEGAR_COLUMN), "vbs": head.index("VBS")}
    return {int(row[0]): {k: seconds(row[i]) for k, i in columns.items()}
            for row in rows[1:] if row and row[0].isdigit()}


def tasks_for(graphs: Path, numbers: list[int], solvers: list[str],
              time_limit: float) -> list[tuple[int, str, GraphTask]]:
    tasks = []
    for number in numbers:
        path = str(graphs / f"graph{number}.col")
        for solver in solvers:
            plain = solver == "sat-plain"
            tasks.append((number, solver, GraphTask(path=path, solver="sat" if plain else solver,
                                                    time_limit=time_limit,
                                                    portfolio=not plain)))
    return tasks


def _run_one(item: tuple[int, str, GraphTask]) -> dict:
    number, solver, task = item
    record = run_graph_task(task)
    record.pop("tour", None)                 # checked in the worker; not kept here
    return {**record, "graph": number, "solver": solver}


def run_all(items, jobs: int, out: Path) -> list[dict]:
    records = []
    with open(out, "w") as stream, worker_pool(jobs) as pool:
        futures = [pool.submit(_run_one, item) for item in items]
        for done, future in enumerate(as_completed(futures), 1):
            record = future.result()
            records.append(record)
            stream.write(json.dumps(record) + "\n")
            stream.flush()
            print(f"\r{done}/{len(futures)} graph {record['graph']} {record['solver']}: "
                  f"{record['status']} {record.get('seconds', 0):.2f} s      ", end="",
                  file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return records


def summary(records: list[dict], solvers: list[str], cegar: dict, numbers: list[int],
            time_limit: float) -> list[str]:
    lines = ["| solver | solved | no cycle | unknown | not available / error | median s "
             "(solved) | total s |", "|---|---|---|---|---|---|---|"]
    for solver in solvers:
        mine = [r for r in records if r["solver"] == solver]
        solved = [r for r in mine if r["status"] in SOLVED]
        times = [r["seconds"] for r in solved]
        other = sum(r["status"] not in (*SOLVED, "unknown") for r in mine)
        lines.append(f"| {solver} | {len(solved)} / {len(mine)} | "
                     f"{sum(r['status'] == 'no cycle' for r in mine)} | "
                     f"{sum(r['status'] == 'unknown' for r in mine)} | {other} | "
                     f"{statistics.median(times) if times else float('nan'):.3f} | "
                     f"{sum(r.get('seconds', 0) for r in mine):.1f} |")
    for key, label in (("cegar", "CEGAR (published, all options)"), ("vbs", "CEGAR VBS "
                                                                             "(published)")):
        times = [cegar[n][key] for n in numbers if n in cegar and cegar[n][key] is not None
                 and cegar[n][key] <= time_limit]
        if cegar:
            lines.append(f"| {label} | {len(times)} / {len(numbers)} within {time_limit:g} s "
                         f"| | | | {statistics.median(times) if times else float('nan'):.3f} "
                         f"| |")
    return lines


def per_graph(records: list[dict], solvers: list[str], cegar: dict,
              numbers: list[int]) -> list[str]:
    by = {(r["graph"], r["solver"]): r for r in records}
    lines = ["| graph | vertices | " + " | ".join(solvers) + " | CEGAR published |",
             "|---|---|" + "---|" * (len(solvers) + 1)]
    for n in numbers:
        cells = []
        for solver in solvers:
            r = by.get((n, solver))
            if r is None:                    # merged runs: this solver not run on n
                cells.append("—")
                continue
            status = {"hamiltonian": "", "no cycle": "no cycle ", "unknown": "unknown "}.get(
                r.get("status"), f"{r.get('status')} ")
            cells.append(f"{status}{r.get('seconds', 0):.2f}")
        vertices = next((by[(n, s)].get("vertices") for s in solvers if (n, s) in by), "")
        published = cegar.get(n, {}).get("cegar")
        cells.append("TO" if n in cegar and published is None else f"{published}")
        lines.append(f"| {n} | {vertices} | " + " | ".join(cells) + " |")
    return lines


def cactus(records: list[dict], solvers: list[str], cegar: dict, numbers: list[int],
           time_limit: float, path: Path) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    curves = {s: [r["seconds"] for r in records if r["solver"] == s and r["status"] in SOLVED]
              for s in solvers}
    curves["CEGAR (published)"] = [cegar[n]["cegar"] for n in numbers if n in cegar
                                   and cegar[n]["cegar"] is not None
                                   and cegar[n]["cegar"] <= time_limit]
    for label, times in curves.items():
        times = sorted(max(t, 1e-3) for t in times)
        ax.step(times, range(1, len(times) + 1), where="post", label=f"{label} ({len(times)})",
                linestyle="--" if label.startswith("CEGAR") else "-")
    ax.set_xscale("log")
    ax.set_xlabel("seconds per graph")
    ax.set_ylabel(f"graphs solved (of {len(numbers)})")
    ax.set_title(f"FHCP graphs {numbers[0]}-{numbers[-1]}, limit {time_limit:g} s")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=Path, required=True)
    parser.add_argument("--range", default="1-200")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--solvers", default="sat,sat-plain,lkh,cpsat")
    parser.add_argument("--cegar-csv", type=Path)
    parser.add_argument("--name")
    parser.add_argument("--report-only", action="store_true",
                        help="rebuild NAME.md and NAME.png from NAME.jsonl (e.g. of a run "
                             "stopped at a bound, or of runs merged: a graph is kept when "
                             "some solver has its record)")
    parser.add_argument("--note", default="",
                        help="a sentence added to the report's header (which runs were "
                             "merged, the machine's load)")
    args = parser.parse_args()
    numbers = parse_range(args.range)
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    missing = [n for n in numbers if not (args.graphs / f"graph{n}.col").is_file()]
    if missing:
        print(f"bench_fhcp: no {args.graphs}/graph{missing[0]}.col", file=sys.stderr)
        return 2
    cegar = read_cegar(args.cegar_csv or args.graphs.parent / "data"
                       / "proposed-cegar-ccadical-cpu.csv")
    name = args.name or f"fhcp_{numbers[0]}-{numbers[-1]}"
    RESULTS.mkdir(exist_ok=True)
    if args.report_only:
        with open(RESULTS / f"{name}.jsonl") as handle:
            records = [json.loads(line) for line in handle if line.strip().endswith("}")]
        done = {r["graph"] for r in records}
        numbers = [n for n in numbers if n in done]
        records = [r for r in records if r["graph"] in numbers]
    else:
        records = run_all(tasks_for(args.graphs, numbers, solvers, args.time_limit),
                          args.jobs, RESULTS / f"{name}.jsonl")
    records.sort(key=lambda r: (r["graph"], solvers.index(r["solver"])))
    with open(RESULTS / f"{name}.jsonl", "w") as out:
        out.writelines(json.dumps(r) + "\n" for r in records)
    head = [f"# FHCP graphs {args.range}, {args.time_limit:g} s per graph and solver"
            + (f" ({len(numbers)} graphs with records)" if args.report_only else ""),
            "", f"`python benchmarks/bench_fhcp.py --graphs DIR --range {args.range} "
            f"--time-limit {args.time_limit:g} --jobs {args.jobs} --solvers "
            f"{','.join(solvers)}` on {platform.node()} ({os.cpu_count()} cores, "
            f"Python {platform.python_version()}); every tour checked against the graph. "
            f"CEGAR: the published times (their machine, 1,800 s limit), counted within "
            f"{args.time_limit:g} s." + (f" {args.note}" if args.note else ""), ""]
    plotted = cactus(records, solvers, cegar, numbers, args.time_limit,
                     RESULTS / f"{name}.png")
    text = head + summary(records, solvers, cegar, numbers, args.time_limit) + [""]
    text += [f"![cactus plot]({name}.png)", ""] if plotted else []
    text += per_graph(records, solvers, cegar, numbers)
    (RESULTS / f"{name}.md").write_text("\n".join(text) + "\n")
    print("\n".join(summary(records, solvers, cegar, numbers, args.time_limit)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
