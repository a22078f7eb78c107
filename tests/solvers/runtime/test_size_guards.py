"""Size guards: every builder is estimated before it is built (the sizes.py beside each
construction, reductions/*/sizes.py) and refused over the memory limit (--max-memory,
solvers/runtime/memory.py); DIMACS headers are checked; the validations skip what is too large and
go on."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reductions import reading
from reductions.encodings.cnf import AMO_ENCODINGS, sudoku_cnf
from reductions.encodings.exact_cover import sudoku_exact_cover
from reductions.formulas import Formula, example_satisfiable, random_3sat
from reductions.sudoku.grid import Grid, Shape, parse_grid
from reductions.hamiltonian.hcp_pipeline import HcpOptions, build_hcp_pipeline
from reductions.encodings.ilp import sudoku_ilp
from reductions.nishio.gadget import nishio_gadget
from reductions.nishio.theorem3 import theorem3_instance
from reductions.nonrepetitive.nrpath_gadget import nrpath_gadget
from reductions.estimate import TooLarge, ensure_fits
from reductions.nishio.sizes import (cell_set_reading_estimate, nishio_gadget_estimate,
                                     nishio_validation_estimate, placement_model_estimate)
from reductions.encodings.sizes import cnf_estimate, exact_cover_estimate, ilp_estimate
from reductions.errors import format_bytes
from reductions.formulas import formula_sat_estimate
from reductions.hamiltonian.sizes import hcp_estimate
from reductions.nonrepetitive.sizes import nrpath_gadget_estimate
from solvers import cli
from solvers.cli import ExitCode
from solvers.formats import dimacs
from solvers.formats.dimacs import MAX_DIMACS, DimacsError, parse_cnf, read_cnf, read_formula
from solvers.runtime.memory import MemorySizeError, default_limit, parse_size
from solvers.gadgets.nishio import PlacementModel, validate_formula

from tests.conftest import INSTANCES, ROOT

FORMULAS = INSTANCES / "formulas"
SMALL = FORMULAS / "nishio-sat-example.cnf"
BIG_N = FORMULAS / "nrpath-random-20-91-sat.cnf"      # Nishio n = 274: a 75,076² grid
MIXED = FORMULAS / "nishio-sat-random-v5-c12.cnf"     # n = 37; Theorem 3: n = 73
PUZZLE = INSTANCES / "haythorpe-17clue.txt"
PUZZLE_16 = next(line for line in (INSTANCES / "16x16.txt").read_text().splitlines()
                 if line and not line.startswith("#"))


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_refusal(err: str) -> bool:
    return (err.startswith("sudoku-bridge: error:") and len(err.strip().splitlines()) == 1
            and "Traceback" not in err and "MemoryError" not in err)


@pytest.fixture
def million(tmp_path) -> Path:
    """A formula over 10^6 variables (Nishio n > 10^6: a grid of 10^24 cells)."""
    path = tmp_path / "million.cnf"
    path.write_text("p cnf 1000000 2\n1 -2 3 0\n999999 1000000 0\n")
    return path


@pytest.fixture
def int31(tmp_path) -> Path:
    """A legal header claiming 2^31 - 1 variables, of which 3 are used."""
    path = tmp_path / "int31.cnf"
    path.write_text(f"p cnf {MAX_DIMACS} 1\n1 -2 3 0\n")
    return path


# ----------------------------------------------------------------------------- refusals

@pytest.mark.parametrize("gadget", ["nishio", "nrpath"])
def test_huge_formula_is_refused_in_one_line_fast(capsys, tmp_path, million, int31, gadget):
    for path in (million, int31) if gadget == "nishio" else (int31,):
        start = time.perf_counter()
        code, out, err = run(capsys, "gadget", gadget, path, "-o", tmp_path / "out.txt")
        assert time.perf_counter() - start < 5
        assert code == ExitCode.BAD_INPUT and out == "" and one_line_refusal(err)
        assert f"gadget {gadget}: {path} (its header declares " in err and " used) needs a" in err
        assert "over the memory limit of" in err and "(--max-memory)" in err
        assert not (tmp_path / "out.txt").exists()


def test_nishio_refusal_names_the_grid(capsys, tmp_path):
    code, _, err = run(capsys, "gadget", "nishio", BIG_N, "-o", tmp_path / "S.txt",
                       "--max-memory", "8G")
    assert code == ExitCode.BAD_INPUT and one_line_refusal(err)
    assert "needs a 75,076 x 75,076 grid of 5.6e9 cells (about" in err
    assert "over the memory limit of 8 GiB (--max-memory)" in err


def test_header_beyond_32_bits_is_a_reading_error(capsys, tmp_path):
    path = tmp_path / "h.cnf"
    path.write_text(f"p cnf {2**31} 1\n1 2 0\n")
    for gadget in ("nishio", "nrpath"):
        code, _, err = run(capsys, "gadget", gadget, path, "-o", tmp_path / "x.txt")
        assert code == ExitCode.BAD_INPUT and one_line_refusal(err)
        assert "line 1: the header declares 2,147,483,648 variables" in err


@pytest.mark.parametrize("text, message", [
    (f"p cnf 3 {2**31}\n", "line 1: the header declares 2,147,483,648 clauses"),
    ("p cnf -3 1\n1 0\n", "line 1: bad header"),
    ("p cnf 3 1.0\n1 0\n", "line 1: bad header"),
    ("p cnf ３ 1\n1 0\n", "line 1: bad header"),            # a non-ASCII digit
    ("c x\np cnf 99999999999999999999999 1\n", "line 2: the header declares"),
    ("p cnf 3 1\n1 0\n2 0\n", "line 3: more clauses than the 1 the header declares"),
])
def test_absurd_headers_are_line_errors(text, message):
    with pytest.raises(DimacsError, match=message):
        parse_cnf(text, "f.cnf")


def test_reading_stops_at_a_wide_clause_before_reading_it_all(tmp_path, monkeypatch):
    """The bytes taken from the file are counted (the reading layer's own count): the
    reader stops within its first block of a 6.9 MB clause line."""
    path = tmp_path / "wide.cnf"
    with open(path, "w") as out:                        # one clause line of 10^6 literals
        out.write("p cnf 1000000 1\n" + " ".join(map(str, range(1, 10**6 + 1))) + " 0\n")
    opened = []

    def open_and_keep(*args, **kwargs):
        opened.append(reading.open_text(*args, **kwargs))
        return opened[-1]
    monkeypatch.setattr(dimacs, "open_text", open_and_keep)
    with pytest.raises(DimacsError, match=r"line 2: clause 1 \[1, 2, 3, 4, \.\.\.\] has more "
                                          r"than 3 literals"):
        read_cnf(path, max_width=3)
    taken = opened[0].buffer.raw.count               # bytes read from the file
    assert 0 < taken <= 2 * reading.BLOCK < path.stat().st_size // 3


def test_long_lines_are_read_in_pieces(tmp_path):
    """A clause line far longer than the reader's piece size still parses exactly."""
    path = tmp_path / "long.cnf"
    literals = [v if v % 3 else -v for v in range(1, 50_001)]
    path.write_text("c  comment\np cnf 50000 2\n" + " ".join(map(str, literals)) + " 0 7 -8 0")
    cnf = read_cnf(path)
    assert cnf.clauses == [literals, [7, -8]] and cnf.comments == ["comment"]


def test_emit_refused_under_a_tiny_limit(capsys, tmp_path):
    for target, suffix in (("cnf", "cnf"), ("exact-cover", "dlx"), ("ilp", "lp"),
                           ("hcp", "hcp")):
        out_path = tmp_path / f"p.{suffix}"
        code, out, err = run(capsys, "emit", target, PUZZLE, "-o", out_path,
                             "--max-memory", "1K")
        assert code == ExitCode.BAD_INPUT and out == "" and one_line_refusal(err)
        assert f"emit {target}: the 9x9 puzzle needs" in err
        assert "over the memory limit of 1 KiB (--max-memory)" in err
        assert not out_path.exists()


@pytest.mark.parametrize("value", ["garbage", "0", "-5", "5X", "1e3", "", "8 G B"])
def test_bad_max_memory_is_one_line(capsys, tmp_path, value):
    code, out, err = run(capsys, "emit", "cnf", PUZZLE, "-o", tmp_path / "p.cnf",
                         "--max-memory", value)
    assert code == ExitCode.BAD_INPUT and out == "" and one_line_refusal(err)
    assert "--max-memory" in err and not (tmp_path / "p.cnf").exists()


def test_parse_size():
    assert parse_size("512M") == 512 * 2**20
    assert parse_size("8G") == parse_size("8g") == parse_size("8GiB") == 8 * 2**30
    assert parse_size("1.5G") == 3 * 2**29 and parse_size("64KB") == 65536
    assert parse_size("1000000") == 10**6 and parse_size(" 2T ") == 2 * 2**40
    for bad in ("", "G", "1.2.3G", "5 apples", "nan", "-1G", "0"):
        with pytest.raises(MemorySizeError):
            parse_size(bad)


def test_solve_and_crosscheck_refuse_under_a_tiny_limit(capsys):
    code, out, err = run(capsys, "solve", PUZZLE, "--via", "hcp", "--max-memory", "4M")
    assert code == ExitCode.BAD_INPUT and out == "" and one_line_refusal(err)
    assert "solve --via hcp (9x9) needs a directed graph of 4,799 vertices" in err
    code, out, err = run(capsys, "crosscheck", INSTANCES / "royle17-sample300.txt",
                         "--routes", "sat,exact-cover", "--max-memory", "2M")
    assert code == ExitCode.BAD_INPUT and out == "" and one_line_refusal(err)
    assert "crosscheck: route sat on 9x9 puzzles needs a CNF" in err
    assert "x 2 worker processes" in err


def test_nishio_and_nonrepetitive_refuse_under_a_tiny_limit(capsys, tmp_path):
    run(capsys, "gadget", "nishio", SMALL, "-o", tmp_path / "S.txt")
    code, _, err = run(capsys, "nishio", tmp_path / "S.txt", "--max-memory", "100K")
    assert code == ExitCode.BAD_INPUT and one_line_refusal(err) and "cell set" in err
    # A limit just above reading S (169 rows of 170 bytes) and below its placement model
    # (72 cells after the presolve): the refusal names the model.
    reading = cell_set_reading_estimate((tmp_path / "S.txt").stat().st_size).bytes
    assert reading + 20_000 < placement_model_estimate(72).bytes
    code, _, err = run(capsys, "nishio", tmp_path / "S.txt", "--decide",
                       "--max-memory", str(reading + 20_000))
    assert code == ExitCode.BAD_INPUT and one_line_refusal(err)
    assert "the placement model needs a placement model of 72 cell variables" in err
    run(capsys, "gadget", "nrpath", SMALL, "-o", tmp_path / "G.txt")
    code, _, err = run(capsys, "nonrepetitive", tmp_path / "G.txt", "--cyclic-edges",
                       "--max-memory", "1M")
    assert code == ExitCode.BAD_INPUT and one_line_refusal(err) and "needs nr(G) of" in err


# ----------------------------------------------------------------------------- validations

def test_nishio_validate_mixes_small_and_oversized(capsys, int31):
    # Under 64M, MIXED's Theorem 2 grid (1,369²) fits and its Theorem 3 grid (5,329²) not.
    code, out, err = run(capsys, "gadget", "nishio", "--validate", SMALL, MIXED, BIG_N, int31,
                         "--max-memory", "64M")
    assert code == ExitCode.OK and "Traceback" not in err
    rows = {line.split()[0]: line for line in out.splitlines() if line.endswith(
        ("ok", "too large", "FAIL"))}
    assert rows["nishio-sat-example.cnf"].endswith("| ok")
    assert rows["nishio-sat-random-v5-c12.cnf"].endswith("| ok; thm3 too large")
    assert rows["nrpath-random-20-91-sat.cnf"].endswith("| too large")
    assert rows["int31.cnf"].endswith("| too large")
    assert "Theorem 2: too large: a 75,076 x 75,076 grid of 5.6e9 cells" in out
    assert "> 64 MiB" in out
    assert ("4 formulas: 3 satisfiable, 0 unsatisfiable, 1 not decided; all checks passed; "
            "3 too large for the memory limit of 64 MiB") in out


def test_nishio_validate_with_nothing_validated_exits_2(capsys):
    code, out, err = run(capsys, "gadget", "nishio", "--validate", BIG_N, "--max-memory", "1G")
    assert code == ExitCode.BAD_INPUT and one_line_refusal(err)
    assert "nothing validated" in err and "| too large" in out


def test_nrpath_validate_mixes_small_and_oversized(capsys, int31):
    code, out, err = run(capsys, "gadget", "nrpath", "--validate", SMALL, int31,
                         FORMULAS / "nrpath-example-unsat.cnf", "--max-memory", "256M")
    assert code == ExitCode.OK and err == ""
    assert "int31.cnf" in out and "too large: a graph of 4.3e9 vertices and 6.4e9 arcs" in out
    ok_rows = [line for line in out.splitlines() if line.endswith("  ok")]
    assert len(ok_rows) == 2
    assert "3 formulas (1 satisfiable, 1 unsatisfiable, 1 too large for the memory limit " \
           "of 256 MiB, skipped)" in out and "all agree" in out
    code, out, err = run(capsys, "gadget", "nrpath", "--validate", int31)
    assert code == ExitCode.BAD_INPUT and "nothing validated" in err


def test_validate_formula_api_records_what_it_skipped():
    formula = random_3sat(5, 12, seed=0)
    result = validate_formula(formula, "f", max_memory=64 * 2**20)
    assert result.validated == ["thm2"] and result.ok
    assert result.too_large["thm3"].startswith("too large: a 5,329 x 5,329 grid")
    assert result.thm3_order is None and result.order == 37


def test_placement_model_refuses_before_building():
    gadget = nishio_gadget(example_satisfiable())
    with pytest.raises(TooLarge, match="the placement model needs a placement model of 17,143 "
                                       "cell variables"):
        PlacementModel(gadget.cells, split=False, max_memory=10 * 2**20)
    with PlacementModel(gadget.cells, split=True, max_memory=10 * 2**20) as model:
        assert model.has_placement()                   # the presolve leaves 72 cells


# ----------------------------------------------------------------------------- estimates

FORMULA_SAMPLES = [example_satisfiable(), random_3sat(6, 9, seed=3),
                   Formula(4, ((1,), (-1, 2), (2, -3, 4))), Formula(7, ())]


@pytest.mark.parametrize("formula", FORMULA_SAMPLES)
def test_gadget_counts_are_exact(formula):
    for cycle in (False, True):
        graph = nrpath_gadget(formula, cycle).graph
        assert nrpath_gadget_estimate(formula, cycle=cycle).counts == (graph.num_vertices,
                                                                       graph.num_arcs)
    assert nishio_gadget_estimate(formula).counts == (nishio_gadget(formula).shape.size,)
    if formula.clauses:
        built = theorem3_instance(formula).formula
        assert nishio_gadget_estimate(built).counts == (nishio_gadget(built).shape.size,)


@pytest.mark.parametrize("box", [Shape(2, 2), Shape(3, 3), Shape(2, 3), Shape(4, 4)])
def test_cnf_counts_are_exact_for_every_encoding(box):
    blank = Grid.empty(box)
    for encoding in ("minimal", "extended"):
        for amo in ("auto", *AMO_ENCODINGS):
            cnf = sudoku_cnf(blank, encoding, amo, "units")
            estimate = cnf_estimate(box, encoding=encoding, amo=amo)
            assert estimate.counts == (cnf.num_vars, cnf.num_clauses), (encoding, amo)


def test_other_counts_bound_the_built_instances():
    puzzle = parse_grid(PUZZLE.read_text())
    cover = sudoku_exact_cover(puzzle, "keep")
    assert exact_cover_estimate(puzzle.shape).counts == (729, 324)
    assert cover.num_options <= 729 and cover.num_items <= 324
    model = sudoku_ilp(puzzle)
    variables, constraints = ilp_estimate(puzzle.shape).counts
    assert model.num_variables <= variables and model.num_constraints <= constraints + 81
    for directed, triple, reduce in ((True, False, False), (False, False, False),
                                     (False, True, False), (False, False, True)):
        for grid in (Grid.empty(Shape(3, 3)), puzzle):
            pipeline = build_hcp_pipeline(grid, HcpOptions(directed=directed, triple=triple,
                                                           reduce=reduce))
            vertices, edges = hcp_estimate(9, directed=directed, triple=triple,
                                           reduce=reduce).counts
            assert pipeline.num_vertices <= vertices and len(pipeline.edges) <= edges
            if grid.clue_count() == 0 and not reduce:
                assert (pipeline.num_vertices, len(pipeline.edges)) == (vertices, edges)


def test_writer_piece_sizes_match_the_estimates():
    """The estimates count one formatted piece of the writers' own size."""
    from reductions.encodings import sizes as encoding_sizes
    from reductions.nonrepetitive import sizes as nonrepetitive_sizes
    from solvers.formats import dimacs, labelled_edges
    assert encoding_sizes.CNF_FORMAT_ROWS == dimacs.FORMAT_ROWS
    assert nonrepetitive_sizes.EDGE_LINES_ROWS == labelled_edges.CHUNK


PROBE = ROOT / "benchmarks" / "memprobe.py"


def thm3_validation_estimate():
    formula = read_formula(MIXED)
    return (nishio_validation_estimate(theorem3_instance(formula).formula)
            .plus(formula_sat_estimate(formula)))


@pytest.mark.parametrize("argv, estimate", [
    (["gadget", "nishio", "--validate", MIXED, "--variant", "thm3"], thm3_validation_estimate),
    (["emit", "cnf", PUZZLE_16, "-o", "{tmp}/p.cnf", "--amo", "pairwise"],
     lambda: cnf_estimate(Shape(4, 4), amo="pairwise")),
    (["emit", "hcp", PUZZLE, "-o", "{tmp}/g.hcp", "--reduce"],
     lambda: hcp_estimate(9, directed=False, reduce=True)),
])
def test_estimates_are_above_measured_peaks(tmp_path, argv, estimate):
    """The peak RSS a command adds (a fresh process) stays under the estimate it checks."""
    argv = [str(a).replace("{tmp}", str(tmp_path)) for a in argv]
    done = subprocess.run([sys.executable, str(PROBE), "--", *argv], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["code"] == 0, done.stderr
    bound = estimate().bytes
    assert record["peak_rss"] <= bound, (format_bytes(record["peak_rss"]), format_bytes(bound))
    assert bound <= 4 * record["peak_rss"] + 4 * 2**20   # an upper bound, not a wild one


def test_ensure_fits_and_messages():
    estimate = nishio_gadget_estimate(example_satisfiable())
    ensure_fits(estimate, None, "x")
    ensure_fits(estimate, estimate.bytes, "x")
    with pytest.raises(TooLarge) as caught:
        ensure_fits(estimate, estimate.bytes - 1, "gadget nishio: f.cnf")
    assert str(caught.value).startswith("gadget nishio: f.cnf needs a 169 x 169 grid of "
                                        "28,561 cells (about ")
    assert caught.value.row_text.startswith("too large: a 169 x 169 grid")
    assert format_bytes(12 * 2**30) == "12 GiB" and format_bytes(1536) == "1.5 KiB"


# ----------------------------------------------------------------------------- address space

RLIMIT_SCRIPT = """
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from solvers.cli.program import main
from solvers.runtime.memory import default_limit
print("default", default_limit(), file=sys.stderr)
sys.exit(main(sys.argv[2:]))
"""


def run_limited(tmp_path, limit: int, *argv) -> subprocess.CompletedProcess:
    script = tmp_path / "limited.py"
    script.write_text(RLIMIT_SCRIPT)
    return subprocess.run([sys.executable, str(script), str(limit), *map(str, argv)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_no_blow_up_under_an_address_space_limit(tmp_path, million):
    """Under RLIMIT_AS = 2 GiB, the default limit follows the rlimit: the oversized formula
    is a row, the small one is validated, and the 10^6-variable build is refused."""
    limit = 2 * 2**30
    done = run_limited(tmp_path, limit, "gadget", "nishio", "--validate", SMALL, BIG_N)
    assert done.returncode == ExitCode.OK, done.stderr
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr
    default = int(done.stderr.split()[1])
    assert 0 < default < limit * 0.8
    assert "nishio-sat-example.cnf" in done.stdout and "| too large" in done.stdout
    done = run_limited(tmp_path, limit, "gadget", "nishio", million, "-o", tmp_path / "S.txt")
    assert done.returncode == ExitCode.BAD_INPUT
    assert "over the memory limit" in done.stderr and "MemoryError" not in done.stderr


def test_default_limit_is_a_share_of_the_machine():
    limit = default_limit()
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 0 < limit <= total // 2 + 4096
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    assert soft == resource.RLIM_INFINITY or limit < soft
