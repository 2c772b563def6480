"""Custom 2020-12 dialects (`$vocabulary`): a keyword of a vocabulary the dialect leaves out
constrains nothing. Checked on the grammar against jsonschema reading the same schema with those
keywords renamed to unknown ones (which it ignores), over every schema and instance below."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import schemac
from schemac.diagnostics import CompileError
from schemac.front.dialect.vocabulary import KEYWORDS
from testkit.grammar_harness import accepts

VOCAB = "https://json-schema.org/draft/2020-12/vocab/"
META = "https://example.com/meta/"
SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": 3}, "b": {"items": {"maxLength": 1}}},
     "required": ["a"], "not": {"required": ["z"]}},
    {"prefixItems": [{"const": 1}], "items": {"type": "string"}, "minItems": 1, "contains": {"enum": ["x"]}},
    {"anyOf": [{"type": "string", "pattern": "^a"}, {"type": "null"}], "format": "ipv4"},
    {"properties": {"a": True}, "unevaluatedProperties": False, "maxProperties": 1},
]
INSTANCES: list[Any] = [
    None, 0, 5, "a", "ab", "b", "1.2.3.4", "", [], [1], [1, "x"], [2, "x"], [1, 2], ["x"], {}, {"a": 3},
    {"a": 2}, {"a": 3, "b": ["x"]}, {"a": 3, "b": ["xy"]}, {"a": 3, "z": 1}, {"b": 1}, {"a": 1, "c": 1}, {"c": 1},
]
LEFT_OUT = ["validation", "applicator", "unevaluated", "format-annotation", "meta-data"]


def _renamed(node: Any, drop: frozenset[str]) -> Any:
    """The schema with the left-out keywords renamed (so jsonschema ignores them); positions
    under a renamed keyword stay as they are: they are no schemas any more."""
    if isinstance(node, list):
        return [_renamed(v, drop) for v in node]
    if not isinstance(node, dict):
        return node
    return {("x-" + k if k in drop else k): (v if k in drop else _renamed(v, drop)) for k, v in node.items()}


def _metaschema(folder: Path, name: str, vocabularies: dict[str, bool]) -> str:
    (folder / name).write_text(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema",
                                           "$id": META + name, "$vocabulary": vocabularies}))
    return META + name


@pytest.mark.parametrize("left_out", LEFT_OUT)
def test_left_out_vocabularies_constrain_nothing(tmp_path: Path, left_out: str) -> None:
    kept = {VOCAB + v: True for v in KEYWORDS if v not in (left_out, "format-assertion")}
    uri = _metaschema(tmp_path, f"no-{left_out}.json", kept)
    drop = KEYWORDS[left_out] - set().union(*(KEYWORDS[v] for v in KEYWORDS if v not in (left_out, "format-assertion")))
    for schema in SCHEMAS:
        oracle = Draft202012Validator(_renamed(schema, drop), format_checker=Draft202012Validator.FORMAT_CHECKER)
        try:
            grammar = schemac.compile({"$schema": uri, **schema}, use_cache=False, ref_map={META: tmp_path}).grammar
        except CompileError as exc:  # `not` of an emptied schema: nothing is valid
            assert exc.codes == ["unsatisfiable"] and not any(map(oracle.is_valid, INSTANCES)), (left_out, schema)
            continue
        for instance in INSTANCES:
            assert accepts(grammar, json.dumps(instance)) is oracle.is_valid(instance), (left_out, schema, instance)


def test_required_and_optional_unknown_vocabularies(tmp_path: Path) -> None:
    core = {VOCAB + "core": True, VOCAB + "validation": True}
    optional = _metaschema(tmp_path, "optional.json", {**core, "https://example.com/vocab/x": False})
    required = _metaschema(tmp_path, "required.json", {**core, "https://example.com/vocab/x": True})
    no_core = _metaschema(tmp_path, "no-core.json", {VOCAB + "validation": True})
    artifact = schemac.compile({"$schema": optional, "type": "integer"}, use_cache=False, ref_map={META: tmp_path})
    assert accepts(artifact.grammar, "1") and not accepts(artifact.grammar, '"a"')
    for uri, why in ((required, "requires the vocabulary"), (no_core, "leaves out the core")):
        with pytest.raises(CompileError) as info:
            schemac.compile({"$schema": uri, "type": "integer"}, use_cache=False, ref_map={META: tmp_path})
        assert info.value.codes == ["unsupported-dialect"] and why in str(info.value)


def test_format_assertion_makes_every_format_assert(tmp_path: Path) -> None:
    uri = _metaschema(tmp_path, "fa.json", {VOCAB + "core": True, VOCAB + "format-assertion": False})
    artifact = schemac.compile({"$schema": uri, "format": "ipv4"}, use_cache=False, ref_map={META: tmp_path})
    assert accepts(artifact.grammar, '"1.2.3.4"') and not accepts(artifact.grammar, '"x"')
    with pytest.raises(CompileError) as info:  # an unenforceable format may not pass as an annotation here
        schemac.compile({"$schema": uri, "format": "color"}, use_cache=False, ref_map={META: tmp_path})
    assert info.value.codes == ["unknown-format"]
    plain = schemac.compile({"format": "color"}, use_cache=False)  # the default dialect: an annotation
    assert [d.code for d in plain.diagnostics] == ["unknown-format"]
