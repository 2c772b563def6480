"""if/then/else lowering: golden fixtures, exactness on random instances, rejection, budget."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schemac
from grammar_harness import OTHER_REJECTIONS, accepts, check_exact_or_rejected, check_golden, load_fixtures, text_of
from schemac.budget import Limits
from schemac.diagnostics import CompileError

FIXTURES = load_fixtures("conditionals")


@pytest.mark.parametrize("name,fx", FIXTURES, ids=[n for n, _ in FIXTURES])
def test_golden(name: str, fx: dict) -> None:
    art = check_golden(fx)
    assert schemac.compile(art.lowered, use_cache=False).lowered == art.lowered  # fixpoint


_part = st.sampled_from([
    {"type": "string"}, {"type": "integer"}, {"minimum": 3}, {"maxLength": 1}, {"required": ["a"]},
    {"properties": {"a": {"const": "x"}}}, {"enum": [1, "x", None]}, {"type": "object", "maxProperties": 1},
    True, False,
])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(guard=_part, then=st.none() | _part, other=st.none() | _part, data=st.data())
def test_random_conditionals_are_exact(guard: object, then: object, other: object, data: st.DataObject) -> None:
    schema: dict = {"if": guard}
    if then is not None:
        schema["then"] = then
    if other is not None:
        schema["else"] = other
    check_exact_or_rejected(schema, data, {"if-not-exact", *OTHER_REJECTIONS})


def test_guard_without_exact_complement_is_rejected() -> None:
    with pytest.raises(CompileError) as info:
        schemac.compile({"if": {"pattern": "a+"}, "then": {"maxLength": 3}}, use_cache=False)
    assert info.value.codes == ["if-not-exact"]
    assert info.value.diagnostics[-1].pointer == "/if"


def test_finite_context_enumerates_the_guard() -> None:
    schema = {"enum": ["ab", "ba", "aa"], "if": {"pattern": "a+$"}, "then": {"const": "aa"}}
    art = schemac.compile(schema, use_cache=False)
    assert [accepts(art.grammar, text_of(v)) for v in ["ab", "ba", "aa"]] == [True, False, True]


def test_budget_no_fallback() -> None:
    schema = {"if": {"type": "string"}, "then": {"maxLength": 2}, "else": {"type": "null"}}
    schemac.compile(schema, limits=Limits(entries=2), use_cache=False)  # the two-branch anyOf
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, limits=Limits(entries=1), use_cache=False)
    assert info.value.codes == ["budget-exhausted"]


def test_lowered_conditional_stands_where_if_was() -> None:
    """`then`'s properties come before a later `properties` in answers, as written; its
    constraint still holds in that order."""
    schema = {"type": "object", "if": {"required": ["a"]}, "then": {"properties": {"c": {"type": "boolean"}}},
              "properties": {"b": {"type": "string"}}}
    art = schemac.compile(schema, use_cache=False)
    assert list(art.lowered) == ["type", "allOf", "properties"]
    assert accepts(art.grammar, text_of({"c": True, "b": "x", "a": 1}))
    assert not accepts(art.grammar, text_of({"c": 1, "b": "x", "a": 1}))
    assert accepts(art.grammar, text_of({"b": "x", "c": 1}))  # no `a`: `c` is unconstrained, listed after `b`
