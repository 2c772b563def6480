"""Liveness of one admitted prefix: a bounded search for an accepted text that extends it.

A grammar can be exact on whole texts and still lead the model into a dead end: a prefix it
admits from which no text the schema accepts can be reached (llguidance then stops with
`NoExtensionBias` and allows only EOS, so the engine returns the unfinished text with
`finish_reason="stop"`). `Search.complete` looks for a completion below a matcher: depth-first,
at most `bound` more tokens, closing tokens first and keys the text already holds last (so the
shortest way out, with no repeated key, is usually the first one tried), over the walk's
alphabet and then every printable ASCII byte the mask allows. It answers True (a completion the final validator accepts was found), None (undecided: a path
reached the bound, the node budget ran out, or the mask allowed a byte outside that vocabulary)
or False, a proof: every continuation gets stuck within the bound, so no text of any length
extends the prefix. Inside a string only the closing quote and two more tokens are tried (a
string's characters are alike, and trying them all is where a depth-first search loses its
budget); a node cut that way can no longer give a proof. "Stuck" is llguidance's own verdict (an error state such as
`NoExtensionBias`, or an empty mask), collected in `stuck`; a complete text the final validator
refuses (unsound, reported by the walk) is no way out either. What it cannot prove: a prefix
from which every path runs on for ever (an unbounded array or string that can never close) is
undecided, never dead.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

#: default bounds of one prefix's search: more tokens, and nodes visited
DEFAULT_BOUND = 24
DEFAULT_NODES = 400
#: tokens tried at a node inside a string (the closing quote first); a node cut to these is undecided
IN_STRING = 3


def is_stuck(matcher: Any, mask: bytes) -> bool:
    """Whether llguidance allows nothing after this matcher's text: an error state (its mask then
    holds EOS alone, which is how engines end such an answer) or an empty mask."""
    return bool(matcher.is_error()) or not any(mask)


def _rank(token: bytes) -> int:
    """Completion order outside a string: closers, separators (which end a number), whole quoted
    literals (keys with their colon, string values), a bare quote, short scalars, the rest, and
    openers last."""
    if token in (b"}", b"]"):
        return 0
    if token in (b",", b":", b", ", b": "):
        return 1
    if len(token) > 1 and token.startswith(b'"'):
        return 2
    if token == b'"':
        return 3
    if token in (b"0", b"null", b"true", b"false", b"1"):
        return 4
    if token in (b"{", b"["):
        return 6
    return 5


def _string_end(token: bytes) -> int:
    """The length of the JSON string `token` opens with (the whole token if it never closes)."""
    escaped = False
    for i, byte in enumerate(token[1:], 1):
        if escaped:
            escaped = False
        elif byte == 0x5C:
            escaped = True
        elif byte == 0x22:
            return i + 1
    return len(token)


def string_state(text: bytes, inside: bool = False, escaped: bool = False) -> tuple[bool, bool]:
    """(inside a string, after a backslash) once `text` follows a JSON prefix in state
    (inside, escaped): unescaped quotes toggle, so a walk can carry the state token by token."""
    for byte in text:
        if escaped:
            escaped = False
        elif byte == 0x5C and inside:
            escaped = True
        elif byte == 0x22:
            inside = not inside
    return inside, escaped


def in_string(text: bytes) -> bool:
    """Whether `text` (a prefix of JSON) ends inside a string."""
    return string_state(text)[0]


@dataclass
class Search:
    """Completion searches over one grammar, sharing what they learn: prefixes proven live
    (`live`), verdicts on complete texts, and every stuck prefix met (`stuck`)."""

    allowed: Callable[[bytes, int], bool]
    token_bytes: list[bytes]
    walk_ids: list[int]
    eos: int
    is_valid: Callable[[str], bool]
    bound: int = DEFAULT_BOUND
    nodes: int = DEFAULT_NODES
    live: set[bytes] = field(default_factory=set)
    stuck: dict[bytes, None] = field(default_factory=dict)
    verdicts: dict[bytes, bool] = field(default_factory=dict)
    spent: int = 0  # nodes visited by every search so far
    #: `time.monotonic()` past which every search answers None (the walk's own time budget)
    deadline: float = float("inf")

    def __post_init__(self) -> None:
        ascii_ids = [b for b in range(0x20, 0x7F) if b not in self.walk_ids]
        self.order = sorted(self.walk_ids, key=lambda t: _rank(self.token_bytes[t])) + ascii_ids
        #: inside a string: the closing quote first, and the brackets (plain characters there) last
        ends = [t for t in self.order if self.token_bytes[t] in (b"}", b"]")]
        self.string_order = ([ord('"')] if ord('"') in self.order else []) + [
            t for t in self.order if t != ord('"') and t not in ends] + ends
        #: quoted-literal tokens → their string alone (`"a"` of `"a": `): a key with either separator is held
        self.quoted = {t: self.token_bytes[t][:_string_end(self.token_bytes[t])] for t in self.order
                       if len(self.token_bytes[t]) > 1 and self.token_bytes[t][:1] == b'"'}
        #: single bytes the search never takes: a mask that allows one leaves the node undecided
        self.others = [b for b in range(256) if b not in set(self.order)]

    def valid(self, text: bytes) -> bool:
        if text not in self.verdicts:
            try:
                self.verdicts[text] = self.is_valid(text.decode("utf-8"))
            except UnicodeDecodeError:
                self.verdicts[text] = False
        return self.verdicts[text]

    def _ordered(self, text: bytes) -> list[int]:
        """The tokens to try after `text`: the closing quote first inside a string; elsewhere
        `order` with the keys `text` already holds moved last, in either spelling (a repeated key never
        leads to a valid answer, and a search that tries it first spends its budget there)."""
        if in_string(text):
            return self.string_order
        held = [t for t, q in self.quoted.items() if q + b":" in text or q + b": " in text]
        return [t for t in self.order if t not in held] + held if held else self.order

    def complete(self, matcher: Any, prefix: bytes) -> bool | None:
        """Whether an accepted text extends `prefix` (the text of `matcher`, whose history only
        went forward) within `bound` tokens; None when `nodes` ran out first."""
        if prefix in self.live:
            return True
        seen: dict[bytes, tuple[int, bool | None]] = {}  # text → (room it was walked with, verdict)
        left = [self.nodes]
        path: list[bytes] = []

        def go(m: Any, text: bytes, room: int) -> bool | None:
            mask = m.compute_bitmask()
            if is_stuck(m, mask):
                self.stuck[text] = None
                return False
            if text in self.live or self.allowed(mask, self.eos) and self.valid(text):
                return True
            if room == 0:
                return None  # the bound: nothing found yet below this node, nothing proven either
            undecided = any(self.allowed(mask, b) for b in self.others)
            inside = in_string(text)
            tried = 0
            for t in self.string_order if inside else self._ordered(text):
                if not self.allowed(mask, t) and (t < 256 or not self.allowed(mask, self.token_bytes[t][0])
                                                  or m.validate_tokens([t]) != 1):
                    continue
                if inside and tried == IN_STRING:  # a string's characters are alike: a few stand for all
                    undecided = True  # (so no proof is drawn from a string cut short)
                    break
                tried += 1
                nxt = text + self.token_bytes[t]
                if nxt in seen and (seen[nxt][1] is False or seen[nxt][0] >= room - 1):  # walked: dead, or with as much room
                    undecided |= seen[nxt][1] is None
                    continue
                left[0] -= 1
                self.spent += 1
                if left[0] < 0 or self.spent & 63 == 0 and time.monotonic() > self.deadline:
                    left[0] = -1
                    return None
                child = m.deep_copy()  # a fork: never consume + rollback (walk.py's docstring)
                if not child.consume_token(t):
                    raise AssertionError(f"llguidance refused token {self.token_bytes[t]!r} its own mask allowed "
                                         f"after {text!r}: {child.get_error()}")
                path.append(nxt)
                found = go(child, nxt, room - 1)
                if found:
                    return True
                path.pop()
                seen[nxt] = (room - 1, found)
                undecided |= found is None
                if left[0] < 0:
                    return None
            return None if undecided else False

        found = go(matcher, prefix, self.bound)
        if found:
            self.live.add(prefix)
            self.live.update(path)
        return found
