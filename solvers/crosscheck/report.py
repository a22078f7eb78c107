"""What a cross-check's records say together: the mismatches between routes, the summary
table per route, and the plot of times."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..formats.atomic import atomic_write
from .records import TIMED, CrosscheckError, RecordStatus, RouteResult


@dataclass
class Mismatch:
    puzzle_id: str
    puzzle: str
    reason: str
    answers: dict[str, str]           # route -> what it said (status and grid)


def find_mismatches(results: Iterable[RouteResult], unique: bool) -> list[Mismatch]:
    by_puzzle: dict[str, list[RouteResult]] = {}
    for r in results:
        by_puzzle.setdefault(r.puzzle_id, []).append(r)
    mismatches = []
    for pid, rows in by_puzzle.items():
        answers = {r.route: _answer_text(r) for r in rows}

        def add(reason: str) -> None:
            mismatches.append(Mismatch(pid, rows[0].puzzle, reason, answers))

        for r in rows:
            if r.resume_problem is not None:
                add(f"{r.route}: {r.resume_problem}")
            elif r.status == RecordStatus.SOLVED and r.verified is False:
                add(f"{r.route} returned an invalid grid: {r.error}")
        solved = [r for r in rows if r.status == RecordStatus.SOLVED and r.verified]
        refuted = [r for r in rows if r.status == RecordStatus.NO_SOLUTION]
        if solved and refuted:
            add(f"{', '.join(r.route for r in refuted)} said no solution, but "
                f"{solved[0].route} found a valid one")
        if unique and solved:
            said_unique = [r for r in solved if r.unique is True]
            said_several = [r for r in solved if r.unique is False]
            grids = {r.solution for r in solved} | {r.second_solution for r in said_several}
            grids.discard(None)
            if said_unique and (said_several or len(grids) > 1):
                add(f"{', '.join(r.route for r in said_unique)} called the solution unique, "
                    f"but {len(grids)} different valid grids were found")
    return mismatches


def _answer_text(r: RouteResult) -> str:
    if r.status == RecordStatus.SOLVED:
        text = f"solved {r.solution}" + ("" if r.verified else " (INVALID)")
        if r.unique is not None:
            text += f", unique={r.unique}"
        return text
    if r.status == RecordStatus.ERROR:
        return f"error: {(r.error or '').splitlines()[0] if r.error else ''}"
    return r.status


SUMMARY_COLUMNS = ["route", "solved", "no solution", "unknown", "invalid", "error",
                   "not applicable", "not available", "median s", "max s", "median size"]
UNIQUENESS_COLUMNS = ["unique", "several", "unchecked"]
"""The verdicts on the verified solved puzzles when uniqueness is checked: 'unchecked' when
the route cannot check it (a heuristic: LKH, linkern, an ``--hcp-cmd`` program) or its
second search was cut short; the summary shows that column only when some count is not 0."""


def summary_rows(results: list[RouteResult], routes: list[str]) -> list[dict]:
    """Per route: the count of each status ('solved' only verified grids, unverified ones
    'invalid'), the uniqueness verdicts on the solved ones (:data:`UNIQUENESS_COLUMNS`),
    median and maximum route time, median instance size."""
    rows = []
    for route in routes:
        mine = [r for r in results if r.route == route]
        times = [r.seconds for r in mine if r.status in TIMED]
        sizes = [r.size for r in mine if r.size is not None]
        row: dict = {"route": route}
        for status in RecordStatus:
            row[status.value] = sum(r.status == status for r in mine)
        row["solved"] = sum(r.status == RecordStatus.SOLVED and r.verified is True for r in mine)
        row["invalid"] = sum(r.status == RecordStatus.SOLVED and r.verified is False
                             for r in mine)
        solved = [r for r in mine if r.status == RecordStatus.SOLVED and r.verified is True]
        row["unique"] = sum(r.unique is True for r in solved)
        row["several"] = sum(r.unique is False for r in solved)
        row["unchecked"] = sum(r.unique is None for r in solved)
        row.update({
            "median s": statistics.median(times) if times else None,
            "max s": max(times) if times else None,
            "median size": statistics.median(sizes) if sizes else None,
            "size kind": next((r.size_kind for r in mine if r.size_kind), None),
        })
        rows.append(row)
    return rows


def format_summary(rows: list[dict], unique: bool = False) -> str:
    """The summary table; with ``unique``, the uniqueness verdicts after the statuses
    (the status columns keep their places; 'unchecked' only when some route has one)."""
    statuses = SUMMARY_COLUMNS.index("median s")
    verdicts = [c for c in UNIQUENESS_COLUMNS
                if c != "unchecked" or any(row["unchecked"] for row in rows)]
    head = SUMMARY_COLUMNS[:statuses] + (verdicts if unique else []) \
        + SUMMARY_COLUMNS[statuses:]
    table = [head]
    for row in rows:
        cells = []
        for key in head:
            value = row[key]
            if isinstance(value, float) and key.endswith(" s"):
                cells.append(f"{value:.4f}")
            elif key == "median size" and value is not None:
                cells.append(f"{value:,.0f} {row['size kind']}")
            else:
                cells.append("-" if value is None else str(value))
        table.append(cells)
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def unavailable_routes(results: Iterable[RouteResult]) -> dict[str, str]:
    """Route -> why it could not run, for the routes with 'not available' records."""
    return {r.route: r.error or "" for r in results if r.status == RecordStatus.NOT_AVAILABLE}


def plot_results(results: list[RouteResult], routes: list[str], path: Path) -> None:
    """PNG: per-route time distributions (box plot, log scale) and time against size."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CrosscheckError("--plot needs matplotlib: pip install "
                              "'sudoku-bridge[plots]'") from None
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    data = [[max(r.seconds, 1e-6) for r in results if r.route == route and r.status in TIMED]
            for route in routes]
    left.boxplot([d or [float("nan")] for d in data], showfliers=True)
    left.set_xticks(range(1, len(routes) + 1), routes, rotation=20)
    left.set_yscale("log")
    left.set_ylabel("seconds per puzzle")
    left.set_title("time per route")
    for route in routes:
        pts = [(r.size, r.seconds) for r in results if r.route == route and r.size]
        if pts:
            xs, ys = zip(*pts)
            right.scatter(xs, ys, s=8, label=route, alpha=0.6)
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("instance size (edges / clauses / options / nonzeros)")
    right.set_ylabel("seconds")
    right.set_title("time against instance size")
    if right.has_data():
        right.legend(fontsize=8)
    fig.tight_layout()
    with atomic_write(path, "wb") as out:
        fig.savefig(out, format="png", dpi=110)
    plt.close(fig)
