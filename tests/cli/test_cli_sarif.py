"""`--format sarif`: valid SARIF 2.1.0 (bundled reduced schema) with pointers mapped to lines."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from testkit.cli_support import COLOR, OK, REMOTE, run, write

SARIF_SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "testdata" / "sarif" / "sarif-2.1.0-reduced.schema.json").read_text()
)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))


def validate(log: object) -> None:
    validator = jsonschema.Draft7Validator(SARIF_SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []


def test_the_bundled_schema_is_a_valid_draft7_schema_that_can_fail() -> None:
    jsonschema.Draft7Validator.check_schema(SARIF_SCHEMA)
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"message": {"text": "m"}, "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "a.json"}, "region": {"startLine": 0}}}]}]}]}
    assert list(jsonschema.Draft7Validator(SARIF_SCHEMA).iter_errors(bad))


def test_sarif_log_is_valid_and_located(tmp_path: Path) -> None:
    write(tmp_path / "schemas" / "ok.json", OK)
    write(tmp_path / "schemas" / "warn me.json", COLOR)
    write(tmp_path / "schemas" / "bad.json", REMOTE)
    result = run("check", "--format", "sarif", "schemas")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    validate(log)
    (sarif_run,) = log["runs"]
    assert sarif_run["tool"]["driver"]["name"] == "schemac"
    rules = [r["id"] for r in sarif_run["tool"]["driver"]["rules"]]
    assert rules == ["remote-ref", "unknown-format"]
    bad, warn = sarif_run["results"]
    assert (bad["ruleId"], bad["level"], bad["ruleIndex"]) == ("remote-ref", "error", 0)
    assert "Hint: bundle the referenced schema under $defs" in bad["message"]["text"]
    loc = bad["locations"][0]["physicalLocation"]
    assert loc == {"artifactLocation": {"uri": "schemas/bad.json"}, "region": {"startLine": 5, "startColumn": 7}}
    assert bad["properties"]["pointer"] == "/properties/a/$ref"
    assert warn["level"] == "warning"
    assert warn["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "schemas/warn%20me.json"


def test_sarif_for_a_clean_run_and_for_stdin(tmp_path: Path) -> None:
    write(tmp_path / "ok.json", OK)
    clean = json.loads(run("check", "--format", "sarif", "ok.json").stdout)
    validate(clean)
    assert clean["runs"][0]["results"] == []
    piped = run("check", "--format", "sarif", "-", input='{"type": "object", "x-guidance": {}}')
    log = json.loads(piped.stdout)
    validate(log)
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "startColumn": 20}
