"""Complements over open key sets: "some entry of a key class holds a value outside its schema".

`not: {additionalProperties: S}` holds iff some key listed in no `properties` and matched by no
`patternProperties` pattern holds a value in ¬S; `not: {patternProperties: {p: S}}` iff some key
p matches (listed or not) holds a value in ¬S. When the object's keys are not known no standard
keyword says "some entry" (only `not` does), so the complement is the `WITNESS` marker, which the
Lark object writer writes exactly and the validator reads as the `not` it stands for
(`scalar_marks.standard`). Negated again (¬¬, a oneOf complement of a lowered branch) a witness
is the universal form it came from, with the complement of its value schema.

This module only builds nodes; the complement of a value schema comes from the caller
(`negation._negate`, passed in so the two modules import in one direction only). The validator's
reading of the marker is `scalar_marks.standard`.
"""
from __future__ import annotations

from typing import Any, Callable

from schemac.lower.support.context import LowerContext
from schemac.lower.support.marks import WITNESS
from schemac.lower.negation.domain import not_exact
from schemac.schema import Schema

#: the complement of a (lowered) value schema, over all JSON values
Complement = Callable[[Schema], Schema]


def _checked(pattern: str, ctx: LowerContext) -> str:
    """`pattern`, once the validator's regex engine has compiled it (else `not-exact`)."""
    from schemac.regex import PatternError, ecma_search

    try:
        ecma_search(pattern, "")
    except PatternError:
        raise not_exact(ctx, f"`patternProperties` with a pattern RE2 cannot run ({pattern!r})") from None
    return pattern


def _witness(keys: dict[str, Any], value: Schema, ctx: LowerContext) -> list[Schema]:
    """The one branch "some key of class `keys` holds a value in `value`" (none when `value` is false)."""
    if value is False:
        return []
    lowered = value if isinstance(value, bool) else ctx.lower(value)
    if lowered is False:
        return []
    return [{"type": "object", WITNESS: [{**keys, "value": lowered}]}]


def pattern_breaks(patterns: dict[str, Schema], ctx: LowerContext, complement: Complement) -> list[Schema]:
    """¬patternProperties on objects whose keys are unknown: per pattern, a witness of its keys."""
    out: list[Schema] = []
    for p, sub in patterns.items():
        if sub is True:
            continue
        ctx.budget.reserve("entries", 1, ctx.pointer)
        out.extend(_witness({"pattern": _checked(p, ctx)}, complement(sub), ctx))
    return out


def additional_breaks(s: dict[str, Any], ctx: LowerContext, complement: Complement) -> list[Schema]:
    """¬additionalProperties on objects whose keys are unknown: a witness among the keys that are
    neither listed in `s`'s `properties` nor matched by its `patternProperties`."""
    ctx.budget.reserve("entries", 1, ctx.pointer)
    keys = {"keys": list(s.get("properties", {})), "patterns": [_checked(p, ctx) for p in s.get("patternProperties", {})]}
    return _witness({"other": keys}, complement(s["additionalProperties"]), ctx)


def universal(witnesses: list[dict[str, Any]], complement: Complement) -> list[Schema]:
    """¬(all of `witnesses`): one branch per witness, every key of its class holding a value
    outside its value schema (the exact standard form)."""
    out: list[Schema] = []
    for w in witnesses:
        other = complement(w["value"])
        if "pattern" in w:
            out.append({"type": "object", "patternProperties": {w["pattern"]: other}})
        else:
            cls = w["other"]
            node: dict[str, Any] = {"type": "object"}
            if cls["keys"]:
                node["properties"] = {k: True for k in cls["keys"]}
            if cls["patterns"]:
                node["patternProperties"] = {p: True for p in cls["patterns"]}
            out.append({**node, "additionalProperties": other})
    return out

