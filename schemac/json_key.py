"""Canonical keys for JSON equality, as `const`, `enum` and `uniqueItems` define it.

One text per JSON value such that two values get the same key exactly when they are equal:
1, 1.0 and 1e0 agree (numbers compare as the decimals they spell, past 2^53 too), `true` and
`1` do not, object keys are unordered. Hashable, so membership in a long enum and duplicate
detection are linear instead of pairwise.
"""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any


def _number_key(value: int | float | Decimal) -> list[Any]:
    """An exact canonical form of a number: mathematically equal numbers (1, 1.0, 1e0, -0, 0)
    agree, floats read by their shortest decimal (the literal the schema wrote)."""
    exact = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    sign, digits, exponent = exact.as_tuple()
    text = "".join(map(str, digits)).lstrip("0")
    if not text:
        return ["n", 0]
    stripped = text.rstrip("0")
    assert isinstance(exponent, int)  # finite: JSON has no NaN or infinity
    return ["n", -1 if sign else 1, stripped, exponent + len(text) - len(stripped)]


def json_key(value: Any) -> str:
    """A canonical text for JSON equality: 1 and 1.0 agree, true and 1 do not, keys are sorted."""

    def norm(v: Any) -> Any:
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, str):
            return ["s", v]
        if isinstance(v, (int, float, Decimal)):
            return _number_key(v)
        if isinstance(v, list):
            return ["a", [norm(x) for x in v]]
        return {k: norm(x) for k, x in v.items()}

    return json.dumps(norm(value), sort_keys=True, ensure_ascii=False)


#: id(list) -> (the list, its members' keys); the list is kept so its id is not reused while cached
_MEMBER_KEYS: dict[int, tuple[list[Any], frozenset[str]]] = {}


def member_keys(values: list[Any]) -> frozenset[str]:
    """`json_key` of every member of a const/enum list, computed once per list object: long enums
    are met again and again (every candidate value checked against them); short ones are not
    worth a cache entry."""
    if len(values) <= 32:
        return frozenset(json_key(v) for v in values)
    hit = _MEMBER_KEYS.get(id(values))
    if hit is None or hit[0] is not values:
        if len(_MEMBER_KEYS) > 256:
            _MEMBER_KEYS.clear()
        hit = _MEMBER_KEYS[id(values)] = (values, frozenset(json_key(v) for v in values))
    return hit[1]
