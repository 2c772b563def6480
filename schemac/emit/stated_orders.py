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
write a subtree twice per level. Of the nodes merged into one object (through `allOf` and
`$ref`, at any depth) one is copied (`_held`), the first the walk finds: the emitters
distribute `allOf` over `anyOf`, so k copies would write 2^k merged objects (two per merge
already let a 274-byte fuzzed schema pass the deadline); the others keep the order of their
`properties`, and the merged object's order interleaves its parts' (`lark_merge.interleave`).
`pipeline.emit_schema` applies it once, to the whole lowered schema, under `key_order="schema"`
(and under "any" to objects past `lark_object_free`'s bound); "properties" skips it.
"""
from __future__ import annotations

from typing import Any, Callable

from schemac.schema import DEF_PREFIX, SUBSCHEMA_KEYWORDS, Schema, iter_subschemas, rebuilt, ref_name, some_subschema

#: name stem of the definitions that hold the property values of a copied node
_STEM = "schemac-order-"
#: copies per merge group (`_held`): its merged objects grow by 2 ** this at most
MAX_COPIES_PER_MERGE = 1


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


def _held(root: dict[str, Any], defs: dict[str, Any], wrappable: Callable[[Any], bool]) -> set[int]:
    """Ids of the nodes that keep one order: the copyable nodes of a merge group (nodes joined by
    `allOf` parts and `$ref`s, which the emitters merge into one object, distributing `allOf`
    over `anyOf`) past its first `MAX_COPIES_PER_MERGE`, since k copies in one merge make 2^k
    merged objects. `anyOf`/`oneOf` branches start groups of their own: their copies add."""
    parent: dict[int, int] = {}

    def find(i: int) -> int:
        while parent.setdefault(i, i) != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    nodes: dict[int, Any] = {}
    stack: list[Any] = [root, *defs.values()]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in nodes:
            continue
        nodes[id(node)] = node
        joined = [part for part in node.get("allOf", ()) if isinstance(part, dict)]
        name = ref_name(node)
        if name is not None and isinstance(defs.get(name), dict):
            joined.append(defs[name])
        for other in joined:
            parent[find(id(other))] = find(id(node))
        stack.extend(sub for _, sub in iter_subschemas(node))
    copies: dict[int, list[int]] = {}
    for i, node in nodes.items():  # in the order the walk found them: the same every compile
        if wrappable(node):
            copies.setdefault(find(i), []).append(i)
    return {i for group in copies.values() for i in group[MAX_COPIES_PER_MERGE:]}


class _Rewriter:
    """One copy-on-write walk over the root and its definitions, with new definitions collected."""

    def __init__(self, root: dict[str, Any], more_keys_than: int) -> None:
        self.root = root
        self.more_keys_than = more_keys_than
        defs = root.get("$defs")
        self.defs: dict[str, Any] = dict(defs) if isinstance(defs, dict) else {}
        self.added: dict[str, Any] = {}
        self.hoisted: dict[int, tuple[Any, dict[str, str]]] = {}
        self.held: set[int] = set()
        self.counter = 0

    def run(self) -> Schema:
        body = {k: v for k, v in self.root.items() if k != "$defs"}
        self.held = _held(self.root, self.defs, self.wrappable)
        if id(self.root) in self.held:
            self.held.add(id(body))  # the root is walked without its definitions
        memo: dict[int, tuple[Any, Schema]] = {}  # one across the root and the definitions
        new_body = rebuilt(body, self.own, memo)
        new_defs = {name: rebuilt(sub, self.own, memo) for name, sub in self.defs.items()}
        if new_body is body and all(new_defs[n] is self.defs[n] for n in self.defs):
            return self.root  # nothing was copied, so nothing was added either
        out = dict(new_body)  # `#` still names the root: the wrapper holds the same values
        out["$defs"] = {**new_defs, **self.added}
        return out

    def wrappable(self, node: Any) -> bool:
        """Whether `node` is an object node this rewrite copies (where no merge holds it)."""
        return (isinstance(node, dict) and len(node.get("properties", ())) > self.more_keys_than
                and required_order(node) is not None)

    def own(self, original: dict[str, Any], done: dict[str, Any]) -> Schema:
        """`done` (`original` with its subschemas rewritten) in both orders, unless a merge holds it
        to one (`_held`) or its orders agree."""
        order = None if id(original) in self.held or not self.wrappable(done) else required_order(done)
        return done if order is None else self.both_orders(done, order)

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
