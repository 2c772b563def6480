"""Bounds written from their digits with counted runs (`schemac.numbers.bounds`), against an
exact oracle: the policy spelling's value read by `Decimal` as a `Fraction`, compared with the
bounds as Fractions (no float anywhere).

Small bounds: every spelling of up to 4 characters, for every pair of a grid of bounds and
relations (Python's `re` reads the regex subset as llguidance does). Huge bounds (`1e308`,
`1.7976931348623157e308`, their negations, exclusive ones, bounds with long zero runs inside):
spellings one unit off at every digit position, with trailing zeros, negated, and with one digit
too many, walked through llguidance itself; the same through `schemac.compile`, with a
`multipleOf` met as a second terminal.
"""
from __future__ import annotations

import itertools
import json
import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

import pytest

import schemac
from schemac.diagnostics import CompileError
from testkit.grammar_harness import accepts
from schemac.numbers.exact import EMPTY, MAX_BOUNDS_CHARS, number_regex, split_regexes
from schemac.numbers.bounds import Bound, bounds_regex

_NUM = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_HOLDS = {"ge": lambda v, b: v >= b, "gt": lambda v, b: v > b, "le": lambda v, b: v <= b, "lt": lambda v, b: v < b}


def oracle(text: str, integer: bool, lower: Bound | None, upper: Bound | None, step: Fraction | None = None) -> bool:
    if not (_INT if integer else _NUM).fullmatch(text):
        return False
    v = Fraction(Decimal(text))
    if text.startswith("-") and v == 0:
        return False
    return all(b is None or _HOLDS[b[1]](v, b[0]) for b in (lower, upper)) and (step is None or (v / step).denominator == 1)


@lru_cache(maxsize=1)
def _short_spellings() -> list[tuple[str, Fraction]]:
    out = []
    for n in range(1, 5):
        for chars in itertools.product("-0123456789.", repeat=n):
            text = "".join(chars)
            if _NUM.fullmatch(text):
                out.append((text, Fraction(Decimal(text))))
    return out


_SMALL = [Fraction(Decimal(x)) for x in "0 1 -1 10 -12 0.5 -0.05 2.25 99 101 -1.01".split()]


@pytest.mark.parametrize("integer", [True, False])
@pytest.mark.parametrize("lower_rel,upper_rel", [("ge", "le"), ("gt", "lt"), ("ge", "lt"), ("gt", "le")])
def test_small_bounds_exhaustive(integer: bool, lower_rel: str, upper_rel: str) -> None:
    """Every pair of bounds (one-sided ones too), every spelling of up to 4 characters."""
    cases: list[tuple[Bound | None, Bound | None]] = [(None, (b, upper_rel)) for b in _SMALL]
    cases += [((a, lower_rel), None) for a in _SMALL]
    cases += [((a, lower_rel), (b, upper_rel)) for a in _SMALL for b in _SMALL]
    spellings = [(t, v) for t, v in _short_spellings() if not (integer and "." in t) and not (t.startswith("-") and v == 0)]
    for lower, upper in cases:
        regex = bounds_regex(lower, upper, integer)
        assert re.fullmatch(r"[-0-9.\\|()?:*{},\[\]]*", regex), regex  # numbers_regex's subset
        pattern = re.compile(regex) if regex else None
        expected = {t for t, v in spellings if all(b is None or _HOLDS[b[1]](v, b[0]) for b in (lower, upper))}
        got = {t for t, _ in _short_spellings() if pattern and pattern.fullmatch(t)}
        assert got == expected, (lower, upper, integer, sorted(got ^ expected)[:5], regex)


def _spell(v: Fraction) -> str:
    """The exact decimal spelling of a decimal Fraction."""
    whole, rest = divmod(abs(v.numerator), v.denominator)
    frac = ""
    while rest:
        rest *= 10
        d, rest = divmod(rest, v.denominator)
        frac += str(d)
    return ("-" if v < 0 else "") + str(whole) + ("." + frac if frac else "")


def _near(b: Fraction) -> set[str]:
    """Spellings around `b`: one unit off at every digit position it has (and beyond), trailing
    zeros, one more digit, negated."""
    out: set[str] = set()
    for k in range(-4, 312):
        unit = Fraction(10) ** k
        for v in (b, b - unit, b + unit, b * 10, b / 10):
            text = _spell(v)
            out |= {text, text + ("0" if "." in text else ".0"), text + ("1" if "." in text else ".01")}
    out |= {t[1:] if t.startswith("-") else "-" + t for t in out}
    return out | {"0", "-0", "0.0", "-0.0", "1", "-1", "1e308", "1E308", "01", "1.", "9" * 310}


def _kw(lower: Bound | None, upper: Bound | None) -> dict[str, Decimal]:
    names = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}
    return {names[b[1]]: Decimal(_spell(b[0])) for b in (lower, upper) if b is not None}


DBL_MAX = Fraction(17976931348623157) * 10 ** 292
_HUGE: list[tuple[Bound | None, Bound | None]] = [
    ((Fraction(0), "ge"), (Fraction(179769) * 10 ** 303, "le")),  # the MaskBench schema's
    ((Fraction(0), "ge"), (DBL_MAX, "le")),
    ((-DBL_MAX, "ge"), (DBL_MAX, "le")),
    ((-Fraction(10) ** 308, "gt"), (Fraction(10) ** 308, "lt")),
    ((Fraction(10) ** 308, "gt"), None),
    ((Fraction(10) ** 308, "ge"), None),
    (None, (-Fraction(10) ** 308, "lt")),
    ((Fraction(10) ** 300 + 1, "ge"), (Fraction(10) ** 301 - 1, "le")),  # zero runs, then nines
    ((-Fraction(10) ** 200 - Fraction(1, 10 ** 40), "gt"), (Fraction(10) ** 200 + Fraction(5, 10 ** 90), "le")),
    ((Fraction(10) ** 308, "ge"), (Fraction(10) ** 308, "le")),
    ((Fraction(10) ** 308, "gt"), (Fraction(10) ** 308, "le")),
]


@pytest.mark.parametrize("integer", [True, False])
@pytest.mark.parametrize("lower,upper", _HUGE, ids=str)
def test_huge_bounds_through_llguidance(integer: bool, lower: Bound | None, upper: Bound | None) -> None:
    regex = bounds_regex(lower, upper, integer)
    texts = set().union(*(_near(b[0]) for b in (lower, upper) if b is not None))
    if len(regex) > MAX_BOUNDS_CHARS:
        # a magnitude strictly above 1 0..0 (or below 9..9) needs one alternative per zero (nine):
        # "some later digit is nonzero" has no counted form; exact, but refused by number_regex
        pattern = re.compile(regex)
        assert all(bool(pattern.fullmatch(t)) == oracle(t, integer, lower, upper) for t in texts)
        snake = {"minimum": "minimum", "maximum": "maximum", "exclusiveMinimum": "exclusive_minimum",
                 "exclusiveMaximum": "exclusive_maximum"}
        assert number_regex(integer=integer, **{snake[k]: v for k, v in _kw(lower, upper).items()}) is None
        return
    grammar = json.dumps({"grammars": [{"lark_grammar": f"start: /{regex or EMPTY}/"}]})
    for text in sorted(texts):
        assert accepts(grammar, text) == oracle(text, integer, lower, upper), (text, regex[:200])


@pytest.mark.parametrize("step", [None, Decimal("0.01"), 5, Decimal("2.5")], ids=str)
@pytest.mark.parametrize("lower,upper", [_HUGE[0], _HUGE[2], _HUGE[3], _HUGE[5]], ids=str)
def test_huge_bounds_compiled(step: Decimal | int | None, lower: Bound | None, upper: Bound | None) -> None:
    """Through `schemac.compile`: the whole JSON value, a step beside the bounds met as a second
    terminal (the joint automaton would count every integer digit)."""
    keywords = {**_kw(lower, upper), **({} if step is None else {"multipleOf": step})}
    schema = '{"type": "number"' + "".join(f', "{k}": {v}' for k, v in keywords.items()) + "}"  # JSON text: exact
    grammar = schemac.compile(schema, use_cache=False).grammar
    frac = None if step is None else Fraction(Decimal(str(step)))
    texts = set().union(*(_near(b[0]) for b in (lower, upper) if b is not None))
    for text in sorted(texts)[::3]:
        assert accepts(grammar, text) == oracle(text, False, lower, upper, frac), (schema, text)


def test_split_regexes() -> None:
    """Only for a step beside bounds; an interval holding no multiple is EMPTY, exactly."""
    big = 10 ** 308
    assert split_regexes(integer=False, maximum=big) is None
    assert split_regexes(integer=False, multiple_of=3, not_multiple_of=[9], maximum=big) is None
    assert split_regexes(integer=False, multiple_of=10, exclusive_minimum=big + 10, exclusive_maximum=big + 20) == EMPTY
    assert split_regexes(integer=True, multiple_of=Decimal("2.5"), minimum=big + 1, maximum=big + 4) == EMPTY
    assert split_regexes(integer=True, multiple_of=Decimal("2.5"), minimum=big + 1, maximum=big + 5) != EMPTY
    with pytest.raises(CompileError) as caught:  # the empty intersection is found, not written
        schemac.compile(f'{{"type": "integer", "multipleOf": 10, "exclusiveMinimum": {big + 10}, '
                        f'"exclusiveMaximum": {big + 20}}}', use_cache=False)
    assert caught.value.codes == ["unsatisfiable"]


def test_bounds_form_beats_the_automaton_size() -> None:
    """The regex of `1.79769e308` stays small: the automaton's one group per digit is gone."""
    regex = number_regex(integer=False, minimum=0, maximum=1.79769e308)
    assert regex is not None and len(regex) < 400 and regex.count("(") < 10
