"""contains / minContains / maxContains → prefixItems alternatives over a bounded array length.

Exact forms, by case:
- `contains: false` (or no item can match): the count is 0; arrays are ruled out when
  minContains ≥ 1, otherwise the keyword is a no-op;
- every possible item matches (`contains: true`, or each position's schema implies it): the
  count is the length → min/maxItems;
- the length is bounded by N (maxItems, or prefixItems with items: false): with only a minimum
  m, anyOf over the C(N, m) position sets that hold matches (`prefixItems` of `true`/contains);
  with a maximum, anyOf over the exact set of matching positions, the others taking the
  complement of the contains schema (from the negation pass).
Unbounded arrays (and bounded ones needing more than `MAX_BRANCHES` alternatives) have no
practical JSON-Schema form: they keep their keywords plus `schemac.lower.support.marks.MARK` and are written
as Lark rules by the emitter, which rejects (`contains-unbounded`) where it cannot.
"""
from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Any

from schemac.diagnostics import reject
from schemac.lower.support.marks import MARK, MAX_ARRAY_STATES
from schemac.lower.support.context import LowerContext
from schemac.schema import Schema, child_pointer

#: JSON types with "number" split into integers and non-integers, so overlap is set intersection.
_ALL = frozenset({"null", "boolean", "object", "array", "string", "integer", "fraction"})
_NON_ARRAY = ["null", "boolean", "object", "number", "string"]
#: Bounded arrays needing more prefixItems alternatives than this are written in Lark instead
#: (a fixed figure, so the choice never depends on how much budget is left).
MAX_BRANCHES = 256


def _value_types(v: Any) -> frozenset[str]:
    if v is None:
        return frozenset({"null"})
    if isinstance(v, bool):
        return frozenset({"boolean"})
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer()):
        return frozenset({"integer"})
    if isinstance(v, float):
        return frozenset({"fraction"})
    return frozenset({"string" if isinstance(v, str) else "array" if isinstance(v, list) else "object"})


def json_types(schema: Schema) -> frozenset[str]:
    """An over-approximation of the JSON types `schema` accepts (split as in `_ALL`)."""
    if schema is False:
        return frozenset()
    if not isinstance(schema, dict):
        return _ALL
    found = _ALL
    t = schema.get("type")
    if t is not None:
        names = [t] if isinstance(t, str) else list(t) if isinstance(t, list) else []
        expanded: set[str] = set()
        for n in names:
            expanded |= {"integer", "fraction"} if n == "number" else {n}
        found = found & frozenset(expanded)
    if "const" in schema:
        found = found & _value_types(schema["const"])
    if isinstance(schema.get("enum"), list):
        found = found & frozenset().union(*[_value_types(v) for v in schema["enum"]])
    return found


def _implies(item: Schema, target: Schema) -> bool:
    """A cheap sufficient check that every value `item` accepts is accepted by `target`."""
    if item is False or target is True or target == {} or item == target:
        return True
    return isinstance(target, dict) and set(target) == {"type"} and json_types(item) <= json_types(target)


def _negate(schema: Schema, ctx: LowerContext) -> Schema:
    from schemac.lower.negation.complement import negate

    return negate(schema, ctx)


def _positions(node: dict[str, Any]) -> tuple[list[Schema], Schema, int | None]:
    """(prefix schemas, schema of later items, maximum length or None)."""
    prefix = list(node.get("prefixItems", []))
    rest = node.get("items", True)
    bound = node.get("maxItems")
    if rest is False:
        bound = len(prefix) if bound is None else min(int(bound), len(prefix))
    return prefix, rest, None if bound is None else int(bound)


def _branch_count(bound: int, lo: int, hi: int | None, cap: int = MAX_BRANCHES) -> int:
    """The number of prefixItems alternatives, or `cap + 1` once it passes `cap`.

    Bounded before it starts, whatever the schema's numbers: C(n, k) ≥ n for 0 < k < n, so a
    length bound past `cap` settles the answer at the first such k, and otherwise the loop runs
    at most `cap + 1` times over binomials of numbers ≤ `cap` (no big-integer arithmetic)."""
    counts = (lo,) if hi is None or hi >= bound else range(lo, hi + 1)
    total = 0
    for k in counts:
        if 0 < k < bound and bound > cap:
            return cap + 1
        total += comb(bound, k) if k <= bound else 0
        if total > cap:
            return cap + 1
    return total


def _for_lark(node: dict[str, Any], lo: int, hi: int | None, target: Schema, ctx: LowerContext) -> Schema:
    """The node as the Lark emit backend writes it: its own keywords, counts as integers, and `MARK`
    holding the complement of the contains schema when a maximum needs it."""
    counted = lo if hi is None else hi  # the writer keeps one state per count 0..counted
    if counted + 1 > MAX_ARRAY_STATES:
        raise reject("too-large", child_pointer(ctx.pointer, "minContains" if hi is None else "maxContains"),
                     f"counting {counted:,} matches needs more than the {MAX_ARRAY_STATES:,} grammar states an array may use")
    out = {k: v for k, v in node.items() if k not in ("minContains", "maxContains")}
    out["minContains"] = lo
    mark: dict[str, Any] = {}
    if hi is not None:
        out["maxContains"] = hi
        mark["not-contains"] = _negate(target, ctx)
    out[MARK] = mark
    return out


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    if "contains" not in node:
        return node
    here = child_pointer(ctx.pointer, "contains")
    out = {k: v for k, v in node.items() if k not in ("contains", "minContains", "maxContains")}
    lo = int(node.get("minContains", 1))
    hi = node.get("maxContains")
    hi = None if hi is None else int(hi)
    if hi is not None and hi < lo:
        return {**out, "allOf": list(out.get("allOf", [])) + [{"type": _NON_ARRAY}]}
    target = ctx.deref(node["contains"])
    if target is None:  # a recursive definition: only its rule can stand for it
        if hi is not None:
            raise reject("contains-unbounded", here, "`maxContains` over a recursive definition")
        return _for_lark(node, lo, hi, node["contains"], ctx)
    prefix, rest, bound = _positions(node)
    used = prefix + ([rest] if bound is None or bound > len(prefix) else [])
    if target is False or all(json_types(s).isdisjoint(json_types(target)) for s in used):
        if lo == 0:
            return out
        return {**out, "allOf": list(out.get("allOf", [])) + [{"type": _NON_ARRAY}]}
    if all(_implies(s, target) for s in used):
        if lo > 0:
            out["minItems"] = max(int(out.get("minItems", 0)), lo)
        if hi is not None:
            out["maxItems"] = min(int(out.get("maxItems", hi)), hi)
        return out
    if lo == 0 and hi is None:
        return out
    if lo == 0 and hi == 0:  # no item may match: every item takes the complement
        return {**out, "allOf": list(out.get("allOf", [])) + [{"items": _negate(target, ctx)}]}
    if bound is not None and lo > bound:
        return {**out, "allOf": list(out.get("allOf", [])) + [{"type": _NON_ARRAY}]}
    if bound is None or (count := _branch_count(bound, lo, hi)) > MAX_BRANCHES:
        return _for_lark(node, lo, hi, target, ctx)
    if lo == 0 and hi is not None and hi >= bound:  # at most `bound` items exist: no count can pass the maximum
        return out
    ctx.budget.reserve("entries", count, here)
    branches: list[Schema] = []
    if hi is None or hi >= bound:
        for chosen in combinations(range(bound), lo):
            ctx.budget.step(here)
            last = chosen[-1] + 1
            branches.append({"prefixItems": [target if i in chosen else True for i in range(last)],
                             "minItems": last})
    else:
        miss = _negate(target, ctx)
        for matches in range(lo, hi + 1):
            for chosen in combinations(range(bound), matches):
                ctx.budget.step(here)
                branch: dict[str, Any] = {"prefixItems": [target if i in chosen else miss for i in range(bound)]}
                if chosen:
                    branch["minItems"] = chosen[-1] + 1
                branches.append(branch)
    if not branches:
        return {**out, "allOf": list(out.get("allOf", [])) + [{"type": _NON_ARRAY}]}
    return {**out, "allOf": list(out.get("allOf", [])) + [{"anyOf": branches}]}
