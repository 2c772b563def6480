"""End to end: the README's pre-commit snippet, run by pre-commit itself in a throwaway repository.

The repository is an ordinary one: a package.json, a tsconfig.json with comments, a GitHub
workflow (whose `on:` key YAML reads as `true`), its own .pre-commit-config.yaml, and real
schemas in JSON and YAML. pre-commit clones schemac (a snapshot of this work tree, committed in
a scratch repository) and installs it with pip into the hook's own environment, as users get it.
Needs git, the `pre-commit` package and a package index for schemac's dependencies.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from testkit.cli_support import readme_toml

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
REMOTE = {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _snapshot(dest: Path) -> str:
    """This work tree as it is now (tracked and untracked, not ignored), committed at `dest`."""
    listed = _git(ROOT, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "snapshot")
    return _git(dest, "rev-parse", "HEAD").strip()


def readme_hook_config(local: bool = False) -> dict[str, Any]:
    """The README's `.pre-commit-config.yaml` block: the remote form, or the vendored copy's `local` one."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    configs = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", text, re.S)
               if b.startswith("# .pre-commit-config.yaml")]
    (config,) = [c for c in configs if (c["repos"][0]["repo"] == "local") == local]
    return config


def test_the_readme_pins_a_commit_that_defines_its_hooks() -> None:
    """pre-commit fetches `rev` as written: it must be a commit of this history whose
    .pre-commit-hooks.yaml defines the hooks the snippet names."""
    (entry,) = readme_hook_config()["repos"]
    rev = entry["rev"]
    assert re.fullmatch(r"[0-9a-f]{40}", rev), rev  # a full commit hash (no release tag exists yet)
    hooks = yaml.safe_load(_git(ROOT, "show", f"{rev}:.pre-commit-hooks.yaml"))
    assert {h["id"] for h in entry["hooks"]} <= {h["id"] for h in hooks}


def _repository(path: Path, config: dict[str, Any]) -> None:
    path.mkdir()
    (path / "package.json").write_text(json.dumps({"name": "app", "version": "1.0.0", "private": True}))
    (path / "tsconfig.json").write_text('{\n  // comments are fine in tsconfig\n  "compilerOptions": {"strict": true}\n}\n')
    (path / ".github" / "workflows").mkdir(parents=True)
    (path / ".github" / "workflows" / "ci.yml").write_text(
        "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n")
    (path / "schemas").mkdir()
    for name in ("person.json", "refs.json"):
        shutil.copy(ROOT / "testdata" / "schemas" / "supported" / name, path / "schemas" / name)
    (path / "schemas" / "order.yaml").write_text(
        "type: object\nproperties:\n  id: {type: integer, minimum: 1}\n  when: {type: string, format: date}\n"
        "required: [id]\n")
    (path / "api").mkdir()
    (path / "api" / "user.schema.json").write_text(json.dumps({"type": "object", "properties": {"name": {"type": "string"}}}))
    (path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    _git(path, "init", "-q")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "init")


def _pre_commit(repo: Path, home: Path, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1", **(extra_env or {})}
    env.pop("SCHEMAC_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def test_the_readme_local_hook_runs_the_installed_copy(tmp_path: Path) -> None:
    """The `repo: local` form, with schemac installed where pre-commit runs (this environment)."""
    config = readme_hook_config(local=True)
    (hook,) = config["repos"][0]["hooks"]
    shipped = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}["schemac-check"]
    assert (hook["id"], hook["entry"], hook["files"]) == (shipped["id"], shipped["entry"], shipped["files"])
    repo, home = tmp_path / "app", tmp_path / "pre-commit-home"
    _repository(repo, config)
    (repo / "schemas" / "bad.json").write_text(json.dumps(REMOTE, indent=2))
    _git(repo, "add", "-A")
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    failed = _pre_commit(repo, home, env)
    assert failed.returncode == 1 and re.search(r"schemac check\.+Failed", failed.stdout), failed.stdout + failed.stderr
    assert "schemas/bad.json:5:7: error[remote-ref] " in failed.stdout
    assert "package.json" not in failed.stdout and "person.json" not in failed.stdout


def test_the_readme_hook_passes_an_ordinary_repository_and_catches_a_bad_schema(tmp_path: Path) -> None:
    src = tmp_path / "schemac-src"
    src.mkdir()
    rev = _snapshot(src)
    config = readme_hook_config()
    (entry,) = config["repos"]
    assert [h["id"] for h in entry["hooks"]] == ["schemac-check"]
    entry["repo"], entry["rev"] = str(src), rev
    repo, home = tmp_path / "app", tmp_path / "pre-commit-home"
    _repository(repo, config)

    clean = _pre_commit(repo, home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"schemac check\.+Passed", clean.stdout)

    (repo / "schemas" / "bad.json").write_text(json.dumps(REMOTE, indent=2))
    (repo / "schemas" / "bad.yaml").write_text("type: object\nproperties:\n  a: {$ref: 'https://example.com/x'}\n")
    # under the README's own [tool.schemac] (its include globs name *.json only): named files are checked all the same
    (repo / "pyproject.toml").write_text(readme_toml())
    _git(repo, "add", "-A")
    failed = _pre_commit(repo, home)
    assert failed.returncode == 1
    assert re.search(r"schemac check\.+Failed", failed.stdout)
    assert "schemas/bad.json:5:7: error[remote-ref] " in failed.stdout
    assert "schemas/bad.yaml:3:7: error[remote-ref] " in failed.stdout  # PyYAML is in the hook's environment
    for other in ("package.json", "tsconfig.json", "ci.yml", ".pre-commit-config.yaml", "person.json"):
        assert other not in failed.stdout  # never read as schemas, or clean

    # the variant that takes its files from [tool.schemac] include globs
    entry["hooks"] = [{"id": "schemac-check-config"}]
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (repo / "pyproject.toml").write_text('[tool.schemac]\ninclude = ["schemas/**", "api/*.schema.json"]\n')
    _git(repo, "add", "-A")
    configured = _pre_commit(repo, home)
    assert configured.returncode == 1 and "schemas/bad.json:5:7: error[remote-ref] " in configured.stdout
    (repo / "pyproject.toml").write_text(
        '[tool.schemac]\ninclude = ["schemas/**", "api/*.schema.json"]\nexclude = ["schemas/bad.*"]\n')
    _git(repo, "add", "-A")
    excluded = _pre_commit(repo, home)
    assert excluded.returncode == 0, excluded.stdout + excluded.stderr
    assert re.search(r"schemac check \(configured files\)\.+Passed", excluded.stdout)
