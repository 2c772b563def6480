"""schemac.runtime: what a serving engine calls to enforce compiled schemas while decoding.

Engine level: `Engine` (tokenizer adapter + fingerprint, artifact loader, compiled-grammar
cache, mask filler, batch commit). Request level: `RequestState` (accept/commit/rollback/fill/
release). Several ranks: `DistributedAdmission`; raw logprobs: `schemac.runtime.logprobs`.
Importing this package loads neither llguidance nor torch; names resolve on first use.
"""
from __future__ import annotations

import importlib
from typing import Any

#: public name -> the module that defines it (admission and output errors, the finish
#: Outcome and the format readers are the core's `schemac.api`, which the tool envelopes share)
_EXPORTS = {
    "Engine": "schemac.runtime.engine",
    "RequestState": "schemac.runtime.request",
    "RequestOptions": "schemac.runtime.admission",
    "ReasoningConfig": "schemac.runtime.reasoning",
    "AdmissionError": "schemac.api",
    "StructuredOutputError": "schemac.api",
    "BoundaryError": "schemac.runtime.errors",
    "TokenizerAdapter": "schemac.runtime.tokenizer",
    "adapt_tokenizer": "schemac.runtime.tokenizer",
    "tokenizer_fingerprint": "schemac.runtime.tokenizer",
    "load_artifact": "schemac.runtime.loader",
    "Outcome": "schemac.api",
    "finalize": "schemac.runtime.final",
    "finalize_request": "schemac.runtime.final",
    "output_cap": "schemac.runtime.limits",
    "chat_response_format": "schemac.api",
    "responses_text_format": "schemac.api",
    "chat_finish_reason": "schemac.runtime.adapters",
    "responses_status": "schemac.runtime.adapters",
    "RequestError": "schemac.api",
    "FormatError": "schemac.api",
    "SchemaLogitsProcessor": "schemac.runtime.hf",
    "generate": "schemac.runtime.hf",
    "tekken_tokenizer": "schemac.runtime.tekken",
    "sentencepiece_tokenizer": "schemac.runtime.sentencepiece",
    "DistributedAdmission": "schemac.runtime.distributed",
    "RawLogprobs": "schemac.runtime.logprobs",
}

#: public names that now name another class: a malformed format is one kind of request error
_ALIASES = {"FormatError": "RequestError"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'schemac.runtime' has no attribute {name!r}")
    return getattr(importlib.import_module(module), _ALIASES.get(name, name))
