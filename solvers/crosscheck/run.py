"""A whole cross-check run: the routes checked, the results file started or resumed, the
pairs run and each record appended as it arrives, the file rewritten in order at the end."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Callable, Sequence

from reductions.sudoku.grid import Shape
from reductions.reading import DEFAULT_MEMORY_LIMIT
from reductions.suggestions import unknown_name

from ..formats.atomic import atomic_write, check_output_target
from ..routes import ROUTES, template_route, template_routes
from .records import CrosscheckError, RouteResult
from .results_file import contradicted, record_writer, start_results
from .runners import Execution, Task, execute

DEFAULT_ROUTES = ["sat", "sat-glucose", "exact-cover", "ilp"]
"""Four routes through three different reductions, each fast on 9×9; the HCP routes, much
slower a puzzle, are asked for by name (figures: ``benchmarks/results/design_figures.md``)."""


def run_crosscheck(puzzles: list[tuple[str, str]], routes: list[str], *,
                   shape: Shape | None = None, unique: bool = False,
                   time_limit: float | None = None,
                   execution: Execution = Execution(),
                   results_path: Path | None = None, resume: bool = False,
                   on_result: Callable[[RouteResult], None] | None = None,
                   templates: Sequence[str] = (),
                   memory_limit: int = DEFAULT_MEMORY_LIMIT,
                   certify: str | None = None) -> list[RouteResult]:
    """Run every (puzzle, route) pair; returns all records (resumed ones included).

    ``puzzles`` are (id, text) pairs. With ``results_path``, each record is appended to the
    JSON-lines file as it arrives; with ``resume``, pairs already in the file are skipped
    (without it, the file is started afresh). When the run completes, the file is rewritten
    in puzzle and route order, so a resumed run ends with the same file as an uninterrupted
    one (up to the measured times). An interrupted or failed run leaves the records written
    so far, complete, for ``resume``.

    Nothing read back by ``resume`` is believed. Every record kept is re-checked as a
    fresh one would be: one that fails is kept as a mismatch (``resume_problem`` naming the
    file and line). A claim no record can prove is run again: a "no solution" (a mismatch
    if the route now solves the puzzle) and, with ``unique``, a "unique" (a mismatch if
    the route now finds a second solution). So is a record this run would not write: with
    ``unique``, one without a uniqueness verdict; without it, one with. The results file
    is read within ``memory_limit``; a compressed one (named ``.gz``, ``.xz``, ``.bz2``) is
    written compressed throughout, a member per record while the run goes on.

    ``execution`` says where the pairs run (:class:`Execution`); a Dask cluster fails
    after its ``worker_timeout`` seconds without any worker. A route that cannot
    run here gives 'not available' records; an unknown route name is a
    :class:`CrosscheckError`. ``templates`` define more routes, each ``NAME=TARGET:CMD``
    (:func:`solvers.routes.template_route`); ``routes`` may name them.

    ``certify`` (a checker's name): the routes that can (:func:`~.runners.certifies`) back
    their negative answers by proofs that checker accepts, records naming it. A record's
    ``certified`` is never read back: the claims it could stand for ("no solution",
    "unique") are run again by ``resume`` anyway, and earn it again.
    """
    if results_path is not None:
        check_output_target(results_path)       # never a device, a directory, /proc...
    defined = dict(zip(template_routes(templates), templates))     # name -> its spec
    known = [*ROUTES, *defined]
    unknown = [route for route in routes if route not in known]
    if unknown:
        raise CrosscheckError(unknown_name("route", unknown[0], known, "routes"))
    # the routes whose records carry a uniqueness verdict in this run
    verdicts = {name for name in routes if unique and (
        template_route(defined[name]) if name in defined else ROUTES[name]).checks_uniqueness}
    resumed = start_results(results_path, resume=resume, puzzles=puzzles, routes=routes,
                             verdicts=verdicts, shape=shape, memory_limit=memory_limit)
    done = resumed.kept
    finished = {(r.puzzle_id, r.route) for r in done}
    tasks = [Task(route=route, puzzle_id=pid, puzzle=text, shape=shape, unique=unique,
                  time_limit=time_limit, template=defined.get(route),
                  certify=None if certify is None else (certify, memory_limit))
             for pid, text in puzzles for route in routes if (pid, route) not in finished]
    results = list(done)
    stream = execute(tasks, execution)
    with record_writer(results_path) as write, contextlib.closing(stream):
        try:
            for result in stream:
                contradicted(result, resumed.claims)
                write(result)
                results.append(result)
                if on_result is not None:
                    on_result(result)
        except CrosscheckError as exc:
            if results_path is None:
                raise
            raise CrosscheckError(f"{exc}; the {len(results)} record(s) so far are in "
                                  f"{results_path} (--resume goes on from there)") from None
    order = {pid: i for i, (pid, _) in enumerate(puzzles)}
    route_order = {r: i for i, r in enumerate(routes)}
    results.sort(key=lambda r: (order[r.puzzle_id], route_order[r.route]))
    if results_path is not None:
        with atomic_write(results_path, "wb") as out:
            for result in results:
                out.write(result.json_line())
    return results

