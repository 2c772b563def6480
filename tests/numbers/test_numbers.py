"""Exact number lexemes (`schemac.numbers.exact.number_regex`), walked exhaustively through llguidance.

For every constraint combination of the grid, llguidance (a Lark grammar `start: /regex/`, byte
tokenizer) is walked depth-first over `-0123456789.eE+` to every spelling of up to 4 characters
(5 for the issue's examples),
following its own token mask (what a serving engine uses), and the set it accepts must equal the
oracle's: the policy spellings (a regex written here) whose value, read by `Decimal` as a
`Fraction`, satisfies the constraints. Spellings around each bound (the bound itself, with
trailing zeros, one unit off at several digit positions, negated) are checked one by one, which
reaches past 5 characters and past 2^53. The oracle shares no code with the generator.
"""
from __future__ import annotations

import itertools
import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

import pytest

from schemac.numbers.exact import (
    EMPTY,
    exact,
    fraction,
    is_integral,
    is_multiple,
    literal_is_exact,
    number_regex,
    number_rules,
)

WALK = "-0123456789.eE+"
DEPTH = 4  # every spelling of up to 4 characters; the issue's examples go to 5
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUM = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")


def _value(x: Any) -> Fraction:
    """The oracle's reading of a constraint argument: a float is the decimal its repr spells."""
    return Fraction(Decimal(repr(x) if isinstance(x, float) else str(x)))


_CHECKS = {
    "minimum": lambda v, b: v >= b, "maximum": lambda v, b: v <= b,
    "exclusive_minimum": lambda v, b: v > b, "exclusive_maximum": lambda v, b: v < b,
    "multiple_of": lambda v, b: (v / b).denominator == 1,
}


def oracle(text: str, integer: bool, cons: dict[str, Any]) -> bool:
    if not (_INT if integer else _NUM).fullmatch(text):
        return False
    v = Fraction(Decimal(text))
    if text.startswith("-") and v == 0:
        return False  # the policy never spells a negative zero
    return all(_CHECKS[k](v, _value(b)) for k, b in cons.items())


@lru_cache(maxsize=2)
def _spellings(depth: int) -> tuple[tuple[str, Fraction, bool], ...]:
    """(text, value, integer spelling) for every policy spelling of up to `depth` characters."""
    out = []
    for n in range(1, depth + 1):
        for chars in itertools.product("-0123456789.", repeat=n):
            text = "".join(chars)
            if _NUM.fullmatch(text) and not (text.startswith("-") and not text.strip("-0.")):
                out.append((text, Fraction(Decimal(text)), "." not in text))
    return tuple(out)


def _matcher(regex: str, rules: str | None = None) -> Any:
    import llguidance

    from testkit.grammar_harness import _tokenizer

    grammar = llguidance.LLMatcher.grammar_from_lark("start: num\n" + rules if rules else f"start: /{regex}/")
    matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    assert not matcher.is_error(), matcher.get_error()
    return matcher


def _walk(matcher: Any, depth: int) -> set[str]:
    """Every text of up to `depth` characters over WALK that the matcher accepts."""
    from testkit.grammar_harness import accepted_texts

    assert not matcher.is_accepting()  # never the empty text
    return accepted_texts(matcher, WALK, depth)


def _accepts(matcher: Any, text: str) -> bool:
    """On a fork, so `matcher` itself is never rolled back."""
    m = matcher.deep_copy()
    tokens = list(text.encode())
    return m.try_consume_tokens(tokens) == len(tokens) and m.is_accepting()


def _near(x: Any) -> list[str]:
    """Spellings around a bound: itself, trailing zeros, ±1 at each digit position, negated."""
    d = Decimal(repr(x) if isinstance(x, float) else str(x))
    out = set()
    for k in range(-2, 4):
        unit = Decimal(1).scaleb(-k)
        for v in (d, d - unit, d + unit):
            plain = format(v, "f")
            out |= {plain, plain + ".0" if "." not in plain else plain + "0", plain + "01" if "." in plain else plain + ".01"}
    out |= {"-" + s for s in out if not s.startswith("-")} | {s[1:] for s in out if s.startswith("-")}
    return sorted(out)


def check(integer: bool, depth: int = DEPTH, **cons: Any) -> None:
    regex = number_regex(integer=integer, **cons)
    assert regex is not None, cons
    assert re.fullmatch(r"[-0-9.\\|()?:*{},\[\]\^sS]*", regex), regex  # the documented regex subset
    matcher = _matcher(regex)
    bounds = {k: _value(b) for k, b in cons.items()}
    want = {t for t, v, whole in _spellings(depth)
            if (whole or not integer) and all(_CHECKS[k](v, b) for k, b in bounds.items())}
    got = _walk(matcher, depth)
    assert got == want, (cons, sorted(got - want)[:5], sorted(want - got)[:5])
    for text in {t for b in cons.values() for t in _near(b)} | {"0", "-0", "0.0", "-0.0", "1", "-1"}:
        assert _accepts(matcher, text) == oracle(text, integer, cons), (cons, text)


_BOUNDS = [0, 1, -1, 12, -12, 0.5, -0.5, 2.25, -0.05, 100, Decimal("0.35"), 9007199254740995, -9007199254740993]
_STEPS = [1, 2, 3, 7, 10, 0.1, 0.25, 1.5, Decimal("0.02")]


@pytest.mark.parametrize("integer", [True, False])
@pytest.mark.parametrize("kw", ["minimum", "maximum", "exclusive_minimum", "exclusive_maximum"])
@pytest.mark.parametrize("bound", _BOUNDS, ids=str)
def test_one_bound(integer: bool, kw: str, bound: Any) -> None:
    check(integer, **{kw: bound})


_RANGES = [
    (0, 0.5), (-0.5, 0), (0, 0), (-1, 1), (1.5, 2), (-12, 100), (0.35, 2.25), (-0.05, 0.05), (2, 1),
    (9007199254740993, 9007199254740995), (-100, -12), (0.5, 0.5),
]


@pytest.mark.parametrize("integer", [True, False])
@pytest.mark.parametrize("lo_kw,hi_kw", [("minimum", "maximum"), ("exclusive_minimum", "exclusive_maximum"),
                                         ("minimum", "exclusive_maximum"), ("exclusive_minimum", "maximum")])
@pytest.mark.parametrize("lo,hi", _RANGES, ids=str)
def test_ranges(integer: bool, lo_kw: str, hi_kw: str, lo: Any, hi: Any) -> None:
    check(integer, **{lo_kw: lo, hi_kw: hi})


@pytest.mark.parametrize("integer", [True, False])
@pytest.mark.parametrize("step", _STEPS, ids=str)
@pytest.mark.parametrize("bounds", [{}, {"maximum": 0.35}, {"exclusive_minimum": -12, "maximum": 100},
                                    {"minimum": 0.5}, {"exclusive_maximum": -0.05}], ids=str)
def test_multiple_of(integer: bool, step: Any, bounds: dict[str, Any]) -> None:
    if step == 7 and len(bounds) < 2:  # a residue automaton mod 7 over unbounded digits
        assert number_regex(integer=integer, multiple_of=step, **bounds) is None  # passes the size bound
        return
    check(integer, multiple_of=step, **bounds)


def test_unconstrained_forms() -> None:
    assert number_regex(integer=True) == r"0|-?[1-9][0-9]*"  # never -0
    full = _matcher(number_regex(integer=False))
    for text, ok in [("-0", True), ("1e5", True), ("1.5E-3", True), ("01", False), ("1.", False), (".5", False)]:
        assert _accepts(full, text) == ok, text


def test_empty_range_matches_nothing() -> None:
    assert number_regex(integer=True, minimum=0.25, maximum=0.75) == EMPTY
    assert _walk(_matcher(EMPTY), 3) == set()


def test_issue_examples() -> None:
    """The reproductions from the issue, in the policy's spellings, walked to 5 characters."""
    check(False, 5, exclusive_minimum=0, maximum=0.5)
    check(False, 5, exclusive_minimum=-0.5, exclusive_maximum=0)
    check(True, 5, maximum=9007199254740995)
    check(False, 5, multiple_of=0.1, maximum=0.35)
    m = _matcher(number_regex(integer=False, exclusive_minimum=0, maximum=0.5))
    assert not _accepts(m, "0") and not _accepts(m, "0.0") and _accepts(m, "0.5") and _accepts(m, "0.00001")
    m = _matcher(number_regex(integer=False, exclusive_minimum=-0.5, exclusive_maximum=0))
    assert not _accepts(m, "-0") and not _accepts(m, "0") and _accepts(m, "-0.1")
    m = _matcher(number_regex(integer=True, maximum=9007199254740995))
    assert _accepts(m, "9007199254740995") and not _accepts(m, "9007199254740996")
    m = _matcher(number_regex(integer=False, multiple_of=0.1, maximum=0.35))
    assert all(_accepts(m, t) for t in ("0.3", "0.30", "0.300", "-0.1", "0", "0.0"))
    assert not any(_accepts(m, t) for t in ("0.4", "0.31", "0.35", "-0.05"))


def test_size_bound_gives_none() -> None:
    assert number_regex(integer=True, multiple_of=7, minimum=0, maximum=10 ** 6, max_chars=50) is None
    assert number_regex(integer=False, maximum=10 ** 300, multiple_of=0.5) is None  # a step past MAX_BOUND_DIGITS
    assert number_regex(integer=False, maximum=Decimal("1.5e300"), max_chars=20) is None  # the bounds' form too
    assert number_regex(integer=False, multiple_of=97) is None  # a residue automaton mod 97


def test_exact_values() -> None:
    assert exact(9007199254740995) == 9007199254740995
    assert exact(0.1) == Decimal("0.1") and exact(1e-7) == Decimal("1e-7") and exact(-0.0) == 0
    assert fraction(0.1) == Fraction(1, 10)
    for bad in (True, "1", None):
        with pytest.raises(TypeError):
            exact(bad)
    with pytest.raises(ValueError):
        exact(float("nan"))
    assert is_integral(1.0) and not is_integral(0.5) and is_integral(10 ** 30)
    assert is_multiple(0.3, 0.1) and is_multiple(Decimal("0.35"), Decimal("0.05")) and not is_multiple(0.35, 0.1)
    assert is_multiple(9007199254740995, 5) and not is_multiple(9007199254740995, 2)


@pytest.mark.parametrize("text,ok", [
    ("0.1", True), ("1e2", True), ("1.5E-7", True), ("-0.0", True), ("123456789.125", True),
    ("0.10000000000000000001", False), ("9007199254740993.0", False), ("1e400", False), ("1.00000000000000001", False),
])
def test_literal_is_exact(text: str, ok: bool) -> None:
    assert literal_is_exact(text) == ok


@pytest.mark.parametrize("integer", [True, False])
@pytest.mark.parametrize("cons", [{"multiple_of": 7}, {"multiple_of": 13, "minimum": -1.5}, {"multiple_of": 0.7},
                                  {"minimum": -12, "exclusive_maximum": 2.25}, {"multiple_of": 11, "maximum": 0}], ids=str)
def test_rules_form(integer: bool, cons: dict[str, Any]) -> None:
    """`number_rules`: the same language as a right-linear Lark grammar, for steps whose regex
    passes the size bound; walked like the regexes."""
    rules = number_rules("num", integer=integer, **cons)
    assert rules is not None
    matcher = _matcher("", rules)
    bounds = {k: _value(b) for k, b in cons.items()}
    want = {t for t, v, whole in _spellings(DEPTH)
            if (whole or not integer) and all(_CHECKS[k](v, b) for k, b in bounds.items())}
    assert _walk(matcher, DEPTH) == want
    for text in {t for b in cons.values() for t in _near(b)} | {"0", "-0", "0.0", "-0.0"}:
        assert _accepts(matcher, text) == oracle(text, integer, cons), (cons, text)
    assert number_rules("num", integer=True, minimum=0.25, maximum=0.75) is None  # no number


@pytest.mark.parametrize("literal", ["0.10000000000000000001", "1e-400", "123456789012345678.0", "9007199254740993e0"])
def test_loader_refuses_literals_no_double_spells(literal: str) -> None:
    """Read as a double, these would silently become another number (0.1, 0, ...)."""
    from schemac.diagnostics import CompileError
    from schemac.front.load import load

    with pytest.raises(CompileError) as info:
        load('{"type": "number", "maximum": %s}' % literal)
    assert info.value.codes == ["invalid-number"]
    assert literal in str(info.value)


def test_loader_keeps_exact_literals() -> None:
    from schemac.front.load import load

    schema = load('{"maximum": 9007199254740995, "minimum": -1.5E-7, "multipleOf": 0.1, "const": 1e2}')
    assert schema["maximum"] == 9007199254740995 and isinstance(schema["maximum"], int)
    assert exact(schema["minimum"]) == Decimal("-1.5e-7") and exact(schema["multipleOf"]) == Decimal("0.1")
    assert exact(schema["const"]) == 100


def test_lowering_facts_compare_exactly() -> None:
    """The lowering's static facts read numbers as the decimals they spell: 1e23 is 10**23
    (as doubles they differ), and range disjointness holds at 2^53 + 1."""
    from schemac.lower.support.analysis import _ranges_disjoint, is_integer, json_equal

    assert json_equal(1e23, 10 ** 23) and json_equal(1, 1.0) and not json_equal(True, 1)
    assert not json_equal(9007199254740993, 9007199254740992.0)
    assert is_integer(1e23) and is_integer(2.0) and not is_integer(0.5)
    assert _ranges_disjoint({"maximum": 9007199254740992}, {"minimum": 9007199254740993})
    assert not _ranges_disjoint({"maximum": 1e23}, {"minimum": 10 ** 23})
    assert _ranges_disjoint({"exclusiveMaximum": 1e23}, {"minimum": 10 ** 23})
    assert not _ranges_disjoint({"maximum": 0.5}, {"exclusiveMinimum": 0})
