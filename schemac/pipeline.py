"""The compile pipeline: load → dialect → client options → resolve → regex → formats → lower → emit.

Each stage takes the previous stage's value and returns a new one or raises CompileError; none
reaches back. Results are cached in memory (and on disk when a cache directory is given) by the
sha256 of the canonical schema plus the options that change the output.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from schemac.version import __version__
from schemac.artifact import LLGUIDANCE_VERSION, Artifact, sha256_text
from schemac.budget import Budget, Limits
from schemac.cache import DiskCache, MemoryCache, Rejection
from schemac.client_options import reject_client_options
from schemac.compat import legacy_dependencies
from schemac.diagnostics import CompileError, Diagnostic, DiagnosticSink
from schemac.dialect import DIALECT_2020_12, apply_dialect, upgrade_needed
from schemac.emit import emit
from schemac.emit.lark_object_free import MAX_FREE_KEYS
from schemac.emit.stated_orders import with_required_orders
from schemac.formats import apply_formats
from schemac.load import Census, document_census, load_with_census
from schemac.lower import lower_bundle
from schemac.metaschema import check_metaschema
from schemac.origins import in_source
from schemac.regex import check_patterns, llguidance_pattern_errors, split_lookahead_patterns
from schemac.resolve import STRIPPED, resolve
from schemac.schema import Bundle, Schema

_MEMORY = MemoryCache()
_DEFAULT_LIMITS = Limits()

#: Stages skipped when the loader's census shows none of their keywords anywhere in the document
#: (each stage would return its input unchanged): a typical schema has no refs, formats or patterns.
REFERENCE_KEYS = frozenset({"$ref", "$dynamicRef"}) | STRIPPED
FORMAT_KEYS = frozenset({"format"})
PATTERN_KEYS = frozenset({"pattern", "patternProperties"})


def _trivial_bundle(document: Any, census: Census | None, limits: Limits) -> Bundle | None:
    """What `resolve` returns for a document with nothing to resolve (no reference, identifier,
    anchor or definitions; at most a root `$schema`, which it strips), else None."""
    if census is None or census.depth > limits.max_depth or not isinstance(document, dict):
        return None
    found = census.keys & REFERENCE_KEYS
    if not found:
        return Bundle(document)
    if found == {"$schema"} and census.schema_objects == 1 and "$schema" in document:
        return Bundle({k: v for k, v in document.items() if k != "$schema"})
    return None


def _absent(keys: frozenset[str] | None, words: frozenset[str]) -> bool:
    return keys is not None and keys.isdisjoint(words)


@lru_cache(maxsize=64)
def _limits_fields(limits: Limits) -> dict[str, Any]:
    return asdict(limits)  # Limits is frozen, so one conversion per distinct value


#: the property-order policies: an order the schema states (the default: `properties`' or
#: `required`'s, `emit.stated_orders`), `properties`' order only (llguidance's), or any order
KEY_ORDERS = ("schema", "properties", "any")


def _options(upgrade_drafts: bool, strict_formats: bool, limits: Limits, key_order: str) -> dict[str, Any]:
    if key_order not in KEY_ORDERS:
        raise ValueError(f"key_order must be one of {', '.join(KEY_ORDERS)}, not {key_order!r}")
    return {"upgrade_drafts": upgrade_drafts, "strict_formats": strict_formats, "limits": dict(_limits_fields(limits)),
            "key_order": key_order}


def _options_text(options: dict[str, Any]) -> str:
    return json.dumps({"options": options, "schemac": __version__, "llguidance": LLGUIDANCE_VERSION},
                      sort_keys=True, separators=(",", ":"))


@lru_cache(maxsize=64)
def _compile_options_text(upgrade_drafts: bool, strict_formats: bool, limits: Limits, key_order: str) -> str:
    return _options_text(_options(upgrade_drafts, strict_formats, limits, key_order))


def _key(schema: Any, options_text: str) -> str:
    """sha256 of the schema plus everything that changes the output (`options_text`).

    Key order is kept, not sorted: answers list `properties` keys in schema order (the default
    syntax policy), so two schemas that differ only in that order compile to different grammars.
    """
    return sha256_text(options_text + "\n" + json.dumps(schema, separators=(",", ":"), ensure_ascii=False,
                                                        allow_nan=False))


def cache_key(schema: Any, options: dict[str, Any]) -> str:
    """The content address of `schema` compiled with `options` (see `_key`)."""
    return _key(schema, _options_text(options))


def lower_schema(schema: Schema, options: dict[str, Any], budget: Budget, sink: DiagnosticSink,
                 census: Census | None = None) -> tuple[Bundle, Schema, str]:
    """(resolved bundle, lowered schema, source dialect) of a loaded schema: every stage before
    emit, on the caller's budget (one per schema, or one per request for tool calls)."""
    limits = budget.limits
    keys = census.keys if census is not None else None
    source = upgrade_needed(schema, options["upgrade_drafts"], census)  # an old draft is no 2020-12 document
    if source != DIALECT_2020_12:  # a 2020-12 root holding old drafts is checked once upgraded
        check_metaschema(schema, source or DIALECT_2020_12)  # no pass ever sees a malformed keyword value
    reject_client_options(schema, keys)
    upgraded, source_dialect = apply_dialect(schema, options["upgrade_drafts"], census)
    if upgraded is not schema:  # the census described the document before the upgrade
        check_metaschema(upgraded)  # pointers are mapped back into the user's document (`in_source`)
        census = document_census(upgraded, limits)
        keys = census.keys if census is not None else None
    document = legacy_dependencies(upgraded, keys)
    bundle = _trivial_bundle(document, census, limits) or resolve(document, budget, upgrade_drafts=options["upgrade_drafts"])
    if not _absent(keys, FORMAT_KEYS):
        bundle = apply_formats(bundle, options["strict_formats"], sink)
    if not _absent(keys, PATTERN_KEYS):
        bundle = split_lookahead_patterns(bundle)  # leading look-aheads as plain patterns, before the check refuses them
        check_patterns(bundle, budget)
    return bundle, lower_bundle(bundle, budget, sink), source_dialect


def emit_schema(bundle: Bundle, lowered: Schema, budget: Budget, key_order: str = "schema",
                sink: DiagnosticSink | None = None) -> str:
    """`emit` on the schema's budget, with a failed grammar check put on the user pattern
    llguidance refuses, if any. A policy that adds orders ("any"; "schema" where a `required`
    states another order than `properties`, `stated_orders`) is tried first; a grammar past
    llguidance's limits (symbols, rule depth, rows, size), the budget or Python's stack is
    written again in the order of `properties`, with a warning: every order of every small
    object can cost ten times the rules of one. (An attempt that spends the whole deadline
    leaves no time to write it again: that schema is refused with `too-large`.)"""
    try:
        if key_order != "properties":
            used = dict(budget.used)
            try:
                # objects "any" writes in one order (past its bound) take the orders "schema" admits too
                wider = with_required_orders(lowered, MAX_FREE_KEYS if key_order == "any" else 0)
                if wider is not lowered or key_order == "any":
                    return emit(wider, budget, key_order)
            except (CompileError, RecursionError) as exc:
                if isinstance(exc, CompileError) and exc.codes not in (["grammar-error"], ["too-large"], ["budget-exhausted"]):
                    raise
                budget.used.update(used)  # the fallback starts from the budget the attempt found
                if sink is not None:
                    why = exc.diagnostics[0].message if isinstance(exc, CompileError) else "nesting too deep"
                    sink.warn("key-order-fallback", "", f"written in the order of `properties`: in the orders "
                              f"key_order=\"{key_order}\" admits, {why}", hint="split the schema, or compile it with key_order=\"properties\"")
        return emit(lowered, budget, "properties")
    except CompileError as exc:
        if exc.codes == ["grammar-error"]:
            located = llguidance_pattern_errors(bundle, budget)
            if located:
                raise CompileError(located) from exc
        raise


def _build(schema: Any, options: dict[str, Any], key: str, limits: Limits, census: Census | None = None) -> Artifact:
    started = time.perf_counter()
    budget = Budget(limits)
    sink = DiagnosticSink()
    try:
        bundle, lowered, source_dialect = lower_schema(schema, options, budget, sink, census)
        budget.step("")
        grammar = emit_schema(bundle, lowered, budget, options["key_order"], sink)
    except CompileError as exc:
        exc.diagnostics = in_source(schema, options["upgrade_drafts"], sink.items + exc.diagnostics)
        raise
    except RecursionError as exc:  # a backstop: walkers are bounded, this must not escape
        from schemac.diagnostics import reject

        raise reject("too-large", "", "schema nesting is too deep") from exc
    return Artifact(
        key=key,
        dialect=DIALECT_2020_12,
        source_dialect=source_dialect,
        schema=bundle.as_schema(),
        lowered=lowered,
        grammar=grammar,
        options=options,
        diagnostics=in_source(schema, options["upgrade_drafts"], list(sink.items)),
        budget=budget.report(),
        compile_ms=(time.perf_counter() - started) * 1000.0,
    )


def compile_schema(
    schema: Any,
    *,
    upgrade_drafts: bool = False,
    strict_formats: bool = False,
    limits: Limits | None = None,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    key_order: str = "schema",
) -> Artifact:
    """Compile `schema` (dict, bool, JSON text or bytes) or raise CompileError with diagnostics.

    `key_order` is the property-order policy (`KEY_ORDERS`). `cache_dir` enables the disk cache there (the CLI passes the XDG default); the in-memory LRU
    is used unless `use_cache=False`. Both keep deterministic rejections as well (`cache.Rejection`):
    the same CompileError is raised again without compiling.
    """
    limits = limits or _DEFAULT_LIMITS
    value, census = load_with_census(schema, limits)
    options = _options(upgrade_drafts, strict_formats, limits, key_order)
    key = _key(value, _compile_options_text(upgrade_drafts, strict_formats, limits, key_order))
    disk = DiskCache(cache_dir) if cache_dir is not None and use_cache else None
    if use_cache:
        hit = _MEMORY.get(key)
        if isinstance(hit, Rejection):
            if disk is not None and disk.get_rejection(key) is None:
                disk.put_rejection(hit)
            raise CompileError(list(hit.diagnostics))
        if hit is not None:
            if disk is not None and not disk.holds(key):  # a cache_dir given later still gets it
                disk.put(hit)
            return hit
    artifact = disk.get(key) if disk is not None else None
    if artifact is None:
        refused = disk.get_rejection(key) if disk is not None else None
        if refused is None:
            try:
                artifact = _build(value, options, key, limits, census)
            except CompileError as exc:
                if use_cache and Rejection.cacheable(exc.diagnostics):
                    refused = Rejection(key, tuple(exc.diagnostics))
                    _MEMORY.put(refused, sum(len(d.message) for d in refused.diagnostics) + 256)
                    if disk is not None:
                        disk.put_rejection(refused)
                raise
        else:
            if use_cache:
                _MEMORY.put(refused, sum(len(d.message) for d in refused.diagnostics) + 256)
            raise CompileError(list(refused.diagnostics))
        if disk is not None:
            disk.put(artifact)
    if use_cache:
        _MEMORY.put(artifact, len(artifact.grammar) * 2)
    return artifact


def check_schema(schema: Any, **options: Any) -> list[Diagnostic]:
    """Every diagnostic for `schema`: warnings when it compiles, warnings and errors when not."""
    try:
        return list(compile_schema(schema, **options).diagnostics)
    except CompileError as exc:
        return list(exc.diagnostics)
