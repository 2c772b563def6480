"""Negation normal form: each rewrite rule against plain jsonschema, exactness of what it lets
compile, and that the fixtures which need it fail without it."""
from __future__ import annotations

import itertools

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schemac
from testkit.grammar_harness import OTHER_REJECTIONS, check_exact_or_rejected, load_fixtures
from schemac.diagnostics import CompileError
from schemac.lower.negation import normal_form

_leaf = st.one_of(
    st.booleans(),
    st.fixed_dictionaries({"type": st.sampled_from(["string", "number", "integer", "object"])}),
    st.fixed_dictionaries({"pattern": st.sampled_from(["a+b", "^a", "b$"])}),
    st.fixed_dictionaries({"maxLength": st.integers(0, 2)}),
    st.fixed_dictionaries({"minimum": st.integers(0, 2)}),
    st.fixed_dictionaries({"required": st.just(["a"])}),
    st.fixed_dictionaries({"const": st.sampled_from(["ab", 1, None])}),
)
#: combinator shapes only: what `normal_form` rewrites
_combo = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.fixed_dictionaries({"not": inner}),
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"allOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"oneOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"if": inner}, optional={"then": inner, "else": inner}),
        st.fixed_dictionaries({"not": inner, "anyOf": st.lists(inner, min_size=1, max_size=2)}),
    ),
    max_leaves=5,
)
#: every value the leaves tell apart (strings by pattern and length, numbers by bound and
#: integrality, objects by key "a")
VALUES = [None, True, False, 0, 1, 2, 2.5, -1, "", "a", "ab", "aab", "b", "ba", "abc", [], ["ab"], {}, {"a": 1}, {"b": "ab"}]


def _same(a: object, b: object) -> None:
    va, vb = jsonschema.Draft202012Validator(a), jsonschema.Draft202012Validator(b)
    for v in VALUES:
        assert va.is_valid(v) == vb.is_valid(v), (a, b, v)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(operand=_combo)
def test_negated_is_the_complement(operand: object) -> None:
    """Every rule (¬¬, De Morgan, ¬oneOf, ¬if, booleans) is an equivalence, by plain jsonschema."""
    _same({"not": operand}, normal_form.negated(operand))


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(operand=_combo, siblings=st.sampled_from([{}, {"type": "string"}, {"minLength": 1, "allOf": [{"type": ["string", "number"]}]}]))
def test_normalise_keeps_the_node(operand: object, siblings: dict) -> None:
    node = {**siblings, "not": operand}
    pushed = normal_form.normalise(node)
    if pushed is not None:
        _same(node, pushed)


@settings(max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(operand=_combo, type_=st.sampled_from([None, "string", "number"]), data=st.data())
def test_normal_form_compiles_exactly(operand: object, type_: str | None, data: st.DataObject) -> None:
    """What the second attempt lets compile is exact (oracle and grammar on biased instances)."""
    schema: dict = {"not": operand} if type_ is None else {"type": type_, "not": operand}
    check_exact_or_rejected(schema, data, {"not-exact", "if-not-exact", "one-of-not-exact", *OTHER_REJECTIONS})


#: fixtures that compile only through the normal form (their shape alone defeats the complement)
NEEDED = ["nnf_not_not", "nnf_any_of", "nnf_all_of", "nnf_one_of", "nnf_if"]


@pytest.mark.parametrize("name,fx", [(n, f) for n, f in load_fixtures("negation") if n in NEEDED])
def test_fixture_needs_the_normal_form(name: str, fx: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(normal_form, "normalise", lambda node: None)
    with pytest.raises(CompileError) as err:
        schemac.compile(fx["schema"], use_cache=False)
    assert set(err.value.codes) <= {"not-exact", "if-not-exact", "one-of-not-exact"}


def test_failure_is_reported_as_written() -> None:
    """When the normal form fails too, the diagnostic points at the schema the user wrote."""
    with pytest.raises(CompileError) as err:
        schemac.compile({"not": {"oneOf": [{"contains": {"type": "integer"}, "minContains": 2}, {"maxItems": 3}]}}, use_cache=False)
    assert err.value.codes == ["one-of-not-exact"]
    assert err.value.diagnostics[0].pointer == "/not/oneOf"


def test_wide_one_of_left_as_written() -> None:
    branches = [{"const": i} for i in range(12)]  # 66 pairs > MAX_PAIRS
    assert normal_form.normalise({"not": {"oneOf": branches}}) is None
    assert normal_form.normalise({"not": {"oneOf": branches[:11]}}) is not None


def test_pairs_of_not_one_of() -> None:
    """¬oneOf is "none, or at least two": checked on every subset of three overlapping ranges."""
    branches = [{"minimum": i, "maximum": i + 2} for i in range(3)]
    pushed = normal_form.negated({"oneOf": branches})
    for v in itertools.chain(range(-1, 6), [0.5, 2.5]):
        held = sum(b["minimum"] <= v <= b["maximum"] for b in branches)
        assert jsonschema.Draft202012Validator(pushed).is_valid(v) == (held != 1), v
