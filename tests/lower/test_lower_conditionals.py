"""if/then/else lowering: golden fixtures, exactness on random instances, rejection, budget."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schemac
from testkit.grammar_harness import OTHER_REJECTIONS, accepts, check_exact_or_rejected, check_golden, load_fixtures, text_of
from schemac.budget import Limits
from schemac.diagnostics import CompileError
from schemac.validate.final import FinalValidator

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
        schemac.compile({"if": {"contains": {"type": "integer"}, "minContains": 2}, "then": {"maxItems": 3}}, use_cache=False)
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


# ---- finite enumeration with context (guards with no exact complement) --------------------

#: what bounds property n beside the guard: finite domains, and one that is not
_bound = st.sampled_from([
    {"type": "boolean"}, {"type": "integer", "minimum": 1, "maximum": 6}, {"type": ["integer", "null"], "exclusiveMaximum": 3, "minimum": -1},
    {"enum": ["ab", "x", 2, True]}, {"$ref": "#/$defs/small"}, {"type": "string"},
])
#: guards on n that need enumeration (pattern, format, multipleOf have no general complement)
_guard_n = st.sampled_from([
    {"not": {"pattern": "a+b"}}, {"pattern": "a+b"}, {"multipleOf": 2}, {"format": "email"},
    {"anyOf": [{"const": True}, {"multipleOf": 3}]}, {"not": {"multipleOf": 2}},
])
_DEFS = {"small": {"type": ["integer", "boolean"], "exclusiveMinimum": 0, "maximum": 4}}


@settings(max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(bound=_bound, guard=_guard_n, shape=st.sampled_from(["if", "not", "oneOf"]), data=st.data())
def test_guard_enumerated_within_sibling_bounds(bound: dict, guard: dict, shape: str, data: st.DataObject) -> None:
    """A guard on property n, beside `properties.n` that bounds n: exact whenever it compiles
    (a finite bound must make it compile: checked below), by oracle and grammar."""
    test = {"properties": {"n": guard}}
    schema: dict = {"$defs": _DEFS, "type": "object", "properties": {"n": bound}}
    if shape == "if":
        schema.update({"if": test, "then": {"required": ["x"]}, "else": {"required": ["y"]}})
    elif shape == "not":
        schema["not"] = test
    else:
        schema["oneOf"] = [test, {"required": ["x"]}]
    codes = {"not-exact", "if-not-exact", "one-of-not-exact", *OTHER_REJECTIONS}
    check_exact_or_rejected(schema, data, codes)


@pytest.mark.parametrize("bound", [{"type": "integer", "minimum": 1, "maximum": 6}, {"$ref": "#/$defs/small"},
                                   {"type": ["integer", "null"], "exclusiveMaximum": 3, "minimum": -1}])
@pytest.mark.parametrize("shape", ["if", "not", "oneOf"])
def test_finite_sibling_bound_makes_the_guard_compile(bound: dict, shape: str) -> None:
    """`not multipleOf` has no complement over all numbers; within a finite bound it enumerates."""
    test = {"properties": {"n": {"not": {"multipleOf": 2}}}}
    schema: dict = {"$defs": _DEFS, "type": "object", "properties": {"n": bound}}
    schema.update({"if": test, "then": {"required": ["x"]}} if shape == "if" else
                  {"not": test} if shape == "not" else {"oneOf": [test, {"required": ["x"]}]})
    art = schemac.compile(schema, use_cache=False)
    oracle = FinalValidator(schema)
    for n in [None, True, -1, 0, 1, 2, 3, 4, 6, 7, 2.5]:
        for extra in ({}, {"x": 1}):
            value = {"n": n, **extra}
            assert accepts(art.grammar, text_of(value)) == oracle.is_valid(value), value


def test_context_enumeration_charges_evaluations() -> None:
    schema = {
        "type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 40}},
        "if": {"properties": {"n": {"not": {"multipleOf": 3}, "pattern": "a+b"}}}, "then": {"required": ["x"]},
    }
    schemac.compile(schema, use_cache=False)
    with pytest.raises(CompileError) as err:
        schemac.compile(schema, limits=Limits(evaluations=20), use_cache=False)
    assert err.value.codes == ["budget-exhausted"]


def test_contextualise_is_an_equivalence_and_idempotent() -> None:
    import jsonschema

    from schemac.lower.support.guard_context import contextualise

    node = {"properties": {"n": {"type": "integer", "maximum": 3}, "m": True},
            "if": {"properties": {"n": {"multipleOf": 2}, "m": {"const": 1}}}, "then": {"required": ["x"]},
            "not": {"properties": {"n": {"minimum": 3}}}, "oneOf": [{"properties": {"n": {"const": 1}}}, {"required": ["n"]}]}
    moved = contextualise(node)
    assert moved is not None and contextualise(moved) is None
    assert moved["if"]["properties"]["m"] == {"const": 1}  # `true` bounds nothing
    values = [{}, {"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}, {"n": 2, "x": 0}, {"n": 1.5}, {"m": 1, "n": 2}, {"n": "a"}, 3]
    a, b = jsonschema.Draft202012Validator(node), jsonschema.Draft202012Validator(moved)
    assert [a.is_valid(v) for v in values] == [b.is_valid(v) for v in values]
