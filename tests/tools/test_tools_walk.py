"""Random walks over the tools grammar with a byte-level tokenizer: every walk that reaches
acceptance is either a valid envelope of allowed calls or a valid answer (final validation)."""
from __future__ import annotations

import random
from typing import Any

import pytest
from testkit.grammar_harness import _tokenizer
from testkit.tools_cases import TOOLS, chat, chat_tool

import schemac.tools as tools

EOS = 256
#: texts that close what is open; a walk past its random phase mostly takes one that fits whole
#: (in random order: inside raw DSML text or a JSON string every closer fits)
CLOSERS = [s.encode() for s in (
    '"', "}", "]", "0", "\n</tool_call>", "</｜DSML｜parameter>\n", "</｜DSML｜invoke>\n", "</｜DSML｜function_calls>",
)]
FREE = chat_tool("log", {"type": "object", "properties": {"msg": {"type": "string"}, "n": {"type": "integer"}}}, strict=False)
CASES = [
    ("hermes", chat()),
    ("dsml", chat()),
    ("hermes", chat(TOOLS + [FREE], tool_choice="required")),
    ("dsml", chat(TOOLS + [FREE], tool_choice="required", parallel_tool_calls=False)),
    ("dsml", chat(tool_choice={"type": "function", "function": {"name": "get_weather"}})),
]


def _allowed(mask: bytes) -> list[int]:
    return [i for i in range(EOS + 1) if mask[i // 8] >> (i % 8) & 1]


def walk(matcher: Any, rng: random.Random, random_steps: int, max_steps: int = 600) -> bytes | None:
    """Bytes of one walk from the start to acceptance (None when not there within `max_steps`).
    Walks a fork of the (never consumed) `matcher`: after `reset()` llguidance's mask cache can
    be stale (docs/llguidance-deviations.md)."""
    matcher = matcher.deep_copy()
    out = bytearray()
    for step in range(max_steps):
        allowed = _allowed(matcher.compute_bitmask())
        assert allowed, f"dead end after {bytes(out)!r}"
        if EOS in allowed and (len(allowed) == 1 or rng.random() < 0.3):
            assert matcher.is_accepting()
            return bytes(out)
        choice: list[int] = []
        if step >= random_steps and rng.random() < 0.8:
            closers = rng.sample(CLOSERS, len(CLOSERS))
            choice = next((list(c) for c in closers if matcher.validate_tokens(list(c)) == len(c)), [])
        if not choice:
            choice = [rng.choice([t for t in allowed if t != EOS])]
        assert matcher.consume_tokens(choice), matcher.get_error()
        out += bytes(choice)
    return None


@pytest.mark.parametrize("parser,body", CASES)
def test_every_walk_is_a_valid_envelope_or_answer(parser: str, body: dict[str, Any]) -> None:
    from llguidance import LLMatcher

    tg = tools.build(body, api="chat", parser=parser)
    matcher = LLMatcher(_tokenizer(), tg.grammar, log_level=0)
    rng = random.Random(f"{parser}-{len(tg.lark)}")
    kinds: dict[str, int] = {}
    names: set[str] = set()
    finished = 0
    for i in range(60):
        raw = walk(matcher, rng, random_steps=[8, 40, 120][i % 3])
        if raw is None:
            continue
        finished += 1
        text = raw.decode("utf-8")  # the grammar never admits invalid UTF-8
        result = tg.validate(text)
        assert result.ok, (text, result.errors)
        kinds[result.kind] = kinds.get(result.kind, 0) + 1
        names.update(c.name for c in result.calls)
        if not tg.request.parallel:
            assert len(result.calls) <= 1
    assert finished >= 45
    expected = {"answer", "tool_calls"} if tg.request.allows_answer else {"tool_calls"}
    assert set(kinds) == expected, kinds
    assert names <= {fn.name for fn in tg.functions} and len(names) >= min(2, len(tg.functions))
