"""`if`/`then`/`else` as (if ∧ then) ∨ (¬if ∧ else), with missing branches taken as `true`.

Without `then` the conditional is just `if ∨ else` (no complement needed). Otherwise the guard is
complemented by `negation.negate` inside the `else` branch and the siblings, which covers finite
guarded domains too: where that context has a small `enum`, each candidate is checked against
the guard with the validator. A guard with no exact complement rejects with `if-not-exact`.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import CompileError, reject
from schemac.lower.support.context import LowerContext
from schemac.lower.negation.complement import negate
from schemac.lower.support.conjoin import conjoin
from schemac.schema import Schema, all_of, any_of

_KEYWORDS = ("if", "then", "else")


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    if "if" not in node:
        return node
    rest = {k: v for k, v in node.items() if k not in _KEYWORDS}
    guard: Schema = node["if"]
    then: Schema = node.get("then", True)
    other: Schema = node.get("else", True)
    if guard is True or then is other is True:
        return conjoin(rest, then, node)
    if guard is False:
        return conjoin(rest, other, node)
    ctx.budget.reserve("entries", 2, ctx.pointer)
    if then is True:
        return conjoin(rest, {"anyOf": [guard, other]}, node)
    within: Schema = {"allOf": [rest, other]} if rest and other is not True else (rest or other)
    try:
        complement = negate(guard, ctx.at("if"), within)
    except CompileError as exc:
        if "not-exact" not in exc.codes:
            raise
        raise reject(
            "if-not-exact",
            ctx.pointer + "/if",
            f"the `if` guard cannot be complemented exactly: {exc.diagnostics[-1].message}",
            hint="use a guard on a const/enum property, type, or bounds",
        ) from exc
    taken = all_of([guard, then])
    skipped = all_of([complement, other])
    branches = [b for b in (taken, skipped) if b is not False]
    if not branches:
        return False
    if True in branches:
        return rest or True
    return conjoin(rest, any_of(branches), node)
