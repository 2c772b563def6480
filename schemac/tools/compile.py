"""Compile the answer schema and every function's `parameters` of one request on ONE Budget.

The stages are the pipeline's own (`lower_schema`, `emit_schema`); only the budget differs: a request
with many functions draws on the same expansion and step budget as a single schema would, so
tools cannot multiply the work a request may cost. Diagnostics are relocated to JSON Pointers
into the request body (e.g. `/tools/2/function/parameters/properties/x`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from schemac.budget import Budget, Limits
from schemac.diagnostics import CompileError, Diagnostic, DiagnosticSink, reject
from schemac.emit import Emitted
from schemac.schema import Schema


@dataclass(frozen=True)
class Part:
    """One compiled schema of the request.

    `schema` is the resolved bundle (what final validation reads); `lowered` its lowered form,
    as in Artifact; `written` how emit wrote it alone, so the envelope writes it again with the
    same writer and choices (`Emitted.rules`): the same grammar an answer of that schema gets.
    """

    schema: Schema
    lowered: Schema
    source_dialect: str
    written: Emitted


def relocate(diagnostics: list[Diagnostic], prefix: str) -> list[Diagnostic]:
    return [replace(d, pointer=prefix + d.pointer) for d in diagnostics]


def compile_part(value: Any, pointer: str, options: dict[str, Any], budget: Budget, warnings: list[Diagnostic],
                 key_order: str = "schema") -> Part:
    """Compile one schema of the request under `key_order` or raise CompileError located at `pointer`.

    Runs `emit` on the lowered schema alone, so its checks (pattern translation, llguidance's
    acceptance, unsatisfiable schemas) are reported for this part, not for the whole grammar.
    """
    from schemac.front.load import load
    from schemac.pipeline import emit_schema_written, lower_schema

    limits: Limits = budget.limits
    sink = DiagnosticSink()
    try:
        budget.step("")
        loaded = load(value, limits)
        bundle, lowered, source_dialect = lower_schema(loaded, options, budget, sink)
        written = emit_schema_written(bundle, lowered, budget, key_order, sink)
    except CompileError as exc:
        raise CompileError(relocate(sink.items + exc.diagnostics, pointer)) from exc
    except RecursionError as exc:  # a backstop, as in the pipeline: walkers are bounded
        raise CompileError(relocate(reject("too-large", "", "schema nesting is too deep").diagnostics, pointer)) from exc
    warnings.extend(relocate(sink.items, pointer))
    return Part(bundle.as_schema(), lowered, source_dialect, written)
