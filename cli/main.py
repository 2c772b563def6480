"""The `schemac` command line: check, compile, explain, conformance, generate.

Exit codes: 0 every schema compiles (or its errors are ignored by configuration), 1 any schema
is rejected, 2 usage error (bad option, missing path, bad configuration, a missing optional
dependency). Errors are sentences, never tracebacks. Importing this module stays cheap: the
compiler (llguidance, RE2) loads only once a command runs.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from schemac.cli.options import compile_options, key_order_option


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from schemac.cli.report import versions

    schemac_version, llg = versions()
    click.echo(f"schemac {schemac_version} (llguidance {llg})")
    ctx.exit(0)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the schemac and llguidance versions and exit.")
def cli() -> None:
    """Compile JSON Schema (draft 2020-12) into exact llguidance grammars, or say why not."""


def _console() -> Any:
    """stdout console: rich drops colour itself under NO_COLOR and when stdout is not a terminal."""
    from rich.console import Console

    return Console(file=sys.stdout, highlight=False)


@cli.command()
@compile_options
def check(**kwargs: Any) -> None:
    """Check that every schema in PATHS compiles (files, folders, or - for JSON on stdin).

    Without PATHS, the files the configuration's `include` globs select are checked.
    """
    from schemac.cli.check_cmd import run_check

    run_check(**kwargs)


@cli.command("compile")
@compile_options
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the artifacts (<stem>.schemac.json each).")
@click.option("--emit", type=click.Choice(("lark",)), multiple=True,
              help="Also write the grammar as Lark text beside each artifact (<stem>.lark).")
def compile_(emit: tuple[str, ...], **kwargs: Any) -> None:
    """Compile every schema in PATHS into an artifact in the output folder."""
    from schemac.artifact import Artifact
    from schemac.cli.check_cmd import run_check
    from schemac.cli.extras import MissingExtra

    if "lark" in emit and not hasattr(Artifact, "lark"):
        raise MissingExtra("--emit lark: this schemac has no Lark export (Artifact.lark) yet")
    run_check(**kwargs, emit=emit)


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--pointer", "-p", default=None, help="JSON Pointer of the node to explain (default: every changed node).")
@click.option("--emit", type=click.Choice(("lowered", "grammar")), default=None,
              help="Print the lowered schema or the llguidance grammar instead of the explanation.")
@click.option("--upgrade-drafts/--no-upgrade-drafts", default=False)
@click.option("--strict-formats/--no-strict-formats", default=False)
@key_order_option()
def explain(file: str, pointer: str | None, emit: str | None, upgrade_drafts: bool, strict_formats: bool,
            key_order: str) -> None:
    """Show what each lowering pass did to FILE's schema, its budget use and grammar size."""
    from schemac.cli.explain import run_explain

    text = sys.stdin.read() if file == "-" else None
    sys.exit(run_explain(file, text, pointer, emit, upgrade_drafts, strict_formats, _console(), key_order))


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--upgrade-drafts/--no-upgrade-drafts", default=False, help="Translate draft-04/06/07/2019-09 schemas.")
@key_order_option()
@click.option("--tokenizer", default="llama32k", show_default=True, help="Tokenizer the instances are fed through.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N schemas.")
@click.option("--files", default=None, help="Only files whose name matches this glob.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: CPUs).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write every figure to this JSON file.")
def conformance(paths: tuple[str, ...], upgrade_drafts: bool, key_order: str, tokenizer: str, limit: int | None,
                files: str | None, jobs: int | None, json_path: Path | None) -> None:
    """Benchmark schemac against raw llguidance on Test Suite / MaskBench files.

    Runs from a source checkout (benchmarks/conformance) with the test extra installed.
    Exits 1 when schemac accepted an invalid instance (outside optional/format) or crashed.
    """
    from schemac.cli.bench import check_tokenizer, load_conformance
    from schemac.cli.runner import default_jobs

    bench = load_conformance()
    check_tokenizer(bench.TOKENIZERS, tokenizer)
    try:
        result = bench.run(list(paths), upgrade_drafts=upgrade_drafts, key_order=key_order, tokenizer=tokenizer,
                           limit=limit, jobs=jobs or default_jobs(), files=files)
    except (ValueError, KeyError) as exc:  # a file that is neither Test Suite nor MaskBench
        raise click.UsageError(f"not a Test Suite or MaskBench file: {exc}") from exc
    click.echo(bench.render_text(result))
    if json_path is not None:
        from schemac.files import write_text_atomic

        write_text_atomic(json_path, json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n")
    sys.exit(1 if result.promise_broken() else 0)


def _prompt(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not value.strip():
        raise click.BadParameter("give the model some text to continue (an empty prompt generates nothing useful)")
    return value


@cli.command()
@click.option("--model", "model_dir", type=click.Path(exists=True, file_okay=False), required=True,
              help="Local Hugging Face model folder (nothing is downloaded).")
@click.option("--schema", "schema_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--prompt", required=True, callback=_prompt, help="Prompt text (not empty).")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=256, show_default=True)
def generate(model_dir: str, schema_file: Path, prompt: str, max_new_tokens: int) -> None:
    """Generate an answer constrained by a schema with a local model; prints the JSON value.

    Needs torch and transformers (pip install 'schemac[gpu,hf]'). Exits 1 when the schema is
    rejected or no valid answer was produced (never prints an invalid one).
    """
    from schemac.cli.extras import require
    from schemac.cli.runner import Outcome, Task, locate_all, read_source
    from schemac.cli.text import diagnostic_lines
    from schemac.diagnostics import CompileError
    from schemac.front.locate import Locator
    from schemac.pipeline import compile_schema
    from schemac.front.resolve.files import RefSource

    task = Task(display=str(schema_file), path=schema_file)
    locator: Any = lambda: Locator({})  # noqa: E731 - until the source is read
    try:  # compile first: a rejected schema is reported before any model is loaded
        source, locator = read_source(task)
        artifact = compile_schema(source, refs=RefSource.of(task.path))
    except CompileError as exc:
        for line in diagnostic_lines(Outcome(task.display, "rejected", locate_all(exc.diagnostics, locator))):
            click.echo(line)
        sys.exit(1)
    require("generate", {"torch": "torch", "transformers": "transformers"})
    from schemac.api import StructuredOutputError
    from schemac.runtime.hf import generate as hf_generate

    try:
        result = hf_generate(model_dir, artifact, prompt, max_new_tokens)
    except StructuredOutputError as exc:
        click.echo(f"error[{exc.code}]: {exc.message}", err=True)
        sys.exit(1)
    except (OSError, ValueError) as exc:  # transformers' words for "not a model folder I can load"
        raise click.UsageError(f"--model {model_dir}: cannot load the model: {exc}") from exc
    if result.outcome.status != "ok":
        click.echo(f"no answer: generation ended with status {result.outcome.status!r}", err=True)
        sys.exit(1)
    click.echo(json.dumps(result.outcome.value, ensure_ascii=False))


from schemac.cli.verify_cmd import verify  # noqa: E402 - registered after the group exists

cli.add_command(verify)
cli.add_command(__import__("schemac.cli.validate_cmd", fromlist=["validate"]).validate)


class Interrupted(BaseException):
    """Ctrl-C, raised by our SIGINT handler: click would turn a KeyboardInterrupt into exit 1."""


def _interrupt(_signum: int, _frame: Any) -> None:
    raise Interrupted


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point. Ctrl-C exits 130 (128 + SIGINT) with one line, no traceback;
    a SIGINT the caller ignores (a background job) stays ignored."""
    import signal

    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)
    try:
        cli.main(args=argv, prog_name="schemac")
    except Interrupted:
        click.echo("schemac: interrupted", err=True)
        sys.exit(130)
    finally:
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous)
