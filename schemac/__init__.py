"""schemac: compile JSON Schema (draft 2020-12) into exact llguidance grammars ahead of time.

Importing this package is cheap: llguidance, RE2, torch and triton load only when a function
that needs them runs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schemac.version import __version__

__all__ = ["Artifact", "CompileError", "Diagnostic", "Severity", "check", "compile", "verify", "__version__"]

if TYPE_CHECKING:
    import os
    from collections.abc import Mapping

    from schemac.artifact import Artifact
    from schemac.budget import Limits
    from schemac.diagnostics import CompileError, Diagnostic, Severity


def compile(
    schema: Any,
    *,
    upgrade_drafts: bool = False,
    strict_formats: bool = False,
    limits: Limits | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    key_order: str = "schema",
    openapi_formats: bool = True,
    path: str | os.PathLike[str] | None = None,
    ref_root: str | os.PathLike[str] | None = None,
    ref_map: Mapping[str, str | os.PathLike[str]] | None = None,
) -> Artifact:
    """Compile a schema (dict, bool, JSON text or bytes) into an Artifact; raises CompileError.

    upgrade_drafts: translate draft-04/06/07/2019-09 exactly into 2020-12 instead of rejecting.
    strict_formats: an unenforced `format` is an error instead of a dropped annotation.
    limits: the per-schema budget (default `schemac.budget.Limits()`).
    cache_dir: also use the content-addressed disk cache there.
    use_cache: use (and fill) the in-memory LRU and the disk cache.
    key_order: "schema" (listed keys in an order the schema states: that of `properties`, or
    required keys first in the order of `required` where that differs), "properties" (the order
    of `properties` only, as llguidance and OpenAI's structured outputs fix it) or "any"
    (objects with at most 6 listed keys take them in every order).
    openapi_formats: OpenAPI's `int32`, `int64`, `uint32`, `uint64`, `float`, `double` formats
    are their types' ranges (False: annotations, dropped with a warning).
    path: the file the schema was read from; relative `$ref`s (`common.json#/$defs/id`) are read
    from beside it, offline, when inside `ref_root` (default: the git work tree of the working
    folder, else the working folder). ref_map: URI prefix -> folder holding local copies of
    remote documents (`{"https://example.com/schemas/": "vendor/schemas"}`). Anything else
    stays `remote-ref`; the artifact embeds what was read, and its key covers it.
    """
    from schemac.pipeline import compile_schema
    from schemac.front.resolve.files import RefSource

    return compile_schema(schema, upgrade_drafts=upgrade_drafts, strict_formats=strict_formats, limits=limits,
                          cache_dir=cache_dir, use_cache=use_cache, key_order=key_order, openapi_formats=openapi_formats,
                          refs=RefSource.of(path, ref_root, ref_map))


def check(
    schema: Any,
    *,
    upgrade_drafts: bool = False,
    strict_formats: bool = False,
    limits: Limits | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    key_order: str = "schema",
    openapi_formats: bool = True,
    path: str | os.PathLike[str] | None = None,
    ref_root: str | os.PathLike[str] | None = None,
    ref_map: Mapping[str, str | os.PathLike[str]] | None = None,
) -> list[Diagnostic]:
    """All diagnostics for a schema (errors and warnings); empty when it compiles cleanly.
    Never raises for a schema's problems. Options as for `compile`."""
    from schemac.pipeline import check_schema
    from schemac.front.resolve.files import RefSource

    return check_schema(schema, upgrade_drafts=upgrade_drafts, strict_formats=strict_formats, limits=limits,
                        cache_dir=cache_dir, use_cache=use_cache, key_order=key_order, openapi_formats=openapi_formats,
                        refs=RefSource.of(path, ref_root, ref_map))


def __getattr__(name: str) -> Any:
    if name == "Artifact":
        from schemac.artifact import Artifact

        return Artifact
    if name == "verify":  # a callable module: schemac.verify(schema, depth=...) -> VerifyReport
        import schemac.verify

        return schemac.verify
    if name in ("CompileError", "Diagnostic", "Severity"):
        from schemac import diagnostics

        return getattr(diagnostics, name)
    raise AttributeError(name)
