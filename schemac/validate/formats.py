"""Format assertions of the final validator: strict ABNF checks for the enforced formats.

Each check is implemented here so the result never depends on which optional packages are
installed. Python `re` runs only the fixed ASCII grammars below, never a schema pattern.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable

#: formats the grammar enforces exactly (`schemac.front.formats.ENFORCED_FORMATS`); others are annotations
ASSERTED_FORMATS: tuple[str, ...] = (
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri",
    "uri-reference", "iri", "iri-reference", "json-pointer", "relative-json-pointer", "uri-template",
)

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
def format_checker() -> Any:
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in FORMAT_CHECKS.items():
        checker.checks(name)(lambda v, _check=check: not isinstance(v, str) or _check(v))
    return checker
