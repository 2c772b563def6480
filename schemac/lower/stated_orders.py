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
write a subtree twice per level. Of the nodes merged into one object (through `allOf` parts,
`$ref`s and the `anyOf`/`oneOf` branches distributed over them, at any depth) one is copied
(`_held`), the first the walk finds: k copies in one merged object would write 2^k objects
(two per merge already let a 274-byte fuzzed schema pass the deadline; copies in the branches
of `anyOf`s that an `allOf` joins made 4^k); the others keep the order of their `properties`,
and the merged object's order interleaves its parts' (`lark_merge.interleave`). Copies in
different branches of one `anyOf` never meet, so each keeps its order.
`schemac.emit.emit_written` applies it once, to the whole lowered schema, under `key_order="schema"`
(and under "any" to objects past `lark_object_free`'s bound); "properties" skips it.
"""
from __future__ import annotations

from typing import Any, Callable

from schemac.schema import DEF_PREFIX, SUBSCHEMA_KEYWORDS, Schema, iter_subschemas, rebuilt, ref_name, some_subschema

#: name stem of the definitions that hold the property values of a copied node
_STEM = "schemac-order-"
#: copies per merged object (`_held`): the merged objects grow by 2 ** this at most
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


#: choice contexts walked per schema (`_contexts`): past it every copyable node but the first is held
MAX_CONTEXTS = 20_000

#: a step into a value: ("p", key) a listed key's value, ("o",) an open key's (pattern or
#: additional), ("i", n) a prefix item, ("i*",) the other items, (keyword,) any other value
Step = tuple[Any, ...]
#: (the steps from the walk's start to the object, {id path of an anyOf/oneOf: branch taken})
Context = tuple[tuple[Step, ...], dict[tuple[int, ...], int]]


def _step(where: tuple[str | int, ...]) -> Step:
    kw = where[0]
    if kw == "properties":
        return ("p", where[1])
    if kw in ("patternProperties", "additionalProperties"):
        return ("o",)
    if kw == "prefixItems":
        return ("i", where[1])
    if kw == "items":
        return ("i*",)
    return (kw,)


def _contexts(starts: list[Any], defs: dict[str, Any]) -> dict[int, list[tuple[int, Context]]] | None:
    """For every node: each (start id, context) the walk reaches it with, from the first start
    and then from each later one no earlier walk reached (the unused definitions). Merge edges (`allOf`
    parts, `$ref` targets, `anyOf`/`oneOf` branches, which record the branch) keep the object;
    other subschemas step into a value, where the values of merged parts merge again (`_steps_meet`).
    A node met again on its own path is recorded there but not walked twice. None when the walk
    passes `MAX_CONTEXTS` (distribution over many nested branches)."""
    found: dict[int, list[tuple[int, Context]]] = {}
    walked = 0
    for start in starts:
        if not isinstance(start, dict) or id(start) in found:  # a definition the root reaches is walked there
            continue
        stack: list[tuple[Any, tuple[Step, ...], dict[tuple[int, ...], int], tuple[int, ...]]] = [(start, (), {}, ())]
        while stack:
            node, steps, choices, path = stack.pop()
            if not isinstance(node, dict):
                continue
            walked += 1
            if walked > MAX_CONTEXTS:
                return None
            found.setdefault(id(node), []).append((id(start), (steps, choices)))
            if id(node) in path:  # recursion: the object repeats what the walk has already seen
                continue
            inside = path + (id(node),)
            for where, sub in iter_subschemas(node):
                if where[0] == "allOf":
                    stack.append((sub, steps, choices, inside))
                elif where[0] in ("anyOf", "oneOf"):
                    stack.append((sub, steps, {**choices, inside + (where[0] == "oneOf",): int(where[1])}, inside))
                elif where[0] != "$defs":
                    stack.append((sub, steps + (_step(where),), choices, inside))
            name = ref_name(node)
            if name is not None and isinstance(defs.get(name), dict):
                stack.append((defs[name], steps, choices, inside))
    return found


def _steps_meet(first: tuple[Step, ...], second: tuple[Step, ...]) -> bool:
    """Whether values at these steps can merge: a listed key's value with an open key's (an
    `additionalProperties` of one part applies to a key another part lists), items alike."""
    if len(first) != len(second):
        return False
    for a, b in zip(first, second):
        if a != b and {a[0], b[0]} not in ({"p", "o"}, {"i", "i*"}):
            return False
    return True


def _meet(first: list[tuple[int, Context]], second: list[tuple[int, Context]]) -> bool:
    """Whether two nodes with these contexts can be merged into one object."""
    for start, (steps, choices) in first:
        for other_start, (other_steps, other) in second:
            if (start == other_start and _steps_meet(steps, other_steps)
                    and all(other.get(k, v) == v for k, v in choices.items())):
                return True
    return False


def _held(root: dict[str, Any], defs: dict[str, Any], wrappable: Callable[[Any], bool]) -> set[int]:
    """Ids of the copyable nodes that keep one order: each one that would meet, in one merged
    object, a node already copied (the emitters merge `allOf` parts and `$ref` targets and
    distribute `anyOf`/`oneOf` branches over them, so two copies in one merged object make four
    objects, and k of them 2^k). Copies in different branches of one `anyOf` never meet: each
    merged object holds at most one copy, so the merged objects at most double. Nodes are
    taken in the order of a fixed walk (the same every compile)."""
    contexts = _contexts([root, *defs.values()], defs)
    copyable: list[int] = []
    seen: set[int] = set()
    stack: list[Any] = [root, *defs.values()]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        if wrappable(node):
            copyable.append(id(node))
        stack.extend(sub for _, sub in iter_subschemas(node))
    if contexts is None:
        return set(copyable[MAX_COPIES_PER_MERGE:])
    # The contexts of the nodes taken so far, by (start, `_coarse` steps): two contexts whose
    # steps meet (`_steps_meet`) have the same coarse steps, so a node is tested only against
    # the taken contexts of its own buckets, pair by pair as `_meet` does.
    taken: dict[tuple[int, tuple[Any, ...]], list[Context]] = {}
    held: set[int] = set()
    for i in copyable:
        mine = contexts.get(i, [])
        if any(_steps_meet(steps, other_steps) and all(other.get(k, v) == v for k, v in choices.items())
               for start, (steps, choices) in mine
               for other_steps, other in taken.get((start, _coarse(steps)), ())):
            held.add(i)
        else:
            for start, context in mine:
                taken.setdefault((start, _coarse(context[0])), []).append(context)
    return held


#: step kinds that meet each other (`_steps_meet`): a listed key's value and an open key's, items
_KIND = {"p": "p/o", "o": "p/o", "i": "i", "i*": "i"}


def _coarse(steps: tuple[Step, ...]) -> tuple[Any, ...]:
    """`steps` with each step reduced to its kind up to `_steps_meet`'s meetings (equal for any
    two step sequences that meet)."""
    return tuple(_KIND.get(step[0], step) for step in steps)


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
