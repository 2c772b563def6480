"""Negation lowering: golden fixtures, exactness on random instances, rejections, budget."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schemac
from testkit.grammar_harness import OTHER_REJECTIONS, accepts, check_exact_or_rejected, check_golden, load_fixtures, text_of
from schemac.budget import Limits
from schemac.diagnostics import CompileError

FIXTURES = load_fixtures("negation")


@pytest.mark.parametrize("name,fx", FIXTURES, ids=[n for n, _ in FIXTURES])
def test_golden(name: str, fx: dict) -> None:
    check_golden(fx)


@pytest.mark.parametrize("name,fx", FIXTURES, ids=[n for n, _ in FIXTURES])
def test_fixpoint(name: str, fx: dict) -> None:
    lowered = fx["lowered"]
    if name in ("char_class_pattern", "repeated_class"):
        # The complement splits its class into ranges around '"' and '\\'; as a *user* pattern
        # the front end's per-class guard against llguidance 1.9.1's escape bug refuses it
        # (a known false positive, see schemac/regex.py), so the fixpoint is checked on the pass.
        from schemac.budget import Budget
        from schemac.diagnostics import DiagnosticSink
        from schemac.lower import lower_bundle
        from schemac.schema import Bundle

        assert lower_bundle(Bundle(lowered), Budget(), DiagnosticSink()) == lowered
        return
    assert schemac.compile(lowered, use_cache=False).lowered == lowered


# Random operands built from the keywords negation complements exactly.
_leaf = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "null", "object", "array", "boolean", ["string", "number"]])}),
    st.fixed_dictionaries({"const": st.sampled_from(["ab", "a", 1, 2.5, True, None, [1], {"a": 1}])}),
    st.fixed_dictionaries({"enum": st.lists(st.sampled_from(["", "ab", "b", 0, 3, False, None]), min_size=1, max_size=3)}),
    st.fixed_dictionaries({"minimum": st.integers(-2, 5)}),
    st.fixed_dictionaries({"exclusiveMaximum": st.sampled_from([0, 2.5, 4])}),
    st.fixed_dictionaries({"minLength": st.integers(0, 3), "maxLength": st.integers(0, 3)}),
    st.fixed_dictionaries({"minItems": st.integers(0, 2)}),
    st.fixed_dictionaries({"maxProperties": st.integers(0, 2)}),
    st.fixed_dictionaries({"required": st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=2, unique=True)}),
    st.fixed_dictionaries({"pattern": st.sampled_from(["^a", "^ab$", "b", "[.a]", "^[ab]{1,2}$", "^..$", "^a*$"])}),
)
_operand = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"allOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"not": inner}),
        st.fixed_dictionaries({"type": st.just("object"), "properties": st.fixed_dictionaries({"a": inner})}),
        st.fixed_dictionaries({"type": st.just("array"), "prefixItems": st.lists(inner, min_size=1, max_size=2)}),
    ),
    max_leaves=4,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operand=_operand, data=st.data())
def test_random_operands_are_exact(operand: dict, data: st.DataObject) -> None:
    schema = {"not": operand}
    check_exact_or_rejected(schema, data, {"not-exact", *OTHER_REJECTIONS})


@pytest.mark.parametrize(
    "operand",
    [
        {"pattern": "(?:^a$)*b"},  # no exact string terminal (both anchors inside a repetition)
        {"contains": {"type": "integer"}, "minContains": 2},  # a counted `contains`
        {"type": "array", "prefixItems": [True], "items": {"type": "string"}},
        {"const": "x" * 300},
    ],
)
def test_rejects_what_has_no_exact_complement(operand: dict) -> None:
    with pytest.raises(CompileError) as info:
        schemac.compile({"not": operand}, use_cache=False)
    assert info.value.codes == ["not-exact"]
    assert info.value.diagnostics[-1].pointer == "/not"


def test_multiple_of_complement_bounded_or_not() -> None:
    """Within a small integer range the complement enumerates; unbounded (or over all numbers)
    it is the `NOT_MULTIPLE` marker's exact number automaton (tests/numbers/test_not_multiple.py)."""
    art = schemac.compile({"type": "integer", "not": {"multipleOf": 3, "minimum": 0, "maximum": 7}}, use_cache=False)
    for n, ok in [(-1, True), (0, False), (1, True), (3, False), (7, True), (8, True)]:
        assert accepts(art.grammar, str(n)) == ok, n
    art = schemac.compile({"type": "integer", "not": {"multipleOf": 3, "minimum": 0}}, use_cache=False)
    for n, ok in [(-3, True), (-1, True), (0, False), (1, True), (3, False), (7, True), (9, False), (30, False)]:
        assert accepts(art.grammar, str(n)) == ok, n


def test_string_complement_handles_escapes_and_unicode() -> None:
    literal = "a.\n[^]é😀-/"
    art = schemac.compile({"type": "string", "not": {"const": literal}}, use_cache=False)
    assert not accepts(art.grammar, text_of(literal))
    for other in ["", literal[:-1], literal + "x", "a.\n[^]e😀-/", "😀", '"', "\\", 'a"']:
        assert accepts(art.grammar, text_of(other)), other


@pytest.mark.parametrize("operand", [{"const": 'a"'}, {"const": "\\"}])
def test_quote_and_backslash_exclusion_is_refused(operand: dict) -> None:
    # llguidance 1.9.1: a position admitting every control character also admits \" and \\.
    # (`not: {pattern: '"'}` is exact through the Lark marker: tests/regex/test_not_pattern.py)
    with pytest.raises(CompileError) as info:
        schemac.compile({"not": operand}, use_cache=False)
    assert info.value.codes == ["not-exact"]


def test_recursive_reference_gets_a_named_complement() -> None:
    schema = {
        "$defs": {"list": {"type": "object", "properties": {"next": {"$ref": "#/$defs/list"}}}},
        "not": {"$ref": "#/$defs/list"},
    }
    art = schemac.compile(schema, use_cache=False)
    assert "not~list" in art.lowered["$defs"]
    for value, ok in [({}, False), ({"next": {"next": {}}}, False), ({"next": {"next": 1}}, True), (None, True), ({"next": []}, True)]:
        assert accepts(art.grammar, text_of(value)) == ok, value


def _branches_needed(n: int) -> dict:
    return {"not": {"enum": list(range(0, 2 * n, 2))}}  # n values: n + 1 numeric gaps + other types


def test_budget_just_under_and_just_over() -> None:
    limits = Limits(entries=6)
    schemac.compile(_branches_needed(4), limits=limits, use_cache=False)  # a union of 6 branches
    with pytest.raises(CompileError) as info:
        schemac.compile(_branches_needed(5), limits=limits, use_cache=False)
    assert info.value.codes == ["budget-exhausted"]


def test_budget_is_shared_by_siblings() -> None:
    limits = Limits(entries=8)
    one = {"properties": {"a": _branches_needed(2)}}  # 4 branches each
    schemac.compile(one, limits=limits, use_cache=False)
    both = {"properties": {"a": _branches_needed(2), "b": _branches_needed(2)}}
    schemac.compile(both, limits=limits, use_cache=False)
    three = {"properties": {k: _branches_needed(2) for k in "abc"}}
    with pytest.raises(CompileError) as info:
        schemac.compile(three, limits=limits, use_cache=False)
    assert info.value.codes == ["budget-exhausted"]


# Operands over a closed object: patternProperties / additionalProperties complements use its keys.
_closed_operand = st.fixed_dictionaries(
    {},
    optional={
        "properties": st.fixed_dictionaries({}, optional={"a": _leaf, "x": _leaf}),
        "patternProperties": st.fixed_dictionaries({}, optional={"^a": _leaf, "b$": _leaf}),
        "additionalProperties": st.one_of(st.booleans(), _leaf),
    },
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operand=_closed_operand, data=st.data())
def test_complements_inside_a_closed_object_are_exact(operand: dict, data: st.DataObject) -> None:
    schema = {"type": "object", "properties": {"a": True, "ab": True, "b": True}, "additionalProperties": False, "not": operand}
    check_exact_or_rejected(schema, data, {"not-exact", *OTHER_REJECTIONS})


def test_open_object_complements_use_the_witness() -> None:
    """Over open key sets "some entry breaks it" is the `WITNESS` marker (walked exhaustively in
    tests/lower/test_lower_object_witness.py)."""
    from schemac.lower.support.marks import WITNESS

    for operand in ({"patternProperties": {"^a": {"type": "string"}}}, {"properties": {"a": True}, "additionalProperties": False},
                    {"type": "object", "additionalProperties": {"type": "string"}}):
        art = schemac.compile({"type": "object", "not": operand}, use_cache=False)
        assert WITNESS in json.dumps(art.lowered), operand


@pytest.mark.parametrize(
    "schema,expected",
    [
        ({"allOf": [{"enum": [1.5, 2, "a"]}, {"not": {"type": "integer"}}]}, {"enum": [1.5, "a"]}),
        ({"enum": [{"a": 1}, {"a": 2}], "not": {"patternProperties": {"a": {"const": 1}}}}, {"const": {"a": 2}}),
        ({"const": "x", "not": {"pattern": "x"}}, False),
        ({"enum": [1, 2]}, None),  # nothing to gain: lowered as it is
        ({"enum": [1, 2], "allOf": [{"$ref": "#/$defs/a"}]}, None),  # not self-contained
        ({"type": "string", "not": {"pattern": "x"}}, None),  # unbounded
    ],
)
def test_finite_form_enumerates_with_the_validator(schema: dict, expected: object) -> None:
    from schemac.budget import Budget
    from schemac.diagnostics import DiagnosticSink
    from schemac.lower.support.analysis import finite_form
    from schemac.lower.support.context import Definitions, LowerContext
    from schemac.schema import Bundle

    ctx = LowerContext(Budget(), Definitions(Bundle(schema)), DiagnosticSink())
    assert finite_form(schema, ctx) == expected


def test_finite_form_charges_evaluations() -> None:
    from schemac.budget import Budget
    from schemac.diagnostics import DiagnosticSink
    from schemac.lower.support.analysis import finite_form
    from schemac.lower.support.context import Definitions, LowerContext
    from schemac.schema import Bundle

    schema = {"enum": [1, 2, 3], "not": {"const": 2}}
    ctx = LowerContext(Budget(Limits(evaluations=3)), Definitions(Bundle(schema)), DiagnosticSink())
    assert finite_form(schema, ctx) == {"enum": [1, 3]}
    with pytest.raises(CompileError) as info:
        finite_form(schema, ctx)
    assert info.value.codes == ["budget-exhausted"]


def test_complement_stands_where_not_was() -> None:
    """A `not` written before `properties` puts its complement's properties first in answers;
    the complement still rejects what the operand accepts, in either order."""
    schema = {"type": "object", "not": {"properties": {"c": {"const": 0}}, "required": ["c"]},
              "properties": {"b": {"type": "string"}}}
    art = schemac.compile(schema, use_cache=False)
    assert list(art.lowered) == ["type", "allOf", "properties"]
    assert accepts(art.grammar, text_of({"c": 1, "b": "x"}))
    assert not accepts(art.grammar, text_of({"c": 0, "b": "x"}))
    assert not accepts(art.grammar, text_of({"b": "x", "c": 0}))


@pytest.mark.parametrize("schema", [
    {"not": {"type": "array", "items": {"type": "string"}}},
    {"type": "array", "not": {"items": {"type": "string"}}},
    {"type": "array", "not": {"items": {"enum": [1, 2]}}, "maxItems": 4},
    {"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "array", "items": {"type": "integer"}}]},
])
def test_complement_of_unbounded_items_is_contains(schema: dict) -> None:
    """`not: {items: X}` on unbounded arrays (no prefixItems) is "some item breaks X": a `contains`
    of X's complement, which the Lark array path enforces. Exact both ways on every array of up
    to 3 items over a small value set (jsonschema is the oracle)."""
    import itertools

    import jsonschema

    art = schemac.compile(schema, use_cache=False)
    oracle = jsonschema.Draft202012Validator(schema)
    atoms = [1, 2, 3, "a", None, 1.5, [], {}]
    cases: list[object] = ["x", 1, {}, None]
    for n in range(4):
        cases += [list(c) for c in itertools.product(atoms, repeat=n)]
    for value in cases:
        assert accepts(art.grammar, text_of(value)) == oracle.is_valid(value), value


def _lowered(schema: dict) -> object:
    from testkit.lower_passes_oracle import relower

    return relower(schema)


def _arrays(atoms: list, longest: int = 3) -> list:
    import itertools

    return [list(c) for n in range(longest + 1) for c in itertools.product(atoms, repeat=n)]


@pytest.mark.parametrize("bound", [{"maxItems": 3}, {}], ids=["bounded", "unbounded"])
def test_item_complement_is_taken_per_position(bound: dict) -> None:
    """Position 0's domain (a: integer) made `¬{a: string}` just "has a"; that complement must
    not be reused at position 1, where `{"a": "x"}` satisfies the operand. Lowered ≡ original
    on every array of up to 3 items over the atoms (jsonschema decides both)."""
    import jsonschema

    schema = {"type": "array", "prefixItems": [{"type": "object", "properties": {"a": {"type": "integer"}}}],
              "not": {"items": {"type": "object", "properties": {"a": {"type": "string"}}}}, **bound}
    original, lowered = jsonschema.Draft202012Validator(schema), jsonschema.Draft202012Validator(_lowered(schema))
    for value in _arrays([{}, {"a": 1}, {"a": "x"}, 1]):
        assert original.is_valid(value) == lowered.is_valid(value), value
    assert not lowered.is_valid([{}, {"a": "x"}])


def test_item_complement_needing_another_domain_is_exact() -> None:
    """At position 1 no domain says `a` is a number, so `¬integer` there needs the non-integer
    numbers (the `NOT_MULTIPLE` marker), not position 0's complement: exact on every instance."""
    from schemac.validate.final import FinalValidator

    schema = {"type": "array", "prefixItems": [{"type": "object", "properties": {"a": {"type": "string"}}}],
              "maxItems": 3, "not": {"items": {"type": "object", "properties": {"a": {"type": "integer"}}}}}
    art = schemac.compile(schema, use_cache=False)
    oracle = FinalValidator(schema)
    items = [{}, {"a": 1}, {"a": 1.5}, {"a": "x"}, 2, 2.5]
    for value in [[]] + [[x] for x in items] + [[x, y] for x in items for y in items]:
        assert accepts(art.grammar, text_of(value)) == oracle.is_valid(value), value
    assert accepts(art.grammar, '[{}, {"a": 1.5}]') and not accepts(art.grammar, '[{}, {"a": 1.0}]')


def test_complement_of_numbers_on_the_issue_example() -> None:
    """`items: {not: {enum: [null, 0, 0.5]}}` lowers to open ranges around 0 and 0.5, which
    llguidance's own keywords got wrong (`[0]` admitted); the emitted lexemes are exact."""
    art = schemac.compile({"type": "array", "items": {"not": {"enum": [None, 0, 0.5]}}}, use_cache=False)
    for text, ok in [("[0]", False), ("[0.0]", False), ("[0.5]", False), ("[0.50]", False), ("[null]", False),
                     ("[0.25]", True), ("[-0.1]", True), ("[1]", True), ("[0.51]", True), ("[\"a\"]", True)]:
        assert accepts(art.grammar, text) == ok, text


def test_number_complements_are_exact_past_doubles() -> None:
    """Values and bounds are compared as the decimals they spell: 1e23 and 10**23 are one point
    (as floats they differ), an integer range rounds 1e23 to 10**23 exactly, and integers past
    2^53 are complemented instead of refused."""
    from schemac.lower.negation.domain import Domain
    from schemac.lower.negation.numbers import int_range, not_numbers

    assert not_numbers([1e23, 10 ** 23], Domain()) == [
        {"type": "number", "exclusiveMaximum": 1e23}, {"type": "number", "exclusiveMinimum": 1e23}]
    assert int_range({"minimum": 1e23, "exclusiveMaximum": 2.5}) == (10 ** 23, 2)
    art = schemac.compile({"type": "integer", "not": {"const": 9007199254740993}}, use_cache=False)
    for text, ok in [("9007199254740993", False), ("9007199254740992", True), ("9007199254740994", True)]:
        assert accepts(art.grammar, text) == ok, text
    art = schemac.compile({"type": "integer", "not": {"multipleOf": 0.5, "minimum": 0}}, use_cache=False)
    assert not accepts(art.grammar, "7")  # every integer is a multiple of 0.5


def _literal_forms(text: str) -> list[tuple[dict, object]]:
    """(schema, which strings it admits) for each way a literal is complemented."""
    escaped = "".join("\\" + c if c in "^$\\.*+?()[]{}|/" else c for c in text)
    return [
        ({"type": "string", "not": {"const": text}}, lambda s: s != text),
        ({"type": "string", "not": {"pattern": f"^{escaped}$"}}, lambda s: s != text),
        ({"type": "string", "not": {"pattern": f"^{escaped}"}}, lambda s: not s.startswith(text)),
    ]


@pytest.mark.parametrize("text", ["", "a", "ab", "b\na", "aab"])
def test_flat_literal_complement_is_exact_on_a_short_alphabet(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The flat form (`literal_complement`), forced on short literals: every string over the
    literal's alphabet up to two characters longer, through the compiled grammar."""
    import itertools

    from schemac.lower.negation import complement as negation
    from schemac.lower.negation import strings as negation_strings

    monkeypatch.setattr(negation_strings, "FLAT_FROM", 0)
    monkeypatch.setattr(negation, "FLAT_FROM", 0)
    strings = ["".join(p) for n in range(len(text) + 3) for p in itertools.product("ab\n", repeat=n)]
    for schema, admits in _literal_forms(text):
        try:
            art = schemac.compile(schema, use_cache=False)
        except CompileError as exc:  # `^` alone: every string matches it
            assert exc.codes == ["unsatisfiable"] and not any(admits(s) for s in strings)
            continue
        assert "maxLength" in str(art.lowered) or not text  # the flat form's length branch
        for s in strings:
            assert accepts(art.grammar, text_of(s)) == admits(s), (schema, s)


def test_literal_complement_at_256_characters() -> None:
    """256 characters (past llguidance's nesting limit for the trie form) compile and are exact
    on the literal, its prefixes, extensions and one-character changes at every 17th position."""
    text = "".join("abc xyz,.é-"[(i * 7) % 11] for i in range(256))
    others = [text[:-1], text + "q", "", text[:128], *(text[:i] + "#" + text[i + 1:] for i in range(0, 256, 17))]
    for schema, admits in _literal_forms(text):
        art = schemac.compile(schema, use_cache=False)
        for s in [text, *others]:
            assert accepts(art.grammar, text_of(s)) == admits(s), (schema, s[:20])
