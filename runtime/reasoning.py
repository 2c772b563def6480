"""Reasoning gate: tokens are free inside an inline reasoning block, constrained after it.

Whether generation starts inside a block follows the rendered template: the engine's own
answer when it has one (`RequestOptions.reasoning_started`), else the generation prefix at the
end of the rendered prompt; marker text elsewhere in the prompt never opens a block. The end marker is matched on bytes,
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


def initial_state(config: ReasoningConfig | None, prompt: bytes, started: bool | None = None) -> GateState:
    """Whether generation starts inside a reasoning block.

    `started` is the rendered template's own answer when the engine knows it (the chat
    template opened the block or not); otherwise the generation prefix decides: the prompt
    ends with the start marker (JSON whitespace after it allowed). A marker anywhere else in
    the prompt (user content quoting `<think>`, earlier turns) changes nothing.
    """
    if config is None:
        return GateState(False)
    if started is not None:
        return GateState(started)
    return GateState(prompt.rstrip(JSON_WHITESPACE).endswith(config.start.encode()))


def after_marker(text: bytes, marker: bytes) -> bytes | None:
    """The answer bytes after the first `marker` in `text` (leading JSON whitespace dropped),
    or None when `text` holds no marker."""
    at = text.find(marker)
    return None if at < 0 else text[at + len(marker):].lstrip(JSON_WHITESPACE)


def step(state: GateState, marker: bytes, token: bytes) -> tuple[GateState, bytes | None]:
    """Advance by one token's bytes; returns the new state and, when the block ends here, the
    answer bytes that follow the marker in this token (leading JSON whitespace dropped)."""
    if not state.reasoning:
        return state, None
    text = state.tail + token
    after = after_marker(text, marker)
    if after is not None:
        return GateState(False), after
    keep = 0
    for n in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-n:]):
            keep = n
            break
    return GateState(True, text[len(text) - keep:] if keep else b""), None
