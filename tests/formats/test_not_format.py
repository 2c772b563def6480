"""Complements of `format`: `not`, an overlapping `oneOf` branch and an `if` guard, against the oracle.

Every enforced format is lowered to its exact patterns (`schemac.front.formats.FORMAT_PATTERNS`), so
its complement is the complement of those patterns (De Morgan over the alternatives and the
patterns each one intersects, the host name's 253-octet bound included). The oracle is the
final validator (`schemac.validate.final.FinalValidator`: jsonschema with schemac's format checker),
which asserts these formats whatever `strict_formats` says; other formats are annotations.

For ipv4, uuid, duration and hostname (the formats llguidance used to enforce with its own
regex, which nothing could negate), every string over an alphabet chosen for the format's edges
is walked (`accepted_texts`), plus near-misses of valid values; every format then meets its
`TRICKY` strings (tests/formats/test_formats.py), non-strings, and spellings that decode to a value of
the format (`\\u0031` for `1`), which the complement must refuse: the value has the format.
"""
from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

import schemac
from testkit.grammar_harness import accepted_texts, accepts
from schemac.diagnostics import CompileError
from schemac.front.formats import ENFORCED_FORMATS
from schemac.validate.final import FORMAT_CHECKS, FinalValidator
from tests.formats.test_formats import TRICKY

#: (alphabet, longest string walked exhaustively) per format: digits and dots give every dotted
#: shape up to "0.0.0.0"-long, with "0" for leading zeros (longer octets are HANDCRAFTED);
#: designators, digits and "T" for durations; letters, digits, "-" and "." for host names.
WALKS: dict[str, tuple[str, int]] = {
    "ipv4": ("015.", 7),
    "duration": ("PT1DMWH", 5),
    "hostname": ("a1-.", 6),
    "uuid": ("a0-", 3),
}

UUID = "123e4567-e89b-12d3-a456-426614174000"
#: longer strings the walks cannot reach: octet edges, leading zeros, extra parts, host name
#: label and total lengths, durations with every designator
HANDCRAFTED: dict[str, list[str]] = {
    "ipv4": ["0.0.0.0", "255.255.255.255", "256.1.1.1", "1.2.3.256", "01.1.1.1", "1.2.3.04", "00.0.0.0",
             "249.250.199.100", "1.2.3.4.", ".1.2.3.4", "1..2.3", "1.2.3.4.5", "1.2.3.4\n", " 1.2.3.4",
             "1.2.3.4 ", "300.1.1.1", "1.2.3.-1", "1.2.3.+1", "１.2.3.4", "1.2.3.4/8", "0x1.2.3.4"],
    "uuid": [UUID, UUID.upper(), UUID.replace("-", ""), UUID + "0", UUID[:-1], "{" + UUID + "}",
             "urn:uuid:" + UUID, UUID.replace("e", "é", 1)],
    "duration": ["P1Y2M3DT4H5M6S", "P1Y2D3M", "P1W2D", "PT1H1S", "P1DT", "PT", "P", "p1d", "P1.5D",
                 "P10000W", "PT0S", "P1Y1M1W"],
    "hostname": ["a" * 63, "a" * 64, ".".join(["a" * 63] * 3 + ["a" * 61]), ".".join(["a" * 63] * 3 + ["a" * 62]),
                 "a-b.c-d", "a.", ".a", "a..b", "-a", "a-", "a_b", "xn--bcher-kva.example", "A.B", "é.com"],
}


def _near_misses(value: str, alphabet: str) -> list[str]:
    """`value` with one character replaced by, inserted from, or deleted (every position)."""
    out = {value[:i] + value[i + 1:] for i in range(len(value))}
    for i, ch in itertools.product(range(len(value) + 1), alphabet):
        out.add(value[:i] + ch + value[i:])
        out.add(value[:i] + ch + value[i + 1:])
    return sorted(out)


def _strings(fmt: str) -> list[str]:
    """Every string to check for `fmt`, the walked ones excepted."""
    out = set(TRICKY[fmt]) | set(HANDCRAFTED.get(fmt, []))
    if fmt == "uuid":
        out |= set(_near_misses(UUID, "0aFgG-é"))
    if fmt == "ipv4":
        out |= set(_near_misses("255.1.10.0", "0259.-"))
    return sorted(out)


def _schemas(fmt: str) -> list[dict[str, Any]]:
    """`not`, `not` beside `type`, a `oneOf` whose other branch overlaps every format at its
    short strings, and an `if` guard (the three places a lowering negates a format)."""
    return [
        {"not": {"format": fmt}},
        {"type": "string", "not": {"format": fmt}},
        {"oneOf": [{"format": fmt}, {"type": "string", "maxLength": 7}]},
        {"type": "string", "if": {"format": fmt}, "then": {"minLength": 8}, "else": {"maxLength": 3}},
    ]


def _accepted(grammar: str, value: Any) -> bool:
    """Whether the grammar takes `value` in its canonical spelling, or with DEL escaped (the one
    spelling llguidance's JSON string lexeme takes for it, the syntax policy's deviation)."""
    raw = json.dumps(value, ensure_ascii=False)
    return accepts(grammar, raw) or accepts(grammar, raw.replace("\x7f", "\\u007f"))


def _disagreements(schema: dict[str, Any], values: list[Any]) -> list[tuple[Any, bool]]:
    art = schemac.compile(schema, use_cache=False)
    oracle = FinalValidator(schema)
    return [(v, ok) for v in values if _accepted(art.grammar, v) != (ok := oracle.is_valid(v))]


NON_STRINGS: list[Any] = [None, True, 0, 1.5, [], {}, ["1.2.3.4"], {"a": UUID}]


@pytest.mark.parametrize("fmt", sorted(ENFORCED_FORMATS))
def test_every_format_has_an_exact_complement(fmt: str) -> None:
    """The four shapes compile for every enforced format, and agree with the oracle on its
    tricky strings, near-misses and non-strings (which have every format)."""
    values = _strings(fmt) + NON_STRINGS
    assert any(FORMAT_CHECKS[fmt](v) for v in values if isinstance(v, str))
    for schema in _schemas(fmt):
        assert _disagreements(schema, values) == [], schema


@pytest.mark.parametrize("fmt", sorted(WALKS))
def test_walks_agree_with_the_oracle(fmt: str) -> None:
    """Every string over the format's alphabet up to the walk's length: the grammar accepts
    exactly the canonical texts of the values the oracle accepts."""
    alphabet, n = WALKS[fmt]
    words = ["".join(w) for k in range(n + 1) for w in itertools.product(alphabet, repeat=k)]
    for schema in _schemas(fmt)[1:]:  # string-typed, or strings the only texts walked
        art = schemac.compile(schema, use_cache=False)
        oracle = FinalValidator(schema)
        found = {t for t in accepted_texts(art.grammar, alphabet + '"', n + 2) if t.startswith('"')}
        expected = {json.dumps(w) for w in words if oracle.is_valid(w)}
        assert found == expected, (schema, sorted(found ^ expected)[:10])


def _escaped(value: str) -> list[str]:
    """Other spellings of `value`: each ASCII character in turn as a `\\u` escape, both cases."""
    return [
        '"' + value[:i] + e + value[i + 1:] + '"'
        for i, c in enumerate(value) if c.isascii()
        for e in {f"\\u{ord(c):04x}", f"\\u{ord(c):04X}"}
    ]


@pytest.mark.parametrize("fmt,value", [("ipv4", "1.2.3.4"), ("uuid", UUID), ("duration", "P1D"),
                                       ("hostname", "a-1.b"), ("date", "2024-02-29"), ("ipv6", "::1")])
def test_escaped_spellings_of_a_format_value_are_refused(fmt: str, value: str) -> None:
    """`"\\u0031.2.3.4"` is the value "1.2.3.4", an ipv4: the complement must refuse it, and
    so must the `oneOf` branch that takes non-ipv4 strings."""
    assert FORMAT_CHECKS[fmt](value)
    for schema in _schemas(fmt)[:3]:
        art = schemac.compile(schema, use_cache=False)
        assert not FinalValidator(schema).is_valid(value) or schema.get("oneOf")
        leaked = [t for t in _escaped(value) if accepts(art.grammar, t)]
        assert leaked == [], (schema, leaked[:3])


def test_overlapping_address_formats() -> None:
    """MaskBench's `oneOf` of hostname, ipv4 and ipv6 (Github_hard o21780, o4237): an IPv4
    address is also a host name, so it is refused; each format alone is taken."""
    schema = {"type": "string", "oneOf": [{"format": "hostname"}, {"format": "ipv4"}, {"format": "ipv6"}]}
    values = ["1.2.3.4", "255.255.255.255", "1.2.3.256", "01.2.3.4", "a.b", "::1", "::ffff:1.2.3.4", "", "a:b",
              "-a", "a" * 64, "1.2.3", 5]
    assert _disagreements(schema, values) == []
    art = schemac.compile(schema, use_cache=False)
    assert not accepts(art.grammar, '"1.2.3.4"') and accepts(art.grammar, '"1.2.3.256"')


def test_uuid_or_prefixed_key() -> None:
    """Snowplow sp_209's `oneOf` of a uuid and a `$`-led pattern, with near-misses of both."""
    schema = {"oneOf": [{"format": "uuid"}, {"pattern": "^\\$[A-Z0-9-_]+"}]}
    values = [UUID, "$" + UUID.upper(), "$ABC", "$abc", "$", UUID[:-1], 3, None]
    assert _disagreements(schema, values) == []


@pytest.mark.parametrize("strict", [False, True])
def test_unknown_formats_are_annotations_or_refused(strict: bool) -> None:
    """A format schemac does not enforce asserts nothing (the validator ignores it), so
    `not: {format: "color"}` is `not: {}`: nothing is valid. Under `strict_formats` it is an
    error, as anywhere else; the enforced formats compile the same under both settings."""
    with pytest.raises(CompileError) as err:
        schemac.compile({"not": {"format": "color"}}, strict_formats=strict, use_cache=False)
    codes = [d.code for d in err.value.diagnostics]
    assert codes == (["unknown-format"] if strict else ["unknown-format", "unsatisfiable"])
    schema = {"oneOf": [{"format": "color"}, {"type": "string", "maxLength": 3}]}
    if strict:
        with pytest.raises(CompileError):
            schemac.compile(schema, strict_formats=True, use_cache=False)
    else:
        assert _disagreements(schema, ["red", "reds", "", 1, None]) == []
    for fmt in ("ipv4", "hostname"):
        both = {s: schemac.compile({"not": {"format": fmt}}, strict_formats=s, use_cache=False).grammar
                for s in (False, True)}
        assert both[False] == both[True]
