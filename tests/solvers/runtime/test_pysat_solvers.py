"""The one maker of pysat solvers (solvers/runtime/pysat_solvers.py): deleting a solver is
safe from Ctrl-C.

pysat frees the C solver, then forgets its pointer; a KeyboardInterrupt raised between the
two left the pointer, and pysat's ``__del__`` freed it again at exit: the command line said
"interrupted", then died of "double free detected" (SIGABRT) or a segmentation fault, about
once in 80 Ctrl-C of a cross-check. The tests put the signal exactly there, in a process of
their own (the old behaviour kills the process).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from solvers.outcome import SolverUnavailable
from solvers.runtime.pysat_solvers import new_pysat_solver

from tests.conftest import ROOT

INTERRUPTED_IN_DELETE = textwrap.dedent("""
    import gc, signal, sys
    from pysat import _utils
    import pysat.solvers as solvers
    from solvers.runtime.pysat_solvers import new_pysat_solver

    real = solvers.pysolvers.{free}

    def free_then_interrupt(*args):
        real(*args)
        signal.raise_signal(signal.SIGINT)     # lands before pysat forgets the pointer

    solvers.pysolvers.{free} = free_then_interrupt
    solver = new_pysat_solver("{name}", [[1, 2], [-1]])
    assert solver.solve()
    try:
        solver.delete()
    except KeyboardInterrupt:
        print("interrupted after the deletion")
    del solver
    gc.collect()
    print("no second free")
""")


@pytest.mark.parametrize("name, free", [("cadical195", "cadical195_del"),
                                        ("glucose4", "glucose41_del")])
def test_ctrl_c_inside_a_deletion_comes_after_it(name, free):
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_IN_DELETE.format(name=name,
                                                                             free=free)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["interrupted after the deletion", "no second free"]


def test_a_deleted_solver_can_be_deleted_again():
    solver = new_pysat_solver("cadical195", [[1]])
    solver.delete()
    solver.delete()
    assert solver.solver is None


def test_an_unknown_solver_names_the_ones_there_are():
    with pytest.raises(SolverUnavailable, match="unknown pysat solver 'nosuch'; available: .*cadical195"):
        new_pysat_solver("nosuch")
