"""A cheap, sound screen for conjunctions that accept nothing, used before `merged` distributes
an anyOf/oneOf into its branches.

Distribution multiplies: six lowered if/then pairs over one object are 4^6 branches, almost
all of them contradictory (a key required non-null in one branch and `const: null` in
another). Writing every branch and letting the empty ones vanish later takes minutes; this
screen drops a branch as soon as its plain conjuncts contradict each other. It reads only
`type`, `const`, `enum`, `pattern`, `required`, `properties`, `multipleOf` and `NOT_MULTIPLE`,
so it can only ever miss a contradiction (the branch is then written and found empty later),
never invent one: a dropped branch accepts no value whatever the conjuncts it did not read say.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schemac.emit.lark.merge import ALL_TYPES, Unwritable, conjuncts, meet, types_of
from schemac.lower.support.analysis import base_type, is_integer
from schemac.lower.support.marks import NOT_MULTIPLE
from schemac.schema import Schema

if TYPE_CHECKING:
    from schemac.budget import Budget

_LIMIT = 8  # how deep the screen follows properties and nested anyOf (its cost stays small)


def _value_types(value: Any) -> list[str]:
    """The writer's type names a listed value belongs to (1.0 is an integer)."""
    return ["integer"] if is_integer(value) else [base_type(value)]


def _pieces(node: Schema, defs: dict[str, Any]) -> list[Schema]:
    """`node` as the conjuncts `merged` reads (allOf parts and `$ref` targets spread); itself
    where the chain is too deep to spread (the screen then reads less: it stays sound)."""
    out: list[Schema] = []
    try:
        conjuncts(node, defs, "", 0, out)
    except (Unwritable, KeyError):  # a chain past the writer's depth, or a target it lacks
        return [node]
    return out


class Screen:
    """`dead` with its answers kept for the life of one writer: distribution asks the same
    question about the same conjunct objects many times (keys are object ids; the objects are
    kept alive beside the answer so an id is never reused)."""

    def __init__(self, defs: dict[str, Any], budget: "Budget | None" = None) -> None:
        self.defs = defs
        #: the schema's budget: the screen's search branches at every pending anyOf (its steps)
        self.budget = budget
        self._memo: dict[tuple[int, ...], tuple[list[Schema], bool]] = {}
        self._pieces: dict[int, tuple[Schema, list[Schema]]] = {}

    def dead(self, parts: list[Schema], depth: int = 0) -> bool:
        """Whether the conjunction of `parts` certainly accepts no value."""
        key = (depth, *map(id, parts))
        hit = self._memo.get(key)
        if hit is None:
            if self.budget is not None:  # the search reads every piece of every part
                self.budget.step("", 1 + sum(len(self.pieces(p)) for p in parts))
            hit = self._memo[key] = (list(parts), _dead(self, parts, depth))
        return hit[1]

    def pieces(self, node: Schema) -> list[Schema]:
        """`_pieces(node)`, the same list objects every time (so their ids key `dead`'s memo)."""
        hit = self._pieces.get(id(node))
        if hit is None or hit[0] is not node:
            hit = self._pieces[id(node)] = (node, _pieces(node, self.defs))
        return hit[1]


def _dead(screen: Screen, parts: list[Schema], depth: int) -> bool:
    flat = [piece for p in parts for piece in screen.pieces(p)]
    if any(p is False for p in flat):
        return True
    plain = [p for p in flat if isinstance(p, dict) and not ({"anyOf", "oneOf"} & p.keys())]
    types = list(ALL_TYPES)
    for p in plain:
        types = meet(types, types_of(p))
        if "const" in p:
            types = meet(types, _value_types(p["const"]))
        if "enum" in p and isinstance(p["enum"], list):
            types = meet(types, sorted({t for v in p["enum"] for t in _value_types(v)}))
        if not types:
            return True
    if _values_dead(plain):
        return True
    if set(types) <= {"number", "integer"} and _multiples_dead(plain, types):
        return True
    if depth >= _LIMIT:
        return False
    if types == ["object"] and _object_dead(screen, plain, depth):
        return True
    for p in flat:  # a pending anyOf/oneOf none of whose branches fits the plain conjuncts
        if isinstance(p, dict):
            for kind in ("anyOf", "oneOf"):
                if isinstance(p.get(kind), list) and all(screen.dead(plain + [b], depth + 1) for b in p[kind]):
                    return True
    return False


def _values_dead(plain: list[dict[str, Any]]) -> bool:
    """Whether `const`/`enum` leave no value: two consts differ, or a const is outside an enum
    or fails a pattern (read with schemac's one ECMA semantics), or enums share no member."""
    listed = [[p["const"]] for p in plain if "const" in p] + [
        p["enum"] for p in plain if isinstance(p.get("enum"), list)]
    if not listed:
        return False
    from schemac.json_key import json_key, member_keys
    from schemac.regex import PatternError, ecma_search

    first = min(listed, key=len)
    left = [v for v in first if all(json_key(v) in member_keys(other) for other in listed if other is not first)]
    patterns = [p["pattern"] for p in plain if isinstance(p.get("pattern"), str)]
    try:
        return not any(not isinstance(v, str) or all(ecma_search(r, v) for r in patterns) for v in left)
    except PatternError:
        return False


def _multiples_dead(plain: list[dict[str, Any]], types: list[str]) -> bool:
    """Whether every number the parts admit is a multiple of a step `NOT_MULTIPLE` excludes:
    a `multipleOf` (or 1, for integers) that is itself a multiple of an excluded step. Only
    asked when the parts admit numbers alone (a `multipleOf` lets every other type through).

    Why: negated `multipleOf`s distributed through allOf/oneOf (`oneOf: [{multipleOf: 2},
    {multipleOf: 3}]` a dozen times) multiply into branches that are mostly such contradictions."""
    avoid = [k for p in plain for k in p.get(NOT_MULTIPLE, ())]
    if not avoid:
        return False
    from schemac.numbers.exact import is_multiple

    steps = [p["multipleOf"] for p in plain if "multipleOf" in p] + ([1] if types == ["integer"] else [])
    return any(is_multiple(m, k) for m in steps for k in avoid)


def _object_dead(screen: Screen, plain: list[dict[str, Any]], depth: int) -> bool:
    """Whether a required key's listed schemas contradict each other (the value must be an
    object, so every `required` applies)."""
    required = {k for p in plain for k in p.get("required", ()) if isinstance(k, str)}
    for key in required:
        subs = [p["properties"][key] for p in plain
                if isinstance(p.get("properties"), dict) and key in p["properties"]]
        if subs and screen.dead(subs, depth + 1):
            return True
    return False
