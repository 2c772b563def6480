"""Strict JSON answers with exact numbers: `parse_answer` and the numbers it makes.

Numbers are mathematical numbers (2020-12 §4.2.1, RFC 8259 §6): a literal comes back as a `float`
when it is the shortest decimal of a finite double, else a `decimal.Decimal`, else (an exponent
past libmpdec's ±10^18) an `ExtremeNumber`; `number_parts`/`_compare` compare any two exactly.
Duplicate keys, NaN/Infinity and lone surrogates are refused.
"""
from __future__ import annotations

import json
import numbers
import re
from decimal import Decimal, InvalidOperation
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate object key {key!r}")
            seen.add(key)
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_NUMBER = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?")


def _big_int(digits: str) -> int:
    """int(digits) without Python's 4,300-digit conversion limit."""
    return int(digits) if len(digits) < 4000 else int(Decimal(digits))


def number_parts(value: Any) -> tuple[int, int, int, int]:
    """(sign, |coefficient|, coefficient digits, exponent) of a finite number: value = sign·m·10^e."""
    if isinstance(value, ExtremeNumber):
        return value.sign, value.coefficient, value.digits, value.exponent
    sign, digits, exponent = (value if isinstance(value, Decimal) else Decimal(_shortest(value))).as_tuple()
    return -1 if sign else 1, int(Decimal((0, digits, 0))), len(digits), int(exponent)


def _shortest(value: Any) -> Any:
    return repr(value) if type(value) is float else value


def _compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as a < b, a == b, a > b, exactly, for any two finite numbers."""
    sa, ma, na, ea = number_parts(a)
    sb, mb, nb, eb = number_parts(b)
    sa, sb = sa * (ma != 0), sb * (mb != 0)
    if sa != sb or sa == 0:
        return (sa > sb) - (sa < sb)
    adj_a, adj_b = ea + na, eb + nb
    if adj_a != adj_b:
        return sa if adj_a > adj_b else -sa
    ma, mb = ma * 10 ** max(nb - na, 0), mb * 10 ** max(na - nb, 0)
    return sa * ((ma > mb) - (ma < mb))


class ExtremeNumber(numbers.Number):
    """A number whose decimal exponent is past what `decimal.Decimal` holds (about ±10^18).

    Only `parse_answer` makes them (RFC 8259 allows any exponent, and so does the grammar). It
    compares exactly with ints, floats (by their shortest decimal), Decimals and its own kind, is
    hashable, and prints as a JSON number.
    """

    __slots__ = ("sign", "coefficient", "digits", "exponent")

    def __init__(self, negative: bool, digits: str, exponent: int) -> None:
        """`digits`: the coefficient's decimal digits, no leading or trailing zeros (not all zero)."""
        self.sign = -1 if negative else 1
        self.coefficient, self.digits, self.exponent = _big_int(digits), len(digits), exponent

    def is_integer(self) -> bool:
        return self.exponent >= 0

    def _cmp(self, other: Any) -> int | None:
        if isinstance(other, bool) or not isinstance(other, (int, float, Decimal, ExtremeNumber)):
            return None
        if isinstance(other, (float, Decimal)) and other != other:
            return None  # NaN
        if isinstance(other, (float, Decimal)) and other in (float("inf"), float("-inf")):
            return -1 if other > 0 else 1
        return _compare(self, other)

    def __eq__(self, other: Any) -> Any:
        c = self._cmp(other)
        return NotImplemented if c is None else c == 0

    def __lt__(self, other: Any) -> Any:
        c = self._cmp(other)
        return NotImplemented if c is None else c < 0

    def __le__(self, other: Any) -> Any:
        c = self._cmp(other)
        return NotImplemented if c is None else c <= 0

    def __gt__(self, other: Any) -> Any:
        c = self._cmp(other)
        return NotImplemented if c is None else c > 0

    def __ge__(self, other: Any) -> Any:
        c = self._cmp(other)
        return NotImplemented if c is None else c >= 0

    def __hash__(self) -> int:
        return hash((self.sign, self.coefficient, self.exponent))

    def __str__(self) -> str:
        return f"{'-' if self.sign < 0 else ''}{Decimal(self.coefficient)}e{self.exponent}"

    def __repr__(self) -> str:
        return f"ExtremeNumber({str(self)!r})"


def _out_of_range(text: str) -> float | Decimal | ExtremeNumber:
    """A number literal `Decimal(text)` refused: normalised, it may still fit a Decimal."""
    m = _NUMBER.fullmatch(text)
    assert m is not None, text  # json.loads hands over RFC 8259 number literals only
    fraction = m[3] or ""
    digits = (m[2] + fraction).lstrip("0")
    if not digits:
        return -0.0 if m[1] else 0.0
    significant = digits.rstrip("0")
    exponent = _big_int(m[4] or "0") - len(fraction) + len(digits) - len(significant)
    try:
        return Decimal((1 if m[1] else 0, tuple(map(int, significant)), exponent))
    except (InvalidOperation, OverflowError):
        return ExtremeNumber(bool(m[1]), significant, exponent)


def _exact_float(text: str) -> float | Decimal | ExtremeNumber:
    """`text` as a float when that float's shortest decimal is the same number, else a Decimal,
    else (an exponent no Decimal holds) an ExtremeNumber."""
    try:
        exact = Decimal(text)
    except InvalidOperation:
        return _out_of_range(text)
    value = float(text)
    if value - value == 0 and Decimal(repr(value)) == exact:  # finite and spelt exactly
        return value
    return exact


def _exact_int(text: str) -> int | Decimal:
    try:
        return int(text)
    except ValueError:  # past sys.get_int_max_str_digits(): still an exact integer
        return Decimal(text)


def _check_unicode(value: Any) -> None:
    """Reject lone surrogates (from `\\ud800`-style escapes): no regex engine can match them."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise ValueError("string contains a lone UTF-16 surrogate")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def parse_answer(text: str) -> Any:
    """Parse an answer as strict JSON; `ValueError` says why it is not.

    Numbers come back exact: `int`, `float`, or `decimal.Decimal` where no double spells the
    literal (see the module docstring); duplicate keys, NaN/Infinity and lone surrogates are refused.
    """
    try:
        value = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_float=_exact_float,
            parse_int=_exact_int,
        )
    except RecursionError:
        raise ValueError("invalid JSON answer: nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"invalid JSON answer: {exc}") from None
    if _SURROGATE_ESCAPE.search(text) or _SURROGATE.search(text):
        try:
            _check_unicode(value)
        except ValueError as exc:
            raise ValueError(f"invalid JSON answer: {exc}") from None
    return value
