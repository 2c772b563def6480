"""`NOT_MULTIPLE` (numbers that are a multiple of none of some steps): the automaton, the
emitted grammar and the lowering, each walked exhaustively against an independent oracle.

The oracle shares no code with schemac: a spelling is in the policy when a regex written here
matches it (no exponent, no negative zero; integers without a fraction), and its value, read by
`Decimal` as a `Fraction`, is checked with Fraction arithmetic only. Number lexemes are walked
over every text of `-0123456789.` up to 4 characters (5 for a few), with RE2 full matches for
regexes and llguidance's own matcher for grammars (the right-linear rules of steps like 7, and
whole compiled schemas).
"""
from __future__ import annotations

import math
import itertools
import json
import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable

import pytest
import re2

import schemac
from testkit.grammar_harness import accepted_texts, accepts
from schemac.diagnostics import CompileError
from schemac.numbers.exact import EMPTY, number_regex, number_rules

CHARS = "-0123456789."
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUM = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")


def _fraction(x: Any) -> Fraction:
    """A schema literal's value: a float is the decimal its repr spells."""
    return Fraction(Decimal(repr(x) if isinstance(x, float) else str(x)))


@lru_cache(maxsize=4)
def _texts(depth: int) -> tuple[tuple[str, Fraction | None, bool], ...]:
    """(text, value if a policy number spelling else None, integer spelling) for every text over
    CHARS of 1..depth characters."""
    out = []
    for n in range(1, depth + 1):
        for chars in itertools.product(CHARS, repeat=n):
            text = "".join(chars)
            value = None
            if _NUM.fullmatch(text):
                value = Fraction(Decimal(text))
                if text.startswith("-") and value == 0:
                    value = None  # the policy never spells a negative zero
            out.append((text, value, bool(_INT.fullmatch(text))))
    return tuple(out)


def _holds(v: Fraction, cons: dict[str, Any]) -> bool:
    checks: dict[str, Callable[[Fraction, Any], bool]] = {
        "minimum": lambda v, b: v >= _fraction(b), "maximum": lambda v, b: v <= _fraction(b),
        "exclusive_minimum": lambda v, b: v > _fraction(b), "exclusive_maximum": lambda v, b: v < _fraction(b),
        "multiple_of": lambda v, b: (v / _fraction(b)).denominator == 1,
        "not_multiple_of": lambda v, ks: all((v / _fraction(k)).denominator != 1 for k in ks),
    }
    return all(checks[k](v, b) for k, b in cons.items())


def _want(integer: bool, cons: dict[str, Any], depth: int) -> set[str]:
    return {t for t, v, whole in _texts(depth) if v is not None and (whole or not integer) and _holds(v, cons)}


def _re2_walk(regex: str, depth: int) -> set[str]:
    compiled = re2.compile(regex)
    return {t for t, _, _ in _texts(depth) if compiled.fullmatch(t)}


def check_regex(integer: bool, depth: int = 4, **cons: Any) -> str:
    regex = number_regex(integer=integer, **cons)
    assert regex is not None, cons
    got, want = _re2_walk(regex, depth), _want(integer, cons, depth)
    assert got == want, (integer, cons, sorted(got - want)[:5], sorted(want - got)[:5])
    return regex


_STEPS = [1, 5, 0.5, 0.1, 0.25, 3, Decimal("0.02"), 2.5]
_BOUNDS = [{}, {"minimum": -1.5, "maximum": 12}, {"exclusive_minimum": 0}, {"maximum": 0.35},
           {"exclusive_minimum": -20, "exclusive_maximum": 100}]


@pytest.mark.parametrize("integer", [False, True], ids=["number", "integer"])
@pytest.mark.parametrize("step", _STEPS, ids=str)
@pytest.mark.parametrize("bounds", _BOUNDS, ids=str)
def test_not_multiple_regex(integer: bool, step: Any, bounds: dict[str, Any]) -> None:
    check_regex(integer, not_multiple_of=[step], **bounds)


@pytest.mark.parametrize("cons", [
    {"multiple_of": 0.5, "not_multiple_of": [1]},             # the halves that are not integers
    {"multiple_of": 0.25, "not_multiple_of": [0.5], "minimum": -3},
    {"multiple_of": 3, "not_multiple_of": [2, 5]},
    {"multiple_of": 0.1, "not_multiple_of": [0.5], "maximum": 2.5},
    {"not_multiple_of": [2, 3]},
    {"not_multiple_of": [0.5, 3], "exclusive_maximum": 50},
    {"not_multiple_of": [2, 4, 2]},                           # 4 and the repeat are implied by 2
    {"not_multiple_of": [Decimal("0.001")], "minimum": 0},
], ids=str)
@pytest.mark.parametrize("integer", [False, True], ids=["number", "integer"])
def test_not_multiple_with_other_constraints(integer: bool, cons: dict[str, Any]) -> None:
    check_regex(integer, **cons)


def test_long_spellings() -> None:
    """Five characters reach `1.25`, `-0.05`, `12.5` and four-digit integers."""
    for integer, cons in [(False, {"not_multiple_of": [1]}), (False, {"not_multiple_of": [0.25]}),
                          (True, {"not_multiple_of": [5], "minimum": -999}),
                          (False, {"not_multiple_of": [0.1], "exclusive_maximum": 1})]:
        check_regex(integer, 5, **cons)


def test_non_integers_are_empty_for_integers() -> None:
    """An integer is a multiple of 1 (and of 1/n): no integer is left."""
    assert number_regex(integer=True, not_multiple_of=[1]) == EMPTY
    assert number_regex(integer=True, not_multiple_of=[0.25], minimum=0) == EMPTY
    assert number_regex(integer=False, multiple_of=10, not_multiple_of=[5]) == EMPTY
    assert number_regex(integer=False, multiple_of=1, not_multiple_of=[0.5], maximum=3) == EMPTY
    assert number_rules("num", integer=True, not_multiple_of=[1]) is None  # no number


def test_non_integer_spellings() -> None:
    regex = re2.compile(number_regex(integer=False, not_multiple_of=[1]))
    for text, ok in [("1", False), ("1.0", False), ("1.00", False), ("-0.0", False), ("0", False), ("1.5", True),
                     ("-0.5", True), ("0.05", True), ("1.50", True), ("100000000000000000000.000001", True),
                     ("1e5", False), ("1.5e0", False), ("01.5", False), (".5", False), ("1.", False)]:
        assert bool(regex.fullmatch(text)) == ok, text


def _rules_walk(rules: str, depth: int) -> set[str]:
    import llguidance

    grammar = llguidance.LLMatcher.grammar_from_lark("start: num\n" + rules)
    return accepted_texts(grammar, CHARS, depth)


@pytest.mark.parametrize("integer", [False, True], ids=["number", "integer"])
@pytest.mark.parametrize("cons", [{"not_multiple_of": [7]}, {"not_multiple_of": [7], "multiple_of": 0.5},
                                  {"not_multiple_of": [13], "minimum": -5}], ids=str)
def test_steps_prime_to_ten_as_rules(integer: bool, cons: dict[str, Any]) -> None:
    """A residue automaton mod 7 has no regex within the size bound; its right-linear rules are
    walked through llguidance instead."""
    assert number_regex(integer=integer, **cons) is None
    rules = number_rules("num", integer=integer, **cons)
    assert rules is not None
    assert _rules_walk(rules, 4) == _want(integer, cons, 4)


def test_few_bounded_values_are_listed() -> None:
    """Steps whose common modulus passes the residue automaton's bound (1155 * 8 * 100003), in a
    range that leaves few values: the values are written one by one (all their spellings)."""
    from schemac.numbers.exact import _automaton
    from schemac.numbers.dfa import TooLarge

    cons = {"minimum": -4000, "maximum": 3000, "multiple_of": 1155, "not_multiple_of": [8, 100003]}
    with pytest.raises(TooLarge):
        _automaton(False, -4000, 3000, None, None, 1155, (8, 100003))
    regex = check_regex(False, 5, **cons)
    full = re2.compile(regex)
    for text, ok in [("-3465", True), ("-3465.000", True), ("-2310", True), ("0", False), ("1155", True),
                     ("2310.0", True), ("3465", False), ("-1155.5", False), ("-0", False), ("1155.", False)]:
        assert bool(full.fullmatch(text)) == ok, text
    assert check_regex(True, 5, minimum=10000, exclusive_maximum=10500, multiple_of=420, not_multiple_of=[9]) == EMPTY


@pytest.mark.parametrize("integer", [False, True], ids=["number", "integer"])
@pytest.mark.parametrize("cons", [
    {"minimum": -12, "maximum": 30, "multiple_of": 2.5, "not_multiple_of": [10]},
    {"exclusive_minimum": -1, "exclusive_maximum": 1, "multiple_of": 0.25},
    {"minimum": 0, "exclusive_maximum": 99, "multiple_of": 11, "not_multiple_of": [2, 0.5]},
    {"exclusive_minimum": -0.5, "maximum": 5, "multiple_of": Decimal("0.5")},
    {"minimum": 3, "maximum": 2, "multiple_of": 1},
], ids=str)
def test_listing_is_the_same_language(integer: bool, cons: dict[str, Any]) -> None:
    """The listing fallback on its own, walked like the automaton's regexes."""
    from schemac.numbers.exact import MAX_REGEX_CHARS, _constraints, _listed_regex

    bounds = _constraints(cons.get("minimum"), cons.get("maximum"), cons.get("exclusive_minimum"),
                          cons.get("exclusive_maximum"))
    regex = _listed_regex(integer, bounds, cons["multiple_of"], cons.get("not_multiple_of", ()), MAX_REGEX_CHARS)
    assert regex is not None
    assert _re2_walk(regex, 5) == _want(integer, cons, 5)


# ---- whole schemas -------------------------------------------------------------------------


def _policy_value(text: str, integer: bool) -> Fraction | None:
    if not (_INT if integer else _NUM).fullmatch(text):
        return None
    v = Fraction(Decimal(text))
    return None if text.startswith("-") and v == 0 else v


def _mult(v: Fraction, k: Any) -> bool:
    return (v / _fraction(k)).denominator == 1


#: (schema, integer spellings only, which values it admits)
_SCHEMAS: list[tuple[dict[str, Any], bool, Callable[[Fraction], bool]]] = [
    ({"not": {"multipleOf": 5}}, False, lambda v: not _mult(v, 5)),
    ({"type": "number", "not": {"type": "integer"}}, False, lambda v: v.denominator != 1),
    ({"oneOf": [{"type": "integer"}, {"type": "string"}, {"type": "number"}]}, False, lambda v: v.denominator != 1),
    ({"type": "integer", "not": {"multipleOf": 3}}, True, lambda v: not _mult(v, 3)),
    ({"type": "integer", "not": {"multipleOf": 3, "minimum": 0, "maximum": 1000}}, True,
     lambda v: v < 0 or v > 1000 or not _mult(v, 3)),
    ({"type": "number", "minimum": 0, "maximum": 2, "not": {"multipleOf": 0.25}}, False,
     lambda v: 0 <= v <= 2 and not _mult(v, 0.25)),
    ({"not": {"multipleOf": 7}}, False, lambda v: not _mult(v, 7)),
    ({"type": "number", "multipleOf": 0.5, "not": {"multipleOf": 1}}, False, lambda v: _mult(v, 0.5) and v.denominator != 1),
    ({"oneOf": [{"not": {"multipleOf": 5}}, {"multipleOf": 3}]}, False, lambda v: (not _mult(v, 5)) != _mult(v, 3)),
    ({"anyOf": [{"type": "number", "maximum": 2, "multipleOf": 0.5}, {"not": {"multipleOf": 0.1}}]}, False,
     lambda v: (_mult(v, 0.5) and v <= 2) or not _mult(v, 0.1)),
]


@pytest.mark.parametrize("schema,integer,admits", _SCHEMAS, ids=[json.dumps(s) for s, _, _ in _SCHEMAS])
def test_schema_numbers_exact(schema: dict[str, Any], integer: bool, admits: Callable[[Fraction], bool]) -> None:
    """Every number text of up to 4 characters the grammar admits is a policy spelling of an
    admitted value, and every such spelling is admitted."""
    grammar = schemac.compile(schema, use_cache=False).grammar
    got = accepted_texts(grammar, CHARS, 4)
    want = {t for t, _, _ in _texts(4) if (v := _policy_value(t, integer)) is not None and admits(v)}
    assert got == want, (sorted(got - want)[:5], sorted(want - got)[:5])


def test_one_of_example_instances_and_verify() -> None:
    """The integers match two branches; strings and the non-integer numbers exactly one."""
    schema = {"oneOf": [{"type": "integer"}, {"type": "string"}, {"type": "number"}]}
    grammar = schemac.compile(schema, use_cache=False).grammar
    for text, ok in [("1", False), ("1.0", False), ("-3.00", False), ("1.5", True), ("-0.25", True), ('"a"', True),
                     ("null", False), ("true", False), ("[]", False), ("{}", False), ("1e5", False), ("0.5e1", False)]:
        assert accepts(grammar, text) == ok, text
    report = schemac.verify(schema, depth=3, time_s=math.inf)
    assert report.unsound_count == 0 and report.texts > 0


@pytest.mark.parametrize("schema", [
    {"not": {"multipleOf": 5}},
    {"type": "integer", "not": {"multipleOf": 7}},
    {"oneOf": [{"not": {"multipleOf": 0.5}}, {"maximum": 1}]},
    {"type": "array", "items": {"oneOf": [{"type": "integer"}, {"type": "number", "maximum": 3}]}},
], ids=json.dumps)
def test_verify_finds_nothing_unsound(schema: dict[str, Any]) -> None:
    report = schemac.verify(schema, depth=3, time_s=math.inf)
    assert report.unsound_count == 0, report.counterexamples[:3]


def test_integers_without_non_integers_are_unsatisfiable() -> None:
    with pytest.raises(CompileError) as info:
        schemac.compile({"type": "integer", "not": {"type": "integer"}}, use_cache=False)
    assert info.value.codes == ["unsatisfiable"]


def test_lowering_leaves_the_marker() -> None:
    from schemac.lower.support.marks import NOT_MULTIPLE

    assert schemac.compile({"not": {"multipleOf": 5}}, use_cache=False).lowered == {"type": "number", NOT_MULTIPLE: [5]}
    lowered = schemac.compile({"type": "number", "not": {"type": "integer"}}, use_cache=False).lowered
    assert {"type": "number", NOT_MULTIPLE: [1]} in lowered["allOf"]


def test_listed_values_beside_the_marker_are_filtered() -> None:
    """An enum that meets the marker only in the writer (through an anyOf the negation domain
    does not read) keeps exactly its numbers that are no multiple of the step (`not multipleOf`
    admits no string: a string is valid against `multipleOf`)."""
    schema = {"anyOf": [{"enum": [1, 1.5, 10]}, {"enum": [5, 7.5, "a", 12.5]}], "not": {"multipleOf": 5}}
    art = schemac.compile(schema, use_cache=False)
    assert "x-schemac-not-multipleOf" in json.dumps(art.lowered)  # the writer's `_listed` meets it
    for text, ok in [("1", True), ("1.0", True), ("1.5", True), ("7.5", True), ("12.50", True), ('"a"', False),
                     ("10", False), ("10.0", False), ("5", False), ("5.00", False), ("2", False)]:
        assert accepts(art.grammar, text) == ok, text


def test_user_written_marker_is_an_annotation() -> None:
    """In a user's schema the key is an unknown keyword: it constrains nothing."""
    art = schemac.compile({"type": "number", "x-schemac-not-multipleOf": [1]}, use_cache=False)
    assert accepts(art.grammar, "1") and accepts(art.grammar, "2.5")


def test_negated_marker_node() -> None:
    """A lowered oneOf branch holding the marker, negated again: the multiples come back."""
    schema = {"type": "object", "properties": {"n": {"oneOf": [{"not": {"type": "integer"}}, {"minimum": 0}]}}}
    grammar = schemac.compile(schema, use_cache=False).grammar
    for n, ok in [("-1.5", True), ("-1", False), ("0", True), ("2.5", False), ("3", True), ("-0.5", True), ('"x"', False)]:
        assert accepts(grammar, f'{{"n": {n}}}') == ok, n


def test_distributed_contradictions_are_exact() -> None:
    """A dozen `oneOf: [{multipleOf: 2}, {multipleOf: 3}]` in one allOf: each lowers to
    (2 ∧ ¬3) ∨ (3 ∧ ¬2), and the writer's distribution keeps two live branches per level (the
    screen drops `multipleOf: 2` beside `NOT_MULTIPLE: [2]`), so it compiles, exactly."""
    schema = {"allOf": [{"oneOf": [{"multipleOf": 2}, {"multipleOf": 3}]}] * 12}
    grammar = schemac.compile(schema, use_cache=False).grammar
    want = {t for t, _, _ in _texts(4) if (v := _policy_value(t, False)) is not None and _mult(v, 2) != _mult(v, 3)}
    assert accepted_texts(grammar, CHARS, 4) == want
    assert not accepts(grammar, '"a"')  # a string passes both branches of every oneOf


def test_screen_reads_excluded_steps() -> None:
    from schemac.emit.lark.prune import Screen
    from schemac.lower.support.marks import NOT_MULTIPLE

    screen = Screen({})
    assert screen.dead([{"multipleOf": 4}, {"type": "number", NOT_MULTIPLE: [2]}])
    assert screen.dead([{"type": "integer"}, {"type": "number", NOT_MULTIPLE: [0.5]}])
    assert not screen.dead([{"multipleOf": 2}, {"type": "number", NOT_MULTIPLE: [4]}])  # 2 is no multiple of 4
    assert not screen.dead([{"multipleOf": 4}, {NOT_MULTIPLE: [2]}])  # strings and the rest pass both
    assert not screen.dead([{"type": "number"}, {"type": "number", NOT_MULTIPLE: [1]}])


def test_rules_inside_an_object() -> None:
    """The right-linear rules of a step like 7 sit between other lexemes (keys, separators)."""
    schema = {"type": "object", "properties": {"a": {"type": "integer", "not": {"multipleOf": 7}},
                                               "b": {"type": "number", "not": {"multipleOf": 7}}},
              "required": ["a", "b"], "additionalProperties": False}
    grammar = schemac.compile(schema, use_cache=False).grammar
    for text, ok in [('{"a": 15, "b": 3}', True), ('{"a": 14, "b": 3}', False), ('{"a": 15, "b": 3.5}', True),
                     ('{"a": 15, "b": 70.0}', False), ('{"a":1,"b":0.07}', True), ('{"a": -8, "b": -49}', False),
                     ('{"a": 700000000000000000008, "b": 1}', True), ('{"a": 700000000000000000007, "b": 1}', False)]:
        assert accepts(grammar, text) == ok, text
