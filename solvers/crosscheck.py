"""Cross-checking: the same puzzles through several routes, every answer verified, and any
disagreement shown plainly.

A *route* is a function ``(puzzle, unique, time_limit) -> Outcome`` (see :data:`ROUTES` and
:func:`available_routes`). :func:`run_crosscheck` runs every (puzzle, route) pair — in this
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

import importlib
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
from reductions.grid import Grid, Shape, format_grid, parse_grid, solution_problems

from .formats.atomic import atomic_write
from .outcome import NO_SOLUTION, SOLVED, UNKNOWN, Outcome, WrongAnswer

ERROR = "error"
NOT_APPLICABLE = "not applicable"
TIMED = (SOLVED, NO_SOLUTION, UNKNOWN)      # statuses whose times are route times
SIZE_KEYS = ("edges", "arcs", "clauses", "nonzeros", "options", "variables", "vertices")


class CrosscheckError(UserError):
    """Bad cross-check request: unknown route, unreadable results file, ..."""


# ----------------------------------------------------------------------------- routes
# Each route imports its solver lazily, so that a missing optional package only disables
# that route (available_routes says why) instead of breaking the others.

def _sat(puzzle: Grid, unique: bool, time_limit: float | None) -> Outcome:
    from .sat import solve_puzzle
    return solve_puzzle(puzzle, unique=unique, time_limit=time_limit)


def _sat_glucose(puzzle: Grid, unique: bool, time_limit: float | None) -> Outcome:
    from .sat import solve_puzzle
    return solve_puzzle(puzzle, solver="glucose4", encoding="minimal",
                        clue_mode="eliminate", unique=unique, time_limit=time_limit)


_INCREMENTAL: dict = {}
"""This process's incremental solvers, one per block shape (each pool worker has its own)."""
INCREMENTAL_REFRESH = 2000
"""Puzzles after which a worker's incremental solver is replaced (learnt clauses pile up)."""


def _sat_incremental(puzzle: Grid, unique: bool, time_limit: float | None) -> Outcome:
    from .sat import IncrementalSudokuSolver
    solver = _INCREMENTAL.get(puzzle.shape)
    if solver is None or solver.puzzles_served >= INCREMENTAL_REFRESH:
        if solver is not None:
            solver.close()
        solver = _INCREMENTAL[puzzle.shape] = IncrementalSudokuSolver(puzzle.shape)
    solver.puzzles_served += 1
    outcome = solver.solve(puzzle, unique=unique, time_limit=time_limit)
    outcome.stats["clauses"] = solver.num_clauses
    return outcome


def _binary(name: str) -> Callable[[Grid, bool, float | None], Outcome]:
    def route(puzzle: Grid, unique: bool, time_limit: float | None) -> Outcome:
        from .sat import solve_with_command
        return solve_with_command(puzzle, name, unique=unique, time_limit=time_limit)
    route.__name__ = f"_binary_{name}"
    return route


def _exact_cover(backend: str) -> Callable[[Grid, bool, float | None], Outcome]:
    def route(puzzle: Grid, unique: bool, time_limit: float | None) -> Outcome:
        from .exact_cover import solve_puzzle
        return solve_puzzle(puzzle, unique=unique, backend=backend, time_limit=time_limit)
    route.__name__ = f"_exact_cover_{backend}"
    return route


def _ilp(solver: str) -> Callable[[Grid, bool, float | None], Outcome]:
    def route(puzzle: Grid, unique: bool, time_limit: float | None) -> Outcome:
        from .ilp import solve_puzzle
        return solve_puzzle(puzzle, solver, unique=unique, time_limit=time_limit)
    route.__name__ = f"_ilp_{solver}"
    return route


def _hcp(graph: str, prune: str, reduce: bool) -> Callable[[Grid, bool, float | None], Outcome]:
    # Uniqueness is not asked of the HCP routes (their outcome says unique=None, "not checked").
    def route(puzzle: Grid, unique: bool, time_limit: float | None) -> Outcome:
        from .cli_hcp_solve import solve_hcp_puzzle
        outcome = solve_hcp_puzzle(puzzle, graph, prune, reduce=reduce, solver="sat",
                                   time_limit=time_limit)
        final = outcome.stats["sizes"][-1]      # the graph the solver saw
        outcome.stats.setdefault("arcs" if graph == "directed" else "edges", final["edges"])
        return outcome
    route.__name__ = f"_hcp_{graph}"
    return route


ROUTES: dict[str, Callable[[Grid, bool, float | None], Outcome]] = {
    "sat": _sat,
    "sat-glucose": _sat_glucose,
    "sat-incremental": _sat_incremental,
    "cadical": _binary("cadical"),
    "minisat": _binary("minisat"),
    "exact-cover": _exact_cover("auto"),
    "exact-cover-dlx": _exact_cover("dlx"),
    "ilp": _ilp("cbc"),
    "ilp-highs": _ilp("highs"),
    "hcp-directed": _hcp("directed", "peers", reduce=False),
    "hcp-undirected": _hcp("undirected", "peers", reduce=True),
}
"""Route name → function. ``sat``: pysat CaDiCaL 1.9.5, extended encoding, clues as units;
``sat-glucose``: Glucose 4, minimal encoding, clues eliminated (a second, independent
encoding); ``sat-incremental``: one CaDiCaL per worker process with the rules loaded once
and the clues as assumptions (the fast path of ``solve`` on files: for corpora); ``cadical`` /
``minisat``: the command-line solvers through DIMACS files;
``exact-cover``: Knuth's exact cover, searched by the ``exact-cover`` package when installed,
else by the built-in Algorithm X, which ``exact-cover-dlx`` always uses; ``ilp``: the 0-1 ILP
solved by CBC, ``ilp-highs`` by HiGHS; ``hcp-directed``: Haythorpe's directed graph with
peer pruning, solved exactly (SAT with lazy subtour cuts); ``hcp-undirected``: the same graph
made undirected (3-split) and degree-2 reduced, solved the same way. The HCP routes need
N = n² (square blocks) and do not check uniqueness."""

SQUARE_BLOCK_ROUTES = frozenset({"hcp-directed", "hcp-undirected"})
"""Routes through Haythorpe's graph, which exists for N = n² with n×n blocks only."""


def route_not_applicable(route: str, shape: Shape) -> str | None:
    """Why ``route`` does not apply to puzzles of this shape (None when it does)."""
    if route in SQUARE_BLOCK_ROUTES and not shape.is_square:
        return (f"{route} needs square n×n blocks (Haythorpe's graph); this puzzle has "
                f"{shape.box_rows}x{shape.box_cols} blocks")
    return None


ROUTE_REQUIREMENTS: dict[str, tuple[str, str]] = {
    "cadical": ("binary", "cadical"),
    "minisat": ("binary", "minisat"),
    "ilp-highs": ("module", "highspy"),
}
"""What a route needs beyond the base install: ('binary', name) or ('module', name)."""

DEFAULT_ROUTES = ["sat", "sat-glucose", "exact-cover", "ilp"]
"""Four routes through three different reductions, each fast on 9×9 (milliseconds); the HCP
routes (about 0.2 s a puzzle) are asked for by name."""


def route_unavailable(name: str) -> str | None:
    """Why a route cannot run here (None when it can)."""
    import shutil
    if name not in ROUTES:
        return f"unknown route {name!r}; routes: {', '.join(ROUTES)}"
    kind, what = ROUTE_REQUIREMENTS.get(name, (None, None))
    if kind == "binary" and shutil.which(what) is None:
        return f"route {name!r} needs the {what!r} binary on PATH"
    if kind == "module":
        try:
            importlib.import_module(what)
        except ImportError:
            return f"route {name!r} needs the Python package {what!r} (see the README extras)"
    return None


def available_routes() -> list[str]:
    return [name for name in ROUTES if route_unavailable(name) is None]


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
    reason = route_not_applicable(route, puzzle.shape)
    if reason:
        return RouteResult(puzzle_id, puzzle_text, route, NOT_APPLICABLE, 0.0, error=reason)
    try:
        outcome = ROUTES[route](puzzle, unique, time_limit)
    except WrongAnswer as exc:
        # the route produced a grid and the check refused it: recorded as unverified
        return RouteResult(puzzle_id, puzzle_text, route, SOLVED,
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


def run_crosscheck(puzzles: list[tuple[str, str]], routes: list[str], shape: Shape | None = None,
                   unique: bool = False, time_limit: float | None = None, jobs: int = 1,
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
    for route in routes:
        reason = route_unavailable(route)
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
            if r.status == SOLVED and r.verified is False:
                add(f"{r.route} returned an invalid grid: {r.error}")
        solved = [r for r in rows if r.status == SOLVED and r.verified]
        refuted = [r for r in rows if r.status == NO_SOLUTION]
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
    if r.status == SOLVED:
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
            "solved": sum(r.status == SOLVED and r.verified is True for r in mine),
            "no solution": sum(r.status == NO_SOLUTION for r in mine),
            "unknown": sum(r.status == UNKNOWN for r in mine),
            "invalid": sum(r.status == SOLVED and r.verified is False for r in mine),
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
