"""min/maxProperties with optional properties, integral-float counts: fixtures, exactness, budget."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import schemac
from schemac.budget import Limits
from lower_passes_oracle import check_exact, check_fixture, fixtures, instances, relower


@pytest.mark.parametrize("path", fixtures("intersection"), ids=lambda p: p.stem)
def test_fixture(path):
    check_fixture(path)


SCHEMAS = [
    {"properties": {"a": {}, "b": {}, "c": {}}, "minProperties": 2},
    {"properties": {"a": {}, "b": {}}, "patternProperties": {"^x": {}}, "additionalProperties": False, "maxProperties": 1},
    {"properties": {"a": {"type": "integer"}, "b": {}}, "required": ["b"], "minProperties": 2, "maxProperties": 3},
    {"properties": {"a": {}, "b": {}}, "additionalProperties": False, "minProperties": 3},
    {"properties": {"a": {}, "b": {}, "c": {}}, "additionalProperties": False, "minProperties": 2},
    {"properties": {"a": {}, "b": {}, "c": {}}, "additionalProperties": False, "maxProperties": 1, "minProperties": 1},
]


@pytest.mark.parametrize("schema", SCHEMAS)
@settings(max_examples=25, deadline=None)
@given(data=st.lists(instances(["a", "b", "c", "x1"], [1]), max_size=6))
def test_exact_and_fixpoint(schema, data):
    check_exact(schema, data + [{}, {"a": 1}, {"a": 1, "b": 1}, {"a": 1, "b": 1, "c": 1}, {"x1": 1}])
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert relower(lowered) == lowered


def test_budget_just_under_and_over():
    schema = {"properties": {k: {} for k in "abcd"}, "maxProperties": 1}  # 1 + 4 branches
    schemac.compile(schema, limits=Limits(entries=5), use_cache=False)
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, limits=Limits(entries=4), use_cache=False)
    assert err.value.codes == ["budget-exhausted"]
