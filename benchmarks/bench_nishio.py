"""Nishio gadgets and Nishio(S) solvers: sizes and times.

    python benchmarks/bench_nishio.py [--quick] [--seeds 3] [--puzzles FILE]

1. Gadgets (Eppstein 2012, Theorems 2 and 3) for random 3-SAT with v ≤ 10 variables and
   c ≤ 20 clauses (all satisfiable at these sizes) and for the fixed examples
   ``instances/formulas/nishio-*.cnf`` (both answers): order n, grid side n², |S|, time to
   build S, to write S.txt, and to validate (placement model with the independent-parts
   presolve: decide, extract, map forward; and the Theorem 3 instance: non-empty, v0's false
   cells ⇔ satisfiable). For the smaller grids also the pure SAT model (every cell of S a
   variable).
2. Nishio(S) per call on random cell sets at 9×9 and 16×16 by each method: the DAG (§3; one
   DFS as in the paper, and the same DAG by two array sweeps), pattern overlay (9×9 only),
   the SAT model (shared solver, assumptions) with and without the presolve. Every answer is
   compared with the DAG's.
3. Nishio(S) on real candidate sets: for each puzzle of a file (default: the shipped
   ``instances/forum-hardest-sample100.txt``) and each digit, S = the cells holding the digit
   plus the empty cells none of whose peers holds it; time per call and cells eliminated.

Results: ``benchmarks/results/nishio.json`` and ``nishio.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.formulas import from_dimacs_clauses, random_3sat  # noqa: E402
from reductions.sudoku.grid import Shape  # noqa: E402
from reductions.sudoku.puzzle_files import read_puzzles  # noqa: E402
from reductions.nishio.placements import CellSet, all_placements, nishio_overlay, random_cell_set  # noqa: E402
from reductions.nishio.dag import nishio_dag, nishio_dag_sweep, placement_dag  # noqa: E402
from reductions.nishio.gadget import (assignment_from_placement, nishio_gadget,  # noqa: E402
                                      placement_from_assignment)
from reductions.nishio.theorem3 import theorem3_gadget, v0_false_cells  # noqa: E402
from solvers.formats.cellset import write_cell_set  # noqa: E402
from solvers.formats.dimacs import read_cnf  # noqa: E402
from solvers.gadgets.nishio import PlacementModel, formula_model  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


# ----------------------------------------------------------------------------- 1. gadgets

def validate_theorem2(formula, gadget, model) -> None:
    with PlacementModel(gadget.cells) as placements:
        placement = placements.find()
    assert (placement is not None) == (model is not None)
    if placement is not None:
        assert formula.is_satisfied_by(assignment_from_placement(gadget, placement).assignment)
        placement_from_assignment(gadget, model)


def pure_sat(gadget, model) -> dict:
    with PlacementModel(gadget.cells, split=False) as placements:
        found = placements.find() is not None
        stats = placements.stats
    assert found == (model is not None)
    return stats


def validate_theorem3(formula, model) -> tuple[int, int]:
    instance, gadget = theorem3_gadget(formula)
    false_cells = v0_false_cells(instance, gadget)
    with PlacementModel(gadget.cells) as placements:
        assert placements.find() is not None
        through = placements.find(false_cells[0])
    assert (through is not None) == (model is not None)
    return gadget.order, gadget.cells.count()


def gadget_row(name: str, formula, pure_limit: int) -> dict:
    model = formula_model(formula)
    gadget, build = timed(nishio_gadget, formula)
    with tempfile.TemporaryDirectory() as tmp:
        _, write = timed(write_cell_set, Path(tmp) / "S.txt", gadget.cells)
    _, validate = timed(validate_theorem2, formula, gadget, model)
    row = {"formula": name, "v": formula.num_vars, "c": formula.num_clauses,
           "sat": model is not None,
           "n": gadget.order, "side": gadget.shape.size, "cells": gadget.cells.count(),
           "gadget_cells": 6 * gadget.occurrences, "build_s": round(build, 4),
           "write_s": round(write, 4), "validate_s": round(validate, 4)}
    if gadget.order <= pure_limit:
        stats, seconds = timed(pure_sat, gadget, model)
        row.update(pure_s=round(seconds, 3), pure_variables=stats["sat_variables"],
                   pure_clauses=stats["clauses"])
    del gadget                                   # free the grid before the 4x bigger one
    (n3, cells3), seconds3 = timed(validate_theorem3, formula, model)
    row.update(thm3_n=n3, thm3_side=n3 * n3, thm3_cells=cells3, thm3_s=round(seconds3, 3))
    return row


def bench_gadgets(sizes, seeds: int, pure_limit: int, files: list[Path]) -> list[dict]:
    formulas = [(f"random 3-SAT seed {seed}", random_3sat(v, c, seed=seed))
                for v, c in sizes for seed in range(seeds)]
    for path in files:
        cnf = read_cnf(path)
        formulas.append((path.name, from_dimacs_clauses(cnf.num_vars, cnf.clauses, 3)))
    rows = []
    for name, formula in formulas:
        row = gadget_row(name, formula, pure_limit)
        rows.append(row)
        print(f"gadget {name} v={row['v']} c={row['c']}: n={row['n']} |S|={row['cells']:,} "
              f"build {row['build_s']} s validate {row['validate_s']} s "
              f"thm3 n={row['thm3_n']} {row['thm3_s']} s"
              + (f" pure {row['pure_s']} s" if "pure_s" in row else ""), flush=True)
    return rows


# ----------------------------------------------------------------------------- 2. Nishio(S)

def bench_methods(shape: Shape, count: int, seed: int) -> dict:
    rng = random.Random(seed)
    instances = [random_cell_set(shape, rng, placements=rng.randint(0, 3),
                                 density=rng.random() * 0.4) for _ in range(count)]
    _, dag_build = timed(placement_dag, shape)
    out = {"shape": str(shape), "size": shape.size, "instances": count,
           "dag_vertices": placement_dag(shape).num_vertices,
           "dag_arcs": placement_dag(shape).num_arcs, "dag_build_s": round(dag_build, 4),
           "nonempty": 0, "per_call_ms": {}}
    reference = []
    times = []
    for cells in instances:
        kept, seconds = timed(nishio_dag, cells)
        reference.append(kept)
        times.append(seconds)
    out["nonempty"] = sum(k.count() > 0 for k in reference)
    out["per_call_ms"]["dag"] = summary(times)
    nishio_dag_sweep(instances[0])                 # build the arrays once, outside the timing
    methods = {"dag (sweep)": nishio_dag_sweep, "sat": lambda s: _sat(s, True),
               "sat (no presolve)": lambda s: _sat(s, False)}
    if shape.size <= 9:
        _, enum = timed(all_placements, shape)
        out["overlay_placements"] = len(all_placements(shape))
        out["overlay_enumerate_s"] = round(enum, 4)
        methods = {"overlay": nishio_overlay, **methods}
    for name, method in methods.items():
        times = []
        for cells, expected in zip(instances, reference):
            kept, seconds = timed(method, cells)
            assert kept == expected, name
            times.append(seconds)
        out["per_call_ms"][name] = summary(times)
    return out


def _sat(cells: CellSet, split: bool) -> CellSet:
    with PlacementModel(cells, split=split) as model:
        return model.nishio()


def summary(seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    return {"mean": round(statistics.fmean(ms), 3), "median": round(statistics.median(ms), 3),
            "max": round(max(ms), 3)}


# ----------------------------------------------------------------------------- 3. real sets

def candidate_sets(values: np.ndarray, shape: Shape) -> list[CellSet]:
    """S_d for every digit d: cells holding d, and empty cells with no peer holding d."""
    n = shape.size
    blocks = shape.block_index_array()
    sets = []
    for d in range(1, n + 1):
        has = values == d
        row_has = has.any(axis=1)
        col_has = has.any(axis=0)
        block_has = np.zeros(n, dtype=bool)
        block_has[np.unique(blocks[has])] = True
        free = (values == 0) & ~row_has[:, None] & ~col_has[None, :] & ~block_has[blocks]
        sets.append(CellSet(has | free, shape))
    return sets


def bench_puzzles(path: Path, limit: int | None) -> dict:
    grids = [g for _, g in read_puzzles(path)][:limit]
    sets = [s for g in grids for s in candidate_sets(g.values, g.shape)]
    out = {"file": path.name, "puzzles": len(grids), "candidate_sets": len(sets),
           "per_call_ms": {}}
    reference, times = [], []
    for cells in sets:
        kept, seconds = timed(nishio_dag, cells)
        reference.append(kept)
        times.append(seconds)
    out["per_call_ms"]["dag"] = summary(times)
    out["sets_with_eliminations"] = sum(k != s for k, s in zip(reference, sets))
    out["cells_eliminated"] = sum(s.count() - k.count() for k, s in zip(reference, sets))
    out["candidate_cells"] = sum(s.count() for s in sets)
    for name, method in (("dag (sweep)", nishio_dag_sweep), ("overlay", nishio_overlay),
                         ("sat", lambda s: _sat(s, True))):
        times = []
        for cells, expected in zip(sets, reference):
            kept, seconds = timed(method, cells)
            assert kept == expected
            times.append(seconds)
        out["per_call_ms"][name] = summary(times)
    return out


# ----------------------------------------------------------------------------- report

def markdown(results: dict) -> str:
    lines = [f"# Nishio benchmark ({results['date']}; {results['machine']})", "",
             "## Gadgets (Theorem 2, and Theorem 3's instance): random 3-SAT and fixed examples",
             "",
             "Validate = placement model with the independent-parts presolve (decide, extract, "
             "map forward); pure SAT = every cell of S a SAT variable (decide only).", "",
             "| formula | v | c | SAT | n | grid | \\|S\\| | gadget cells | build s | "
             "write S.txt s | validate s | pure SAT s (vars / clauses) | Thm 3 n | Thm 3 grid | "
             "Thm 3 \\|S'\\| | Thm 3 validate s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["gadgets"]:
        pure = (f"{r['pure_s']} ({r['pure_variables']:,} / {r['pure_clauses']:,})"
                if "pure_s" in r else "")
        answer = "yes" if r["sat"] else "no"
        lines.append(f"| {r['formula']} | {r['v']} | {r['c']} | {answer} | {r['n']} | "
                     f"{r['side']}×{r['side']} | {r['cells']:,} | {r['gadget_cells']} | "
                     f"{r['build_s']} | {r['write_s']} | {r['validate_s']} | {pure} | "
                     f"{r['thm3_n']} | {r['thm3_side']}×{r['thm3_side']} | "
                     f"{r['thm3_cells']:,} | {r['thm3_s']} |")
    lines += ["", "## Nishio(S) per call on random cell sets (ms; mean / median / max)", "",
              "| grid | sets | non-empty | DAG vertices / arcs | method | mean | median | max |",
              "|---|---|---|---|---|---|---|---|"]
    for m in results["methods"]:
        for name, t in m["per_call_ms"].items():
            lines.append(f"| {m['size']}×{m['size']} ({m['shape']}) | {m['instances']} | "
                         f"{m['nonempty']} | {m['dag_vertices']:,} / {m['dag_arcs']:,} | {name} | "
                         f"{t['mean']} | {t['median']} | {t['max']} |")
    lines.append("")
    for m in results["methods"]:
        extra = (f"; overlay list of {m['overlay_placements']:,} placements built in "
                 f"{m['overlay_enumerate_s']} s" if "overlay_placements" in m else "")
        lines.append(f"- {m['size']}×{m['size']}: DAG built once in {m['dag_build_s']} s{extra}.")
    if results.get("puzzles"):
        p = results["puzzles"]
        lines += ["", f"## Nishio(S) on real candidate sets ({p['file']}: {p['puzzles']} "
                      f"puzzles × 9 digits = {p['candidate_sets']} sets)", "",
                  f"S = cells holding the digit + empty cells with no peer holding it "
                  f"({p['candidate_cells']:,} cells in all); Nishio removes "
                  f"{p['cells_eliminated']:,} more cells in {p['sets_with_eliminations']} of "
                  f"the sets.", "", "| method | mean ms | median ms | max ms |",
                  "|---|---|---|---|"]
        for name, t in p["per_call_ms"].items():
            lines.append(f"| {name} | {t['mean']} | {t['median']} | {t['max']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (seconds)")
    parser.add_argument("--seeds", type=int, default=2, help="formulas per (v, c) (default 2)")
    parser.add_argument("--instances", type=int, default=1000,
                        help="random cell sets per grid size (default 1000; 16×16: a fifth)")
    parser.add_argument("--puzzles", type=Path,
                        default=ROOT / "instances" / "forum-hardest-sample100.txt")
    parser.add_argument("--pure-limit", type=int, default=25,
                        help="run the pure SAT model up to this order n (default 25)")
    args = parser.parse_args()
    files = sorted((ROOT / "instances" / "formulas").glob("nishio-*.cnf"))
    if args.quick:
        sizes = [(3, 1), (5, 3), (5, 6)]
        args.seeds, args.instances, files = 1, 100, files[:2]
    else:
        sizes = [(3, 1), (3, 2), (5, 3), (5, 6), (5, 8), (10, 10), (10, 15), (10, 20)]
    results = {"date": date.today().isoformat(),
               "machine": f"{platform.machine()}, Python {platform.python_version()}",
               "gadgets": bench_gadgets(sizes, args.seeds, args.pure_limit, files),
               "methods": [bench_methods(Shape(3, 3), args.instances, 1),
                           bench_methods(Shape(4, 4), max(20, args.instances // 5), 2)]}
    for m in results["methods"]:
        print(m["size"], {k: v["mean"] for k, v in m["per_call_ms"].items()}, flush=True)
    results["puzzles"] = bench_puzzles(args.puzzles, 20 if args.quick else None)
    print(results["puzzles"], flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "nishio.json").write_text(json.dumps(results, indent=1) + "\n")
    (RESULTS / "nishio.md").write_text(markdown(results))
    print(f"wrote {RESULTS / 'nishio.md'}")


if __name__ == "__main__":
    main()
