"""`schemac explain`: per-pass before/after, budget, grammar size; the trace matches the pipeline."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit.cli_support import REMOTE, run, write

import schemac
from schemac.cli.explain import trace
from schemac.diagnostics import CompileError

NEGATED = {"type": "object", "properties": {"n": {"type": "integer", "not": {"const": 3}}}}


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))


def test_explain_shows_each_changing_pass_budget_and_grammar(tmp_path: Path) -> None:
    write(tmp_path / "s.json", NEGATED)
    result = run("explain", "s.json")
    assert result.exit_code == 0
    out = result.stdout
    assert "/properties/n (s.json:4:5) negation" in out
    assert 'before: {"type": "integer", "not": {"const": 3}}' in out
    assert "after:  " in out and '"not"' not in out.split("after:  ")[1].splitlines()[0]
    assert "budget entries:" in out and "of 256" in out
    grammar = schemac.compile(NEGATED).grammar
    assert f"grammar: {len(grammar.encode())} bytes" in out


def test_pointer_filter_and_unknown_pointer(tmp_path: Path) -> None:
    write(tmp_path / "s.json", NEGATED)
    assert "negation" in run("explain", "s.json", "--pointer", "/properties/n").stdout
    assert "no lowering pass changed the node at /properties" in run("explain", "s.json", "-p", "/properties").stdout
    result = run("explain", "s.json", "--pointer", "/nope")
    assert result.exit_code == 2 and "no such node" in result.stderr


def test_emit_lowered_and_grammar(tmp_path: Path) -> None:
    write(tmp_path / "s.json", NEGATED)
    artifact = schemac.compile(NEGATED)
    assert json.loads(run("explain", "s.json", "--emit", "lowered").stdout) == artifact.lowered
    assert json.loads(run("explain", "s.json", "--emit", "grammar").stdout) == json.loads(artifact.grammar)


def test_key_order_reaches_the_grammar(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}
    write(tmp_path / "s.json", schema)
    free, fixed = schemac.compile(schema, key_order="any").grammar, schemac.compile(schema).grammar
    assert free != fixed
    assert json.loads(run("explain", "s.json", "--key-order", "any", "--emit", "grammar").stdout) == json.loads(free)
    assert json.loads(run("explain", "s.json", "--emit", "grammar").stdout) == json.loads(fixed)


def test_rejected_schema_explains_and_exits_1(tmp_path: Path) -> None:
    write(tmp_path / "bad.json", REMOTE)
    result = run("explain", "bad.json")
    assert result.exit_code == 1
    assert "bad.json:5:7: error[remote-ref]" in result.stdout
    emitted = run("explain", "bad.json", "--emit", "grammar")
    assert emitted.exit_code == 1 and emitted.stdout == "" and "remote-ref" in emitted.stderr


@pytest.mark.parametrize(
    "schema",
    [
        NEGATED,
        {"$defs": {"pos": {"type": "integer", "not": {"maximum": 0}}},
         "type": "array", "items": {"$ref": "#/$defs/pos"}},
        {"type": "object", "properties": {"a": {"type": "string"}}, "dependentRequired": {"a": ["b"]}},
        {"anyOf": [{"type": "string", "not": {"enum": ["x", "y"]}}, {"type": "null"}]},
        {"type": "object", "properties": {"t": {"enum": [1, 2]}}, "if": {"properties": {"t": {"const": 1}}},
         "then": {"required": ["t"]}},
    ],
)
def test_traced_lowering_equals_the_pipeline(schema: dict) -> None:
    """The explain walker must lower exactly like schemac.lower (same passes, same order)."""
    steps, root, error = trace(schema, False, False)
    try:
        artifact = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert error is not None and [d.code for d in exc.diagnostics][-1] in error.codes
        return
    assert error is None and isinstance(root, dict) and isinstance(artifact.lowered, dict)
    assert {k: v for k, v in root.items() if k != "$defs"} == {
        k: v for k, v in artifact.lowered.items() if k != "$defs"
    }
    assert steps and all(s.before != s.after for s in steps)
