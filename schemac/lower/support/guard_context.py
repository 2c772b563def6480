"""Copy what a node's `properties` say about a value into the guards that test that value.

Children are lowered before their parent, so a guard such as `{"if": {"properties": {"n":
{"not": {"pattern": "a+b"}}}}}` is complemented without knowing that the node's own
`properties` make `n` an integer between 1 and 5, where the complement is just an enum. On every
instance of the node, a present property k already satisfies the node's `properties[k]` (Sₖ), so
a guard's `properties[k]` Gₖ may be replaced by Gₖ ∧ Sₖ in `if`, `not` and each `oneOf` branch
without changing what the node accepts; the conjunction then carries Sₖ's bounds (type,
integer range, enum/const, boolean) to where the finite enumeration of `analysis.finite_form`
can use them.
"""
from __future__ import annotations

from typing import Any

from schemac.schema import Schema


def contextualise(node: Schema) -> Schema | None:
    """`node` with its `properties` conjoined into the same properties of its `if`, `not` and
    `oneOf` branches; None when there is nothing to copy (or it is copied already)."""
    if not isinstance(node, dict):
        return None
    props = node.get("properties")
    if not isinstance(props, dict) or not props:
        return None
    out = dict(node)
    changed = False
    for kw in ("if", "not"):
        if kw in node:
            out[kw], moved = _bind(node[kw], props)
            changed |= moved
    if isinstance(node.get("oneOf"), list):
        branches = []
        for b in node["oneOf"]:
            bound, moved = _bind(b, props)
            branches.append(bound)
            changed |= moved
        out["oneOf"] = branches
    return out if changed else None


def _bind(sub: Schema, props: dict[str, Any]) -> tuple[Schema, bool]:
    """`sub` with each of its `properties[k]` conjoined with `props[k]`, and whether any was."""
    inner = sub.get("properties") if isinstance(sub, dict) else None
    if not isinstance(inner, dict):
        return sub, False
    out: dict[str, Any] = {}
    moved = False
    for k, g in inner.items():
        s = props.get(k, True)
        if s is True or g == s or (isinstance(g, dict) and isinstance(g.get("allOf"), list) and s in g["allOf"]):
            out[k] = g
        else:
            out[k] = {"allOf": [g, s]}
            moved = True
    return {**sub, "properties": out}, moved  # type: ignore[dict-item]
