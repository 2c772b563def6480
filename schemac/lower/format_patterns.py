"""`format` → the exact patterns of what the final validator checks, for every enforced format.

llguidance 1.9.1's format regexes are looser than the validator in places (Feb 29 in any year,
second 60 at any time, no 253-octet host name limit), stricter in others (no quoted email
local parts, no IPv6 with an IPv4 tail), lacks some (`uri-reference`, `iri`, `json-pointer`,
`uri-template`...), and it intersects `format` with any `pattern`, so the `format` itself must
not reach it. Where its regex is exact (`duration`, `ipv4`, `uuid`) a pattern is still
what a later pass can negate (`not`, the exclusive `oneOf`, `if`) and the Lark writer can
intersect with a negated pattern, so no `format` is left for them. `schemac.front.formats` holds the
exact patterns; they go into one shared definition per format (charged to the budget once,
compiled once), referenced from each use (bare where the node holds nothing else but `type`).
Final validation reads the unlowered schema, so it still checks the `format`.
"""
from __future__ import annotations

from typing import Any

from schemac.front.formats import FORMAT_PATTERNS, pattern_form
from schemac.lower.support.context import LowerContext
from schemac.schema import DEF_PREFIX, Schema, child_pointer

#: generated definition names; `:` never occurs in names that `schemac.front.resolve.bundle` gives
DEF_NAME = "format:{}"


def _shared(fmt: str, typed: bool, ctx: LowerContext, max_length: int | None = None) -> dict[str, str]:
    """A `$ref` to the shared definition for `fmt` (with `type: string` when `typed`)."""
    form = pattern_form(fmt, max_length)
    short = form != pattern_form(fmt)
    name = DEF_NAME.format(fmt) + (":short" if short else "") + (":string" if typed else "")
    if name not in ctx.defs.lowered:
        if not any(n.startswith(DEF_NAME.format(fmt) + ":") or n == DEF_NAME.format(fmt) for n in ctx.defs.lowered):
            chars = sum(len(p) for alt in FORMAT_PATTERNS[fmt] for p in alt)
            ctx.budget.reserve("regex_chars", chars, child_pointer(ctx.pointer, "format"))
        ctx.add_definition(name, ctx.lower({"type": "string", **form} if typed else form))  # type: ignore[dict-item]
    return {"$ref": DEF_PREFIX + name}


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    fmt = node.get("format")
    if not isinstance(fmt, str) or pattern_form(fmt) is None:
        return node
    out = {k: v for k, v in node.items() if k != "format"}
    # llguidance shares a bare `$ref` but re-intersects one with siblings at every use (~5 ms
    # each for date-time), so the common shapes become bare references
    types = out.get("type")
    if not out or out == {"type": "string"}:
        return _shared(fmt, bool(out), ctx)
    if len(out) == 1 and isinstance(types, list) and "string" in types:
        others = [t for t in types if t != "string"]
        return {"anyOf": [{"type": others[0] if len(others) == 1 else others}, _shared(fmt, True, ctx)]}
    limit = out.get("maxLength")
    ref = _shared(fmt, False, ctx, int(limit) if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None)
    if "$ref" in out:
        return {**out, "allOf": [*out.get("allOf", ()), ref]}
    return {**out, **ref}
