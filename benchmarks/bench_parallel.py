"""``solve FILE`` on a file of puzzles: how it scales with ``--jobs``, what the parent process
costs, and ``--json`` against plain text, in the same run.

    python benchmarks/bench_parallel.py [--file FILE] [--jobs 1,2 | --jobs all] [--rounds 1]
        [--baseline REV] [--name parallel]

For each ``--jobs N`` (default 1 and 2; ``all``: 1, 2, 4, … up to ``os.cpu_count()``) and
each mode — ``plain`` (``solve FILE --jobs N``), ``unique`` (``--unique``) and ``json``
(``--json``, with ``plain`` of the same round as its reference) — a fresh process runs
``solvers.cli.program.main([...])`` with its standard output in a temporary file (every
answer is verified by ``solve`` itself; the benchmark checks exit code 0 and one line a
puzzle). That process reports, from ``resource.getrusage``:

* ``startup``: its own CPU time once the interpreter has started, imported what the run
  imports (``solvers.cli.program``, the sat route, numpy, pysat) and built the parser once — a
  fixed cost, whatever the file;
* ``parent``: its own CPU time at the end (start-up included); ``workers``: the CPU time
  of its worker processes (``RUSAGE_CHILDREN``, reaped by the pool);
* ``wall``: the seconds ``main()`` took (start-up excluded), and ``process``: the whole
  process's wall time as seen from here.

The parent's share of the CPU is given two ways: ``parent / (parent + workers)``, and the
same without the fixed start-up. ``--baseline REV`` measures the commit REV alike, from a
temporary ``git worktree`` (removed afterwards), interleaved with this checkout round by
round. Results: ``benchmarks/results/NAME.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FULL = ROOT.parent / "shared" / "data" / "sudoku" / "royle-17clue-49151.txt"
MODES = {"plain": [], "unique": ["--unique"], "json": ["--json"]}


def child(file: str, jobs: int, mode: str, report: str) -> None:
    """One measured run (in a fresh process, the checkout's code on PYTHONPATH)."""
    import importlib
    import resource

    def cpu(who: int) -> float:
        usage = resource.getrusage(who)
        return usage.ru_utime + usage.ru_stime

    try:
        cli = importlib.import_module("solvers.cli.program")
    except ImportError:          # a baseline from before the module had this name
        cli = importlib.import_module("solvers.cli.main")
    for name in ("solvers.cli.sat", "solvers.routes.sat", "solvers.routes.sat_batch", "numpy",
                 "pysat.solvers"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    cli.build_parser()        # once: argparse's first build compiles its patterns
    startup = cpu(resource.RUSAGE_SELF)
    with tempfile.TemporaryFile("w+") as out:
        saved = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            start = time.perf_counter()
            code = cli.main(["solve", file, "--jobs", str(jobs), *MODES[mode]])
            sys.stdout.flush()
            wall = time.perf_counter() - start
        finally:
            os.dup2(saved, 1)
        parent, workers = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
        out.seek(0)
        lines = sum(1 for _ in out)
    Path(report).write_text(json.dumps({"code": code, "lines": lines, "wall": wall,
                                        "startup": startup, "parent": parent,
                                        "workers": workers}))


def measure(checkout: Path, file: Path, jobs: int, mode: str, expect: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child",
                               str(file), str(jobs), mode, str(report)],
                              cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        process = time.perf_counter() - start
        if proc.returncode != 0 or not report.exists():
            raise SystemExit(f"{checkout} --jobs {jobs} {mode}: failed: {proc.stderr[-500:]}")
        result = json.loads(report.read_text())
    if result["code"] != 0 or result["lines"] != expect:
        raise SystemExit(f"{checkout} --jobs {jobs} {mode}: exit {result['code']}, "
                         f"{result['lines']} lines for {expect} puzzles")
    total = result["parent"] + result["workers"]
    own = result["parent"] - result["startup"]
    return {**result, "process": process, "jobs": jobs, "mode": mode,
            "share": result["parent"] / total,
            "share_after_startup": own / (own + result["workers"])}


def count_puzzles(file: Path) -> int:
    with open(file) as handle:
        return sum(1 for line in handle if line.strip() and not line.lstrip().startswith("#"))


def jobs_list(text: str) -> list[int]:
    if text == "all":
        cores, jobs = os.cpu_count() or 1, [1]
        while jobs[-1] * 2 <= cores:
            jobs.append(jobs[-1] * 2)
        return jobs + ([cores] if jobs[-1] != cores else [])
    return [int(part) for part in text.split(",")]


@contextlib.contextmanager
def checkouts(baseline: str | None):
    """(name, path) of this checkout and, with ``baseline``, of a temporary worktree."""
    found = [("this", ROOT)]
    if baseline is None:
        yield found
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path),
                        baseline], check=True)
        try:
            yield found + [(baseline, path)]
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(path)], check=False)


def summarize(runs: list[dict]) -> list[dict]:
    """Median of each figure per (checkout, jobs, mode); ``json`` with its ratio to the
    same round's ``plain``."""
    rows = []
    keys = sorted({(r["checkout"], r["jobs"], r["mode"]) for r in runs},
                  key=lambda k: (k[0] != "this", k[1], list(MODES).index(k[2])))
    for checkout, jobs, mode in keys:
        these = [r for r in runs if (r["checkout"], r["jobs"], r["mode"]) == (checkout, jobs,
                                                                               mode)]
        row = {"checkout": checkout, "jobs": jobs, "mode": mode, "rounds": len(these)}
        for figure in ("wall", "process", "startup", "parent", "workers", "share",
                       "share_after_startup"):
            row[figure] = statistics.median(r[figure] for r in these)
        if mode == "json":
            plain = {p["round"]: p for p in runs
                     if (p["checkout"], p["jobs"], p["mode"]) == (checkout, jobs, "plain")}
            pairs = [(r, plain[r["round"]]) for r in these if r["round"] in plain]
            row["json_over_plain"] = statistics.median(r["wall"] / p["wall"]
                                                       for r, p in pairs) if pairs else None
            row["json_over_plain_cpu"] = statistics.median(
                (r["parent"] + r["workers"]) / (p["parent"] + p["workers"])
                for r, p in pairs) if pairs else None
        rows.append(row)
    return rows


def write(rows: list[dict], meta: dict, name: str) -> None:
    results = ROOT / "benchmarks" / "results"
    (results / f"{name}.json").write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    lines = [f"# solve FILE --jobs N: scaling, parent CPU share, --json vs plain", "",
             f"`python benchmarks/bench_parallel.py {meta['argv']}` — commit {meta['commit']}, "
             f"{meta['puzzles']:,} puzzles of `{meta['file']}`, {meta['cpus']} CPUs, "
             f"{meta['rounds']} round(s) (medians). Load average (1 min) before / after: "
             f"{meta['load'][0]:.2f} / {meta['load'][1]:.2f}. `wall`: seconds in `main()` "
             f"(start-up excluded); `process`: the whole process; CPU seconds from getrusage: "
             f"`startup` (interpreter, imports, one parser build: fixed), `parent` (start-up "
             f"included), "
             f"`workers`; share = parent / (parent + workers), with and without the "
             f"start-up; json / plain: the same round's plain run as reference (wall, and "
             f"CPU of all processes).", "",
             "| checkout | jobs | mode | wall s | process s | startup CPU s | parent CPU s | "
             "workers CPU s | parent share | share after start-up | json / plain wall | "
             "json / plain CPU |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ratio = (f"{r['json_over_plain']:.2f} | {r['json_over_plain_cpu']:.2f}"
                 if r.get("json_over_plain") else " | ")
        lines.append(f"| {r['checkout']} | {r['jobs']} | {r['mode']} | {r['wall']:.2f} | "
                     f"{r['process']:.2f} | {r['startup']:.2f} | {r['parent']:.2f} | "
                     f"{r['workers']:.2f} | {100 * r['share']:.1f} % | "
                     f"{100 * r['share_after_startup']:.1f} % | {ratio} |")
    (results / f"{name}.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=FULL)
    parser.add_argument("--jobs", type=jobs_list, default=[1, 2],
                        help="comma-separated, or 'all' (1, 2, 4, ... up to the CPU count)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--baseline", metavar="REV", help="also measure this commit")
    parser.add_argument("--name", default="parallel")
    args = parser.parse_args()
    if not args.file.is_file():
        raise SystemExit(f"{args.file}: no such file")
    expect = count_puzzles(args.file)
    load = [os.getloadavg()[0]]
    runs = []
    with checkouts(args.baseline) as found:
        for round_ in range(args.rounds):
            for jobs in args.jobs:
                for mode in MODES:
                    for name, path in found:
                        run = measure(path, args.file.resolve(), jobs, mode, expect)
                        runs.append({**run, "checkout": name, "round": round_})
                        print(f"{name} --jobs {jobs} {mode}: wall {run['wall']:.2f} s, parent "
                              f"{run['parent']:.2f} (start-up {run['startup']:.2f}), workers "
                              f"{run['workers']:.2f}, share {100 * run['share']:.1f} % / "
                              f"{100 * run['share_after_startup']:.1f} %", flush=True)
    load.append(os.getloadavg()[0])
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    meta = {"argv": " ".join(sys.argv[1:]), "commit": commit, "file": args.file.name,
            "puzzles": expect, "cpus": os.cpu_count(), "rounds": args.rounds, "load": load,
            "python": platform.python_version(), "runs": runs}
    write(summarize(runs), meta, args.name)


if __name__ == "__main__":
    main()
