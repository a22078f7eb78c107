"""The degree-2 reduction of a 3-split computed on its digraph: the same result as the
general algorithm (status, reason, kept edges, sizes, reduced graph) on random digraphs and
on the Sudoku graphs (solvable, unsolvable, every pruning)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reductions.hamiltonian.graph_reduction import NO_CYCLE, REDUCED, reduce_degree_two
from reductions.sudoku.grid import Grid
from reductions.hamiltonian.hcp import haythorpe_graph
from reductions.hamiltonian.hcp_pipeline import HcpOptions, build_hcp_pipeline
from reductions.hamiltonian.hcp_undirected import (describe_split_vertex, haythorpe_split,
                                                   split_graph)
from reductions.hamiltonian.split_reduction import reduce_split_degree_two

from tests.conftest import instance_puzzles


def record(reduction) -> tuple:
    """Everything a reduction tells, the contracted graph included (not ``rounds``)."""
    fields = (str(reduction.status), reduction.reason, reduction.num_vertices,
              reduction.num_edges, reduction.deleted_edges)
    if reduction.status != REDUCED:
        return fields
    return fields + (reduction.alive.tobytes(), reduction.edges.tobytes(),
                     reduction.group_start.tobytes(), reduction.members.tobytes(),
                     reduction.end_groups.tobytes())


def general(split, describe=str) -> tuple:
    return record(reduce_degree_two(split.num_vertices, split.edges, True, describe))


@st.composite
def digraphs(draw, min_vertices=2, max_vertices=9):
    n = draw(st.integers(min_vertices, max_vertices))
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
    chosen = draw(st.sets(st.sampled_from(pairs), min_size=n, max_size=min(len(pairs), 3 * n)))
    return n, np.array(sorted(chosen), dtype=np.int64).reshape(-1, 2)


@settings(max_examples=400, deadline=None)
@given(graph=digraphs())
def test_the_digraph_gives_the_general_algorithms_reduction(graph):
    n, arcs = graph
    split = split_graph(n, arcs)
    assert record(reduce_split_degree_two(split)) == general(split)


def test_sudoku_graphs_are_reduced_alike_for_every_pruning_and_unsolvable_puzzles():
    puzzles = (instance_puzzles("royle17-sample300.txt", 6) + instance_puzzles("4x4.txt")
               + instance_puzzles("unsolvable.txt") + [Grid.empty(4), Grid.empty(9)])
    statuses = set()
    for puzzle in puzzles:
        for prune in ("none", "paper", "peers"):
            pipeline = build_hcp_pipeline(puzzle, HcpOptions(prune=prune, reduce=True))
            statuses.add(str(pipeline.reduction.status))
            split, name = pipeline.split, pipeline.graph.layout.name
            expected = general(split, lambda w: describe_split_vertex(split, w, name))
            assert record(pipeline.reduction) == expected, (puzzle, prune)
    assert {"reduced", "no cycle"} <= statuses


def test_the_stage_note_says_the_digraph_answered():
    puzzle = instance_puzzles("royle17-sample300.txt", 1)[0]
    pipeline = build_hcp_pipeline(puzzle, HcpOptions(prune="peers", reduce=True))
    assert pipeline.reduction.rounds == 0
    assert "found on the digraph" in pipeline.stages[-1].note
    plain = build_hcp_pipeline(puzzle, HcpOptions(prune="peers", reduce=True, closing=False))
    assert plain.reduction.rounds > 0            # the paper's rules alone: the general way


def test_with_the_triple_trick_the_general_algorithm_answers():
    puzzle = instance_puzzles("royle17-sample300.txt", 1)[0]
    split = haythorpe_split(haythorpe_graph(puzzle, "peers"), True)
    reduction = reduce_split_degree_two(split)
    assert reduction.rounds > 0 and record(reduction) == general(split)


@pytest.mark.parametrize("arcs, status", [
    ([(0, 1), (1, 2), (2, 0)], "solved"),                        # one cycle
    ([(0, 1), (1, 0), (2, 3), (3, 2)], "no cycle"),              # two pieces
    ([(0, 1), (1, 2), (2, 0), (0, 2)], "solved"),                # 0→2 closes 0→1→2 short
    ([(0, 1), (1, 0), (0, 2), (2, 0), (1, 2)], "solved"),
])
def test_no_cycle_and_solved_answers_are_the_general_ones(arcs, status):
    n = 1 + max(max(a) for a in arcs)
    split = split_graph(n, np.array(arcs))
    reduction = reduce_split_degree_two(split)
    assert str(reduction.status) == status and record(reduction) == general(split)
    if status == "no cycle":
        assert reduction.status == NO_CYCLE and reduction.reason
