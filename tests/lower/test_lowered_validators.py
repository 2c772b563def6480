"""`scalar_marks.lowered_validator` caches validators by content: a cached one must judge every
value as a validator built afresh for the same schema does, and never stand for another schema."""
from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from schemac.lower.support.marks import NOT_PATTERN
from schemac.lower.support.scalar_marks import lowered_judge, lowered_validator, standard
from schemac.validate.final import FinalValidator

#: the Test Suite beside the repository (a checkout's `../shared`, a worktree's `../../shared`);
#: a fresh clone has the curated groups in testdata/suite instead
SUITE = next((p / "shared/conformance/json-schema-test-suite/draft2020-12" for p in Path(__file__).resolve().parents[3:5]
              if (p / "shared/conformance/json-schema-test-suite/draft2020-12").is_dir()),
             Path(__file__).resolve().parents[2] / "testdata" / "suite")
#: groups without $ref the check must see at least (the full Suite has over 250)
MIN_CASES = 250 if SUITE.name == "draft2020-12" else 100


@pytest.mark.parametrize("first, second, value", [
    ({"const": 1}, {"const": True}, True),  # equal as Python values, not as schemas
    ({"enum": [[1]]}, {"enum": [(1,)]}, [1]),  # one JSON text
    ({"const": Decimal("1.5")}, {"const": "1.5"}, "1.5"),
    ({"type": "string", NOT_PATTERN: ["^a"]}, {"type": "string"}, "ab"),  # a marker is read
])
def test_schemas_that_only_look_alike_get_their_own_validator(first: Any, second: Any, value: Any) -> None:
    a, b = lowered_validator(first), lowered_validator(second)
    assert a is not b
    assert a.is_valid(value) == FinalValidator(standard(first)).is_valid(value)
    assert b.is_valid(value) == FinalValidator(standard(second)).is_valid(value)


def test_a_cached_validator_ignores_later_edits_of_the_callers_schema() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    original = copy.deepcopy(schema)
    lowered_validator(schema)
    schema["properties"]["a"]["type"] = "string"  # the caller's object changes afterwards
    again = lowered_validator(original)
    assert again.is_valid({"a": 1}) and not again.is_valid({"a": "x"})


def _suite_cases() -> list[tuple[Any, list[Any]]]:
    out = []
    for path in sorted(SUITE.glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            schema = group["schema"]
            if isinstance(schema, dict) and schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema":
                schema = {k: v for k, v in schema.items() if k != "$schema"}
            text = json.dumps(schema)
            if "$ref" not in text and "$schema" not in text:  # lowered schemas hold neither
                out.append((schema, [t["data"] for t in group["tests"]]))
    return out


def test_cached_validators_agree_with_fresh_ones_on_the_test_suite() -> None:
    cases = _suite_cases()
    assert len(cases) > MIN_CASES
    for _ in range(2):  # built, then from the cache
        for schema, values in cases:
            cached, fresh = lowered_validator(schema), FinalValidator(standard(schema))
            assert [cached.is_valid(v) for v in values] == [fresh.is_valid(v) for v in values]


def test_remembered_verdicts_tell_look_alike_values_apart() -> None:
    schema = {"enum": [1, [2]]}
    judge, fresh = lowered_judge(schema), FinalValidator(standard(schema))
    values = (1, 1.0, True, [2], (2,), "1", [True])
    for _ in range(2):  # judged, then remembered
        assert [judge(v) for v in values] == [fresh.is_valid(v) for v in values]
    assert [judge(v) for v in values][:3] == [True, True, False]


def test_a_verdict_the_recursion_limit_cut_short_is_not_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    judge, validator = lowered_judge(schema), lowered_validator(schema)
    monkeypatch.setattr(validator, "verdict", lambda v: None)  # as when the recursion limit cuts it short
    assert judge([1]) is False  # no verdict: invalid, as `is_valid` reads it
    monkeypatch.undo()
    assert judge([1]) is True  # and judged again, not taken from memory


def test_remembered_verdicts_agree_with_fresh_validators_on_the_test_suite() -> None:
    for _ in range(2):
        for schema, values in _suite_cases():
            judge, fresh = lowered_judge(schema), FinalValidator(standard(schema))
            assert [judge(v) for v in values] == [fresh.is_valid(v) for v in values]
