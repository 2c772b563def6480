"""xgrammar refuses every `Artifact.lark`: a server routing it there fails loudly, never misreads it.

vLLM's default `auto` backend first reads a `grammar` with xgrammar's Lark reader
(`xgr.Grammar.from_lark`), SGLang's default backend reads `ebnf` with xgrammar's EBNF reader
(`GrammarCompiler.compile_grammar(text)`). xgrammar 0.2.8 accepts some llguidance Lark (a bare
`start: %json {...}`) and enforces another language there; every export opens with
`%llguidance {}`, which both readers refuse at line 1 with a RuntimeError (vLLM then falls back to
guidance, SGLang's `dispatch_ebnf` returns its invalid-grammar object) and which llguidance reads
as no option at all. tests/emit/test_lark_export.py checks the same on every golden fixture.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import pytest

import schemac
from testkit.grammar_harness import accepts
from schemac.emit.lark.export import HEADER

#: both export forms (`%json` and written Lark with `&`/`~` terminals, number rules, pattern keys)
SCHEMAS: list[dict[str, Any]] = [
    {"type": "object"},
    {"type": "string"},
    {"type": "string", "pattern": "^(?=.*[0-9])[a-z0-9]{3,6}$"},
    {"type": "string", "not": {"pattern": "^a"}},
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"],
     "additionalProperties": False},
    {"type": "integer", "multipleOf": 7},
    {"type": "object", "patternProperties": {"^x-[0-9]+$": {"type": "boolean"}}, "additionalProperties": False},
    {"type": "array", "items": {"enum": ["a", 1, None]}, "maxItems": 3},
]


@lru_cache(maxsize=None)
def _lark(index: int) -> str:
    return schemac.compile(SCHEMAS[index], use_cache=False).lark


@lru_cache(maxsize=1)
def _compiler() -> Any:
    """xgrammar's compiler over a small byte vocabulary (the reader refuses before any token)."""
    import xgrammar as xgr

    info = xgr.TokenizerInfo([bytes([i]).decode("latin-1") for i in range(128)] + ["</s>"], stop_token_ids=[128])
    return xgr.GrammarCompiler(info, max_threads=1)


def xgrammar_refuses(text: str) -> None:
    """Both of xgrammar's readers refuse `text` with the RuntimeError servers catch."""
    import xgrammar as xgr

    with pytest.raises(RuntimeError, match="%llguidance is not supported"):
        xgr.Grammar.from_lark(text)
    with pytest.raises(RuntimeError, match="line 1, column 1"):
        xgr.Grammar.from_ebnf(text)
    with pytest.raises(RuntimeError):
        _compiler().compile_grammar(text)


def test_xgrammar_is_the_pinned_release() -> None:
    from importlib.metadata import version

    assert version("xgrammar") == "0.2.8"


@pytest.mark.parametrize("index", range(len(SCHEMAS)), ids=lambda i: json.dumps(SCHEMAS[i])[:50])
def test_xgrammar_refuses_every_export(index: int) -> None:
    text = _lark(index)
    assert text.startswith(HEADER)
    xgrammar_refuses(text)


def test_the_header_is_what_refuses() -> None:
    """Without the header xgrammar 0.2.8 takes a `%json` export and enforces its own meaning:
    `%json {"type": "object"}` admits only `{}` there (the misreading the header prevents)."""
    import xgrammar as xgr

    text = _lark(0)
    bare = text.removeprefix(HEADER)
    assert bare.startswith("start: %json ")
    matcher = xgr.GrammarMatcher(_compiler().compile_grammar(xgr.Grammar.from_lark(bare)))
    assert not all(matcher.accept_string(c) for c in '{"a":1}')


def test_llguidance_reads_the_header_as_no_option() -> None:
    """The exported text keeps the artifact's exact language where xgrammar's reading differed:
    escapes in strings, any object, the look-ahead conjunction."""
    import llguidance

    cases = [(1, '"a\\"b"', True), (0, '{"a":1}', True), (0, "{}", True),
             (2, '"abcd"', False), (2, '"abc1"', True), (2, '"1bcdefg"', False)]
    for index, answer, valid in cases:
        text = _lark(index)
        grammar = llguidance.grammar_from("grammar", text)
        assert grammar == llguidance.LLMatcher.grammar_from_lark(text), "taken for GBNF, not Lark"
        assert llguidance.grammar_from("ebnf", text) == grammar  # SGLang's llguidance backend
        assert accepts(grammar, answer) is valid, (SCHEMAS[index], answer)
        assert accepts(grammar, answer) == accepts(llguidance.grammar_from("grammar", text.removeprefix(HEADER)), answer)


def test_llguidance_options_are_unchanged() -> None:
    """An options declaration with options would change llguidance's reading; the empty one merges
    into the defaults (llguidance's Lark compiler `json_merge`s every declaration)."""
    assert HEADER == "%llguidance {}\n"
    with pytest.raises(ValueError, match="options a Lark text would drop"):
        schemac.emit.lark_text(json.dumps({"grammars": [{"lark_grammar": 'start: "a"\n', "no_forcing": True}]}))
