"""Negation of numeric keywords and number values, with exact arithmetic throughout.

A float in a schema stands for the decimal its repr spells (`schemac.numbers.exact.exact`), so values
are ordered, deduplicated and rounded to integers through `exact`/`fraction`, never through
Python's float arithmetic (`1e23 != 10**23` as floats, yet the schema means the same number).
The branches keep the schema's own literals, which the emitter turns into exact number lexemes;
"not a multiple of k" (and "not an integer", k = 1) is the `NOT_MULTIPLE` marker, which only the
Lark writer reads.
"""
from __future__ import annotations

import math
from typing import Any

from schemac.lower.support.context import LowerContext
from schemac.lower.support.marks import NOT_MULTIPLE
from schemac.lower.negation.domain import Domain
from schemac.numbers.exact import exact, fraction, is_integral, is_multiple
from schemac.schema import Schema


def not_numbers(vals: list[Any], dom: Domain) -> list[Schema]:
    """Numbers equal to none of `vals`: the open gaps between consecutive values (and beyond
    both ends); over an integer domain, gaps between consecutive integers are dropped."""
    by_value: dict[Any, Any] = {}
    for v in vals:
        by_value.setdefault(exact(v), v)
    points = [by_value[k] for k in sorted(by_value)]
    bounds: list[tuple[Any, Any]] = [(None, points[0]), *zip(points, points[1:]), (points[-1], None)]
    out: list[Schema] = []
    for lo, hi in bounds:
        if (dom.integers and lo is not None and hi is not None and is_integral(lo) and is_integral(hi)
                and exact(hi) - exact(lo) <= 1):
            continue
        branch: dict[str, Any] = {"type": "number"}
        if lo is not None:
            branch["exclusiveMinimum"] = lo
        if hi is not None:
            branch["exclusiveMaximum"] = hi
        out.append(branch)
    return out


def not_multiple(k: Any, s: dict[str, Any], ctx: LowerContext, dom: Domain) -> list[Schema]:
    """Numbers that are not multiples of k. Over integers within the operand's own bounds
    (outside them its bound complements hold), the enum of those integers, while the budget has
    room for them; elsewhere `{"type": "number", NOT_MULTIPLE: [k]}`, which the Lark writer
    turns into an exact number automaton.

    Why keep the enum where it fits: it is what compiled before the marker existed (a few
    literals, whatever the step), and a residue automaton for a large step prime to 10 can pass
    the automaton's state bound; the marker's size does not grow with the range, so it takes
    over where the enum would exhaust the budget, has no bound, or ranges over non-integers."""
    if dom.integers:
        if is_multiple(1, k):
            return []  # every integer is a multiple
        lo, hi = int_range(s)
        if lo is not None and hi is not None and ctx.budget.fits("entries", max(hi - lo + 1, 0)):
            ctx.budget.reserve("entries", max(hi - lo + 1, 0), ctx.pointer)
            others = [n for n in range(lo, hi + 1) if not is_multiple(n, k)]
            if not others:
                return []
            return [{"const": others[0]} if len(others) == 1 else {"enum": others}]
    return [non_multiples(k)]


def non_multiples(k: Any) -> Schema:
    """The numbers that are no multiple of `k` (the non-integer numbers for k = 1)."""
    return {"type": "number", NOT_MULTIPLE: [k]}


def int_range(s: dict[str, Any]) -> tuple[int | None, int | None]:
    """The inclusive integer range a node's own bounds allow, rounded exactly."""
    lo: int | None = None
    hi: int | None = None
    if "minimum" in s:
        lo = math.ceil(fraction(s["minimum"]))
    if "exclusiveMinimum" in s:
        e = math.floor(fraction(s["exclusiveMinimum"])) + 1
        lo = e if lo is None else max(lo, e)
    if "maximum" in s:
        hi = math.floor(fraction(s["maximum"]))
    if "exclusiveMaximum" in s:
        e = math.ceil(fraction(s["exclusiveMaximum"])) - 1
        hi = e if hi is None else min(hi, e)
    return lo, hi
