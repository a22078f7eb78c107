"""Cross-checking: the same puzzles through several routes, every answer verified, and any
disagreement shown plainly.

The routes are those of :data:`solvers.routes.ROUTES`.
:func:`~solvers.crosscheck.run.run_crosscheck` runs every (puzzle, route) pair — in this
process, on a local process pool, or on a Dask distributed cluster — streams one JSON record
per pair to a JSON-lines file as results arrive (so an interrupted run keeps what finished,
and ``resume`` skips it), and :func:`~solvers.crosscheck.report.find_mismatches` then
compares the routes puzzle by puzzle.

A **mismatch** is: a route returning a grid that does not solve the puzzle; "no solution" from
one route where another solved it (solved grids are verified, so the "no solution" is wrong);
and, when uniqueness is checked, routes disagreeing about it or returning different grids for a
puzzle they call unique. Different grids are *not* a mismatch when uniqueness is not checked —
the puzzle may have several solutions. A route that crashes is an **error**, listed too. A
route that does not apply to a puzzle's shape (the HCP routes on non-square blocks) is recorded
as **not applicable**, and one that cannot run here (its program or package is missing) as
**not available**; neither is a mismatch or an error. The record statuses are
:class:`~solvers.crosscheck.records.RecordStatus`.

Interruptions: each record is appended in one write (to a file named ``.gz``, ``.xz`` or
``.bz2``, as a compressed member of its own), so a run killed at any point leaves complete
records and at most a torn last line or member, which ``resume`` cuts off before appending:
byte-exact in a plain file, whatever its line ends; by rewriting the complete records
(atomically) in a compressed one. ``resume`` believes nothing it reads back: what it keeps
is re-checked, and the claims no record can prove are run again. Pool workers die with the
process that started them (even when it is killed by SIGKILL), and are killed at once on
Ctrl-C, SIGTERM or an error. A Dask run without any worker for ``worker_timeout`` seconds
stops with a :class:`~solvers.crosscheck.records.CrosscheckError` instead of waiting
forever.

The modules, bottom up:

* ``records.py``: a (puzzle, route) record (:class:`RouteResult`), its statuses and its
  JSON line, read back typed;
* ``recheck.py``: what a record read back must prove again (its grids, its verdicts);
* ``results_file.py``: the JSON-lines results file: reading it, resuming from it,
  appending to it record by record;
* ``runners.py``: one pair run (:func:`~solvers.crosscheck.runners.run_route`), and where
  the pairs run: here, a local process pool, a Dask cluster;
* ``run.py``: a whole run (:func:`~solvers.crosscheck.run.run_crosscheck`);
* ``report.py``: mismatches, the summary table and the plot.
"""
