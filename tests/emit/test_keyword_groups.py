"""Keywords that mean one thing together stay together, wherever applicators are written.

`contains` with `minContains`/`maxContains`, `prefixItems` with `items`, and `properties` with
`patternProperties`/`additionalProperties` are read within one schema object. The Lark writer
splits a node into conjuncts at its applicators (allOf parts, `$ref` targets, anyOf branches);
a group split there lost its meaning (`{"contains": C, "allOf": [...], "minContains": 2}`
admitted `[1]`). Each group is written in every keyword order with an applicator at every
place between its keywords and compared with jsonschema on every small instance, key order
aside: a grammar may admit an object in any one order of its keys (syntax policy), never an
invalid one in any order.
"""
from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

jsonschema = pytest.importorskip("jsonschema")
pytest.importorskip("llguidance")

import schemac  # noqa: E402
from testkit.grammar_harness import accepts  # noqa: E402

_GROUPS: dict[str, dict[str, Any]] = {
    "contains": {"contains": {"type": "integer"}, "minContains": 2, "maxContains": 2},
    "items": {"prefixItems": [{"type": "string"}], "items": {"type": "integer"}},
    "object": {"properties": {"a": {"type": "integer"}}, "patternProperties": {"^b": {"type": "string"}},
               "additionalProperties": False},
}
#: Applicators that leave the group's meaning as it is on the instances below (each holds for
#: arrays and objects), so the whole schema means what the group alone means.
_APPLICATORS: list[dict[str, Any]] = [
    {"allOf": [{"type": ["array", "object"]}]},
    {"anyOf": [{"type": "array"}, {"type": "object"}]},
    {"$ref": "#/$defs/container"},
]
_VALUES = [1, "b", None]
_ARRAYS = [list(t) for n in range(4) for t in itertools.product(_VALUES, repeat=n)]
_OBJECTS = [dict(zip(keys, vals)) for n in range(3) for keys in itertools.permutations(["a", "b", "x"], n)
            for vals in itertools.product([1, "b"], repeat=n)]


def _written(group: dict[str, Any], order: tuple[str, ...], at: int, applicator: dict[str, Any]) -> dict[str, Any]:
    keys = list(order)
    node: dict[str, Any] = {}
    for i, k in enumerate([*keys[:at], "*", *keys[at:]]):
        node.update(applicator if k == "*" else {k: group[k]})
    node["$defs"] = {"container": {"type": ["array", "object"]}}
    return node


def _cases() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name, group in _GROUPS.items():
        for order in itertools.permutations(group):
            for at in range(1, len(order)):  # strictly between two of the group's keywords
                for applicator in _APPLICATORS:
                    out.append((name, _written(group, order, at, applicator)))
    return out


@pytest.mark.parametrize(("name", "schema"), _cases(), ids=lambda v: v if isinstance(v, str) else None)
def test_group_split_by_an_applicator_keeps_its_meaning(name: str, schema: dict[str, Any]) -> None:
    grammar = schemac.compile(schema, use_cache=False).grammar
    validator = jsonschema.Draft202012Validator(schema)
    for value in _ARRAYS if name != "object" else _OBJECTS:
        valid = validator.is_valid(value)
        spellings = [json.dumps(value)] if isinstance(value, list) else \
            [json.dumps(dict(p)) for p in itertools.permutations(value.items())]
        admitted = [s for s in spellings if accepts(grammar, s)]
        assert not admitted or valid, f"{json.dumps(schema)} admits invalid {admitted[0]}"
        assert admitted or not valid, f"{json.dumps(schema)} refuses valid {json.dumps(value)} in every key order"
