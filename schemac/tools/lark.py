"""Pieces of llguidance Lark text: string literals and `%json` embeddings under the syntax policy.

Every embedded schema carries `schemac.emit.SYNTAX_POLICY` as its `x-guidance` key (llguidance
reads it per `%json`), so an answer or an argument object inside an envelope is written exactly
as a top-level answer would be.
"""
from __future__ import annotations

import json
from typing import Any

from schemac.schema import Schema


def literal(text: str) -> str:
    """A Lark string literal matching exactly `text`."""
    return json.dumps(text, ensure_ascii=False)


def split_defs(lowered: Schema) -> tuple[Schema, dict[str, Any]]:
    """(root without `$defs`, the `$defs`): every `$ref` is `#/$defs/<name>`, so the defs can be
    re-attached at the root of whichever document embeds the root."""
    if isinstance(lowered, dict) and "$defs" in lowered:
        return {k: v for k, v in lowered.items() if k != "$defs"}, dict(lowered["$defs"])
    return lowered, {}


def embed(body: Schema, defs: dict[str, Any]) -> str:
    """`%json {...}` for `body` (a lowered schema, never `false`: emit rejects unsatisfiable
    parts) with `defs` at its root; patterns translated for llguidance exactly as emit does."""
    from schemac.emit import SYNTAX_POLICY, _translated

    doc: dict[str, Any] = {} if body is True else dict(body)  # type: ignore[arg-type]
    if defs:
        doc["$defs"] = defs
    doc = _translated(doc)  # type: ignore[assignment]
    doc["x-guidance"] = SYNTAX_POLICY
    return "%json " + json.dumps(doc, ensure_ascii=True, allow_nan=False)
