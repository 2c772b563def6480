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
from schemac.validate.final import FinalValidator
from testkit.exactness import check
from testkit.grammar_harness import valid_text

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


# ---- empty definitions in every position, recursive and mutually recursive (attack round 11)

EMPTY_DEFS: dict[str, Any] = {
    "len": {"type": "string", "minLength": 3, "maxLength": 2},
    "types": {"allOf": [{"type": "string"}, {"type": "integer"}]},
    "not": {"not": {}},
    "false": False,
    "const": {"const": 1, "type": "string"},
    "self_required": {"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/$defs/e"}}},
    "self_items": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/e"}},
    "self_any": {"anyOf": [{"$ref": "#/$defs/e"}, {"type": "string", "minLength": 2, "maxLength": 1}]},
    "range": {"type": "integer", "minimum": 2, "maximum": 1},
    "obj": {"type": "object", "required": ["a"], "properties": {"a": False}},
    "arr": {"type": "array", "minItems": 2, "maxItems": 1},
    "pattern": {"type": "string", "pattern": "^a", "not": {"pattern": "^a"}},
}


NON_EMPTY_RECURSIVE: dict[str, Any] = {
    "tree": {"type": "object", "properties": {"a": {"$ref": "#/$defs/e"}}, "additionalProperties": False},
    "list": {"type": "array", "items": {"$ref": "#/$defs/e"}, "maxItems": 2},
    "either": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/e"}}]},
    "opt_self_empty": {"type": "object", "properties": {"a": {"$ref": "#/$defs/e"}, "b": {"type": "string", "minLength": 2, "maxLength": 1}}},
}


USES: dict[str, Any] = {
    "optional": {"type": "object", "properties": {"p": {"$ref": "#/$defs/e"}, "q": {"type": "integer"}}},
    "required": {"type": ["object", "integer"], "properties": {"p": {"$ref": "#/$defs/e"}}, "required": ["p"]},
    "any_of": {"anyOf": [{"$ref": "#/$defs/e"}, {"type": "integer"}]},
    "one_of": {"oneOf": [{"$ref": "#/$defs/e"}, {"type": "integer"}, {"type": "string"}]},
    "items": {"type": "array", "items": {"$ref": "#/$defs/e"}},
    "prefix": {"type": "array", "prefixItems": [{"type": "integer"}, {"$ref": "#/$defs/e"}]},
    "contains": {"type": ["array", "null"], "contains": {"$ref": "#/$defs/e"}},
    "additional": {"type": "object", "properties": {"q": {}}, "additionalProperties": {"$ref": "#/$defs/e"}},
    "pattern_props": {"type": "object", "patternProperties": {"^p": {"$ref": "#/$defs/e"}}},
    "not": {"not": {"$ref": "#/$defs/e"}, "type": ["integer", "string", "object", "array"]},
    "if": {"if": {"$ref": "#/$defs/e"}, "then": {"const": 1}, "else": {"type": ["integer", "object"]}},
    "dependent": {"type": "object", "dependentSchemas": {"q": {"$ref": "#/$defs/e"}}},
    "twice": {"type": "object", "properties": {"p": {"$ref": "#/$defs/e"}, "q": {"$ref": "#/$defs/e"}}},
    "nested_opt": {"type": "object", "properties": {"p": {"type": "object", "properties": {"r": {"$ref": "#/$defs/e"}}}}},
    "all_of": {"anyOf": [{"allOf": [{"$ref": "#/$defs/e"}, {"type": "integer"}]}, {"type": "string"}]},
}


PRUNE_TEXTS = ["1", "2", '"a"', '"abc"', "null", "true", "{}", '{"p": 1}', '{"p": "a"}', '{"p": {}}', '{"q": 1}',
               '{"p": 1, "q": 1}', '{"a": {}}', '{"p": {"a": {}}}', '{"p": {"r": 1}}', '{"p": {"a": 1}}', "[]", "[1]",
               '["a"]', "[[]]", "[1, 2]", '[1, "a"]', "[[1]]", '{"x": 1}', '{"p": [], "q": 1}', '{"q": {}}', '{"q": 1, "p": 1}',
               '{"p": "ab"}', '{"a": {"a": {}}}', '{"p": [1]}']


#: property orders the policy excludes here: `q` listed after `p`; additional/dependent-required keys after listed ones
ORDER_REFUSABLE = {'{"q": 1, "p": 1}', '{"p": 1, "q": 1}', '{"p": [], "q": 1}'}


PRUNE_REFUSALS = {"unsatisfiable", "grammar-error", "unresolvable-ref"}  # the last: `self_any`, a cycle without progress


def _prune_case(empty: Any, use: dict[str, Any]) -> None:
    schema = {"$defs": {"e": empty}, **use}
    try:
        schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert set(exc.codes) <= PRUNE_REFUSALS, exc
        if exc.codes == ["unsatisfiable"]:
            oracle = FinalValidator(schema)
            assert not [t for t in PRUNE_TEXTS if valid_text(oracle, t)], exc
        return
    check(schema, PRUNE_TEXTS, refusable=ORDER_REFUSABLE)


@pytest.mark.parametrize("empty,use", [
    (e, u) for e in sorted(EMPTY_DEFS) for u in sorted(USES)])
def test_pruned_empty_definition(empty: str, use: str) -> None:
    _prune_case(EMPTY_DEFS[empty], USES[use])


@pytest.mark.parametrize("use", sorted(USES))
@pytest.mark.parametrize("rec", sorted(NON_EMPTY_RECURSIVE))
def test_recursive_definition_positions(rec: str, use: str) -> None:
    _prune_case(NON_EMPTY_RECURSIVE[rec], USES[use])


def test_mutually_recursive_empty_definitions() -> None:
    defs = {"a": {"type": "object", "required": ["b"], "properties": {"b": {"$ref": "#/$defs/b"}}},
            "b": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/a"}},
            "c": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}]}}
    for use in USES.values():
        for target in ("a", "b", "c"):
            text = json.dumps(use).replace("#/$defs/e", "#/$defs/" + target)
            schema = {"$defs": defs, **json.loads(text)}
            try:
                schemac.compile(schema, use_cache=False)
            except CompileError as exc:
                assert set(exc.codes) <= PRUNE_REFUSALS, exc
                continue
            check(schema, PRUNE_TEXTS, refusable=ORDER_REFUSABLE)


@pytest.mark.parametrize("value,text", [({"anyOf": [{"$ref": "#/$defs/e"}, {"type": "integer"}]}, '{"a": 1}'),
                                        ({"type": "array", "items": {"$ref": "#/$defs/e"}}, '{"a": []}'),
                                        ({"type": "array", "prefixItems": [{"type": "integer"}, {"$ref": "#/$defs/e"}]}, '{"a": [1]}')])
@pytest.mark.parametrize("required", [False, True])
def test_lark_prunes_whole_property_for_empty_branch(value: Any, text: str, required: bool) -> None:
    schema: dict[str, Any] = {"$defs": {"e": False}, "type": "object", "properties": {"a": value}}
    if required:
        schema["required"] = ["a"]
    assert FinalValidator(schema).is_valid(json.loads(text))
    art = schemac.compile(schema, use_cache=False)
    assert accepts(art.grammar, text)


def test_false_unsatisfiable_minimal() -> None:
    schema = {"$defs": {"e": False}, "anyOf": [{"$ref": "#/$defs/e"}, {"type": "integer"}]}
    assert FinalValidator(schema).is_valid(1)
    assert accepts(schemac.compile(schema, use_cache=False).grammar, "1")


def test_empty_recursive_definition_leaves_no_dead_end() -> None:
    """A definition no finite value satisfies (each level requires itself) is pruned: the
    grammar never lets a generator start the value it cannot finish."""
    from testkit.grammar_harness import _pristine

    e = {"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/$defs/e"}}}
    cases = [({"$defs": {"e": e}, "type": "object", "properties": {"p": {"$ref": "#/$defs/e"}, "q": {"type": "integer"}}}, ['{"p": {']),
             ({"$defs": {"e": e}, "type": "array", "items": {"anyOf": [{"$ref": "#/$defs/e"}, {"type": "integer"}]}}, ["[{"]),
             ({"$defs": {"e": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/e"}}}, "anyOf": [{"$ref": "#/$defs/e"}, {"type": "integer"}]},
              ["[", "[["])]
    for schema, prefixes in cases:
        try:
            art = schemac.compile(schema, use_cache=False)
        except CompileError as exc:
            assert exc.codes == ["unsatisfiable"], exc
            continue
        for prefix in prefixes:
            matcher = _pristine(art.grammar).deep_copy()
            tokens = list(prefix.encode())
            assert matcher.try_consume_tokens(tokens) < len(tokens), (schema, prefix)
