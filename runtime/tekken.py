"""Mistral's tekken vocabularies (shipped by mistral-common) as transformers fast tokenizers.

Gives the runtime, its tests and benchmarks a real tokenizer offline; `vocab_size` keeps only
the lowest BPE ranks (still a valid BPE) for fast tests.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Sequence

TEKKEN_FILE = "tekken_240911.json"


def tekken_tokenizer(
    vocab_size: int | None = None, added_tokens: Sequence[str] = (), file: str = TEKKEN_FILE
) -> Any:
    """Load `file` from mistral_common/data; `added_tokens` are added as non-special tokens."""
    import mistral_common
    from tokenizers import AddedToken
    from transformers import AutoTokenizer

    data = json.loads((Path(mistral_common.__file__).parent / "data" / file).read_text())
    if vocab_size is not None:
        specials = data["config"]["default_num_special_tokens"]
        if vocab_size <= specials + 256:
            raise ValueError(f"vocab_size must exceed {specials + 256} (specials + single bytes)")
        data["config"]["default_vocab_size"] = vocab_size
        data["vocab"] = data["vocab"][: vocab_size - specials]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "tekken.json").write_text(json.dumps(data))
        tok = AutoTokenizer.from_pretrained(tmp, mistral_format=False)
    tok.eos_token = "</s>"
    tok.bos_token = "<s>"
    if added_tokens:
        tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in added_tokens])
    return tok
