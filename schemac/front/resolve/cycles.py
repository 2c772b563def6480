"""Reference cycles that never move to a child instance: refused, since validation would never end.

A bundle's definitions may refer to each other freely as long as every cycle passes through a
property or item; a cycle through in-place applicators only (`allOf`, `not`, `if`, ...) would
make any validator recurse forever on one instance.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import reject
from schemac.schema import DEF_PREFIX, Bundle, Schema

#: applicators that apply to the same instance location: a ref cycle through only these never ends
_IN_PLACE: dict[str, str] = {
    "allOf": "list", "anyOf": "list", "oneOf": "list", "not": "one", "if": "one", "then": "one",
    "else": "one", "dependentSchemas": "map",
}


def _children(node: dict[str, Any], shapes: dict[str, str]) -> list[tuple[tuple[str | int, ...], Schema]]:
    out: list[tuple[tuple[str | int, ...], Schema]] = []
    for kw, value in node.items():
        shape = shapes.get(kw)
        if shape == "one" and isinstance(value, (dict, bool)):
            out.append(((kw,), value))
        elif shape == "list" and isinstance(value, list):
            out.extend(((kw, i), sub) for i, sub in enumerate(value) if isinstance(sub, (dict, bool)))
        elif shape == "map" and isinstance(value, dict):
            out.extend(((kw, k), sub) for k, sub in value.items() if isinstance(sub, (dict, bool)))
    return out


def _in_place_refs(body: Schema) -> list[str]:
    """Definitions `body` applies to its own instance location (through in-place applicators)."""
    out: list[str] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(DEF_PREFIX):
            out.append(ref[len(DEF_PREFIX):])
        stack.extend(sub for _, sub in _children(node, _IN_PLACE))
    return out


def check_progress(bundle: Bundle) -> None:
    """Refuse ref cycles that never move to a child instance: validation would never end."""
    edges = {name: _in_place_refs(body) for name, body in bundle.defs.items()}
    state: dict[str, int] = {}  # 1 on the DFS path, 2 done
    for start in edges:
        if start in state:
            continue
        path: list[str] = [start]
        iters = [iter(edges[start])]
        state[start] = 1
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iters.pop()
            elif state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                where = " -> ".join(bundle.origin[n] or "#" for n in cycle)
                raise reject("unresolvable-ref", bundle.origin[nxt],
                             f"reference cycle without progress ({where}): validation would recurse forever",
                             hint="make the recursion pass through a property or item")
            elif nxt not in state and nxt in edges:
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(edges[nxt]))
