"""Every code block of README.md runs, so the README stays true.

- `python` blocks run in order in one namespace (a later block may use an earlier one's names),
  in a scratch folder where `testdata/` is the repository's.
- `bash` blocks: each line is a command, `&&` chains included. `pip install ...` steps are not
  run (this environment is installed already); their extras and requirements files must exist.
  `python3 -m pytest` is this suite itself and is not run again. Everything else runs.
- `console` blocks: `$ command` then its output; the command runs and each diagnostic line must
  match in `path:line:col: severity[code]`, and every other line exactly (a duration such as
  `0.34 s` aside).
- `yaml` blocks parse; the pre-commit one names hooks that exist (tests/test_precommit_e2e.py
  runs it with pre-commit), and a workflow's `run:` steps run like bash lines.
- `toml` blocks parse and are valid schemac configuration.
- Blocks without a language are diagrams. A block preceded by `<!-- skip-test: reason -->` is
  not run; such blocks are counted and printed, and kept few.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
_BLOCK = re.compile(r"(?:<!-- skip-test: (?P<skip>[^>]*?) -->\n)?```(?P<lang>[a-z]*)\n(?P<body>.*?)```", re.S)
_DIAGNOSTIC = re.compile(r"^(\S+:\d+:\d+: (?:error|warning)\[[a-z-]+\]) ")
MAX_SKIPPED = 2
#: a measured duration in a command's output (`0.34 s`): the one part of a line allowed to differ
_SECONDS = re.compile(r"\b\d+\.\d+ s\b")


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    line: int
    skip: str | None


def blocks() -> list[Block]:
    text = README.read_text(encoding="utf-8")
    return [Block(m["lang"], m["body"], text.count("\n", 0, m.start("body")) + 1, m["skip"])
            for m in _BLOCK.finditer(text)]


def _of(lang: str) -> list[Block]:
    return [b for b in blocks() if b.lang == lang and b.skip is None]


@pytest.fixture()
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "testdata").symlink_to(ROOT / "testdata")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def test_every_block_is_checked_and_skips_are_few(capsys: pytest.CaptureFixture[str]) -> None:
    found = blocks()
    assert {b.lang for b in found} <= {"python", "bash", "console", "yaml", "toml", ""}
    skipped = [b for b in found if b.skip is not None]
    with capsys.disabled():
        kinds = {lang or "diagram": sum(b.lang == lang for b in found) for lang in sorted({b.lang for b in found})}
        print(f"\nREADME: {len(found)} code blocks {kinds}; {len(skipped)} not run:"
              + "".join(f"\n  line {b.line}: {b.skip}" for b in skipped))
    assert len(skipped) <= MAX_SKIPPED
    assert all(b.skip.strip() for b in skipped)


def test_python_blocks_run(scratch: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "readme"}
    for block in _of("python"):
        try:
            exec(compile(block.body, f"README.md:{block.line}", "exec"), namespace)  # noqa: S102
        except Exception as exc:  # noqa: BLE001 - name the block
            pytest.fail(f"README.md python block at line {block.line}: {type(exc).__name__}: {exc}")


def _extras() -> set[str]:
    return set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def _run_line(line: str, cwd: Path) -> list[subprocess.CompletedProcess[str]]:
    """Run one shell line's commands, `&&` chains included; `pip install` steps are checked only."""
    done = []
    for step in (s.strip() for s in line.split("&&")):
        words = shlex.split(step)
        if words[:2] == ["pip", "install"]:
            specs = words[2:]
            if specs[:2] == ["--no-deps", "-r"]:  # the test command's requirements file
                assert (ROOT / specs[2]).is_file() and len(specs) == 3, step
                continue
            for spec in specs:
                extras = re.fullmatch(r"(?:\.|schemac)(?:\[(?P<x>[a-z,]+)\])?", spec.removeprefix("-e").strip())
                assert spec == "-e" or extras, f"unexpected requirement {spec!r}"
                if extras and extras["x"]:
                    assert set(extras["x"].split(",")) <= _extras(), spec
            continue
        if words[:3] == ["python3", "-m", "pytest"]:
            continue  # this suite
        result = subprocess.run(step, shell=True, cwd=cwd, capture_output=True, text=True, timeout=300,
                                env={**os.environ, "NO_COLOR": "1"})
        done.append(result)
        if result.returncode != 0:
            break
    return done


def test_bash_blocks_run(scratch: Path) -> None:
    for block in _of("bash"):
        for line in block.body.splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            for result in _run_line(line, scratch):
                assert result.returncode == 0, f"README.md:{block.line}: {line}\n{result.stdout}{result.stderr}"
    assert (scratch / "out").is_dir() and any((scratch / "out").glob("*.schemac.json"))  # the quick start's


def test_console_blocks_show_what_the_command_prints(scratch: Path) -> None:
    for block in _of("console"):
        lines = block.body.splitlines()
        assert lines[0].startswith("$ ")
        result = subprocess.run(lines[0][2:], shell=True, cwd=scratch, capture_output=True, text=True,
                                timeout=300, env={**os.environ, "NO_COLOR": "1"})
        got = result.stdout.splitlines()
        assert len(got) == len(lines) - 1, f"README.md:{block.line}:\n{result.stdout}"
        for want, have in zip(lines[1:], got):
            shape = _DIAGNOSTIC.match(want)
            if shape:
                assert have.startswith(shape.group(1) + " "), (want, have)
            elif not want.startswith("    hint: "):
                assert _SECONDS.sub("<t> s", have) == _SECONDS.sub("<t> s", want)


def test_yaml_blocks(scratch: Path) -> None:
    hooks = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    kinds = set()
    for block in _of("yaml"):
        data = yaml.safe_load(block.body)
        if block.body.startswith("# .pre-commit-config.yaml"):
            kinds.add("pre-commit")
            assert {h["id"] for repo in data["repos"] for h in repo["hooks"]} <= hooks
        elif block.body.startswith("# .github/workflows/"):
            kinds.add("workflow")
            (scratch / "schemas").mkdir(exist_ok=True)
            (scratch / "schemas" / "a.json").write_text(json.dumps({"type": "object"}))
            for step in data:
                if "run" in step:
                    for result in _run_line(step["run"], scratch):
                        assert result.returncode == 0, f"README.md:{block.line}: {step['run']}\n{result.stderr}"
            assert json.loads((scratch / "schemac.sarif").read_text())["version"] == "2.1.0"
        else:
            pytest.fail(f"README.md:{block.line}: a yaml block this test does not know")
    assert kinds == {"pre-commit", "workflow"}


def test_toml_blocks_are_valid_configuration(scratch: Path) -> None:
    from schemac.config import parse_config

    for block in _of("toml"):
        table = tomllib.loads(block.body)["tool"]["schemac"]
        config = parse_config(scratch / "pyproject.toml", table)
        assert config.include


def test_the_readme_points_only_inside_the_repository() -> None:
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not re.match(r"https?://", target):
            assert (ROOT / target).exists(), target
    assert "DESIGN.md" not in text
    if sys.platform != "win32":
        assert (ROOT / "docs" / "design.md").is_file()
