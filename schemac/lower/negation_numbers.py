"""Negation of numeric keywords and number values, with exact arithmetic throughout.

A float in a schema stands for the decimal its repr spells (`schemac.numbers.exact`), so values
are ordered, deduplicated and rounded to integers through `exact`/`fraction`, never through
Python's float arithmetic (`1e23 != 10**23` as floats, yet the schema means the same number).
The branches keep the schema's own literals, which the emitter turns into exact number lexemes.
"""
from __future__ import annotations

import math
from typing import Any

from schemac.lower.context import LowerContext
from schemac.lower.negation_domain import Domain, not_exact
from schemac.numbers import exact, fraction, is_integral, is_multiple
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
    """Numbers that are not multiples of k: exact only over integers, by enumeration in range."""
    if not dom.integers:
        raise not_exact(ctx, f"`multipleOf` {k} over all numbers")
    if is_multiple(1, k):
        return []  # every integer is a multiple
    lo, hi = int_range(s)
    if lo is None or hi is None:
        raise not_exact(ctx, f"`multipleOf` {k} over an unbounded integer range", "bound it with minimum/maximum")
    ctx.budget.reserve("entries", max(hi - lo + 1, 0), ctx.pointer)
    others = [n for n in range(lo, hi + 1) if not is_multiple(n, k)]
    if not others:
        return []
    return [{"const": others[0]} if len(others) == 1 else {"enum": others}]


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
