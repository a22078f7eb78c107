"""The runtime layer (solvers/runtime/) sits under every route: it may import the standard
library, third-party packages, :mod:`reductions` and :mod:`solvers.outcome` (the status
vocabulary its errors belong to), and nothing else of solvers/ — no route family, no
registry, no CLI. Read from the source, so a lazy import inside a function counts too."""

from __future__ import annotations

import ast

from .processes import ROOT

RUNTIME = ROOT / "solvers" / "runtime"
ALLOWED_IN_SOLVERS = ("solvers.runtime", "solvers.outcome")


def imported_modules(path) -> set[str]:
    """Every module ``path`` imports, relative imports resolved from its package."""
    package = "solvers.runtime"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                found.add(".".join(base + ([node.module] if node.module else [])))
            else:
                found.add(node.module)
    return found


def test_runtime_imports_no_route_registry_or_cli():
    modules = sorted(RUNTIME.glob("*.py"))
    assert {p.stem for p in modules} >= {"processes", "signals", "budget", "memory",
                                         "pysat_solvers", "kept_models"}
    wrong = {p.name: sorted(m for m in imported_modules(p)
                            if m.split(".")[0] == "solvers"
                            and not m.startswith(ALLOWED_IN_SOLVERS))
             for p in modules}
    assert {name: bad for name, bad in wrong.items() if bad} == {}


def test_the_check_sees_relative_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from ..routes import ROUTES\nfrom .budget import Deadline\n"
                     "def f():\n    from ..cli import main\n")
    assert imported_modules(probe) == {"solvers.routes", "solvers.runtime.budget",
                                       "solvers.cli"}
