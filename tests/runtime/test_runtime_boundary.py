"""The engine boundary: misuse ends one request with a typed error (or is a documented no-op),
never an exception in the engine loop; speculative rows stay right when the bitmask is reused."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import schemac
from schemac.artifact import Artifact
from schemac.runtime import Engine, RequestOptions, StructuredOutputError, finalize_request, tekken_tokenizer

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
    return Engine.from_hf(tok(), lm_head_size=VOCAB + 64)


@lru_cache(maxsize=None)
def art() -> Artifact:
    return schemac.compile(SCHEMA)


def enc(text: str) -> list[int]:
    return tok().encode(text, add_special_tokens=False)


GOOD = enc('{"n": 12, "tag": "red", "s": "abc"}')


def admit():
    eng = engine()
    state = eng.admit(art(), RequestOptions(eng.tokenizer.fingerprint))
    state.wait_ready(30)
    return state


# -- errors per request ----------------------------------------------------------------------
@pytest.mark.parametrize("bad", [-1, VOCAB, VOCAB + 63, 2**40, "7", 1.0, None, True])
@pytest.mark.parametrize("call", ["commit", "accept"])
def test_out_of_vocabulary_ids_fail_only_that_request(bad, call):
    s, other = admit(), admit()
    s.commit(GOOD[:2])
    other.commit(GOOD[:2])
    assert getattr(s, call)([GOOD[2], bad]) is False
    assert s.error is not None and s.error.code == "invalid-token"
    assert s.acknowledged == 2  # nothing of the rejected delta is reported consumed
    with pytest.raises(StructuredOutputError):
        s.check()
    assert other.commit(GOOD[2:]) and other.is_accepting()
    s.release()
    other.release()


def test_numpy_and_tensor_ids_are_ids():
    s = admit()
    assert s.commit([np.int64(GOOD[0]), torch.tensor(GOOD[1])])
    assert s.commit(np.array(GOOD[2:], dtype=np.int32).tolist()) and s.is_accepting()


def test_calls_after_release_are_no_ops():
    eng = engine()
    s = admit()
    s.commit(GOOD[:3])
    s.accept(GOOD[3:5])
    s.release()
    active = eng.active
    assert s.commit(GOOD[3:]) is False and s.acknowledged == 3  # never reports unconsumed tokens
    assert s.accept(GOOD[3:4]) is False
    s.rollback(5)  # documented no-op after release
    s.rollback()
    s.release()
    assert eng.active == active and s.error is None and s.terminated
    bm = eng.allocate_bitmask(3)
    eng.fill(bm, [(s, 0, [GOOD[3], -1])])
    assert all(torch.equal(r, eng.filler.stop) for r in bm)
    s.check()  # a released request has no error to raise


@pytest.mark.parametrize("n", [3, -1, np.int64(3), torch.tensor(-1)])
def test_rollback_past_acknowledged_fails_the_request(n):
    s = admit()
    s.commit(GOOD[:2])
    s.accept(GOOD[2:4])
    s.rollback(n)
    assert s.error is not None and s.error.code == "rollback-past-acknowledged"
    assert s.pending == 0 and s.acknowledged == 2 and s.terminated


def test_commit_before_ready_fails_instead_of_raising():
    eng = Engine.from_hf(tok(), lm_head_size=VOCAB)
    from concurrent.futures import Future

    class _Never:
        def submit(self, fn, *args):
            return Future()

    eng.loader._executor = _Never()
    s = eng.admit(schemac.compile({"type": "integer"}), RequestOptions(eng.tokenizer.fingerprint))
    assert not s.ready()
    assert s.commit(enc("1")) is False
    assert s.error is not None and s.error.code == "request-not-ready"
    bm = eng.allocate_bitmask(1)
    eng.fill(bm, [(s, 0, ())])
    assert torch.equal(bm[0], eng.filler.stop)


def test_grammar_rejection_reports_only_consumed_tokens():
    s = admit()
    assert s.commit(GOOD[:3])
    assert s.commit(enc("zz") + GOOD[3:]) is False
    assert s.error is not None and s.error.code == "grammar-rejected"
    assert s.acknowledged == 3  # the rejected token and those after it were not consumed


@pytest.mark.parametrize("batch", [True, False])
def test_out_of_vocabulary_drafts_end_the_drafts_without_poisoning(batch):
    s = admit()
    s.commit(GOOD[:2])
    for bad in (-1, VOCAB, VOCAB + 10):
        bm = engine().allocate_bitmask(4)
        drafts = [GOOD[2], bad, GOOD[3]]
        if batch:
            engine().fill(bm, [(s, 0, drafts)])
        else:
            s.fill(bm, 0, drafts, engine().filler.stop)
        assert torch.equal(bm[2], engine().filler.stop) and torch.equal(bm[3], engine().filler.stop)
        assert not torch.equal(bm[1], engine().filler.stop)
    assert s.error is None and s.pending == 0
    assert s.commit(GOOD[2:]) and s.is_accepting()


# -- speculative rows with one bitmask reused across steps ------------------------------------
def sequential_rows(committed: list[int], drafts: list[int]) -> torch.Tensor:
    """Rows computed by feeding the drafts one by one through the mask, on a fresh bitmask."""
    ref = admit()
    assert ref.commit(committed)
    stop = engine().filler.stop
    out = engine().allocate_bitmask(len(drafts) + 1)
    alive = True
    for i in range(len(drafts) + 1):
        if not alive:
            out[i] = stop
            continue
        ref.fill(out, i)
        if i < len(drafts):
            t = drafts[i]
            alive = bool((int(out[i, t // 32]) >> (t % 32)) & 1) and ref.commit([t])
    ref.release()
    return out


@settings(max_examples=10, deadline=None)
@given(k=st.integers(1, 4), batch=st.booleans(), noise=st.lists(st.integers(0, VOCAB - 1), min_size=8, max_size=8))
def test_reused_bitmask_rows_equal_sequential(k, batch, noise):
    """One bitmask tensor, reused every step (as engines do): each step's draft rows equal the
    sequential recomputation, whatever earlier steps left in the tensor. Each step first
    drafts the tokens one position ahead (mostly forbidden there), then the right ones, which
    the next step drafts again at the same rows, now allowed."""
    eng = engine()
    s = admit()
    bm = eng.allocate_bitmask(k + 1)
    pos = 0
    step = 0
    while pos < len(GOOD):
        ahead = GOOD[pos + 1 : pos + 1 + k] or [noise[step % len(noise)]]
        right = GOOD[pos : pos + k]
        if step % 3 == 2:  # and some steps draft a wrong token last
            right = right[:-1] + [noise[step % len(noise)]]
        for drafts in (ahead, right):
            if batch:
                eng.fill(bm, [(s, 0, drafts)])
            else:
                s.fill(bm, 0, drafts, eng.filler.stop)
            assert torch.equal(bm[: len(drafts) + 1], sequential_rows(GOOD[:pos], drafts)), (pos, drafts)
        assert s.commit(GOOD[pos : pos + 1])
        pos += 1
        step += 1
    assert s.is_accepting()


# -- batch commit (parallel consume) equals commit one by one ---------------------------------
@settings(max_examples=10, deadline=None)
@given(plan=st.lists(st.lists(st.sampled_from(["good", "bad", "eos", "oov", "two", "none"]), min_size=6, max_size=6), min_size=1, max_size=5))
def test_engine_commit_equals_sequential_commits(plan):
    eng = engine()
    twins = [(admit(), admit()) for _ in plan]
    pos = [0] * len(plan)
    for step in range(6):
        batch, expected = [], []
        for n, (a, b) in enumerate(twins):
            kind = plan[n][step]
            p = pos[n]
            tokens = {
                "good": GOOD[p : p + 1],
                "bad": enc("zz")[:1],
                "eos": [2],
                "oov": [-1],
                "two": GOOD[p : p + 2],
                "none": [],
            }[kind]
            pos[n] += len(tokens) if kind in ("good", "two") else 0
            batch.append((a, tokens))
            expected.append(b.commit(tokens))
        assert eng.commit(batch) == expected
        for a, b in twins:
            assert (a.acknowledged, a.answer, a.terminated) == (b.acknowledged, b.answer, b.terminated)
            assert (a.error and a.error.code) == (b.error and b.error.code)
    for a, b in twins:
        a.release()
        b.release()


def test_one_request_twice_in_a_batch():
    """An engine that lists a request twice gets what two calls in order give, not an error."""
    eng = engine()
    s, ref = admit(), admit()
    assert eng.commit([(s, GOOD[:1]), (s, GOOD[1:2])]) == [ref.commit(GOOD[:1]), ref.commit(GOOD[1:2])]
    assert s.answer == ref.answer and s.acknowledged == ref.acknowledged == 2
    bm = eng.allocate_bitmask(4)
    eng.fill(bm, [(s, 0, GOOD[2:3]), (s, 2, [])])
    assert torch.equal(bm[:2], sequential_rows(GOOD[:2], GOOD[2:3]))
    assert torch.equal(bm[2:3], sequential_rows(GOOD[:2], []))


# -- engine integers and row layouts -----------------------------------------------------------
ENGINE_INTS = [lambda v: v, np.int64, np.int32, np.uint16, lambda v: torch.tensor(v), lambda v: torch.tensor(v, dtype=torch.int32)]


@pytest.mark.parametrize("as_engine", ENGINE_INTS)
def test_rollback_counts_as_engines_hold_them(as_engine):
    s = admit()
    s.commit(GOOD[:2])
    assert s.accept(GOOD[2:5])
    s.rollback(as_engine(1))  # np.int64(1) used to wipe every pending token and fail the request
    assert s.error is None and s.pending == 2
    assert s.commit(GOOD[2:]) and s.is_accepting()


@pytest.mark.parametrize("bad", [1.0, "1", None, True, np.bool_(True), torch.tensor(True), torch.tensor(1.0), torch.tensor([1]), np.array([1]), [1]])
def test_rollback_count_of_a_foreign_type_is_a_typed_error(bad):
    s = admit()
    assert s.accept(GOOD[:2])
    if bad is None:  # None is "all pending"
        s.rollback(bad)
        assert s.error is None and s.pending == 0
        return
    s.rollback(bad)
    assert s.error is not None and s.error.code == "invalid-argument" and "rollback: n" in s.error.message


@pytest.mark.parametrize("as_engine", ENGINE_INTS)
def test_rows_and_ids_as_engines_hold_them(as_engine):
    eng = engine()
    s, ref = admit(), admit()
    assert s.commit([as_engine(t) for t in GOOD[:2]]) and ref.commit(GOOD[:2])
    got, want = eng.allocate_bitmask(3), eng.allocate_bitmask(3)
    eng.fill(got, [(s, as_engine(1), [as_engine(GOOD[2])])])
    eng.fill(want, [(ref, 1, [GOOD[2]])])
    assert torch.equal(got[1:], want[1:])
    s.fill(got, as_engine(0))
    assert torch.equal(got[0], want[1])


def test_a_foreign_draft_fails_its_request_only():
    eng = engine()
    s, other = admit(), admit()
    bm = eng.allocate_bitmask(4)
    eng.fill(bm, [(s, 0, [GOOD[0], "x"]), (other, 3, [])])
    assert s.error is not None and s.error.code == "invalid-token" and "drafts[1]" in s.error.message
    assert all(torch.equal(r, eng.filler.stop) for r in bm[:3])
    assert other.error is None and not torch.equal(bm[3], eng.filler.stop)


def layouts():
    """Batches a bitmask of 4 rows cannot hold: the error's code and argument."""
    a, b = admit(), admit()
    return [
        ([(a, 0, []), (b, -1, [])], "invalid-row", "entries[1] row"),  # -1 used to wrap onto row 3
        ([(a, 0, []), (b, 4, [])], "invalid-row", "entries[1] row"),
        ([(a, 2, GOOD[:2])], "invalid-row", "entries[0] row"),  # its draft rows run past the end
        ([(a, 0, GOOD[:2]), (b, 2, [])], "overlapping-rows", "entries[1] row"),  # b on a's draft row
        ([(a, 1, []), (b, 1, [])], "overlapping-rows", "entries[1] row"),
        ([(a, 1, []), (a, 1, [])], "overlapping-rows", "entries[1] row"),
        ([(a, 1.0, [])], "invalid-argument", "entries[0] row"),
        ([(a, "1", [])], "invalid-argument", "entries[0] row"),
        ([(a, True, [])], "invalid-argument", "entries[0] row"),
        ([(a, 0, 5)], "invalid-argument", "entries[0] drafts"),
        ([(a, 0)], "invalid-argument", "entries[0]"),
    ]


def noisy_bitmask(seed: int) -> torch.Tensor:
    bm = engine().allocate_bitmask(4)
    return bm.copy_(torch.randint(-(2**31), 2**31 - 1, bm.shape, generator=torch.Generator().manual_seed(seed), dtype=torch.int32))


@pytest.mark.parametrize("case", range(11))
def test_bad_rows_are_one_typed_error_and_leave_the_bitmask_untouched(case):
    from schemac.runtime import BoundaryError

    entries, code, argument = layouts()[case]
    bm = noisy_bitmask(case)
    before = bm.clone()
    with pytest.raises(BoundaryError) as exc:
        engine().fill(bm, entries)
    assert (exc.value.code, exc.value.argument) == (code, argument)
    assert torch.equal(bm, before)
    assert all(e[0].error is None for e in entries)  # nobody's request was touched


@pytest.mark.parametrize(("row", "drafts", "code"), [(-1, [], "invalid-row"), (4, [], "invalid-row"), (2, GOOD[:2], "invalid-row"), (np.int64(-1), [], "invalid-row"), (1.0, [], "invalid-argument"), ("0", [], "invalid-argument")])
def test_bad_row_on_the_request_path(row, drafts, code):
    from schemac.runtime import BoundaryError

    s, bm = admit(), noisy_bitmask(7)
    before = bm.clone()
    with pytest.raises(BoundaryError) as exc:
        s.fill(bm, row, drafts)
    assert (exc.value.code, exc.value.argument) == (code, "row") and torch.equal(bm, before) and s.error is None


def test_bitmask_of_the_wrong_shape_is_refused():
    from schemac.runtime import BoundaryError

    eng, s = engine(), admit()
    for bad in (torch.zeros((2, eng.filler.words + 1), dtype=torch.int32), torch.zeros((2, eng.filler.words), dtype=torch.int64), np.zeros((2, eng.filler.words), dtype=np.int32)):
        with pytest.raises(BoundaryError) as exc:
            eng.fill(bad, [(s, 0, [])])
        assert exc.value.argument == "bitmask"


@pytest.mark.parametrize("batch", [True, False])
def test_rolling_back_an_eos_keeps_the_answer(batch):
    """llguidance 1.9.1 does not record an EOS taken by a stopped matcher, so its rollback(1)
    also undid the closing `}`: the mask then allowed a second `}` and refused EOS. Drafts
    ending in EOS went through the same rollback inside llguidance's draft call."""
    eng = engine()
    body = enc('{"n": 12, "tag": "red"}')
    s, ref = admit(), admit()
    assert s.commit(body) and ref.commit(body)
    want = eng.allocate_bitmask(1)
    eng.fill(want, [(ref, 0, [])])
    assert s.accept([2])
    s.rollback(np.int64(1))
    bm = eng.allocate_bitmask(3)
    if batch:
        eng.fill(bm, [(s, 0, [2, 2])])
    else:
        s.fill(bm, 0, [2, 2])
    assert torch.equal(bm[0], want[0]) and torch.equal(bm[1], eng.filler.stop) and torch.equal(bm[2], eng.filler.stop)
    eng.fill(bm, [(s, 0, [])])
    assert torch.equal(bm[0], want[0])  # the drafted EOS left nothing behind either
    assert s.commit([2]) and finalize_request(s, "stop").value == {"n": 12, "tag": "red"}


def test_mask_rows_take_engine_integers_and_refuse_booleans():
    from schemac.runtime.masking import apply_token_bitmask

    bm = engine().allocate_bitmask(2)
    bm[1] = 0
    logits = torch.zeros(3, VOCAB)
    apply_token_bitmask(logits, bm, rows=[np.int64(2), torch.tensor(0)], vocab_size=VOCAB)
    assert bool(torch.isinf(logits[0]).all()) and not bool(torch.isinf(logits[2]).any())
    with pytest.raises(ValueError, match=r"rows\[0\]"):
        apply_token_bitmask(torch.zeros(3, VOCAB), bm, rows=[True, 0], vocab_size=VOCAB)


# ---- engine arrays at the boundary (attack round 13)

def test_row_integers_refuse_non_integers() -> None:
    import numpy as np
    import torch
    from schemac.runtime.boundary import integer
    for bad in (True, np.bool_(True), torch.tensor(True), torch.tensor(1.0), np.float64(1.0), torch.tensor([1]),
                np.array([1]), 1.0, "1", None):
        assert integer(bad) is None, bad
    for good, n in ((np.uint64(2 ** 64 - 1), 2 ** 64 - 1), (np.int64(-1), -1), (torch.tensor(3, dtype=torch.int16), 3),
                    (torch.tensor(3, dtype=torch.uint8), 3)):
        assert integer(good) == n


def test_drafts_as_engine_arrays_and_a_strided_bitmask() -> None:
    """Drafts as a 1-D int64 tensor or a numpy array (what engines hold) raised "truth value
    of an array is ambiguous" in `fill` (`if drafts`); a strided bitmask view passed the
    boundary check and reached llguidance's `assert is_contiguous()` (gone under `python -O`,
    where rows are written through the data pointer): a BoundaryError before writing."""
    import numpy as np
    import torch
    from tests.runtime.test_runtime_reasoning import admit, enc, engine

    from schemac.runtime import BoundaryError
    eng = engine()
    state = admit(reasoning=None)
    drafts = enc('{"')
    want = eng.allocate_bitmask(len(drafts) + 1)
    eng.fill(want, [(state, 0, drafts)])
    for form in (torch.tensor(drafts), np.array(drafts, dtype=np.uint16), torch.tensor([], dtype=torch.int64)):
        got = eng.allocate_bitmask(len(drafts) + 1)
        got.fill_(0x1234)
        eng.fill(got, [(state, 0, form)])
        n = len(form) + 1
        assert torch.equal(got[:n], want[:n]), type(form)
    with pytest.raises(BoundaryError):
        eng.fill(eng.allocate_bitmask(4)[::2], [(state, 0, [])])
