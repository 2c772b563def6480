"""unevaluatedProperties / unevaluatedItems lowering: fixtures, suite groups, exact cases, budget."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import schemac
from testkit.grammar_harness import accepts
from testkit.lower_passes_oracle import check_fixture, fixtures, instances, relower, text
from schemac.budget import Limits
from schemac.validate.final import FinalValidator

SUITE = Path(__file__).resolve().parents[2] / "testdata" / "suite"


@pytest.mark.parametrize("path", fixtures("unevaluated"), ids=lambda p: p.stem)
def test_fixture(path):
    check_fixture(path)


def _exact(schema, data: list) -> None:
    """FinalValidator on the user's schema is the oracle: lowered schema and grammar agree with it."""
    art = schemac.compile(schema, use_cache=False)
    oracle, lowered = FinalValidator(schema), FinalValidator(art.lowered)
    for value in data:
        want = oracle.is_valid(value)
        assert lowered.is_valid(value) is want, (value, art.lowered)
        if not want:
            assert not accepts(art.grammar, text(value)), (value, art.lowered)


@pytest.mark.parametrize("name", ["unevaluatedProperties.json", "unevaluatedItems.json"])
def test_suite_groups(name):
    """Every group compiles except the few other passes reject; compiled ones are exact."""
    rejected = []
    for group in json.loads((SUITE / name).read_text()):
        try:
            art = schemac.compile(group["schema"], use_cache=False)
        except schemac.CompileError as exc:
            assert "unevaluated-dynamic" not in exc.codes, group["description"]
            rejected.append(group["description"])
            continue
        lowered = FinalValidator(art.lowered)
        for t in group["tests"]:
            assert lowered.is_valid(t["data"]) is t["valid"], (group["description"], t["description"])
            if not t["valid"]:
                assert not accepts(art.grammar, text(t["data"])), (group["description"], t["description"])
    assert len(rejected) <= 3, rejected


SCHEMAS = [
    {"allOf": [{"properties": {"a": {}}}, {"patternProperties": {"^b": {"type": "integer"}}}], "unevaluatedProperties": {"type": "string"}},
    {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}, "unevaluatedProperties": False},
    {"prefixItems": [{}], "allOf": [{"prefixItems": [{}, {"type": "string"}]}], "unevaluatedItems": {"type": "integer"}},
    {"$defs": {"base": {"properties": {"a": {"type": "integer"}}}}, "$ref": "#/$defs/base", "unevaluatedProperties": False},
    # anyOf: every succeeding branch counts, also several at once
    {"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"properties": {"b1": {}}, "required": ["b1"]}],
     "unevaluatedProperties": {"type": "string"}},
    {"anyOf": [{"prefixItems": [{}]}, True, {"prefixItems": [{}, {}], "minItems": 3}], "unevaluatedItems": False},
    # oneOf, nested under a ref
    {"$defs": {"o": {"oneOf": [{"properties": {"a": {"const": 1}}, "required": ["a"]}, {"properties": {"c": {}}}]}},
     "$ref": "#/$defs/o", "unevaluatedProperties": False},
    # if / then / else, with and without each side
    {"if": {"properties": {"a": {"const": 1}}, "required": ["a"]}, "then": {"properties": {"b1": {}}},
     "else": {"properties": {"c": {}}}, "unevaluatedProperties": False},
    {"if": {"properties": {"a": {"const": 1}}, "required": ["a"]}, "else": {"properties": {"c": {}}},
     "unevaluatedProperties": False},
    {"if": {"prefixItems": [{"const": 1}]}, "unevaluatedItems": False},
    {"if": {"prefixItems": [{"const": 1}]}, "then": {"prefixItems": [True, {"type": "string"}]},
     "else": {"prefixItems": [{"type": "string"}]}, "unevaluatedItems": {"type": "integer"}},
    # dependentSchemas count only when their key is present
    {"properties": {"a": {}}, "dependentSchemas": {"a": {"properties": {"b1": {}}}, "c": {"properties": {"z": {}}}},
     "unevaluatedProperties": False},
    # contains marks the items it matches
    {"prefixItems": [True], "contains": {"type": "string"}, "minContains": 0, "unevaluatedItems": {"type": "integer"}},
    {"anyOf": [{"contains": {"const": 1}, "maxItems": 2}, {"prefixItems": [{}]}], "unevaluatedItems": False},
    {"prefixItems": [{}], "contains": {"const": 1}, "maxItems": 3, "unevaluatedItems": {"type": "string"}},
    # `not` keeps nothing
    {"not": {"not": {"properties": {"a": {}}}}, "unevaluatedProperties": False},
    # both keywords on one node
    {"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"prefixItems": [{"const": 1}]}],
     "unevaluatedProperties": False, "unevaluatedItems": False},
]


@pytest.mark.parametrize("schema", SCHEMAS)
@settings(max_examples=25, deadline=None)
@given(data=st.lists(instances(["a", "b1", "c"], [1, "a"]), max_size=6))
def test_exact_and_fixpoint(schema, data):
    _exact(schema, data + [{}, {"a": 1}, {"b1": 1}, {"c": "s"}, {"a": 1, "b1": "x"}, {"a": 2, "c": 1},
                           [1, "a", 2], [1, "a", "b"], [1], ["a"], [2, 2], [1, 1, 1, 1], "s", None])
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert relower(lowered) == lowered


def test_cases_are_guarded_by_the_branch_that_evaluates():
    schema = {"oneOf": [{"properties": {"a": {"const": 1}}, "required": ["a"]}, {"properties": {"b": {}}, "required": ["b"]}],
              "unevaluatedProperties": False}
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert {"anyOf": [
        {"allOf": [{"properties": {"a": {"const": 1}}, "required": ["a"]}, {"properties": {"a": True}, "additionalProperties": False}]},
        {"allOf": [{"properties": {"b": True}, "required": ["b"]}, {"properties": {"b": True}, "additionalProperties": False}]},
    ]} in lowered["allOf"]  # beside the lowered oneOf, which keeps its place before it


def test_static_sets_stay_in_the_node():
    same = {"anyOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"a": {"type": "integer"}}}],
            "unevaluatedProperties": False}
    lowered = schemac.compile(same, use_cache=False).lowered
    assert lowered["additionalProperties"] is False and "allOf" not in lowered
    then_only = {"if": {"prefixItems": [{"const": 1}]}, "else": {"minItems": 1}, "unevaluatedItems": False}
    assert "allOf" in schemac.compile(then_only, use_cache=False).lowered


def test_dynamic_scope_copies_are_told_apart():
    """A generic schema with unevaluatedProperties, specialised per dynamic scope."""
    schema = {
        "$id": "https://e.test/main",
        "properties": {"n": {"$ref": "numbers"}, "s": {"$ref": "strings"}},
        "$defs": {
            "generic": {"$id": "generic", "properties": {"v": {"$dynamicRef": "#t"}}, "unevaluatedProperties": False,
                        "$defs": {"default": {"$dynamicAnchor": "t"}}},
            "numbers": {"$id": "numbers", "$ref": "generic", "$defs": {"t": {"$dynamicAnchor": "t", "type": "number"}}},
            "strings": {"$id": "strings", "$ref": "generic", "$defs": {"t": {"$dynamicAnchor": "t", "type": "string"}}},
        },
    }
    _exact(schema, [{"n": {"v": 1}}, {"n": {"v": "x"}}, {"s": {"v": "x"}}, {"s": {"v": 1}}, {"n": {"w": 1}}, {"s": {}}])


def test_budget_just_under_and_over():
    branches = [{"properties": {f"k{i}": {}}, "required": [f"k{i}"]} for i in range(4)]
    schema = {"anyOf": branches, "unevaluatedProperties": False}
    schemac.compile(schema, use_cache=False)  # 15 subsets of 4 branches
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, use_cache=False, limits=Limits(entries=8))
    assert err.value.codes == ["budget-exhausted"]
    wide = {"anyOf": [{"properties": {f"k{i}": {}}, "required": [f"k{i}"]} for i in range(12)],
            "unevaluatedProperties": False}
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(wide, use_cache=False)
    assert err.value.codes == ["budget-exhausted"]
