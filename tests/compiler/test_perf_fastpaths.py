"""Fast paths give the exact answers of the walks they skip: pass triggers, census, cost bounds."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schemac
from schemac.budget import Budget, Limits, check_cost
from schemac.front.client_options import reject_client_options
from schemac.diagnostics import CompileError, DiagnosticSink
from schemac.front.dialect.gate import apply_dialect
from schemac.front.load import check_value, load_with_census
from schemac.lower import PASSES, TRIGGERS, lower_bundle
from schemac.lower.support.context import Definitions, LowerContext
from schemac.schema import Bundle, iter_subschemas

FIXTURES = Path(__file__).resolve().parents[2] / "testdata" / "lower"


def _nodes(schema: Any) -> list[dict[str, Any]]:
    out, stack = [], [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.append(node)
            stack.extend(sub for _, sub in iter_subschemas(node))
    return out


def _corpus() -> list[dict[str, Any]]:
    """Every schema node of the lowering fixtures, as written and as lowered."""
    nodes: list[dict[str, Any]] = []
    for path in sorted(FIXTURES.glob("*/*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        nodes.extend(_nodes(case["schema"]))
        if isinstance(case.get("lowered"), dict):
            nodes.extend(_nodes(case["lowered"]))
    nodes += [{"type": "string", "format": "email"}, {"minItems": 2.0}, {"uniqueItems": False}]
    return nodes


def test_corpus_is_not_empty() -> None:
    assert len(_corpus()) > 50


@pytest.mark.parametrize("lower", list(TRIGGERS), ids=lambda p: p.__module__.rsplit(".", 1)[-1])
def test_pass_without_its_triggers_returns_its_node(lower: Any) -> None:
    """The walker skips a pass on a node holding none of its TRIGGERS: it must be a no-op there."""
    assert lower in PASSES
    ctx = LowerContext(Budget(), Definitions(Bundle(True)), DiagnosticSink())
    checked = 0
    for node in _corpus():
        stripped = {k: v for k, v in node.items() if k not in TRIGGERS[lower] and k != "$ref"}
        assert lower(stripped, ctx) is stripped
        checked += 1
    assert checked > 50


def test_trace_hook_sees_each_pass_that_runs() -> None:
    seen: list[tuple[str, str]] = []
    schema = {"type": "object", "properties": {"n": {"type": "integer", "not": {"const": 3}, "title": "n"}}}
    lowered = lower_bundle(Bundle(schema), Budget(), DiagnosticSink(),
                           lambda ptr, name, before, after: seen.append((ptr, name)))
    assert lowered == lower_bundle(Bundle(schema), Budget(), DiagnosticSink())
    assert ("/properties/n", "negation") in seen and ("/properties/n", "prune") in seen
    assert ("/properties/n", "one_of") not in seen  # skipped: no `oneOf`


@pytest.mark.parametrize("value", [
    {"a": [1, 2.5, None, True, "x", {"b": "é"}]},
    {"$schema": "https://json-schema.org/draft/2020-12/schema", "x-guidance": {"lenient": True}},
    True,
])
def test_census_keys(value: Any) -> None:
    loaded, census = load_with_census(value)
    assert loaded is value and census is not None
    found: set[str] = set()
    stack = [value]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            found |= set(cur)
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
    assert census.keys == found


@pytest.mark.parametrize("value, code", [
    ({"const": "a\ud800"}, "invalid-json"),
    ({"\udc00": 1}, "invalid-json"),
    ({"const": float("nan")}, "invalid-number"),
    ({"const": 2 ** 1100}, "invalid-number"),
    ({1: "x"}, "invalid-schema"),
    ({"const": (1, 2)}, "invalid-schema"),
])
def test_census_falls_back_to_the_exact_checks(value: Any, code: str) -> None:
    with pytest.raises(CompileError) as err:
        check_value(value)
    assert err.value.codes == [code]


def test_census_subclasses_still_load() -> None:
    from collections import OrderedDict

    value = OrderedDict(type="string")
    assert load_with_census(value) == (value, None)


@pytest.mark.parametrize("limits, schema", [
    (Limits(max_subschemas=3), {"anyOf": [{}, {}, {"not": {}}]}),
    (Limits(max_property_pairs=4), {"properties": {"a": {}, "b": {}}, "items": {"properties": {"c": {}}}}),
    (Limits(max_enum_values=2), {"allOf": [{"enum": [1]}, {"enum": [2, 3]}]}),
])
def test_cost_fast_path_keeps_the_error(limits: Limits, schema: dict[str, Any]) -> None:
    with pytest.raises(CompileError) as err:
        check_cost(schema, limits)
    assert err.value.codes == ["too-large"] and err.value.diagnostics[0].pointer
    with pytest.raises(CompileError) as loaded:
        check_value(schema, limits)
    assert loaded.value.diagnostics == err.value.diagnostics
    data = {"enum": [1, 2, 3, 4], "properties": {"a": {}, "b": {}, "c": {}}, "anyOf": [{}, {}, {}, {}]}
    check_value({"const": data, "x": data}, limits)  # not schema positions: the exact walk decides


def test_census_settles_dialect_and_client_options() -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}
    _, census = load_with_census(schema)
    assert census is not None and census.schema_objects == 1
    assert apply_dialect(schema, True, census) == apply_dialect(schema, True)
    nested = {"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}}
    with pytest.raises(CompileError):
        apply_dialect(nested, False, load_with_census(nested)[1])
    reject_client_options({"type": "string"}, frozenset({"type"}))
    with pytest.raises(CompileError):
        schemac.compile({"items": {"x-guidance": {}}}, use_cache=False)



_KEYS = st.sampled_from(["", "a", "not", "items", "anyOf", "properties", "enum"])
_SCHEMAS = st.recursive(
    st.booleans() | st.just({}),
    lambda inner: st.one_of(
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda s: {"anyOf": s}, st.lists(inner, max_size=4)),
        st.builds(lambda s: {"properties": s}, st.dictionaries(_KEYS, inner, max_size=5)),
        st.builds(lambda v: {"enum": v}, st.lists(st.integers(0, 9), max_size=6)),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_SCHEMAS, st.integers(1, 40), st.integers(1, 40), st.integers(1, 60))
def test_size_bound_implies_cost_check(schema: Any, subschemas: int, enum: int, pairs: int) -> None:
    """`within_cost_by_size` may skip `check_cost` only where the walk would pass too."""
    from schemac.budget import within_cost_by_size

    limits = Limits(max_subschemas=subschemas, max_enum_values=enum, max_property_pairs=pairs)
    if within_cost_by_size(len(json.dumps(schema, ensure_ascii=False)), limits):
        check_cost(schema, limits)


def test_settled_nodes_are_fixpoints_of_every_pass() -> None:
    """The walker returns a node holding only `_SETTLED` keywords without running the passes."""
    from schemac.lower import _SETTLED

    ctx = LowerContext(Budget(), Definitions(Bundle(True)), DiagnosticSink())
    checked = 0
    for node in _corpus():
        settled = {k: v for k, v in node.items() if k in _SETTLED and k != "$ref"}
        if not settled or settled.get("required") == []:
            continue
        for lower in PASSES:
            assert lower(settled, ctx) is settled, lower.__module__
        checked += 1
    assert checked > 30
