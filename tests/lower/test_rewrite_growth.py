"""Rewrites that cannot multiply (issue 29): on generated nests of `allOf`, `anyOf`, `oneOf`,
`$ref` and nested objects whose nodes state `required` orders, every schema-to-schema rewrite
emit runs is bounded against its input:

- `stated_orders.with_required_orders` at most doubles the merged objects, so the grammar the
  default policy writes is at most twice the one `properties` order writes (plus a constant),
  and the schema itself at most twice its size (plus one `$ref` per hoisted value);
- `json_path.translated` (patterns for llguidance) grows a schema by its patterns' translation only.

Derandomised (tests/conftest.py): the same nests on every run.
"""
from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import schemac
from schemac.diagnostics import CompileError
from schemac.emit.json_path import translated
from schemac.lower.stated_orders import with_required_orders

_KEYS = ("a", "b", "c", "d")
#: one value schema per key, so merged parts agree (a nest no value satisfies tests nothing)
_VALUES: dict[str, Any] = {"a": {"type": "integer"}, "b": {"type": "integer", "minimum": 0},
                           "c": {"type": "string", "pattern": "^x"}, "d": {"type": "boolean"}}


@st.composite
def _part(draw: st.DrawFn) -> dict[str, Any]:
    """An object node listing 2-3 keys whose `required` may state another order."""
    keys = draw(st.lists(st.sampled_from(_KEYS), min_size=2, max_size=3, unique=True))
    required = draw(st.permutations(keys).map(lambda p: list(p)[: len(p) - 1 or 1]))
    return {"properties": {k: _VALUES[k] for k in keys}, "required": required}


def _nest(depth: int, defs: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    if depth == 0:
        return _part()
    inner = _nest(depth - 1, defs)

    def referenced(node: dict[str, Any]) -> dict[str, Any]:
        name = f"d{len(defs)}"
        defs[name] = node
        return {"$ref": f"#/$defs/{name}"}

    return st.one_of(
        _part(),
        st.lists(inner, min_size=2, max_size=3).map(lambda parts: {"allOf": parts}),
        st.lists(inner, min_size=2, max_size=2).map(lambda parts: {"anyOf": parts}),
        inner.map(referenced),
        st.tuples(_part(), inner).map(lambda pair: {**pair[0], "properties": {**pair[0]["properties"], "n": pair[1]}}),
    )


@st.composite
def _schema(draw: st.DrawFn, one_of: bool = False) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    node = {"allOf": draw(st.lists(_nest(2, defs), min_size=2, max_size=4))}  # merges of nests: where copies met
    if one_of:  # a oneOf over two nests (llguidance must prove it disjoint, so schema-level only)
        node = {"oneOf": [node, draw(_nest(2, defs))]}
    return {"type": "object", **node, **({"$defs": defs} if defs else {})}


def _size(schema: object) -> int:
    return len(json.dumps(schema))


@settings(max_examples=40, deadline=None)
@given(_schema(one_of=True))
def test_schema_rewrites_stay_linear(schema: dict[str, Any]) -> None:
    widened = with_required_orders(schema)
    hoisted = json.dumps(widened).count('"$ref": "#/$defs/schemac-order-')
    assert _size(widened) <= 2 * _size(schema) + 40 * hoisted + 64, (schema, _size(widened))
    assert _size(translated(schema)) <= _size(schema) + 64 * json.dumps(schema).count('"pattern"')


@settings(max_examples=20, deadline=None)
@given(_schema())
def test_stated_orders_at_most_double_the_grammar(schema: dict[str, Any]) -> None:
    written = {}
    for key_order in ("properties", "schema"):
        try:
            written[key_order] = schemac.compile(schema, use_cache=False, key_order=key_order)
        except CompileError as exc:  # an empty nest (required keys typed apart) is refused both ways
            written[key_order] = exc.codes
    if isinstance(written["properties"], list):
        assert written["schema"] == written["properties"]
        return
    assert not isinstance(written["schema"], list), written["schema"]
    assert not written["schema"].diagnostics  # no fallback: the orders fit
    assert len(written["schema"].grammar) <= 2 * len(written["properties"].grammar) + 1024, schema
