"""schemac.runtime: what a serving engine calls to enforce compiled schemas while decoding.

Engine level: `Engine` (tokenizer adapter + fingerprint, artifact loader, compiled-grammar
cache, mask filler, batch commit). Request level: `RequestState` (accept/commit/rollback/fill/
release). Several ranks: `DistributedAdmission`; raw logprobs: `schemac.runtime.logprobs`.
Importing this package loads neither llguidance nor torch; names resolve on first use.
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Engine": "engine",
    "RequestState": "request",
    "RequestOptions": "admission",
    "ReasoningConfig": "reasoning",
    "AdmissionError": "errors",
    "StructuredOutputError": "errors",
    "BoundaryError": "errors",
    "TokenizerAdapter": "tokenizer",
    "adapt_tokenizer": "tokenizer",
    "tokenizer_fingerprint": "tokenizer",
    "load_artifact": "loader",
    "Outcome": "final",
    "finalize": "final",
    "finalize_request": "final",
    "output_cap": "limits",
    "chat_response_format": "adapters",
    "responses_text_format": "adapters",
    "chat_finish_reason": "adapters",
    "responses_status": "adapters",
    "FormatError": "adapters",
    "SchemaLogitsProcessor": "hf",
    "generate": "hf",
    "tekken_tokenizer": "tekken",
    "sentencepiece_tokenizer": "sentencepiece",
    "DistributedAdmission": "distributed",
    "RawLogprobs": "logprobs",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'schemac.runtime' has no attribute {name!r}")
    return getattr(importlib.import_module(f"schemac.runtime.{module}"), name)
