"""Running (puzzle, route) pairs: one pair (:func:`run_route`, which never raises), and
where the pairs run (:class:`Execution`): in this process, on a local process pool, or on a
Dask cluster; records yielded as they finish."""

from __future__ import annotations

import contextlib
import time
import traceback
from concurrent.futures import as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Iterator, Sequence

from reductions.errors import UserError
from reductions.sudoku.grid import Grid, Shape, format_grid, parse_grid, solution_problems

from ..certify.checkers import ProofRejected
from ..outcome import Outcome, SolverUnavailable, WrongAnswer
from ..routes import ROUTES, template_route
from ..runtime.processes import worker_pool
from .records import SIZE_KEYS, CrosscheckError, RecordStatus, RouteResult, first_line

@dataclass(frozen=True, kw_only=True)
class Task:
    """One (puzzle, route) pair to run, with the options of the run."""

    route: str
    puzzle_id: str
    puzzle: str                       # the puzzle text as given
    shape: Shape | None = None
    unique: bool = False
    time_limit: float | None = None
    template: str | None = None       # the NAME=TARGET:CMD of a route defined by --route
    certify: tuple[str, int] | None = None
    """--certify: (the checker's name, the memory limit) for the routes that certify."""

    def record(self, status: RecordStatus, seconds: float = 0.0, **fields) -> RouteResult:
        return RouteResult(self.puzzle_id, self.puzzle, self.route, status, seconds, **fields)


def run_route(task: Task) -> RouteResult:
    """Run one (puzzle, route) pair; never raises (a failure is an 'error' record)."""
    start = time.perf_counter()
    try:
        puzzle = parse_grid(task.puzzle, task.shape)
    except UserError as exc:
        return task.record(RecordStatus.ERROR, error=str(exc))
    route = template_route(task.template) if task.template else ROUTES[task.route]
    reason = route.unavailable()
    if reason:
        return task.record(RecordStatus.NOT_AVAILABLE, error=reason)
    reason = route.not_applicable(puzzle.shape)
    if reason:
        return task.record(RecordStatus.NOT_APPLICABLE, error=reason)
    try:
        if task.certify is not None and certifies(route):
            outcome = _certified_outcome(task, route, puzzle)
        else:
            outcome = route.solve(puzzle, unique=task.unique and route.checks_uniqueness,
                                  time_limit=task.time_limit)
    except SolverUnavailable as exc:           # found out only when starting it
        return task.record(RecordStatus.NOT_AVAILABLE, error=str(exc))
    except ProofRejected as exc:
        # the solver's negative claim and the checker disagree: no answer, an error
        return task.record(RecordStatus.ERROR, time.perf_counter() - start,
                           error=f"proof rejected: {exc}")
    except WrongAnswer as exc:
        # the route produced a grid and the check refused it: recorded as unverified
        return task.record(RecordStatus.SOLVED, time.perf_counter() - start, verified=False,
                           error=str(exc))
    except Exception as exc:  # noqa: BLE001 - a crashing route must not stop the batch
        return task.record(RecordStatus.ERROR, time.perf_counter() - start,
                           error=_error_text(exc))
    return _outcome_record(task, puzzle, outcome, time.perf_counter() - start)


def certifies(route) -> bool:
    """Does ``route`` back its negative answers by checked proofs under --certify? The CNF
    routes with a proof-logging pysat solver or an outside program that writes a proof;
    not the kept incremental solver, whose clues are assumptions (:mod:`solvers.cli.certify`);
    the ``hcp`` routes with an exact solver (:mod:`solvers.certify.hcp_puzzle`)."""
    from ..certify.proofs import proof_solver
    from ..routes.registry import Target
    from ..routes.options import CNF_INCREMENTAL, EXACT_HCP_SOLVERS, HCP
    from ..tools.dimacs_programs import proof_command
    if route.target == Target.HCP:
        solver = route.presets.get("hcp_solver") or HCP.defaults["hcp_solver"]
        return route.presets.get("hcp_cmd") is None and solver in EXACT_HCP_SOLVERS
    if route.target != Target.CNF or route.family is CNF_INCREMENTAL:
        return False
    try:
        if route.presets.get("solver_cmd") is not None:
            proof_command(route.presets["solver_cmd"])
        else:
            proof_solver(route.presets.get("solver") or "cadical195")
    except SolverUnavailable:
        return False
    return True


def _certified_outcome(task: Task, route, puzzle: Grid) -> Outcome:
    """The route's answer with its negative claims certified: a CNF route's solver (or
    program) and encoding on the plain formula, clues as unit clauses; an ``hcp`` route's
    own answer, then its certificate on the puzzle's directed graph."""
    from ..certify.checkers import find_checker
    from ..certify.outside import certified_with_command
    from ..certify.refutation import CertifyOptions
    from ..certify.sudoku import certified_solve
    from ..routes.options import DEFAULT_AMO, DEFAULT_ENCODING
    from ..routes.registry import Target
    checker, memory = task.certify
    certify = CertifyOptions(find_checker(checker), memory)
    if route.target == Target.HCP:
        return _certified_graph_outcome(task, route, puzzle, certify)
    settings = dict(certify=certify,
                    encoding=route.presets.get("encoding") or DEFAULT_ENCODING,
                    amo=route.presets.get("amo") or DEFAULT_AMO, unique=task.unique,
                    time_limit=task.time_limit)
    if route.presets.get("solver_cmd") is not None:
        return certified_with_command(puzzle, route.presets["solver_cmd"], **settings)
    return certified_solve(puzzle, solver=route.presets.get("solver"), **settings)


def _certified_graph_outcome(task: Task, route, puzzle: Grid, certify) -> Outcome:
    """An ``hcp`` route's answer (:func:`_certified_outcome`), certified by
    :func:`solvers.certify.hcp_puzzle.certify_hcp_outcome`."""
    from ..certify.hcp_puzzle import certify_hcp_outcome
    from ..routes.options import HCP
    outcome = route.solve(puzzle, unique=task.unique and route.checks_uniqueness,
                          time_limit=task.time_limit)
    return certify_hcp_outcome(puzzle, outcome, certify=certify, time_limit=task.time_limit,
                               prune=route.presets.get("prune") or HCP.defaults["prune"])


def _error_text(exc: Exception) -> str:
    """A route's failure: the one-line message of a user error, else also where it came
    from (the last frames of the traceback)."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, UserError):
        return text
    return f"{text}\n{traceback.format_exc(limit=3)}"


def _outcome_record(task: Task, puzzle: Grid, outcome: Outcome, seconds: float) -> RouteResult:
    """The record of a route's answer, its grids verified here again (the record must not
    depend on the route's own checking)."""
    result = task.record(RecordStatus(outcome.status), seconds, unique=outcome.unique,
                         certified=outcome.stats.get("certified"))
    for key in SIZE_KEYS:
        if isinstance(outcome.stats.get(key), int):
            result.size, result.size_kind = outcome.stats[key], key
            break
    if outcome.grid is not None:
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



@dataclass(frozen=True, kw_only=True)
class Execution:
    """Where a cross-check's pairs run: in this process (``jobs`` 1), on ``jobs`` local
    worker processes, or, with ``scheduler`` (an address such as ``tcp://host:8786``), on a
    Dask cluster — reached within ``scheduler_timeout`` seconds, and given up after
    ``worker_timeout`` seconds without any worker."""

    jobs: int = 1
    scheduler: str | None = None
    scheduler_timeout: float = 10.0
    worker_timeout: float = 60.0


def execute(tasks: list[Task], execution: Execution) -> Iterator[RouteResult]:
    """The records of ``tasks`` as they finish: here, on a process pool, or on Dask."""
    if not tasks:
        return
    if execution.scheduler:
        yield from _execute_dask(tasks, scheduler=execution.scheduler,
                                 connect_timeout=execution.scheduler_timeout,
                                 worker_timeout=execution.worker_timeout)
    elif execution.jobs <= 1:
        for task in tasks:
            yield run_route(task)
    else:
        yield from _execute_pool(tasks, jobs=min(execution.jobs, len(tasks)))


# ----------------------------------------------------------------------------- process pool

CHUNK_MAX = 50
"""Most (puzzle, route) pairs one pool task runs. One pair per task costs a round trip
through the pool's queues each (as much as a sat route's solve); 50 pairs of the five
corpus routes are about a second of work, all an interruption can lose per worker (finished
chunks are written at once). Figures: ``benchmarks/results/design_figures.md``."""


def chunk_size(tasks: int, workers: int) -> int:
    """Pairs per task, for the local pool and for Dask alike: at least 16 tasks per worker
    process (Dask: per worker thread) so that the workers finish close together, at most
    :data:`CHUNK_MAX` pairs each."""
    return max(1, min(CHUNK_MAX, tasks // (16 * workers)))


def run_routes(tasks: Sequence[Task]) -> list[RouteResult]:
    """The records of several pairs, in order (one pool or Dask task)."""
    return [run_route(task) for task in tasks]


def _execute_pool(tasks: list[Task], *, jobs: int) -> Iterator[RouteResult]:
    """The records of ``tasks`` from ``jobs`` worker processes
    (:func:`solvers.runtime.processes.worker_pool`: gone however this ends), :func:`chunk_size`
    consecutive pairs per pool task."""
    size = chunk_size(len(tasks), jobs)
    with worker_pool(jobs) as pool:
        try:
            futures = [pool.submit(run_routes, tasks[i:i + size])
                       for i in range(0, len(tasks), size)]
            for future in as_completed(futures):
                yield from future.result()
        except BrokenProcessPool:
            raise CrosscheckError("a worker process died (killed from outside, or out of "
                                  "memory)") from None


# ----------------------------------------------------------------------------- Dask

def _execute_dask(tasks: list[Task], *, scheduler: str, connect_timeout: float,
                  worker_timeout: float) -> Iterator[RouteResult]:
    """The records of ``tasks`` from a Dask cluster, :func:`chunk_size` consecutive pairs per
    Dask task (for the cluster's thread count when the run starts), each chunk's records
    yielded as soon as it finishes. A worker lost mid-run costs nothing: the scheduler runs
    its chunks again elsewhere. No worker at all for ``worker_timeout`` seconds (none
    joined, or all left, or the scheduler gone) is a :class:`CrosscheckError`: without one
    the tasks would wait forever. However this ends, the chunks still pending are cancelled
    on the cluster."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise CrosscheckError("--scheduler needs the 'distributed' package: "
                              "pip install 'sudoku-bridge[distributed]'") from None
    try:
        client = Client(scheduler, timeout=connect_timeout)
    except (OSError, TimeoutError) as exc:
        raise CrosscheckError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    pending: dict = {}              # future -> the pairs of its chunk
    try:
        threads = sum(_cluster_threads(client).values())
        size = chunk_size(len(tasks), max(1, threads))
        chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
        pending = dict(zip(client.map(run_routes, chunks, pure=False), map(len, chunks)))
        left = len(tasks)
        # as_completed queues each chunk's future as it finishes: taking what is queued is
        # O(1) per chunk, where a wait() on the pending set is O(pending) per call. Taken
        # without blocking, with a short sleep when nothing is there, so that the no-worker
        # check below runs on time; the sleep does not slow the workers (the scheduler keeps
        # them fed), it only delays the writing. The records are fetched here, one round
        # trip per chunk, not by as_completed's with_results: a fetch that fails there (the
        # scheduler gone) is only logged, and its future never comes out.
        finished = as_completed(pending, loop=client.loop)
        watch = _WorkerWatch(client, scheduler, worker_timeout)
        while pending:
            batch = finished.next_batch(block=False)
            for future in batch:
                records = _dask_records(client, future, worker_timeout)
                if records is None:
                    # finished, but its worker died before handing the records over: the
                    # scheduler runs the chunk again when a worker is there (the watch below
                    # ends the run if none comes)
                    finished.add(future)
                    continue
                left -= pending.pop(future)
                future.release()        # the cluster may forget it (and not recompute it)
                yield from records
            watch.check(left)
            if not batch:
                time.sleep(DASK_POLL)
    finally:
        _close_client(client, list(pending))


def _close_client(client, pending: list) -> None:
    """Cancel ``pending`` on the cluster and close ``client``. Quietly: when the scheduler
    is gone, closing stops the client's attempts to reconnect, which distributed logs as an
    error with its traceback (the run has already said in one line what went wrong)."""
    import logging
    logger = logging.getLogger("distributed.client")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with contextlib.suppress(Exception):
            if pending:
                client.cancel(pending)
        client.close()
    finally:
        logger.setLevel(level)


DASK_POLL = 0.01
"""Seconds between looks at the finished chunks when none was there (a chunk is about a
second of work: the wait is a small part of it)."""


class _WorkerWatch:
    """Fails the run when the cluster has had no worker for ``timeout`` seconds, asking the
    scheduler at most every ``timeout / 4`` seconds (between 0.05 and 1 s)."""

    def __init__(self, client, scheduler: str, timeout: float):
        self.client, self.scheduler, self.timeout = client, scheduler, timeout
        self.every = min(max(timeout / 4, 0.05), 1.0)
        self.asked = time.monotonic()
        self.none_since: float | None = None

    def check(self, left: int) -> None:
        now = time.monotonic()
        if now - self.asked < self.every:
            return
        self.asked = now
        if _cluster_threads(self.client):
            self.none_since = None
        elif self.none_since is None:
            self.none_since = now
        elif now - self.none_since >= self.timeout:
            raise CrosscheckError(f"no Dask worker reachable through the scheduler "
                                  f"{self.scheduler} for {self.timeout:g} s, "
                                  f"{left} task(s) left")


def _cluster_threads(client) -> dict:
    """Worker -> its threads, now; empty when the scheduler is unreachable (the client is
    then reconnecting, or gave up)."""
    if client.status != "running":
        return {}
    try:
        return client.nthreads()
    except (OSError, TimeoutError):
        return {}


def _dask_records(client, future, timeout: float) -> list[RouteResult] | None:
    """A finished chunk's records, or None when they did not come within ``timeout``
    seconds (the worker that held them died: the chunk is to be run again).
    :func:`run_routes` does not raise, so a failure here is the cluster's: a worker died
    running it too often (KilledWorker), the scheduler lost it (the connection to the
    scheduler gone), or the workers cannot import this project."""
    try:
        return future.result(timeout=timeout)
    except TimeoutError:
        return None
    except Exception as exc:  # noqa: BLE001 - whatever the cluster raises, one line
        raise _cluster_error(client, exc) from None


def _cluster_error(client, exc: BaseException) -> CrosscheckError:
    # records come through the scheduler: a connection error is the scheduler's, even
    # before the client has noticed that it is gone (a timeout is not one)
    lost = isinstance(exc, OSError) and not isinstance(exc, TimeoutError)
    if lost or client.status != "running":
        return CrosscheckError(f"lost the connection to the Dask scheduler "
                               f"{client.scheduler.address}")
    return CrosscheckError(f"a Dask task failed on the cluster: {type(exc).__name__}: "
                           f"{first_line(exc)}")


