"""Numbers between decimal bounds as a flat regex with counted digit runs, built from the bounds'
digits directly rather than from an automaton.

Why: the automaton of `schemac.numbers.dfa` counts integer digits one state at a time, so a bound
like `1.79769e308` (309 integer digits) makes a chain of hundreds of states whose eliminated regex
nests one group per digit (past llguidance's 250-deep limit and any size bound). Comparing a
spelling with a bound is "same digits up to some position, then a smaller (or larger) digit, then
anything", so each comparison is a union over the positions where the bound's digit leaves room,
and "anything" over a known number of integer digits is `[0-9]{k}`: the text grows with the number
of significant digits of the bounds, not with their magnitude.

Spellings follow the number policy (`schemac.numbers.exact`): `-?(0|[1-9][0-9]*)(\\.[0-9]+)?` (no
fraction for integers), never a negative zero. A spelling's digit positions are counted from its
first integer digit, the integer part "0" counting as no digit (it is spelled as a literal), so
position `n` (the integer digit count) is the first fraction digit, written after the dot.
"""
from __future__ import annotations

import math
from fractions import Fraction

from schemac.numbers.dfa import decimal_digits

#: a bound: (value, relation of the spelled value to it: "ge" "gt" "le" "lt")
Bound = tuple[Fraction, str]
DOT = "\\."
ANY = "[0-9]"


def _count(lo: int, hi: int) -> str:
    """A counter suffix `{lo,hi}`; empty for exactly one."""
    if lo == hi:
        return "" if lo == 1 else f"{{{lo}}}"
    return "?" if (lo, hi) == (0, 1) else f"{{{lo},{hi}}}"


def _repeat(unit: str, lo: int, hi: int | None) -> str:
    """`unit` (one character or class) lo..hi times (`hi` None: no upper limit, written
    `X{lo}X*`: the documented subset has no `+` nor `{lo,}`); empty for exactly zero."""
    if hi is None:
        return _repeat(unit, lo, lo) + unit + "*"
    if hi == 0:
        return ""
    return unit + _count(lo, hi)


def _literal(digits: str) -> str:
    """Digits as a literal, runs of four or more as `d{k}`."""
    out, i = [], 0
    while i < len(digits):
        j = i
        while j < len(digits) and digits[j] == digits[i]:
            j += 1
        out.append(digits[i] * (j - i) if j - i < 4 else f"{digits[i]}{{{j - i}}}")
        i = j
    return "".join(out)


def _digits_class(lo: int, hi: int) -> str | None:
    """The digits lo..hi as a class; None when there are none."""
    if lo > hi:
        return None
    if lo == hi:
        return str(lo)
    return f"[{lo}{hi}]" if hi == lo + 1 else f"[{lo}-{hi}]"


def _group(alts: list[str]) -> str:
    """Alternatives as one term to concatenate; an empty alternative makes the group optional."""
    rest = [a for a in alts if a]
    if not rest:
        return ""
    if len(rest) == len(alts) and len(rest) == 1:
        return rest[0]
    return "(?:" + "|".join(rest) + ")" + ("?" if len(rest) < len(alts) else "")


class _Digits:
    """A magnitude bound's digit string P (integer digits, then fraction digits without trailing
    zeros; zero past its end) and integer digit count n, with the spellings of its tails."""

    def __init__(self, value: Fraction, n: int, frac: bool) -> None:
        whole, fraction_digits = decimal_digits(value)
        self.p = whole.rjust(n, "0") + fraction_digits
        self.n = n
        self.frac = frac

    def digit(self, i: int) -> int:
        return int(self.p[i]) if i < len(self.p) else 0

    def spell(self, j: int, i: int) -> str:
        """The bound's own positions j..i-1, the dot before position n."""
        n, p = self.n, self.p.ljust(i, "0")
        if j <= n < i:
            return _literal(p[j:n]) + DOT + _literal(p[n:i])
        return _literal(p[j:i])

    def free_fraction(self) -> str:
        return "(?:\\.[0-9][0-9]*)?" if self.frac else ""

    def rest(self, j: int) -> str:
        """Any digits from position j to a complete spelling."""
        if j < self.n:
            return _repeat(ANY, self.n - j, self.n - j) + self.free_fraction()
        return self.free_fraction() if j == self.n else ANY + "*"

    def zeros(self, j: int) -> str:
        """Only zeros from position j (j >= n) on: the value stays where it is."""
        if j == self.n:
            return "(?:\\.00*)?" if self.frac else ""
        return "0*"

    def above_zero(self, j: int) -> str | None:
        """A nonzero digit somewhere from position j (j >= n) on; None for integers."""
        if j == self.n:
            return "\\.0*[1-9][0-9]*" if self.frac else None
        return "0*[1-9][0-9]*"

    def lowest(self, i: int) -> int:
        """The smallest digit a spelling may have at position i (no leading zero)."""
        return 1 if i == 0 and self.n >= 1 else 0


def _deviations(b: _Digits, j: int, end: int, below: bool) -> list[str]:
    """Spellings equal to the bound from position j up to some position i < end, then smaller
    (below) or larger at i, then anything."""
    alts, whole = [], []  # deviations in the fraction; in the integer part (any fraction after)
    i = j
    while i < end:
        d = b.digit(i)
        cls = _digits_class(b.lowest(i), d - 1) if below else _digits_class(max(b.lowest(i), d + 1), 9)
        if i < b.n:
            if cls is not None:
                whole.append(b.spell(j, i) + cls + _repeat(ANY, b.n - i - 1, b.n - i - 1))
            i += 1
            continue
        k = i  # a fraction run of d: the deviation may come at any of its positions, same tail
        while k < end and b.digit(k) == d:
            k += 1
        if cls is not None:
            lead = b.spell(j, i) + (DOT if i == b.n else "")
            alts.append(lead + _repeat(str(d), 0, k - i - 1) + cls + ANY + "*")
        i = k
    return ([_group(whole) + b.free_fraction()] if whole else []) + alts


def _stops(b: _Digits, j: int) -> list[str]:
    """Spellings equal to the bound from position j, ending before the bound's last nonzero digit
    (so below it): at the integer part's end or after some fraction digits."""
    start = max(j, b.n)
    end = len(b.p)
    if start >= end:
        return []
    alts = [b.spell(j, start)]
    i = start
    while i < end:  # each fraction run of d: stop after 1..len of it (not past position end-1)
        d = b.digit(i)
        k = i
        while k < end - 1 and b.digit(k) == d:
            k += 1
        if k > i:
            lead = b.spell(j, i) + (DOT if i == b.n else "")
            alts.append(lead + _repeat(str(d), 1, k - i))
        i = max(k, i + 1)
    return alts


def _one(b: _Digits, j: int, rel: str) -> list[str]:
    """Spellings from position j, equal to the bound so far, that stand in `rel` to it. For "ge"
    the comparison ends at the bound's last nonzero digit: past it, anything is at least zero
    (`minimum: 1e308` is one alternative, not one per zero)."""
    end = max(len(b.p.rstrip("0") if rel == "ge" else b.p), j)
    alts = _deviations(b, j, end, rel in ("lt", "le"))
    if rel in ("lt", "le"):
        alts += _stops(b, j)
    tail = {"ge": b.rest(end), "gt": b.above_zero(end), "le": b.zeros(end), "lt": None}[rel]
    if tail is not None:
        alts.append(b.spell(j, end) + tail)
    return alts


def _two(a: _Digits, ra: str, b: _Digits, rb: str, j: int) -> list[str]:
    """Spellings from position j, equal to both bounds so far (equal up to j), within both."""
    end = max(len(a.p), len(b.p), j)
    i = j
    while i < end and a.digit(i) == b.digit(i):
        i += 1
    if i == end:  # the bounds are equal
        return [a.spell(j, end) + a.zeros(end)] if (ra, rb) == ("ge", "le") else []
    alts = []
    q = max(j, a.n, len(a.p))
    if ra == "ge" and q <= i:  # ending on zeros that already equal the lower bound
        zeros = _repeat("0", 1 if q == a.n else 0, i - q)
        alts.append(a.spell(j, q) + (f"(?:{DOT}{zeros})?" if q == a.n and zeros else zeros))
    lead = a.spell(j, i) + (DOT if i == a.n else "")
    da, db = a.digit(i), b.digit(i)
    lower = _one(a, i + 1, ra)
    upper = _one(b, i + 1, rb)
    if lower:
        alts.append(lead + str(da) + _group(lower))
    middle = _digits_class(da + 1, db - 1)
    if middle is not None:
        alts.append(lead + middle + a.rest(i + 1))
    if upper:
        alts.append(lead + str(db) + _group(upper))
    return alts


def _integer_digits(x: Fraction) -> int:
    return len(decimal_digits(x)[0])


def magnitudes(lower: Bound | None, upper: Bound | None, frac: bool) -> list[str]:
    """Alternatives spelling the magnitudes (no sign) within both bounds (each optional)."""
    if lower is not None and upper is not None:
        if lower[0] > upper[0] or (lower[0] == upper[0] and (lower[1], upper[1]) != ("ge", "le")):
            return []
    if upper is not None and upper[0] == 0 and upper[1] == "lt":
        return []
    na = -1 if lower is None else _integer_digits(lower[0])
    nb = None if upper is None else _integer_digits(upper[0])
    alts = []
    for n in sorted({0, max(na, 0), *(() if nb is None else (nb,))}):
        if n < na or (nb is not None and n > nb):
            continue
        a = None if lower is None or n != na else _Digits(lower[0], n, frac)
        b = None if upper is None or n != nb else _Digits(upper[0], n, frac)
        if a is not None and b is not None:
            body = _two(a, lower[1], b, upper[1], 0)  # type: ignore[index]
        elif a is not None or b is not None:
            body = _one(a or b, 0, lower[1] if a is not None else upper[1])  # type: ignore[arg-type,index]
        else:
            body = [_Digits(Fraction(0), n, frac).rest(0)]
        if body:
            alts.append(("0" if n == 0 else "") + _group(body))
    lo = max(1, na + 1)  # lengths strictly between the bounds' lengths: any digits
    hi = None if nb is None else nb - 1
    if hi is None or lo <= hi:
        alts.append("[1-9]" + _repeat(ANY, lo - 1, None if hi is None else hi - 1) + ("(?:\\.[0-9][0-9]*)?" if frac else ""))
    return alts


def _integral(lower: Bound | None, upper: Bound | None) -> tuple[Bound | None, Bound | None]:
    """Bounds on integers as integer bounds: an integer above 2.5 is one at least 3. An integer
    bound keeps its relation: `< 1e308` as `<= 99...9` would spell 308 nines."""
    if lower is not None and lower[0].denominator != 1:
        lower = (Fraction(math.ceil(lower[0])), "ge")
    if upper is not None and upper[0].denominator != 1:
        upper = (Fraction(math.floor(upper[0])), "le")
    return lower, upper


_FLIP = {"ge": "le", "gt": "lt", "le": "ge", "lt": "gt"}


def bounds_regex(lower: Bound | None, upper: Bound | None, integer: bool) -> str:
    """A regex (no anchors; it may hold a top-level `|`) for the policy spellings of the values v
    with `lower` ⊲ v ⊲ `upper` (signed bounds, each optional); "" when there are none."""
    if integer:
        lower, upper = _integral(lower, upper)
    frac = not integer
    alts = []
    if upper is None or upper[0] >= 0:  # v >= 0: the magnitude itself
        lo = lower if lower is not None and lower[0] >= 0 else None
        alts += magnitudes(lo, upper, frac)
    if lower is None or lower[0] < 0:  # v < 0: -v above max(0, -upper), below -lower
        floor: Bound = (Fraction(0), "gt") if upper is None or upper[0] >= 0 else (-upper[0], _FLIP[upper[1]])
        ceiling = None if lower is None else (-lower[0], _FLIP[lower[1]])
        negative = magnitudes(floor, ceiling, frac)
        if negative:
            alts.append("-" + _group(negative))
    return "|".join(alts)
