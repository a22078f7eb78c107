"""Cross-checking: planted wrong answers are caught, several-solution puzzles are not called
mismatches without --unique, interrupted runs resume to the same file, pools and Dask agree."""

from __future__ import annotations

import dataclasses
import json

import pytest

from reductions.sudoku.grid import Grid, format_grid
from solvers.crosscheck import report, runners
from solvers.routes import sat_incremental as sat
from solvers.cli import ExitCode, main
from solvers.crosscheck.records import CrosscheckError, RecordStatus, RouteResult
from solvers.crosscheck.report import find_mismatches, summary_rows
from solvers.crosscheck.results_file import read_results
from solvers.crosscheck.run import DEFAULT_ROUTES, run_crosscheck
from solvers.crosscheck.runners import Execution
from solvers.outcome import Outcome, Status
from solvers.routes import ROUTES, Route, Target
from solvers.routes.sat import solve_puzzle

from tests.conftest import instance_puzzles

SAMPLE = [(f"p{i}", format_grid(p)) for i, p in
          enumerate(instance_puzzles("royle17-sample300.txt", 6))]
SEVERAL = format_grid(instance_puzzles("multiple-solutions.txt")[0])


def corrupt_route(puzzle, *, unique, time_limit):
    """Solves, then swaps two digits of the first free row: a wrong grid, as a buggy
    reduction might return. Used only here."""
    outcome = solve_puzzle(puzzle)
    values = outcome.grid.values.copy()
    values[0, [0, 1]] = values[0, [1, 0]]
    return Outcome(Status.SOLVED, Grid(values, puzzle.shape), stats={"variables": 1})


def liar_route(puzzle, *, unique, time_limit):
    """Claims 'no solution' for everything."""
    return Outcome(Status.NO_SOLUTION)


def overconfident_route(puzzle, *, unique, time_limit):
    """Solves but always claims uniqueness."""
    outcome = solve_puzzle(puzzle)
    outcome.unique = True if unique else None
    return outcome


@pytest.fixture
def planted(monkeypatch):
    for name in ("corrupt", "liar", "overconfident"):
        route = Route(name=name, target=Target.CNF, summary="planted by the test",
                      run=lambda name=name: globals()[f"{name}_route"])
        monkeypatch.setitem(ROUTES, name, route)


def test_agreeing_routes_have_no_mismatch():
    results = run_crosscheck(SAMPLE, ["sat", "sat-glucose"], unique=True)
    assert len(results) == 12 and all(r.verified for r in results)
    assert find_mismatches(results, unique=True) == []
    rows = summary_rows(results, ["sat", "sat-glucose"])
    assert [r["solved"] for r in rows] == [6, 6]


def test_planted_wrong_grid_is_a_mismatch(planted):
    results = run_crosscheck(SAMPLE[:2], ["sat", "corrupt"])
    mismatches = find_mismatches(results, unique=False)
    assert len(mismatches) == 2
    assert all("corrupt returned an invalid grid" in m.reason for m in mismatches)
    assert "INVALID" in mismatches[0].answers["corrupt"]


def test_planted_false_no_solution_is_a_mismatch(planted):
    results = run_crosscheck(SAMPLE[:1], ["sat", "liar"])
    [mismatch] = find_mismatches(results, unique=False)
    assert "liar said no solution" in mismatch.reason


def test_several_solutions_are_not_a_mismatch_without_unique(planted):
    results = run_crosscheck([("several", SEVERAL)], ["sat", "sat-glucose"])
    assert find_mismatches(results, unique=False) == []
    checked = run_crosscheck([("several", SEVERAL)], ["sat", "sat-glucose"], unique=True)
    assert all(r.unique is False for r in checked)
    assert find_mismatches(checked, unique=True) == []
    # ... but a route that calls it unique is caught
    lying = run_crosscheck([("several", SEVERAL)], ["sat", "overconfident"], unique=True)
    [mismatch] = find_mismatches(lying, unique=True)
    assert "overconfident called the solution unique" in mismatch.reason


def test_cli_exit_code_and_listing(planted, capsys, tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("\n".join(text for _, text in SAMPLE[:2]) + "\n")
    code = main(["crosscheck", str(path), "--routes", "sat,corrupt", "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == ExitCode.MISMATCH and out.count("MISMATCH") == 2
    code = main(["crosscheck", str(path), "--routes", "sat,sat-glucose", "--jobs", "1"])
    assert code == ExitCode.OK and "no mismatches" in capsys.readouterr().out


def test_unknown_route_is_refused(capsys):
    with pytest.raises(CrosscheckError, match="unknown route 'nope'"):
        run_crosscheck(SAMPLE[:1], ["nope"])
    assert main(["crosscheck", SAMPLE[0][1], "--routes", "sat,nope"]) == 2


def comparable(records):
    return [(r.puzzle_id, r.route, r.status, r.solution, r.verified) for r in records]


def test_interrupted_run_resumes_to_the_same_file(tmp_path):
    routes = ["sat", "sat-glucose"]
    full_path = tmp_path / "full.jsonl"
    full = run_crosscheck(SAMPLE, routes, results_path=full_path)

    path = tmp_path / "run.jsonl"
    seen = []

    def stop_after_five(result):
        seen.append(result)
        if len(seen) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_crosscheck(SAMPLE, routes, results_path=path, on_result=stop_after_five)
    assert len(read_results(path)) == 5
    with open(path, "a") as handle:             # a record torn by the interruption
        handle.write('{"puzzle_id": "p5", "rou')
    calls = []
    resumed = run_crosscheck(SAMPLE, routes, results_path=path, resume=True,
                             on_result=calls.append)
    assert len(calls) == 12 - 5                  # only the missing pairs ran
    assert comparable(read_results(path)) == comparable(read_results(full_path))
    assert comparable(resumed) == comparable(full)


def test_local_pool_gives_the_same_records():
    one = run_crosscheck(SAMPLE, ["sat", "sat-glucose"], execution=Execution(jobs=1))
    two = run_crosscheck(SAMPLE, ["sat", "sat-glucose"], execution=Execution(jobs=2))
    assert comparable(one) == comparable(two)


def test_dask_cluster_on_loopback(tmp_path):
    distributed = pytest.importorskip("distributed", reason="the 'distributed' extra is "
                                                            "not installed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    try:
        path = tmp_path / "dask.jsonl"
        results = run_crosscheck(SAMPLE, ["sat", "sat-glucose"], results_path=path,
                                 execution=Execution(scheduler=cluster.scheduler_address))
    finally:
        cluster.close()
    local = run_crosscheck(SAMPLE, ["sat", "sat-glucose"])
    assert comparable(results) == comparable(local)
    assert len(path.read_text().splitlines()) == 12


def test_unreachable_scheduler_is_a_clear_error():
    pytest.importorskip("distributed", reason="the 'distributed' extra is not installed")
    with pytest.raises(CrosscheckError, match="cannot reach the Dask scheduler"):
        run_crosscheck(SAMPLE[:1], ["sat"],
                       execution=Execution(scheduler="tcp://127.0.0.1:9", scheduler_timeout=1))


def test_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="the 'plots' extra is not installed")
    out = tmp_path / "times.png"
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("\n".join(text for _, text in SAMPLE) + "\n")
    assert main(["crosscheck", str(puzzles), "--plot", str(out), "--json",
                 str(tmp_path / "r.jsonl")]) == ExitCode.OK
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
    records = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    # the default routes: those of DEFAULT_ROUTES that can run here
    expected = {r for r in DEFAULT_ROUTES if ROUTES[r].unavailable() is None}
    assert {r["route"] for r in records} == expected and {"sat", "exact-cover"} <= expected


def test_unsolvable_puzzles_agree_on_no_solution():
    puzzles = [(f"u{i}", format_grid(p)) for i, p in
               enumerate(instance_puzzles("unsolvable.txt"))]
    results = run_crosscheck(puzzles, ["sat", "sat-glucose"])
    assert all(r.status == Status.NO_SOLUTION for r in results)
    assert find_mismatches(results, unique=False) == []


def test_bad_line_is_an_error_record(tmp_path):
    results = run_crosscheck([("bad", "12345")], ["sat"])
    assert results[0].status == "error" and "5 cells" in results[0].error


def test_resume_requires_json(capsys):
    assert main(["crosscheck", SAMPLE[0][1], "--resume"]) == 2
    assert "--resume needs --json" in capsys.readouterr().err


def test_shipped_sizes_through_crosscheck():
    puzzles = [(f"s{i}", format_grid(p)) for i, p in enumerate(
        instance_puzzles("6x6-2x3.txt") + instance_puzzles("16x16.txt"))]
    results = run_crosscheck(puzzles, ["sat", "sat-glucose"])
    assert len(results) == 2 * len(puzzles)
    assert all(r.status == Status.SOLVED and r.verified for r in results)


# ----------------------------------------------------------------------------- every route

HEURISTIC_ROUTES = {"lkh", "linkern", "concorde"}
"""Routes that may answer "unknown" where the exact ones answer (LKH and linkern find no cycle
of the 17-clue and hardest 9×9 graphs in minutes: benchmarks/results/lkh_params.md; Concorde
does not finish them); tested in tests/solvers/tools/test_lkh.py, tests/solvers/tools/test_linkern.py and
tests/solvers/formats/test_hcp_formats.py."""
ALL_ROUTES = [name for name, route in ROUTES.items()
              if name not in HEURISTIC_ROUTES and route.target != Target.DEDUCTION]
"""Every complete route (deduction may answer unknown: tests/solvers/routes/test_deduction.py)."""
CORE_ROUTES = {"sat", "exact-cover", "exact-cover-dlx", "hcp-directed", "hcp-undirected"}
"""Routes that need nothing outside the required dependencies: never skipped."""
SIZE_KINDS = {"hcp": "arcs", "hcp-directed": "arcs", "hcp-undirected": "edges"}


def _route_param(name: str):
    """``name`` as a test parameter, skipped with the reason when it cannot run here."""
    why = ROUTES[name].unavailable()
    return pytest.param(name, marks=pytest.mark.skipif(why is not None, reason=str(why)))


def test_the_core_routes_run_everywhere():
    assert {name: ROUTES[name].unavailable() for name in CORE_ROUTES} == \
        dict.fromkeys(CORE_ROUTES)


@pytest.mark.parametrize("route", [_route_param(name) for name in ALL_ROUTES])
def test_every_route_agrees_on_hard_and_unsolvable_puzzles(route):
    """Each complete route beside the sat route, with --unique: no mismatch, the hard
    puzzles solved (and unique), the unsolvable ones proved to have no solution."""
    puzzles = ([(f"h{i}", format_grid(p)) for i, p in
                enumerate(instance_puzzles("forum-hardest-sample100.txt", 3))]
               + [(f"u{i}", format_grid(p)) for i, p in
                  enumerate(instance_puzzles("unsolvable.txt"))])
    results = run_crosscheck(puzzles, ["sat", route], unique=True, time_limit=120)
    assert find_mismatches(results, unique=True) == []
    for r in results:
        expected = Status.NO_SOLUTION if r.puzzle_id.startswith("u") else Status.SOLVED
        assert r.status == expected, (r.route, r.puzzle_id, r.error)
        assert r.size is not None and r.size_kind, r.route
        if expected == Status.SOLVED and ROUTES[r.route].checks_uniqueness:
            assert r.unique is True, (r.route, r.puzzle_id)
    if route in SIZE_KINDS:
        assert {r.size_kind for r in results if r.route == route} == {SIZE_KINDS[route]}


def test_routes_that_need_square_blocks_are_not_applicable(tmp_path, capsys):
    six = [(f"six{i}", format_grid(p)) for i, p in enumerate(instance_puzzles("6x6-2x3.txt"))]
    results = run_crosscheck(six, ["exact-cover", "hcp-directed"])
    hcp = [r for r in results if r.route == "hcp-directed"]
    assert all(r.status == RecordStatus.NOT_APPLICABLE and "square" in r.error for r in hcp)
    assert all(r.verified for r in results if r.route == "exact-cover")
    assert find_mismatches(results, unique=False) == []
    rows = {row["route"]: row for row in summary_rows(results, ["exact-cover", "hcp-directed"])}
    assert rows["hcp-directed"]["not applicable"] == len(six) and rows["hcp-directed"]["error"] == 0
    # a mixed file: the 6x6 puzzles are n/a for the HCP route, not errors, and exit code 0
    path = tmp_path / "mixed.txt"
    path.write_text(six[0][1] + "\n")
    assert main(["crosscheck", str(path), "--routes", "sat,hcp-directed", "--jobs", "1"]) == ExitCode.OK
    assert "not applicable" in capsys.readouterr().out


def test_unavailable_route_names_its_requirement(monkeypatch):
    monkeypatch.setitem(ROUTES, "ilp-highs", dataclasses.replace(
        ROUTES["ilp-highs"], needs_module="no_such_module_for_the_test"))
    why = ROUTES["ilp-highs"].unavailable()
    assert "no_such_module_for_the_test" in why


def test_incremental_sat_route_agrees_and_checks_uniqueness(monkeypatch):
    monkeypatch.setattr(sat._PROCESS_SOLVERS, "renew_after", 3)    # exercise the renewal
    puzzles = SAMPLE + [("several", SEVERAL)] + [
        (f"u{i}", format_grid(p)) for i, p in enumerate(instance_puzzles("unsolvable.txt"))]
    results = run_crosscheck(puzzles, ["sat", "sat-incremental"], unique=True)
    assert find_mismatches(results, unique=True) == []
    by = {(r.puzzle_id, r.route): r for r in results}
    for pid, _ in SAMPLE:
        assert by[pid, "sat-incremental"].unique is True
        assert by[pid, "sat-incremental"].solution == by[pid, "sat"].solution
    assert by["several", "sat-incremental"].unique is False
    assert by["several", "sat-incremental"].second_solution is not None
    assert all(by[f"u{i}", "sat-incremental"].status == Status.NO_SOLUTION for i in range(4))


@pytest.fixture
def heuristic_route(monkeypatch):
    """A route that cannot check uniqueness, as a heuristic's (LKH, linkern, --hcp-cmd):
    the built-in Algorithm X registered with ``checks_uniqueness=False``."""
    name = "exact-cover-nocheck"
    monkeypatch.setitem(ROUTES, name, dataclasses.replace(
        ROUTES["exact-cover-dlx"], name=name, checks_uniqueness=False))
    return name


def test_unique_with_a_route_that_cannot_check_it(heuristic_route):
    # --unique: every route checks it, the HCP routes too, except one that cannot (unique
    # stays None, counted 'unchecked'); the several-solution puzzle is 'several'.
    puzzles = SAMPLE[:2] + [("several", SEVERAL)]
    routes = ["sat-incremental", "exact-cover", "hcp-directed", "hcp-undirected",
              heuristic_route]
    results = run_crosscheck(puzzles, routes, unique=True)
    assert find_mismatches(results, unique=True) == []
    rows = {row["route"]: row for row in summary_rows(results, routes)}
    for route in routes[:4]:
        assert (rows[route]["unique"], rows[route]["several"], rows[route]["unchecked"]) \
            == (2, 1, 0), route
    assert (rows[heuristic_route]["unique"], rows[heuristic_route]["unchecked"]) == (0, 3)
    table = report.format_summary(list(rows.values()), unique=True)
    head = table.splitlines()[0].split()
    assert head[:3] == ["route", "solved", "no"]           # the statuses keep their places
    assert head[head.index("available") + 1:][:3] == ["unique", "several", "unchecked"]
    assert "unique" not in report.format_summary(list(rows.values()))
    checked = [rows[r] for r in routes[:4]]                 # no route needs 'unchecked'
    head = report.format_summary(checked, unique=True).splitlines()[0].split()
    assert head[head.index("available") + 1:][:3] == ["unique", "several", "median"]


def test_cli_unique_names_the_routes_that_cannot_check_it(tmp_path, capsys,
                                                          heuristic_route):
    path = tmp_path / "p.txt"
    path.write_text(SAMPLE[0][1] + "\n")
    code = main(["crosscheck", str(path), "--routes", f"hcp-undirected,{heuristic_route}",
                 "--unique", "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == ExitCode.OK
    assert f"uniqueness not checked by {heuristic_route} (the route cannot)" in out
    code = main(["crosscheck", str(path), "--routes", "exact-cover,hcp-undirected",
                 "--unique", "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == ExitCode.OK and "not checked" not in out and "unchecked" not in out


def test_another_valid_grid_from_a_route_that_cannot_check_uniqueness_is_a_mismatch():
    # A route that does not check uniqueness still contradicts 'unique' with another grid.
    text = SEVERAL
    [sat_record] = run_crosscheck([("s", text)], ["sat"], unique=True)
    first, second = sat_record.solution, sat_record.second_solution
    assert sat_record.unique is False and first != second
    claims = [RouteResult("s", text, "a", "solved", 0.0, True, first, True),
              RouteResult("s", text, "b", "solved", 0.0, True, second, None)]
    [mismatch] = find_mismatches(claims, unique=True)
    assert "a called the solution unique" in mismatch.reason


def test_pool_tasks_are_chunks_of_consecutive_pairs(monkeypatch):
    assert runners.chunk_size(10, 2) == 1
    assert runners.chunk_size(245_000, 2) == runners.CHUNK_MAX
    assert runners.chunk_size(32 * 7, 2) == 7
    # chunks of 3 pairs over 2 workers: every record once, the same answers as in process
    monkeypatch.setattr(runners, "CHUNK_MAX", 3)
    routes = ["sat-incremental", "exact-cover"]
    pooled = run_crosscheck(SAMPLE, routes, unique=True, execution=Execution(jobs=2))
    here = run_crosscheck(SAMPLE, routes, unique=True, execution=Execution(jobs=1))
    assert [(r.puzzle_id, r.route, r.solution, r.unique) for r in pooled] == \
        [(r.puzzle_id, r.route, r.solution, r.unique) for r in here]
