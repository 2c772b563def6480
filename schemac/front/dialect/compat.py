"""Compatibility: a 2020-12 schema's draft-07 `dependencies` keeps its draft-07 meaning.

2020-12 split `dependencies` into `dependentRequired` and `dependentSchemas` and made the old
name an unknown keyword (an annotation). A user who still writes it means the constraint, so
dropping it would silently ignore a constraint; the Test Suite's optional
`dependencies-compatibility` cases expect it enforced. The split is exact, and the rewritten
schema is what both the grammar and final validation see.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import reject
from schemac.schema import Schema, child_pointer, iter_subschemas


def _split(node: dict[str, Any], pointer: str) -> dict[str, Any]:
    deps = node["dependencies"]
    where = child_pointer(pointer, "dependencies")
    if not isinstance(deps, dict):
        raise reject("invalid-schema", where, "`dependencies` must be an object")
    required = dict(node.get("dependentRequired", {}))
    schemas = dict(node.get("dependentSchemas", {}))
    for key, value in deps.items():
        if isinstance(value, list):
            required[key] = list(dict.fromkeys([*required.get(key, []), *value]))
        elif isinstance(value, (dict, bool)):
            schemas[key] = value if key not in schemas else {"allOf": [schemas[key], value]}
        else:
            raise reject("invalid-schema", child_pointer(where, key), "a dependency must be an array of names or a schema")
    out = {k: v for k, v in node.items() if k != "dependencies"}
    if required:
        out["dependentRequired"] = required
    if schemas:
        out["dependentSchemas"] = schemas
    return out


def _has_dependencies(schema: Schema) -> bool:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "dependencies" in node:
                return True
            stack.extend(sub for _, sub in iter_subschemas(node))
    return False


def legacy_dependencies(schema: Schema, keys: frozenset[str] | None = None) -> Schema:
    """`schema` with every `dependencies` (in a schema position) split into its 2020-12 forms.

    Returns `schema` itself (no copy) when there is none, the common case; `keys` (every key in
    the document, from the loader's census) lets a document without the key skip the search.
    """
    if (keys is not None and "dependencies" not in keys) or not _has_dependencies(schema):
        return schema
    root: dict[str, Any] = {"_": schema}
    stack: list[tuple[Any, Any, str]] = [(root, "_", "")]
    while stack:
        parent, key, pointer = stack.pop()
        node = parent[key]
        if not isinstance(node, dict):
            continue
        node = _split(node, pointer) if "dependencies" in node else dict(node)
        parent[key] = node
        copied: set[str] = set()
        for tokens, _sub in iter_subschemas(node):
            kw = tokens[0]
            if len(tokens) == 1:
                stack.append((node, kw, child_pointer(pointer, kw)))
                continue
            if kw not in copied:
                node[kw] = list(node[kw]) if isinstance(node[kw], list) else dict(node[kw])
                copied.add(kw)
            stack.append((node[kw], tokens[1], child_pointer(pointer, *tokens)))
    return root["_"]
