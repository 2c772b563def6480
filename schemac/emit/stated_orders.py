"""The property orders a schema states: its `properties` order, and its `required` order.

Under `key_order="schema"` an object's listed keys come in an order the schema itself states.
`properties` states one; `required` states another for the keys it names, and where the two
differ (schemas whose `properties` were sorted by a tool while `required` kept the author's
order are common) an answer written in `required`'s order is as much "in schema order" as one
in `properties`' order. Each such object node becomes `anyOf` of itself and a copy whose
`properties` list the required keys first, in `required`'s order, then the others in
`properties`' order. Both members have exactly the same keywords, so the value set is unchanged:
only the orders the grammar writes grow. Where the two orders agree nothing changes, so a
`reasoning` key listed before `answer` in both still comes first.

Property values of a copied node move into `$defs` (one rule each) so that nested copies do not
write a subtree twice per level. Parts merged with each other keep one order where two or more
of them would be copied (`_held`): the emitters distribute `allOf` over `anyOf`, so k copied
parts would write 2^k merged objects; the merged object's order is the interleaving of its
parts' `properties` (`lark_merge.interleave`).
`pipeline.emit_schema` applies it once, to the whole lowered schema, under `key_order="schema"`
(and under "any" to objects past `lark_object_free`'s bound); "properties" skips it.
"""
from __future__ import annotations

from typing import Any, Callable

from schemac.schema import DEF_PREFIX, SUBSCHEMA_KEYWORDS, Schema, iter_subschemas, ref_name, some_subschema

#: name stem of the definitions that hold the property values of a copied node
_STEM = "schemac-order-"


def required_order(node: dict[str, Any]) -> list[str] | None:
    """The order `required` states for `node`'s listed keys (required first, in `required`'s
    order, then the rest in `properties`' order), or None when it is `properties`' own order."""
    listed = node.get("properties")
    required = node.get("required")
    if not isinstance(listed, dict) or not isinstance(required, list) or len(listed) < 2:
        return None
    first = list(dict.fromkeys(k for k in required if isinstance(k, str) and k in listed))
    taken = set(first)
    order = first + [k for k in listed if k not in taken]
    return None if order == list(listed) else order


def with_required_orders(lowered: Schema, more_keys_than: int = 0) -> Schema:
    """`lowered` with every object node (of more than `more_keys_than` listed keys, not held by
    a merge) whose `required` order differs from its `properties` order written as `anyOf` of
    both orders (see the module docstring); `lowered` itself when no node differs."""
    if not isinstance(lowered, dict):
        return lowered
    rewriter = _Rewriter(lowered, more_keys_than)
    if not some_subschema(lowered, rewriter.wrappable):  # the common case: one lean walk
        return lowered
    return rewriter.run()


def _held(body: dict[str, Any], defs: dict[str, Any], wrappable: Callable[[Any], bool]) -> tuple[set[int], set[str]]:
    """(ids of nodes, names of definitions) that keep one order: the parts of an `allOf` with
    two or more parts that would be copied (k such parts would make 2^k merged objects), and a
    definition a `$ref` merges with a node that is copied itself. A single copied part only
    doubles its merge (a lowered `oneOf` branch beside the complements of the others)."""
    nodes: set[int] = set()
    names: set[str] = set()

    def target(node: Any) -> tuple[Any, str | None]:
        name = ref_name(node)
        if name is not None and name in defs and len(node) == 1:
            return defs[name], name
        return node, None

    seen: set[int] = set()
    stack: list[Any] = [body, *defs.values()]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        parts = node.get("allOf")
        if isinstance(parts, list):
            copied = [(part, *target(part)) for part in parts if wrappable(target(part)[0])]
            if len(copied) > 1:
                for part, _, name in copied:
                    if name is None:
                        nodes.add(id(part))
                    else:
                        names.add(name)
        name = ref_name(node)
        if name is not None and name in defs and len(node) > 1 and wrappable(node) and wrappable(defs[name]):
            names.add(name)
        stack.extend(sub for _, sub in iter_subschemas(node) if isinstance(sub, dict))
    return nodes, names


class _Rewriter:
    """One copy-on-write walk over the root and its definitions, with new definitions collected."""

    def __init__(self, root: dict[str, Any], more_keys_than: int) -> None:
        self.root = root
        self.more_keys_than = more_keys_than
        defs = root.get("$defs")
        self.defs: dict[str, Any] = dict(defs) if isinstance(defs, dict) else {}
        self.added: dict[str, Any] = {}
        self.memo: dict[tuple[int, bool], Any] = {}
        self.hoisted: dict[int, tuple[Any, dict[str, str]]] = {}
        self.held: set[int] = set()
        self.counter = 0

    def run(self) -> Schema:
        body = {k: v for k, v in self.root.items() if k != "$defs"}
        self.held, held_names = _held(body, self.defs, self.wrappable)
        new_body = self.walk(body)
        new_defs = {name: self.walk(sub, name in held_names) for name, sub in self.defs.items()}
        if new_body is body and all(new_defs[n] is self.defs[n] for n in self.defs):
            return self.root  # nothing was copied, so nothing was added either
        out = dict(new_body)  # `#` still names the root: the wrapper holds the same values
        out["$defs"] = {**new_defs, **self.added}
        return out

    def wrappable(self, node: Any) -> bool:
        """Whether `node` is an object node this rewrite copies (where no merge holds it)."""
        return (isinstance(node, dict) and len(node.get("properties", ())) > self.more_keys_than
                and required_order(node) is not None)

    def walk(self, node: Any, held: bool = False) -> Any:
        """`node` rewritten; `held`: a merge holds it to one order (`_held`)."""
        if not isinstance(node, dict):
            return node
        held = held or id(node) in self.held
        hit = self.memo.get((id(node), held))
        if hit is not None and hit[0] is node:
            return hit[1]
        out = node
        for kw, value in node.items():
            shape = SUBSCHEMA_KEYWORDS.get(kw)
            if shape is None or kw == "$defs":
                continue
            if shape == "one":
                new: Any = self.walk(value)
            elif shape == "list" and isinstance(value, list):
                items = [self.walk(v) for v in value]
                new = value if all(a is b for a, b in zip(items, value)) else items
            elif shape == "map" and isinstance(value, dict):
                members = {k: self.walk(v) for k, v in value.items()}
                new = value if all(members[k] is value[k] for k in value) else members
            else:
                continue
            if new is not value:
                if out is node:
                    out = dict(node)
                out[kw] = new
        order = None if held or not self.wrappable(out) else required_order(out)
        if order is not None:
            out = self.both_orders(out, order)
        self.memo[(id(node), held)] = (node, out)
        return out

    def both_orders(self, node: dict[str, Any], order: list[str]) -> dict[str, Any]:
        listed = {k: self.shared(v) for k, v in node["properties"].items()}
        first = {**node, "properties": listed}
        second = {**node, "properties": {k: listed[k] for k in order}}
        return {"anyOf": [first, second]}

    def shared(self, value: Any) -> Any:
        """`value` as a `$ref` to a new definition when writing it twice would copy a subtree."""
        if not isinstance(value, dict) or "$ref" in value and len(value) == 1:
            return value
        if not any(SUBSCHEMA_KEYWORDS.get(k) is not None for k in value) and "enum" not in value:
            return value
        hit = self.hoisted.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        while True:
            name = f"{_STEM}{self.counter}"
            self.counter += 1
            if name not in self.defs and name not in self.added:
                break
        self.added[name] = value
        ref = {"$ref": DEF_PREFIX + name}
        self.hoisted[id(value)] = (value, ref)
        return ref
