"""Shared checks for the lowering-pass tests: golden fixtures, the jsonschema oracle, the grammar.

A lowering is exact when the lowered schema accepts the same JSON values as the original
(jsonschema Draft 2020-12 decides both, so property order plays no part) and the compiled
grammar never accepts an invalid instance.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import strategies as st

import schemac
from testkit.grammar_harness import accepts
from schemac.budget import Budget
from schemac.diagnostics import DiagnosticSink
from schemac.lower import lower_bundle
from schemac.schema import Bundle

FIXTURES = Path(__file__).resolve().parents[1] / "testdata" / "lower"


def fixtures(name: str) -> list[Path]:
    return sorted((FIXTURES / name).glob("*.json"))


def valid(schema: Any, data: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(data)


def text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def relower(lowered: Any) -> Any:
    """Lower an already-lowered schema again (the fixpoint property)."""
    if isinstance(lowered, dict) and "$defs" in lowered:
        root = {k: v for k, v in lowered.items() if k != "$defs"}
        bundle = Bundle(root, dict(lowered["$defs"]))
    else:
        bundle = Bundle(lowered)
    return lower_bundle(bundle, Budget(), DiagnosticSink())


def check_fixture(path: Path) -> None:
    """Golden lowered form, fixpoint, and every instance: oracle label, lowered schema, grammar."""
    case = json.loads(path.read_text(encoding="utf-8"))
    art = schemac.compile(case["schema"], use_cache=False)
    assert art.lowered == case["lowered"], json.dumps(art.lowered)
    assert relower(art.lowered) == art.lowered
    for t in case["tests"]:
        data, want = t["data"], t["valid"]
        assert valid(case["schema"], data) is want, t
        assert valid(art.lowered, data) is want, t
        assert accepts(art.grammar, text(data)) is want, t


def check_exact(schema: Any, instances: list[Any]) -> None:
    """Lowered ≡ original on `instances`; the grammar accepts no invalid one."""
    art = schemac.compile(schema, use_cache=False)
    for data in instances:
        want = valid(schema, data)
        assert valid(art.lowered, data) is want, (data, art.lowered)
        if not want:
            assert not accepts(art.grammar, text(data)), (data, art.lowered)


def instances(names: list[str], values: list[Any]) -> st.SearchStrategy[Any]:
    """JSON values biased towards a schema: its property names, its constants, small numbers."""
    keys = st.sampled_from(names + ["a", "z"])
    leaves = st.one_of(
        st.none(), st.booleans(), st.integers(-2, 4), st.sampled_from([1.0, 2.5]),
        st.sampled_from(values + ["a", "b", ""]),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
        max_leaves=8,
    )
