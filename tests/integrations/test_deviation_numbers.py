"""llguidance 1.9.1's own numeric keywords, pinned where they are not exact.

Each test asserts today's wrong behaviour on a minimal reproduction (the classes in
/work/notes/deviations-num.md, found by walking every number spelling of up to 4 characters plus
spellings around each bound against an exact oracle). A failure here means llguidance changed:
re-run the probe, and if the class is gone, retire schemac's workaround (number lexemes from
`schemac.numbers.exact.number_regex` instead of llguidance's numeric keywords). Every spelling below is
in schemac's number policy, so schemac's own lexeme for the same schema decides it exactly (the
last test checks that side).
"""
from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from testkit.grammar_harness import accepts
from schemac.emit import json_schema_grammar


def _llg(schema: dict[str, Any], text: str) -> bool:
    return accepts(json_schema_grammar(json.dumps(schema)), text)


#: (schema, spelling, what llguidance 1.9.1 answers); the exact answer is the opposite
DEVIATIONS = [
    # 1. an exclusive bound at zero next to another bound admits zero / negative zero (unsound)
    ({"type": "number", "exclusiveMinimum": 0, "maximum": 0.5}, "0", True),
    ({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5}, "0", True),
    ({"type": "number", "exclusiveMinimum": -0.5, "exclusiveMaximum": 0}, "-0", True),
    ({"type": "number", "minimum": -0.5, "exclusiveMaximum": 0}, "-0", True),
    # 2. bounds past 2^53 are rounded to a double (unsound one way, incomplete the other)
    ({"type": "integer", "maximum": 9007199254740995}, "9007199254740996", True),
    ({"type": "integer", "exclusiveMinimum": 9007199254740993}, "9007199254740993", True),
    ({"type": "integer", "minimum": 9007199254740995}, "9007199254740995", False),
    ({"type": "number", "maximum": 9007199254740995}, "9007199254740995.1", True),
    # 3. const/enum numbers past 2^53 are rounded to a double (unsound and incomplete)
    ({"const": 9007199254740993}, "9007199254740992", True),
    ({"const": 9007199254740993}, "9007199254740993", False),
    ({"enum": [9007199254740993, "a"]}, "9007199254740992", True),
    # 4. a bound refuses fraction spellings with trailing zeros near it (incomplete)
    ({"type": "number", "maximum": 0.5}, "0.50", False),
    ({"type": "number", "exclusiveMinimum": 0}, "0.10", False),
    ({"type": "number", "minimum": -1}, "-0.90", False),
    ({"type": "number", "maximum": 0}, "0.0", False),
    # 5. multipleOf refuses trailing fraction zeros, and with a bound loses values (incomplete)
    ({"type": "number", "multipleOf": 1}, "1.0", False),
    ({"type": "number", "multipleOf": 0.1}, "0.30", False),
    ({"type": "number", "multipleOf": 0.1, "maximum": 0.35}, "0.3", False),
    ({"type": "number", "multipleOf": 0.001, "maximum": 0.35}, "0.3", False),
]


def _exact(schema: dict[str, Any], text: str) -> bool:
    """The exact verdict (Fraction arithmetic on the decimal text)."""
    v = Fraction(Decimal(text))
    checks = {
        "minimum": lambda b: v >= b, "maximum": lambda b: v <= b, "exclusiveMinimum": lambda b: v > b,
        "exclusiveMaximum": lambda b: v < b, "multipleOf": lambda b: (v / b).denominator == 1,
        "const": lambda b: v == b, "enum": lambda b: any(v == e for e in b),
        "type": lambda t: t == "number" or v.denominator == 1,
    }

    def num(x: Any) -> Any:
        if isinstance(x, list):
            return [num(e) for e in x if isinstance(e, (int, float))]
        return Fraction(Decimal(repr(x))) if isinstance(x, float) else Fraction(x) if isinstance(x, int) else x

    return all(checks[k](num(b)) for k, b in schema.items())


@pytest.mark.parametrize("schema,text,answer", DEVIATIONS, ids=[f"{json.dumps(s)} {t}" for s, t, _ in DEVIATIONS])
def test_llguidance_deviation_is_still_there(schema: dict[str, Any], text: str, answer: bool) -> None:
    assert _exact(schema, text) is not answer  # it is a deviation
    assert _llg(schema, text) is answer


@pytest.mark.parametrize("bound", [1e20, -1e20])
@pytest.mark.parametrize("kind", ["integer", "number"])
def test_bounds_past_int64_are_refused(kind: str, bound: float) -> None:
    """6. bounds at 2^63 and beyond (`1e20`) make llguidance refuse the grammar."""
    import llguidance

    is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(
        json_schema_grammar(json.dumps({"type": kind, "minimum": bound})), None)
    assert is_error and "Failed to generate regex" in messages[0]


@pytest.mark.parametrize("schema,text,answer", [d for d in DEVIATIONS if "type" in d[0]],
                         ids=[f"{json.dumps(s)} {t}" for s, t, _ in DEVIATIONS if "type" in s])
def test_schemac_lexeme_is_exact_there(schema: dict[str, Any], text: str, answer: bool) -> None:
    from schemac.numbers.exact import number_regex

    names = {"minimum": "minimum", "maximum": "maximum", "exclusiveMinimum": "exclusive_minimum",
             "exclusiveMaximum": "exclusive_maximum", "multipleOf": "multiple_of"}
    regex = number_regex(integer=schema["type"] == "integer", **{names[k]: v for k, v in schema.items() if k != "type"})
    assert regex is not None
    assert accepts(f"start: /{regex}/", text) is (not answer)
