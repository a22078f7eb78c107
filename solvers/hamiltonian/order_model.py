"""The ordering encoding of a digraph's Hamiltonian cycles: every model is a Hamiltonian cycle
by construction, so it needs no subtour cuts — the portfolio's second backend, for graphs on
which the cut loop stalls (:mod:`solvers.hamiltonian.portfolio`).

Over the cycle-cover model of :func:`~solvers.hamiltonian.sat_model._model_clauses` (arc e is
variable e + 1; exactly one arc out of and into every vertex, no 2-cycle), every vertex v gets
a position pos(v), a B-bit binary number (B = the bit length of n − 1), and a chosen root r
has pos(r) = 0. Each arc u→v with v ≠ r says: if u→v is chosen, pos(v) = pos(u) + 1 with no
carry out of the top bit (the increment as a binary adder: bit i of v is bit i of u xor
"bits 0..i−1 of u are all one", that prefix a variable of u's, shared by all its arcs).

Exact, both ways:

* every Hamiltonian cycle gives a model: number its vertices 0, 1, …, n − 1 from r along the
  cycle; each arc u→v with v ≠ r goes from position k to k + 1 ≤ n − 1 < 2^B, an increment
  without carry out (the arc into r is not constrained), and the degree and 2-cycle clauses
  hold of a Hamiltonian cycle on n ≥ 3 vertices;
* every model is a Hamiltonian cycle: its arcs are a cycle cover (the degree clauses); a
  cycle of the cover that avoids r would raise pos by exactly 1 along each of its arcs and
  come back to where it started, which no integer does — so the cover is the one cycle
  through r. (Without the no-carry clause the increments would be modulo 2^B, and a
  wrap-around needs a cycle of 2^B > n − 1 vertices besides r: the clause is implied, kept
  because it cuts the search sooner.)

So an unsatisfiable formula (with any clauses every Hamiltonian cycle satisfies, such as the
portfolio's subtour cuts and orientation clauses) proves that there is no Hamiltonian cycle.
The size is about 4B clauses per arc and 3B per vertex: on FHCP graph 156 (856 vertices,
5,602 arcs, B = 10) some 220,000 clauses beside the cover model's 30,000."""

from __future__ import annotations

import numpy as np

__all__ = ["order_clauses", "position_bits"]


def position_bits(num_vertices: int) -> int:
    """B: the bits of a position 0 … n − 1 (at least one)."""
    return max(1, (num_vertices - 1).bit_length())


def order_clauses(num_vertices: int, arcs: np.ndarray, *, top: int,
                  root: int) -> tuple[list[list[int]], int]:
    """The position clauses of the module docstring for the normalised ``arcs`` (arc e is
    variable e + 1), their new variables numbered from ``top`` + 1; returns (clauses, new
    top). Bit i of vertex v is ``top + 1 + v·B + i``; "bits 0..i−1 of v are all one" for
    i = 1..B is ``top + 1 + n·B + v·B + i − 1``."""
    n, bits = num_vertices, position_bits(num_vertices)
    vertices = np.arange(n, dtype=np.int64)[:, None]
    bit = top + 1 + vertices * bits + np.arange(bits, dtype=np.int64)          # (n, B)
    ones = top + 1 + n * bits + vertices * bits + np.arange(bits, dtype=np.int64)
    parts = [np.stack([-bit[root]], axis=1), *_prefix_clauses(bit, ones),
             *_increment_clauses(arcs, bit, ones, root)]
    clauses: list[list[int]] = []
    for part in parts:
        clauses += part.tolist()
    return clauses, top + 2 * n * bits


def _prefix_clauses(bit: np.ndarray, ones: np.ndarray) -> list[np.ndarray]:
    """ones[v, 0] ↔ bit[v, 0]; ones[v, i] ↔ ones[v, i − 1] ∧ bit[v, i] (each an array of
    clauses, one row per vertex and bit)."""
    first = [np.stack([-ones[:, 0], bit[:, 0]], axis=1),
             np.stack([ones[:, 0], -bit[:, 0]], axis=1)]
    before, now, here = ones[:, :-1].ravel(), ones[:, 1:].ravel(), bit[:, 1:].ravel()
    return first + [np.stack([-now, before], axis=1), np.stack([-now, here], axis=1),
                    np.stack([now, -before, -here], axis=1)]


def _increment_clauses(arcs: np.ndarray, bit: np.ndarray, ones: np.ndarray,
                       root: int) -> list[np.ndarray]:
    """For each arc u→v with v ≠ root, chosen → pos(v) = pos(u) + 1 without carry out:
    bit 0 of v is not bit 0 of u; bit i ≥ 1 of v is bit i of u xor ones[u, i − 1]; and not
    ones[u, B − 1] (all bits of u one)."""
    keep = np.flatnonzero(arcs[:, 1] != root)
    x = keep + 1
    u, v = arcs[keep, 0], arcs[keep, 1]
    out = [np.stack([-x, bit[v, 0], bit[u, 0]], axis=1),
           np.stack([-x, -bit[v, 0], -bit[u, 0]], axis=1),
           np.stack([-x, -ones[u, -1]], axis=1)]
    if bit.shape[1] > 1:
        xs = np.repeat(x, bit.shape[1] - 1)
        bv, bu, carry = bit[v, 1:].ravel(), bit[u, 1:].ravel(), ones[u, :-1].ravel()
        out += [np.stack([-xs, -bv, bu, carry], axis=1),
                np.stack([-xs, -bv, -bu, -carry], axis=1),
                np.stack([-xs, bv, -bu, carry], axis=1),
                np.stack([-xs, bv, bu, -carry], axis=1)]
    return out
