"""The reasoning gate's hand-off is the same however the end marker, the separator and the
answer's first bytes are split into tokens (issue 33, item 1).

Three marker styles, each with its chat template (testdata/chat_templates): Qwen3 (`<think>`
/ `</think>` added tokens, the model opens the block itself, `</think>\\n\\n` before the
answer), DeepSeek-R1 (added tokens, the generation prompt opens the block) and a model whose
markers are ordinary text (`</think>\\n`); on three vocabularies: the 32k sentencepiece
(mistral-common tokenizer.model.v1), tekken (tekken_240911.json) and a byte-level BPE trained
here. For the text the template renders around a reasoning answer, every tokenisation of the
region from the reasoning's last bytes to the answer's second byte (random ones, seeded, plus
the all-longest and all-shortest ones) gets the same verdict token by token and inside drafts;
texts with too much whitespace or a wrong answer start are refused in every tokenisation. The
canonical spelling's rows are compared with the brute-force oracle (testkit/gate_oracle.py).
"""
from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import torch

import schemac
from testkit.gate_oracle import Oracle, Output, differences
from testkit.runtime_vocabularies import vocabulary
from schemac.runtime import Engine, ReasoningConfig, RequestOptions, finalize_request
from schemac.runtime.rows import allows

TEMPLATES = Path(__file__).resolve().parents[2] / "testdata" / "chat_templates"
SCHEMA = {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"], "additionalProperties": False}
ANSWER = '{"s": "ok"}'
REASONING = "The user wants JSON. Fine."
STYLES = {  # template, added marker tokens, the engine knows the block is open (Qwen3 opens it itself)
    "qwen3": ("qwen3.jinja", True, True),
    "deepseek-r1": ("deepseek_r1.jinja", True, None),
    "plain": ("plain_think.jinja", False, None),
}
VOCABS = ("sentencepiece", "tekken", "byte-level")
SAMPLES = 10


def hf(vocab: str, added: bool) -> Any:
    return vocabulary(vocab, added)


@lru_cache(maxsize=None)
def engine(vocab: str, added: bool) -> Engine:
    tok = hf(vocab, added)
    return Engine.from_hf(tok, lm_head_size=len(tok))


@lru_cache(maxsize=None)
def artifact() -> Any:
    return schemac.compile(SCHEMA)


def render(style: str, vocab: str) -> tuple[str, str]:
    """(prompt, completion) as the style's template renders them."""
    template = (TEMPLATES / STYLES[style][0]).read_text()
    tok = hf(vocab, STYLES[style][1])
    user = [{"role": "user", "content": "Answer in JSON."}]
    prompt = tok.apply_chat_template(user, chat_template=template, tokenize=False, add_generation_prompt=True)
    turn = user + [{"role": "assistant", "reasoning_content": REASONING, "content": ANSWER}]
    full = tok.apply_chat_template(turn, chat_template=template, tokenize=False)
    if style == "qwen3":  # the generation prompt does not open the block: the model writes `<think>`
        assert full.startswith(prompt)
        completion = full[len(prompt):]
    else:
        assert full.startswith(prompt[: prompt.rindex("<think>")]) and "<think>\n" + REASONING in full
        completion = full[full.index("<think>\n" + REASONING) + len("<think>\n"):]
    return prompt, completion[: completion.index(ANSWER) + len(ANSWER)]


def segmentations(adapter: Any, data: bytes, seed: int) -> list[list[int]]:
    """Ways to spell `data` with the vocabulary's tokens (special tokens excluded): all
    longest-first, all shortest-first and `SAMPLES` random ones."""
    by_bytes: dict[bytes, list[int]] = {}
    for i in range(adapter.vocab_size):
        b = adapter.token_bytes(i)
        if b and data.find(b) >= 0:
            by_bytes.setdefault(b, []).append(i)
    longest = max(map(len, by_bytes))

    def walk(pick: Any) -> list[int]:
        out, at = [], 0
        while at < len(data):
            options = [t for n in range(1, min(longest, len(data) - at) + 1) for t in by_bytes.get(data[at : at + n], [])]
            token = pick(options)
            out.append(token)
            at += len(adapter.token_bytes(token))
        return out

    rng = random.Random(seed)
    found = [walk(lambda o: max(o, key=lambda t: len(adapter.token_bytes(t)))), walk(lambda o: min(o, key=lambda t: len(adapter.token_bytes(t))))]
    found += [walk(rng.choice) for _ in range(SAMPLES)]
    return [list(s) for s in dict.fromkeys(map(tuple, found))]


def admit(eng: Engine, style: str, prompt: str) -> Any:
    ids = tuple(hf_ids(eng, prompt))
    state = eng.admit(artifact(), RequestOptions(eng.tokenizer.fingerprint, ids, ReasoningConfig(), reasoning_started=STYLES[style][2]))
    state.wait_ready(60)
    return state


def hf_ids(eng: Engine, text: str) -> list[int]:
    return eng.tokenizer.ll.tokenize_bytes(text.encode())


def gated(state: Any) -> bool:
    """No answer byte yet (inside the block or in the separator)."""
    return state.in_reasoning or state.answer == ""


def run(eng: Engine, style: str, prompt: str, head: list[int], region: list[int], tail: list[int]) -> tuple[bool, list[torch.Tensor]]:
    """Commit head, region, tail and EOS one by one: (verdict, rows before each region token).
    A refused token is masked; a token the gate itself took (inside the block, or beginning
    with separator whitespace) is allowed by its row. A token handed to the grammar as it is
    follows the grammar's mask, which admits canonical tokens only (`<0x7B>` is `{` to the
    matcher but not to the mask), exactly as without a reasoning block."""
    state = admit(eng, style, prompt)
    assert state.commit(head)
    bm = eng.allocate_bitmask(1)
    rows = []
    ok = True
    for n, token in enumerate(region + tail + list(eng.tokenizer.eos_ids[:1])):
        was_gated, in_block = gated(state), state.in_reasoning
        eng.fill(bm, [(state, 0, [])])
        if n < len(region):
            rows.append(bm[0].clone())
        if not state.commit([token]):
            assert not allows(bm, 0, token), "a refused token was allowed by its row"
            ok = False
            break
        if was_gated and (in_block or eng.tokenizer.token_bytes(token)[:1].isspace()):
            assert allows(bm, 0, token), "a token taken behind the gate was masked"
    if ok:
        assert finalize_request(state, "stop").value == {"s": "ok"}
    state.release()
    return ok, rows


def drafted_rows(eng: Engine, style: str, prompt: str, head: list[int], drafts: list[int]) -> torch.Tensor:
    state = admit(eng, style, prompt)
    assert state.commit(head)
    bm = eng.allocate_bitmask(len(drafts) + 1)
    eng.fill(bm, [(state, 0, drafts)])
    assert gated(state) and state.pending == 0  # drafts leave nothing behind
    state.release()
    return bm


@pytest.mark.parametrize("vocab", VOCABS)
@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_spelling_of_the_hand_off_gets_the_same_verdict(style, vocab):
    eng = engine(vocab, STYLES[style][1])
    prompt, completion = render(style, vocab)
    cut_head = completion.index("</think>") - 3
    cut_tail = completion.index(ANSWER) + 2
    head, text, tail_text = completion[:cut_head], completion[cut_head:cut_tail], completion[cut_tail:]
    tail = hf_ids(eng, tail_text)
    head_ids = hf_ids(eng, head)
    spellings = segmentations(eng.tokenizer, text.encode(), seed=len(style) * 7 + len(vocab))
    if STYLES[style][1]:  # the marker as its added token is among the spellings
        assert any(eng.tokenizer.token_bytes(t) == b"</think>" and t >= hf(vocab, False).vocab_size for s in spellings for t in s)
    assert len(spellings) >= 4
    stop = eng.filler.stop
    for n, region in enumerate(spellings):
        ok, rows = run(eng, style, prompt, head_ids, region, tail)
        assert ok, (style, vocab, [eng.tokenizer.token_bytes(t) for t in region])
        got = drafted_rows(eng, style, prompt, head_ids, region)
        alive = True
        for j in range(len(region) + 1):  # row j follows the first j drafts, as committing them did
            want = (rows[j] if j < len(rows) else None) if alive else stop
            if want is not None:
                assert torch.equal(got[j], want), (style, vocab, j)
            alive = alive and j < len(region) and allows(rows[j][None], 0, region[j])
        if n == 0:  # the longest spelling's rows against the brute-force oracle
            check_rows_against_oracle(eng, style, prompt, head_ids, region)


def check_rows_against_oracle(eng: Engine, style: str, prompt: str, head: list[int], region: list[int]) -> None:
    state = admit(eng, style, prompt)
    output = Output(b"</think>", True)
    oracle = Oracle(eng.tokenizer, artifact().grammar, output)
    done = list(head)
    assert state.commit(head)
    bm = eng.allocate_bitmask(1)
    for token in region:
        if not gated(state):
            break
        eng.fill(bm, [(state, 0, [])])
        assert not differences(eng.tokenizer.vocab_size, bm[0], oracle.row(done)), (style, oracle.text(done))
        assert state.commit([token])
        done.append(token)
    state.release()


@pytest.mark.parametrize("vocab", VOCABS)
@pytest.mark.parametrize("style", sorted(STYLES))
def test_refused_hand_offs_are_refused_in_every_spelling(style, vocab):
    eng = engine(vocab, STYLES[style][1])
    prompt, completion = render(style, vocab)
    at = completion.index("</think>") + len("</think>")
    head = hf_ids(eng, completion[: at - len("think>")])
    for bad in ("\n\n \n\n{", "\n\nx{", " [1]"):  # 5 whitespace bytes; no JSON; not this schema
        spellings = segmentations(eng.tokenizer, ("think>" + bad).encode(), seed=len(bad))
        for region in spellings[:6]:
            ok, _ = run(eng, style, prompt, head, region, hf_ids(eng, '"s": "ok"}'))
            assert not ok, (style, vocab, bad, [eng.tokenizer.token_bytes(t) for t in region])
