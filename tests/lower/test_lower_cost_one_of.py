"""Cheaper exact forms for costly oneOf/not lowerings: a required-and-listed key's complement as
one object node, and anchored literal patterns proving discriminators disjoint."""
from __future__ import annotations

import json
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schemac
from testkit.grammar_harness import OTHER_REJECTIONS, check_exact_or_rejected
from schemac.lower.support.analysis import pattern_literal
from testkit.exactness import check_every_order


def _keyed(n: int) -> dict:
    """A closed object where exactly one of n keys is present, each with its own value schema:
    the branches overlap (an object may carry two keys), so every branch needs its siblings'
    complements."""
    values = [{"type": "string"}, {"type": "object", "required": ["y"]},
              {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False}]
    keys = [f"k{i}" for i in range(n)]
    return {
        "type": "object",
        "properties": {k: True for k in keys},
        "additionalProperties": False,
        "oneOf": [{"properties": {k: values[i % 3]}, "required": [k]} for i, k in enumerate(keys)],
    }


def _tagged(n: int) -> dict:
    """n object branches told apart by a required `type` written as an anchored literal pattern."""
    return {"oneOf": [
        {"type": "object", "properties": {"type": {"type": "string", "pattern": f"^T{i}\\.x$"}, "v": {"minimum": i}},
         "required": ["type"], "additionalProperties": False}
        for i in range(n)
    ]}


def test_required_key_complement_is_one_object_node() -> None:
    lowered = schemac.compile({"not": {"required": ["a"], "properties": {"a": {"type": "string"}}}}, use_cache=False).lowered
    # every non-object satisfies the operand; an object fails it when `a` is absent or no string
    assert lowered == {"type": "object", "properties": {"a": {"type": ["null", "boolean", "object", "array", "number"]}}}


def test_many_overlapping_keyed_branches_compile() -> None:
    """Without the merged complement each branch ∧ its 7 sibling complements is an allOf of
    two-way anyOfs, past the default entries budget."""
    schemac.compile(_keyed(8), use_cache=False)


def test_many_pattern_tagged_branches_are_a_plain_any_of() -> None:
    """Without the literal-pattern proof the 20 branches need 20² entries, past the budget."""
    lowered = schemac.compile(_tagged(20), use_cache=False).lowered
    assert "not" not in json.dumps(lowered) and len(lowered["anyOf"]) == 20


@pytest.mark.parametrize(
    "pattern,literal",
    [("^Abs$", ["Abs"]), ("^a\\.b$", ["a.b"]), ("^$", [""]), ("^a.b$", None), ("^\\d$", None), ("^ab\\$", None),
     ("ab", None), ("^a|b$", None), ("^a$|^b$", None), ("^a+$", None), ("^[a]$", None), ("^\\u0041$", None)],
)
def test_pattern_literal(pattern: str, literal: list | None) -> None:
    assert pattern_literal({"pattern": pattern}) == literal


_value = st.sampled_from([
    {"type": "string"}, {"const": 1}, {"type": "object", "required": ["y"]}, True, False,
    {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False},
    {"type": "string", "pattern": "^a\\.b$"}, {"type": "string", "pattern": "^a.b$"}, {"enum": ["a.b", "axb", 2]},
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(_value, min_size=2, max_size=3), keys=st.lists(st.sampled_from(["a", "b"]), min_size=3, max_size=3),
       required=st.lists(st.booleans(), min_size=3, max_size=3), closed=st.booleans(), data=st.data())
def test_keyed_one_of_is_exact(values: list, keys: list, required: list, closed: bool, data: st.DataObject) -> None:
    """oneOf branches keyed by (required or optional, shared or distinct) properties, whose
    values may be discriminated by literal patterns: lowered ≡ original, grammar sound."""
    branches = [{"properties": {k: v}, **({"required": [k]} if r else {})} for k, v, r in zip(keys, values, required)]
    context = {"type": "object", "properties": {"a": True, "b": True}, "additionalProperties": False} if closed else {}
    check_exact_or_rejected({**context, "oneOf": branches}, data, {"one-of-not-exact", *OTHER_REJECTIONS})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_value, extra=st.sampled_from([{}, {"required": ["b"]}, {"properties": {"b": {"const": 1}}},
                                              {"additionalProperties": False}]), data=st.data())
def test_not_required_property_is_exact(value: dict, extra: dict, data: st.DataObject) -> None:
    check_exact_or_rejected({"not": {"required": ["a"], "properties": {"a": value}, **extra}}, data, OTHER_REJECTIONS)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=st.dictionaries(st.sampled_from(["a", "b"]), st.sampled_from([1, "a.b", None]), max_size=2), data=st.data())
def test_not_const_object_is_exact(obj: dict, data: st.DataObject) -> None:
    check_exact_or_rejected({"not": {"const": obj}}, data, OTHER_REJECTIONS)


def _shared(n: int) -> dict:
    """n closed object branches that share a bounded array property and differ only by an
    optional tag: the tag's absence lets them overlap, so each branch needs its siblings'
    complements, and the shared property's complement inside a branch that has the very same
    property schema is empty (no per-position branches)."""
    tags = {"type": "array", "maxItems": 60, "items": {"type": "string", "maxLength": 9}}
    return {"type": "array", "items": {"oneOf": [
        {"type": "object", "properties": {"kind": {"enum": [f"k{i}"]}, "tags": tags, "n": {"type": "integer", "minimum": i}},
         "additionalProperties": False}
        for i in range(n)
    ]}}


def test_complement_of_a_schema_the_domain_holds_is_empty() -> None:
    lowered = schemac.compile(_shared(4), use_cache=False).lowered
    assert "prefixItems" not in json.dumps(lowered)  # no "item j breaks `items`" branch


_shared_value = st.sampled_from([
    {"type": "array", "maxItems": 2, "items": {"type": "integer"}}, {"type": "string", "maxLength": 1},
    {"enum": [1, True]}, {"const": 1}, {"const": True}, {"minimum": 1.0}, {"minimum": 1},
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(_shared_value, min_size=2, max_size=3), tagged=st.lists(st.booleans(), min_size=3, max_size=3),
       data=st.data())
def test_branches_sharing_property_schemas_are_exact(values: list, tagged: list, data: st.DataObject) -> None:
    """Branches whose property schemas are equal (1 and 1.0 alike, true and 1 not) or differ,
    with or without an optional tag: lowered ≡ original, grammar sound."""
    branches = [{"type": "object", "properties": {"a": v, "b": values[0], **({"t": {"const": i}} if tag else {})}}
                for i, (v, tag) in enumerate(zip(values, tagged))]
    check_exact_or_rejected({"oneOf": branches}, data, {"one-of-not-exact", *OTHER_REJECTIONS})


# ---- attacks on the cheaper forms: required-and-listed keys, const/enum objects, pattern literals,
# seeded random object schemas under not and oneOf (attack round 11)

NEG_VALUES: list[Any] = [None, True, 0, 1, 2, 1.5, "", "a", "a.", "^", "ab", "a\n", "\\", [], [1], [1, 2], ["a"], [1, 1]]


NEG_OBJECTS = [dict(zip(ks, vs)) for n in range(3) for ks in itertools.combinations(["a", "b", "k"], n)
               for vs in itertools.product([1, "a", "b", None], repeat=n)] + [{"a": {"a": 1}}, {"a": [1]}, {"k": "a", "a": 1, "b": 1}]


S1 = {"type": "integer", "minimum": 1}


NEG_SCHEMAS = [
    {"allOf": [S1], "not": S1},
    {"properties": {"a": S1}, "not": {"properties": {"a": S1}}},
    {"properties": {"a": S1}, "not": {"properties": {"a": S1}, "required": ["a"]}},
    {"properties": {"a": S1}, "not": {"properties": {"a": S1, "b": {"type": "string"}}, "required": ["a", "b"]}},
    {"not": {"properties": {"a": S1}, "required": ["a", "b"]}},
    {"not": {"properties": {"a": S1, "b": True}, "required": ["b"]}},
    {"not": {"properties": {"a": False}, "required": ["a"]}},
    {"type": "object", "additionalProperties": False, "properties": {"a": {}, "b": {}}, "not": {"properties": {"k": S1}, "required": ["k"]}},
    {"not": {"const": {"a": 1, "b": "a"}}},
    {"not": {"const": {"a": {"a": 1}}}},
    {"not": {"enum": [{"a": 1}, {"b": None}, {}]}},
    {"type": "object", "not": {"const": {}}},
    {"oneOf": [{"properties": {"k": {"pattern": "^a$"}}, "required": ["k"]}, {"properties": {"k": {"pattern": "^b$"}}, "required": ["k"]}]},
    {"oneOf": [{"properties": {"k": {"pattern": "^a$"}}, "required": ["k"]}, {"properties": {"k": {"pattern": "^a"}}, "required": ["k"]}]},
    {"oneOf": [{"properties": {"k": {"pattern": "^a$"}}}, {"properties": {"k": {"const": "a"}}}]},
    {"oneOf": [{"pattern": "^a\\.$"}, {"pattern": "^a.$"}]},
    {"oneOf": [{"pattern": "^\\^$"}, {"const": "^"}, {"type": "integer"}]},
    {"oneOf": [{"pattern": "^$"}, {"maxLength": 0}]},
    {"oneOf": [{"pattern": "^a\n$"}, {"pattern": "^a$"}]},
    {"oneOf": [{"pattern": "^a$"}, {"pattern": "a$"}]},
    {"oneOf": [{"pattern": "^\\\\$"}, {"pattern": "^\\$"}]},
    {"oneOf": [{"pattern": "^a$", "type": "string"}, {"enum": ["a", 1]}]},
    {"oneOf": [{"pattern": "^ab$"}, {"pattern": "^a$"}, {"minLength": 2}]},
    {"oneOf": [{"type": "object", "properties": {"k": {"pattern": "^a$"}}, "required": ["k"], "additionalProperties": {"type": "integer"}},
               {"type": "object", "properties": {"k": {"pattern": "^b$"}, "a": {"type": "string"}}, "required": ["k"]},
               {"type": "object", "required": ["a"]}]},
    {"oneOf": [{"required": ["a"]}, {"required": ["b"]}, {"properties": {"a": False, "b": False}}]},
    {"oneOf": [{"properties": {"a": S1}, "required": ["a"]}, {"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"maxProperties": 1}]},
    {"not": {"oneOf": [{"required": ["a"]}, {"properties": {"a": {"const": 1}}}]}},
    {"not": {"anyOf": [{"properties": {"a": S1}, "required": ["a"]}, {"properties": {"b": {"const": "a"}}, "required": ["b"]}]}},
    {"if": {"properties": {"k": {"pattern": "^a$"}}, "required": ["k"]}, "then": {"required": ["a"]}, "else": {"not": {"required": ["a"]}}},
    {"allOf": [{"$ref": "#/$defs/s1"}], "not": {"$ref": "#/$defs/s1"}, "$defs": {"s1": S1}},
    {"properties": {"a": {"$ref": "#/$defs/s1"}}, "not": {"properties": {"a": {"$ref": "#/$defs/s1"}}, "required": ["a"]}, "$defs": {"s1": S1}},
    {"prefixItems": [S1], "not": {"prefixItems": [S1], "minItems": 1}},
    {"items": S1, "not": {"items": S1, "maxItems": 1}},
    {"oneOf": [{"items": S1}, {"prefixItems": [S1]}, {"contains": {"const": 2}}]},
]


@pytest.mark.parametrize("i", range(len(NEG_SCHEMAS)))
def test_negation_and_one_of_lowering(i: int) -> None:
    check_every_order(NEG_SCHEMAS[i], NEG_VALUES + NEG_OBJECTS, {"not-exact", "one-of-not-exact", "if-not-exact", "unsatisfiable",
                                                                   "contains-unbounded", "grammar-error"})


def _random_object_schema(rng: Any, depth: int = 0) -> Any:
    """A small random schema over keys a, b, k: properties/required/additionalProperties, const,
    enum, type, min/maxProperties, dependentRequired, nested not/anyOf/oneOf/allOf."""
    leaf = rng.choice([{"const": 1}, {"type": "integer"}, {"type": "string"}, {"enum": ["a", None]}, {"const": "a"}, True, False,
                       {"pattern": "^a$"}, {"minimum": 1}, {"type": ["string", "null"]}])
    if depth > 1 or rng.random() < 0.2:
        return leaf
    kind = rng.randrange(6)
    if kind == 0:
        keys = rng.sample(["a", "b", "k"], rng.randrange(1, 3))
        node: dict[str, Any] = {"properties": {k: _random_object_schema(rng, depth + 1) for k in keys}}
        if rng.random() < 0.6:
            node["required"] = rng.sample(["a", "b", "k"], rng.randrange(0, 3))
        if rng.random() < 0.3:
            node["additionalProperties"] = rng.choice([False, {"type": "integer"}])
        if rng.random() < 0.2:
            node["maxProperties"] = rng.randrange(0, 3)
        return node
    if kind == 1:
        return {"not": _random_object_schema(rng, depth + 1)}
    if kind == 2:
        return {rng.choice(["anyOf", "oneOf", "allOf"]): [_random_object_schema(rng, depth + 1) for _ in range(rng.randrange(1, 4))]}
    if kind == 3:
        return {"const": rng.choice([{"a": 1}, {"a": "a", "b": None}, {}, {"k": "a"}])}
    if kind == 4:
        return {"dependentRequired": {rng.choice("abk"): [rng.choice("abk")]}, "minProperties": rng.randrange(0, 2)}
    return {"type": "object", "required": [rng.choice("abk")], "not": _random_object_schema(rng, depth + 1)}


@pytest.mark.parametrize("seed", range(40))
def test_random_negation_and_one_of(seed: int) -> None:
    import random

    rng = random.Random(seed * 7919)
    schema = {rng.choice(["not", "oneOf"]): _random_object_schema(rng)} if rng.random() < 0.5 else _random_object_schema(rng)
    if isinstance(schema, dict) and "oneOf" in schema and not isinstance(schema["oneOf"], list):
        schema = {"oneOf": [schema["oneOf"], _random_object_schema(rng)]}
    check_every_order(schema, NEG_VALUES + NEG_OBJECTS, {"not-exact", "one-of-not-exact", "if-not-exact", "unsatisfiable",
                                                          "grammar-error", "too-large"})
