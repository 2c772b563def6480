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

from schemac.diagnostics import CompileError, reject
from schemac.lower.analysis import (
    BASE_TYPES,
    EXACT_INT,
    accepted_values,
    base_type,
    declared_types,
    disjoint,
    evaluable,
    finite_values,
    implied,
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
#: Marks a definition whose body is being complemented inline inside a domain (a recursion guard).
INLINE_PREFIX = "not-within~"
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
    #: the context node and what it implies (allOf members, reference targets): each one holds
    members: tuple[dict[str, Any], ...] = ()

    @staticmethod
    def of(within: Schema | None, ctx: LowerContext) -> "_Domain":
        if not isinstance(within, dict) or not within:
            return _Domain()
        members = tuple(implied(within, ctx))
        vals = finite_values(within)
        for member in members:
            if vals is None:
                vals = finite_values(member)
        return _Domain(
            types_of(within, ctx),
            any(integer_only(m) for m in members),
            tuple(vals) if vals is not None and len(vals) <= MAX_DOMAIN_VALUES else None,
            within,
            members,
        )

    @staticmethod
    def of_all(schemas: list[Schema], ctx: LowerContext) -> "_Domain":
        if not schemas:
            return _Domain()
        return _Domain.of(schemas[0] if len(schemas) == 1 else {"allOf": schemas}, ctx)

    def prop(self, key: str, ctx: LowerContext) -> "_Domain":
        found: list[Schema] = []
        for node in self.members:
            props = node.get("properties")
            if isinstance(props, dict) and key in props:
                found.append(props[key])
        return _Domain.of_all(found, ctx)

    def item(self, index: int, ctx: LowerContext) -> "_Domain":
        found: list[Schema] = []
        for node in self.members:
            prefix = node.get("prefixItems", [])
            if isinstance(prefix, list) and index < len(prefix):
                found.append(prefix[index])
            elif "items" in node:
                found.append(node["items"])
        return _Domain.of_all(found, ctx)

    def keys(self) -> frozenset[str] | None:
        """The finite set of keys an object of the domain may have (None when unbounded):
        closed by `additionalProperties: false` without `patternProperties`."""
        out: frozenset[str] | None = None
        for node in self.members:
            props = node.get("properties", {})
            if node.get("additionalProperties") is False and not node.get("patternProperties") and isinstance(props, dict):
                out = frozenset(props) if out is None else out & frozenset(props)
        if out is None:
            return None
        return frozenset(k for k in out if not any(f is False for f in _props_of(self.members, k)))

    def max_items(self) -> int | None:
        """The most items an array of the domain may have (None when unbounded)."""
        limits = [n["maxItems"] for n in self.members if isinstance(n.get("maxItems"), int)]
        for n in self.members:
            if n.get("items") is False and isinstance(n.get("prefixItems", []), list):
                limits.append(len(n.get("prefixItems", [])))
        return min(limits) if limits else None


def _props_of(members: tuple[dict[str, Any], ...], key: str) -> list[Schema]:
    return [n["properties"][key] for n in members if isinstance(n.get("properties"), dict) and key in n["properties"]]


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    """Replace `not` by the complement of its (already lowered) operand, intersected with siblings."""
    if "not" not in node:
        return node
    rest = {k: v for k, v in node.items() if k != "not"}
    return conjoin(rest, negate(node["not"], ctx.at("not"), rest), node)


def conjoin(rest: dict[str, Any], extra: Schema, node: dict[str, Any]) -> Schema:
    """`rest` ∧ `extra` as one node (the intersection pass merges the allOf), where `rest` is
    `node` without the keywords `extra` replaces.

    `extra` takes the place of the first of them: llguidance lists an object's properties in
    the order its keywords are written (each applicator, `allOf`/`anyOf`/`oneOf`/`$ref`, in
    turn with the plain keywords between them), so answers keep the property order it gives the
    original schema (the syntax policy). Beside an `allOf` of its own, `extra` joins it on the
    side where the replaced keyword stood (a `properties` written between the two then no longer
    sits between them). Key order and allOf member order never change what a schema accepts.
    """
    if extra is False:
        return False
    if extra is True:
        return rest or True
    if not rest:
        return extra
    keys = list(node)
    place = next(i for i, k in enumerate(keys) if k not in rest)
    if "allOf" in rest:
        before = keys.index("allOf") > place
        return {**rest, "allOf": [extra, *rest["allOf"]] if before else [*rest["allOf"], extra]}
    out: dict[str, Any] = {}
    for i, k in enumerate(keys):
        if i == place:
            out["allOf"] = [extra]
        if k in rest:
            out[k] = rest[k]
    return out


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
    if dom.node and disjoint(dom.node, s, ctx):
        return True  # no instance of the domain satisfies s
    if dom.values is not None and evaluable(s):
        rejected = [v for v in dom.values if v not in _keep(accepted_values(s, list(dom.values), ctx))]
        return _enum(rejected)
    unknown = set(s) - _LOCAL - _APPLICATORS - _IGNORED
    if unknown:
        raise _not_exact(ctx, f"`{sorted(unknown)[0]}`")
    name = ref_name(s)
    if name is not None and len(s) == 1:
        return _negate_ref_within(name, ctx, dom)
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
        disjuncts.append(_negate_ref_within(name, ctx, dom))
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


def _negate_ref_within(name: str, ctx: LowerContext, dom: _Domain) -> Schema:
    """¬$ref: the shared complement of the definition, or, where that has no exact form, the
    definition's body complemented inside the domain (inlined, once per recursion path)."""
    try:
        return _negate_ref(name, ctx)
    except CompileError as exc:
        key = INLINE_PREFIX + name
        if "not-exact" not in exc.codes or not dom.node or key in ctx.defs.in_progress:
            raise
        target = ctx.deref({"$ref": DEF_PREFIX + name})
        if target is None:
            raise
    ctx.defs.in_progress.add(key)
    try:
        return _negate(target, ctx, dom)
    finally:
        ctx.defs.in_progress.discard(key)


def _negate_ref(name: str, ctx: LowerContext) -> Schema:
    """¬$ref: the complement of the definition, memoised as `not~<name>` (¬¬ref is the ref)."""
    if name.startswith(NOT_PREFIX) and name not in ctx.defs.source.defs:
        return {"$ref": DEF_PREFIX + name[len(NOT_PREFIX):]}
    key = NOT_PREFIX + name
    if key in ctx.defs.lowered or key in ctx.defs.in_progress:
        return {"$ref": DEF_PREFIX + key}
    if key in ctx.defs.derived:
        return ctx.defs.derived[key]
    target = ctx.deref({"$ref": DEF_PREFIX + name})
    if target is None:
        raise _not_exact(ctx, f"definition {name!r} from inside its own recursion")
    ctx.defs.in_progress.add(key)
    try:
        body = _negate(target, ctx, _Domain())
    finally:
        ctx.defs.in_progress.discard(key)
    if isinstance(body, bool):
        ctx.defs.derived[key] = body
        return body
    text = repr(body)
    if DEF_PREFIX + key not in text and len(text) <= INLINE_LIMIT:
        ctx.defs.derived[key] = body
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


def _repeated_atom(pattern: str) -> tuple[list[tuple[int, int]], int, int | None] | None:
    """For `^A{m,n}$` (also `*`, `+`, `?`, `{n}`, `{n,}`, or no quantifier) with A one character,
    escape, `.` or class: (A's code point ranges, m, n); None for any other pattern."""
    from schemac.regex import PatternError, _complement, _LINE_TERMINATORS, _Translator

    if len(pattern) < 3 or pattern[0] != "^" or pattern[-1] != "$" or pattern.endswith("\\$"):
        return None
    t = _Translator(pattern[:-1])
    t.i = 1
    try:
        c = pattern[1]
        if c == "[":
            t.i += 1
            atom = t.char_class()
        elif c == "\\":
            t.i += 1
            item = t.escape(in_class=False)
            atom = item if isinstance(item, list) else [(item, item)]
        elif c == ".":
            t.i += 1
            atom = _complement(_LINE_TERMINATORS)
        elif c in _META:
            return None
        else:
            cp = t.code_point()
            atom = [(cp, cp)]
        text, rest = pattern[1:t.i], pattern[t.i:-1]
        copies = 1
        while rest.startswith(text):
            rest, copies = rest[len(text):], copies + 1
        if copies > 1 and rest:
            return None  # e.g. `^aa+$`
        bounds = {"": (copies, copies), "*": (0, None), "+": (1, None), "?": (0, 1)}.get(rest)
        if bounds is None:
            if not (rest.startswith("{") and rest.endswith("}")) or t.counted() is None:
                return None
            bounds = t.counted()
            if t.p.index("}", t.i) != len(t.p) - 1:
                return None
    except PatternError:
        return None
    lo, hi = bounds
    if hi is not None and hi < lo:
        return None
    return list(atom), lo, hi


def _not_repeated(atom: list[tuple[int, int]], lo: int, hi: int | None, pattern: str, ctx: LowerContext) -> list[Schema]:
    """Strings failing `^A{lo,hi}$`: a length outside [lo, hi], or some character outside A."""
    from schemac.regex import _complement

    out: list[Schema] = []
    if lo > 0:
        out.append({"type": "string", "maxLength": lo - 1})
    if hi is not None:
        out.append({"type": "string", "minLength": hi + 1})
    outside = [(a, b) for a, b in _complement(atom) if a <= MAX_CODE_POINT]
    if outside:
        admitted = {cp for a, b in outside for cp in (0x22, 0x5C) if a <= cp <= b}
        if any(a <= 0 and b >= 0x1F for a, b in outside) and len(admitted) == 1:
            raise _not_exact(ctx, f"`pattern` {pattern!r} (it would exclude a quote or backslash)")
        regex = _ranges_regex(outside)
        ctx.budget.reserve("regex_chars", len(regex), ctx.pointer)
        out.append({"type": "string", "pattern": regex})
    return out


def _not_pattern(pattern: str, ctx: LowerContext) -> list[Schema]:
    repeated = _repeated_atom(pattern)
    if repeated is not None:
        return _not_repeated(*repeated, pattern, ctx)
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
        keys = dom.keys()
        out: list[Schema] = []
        for k, sub in v.items():
            if keys is not None and k not in keys:
                continue  # no object of the domain has k
            other = _negate(sub, ctx, dom.prop(k, ctx))
            if other is True:
                out.append({"type": "object", "required": [k]})
            elif other is not False:
                out.append({"type": "object", "required": [k], "properties": {k: other}})
        return out
    if kw == "patternProperties":
        if all(sub is True for sub in v.values()):
            return []
        keys = dom.keys()
        if keys is None:
            raise _not_exact(ctx, "`patternProperties` (some matching key would have to break it)",
                             "close the object (additionalProperties: false) so its keys are known")
        return _present_breaking([(k, sub) for k in sorted(keys) for p, sub in v.items() if _search(p, k, ctx)], ctx, dom)
    if kw == "additionalProperties":
        if v is True:
            return []
        if v is False and not s.get("properties") and not s.get("patternProperties"):
            return [{"type": "object", "minProperties": 1}]
        keys = dom.keys()
        if keys is None:
            raise _not_exact(ctx, "`additionalProperties` (some additional key would have to break it)",
                             "close the surrounding object (additionalProperties: false) so its keys are known")
        named = s.get("properties", {})
        extra = [k for k in sorted(keys) if k not in named and not any(_search(p, k, ctx) for p in s.get("patternProperties", {}))]
        return _present_breaking([(k, v) for k in extra], ctx, dom)
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
    """Some item past `prefixItems` breaks `items`: one branch per position below `maxItems`
    (of the node or the domain), or just "one more item" when no item of the domain fits."""
    k = len(s.get("prefixItems", []))
    if items is True:
        return []
    if items is False:
        return [{"type": "array", "minItems": k + 1}]
    other = _negate(items, ctx, dom.item(k, ctx))
    if other is False:
        return []
    if other is True:
        return [{"type": "array", "minItems": k + 1}]
    limits = [n for n in (s.get("maxItems"), dom.max_items()) if isinstance(n, int)]
    if not limits:
        raise _not_exact(ctx, "`items` on arrays of unbounded length (some item would have to break it)",
                         "bound the array with maxItems")
    limit = min(limits)
    ctx.budget.reserve("entries", max(0, limit - k), ctx.pointer)
    return [{"type": "array", "minItems": j + 1, "prefixItems": [True] * j + [other]} for j in range(k, limit)]


def _present_breaking(pairs: list[tuple[str, Schema]], ctx: LowerContext, dom: _Domain) -> list[Schema]:
    """Objects where some key k of `pairs` is present and breaks its schema (one branch per pair)."""
    ctx.budget.reserve("entries", len(pairs), ctx.pointer)
    out: list[Schema] = []
    for k, sub in pairs:
        other = _negate(sub, ctx, dom.prop(k, ctx))
        if other is not False:
            out.append({"type": "object", "required": [k]} if other is True else
                       {"type": "object", "required": [k], "properties": {k: other}})
    return out


def _search(pattern: str, key: str, ctx: LowerContext) -> bool:
    """Whether `pattern` matches `key` as the validator decides (RE2 on the translated pattern)."""
    from schemac.regex import PatternError, compile_re2

    try:
        return compile_re2(pattern).search(key) is not None
    except PatternError:
        raise _not_exact(ctx, f"`patternProperties` with a pattern RE2 cannot run ({pattern!r})") from None


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
