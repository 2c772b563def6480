"""Dialect: only draft 2020-12 compiles; older drafts only through the opt-in exact upgrade.

A nested `$schema` (embedded resource) may not switch dialect either: validation semantics, and
the regex engine behind them, must be the same everywhere in one schema.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import reject
from schemac.front.dialect.uri import DIALECT_2020_12, dialect_of
from schemac.front.load import Census
from schemac.schema import Schema, child_pointer, iter_subschemas
from schemac.front.upgrade.translate import upgrade

__all__ = ["DIALECT_2020_12", "apply_dialect", "dialect_of", "upgrade_needed"]


def _declared(schema: Schema) -> list[tuple[str, Any]]:
    """(pointer, `$schema` value) for the root and every embedded resource, walking schema positions."""
    found: list[tuple[str, Any]] = []
    stack: list[tuple[str, Schema]] = [("", schema)]
    while stack:
        pointer, node = stack.pop()
        if not isinstance(node, dict):
            continue
        if "$schema" in node:
            found.append((pointer, node["$schema"]))
        for tokens, sub in iter_subschemas(node):
            stack.append((child_pointer(pointer, *tokens), sub))
        for old in ("definitions", "dependencies"):
            if isinstance(node.get(old), dict):
                for key, sub in node[old].items():
                    stack.append((child_pointer(pointer, old, key), sub))
        if isinstance(node.get("items"), list):
            for i, sub in enumerate(node["items"]):
                stack.append((child_pointer(pointer, "items", i), sub))
        if isinstance(node.get("additionalItems"), (dict, bool)):
            stack.append((child_pointer(pointer, "additionalItems"), node["additionalItems"]))
    return found


def _declared_from_census(schema: Schema, census: Census | None) -> list[tuple[str, Any]] | None:
    """`_declared`'s answer where the loader's census settles it (no `$schema`, or only the
    root's), else None. The census counts every object holding the key, schema position or not."""
    if census is None:
        return None
    if census.schema_objects == 0:
        return []
    if census.schema_objects == 1 and isinstance(schema, dict) and "$schema" in schema:
        return [("", schema["$schema"])]
    return None


def upgrade_needed(schema: Schema, upgrade_drafts: bool, census: Census | None = None) -> str | None:
    """The dialect to upgrade `schema` from, or None when it is 2020-12 throughout.

    Raises `unsupported-dialect` for an unknown dialect, an embedded resource that switches
    dialect, or an old draft without `upgrade_drafts`: the message says the upgrade is exact.
    """
    declared = _declared_from_census(schema, census)
    if declared is None:
        declared = _declared(schema)
    root_dialect = DIALECT_2020_12
    for pointer, uri in declared:
        name = dialect_of(uri)
        if pointer == "":
            if name is None:
                raise reject(
                    "unsupported-dialect", "/$schema",
                    f"unknown dialect {uri!r}; schemac compiles JSON Schema draft 2020-12",
                )
            root_dialect = name
        elif name != DIALECT_2020_12 and not (upgrade_drafts and name is not None):
            raise reject(
                "unsupported-dialect", child_pointer(pointer, "$schema"),
                f"embedded resource declares {uri!r}; a subschema may not switch dialect"
                + ("; --upgrade-drafts translates it into 2020-12 exactly" if name else ""),
                hint="pass --upgrade-drafts (upgrade_drafts=True)" if name else None,
            )
    if all(dialect_of(uri) == DIALECT_2020_12 for _, uri in declared):
        return None
    if not upgrade_drafts:
        raise reject(
            "unsupported-dialect", "/$schema",
            f"schema declares {root_dialect}; schemac compiles JSON Schema draft 2020-12, and "
            f"--upgrade-drafts translates {root_dialect} into it exactly",
            hint="pass --upgrade-drafts (upgrade_drafts=True), or set upgrade-drafts = true in [tool.schemac]",
        )
    return root_dialect


def apply_dialect(schema: Schema, upgrade_drafts: bool, census: Census | None = None) -> tuple[Schema, str]:
    """Return the schema in 2020-12 form and the dialect it was written in."""
    source = upgrade_needed(schema, upgrade_drafts, census)
    if source is None:
        return schema, DIALECT_2020_12
    return upgrade(schema, source, census=census), source
