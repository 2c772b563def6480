"""`--ref-root`, `--ref-map` and their configuration keys: multi-file schemas in `schemac check`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit.cli_support import report, run, write

from schemac.config import ConfigError, load_config

MAIN = {"type": "object", "properties": {"id": {"$ref": "common.json#/$defs/id"}}}
COMMON = {"$defs": {"id": {"type": "integer"}}}
VENDORED = {"type": "object", "properties": {"a": {"$ref": "https://example.com/schemas/a.json"}}}


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))


def _codes(outcome: dict) -> list[str]:
    return [d["code"] for d in outcome["diagnostics"]]


def test_relative_refs_resolve_inside_the_working_folder(tmp_path: Path) -> None:
    write(tmp_path / "schemas" / "main.json", MAIN)
    write(tmp_path / "schemas" / "common.json", COMMON)
    code, out = report("check", "schemas/main.json")
    assert code == 0, out
    (tmp_path / "elsewhere").mkdir()
    code, out = report("check", "schemas/main.json", "--ref-root", "elsewhere")
    assert code == 1 and _codes(out["schemas"][0]) == ["remote-ref"]
    assert "outside the reference root" in out["schemas"][0]["diagnostics"][0]["message"]
    assert out["schemas"][0]["diagnostics"][0]["line"] == 5  # at the referring $ref in main.json


def test_ref_map_serves_local_copies(tmp_path: Path) -> None:
    write(tmp_path / "main.json", VENDORED)
    write(tmp_path / "vendor" / "a.json", {"type": "string"})
    code, out = report("check", "main.json")
    assert code == 1 and "network reference (https)" in out["schemas"][0]["diagnostics"][0]["message"]
    code, out = report("check", "main.json", "--ref-map", "https://example.com/schemas/=vendor")
    assert code == 0, out
    result = run("check", "main.json", "--ref-map", "no-equals-sign")
    assert result.exit_code == 2 and "expected URI=DIR" in result.output


def test_configuration_keys(tmp_path: Path) -> None:
    (tmp_path / "schemac.toml").write_text('ref-root = "schemas"\n'
                                           'ref-map = {"https://example.com/schemas/" = "schemas/vendor"}\n')
    write(tmp_path / "schemas" / "main.json", VENDORED)
    write(tmp_path / "schemas" / "vendor" / "a.json", {"$ref": "%2e%2e/%2e%2e/outside.json"})
    write(tmp_path / "outside.json", {"type": "string"})
    config = load_config()
    assert config.ref_root == tmp_path / "schemas"
    assert config.ref_map == (("https://example.com/schemas/", tmp_path / "schemas" / "vendor"),)
    code, out = report("check", "schemas/main.json")  # the mapped copy may not leave its folder
    assert code == 1 and "outside the folder mapped to https://example.com/schemas/" in json.dumps(out)
    write(tmp_path / "schemas" / "vendor" / "a.json", {"$ref": "../../outside.json"})  # a URI: not a path
    code, out = report("check", "schemas/main.json")
    assert code == 1 and "network reference (https)" in json.dumps(out)
    write(tmp_path / "schemas" / "vendor" / "a.json", {"type": "string"})
    assert report("check", "schemas/main.json")[0] == 0
    (tmp_path / "schemac.toml").write_text('ref-map = ["x"]\n')
    with pytest.raises(ConfigError, match="ref-map"):
        load_config()
