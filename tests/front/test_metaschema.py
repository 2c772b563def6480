"""Metaschema validation (issue 13): malformed keyword values are `invalid-schema` at their
pointer, all of them, before any pass runs; the fast path agrees with jsonschema everywhere."""
from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schemac
from schemac.front.metaschema.check import ECMA_PATTERNS, METASCHEMAS, metaschema_errors, metaschema_validator, valid_2020_12

ROOT = Path(__file__).resolve().parents[2]


def _errors(schema: Any, **options: Any) -> list[tuple[str, str]]:
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, use_cache=False, **options)
    return [(d.code, d.pointer) for d in err.value.diagnostics]


@pytest.mark.parametrize("schema, pointer", [
    ({"type": "array", "uniqueItems": 1}, "/uniqueItems"),
    ({"type": "array", "contains": {"type": "integer"}, "minContains": 0.5}, "/minContains"),
    ({"type": "array", "items": [{"type": "integer"}]}, "/items"),  # used to crash final validation
    ({"type": "integr"}, "/type"),  # used to be a grammar-error at /
    ({"properties": {"a": {"minLength": -1}}}, "/properties/a/minLength"),
    ({"multipleOf": 0}, "/multipleOf"),
    ({"required": ["a", "a"]}, "/required"),
    ({"type": ["string", "string"]}, "/type"),
    ({"anyOf": []}, "/anyOf"),
    ({"$defs": {"x": 3}}, "/$defs/x"),
    ({"dependencies": {"a": ["b", 1]}}, "/dependencies/a"),
    ({"$anchor": "a\n"}, "/$anchor"),  # ECMA `$` is the end of input (Python's also before a final \n)
    ({"$id": "https://x/y#frag"}, "/$id"),
    ({"maxLength": True}, "/maxLength"),
])
def test_malformed_values_are_invalid_schema_at_their_pointer(schema: Any, pointer: str) -> None:
    assert _errors(schema) == [("invalid-schema", pointer)]


def test_every_violation_is_reported() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integr"}, "b": {"minItems": "2"}},
              "required": "a", "items": [{}], "uniqueItems": 1}
    assert _errors(schema) == [("invalid-schema", p) for p in
                               ["/items", "/properties/a/type", "/properties/b/minItems", "/required", "/uniqueItems"]]


def test_items_array_hint_names_prefix_items() -> None:
    (found,) = metaschema_errors({"items": [{}]})
    assert found.hint is not None and "prefixItems" in found.hint


def test_drafts_are_checked_against_their_own_metaschema_under_upgrade() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "integer"}]}
    schemac.compile(draft7, upgrade_drafts=True, use_cache=False)  # the tuple form is draft-07's own
    assert _errors({**draft7, "minItems": "x"}, upgrade_drafts=True) == [("invalid-schema", "/minItems")]
    assert _errors({**draft7, "minItems": "x"}) == [("unsupported-dialect", "/$schema")]


def test_integral_numbers_are_integers() -> None:
    """2020-12 counts 1.0 as an integer; so do the loader's exact numbers."""
    schemac.compile({"type": "string", "minLength": 1.0}, use_cache=False)
    assert valid_2020_12({"minLength": Decimal("1.000")}) and not valid_2020_12({"minLength": Decimal("1.5")})


def test_formats_are_annotations_and_patterns_are_not_run() -> None:
    """The metaschema's `format: regex` must not make jsonschema run Python `re` on patterns."""
    for schema in ({"pattern": "[[:alpha:]"}, {"patternProperties": {"(": {}}}, {"$schema_x": 1},
                   {"$ref": "not a uri at all"}):
        assert metaschema_errors(schema) == []
        assert metaschema_validator("2020-12").is_valid(schema)


def test_every_metaschema_pattern_has_its_ecma_translation() -> None:
    from jsonschema_specifications import REGISTRY

    found: set[str] = set()
    stack: list[Any] = [REGISTRY.contents(uri) for uri in REGISTRY if "json-schema.org" in uri]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                found.add(node["pattern"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    assert found <= set(ECMA_PATTERNS)
    for dialect in METASCHEMAS:
        metaschema_validator(dialect).is_valid({"$anchor": "a", "$id": "x"})


def _documents() -> list[tuple[str, Any]]:
    """Every schema in testdata, the golden fixtures, the hostile corpus and the vendored suite."""
    out: list[tuple[str, Any]] = []
    paths = [*ROOT.glob("testdata/**/*.json"), *ROOT.glob("tests/hostile/**/*.json")]
    for path in sorted(paths):
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(data, dict) and "schema" in data:
            out.append((str(path), data["schema"]))
        elif isinstance(data, list):
            out.extend((f"{path}#{i}", g["schema"]) for i, g in enumerate(data) if isinstance(g, dict) and "schema" in g)
        else:
            out.append((str(path), data))
    return out


def test_fast_path_agrees_with_jsonschema_on_every_testdata_schema() -> None:
    reference = metaschema_validator("2020-12")
    docs = _documents()
    assert len(docs) > 100
    for name, doc in docs:
        assert valid_2020_12(doc) == reference.is_valid(doc), name


_KEYWORDS = ["$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment", "$defs",
             "$vocabulary", "prefixItems", "allOf", "anyOf", "oneOf", "items", "contains", "additionalProperties",
             "propertyNames", "if", "then", "else", "not", "unevaluatedItems", "unevaluatedProperties",
             "contentSchema", "properties", "patternProperties", "dependentSchemas", "type", "enum", "const",
             "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
             "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties", "pattern",
             "uniqueItems", "required", "dependentRequired", "title", "description", "deprecated", "readOnly",
             "writeOnly", "examples", "format", "contentEncoding", "contentMediaType", "definitions",
             "dependencies", "$recursiveAnchor", "$recursiveRef", "default", "x-unknown"]
_SCALARS = st.sampled_from([None, True, False, 0, 1, -1, 2, 0.5, 1.0, -0.0, 3.0, Decimal("2.00"), Decimal("0.1"),
                            "", "a", "a\n", "#", "a#", "#a", "1a", "_x", "a.b-c", "integer", "string", "integr",
                            "number", "array", "object", "null", "boolean"])


def _values(schemas: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    strings = st.lists(st.sampled_from(["a", "b", "integer", "string"]), max_size=3)
    return st.one_of(
        _SCALARS, schemas, strings, st.lists(_SCALARS, max_size=3), st.lists(schemas, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "http://x"]), st.one_of(schemas, _SCALARS, strings), max_size=3),
    )


SCHEMAS = st.recursive(
    st.one_of(st.booleans(), st.just({}), _SCALARS),
    lambda inner: st.dictionaries(st.sampled_from(_KEYWORDS), _values(inner), max_size=4),
    max_leaves=10,
)


@settings(max_examples=600, deadline=None)
@given(SCHEMAS)
def test_fast_path_agrees_with_jsonschema_on_generated_schemas(schema: Any) -> None:
    assert valid_2020_12(schema) == metaschema_validator("2020-12").is_valid(schema)
    assert (metaschema_errors(schema) == []) == valid_2020_12(schema)


def test_cli_locates_metaschema_errors(tmp_path: Path) -> None:
    """The CLI turns the pointer into line:column of the user's file."""
    from schemac.cli.runner import locate_all
    from schemac.front.locate import Locator

    text = '{\n  "type": "array",\n  "uniqueItems": 1\n}\n'
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(text, use_cache=False)
    (record,) = locate_all(err.value.diagnostics, lambda: Locator.from_json_text(text))
    assert (record["code"], record["pointer"], record["line"], record["column"]) == ("invalid-schema", "/uniqueItems", 3, 3)


# ---- the older drafts' fast path (issue 31: jsonschema took 1.7 ms per old-draft schema) -------

_OLD_KEYWORDS = ["id", "$id", "$schema", "$ref", "$comment", "title", "description", "default", "examples",
                 "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
                 "minLength", "pattern", "additionalItems", "items", "maxItems", "minItems", "uniqueItems",
                 "contains", "maxProperties", "minProperties", "required", "additionalProperties", "definitions",
                 "properties", "patternProperties", "dependencies", "propertyNames", "const", "enum", "type",
                 "format", "contentMediaType", "contentEncoding", "if", "then", "else", "allOf", "anyOf", "oneOf",
                 "not", "readOnly", "writeOnly", "$defs", "x-unknown"]
OLD_SCHEMAS = st.recursive(
    st.one_of(st.booleans(), st.just({}), _SCALARS),
    lambda inner: st.dictionaries(st.sampled_from(_OLD_KEYWORDS), _values(inner), max_size=4),
    max_leaves=10,
)


@pytest.mark.parametrize("dialect", ["draft-04", "draft-06", "draft-07"])
def test_old_draft_fast_path_never_passes_what_jsonschema_refuses(dialect: str) -> None:
    from schemac.front.metaschema.check import valid_old_draft

    reference = metaschema_validator(dialect)
    for name, doc in _documents():
        if valid_old_draft(doc, dialect):
            assert reference.is_valid(doc), name
        elif dialect != "draft-04":  # draft-04's `enum` of arrays or objects is left to jsonschema
            assert not reference.is_valid(doc), name


@settings(max_examples=600, deadline=None)
@given(OLD_SCHEMAS, st.sampled_from(["draft-04", "draft-06", "draft-07"]))
def test_old_draft_fast_path_agrees_with_jsonschema_on_generated_schemas(schema: Any, dialect: str) -> None:
    from schemac.front.metaschema.check import valid_old_draft

    fast, reference = valid_old_draft(schema, dialect), metaschema_validator(dialect).is_valid(schema)
    assert fast <= reference  # never valid where jsonschema refuses
    if dialect != "draft-04" or "enum" not in json.dumps(schema, default=str):
        assert fast == reference
    assert (metaschema_errors(schema, dialect) == []) == reference
