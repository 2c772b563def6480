"""Diagnostics point into the user's document, whatever the document was rewritten into.

Three stages rewrite the document before the passes see it: the opt-in draft upgrade
(`definitions` → `$defs`, array `items` → `prefixItems`, `dependencies` → `dependent*`, draft-04
boolean bounds, `id` → `$id`, `$recursiveRef`, ...), the 2020-12 compatibility split of a
legacy `dependencies` (`schemac.front.dialect.compat`) and the split of a `pattern` of leading look-aheads into
`allOf` members appended to its node (`schemac.regex.lookahead`). A diagnostic raised after them
carries a pointer into the rewritten document; `in_source` maps it back. The work happens only
for schemas that have diagnostics, and replays the rewrites (cheap next to a compile) instead of
making every compile carry a map.

A pointer maps through the deepest rewritten node that holds it (each schema node's source is
recorded by the upgrade walk, and each renamed keyword or value); the rest of the pointer was
copied verbatim. Where it ends in something the rewrite generated (a `not: {not: ...}` guard, a
split `allOf`), the pointer is cut back to the deepest node the user wrote; into the members a
look-ahead split appended, it goes to the `pattern` they stand for.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from schemac.front.client_options import reject_client_options
from schemac.front.dialect.compat import legacy_dependencies
from schemac.diagnostics import CompileError, Diagnostic
from schemac.front.dialect.gate import upgrade_needed
from schemac.regex.lookahead import lookahead_member
from schemac.schema import child_pointer, pointer_child, pointer_tokens
from schemac.front.upgrade.translate import upgrade_walk

_DEPENDENT = ("dependentRequired", "dependentSchemas")


def deepest_existing(document: Any, pointer: str) -> str:
    """`pointer` cut back to the deepest node that exists in `document`."""
    out = ""
    node = document
    for token in pointer_tokens(pointer):
        found, node = pointer_child(node, token)
        if not found:
            break
        out = child_pointer(out, token)
    return out


def _through_map(back: dict[str, str], pointer: str) -> str:
    """Map `pointer` through the deepest prefix that `back` (output → source pointer) knows."""
    tokens = pointer_tokens(pointer)
    for cut in range(len(tokens), -1, -1):
        prefix = "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens[:cut])
        if prefix in back:
            return child_pointer(back[prefix], *tokens[cut:])
    return pointer


def _lookahead_source(document: Any, pointer: str) -> str:
    """Undo `schemac.regex.lookahead.split_lookahead_patterns` in `document` (the one it ran on):
    a pointer into an `allOf` member it appended becomes the `pattern` the member stands for."""
    tokens = pointer_tokens(pointer)
    node = document
    for i, token in enumerate(tokens):
        if lookahead_member(node, tokens[i:]):
            return child_pointer("", *tokens[:i], "pattern")
        found, node = pointer_child(node, token)
        if not found:
            break
    return pointer


def _compat_source(document: Any, pointer: str) -> str:
    """Undo `schemac.front.dialect.compat.legacy_dependencies`: a `dependentRequired`/`dependentSchemas` entry
    the document wrote under `dependencies` maps back there (a name in both was merged: the
    merged `allOf`'s second member is the `dependencies` one)."""
    tokens = pointer_tokens(pointer)
    out: list[str] = []
    node = document
    i = 0
    while i < len(tokens):
        token = tokens[i]
        legacy = node.get("dependencies") if isinstance(node, dict) else None
        if token in _DEPENDENT and i + 1 < len(tokens) and isinstance(legacy, dict) and tokens[i + 1] in legacy:
            name = tokens[i + 1]
            own = node.get(token)
            if not (isinstance(own, dict) and name in own):
                out += ["dependencies", name]
                node, i = legacy[name], i + 2
                continue
            if token == "dependentSchemas" and tokens[i + 2:i + 4] in (["allOf", "0"], ["allOf", "1"]):
                first = tokens[i + 3] == "0"
                out += [token, name] if first else ["dependencies", name]
                node, i = (own[name] if first else legacy[name]), i + 4
                continue
        found, node = pointer_child(node, token)
        if not found:
            break
        out.append(token)
        i += 1
    return child_pointer("", *out)


def in_source(schema: Any, upgrade_drafts: bool, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` raised on the rewritten form of `schema` (the loaded document), with every
    pointer moved into `schema` itself.

    Replays the stages up to the rewrites: when one of them fails, the diagnostics came from it
    and already point into the document, so they are returned as they are.
    """
    if not diagnostics or not isinstance(schema, dict):
        return diagnostics
    try:
        reject_client_options(schema, None)
        source_dialect = upgrade_needed(schema, upgrade_drafts)
        if source_dialect is None:
            upgraded: Any = schema
            back: dict[str, str] = {}
        else:
            upgraded, walker = upgrade_walk(schema, source_dialect)
            back = {out: src for src, (out, *_rest) in walker.placed.items()}
            back.update(walker.moved)
        rewritten = legacy_dependencies(upgraded)
    except CompileError:
        return diagnostics
    if upgraded is schema and rewritten is schema:
        return [d if d.line is not None else replace(d, pointer=_lookahead_source(schema, d.pointer)) for d in diagnostics]

    def source(pointer: str) -> str:
        pointer = _lookahead_source(rewritten, pointer)
        if rewritten is not upgraded:
            pointer = _compat_source(upgraded, pointer)
        if upgraded is not schema:
            pointer = _through_map(back, pointer)
        return deepest_existing(schema, pointer)

    return [d if d.line is not None else replace(d, pointer=source(d.pointer)) for d in diagnostics]
