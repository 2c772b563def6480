"""Reasoning gate: tokens are free inside an inline reasoning block, constrained after it.

Whether generation starts inside a block follows the rendered template: the engine's own
answer when it has one (`RequestOptions.reasoning_started`), else the generation prefix at the
end of the rendered prompt; marker text elsewhere in the prompt never opens a block. The end marker is matched on bytes,
so it is found whatever tokens spell it, including across tokens and inside drafts.

Between the end marker and the answer comes the *separator*: at most `SEPARATOR_LIMIT` bytes
of JSON whitespace (space, tab, LF, CR), what the chat templates of reasoning models put there
(Qwen3 and DeepSeek-R1 render `</think>\n\n`). It is counted on bytes, so the hand-off is the
same whether the whitespace sits in the marker's token, in its own tokens or in the answer's
first token; the answer's first non-whitespace byte ends the separator, and more whitespace
than the limit is refused (the mask forbids it; committing it fails the request). The
separator's bytes are not part of the answer.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from schemac.api import AdmissionError

if TYPE_CHECKING:
    from schemac.runtime.tokenizer import TokenizerAdapter

JSON_WHITESPACE = b" \t\n\r"
#: the most whitespace bytes allowed between the end marker and the answer's first byte
SEPARATOR_LIMIT = 4
SEPARATOR_REFUSED = f"more than {SEPARATOR_LIMIT} whitespace bytes between the reasoning end marker and the answer"


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
    """Immutable, so rollback is restoring a snapshot. `tail`: bytes that may begin the marker
    (while reasoning); `gap`: separator whitespace bytes seen since the end marker (None once
    the answer has begun, or when there was no block)."""

    reasoning: bool
    tail: bytes = b""
    gap: int | None = None

    @property
    def gated(self) -> bool:
        """The grammar has not begun: inside the block or in the separator."""
        return self.reasoning or self.gap is not None


def initial_state(
    config: ReasoningConfig | None, prompt: bytes, started: bool | None = None
) -> GateState:
    """Whether generation starts inside a reasoning block.

    `started` is the rendered template's own answer when the engine knows it (the chat
    template opened the block or not); otherwise the generation prefix decides: the prompt
    ends with the start marker (JSON whitespace after it allowed). A marker anywhere else in
    the prompt (user content quoting `<think>`, earlier turns) changes nothing. A prompt that
    ends with the end marker (a template that closes an empty block, e.g. Qwen3 with thinking
    off) leaves generation in the separator, its trailing whitespace counted.
    """
    if config is None:
        return GateState(False)
    body = prompt.rstrip(JSON_WHITESPACE)
    if started is None:
        started = body.endswith(config.start.encode())
    if started:
        return GateState(True)
    if body.endswith(config.end.encode()):
        return GateState(False, gap=min(len(prompt) - len(body), SEPARATOR_LIMIT))
    return GateState(False)


def hands_over(state: GateState, token: bytes) -> bool:
    """In the separator, a token that does not begin with whitespace (EOS and other tokens
    spelling nothing included) ends it and goes to the grammar as it is."""
    return not state.reasoning and state.gap is not None and (not token or token[0] not in JSON_WHITESPACE)


def separate(gap: int, data: bytes) -> tuple[int, bytes] | None:
    """Whitespace at the front of `data` joins the separator (`gap` bytes so far): the new gap
    and the answer bytes after it, or None when the separator would pass `SEPARATOR_LIMIT`."""
    rest = data.lstrip(JSON_WHITESPACE)
    gap += len(data) - len(rest)
    return None if gap > SEPARATOR_LIMIT else (gap, rest)


def after_marker(text: bytes, marker: bytes) -> bytes | None:
    """The bytes after the first `marker` in `text` (separator included), or None when
    `text` holds no marker."""
    at = text.find(marker)
    return None if at < 0 else text[at + len(marker):]


def step(state: GateState, marker: bytes, token: bytes) -> tuple[GateState, bytes | None] | None:
    """Advance a gated state by one token's bytes (not one that `hands_over`): the new state
    and the answer bytes this token hands to the grammar (None: none yet), or None when the
    token is refused (the separator would pass its limit). An ungated state stays as it is."""
    if not state.gated:
        return state, None
    if state.reasoning:
        text = state.tail + token
        after = after_marker(text, marker)
        if after is None:
            keep = 0
            for n in range(min(len(marker) - 1, len(text)), 0, -1):
                if marker.startswith(text[-n:]):
                    keep = n
                    break
            return GateState(True, text[len(text) - keep:] if keep else b""), None
        split = separate(0, after)
    else:
        assert state.gap is not None
        split = separate(state.gap, token)
    if split is None:
        return None
    gap, rest = split
    return (GateState(False), rest) if rest else (GateState(False, gap=gap), None)


def hand_over(
    state: GateState, marker: bytes, tok: "TokenizerAdapter", token: int
) -> tuple[GateState, list[int], bytes] | None:
    """Move the gate past `token` (an id of `tok`): the new state, the matcher tokens and the
    answer bytes it hands to the grammar (the token itself once the answer has begun), or None
    when the separator refuses it."""
    visible = tok.token_bytes(token)
    if not state.gated:
        return state, [token], visible
    if hands_over(state, visible):
        return GateState(False), [token], visible
    moved = step(state, marker, tok.marker_bytes(token) if state.reasoning else visible)
    if moved is None:
        return None
    state, after = moved
    return (state, tok.ll.tokenize_bytes(after), after) if after else (state, [], b"")
