"""The compile pipeline: load → dialect → client options → resolve → regex → formats → lower → emit.

Each stage takes the previous stage's value and returns a new one or raises CompileError; none
reaches back. Results are cached in memory (and on disk when a cache directory is given) by the
sha256 of the canonical schema plus the options that change the output.
"""
from __future__ import annotations

import time
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from schemac import __version__
from schemac.artifact import LLGUIDANCE_VERSION, Artifact, canonical_json, sha256_text
from schemac.budget import Budget, Limits, check_cost
from schemac.cache import DiskCache, MemoryCache
from schemac.client_options import reject_client_options
from schemac.compat import legacy_dependencies
from schemac.diagnostics import CompileError, Diagnostic, DiagnosticSink
from schemac.dialect import DIALECT_2020_12, apply_dialect
from schemac.emit import emit
from schemac.formats import apply_formats
from schemac.load import Census, load_with_census
from schemac.lower import lower_bundle
from schemac.regex import check_patterns
from schemac.resolve import resolve

_MEMORY = MemoryCache()


@lru_cache(maxsize=64)
def _limits_fields(limits: Limits) -> dict[str, Any]:
    return asdict(limits)  # Limits is frozen, so one conversion per distinct value


def _options(upgrade_drafts: bool, strict_formats: bool, limits: Limits) -> dict[str, Any]:
    return {"upgrade_drafts": upgrade_drafts, "strict_formats": strict_formats, "limits": dict(_limits_fields(limits))}


def cache_key(schema: Any, options: dict[str, Any]) -> str:
    return sha256_text(canonical_json({
        "schema": schema, "options": options, "schemac": __version__, "llguidance": LLGUIDANCE_VERSION,
    }))


def _build(schema: Any, options: dict[str, Any], key: str, limits: Limits, census: Census | None = None) -> Artifact:
    started = time.perf_counter()
    budget = Budget(limits)
    sink = DiagnosticSink()
    try:
        keys = census.keys if census is not None else None
        reject_client_options(schema, keys)
        upgraded, source_dialect = apply_dialect(schema, options["upgrade_drafts"], census)
        bundle = resolve(legacy_dependencies(upgraded, keys if upgraded is schema else None), budget)
        bundle = apply_formats(bundle, options["strict_formats"], sink)
        check_patterns(bundle, budget)
        lowered = lower_bundle(bundle, budget, sink)
        check_cost(lowered, limits)  # lowering can merge objects past the bounds the loader checked
        budget.check_deadline("")
        grammar = emit(lowered, limits)
    except CompileError as exc:
        exc.diagnostics = sink.items + exc.diagnostics
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
        diagnostics=list(sink.items),
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
) -> Artifact:
    """Compile `schema` (dict, bool, JSON text or bytes) or raise CompileError with diagnostics.

    `cache_dir` enables the disk cache there (the CLI passes the XDG default); the in-memory LRU
    is used unless `use_cache=False`.
    """
    limits = limits or Limits()
    value, census = load_with_census(schema, limits)
    options = _options(upgrade_drafts, strict_formats, limits)
    key = cache_key(value, options)
    if use_cache:
        hit = _MEMORY.get(key)
        if hit is not None:
            return hit
    disk = DiskCache(cache_dir) if cache_dir is not None and use_cache else None
    artifact = disk.get(key) if disk is not None else None
    if artifact is None:
        artifact = _build(value, options, key, limits, census)
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
