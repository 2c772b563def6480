"""Negation (`not`): push the complement inwards until only llguidance keywords remain.

A lowered schema is a conjunction of keyword assertions, each about one JSON type, so its
complement is a disjunction, type by type: a value of type t fails S iff t is not admitted, or it
is not among S's `enum` values of type t, or it violates one of S's type-t keywords; applicators
follow De Morgan. Every step is exact; a keyword whose complement llguidance cannot express
(a general `pattern`, `format`, `multipleOf` over an unbounded range, a non-trivial
`additionalProperties`) is rejected with `not-exact`.

The complement only has to be right inside the schema it will be intersected with (the
siblings of `not`, a oneOf branch, a guarded value's domain): `_Domain` carries what that context
tells (types, integers only, a finite value set, property sub-domains), which lets e.g.
`{"type": "integer", "not": {"multipleOf": 2, "maximum": 9, "minimum": 0}}` lower exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from schemac.diagnostics import reject
from schemac.lower.analysis import (
    BASE_TYPES,
    EXACT_INT,
    accepted_values,
    base_type,
    declared_types,
    evaluable,
    finite_values,
    integer_only,
    is_integer,
    json_equal,
    pairwise_disjoint,
    types_of,
)
from schemac.lower.context import LowerContext
from schemac.schema import DEF_PREFIX, TYPES, Schema, ref_name

#: Prefix of generated definitions holding the complement of a bundle definition.
NOT_PREFIX = "not~"
#: Longest string literal whose complement is written as a regex.
MAX_LITERAL = 256
#: A complement of a definition this small (JSON characters) is inlined rather than named.
INLINE_LIMIT = 2000
#: A context's finite value set is used (each member checked with the validator) up to this size.
MAX_DOMAIN_VALUES = 64
MAX_CODE_POINT = 0x10FFFF

_NUMBER = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_STRING = ("minLength", "maxLength", "pattern", "format")
_ARRAY = ("prefixItems", "items", "minItems", "maxItems")
_OBJECT = ("required", "properties", "patternProperties", "additionalProperties", "minProperties", "maxProperties")
_BY_TYPE: dict[str, tuple[str, ...]] = {"number": _NUMBER, "string": _STRING, "array": _ARRAY, "object": _OBJECT}
_LOCAL = frozenset({"type", "enum", "const", *_NUMBER, *_STRING, *_ARRAY, *_OBJECT})
_APPLICATORS = frozenset({"allOf", "anyOf", "oneOf", "$ref"})
_IGNORED = frozenset({"$defs"})
_ANY = r"[\s\S]"
#: Characters with a meaning in a regex outside a class (ECMA-262 SyntaxCharacter plus `/`).
_META = frozenset("^$\\.*+?()[]{}|/")


@dataclass(frozen=True)
class _Domain:
    """What is known about every instance the complement will be checked on."""

    types: frozenset[str] = BASE_TYPES
    integers: bool = False
    values: tuple[Any, ...] | None = None
    node: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def of(within: Schema | None, ctx: LowerContext) -> "_Domain":
        if not isinstance(within, dict) or not within:
            return _Domain()
        vals = finite_values(within)
        for member in within.get("allOf", []):
            if vals is None:
                vals = finite_values(member) if isinstance(member, dict) else None
        return _Domain(
            types_of(within, ctx),
            integer_only(within),
            tuple(vals) if vals is not None and len(vals) <= MAX_DOMAIN_VALUES else None,
            within,
        )

    def _nodes(self) -> list[dict[str, Any]]:
        """The context node and its allOf members: each one holds for every instance."""
        return [self.node, *(m for m in self.node.get("allOf", []) if isinstance(m, dict))]

    def prop(self, key: str, ctx: LowerContext) -> "_Domain":
        for node in self._nodes():
            props = node.get("properties")
            if isinstance(props, dict) and key in props:
                return _Domain.of(props[key], ctx)
        return _Domain()

    def item(self, index: int, ctx: LowerContext) -> "_Domain":
        for node in self._nodes():
            prefix = node.get("prefixItems", [])
            if isinstance(prefix, list) and index < len(prefix):
                return _Domain.of(prefix[index], ctx)
            if "items" in node:
                return _Domain.of(node["items"], ctx)
        return _Domain()


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    """Replace `not` by the complement of its (already lowered) operand, intersected with siblings."""
    if "not" not in node:
        return node
    rest = {k: v for k, v in node.items() if k != "not"}
    return conjoin(rest, negate(node["not"], ctx.at("not"), rest))


def conjoin(rest: dict[str, Any], extra: Schema) -> Schema:
    """`rest` ∧ `extra` as one node (the intersection pass merges the allOf)."""
    if extra is False:
        return False
    if extra is True:
        return rest or True
    if not rest:
        return extra
    return {**rest, "allOf": [*rest.get("allOf", []), extra]}


def negate(schema: Schema, ctx: LowerContext, within: Schema | None = None) -> Schema:
    """A lowered schema equivalent to {"not": schema} (on instances of `within`, if given).

    `schema` must be lowered already. Raises `not-exact` where no exact complement exists and
    `budget-exhausted` when the generated branches exceed the shared budget.
    """
    result = _negate(schema, ctx, _Domain.of(within, ctx))
    return result if isinstance(result, bool) else ctx.lower(result)


def _not_exact(ctx: LowerContext, what: str, hint: str | None = None) -> Exception:
    return reject("not-exact", ctx.pointer, f"the complement of {what} has no exact llguidance form", hint)


def _negate(s: Schema, ctx: LowerContext, dom: _Domain) -> Schema:
    if s is True:
        return False
    if s is False:
        return True
    if not isinstance(s, dict):
        raise reject("invalid-schema", ctx.pointer, "a schema must be an object or a boolean")
    if not dom.types:
        return False
    if dom.values is not None and evaluable(s):
        rejected = [v for v in dom.values if v not in _keep(accepted_values(s, list(dom.values), ctx))]
        return _enum(rejected)
    unknown = set(s) - _LOCAL - _APPLICATORS - _IGNORED
    if unknown:
        raise _not_exact(ctx, f"`{sorted(unknown)[0]}`")
    name = ref_name(s)
    if name is not None and len(s) == 1:
        return _negate_ref(name, ctx)
    disjuncts: list[Schema] = []
    full, branches = _local_complement({k: v for k, v in s.items() if k in _LOCAL}, ctx, dom)
    if full:
        disjuncts.append({"type": _type_value(full)})
    disjuncts.extend(branches)
    for member in s.get("allOf", []):
        disjuncts.append(_negate(member, ctx, dom))
    if "oneOf" in s and not pairwise_disjoint(s["oneOf"], ctx):
        raise _not_exact(ctx, "a `oneOf` whose branches may overlap")
    for kw in ("anyOf", "oneOf"):
        if kw in s:
            disjuncts.append(_all([_negate(b, ctx, dom) for b in s[kw]]))
    if name is not None:
        disjuncts.append(_negate_ref(name, ctx))
    return _any(disjuncts, ctx)


class _keep(list):  # membership by JSON equality (True is not 1)
    def __contains__(self, value: object) -> bool:
        return any(json_equal(value, v) for v in self)


def _enum(values: list[Any]) -> Schema:
    if not values:
        return False
    return {"const": values[0]} if len(values) == 1 else {"enum": values}


def _type_value(types: set[str] | frozenset[str]) -> str | list[str]:
    ordered = [t for t in TYPES if t in types]
    return ordered[0] if len(ordered) == 1 else ordered


def _all(parts: list[Schema]) -> Schema:
    if any(p is False for p in parts):
        return False
    parts = [p for p in parts if p is not True]
    if not parts:
        return True
    return parts[0] if len(parts) == 1 else {"allOf": parts}


def _any(parts: list[Schema], ctx: LowerContext) -> Schema:
    """The union of `parts`, flattened, with pure type branches merged; charges its branches."""
    flat: list[Schema] = []
    for p in parts:
        if isinstance(p, dict) and set(p) == {"anyOf"}:
            flat.extend(p["anyOf"])
        else:
            flat.append(p)
    if any(p is True for p in flat):
        return True
    full: set[str] = set()
    rest: list[Schema] = []
    for p in flat:
        if p is False:
            continue
        if isinstance(p, dict) and set(p) == {"type"}:
            declared = declared_types(p)
            if declared is not None and not declared[1]:
                full |= declared[0]
                continue
        rest.append(p)
    if full >= BASE_TYPES:
        return True
    out: list[Schema] = ([{"type": _type_value(full)}] if full else []) + rest
    if not out:
        return False
    if len(out) == 1:
        return out[0]
    ctx.budget.reserve("entries", len(out), ctx.pointer)
    return {"anyOf": out}


def _negate_ref(name: str, ctx: LowerContext) -> Schema:
    """¬$ref: the complement of the definition, memoised as `not~<name>` (¬¬ref is the ref)."""
    if name.startswith(NOT_PREFIX) and name not in ctx.defs.source.defs:
        return {"$ref": DEF_PREFIX + name[len(NOT_PREFIX):]}
    key = NOT_PREFIX + name
    if key in ctx.defs.lowered or key in ctx.defs.in_progress:
        return {"$ref": DEF_PREFIX + key}
    target = ctx.deref({"$ref": DEF_PREFIX + name})
    if target is None:
        raise _not_exact(ctx, f"definition {name!r} from inside its own recursion")
    ctx.defs.in_progress.add(key)
    try:
        body = _negate(target, ctx, _Domain())
    finally:
        ctx.defs.in_progress.discard(key)
    if isinstance(body, bool):
        return body
    text = repr(body)
    if DEF_PREFIX + key not in text and len(text) <= INLINE_LIMIT:
        return body
    return {"$ref": ctx.add_definition(key, ctx.lower(body))}


def _local_complement(
    s: dict[str, Any], ctx: LowerContext, dom: _Domain
) -> tuple[set[str], list[Schema]]:
    """(types wholly in the complement, branches each confined to one type) for the local keywords."""
    declared = declared_types(s)
    values = finite_values(s)
    if values is not None and evaluable(s):
        values = accepted_values(s, values, ctx)
        declared, s = None, {}
    full: set[str] = set()
    branches: list[Schema] = []
    for t in TYPES:
        if t not in dom.types:
            continue
        if declared is not None and t not in declared[0]:
            full.add(t)
            continue
        integers = t == "number" and declared is not None and declared[1]
        if values is not None:
            vals = [v for v in values if base_type(v) == t and (not integers or is_integer(v))]
            if not vals:
                full.add(t)
                continue
            branches.extend(_not_values(t, vals, ctx, dom))
        elif integers and not dom.integers:
            raise _not_exact(ctx, '`"type": "integer"` within numbers (the non-integer numbers)')
        for kw in _BY_TYPE.get(t, ()):
            if kw in s:
                branches.extend(_not_keyword(t, kw, s, ctx, dom))
    return full, branches


# ---- values -------------------------------------------------------------------------------


def _not_values(t: str, vals: list[Any], ctx: LowerContext, dom: _Domain) -> list[Schema]:
    """Branches for the values of type `t` that are none of `vals` (all of type t)."""
    if t == "null":
        return []
    if t == "boolean":
        return [{"const": b} for b in (False, True) if b not in _keep(vals)]
    if t == "number":
        return _not_numbers(vals, ctx, dom)
    if t == "string":
        return [{"type": "string", "pattern": _string_complement(vals, ctx, prefix=False)}]
    parts = [_not_array(v, ctx) if t == "array" else _not_object(v, ctx) for v in vals]
    return [parts[0] if len(parts) == 1 else {"type": t, "allOf": parts}]


def _exact_number(v: Any, ctx: LowerContext) -> float | int:
    if isinstance(v, int) and abs(v) > EXACT_INT:
        raise _not_exact(ctx, f"the number {v} (beyond the exactly representable range of a double)")
    return v


def _not_numbers(vals: list[Any], ctx: LowerContext, dom: _Domain) -> list[Schema]:
    points = sorted({_exact_number(v, ctx) for v in vals})
    bounds: list[tuple[Any, Any]] = [(None, points[0])]
    bounds += list(zip(points, points[1:]))
    bounds.append((points[-1], None))
    out: list[Schema] = []
    for lo, hi in bounds:
        if dom.integers and lo is not None and hi is not None and is_integer(lo) and is_integer(hi) and hi - lo <= 1:
            continue
        branch: dict[str, Any] = {"type": "number"}
        if lo is not None:
            branch["exclusiveMinimum"] = lo
        if hi is not None:
            branch["exclusiveMaximum"] = hi
        out.append(branch)
    return out


def _not_array(v: list[Any], ctx: LowerContext) -> Schema:
    """Arrays other than `v`: another length, or some position holding another value."""
    n = len(v)
    parts: list[Schema] = [{"type": "array", "minItems": n + 1}]
    if n:
        parts.append({"type": "array", "maxItems": n - 1})
    for i, item in enumerate(v):
        other = _negate({"const": item}, ctx, _Domain())
        parts.append({"type": "array", "minItems": i + 1, "prefixItems": [True] * i + [other]})
    return _any(parts, ctx)


def _not_object(v: dict[str, Any], ctx: LowerContext) -> Schema:
    """Objects other than `v`: a key of v absent or holding another value, or more keys."""
    parts: list[Schema] = [{"type": "object", "minProperties": len(v) + 1}]
    for k, item in v.items():
        parts.append({"type": "object", "properties": {k: False}})
        other = _negate({"const": item}, ctx, _Domain())
        parts.append({"type": "object", "required": [k], "properties": {k: other}})
    return _any(parts, ctx)


# ---- strings ------------------------------------------------------------------------------


def _escape(ch: str) -> str:
    return "\\" + ch if ch in _META else ch


def _string_complement(strings: list[str], ctx: LowerContext, prefix: bool) -> str:
    """An anchored regex for the strings that are none of `strings` (or, with `prefix`, that
    start with none of them), written only with literals, negated classes and [\\s\\S] so that
    ECMA-262, RE2 and llguidance read it the same."""
    for s in strings:
        if len(s) > MAX_LITERAL:
            raise _not_exact(ctx, f"a string literal longer than {MAX_LITERAL} characters")
    trie: dict[str, Any] = {}
    for s in strings:
        node = trie
        for ch in s:
            node = node.setdefault(ch, {})
        node[""] = {}

    def alt(node: dict[str, Any]) -> str:
        if "" in node and prefix:
            return ""  # every continuation starts with a listed prefix
        chars = sorted(k for k in node if k)
        options = [] if "" in node else [""]
        options.append((_chars_except({ord(c) for c in chars}) if chars else _ANY) + _ANY + "*")
        for c in chars:
            sub = alt(node[c])
            if sub:
                options.append(_escape(c) + ("(?:" + sub + ")" if "|" in sub else sub))
        return "|".join(options)

    try:
        regex = "^(?:" + alt(trie) + ")$"
    except _QuoteHazard:
        raise _not_exact(ctx, 'a string literal containing `"` or `\\`',
                         "llguidance 1.9.1 cannot exclude those characters from a position exactly") from None
    ctx.budget.reserve("regex_chars", len(regex), ctx.pointer)
    return regex


class _QuoteHazard(Exception):
    """The complement would exclude `"` or `\\` at a position that admits every control char."""


def _chars_except(excluded: set[int]) -> str:
    """Any one character outside `excluded`, as an alternation of single-range classes.

    llguidance 1.9.1 matches the escapes `\\"` and `\\\\` wherever a position admits all of
    U+0000-U+001F (`[^"]` accepts a quote), so excluding a quote or backslash there is refused.
    """
    if excluded & {0x22, 0x5C} and not any(cp < 0x20 for cp in excluded):
        raise _QuoteHazard()
    ranges: list[tuple[int, int]] = []
    nxt = 0
    for cp in sorted(excluded):
        if cp > nxt:
            ranges.append((nxt, cp - 1))
        nxt = cp + 1
    if nxt <= MAX_CODE_POINT:
        ranges.append((nxt, MAX_CODE_POINT))
    return _ranges_regex(ranges)


def _ranges_regex(ranges: list[tuple[int, int]]) -> str:
    parts = [f"[\\u{{{lo:X}}}-\\u{{{hi:X}}}]" for lo, hi in ranges]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _to_ranges(cps: set[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in sorted(cps):
        if out and cp == out[-1][1] + 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def _literal_pattern(pattern: str) -> tuple[str, bool, bool] | None:
    """(literal, anchored at start, anchored at end) when `pattern` is a plain literal."""
    start = pattern.startswith("^")
    i = 1 if start else 0
    out: list[str] = []
    end = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern) or pattern[i + 1] not in _META | {"-"}:
                return None
            out.append(pattern[i + 1])
            i += 2
            continue
        if c == "$" and i == len(pattern) - 1:
            end = True
        elif c in _META:
            return None
        else:
            out.append(c)
        i += 1
    return "".join(out), start, end


#: Punctuation that means itself inside a class in ECMA-262 (u), RE2 and llguidance alike.
_CLASS_PLAIN = frozenset(" .,()@&'_:;!?#%*+=<>~/\"$|{}")


def _one_char_class(pattern: str) -> set[int] | None:
    """For an unanchored pattern that is one character or one simple class, the code points
    that do NOT match it; None for anything else."""
    if len(pattern) == 1 and pattern not in _META:
        return _all_but({ord(pattern)})
    if len(pattern) == 2 and pattern[0] == "\\" and pattern[1] in _META | {"-"}:
        return _all_but({ord(pattern[1])})
    if len(pattern) < 3 or pattern[0] != "[" or pattern[-1] != "]":
        return None
    body = pattern[1:-1]
    negated = body.startswith("^")
    inner = body[1:] if negated else body
    members: set[int] = set()
    i = 0
    while i < len(inner):
        c = inner[i]
        if c == "\\":
            if i + 1 >= len(inner) or inner[i + 1] not in _META | {"-"}:
                return None
            members.add(ord(inner[i + 1]))
            i += 2
            continue
        if i + 2 < len(inner) and inner[i + 1] == "-" and c.isascii() and c.isalnum() and inner[i + 2].isascii() and inner[i + 2].isalnum():
            if ord(inner[i + 2]) < ord(c):
                return None
            members.update(range(ord(c), ord(inner[i + 2]) + 1))
            i += 3
            continue
        if c == "-" and i not in (0, len(inner) - 1):
            return None
        if not ((c.isascii() and c.isalnum()) or c in _CLASS_PLAIN or c == "-"):
            return None
        members.add(ord(c))
        i += 1
    if not members:
        return None
    return members if negated else _all_but(members)


class _all_but(frozenset):  # marks "every code point except these"
    pass


def _not_pattern(pattern: str, ctx: LowerContext) -> list[Schema]:
    outside = _one_char_class(pattern)
    if outside is not None:  # "contains a character of C" fails iff every character is outside C
        try:
            one = _chars_except(set(outside)) if isinstance(outside, _all_but) else _ranges_regex(_to_ranges(outside))
        except _QuoteHazard:
            raise _not_exact(ctx, f"`pattern` {pattern!r} (it would exclude a quote or backslash)") from None
        return [{"type": "string", "pattern": "^" + one + "*$"}]
    lit = _literal_pattern(pattern)
    if lit is None or (lit[0] and not lit[1]):
        raise _not_exact(ctx, f"`pattern` {pattern!r}", "only anchored literal patterns (^abc or ^abc$) are complemented")
    text, start, end = lit
    if not start:  # the empty pattern matches every string
        return []
    if not text and not end:
        return []
    if end:
        return [{"type": "string", "pattern": _string_complement([text], ctx, prefix=False)}]
    return [{"type": "string", "pattern": _string_complement([text], ctx, prefix=True)}]


# ---- per-type keywords --------------------------------------------------------------------


_BOUND_FLIP = {
    "minimum": "exclusiveMaximum",
    "exclusiveMinimum": "maximum",
    "maximum": "exclusiveMinimum",
    "exclusiveMaximum": "minimum",
}


def _not_keyword(t: str, kw: str, s: dict[str, Any], ctx: LowerContext, dom: _Domain) -> list[Schema]:
    v = s[kw]
    if kw in _BOUND_FLIP:
        return [{"type": "number", _BOUND_FLIP[kw]: _exact_number(v, ctx)}]
    if kw == "multipleOf":
        return _not_multiple(v, s, ctx, dom)
    if kw in ("minLength", "minItems", "minProperties"):
        return [{"type": t, kw.replace("min", "max"): v - 1}] if v > 0 else []
    if kw in ("maxLength", "maxItems", "maxProperties"):
        return [{"type": t, kw.replace("max", "min"): v + 1}]
    if kw == "pattern":
        return _not_pattern(v, ctx)
    if kw == "format":
        raise _not_exact(ctx, f"`format` {v!r}")
    if kw == "required":
        return [{"type": "object", "properties": {k: False}} for k in dict.fromkeys(v)]
    if kw == "properties":
        out: list[Schema] = []
        for k, sub in v.items():
            other = _negate(sub, ctx, dom.prop(k, ctx))
            if other is not False:
                out.append({"type": "object", "required": [k], "properties": {k: other}})
        return out
    if kw == "patternProperties":
        if all(sub is True for sub in v.values()):
            return []
        raise _not_exact(ctx, "`patternProperties` (some matching key would have to break it)")
    if kw == "additionalProperties":
        if v is True:
            return []
        if v is False and not s.get("properties") and not s.get("patternProperties"):
            return [{"type": "object", "minProperties": 1}]
        raise _not_exact(ctx, "`additionalProperties` (some additional key would have to break it)")
    if kw == "prefixItems":
        out = []
        for i, sub in enumerate(v):
            other = _negate(sub, ctx, dom.item(i, ctx))
            if other is not False:
                out.append({"type": "array", "minItems": i + 1, "prefixItems": [True] * i + [other]})
        return out
    if kw == "items":
        return _not_items(v, s, ctx, dom)
    raise _not_exact(ctx, f"`{kw}`")


def _not_items(items: Schema, s: dict[str, Any], ctx: LowerContext, dom: _Domain) -> list[Schema]:
    """Some item past `prefixItems` breaks `items`: one branch per position below `maxItems`."""
    k = len(s.get("prefixItems", []))
    if items is True:
        return []
    if items is False:
        return [{"type": "array", "minItems": k + 1}]
    limit = s.get("maxItems")
    if limit is None:
        raise _not_exact(ctx, "`items` on arrays of unbounded length (some item would have to break it)",
                         "bound the array with maxItems")
    other = _negate(items, ctx, dom.item(k, ctx))
    if other is False:
        return []
    ctx.budget.reserve("entries", max(0, limit - k), ctx.pointer)
    return [{"type": "array", "minItems": j + 1, "prefixItems": [True] * j + [other]} for j in range(k, limit)]


def _not_multiple(k: Any, s: dict[str, Any], ctx: LowerContext, dom: _Domain) -> list[Schema]:
    """Numbers that are not multiples of k: exact only over integers, by enumeration in range."""
    if not dom.integers:
        raise _not_exact(ctx, f"`multipleOf` {k} over all numbers")
    step = Fraction(str(k))
    if (1 / step).denominator == 1:
        return []  # every integer is a multiple
    lo, hi = _int_range(s)
    if lo is None or hi is None:
        raise _not_exact(ctx, f"`multipleOf` {k} over an unbounded integer range", "bound it with minimum/maximum")
    count = hi - lo + 1
    ctx.budget.reserve("entries", max(count, 0), ctx.pointer)
    others = [n for n in range(lo, hi + 1) if (Fraction(n) / step).denominator != 1]
    return [_enum(others)] if others else []


def _int_range(s: dict[str, Any]) -> tuple[int | None, int | None]:
    """The inclusive integer range a node's own bounds allow."""
    import math

    lo: int | None = None
    hi: int | None = None
    if "minimum" in s:
        lo = math.ceil(s["minimum"])
    if "exclusiveMinimum" in s:
        e = math.floor(s["exclusiveMinimum"]) + 1
        lo = e if lo is None else max(lo, e)
    if "maximum" in s:
        hi = math.floor(s["maximum"])
    if "exclusiveMaximum" in s:
        e = math.ceil(s["exclusiveMaximum"]) - 1
        hi = e if hi is None else min(hi, e)
    return lo, hi
