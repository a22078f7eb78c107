"""The one command-template parser (solvers/tools/templates.py): every placeholder, known
names, the input appended or required, one form or several, shell syntax, and each error
with each family's own wording (the families' rules as they run: --solver-cmd, --cover-cmd,
--ilp-cmd, --hcp-cmd)."""

from __future__ import annotations

import pytest

from reductions.errors import UserError
from solvers.formats.mps import ModelFormat
from solvers.tools.cover_programs import cover_command
from solvers.tools.dimacs_programs import dimacs_template
from solvers.tools.hcp_command import parse_hcp_template
from solvers.tools.ilp_programs import ilp_template
from solvers.tools.templates import TemplateRules, parse_template, split_command

RULES = TemplateRules(option="--x-cmd", hint="give a command", default_format="txt",
                      fields=frozenset({"output", "limit"}),
                      input_format={"a": "A", "b": "B"}.get,
                      known={"tool": ["tool", "-q", "{input}"]})


def test_split_command_errors():
    assert split_command("a 'b c'", "--x", "hint") == ["a", "b c"]
    with pytest.raises(UserError, match=r"^--x is empty: hint$"):
        split_command("  ", "--x", "hint")
    with pytest.raises(UserError, match=r"^--x \"'a\": cannot split it \(No closing "
                                        r"quotation\)$"):
        split_command("'a", "--x", "hint")


def test_every_placeholder():
    parsed = parse_template("prog --in={input} {input.a} -o {output} -n {limit} {other}", RULES)
    assert parsed.placeholders == {"input", "input.a", "output", "limit"}
    assert parsed.inputs == {"input": "txt", "input.a": "A"}
    assert parsed.input_formats == {"txt", "A"}
    assert parsed.answer_in_file and parsed.takes_limit and not parsed.stdin
    assert (parsed.program, parsed.name) == ("prog", "prog")
    argv = parsed.argv("/bin/prog", inputs={"txt": "f.txt", "A": "f.a"}, output="o",
                       limit=2)
    assert argv == ["/bin/prog", "--in=f.txt", "f.a", "-o", "o", "-n", "2", "{other}"]


def test_the_program_word_is_filled_when_no_path_is_given():
    parsed = parse_template("{input}.sh {input}", RULES)
    assert parsed.argv(None, inputs={"txt": "g"}) == ["g.sh", "g"]


def test_answer_on_stdout_and_no_limit():
    parsed = parse_template("prog {input.b}", RULES)
    assert not parsed.answer_in_file and not parsed.takes_limit
    assert parsed.inputs == {"input.b": "B"}


def test_input_appended_and_known_names():
    assert parse_template("prog -v", RULES).args == ("prog", "-v", "{input}")
    assert parse_template("/opt/tool", RULES).args == ("/opt/tool", "-q", "{input}")
    assert parse_template("tool -v", RULES).args == ("tool", "-v", "{input}")  # not alone
    assert parse_template("prog {input.c}", RULES).args == ("prog", "{input.c}", "{input}")


def test_family_errors_in_each_family_s_words():
    cases = [
        (lambda: dimacs_template(""), "--solver-cmd is empty: give a solver name or a "
                                      "command line"),
        (lambda: ilp_template("t {input.lp} {input.mps}"),
         "--ilp-cmd 't {input.lp} {input.mps}': one model form per command (found lp, mps)"),
        (lambda: cover_command("dlx1 m1"),
         "--cover-cmd 'dlx1 m1': the command must read the exact-cover file: put {input} "
         "among its arguments, or '< {input}' for a program that reads stdin (as dlx1 does)"),
        (lambda: cover_command("x < {input} | y"),
         "--cover-cmd 'x < {input} | y': '|': no shell runs the command; the answer is read "
         "from stdout and stderr, or from {output} when the program writes a file"),
        (lambda: cover_command("x < in.dlx"),
         "--cover-cmd 'x < in.dlx': the one redirection understood is '< {input}' (the "
         "exact-cover file on stdin)"),
        (lambda: cover_command("< {input}"), "--cover-cmd '< {input}': no program"),
        (lambda: cover_command("{input}"),
         "--cover-cmd '{input}': the program name cannot be a placeholder"),
        (lambda: parse_hcp_template("prog {output}", False),
         "--hcp-cmd: the command names no graph file; put {input} (or {input.FORMAT}) where "
         "the program reads the graph"),
        (lambda: parse_hcp_template("prog {input} {limit}", False),
         "--hcp-cmd: unknown placeholder {limit}; use {input}, {input.FORMAT} (FORMAT: "
         "tsplib, arcs, concorde, graphml, edgelist) or {output}"),
    ]
    for parse, message in cases:
        with pytest.raises(UserError) as caught:
            parse()
        assert str(caught.value) == message


def test_families_keep_braces_they_do_not_know():
    """Only --hcp-cmd refuses an unknown placeholder; the others pass the word on."""
    assert dimacs_template("s {x} {input.cnf}").args == ("s", "{x}", "{input.cnf}", "{input}")
    assert cover_command("c {x} {input}").placeholders == {"input"}
    assert ilp_template("i {input.xyz}").inputs == {"input": ModelFormat.MPS}


def test_stdin_redirection():
    for text in ("dlx1 m1 < {input}", "dlx1 m1 <{input}"):
        parsed = cover_command(text)
        assert parsed.stdin and parsed.args == ("dlx1", "m1")
        assert parsed.inputs == {"input": "exact-cover"}
    assert cover_command("dlx1").args == ("dlx1", "m1", "t{limit}")
    assert cover_command("dlx1").takes_limit


def test_hcp_forms_depend_on_the_graph():
    undirected = parse_hcp_template("p {input} {input.concorde} -o {output}", False)
    assert undirected.input_formats == {"tsplib", "concorde"}
    assert parse_hcp_template("p {input}", True).input_formats == {"arcs"}
    with pytest.raises(UserError, match="concorde"):
        parse_hcp_template("p {input.concorde}", True)      # undirected only
