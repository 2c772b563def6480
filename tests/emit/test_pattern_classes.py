"""patternProperties key classes bounded by the classes some key is in (`lark_object_classes`):
patterns that no key matches together (`^a` and `^b`) no longer count against the bound, so more
pattern groups than the old four compile; overlapping ones past the bound are still refused.
Every grammar is walked against jsonschema on keys that match none, one or several patterns, in
plain and escaped spellings (an escaped key may be refused, never admitted wrongly).
"""
from __future__ import annotations

import json
from typing import Any
import itertools

import pytest

import schemac
from testkit.grammar_harness import accepts
from schemac.diagnostics import CompileError
from schemac.validate.final import FinalValidator
from testkit.exactness import check, generates, generates_or_refused, jsonschema_oracle, unsound


def _values(i: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": i + 0.5}  # a Lark node (an exact bound), distinct per pattern


_KEYS = ["a", "b", "c", "d", "e", "f", "ab", "ax", "bx", "xa", "x", "fx", "", "ex", "da"]
_ESCAPED = ['"\\u0061"', '"\\u0061x"', '"a\\u0078"']


#: one entry `{key: value}` for each key and value, and the empty object: admitted iff valid
_TEXTS = ["{}"] + [json.dumps({key: value}, separators=(",", ":")) for key in _KEYS for value in range(0, 8)]
#: escaped key spellings: never admitted when invalid, may be refused when valid
_ESCAPED_TEXTS = ["{" + spelled + ":" + str(value) + "}" for spelled in _ESCAPED for value in (0, 7)]


def _keys_exact(schema: dict[str, Any]) -> None:
    check(schema, _TEXTS + _ESCAPED_TEXTS, refusable=set(_ESCAPED_TEXTS), oracle=jsonschema_oracle(schema))


@pytest.mark.parametrize("extra", [False, True, {"type": "integer", "maximum": 3.5}], ids=str)
@pytest.mark.parametrize("count", [5, 6])
def test_disjoint_groups_compile(count: int, extra: Any) -> None:
    patterns = {f"^{chr(97 + i)}": _values(i) for i in range(count)}
    _keys_exact({"type": "object", "patternProperties": patterns, "additionalProperties": extra})


def test_partly_overlapping_groups() -> None:
    """Four anchored prefixes and one pattern matching inside any key: 4 + 4 + 1 classes."""
    patterns = {**{f"^{chr(97 + i)}": _values(i) for i in range(4)}, "x": _values(5)}
    _keys_exact({"type": "object", "patternProperties": patterns, "additionalProperties": {"type": "integer", "maximum": 2.5}})


def test_overlapping_groups_past_the_bound() -> None:
    """Five substrings: every subset has a key (`abcde`), 31 classes; the probe stops once
    more than 15 are found, refused."""
    patterns = {chr(97 + i): _values(i) for i in range(5)}
    with pytest.raises(CompileError) as caught:
        schemac.compile({"type": "object", "patternProperties": patterns}, use_cache=False)
    assert "more than 15 classes" in str(caught.value) and caught.value.codes == ["grammar-error"]


# ---- up to 8 groups, 15 non-empty classes: prefixes, suffixes, literals, overlaps, unicode, beside
# listed keys, counts and unevaluatedProperties; key patterns with assertions (attack round 11)

PP_SCHEMAS = [{"type": "integer"}, {"type": "string"}, {"minimum": 2}, {"maximum": 5}, {"multipleOf": 2}, {"const": 4},
              {"not": {"const": 3}}, {"enum": [1, 2, 3, 4, "x"]}]


PP_VALUES: list[Any] = [1, 2, 3, 4, 6, "x", None]


PP_KEYS = [""] + [a + b for a in "abcdefgxyz1" for b in ("", "x", "y", "a", "1")] + ["xa", "ax", "\n", "é", 'a"', "A", "ab\n", "\U0001f600"]


PP_ESCAPED = ['{"\\u0061": 1}', '{"a\\u0062": 2}', '{"\\n": 1}', '{"\\u000a": 1}', '{"\\u000A": 1}', '{"a\\"": 4}', '{"\\/": 1}']


PP_PATTERN_SETS = {
    "7prefix+suffix": ["^a", "^b", "^c", "^d", "^e", "x$", "^f", "^g"],
    "8disjoint": ["^a", "^b", "^c", "^d", "^e", "^f", "^g", "^x"],
    "literals+a": ["^a$", "^b$", "^c$", "^d$", "^e$", "^f$", "^g$", "a"],
    "5overlap": ["^[a-c]", "^[b-d]", "^[e-f]", "x$", "^y"],
    "6mixed": ["^a", "a$", "^b", "1", "^$", "^x"],
    "too_many": ["^a", "^b", "^c", "^d", "^e", "^f", "x$", "y$"],
    "nested_alt": ["^(a|b)", "^(b|c)x", "^c", "^(?:d|e)$", "y$"],
    "unicode": ["^é", "^\\u00e9", "\\n$", "^\\S$", "^\\s", "😀"],
}


PP_EXTRAS = {
    "none": {},
    "closed": {"additionalProperties": False},
    "additional": {"additionalProperties": {"const": "x"}},
    "listed": {"properties": {"ax": {"type": "integer"}, "a": {}, "zz": {}, "1": {"const": 1}}, "additionalProperties": {"type": "null"}},
    "bounded": {"minProperties": 1, "maxProperties": 1},
    "unevaluated": {"unevaluatedProperties": {"type": "string"}},
}


def _pp_texts(keys: list[str]) -> list[str]:
    one = ["{" + json.dumps(k, ensure_ascii=False) + ": " + json.dumps(v) + "}" for k in keys for v in PP_VALUES]
    two = ["{" + json.dumps(a, ensure_ascii=False) + ": 4, " + json.dumps(b, ensure_ascii=False) + ": 2}"
           for a, b in itertools.permutations(["a", "ax", "b", "x", "1", "zz", ""], 2)]
    return ["{}"] + one + two + PP_ESCAPED


@pytest.mark.parametrize("extra", sorted(PP_EXTRAS))
@pytest.mark.parametrize("pats", sorted(PP_PATTERN_SETS))
def test_pattern_property_classes(pats: str, extra: str) -> None:
    schema = {"type": "object", "patternProperties": dict(zip(PP_PATTERN_SETS[pats], PP_SCHEMAS)), **PP_EXTRAS[extra]}
    texts = _pp_texts(PP_KEYS)
    try:
        schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert set(exc.codes) <= {"grammar-error", "too-large"}, exc
        return
    two_key = {t for t in texts if t.count(":") == 2}  # listed/pattern/additional order is the policy's
    check(schema, texts, refusable=set(PP_ESCAPED) | two_key)


def test_pattern_property_classes_same_schema_groups() -> None:
    """Patterns sharing a schema form one group: 12 patterns in 4 groups, overlapping."""
    pats = {"^a": PP_SCHEMAS[0], "^b": PP_SCHEMAS[0], "^c": PP_SCHEMAS[0], "x$": PP_SCHEMAS[2], "y$": PP_SCHEMAS[2],
            "1": PP_SCHEMAS[4], "^d": PP_SCHEMAS[4], "^e": PP_SCHEMAS[6], "^f": PP_SCHEMAS[6], "^g": PP_SCHEMAS[6],
            "^ax$": PP_SCHEMAS[5], "^zz$": PP_SCHEMAS[5]}
    texts = _pp_texts(PP_KEYS)
    for extra in PP_EXTRAS.values():
        schema = {"type": "object", "patternProperties": pats, **extra}
        _compiles_or_refused_pp(schema, texts)


def _compiles_or_refused_pp(schema: Any, texts: list[str]) -> None:
    try:
        schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert set(exc.codes) <= {"grammar-error", "too-large"}, exc
        return
    check(schema, texts, refusable=set(PP_ESCAPED) | {t for t in texts if t.count(":") == 2})


def test_pattern_property_classes_nested_and_negated() -> None:
    pats = dict(zip(PP_PATTERN_SETS["7prefix+suffix"], PP_SCHEMAS))
    texts = _pp_texts(["a", "ax", "x", "b", "gx", "zz", ""])
    for schema in ({"not": {"type": "object", "patternProperties": pats}},
                   {"type": "object", "properties": {"o": {"type": "object", "patternProperties": pats}}},
                   {"anyOf": [{"type": "object", "patternProperties": pats, "additionalProperties": False}, {"type": "object", "maxProperties": 0}]},
                   {"type": "object", "allOf": [{"patternProperties": pats}, {"patternProperties": {"^a": {"maximum": 3}}}]},
                   {"type": "object", "patternProperties": pats, "propertyNames": {"maxLength": 1}}):
        try:
            schemac.compile(schema, use_cache=False)
        except CompileError as exc:
            assert set(exc.codes) <= {"grammar-error", "too-large", "not-exact", "property-names-not-exact"}, exc
            continue
        check(schema, texts, refusable=set(PP_ESCAPED) | {t for t in texts if t.count(":") == 2})


@pytest.mark.xfail(strict=True, reason=(
    "patternProperties key classes over key patterns with assertions: the class terminals `A & ~B & ~C` "
    "make llguidance's lexer give up (\"too many expressions constructed\") on the first mask inside a key, "
    "so no non-empty object can be generated (fails closed); key terminals are not probed (`lexer_limit` "
    "walks string value terminals only)"))
@pytest.mark.parametrize("pats,text", [
    (["(?<=a)", "\\B", "^a"], '{"x": 1}'), (["(?<=a)", "\\B", "^a"], '{"a": 4}'), (["\\B", "^a", "b$"], '{"xb": 3}'),
    (["(?<=a)", "\\B", "^a", "b$"], '{"b": 3}'),
])
def test_assertion_key_classes_generate(pats: list[str], text: str) -> None:
    schema = {"type": "object", "patternProperties": dict(zip(pats, [{"type": "integer"}, {"type": "string"}, {"minimum": 2}, {"maximum": 5}]))}
    assert FinalValidator(schema).is_valid(json.loads(text))
    generates_or_refused(schema, text)


@pytest.mark.parametrize("pats", [["\\B"], ["(?<=a)"], ["(?<=a)", "\\B"], ["a(?!b)", "^(?=.{2})", "(?<=\\.)x"]])
def test_assertion_key_classes_small(pats: list[str]) -> None:
    schema = {"type": "object", "patternProperties": dict(zip(pats, [{"type": "integer"}, {"type": "string"}, {"minimum": 2}]))}
    keys = ["".join(p) for n in range(3) for p in itertools.product("ab.x", repeat=n)]
    texts = ["{" + json.dumps(k) + ": " + json.dumps(v) + "}" for k in keys for v in (1, 3, "s")]
    check(schema, texts)
    art = schemac.compile(schema, use_cache=False)
    final = FinalValidator(schema)
    assert all(generates(art.grammar, t) == "ok" for t in texts[::7] if final.is_valid(json.loads(t)))


# ---- the memo key keeps member order: equal value schemas spelled in other member orders (attack round 12)

def _equal_patterns(n: int) -> dict[str, Any]:
    """n unanchored key patterns whose schemas are equal JSON values spelled in different member orders."""
    members = [("type", "integer"), ("minimum", 0), ("maximum", 5)]
    spellings = list(itertools.permutations(members))
    return {"type": "object", "additionalProperties": False,
            "patternProperties": {chr(97 + i): dict(spellings[i % len(spellings)]) for i in range(n)}}


# was a finding (fixed: classes are grouped by the sorted JSON of their schema): `Writer.key_of` now
# dumps without sort_keys for every schema, and `lark_object_classes.extras` groups
# patternProperties by `key_of`: five equal value schemas spelled in different member orders become
# five groups, 31 key classes > MAX_CLASSES, rejected (grammar-error) under both key orders; with
# sorted keys they were one group and compiled (only `properties` order matters)
@pytest.mark.parametrize("key_order", ["schema", "properties"])
def test_equal_pattern_schemas_in_another_member_order_still_compile(key_order: str) -> None:
    schema = _equal_patterns(5)
    art, wrong = unsound(schema, ['{"abcde": 3}', '{"abcde": 9}', '{"x": 1}', '{"a": 1, "b": 2}'], key_order=key_order)
    assert not wrong and accepts(art.grammar, '{"abcde": 3}')


def test_pattern_schemas_in_another_member_order_stay_sound() -> None:
    schema = _equal_patterns(3)
    texts = ['{"abc": 3}', '{"abc": 9}', '{"x": 1}', '{"a": 1, "b": 2}', '{"ab": -1}', '{"c": 5}']
    art, wrong = unsound(schema, texts)
    assert not wrong
    assert accepts(art.grammar, '{"abc": 3}') and accepts(art.grammar, '{"a": 1, "b": 2}')
