"""String lexemes walked exhaustively against an independent oracle, at the byte level.

Texts are JSON string spellings built from pieces (raw characters, every escape form, raw controls,
escaped surrogate pairs); a grammar should accept a text exactly when it is the canonical
spelling (`json.dumps(s, ensure_ascii=False)`) of a string whose value is valid. Values are judged
by node's ECMA-262 engine ("u" flag), never by RE2 or Python `re`.

* `schemac.regex.json_string_terminal`'s Lark terminals: exactly the canonical valid spellings.
* llguidance's own JSON string lexemes (what `{"type": "string", ...}` compiles to): never an
  invalid value; a valid canonical spelling refused only for a raw U+007F, and a non-canonical
  spelling accepted only where it decodes to a valid value (see /work/notes/deviations-regex.md).
"""
from __future__ import annotations

import json
import subprocess
from functools import lru_cache
from typing import Any, Callable

import pytest

import schemac
from schemac.diagnostics import CompileError

from testkit.ecma_oracle import CATALOGUE, node_available
from testkit.grammar_harness import _tokenizer
from schemac.regex import PatternError, translate
from schemac.regex.strings import canonical_string_terminal, json_string_terminal

pytestmark = pytest.mark.skipif(not node_available(), reason="node (the independent ECMA-262 oracle) is not installed")

#: body pieces: raw characters, canonical escapes, and spellings the policy does not use
PIECES = ["a", "b", " ", "\u00a0", "\u2028", "\ufeff", "\U0001f600", "\u00e9", "\x7f", '\\"', "\\\\", "\\n",
          "\\r", "\\t", "\\b", "\\f", "\\u0000", "\\u001f", "\\u000b", "\\u001F", "\\u000A", "\\u0061", "\\/",
          '"', "\\", "\n", "\x00", "\\ud83d\\ude00", "\\u00e9", "\\u2028", "\\u007f"]
#: fewer pieces for three-piece bodies
SHORT_PIECES = ["a", " ", "\u2028", "\U0001f600", "\x7f", '\\"', "\\\\", "\\n", "\\u0000", "\\u001F", "\\u000A",
                "\\/", "\\ud83d\\ude00", '"', "\n"]


class Texts:
    """JSON string texts over `pieces`, their decoded values (None: not a JSON string without
    lone surrogates) and whether each is the canonical spelling."""

    def __init__(self, pieces: list[str], depth: int) -> None:
        bodies, layer = [""], [""]
        for _ in range(depth):
            layer = [b + p for b in layer for p in pieces]
            bodies += layer
        self.texts = ['"' + b + '"' for b in bodies]
        self.values = [_decode(t) for t in self.texts]
        self.canonical = [v is not None and _dumps(v) == t for t, v in zip(self.texts, self.values)]
        self.distinct = sorted({v for v in self.values if v is not None})


def _dumps(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _decode(text: str) -> str | None:
    try:
        value = json.loads(text)
        value.encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        return None
    return value


@lru_cache(maxsize=2)
def texts(depth: int) -> Texts:
    return Texts(PIECES if depth == 2 else SHORT_PIECES, depth)


_NODE = r"""
const inp = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(inp.patterns.map(p => {
  let re; try { re = new RegExp(p, 'u'); } catch (e) { return null; }
  return inp.strings.map(s => re.test(s) ? '1' : '0').join('');
})));
"""


@lru_cache(maxsize=4)
def _node(patterns: tuple[str, ...], depth: int) -> dict[str, dict[str, bool]]:
    values = texts(depth).distinct
    payload = json.dumps({"patterns": list(patterns), "strings": values})
    done = subprocess.run(["node", "-e", _NODE], input=payload, capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    assert None not in out, "a catalogue pattern is not valid with the u flag"
    return {p: {v: c == "1" for v, c in zip(values, answer)} for p, answer in zip(patterns, out)}


def ecma(pattern: str, depth: int = 2) -> Callable[[str], bool]:
    """node's verdict on each decoded value of `texts(depth)` for `pattern`."""
    patterns = tuple(CATALOGUE) if pattern in CATALOGUE else (pattern,)
    return _node(patterns, depth)[pattern].__getitem__


def _walk(grammar: str, depth: int, valid: Callable[[str], bool]) -> list[tuple[str, bool, bool]]:
    """(text, accepted, canonical) for every text where acceptance differs from "canonical and valid"."""
    import llguidance

    matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    assert not matcher.is_error(), matcher.get_error()
    t = texts(depth)
    out = []
    for text, value, canonical in zip(t.texts, t.values, t.canonical):
        tokens = list(text.encode())
        done = matcher.try_consume_tokens(tokens)
        got = done == len(tokens) and matcher.is_accepting()
        matcher.rollback(done)
        if got != (canonical and valid(value)):
            out.append((text, got, canonical))
    return out


def lark(terminal: str) -> str:
    return "%llguidance {}\nstart: S\nS: " + terminal + "\n"


def _length(lo: int, hi: int | None) -> Callable[[str], bool]:
    return lambda v: lo <= len(v) and (hi is None or len(v) <= hi)


# ---- schemac's Lark terminals: exactly the canonical spellings of valid strings ------------


def test_canonical_terminal() -> None:
    assert _walk(lark(canonical_string_terminal()), 2, lambda v: True) == []


def test_canonical_terminal_every_character() -> None:
    """Each character up to U+00FF and a few beyond, in every spelling: only json.dumps's."""
    import llguidance

    matcher = llguidance.LLMatcher(_tokenizer(), lark(canonical_string_terminal()), log_level=0)
    for c in [chr(i) for i in range(0x100)] + ["\u2028", "\ufeff", "\uffff", "\U0010ffff"]:
        canonical = json.dumps(c, ensure_ascii=False)
        for text in {canonical, json.dumps(c), f'"\\u{ord(c):04x}"', f'"\\u{ord(c):04X}"', '"' + c + '"'}:
            tokens = list(text.encode("utf-8", "surrogatepass"))
            done = matcher.try_consume_tokens(tokens)
            got = done == len(tokens) and matcher.is_accepting()
            matcher.rollback(done)
            assert got is (text == canonical), text


@pytest.mark.parametrize("pattern", CATALOGUE)
def test_pattern_terminal(pattern: str) -> None:
    assert _walk(lark(json_string_terminal(pattern)), 2, ecma(pattern)) == []


BOUNDS = [(0, None), (1, 1), (2, 3), (0, 2), (3, None), (2, 1)]
LENGTH_PATTERNS = [None, "^.$", "^\\S+$", "\\s", "[^]", '^[^"]*$', "^(?:\\S+\\s+){0,2}\\S+$", "$^", "^\\n|\\r$",
                   "^[\\x00-\\x1f]$"]


@pytest.mark.parametrize("pattern", LENGTH_PATTERNS)
def test_pattern_and_length_terminal(pattern: str | None) -> None:
    """Three-piece bodies (astral characters and escapes count one code point each)."""
    for lo, hi in BOUNDS:
        terminal = json_string_terminal(pattern, min_length=lo, max_length=hi)
        size = _length(lo, hi)
        valid = size if pattern is None else (lambda v, m=ecma(pattern, 3): size(v) and m(v))
        assert _walk(lark(terminal), 3, valid) == [], (lo, hi)


def test_terminal_combines_with_negation() -> None:
    """What emit does for additional keys: every canonical key but the listed ones."""
    terminal = f'{canonical_string_terminal()} & ~/"b"/ & ~/"\\\\n"/'
    assert _walk(lark(terminal), 2, lambda v: v not in ("b", "\n")) == []


def test_terminal_refusals() -> None:
    with pytest.raises(PatternError):
        json_string_terminal("(?:^a$)*")  # anchors of both kinds inside a repetition
    with pytest.raises(PatternError):
        json_string_terminal("(?:(?=a).)*")  # an assertion inside a repetition
    with pytest.raises(PatternError):
        json_string_terminal(None, max_length=1001)


# ---- llguidance's JSON string lexemes (the JSON path schemac emits today) -------------------


def _json_path(schema: dict[str, Any]) -> str:
    import llguidance

    from schemac.emit import SYNTAX_POLICY

    return llguidance.LLMatcher.grammar_from_json_schema(json.dumps(schema), overrides=SYNTAX_POLICY)


#: the non-canonical spellings llguidance's string lexeme accepts: other escapes of controls and DEL
_OTHER_CONTROL_SPELLINGS = ("\\u001F", "\\u000A", "\\u007f")


def _only_known_deviations(diffs: list[tuple[str, bool, bool]], valid: Callable[[str], bool]) -> None:
    for text, accepted, canonical in diffs:
        value = _decode(text)
        if accepted:  # accepted but not canonical-and-valid: must be a valid value, non-canonically spelt
            assert value is not None and valid(value) and not canonical, text
            assert any(s in text for s in _OTHER_CONTROL_SPELLINGS), text
        else:  # refused a canonical valid text: only for a raw DEL
            assert "\x7f" in text, text


#: patterns whose language is empty: llguidance refuses the grammar ("Unsatisfiable", D5)
EMPTY_LANGUAGE = ("[]", "^[^\\s\\S]$")


@pytest.mark.parametrize("pattern", [p for p in CATALOGUE if p not in EMPTY_LANGUAGE])
def test_json_path_pattern_is_sound(pattern: str) -> None:
    """No invalid value, whatever the spelling; deviations only the documented ones."""
    try:
        translated = translate(pattern)
    except PatternError:  # refused by translate: the compiler rejects it, no grammar sees it
        with pytest.raises(CompileError):
            schemac.compile({"type": "string", "pattern": pattern}, use_cache=False)
        return
    valid = ecma(pattern)
    _only_known_deviations(_walk(_json_path({"type": "string", "pattern": translated}), 2, valid), valid)


@pytest.mark.parametrize("lo, hi", [b for b in BOUNDS if b != (2, 1)])
def test_json_path_length_counts_code_points(lo: int, hi: int | None) -> None:
    schema: dict[str, Any] = {"type": "string", "minLength": lo}
    if hi is not None:
        schema["maxLength"] = hi
    _only_known_deviations(_walk(_json_path(schema), 3, _length(lo, hi)), _length(lo, hi))


FORMAT_EXAMPLES = {
    "date": "2024-02-29", "time": "23:59:60Z", "date-time": "2023-01-01T00:00:00+01:00", "duration": "P1DT2H",
    "email": "a.b@c.de", "hostname": "a-b.c", "ipv4": "10.0.0.1", "ipv6": "::ffff:1.2.3.4",
    "uuid": "123e4567-e89b-12d3-a456-426614174000", "uri": "http://x/y?z#w", "uri-reference": "../a/b",
    "iri": "http://\u00e9.x/", "iri-reference": "\u00e9/x", "json-pointer": "/a~0/b", "relative-json-pointer": "1/a",
    "uri-template": "/x/{y}",
}


@pytest.mark.parametrize("fmt", sorted(FORMAT_EXAMPLES))
def test_format_spellings(fmt: str) -> None:
    """A valid value with one character spelt otherwise (\\u escape, \\/, upper-case hex) is
    accepted only if it still decodes to a valid value; the canonical spelling is accepted."""
    import schemac
    from testkit.grammar_harness import accepts
    from schemac.validate.final import FORMAT_CHECKS

    value = FORMAT_EXAMPLES[fmt]
    assert FORMAT_CHECKS[fmt](value)
    grammar = schemac.compile({"type": "string", "format": fmt}, use_cache=False).grammar
    assert accepts(grammar, _dumps(value))
    for i, c in enumerate(value):
        for spelt in {f"\\u{ord(c):04x}", f"\\u{ord(c):04X}", "\\/" if c == "/" else c}:
            text = _dumps(value[:i])[:-1] + spelt + _dumps(value[i + 1:])[1:]
            if accepts(grammar, text):
                decoded = _decode(text)
                assert decoded is not None and FORMAT_CHECKS[fmt](decoded), text
