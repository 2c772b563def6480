"""Keyword tables of the draft upgrade: what each old dialect knows, and how its keywords hold subschemas.

Data only (no logic), shared by `schemac.front.upgrade.walk` and `schemac.front.upgrade.translate`.
"""
from __future__ import annotations

TARGET_DIALECT = "2020-12"
TARGET_URI = "https://json-schema.org/draft/2020-12/schema"
OLD_DIALECTS: tuple[str, ...] = ("draft-04", "draft-06", "draft-07", "2019-09")
#: Dialects in which every keyword beside `$ref` is ignored.
REF_OVERRIDES = frozenset({"draft-04", "draft-06", "draft-07"})

# --- keyword tables --------------------------------------------------------------------------

_D4 = frozenset(
    {
        "id", "$schema", "$ref", "title", "description", "default", "multipleOf", "maximum",
        "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
        "additionalItems", "items", "maxItems", "minItems", "uniqueItems", "maxProperties",
        "minProperties", "required", "additionalProperties", "definitions", "properties",
        "patternProperties", "dependencies", "enum", "type", "format", "allOf", "anyOf", "oneOf",
        "not",
    }
)
_D6 = (_D4 - {"id"}) | {"$id", "const", "contains", "propertyNames", "examples"}
_D7 = _D6 | {"if", "then", "else", "$comment", "readOnly", "writeOnly", "contentMediaType", "contentEncoding"}
_D2019 = (_D7 - {"definitions", "dependencies"}) | {
    "$anchor", "$defs", "$recursiveRef", "$recursiveAnchor", "$vocabulary", "dependentRequired",
    "dependentSchemas", "unevaluatedItems", "unevaluatedProperties", "maxContains", "minContains",
    "deprecated", "contentSchema",
}
KNOWN: dict[str, frozenset[str]] = {"draft-04": _D4, "draft-06": _D6, "draft-07": _D7, "2019-09": _D2019}

#: 2020-12 keywords that would take effect (validation or identification) if left in place.
EFFECTIVE_2020 = frozenset(
    {
        "$id", "$anchor", "$dynamicAnchor", "$ref", "$dynamicRef", "$defs", "$vocabulary",
        "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems",
        "items", "contains", "properties", "patternProperties", "additionalProperties",
        "propertyNames", "unevaluatedItems", "unevaluatedProperties", "type", "enum", "const",
        "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
        "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains",
        "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
        "format", "contentSchema",
    }
)

ONE: dict[str, frozenset[str]] = {
    "draft-04": frozenset({"not", "additionalProperties"}),
    "draft-06": frozenset({"not", "additionalProperties", "contains", "propertyNames"}),
    "draft-07": frozenset({"not", "additionalProperties", "contains", "propertyNames", "if", "then", "else"}),
    "2019-09": frozenset(
        {
            "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else",
            "unevaluatedItems", "unevaluatedProperties", "contentSchema",
        }
    ),
}
LIST = frozenset({"allOf", "anyOf", "oneOf"})
MAP: dict[str, frozenset[str]] = {
    "draft-04": frozenset({"properties", "patternProperties"}),
    "draft-06": frozenset({"properties", "patternProperties"}),
    "draft-07": frozenset({"properties", "patternProperties"}),
    "2019-09": frozenset({"properties", "patternProperties", "dependentSchemas"}),
}
DEFS_CONTAINERS = ("$defs", "definitions")
#: Handled by a dedicated step of `_Upgrader._old`, never copied by the generic loop.
SPECIAL = frozenset(
    {
        "$schema", "$defs", "definitions", "items", "additionalItems", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "contains", "minContains", "maxContains",
        "$recursiveRef", "$recursiveAnchor",
    }
)

#: `SPECIAL` plus each old dialect's identifier keyword and its own dedicated step
SPECIAL_IN: dict[str, frozenset[str]] = {
    d: SPECIAL | {"id" if d == "draft-04" else "$id", "$anchor" if d == "2019-09" else "dependencies"}
    for d in KNOWN
}
