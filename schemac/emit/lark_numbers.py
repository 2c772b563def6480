"""Numbers with a value constraint, written as one exact Lark terminal.

llguidance's own numeric ranges are inexact (`exclusiveMinimum: 0, maximum: 0.5` admits `0`,
bounds past 2^53 are doubles), so a number or integer with bounds or `multipleOf` never goes to
its JSON compiler: `schemac.numbers.number_regex` builds the lexeme from the exact decimal bounds,
or says it cannot (then the schema is rejected, never approximated).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from schemac.diagnostics import reject
from schemac.emit.lark_merge import NUMBER_KEYS

#: keyword -> number_regex's parameter name
_PARAMS = {"minimum": "minimum", "maximum": "maximum", "exclusiveMinimum": "exclusive_minimum",
           "exclusiveMaximum": "exclusive_maximum", "multipleOf": "multiple_of"}


def constrained(node: dict[str, Any]) -> bool:
    """Whether `node` constrains the value of numbers it admits (its types allow numbers)."""
    if NUMBER_KEYS.isdisjoint(node):
        return False
    t = node.get("type")
    names = [t] if isinstance(t, str) else t if isinstance(t, list) else ["number"]
    return "number" in names or "integer" in names


def _typed(value: Any) -> tuple[str, Any]:
    """A cache key part that keeps 1, 1.0 and Decimal("1") apart (their spellings differ)."""
    return (type(value).__name__, value)


@lru_cache(maxsize=1024)
def _regex(integer: bool, bounds: tuple[tuple[str, tuple[str, Any]], ...]) -> str | None:
    """`number_regex`, cached: the automaton is costly and schemas repeat their bounds."""
    from schemac.numbers import number_regex

    return number_regex(integer=integer, **{name: value for name, (_, value) in bounds})


def number_terminal(node: dict[str, Any], integer: bool, pointer: str) -> str | None:
    """The Lark terminal body (`/.../`) for the numbers `node`'s numeric keywords admit, or None
    when no number satisfies them."""
    from schemac.numbers import EMPTY

    body = _regex(integer, tuple(sorted((_PARAMS[k], _typed(v)) for k, v in node.items() if k in _PARAMS)))
    if body is None:
        raise reject("grammar-error", pointer,
                     "no exact number lexeme exists for these numeric constraints, and llguidance's own is not exact",
                     hint="simplify `multipleOf` or the bounds")
    if body == EMPTY:
        return None
    return "/" + body.replace("/", "\\/") + "/"
