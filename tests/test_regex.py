"""Pattern front end: exact ECMA-262 translation, RE2/llguidance checks, diagnostics."""
from __future__ import annotations

import json

import pytest

from schemac.budget import Budget, Limits
from schemac.diagnostics import CompileError
from schemac.regex import MAX_PATTERN_CHARS, PatternError, check_patterns, compile_re2, translate
from schemac.schema import Bundle


def _codes(schema, budget: Budget | None = None) -> list[tuple[str, str]]:
    try:
        check_patterns(schema, budget or Budget())
    except CompileError as exc:
        return [(d.code, d.pointer) for d in exc.diagnostics]
    return []


@pytest.mark.parametrize(
    "pattern, expected",
    [
        (r"^\d{3}-[a-z]+$", r"^[0-9]{3}\-[a-z]+$"),
        (r"\w", r"[0-9A-Z\x{5F}a-z]"),
        (r"[^]", r"[\x{0}-\x{10FFFF}]"),
        (r".", r"[^\x{A}\x{D}\x{2028}-\x{2029}]"),
        (r"[\ud7ff-\ue000]", r"[\x{D7FF}-\x{E000}]"),
        (r"[]", r"[^\x{0}-\x{10FFFF}]"),
        (r"[[:alpha:]]", r"[\x{3A}\x{5B}ahlp]\]"),
        (r"\u{1F600}\ud83d\ude00", "😀😀"),
        (r"\cJ\x41\0", r"\x{A}A\x{0}"),
        (r"(?<year>x)*?", "(?:x)*"),
        (r"x{", r"x\{"),
        (r"a|^b$", r"a|^b$"),
        (r"[\w\_]\_", r"[0-9A-Z\x{5F}a-z]_"),  # `\_`: Annex B identity escape, as every engine reads it
    ],
)
def test_translate(pattern: str, expected: str) -> None:
    assert translate(pattern) == expected


@pytest.mark.parametrize(
    "pattern",
    [r"(?=a)b", r"(?!a)", r"(?<=a)b", r"(?<!a)b", r"(a)\1", r"\k<x>", r"\bword", r"\B", r"\p{L}",
     r"a**", r"a{2}{3}", r"*", r"(a", r"a)", r"[a", r"\q", r"[z-a]", r"[\d-z]", "\ud800", r"\ud800",
     r"(?i:a)", r"\01"],
)
def test_unsupported(pattern: str) -> None:
    assert _codes({"pattern": pattern}) == [("unsupported-regex", "/pattern")]


@pytest.mark.parametrize("pattern", ["a{1000}{1000}", "(a{1000}){1000}", "a{1001}", "((a{10}){10}){11}"])
def test_large_counted_repetition_is_a_diagnostic(pattern: str) -> None:
    codes = _codes({"pattern": pattern})
    assert len(codes) == 1 and codes[0][0] in ("regex-too-large", "unsupported-regex")
    if pattern != "a{1000}{1000}":  # that one is an ECMA syntax error (nothing to repeat)
        assert codes[0][0] == "regex-too-large"


def test_re2_program_limit() -> None:
    with pytest.raises(PatternError) as info:
        compile_re2("(?:.{1000})" * 40)
    assert info.value.code == "regex-too-large"


def test_length_limit_and_budget() -> None:
    assert _codes({"pattern": "a" * (MAX_PATTERN_CHARS + 1)}) == [("regex-too-large", "/pattern")]
    budget = Budget(Limits(regex_chars=10))
    assert _codes({"properties": {"a": {"pattern": "abcdef"}, "b": {"pattern": "abcdef"}}}, budget)[0][0] == "budget-exhausted"
    budget = Budget()
    check_patterns({"pattern": "abc", "items": {"pattern": "abc"}}, budget)
    assert budget.used["regex_chars"] == 6


def test_linear_alternation_is_fine() -> None:
    check_patterns({"pattern": "(a|aa)*b"}, Budget())
    assert compile_re2("(a|aa)*b").search("a" * 10_000) is None


def test_pointers_everywhere() -> None:
    for body, pointer in [
        ({"properties": {"x": {"items": {"pattern": "(?=x)"}}}}, "/properties/x/items/pattern"),
        ({"patternProperties": {"a/(?!y)": True}}, "/patternProperties/a~1(?!y)"),
        ({"propertyNames": {"pattern": r"\1"}}, "/propertyNames/pattern"),
    ]:
        assert _codes(body) == [("unsupported-regex", pointer)]


def test_bundle_pointers_are_origins() -> None:
    bundle = Bundle({"$ref": "#/$defs/a"}, {"a": {"pattern": "(?=x)"}}, {"a": "/$defs/deep/a"})
    assert _codes(bundle) == [("unsupported-regex", "/$defs/deep/a/pattern")]


def test_deep_schema_is_walked_iteratively() -> None:
    node: dict = {"pattern": "(?=x)"}
    for _ in range(5000):
        node = {"items": node}
    assert _codes(node)[0][0] == "unsupported-regex"


def test_cache_is_bounded() -> None:
    assert compile_re2.cache_info().maxsize == 32
    assert translate.cache_info().maxsize == 32


def _llguidance_accepts(pattern: str, value: str) -> bool:
    import llguidance

    tokenizer = llguidance.LLTokenizer("byte")
    grammar = llguidance.LLMatcher.grammar_from_json_schema({"type": "string", "pattern": pattern})
    matcher = llguidance.LLMatcher(tokenizer, grammar)
    assert not matcher.get_error()
    for token in tokenizer.tokenize_str(json.dumps(value, ensure_ascii=False)):
        if not matcher.consume_token(token):
            return False
    return matcher.is_accepting()


PATTERNS = [r"^.$", r"^\s$", r"^\S$", r"^\d$", r"^\w$", r"^\W$", r"^[^]$", r"^[[:alpha:]]$", r"a|^b",
            r"^(a|b$)", r"^a$", r"^[^a]$", r"^\D$", r"^[a-c-]$", r"^x{2,3}$"]
VALUES = ["a", "\r", "\n", "\u2028", "\u0085", "\u00a0", "\v", "\ufeff", "٣", "é", "[", "xb", "bx", "a\n",
          "-", "xxx", "xxxx", " ", "_"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_grammar_and_validator_agree(pattern: str) -> None:
    """llguidance given translate(p) and RE2 given p accept the same strings, the ECMA ones."""
    for value in VALUES:
        expected = compile_re2(pattern).search(value) is not None
        assert _llguidance_accepts(translate(pattern), value) is expected, (pattern, value)


def test_ecma_meaning() -> None:
    assert compile_re2(r"^\s$").search("\ufeff") and not compile_re2(r"^\s$").search("\u0085")
    assert not compile_re2(r"^.$").search("\u2029") and compile_re2(r"^[^]$").search("\n")
    assert compile_re2(r"^\d$").search("٣") is None and compile_re2(r"^\D$").search("٣")
    assert compile_re2("^a$").search("a\n") is None


def test_classes_llguidance_would_mis_encode_are_refused() -> None:
    """llguidance 1.9.1 admits the escapes \\" and \\\\ for a class holding every control character."""
    import schemac

    for pattern in ('^[^"]$', "^[^\\\\]+$", "^[\\x00-\\x1f]$"):
        with pytest.raises(schemac.CompileError) as info:
            schemac.compile({"type": "string", "pattern": pattern}, use_cache=False)
        assert info.value.codes == ["unsupported-regex"]
    for pattern in ("^[^a-z]+$", "[\\s\\S]", "^.$"):
        schemac.compile({"type": "string", "pattern": pattern}, use_cache=False)
