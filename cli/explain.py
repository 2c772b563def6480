"""`schemac explain`: what each lowering pass did to each node, the budget used, the grammar size.

The steps come from the lowering walker itself, through its trace hook (`LowerContext.trace`):
every pass that changed a node is recorded, in the order the walker ran it. The authoritative
result (lowered schema, grammar, budget, diagnostics) always comes from the real pipeline.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from schemac.schema import Schema

_SHOWN = 400  # characters of a node shown before and after a pass; --emit prints everything


@dataclass(frozen=True)
class Step:
    """One pass that changed the node at `pointer` (a pointer into the user's document)."""

    pointer: str
    pass_name: str
    before: Schema
    after: Schema


def trace(value: Schema, upgrade_drafts: bool, strict_formats: bool) -> tuple[list[Step], Schema | None, Exception | None]:
    """Run the front end, then the traced lowering of the root and every definition it reaches.

    Returns the steps, the lowered schema (None if a stage rejected) and the CompileError if any.
    """
    from schemac.budget import Budget, Limits
    from schemac.front.client_options import reject_client_options
    from schemac.diagnostics import CompileError, DiagnosticSink
    from schemac.front.dialect.gate import apply_dialect
    from schemac.front.formats import apply_formats
    from schemac.lower import lower_bundle
    from schemac.regex import check_patterns, split_lookahead_patterns
    from schemac.front.resolve.bundle import resolve

    steps: list[Step] = []

    def record(pointer: str, pass_name: str, before: Schema, after: Schema) -> None:
        if after != before:
            steps.append(Step(pointer, pass_name, before, after))

    budget = Budget(Limits())
    sink = DiagnosticSink()
    try:
        reject_client_options(value)
        upgraded, _ = apply_dialect(value, upgrade_drafts)
        bundle = resolve(upgraded, budget)
        bundle = split_lookahead_patterns(apply_formats(bundle, strict_formats, sink))
        check_patterns(bundle.as_schema(), budget)
        lowered = lower_bundle(bundle, budget, sink, record)
    except CompileError as exc:
        return steps, None, exc
    return steps, lowered, None


def _short(node: Schema) -> str:
    text = json.dumps(node, ensure_ascii=False, sort_keys=False)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + f"… ({len(text)} chars)"


def _print_diagnostics(outcome: Any, console: Any) -> None:
    from schemac.cli.text import diagnostic_lines

    for line in diagnostic_lines(outcome):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def run_explain(file: str, text: str | None, pointer: str | None, emit: str | None,
                upgrade_drafts: bool, strict_formats: bool, console: Any, key_order: str) -> int:
    """Print the explanation (or the --emit output); returns the exit code (0 compiled, 1 rejected).

    `key_order` changes only the grammar (emit), never the traced lowering."""
    import click
    from rich.console import Console

    from schemac.cli.runner import Outcome, Task, locate_all, read_source
    from schemac.diagnostics import CompileError
    from schemac.front.load import load
    from schemac.front.locate import Locator
    from schemac.pipeline import compile_schema
    from schemac.front.resolve.files import RefSource

    task = Task(display="<stdin>" if file == "-" else file, path=None if file == "-" else Path(file), text=text)
    locator: Callable[[], Locator] = lambda: Locator({})  # noqa: E731 - until the source is read
    try:
        source, locator = read_source(task)
        artifact = compile_schema(source, upgrade_drafts=upgrade_drafts, strict_formats=strict_formats,
                                  key_order=key_order, use_cache=False, refs=RefSource.of(task.path))
    except CompileError as exc:
        if emit is None:
            _explain_steps(task.display, source_steps(task, upgrade_drafts, strict_formats), pointer, locator(), console)
        else:  # keep stdout for what --emit promised
            console = Console(stderr=True, highlight=False)
        _print_diagnostics(Outcome(task.display, "rejected", locate_all(exc.diagnostics, locator)), console)
        return 1
    if emit is not None:
        click.echo(artifact.grammar if emit == "grammar" else json.dumps(artifact.lowered, indent=2, ensure_ascii=False))
        return 0
    steps = trace(load(source), upgrade_drafts, strict_formats)[0]
    _explain_steps(task.display, steps, pointer, locator(), console)
    for kind, use in artifact.budget.items():
        console.print(f"budget {kind}: {use['used']} of {use['limit']}", highlight=False)
    size = len(artifact.grammar.encode("utf-8"))
    console.print(f"grammar: {size} bytes; compiled in {artifact.compile_ms:.1f} ms", highlight=False)
    _print_diagnostics(Outcome(task.display, "ok", locate_all(artifact.diagnostics, locator)), console)
    return 0


def source_steps(task: Any, upgrade_drafts: bool, strict_formats: bool) -> list[Step]:
    """The steps traced before a rejected schema's failure (none when it does not even load)."""
    from schemac.cli.runner import read_source
    from schemac.diagnostics import CompileError
    from schemac.front.load import load

    try:
        return trace(load(read_source(task)[0]), upgrade_drafts, strict_formats)[0]
    except CompileError:
        return []


def _explain_steps(display: str, steps: list[Step], pointer: str | None, where: Any, console: Any) -> None:
    import click
    from rich.markup import escape

    if pointer is not None:
        if where.positions.get(pointer) is None and not any(s.pointer == pointer for s in steps):
            raise click.UsageError(f"--pointer {pointer!r}: no such node in {display}")
        steps = [s for s in steps if s.pointer == pointer]
    if not steps:
        target = f"the node at {pointer or '/'}" if pointer is not None else "any node"
        console.print(f"no lowering pass changed {escape(target)}", highlight=False)
    for s in steps:
        line, col = where.position(s.pointer) or (1, 1)
        console.print(f"[cyan]{escape(s.pointer or '/')}[/cyan] ({escape(display)}:{line}:{col}) "
                      f"[bold]{s.pass_name}[/bold]", highlight=False, soft_wrap=True)
        console.print(f"    before: {escape(_short(s.before))}", highlight=False, soft_wrap=True)
        console.print(f"    after:  {escape(_short(s.after))}", highlight=False, soft_wrap=True)
