"""uniqueItems lowering: golden fixtures, JSON equality, exactness, budget, rejection."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import schemac
from schemac.budget import Limits
from schemac.lower.unique_items import json_key
from lower_passes_oracle import check_exact, check_fixture, fixtures, relower


@pytest.mark.parametrize("path", fixtures("unique_items"), ids=lambda p: p.stem)
def test_fixture(path):
    check_fixture(path)


def test_json_equality():
    assert json_key(1) == json_key(1.0)
    assert json_key(True) != json_key(1)
    assert json_key({"a": [1, 2.0], "b": None}) == json_key({"b": None, "a": [1.0, 2]})
    assert json_key([1, 2]) != json_key([2, 1])


SCHEMAS = [
    {"items": {"enum": [1, 1.0, True, "a", {"x": 1}]}, "uniqueItems": True},
    {"prefixItems": [{"enum": [1, 2, 3]}], "items": {"enum": [1, 4]}, "uniqueItems": True, "maxItems": 3},
    {"prefixItems": [{"type": "boolean"}, {"type": "null"}, {"enum": [True, None]}], "items": False, "uniqueItems": True},
    {"type": ["array", "string"], "items": {"type": "integer", "minimum": 1, "maximum": 3}, "uniqueItems": True, "minItems": 1},
]
VALUES = [1, 1.0, 2, 3, 4, True, False, None, "a", {"x": 1}, {"x": 1.0}]


@pytest.mark.parametrize("schema", SCHEMAS)
@settings(max_examples=25, deadline=None)
@given(data=st.lists(st.lists(st.sampled_from(VALUES), max_size=5), max_size=6))
def test_exact_and_fixpoint(schema, data):
    check_exact(schema, data + [[], [1, 1.0], [True, 1], "s"])
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert relower(lowered) == lowered


def test_unbounded_rejected():
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile({"items": {"type": "string"}, "uniqueItems": True}, use_cache=False)
    assert err.value.codes == ["unique-items-unbounded"]


def test_budget_just_under_and_over():
    schema = {"items": {"enum": [1, 2, 3]}, "uniqueItems": True}  # 1 + 3 + 6 + 6 = 16 arrays
    schemac.compile(schema, limits=Limits(entries=16), use_cache=False)
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, limits=Limits(entries=15), use_cache=False)
    assert err.value.codes == ["budget-exhausted"]


def test_large_enum_is_refused_in_bounded_memory() -> None:
    """JsonSchemaStore's github-workflow-template shape: `uniqueItems` over 865 enum values took
    1.2 GB and 4 s to refuse while the sequence count was checked (every branch of the search
    held a copy of its prefix); the search now keeps one iterator per position."""
    import tracemalloc

    schema = {"type": "array", "items": {"enum": [f"v{i}" for i in range(865)]}, "uniqueItems": True}
    tracemalloc.start()
    try:
        with pytest.raises(schemac.CompileError) as info:
            schemac.compile(schema, use_cache=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.codes == ["unique-items-unbounded"]
    assert peak < 20 * 2**20
