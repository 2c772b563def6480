"""propertyNames lowering: golden fixtures, exactness, rejections."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import schemac
from testkit.lower_passes_oracle import check_exact, check_fixture, fixtures, instances, relower


@pytest.mark.parametrize("path", fixtures("property_names"), ids=lambda p: p.stem)
def test_fixture(path):
    check_fixture(path)


SCHEMAS = [
    {"propertyNames": {"enum": ["a", "ab", 1]}, "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
    {"propertyNames": {"const": "a"}, "patternProperties": {"a": {"type": "integer"}}},
    {"propertyNames": {"pattern": "b"}, "properties": {"ab": True, "a": {}}},
    {"propertyNames": {"type": "number"}},
    {"propertyNames": {"minLength": 2, "type": "string"}},
]


@pytest.mark.parametrize("schema", SCHEMAS)
@settings(max_examples=25, deadline=None)
@given(data=st.lists(instances(["a", "ab", "b", "abc"], [1, "a"]), max_size=6))
def test_exact_and_fixpoint(schema, data):
    check_exact(schema, data + [{}, {"a": 1}, {"ab": "x"}, {"b": 1}, {"abc": 2}])
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert relower(lowered) == lowered


@pytest.mark.parametrize("schema", [
    {"propertyNames": {"pattern": "^a", "maxLength": 3}},
    {"propertyNames": {"pattern": "^a"}, "patternProperties": {"b": {}}},
    {"propertyNames": {"pattern": "^a"}, "properties": {"ab": {}}, "additionalProperties": {"type": "string"}},
    {"propertyNames": {"format": "hostname"}},  # its patterns are an allOf
])
def test_rejects_what_has_no_exact_form(schema):
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, use_cache=False)
    assert err.value.codes == ["property-names-not-exact"]


#: (name pattern, listed key, whether ECMA-262 matches): listed keys were once judged by raw RE2
ECMA_KEYS = [
    ("^.$", "\r", False), ("^.$", "\u2028", False), ("^.$", "\U0001f600", True), ("^\\S$", "\r", False),
    ("^\\S$", "\u00a0", False), ("^\\S$", "\ufeff", False), ("^\\s$", "\u0085", False), ("^\\d$", "\u0663", False),
    ("^\\w$", "\u00e9", False), ("^a$", "a\n", False), ("^[^]$", "\n", True), ("^.$", "\u00a0", True),
]


@pytest.mark.parametrize("pattern, key, matches", ECMA_KEYS)
def test_listed_keys_have_ecma_meaning(pattern: str, key: str, matches: bool) -> None:
    """The lowered form, the final validator and the grammar agree with ECMA-262 on a listed key."""
    from testkit.grammar_harness import accepts
    from schemac.validate.final import FinalValidator

    schema = {"propertyNames": {"pattern": pattern}, "properties": {key: {}}}
    art = schemac.compile(schema, use_cache=False)
    assert (art.lowered["properties"][key] is not False) is matches
    assert FinalValidator(schema).is_valid({key: 1}) is matches
    assert accepts(art.grammar, text({key: 1})) is matches


def text(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def test_enum_names_have_ecma_meaning() -> None:
    schema = {"propertyNames": {"enum": ["\r", "a"], "pattern": "^.$"}, "patternProperties": {"\\s": {"type": "integer"}}}
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert lowered["properties"] == {"a": True} and lowered["additionalProperties"] is False


NEGATED = [
    {"propertyNames": {"not": {"const": "a"}}},
    {"propertyNames": {"type": "string", "not": {"enum": ["a", "ab", 1]}}, "properties": {"a": {"type": "integer"}, "b": {}}},
    {"propertyNames": {"not": {"const": "ab", "enum": ["ab", "b"]}}, "additionalProperties": {"type": "string"}},
    {"propertyNames": {"not": {"pattern": "^a"}}, "properties": {"ab": {"type": "integer"}, "b": {}}},
    {"propertyNames": {"not": {"pattern": "b"}}, "additionalProperties": {"type": "integer"}},
    {"propertyNames": {"not": {"pattern": "b|^c$"}}, "properties": {"c": {}}, "patternProperties": {"^a": {"type": "string"}}},
]


@pytest.mark.parametrize("schema", NEGATED)
def test_negated_names_are_exact_on_every_small_object(schema):
    """Every object over keys a/ab/b/c (each absent, 1 or "x"): the grammar admits exactly what
    jsonschema accepts."""
    import itertools
    import json

    from jsonschema import Draft202012Validator
    from testkit.grammar_harness import accepts

    grammar = schemac.compile(schema, use_cache=False).grammar
    validator = Draft202012Validator(schema)
    for values in itertools.product([..., 1, "x"], repeat=4):
        doc = {k: v for k, v in zip(["a", "ab", "b", "c"], values) if v is not ...}
        assert accepts(grammar, json.dumps(doc)) == validator.is_valid(doc), (schema, doc)


@pytest.mark.parametrize("names", [{"not": {"pattern": "a", "maxLength": 3}}, {"not": {"format": "hostname"}}])
def test_other_negated_names_are_refused(names):
    with pytest.raises(schemac.CompileError) as exc:
        schemac.compile({"propertyNames": names}, use_cache=False)
    assert exc.value.codes in (["property-names-not-exact"], ["not-exact"])
