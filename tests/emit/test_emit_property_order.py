"""Property order of merged objects: where allOf parts, `$ref` targets and anyOf/oneOf branches
list keys, the answer follows every list that agrees with the node's own (`lark_merge.interleave`).

The order merge is walked exhaustively over every pair of key lists from a four-key alphabet;
the grammar tests show each merge site (allOf part, `$ref`, oneOf branch, lowered `if`) writes
the interleaved order, whichever keyword the schema author wrote first.
"""
from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

import schemac
from testkit.grammar_harness import accepts
from schemac.emit.lark.merge import interleave

KEYS = "abcd"


def _lists() -> list[list[str]]:
    return [list(p) for n in range(len(KEYS) + 1) for c in itertools.combinations(KEYS, n)
            for p in itertools.permutations(c)]


def _follows(out: list[str], order: list[str]) -> bool:
    at = [out.index(k) for k in order]
    return at == sorted(at)


def _placed_one_by_one(first: list[str], second: list[str]) -> list[str]:
    """The rule `interleave` computes in linear time, applied literally: each new key inserted at
    the later of (just after its last placed predecessor in `second`, just before its first
    placed successor there)."""
    out = list(first)
    for i, key in enumerate(second):
        if key not in out:
            low = max((out.index(k) + 1 for k in second[:i] if k in out), default=0)
            high = min((out.index(k) for k in second[i + 1:] if k in out), default=len(out))
            out.insert(max(low, high), key)
    return out


def test_interleave_follows_both_lists_where_they_agree() -> None:
    lists = _lists()
    for first, second in itertools.product(lists, lists):
        out = interleave(first, second)
        assert out == _placed_one_by_one(first, second), (first, second, out)
        assert sorted(out) == sorted(set(first) | set(second)), (first, second, out)
        assert _follows(out, first), (first, second, out)
        common = [k for k in second if k in first]
        if _follows(first, common):  # the two lists agree on the keys they share
            assert _follows(out, second), (first, second, out)


STRING = {"type": "string"}

#: (schema, the one key order its grammar admits)
CASES: list[tuple[dict[str, Any], list[str]]] = [
    # a oneOf written before `properties` (sorted schema keys): its keys fall in among the node's
    ({"additionalProperties": False,
      "oneOf": [{"properties": {"g": {"const": "x"}, "r": {"const": "y"}}, "required": ["g", "r"]},
                {"properties": {"g": {"const": "z"}, "r": {"const": "w"}}, "required": ["g", "r"]}],
      "properties": {"g": STRING, "u": STRING, "r": STRING, "s": STRING}, "required": ["u", "s"], "type": "object"},
     ["g", "u", "r", "s"]),
    # a oneOf alone in an allOf part is hoisted after the allOf: its own key goes last
    ({"allOf": [{"$ref": "#/$defs/named"},
                {"oneOf": [{"properties": {"kids": {"type": "array"}}, "required": ["kids"]},
                           {"properties": {"leaf": {"type": "boolean"}}, "required": ["leaf"]}]},
                {"properties": {"desc": STRING, "scale": STRING}, "required": ["desc", "scale"]}],
      "$defs": {"named": {"properties": {"name": STRING}, "required": ["name"]}}},
     ["name", "desc", "scale", "kids"]),
    # a branch key before a key the node lists goes before it, though the oneOf is written last
    ({"properties": {"kind": STRING, "id": {"type": "integer"}}, "required": ["id"],
      "oneOf": [{"properties": {"close": {"type": "boolean"}, "kind": {"const": "f"}}, "required": ["close", "kind"]},
                {"properties": {"kind": {"const": "r"}}, "required": ["kind"]}]},
     ["close", "kind", "id"]),
    # a lowered `if`/`then` keeps the node's order too
    ({"if": {"properties": {"k": {"const": "a"}}, "required": ["k"]},
      "then": {"properties": {"k": {}, "v": {"const": 1}}, "required": ["v"]},
      "properties": {"k": STRING, "v": {"type": "integer"}, "w": STRING}, "required": ["k", "w"],
      "additionalProperties": False},
     ["k", "v", "w"]),
]


def _instance(schema: dict[str, Any], order: list[str]) -> dict[str, Any]:
    values = {"g": "x", "r": "y", "u": "1", "s": "2", "name": "n", "kids": [], "desc": "d", "scale": "s",
              "close": True, "kind": "f", "id": 3, "k": "a", "v": 1, "w": "x"}
    return {k: values[k] for k in order}


@pytest.mark.parametrize("schema,order", CASES)
def test_merged_objects_follow_the_interleaved_order(schema: dict[str, Any], order: list[str]) -> None:
    grammar = schemac.compile(schema, use_cache=False, key_order="properties").grammar
    value = _instance(schema, order)
    assert accepts(grammar, json.dumps(value)), (order, grammar)
    for other in itertools.permutations(order):  # `properties`' order: exactly one order is admitted
        if list(other) != order:
            assert not accepts(grammar, json.dumps({k: value[k] for k in other})), other
