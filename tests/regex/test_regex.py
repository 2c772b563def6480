"""Pattern front end: exact ECMA-262 translation, RE2/llguidance checks, diagnostics."""
from __future__ import annotations

import json
import re

import pytest

from schemac.budget import Budget, Limits
from schemac.diagnostics import CompileError
from schemac.regex import (
    MAX_PATTERN_CHARS, PatternError, check_patterns, compile_re2, llguidance_pattern_errors, translate,
)
from schemac.regex.engine import explicit
from schemac.schema import Bundle


def _codes(schema, budget: Budget | None = None) -> list[tuple[str, str]]:
    """The pattern diagnostics of a compile: `check_patterns`, then (as after a failed grammar
    check) llguidance's refusals."""
    try:
        check_patterns(schema, budget or Budget())
    except CompileError as exc:
        return [(d.code, d.pointer) for d in exc.diagnostics]
    return [(d.code, d.pointer) for d in llguidance_pattern_errors(schema)]


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
    [r"(?:(?=a)b)*", r"(?!a)?", r"(?:(?<=a)b)+", r"a(?=b)b(?<!a)b", r"(a)\1", r"\k<x>", r"(?:\bword)*", r"(?:\B.)?", r"\p{sc=Latin}",
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
        ({"properties": {"x": {"items": {"pattern": "(?:(?=x).)*"}}}}, "/properties/x/items/pattern"),
        ({"patternProperties": {"a/(?:(?!y).)*": True}}, "/patternProperties/a~1(?:(?!y).)*"),
        ({"propertyNames": {"pattern": r"\1"}}, "/propertyNames/pattern"),
    ]:
        assert _codes(body) == [("unsupported-regex", pointer)]


def test_bundle_pointers_are_origins() -> None:
    bundle = Bundle({"$ref": "#/$defs/a"}, {"a": {"pattern": "(?:(?=x).)*"}}, {"a": "/$defs/deep/a"})
    assert _codes(bundle) == [("unsupported-regex", "/$defs/deep/a/pattern")]


def test_deep_schema_is_walked_iteratively() -> None:
    node: dict = {"pattern": "(?:(?=x).)*"}
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


# ---- llguidance 1.9.1's escape bug: classes holding every control character --------------
#
# llguidance JSON-quotes a byte set holding all of U+0000-U+001F (or all but U+000A) with a
# shortcut that admits the escapes \" and \\ whatever the set holds, and it merges the
# single-character alternatives of an alternation into one byte set first. `translate` splits such
# classes (see schemac/regex/guard.py) and refuses, for user and lowering patterns, what it cannot split.

#: JSON string bodies (between the quotes) built from these pieces, alone and in pairs
_PIECES = ["a", "x", "/", "\x7f", "é", '"', "\\", '\\"', "\\\\", "\\/", "\\n", "\\b", "\\u0000", "\\u000A",
           "\\u001f", "\\u0022", "\\u005C", "\\u0061", "\x00", "\n", "\\x"]
#: the spellings llguidance's string grammar uses (no \/, no \u escape of a printable character,
#: never a raw DEL)
_CANONICAL = re.compile(r'(?:[^"\\\x00-\x1f\x7f]|\\["\\bfnrt]|\\u00[01][0-9a-fA-F])*', re.S)


def _bodies() -> list[str]:
    """Every character U+0000-U+00FF and a few beyond, in every JSON spelling; then pairs of pieces."""
    out = [""]
    for c in [chr(i) for i in range(0x100)] + ["\u2028", "\ufeff", "\u4e2d", "\U0001f600"]:
        spellings = {c, json.dumps(c)[1:-1], json.dumps(c, ensure_ascii=False)[1:-1]}
        if ord(c) < 0x10000:
            spellings |= {f"\\u{ord(c):04x}", f"\\u{ord(c):04X}"}
        out += sorted(spellings)
    out += ["\\/", "\\b", "\\f", "\\n", "\\r", "\\t"]
    out += [a + b for a in _PIECES for b in _PIECES]
    return out


def _grammar_disagreements(translated: str, ecma: str, bodies: list[str]) -> list[tuple[str, bool]]:
    """(JSON text, accepted) wherever llguidance given `translated` disagrees with RE2 given `ecma`
    on the decoded string: an accepted text that is not JSON or whose string fails the pattern,
    or a rejected canonical spelling of a string that matches."""
    import llguidance

    from testkit.grammar_harness import _tokenizer
    from schemac.emit import SYNTAX_POLICY

    grammar = llguidance.LLMatcher.grammar_from_json_schema(
        json.dumps({"type": "string", "pattern": translated}), overrides=SYNTAX_POLICY)
    matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    assert not matcher.is_error(), matcher.get_error()
    regex = compile_re2(ecma)
    out = []
    for body in bodies:
        text = '"' + body + '"'
        tokens = list(text.encode())
        done = matcher.try_consume_tokens(tokens)
        got = done == len(tokens) and matcher.is_accepting()
        matcher.rollback(done)
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        valid = isinstance(value, str) and regex.search(value) is not None
        if got != valid and (got or _CANONICAL.fullmatch(body)):
            out.append((text, got))
    return out


def test_llguidance_escape_bug_is_still_there() -> None:
    """The bug being worked around (if this fails, llguidance fixed it: the split can go)."""
    bad = _grammar_disagreements(r"^[^\x{22}]$", '^[^"]$', ['\\"', "a"])
    assert bad == [('"\\""', True)]


SPLIT_PATTERNS = [
    '^[^"]*$', '^[^"]+$', '^[^"]?$', '^[^"]{0,3}$', '^[^"]{1,3}$', '^[^"]{1,2}$', "^[^\\\\]+$", '^[^"\\\\]*$',
    '^[^\\n"]+$', "^[\\x00-\\x1f]*$", '[^"]', '^[^"]', 'x[^"]+', '^[^"]x$', '^(?:\\\\.|[^"\\\\])*$',
    '^(a|[^"])x$', '^(?:[^"]+|")$', '^a|[^"]+$', '^(?:[^"]?)+$',
    '^[a-zA-Z]+://[^ "]+$', "^[A-Za-z0-9_][^<>*#.%&:\\\\+?/]*$",  # from MaskBench
    # alternations whose whole-branch classes derivre merges into a set holding `"` and `\`: kept
    '^(?:[^"]|")*$', "^(?:|(?:[\\u{0}-\\u{31}]|[\\u{33}-\\u{10FFFF}])[\\s\\S]*|2)$",
]


@pytest.mark.parametrize("pattern", SPLIT_PATTERNS)
def test_split_classes_are_exact(pattern: str) -> None:
    """The split spelling makes llguidance accept exactly the strings the pattern matches: every
    character up to U+00FF in every spelling, and all pairs of a few tricky pieces."""
    assert _grammar_disagreements(translate(pattern), pattern, _bodies()) == []
    check_patterns({"pattern": pattern}, Budget())  # and no longer refused


def test_split_spelling() -> None:
    c1, c2 = r"[\x{0}-\x{F}]", r"[\x{10}-\x{21}\x{23}-\x{10FFFF}]"
    assert translate('^[^"]*$') == f"^(?:(?:{c1}*{c2})*{c1}*)$"
    assert translate('^[^"]+$') == f"^(?:(?:{c1}*{c2})+{c1}*|{c1}+)$"
    assert translate('^[^"]?$') == f"^(?:{c1}?|{c2})$"
    assert translate('^[^"]x$') == f"^(?:{c1}x$|{c2}x$)"  # `C S` with S kept in both branches
    assert translate('[^"]') == f"(?:{c1}[\\x{{0}}-\\x{{10FFFF}}]*|{c2}[\\x{{0}}-\\x{{10FFFF}}]*)"
    assert translate("^[^a]*$") == "^[^a]*$"  # nothing to split


#: positions no split can fix, and alternations that llguidance merges into one such class
UNSAFE_PATTERNS = ['^[^"]$', '[^"]$', '^[^"]{2,4}$', '^(?:x[^"])*$', "^[^\\\\]{2}$", '^[^\\n"]$',
                   "^(?:[\\x00-\\x0f]|[\\x10-\\x1f])$", '^(?:x[\\x00-\\x0f]|x[\\x10-\\x1f]|y"|z\\\\)$',
                   '^(?:(?:[\\x00-\\x0f]|")|[\\x10-\\x1f])$']


@pytest.mark.parametrize("pattern", UNSAFE_PATTERNS)
def test_unsplittable_positions_are_refused(pattern: str) -> None:
    """What cannot be split is refused, and rightly: llguidance would accept an invalid string."""
    import schemac

    with pytest.raises(schemac.CompileError) as info:
        schemac.compile({"type": "string", "pattern": pattern}, use_cache=False)
    assert info.value.codes == ["unsupported-regex"]
    assert "control character" in str(info.value)
    with pytest.raises(PatternError):
        translate(pattern)  # what emit gives llguidance: lowering's patterns are guarded too
    bodies = ['\\"', "\\\\", 'x\\"', 'z\\"', 'y\\\\', 'x\\\\', 'a\\"', 'a\\\\', '\\"\\"', '\\\\\\\\', '\\"a', "\\\\a", 'a\\"a']
    assert any(got for _, got in _grammar_disagreements(explicit(pattern)[0], pattern, bodies))


def test_compiled_split_pattern_end_to_end() -> None:
    import schemac
    from testkit.grammar_harness import accepts

    art = schemac.compile({"type": "string", "pattern": "^[^\\\\]+$"}, use_cache=False)
    assert accepts(art.grammar, '"a\\n\\""') and not accepts(art.grammar, '"a\\\\"')
    for pattern in ("^[^a-z]+$", "[\\s\\S]", "^.$"):
        schemac.compile({"type": "string", "pattern": pattern}, use_cache=False)


def test_lowered_patterns_are_guarded_too() -> None:
    """negation writes "some character other than LF and `"`" as an alternation of classes that
    derivre merges into a set llguidance mis-quotes; the grammar once accepted the string `"`."""
    import schemac
    from testkit.grammar_harness import accepts

    for excluded, quoted in (('"', '"\\""'), ("\\\\", '"\\\\"')):  # the class, then the JSON text
        try:
            art = schemac.compile({"type": "string", "not": {"pattern": f"^[\\n{excluded}]*$"}}, use_cache=False)
        except schemac.CompileError as exc:
            assert set(exc.codes) <= {"not-exact", "unsupported-regex"}
            continue
        assert not accepts(art.grammar, quoted) and not accepts(art.grammar, '"\\n"')
        assert accepts(art.grammar, '"a"') and accepts(art.grammar, '"\\na"')


def test_llguidance_refusal_is_located_after_the_grammar_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern llguidance's engine refuses fails emit's grammar check; the diagnostic then
    names the pattern's pointer, not the whole grammar (patterns are not checked one by one
    beforehand). The refusal is simulated: no ECMA pattern that RE2 takes is known to fail."""
    import schemac
    import schemac.regex
    import schemac.regex.check

    real = schemac.regex.translate
    fake = lambda p: "(" if p == "^b+$" else real(p)  # noqa: E731
    monkeypatch.setattr(schemac.regex, "translate", fake)  # what emit gives llguidance
    monkeypatch.setattr(schemac.regex.check, "translate", fake)  # what the locator re-checks
    schema = {"type": "object", "properties": {"x": {"type": "string", "pattern": "^b+$"},
                                               "y": {"type": "string", "pattern": "^a+$"}}}
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, use_cache=False)
    assert [(d.code, d.pointer) for d in info.value.diagnostics] == [("unsupported-regex", "/properties/x/pattern")]
    spent = Budget(Limits(steps=0))
    assert [d.pointer for d in llguidance_pattern_errors(schema)] == ["/properties/x/pattern"]
    assert llguidance_pattern_errors(schema, spent) == []  # no steps left to pay for llguidance checks


# ---- the one semantics, checked exhaustively against an independent ECMA-262 engine ---------

from testkit.ecma_oracle import ALPHABET, CATALOGUE, SHORT_ALPHABET, node_available, node_verdicts, strings  # noqa: E402

needs_node = pytest.mark.skipif(not node_available(), reason="node (the independent ECMA-262 oracle) is not installed")


@needs_node
@pytest.mark.parametrize("alphabet, max_len", [(ALPHABET, 2), (SHORT_ALPHABET, 3)], ids=["len2", "len3"])
def test_ecma_search_agrees_with_node(alphabet: list[str], max_len: int) -> None:
    """`ecma_search` (RE2 on the translation) answers as node's `RegExp(p, "u").test` does, for
    every catalogue pattern and every string up to `max_len` over the tricky alphabet."""
    from schemac.regex import ecma_search

    words = strings(alphabet, max_len)
    verdicts = node_verdicts(CATALOGUE, alphabet, max_len)
    wrong = []
    for pattern in CATALOGUE:
        expected = verdicts[pattern]
        assert expected is not None, f"not a valid u-flag pattern: {pattern!r}"
        wrong += [(pattern, w) for w, e in zip(words, expected) if ecma_search(pattern, w) is not e]
    assert wrong == []


def test_ecma_search_contract() -> None:
    from schemac.regex import ecma_search

    assert ecma_search("b", "abc") and not ecma_search("^b", "abc")  # a search, not a full match
    assert not ecma_search("[^]", "\ud800")  # a lone surrogate matches nothing
    assert ecma_search("(?=a)", "a") and not ecma_search("a(?!b)", "ab")  # assertions: `regex.assertions`
    with pytest.raises(PatternError):
        ecma_search("(?:(?=a).)*", "a")  # an assertion under a quantifier
    with pytest.raises(PatternError):
        ecma_search("(?:.{1000})" * 40, "a")  # past RE2's program limit
