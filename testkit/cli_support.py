"""Helpers shared by the tests/cli/test_cli_*.py files: run the CLI in-process, write schema files."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from schemac.cli.main import cli

OK = {"type": "string"}
#: rejected with a pointer and a hint whatever the lowering passes become: nothing is fetched
REMOTE = {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}
#: compiles with an `unknown-format` warning; an error under --strict-formats
COLOR = {"type": "object", "properties": {"c": {"type": "string", "format": "color"}}}
DRAFT7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}


def write(path: Path, schema: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(schema if isinstance(schema, str) else json.dumps(schema, indent=2), encoding="utf-8")
    return path


def run(*args: str, input: str | None = None) -> Result:
    """The CLI in-process, single worker (pool tests ask for -j themselves)."""
    argv = list(args)
    if argv and argv[0] in ("check", "compile") and not any(a.startswith("-j") for a in argv):
        argv.insert(1, "-j1")
    return CliRunner().invoke(cli, argv, input=input, catch_exceptions=False)


def report(*args: str, input: str | None = None) -> tuple[int, dict[str, Any]]:
    result = run(*args, "--format", "json", input=input)
    return result.exit_code, json.loads(result.stdout)


def readme_toml() -> str:
    """The README's `[tool.schemac]` example, as users copy it."""
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```toml\n(.*?)```", text, re.S) if "[tool.schemac]" in b]
    return block
