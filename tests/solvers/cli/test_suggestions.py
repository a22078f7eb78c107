"""Close-match suggestions: a mistyped command, target, option, choice, route, rule or pysat
solver is one line naming the name meant ("did you mean 'exact-cover'?"), not a list of every
name; a name close to none keeps the list."""

from __future__ import annotations

import pytest

from reductions.suggestions import close_match, unknown_name

from tests.reductions.sudoku.test_grid import PAPER_17

CASES = [
    (["slove", PAPER_17], "sudoku-bridge: error: COMMAND: invalid choice: 'slove'; did you "
                          "mean 'solve'? (see --help)"),
    (["emit", "cnff", PAPER_17, "-o", "x.cnf"],
     "sudoku-bridge emit: error: TARGET: invalid choice: 'cnff'; did you mean 'cnf'? "
     "(see --help)"),
    (["gadget", "nisho"], "sudoku-bridge gadget: error: GADGET: invalid choice: 'nisho'; did "
                          "you mean 'nishio'? (see --help)"),
    (["solve", PAPER_17, "--vai", "sat"],
     "sudoku-bridge solve: error: unrecognized arguments: --vai sat; did you mean --via? "
     "(see --help)"),
    (["emit", "cnf", PAPER_17, "-o", "x.cnf", "--am0=pairwise"],
     "sudoku-bridge emit cnf: error: unrecognized arguments: --am0=pairwise; did you mean "
     "--amo? (see --help)"),
    (["solve", PAPER_17, "--encoding", "minmal"],
     "sudoku-bridge solve: error: --encoding: invalid choice: 'minmal'; did you mean "
     "'minimal'? (see --help)"),
    (["solve", PAPER_17, "--hcp-solver", "cpsta"],
     "sudoku-bridge solve: error: --hcp-solver: invalid choice: 'cpsta'; did you mean "
     "'cpsat'? (see --help)"),
    (["solve", PAPER_17, "--via", "exact-cuver"],
     "sudoku-bridge: error: unknown route 'exact-cuver'; did you mean 'exact-cover'?"),
    (["crosscheck", PAPER_17, "--routes", "sat,exact-cuver"],
     "sudoku-bridge: error: unknown route 'exact-cuver'; did you mean 'exact-cover'?"),
    (["rules", PAPER_17, "--rules", "hiden-single"],
     "sudoku-bridge: error: unknown rule 'hiden-single'; did you mean 'hidden-single'?"),
    (["solve", PAPER_17, "--solver", "cadicle195"],
     "sudoku-bridge: error: unknown pysat solver 'cadicle195'; did you mean 'cadical195'?"),
]


@pytest.mark.parametrize("argv, line", CASES, ids=[" ".join(c[0][:1] + c[0][2:]) for c in CASES])
def test_a_mistyped_name_gets_the_close_one_in_one_line(run, argv, line):
    code, out, err = run(*argv)
    assert (code, out, err) == (2, "", line + "\n")


@pytest.mark.parametrize("argv", [["solve", PAPER_17, "--via", "zzz"],
                                  ["crosscheck", PAPER_17, "--routes", "zzz"]])
def test_a_name_close_to_none_lists_them(run, argv):
    code, _, err = run(*argv)
    assert code == 2 and err.startswith("sudoku-bridge: error: unknown route 'zzz'; routes: sat, ")
    assert "did you mean" not in err and err.count("\n") == 1


def test_an_option_close_to_none_is_only_unrecognized(run):
    assert run("solve", PAPER_17, "--zzzz")[2] == \
        "sudoku-bridge solve: error: unrecognized arguments: --zzzz (see --help)\n"


def test_close_match():
    assert close_match("EXACT-COVER", ["sat", "exact-cover"]) == "exact-cover"
    assert close_match("qqq", ["sat", "exact-cover"]) is None
    assert unknown_name("route", "sta", ["sat", "ilp"], "routes") == \
        "unknown route 'sta'; did you mean 'sat'?"
    assert unknown_name("route", "zz", ["sat", "ilp"], "routes") == \
        "unknown route 'zz'; routes: sat, ilp"
