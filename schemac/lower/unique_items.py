"""uniqueItems → an explicit set of arrays over finite item domains, or a proof it is a no-op.

Uniqueness is not expressible per position, so the exact form enumerates: each position's
domain (const/enum/boolean/null/bounded integer, filtered through its schema by the final
validator, so patterns have their one ECMA-262 meaning: `schemac.regex`) is finite, and the
distinct sequences within the length bounds become one `enum` of arrays (JSON equality, exact:
1 == 1.0, true != 1, objects by value). It is a no-op when at most one item
can exist, or when no two positions can hold equal values (their JSON types are disjoint).
More than `MAX_ARRAYS` arrays (up to 64 distinct values) are left to the Lark emit backend, which
tracks used values in a parametric grammar. Otherwise: `unique-items-unbounded`. Every array,
grammar alternative and candidate check is charged, and every loop over schema values counts
its steps.
"""
from __future__ import annotations

import math
from itertools import islice
from typing import Any, Callable, Iterator

from schemac.diagnostics import reject
from schemac.json_key import json_key
from schemac.lower.support.marks import MARK
from schemac.lower.contains import json_types
from schemac.lower.support.context import LowerContext
from schemac.numbers.exact import exact, is_number
from schemac.schema import Schema, child_pointer

_NON_ARRAY = ["null", "boolean", "object", "number", "string"]
#: An integer range longer than this is treated as unbounded (it could never fit the budget).
_MAX_RANGE = 256
#: More distinct arrays than this are written as a Lark grammar instead of an enum (a fixed
#: figure, so the choice never depends on how much budget is left).
MAX_ARRAYS = 256
#: The Lark form tracks used values in one 64-bit grammar parameter.
MAX_LARK_VALUES = 64


def _has_ref(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "$ref" in schema or any(_has_ref(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_ref(v) for v in schema)
    return False


def _candidates(schema: dict[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    types = json_types(schema)
    values: list[Any] = []
    if "null" in types:
        values.append(None)
    if "boolean" in types:
        values += [True, False]
    if types - {"null", "boolean"}:
        if types - {"null", "boolean", "integer"}:
            return None
        # candidates within the tightest bounds, exclusive ones included (the validator filters)
        lows = [exact(schema[k]) for k in ("minimum", "exclusiveMinimum") if is_number(schema.get(k))]
        highs = [exact(schema[k]) for k in ("maximum", "exclusiveMaximum") if is_number(schema.get(k))]
        if not lows or not highs:
            return None
        lo, hi = max(lows), min(highs)
        if hi - lo > _MAX_RANGE:
            return None
        values += list(range(math.ceil(lo), math.floor(hi) + 1))
    return values


def domain(schema: Schema, ctx: LowerContext, pointer: str) -> list[Any] | None:
    """The distinct values `schema` accepts, or None when that set is not known to be finite.

    Candidates go through the final validator (exact numbers, ECMA-262 patterns on RE2, the
    enforced formats), never plain jsonschema (Python `re`: other semantics, and exponential).
    """
    if schema is False:
        return []
    if not isinstance(schema, dict) or _has_ref(schema):
        return None
    values = _candidates(schema)
    if values is None:
        return None
    from schemac.lower.support.scalar_marks import lowered_validator
    from schemac.regex import PatternError

    ctx.budget.reserve("evaluations", len(values), pointer)
    try:
        check = lowered_validator(schema)  # a lowered item schema: its markers count
    except ValueError:  # a nested `$schema` of another dialect: not a domain we can compute
        return None
    seen: dict[str, Any] = {}
    for v in values:
        ctx.budget.step(pointer)
        key = json_key(v)
        try:
            if key not in seen and check.is_valid(v):
                seen[key] = v
        except PatternError:  # a pattern RE2 cannot run (a generated one): no domain we can prove
            return None
    return list(seen.values())


def _sequences(domains: list[list[Any]], lo: int, hi: int, tick: Callable[[], None]) -> Iterator[list[Any]]:
    """Distinct-valued sequences with lengths in [lo, hi], position i drawn from domains[i].

    Depth first with one iterator per position, so memory stays linear in `hi` however large
    the domains (callers stop after a few hundred sequences). `tick` runs at every step (a step
    of the budget): a search that finds few sequences may still walk many prefixes. Each
    domain's keys are computed once (positions share the `items` domain list).
    """
    if lo <= 0:
        yield []
    if hi <= 0 or lo > hi:
        return
    keyed: dict[int, list[tuple[str, Any]]] = {}
    for dom in domains:
        if id(dom) not in keyed:
            tick()
            keyed[id(dom)] = [(json_key(v), v) for v in dom]
    seq: list[Any] = []
    keys: list[str] = []
    used: set[str] = set()
    levels = [iter(keyed[id(domains[0])])]
    while levels:
        tick()
        for key, v in levels[-1]:
            if key not in used:
                break
        else:  # this position is exhausted: back to the previous one
            levels.pop()
            if seq:
                seq.pop()
                used.discard(keys.pop())
            continue
        seq.append(v)
        keys.append(key)
        used.add(key)
        if lo <= len(seq):
            yield list(seq)
        if len(seq) < hi:
            levels.append(iter(keyed[id(domains[len(seq)])]))
        else:
            used.discard(keys.pop())
            seq.pop()


def _may_clash(positions: list[Schema | None], last_repeats: bool) -> bool:
    """Whether two items could be equal: overlapping JSON types of two slots, or a repeated slot."""
    types = [None if s is None else json_types(s) for s in positions]
    for i, ti in enumerate(types):
        if last_repeats and i == len(types) - 1 and (ti is None or ti):
            return True
        if any(ti is None or tj is None or not ti.isdisjoint(tj) for tj in types[i + 1:]):
            return True
    return False


def _for_lark(out: dict[str, Any], domains: list[list[Any]], ctx: LowerContext, here: str) -> Schema:
    """The node as the Lark emit backend writes it (one bit per distinct value, so at most 64 values):
    its keywords, `uniqueItems`, and `MARK` with the values each position can take (the prefix
    positions, then the later items)."""
    distinct = {json_key(v) for dom in domains for v in dom}
    if len(distinct) > MAX_LARK_VALUES:
        raise reject("unique-items-unbounded", here,
                     f"`uniqueItems` over {len(distinct)} distinct item values: too many to enumerate the "
                     f"arrays, and more than the {MAX_LARK_VALUES} a grammar can track",
                     hint="bound the array with maxItems, or narrow the item enum")
    ctx.budget.reserve("entries", sum(len(d) for d in domains), here)
    return {**out, "uniqueItems": True, MARK: {"domains": domains}}


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    if node.get("uniqueItems") is not True:
        return {k: v for k, v in node.items() if k != "uniqueItems"} if "uniqueItems" in node else node
    here = child_pointer(ctx.pointer, "uniqueItems")
    out = {k: v for k, v in node.items() if k != "uniqueItems"}
    prefix = [ctx.deref(s) for s in out.get("prefixItems", [])]
    rest = ctx.deref(out.get("items", True))
    hi = out.get("maxItems")
    if rest is False:
        hi = len(prefix) if hi is None else min(int(hi), len(prefix))
    if hi is not None and int(hi) <= 1:
        return out
    lo = int(out.get("minItems", 0))
    # positions that can exist: prefix ones (up to hi), then the `items` slot, possibly repeated
    shown = prefix if hi is None else prefix[: int(hi)]
    positions = shown + ([rest] if hi is None or int(hi) > len(prefix) else [])
    repeats = hi is None or int(hi) > len(prefix) + 1
    if not _may_clash(positions, repeats and len(positions) > len(shown)):
        return out
    doms = [domain(s, ctx, here) if s is not None else None for s in positions]
    if any(d is None for d in doms):
        raise reject("unique-items-unbounded", here,
                     "`uniqueItems` over an item domain that is not a finite set of values",
                     hint="give the items an enum/const, or bound the array so at most one item fits")
    tail = doms[len(shown)] if len(positions) > len(shown) else []
    longest = len(shown) + len(tail) if positions else 0
    if hi is not None:
        longest = min(longest, int(hi))
    per_position = [doms[i] if i < len(shown) else tail for i in range(longest)]
    distinct = len({json_key(v) for dom in doms if dom for v in dom})
    longest = min(longest, distinct)  # no longer sequence has distinct items
    tick = lambda: ctx.budget.step(here)  # noqa: E731
    if sum(1 for _ in islice(_sequences(per_position, lo, longest, tick), MAX_ARRAYS + 1)) > MAX_ARRAYS:
        return _for_lark(out, doms[: len(shown)] + [tail if len(positions) > len(shown) else []], ctx, here)
    arrays: list[list[Any]] = []
    for seq in _sequences(per_position, lo, longest, tick):
        ctx.budget.reserve("entries", 1, here)
        arrays.append(seq)
    arrays.sort(key=len)
    allowed: Schema = {"enum": arrays} if arrays else False
    t = out.get("type")
    if t == "array" or t == ["array"]:
        return {**out, "allOf": list(out.get("allOf", [])) + [allowed]}
    return {**out, "allOf": list(out.get("allOf", [])) + [{"anyOf": [{"type": _NON_ARRAY}, allowed]}]}
