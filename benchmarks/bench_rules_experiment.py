"""Eppstein's experiment (2005 §3.6) redone: generate puzzles as the paper did and grade them
with the rules.

    PYTHONPATH=. python benchmarks/bench_rules_experiment.py [--count 2000] [--seed 2005]
        [--jobs 2] [--records FILE] [--from-records FILE] [--no-shipped]

Puzzles: ``sudoku-bridge generate --symmetric`` (:mod:`reductions.rules.generator`: random
symmetric placements propagated by the singles, symmetric pairs removed in order while SAT
proves uniqueness), puzzle k of the seed for k < ``--count``, on ``--jobs`` processes. The
paper generated 33,302; the default count runs in a few minutes. Every puzzle is then solved
by deduction (:func:`reductions.rules.engine.deduce`) twice:

* **the paper's rule set**: the local rules (singles, locked candidates, subsets, the two
  matching rules: levels 1-9) and the nonlocal rules on the bilocation and bivalue graphs
  (levels 11-16) — not Nishio (Eppstein added it in 2012) nor levels 17-19 (from his PADS
  solver, not in the paper);
* **all rules**, Nishio included (level 10, between the two groups) and levels 17-19.

The engine always tries lower levels first, so a puzzle "needs the nonlocal rules" exactly
when its hardest level is above 9 — the local rules alone get stuck on it. The table beside
the paper's: unsolvable by the rules, needing the nonlocal rules (share of all, of the
solvable), and the share of the puzzles the local rules cannot solve that the nonlocal rules
do solve (paper: 1,460 = 4.4 %; 3,859 = 11.6 % / 12.1 %; 72.5 %). Per rule: how many puzzles
needed it as their hardest rule. The same table for the shipped samples of Royle's 17-clue
set, top1465 and the hardest list.

Records (one JSON line per generated puzzle) stream to ``--records`` as puzzles finish, so an
interrupted run can be summarised with ``--from-records``. Results:
``benchmarks/results/rules_experiment.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reductions.sudoku.grid import Shape, format_grid  # noqa: E402
from reductions.sudoku.puzzle_files import read_puzzles  # noqa: E402
from reductions.rules.engine import LOCAL_LEVEL, RULES, deduce, select_rules  # noqa: E402
from reductions.status import Status  # noqa: E402
from solvers.runtime.processes import worker_pool  # noqa: E402
from solvers.generate import generate_puzzles  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
SHIPPED = ["royle17-sample300.txt", "top1465-sample100.txt", "hardest1905-sample100.txt"]
NISHIO_LEVEL = RULES["nishio"].level
PAPER_LAST_LEVEL = 16
"""The paper's rules end at the bivalue conflicting paths (levels 17-19 come from PADS)."""
PAPER_RULES = [rule for rule in select_rules()
               if rule.name != "nishio" and rule.level <= PAPER_LAST_LEVEL]
PAPER_NAMES = frozenset(rule.name for rule in PAPER_RULES)
ALL_RULES = select_rules()
PAPER = {"puzzles": 33302, "unsolvable": 1460, "nonlocal": 3859}
CHUNK = 25


def grade(puzzle) -> dict:
    """Both rule sets on one puzzle: verdict, hardest level and rule, milliseconds."""
    start = time.perf_counter()
    full = deduce(puzzle, ALL_RULES)
    ms = (time.perf_counter() - start) * 1000
    record = {"all": [full.verdict.value, full.level, full.hardest_rule], "ms_all": ms}
    beyond_paper = any(step.rule not in PAPER_NAMES for step in full.steps)
    if full.verdict == Status.SOLVED and not beyond_paper:
        # The engine tries lower levels first, so the paper's rules take the same steps.
        record["paper"] = record["all"]
    else:
        paper = deduce(puzzle, PAPER_RULES)
        record["paper"] = [paper.verdict.value, paper.level, paper.hardest_rule]
    for key in ("all", "paper"):
        if record[key][0] == Status.NO_SOLUTION:   # every puzzle here has a solution
            raise RuntimeError(f"the rules refuted a solvable puzzle: {puzzle!r}")
    return record


def generate_chunk(start: int, count: int, seed: int) -> list[dict]:
    records = []
    clock = time.perf_counter()
    for made in generate_puzzles(Shape(3, 3), count=count, seed=seed, symmetric=True,
                                 start=start):
        now = time.perf_counter()
        record = {"index": made.index, "puzzle": format_grid(made.puzzle, "line"),
                  "clues": made.clues, "restarts": made.restarts,
                  "oracle_calls": made.oracle_calls, "ms_generate": (now - clock) * 1000}
        record.update(grade(made.puzzle))
        records.append(record)
        clock = time.perf_counter()
    return records


def run_generation(count: int, seed: int, jobs: int, records_path: Path | None) -> list[dict]:
    records = []
    out = open(records_path, "w") if records_path else None
    try:
        with worker_pool(jobs) as pool:
            futures = [pool.submit(generate_chunk, start, min(CHUNK, count - start), seed)
                       for start in range(0, count, CHUNK)]
            for done, future in enumerate(as_completed(futures), 1):
                chunk = future.result()
                records.extend(chunk)
                if out:
                    out.write("".join(json.dumps(r) + "\n" for r in chunk))
                    out.flush()
                if done % 20 == 0:
                    print(f"  {len(records)}/{count} puzzles", file=sys.stderr, flush=True)
    finally:
        if out:
            out.close()
    return sorted(records, key=lambda r: r["index"])


def table(records: list[dict], key: str) -> dict:
    """The paper's numbers for one rule set (``key``: "paper" or "all")."""
    total = len(records)
    verdicts = [r[key] for r in records]
    unsolvable = sum(v[0] != Status.SOLVED for v in verdicts)
    nonlocal_ = sum(v[0] == Status.SOLVED and v[1] > NISHIO_LEVEL for v in verdicts)
    nishio = sum(v[0] == Status.SOLVED and v[1] == NISHIO_LEVEL for v in verdicts)
    local = total - unsolvable - nonlocal_ - nishio
    beyond_local = total - local
    hardest = Counter(v[2] or "none" for v in verdicts if v[0] == Status.SOLVED)
    return {
        "puzzles": total, "unsolvable": unsolvable, "local": local, "nishio": nishio,
        "nonlocal": nonlocal_,
        "unsolvable_pct": 100 * unsolvable / total if total else None,
        "nonlocal_pct": 100 * nonlocal_ / total if total else None,
        "nonlocal_of_solvable_pct": 100 * nonlocal_ / (total - unsolvable)
        if total > unsolvable else None,
        "beyond_local_solved_pct": 100 * (beyond_local - unsolvable) / beyond_local
        if beyond_local else None,
        "nonlocal_rescue_pct": 100 * nonlocal_ / (nonlocal_ + unsolvable)
        if nonlocal_ + unsolvable else None,
        "hardest_rule": dict(sorted(hardest.items(),
                                    key=lambda kv: RULES[kv[0]].level if kv[0] in RULES else 0)),
    }


def shipped_records(name: str) -> list[dict]:
    return [grade(puzzle) for _, puzzle in read_puzzles(ROOT / "instances" / name)]


def pct(value) -> str:
    return "-" if value is None else f"{value:.1f} %"


def markdown(summary: dict) -> str:
    gen, paper = summary["generated"], summary["paper"]
    p_total = paper["puzzles"]
    ours_p, ours_a = gen["paper_rules"], gen["all_rules"]
    lines = [
        "# Eppstein's experiment (2005 §3.6), redone",
        "",
        "`PYTHONPATH=. python benchmarks/bench_rules_experiment.py "
        + " ".join(summary["argv"]) + "`",
        "",
        f"{gen['puzzles']:,} symmetric minimal 9×9 puzzles from `sudoku-bridge generate "
        f"--symmetric --seed {gen['seed']}` (puzzles 0..{gen['puzzles'] - 1}), graded by "
        "deduction. \"Paper's rule set\": levels 1-9 and 11-16 (not Nishio, added in 2012, nor "
        "PADS's levels 17-19); "
        f"local = levels 1-{LOCAL_LEVEL} (singles, locked candidates, subsets, both matching "
        "rules), nonlocal = levels 11-16 in the paper's rule set (bilocation and bivalue cycle "
        "and path rules), 11-19 with all rules (adding PADS's X-chain, XY-chain and mixed "
        "conflicting paths).",
        "",
        "| | paper (Eppstein 2005) | ours, paper's rule set | ours, all rules (+ Nishio) |",
        "|---|---|---|---|",
        f"| puzzles | {p_total:,} | {ours_p['puzzles']:,} | {ours_a['puzzles']:,} |",
        f"| unsolvable by the rules | {paper['unsolvable']:,} (4.4 %) | "
        f"{ours_p['unsolvable']:,} ({pct(ours_p['unsolvable_pct'])}) | "
        f"{ours_a['unsolvable']:,} ({pct(ours_a['unsolvable_pct'])}) |",
        f"| solved by the local rules alone | {p_total - paper['unsolvable'] - paper['nonlocal']:,}"
        f" (84.0 %) | {ours_p['local']:,} ({pct(100 * ours_p['local'] / max(ours_p['puzzles'], 1))})"
        f" | {ours_a['local']:,} ({pct(100 * ours_a['local'] / max(ours_a['puzzles'], 1))}) |",
        f"| need Nishio (hardest rule) | - | - | {ours_a['nishio']:,} "
        f"({pct(100 * ours_a['nishio'] / max(ours_a['puzzles'], 1))}) |",
        f"| need the nonlocal rules | {paper['nonlocal']:,} (11.6 %; 12.1 % of solvable) | "
        f"{ours_p['nonlocal']:,} ({pct(ours_p['nonlocal_pct'])}; "
        f"{pct(ours_p['nonlocal_of_solvable_pct'])} of solvable) | {ours_a['nonlocal']:,} "
        f"({pct(ours_a['nonlocal_pct'])}; {pct(ours_a['nonlocal_of_solvable_pct'])} of solvable) |",
        f"| nonlocal rules solve, of those the local rules cannot | 72.5 % | "
        f"{pct(ours_p['nonlocal_rescue_pct'])} | {pct(ours_a['beyond_local_solved_pct'])} "
        f"(Nishio + nonlocal) |",
        "",
        f"Generated puzzles: clues min {gen['clues']['min']}, median {gen['clues']['median']:g}, "
        f"mean {gen['clues']['mean']:.1f}, max {gen['clues']['max']}; generation "
        f"{gen['ms_generate_median']:.1f} ms median per puzzle ({gen['restarts']:,} construction "
        f"restarts, {gen['oracle_calls']:,} SAT uniqueness proofs); grading with all rules "
        f"{gen['ms_all_median']:.2f} ms median, {gen['ms_all_mean']:.2f} ms mean, "
        f"{gen['ms_all_max']:.0f} ms max, {gen['seconds_all']:.0f} s in all"
        + (f"; wall {gen['wall_seconds']:.0f} s on {gen['jobs']} processes."
           if gen["wall_seconds"] is not None else "."),
        "",
        "## Hardest rule needed, per puzzle (generated set)",
        "",
        "| level | rule | paper's rule set | all rules |",
        "|---|---|---|---|",
    ]
    names = sorted(set(ours_p["hardest_rule"]) | set(ours_a["hardest_rule"]),
                   key=lambda name: RULES[name].level if name in RULES else 0)
    for name in names:
        level = RULES[name].level if name in RULES else 0
        lines.append(f"| {level} | {name} | {ours_p['hardest_rule'].get(name, 0):,} | "
                     f"{ours_a['hardest_rule'].get(name, 0):,} |")
    lines.append(f"| - | unsolvable | {ours_p['unsolvable']:,} | {ours_a['unsolvable']:,} |")
    if summary.get("shipped"):
        lines += ["", "## The same table on the shipped samples", "",
                  "| set | puzzles | rule set | local only | + Nishio | + nonlocal | "
                  "unsolvable | nonlocal solve, of those local cannot |",
                  "|---|---|---|---|---|---|---|---|"]
        for name, sets in summary["shipped"].items():
            for key, label in (("paper_rules", "paper's"), ("all_rules", "all")):
                t = sets[key]
                rescue = (t["nonlocal_rescue_pct"] if key == "paper_rules"
                          else t["beyond_local_solved_pct"])
                lines.append(f"| {name} | {t['puzzles']} | {label} | {t['local']} | "
                             f"{t['nishio'] if key == 'all_rules' else '-'} | {t['nonlocal']} | "
                             f"{t['unsolvable']} | {pct(rescue)} |")
        lines += ["", "Hardest rule needed (all rules), shipped samples: " + "; ".join(
            f"{name}: " + (", ".join(f"{rule} {count}" for rule, count in
                                     sets["all_rules"]["hardest_rule"].items()) or "none solved")
            for name, sets in summary["shipped"].items())]
    return "\n".join(lines) + "\n"


def summarize(records: list[dict], *, seed: int, jobs: int, wall: float | None,
              shipped: bool, argv: list[str]) -> dict:
    clues = [r["clues"] for r in records]
    generated = {
        "puzzles": len(records), "seed": seed, "jobs": jobs, "wall_seconds": wall,
        "clues": {"min": min(clues), "median": statistics.median(clues),
                  "mean": statistics.mean(clues), "max": max(clues)},
        "restarts": sum(r["restarts"] for r in records),
        "oracle_calls": sum(r["oracle_calls"] for r in records),
        "ms_generate_median": statistics.median(r["ms_generate"] for r in records),
        "ms_all_median": statistics.median(r["ms_all"] for r in records),
        "ms_all_mean": statistics.mean(r["ms_all"] for r in records),
        "ms_all_max": max(r["ms_all"] for r in records),
        "seconds_all": sum(r["ms_all"] for r in records) / 1000,
        "paper_rules": table(records, "paper"), "all_rules": table(records, "all"),
    }
    summary = {"argv": argv, "paper": PAPER, "generated": generated}
    if shipped:
        summary["shipped"] = {}
        for name in SHIPPED:
            rows = shipped_records(name)
            summary["shipped"][name] = {"paper_rules": table(rows, "paper"),
                                        "all_rules": table(rows, "all")}
            print(f"  graded {name}", file=sys.stderr, flush=True)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000,
                        help="puzzles to generate (the paper: 33302; default 2000)")
    parser.add_argument("--seed", type=int, default=2005)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--records", type=Path, help="write one JSON line per puzzle here")
    parser.add_argument("--from-records", type=Path,
                        help="summarise the records of an earlier (maybe interrupted) run")
    parser.add_argument("--no-shipped", action="store_true",
                        help="skip the table on the shipped samples")
    parser.add_argument("--output", type=Path, default=RESULTS / "rules_experiment",
                        help="results prefix (.md and .json are added)")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.from_records:
        lines = args.from_records.read_text().splitlines()
        records = sorted((json.loads(line) for line in lines if line.endswith("}")),
                         key=lambda r: r["index"])
    else:
        records = run_generation(args.count, args.seed, args.jobs, args.records)
    wall = None if args.from_records else time.perf_counter() - start
    summary = summarize(records, seed=args.seed, jobs=args.jobs, wall=wall,
                        shipped=not args.no_shipped, argv=sys.argv[1:])
    args.output.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n")
    text = markdown(summary)
    args.output.with_suffix(".md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
