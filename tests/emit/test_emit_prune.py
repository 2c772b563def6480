"""The Lark writer's distribution: the dead-branch screen is sound (walked exhaustively over a
bounded set of conjunctions against jsonschema), conjunction is idempotent without merging
JSON-unequal parts, and writing stops on the schema's budget instead of running away."""
from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import schemac
from schemac.budget import Limits
from schemac.diagnostics import CompileError
from schemac.emit.lark.prune import Screen
from schemac.lower.support.marks import NOT_MULTIPLE
from schemac.schema import all_of
from testkit.grammar_harness import accepts

#: Conjuncts over keys "a"/"b" and values null/1/"x"/"y": every keyword the screen reads, plus
#: nested anyOf and `$ref` (to `#/$defs/n`, a non-null type).
ATOMS: list[Any] = [
    {"type": "object"}, {"type": ["null", "string"]}, {"type": "integer"}, {"type": "number"},
    {"const": None}, {"const": 1}, {"const": 1.0}, {"const": True}, {"const": "x"},
    {"enum": ["x", "y"]}, {"enum": [1, "y", None]}, {"pattern": "^x$"}, {"pattern": "y"},
    {"required": ["a"]}, {"required": ["b"]},
    {"properties": {"a": {"const": None}}}, {"properties": {"a": {"type": ["integer", "string"]}}},
    {"properties": {"a": False}}, {"properties": {"b": {"enum": ["y"]}}},
    {"properties": {"a": {"$ref": "#/$defs/n"}}}, {"$ref": "#/$defs/n"},
    {"anyOf": [{"type": "null"}, {"const": "y"}]}, {"anyOf": [{"required": ["a"], "properties": {"a": {"const": 1}}},
                                                              {"type": "string"}]},
    {"allOf": [{"type": ["object", "string"]}, {"properties": {"b": {"type": "null"}}}]},
    {"multipleOf": 2}, {"multipleOf": 0.5}, {NOT_MULTIPLE: [1]}, {NOT_MULTIPLE: [2]},
    {"type": "number", NOT_MULTIPLE: [0.5]},
]
DEFS = {"n": {"type": ["boolean", "object", "array", "number", "string"]}}
SCALARS: list[Any] = [None, True, False, 0, 1, 1.5, 2, 3, 4, 0.25, "", "x", "y", "xy", []]
#: Every object over keys a/b with values absent/null/1/"x"/"y"/true: witnesses for whatever
#: the atoms can require of an object.
OBJECTS = [{k: v for k, v in zip("ab", vs) if v is not ...}
           for vs in itertools.product([..., None, 1, "x", "y", True], repeat=2)]
UNIVERSE = SCALARS + OBJECTS


def _standard(part: Any) -> Any:
    """`part` in plain JSON Schema for the oracle: the marker as `not` of a number multiple."""
    if not isinstance(part, dict) or NOT_MULTIPLE not in part:
        return part
    rest = {k: v for k, v in part.items() if k != NOT_MULTIPLE}
    return {"allOf": [rest] + [{"not": {"type": "number", "multipleOf": k}} for k in part[NOT_MULTIPLE]]}


def _satisfiable(parts: list[Any]) -> bool:
    validator = Draft202012Validator({"allOf": [_standard(p) for p in parts], "$defs": DEFS})
    return any(validator.is_valid(v) for v in UNIVERSE)


def test_screen_is_sound_on_every_pair_and_triple() -> None:
    """`dead` may only name conjunctions that accept nothing: every pair and triple of atoms it
    calls dead has no witness in the universe (which holds one for every live combination
    here, checked by the second assertion: the screen must also find contradictions)."""
    screen = Screen(DEFS)
    called_dead = 0
    for n in (2, 3):
        for parts in itertools.combinations(ATOMS, n):
            if screen.dead(list(parts)):
                called_dead += 1
                assert not _satisfiable(list(parts)), parts
    assert called_dead > 300  # it prunes: types, consts, enums, patterns, required properties


def test_screen_finds_the_contradictions_distribution_makes() -> None:
    screen = Screen(DEFS)
    required_non_null = {"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/$defs/n"}}}
    assert screen.dead([required_non_null, {"properties": {"a": {"const": None}}}])
    assert screen.dead([{"type": "object"}, {"type": ["null", "string"]}])
    assert screen.dead([{"const": "x"}, {"enum": ["y", 1]}])
    assert screen.dead([{"const": "y"}, {"pattern": "^x"}])
    assert screen.dead([{"type": "object"}, {"anyOf": [{"type": "null"}, {"type": "string"}]}])
    # without `required` the key may be absent: alive
    assert not screen.dead([{"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}}},
                            {"properties": {"a": {"const": None}}}])
    assert not screen.dead([{"const": 1}, {"const": 1.0}])  # equal JSON numbers


def test_conj_keeps_equal_parts_once_and_unequal_ones_apart() -> None:
    a = {"type": "object", "properties": {"k": {"type": "string"}}}
    assert all_of([a, {"allOf": [a, True]}, dict(a)], flatten=True) == a
    assert all_of([{"const": 1}, {"const": True}], flatten=True) == {"allOf": [{"const": 1}, {"const": True}]}
    assert all_of([{"const": 0}, {"enum": [False]}, {"const": 0}], flatten=True) == {"allOf": [{"const": 0}, {"enum": [False]}]}
    assert all_of([True, {"allOf": []}], flatten=True) is True
    assert all_of([{"const": 1}, {"allOf": [False]}], flatten=True) is False


def _exclusive(keys: list[str]) -> dict[str, Any]:
    """prometheus' `auth` shape: at most one of `keys` is non-null, written as if/then pairs."""
    return {
        "type": "object",
        "properties": {k: {"type": ["string", "null"]} for k in keys},
        "allOf": [{"if": {"not": {"properties": {k: {"const": None}}}},
                   "then": {"properties": {o: {"const": None} for o in keys if o != k}}} for k in keys],
        "additionalProperties": False,
    }


def test_exclusive_if_then_compiles_exactly() -> None:
    """Six exclusive if/then pairs distribute into 4^6 branches before pruning; the screen keeps
    the compile within the default budget, and the grammar keeps the schema's meaning."""
    six = _exclusive([f"k{i}" for i in range(6)])
    assert schemac.compile(six, use_cache=False).grammar
    art = schemac.compile(_exclusive(["a", "b", "c"]), use_cache=False)
    validator = Draft202012Validator(_exclusive(["a", "b", "c"]))
    for combo in itertools.product([..., None, "s"], repeat=3):
        doc = {k: v for k, v in zip("abc", combo) if v is not ...}
        text = json.dumps(doc, separators=(",", ":"))
        assert accepts(art.grammar, text) == validator.is_valid(doc), doc


@pytest.mark.parametrize("limits, why", [
    (Limits(steps=20_000, max_grammar_bytes=1 << 40), "steps of work"),
    (Limits(max_grammar_bytes=20_000), "bytes while being written"),
])
def test_writing_stops_on_the_budget(limits: Limits, why: str) -> None:
    """Twelve independent if/then pairs are 3^12 live branches: writing them must end on the
    budget with `too-large`, not run for minutes."""
    keys = [f"k{i}" for i in range(12)]
    schema = {"type": "object", "properties": {k: {"type": ["integer", "null"]} for k in keys},
              "allOf": [{"if": {"required": [k]}, "then": {"properties": {k: {"minimum": 1}}}} for k in keys]}
    with pytest.raises(CompileError) as exc:
        schemac.compile(schema, use_cache=False, limits=limits)
    assert exc.value.codes == ["too-large"]
    assert why in exc.value.diagnostics[0].message
