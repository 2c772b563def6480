"""Complements of a definition needed inside its own recursion (`not~X` promised, then built).

Each schema is compiled and walked over every small instance (bounded depth, small alphabets)
comparing grammar acceptance with jsonschema on the ORIGINAL schema, both ways: no text of an
invalid value, in any key order, is accepted, and a valid value is accepted in some key order
(the property-order policy is the grammar's: a complement lists its own keys first, so the
order is asked of the grammar rather than guessed); the lowered definitions must keep every
reference cycle under a descent (no in-place cycle), and a promise that cannot be built must
fall back to the plain rejection without leaving a dangling reference.
"""
from __future__ import annotations

import itertools
from typing import Any

import jsonschema
import pytest

import schemac
from testkit.grammar_harness import accepts, text_of
from schemac.diagnostics import CompileError
from schemac.schema import Bundle, ref_name


def _values(depth: int, keys: list[str], atoms: list[Any], max_items: int) -> list[Any]:
    """Every value nested at most `depth` containers deep: arrays of at most `max_items` items,
    objects over `keys` (listed in that order)."""
    if depth == 0:
        return list(atoms)
    inner = _values(depth - 1, keys, atoms, max_items)
    out = list(atoms)
    for n in range(max_items + 1):
        out.extend(list(t) for t in itertools.product(inner, repeat=n))
    for present in itertools.product([False, True], repeat=len(keys)):
        chosen = [k for k, p in zip(keys, present) if p]
        out.extend(dict(zip(chosen, vs)) for vs in itertools.product(inner, repeat=len(chosen)))
    return out


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        name = ref_name(node)
        if name is not None:
            found.add(name)
        for k, v in node.items():
            if k not in ("const", "enum"):
                _refs(v, found)
    elif isinstance(node, list):
        for v in node:
            _refs(v, found)


def _check_lowered(lowered: Any) -> None:
    """Every reference resolves, and no reference cycle stays at one instance location."""
    from schemac.front.resolve.cycles import check_progress as _check_progress

    defs = lowered.get("$defs", {}) if isinstance(lowered, dict) else {}
    found: set[str] = set()
    _refs(lowered, found)
    assert found <= set(defs), found - set(defs)
    root = {k: v for k, v in lowered.items() if k != "$defs"} if isinstance(lowered, dict) else lowered
    _check_progress(Bundle(root, defs, {n: n for n in defs}))  # raises on an in-place cycle


def _orders(value: Any) -> list[Any]:
    """`value` with its objects' keys in every order (equal JSON values, different texts)."""
    if isinstance(value, list):
        return [list(t) for t in itertools.product(*(_orders(v) for v in value))]
    if not isinstance(value, dict):
        return [value]
    out: list[Any] = []
    for keys in itertools.permutations(value):
        out.extend(dict(zip(keys, vs)) for vs in itertools.product(*(_orders(value[k]) for k in keys)))
    return out


def _check_exhaustive(schema: dict, values: list[Any]) -> tuple[int, int]:
    art = schemac.compile(schema, use_cache=False)
    _check_lowered(art.lowered)
    oracle = jsonschema.Draft202012Validator(schema)
    counts = [0, 0]
    for v in values:
        valid = oracle.is_valid(v)
        texts = [text_of(o) for o in _orders(v)]
        if valid:
            assert any(accepts(art.grammar, t) for t in texts), ("valid value refused in every key order", v)
        else:
            assert not any(accepts(art.grammar, t) for t in texts), ("invalid value accepted", v)
        counts[valid] += 1
    return counts[0], counts[1]


def _ref(name: str) -> dict:
    return {"$ref": "#/$defs/" + name}


#: a linked list whose `next` is exactly one of: a list, an object with `v`
LINKED = {"$defs": {"L": {"type": "object", "properties": {
    "v": {"enum": [0, 1]},
    "next": {"oneOf": [_ref("L"), {"type": "object", "required": ["v"]}]},
}}}, "$ref": "#/$defs/L"}

#: JSON-like values: an array item is a tree or a short array or an integer, exactly one
TREE = {"$defs": {"T": {"type": "array", "maxItems": 2,
                        "items": {"oneOf": [_ref("T"), {"type": "array", "maxItems": 1}, {"type": "integer"}]}}},
        "$ref": "#/$defs/T"}

#: `not` of the definition being lowered, under a property
NOT_SELF = {"$defs": {"X": {"type": "object", "properties": {"a": _ref("X"), "b": {"not": _ref("X")}}}}, "$ref": "#/$defs/X"}

#: `if` whose condition is the recursive definition itself
IF_SELF = {"$defs": {"X": {"type": "object", "properties": {
    "k": {"if": _ref("X"), "then": {"required": ["k"]}, "else": {"type": "integer"}},
}}}, "$ref": "#/$defs/X"}

#: ¬¬X is X
NOT_NOT = {"$defs": {"X": {"type": "object", "properties": {"a": {"not": {"not": _ref("X")}}, "b": {"type": "integer"}}}},
           "$ref": "#/$defs/X"}

#: mutual recursion: Y is lowered inside X (X negates it) and needs ¬X
MUTUAL = {"$defs": {
    "X": {"type": "object", "properties": {"y": _ref("Y"), "w": {"not": _ref("Y")}}},
    "Y": {"type": "array", "maxItems": 1, "items": {"oneOf": [_ref("X"), {"type": "object", "required": ["z"]}]}},
}}

#: a oneOf whose branches are both recursive references
BOTH_REFS = {"$defs": {
    "X": {"type": "object", "properties": {"a": {"oneOf": [_ref("X"), _ref("Y")]}}},
    "Y": {"type": "object", "properties": {"b": _ref("X")}, "required": ["b"]},
}, "$ref": "#/$defs/X"}

#: recursion beside `$ref` siblings: X extends Base, and a oneOf branch is X with a sibling
SIBLINGS = {"$defs": {
    "Base": {"properties": {"b": {"type": "integer"}}},
    "X": {"$ref": "#/$defs/Base", "type": "object", "properties": {
        "a": {"oneOf": [{"$ref": "#/$defs/X", "required": ["b"]}, {"type": "object", "required": ["a"]}]}}},
}, "$ref": "#/$defs/X"}

#: X accepts every value (each object's `a` is again an X), so ¬X accepts none
EVERYTHING = {"$defs": {"X": {"properties": {"a": _ref("X"), "b": {"oneOf": [_ref("X"), {"type": "integer"}]}}}},
              "$ref": "#/$defs/X"}

#: X has no instance (it always needs a deeper X), so ¬X accepts every value
NOTHING = {"$defs": {
    "X": {"type": "object", "required": ["a"], "properties": {"a": _ref("X"), "b": {"oneOf": [_ref("X"), {"type": "integer"}]}}},
}, "anyOf": [_ref("X"), {"type": "object", "properties": {"c": {"not": _ref("X")}}}]}


@pytest.mark.parametrize("schema,keys,atoms,depth,items", [
    (LINKED, ["v", "next"], [0, 1, "x"], 2, 1),
    (LINKED, ["next"], [0, None], 3, 0),
    (TREE, [], [0, "x"], 3, 2),
    (NOT_SELF, ["a", "b"], [0], 2, 1),
    (NOT_SELF, ["a", "b"], [0], 3, 0),
    (IF_SELF, ["k"], [0, "x"], 3, 1),
    (NOT_NOT, ["a", "b"], [0, "x"], 2, 1),
    (BOTH_REFS, ["a", "b"], [0], 3, 0),
    (SIBLINGS, ["b", "a"], [0, "x"], 2, 1),
    (EVERYTHING, ["a", "b"], [0, "x"], 2, 1),
    (NOTHING, ["a", "b", "c"], [0], 2, 0),
], ids=["linked", "linked-deep", "tree", "not-self", "not-self-deep", "if-self", "not-not", "both-refs",
        "siblings", "everything", "nothing"])
def test_exact_on_every_small_instance(schema: dict, keys: list[str], atoms: list[Any], depth: int, items: int) -> None:
    invalid, valid = _check_exhaustive(schema, _values(depth, keys, atoms, items))
    assert invalid and valid  # both directions are exercised


@pytest.mark.parametrize("schema", [
    {**TREE, "$defs": {"T": {k: v for k, v in TREE["$defs"]["T"].items() if k != "maxItems"}}},  # `contains` of ¬T
    {"$defs": {"T": {"type": "array", "maxItems": 2, "items": {"oneOf": [_ref("T"), {"type": "array", "maxItems": 1}]}}},
     "$ref": "#/$defs/T"},
])
def test_exact_or_rejected(schema: dict) -> None:
    """Shapes the grammar writer or llguidance may refuse (a `contains` over a recursive
    complement, a recursive rule beside sibling keys): a diagnostic, or exact."""
    try:
        _check_exhaustive(schema, _values(3, [], [0], 2))
    except CompileError as exc:
        assert set(exc.codes) <= {"contains-unbounded", "too-large", "grammar-error"}, exc


@pytest.mark.parametrize("root", ["X", "Y"])
def test_mutual_recursion(root: str) -> None:
    schema = {**MUTUAL, "$ref": "#/$defs/" + root}
    values = _values(2, ["y", "w", "z"], [0], 1) + _values(3, ["y", "z"], [0], 1)
    values = [v for v in values if len(repr(v)) < 32]  # keeps the walk (and its key orders) short
    invalid, valid = _check_exhaustive(schema, values)
    assert invalid and valid


def test_complements_are_named_definitions() -> None:
    lowered = schemac.compile(LINKED, use_cache=False).lowered
    assert "not~L" in lowered["$defs"]
    assert {"$ref": "#/$defs/not~L"} in _walk(lowered["$defs"]["not~L"])  # it is itself recursive


def _walk(node: Any) -> list[Any]:
    out = [node]
    for v in node.values() if isinstance(node, dict) else node if isinstance(node, list) else ():
        out.extend(_walk(v))
    return out


#: items past prefixItems on unbounded arrays have no exact complement
_UNCOMPLEMENTABLE = {"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "string"}}


@pytest.mark.parametrize("schema", [
    {"$defs": {"X": {"type": "object", "properties": {
        "a": {"oneOf": [_ref("X"), {"type": "object", "required": ["b"]}]}, "t": _UNCOMPLEMENTABLE}}}, "$ref": "#/$defs/X"},
    {"$defs": {  # Y, lowered inside X, holds the failed promise: it is lowered again
        "X": {"type": "object", "properties": {"y": _ref("Y"), "w": {"not": _ref("Y")}, "t": _UNCOMPLEMENTABLE}},
        "Y": {"type": "array", "items": {"oneOf": [_ref("X"), {"type": "object", "required": ["z"]}]}},
    }, "$ref": "#/$defs/X"},
])
def test_a_promise_that_cannot_be_built_rejects_as_before(schema: dict) -> None:
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, use_cache=False)
    assert "one-of-not-exact" in info.value.codes
    assert "from inside its own recursion" in info.value.diagnostics[-1].message


def test_a_failed_promise_is_forgotten_where_the_branch_is_not_needed() -> None:
    # the `oneOf` fails once ¬X is refused; `anyOf` beside it needs no complement and compiles
    schema = {"$defs": {"X": {"type": "object", "properties": {
        "a": {"anyOf": [_ref("X"), {"type": "integer"}]},
        "b": {"oneOf": [_ref("X"), {"type": "object", "required": ["c"]}]},
        "t": _UNCOMPLEMENTABLE}}}, "$ref": "#/$defs/X"}
    with pytest.raises(CompileError):
        schemac.compile(schema, use_cache=False)
    ok = {**schema, "$defs": {"X": {**schema["$defs"]["X"], "properties": {
        k: v for k, v in schema["$defs"]["X"]["properties"].items() if k != "b"}}}}
    _check_exhaustive(ok, _values(2, ["a", "t"], [0], 1))


def test_a_promise_is_read_as_unknown_until_built() -> None:
    """While `X` is lowered, `not~X` is neither empty nor everything to the analyses."""
    from schemac.budget import Budget
    from schemac.diagnostics import DiagnosticSink
    from schemac.lower import lower_node
    from schemac.lower.support.analysis import BASE_TYPES, disjoint, types_of
    from schemac.lower.support.context import Definitions, LowerContext
    from schemac.lower.negation.complement import negate

    bundle = Bundle(True, {"X": {"type": "object", "properties": {"a": _ref("X")}}}, {"X": "/$defs/X"})
    ctx = LowerContext(Budget(), Definitions(bundle), DiagnosticSink(), "", 0, lower_node)
    ctx.defs.in_progress.add("X")  # as while X's body is lowered
    promised = negate(_ref("X"), ctx)
    assert promised == _ref("not~X")
    assert ctx.deref(promised) is None and ctx.definition("not~X") is None
    assert types_of(promised, ctx) == BASE_TYPES
    assert not disjoint(promised, {"type": "null"}, ctx) and not disjoint(promised, {"type": "object"}, ctx)
    assert negate(promised, ctx) == _ref("X")  # ¬¬X


def test_not_contains_of_the_definition_being_lowered() -> None:
    """Inside X, `contains: X` stays for the Lark array writer (X is not lowered yet); its
    complement is "every item outside X", through the promised ¬X."""
    schema = {"$defs": {"X": {"type": "array", "maxItems": 2, "items": {"anyOf": [
        {"type": "integer"}, {"type": "array", "maxItems": 2, "not": {"contains": _ref("X")}}]}}}, "$ref": "#/$defs/X"}
    invalid, valid = _check_exhaustive(schema, _values(3, [], [0, "x"], 2))
    assert invalid and valid
