"""The layers hold (the module map of docs/architecture.md, bottom up): every import of the
library, at module level or inside a function, goes to its own layer or a lower one.
reductions/ is pure and imports no solver, and is layered itself: the shared modules at its
top (errors, reading, status, estimate, formulas), the Sudoku model, the reduction protocol,
then the families (encodings, Hamiltonian, Nishio, nonrepetitive), then the rules engine,
which uses Nishio and nr(G); the process plumbing (runtime/) and the file
formats know no route; outside programs (tools/) know the general Hamiltonian-cycle solver's
answers but no route; certification (certify/: proof logging and checkers) knows the programs
but no route, so that routes can certify; nothing imports the command line. Read from the source with ``ast``, so
lazy imports count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import solvers

ROOT = Path(solvers.__file__).resolve().parent.parent
"""Where the library's source is: the checkout, or site-packages for an installed copy."""

LAYERS = [
    ("reductions (shared)", ("reductions",)),
    ("reductions.sudoku", ("reductions.sudoku",)),
    ("reductions.reduction", ("reductions.reduction",)),
    ("reductions.encodings", ("reductions.encodings",)),
    ("reductions.hamiltonian", ("reductions.hamiltonian",)),
    ("reductions.nishio", ("reductions.nishio",)),
    ("reductions.nonrepetitive", ("reductions.nonrepetitive",)),
    ("reductions.rules", ("reductions.rules",)),
    ("runtime", ("solvers.runtime", "solvers.outcome")),
    ("formats", ("solvers.formats",)),
    ("hamiltonian", ("solvers.hamiltonian",)),
    ("tools", ("solvers.tools",)),
    ("certify", ("solvers.certify",)),
    ("routes", ("solvers.routes", "solvers.gadgets", "solvers.generate",
                "solvers.nonrepetitive")),
    ("crosscheck", ("solvers.crosscheck",)),
    ("cli", ("solvers.cli",)),
]


def layer_of(module: str) -> int | None:
    best = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (index, len(prefix))
    return None if best is None else best[0]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    return imports_of_text(path.read_text(encoding="utf-8"), module_name(path),
                           path.name == "__init__.py")


def imports_of_text(text: str, name: str, is_package: bool) -> set[str]:
    """Every module (and ``module.name``) the source imports, relative imports resolved."""
    found = set()
    for base, names in imported_modules(text, name, is_package):
        found.add(base)
        found.update(f"{base}.{alias}" for alias in names)
    return found


def imported_modules(text: str, name: str, is_package: bool) -> list[tuple[str, list[str]]]:
    """Each import statement as (the module it names, the names it takes from it: [] for a
    plain ``import``), relative imports resolved."""
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[:len(parent) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.append((base, [alias.name for alias in node.names]))
    return found


def is_module(name: str) -> bool:
    """A module or package of this source tree (a file, not an attribute)."""
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_a_wrong_import_inside_reductions_is_seen():
    """The folders of reductions/ are layers too: the Sudoku model importing an encoding, or
    Nishio importing the rules engine, runs back up."""
    names = imports_of_text("from ..encodings.cnf import sudoku_cnf\n",
                            "reductions.sudoku.grid", False)
    assert "reductions.encodings.cnf" in names
    assert layer_of("reductions.encodings.cnf") > layer_of("reductions.sudoku.grid")
    assert layer_of("reductions.rules.engine") > layer_of("reductions.nishio.placements")
    assert layer_of("reductions.reduction") > layer_of("reductions.formulas")


def test_a_wrong_import_is_seen():
    """The check can fail: a runtime module importing the registry is a violation, and a lazy
    import inside a function is read too."""
    text = "def f():\n    from ..routes import ROUTES\n"
    names = imports_of_text(text, "solvers.runtime.probe", False)
    assert "solvers.routes.ROUTES" in names
    assert layer_of("solvers.routes.ROUTES") > layer_of("solvers.runtime.probe")


SOURCES = sorted(p for folder in ("reductions", "solvers") for p in (ROOT / folder).rglob("*.py")
                 if p != ROOT / "solvers" / "__init__.py")


def test_the_solvers_package_itself_imports_nothing():
    assert imports_of(ROOT / "solvers" / "__init__.py") == set()


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_import_goes_to_the_same_layer_or_a_lower_one(path):
    own = layer_of(module_name(path))
    assert own is not None, f"{module_name(path)} is in no layer: add it to LAYERS"
    for imported in imports_of(path):
        layer = layer_of(imported)
        if layer is not None:
            assert layer <= own, (f"{module_name(path)} ({LAYERS[own][0]}) imports {imported} "
                                  f"({LAYERS[layer][0]})")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_import_of_the_library_names_a_module_that_exists(path):
    """Lazy imports inside functions too: a module moved or split leaves none behind."""
    for base, names in imported_modules(path.read_text(encoding="utf-8"), module_name(path),
                                        path.name == "__init__.py"):
        if base.partition(".")[0] in ("reductions", "solvers"):
            assert is_module(base), f"{module_name(path)} imports {base}, which is no module"


def test_a_missing_module_is_seen():
    text = "def f():\n    from .nishio.gadget import theorem_order\n"
    [(base, _)] = imported_modules(text, "reductions.nishio.sizes", False)
    assert base == "reductions.nishio.nishio.gadget" and not is_module(base)
    assert is_module("reductions.nishio.gadget") and is_module("reductions.nishio")
