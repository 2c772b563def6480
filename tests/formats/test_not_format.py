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
from testkit.ecma_oracle import node_words
from testkit.exactness import check, compiles_or_refused, dumps, generates
from testkit.grammar_harness import valid_text
from tests.emit.test_pattern_classes import PP_PATTERN_SETS, PP_SCHEMAS

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


# ---- exact complements of every format, plain and strict, beside patterns, other formats,
# `if` and typed unions, in keys and items, near misses, escaped spellings, and a generator's walk
# (attack round 11: each text goes to the grammar and to FinalValidator on the original schema;
# a valid text may be refused only in a spelling or order the syntax policy excludes)

FORMAT_SAMPLES: dict[str, list[str]] = {
    "ipv4": ["1.2.3.4", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5",
             "1.2.3.4\n", " 1.2.3.4", "١.2.3.4", "1..3.4", "", "a", "00000000-0000-0000-0000-000000000000"],
    "uuid": ["00000000-0000-0000-0000-000000000000", "ABCDEFab-0000-0000-0000-000000000000",
             "0000000-0000-0000-0000-000000000000", "00000000000000000000000000000000",
             "00000000-0000-0000-0000-00000000000g", "{00000000-0000-0000-0000-000000000000}",
             "00000000-0000-0000-0000-000000000000\n", "", "1.2.3.4"],
    "duration": ["P1D", "PT1H", "P1W", "P1Y2M3DT4H5M6S", "PT", "P", "P1W1D", "P1DT", "PT1H1S",
                 "P1M1Y", "p1d", "P1.5D", "PT36H", "P0D", "P1Y1D", "", "1D"],
    "hostname": ["a", "a.b", "a-b", "-a", "a-", "a.", ".a", "a..b", "a" * 63, "a" * 64,
                 ".".join(["a" * 63] * 4), ".".join(["a" * 63] * 3 + ["a" * 61]),
                 ".".join(["a" * 63] * 3 + ["a" * 62]), "xn--a", "a_b", "é", "", "1.2.3.4", "a b"],
    "date-time": ["2020-01-01T00:00:00Z", "2020-02-29T00:00:00Z", "2021-02-29T00:00:00Z",
                  "2016-12-31T23:59:60Z", "2016-12-31T23:59:60+00:00", "2016-12-31T22:59:60-01:00",
                  "2020-01-01T23:59:60Z", "2020-01-01t00:00:00z", "2020-01-01 00:00:00Z",
                  "2020-01-01T00:00:00", "2020-01-01T00:00:00.5+01:00", "2020-13-01T00:00:00Z", ""],
    "date": ["2020-01-01", "2020-02-29", "2019-02-29", "2000-02-29", "1900-02-29", "2020-04-31",
             "2020-1-01", "20200101", ""],
    "time": ["00:00:00Z", "23:59:60Z", "23:59:59Z", "12:00:60Z", "00:00:00", "00:00:00+25:00",
             "23:59:60+00:00", "00:59:60+01:00", ""],
    "email": ["a@b", "a@b.c", "\"a b\"@c", "a@[1.2.3.4]", "a@[IPv6:::1]", "@b", "a@", "a@@b",
              "a.b@c", ".a@b", "a..b@c", "é@b", ""],
    "ipv6": ["::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "::ffff:1.2.3.4",
             "1::2::3", "g::", "12345::", "::1.2.3", ""],
    "uri": ["a:b", "http://x", "http://[::1]/", "a", "/a", "a:b c", "1a:b", "a:%zz", ""],
    "uri-reference": ["a:b", "a", "/a", "", "a b", "%zz", "#f", "?q"],
    "json-pointer": ["", "/", "/a", "/a~0", "/a~1b", "/a~2", "a", "~"],
    "relative-json-pointer": ["0", "0#", "1/a", "01", "-1", "0-1#", "0+1/a", "#", ""],
    "uri-template": ["a", "{a}", "{a", "a}", "{+a,b*}", "{a:3}", "{}", ""],
    "iri": ["a:é", "a:b", "é", ""],
    "iri-reference": ["é", "a b", "", "%zz"],
}


NON_STRING_TEXTS = ["1", "null", "true", "[]", "{}", "1.5", "[\"1.2.3.4\"]"]


FORMATS = sorted(FORMAT_SAMPLES)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("fmt", FORMATS)
def test_not_format_is_exact_complement(fmt: str, strict: bool) -> None:
    check({"not": {"format": fmt}}, dumps(FORMAT_SAMPLES[fmt]) + NON_STRING_TEXTS, strict_formats=strict)
    check({"oneOf": [{"format": fmt}, {"type": "integer"}]}, dumps(FORMAT_SAMPLES[fmt]) + NON_STRING_TEXTS, strict_formats=strict)


@pytest.mark.parametrize("fmt", FORMATS)
def test_typed_not_format(fmt: str) -> None:
    check({"type": "string", "not": {"format": fmt}}, dumps(FORMAT_SAMPLES[fmt]) + NON_STRING_TEXTS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_format_plain_and_strict(fmt: str) -> None:
    texts = dumps(FORMAT_SAMPLES[fmt]) + NON_STRING_TEXTS
    check({"format": fmt}, texts)
    check({"format": fmt}, texts, strict_formats=True)
    compiles_or_refused({"type": "string", "format": fmt, "maxLength": 10}, texts, {"unsatisfiable"})


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_of_format_against_pattern(fmt: str) -> None:
    samples = FORMAT_SAMPLES[fmt]
    refusals = {"grammar-error"}  # llguidance may fail to decide a terminal's emptiness: refused, never unsound
    compiles_or_refused({"oneOf": [{"format": fmt}, {"pattern": "^[0-9a]"}]}, dumps(samples) + NON_STRING_TEXTS, refusals)
    compiles_or_refused({"oneOf": [{"format": fmt}, {"minLength": 2}]}, dumps(samples) + NON_STRING_TEXTS, refusals)


OVERLAP_REFUSALS = {"too-large", "unsatisfiable", "grammar-error"}


@pytest.mark.parametrize("pair", [("ipv4", "hostname"), ("uuid", "hostname"), ("date", "date-time"),
                                  ("uri", "uri-reference"), ("iri", "uri"), ("json-pointer", "relative-json-pointer"),
                                  ("ipv4", "ipv6"), ("email", "hostname"), ("duration", "hostname")])
def test_overlapping_formats(pair: tuple[str, str]) -> None:
    a, b = pair
    texts = dumps(FORMAT_SAMPLES[a] + FORMAT_SAMPLES[b]) + NON_STRING_TEXTS
    compiles_or_refused({"oneOf": [{"format": a}, {"format": b}]}, texts, OVERLAP_REFUSALS)
    compiles_or_refused({"if": {"format": a}, "then": {"format": b}, "else": {"maxLength": 3}}, texts, OVERLAP_REFUSALS)
    compiles_or_refused({"format": a, "not": {"format": b}}, texts, OVERLAP_REFUSALS)
    compiles_or_refused({"anyOf": [{"format": a}, {"format": b}], "not": {"allOf": [{"format": a}, {"format": b}]}},
                         texts, OVERLAP_REFUSALS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_if_format_then_else(fmt: str) -> None:
    schema = {"if": {"format": fmt}, "then": {"type": "string", "minLength": 3}, "else": {"type": ["string", "integer"], "maxLength": 2}}
    check(schema, dumps(FORMAT_SAMPLES[fmt] + ["ab", "abcd", "é"]) + NON_STRING_TEXTS)


@pytest.mark.parametrize("fmt", ["ipv4", "uuid", "hostname", "duration", "date"])
def test_format_escaped_spellings(fmt: str) -> None:
    """An escaped spelling decodes to the same string: never admitted where the value is invalid."""
    texts = ['"\\u0031.2.3.4"', '"1\\u002e2.3.4"', '"P\\u0031D"', '"\\u0061"', '"a\\/b"',
             '"2020-01-01\\u0000"', '"0000000\\u0030-0000-0000-0000-000000000000"', '"1.2.3.4\\n"']
    check({"not": {"format": fmt}}, texts, refusable=set(texts))
    check({"format": fmt}, texts, refusable=set(texts))


def test_unknown_format_not() -> None:
    """An unknown format is an annotation: `not: {format: x}` is `false` (every value has it)."""
    compiles_or_refused({"not": {"format": "x-unknown"}}, dumps(["a", ""]) + NON_STRING_TEXTS, {"unknown-format", "unsatisfiable"})
    with pytest.raises(CompileError):
        schemac.compile({"not": {"format": "x-unknown"}}, use_cache=False, strict_formats=True)
    compiles_or_refused({"oneOf": [{"format": "x-unknown"}, {"format": "ipv4"}]}, dumps(FORMAT_SAMPLES["ipv4"]) + NON_STRING_TEXTS,
                         {"unknown-format", "unsatisfiable"})


@pytest.mark.parametrize("fmt", ["ipv4", "uuid", "hostname"])
def test_format_in_keys_and_items(fmt: str) -> None:
    samples = FORMAT_SAMPLES[fmt][:6]
    compiles_or_refused({"propertyNames": {"not": {"format": fmt}}, "maxProperties": 1},
                         ["{" + json.dumps(s) + ": 1}" for s in samples] + ["{}"], {"unsupported-regex", "too-large", "property-names-not-exact"})
    compiles_or_refused({"type": "array", "prefixItems": [{"not": {"format": fmt}}], "contains": {"format": fmt}},
                         ["[" + json.dumps(a) + ", " + json.dumps(b) + "]" for a in samples for b in samples[:3]] + ["[]"],
                         {"contains-unbounded", "grammar-error"})


def test_not_not_format_and_double_negation() -> None:
    check({"not": {"not": {"format": "ipv4"}}}, dumps(FORMAT_SAMPLES["ipv4"]) + NON_STRING_TEXTS)
    check({"not": {"anyOf": [{"format": "ipv4"}, {"format": "uuid"}]}},
           dumps(FORMAT_SAMPLES["ipv4"] + FORMAT_SAMPLES["uuid"]) + NON_STRING_TEXTS)
    check({"not": {"format": "ipv4", "type": "string"}}, dumps(FORMAT_SAMPLES["ipv4"]) + NON_STRING_TEXTS)
    check({"not": {"format": "ipv4", "maxLength": 7}}, dumps(FORMAT_SAMPLES["ipv4"] + ["1.2.3.45"]) + NON_STRING_TEXTS)
    check({"not": {"format": "ipv4", "pattern": "^1"}}, dumps(FORMAT_SAMPLES["ipv4"]) + NON_STRING_TEXTS)


def test_format_shared_definition_used_both_ways() -> None:
    """One shared definition per format, referenced from a positive and a negative use."""
    samples = dumps(FORMAT_SAMPLES["ipv4"] + FORMAT_SAMPLES["uuid"])
    check({"anyOf": [{"format": "ipv4", "minLength": 8}, {"not": {"format": "ipv4"}, "maxLength": 7}]}, samples + NON_STRING_TEXTS)
    check({"prefixItems": [{"format": "uuid"}, {"not": {"format": "uuid"}}], "items": False},
           ["[" + a + ", " + b + "]" for a in samples[:9] for b in samples[9:]] + ["[]", "[1]"])


def test_format_definition_name_clash() -> None:
    """A user's own `$defs` named like schemac's shared format definition keeps its meaning."""
    texts = dumps(FORMAT_SAMPLES["ipv4"] + ["x", "xy"]) + NON_STRING_TEXTS
    check({"$defs": {"format:ipv4": {"const": "x"}, "format": {"const": "xy"}},
            "anyOf": [{"$ref": "#/$defs/format:ipv4"}, {"not": {"format": "ipv4"}, "type": "string", "maxLength": 2},
                      {"$ref": "#/$defs/format"}]}, texts)
    check({"$defs": {"format:ipv4": {"const": "x"}}, "oneOf": [{"$ref": "#/$defs/format:ipv4"}, {"format": "ipv4"}]}, texts)


def test_format_as_data_and_property_name() -> None:
    check({"properties": {"format": {"not": {"format": "ipv4"}}}, "required": ["format"], "additionalProperties": False},
           ['{"format": ' + t + "}" for t in dumps(FORMAT_SAMPLES["ipv4"])] + ["{}", '{"format": 1}'])
    check({"not": {"const": {"format": "ipv4"}}}, ['{"format": "ipv4"}', '{"format": "1.2.3.4"}', '"1.2.3.4"', "1"])
    check({"enum": ["1.2.3.4", "x", 1, {"format": "ipv4"}], "not": {"format": "ipv4"}},
           dumps(["1.2.3.4", "x", 1, {"format": "ipv4"}, "y"]))


@pytest.mark.parametrize("fmt", ["ipv4", "uuid", "date", "hostname", "duration", "time"])
def test_not_format_typed_unions(fmt: str) -> None:
    texts = dumps(FORMAT_SAMPLES[fmt]) + NON_STRING_TEXTS
    check({"type": ["string", "integer"], "not": {"format": fmt}}, texts)
    check({"type": ["string", "null"], "not": {"format": fmt, "type": "string"}}, texts)
    compiles_or_refused({"not": {"anyOf": [{"format": fmt}, {"type": "integer"}]}}, texts, {"grammar-error"})


@pytest.mark.parametrize("fmt", ["ipv4", "uuid", "duration", "date-time", "email"])
def test_if_format_in_object(fmt: str) -> None:
    samples = FORMAT_SAMPLES[fmt][:5] + ["z"]
    schema = {"type": "object", "properties": {"k": {"type": "string"}, "v": {}},
              "if": {"properties": {"k": {"format": fmt}}}, "then": {"required": ["v"]}, "else": {"properties": {"v": False}}}
    texts = ["{" + ", ".join(p) + "}" for s in samples for p in
             ([f'"k": {json.dumps(s)}'], [f'"k": {json.dumps(s)}', '"v": 1'])] + ['{"v": 1}', "{}"]
    check(schema, texts)


def test_unknown_format_complement_strict() -> None:
    """strict_formats: an unknown format under `not` or `oneOf` is an error, not dropped."""
    for schema in ({"not": {"format": "x-unknown"}}, {"oneOf": [{"format": "ipv4"}, {"format": "x-unknown"}]},
                   {"if": {"format": "x-unknown"}, "then": {"const": 1}}, {"properties": {"a": {"not": {"format": "color"}}}}):
        with pytest.raises(CompileError) as info:
            schemac.compile(schema, use_cache=False, strict_formats=True)
        assert "unknown-format" in info.value.codes


def test_unknown_format_if_default() -> None:
    """Without strict formats an unknown format always holds: `if` takes `then`, `not` is false."""
    check({"if": {"format": "x-unknown"}, "then": {"const": 1}, "else": {"const": 2}}, ["1", "2", '"a"'])
    compiles_or_refused({"oneOf": [{"format": "x-unknown"}, {"const": 1}]}, ["1", "2", '"a"'], {"unsatisfiable"})


def _mutations(samples: list[str], alphabet: str, rng: Any, count: int) -> list[str]:
    """Near misses: one character of a sample replaced, inserted or deleted."""
    out = set(samples)
    bases = [s for s in samples if s] or ["a"]
    for _ in range(count * 20):  # bounded: short samples have few one-character mutations
        if len(out) >= count:
            break
        s = rng.choice(bases + sorted(out)[:50])
        i = rng.randrange(len(s) + 1)
        op = rng.randrange(3)
        c = rng.choice(alphabet)
        out.add(s[:i] + c + s[i + 1:] if op == 0 and i < len(s) else s[:i] + c + s[i:] if op == 1 else s[:i] + s[i + 1:])
    return sorted(out)


FORMAT_ALPHABETS = {"ipv4": "0125.9", "uuid": "0aF-g", "duration": "PTYMDWHS10.", "hostname": "a0-._A", "date-time": "0129-:TZt+.6",
                    "date": "01239-", "time": "0129:Z+-.6", "email": "a@.\"[]1 ", "ipv6": "0f:.g1", "uri": "a:/%2#? ",
                    "uri-reference": "a:/%2#? ", "json-pointer": "/~01a", "relative-json-pointer": "01#/-+~", "uri-template": "a{}+*:,3",
                    "iri": "aé:/%", "iri-reference": "aé:/%"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_format_near_misses(fmt: str) -> None:
    import random

    rng = random.Random(fmt)
    texts = dumps(_mutations(FORMAT_SAMPLES[fmt], FORMAT_ALPHABETS[fmt], rng, 150))
    check({"not": {"format": fmt}}, texts)
    check({"format": fmt}, texts)
    compiles_or_refused({"oneOf": [{"format": fmt}, {"maxLength": 4}]}, texts, {"grammar-error"})


FORMAT_ASSERTIONS = [("ipv4", r"(?<!1)\."), ("ipv4", r"\b1\b"), ("uuid", r"(?=.*f)"), ("hostname", r"a(?!-)"), ("duration", r"(?<=T)\d"),
                     ("date", r"(?<=-)0"), ("email", r'(?<!")@'), ("hostname", r"^(?!xn--)"), ("uri", r"\B:"), ("date-time", r"(?=.*Z$)")]


@pytest.mark.parametrize("fmt,pattern", [
    (f, p) for f, p in FORMAT_ASSERTIONS])
def test_format_meets_assertion_pattern(fmt: str, pattern: str) -> None:
    """Format patterns and an assertion pattern in one string terminal, plain, negated and in oneOf."""
    import random

    words = _mutations(FORMAT_SAMPLES[fmt], FORMAT_ALPHABETS[fmt], random.Random(pattern), 120)
    found = dict(zip(words, node_words([pattern], words)[pattern]))
    has = FinalValidator({"format": fmt})
    texts = dumps(words)
    for schema, rule in (
            ({"type": "string", "format": fmt, "pattern": pattern}, lambda w: has.is_valid(w) and found[w]),
            ({"type": "string", "not": {"format": fmt, "pattern": pattern}}, lambda w: not (has.is_valid(w) and found[w])),
            ({"type": "string", "format": fmt, "not": {"pattern": pattern}}, lambda w: has.is_valid(w) and not found[w]),
            ({"type": "string", "oneOf": [{"format": fmt}, {"pattern": pattern}]}, lambda w: has.is_valid(w) != found[w])):
        try:
            schemac.compile(schema, use_cache=False)
        except CompileError as exc:
            assert set(exc.codes) <= {"grammar-error", "unsatisfiable", "unsupported-regex"}, exc
            assert exc.codes != ["unsatisfiable"] or not any(rule(w) for w in words), exc
            continue
        check(schema, texts, oracle=lambda t, rule=rule: rule(json.loads(t)))


@pytest.mark.parametrize("schema,text", [
    ({"type": "string", "format": "hostname", "not": {"pattern": "a(?!-)"}}, '"1.2.3.4"'),
    ({"type": "string", "format": "hostname", "pattern": "\\b1"}, '"b.1"'),
    ({"type": "string", "format": "hostname", "not": {"pattern": "\\b1"}}, '"ab"'),
    ({"type": "string", "oneOf": [{"format": "hostname"}, {"pattern": "a(?!-)"}]}, '"00"'),
    ({"properties": {"h": {"format": "hostname", "not": {"pattern": "a(?!-)"}}}}, '{"h": "b"}'),
], ids=lambda v: json.dumps(v)[:60])
def test_hostname_with_assertion_pattern_generates(schema: Any, text: str) -> None:
    assert FinalValidator(schema).is_valid(json.loads(text))
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError as exc:  # refusing up front would be fine
        assert exc.codes in (["grammar-error"], ["grammar-too-complex"], ["too-large"]), exc
        return
    assert generates(art.grammar, text) == "ok"


@pytest.mark.parametrize("schema,texts", [
    ({"not": {"format": "hostname"}}, ['"a-"', '"-"', '"' + "a" * 254 + '"']),
    ({"type": "string", "format": "hostname", "pattern": "^(?!xn--)"}, ['"a"', '"1.2.3.4"']),
    ({"type": "string", "format": "ipv4", "not": {"pattern": "(?<!1)\\."}}, ['"1.1.1.1"', '"11.1.1.1"']),
    ({"type": "string", "format": "date-time", "pattern": "(?=.*Z$)"}, ['"2016-12-31T23:59:60Z"']),
    ({"maximum": 1e308, "multipleOf": 0.5}, ["14", "-7.5", "0", "1" + "0" * 308]),
    ({"exclusiveMinimum": 1e-308, "exclusiveMaximum": 1e308, "multipleOf": 0.5}, ["0.5", "1"]),
    ({"type": "object", "patternProperties": dict(zip(PP_PATTERN_SETS["7prefix+suffix"], PP_SCHEMAS))}, ['{"ax": 4}', '{"g": 1, "b": "x"}']),
    ({"type": "string", "pattern": "(?<=^.).", "not": {"pattern": "\\b\u2028"}}, ['"aa"', '"a1\\n"']),
], ids=lambda v: json.dumps(v)[:60])
def test_generation_walk(schema: Any, texts: list[str]) -> None:
    """What passes `accepts` also passes a generator's walk (masks before every byte)."""
    art = schemac.compile(schema, use_cache=False)
    final = FinalValidator(schema)
    for text in texts:
        assert valid_text(final, text), text
        assert generates(art.grammar, text) == "ok", text


@pytest.mark.parametrize("fmt", ["ipv4", "uuid", "hostname", "date", "duration", "date-time", "json-pointer"])
def test_format_in_property_names(fmt: str) -> None:
    keys = FORMAT_SAMPLES[fmt][:8] + ["a", "1.2.3.4", "P1D", "2020-01-01"]
    texts = ["{}"] + ["{" + json.dumps(k, ensure_ascii=False) + ": 1}" for k in keys] + ['{"\\u0031.2.3.4": 1}', '{"P\\u0031D": 1}']
    escaped = set(texts[-2:])
    for schema in ({"propertyNames": {"format": fmt}}, {"propertyNames": {"not": {"format": fmt}}},
                   {"additionalProperties": False, "properties": {"1.2.3.4": {}, "a": {}, "P1D": {}}, "propertyNames": {"format": fmt}},
                   {"type": "object", "propertyNames": {"format": fmt, "maxLength": 9}}):
        try:
            schemac.compile(schema, use_cache=False)
        except CompileError as exc:
            assert set(exc.codes) <= {"property-names-not-exact", "unsatisfiable"}, exc
            continue
        check(schema, texts, refusable=escaped)


@pytest.mark.parametrize("pair", [("ipv4", "ipv6"), ("ipv4", "hostname"), ("uuid", "hostname"), ("date", "date-time"), ("duration", "uuid")])
def test_one_of_format_discriminated_objects(pair: tuple[str, str]) -> None:
    a, b = pair
    schema = {"type": "object", "oneOf": [{"properties": {"v": {"format": a}}, "required": ["v"]},
                                          {"properties": {"v": {"format": b}, "w": {"type": "integer"}}, "required": ["v"]}]}
    values = FORMAT_SAMPLES[a][:8] + FORMAT_SAMPLES[b][:8]
    texts = ['{"v": ' + json.dumps(v) + "}" for v in values] + ['{"v": ' + json.dumps(v) + ', "w": 1}' for v in values] + ['{"v": 1}', "{}"]
    compiles_or_refused(schema, texts, {"grammar-error", "one-of-not-exact"})
