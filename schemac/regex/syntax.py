"""ECMA-262 character sets as code point ranges, and their explicit RE2/llguidance spelling.

Both engines read `\\x{..}` ranges and escaped literals the same way, so a set spelt here means
one thing to both; the ECMA meanings of `\\d \\w \\s .` are the constants below.
"""
from __future__ import annotations

MAX_PATTERN_CHARS = 262_144
RE2_MAX_MEM = 2 << 20
#: RE2 refuses counted repetitions above this (and so do we, before asking it)
MAX_REPEAT = 1000
MAX_CODE_POINT = 0x10FFFF

Ranges = list[tuple[int, int]]

DIGIT: Ranges = [(0x30, 0x39)]
WORD: Ranges = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
# ECMA WhiteSpace (TAB VT FF SP NBSP ZWNBSP + Zs) and LineTerminator (LF CR LS PS)
SPACE: Ranges = [
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF),
]
LINE_TERMINATORS: Ranges = [(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]
SURROGATES = (0xD800, 0xDFFF)
#: characters escaped with a backslash outside classes (meta in RE2 or in Rust regex)
_META = set("\\.+*?()|[]{}^$#&-~")
SIMPLE_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
HEX = set("0123456789abcdefABCDEF")
QUANTIFIERS: dict[str, tuple[int, int | None]] = {"*": (0, None), "+": (1, None), "?": (0, 1)}


class PatternError(ValueError):
    """A pattern refused by `translate`; `code` is the diagnostic code to report."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def normalise(ranges: Ranges) -> Ranges:
    """Sorted, merged ranges with no endpoint inside the surrogate block.

    Strings never hold surrogates, so the block is a don't-care: ranges may span it (both engines
    skip it) and ranges either side of it merge, which keeps classes small and fast to compile.
    """
    out: Ranges = []
    low, high = SURROGATES
    for lo, hi in sorted(ranges):
        if low <= lo <= high:
            lo = high + 1
        if low <= hi <= high:
            hi = low - 1
        if lo > hi:
            continue
        if out and (lo <= out[-1][1] + 1 or (out[-1][1] == low - 1 and lo == high + 1)):
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def complement(ranges: Ranges) -> Ranges:
    out: Ranges = []
    nxt = 0
    for lo, hi in normalise(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODE_POINT:
        out.append((nxt, MAX_CODE_POINT))
    return normalise(out)


def covers(ranges: Ranges, lo: int, hi: int) -> bool:
    return any(a <= lo and hi <= b for a, b in ranges)


def control_mask(ranges: Ranges) -> int:
    """Bit i set for each control character U+000i in `ranges` (normalised)."""
    mask = 0
    for lo, hi in ranges:
        if lo >= 0x20:
            break
        mask |= ((1 << (min(hi, 0x1F) + 1)) - 1) & ~((1 << lo) - 1)
    return mask


def class_spelling(ranges: Ranges) -> str:
    """A bracket class for `ranges` (normalised), negated when that is shorter (same set in both engines)."""
    if not ranges:
        return r"[^\x{0}-\x{10FFFF}]"
    rest = complement(ranges)
    if rest and len(rest) < len(ranges):
        return "[^" + _class_items(rest) + "]"
    return "[" + _class_items(ranges) + "]"


def _class_items(ranges: Ranges) -> str:
    return "".join(_class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}" for lo, hi in ranges)


def _class_char(cp: int) -> str:
    """A class member: ASCII letters and digits as themselves, everything else as `\\x{..}`."""
    c = chr(cp)
    return c if c.isascii() and c.isalnum() else f"\\x{{{cp:X}}}"


def literal(cp: int) -> str:
    c = chr(cp)
    if c.isascii() and c.isalnum() or c == " " or (cp > 0x7F and c.isprintable()):
        return c
    if c in _META:
        return "\\" + c
    if 0x21 <= cp <= 0x7E:
        return c
    return f"\\x{{{cp:X}}}"


#: ECMA `.` (u flag, no s flag): every code point but the line terminators
DOT: Ranges = complement(LINE_TERMINATORS)
