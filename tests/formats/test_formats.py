"""Formats: the grammar for each enforced format accepts exactly what the final validator does."""
from __future__ import annotations

import json

import pytest

import schemac
from schemac.front.formats import ENFORCED_FORMATS, FORMAT_PATTERNS
from schemac.regex import compile_re2
from schemac.validate.final import ASSERTED_FORMATS, FORMAT_CHECKS
from testkit.grammar_harness import accepts

#: Edge cases where llguidance's own regexes and the RFCs part ways (a looser regex fails here).
TRICKY: dict[str, list[str]] = {
    "date": ["2024-02-29", "2000-02-29", "0000-02-29", "2023-02-29", "1900-02-29", "2100-02-29", "2023-02-28",
             "2023-04-30", "2023-04-31", "2023-12-31", "2023-13-01", "2023-00-10", "2023-1-01"],
    "time": ["23:59:60Z", "23:59:60.5z", "22:59:60Z", "23:58:60Z", "15:59:60-08:00", "15:59:60+08:00",
             "01:29:60+01:30", "00:00:60+00:01", "00:00:60+00:02", "23:59:60+00:00", "00:59:60+01:00",
             "00:59:60+00:59", "12:00:00Z", "24:00:00Z", "12:00:00", "12:00:00+24:00", "12:00:00.Z"],
    "date-time": ["2024-02-29T23:59:60Z", "2023-02-29T00:00:00Z", "1998-12-31t15:59:60.1-08:00",
                  "1998-12-31T15:59:60+08:00", "2023-01-01 00:00:00Z", "2023-01-01T00:00:00"],
    "duration": ["P1W", "P1Y2M", "PT", "P", "P1DT", "PT1H30M", "P1W2D", "P1.5D", "P1M1Y", "PT0S"],
    "email": ['"a b"@x.com', '"a@b"@x', '"a\\"b"@x', "a@[1.2.3.4]", "a@[IPv6:::1]", "a@[IPv6:1.2.3.4]", "a.b@x",
              "a..b@x", "a.@x", "a@-x", "a@x-", "a@x..y", '"a"b@x'],
    "hostname": ["a" * 63, "a" * 64, ".".join(["a" * 63] * 3 + ["a" * 61]), ".".join(["a" * 63] * 3 + ["a" * 62]),
                 "a.", "a-b", "-a", "a_b", "xn--bcher-kva.example"],
    "ipv4": ["0.0.0.0", "255.255.255.255", "256.1.1.1", "01.1.1.1", "1.2.3", "1.2.3.4.5"],
    "ipv6": ["::", "::1", "1::", "::1:2:3:4:5:6", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7::",
             "1:2:3:4:5:6:7:8", "1::2::3", "1:2:3:4:5:6:7:8:9", "::256.1.1.1", "12345::", "fe80::1%eth0"],
    "uuid": ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
             "123e4567e89b12d3a456426614174000", "g23e4567-e89b-12d3-a456-426614174000"],
    "uri": ["http://[::ffff:1.2.3.4]/", "http://[::1:2:3:4:5:6]/", "http://[1::2::3]/", "http://[v1.x]/", "a:",
            "1a:b", "a+b.c-d:x", "http://x/%41", "http://x/%4G", "http://x/ a", "a:b#c#d", "a:b?c#d?/", "//x",
            "http://[V1.x]/"],
    "uri-reference": ["", "//x", "?q", "#f", "./a:b", "1:b", "a/b:c", "/a:b", "//a@b@c/", "//[::ffff:1.2.3.01]/", "/%zz",
                      "//h:abc", "a b", "http://x/%41", "//[V1.x]", "\\x"],
    "iri": ["http://ƒøø.ßår/?∂éœ=πîx#πîüx", "http://h/?\U000f0000", "http://h/\U000f0000", "http://h/#\ue000", "http://h/\ud7ff",
            "http://h/\uf900", "http://h/\ufdd0", "http://h/\ufffe", "http://h/\U0001fffd", "http://h/\U0001fffe",
            "http://[é::1]/", "é:x", "/âππ", "http://[::ffff:192.168.0.01]"],
    "iri-reference": ["âππ", "/âππ", "#ƒrägmênt", "#ƒräg\\mênt", "?\ue000", "/\ue000", "é:x", "a/é:x", "//é@ü/", ""],
    "json-pointer": ["", "/", "//", "/a~0b~1c", "/~", "/~2", "/a~", "a", "#/a", "/\x00\n", "/\x7f", "/é\U0001f600", "/\x7fé"],
    "relative-json-pointer": ["0", "0#", "1/a", "0##", "01/a", "-1/a", "+1/a", "0+1/a", "1-0", "0-1#", "0+01/a", "1foo", "",
                              "0/~2", "0//"],
    "uri-template": ["", "a'b", "{var}", "{+a,b*,c:3}", "{=a}", "{$a}", "{a..b}", "{a.}", "{v:0}", "{v:9999}", "{v:10000}",
                     "{v:01}", "{%41}", "{%4g}", "a%41b", "a%zzb", "a b", "a\x7fb", "{a,}", "foo}bar", "{a", "\U0001f600",
                     "\ufffe", "{a}{b}"],
}


def _accepted(grammar: str, value: str) -> bool:
    """True when the grammar takes `value` in either JSON spelling (llguidance takes raw UTF-8
    beyond ASCII and only an escape for DEL)."""
    raw = json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    return accepts(grammar, json.dumps(value)) or accepts(grammar, raw)


@pytest.fixture(scope="module")
def grammars() -> dict[str, str]:
    return {f: schemac.compile({"type": "string", "format": f}, use_cache=False).grammar for f in ENFORCED_FORMATS}


def test_grammar_and_validator_enforce_the_same_formats() -> None:
    assert ENFORCED_FORMATS == set(ASSERTED_FORMATS) == set(FORMAT_CHECKS)
    assert ENFORCED_FORMATS == set(FORMAT_PATTERNS)


@pytest.mark.parametrize("fmt", ["regex", "idn-hostname", "idn-email", "int32", "int64", "double", "byte", "url", "path"])
def test_formats_without_an_exact_regular_form_stay_annotations(fmt: str) -> None:
    """ECMA-262 patterns are not a regular language; IDNA needs Unicode tables; OpenAPI's formats
    mean nothing in 2020-12 unless `openapi_formats` (the default) reads their number ranges:
    warned and dropped."""
    art = schemac.compile({"type": "string", "format": fmt}, use_cache=False, openapi_formats=False)
    assert [d.code for d in art.diagnostics] == ["unknown-format"]
    assert art.lowered == {"type": "string"}
    assert fmt not in FORMAT_CHECKS


def test_every_enforced_format_has_tricky_cases_of_both_kinds() -> None:
    assert set(TRICKY) == ENFORCED_FORMATS
    for fmt, cases in TRICKY.items():
        verdicts = {FORMAT_CHECKS[fmt](c) for c in cases}
        assert verdicts == {True, False}, fmt


@pytest.mark.parametrize("fmt", sorted(ENFORCED_FORMATS))
def test_grammar_agrees_with_validator(fmt: str, grammars: dict[str, str]) -> None:
    disagree = [c for c in TRICKY[fmt] if _accepted(grammars[fmt], c) != FORMAT_CHECKS[fmt](c)]
    assert disagree == []


@pytest.mark.parametrize("fmt", sorted(FORMAT_PATTERNS))
def test_exact_patterns_agree_with_validator_on_re2(fmt: str) -> None:
    """The patterns themselves (as final validation runs them) mean the format, leap seconds included."""
    def matches(value: str) -> bool:
        return any(all(compile_re2(p).search(value) for p in alt) for alt in FORMAT_PATTERNS[fmt])

    assert [c for c in TRICKY[fmt] if matches(c) != FORMAT_CHECKS[fmt](c)] == []


def test_leap_second_patterns_tie_every_local_minute_to_its_offsets() -> None:
    """All 1440 local minutes with second 60, against the right offset and a one-minute miss."""
    def matches(value: str) -> bool:
        return any(all(compile_re2(p).search(value) for p in alt) for alt in FORMAT_PATTERNS["time"])

    wrong = []
    for local in range(1440):
        for sign, off in (("+", (local - 1439) % 1440), ("-", (1439 - local) % 1440)):
            for o in (off, (off + 1) % 1440):
                text = f"{local // 60:02}:{local % 60:02}:60{sign}{o // 60:02}:{o % 60:02}"
                if matches(text) != FORMAT_CHECKS["time"](text):
                    wrong.append(text)
    assert wrong == []


def test_lowering_drops_format_but_final_validation_keeps_it() -> None:
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "format": "date-time"}, "b": {"format": "date-time"},
        "c": {"type": ["string", "null"], "format": "date-time"}, "d": {"format": "date-time", "maxLength": 20}}}
    art = schemac.compile(schema, use_cache=False)
    assert art.schema == schema
    props = art.lowered["properties"]
    assert props["a"] == {"$ref": "#/$defs/format:date-time:string"}  # bare: llguidance shares it
    assert props["b"] == {"$ref": "#/$defs/format:date-time"}
    assert props["c"] == {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/format:date-time:string"}]}
    assert props["d"] == {"maxLength": 20, "$ref": "#/$defs/format:date-time:short"}  # no room for an offset leap second
    assert "\"format\"" not in json.dumps(art.lowered)
    charged = sum(len(p) for alt in FORMAT_PATTERNS["date-time"] for p in alt)
    assert art.budget["regex_chars"]["used"] == charged  # one shared definition, charged once
    assert accepts(art.grammar, '{"a": "2024-02-29T23:59:60Z", "b": 3, "c": null, "d": "2024-02-29T01:00:00Z"}')
    assert not accepts(art.grammar, '{"a": "2023-02-29T00:00:00Z"}')
    assert not accepts(art.grammar, '{"c": "2024-02-29T22:59:60Z"}')
    assert not accepts(art.grammar, '{"d": "2024-02-29T01:00:00.5+01:00"}')


def test_format_beside_a_pattern_and_a_ref_keeps_both() -> None:
    schema = {"$defs": {"y": {"pattern": "^2024"}}, "$ref": "#/$defs/y", "type": "string", "format": "date"}
    art = schemac.compile(schema, use_cache=False)
    assert accepts(art.grammar, '"2024-02-29"')
    assert not accepts(art.grammar, '"2023-02-28"')
    assert not accepts(art.grammar, '"2024-02-30"')


def test_hostname_gets_the_total_length_bound() -> None:
    """RFC 1123's 253-octet total is a pattern beside the labels' (llguidance bounds labels only)."""
    name = ".".join(["a" * 63] * 3 + ["a" * 61])
    for schema in ({"type": "string", "format": "hostname"}, {"type": "string", "format": "hostname", "maxLength": 300}):
        grammar = schemac.compile(schema, use_cache=False).grammar
        assert accepts(grammar, json.dumps(name)) and not accepts(grammar, json.dumps(name + "a"))
    tighter = schemac.compile({"type": "string", "format": "hostname", "maxLength": 5}, use_cache=False).grammar
    assert accepts(tighter, '"a.b"') and not accepts(tighter, '"abcdef"')


def test_no_format_reaches_llguidance() -> None:
    """Every enforced format becomes its patterns, which later passes can negate (`not`,
    `oneOf`, `if`) and the Lark writer can intersect with a negated pattern."""
    for fmt in sorted(ENFORCED_FORMATS):
        lowered = schemac.compile({"type": "string", "format": fmt}, use_cache=False).lowered
        assert lowered["$ref"] == f"#/$defs/format:{fmt}:string" and '"format"' not in json.dumps(lowered), fmt


def test_unknown_format_below_the_root_is_reported_at_its_pointer() -> None:
    schema = {"properties": {"a": {"format": "color"}, "b": {"format": "uuid"}}}
    art = schemac.compile(schema, use_cache=False)
    assert [(d.code, d.pointer) for d in art.diagnostics] == [("unknown-format", "/properties/a/format")]
    assert art.lowered["properties"]["a"] is True
