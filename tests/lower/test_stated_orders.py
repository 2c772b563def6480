"""Key orders the schema states (`schemac.lower.stated_orders`): `properties`' and `required`'s.

The grammar under the default `key_order="schema"` is walked exhaustively over every
`properties` order and every `required` list of a three-key alphabet, on every key subset in
every order, against an oracle written from the policy's definition (an answer is admitted iff
it is valid and its keys follow `properties`' order or the stated required-first order). Both
emit backends are walked: llguidance's JSON form (closed objects) and the Lark writer (objects
with a bounded number, which llguidance's JSON form does not write exactly).
"""
from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

import pytest
from testkit.grammar_harness import accepts

import schemac
from schemac.lower.stated_orders import required_order, with_required_orders

KEYS = "abc"


def _sequences(keys: Sequence[str]) -> list[tuple[str, ...]]:
    return [p for n in range(len(keys) + 1) for c in itertools.combinations(keys, n) for p in itertools.permutations(c)]


def _follows(keys: list[str], order: list[str]) -> bool:
    return keys == [k for k in order if k in keys]


@pytest.mark.parametrize("listed,required,expected", [
    (["a", "b"], ["b"], ["b", "a"]),
    (["a", "b", "c"], ["c", "a"], ["c", "a", "b"]),
    (["a", "b", "c"], ["a", "c"], ["a", "c", "b"]),
    (["a", "b"], ["a"], None),  # required-first is already `properties`' order
    (["a", "b"], ["a", "b"], None),
    (["a", "b"], [], None),
    (["a"], ["a"], None),
    (["a", "b"], ["z", "b"], ["b", "a"]),  # a required key no `properties` lists keeps its place
    (["a", "b"], ["b", "b"], ["b", "a"]),  # duplicates (a malformed `required` never gets here)
])
def test_required_order(listed: list[str], required: list[str], expected: list[str] | None) -> None:
    assert required_order({"properties": {k: {} for k in listed}, "required": required}) == expected


def _node(listed: tuple[str, ...], required: tuple[str, ...], lark: bool) -> dict[str, Any]:
    # an integer bound sends the object to the Lark writer (llguidance's JSON form rounds it)
    value = {"type": "integer", "minimum": 0, "maximum": 5} if lark else {"type": "integer"}
    return {"type": "object", "properties": {k: value for k in listed}, "required": list(required),
            "additionalProperties": False}


@pytest.mark.parametrize("lark", [False, True], ids=["json", "lark"])
@pytest.mark.parametrize("listed", list(itertools.permutations(KEYS)), ids="".join)
def test_every_order_the_schema_states_and_no_other(listed: tuple[str, ...], lark: bool) -> None:
    for required in _sequences(KEYS):
        schema = _node(listed, required, lark)
        grammar = schemac.compile(schema, use_cache=False).grammar
        stated = required_order(schema) or list(listed)
        for keys in _sequences(KEYS):
            value = {k: 1 for k in keys}
            valid = set(required) <= set(keys)
            expected = valid and (_follows(list(keys), list(listed)) or _follows(list(keys), stated))
            assert accepts(grammar, json.dumps(value)) is expected, (listed, required, keys)


def test_properties_policy_keeps_one_order() -> None:
    schema = _node(("a", "b", "c"), ("c", "a"), False)
    grammar = schemac.compile(schema, use_cache=False, key_order="properties").grammar
    for keys in itertools.permutations("abc"):
        assert accepts(grammar, json.dumps({k: 1 for k in keys})) is (keys == ("a", "b", "c")), keys


def _chain(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "integer"}
    for _ in range(depth):
        node = {"type": "object", "properties": {"a": {"type": "string"}, "next": node},
                "required": ["next", "a"], "additionalProperties": False}
    return node


def test_nested_copies_share_their_values() -> None:
    """Each copied node's values become one definition, so the grammar grows linearly with depth
    (writing them twice per level would double it per level)."""
    small, large = (len(schemac.compile(_chain(d), use_cache=False).grammar) for d in (10, 20))
    assert large < 2.5 * small, (small, large)
    value: Any = 7
    for level in range(20):  # every level in either order, mixed
        value = {"a": "x", "next": value} if level % 2 else {"next": value, "a": "x"}
    grammar = schemac.compile(_chain(20), use_cache=False).grammar
    assert accepts(grammar, json.dumps(value))
    assert not accepts(grammar, json.dumps(value).replace("7", '"7"'))


def test_new_definitions_keep_clear_of_the_users() -> None:
    """The user's own definition named like the writer's stem keeps its meaning."""
    schema = {"type": "object", "additionalProperties": False, "required": ["y", "x"],
              "properties": {"x": {"$ref": "#/$defs/schemac-order-0"},
                             "y": {"type": "object", "properties": {"p": {"type": "boolean"}}}},
              "$defs": {"schemac-order-0": {"type": "integer"}}}
    lowered = schemac.compile(schema, use_cache=False).lowered
    written = with_required_orders(lowered)
    assert isinstance(written, dict) and written["$defs"]["schemac-order-0"] == {"type": "integer"}
    grammar = schemac.compile(schema, use_cache=False).grammar
    for text, ok in (('{"x": 1, "y": {"p": true}}', True), ('{"y": {"p": true}, "x": 1}', True),
                     ('{"y": {"p": true}, "x": "1"}', False), ('{"x": 1, "y": {"p": 1}}', False),
                     ('{"y": {}}', False)):
        assert accepts(grammar, text) is ok, text


def test_unchanged_schemas_are_returned_as_they_are() -> None:
    lowered = {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"], "$defs": {"d": {"type": "string"}}}
    assert with_required_orders(lowered) is lowered
    assert with_required_orders(True) is True


def test_definitions_and_branches_are_rewritten_too() -> None:
    schema = {"anyOf": [{"$ref": "#/$defs/pair"}, {"type": "string"}],
              "$defs": {"pair": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                                 "required": ["b", "a"], "additionalProperties": False}}}
    grammar = schemac.compile(schema, use_cache=False).grammar
    for text, ok in (('{"a": 1, "b": 2}', True), ('{"b": 2, "a": 1}', True), ('{"b": 2}', False), ('"s"', True)):
        assert accepts(grammar, text) is ok, text


def test_lark_rules_keep_each_branchs_order() -> None:
    """Two anyOf branches that differ only in `properties`' order are two rules (the Lark writer's
    memo keeps member order), so each branch's order is admitted even under "properties"."""
    bounded = {"type": "integer", "minimum": 0, "maximum": 5}
    first = {"type": "object", "properties": {"a": bounded, "b": bounded}, "required": ["a", "b"], "additionalProperties": False}
    second = {**first, "properties": {"b": bounded, "a": bounded}}
    grammar = schemac.compile({"anyOf": [first, second]}, use_cache=False, key_order="properties").grammar
    assert "lark_grammar" in grammar
    assert accepts(grammar, '{"a": 1, "b": 2}') and accepts(grammar, '{"b": 2, "a": 1}')
    assert not accepts(grammar, '{"b": 9, "a": 1}')


def test_readme_example() -> None:
    """The README's example: `answer, id, note` and `id, answer, note`, each key as optional as
    the schema says, and no other order."""
    schema = {"type": "object", "properties": {"answer": {"type": "string"}, "id": {"type": "integer"}, "note": {"type": "string"}},
              "required": ["id", "answer"], "additionalProperties": False}
    grammar = schemac.compile(schema, use_cache=False).grammar
    value = {"answer": "x", "id": 1, "note": "n"}
    admitted = {("answer", "id", "note"), ("id", "answer", "note"), ("answer", "id"), ("id", "answer")}
    for keys in _sequences(("answer", "id", "note")):
        valid = {"answer", "id"} <= set(keys)
        assert accepts(grammar, json.dumps({k: value[k] for k in keys})) is (valid and keys in admitted), keys


def _part(i: int) -> dict[str, Any]:
    return {"properties": {f"a{i}": {"type": "integer"}, f"b{i}": {"type": "integer"}}, "required": [f"b{i}", f"a{i}"]}


def test_a_merge_copies_at_most_one_part() -> None:
    """Of three `allOf` parts with a `required` order, one takes both orders and two keep the
    order of their `properties` (each copy doubles the merged objects), directly or through
    definitions, as lowering leaves them."""
    direct = {"type": "object", "allOf": [_part(i) for i in range(3)]}
    through = {"type": "object", "allOf": [{"$ref": f"#/$defs/p{i}"} for i in range(3)], "$defs": {f"p{i}": _part(i) for i in range(3)}}
    for schema in (direct, through):
        grammar = schemac.compile(schema, use_cache=False).grammar
        straight = {k: v for i in range(3) for k, v in ((f"a{i}", 1), (f"b{i}", 2))}
        assert accepts(grammar, json.dumps(straight))
        flipped = []
        for i in range(3):
            value = {k: v for j in range(3) for k, v in (((f"b{j}", 2), (f"a{j}", 1)) if j == i else ((f"a{j}", 1), (f"b{j}", 2)))}
            flipped.append(accepts(grammar, json.dumps(value)))
        assert sorted(flipped) == [False, False, True], flipped


def test_copied_parts_stay_linear() -> None:
    """Twelve parts: at most twice the grammar `properties` order writes."""
    schema = {"type": "object", "allOf": [_part(i) for i in range(12)]}
    sizes = [len(schemac.compile(schema, use_cache=False, key_order=k).grammar) for k in ("properties", "schema")]
    assert sizes[1] <= 2 * sizes[0], sizes


def _nested(k: int) -> dict[str, Any]:
    node: dict[str, Any] = _part(k - 1)
    for i in range(k - 2, -1, -1):
        node = {"allOf": [_part(i), node]}
    return {"type": "object", **node}


def _ref_chain(k: int, beside: bool) -> dict[str, Any]:
    """d0 -> d1 -> ... through `allOf` (or a `$ref` beside the part's own keywords)."""
    defs = {f"d{i}": {**_part(i), "$ref": f"#/$defs/d{i + 1}"} if beside else {"allOf": [_part(i), {"$ref": f"#/$defs/d{i + 1}"}]}
            for i in range(k - 1)}
    defs[f"d{k - 1}"] = _part(k - 1)
    return {"type": "object", "$ref": "#/$defs/d0", "$defs": defs}


@pytest.mark.parametrize("schema", [_nested(8), _ref_chain(8, False), _ref_chain(8, True)], ids=["nested", "refs", "beside"])
def test_merged_copies_are_counted_through_nesting_and_references(schema: dict[str, Any]) -> None:
    """A merge group is every node `allOf` and `$ref` join, at any depth: one copy per level
    would make 2^8 merged objects (and at 12 levels pass llguidance's limits)."""
    written = {k: schemac.compile(schema, use_cache=False, key_order=k) for k in ("properties", "schema")}
    assert len(written["schema"].grammar) <= 2 * len(written["properties"].grammar)
    assert not written["schema"].diagnostics


def _branch_pairs(k: int) -> dict[str, Any]:
    """allOf of k anyOfs, each of two objects with a `required` order (issue 29: 4^k before)."""
    def side(key: str, i: int) -> dict[str, Any]:
        return {"properties": {f"{key}{i}": {"type": "integer"}, f"{key}{i}x": {"type": "integer"}},
                "required": [f"{key}{i}x", f"{key}{i}"]}
    return {"type": "object", "allOf": [{"anyOf": [side("a", i), side("c", i)]} for i in range(k)]}


def test_branch_copies_are_counted_with_their_merge() -> None:
    """Copies in `anyOf` branches that an `allOf` joins meet in the merged objects: one per merged
    object, so the grammar at most doubles, and no fallback is needed."""
    schema = _branch_pairs(5)
    written = {k: schemac.compile(schema, use_cache=False, key_order=k) for k in ("properties", "schema")}
    assert len(written["schema"].grammar) <= 2 * len(written["properties"].grammar) + 1024  # + the wrapper rules
    assert not written["schema"].diagnostics


def test_branches_of_one_anyof_keep_their_own_orders() -> None:
    """Two branches of one `anyOf` never merge, so each takes its `required` order too."""
    schema = {"anyOf": [{**_part(0), "additionalProperties": False}, {**_part(1), "additionalProperties": False}]}
    grammar = schemac.compile(schema, use_cache=False).grammar
    for i in range(2):
        assert accepts(grammar, f'{{"a{i}": 1, "b{i}": 2}}') and accepts(grammar, f'{{"b{i}": 2, "a{i}": 1}}'), i


def test_values_of_merged_parts_are_merged_too() -> None:
    """The values of one key in merged parts merge into one object: one copy among them."""
    parts = [{"properties": {"n": {"properties": {"a": {"type": "integer", "maximum": 10 + i}, "b": {"type": "integer"}},
                                   "required": ["b", "a"]}}} for i in range(6)]
    schema = {"type": "object", "allOf": parts}
    written = {k: schemac.compile(schema, use_cache=False, key_order=k) for k in ("properties", "schema")}
    assert len(written["schema"].grammar) <= 2 * len(written["properties"].grammar)


def test_fallback_keeps_half_of_the_steps_left() -> None:
    """The first attempt of a policy that adds orders gets half of the steps left, so the
    `properties`-order fallback has the other half (issue 29: it reused the spent budget)."""
    from schemac.budget import Budget, Limits
    from schemac.pipeline import _share

    budget = Budget(Limits(steps=1000))
    budget.used["steps"], budget.used["entries"] = 400, 7
    attempt = _share(budget)  # 600 steps left: 300 for the attempt
    assert attempt.limits.steps == 700 and attempt.used["steps"] == 400
    attempt.used["entries"] += 1
    assert attempt.used["entries"] == 8 and budget.used["entries"] == 7  # the fallback starts from the attempt's start