"""Boundary fuzz (issue 33, item 5): random interleavings of what engines do, checked against
independent oracles at every step.

Seeded (deterministic) runs drive an Engine and its RequestStates with admit, fill (drafts
included, rows laid out at random in one reused bitmask), commit, accept, rollback,
acknowledge, release (through the state), bad row layouts and engine-native or foreign types,
over several requests at once, with and without the reasoning gate (open block, block closed
by the template). Every row written is compared with testkit/gate_oracle.py (brute force behind
the gate, a fresh llguidance matcher after it); every verdict of accept/commit with the
oracle's byte-level verdict; every finished answer with jsonschema; a bad layout raises
BoundaryError with the bitmask untouched.
"""
from __future__ import annotations

import json
import random
from functools import lru_cache
from typing import Any

import jsonschema
import numpy as np
import pytest
import torch

import schemac
from testkit.gate_oracle import Oracle, Output, differences
from schemac.runtime import BoundaryError, Engine, ReasoningConfig, RequestOptions, StructuredOutputError, finalize_request, tekken_tokenizer

VOCAB = 1000 + 3000 + 2  # the two added marker tokens included
SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}, "t": {"enum": ["red", "green"]}},
    "required": ["n"],
    "additionalProperties": False,
}
PROMPTS = {  # prompt text -> the oracle's starting point and an output the picks steer towards
    "plain": ("[INST] go [/INST]", None, b'{"n": 12, "t": "red"}'),
    "open": ("[INST] go [/INST]<think>", Output(b"</think>", True), b'hmm, ok </think>\n\n{"n": 7}'),
    "closed": ("[INST] go [/INST]<think>\n\n</think>\n", Output(b"</think>", False, 1), b' \n{"n": 3, "t": "green"}'),
}
ROWS = 8
STEPS = 100
SEEDS = 12
SEEN: dict[str, int] = {}  # what the runs exercised: every kind must occur


def seen(what: str) -> None:
    SEEN[what] = SEEN.get(what, 0) + 1


@lru_cache(maxsize=None)
def engine() -> Engine:
    tok = tekken_tokenizer(vocab_size=VOCAB - 2, added_tokens=["<think>", "</think>"])
    assert len(tok) == VOCAB
    return Engine.from_hf(tok, lm_head_size=VOCAB + 6)


@lru_cache(maxsize=None)
def artifact() -> Any:
    return schemac.compile(SCHEMA)


@lru_cache(maxsize=None)
def oracle(kind: str) -> Oracle:
    output = PROMPTS[kind][1] or Output(b"</think>", False, None)
    return Oracle(engine().tokenizer, artifact().grammar, output)


@lru_cache(maxsize=4096)
def oracle_row(kind: str, tokens: tuple[int, ...]) -> torch.Tensor:
    return oracle(kind).row(list(tokens))


def verdict(kind: str, tokens: list[int], token: int) -> bool:
    """Whether committing `token` after `tokens` is accepted (bytes, not the mask)."""
    o = oracle(kind)
    before = o.text(tokens)
    where = o.output.split(before)
    assert where is not None
    if where[0] == "reasoning":
        return True
    if o.tok.token_bytes(token) == b"":
        return token in o.tok.eos_ids and where[0] == "answer" and o.answer_matcher(where[2]).is_accepting()
    after = o.output.split(before + o.tok.token_bytes(token))
    return after is not None and o.prefix_ok(after[2])


class Request:
    """The fuzz's own account of one request: tokens the engine sampled, how many pending."""

    def __init__(self, kind: str, state: Any) -> None:
        self.kind, self.state = kind, state
        self.tokens: list[int] = []
        self.pending = 0
        self.failed = False
        self.finished = False


def allowed_tokens(row: torch.Tensor) -> list[int]:
    bits = row.tolist()
    return [t for t in range(VOCAB) if bits[t // 32] >> (t % 32) & 1]


def foreign(rng: random.Random, token: int) -> Any:
    """The same id as an engine may hold it."""
    return rng.choice([token, np.int64(token), np.int32(token), torch.tensor(token)])


@lru_cache(maxsize=None)
def spellings() -> dict[bytes, list[int]]:
    tok = engine().tokenizer
    out: dict[bytes, list[int]] = {}
    for t in range(VOCAB):
        if tok.token_bytes(t):
            out.setdefault(tok.token_bytes(t), []).append(t)
    return out


def pick(rng: random.Random, kind: str, tokens: list[int]) -> int:
    """Mostly a token that spells the next bytes towards the kind's target (any of the ways
    to split them: the marker, `\n\n`, the answer), else a token the oracle allows (heading
    for an end), sometimes any id."""
    o, target = oracle(kind), PROMPTS[kind][2]
    text = o.text(tokens)
    where = o.output.split(text)
    rest = b""
    if where is not None and where[0] == "reasoning":
        k = next((n for n in range(len(o.output.marker), 0, -1) if text.endswith(o.output.marker[:n])), 0)
        rest = target[target.index(o.output.marker) + k :]
    elif where is not None:
        answer = target.lstrip(b" \n\t\r") if o.output.reasoning or o.output.gap is not None else target
        answer = answer[answer.index(o.output.marker) + len(o.output.marker) :].lstrip(b" \n") if o.output.marker in answer else answer
        if answer.startswith(where[2]):
            rest = answer[len(where[2]) :] or b"<eos>"
    if rest and rng.random() < 0.85:
        if rest == b"<eos>":
            return engine().tokenizer.eos_ids[0]
        options = [t for n in range(1, len(rest) + 1) for t in spellings().get(rest[:n], [])]
        return rng.choice(options)
    if rng.random() < 0.05:
        return rng.randrange(VOCAB)
    good = allowed_tokens(oracle_row(kind, tuple(tokens)))
    closing = [t for t in good if b"}" in engine().tokenizer.token_bytes(t) or t in engine().tokenizer.eos_ids]
    if closing and rng.random() < 0.5:  # off the target: head for an end
        return rng.choice(closing)
    return rng.choice(good) if good else rng.randrange(VOCAB)


def step(rng: random.Random, eng: Engine, live: list[Request], bitmask: torch.Tensor) -> None:
    op = rng.choices(["admit", "fill", "accept", "commit", "rollback", "release", "bad", "finish"], [1.5, 4, 3, 8, 2, 0.3, 1, 2])[0]
    if op == "admit" or not live:
        if len(live) < 3:
            kind = rng.choice(sorted(PROMPTS))
            prompt = eng.tokenizer.ll.tokenize_str(PROMPTS[kind][0])
            state = eng.admit(artifact(), RequestOptions(eng.tokenizer.fingerprint, tuple(prompt), ReasoningConfig()))
            state.wait_ready(60)
            live.append(Request(kind, state))
        return
    r = rng.choice(live)
    if op in ("accept", "commit") and r.tokens and r.tokens[-1] in eng.tokenizer.eos_ids:
        op = "finish"  # the engine stops at EOS: what follows it is not generated
    if op == "fill":
        fill(rng, eng, live, bitmask)
    elif op in ("accept", "commit"):
        token = pick(rng, r.kind, r.tokens)
        expected = verdict(r.kind, r.tokens, token)
        if op == "accept":
            got = r.state.accept([foreign(rng, token)])
            r.pending += expected
        else:  # acknowledge what is pending, plus the new token
            got = r.state.commit([foreign(rng, t) for t in r.tokens[len(r.tokens) - r.pending :]] + [foreign(rng, token)])
            r.pending = 0
        assert got == expected, (r.kind, r.tokens, token)
        seen(f"{op}-{'taken' if expected else 'refused'}")
        if expected:
            r.tokens.append(token)
        else:
            r.failed = True
            assert r.state.error is not None and r.state.error.code == "grammar-rejected"
    elif op == "rollback" and r.pending:
        k = rng.randrange(r.pending + 1)
        r.state.rollback(rng.choice([k, np.int64(k), torch.tensor(k)]))
        seen("rollback")
        del r.tokens[len(r.tokens) - k :]
        r.pending -= k
    elif op == "release":
        r.state.release()
        live.remove(r)
        return
    elif op == "bad":
        bad_layout(rng, eng, live, bitmask)
    elif op == "finish":
        finish(rng, eng, r)
    if rng.random() < 0.015:  # a foreign object where an id belongs: that request fails, typed
        assert r.state.commit(["7"]) is False and r.state.error.code == "invalid-token"
        seen("foreign")
        r.failed = True
    if r.failed or r.finished:
        r.state.release()
        live.remove(r)
    else:
        assert r.state.pending == r.pending and r.state.error is None
        expected_answer = oracle(r.kind).output.split(oracle(r.kind).text(r.tokens))
        assert expected_answer is not None and r.state.answer.encode() == expected_answer[2]


def fill(rng: random.Random, eng: Engine, live: list[Request], bitmask: torch.Tensor) -> None:
    """Random non-overlapping rows; every row compared with the oracle."""
    entries, at = [], rng.randrange(2)
    for r in rng.sample(live, rng.randint(1, len(live))):
        drafts: list[int] = []
        walk, known = list(r.tokens), True
        for _ in range(rng.randrange(4)):
            if known and rng.random() < 0.85:
                drafts.append(pick(rng, r.kind, walk))
                known = verdict(r.kind, walk, drafts[-1]) and drafts[-1] not in engine().tokenizer.eos_ids
                walk.append(drafts[-1])
            else:  # a placeholder or any id: what follows it is unknown to the oracle
                drafts.append(rng.choice([-1, rng.randrange(VOCAB)]))
                known = False
        if at + len(drafts) >= ROWS:
            break
        entries.append((r, at, drafts))
        at += len(drafts) + 1 + rng.randrange(2)
    eng.fill(bitmask, [(r.state, foreign(rng, row), [foreign(rng, d) for d in drafts]) for r, row, drafts in entries])
    stop = eng.filler.stop
    for r, row, drafts in entries:
        alive = True
        for j in range(len(drafts) + 1):
            want = oracle_row(r.kind, tuple(r.tokens + drafts[:j])) if alive else stop
            assert not differences(VOCAB, bitmask[row + j], want), (r.kind, r.tokens, drafts, j)
            where = oracle(r.kind).output.split(oracle(r.kind).text(r.tokens + drafts[:j])) if alive else ("stop",)
            seen(f"row-{where[0] if where else 'stop'}{'-draft' if j else ''}")
            alive = alive and j < len(drafts) and 0 <= drafts[j] < VOCAB and bool(want[drafts[j] // 32] >> (drafts[j] % 32) & 1)
            alive = alive and drafts[j] not in engine().tokenizer.eos_ids  # nothing follows EOS


def bad_layout(rng: random.Random, eng: Engine, live: list[Request], bitmask: torch.Tensor) -> None:
    r = rng.choice(live)
    entries = rng.choice([
        [(r.state, -1, [])],
        [(r.state, ROWS, [])],
        [(r.state, ROWS - 1, [1])],
        [(r.state, 0, [1, 2]), (live[0].state, 2, [])],
        [(r.state, 3, []), (live[-1].state, 3, [])],
        [(r.state, 0.0, [])],
    ])
    before = bitmask.clone()
    with pytest.raises(BoundaryError):
        eng.fill(bitmask, entries)
    assert torch.equal(bitmask, before)
    seen("bad-layout")


def finish(rng: random.Random, eng: Engine, r: Request) -> None:
    """EOS where the oracle allows it: inside the block (no answer: `answer-missing`, never a
    success) or once the answer is complete (then final validation against jsonschema)."""
    eos = eng.tokenizer.eos_ids[0]
    ended = bool(r.tokens) and r.tokens[-1] in eng.tokenizer.eos_ids  # EOS accepted, pending
    if not ended and not verdict(r.kind, r.tokens, eos):
        return
    o = oracle(r.kind)
    where = o.output.split(o.text(r.tokens))
    if where is not None and where[0] == "reasoning" and rng.random() < 0.8:
        return  # mostly let the block go on
    assert r.state.commit([foreign(rng, t) for t in r.tokens[len(r.tokens) - r.pending :]] + ([] if ended else [eos]))
    r.pending = 0
    r.finished = True
    if where is not None and where[0] == "reasoning":
        with pytest.raises(StructuredOutputError) as exc:
            finalize_request(r.state, "stop")
        assert exc.value.code == "answer-missing"
        seen("answer-missing")
        return
    outcome = finalize_request(r.state, "stop")
    value = json.loads(r.state.answer)
    assert outcome.value == value
    jsonschema.validate(value, SCHEMA)
    seen(f"answer-{r.kind}")


def test_boundary_fuzz():
    SEEN.clear()
    eng = engine()
    active = eng.active
    for seed in range(SEEDS):
        rng = random.Random(seed)
        bitmask = eng.allocate_bitmask(ROWS)
        live: list[Request] = []
        for _ in range(STEPS):
            step(rng, eng, live, bitmask)
        for r in live:
            r.state.release()
    assert eng.active == active
    print(sorted(SEEN.items()))
    wanted = {"accept-taken", "commit-taken", "commit-refused", "rollback", "foreign", "bad-layout", "answer-missing",
              "row-reasoning", "row-reasoning-draft", "row-separator", "row-separator-draft", "row-answer", "row-answer-draft",
              "row-stop-draft", "answer-plain", "answer-open", "answer-closed"}
    assert wanted <= set(SEEN), wanted - set(SEEN)
