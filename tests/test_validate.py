"""FinalValidator and parse_answer: strict JSON, RE2 regexes, offline refs, asserted formats."""
from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from schemac.validate import ASSERTED_FORMATS, FORMAT_CHECKS, FinalValidator, parse_answer

SUITE = Path(__file__).resolve().parent.parent / "testdata" / "suite"

#: hostname: IDNA2008 rules for `xn--` labels are not checked (documented in schemac.validate)
FORMAT_DEPARTURES = {("hostname.json", "validation of A-label (punycode) host names")}
#: \p{..} is refused by schemac.regex (Unicode tables differ between engines)
PROPERTY_ESCAPE_GROUPS = {
    "patterns always use unicode semantics with pattern",
    "pattern with non-ASCII digits",
    "patterns always use unicode semantics with patternProperties",
    "patternProperties with non-ASCII digits",
    "pattern with Unicode property escape requires unicode mode",
    "patternProperties with Unicode property escape",
}


def _groups(*names: str):
    for name in names:
        for group in json.loads((SUITE / name).read_text()):
            yield name.split("/")[-1], group


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('{"a": 1, "a": 2}', "duplicate object key 'a'"),
        ("NaN", "NaN is not JSON"),
        ("[Infinity]", "Infinity is not JSON"),
        ("-Infinity", "-Infinity is not JSON"),
        ("1e400", "overflows a double"),
        ('"\\ud800"', "lone UTF-16 surrogate"),
        ('{"\\udc00": 1}', "lone UTF-16 surrogate"),
        ("[1,", "invalid JSON answer"),
        ("", "invalid JSON answer"),
    ],
)
def test_parse_answer_rejects(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match="invalid JSON answer") as info:
        parse_answer(text)
    assert fragment in str(info.value)


def test_parse_answer_accepts() -> None:
    assert parse_answer(' {"a": [1, 2.5, "\\ud83d\\ude00", null]} ') == {"a": [1, 2.5, "😀", None]}
    assert parse_answer("1e308") == 1e308
    assert parse_answer('{"a": {"a": 1}}') == {"a": {"a": 1}}


def test_suite_formats() -> None:
    checked = 0
    for name, group in _groups(*(f"format/{f}.json" for f in ASSERTED_FORMATS)):
        validator = FinalValidator(group["schema"])
        for test in group["tests"]:
            if (name, group["description"]) in FORMAT_DEPARTURES and not test["valid"]:
                continue
            assert validator.is_valid(test["data"]) is test["valid"], (name, test["description"])
            checked += 1
    assert checked > 300


def test_format_departure_is_the_documented_one() -> None:
    assert FORMAT_CHECKS["hostname"]("xn--X")  # LDH-valid, IDNA-invalid: accepted, as the grammar does
    assert not FORMAT_CHECKS["hostname"]("a" * 64 + ".com")


@pytest.mark.parametrize(
    "fmt, good, bad",
    [
        ("date", "2020-02-29", "2021-02-29"),
        ("date-time", "1990-12-31T23:59:60Z", "1990-12-31T22:59:60Z"),
        ("date-time", "2024-01-01t00:00:00.5+05:30", "2024-01-01T00:00:00"),
        ("time", "15:59:60-08:00", "15:59:60+08:00"),
        ("duration", "P1Y2M3DT4H5M6S", "P1Y2D3M"),
        ("email", '"a b"@[IPv6:::1]', "a..b@example.com"),
        ("ipv4", "192.168.0.1", "192.168.0.01"),
        ("ipv6", "::ffff:1.2.3.4", "fe80::1%eth0"),
        ("uuid", "2EB8AA08-AA98-11EA-B4AA-73B441D16380", "2eb8aa08aa9811eab4aa73b441d16380"),
        ("uri", "http://[::1]:80/a%20b?q#f", "http://exa mple.com"),
        ("hostname", "a-b.example", "a.b."),
    ],
)
def test_formats(fmt: str, good: str, bad: str) -> None:
    validator = FinalValidator({"format": fmt})
    assert validator.is_valid(good) and not validator.is_valid(bad)
    assert validator.is_valid(12)  # formats constrain strings only


def test_unknown_format_is_an_annotation() -> None:
    assert FinalValidator({"format": "color"}).is_valid("not a colour")
    assert FinalValidator({"format": "regex"}).is_valid("(")  # not asserted by llguidance either


def test_suite_regex_keywords() -> None:
    names = (
        "pattern.json", "patternProperties.json", "additionalProperties.json", "propertyNames.json",
        "unevaluatedProperties.json", "ecmascript-regex.json", "non-bmp-regex.json", "float-overflow.json",
    )
    checked = 0
    for name, group in _groups(*names):
        if group["description"] in PROPERTY_ESCAPE_GROUPS or "$dynamicRef" in json.dumps(group["schema"]):
            continue
        validator = FinalValidator(group["schema"])
        for test in group["tests"]:
            assert validator.is_valid(test["data"]) is test["valid"], (name, group["description"], test["description"])
            checked += 1
    assert checked > 250


def test_regexes_use_re2_semantics() -> None:
    # Python `re` would accept each of these instances; ECMA-262 (and so we) must not.
    assert not FinalValidator({"pattern": "^a$"}).is_valid("a\n")
    assert not FinalValidator({"pattern": "^.$"}).is_valid("\r")
    assert not FinalValidator({"pattern": r"^\d$"}).is_valid("٣")
    assert FinalValidator({"pattern": r"^\s$"}).is_valid("\u00a0")
    keys = {"patternProperties": {r"^\d+$": True}, "additionalProperties": False}
    assert not FinalValidator(keys).is_valid({"٣": 1})
    assert FinalValidator(keys).is_valid({"3": 1})
    unevaluated = {"allOf": [{"patternProperties": {r"^\w$": True}}], "unevaluatedProperties": False}
    assert FinalValidator(unevaluated).is_valid({"a": 1})
    assert not FinalValidator(unevaluated).is_valid({"é": 1})
    names = {"propertyNames": {"pattern": "^.$"}}
    assert not FinalValidator(names).is_valid({"\u2028": 1})


def test_no_retrieval(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    validator = FinalValidator({"$ref": "http://localhost:1234/draft2020-12/integer.json"})
    assert not validator.is_valid(1)
    assert "unresolvable reference" in validator.errors(1)[0]
    local = FinalValidator({"$defs": {"i": {"type": "integer"}}, "items": {"$ref": "#/$defs/i"}})
    assert local.is_valid([1]) and not local.is_valid(["x"])


def test_nested_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="draft 2020-12"):
        FinalValidator({"$defs": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}})
    FinalValidator({"$schema": "https://json-schema.org/draft/2020-12/schema", "const": {"$schema": 1}})


def test_errors_name_the_instance_location() -> None:
    errors = FinalValidator({"properties": {"a/b": {"type": "string"}}}).errors({"a/b": 1})
    assert errors == ["/a~1b: 1 is not of type 'string'"]
    assert FinalValidator(True).errors(None) == []


def test_property_named_dollar_schema_is_data_not_a_dialect() -> None:
    v = FinalValidator({"properties": {"$schema": {"type": "string"}}, "$defs": {"$schema": {"type": "integer"}}})
    assert v.is_valid({"$schema": "x"}) and not v.is_valid({"$schema": 1})
