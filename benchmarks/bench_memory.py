"""Memory estimates (reductions/*/sizes.py) against the measured peak memory of the commands.

    python benchmarks/bench_memory.py [--quick] [--only PREFIX]

Each case runs one ``sudoku-bridge`` command in a fresh child process
(``benchmarks/memprobe.py``: the peak RSS the command adds, after the command line is
imported) and computes, in this process, the estimate the command checks against
``--max-memory``. The estimate must be above the measurement (ratio ≥ 1) and should stay
within a small factor of it. Results: ``benchmarks/results/memory.json`` and ``memory.md``
(``--only`` replaces the rows it measured and keeps the others).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.formulas import random_3sat  # noqa: E402
from reductions.sudoku.grid import Shape, parse_grid  # noqa: E402
from reductions.nonrepetitive.labelled_graph import LabelledGraph, random_labelled_graph  # noqa: E402
from reductions.nishio.theorem3 import theorem3_instance  # noqa: E402
from reductions.nishio.sizes import (cell_set_reading_estimate, nishio_dag_estimate,  # noqa: E402
                                     nishio_gadget_estimate, nishio_validation_estimate)
from reductions.encodings.sizes import cnf_estimate, exact_cover_estimate, ilp_estimate  # noqa: E402
from reductions.errors import format_bytes  # noqa: E402
from reductions.hamiltonian.sizes import hcp_estimate  # noqa: E402
from reductions.nonrepetitive.sizes import (nr_graph_estimate, nrpath_gadget_estimate,  # noqa: E402
                                            simple_path_estimate)
from reductions.formulas import formula_sat_estimate  # noqa: E402
from solvers.formats.dimacs import read_formula  # noqa: E402
from solvers.formats.labelled_edges import read_labelled_edges, write_labelled_edges  # noqa
from solvers.routes import ROUTES, route_estimate  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def probe(argv: list[str], timeout: float = 900) -> dict:
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "memprobe.py"), "--",
                          *map(str, argv)], capture_output=True, text=True, timeout=timeout,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"{argv}: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def write_inputs(tmp: Path, quick: bool) -> dict[str, Path]:
    files: dict[str, Path] = {}
    for c in (5, 10, 20, 30):
        path = tmp / f"r{c}.cnf"
        path.write_text("\n".join(random_3sat(c, c, seed=1).to_dimacs_lines()) + "\n")
        files[f"r{c}"] = path
    for c in (300, 1000, 2000, 10000, 100000):
        path = tmp / f"n{c}.cnf"
        path.write_text("\n".join(random_3sat(c, c, seed=1).to_dimacs_lines()) + "\n")
        files[f"n{c}"] = path
    for n in (9, 16, 25, 36, 49, 64):
        # A first clue of 10 makes the integer format unambiguous above N = 35.
        values = (["10"] if n >= 10 else ["1"]) + ["0"] * (n * n - 1)
        path = tmp / f"empty{n}.txt"
        path.write_text(" ".join(values) + "\n")
        files[f"empty{n}"] = path
    for m in (10_000, 100_000) if quick else (10_000, 100_000, 1_000_000):
        # Undirected graphs for Theorem 3: 3 labels (K ≈ 1.1m pairs), or every edge its own
        # label (K = 2m, the estimate's bound); vertex m // 2 has no edge, so the search
        # from vertex 0 to it explores everything it reaches.
        graph = random_labelled_graph(m // 2, m, 3, directed=False, seed=m)
        for kind, labels in (("u3", graph.labels), ("uniq", np.arange(m))):
            files[f"{kind}_{m}"] = tmp / f"{kind}_{m}.txt"
            write_labelled_edges(files[f"{kind}_{m}"], LabelledGraph(
                m // 2 + 1, graph.tails, graph.heads, labels, directed=False))
    files["p9"] = ROOT / "instances" / "haythorpe-17clue.txt"
    for n in (16, 25):
        line = next(x for x in (ROOT / "instances" / f"{n}x{n}.txt").read_text().splitlines()
                    if x.strip() and not x.startswith("#"))
        files[f"p{n}"] = tmp / f"p{n}.txt"
        files[f"p{n}"].write_text(line + "\n")
    return files


def shape_of(path: Path) -> Shape:
    return parse_grid(path.read_text(), check=False).shape


def cases(files: dict[str, Path], tmp: Path, quick: bool) -> list[tuple[str, list, object]]:
    """(label, argv, estimate thunk) for every measured command."""
    out: list[tuple[str, list, object]] = []
    formula = {k: read_formula(v) for k, v in files.items() if k[0] in "rn" and k[1:].isdigit()}

    def add(label, argv, estimate):
        out.append((label, argv, estimate))

    # Nishio gadgets.
    for c in (10, 20) if quick else (10, 20, 30):
        f = formula[f"r{c}"]
        add(f"nishio build+write r{c}", ["gadget", "nishio", files[f"r{c}"], "-o", tmp / "S.txt"],
            lambda f=f: nishio_gadget_estimate(f, write=True))
        add(f"nishio build r{c}", ["gadget", "nishio", files[f"r{c}"], "--map", tmp / "S.json"],
            lambda f=f: nishio_gadget_estimate(f))
        add(f"nishio validate thm2 r{c}",
            ["gadget", "nishio", "--validate", files[f"r{c}"], "--variant", "thm2"],
            lambda f=f: nishio_validation_estimate(f).plus(formula_sat_estimate(f)))
    for c in (10,) if quick else (10, 20, 30):
        f = formula[f"r{c}"]
        add(f"nishio validate thm3 r{c}",
            ["gadget", "nishio", "--validate", files[f"r{c}"], "--variant", "thm3"],
            lambda f=f: nishio_validation_estimate(theorem3_instance(f).formula)
            .plus(formula_sat_estimate(f)))
    for c in (5,) if quick else (5, 10):
        f = formula[f"r{c}"]
        add(f"nishio validate thm2 --no-split r{c}",
            ["gadget", "nishio", "--validate", files[f"r{c}"], "--variant", "thm2",
             "--no-split"],
            lambda f=f: nishio_validation_estimate(f, split=False).plus(formula_sat_estimate(f)))
    for c, kind, view in ((10, "svg", "full"), (20, "svg", "full"), (5, "png", "full"),
                          (10, "png", "full"), (10, "png", "core")):
        f = formula[f"r{c}"]
        add(f"nishio picture {kind} {view} r{c}",
            ["gadget", "nishio", files[f"r{c}"], "--picture", tmp / f"S.{kind}", "--view", view],
            lambda f=f, kind=kind, view=view: nishio_gadget_estimate(
                f, picture=kind, picture_cells=_drawn(f, view)))
    # Nishio(S) of a cell-set file (a gadget's S, SAT model with the presolve).
    add("nishio S.txt (r10 gadget)", ["nishio", tmp / "S10.txt", "--decide"],
        lambda: cell_set_reading_estimate((tmp / "S10.txt").stat().st_size))
    for n, box in ((16, Shape(4, 4)), (20, Shape(4, 5)), (20, Shape(5, 4))):
        add(f"nishio dag-sweep {n}x{n} {box}",
            ["nishio", tmp / f"full{n}.txt", "--quiet", "--method", "dag-sweep", "--box",
             f"{box.box_rows}x{box.box_cols}"],
            lambda n=n, box=box: cell_set_reading_estimate(n * (n + 1))
            .plus(nishio_dag_estimate(box)))

    # Theorem 4 gadgets and nr(G).
    for c in (1000, 10000) if quick else (1000, 10000, 100000):
        f = formula[f"n{c}"]
        add(f"nrpath build+write n{c}", ["gadget", "nrpath", files[f"n{c}"], "-o",
                                         tmp / f"G{c}.txt"],
            lambda f=f: nrpath_gadget_estimate(f))
    for c in (300, 1000) if quick else (300, 1000, 2000):
        f = formula[f"n{c}"]
        add(f"nrpath validate n{c}", ["gadget", "nrpath", "--validate", files[f"n{c}"]],
            lambda f=f: nrpath_gadget_estimate(f, validate=True).plus(formula_sat_estimate(f)))
    for c in (1000, 10000) if quick else (1000, 10000, 100000):
        add(f"nonrepetitive --cyclic-edges n{c}",
            ["nonrepetitive", tmp / f"G{c}.txt", "--cyclic-edges"],
            lambda c=c: _nr_estimate(tmp / f"G{c}.txt"))
    add("nonrepetitive --path --simple n300",
        ["nonrepetitive", tmp / "G300.txt", "--path", "--simple"],
        lambda: _nr_estimate(tmp / "G300.txt", simple=True))
    for m in (10_000, 100_000) if quick else (10_000, 100_000, 1_000_000):
        for kind in ("u3", "uniq"):
            if kind == "uniq" and m > 100_000:
                continue
            add(f"nonrepetitive undirected --path --simple {kind} m{m}",
                ["nonrepetitive", files[f"{kind}_{m}"], "--path", "0", str(m // 2),
                 "--simple"],
                lambda m=m: simple_path_estimate(m // 2 + 1, m))
    add("nonrepetitive undirected --simple-cyclic-edges u3 m10000",
        ["nonrepetitive", files["u3_10000"], "--simple-cyclic-edges"],
        lambda: simple_path_estimate(5001, 10_000, cycles=True))

    # Haythorpe's graph.
    for n in (16, 25) if quick else (16, 25, 36):
        p = files[f"empty{n}"]
        for label, flags, kw in (("directed", ["--directed"], {"directed": True}),
                                 ("undirected", [], {"directed": False}),
                                 ("triple", ["--triple"], {"directed": False, "triple": True}),
                                 ("reduced", ["--reduce", "--prune", "peers"],
                                  {"directed": False, "reduce": True})):
            add(f"emit hcp {label} {n}", ["emit", "hcp", p, "-o", tmp / "g.hcp", *flags],
                lambda n=n, kw=kw: hcp_estimate(n, **kw))
    for name in ("p9", "p16") if quick else ("p9", "p16", "p25"):
        for via in ("hcp", "hcp-undirected"):
            add(f"solve --via {via} {name}", ["solve", files[name], "--via", via],
                lambda name=name, via=via: route_estimate(ROUTES[via], shape_of(files[name]), {}))

    # CNF, exact cover, ILP.
    for n in (25, 36) if quick else (25, 36, 64):
        add(f"emit cnf {n}", ["emit", "cnf", files[f"empty{n}"], "-o", tmp / "o.cnf"],
            lambda n=n: cnf_estimate(shape_of(files[f"empty{n}"])))
    for n in (16, 25) if quick else (16, 25, 36):
        add(f"emit cnf pairwise {n}", ["emit", "cnf", files[f"empty{n}"], "-o", tmp / "o.cnf",
                                        "--amo", "pairwise"],
            lambda n=n: cnf_estimate(shape_of(files[f"empty{n}"]), amo="pairwise"))
        add(f"emit cnf eliminate {n}", ["emit", "cnf", files[f"empty{n}"], "-o", tmp / "o.cnf",
                                         "--clues", "eliminate"],
            lambda n=n: cnf_estimate(shape_of(files[f"empty{n}"]), clues="eliminate"))
        add(f"emit exact-cover {n}", ["emit", "exact-cover", files[f"empty{n}"], "-o",
                                       tmp / "o.dlx"],
            lambda n=n: exact_cover_estimate(shape_of(files[f"empty{n}"])))
        add(f"emit ilp {n}", ["emit", "ilp", files[f"empty{n}"], "-o", tmp / "o.lp"],
            lambda n=n: ilp_estimate(shape_of(files[f"empty{n}"])))
    for name in ("p16", "p25", "empty16", "empty25") if not quick else ("p16", "empty16"):
        for via in ("sat", "sat-glucose", "exact-cover", "exact-cover-dlx"):
            add(f"solve --via {via} {name}", ["solve", files[name], "--via", via,
                                              "--time-limit", "20"],
                lambda name=name, via=via: route_estimate(ROUTES[via], shape_of(files[name]), {}))
    for name in ("p16", "p25", "empty16"):
        add(f"solve --via ilp {name}", ["solve", files[name], "--via", "ilp"],
            lambda name=name: route_estimate(ROUTES["ilp"], shape_of(files[name]), {}))
    return out


def _drawn(formula, view: str) -> int:
    """Grid cells a picture draws: the whole n²×n² grid, or the gadget rows × columns."""
    from reductions.nishio.gadget import theorem_order
    side = (2 * sum(len(c) for c in formula.clauses) + formula.num_clauses if view == "core"
            else theorem_order(formula) ** 2)
    return side * side


def _nr_estimate(path: Path, simple: bool = False):
    graph = read_labelled_edges(path).graph
    return nr_graph_estimate(graph.num_vertices, graph.num_arcs, simple=simple)


def prepare(files: dict[str, Path], tmp: Path) -> None:
    """Inputs made by the commands themselves (a gadget's S, gadget graphs)."""
    probe(["gadget", "nishio", files["r10"], "-o", tmp / "S10.txt"])
    for n in (16, 20):
        (tmp / f"full{n}.txt").write_text(("#" * n + "\n") * n)
    for c in (300, 1000, 10000, 100000):
        probe(["gadget", "nrpath", files[f"n{c}"], "-o", tmp / f"G{c}.txt"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smaller sizes only")
    parser.add_argument("--only", default="", help="only cases whose label starts with this")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        files = write_inputs(tmp, args.quick)
        prepare(files, tmp)
        for label, argv, estimate in cases(files, tmp, args.quick):
            if not label.startswith(args.only):
                continue
            measured = probe(argv)
            if measured["code"] not in (0, 1, 3):           # 3: unknown at the time limit
                raise RuntimeError(f"{label}: exit {measured['code']}: "
                                   f"{measured['stdout_tail']}")
            est = estimate()
            ratio = est.bytes / max(measured["peak_rss"], 1)
            row = {"case": label, "measured_bytes": measured["peak_rss"],
                   "estimate_bytes": est.bytes, "ratio": round(ratio, 2),
                   "seconds": measured["seconds"], "what": est.what}
            rows.append(row)
            print(f"{label:<42} measured {format_bytes(row['measured_bytes']):>10}  "
                  f"estimate {format_bytes(est.bytes):>10}  x{ratio:5.2f}  "
                  f"{measured['seconds']:7.2f} s", flush=True)
    under = [r for r in rows if r["ratio"] < 1]
    measured_now = len(rows)
    RESULTS.mkdir(exist_ok=True)
    meta = {"date": str(date.today()), "python": platform.python_version(),
            "machine": platform.machine()}
    if args.only and (RESULTS / "memory.json").exists():
        # A partial run replaces its own rows and keeps the others (and their date).
        saved = json.loads((RESULTS / "memory.json").read_text())
        fresh = {r["case"]: r for r in rows}
        kept = [fresh.pop(r["case"], r) for r in saved["rows"]]
        rows, meta = kept + list(fresh.values()), {k: saved[k] for k in meta}
        meta["date"] = f"{meta['date']}; rows '{args.only}*' {date.today()}"
    if rows:
        (RESULTS / "memory.json").write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
        lines = [f"# Memory estimates against measured peaks ({meta['date']}, Python "
                 f"{meta['python']}, {meta['machine']})", "",
                 "Peak RSS added by each command in a fresh process (`benchmarks/memprobe.py`) "
                 "and the estimate it checks against `--max-memory` (`reductions/*/sizes.py`).",
                 "", "| case | measured | estimate | estimate / measured | seconds |",
                 "|---|---|---|---|---|"]
        lines += [f"| {r['case']} | {format_bytes(r['measured_bytes'])} | "
                  f"{format_bytes(r['estimate_bytes'])} | {r['ratio']:.2f} | {r['seconds']} |"
                  for r in rows]
        (RESULTS / "memory.md").write_text("\n".join(lines) + "\n")
    print(f"{measured_now} cases; {len(under)} estimates below the measurement"
          + (": " + ", ".join(r["case"] for r in under) if under else ""))


if __name__ == "__main__":
    main()
