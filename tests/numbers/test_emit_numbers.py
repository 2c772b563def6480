"""Exact numbers (schemac.emit.lark.numbers): bounds and multipleOf enforced by schemac's own lexeme.

A grid of bounds (inclusive/exclusive, integer/number, signs, fractional partners, past 2^53)
and multipleOf values, each compiled and walked over number spellings; the oracle is plain
jsonschema on exact values (schema and instance parsed with `parse_float=Decimal`). Soundness on
every spelling; completeness on every valid one in the policy's spelling (`schemac.numbers.exact`:
integers `-?(0|[1-9][0-9]*)`, constrained numbers the same with an optional fraction, no
exponent, never a negative zero).
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from itertools import product

import jsonschema
import pytest

import schemac
from testkit.exactness import check
from testkit.grammar_harness import accepts

BIG = 2 ** 53
SPELLINGS = ["-2", "-1", "-1.0", "-0.5", "-0.50", "-0", "-0.0", "0", "0.0", "0.1", "0.25", "0.3", "0.35", "0.5",
             "0.50", "0.51", "1", "1.0", "1e0", "1E0", "1.5", "2", "3", "6", "10", "01", "1.", ".5",
             str(BIG + 1), str(BIG + 2), str(BIG + 3), str(-BIG - 1), f"{BIG + 1}.5"]
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
_JSON = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def policy(text: str, integer: bool) -> bool:
    """Whether `text` is a spelling the policy admits for a constrained number."""
    if not (_INTEGER if integer else _NUMBER).fullmatch(text):
        return False
    return not (text.startswith("-") and Decimal(text) == 0)


def grid() -> list[dict]:
    bounds = [None, (0, False), (0, True), (-0.5, False), (-0.5, True), (0.5, True), (1, False), (BIG + 1, False)]
    uppers = [None, (0, True), (0.5, False), (1, True), (2, False), (BIG + 2, False), (BIG + 2, True)]
    out = []
    for lo, hi, kind in product(bounds, uppers, ("number", "integer")):
        if lo is None and hi is None:
            continue
        s: dict = {"type": kind}
        if lo is not None:
            s["exclusiveMinimum" if lo[1] else "minimum"] = lo[0]
        if hi is not None:
            s["exclusiveMaximum" if hi[1] else "maximum"] = hi[0]
        out.append(s)
    for step, kind in product((0.1, 0.5, 2, 3, 0.25), ("number", "integer")):
        out.append({"type": kind, "multipleOf": step})
        out.append({"type": kind, "multipleOf": step, "minimum": -1, "maximum": 2})
    out.append({"type": "number", "multipleOf": 0.1, "maximum": 0.35})
    out.append({"type": "integer", "maximum": 9007199254740995})
    return out


def _oracle(schema: object):
    return jsonschema.Draft202012Validator(json.loads(json.dumps(schema), parse_float=Decimal))


def _numbers_exact(schema: dict, wrap) -> None:
    """`wrap` puts a number text where the schema is (the root, a property, an item): a spelling
    is admitted iff its value is valid and the policy admits the spelling."""
    integer = schema.get("type") == "integer"
    try:
        art = schemac.compile(wrap(schema, None), use_cache=False)
    except schemac.CompileError as exc:  # only an empty set may be refused, as unsatisfiable
        assert exc.codes == ["unsatisfiable"], exc
        assert not any(_oracle(schema).is_valid(Decimal(t)) for t in SPELLINGS if _NUMBER.fullmatch(t)), schema
        return
    oracle = _oracle(schema)
    spelled = {wrap(None, text): text for text in SPELLINGS}

    def admitted(wrapped: str) -> bool:
        text = spelled[wrapped]
        value = json.loads(text, parse_float=Decimal) if _JSON.fullmatch(text) else None
        return value is not None and oracle.is_valid(value) and policy(text, integer)

    check(wrap(schema, None), list(spelled), oracle=admitted, art=art)


def _root(schema, text):
    return schema if text is None else text


def _in_object(schema, text):
    return {"type": "object", "properties": {"n": schema}, "required": ["n"]} if text is None else f'{{"n": {text}}}'


@pytest.mark.parametrize("schema", grid(), ids=lambda s: json.dumps(s)[:70])
def test_numbers_exact_at_root(schema: dict) -> None:
    _numbers_exact(schema, _root)


@pytest.mark.parametrize("schema", grid()[::5], ids=lambda s: json.dumps(s)[:70])
def test_numbers_exact_in_object(schema: dict) -> None:
    _numbers_exact(schema, _in_object)


def test_issue_examples() -> None:
    """The reproductions of the issue, fixed."""
    art = schemac.compile({"type": "number", "exclusiveMinimum": 0, "maximum": 0.5}, use_cache=False)
    assert not accepts(art.grammar, "0") and accepts(art.grammar, "0.5")
    art = schemac.compile({"type": "number", "exclusiveMinimum": -0.5, "exclusiveMaximum": 0}, use_cache=False)
    assert not accepts(art.grammar, "-0") and accepts(art.grammar, "-0.25")
    art = schemac.compile({"type": "integer", "maximum": 9007199254740995}, use_cache=False)
    assert accepts(art.grammar, "9007199254740995") and not accepts(art.grammar, "9007199254740996")
    art = schemac.compile({"type": "number", "multipleOf": 0.1, "maximum": 0.35}, use_cache=False)
    assert accepts(art.grammar, "0.3") and not accepts(art.grammar, "0.35")


def test_allof_bounds_merge_exactly() -> None:
    """Bounds from several allOf parts: the tighter wins; multipleOf parts meet at their lcm."""
    art = schemac.compile({"allOf": [{"minimum": 1, "multipleOf": 2}, {"exclusiveMinimum": 1, "multipleOf": 3},
                                     {"type": "integer", "maximum": 12}]}, use_cache=False)
    assert [t for t in ["0", "1", "2", "6", "12", "18"] if accepts(art.grammar, t)] == ["6", "12"]


@pytest.mark.parametrize("schema, texts", [
    ({"const": 0.1}, {"0.1": True, "0.10": True, "0.10000000000000000001": False, "1e-1": False}),
    ({"enum": [9007199254740993]}, {"9007199254740993": True, "9007199254740992": False, "9007199254740994": False}),
    ({"enum": [1, "a", [1, {"x": None}]]}, {"1": True, "1.0": True, "-0": False, '"a"': True, '[1, {"x": null}]': True,
                                           '[1.0,{"x":null}]': True, '[1, {"\\u0078": null}]': False}),
    ({"type": "integer", "enum": [0, 1, 2, 3], "minimum": 1, "exclusiveMaximum": 3}, {"0": False, "1": True, "2": True, "3": False}),
])
def test_listed_numbers_exact(schema: dict, texts: dict) -> None:
    """const/enum with numbers: llguidance reads listed numbers as doubles (a value past 2^53
    matched its neighbour), so schemac writes each listed value itself, after the final
    validator has kept those that satisfy the rest of the node."""
    art = schemac.compile(schema, use_cache=False)
    assert {t: accepts(art.grammar, t) for t in texts} == texts
