"""`schemac verify SCHEMA [--depth N]`: bounded-exhaustive check of one schema's grammar.

Walks every text the compiled grammar admits within N alphabet tokens and checks each against
final validation; checks canonical valid instances the other way (see `schemac.verify`).
Exit codes: 0 nothing unsound, refused or disputed was found (a schema the compiler rejects for
what it cannot lower is sound: it admits nothing), 1 a counterexample was found, 2 usage error or
a file that is not a schema at all (not JSON, ambiguous literals, metaschema violations): there
is nothing to verify, and a CI gate must not pass it.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from schemac.cli.options import key_order_option


@click.command("verify")
@click.argument("schema_file", type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@click.option("--depth", type=click.IntRange(min=0, max=12), default=5, show_default=True,
              help="Walk every admitted text of at most this many alphabet tokens.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=200_000, show_default=True,
              help="Stop the walk after this many prefixes (the report says it was cut).")
@click.option("--time", "time_s", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Stop the walk after this many seconds (the report says it was cut).")
@click.option("--cross-check/--no-cross-check", default=False,
              help="Also judge every text with plain jsonschema (exact numbers, ECMA patterns).")
@click.option("--upgrade-drafts/--no-upgrade-drafts", default=False,
              help="Rewrite draft-04/06/07/2019-09 schemas to 2020-12 instead of rejecting them.")
@click.option("--strict-formats/--no-strict-formats", default=False,
              help="Make formats llguidance does not enforce errors instead of dropped annotations.")
@key_order_option()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify(schema_file: Path, depth: int, max_nodes: int, time_s: float, cross_check: bool,
           upgrade_drafts: bool, strict_formats: bool, key_order: str, as_json: bool) -> None:
    """Verify SCHEMA's grammar against final validation, exhaustively up to --depth."""
    from schemac.cli.runner import Outcome, Task, locate_all, read_source
    from schemac.cli.text import diagnostic_lines
    from schemac.verify import verify as run_verify

    task = Task(display=str(schema_file), path=None if str(schema_file) == "-" else schema_file,
                text=sys.stdin.read() if str(schema_file) == "-" else None)
    source, locator = read_source(task)
    report = run_verify(source, depth=depth, max_nodes=max_nodes, time_s=time_s, cross_check=cross_check,
                        upgrade_drafts=upgrade_drafts, strict_formats=strict_formats, key_order=key_order,
                        path=task.path)
    if as_json:
        click.echo(json.dumps(_as_json(report), ensure_ascii=False, indent=1))
    else:
        click.echo(f"{task.display}: {report.summary()}")
        if report.status == "rejected":
            for line in diagnostic_lines(Outcome(task.display, "rejected", locate_all(report.diagnostics, locator))):
                click.echo(line)
        for c in [c for kind in ("unsound", "refused", "disagreement") for c in report.first(kind)]:
            click.echo(f"  {c.kind}: {json.dumps(c.text, ensure_ascii=False)}  {c.detail}")
        for text in report.dead_ends:
            click.echo(f"  dead end: the grammar admits {json.dumps(text, ensure_ascii=False)}, and no answer the schema "
                       "accepts follows it (llguidance allows only EOS there, or on every way on)")
    if report.status == "rejected" and {d.code for d in report.diagnostics} & _NOT_A_SCHEMA:
        sys.exit(2)
    sys.exit(0 if report.ok else 1)


#: Rejections that mean the file is not a (valid, unambiguous) schema rather than a limit of lowering.
_NOT_A_SCHEMA = frozenset({"invalid-json", "duplicate-key", "invalid-number", "invalid-schema"})


def _as_json(report: Any) -> dict[str, Any]:
    from dataclasses import asdict

    out = asdict(report)
    out["ok"] = report.ok
    out["diagnostics"] = [d.to_json() for d in report.diagnostics]
    return out
