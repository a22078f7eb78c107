"""The bit-mask rule engine (issue 27) against the numpy engine it replaced
(tests/rules_reference): the same steps — rule, placements, eliminations, witness, words — on
shipped puzzles, the same deductions from every rule on random states, and the pieces that
make it fast (packed tallies, the Hall-set test, the chain closure) against plain counting,
scipy's matching and nr(G) searches."""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.sudoku.candidates import CandidateState, layout, tallies
from reductions.sudoku.grid import Shape
from reductions.sudoku.puzzle_files import read_puzzles
from reductions.rules.engine import RULES, deduce, select_rules
from reductions.rules.chain_graphs import ChainGraph, NO_PREDECESSOR, split, state_graphs
from reductions.rules.matching import flexible, hall_analysis
from solvers.generate import generate_puzzles
from solvers.routes.sat import solve_puzzle

from tests.conftest import instance_puzzles, shared_set
from tests.rules_reference import engine as reference
from tests.rules_reference.state import CandidateState as ReferenceState

REFERENCE_RULES = reference.RULES


def same_run(puzzle, rules=None) -> None:
    """Both engines on one puzzle: identical verdict, reason, steps and final candidates."""
    names = None if rules is None else [rule.name for rule in rules]
    fast = deduce(puzzle, rules)
    slow = reference.deduce(puzzle, None if names is None else reference.select_rules(names))
    assert (fast.verdict, fast.reason) == (slow.verdict, slow.reason)
    assert fast.steps == slow.steps
    assert np.array_equal(fast.state.cand, slow.state.cand)
    assert np.array_equal(fast.state.values, slow.state.values)


@pytest.mark.parametrize("name, count", [("royle17-sample300.txt", 60),
                                         ("top1465-sample100.txt", 25),
                                         ("hardest1905-sample100.txt", 10),
                                         ("unsolvable.txt", None),
                                         ("multiple-solutions.txt", None),
                                         ("4x4.txt", None), ("6x6-2x3.txt", None),
                                         ("12x12-3x4.txt", 2)])
def test_same_steps_as_the_reference(name, count):
    for puzzle in instance_puzzles(name, count):
        same_run(puzzle)


def test_same_steps_at_16x16_and_25x25_local_rules():
    for name in ("16x16.txt", "25x25.txt"):
        for puzzle in instance_puzzles(name):
            same_run(puzzle, select_rules(max_level=9))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["royle17-sample300.txt", "top1465-sample100.txt",
                                  "hardest1905-sample100.txt", "forum-hardest-sample100.txt",
                                  "12x12-3x4.txt", "16x16.txt", "25x25.txt"])
def test_same_steps_on_every_shipped_puzzle(name):
    for puzzle in instance_puzzles(name):
        same_run(puzzle)


@pytest.mark.slow
def test_same_steps_on_generated_and_big_sets():
    """Puzzles of the paper's experiment (the generator, seed 2005) and a spread of the big
    sets when present."""
    for made in generate_puzzles(Shape(3, 3), count=60, seed=2005, symmetric=True):
        same_run(made.puzzle)
    for name in ("royle-17clue-49151.txt", "forum-hardest-1905-11plus.txt"):
        path = shared_set(name)
        for index, (_, puzzle) in enumerate(read_puzzles(path)):
            if index % 500 == 0:
                same_run(puzzle)


# ----------------------------------------------------------------------------- random states

POOL = {"9": instance_puzzles("royle17-sample300.txt", 40) + instance_puzzles(
    "top1465-sample100.txt", 20), "6": instance_puzzles("6x6-2x3.txt")}


@functools.cache
def solution(pool: str, index: int) -> list[int]:
    return solve_puzzle(POOL[pool][index]).grid.values.ravel().tolist()


def random_state(pool: str, index: int, seed: int, moves: int,
                 unsound: float = 0.0) -> CandidateState:
    """A state reached from a shipped puzzle by ``moves`` random moves: sound ones (a wrong
    candidate goes, now and then the right digit is placed), and with probability
    ``unsound`` a move on any candidate (the state may then lose its solution, or contradict
    itself)."""
    index %= len(POOL[pool])
    state = CandidateState.from_puzzle(POOL[pool][index])
    right = solution(pool, index)
    rng = random.Random(seed)
    for _ in range(moves):
        open_cells = state.open_cells().tolist()
        if not open_cells:
            break
        cell = rng.choice(open_cells)
        digits = state.candidates_of(cell)
        wrong = [d for d in digits if d != right[cell]]
        if rng.random() < unsound:
            if digits:
                (state.place if rng.random() < 0.3 else state.eliminate)([cell],
                                                                         [rng.choice(digits)])
        elif not wrong or rng.random() < 0.1:
            state.place([cell], [right[cell]])
        else:
            state.eliminate([cell], [rng.choice(wrong)])
    return state


def reference_state(state: CandidateState) -> ReferenceState:
    return ReferenceState(state.shape, np.array(state.cand), np.array(state.values))


states = st.builds(random_state, st.sampled_from(["9", "9", "9", "6"]),
                   st.integers(0, 10 ** 6), st.integers(0, 10 ** 9), st.integers(0, 150),
                   st.sampled_from([0.0, 0.0, 0.02, 0.2]))


@settings(max_examples=40, deadline=None)
@given(states)
def test_every_rule_finds_what_the_reference_finds(state):
    mirror = reference_state(state)
    for name, rule in RULES.items():
        before = state.copy()
        found = rule.find(state)
        assert found == REFERENCE_RULES[name].find(mirror), name
        assert state.packed == before.packed and state.placed == before.placed


@settings(max_examples=60, deadline=None)
@given(states, st.integers(0, 10 ** 9))
def test_updates_match_the_reference(state, seed):
    """place / eliminate: the same candidates, digits, counts and contradictions."""
    mirror = reference_state(state)
    rng = random.Random(seed)
    n = state.size
    for _ in range(5):
        cells = [rng.randrange(n * n) for _ in range(rng.randint(1, 4))]
        digits = [rng.randint(1, n) for _ in cells]
        if rng.random() < 0.5:
            assert state.place(cells, digits) == mirror.place(cells, digits)
        else:
            assert state.eliminate(cells, digits) == mirror.eliminate(cells, digits)
        assert np.array_equal(state.cand, mirror.cand)
        assert np.array_equal(state.values, mirror.values)
        assert state.contradiction() == mirror.contradiction()
        assert state.placed_twice() == mirror.placed_twice()


# ----------------------------------------------------------------------------- the pieces

@settings(max_examples=80, deadline=None)
@given(st.sampled_from([Shape(2, 2), Shape(2, 3), Shape(3, 3), Shape(3, 4), Shape(4, 4)]),
       st.integers(0, 2 ** 64), st.floats(0.05, 0.95))
def test_tallies_count_every_unit(shape, seed, density):
    lay = layout(shape)
    rng = random.Random(seed)
    packed = sum(1 << p for p in range(lay.n * lay.area) if rng.random() < density)
    for kind, (once, twice) in enumerate(tallies(lay, packed)):
        for k in range(lay.n):
            unit = kind * lay.n + k
            origin = lay.units[unit][0]
            for d in range(lay.n):
                count = sum(packed >> (d * lay.area + c) & 1 for c in lay.units[unit])
                bit = 1 << (d * lay.area + origin)
                assert bool(once & bit) == (count >= 1)
                assert bool(twice & bit) == (count >= 2)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 9), st.integers(0, 2 ** 81), st.floats(0.1, 0.9))
def test_hall_test_agrees_with_the_hall_analysis(k, seed, density):
    rng = random.Random(seed)
    adj = np.array([[rng.random() < density for _ in range(k)] for _ in range(k)])
    masks = [sum(1 << j for j in range(k) if adj[i, j]) for i in range(k)]
    assert flexible(masks) == (hall_analysis(adj) == ("hall", []))


@settings(max_examples=40, deadline=None)
@given(states)
def test_chain_closure_is_what_nr_searches_reach(state):
    """Per start, the forced pairs of the closure are the pairs whose in-vertex a
    breadth-first search of nr(G) reaches; cyclic arcs are nr(G)'s strong-component ones."""
    lay = state.lay
    for kind in ("bilocal", "bivalue"):
        graphs = state_graphs(state, kind)
        if graphs is None:
            continue
        reach = graphs.reach
        chain = ChainGraph(state, np.array(reach.edges, dtype=np.int64))
        assert reach.cyclic_arcs() == np.flatnonzero(chain.cyclic).tolist()
        for cell, digit, start in reach.starts:
            pred = chain.search(start)
            entered = {reach.pairs[v // 2] for v in np.flatnonzero(pred != NO_PREDECESSOR)
                       if v < 2 * len(reach.pairs) and v % 2 == 0}
            forced, _, _ = split(lay, reach.closure[start])
            if kind == "bilocal":
                expected = {(c, x) for c, x in entered}
            else:
                expected = {(c, (state.cells[c] & ~(1 << x)).bit_length() - 1)
                            for c, x in entered}
            got = {(p % lay.area, p // lay.area) for p in range(lay.n * lay.area)
                   if forced >> p & 1}
            assert got == expected
