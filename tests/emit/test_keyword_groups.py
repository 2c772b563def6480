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

from schemac.validate.final import FinalValidator
from testkit.exactness import check_every_order, spelled

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


# ---- one conjunct per node (`lark_merge.conjuncts`): a node's own keywords across allOf, $ref, anyOf,
# oneOf and if, and partners in another node that must not bind (attack round 11)

ARRAYS = [list(t) for n in range(4) for t in itertools.product([1, 2, "a"], repeat=n)]


OBJ_KEYS = ["a", "b", "c", "xa", ""]


OBJ_VALUES: list[Any] = [1, "s"]


OBJECTS = [dict(zip(ks, vs)) for n in range(3) for ks in itertools.combinations(OBJ_KEYS, n)
           for vs in itertools.product(OBJ_VALUES, repeat=n)]


C1 = {"const": 1}


DEFS = {"arr": {"type": "array"}, "props2": {"properties": {"b": {}, "a": {}}}, "c1": {"contains": C1}, "props": {"properties": {"a": {}, "b": {}}},
        "if1": {"if": {"const": [1]}}, "pre": {"prefixItems": [{"type": "string"}]}, "closed": {"additionalProperties": False},
        "req_a": {"required": ["a"]}, "itemsint": {"items": {"type": "integer"}}}


SPLIT_ARRAY_SCHEMAS = [
    {"type": "array", "contains": C1, "allOf": [{"items": {"type": "integer"}}], "minContains": 2},
    {"contains": C1, "$ref": "#/$defs/arr", "maxContains": 1},
    {"contains": C1, "anyOf": [{"maxItems": 2}, {"minItems": 3}], "minContains": 2, "maxContains": 2},
    {"contains": C1, "oneOf": [{"maxItems": 1}, {"minItems": 1}], "maxContains": 0},
    {"prefixItems": [{"type": "integer"}], "anyOf": [{"minItems": 2}, {"maxItems": 0}], "items": {"type": "string"}},
    {"uniqueItems": True, "allOf": [{"items": {"enum": [1, 2, "a"]}}], "maxItems": 3},
    {"unevaluatedItems": False, "allOf": [{"prefixItems": [{}]}], "prefixItems": [{}, {}]},
    {"contains": {"type": "string"}, "allOf": [{"contains": {"type": "integer"}, "minContains": 2}], "maxContains": 1},
    # keywords whose partner sits in ANOTHER node do not bind to it
    {"contains": C1, "allOf": [{"minContains": 2}]},
    {"contains": C1, "allOf": [{"maxContains": 0}]},
    {"allOf": [{"contains": C1}], "minContains": 0},
    {"maxContains": 1, "$ref": "#/$defs/c1"},
    {"minContains": 0, "$ref": "#/$defs/c1"},
    {"minContains": 2, "$ref": "#/$defs/c1", "contains": {"type": "integer"}},
    {"items": {"type": "integer"}, "allOf": [{"prefixItems": [{"type": "string"}]}]},
    {"prefixItems": [{"type": "string"}], "allOf": [{"items": {"type": "integer"}}]},
    {"items": {"type": "integer"}, "$ref": "#/$defs/pre"},
    {"prefixItems": [{"type": "string"}], "$ref": "#/$defs/itemsint"},
    {"allOf": [{"if": {"const": [1]}}], "then": {"const": [2]}},
    {"then": {"const": [2]}, "$ref": "#/$defs/if1", "else": {"maxItems": 1}},
    {"if": {"contains": C1}, "allOf": [{"minItems": 1}], "then": {"maxItems": 2}, "else": {"minItems": 3}},
    {"uniqueItems": True, "$ref": "#/$defs/pre", "items": {"enum": [1, 2]}},
    {"allOf": [{"unevaluatedItems": False}], "prefixItems": [{}]},
    {"unevaluatedItems": {"type": "integer"}, "anyOf": [{"prefixItems": [{"type": "string"}]}, {"items": {"const": 2}}]},
    {"contains": C1, "allOf": [{"contains": {"const": 2}, "maxContains": 1}], "minContains": 2, "maxItems": 3},
    {"allOf": [{"allOf": [{"contains": C1}]}, {"minContains": 3}], "contains": {"const": 2}, "maxContains": 1},
]


SPLIT_OBJECT_SCHEMAS = [
    {"properties": {"a": {"type": "integer"}}, "allOf": [{"required": ["a"]}], "additionalProperties": False},
    {"patternProperties": {"^x": {"type": "string"}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
     "additionalProperties": {"type": "integer"}, "properties": {"a": {}, "b": {}}},
    {"minProperties": 2, "$ref": "#/$defs/props", "maxProperties": 2, "properties": {"c": {}}},
    {"dependentRequired": {"a": ["b"]}, "allOf": [{"properties": {"a": {}, "b": {}}}], "additionalProperties": False},
    {"if": {"required": ["a"]}, "allOf": [{"properties": {"a": {"type": "integer"}}}], "then": {"required": ["b"]}, "else": {"maxProperties": 0}},
    {"unevaluatedProperties": False, "allOf": [{"properties": {"a": {}}}], "properties": {"b": {}}},
    {"properties": {"a": {}}, "allOf": [{"additionalProperties": False}]},
    {"additionalProperties": False, "allOf": [{"properties": {"a": {}}}]},
    {"additionalProperties": False, "$ref": "#/$defs/props"},
    {"properties": {"c": {}}, "$ref": "#/$defs/closed"},
    {"patternProperties": {"^a": {}}, "allOf": [{"additionalProperties": {"type": "integer"}}]},
    {"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False},
    {"properties": {"b": {"type": "string"}}, "anyOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"required": ["c"]}],
     "additionalProperties": False, "minProperties": 2},
    {"required": ["c"], "$ref": "#/$defs/props", "additionalProperties": {"const": 1}, "maxProperties": 2},
    {"propertyNames": {"maxLength": 1}, "allOf": [{"properties": {"xa": {}}}], "patternProperties": {"^x": {"type": "integer"}}},
    {"dependentSchemas": {"a": {"required": ["c"]}}, "$ref": "#/$defs/req_a", "properties": {"c": {"const": 1}}},
    {"minProperties": 1, "allOf": [{"maxProperties": 1}, {"properties": {"a": {"const": 1}}}], "additionalProperties": {"type": "string"}},
    {"allOf": [{"properties": {"b": {}, "a": {}}}], "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a", "b"]},
    {"properties": {"a": {"type": "integer"}}, "allOf": [{"properties": {"b": {}, "a": {}}}], "required": ["b", "a"], "additionalProperties": False},
]


@pytest.mark.parametrize("i", range(len(SPLIT_ARRAY_SCHEMAS)))
def test_split_keyword_groups_arrays(i: int) -> None:
    schema = {**SPLIT_ARRAY_SCHEMAS[i], "$defs": DEFS}
    check_every_order(schema, ARRAYS + [1, "a", {}], {"unique-items-unbounded", "contains-unbounded", "grammar-error", "unsatisfiable"})


@pytest.mark.parametrize("i", range(len(SPLIT_OBJECT_SCHEMAS)))
def test_split_keyword_groups_objects(i: int) -> None:
    schema = {**SPLIT_OBJECT_SCHEMAS[i], "$defs": DEFS}
    check_every_order(schema, OBJECTS + [1, [], {"a": 1, "b": "s", "c": 1}], {"grammar-error", "unsatisfiable", "property-names-not-exact"})


@pytest.mark.parametrize("schema,order", [
    ({"required": ["a", "b", "c"], "allOf": [{"properties": {"c": {}, "b": {}}}], "properties": {"a": {}, "b": {}}}, ["c", "a", "b"]),
    ({"properties": {"a": {}, "b": {}}, "required": ["a", "b", "c"], "allOf": [{"properties": {"c": {}, "b": {}}}]}, ["a", "c", "b"]),
    ({"minProperties": 3, "$ref": "#/$defs/props2", "properties": {"c": {}, "a": {}}}, ["b", "c", "a"]),
    ({"properties": {"c": {}, "a": {}}, "minProperties": 3, "$ref": "#/$defs/props2"}, ["c", "b", "a"]),
    ({"additionalProperties": False, "allOf": [{"properties": {"c": {}}}], "properties": {"a": {}, "c": {}, "b": {}},
      "required": ["a", "b", "c"]}, ["a", "c", "b"]),
    ({"required": ["a", "b", "c"], "anyOf": [{"properties": {"b": {}, "c": {}}}], "maxProperties": 3, "properties": {"c": {}, "a": {}}},
     ["b", "c", "a"]),
    ({"dependentRequired": {"a": ["b", "c"]}, "$ref": "#/$defs/props2", "properties": {"c": {}, "a": {}}, "required": ["a"]}, ["b", "c", "a"]),
    ({"properties": {"c": {}, "a": {}}, "dependentRequired": {"a": ["b", "c"]}, "$ref": "#/$defs/props2", "required": ["a"]}, ["c", "b", "a"]),
], ids=lambda v: json.dumps(v)[:50])
def test_merged_property_order_follows_anchor(schema: dict[str, Any], order: list[str]) -> None:
    """The node's own keywords stand where its `properties` is written (README "Property order")."""
    schema = {**schema, "$defs": DEFS}
    value = {k: 1 for k in order}
    assert FinalValidator(schema).is_valid(value)
    art = check_every_order(schema, [value, {"a": 1}, {"a": 1, "b": 1}, {"c": 1, "a": 1, "b": 1, "xa": 1}])
    assert accepts(art.grammar, spelled(value, tuple(order))), order


def _random_array_node(rng: Any, depth: int = 0) -> dict[str, Any]:
    """Array keywords in a random written order, applicators (allOf, $ref, anyOf, oneOf, if)
    between them: the node's own keywords must still mean one thing together."""
    item = lambda: rng.choice([{"const": 1}, {"type": "integer"}, {"type": "string"}, {"enum": [1, 2]}, True, {"const": "a"}])  # noqa: E731
    parts: list[tuple[str, Any]] = []
    if rng.random() < 0.6:
        parts.append(("contains", item()))
    if rng.random() < 0.4:
        parts.append(("minContains", rng.randrange(0, 3)))
    if rng.random() < 0.4:
        parts.append(("maxContains", rng.randrange(0, 3)))
    if rng.random() < 0.4:
        parts.append(("prefixItems", [item() for _ in range(rng.randrange(1, 3))]))
    if rng.random() < 0.4:
        parts.append(("items", rng.choice([item(), False])))
    if rng.random() < 0.2:
        parts.append(("maxItems", rng.randrange(0, 4)))
    if rng.random() < 0.2:
        parts.append(("unevaluatedItems", rng.choice([False, {"const": 2}])))
    if depth < 1:
        for kw in rng.sample(["allOf", "$ref", "anyOf", "oneOf", "if"], rng.randrange(1, 3)):
            sub = _random_array_node(rng, depth + 1)
            if kw == "allOf":
                parts.append((kw, [sub]))
            elif kw == "$ref":
                parts.append((kw, "#/$defs/" + rng.choice(["c1", "pre", "itemsint", "if1", "arr"])))
            elif kw == "if":
                parts.append((kw, sub))
                parts.append(("then", {"maxItems": 2}))
            else:
                parts.append((kw, [sub, _random_array_node(rng, depth + 1)]))
    rng.shuffle(parts)
    return dict(parts)


@pytest.mark.parametrize("seed", range(30))
def test_random_split_array_keywords(seed: int) -> None:
    import random

    schema = {"type": "array", **_random_array_node(random.Random(seed * 104729)), "$defs": DEFS}
    check_every_order(schema, ARRAYS + [[1, 1, 1, 1], ["a", "a"]], {"unique-items-unbounded", "contains-unbounded", "grammar-error",
                                                                     "unsatisfiable", "not-exact", "one-of-not-exact", "if-not-exact"})
