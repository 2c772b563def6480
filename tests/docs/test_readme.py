"""Every code block of README.md and of every docs/*.md page runs, so the documentation stays true.

Each page is a test case of its own (`test_page_blocks_run[docs/cli.md]`), and its blocks run in
document order in one scratch folder where `testdata/` is the repository's:

- `python` blocks run in one namespace per page (a later block may use an earlier one's names).
- `bash` blocks: each line is a command, `&&` chains included. `pip install ...` steps are not
  run (this environment is installed already); their extras and requirements files must exist.
  `python3 -m pytest` is this suite itself and is not run again. Everything else runs.
- `console` blocks: `$ command` lines, each followed by its output; a command sees the previous
  one's exit status (`echo $?`). Each diagnostic line must match in `path:line:col:
  severity[code]`, a `    hint: ` line is not compared, and every other line must match exactly
  (a duration such as `0.34 s` aside).
- `json` blocks parse; one preceded by `<!-- file: NAME -->` is written to NAME in the scratch
  folder, for the blocks after it.
- `yaml` blocks parse; the pre-commit one names hooks that exist (tests/docs/test_precommit_e2e.py
  runs it with pre-commit), and a workflow's `run:` steps run like bash lines.
- `toml` blocks parse and are valid schemac configuration.
- Blocks without a language are diagrams or recorded output, and hold no command. A block
  preceded by `<!-- skip-test: reason -->` is not run; such blocks are counted and printed, and
  kept few (at most `MAX_SKIPPED` per page).

The pages' links must resolve inside the repository (anchors included), every page must be
reachable from the README, and the module paths and dotted names they quote must exist.
"""
from __future__ import annotations

import importlib
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"(?:<!-- (?:skip-test: (?P<skip>[^>]*?)|file: (?P<file>[\w.-]+)) -->\n)?"
                    r"```(?P<lang>[a-z]*)\n(?P<body>.*?)```", re.S)
_DIAGNOSTIC = re.compile(r"^(\S+:\d+:\d+: (?:error|warning)\[[a-z-]+\]) ")
LANGS = {"python", "bash", "console", "json", "yaml", "toml", ""}
MAX_SKIPPED = 2
README_MAX_LINES = 250
#: a measured duration in a command's output (`0.34 s`): the one part of a line allowed to differ
_SECONDS = re.compile(r"\b\d+\.\d+ s\b")
#: what a command line in a block without a language would start with
_COMMAND = re.compile(r"^(?:\$ |(?:python3?|schemac|pip|pytest|bash|sglang|vllm) )")


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


@dataclass(frozen=True)
class Block:
    page: str
    lang: str
    body: str
    line: int
    skip: str | None
    file: str | None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    return [Block(_name(page), m["lang"], m["body"], text.count("\n", 0, m.start("body")) + 1, m["skip"], m["file"])
            for m in _BLOCK.finditer(text)]


def _prose(page: Path) -> str:
    """The page without its fenced blocks (links and code spans are read from here)."""
    return re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)


per_page = pytest.mark.parametrize("page", PAGES, ids=_name)


@pytest.fixture()
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "testdata").symlink_to(ROOT / "testdata")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def test_the_pages_are_the_readme_and_docs() -> None:
    assert PAGES[0] == README and len(PAGES) > 10
    assert all(p.suffix == ".md" for p in PAGES)


@per_page
def test_every_block_is_checked_and_skips_are_few(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = blocks(page)
    assert {b.lang for b in found} <= LANGS, f"{_name(page)}: a block language this test does not run"
    skipped = [b for b in found if b.skip is not None]
    with capsys.disabled():
        kinds = Counter(b.lang or "diagram" for b in found)
        print(f"\n{_name(page)}: {len(found)} code blocks {dict(sorted(kinds.items()))}; {len(skipped)} not run"
              + "".join(f"\n  line {b.line}: {b.skip}" for b in skipped))
    assert len(skipped) <= MAX_SKIPPED, _name(page)
    assert all(b.skip.strip() for b in skipped)
    for b in found:
        assert b.file is None or b.lang == "json", f"{b.where}: a file marker belongs on a json block"
        if b.lang == "" and b.skip is None:
            commands = [line for line in b.body.splitlines() if _COMMAND.match(line)]
            assert not commands, f"{b.where}: a command in a block without a language is never run: {commands[0]}"


@per_page
def test_no_indented_code_blocks(page: Path) -> None:
    """Four-space code blocks are invisible to the block runner: every code block is fenced."""
    lines = _prose(page).splitlines()
    for i, line in enumerate(lines[1:], 1):
        if line.startswith("    ") and line[4:5] not in (" ", "") and not lines[i - 1].strip():
            pytest.fail(f"{_name(page)}: an indented code block ({line.strip()[:60]!r}): fence it")


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


def _python(block: Block, namespace: dict[str, Any]) -> None:
    try:
        exec(compile(block.body, block.where, "exec"), namespace)  # noqa: S102
    except Exception as exc:  # noqa: BLE001 - name the block
        pytest.fail(f"{block.where}: python block: {type(exc).__name__}: {exc}")


def _bash(block: Block, scratch: Path) -> None:
    for line in block.body.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        for result in _run_line(line, scratch):
            assert result.returncode == 0, f"{block.where}: {line}\n{result.stdout}{result.stderr}"


def _console(block: Block, scratch: Path) -> None:
    lines = block.body.splitlines()
    assert lines and lines[0].startswith("$ "), f"{block.where}: a console block starts with `$ command`"
    status = 0
    while lines:
        command, lines = lines[0][2:], lines[1:]
        want = []
        while lines and not lines[0].startswith("$ "):
            want.append(lines.pop(0))
        result = subprocess.run(f"(exit {status}); {command}", shell=True, cwd=scratch, capture_output=True,
                                text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})
        status = result.returncode
        got = result.stdout.splitlines()
        assert len(got) == len(want), f"{block.where}: `{command}` printed:\n{result.stdout}{result.stderr}"
        for expected, have in zip(want, got):
            shape = _DIAGNOSTIC.match(expected)
            if shape:
                assert have.startswith(shape.group(1) + " "), (block.where, expected, have)
            elif not expected.startswith("    hint: "):
                assert _SECONDS.sub("<t> s", have) == _SECONDS.sub("<t> s", expected), (block.where, expected, have)


def _json(block: Block, scratch: Path) -> None:
    try:
        json.loads(block.body)
    except ValueError as exc:
        pytest.fail(f"{block.where}: json block: {exc}")
    if block.file:
        (scratch / block.file).write_text(block.body, encoding="utf-8")


def _yaml(block: Block, scratch: Path) -> str:
    data = yaml.safe_load(block.body)
    if block.body.startswith("# .pre-commit-config.yaml"):
        hooks = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
        assert {h["id"] for repo in data["repos"] for h in repo["hooks"]} <= hooks, block.where
        return "pre-commit"
    if block.body.startswith("# .github/workflows/"):
        (scratch / "schemas").mkdir(exist_ok=True)
        (scratch / "schemas" / "a.json").write_text(json.dumps({"type": "object"}))
        for step in data:
            if "run" in step:
                for result in _run_line(step["run"], scratch):
                    assert result.returncode == 0, f"{block.where}: {step['run']}\n{result.stderr}"
        assert json.loads((scratch / "schemac.sarif").read_text())["version"] == "2.1.0"
        return "workflow"
    pytest.fail(f"{block.where}: a yaml block this test does not know")


def _toml(block: Block, scratch: Path) -> None:
    from schemac.config import parse_config

    table = tomllib.loads(block.body)["tool"]["schemac"]
    config = parse_config(scratch / "pyproject.toml", table)
    assert config.include, block.where


@per_page
def test_page_blocks_run(page: Path, scratch: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "readme"}
    for block in blocks(page):
        if block.skip is not None or block.lang == "":
            continue
        if block.lang == "python":
            _python(block, namespace)
        elif block.lang == "bash":
            _bash(block, scratch)
        elif block.lang == "console":
            _console(block, scratch)
        elif block.lang == "json":
            _json(block, scratch)
        elif block.lang == "yaml":
            _yaml(block, scratch)
        elif block.lang == "toml":
            _toml(block, scratch)
    if page == README:  # the quick start's artifacts
        assert (scratch / "out").is_dir() and any((scratch / "out").glob("*.schemac.json"))


def test_the_ci_snippets_are_documented() -> None:
    kinds = Counter()
    for page in PAGES:
        for block in blocks(page):
            if block.lang == "yaml" and block.skip is None:
                kinds[block.body.splitlines()[0]] += 1
    assert kinds["# .pre-commit-config.yaml"] == 1 and kinds["# .pre-commit-config.yaml (vendored copy)"] == 1
    assert any(k.startswith("# .github/workflows/") for k in kinds)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: Counter[str] = Counter()
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", _prose(page), re.M):
        slug = _slug(heading)
        out.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return out


def _links(page: Path) -> list[tuple[str, str]]:
    """(target, anchor) of every relative link on the page; ("", anchor) for one into the page."""
    out = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _prose(page)):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        out.append((path, anchor))
    return out


@per_page
def test_links_resolve_inside_the_repository(page: Path) -> None:
    for path, anchor in _links(page):
        target = (page.parent / path).resolve() if path else page
        assert target.exists(), f"{_name(page)}: link to {path} (no such file)"
        assert target == ROOT or ROOT in target.parents, f"{_name(page)}: link to {path} leaves the repository"
        if anchor:
            assert target.suffix == ".md", f"{_name(page)}: anchor #{anchor} into {path}"
            assert anchor in _anchors(target), f"{_name(page)}: no heading #{anchor} in {_name(target)}"


def test_every_page_is_reachable_from_the_readme() -> None:
    seen, todo = {README}, [README]
    while todo:
        page = todo.pop()
        for path, _ in _links(page):
            target = (page.parent / path).resolve() if path else page
            if target.suffix == ".md" and target not in seen and target in PAGES:
                seen.add(target)
                todo.append(target)
    assert sorted(map(_name, set(PAGES) - seen)) == []


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


@per_page
def test_named_files_and_modules_exist(page: Path) -> None:
    """A path (`schemac/emit/lark/writer.py`, `tests/verify/test_verify.py::name`) or dotted name
    (`schemac.runtime.sglang.backend`) quoted in code spans is there: moves update the pages."""
    for span in re.findall(r"`([^`\n]+)`", _prose(page)):
        for path in re.findall(r"(?<![\w./-])(?:schemac|runtime|cli|tests|benchmarks|testdata|docs|fuzz)/[\w./-]*", span):
            path = path.split("::")[0].rstrip(".")
            assert (ROOT / path).exists(), f"{_name(page)}: `{span}` names {path}, which does not exist"
        for dotted in re.findall(r"(?<![\w./-])schemac(?:\.[A-Za-z_]\w*)+", span):
            if dotted.rsplit(".", 1)[1] in ("json", "toml", "lark", "sarif"):
                continue  # a file name (`x.schemac.json`, `schemac.toml`)
            assert _resolves(dotted), f"{_name(page)}: `{span}` names {dotted}, which does not import"


def test_the_readme_fits_on_a_few_screens() -> None:
    text = README.read_text(encoding="utf-8")
    assert text.count("\n") <= README_MAX_LINES
    assert "DESIGN.md" not in text and "../" not in text and "shared/" not in text
    lines = text.splitlines()
    assert "pip install . && schemac compile --upgrade-drafts testdata/schemas/supported -o out/" in lines
    assert any(line.startswith("pip install -e '.[test]' && ") for line in lines)  # .ci/run greps it
    for heading in ("## Quick start", "## CLI", "## Known gaps", "## Where things live"):
        assert heading in lines, heading
    assert "(docs/design.md)" in text and "(docs/known-gaps.md)" in text and "(docs/figures.md" in text
    if sys.platform != "win32":
        assert (ROOT / "docs" / "design.md").is_file()
