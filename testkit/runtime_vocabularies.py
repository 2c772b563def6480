"""Offline vocabularies of the three tokenizer families, shared by the runtime tests."""
from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any, Sequence


def byte_level_tokenizer(added: Sequence[str] = ()) -> Any:
    """A GPT-2/Qwen-style byte-level BPE trained offline on a small JSON-ish corpus
    (deterministic: the same corpus gives the same merges); `added` as non-special tokens."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    corpus = [
        '{"name": "Alice", "age": 30, "tags": ["a", "b"], "ok": true, "v": null}',
        "The quick brown fox jumps over the lazy dog. é € 😀 ▁x\n\t<think> done </think>",
        '[1, 22, 333, -4444], {"key":"value","k2":false}',
    ] * 40
    trainer = trainers.BpeTrainer(
        vocab_size=800,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tk.train_from_iterator(corpus, trainer)
    hf = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<|endoftext|>")
    if added:
        hf.add_tokens([AddedToken(t, special=False, normalized=False) for t in added])
    return hf


FAMILIES = ("sentencepiece", "tekken", "byte-level")
MARKERS = ("<think>", "</think>")


@lru_cache(maxsize=None)
def vocabulary(family: str, added: bool = True) -> Any:
    """One tokenizer per family and test session: the 32k sentencepiece (mistral-common
    tokenizer.model.v1), tekken (tekken_240911.json, the lowest 7,000 ranks) or the byte-level
    BPE above; `added`: the reasoning markers as non-special added tokens."""
    extra = MARKERS if added else ()
    if family == "sentencepiece":
        from tokenizers import AddedToken

        base = _sentencepiece()
        if not added:
            return base
        tok = copy.deepcopy(base)  # converting tokenizer.model takes seconds: once per session
        tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in extra])
        return tok
    if family == "tekken":
        from schemac.runtime import tekken_tokenizer

        return tekken_tokenizer(vocab_size=1000 + 6000, added_tokens=extra)
    return byte_level_tokenizer(extra)


@lru_cache(maxsize=None)
def _sentencepiece() -> Any:
    from schemac.runtime.sentencepiece import sentencepiece_tokenizer

    return sentencepiece_tokenizer()
