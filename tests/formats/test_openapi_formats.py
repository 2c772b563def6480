"""OpenAPI number formats (issue 29): `int32`, `int64`, `uint32`, `uint64`, `float`, `double`
are their types' exact ranges by default (`openapi_formats=True`), in the grammar and in final
validation alike; annotations with `openapi_formats=False`.

The walk tries every spelling around each bound (the bound, one unit and a half unit either
side, fraction and exponent spellings) at the root and under a property, for `integer` and
`number`; the oracle is the range itself in exact decimals (not schemac's rewrite), and final
validation on the compiled artifact's schema must give the same verdict.
"""
from __future__ import annotations

import json
from decimal import Decimal

import pytest
from testkit.grammar_harness import accepts
from tests.numbers.test_emit_numbers import _JSON, policy

import schemac
from schemac.front.formats import NUMBER_FORMATS
from schemac.validate.final import FinalValidator

#: the ranges as OpenAPI defines them: machine integers, and the largest finite float32/float64
#: magnitudes as their shortest decimal spellings (what `float`/`double` bound)
RANGES = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1), "uint32": (0, 2 ** 32 - 1),
          "uint64": (0, 2 ** 64 - 1), "float": (-Decimal("3.4028234663852886e38"), Decimal("3.4028234663852886e38")),
          "double": (-Decimal("1.7976931348623157e308"), Decimal("1.7976931348623157e308"))}


def _plain(d: Decimal) -> str:
    text = format(d, "f")
    return "0" if Decimal(text) == 0 else text


def spellings(fmt: str) -> list[str]:
    out = ["0", "1", "-1", "0.5", "1e3", "-0"]
    for bound in RANGES[fmt]:
        b = Decimal(bound)
        for delta in (Decimal(0), Decimal(1), Decimal(-1), Decimal("0.5"), Decimal("-0.5")):
            out.append(_plain(b + delta))
        out += [_plain(b) + ".0", f"{b:E}".replace("+", "")]
    return list(dict.fromkeys(out))


def test_ranges_are_the_machine_types() -> None:
    """The literals schemac writes stand for their decimals (README, Numbers), never for doubles."""
    assert {k: tuple(Decimal(str(b)) for b in v) for k, v in NUMBER_FORMATS.items()} == {
        k: tuple(Decimal(b) for b in v) for k, v in RANGES.items()}


@pytest.mark.parametrize("kind", ["integer", "number"])
@pytest.mark.parametrize("fmt", sorted(RANGES))
def test_number_walk_at_the_bounds(fmt: str, kind: str) -> None:
    low, high = (Decimal(b) for b in RANGES[fmt])
    for schema, place in (({"type": kind, "format": fmt}, "{}"),
                          ({"type": "object", "properties": {"n": {"type": kind, "format": fmt}}, "required": ["n"]}, '{{"n": {}}}')):
        art = schemac.compile(schema, use_cache=False)
        final = FinalValidator(art.schema)
        assert not art.diagnostics
        for text in spellings(fmt):
            value = json.loads(text, parse_float=Decimal) if _JSON.fullmatch(text) else None
            valid = value is not None and low <= value <= high and (kind == "number" or Decimal(value) == Decimal(value).to_integral_value())
            instance = value if place == "{}" else {"n": value}
            assert (not final.errors(instance)) is valid, (fmt, kind, text)
            got = accepts(art.grammar, place.format(text))
            assert not got or valid, ("out of range admitted", fmt, kind, text)
            if valid and policy(text, kind == "integer"):
                assert got, ("in range refused", fmt, kind, text)


def test_off_they_are_annotations() -> None:
    art = schemac.compile({"type": "integer", "format": "int32"}, use_cache=False, openapi_formats=False)
    assert [d.code for d in art.diagnostics] == ["unknown-format"]
    assert accepts(art.grammar, "3000000000")
    assert not accepts(schemac.compile({"type": "integer", "format": "int32"}, use_cache=False).grammar, "3000000000")


def test_a_bound_of_the_users_own_is_kept() -> None:
    grammar = schemac.compile({"type": "integer", "format": "int32", "minimum": 5}, use_cache=False).grammar
    assert [accepts(grammar, t) for t in ("4", "5", "2147483647", "2147483648")] == [False, True, True, False]


# ---- the ranges under applicators, at every spelling of their bounds (attack round 13)

def _spellings(fmt: str) -> list[str]:
    out = ["-0", "-0.0", "0e5", "-0e-5", "1E1", "1e+1", "0.0", "-1e0"]
    for bound in RANGES[fmt]:
        for delta in (0, 1, -1, Decimal("0.5"), Decimal("-0.5"), Decimal("1e-30")):
            v = Decimal(bound) + delta
            e = format(v, "E").replace("+", "")
            mantissa, exp = format(v.normalize(), "E").split("E")
            out += [format(v, "f"), e, e.lower(), mantissa + "0000E" + exp.replace("+", ""),
                    format(v.scaleb(-3), "f") + "e3", format(v.scaleb(3), "f") + "e-3"]
    return list(dict.fromkeys(out))


def _in(fmt: str, kind: str, d: Decimal) -> bool:
    low, high = RANGES[fmt]
    return Decimal(low) <= d <= Decimal(high) and (kind == "number" or d == d.to_integral_value())


@pytest.mark.parametrize("fmt", sorted(RANGES))
def test_openapi_formats_under_applicators(fmt: str) -> None:
    """No spelling outside the range (or a fraction for integer) admitted, under oneOf, anyOf,
    if/then/else and with a user bound beside; `not` of a format is exact or refused loudly."""
    for kind in ("integer", "number"):
        f = {"type": kind, "format": fmt}
        shapes = [(f, lambda d: _in(fmt, kind, d)),
                  ({"oneOf": [f, {"type": "string"}]}, lambda d: _in(fmt, kind, d)),
                  ({"anyOf": [{"format": fmt}, {"type": "string"}], "type": kind}, lambda d: _in(fmt, kind, d)),
                  ({"if": f, "then": {"minimum": -1}, "else": {"type": "string"}}, lambda d: _in(fmt, kind, d) and d >= -1),
                  ({**f, "minimum": -1}, lambda d: _in(fmt, kind, d) and d >= -1),
                  ({"not": f}, lambda d: not _in(fmt, kind, d))]
        for schema, want in shapes:
            try:
                grammar = schemac.compile(schema, use_cache=False).grammar
            except schemac.CompileError:
                assert "not" in schema  # a loud refusal (`not` of double has no exact lexeme)
                continue
            for text in _spellings(fmt):
                assert not accepts(grammar, text) or want(Decimal(text)), (schema, text)
