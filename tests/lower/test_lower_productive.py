"""Definitions with no finite instance: refused or cut to `false`, never handed to llguidance."""
from __future__ import annotations

from typing import Any

import pytest

import schemac
from testkit.grammar_harness import accepts
from testkit.lower_passes_oracle import check_exact, text
from schemac.lower.support.productive import unproductive

ENDLESS = {"type": "array", "prefixItems": [{"$ref": "#/$defs/r"}], "minItems": 1}


@pytest.mark.parametrize("schema", [
    {"type": "array", "prefixItems": [{"$ref": "#"}], "contains": True},  # found by test_fuzz_compile
    {"type": "object", "properties": {"next": {"$ref": "#"}}, "required": ["next"]},
    {"$defs": {"a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}, "required": ["b"]},
               "b": {"type": "array", "items": {"$ref": "#/$defs/a"}, "minItems": 2}},
     "$ref": "#/$defs/a"},
    {"$defs": {"r": ENDLESS}, "allOf": [{"type": "array"}, {"$ref": "#/$defs/r"}]},
    {"type": "array", "prefixItems": [{"$ref": "#"}], "contains": {"anyOf": [True]}},  # a Lark array
    {"type": "array", "contains": {"$ref": "#"}},
    {"type": "array", "items": False, "prefixItems": [{"$ref": "#"}], "contains": {"anyOf": [True]}},
])
def test_schema_needing_an_endless_definition_is_unsatisfiable(schema: dict[str, Any]) -> None:
    with pytest.raises(schemac.CompileError) as info:
        schemac.compile(schema, use_cache=False)
    assert info.value.codes == ["unsatisfiable"]


def test_optional_endless_branch_becomes_false() -> None:
    schema = {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/r"}], "$defs": {"r": ENDLESS}}
    art = schemac.compile(schema, use_cache=False)
    assert art.lowered == {"anyOf": [{"type": "string"}, False]}
    assert accepts(art.grammar, text("x")) and not accepts(art.grammar, text([[]]))
    check_exact(schema, ["x", [], [[]], [[[]]], 1, None])


@pytest.mark.parametrize("defs", [
    {"list": {"type": "object", "properties": {"next": {"$ref": "#/$defs/list"}}}},  # `next` optional
    {"tree": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},  # [] ends it
    {"t": {"anyOf": [{"type": "null"}, {"type": "array", "prefixItems": [{"$ref": "#/$defs/t"}], "minItems": 1}]}},
    {"t": {"type": ["array", "null"], "prefixItems": [{"$ref": "#/$defs/t"}], "minItems": 1}},  # null ends it
])
def test_recursion_with_a_way_out_is_kept(defs: dict[str, Any]) -> None:
    assert unproductive(defs) == set()
    name = next(iter(defs))
    art = schemac.compile({"$defs": defs, "$ref": f"#/$defs/{name}"}, use_cache=False)
    assert name in art.lowered["$defs"]
