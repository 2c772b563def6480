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

from typing import TYPE_CHECKING, Any

from schemac.runtime import reasoning

if TYPE_CHECKING:
    import torch

    from schemac.runtime.tokenizer import TokenizerAdapter


def gate_row(tok: "TokenizerAdapter", matcher: Any, marker: bytes, gate: reasoning.GateState, words: int) -> "torch.Tensor":
    """The row at `gate` (closed) for a matcher at the answer's start."""
    import numpy as np
    import torch

    first: dict[bytes, bool] = {}  # whether an answer may begin with this byte

    def begins(rest: bytes) -> bool:
        if not rest:
            return True
        if rest[:1] not in first:
            first[rest[:1]] = _valid(tok, matcher, rest[:1])
        return first[rest[:1]] and (len(rest) == 1 or _valid(tok, matcher, rest))

    if gate.reasoning:
        bits = np.ones(32 * words, dtype=np.uint8)
        for token, after in _crossing_tokens(tok, marker, len(gate.tail)):
            split = reasoning.separate(0, after)
            bits[token] = split is not None and begins(split[1])
    else:
        import llguidance.torch as llt

        assert gate.gap is not None
        own = torch.zeros((1, words), dtype=torch.int32)
        llt.fill_next_token_bitmask(matcher, own, 0)
        bits = np.unpackbits(own.numpy().view(np.uint8), bitorder="little")
        for (ws, head), (ids, rests) in _spaced_groups(tok).items():
            if gate.gap + ws > reasoning.SEPARATOR_LIMIT or not begins(head):
                bits[ids] = 0
            elif len(head) == 0:
                bits[ids] = 1
            else:
                bits[ids] = [begins(rest) for rest in rests]
    return torch.from_numpy(np.packbits(bits, bitorder="little").view(np.int32).copy())


def _valid(tok: "TokenizerAdapter", matcher: Any, data: bytes) -> bool:
    toks = tok.ll.tokenize_bytes(data)
    return matcher.validate_tokens(toks) == len(toks)


def _crossing_tokens(tok: "TokenizerAdapter", marker: bytes, pending: int) -> tuple[tuple[int, bytes], ...]:
    """Tokens that complete `marker` when its first `pending` bytes were already emitted,
    each with the bytes it carries past the marker (separator whitespace included; tokens
    carrying none are left out). Computed once per tokenizer and marker prefix."""
    head, last = marker[:pending], marker[-1:]
    return tok.cached(("crossing", marker, pending), lambda: tuple(  # type: ignore[no-any-return]
        (i, after)
        for i in range(tok.vocab_size)
        if last in tok.tokens[i] and (after := reasoning.after_marker(head + tok.tokens[i], marker))
    ))


def _spaced_groups(tok: "TokenizerAdapter") -> dict[tuple[int, bytes], tuple[Any, list[bytes]]]:
    """The tokens that begin with JSON whitespace (the ones the reasoning separator decides
    about), grouped by (whitespace bytes, first byte after them): a group is decided at once
    unless its first byte may begin an answer (built once per tokenizer; a 131k vocabulary has
    about 75,000 such tokens in a few hundred groups)."""
    import numpy as np

    def build() -> dict[tuple[int, bytes], tuple[Any, list[bytes]]]:
        groups: dict[tuple[int, bytes], tuple[list[int], list[bytes]]] = {}
        for token, data in enumerate(tok.tokens):
            if not data[:1] or data[0] not in reasoning.JSON_WHITESPACE or token in tok.special_ids:
                continue
            rest = data.lstrip(reasoning.JSON_WHITESPACE)
            ids, rests = groups.setdefault((len(data) - len(rest), rest[:1]), ([], []))
            ids.append(token)
            rests.append(rest)
        return {key: (np.array(ids, dtype=np.int64), rests) for key, (ids, rests) in groups.items()}

    return tok.cached("spaced-groups", build)  # type: ignore[no-any-return]
