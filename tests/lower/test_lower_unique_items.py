"""uniqueItems lowering: golden fixtures, JSON equality, exactness, budget, rejection."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import schemac
from schemac.budget import Limits
from schemac.json_key import json_key
from testkit.lower_passes_oracle import check_exact, check_fixture, fixtures, relower


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


def test_json_equality_is_exact() -> None:
    from decimal import Decimal

    assert json_key(Decimal("1.0")) == json_key(1) == json_key(Decimal("1E0"))
    assert json_key(0.0) == json_key(-0.0) == json_key(Decimal("-0.00"))
    assert json_key(10**300) == json_key(Decimal("1e300")) != json_key(1e300 + 1e285)
    assert json_key(2**63 + 1) != json_key(2**63)
    assert json_key("1") != json_key(1) and json_key([1]) != json_key({"a": 1})
    assert json_key(0.1) == json_key(Decimal("0.1"))  # a float reads as its shortest decimal


@pytest.mark.parametrize("pattern, values, kept", [
    ("^.$", ["\r", "\u2028", "a", "\U0001f600"], ["a", "\U0001f600"]),  # Python `re`: "." takes \r
    ("^\\S$", ["\u00a0", "\ufeff", "b"], ["b"]),
    ("^\\d$", ["\u0663", "1"], ["1"]),
    ("^a$", ["a\n", "a"], ["a"]),  # Python `re`: `$` before a final newline
    ("[^]", ["\n", ""], ["\n"]),  # Python `re`: re.error (was an internal error)
    ("^(a|a)*$", ["a" * 28 + "!", "aa"], ["aa"]),  # Python `re`: exponential (33 s)
])
def test_domain_filtering_has_ecma_meaning(pattern: str, values: list[str], kept: list[str]) -> None:
    """Item domains are filtered by the final validator (ECMA-262 patterns on RE2)."""
    schema = {"type": "array", "items": {"enum": values, "pattern": pattern}, "uniqueItems": True}
    lowered = schemac.compile(schema, use_cache=False).lowered
    arrays = lowered["allOf"][-1]["enum"]
    assert sorted(v for a in arrays if len(a) == 1 for v in a) == sorted(kept)


def test_sequence_search_checks_the_budget() -> None:
    """No unique array of 13 items exists (12 positions share 11 values), and proving so walks
    ~10^8 prefixes: the search stops on the step budget with `too-large`."""
    schema = {"type": "array", "prefixItems": [{"enum": list(range(1, 12))}] * 12 + [{"enum": [12, 13]}],
              "items": False, "minItems": 13, "uniqueItems": True}
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, limits=Limits(steps=50_000), use_cache=False)
    assert err.value.codes == ["too-large"]


def test_too_few_distinct_values_need_no_search() -> None:
    """41 unique items from 40 values: no search (it would walk 40! prefixes to the deadline)."""
    schema = {"type": "array", "items": {"enum": list(range(40))}, "minItems": 41, "uniqueItems": True}
    with pytest.raises(schemac.CompileError) as err:  # a search would end on the budget: too-large
        schemac.compile(schema, use_cache=False)
    assert err.value.codes == ["unsatisfiable"]


def test_exact_bounds_from_the_loader() -> None:
    """Bounds may be Decimal (the exact loader) beside floats: compared exactly, never mixed."""
    from decimal import Decimal

    from schemac.budget import Budget
    from schemac.diagnostics import DiagnosticSink
    from schemac.lower import lower_bundle
    from schemac.schema import Bundle

    schema = {"type": "array", "items": {"type": "integer", "minimum": 0.5, "maximum": Decimal("2.5")}, "uniqueItems": True}
    lowered = lower_bundle(Bundle(schema), Budget(), DiagnosticSink())
    assert lowered["allOf"][-1]["enum"] == [[], [1], [2], [1, 2], [2, 1]]


def test_domain_of_a_pattern_re2_cannot_run_is_unknown() -> None:
    """A (generated) pattern past RE2's program limit proves no domain: None, not a crash."""
    from schemac.budget import Budget
    from schemac.diagnostics import DiagnosticSink
    from schemac.lower.support.context import Definitions, LowerContext
    from schemac.lower.unique_items import domain
    from schemac.schema import Bundle

    ctx = LowerContext(Budget(), Definitions(Bundle({})), DiagnosticSink())
    assert domain({"enum": ["a", "b"], "pattern": "(?:.{1000})" * 40}, ctx, "") is None
    assert domain({"enum": ["a", "b\n"], "pattern": "^.$"}, ctx, "") == ["a"]


def test_exclusive_bounds_give_a_domain() -> None:
    """Candidates come from the tightest bounds, exclusive ones too (the validator filters)."""
    schema = {"type": "array", "items": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 2.5},
              "uniqueItems": True, "minItems": 2}
    from schemac.budget import Budget
    from schemac.diagnostics import DiagnosticSink
    from schemac.lower import lower_bundle
    from schemac.schema import Bundle

    lowered = lower_bundle(Bundle(schema), Budget(), DiagnosticSink())
    assert lowered["allOf"][-1] == {"enum": [[1, 2], [2, 1]]}
