"""Independent re-checks of deductions: from the state a deduction was found in and its
witness alone, with plain Python loops over sets (no numpy scans, no matching, no nr(G)),
decide whether the witness proves the deduction's effect. The tests run every deduction of
many puzzles through :func:`deduction_problems`.

Nishio's witness (the digit) is re-checked by pattern overlay (:mod:`reductions.nishio.placements`'s
enumeration of all valid placements, a different method from the DAG the rule uses), so only
where overlay runs (up to 9×9-sized shapes).
"""

from __future__ import annotations

from ..sudoku.candidates import CandidateState
from ..nishio.placements import all_placements
from .base import Deduction


def _sets(state: CandidateState):
    shape, n = state.shape, state.size
    array = state.cand
    cand = {(c, d + 1) for c in range(n * n) for d in range(n)
            if array[c // n, c % n, d]}
    units = [set(map(int, u)) for u in shape.units()]
    return cand, units


def _cands(cand, cell, n):
    return {d for d in range(1, n + 1) if (cell, d) in cand}


def _peers(units, a, b) -> bool:
    return a != b and any(a in u and b in u for u in units)


def _bilocal_edge(cand, units, a, b, d) -> bool:
    return a != b and any(a in u and b in u and {c for c in u if (c, d) in cand} == {a, b}
                          for u in units)


def _bivalue_edge(state, cand, units, a, b, d) -> bool:
    n = state.size
    two = all(len(_cands(cand, c, n)) == 2 and state.placed[c] == 0
              for c in (a, b))
    return two and _peers(units, a, b) and (a, d) in cand and (b, d) in cand


def _walk_problems(walk, edge_ok, closed: bool) -> list[str]:
    problems = []
    if not walk:
        return ["empty walk"]
    for k, (a, b, d) in enumerate(walk):
        if not edge_ok(a, b, d):
            problems.append(f"step {k}: {a}-{b} labelled {d} is not an edge")
        if k and walk[k - 1][1] != a:
            problems.append(f"step {k}: does not continue from the previous step")
        if k and walk[k - 1][2] == d:
            problems.append(f"step {k}: repeats label {d}")
    if closed and (walk[-1][1] != walk[0][0] or walk[-1][2] == walk[0][2]):
        problems.append("the walk is not a nonrepetitive closed walk")
    return problems


def deduction_problems(state: CandidateState, ded: Deduction) -> list[str]:
    """Why ``ded`` does not follow from its witness in ``state`` ([] when it does)."""
    cand, units = _sets(state)
    for c, d in ded.eliminations:
        if (c, d) not in cand:
            return [f"eliminates {c}-{d}, which is not a candidate"]
    check = _check_for(ded.rule)
    if check is None:
        return [f"no check for rule {ded.rule}"]
    return check(state, cand, units, ded)


def _check_for(rule: str):
    """The re-check for ``rule``: by exact name, else by graph prefix; None when there is none."""
    if rule in _CHECKS:
        return _CHECKS[rule]
    if rule.startswith("bilocal"):
        return _bilocal_problems
    if rule.startswith("bivalue"):
        return _bivalue_problems
    return None


def _naked_single_problems(state, cand, units, ded) -> list[str]:
    """The cell has the digit as its only candidate, and the deduction places it there."""
    w = ded.witness
    return [] if _cands(cand, w["cell"], state.size) == {w["digit"]} and \
        set(ded.placements) == {(w["cell"], w["digit"])} else ["not a naked single"]


def _hidden_single_problems(state, cand, units, ded) -> list[str]:
    """The cell is the digit's only place in the unit, and the deduction places it there."""
    w = ded.witness
    where = {c for c in units[w["unit"]] if (c, w["digit"]) in cand}
    return [] if where == {w["cell"]} and set(ded.placements) == {(w["cell"], w["digit"])} \
        else ["not a hidden single"]


def _intersection_problems(state, cand, units, ded) -> list[str]:
    """Pointing/claiming: the digit's cells in the source unit all lie in the intersection."""
    w, rule = ded.witness, ded.rule
    d, block, line = w["digit"], units[w["block"]], units[w["line"]]
    source, target = (block, line) if rule == "pointing" else (line, block)
    inside = {c for c in source if (c, d) in cand}
    if not inside <= (block & line):
        return ["the digit's cells are not all in the intersection"]
    expected = {(c, d) for c in target - source if (c, d) in cand}
    return [] if set(ded.eliminations) == expected else ["eliminations differ from the witness"]


def _hidden_set_problems(state, cand, units, ded) -> list[str]:
    """k digits confined to k cells of a unit (and maybe of another unit) clear what's implied."""
    n, w, elims = state.size, ded.witness, set(ded.eliminations)
    unit, digits, cells = units[w["unit"]], set(w["digits"]), set(w["cells"])
    if len(digits) != len(cells) or not cells <= unit:
        return ["sizes differ or cells outside the unit"]
    for d in digits:
        if not {c for c in unit if (c, d) in cand} <= cells:
            return [f"digit {d} has cells outside the set"]
    allowed = {(c, d) for c in cells for d in range(1, n + 1) if d not in digits}
    if "other_unit" in w:
        if not cells <= units[w["other_unit"]]:
            return ["cells not in the other unit"]
        allowed |= {(c, d) for c in units[w["other_unit"]] - cells for d in digits}
    return [] if elims and elims <= allowed else ["eliminations not implied"]


def _digit_matching_problems(state, cand, units, ded) -> list[str]:
    """A Hall set of rows and columns for one digit (or a deficient one, a contradiction)."""
    n, w, elims = state.size, ded.witness, set(ded.eliminations)
    d, rows, cols = w["digit"], set(w["rows"]), set(w["columns"])
    if ded.contradiction:        # columns with fewer rows available
        used = {c // n for c in range(n * n) if c % n in cols and (c, d) in cand}
        return [] if used <= rows and len(rows) < len(cols) else ["not deficient"]
    if len(rows) != len(cols):
        return ["Hall sets of different sizes"]
    if any(c % n not in cols for c in range(n * n) if c // n in rows and (c, d) in cand):
        return ["the rows have the digit outside the columns"]
    ok = all(c % n in cols and c // n not in rows and dd == d for c, dd in elims)
    return [] if ok and elims else ["eliminations not implied"]


def _unit_matching_problems(state, cand, units, ded) -> list[str]:
    """A naked set of cells in a unit (or a deficient one, a contradiction)."""
    n, w, elims = state.size, ded.witness, set(ded.eliminations)
    unit, digits, cells = units[w["unit"]], set(w["digits"]), set(w["cells"])
    if not cells <= unit:
        return ["cells outside the unit"]
    held = {d for c in cells for d in _cands(cand, c, n)}
    if ded.contradiction:
        where = {c for c in unit for d in digits if (c, d) in cand}
        return [] if where <= cells and len(cells) < len(digits) else ["not deficient"]
    if len(digits) != len(cells) or not held <= digits:
        return ["not a naked set"]
    ok = all(c in unit - cells and d in digits for c, d in elims)
    return [] if ok and elims else ["eliminations not implied"]


def _nishio_problems(state, cand, units, ded) -> list[str]:
    """Pattern overlay: no eliminated cell is in a valid placement of the digit (or none exist)."""
    d, elims = ded.witness["digit"], set(ded.eliminations)
    mask = state.cand[:, :, d - 1]
    placements = all_placements(state.shape)
    inside = placements[mask.ravel()[placements].all(axis=1)]
    if ded.contradiction:
        return [] if len(inside) == 0 else ["a valid placement exists"]
    used = set(inside.ravel().tolist())
    ok = all(dd == d and c not in used for c, dd in elims)
    return [] if ok and elims else ["an eliminated cell is in a valid placement"]


def _bilocal_problems(state, cand, units, ded) -> list[str]:
    """Bilocation-graph walks: a cycle clears the cell, a repetitive cycle or conflict places."""
    w, rule = ded.witness, ded.rule

    def edge_ok(a, b, d):
        return _bilocal_edge(cand, units, a, b, d)
    if rule == "bilocal-cycle":
        return _bilocal_cycle_problems(w, set(ded.eliminations), edge_ok)
    cell, d = w["cell"], w["digit"]
    if set(ded.placements) != {(cell, d)}:
        return ["wrong placement"]
    if rule == "bilocal-repetitive-cycle":
        walk = w["walk"]
        problems = _walk_problems(walk, edge_ok, closed=False)
        if walk[0][:1] != [cell] or walk[0][2] != d or walk[-1][1:] != [cell, d]:
            problems.append("the walk does not leave and re-enter the cell by the digit")
        return problems
    return _bilocal_conflict_problems(units, w, edge_ok)


def _bilocal_cycle_problems(w, elims, edge_ok) -> list[str]:
    """A closed bilocation walk through the cell clears all but its two end labels there."""
    cell, walk = w["cell"], w["walk"]
    problems = _walk_problems(walk, edge_ok, closed=True)
    keep = {walk[0][2], walk[-1][2]}
    if walk[0][0] != cell or any(c != cell or d in keep for c, d in elims):
        problems.append("eliminations not implied")
    return problems


def _bilocal_conflict_problems(units, w, edge_ok) -> list[str]:
    """Two bilocation walks leaving the cell by the digit end in conflicting pairs."""
    cell, d, walks = w["cell"], w["digit"], w["walks"]
    problems = [p for walk in walks for p in _walk_problems(walk, edge_ok, closed=False)]
    if any(walk[0][0] != cell or walk[0][2] != d for walk in walks):
        problems.append("a walk does not leave the cell by the digit")
    (p, dp), (q, dq) = (walks[0][-1][1:], walks[1][-1][1:])
    if not ((p == q and dp != dq) or (dp == dq and _peers(units, p, q))):
        problems.append("the walks' ends do not conflict")
    return problems


def _bivalue_problems(state, cand, units, ded) -> list[str]:
    """Bivalue-graph walks: a cycle clears common peers, a repetitive cycle or conflict clears."""
    w, rule, elims = ded.witness, ded.rule, set(ded.eliminations)

    def edge_ok(a, b, d):
        return _bivalue_edge(state, cand, units, a, b, d)
    if rule == "bivalue-cycle":
        return _bivalue_cycle_problems(units, w, elims, edge_ok)
    cell, d = w["cell"], w["digit"]
    if elims != {(cell, d)}:
        return ["wrong elimination"]
    if rule == "bivalue-repetitive-cycle":
        walk = w["walk"]
        problems = _walk_problems(walk, edge_ok, closed=False)
        if walk[0][0] != cell or walk[0][2] != d or walk[-1][1:] != [cell, d]:
            problems.append("the walk does not leave and re-enter the cell by the digit")
        return problems
    return _bivalue_conflict_problems(state, cand, units, w, edge_ok)


def _bivalue_cycle_problems(units, w, elims, edge_ok) -> list[str]:
    """A closed bivalue walk through the edge clears its label from the edge's common peers."""
    walk = w["walk"]
    u, v, x = w["edge"]
    problems = _walk_problems(walk, edge_ok, closed=True)
    if [u, v, x] not in walk and [v, u, x] not in walk:
        problems.append("the edge is not on the walk")
    if any(dd != x or not (_peers(units, c, u) and _peers(units, c, v))
           for c, dd in elims):
        problems.append("an eliminated cell is not a common peer")
    return problems


def _bivalue_conflict_problems(state, cand, units, w, edge_ok) -> list[str]:
    """Two bivalue walks from the cell holding the digit force conflicting pairs."""
    n, cell, d, walks = state.size, w["cell"], w["digit"], w["walks"]

    def pulled(walk):                   # what the walk forces if cell holds d
        if not walk:
            return cell, d
        b, label = walk[-1][1], walk[-1][2]
        return b, (_cands(cand, b, n) - {label}).pop()
    problems = [p for walk in walks if walk for p in _walk_problems(walk, edge_ok, False)]
    if any(walk and (walk[0][0] != cell or walk[0][2] != d) for walk in walks):
        problems.append("a walk does not leave the cell by the digit")
    (p, dp), (q, dq) = pulled(walks[0]), pulled(walks[1])
    if not ((p == q and dp != dq) or (dp == dq and _peers(units, p, q))):
        problems.append("the walks' ends do not conflict")
    return problems


def _forced_by(state, cand, units, cell, digit, path) -> tuple[tuple[int, int] | None, list[str]]:
    """What one path of a mixed witness forces if ``cell`` is not ``digit``: a bilocation walk
    leaving ``cell`` by ``digit`` pushes its last label into its last cell; for a bivalue
    ``cell`` ({digit, o}), the empty walk forces ``cell`` = o and a bivalue walk leaving by o
    pulls the last cell's other candidate. Returns (forced pair or None, problems)."""
    n = state.size
    walk = path["walk"]
    if path["graph"] == "bilocal":
        problems = _walk_problems(walk, lambda a, b, d: _bilocal_edge(cand, units, a, b, d),
                                  closed=False)
        if walk and (walk[0][0] != cell or walk[0][2] != digit):
            problems.append("the bilocation walk does not leave the cell by the digit")
        return (None if problems else (walk[-1][1], walk[-1][2])), problems
    mine = _cands(cand, cell, n)
    if len(mine) != 2 or digit not in mine or state.placed[cell]:
        return None, ["the start cell is not bivalue with the digit"]
    other = (mine - {digit}).pop()
    if not walk:
        return (cell, other), []
    problems = _walk_problems(walk, lambda a, b, d: _bivalue_edge(state, cand, units, a, b, d),
                              closed=False)
    if walk[0][0] != cell or walk[0][2] != other:
        problems.append("the bivalue walk does not leave the cell by its other value")
    if problems:
        return None, problems
    end, label = walk[-1][1], walk[-1][2]
    return (end, (_cands(cand, end, n) - {label}).pop()), []


def _path_problems(state, cand, units, ded) -> list[str]:
    """bilocal-path / bivalue-path: the walk forces its end to hold the digit unless the start
    does, so the digit leaves only cells seeing both."""
    w = ded.witness
    cell, digit, walk = w["cell"], w["digit"], w["walk"]
    if ded.rule == "bilocal-path":
        forced, problems = _forced_by(state, cand, units, cell, digit,
                                      {"graph": "bilocal", "walk": walk})
    else:
        forced, problems = _forced_by(state, cand, units, cell, digit,
                                      {"graph": "bivalue", "walk": walk})
        if not walk:
            problems.append("empty walk")
    if problems:
        return problems
    end, forced_digit = forced
    if forced_digit != digit or end == cell:
        return ["the walk does not force the digit into another cell"]
    if not ded.eliminations or any(d != digit or not (_peers(units, c, cell)
                                                      and _peers(units, c, end))
                                   for c, d in ded.eliminations):
        return ["an eliminated cell does not see both ends"]
    return []


def _mixed_problems(state, cand, units, ded) -> list[str]:
    """mixed-conflicting-paths: every path's forced pair follows from "cell is not digit",
    and the forced pairs clash, or their peers empty a unit for a digit, or a cell."""
    n = state.size
    w = ded.witness
    cell, digit = w["cell"], w["digit"]
    if set(ded.placements) != {(cell, digit)}:
        return ["wrong placement"]
    forced = []
    for path in w["paths"]:
        pair, problems = _forced_by(state, cand, units, cell, digit, path)
        if problems:
            return problems
        forced.append(pair)
    if forced != [tuple(f) for f in w["forced"]]:
        return ["the forced pairs differ from the witness"]
    conflict = w["conflict"]

    def ruled_out(c, d):                # a peer of c is forced to d
        return any(fd == d and _peers(units, f, c) for f, fd in forced)
    if conflict["kind"] == "pair":
        if len(forced) != 2:
            return ["a pair conflict needs two paths"]
        (p, dp), (q, dq) = forced
        ok = (p == q and dp != dq) or (dp == dq and _peers(units, p, q))
        return [] if ok else ["the forced pairs do not clash"]
    if conflict["kind"] == "unit":
        d = conflict["digit"]
        where = [c for c in units[conflict["unit"]] if (c, d) in cand]
        return [] if all(ruled_out(c, d) for c in where) else ["the unit keeps a place"]
    if conflict["kind"] == "cell":
        c = conflict["cell"]
        ok = state.placed[c] == 0 and all(ruled_out(c, d)
                                                      for d in _cands(cand, c, n))
        return [] if ok else ["the cell keeps a candidate"]
    return ["unknown conflict kind"]

# Rules re-checked by exact name; other bilocal-*/bivalue-* rules go by prefix (_check_for).
_CHECKS = {
    "naked-single": _naked_single_problems,
    "hidden-single": _hidden_single_problems,
    "pointing": _intersection_problems,
    "claiming": _intersection_problems,
    "hidden-pair": _hidden_set_problems,
    "pile-exclusion": _hidden_set_problems,
    "line-block-triple": _hidden_set_problems,
    "digit-matching": _digit_matching_problems,
    "unit-matching": _unit_matching_problems,
    "nishio": _nishio_problems,
    "bilocal-path": _path_problems,
    "bivalue-path": _path_problems,
    "mixed-conflicting-paths": _mixed_problems,
}
