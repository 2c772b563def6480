"""Last pass: every keyword left must be one llguidance enforces in strict mode.

This is the backstop of the exactness promise: a construct no earlier pass lowered is rejected
here with its pointer, never passed on to be ignored.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import reject
from schemac.lower.support.marks import MARK, SCALAR_MARKS
from schemac.lower.support.context import LowerContext
from schemac.schema import Schema, child_pointer

#: Keywords llguidance 1.9.1 enforces (docs/json_schema.md). `oneOf` is passed on only where the
#: one_of pass left it; llguidance then accepts it only when it proves the branches disjoint,
#: and otherwise the emitter reports its error.
SUPPORTED: frozenset[str] = frozenset(
    {
        "$ref", "$defs", "type", "enum", "const", "allOf", "anyOf", "oneOf", "properties",
        "additionalProperties", "patternProperties", "required", "minProperties", "maxProperties",
        "items", "prefixItems", "minItems", "maxItems", "minLength", "maxLength", "pattern",
        "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    }
)


#: Array keywords the Lark emit backend (`schemac.emit.lark.writer`) writes, allowed only beside its marker.
LARK_ARRAY: frozenset[str] = frozenset({"contains", "minContains", "maxContains", "uniqueItems", MARK})


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    if SUPPORTED.issuperset(node):
        return node  # the common case, without building `allowed`
    allowed = (SUPPORTED | LARK_ARRAY if MARK in node else SUPPORTED) | SCALAR_MARKS
    for kw in node:
        if kw not in allowed:
            raise reject(
                "unsupported-keyword",
                child_pointer(ctx.pointer, kw),
                f"`{kw}` has no exact lowering here, and llguidance would not enforce it",
            )
    return node
