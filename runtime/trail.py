"""A request's llguidance matcher with its trail: rollback without a stale mask.

llguidance (1.7.2-1.9.1) keeps one cached mask keyed on (lexer state, row index) that rollback
leaves in place (docs/llguidance-deviations.md, "Matcher behaviour" 4): after a rollback, a
state that reuses a rolled-back row index can get a mask of a state that no longer exists. So
the request keeps the tokens undone since the matcher's last clean state, its *trail*: while
later tokens re-follow the trail they rebuild exactly the states the cached mask came from, and
a mask at the state rolled back to is right; the first token that leaves the trail (a commit
diverging from rolled-back drafts or pending tokens) first replaces the matcher by a clean one
(`rebuild`: a deep copy of a matcher whose history only went forward, the pristine's copy
kept at the acknowledged tokens or an anchor a few tokens behind, plus a short replay).
Forward decoding and accepted drafts or pending tokens clone nothing; each divergence clones
once (O(history): 6-12 us at 100 tokens).
"""
from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schemac.runtime.loader import CompiledGrammar

#: a rebuild replays at most this many tokens past its clean source, else it moves an anchor up
REPLAY = 32


class MatcherTrail:
    """The matcher of one request (None before its grammar compiled and once dropped) and what
    rebuilds it: the matcher tokens consumed (acknowledged + pending), the trail (last token to
    follow first), and clean matchers (history only forward, never used for masks): `root` at
    most at the acknowledged tokens, `anchor` above them (dropped by a rollback below it)."""

    def __init__(self) -> None:
        self.grammar: CompiledGrammar | None = None
        self.matcher: Any = None
        self.history = array("l")
        self.acked = 0  # matcher tokens of acknowledged tokens: no rollback goes below them
        self.trail: list[int] = []
        self.root: Any = None
        self.root_at = 0
        self.anchor: Any = None
        self.anchor_at = 0

    def start(self, grammar: CompiledGrammar) -> None:
        """The compiled grammar is ready: a fresh matcher of it."""
        self.grammar, self.matcher = grammar, grammar.copy()

    def drop(self) -> None:
        """Let go of the grammar and every matcher (a failed or released request)."""
        self.grammar = None
        self.matcher = self.root = self.anchor = None
        self.trail = []

    def consume(self, toks: list[int]) -> None:
        """Consume matcher tokens; where they leave the trail, rebuild the matcher first."""
        trail, n = self.trail, 0
        while trail and n < len(toks) and toks[n] == trail[-1]:
            trail.pop()
            n += 1
        if trail and n < len(toks):
            if n:
                self.matcher.consume_tokens(toks[:n])
                self.history.extend(toks[:n])
            toks = toks[n:]
            self.rebuild()
        if len(toks) == 1:
            self.matcher.consume_token(toks[0])
        elif toks:
            self.matcher.consume_tokens(toks)
        self.history.extend(toks)

    def rollback(self, matcher_tokens: int) -> None:
        """Roll the matcher back; the tokens undone go on the trail (see the module docstring).
        A stopped matcher is rebuilt instead (docs/llguidance-deviations.md, EOS rollback)."""
        if matcher_tokens and self.matcher is not None:
            kept = len(self.history) - matcher_tokens
            stopped = self.matcher.is_stopped() and not self.matcher.is_error()  # an error stays
            if not stopped:
                self.matcher.rollback(matcher_tokens)
                self.trail.extend(reversed(self.history[kept:]))
            del self.history[kept:]
            if self.anchor is not None and self.anchor_at > kept:
                self.anchor = None
            if stopped:  # llguidance does not record EOS taken by a stopped matcher: rollback overshoots
                self.rebuild()

    def rebuild(self) -> None:
        """Replace the matcher by one with a valid mask cache at the same tokens: a deep copy
        of a clean matcher (never rolled back, never used for masks) plus a replay of at most
        about `REPLAY` tokens. The root advances to the acknowledged tokens (no rollback goes
        below them); pending tokens get an anchor when there are many (engines that leave
        everything pending, such as the SGLang integration)."""
        assert self.grammar is not None
        history, end, acked = self.history, len(self.history), self.acked
        if self.anchor is not None and self.anchor_at <= acked:
            self.root, self.root_at, self.anchor = self.anchor, self.anchor_at, None
        if self.anchor is None:
            if self.root is None:
                self.root, self.root_at = self.grammar.copy(), 0
            if self.root_at < acked:
                self.root.consume_tokens(history[self.root_at : acked].tolist())
                self.root_at = acked
            source, at = self.root, acked
        else:
            source, at = self.anchor, self.anchor_at
        if end - at > REPLAY:
            to = end - REPLAY // 2
            if source is self.root:
                self.anchor = source = self.root.deep_copy()
            source.consume_tokens(history[at:to].tolist())
            self.anchor_at = at = to
        self.matcher = source.deep_copy()
        if at < end:
            self.matcher.consume_tokens(history[at:end].tolist())
        self.trail = []
