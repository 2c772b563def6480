"""Attack round 12: the orders a schema states (`schemac.lower.stated_orders`: every object node
whose `required` order differs from its `properties` order becomes `anyOf` of itself and a
required-first copy) and the Lark writer's order-keeping memo key (`Writer.key_of`).

How: each schema is compiled with `schemac.compile(schema, use_cache=False)`; each text goes to
the grammar (`grammar_harness.accepts`, a byte tokenizer) and to the oracle: schemac's
FinalValidator on the ORIGINAL schema (jsonschema 2020-12, exact numbers via `parse_answer`).
An invalid text admitted is always a failure; a valid text refused is a failure where the
README's syntax policy promises it (json.dumps spelling with `ensure_ascii=False`, keys in the
order of `properties` or required-first in the order of `required`, for a node not merged with
another node's `properties`). A CompileError is fine where the test says so; any other exception
is a failure. Findings are strict xfails with the mechanism in the reason; everything else is a
check that held and stays as a regression test.
"""
from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from testkit.grammar_harness import accepts, valid_text

import schemac
from schemac.diagnostics import CompileError
from schemac.lower.stated_orders import required_order, with_required_orders
from schemac.validate.final import FinalValidator

I = {"type": "integer"}
#: a bounded integer sends its object to the Lark writer's number rules as well
B = {"type": "integer", "minimum": 0, "maximum": 5}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _objects(keys: list[str], values: list[Any], most: int = 3) -> list[str]:
    """Every object over `keys` (each subset, each order, at most `most` keys) and `values`."""
    out = []
    for n in range(min(len(keys), most) + 1):
        for perm in itertools.permutations(keys, n):
            for vs in itertools.product(values, repeat=n):
                out.append(_dumps(dict(zip(perm, vs))))
    return out


def _unsound(schema: Any, texts: list[str], **options: Any) -> tuple[Any, list[str]]:
    """(artifact, the texts its grammar admits that final validation of `schema` refuses)."""
    art = schemac.compile(schema, use_cache=False, **options)
    oracle = FinalValidator(schema)
    return art, [t for t in texts if accepts(art.grammar, t) and not valid_text(oracle, t)]


def _stated(node: dict[str, Any], value: dict[str, Any]) -> list[str]:
    """`value` written in each order `node` states: `properties`' and required-first."""
    orders = [list(node["properties"]), required_order(node) or list(node["properties"])]
    return [_dumps({k: value[k] for k in order if k in value} | {k: v for k, v in value.items() if k not in order})
            for order in orders]


def _allof_pairs(k: int) -> dict[str, Any]:
    """allOf of k objects, each listing `a_i, b_i` and requiring `b_i, a_i`, closed as a whole."""
    parts = [{"type": "object", "properties": {f"a{i}": I, f"b{i}": I}, "required": [f"b{i}", f"a{i}"]} for i in range(k)]
    return {"allOf": parts, "unevaluatedProperties": False}


def _allof_text(k: int, reverse: bool) -> str:
    value: dict[str, int] = {}
    for i in range(k):
        value.update({f"b{i}": 1, f"a{i}": 2} if reverse else {f"a{i}": 2, f"b{i}": 1})
    return _dumps(value)


# ============================================================================================
# 1. soundness: the rewrite under every applicator, keyword and name it meets

P_BA = {"type": "object", "properties": {"a": B, "b": B}, "required": ["b", "a"], "additionalProperties": False}

SOUNDNESS: dict[str, tuple[Any, list[str], list[Any]]] = {
    "dependentRequired": ({"type": "object", "properties": {"a": B, "b": B, "c": B}, "required": ["c"],
                           "dependentRequired": {"a": ["b"]}, "additionalProperties": False}, ["a", "b", "c"], [1, 9]),
    "dependentSchemas": ({"type": "object", "properties": {"a": B, "b": B}, "required": ["b"], "additionalProperties": False,
                          "dependentSchemas": {"a": {"properties": {"b": {"const": 1}, "a": B}, "required": ["b", "a"]}}},
                         ["a", "b"], [1, 2, 9]),
    "patternProperties": ({"type": "object", "properties": {"a": B, "b": B}, "required": ["b"],
                           "patternProperties": {"^[ab]$": {"const": 1}}, "additionalProperties": False}, ["a", "b", "c"], [1, 2]),
    "minmax": ({"type": "object", "properties": {"a": B, "b": B, "c": B}, "required": ["c"], "minProperties": 2,
                "maxProperties": 2}, ["a", "b", "c", "d"], [1, 9]),
    "unevaluated": ({"type": "object", "allOf": [{"properties": {"a": B, "b": B}, "required": ["b"]}],
                     "anyOf": [{"properties": {"c": B}, "required": ["c"]}, {"properties": {"a": B, "c": B}, "required": ["c", "a"]}],
                     "unevaluatedProperties": False}, ["a", "b", "c", "d"], [1, 9]),
    "not": ({"type": "object", "not": {"properties": {"a": {"const": 1}, "b": {"const": 1}}, "required": ["b", "a"]},
             "properties": {"a": B, "b": B}, "additionalProperties": False}, ["a", "b", "c"], [1, 2]),
    "if_then_else": ({"type": "object", "if": {"properties": {"a": {"const": 1}, "b": B}, "required": ["b", "a"]},
                      "then": {"properties": {"c": B, "a": B}, "required": ["c"]}, "else": {"properties": {"b": {"const": 2}}},
                      "additionalProperties": B}, ["a", "b", "c"], [1, 2, 9]),
    "oneOf_overlapping": ({"oneOf": [{"type": "object", "properties": {"a": B, "b": B}, "required": ["b", "a"]},
                                     {"type": "object", "properties": {"c": B}, "required": ["c"]}]}, ["a", "b", "c"], [1, 9]),
    "oneOf_tagged": ({"oneOf": [{"type": "object", "properties": {"kind": {"const": "x"}, "b": B}, "required": ["b", "kind"]},
                                {"type": "object", "properties": {"kind": {"const": "y"}, "c": B}, "required": ["c", "kind"]}]},
                     ["kind", "b", "c"], ["x", "y", 1]),
    "enum_objects": ({"type": "object", "properties": {"a": B, "b": B}, "required": ["b"],
                      "enum": [{"a": 1, "b": 2}, {"b": 3, "a": 1}, {"b": 3}, {"b": 9}]}, ["a", "b"], [1, 2, 3, 9]),
    "required_not_listed": ({"type": "object", "properties": {"a": B, "b": B}, "required": ["z", "b"], "additionalProperties": B},
                            ["a", "b", "z"], [1, 9]),
    "escaped_and_empty_keys": ({"type": "object", "properties": {"\"": B, "": B, "\\": B}, "required": ["\\", ""],
                                "additionalProperties": False}, ["\"", "", "\\", "x"], [1, 9]),
    "unicode_keys": ({"type": "object", "properties": {"\u2028": B, "é": B, "\U0001F600": B, "\u0001": B},
                      "required": ["\u0001", "\U0001F600"], "additionalProperties": False}, ["\u2028", "é", "\U0001F600", "\u0001"], [1]),
    "ref_root": ({"type": "object", "properties": {"a": B, "n": {"$ref": "#"}, "c": B}, "required": ["c", "a"],
                  "additionalProperties": False}, ["a", "n", "c"], [1, {"a": 1, "c": 1}, {"c": 1, "a": 1}, {"c": 1}]),
    "ref_root_bounded": ({"type": "object", "properties": {"n": {"$ref": "#", "maxProperties": 1}, "a": I}, "required": ["a"],
                          "additionalProperties": False}, ["n", "a"], [1, {"a": 1}, {"n": {"a": 1}, "a": 1}, {"a": 1, "n": {"a": 2}}]),
    "defs_named_like_the_stem": ({"type": "object", "required": ["b", "a"],
                                  "properties": {"a": {"$ref": "#/$defs/schemac-order-0"}, "b": {"$ref": "#/$defs/schemac-order-1"},
                                                 "c": {"$ref": "#/$defs/schemac-order-2"}},
                                  "$defs": {"schemac-order-0": {"type": "integer", "minimum": 0, "maximum": 2},
                                            "schemac-order-1": {"type": "object", "required": ["y"], "properties": {
                                                "x": {"anyOf": [B, {"type": "boolean"}]}, "y": {"anyOf": [B, {"type": "string"}]}}},
                                            "schemac-order-2": {"type": "string"}}},
                                 ["a", "b", "c"], [1, 3, "s", {"x": 1, "y": 1}, {"y": "s", "x": True}, {"x": 1}, {"y": None}]),
    "untyped_node": ({"properties": {"a": B, "b": B}, "required": ["b", "a"], "minimum": 3, "multipleOf": 2, "pattern": "^x"},
                     ["a", "b"], [1, 9]),
}
SCALARS = ["1", "2", "3", "4", "6", "3.0", "-4", "\"x\"", "\"y\"", "null", "true", "[]", "{}"]


@pytest.mark.parametrize("name", list(SOUNDNESS))
def test_no_invalid_text_is_admitted(name: str) -> None:
    schema, keys, values = SOUNDNESS[name]
    texts = _objects(keys, values) + SCALARS
    for key_order in ("schema", "properties"):
        _, wrong = _unsound(schema, texts, key_order=key_order)
        assert not wrong, (key_order, wrong[:5])


def test_stated_orders_admit_more_than_properties_alone() -> None:
    """The copies are live: under "schema" a schema with a reordered `required` admits a valid
    required-first text that "properties" refuses, and never fewer texts."""
    schema, keys, values = SOUNDNESS["ref_root"]
    texts = _objects(keys, values)
    by = {ko: schemac.compile(schema, use_cache=False, key_order=ko).grammar for ko in ("schema", "properties")}
    admitted = {ko: {t for t in texts if accepts(g, t)} for ko, g in by.items()}
    assert admitted["properties"] < admitted["schema"]
    assert '{"c": 1, "a": 1}' in admitted["schema"] - admitted["properties"]


@pytest.mark.parametrize("schema", [
    {"type": "array", "contains": P_BA, "minContains": 1, "maxContains": 1, "maxItems": 3},
    {"type": "array", "items": P_BA, "maxItems": 3},
    {"type": "array", "prefixItems": [P_BA, {"type": "string"}], "items": False},
], ids=["contains", "items", "prefixItems"])
def test_arrays_of_reordered_objects(schema: dict[str, Any]) -> None:
    """Sound, and every valid array whose objects follow a stated order is admitted."""
    members = ['{"a": 1, "b": 2}', '{"b": 2, "a": 1}', '{"b": 9, "a": 1}', '{"b": 2}', '"s"']
    texts = ["[" + ", ".join(c) + "]" for n in range(3) for c in itertools.product(members, repeat=n)]
    art, wrong = _unsound(schema, texts)
    assert not wrong, wrong[:5]
    oracle = FinalValidator(schema)
    refused = [t for t in texts if valid_text(oracle, t) and not accepts(art.grammar, t)]
    assert not refused, refused[:5]


def test_duplicate_required_entries_are_refused_with_a_diagnostic() -> None:
    schema = {"type": "object", "properties": {"a": I, "b": I}, "required": ["b", "a", "b"]}
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, use_cache=False)
    assert info.value.codes == ["invalid-schema"]


def test_rewrite_keeps_user_definitions_and_names_its_own_apart() -> None:
    """User definitions named like the writer's stem keep their bodies (the one whose own
    `required` is reordered becomes anyOf of both orders); the writer's get fresh names."""
    schema = SOUNDNESS["defs_named_like_the_stem"][0]
    lowered = schemac.compile(schema, use_cache=False).lowered
    written = with_required_orders(lowered)
    assert isinstance(written, dict) and isinstance(lowered, dict)
    for name in ("schemac-order-0", "schemac-order-2"):
        assert written["$defs"][name] == lowered["$defs"][name], name
    first = written["$defs"]["schemac-order-1"]["anyOf"][0]
    assert list(first["properties"]) == ["x", "y"] and first["required"] == ["y"]
    for value, was in zip(first["properties"].values(), lowered["$defs"]["schemac-order-1"]["properties"].values()):
        name = value["$ref"].rsplit("/", 1)[1]  # hoisted into a definition of the writer's own
        assert name not in lowered["$defs"] and written["$defs"][name] == was


@pytest.mark.parametrize("name", ["escaped_and_empty_keys", "dependentSchemas", "unevaluated", "if_then_else"])
def test_verify_walk_finds_nothing(name: str) -> None:
    """`schemac verify`'s bounded exhaustive walk agrees with final validation."""
    from schemac.verify.check import verify_schema

    report = verify_schema(SOUNDNESS[name][0], depth=5, time_s=10)
    assert report.status == "verified" and report.unsound_count == 0 and report.refused_count == 0, report


# ============================================================================================
# 2. soundness findings (pre-existing, `schemac/lower/intersection.py`): found by this round's fuzzing

# was a finding (fixed): intersection.lower, closed object with maxProperties and one optional key
# set to drop: `{**out, **branches[0]}` replaces the node's whole `properties` with the branch's
# `{c: false}`, so a and b become additional keys under additionalProperties false; negated, that
# unsatisfiable node admits every object, {"a": 1, "b": 1} included
@pytest.mark.parametrize("schema,text", [
    ({"not": {"properties": {"a": True, "b": True, "c": True}, "required": ["a", "b"], "additionalProperties": False,
              "maxProperties": 2}}, '{"a": 1, "b": 1}'),
    ({"not": {"required": ["a"], "maxProperties": 1, "propertyNames": {"enum": ["a", "b"]}}}, '{"a": 1}'),
], ids=["closed", "propertyNames"])
def test_negated_closed_count_admits_no_valid_object_of_the_inner_schema(schema: dict[str, Any], text: str) -> None:
    _, wrong = _unsound(schema, [text, '{"a": 1, "b": 1, "c": 1}', '{}', '1'], key_order="properties")
    assert not wrong, wrong


# was a finding (fixed): same mechanism, positive: `properties` {a, b} with a required, closed,
# maxProperties 1 is lowered to `properties: {b: false}` under additionalProperties false, so it is
# rejected as unsatisfiable although {"a": 1} is valid
def test_closed_object_with_one_optional_key_and_max_properties_compiles() -> None:
    schema = {"type": "object", "properties": {"a": I, "b": I}, "required": ["a"], "additionalProperties": False, "maxProperties": 1}
    art = schemac.compile(schema, use_cache=False)
    assert accepts(art.grammar, '{"a": 1}') and not accepts(art.grammar, '{"a": 1, "b": 2}')


# ============================================================================================
# 3. completeness: valid values in a stated order

SINGLE_NODE_EXTRAS: dict[str, dict[str, Any]] = {
    "plain": {}, "closed": {"additionalProperties": False}, "minProperties": {"minProperties": 2},
    "maxProperties": {"maxProperties": 2}, "minProperties_closed": {"minProperties": 2, "additionalProperties": False},
    "propertyNames": {"propertyNames": {"enum": ["a", "b", "c", "d"]}}, "propertyNames_pattern": {"propertyNames": {"pattern": "^[a-d]$"}},
    "dependentRequired": {"dependentRequired": {"c": ["a"]}}, "dependentSchemas": {"dependentSchemas": {"c": {"required": ["a"]}}},
    "patternProperties": {"patternProperties": {"^[ac]$": {"minimum": 1}}}, "unevaluated": {"unevaluatedProperties": False},
    "additionalProperties": {"additionalProperties": B},
}


@pytest.mark.parametrize("extra", list(SINGLE_NODE_EXTRAS))
def test_single_node_admits_both_stated_orders(extra: str) -> None:
    for required in (["c", "a"], ["b", "a"], ["c", "b", "a"]):
        schema = {"type": "object", "properties": {"a": I, "b": I, "c": I}, "required": required, **SINGLE_NODE_EXTRAS[extra]}
        if extra == "maxProperties" and len(required) == 3:
            continue  # three required keys, at most two: unsatisfiable
        art = schemac.compile(schema, use_cache=False)
        oracle = FinalValidator(schema)
        for n in range(4):
            for keys in itertools.combinations("abc", n):
                for text in _stated(schema, {k: 1 for k in keys}):
                    if valid_text(oracle, text):
                        assert accepts(art.grammar, text), (required, text)


# was a finding (fixed): the closed-count bug of section 2 again: properties {a, b, c}, required [c,
# a], closed, maxProperties 2 is lowered to `properties: {b: false}` and rejected as unsatisfiable
def test_closed_max_properties_node_admits_both_stated_orders() -> None:
    schema = {"type": "object", "properties": {"a": I, "b": I, "c": I}, "required": ["c", "a"], "maxProperties": 2,
              "additionalProperties": False}
    grammar = schemac.compile(schema, use_cache=False).grammar
    assert accepts(grammar, '{"a": 1, "c": 1}') and accepts(grammar, '{"c": 1, "a": 1}')


# was a finding (fixed: under "any", objects past its bound take the `required` order too): `emit`
# applies `with_required_orders` only under key_order="schema"; under "any" an object past the any-
# order bound (7 listed keys) keeps `properties` order alone, so the policy documented as admitting
# more orders refuses the required-first order the default admits (README: such objects "keep schema
# order under either policy")
def test_any_policy_admits_every_order_the_default_admits_beyond_its_bound() -> None:
    keys = [f"k{i}" for i in range(7)]
    schema = {"type": "object", "properties": {k: I for k in keys}, "required": keys[::-1], "additionalProperties": False}
    texts = [_dumps({k: 1 for k in keys}), _dumps({k: 1 for k in keys[::-1]})]
    default = schemac.compile(schema, use_cache=False).grammar
    assert all(accepts(default, t) for t in texts)
    anywhere = schemac.compile(schema, use_cache=False, key_order="any").grammar
    assert all(accepts(anywhere, t) for t in texts)


def test_required_key_not_listed_comes_after_the_listed_ones() -> None:
    """README: required keys not in `properties` come after the listed keys, in either stated order."""
    schema = {"type": "object", "properties": {"a": B, "b": B}, "required": ["z", "b"], "additionalProperties": B}
    grammar = schemac.compile(schema, use_cache=False).grammar
    admitted = {keys for keys in itertools.permutations("abz") if accepts(grammar, _dumps({k: 1 for k in keys}))}
    assert admitted == {("a", "b", "z"), ("b", "a", "z")}


def test_reasoning_first_in_both_orders_stays_first() -> None:
    schema = {"type": "object", "properties": {"reasoning": {"type": "string"}, "answer": I, "id": I},
              "required": ["reasoning", "id", "answer"], "additionalProperties": False}
    grammar = schemac.compile(schema, use_cache=False).grammar
    assert accepts(grammar, '{"reasoning": "r", "answer": 1, "id": 2}')
    assert accepts(grammar, '{"reasoning": "r", "id": 2, "answer": 1}')
    assert not accepts(grammar, '{"answer": 1, "reasoning": "r", "id": 2}')
    assert not accepts(grammar, '{"id": 2, "answer": 1, "reasoning": "r"}')


@pytest.mark.xfail(strict=True, reason=(
    "the witness value (\"some entry's value is in V\", from `not additionalProperties`/"
    "`not patternProperties`) is V's double complement, which lowering writes as an allOf of one-key "
    "conjuncts (`required: [a]`, `required: [b]`): the `required` order of V is gone before "
    "`stated_orders` runs (walking the marker's values too changes nothing; tried)"))
@pytest.mark.parametrize("schema", [
    {"type": "object", "not": {"additionalProperties": {"not": P_BA}}},
    {"type": "object", "not": {"patternProperties": {"^x": {"not": P_BA}}}},
], ids=["additionalProperties", "patternProperties"])
def test_witness_values_admit_their_stated_order(schema: dict[str, Any]) -> None:
    grammar = schemac.compile(schema, use_cache=False).grammar
    for text in ('{"x": {"a": 1, "b": 2}}', '{"x": {"b": 2, "a": 1}}'):
        assert valid_text(FinalValidator(schema), text)
        assert accepts(grammar, text), text


def test_enum_listing_both_orders_admits_both() -> None:
    """Was a finding (fixed on the budget branch: `Writer._listed`, now
    `lark_listed.listed`, keeps every listed member):
    enum members were kept by `json_key` (JSON equality), so an enum listing one object in two
    orders kept only the last spelling; the first member, written in its own order and in
    `properties`' order, was refused."""
    schema = {"type": "object", "properties": {"a": B, "b": B}, "required": ["b"],
              "enum": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]}
    grammar = schemac.compile(schema, use_cache=False).grammar
    assert accepts(grammar, '{"a": 1, "b": 2}') and accepts(grammar, '{"b": 2, "a": 1}')


# ============================================================================================
# 4. compile cost: the rewrite against `properties` order in the same run

# was a finding (fixed: merged nodes (allOf parts, their branches, $ref targets beside other
# keywords) keep one order): each allOf part is rewritten to anyOf of two orders before the Lark
# writer distributes allOf over anyOf (`lark_merge.merged`), so k reordered parts give 2^k merged
# objects: k=6 writes ~57x the grammar of `properties` order (1.4 KB -> 77 KB), k=8 ~240x (422 KB)
def test_reordered_allof_parts_grow_the_grammar_at_most_linearly() -> None:
    schema = _allof_pairs(6)
    sizes = {ko: len(schemac.compile(schema, use_cache=False, key_order=ko).grammar) for ko in ("properties", "schema")}
    assert sizes["schema"] <= 4 * sizes["properties"], sizes


# was a finding (fixed: allOf parts keep one order): same 2^k
# distribution: with 10 reordered allOf parts the default policy is rejected (grammar-error:
# llguidance panics on `grammar.symbols.len() < u16::MAX`; 12 parts pass the 5 s deadline) where
# `properties` order compiles 2 KB in milliseconds; the policy only adds orders, so it should fall
# back to `properties` order (as key_order="any" does) rather than lose the schema
def test_default_policy_compiles_what_properties_order_compiles() -> None:
    schema = _allof_pairs(10)
    assert accepts(schemac.compile(schema, use_cache=False, key_order="properties").grammar, _allof_text(10, False))
    artifact = schemac.compile(schema, use_cache=False)
    assert accepts(artifact.grammar, _allof_text(10, False))


#: found by fuzzing (minimized): 274 bytes, no reordered `required` in it as written; the
#: lowering of minProperties (`intersection`) and if/then/unevaluatedProperties makes some
SMALL_BLOWUP = {"allOf": [{"allOf": [{"anyOf": [{"properties": {"c": True, "a": True}, "minProperties": 2}]}],
                           "anyOf": [{"if": {"properties": {"b": True, "a": True}, "required": ["a"]},
                                      "then": {"properties": {"c": True, "b": True}, "required": ["b"]}}],
                           "unevaluatedProperties": False}]}


# was a finding (fixed: merged nodes keep one order): lowering
# leaves {properties: {b, a}, required: [a]} (and the like) several times inside nested allOf/anyOf;
# each becomes anyOf of two orders and the Lark writer distributes them all: `properties` order
# writes 3 KB in 0.15 s, the default passes the 5 s deadline (too- large; with a 120 s deadline
# llguidance's parser refuses it: 4,941 Earley items at the first byte, max 2,000)
def test_small_lowered_schema_compiles_under_the_default() -> None:
    valid = '{"b": 1, "a": 1}'  # an order `properties` order admits (the maps merge)
    assert valid_text(FinalValidator(SMALL_BLOWUP), valid)
    assert accepts(schemac.compile(SMALL_BLOWUP, use_cache=False, key_order="properties").grammar, valid)
    assert accepts(schemac.compile(SMALL_BLOWUP, use_cache=False).grammar, valid)


def test_reordered_allof_is_sound_and_keeps_its_parts_order() -> None:
    """allOf parts are merged: one of them takes both orders, the others keep the order of their
    `properties` (README; the 2^k copies are not written)."""
    schema = _allof_pairs(3)
    grammar = schemac.compile(schema, use_cache=False).grammar
    oracle = FinalValidator(schema)
    admitted = []
    for flips in itertools.product((False, True), repeat=3):
        value: dict[str, Any] = {}
        for i, flip in enumerate(flips):
            value.update({f"b{i}": 1, f"a{i}": 2} if flip else {f"a{i}": 2, f"b{i}": 1})
        if accepts(grammar, _dumps(value)):
            admitted.append(flips)
        bad = dict(value, a0="x")
        assert not valid_text(oracle, _dumps(bad)) and not accepts(grammar, _dumps(bad))
    assert len(admitted) == 2 and (False, False, False) in admitted, admitted
    assert not accepts(grammar, _dumps({"a0": 1, "b0": 1, "a1": 1, "b1": 1, "a2": 1}))


def _chain(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = I
    for _ in range(depth):
        node = {"type": "object", "properties": {"a": {"type": "string"}, "n": node}, "required": ["n", "a"],
                "additionalProperties": False}
    return node


# was a finding (fixed: written in `properties` order with a key-order-fallback warning): each
# reordered level costs the Lark writer about twice the Python frames (value -> anyOf -> value ->
# object -> hoisted $ref -> value), so a 200-level chain that `properties` order compiles hits
# RecursionError under the default, caught only by the pipeline's backstop (too-large: "schema
# nesting is too deep"; the backstop says walkers must be bounded)
def test_deep_reordered_chain_compiles_as_under_properties_order() -> None:
    schema = _chain(200)
    assert schemac.compile(schema, use_cache=False, key_order="properties").grammar
    artifact = schemac.compile(schema, use_cache=False)
    assert "key-order-fallback" in [d.code for d in artifact.diagnostics]


def test_deep_reordered_chain_is_refused_with_a_diagnostic_not_a_crash() -> None:
    """Whatever the depth, the outcome is a grammar or a CompileError, never another exception."""
    for depth in (100, 200):
        try:
            schemac.compile(_chain(depth), use_cache=False)
        except CompileError as exc:
            assert exc.codes == ["too-large"], exc


@pytest.mark.parametrize("name,schema,factor", [
    ("chain100", _chain(100), 2.5),
    ("wide60", {"type": "object", "properties": {f"k{i}": B for i in range(60)}, "required": [f"k{i}" for i in reversed(range(60))],
                "additionalProperties": False}, 2.5),
    ("shared_value", {"type": "object", "required": ["p39", "p0"], "properties": {
        f"p{i}": {"type": "object", "properties": {"a": P_BA, "b": P_BA}, "required": ["b", "a"]} for i in range(40)}}, 8),
    ("equal_values_not_shared", {"type": "object", "properties": {f"p{i}": {"oneOf": [{"type": "string"}, {
        "type": "object", "required": ["b", "a"], "additionalProperties": False, "properties": {
            "a": {"anyOf": [B, {"type": "string", "maxLength": i % 7 + 1}]}, "b": {"anyOf": [B, {"type": "null"}]}}}]}
        for i in range(60)}}, 8),
    ("recursive_tree", {"$defs": {"t": {"type": "object", "properties": {"l": {"$ref": "#/$defs/t"}, "r": {"$ref": "#/$defs/t"}, "v": I},
                                        "required": ["v"]}}, "$ref": "#/$defs/t"}, 2.5),
])
def test_rewrite_cost_stays_within_a_factor(name: str, schema: dict[str, Any], factor: float) -> None:
    """Shapes whose copies share their values (hoisted definitions) stay within a small factor
    of `properties` order in size, and compile quickly."""
    sizes = {}
    for ko in ("properties", "schema"):
        sizes[ko] = len(schemac.compile(schema, use_cache=False, key_order=ko).grammar)
    assert sizes["schema"] <= factor * sizes["properties"], sizes


# ============================================================================================
# 5. the memo key keeps member order everywhere, not only in `properties`

def _equal_patterns(n: int) -> dict[str, Any]:
    """n unanchored key patterns whose schemas are equal JSON values spelled in different member orders."""
    members = [("type", "integer"), ("minimum", 0), ("maximum", 5)]
    spellings = list(itertools.permutations(members))
    return {"type": "object", "additionalProperties": False,
            "patternProperties": {chr(97 + i): dict(spellings[i % len(spellings)]) for i in range(n)}}


# was a finding (fixed: classes are grouped by the sorted JSON of their schema): `Writer.key_of` now
# dumps without sort_keys for every schema, and `lark_object_classes.extras` groups
# patternProperties by `key_of`: five equal value schemas spelled in different member orders become
# five groups, 31 key classes > MAX_CLASSES, rejected (grammar-error) under both key orders; with
# sorted keys they were one group and compiled (only `properties` order matters)
@pytest.mark.parametrize("key_order", ["schema", "properties"])
def test_equal_pattern_schemas_in_another_member_order_still_compile(key_order: str) -> None:
    schema = _equal_patterns(5)
    art, wrong = _unsound(schema, ['{"abcde": 3}', '{"abcde": 9}', '{"x": 1}', '{"a": 1, "b": 2}'], key_order=key_order)
    assert not wrong and accepts(art.grammar, '{"abcde": 3}')


def test_pattern_schemas_in_another_member_order_stay_sound() -> None:
    schema = _equal_patterns(3)
    texts = ['{"abc": 3}', '{"abc": 9}', '{"x": 1}', '{"a": 1, "b": 2}', '{"ab": -1}', '{"c": 5}']
    art, wrong = _unsound(schema, texts)
    assert not wrong
    assert accepts(art.grammar, '{"abc": 3}') and accepts(art.grammar, '{"a": 1, "b": 2}')


# ============================================================================================
# 6. tool-call grammars take the answer's key orders (`properties` order under key_order="properties")

def test_tool_arguments_keep_properties_order() -> None:
    import schemac.tools as tools
    from testkit.tools_cases import chat, chat_tool, hermes

    cases = [(hermes(("f", {"a": 1, "b": 2})), True, True), (hermes(("f", {"b": 2, "a": 1})), False, True),
             (hermes(("f", {"a": 1, "b": 9})), False, False), ('{"a": 1, "b": 2}', True, True),
             ('{"b": 2, "a": 1}', False, True), ('{"b": 2}', False, False)]
    for key_order in ("properties", "schema"):  # under "schema" (the default) `required`'s order too
        tg = tools.build(chat([chat_tool("f", P_BA)], answer=P_BA), api="chat", parser="hermes", key_order=key_order)
        for text, admitted, valid in cases:
            assert accepts(tg.grammar, text) is (admitted or (valid and key_order == "schema")), (key_order, text)
            assert tg.validate(text).ok is valid, text


# was a finding (fixed): `tools.compile.compile_part` checks each part with `emit_schema(bundle,
# lowered, budget)`, whose key_order defaults to "schema", so the stated-orders rewrite (and its 2^k
# allOf growth) runs on tool parameters although the envelope embeds them in `properties` order: a
# tool whose parameters compile in 2 KB under `properties` order is rejected (grammar-error)
def test_tool_parameters_are_checked_in_the_order_they_are_written() -> None:
    import schemac.tools as tools
    from testkit.tools_cases import chat, chat_tool, hermes

    params = _allof_pairs(10)
    tg = tools.build(chat([chat_tool("f", params)]), api="chat", parser="hermes")
    call = hermes(("f", json.loads(_allof_text(10, False))))
    assert accepts(tg.grammar, call) and tg.validate(call).ok


def test_key_order_is_part_of_the_cache_key(tmp_path: Any) -> None:
    text = '{"b": 1, "a": 2}'
    first = schemac.compile(P_BA, cache_dir=tmp_path).grammar
    strict = schemac.compile(P_BA, cache_dir=tmp_path, key_order="properties").grammar
    again = schemac.compile(P_BA, cache_dir=tmp_path, key_order="schema").grammar
    assert accepts(first, text) and not accepts(strict, text) and accepts(again, text)
