"""`schemac validate ARTIFACT_OR_SCHEMA [ANSWER_FILE|-]`: the final validation of one answer.

For answers from any engine (an OpenAI-compatible server enforcing `artifact.lark`, say): the
exact check the runtime makes before it returns a success (`Artifact.validate`). The first
argument is a compiled artifact (`schemac compile` output) or a schema, compiled here.
Exit codes: 0 the answer is valid, 1 it is invalid or truncated, 2 usage error (unreadable
file, malformed artifact, a schema that does not compile).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

#: keys only an artifact has at its top level (a schema with all of them is read as an artifact)
_ARTIFACT_KEYS = frozenset({"format_version", "checksum", "grammar", "lowered"})


@click.command("validate")
@click.argument("target", metavar="ARTIFACT_OR_SCHEMA",
                type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@click.argument("answer_file", metavar="[ANSWER_FILE|-]", required=False, default="-",
                type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@click.option("--finish-reason", type=click.Choice(("stop", "length")), default="stop", show_default=True,
              help="The engine's finish reason: `length` means the answer was cut at the token limit.")
@click.option("--upgrade-drafts/--no-upgrade-drafts", default=False,
              help="Rewrite draft-04/06/07/2019-09 schemas to 2020-12 instead of rejecting them.")
@click.option("--strict-formats/--no-strict-formats", default=False,
              help="Make formats llguidance does not enforce errors instead of dropped annotations.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
def validate(target: Path, answer_file: Path, finish_reason: str, upgrade_drafts: bool,
             strict_formats: bool, as_json: bool) -> None:
    """Validate the answer in ANSWER_FILE (default: stdin) against ARTIFACT_OR_SCHEMA."""
    if str(target) == "-" and str(answer_file) == "-":
        raise click.UsageError("the artifact/schema and the answer cannot both come from stdin")
    artifact = _artifact(target, upgrade_drafts, strict_formats)
    answer = _read(answer_file, "answer")
    verdict = artifact.validate(answer, finish_reason)
    if as_json:
        click.echo(json.dumps(verdict.to_json(), ensure_ascii=False))
    else:
        click.echo(verdict.status if verdict.ok else f"{verdict.status} ({verdict.code})")
        for v in verdict.violations:
            click.echo(f"  {v.pointer or '/'}: {v.message}")
    sys.exit(0 if verdict.ok else 1)


def _read(path: Path, what: str) -> str:
    if str(path) == "-":
        return sys.stdin.read()
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"cannot read the {what} {path}: {exc}") from exc


def _artifact(path: Path, upgrade_drafts: bool, strict_formats: bool) -> Any:
    """The artifact in `path`, or the artifact of the schema in it (usage error if it has none)."""
    from schemac.artifact import Artifact, ArtifactError

    text = _read(path, "artifact/schema")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise click.UsageError(f"{path} is not JSON: {exc}") from exc
    if isinstance(data, dict) and _ARTIFACT_KEYS <= data.keys():
        try:
            return Artifact.from_json(data)
        except ArtifactError as exc:
            raise click.UsageError(f"{path}: {exc}") from exc
    from schemac.diagnostics import CompileError
    from schemac.pipeline import compile_schema
    from schemac.front.resolve.files import RefSource

    try:
        return compile_schema(text, upgrade_drafts=upgrade_drafts, strict_formats=strict_formats,
                              refs=RefSource.of(path))
    except CompileError as exc:
        lines = [f"{path}: the schema does not compile, so no answer can be checked against it"]
        lines += [f"  {d.severity} {d.code} at {d.pointer or '/'}: {d.message}" for d in exc.diagnostics]
        raise click.UsageError("\n".join(lines)) from exc
