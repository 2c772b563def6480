"""OpenAI-style API reporting: an Outcome back into each API's finish fields.

Reading `response_format` / `text.format` (and its 400-style `RequestError`) lives in
`schemac.api`, which the tool envelopes share.
"""
from __future__ import annotations

from typing import Any

from schemac.api import Outcome


def chat_finish_reason(outcome: Outcome) -> str:
    """Chat `finish_reason`: "stop", "length" (cut by the cap) or "tool_calls"."""
    return {"ok": "stop", "length": "length", "tool_calls": "tool_calls"}[outcome.status]


def responses_status(outcome: Outcome) -> dict[str, Any]:
    """Responses `status` (+ `incomplete_details` when cut by the output cap)."""
    if outcome.status == "length":
        return {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
    return {"status": "completed"}
