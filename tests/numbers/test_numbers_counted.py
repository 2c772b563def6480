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

import decimal
import itertools
import json
import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

import pytest

import schemac
from schemac.diagnostics import CompileError
from testkit.grammar_harness import accepts
from schemac.numbers.exact import EMPTY, MAX_BOUNDS_CHARS, number_regex, split_regexes
from schemac.numbers.bounds import Bound, bounds_regex
from schemac.validate.final import parse_answer
from testkit.exactness import check

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


# ---- attacks on counted bounds: doubles at every exponent, pairs, steps, applicators, zeros, digit
# neighbours, against jsonschema with exact decimals on both sides (attack round 11)

_CTX = decimal.Context(prec=1000)


_NUMBER_POLICY = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")


_INTEGER_POLICY = re.compile(r"-?(0|[1-9][0-9]*)")


def _plain(d: decimal.Decimal) -> str:
    text = format(d, "f")
    return text[1:] if text.startswith("-") and d == 0 else text


def _around(*values: Any) -> list[str]:
    """Plain decimal spellings at and just around each value (steps from 1 down to 1e-330 and
    relative to its magnitude), its negation, halves and doubles, trailing zeros, and exponents."""
    out: set[str] = {"-0", "-0.0", "0.0", "0", "1", "-1", "0.5", "1e308", "-1e308", "1E2", "0.1"}
    for v in values:
        d = decimal.Decimal(repr(v)) if isinstance(v, float) else decimal.Decimal(v)
        adj = d.adjusted() if d != 0 else 0
        for e in (0, -1, -2, -7, adj - 15, adj - 16, adj - 17, adj - 25, adj, adj + 1, -320, -330):
            for sign in (1, -1):
                out.add(_plain(_CTX.add(d, sign * _CTX.power(10, e))))
        for x in (d, -d, _CTX.multiply(d, 2), _CTX.divide(d, 2)):
            out.add(_plain(x))
        base = _plain(d)
        out |= {base + ("0" if "." in base else ".0"), base + ("000" if "." in base else ".000"), repr(v), str(v)}
    return sorted(out, key=lambda t: (len(t), t))


def _policy_refusable(texts: list[str], integer: bool) -> set[str]:
    """Spellings the number table excludes: exponents, `-0`, fractions for integers, and any
    spelling of a number under `type: integer` other than `-?(0|[1-9][0-9]*)`."""
    rule = _INTEGER_POLICY if integer else _NUMBER_POLICY
    return {t for t in texts if not rule.fullmatch(t) or (t.startswith("-") and decimal.Decimal(t) == 0)}


BIG_BOUNDS: list[Any] = [1e308, 1.7976931348623157e308, -1e308, -1.7976931348623157e308, 1e-308, -1e-308, 5e-324,
                         2.2250738585072014e-308, 123456789.12345679, 1e22, 9007199254740993, 1.5e300,
                         9.999999999999999e307, 1e-7, 12345678901234567890, 0.30000000000000004, 1e16, -5e-324,
                         10 ** 40 + 1, 4.9406564584124654e-300]


BOUND_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]


BOUND_REFUSALS = {"grammar-error", "too-large", "invalid-number"}


def _pure_oracle(schema: Any) -> Any:
    """jsonschema 2020-12 with every number exact on both sides: schema and answer read with
    `parse_float=Decimal` (a schema literal stands for its decimal, README "Numbers"). No formats
    or patterns: for the number schemas only."""
    import jsonschema

    exact = json.loads(json.dumps(schema), parse_float=decimal.Decimal)
    validator = jsonschema.Draft202012Validator(exact)

    def valid(text: str) -> bool:
        try:
            parse_answer(text)  # strict JSON (no NaN, no duplicate keys)
        except ValueError:
            return False
        with decimal.localcontext(_CTX):
            return validator.is_valid(json.loads(text, parse_float=decimal.Decimal))
    return valid


def _numbers_check(schema: dict[str, Any], texts: list[str]) -> None:
    integer = schema.get("type") == "integer"
    oracle = _pure_oracle(schema)
    try:
        schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert set(exc.codes) <= BOUND_REFUSALS | {"unsatisfiable"}, exc
        if "unsatisfiable" in exc.codes:
            assert not [t for t in texts if oracle(t)], exc
        return
    check(schema, texts, refusable=_policy_refusable(texts, integer), oracle=oracle)


@pytest.mark.parametrize("bound", BIG_BOUNDS, ids=repr)
@pytest.mark.parametrize("kw", BOUND_KEYWORDS)
@pytest.mark.parametrize("typ", [None, "number", "integer"])
def test_single_big_bound(bound: Any, kw: str, typ: str | None) -> None:
    schema: dict[str, Any] = {kw: bound} if typ is None else {"type": typ, kw: bound}
    _numbers_check(schema, _around(bound))


BOUND_PAIRS = [(-1e308, 1e308), (-1.7976931348623157e308, 1.7976931348623157e308), (1e-308, 1e308), (-1e-308, 1e-308),
               (5e-324, 1e-323), (1e308, 1.7976931348623157e308), (0, 1e-308), (1e22, 1e23), (-1e22, -1e21),
               (123456789.12345679, 123456789.1234568), (9007199254740992, 9007199254740994), (0.1, 0.30000000000000004)]


@pytest.mark.parametrize("pair", BOUND_PAIRS, ids=repr)
@pytest.mark.parametrize("kws", [("minimum", "maximum"), ("exclusiveMinimum", "exclusiveMaximum"),
                                 ("minimum", "exclusiveMaximum"), ("exclusiveMinimum", "maximum")])
@pytest.mark.parametrize("typ", [None, "integer"])
def test_big_bound_pairs(pair: tuple[Any, Any], kws: tuple[str, str], typ: str | None) -> None:
    schema: dict[str, Any] = {kws[0]: pair[0], kws[1]: pair[1]}
    if typ:
        schema["type"] = typ
    _numbers_check(schema, _around(*pair))


@pytest.mark.parametrize("step", [1, 2, 0.01, 0.5, 7, 1e-5, 3, 0.1, 1e300, 2.5, 1e-308], ids=repr)
@pytest.mark.parametrize("bounds", [{"maximum": 1e308}, {"minimum": -1e308}, {"exclusiveMaximum": 1e308, "minimum": 0},
                                    {"minimum": 1e-308, "maximum": 1.7976931348623157e308}, {"exclusiveMinimum": -1e22},
                                    {"minimum": 1e300, "maximum": 1.0000000000000001e300}], ids=repr)
@pytest.mark.parametrize("typ", [None, "integer"])
def test_big_bounds_with_multiple_of(step: Any, bounds: dict[str, Any], typ: str | None) -> None:
    schema: dict[str, Any] = {**bounds, "multipleOf": step}
    if typ:
        schema["type"] = typ
    texts = _around(*bounds.values(), step) + ["14", "21", "0.03", "0.00001", "0.5", "2.5", "3"]
    _numbers_check(schema, texts)


@pytest.mark.parametrize("schema", [
    {"not": {"maximum": 1e308}}, {"not": {"exclusiveMinimum": -1e308}}, {"not": {"minimum": 1e-308, "maximum": 1e308}},
    {"oneOf": [{"maximum": 1e308}, {"minimum": 1e-308}]}, {"oneOf": [{"type": "integer", "maximum": 1e308}, {"minimum": 0}]},
    {"if": {"minimum": 1e300}, "then": {"multipleOf": 2}, "else": {"maximum": -1e-300}},
    {"anyOf": [{"maximum": -1e308}, {"minimum": 1e308}]}, {"not": {"type": "integer"}, "maximum": 1e308, "minimum": 1e307},
    {"type": "integer", "not": {"multipleOf": 3}, "maximum": 1e308}, {"enum": [1e308, 1.7976931348623157e308, 5e-324], "minimum": 1e308},
    {"const": 1e308, "exclusiveMaximum": 1.7976931348623157e308}, {"type": "number", "maximum": 1e308, "not": {"const": 0}},
], ids=lambda s: json.dumps(s)[:60])
def test_big_bounds_under_applicators(schema: dict[str, Any]) -> None:
    texts = _around(1e308, 1e-308, 1.7976931348623157e308, 1e300, -1e-300, 5e-324)
    try:
        schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert set(exc.codes) <= BOUND_REFUSALS | {"not-exact", "one-of-not-exact", "if-not-exact"}, exc
        return
    check(schema, texts, refusable=_policy_refusable(texts, False), oracle=_pure_oracle(schema))


@pytest.mark.parametrize("schema", [
    {"maximum": 0}, {"exclusiveMaximum": 0}, {"minimum": 0}, {"exclusiveMinimum": 0}, {"maximum": 0.0}, {"minimum": -0.0},
    {"type": "integer", "maximum": 0}, {"exclusiveMinimum": -1e-308, "exclusiveMaximum": 1e-308},
    {"minimum": 0.1, "maximum": 0.1}, {"minimum": 100, "maximum": 100.0}, {"exclusiveMinimum": 0.5, "maximum": 0.50},
])
def test_zeros_and_trailing_zeros(schema: dict[str, Any]) -> None:
    texts = ["0", "-0", "0.0", "-0.0", "0.00", "00", "01", "-00", "0.", ".0", "1.", "0.1", "0.10", "0.100", "-0.1", "100",
             "100.0", "100.00", "1e2", "0.5", "0.50", "0.500", "1e-308", "-1e-308", "0." + "0" * 307 + "1",
             "-0." + "0" * 307 + "1", "0." + "0" * 308 + "1", "0." + "0" * 400 + "1", "-0." + "0" * 400]
    _numbers_check(schema, texts)


def test_exclusive_tiny_bounds_do_not_admit_zero_spellings() -> None:
    schema = {"exclusiveMinimum": 0, "exclusiveMaximum": 5e-324}
    texts = ["0", "0.0", "0." + "0" * 330 + "1", "0." + "0" * 323 + "49", "0." + "0" * 323 + "5", "0." + "0" * 323 + "4940"]
    _numbers_check(schema, texts)


def test_final_validator_int_answer_against_float_literal() -> None:
    """A float literal stands for its shortest decimal in const/enum/uniqueItems whatever the
    answer's number type (`10**23 == 1e23` is False in Python: the double is 99999999999999991611392)."""
    cases = [({"const": 1e23}, "100000000000000000000000"), ({"const": 1e23}, "99999999999999991611392"),
             ({"enum": [1e23, "a"]}, "100000000000000000000000"), ({"enum": [1e23, "a"]}, "99999999999999991611392"),
             ({"uniqueItems": True, "items": {"enum": [1e23, 0]}}, "[100000000000000000000000, 1e23]"),
             ({"const": [1e23]}, "[100000000000000000000000]"), ({"const": 1e308}, "1" + "0" * 308)]
    wrong = []
    for schema, text in cases:
        art = schemac.compile(schema, use_cache=False)
        if art.validate(text).ok != _pure_oracle(schema)(text):
            wrong.append((schema, text))
    assert not wrong, wrong


def test_grammar_int_spelling_of_float_literal() -> None:
    """The grammar side: a float literal stands for its decimal, whatever the answer's spelling."""
    for schema in ({"const": 1e23}, {"enum": [1e23, "a"]}, {"const": 1e308}, {"enum": [5e-324, 1e22]},
                   {"const": {"a": 1e23}}, {"const": [1e23, 0.1]}):
        texts = ["100000000000000000000000", "99999999999999991611392", "1e23", "100000000000000000000000.0",
                 "1" + "0" * 308, "1e308", "0." + "0" * 323 + "5", "5e-324", "10000000000000000000000",
                 '{"a": 100000000000000000000000}', '{"a": 99999999999999991611392}', "[100000000000000000000000, 0.1]",
                 "[100000000000000000000000, 0.10]", "[99999999999999991611392, 0.1]"]
        check(schema, texts, refusable={t for t in texts if "e" in t or t.endswith(".0") or "0.10" in t}, oracle=_pure_oracle(schema))


def _random_double(rng: Any) -> float:
    import struct

    while True:
        value = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if value == value and abs(value) != float("inf"):
            return value


@pytest.mark.parametrize("seed", range(12))
def test_random_double_bounds(seed: int) -> None:
    """Random finite doubles (any exponent, 17 significant digits) as bounds, with their
    neighbours at the 17th-25th digit; sometimes integer, sometimes with a step."""
    import random

    rng = random.Random(seed)
    for _ in range(4):
        a, b = sorted([_random_double(rng), _random_double(rng)])
        kws = rng.choice([("minimum", "maximum"), ("exclusiveMinimum", "exclusiveMaximum"), ("minimum", None), (None, "exclusiveMaximum")])
        schema: dict[str, Any] = {}
        if kws[0]:
            schema[kws[0]] = a
        if kws[1]:
            schema[kws[1]] = b
        if rng.random() < 0.3:
            schema["type"] = "integer"
        if rng.random() < 0.3:
            schema["multipleOf"] = rng.choice([2, 0.25, 5, 1e-3])
        _numbers_check(schema, _around(a, b))


@pytest.mark.parametrize("schema", [
    {"maximum": 0.1234567890123456}, {"minimum": 1.2345678901234567e-300}, {"exclusiveMaximum": 9.87654321e-5, "minimum": 9.8765432e-5},
    {"minimum": 0.1, "maximum": 0.2, "multipleOf": 0.0001}, {"exclusiveMinimum": 1.0000000000000002, "maximum": 1.0000000000000004},
    {"type": "integer", "minimum": 0.5, "maximum": 1.5}, {"type": "integer", "exclusiveMinimum": 1e-308, "exclusiveMaximum": 2},
    {"minimum": 123456789012345678901234567890, "maximum": 123456789012345678901234567891},
    {"maximum": -0.000001, "minimum": -0.0000010000000000000002}, {"multipleOf": 1e-300, "maximum": 1e-299, "minimum": 0},
    {"multipleOf": 0.1, "maximum": 1e308, "exclusiveMinimum": 1e307}, {"multipleOf": 1e-7, "minimum": 1e-308, "maximum": 1e-6},
], ids=lambda s: json.dumps(s)[:70])
def test_long_fraction_bounds(schema: dict[str, Any]) -> None:
    vals = [v for k, v in schema.items() if k != "type"]
    _numbers_check(schema, _around(*vals))


def _digit_neighbours(value: Any) -> list[str]:
    """The bound's plain spelling with each digit moved by ±1, a digit appended or dropped, and
    the integer part lengthened/shortened: every way to differ at one position of a digit run."""
    base = _plain(decimal.Decimal(repr(value)) if isinstance(value, float) else decimal.Decimal(value))
    out = {base}
    for i, c in enumerate(base):
        if c.isdigit():
            for d in {str((int(c) + 1) % 10), str((int(c) - 1) % 10), "0", "9"}:
                out.add(base[:i] + d + base[i + 1:])
            out.add(base[:i] + base[i + 1:])
            out.add(base[:i] + c + base[i:])
    out |= {base + "1", base + "0", base + "9", base + ("" if "." in base else ".") + "0001", base + ("" if "." in base else ".") + "9999"}
    texts = set()
    for t in out:
        t = t.lstrip("-")
        if t and t[0] != "." and t[-1] != "." and t.count(".") <= 1 and not (len(t) > 1 and t[0] == "0" and t[1] != "."):
            texts |= {t, "-" + t}
    return sorted(texts, key=lambda t: (len(t), t))


RUN_BOUNDS: list[Any] = [1.0000000000000002, 1e-21, 1.0000000000000001e-300, 9.999999999999998, 99999999999999990000,
                         1.7976931348623157e308, 2.2250738585072014e-308, 100000000000000000000000000000000, 0.1000000000000001,
                         1.1e308, 9.9e-300, 1000.0001, 10000000000000001, 1e-5, 0.00010000000000000001]


@pytest.mark.parametrize("bound", RUN_BOUNDS, ids=repr)
@pytest.mark.parametrize("kw", BOUND_KEYWORDS)
def test_digit_runs_neighbours(bound: Any, kw: str) -> None:
    texts = _digit_neighbours(bound)
    _numbers_check({kw: bound}, texts)
    _numbers_check({"type": "integer", kw: bound}, texts)
    other = "maximum" if "inimum" in kw else "minimum"
    _numbers_check({kw: bound, other: -bound if "inimum" in kw else bound / 2 if bound > 0 else bound * 2}, texts)
