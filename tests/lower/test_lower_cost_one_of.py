"""Cheaper exact forms for costly oneOf/not lowerings: a required-and-listed key's complement as
one object node, and anchored literal patterns proving discriminators disjoint."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schemac
from testkit.grammar_harness import OTHER_REJECTIONS, check_exact_or_rejected
from schemac.lower.support.analysis import pattern_literal


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
