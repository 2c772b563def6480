"""An independent oracle for mask rows behind the reasoning gate and after it.

Written from the documented rule, not from the runtime's code: the output is the bytes the
tokens spell; the block ends at the first end marker; then at most SEPARATOR_LIMIT bytes of
JSON whitespace; then the answer, which must stay a valid prefix of the grammar under a
one-byte-per-token vocabulary (grammar_harness). A token is allowed at a position exactly when
the output with its bytes appended stays acceptable; answer-phase rows come from a fresh
llguidance matcher fed the answer bytes.
"""
from __future__ import annotations

from typing import Any

import llguidance
import llguidance.torch as llt
import torch

from testkit.grammar_harness import _tokenizer

WS = b" \t\n\r"
LIMIT = 4


class Output:
    """Where an output (bytes) stands: reasoning, separator (gap) or answer (bytes)."""

    def __init__(self, marker: bytes, reasoning: bool, gap: int | None = None) -> None:
        self.marker, self.reasoning, self.gap = marker, reasoning, gap

    def split(self, text: bytes) -> tuple[str, int, bytes] | None:
        """('reasoning'|'separator'|'answer', gap, answer bytes), or None when refused."""
        gap = self.gap
        if self.reasoning:
            at = text.find(self.marker)
            if at < 0:
                return "reasoning", 0, b""
            text, gap = text[at + len(self.marker):], 0
        if gap is None:
            return "answer", 0, text
        rest = text.lstrip(WS)
        gap += len(text) - len(rest)
        if gap > LIMIT:
            return None
        return ("answer", gap, rest) if rest else ("separator", gap, b"")


class Oracle:
    """Rows and verdicts for one grammar, marker and starting point."""

    def __init__(self, adapter: Any, grammar: str, output: Output) -> None:
        self.tok, self.grammar, self.output = adapter, grammar, output
        self.bytes_matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
        self.words = (adapter.vocab_size + 31) // 32

    def text(self, tokens: list[int]) -> bytes:
        """The output bytes: a token spells its marker bytes while reasoning (special tokens'
        text included), its visible bytes after."""
        out = b""
        for t in tokens:
            out += self._spelling(out, t)
        return out

    def _spelling(self, before: bytes, token: int) -> bytes:
        where = self.output.split(before)
        return self.tok.marker_bytes(token) if where is not None and where[0] == "reasoning" else self.tok.token_bytes(token)

    def prefix_ok(self, answer: bytes) -> bool:
        return self.bytes_matcher.validate_tokens(list(answer)) == len(answer)

    def answer_matcher(self, answer: bytes) -> Any:
        m = llguidance.LLMatcher(self.tok.ll, self.grammar, log_level=0)
        assert m.consume_tokens(self.tok.ll.tokenize_bytes(answer)) and not m.is_error()
        return m

    def allowed_after(self, before: bytes, token: int) -> bool:
        """Whether `token` may follow the output `before` while no answer byte was given.
        While reasoning every token may (EOS too: the request then ends without an answer,
        never as a success); in the separator a token that does not begin with whitespace
        (EOS and special tokens included) is the grammar's own decision at the answer's start,
        a fresh matcher's mask (which admits the canonical token of a byte, not its
        byte-fallback twin)."""
        where = self.output.split(before)
        assert where is not None and where[0] != "answer"
        if where[0] == "reasoning" and self.tok.marker_bytes(token) == b"":
            return True
        visible = self.tok.token_bytes(token)
        if where[0] == "separator" and (not visible or visible[0] not in WS):
            return bool(self.start_mask()[token // 32] >> (token % 32) & 1)
        after = self.output.split(before + self._spelling(before, token))
        return after is not None and self.prefix_ok(after[2])

    def start_mask(self) -> list[int]:
        if not hasattr(self, "_start"):
            out = torch.zeros((1, self.words), dtype=torch.int32)
            llt.fill_next_token_bitmask(self.answer_matcher(b""), out, 0)
            self._start = out[0].tolist()
        return self._start

    def row(self, tokens: list[int]) -> torch.Tensor:
        """The row after `tokens`: brute force while no answer byte was given, a fresh
        matcher's mask (fed the answer bytes) once the answer has begun."""
        before = self.text(tokens)
        where = self.output.split(before)
        assert where is not None
        if where[0] == "answer":
            m = self.answer_matcher(where[2])
            out = torch.zeros((1, self.words), dtype=torch.int32)
            llt.fill_next_token_bitmask(m, out, 0)
            return out[0]
        bits = [0] * self.words
        for t in range(self.tok.vocab_size):
            if self.allowed_after(before, t):
                bits[t // 32] |= 1 << (t % 32)
        return torch.tensor([w - (1 << 32) if w >= 1 << 31 else w for w in bits], dtype=torch.int32)


def differences(vocab_size: int, got: torch.Tensor, want: torch.Tensor) -> list[int]:
    """Token ids (inside the vocabulary) on which two rows disagree."""
    words = (vocab_size + 31) // 32
    diff = (got[:words] ^ want[:words]).nonzero().flatten().tolist()
    return [
        32 * w + b for w in diff for b in range(32)
        if 32 * w + b < vocab_size and (int(got[w]) ^ int(want[w])) >> b & 1
    ]
