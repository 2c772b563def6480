"""Pieces of llguidance Lark text for tool envelopes: string literals, the free-form `%json`
embedding of `strict: false` arguments, and the split of a lowered schema from its definitions.

They come from the emit backend (`schemac.emit`), under exactly the syntax policy of a
top-level answer; answers and strict arguments are written by emit's own writer (`Emitted.rules`).
"""
from __future__ import annotations

from typing import Any

from schemac.emit import embed, literal
from schemac.schema import Schema

__all__ = ["embed", "literal", "split_defs"]


def split_defs(lowered: Schema) -> tuple[Schema, dict[str, Any]]:
    """(root without `$defs`, the `$defs`): every `$ref` is `#/$defs/<name>`, so the defs can be
    re-attached at the root of whichever document embeds the root."""
    if isinstance(lowered, dict) and "$defs" in lowered:
        return {k: v for k, v in lowered.items() if k != "$defs"}, dict(lowered["$defs"])
    return lowered, {}
