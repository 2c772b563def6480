"""min/maxProperties next to optional properties → anyOf over which optional keys are present.

llguidance counts properties only when every key listed in `properties` is required (a `false`
entry counts as absent). So the node splits into branches in which each optional key is either
required or `false`, keeping min/maxProperties for the keys llguidance can count (required and
pattern/additional ones). Cheaper exact forms are used where they exist:
- no key can exist beyond `properties` (additionalProperties false, no patternProperties): the
  count is the number of present listed keys, so no branch needs a count: "at least r present"
  is C(k, r) branches requiring r keys, "at most s" is C(k, k - s) branches forbidding k - s,
  both together one branch per admissible subset;
- only a minimum r above the required keys: either r optional keys are present (C(k, r) branches
  that just require them) or fewer are and the remainder comes from other keys (counted).
Every branch is charged to the budget; otherwise llguidance's own allOf intersection is used.
Count keywords written as integral floats (`2.0`) are rewritten as integers llguidance reads.
"""
from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Any

from schemac.lower.support.context import LowerContext
from schemac.numbers.exact import exact, is_integral
from schemac.schema import Schema, child_pointer


def _branch(props: dict[str, Schema], present: tuple[str, ...], optional: list[str],
            required: list[str], counts: dict[str, int]) -> dict[str, Any]:
    return {
        "properties": {k: (False if k in optional and k not in present else v) for k, v in props.items()},
        "required": required + [k for k in optional if k in present],
        **counts,
    }


#: Count keywords llguidance reads only as JSON integers; 2020-12 allows any integer value (2.0).
_COUNTS = ("minProperties", "maxProperties", "minItems", "maxItems", "minLength", "maxLength")


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    for kw in _COUNTS:
        value = node.get(kw)
        if isinstance(value, float) and is_integral(value):
            node = {**node, kw: int(exact(value))}  # 1e23 means 10**23, not int(1e23)
    if "minProperties" not in node and "maxProperties" not in node:
        return node
    props = node.get("properties", {})
    required = list(node.get("required", []))
    optional = [k for k, v in props.items() if v is not False and k not in required]
    if not optional:
        return node
    here = child_pointer(ctx.pointer, "minProperties" if "minProperties" in node else "maxProperties")
    lo = int(node.get("minProperties", 0))
    hi = node.get("maxProperties")
    hi = None if hi is None else int(hi)
    base = len(set(required))
    closed = node.get("additionalProperties", True) is False and not node.get("patternProperties")
    k = len(optional)
    if lo <= base:
        lo = 0  # the required keys alone reach the minimum
    if hi is not None and closed and base + k <= hi:
        hi = None  # not even every listed key reaches the maximum
    out = {kw: v for kw, v in node.items() if kw not in ("minProperties", "maxProperties")}
    if lo == 0 and hi is None:
        return out
    branches: list[dict[str, Any]] = []
    if hi is None:
        # r optional keys present (no count needed), or fewer and the rest counted among others
        r = lo - base
        fewer = [] if closed else list(range(min(r, k + 1)))
        ctx.budget.reserve("entries", (comb(k, r) if r <= k else 0) + sum(comb(k, j) for j in fewer), here)
        if r <= k:
            for present in combinations(optional, r):
                branches.append({"required": required + list(present)})
        for j in fewer:
            for present in combinations(optional, j):
                branches.append(_branch(props, present, optional, required, {"minProperties": lo}))
    elif closed and lo == 0:
        # at most s optional keys present: some k - s of them are absent
        s = hi - base
        ctx.budget.reserve("entries", comb(k, k - s) if s >= 0 else 0, here)
        for absent in combinations(optional, k - s) if s >= 0 else ():
            branches.append({"properties": {o: False for o in absent}})
    else:
        counts = {} if closed else {"maxProperties": hi, **({"minProperties": lo} if lo else {})}
        sizes = [j for j in range(k + 1) if base + j <= hi and (not closed or lo <= base + j)]
        ctx.budget.reserve("entries", sum(comb(k, j) for j in sizes), here)
        for j in sizes:
            for present in combinations(optional, j):
                branches.append(_branch(props, present, optional, required, counts))
    for b in branches:
        if not b.get("required", True):
            del b["required"]
    if not branches:
        return {**out, "allOf": list(out.get("allOf", [])) + [{"type": ["null", "boolean", "array", "number", "string"]}]}
    if len(branches) == 1:  # the branch's keywords join the node's: its `properties` may name
        # only the keys it forbids, and replacing the node's map would make the others additional
        branch = branches[0]
        joined = {**out, **branch}
        if "properties" in branch:
            joined["properties"] = {**out.get("properties", {}), **branch["properties"]}
        return joined
    return {**out, "allOf": list(out.get("allOf", [])) + [{"anyOf": branches}]}
