"""Formats: keep the ones llguidance enforces, drop the rest as the annotations they are.

Known formats are treated as assertions (the grammar enforces them and so does the final
validator); an unknown format has no validation meaning in 2020-12, so dropping it is exact, but
the user may have relied on it, hence the warning (an error under strict formats).
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import DiagnosticSink, reject
from schemac.schema import Bundle, Schema, child_pointer, iter_subschemas

#: Formats llguidance 1.9.1 enforces (docs/json_schema.md).
ENFORCED_FORMATS: frozenset[str] = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"}
)


def _apply(node: Schema, pointer: str, strict: bool, sink: DiagnosticSink) -> Schema:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = dict(node)
    fmt = out.get("format")
    if "format" in out and fmt not in ENFORCED_FORMATS:
        where = child_pointer(pointer, "format")
        message = f"format {fmt!r} is not enforced by llguidance"
        if strict:
            raise reject("unknown-format", where, message, hint="remove it, or drop --strict-formats")
        sink.warn("unknown-format", where, message + "; dropped (it is an annotation in 2020-12)")
        del out["format"]
    for tokens, sub in iter_subschemas(node):
        kw = tokens[0]
        new = _apply(sub, child_pointer(pointer, *tokens), strict, sink)
        if new is sub:
            continue
        if len(tokens) == 1:
            out[kw] = new
        else:
            container = out[kw]
            if container is node[kw]:
                container = out[kw] = list(container) if isinstance(container, list) else dict(container)
            container[tokens[1]] = new
    return out if out != node else node


def apply_formats(bundle: Bundle, strict: bool, sink: DiagnosticSink) -> Bundle:
    """A bundle whose `format`s are all enforced ones; warnings (or an error) for the others."""
    root = _apply(bundle.root, "", strict, sink)
    defs = {name: _apply(body, bundle.origin.get(name, ""), strict, sink) for name, body in bundle.defs.items()}
    return Bundle(root, defs, dict(bundle.origin))
