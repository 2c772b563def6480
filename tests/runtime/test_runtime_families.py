"""The tokenizer adapter is exact for every tokenizer family the runtime meets.

Families: sentencepiece (mistral-common `tokenizer.model.v1`: `▁` spaces, byte fallback, a
start-of-text `▁` rule in the transformers conversion), tekken (tiktoken-style, mistral-common)
and a byte-level BPE (GPT-2/Qwen style) trained here offline. For random schemas with a valid
instance whose text the grammar accepts under a byte vocabulary: the adapter tokenises the text
as the model does mid-text, every token of it is allowed by the mask at its step and consumed,
the answer can end, and the masks equal those of llguidance's own HF adapter wherever both are
defined (texts both tokenise alike, tokens both treat alike: llguidance marks every `<...>`
added token special and turns special-token spellings in text into control tokens).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import llguidance
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import schemac
from testkit.grammar_harness import accepts
from testkit.runtime_vocabularies import vocabulary
from schemac.runtime import Engine, RequestOptions, adapt_tokenizer
from schemac.runtime.tokenizer import TokenizerAdapter

FAMILIES = ("sentencepiece", "tekken", "byte-level")


def hf_tokenizer(family: str) -> Any:
    return vocabulary(family, added=True)


@lru_cache(maxsize=None)
def reference(family: str) -> Any:
    """llguidance's own adapter for the same tokenizer."""
    import llguidance.hf

    hf = hf_tokenizer(family)
    return llguidance.hf.from_tokenizer(hf, eos_token=hf.eos_token_id)


# -- schemas with a valid instance ------------------------------------------------------------
PIECES = ["a", "b", "Z", " ", "  ", "▁", "▁a", "é", "€", "😀", "<think>", "</think>", "</s>", "\n", '"', "\\", "1", "{", "x y"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=4).map("".join)
KEYS = st.sampled_from(["a", "name", "b c", "é", "<think>", "id"])


@st.composite
def leaf(draw: Any) -> tuple[dict, Any]:
    kind = draw(st.sampled_from(["string", "maxlen", "enum", "const", "integer", "range", "boolean", "null"]))
    if kind == "string":
        return {"type": "string"}, draw(TEXT)
    if kind == "maxlen":
        value = draw(TEXT)
        return {"type": "string", "maxLength": len(value) + draw(st.integers(0, 3))}, value
    if kind in ("enum", "const"):
        value = draw(TEXT)
        return ({"enum": [value, draw(TEXT) + "!"]} if kind == "enum" else {"const": value}), value
    if kind == "integer":
        return {"type": "integer"}, draw(st.integers(-10**6, 10**6))
    if kind == "range":
        value = draw(st.integers(-50, 50))
        return {"type": "integer", "minimum": value - draw(st.integers(0, 9)), "maximum": value + 3}, value
    if kind == "boolean":
        return {"type": "boolean"}, draw(st.booleans())
    return {"type": "null"}, None


@st.composite
def schema_and_text(draw: Any) -> tuple[dict, str]:
    shape = draw(st.sampled_from(["leaf", "object", "array"]))
    if shape == "leaf":
        schema, value = draw(leaf())
    elif shape == "array":
        item, first = draw(leaf())
        schema, value = {"type": "array", "items": item}, [first] * draw(st.integers(0, 3))
    else:
        keys = draw(st.lists(KEYS, min_size=1, max_size=3, unique=True))
        parts = [draw(leaf()) for _ in keys]
        schema = {
            "type": "object",
            "properties": {k: s for k, (s, _) in zip(keys, parts)},
            "required": keys,
            "additionalProperties": False,
        }
        value = {k: v for k, (_, v) in zip(keys, parts)}
    seps = draw(st.sampled_from([(", ", ": "), (",", ":")]))
    return schema, json.dumps(value, ensure_ascii=False, separators=seps)


# -- helpers ---------------------------------------------------------------------------------
def mask_of(matcher: Any) -> np.ndarray:
    return np.frombuffer(matcher.compute_bitmask(), dtype=np.uint32)


def allowed(mask: np.ndarray, token: int) -> bool:
    return bool((int(mask[token // 32]) >> (token % 32)) & 1)


def comparable(ours: TokenizerAdapter, ref: Any) -> np.ndarray:
    """Bits of tokens both adapters treat alike (same specialness)."""
    words = (ours.vocab_size + 31) // 32
    keep = np.zeros(words * 32, dtype=bool)
    for i in range(ours.vocab_size):
        keep[i] = (i in ours.special_ids) == ref.is_special_token(i)
    return np.packbits(keep.reshape(words, 32)[:, ::-1], axis=1).view(">u4").reshape(words).astype(np.uint32)


@lru_cache(maxsize=None)
def comparable_bits(family: str) -> np.ndarray:
    return comparable(adapt_tokenizer(hf_tokenizer(family)), reference(family))


def in_context(family: str, text: str) -> list[int] | None:
    """The model's own tokenisation of `text` after a newline: the tokens after the newline,
    or None when a token straddles the boundary."""
    hf = hf_tokenizer(family)
    ids = hf.encode("\n" + text, add_special_tokens=False)
    ad = adapt_tokenizer(hf)
    spelled = b""
    for n, t in enumerate(ids):
        spelled += ad.token_bytes(t)
        if spelled.lstrip(b" ") == b"\n":
            return ids[n + 1 :]
        if len(spelled.lstrip(b" ")) > 1:
            return None
    return None


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=25, deadline=None)
@given(case=schema_and_text())
def test_canonical_tokenisation_is_accepted_and_masks_match_llguidance(family, case):
    schema, text = case
    art = schemac.compile(schema)
    assume(accepts(art.grammar, text))
    ad = adapt_tokenizer(hf_tokenizer(family))
    ids = ad.ll.tokenize_str(text)
    assert ad.decode(ids) == text.encode()
    model_ids = in_context(family, text)
    if model_ids is not None and ad.decode(model_ids) == text.encode():
        assert ids == model_ids  # the model's own mid-text tokenisation
    ours = llguidance.LLMatcher(ad.ll, art.grammar, log_level=0)
    ref = llguidance.LLMatcher(reference(family), art.grammar, log_level=0)
    # where llguidance's adapter tokenises the text otherwise (it turns `</s>` text into the EOS
    # control token and `<think>` into a special token), its forced-token masks differ by design
    compare = reference(family).tokenize_str(text) == ids
    keep = comparable_bits(family)
    for token in ids:
        mask = mask_of(ours)
        assert not ours.is_error(), ours.get_error()
        assert allowed(mask, token), (ad.ll.dbg_tokens(ids), ad.ll.dbg_tokens([token]))
        if compare and not ref.is_error():
            ref_mask = mask_of(ref)
            if not ref.is_error():
                assert np.array_equal(mask & keep, ref_mask & keep)
        assert ours.consume_token(token), ours.get_error()
        ref.consume_token(token)
    assert ours.is_accepting() and allowed(mask_of(ours), ad.eos_ids[0])


@pytest.mark.parametrize("family", FAMILIES)
def test_added_non_special_tokens_stay_visible_text(family):
    hf = hf_tokenizer(family)
    ad = adapt_tokenizer(hf)
    think = hf.convert_tokens_to_ids("<think>")
    assert ad.token_bytes(think) == b"<think>" and think not in ad.special_ids
    assert not ad.ll.is_special_token(think)
    assert reference(family).is_special_token(think)  # llguidance's adapter hides it
    art = schemac.compile({"type": "string"})
    ids = ad.ll.tokenize_str('"a<think>b"')
    assert think in ids
    m = llguidance.LLMatcher(ad.ll, art.grammar, log_level=0)
    for t in ids:
        assert allowed(mask_of(m), t) and m.consume_token(t)
    assert m.is_accepting()
    for t in ad.eos_ids:
        assert t in ad.special_ids and ad.token_bytes(t) == b""


def test_sentencepiece_first_token_and_short_strings():
    """The issue's reproductions: `{"` (not `▁{"`) opens an object; `maxLength` does not panic."""
    hf = hf_tokenizer("sentencepiece")
    ad = adapt_tokenizer(hf)
    assert [ad.token_bytes(t) for t in ad.ll.tokenize_str('{"a')] == [b'{"', b"a"]
    assert ad.ll.tokenize_str(" a") == hf.encode("x a", add_special_tokens=False)[1:]  # mid-text ▁a
    eng = Engine(ad, lm_head_size=ad.vocab_size)
    for schema, text in [
        ({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, '{"a": 12}'),
        ({"type": "string", "maxLength": 5}, '"ab▁c"'),
    ]:
        state = eng.admit(schemac.compile(schema), RequestOptions(ad.fingerprint))
        state.wait_ready(60)
        import torch

        bm = eng.allocate_bitmask(1)
        for t in ad.ll.tokenize_str(text):
            eng.fill(bm, [(state, 0, ())])
            assert (int(bm[0, t // 32]) >> (t % 32)) & 1, ad.ll.dbg_tokens([t])
            assert state.commit([t]), state.error
        assert state.is_accepting() and state.error is None
        state.release()
        assert torch.equal(bm[0], bm[0])


def test_literal_metaspace_is_spelled_by_bytes():
    """`▁` in the text is a space to sentencepiece; the adapter spells it with byte tokens so the
    tokens decode to the text's bytes."""
    ad = adapt_tokenizer(hf_tokenizer("sentencepiece"))
    for text in ["▁", "a▁b", "x ▁ y"]:
        assert ad.decode(ad.ll.tokenize_str(text)) == text.encode()


def test_llguidance_panic_is_reported_as_such():
    """A tokenizer whose encoding does not spell its text (the old sentencepiece adapter) drives
    llguidance into a panic; the request fails with `llguidance-panic`, not a grammar error."""
    good = adapt_tokenizer(hf_tokenizer("sentencepiece"))
    backend = hf_tokenizer("sentencepiece").backend_tokenizer

    class _PrefixingSource:  # encodes every text as a start of text: `▁` prepended
        eos_token_id = good.eos_ids[0]
        bos_token_id = None
        special_token_ids = sorted(good.special_ids)
        tokens = list(good.tokens)

        def __call__(self, text: str) -> list[int]:
            return backend.encode(text, add_special_tokens=False).ids

    ll = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_PrefixingSource()), n_vocab=good.vocab_size, eos_token=list(good.eos_ids))
    bad = TokenizerAdapter(good.tokens, good.special_ids, good.eos_ids, good.vocab_size, "sha256:prefixing", ll)
    eng = Engine(bad, lm_head_size=bad.vocab_size)
    state = eng.admit(schemac.compile({"type": "string", "maxLength": 5}), RequestOptions(bad.fingerprint))
    state.wait_ready(60)
    bm = eng.allocate_bitmask(1)
    eng.fill(bm, [(state, 0, ())])
    assert state.terminated
    assert state.error is not None and state.error.code == "llguidance-panic"
    assert torch_equal(bm[0], eng.filler.stop)


def torch_equal(a: Any, b: Any) -> bool:
    import torch

    return torch.equal(a, b)


@pytest.mark.parametrize("family", FAMILIES)
def test_engine_decodes_a_valid_answer_with_drafts(family):
    """Engine level, per family: the canonical tokens of a valid answer, drafted two ahead, are
    allowed in every row they reach, committed in a batch, and finalize to the value."""
    from schemac.runtime import finalize_request

    hf = hf_tokenizer(family)
    eng = Engine.from_hf(hf, lm_head_size=len(hf) + 7)
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 12}, "n": {"type": "integer"}},
              "required": ["name", "n"], "additionalProperties": False}
    value = {"name": "é <think> ▁x", "n": -42}
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    state = eng.admit(schemac.compile(schema), RequestOptions(eng.tokenizer.fingerprint))
    state.wait_ready(60)
    ids = eng.tokenizer.ll.tokenize_str(text) + [eng.tokenizer.eos_ids[0]]
    bm = eng.allocate_bitmask(3)
    for i, token in enumerate(ids):
        drafts = ids[i : i + 2]  # proposals for this position and the next: row j follows drafts[:j]
        eng.fill(bm, [(state, 0, drafts)])
        for j, t in enumerate(ids[i : i + 3]):
            assert (int(bm[j, t // 32]) >> (t % 32)) & 1, (family, i, j, eng.tokenizer.ll.dbg_tokens([t]))
        assert eng.commit([(state, [token])]) == [True]
    assert finalize_request(state, "stop").value == value
    state.release()
