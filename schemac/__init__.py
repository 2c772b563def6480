"""schemac: compile JSON Schema (draft 2020-12) into exact llguidance grammars ahead of time.

Importing this package is cheap: llguidance, RE2, torch and triton load only when a function
that needs them runs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Artifact", "CompileError", "Diagnostic", "Severity", "check", "compile", "__version__"]

if TYPE_CHECKING:
    from schemac.artifact import Artifact
    from schemac.diagnostics import CompileError, Diagnostic, Severity


def compile(schema: Any, **options: Any) -> "Artifact":
    """Compile a schema (dict, bool, or JSON text) into an Artifact; raises CompileError."""
    from schemac.pipeline import compile_schema

    return compile_schema(schema, **options)


def check(schema: Any, **options: Any) -> "list[Diagnostic]":
    """All diagnostics for a schema (errors and warnings); empty when it compiles cleanly."""
    from schemac.pipeline import check_schema

    return check_schema(schema, **options)


def __getattr__(name: str) -> Any:
    if name == "Artifact":
        from schemac.artifact import Artifact

        return Artifact
    if name in ("CompileError", "Diagnostic", "Severity"):
        from schemac import diagnostics

        return getattr(diagnostics, name)
    raise AttributeError(name)
