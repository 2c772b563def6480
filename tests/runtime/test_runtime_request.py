"""Request-level runtime: commit/rollback, speculative rows, cancellation, per-request errors."""
from __future__ import annotations

from concurrent.futures import Future
from functools import lru_cache

import pytest
import torch
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import schemac
from schemac.artifact import Artifact
from schemac.runtime import Engine, RequestOptions, StructuredOutputError, tekken_tokenizer

VOCAB = 1000 + 3000
SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "tag": {"enum": ["red", "green"]}, "s": {"type": "string", "maxLength": 6}},
    "required": ["n", "tag"],
    "additionalProperties": False,
}


@lru_cache(maxsize=None)
def tok():
    return tekken_tokenizer(vocab_size=VOCAB)


@lru_cache(maxsize=None)
def engine() -> Engine:
    return Engine.from_hf(tok(), lm_head_size=VOCAB)


@lru_cache(maxsize=None)
def art() -> Artifact:
    return schemac.compile(SCHEMA)


def enc(text: str) -> list[int]:
    return tok().encode(text, add_special_tokens=False)


def admit(artifact: Artifact | None = None):
    eng = engine()
    state = eng.admit(artifact or art(), RequestOptions(eng.tokenizer.fingerprint))
    state.wait_ready(30)
    return state


def rows(state, drafts=(), batch=True) -> torch.Tensor:
    bm = engine().allocate_bitmask(len(drafts) + 1)
    bm.fill_(0x5A5A)  # garbage: every row must be written
    if batch:
        engine().fill(bm, [(state, 0, list(drafts))])
    else:
        state.fill(bm, 0, list(drafts))
    return bm


def allowed(row: torch.Tensor) -> set[int]:
    return {i for i in range(VOCAB) if (int(row[i // 32]) >> (i % 32)) & 1}


GOOD = enc('{"n": 12, "tag": "red", "s": "abc"}')


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    prefix=st.integers(0, len(GOOD)),
    drafts=st.lists(st.one_of(st.sampled_from(GOOD), st.integers(0, VOCAB - 1), st.just(2)), max_size=6),
    follow=st.integers(0, 6),
    batch=st.booleans(),
)
@example(prefix=0, drafts=[2, 2], follow=len(GOOD), batch=True)  # EOS ends the drafts: stop rows after
@example(prefix=0, drafts=[2], follow=0, batch=True)  # no valid draft at all
def test_speculative_rows_equal_sequential(prefix, drafts, follow, batch):
    committed = GOOD[:prefix]
    draft = GOOD[prefix : prefix + follow] + drafts  # a valid run, then anything
    state = admit()
    state.commit(committed)
    before = rows(state)
    got = rows(state, draft, batch)
    expected = sequential_from(committed, draft)
    assert torch.equal(got, expected)
    assert torch.equal(rows(state), before)  # drafts were rolled back
    assert state.pending == 0 and state.acknowledged == prefix
    state.release()


def sequential_from(committed: list[int], drafts: list[int]) -> torch.Tensor:
    ref = admit()
    ref.commit(committed)
    stop = engine().filler.stop
    out = engine().allocate_bitmask(len(drafts) + 1)
    alive = True
    for i in range(len(drafts) + 1):
        if not alive:
            out[i] = stop
            continue
        ref.fill(out, i)
        if i < len(drafts):
            alive = drafts[i] in allowed(out[i]) and ref.commit([drafts[i]])
    ref.release()
    return out


def test_batch_rows_follow_engine_layout():
    a, b = admit(), admit()
    b.commit(GOOD[:3])
    bm = engine().allocate_bitmask(5)
    engine().fill(bm, [(b, 3, [GOOD[3]]), (a, 0, GOOD[:2])])
    assert torch.equal(bm[0:3], sequential_from([], GOOD[:2]))
    assert torch.equal(bm[3:5], sequential_from(GOOD[:3], [GOOD[3]]))


def test_rollback_only_unacknowledged():
    s = admit()
    s.commit(GOOD[:4])
    s.accept(GOOD[4:7])
    assert s.pending == 3 and s.acknowledged == 4
    s.rollback(2)
    assert s.pending == 1
    assert torch.equal(rows(s), sequential_from(GOOD[:5], []))
    s.rollback()
    assert torch.equal(rows(s), sequential_from(GOOD[:4], []))
    assert s.answer == tok().decode(GOOD[:4])
    s.accept(GOOD[4:5])
    s.rollback(2)  # only one token is unacknowledged: the request ends, nothing raises
    assert s.error is not None and s.error.code == "rollback-past-acknowledged"
    assert s.terminated and s.pending == 0 and s.acknowledged == 4


def test_commit_acknowledges_pending_and_replays_on_divergence():
    s = admit()
    s.accept(GOOD[:5])
    s.commit(GOOD[:3])  # delta matches the pending head
    assert (s.pending, s.acknowledged) == (2, 3)
    s.commit(GOOD[3:4] + enc("9"))  # diverges at the 2nd token: the rest of pending is undone
    assert s.pending == 0
    assert s.answer == tok().decode(GOOD[:4]) + "9"
    assert torch.equal(rows(s), sequential_from(GOOD[:4] + enc("9"), []))


def test_rejected_draft_never_advances_committed_state():
    s = admit()
    s.commit(GOOD[:2])
    bad = enc("zzz")
    got = rows(s, GOOD[2:4] + bad + GOOD[4:6])
    stop = engine().filler.stop
    assert all(torch.equal(got[i], stop) for i in range(4, 6))
    assert s.acknowledged == 2 and s.pending == 0
    assert s.commit(GOOD[2:]) and s.is_accepting()


def test_cancellation_mid_draft():
    eng = engine()
    s = admit()
    active = eng.active
    s.commit(GOOD[:3])
    s.accept(GOOD[3:6])  # drafts being verified
    s.release()  # client cancelled
    s.release()  # idempotent: completion/failed submission use the same path
    assert eng.active == active - 1
    assert s.terminated
    got = rows(s, GOOD[6:8])
    assert all(torch.equal(r, eng.filler.stop) for r in got)
    s.rollback()  # late verifier result on a released request is harmless
    assert not s.accept([GOOD[6]])


def test_grammar_failure_isolated_to_one_request():
    a, b, c = admit(), admit(), admit()
    for s in (a, b, c):
        s.commit(GOOD[:3])
    assert not b.commit(enc("zz"))  # b emits a token its grammar forbids
    assert isinstance(b.error, StructuredOutputError) and b.error.code == "grammar-rejected"
    bm = engine().allocate_bitmask(3)
    engine().fill(bm, [(a, 0, []), (b, 1, []), (c, 2, [])])
    assert torch.equal(bm[1], engine().filler.stop)
    assert torch.equal(bm[0], bm[2]) and torch.equal(bm[0:1], sequential_from(GOOD[:3], []))
    assert a.commit(GOOD[3:]) and c.commit(GOOD[3:])
    assert a.is_accepting() and c.is_accepting()
    with pytest.raises(StructuredOutputError):
        b.check()


def test_grammar_compile_failure_is_per_request():
    bad = Artifact(
        key="bad",
        dialect="2020-12",
        source_dialect="2020-12",
        schema={},
        lowered={},
        grammar='{"grammars": [{"lark_grammar": "start: nosuchrule"}]}',
        options={},
    )
    s, good = admit(bad), admit()
    assert s.ready() and s.error is not None and s.error.code == "grammar-compile"
    bm = engine().allocate_bitmask(2)
    engine().fill(bm, [(s, 0, []), (good, 1, [])])
    assert torch.equal(bm[0], engine().filler.stop)
    assert good.commit(GOOD) and good.is_accepting()


def test_ready_polls_without_blocking_and_eviction_keeps_matchers():
    eng = Engine.from_hf(tok(), lm_head_size=VOCAB, cache_size=1)
    gate: Future = Future()
    eng.loader._executor = _Gated(gate)
    state = eng.admit(art(), RequestOptions(eng.tokenizer.fingerprint))
    assert not state.ready()  # returns while the gated load is pending (a blocking call would hang here)
    gate.set_result(None)
    state.wait_ready(30)
    assert state.ready()
    other = schemac.compile({"type": "integer"})
    eng.loader._executor = None
    eng.admit(other, RequestOptions(eng.tokenizer.fingerprint)).release()
    assert art().key not in eng.loader and len(eng.loader) == 1
    assert state.commit(GOOD) and state.is_accepting()  # evicted entry, request unaffected


class _Gated:
    """An executor whose jobs wait for a gate, to observe admission before compile ends."""

    def __init__(self, gate: Future) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._gate = gate
        self._pool = ThreadPoolExecutor(1)

    def submit(self, fn, *args):
        return self._pool.submit(lambda: (self._gate.result(), fn(*args))[1])


def test_empty_batch_touches_nothing():
    eng = Engine.from_hf(tok(), lm_head_size=VOCAB)
    bm = torch.full((2, eng.filler.words), 7, dtype=torch.int32)
    eng.fill(bm, [])
    assert eng.filler._executor is None and bool((bm == 7).all())


def test_release_hooks_all_run_and_a_late_hook_runs_at_once() -> None:
    """A hook that raised stopped the hooks after it (DistributedAdmission's table entry or an
    integration's live count then leaked), and a hook added after release never ran, though
    add_release_hook promises one call "whoever releases it"."""
    from tests.runtime.test_runtime_reasoning import admit
    calls: list[str] = []
    state = admit(reasoning=None)
    state.add_release_hook(lambda s: 1 / 0)
    state.add_release_hook(lambda s: calls.append("after"))
    with pytest.raises(ZeroDivisionError):
        state.release()
    state.release()  # idempotent: nothing runs twice
    assert state.released and calls == ["after"]
    state.add_release_hook(lambda s: calls.append("late"))
    assert calls == ["after", "late"]
