"""Definitions no finite JSON value satisfies: every instance would hold a smaller one of itself.

`{"type": "array", "prefixItems": [{"$ref": "#"}], "minItems": 1}` (an array whose first item
is such an array) has no instance, yet llguidance accepts its grammar and then fails mid-answer,
searching for a way out of the recursion. Each `$ref` to such a definition is replaced by
`false`, which is exact (it has no instance): branches through one drop out, and a schema that
needs one is `unsatisfiable` before generation.

The analysis only proves what holds for every instance, so it never removes a definition that
has one: a definition is unproductive when it needs, in every instance, a proper descendant that
satisfies a definition which in turn needs it (a cycle with a step down), is `false` itself (a
lowering proved it empty: llguidance's JSON compiler refuses a `$ref` to it even in an `anyOf`
branch), or needs an unproductive definition.
"""
from __future__ import annotations

from typing import Any

from schemac.lower.support.marks import MARK, WITNESS
from schemac.schema import SUBSCHEMA_KEYWORDS, Schema, ref_name

#: definition -> whether every instance needs it at a proper descendant (True) or possibly in place
Needs = dict[str, bool]
_MAX_DEPTH = 200  # deeper nodes need nothing as far as this analysis knows (a sound answer)


def _add(out: Needs, more: Needs, descended: bool) -> None:
    for name, down in more.items():
        out[name] = out.get(name, False) or down or descended


def _kind(node: dict[str, Any], known: str | None) -> str | None:
    """"array" or "object" when `node` (or, via `known`, a node at the same location) allows only that type."""
    t = node.get("type")
    for kind in ("array", "object"):
        if t == kind or t == [kind]:
            return kind
    return known


def _needs(node: Schema, depth: int = 0, known: str | None = None) -> Needs:
    """The definitions every instance of `node` must (somewhere inside it) satisfy; `known` is
    the one type an enclosing node at the same location allows, if any."""
    out: Needs = {}
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return out
    kind = _kind(node, known)
    name = ref_name(node)
    if name is not None:
        out[name] = False
    members = node.get("allOf")
    if isinstance(members, list):
        for m in members:
            _add(out, _needs(m, depth + 1, kind), False)
    for branches in _branches(node):
        if branches:
            common = _needs(branches[0], depth + 1, kind)
            for b in branches[1:]:
                other = _needs(b, depth + 1, kind)
                common = {n: d and other[n] for n, d in common.items() if n in other}
            _add(out, common, False)
    if kind == "array":
        if "contains" in node and node.get("minContains", 1) != 0:  # some item matches it
            _add(out, _needs(node["contains"], depth + 1), True)
        prefix, least = node.get("prefixItems", []), _least_items(node, depth)
        if isinstance(prefix, list):
            for item in prefix[:least]:
                _add(out, _needs(item, depth + 1), True)
            if least > len(prefix) and "items" in node:
                _add(out, _needs(node["items"], depth + 1), True)
    if kind == "object":
        for witness in node.get(WITNESS, ()):  # some entry's value satisfies it
            _add(out, _needs(witness["value"], depth + 1), True)
        props = node.get("properties")
        if isinstance(props, dict):
            for key in _required(node, depth):
                if key in props:
                    _add(out, _needs(props[key], depth + 1), True)
    return out


def _branches(node: dict[str, Any]) -> list[list[Schema]]:
    """Each `anyOf`/`oneOf` of `node` as its satisfiable-looking branches (`false` left out)."""
    found = [node.get(key) for key in ("anyOf", "oneOf")]
    return [[b for b in branches if b is not False] for branches in found if isinstance(branches, list)]


def _least_items(node: Schema, depth: int) -> int:
    """A lower bound on the length of every array instance of `node` (its `allOf` members and
    every branch of an `anyOf`/`oneOf` at the same location count too)."""
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return 0
    least = node.get("minItems", 0)
    least = least if isinstance(least, int) and not isinstance(least, bool) else 0
    if "contains" in node and node.get("minContains", 1) != 0:
        least = max(least, 1)
    members = node.get("allOf")
    for m in members if isinstance(members, list) else ():
        least = max(least, _least_items(m, depth + 1))
    for branches in _branches(node):
        if branches:
            least = max(least, min(_least_items(b, depth + 1) for b in branches))
    return least


def _required(node: Schema, depth: int) -> set[str]:
    """Keys every object instance of `node` has (`allOf` members and every branch count too)."""
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return set()
    own = node.get("required")
    keys = {k for k in own if isinstance(k, str)} if isinstance(own, list) else set()
    members = node.get("allOf")
    for m in members if isinstance(members, list) else ():
        keys |= _required(m, depth + 1)
    for branches in _branches(node):
        if branches:
            keys |= set.intersection(*(_required(b, depth + 1) for b in branches))
    return keys


def unproductive(defs: dict[str, Schema]) -> set[str]:
    """The definitions of `defs` that no finite JSON value satisfies (as far as can be proven)."""
    edges = {name: _needs(body) for name, body in defs.items()}
    bad = {name for name, body in defs.items() if body is False}  # lowered to nothing at all
    for start, needed in edges.items():
        for target, down in needed.items():
            if down and start not in bad and _reaches(edges, target, start):
                bad.add(start)
    changed = bool(bad)
    while changed:
        changed = False
        for name, needed in edges.items():
            if name not in bad and not bad.isdisjoint(needed):
                bad.add(name)
                changed = True
    return bad


def _reaches(edges: dict[str, Needs], source: str, goal: str) -> bool:
    seen, stack = {source}, [source]
    while stack:
        cur = stack.pop()
        if cur == goal:
            return True
        for nxt in edges.get(cur, {}):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def _without(node: Schema, bad: set[str]) -> Schema:
    """`node` with every subschema that refers to a definition in `bad` replaced by `false`."""
    if not isinstance(node, dict):
        return node
    if ref_name(node) in bad:
        return False
    out: dict[str, Any] = {}
    for kw, value in node.items():
        shape = SUBSCHEMA_KEYWORDS.get(kw)
        if kw == "$defs":
            out[kw] = value
        elif kw == MARK and isinstance(value, dict) and "not-contains" in value:  # a Lark array's
            out[kw] = {**value, "not-contains": _without(value["not-contains"], bad)}  # complement
        elif kw == WITNESS and isinstance(value, list):  # an entry's value schema, as a subschema
            out[kw] = [{**w, "value": _without(w["value"], bad)} for w in value]
        elif shape == "one":
            out[kw] = _without(value, bad)
        elif shape == "list" and isinstance(value, list):
            out[kw] = [_without(v, bad) for v in value]
        elif shape == "map" and isinstance(value, dict):
            out[kw] = {k: _without(v, bad) for k, v in value.items()}
        else:
            out[kw] = value
    return out


def drop_unproductive(root: Schema, defs: dict[str, Schema]) -> tuple[Schema, dict[str, Schema]]:
    """(root, defs) with references to unproductive definitions replaced by `false` and those
    definitions removed; unchanged where there are none."""
    bad = unproductive(defs)
    if not bad:
        return root, defs
    kept = {name: _without(body, bad) for name, body in defs.items() if name not in bad}
    return _without(root, bad), kept


def drop_definitions(lowered: Schema, names: set[str]) -> Schema:
    """A lowered schema (root with its `$defs`) with every reference to `names` replaced by
    `false` and those definitions removed: for definitions llguidance proved empty (its JSON
    compiler refuses a whole schema over one unsatisfiable definition, even one only an optional
    position or an `anyOf` branch reaches). Exact: a `$ref` to an empty definition is `false`."""
    if not isinstance(lowered, dict):
        return lowered
    defs = lowered.get("$defs", {})
    kept = {name: _without(body, names) for name, body in defs.items() if name not in names}
    root = _without({k: v for k, v in lowered.items() if k != "$defs"}, names)
    if not isinstance(root, dict) or not kept:
        return root
    return {**root, "$defs": kept}
