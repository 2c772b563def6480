"""A probe of llguidance's parser limits on a large grammar, before any engine loads it.

A grammar can load and still be unusable: llguidance's Earley parser gives up when one row
holds more than 2,000 items ("Current row has N items; max is 2000"), which a wide distribution
of branches (every one of them alive at the opening `{`) reaches on the first byte. The request
then fails at its first mask: never an invalid answer, but the promise is that what cannot be
enforced is rejected before generation. So the first two rows are parsed at compile time, for
every opening byte, on grammars large enough to hold that many items. It is a probe, not a
proof: a row deeper in an answer may still pass the limit (`grammar-too-complex` at run time).
"""
from __future__ import annotations

from schemac.native import on_big_stack

#: Grammars shorter than this (bytes of grammar JSON) are not probed: the rows past the limit seen
#: so far come from distributions of hundreds of branches, tens of KB of text, and probing every
#: grammar would add 2 ms (70 %) to the median compile (MaskBench sample, 2026-12-04).
PROBE_FROM = 32_000
#: At most this many opening bytes are followed (a value opens with one of `{["-0..9tfn`).
_OPENERS = 16


def parser_limit(grammar: str) -> str | None:
    """llguidance's error for the first two rows of `grammar` (llguidance grammar JSON), or
    None; grammars under `PROBE_FROM` bytes are not probed. Building a matcher also compiles the
    `%json` parts those rows reach, so an embedding that accepts nothing shows here too ("Unsatisfiable
    schema"), where the grammar check let it pass."""
    if len(grammar) < PROBE_FROM:
        return None
    return on_big_stack(_first_rows, grammar)


def _first_rows(grammar: str) -> str | None:
    import llguidance

    from schemac.emit.lark_strings import byte_tokenizer

    matcher = llguidance.LLMatcher(byte_tokenizer(), grammar, log_level=0)
    mask = matcher.compute_bitmask()
    if matcher.is_error():
        return _reason(matcher)
    opening = [b for b in range(256) if mask[b // 8] >> (b % 8) & 1][:_OPENERS]
    for byte in opening:
        fork = matcher.deep_copy()
        fork.consume_token(byte)
        fork.compute_bitmask()
        if fork.is_error():
            return _reason(fork)
    return None


def _reason(matcher: object) -> str:
    text = (matcher.get_error() or "parser error").splitlines()[0]  # type: ignore[attr-defined]
    return text[:200]
