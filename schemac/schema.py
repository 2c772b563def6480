"""Shared vocabulary for schema trees: which keywords hold subschemas, and the resolved bundle.

Every walker in schemac (resolve, formats, lowering, validation helpers) uses these tables, so a
keyword's shape is defined once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Union

Schema = Union[dict[str, Any], bool]

#: keyword -> shape of its subschemas: "one" (a schema), "list" (array of schemas),
#: "map" (object of schemas).
SUBSCHEMA_KEYWORDS: dict[str, str] = {
    "additionalProperties": "one",
    "items": "one",
    "contains": "one",
    "not": "one",
    "if": "one",
    "then": "one",
    "else": "one",
    "propertyNames": "one",
    "unevaluatedItems": "one",
    "unevaluatedProperties": "one",
    "prefixItems": "list",
    "allOf": "list",
    "anyOf": "list",
    "oneOf": "list",
    "properties": "map",
    "patternProperties": "map",
    "dependentSchemas": "map",
    "$defs": "map",
}

#: Keywords with no effect on validity in 2020-12 (annotations, metadata).
ANNOTATION_KEYWORDS: frozenset[str] = frozenset(
    {
        "title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
        "writeOnly", "contentMediaType", "contentEncoding", "contentSchema", "$vocabulary",
    }
)

TYPES: tuple[str, ...] = ("null", "boolean", "object", "array", "number", "string")
#: "integer" is a subset of "number"; kept apart where a type set is computed.
ALL_TYPES: frozenset[str] = frozenset(TYPES) | {"integer"}


def child_pointer(pointer: str, *tokens: str | int) -> str:
    """Append RFC 6901 reference tokens (escaping ~ and /)."""
    for t in tokens:
        t = str(t)
        if "~" in t or "/" in t:  # rare: the common token costs two tests, not two copies
            t = t.replace("~", "~0").replace("/", "~1")
        pointer += "/" + t
    return pointer


def pointer_tokens(pointer: str) -> list[str]:
    """The reference tokens of an RFC 6901 pointer, unescaped (`child_pointer`'s inverse)."""
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]] if pointer else []


def pointer_child(node: Any, token: str) -> tuple[bool, Any]:
    """(True, the child) when `node` has a member `token` (an unescaped RFC 6901 reference token),
    else (False, None). An array index is ASCII digits without a leading zero: `str.isdigit`
    alone would also take `"01"` and other scripts' digits (`int("٣")` is 3)."""
    if isinstance(node, dict):
        return (True, node[token]) if token in node else (False, None)
    if (isinstance(node, list) and token.isascii() and token.isdigit() and (token == "0" or token[0] != "0")
            and int(token) < len(node)):
        return True, node[int(token)]
    return False, None


def pointer_value(document: Any, pointer: str) -> Any:
    """The value `pointer` names in `document` (which must hold it: `pointer_exists`)."""
    node = document
    for tok in pointer_tokens(pointer):
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    return node


def pointer_exists(document: Any, pointer: str) -> bool:
    """Whether `document` holds a value at `pointer`."""
    node = document
    for tok in pointer_tokens(pointer):
        found, node = pointer_child(node, tok)
        if not found:
            return False
    return True


def fresh_name(taken: dict[str, Any], base: str) -> str:
    """`base`, or `base-2`, `base-3`, ...: the first not in `taken` (a new definition's name)."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def iter_subschemas(node: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], Schema]]:
    """Yield (relative path tokens, subschema) for every direct subschema of `node`."""
    for kw, value in node.items():
        shape = SUBSCHEMA_KEYWORDS.get(kw)
        if shape is None:
            continue
        if shape == "one" and isinstance(value, (dict, bool)):
            yield (kw,), value
        elif shape == "list" and isinstance(value, list):
            for i, sub in enumerate(value):
                if isinstance(sub, (dict, bool)):
                    yield (kw, i), sub
        elif shape == "map" and isinstance(value, dict):
            for key, sub in value.items():
                if isinstance(sub, (dict, bool)):
                    yield (kw, key), sub


def some_subschema(node: Schema, test: Callable[[dict[str, Any]], bool]) -> bool:
    """Whether `test` holds for `node` or a schema object below it: the cheap walk a stage pays
    before deciding it has work (no pointers, no paths, any order)."""
    stack: list[Any] = [node]
    while stack:
        item = stack.pop()
        if not isinstance(item, dict):
            continue
        if test(item):
            return True
        for kw, value in item.items():
            shape = SUBSCHEMA_KEYWORDS.get(kw)
            if shape == "one":
                stack.append(value)
            elif shape == "list" and isinstance(value, list):
                stack.extend(value)
            elif shape == "map" and isinstance(value, dict):
                stack.extend(value.values())
    return False


def rebuilt(node: Schema, own: Callable[[dict[str, Any], dict[str, Any]], Schema],
            memo: dict[int, tuple[Any, Schema]] | None = None) -> Schema:
    """`node` with `own(original, done)` applied bottom-up to every schema object, where `done`
    is `original` with its subschemas already rebuilt; the very same object wherever nothing
    changed (most schemas: nothing is copied). An object shared by several parents is rebuilt
    once (`memo`, which callers may share across calls, keeps it shared)."""
    memo = {} if memo is None else memo

    def walk(cur: Any) -> Any:
        if not isinstance(cur, dict):
            return cur
        hit = memo.get(id(cur))
        if hit is not None and hit[0] is cur:
            return hit[1]
        out: dict[str, Any] | None = None
        for kw, value in cur.items():
            shape = SUBSCHEMA_KEYWORDS.get(kw)
            new: Any = value
            if shape == "one":
                new = walk(value)
            elif shape == "list" and isinstance(value, list):
                items = [walk(v) for v in value]
                new = value if all(a is b for a, b in zip(items, value)) else items
            elif shape == "map" and isinstance(value, dict):
                subs = {k: walk(v) for k, v in value.items()}
                new = value if all(subs[k] is v for k, v in value.items()) else subs
            if new is not value:
                out = dict(cur) if out is None else out
                out[kw] = new
        result = own(cur, cur if out is None else out)
        memo[id(cur)] = (cur, result)
        return result

    return walk(node)


def all_of(parts: Iterable[Schema], *, keep_false: bool = False, flatten: bool = False) -> Schema:
    """The conjunction of `parts` as one schema, the one way every pass and writer builds it:
    `true` parts dropped, `true` when none is left, a lone part as itself, else `{"allOf": [...]}`.
    A `false` part makes it `false`, unless `keep_false` (the Lark writer names a rule for an
    allOf it meets, so a caller whose rule names must not move keeps the part). `flatten`: parts
    that are bare allOfs are spliced in and equal parts (by repr: `true` is not `1`) kept once,
    so merging a node with itself (a `$ref` reached twice) does not double it."""
    kept: list[Schema] = []
    seen: set[str] = set()
    stack = list(parts)
    stack.reverse()
    while stack:
        p = stack.pop()
        if flatten and isinstance(p, dict) and len(p) == 1 and isinstance(p.get("allOf"), list):
            stack.extend(reversed(p["allOf"]))
        elif p is False and not keep_false:
            return False
        elif p is not True:
            if flatten:
                key = repr(p)
                if key in seen:
                    continue
                seen.add(key)
            kept.append(p)
    return True if not kept else kept[0] if len(kept) == 1 else {"allOf": kept}


def any_of(parts: Iterable[Schema]) -> Schema:
    """The union of `parts` as one schema: `true` when a part is `true`, `false` parts dropped,
    `false` when none is left, a lone part as itself, else `{"anyOf": [...]}`."""
    kept: list[Schema] = []
    for p in parts:
        if p is True:
            return True
        if p is not False:
            kept.append(p)
    return False if not kept else kept[0] if len(kept) == 1 else {"anyOf": kept}


@dataclass
class Bundle:
    """A schema with every `$ref` rewritten to `#/$defs/<name>` and all targets under `defs`.

    `origin[name]` is the JSON Pointer, in the user's document, of the node that `name` holds;
    the root's pointer is "". Walkers add relative paths to these to point into the original.
    """

    root: Schema
    defs: dict[str, Schema] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)

    def as_schema(self) -> Schema:
        """The bundle as one self-contained 2020-12 schema (what final validation uses)."""
        if not self.defs:
            return self.root
        if isinstance(self.root, bool):
            return {"allOf": [self.root], "$defs": dict(self.defs)}
        out = dict(self.root)
        out["$defs"] = dict(self.defs)
        return out


DEF_PREFIX = "#/$defs/"


def ref_name(node: Schema) -> str | None:
    """The bundle definition a node refers to, if it is a bundle `$ref`."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(DEF_PREFIX):
            return ref[len(DEF_PREFIX):]
    return None
