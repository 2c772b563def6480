"""A complement built inline must not leave a reference to itself behind.

¬A, with A not in progress, is built in place and inlined when small. While it is built, the
complement of a definition A refers to (¬B) may be registered as a definition that refers
back to ¬A (B refers to A): ¬A must then be registered too, or the bundle keeps a `$ref` to a
definition that never exists (seen on maskbench Github_hard o3446: `not~propertySet`).
"""
from __future__ import annotations

import pytest

import schemac
from tests.lower.test_lower_recursive_complement import _check_exhaustive, _check_lowered, _ref, _values

#: B is self-recursive (¬B is registered), and refers back to A (¬B refers to ¬A)
DEFS = {
    "A": {"type": "object", "properties": {"a": _ref("B")}},
    "B": {"type": "object", "properties": {"b": {"anyOf": [{"type": "string"}, _ref("A"), _ref("B")]}}},
}
#: roots that ask for ¬A first (with A lowered, so it is built in place)
ROOTS = [
    {"not": _ref("A")},
    {"oneOf": [_ref("A"), {"type": "object", "required": ["a"]}]},
]
#: ¬B asked first, then ¬A inside it
NESTED = {"type": "object", "properties": {"p": {"oneOf": [_ref("A"), {"type": "array"}, _ref("B")]}}}


@pytest.mark.parametrize("root", ROOTS, ids=["not", "one-of"])
def test_no_reference_to_an_inlined_complement(root: dict) -> None:
    lowered = schemac.compile({**root, "$defs": DEFS}, use_cache=False).lowered
    _check_lowered(lowered)  # every `$ref` resolves, no in-place cycle
    assert "not~A" in lowered["$defs"]  # referred to from ¬B, so registered


@pytest.mark.parametrize("root", [*ROOTS, NESTED], ids=["not", "one-of", "one-of-nested"])
def test_exact_on_every_small_instance(root: dict) -> None:
    values = [v for v in _values(2, ["a", "b"], [0, "x"], 1) + _values(3, ["a", "b"], [0], 0) if len(repr(v)) < 40]
    if root is NESTED:
        values = [{"p": v} for v in values if len(repr(v)) < 30] + [0, {}, {"a": {}}]
    invalid, valid = _check_exhaustive({**root, "$defs": DEFS}, values)
    assert invalid and valid
