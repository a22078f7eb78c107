"""The per-process kept-model cache (solvers/runtime/kept_models.py): the one renewal rule,
closing, isolation by family and key, lending, and closing at exit; then the four families
that use it, each with its own number."""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap

import pytest

from solvers.runtime.kept_models import KeptModels

from tests.processes import ROOT

_names = itertools.count()


class Probe:
    """A model that records what happened to it."""

    def __init__(self, key):
        self.key, self.closed, self.resets = key, 0, 0

    def close(self) -> None:
        self.closed += 1

    def reset(self) -> None:
        self.resets += 1


@pytest.fixture
def family():
    """A fresh family of probes (renewed after 3 uses), its models closed afterwards."""
    made = []

    def make(renew_after=3, build=Probe):
        kept = KeptModels(f"probe-{next(_names)}", build=build, close=Probe.close,
                          renew_after=renew_after)
        made.append(kept)
        return kept
    yield make
    for kept in made:
        kept.close_all()


def test_a_model_is_renewed_after_its_uses_and_the_old_one_closed(family):
    probes = family(renew_after=3)
    first = probes.get("a")
    assert probes.get("a") is first and probes.get("a") is first
    assert probes.served("a") == 3 and first.closed == 0
    second = probes.get("a")
    assert second is not first and first.closed == 1 and second.closed == 0
    assert probes.served("a") == 1 and probes.kept("a") is second


def test_uses_announced_ahead_renew_before_they_would_pass_the_limit(family):
    probes = family(renew_after=4)
    first = probes.get("a", uses=3)
    second = probes.get("a", uses=2)                 # 3 + 2 > 4: a fresh one for both
    assert second is not first and first.closed == 1 and probes.served("a") == 2
    assert probes.get("a", uses=2) is second          # 2 + 2 = 4: still room
    big = probes.get("a", uses=10)                    # more than a model's quota at once
    assert big is not second and probes.served("a") == 10
    assert probes.get("a") is not big and big.closed == 1


def test_keys_and_families_are_kept_apart(family):
    probes, others = family(renew_after=2), family(renew_after=2)
    a, b, other_a = probes.get("a"), probes.get("b"), others.get("a")
    assert len({id(a), id(b), id(other_a)}) == 3
    assert (a.key, b.key) == ("a", "b")
    probes.get("a")
    renewed = probes.get("a")                         # a's third use renews a only
    assert renewed is not a and a.closed == 1
    assert probes.get("b") is b and b.closed == 0 and others.get("a") is other_a
    assert probes.models() == {"a": renewed, "b": b}
    probes.close_all()
    assert renewed.closed == b.closed == 1 and other_a.closed == 0
    assert probes.models() == {} and others.models() == {"a": other_a}


def test_never_renewed_when_the_family_says_none(family):
    probes = family(renew_after=None)
    first = probes.get("a", uses=10**9)
    assert probes.get("a", uses=10**9) is first and first.closed == 0


def test_a_lent_model_is_nobody_elses_until_it_is_reset_and_kept(family):
    probes = family(renew_after=None)
    with probes.lent("a", reset=Probe.reset) as lent:
        assert probes.kept("a") is None              # out of the table while in use
        inner = probes.get("a")                       # so another use gets its own
        assert inner is not lent
    assert lent.resets == 1 and probes.kept("a") is lent
    assert inner.closed == 1                          # displaced by the lent one's return
    with pytest.raises(ValueError, match="in the block"):
        with probes.lent("a", reset=Probe.reset) as again:
            raise ValueError("in the block")
    assert again is lent and lent.resets == 2 and probes.kept("a") is lent


def test_a_model_whose_reset_fails_is_closed_and_dropped(family):
    probes = family(renew_after=None)

    def broken(model):
        raise RuntimeError("reset failed")
    with pytest.raises(RuntimeError, match="reset failed"):
        with probes.lent("a", reset=broken) as lent:
            pass
    assert lent.closed == 1 and probes.kept("a") is None
    assert probes.get("a") is not lent


def test_a_failed_build_keeps_nothing(family):
    def fails(key):
        raise MemoryError("no room")
    probes = family(build=fails)
    with pytest.raises(MemoryError):
        probes.get("a")
    assert probes.models() == {}


def test_families_are_named_once_and_quotas_are_positive(family):
    probes = family()
    with pytest.raises(ValueError, match="exists already"):
        KeptModels(probes.family, build=Probe, close=Probe.close, renew_after=3)
    with pytest.raises(ValueError, match="at least 1"):
        KeptModels("probe-zero", build=Probe, close=Probe.close, renew_after=0)


AT_EXIT = textwrap.dedent("""
    import sys
    from solvers.runtime.kept_models import KeptModels
    class Model:
        def __init__(self, key):
            self.key = key
        def close(self):
            print("closed", self.key, flush=True)
    def bad_close(model):
        raise OSError("cannot close")
    broken = KeptModels("broken", build=Model, close=bad_close, renew_after=None)
    models = KeptModels("models", build=Model, close=Model.close, renew_after=None)
    broken.get("x")
    models.get("a"), models.get("b")
    print("exiting", flush=True)
""")


def test_every_kept_model_is_closed_when_the_process_exits():
    done = subprocess.run([sys.executable, "-c", AT_EXIT], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "exiting" and sorted(lines[1:]) == ["closed a", "closed b"]


# ----------------------------------------------------------------------------- the families

def test_the_four_families_and_their_numbers():
    from solvers.routes import exact_cover
    from solvers.routes import hcp as hcp_puzzle
    from solvers.routes import ilp
    from solvers.routes import sat_incremental as sat
    assert sat._PROCESS_SOLVERS.renew_after == sat.FRESH_SOLVER_EVERY == 2000
    assert hcp_puzzle._PROCESS_MODELS.renew_after == hcp_puzzle.FRESH_MODEL_EVERY == 2000
    assert ilp._KEPT_HIGHS.renew_after is None            # restored to blank after each use
    assert exact_cover._PACKAGE_WORKERS.renew_after is None


def test_the_sat_solver_is_renewed_with_its_batch_look_ahead(monkeypatch):
    from reductions.sudoku.grid import Shape
    from solvers.routes import sat_incremental as sat
    monkeypatch.setattr(sat._PROCESS_SOLVERS, "renew_after", 5)
    shape = Shape(2, 2)
    key = (shape, sat.DEFAULT_SOLVER, "extended", "auto")
    sat._PROCESS_SOLVERS.close_all()
    try:
        first = sat.process_solver(shape, upcoming=4)
        assert sat.process_solver(shape) is first and sat._PROCESS_SOLVERS.served(key) == 5
        second = sat.process_solver(shape, upcoming=2)
        assert second is not first and first.solver.solver is None     # closed
        assert sat.process_solver(shape, solver="minisat22") is not second
        assert sat._PROCESS_SOLVERS.kept(key) is second
    finally:
        sat._PROCESS_SOLVERS.close_all()
