"""Custom 2020-12 dialects: a root `$schema` naming a metaschema schemac can read (a local file or
a mapped copy, `schemac.front.resolve.files`) whose `$vocabulary` selects the 2020-12 vocabularies in effect.

A keyword of a vocabulary the dialect leaves out is an unknown keyword there, an annotation that
constrains nothing, so it is dropped from every schema position before the dialect gate (the
document then reads as plain 2020-12); that is exact, not an approximation. A vocabulary schemac
does not know refuses the schema when the metaschema requires it (`true`) and is ignored when
it is optional (`false`), as the specification says. The format-assertion vocabulary makes
every `format` an assertion: an unenforceable one is an error, as with `strict_formats`.
A metaschema without `$vocabulary` of the 2020-12 dialect brings the default vocabularies.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemac.diagnostics import reject
from schemac.front.dialect.uri import DIALECT_2020_12, dialect_of
from schemac.schema import SUBSCHEMA_KEYWORDS, Schema

_VOCAB = "https://json-schema.org/draft/2020-12/vocab/"
#: each 2020-12 vocabulary's keywords (core's are never dropped: core is required)
KEYWORDS: dict[str, frozenset[str]] = {
    "core": frozenset({"$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
                       "$comment", "$defs"}),
    "applicator": frozenset({"prefixItems", "items", "contains", "additionalProperties", "properties",
                             "patternProperties", "dependentSchemas", "propertyNames", "if", "then", "else",
                             "allOf", "anyOf", "oneOf", "not"}),
    "unevaluated": frozenset({"unevaluatedItems", "unevaluatedProperties"}),
    "validation": frozenset({"type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
                             "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
                             "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
                             "required", "dependentRequired"}),
    "meta-data": frozenset({"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"}),
    "format-annotation": frozenset({"format"}),
    "format-assertion": frozenset({"format"}),
    "content": frozenset({"contentEncoding", "contentMediaType", "contentSchema"}),
}
#: what a 2020-12 metaschema without `$vocabulary` brings
DEFAULT = frozenset(KEYWORDS) - {"format-assertion"}


@dataclass(frozen=True)
class Dialect:
    """The vocabularies a custom metaschema puts in effect."""

    vocabularies: frozenset[str]

    @property
    def format_assertion(self) -> bool:
        return "format-assertion" in self.vocabularies

    def dropped(self) -> frozenset[str]:
        """Keywords no vocabulary in effect defines (a keyword two vocabularies share stays)."""
        kept = set().union(*(KEYWORDS[v] for v in self.vocabularies))
        return frozenset(set().union(*KEYWORDS.values()) - kept)


def dialect_from(uri: str, metaschema: Any) -> Dialect:
    """The dialect the metaschema at `uri` declares; `unsupported-dialect` where schemac cannot
    honour it (another base dialect, a required vocabulary it does not know, no core)."""
    def refuse(why: str) -> Exception:
        return reject("unsupported-dialect", "/$schema", f"dialect {uri!r}: {why}")

    if not isinstance(metaschema, dict) or dialect_of(metaschema.get("$schema")) != DIALECT_2020_12:
        raise refuse("its metaschema is not a 2020-12 metaschema; schemac compiles 2020-12 dialects only")
    declared = metaschema.get("$vocabulary")
    if declared is None:
        return Dialect(DEFAULT)
    if not isinstance(declared, dict) or not all(isinstance(v, bool) for v in declared.values()):
        raise refuse("its `$vocabulary` must map vocabulary URIs to true or false")
    known: set[str] = set()
    for vocab, required in declared.items():
        name = vocab[len(_VOCAB):] if vocab.startswith(_VOCAB) else None
        if name in KEYWORDS:
            known.add(name)
        elif required:
            raise refuse(f"it requires the vocabulary {vocab!r}, which schemac does not know")
    if "core" not in known:
        raise refuse("it leaves out the core vocabulary")
    return Dialect(frozenset(known))


def in_2020_12(schema: dict[str, Any], dialect: Dialect) -> Schema:
    """`schema` read in `dialect`, as a plain 2020-12 document: the keywords of the vocabularies
    left out removed from every schema position (a position only the kept applicators reach)."""
    drop = dialect.dropped()
    shapes = {kw: shape for kw, shape in {**SUBSCHEMA_KEYWORDS, "contentSchema": "one"}.items() if kw not in drop}

    def walk(node: Schema) -> Schema:
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for kw, value in node.items():
            if kw in drop:
                continue
            shape = shapes.get(kw)
            if shape == "one":
                value = walk(value)
            elif shape == "list" and isinstance(value, list):
                value = [walk(sub) for sub in value]
            elif shape == "map" and isinstance(value, dict):
                value = {k: walk(sub) for k, sub in value.items()}
            out[kw] = value
        return out

    result = walk(schema)
    assert isinstance(result, dict)
    return {**result, "$schema": "https://json-schema.org/draft/2020-12/schema"}
