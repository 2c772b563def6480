"""dependentRequired / dependentSchemas lowering: golden fixtures, exactness, budget."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings, strategies as st

import schemac
from schemac.budget import Limits
from testkit.grammar_harness import accepts
from testkit.lower_passes_oracle import check_exact, check_fixture, fixtures, instances, relower, valid


@pytest.mark.parametrize("path", fixtures("dependencies"), ids=lambda p: p.stem)
def test_fixture(path):
    check_fixture(path)


SCHEMAS = [
    {"dependentRequired": {"a": ["b", "c"], "b": ["a"]}},
    {"properties": {"a": {"type": "string"}}, "required": ["b"], "dependentRequired": {"b": ["a"]},
     "dependentSchemas": {"a": {"properties": {"c": {"const": 1}}}}},
    {"type": "object", "dependentSchemas": {"a": {"required": ["b"]}, "b": True, "c": False}},
    {"dependentRequired": {"a": ["c"], "b": ["c"], "c": ["a"]}},
    {"dependentRequired": {"a": ["b", "a"], "b": ["a"], "c": ["a", "b"]}, "dependentSchemas": {"b": {"maxProperties": 2}}},
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


KEYS = ["a", "b", "c", "d", "e"]
DEPENDENT_SCHEMAS = [False, True, {"required": ["e"]}, {"type": "object", "maxProperties": 2}, {"type": "integer"}]
#: every set of KEYS as an object: dependencies only see which keys are present
KEY_SETS = [dict.fromkeys(keys, 1) for n in range(len(KEYS) + 1) for keys in itertools.combinations(KEYS, n)]


@settings(max_examples=60, deadline=None)
@given(
    dep=st.dictionaries(st.sampled_from(KEYS), st.lists(st.sampled_from(KEYS), max_size=3, unique=True), max_size=5),
    required=st.lists(st.sampled_from(KEYS), max_size=2, unique=True),
    absent=st.sampled_from([None, *KEYS]),
    schemas=st.dictionaries(st.sampled_from(KEYS), st.sampled_from(DEPENDENT_SCHEMAS), max_size=3),
    type_=st.sampled_from([None, "object", ["object", "integer"]]),
)
def test_shared_sets_exact_on_every_key_set(dep, required, absent, schemas, type_):
    """Grouped triggers (shared, nested, mutual, known present/absent, with dependentSchemas)
    accept exactly the original's key sets and non-objects; the grammar accepts no invalid one."""
    schema: dict = {"dependentRequired": dep, "dependentSchemas": schemas}
    for kw, value in (("required", required), ("properties", absent and {absent: False}), ("type", type_)):
        if value:
            schema[kw] = value
    values = KEY_SETS + ["a", 1, 2.5, None, []]
    try:
        lowered = schemac.compile(schema, use_cache=False).lowered
    except schemac.CompileError as err:  # only a schema no value satisfies may be refused
        assert err.codes == ["unsatisfiable"] and not any(valid(schema, v) for v in values)
        return
    check_exact(schema, values)
    if lowered != {}:  # `{}` relowers to its equal, `true`
        assert relower(lowered) == lowered


def test_shared_set_is_one_anyof():
    """n triggers needing the same set cost one two-branch anyOf, not n."""
    schema = {"dependentRequired": {f"k{i}": ["d"] for i in range(6)}}
    lowered = schemac.compile(schema, limits=Limits(entries=2), use_cache=False).lowered
    assert lowered == {"allOf": [{"anyOf": [{"properties": {f"k{i}": False for i in range(6)}}, {"required": ["d"]}]}]}


#: the shape of maskbench Github_hard---o37789 (Tabris API `api`): five draft-7 `dependencies` on
#: ["type"] beside two anyOfs and a `not`; one anyOf per trigger made 3·3·2⁵·3 = 864 object
#: alternatives and llguidance's parser rows overflowed (3000 items, max 2000) on valid answers
TABRIS = {
    "type": "object",
    "properties": {k: {"type": "string"} for k in [
        "category", "title", "description", "namespace", "module", "markdown_only", "type", "jsxChildren",
        "interface", "object", "extends", "generics", "constructor", "properties", "methods", "events",
        "statics", "links"]},
    "required": ["category"],
    "additionalProperties": False,
    "dependencies": {k: ["type"] for k in ["extends", "object", "generics", "constructor", "events"]},
    "allOf": [{"anyOf": [{"required": ["type"]}, {"required": ["object"]}, {"required": ["namespace"]}]},
              {"anyOf": [{"required": ["title"]}, {"required": ["object"]}, {"required": ["type"]}]}],
    "not": {"properties": {"interface": {"const": "yes"}}, "required": ["interface"],
            "anyOf": [{"required": ["constructor"]}, {"required": ["statics"]}]},
}


@pytest.mark.parametrize("answer", [
    '{"category": "popup","title":" reservation>", "type": "x"}',
    '{"category":"core","title":"t","type":"X","object":"o","extends":"E"}',
    '{"category":"c","title":"t","namespace":"n"}',
])
def test_shared_dependencies_keep_parser_rows_small(answer):
    art = schemac.compile(TABRIS, use_cache=False)
    assert accepts(art.grammar, answer)
