"""benchmarks/behaviour_corpus.py, the tool that shows a refactor changes no behaviour: its
machinery on a few commands of its corpus (the whole corpus takes minutes and runs by hand,
docs/development.md). The same tree twice must be identical; a tree that behaves otherwise
(a fake package whose CLI is a real process printing something else) must be caught, with
the first differing lines; the normalisations must hide the clock and nothing else."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import reductions
import solvers

from tests.processes import ROOT

SCRIPT = ROOT / "benchmarks" / "behaviour_corpus.py"
# The tree the suite tests: the checkout, or site-packages for the installed package.
TREE = Path(solvers.__file__).resolve().parent.parent
# A help text, an exit-4 verdict, a compressed file written, a JSON record with times.
FEW = ("help/verify", "verify/swapped", "emit-cnf/gz", "solve/sat/9x9-json")


def _load():
    spec = importlib.util.spec_from_file_location("behaviour_corpus", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


corpus = _load()


def few_cases() -> list[tuple[str, list[str]]]:
    cases = [(name, lines) for name, lines in corpus.CASES if name in FEW]
    assert sorted(name for name, _ in cases) == sorted(FEW)
    return cases


@pytest.fixture(scope="module")
def twice():
    """The few cases run on the tree under test twice, as two trees."""
    assert Path(reductions.__file__).resolve().is_relative_to(TREE)
    trees = [corpus.Tree("first", TREE), corpus.Tree("second", TREE)]
    return corpus.run_corpus(trees, few_cases(), jobs=2, progress=False)


def test_same_tree_twice_is_identical(twice):
    identical, report = corpus.compare(twice["first"], twice["second"])
    assert report == []
    assert identical == corpus.command_count(twice["first"]) == len(FEW)


def test_records_hold_what_the_commands_did(twice):
    records = {name: record["steps"][0] for name, record in twice["first"].items()}
    assert records["help/verify"]["exit"] == 0
    assert "usage: sudoku-bridge verify" in records["help/verify"]["stdout"]["text"]
    assert records["verify/swapped"]["exit"] == 4
    assert records["verify/swapped"]["stdout"]["bytes"] == 0
    written = records["emit-cnf/gz"]["files"]["p.cnf.gz"]
    assert written["stored"] == "gzip" and written["text"].startswith("c ")
    assert "compressed_sha256" in written     # nothing normalised: the bytes count too
    assert '"seconds": "<t>"' in records["solve/sat/9x9-json"]["stdout"]["text"]
    assert all(record["temp_left"] == 0 for record in twice["first"].values())


def test_a_changed_line_is_shown_with_its_number(twice):
    changed = copy.deepcopy(twice["second"])
    stdout = changed["help/verify"]["steps"][0]["stdout"]
    lines = stdout["text"].split("\n")
    lines[2] = lines[2] + " (changed)"
    stdout["text"] = "\n".join(lines)
    stdout["sha256"] = hashlib.sha256(stdout["text"].encode()).hexdigest()
    identical, report = corpus.compare(twice["first"], changed)
    assert identical == len(FEW) - 1
    assert report[0].startswith("help/verify [1]: sudoku-bridge verify --help")
    assert report[1:] == [" stdout:", f"  line 3: - {lines[2][:-10]}", f"  line 3: + {lines[2]}"]


FAKE_CLI = """import sys
print("a different program")
sys.exit(3)
"""


def test_a_tree_that_behaves_otherwise_is_caught(tmp_path):
    fake = tmp_path / "fake"
    for package in ("solvers", "solvers/cli", "reductions"):
        (fake / package).mkdir(parents=True)
        (fake / package / "__init__.py").write_text("")
    (fake / "solvers" / "cli" / "__main__.py").write_text(FAKE_CLI)
    trees = [corpus.Tree("real", TREE), corpus.Tree("fake", fake)]
    for tree in trees:
        corpus.check_tree(tree)
    cases = [case for case in corpus.CASES if case[0] in ("emit-cnf/gz", "verify/swapped")]
    results = corpus.run_corpus(trees, cases, jobs=2, progress=False)
    identical, report = corpus.compare(results["real"], results["fake"])
    assert identical == 0
    text = "\n".join(report)
    assert "  exit 0 -> 3" in text and "  exit 4 -> 3" in text
    assert " file p.cnf.gz:\n  present -> missing" in text
    assert "  line 1: + a different program" in text


def test_a_tree_without_the_packages_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        corpus.check_tree(corpus.Tree("empty", tmp_path))
    assert stopped.value.code == 2
    assert f"{tmp_path}: its packages do not import from it" in capsys.readouterr().err


def places(tmp_path: Path):
    return corpus.Places(case=tmp_path / "case", tmp=tmp_path / "tmp", tree=tmp_path / "tree")


@pytest.mark.parametrize("before, after", [
    (b'{"clauses": 12005, "seconds": 0.0123}', b'{"clauses": 12005, "seconds": "<t>"}'),
    (b'"build_seconds": 1.5e-05, "seconds": 3', b'"build_seconds": "<t>", "seconds": "<t>"'),
    (b"generated 3 puzzles in 0.1 s: clues min 23, median 24.5", b"generated 3 puzzles in <t> s: "
     b"clues min 23, median 24.5"),
    (b"(method sat, 0.003 s, 10 solver calls)", b"(method sat, <t> s, 10 solver calls)"),
    (b"row 1 has two 1s, at cells (1,1)", b"row 1 has two 1s, at cells (1,1)"),
    (b"60 s unless --time-limit; about 1 s a grid", b"60 s unless --time-limit; about 1 s a grid"),
    (b"version 1.9.5 s", b"version 1.9.5 s"),
])
def test_normalise_hides_measured_times_only(tmp_path, before, after):
    assert corpus.normalise(before, places(tmp_path)) == after


def test_normalise_tables_with_a_time_column(tmp_path):
    table = (b"route  solved  median s  max s   median size\n"
             b"-----  ------  --------  ------  -----------\n"
             b"sat    4       0.0245    10.0534  453 clauses\n"
             b"\n"
             b"kept 0.5 s and 2.25 too\n")
    assert corpus.normalise(table, places(tmp_path)).split(b"\n")[2:] == [
        b"sat    4 <t> <t>  453 clauses", b"", b"kept <t> s and 2.25 too", b""]


def test_normalise_paths_and_temporary_names(tmp_path):
    where = places(tmp_path)
    text = (f"{where.case}/p.cnf {where.tree}/solvers {where.tmp}/sudoku-bridge-sat-2kvo7f4_/"
            f"puzzle.cnf {sys.executable}").encode()
    assert corpus.normalise(text, where) == (
        b"<case>/p.cnf <tree>/solvers <tmp>/sudoku-bridge-sat-<random>/puzzle.cnf <python>")


def test_compressed_files_are_compared_by_content():
    import gzip
    one, two = gzip.compress(b"same\n", mtime=1), gzip.compress(b"same\n", mtime=2)
    assert one != two
    assert corpus.decompressed(one) == corpus.decompressed(two) == (b"same\n", "gzip")
    assert corpus.decompressed(one[:12]) == (one[:12], "damaged gzip")


def test_corpus_covers_every_command_and_route():
    """Every sub-command has its --help case and more; every route is named in a --via."""
    names = [name for name, _ in corpus.CASES]
    assert len(names) == len(set(names)) and len(names) > 300
    lines = [line for _, case in corpus.CASES for line in case]
    done = subprocess.run([sys.executable, "-m", "solvers.cli", "--help"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    listed = done.stdout.split("positional arguments:")[1].split("options:")[0]
    commands = re.findall(r"^    ([a-z]+)\b", listed, re.MULTILINE)
    assert {"solve", "emit", "decode", "verify", "crosscheck", "rules", "generate", "gadget",
            "nishio", "nonrepetitive"} <= set(commands)
    for command in commands:
        assert f"help/{command}" in names
        assert sum(line.startswith(f"sudoku-bridge {command} ") for line in lines) >= 5, command
    from solvers.routes import ROUTES
    for route in ROUTES:
        assert any(f"--via {route} " in line + " " for line in lines), route
