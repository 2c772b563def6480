"""The CLI as a real process: `python -m schemac.cli`, cheap import, NO_COLOR, pre-commit hook file."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testkit.cli_support import COLOR, OK, REMOTE, write

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "SCHEMAC_CACHE_DIR": str(cwd / "cache"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "schemac.cli", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, input=input, timeout=120)


def test_module_entry_point_exit_codes_and_json(tmp_path: Path) -> None:
    write(tmp_path / "ok.json", OK)
    write(tmp_path / "bad.json", REMOTE)
    assert cli("check", "ok.json", cwd=tmp_path).returncode == 0
    bad = cli("check", "--format", "json", "-j", "2", "ok.json", "bad.json", cwd=tmp_path)
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["summary"] == {"schemas": 2, "ok": 1, "rejected": 1, "ignored": 0}
    usage = cli("check", "--jobs", "0", "ok.json", cwd=tmp_path)
    assert usage.returncode == 2 and "Usage:" in usage.stderr
    piped = cli("check", "-", cwd=tmp_path, input=json.dumps(REMOTE, indent=2))
    assert piped.returncode == 1 and "<stdin>:5:7: error[remote-ref]" in piped.stdout


def test_no_colour_without_a_terminal_or_under_no_color(tmp_path: Path) -> None:
    write(tmp_path / "warn.json", COLOR)
    for env in ({}, {"NO_COLOR": "1"}, {"NO_COLOR": "1", "FORCE_COLOR": ""}):
        out = cli("check", "warn.json", cwd=tmp_path, env=env)
        assert out.returncode == 0 and "\x1b[" not in out.stdout + out.stderr
        assert "warn.json:6:7: warning[unknown-format]" in out.stdout


def test_importing_the_cli_loads_no_compiler_backend() -> None:
    code = (
        "import sys, schemac.cli.main\n"
        "heavy = {'llguidance', 're2', 'torch', 'triton', 'transformers', 'jsonschema', 'rich', 'yaml'}\n"
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_pre_commit_hook_definitions_select_schema_files_by_name() -> None:
    import re

    import yaml

    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"schemac-check", "schemac-check-config"}
    for hook in hooks.values():
        assert hook["entry"] == "schemac check" and hook["language"] == "python"
        assert any(d.startswith("pyyaml") for d in hook["additional_dependencies"])  # YAML schemas work
    files = re.compile(hooks["schemac-check"]["files"])
    for name in ("schemas/a.json", "api/schemas/v1/user.yaml", "schema/x.yml", "json-schema/b.json",
                 "config.schema.json", "deep/in/order.schema.yaml"):
        assert files.search(name), name
    for name in ("package.json", "tsconfig.json", ".github/workflows/ci.yml", ".pre-commit-config.yaml",
                 "myschemas.json", "schemas.json", "docs/schemas.md"):
        assert not files.search(name), name
    config = hooks["schemac-check-config"]
    assert config["pass_filenames"] is False and "files" not in config


def test_every_package_folder_is_installed() -> None:
    """pyproject's explicit package list names every folder with an `__init__.py` (an unlisted
    one is missing from the wheel: pre-commit's install of the hook then fails at import)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    dirs = {"schemac": "schemac", **{name: folder for name, folder in config["package-dir"].items()}}
    found = set()
    for top, folder in dirs.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((top, *rel)))
    assert found == set(config["packages"])
