"""Objects whose keys may come in any order (the `key_order="any"` syntax policy).

JSON objects are unordered; the default policy still fixes one order (listed keys in schema order,
then extras), as llguidance, XGrammar and OpenAI's structured outputs do, and as answers that put
a `reasoning` key before an `answer` key rely on. Under `key_order="any"` an object with at most
`MAX_FREE_KEYS` listed keys takes its entries in every order instead: the rules are the states of
one automaton, (listed keys written so far, whether an entry was written, entries counted, witnesses
still owed), and each entry is one transition: an unwritten listed key, a plain extra, or an extra
that discharges witnesses (built as `lark_object_owed` builds them for schema order). A state closes when every
required key is written, nothing is owed and min/maxProperties hold. Only states that are reached
from the start and can still close are written, so no rule is dead. A permutation language needs
exponentially many rules in any context-free grammar (2^n states here), hence the bound: a larger
object keeps schema order (narrower, never wider than the schema).
"""
from __future__ import annotations

from collections import deque
from typing import Any

from schemac.emit.json_path import key_literal
from schemac.emit.lark.object_classes import extras, key_bounds, listed
from schemac.emit.lark.object_owed import MAX_WITNESSES, owed_entries, owed_extras
from schemac.emit.lark.rulebook import RuleBook


#: At most this many listed keys in an object written in any order (2^n states).
MAX_FREE_KEYS = 6
#: At most this many states in one object written in any order (`free_states`): each state
#: offers every unwritten key, so 512 states are about 20,000 of llguidance's grammar symbols
#: (it accepts 65,525 in one grammar).
MAX_FREE_STATES = 512

#: (keys written: a bit per listed entry, an entry was written, entries counted, witnesses owed)
State = tuple[int, int, int, int]


def within(keys: int, cap: int, witnesses: int) -> bool:
    """Whether an object of `keys` listed keys, min/maxProperties counted up to `cap` and
    `witnesses` distinct witnesses is written in any order (else in schema order)."""
    states = (1 << keys) * (cap + 1) << witnesses  # the automaton's states, but for the start
    return 0 < keys <= MAX_FREE_KEYS and witnesses <= MAX_WITNESSES and states <= MAX_FREE_STATES


def fits(node: dict[str, Any], witnesses: int) -> bool:
    """`within` for `node`'s object."""
    hi = node.get("maxProperties")
    return within(len(listed(node)), int(hi) if hi is not None else int(node.get("minProperties", 0)), witnesses)


def write_free(w: RuleBook, node: dict[str, Any], pointer: str, witnesses: list[dict[str, Any]]) -> str | None:
    """`node`'s object with its entries in any order and every one of `witnesses` discharged
    (distinct), or None when no object is valid. The caller checks `fits` first."""
    full = (1 << len(witnesses)) - 1
    lo = int(node.get("minProperties", 0))
    hi = None if node.get("maxProperties") is None else int(node["maxProperties"])
    cap = hi if hi is not None else lo
    entries = owed_entries(w, node, pointer, witnesses)
    if entries is None:
        return None
    must = sum(1 << i for i, (_, _, req) in enumerate(entries) if req)  # the bits of required entries
    texts = [{d: f"{key_literal(k)} {w.ksep} {rule}" for d, rule in rules.items()} for k, rules, _ in entries]
    classes = extras(w, node, listed(node), pointer)
    lo, hi = key_bounds(w, classes, len(entries), lo, hi)
    if hi is not None and lo > hi:
        return None
    cap = hi if hi is not None else lo
    item = w.alts(w.name("x"), [f"{t} {w.ksep} {rule}" for t, _, _, rule in classes]) if classes else None
    wit = owed_extras(w, classes, pointer, witnesses)  # discharged set -> one extra entry discharging it

    def moves(state: State) -> list[tuple[str, State]]:
        """(entry text, next state) for every entry that may follow `state`."""
        seen, _, c, owed = state
        if hi is not None and c >= hi:
            return []
        nc = c + 1 if hi is not None else min(c + 1, cap)
        out = [(text, (seen | 1 << i, 1, nc, owed ^ d)) for i, options in enumerate(texts)
               if not seen >> i & 1 for d, text in options.items() if d & owed == d]
        out += [(rule, (seen, 1, nc, owed ^ d)) for d, rule in wit.items() if d & owed == d]
        if item is not None:
            out.append((item, (seen, 1, nc, owed)))
        return out

    def closes(state: State) -> bool:
        seen, _, c, owed = state
        return seen & must == must and owed == 0 and c >= lo

    start: State = (0, 0, 0, full)
    edges: dict[State, list[tuple[str, State]]] = {}
    todo = deque([start])
    while todo:
        state = todo.popleft()
        if state in edges:
            continue
        w.budget.step("")  # one step per order state (their count is bounded, their work is not free)
        edges[state] = moves(state)
        todo.extend(t for _, t in edges[state] if t not in edges)
    live = {s for s in edges if closes(s)}
    back: dict[State, list[State]] = {}
    for s, out in edges.items():
        for _, t in out:
            back.setdefault(t, []).append(s)
    todo = deque(live)
    while todo:
        for s in back.get(todo.popleft(), ()):
            if s not in live:
                live.add(s)
                todo.append(s)
    if start not in live:
        return None
    base = w.name("f")

    def name(state: State) -> str:
        seen, s, c, owed = state
        return f"{base}_{seen}_{s}_{c}_{owed}"

    for state in edges:
        if state not in live:
            continue
        lead = f"{w.sep} " if state[1] else ""
        loop = any(t == state for _, t in edges[state])  # a plain extra once the count is full
        alts = [f"{lead}{text} {name(t)}" for text, t in edges[state] if t in live and t != state]
        if closes(state):
            alts.append('""')
        if loop:
            inner = w.alts(w.name("fr"), alts)
            alts = [f"({w.sep} {item})* {inner}"]
        w.alts(name(state), alts)
    return f"\"{{\" {name(start)} \"}}\""
