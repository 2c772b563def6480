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
from urllib.parse import urldefrag
from pathlib import Path
from typing import Any

from schemac.version import __version__
from schemac.artifact import LLGUIDANCE_VERSION, Artifact, sha256_text
from schemac.budget import Budget, Limits
from schemac.cache import DiskCache, MemoryCache, Rejection
from schemac.front.client_options import reject_client_options
from schemac.front.dialect.compat import legacy_dependencies
from schemac.diagnostics import CompileError, Diagnostic, DiagnosticSink
from schemac.front.dialect.gate import DIALECT_2020_12, apply_dialect, dialect_of, upgrade_needed
from schemac.emit import Emitted, emit_written
from schemac.front.formats import apply_formats
from schemac.front.load import Census, document_census, load_with_census
from schemac.lower import lower_bundle
from schemac.front.metaschema.check import check_metaschema
from schemac.front.origins import in_source
from schemac.regex import check_patterns, llguidance_pattern_errors, split_lookahead_patterns
from schemac.regex.check import unicode_version_of
from schemac.regex.properties import UNICODE_VERSION
from schemac.front.resolve.files import Documents, RefSource, gather
from schemac.front.resolve.bundle import PLACEHOLDER_BASE, STRIPPED, resolve
from schemac.schema import Bundle, Schema
from schemac.front.dialect.vocabulary import dialect_from, in_2020_12

_MEMORY = MemoryCache()
_DEFAULT_LIMITS = Limits()

#: Stages skipped when the loader's census shows none of their keywords anywhere in the document
#: (each stage would return its input unchanged): a typical schema has no refs, formats or patterns.
REFERENCE_KEYS = frozenset({"$ref", "$dynamicRef"}) | STRIPPED
FORMAT_KEYS = frozenset({"format"})
PATTERN_KEYS = frozenset({"pattern", "patternProperties"})
#: where `resolve` puts documents that are not the user's (read files, bundled metaschemas)
EMBEDDED = "/$defs/schemac:"


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
#: `required`'s, `lower.stated_orders`), `properties`' order only (llguidance's), or any order
KEY_ORDERS = ("schema", "properties", "any")


def _options(upgrade_drafts: bool, strict_formats: bool, limits: Limits, key_order: str,
             openapi_formats: bool = True) -> dict[str, Any]:
    if key_order not in KEY_ORDERS:
        raise ValueError(f"key_order must be one of {', '.join(KEY_ORDERS)}, not {key_order!r}")
    return {"upgrade_drafts": upgrade_drafts, "strict_formats": strict_formats, "limits": dict(_limits_fields(limits)),
            "key_order": key_order, "openapi_formats": openapi_formats}


def _options_text(options: dict[str, Any]) -> str:
    return json.dumps({"options": options, "schemac": __version__, "llguidance": LLGUIDANCE_VERSION,
                       "unicode": UNICODE_VERSION},  # `\p{..}` ranges: this Python's Unicode tables
                      sort_keys=True, separators=(",", ":"))


@lru_cache(maxsize=64)
def _compile_options_text(upgrade_drafts: bool, strict_formats: bool, limits: Limits, key_order: str,
                          openapi_formats: bool) -> str:
    return _options_text(_options(upgrade_drafts, strict_formats, limits, key_order, openapi_formats))


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
                 census: Census | None = None, documents: Documents | None = None) -> tuple[Bundle, Schema, str]:
    """(resolved bundle, lowered schema, source dialect) of a loaded schema: every stage before
    emit, on the caller's budget (one per schema, or one per request for tool calls).
    `documents`: the documents its references read (`gather_documents`)."""
    limits = budget.limits
    keys = census.keys if census is not None else None
    schema, format_assertion = custom_dialect(schema, documents)
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
    bundle = _trivial_bundle(document, census, limits) or resolve(
        document, budget, documents.source.base if documents else None, options["upgrade_drafts"], documents)
    if keys is not None and any(p.startswith(EMBEDDED) for p in bundle.origin.values()):
        keys = None  # read documents and bundled metaschemas bring keywords the census never saw
    if not _absent(keys, FORMAT_KEYS):
        bundle = apply_formats(bundle, options["strict_formats"] or format_assertion, sink, options.get("openapi_formats", True))
    if not _absent(keys, PATTERN_KEYS):
        bundle = split_lookahead_patterns(bundle)  # leading look-aheads as plain patterns, before the check refuses them
        check_patterns(bundle, budget)
    return bundle, lower_bundle(bundle, budget, sink), source_dialect


def emit_schema(bundle: Bundle, lowered: Schema, budget: Budget, key_order: str = "schema",
                sink: DiagnosticSink | None = None) -> str:
    """The grammar `emit_schema_written` writes."""
    return emit_schema_written(bundle, lowered, budget, key_order, sink).grammar


def emit_schema_written(bundle: Bundle, lowered: Schema, budget: Budget, key_order: str = "schema",
                        sink: DiagnosticSink | None = None) -> Emitted:
    """`emit_written` (which owns the key-order fallback and the unsatisfiable recheck) on the
    schema's budget, with a failed grammar check put on the user pattern llguidance refuses, if any."""
    try:
        return emit_written(lowered, budget, key_order, sink)
    except CompileError as exc:
        if exc.codes == ["grammar-error"]:
            located = llguidance_pattern_errors(bundle, budget)
            if located:
                raise CompileError(located) from exc
        raise


def custom_dialect(schema: Schema, documents: Documents | None) -> tuple[Schema, bool]:
    """`schema` read as plain 2020-12 when its `$schema` names a custom 2020-12 dialect whose
    metaschema was read (`schemac.front.dialect.vocabulary`), and whether `format` asserts there."""
    uri = schema.get("$schema") if isinstance(schema, dict) else None
    meta = documents.dialects.get(urldefrag(uri)[0]) if documents is not None and isinstance(uri, str) else None
    if meta is None:
        return schema, False
    dialect = dialect_from(uri, meta)
    return in_2020_12(schema, dialect), dialect.format_assertion


def gather_documents(value: Any, census: Census | None, refs: RefSource | None, limits: Limits) -> Documents | None:
    """The documents `value`'s references (and its custom dialect's metaschema) read through `refs`."""
    if refs is None or not isinstance(value, dict):
        return None
    meta = value.get("$schema")
    if census is not None and census.keys.isdisjoint({"$ref", "$dynamicRef"}) and \
            not (isinstance(meta, str) and dialect_of(meta) is None):
        return None  # nothing to read: no reference, and no custom dialect
    return gather(value, refs, limits, refs.base or PLACEHOLDER_BASE)


def _placed(diagnostics: list[Diagnostic], documents: Documents | None) -> list[Diagnostic]:
    return documents.relocated(diagnostics) if documents is not None and documents.placed else diagnostics


def _build(schema: Any, options: dict[str, Any], key: str, limits: Limits, census: Census | None = None,
           documents: Documents | None = None) -> Artifact:
    started = time.perf_counter()
    budget = Budget(limits)
    sink = DiagnosticSink()
    try:
        bundle, lowered, source_dialect = lower_schema(schema, options, budget, sink, census, documents)
        budget.step("")
        grammar = emit_schema(bundle, lowered, budget, options["key_order"], sink)
    except CompileError as exc:
        exc.diagnostics = in_source(schema, options["upgrade_drafts"], _placed(sink.items + exc.diagnostics, documents))
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
        diagnostics=in_source(schema, options["upgrade_drafts"], _placed(list(sink.items), documents)),
        budget=budget.report(),
        compile_ms=(time.perf_counter() - started) * 1000.0,
        unicode_version=unicode_version_of(bundle, lowered),
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
    openapi_formats: bool = True,
    refs: RefSource | None = None,
) -> Artifact:
    """Compile `schema` (dict, bool, JSON text or bytes) or raise CompileError with diagnostics.

    `key_order` is the property-order policy (`KEY_ORDERS`). `cache_dir` enables the disk cache there (the CLI passes the XDG default); the in-memory LRU
    is used unless `use_cache=False`. `refs` says which referenced documents may be read (local
    files, mapped remote URIs); the key covers their content.
    Both keep deterministic rejections as well (`cache.Rejection`):
    the same CompileError is raised again without compiling.
    """
    limits = limits or _DEFAULT_LIMITS
    value, census = load_with_census(schema, limits)
    options = _options(upgrade_drafts, strict_formats, limits, key_order, openapi_formats)
    documents = gather_documents(value, census, refs, limits)
    extra = documents.key_text() if documents is not None else ""
    key = _key(value, _compile_options_text(upgrade_drafts, strict_formats, limits, key_order, openapi_formats) + (extra and "\n" + extra))
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
                artifact = _build(value, options, key, limits, census, documents)
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
