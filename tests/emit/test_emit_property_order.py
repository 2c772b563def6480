"""Property order of merged objects: where allOf parts, `$ref` targets and anyOf/oneOf branches
list keys, the answer follows every list that agrees with the node's own (`lark_merge.interleave`).

The order merge is walked exhaustively over every pair of key lists from a four-key alphabet;
the grammar tests show each merge site (allOf part, `$ref`, oneOf branch, lowered `if`) writes
the interleaved order, whichever keyword the schema author wrote first.
"""
from __future__ import annotations

import itertools
import json
from typing import Any
import random

import jsonschema
import pytest

import schemac
from testkit.grammar_harness import accepts
from schemac.emit.lark.merge import interleave
from schemac.validate.final import FinalValidator
from testkit import grammar_harness as harness
from testkit.node_exact import exact_or_refused, learn, node, spelling  # noqa: F401 (node: a fixture)

KEYS = "abcd"


def _lists() -> list[list[str]]:
    return [list(p) for n in range(len(KEYS) + 1) for c in itertools.combinations(KEYS, n)
            for p in itertools.permutations(c)]


def _follows(out: list[str], order: list[str]) -> bool:
    at = [out.index(k) for k in order]
    return at == sorted(at)


def _placed_one_by_one(first: list[str], second: list[str]) -> list[str]:
    """The rule `interleave` computes in linear time, applied literally: each new key inserted at
    the later of (just after its last placed predecessor in `second`, just before its first
    placed successor there)."""
    out = list(first)
    for i, key in enumerate(second):
        if key not in out:
            low = max((out.index(k) + 1 for k in second[:i] if k in out), default=0)
            high = min((out.index(k) for k in second[i + 1:] if k in out), default=len(out))
            out.insert(max(low, high), key)
    return out


def test_interleave_follows_both_lists_where_they_agree() -> None:
    lists = _lists()
    for first, second in itertools.product(lists, lists):
        out = interleave(first, second)
        assert out == _placed_one_by_one(first, second), (first, second, out)
        assert sorted(out) == sorted(set(first) | set(second)), (first, second, out)
        assert _follows(out, first), (first, second, out)
        common = [k for k in second if k in first]
        if _follows(first, common):  # the two lists agree on the keys they share
            assert _follows(out, second), (first, second, out)


STRING = {"type": "string"}

#: (schema, the one key order its grammar admits)
CASES: list[tuple[dict[str, Any], list[str]]] = [
    # a oneOf written before `properties` (sorted schema keys): its keys fall in among the node's
    ({"additionalProperties": False,
      "oneOf": [{"properties": {"g": {"const": "x"}, "r": {"const": "y"}}, "required": ["g", "r"]},
                {"properties": {"g": {"const": "z"}, "r": {"const": "w"}}, "required": ["g", "r"]}],
      "properties": {"g": STRING, "u": STRING, "r": STRING, "s": STRING}, "required": ["u", "s"], "type": "object"},
     ["g", "u", "r", "s"]),
    # a oneOf alone in an allOf part is hoisted after the allOf: its own key goes last
    ({"allOf": [{"$ref": "#/$defs/named"},
                {"oneOf": [{"properties": {"kids": {"type": "array"}}, "required": ["kids"]},
                           {"properties": {"leaf": {"type": "boolean"}}, "required": ["leaf"]}]},
                {"properties": {"desc": STRING, "scale": STRING}, "required": ["desc", "scale"]}],
      "$defs": {"named": {"properties": {"name": STRING}, "required": ["name"]}}},
     ["name", "desc", "scale", "kids"]),
    # a branch key before a key the node lists goes before it, though the oneOf is written last
    ({"properties": {"kind": STRING, "id": {"type": "integer"}}, "required": ["id"],
      "oneOf": [{"properties": {"close": {"type": "boolean"}, "kind": {"const": "f"}}, "required": ["close", "kind"]},
                {"properties": {"kind": {"const": "r"}}, "required": ["kind"]}]},
     ["close", "kind", "id"]),
    # a lowered `if`/`then` keeps the node's order too
    ({"if": {"properties": {"k": {"const": "a"}}, "required": ["k"]},
      "then": {"properties": {"k": {}, "v": {"const": 1}}, "required": ["v"]},
      "properties": {"k": STRING, "v": {"type": "integer"}, "w": STRING}, "required": ["k", "w"],
      "additionalProperties": False},
     ["k", "v", "w"]),
]


def _instance(schema: dict[str, Any], order: list[str]) -> dict[str, Any]:
    values = {"g": "x", "r": "y", "u": "1", "s": "2", "name": "n", "kids": [], "desc": "d", "scale": "s",
              "close": True, "kind": "f", "id": 3, "k": "a", "v": 1, "w": "x"}
    return {k: values[k] for k in order}


@pytest.mark.parametrize("schema,order", CASES)
def test_merged_objects_follow_the_interleaved_order(schema: dict[str, Any], order: list[str]) -> None:
    grammar = schemac.compile(schema, use_cache=False, key_order="properties").grammar
    value = _instance(schema, order)
    assert accepts(grammar, json.dumps(value)), (order, grammar)
    for other in itertools.permutations(order):  # `properties`' order: exactly one order is admitted
        if list(other) != order:
            assert not accepts(grammar, json.dumps({k: value[k] for k in other})), other


# ---- attacks on the merged order (attack round 10): seeded random allOf/$ref/anyOf/oneOf/if/
# dependentSchemas maps with conflicting key lists, sound in every order under both policies, and
# admitting the order the literal insertion rule predicts

ORDER_KEYS = ["a", "b", "c", "d"]


LEAVES: list[Any] = [{"type": "integer"}, {"type": "string"}, {"type": "null"}, {"const": 0}, True,
                     {"type": ["integer", "string"]}, {"not": {"type": "null"}}, {"pattern": "^(?!s)"}]


def _fragment(rng: random.Random, depth: int) -> dict[str, Any]:
    """An object fragment: a properties map in a random order, object keywords, and below depth 2
    one of allOf / anyOf / oneOf / if-then-else / dependentSchemas / $ref, keywords shuffled."""
    items: list[tuple[str, Any]] = [("properties", {k: rng.choice(LEAVES) for k in rng.sample(ORDER_KEYS, rng.randint(0, 3))})]
    for kw, p, value in (("required", 0.4, lambda: rng.sample(ORDER_KEYS, rng.randint(1, 2))),
                         ("additionalProperties", 0.25, lambda: rng.choice([False, {"type": "integer"}, {"type": "null"}])),
                         ("minProperties", 0.15, lambda: rng.randint(1, 2)), ("maxProperties", 0.15, lambda: rng.randint(1, 3)),
                         ("patternProperties", 0.1, lambda: {"^d": {"type": "string"}})):
        if rng.random() < p:
            items.append((kw, value()))
    r, sub = rng.random() if depth < 2 else 1.0, lambda: _fragment(rng, depth + 1)
    if r < 0.25:
        items.append(("allOf", [sub() for _ in range(rng.randint(1, 2))]))
    elif r < 0.4:
        items.append((rng.choice(["oneOf", "anyOf"]), [sub(), sub()]))
    elif r < 0.5:
        items += [("if", sub()), ("then", sub())] + ([("else", sub())] if rng.random() < 0.5 else [])
    elif r < 0.58:
        items.append(("dependentSchemas", {rng.choice(ORDER_KEYS): sub()}))
    elif r < 0.7:
        items.append(("$ref", f"#/$defs/D{rng.randint(0, 1)}"))
    rng.shuffle(items)
    return dict(items)


ORDER_OBJECTS = [dict(zip(ks, vs)) for n in range(4) for ks in itertools.combinations(ORDER_KEYS, n)
                 for vs in itertools.product([0, "s", None], repeat=n)]


@pytest.mark.parametrize("key_order, seeds", [("schema", range(0, 150)), ("any", range(1000, 1050))])
def test_random_merged_objects_sound_in_every_order(key_order: str, seeds: range, node: None) -> None:
    """No invalid object is admitted in any key order, every valid one in some order, and a
    compile only ever raises CompileError (`unsatisfiable` only when nothing here is valid)."""
    learn([{"pattern": "^(?!s)", "patternProperties": {"^d": True}}], ["s"] + ORDER_KEYS)
    for seed in seeds:
        rng = random.Random(seed)
        schema = {**_fragment(rng, 0), "$defs": {"D0": _fragment(rng, 2), "D1": _fragment(rng, 2)}, "type": "object"}
        try:
            exact_or_refused(schema, ORDER_OBJECTS, {"unsatisfiable", "too-large"}, key_order=key_order)
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}: {json.dumps(schema)}") from exc


def _alternatives(node: dict[str, Any], defs: dict[str, Any]) -> list[tuple[list[dict[str, Any]], list[Any]]]:
    """(properties maps in written order, the alternative's other constraints) for every branch
    combination of `node` (allOf and `$ref` flattened, each anyOf branch in the keyword's place)."""
    alts: list[tuple[list[dict[str, Any]], list[Any]]] = [([], [])]
    for kw, value in node.items():
        if kw == "properties":
            alts = [(maps + [value], extra) for maps, extra in alts]
        elif kw in ("allOf", "$ref"):
            for part in [defs[value.rsplit("/", 1)[1]]] if kw == "$ref" else value:
                alts = [(m + m2, e + e2) for m, e in alts for m2, e2 in _alternatives(part, defs)]
        elif kw == "anyOf":
            alts = [(m + m2, e + e2) for m, e in alts for part in value for m2, e2 in _alternatives(part, defs)]
        elif kw == "type":
            alts = [(maps, extra + [{"type": value}]) for maps, extra in alts]
    return alts


def _ordered_fragment(rng: random.Random, depth: int) -> dict[str, Any]:
    """Properties maps (overlapping, conflicting orders) under allOf / anyOf / `$ref`; a `$ref`
    is written last in its node, where `resolve` puts it (see the `$ref` finding below)."""
    items: list[tuple[str, Any]] = [("properties", {k: rng.choice(LEAVES[:6]) for k in rng.sample("abcde", rng.randint(0, 4))})]
    r = rng.random() if depth < 2 else 1.0
    if r < 0.35:
        items.append(("allOf", [_ordered_fragment(rng, depth + 1) for _ in range(rng.randint(1, 3))]))
    elif r < 0.55:
        items.append(("anyOf", [_ordered_fragment(rng, depth + 1) for _ in range(2)]))
    if rng.random() < 0.3:
        items.append(("type", "object"))
    rng.shuffle(items)
    if depth < 2 and rng.random() < 0.3:
        items.append(("$ref", f"#/$defs/D{rng.randint(0, 1)}"))
    return dict(items)


def test_valid_objects_admitted_in_the_interleaved_order() -> None:
    """For allOf / `$ref` / anyOf merges, a valid object whose keys one branch combination lists
    is admitted in that combination's order: its maps folded with the literal insertion rule."""
    for seed in range(300):
        rng = random.Random(seed)
        node, defs = _ordered_fragment(rng, 0), {"D0": _ordered_fragment(rng, 2), "D1": _ordered_fragment(rng, 2)}
        schema = {**node, "$defs": defs}
        grammar = schemac.compile(schema, use_cache=False).grammar
        alts = []
        for maps, extra in _alternatives(node, defs):
            order: list[str] = []
            for props in maps:
                order = _placed_one_by_one(order, list(props))
            alts.append((order, jsonschema.Draft202012Validator({"allOf": [{"properties": p} for p in maps] + extra})))
        listed = sorted({k for order, _ in alts for k in order})
        for n in range(min(4, len(listed)) + 1):
            for keys in itertools.combinations(listed, n):
                for values in itertools.product([0, "s"], repeat=n):
                    value = dict(zip(keys, values))
                    orders = {tuple(k for k in order if k in value) for order, check in alts
                              if set(value) <= set(order) and check.is_valid(value)}
                    if orders:
                        assert any(harness.accepts(grammar, spelling(value, o)) for o in orders), (seed, value, orders, schema)


I = {"type": "integer"}


@pytest.mark.parametrize("schema, order", [
    # conflicting lists: the first map wins, a later map's new key falls in beside its neighbours
    ({"allOf": [{"properties": {"a": I, "b": I}}, {"properties": {"b": I, "a": I, "c": I}}], "required": ["a", "b", "c"]},
     ["a", "b", "c"]),
    ({"allOf": [{"properties": {"a": I, "c": I}}, {"properties": {"b": I, "c": I, "d": I, "a": I}}], "required": ["a", "b", "c", "d"]},
     ["b", "a", "c", "d"]),
    ({"allOf": [{"properties": {"a": I, "b": I}}, {"properties": {"b": I, "c": I}}, {"properties": {"c": I, "a": I, "d": I}}],
      "required": ["d", "c", "b", "a"], "maxProperties": 4}, ["a", "b", "c", "d"]),
    ({"properties": {"c": I}, "anyOf": [{"properties": {"b": I, "c": I, "a": I}}], "required": ["a", "b", "c"],
      "minProperties": 3, "maxProperties": 3}, ["b", "c", "a"]),
], ids=["swap", "before-and-after", "cycle", "branch-around"])
def test_conflicting_orders_admit_exactly_the_interleaved_one(schema: dict[str, Any], order: list[str]) -> None:
    grammar = schemac.compile(schema, use_cache=False).grammar
    value = {k: 1 for k in order}
    assert FinalValidator(schema).is_valid(value)
    for other in itertools.permutations(order):
        assert harness.accepts(grammar, spelling(value, other)) == (list(other) == order), other
    assert not harness.accepts(grammar, spelling({**value, "a": "x"}))


def test_ref_written_first_merges_first() -> None:
    """Was a finding: resolve.copy wrote `$ref` after every other keyword, so a `$ref` written
    before `properties` merged last; it now keeps its written place."""
    defs = {"D": {"properties": {"a": I}}}
    ref_first = {"$ref": "#/$defs/D", "properties": {"b": I}, "required": ["a", "b"], "$defs": defs}
    control = {"allOf": [{"$ref": "#/$defs/D"}], "properties": {"b": I}, "required": ["a", "b"], "$defs": defs}
    assert harness.accepts(schemac.compile(control, use_cache=False).grammar, '{"a": 1, "b": 2}')
    assert harness.accepts(schemac.compile(ref_first, use_cache=False).grammar, '{"a": 1, "b": 2}')
