"""`not: {pattern: p}`: the `NOT_PATTERN` marker, walked exhaustively against node's ECMA-262.

Every string over a small alphabet (a quote, a backslash, a newline, a control character written
`\\u001f`, `é` and an astral character among plain ones) up to three characters is offered to the
compiled grammar in its canonical spelling (`json.dumps(s, ensure_ascii=False)`, the syntax
policy); the grammar must accept exactly the strings node's `RegExp(p, "u")` does not match (and
that satisfy the node's other keywords). With the marker forced for every pattern, the other
spellings of each value (`\\u0061`, `\\u001F`, an escaped surrogate pair, ...) must be refused too.
Then the schemas the marker exists for compile end to end, `schemac.verify` finds nothing unsound,
and every reader of a lowered node (the final validator in passes and in the writer) honours it.
"""
from __future__ import annotations

import math
import json
from typing import Any, Callable

import pytest

import schemac
from testkit.ecma_oracle import node_available, node_verdicts, strings
from testkit.grammar_harness import _tokenizer, accepts, text_of
from schemac.diagnostics import CompileError
from schemac.lower.negation import strings as negation_strings
from schemac.lower.support.marks import NOT_MULTIPLE, NOT_PATTERN
from schemac.lower.support.scalar_marks import lowered_validator, standard, stripped
from schemac.validate.final import FinalValidator

pytestmark = pytest.mark.skipif(not node_available(), reason="node (the independent ECMA-262 oracle) is not installed")

ALPHABET = ["a", "b", "x", "-", "1", " ", '"', "\\", "\n", "\x1f", "é", "\U0001f600"]
MAX_LEN = 3
#: anchored and unanchored literals, classes, `.`, alternation, quantifiers, and patterns about
#: quotes, backslashes, control characters, non-ASCII and astral characters (all valid with "u")
CATALOGUE = [
    "", "^", "$", "^$", "a", "^a", "a$", "^a$", "ab", "^ab", "b$", "^ab$", "x-", "^x-", "maker", "a+b", "^a+$",
    "a|b", "^(?:a|b)$", "^a|b$", "(?:ab|x)-", "a{2}", "^a{1,2}$", "^.{2}$", "^a?b?$", "[ab]", "[^ab]", "^[^a]*$",
    "^[a-z]+$", ".", "^.$", "^..$", "\\d", "^\\d+$", "\\D", "\\s", "\\S", "^\\S+$", "\\w", "^\\w*$", "\\W",
    '"', '^"', '"$', '[^"]', '^[^"\\\\]*$', "\\\\", "^\\\\", "\\\\$", '\\\\"', "\\n", "^\\s*$", "[\\x00-\\x1f]",
    "\\u001f", "\\x1F", "é", "^é", "\\u00e9", "[\\u00a0-\\u00ff]", "\U0001f600", "^\U0001f600", "\\u{1F600}",
    "[\U0001f600a]", "^.*\U0001f600$", "-$", "^-", "[-]", "(?:^|-)a", "a(?:-|$)", "\\s$|^\\s", "^[^\\n]*$",
]
#: patterns the variants below use beside the negated one
EXTRA = ["a|x", "1"]


@pytest.fixture(scope="module")
def verdicts() -> dict[str, list[bool] | None]:
    return node_verdicts(CATALOGUE + EXTRA, ALPHABET, MAX_LEN)


WORDS = strings(ALPHABET, MAX_LEN)

#: (name, schema for the negated pattern p, what the node's other keywords require)
VARIANTS: list[tuple[str, Callable[[str], dict[str, Any]], Callable[[str, Callable[[str], bool]], bool]]] = [
    ("plain", lambda p: {"type": "string", "not": {"pattern": p}}, lambda s, m: True),
    ("lengths", lambda p: {"type": "string", "minLength": 1, "maxLength": 2, "not": {"pattern": p}},
     lambda s, m: 1 <= len(s) <= 2),
    ("pattern", lambda p: {"type": "string", "pattern": "a|x", "not": {"pattern": p}}, lambda s, m: m("a|x")),
    ("two", lambda p: {"type": "string", "not": {"anyOf": [{"pattern": p}, {"pattern": "1"}]}}, lambda s, m: not m("1")),
]


def _other_spellings(s: str) -> list[str]:
    """Spellings of `s` other than the canonical one: one character written as a `\\u` escape
    (both hex cases, a surrogate pair for an astral character), a `\\/` never being needed."""
    out = set()
    canonical = json.dumps(s, ensure_ascii=False)
    for i, c in enumerate(s):
        cp = ord(c)
        if cp > 0xFFFF:
            hi, lo = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
            escapes = [f"\\u{hi:04x}\\u{lo:04x}", f"\\u{hi:04X}\\u{lo:04X}"]
        else:
            escapes = [f"\\u{cp:04x}", f"\\u{cp:04X}"]
        for e in escapes:
            text = '"' + json.dumps(s[:i], ensure_ascii=False)[1:-1] + e + json.dumps(s[i + 1:], ensure_ascii=False)[1:-1] + '"'
            if text != canonical:
                out.add(text)
    return sorted(out)


def _walk(grammar: str, expected: Callable[[str], bool], strict: bool) -> list[tuple[str, bool]]:
    """(text, accepted) wherever the grammar disagrees with `expected` on a canonical spelling,
    or (with `strict`) accepts another spelling of a string of at most two characters."""
    import llguidance

    matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    assert not matcher.is_error(), matcher.get_error()

    def accepted(text: str) -> bool:
        tokens = list(text.encode("utf-8"))
        done = matcher.try_consume_tokens(tokens)
        got = done == len(tokens) and matcher.is_accepting()
        matcher.rollback(done)
        return bool(got)

    wrong = []
    for s in WORDS:
        text = json.dumps(s, ensure_ascii=False)
        if accepted(text) != expected(s):
            wrong.append((text, not expected(s)))
        if strict and len(s) <= 2:
            wrong.extend((other, True) for other in _other_spellings(s) if accepted(other))
    return wrong


def _walked_exact(schema: dict[str, Any], expected: Callable[[str], bool], strict: bool) -> None:
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError as exc:  # e.g. `^` negated: no string is left
        assert exc.codes == ["unsatisfiable"] and not any(expected(s) for s in WORDS), (schema, exc)
        return
    # the marker, unless the negation was vacuous in its context (`^$` beside minLength 1): then
    # the JSON form (and its documented other spellings, tests/regex/test_strings_exact.py) stays
    vacuous = art.lowered == {k: v for k, v in schema.items() if k != "not"}
    if strict:
        assert vacuous or NOT_PATTERN in json.dumps(art.lowered), art.lowered
    assert _walk(art.grammar, expected, strict and not vacuous) == [], schema


def _matcher(verdicts: dict[str, list[bool] | None], index: dict[str, int]) -> Callable[[str], Callable[[str], bool]]:
    def of(s: str) -> Callable[[str], bool]:
        def m(p: str) -> bool:
            answers = verdicts[p]
            assert answers is not None, f"node refuses {p!r} under the u flag"
            return answers[index[s]]
        return m
    return of


@pytest.mark.parametrize("name,build,other", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_marker_is_exact(name: str, build: Callable, other: Callable, verdicts: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pattern through the marker (the JSON forms switched off): canonical spellings of
    exactly the strings p does not match (and the other keywords accept); no other spelling."""
    monkeypatch.setattr(negation_strings, "_simple_not_pattern", lambda pattern, ctx: None)
    of = _matcher(verdicts, {s: i for i, s in enumerate(WORDS)})
    for p in CATALOGUE:
        _walked_exact(build(p), lambda s, p=p: not of(s)(p) and other(s, of(s)), strict=True)


@pytest.mark.parametrize("name,build,other", VARIANTS[:2], ids=[v[0] for v in VARIANTS[:2]])
def test_chosen_form_is_exact(name: str, build: Callable, other: Callable, verdicts: dict) -> None:
    """As compiled (a JSON-form regex where one is exact, else the marker): canonical spellings
    of exactly the strings p does not match. (Other spellings are the JSON form's documented
    deviations, tests/regex/test_strings_exact.py.)"""
    of = _matcher(verdicts, {s: i for i, s in enumerate(WORDS)})
    for p in CATALOGUE:
        _walked_exact(build(p), lambda s, p=p: not of(s)(p) and other(s, of(s)), strict=False)


# ---- end to end ----------------------------------------------------------------------------

MARKED = [
    {"oneOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"type": "string", "pattern": "maker"}]},
    {"type": "string", "not": {"pattern": "a+b"}},
    {"not": {"pattern": '"'}},
    {"type": ["string", "null"], "not": {"pattern": "\\d"}},
    {"type": "array", "items": {"type": "string", "not": {"pattern": "a|b"}}, "maxItems": 2},
    {"oneOf": [{"not": {"pattern": "a+b"}}, {"type": "string", "pattern": "b"}]},
    {"type": "string", "allOf": [{"not": {"pattern": "a\\d"}}, {"not": {"pattern": "^x-"}}, {"maxLength": 3}]},
]


@pytest.mark.parametrize("schema", MARKED)
def test_verify_finds_nothing_unsound(schema: dict) -> None:
    art = schemac.compile(schema, use_cache=False)
    assert NOT_PATTERN in json.dumps(art.lowered)
    report = schemac.verify(schema, depth=3, time_s=math.inf)
    assert report.status == "verified" and report.unsound_count == 0, report.counterexamples[:3]


def test_one_of_example() -> None:
    schema = MARKED[0]
    art, oracle = schemac.compile(schema, use_cache=False), FinalValidator(schema)
    for s in ["maker", "abc", "xmakerx", "1maker", "Maker", "", "makers", "a b", 3]:
        assert accepts(art.grammar, text_of(s)) == oracle.is_valid(s), s
    assert not accepts(art.grammar, '"maker"') and accepts(art.grammar, '"1maker"')


def test_inside_objects_and_beside_other_types() -> None:
    schema = {"type": "object", "properties": {"k": {"type": ["string", "integer"], "not": {"pattern": "^x-"}}},
              "required": ["k"]}
    art, oracle = schemac.compile(schema, use_cache=False), FinalValidator(schema)
    for k in ["x-a", "x", "ax-", "", 1, None, "x-"]:
        value = {"k": k}
        assert accepts(art.grammar, text_of(value)) == oracle.is_valid(value), value


def test_listed_values_beside_a_marker_are_filtered() -> None:
    """`enum` meeting a marker in the writer (`_listed`): the validator must see the marker."""
    schema = {"anyOf": [{"enum": ["ab", "b", "aab"]}, {"type": "integer"}], "allOf": [{"not": {"pattern": "a+b"}}]}
    art = schemac.compile(schema, use_cache=False)
    assert NOT_PATTERN in json.dumps(art.lowered)
    for value, ok in [("ab", False), ("aab", False), ("b", True), (1, False), ("c", False)]:
        assert accepts(art.grammar, text_of(value)) == ok, value


def test_one_of_enumeration_honours_markers() -> None:
    """`one_of` counts, with the validator, which (lowered) branches accept each value of a
    referenced enum: the branch holding the marker must not accept "ab"."""
    from schemac.budget import Budget
    from schemac.diagnostics import DiagnosticSink
    from schemac.lower import lower_bundle
    from schemac.schema import Bundle

    defs = {"e": {"enum": ["ab", "b", "c", 1]}}
    root = {"allOf": [{"$ref": "#/$defs/e"}], "oneOf": [{"not": {"pattern": "a+b"}}, {"pattern": "b"}]}
    lowered = lower_bundle(Bundle(root, defs), Budget(), DiagnosticSink())
    oracle = FinalValidator({**root, "$defs": defs})
    assert lowered["allOf"][-1] == {"enum": [v for v in defs["e"]["enum"] if oracle.is_valid(v)]} == {"enum": ["ab", "c", 1]}


def test_negated_marker_is_some_pattern() -> None:
    """A lowered branch holding the marker, negated again (oneOf): "some pattern matches"."""
    schema = {"oneOf": [{"not": {"anyOf": [{"pattern": "a+b"}, {"pattern": "^x"}]}}, {"minLength": 2}]}
    art, oracle = schemac.compile(schema, use_cache=False), FinalValidator(schema)
    for s in ["", "a", "ab", "x", "xa", "ba", "cc", "aab", 1, None]:
        assert accepts(art.grammar, text_of(s)) == oracle.is_valid(s), s


def test_an_emptied_terminal_accepts_nothing() -> None:
    """`^a$` minus `a` leaves no string: the node is pruned like any unsatisfiable one, never
    written as a terminal that would strand generation after `{"k": `."""
    empty = {"type": "string", "pattern": "^a$", "not": {"pattern": "a+b|a"}}
    with pytest.raises(CompileError) as info:
        schemac.compile({"type": "object", "properties": {"k": empty}, "required": ["k"]}, use_cache=False)
    assert info.value.codes == ["unsatisfiable"]
    schema = {"type": "object", "properties": {"k": {"anyOf": [empty, {"type": "integer"}]}}, "required": ["k"]}
    art = schemac.compile(schema, use_cache=False)
    assert accepts(art.grammar, '{"k": 1}') and not accepts(art.grammar, '{"k": "a"}')
    report = schemac.verify(schema, depth=3, time_s=math.inf)
    assert report.unsound_count == 0 and report.dead_ends == []


def test_tool_envelopes_enforce_the_marker() -> None:
    """Tool envelopes write arguments with emit's Lark writer (issue 29), so a negated pattern is
    enforced in a call exactly as in an answer, inline or in a definition."""
    import schemac.tools as tools
    from testkit.tools_cases import chat, chat_tool, dsml, hermes

    negated = {"type": "string", "not": {"pattern": "a+b"}}
    inline = {"type": "object", "properties": {"s": negated}, "required": ["s"]}
    in_defs = {"type": "object", "$defs": {"s": negated}, "properties": {"s": {"$ref": "#/$defs/s"}}, "required": ["s"]}
    for params in (inline, in_defs):
        tg = tools.build(chat(tools=[chat_tool("f", params)], tool_choice="required"), api="chat", parser="hermes")
        for s, valid in (("xab", False), ("b", True), ("ac", True), ("aab", False)):
            assert accepts(tg.grammar, hermes(("f", {"s": s}))) is valid, (params, s)
        tg = tools.build(chat(tools=[chat_tool("f", params)], tool_choice="required"), api="chat", parser="dsml")
        for s, valid in (("xab", False), ("ac", True)):
            assert accepts(tg.grammar, dsml(("f", [("s", s, False)]))) is valid, (params, s)


def test_format_beside_the_marker() -> None:
    """A format is its patterns by the time the writer meets it: intersected with the terminal."""
    schema = {"type": "string", "format": "ipv4", "not": {"pattern": "1+0"}}
    art, oracle = schemac.compile(schema, use_cache=False), FinalValidator(schema)
    assert NOT_PATTERN in json.dumps(art.lowered)
    for s in ["1.2.3.4", "10.0.0.1", "110.0.0.1", "1.0.0.1", "0.0.0.0", "01.0.0.1", "1.2.3", "a"]:
        assert accepts(art.grammar, text_of(s)) == oracle.is_valid(s), s


def test_untranslatable_pattern_keeps_its_rejection() -> None:
    with pytest.raises(CompileError) as info:
        schemac.compile({"type": "string", "not": {"pattern": "(?:^a$)*b"}}, use_cache=False)
    assert info.value.codes == ["not-exact"] and "anchors of both kinds inside a repeated group" in (info.value.diagnostics[0].hint or "")


def test_a_users_marker_is_an_annotation() -> None:
    """In a user's schema `x-schemac-not-pattern` is an unknown keyword: it constrains nothing."""
    art = schemac.compile({"type": "string", NOT_PATTERN: ["a"], "properties": {"p": {NOT_PATTERN: ["b"]}}}, use_cache=False)
    assert NOT_PATTERN not in json.dumps(art.lowered)
    assert accepts(art.grammar, '"a"') and accepts(art.grammar, '"b"')


def test_standard_spells_markers_with_standard_keywords() -> None:
    node = {"type": "object", "properties": {"s": {"type": "string", NOT_PATTERN: ["^a", "b$"]},
                                             "n": {"$ref": "#/$defs/n"}},
            "$defs": {"n": {"type": "number", NOT_MULTIPLE: [1, 3]}}}
    check = lowered_validator(node)
    for value, ok in [({"s": "ca"}, True), ({"s": "ab"}, False), ({"s": "cb"}, False), ({"n": 0.5}, True),
                      ({"n": 2}, False), ({"n": 6.0}, False), ({"s": 1}, False), ({}, True)]:
        assert check.is_valid(value) == ok, value
    assert not FinalValidator(node).is_valid({"s": 1}) and FinalValidator(node).is_valid({"s": "ab"})  # blind
    plain = {"type": "string", "minLength": 1}
    assert standard(plain) is plain and stripped(plain) is plain  # nothing copied without markers
    assert stripped(node) == {"type": "object", "properties": {"s": {"type": "string"}, "n": {"$ref": "#/$defs/n"}},
                              "$defs": {"n": {"type": "number"}}}


def test_other_spellings_cover_every_kind() -> None:
    """The non-canonical texts the strict walk tries are really other spellings of the value."""
    for s in ["a", '"', "\\", "\n", "\x1f", "é", "\U0001f600", "a\x1f"]:
        others = _other_spellings(s)
        assert others and all(json.loads(t) == s and t != json.dumps(s, ensure_ascii=False) for t in others), s
    assert '"\\ud83d\\ude00"' in _other_spellings("\U0001f600") and '"\\u001F"' in _other_spellings("\x1f")


def test_lexer_limits_are_probed_at_compile_time() -> None:
    """llguidance builds its lexer lazily: five overlapping substring patterns under oneOf load
    and pass the grammar check, then give up ("too many expressions constructed") on the value
    `"customer"`, failing the request mid-answer. The compile probes the negated terminals
    together, computing the mask before every byte of their literal parts and of a few generic
    openings (`"a1a.`: four patterns give up there), and refuses instead; three compile and work."""
    names = ["customer", "maker", "operator", "admin", "designer"]
    for k in (5, 4):
        with pytest.raises(CompileError) as exc:
            schemac.compile({"type": "string", "oneOf": [{"pattern": p} for p in names[:k]]}, use_cache=False)
        assert exc.value.codes == ["grammar-error"] and "lexer" in exc.value.diagnostics[0].message
    grammar = schemac.compile({"type": "string", "oneOf": [{"pattern": p} for p in names[:3]]}, use_cache=False).grammar
    assert all(accepts(grammar, json.dumps(p)) for p in names[:3])
    assert not accepts(grammar, json.dumps("customermaker"))
