"""CLI: ``sudoku-bridge hamiltonian FILE... [--solver S] [--directed] ...`` — a Hamiltonian
cycle of any graph file (:mod:`solvers.formats.graph_reading` reads it,
:mod:`solvers.tools.graph_runs` solves and checks it).

One line per graph on stdout (``FILE: hamiltonian (66 vertices, 99 edges; sat)``; the times
are in the ``--json`` records),
a tour only once checked against the graph: ``-o TOUR`` (one graph) writes it as a TSPLIB
TOUR, ``--json OUT.jsonl`` one record per graph with the tour (1-based). A bad file is one
line on stderr naming the file and line. Exit code over all graphs: 4 a solver's wrong
tour, 2 a bad file or a solver that cannot run, 3 some graph unknown, 1 some graph proved
to have no cycle, 0 every graph has one.

``--resume`` goes on from the ``--json`` file of an interrupted run: a record is kept only
when it is a Hamiltonian cycle that checks against the graph read again now (same file,
solver, direction); every other graph runs again (a "no cycle" cannot be re-checked from a
record).

``--certify`` backs each "no cycle" by a checked proof (:mod:`solvers.certify.hamiltonian`,
run in the worker beside the solve); without it the line says whose word it is."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from reductions.errors import UserError
from reductions.reading import STDIN_NAME, is_stdin

from . import common
from .parser import COMMAND_SUMMARIES
from .common import ExitCode

SOLVERS = ("sat", "cpsat", "lkh", "linkern", "concorde")


def run_hamiltonian(args: argparse.Namespace) -> int:
    from ..formats.atomic import check_outputs
    files = graph_files(args.files)
    check_outputs({"-o": args.output, "--json": args.json}, inputs=files)
    if args.output and len(files) != 1:
        raise UserError(f"-o writes the tour of one graph; {len(files)} graphs given (use "
                        f"--json for several)")
    if args.json and Path(args.json).suffix in (".gz", ".xz", ".bz2"):
        raise UserError(f"--json {args.json}: the hamiltonian records are written plain "
                        f"(name the file .jsonl; compress it when the run is over)")
    if args.resume and not args.json:
        raise UserError("--resume needs --json OUT.jsonl (the file to resume from)")
    tasks = _tasks(files, args)
    kept = _resumed(Path(args.json), tasks, common.memory_limit(args)) \
        if args.resume else {}
    records = _run(tasks, kept, args, _certifier(args))
    return _report(records, args)


def _certifier(args: argparse.Namespace):
    """With ``--certify``: the function that certifies each "no cycle" (a checker found
    first: none is one line, exit 2), else None."""
    from .certify import certify_options
    options = certify_options(args)
    if options is None:
        return None
    from functools import partial
    from ..certify.hamiltonian import certify_result
    return partial(certify_result, certify=options)


def graph_files(names: list[str]) -> list[str]:
    """The files named, ``-`` standard input, a folder standing for its regular files
    (natural order: graph2 before graph10); a name that is none of these is a one-line
    error."""
    files: list[str] = []
    for name in names:
        path = Path(name)
        if is_stdin(name):
            files.append(name)
        elif path.is_dir():
            inside = [p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")]
            files += [str(p) for p in sorted(inside, key=_natural)]
        elif path.is_file():
            files.append(name)
        else:
            raise UserError(f"{name}: no such file or folder")
    if not files:
        raise UserError(f"no graph files in {', '.join(names)}")
    return files


def _natural(path: Path) -> list:
    return [int(part) if part.isdigit() else part
            for part in re.split(r"(\d+)", path.name)]


def _tasks(files: list[str], args: argparse.Namespace) -> list:
    from ..tools.graph_runs import GraphTask
    solver = "command" if args.hcp_cmd else args.solver
    return [GraphTask(path=path, solver=solver, directed=args.directed,
                      time_limit=args.time_limit, command=args.hcp_cmd,
                      memory_limit=common.memory_limit(args)) for path in files]


def _resumed(path: Path, tasks: list, memory_limit: int) -> dict[str, dict[str, Any]]:
    """The records of ``path`` kept by ``--resume`` (module docstring), by file."""
    if not path.exists():
        return {}
    from reductions.reading import ReadLimit, read_text
    from ..formats.graph_reading import read_any_graph
    from ..tools.graph_runs import check_tour
    wanted = {t.path: t for t in tasks}
    limit = ReadLimit.share(memory_limit, what="a results file", per_byte=4)
    kept: dict[str, dict[str, Any]] = {}
    for line in read_text(path, limit).splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue                      # a line cut by the interruption: run again
        task = wanted.get(record.get("file")) if isinstance(record, dict) else None
        if (task is None or record.get("status") != "hamiltonian"
                or record.get("solver") != str(task.solver)
                or record.get("directed") is not task.directed
                or not isinstance(record.get("tour"), list)):
            continue
        try:
            graph = read_any_graph(task.path, memory_limit=memory_limit)
            tour = [int(v) - 1 for v in record["tour"]]
        except (UserError, TypeError, ValueError):
            continue
        if check_tour(graph.num_vertices, graph.pairs, tour, task.directed) is None:
            kept[task.path] = record
    return kept


def _run(tasks: list, kept: dict[str, dict[str, Any]], args: argparse.Namespace,
         certify=None) -> list[dict[str, Any]]:
    """Every task's record (kept ones included), streamed to ``--json`` as they come, the
    file rewritten in input order at the end."""
    from ..formats.atomic import atomic_write
    todo = [t for t in tasks if t.path not in kept]
    records = dict(kept)
    if args.json:
        with atomic_write(args.json, "w") as out:        # start from the kept records only
            out.writelines(json.dumps(r) + "\n" for r in kept.values())
    progress = common.Progress(len(todo), "hamiltonian", asked=args.progress, unit="graph")
    stream = open(args.json, "a", encoding="utf-8") if args.json else None
    try:
        for record in _records(todo, args.jobs, certify):
            records[record["file"]] = record
            if stream is not None:
                stream.write(json.dumps(record) + "\n")
                stream.flush()
            progress.step()
    finally:
        progress.close()
        if stream is not None:
            stream.close()
    ordered = [records[t.path] for t in tasks]
    if args.json:
        with atomic_write(args.json, "w") as out:
            out.writelines(json.dumps(r) + "\n" for r in ordered)
    return ordered


def _records(tasks: list, jobs: int, certify=None):
    """The records of ``tasks`` as they finish: here, or on ``jobs`` worker processes."""
    from ..tools.graph_runs import run_graph_task
    for task in tasks:                   # standard input is this process's, not a worker's
        if is_stdin(task.path):
            yield run_graph_task(task)
    tasks = [task for task in tasks if not is_stdin(task.path)]
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield run_graph_task(task, certify)
        return
    from concurrent.futures import as_completed
    from ..runtime.processes import worker_pool
    with worker_pool(min(jobs, len(tasks))) as pool:
        futures = [pool.submit(run_graph_task, task, certify) for task in tasks]
        for future in as_completed(futures):
            yield future.result()


def _report(records: list[dict[str, Any]], args: argparse.Namespace) -> int:
    """Print a line per graph (errors on stderr), write ``-o``; the exit code."""
    from ..formats.tsplib import write_tour
    codes = []
    for record in records:
        status = record["status"]
        name = STDIN_NAME if is_stdin(record["file"]) else record["file"]
        if status in ("error", "not available", "wrong"):
            reason = record.get("reason", "")
            named = status == "error" and reason.startswith(name)
            print(reason if named else f"{name}: {status}: {reason}", file=sys.stderr)
            codes.append(ExitCode.MISMATCH if status == "wrong" else ExitCode.BAD_INPUT)
            continue
        print(f"{name}: {status} ({_summary(record)})")
        codes.append({"hamiltonian": ExitCode.OK, "no cycle": ExitCode.NO_SOLUTION}
                     .get(status, ExitCode.UNKNOWN))
        if status == "hamiltonian" and args.output:
            write_tour(args.output, [v - 1 for v in record["tour"]],
                       name=Path(name).name, comment="Hamiltonian cycle, checked "
                       "against the graph by sudoku-bridge")
    for code in (ExitCode.MISMATCH, ExitCode.BAD_INPUT, ExitCode.UNKNOWN,
                 ExitCode.NO_SOLUTION):
        if code in codes:
            return code
    return ExitCode.OK


def _summary(record: dict[str, Any]) -> str:
    kind = "arcs" if record.get("directed") else "edges"
    text = f"{record.get('vertices')} vertices, {record.get('pairs')} {kind}; {record['solver']}"
    if record.get("ignored"):
        text += f"; ignored {record['ignored']}"
    if record["status"] != "hamiltonian" and record.get("reason"):
        text += f"; {record['reason']}"
    if record["status"] == "no cycle":
        checker = record.get("certified")
        text += f"; certified by {checker}" if checker else "; uncertified"
    return text


def register(commands: common.Commands) -> None:
    parser = commands.top.add_parser(
        "hamiltonian", help=COMMAND_SUMMARIES["hamiltonian"],
        description="Find a Hamiltonian cycle of each graph, or prove there is none. Reads "
                    "TSPLIB HCP (EDGE_LIST or ADJ_LIST), DIMACS ('p edge N M' or the FHCP "
                    "set's 'p N M' .col files), the 'V A' arc list, Concorde's edge file "
                    "and 0-based edge lists, compressed or not (recognised by content). "
                    "Loops and repeated edges are ignored with a note. Every tour is checked "
                    "against the graph before it is written. Exit 0 every graph has a cycle, "
                    "1 some graph proved to have none, 3 some unknown (time limit), 2 a bad "
                    "file or a solver that cannot run, 4 a solver's wrong tour (or, with --certify, a "
                    "rejected proof or subtour cut).")
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="graph files ('-': standard input), or folders of graph files")
    parser.add_argument("--solver", choices=SOLVERS, default="sat",
                        help="sat (default: exact, incremental SAT with subtour cuts), "
                             "cpsat (exact, OR-Tools), or the heuristics lkh, linkern and "
                             "concorde (exact, but 'no cycle' only from its optimum)")
    parser.add_argument("--hcp-cmd", metavar="TEMPLATE",
                        help="run this program on each graph instead (the templates of "
                             "solve --via hcp --hcp-cmd); its tour is checked")
    parser.add_argument("--directed", action="store_true",
                        help="read each pair as an arc (tail head)")
    parser.add_argument("--time-limit", type=common.seconds_arg, metavar="S",
                        help="seconds per graph ('unknown' past it)")
    parser.add_argument("-o", "--output", metavar="TOUR",
                        help="write the cycle of the (one) graph as a TSPLIB TOUR file")
    parser.add_argument("--json", metavar="OUT.jsonl",
                        help="one JSON record per graph (with the 1-based tour when found)")
    parser.add_argument("--resume", action="store_true",
                        help="go on from the --json file of an interrupted run (its tours "
                             "re-checked; everything else runs again)")
    from .certify import add_certify_options
    add_certify_options(parser)
    common.add_progress_option(parser)
    parser.add_argument("--jobs", type=common.positive_int_arg, default=1,
                        help="graphs solved at once in worker processes (default: 1)")
    common.add_memory_option(parser)
    parser.set_defaults(run=run_hamiltonian)
