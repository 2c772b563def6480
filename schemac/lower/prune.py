"""Drop what has no effect on validity: annotations, unknown keywords and keyword no-ops.

In 2020-12 unknown keywords are annotations, so removing them is exact. Removing them here keeps
later passes and the final `supported` check to the keywords that constrain instances.
"""
from __future__ import annotations

from typing import Any

from schemac.lower.support.context import LowerContext
from schemac.lower.support.marks import SCALAR_MARKS
from schemac.schema import ANNOTATION_KEYWORDS, Schema

#: Every 2020-12 keyword (core, applicator, validation, format, unevaluated) that is not an annotation.
VALIDATION_KEYWORDS: frozenset[str] = frozenset(
    {
        "$ref", "$dynamicRef", "$defs", "type", "enum", "const", "allOf", "anyOf", "oneOf", "not",
        "if", "then", "else", "dependentSchemas", "dependentRequired", "prefixItems", "items",
        "contains", "minContains", "maxContains", "properties", "patternProperties",
        "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
        "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
        "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties",
        "minProperties", "required", "format",
    }
)


#: what `lower` keeps of a node (the walker drops the rest as it copies, outside `explain`); the
#: scalar markers too, as a generated node holding one is lowered again (`lower_bundle` strips
#: a user's beforehand: in a user's schema they are unknown keywords)
KEPT: frozenset[str] = (VALIDATION_KEYWORDS - ANNOTATION_KEYWORDS) | SCALAR_MARKS


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    if node and KEPT.issuperset(node) and not _has_no_op(node):
        return node  # nothing to drop (most nodes): no copy
    out = {k: v for k, v in node.items() if k in KEPT}
    if "if" not in out:
        out.pop("then", None)
        out.pop("else", None)
    if "contains" not in out:
        out.pop("minContains", None)
        out.pop("maxContains", None)
    if out.get("uniqueItems") is False:
        del out["uniqueItems"]
    if out.get("required") == []:
        del out["required"]
    return out if out else True


def _has_no_op(node: dict[str, Any]) -> bool:
    """Whether `lower` would drop a keyword of `node` that is in `KEPT` (a keyword no-op)."""
    return (
        ("if" not in node and ("then" in node or "else" in node))
        or ("contains" not in node and ("minContains" in node or "maxContains" in node))
        or node.get("uniqueItems") is False
        or node.get("required") == []
    )
