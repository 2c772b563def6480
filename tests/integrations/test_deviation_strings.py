"""llguidance 1.9.1's string and key lexemes, pinned: each test fails when llguidance changes.

Every deviation from the syntax policy (`json.dumps(s, ensure_ascii=False)` spellings) that
/work/notes/deviations-regex.md lists has its minimal reproduction here, run on llguidance's own
JSON compiler (not on schemac's output, which works around them). When one of these fails,
llguidance changed: update the note, and retire or adapt the workaround it names.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from testkit.grammar_harness import _tokenizer


def _accepts(schema: dict[str, Any], text: str) -> bool:
    import llguidance

    from schemac.emit import SYNTAX_POLICY

    grammar = llguidance.LLMatcher.grammar_from_json_schema(json.dumps(schema), overrides=SYNTAX_POLICY)
    matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    assert not matcher.is_error(), matcher.get_error()
    tokens = list(text.encode())
    return matcher.try_consume_tokens(tokens) == len(tokens) and matcher.is_accepting()


STRING = {"type": "string"}


def test_llguidance_version() -> None:
    import importlib.metadata

    assert importlib.metadata.version("llguidance") == "1.9.1"


def test_raw_delete_is_refused() -> None:
    """D1 (completeness): json.dumps writes U+007F raw; llguidance's string lexeme takes only
    `\\u007f`/`\\u007F`. schemac's Lark terminals take the raw form."""
    assert not _accepts(STRING, '"\x7f"')
    assert _accepts(STRING, '"\\u007f"') and _accepts(STRING, '"\\u007F"')


@pytest.mark.parametrize("text", ['"\\u000a"', '"\\u000A"', '"\\u001F"', '"\\u0008"', '"\\u0000"'])
def test_other_control_spellings_are_accepted(text: str) -> None:
    """D2 (harmless): controls in `\\u` form when a short escape exists, or in upper-case hex.
    The value is the same string, so every constraint on values still holds."""
    assert _accepts(STRING, text)


@pytest.mark.parametrize("text", ['"\\/"', '"\\u0061"', '"\\u00e9"', '"\\u0022"', '"\\u005c"', '"\\u2028"',
                                  '"\\ud83d\\ude00"', '"\\ud800"'])
def test_escapes_of_other_characters_are_refused(text: str) -> None:
    """Printable characters, `"`, `\\` and astral ones only in their raw/short form (policy-exact)."""
    assert not _accepts(STRING, text)


def test_escaped_key_bypasses_properties() -> None:
    """D3 (unsound in the JSON compiler): listed keys are matched on their raw text while the
    additional-key lexeme admits `\\u` escapes, so `{"\\u0062": "y"}` (key "b") escapes the
    `properties` entry of "b". schemac writes such objects in Lark with
    `schemac.regex.strings` terminals (keys in canonical spelling only)."""
    schema = {"type": "object", "properties": {"b": {"const": "x"}}}
    assert _accepts(schema, '{"\\u0062":"y"}')
    assert not _accepts(schema, '{"b":"y"}')
    patterned = {"type": "object", "patternProperties": {"^b$": {"const": 1}}}
    assert _accepts(patterned, '{"\\u0062":2}') and not _accepts(patterned, '{"b":2}')
    # the escaped key is taken for an additional key: refused only where those are refused
    closed = {"type": "object", "properties": {"b": True}, "additionalProperties": False}
    assert not _accepts(closed, '{"\\u0063":2}')


def test_string_length_counts_code_points() -> None:
    """Not a deviation: minLength/maxLength count code points (an astral character is one)."""
    assert _accepts({"type": "string", "maxLength": 1}, '"\U0001f600"')
    assert not _accepts({"type": "string", "minLength": 2}, '"\U0001f600"')


def test_patterns_match_decoded_characters() -> None:
    """Not a deviation: a pattern sees `\\n` as the newline character, not as two characters."""
    assert _accepts({"type": "string", "pattern": "^\\x{A}$"}, '"\\n"')
    assert not _accepts({"type": "string", "pattern": "^\\\\n$"}, '"\\n"')


@pytest.mark.parametrize("pattern", ["[^\\x{0}-\\x{10FFFF}]", "^[^\\x{0}-\\x{10FFFF}]$"])
def test_empty_pattern_language_is_an_error(pattern: str) -> None:
    """D5: a pattern matching nothing makes the grammar an error, not an empty language (schemac
    reports `unsatisfiable`); one matching only "" is fine."""
    import llguidance

    from schemac.emit import SYNTAX_POLICY

    grammar = llguidance.LLMatcher.grammar_from_json_schema(json.dumps({"type": "string", "pattern": pattern}),
                                                            overrides=SYNTAX_POLICY)
    assert "Unsatisfiable" in llguidance.LLMatcher.validate_grammar(grammar)
    assert _accepts({"type": "string", "pattern": "^[^\\x{0}-\\x{10FFFF}]*$"}, '""')
