"""allOf parts with different patternProperties beside additionalProperties, walked exhaustively.

A side's additionalProperties binds the keys it neither lists nor matches, so pooling the other
side's patterns would free keys it binds; `merge_objects` keeps it apart as a universal key class
(`lark_merge.EVERY`), which the Lark object writer applies to each extras class whose patterns
leave it. Every object over the grid of `test_lower_object_witness` (escaped key spellings too)
is offered to the grammar, jsonschema on the original schema being the oracle, both ways.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

import schemac
from schemac.emit.lark.merge import EVERY, merge_objects
from tests.lower.test_lower_object_witness import INT, _walk

MERGED = [
    {"type": "object", "allOf": [{"patternProperties": {"^x": {"const": 0}}, "additionalProperties": INT},
                                 {"patternProperties": {"a$": {"type": "string"}}, "additionalProperties": {"type": "integer", "minimum": 1}}]},
    # a key listed on one side only falls under the other side's additionalProperties
    {"type": "object", "allOf": [{"properties": {"a": {}}, "additionalProperties": False}, {"patternProperties": {"^x": INT}}]},
    {"type": "object", "minProperties": 1, "maxProperties": 2,
     "allOf": [{"properties": {"z": INT}, "patternProperties": {"^x": {}}, "additionalProperties": {"const": 0}},
               {"patternProperties": {"a": {"type": "integer", "minimum": 1}}, "additionalProperties": INT}]},
    # three parts: a merged node merged again; a listed key matching patterns of both sides
    {"type": "object", "allOf": [{"patternProperties": {"^x": INT}, "additionalProperties": {"const": 1}},
                                 {"patternProperties": {"a$": {}}, "additionalProperties": False},
                                 {"properties": {"xa": {"const": 1}, "z": {}}, "additionalProperties": INT}]},
    # a required key outside `properties`, max 0/1
    {"type": "object", "required": ["z"], "allOf": [{"patternProperties": {"^x": {}}, "additionalProperties": INT},
                                                    {"patternProperties": {"a": {"const": 0}}}]},
    {"type": "object", "maxProperties": 1, "allOf": [{"patternProperties": {"^x": {}}, "additionalProperties": INT},
                                                     {"patternProperties": {"a": {"const": 0}}}]},
    {"type": "object", "maxProperties": 0, "allOf": [{"patternProperties": {"^x": {}}, "additionalProperties": INT},
                                                     {"patternProperties": {"a": {"const": 0}}}]},
    # both sides restricted, patterns of the same schema, a witness beside (cf. MaskBench allOfPProp2)
    {"type": "object", "allOf": [{"patternProperties": {"^.{1,2}$": False}, "additionalProperties": True},
                                 {"patternProperties": {"a": True}, "additionalProperties": False}],
     "not": {"patternProperties": {"^x": {"const": 0}}}},
    {"type": "object", "allOf": [{"patternProperties": {"^x": INT, "a": INT}, "additionalProperties": {"const": 0}},
                                 {"patternProperties": {"^z": {}, "xa": INT}, "additionalProperties": {"type": "string"}}]},
    # inside anyOf branches
    {"type": "object", "anyOf": [{"allOf": [{"patternProperties": {"^x": {}}, "additionalProperties": False},
                                            {"patternProperties": {"a": INT}}]},
                                 {"required": ["z"], "maxProperties": 1}]},
]


@pytest.mark.parametrize("schema", MERGED, ids=lambda s: json.dumps(s)[:70])
def test_merge_is_exact(schema: dict[str, Any]) -> None:
    _walk(schema)


def test_merge_keeps_additional_apart_only_where_needed() -> None:
    """Same patterns on both sides: pooled as before, no universal class; different: one class
    per restricted side whose patterns miss the other's, carrying its listed keys."""
    same = merge_objects({"patternProperties": {"^x": INT}, "additionalProperties": False},
                         {"patternProperties": {"^x": {"const": 1}}, "additionalProperties": INT}, "")
    assert EVERY not in same and same["additionalProperties"] is False
    apart = merge_objects({"properties": {"a": {}}, "patternProperties": {"^x": INT}, "additionalProperties": False},
                          {"patternProperties": {"a$": INT}}, "")
    assert apart[EVERY] == [{"keys": ["a"], "patterns": ["^x"], "value": False}]
    assert "additionalProperties" not in apart and set(apart["patternProperties"]) == {"^x", "a$"}


def test_too_many_pattern_groups_are_rejected() -> None:
    """Keys split by the pattern groups they match: past `MAX_PATTERNS` groups, rejected (here
    unanchored patterns, so that every subset of groups holds a key)."""
    from schemac.emit.lark.object_classes import MAX_PATTERNS
    from schemac.diagnostics import CompileError

    parts = [{"patternProperties": {chr(97 + i): {"const": i}}, "additionalProperties": INT} for i in range(MAX_PATTERNS + 1)]
    with pytest.raises(CompileError) as err:
        schemac.compile({"type": "object", "allOf": parts}, use_cache=False)
    assert "patternProperties with different schemas" in str(err.value)


@pytest.mark.parametrize("left, right", [
    ({"const": 1}, {"const": True}), ({"const": 1}, {"const": 1.0}), ({"enum": [1, 2, "s"]}, {"enum": [True, 1.0, "s"]}),
    ({"enum": [0, False]}, {"enum": [False, None]}), ({"const": [1]}, {"const": [1.0]}),
])
def test_merged_values_meet_by_json_equality(left: dict[str, Any], right: dict[str, Any]) -> None:
    """Two parts' `const`/`enum` for one key meet by JSON equality (1 = 1.0, never true), not
    Python's (1 == True) and not by spelling, whichever stage meets them first (the dead-branch
    screen or `_merge_two`): every value walked against jsonschema."""
    import jsonschema

    from testkit.grammar_harness import accepts

    schema = {"type": "object", "allOf": [{"patternProperties": {"^x": {}}, "additionalProperties": left},
                                          {"patternProperties": {"^z": {}}, "additionalProperties": right}]}
    oracle = jsonschema.Draft202012Validator(schema)
    grammar = schemac.compile(schema, use_cache=False).grammar
    for text in ("1", "1.0", "true", "false", "0", "2", "null", '"s"', "[1]", "[1.0]", "[true]"):
        whole = '{"a": ' + text + "}"
        assert accepts(grammar, whole) == oracle.is_valid(json.loads(whole)), (schema, whole)
