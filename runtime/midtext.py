"""The tokenizer's mid-text behaviour: how the model spells bytes that follow other text.

A transformers tokenizer encodes a string as the *start* of a text: sentencepiece-style
tokenizers prepend `▁` (a Prepend normalizer, a Metaspace `prepend_scheme`, or a
`\\A▁`-anchored Replace rule) and byte-level ones may add a prefix space. llguidance
tokenizes forced bytes in the middle of an answer with this function and admits only that
tokenisation, so a start-of-text rule there makes the answer's first forced token
unreachable (`' {"'` where the model can only continue with `'{"'`). We drop every rule that
applies only at the start of a text; everything else (merges, byte fallback, splits) stays.
"""
from __future__ import annotations

import copy
import json
from typing import Any


def mid_text_backend(hf_tokenizer: Any) -> Any:
    """A `tokenizers.Tokenizer` that encodes text as it appears after other text, with
    special-token spellings in the text kept as text (never turned into control tokens)."""
    from tokenizers import Tokenizer

    backend = copy.copy(hf_tokenizer.backend_tokenizer)
    backend.no_padding()
    backend.no_truncation()
    spec = json.loads(backend.to_str())
    spec["normalizer"] = _strip_normalizer(spec.get("normalizer"))
    spec["pre_tokenizer"] = _strip_pre_tokenizer(spec.get("pre_tokenizer"))
    spec["post_processor"] = None
    mid = Tokenizer.from_str(json.dumps(spec))
    mid.encode_special_tokens = True
    return mid


def _anchored(rule: dict[str, Any]) -> bool:
    """A Replace whose regex matches only at the start of the text."""
    pattern = rule.get("pattern", {})
    regex = pattern.get("Regex") if isinstance(pattern, dict) else None
    return rule.get("type") == "Replace" and isinstance(regex, str) and regex.startswith(("\\A", "^"))


def _strip_normalizer(node: dict[str, Any] | None) -> dict[str, Any] | None:
    if node is None:
        return None
    if node.get("type") == "Prepend" or _anchored(node):
        return None
    if node.get("type") == "Sequence":
        kept = [n for n in (_strip_normalizer(c) for c in node["normalizers"]) if n is not None]
        return {**node, "normalizers": kept} if kept else None
    return node


def _strip_pre_tokenizer(node: dict[str, Any] | None) -> dict[str, Any] | None:
    if node is None:
        return None
    kind = node.get("type")
    if kind == "Metaspace":
        out = {**node, "prepend_scheme": "never"}
        if "add_prefix_space" in out:
            out["add_prefix_space"] = False
        return out
    if kind == "ByteLevel":
        return {**node, "add_prefix_space": False}
    if kind == "Sequence":
        return {**node, "pretokenizers": [_strip_pre_tokenizer(c) for c in node["pretokenizers"]]}
    return node
