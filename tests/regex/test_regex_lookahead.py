"""Leading look-aheads in `pattern` (`^(?=A)(?!B)R`): the split, and its exactness end to end.

The split (`schemac.regex.split_lookaheads`) is checked on the shapes JSON Schema Store uses and
on the look-arounds it must leave refused. Exactness is checked against node's `RegExp(p, "u")`
(the independent ECMA-262 oracle): every string over a small alphabet up to five characters is
offered to the compiled grammar (its canonical JSON spelling) and to the final validator, and
both must answer as node does on the user's original pattern, in both directions.
"""
from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import schemac
from testkit.ecma_oracle import node_available, node_verdicts, strings
from testkit.grammar_harness import accepts
from schemac.diagnostics import CompileError
from schemac.regex import split_lookahead_patterns, split_lookaheads, translate
from schemac.regex.syntax import PatternError
from schemac.schema import Bundle
from schemac.validate.final import FinalValidator

LOOK_AROUND = "look-around assertions are not supported"


@pytest.mark.parametrize("pattern,expected", [
    (r"^(?!io\.papermc\.)([a-zA-Z_$][a-zA-Z\d_$]*\.)*[a-zA-Z_$][a-zA-Z\d_$]*$",
     (r"([a-zA-Z_$][a-zA-Z\d_$]*\.)*[a-zA-Z_$][a-zA-Z\d_$]*$", [(False, r"io\.papermc\.")])),
    (r"^(?!^lucene\.|builtin\.|mongodb\.).*", (".*", [(False, r"^lucene\.|builtin\.|mongodb\.")])),
    (r"^(?=[^=]+$)(?!\s+$)(.|\n)+$", (r"(.|\n)+$", [(True, "[^=]+$"), (False, r"\s+$")])),
    (r"^(?!.*\/)^(.*[^.]+.*)$", ("^(.*[^.]+.*)$", [(False, r".*\/")])),
    (r"^(?![ \t\n]*\(default(.*)\))[\s\S]*", (r"[\s\S]*", [(False, r"[ \t\n]*\(default(.*)\)")])),
    (r'^(?!.*(\{TriggerCondition\}|["<>*?:/\\])).*\.[bB][lL][fF]$',
     (r".*\.[bB][lL][fF]$", [(False, r'.*(\{TriggerCondition\}|["<>*?:/\\])')])),
    # a `)` or `(?=` inside a class or escaped is no group; groups nest; empty bodies and rest
    (r"^(?=[)(?=]\))(?!\(?:)", ("", [(True, r"[)(?=]\)"), (False, r"\(?:")])),
    (r"^(?=(a(?:b|c))+)(?!(?<n>x)|y)z", ("z", [(True, "(a(?:b|c))+"), (False, "(?<n>x)|y")])),
    ("^(?=)(?!)", ("", [(True, ""), (False, "")])),
])
def test_split_shapes(pattern: str, expected: tuple[str, list[tuple[bool, str]]]) -> None:
    assert split_lookaheads(pattern) == expected


@pytest.mark.parametrize("pattern", [
    "(?=a)b",  # no leading `^`: the look-ahead is tried at every position
    "^a(?=b)",  # after a consuming atom
    "^(?=a)b(?!c)",  # a second run, after the rest began
    "^(?=a(?=b))c",  # nested
    "^(?=a)(?<=a)b",  # a look-behind
    "^(?<!a)b",
    "^((?=a))b",  # inside a group
    "^(?:(?=a)|b)",  # inside an alternative
    "^(?=a)|b",  # a top-level `|`: `^` and the look-ahead bind the first alternative only
    "^(?=a)b|c",
    "^^(?=a)",  # only right after the leading `^`
    "^(?=a)*b",  # quantified: a SyntaxError with the u flag
    "^(?=a){2}b",
    r"^(?=\bx)", r"^(?!a)\B", r"^(?=(a))\1", r"^(?=\p{Script=Latin})",  # what no engine here runs stays refused
    "^(?=a", "^(?=a))",  # not ECMA syntax
    "^a", "", "^", "a(?:b)",  # no look-ahead at all
])
def test_split_refuses(pattern: str) -> None:
    assert split_lookaheads(pattern) is None


def test_plain_translation_still_refuses_look_aheads() -> None:
    """Only the split reads leading look-aheads; every other reader of patterns refuses them."""
    with pytest.raises(PatternError, match=LOOK_AROUND):
        translate("^(?=a)b")


def test_bundle_rewrite() -> None:
    """The user's `allOf` keeps its members and order; nested rewrites (a look-ahead pattern in
    an `allOf` member of a node that has one too) both land; the input is left untouched."""
    inner = {"pattern": "^(?=b)"}
    root = {"pattern": "^(?!a|c)d", "allOf": [inner, {"type": "string"}],
            "properties": {"x": {"pattern": "^(?=x)y"}, "y": {"pattern": "plain"}}}
    before = copy.deepcopy(root)
    bundle = Bundle(root, {"d": {"pattern": "^(?=e)"}}, {"d": "/$defs/d"})
    out = split_lookahead_patterns(bundle)
    assert root == before and bundle.defs == {"d": {"pattern": "^(?=e)"}}
    assert out.root == {
        "pattern": "^d",
        "allOf": [{"pattern": "^b"}, {"type": "string"},
                  {"not": {"type": "string", "pattern": "^(?:a|c)"}}],
        "properties": {"x": {"pattern": "^y", "allOf": [{"pattern": "^x"}]}, "y": {"pattern": "plain"}},
    }
    assert out.defs == {"d": {"pattern": "^e"}} and out.origin == bundle.origin
    plain = Bundle({"pattern": "^a", "items": {"pattern": "(?=x)"}})
    assert split_lookahead_patterns(plain) is plain


# ---- exactness against node --------------------------------------------------------------------

ALPHABET = ["a", "b", ".", "\n"]
MAX_LEN = 5
WORDS = strings(ALPHABET, MAX_LEN)
#: the Store's shapes over this alphabet, empty and contradictory bodies, `^`/`$` in bodies and a
#: second `^`, bodies with alternatives, classes, escapes and repetitions
CATALOGUE = [
    "^(?!a)", "^(?=a)", "^(?!a).*", "^(?=a.)b", r"^(?!a\.)([ab]+\.)*[ab]+$", r"^(?!^a\.|b\.|\.\.).*",
    r"^(?=[^.]+$)(?!\s+$)(.|\n)+$", r"^(?!.*\.)^(.*[^.]+.*)$", r"^(?![ \n]*\.(a*)\.)[\s\S]*",
    r"^(?!.*(ab|[\n.])).*b$", "^(?=a)(?=.b)(?!..a)", "^(?!)", "^(?=)a", "^(?!a$)", r"^(?=.*b$)(?!.*\n)",
    "^(?=(a|b)+$)a", r"^(?!\n)", r"^(?=[\s\S]{2,3}$)(?!.*aa)", "^(?!$)", "^(?=a|b)(?!ab|ba).", r"^(?!(?:a|\.)*$)",
    r"^(?!b)(?!\.)(?!\n)", "^(?=.*a)(?=.*b)(?=.*\\.)", "^(?!a)b?$", r"^(?=[^\n]*$)a.*",
]


def _parts(pattern: str) -> list[str]:
    split = split_lookaheads(pattern)
    assert split is not None, pattern
    rest, parts = split
    return ["^(?:" + rest + ")"] + ["^(?:" + body + ")" for _, body in parts]


@pytest.fixture(scope="module")
def verdicts() -> dict[str, list[bool] | None]:
    if not node_available():
        pytest.skip("node (the independent ECMA-262 oracle) is not installed")
    return node_verdicts(CATALOGUE + [p for c in CATALOGUE for p in _parts(c)], ALPHABET, MAX_LEN)


def test_node_agrees_with_the_conjunction(verdicts: dict[str, list[bool] | None]) -> None:
    """The rewrite's claim, on node alone: the pattern matches iff `^(?:R)` and every `^(?:A)`
    match and no `^(?:B)` does."""
    for pattern in CATALOGUE:
        rest, parts = split_lookaheads(pattern) or ("", [])
        whole, rest_v = verdicts[pattern], verdicts["^(?:" + rest + ")"]
        bodies = [(positive, verdicts["^(?:" + body + ")"]) for positive, body in parts]
        assert whole is not None and rest_v is not None and all(v is not None for _, v in bodies), pattern
        for i, word in enumerate(WORDS):
            expected = rest_v[i] and all(v[i] == positive for positive, v in bodies)  # type: ignore[index]
            assert whole[i] == expected, (pattern, word)


@pytest.mark.parametrize("pattern", CATALOGUE)
def test_grammar_and_validator_are_exact(pattern: str, verdicts: dict[str, list[bool] | None]) -> None:
    """Grammar (canonical spellings) and final validator answer as node does on every word."""
    expected = verdicts[pattern]
    assert expected is not None
    try:
        art = schemac.compile({"type": "string", "pattern": pattern}, use_cache=False)
    except CompileError as exc:  # e.g. `^(?!)`: no string at all
        assert exc.codes == ["unsatisfiable"] and not any(expected), (pattern, exc)
        return
    validator = FinalValidator(art.schema)
    wrong = [(word, want) for word, want in zip(WORDS, expected)
             if accepts(art.grammar, json.dumps(word, ensure_ascii=False)) != want or validator.is_valid(word) != want]
    assert wrong == [], (pattern, wrong[:5], len(wrong))


# ---- other types, diagnostics ------------------------------------------------------------------

@pytest.mark.parametrize("instance", [1, 2.5, None, True, [], {"a": "b"}])
def test_other_types_pass(instance: Any) -> None:
    """`pattern` binds strings only; so do the negated members the split adds."""
    art = schemac.compile({"pattern": "^(?=a)(?!ab)"}, use_cache=False)
    validator = FinalValidator(art.schema)
    assert accepts(art.grammar, json.dumps(instance)) and validator.is_valid(instance)
    for word, valid in [("a", True), ("ac", True), ("ab", False), ("b", False), ("", False)]:
        assert accepts(art.grammar, json.dumps(word)) == valid == validator.is_valid(word), word


def _diagnostics(schema: Any, **options: Any) -> list[tuple[str, str, str]]:
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, use_cache=False, **options)
    return [(d.code, d.pointer, d.message) for d in info.value.diagnostics]


@pytest.mark.parametrize("pattern", ["^(?:a(?=b))+", "^a(?=b)b(?<=b)", "^(?=a)|(?:b(?=c))*"])
def test_other_look_arounds_keep_their_diagnostic(pattern: str) -> None:
    """Look-arounds past the split and the exact terminals (`regex.assertions`) stay refused."""
    [(code, pointer, _)] = _diagnostics({"properties": {"x": {"items": {"pattern": pattern}}}})
    assert (code, pointer) == ("unsupported-regex", "/properties/x/items/pattern")


def test_a_leading_look_ahead_does_not_hide_the_real_fault() -> None:
    """The parser reads leading look-aheads before it reports: a `\\b` inside one is the fault (it
    tests the prefix too, which the exact terminals of `regex.lookaround` cannot split)."""
    [(code, _, message)] = _diagnostics({"pattern": r"^(?!\ba)b"})
    assert code == "unsupported-regex" and "other side" in message and LOOK_AROUND not in message


@pytest.mark.parametrize("schema,upgrade,pointer", [
    ({"properties": {"x": {"pattern": "^(?!(?:^a$)*)b"}}}, False, "/properties/x/pattern"),
    ({"properties": {"x": {"allOf": [{"type": "string"}], "pattern": "^(?!(?:^a$)*)b"}}}, False, "/properties/x/pattern"),
    ({"$defs": {"d": {"pattern": "^(?=a)(?!(?:^a$)*)b"}}, "$ref": "#/$defs/d"}, False, "/$defs/d/pattern"),
    ({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"d": {"pattern": "^(?!(?:^a$)*)b"}},
      "items": [{"$ref": "#/definitions/d"}]}, True, "/definitions/d/pattern"),
    # `resolve` appends an `allOf` member for `$ref` beside `$dynamicRef`: the split's come after it
    ({"$defs": {"a": {"$dynamicAnchor": "x", "type": "string"}},
      "properties": {"p": {"$ref": "#/$defs/a", "$dynamicRef": "#x", "pattern": "^(?!(?:^a$)*)b"}}}, False, "/properties/p/pattern"),
])
def test_diagnostics_on_the_split_point_at_the_pattern(schema: dict[str, Any], upgrade: bool, pointer: str) -> None:
    """A negated body with no exact complement (an anchor under `*`) is refused where the user
    wrote the pattern, not at the `allOf` member the split generated; through a draft upgrade too."""
    [(code, where, _)] = _diagnostics(schema, upgrade_drafts=upgrade)
    assert (code, where) == ("not-exact", pointer)


def test_pattern_properties_and_property_names() -> None:
    """Only the `pattern` keyword is split: a `patternProperties` key, and a `propertyNames`
    pattern (names have no key-level `allOf`), get an exact key terminal (`regex.assertions`)."""
    for schema in ({"patternProperties": {"^(?!a)": True}, "additionalProperties": False},
                   {"propertyNames": {"pattern": "^(?!a)"}}):
        art = schemac.compile(schema, use_cache=False)
        for doc, valid in [({"b": 1}, True), ({"ab": 1}, False), ({"": 1}, True)]:
            assert accepts(art.grammar, json.dumps(doc)) == valid, (schema, doc)