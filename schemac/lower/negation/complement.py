"""Negation (`not`): push the complement inwards until only llguidance keywords remain.

A lowered schema is a conjunction of keyword assertions, each about one JSON type, so its
complement is a disjunction, type by type: a value of type t fails S iff t is not admitted, or it
is not among S's `enum` values of type t, or it violates one of S's type-t keywords; applicators
follow De Morgan. Every step is exact; a keyword whose complement llguidance cannot express
(a general `pattern`, `format`) is rejected with `not-exact`. "Not a multiple of k" and "not an
integer" become the `NOT_MULTIPLE` marker, which the Lark writer turns into an exact number
automaton; "some key of a class breaks additionalProperties/patternProperties" the `WITNESS`
marker (`negation_objects`), which the Lark object writer writes.

The complement only has to be right inside the schema it will be intersected with (the
siblings of `not`, a oneOf branch, a guarded value's domain): `Domain` carries what that context
tells (types, integers only, a finite value set, property sub-domains), which lets e.g.
`{"type": "integer", "not": {"multipleOf": 2, "maximum": 9, "minimum": 0}}` lower exactly.
"""
from __future__ import annotations

from typing import Any, Callable

from schemac.diagnostics import CompileError, reject
from schemac.lower.support.analysis import (
    BASE_TYPES,
    accepted_values,
    base_type,
    declared_types,
    disjoint,
    evaluable,
    finite_values,
    is_integer,
    json_equal,
    pairwise_disjoint,
)
from schemac.lower.support.conjoin import conjoin
from schemac.lower.support.context import LowerContext
from schemac.lower.support.key_names import keys_named, named_everywhere, named_like, names_in_place
from schemac.lower.negation.domain import Domain, not_exact
from schemac.lower.support.marks import MARK, NOT_MULTIPLE, NOT_PATTERN, WITNESS
from schemac.lower.negation.objects import additional_breaks, pattern_breaks, universal
from schemac.lower.negation.numbers import non_multiples, not_multiple, not_numbers
from schemac.lower.negation.strings import FLAT_FROM, literal_complement, not_pattern, string_complement
from schemac.numbers.exact import exact
from schemac.schema import DEF_PREFIX, Schema, TYPES, all_of, any_of, ref_name

#: Prefix of generated definitions holding the complement of a bundle definition.
NOT_PREFIX = "not~"
#: Marks a definition whose body is being complemented inline inside a domain (a recursion guard).
INLINE_PREFIX = "not-within~"
#: A complement of a definition this small (JSON characters) is inlined rather than named.
INLINE_LIMIT = 2000

_NUMBER = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", NOT_MULTIPLE)
_STRING = ("minLength", "maxLength", "pattern", "format", NOT_PATTERN)
_ARRAY = ("prefixItems", "items", "minItems", "maxItems", "contains", "minContains", "maxContains", MARK)
_OBJECT = ("required", "properties", "patternProperties", "additionalProperties", "minProperties", "maxProperties",
           WITNESS)
_BY_TYPE: dict[str, tuple[str, ...]] = {"number": _NUMBER, "string": _STRING, "array": _ARRAY, "object": _OBJECT}
_LOCAL = frozenset({"type", "enum", "const", *_NUMBER, *_STRING, *_ARRAY, *_OBJECT})
_APPLICATORS = frozenset({"allOf", "anyOf", "oneOf", "$ref"})
_IGNORED = frozenset({"$defs"})


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    """Replace `not` by the complement of its (already lowered) operand, intersected with siblings."""
    if "not" not in node:
        return node
    rest = {k: v for k, v in node.items() if k != "not"}
    return conjoin(rest, negate(node["not"], ctx.at("not"), rest), node)


def negate(schema: Schema, ctx: LowerContext, within: Schema | None = None) -> Schema:
    """A lowered schema equivalent to {"not": schema} (on instances of `within`, if given).

    `schema` must be lowered already. Raises `not-exact` where no exact complement exists and
    `budget-exhausted` when the generated branches exceed the shared budget.
    """
    result = _negate(schema, ctx, Domain.of(within, ctx))
    return result if isinstance(result, bool) else ctx.lower(result)


def _negate(s: Schema, ctx: LowerContext, dom: Domain) -> Schema:
    if s is True:
        return False
    if s is False:
        return True
    if not isinstance(s, dict):
        raise reject("invalid-schema", ctx.pointer, "a schema must be an object or a boolean")
    if not dom.types or any(m is s or json_equal(m, s) for m in dom.members):
        return False  # every instance of the domain satisfies s (the same schema holds there)
    if dom.node and disjoint(dom.node, s, ctx):
        return True  # no instance of the domain satisfies s
    if dom.values is not None and evaluable(s):
        rejected = [v for v in dom.values if v not in _keep(accepted_values(s, list(dom.values), ctx))]
        return _enum(rejected)
    unknown = set(s) - _LOCAL - _APPLICATORS - _IGNORED
    if unknown:
        raise not_exact(ctx, f"`{sorted(unknown)[0]}`")
    name = ref_name(s)
    if name is not None and len(s) == 1:
        return _negate_ref_within(name, ctx, dom)
    disjuncts: list[Schema] = []
    full, branches = _local_complement({k: v for k, v in s.items() if k in _LOCAL}, ctx, dom, lambda: _names_keys(s, ctx, dom))
    if full:
        disjuncts.append({"type": _type_value(full)})
    disjuncts.extend(branches)
    for member in s.get("allOf", []):
        disjuncts.append(_negate(member, ctx, dom))
    if "oneOf" in s and not pairwise_disjoint(s["oneOf"], ctx):
        raise not_exact(ctx, "a `oneOf` whose branches may overlap")
    for kw in ("anyOf", "oneOf"):
        if kw in s:
            disjuncts.append(all_of([_negate(b, ctx, dom) for b in s[kw]]))
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
    if len(out) > 1:
        ctx.budget.reserve("entries", len(out), ctx.pointer)
    return any_of(out)


def _negate_ref_within(name: str, ctx: LowerContext, dom: Domain) -> Schema:
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
    """¬$ref: the complement of the definition, memoised as `not~<name>` (¬¬ref is the ref);
    from inside the definition's own recursion, `not~<name>` is promised (`LowerContext.defer`)
    and built by `_complement` once the definition's body is lowered."""
    if name.startswith(NOT_PREFIX) and name not in ctx.defs.source.defs:
        return {"$ref": DEF_PREFIX + name[len(NOT_PREFIX):]}
    key = NOT_PREFIX + name
    if key in ctx.defs.lowered:
        return {"$ref": DEF_PREFIX + key}
    if key in ctx.defs.in_progress:
        ctx.defs.handed.add(key)
        return {"$ref": DEF_PREFIX + key}
    if key in ctx.defs.derived:
        return ctx.defs.derived[key]
    target = ctx.deref({"$ref": DEF_PREFIX + name})
    if target is None:  # inside its own recursion: promised, built once its body is lowered
        if ctx.defer(name, key, lambda sub: _complement(name, sub)):
            return {"$ref": DEF_PREFIX + key}
        raise not_exact(ctx, f"definition {name!r} from inside its own recursion")
    # until registered, a reference to `key` met while building it (in its body, or in a
    # definition registered meanwhile, e.g. the complement of a definition `name` refers to
    # that refers back to `name`) is recorded in `handed`: `key` is then registered, not inlined
    mark = ctx.mark()
    ctx.defs.in_progress.add(key)
    ctx.defs.handed.discard(key)
    try:
        body = _negate(target, ctx, Domain())
        if key not in ctx.defs.handed:
            text = "" if isinstance(body, bool) else repr(body)
            if DEF_PREFIX + key not in text and len(text) <= INLINE_LIMIT:
                ctx.defs.derived[key] = body
                return body
        lowered = body if isinstance(body, bool) else ctx.lower(body)
    except CompileError:
        ctx.drop_since(mark)  # what was registered meanwhile may refer to `key`
        raise
    finally:
        ctx.defs.in_progress.discard(key)
        ctx.defs.handed.discard(key)
    return {"$ref": ctx.add_definition(key, lowered)}


def _complement(name: str, ctx: LowerContext) -> Schema:
    """The body of `not~<name>`, promised from inside `name`'s own recursion and built once
    `name`'s body is lowered; it may refer to `name` and to `not~<name>` in turn.

    Exact on finite instances: `_negate` keeps every `$ref` at the instance location of the
    original (De Morgan in place, `properties`/`items` complemented at the same key or position)
    and only swaps `X` and `not~X`, so an in-place edge between complements mirrors one between
    the definitions. Resolution refuses an in-place reference cycle ("without progress"), so
    every cycle of the result descends into a proper part of the instance, and `not~X(v) =
    ¬X(v)` follows by induction on (depth of v, rank in the acyclic in-place order).
    """
    target = ctx.deref({"$ref": DEF_PREFIX + name})
    assert target is not None, name  # the promise is built only once `name` can be read
    body = _negate(target, ctx, Domain())
    return body if isinstance(body, bool) else ctx.lower(body)


def _names_keys(s: dict[str, Any], ctx: LowerContext, dom: Domain) -> bool:
    """Whether the object branches of ¬`s` must name keys: `s` does, and the context they will
    be intersected with (the domain) does not already in every object it admits."""
    return names_in_place(s, lambda d: ctx.defs.lowered.get(d, ctx.defs.source.defs.get(d))) and not any(
        map(named_everywhere, (dom.node, *dom.members)))


def _local_complement(
    s: dict[str, Any], ctx: LowerContext, dom: Domain, named: Callable[[], bool]
) -> tuple[set[str], list[Schema]]:
    """(types wholly in the complement, branches each confined to one type) for the local
    keywords; the object branches name keys when the node they come from does (`named()`,
    asked only when one names none)."""
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
        start = len(branches)
        if values is not None:
            vals = [v for v in values if base_type(v) == t and (not integers or is_integer(v))]
            if not vals:
                full.add(t)
                continue
            branches.extend(_not_values(t, vals, ctx, dom))
        elif integers and not dom.integers:
            branches.append(non_multiples(1))  # the non-integer numbers
        for kw in _BY_TYPE.get(t, ()):
            if kw in s:
                branches.extend(_not_keyword(t, kw, s, ctx, dom))
        if t == "object" and not all(map(keys_named, branches[start:])) and named():
            # a branch that only counts (say) stands for the node: keys named like it (`key_names`)
            branches[start:] = [named_like(b) for b in branches[start:]]
    return full, branches


# ---- values -------------------------------------------------------------------------------


def _not_values(t: str, vals: list[Any], ctx: LowerContext, dom: Domain) -> list[Schema]:
    """Branches for the values of type `t` that are none of `vals` (all of type t)."""
    if t == "null":
        return []
    if t == "boolean":
        return [{"const": b} for b in (False, True) if b not in _keep(vals)]
    if t == "number":
        return not_numbers(vals, dom)
    if t == "string":
        if len(vals) == 1 and len(vals[0]) >= FLAT_FROM:
            return literal_complement(vals[0], ctx, prefix=False)
        return [{"type": "string", "pattern": string_complement(vals, ctx, prefix=False)}]
    parts = [_not_array(v, ctx) if t == "array" else _not_object(v, ctx) for v in vals]
    return [parts[0] if len(parts) == 1 else {"type": t, "allOf": parts}]


def _not_array(v: list[Any], ctx: LowerContext) -> Schema:
    """Arrays other than `v`: another length, or some position holding another value."""
    n = len(v)
    parts: list[Schema] = [{"type": "array", "minItems": n + 1}]
    if n:
        parts.append({"type": "array", "maxItems": n - 1})
    for i, item in enumerate(v):
        other = _negate({"const": item}, ctx, Domain())
        parts.append({"type": "array", "minItems": i + 1, "prefixItems": [True] * i + [other]})
    return _any(parts, ctx)


def _not_object(v: dict[str, Any], ctx: LowerContext) -> Schema:
    """Objects other than `v`: a key of v absent or holding another value, or more keys."""
    parts: list[Schema] = [{"type": "object", "minProperties": len(v) + 1}]
    for k, item in v.items():  # k absent, or present with another value: one branch
        parts.append({"type": "object", "properties": {k: _negate({"const": item}, ctx, Domain())}})
    return _any(parts, ctx)


# ---- strings ------------------------------------------------------------------------------


# ---- per-type keywords --------------------------------------------------------------------


_BOUND_FLIP = {
    "minimum": "exclusiveMaximum",
    "exclusiveMinimum": "maximum",
    "maximum": "exclusiveMinimum",
    "exclusiveMaximum": "minimum",
}


def _not_keyword(t: str, kw: str, s: dict[str, Any], ctx: LowerContext, dom: Domain) -> list[Schema]:
    v = s[kw]
    if kw in _BOUND_FLIP:
        return [{"type": "number", _BOUND_FLIP[kw]: v}]
    if kw == "multipleOf":
        return not_multiple(v, s, ctx, dom)
    if kw == NOT_MULTIPLE:  # a multiple of some step: a lowered node negated again (oneOf, if)
        return [{"type": "integer"} if exact(k) == 1 else {"type": "number", "multipleOf": k} for k in v]
    if kw in ("minLength", "minItems", "minProperties"):
        return [{"type": t, kw.replace("min", "max"): v - 1}] if v > 0 else []
    if kw in ("maxLength", "maxItems", "maxProperties"):
        return [{"type": t, kw.replace("max", "min"): v + 1}]
    if kw == "pattern":
        return not_pattern(v, ctx)
    if kw == NOT_PATTERN:  # some pattern matches: a lowered node negated again (oneOf, if)
        return [{"type": "string", "pattern": p} for p in v]
    if kw == "format":
        raise not_exact(ctx, f"`format` {v!r}")
    if kw == "required":
        named = s.get("properties", {})
        return [{"type": "object", "properties": {k: False}} for k in dict.fromkeys(v) if k not in named]
    if kw == "properties":
        return _not_properties(v, frozenset(s.get("required", ())), ctx, dom)
    if kw == "patternProperties":
        if all(sub is True for sub in v.values()):
            return []
        keys = dom.keys()
        if keys is None:  # some matching key, among keys not known: a witness (negation_objects)
            return pattern_breaks(v, ctx, lambda sub: _negate(sub, ctx, Domain()))
        return _present_breaking([(k, sub) for k in sorted(keys) for p, sub in v.items() if _search(p, k, ctx)], ctx, dom)
    if kw == "additionalProperties":
        if v is True:
            return []
        if v is False and not s.get("properties") and not s.get("patternProperties"):
            return [{"type": "object", "minProperties": 1}]
        keys = dom.keys()
        if keys is None:  # some additional key, among keys not known: a witness (negation_objects)
            return additional_breaks(s, ctx, lambda sub: _negate(sub, ctx, Domain()))
        named = s.get("properties", {})
        extra = [k for k in sorted(keys) if k not in named and not any(_search(p, k, ctx) for p in s.get("patternProperties", {}))]
        return _present_breaking([(k, v) for k in extra], ctx, dom)
    if kw == WITNESS:  # every key of the class breaks it: a lowered node negated again (oneOf, if)
        return universal(v, lambda sub: _negate(sub, ctx, Domain()))
    if kw == "prefixItems":
        out = []
        for i, sub in enumerate(v):
            other = _negate(sub, ctx, dom.item(i, ctx))
            if other is not False:
                out.append({"type": "array", "minItems": i + 1, "prefixItems": [True] * i + [other]})
        return out
    if kw == "items":
        return _not_items(v, s, ctx, dom)
    if kw == "contains":
        return _not_contains(v, s, ctx)
    if kw in ("minContains", "maxContains") or (kw == MARK and not v):
        return []  # read with `contains` (an empty MARK only says the writer counts matches)
    raise not_exact(ctx, f"`{kw}`")


def _not_properties(props: dict[str, Schema], required: frozenset[str], ctx: LowerContext, dom: Domain) -> list[Schema]:
    """Objects where some key of `props` breaks its schema, or (for a key also in `required`)
    is absent: one branch per key.

    For a key k both listed and required, "k absent" (from ¬required) and "k present and
    outside S" (from ¬properties) are one branch, `properties: {k: ¬S}`: one object node
    instead of a two-way anyOf, which an intersection (a oneOf branch ∧ the complements of its
    siblings, each keyed by its own required discriminator) would otherwise distribute.
    """
    keys = dom.keys()
    out: list[Schema] = []
    for k, sub in props.items():
        if keys is not None and k not in keys:  # no object of the domain has k
            if k in required:
                out.append({"type": "object", "properties": {k: False}})
            continue
        other = _negate(sub, ctx, dom.prop(k, ctx))
        if k in required:
            out.append({"type": "object"} if other is True else {"type": "object", "properties": {k: other}})
        elif other is True:
            out.append({"type": "object", "required": [k]})
        elif other is not False:
            out.append({"type": "object", "required": [k], "properties": {k: other}})
    return out


def _not_contains(target: Schema, s: dict[str, Any], ctx: LowerContext) -> list[Schema]:
    """Arrays with fewer than `minContains` (default 1) items in `target`, when that is 1: every
    item outside it. A `contains` the contains pass left in place (a recursive target, written by
    the Lark array writer) reaches here; other counts have no exact form here."""
    lo, hi = int(s.get("minContains", 1)), s.get("maxContains")
    if hi is not None or lo > 1:
        raise not_exact(ctx, "`contains` with `minContains` above 1 or a `maxContains`")
    if lo == 0:
        return []
    other = _negate(target, ctx, Domain())
    if other is False:
        return [{"type": "array", "maxItems": 0}]
    return [{"type": "array"} if other is True else {"type": "array", "items": other}]


def _not_items(items: Schema, s: dict[str, Any], ctx: LowerContext, dom: Domain) -> list[Schema]:
    """Some item past `prefixItems` breaks `items`: one branch per position below `maxItems`
    (of the node or the domain), or a `contains` of the complement when no prefix is involved.

    Each position's complement is taken inside that position's own domain: the domain's
    `prefixItems` give positions their own sub-domains, and a complement simplified with one
    position's facts (say "is a string") is wrong at another. Positions at or past the domain's
    prefix all share the `items` sub-domain, so their complement is computed once.
    """
    k = len(s.get("prefixItems", []))
    if items is True:
        return []
    if items is False:
        return [{"type": "array", "minItems": k + 1}]
    limits = [n for n in (s.get("maxItems"), dom.max_items()) if isinstance(n, int)]
    shared = max(k, dom.prefix_length())  # from here on, every position has the same domain
    if not limits:
        if k != 0:
            raise not_exact(ctx, "`items` past `prefixItems` on arrays of unbounded length (some item would have to break it)",
                            "bound the array with maxItems")
        # "some item breaks `items`" is `contains` of the complement; one complement serves every
        # position only when they share a domain (else: the complement within no domain)
        whole = _negate(items, ctx, dom.item(0, ctx) if shared == 0 else Domain())
        return [{"type": "array", "contains": whole}] if isinstance(whole, dict) else _item_breaks(0, whole)
    limit = min(limits)
    out: list[Schema] = []
    for j in range(k, min(shared, limit)):
        ctx.budget.reserve("entries", 1, ctx.pointer)
        out.extend(_item_breaks(j, _negate(items, ctx, dom.item(j, ctx))))
    if limit <= shared:
        return out
    other = _negate(items, ctx, dom.item(shared, ctx))
    if other is True:
        return [*out, {"type": "array", "minItems": shared + 1}]
    ctx.budget.reserve("entries", max(0, limit - shared), ctx.pointer)
    return [*out, *(b for j in range(shared, limit) for b in _item_breaks(j, other))]


def _item_breaks(j: int, other: Schema) -> list[Schema]:
    """Arrays whose item j exists and is in `other` (the complement of `items` there)."""
    if other is False:
        return []
    if other is True:
        return [{"type": "array", "minItems": j + 1}]
    return [{"type": "array", "minItems": j + 1, "prefixItems": [True] * j + [other]}]


def _present_breaking(pairs: list[tuple[str, Schema]], ctx: LowerContext, dom: Domain) -> list[Schema]:
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
    """Whether `pattern` matches `key` as the validator decides (ECMA-262 semantics)."""
    from schemac.regex import PatternError, ecma_search

    try:
        return ecma_search(pattern, key)
    except PatternError:
        raise not_exact(ctx, f"`patternProperties` with a pattern RE2 cannot run ({pattern!r})") from None


