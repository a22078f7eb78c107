"""Command templates: the one parser of every ``--*-cmd`` option (``--route`` splits its
command with the same :func:`split_command`).

A template is one command line, split into words as a shell would split it (``shlex``) but
never run by a shell. Placeholders, anywhere inside a word:

* ``{input}`` — the file the family writes (a CNF, a dlx file, an ILP model, a graph), in the
  family's default form; ``{input.FORMAT}`` — that file in another form, for the families
  that write several (the ILP model: ``lp``, ``mps``, ``free-mps``; the graph: see
  :mod:`solvers.formats.graph_files`);
* ``{output}`` — a file name the program writes its answer to; without it the answer is read
  from the program's standard output;
* ``{limit}`` — the number of solutions wanted (exact cover);
* ``{proof}`` — a file name the program writes its DRAT proof of unsatisfiability to (DIMACS
  SAT solvers, for ``--certify``).

Each family states its own rules once, as a :class:`TemplateRules` (which placeholders it
knows, the programs it knows by name, whether ``{input}`` is appended when missing or is an
error, whether shell syntax is checked); :func:`parse_template` applies them and returns a
:class:`CommandTemplate`, the parsed template every family runs with
:meth:`CommandTemplate.argv`. Every error is one line (:class:`~reductions.errors.UserError`,
exit code 2) naming the family's option. Where two families word the same error
differently (a missing ``{input}``, an unknown placeholder), the wording is the family's
rule, so what users read stays each family's own.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from reductions.errors import UserError

__all__ = ["CommandTemplate", "PLACEHOLDER", "TemplateRules", "parse_template",
           "split_command"]

PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
"""A placeholder: a name in braces, inside any word."""

SHELL_TOKENS = ("|", "||", "&", "&&", ";", ">", ">>", "2>&1", "<<")
"""Words a shell would read as syntax (refused where a family checks shell syntax)."""


def split_command(template: str, option: str, hint: str) -> list[str]:
    """A command template (``--solver-cmd``, ``--cover-cmd``, ``--ilp-cmd``, ``--hcp-cmd``,
    ``--route``) split into words as a shell would split them — no shell ever runs it — or a
    one-line error naming ``option``; ``hint`` says what to give instead of nothing."""
    try:
        parts = shlex.split(template)
    except ValueError as exc:
        raise UserError(f"{option} {template!r}: cannot split it ({exc})") from None
    if not parts or not parts[0].strip():
        raise UserError(f"{option} is empty: {hint}")
    return parts


@dataclass(frozen=True, kw_only=True)
class TemplateRules:
    """How one family reads its templates.

    Messages are ``str.format`` strings filled with ``option`` (the option's name),
    ``template`` (the template, quoted as ``repr`` quotes it) and, for an unknown
    placeholder, ``name``; a literal brace is doubled."""

    option: str
    """The option, named in every error (``--solver-cmd``)."""
    hint: str
    """What to give instead of an empty template."""
    fields: frozenset[str] = frozenset({"output"})
    """The placeholders known besides ``{input}`` and ``{input.FORMAT}``."""
    default_format: str
    """The form of the file ``{input}`` names."""
    input_format: Callable[[str], str | None] | None = None
    """FORMAT of ``{input.FORMAT}`` → the form it asks for (None: not a placeholder, the
    word is kept as written; the function may also raise a one-line error). None: the
    family writes one form only, and ``{input.FORMAT}`` is kept as written."""
    one_format: str | None = None
    """When set, one form per command: the noun of the error (``model form``)."""
    known: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Programs known by name (also as a path): a template of that one word stands for the
    whole command."""
    missing_input: str | None = None
    """The error when no word names the input; None: ``{input}`` is appended instead."""
    unknown_placeholder: str | None = None
    """The error for a placeholder that is none of the above; None: such a word is kept as
    written."""
    shell_syntax: bool = False
    """Check for shell syntax: ``< {input}`` gives the input on stdin (the one redirection
    understood), other redirections, pipes and separators are refused, and the program
    cannot be a placeholder."""

    def error(self, message: str, template: str, **names: str) -> UserError:
        return UserError(message.format(option=self.option, template=repr(template), **names))


@dataclass(frozen=True)
class CommandTemplate:
    """A parsed template: the words (program first; placeholders still in them, as the user
    wrote them), the placeholders named, and the form each input placeholder asks for."""

    text: str
    """The template as given (what stats and messages show)."""
    args: tuple[str, ...]
    placeholders: frozenset[str]
    """Every placeholder named: ``input``, ``input.lp``, ``output``, ``limit`` ..."""
    inputs: Mapping[str, str] = field(hash=False)
    """Each input placeholder named → the form of the file it stands for."""
    stdin: bool = False
    """The input file goes to the program's stdin (``< {input}``)."""

    @property
    def program(self) -> str:
        return self.args[0]

    @property
    def name(self) -> str:
        return Path(self.args[0]).name

    @property
    def input_formats(self) -> frozenset[str]:
        """The forms of the input the program reads: one file to write for each."""
        return frozenset(self.inputs.values())

    @property
    def answer_in_file(self) -> bool:
        """Does the program write its answer to ``{output}`` (else: to stdout)?"""
        return "output" in self.placeholders

    @property
    def writes_proof(self) -> bool:
        """Does the program write a proof of unsatisfiability to ``{proof}``?"""
        return "proof" in self.placeholders

    @property
    def takes_limit(self) -> bool:
        """Does the program hear how many solutions are wanted (``{limit}``)?"""
        return "limit" in self.placeholders

    def argv(self, program: str | None, *, inputs: Mapping[str, str | Path],
             **values: str | Path | int) -> list[str]:
        """The argument list to run: ``program`` (the path found for :attr:`program`; None:
        the program's word as written, placeholders filled), then the other words with their
        placeholders filled — each input placeholder with the file of its form in
        ``inputs``, ``{output}``, ``{limit}``, ``{proof}`` from ``values``; other braces stay as they
        are."""
        filled = {name: str(inputs[form]) for name, form in self.inputs.items()}
        filled |= {name: str(value) for name, value in values.items()}

        def fill(word: str) -> str:
            return PLACEHOLDER.sub(lambda m: filled.get(m.group(1), m.group(0)), word)

        return [fill(self.args[0]) if program is None else program,
                *map(fill, self.args[1:])]


def parse_template(text: str, rules: TemplateRules) -> CommandTemplate:
    """Parse ``text`` by the family's ``rules`` (module docstring); one-line errors."""
    words = split_command(text, rules.option, rules.hint)
    if len(words) == 1 and Path(words[0]).name in rules.known:
        words = [words[0], *rules.known[Path(words[0]).name][1:]]
    args, stdin = _shell_words(text, words, rules) if rules.shell_syntax else (words, False)
    placeholders, inputs = _placeholders(text, args, rules)
    if not inputs and not stdin:
        if rules.missing_input is not None:
            raise rules.error(rules.missing_input, text)
        args = [*args, "{input}"]
        placeholders, inputs = placeholders | {"input"}, {"input": rules.default_format}
    forms = set(inputs.values())
    if rules.one_format and len(forms) > 1:
        raise UserError(f"{rules.option} {text!r}: one {rules.one_format} per command "
                        f"(found {', '.join(sorted(forms))})")
    if stdin:
        inputs = {"input": rules.default_format}
    return CommandTemplate(text, tuple(args), frozenset(placeholders), inputs, stdin)


def _placeholders(text: str, args: Sequence[str], rules: TemplateRules
                  ) -> tuple[set[str], dict[str, str]]:
    """The placeholders the words name (the program's word included, as a shell would
    pass it on), and the form each input placeholder asks for."""
    names: set[str] = set()
    inputs: dict[str, str] = {}
    for word in args:
        for name in PLACEHOLDER.findall(word):
            form = None
            if name == "input":
                form = rules.default_format
            elif name.startswith("input.") and rules.input_format is not None:
                form = rules.input_format(name[len("input."):])
            if form is not None:
                inputs[name] = form
            elif name not in rules.fields:
                if rules.unknown_placeholder is not None:
                    raise rules.error(rules.unknown_placeholder, text, name=name)
                continue
            names.add(name)
    return names, inputs


def _shell_words(text: str, words: Sequence[str], rules: TemplateRules
                 ) -> tuple[list[str], bool]:
    """The words less a ``< {input}`` redirection, and whether there was one; shell syntax
    refused (see :attr:`TemplateRules.shell_syntax`)."""
    args: list[str] = []
    redirected: list[str] = []
    tokens = iter(words)
    for token in tokens:
        if token == "<":
            redirected.append(next(tokens, ""))
        elif token.startswith("<") and token != "<<":
            redirected.append(token[1:])
        elif token in SHELL_TOKENS or token.startswith((">", "2>")):
            raise UserError(f"{rules.option} {text!r}: {token!r}: no shell runs the command; "
                            f"the answer is read from stdout and stderr, or from {{output}} "
                            f"when the program writes a file")
        else:
            args.append(token)
    if len(redirected) > 1 or redirected and redirected[0] != "{input}":
        raise UserError(f"{rules.option} {text!r}: the one redirection understood is "
                        f"'< {{input}}' (the {rules.default_format} file on stdin)")
    if not args:
        raise UserError(f"{rules.option} {text!r}: no program")
    if "{" in args[0]:
        raise UserError(f"{rules.option} {text!r}: the program name cannot be a placeholder")
    return args, bool(redirected)
