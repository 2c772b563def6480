"""Lark emission for arrays (schemac.emit.lark.writer): exact both ways, rejection above unwritable nodes,
budget, and the JSON path untouched where no array needs Lark."""
from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given, settings, strategies as st

import schemac
from testkit.grammar_harness import accepts
from testkit.lower_passes_oracle import relower
from testkit.exactness import check, jsonschema_oracle
from schemac.budget import Limits
from schemac.lower.support.marks import MARK

ATOMS = st.sampled_from([0, 1, 2, 3, 5, 6, 42, "a", "b", "c", True, None])
VALUES = st.recursive(ATOMS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(["a", "b", "x"]), inner, max_size=2), max_leaves=8)
ARRAYS = st.lists(VALUES, max_size=7)

SCHEMAS = [
    {"contains": {"const": 1}},
    {"contains": {"minimum": 5}},
    {"items": {"multipleOf": 2}, "contains": {"multipleOf": 3}},
    {"contains": {"const": 1}, "minContains": 2, "maxContains": 3},
    {"contains": {"type": "string"}, "maxContains": 1, "minItems": 2},
    {"prefixItems": [{"type": "string"}, {"const": 1}], "contains": {"const": 1}, "minContains": 2},
    {"type": "array", "items": {"type": "array"}, "contains": {"contains": {"const": 42}}},
    {"allOf": [{"contains": {"multipleOf": 2}}, {"contains": {"const": 3}, "maxContains": 1}]},
    {"type": "object", "properties": {"a": {"contains": {"const": "a"}}, "b": {"type": "integer"}},
     "required": ["b"], "additionalProperties": False},
    {"anyOf": [{"type": "string"}, {"contains": {"const": 2}, "minContains": 2}]},
    {"patternProperties": {"^a": {"contains": {"const": 1}}}},  # open objects above: exact key terminals
    {"type": "object", "properties": {"a": {"contains": {"const": 1}}}},
    {"$defs": {"t": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/t"},
                                                    "contains": {"const": 0}}]}},
     "$ref": "#/$defs/t"},
    {"items": {"enum": ["a", "b", "c", "x", 1, 2, 3, 5, 6, True, None]}, "uniqueItems": True},
    {"prefixItems": [{"enum": ["a", "b"]}, {"type": "boolean"}], "items": {"enum": ["a", "b", "c", 1, 2, 3, 5]},
     "uniqueItems": True, "minItems": 1, "maxItems": 5},
]


def _is_lark(grammar: str) -> bool:
    return json.loads(grammar)["grammars"][0].get("lark_grammar") is not None


def _check(schema, data) -> None:
    """The grammar is exact on `data` (json.dumps spellings) and the lowered schema judges every
    value as the original does (the name is kept: the hypothesis test below calls it, and its
    examples are drawn from its source)."""
    art = check(schema, [json.dumps(value) for value in data], oracle=jsonschema_oracle(schema))
    validator, lowered = jsonschema.Draft202012Validator(schema), jsonschema.Draft202012Validator(art.lowered)
    for value in data:
        assert lowered.is_valid(value) is validator.is_valid(value), value


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: json.dumps(s)[:50])
@settings(max_examples=40, deadline=None)
@given(data=st.lists(ARRAYS, max_size=6))
def test_exact_both_ways(schema, data):
    """Grammar acceptance equals the oracle (instances without floats or multi-key objects in
    other than `properties` order, so completeness gaps of the syntax policy play no part)."""
    objects = [{"b": 1}, {"a": ["a"], "b": 2}, {"a": ["b", 1], "b": 3}, {"a": [], "b": 0}, {"a": ["a"]}]
    _check(schema, data + objects + [[], "s", 7, [[42]], [1, 1, 1], [6, 2, 3], [0, [0, 1]], ["a", True, 2]])


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: json.dumps(s)[:50])
def test_marked_and_fixpoint(schema):
    art = schemac.compile(schema, use_cache=False)
    assert MARK in json.dumps(art.lowered) and _is_lark(art.grammar)
    assert relower(art.lowered) == art.lowered


def test_json_path_kept_without_marks():
    art = schemac.compile({"contains": {"const": "a"}, "maxItems": 2}, use_cache=False)  # nothing needs Lark
    assert not _is_lark(art.grammar) and MARK not in json.dumps(art.lowered)


@pytest.mark.parametrize("schema", [
    {"enum": [[i] for i in range(65)], "contains": {"const": 1}},  # the listed values, filtered exactly
    {"items": {"enum": [1, 2, 3]}, "uniqueItems": True, "contains": {"const": 1}},
])
def test_once_unwritable_neighbourhood_now_exact(schema):
    """Listed values beside a marked array are filtered by the final validator and written
    exactly, so these no longer need rejecting."""
    _check(schema, [[1], [2], [0], [1, 2], [2, 1], [1, 1], [2, 3], [3, 2, 1], [], "s"])


def test_small_enum_beside_contains_is_enumerated():
    """A literal-bounded node is judged value by value, so `contains` costs no Lark array."""
    art = schemac.compile({"enum": [[1], [2], [2, 1]], "contains": {"const": 1}}, use_cache=False)
    assert art.lowered == {"enum": [[1], [2, 1]]}
    assert accepts(art.grammar, "[2,1]") and not accepts(art.grammar, "[2]")


def test_unique_too_many_values_rejected():
    schema = {"items": {"enum": list(range(65))}, "uniqueItems": True}
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, use_cache=False)
    assert err.value.codes == ["unique-items-unbounded"]


def test_unique_budget_just_under_and_over():
    """The Lark form charges one entry per (position, value) alternative: 12 values, one slot."""
    schema = {"items": {"enum": list(range(12))}, "uniqueItems": True}
    schemac.compile(schema, limits=Limits(entries=12), use_cache=False)
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, limits=Limits(entries=11), use_cache=False)
    assert err.value.codes == ["budget-exhausted"]


def test_path_never_depends_on_the_budget_left():
    """16 arrays fit the enumeration threshold: a small budget exhausts, it never switches path."""
    schema = {"items": {"enum": [1, 2, 3]}, "uniqueItems": True}
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, limits=Limits(entries=15), use_cache=False)
    assert err.value.codes == ["budget-exhausted"]
    bounded = {"contains": {"const": 1}, "maxItems": 12, "minContains": 6}  # C(12, 6) = 924 > 256
    assert _is_lark(schemac.compile(bounded, use_cache=False).grammar)


def _prefix_ok(grammar: str, text: str) -> bool:
    """Whether the grammar lets generation continue through `text` (not necessarily stop there)."""
    from llguidance import LLMatcher

    from testkit.grammar_harness import _tokenizer

    matcher = LLMatcher(_tokenizer(), grammar, log_level=0)
    return bool(matcher.consume_tokens(list(text.encode()))) and not matcher.is_error()


def test_unique_lark_form_keeps_item_constraints_and_has_no_dead_end():
    """The Lark uniqueItems form offers only values the whole item schema admits (the pattern
    drops g and h), and offers `, ` only while a value is left to follow."""
    schema = {"items": {"enum": list("abcdefgh"), "pattern": "^[a-f]$"}, "uniqueItems": True}
    art = schemac.compile(schema, use_cache=False)
    assert _is_lark(art.grammar)
    assert accepts(art.grammar, '["a", "f"]') and not accepts(art.grammar, '["g"]')
    six = '["a", "b", "c", "d", "e", "f"'
    assert accepts(art.grammar, six + "]") and not _prefix_ok(art.grammar, six + ",")
    bounded = {"items": {"enum": list("abcdefgh")}, "uniqueItems": True, "maxItems": 7}
    art = schemac.compile(bounded, use_cache=False)
    seven = '["a", "b", "c", "d", "e", "f", "g"'
    assert _is_lark(art.grammar) and accepts(art.grammar, seven + "]") and not _prefix_ok(art.grammar, seven + ",")


@pytest.mark.parametrize("lo, hi", [(0, None), (0, 0), (0, 1), (1, 1), (1, None), (2, 3), (3, 2)])
def test_repeated_items_are_counted_exactly(lo: int, hi: int | None) -> None:
    """Arrays of one item schema (needing Lark: listed keys) and counts only: one repetition,
    every array of 0..4 items over a small value set judged as jsonschema does."""
    from itertools import product

    schema: dict = {"type": "array", "items": {"type": "object", "properties": {"a": {"const": 1}}}, "minItems": lo}
    if hi is not None:
        schema["maxItems"] = hi
    oracle = jsonschema.Draft202012Validator(schema)
    try:
        grammar = schemac.compile(schema, use_cache=False).grammar
    except schemac.CompileError as exc:
        assert exc.codes == ["unsatisfiable"] and hi is not None and hi < lo
        return
    for n in range(5):
        for items in product([{}, {"a": 1}, {"a": 2}, 1], repeat=n):
            text = json.dumps(list(items))
            assert accepts(grammar, text) == oracle.is_valid(list(items)), (schema, text)


def test_long_minimum_counts_stay_shallow() -> None:
    """`minItems: 600` once wrote one rule per position, a chain past the rule-depth bound."""
    schemac.compile({"type": "array", "items": {"type": "object", "properties": {"a": {}}}, "minItems": 600},
                    use_cache=False)
