"""Front-end stages: load, dialect, client options, formats, import cost."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import schemac
from schemac.artifact import FORMAT_VERSION
from schemac.diagnostics import CODES, CompileError, Severity


def codes(schema, **kw) -> list[str]:
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, use_cache=False, **kw)
    return info.value.codes


def test_malformed_json_has_line_and_column() -> None:
    with pytest.raises(CompileError) as info:
        schemac.compile('{\n  "type": "object",\n  "properties": {,}\n}')
    (d,) = info.value.diagnostics
    assert d.code == "invalid-json"
    assert (d.line, d.column) == (3, 18)


@pytest.mark.parametrize(
    "text, code",
    [
        ('{"type": "string", "type": "number"}', "duplicate-key"),
        ('{"properties": {"a": {"minimum": NaN}}}', "invalid-number"),
        ('{"maximum": Infinity}', "invalid-number"),
        ('{"maximum": 1e400}', "invalid-number"),
        ("[1, 2]", "invalid-schema"),
        ('"string"', "invalid-schema"),
        ("[" * 5000 + "]" * 5000, "too-large"),
    ],
)
def test_ambiguous_or_malformed_documents_are_rejected(text: str, code: str) -> None:
    assert codes(text) == [code]


def test_invalid_utf8_bytes_rejected() -> None:
    assert codes(b'{"const": "\xff"}') == ["invalid-json"]


def test_boolean_schemas_compile() -> None:
    assert schemac.compile(True, use_cache=False).lowered is True
    assert codes(False) == ["unsatisfiable"]
    assert codes({"allOf": [{"type": "string"}, {"type": "number"}]}) == ["unsatisfiable"]


@pytest.mark.parametrize(
    "uri",
    [
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-04/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "https://example.com/my-meta",
    ],
)
def test_foreign_dialects_rejected_by_default(uri: str) -> None:
    assert codes({"$schema": uri, "type": "string"}) == ["unsupported-dialect"]


def test_2020_12_and_absent_schema_accepted() -> None:
    for doc in ({"type": "string"}, {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}):
        assert schemac.compile(doc, use_cache=False).dialect == "2020-12"


def test_nested_dialect_switch_rejected() -> None:
    schema = {"properties": {"a": {"$id": "https://x/a", "$schema": "http://json-schema.org/draft-07/schema#"}}}
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, use_cache=False)
    assert info.value.codes == ["unsupported-dialect"]
    assert info.value.diagnostics[-1].pointer == "/properties/a/$schema"


@pytest.mark.parametrize("opts", [{"lenient": True}, {"coerce_one_of": True}, {"whitespace_flexible": True}])
def test_client_x_guidance_rejected(opts: dict) -> None:
    assert codes({"type": "object", "x-guidance": opts}) == ["client-options"]
    assert codes({"properties": {"a": {"x-guidance": opts}}}) == ["client-options"]


def test_unknown_format_is_a_warning_or_an_error_under_strict() -> None:
    schema = {"type": "string", "format": "color"}
    art = schemac.compile(schema, use_cache=False)
    assert [(d.severity, d.code, d.pointer) for d in art.diagnostics] == [
        (Severity.WARNING, "unknown-format", "/format")
    ]
    assert "format" not in art.lowered
    assert codes(schema, strict_formats=True) == ["unknown-format"]


def test_enforced_format_kept() -> None:
    art = schemac.compile({"type": "string", "format": "date"}, use_cache=False)
    assert art.schema == {"type": "string", "format": "date"}  # final validation checks it
    assert art.diagnostics == []


def test_every_documented_code_has_a_summary() -> None:
    for code, (summary, _example) in CODES.items():
        assert summary and code == code.lower()


def test_diagnostics_page_lists_every_code_as_documented() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    for code, (summary, example) in CODES.items():
        assert f"| `{code}` | {summary} | {f'`{example}`' if example else ''} |" in readme, code


#: examples that are not a schema to compile (file syntax, tool requests, warnings, prose)
_NOT_COMPILED = {"invalid-yaml", "tool-parameters-unsupported", "unknown-format", "too-large"}


@pytest.mark.parametrize("code", [c for c, (_, example) in CODES.items() if example and c not in _NOT_COMPILED])
def test_documented_example_gives_its_code(code: str) -> None:
    with pytest.raises(CompileError) as info:
        schemac.compile(CODES[code][1], use_cache=False)
    assert info.value.codes[0] == code


def test_importing_packages_stays_cheap() -> None:
    probe = (
        "import sys, schemac, schemac.runtime, schemac.cli, schemac.lower, schemac.budget;"
        "heavy = [m for m in ('llguidance', 're2', 'torch', 'triton', 'transformers') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_check_returns_diagnostics_without_raising() -> None:
    diags = schemac.check({"not": {"contains": {"type": "integer"}, "minContains": 2}})
    assert any(d.severity is Severity.ERROR for d in diags)
    assert schemac.check({"type": "integer"}) == []


def test_artifact_json_is_plain_and_records_versions() -> None:
    art = schemac.compile({"type": "integer", "minimum": 0}, use_cache=False)
    data = json.loads(art.dumps())
    assert data["format_version"] == FORMAT_VERSION
    assert data["llguidance_version"] == "1.9.1"
    assert data["schema"] == {"type": "integer", "minimum": 0}
    assert len(data["key"]) == 64 and len(data["checksum"]) == 64
    assert set(data["budget"]) == {"entries", "evaluations", "regex_chars", "steps"}


def test_legacy_dependencies_in_2020_12_are_enforced() -> None:
    schema = {"dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "properties": {"x": {"dependencies": {"p": ["q"]}}}}
    art = schemac.compile(schema, use_cache=False)
    assert art.schema["dependentRequired"] == {"a": ["b"]}
    assert art.schema["dependentSchemas"] == {"c": {"required": ["d"]}}
    assert art.schema["properties"]["x"] == {"dependentRequired": {"p": ["q"]}}
    from schemac.validate.final import FinalValidator

    v = FinalValidator(art.schema)
    assert not v.is_valid({"a": 1}) and v.is_valid({"a": 1, "b": 2}) and not v.is_valid({"c": 1})
    assert not v.is_valid({"x": {"p": 1}})


def test_ref_shaped_enum_values_are_data() -> None:
    """Test Suite ref.json: a "$ref" inside an enum value is a literal, not a reference."""
    schema = {"$defs": {"a_string": {"type": "string"}}, "enum": [{"$ref": "#/$defs/a_string"}]}
    art = schemac.compile(schema, use_cache=False)
    assert art.lowered == {"enum": [{"$ref": "#/$defs/a_string"}]}
    named = {"properties": {"const": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "integer"}}}
    assert schemac.compile(named, use_cache=False).lowered["$defs"] == {"x": {"type": "integer"}}
