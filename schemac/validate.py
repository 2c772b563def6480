"""Final validation: the one definition of "valid answer" that the runtime and benchmarks share.

`FinalValidator` is jsonschema's Draft 2020-12 validator with four changes that make it agree with
what the compiled grammar enforces:

* Regexes run on RE2 (`schemac.regex.compile_re2`), never on Python `re`: `pattern`,
  `patternProperties`, the "matched by a pattern property" test of `additionalProperties`, and the
  evaluated-keys computation of `unevaluatedProperties`. `propertyNames` applies a schema to each
  key, so its `pattern` goes through the same keyword.
* ECMA-262 semantics: JSON Schema patterns are ECMA-262 regexes ("u" flag). They differ from RE2
  and from llguidance's Rust-like engine in `\\s` (ECMA: Unicode White_Space + line terminators +
  U+FEFF, without U+0085; RE2: `[\\t\\n\\f\\r ]`; llguidance: Unicode White_Space), `.` (ECMA
  excludes \\n \\r U+2028 U+2029; RE2 and llguidance exclude only \\n), `[^]`/`[]`, `\\u` escapes
  and POSIX-looking `[[:alpha:]]` (literal in ECMA, a class in RE2). `\\d`, `\\w`, `\\b` are ASCII
  in ECMA and RE2, and `$` is end-of-input in ECMA and RE2 (Python's `$` also matches before a
  final newline). `schemac.regex.translate` rewrites a pattern into an explicit form that means
  the ECMA thing in both RE2 and llguidance; the validator matches with that form (search, not
  full match: patterns are unanchored).
* References never leave the document: the registry has no retrieval, so an unknown URI is a
  validation error and nothing is fetched. Nested `$schema` naming another dialect is refused
  (`ValueError` at construction): the engine never switches dialect halfway.
* Numbers are mathematical numbers (2020-12 §4.2.1, RFC 8259 §6). `parse_answer` keeps every
  literal exactly: a `float` when the literal is the shortest decimal of a finite double (the
  value its `repr` spells), else a `decimal.Decimal` (`1e400`, `1e-400`, `0.30000000000000000001`,
  integers past Python's 4,300-digit conversion limit), else (an exponent past libmpdec's ±10^18)
  an `ExtremeNumber`. Type checks count these as numbers (integers when integral), and the
  numeric keywords (bounds, `multipleOf`, and equality in `const`/`enum`/`uniqueItems` when such
  a number is involved) compare exactly, reading a float by its shortest decimal (the literal the
  schema author wrote). `multipleOf` is exact decimal arithmetic everywhere (jsonschema's float
  division says 0.3 is no multiple of 0.1).
* `format` asserts only the formats the grammar enforces exactly (`schemac.formats`: date-time,
  time, date, duration, email, hostname, ipv4, ipv6, uuid, uri, uri-reference, iri,
  iri-reference, json-pointer, relative-json-pointer, uri-template), each implemented here so the
  result never depends on which optional packages happen to be installed; every other format is
  an annotation.

Departures from the letter of the RFCs, all documented at the checker: `hostname` checks RFC 1123
syntax and lengths but not IDNA2008 rules for `xn--` labels; `email` accepts RFC 5321 `Mailbox`
without the §4.5.3 size limits and without General-address-literals; `relative-json-pointer`
follows the ABNF of draft-bhutton-00, which has no "#" after an index manipulation (`0-1#`).
"""
from __future__ import annotations

import json
import numbers
import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, Callable, Iterator

from schemac.schema import Schema

DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

#: formats the grammar enforces exactly (`schemac.formats.ENFORCED_FORMATS`); others are annotations
ASSERTED_FORMATS: tuple[str, ...] = (
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri",
    "uri-reference", "iri", "iri-reference", "json-pointer", "relative-json-pointer", "uri-template",
)

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


# --------------------------------------------------------------------------------------------
# strict JSON answers


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


def _parts(value: Any) -> tuple[int, int, int, int]:
    """(sign, |coefficient|, coefficient digits, exponent) of a finite number: value = sign·m·10^e."""
    if isinstance(value, ExtremeNumber):
        return value.sign, value.coefficient, value.digits, value.exponent
    sign, digits, exponent = (value if isinstance(value, Decimal) else Decimal(_shortest(value))).as_tuple()
    return -1 if sign else 1, int(Decimal((0, digits, 0))), len(digits), int(exponent)


def _shortest(value: Any) -> Any:
    return repr(value) if type(value) is float else value


def _compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as a < b, a == b, a > b, exactly, for any two finite numbers."""
    sa, ma, na, ea = _parts(a)
    sb, mb, nb, eb = _parts(b)
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


# --------------------------------------------------------------------------------------------
# formats (strict ABNF; ASCII only: every class below is spelt out, never \d or \w)

_DIGIT = "[0-9]"
_HEX = "[0-9A-Fa-f]"
_DEC_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])"
_IPV4 = rf"{_DEC_OCTET}(?:\.{_DEC_OCTET}){{3}}"
_H16 = f"{_HEX}{{1,4}}"
_LS32 = f"(?:{_H16}:{_H16}|{_IPV4})"
# RFC 3986 §3.2.2 IPv6address, alternative by alternative
_IPV6 = "(?:" + "|".join([
    f"(?:{_H16}:){{6}}{_LS32}",
    f"::(?:{_H16}:){{5}}{_LS32}",
    f"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
    f"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
    f"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
    f"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
    f"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
    f"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
    f"(?:(?:{_H16}:){{0,6}}{_H16})?::",
]) + ")"

_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = f"%{_HEX}{_HEX}"
_PCHAR = f"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_SEGMENT = f"{_PCHAR}*"
_SEGMENT_NZ = f"{_PCHAR}+"
# userinfo "@", host (IP-literal / IPv4address / reg-name), port
_AUTHORITY = "".join([
    f"(?:(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*@)?",
    "(?:",
    rf"\[(?:{_IPV6}|[vV]{_HEX}+\.[{_UNRESERVED}{_SUB_DELIMS}:]+)\]",  # IP-literal
    f"|{_IPV4}",
    f"|(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})*",  # reg-name
    ")",
    "(?::[0-9]*)?",
])
_QUERY_FRAGMENT = f"(?:\\?(?:{_PCHAR}|[/?])*)?(?:\\#(?:{_PCHAR}|[/?])*)?"
_URI = "".join([
    "[A-Za-z][A-Za-z0-9+\\-.]*:",  # scheme
    "(?:",
    f"//{_AUTHORITY}(?:/{_SEGMENT})*",  # authority path-abempty
    f"|/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?",  # path-absolute
    f"|{_SEGMENT_NZ}(?:/{_SEGMENT})*",  # path-rootless
    "|",  # path-empty
    ")",
    _QUERY_FRAGMENT,
])
# RFC 3986 §4.2 relative-ref: like hier-part, but a first segment without ":" (path-noscheme)
_RELATIVE_REF = "".join([
    "(?:",
    f"//{_AUTHORITY}(?:/{_SEGMENT})*",
    f"|/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?",
    f"|(?:[{_UNRESERVED}{_SUB_DELIMS}@]|{_PCT})+(?:/{_SEGMENT})*",  # path-noscheme
    "|",
    ")",
    _QUERY_FRAGMENT,
])
# RFC 3987 §2.2 ucschar and iprivate, as code point ranges
_UCSCHAR = (
    (0xA0, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFEF),
    *((plane << 16, (plane << 16) + 0xFFFD) for plane in range(1, 14)), (0xE1000, 0xEFFFD),
)
_IPRIVATE = ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))
# RFC 6570 §2.3 expression body (level 4); §2.1 literals with verified erratum 6937 ("'" allowed)
_VARCHAR = f"(?:[A-Za-z0-9_]|{_PCT})"
_VARSPEC = f"{_VARCHAR}(?:\\.?{_VARCHAR})*(?::[1-9][0-9]{{0,3}}|\\*)?"
_EXPRESSION = re.compile(f"[+#./;?&=,!@|]?{_VARSPEC}(?:,{_VARSPEC})*")
_TEMPLATE_LITERALS = frozenset("!#$&'()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]_abcdefghijklmnopqrstuvwxyz~")
_PCT_RE = re.compile(_PCT)
_NON_NEGATIVE = re.compile("0|[1-9][0-9]*")
_BAD_TILDE = re.compile("~(?![01])")

_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(
    r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))"
)
# RFC 3339 Appendix A
_DURATION = re.compile(
    r"P(?:(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)"
    r"(?:T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?"
    r"|T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
    r"|[0-9]+W)"
)
_IPV4_RE = re.compile(_IPV4)
_IPV6_RE = re.compile(_IPV6)
_URI_RE = re.compile(_URI)
_RELATIVE_REF_RE = re.compile(_RELATIVE_REF)
_UUID = re.compile(f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?")
_ATOM = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+"
_LOCAL_PART = re.compile(
    rf'{_ATOM}(?:\.{_ATOM})*|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"'
)
_ADDRESS_LITERAL = re.compile(rf"\[(?:{_IPV4}|IPv6:{_IPV6})\]")


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def is_date(value: str) -> bool:
    """RFC 3339 full-date, with the real calendar (leap years)."""
    m = _DATE.fullmatch(value)
    if not m:
        return False
    year, month, day = (int(g) for g in m.groups())
    return 1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)


def is_time(value: str) -> bool:
    """RFC 3339 full-time; second 60 only where the UTC time is 23:59 (a leap second)."""
    m = _TIME.fullmatch(value)
    if not m:
        return False
    hour, minute, second = int(m[1]), int(m[2]), int(m[3])
    if hour > 23 or minute > 59 or second > 60:
        return False
    off_h = off_m = 0
    if m[5]:
        off_h, off_m = int(m[6]), int(m[7])
        if off_h > 23 or off_m > 59:
            return False
    if second == 60:
        sign = 1 if m[5] == "+" else -1
        utc = (hour * 60 + minute - sign * (off_h * 60 + off_m)) % (24 * 60)
        return utc == 23 * 60 + 59
    return True


def is_date_time(value: str) -> bool:
    """RFC 3339 date-time (`T`/`Z` in either case, as §5.6 allows)."""
    if len(value) < 11 or value[10] not in "Tt":
        return False
    return is_date(value[:10]) and is_time(value[11:])


def is_duration(value: str) -> bool:
    """RFC 3339 Appendix A duration (ISO 8601 subset; letters upper case)."""
    return _DURATION.fullmatch(value) is not None


def is_hostname(value: str) -> bool:
    """RFC 1123 host name: LDH labels of 1-63 octets, 253 octets in all, no trailing dot.

    `xn--` labels are checked as LDH labels only (no Punycode/IDNA2008 check), which is also all
    the grammar enforces.
    """
    if not value or len(value) > 253:
        return False
    return all(len(label) <= 63 and _LABEL.fullmatch(label) for label in value.split("."))


def is_email(value: str) -> bool:
    """RFC 5321 Mailbox: Dot-string or Quoted-string "@" Domain or IPv4/IPv6 address literal."""
    at = value.rfind("@")
    if at <= 0:
        return False
    local, domain = value[:at], value[at + 1:]
    if not _LOCAL_PART.fullmatch(local):
        return False
    if domain.startswith("["):
        return _ADDRESS_LITERAL.fullmatch(domain) is not None
    return bool(domain) and all(_LABEL.fullmatch(label) for label in domain.split("."))


def is_ipv4(value: str) -> bool:
    """RFC 2673 §3.2 dotted-quad: four decimal octets, no leading zeros."""
    return _IPV4_RE.fullmatch(value) is not None


def is_ipv6(value: str) -> bool:
    """RFC 4291 §2.2 text form (RFC 3986 IPv6address); no zone identifier."""
    return _IPV6_RE.fullmatch(value) is not None


def is_uuid(value: str) -> bool:
    """RFC 9562 string form: 8-4-4-4-12 hex digits, any case, any version."""
    return _UUID.fullmatch(value) is not None


def is_uri(value: str) -> bool:
    """RFC 3986 URI (absolute, with scheme; a fragment is allowed); ASCII only."""
    return _URI_RE.fullmatch(value) is not None


def is_uri_reference(value: str) -> bool:
    """RFC 3986 URI-reference: a URI or a relative reference; ASCII only."""
    return _URI_RE.fullmatch(value) is not None or _RELATIVE_REF_RE.fullmatch(value) is not None


def _in(ranges: tuple[tuple[int, int], ...], char: str) -> bool:
    return any(lo <= ord(char) <= hi for lo, hi in ranges)


def _iri_as_uri(value: str) -> str | None:
    """RFC 3987 §3.1 mapping: ucschar (and iprivate, in the query only) percent-encoded as
    UTF-8; None where a non-ASCII character has no place. The result is a URI (reference)
    exactly when `value` is an IRI (reference): pct-encoded stands wherever ucschar may."""
    fragment_at = value.find("#")
    query_at = value.find("?", 0, fragment_at if fragment_at >= 0 else len(value))
    out = []
    for i, char in enumerate(value):
        if char.isascii():
            out.append(char)
            continue
        in_query = query_at >= 0 and i > query_at and (fragment_at < 0 or i < fragment_at)
        if not (_in(_UCSCHAR, char) or in_query and _in(_IPRIVATE, char)):
            return None
        out.append("".join(f"%{b:02X}" for b in char.encode("utf-8")))
    return "".join(out)


def is_iri(value: str) -> bool:
    """RFC 3987 IRI: a URI once its ucschar/iprivate characters are percent-encoded."""
    mapped = _iri_as_uri(value)
    return mapped is not None and is_uri(mapped)


def is_iri_reference(value: str) -> bool:
    """RFC 3987 IRI-reference: an IRI or an irelative-ref (mapped to URI-reference as `is_iri`)."""
    mapped = _iri_as_uri(value)
    return mapped is not None and is_uri_reference(mapped)


def is_json_pointer(value: str) -> bool:
    """RFC 6901 JSON Pointer: empty or "/"-led tokens of any characters, "~" only as ~0 / ~1."""
    return (not value or value[0] == "/") and _BAD_TILDE.search(value) is None


def is_relative_json_pointer(value: str) -> bool:
    """Relative JSON Pointer (draft-bhutton-relative-json-pointer-00, which 2020-12 cites):
    non-negative-integer then "#", or an optional ("+" / "-") non-negative-integer index
    manipulation then a JSON Pointer. The ABNF is followed where the draft's example `0-1#`
    departs from it."""
    m = _NON_NEGATIVE.match(value)
    if not m:
        return False
    rest = value[m.end():]
    if rest == "#":
        return True
    if rest[:1] in ("+", "-"):
        m = _NON_NEGATIVE.match(rest, 1)
        if not m:
            return False
        rest = rest[m.end():]
    return is_json_pointer(rest)


def _template_literal(char: str) -> bool:
    return char in _TEMPLATE_LITERALS or _in(_UCSCHAR, char) or _in(_IPRIVATE, char)


def is_uri_template(value: str) -> bool:
    """RFC 6570 URI Template (level 4 syntax): literals, pct-encoded and `{...}` expressions."""
    i = 0
    while i < len(value):
        if value[i] == "{":
            end = value.find("}", i)
            if end < 0 or _EXPRESSION.fullmatch(value, i + 1, end) is None:
                return False
            i = end + 1
        elif value[i] == "%":
            if _PCT_RE.match(value, i) is None:
                return False
            i += 3
        elif _template_literal(value[i]):
            i += 1
        else:
            return False
    return True


FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "date-time": is_date_time,
    "time": is_time,
    "date": is_date,
    "duration": is_duration,
    "email": is_email,
    "hostname": is_hostname,
    "ipv4": is_ipv4,
    "ipv6": is_ipv6,
    "uuid": is_uuid,
    "uri": is_uri,
    "uri-reference": is_uri_reference,
    "iri": is_iri,
    "iri-reference": is_iri_reference,
    "json-pointer": is_json_pointer,
    "relative-json-pointer": is_relative_json_pointer,
    "uri-template": is_uri_template,
}


@lru_cache(maxsize=1)
def _format_checker() -> Any:
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in FORMAT_CHECKS.items():
        checker.checks(name)(lambda v, _check=check: not isinstance(v, str) or _check(v))
    return checker


# --------------------------------------------------------------------------------------------
# RE2-backed keywords


def _search(pattern: str, value: str) -> bool:
    from schemac.regex import compile_re2

    return compile_re2(pattern).search(value) is not None


def _matches_any(patterns: Any, key: str) -> bool:
    return any(_search(p, key) for p in patterns)


def _error(message: str) -> Any:
    from jsonschema.exceptions import ValidationError

    return ValidationError(message)


def _unicode_ok(value: str) -> bool:
    return _SURROGATE.search(value) is None


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict) -> Iterator[Any]:
    if not validator.is_type(instance, "string"):
        return
    if not _unicode_ok(instance):
        yield _error(f"{instance!r} contains a lone surrogate and cannot match {pattern!r}")
    elif not _search(pattern, instance):
        yield _error(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, pattern_properties: dict, instance: Any, schema: dict) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            if _unicode_ok(key) and _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_keys(instance: dict, schema: dict) -> list[str]:
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [
        key for key in instance
        if key not in properties and not (patterns and _unicode_ok(key) and _matches_any(patterns, key))
    ]


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: dict) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    extras = _additional_keys(instance, schema)
    if validator.is_type(additional, "object") or additional is True:
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif extras:
        yield _error(f"additional properties are not allowed ({', '.join(map(repr, extras))} unexpected)")


def _at(validator: Any, schema: Schema) -> Any:
    """`validator` moved onto subschema `schema` (entering its resource if it has an `$id`)."""
    if isinstance(schema, dict) and "$id" in schema:
        from referencing.jsonschema import DRAFT202012

        resolver = validator._resolver.in_subresource(DRAFT202012.create_resource(schema))
        return validator.evolve(schema=schema, _resolver=resolver)
    return validator.evolve(schema=schema)


def _evaluated_keys(validator: Any, instance: dict, schema: Schema, top: bool = False) -> set[str]:
    """Keys that `schema` evaluates (its annotations), for a `schema` that accepts `instance`.

    Follows 2020-12 §11.3: annotations come from properties, patternProperties,
    additionalProperties and unevaluatedProperties, and from in-place applicators whose subschema
    succeeded (failed branches contribute nothing). `top` skips the calling keyword itself.
    """
    if not isinstance(schema, dict):
        return set()
    if not top and "unevaluatedProperties" in schema:
        return set(instance)
    keys: set[str] = set()
    for kw in ("$ref", "$dynamicRef"):
        ref = schema.get(kw)
        if isinstance(ref, str):
            resolved = validator._resolver.lookup(ref)
            sub = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys |= _evaluated_keys(sub, instance, resolved.contents)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        keys.update(k for k in instance if k in properties)
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        keys.update(k for k in instance if _unicode_ok(k) and _matches_any(patterns, k))
    if "additionalProperties" in schema:
        keys.update(_additional_keys(instance, schema))
    candidates: list[Schema] = []
    dependent = schema.get("dependentSchemas")
    if isinstance(dependent, dict):
        candidates.extend(sub for key, sub in dependent.items() if key in instance)
    for kw in ("allOf", "anyOf", "oneOf"):
        candidates.extend(schema.get(kw, ()))
    if "if" in schema:
        if _at(validator, schema["if"]).is_valid(instance):
            candidates.append(schema["if"])
            branch = schema.get("then")
        else:
            branch = schema.get("else")
        if branch is not None:
            candidates.append(branch)
    for sub in candidates:
        child = _at(validator, sub)
        if child.is_valid(instance):
            keys |= _evaluated_keys(child, instance, sub)
    return keys


def _unevaluated_properties(validator: Any, unevaluated: Any, instance: Any, schema: dict) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema, top=True)
    rest = [k for k in instance if k not in evaluated]
    if unevaluated is False:
        if rest:
            yield _error(f"unevaluated properties are not allowed ({', '.join(map(repr, rest))} unexpected)")
        return
    for key in rest:
        yield from validator.descend(instance[key], unevaluated, path=key)


# --------------------------------------------------------------------------------------------
# exact numbers


def _exact(value: Any) -> Any:
    """A number as an exact value: floats by their shortest decimal, anything else as it is."""
    return Decimal(repr(value)) if type(value) is float else value


def _exact_tree(value: Any) -> Any:
    if type(value) is float:
        return Decimal(repr(value))
    if isinstance(value, list):
        return [_exact_tree(v) for v in value]
    if isinstance(value, dict):
        return {k: _exact_tree(v) for k, v in value.items()}
    return value


def _has_exact(value: Any) -> bool:
    """`value` holds a number only `parse_answer`'s exact path makes (Decimal, ExtremeNumber)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (Decimal, ExtremeNumber)):
            return True
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return False


def _pair(instance: Any, bound: Any) -> tuple[Any, Any]:
    """Operands for an exact comparison (two floats compare exactly as doubles already)."""
    if type(instance) is float and type(bound) is float:
        return instance, bound
    return _exact(instance), _exact(bound)


def _power(n: int, p: int) -> int:
    count = 0
    while n and n % p == 0:
        n //= p
        count += 1
    return count


def is_multiple(instance: Any, divisor: Any) -> bool:
    """`instance` is an integer multiple of `divisor` (> 0), in exact decimal arithmetic.

    With instance = m1·10^e1 and divisor = m2·10^e2, the quotient is (m1·10^k)/m2 for
    k = e1 - e2; only the first max(v2(m2), v5(m2)) powers of ten can help, so no operand ever
    grows past the digits of the two literals, whatever the exponents.
    """
    if isinstance(instance, int) and isinstance(divisor, int):
        return instance % divisor == 0
    _, m1, n1, e1 = _parts(instance)
    _, m2, _, e2 = _parts(divisor)
    if m1 == 0:
        return True
    k = e1 - e2
    if k >= 0:
        return m1 * 10 ** min(k, max(_power(m2, 2), _power(m2, 5))) % m2 == 0
    if -k > n1:
        return False  # 0 < m1 < 10^-k <= m2·10^-k
    return m1 % (m2 * 10 ** -k) == 0


def _is_json_integer(checker: Any, instance: Any) -> bool:
    """2020-12 "integer": any number with a zero fractional part (1.0 and 1e400 included)."""
    if isinstance(instance, bool):
        return False
    if isinstance(instance, (float, ExtremeNumber)):
        return instance.is_integer()
    if isinstance(instance, Decimal):
        if not instance.is_finite():
            return False
        _, m, n, e = _parts(instance)
        return e >= 0 or m % 10 ** min(-e, n + 1) == 0
    return isinstance(instance, int)


def _bound(name: str, fails: Callable[[Any, Any], bool], words: str) -> Callable[..., Iterator[Any]]:
    def keyword(validator: Any, bound: Any, instance: Any, schema: dict) -> Iterator[Any]:
        if validator.is_type(instance, "number") and fails(*_pair(instance, bound)):
            yield _error(f"{instance!r} is {words} {bound!r}")

    keyword.__name__ = name
    return keyword


def _multiple_of(validator: Any, divisor: Any, instance: Any, schema: dict) -> Iterator[Any]:
    if validator.is_type(instance, "number") and not is_multiple(instance, divisor):
        yield _error(f"{instance!r} is not a multiple of {divisor}")


def _const(validator: Any, const: Any, instance: Any, schema: dict) -> Iterator[Any]:
    from jsonschema._utils import equal

    if _has_exact(instance):
        instance, const = _exact_tree(instance), _exact_tree(const)
    if not equal(instance, const):
        yield _error(f"{const!r} was expected")


def _enum(validator: Any, enums: Any, instance: Any, schema: dict) -> Iterator[Any]:
    from jsonschema._utils import equal

    if _has_exact(instance):
        found = any(equal(_exact_tree(instance), _exact_tree(each)) for each in enums)
    else:
        found = any(equal(each, instance) for each in enums)
    if not found:
        yield _error(f"{instance!r} is not one of {enums!r}")


def _unique_items(validator: Any, unique: Any, instance: Any, schema: dict) -> Iterator[Any]:
    from jsonschema._utils import uniq

    if unique and validator.is_type(instance, "array"):
        items = _exact_tree(instance) if _has_exact(instance) else instance
        if not uniq(items):
            yield _error(f"{instance!r} has non-unique elements")


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_json_integer),
        validators={
            "minimum": _bound("minimum", lambda i, b: i < b, "less than the minimum of"),
            "maximum": _bound("maximum", lambda i, b: i > b, "greater than the maximum of"),
            "exclusiveMinimum": _bound("exclusiveMinimum", lambda i, b: i <= b,
                                       "less than or equal to the minimum of"),
            "exclusiveMaximum": _bound("exclusiveMaximum", lambda i, b: i >= b,
                                       "greater than or equal to the maximum of"),
            "multipleOf": _multiple_of,
            "const": _const,
            "enum": _enum,
            "uniqueItems": _unique_items,
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
            "unevaluatedProperties": _unevaluated_properties,
        },
    )


def _refuse_retrieval(uri: str) -> Any:
    raise LookupError(f"{uri!r} is not in the document; schemac never retrieves references")


def _check_dialects(schema: Schema) -> None:
    """Refuse any `$schema` other than 2020-12 in a schema position, at any depth.

    Only schema positions are walked (names inside `properties` etc. are data, as are
    const/enum/default/examples values), so a property named "$schema" is no declaration.
    """
    from schemac.schema import child_pointer, iter_subschemas

    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, pointer = stack.pop()
        if not isinstance(node, dict):
            continue
        dialect = node.get("$schema")
        if dialect is not None and (not isinstance(dialect, str) or dialect.rstrip("#") != DIALECT_2020_12):
            raise ValueError(f"{pointer or '/'} declares $schema {dialect!r}: only draft 2020-12 is validated")
        stack.extend((sub, child_pointer(pointer, *tokens)) for tokens, sub in iter_subschemas(node))


def _pointer(path: Any) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)


class FinalValidator:
    """Validates answers against a (resolved) 2020-12 schema exactly as the grammar means it."""

    def __init__(self, schema: Schema) -> None:
        from referencing import Registry

        _check_dialects(schema)
        self.schema = schema
        self._validator = _validator_class()(
            schema,
            registry=Registry(retrieve=_refuse_retrieval),  # type: ignore[call-arg]
            format_checker=_format_checker(),
        )

    def errors(self, instance: Any) -> list[str]:
        """Every violation as "<instance pointer>: <message>"; empty when `instance` is valid."""
        from referencing.exceptions import Unresolvable

        try:
            return [
                f"{_pointer(e.absolute_path) or '/'}: {e.message}"
                for e in self._validator.iter_errors(instance)
            ]
        except Unresolvable as exc:
            return [f"/: unresolvable reference: {exc}"]
        except RecursionError:
            return ["/: the schema recurses without consuming the instance"]

    def is_valid(self, instance: Any) -> bool:
        from referencing.exceptions import Unresolvable

        try:
            return bool(self._validator.is_valid(instance))
        except (Unresolvable, RecursionError):
            return False
