"""Draft upgrade (schemac.front.upgrade.translate): golden rules, ref re-aiming, limits, and agreement between the
original draft's jsonschema validator and Draft202012Validator on the upgraded schema."""
from __future__ import annotations

import copy
import functools
import json
import pathlib
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referencing import Registry

from schemac.diagnostics import CODES, CompileError
from schemac.front.upgrade.translate import TARGET_URI, dialect_of, upgrade

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "upgrade"

VALIDATORS: dict[str, type] = {
    "draft-04": jsonschema.Draft4Validator,
    "draft-06": jsonschema.Draft6Validator,
    "draft-07": jsonschema.Draft7Validator,
    "2019-09": jsonschema.Draft201909Validator,
}


def original_valid(schema: Any, dialect: str, instance: Any) -> bool:
    return VALIDATORS[dialect](schema, registry=Registry()).is_valid(instance)


def upgraded_valid(schema: Any, instance: Any) -> bool:
    return jsonschema.Draft202012Validator(schema, registry=Registry()).is_valid(instance)


def assert_agree(schema: Any, dialect: str, instances: list[Any]) -> Any:
    """Upgrade once, then every instance must get the same verdict under both validators."""
    before = copy.deepcopy(schema)
    up = upgrade(schema, dialect)
    assert schema == before, "upgrade mutated its input"
    for inst in instances:
        assert original_valid(schema, dialect, inst) == upgraded_valid(up, inst), (inst, up)
    return up


def body(out: Any) -> Any:
    """The upgraded schema without its root `$schema` (which every golden shares)."""
    assert out["$schema"] == TARGET_URI
    return {k: v for k, v in out.items() if k != "$schema"}


# --- dialect_of ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "uri, dialect",
    [
        ("http://json-schema.org/draft-04/schema#", "draft-04"),
        ("http://json-schema.org/draft-04/schema", "draft-04"),
        ("https://json-schema.org/draft-04/schema#", "draft-04"),
        ("http://json-schema.org/draft-04/", "draft-04"),
        ("http://json-schema.org/draft-06/schema#", "draft-06"),
        ("http://json-schema.org/draft-07/schema#", "draft-07"),
        ("https://json-schema.org/draft-07/schema", "draft-07"),
        ("http://json-schema.org/draft-07#", "draft-07"),
        ("https://json-schema.org/draft/2019-09/schema", "2019-09"),
        ("https://json-schema.org/draft/2019-09/schema#", "2019-09"),
        ("http://json-schema.org/draft/2019-09/schema", "2019-09"),
        ("https://json-schema.org/draft/2020-12/schema", "2020-12"),
        ("https://json-schema.org/draft/2020-12/schema#", "2020-12"),
        ("https://json-schema.org/draft/2020-12", "2020-12"),
    ],
)
def test_dialect_of_spellings(uri: str, dialect: str) -> None:
    assert dialect_of(uri) == dialect


@pytest.mark.parametrize(
    "uri",
    ["http://json-schema.org/draft-03/schema#", "http://example.com/draft-07/schema#",
     "json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2021-01/schema", ""],
)
def test_dialect_of_unknown(uri: str) -> None:
    assert dialect_of(uri) is None


# --- golden rules --------------------------------------------------------------------------


def test_root_schema_replaced_and_nested_removed() -> None:
    out = upgrade(
        {"$schema": "http://json-schema.org/draft-07/schema#",
         "properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}}},
        "draft-07",
    )
    assert out == {"$schema": TARGET_URI, "properties": {"a": {"type": "string"}}}


def test_definitions_become_defs_and_refs_follow() -> None:
    src = {
        "definitions": {"a": {"type": "integer"}},
        "properties": {
            "definitions": {"$ref": "#/definitions/a"},
            "b": {"$ref": "#/properties/definitions"},
        },
    }
    assert body(upgrade(src, "draft-07")) == {
        "properties": {
            "definitions": {"$ref": "#/$defs/a"},
            "b": {"$ref": "#/properties/definitions"},
        },
        "$defs": {"a": {"type": "integer"}},
    }


def test_refs_with_base_id_prefix_are_rewritten() -> None:
    src = {"id": "http://x.test/root.json", "definitions": {"a": {"type": "integer"}},
           "properties": {"p": {"$ref": "http://x.test/root.json#/definitions/a"},
                          "q": {"$ref": "root.json#/definitions/a"}}}
    out = body(upgrade(src, "draft-04"))
    assert out["$id"] == "http://x.test/root.json"
    assert out["properties"] == {"p": {"$ref": "http://x.test/root.json#/$defs/a"},
                                 "q": {"$ref": "root.json#/$defs/a"}}


def test_definitions_and_defs_merge_without_clobbering() -> None:
    src = {"definitions": {"a": {"type": "integer"}}, "$defs": {"a": {"type": "string"}},
           "properties": {"i": {"$ref": "#/definitions/a"}, "s": {"$ref": "#/$defs/a"}}}
    out = assert_agree(src, "draft-07", [{"i": 1, "s": "x"}, {"i": "x"}, {"s": 1}, {"i": 1.5}])
    assert out["$defs"] == {"a": {"type": "string"}, "a-definitions": {"type": "integer"}}
    assert out["properties"]["i"] == {"$ref": "#/$defs/a-definitions"}


def test_array_items_become_prefix_items() -> None:
    src = {"items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False}
    assert body(upgrade(src, "draft-06")) == {
        "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False}
    assert body(upgrade({"items": [{"type": "string"}]}, "draft-04")) == {
        "prefixItems": [{"type": "string"}]}
    assert body(upgrade({"items": [], "additionalItems": {"type": "null"}}, "2019-09")) == {
        "items": {"type": "null"}}


def test_additional_items_ignored_without_array_items() -> None:
    assert body(upgrade({"items": {"type": "string"}, "additionalItems": False}, "draft-07")) == {
        "items": {"type": "string"}}
    assert body(upgrade({"additionalItems": False}, "draft-04")) == {}


def test_ref_into_array_items_and_additional_items() -> None:
    src = {"items": [{"type": "string"}], "additionalItems": {"$ref": "#/items/0"}}
    out = assert_agree(src, "draft-07", [["a", "b"], ["a", 1], [1], []])
    assert out["items"] == {"$ref": "#/prefixItems/0"}
    # a ref to an additionalItems that the old draft ignores still resolves to that schema
    src = {"properties": {"a": {"$ref": "#/properties/b/additionalItems"}},
           "definitions": {}, "type": "object"}
    src["properties"]["b"] = {"items": {}, "additionalItems": {"type": "integer"}}
    out = assert_agree(src, "draft-07", [{"a": 1}, {"a": "x"}, {"b": ["x"]}])
    assert out["properties"]["a"]["$ref"].startswith("#/properties/b/$defs/")


def test_dependencies_split() -> None:
    src = {"dependencies": {"a": ["b"], "c": {"required": ["d"]}, "e": False}}
    assert body(upgrade(src, "draft-04")) == {
        "dependentRequired": {"a": ["b"]},
        "dependentSchemas": {"c": {"required": ["d"]}, "e": False},
    }
    assert_agree(src, "draft-07", [{}, {"a": 1}, {"a": 1, "b": 2}, {"c": 1}, {"c": 1, "d": 1}, {"e": 1}, 3])


def test_draft04_boolean_exclusive_bounds() -> None:
    assert body(upgrade({"minimum": 3, "exclusiveMinimum": True}, "draft-04")) == {"exclusiveMinimum": 3}
    assert body(upgrade({"maximum": 3, "exclusiveMaximum": False}, "draft-04")) == {"maximum": 3}
    assert body(upgrade({"exclusiveMaximum": True}, "draft-04")) == {}
    # later drafts: numeric forms, unchanged
    assert body(upgrade({"minimum": 1, "exclusiveMaximum": 3}, "draft-06")) == {
        "minimum": 1, "exclusiveMaximum": 3}
    src = {"minimum": 0, "exclusiveMinimum": True, "maximum": 10, "exclusiveMaximum": True}
    assert_agree(src, "draft-04", [0, 0.5, 10, 9.99, -1, "x"])
    with pytest.raises(CompileError) as err:
        upgrade({"minimum": 1, "exclusiveMinimum": 1}, "draft-04")
    assert err.value.codes == ["invalid-schema"]


def test_draft04_id_and_anchors() -> None:
    src = {"id": "http://x.test/s.json", "properties": {
        "id": {"type": "string"},
        "a": {"id": "#foo", "type": "integer"},
        "b": {"$ref": "#foo"},
    }, "enum": [{"id": "#not-an-anchor"}], "default": {"id": "x"}}
    out = body(upgrade(src, "draft-04"))
    assert out["$id"] == "http://x.test/s.json" and "id" not in out
    assert out["properties"]["id"] == {"type": "string"}
    assert out["properties"]["a"] == {"$anchor": "foo", "type": "integer"}
    assert out["properties"]["b"] == {"$ref": "#foo"}
    assert out["enum"] == [{"id": "#not-an-anchor"}] and out["default"] == {"id": "x"}


def test_draft07_fragment_id_becomes_anchor() -> None:
    src = {"definitions": {"n": {"$id": "#num", "type": "number"}}, "$ref": "#num"}
    out = assert_agree(src, "draft-07", [1, "x"])
    assert out["$defs"]["n"] == {"$anchor": "num", "type": "number"}
    # a base URI with a name names this node inside that resource (draft-07 8.2.3; jsonschema's
    # referencing does not implement this form, so the oracle here is the spec)
    src = {"$id": "http://x.test/r", "properties": {"g": {"$id": "http://x.test/r#g", "type": "string"}},
           "additionalProperties": {"$ref": "#g"}}
    out = upgrade(src, "draft-07")
    assert out["properties"]["g"] == {"$anchor": "g", "type": "string"}
    assert [upgraded_valid(out, i) for i in ({"g": "a", "h": "b"}, {"h": 1})] == [True, False]


def test_keywords_unknown_to_old_draft_are_dropped() -> None:
    src = {"const": 1, "contains": {"type": "string"}, "if": {}, "$anchor": "a", "x-custom": 2,
           "$comment": "kept", "type": "integer"}
    assert body(upgrade(src, "draft-04")) == {"x-custom": 2, "$comment": "kept", "type": "integer"}
    assert body(upgrade({"if": {"type": "string"}, "then": False, "minContains": 2,
                         "unevaluatedProperties": False}, "draft-06")) == {}


def test_ref_siblings_dropped_but_definitions_kept() -> None:
    src = {"definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "minLength": 3,
           "$id": "http://elsewhere.test/", "properties": {"a": {"type": "integer"}}}
    out = assert_agree(src, "draft-07", ["", "ab", "abcd", 1])
    assert body(out) == {"$ref": "#/$defs/s", "$defs": {"s": {"type": "string"}}}


def test_ref_into_ignored_sibling_stays_reachable() -> None:
    src = {"properties": {"x": {"$ref": "#/properties/y/properties/z"},
                          "y": {"$ref": "#/definitions/any", "properties": {"z": {"type": "string"}}}},
           "definitions": {"any": {}}}
    out = assert_agree(src, "draft-07", [{"x": "a"}, {"x": 1}, {"y": {"z": 1}}])
    assert out["properties"]["y"]["$ref"] == "#/$defs/any"
    assert "properties" not in out["properties"]["y"]


def test_ref_into_unknown_keyword_is_translated_as_old_draft() -> None:
    src = {"x-lib": {"t": {"items": [{"type": "string"}], "additionalItems": False}},
           "allOf": [{"$ref": "#/x-lib/t"}]}
    out = assert_agree(src, "draft-07", [["a"], ["a", "b"], [1], []])
    assert out["x-lib"] == src["x-lib"]  # the data stays as written


def test_unresolvable_pointer_is_rejected() -> None:
    with pytest.raises(CompileError) as err:
        upgrade({"properties": {"a": {"$ref": "#/$defs/missing"}}, "definitions": {"missing": {}}},
                "draft-07")
    assert err.value.codes == ["unresolvable-ref"]


def test_values_are_never_rewritten() -> None:
    value = {"definitions": {"a": 1}, "items": [1], "$ref": "#/definitions/a", "id": "#x"}
    src = {"const": value, "enum": [value], "examples": [value], "default": value}
    assert body(upgrade(src, "draft-06")) == {"const": value, "enum": [value], "examples": [value],
                                              "default": value}


def test_nested_resource_of_other_draft() -> None:
    src = {"$schema": "http://json-schema.org/draft-07/schema#",
           "properties": {
               "old": {"$schema": "http://json-schema.org/draft-04/schema#", "id": "http://x.test/old",
                       "minimum": 1, "exclusiveMinimum": True, "const": 5},
               "new": {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "http://x.test/new",
                       "prefixItems": [{"type": "string"}], "items": False},
           }}
    out = upgrade(src, "draft-07")
    assert out["properties"]["old"] == {"$id": "http://x.test/old", "exclusiveMinimum": 1}
    assert out["properties"]["new"] == {"$id": "http://x.test/new", "prefixItems": [{"type": "string"}],
                                        "items": False}
    with pytest.raises(CompileError) as err:
        upgrade({"properties": {"a": {"$schema": "http://example.test/mine"}}}, "draft-07")
    assert err.value.codes == ["unsupported-dialect"]


def test_recursive_ref_2019() -> None:
    # JSON Schema Test Suite draft2019-09 recursiveRef.json: "$recursiveRef with nesting"
    src = {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "http://localhost:4242/recursiveRef2/schema.json",
        "$defs": {
            "myobject": {
                "$id": "myobject.json", "$recursiveAnchor": True,
                "anyOf": [{"type": "string"},
                          {"type": "object", "additionalProperties": {"$recursiveRef": "#"}}],
            }
        },
        "anyOf": [{"type": "integer"}, {"$ref": "#/$defs/myobject"}],
    }
    out = assert_agree(src, "2019-09", [1, "a", {"f": "a"}, {"f": {"g": 1}}, {"f": {"g": True}}, True])
    assert out["$defs"]["myobject"]["$dynamicAnchor"] == "meta"
    # "$recursiveRef without $recursiveAnchor works like $ref"
    src = {"properties": {"foo": {"$recursiveRef": "#"}}, "additionalProperties": False}
    out = assert_agree(src, "2019-09", [{"foo": False}, {"foo": {"foo": False}}, {"bar": False},
                                        {"foo": {"bar": False}}])
    assert out["properties"]["foo"] == {"$ref": "#"}
    # extending a recursive schema: the outer anchored schema wins
    src = {"$id": "http://x.test/strict", "$recursiveAnchor": True,
           "$ref": "tree", "unevaluatedProperties": False,
           "$defs": {"tree": {"$id": "http://x.test/tree", "$recursiveAnchor": True, "type": "object",
                              "properties": {"data": True,
                                             "children": {"type": "array", "items": {"$recursiveRef": "#"}}}}}}
    assert_agree(src, "2019-09", [{"children": [{"daat": 1}]}, {"children": [{"data": 1}]}, {"x": 1}])


def test_recursive_ref_non_contiguous_chain_is_rejected() -> None:
    src = {"$id": "http://x.test/a", "$recursiveAnchor": True, "$ref": "b",
           "$defs": {"b": {"$id": "http://x.test/b", "$ref": "c"},
                     "c": {"$id": "http://x.test/c", "$recursiveAnchor": True,
                           "items": {"$recursiveRef": "#"}}}}
    with pytest.raises(CompileError) as err:
        upgrade(src, "2019-09")
    assert err.value.codes == ["dynamic-ref"]


def test_contains_with_unevaluated_items_2019() -> None:
    # 2019-09 (9.3.1.3) lets only items/additionalItems/unevaluatedItems mark items evaluated;
    # 2020-12 adds contains. jsonschema's Draft201909Validator counts contains (2020-12 style),
    # so the oracle here is the 2019-09 text, checked on the upgraded schema.
    src = {"contains": {"type": "string"}, "unevaluatedItems": False}
    out = upgrade(src, "2019-09")
    assert body(out) == {"allOf": [{"not": {"not": {"contains": {"type": "string"}}}}],
                         "unevaluatedItems": False}
    assert [upgraded_valid(out, i) for i in ([], ["a"], [1])] == [False, False, False]
    src = {"contains": {"const": 1}, "minContains": 2, "items": [True], "unevaluatedItems": {"type": "integer"}}
    out = upgrade(src, "2019-09")
    assert [upgraded_valid(out, i) for i in ([1, 1], ["x", 1, 1], [1, "x", 1], [1], [1, 1, 2])] == [
        True, True, False, False, True]
    # without unevaluatedItems anywhere, contains is left as it is
    assert body(upgrade({"contains": {"type": "string"}, "maxContains": 1}, "2019-09")) == {
        "contains": {"type": "string"}, "maxContains": 1}


def test_every_emitted_code_is_documented() -> None:
    for code in ("too-large", "invalid-schema", "unsupported-dialect", "unresolvable-ref", "dynamic-ref"):
        assert code in CODES


# --- limits --------------------------------------------------------------------------------


def _deep(depth: int, keyword: str) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        node = {keyword: node}
    return node


@pytest.mark.parametrize("keyword", ["not", "const", "additionalItems"])
def test_ten_thousand_deep_raises_too_large(keyword: str) -> None:
    with pytest.raises(CompileError) as err:
        upgrade(_deep(10_000, keyword), "draft-07")
    assert err.value.codes == ["too-large"]


def test_depth_within_limit_is_fine() -> None:
    out = upgrade(_deep(200, "not"), "draft-04")
    assert out["not"]["not"]["not"] is not None


def test_boolean_root_and_bad_dialect() -> None:
    assert upgrade(True, "draft-07") is True
    with pytest.raises(CompileError) as err:
        upgrade({}, "draft-03")
    assert err.value.codes == ["unsupported-dialect"]


# --- agreement on curated maskbench schemas --------------------------------------------------


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.stem)
def test_maskbench_fixture_agreement(path: pathlib.Path) -> None:
    doc = json.loads(path.read_text())
    dialect = dialect_of(doc["schema"]["$schema"])
    assert dialect in VALIDATORS
    assert doc["tests"]
    for test in doc["tests"]:
        assert original_valid(doc["schema"], dialect, test["data"]) == test["valid"]
    assert_agree(doc["schema"], dialect, [t["data"] for t in doc["tests"]])


def test_fixture_set_covers_rules() -> None:
    text = "".join(p.read_text() for p in FIXTURES.glob("*.json"))
    for needle in ('"dependencies"', '"additionalItems"', '"definitions"', '"id"', '"$ref"',
                   "draft-04", "draft-06", "draft-07", "2019-09"):
        assert needle in text, needle


# --- property tests ------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False)
    | st.sampled_from(["", "a", "b", "abc", "x"]),
    lambda kids: st.lists(kids, max_size=4)
    | st.dictionaries(st.sampled_from(["a", "b", "c", "d", "id", "definitions"]), kids, max_size=4),
    max_leaves=12,
)

PROPERTY_SCHEMAS: list[tuple[str, Any]] = [
    ("draft-04", {
        "id": "http://x.test/p4", "type": ["object", "array", "number"],
        "definitions": {"pos": {"type": "number", "minimum": 0, "exclusiveMinimum": True}},
        "properties": {"a": {"$ref": "#/definitions/pos"}, "definitions": {"type": "string"},
                       "b": {"maximum": 2, "exclusiveMaximum": True}},
        "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
        "items": [{"type": "null"}, {"$ref": "#/properties/definitions"}],
        "additionalItems": {"type": "boolean"},
        "minimum": -1, "exclusiveMinimum": True,
    }),
    ("draft-06", {
        "definitions": {"s": {"$id": "#str", "type": "string"}},
        "anyOf": [{"$ref": "#str", "minLength": 3}, {"contains": {"const": 1}}, {"propertyNames": {"const": "a"}}],
        "items": [{"$ref": "#/definitions/s"}], "additionalItems": False,
    }),
    ("draft-07", {
        "if": {"properties": {"a": {"const": 1}}, "required": ["a"]},
        "then": {"dependencies": {"b": {"properties": {"c": {"type": "string"}}}}},
        "else": {"$ref": "#/definitions/arr", "maxItems": 0},
        "definitions": {"arr": {"type": "array", "items": [{"type": "integer"}], "additionalItems": {"$ref": "#/else"}}},
    }),
    ("2019-09", {
        "$recursiveAnchor": True,
        "anyOf": [{"type": ["null", "number", "string", "boolean"]},
                  {"type": "object", "additionalProperties": {"$recursiveRef": "#"}},
                  {"items": [{"type": "string"}], "additionalItems": {"$recursiveRef": "#"},
                   "unevaluatedItems": False},
                  {"contains": {"type": "integer"}, "maxContains": 1}],
        "dependentRequired": {"a": ["b"]},
    }),
]


@functools.lru_cache(maxsize=None)
def property_validators(index: int) -> tuple[Any, Any]:
    """(original-draft validator, 2020-12 validator of the upgrade), built once per schema."""
    dialect, schema = PROPERTY_SCHEMAS[index]
    return (VALIDATORS[dialect](schema, registry=Registry()),
            jsonschema.Draft202012Validator(upgrade(schema, dialect), registry=Registry()))


@pytest.mark.parametrize("index", range(len(PROPERTY_SCHEMAS)), ids=[d for d, _ in PROPERTY_SCHEMAS])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=JSON)
def test_random_instances_agree(index: int, instance: Any) -> None:
    original, upgraded = property_validators(index)
    assert original.is_valid(instance) == upgraded.is_valid(instance)


def test_upgrade_keeps_keyword_order() -> None:
    """llguidance orders answer properties by where `properties`/applicators stand in a node,
    so the upgrade must not move single-subschema keywords to the end."""
    from schemac.front.upgrade.translate import upgrade

    schema = {"type": "object", "additionalProperties": False, "not": {"required": ["b"]},
              "properties": {"a": {"type": "string"}}, "if": {"required": ["a"]}, "then": {}}
    assert list(upgrade(schema, "draft-07")) == ["$schema", *schema]


# --- diagnostics point into the user's document (schemac.front.origins) ----------------------------

D4, D7 = "http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
_URI = {"draft-04": D4, "draft-06": "http://json-schema.org/draft-06/schema#", "draft-07": D7, "2019-09": D2019}


def _source(schema: Any, out_pointer: str, upgrade_drafts: bool = True) -> str:
    """Where a diagnostic at `out_pointer` of the rewritten document lands in `schema`."""
    from schemac.diagnostics import error
    from schemac.front.origins import in_source

    (d,) = in_source(schema, upgrade_drafts, [error("not-exact", out_pointer, "m")])
    return d.pointer


@pytest.mark.parametrize(
    "schema, out_pointer, source",
    [
        # definitions → $defs (the keyword itself too), and a clash with $defs gets a fresh name
        ({"$schema": D7, "definitions": {"x": {"not": {}}}}, "/$defs/x/not", "/definitions/x/not"),
        ({"$schema": D7, "definitions": {"x": {}}}, "/$defs", "/definitions"),
        ({"$schema": "https://json-schema.org/draft/2019-09/schema", "$defs": {"x": {}}, "definitions": {"x": {"not": {}}}},
         "/$defs/x-definitions/not", "/definitions/x/not"),
        # array items → prefixItems, additionalItems → items
        ({"$schema": D7, "items": [{"type": "string"}, {"not": {}}]}, "/prefixItems/1/not", "/items/1/not"),
        ({"$schema": D7, "items": [{}], "additionalItems": {"not": {}}}, "/items/not", "/additionalItems/not"),
        ({"$schema": D7, "items": [{}]}, "/prefixItems", "/items"),
        # dependencies → dependentSchemas / dependentRequired
        ({"$schema": D7, "dependencies": {"a": {"not": {}}}}, "/dependentSchemas/a/not", "/dependencies/a/not"),
        ({"$schema": D7, "dependencies": {"a": ["b", "c"]}}, "/dependentRequired/a/1", "/dependencies/a/1"),
        ({"$schema": D7, "dependencies": {"a": ["b"]}}, "/dependentRequired", "/dependencies"),
        # draft-04 boolean exclusive bounds: the number moved keyword
        ({"$schema": D4, "minimum": 3, "exclusiveMinimum": True}, "/exclusiveMinimum", "/minimum"),
        ({"$schema": D4, "maximum": 3}, "/maximum", "/maximum"),
        # identifiers: draft-04 id → $id, a fragment id → $anchor
        ({"$schema": D4, "id": "http://x.test/s"}, "/$id", "/id"),
        ({"$schema": D7, "definitions": {"a": {"$id": "#name"}}}, "/$defs/a/$anchor", "/definitions/a/$id"),
        # $recursiveRef → $dynamicRef / $ref (beside an own $ref, in a new allOf member)
        ({"$schema": D2019, "$recursiveAnchor": True, "items": {"$recursiveRef": "#"}},
         "/items/$dynamicRef", "/items/$recursiveRef"),
        ({"$schema": D2019, "items": {"$ref": "#", "$recursiveRef": "#"}}, "/items/allOf/0/$ref", "/items/$recursiveRef"),
        # 2019-09 contains beside unevaluatedItems: hidden in a generated not/not guard
        ({"$schema": D2019, "contains": {"not": {}}, "minContains": 2, "unevaluatedItems": False},
         "/allOf/0/not/not/contains/not", "/contains/not"),
        ({"$schema": D2019, "contains": {}, "minContains": 2, "unevaluatedItems": False},
         "/allOf/0/not/not/minContains", "/minContains"),
        ({"$schema": D2019, "contains": {}, "unevaluatedItems": False}, "/allOf/0/not", ""),  # generated
        # a $ref target the walk dropped, translated again under $defs
        ({"$schema": D7, "$ref": "#/properties/a", "properties": {"a": {"not": {}}}},
         "/$defs/upgrade-ref-target/not", "/properties/a/not"),
        # what the lowering generates below a user's node is cut back to that node
        ({"$schema": D7, "definitions": {"x": {"oneOf": [{}, {}]}}}, "/$defs/x/anyOf/3/not", "/definitions/x"),
        # 2020-12 documents: the legacy `dependencies` split (schemac.front.dialect.compat), merged names too
        ({"dependencies": {"a": {"not": {}}}}, "/dependentSchemas/a/not", "/dependencies/a/not"),
        ({"dependencies": {"a": ["b"]}}, "/dependentRequired/a/0", "/dependencies/a/0"),
        ({"dependencies": {"a": {"not": {}}}, "dependentSchemas": {"a": {"type": "object"}}},
         "/dependentSchemas/a/allOf/1/not", "/dependencies/a/not"),
        ({"dependencies": {"a": {}}, "dependentSchemas": {"a": {"type": "object"}}},
         "/dependentSchemas/a/allOf/0/type", "/dependentSchemas/a/type"),
        # nothing rewritten: pointers stay exactly as they are
        ({"$schema": D7, "properties": {"a": {"not": {}}}}, "/properties/a/not", "/properties/a/not"),
        ({"properties": {"a": {}}}, "/properties/a/generated/0", "/properties/a/generated/0"),
    ],
)
def test_each_rewrite_maps_pointers_back(schema: Any, out_pointer: str, source: str) -> None:
    assert _source(schema, out_pointer) == source


def test_pointers_of_errors_before_the_rewrite_are_left_alone() -> None:
    """Diagnostics of the stages before the rewrites already point into the document."""
    schema = {"$schema": D7, "items": [{}], "additionalItems": {"x-guidance": {}}}
    assert _source(schema, "/additionalItems/x-guidance") == "/additionalItems/x-guidance"
    assert _source({"$schema": D7, "definitions": {"x": {}}}, "/$defs/x", upgrade_drafts=False) == "/$defs/x"


def _leaves(node: Any, pointer: str = "") -> Any:
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, pointer + "/" + k.replace("~", "~0").replace("/", "~1"))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, f"{pointer}/{i}")
    else:
        yield pointer, node


def _at(doc: Any, pointer: str) -> Any:
    for token in (t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]):
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


@pytest.mark.parametrize("case", [*(json.loads(p.read_text())["schema"] for p in sorted(FIXTURES.glob("*.json"))),
                                  *({"$schema": _URI[d], **s} for d, s in PROPERTY_SCHEMAS)])
def test_every_copied_value_maps_back_to_where_the_user_wrote_it(case: Any) -> None:
    """Oracle: each literal of the upgraded document (outside identifiers and references, which
    the upgrade rewrites) maps back to a place in the source holding the same value."""
    from schemac.front.dialect.gate import upgrade_needed

    dialect = upgrade_needed(case, True)
    assert dialect is not None
    out = upgrade(case, dialect)
    rewritten = {"$schema", "$ref", "$dynamicRef", "$id", "$anchor", "$dynamicAnchor"}
    checked = 0
    for pointer, value in _leaves(out):
        if pointer.rsplit("/", 1)[-1] in rewritten:
            continue
        source = _source(case, pointer)
        assert _at(case, source) == value, (pointer, source)
        checked += 1
    assert checked


def test_check_reports_upgraded_schemas_in_the_users_terms() -> None:
    import schemac

    schema = {"$schema": D7, "definitions": {"x": {"oneOf": [{"items": [{"type": "integer"}], "additionalItems": {"type": "string"}}, {"minItems": 1}]}},
              "$ref": "#/definitions/x"}
    (d,) = schemac.check(schema, upgrade_drafts=True)
    assert (d.code, d.pointer) == ("one-of-not-exact", "/definitions/x/oneOf")
    draft4 = {"$schema": D4, "items": [{"type": "string", "format": "color"}]}
    (w,) = schemac.check(draft4, upgrade_drafts=True)
    assert (w.code, w.pointer) == ("unknown-format", "/items/0/format")
