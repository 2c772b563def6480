"""Static facts about lowered schemas: JSON value equality, type sets, finite domains, disjointness.

Negation, conditionals and oneOf need proofs ("these branches never accept the same value",
"this schema only admits integers"). Every function here answers conservatively: a `None` or
`False` means "not proven", never "proven false", so callers stay exact by rejecting.
"""
from __future__ import annotations

import math
from decimal import Decimal
from typing import Any, Iterable

from schemac.json_key import json_key
from schemac.lower.support.context import LowerContext
from schemac.numbers.exact import exact, is_integral
from schemac.schema import TYPES, Schema, ref_name

#: Base JSON types (integer is a subset of number and appears only in `Types.integer_only`).
BASE_TYPES: frozenset[str] = frozenset(TYPES)
def base_type(value: Any) -> str:
    """The JSON type of a Python JSON value ('number' for ints and floats; bool is boolean)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float, Decimal)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not a JSON value: {value!r}")


def is_integer(value: Any) -> bool:
    """JSON Schema's integer: any number with zero fractional part (1.0 is an integer)."""
    return base_type(value) == "number" and is_integral(value)


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values as `const`/`enum` define it: 1 == 1.0, but true != 1."""
    ta, tb = base_type(a), base_type(b)
    if ta != tb:
        return False
    if ta == "array":
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if ta == "object":
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if ta == "number":  # as the decimals they spell: 1e23 == 10**23, though not as a double
        return exact(a) == exact(b)
    return bool(a == b)


def unique_values(values: Iterable[Any]) -> list[Any]:
    """`values` without JSON-equal repeats, first occurrence kept (by `json_key`: linear, where
    pairwise `json_equal` was quadratic in the size of an enum)."""
    return list({json_key(v): v for v in reversed(list(values))}.values())[::-1]


def declared_types(node: dict[str, Any]) -> tuple[frozenset[str], bool] | None:
    """(base types, integer_only) of a node's own `type` keyword; None when it has none.

    integer_only means the number type is admitted only through "integer".
    """
    t = node.get("type")
    if t is None:
        return None
    names = {t} if isinstance(t, str) else set(t)
    base = frozenset(("number" if n == "integer" else n) for n in names) & BASE_TYPES
    return base, ("integer" in names and "number" not in names)


def finite_values(node: Schema) -> list[Any] | None:
    """The node's own `const`/`enum` value set (intersected when both appear); None if unbounded."""
    if not isinstance(node, dict):
        return None if node is True else []
    vals: list[Any] | None = None
    if "enum" in node and isinstance(node["enum"], list):
        vals = unique_values(node["enum"])
    if "const" in node:
        c = node["const"]
        vals = [c] if vals is None else [v for v in vals if json_equal(v, c)]
    return vals


def types_of(
    node: Schema, ctx: LowerContext | None, depth: int = 0, _refs: dict[str, frozenset[str]] | None = None
) -> frozenset[str]:
    """An over-approximation of the base types `node` admits (all types when unknown)."""
    if node is False:
        return frozenset()
    if not isinstance(node, dict) or depth > 32:
        return BASE_TYPES
    refs = {} if _refs is None else _refs  # per call: a definition reached twice is read once
    out = BASE_TYPES
    declared = declared_types(node)
    if declared is not None:
        out &= declared[0]
    vals = finite_values(node)
    if vals is not None:
        out &= frozenset(base_type(v) for v in vals)
    for sub in node.get("allOf", []):
        out &= types_of(sub, ctx, depth + 1, refs)
    for kw in ("anyOf", "oneOf"):
        if kw in node:
            union: frozenset[str] = frozenset()
            for sub in _distinct(node[kw]):
                union |= types_of(sub, ctx, depth + 1, refs)
            out &= union
    name = ref_name(node)
    if name is not None and ctx is not None:
        if name not in refs:
            done = _lowered_types(ctx)
            if name in done:
                refs[name] = done[name]
            else:
                refs[name] = BASE_TYPES  # a cycle reads as "unknown"
                target = ctx.deref({"$ref": node["$ref"]})
                refs[name] = BASE_TYPES if target is None else types_of(target, ctx, depth + 1, refs)
                if target is not None and name in ctx.defs.lowered:
                    done[name] = refs[name]
        out &= refs[name]
    return out


#: (the lowering run's definitions, their type sets): lowered definitions never change, so a
#: chain of references is read once per run instead of once per question.
_TYPES_CACHE: tuple[object, dict[str, frozenset[str]]] = (None, {})


def _lowered_types(ctx: LowerContext) -> dict[str, frozenset[str]]:
    global _TYPES_CACHE
    owner, cache = _TYPES_CACHE
    if owner is not ctx.defs:
        cache = {}
        _TYPES_CACHE = (ctx.defs, cache)
    return cache


def integer_only(node: Schema) -> bool:
    """True when every number `node` admits is an integer (from its own `type`, `enum` or `allOf`)."""
    if not isinstance(node, dict):
        return node is False
    declared = declared_types(node)
    if declared is not None and ("number" not in declared[0] or declared[1]):
        return True
    vals = finite_values(node)
    if vals is not None and all(is_integer(v) for v in vals if base_type(v) == "number"):
        return True
    return any(integer_only(sub) for sub in node.get("allOf", []))


def has_keyword(node: Any, keywords: frozenset[str]) -> bool:
    """True if any schema object inside `node` (values of const/enum excluded) uses one of `keywords`."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            if keywords & cur.keys():
                return True
            stack.extend(v for k, v in cur.items() if k not in ("const", "enum"))
        elif isinstance(cur, list):
            stack.extend(cur)
    return False


#: Keywords that stop a schema being checked by the validator alone (refs need the bundle).
_NOT_SELF_CONTAINED = frozenset({"$ref"})


def evaluable(node: Schema) -> bool:
    """Whether `node` can be checked with the final validator as it stands (no bundle references)."""
    return not has_keyword(node, _NOT_SELF_CONTAINED)


def accepted_values(node: Schema, values: list[Any], ctx: LowerContext) -> list[Any]:
    """The members of `values` that `node` accepts, by the final validator (charges evaluations);
    `node` may be lowered, so its scalar markers are honoured (`scalar_marks.standard`)."""
    from schemac.lower.support.scalar_marks import lowered_judge

    ctx.budget.reserve("evaluations", len(values), ctx.pointer)  # charged whether or not a verdict is remembered
    judge = lowered_judge(node)
    return [v for v in values if judge(v)]


def interval(node: dict[str, Any]) -> tuple[Any, bool, Any, bool]:
    """(low, low_inclusive, high, high_inclusive) of a node's own numeric bounds, as exact values;
    None for an absent side."""
    lo: Any = None
    hi: Any = None
    lo_inc = hi_inc = False
    if "minimum" in node:
        lo, lo_inc = exact(node["minimum"]), True
    if "exclusiveMinimum" in node and (lo is None or exact(node["exclusiveMinimum"]) >= lo):
        lo, lo_inc = exact(node["exclusiveMinimum"]), False
    if "maximum" in node:
        hi, hi_inc = exact(node["maximum"]), True
    if "exclusiveMaximum" in node and (hi is None or exact(node["exclusiveMaximum"]) <= hi):
        hi, hi_inc = exact(node["exclusiveMaximum"]), False
    return lo, lo_inc, hi, hi_inc


#: A context's finite value set is used (each member checked with the validator) up to this size.
MAX_DOMAIN_VALUES = 64


def finite_of_types(
    types: frozenset[str], integers: bool, members: tuple[dict[str, Any], ...]
) -> list[Any] | None:
    """Every value of `types` within the members' numeric bounds, when that set is finite and
    at most MAX_DOMAIN_VALUES long (a superset of the context's instances); None otherwise."""
    if not types <= {"null", "boolean", "number"}:
        return None
    out: list[Any] = ([None] if "null" in types else []) + ([False, True] if "boolean" in types else [])
    if "number" in types:
        ints = _integers_between(members) if integers else None
        if ints is None:
            return None
        out.extend(ints)
    return out if len(out) <= MAX_DOMAIN_VALUES else None


def _integers_between(members: tuple[dict[str, Any], ...]) -> list[int] | None:
    """The integers every member's own bounds admit (exact arithmetic), if few; else None."""
    lo: int | None = None
    hi: int | None = None
    for m in members:
        try:
            m_lo, lo_inc, m_hi, hi_inc = interval(m)
        except (TypeError, ValueError):  # a malformed bound proves nothing
            continue
        if m_lo is not None:
            first = math.ceil(exact(m_lo)) if lo_inc or m_lo != math.floor(m_lo) else math.floor(m_lo) + 1
            lo = first if lo is None else max(lo, first)
        if m_hi is not None:
            last = math.floor(exact(m_hi)) if hi_inc or m_hi != math.ceil(m_hi) else math.ceil(m_hi) - 1
            hi = last if hi is None else min(hi, last)
    if lo is None or hi is None or hi - lo + 1 > MAX_DOMAIN_VALUES:
        return None
    return list(range(lo, hi + 1))


def _ranges_disjoint(a: dict[str, Any], b: dict[str, Any]) -> bool:
    alo, alo_inc, ahi, ahi_inc = interval(a)
    blo, blo_inc, bhi, bhi_inc = interval(b)
    return _apart(ahi, ahi_inc, blo, blo_inc) or _apart(bhi, bhi_inc, alo, alo_inc)


def _apart(hi: Any, hi_inc: bool, lo: Any, lo_inc: bool) -> bool:
    """Whether every number at most `hi` lies below every number at least `lo`."""
    if hi is None or lo is None:
        return False
    return hi < lo or (hi == lo and not (hi_inc and lo_inc))


def _required(node: dict[str, Any]) -> set[str]:
    req = node.get("required", [])
    return set(req) if isinstance(req, list) else set()


def forbids(node: dict[str, Any], key: str) -> bool:
    """True when an object satisfying `node` cannot have property `key`."""
    props = node.get("properties", {})
    if not isinstance(props, dict):
        return False
    if key in props:
        return props[key] is False
    if node.get("additionalProperties") is not False:
        return False
    from schemac.regex import PatternError, ecma_search

    try:
        return not any(ecma_search(p, key) for p in node.get("patternProperties", {}))
    except PatternError:  # a pattern RE2 cannot run proves nothing (the regex check reports it)
        return False


def implied(node: Schema, ctx: LowerContext | None, depth: int = 0) -> list[dict[str, Any]]:
    """`node` and every schema it implies through `allOf` members and bare `$ref` targets."""
    if not isinstance(node, dict) or depth > 16:
        return []
    name = ref_name(node)
    if name is not None and len(node) == 1:
        target = ctx.deref(node) if ctx is not None else None
        return implied(target, ctx, depth + 1) if target is not None else [node]
    out = [node]
    for member in node.get("allOf", []):
        out.extend(implied(member, ctx, depth + 1))
    if name is not None and ctx is not None:
        target = ctx.deref({"$ref": node["$ref"]})
        if target is not None:
            out.extend(implied(target, ctx, depth + 1))
    return out


def required_keys(node: Schema, ctx: LowerContext | None) -> frozenset[str]:
    """Keys every object satisfying `node` has (from `required` in `node` and what it implies)."""
    out: set[str] = set()
    for m in implied(node, ctx):
        out |= _required(m)
    return frozenset(out)


def _property_schemas(members: list[dict[str, Any]], key: str) -> list[Schema]:
    """Every schema that `members` apply to property `key`'s value: its `properties` entry and
    each `patternProperties` entry whose pattern matches the key."""
    from schemac.regex import PatternError, ecma_search

    out: list[Schema] = []
    for m in members:
        props = m.get("properties")
        if isinstance(props, dict) and key in props:
            out.append(props[key])
        patterns = m.get("patternProperties")
        for pattern, sub in patterns.items() if isinstance(patterns, dict) else ():
            try:
                if ecma_search(pattern, key):
                    out.append(sub)
            except PatternError:  # proves nothing; the regex check reports the pattern
                continue
    return out


def _distinct(branches: list[Schema]) -> list[Schema]:
    """`branches` without repeats (a branch listed twice need only be proven once)."""
    out: list[Schema] = []
    for b in branches:
        if not any(b is o or (type(b) is type(o) and b == o) for o in out):
            out.append(b)
    return out


def disjoint(
    a: Schema,
    b: Schema,
    ctx: LowerContext,
    depth: int = 0,
    within: frozenset[str] = BASE_TYPES,
    present: frozenset[str] = frozenset(),
) -> bool:
    """True only if no JSON value of a type in `within` satisfies both `a` and `b` (a proof;
    False means unknown). `within` lets a context (e.g. the siblings of `oneOf`) narrow types,
    and `present` names keys the context requires of every object."""
    if a is False or b is False:
        return True
    if not isinstance(a, dict) or not isinstance(b, dict) or depth > 16:
        return False
    ctx.budget.step(ctx.pointer)  # the proof search branches at every allOf/anyOf/$ref
    for x, y in ((a, b), (b, a)):
        name = ref_name(x)
        if name is not None and len(x) == 1:
            target = ctx.deref(x)
            return target is not None and disjoint(target, y, ctx, depth + 1, within, present)
    shared = types_of(a, ctx) & types_of(b, ctx) & within
    if not shared:
        return True
    for x, y in ((a, b), (b, a)):
        # x implies each of its allOf members and one of its anyOf branches.
        if any(disjoint(m, y, ctx, depth + 1, shared, present) for m in x.get("allOf", [])):
            return True
        for kw in ("anyOf", "oneOf"):
            if kw in x and all(disjoint(m, y, ctx, depth + 1, shared, present) for m in _distinct(x[kw])):
                return True
        vals = finite_values(x)
        if vals is None and shared == {"string"}:
            vals = pattern_literal(x)
        if vals is not None and len(vals) <= 64 and evaluable(y) and not accepted_values(y, vals, ctx):
            return True
    if shared <= {"object"} and _objects_disjoint(a, b, ctx, depth, present):
        return True
    if shared <= {"number"} and _ranges_disjoint(a, b):
        return True
    return False


#: characters with a meaning in a pattern; any other character (or one of these escaped) is itself
_REGEX_META = frozenset("\\^$.|?*+()[]{}/")


def pattern_literal(node: dict[str, Any]) -> list[str] | None:
    """[s] when `node`'s `pattern` is `^s$` with `s` literal (no metacharacter, or each one
    escaped): the only string it admits (ECMA-262 `$` without the `m` flag matches only at the
    end, so no trailing newline gets in). A discriminator written as a pattern (`"^Abs$"`) then
    proves branches disjoint like a `const` does. None for any other pattern."""
    pattern = node.get("pattern")
    if not isinstance(pattern, str) or len(pattern) < 2 or pattern[0] != "^" or pattern[-1] != "$":
        return None
    body, out, i = pattern[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            if i + 1 >= len(body) or body[i + 1] not in _REGEX_META:
                return None  # \d, \b, \1, \u…: a class, an assertion or an escape, not one character
            out.append(body[i + 1])
            i += 2
            continue
        if c in _REGEX_META:
            return None
        out.append(c)
        i += 1
    return ["".join(out)]


def _objects_disjoint(a: dict[str, Any], b: dict[str, Any], ctx: LowerContext, depth: int, present: frozenset[str]) -> bool:
    """A key one side (or the context) requires that the other forbids, or whose values the two
    sides' `properties` make disjoint (looked up through allOf members and references)."""
    ma, mb = implied(a, ctx), implied(b, ctx)
    ra = set().union(*(_required(m) for m in ma))
    rb = set().union(*(_required(m) for m in mb))
    if any(forbids(m, k) for k in ra | present for m in mb) or any(forbids(m, k) for k in rb | present for m in ma):
        return True
    for k in sorted(ra | rb | present):
        for sa in _property_schemas(ma, k):
            for sb in _property_schemas(mb, k):
                if disjoint(sa, sb, ctx, depth + 1):
                    return True
    return False


def pairwise_disjoint(
    branches: list[Schema], ctx: LowerContext, within: frozenset[str] = BASE_TYPES,
    present: frozenset[str] = frozenset(),
) -> bool:
    """True when every pair of `branches` is provably disjoint (on values of types `within`)."""
    return all(
        disjoint(branches[i], branches[j], ctx, 0, within, present)
        for i in range(len(branches))
        for j in range(i + 1, len(branches))
    )


#: A node whose own (or an allOf member's) `const`/`enum` has at most this many values is
#: lowered by enumeration when `finite_form` is applied to it.
MAX_FINITE_VALUES = 64

_LITERAL = frozenset({"const", "enum"})

#: Keywords whose presence under a literal-bounded node makes enumeration worth a validator run:
#: without them the node is already in a form llguidance takes (and stays a lowering fixpoint).
ENUMERATION_PAYS = frozenset(
    {
        "not", "if", "then", "else", "oneOf", "uniqueItems", "contains", "minContains", "maxContains",
        "dependentRequired", "dependentSchemas", "dependencies", "propertyNames",
        "unevaluatedProperties", "unevaluatedItems",
    }
)


def finite_form(node: Schema, ctx: LowerContext) -> Schema | None:
    """`node` (unlowered) as the `enum` of the values it accepts, when its own `const`/`enum` or
    an allOf member's bounds it to a few values and it is self-contained; None otherwise.

    Exact by construction: the final validator (the definition of "valid") judges each value on
    the unlowered node, so constructs with no exact lowering (`not`, overlapping `oneOf`, general
    patterns) cost nothing when the candidates are known.
    """
    if not isinstance(node, dict):
        return None
    members = node.get("allOf")
    bounded = [node] if _LITERAL & node.keys() else []
    if not bounded and isinstance(members, list):
        bounded = [m for m in members if isinstance(m, dict) and _LITERAL & m.keys()][:1]
    if not bounded or not has_keyword(node, ENUMERATION_PAYS):
        return None
    vals = finite_values(bounded[0])
    if vals is None or len(vals) > MAX_FINITE_VALUES or not evaluable(node) or "1e" in repr(vals).lower():
        return None  # huge floats: the validator and the grammar's number text may disagree
    try:
        kept = accepted_values(node, vals, ctx)
    except ValueError:  # the validator refuses the node (e.g. a nested $schema): no shortcut
        return None
    if not kept:
        return False
    return {"const": kept[0]} if len(kept) == 1 else {"enum": kept}
