"""FinalValidator and parse_answer: strict JSON, RE2 regexes, offline refs, asserted formats."""
from __future__ import annotations

import json
import socket
from decimal import Decimal
from pathlib import Path

import pytest

from schemac.validate.final import ASSERTED_FORMATS, FORMAT_CHECKS, ExtremeNumber, FinalValidator, is_multiple, parse_answer

SUITE = Path(__file__).resolve().parents[2] / "testdata" / "suite"

#: hostname: IDNA2008 rules for `xn--` labels are not checked (documented in schemac.validate.final)
FORMAT_DEPARTURES = {("hostname.json", "validation of A-label (punycode) host names")}


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


@pytest.mark.parametrize(
    "text, value",
    [
        ("0.1", 0.1), ("2.50", 2.5), ("1E2", 100.0), ("-0.0", -0.0), ("1e308", 1e308),  # doubles spell these
        ("1e400", Decimal("1e400")), ("-1e400", Decimal("-1e400")),  # past the double range
        ("1e-400", Decimal("1e-400")),  # a double would underflow to 0
        ("0.30000000000000000001", Decimal("0.30000000000000000001")),  # a double would round
        ("1" + "0" * 5000, Decimal("1e5000")),  # past Python's int digit limit
        ("12345678901234567890123", 12345678901234567890123),
    ],
)
def test_parse_answer_keeps_numbers_exact(text: str, value: object) -> None:
    parsed = parse_answer(f"[{text}]")[0]
    assert type(parsed) is type(value) and parsed == value


@pytest.mark.parametrize(
    "schema, text, valid",
    [
        ({"type": "number"}, "1e400", True),
        ({"type": "integer"}, "1e400", True),
        ({"type": "integer"}, "1.5e400", True),
        ({"type": "integer"}, "1e-400", False),
        ({"type": "integer"}, "1" + "0" * 5000, True),
        ({"type": "integer"}, "2.000000000000000000001", False),
        ({"type": ["string", "null"]}, "1e400", False),
        ({"maximum": 1e308}, "1e400", False),
        ({"minimum": -1e308}, "-1e400", False),
        ({"minimum": 0}, "1e400", True),
        ({"exclusiveMinimum": 0}, "1e-400", True),
        ({"exclusiveMinimum": 0}, "-1e-400", False),
        ({"exclusiveMaximum": 0.3}, "0.29999999999999999999", True),
        ({"maximum": 0.3}, "0.30000000000000000001", False),
        ({"maximum": 100}, "100.00000000000000000001", False),
        ({"multipleOf": 0.5}, "1e400", True),
        ({"multipleOf": 3}, "1e400", False),
        ({"multipleOf": 3}, "3e400", True),
        ({"multipleOf": 1e-5}, "1e-400", False),
        ({"multipleOf": 0.1}, "0.3", True),  # jsonschema's float division says 2.9999999999999996
        ({"multipleOf": 0.1}, "0.35", False),
        ({"multipleOf": 0.01}, "0.30000000000000000001", False),
        ({"multipleOf": 0.0001}, "0.0075", True),
        ({"const": 0.1}, "0.1000000000000000055511151231257827021181583404541015625", False),  # the double's binary value
        ({"const": 0.1}, "0.10", True),
        ({"const": [1, {"a": 1e300}]}, "[1.0, {\"a\": 1e300}]", True),
        ({"enum": [1, 2]}, "1.0000000000000000000000001", False),
        ({"enum": [True, 1e400 == 0]}, "1e-400", False),
        ({"uniqueItems": True}, "[1e400, 1E+400]", False),
        ({"uniqueItems": True}, "[1e400, 1e401, 1e-400, 0]", True),
    ],
)
def test_exact_numbers(schema: dict, text: str, valid: bool) -> None:
    assert FinalValidator(schema).is_valid(parse_answer(text)) is valid


HUGE = "7e99999999999999999999"  # exponent past libmpdec's ±10^18: an ExtremeNumber
TINY = "-7e-99999999999999999999"


@pytest.mark.parametrize(
    "text, value",
    [
        ("-0e8810189214240965422157", -0.0),  # zero, whatever the exponent
        ("10e-1999999999999999998", Decimal("1e-1999999999999999997")),  # fits a Decimal once normalised
        ("-68.60e948639503678255373164342", "-686e948639503678255373164341"),
        ("1000e999999999999999997", "1e1000000000000000000"),
    ],
)
def test_parse_answer_keeps_extreme_exponents(text: str, value: object) -> None:
    parsed = parse_answer(text)
    if isinstance(value, str):
        assert isinstance(parsed, ExtremeNumber) and str(parsed) == value
    else:
        assert type(parsed) is type(value) and parsed == value and str(parsed) == str(value)


def test_extreme_numbers_compare_exactly() -> None:
    huge, tiny = parse_answer(HUGE), parse_answer(TINY)
    assert huge == parse_answer("70e99999999999999999998") and hash(huge) == hash(parse_answer("70e99999999999999999998"))
    assert huge != parse_answer("7e99999999999999999998") and huge != 7 and huge != "7"
    assert 1e308 < huge and Decimal("9e999999999999999999") < huge and 10**4000 < huge
    assert sorted([huge, 1, tiny, Decimal("1e400"), 0.5, 0]) == [tiny, 0, 0.5, 1, Decimal("1e400"), huge]
    assert tiny < 0 and tiny > -1e-323 and tiny > Decimal("-1e-1999999999999999997") and huge < float("inf")


@pytest.mark.parametrize(
    "schema, text, valid",
    [
        ({"type": "integer"}, HUGE, True),
        ({"type": "integer"}, TINY, False),
        ({"type": "number"}, TINY, True),
        ({"type": "string"}, HUGE, False),
        ({"maximum": 1e308}, HUGE, False),
        ({"minimum": 0}, HUGE, True),
        ({"exclusiveMaximum": 0}, TINY, True),
        ({"minimum": -1e-300}, TINY, True),
        ({"exclusiveMinimum": 0}, TINY, False),
        ({"multipleOf": 0.5}, HUGE, True),
        ({"multipleOf": 3}, HUGE, False),
        ({"multipleOf": 7}, HUGE, True),
        ({"multipleOf": 1e-300}, TINY, False),
        ({"enum": [7, "a", 1e308]}, HUGE, False),
        ({"uniqueItems": True}, f"[{HUGE}, 70e99999999999999999998]", False),
        ({"uniqueItems": True}, f"[{HUGE}, 7e99999999999999999998, \"a\", {TINY}]", True),
    ],
)
def test_extreme_numbers_validate(schema: dict, text: str, valid: bool) -> None:
    assert FinalValidator(schema).is_valid(parse_answer(text)) is valid


def test_is_multiple_stays_small_for_huge_exponents() -> None:
    assert is_multiple(Decimal("7e999999999999999999"), 0.5)
    assert not is_multiple(Decimal("7e999999999999999999"), 3)
    assert not is_multiple(Decimal("7e-999999999999999999"), 1e-300)
    assert is_multiple(Decimal(0), 0.7) and is_multiple(10**40, 10**20) and not is_multiple(10**40 + 1, 10**20)


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
        if "$dynamicRef" in json.dumps(group["schema"]):  # Unicode property escape groups included
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


def test_runtime_final_check_returns_exact_numbers() -> None:
    from schemac.runtime.final import finalize

    schema = {"type": "array", "items": {"type": "number", "minimum": 0}}
    outcome = finalize("test-validate-exact", schema, f"[1e400, 0.1, {HUGE}]", "stop")
    assert outcome.status == "ok" and outcome.value == [Decimal("1e400"), 0.1, parse_answer(HUGE)]
    from schemac.api import StructuredOutputError

    with pytest.raises(StructuredOutputError, match="less than the minimum"):
        finalize("test-validate-exact", schema, "[-1e-400]", "stop")
