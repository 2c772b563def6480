"""allOf for the Lark writer: parts (and `$ref`s beside other keywords) merged into one node,
only where the merge is exact; anything else is rejected, never approximated.

llguidance's JSON compiler merges allOf parts itself; a node the Lark writer writes must be merged
here instead, with JSON Schema's meaning: counts and numeric bounds take the tighter value, types
meet, `required` unions, string keywords of several parts stay separate conjuncts (the scalar
embedding keeps them as an allOf), and object keyword groups merge key by key (`merge_objects`).
A second `anyOf` waits in `allOf` and is distributed after the first.
"""
from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, Protocol

from schemac.json_key import json_key, member_keys
from schemac.lower.support.marks import MARK, NOT_MULTIPLE, NOT_PATTERN, WITNESS
from schemac.schema import Schema, all_of, ref_name

if TYPE_CHECKING:
    from schemac.budget import Budget

#: The writer's own key: the contains constraints of one array, from any number of allOf parts.
CL = " contains"
#: The writer's own key: string keywords of further allOf parts (each a dict of them).
STRINGS = " strings"
#: The writer's own key on a merged object: universal key classes, each `{"keys": [...],
#: "patterns": [...], "value": S}`: every entry whose key is in none of `keys` and matches none of
#: `patterns` has a value in S. It is an allOf part's additionalProperties kept apart where the
#: other parts' patterns differ (`merge_objects`); its keys stay listed and its patterns pooled.
EVERY = " every"
ALL_TYPES = ("null", "boolean", "object", "array", "string", "number")
OBJECT_KEYS = frozenset({"properties", "additionalProperties", "patternProperties", "required",
                         "minProperties", "maxProperties", WITNESS, EVERY})
STRING_KEYS = frozenset({"minLength", "maxLength", "pattern", "format", NOT_PATTERN})
NUMBER_KEYS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", NOT_MULTIPLE})
#: Keyword groups whose meaning depends on each other within one schema object; allOf parts
#: merge into one object only when no such group is split across parts.
_GROUPS = (frozenset({"uniqueItems", MARK}),)
_ITEMS = frozenset({"items", "prefixItems"})
_OBJECT_GROUP = frozenset({"properties", "patternProperties", "additionalProperties"})
#: What `merge_objects` merges: the object group and the universal classes of earlier merges.
_OBJECT_MERGE = _OBJECT_GROUP | {EVERY}
#: Counts and bounds two parts may both set: the tighter one wins.
_TIGHTER: dict[str, Callable[[Any, Any], Any]] = {
    "minItems": max, "maxItems": min, "minLength": max, "maxLength": min, "minProperties": max,
    "maxProperties": min, "minimum": max, "exclusiveMinimum": max, "maximum": min, "exclusiveMaximum": min}


class Unwritable(Exception):
    """A node the Lark writer cannot write exactly; `lark_grammar` turns it into a rejection."""

    def __init__(self, pointer: str, what: str) -> None:
        super().__init__(what)
        self.pointer = pointer
        self.what = what


def lift(node: dict[str, Any]) -> dict[str, Any]:
    """`node` with its contains constraint (if any) moved into the writer's `CL` list."""
    if "contains" not in node:
        return node
    out = {k: v for k, v in node.items() if k not in ("contains", "minContains", "maxContains", MARK)}
    mark = node.get(MARK, {})
    out[CL] = [{"schema": node["contains"], "lo": int(node.get("minContains", 1)),
                "hi": None if node.get("maxContains") is None else int(node["maxContains"]),
                "not": mark.get("not-contains")}]
    if "domains" in mark:
        out[MARK] = {"domains": mark["domains"]}
    return out


def meet(a: list[str], b: list[str]) -> list[str]:
    """The JSON types in both `a` and `b` ("integer" is part of "number")."""
    def split(ts: list[str]) -> set[str]:
        return set().union(*[{"integer", "fraction"} if t == "number" else {t} for t in ts])

    both = split(a) & split(b)
    out = [t for t in ("null", "boolean", "object", "array", "string") if t in both]
    if {"integer", "fraction"} <= both:
        out.append("number")
    elif "integer" in both:
        out.append("integer")
    return out


def types_of(node: dict[str, Any]) -> list[str]:
    t = node.get("type")
    if t is None:
        return list(ALL_TYPES)
    return [t] if isinstance(t, str) else list(t)


def key_matches(pattern: str, key: str, pointer: str) -> bool:
    """Whether key pattern `pattern` matches `key` (the validator's ECMA-262 semantics); a
    pattern RE2 cannot run makes the object unwritable."""
    from schemac.regex import PatternError, ecma_search

    try:
        return ecma_search(pattern, key)
    except PatternError as exc:
        raise Unwritable(pointer, f"the key pattern {pattern!r} ({exc})") from exc


def key_schema(node: dict[str, Any], key: str, pointer: str) -> Schema:
    """What `node`'s object keywords (its `EVERY` classes included) require of property `key`'s value."""

    def search(pattern: str) -> bool:
        return key_matches(pattern, key, pointer)

    found: list[Schema] = []
    props = node.get("properties", {})
    if key in props:
        found.append(props[key])
    found += [sub for pattern, sub in node.get("patternProperties", {}).items() if search(pattern)]
    if not found and key not in props:
        found.append(node.get("additionalProperties", True))
    found += [e["value"] for e in node.get(EVERY, ()) if key not in e["keys"] and not any(map(search, e["patterns"]))]
    return all_of(found, flatten=True)


def merge_objects(a: dict[str, Any], b: dict[str, Any], pointer: str) -> dict[str, Any]:
    """The object keywords of `a` and `b` as one node, key by key.

    A listed key gets the conjunction of what each side requires of it. Patterns are pooled
    (the writer conjoins every pattern a key matches); that is exact for a side's
    additionalProperties only where the side already has every pooled pattern, since a key
    matching only the other side's pattern falls under this side's additionalProperties. Where
    it has not, that additionalProperties becomes an `EVERY` class: its keys (the side's
    properties) and patterns (the side's own) keep the keys it binds exactly.
    """
    pa, pb = a.get("patternProperties", {}), b.get("patternProperties", {})
    every = list(a.get(EVERY, []))
    every += [e for e in b.get(EVERY, []) if repr(e) not in {repr(x) for x in every}]
    extras: list[Schema] = []
    for mine, own, theirs in ((a, pa, pb), (b, pb, pa)):
        extra = mine.get("additionalProperties", True)
        if extra is not True and not set(theirs) <= set(own):
            cls = {"keys": list(mine.get("properties", {})), "patterns": list(own), "value": extra}
            if repr(cls) not in {repr(x) for x in every}:
                every.append(cls)
        else:
            extras.append(extra)
    props: dict[str, Schema] = {}
    for key in interleave(list(a.get("properties", {})), list(b.get("properties", {}))):
        props[key] = all_of([_listed_part(a, key, pointer), _listed_part(b, key, pointer)], flatten=True)
    out: dict[str, Any] = {}
    if props:
        out["properties"] = props
    patterns = {p: all_of([pa[p], pb[p]], flatten=True) if p in pa and p in pb else pa.get(p, pb.get(p)) for p in [*pa, *pb]}
    if patterns:
        out["patternProperties"] = patterns
    extra = all_of(extras, flatten=True)
    if extra is not True:
        out["additionalProperties"] = extra
    if every:
        out[EVERY] = every
    return out


def merge_items(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The item keywords of `a` and `b` as one node, position by position: what each side
    requires at position i (its prefixItems entry, else its items) conjoined."""
    pa, pb = list(a.get("prefixItems", [])), list(b.get("prefixItems", []))
    ra, rb = a.get("items", True), b.get("items", True)
    prefix = [all_of([pa[i] if i < len(pa) else ra, pb[i] if i < len(pb) else rb], flatten=True) for i in range(max(len(pa), len(pb)))]
    out: dict[str, Any] = {"prefixItems": prefix} if prefix else {}
    rest = all_of([ra, rb], flatten=True)
    if rest is not True:
        out["items"] = rest
    return out


def _listed_part(side: dict[str, Any], key: str, pointer: str) -> Schema:
    """What `side` requires of listed key `key` beyond its pooled patterns (the writer adds
    those): its own entry, else its additionalProperties when none of its patterns match."""
    if key in side.get("properties", {}):
        return side["properties"][key]
    if side.get("additionalProperties", True) is True:
        return True
    from schemac.regex import PatternError, ecma_search

    for pattern in side.get("patternProperties", {}):
        try:
            if ecma_search(pattern, key):
                return True
        except PatternError as exc:
            raise Unwritable(pointer, f"the key pattern {pattern!r} ({exc})") from exc
    return side["additionalProperties"]


def _multiple(a: Any, b: Any) -> Any:
    """The least common multiple of two multipleOf values (a multiple of both iff of it), exact."""
    from fractions import Fraction
    from math import lcm

    from schemac.numbers.exact import exact

    fa, fb = Fraction(exact(a)), Fraction(exact(b))
    den = lcm(fa.denominator, fb.denominator)
    out = Fraction(lcm(int(fa * den), int(fb * den)), den)
    if out.denominator == 1:
        return out.numerator
    digits = 0
    while 10 ** digits % out.denominator:  # a decimal's denominator divides some power of ten
        digits += 1
    return Decimal(out.numerator * 10 ** digits // out.denominator).scaleb(-digits)


#: The writer's own key beside a distributed `oneOf`: its branches, which llguidance must prove
#: disjoint before they may be written as alternatives.
ONE_OF = " oneOf"
_APPLICATORS = ("allOf", "$ref", "anyOf", "oneOf")


def interleave(first: list[str], second: list[str]) -> list[str]:
    """Every key of `first` and `second`, in `first`'s order, each key only `second` lists placed
    as late as `second` lets it: before the first key of `first` it precedes there, else at the
    end, and never before a placed key it follows there unless `first` forces it. Where the two
    orders agree, the answer follows both; keys nothing orders come after `first`'s.

    Linear: a new key goes to a gap of `first` (gap j is just before `first[j]`), the latest of
    the gap after its last placed predecessor and the gap before its first successor in `first`."""
    at = {k: i for i, k in enumerate(first)}
    before_next = [len(first)] * (len(second) + 1)  # gap before the first later key of `first`
    for i in reversed(range(len(second))):
        before_next[i] = min(before_next[i + 1], at.get(second[i], len(first)))
    gaps: list[list[str]] = [[] for _ in range(len(first) + 1)]
    low = 0  # the gap after the last placed key seen so far in `second`
    for i, key in enumerate(second):
        if key in at:
            low = max(low, at[key] + 1)
            continue
        low = max(low, before_next[i + 1])
        gaps[low].append(key)
    out: list[str] = []
    for j, gap in enumerate(gaps):
        out += gap
        if j < len(first):
            out.append(first[j])
    return out


def conjuncts(node: Schema, defs: dict[str, Any], pointer: str, depth: int, out: list[Schema]) -> None:
    """`node` as its list of conjuncts, in written order: its own keywords as one conjunct, and each
    applicator where it stands (allOf parts and `$ref` targets flattened, anyOf/oneOf kept whole).
    Their `properties` maps merge in this order (`interleave`) into the answer's property order."""
    if depth > 32:
        raise Unwritable(pointer, "a deeply nested allOf/$ref chain")
    if not isinstance(node, dict):
        if node is False:
            out.append(False)
        return
    # A node's own keywords mean one thing together (`properties` with `additionalProperties`,
    # `contains` with `minContains`, `uniqueItems` with its marker...): they form one conjunct,
    # never split by an applicator written between them. It stands where `properties` does (else
    # the first object keyword, else the first own keyword), which sets the answer's property order.
    own = {k: v for k, v in node.items() if k not in _APPLICATORS}
    group = [k for k in own if k in _OBJECT_GROUP]
    anchor = "properties" if "properties" in own else group[0] if group else next(iter(own), None)
    for k, v in node.items():
        if k == anchor:
            out.append(own)
        elif k == "allOf":
            for part in v:
                conjuncts(part, defs, pointer, depth + 1, out)
        elif k == "$ref":
            conjuncts(defs[ref_name({"$ref": v})], defs, pointer, depth + 1, out)  # type: ignore[index]
        elif k in _APPLICATORS:
            out.append({k: v})


class DeadScreen(Protocol):
    """What `merged` asks of the writer's dead-branch screen (`prune.Screen`, which builds on
    this module's merging)."""

    budget: Budget | None

    def dead(self, parts: list[Schema], depth: int = 0) -> bool: ...


def merged(node: dict[str, Any], defs: dict[str, Any], pointer: str, screen: DeadScreen) -> dict[str, Any]:
    """`node` as one node the writer reads: its conjuncts merged where exact, or, at its first
    anyOf/oneOf, `{"anyOf": [...]}` with every other conjunct distributed into each branch (in
    place: the branch's keys take their written turn in `interleave`)."""
    atoms: list[Schema] = []
    conjuncts(node, defs, pointer, 0, atoms)
    if False in atoms:
        return {"type": []}
    for j, atom in enumerate(atoms):
        assert isinstance(atom, dict)
        kind = "anyOf" if "anyOf" in atom else "oneOf" if "oneOf" in atom else None
        if kind is not None:
            # a branch the other conjuncts contradict is left out before it multiplies (exact: it
            # accepts nothing here; a oneOf still counts it, through ONE_OF, for disjointness)
            parts = [atoms[:j] + [b] + atoms[j + 1:] for b in atom[kind]]
            alts = [{"allOf": p} for p in parts if not screen.dead(p)]
            if not alts:
                return {"type": []}
            return {"anyOf": alts, **({ONE_OF: atom[kind]} if kind == "oneOf" else {})}
    out: dict[str, Any] = {}
    for part in atoms:
        assert isinstance(part, dict)
        if out and screen.budget is not None:  # merging objects interleaves their listed keys
            screen.budget.step("", 1 + (len(out.get("properties", ())) + len(part.get("properties", ()))) // 4)
        out = _merge_two(out, lift(part), pointer) if out else lift(part)
    return out


def number_keywords(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The numeric keywords of the conjunction `parts`, merged as `merged` merges them (tighter
    bounds, combined steps, pooled negated steps)."""
    out: dict[str, Any] = {}
    for part in parts:
        out = _merge_two(out, {k: v for k, v in part.items() if k in NUMBER_KEYS}, "")
    return out


def _merge_two(out: dict[str, Any], part: dict[str, Any], pointer: str) -> dict[str, Any]:
    """Two lifted conjuncts as one node, where exact."""
    out = dict(out)
    if _ITEMS & out.keys() and _ITEMS & part.keys():
        items = merge_items(out, part)
        out = {k: v for k, v in out.items() if k not in _ITEMS}
        part = {**{k: v for k, v in part.items() if k not in _ITEMS}, **items}
    for group in _GROUPS:
        if group & out.keys() and group & part.keys():
            raise Unwritable(pointer, "allOf parts constraining the same array keyword group")
    if _OBJECT_MERGE & out.keys() and _OBJECT_MERGE & part.keys():
        objects = merge_objects(out, part, pointer)
        out = {k: v for k, v in out.items() if k not in _OBJECT_MERGE}
        part = {**{k: v for k, v in part.items() if k not in _OBJECT_MERGE}, **objects}
    for k, v in part.items():
        if k not in out:
            out[k] = v
        elif k == CL:
            out[CL] = out[CL] + v
        elif k in (STRINGS, NOT_MULTIPLE, NOT_PATTERN):  # lists of conjuncts
            out[k] = list(out[k]) + [x for x in v if x not in out[k]]
        elif k == WITNESS:  # a list of conjuncts, kept apart by repr (== merges `true` with `1`)
            seen = {repr(x) for x in out[k]}
            out[k] = list(out[k]) + [x for x in v if repr(x) not in seen]
        elif k in _TIGHTER:
            out[k] = _TIGHTER[k](out[k], v)
        elif k == "type":
            out["type"] = meet(types_of(out), types_of(part))
        elif k == "required":
            out["required"] = list(dict.fromkeys(list(out["required"]) + list(v)))
        elif k == "multipleOf":
            out[k] = _multiple(out[k], v)
        elif k in ("pattern", "format"):
            if out[k] != v:
                out[STRINGS] = out.get(STRINGS, []) + [{k: v}]
        elif k == "const" and json_key(out[k]) != json_key(v):
            out["type"] = []  # two different values: nothing meets both
        elif k == "enum":
            keep = member_keys(v)
            out[k] = [x for x in out[k] if json_key(x) in keep]  # JSON equality: 1 and 1.0, never true
        elif k != "const" and out[k] != v:
            raise Unwritable(pointer, f"allOf parts that both use `{k}`")
    return out
