"""patternProperties key classes bounded by the classes some key is in (`lark_object_classes`):
patterns that no key matches together (`^a` and `^b`) no longer count against the bound, so more
pattern groups than the old four compile; overlapping ones past the bound are still refused.
Every grammar is walked against jsonschema on keys that match none, one or several patterns, in
plain and escaped spellings (an escaped key may be refused, never admitted wrongly).
"""
from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

import schemac
from testkit.grammar_harness import accepts
from schemac.diagnostics import CompileError


def _values(i: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": i + 0.5}  # a Lark node (an exact bound), distinct per pattern


_KEYS = ["a", "b", "c", "d", "e", "f", "ab", "ax", "bx", "xa", "x", "fx", "", "ex", "da"]
_ESCAPED = ['"\\u0061"', '"\\u0061x"', '"a\\u0078"']


def _check(schema: dict[str, Any]) -> None:
    grammar = schemac.compile(schema, use_cache=False).grammar
    oracle = jsonschema.Draft202012Validator(schema)
    for key in _KEYS:
        for value in range(0, 8):
            text = json.dumps({key: value}, separators=(",", ":"))
            assert accepts(grammar, text) == oracle.is_valid({key: value}), text
    assert accepts(grammar, "{}") == oracle.is_valid({})
    for spelled in _ESCAPED:
        for value in (0, 7):
            text = "{" + spelled + ":" + str(value) + "}"
            if accepts(grammar, text):
                assert oracle.is_valid(json.loads(text)), text


@pytest.mark.parametrize("extra", [False, True, {"type": "integer", "maximum": 3.5}], ids=str)
@pytest.mark.parametrize("count", [5, 6])
def test_disjoint_groups_compile(count: int, extra: Any) -> None:
    patterns = {f"^{chr(97 + i)}": _values(i) for i in range(count)}
    _check({"type": "object", "patternProperties": patterns, "additionalProperties": extra})


def test_partly_overlapping_groups() -> None:
    """Four anchored prefixes and one pattern matching inside any key: 4 + 4 + 1 classes."""
    patterns = {**{f"^{chr(97 + i)}": _values(i) for i in range(4)}, "x": _values(5)}
    _check({"type": "object", "patternProperties": patterns, "additionalProperties": {"type": "integer", "maximum": 2.5}})


def test_overlapping_groups_past_the_bound() -> None:
    """Five substrings: every subset has a key (`abcde`), 31 classes; the probe stops once
    more than 15 are found, refused."""
    patterns = {chr(97 + i): _values(i) for i in range(5)}
    with pytest.raises(CompileError) as caught:
        schemac.compile({"type": "object", "patternProperties": patterns}, use_cache=False)
    assert "more than 15 classes" in str(caught.value) and caught.value.codes == ["grammar-error"]
