"""The `schemac` command line: check, compile, explain, conformance, generate.

Exit codes: 0 every schema compiles (or its errors are ignored by configuration), 1 any schema
is rejected, 2 usage error (bad option, missing path, bad configuration). Importing this module
stays cheap: the compiler (llguidance, RE2) loads only once a command runs.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

import click

FORMATS = ("text", "json", "sarif", "github")


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


def _compile_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by `check` and `compile`; flags left unset fall back to the configuration."""
    decorators = [
        click.argument("paths", nargs=-1, required=True),
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
                     help="Report format: rich table, stable JSON, SARIF 2.1.0, or GitHub annotations."),
        click.option("--upgrade-drafts/--no-upgrade-drafts", default=None,
                     help="Rewrite draft-04/06/07/2019-09 schemas to 2020-12 instead of rejecting them."),
        click.option("--strict-formats/--no-strict-formats", default=None,
                     help="Make formats llguidance does not enforce errors instead of dropped annotations."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Artifact cache folder (default: $SCHEMAC_CACHE_DIR or ~/.cache/schemac)."),
        click.option("--no-cache", is_flag=True, help="Compile everything afresh; read and write no cache."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                     help="Worker processes (default: the number of CPUs)."),
        click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Configuration file (default: nearest schemac.toml or pyproject.toml [tool.schemac])."),
    ]
    for decorator in reversed(decorators):
        fn = decorator(fn)
    return fn


def _run(
    paths: tuple[str, ...], fmt: str, upgrade_drafts: bool | None, strict_formats: bool | None,
    cache_dir: Path | None, no_cache: bool, jobs: int | None, config_path: Path | None,
    out_dir: Path | None,
) -> None:
    from schemac.cache import default_cache_dir
    from schemac.cli.discover import DiscoveryError, artifact_names, discover
    from schemac.cli.runner import Task, default_jobs, run_all
    from schemac.cli.yaml_load import available
    from schemac.config import ConfigError, load_config

    try:
        config = load_config(config_path)
        found, skipped = discover(paths, config, available())
    except (ConfigError, DiscoveryError) as exc:
        raise click.UsageError(str(exc)) from exc
    if sum(1 for f in found if f.path is None) > 1:
        raise click.UsageError("'-' (stdin) may be given only once")
    upgrade = upgrade_drafts if upgrade_drafts is not None else bool(config.upgrade_drafts)
    strict = strict_formats if strict_formats is not None else bool(config.strict_formats)
    cache = None if no_cache else str(cache_dir or default_cache_dir())
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.UsageError(f"-o {out_dir}: cannot create the folder: {exc.strerror or exc}") from exc
    names = artifact_names(found, out_dir) if out_dir is not None else {}
    tasks = [
        Task(
            display=f.display, path=f.path,
            text=sys.stdin.read() if f.path is None else None,
            upgrade_drafts=upgrade, strict_formats=strict, cache_dir=cache, use_cache=not no_cache,
            ignore=config.ignored_codes(f.path), artifact_path=names.get(i),
        )
        for i, f in enumerate(found)
    ]
    outcomes = _with_progress(tasks, jobs or default_jobs(), run_all)
    _emit(outcomes, fmt, skipped, str(out_dir) if out_dir is not None else None)
    sys.exit(0 if all(o.passed for o in outcomes) else 1)


def _with_progress(tasks: list[Any], jobs: int, run_all: Callable[..., Any]) -> list[Any]:
    """Run the tasks, with a progress bar on stderr when it is a terminal and there are many."""
    if len(tasks) < 20 or not sys.stderr.isatty():
        return list(run_all(tasks, jobs))
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("compiling"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as progress:
        bar = progress.add_task("compiling", total=len(tasks))
        return list(run_all(tasks, jobs, lambda: progress.advance(bar)))


def _emit(outcomes: list[Any], fmt: str, skipped: int, out_dir: str | None) -> None:
    from schemac.cli import report

    if fmt == "json":
        click.echo(json.dumps(report.to_json(outcomes), indent=2, ensure_ascii=False))
    elif fmt == "sarif":
        click.echo(json.dumps(report.to_sarif(outcomes), indent=2, ensure_ascii=False))
    elif fmt == "github":
        for line in report.github_lines(outcomes):
            click.echo(line)
    else:
        report.render_text(outcomes, _console(), skipped, out_dir)


def _console() -> Any:
    """stdout console: rich drops colour itself under NO_COLOR and when stdout is not a terminal."""
    from rich.console import Console

    return Console(file=sys.stdout, highlight=False)


@cli.command()
@_compile_options
def check(**kwargs: Any) -> None:
    """Check that every schema in PATHS compiles (files, folders, or - for JSON on stdin)."""
    _run(**kwargs, out_dir=None)


@cli.command("compile")
@_compile_options
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the artifacts (<stem>.schemac.json each).")
def compile_(**kwargs: Any) -> None:
    """Compile every schema in PATHS into an artifact in the output folder."""
    _run(**kwargs)


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--pointer", "-p", default=None, help="JSON Pointer of the node to explain (default: every changed node).")
@click.option("--emit", type=click.Choice(("lowered", "grammar")), default=None,
              help="Print the lowered schema or the llguidance grammar instead of the explanation.")
@click.option("--upgrade-drafts/--no-upgrade-drafts", default=False)
@click.option("--strict-formats/--no-strict-formats", default=False)
def explain(file: str, pointer: str | None, emit: str | None, upgrade_drafts: bool, strict_formats: bool) -> None:
    """Show what each lowering pass did to FILE's schema, its budget use and grammar size."""
    from schemac.cli.explain import run_explain

    text = sys.stdin.read() if file == "-" else None
    sys.exit(run_explain(file, text, pointer, emit, upgrade_drafts, strict_formats, _console()))


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--upgrade-drafts/--no-upgrade-drafts", default=False, help="Translate draft-04/06/07/2019-09 schemas.")
@click.option("--tokenizer", default="llama32k", show_default=True, help="Tokenizer the instances are fed through.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N schemas.")
@click.option("--files", default=None, help="Only files whose name matches this glob.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: CPUs).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write every figure to this JSON file.")
def conformance(paths: tuple[str, ...], upgrade_drafts: bool, tokenizer: str, limit: int | None,
                files: str | None, jobs: int | None, json_path: Path | None) -> None:
    """Benchmark schemac against raw llguidance on Test Suite / MaskBench files.

    Exits 1 when schemac accepted an invalid instance (outside optional/format) or crashed.
    """
    from schemac.cli.runner import default_jobs
    from schemac.conformance import TOKENIZERS, run

    if tokenizer not in TOKENIZERS:
        raise click.BadParameter(f"choose from {', '.join(sorted(TOKENIZERS))}", param_hint="--tokenizer")
    result = run(list(paths), upgrade_drafts=upgrade_drafts, tokenizer=tokenizer, limit=limit,
                 jobs=jobs or default_jobs(), files=files)
    click.echo(result.to_text())
    if json_path is not None:
        json_path.write_text(json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    sys.exit(1 if result.promise_broken() else 0)


@cli.command()
@click.option("--model", "model_dir", type=click.Path(exists=True, file_okay=False), required=True,
              help="Local Hugging Face model folder (nothing is downloaded).")
@click.option("--schema", "schema_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--prompt", default="", help="Prompt text.")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=256, show_default=True)
def generate(model_dir: str, schema_file: Path, prompt: str, max_new_tokens: int) -> None:
    """Generate an answer constrained by a schema with a local model; prints the JSON value.

    Exits 1 when the schema is rejected or no valid answer was produced (never prints an invalid one).
    """
    from schemac.cli.report import render_diagnostics
    from schemac.cli.runner import Outcome, Task, locate_all, read_source
    from schemac.diagnostics import CompileError
    from schemac.locate import Locator
    from schemac.pipeline import compile_schema
    from schemac.runtime.errors import StructuredOutputError
    from schemac.runtime.hf import generate as hf_generate

    task = Task(display=str(schema_file), path=schema_file)
    locator: Any = lambda: Locator({})  # noqa: E731 - until the source is read
    try:  # compile first: a rejected schema is reported before any model is loaded
        source, locator = read_source(task)
        artifact = compile_schema(source)
    except CompileError as exc:
        render_diagnostics(Outcome(task.display, "rejected", locate_all(exc.diagnostics, locator)), _console())
        sys.exit(1)
    try:
        result = hf_generate(model_dir, artifact, prompt, max_new_tokens)
    except StructuredOutputError as exc:
        click.echo(f"error[{exc.code}]: {exc.message}", err=True)
        sys.exit(1)
    if result.outcome.status != "ok":
        click.echo(f"no answer: generation ended with status {result.outcome.status!r}", err=True)
        sys.exit(1)
    click.echo(json.dumps(result.outcome.value, ensure_ascii=False))


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    cli.main(args=argv, prog_name="schemac")
