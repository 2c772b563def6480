"""Depth-first walk of a compiled grammar over a token vocabulary, pruned by llguidance's mask.

The vocabulary is the 256 single bytes (so any text can be fed back, and llguidance can
tokenize whatever it needs) plus the alphabet's multi-byte tokens, plus EOS. The walk follows
only alphabet tokens the grammar allows (the mask, and for a multi-byte token the mask leaves
out, `validate_tokens`), so every node it visits is a prefix the grammar admits; a
prefix where the mask allows EOS is a complete text. Texts reached by two token spellings of the
same bytes are walked once (the matcher's state depends on the bytes alone).

No matcher here is ever rolled back or reset: llguidance (1.7.2-1.9.1) keeps one cached mask
keyed on (lexer state, row index) that `rollback`/`reset` leave in place, so after either a
later state that reuses the row index gets another state's mask (docs/llguidance-deviations.md,
"Matcher behaviour" 4): the walk would skip admitted texts and trip on tokens the stale mask
allows. Each child is a `deep_copy` of its parent advanced by one token (a copy of a matcher
whose history only went forward has a valid cache), and `accepts` works on a fresh copy of the
pristine matcher, which itself never consumes anything.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from schemac.native import on_big_stack


@dataclass
class WalkResult:
    """What one walk saw: complete texts, dead ends, and whether (and why) it was cut short."""

    texts: list[str] = field(default_factory=list)
    dead_ends: list[str] = field(default_factory=list)
    nodes: int = 0
    cut: str | None = None


class _Vocabulary:
    """The object llguidance's `TokenizerWrapper` expects: bytes 0-255, the alphabet's longer
    tokens, then EOS; text is encoded byte by byte."""

    def __init__(self, extra: list[bytes]) -> None:
        self.tokens = [bytes([i]) for i in range(256)] + extra + [b"<eos>"]
        self.eos_token_id = len(self.tokens) - 1
        self.bos_token_id = None
        self.special_token_ids = [self.eos_token_id]

    def __call__(self, s: str | bytes) -> list[int]:
        return list(s if isinstance(s, bytes) else s.encode())


class Grammar:
    """A compiled grammar with a matcher over the alphabet's vocabulary."""

    def __init__(self, grammar: str, alphabet: list[str]) -> None:
        import llguidance

        encoded = list(dict.fromkeys(t.encode() for t in alphabet))
        extra = [b for b in encoded if len(b) > 1]
        vocab = _Vocabulary(extra)
        self.eos = vocab.eos_token_id
        self.token_bytes = vocab.tokens
        ids = {b: i for i, b in enumerate(vocab.tokens[:-1])}
        self.walk_ids = [ids[b] for b in encoded]
        self.tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(vocab), n_vocab=len(vocab.tokens))
        self.matcher = on_big_stack(lambda: llguidance.LLMatcher(self.tokenizer, grammar, log_level=0))
        if self.matcher.is_error():
            raise ValueError(self.matcher.get_error())

    def accepts(self, text: str) -> bool:
        """Whether the grammar admits exactly `text` (UTF-8) and may stop there."""
        m = self.matcher.deep_copy()  # never reset(): its stale mask cache would outlive it
        tokens = list(text.encode())
        if m.validate_tokens(tokens) < len(tokens):  # checked first: a refused token would leave an error state
            return False
        m.consume_tokens(tokens)
        return self._allowed(m.compute_bitmask(), self.eos)

    @staticmethod
    def _allowed(mask: bytes, token: int) -> bool:
        return bool(mask[token >> 3] >> (token & 7) & 1)

    def walk(self, depth: int, max_nodes: int, deadline: float,
             on_text: Callable[[str], None] | None = None) -> WalkResult:
        """Every complete text of at most `depth` tokens, depth-first, within the budgets."""
        result = WalkResult()
        seen: dict[bytes, int] = {}  # prefix → the most tokens left when it was walked
        allowed = self._allowed
        texts: set[bytes] = set()
        walk_ids = self.walk_ids
        token_bytes = self.token_bytes

        def visit(m: Any, prefix: bytes, left: int) -> None:
            """Walk below `m` (a matcher at `prefix` whose history only went forward)."""
            mask = m.compute_bitmask()
            if allowed(mask, self.eos) and prefix not in texts:
                texts.add(prefix)
                text = prefix.decode("utf-8")
                result.texts.append(text)
                if on_text is not None:
                    on_text(text)
            elif not any(mask) and prefix not in texts:
                texts.add(prefix)
                result.dead_ends.append(prefix.decode("utf-8", "replace"))
            if left == 0 or m.is_stopped():
                return
            for t in walk_ids:
                if result.cut is not None:
                    return
                if not allowed(mask, t):
                    # llguidance 1.9.1's mask can leave out a multi-byte token whose bytes the grammar
                    # admits (notes/deviations-verify.md): ask the matcher itself when the first byte is allowed
                    if t < 256 or not allowed(mask, token_bytes[t][0]) or m.validate_tokens([t]) != 1:
                        continue
                nxt = prefix + token_bytes[t]
                if seen.get(nxt, -1) >= left - 1:
                    continue
                seen[nxt] = left - 1
                result.nodes += 1
                if result.nodes > max_nodes:
                    result.cut = f"node budget ({max_nodes:,}) spent"
                    return
                if result.nodes & 255 == 0 and time.monotonic() > deadline:
                    result.cut = "time budget spent"
                    return
                child = m.deep_copy()  # a fork, never consume + rollback (see the module docstring)
                if not child.consume_token(t):
                    raise AssertionError(f"llguidance refused token {token_bytes[t]!r} its own mask allowed "
                                         f"after {prefix!r}: {child.get_error()}")
                visit(child, nxt, left - 1)

        visit(self.matcher.deep_copy(), b"", depth)
        return result
