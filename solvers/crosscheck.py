"""Cross-checking: the same puzzles through several routes, every answer verified, and any
disagreement shown plainly.

The routes are those of :data:`solvers.routes.ROUTES`. :func:`run_crosscheck` runs every (puzzle, route) pair — in this
process, on a local process pool, or on a Dask distributed cluster — streams one JSON record per
pair to a JSON-lines file as results arrive (so an interrupted run keeps what finished, and
``resume`` skips it), and :func:`find_mismatches` then compares the routes puzzle by puzzle.

A **mismatch** is: a route returning a grid that does not solve the puzzle; "no solution" from
one route where another solved it (solved grids are verified, so the "no solution" is wrong);
and, when uniqueness is checked, routes disagreeing about it or returning different grids for a
puzzle they call unique. Different grids are *not* a mismatch when uniqueness is not checked —
the puzzle may have several solutions. A route that crashes is an **error**, listed too. A
route that does not apply to a puzzle's shape (the HCP routes on non-square blocks) is recorded
as **not applicable**, which is neither.
"""

from __future__ import annotations

import json
import os
import statistics
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from reductions.errors import UserError
from reductions.grid import Shape, format_grid, parse_grid, solution_problems

from .formats.atomic import atomic_write, check_output_target
from .outcome import Status, WrongAnswer
from .routes import ROUTES

ERROR = "error"
NOT_APPLICABLE = "not applicable"
TIMED = (Status.SOLVED, Status.NO_SOLUTION, Status.UNKNOWN)      # statuses whose times are route times
SIZE_KEYS = ("edges", "arcs", "clauses", "nonzeros", "options", "variables", "vertices")


class CrosscheckError(UserError):
    """Bad cross-check request: unknown route, unreadable results file, ..."""


DEFAULT_ROUTES = ["sat", "sat-glucose", "exact-cover", "ilp"]
"""Four routes through three different reductions, each fast on 9×9 (milliseconds); the HCP
routes (about 0.2 s a puzzle) are asked for by name."""


# ----------------------------------------------------------------------------- records

@dataclass
class RouteResult:
    """One (puzzle, route) run: the JSON-lines record."""

    puzzle_id: str
    puzzle: str
    route: str
    status: str                       # solved / no solution / unknown / error / not applicable
    seconds: float
    verified: bool | None = None      # the grid solves the puzzle (None: no grid)
    solution: str | None = None
    unique: bool | None = None
    second_solution: str | None = None
    size: int | None = None           # the instance's main size (edges, clauses, ...)
    size_kind: str | None = None
    error: str | None = None

    @classmethod
    def from_json(cls, line: str) -> "RouteResult":
        return cls(**json.loads(line))


def run_route(route: str, puzzle_id: str, puzzle_text: str, shape: Shape | None,
              unique: bool, time_limit: float | None) -> RouteResult:
    """Run one route on one puzzle; never raises (failures become status 'error')."""
    start = time.perf_counter()
    try:
        puzzle = parse_grid(puzzle_text, shape)
    except UserError as exc:
        return RouteResult(puzzle_id, puzzle_text, route, ERROR, 0.0, error=str(exc))
    chosen = ROUTES[route]
    reason = chosen.not_applicable(puzzle.shape)
    if reason:
        return RouteResult(puzzle_id, puzzle_text, route, NOT_APPLICABLE, 0.0, error=reason)
    try:
        outcome = chosen.solve(puzzle, unique=unique and chosen.checks_uniqueness,
                               time_limit=time_limit)
    except WrongAnswer as exc:
        # the route produced a grid and the check refused it: recorded as unverified
        return RouteResult(puzzle_id, puzzle_text, route, Status.SOLVED,
                           time.perf_counter() - start, verified=False, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - a crashing route must not stop the batch
        detail = "" if isinstance(exc, UserError) else traceback.format_exc(limit=3)
        return RouteResult(puzzle_id, puzzle_text, route, ERROR, time.perf_counter() - start,
                           error=f"{type(exc).__name__}: {exc}" + (f"\n{detail}" if detail
                                                                   else ""))
    seconds = time.perf_counter() - start
    result = RouteResult(puzzle_id, puzzle_text, route, outcome.status, seconds,
                         unique=outcome.unique)
    for key in SIZE_KEYS:
        if isinstance(outcome.stats.get(key), int):
            result.size, result.size_kind = outcome.stats[key], key
            break
    if outcome.grid is not None:
        # verify here too: the record must not depend on the route's own checking
        result.solution = format_grid(outcome.grid, "auto")
        problems = solution_problems(puzzle, outcome.grid)
        result.verified = not problems
        if problems:
            result.error = "; ".join(problems[:3])
    if outcome.second is not None:
        result.second_solution = format_grid(outcome.second, "auto")
        if solution_problems(puzzle, outcome.second):
            result.verified = False
            result.error = "the second solution is not valid"
    return result


def _run_task(task: tuple) -> RouteResult:
    return run_route(*task)


# ----------------------------------------------------------------------------- running

def read_results(path: Path) -> list[RouteResult]:
    """Records of a JSON-lines results file; a torn last line (interrupted write) is dropped."""
    if not path.exists():
        return []
    records = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(RouteResult.from_json(line))
        except (json.JSONDecodeError, TypeError) as exc:
            if number == len(lines):
                break                         # the run was cut off while writing this line
            raise CrosscheckError(f"{path} line {number}: not a cross-check record "
                                  f"({exc})") from None
    return records


def run_crosscheck(puzzles: list[tuple[str, str]], routes: list[str], *,
                   shape: Shape | None = None, unique: bool = False, time_limit: float | None = None, jobs: int = 1,
                   results_path: Path | None = None, resume: bool = False,
                   scheduler: str | None = None,
                   on_result: Callable[[RouteResult], None] | None = None,
                   scheduler_timeout: float = 10.0) -> list[RouteResult]:
    """Run every (puzzle, route) pair; returns all records (resumed ones included).

    ``puzzles`` are (id, text) pairs. With ``results_path``, each record is appended to the
    JSON-lines file as it arrives; with ``resume``, pairs already in the file are skipped
    (without it, the file is started afresh). When the run completes, the file is rewritten
    in puzzle and route order, so a resumed run ends with the same file as an uninterrupted
    one (up to the measured times).
    """
    if results_path is not None:
        check_output_target(results_path)       # never a device, a directory, /proc...
    for route in routes:
        if route not in ROUTES:
            raise CrosscheckError(f"unknown route {route!r}; routes: {', '.join(ROUTES)}")
        reason = ROUTES[route].unavailable()
        if reason:
            raise CrosscheckError(reason)
    done: list[RouteResult] = []
    if results_path is not None and resume:
        done = [r for r in read_results(results_path) if r.route in routes]
    elif results_path is not None and results_path.exists():
        results_path.unlink()
    finished = {(r.puzzle_id, r.route) for r in done}
    tasks = [(route, pid, text, shape, unique, time_limit) for pid, text in puzzles
             for route in routes if (pid, route) not in finished]
    results = list(done)
    sink = open(results_path, "a", encoding="utf-8") if results_path is not None else None
    try:
        for result in _execute(tasks, jobs, scheduler, scheduler_timeout):
            results.append(result)
            if sink is not None:
                sink.write(json.dumps(asdict(result)) + "\n")
                sink.flush()
            if on_result is not None:
                on_result(result)
    finally:
        if sink is not None:
            sink.close()
    order = {pid: i for i, (pid, _) in enumerate(puzzles)}
    route_order = {r: i for i, r in enumerate(routes)}
    results.sort(key=lambda r: (order.get(r.puzzle_id, len(order)), route_order.get(r.route, 0)))
    if results_path is not None:
        with atomic_write(results_path) as out:
            for result in results:
                out.write(json.dumps(asdict(result)) + "\n")
    return results


def _execute(tasks: list[tuple], jobs: int, scheduler: str | None,
             scheduler_timeout: float) -> Iterator[RouteResult]:
    if scheduler:
        yield from _execute_dask(tasks, scheduler, scheduler_timeout)
    elif jobs <= 1:
        for task in tasks:
            yield _run_task(task)
    else:
        import multiprocessing
        ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
            futures = [pool.submit(_run_task, task) for task in tasks]
            for future in as_completed(futures):
                yield future.result()


def _execute_dask(tasks: list[tuple], scheduler: str, timeout: float) -> Iterator[RouteResult]:
    try:
        from distributed import Client, as_completed as dask_completed
    except ImportError:
        raise CrosscheckError("--scheduler needs the 'distributed' package: "
                              "pip install 'sudoku-bridge[distributed]'") from None
    try:
        client = Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise CrosscheckError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    try:
        futures = client.map(_run_task, tasks, pure=False)
        for future in dask_completed(futures):
            yield future.result()
    finally:
        client.close()


# ----------------------------------------------------------------------------- analysis

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
            if r.status == Status.SOLVED and r.verified is False:
                add(f"{r.route} returned an invalid grid: {r.error}")
        solved = [r for r in rows if r.status == Status.SOLVED and r.verified]
        refuted = [r for r in rows if r.status == Status.NO_SOLUTION]
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
    if r.status == Status.SOLVED:
        text = f"solved {r.solution}" + ("" if r.verified else " (INVALID)")
        if r.unique is not None:
            text += f", unique={r.unique}"
        return text
    if r.status == ERROR:
        return f"error: {(r.error or '').splitlines()[0] if r.error else ''}"
    return r.status


def summary_rows(results: list[RouteResult], routes: list[str]) -> list[dict]:
    rows = []
    for route in routes:
        mine = [r for r in results if r.route == route]
        times = [r.seconds for r in mine if r.status in TIMED]
        sizes = [r.size for r in mine if r.size is not None]
        rows.append({
            "route": route,
            "solved": sum(r.status == Status.SOLVED and r.verified is True for r in mine),
            "no solution": sum(r.status == Status.NO_SOLUTION for r in mine),
            "unknown": sum(r.status == Status.UNKNOWN for r in mine),
            "invalid": sum(r.status == Status.SOLVED and r.verified is False for r in mine),
            "error": sum(r.status == ERROR for r in mine),
            "n/a": sum(r.status == NOT_APPLICABLE for r in mine),
            "median s": statistics.median(times) if times else None,
            "max s": max(times) if times else None,
            "median size": statistics.median(sizes) if sizes else None,
            "size kind": next((r.size_kind for r in mine if r.size_kind), None),
        })
    return rows


def format_summary(rows: list[dict]) -> str:
    head = ["route", "solved", "no solution", "unknown", "invalid", "error", "n/a", "median s",
            "max s", "median size"]
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
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


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
