"""Cross-check on a Dask cluster against the local pool on the same cores (issue 24).

    python benchmarks/bench_dask.py [--puzzles 600] [--workers 2] [--rounds 3]
        [--routes sat,exact-cover,hcp-directed] [--share-puzzles 5000]

Part 1: ``--puzzles`` puzzles (a seeded sample of ``royle-17clue-49151.txt``) × ``--routes``
through :func:`solvers.crosscheck.run.run_crosscheck`, alternately on a Dask
``LocalCluster(n_workers=k, threads_per_worker=1, processes=True)`` and on ``--jobs k``
(``Execution(jobs=k)``), ``--rounds`` times each, records streamed to a JSON-lines file as
the CLI does. Each Dask round starts a fresh cluster, so that the local rounds run with no Dask
thread in this process; its start is not timed, and its workers import
``solvers.crosscheck.runners`` before the clock starts, as the pool's workers have it from the parent
they are forked from (and a long-lived cluster's workers after its first run). Reported: wall seconds per round, the Dask / local ratio of each round pair and its
median (issue 24's target: ≤ 1.25), and whether every record of every run equals the first
local run's (times apart). Also the parent's share of the CPU of the local runs
(``getrusage`` SELF against CHILDREN: the pool workers are reaped when the run ends).

Part 2 (``--share-puzzles``, 0 to skip): the parent's CPU share of the CLI itself,
``crosscheck FILE --routes sat,exact-cover --jobs k --json OUT`` called in-process
(``solvers.cli.program.main``, stdout to /dev/null) on the first N puzzles of the set — cheap
routes, so the parent's per-record work weighs the most (issue 24's target: ≤ 5 %).

Results: ``benchmarks/results/dask.json`` and ``.md``. Timings on a machine shared with
other work are disturbed: the ratio of a round pair is the figure to read.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import json
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_crosscheck import ROYLE, read_lines  # noqa: E402
from solvers.crosscheck.records import RecordStatus  # noqa: E402
from solvers.crosscheck.run import run_crosscheck  # noqa: E402
from solvers.crosscheck.runners import Execution  # noqa: E402


def cpu() -> tuple[float, float]:
    """(this process's CPU seconds, its reaped children's)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, children.ru_utime + children.ru_stime


def timed_run(puzzles, routes, execution: Execution, out: Path) -> tuple[list, dict]:
    """The records of one run and its wall and CPU seconds (parent and children)."""
    parent0, children0 = cpu()
    start = time.perf_counter()
    records = run_crosscheck(puzzles, routes, execution=execution, results_path=out)
    wall = time.perf_counter() - start
    parent1, children1 = cpu()
    return records, {"wall_s": round(wall, 2), "parent_cpu_s": round(parent1 - parent0, 2),
                     "children_cpu_s": round(children1 - children0, 2)}


def dask_round(puzzles, routes, workers: int, out: Path) -> tuple[list, dict]:
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, host="127.0.0.1") as cluster:
        with Client(cluster) as client:
            client.wait_for_workers(workers)
            client.run(importlib.import_module, "solvers.crosscheck.runners")
            before = client.run(worker_cpu)
            records, times = timed_run(puzzles, routes,
                                       Execution(scheduler=cluster.scheduler_address), out)
            after = client.run(worker_cpu)
    # the workers are reaped only when the cluster closes: their CPU asked of them instead
    times["children_cpu_s"] = round(sum(after.values()) - sum(before.values()), 2)
    return records, times


def worker_cpu() -> float:
    """This process's CPU seconds (run on each Dask worker)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def untimed(records) -> list:
    return [dataclasses.replace(r, seconds=0.0) for r in records]


def compare(puzzles, routes, workers: int, rounds: int) -> dict:
    """Part 1: the rounds, alternating, local first."""
    local_runs, dask_runs, same = [], [], True
    reference = None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.jsonl"
        for round_ in range(rounds):
            for mode in ("local", "dask"):
                if mode == "local":
                    records, times = timed_run(puzzles, routes, Execution(jobs=workers), out)
                    local_runs.append(times)
                else:
                    records, times = dask_round(puzzles, routes, workers, out)
                    dask_runs.append(times)
                reference = reference or untimed(records)
                same = same and untimed(records) == reference
                print(f"round {round_ + 1} {mode}: {times}", flush=True)
    ratios = [d["wall_s"] / l["wall_s"] for l, d in zip(local_runs, dask_runs)]
    cpu_ratios = [(d["parent_cpu_s"] + d["children_cpu_s"])
                  / (l["parent_cpu_s"] + l["children_cpu_s"])
                  for l, d in zip(local_runs, dask_runs)]
    shares = [l["parent_cpu_s"] / (l["parent_cpu_s"] + l["children_cpu_s"])
              for l in local_runs]
    verified = sum(r.status == RecordStatus.SOLVED and r.verified is True for r in reference)
    return {"puzzles": len(puzzles), "routes": routes, "workers": workers,
            "local": local_runs, "dask": dask_runs,
            "ratios": [round(r, 3) for r in ratios],
            "median_ratio": round(statistics.median(ratios), 3),
            "cpu_ratios": [round(r, 3) for r in cpu_ratios],
            "median_cpu_ratio": round(statistics.median(cpu_ratios), 3),
            "local_parent_cpu_share": [round(s, 4) for s in shares],
            "records": len(reference), "verified": verified, "records_identical": same}


def cli_share(lines: list[str], workers: int) -> dict:
    """Part 2: the parent's CPU share of the crosscheck CLI (in-process)."""
    from solvers.cli.program import main
    with tempfile.TemporaryDirectory() as tmp:
        puzzles = Path(tmp) / "puzzles.txt"
        puzzles.write_text("\n".join(lines) + "\n")
        args = ["crosscheck", str(puzzles), "--routes", "sat,exact-cover", "--jobs",
                str(workers), "--json", str(Path(tmp) / "out.jsonl")]
        parent0, children0 = cpu()
        start = time.perf_counter()
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            code = main(args)
        wall = time.perf_counter() - start
        parent1, children1 = cpu()
    parent, children = parent1 - parent0, children1 - children0
    return {"puzzles": len(lines), "routes": ["sat", "exact-cover"], "jobs": workers,
            "exit_code": code, "wall_s": round(wall, 2), "parent_cpu_s": round(parent, 2),
            "children_cpu_s": round(children, 2),
            "parent_share": round(parent / (parent + children), 4)}


def markdown(report: dict) -> str:
    part = report["compare"]
    out = [f"# Dask cluster against the local pool ({report['date']}; {report['machine']})",
           "", f"{part['puzzles']} puzzles (seeded sample of {ROYLE}) × "
           f"{', '.join(part['routes'])}; Dask `LocalCluster({part['workers']} workers × 1 "
           f"thread, processes)` against `--jobs {part['workers']}`, rounds alternating. "
           f"Load average (1 min) {report['load_average_1min'][0]} at the start, "
           f"{report['load_average_1min'][1]} at the end.", "",
           "| round | local wall s | Dask wall s | Dask / local wall | local CPU s "
           "(parent + workers) | Dask CPU s (client and scheduler + workers) | "
           "Dask / local CPU | local parent CPU share |",
           "|---|---|---|---|---|---|---|---|"]
    for i, (l, d) in enumerate(zip(part["local"], part["dask"])):
        out.append(f"| {i + 1} | {l['wall_s']} | {d['wall_s']} | {part['ratios'][i]:.2f} | "
                   f"{l['parent_cpu_s']} + {l['children_cpu_s']} | "
                   f"{d['parent_cpu_s']} + {d['children_cpu_s']} | "
                   f"{part['cpu_ratios'][i]:.2f} | "
                   f"{part['local_parent_cpu_share'][i] * 100:.1f} % |")
    out += ["", f"Median Dask / local: **{part['median_ratio']:.2f}** in wall time (target "
            f"≤ 1.25), **{part['median_cpu_ratio']:.2f}** in CPU time (the Dask scheduler "
            f"runs in this process here, a LocalCluster's). "
            f"{part['records']} records, {part['verified']} verified; every run's records "
            f"identical (times apart): {part['records_identical']}."]
    share = report.get("cli_share")
    if share:
        out += ["", f"Parent CPU share of `crosscheck FILE --routes sat,exact-cover --jobs "
                f"{share['jobs']}` on {share['puzzles']:,} puzzles (in-process CLI, exit "
                f"{share['exit_code']}): parent {share['parent_cpu_s']} s, workers "
                f"{share['children_cpu_s']} s — **{share['parent_share'] * 100:.1f} %** "
                f"(target ≤ 5 %), wall {share['wall_s']} s."]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "sudoku")
    parser.add_argument("--puzzles", type=int, default=600)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--routes", default="sat,exact-cover,hcp-directed")
    parser.add_argument("--share-puzzles", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()

    lines = read_lines(args.data / ROYLE)
    sample = random.Random(args.seed).sample(lines, args.puzzles)
    puzzles = [(f"{i + 1}", text) for i, text in enumerate(sample)]
    load_before = os.getloadavg()[0]
    report = {"date": time.strftime("%Y-%m-%d"),
              "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, "
                         f"Python {platform.python_version()}",
              "compare": compare(puzzles, args.routes.split(","), args.workers, args.rounds)}
    if args.share_puzzles:
        report["cli_share"] = cli_share(lines[:args.share_puzzles], args.workers)
    report["load_average_1min"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "dask.json").write_text(json.dumps(report, indent=1) + "\n")
    (args.out / "dask.md").write_text(markdown(report) + "\n")
    print(markdown(report))


if __name__ == "__main__":
    main()
