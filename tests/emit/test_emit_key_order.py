"""The `key_order="any"` policy (`schemac.emit.lark.object_free`), walked exhaustively.

Every object over a small alphabet of keys (listed, pattern-matching, other) and values,
0..4 entries in every order, is offered to the grammar compiled with `key_order="any"`; jsonschema on
the original schema is the oracle (ASCII patterns, where Python's `re` and ECMA-262 agree).
Soundness: no invalid object is accepted in any order. Completeness, stronger than the default
policy's: every valid object with distinct keys is accepted in every order. Escaped key
spellings are refused. Objects past `MAX_FREE_KEYS` listed keys keep schema order.
"""
from __future__ import annotations

import json
from functools import partial
from itertools import permutations, product
from typing import Any

import jsonschema
import pytest

import schemac
from testkit.grammar_harness import accepts
from schemac.diagnostics import CompileError
from schemac.emit.lark.object_free import MAX_FREE_KEYS

KEYS = ["a", "b", "x", "xa"]
VALUES = [0, "s", None]
OBJECTS = [list(zip(ks, vs)) for n in range(len(KEYS) + 1) for ks in permutations(KEYS, n) for vs in product(VALUES, repeat=n)]


def _text(entries: list[tuple[str, Any]]) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in entries) + "}"


def walk_any_order(schema: Any, grid: list[list[tuple[str, Any]]] | None = None, wrap: str = "{}",
                   oracle: Any = None) -> None:
    """Compile `schema` under the any-order policy and compare it with `oracle` (jsonschema by
    default) on every object of `grid` (this module's by default), inside `wrap` (where `{}`
    stands for the object's text): admitted iff valid, whatever the order of its entries; escaped
    spellings of a key refused. A rejection only as `unsatisfiable`, and then no object is valid.
    Shared with the attack rounds."""
    grid = OBJECTS if grid is None else grid
    oracle = oracle or jsonschema.Draft202012Validator(schema)
    try:
        art = schemac.compile(schema, use_cache=False, key_order="any")
    except CompileError as exc:
        assert exc.codes == ["unsatisfiable"], (schema, exc)
        assert not any(oracle.is_valid(json.loads(wrap.replace("{}", _text(e)))) for e in grid), schema
        return
    accepted = partial(accepts, art.grammar)
    for entries in grid:
        text = wrap.replace("{}", _text(entries))
        got, valid = accepted(text), oracle.is_valid(json.loads(text))
        assert got == valid, ("accepted an invalid object" if got else "refused a valid object", schema, text)
        if entries and entries[0][0] and len(entries) <= 2:
            k, v = entries[0]
            escaped = text.replace(f'"{k}": ', f'"\\u{ord(k[0]):04x}{k[1:]}": ', 1)
            assert escaped == text or not accepted(escaped), ("escaped key spelling accepted", schema, escaped)


INT = {"type": "integer"}
ANY_ORDER = [
    {"type": "object", "properties": {"a": INT, "b": {"type": "string"}}},
    {"type": "object", "properties": {"a": INT, "b": {}}, "required": ["b", "a"], "additionalProperties": False},
    {"type": "object", "properties": {"a": INT, "b": {}}, "required": ["a"], "additionalProperties": {"type": "null"}},
    {"type": "object", "required": ["a", "xa"]},  # listed by `required` alone: no `properties`
    {"type": "object", "properties": {"a": {}}, "patternProperties": {"^x": INT}, "additionalProperties": False},
    {"type": "object", "properties": {"xa": {"const": 0}, "b": {}}, "patternProperties": {"^x": INT}},
    # min/maxProperties counted over listed keys and extras, in any order
    {"type": "object", "properties": {"a": INT, "b": {}}, "minProperties": 2},
    {"type": "object", "properties": {"a": INT, "b": {}}, "maxProperties": 2, "required": ["b"]},
    {"type": "object", "properties": {"a": {}}, "minProperties": 1, "maxProperties": 2, "additionalProperties": INT},
    {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"], "maxProperties": 2},
    # witnesses (complements over open key sets), one and several
    {"type": "object", "properties": {"a": INT}, "not": {"additionalProperties": INT}},
    {"type": "object", "properties": {"x": {"const": 0}, "a": {}}, "required": ["a"],
     "not": {"patternProperties": {"^x": {"const": 0}}}},
    {"type": "object", "properties": {"b": {}}, "maxProperties": 2,
     "allOf": [{"not": {"patternProperties": {"^x": {"const": 0}}}}, {"not": {"patternProperties": {"a$": {"type": "string"}}}}]},
    # distributed branches, dependencies, if/then/else: every branch an any-order object
    {"type": "object", "properties": {"a": {}, "b": {}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {"type": "object", "properties": {"a": INT, "b": {}, "x": {}}, "dependentRequired": {"a": ["x"]}},
    {"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"maxProperties": 1}},
    {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": {"type": "string"}},
]


@pytest.mark.parametrize("schema", ANY_ORDER, ids=lambda s: json.dumps(s)[:70])
def test_any_order_is_exact(schema: dict[str, Any]) -> None:
    walk_any_order(schema)


def test_any_order_inside_items() -> None:
    """As the second item of an array: the object's rules are reached from inside another rule."""
    walk_any_order({"type": "array", "prefixItems": [{"const": 0}],
           "items": {"type": "object", "properties": {"a": INT, "b": {}}, "required": ["b"]}}, wrap="[0, {}]")


def test_default_policy_is_schema_order() -> None:
    """Without the option, listed keys keep schema order (the cache keys differ too)."""
    schema = {"type": "object", "properties": {"a": INT, "b": INT}, "required": ["a", "b"]}
    fixed, free = schemac.compile(schema, use_cache=False), schemac.compile(schema, use_cache=False, key_order="any")
    assert accepts(fixed.grammar, '{"a": 1, "b": 2}') and not accepts(fixed.grammar, '{"b": 2, "a": 1}')
    assert accepts(free.grammar, '{"b": 2, "a": 1}')
    assert (fixed.options["key_order"], free.options["key_order"]) == ("schema", "any") and fixed.key != free.key
    with pytest.raises(ValueError, match="key_order"):
        schemac.compile(schema, key_order="sorted")


def test_large_objects_keep_schema_order() -> None:
    """Past `MAX_FREE_KEYS` listed keys (2^n states) the object keeps schema order: narrower than
    the schema, never wider."""
    keys = [f"k{i}" for i in range(MAX_FREE_KEYS + 1)]
    schema = {"type": "object", "properties": {k: INT for k in keys}, "required": keys}
    art = schemac.compile(schema, use_cache=False, key_order="any")
    ordered = "{" + ", ".join(f'"{k}": 1' for k in keys) + "}"
    reverse = "{" + ", ".join(f'"{k}": 1' for k in reversed(keys)) + "}"
    assert accepts(art.grammar, ordered) and not accepts(art.grammar, reverse)
    smaller = {"type": "object", "properties": {k: INT for k in keys[:-1]}, "required": keys[:-1]}
    art = schemac.compile(smaller, use_cache=False, key_order="any")
    assert accepts(art.grammar, "{" + ", ".join(f'"{k}": 1' for k in reversed(keys[:-1])) + "}")
