"""Regression tests for loader bugs the hostile cases found (each failed before its fix)."""
from __future__ import annotations


import pytest

import schemac
from schemac.budget import Limits
from schemac.front.load import load


def _codes(source: object) -> list[str]:
    return [d.code for d in schemac.check(source, use_cache=False)]


@pytest.mark.parametrize("text", ['{"const": "\\ud800"}', '{"pattern": "\\udfff"}', '{"properties": {"\\udc00": {}}}'])
def test_lone_surrogates_are_diagnosed_not_unicode_errors(text: str) -> None:
    # was: UnicodeEncodeError escaping from the cache key's UTF-8 encoding
    assert _codes(text) == ["invalid-json"]
    assert _codes({"enum": ["\ud800"]}) == ["invalid-json"]


def test_huge_integers_are_diagnosed_not_value_errors() -> None:
    # was: ValueError (Python's 4,300-digit int conversion limit) escaping from json.loads / dumps
    assert _codes('{"const": ' + "9" * 5000 + "}") == ["invalid-number"]
    assert _codes({"const": 10 ** 5000}) == ["invalid-number"]
    assert _codes({"const": 2 ** 1024}) == ["invalid-number"]
    assert _codes({"const": 2 ** 1023}) == []


def test_property_count_bound_rejects_before_llguidance() -> None:
    # was: 10,000 properties took 11 s inside llguidance's grammar check (quadratic, uninterruptible)
    schema = {"type": "object", "properties": {f"p{i}": {} for i in range(10_000)}}
    assert _codes(schema) == ["too-large"]
    with pytest.raises(schemac.CompileError):
        load({"type": "object", "properties": {f"p{i}": {} for i in range(100)}}, Limits(max_property_pairs=9_999))
    load({"type": "object", "properties": {f"p{i}": {} for i in range(100)}}, Limits(max_property_pairs=10_000))


def test_enum_and_subschema_bounds() -> None:
    assert _codes({"enum": list(range(50_001))}) == ["too-large"]
    assert _codes({"anyOf": [{"const": i} for i in range(20_001)]}) == ["too-large"]


def test_deep_text_is_located_without_a_python_prescan() -> None:
    text = '{"items": ' * 10_000 + "{}" + "}" * 10_000
    (diag,) = schemac.check(text, use_cache=False)
    assert diag.code == "too-large" and diag.line == 1 and diag.column is not None
    # strings holding brackets do not count as nesting
    assert _codes('{"const": "' + "[" * 10_000 + '"}') == []


def test_steps_are_the_verdict_and_the_wall_clock_only_a_guard() -> None:
    """Past the step budget: `too-large` (a verdict); past the wall-clock guard: `compile-timeout`."""
    from schemac.budget import Budget

    budget = Budget(Limits(steps=3))
    budget.step("/x", 3)
    with pytest.raises(schemac.CompileError) as exc:
        budget.step("/x")
    assert exc.value.codes == ["too-large"] and "steps" in exc.value.diagnostics[0].message
    with pytest.raises(schemac.CompileError) as exc:
        Budget(Limits(deadline_s=-1.0)).step("/x")
    assert exc.value.codes == ["compile-timeout"]
