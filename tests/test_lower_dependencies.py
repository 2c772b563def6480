"""dependentRequired / dependentSchemas lowering: golden fixtures, exactness, budget."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import schemac
from schemac.budget import Limits
from lower_passes_oracle import check_exact, check_fixture, fixtures, instances, relower


@pytest.mark.parametrize("path", fixtures("dependencies"), ids=lambda p: p.stem)
def test_fixture(path):
    check_fixture(path)


SCHEMAS = [
    {"dependentRequired": {"a": ["b", "c"], "b": ["a"]}},
    {"properties": {"a": {"type": "string"}}, "required": ["b"], "dependentRequired": {"b": ["a"]},
     "dependentSchemas": {"a": {"properties": {"c": {"const": 1}}}}},
    {"type": "object", "dependentSchemas": {"a": {"required": ["b"]}, "b": True, "c": False}},
]


@pytest.mark.parametrize("schema", SCHEMAS)
@settings(max_examples=25, deadline=None)
@given(data=st.lists(instances(["a", "b", "c"], [1, "a"]), max_size=6))
def test_exact_and_fixpoint(schema, data):
    check_exact(schema, data + [{}, {"a": 1}, {"a": 1, "b": 1, "c": 1}, {"b": 1}])
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert relower(lowered) == lowered


def _deps(n: int) -> dict:
    return {"dependentRequired": {f"k{i}": [f"d{i}"] for i in range(n)}}


def test_budget_just_under_and_over():
    limits = Limits(entries=6)
    schemac.compile(_deps(3), limits=limits, use_cache=False)  # 3 × 2 branches = 6
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(_deps(4), limits=limits, use_cache=False)
    assert err.value.codes == ["budget-exhausted"]


def test_budget_shared_with_nested_nodes():
    limits = Limits(entries=6)
    schema = {**_deps(2), "properties": {"x": _deps(2)}}
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, limits=limits, use_cache=False)
    assert err.value.codes == ["budget-exhausted"]


def test_required_key_needs_no_branch():
    lowered = schemac.compile({"required": ["a"], "dependentRequired": {"a": ["b"], "b": ["c"]}}, use_cache=False).lowered
    assert lowered == {"required": ["a", "b", "c"]}
