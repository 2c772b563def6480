"""Tokenizers: real vocabularies from mistral-common, built once per process and cached on disk."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

#: name → (mistral-common data file, how to build the llguidance tokenizer from it)
TOKENIZERS: dict[str, str] = {
    "llama32k": "tokenizer.model.v1",  # 32k Llama-style sentencepiece, through transformers
    "tekken131k": "tekken_240911.json",  # 131k tiktoken-style Tekken vocabulary
}
_TOKENIZER_CACHE: dict[str, Any] = {}


def _data_file(name: str) -> Path:
    import mistral_common

    return Path(mistral_common.__file__).parent / "data" / TOKENIZERS[name]


def _llama_json(model: Path) -> str:
    """The HF fast-tokenizer JSON for a sentencepiece model, converted once and kept on disk
    (conversion takes seconds; workers then load the JSON in a fraction of one)."""
    import tempfile

    digest = hashlib.sha256(model.read_bytes()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / "schemac-conformance" / f"llama-{digest}.json"
    if cache.exists():
        return cache.read_text(encoding="utf-8")
    import shutil

    from transformers import AutoTokenizer

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(model, Path(tmp) / "tokenizer.model")
        hf = AutoTokenizer.from_pretrained(tmp)
        backend = hf.backend_tokenizer
        backend.no_padding()
        backend.no_truncation()
        text = backend.to_str()
    cache.parent.mkdir(parents=True, exist_ok=True)
    part = cache.with_suffix(f".{os.getpid()}.part")
    part.write_text(text, encoding="utf-8")
    os.replace(part, cache)
    return text


class _TekkenVocab:
    """The attributes and encode call that llguidance's TokenizerWrapper reads from a tokenizer."""

    def __init__(self, path: Path) -> None:
        from mistral_common.tokens.tokenizers.tekken import SpecialTokenPolicy, Tekkenizer

        self._tekken = Tekkenizer.from_file(path)
        n = self._tekken.n_words
        self.tokens = [self._tekken.id_to_byte_piece(i, SpecialTokenPolicy.KEEP) for i in range(n)]
        self.eos_token_id = self._tekken.eos_id
        self.bos_token_id = self._tekken.bos_id
        self.special_token_ids = sorted(self._tekken.special_ids)

    def __call__(self, text: str | bytes) -> list[int]:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return self._tekken.encode(text, bos=False, eos=False)


def load_tokenizer(name: str = "llama32k") -> Any:
    """The llguidance LLTokenizer for `name` (see TOKENIZERS), built once per process."""
    if name in _TOKENIZER_CACHE:
        return _TOKENIZER_CACHE[name]
    import llguidance

    if name == "llama32k":
        tokenizer = llguidance.LLTokenizer(_llama_json(_data_file(name)))
    elif name == "tekken131k":
        from llguidance import TokenizerWrapper

        tokenizer = llguidance.LLTokenizer(TokenizerWrapper(_TekkenVocab(_data_file(name))))
    else:
        raise ValueError(f"unknown tokenizer {name!r}; choose from {', '.join(TOKENIZERS)}")
    _TOKENIZER_CACHE[name] = tokenizer
    return tokenizer
