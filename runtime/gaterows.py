"""Mask rows while the reasoning gate holds the grammar back (`schemac.runtime.reasoning`).

While the gate is closed the matcher has consumed nothing of the answer, so a row depends only
on the gate's position (how much of the end marker is pending, or how much separator
whitespace was seen) and each request builds each row once:

- inside the block every token is allowed, except one that completes the end marker while
  carrying bytes past it that the separator or the grammar refuses;
- in the separator, a token that begins with whitespace is allowed when the whitespace fits
  the separator and the bytes after it begin a valid answer; every other token is the
  grammar's own decision at the answer's start (EOS included).

So a token is allowed exactly when committing it would be accepted, whatever tokens spell the
marker, the separator and the answer's first bytes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from schemac.runtime import reasoning

if TYPE_CHECKING:
    import torch

    from schemac.runtime.tokenizer import TokenizerAdapter


def gate_row(tok: "TokenizerAdapter", matcher: Any, marker: bytes, gate: reasoning.GateState, words: int) -> "torch.Tensor":
    """The row at `gate` (closed) for a matcher at the answer's start."""
    import torch

    if gate.reasoning:
        row = [0xFFFFFFFF] * words
        _decide(row, tok, matcher, 0, tok.crossing_tokens(marker, len(gate.tail)))
    else:
        import llguidance.torch as llt

        assert gate.gap is not None
        own = torch.zeros((1, words), dtype=torch.int32)
        llt.fill_next_token_bitmask(matcher, own, 0)
        row = [w & 0xFFFFFFFF for w in own[0].tolist()]
        _decide(row, tok, matcher, gate.gap, tok.spaced_tokens())
    return torch.tensor([w - (1 << 32) if w >= 1 << 31 else w for w in row], dtype=torch.int32)


def _decide(row: list[int], tok: "TokenizerAdapter", matcher: Any, gap: int, tokens: Iterable[tuple[int, bytes]]) -> None:
    """Set or clear each token's bit: whether `data` (its bytes in the separator) is taken."""
    first: dict[bytes, bool] = {}  # whether an answer may begin with this byte

    def begins(rest: bytes) -> bool:
        toks = tok.ll.tokenize_bytes(rest)
        return matcher.validate_tokens(toks) == len(toks)

    for token, data in tokens:
        split = reasoning.separate(gap, data)
        ok = split is not None
        if ok and split[1]:  # type: ignore[index]
            rest = split[1]  # type: ignore[index]
            head = rest[:1]
            if head not in first:
                first[head] = begins(head)
            ok = first[head] and begins(rest)
        if ok:
            row[token // 32] |= 1 << (token % 32)
        else:
            row[token // 32] &= ~(1 << (token % 32))
