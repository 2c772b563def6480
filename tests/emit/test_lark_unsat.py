"""Definitions that accept nothing, in the Lark writer: a position they fill is pruned (an optional
property, an anyOf branch, array items), an object that requires one is refused, and the schema
whose every branch needs one is `unsatisfiable`; a recursive one stays safe (never a rule naming
a definition that was never written). Shaped after MaskBench's Github_easy---o46142 (a oneOf of
identical branches, which no value satisfies). Each grammar is checked against jsonschema on
instances that reach the pruned positions.
"""
from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

import schemac
from testkit.grammar_harness import accepts
from schemac.diagnostics import CompileError

_T = {"type": "object", "properties": {"type": {"type": "string"}, "enum": {"type": "array"}}}
_E = {"oneOf": [{"$ref": "#/definitions/T"}, {"$ref": "#/definitions/T"}]}  # no value is exactly one


def _schema(root: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": "http://json-schema.org/draft-04/schema#", "definitions": {"E": _E, "T": _T}, **root}


_INSTANCES = [None, 0, 1, 2.5, "x", [], [{}], [1], {}, {"e": {}}, {"e": 1}, {"t": {}}, {"e": {}, "t": {}},
              {"t": {"type": "a"}}, {"t": {"type": 1}}, {"r": {}}, {"r": {"n": {}}}, {"x": 1}, {"e": None}]

_CASES = {
    "required at an untyped root": {"properties": {"e": {"$ref": "#/definitions/E"}, "t": {"$ref": "#/definitions/T"}},
                                    "required": ["e", "t"]},
    "optional property": {"type": "object", "properties": {"e": {"$ref": "#/definitions/E"},
                                                           "t": {"$ref": "#/definitions/T"}}},
    "anyOf branch": {"anyOf": [{"$ref": "#/definitions/E"}, {"type": "integer", "minimum": 0.5}]},
    "array items": {"type": "array", "items": {"$ref": "#/definitions/E"}},
    "recursive, optional": {"type": "object", "properties": {"r": {"$ref": "#/definitions/R"}},
                            "definitions": {"E": _E, "T": _T,
                                            "R": {"oneOf": [{"$ref": "#/definitions/S"}, {"$ref": "#/definitions/S"}]},
                                            "S": {"type": "object", "properties": {
                                                "n": {"$ref": "#/definitions/R"}, "x": {"type": "number", "minimum": 0.5}}}}},
}


@pytest.mark.parametrize("name", list(_CASES))
def test_empty_definition_is_pruned(name: str) -> None:
    schema = _schema(_CASES[name])
    grammar = schemac.compile(schema, upgrade_drafts=True, use_cache=False).grammar
    check = jsonschema.Draft4Validator(schema)
    for instance in _INSTANCES:
        text = json.dumps(instance, separators=(",", ":"))
        assert accepts(grammar, text) == check.is_valid(instance), (name, text)


@pytest.mark.parametrize("root", [
    {"type": "object", "properties": {"e": {"$ref": "#/definitions/E"}}, "required": ["e"]},
    {"type": "object", "definitions": {"R": {"type": "object", "required": ["n"], "properties": {
        "n": {"$ref": "#/definitions/R"}, "x": {"type": "number", "minimum": 0.5}}}},
     "properties": {"r": {"$ref": "#/definitions/R"}}, "required": ["r"]},
], ids=["required", "recursive required"])
def test_required_empty_definition_is_unsatisfiable(root: dict[str, Any]) -> None:
    with pytest.raises(CompileError) as caught:
        schemac.compile(_schema(root), upgrade_drafts=True, use_cache=False)
    assert caught.value.codes == ["unsatisfiable"]


_IMPOSSIBLE = {"type": "string", "minLength": 3, "maxLength": 2}
_RECURSIVE = {"type": "object", "required": ["k"], "properties": {
    "n": {"$ref": "#/$defs/R"}, "x": {"type": "number", "minimum": 0.5}, "k": _IMPOSSIBLE}}


@pytest.mark.parametrize("root", [
    {"type": "object", "properties": {"r": {"$ref": "#/$defs/R"}}},
    {"anyOf": [{"$ref": "#/$defs/R"}, {"type": "number", "minimum": 0.5}]},
], ids=["optional property", "anyOf branch"])
def test_recursive_empty_definition_written_straight(root: dict[str, Any]) -> None:
    """The writer itself (no lowering to prune first): a definition referenced from inside its own
    body that turns out empty leaves no rule naming it (llguidance loads the grammar), and the
    grammar is exact on instances that reach it."""
    from schemac.emit.lark.writer import lark_rules

    schema = {**root, "$defs": {"R": _RECURSIVE}}
    top, rules = lark_rules(schema, check_unsat=True)
    grammar = json.dumps({"grammars": [{"lark_grammar": "\n".join([f"start: {top}", *rules]) + "\n"}]})
    check = jsonschema.Draft202012Validator(schema)
    for instance in [{}, {"r": {}}, {"r": {"k": "abc"}}, {"x": 1}, 1, 0.5, 0.75, "s"]:
        text = json.dumps(instance, separators=(",", ":"))
        assert accepts(grammar, text) == check.is_valid(instance), text
