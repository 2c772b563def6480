"""llguidance's one-entry mask cache outlives rollback, reset and deep_copy: pinned.

docs/llguidance-deviations.md, "Matcher behaviour" 4. The parser caches the last mask it
computed without forced bytes, keyed on (lexer state, row index, pending lexeme bytes);
`rollback`/`reset` keep it and `deep_copy` copies it, so once rows are rolled back a later state
that reuses the row index with the same lexer state gets the mask of a state that no longer
exists. Each test below asserts today's wrong mask next to what a fresh matcher computes for
the same tokens, so it FAILS when llguidance fixes the cache (or the binding exposes
`invalidate_bias_cache`): then retire the workarounds (the fork-only walk in
`schemac/verify/walk.py`, the trail and rebuild in `schemac/runtime/request.py`). The last test
pins the property the runtime's cheap reset relies on (`RequestState.settled`).
Pure llguidance throughout: byte vocabulary plus three multi-byte tokens, a four-line grammar.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

GRAMMAR = 'start: "{" ("\\"a\\"" KSEP N | "\\"b\\"" KSEP S) "}"\nKSEP: /: ?/\nN: /1\\.50*/\nS: "\\"1.5\\""'
A, B, COLON, OPEN, STR15 = b'"a":', b'"b"', b":", b"{", b'"1.5"'


class _Vocab:
    """Bytes 0-255, then `"a":`, `"b"`, `"1.5"`, then EOS; text is encoded byte by byte."""

    def __init__(self) -> None:
        self.tokens = [bytes([i]) for i in range(256)] + [A, B, STR15, b"<eos>"]
        self.eos_token_id = len(self.tokens) - 1
        self.bos_token_id = None
        self.special_token_ids = [self.eos_token_id]

    def __call__(self, s: str | bytes) -> list[int]:
        return list(s if isinstance(s, bytes) else s.encode())


VOCAB = _Vocab()
ID = {b: i for i, b in enumerate(VOCAB.tokens)}


def _matcher() -> Any:
    import llguidance

    tok = llguidance.LLTokenizer(llguidance.TokenizerWrapper(VOCAB), n_vocab=len(VOCAB.tokens))
    m = llguidance.LLMatcher(tok, json.dumps({"grammars": [{"lark_grammar": GRAMMAR}]}), log_level=0)
    assert not m.is_error(), m.get_error()
    return m


def _consume(m: Any, *tokens: bytes, masks: bool = True) -> Any:
    for t in tokens:
        assert m.consume_token(ID[t]), t
        if masks:
            m.compute_bitmask()
    return m


def _allows(m: Any, token: bytes) -> bool:
    mask, i = m.compute_bitmask(), ID[token]
    return bool(mask[i >> 3] >> (i & 7) & 1)


def _fresh(*tokens: bytes) -> Any:
    """The truth: a matcher that never rolled back, no mask computed on the way."""
    return _consume(_matcher(), *tokens, masks=False)


def test_fresh_matchers_agree_with_the_grammar() -> None:
    """Not a deviation: the reference answers every test below is compared with."""
    assert not _allows(_fresh(OPEN, A), STR15) and _allows(_fresh(OPEN, A), b"1")
    assert _allows(_fresh(OPEN, B, COLON), STR15) and not _allows(_fresh(OPEN, B, COLON), b"1")


def test_rollback_leaves_a_stale_mask_that_allows_a_refused_token() -> None:
    """Masks at `{`, `{"b"`, `{"b":`; rollback(2); `"a":`: the mask is still `{"b":`'s. It
    allows `"1.5"` (unsound: the matcher then refuses it) and forbids `1` (incomplete)."""
    m = _consume(_matcher(), OPEN, B, COLON)
    assert m.rollback(2)
    _consume(m, A, masks=False)
    assert _allows(m, STR15) and not _allows(m, b"1")  # a fresh matcher: the opposite
    assert not m.consume_token(ID[STR15]) and m.is_error()


@pytest.mark.parametrize("mask_after_rollback", [False, True])
def test_a_mask_right_after_rollback_does_not_heal_it(mask_after_rollback: bool) -> None:
    """`{` has a forced byte (`"`), so its mask is computed with a non-empty start, which neither
    reads nor writes the cache: no mask computed after the rollback clears the stale entry."""
    m = _consume(_matcher(), OPEN, B, COLON)
    assert m.rollback(2)
    if mask_after_rollback:
        m.compute_bitmask()
    assert _allows(_consume(m, A, masks=False), STR15)


def test_reset_leaves_a_stale_mask_that_forbids_an_admitted_token() -> None:
    """The reverse direction, through reset(): the mask at `{"a":` outlives the reset and is
    served at `{"b":`, forbidding the only admitted value `"1.5"` and allowing `1`."""
    m = _consume(_matcher(), OPEN, A, masks=False)
    m.compute_bitmask()
    assert m.reset()
    _consume(m, OPEN, B, COLON, masks=False)
    assert not _allows(m, STR15) and _allows(m, b"1")  # a fresh matcher: the opposite
    assert m.consume_token(ID[STR15])  # the token the mask forbade is admitted


def test_deep_copy_copies_the_stale_mask() -> None:
    """Forking after a rollback does not help: the copy carries the stale entry."""
    m = _consume(_matcher(), OPEN, B, COLON)
    assert m.rollback(2)
    assert _allows(_consume(m.deep_copy(), A, masks=False), STR15)


def test_draft_fill_leaves_the_stale_mask_on_the_committed_matcher() -> None:
    """`fill_next_token_bitmask_par_with_draft_tokens` consumes the drafts on the matcher it is
    given and rolls them back: drafts `"b"`, `:`, then the committed `"a":` diverges, and the
    committed matcher's next mask is the drafts' (what a serving engine would apply)."""
    import llguidance
    import llguidance.torch as llt

    m = _consume(_matcher(), OPEN)
    bitmask = llt.allocate_token_bitmask(3, len(VOCAB.tokens))
    llt.fill_next_token_bitmask_par_with_draft_tokens(llguidance.LLExecutor(1), [(m, 0, [ID[B], ID[COLON]])], bitmask)
    _consume(m, A, masks=False)
    assert _allows(m, STR15) and not _allows(m, b"1")


def test_forward_only_matchers_and_their_copies_are_right() -> None:
    """Not a deviation, what the workarounds rely on: without rollback the row index only
    grows, so a matcher whose history went forward, and any deep copy of it, keeps a valid
    cache, whatever its forks did."""
    base = _consume(_matcher(), OPEN)
    _consume(base.deep_copy(), B, COLON)  # drafts on a fork
    fork = base.deep_copy()
    _consume(base, A, masks=False)
    assert not _allows(base, STR15) and _allows(base, b"1")
    _consume(fork, B, COLON, masks=False)
    assert _allows(fork, STR15) and not _allows(fork, b"1")


def test_a_mask_without_forced_bytes_replaces_the_stale_entry() -> None:
    """What `RequestState.settled` relies on (it must hold for as long as the bug does): the
    cache has ONE entry, replaced by every mask computed where no byte is forced. Keys `a`/`b`
    unquoted, so nothing is forced after `{`: a mask computed there after the rollback heals
    the cache and the diverging `a:` gets the right mask; without it the stale one comes back."""
    import llguidance

    tok = llguidance.LLTokenizer(llguidance.TokenizerWrapper(VOCAB), n_vocab=len(VOCAB.tokens))
    grammar = 'start: "{" ("a" KSEP N | "b" KSEP S) "}"\nKSEP: /: ?/\nN: /1\\.50*/\nS: "\\"1.5\\""'

    def stale_after_rollback(heal: bool) -> bool:
        m = llguidance.LLMatcher(tok, json.dumps({"grammars": [{"lark_grammar": grammar}]}), log_level=0)
        assert not m.is_error(), m.get_error()
        _consume(m, OPEN, b"b", COLON)
        m.rollback(2)
        if heal:
            assert m.compute_ff_bytes() == b""
            m.compute_bitmask()
        _consume(m, b"a", COLON, masks=False)
        return _allows(m, STR15)  # `"1.5"` follows `b:` only

    assert stale_after_rollback(heal=False)
    assert not stale_after_rollback(heal=True)
