"""unevaluatedProperties / unevaluatedItems → additionalProperties / items, when the evaluated set is static.

The evaluated set is gathered from this node and the applicators that always apply with it
(allOf, $ref); anyOf/oneOf branches and if/then/else count only when every way through evaluates
the same set; dependentSchemas, contains and recursion make it dynamic → `unevaluated-dynamic`.
With a static set (names N, patterns R) the keyword is additionalProperties on the node after
listing N and R there as `true` entries (which changes no validity); for items, prefixItems
padded with `true` to the longest evaluated prefix, then `items`. The pass runs before the
passes that rewrite this node's applicators, so it reads them as the user wrote them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemac.diagnostics import reject
from schemac.lower.context import LowerContext
from schemac.schema import Schema, child_pointer, ref_name

_ITEM_DYNAMIC = ("contains",)
_PROP_DYNAMIC = ("dependentSchemas",)


@dataclass(frozen=True)
class Evaluated:
    """What a schema evaluates on every instance it accepts: names, patterns, or everything."""

    names: frozenset[str] = frozenset()
    patterns: frozenset[str] = frozenset()
    prefix: int = 0
    all_props: bool = False
    all_items: bool = False

    def __or__(self, other: "Evaluated") -> "Evaluated":
        return Evaluated(self.names | other.names, self.patterns | other.patterns,
                         max(self.prefix, other.prefix), self.all_props or other.all_props,
                         self.all_items or other.all_items)


class _Dynamic(Exception):
    pass


def _same(parts: list[Evaluated]) -> Evaluated:
    if any(p != parts[0] for p in parts[1:]):
        raise _Dynamic
    return parts[0]


def evaluated(schema: Schema, ctx: LowerContext, seen: frozenset[str] = frozenset()) -> Evaluated:
    """The static evaluated set of `schema`, or raise _Dynamic."""
    if not isinstance(schema, dict):
        return Evaluated()
    name = ref_name(schema)
    ev = Evaluated(
        frozenset(schema.get("properties", {})), frozenset(schema.get("patternProperties", {})),
        len(schema.get("prefixItems", [])),
        "additionalProperties" in schema or "unevaluatedProperties" in schema,
        "items" in schema or "unevaluatedItems" in schema,
    )
    if any(k in schema for k in _ITEM_DYNAMIC + _PROP_DYNAMIC + ("$dynamicRef",)):
        raise _Dynamic
    if name is not None:
        if name in seen:
            raise _Dynamic
        target = ctx.definition(name)
        if target is None:
            raise _Dynamic
        ev = ev | evaluated(target, ctx, seen | {name})
    for sub in schema.get("allOf", []):
        ev = ev | evaluated(sub, ctx, seen)
    for kw in ("anyOf", "oneOf"):
        branches = [b for b in schema.get(kw, []) if b is not False]
        if branches:
            ev = ev | _same([evaluated(b, ctx, seen) for b in branches])
    if "if" in schema:
        passed = evaluated(schema["if"], ctx, seen) | evaluated(schema.get("then", True), ctx, seen)
        ev = ev | _same([passed, evaluated(schema.get("else", True), ctx, seen)])
    return ev


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    if "unevaluatedProperties" not in node and "unevaluatedItems" not in node:
        return node
    rest = {k: v for k, v in node.items() if k not in ("unevaluatedProperties", "unevaluatedItems")}
    try:
        ev = evaluated(rest, ctx)
    except _Dynamic:
        kw = "unevaluatedProperties" if "unevaluatedProperties" in node else "unevaluatedItems"
        raise reject("unevaluated-dynamic", child_pointer(ctx.pointer, kw),
                     f"`{kw}` depends on which branch of an applicator matched",
                     hint="use additionalProperties/items, or give every branch the same properties") from None
    out = dict(rest)
    props_u = node.get("unevaluatedProperties", True)
    if props_u is not True and not ev.all_props:
        own = dict(out.get("properties", {}))
        out["properties"] = {**own, **{n: True for n in sorted(ev.names - set(own))}}
        if not out["properties"]:
            del out["properties"]
        if ev.patterns:
            own_p = dict(out.get("patternProperties", {}))
            out["patternProperties"] = {**own_p, **{p: True for p in sorted(ev.patterns - set(own_p))}}
        out["additionalProperties"] = props_u
    items_u = node.get("unevaluatedItems", True)
    if items_u is not True and not ev.all_items:
        prefix = list(out.get("prefixItems", []))
        out["prefixItems"] = prefix + [True] * (ev.prefix - len(prefix))
        if not out["prefixItems"]:
            del out["prefixItems"]
        out["items"] = items_u
    return out
