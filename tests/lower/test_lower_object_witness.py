"""Complements over open key sets: the `WITNESS` marker, walked exhaustively against jsonschema.

`not: {additionalProperties: S}` / `not: {patternProperties: {p: S}}` on objects whose keys are
not known say "some entry of a key class holds a value outside S"; schemac lowers that to the
`WITNESS` marker and the Lark object writer writes it. Every object over a small alphabet of keys
(listed, pattern-matching, other) and values, 0..3 entries in every order, is offered to the
compiled grammar; jsonschema on the ORIGINAL schema is the oracle (the patterns are ASCII, where
Python's `re` and ECMA-262 agree). Soundness on every text; completeness: some order of every
valid object's entries is accepted (the policy fixes listed keys first, in schema order). Escaped
key spellings must be refused, and duplicate keys, which the grammar may spell, are refused by
the answer parser. Then the readers of lowered nodes: the validator (`standard`), `stripped`,
`%json` embeddings, `productive`, and negating a witness again.
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
from schemac.lower.support.marks import WITNESS
from schemac.lower.support.productive import drop_unproductive
from schemac.lower.support.scalar_marks import lowered_validator, stripped
from schemac.validate.final import parse_answer
from testkit.grammar_harness import _tokenizer

KEYS = ["a", "x", "xa", "z"]
VALUES = [0, 1, "s"]


def _objects(keys: list[str] = KEYS, values: list[Any] = VALUES, max_entries: int = 3) -> list[list[tuple[str, Any]]]:
    """Every ordered list of distinct-key entries over keys x values, 0..max_entries long."""
    out: list[list[tuple[str, Any]]] = [[]]
    for n in range(1, max_entries + 1):
        for ks in permutations(keys, n):
            for vals in product(values, repeat=n):
                out.append(list(zip(ks, vals)))
    return out


OBJECTS = _objects()


def _text(entries: list[tuple[str, Any]]) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in entries) + "}"


def _escaped(entries: list[tuple[str, Any]]) -> str | None:
    """The text with its first key's first character written as a `\\u` escape."""
    if not entries:
        return None
    k, v = entries[0]
    rest = _text(entries[1:])[1:-1]
    head = f'"\\u{ord(k[0]):04x}{k[1:]}": {json.dumps(v)}'
    return "{" + head + (", " + rest if rest else "") + "}"


def _walk(schema: dict[str, Any], wrap: str = "{}") -> None:
    """Compile `schema` and compare it with jsonschema on every object of the grid (inside
    `wrap`, where `{}` stands for the object's text)."""
    oracle = jsonschema.Draft202012Validator(schema)
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError as exc:  # e.g. maxProperties 0 beside "some entry": nothing is left
        assert exc.codes == ["unsatisfiable"], (schema, exc)
        assert not any(oracle.is_valid(json.loads(wrap.replace("{}", _text(e)))) for e in OBJECTS), schema
        return
    accepted = partial(accepts, art.grammar)
    orders: dict[frozenset[tuple[str, Any]], bool] = {}
    for entries in OBJECTS:
        text = wrap.replace("{}", _text(entries))
        value = json.loads(text)
        valid = oracle.is_valid(value)
        got = accepted(text)
        assert not got or valid, ("invalid answer accepted", schema, text)
        key = frozenset((k, json.dumps(v)) for k, v in entries)
        orders[key] = orders.get(key, False) or got
        if valid and not orders[key] and len(entries) == len(set(entries)) and _last_order(entries):
            assert False, ("no order of a valid object accepted", schema, text)
        escaped = _escaped(entries)
        if escaped is not None and len(entries) <= 2:
            assert not accepted(wrap.replace("{}", escaped)), ("escaped key spelling accepted", schema, escaped)


def _last_order(entries: list[tuple[str, Any]]) -> bool:
    """Whether `entries` is the last permutation of its set the grid enumerates (all were seen)."""
    return [k for k, _ in entries] == sorted((k for k, _ in entries), key=KEYS.index, reverse=True)


INT = {"type": "integer"}
#: schemas whose complement needs a witness (keys unknown), as compiled exactly
EXACT = [
    {"type": "object", "not": {"additionalProperties": INT}},
    {"type": "object", "properties": {"a": INT}, "not": {"additionalProperties": INT}},
    {"type": "object", "properties": {"a": {}}, "not": {"properties": {"a": {}}, "additionalProperties": {"const": 0}}},
    {"type": "object", "not": {"properties": {"a": {}}, "patternProperties": {"^x": {}}, "additionalProperties": False}},
    {"type": "object", "not": {"patternProperties": {"^x": INT}}},
    {"type": "object", "not": {"patternProperties": {"a$": {"const": 0}, "^x": {"type": "string"}}}},
    {"type": "object", "properties": {"xa": INT}, "not": {"patternProperties": {"^x": INT}}},
    {"type": "object", "properties": {"x": {"const": 1}, "a": {}}, "required": ["a"], "not": {"patternProperties": {"^x": {"const": 1}}}},
    {"type": "object", "patternProperties": {"a$": {"const": 1}}, "additionalProperties": {"type": "string"},
     "not": {"patternProperties": {"^x": {"const": 1}}}},
    {"type": "object", "minProperties": 2, "not": {"patternProperties": {"^x": {"const": 0}}}},
    {"type": "object", "properties": {"a": INT}, "minProperties": 3, "not": {"additionalProperties": {"const": 0}}},
    {"type": "object", "maxProperties": 1, "not": {"additionalProperties": {"const": 0}}},
    {"type": "object", "maxProperties": 0, "not": {"additionalProperties": {"const": 0}}},
    {"type": "object", "properties": {"a": {}}, "minProperties": 1, "maxProperties": 2, "not": {"patternProperties": {"^x": INT}}},
    {"type": "object", "properties": {"z": {}}, "required": ["z"], "maxProperties": 2, "not": {"properties": {"z": {}}, "additionalProperties": INT}},
    # nested: anyOf / oneOf branches, if/then/else, propertyNames, a complement negated again
    {"type": "object", "anyOf": [{"not": {"additionalProperties": INT}}, {"required": ["a"]}]},
    {"type": "object", "oneOf": [{"not": {"patternProperties": {"^x": {"const": 0}}}}, {"required": ["z"]}]},
    {"type": "object", "if": {"additionalProperties": INT}, "then": {"required": ["a"]}, "else": {"maxProperties": 1}},
    {"type": "object", "not": {"propertyNames": {"pattern": "^x"}}},
    {"type": "object", "properties": {"z": {"const": 0}}, "not": {"propertyNames": {"pattern": "^x"}}},
    {"type": "object", "not": {"not": {"additionalProperties": {"const": 0}}}},
    {"type": "object", "not": {"anyOf": [{"not": {"patternProperties": {"^x": INT}}}, {"required": ["a"]}]}},
]


@pytest.mark.parametrize("schema", EXACT, ids=lambda s: json.dumps(s)[:70])
def test_witness_is_exact(schema: dict[str, Any]) -> None:
    _walk(schema)


def test_witness_inside_items_is_exact() -> None:
    """Inside `items` (and beside another item): the same grid, as the second item of an array."""
    _walk({"type": "array", "prefixItems": [{"const": 0}],
           "items": {"type": "object", "not": {"patternProperties": {"^x": {"const": 0}}}}}, wrap="[0, {}]")


def test_witness_is_produced() -> None:
    """The cases above go through the marker (not some other exact form)."""
    art = schemac.compile(EXACT[1], use_cache=False)
    assert WITNESS in json.dumps(art.lowered)


#: several witnesses on one object: the writer tracks the set still owed
SEVERAL = [
    {"type": "object", "allOf": [{"not": {"additionalProperties": {"const": 0}}},
                                 {"not": {"patternProperties": {"^x": {"const": 1}}}}]},
    # one entry ("xa": 1) can discharge both; with maxProperties 1 it must
    {"type": "object", "maxProperties": 1, "allOf": [{"not": {"patternProperties": {"^x": {"const": 0}}}},
                                                     {"not": {"patternProperties": {"a$": {"const": 0}}}}]},
    {"type": "object", "maxProperties": 2, "allOf": [{"not": {"patternProperties": {"^x": {"const": 0}}}},
                                                     {"not": {"patternProperties": {"a$": {"type": "string"}}}}]},
    {"type": "object", "minProperties": 2, "allOf": [{"not": {"patternProperties": {"^x": INT}}},
                                                     {"not": {"patternProperties": {"a": {"const": 0}}}}]},
    {"type": "object", "maxProperties": 0, "allOf": [{"not": {"patternProperties": {"^x": INT}}},
                                                     {"not": {"patternProperties": {"a": {"const": 0}}}}]},
    # listed keys inside the classes, one of them required, min/max counted
    {"type": "object", "properties": {"xa": INT, "z": {}}, "required": ["a"], "minProperties": 2,
     "allOf": [{"not": {"patternProperties": {"^x": {"const": 0}}}}, {"not": {"patternProperties": {"a": {"const": 1}}}}]},
    {"type": "object", "properties": {"a": {"const": 1}}, "maxProperties": 2,
     "allOf": [{"not": {"properties": {"a": {}}, "additionalProperties": INT}},
               {"not": {"patternProperties": {"^x": {"const": 0}}}}, {"not": {"patternProperties": {"a": {"const": 0}}}}]},
    # inside anyOf / oneOf branches, beside a witness outside them
    {"type": "object", "not": {"patternProperties": {"^x": {"const": 0}}},
     "anyOf": [{"not": {"additionalProperties": {"const": 0}}}, {"required": ["a"]}]},
    {"type": "object", "oneOf": [{"allOf": [{"not": {"patternProperties": {"^x": {"const": 0}}}},
                                            {"not": {"patternProperties": {"a$": {"const": 1}}}}]},
                                 {"required": ["z"]}]},
    # beside a universal key class from an allOf merge (`lark_merge.EVERY`)
    {"type": "object", "allOf": [{"patternProperties": {"^x": {}}, "additionalProperties": {"type": "string"}},
                                 {"patternProperties": {"a$": INT}}, {"not": {"patternProperties": {"a": {"const": 0}}}},
                                 {"not": {"patternProperties": {"^z": {"const": "s"}}}}]},
]


@pytest.mark.parametrize("schema", SEVERAL, ids=lambda s: json.dumps(s)[:70])
def test_several_witnesses_are_exact(schema: dict[str, Any]) -> None:
    _walk(schema)


def test_too_many_witnesses_are_rejected() -> None:
    """2^n owed sets: past `MAX_WITNESSES` the object is rejected as too large, not approximated."""
    from schemac.emit.lark.object_owed import MAX_WITNESSES

    parts = [{"not": {"patternProperties": {f"^{chr(97 + i)}": INT}}} for i in range(MAX_WITNESSES + 1)]
    with pytest.raises(CompileError) as err:
        schemac.compile({"type": "object", "allOf": parts}, use_cache=False)
    assert err.value.codes == ["too-large"] and "grammar states" in str(err.value)


def test_duplicate_keys_are_refused_by_the_answer_parser() -> None:
    """The grammar spells extras freely (a duplicate included, as for any additional key); the
    witness entry then repeats a key, and the answer parser refuses the text."""
    art = schemac.compile({"type": "object", "not": {"additionalProperties": {"const": 0}}}, use_cache=False)
    text = '{"x": 1, "x": 0}'
    assert partial(accepts, art.grammar)(text)
    with pytest.raises(ValueError):
        parse_answer(text)


def test_readers_honour_the_marker() -> None:
    """The validator on a lowered node, a user's own marker key, `%json`, `productive`."""
    lowered = schemac.compile({"type": "object", "not": {"patternProperties": {"^x": INT}}}, use_cache=False).lowered
    check = lowered_validator(lowered)
    assert check.is_valid({"x": "s"}) and check.is_valid({"a": 0, "xa": 1.5})
    assert not check.is_valid({}) and not check.is_valid({"x": 1, "z": "s"})
    bare = lowered_validator({WITNESS: [{"other": {"keys": ["a"], "patterns": ["^x"]}, "value": {"const": 0}}]})
    assert bare.is_valid(3)  # object keywords bind objects only
    assert bare.is_valid({"z": 0}) and not bare.is_valid({"a": 0, "x": 0, "z": 1})
    user = {"type": "object", WITNESS: [{"pattern": "^x", "value": False}]}
    assert stripped(user) == {"type": "object"}  # a user's x-schemac-* key is an annotation
    assert schemac.compile(user, use_cache=False).lowered == {"type": "object"}
    from schemac.emit.json_path import embed

    with pytest.raises(CompileError):
        embed(lowered, {})
    # a witness whose value needs an unproductive definition accepts nothing either
    bad = {"type": "array", "prefixItems": [{"$ref": "#/$defs/loop"}], "minItems": 1}
    root = {"type": "object", WITNESS: [{"pattern": "^x", "value": {"$ref": "#/$defs/loop"}}]}
    new_root, defs = drop_unproductive(root, {"loop": bad})
    assert new_root[WITNESS][0]["value"] is False and not defs


# ---- attacks on witnesses: merges, negation, recursion, escaped keys, llguidance's row limit
# (attack round 8; GRID is OBJECTS, walked with completeness up to key order)

I = {"type": "integer"}


C0 = {"const": 0}


GRID = _objects(KEYS, VALUES, 3)


def _spelled(entries: list[tuple[str, Any]]) -> str:
    return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v)}" for k, v in entries) + "}"


def _walk_grid(schema: Any, grid: list[list[tuple[str, Any]]] = GRID, oracle: Any = None) -> None:
    """Soundness on every text of the grid; completeness up to property order (some order of
    every valid set of entries is accepted); a rejection only as `unsatisfiable` when no grid
    object is valid."""
    oracle = oracle or jsonschema.Draft202012Validator(schema)
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert exc.codes == ["unsatisfiable"], exc
        assert not any(oracle.is_valid(json.loads(_spelled(e))) for e in grid), schema
        return
    accepted = partial(accepts, art.grammar)
    seen: dict[frozenset[tuple[str, str]], list[Any]] = {}
    for entries in grid:
        text = _spelled(entries)
        valid = oracle.is_valid(json.loads(text))
        got = accepted(text)
        assert not got or valid, ("invalid answer admitted", text)
        slot = seen.setdefault(frozenset((k, json.dumps(v)) for k, v in entries), [False, valid, text])
        slot[0] |= got
    refused = [s[2] for s in seen.values() if s[1] and not s[0]]
    assert not refused, ("no order of a valid object admitted", refused[:3])


def _several_witness_parts(parts: int, patterns: int) -> dict[str, Any]:
    letters = "abcdefgh"
    return {"type": "object", "allOf": [{"not": {"patternProperties": {f"^{letters[j]}{i}": C0 for j in range(patterns)}}}
                                        for i in range(parts)]}


def _row_limit_holds(schema: dict[str, Any], text: str) -> None:
    """Either the schema is refused at compile time, or the valid `text` is admitted (no
    ParserTooComplex at some row of the answer)."""
    assert jsonschema.Draft202012Validator(schema).is_valid(json.loads(text))
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError:
        return  # refused before generation: within the promise
    import llguidance

    matcher = llguidance.LLMatcher(_tokenizer(), art.grammar, log_level=0)
    done = matcher.try_consume_tokens(list(text.encode()))
    assert not matcher.is_error(), matcher.get_error()[:200]
    assert done == len(text.encode()) and matcher.is_accepting()


_ROW = '{"a0": 1, "a1": 1, "a2": 1, "a3": 1}'


@pytest.mark.parametrize("parts, patterns", [(4, 3), (3, 5)])
def test_witness_products_at_the_root_are_refused_or_admitted(parts: int, patterns: int) -> None:
    """Held once `lark_probe` landed (mid-round): the row blow-up at the opening `{` is refused
    as too-large at compile time."""
    text = "{" + ", ".join(f'"a{i}": 1' for i in range(parts)) + "}"
    _row_limit_holds(_several_witness_parts(parts, patterns), text)


@pytest.mark.parametrize("schema, text", [
    ({"type": "object", "properties": {"p": _several_witness_parts(4, 3)}, "required": ["p"]}, '{"p": ' + _ROW + "}"),
    ({"type": "array", "prefixItems": [{"const": 1}], "items": _several_witness_parts(4, 3)}, "[1, " + _ROW + "]"),
], ids=["under-property", "second-item"])
def test_nested_witness_products_pass_llguidance_row_limit(schema: dict[str, Any], text: str) -> None:
    """Was a finding (the product one level down compiled, then llguidance's matcher failed every
    answer mid-way with 'Current row has 2673 items; max is 2000'); held once lark_probe's walks
    went down into nested values: refused as too-large at compile time."""
    _row_limit_holds(schema, text)


def test_same_products_without_witnesses_hold() -> None:
    """The control: as many distributed object branches without witnesses stay under the row
    limit, so the blow-up is the witness writer's."""
    schema = {"type": "object", "allOf": [{"anyOf": [{"patternProperties": {f"^{c}{i}": {"const": 1}}, "required": [f"{c}{i}"]}
                                                     for c in "abc"]} for i in range(4)]}
    text = '{"a0": 1, "a1": 1, "a2": 1, "a3": 1}'
    assert partial(accepts, schemac.compile(schema, use_cache=False).grammar)(text)


HELD = [
    {"type": "object", "properties": {"a": {}}, "not": {"additionalProperties": I}, "unevaluatedProperties": False},
    {"type": "object", "not": {"additionalProperties": I}, "unevaluatedProperties": False},  # unsatisfiable
    {"type": "object", "dependentSchemas": {"a": {"not": {"patternProperties": {"^x": C0}}}}, "maxProperties": 2},
    {"type": "object", "not": {"additionalProperties": I, "propertyNames": {"pattern": "^x"}}},
    {"type": "object", "oneOf": [{"not": {"additionalProperties": C0}}, {"not": {"additionalProperties": {"const": 1}}}]},
    {"type": "object", "not": {"oneOf": [{"not": {"additionalProperties": C0}}, {"required": ["a"]}]}},
    {"type": "object", "if": {"not": {"patternProperties": {"^x": C0}}}, "then": {"maxProperties": 1}, "else": {"required": ["z"]}},
    {"type": "object", "not": {"patternProperties": {"^x": False, "a": True}}},
    {"type": "object", "properties": {"x": C0}, "required": ["x"], "not": {"patternProperties": {"^x": C0}}},
    {"type": "object", "allOf": [{"patternProperties": {"^x": C0}, "additionalProperties": False},
                                 {"patternProperties": {"a": True}, "additionalProperties": {"type": "string"}}]},
    {"type": "object", "allOf": [{"properties": {"a": True}, "additionalProperties": C0}, {"patternProperties": {"^x": I}},
                                 {"patternProperties": {"a$": {"type": "string"}}, "additionalProperties": {"not": C0}}]},
    {"type": "object", "allOf": [{"additionalProperties": I}, {"patternProperties": {"^x": C0}}],
     "not": {"additionalProperties": C0}},
    {"type": "object", "minProperties": 3, "maxProperties": 3,
     "allOf": [{"not": {"patternProperties": {"^x": C0}}}, {"not": {"patternProperties": {"a": C0}}},
               {"not": {"additionalProperties": {"const": 1}}}]},
    {"type": "object", "not": {"additionalProperties": {"not": {"additionalProperties": C0}}}},
    {"type": "object", "if": {"patternProperties": {"^x": C0}}, "then": {"not": {"additionalProperties": C0}},
     "unevaluatedProperties": {"type": "string"}},
    {"type": "object", "oneOf": [{"patternProperties": {"^x": I}, "not": {"additionalProperties": C0}}, {"required": ["z"]}],
     "unevaluatedProperties": {"const": 1}},
    {"type": "object", "not": {"if": {"additionalProperties": C0}, "then": {"required": ["a"]},
                               "else": {"patternProperties": {"^x": I}}}},
    {"type": "object", "not": {"dependentSchemas": {"a": {"patternProperties": {"^x": C0}}}}, "maxProperties": 2},
    {"type": "object", "properties": {"xa": {"const": 1}}, "not": {"patternProperties": {"^x": {"const": 1}, "a$": C0}}},
]


@pytest.mark.parametrize("schema", HELD, ids=lambda s: json.dumps(s)[:60])
def test_witness_attacks_held(schema: dict[str, Any]) -> None:
    _walk_grid(schema)


SPECIAL_KEYS = ["", '"', "\\", "\n", "\x7f", "\u2028", "é", "\U0001f600", "x", "\x01"]


SPECIAL_GRID = _objects(SPECIAL_KEYS, [0, "s"], 2)


@pytest.mark.parametrize("schema", [
    {"type": "object", "not": {"patternProperties": {"^$": C0}}},
    {"type": "object", "not": {"patternProperties": {'"': C0}}},
    {"type": "object", "not": {"patternProperties": {"\\\\": C0}}},
    {"type": "object", "not": {"patternProperties": {"^.$": C0}}},  # ECMA `.`: not U+2028, one astral char
    {"type": "object", "not": {"patternProperties": {"\\u2028": C0}}},
    {"type": "object", "properties": {"\x7f": C0}, "not": {"additionalProperties": C0}},
    {"type": "object", "properties": {"": {}}, "required": [""], "not": {"properties": {"": {}}, "additionalProperties": C0}},
], ids=lambda s: json.dumps(s)[:60])
def test_witness_special_keys_held(schema: dict[str, Any]) -> None:
    """Keys that need escapes, DEL, line separators, astral characters and the empty key, with
    schemac's ECMA validator as the oracle; `\\u` spellings of a key stay refused."""
    from schemac.validate.final import FinalValidator

    _walk_grid(schema, SPECIAL_GRID, FinalValidator(schema))
    accepted = partial(accepts, schemac.compile(schema, use_cache=False).grammar)
    for key in SPECIAL_KEYS:
        escaped = '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in key) + '"'
        if key and escaped != json.dumps(key, ensure_ascii=False):
            assert not accepted("{" + escaped + ': "s"}'), escaped


R = "#/$defs/T"


RECURSIVE_VALUES: list[Any] = [0, "s", {}, [], {"a": 0}, {"x": {}}, {"a": {"a": 0}}, {"a": {"x": {}}},
                               {"x": {"a": {}}}, {"a": 0, "x": {}}, {"a": {}, "x": 0}, [{}], [{"a": 0}]]


@pytest.mark.parametrize("schema", [
    {"$defs": {"T": {"type": "object", "not": {"additionalProperties": {"$ref": R}}}}, "$ref": R},
    {"$defs": {"T": {"anyOf": [C0, {"type": "object", "additionalProperties": {"$ref": R}}]}}, "not": {"$ref": R}},
    {"$defs": {"T": {"oneOf": [{"type": "object", "not": {"additionalProperties": {"$ref": R}}}, {"required": ["a"]}]}},
     "$ref": R},
    {"$defs": {"T": {"type": "object", "if": {"additionalProperties": {"$ref": R}}, "then": {"required": ["a"]}}}, "$ref": R},
    {"type": "array", "contains": {"type": "object", "not": {"additionalProperties": C0}}},
    {"enum": [{"a": 0}, {"a": 1}, {"x": 0}, {}], "not": {"additionalProperties": C0}},
], ids=lambda s: json.dumps(s)[:60])
def test_witness_recursion_held(schema: dict[str, Any]) -> None:
    oracle = jsonschema.Draft202012Validator(schema)
    accepted = partial(accepts, schemac.compile(schema, use_cache=False).grammar)
    for value in RECURSIVE_VALUES:
        text = json.dumps(value)
        got = accepted(text)
        assert not got or oracle.is_valid(value), ("invalid answer admitted", text)
        assert got or not oracle.is_valid(value), ("valid answer refused", text)
