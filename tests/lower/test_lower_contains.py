"""contains / minContains / maxContains lowering: golden fixtures, exactness, budget, rejection."""
from __future__ import annotations

import math
import pytest
from hypothesis import given, settings, strategies as st

import schemac
from schemac.budget import Limits
from testkit.lower_passes_oracle import check_exact, check_fixture, fixtures, relower


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
    """Unbounded arrays keep `contains` and the marker; below an open object the emitter either
    writes them (then the grammar is verified sound to depth 6) or rejects them."""
    lowered = schemac.compile({"contains": {"const": 1}}, use_cache=False).lowered
    assert lowered == {"contains": {"const": 1}, "minContains": 1, "x-schemac-array": {}}
    schema = {"type": "object", "additionalProperties": {"type": "array", "contains": {"const": 1}},
              "examples": [{"a": [1]}]}  # an annotation: gives the verifier the key `"a":`
    report = schemac.verify(schema, depth=6, time_s=math.inf, max_nodes=20_000, canonical=0)
    if report.status == "rejected":
        assert [d.code for d in report.diagnostics] == ["contains-unbounded"]
    else:
        assert report.unsound_count == 0 and not report.dead_ends, report.summary()
        assert report.valid_texts > 1, report.summary()  # {"a":[1]} is reached, not only {}


def test_budget_just_under_and_over():
    schema = {"contains": {"const": 1}, "maxItems": 4, "minContains": 2}  # C(4, 2) = 6 branches
    schemac.compile(schema, limits=Limits(entries=6), use_cache=False)
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile(schema, limits=Limits(entries=5), use_cache=False)
    assert err.value.codes == ["budget-exhausted"]


@pytest.mark.parametrize("bound, lo, hi", [
    (10**12, 5 * 10**11, None), (10**12, 5, 5 * 10**11), (100_000, 2, 50_000), (2**4000, 2, None),
])
def test_branch_count_is_bounded_before_it_starts(bound, lo, hi):
    """Issue 13: counting alternatives never computes big binomials (it took > 120 s); past the
    cap the answer is cap + 1 after at most two steps."""
    from schemac.lower.contains import MAX_BRANCHES, _branch_count

    assert _branch_count(bound, lo, hi) == MAX_BRANCHES + 1


@pytest.mark.parametrize("bound, lo, hi", [(b, lo, hi) for b in range(0, 12) for lo in range(0, b + 1)
                                           for hi in [None, *range(lo, b + 2)]])
def test_branch_count_matches_the_binomial_sum(bound, lo, hi):
    from math import comb

    from schemac.lower.contains import MAX_BRANCHES, _branch_count

    exact = comb(bound, lo) if hi is None or hi >= bound else sum(comb(bound, c) for c in range(lo, hi + 1))
    assert _branch_count(bound, lo, hi) == min(exact, MAX_BRANCHES + 1)


@pytest.mark.parametrize("schema", [
    {"type": "array", "maxItems": 100_000, "contains": {"type": "string"}, "minContains": 2, "maxContains": 50_000},
    {"type": "array", "maxItems": 10**12, "contains": {"type": "string"}, "minContains": 5 * 10**11},
    {"type": "array", "maxItems": 10**12, "contains": {"type": "string"}, "minContains": 5, "maxContains": 5 * 10**11},
    {"type": "array", "contains": {"type": "string"}, "minContains": 10**8},
    {"type": "array", "contains": {"type": "string"}, "minContains": 1, "maxContains": 10**18},
    {"type": "array", "allOf": [{"contains": {"type": t}, "minContains": 3000} for t in ("string", "null", "boolean")]},
])
def test_large_counts_end_in_a_diagnostic_within_the_deadline(schema):
    """Compiles or is refused with a size/budget code; the budget's own deadline (too-large)
    is the only clock: no wall-time assertion."""
    try:
        schemac.compile(schema, use_cache=False)
    except schemac.CompileError as exc:
        assert set(exc.codes) <= {"too-large", "budget-exhausted"}, exc
