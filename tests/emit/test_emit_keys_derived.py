"""Object nodes lowering builds in place of a node that names keys name keys too
(`schemac.lower.support.key_names`), so their keys are written canonically.

Issue 29's last finding: the complement of a pattern-key object with a count has a count-only
branch (`not: {minProperties: 2, patternProperties: ...}` holds for `maxProperties: 1`), and so has
a dependency shared by its triggers; naming no key, they were written as llguidance's `%json`,
whose key lexeme also takes `\\u000a`. The walk of `test_emit_keys` (every spelling of every grid
key, jsonschema as the oracle, only canonical keys admitted) runs here over every keyword that
names a key beside every count, under every lowering that builds object nodes from it.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import pytest

import schemac
from testkit.grammar_harness import accepts
from tests.emit.test_emit_keys import _walk

#: every keyword that names a key (at least one key spelt with an escape: `\n`)
KEYED: list[dict[str, Any]] = [
    {"required": ["\n"]},
    {"properties": {"\n": {"type": "integer"}}},
    {"properties": {"a": True}},
    {"patternProperties": {"^\n$": {"type": "integer"}}},
    {"patternProperties": {"^a$": {}}},
    {"propertyNames": {"enum": ["a", "\n"]}},
    {"dependentRequired": {"\n": ["a"]}},
    {"dependentSchemas": {"\n": {"required": ["a"]}}},
    {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}},
    {"properties": {"a": {}}, "unevaluatedProperties": {"type": "string"}},
    {"const": {"a": 1}},
    {"enum": [{"\n": 1}, {"a": "x"}]},
]
COUNTS: list[dict[str, Any]] = [{"minProperties": 2}, {"maxProperties": 1}, {"minProperties": 1, "maxProperties": 1}]
#: the lowerings that build object nodes out of another one: complements (`not`, twice, an `if`
#: guard, the other `oneOf` branch) and a dependency shared by two triggers
WRAPS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "not": lambda s: {"not": s},
    "not-not": lambda s: {"not": {"not": s}},
    "if": lambda s: {"if": s, "then": {"required": ["b"]}},
    "oneOf": lambda s: {"oneOf": [s, {"required": ["b"]}]},
    "shared-dependency": lambda s: {"dependentSchemas": {"b": s, "c": s}},
}


#: keyword and count together; a listed object of one key beside `minProperties: 2` meets no
#: object, so its complement is `true`, no object node (left out)
PAIRS = [(keyed, count) for keyed in KEYED for count in COUNTS
         if not ({"const", "enum"} & keyed.keys() and count.get("minProperties") == 2)]


@pytest.mark.parametrize("wrap", list(WRAPS))
@pytest.mark.parametrize("keyed, count", PAIRS, ids=lambda s: json.dumps(s, ensure_ascii=True)[:40])
def test_derived_objects_keys_exact(keyed: dict[str, Any], count: dict[str, Any], wrap: str) -> None:
    schema = WRAPS[wrap]({**keyed, **count})
    _walk(schemac.compile(schema, use_cache=False).grammar, schema)


def test_count_only_branch_names_keys() -> None:
    """The issue's two reproductions: a complement's count-only branch, alone and negated again."""
    cases = [({"not": {"minProperties": 2, "patternProperties": {"^\n$": {"type": "integer"}}}}, '{"\\u000a": "s"}'),
             ({"not": {"not": {"patternProperties": {"^a$": {}}, "minProperties": 2}}}, '{"\\u000a": 1, "a": 1}')]
    for schema, text in cases:
        grammar = schemac.compile(schema, use_cache=False).grammar
        assert not accepts(grammar, text), schema
        assert accepts(grammar, text.replace("\\u000a", "\\n")), schema


@pytest.mark.parametrize("schema", [{"maxProperties": 1}, {"not": {"minProperties": 2}},
                                    {"anyOf": [{"required": ["a"]}, {"maxProperties": 1}]}])
def test_counts_alone_stay_json(schema: dict[str, Any]) -> None:
    """A node that names no key keeps llguidance's form (its count has no key to spell): the
    rule is per node, so lowering adds names only where the node it builds from had them."""
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert "patternProperties" not in json.dumps(lowered), lowered


def test_dependencies_every_object_meets_still_name_keys() -> None:
    """`dependentSchemas: {k: true}` and `dependentRequired: {k: []}` constrain nothing but name
    `k`, as `properties: {k: true}` does: dropped by lowering, they leave every key named."""
    for schema in [{"dependentSchemas": {"\n": True}, "maxProperties": 1}, {"dependentRequired": {"\n": []}}]:
        grammar = schemac.compile(schema, use_cache=False).grammar
        assert accepts(grammar, '{"\\n": 1}') and not accepts(grammar, '{"\\u000a": 1}'), schema


def test_large_count_complement_is_one_rule() -> None:
    """A count-only object written in Lark builds only the tails its counts reach: the complement
    of `minProperties: 5001` beside a key (`maxProperties: 5000`, keys named) compiles small,
    as its `%json` form did, instead of passing the object state bound (`too-large`)."""
    art = schemac.compile({"not": {"required": ["\n"], "minProperties": 5001}}, use_cache=False)
    assert len(art.grammar) < 4096
    assert accepts(art.grammar, '{"\\n": 1, "b": 2}') and not accepts(art.grammar, '{"\\u000a": 1}')
