"""Word-limit patterns: `schemac.regex.rewrite`'s rotation and run rewrites, exact and lexable.

`^(?:\\S+\\s+){0,99}\\S+$` with a `maxLength` made llguidance refuse valid answers after a few
words, and `^\\s*(?:\\S+\\s*){1,50}$` with one was a `grammar-error` (see `schemac.regex.rewrite`).
Every rewritten pattern is checked against node's `RegExp(p, "u")` on every short string over
alphabets that hit both classes and their boundaries, through RE2 (`ecma_search`), llguidance's
JSON string lexeme (`schemac.compile`) and schemac's Lark string terminal; and long answers at
large bounds go through both grammars.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from testkit.ecma_oracle import node_available, node_verdicts, strings
from testkit.grammar_harness import _tokenizer
from schemac.regex import ecma_search, translate
from schemac.regex.strings import json_string_terminal

needs_node = pytest.mark.skipif(not node_available(), reason="node (the independent ECMA-262 oracle) is not installed")

#: (pattern, its translation): rotated where the shape allows, untouched where it does not
REWRITES = [
    (r"^(?:\S+\s+){0,2}\S+$", r"^\S+(?:\s+\S+){0,2}$"),
    (r"^(\w+\W+){0,49}\w+\W*$", r"^\w+(\W+\w+){0,49}\W*$"),
    (r"^$|(^(?:\S+\s+){0,9}\S+$)", r"^$|(^\S+(?:\s+\S+){0,9}$)"),
    (r"^(?:\d{1,5}\.){0,3}\d{1,5}$", r"^\d{1,5}(?:\.\d{1,5}){0,3}$"),
    (r"(ab){2}abab", r"a(ba){2}bab"),  # P: the longest whole-item proper prefix (Q never empty)
    (r"((ab){1,2}a){3}ab", r"a((ba){1,2}a){3}b"),  # inner group first, then the outer one
    (r"(?:\S+\s+)*\S+", r"\S+(?:\s+\S+)*"),
    (r"(a|b){2}a", r"(a|b){2}a"),  # two alternatives: no single body to rotate
    (r"(ab){2}a+", r"(ab){2}a+"),  # the trailing `a` is quantified: not the item `a`
    (r"(a+b){2}a", r"(a+b){2}a"),  # `a` is not the item `a+`
    (r"(ab){2}", r"(ab){2}"),
    (r"(?:^a ){0,2}^a", r"(?:^a ){0,2}^a"),  # an anchor in the body: left where llguidance reads it
    (r"^\s*(?:\S+\s*){1,50}$", r"^\s*\S+(?:\s+\S+){0,49}\s*$"),  # runs
    (r"(?:\s*\S+){2}", r"(?:\s*\S+){2}"),  # runs: m = 2 would also need two A characters
    (r"(a+b*)*", r"(?:a+(?:b+a+)*b*)?"),
    (r"(b*a+){1,3}", r"b*a+(?:b+a+){0,2}"),
    (r"(a+[ab]*){1,3}", r"a+(?:[a-b]+a+){0,2}[a-b]*"),  # runs: exact for overlapping A and B too
    (r"(a+(?:b)*){1,3}", r"(a+(?:b)*){1,3}"),  # runs: B is a group, not an atom
    (r"(a+b*){1}", r"(a+b*){1}"),  # runs: n = 1, nothing to gain
]


_CLASS = {esc: translate(esc) for esc in (r"\S", r"\s", r"\w", r"\W", r"\d")}


def _spelt(pattern: str) -> str:
    """`pattern` with its class escapes spelt as `translate` spells them."""
    for escape, spelt in _CLASS.items():
        pattern = pattern.replace(escape, spelt)
    return pattern


@pytest.mark.parametrize("pattern, expected", REWRITES)
def test_rewrite(pattern: str, expected: str) -> None:
    assert translate(pattern) == _spelt(expected)


#: the word-limit family at small bounds, plus shapes that stress the rewrite's conditions
FAMILY = [p for n in range(4) for p in (
    rf"^(?:\S+\s+){{0,{n}}}\S+$", rf"^(\w+\W+){{0,{n}}}\w+$", rf"^$|(^(?:\S+\s+){{0,{n}}}\S+$)",
    rf"^(?:\S+\s+){{{n}}}\S+$", rf"(?:\w+\W+){{{n},}}\w+", rf"^(?:\S+\s*){{0,{n}}}$",
    rf"^\s*(?:\S+\s*){{1,{n + 1}}}$", rf"^(?:\s*\w+){{0,{n}}}\W*$", rf"(?:a+ *){{{min(n, 1)},{n}}}-",
)] + [
    r"^(?:\S+\s*)*$", r"^(?:[a ]+ *){1,2}$", r"^(?:[a-]+[ -]*){1,2}$", r"^(?:[ -]*[a-]+){0,3}-$",
    r"^(?:a\s+){0,2}a+$", r"^(?:a+\s+){0,2}a$", r"^(?:\s*\S+){2,3}$", r"^(?:\S+\s*){1,}$",
    r"^(?:\S+\s+){1,3}\S+$", r"^(\w+\W+){0,2}\w+\W*$", r"^(?:\S+\s+){0,2}\S+\s+\S+$", r"^(?:\S+\s+)?\S+$",
    r"^(?:\S+\s+)*\S+$", r"(?:^\S+\s+){0,2}^\S+", r"^(?:(?:ab|a)\s+){0,2}(?:ab|a)$", r"^(?:a+[a ]+){0,2}a+$",
    r"^(?:\d{1,2}\.){0,2}\d{1,2}$", r"^((ab){1,2}a){2}ab$", r"(?:\S\s){1,2}\S$", r"^(?:.\s){0,2}.$",
]
#: every class boundary the family has (\s/\S, \w/\W, `.`, \d), at length 4
WIDE = ["a", "b", "_", "0", ".", " ", "\u00a0", "-", "\n"]
#: enough length for every word count the family allows (three repetitions: seven characters)
DEEP = ["a", " ", "-"]


@needs_node
@pytest.mark.parametrize("alphabet, depth", [(WIDE, 4), (DEEP, 8)], ids=["wide", "deep"])
def test_family_agrees_with_node_on_re2(alphabet: list[str], depth: int) -> None:
    words = strings(alphabet, depth)
    verdicts = node_verdicts(FAMILY, alphabet, depth)
    for pattern in FAMILY:
        node = verdicts[pattern]
        assert node is not None, pattern
        wrong = [w for w, expected in zip(words, node) if ecma_search(pattern, w) != expected]
        assert wrong == [], (pattern, wrong[:5])


def _walk(grammar: str, values: list[str], verdicts: list[bool]) -> list[str]:
    """The values whose canonical JSON text `grammar` accepts when invalid or refuses when valid."""
    import llguidance

    matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    assert not matcher.is_error(), matcher.get_error()
    wrong = []
    for value, valid in zip(values, verdicts):
        tokens = list(json.dumps(value, ensure_ascii=False).encode())
        done = matcher.try_consume_tokens(tokens)
        got = done == len(tokens) and matcher.is_accepting()
        matcher.rollback(done)
        if got != valid:
            wrong.append(value)
    return wrong


def _json_path(schema: dict[str, Any]) -> str:
    import schemac

    return schemac.compile(schema, use_cache=False).grammar


def _lark(pattern: str, max_length: int | None = None) -> str:
    return "%llguidance {}\nstart: S\nS: " + json_string_terminal(pattern, max_length=max_length) + "\n"


#: the family members both grammars are walked for (each walk is thousands of matcher steps)
WALKED = [r"^(?:\S+\s+){0,3}\S+$", r"^(\w+\W+){0,2}\w+$", r"^$|(^(?:\S+\s+){0,1}\S+$)", r"^(?:\S+\s+){0,2}\S+\s+\S+$",
          r"^(?:a+[a ]+){0,2}a+$", r"^(?:(?:ab|a)\s+){0,2}(?:ab|a)$", r"^\s*(?:\S+\s*){1,3}$",
          r"^(?:\s*\w+){0,2}\W*$", r"^(?:[a-]+[ -]*){1,2}$"]


@needs_node
@pytest.mark.parametrize("pattern", WALKED)
def test_family_grammars_agree_with_node(pattern: str) -> None:
    """Both grammars, every string over `DEEP` up to 7 characters (length bound 6 as well)."""
    words = strings(DEEP, 7)
    node = node_verdicts([pattern], DEEP, 7)[pattern]
    assert node is not None
    assert _walk(_json_path({"type": "string", "pattern": pattern}), words, node) == []
    assert _walk(_lark(pattern), words, node) == []
    bounded = [v and len(w) <= 6 for w, v in zip(words, node)]
    assert _walk(_json_path({"type": "string", "pattern": pattern, "maxLength": 6}), words, bounded) == []
    assert _walk(_lark(pattern, 6), words, bounded) == []


def _answer(words: int, seed: int) -> str:
    """`words` words (ASCII, non-ASCII, astral, punctuation) between varied white space; seed 3
    gives one-character words and separators, to fit the length bounds."""
    if seed == 3:
        pieces, spaces = ["a", "\u00e9", "\U0001f600", "-"], [" ", "\n", "\u00a0", "\u3000"]
    else:
        pieces = ["a", "word", "don't", "x1", "\u00e9t\u00e9", "\U0001f600", "end."]
        spaces = [" ", " ", "\n", "  ", "\t", "\u00a0", " \r\n"]
    out = []
    for i in range(words):
        out.append(pieces[(i + seed) % len(pieces)])
        out.append(spaces[(i * 3 + seed) % len(spaces)])
    return "".join(out[:-1])


@pytest.mark.parametrize("limit", [9, 49, 99, 199])
@pytest.mark.parametrize("max_length", [None, 500, 1000])
@pytest.mark.parametrize("shape", ["rotation", "runs"])
def test_long_answers(shape: str, limit: int, max_length: int | None) -> None:
    """`limit + 1` words are accepted and `limit + 2` refused, alone and under a length bound."""
    pattern = rf"^(?:\S+\s+){{0,{limit}}}\S+$" if shape == "rotation" else rf"^\s*(?:\S+\s*){{1,{limit + 1}}}$"
    schema: dict[str, Any] = {"type": "string", "pattern": pattern, "minLength": 1}
    if max_length is not None:
        schema["maxLength"] = max_length
    grammars = [_json_path(schema), _lark(pattern, max_length)]
    for words in (1, limit // 2, limit + 1, limit + 2):
        for seed in range(4):
            value = _answer(words, seed)
            if max_length is not None and len(value) > max_length:
                continue
            valid = ecma_search(pattern, value)
            assert valid == (words <= limit + 1)
            for grammar in grammars:
                assert _walk(grammar, [value], [valid]) == [], (words, seed)
