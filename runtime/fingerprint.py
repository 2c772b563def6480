"""Tokenizer fingerprint: the API side and the worker must mask with the same vocabulary."""
from __future__ import annotations

import hashlib
from typing import Iterable, Sequence

#: Bumped if the hashed fields or their encoding change.
FINGERPRINT_VERSION = 1


def fingerprint(tokens: Sequence[bytes], special_ids: Iterable[int], eos_ids: Sequence[int], vocab_size: int) -> str:
    """Stable sha256 over token bytes, special and EOS/stop IDs and vocabulary size."""
    h = hashlib.sha256()
    h.update(f"schemac-tokenizer-v{FINGERPRINT_VERSION}:{vocab_size}:{len(tokens)}\n".encode())
    for tok in tokens:
        h.update(len(tok).to_bytes(4, "little"))
        h.update(tok)
    h.update(("special:" + ",".join(map(str, sorted(special_ids))) + "\n").encode())
    h.update(("eos:" + ",".join(map(str, eos_ids)) + "\n").encode())
    return "sha256:" + h.hexdigest()
