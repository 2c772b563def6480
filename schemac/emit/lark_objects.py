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
"""
from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING, Any

from schemac.emit.json_path import key_literal
from schemac.emit.lark_merge import Unwritable, conj, key_schema
from schemac.schema import Schema, child_pointer

if TYPE_CHECKING:
    from schemac.emit.lark_writer import Writer

#: At most this many distinct-schema patterns on one object (keys are split by the subset of
#: patterns they match, 2^n - 1 classes).
MAX_PATTERNS = 4
#: Upper bound on the rules of one object's listed-key sequence.
MAX_OBJECT_STATES = 4096


def _extras(w: "Writer", node: dict[str, Any], listed: list[str], pointer: str) -> list[str]:
    """One `KEY KSEP value` alternative per class of keys beyond the listed ones."""
    from schemac.regex import canonical_string_terminal, json_string_terminal

    taken = " | ".join(key_literal(k) for k in listed)
    patterns: dict[str, Schema] = node.get("patternProperties", {})
    names = {p: w.terminal("KP", json_string_terminal(p)) for p in patterns}
    out: list[str] = []
    distinct = {w.key_of(s) for s in patterns.values()}
    if len(distinct) == 1:  # one schema for all: one class, the union of the patterns
        rule = w.value(next(iter(patterns.values())), child_pointer(pointer, "patternProperties", next(iter(patterns))))
        if rule is not None:
            body = "(" + " | ".join(names.values()) + ")" + (f" & ~({taken})" if taken else "")
            out.append(f"{w.terminal('KS', body)} {w.ksep} {rule}")
    elif patterns:
        if len(patterns) > MAX_PATTERNS:
            raise Unwritable(pointer, f"{len(patterns)} patternProperties with different schemas (at most {MAX_PATTERNS})")
        for chosen in product((True, False), repeat=len(patterns)):
            if not any(chosen):
                continue
            inside = [p for p, c in zip(patterns, chosen) if c]
            rule = w.value(conj([patterns[p] for p in inside]), child_pointer(pointer, "patternProperties", inside[0]))
            if rule is None:
                continue
            body = " & ".join([names[p] for p in inside] + [f"~{names[p]}" for p, c in zip(patterns, chosen) if not c])
            if taken:
                body += f" & ~({taken})"
            out.append(f"{w.terminal('KS', body)} {w.ksep} {rule}")
    extra = node.get("additionalProperties", True)
    rule = w.value(extra, child_pointer(pointer, "additionalProperties")) if extra is not False else None
    if rule is not None:
        excluded = [taken] if taken else []
        excluded += list(names.values())
        body = canonical_string_terminal() + (" & ~(" + " | ".join(excluded) + ")" if excluded else "")
        out.append(f"{w.terminal('KA', body)} {w.ksep} {rule}")
    return out


def write_object(w: "Writer", node: dict[str, Any], pointer: str) -> str | None:
    """The rule body for `node`'s object keywords (an object value), or None when none is valid."""
    props: dict[str, Schema] = node.get("properties", {})
    required = list(dict.fromkeys(node.get("required", [])))
    listed = list(props) + [k for k in required if k not in props]
    entries: list[tuple[str, str, bool]] = []
    for k in listed:
        here = child_pointer(pointer, "properties", k)
        rule = w.value(key_schema(node, k, pointer), here)
        if rule is None:
            if k in required:
                return None
            continue
        entries.append((k, rule, k in required))
    lo = int(node.get("minProperties", 0))
    hi = None if node.get("maxProperties") is None else int(node["maxProperties"])
    extras = _extras(w, node, listed, pointer)
    counted = lo > 0 or hi is not None
    cap = 0 if not counted else (hi if hi is not None else lo)
    states = (len(entries) + 1) * 2 * (cap + 1)
    if states > MAX_OBJECT_STATES:
        from schemac.diagnostics import reject

        raise reject("too-large", pointer, f"the object needs {states} grammar states; the limit is {MAX_OBJECT_STATES}")
    base = w.name("o")
    item = w.name("x")
    if extras:
        w.alts(item, extras)

    def tail(s: int, c: int) -> str | None:
        """What may follow the listed keys: extra keys, so the total count is in range."""
        need = max(0, lo - c)
        room = None if hi is None else hi - c
        if room is not None and room < need:
            return None
        alts = ['""'] if need == 0 else []
        if extras and room != 0:
            first = f"{w.sep} {item}" if s else item
            k = max(0, need - 1)
            if room == 1:
                more = ""
            elif room is None:
                more = (f" ({w.sep} {item}){{{k},{k}}}" if k else "") + f" ({w.sep} {item})*"
            else:
                more = f" ({w.sep} {item}){{{k},{room - 1}}}"
            alts.append(first + more)
        return w.alts(f"{base}_e{s}_{c}", alts)

    # o_i_s_c: the listed keys from index i on; s = whether a key was written, c = keys so far
    nxt: dict[tuple[int, int], str | None] = {(s, c): tail(s, c) for s in (0, 1) for c in range(cap + 1)}
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
