"""Objects in Lark with exact key terminals: no escaped spelling can bypass a key constraint.

llguidance's JSON compiler matches listed keys on their raw text but lets additional keys use any
`\\u` escape, so `{"\\u0062": 1}` slips past `properties: {"b": ...}`. Here every key is one
canonical spelling (`json.dumps(key, ensure_ascii=False)`, the syntax policy): a listed key is
that literal; a pattern key a terminal of the canonical spellings of matching strings (minus the
listed keys); an additional key the canonical string terminal minus listed and pattern keys. As
each string has exactly one canonical spelling, the exclusions are exact.

Order and counts follow llguidance's own layout (so answers read the same): listed properties in
schema order (then required keys not in `properties`), then any number of pattern/additional
keys. min/maxProperties are counted exactly: listed keys present so far are tracked in the
rule names, and the extra keys are bounded by what remains.

A `WITNESS` marker (some entry of a key class holds a value in V) is written as alternatives:
the witness is one of the listed keys in the class (that key required, its value also in V), or
it is one of the extras, `(x SEP)* w (SEP x)*`, where w is an extra entry whose key is in both its
extras class and the witness class and whose value satisfies both schemas; the counts split by
the number of plain extras before w, so min/maxProperties stay exact. Several witnesses on one
object are tracked as the set still owed (`lark_object_owed`).
"""
from __future__ import annotations

from typing import Any

from schemac.emit.json_path import key_literal
from schemac.emit.lark.merge import key_schema
from schemac.emit.lark.object_classes import (MAX_KEY_COUNT, MAX_OBJECT_STATES, class_terminal, count_too_large, extras, in_class, key_bounds, listed,
                                              plain_tail, too_large, witness_entry)
from schemac.emit.lark.object_free import fits, write_free
from schemac.emit.lark.object_owed import write_owed
from schemac.emit.lark.rulebook import RuleBook
from schemac.lower.support.marks import WITNESS
from schemac.schema import Schema, all_of, child_pointer



def write_object(w: RuleBook, node: dict[str, Any], pointer: str) -> str | None:
    """The rule body for `node`'s object keywords (an object value), or None when none is valid."""
    seen: dict[str, dict[str, Any]] = {}
    for witness in node.get(WITNESS, ()):
        seen.setdefault(repr(witness), witness)
    if w.key_order == "any" and fits(node, len(seen)):
        return write_free(w, node, pointer, list(seen.values()))
    if not seen:
        return _write(w, node, pointer, None, None, 1)
    if len(seen) > 1:
        return write_owed(w, node, pointer, list(seen.values()))
    witness = next(iter(seen.values()))
    inside = in_class(witness, pointer)
    at = [k for k in listed(node) if inside(k)]
    copies = len(at) + 1
    alts = [_write(w, node, pointer, None, (k, witness["value"]), copies) for k in at]
    alts.append(_write(w, node, pointer, witness, None, copies))
    found = [a for a in alts if a is not None]
    return " | ".join(found) if found else None


def _write(w: RuleBook, node: dict[str, Any], pointer: str, witness: dict[str, Any] | None,
           at: tuple[str, Schema] | None, copies: int) -> str | None:
    """`node`'s object: with `at` = (k, V), listed key k present with its value also in V; with
    `witness`, some extra entry is in its key class with its value in its value schema;
    `copies` is how many such alternatives the object is written as (for the state bound)."""
    required = set(node.get("required", [])) | ({at[0]} if at else set())
    keys = listed(node)
    entries: list[tuple[str, str, bool]] = []
    for k in keys:
        here = child_pointer(pointer, "properties", k)
        schema = key_schema(node, k, pointer)
        rule = w.value(all_of([schema, at[1]], flatten=True) if at and k == at[0] else schema, here)
        if rule is None:
            if k in required:
                return None
            continue
        entries.append((k, rule, k in required))
    classes = extras(w, node, keys, pointer)
    lo, hi = key_bounds(w, classes, len(entries), int(node.get("minProperties", 0)),
                        None if node.get("maxProperties") is None else int(node["maxProperties"]))
    if hi is not None and lo > hi:
        return None
    if max(lo, hi or 0) > MAX_KEY_COUNT:
        raise count_too_large(pointer, max(lo, hi or 0))
    counted = lo > 0 or hi is not None
    cap = 0 if not counted else (hi if hi is not None else lo)
    # after the listed keys, c of them were written (counted up to cap), none where s = 0: only
    # those tails are reachable, so a count-only object has one (not 2 (cap + 1) of them)
    seen = min(len(entries), cap)
    states = (len(entries) + 1) * 2 * (seen + 1) * copies * (cap + 1 if witness else 1)
    if states > MAX_OBJECT_STATES:
        raise too_large(pointer, states)
    base = w.name("o")
    item = w.name("x")
    if classes:
        w.alts(item, [f"{t} {w.ksep} {rule}" for t, _, _, rule in classes])
    wit = None if witness is None or not classes else witness_entry(
        w, classes, class_terminal(w, witness, pointer), [witness["value"]])

    def tail(s: int, c: int) -> str | None:
        """What may follow the listed keys: extra keys, so the total count is in range."""
        need = max(0, lo - c)
        room = None if hi is None else hi - c
        if witness is not None:
            return None if wit is None else w.alts(f"{base}_e{s}_{c}", _witnessed(w, item, wit, s, need, room))
        return plain_tail(w, f"{base}_e{s}_{c}", item if classes else None, s, need, room)

    # o_i_s_c: the listed keys from index i on; s = whether a key was written, c = keys so far
    nxt: dict[tuple[int, int], str | None] = {(s, c): tail(s, c) for s, c in [(0, 0), *((1, c) for c in range(seen + 1))]}
    for i in range(len(entries) - 1, -1, -1):
        key, rule, req = entries[i]
        cur: dict[tuple[int, int], str | None] = {}
        for s in (0, 1) if i else (0,):  # only states some prefix of the keys reaches
            for c in range(min(i, cap) + 1):
                alts = []
                after = nxt.get((1, min(c + 1, cap) if hi is None else c + 1))
                if after is not None:
                    alts.append((f"{w.sep} " if s else "") + f"{key_literal(key)} {w.ksep} {rule} {after}")
                if not req and nxt.get((s, c)) is not None:
                    alts.append(str(nxt[(s, c)]))
                cur[(s, c)] = w.alts(f"{base}_{i}_{s}_{c}", alts)
        nxt = cur
    start = nxt.get((0, 0))
    return None if start is None else f"\"{{\" {start} \"}}\""


def _witnessed(w: RuleBook, item: str, wit: str, s: int, need: int, room: int | None) -> list[str]:
    """Extra entries, at least one of them `wit`, `need` to `room` of them in all (None: no
    upper bound), led by a separator when `s`; split by the number i of entries before `wit`."""
    if room is not None and room < max(need, 1):
        return []
    lead = f"{w.sep} " if s else ""
    k = max(0, need - 1)  # entries needed besides the witness

    def before(i: int) -> str:
        return f"({item} {w.sep}){{{i},{i}}} " if i else ""

    def after(a: int, b: int | None) -> str:
        if b is None:
            return (f" ({w.sep} {item}){{{a},{a}}}" if a else "") + f" ({w.sep} {item})*"
        return f" ({w.sep} {item}){{{a},{b}}}" if b else ""

    if room is None:
        alts = [lead + before(i) + wit + after(k - i, None) for i in range(k)]
        return alts + [lead + before(k) + f"({item} {w.sep})* " + wit + after(0, None)]
    return [lead + before(i) + wit + after(max(0, k - i), room - 1 - i) for i in range(room)]
