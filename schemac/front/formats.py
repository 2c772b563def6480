"""Formats: enforce, exactly, the ones the final validator asserts; drop the rest as annotations.

Known formats are assertions: the final validator checks them (`schemac.validate.final.FORMAT_CHECKS`)
and the grammar must accept exactly the same strings. llguidance 1.9.1's own format regexes do
not always agree with those checks (Feb 29 in every year and second 60 at any time for `date`,
`time`, `date-time`; no 253-octet total for `hostname`; no quoted email local parts, IPv6
address literals or IPv6 with an embedded IPv4 tail for `email`, `ipv6`, `uri`), and it has none
for `uri-reference`, `iri`, `iri-reference` (RFC 3986/3987), `json-pointer` (RFC 6901),
`relative-json-pointer` and `uri-template` (RFC 6570 level 4). So every enforced format has an
exact ECMA-262 form here (`FORMAT_PATTERNS`: their intersection is the format), and the lowering
pass `schemac.lower.format_patterns` puts it in the place of `format`, so llguidance never
applies a regex of its own. That also holds for `duration`, `ipv4` and `uuid`, where
llguidance's regex is the validator's grammar: as patterns their complements are exact
(`not`, `oneOf`, `if` negate a pattern, never a `format`) and they can meet a negated pattern
in one string terminal. Final validation sees both: the validator's check and the patterns,
which accept the same strings, so the schema it reads means what the user wrote.

Leap seconds tie the local time to the offset (23:59:60 UTC); one regex for that needs a branch
per local minute, so it is split into two patterns, one tying the hours and one the minutes,
whose intersection (llguidance and the validator both intersect `allOf` patterns) is exact.
A host name's 253-octet total is a second pattern beside its labels' in the same way.

An unknown format has no validation meaning in 2020-12, so dropping it is exact, but the user may
have relied on it, hence the warning (an error under strict formats). That includes the formats
with no exact regular form: `regex` (ECMA-262 pattern syntax nests groups: not regular),
`idn-hostname` / `idn-email` (IDNA2008 / UTS-46 need Unicode property tables that the engines do
not share), and vendor formats such as OpenAPI's `byte`, which 2020-12 gives no meaning.

OpenAPI's number formats (`int32`, `int64`, `uint32`, `uint64`, `float`, `double`: every
Kubernetes schema has them) mean the range of that machine type, which is what an OpenAPI
client reading the answer relies on: by default (`openapi_formats=True`) each becomes that exact
range (`minimum`/`maximum` in an `allOf` part beside the node, so a bound of the user's own is
kept), read by the grammar and the final validator alike; `float`/`double` bound the magnitude
(every finite number within it rounds to a value of that type). With `openapi_formats=False`
they are annotations like any other unknown format.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import DiagnosticSink, reject
from schemac.schema import Bundle, Schema, child_pointer, iter_subschemas

#: Formats asserted by the final validator and enforced, exactly, by the grammar.
ENFORCED_FORMATS: frozenset[str] = frozenset({
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri",
    "uri-reference", "iri", "iri-reference", "json-pointer", "relative-json-pointer", "uri-template",
})

# ---- building blocks (ECMA-262, ASCII classes spelt out) -------------------------------------

_HEX = "[0-9A-Fa-f]"
_DEC_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = rf"{_DEC_OCTET}(?:\.{_DEC_OCTET}){{3}}"
_H16 = f"{_HEX}{{1,4}}"
_LS32 = f"(?:{_H16}:{_H16}|{_IPV4})"


def _ipv6() -> str:
    """RFC 3986 §3.2.2 IPv6address: `k` groups at most before "::" and a fixed tail after it."""
    tails = [f"(?:{_H16}:){{{5 - k}}}{_LS32}" if k < 5 else _LS32 for k in range(6)] + [_H16, ""]
    forms = [f"(?:{_H16}:){{6}}{_LS32}"]
    for k, tail in enumerate(tails):
        head = "" if k == 0 else f"(?:(?:{_H16}:){{0,{k - 1}}}{_H16})?"
        forms.append(f"{head}::{tail}")
    return "(?:" + "|".join(forms) + ")"


_IPV6 = _ipv6()

# RFC 3986 §3: unreserved / sub-delims spelt out; `#` and `/` need no escape in ECMA-262
_UNRESERVED_SUB = r"A-Za-z0-9\-._~!$&'()*+,;="
_PCT = f"%{_HEX}{{2}}"
_SCHEME = r"[A-Za-z][A-Za-z0-9+\-.]*:"
# RFC 3987 §2.2 ucschar (iunreserved beyond ASCII) and iprivate (allowed in iquery only)
_UCSCHAR = r"\u{A0}-\u{D7FF}\u{F900}-\u{FDCF}\u{FDF0}-\u{FFEF}" + "".join(
    rf"\u{{{p:X}0000}}-\u{{{p:X}FFFD}}" for p in range(1, 14)
) + r"\u{E1000}-\u{EFFFD}"
_IPRIVATE = r"\u{E000}-\u{F8FF}\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}"


def _uri_forms(extra: str, query_extra: str) -> tuple[str, str]:
    """RFC 3986 §3 URI and §4.2 relative-ref (RFC 3987 IRI / irelative-ref when `extra` holds
    ucschar): each `(?:...)` form, query and fragment included."""
    pchar = f"(?:[{_UNRESERVED_SUB}{extra}:@]|{_PCT})"
    nc = f"(?:[{_UNRESERVED_SUB}{extra}@]|{_PCT})"  # segment-nz-nc: no ":" before the first "/"
    authority = "".join([
        f"(?:(?:[{_UNRESERVED_SUB}{extra}:]|{_PCT})*@)?",
        # host: IP-literal / reg-name (reg-name already holds every IPv4address)
        rf"(?:\[(?:{_IPV6}|[vV]{_HEX}+\.[{_UNRESERVED_SUB}:]+)\]|(?:[{_UNRESERVED_SUB}{extra}]|{_PCT})*)",
        "(?::[0-9]*)?",
    ])
    abempty = f"(?:/{pchar}*)*"
    rest = f"(?:\\?(?:{pchar}|[/?{query_extra}])*)?(?:#(?:{pchar}|[/?])*)?"
    # hier-part: authority + path-abempty / path-absolute / path-rootless / path-empty
    absolute = f"(?://{authority}{abempty}|/?(?:{pchar}+(?:/{pchar}*)*)?){rest}"
    # relative-part: ... / path-absolute / path-noscheme / path-empty
    relative = f"(?://{authority}{abempty}|/(?:{pchar}+(?:/{pchar}*)*)?|(?:{nc}+(?:/{pchar}*)*)?){rest}"
    return f"{_SCHEME}{absolute}", relative


_URI, _RELATIVE_REF = _uri_forms("", "")
_IRI, _IRELATIVE_REF = _uri_forms(_UCSCHAR, _IPRIVATE)

# RFC 6901 json-pointer; a reference-token is any code point but "/" and "~", or "~0" / "~1"
_JSON_POINTER = "(?:/(?:[^/~]|~[01])*)*"
_NON_NEGATIVE = "(?:0|[1-9][0-9]*)"

# RFC 6570 §2 level-4 syntax; literals %x21 / %x23-24 / %x26-3B / %x3D / %x3F-5B / %x5D / %x5F /
# %x61-7A / %x7E / ucschar / iprivate / pct-encoded, with verified erratum 6937 ("'" = %x27 is in)
_VARCHAR = f"(?:[A-Za-z0-9_]|{_PCT})"
_VARSPEC = f"{_VARCHAR}(?:\\.?{_VARCHAR})*(?::[1-9][0-9]{{0,3}}|\\*)?"
_URI_TEMPLATE = (
    f"(?:[!#$&-;=?-\\[\\]_a-z~{_UCSCHAR}{_IPRIVATE}]|{_PCT}"
    f"|\\{{[+#./;?&=,!@|]?{_VARSPEC}(?:,{_VARSPEC})*\\}})*"
)

# RFC 5321 §4.1.2 Mailbox (the validator's reading: no size limits, no General-address-literal)
_ATOM = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
_EMAIL = (
    rf'(?:{_ATOM}(?:\.{_ATOM})*|"(?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\[\x20-\x7E])*")'
    rf"@(?:{_LABEL}(?:\.{_LABEL})*|\[(?:{_IPV4}|IPv6:{_IPV6})\])"
)

# RFC 3339 §5.6/5.7 with the Gregorian calendar
_LEAP_YEAR = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
_DATE = (
    "(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    f"|02-(?:0[1-9]|1[0-9]|2[0-8]))|{_LEAP_YEAR}-02-29)"
)
_LOOSE_DATE = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
_HOUR = "(?:[01][0-9]|2[0-3])"
_FRAC = r"(?:\.[0-9]+)?"
_ORDINARY = f"{_HOUR}:[0-5][0-9]:[0-5][0-9]{_FRAC}(?:[Zz]|[+-]{_HOUR}:[0-5][0-9])"
_UTC_LEAP = f"23:59:60{_FRAC}[Zz]"


def _leap_hours() -> str:
    """Second 60 with an offset, hours tied: local 23:59 + offset (a "+mm" carries unless the
    local minute is 59), or 23:59 - offset (never borrows). Minutes are tied by `_leap_minutes`."""
    other_minute = "(?:[0-4][0-9]|5[0-8])"
    forms = []
    for h in range(24):
        forms.append(
            f"{h:02}:(?:59:60{_FRAC}\\+{(h + 1) % 24:02}|{other_minute}:60{_FRAC}\\+{h:02}"
            f"|[0-5][0-9]:60{_FRAC}-{23 - h:02}):[0-9]{{2}}"
        )
    return "(?:" + "|".join(forms) + ")"


def _leap_minutes() -> str:
    """Second 60 with an offset, minutes tied: "+mm" is local minute + 1, "-mm" is 59 - it."""
    forms = [
        f"{m:02}:60{_FRAC}(?:\\+[0-9]{{2}}:{(m + 1) % 60:02}|-[0-9]{{2}}:{59 - m:02})" for m in range(60)
    ]
    return "[0-9]{2}:(?:" + "|".join(forms) + ")"


def _times(date: str, loose_date: str) -> tuple[tuple[str, ...], ...]:
    """RFC 3339 full-time after `date`: ordinary times, or a leap second that two patterns tie
    to 23:59 UTC (hours and minutes; `loose_date` leaves the date to the first)."""
    return (
        (f"^{date}(?:{_ORDINARY}|{_UTC_LEAP})$",),
        (f"^{date}{_leap_hours()}$", f"^{loose_date}{_leap_minutes()}$"),
    )


# RFC 9562 string form, any case; RFC 3339 Appendix A duration (the validator's, letters upper case)
_UUID = f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"
_DURATION_TIME = "T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
_DURATION = (
    f"P(?:(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)(?:{_DURATION_TIME})?"
    f"|{_DURATION_TIME}|[0-9]+W)"
)
#: RFC 1123 §2.1 / RFC 1035 §2.3.4: LDH labels of 1-63 octets, at most 253 octets in all.
HOSTNAME_MAX_LENGTH = 253
_HOST_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"

#: Exact ECMA-262 forms of the enforced formats: a string has the format iff, for some
#: alternative, it matches every pattern of that alternative.
FORMAT_PATTERNS: dict[str, tuple[tuple[str, ...], ...]] = {
    "date": ((f"^{_DATE}$",),),
    "time": _times("", ""),
    "date-time": _times(f"{_DATE}[Tt]", f"{_LOOSE_DATE}[Tt]"),
    "email": ((f"^{_EMAIL}$",),),
    "ipv6": ((f"^{_IPV6}$",),),
    "uri": ((f"^{_URI}$",),),
    "uri-reference": ((f"^(?:{_URI}|{_RELATIVE_REF})$",),),
    "iri": ((f"^{_IRI}$",),),
    "iri-reference": ((f"^(?:{_IRI}|{_IRELATIVE_REF})$",),),
    "json-pointer": ((f"^{_JSON_POINTER}$",),),
    "relative-json-pointer": ((f"^{_NON_NEGATIVE}(?:#|(?:[+-]{_NON_NEGATIVE})?{_JSON_POINTER})$",),),
    "uri-template": ((f"^{_URI_TEMPLATE}$",),),
    "duration": ((f"^{_DURATION}$",),),
    "ipv4": ((f"^{_IPV4}$",),),
    "uuid": ((f"^{_UUID}$",),),
    # host names are ASCII, so characters are octets
    "hostname": ((rf"^{_HOST_LABEL}(?:\.{_HOST_LABEL})*$", f"^[\\s\\S]{{0,{HOSTNAME_MAX_LENGTH}}}$"),),
}


def _intersection(patterns: tuple[str, ...]) -> dict[str, Any]:
    first, *rest = patterns
    return {"pattern": first, "allOf": [{"pattern": p} for p in rest]} if rest else {"pattern": first}


#: shortest string of the second-60-with-offset alternative ("HH:MM:60+hh:mm", after a date)
LEAP_OFFSET_MIN_LENGTH: dict[str, int] = {"time": 14, "date-time": 25}


def pattern_form(fmt: str, max_length: int | None = None) -> Schema | None:
    """The exact stand-in for `format: fmt` in the grammar (None: no patterns needed).

    Under a `maxLength` too short for a leap second with an offset that alternative is empty
    and left out (llguidance cannot always prove such an intersection empty, and refuses it).
    Final validation keeps reading `format` (the validator's checks); only the lowering input
    changes, in the pass `schemac.lower.format_patterns`.
    """
    alternatives = FORMAT_PATTERNS.get(fmt)
    if alternatives is None:
        return None
    if max_length is not None and max_length < LEAP_OFFSET_MIN_LENGTH.get(fmt, max_length):
        alternatives = alternatives[:1]
    if len(alternatives) == 1:
        return _intersection(alternatives[0])
    return {"anyOf": [_intersection(a) for a in alternatives]}


#: OpenAPI number formats as exact inclusive ranges (the largest finite float32 and float64)
NUMBER_FORMATS: dict[str, tuple[int | float, int | float]] = {
    "int32": (-2 ** 31, 2 ** 31 - 1),
    "int64": (-2 ** 63, 2 ** 63 - 1),
    "uint32": (0, 2 ** 32 - 1),
    "uint64": (0, 2 ** 64 - 1),
    "float": (-3.4028234663852886e38, 3.4028234663852886e38),
    "double": (-1.7976931348623157e308, 1.7976931348623157e308),
}


def _apply(node: Schema, pointer: str, strict: bool, sink: DiagnosticSink, numbers: bool = True) -> Schema:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = dict(node)
    fmt = out.get("format")
    if numbers and isinstance(fmt, str) and fmt in NUMBER_FORMATS:
        low, high = NUMBER_FORMATS[fmt]
        del out["format"]  # the range says it all, to the grammar and to final validation
        out["allOf"] = [*out.get("allOf", []), {"minimum": low, "maximum": high}]
    elif "format" in out and fmt not in ENFORCED_FORMATS:
        where = child_pointer(pointer, "format")
        message = f"format {fmt!r} is not enforced by llguidance"
        if strict:
            raise reject("unknown-format", where, message, hint="remove it, or drop --strict-formats")
        sink.warn("unknown-format", where, message + "; dropped (it is an annotation in 2020-12)")
        del out["format"]
    for tokens, sub in iter_subschemas(node):
        kw = tokens[0]
        new = _apply(sub, child_pointer(pointer, *tokens), strict, sink, numbers)
        if new is sub:
            continue
        if len(tokens) == 1:
            out[kw] = new
        else:
            container = out[kw]
            if container is node[kw]:
                container = out[kw] = list(container) if isinstance(container, list) else dict(container)
            container[tokens[1]] = new
    return out if out != node else node


def apply_formats(bundle: Bundle, strict: bool, sink: DiagnosticSink, openapi: bool = True) -> Bundle:
    """A bundle whose `format`s are all enforced ones; warnings (or an error) for the others.
    `openapi`: OpenAPI's number formats become their ranges (`NUMBER_FORMATS`)."""
    root = _apply(bundle.root, "", strict, sink, openapi)
    defs = {name: _apply(body, bundle.origin.get(name, ""), strict, sink, openapi) for name, body in bundle.defs.items()}
    return Bundle(root, defs, dict(bundle.origin))
