"""Which object nodes name their keys: the one rule for canonical key terminals, and how a
lowering keeps it when it builds object nodes out of a node that names keys.

The Lark writer writes an object with schemac's canonical key terminals exactly when its node
names keys (`keys_named`); every other object is embedded as llguidance's `%json`, whose key
lexeme also takes `\\u000a`-style escapes of control characters. Lowering turns `propertyNames`,
dependencies, `not`/`if`/`oneOf` over keys and unevaluated keys into the keywords read here, but a
node it builds in place of one that names keys may name none: a complement's count-only branch
(`not: {minProperties: 2, patternProperties: ...}` holds for `maxProperties: 1`), or the branch a
dependency shares between its triggers. Such a node stands for the source node, so it must name
keys too: `every_key_named` does it without changing what the node accepts.
"""
from __future__ import annotations

from typing import Any, Callable

from schemac.lower.support.marks import WITNESS
from schemac.schema import Schema, ref_name

#: The pattern every key matches (ECMA-262 search: the empty pattern matches in every string).
EVERY_KEY = ""


def keys_named(node: Schema) -> bool:
    """Whether a keyword of lowered object node `node` names or classifies its keys: the one rule
    deciding which objects are written with schemac's canonical key terminals (never on
    llguidance's `%json` form, where an escaped spelling of a named key is taken for another
    key: `{"a": 1, "\\u0061": 2}` would pass `{"required": ["a"], "minProperties": 2}`).
    Counts and `additionalProperties` alone name no key."""
    return isinstance(node, dict) and (
        WITNESS in node or any(bool(node.get(k)) for k in ("properties", "patternProperties", "required")))


#: keywords that name keys before lowering turns them into `keys_named`'s (a source definition
#: reached through `$ref` has not been lowered)
_SOURCE_NAMING = ("dependentRequired", "dependentSchemas", "propertyNames")
#: where a node's conjunction continues at the same instance (its in-place subschemas)
_IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")


def names_in_place(node: Any, definitions: Callable[[str], Schema | None] = lambda _: None) -> bool:
    """Whether `node` or a subschema of it at the same instance (`allOf`/`anyOf`/`oneOf`
    members, `not`, `if`/`then`/`else`, and `$ref` targets `definitions` gives) names keys
    (`keys_named`, or a source keyword that does) or lists an object value with a key (`const`,
    `enum`: such an object is written with its keys as literals)."""
    stack, seen = [node], set()
    while stack:
        cur = stack.pop()
        if not isinstance(cur, dict):
            continue
        values = [cur["const"]] if "const" in cur else cur.get("enum", [])
        if (keys_named(cur) or any(bool(cur.get(k)) for k in _SOURCE_NAMING if cur.get(k) is not True)
                or (isinstance(values, list) and any(isinstance(v, dict) and v for v in values))):
            return True
        for kw in _IN_PLACE:
            sub = cur.get(kw)
            stack.extend(sub if isinstance(sub, list) else [sub])
        name = ref_name(cur)
        if name is not None and name not in seen:
            seen.add(name)
            stack.append(definitions(name))
    return False


def named_everywhere(node: Schema) -> bool:
    """Whether every object lowered `node` admits is written from a node that names keys: it
    names them itself, or admits no object, or an `allOf` member does so everywhere, or every
    `anyOf`/`oneOf` branch does (a `$ref` is not followed: not known to)."""
    if not isinstance(node, dict):
        return node is False
    types = node.get("type")
    if keys_named(node) or (types is not None and "object" not in ([types] if isinstance(types, str) else types)):
        return True
    return any(named_everywhere(p) for p in node.get("allOf", ())) or any(
        kw in node and all(named_everywhere(b) for b in node[kw]) for kw in ("anyOf", "oneOf"))


def every_key_named(node: dict[str, Any]) -> dict[str, Any]:
    """`node`, a node that names no key, with every key named and the same instances: its
    `additionalProperties` (default `true`) becomes `patternProperties: {"": S}`. Exact: with no
    `properties` or `patternProperties` of its own every key of an object is additional, and
    the empty pattern matches every key. Counts beside it stay as they were (the intersection
    pass only splits listed optional keys)."""
    out = {k: v for k, v in node.items() if k not in ("properties", "patternProperties", "additionalProperties")}
    out["patternProperties"] = {EVERY_KEY: node.get("additionalProperties", True)}
    return out


def named_like(node: Schema) -> Schema:
    """`node`, an object node built in place of a node that names keys (`names_in_place`),
    naming keys: one that names none gets every key named (each branch of a bare `anyOf`, which
    its union then flattens)."""
    if not isinstance(node, dict) or keys_named(node):
        return node
    if set(node) == {"anyOf"}:
        return {"anyOf": [named_like(b) for b in node["anyOf"]]}
    return every_key_named(node)
