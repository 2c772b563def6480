"""Opt-in translation of draft-04/06/07/2019-09 schemas into an exactly equivalent 2020-12 schema.

The rest of schemac speaks 2020-12 only, so older dialects are rewritten once, up front, rather
than taught to every pass. Exactness is judged against the old dialect's own semantics (as the
`jsonschema` validators implement them): keywords the old dialect ignores are dropped, keywords
whose meaning changed are rewritten, and every `$ref` is re-aimed at where its target landed.

Targets of a JSON-Pointer `$ref` may sit where the translation drops or moves things (beside an
old-draft `$ref`, an ignored `additionalItems`, an unknown keyword); such a target is translated
on its own and kept reachable under a `$defs` entry, where it has no validation effect.

The walk is iterative (an explicit job stack), so depth is bounded by `Limits.max_depth` and
reported as `too-large`, never by Python's recursion limit.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urldefrag

from schemac.budget import Limits
from schemac.diagnostics import reject
from schemac.front.dialect.uri import dialect_of
from schemac.front.load import Census
from schemac.schema import Schema, child_pointer, fresh_name
from schemac.front.upgrade.keywords import OLD_DIALECTS, TARGET_DIALECT, TARGET_URI
from schemac.front.upgrade.walk import Upgrader

__all__ = ["OLD_DIALECTS", "TARGET_DIALECT", "TARGET_URI", "dialect_of", "upgrade", "upgrade_walk"]


#: keys whose values `_scan` collects as names in use
_NAMING_KEYS = frozenset({"$anchor", "$dynamicAnchor", "$id", "id"})


def _scan(schema: Schema, limits: Limits) -> tuple[set[str], bool]:
    """Anchor-like names in use and whether `unevaluatedItems` occurs anywhere; rejects a
    document nested deeper than `limits.max_depth` (JSON levels) before anything else runs."""
    names: set[str] = set()
    has_unevaluated = False
    todo: list[tuple[Any, int]] = [(schema, 0)]
    while todo:
        node, depth = todo.pop()
        if depth > limits.max_depth:
            ptr = _deep_pointer(schema, limits.max_depth)
            raise reject("too-large", ptr, f"the schema nests deeper than {limits.max_depth} levels")
        if isinstance(node, dict):
            has_unevaluated = has_unevaluated or "unevaluatedItems" in node
            for kw in ("$anchor", "$dynamicAnchor", "$id", "id"):
                if isinstance(node.get(kw), str):
                    names.add(node[kw] if kw.endswith("nchor") else urldefrag(node[kw])[1])
            todo.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            todo.extend((v, depth + 1) for v in node)
    return names, has_unevaluated


def _deep_pointer(schema: Schema, max_depth: int) -> str:
    """The pointer of a value nested deeper than `max_depth`: built only on that rare rejection,
    so the common scan carries no pointer strings."""
    todo: list[tuple[Any, str, int]] = [(schema, "", 0)]
    while todo:
        node, ptr, depth = todo.pop()
        if depth > max_depth:
            return ptr
        if isinstance(node, dict):
            todo.extend((v, child_pointer(ptr, k), depth + 1) for k, v in node.items())
        elif isinstance(node, list):
            todo.extend((v, child_pointer(ptr, i), depth + 1) for i, v in enumerate(node))
    return ""


def upgrade(schema: Schema, dialect: str, limits: Limits | None = None, census: Census | None = None,
            anchor: str = "meta") -> Schema:
    """Return a new 2020-12 schema that accepts exactly what `schema` accepts under `dialect`.

    The input is never modified. Raises `CompileError` (`too-large`, `invalid-schema`,
    `unsupported-dialect`, `unresolvable-ref`, `dynamic-ref`) where no exact translation exists.
    `anchor` is the preferred `$dynamicAnchor` name for `$recursiveAnchor` (made fresh against the
    document's names): a document embedded in another passes one fresh against that one too.
    """
    return upgrade_walk(schema, dialect, limits, census, anchor)[0]


def upgrade_walk(schema: Schema, dialect: str, limits: Limits | None = None,
                 census: Census | None = None, anchor: str = "meta") -> tuple[Schema, Upgrader]:
    """`upgrade`, with the walk that made it: its `placed` and `moved` maps lead from each
    output pointer back to the source (see `schemac.front.origins`)."""
    if dialect not in OLD_DIALECTS and dialect != TARGET_DIALECT:
        raise reject("unsupported-dialect", "", f"cannot upgrade from dialect {dialect!r}")
    if not isinstance(schema, (dict, bool)):
        raise reject("invalid-schema", "", "a schema must be an object or a boolean")
    limits = limits or Limits()
    if census is not None and census.depth <= limits.max_depth and (
            "$recursiveAnchor" not in census.keys or census.keys.isdisjoint(_NAMING_KEYS)):
        # `_scan`'s depth check passes; its names only keep the anchor name that a
        # `$recursiveAnchor` needs clear of the document's own
        names, has_unevaluated = set(), "unevaluatedItems" in census.keys
    else:
        names, has_unevaluated = _scan(schema, limits)
    walker = Upgrader(schema, dialect, fresh_name(dict.fromkeys(names), anchor), has_unevaluated)
    return walker.run(), walker
