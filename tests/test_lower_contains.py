"""contains / minContains / maxContains lowering: golden fixtures, exactness, budget, rejection."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import schemac
from schemac.budget import Limits
from lower_passes_oracle import check_exact, check_fixture, fixtures, relower


@pytest.mark.parametrize("path", fixtures("contains"), ids=lambda p: p.stem)
def test_fixture(path):
    check_fixture(path)


SCHEMAS = [
    {"contains": {"const": 1}, "maxItems": 4, "minContains": 2},
    {"contains": {"type": "string"}, "maxItems": 3, "minContains": 1, "maxContains": 2},
    {"prefixItems": [{"type": "integer"}, {}], "items": False, "contains": {"const": "a"}},
    {"contains": {"type": "boolean"}, "minContains": 0, "maxContains": 0},
    {"items": {"const": 1}, "contains": {"const": 1}, "maxContains": 2},
    {"contains": {"const": 1}, "minContains": 3, "maxContains": 2},
]


@pytest.mark.parametrize("schema", SCHEMAS)
@settings(max_examples=25, deadline=None)
@given(data=st.lists(st.lists(st.sampled_from([1, 2, "a", True, None, 1.0]), max_size=5), max_size=6))
def test_exact_and_fixpoint(schema, data):
    check_exact(schema, data + [[], [1], "x", {}])
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert relower(lowered) == lowered


def test_unbounded_left_to_lark_or_rejected():
    """Unbounded arrays keep `contains` and the marker; below an open object they are rejected."""
    lowered = schemac.compile({"contains": {"const": 1}}, use_cache=False).lowered
    assert lowered == {"contains": {"const": 1}, "minContains": 1, "x-schemac-array": {}}
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile({"additionalProperties": {"contains": {"const": 1}}}, use_cache=False)
    assert err.value.codes == ["contains-unbounded"]


def test_budget_just_under_and_over():
    schema = {"contains": {"const": 1}, "maxItems": 4, "minContains": 2}  # C(4, 2) = 6 branches
    schemac.compile(schema, limits=Limits(entries=6), use_cache=False)
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, limits=Limits(entries=5), use_cache=False)
    assert err.value.codes == ["budget-exhausted"]
