"""Mistral's first sentencepiece vocabulary (shipped by mistral-common) as a transformers
fast tokenizer: the Llama family (`▁` spaces, byte-fallback tokens) offline.

transformers converts `tokenizer.model` into a fast tokenizer with a `▁` prefix rule at the
start of every text, which the runtime's adapter must drop (see `schemac.runtime.midtext`).
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Sequence

SENTENCEPIECE_FILE = "tokenizer.model.v1"


def sentencepiece_tokenizer(added_tokens: Sequence[str] = (), file: str = SENTENCEPIECE_FILE) -> Any:
    """Load `file` from mistral_common/data; `added_tokens` are added as non-special tokens."""
    import mistral_common
    from tokenizers import AddedToken
    from transformers import AutoTokenizer

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(Path(mistral_common.__file__).parent / "data" / file, Path(tmp) / "tokenizer.model")
        tok = AutoTokenizer.from_pretrained(tmp)
    if added_tokens:
        tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in added_tokens])
    return tok
