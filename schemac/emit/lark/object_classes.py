"""Key classes of one object for the Lark object writer: which keys beyond the listed ones exist,
what their values must satisfy, and the key classes of `WITNESS` markers.

Shared by the plain/one-witness writer (`lark_objects`) and the several-witness writer
(`lark_object_owed`), so neither imports the other.

Keys beyond the listed ones are split by the pattern groups they match (patterns with the same
schema and the same `EVERY` memberships form one group: a key in the group gets the same value
schema whichever of them it matches), one class per non-empty subset of groups, plus the
additional keys (no pattern). `EVERY` entries (`lark_merge.merge_objects`'s universal key classes)
bind a class iff none of its chosen groups holds one of their patterns: their keys are all
listed and their patterns all pooled, so an extra key's membership follows from its groups.
"""
from __future__ import annotations

import json
from itertools import product
from typing import Any, Callable

from schemac.emit.json_path import key_literal
from schemac.emit.lark.merge import EVERY, Unwritable, key_matches
from schemac.emit.lark.rulebook import RuleBook
from schemac.schema import Schema, all_of, child_pointer


#: At most this many key classes from pattern groups on one object (keys are split by the subset
#: of groups they match: 2^n - 1 classes for n groups, of which only those some key is in count),
#: and at most this many groups (each subset past `MAX_CLASSES` costs an llguidance probe).
MAX_CLASSES = 15
MAX_PATTERNS = 8
#: Finite key classes are counted up to this many keys (`extra_keys`); past it, unbounded.
MAX_COUNTED_KEYS = 64
#: Upper bound on the rules of one object's listed-key sequence (times the owed witness sets).
MAX_OBJECT_STATES = 4096
#: llguidance reads a Lark repetition's bounds as 32-bit integers: a key count past this cannot
#: be written (`{n,m}`) and is refused as too large instead of reaching llguidance's parser
MAX_KEY_COUNT = 2**31 - 1

#: (key terminal, value schema, pointer, value rule) of one class of keys beyond the listed ones
Extra = tuple[str, Schema, str, str]


def listed(node: dict[str, Any]) -> list[str]:
    """The listed keys in answer order: `properties` in schema order, then other required keys."""
    required = list(dict.fromkeys(node.get("required", [])))
    return list(node.get("properties", {})) + [k for k in required if k not in node.get("properties", {})]


def extras(w: RuleBook, node: dict[str, Any], taken_keys: list[str], pointer: str) -> list[Extra]:
    """One entry per class of keys beyond the listed ones whose values some value satisfies."""
    from schemac.regex import canonical_string_terminal, json_string_terminal

    patterns: dict[str, Schema] = node.get("patternProperties", {})
    every: list[dict[str, Any]] = node.get(EVERY, [])
    for e in every:  # `merge_objects` keeps these true; the membership rule below needs them
        if not set(e["keys"]) <= set(taken_keys) or not set(e["patterns"]) <= set(patterns):
            raise Unwritable(pointer, "internal: a universal key class beyond the object's keys")
    names = {p: w.terminal("KP", json_string_terminal(p)) for p in patterns}
    spelled = {p: _literal(p) for p in patterns}
    literals: dict[str, list[str]] = {}  # unlisted keys of `^name$` patterns -> those patterns
    for p, key in spelled.items():
        if key is not None and key not in taken_keys:
            literals.setdefault(key, []).append(p)
    taken = " | ".join(key_literal(k) for k in [*taken_keys, *literals])
    groups: dict[tuple[str, frozenset[int]], list[str]] = {}
    for p, sub in patterns.items():
        if spelled[p] is not None:
            continue  # its one key is listed, or a class of its own (below)
        held = frozenset(i for i, e in enumerate(every) if p in e["patterns"])
        # equal schemas share a class whatever their member order (the first one's order is written)
        groups.setdefault((json.dumps(sub, sort_keys=True, default=str), held), []).append(p)
    if len(groups) > MAX_PATTERNS:
        raise Unwritable(pointer, f"{len(groups)} patternProperties with different schemas (at most {MAX_PATTERNS})")
    signatures = list(groups)
    terms = ["(" + " | ".join(names[p] for p in groups[sig]) + ")" for sig in signatures]
    # one group: one class, the union of its patterns; several: one class per subset some key is in
    choices = [c for c in product((True, False), repeat=len(signatures)) if any(c)] if len(signatures) > 1 else [(True,)] * len(signatures)
    if len(choices) > MAX_CLASSES:
        bodies = {terms[i]: [json_string_terminal(p) for p in groups[sig]] for i, sig in enumerate(signatures)}
        kept = []
        for c in choices:  # each probe is a native matcher, paid for by its size; stop past the bound
            body = _class_body(terms, c)
            w.budget.native(pointer, sum(len(p) for ps in bodies.values() for p in ps) + len(body))
            if _some_key(bodies, body):
                kept.append(c)
                if len(kept) > MAX_CLASSES:
                    break
        choices = kept
        if len(choices) > MAX_CLASSES:
            raise Unwritable(pointer, f"{len(signatures)} patternProperties with different schemas whose keys fall in "
                                      f"more than {MAX_CLASSES} classes")
    out: list[Extra] = []

    def add(prefix: str, body: str, schema: Schema, here: str) -> None:
        """One class, unless no key is in it (`RuleBook.admits`: an empty key terminal written
        into a rule is a dead end) or no value satisfies its schema."""
        term = w.terminal(prefix, body)
        if w.admits(term) and (rule := w.value(schema, here)) is not None:
            out.append((term, schema, here, rule))

    for key in literals:  # a `^name$` pattern's key: the conjunction of every pattern that matches it
        matching = [p for p in patterns if p in literals[key] or key_matches(p, key, pointer)]
        bound = [e["value"] for e in every if not set(e["patterns"]) & set(matching)]
        add("KS", key_literal(key), all_of([patterns[p] for p in matching] + bound, flatten=True),
            child_pointer(pointer, "patternProperties", literals[key][0]))

    for chosen in choices:
        inside = [i for i, c in enumerate(chosen) if c]
        body = _class_body(terms, chosen)
        if taken:
            body += f" & ~({taken})"
        held = frozenset().union(*[signatures[i][1] for i in inside])
        first = groups[signatures[inside[0]]][0]
        schema = all_of([patterns[groups[signatures[i]][0]] for i in inside] + [e["value"] for j, e in enumerate(every) if j not in held], flatten=True)
        add("KS", body, schema, child_pointer(pointer, "patternProperties", first))
    extra = node.get("additionalProperties", True)
    if extra is not False:
        excluded = [taken] if taken else []
        excluded += list(names.values())
        body = canonical_string_terminal() + (" & ~(" + " | ".join(excluded) + ")" if excluded else "")
        if not names:  # every canonical key less finitely many listed ones: infinitely many are left,
            w.admitted[body] = True  # so the class is not empty (no llguidance probe, `RuleBook.admits`)
        add("KA", body, all_of([extra] + [e["value"] for e in every], flatten=True), child_pointer(pointer, "additionalProperties"))
    return out


def extra_keys(w: RuleBook, classes: list[Extra]) -> int | None:
    """How many distinct keys the extras `classes` hold together, or None when unbounded or more
    than `MAX_COUNTED_KEYS`. A key terminal matches one canonical spelling per key and the
    classes are disjoint, so counting their texts counts keys. The grammar counts entries, not
    distinct keys: without this bound, `minProperties` past the keys that exist compiles to a
    grammar that leads the model into duplicate keys, which no valid answer holds."""
    total = 0
    for term, _, _, _ in classes:
        n = w.strings(term, MAX_COUNTED_KEYS - total)
        if n is None:
            return None
        total += n
    return total


def key_bounds(w: RuleBook, classes: list[Extra], listed_keys: int, lo: int, hi: int | None) -> tuple[int, int | None]:
    """(minProperties, maxProperties) of an object with `listed_keys` writable listed keys and
    extras `classes`, maxProperties lowered to the keys that exist where the count can reach
    past the listed keys and the extras are finite (`extra_keys`); lo > hi then means no object
    is valid. An unbounded maximum stays unbounded while the minimum fits (the rule states grow
    with the bound)."""
    if lo <= listed_keys and (hi is None or hi <= listed_keys):
        return lo, hi
    n = extra_keys(w, classes)
    if n is None:
        return lo, hi
    top = listed_keys + n
    if hi is None:
        return lo, (top if lo > top else None)
    return lo, min(hi, top)


def _class_body(terms: list[str], chosen: tuple[bool, ...]) -> str:
    """The terminal expression of the keys in exactly the `chosen` pattern groups."""
    return " & ".join([t for t, c in zip(terms, chosen) if c] + [f"~{t}" for t, c in zip(terms, chosen) if not c])


def _some_key(bodies: dict[str, list[str]], body: str) -> bool:
    """Whether some key may be in the class `body` (group terms `bodies` spell out), by
    `lark_probe.terminal_admits`: a class taken for empty is left unwritten, which refuses its
    keys and admits nothing more."""
    from schemac.emit.lark.probe import terminal_admits

    defs = []
    for i, (term, parts) in enumerate(bodies.items()):
        name = f"G{i}"
        defs.append(f"{name}: " + " | ".join(f"({p})" for p in parts))
        body = body.replace(term, f"({name})")
    return terminal_admits(body, defs)


def _literal(pattern: str) -> str | None:
    """The one key a `^name$` pattern matches (`regex.literal_of`): such a key is a class of its
    own, so these patterns (common in generated schemas) never multiply the pattern groups."""
    from schemac.regex import PatternError, literal_of

    try:
        return literal_of(pattern)
    except PatternError:
        return None


def in_class(witness: dict[str, Any], pointer: str) -> Callable[[str], bool]:
    """Whether a key is in `witness`'s key class (by the validator's ECMA-262 semantics)."""
    if "pattern" in witness:
        return lambda key: key_matches(witness["pattern"], key, pointer)
    cls = witness["other"]
    return lambda key: key not in cls["keys"] and not any(key_matches(p, key, pointer) for p in cls["patterns"])


def class_terminal(w: RuleBook, witness: dict[str, Any], pointer: str) -> str:
    """A terminal of the canonical spellings of the keys in `witness`'s key class."""
    from schemac.regex import PatternError, canonical_string_terminal, json_string_terminal

    try:
        if "pattern" in witness:
            return w.terminal("KP", json_string_terminal(witness["pattern"]))
        cls = witness["other"]
        excluded = [key_literal(k) for k in cls["keys"]] + [w.terminal("KP", json_string_terminal(p)) for p in cls["patterns"]]
    except PatternError as exc:
        raise Unwritable(pointer, f"a key pattern of a witness ({exc})") from exc
    body = canonical_string_terminal() + (" & ~(" + " | ".join(excluded) + ")" if excluded else "")
    if not cls["patterns"]:  # every canonical key less finitely many: not empty (as for `extras`' additional keys)
        w.admitted[body] = True
    return w.terminal("KW", body)


def witness_entry(w: RuleBook, classes: list[Extra], keys: str, values: list[Schema]) -> str | None:
    """A rule for one extra entry that discharges witnesses: per extras class, a key in that class
    and in `keys` (a terminal expression of the witness classes), its value in the class's schema
    and every one of `values`; None when no such entry exists. A class whose keys miss the
    witness classes (an empty intersection, `RuleBook.admits`) gives no alternative: written, it
    would let the model open an object that can never close (`Handwritten---pnmp3`)."""
    if not w.admits_body(keys):  # the witness classes alone meet nowhere: one probe, not one per class
        return None
    alts = [f"{key} {w.ksep} {rule}" for term, schema, here, _ in classes
            if w.admits(key := w.terminal("KW", f"{term} & {keys}"))
            and (rule := w.value(all_of([schema, *values], flatten=True), here)) is not None]
    return w.alts(w.name("w"), alts)


def plain_tail(w: RuleBook, name: str, item: str | None, s: int, need: int, room: int | None) -> str | None:
    """Rule `name`: `need` to `room` (None: unbounded) entries `item` (None: there are none)
    separated by SEP and led by one when `s`, as one counted repetition (an object's plain extra
    entries, an array's items); None when no such run exists."""
    if room is not None and room < need:
        return None
    alts = ['""'] if need == 0 else []
    if item is not None and room != 0:
        first = f"{w.sep} {item}" if s else item
        k = max(0, need - 1)
        if room == 1:
            more = ""
        elif room is None:
            more = (f" ({w.sep} {item}){{{k},{k}}}" if k else "") + f" ({w.sep} {item})*"
        else:
            more = f" ({w.sep} {item}){{{k},{room - 1}}}"
        alts.append(first + more)
    return w.alts(name, alts)


def count_too_large(pointer: str, count: int) -> Exception:
    """The rejection for a key count past `MAX_KEY_COUNT`."""
    from schemac.diagnostics import reject

    return reject("too-large", pointer, f"counting {count:,} keys needs a repetition past {MAX_KEY_COUNT:,}, "
                  "the largest llguidance's grammar reads")


def too_large(pointer: str, states: int) -> Exception:
    """The rejection for an object past `MAX_OBJECT_STATES`."""
    from schemac.diagnostics import reject

    return reject("too-large", pointer, f"the object needs {states} grammar states; the limit is {MAX_OBJECT_STATES}")
