"""`schemac check` / `schemac compile`: find the schemas, compile them over workers, report.

Exit codes: 0 every schema compiles (or its errors are ignored by configuration, or
`--exit-zero`), 1 any schema is rejected, 2 usage error (bad option, missing path, bad
configuration, a report file that cannot be written).
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

if TYPE_CHECKING:
    from schemac.cli.discover import Discovery
    from schemac.config import Config


@dataclass(frozen=True)
class ReportOptions:
    fmt: str = "text"
    show_ok: bool = False
    statistics: bool = False
    quiet: bool = False
    output_file: Path | None = None


def run_check(
    paths: tuple[str, ...], *, fmt: str, show_ok: bool, statistics: bool, quiet: bool, exit_zero: bool,
    output_file: Path | None, upgrade_drafts: bool | None, strict_formats: bool | None, key_order: str | None,
    openapi_formats: bool, respect_gitignore: bool, cache_dir: Path | None, no_cache: bool, jobs: int | None,
    config_path: Path | None, show_files: bool = False, select: tuple[str, ...] = (), ignore: tuple[str, ...] = (),
    out_dir: Path | None = None, emit: tuple[str, ...] = (),
    ref_root: Path | None = None, ref_map: tuple[str, ...] = (),
) -> None:
    from schemac.cache import default_cache_dir
    from schemac.cli.discover import DiscoveryError, artifact_names, discover
    from schemac.cli.runner import Task, default_jobs, run_all
    from schemac.front.yaml_load import available
    from schemac.config import ConfigError, load_config

    try:
        config = _with_codes(load_config(config_path), select, ignore)
        if not paths:
            if not config.include:
                raise click.UsageError(
                    "no PATHS given and no 'include' globs configured: name the schema files or folders, "
                    "or set include = [\"schemas/**/*.json\"] under [tool.schemac] (pyproject.toml or schemac.toml)"
                )
            paths = (str(config.root),)
        files = discover(paths, config, available(), respect_gitignore)
    except (ConfigError, DiscoveryError) as exc:
        raise click.UsageError(str(exc)) from exc
    found, skipped = files.found, len(files.left_out)
    if sum(1 for f in found if f.path is None) > 1:
        raise click.UsageError("'-' (stdin) may be given only once")
    for note in files.notes:
        click.echo(f"note: {note}", err=True)
    if show_files:
        _show_files(files)
        sys.exit(0)
    if not found:
        where = ", ".join(paths)
        note = f" ({skipped} left out; --show-files lists them and why)" if skipped else ""
        click.echo(f"No schemas found in {where}: looked for *.json, *.yaml and *.yml files{note}.", err=True)
        sys.exit(0)
    upgrade = upgrade_drafts if upgrade_drafts is not None else bool(config.upgrade_drafts)
    strict = strict_formats if strict_formats is not None else bool(config.strict_formats)
    order = key_order or config.key_order or "schema"
    cache = None if no_cache else str(cache_dir or default_cache_dir())
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.UsageError(f"-o {out_dir}: cannot create the folder: {exc.strerror or exc}") from exc
    names = artifact_names(found, out_dir) if out_dir is not None else {}
    root, maps = _ref_settings(ref_root, ref_map, config)
    tasks = [
        Task(
            display=f.display, path=f.path,
            text=sys.stdin.read() if f.path is None else None,
            upgrade_drafts=upgrade, strict_formats=strict, key_order=order, openapi_formats=openapi_formats,
            cache_dir=cache, use_cache=not no_cache,
            ignore=config.ignored_codes(f.path), artifact_path=names.get(i), emit=emit,
            ref_root=root, ref_map=maps,
        )
        for i, f in enumerate(found)
    ]
    outcomes = _with_progress(tasks, jobs or default_jobs(), run_all)
    options = ReportOptions(fmt, show_ok or fmt == "table", statistics, quiet, output_file)
    emit_report(outcomes, options, skipped, str(out_dir) if out_dir is not None else None)
    sys.exit(0 if exit_zero or all(o.passed for o in outcomes) else 1)


def _ref_settings(ref_root: Path | None, ref_map: tuple[str, ...], config: Any) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The reference root (flag, else configuration, else `default_root`) and the URI mappings
    (flags, then the configuration's for prefixes no flag names), found once for every worker."""
    from schemac.front.resolve.files import default_root

    maps: dict[str, str] = {}
    for item in ref_map:
        uri, sep, folder = item.partition("=")
        if not sep or not uri or not folder:
            raise click.UsageError(f"--ref-map {item!r}: expected URI=DIR")
        maps[uri] = folder
    for uri, path in config.ref_map:
        maps.setdefault(uri, str(path))
    for uri, folder in maps.items():
        if not Path(folder).is_dir():
            raise click.UsageError(f"--ref-map {uri}={folder}: no such folder")
    root = ref_root or config.ref_root or default_root()
    if not Path(root).is_dir():
        raise click.UsageError(f"--ref-root {root}: no such folder")
    return str(Path(root).resolve()), tuple(maps.items())


def _with_codes(config: Config, select: tuple[str, ...], ignore: tuple[str, ...]) -> Config:
    """The configuration with `--select` / `--ignore` (comma-separated, repeatable) in place of its own."""
    from dataclasses import replace

    from schemac.config import parse_codes

    def codes(values: tuple[str, ...]) -> list[str]:
        return [c.strip() for v in values for c in v.split(",") if c.strip()]

    if select:
        config = replace(config, select=parse_codes(codes(select), "--select", ignoring=False))
    if ignore:
        config = replace(config, ignore=parse_codes(codes(ignore), "--ignore"))
    return config


def _show_files(files: Discovery) -> None:
    """Every file found, `check` or `skip` with the reason, in walk order: what a run would read."""
    rows = [("check", f.display, "") for f in files.found] + [("skip", d, why) for d, why in files.left_out]
    for verdict, display, why in rows:
        click.echo(f"{verdict:<5}  {display}" + (f"  ({why})" if why else ""))


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


def _colour() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def report_lines(outcomes: list[Any], options: ReportOptions, skipped: int, out_dir: str | None,
                 colour: bool) -> list[str]:
    from schemac.cli import report, text

    if options.fmt == "json":
        return [json.dumps(report.to_json(outcomes), indent=2, ensure_ascii=False)]
    if options.fmt == "sarif":
        return [json.dumps(report.to_sarif(outcomes), indent=2, ensure_ascii=False)]
    if options.fmt == "github":
        return list(report.github_lines(outcomes))
    style = click.style if colour else text.plain
    return text.render(outcomes, style=style, skipped=skipped, out_dir=out_dir, table=options.show_ok,
                       statistics=options.statistics, quiet=options.quiet)


def emit_report(outcomes: list[Any], options: ReportOptions, skipped: int, out_dir: str | None) -> None:
    """Print the report, or write it (without colour) to `--output-file`."""
    if options.output_file is None:
        for line in report_lines(outcomes, options, skipped, out_dir, _colour()):
            click.echo(line, color=_colour())
        return
    body = "\n".join(report_lines(outcomes, options, skipped, out_dir, False)) + "\n"
    from schemac.files import write_text_atomic

    try:
        write_text_atomic(options.output_file, body)
    except OSError as exc:
        raise click.UsageError(f"--output-file {options.output_file}: cannot write: {exc.strerror or exc}") from exc
