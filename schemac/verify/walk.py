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
from schemac.verify.live import DEFAULT_BOUND, DEFAULT_NODES, Search, in_string, is_stuck


@dataclass
class WalkResult:
    """What one walk saw: complete texts, dead ends, and whether (and why) it was cut short.

    `dead_ends`: admitted prefixes no accepted text extends (walk order; llguidance stuck there,
    or every way on gets stuck: `live.Search`); `undecided`: walked prefixes whose liveness
    search found no accepted text and proved nothing (a path ran past the bound or its budget);
    `live_checked`: prefixes whose liveness was decided or searched."""

    texts: list[str] = field(default_factory=list)
    dead_ends: list[str] = field(default_factory=list)
    nodes: int = 0
    cut: str | None = None
    live_checked: int = 0
    undecided: list[str] = field(default_factory=list)


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
        """Whether the grammar admits exactly `text` (UTF-8) and may stop there (an error state,
        whose mask holds EOS alone, is not acceptance)."""
        m = self.matcher.deep_copy()  # never reset(): its stale mask cache would outlive it
        tokens = list(text.encode())
        if m.validate_tokens(tokens) < len(tokens):  # checked first: a refused token would leave an error state
            return False
        m.consume_tokens(tokens)
        mask = m.compute_bitmask()
        return not m.is_error() and self._allowed(mask, self.eos)

    @staticmethod
    def _allowed(mask: bytes, token: int) -> bool:
        return bool(mask[token >> 3] >> (token & 7) & 1)

    def walk(self, depth: int, max_nodes: int, deadline: float,
             on_text: Callable[[str], None] | None = None, is_valid: Callable[[str], bool] | None = None,
             bound: int = DEFAULT_BOUND, search_nodes: int = DEFAULT_NODES, live_depth: int | None = None) -> WalkResult:
        """Every complete text of at most `depth` tokens, depth-first, within the budgets. With
        `is_valid` (the final validator's verdict on a text), every walked prefix that does not
        end inside a string is also checked for liveness: it is live when an accepted text lies
        below it in the walk, else a `live.Search` of `bound` more tokens and `search_nodes`
        nodes decides it, so a dead end is reported whatever the walk's depth. A prefix inside a
        string is left to the prefixes after its string closes (a string's characters are
        alike, and searching from each would cost the walk its budget); a stuck one is still
        reported. `live_depth` (default: `depth`) checks only prefixes of at most that many
        tokens (the walk's leaves are most of its prefixes; their parents' searches cover them
        more cheaply). Without `is_valid`, only stuck prefixes are reported."""
        result = WalkResult()
        live_depth = depth if live_depth is None else live_depth
        seen: dict[bytes, int] = {}  # prefix → the most tokens left when it was walked
        allowed = self._allowed
        texts: dict[bytes, bool] = {}  # complete text → accepted?
        dead: dict[bytes, None] = {}
        walk_ids = self.walk_ids
        token_bytes = self.token_bytes
        search = None if is_valid is None else Search(allowed, token_bytes, walk_ids, self.eos, is_valid,
                                                     bound, search_nodes, deadline=deadline)

        def visit(m: Any, prefix: bytes, left: int) -> bool:
            """Walk below `m` (a matcher at `prefix` whose history only went forward); whether an
            accepted text was found at or below it (always False without `is_valid`)."""
            mask = m.compute_bitmask()
            if is_stuck(m, mask):
                dead[prefix] = None
                return False
            live = False
            if allowed(mask, self.eos):
                if prefix not in texts:
                    text = prefix.decode("utf-8")
                    result.texts.append(text)
                    texts[prefix] = is_valid is not None and is_valid(text)
                    if on_text is not None:
                        on_text(text)
                live = texts[prefix]
            if left > 0 and not m.is_stopped():
                for t in walk_ids:
                    if result.cut is not None:
                        break
                    if not allowed(mask, t):
                        # llguidance 1.9.1's mask can leave out a multi-byte token whose bytes the grammar
                        # admits (notes/deviations-verify.md): ask the matcher itself when the first byte is allowed
                        if t < 256 or not allowed(mask, token_bytes[t][0]) or m.validate_tokens([t]) != 1:
                            continue
                    nxt = prefix + token_bytes[t]
                    if seen.get(nxt, -1) >= left - 1:
                        live |= search is not None and nxt in search.live
                        continue
                    seen[nxt] = left - 1
                    result.nodes += 1
                    if result.nodes > max_nodes:
                        result.cut = f"node budget ({max_nodes:,}) spent"
                        break
                    if result.nodes & 255 == 0 and time.monotonic() > deadline:
                        result.cut = "time budget spent"
                        break
                    child = m.deep_copy()  # a fork, never consume + rollback (see the module docstring)
                    if not child.consume_token(t):
                        raise AssertionError(f"llguidance refused token {token_bytes[t]!r} its own mask allowed "
                                             f"after {prefix!r}: {child.get_error()}")
                    live |= visit(child, nxt, left - 1)
            if search is None or result.cut is not None or depth - left > live_depth or (not live and in_string(prefix)):
                return live  # inside a string: its way out is a prefix after the string, checked there
            result.live_checked += 1
            if live:
                search.live.add(prefix)
                return True
            found = search.complete(m, prefix)
            if found is None and time.monotonic() > deadline:
                result.cut = "time budget spent"
                return False
            if found is False:
                dead[prefix] = None
            elif found is None:
                result.undecided.append(prefix.decode("utf-8", "replace"))
            return bool(found)

        visit(self.matcher.deep_copy(), b"", depth)
        if search is not None:
            dead.update(search.stuck)
        result.dead_ends = [p.decode("utf-8", "replace") for p in sorted(dead, key=len)]
        return result
