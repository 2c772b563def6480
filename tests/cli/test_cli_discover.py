"""No file slips through: named files are always checked, folder walks take schemas by the hook's
rule and say what they left out, and YAML without PyYAML is an error, never a skip."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from testkit.cli_support import OK, REMOTE, readme_toml, report, run, write

from schemac.cli.discover import SCHEMA_PATH

ROOT = Path(__file__).resolve().parents[2]
BAD_YAML = "type: object\nproperties:\n  a: {$ref: 'https://example.com/x'}\n"
D2020 = "https://json-schema.org/draft/2020-12/schema"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / ".cache"))  # hidden: never walked


def test_a_bad_yaml_schema_named_as_pre_commit_names_it_fails_under_the_readme_configuration(tmp_path: Path) -> None:
    """The README's own [tool.schemac] (include globs for *.json only) never hides a named file."""
    (tmp_path / "pyproject.toml").write_text(readme_toml())
    write(tmp_path / "schemas" / "bad.yaml", BAD_YAML)
    write(tmp_path / "schemas" / "fixtures" / "skip.json", REMOTE)
    result = run("check", "schemas/bad.yaml", "schemas/fixtures/skip.json")
    assert result.exit_code == 1
    assert result.stdout.startswith("schemas/bad.yaml:3:7: error[remote-ref] ")
    assert "note: schemas/fixtures/skip.json: not checked, though named: excluded" in result.stderr


def test_the_walk_rule_is_the_hooks_rule() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["schemac-check"]["files"] == SCHEMA_PATH.pattern


def _repository(tmp_path: Path) -> None:
    write(tmp_path / "package.json", {"name": "app", "version": "1.0.0", "$schema": "https://json.schemastore.org/package"})
    write(tmp_path / "tsconfig.json", '{\n  // comments\n  "compilerOptions": {}\n}\n')
    write(tmp_path / ".pre-commit-config.yaml", "repos: []\n")
    write(tmp_path / "docker-compose.yml", "services: {}\n")
    write(tmp_path / "config" / "nested.json", {"settings": {"$schema": D2020}})
    write(tmp_path / "schemas" / "a.json", OK)
    write(tmp_path / "api" / "user.schema.json", OK)
    write(tmp_path / "api" / "order.yaml", f"$schema: {D2020}\ntype: object\n")
    write(tmp_path / "src" / "declared.json", {"$schema": D2020, "type": "string"})
    (tmp_path / "src" / "broken.json").write_text('{"$schema": ')


def test_a_folder_walk_takes_schemas_by_name_or_dialect_and_lists_what_it_left_out(tmp_path: Path) -> None:
    _repository(tmp_path)
    code, data = report("check", ".")
    assert code == 0
    assert [s["path"] for s in data["schemas"]] == [
        "api/order.yaml", "api/user.schema.json", "schemas/a.json", "src/declared.json"]
    text = run("check", ".")
    assert text.stdout.splitlines()[-1] == "All 4 schemas compile. 6 files left out (--show-files lists them and why)."
    shown = run("check", "--show-files", ".")
    assert shown.exit_code == 0
    rows = [line.split(None, 2)[:2] for line in shown.stdout.splitlines()]
    assert rows == [["check", "api/order.yaml"], ["check", "api/user.schema.json"], ["check", "schemas/a.json"],
                    ["check", "src/declared.json"], ["skip", ".pre-commit-config.yaml"], ["skip", "docker-compose.yml"],
                    ["skip", "package.json"], ["skip", "tsconfig.json"], ["skip", "config/nested.json"],
                    ["skip", "src/broken.json"]]
    assert "not a schema by name" in shown.stdout


def test_named_non_schema_files_are_checked_all_the_same(tmp_path: Path) -> None:
    _repository(tmp_path)
    result = run("check", "src/broken.json", "tsconfig.json")
    assert result.exit_code == 1
    assert [line.split(" ")[1] for line in result.stdout.splitlines()[:2]] == ["error[invalid-json]"] * 2


def test_yaml_without_pyyaml_is_an_error_not_a_skip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # hides PyYAML from importlib.util.find_spec too
    write(tmp_path / "schemas" / "a.yaml", "type: string\n")
    write(tmp_path / "schemas" / "b.json", OK)
    write(tmp_path / "docker-compose.yml", "services: {}\n")  # not a schema: no PyYAML needed to leave it out
    for args in (("schemas",), ("schemas/a.yaml",), (".",)):
        result = run("check", *args)
        assert result.exit_code == 2, args
        assert "schemas/a.yaml: YAML schemas need PyYAML (pip install 'schemac[yaml]')" in result.stderr
    assert run("check", "schemas/b.json", "docker-compose.yml").exit_code == 2  # named: a schema, so an error
    assert run("check", "--format", "json", "schemas/b.json").exit_code == 0
    (tmp_path / "schemas" / "a.yaml").unlink()
    code, data = report("check", ".")
    assert code == 0 and [s["path"] for s in data["schemas"]] == ["schemas/b.json"]


def test_a_large_json_file_is_sniffed_not_parsed(tmp_path: Path) -> None:
    from schemac.cli.discover import declares_schema

    big = tmp_path / "big.json"
    big.write_text(json.dumps({"$schema": D2020, "enum": list(range(300))}))
    assert declares_schema(big, max_bytes=10)  # over the limit: the first 64 KiB are searched
    big.write_text(json.dumps({"$schema": "https://json.schemastore.org/package", "enum": list(range(300))}))
    assert not declares_schema(big, max_bytes=10) and not declares_schema(big, max_bytes=1 << 20)
