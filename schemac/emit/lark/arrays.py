"""Arrays in Lark: `contains` counts on arrays of unbounded length, and `uniqueItems` over finite
item domains too large to enumerate as an enum of arrays.

Array states: `a_p_c` is a non-empty rest of the array at position class p with c matches
counted, `t_p_c` what may follow an item there. Without maxContains the rules are ambiguous
(an item matching the contains schema may or may not be counted) but exact: a text is accepted
iff some choice counts minContains matches. With maxContains, items are either counted matches
or members of the complement, so the count is exact.

Unique items use one grammar parameter bit per distinct value. A value is offered at a position
only if it is in that position's domain *and* satisfies the position's whole item schema (the
domains come from the pass, the schema's other keywords such as `pattern` or `multipleOf` are
checked here by the final validator), and `, ` is offered only where a further item can follow.
"""
from __future__ import annotations

from itertools import product
from typing import Any

from schemac.diagnostics import reject
from schemac.emit.lark.listed import literal_value
from schemac.emit.lark.merge import CL, Unwritable
from schemac.emit.lark.object_classes import plain_tail
from schemac.emit.lark.rulebook import RuleBook
from schemac.lower.support.marks import MARK, MAX_ARRAY_STATES
from schemac.schema import Schema, all_of


#: At most this many contains constraints on one array (items are split by subsets of them).
MAX_CONTAINS = 4
#: The unique-items form tracks used values in one 64-bit grammar parameter.
MAX_UNIQUE_VALUES = 64


def write_array(w: RuleBook, node: dict[str, Any], pointer: str) -> str | None:
    """The rule body for `node`'s array keywords (an array value), or None when none is valid."""
    prefix: list[Schema] = list(node.get("prefixItems", []))
    rest: Schema = node.get("items", True)
    lo_items = int(node.get("minItems", 0))
    hi_items = None if node.get("maxItems") is None else int(node["maxItems"])
    if rest is False:
        hi_items = len(prefix) if hi_items is None else min(hi_items, len(prefix))
    mark = node.get(MARK, {})
    constraints: list[dict[str, Any]] = node.get(CL, [])
    if constraints and node.get("uniqueItems") is True:
        raise Unwritable(pointer, "an array with `contains` together with `uniqueItems`")
    if node.get("uniqueItems") is True:
        if "domains" not in mark:
            raise Unwritable(pointer, "an array with `uniqueItems` and no finite item domains")
        return _unique(w, mark["domains"], prefix, rest, lo_items, hi_items, pointer)
    if len(constraints) > MAX_CONTAINS:
        raise Unwritable(pointer, f"an array with {len(constraints)} contains constraints")
    if not constraints and not prefix:
        return _repeated(w, rest, lo_items, hi_items, pointer)
    top = max(len(prefix), lo_items) if hi_items is None else hi_items
    # per constraint: counts 0..lo (saturating: more matches change nothing) or 0..hi
    sizes = [(c["lo"] if c["hi"] is None else c["hi"]) + 1 for c in constraints]
    states = top + 1
    for n in sizes:  # counted before any state is built: the counts are the schema's numbers
        states *= n
    if states > MAX_ARRAY_STATES:
        raise reject("too-large", pointer, f"the array needs {states} grammar states; "
                     f"the limit is {MAX_ARRAY_STATES}")
    counts = list(product(*[range(n) for n in sizes]))
    base = w.name("a")

    def item(p: int) -> Schema:
        return prefix[p] if p < len(prefix) else rest

    def step(p: int) -> int | None:
        if hi_items is not None:
            return p + 1 if p < hi_items else None
        return min(p + 1, top)

    def accept(p: int, cs: tuple[int, ...]) -> bool:
        return p >= lo_items and all(n >= c["lo"] for n, c in zip(cs, constraints))

    def label(cs: tuple[int, ...]) -> str:
        return "_".join(map(str, cs)) or "n"

    # an item counted for the constraints in `chosen` satisfies those; for a constraint with a
    # maximum, an uncounted item must satisfy its complement (so its count is exact)
    limits = [c["lo"] if c["hi"] is None else c["hi"] for c in constraints]
    moves: dict[tuple[int, tuple[int, ...]], list[tuple[str, int, tuple[int, ...]]]] = {}
    for p in range(top + 1):
        q = step(p)
        for cs in counts:
            found: list[tuple[str, int, tuple[int, ...]]] = []
            for chosen in product((False, True), repeat=len(constraints)) if q is not None else ():
                if any(t and n >= lim for t, n, lim in zip(chosen, cs, limits)):
                    continue
                parts = [item(p)] + [c["schema"] for t, c in zip(chosen, constraints) if t]
                parts += [c["not"] for t, c in zip(chosen, constraints) if not t and c["hi"] is not None]
                r = w.value(all_of(parts, keep_false=True), pointer)
                if r is not None:
                    found.append((r, q, tuple(n + t for n, t in zip(cs, chosen))))  # type: ignore[misc]
            moves[(p, cs)] = found
    live = {s for s in moves if accept(*s)}
    changed = True
    while changed:
        changed = False
        for s, found in moves.items():
            if s not in live and any((q, d) in live for _, q, d in found):
                live.add(s)
                changed = True
    for (p, c), found in sorted(moves.items()):
        if (p, c) not in live:
            continue
        alts = [f"{r} {base}_t{q}_{label(d)}" for r, q, d in found if (q, d) in live]
        has_more = w.alts(f"{base}_{p}_{label(c)}", alts) is not None
        tail = (["\"\""] if accept(p, c) else []) + ([f"{w.sep} {base}_{p}_{label(c)}"] if has_more else [])
        w.alts(f"{base}_t{p}_{label(c)}", tail)
    start = []
    zero = counts[0]
    if accept(0, zero):
        start.append("\"[\" \"]\"")
    if (0, zero) in live and any((q, d) in live for _, q, d in moves[(0, zero)]):
        start.append(f"\"[\" {base}_0_{label(zero)} \"]\"")
    return " | ".join(start) if start else None


def _repeated(w: RuleBook, rest: Schema, lo: int, hi: int | None, pointer: str) -> str | None:
    """Arrays of `lo` to `hi` items all in `rest`, as one counted Lark repetition: a chain of one
    rule per position (the general writer's form) would be as deep as `minItems`, and llguidance
    compiles rule chains recursively (`lark_depth`); its repetitions it does not."""
    items = plain_tail(w, w.name("a"), w.value(rest, pointer) if hi != 0 else None, 0, lo, hi)
    return None if items is None else f'"[" {items} "]"'


def _unique(w: RuleBook, domains: list[list[Any]], prefix: list[Schema], rest: Schema, lo: int,
            hi: int | None, pointer: str) -> str | None:
    """`domains`: the values of each prefix position, then those of every later item. Position
    p's values are filtered through its item schema; `t_p` (what follows an item at p) offers
    `, ` only when position p + 1 exists and has a value left to offer."""
    from schemac.lower.support.scalar_marks import lowered_validator
    from schemac.json_key import json_key

    tail = len(domains) - 1
    index: dict[str, int] = {}
    consts: list[str | None] = []
    offered: list[list[int]] = []
    for p, dom in enumerate(domains):
        schema = prefix[p] if p < len(prefix) else rest
        check = None if schema is True else lowered_validator(
            {**schema, "$defs": w.defs} if w.defs and isinstance(schema, dict) else schema)
        here: list[int] = []
        for v in dom:
            if check is not None and not check.is_valid(v):
                continue
            k = json_key(v)
            if k not in index:
                index[k] = len(consts)
                consts.append(literal_value(w, v, pointer))
            if consts[index[k]] is not None:
                here.append(index[k])
        offered.append(list(dict.fromkeys(here)))
    if len(consts) > MAX_UNIQUE_VALUES:
        raise Unwritable(pointer, f"an array with `uniqueItems` over {len(consts)} values (at most {MAX_UNIQUE_VALUES})")
    base = w.name("u")
    heads: dict[int, str | None] = {}
    follows = {tail: True}  # whether `t_q` (what may follow the item before position q) exists
    for p in range(tail, -1, -1):
        nxt = min(p + 1, tail)
        alts = []
        if (hi is None or p < hi) and follows.get(nxt, False):
            for k in offered[p]:
                cond = f"bit_clear({k})"
                if p == tail and hi is not None:
                    cond = f"and({cond}, bit_count_lt(_, {hi}))"
                alts.append(f"{consts[k]} {base}_t{nxt}::set_bit({k}) %if {cond}")
        heads[p] = w.alts(f"{base}_{p}::_", alts)
        # `t_p`: p items written (p = tail: at least that many); it ends the array when the count
        # allows, and offers `, ` only when some value of position p is still unused
        ends = ["\"\"" + (f" %if bit_count_ge(_, {lo})" if p == tail and lo > p else "")] if p >= lo or p == tail else []
        if heads[p] is not None:
            free = f"bit_clear({offered[p][-1]})"
            for k in reversed(offered[p][:-1]):
                free = f"or(bit_clear({k}), {free})"
            if p == tail and hi is not None:
                free = f"and({free}, bit_count_lt(_, {hi}))"
            ends.append(f"{w.sep} {base}_{p}::_ %if {free}")
        follows[p] = w.alts(f"{base}_t{p}::_", ends) is not None
    start = ["\"[\" \"]\""] if lo == 0 else []
    if heads.get(0):
        start.append(f"\"[\" {base}_0::0x0 \"]\"")
    return " | ".join(start) if start else None
