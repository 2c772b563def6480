"""Final validation of the visible answer: an invalid answer is an error, never a success.

The grammar already constrains generation; this re-checks the answer against the resolved
schema (Artifact.schema) with the full validator, because the promise is about the output,
not about the mask. Output cut by the token cap is reported as such, not as invalid.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schemac.api import Outcome, StructuredOutputError
from schemac.validate.cache import validator_for

if TYPE_CHECKING:
    from schemac.runtime.request import RequestState


def finalize(key: str, schema: Any, text: str, finish_reason: str, has_tool_calls: bool = False) -> Outcome:
    """Validate a finished answer; raises StructuredOutputError when it is not valid.

    `finish_reason` is "stop" or "length"; a tool-only result (no visible text) skips answer
    validation, a visible answer beside tool calls is still validated.
    """
    if finish_reason == "length":
        return Outcome("length", text)
    if finish_reason != "stop":
        raise ValueError(f"unknown finish reason {finish_reason!r}")
    if has_tool_calls and not text.strip():
        return Outcome("tool_calls", text)
    from schemac.validate.final import parse_answer

    try:
        value = parse_answer(text)
    except ValueError as exc:
        raise StructuredOutputError("answer-not-json", f"answer is not strict JSON: {exc}") from exc
    errors = validator_for(key, schema).errors(value)
    if errors:
        raise StructuredOutputError("answer-invalid", "; ".join(errors[:5]))
    return Outcome("ok", text, value)


def finalize_request(state: "RequestState", finish_reason: str, has_tool_calls: bool = False) -> Outcome:
    """`finalize` for a runtime request: its own error (if any) wins, then its visible answer."""
    state.check()
    if finish_reason == "stop" and state.in_reasoning:
        raise StructuredOutputError("answer-missing", "generation ended inside the reasoning block")
    return finalize(state.artifact.key, state.artifact.schema, state.answer, finish_reason, has_tool_calls)
