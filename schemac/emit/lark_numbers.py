"""Numbers with a value constraint, written as one exact Lark terminal (or right-linear rules).

llguidance's own numeric ranges are inexact (`exclusiveMinimum: 0, maximum: 0.5` admits `0`,
bounds past 2^53 are doubles), so a number or integer with bounds or `multipleOf` never goes to
its JSON compiler: `schemac.numbers.number_regex` builds the lexeme from the exact decimal bounds,
or says it cannot (then `schemac.numbers.number_rules` writes the same automaton as rules, or the
schema is rejected, never approximated). The lowering's `NOT_MULTIPLE` marker (numbers that are a
multiple of none of its steps, from `not multipleOf` and the non-integer numbers) has no JSON
Schema form at all, so it is only ever written here, as one more reader of the same automaton.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from schemac.diagnostics import reject
from schemac.emit.lark_merge import NUMBER_KEYS
from schemac.lower.marks import NOT_MULTIPLE

if TYPE_CHECKING:
    from schemac.emit.lark_writer import Writer

#: keyword -> number_regex's parameter name
_PARAMS = {"minimum": "minimum", "maximum": "maximum", "exclusiveMinimum": "exclusive_minimum",
           "exclusiveMaximum": "exclusive_maximum", "multipleOf": "multiple_of", NOT_MULTIPLE: "not_multiple_of"}
Typed = tuple[str, Any]


def constrained(node: dict[str, Any]) -> bool:
    """Whether `node` constrains the value of numbers it admits (its types allow numbers)."""
    if NUMBER_KEYS.isdisjoint(node):
        return False
    t = node.get("type")
    names = [t] if isinstance(t, str) else t if isinstance(t, list) else ["number"]
    return "number" in names or "integer" in names


def _typed(value: Any) -> Typed:
    """A cache key part that keeps 1, 1.0 and Decimal("1") apart (their spellings differ); a
    list (the `NOT_MULTIPLE` steps) becomes a tuple of such parts."""
    if isinstance(value, list):
        return ("list", tuple(_typed(v) for v in value))
    return (type(value).__name__, value)


def _untyped(typed: Typed) -> Any:
    kind, value = typed
    return [v for _, v in value] if kind == "list" else value


def _params(node: dict[str, Any]) -> tuple[tuple[str, Typed], ...]:
    return tuple(sorted((_PARAMS[k], _typed(v)) for k, v in node.items() if k in _PARAMS))


@lru_cache(maxsize=1024)
def _regex(integer: bool, bounds: tuple[tuple[str, Typed], ...]) -> str | None:
    """`number_regex`, cached: the automaton is costly and schemas repeat their bounds."""
    from schemac.numbers import number_regex

    return number_regex(integer=integer, **{name: _untyped(value) for name, value in bounds})


def _too_large(pointer: str) -> Exception:
    return reject("grammar-error", pointer,
                  "no exact number lexeme exists for these numeric constraints (its automaton passes the regex "
                  "bounds, and as rules it passes the depth llguidance's compiler can recurse through without "
                  "overflowing its stack), and llguidance's own is not exact",
                  hint="simplify `multipleOf`/`not multipleOf` (a step with a factor prime to 10 costs that many states)")


def number_expr(writer: "Writer", node: dict[str, Any], integer: bool, pointer: str) -> str | None:
    """A Lark expression (a terminal or rule name of `writer`) for the numbers `node`'s numeric
    keywords admit, or None when no number satisfies them.

    Why two forms: a residue automaton's regex grows exponentially with the step's factor prime
    to 10 (`multipleOf: 7`, `not multipleOf: 7`), while `number_rules` writes it as right-linear
    rules that grow with the automaton; the terminal is kept where it fits (one lexeme is cheaper
    for llguidance than a rule per digit)."""
    from schemac.numbers import EMPTY, number_rules

    params = _params(node)
    body = _regex(integer, params)
    if body == EMPTY:
        return None
    if body is not None:
        return writer.terminal("N", "/" + body.replace("/", "\\/") + "/")
    key = "r" + repr((integer, params))
    if key not in writer.memo:
        name = writer.name("num")
        rules = number_rules(name, integer=integer, **{k: _untyped(value) for k, value in params})
        if rules is None:  # past the state or depth bound (an empty language has a regex: EMPTY)
            raise _too_large(pointer)
        writer.rules.extend(rules.rstrip("\n").split("\n"))
        writer.memo[key] = name
    return writer.memo[key]
