"""Several `WITNESS` markers on one object: the rules track the set of witnesses still owed.

Each witness j says "some entry whose key is in class K_j has a value in V_j". An entry may
discharge any subset D of the owed witnesses whose classes hold its key, its value then in its
own schema and every V_j of D (one alternative per such D, none when that conjunction is
unsatisfiable); the object closes only when nothing is owed. Listed keys keep schema order and
extras follow, as for one witness, so the rules are o_i_s_c_O (listed index, separator, count,
owed set) and, after the listed keys, e_O_s_c: extra entries, each plain or a witness entry for
some D. A state is written only when it can still close (`_fewest`: the fewest witness entries
that discharge O), so no rule is dead. Exact in both directions: an object is valid iff its
entries can be assigned to the witnesses they satisfy, which is what the alternatives enumerate.
"""
from __future__ import annotations

from functools import reduce
from operator import or_
from typing import Any

from schemac.emit.json_path import key_literal
from schemac.emit.lark.merge import key_schema
from schemac.emit.lark.object_classes import (MAX_OBJECT_STATES, Extra, class_terminal, extras, in_class, key_bounds,
                                              listed, plain_tail, too_large, witness_entry)
from schemac.emit.lark.rulebook import RuleBook
from schemac.schema import all_of, child_pointer


#: At most this many distinct witnesses on one object (an entry's alternatives grow as 2^n).
MAX_WITNESSES = 6


def _subsets(mask: int) -> list[int]:
    """Every subset of the bit set `mask`, the empty one included."""
    out, d = [], mask
    while True:
        out.append(d)
        if d == 0:
            return out
        d = (d - 1) & mask


def _fewest(n: int, usable: list[int]) -> list[float]:
    """Per owed set O: the fewest witness entries (each discharging one of `usable`) that
    discharge all of O; infinity when none do."""
    best: list[float] = [0.0] + [float("inf")] * ((1 << n) - 1)
    for owed in range(1, 1 << n):
        for d in usable:
            if d & owed == d:
                best[owed] = min(best[owed], 1 + best[owed ^ d])
    return best


#: (key, discharged witness set -> value rule, required) of one listed key
Entry = tuple[str, dict[int, str], bool]


def owed_entries(w: RuleBook, node: dict[str, Any], pointer: str, witnesses: list[dict[str, Any]]) -> list[Entry] | None:
    """`node`'s listed keys that some value satisfies, each with one value rule per set of
    `witnesses` it can discharge (its key in their classes, its value also in theirs); None when
    a required key has no valid value."""
    n = len(witnesses)
    members = [in_class(x, pointer) for x in witnesses]
    required = set(node.get("required", []))
    entries: list[Entry] = []
    for k in listed(node):
        here = child_pointer(pointer, "properties", k)
        schema = key_schema(node, k, pointer)
        can = sum(1 << j for j in range(n) if members[j](k))
        rules = {d: r for d in _subsets(can)
                 if (r := w.value(all_of([schema, *_values(witnesses, d)], flatten=True), here)) is not None}
        if not rules:
            if k in required:
                return None
            continue
        entries.append((k, rules, k in required))
    return entries


def owed_extras(w: RuleBook, classes: list[Extra], pointer: str, witnesses: list[dict[str, Any]]) -> dict[int, str]:
    """Per non-empty set of `witnesses`: a rule for one extra entry (in one of `classes`) that
    discharges them all, where one exists."""
    if not classes:
        return {}
    terms = [class_terminal(w, x, pointer) for x in witnesses]
    wit: dict[int, str] = {}
    for d in range(1, 1 << len(witnesses)):
        inside = " & ".join(terms[j] for j in range(len(witnesses)) if d >> j & 1)
        if (rule := witness_entry(w, classes, inside, _values(witnesses, d))) is not None:
            wit[d] = rule
    return wit


def _values(witnesses: list[dict[str, Any]], d: int) -> list[Any]:
    """The value schemas of the witnesses in the bit set `d`."""
    return [x["value"] for j, x in enumerate(witnesses) if d >> j & 1]


def write_owed(w: RuleBook, node: dict[str, Any], pointer: str, witnesses: list[dict[str, Any]]) -> str | None:
    """`node`'s object with every one of `witnesses` (two or more, distinct) discharged."""
    n = len(witnesses)
    full = (1 << n) - 1
    lo = int(node.get("minProperties", 0))
    hi = None if node.get("maxProperties") is None else int(node["maxProperties"])
    cap = 0 if not (lo > 0 or hi is not None) else (hi if hi is not None else lo)
    keys = listed(node)
    states = (len(keys) + 2) * 2 * (cap + 1) << n
    if n > MAX_WITNESSES or states > MAX_OBJECT_STATES:
        raise too_large(pointer, states if n <= MAX_WITNESSES else states << (n - MAX_WITNESSES))
    entries = owed_entries(w, node, pointer, witnesses)
    if entries is None:
        return None
    classes = extras(w, node, keys, pointer)
    lo, hi = key_bounds(w, classes, len(entries), lo, hi)
    if hi is not None and lo > hi:
        return None
    cap = 0 if not (lo > 0 or hi is not None) else (hi if hi is not None else lo)
    base = w.name("o")
    item = w.name("x") if classes else None
    if item is not None:
        w.alts(item, [f"{t} {w.ksep} {rule}" for t, _, _, rule in classes])
    wit = owed_extras(w, classes, pointer, witnesses)
    fewest = _fewest(n, list(wit))

    def step(c: int) -> int:
        return min(c + 1, cap) if hi is None else c + 1

    def closes(owed: int, c: int) -> bool:
        """Whether extras can follow at count c, discharging `owed`, within min/maxProperties."""
        m, need = fewest[owed], max(0, lo - c)
        if m == float("inf") or (hi is not None and max(m, need) > hi - c):
            return False
        return need <= m or item is not None

    made: dict[tuple[int, int, int], str | None] = {}
    todo: list[tuple[int, int, int]] = []

    def tail(owed: int, s: int, c: int) -> str | None:
        """The name of rule e_owed_s_c (written later), or None when it cannot close."""
        if (owed, s, c) not in made:
            made[(owed, s, c)] = f"{base}_e{owed}_{s}_{c}" if closes(owed, c) else None
            todo.append((owed, s, c))
        return made[(owed, s, c)]

    def get(nxt: dict[tuple[int, int, int], str | None] | None, s: int, c: int, owed: int) -> str | None:
        if hi is not None and c > hi:
            return None
        return tail(owed, s, c) if nxt is None else nxt.get((s, c, owed))

    nxt: dict[tuple[int, int, int], str | None] | None = None
    reach = [0]  # per index: the witnesses some earlier listed key may have discharged
    for _, rules, _ in entries:
        reach.append(reach[-1] | reduce(or_, rules))
    for i in range(len(entries) - 1, -1, -1):
        key, rules, req = entries[i]
        cur: dict[tuple[int, int, int], str | None] = {}
        for s in (0, 1) if i else (0,):
            for c in range(min(i, cap) + 1):
                for owed in (o for o in range(full + 1) if (full ^ o) & ~reach[i] == 0):
                    w.budget.step("")
                    alts = []
                    for d, rule in rules.items():
                        after = get(nxt, 1, step(c), owed ^ d) if d & owed == d else None
                        if after is not None:
                            alts.append((f"{w.sep} " if s else "") + f"{key_literal(key)} {w.ksep} {rule} {after}")
                    if not req and (skip := get(nxt, s, c, owed)) is not None:
                        alts.append(skip)
                    cur[(s, c, owed)] = w.alts(f"{base}_{i}_{s}_{c}_{owed}", alts)
        nxt = cur
    start = get(nxt, 0, 0, full)
    while todo:
        owed, s, c = todo.pop()
        name = made[(owed, s, c)]
        if name is None:
            continue
        if owed == 0:
            plain_tail(w, name, item, s, max(0, lo - c), None if hi is None else hi - c)
            continue
        lead = f"{w.sep} " if s else ""
        alts = []
        if item is not None and (after := tail(owed, 1, step(c))) is not None:
            alts.append(f"{lead}{item} {after}")
        for d, rule in wit.items():
            if d & owed == d and (after := tail(owed ^ d, 1, step(c))) is not None:
                alts.append(f"{lead}{rule} {after}")
        w.alts(name, alts)
    return None if start is None else f"\"{{\" {start} \"}}\""
