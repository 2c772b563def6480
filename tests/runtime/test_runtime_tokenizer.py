"""Tokenizer adapter, fingerprint and admission checks of the runtime engine."""
from __future__ import annotations

import subprocess
import sys
from functools import lru_cache

import pytest

import schemac
from schemac.runtime import AdmissionError, Engine, ReasoningConfig, RequestOptions, adapt_tokenizer, tekken_tokenizer
from schemac.runtime.fingerprint import fingerprint

VOCAB = 1000 + 3000


@lru_cache(maxsize=None)
def tok():
    return tekken_tokenizer(vocab_size=VOCAB, added_tokens=["<think>", "</think>"])


def artifact():
    return schemac.compile({"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]})


def test_non_special_added_tokens_are_visible_bytes():
    hf = tok()
    ad = adapt_tokenizer(hf)
    think, end = hf.convert_tokens_to_ids(["<think>", "</think>"])
    assert (think, end) == (VOCAB, VOCAB + 1)  # model IDs unchanged
    assert ad.token_bytes(think) == b"<think>" and think not in ad.special_ids
    assert not ad.ll.is_special_token(think) and not ad.ll.is_special_token(end)
    assert ad.ll.decode_bytes([think]) == b"<think>"
    # masking and consumption agree: the grammar takes the added token as text in a string
    import llguidance

    m = llguidance.LLMatcher(ad.ll, artifact().grammar, log_level=0)
    ids = hf.encode('{"s": "a<think>b</think>"}', add_special_tokens=False)
    assert think in ids and end in ids
    assert m.consume_tokens(ids) and m.is_accepting()


def test_special_and_eos_tokens_stay_special():
    hf = tok()
    ad = adapt_tokenizer(hf, stop_token_ids=[3])
    assert ad.eos_ids == (2, 3)
    for t in (0, 1, 2, 3):
        assert t in ad.special_ids and ad.ll.is_special_token(t)
        assert ad.token_bytes(t) == b""
    assert ad.ll.eos_tokens == [2, 3]
    assert ad.vocab_size == len(hf)


def test_adapter_is_cached_and_fingerprint_stable():
    hf = tok()
    assert adapt_tokenizer(hf) is adapt_tokenizer(hf)
    a = adapt_tokenizer(hf)
    assert a.fingerprint == fingerprint(a.tokens, a.special_ids, a.eos_ids, a.vocab_size)
    assert adapt_tokenizer(hf, stop_token_ids=[3]).fingerprint != a.fingerprint
    other = list(a.tokens)
    other[VOCAB] = b"<thonk>"
    assert fingerprint(other, a.special_ids, a.eos_ids, a.vocab_size) != a.fingerprint
    assert fingerprint(a.tokens, a.special_ids - {5}, a.eos_ids, a.vocab_size) != a.fingerprint
    assert fingerprint(a.tokens, a.special_ids, a.eos_ids, a.vocab_size + 1) != a.fingerprint


def test_fingerprint_mismatch_rejected():
    eng = Engine.from_hf(tok(), lm_head_size=VOCAB + 2)
    with pytest.raises(AdmissionError) as exc:
        eng.admit(artifact(), RequestOptions("sha256:other"))
    assert exc.value.code == "tokenizer-mismatch"
    assert eng.active == 0 and len(eng.loader) == 0


@pytest.mark.parametrize(("head", "config", "ok"), [(VOCAB + 2, None, True), (VOCAB + 64, None, True), (VOCAB + 1, None, False), (VOCAB + 64, VOCAB + 2, False)])
def test_lm_head_width(head, config, ok):
    eng = Engine.from_hf(tok(), lm_head_size=head, config_vocab_size=config)
    opts = RequestOptions(eng.tokenizer.fingerprint)
    if ok:
        eng.admit(artifact(), opts).release()
    else:
        with pytest.raises(AdmissionError) as exc:
            eng.admit(artifact(), opts)
        assert exc.value.code == "vocab-mismatch"


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("speculative_acceptance", "relaxed", "unsupported-speculative-acceptance"),
        ("speculative_logprobs", True, "unsupported-speculative-logprobs"),
        ("stop", ("}",), "unsupported-stop-strings"),
        ("ignore_eos", True, "unsupported-ignore-eos"),
        ("forced_acceptance", True, "unsupported-forced-acceptance"),
        ("reasoning", ReasoningConfig(dialect="framed"), "reasoning-unsupported"),
        ("reasoning", ReasoningConfig(start="x", end="x"), "reasoning-unsupported"),
    ],
)
def test_unsupported_options_rejected(field, value, code):
    eng = Engine.from_hf(tok(), lm_head_size=VOCAB + 2)
    opts = RequestOptions(eng.tokenizer.fingerprint, **{field: value})
    with pytest.raises(AdmissionError) as exc:
        eng.admit(artifact(), opts)
    assert exc.value.code == code


def test_artifact_version_and_corruption_rejected():
    eng = Engine.from_hf(tok(), lm_head_size=VOCAB + 2)
    opts = RequestOptions(eng.tokenizer.fingerprint)
    text = artifact().dumps()
    with pytest.raises(AdmissionError) as exc:
        eng.admit(text.replace('"llguidance_version": "1.9.1"', '"llguidance_version": "0.1"'), opts)
    assert exc.value.code == "artifact-invalid"
    with pytest.raises(AdmissionError):
        eng.admit(text.replace('grammars', 'grammarz'), opts)
    eng.admit(text, opts).release()


def test_import_is_cheap():
    code = (
        "import sys, schemac.runtime as r\n"
        "from schemac.runtime import engine, request, batch, hf, adapters, final, limits, loader, tokenizer\n"
        "from schemac.runtime import midtext, logprobs, distributed, sentencepiece, masking, maskcall, buffers\n"
        "from schemac.runtime.triton import bitmask\n"
        "print([m for m in ('llguidance', 'torch', 'transformers', 're2') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
