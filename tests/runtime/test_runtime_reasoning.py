"""Reasoning gate: free tokens inside an inline block, JSON constrained right after its end."""
from __future__ import annotations

from functools import lru_cache

import pytest
import torch

import schemac
from schemac.runtime import Engine, ReasoningConfig, RequestOptions, StructuredOutputError, finalize_request, tekken_tokenizer
from schemac.runtime.reasoning import GateState, initial_state, step

VOCAB = 1000 + 3000
CFG = ReasoningConfig()
SCHEMA = {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"], "additionalProperties": False}


@lru_cache(maxsize=None)
def tok():
    return tekken_tokenizer(vocab_size=VOCAB, added_tokens=["<think>", "</think>"])


@lru_cache(maxsize=None)
def engine() -> Engine:
    return Engine.from_hf(tok(), lm_head_size=VOCAB + 2)


def enc(text: str) -> list[int]:
    return tok().encode(text, add_special_tokens=False)


def pieces(*parts: str) -> list[int]:
    """Tokens spelling `parts` with a token boundary between parts (alternative tokenisation)."""
    return [t for p in parts for t in enc(p)]


def admit(prompt: str = "[INST] go [/INST]<think>", reasoning: ReasoningConfig | None = CFG):
    eng = engine()
    s = eng.admit(schemac.compile(SCHEMA), RequestOptions(eng.tokenizer.fingerprint, tuple(enc(prompt)), reasoning))
    s.wait_ready(30)
    return s


def mask(state, drafts=()):
    bm = engine().allocate_bitmask(len(drafts) + 1)
    bm.fill_(0x1234)
    engine().fill(bm, [(state, 0, list(drafts))])
    return bm


def fresh_grammar_row():
    return mask(admit(reasoning=None))[0]


def separator_row(gap: int = 0):
    """The oracle's row right after the end marker (`gap` whitespace bytes seen)."""
    from testkit.gate_oracle import Oracle, Output

    oracle = Oracle(engine().tokenizer, schemac.compile(SCHEMA).grammar, Output(b"</think>", False, gap))
    return oracle.row([])


def same_row(got, want) -> bool:
    from testkit.gate_oracle import differences

    return not differences(engine().tokenizer.vocab_size, got, want)



def test_initial_state_follows_the_rendered_prompt():
    assert initial_state(CFG, b"[INST] x [/INST]<think>\n") == GateState(True)
    assert initial_state(CFG, b"[INST] x [/INST]<think>\n\n</think>\n\n") == GateState(False, gap=2)  # separator begun
    assert initial_state(CFG, b"[INST] x [/INST]") == GateState(False)  # no toggle: no assumption
    assert initial_state(None, b"<think>") == GateState(False)
    assert admit().in_reasoning
    assert not admit("[INST] go [/INST]<think>ok</think>").in_reasoning
    assert not admit("[INST] go [/INST]").in_reasoning


def test_step_matches_across_token_boundaries():
    marker = b"</think>"
    s, out = step(GateState(True), marker, b"so </")
    assert s == GateState(True, b"</") and out is None
    s, out = step(s, marker, b"thi")
    assert s.reasoning and out is None
    s, out = step(s, marker, b"nk>\n {")
    assert s == GateState(False) and out == b"{"
    assert step(GateState(False), marker, b"</think>") == (GateState(False), None)


@pytest.mark.parametrize("split", [("</", "think", ">"), ("</th", "i", "nk>"), ("</think>",)])
def test_end_marker_split_across_tokens(split):
    s = admit()
    thinking = pieces("I should answer ", *split)
    for t in thinking[:-1]:
        assert bool((mask(s)[0] == -1).all())  # unconstrained while reasoning
        assert s.commit([t])
    assert s.in_reasoning
    s.commit(thinking[-1:])
    assert not s.in_reasoning
    assert same_row(mask(s)[0], separator_row())  # constrained immediately: whitespace, then JSON
    assert s.commit(enc('{"s": "x"}')) and s.commit([2])
    assert finalize_request(s, "stop").value == {"s": "x"}


def test_marker_inside_a_draft():
    s = admit()
    s.commit(enc("hmm"))
    drafts = pieces(" ok </th", "ink>", '{"s')
    got = mask(s, drafts)
    at = len(pieces(" ok </th", "ink>"))
    for i in range(at):
        assert bool((got[i] == -1).all()), i
    ref = admit(reasoning=None)
    expected = mask(ref, enc('{"s'))
    assert same_row(got[at], separator_row()) and torch.equal(got[at + 1:], expected[1:])
    assert s.in_reasoning and bool((mask(s)[0] == -1).all())  # draft rolled back
    # a draft whose answer bytes are invalid ends the rows there
    bad = pieces(" </think>", "zz", "{")
    got = mask(s, bad)
    cut = len(enc(" </think>"))
    assert same_row(got[cut], separator_row())
    assert all(torch.equal(r, engine().filler.stop) for r in got[cut + 1 :])


def test_marker_text_inside_json_string_is_literal():
    s = admit()
    s.commit(pieces("think", "</think>"))
    body = '{"s": "a </think> and <think> b"}'
    assert s.commit(enc(body)) and s.is_accepting()
    s.commit([2])
    assert finalize_request(s, "stop").value == {"s": "a </think> and <think> b"}


def test_rollback_across_the_marker():
    s = admit()
    s.commit(enc("x"))
    s.accept(pieces(" </", "think>", '{"'))
    assert not s.in_reasoning
    s.rollback(len(pieces("think>", '{"')))
    assert s.in_reasoning and s.answer == ""
    s.accept(pieces("think>"))
    assert not s.in_reasoning


def test_eos_inside_reasoning_is_an_error_not_an_answer():
    s = admit()
    s.commit(enc("thinking forever") + [2])
    with pytest.raises(StructuredOutputError) as exc:
        finalize_request(s, "stop")
    assert exc.value.code == "answer-missing"


@lru_cache(maxsize=None)
def wide_engine() -> Engine:
    """30k tekken ranks: enough for tokens that start with `>` and carry more (`>{`, `></`)."""
    return Engine.from_hf(tekken_tokenizer(vocab_size=1000 + 29000, added_tokens=["<think>", "</think>"]), lm_head_size=30002)


def byte_prefix_ok(grammar: str, data: bytes) -> bool:
    """Independent oracle: `data` is a valid grammar prefix under a one-byte-per-token vocabulary."""
    import llguidance
    from testkit.grammar_harness import _tokenizer

    m = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    return m.validate_tokens(list(data)) == len(data)


def test_token_crossing_the_end_marker_must_carry_valid_answer_bytes():
    eng = wide_engine()
    hf_ids = lambda text: eng.tokenizer.ll.tokenize_str(text)  # noqa: E731
    art = schemac.compile(SCHEMA)
    s = eng.admit(art, RequestOptions(eng.tokenizer.fingerprint, tuple(hf_ids("[INST] go [/INST]<think>")), CFG))
    s.wait_ready(30)
    for piece in ("ok ", "</", "think"):
        assert s.commit(hf_ids(piece))
    assert s.in_reasoning
    bm = eng.allocate_bitmask(1)
    eng.fill(bm, [(s, 0, ())])
    tokens = eng.tokenizer.tokens
    crossing = {i: b">" + tokens[i][1:] for i in range(eng.tokenizer.vocab_size) if tokens[i].startswith(b">")}
    assert crossing
    for i, t in crossing.items():
        after = t[1:].lstrip(b" \t\n\r")
        expected = not after or byte_prefix_ok(art.grammar, after)
        assert bool((int(bm[0, i // 32]) >> (i % 32)) & 1) == expected, t
    others = [i for i in range(eng.tokenizer.vocab_size) if i not in crossing]
    assert all((int(bm[0, i // 32]) >> (i % 32)) & 1 for i in others)  # the rest stays free
    brace, bad = tokens.index(b">{"), tokens.index(b"></")
    got = eng.allocate_bitmask(2)
    eng.fill(got, [(s, 0, [bad])])
    assert torch.equal(got[1], eng.filler.stop)  # the issue's `></` after `</think` ends the drafts
    assert s.commit([brace]) and not s.in_reasoning and s.answer == "{"
    assert s.commit(hf_ids('"s": "x"}')) and s.is_accepting()


def test_marker_text_in_user_content_does_not_open_a_block():
    assert not admit("[INST] what does <think> mean? [/INST]").in_reasoning
    assert not admit("[INST] <think> [/INST] sure").in_reasoning
    assert admit("[INST] x [/INST]<think>\n").in_reasoning


def test_template_state_wins_over_prompt_text():
    eng = engine()
    for prompt, started in [("[INST] go [/INST]", True), ("[INST] go [/INST]<think>", False)]:
        s = eng.admit(schemac.compile(SCHEMA), RequestOptions(eng.tokenizer.fingerprint, tuple(enc(prompt)), CFG, reasoning_started=started))
        s.wait_ready(30)
        assert s.in_reasoning is started
        s.release()


def test_reasoning_separator_counts_bytes_over_every_whitespace_tokenisation() -> None:
    """After `</think>`, 1-2 whitespace tokens (and some triples) of 1-5 bytes (tab, LF, CR, spaces): the answer
    passes iff they hold at most 4 bytes, committed one by one and as rows of a draft."""
    from itertools import product

    from schemac.runtime import StructuredOutputError, finalize_request
    eos = 2
    sizes = {1009: 1, 1010: 1, 1013: 1, 1032: 1, 1256: 2, 1293: 3, 1260: 4, 1652: 5}
    brace = enc("{")[0]
    assert enc(" ") == [1032] and enc("\n") == [1010] and enc("  ") == [1256] and enc("\t") == [1009]

    def allowed(row: object, t: int) -> bool:
        return bool((int(row[t // 32]) >> (t % 32)) & 1)

    triples = [(1032, 1010, 1009), (1032, 1032, 1256), (1256, 1032, 1032), (1013, 1256, 1032), (1009, 1010, 1293)]
    for seq in [*product(sizes, repeat=1), *product(sizes, repeat=2), *triples]:
        want = sum(sizes[t] for t in seq) <= 4
        s = admit()
        s.commit(pieces("x </think>"))
        for t in seq:
            s.commit([t])
        s.commit(enc('{"s": "x"}'))
        s.commit([eos])
        try:
            finalize_request(s, "stop")
            ok = True
        except StructuredOutputError:
            ok = False
        assert ok == want, seq
        s = admit()
        s.commit(enc("x"))
        drafts = pieces(" </think>") + list(seq) + [brace]
        rows = mask(s, drafts)
        k = len(pieces(" </think>"))
        walk = all(allowed(rows[k + j], t) for j, t in enumerate(seq)) and allowed(rows[k + len(seq)], brace)
        assert walk == want, seq
        assert not allowed(rows[k], eos), "EOS right after the marker"
