"""Compile options belong to the server: a schema may not carry llguidance's `x-guidance`.

`lenient` and `coerce_one_of` would silently drop constraints, and separator/whitespace options
would change the syntax policy that artifacts and final validation rely on.
"""
from __future__ import annotations

from schemac.diagnostics import reject
from schemac.schema import Schema, child_pointer, iter_subschemas


def reject_client_options(schema: Schema, keys: frozenset[str] | None = None) -> None:
    """Reject any `x-guidance` in a schema position; `keys` (every key in the document, from the
    loader's census) lets a document without one skip the walk."""
    if keys is not None and "x-guidance" not in keys:
        return
    stack: list[tuple[str, Schema]] = [("", schema)]
    while stack:
        pointer, node = stack.pop()
        if not isinstance(node, dict):
            continue
        if "x-guidance" in node:
            raise reject(
                "client-options", child_pointer(pointer, "x-guidance"),
                "`x-guidance` options (lenient, coerce_one_of, separators, whitespace) are set by "
                "the server, never by the schema",
                hint="remove `x-guidance`; schemac always compiles in llguidance strict mode",
            )
        for tokens, sub in iter_subschemas(node):
            stack.append((child_pointer(pointer, *tokens), sub))
