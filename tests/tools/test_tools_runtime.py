"""A tools grammar through the runtime unchanged: Engine.admit(tg.artifact()), commit, finalize."""
from __future__ import annotations

from functools import lru_cache

import pytest
from testkit.tools_cases import chat, dsml, hermes

import schemac.tools as tools
from schemac.runtime import Engine, RequestOptions, StructuredOutputError, tekken_tokenizer

VOCAB = 1000 + 3000


@lru_cache(maxsize=None)
def engine() -> Engine:
    return Engine.from_hf(tekken_tokenizer(vocab_size=VOCAB), lm_head_size=VOCAB)


@pytest.mark.parametrize("parser,text,kind", [
    ("hermes", hermes(("get_weather", {"city": "Paris", "days": 2})), "tool_calls"),
    ("dsml", dsml(("get_weather", [("city", "Pa\nris", True), ("unit", "f", False)])), "tool_calls"),
    ("dsml", '{"ok": false}', "ok"),
])
def test_admit_commit_finalize(parser: str, text: str, kind: str) -> None:
    eng = engine()
    tg = tools.build(chat(), api="chat", parser=parser)
    state = eng.admit(tg.artifact(), RequestOptions(eng.tokenizer.fingerprint))
    state.wait_ready(30)
    tokens = eng.tokenizer.ll.tokenize_bytes(text.encode())
    assert state.commit(tokens), state.error
    assert state.is_accepting() and state.answer == text
    assert tg.finalize(state.answer, "stop").status == kind
    state.release()


def test_grammar_rejects_an_unknown_function_token_by_token() -> None:
    eng = engine()
    tg = tools.build(chat(), api="chat", parser="hermes")
    state = eng.admit(tg.artifact(), RequestOptions(eng.tokenizer.fingerprint))
    state.wait_ready(30)
    assert not state.commit(eng.tokenizer.ll.tokenize_bytes(b'<tool_call>\n{"name": "rm_rf"'))
    with pytest.raises(StructuredOutputError):
        state.check()
    state.release()
