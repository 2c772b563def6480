"""`oneOf`: exactly one branch holds, lowered to `anyOf` forms llguidance enforces.

In order: a finite context (an `enum` beside the `oneOf`, in an allOf member or a `$ref` target,
or finite types: null, boolean, integers between bounds) is filtered value by value with the
validator; branches proven pairwise disjoint are an `anyOf` as they are; otherwise the exclusive
form anyOf[Aᵢ ∧ ¬Aⱼ (j ≠ i)], each complement taken inside Aᵢ and the siblings (pairs proven
disjoint need no complement). A branch whose complement is not exact rejects the `oneOf`.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import CompileError, reject
from schemac.lower.support.analysis import accepted_values, disjoint, evaluable, required_keys, types_of
from schemac.lower.support.context import LowerContext
from schemac.lower.negation.complement import negate
from schemac.lower.support.conjoin import conjoin
from schemac.lower.negation.domain import Domain
from schemac.schema import Schema, all_of, any_of


def lone_member(node: dict[str, Any]) -> int | None:
    """Index of the one `allOf` member that is a bare `{"oneOf": [...]}` in a node without its
    own `oneOf` (else None): a common way to write "these keys, and one of these variants"."""
    members = node.get("allOf")
    if "oneOf" in node or not isinstance(members, list):
        return None
    found = [i for i, m in enumerate(members) if isinstance(m, dict) and len(m) == 1 and "oneOf" in m]
    return found[0] if len(found) == 1 else None


def hoist(node: dict[str, Any], member: int) -> dict[str, Any]:
    """`node` with `allOf[member]`'s `oneOf` moved up beside the other keywords, right after the
    `allOf` (so property order is kept).

    Exact (`allOf: [X, {oneOf: B}]` is `allOf: [X], oneOf: B`), and it lets this pass see the
    node's `required` and sibling members when it proves the branches disjoint: a discriminator
    that the node requires, written outside the `allOf`, is the usual case.
    """
    out: dict[str, Any] = {}
    for kw, value in node.items():
        if kw != "allOf":
            out[kw] = value
            continue
        rest = [m for i, m in enumerate(value) if i != member]
        if rest:
            out["allOf"] = rest
        out["oneOf"] = value[member]["oneOf"]
    return out


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    if "oneOf" not in node:
        return node
    rest = {k: v for k, v in node.items() if k != "oneOf"}
    branches = [b for b in node["oneOf"] if b is not False]
    if not branches:
        return False
    if len(branches) == 1:
        return conjoin(rest, branches[0], node)
    here = ctx.at("oneOf")
    values = Domain.of(rest, here).values if rest else None
    if values is not None and all(evaluable(b) for b in branches):
        return conjoin(rest, _enumerate(branches, list(values), here), node)
    within, present = types_of(rest, ctx), required_keys(rest, ctx)
    n = len(branches)
    apart: set[tuple[int, int]] = set()  # pairs (i, j), i < j, proven disjoint; each tried once
    for i in range(n):
        for j in range(i + 1, n):
            if disjoint(branches[i], branches[j], here, 0, within, present):
                apart.add((i, j))
    if len(apart) == n * (n - 1) // 2:
        return conjoin(rest, {"anyOf": branches}, node)
    return conjoin(rest, _exclusive(branches, apart, rest, here), node)


def _enumerate(branches: list[Schema], values: list[Any], ctx: LowerContext) -> Schema:
    """The context's values that exactly one branch accepts (each checked with the validator)."""
    counts = [0] * len(values)
    for b in branches:
        accepted = accepted_values(b, values, ctx)
        for i, v in enumerate(values):
            if any(v is a for a in accepted):  # accepted_values returns members of `values`
                counts[i] += 1
    kept = [v for v, c in zip(values, counts) if c == 1]
    if not kept:
        return False
    return {"const": kept[0]} if len(kept) == 1 else {"enum": kept}


def _exclusive(branches: list[Schema], apart: set[tuple[int, int]], rest: dict[str, Any], ctx: LowerContext) -> Schema:
    """anyOf over i of Aᵢ ∧ ¬Aⱼ for the j not proven disjoint from Aᵢ."""
    n = len(branches)
    ctx.budget.reserve("entries", n + n * (n - 1) - 2 * len(apart), ctx.pointer)
    out: list[Schema] = []
    for i, a in enumerate(branches):
        within: Schema = {"allOf": [rest, a]} if rest else a
        parts: list[Schema] = [a]
        for j, b in enumerate(branches):
            if i == j or (min(i, j), max(i, j)) in apart:
                continue
            try:
                parts.append(negate(b, ctx.at(j), within))
            except CompileError as exc:
                if "not-exact" not in exc.codes:
                    raise
                raise reject(
                    "one-of-not-exact",
                    ctx.pointer,
                    f"branches {i} and {j} may overlap and branch {j} has no exact complement: "
                    f"{exc.diagnostics[-1].message}",
                    hint="make the branches disjoint (e.g. a required discriminator property with distinct consts)",
                ) from exc
        out.append(all_of(parts))
    return any_of(out)
