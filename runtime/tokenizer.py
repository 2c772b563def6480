"""Tokenizer adapter: a transformers fast tokenizer as an llguidance tokenizer, built once.

llguidance's own HF loader marks *every* added token special, so an added token declared
`special=False` (e.g. `<think>`) could never be matched as text while the model can still emit
it. We rebuild the llguidance tokenizer from explicit token bytes: non-special added tokens are
visible bytes, special tokens stay special, token IDs are the model's.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Sequence

from schemac.runtime.fingerprint import fingerprint


@dataclass(frozen=True)
class TokenizerAdapter:
    """What the runtime needs from a tokenizer; `ll` is the llguidance tokenizer."""

    tokens: tuple[bytes, ...]
    special_ids: frozenset[int]
    eos_ids: tuple[int, ...]
    vocab_size: int
    fingerprint: str
    ll: Any = field(repr=False, compare=False)

    def token_bytes(self, token: int) -> bytes:
        """Visible bytes of a token; special tokens contribute nothing to the answer."""
        if token in self.special_ids or not 0 <= token < self.vocab_size:
            return b""
        return self.tokens[token]

    def decode(self, tokens: Sequence[int]) -> bytes:
        return b"".join(self.token_bytes(t) for t in tokens)

    def marker_bytes(self, token: int) -> bytes:
        """Bytes a token spells for reasoning-marker detection (special tokens included)."""
        return self.tokens[token] if 0 <= token < self.vocab_size else b""


_CACHE: "weakref.WeakKeyDictionary[Any, dict[tuple[int, ...], TokenizerAdapter]]" = weakref.WeakKeyDictionary()


def adapt_tokenizer(hf_tokenizer: Any, stop_token_ids: Sequence[int] = ()) -> TokenizerAdapter:
    """The (cached) adapter for a transformers fast tokenizer; `stop_token_ids` join EOS."""
    per_tok = _CACHE.setdefault(hf_tokenizer, {})
    key = tuple(sorted(set(stop_token_ids)))
    if key not in per_tok:
        per_tok[key] = _build(hf_tokenizer, key)
    return per_tok[key]


def _build(hf_tokenizer: Any, stop_token_ids: tuple[int, ...]) -> TokenizerAdapter:
    import copy

    import llguidance
    import llguidance.hf

    eos = hf_tokenizer.eos_token_id
    eos_ids = tuple(dict.fromkeys(([eos] if eos is not None else []) + list(stop_token_ids)))
    if not eos_ids:
        raise ValueError("tokenizer has no EOS token and no stop tokens were given")
    base = llguidance.hf.from_tokenizer(hf_tokenizer, eos_token=list(eos_ids))
    n_vocab = base.vocab_size
    tokens = tuple(base.decode_bytes([i]) for i in range(n_vocab))
    visible_added = {i for i, t in hf_tokenizer.added_tokens_decoder.items() if not t.special}
    special = frozenset(
        i for i in range(n_vocab) if base.is_special_token(i) and i not in visible_added
    ) | frozenset(i for i in hf_tokenizer.all_special_ids if i < n_vocab)
    backend = copy.copy(hf_tokenizer.backend_tokenizer)
    backend.no_padding()
    backend.no_truncation()
    backend.encode_special_tokens = True  # text never turns into special tokens

    class _Source:
        eos_token_id = eos_ids[0]
        bos_token_id = hf_tokenizer.bos_token_id
        special_token_ids = sorted(special)

        def __init__(self) -> None:
            self.tokens = list(tokens)

        def __call__(self, text: str) -> list[int]:
            return backend.encode(text, add_special_tokens=False).ids

    ll = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Source()), n_vocab=n_vocab, eos_token=list(eos_ids))
    return TokenizerAdapter(
        tokens=tokens,
        special_ids=special,
        eos_ids=eos_ids,
        vocab_size=n_vocab,
        fingerprint=fingerprint(tokens, special, eos_ids, n_vocab),
        ll=ll,
    )
