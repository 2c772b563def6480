"""The CLI as a real process: `python -m schemac.cli`, cheap import, NO_COLOR, pre-commit hook file."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cli_support import COLOR, OK, REMOTE, write

ROOT = Path(__file__).parent.parent


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


def test_pre_commit_hook_definition() -> None:
    import yaml

    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "schemac-check"
    assert hook["entry"] == "schemac check"
    assert hook["language"] == "python"
    assert hook["types_or"] == ["json", "yaml"]
