"""Negation normal form: push a `not` through combinators before any complement is attempted.

The walker lowers children first, so `{"not": {"not": X}}` complements X twice and fails when X
has no exact complement, although it means X. `normalise` rewrites a node's `not` whose operand
is only combinators (`not`, `allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`, booleans; annotations
ignored) into an equivalent form with the negations pushed inwards:

- ¬true = false, ¬false = true, ¬¬X = X;
- ¬(A ∧ B) = ¬A ∨ ¬B and ¬(A ∨ B) = ¬A ∧ ¬B (De Morgan; keywords of one node are a conjunction);
- ¬oneOf(B) = "none holds, or at least two hold": ∧ᵢ¬Bᵢ ∨ ∨_{i<j}(Bᵢ ∧ Bⱼ);
- ¬ite(I, T, E) = ite(I, ¬T, ¬E) = (I ∧ ¬T) ∨ (¬I ∧ ¬E); a missing branch is `true`.

Each rule is an equivalence, so the rewrite is exact whatever follows. The walker uses it as a
second attempt, when lowering the node as written failed for want of an exact complement: the
written form keeps its sibling context for the complement, which the pushed form may lose.
"""
from __future__ import annotations

from typing import Any

from schemac.lower.support.conjoin import decided_alone
from schemac.schema import ANNOTATION_KEYWORDS, Schema, all_of, any_of

#: Keywords a `not` operand may hold for the operand to be rewritten (besides annotations).
_COMBINATORS = frozenset({"not", "allOf", "anyOf", "oneOf", "if", "then", "else"})
#: A `oneOf` negated this wide would need more pairs than this (n(n-1)/2): left as written.
MAX_PAIRS = 64


def normalise(node: Schema) -> Schema | None:
    """`node` with its own `not` pushed through the combinators of its operand; None when the
    operand is not made only of combinators (nothing to rewrite)."""
    if not isinstance(node, dict) or "not" not in node or not _pushable(node["not"]):
        return None
    extra = negated(node["not"])
    rest = {k: v for k, v in node.items() if k != "not"}
    decided = decided_alone(rest, extra)
    if decided is not None:
        return decided
    if _lone_not(extra):  # still a negation: it keeps the siblings as its context
        return {k: (extra["not"] if k == "not" else v) for k, v in node.items()}
    out: dict[str, Any] = {}
    for k, v in node.items():  # `extra` takes the place of `not` (the property order it gives)
        if k == "not":
            out["allOf"] = [*out.get("allOf", []), extra]
        elif k == "allOf":
            out["allOf"] = [*out.get("allOf", []), *v]
        else:
            out[k] = v
    return out


def _pushable(s: Schema) -> bool:
    if isinstance(s, bool):
        return True
    if not isinstance(s, dict):
        return False
    core = set(s) - ANNOTATION_KEYWORDS
    if not core or not core <= _COMBINATORS:
        return False
    if "oneOf" in s and isinstance(s["oneOf"], list) and len(s["oneOf"]) * (len(s["oneOf"]) - 1) // 2 > MAX_PAIRS:
        return False
    return all(isinstance(s[k], list) for k in ("allOf", "anyOf", "oneOf") if k in s)


def negated(s: Schema) -> Schema:
    """A schema equivalent to {"not": s}, with negations pushed into combinator operands."""
    if s is True:
        return False
    if s is False:
        return True
    if not _pushable(s):
        return {"not": s}
    assert isinstance(s, dict)
    parts: list[Schema] = []  # ¬s is the disjunction of the negated conjuncts of s
    if "not" in s:
        parts.append(s["not"])
    parts.extend(negated(m) for m in s.get("allOf", []))
    if "anyOf" in s:
        parts.append(_all([negated(b) for b in s["anyOf"]]))
    if "oneOf" in s:
        parts.append(_not_one_of(s["oneOf"]))
    if "if" in s:
        parts.append(_not_conditional(s["if"], s.get("then", True), s.get("else", True)))
    return any_of(parts)


def _not_one_of(branches: list[Schema]) -> Schema:
    """No branch holds, or some two do."""
    pairs = [
        _all([branches[i], branches[j]]) for i in range(len(branches)) for j in range(i + 1, len(branches))
    ]
    return any_of([_all([negated(b) for b in branches]), *pairs])


def _not_conditional(guard: Schema, then: Schema, other: Schema) -> Schema:
    if then is True and other is True:
        return False
    if other is True:
        return _all([guard, negated(then)])
    if then is True:
        return _all([negated(guard), negated(other)])
    return {"if": guard, "then": negated(then), "else": negated(other)}


def _lone_not(s: Schema) -> bool:
    return isinstance(s, dict) and set(s) == {"not"}


def _all(parts: list[Schema]) -> Schema:
    """The conjunction of `parts`; a lone `{"not": X}` joins another part as its `not` keyword
    (`not` takes no annotations and no other keyword reads it), so its complement is taken
    within that part's constraints."""
    if any(p is False for p in parts):
        return False
    kept: list[Schema] = []
    for p in parts:
        if p is True:
            continue
        host = next((i for i, q in enumerate(kept) if isinstance(q, dict) and "not" not in q), None)
        if _lone_not(p) and host is not None:
            kept[host] = {**kept[host], "not": p["not"]}  # type: ignore[dict-item]
        elif isinstance(p, dict) and "not" not in p and not _lone_not(p):
            lone = next((i for i, q in enumerate(kept) if _lone_not(q)), None)
            kept.append({**p, "not": kept.pop(lone)["not"]} if lone is not None else p)  # type: ignore[index]
        else:
            kept.append(p)
    return all_of(kept)
