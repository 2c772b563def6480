"""unevaluatedProperties / unevaluatedItems → additionalProperties / items, split into exact cases.

What a node evaluates depends on which of its subschemas succeed, so the analysis yields *cases*:
pairs (guard, E) such that, for every instance the rest of the node accepts, (a) some case's guard
holds and its E is exactly the evaluated set, and (b) every case whose guard holds has E inside
the evaluated set. Then `rest ∧ anyOf[guardᵢ ∧ check(Eᵢ)]` is exact: (a) gives ⇒ and (b) gives ⇐,
because checking fewer evaluated keys is only stricter. Cases come from the keywords as
jsonschema (the oracle) collects annotations: a branch of anyOf/oneOf/allOf counts when it
succeeds (anyOf: every subset of succeeding branches, guarded by those branches alone), `if`
when it succeeds, else `then`, otherwise `¬if ∧ else`; dependentSchemas when the key is present;
`contains` marks the items it matches (checked items become anyOf[contains, unevaluated]); `not`
contributes nothing; `$ref` contributes its target's cases. A case with an empty E needs no guard.
Dominated cases (weaker guard, larger E elsewhere) are dropped and a part whose cases all share
one E is static. The analysis reads the user's schemas (the bundle before lowering), because
lowering rewrites applicators into forms that carry other annotations; only guards and contains
schemas are lowered. One static case is merged into the node (additionalProperties / items).
Every generated case is charged to the budget; a recursive in-place evaluation, or a node whose
source cannot be told apart from another copy, is `unevaluated-dynamic`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from schemac.diagnostics import reject
from schemac.lower.support.context import LowerContext
from schemac.schema import Schema, all_of, child_pointer, pointer_child, ref_name

_KEYWORDS = ("unevaluatedProperties", "unevaluatedItems")


@dataclass(frozen=True)
class Evaluated:
    """What a schema evaluates: property names and patterns, an item prefix, the items matched
    by some `contains` schemas (keys into the analysis' parts), or everything."""

    names: frozenset[str] = frozenset()
    patterns: frozenset[str] = frozenset()
    prefix: int = 0
    contains: frozenset[int] = frozenset()
    all_props: bool = False
    all_items: bool = False

    def __or__(self, other: "Evaluated") -> "Evaluated":
        return Evaluated(self.names | other.names, self.patterns | other.patterns,
                         max(self.prefix, other.prefix), self.contains | other.contains,
                         self.all_props or other.all_props, self.all_items or other.all_items)

    def within(self, other: "Evaluated") -> bool:
        props = other.all_props or (not self.all_props and self.names <= other.names
                                    and self.patterns <= other.patterns)
        items = other.all_items or (not self.all_items and self.prefix <= other.prefix
                                    and self.contains <= other.contains)
        return props and items


Case = tuple[frozenset[int], Evaluated]  # (keys of the guard's conjuncts, evaluated set)
NOTHING = Evaluated()


class _Dynamic(Exception):
    pass


def _source(ctx: LowerContext) -> dict[str, Any] | None:
    """The user's (unlowered) node at `ctx.pointer`: from the definition holding the pointer.

    None when no definition holds it or several copies (one per dynamic scope) differ there.
    """
    bundle = ctx.defs.source
    tokens = ctx.pointer.split("/")[1:] if ctx.pointer else []
    holders: list[tuple[int, str, Schema]] = [(0, "", bundle.root)]
    for name, origin in bundle.origin.items():
        head = origin.split("/")[1:] if origin else []
        if tokens[:len(head)] == head:
            holders.append((len(head), name, bundle.defs[name]))
    for depth in sorted({d for d, _, _ in holders}, reverse=True):
        found: list[tuple[str, dict[str, Any]]] = []
        for d, name, body in holders:
            if d == depth:
                node = _walk(body, tokens[depth:])
                if isinstance(node, dict) and any(k in node for k in _KEYWORDS):
                    found.append((name, node))
        if len(found) > 1:  # copies of one location: the one being lowered, if that is known
            found = [f for f in found if f[0] in ctx.defs.in_progress] or found
        if found:
            first = found[0][1]
            return first if all(node == first for _, node in found[1:]) else None
    return None


def _below(base: str, pointer: str) -> tuple[str, ...]:
    """Tokens leading from `base` to `pointer` (diagnostics locate parts from elsewhere at `base`)."""
    if not pointer.startswith(base + "/"):
        return ()
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in pointer[len(base) + 1:].split("/"))


def _walk(node: Any, tokens: list[str]) -> Any:
    for raw in tokens:
        found, node = pointer_child(node, raw.replace("~1", "/").replace("~0", "~"))
        if not found:
            return None
    return node


class _Analysis:
    """Cases of one node, over the user's schemas; guard parts are lowered only when used."""

    def __init__(self, ctx: LowerContext, props: bool, items: bool, lowered: dict[int, Schema]) -> None:
        self.ctx, self.props, self.items = ctx, props, items
        self.lowered_children = lowered  # id(user subschema) -> its lowered form (direct children)
        self.parts: list[tuple[str, Any, str]] = []  # (kind, user schema or key name, pointer)
        self.keys: dict[tuple[str, Any], int] = {}
        self.memo: dict[int, Schema] = {}

    def part(self, kind: str, value: Any, pointer: str) -> int:
        ident = (kind, id(value) if kind != "required" else value)
        if ident not in self.keys:
            self.keys[ident] = len(self.parts)
            self.parts.append((kind, value, pointer))
        return self.keys[ident]

    def lowered(self, key: int) -> Schema:
        """The lowered schema of part `key`: a subschema, its negation, or 'object with key'."""
        if key not in self.memo:
            kind, value, pointer = self.parts[key]
            tokens = _below(self.ctx.pointer, pointer)
            if kind == "required":
                out: Schema = {"type": "object", "required": [value]}
            else:
                out = self.lowered_children.get(id(value))
                if out is None:
                    out = self.ctx.lower(value, *tokens)
                if kind == "not":
                    out = self.ctx.lower({"not": out}, *tokens)
            self.memo[key] = out
        return self.memo[key]

    def norm(self, e: Evaluated) -> Evaluated:
        """Drop what no check reads, so equal-looking sets compare equal."""
        if not self.props or e.all_props:
            e = replace(e, names=frozenset(), patterns=frozenset(), all_props=True)
        if not self.items or e.all_items:
            e = replace(e, prefix=0, contains=frozenset(), all_items=True)
        return e

    def product(self, a: list[Case], b: list[Case], pointer: str) -> list[Case]:
        if len(b) == 1 and not b[0][0]:
            return _prune([(g, self.norm(e | b[0][1])) for g, e in a])
        if len(a) > 1 and len(b) > 1:
            self.ctx.budget.reserve("entries", len(a) * len(b), pointer)
        return _prune([(g1 | g2, self.norm(e1 | e2)) for g1, e1 in a for g2, e2 in b])

    def cases(self, schema: Schema, ptr: str, seen: frozenset[str] = frozenset()) -> list[Case]:
        """The cases of `schema` (a user schema at document pointer `ptr`)."""
        if not isinstance(schema, dict):
            return [(frozenset(), self.norm(NOTHING))]
        def here(*tokens: str | int) -> str:
            return child_pointer(ptr, *tokens)

        props = schema.get("properties")
        pats = schema.get("patternProperties")
        prefix = schema.get("prefixItems")
        contains = schema.get("contains")
        own = Evaluated(
            frozenset(props) if isinstance(props, dict) else frozenset(),
            frozenset(pats) if isinstance(pats, dict) else frozenset(),
            len(prefix) if isinstance(prefix, list) else 0,
            frozenset({self.part("schema", contains, here("contains"))})
            if self.items and isinstance(contains, (dict, bool)) else frozenset(),
            "additionalProperties" in schema or "unevaluatedProperties" in schema,
            "items" in schema or "unevaluatedItems" in schema,
        )
        acc: list[Case] = [(frozenset(), self.norm(own))]
        name = ref_name(schema)
        if name is not None:
            if name in seen or name not in self.ctx.defs.source.defs:
                raise _Dynamic
            acc = self.product(acc, self.cases(self.ctx.defs.source.defs[name], self.ctx.defs.origin(name),
                                               seen | {name}), ptr)
        for i, sub in enumerate(schema.get("allOf", [])):
            acc = self.product(acc, self.cases(sub, here("allOf", i), seen), ptr)
        for kw in ("anyOf", "oneOf"):
            branches = [(i, b) for i, b in enumerate(schema.get(kw, [])) if b is not False]
            if branches:
                each = [[(g | {self.part("schema", b, here(kw, i))}, e) for g, e in self.cases(b, here(kw, i), seen)]
                        for i, b in branches]
                part = self.any_of(each, here(kw)) if kw == "anyOf" else _prune([c for cs in each for c in cs])
                acc = self.product(acc, _collapse(part), ptr)
        if "if" in schema:
            acc = self.product(acc, self.conditional(schema, ptr, seen), ptr)
        deps = schema.get("dependentSchemas")
        if self.props and isinstance(deps, dict):
            for key, sub in deps.items():
                at = here("dependentSchemas", key)
                present = self.part("required", key, at)
                options = [(frozenset(), self.norm(NOTHING))] + [
                    (g | {present}, self.norm(replace(e, prefix=0, contains=frozenset(), all_items=False)))
                    for g, e in self.cases(sub, at, seen)]
                acc = self.product(acc, _collapse(_prune(options)), ptr)
        return _collapse(acc)

    def any_of(self, each: list[list[Case]], pointer: str) -> list[Case]:
        """Every non-empty set of succeeding branches, guarded by those branches."""
        partial: list[Case] = []
        for cases in each:
            grown = [(g1 | g2, self.norm(e1 | e2)) for g1, e1 in partial for g2, e2 in cases]
            self.ctx.budget.reserve("entries", len(grown), pointer)
            partial = _prune(partial + cases + grown)
        return partial

    def conditional(self, schema: dict[str, Any], ptr: str, seen: frozenset[str]) -> list[Case]:
        """(if ∧ then) counts if and then; (¬if ∧ else) counts else only."""
        guard = schema["if"]
        at = child_pointer(ptr, "if")
        taken: list[Case] = []
        if guard is not False:
            both = self.product(self.cases(guard, at, seen),
                                self.cases(schema.get("then", True), child_pointer(ptr, "then"), seen), ptr)
            key = frozenset() if guard is True else frozenset({self.part("schema", guard, at)})
            taken = [(g | key, e) for g, e in both]
        skipped = self.cases(schema.get("else", True), child_pointer(ptr, "else"), seen)
        if guard is True:
            skipped = []
        elif any(e != self.norm(NOTHING) for _, e in skipped):
            negated = frozenset({self.part("not", guard, at)})
            skipped = [(g | negated, e) for g, e in skipped]
        else:  # the else side evaluates nothing: no guard needed
            skipped = [(frozenset(), self.norm(NOTHING))]
        return _collapse(_prune(taken + skipped))


def _prune(cases: list[Case]) -> list[Case]:
    """Drop cases another one covers (a guard with fewer conjuncts and a larger evaluated set)."""
    out: list[Case] = []
    for i, (g, e) in enumerate(cases):
        if not any(j != i and g2 <= g and e.within(e2) and ((g2, e2) != (g, e) or j < i)
                   for j, (g2, e2) in enumerate(cases)):
            out.append((g, e))
    return out


def _collapse(cases: list[Case]) -> list[Case]:
    """A part whose cases all evaluate the same set evaluates it whichever case holds."""
    if len(cases) > 1 and all(e == cases[0][1] for _, e in cases[1:]):
        return [(frozenset(), cases[0][1])]
    return cases


def _direct_children(user: dict[str, Any], node: dict[str, Any]) -> dict[int, Schema]:
    """id(user subschema) -> lowered subschema, for the node's own (already lowered) children."""
    out: dict[int, Schema] = {}
    for kw in ("allOf", "anyOf", "oneOf"):
        mine, low = user.get(kw), node.get(kw)
        if isinstance(mine, list) and isinstance(low, list) and len(mine) == len(low):
            out.update((id(a), b) for a, b in zip(mine, low))
    for kw in ("if", "then", "else", "contains"):
        if kw in user and kw in node:
            out[id(user[kw])] = node[kw]
    return out


def _check(e: Evaluated, node: dict[str, Any], an: _Analysis) -> dict[str, Any]:
    """What must hold of the keys/items outside `e`."""
    out: dict[str, Any] = {}
    if an.props and not e.all_props:
        if e.names:
            out["properties"] = {n: True for n in sorted(e.names)}
        if e.patterns:
            pats = sorted(e.patterns)
            out["patternProperties"] = {pats[0] if len(pats) == 1 else "|".join(f"(?:{p})" for p in pats): True}
        out["additionalProperties"] = node["unevaluatedProperties"]
    if an.items and not e.all_items:
        if e.prefix:
            out["prefixItems"] = [True] * e.prefix
        rest: Schema = node["unevaluatedItems"]
        if e.contains:
            either = [an.lowered(k) for k in sorted(e.contains)] + ([] if rest is False else [rest])
            rest = either[0] if len(either) == 1 else {"anyOf": either}
        out["items"] = rest
    return out


def _merge(out: dict[str, Any], e: Evaluated, node: dict[str, Any], an: _Analysis) -> dict[str, Any]:
    """The one static case, written into the node itself (listing the evaluated keys as `true`)."""
    if an.props and not e.all_props:
        own = dict(out.get("properties", {}))
        merged = {**own, **{n: True for n in sorted(e.names - set(own))}}
        if merged:
            out["properties"] = merged
        if e.patterns:
            own_p = dict(out.get("patternProperties", {}))
            out["patternProperties"] = {**own_p, **{p: True for p in sorted(e.patterns - set(own_p))}}
        out["additionalProperties"] = node["unevaluatedProperties"]
    if an.items and not e.all_items:
        prefix = list(out.get("prefixItems", []))
        if e.prefix > len(prefix):
            out["prefixItems"] = prefix + [True] * (e.prefix - len(prefix))
        out["items"] = _check(e, node, an)["items"]
    return out


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    if not any(k in node for k in _KEYWORDS):
        return node
    kw = next(k for k in _KEYWORDS if k in node)
    props = node.get("unevaluatedProperties", True) is not True
    items = node.get("unevaluatedItems", True) is not True
    out = {k: v for k, v in node.items() if k not in _KEYWORDS}
    if not props and not items:
        return out
    user = _source(ctx)
    an = _Analysis(ctx, props, items, _direct_children(user, node) if user is not None else {})
    try:
        if user is None:
            raise _Dynamic
        cases = an.cases({k: v for k, v in user.items() if k not in _KEYWORDS}, ctx.pointer)
    except _Dynamic:
        raise reject("unevaluated-dynamic", child_pointer(ctx.pointer, kw),
                     f"`{kw}` depends on an in-place recursion or a scope-specific copy of this schema",
                     hint="use additionalProperties/items") from None
    if len(cases) == 1 and not cases[0][0]:
        return _merge(out, cases[0][1], node, an)
    ctx.budget.reserve("entries", len(cases), ctx.pointer)
    branches: list[Schema] = []
    for guard, e in cases:
        branch = all_of([p for p in [an.lowered(k) for k in sorted(guard)] + [_check(e, node, an)] if p != {}])
        if branch is not False:
            branches.append(branch)
    generated = ctx.lower({"anyOf": branches} if branches else False)
    return {**out, "allOf": list(out.get("allOf", [])) + [generated]}
