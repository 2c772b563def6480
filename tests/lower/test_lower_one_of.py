"""oneOf lowering: disjointness proofs, exclusive form, finite enumeration, rejection, budget."""
from __future__ import annotations

import itertools
import json

import llguidance
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schemac
from testkit.grammar_harness import OTHER_REJECTIONS, accepts, check_exact_or_rejected, check_golden, load_fixtures, text_of
from schemac.budget import Limits
from schemac.diagnostics import CompileError

FIXTURES = load_fixtures("one_of")


@pytest.mark.parametrize("name,fx", FIXTURES, ids=[n for n, _ in FIXTURES])
def test_golden(name: str, fx: dict) -> None:
    art = check_golden(fx)
    assert schemac.compile(art.lowered, use_cache=False).lowered == art.lowered  # fixpoint


@pytest.mark.parametrize(
    "schema",
    [
        {"oneOf": [{"type": "string"}, {"type": "null"}]},
        {"oneOf": [{"const": 1}, {"const": 2}]},
        {"oneOf": [{"type": "number", "maximum": 1}, {"type": "number", "exclusiveMinimum": 1}]},
        {"type": "object", "oneOf": [{"required": ["k"], "properties": {"k": {"const": "a"}}}, {"required": ["k"], "properties": {"k": {"const": "b"}}}]},
        {"type": "object", "oneOf": [{"required": ["a"]}, {"properties": {"a": False}}]},
    ],
)
def test_disjoint_branches_become_any_of(schema: dict) -> None:
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert "oneOf" not in str(lowered) and "anyOf" in str(lowered) and "not" not in str(lowered)


_branch = st.sampled_from([
    {"type": "string"}, {"type": "integer"}, {"minimum": 2}, {"maximum": 4}, {"maxLength": 1},
    {"required": ["a"]}, {"required": ["b"]}, {"properties": {"a": {"const": 1}}}, {"enum": [1, "x"]}, True,
    {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
    {"type": "object", "properties": {"b": {"const": 1}}, "additionalProperties": False},
    {"properties": {"a": {"const": 2}}, "required": ["a"]},
    {"type": "array", "items": {"type": "number"}}, {"type": "array", "items": {"enum": ["x", 1]}, "maxItems": 2},
    {"type": "string", "pattern": "^[ab]{2}$"},
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(branches=st.lists(_branch, min_size=2, max_size=3), context=st.sampled_from([{}, {"required": ["a"]}]), data=st.data())
def test_random_one_of_is_exact(branches: list, context: dict, data: st.DataObject) -> None:
    schema = {**context, "oneOf": branches}
    check_exact_or_rejected(schema, data, {"one-of-not-exact", *OTHER_REJECTIONS})


def test_overlap_without_exact_complement_is_rejected() -> None:
    with pytest.raises(CompileError) as info:
        schemac.compile({"oneOf": [{"contains": {"type": "integer"}, "minContains": 2}, {"maxItems": 2}]}, use_cache=False)
    assert info.value.codes == ["one-of-not-exact"]
    assert info.value.diagnostics[-1].pointer == "/oneOf"


def test_budget_no_fallback() -> None:
    schema = {"oneOf": [{"minimum": 2}, {"maximum": 4}]}
    schemac.compile(schema, limits=Limits(entries=8), use_cache=False)
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, limits=Limits(entries=3), use_cache=False)
    assert info.value.codes == ["budget-exhausted"]


_A = {"properties": {"a": {"type": "integer"}}, "required": ["a"]}
_A_OR_C = {"properties": {"a": {"type": "string"}, "c": {"type": "boolean"}}, "required": ["a"]}
_B = {"b": {"type": "string"}}
_C = {"properties": {"c": {"type": "boolean"}}}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "oneOf": [_A], "properties": _B},
        {"type": "object", "properties": _B, "oneOf": [_A]},
        {"type": "object", "oneOf": [_A, _A_OR_C], "properties": _B},
        {"oneOf": [_A], "allOf": [_C], "properties": _B},
        {"allOf": [_C], "oneOf": [_A], "properties": _B},
    ],
)
def test_property_order_is_llguidance_order(schema: dict) -> None:
    """The lowered `oneOf` stands where it was written, so answers list properties in the order
    llguidance 1.9.1 gives the original schema (keywords as written, MaskBench o55595/o85188):
    each key order of a valid object is judged as llguidance judges it, and an invalid object
    is rejected in every order."""
    art = schemac.compile(schema, use_cache=False)
    raw = llguidance.LLMatcher.grammar_from_json_schema(json.dumps(schema))
    valid, invalid = {"a": 1, "b": "x", "c": True}, {"a": 1.5, "b": "x", "c": True}
    verdicts = []
    for order in itertools.permutations(valid):
        text = text_of({k: valid[k] for k in order})
        verdicts.append(accepts(art.grammar, text))
        assert verdicts[-1] == accepts(raw, text), order
        assert not accepts(art.grammar, text_of({k: invalid[k] for k in order})), order
    assert any(verdicts)


def test_hoisted_one_of_is_reported_where_it_was_written() -> None:
    """A lone-`oneOf` allOf member is lowered as its node's own `oneOf`; diagnostics keep the
    user's pointers into the allOf member."""
    schema = {"allOf": [{"type": "object"}, {"oneOf": [{"not": {"contains": {"type": "integer"}, "minContains": 2}}, {"type": "string"}]}]}
    with pytest.raises(schemac.CompileError) as info:
        schemac.compile(schema, use_cache=False)
    assert [d.pointer for d in info.value.diagnostics] == ["/allOf/1/oneOf/0/not"]


def test_hoist_keeps_keyword_order() -> None:
    from schemac.lower.one_of import hoist, lone_member

    node = {"required": ["k"], "allOf": [{"$ref": "#/$defs/a"}, {"oneOf": [True]}], "properties": {}}
    assert lone_member(node) == 1 and lone_member({**node, "oneOf": [True]}) is None
    assert list(hoist(node, 1)) == ["required", "allOf", "oneOf", "properties"]
