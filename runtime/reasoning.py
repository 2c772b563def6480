"""Reasoning gate: tokens are free inside an inline reasoning block, constrained after it.

Whether generation starts inside a block is read from the rendered prompt (the same prefix
the response parser sees), never from a template toggle. The end marker is matched on bytes,
so it is found whatever tokens spell it, including across tokens and inside drafts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from schemac.runtime.errors import AdmissionError

JSON_WHITESPACE = b" \t\n\r"


@dataclass(frozen=True)
class ReasoningConfig:
    """An inline reasoning dialect: `start` ... `end`, then the answer."""

    start: str = "<think>"
    end: str = "</think>"
    dialect: str = "inline"

    def check(self) -> None:
        if self.dialect != "inline":
            raise AdmissionError(
                "reasoning-unsupported",
                f"reasoning dialect {self.dialect!r} (framed/multi-transition) is not supported yet",
            )
        if not self.start or not self.end or self.start == self.end:
            raise AdmissionError("reasoning-unsupported", "reasoning markers must be distinct and non-empty")


class GateState(NamedTuple):
    """Immutable, so rollback is restoring a snapshot. `tail`: bytes that may begin the marker."""

    reasoning: bool
    tail: bytes = b""


def initial_state(config: ReasoningConfig | None, prompt: bytes) -> GateState:
    """Inside a block iff the prompt's last start marker comes after its last end marker."""
    if config is None:
        return GateState(False)
    start = prompt.rfind(config.start.encode())
    return GateState(start >= 0 and start > prompt.rfind(config.end.encode()))


def step(state: GateState, marker: bytes, token: bytes) -> tuple[GateState, bytes | None]:
    """Advance by one token's bytes; returns the new state and, when the block ends here, the
    answer bytes that follow the marker in this token (leading JSON whitespace dropped)."""
    if not state.reasoning:
        return state, None
    text = state.tail + token
    at = text.find(marker)
    if at >= 0:
        return GateState(False), text[at + len(marker):].lstrip(JSON_WHITESPACE)
    keep = 0
    for n in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-n:]):
            keep = n
            break
    return GateState(True, text[len(text) - keep:] if keep else b""), None
