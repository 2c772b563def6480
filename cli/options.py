"""Options shared by `schemac check` and `schemac compile`; flags left unset fall back to the configuration.

`--key-order` is shared wider: verify, explain and conformance take it too, with a fixed default.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click

FORMATS = ("text", "table", "json", "sarif", "github")
#: `schemac.pipeline.KEY_ORDERS`, spelt here so the command line loads no compiler to parse flags
KEY_ORDERS = ("schema", "properties", "any")
_KEY_ORDER_HELP = ("Key order in answers: 'schema' ({default}) accepts an order the schema states, that of "
                   "'properties' or, where it differs, required keys first in the order of 'required' (e.g. a "
                   "reasoning key listed before an answer key in both comes first); 'properties' accepts the order "
                   "of 'properties' only; 'any' accepts every order in objects of at most 6 listed keys.")


def key_order_option(configurable: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--key-order`; when `configurable`, unset (None) so the configuration's key-order applies."""
    if configurable:
        return click.option("--key-order", type=click.Choice(KEY_ORDERS), default=None,
                            help=_KEY_ORDER_HELP.format(default="the default, unless the configuration sets key-order"))
    return click.option("--key-order", type=click.Choice(KEY_ORDERS), default="schema",
                        help=_KEY_ORDER_HELP.format(default="the default"))


def compile_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    decorators = [
        click.argument("paths", nargs=-1),
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
                     help="text: one line per problem, then a summary; table: a row per schema first; "
                          "json (stable), sarif (2.1.0) or github (workflow annotations)."),
        click.option("--show-ok", is_flag=True, help="Print the per-schema table (every schema, OK ones too) first."),
        click.option("--statistics", is_flag=True, help="Count the diagnostics per code instead of listing them."),
        click.option("-q", "--quiet", is_flag=True, help="Print the diagnostic lines only (no hints, no summary)."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when schemas are rejected (usage errors still exit 2)."),
        click.option("--output-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Write the report to this file instead of stdout."),
        click.option("--select", "select", multiple=True, metavar="CODES",
                     help="Report only these diagnostic codes (comma-separated; replaces the configuration's "
                          "'select'): the others are ignored, bar those of a file that is no schema at all."),
        click.option("--ignore", "ignore", multiple=True, metavar="CODES",
                     help="Ignore these diagnostic codes (comma-separated; replaces the configuration's 'ignore'). "
                          "A schema whose only errors are ignored passes check; compile still fails it."),
        click.option("--upgrade-drafts/--no-upgrade-drafts", default=None,
                     help="Translate draft-04/06/07/2019-09 schemas exactly into 2020-12 instead of rejecting them."),
        click.option("--strict-formats/--no-strict-formats", default=None,
                     help="Make formats llguidance does not enforce errors instead of dropped annotations."),
        click.option("--openapi-formats/--no-openapi-formats", default=True, show_default=True,
                     help="Read OpenAPI's int32/int64/uint32/uint64/float/double formats as their exact ranges."),
        key_order_option(configurable=True),
        click.option("--respect-gitignore/--no-respect-gitignore", default=True, show_default=True,
                     help="Skip what .gitignore files ignore when walking folders."),
        click.option("--show-files", is_flag=True,
                     help="List every file found, checked or left out (and why), then exit without compiling."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Artifact cache folder (default: $SCHEMAC_CACHE_DIR or ~/.cache/schemac)."),
        click.option("--no-cache", is_flag=True, help="Compile everything afresh; read and write no cache."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                     help="Worker processes (default: the number of CPUs)."),
        click.option("--ref-root", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Relative $ref files are read only inside this folder (default: the configuration's "
                          "ref-root, else the git work tree, else the working folder)."),
        click.option("--ref-map", multiple=True, metavar="URI=DIR",
                     help="Read documents under the URI prefix from DIR instead (local copies of remote schemas; "
                          "repeatable). Any other URI stays remote-ref: nothing is fetched."),
        click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Configuration file (default: nearest schemac.toml or pyproject.toml [tool.schemac])."),
    ]
    for decorator in reversed(decorators):
        fn = decorator(fn)
    return fn
