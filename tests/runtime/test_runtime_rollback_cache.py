"""Every mask row the runtime writes equals a fresh matcher's, despite llguidance's stale mask
cache after rollback (docs/llguidance-deviations.md, "Matcher behaviour" 4).

A request's matcher is rolled back by drafts (`RequestState.fill`, and llguidance's own draft
call in `MaskFiller.fill`) and by `rollback`/diverging `commit` of pending tokens. The
reference for a row is a matcher that never rolled back: a copy of the pristine matcher that
consumes the committed, pending and draft tokens in one go. Grammars and tokens are the
deviation's: `{"a":` and `{"b":` reach the same (lexer state, row index), so a stale mask
allows `"1.5"` after `"a":` (the commit then fails) or forbids it after `"b":`. "schema" is
schemac's grammar for it (plus an integer array, for long runs); "lark" is the deviation's
four-line grammar, where `{` has a forced byte, so no mask computed there heals the cache.
"""
from __future__ import annotations

import json
import random
from functools import lru_cache
from typing import Any

import pytest
import torch

import schemac
from schemac.artifact import Artifact
from schemac.runtime import Engine, RequestOptions, tekken_tokenizer

SCHEMA = {"type": "object", "properties": {"a": {"const": 1.5, "minimum": 1}, "b": {"const": "1.5", "minLength": 1},
                                           "c": {"type": "array", "items": {"type": "integer"}}}}
LARK = 'start: "{" ("\\"a\\"" KSEP N | "\\"b\\"" KSEP S) "}"\nKSEP: /: ?/\nN: /1\\.50*/\nS: "\\"1.5\\""'
ADDED = ('"a":', '"b"', '"1.5"')
POOL = ["{", "}", *ADDED, ":", "1.5", "0", "1", "12", ",", " ", '"', '"c":', "[", "]", "-", "7", ": ", ", "]
#: per grammar: the prefix of the never-committing runs (a region where the answer can grow)
LONG_PREFIX = {"schema": '{"c": [1', "lark": '{"a":1.5'}


@lru_cache(maxsize=None)
def engine() -> Engine:
    hf = tekken_tokenizer(vocab_size=4000, added_tokens=ADDED)
    return Engine.from_hf(hf, lm_head_size=len(hf))


@lru_cache(maxsize=None)
def artifact(kind: str = "schema") -> Artifact:
    if kind == "schema":
        return schemac.compile(SCHEMA)
    return Artifact(key="rollback-cache-lark", dialect="2020-12", source_dialect="2020-12", schema={}, lowered={},
                    grammar=json.dumps({"grammars": [{"lark_grammar": LARK}]}), options={})


@lru_cache(maxsize=None)
def pristine(kind: str) -> Any:
    import llguidance

    return llguidance.LLMatcher(engine().tokenizer.ll, artifact(kind).grammar, log_level=0)


def ids(text: str) -> list[int]:
    return engine().tokenizer.ll.tokenize_str(text)


OPEN, A, B, COLON, STR15, ONE = (ids(t)[0] for t in ("{", '"a":', '"b"', ":", '"1.5"', "1"))
POOL_IDS = sorted({t for s in POOL for t in ids(s)})


def admit(kind: str = "schema") -> Any:
    state = engine().admit(artifact(kind), RequestOptions(engine().tokenizer.fingerprint))
    state.wait_ready(30)
    return state


def fresh(tokens: list[int], kind: str = "schema") -> Any:
    m = pristine(kind).deep_copy()
    assert not tokens or m.consume_tokens(tokens), tokens
    return m


def fresh_row(tokens: list[int], kind: str = "schema") -> torch.Tensor:
    import llguidance.torch as llt

    bm = engine().allocate_bitmask(1)
    llt.fill_next_token_bitmask(fresh(tokens, kind), bm, 0)
    return bm[0]


def allows(row: torch.Tensor, token: int) -> bool:
    return bool((int(row[token // 32]) >> (token % 32)) & 1)


def allowed_ids(row: torch.Tensor) -> list[int]:
    import numpy as np

    bits = np.unpackbits(row.numpy().view(np.uint8), bitorder="little")[: engine().tokenizer.vocab_size]
    return np.flatnonzero(bits).tolist()


def expected_rows(history: list[int], drafts: list[int], kind: str = "schema") -> torch.Tensor:
    """Row j: a fresh matcher after `history` + drafts[:j]; stop rows past a draft its row
    forbids or once the grammar has ended."""
    out = engine().allocate_bitmask(len(drafts) + 1)
    out[:] = engine().filler.stop
    for j in range(len(drafts) + 1):
        out[j] = fresh_row(history + drafts[:j], kind)
        if j == len(drafts) or not allows(out[j], drafts[j]) or fresh(history + drafts[:j], kind).is_stopped():
            break
    return out


def filled(state: Any, drafts: list[int], batch: bool) -> torch.Tensor:
    bm = engine().allocate_bitmask(len(drafts) + 1)
    bm.fill_(0x5A5A)  # garbage: every row must be written
    if batch:
        engine().fill(bm, [(state, 0, drafts)])
    else:
        state.fill(bm, 0, drafts)
    return bm


@pytest.mark.parametrize("kind", ["schema", "lark"])
@pytest.mark.parametrize("batch", [True, False])
def test_diverging_commit_after_drafts_gets_a_fresh_row(batch: bool, kind: str) -> None:
    """The deviation's scenario: after `{`, drafts `"b"` `:` are filled, the engine commits the
    diverging `"a":`: the next row is a fresh matcher's (`1`, not `"1.5"`), and `1` commits."""
    state = admit(kind)
    assert state.commit([OPEN])
    assert torch.equal(filled(state, [B, COLON], batch), expected_rows([OPEN], [B, COLON], kind))
    assert state.commit([A])
    row = filled(state, [], batch)[0]
    assert torch.equal(row, fresh_row([OPEN, A], kind))
    assert allows(row, ONE) and not allows(row, STR15)
    assert state.commit([ONE]) and state.error is None
    state.release()


@pytest.mark.parametrize("kind", ["schema", "lark"])
@pytest.mark.parametrize("batch", [True, False])
def test_the_other_direction_keeps_the_admitted_token(batch: bool, kind: str) -> None:
    """Drafts `"a":` then the diverging `"b"` `:`: the stale mask would forbid `"1.5"`."""
    state = admit(kind)
    assert state.commit([OPEN])
    filled(state, [A], batch)
    assert state.commit([B, COLON])
    row = filled(state, [], batch)[0]
    assert torch.equal(row, fresh_row([OPEN, B, COLON], kind)) and allows(row, STR15)
    assert state.commit([STR15]) and state.error is None
    state.release()


@pytest.mark.parametrize("mask_after_rollback", [False, True])
def test_pending_rollback_then_diverging_commit(mask_after_rollback: bool) -> None:
    """The same through pending tokens: accept `"b"` `:`, fill, roll back (a row at `{`
    itself is right, and heals nothing: `{` has a forced byte), commit `"a":`."""
    state = admit("lark")
    assert state.commit([OPEN]) and state.accept([B, COLON])
    filled(state, [], True)
    state.rollback(2)
    if mask_after_rollback:
        assert torch.equal(filled(state, [], True)[0], fresh_row([OPEN], "lark"))
    assert state.commit([A])
    assert torch.equal(filled(state, [], True)[0], fresh_row([OPEN, A], "lark"))
    state.release()


def test_drafts_that_follow_rolled_back_tokens_clone_nothing() -> None:
    """Accepted drafts and re-accepted pending tokens re-follow the tokens undone: the rows
    are still a fresh matcher's, and the matcher was never replaced (no deep copy)."""
    state = admit("lark")
    assert state.commit([OPEN])
    matcher = state.parallel_matcher()
    filled(state, [B, COLON], True)
    assert state.commit([B, COLON])
    assert torch.equal(filled(state, [], True)[0], fresh_row([OPEN, B, COLON], "lark"))
    assert state.accept([STR15])
    state.rollback(1)
    assert state.accept([STR15])
    assert torch.equal(filled(state, [], True)[0], fresh_row([OPEN, B, COLON, STR15], "lark"))
    assert state.parallel_matcher() is matcher
    state.release()


def _pick(rng: random.Random, history: list[int], kind: str, avoid: frozenset[int],
          stop_ok: bool = False) -> int | None:
    """A token a fresh matcher allows after `history`, preferring the colliding keys, then pool
    tokens; None if there is none."""
    eos = set(engine().tokenizer.eos_ids)
    every = [t for t in allowed_ids(fresh_row(history, kind)) if (stop_ok or t not in eos) and t not in avoid]
    for preferred, p in (((A, B, COLON), 0.6), (POOL_IDS, 0.8)):
        some = [t for t in preferred if t in every]
        if some and rng.random() < p:
            return rng.choice(some)
    return rng.choice(every) if every else None


def _chain(rng: random.Random, history: list[int], n: int, kind: str, avoid: frozenset[int]) -> list[int]:
    out: list[int] = []
    for _ in range(n):
        if fresh(history + out, kind).is_stopped():
            break
        t = _pick(rng, history + out, kind, avoid, stop_ok=not avoid and rng.random() < 0.1)
        if t is None:
            break
        out.append(t)
    return out


def _commit(state: Any, committed: list[int], pending: list[int], delta: list[int]) -> tuple[list[int], list[int]]:
    """`state.commit(delta)` and the model of it: the delta's pending head is acknowledged; a
    delta that goes past it rolls the remaining pending tokens back."""
    assert state.commit(delta), state.error
    same = next((i for i, (a, b) in enumerate(zip(delta, pending)) if a != b), min(len(delta), len(pending)))
    return committed + delta, (pending[len(delta):] if same == len(delta) else [])


@pytest.mark.parametrize("kind", ["schema", "lark"])
@pytest.mark.parametrize("seed", range(8))
def test_random_runs_match_fresh_matchers_row_by_row(seed: int, kind: str) -> None:
    """Seeded random runs of accept / fill with drafts (batch or not) / rollback / commit (the
    pending head, then diverging or not) / speculative steps (fill drafts, then commit an
    accepted prefix and a bonus token, mostly diverging); a new request every 6 steps or when
    the grammar ended. Every row written equals a fresh matcher's. Seeds 6 and 7 never commit
    (everything pending, as the SGLang integration does) and stay in a region where the answer
    grows, with short rollbacks: the history passes the replay bound and rebuilds use anchors."""
    rng = random.Random(seed)
    never_commit = seed >= 6
    avoid = frozenset(ids("]") + ids("}")) if never_commit else frozenset()
    state, committed, pending = None, [], []
    anchored, compared = False, 0
    for step in range(90 if never_commit else 60):
        if state is None or fresh(committed + pending, kind).is_stopped() or (not never_commit and step % 6 == 0):
            if state is not None:
                state.release()
            state, committed, pending = admit(kind), [], []
            if never_commit:
                pending = ids(LONG_PREFIX[kind])
                assert state.accept(pending)
        history = committed + pending
        op = rng.choice(["accept", "accept", "fill", "rollback", "spec", "spec"] + ([] if never_commit else ["commit"]))
        if op == "accept":
            toks = _chain(rng, history, rng.randint(1, 3), kind, avoid)
            if toks:
                assert state.accept(toks), state.error
                pending += toks
        elif op == "rollback":
            n = rng.randint(0, min(len(pending), 4) if never_commit else len(pending))
            state.rollback(n)
            del pending[len(pending) - n :]
        elif op == "commit":
            same = rng.randint(0, len(pending))
            delta = pending[:same] + _chain(rng, committed + pending[:same], rng.randint(0, 2), kind, avoid)
            committed, pending = _commit(state, committed, pending, delta)
        else:  # fill: drafts; spec: valid drafts, then an accepted prefix and a bonus token
            drafts = _chain(rng, history, rng.randint(op == "spec", 3), kind, avoid)
            if op == "fill" and rng.random() < 0.3:
                drafts = rng.sample(POOL_IDS, 2)
            got = filled(state, drafts, rng.random() < 0.6)
            assert torch.equal(got, expected_rows(history, drafts, kind)), (op, history, drafts)
            compared += len(drafts) + 1
            if op == "spec":
                kept = drafts[: rng.randint(0, len(drafts) - (rng.random() < 0.7))]
                bonus = _chain(rng, history + kept, 1, kind, avoid)
                if never_commit:
                    assert state.accept(kept + bonus), state.error
                    pending += kept + bonus
                elif pending + kept + bonus:
                    committed, pending = _commit(state, committed, pending, pending + kept + bonus)
        assert state.error is None, (op, state.error)
        assert state.pending == len(pending)
        assert torch.equal(filled(state, [], True)[0], fresh_row(committed + pending, kind)), op
        compared += 1
        anchored = anchored or state._m.anchor is not None
    # the anchor path was taken where it should be (the lark grammar's long region, `0`s, has
    # one token at each step: drafts and pending tokens can only follow, nothing is rebuilt)
    assert anchored == (never_commit and kind == "schema")
    assert compared >= 80
    state.release()


def test_a_first_row_without_forced_bytes_heals_the_cache_without_a_copy() -> None:
    """Inside the integer array nothing is forced: the batch fill computes the first row last
    (after llguidance's draft call), which resets llguidance's one-entry mask cache to the
    committed state, so a token that leaves the drafts needs no rebuilt matcher, and the next
    row is still a fresh matcher's."""
    state = admit()
    history = ids('{"c": [1')
    assert state.commit(history)
    matcher = state.parallel_matcher()
    assert not matcher.compute_ff_bytes()
    drafts = ids("2, 3")
    filled(state, drafts, batch=True)
    leave = ids(", ")
    assert leave[0] != drafts[0] and state.commit(leave)
    assert state.parallel_matcher() is matcher  # no rebuild
    history += leave
    assert torch.equal(filled(state, [], batch=True)[0], fresh_row(history))
