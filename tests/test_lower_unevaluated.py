"""unevaluatedProperties / unevaluatedItems lowering: fixtures, exactness, dynamic rejection."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import schemac
from lower_passes_oracle import check_exact, check_fixture, fixtures, instances, relower


@pytest.mark.parametrize("path", fixtures("unevaluated"), ids=lambda p: p.stem)
def test_fixture(path):
    check_fixture(path)


SCHEMAS = [
    {"allOf": [{"properties": {"a": {}}}, {"patternProperties": {"^b": {"type": "integer"}}}], "unevaluatedProperties": {"type": "string"}},
    {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}, "unevaluatedProperties": False},
    {"prefixItems": [{}], "allOf": [{"prefixItems": [{}, {"type": "string"}]}], "unevaluatedItems": {"type": "integer"}},
    {"$defs": {"base": {"properties": {"a": {"type": "integer"}}}}, "$ref": "#/$defs/base", "unevaluatedProperties": False},
]


@pytest.mark.parametrize("schema", SCHEMAS)
@settings(max_examples=25, deadline=None)
@given(data=st.lists(instances(["a", "b1", "c"], [1, "a"]), max_size=6))
def test_exact_and_fixpoint(schema, data):
    check_exact(schema, data + [{}, {"a": 1}, {"b1": 1}, {"c": "s"}, [1, "a", 2], [1, "a", "b"]])
    lowered = schemac.compile(schema, use_cache=False).lowered
    assert relower(lowered) == lowered


@pytest.mark.parametrize("schema", [
    {"anyOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}], "unevaluatedProperties": False},
    {"dependentSchemas": {"a": {"properties": {"b": {}}}}, "unevaluatedProperties": False},
    {"anyOf": [{"prefixItems": [{}]}, True], "unevaluatedItems": False},
])
def test_dynamic_rejected(schema):
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, use_cache=False)
    assert err.value.codes == ["unevaluated-dynamic"]
