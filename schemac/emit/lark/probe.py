"""A probe of llguidance's parser limits on a large grammar, before any engine loads it.

A grammar can load and still be unusable: llguidance's Earley parser gives up when one row
holds more than 2,000 items ("Current row has N items; max is 2000"), which a wide distribution
of branches (every one of them alive at the opening `{`) reaches on the first byte. The request
then fails at its first mask: never an invalid answer, but the promise is that what cannot be
enforced is rejected before generation. So the first two rows are parsed at compile time, for
every opening byte, on grammars large enough to hold that many items, and then two walks of
`_STEPS` bytes go down the grammar into nested values (a byte tokenizer; at each step the first
allowed byte of a fixed preference: strings closed at once, objects and arrays entered, one walk
adding entries, the other closing them), since a product of branches under a property or a
later item explodes only when the answer gets there. It is a probe, not a proof: a row an answer
reaches otherwise may still pass the limit (`grammar-too-complex` at run time).
"""
from __future__ import annotations

from typing import Any

from schemac.native import on_big_stack

#: Grammars shorter than this (bytes of grammar JSON) are not probed: the rows past the limit seen
#: so far come from distributions of hundreds of branches, tens of KB of text, and probing every
#: grammar would add 2 ms (70 %) to the median compile (MaskBench sample, 2026-12-04).
PROBE_FROM = 32_000
#: At most this many opening bytes are followed (a value opens with one of `{["-0..9tfn`).
_OPENERS = 16
#: Bytes each walk takes; its preferred bytes, taken first when allowed, and its last resorts,
#: taken only when nothing else is (between them: the lowest allowed byte).
_STEPS = 256
_WALKS = ((b'"{[0tfn-,:', b"}]"), (b'"}]{[0tfn-:', b","))


def parser_limit(grammar: str) -> str | None:
    """llguidance's error on the rows of `grammar` (llguidance grammar JSON) the probe parses, or
    None; grammars under `PROBE_FROM` bytes are not probed. Building a matcher also compiles the
    `%json` parts those rows reach, so an embedding that accepts nothing shows here too ("Unsatisfiable
    schema"), where the grammar check let it pass."""
    if len(grammar) < PROBE_FROM:
        return None
    return on_big_stack(_probe, grammar)


def checked_parser_limit(grammar: str) -> tuple[bool, str | None]:
    """(whether llguidance compiled `grammar` into a matcher, `parser_limit`'s answer): one
    matcher serves both. A matcher's build runs llguidance's grammar check first (the same
    compile of the grammar, `GrammarInit::to_internal`, before the parser is made), so a matcher
    that builds means that check passes; where it does not build, the check's own message is
    the caller's to ask for. Any size: the caller decides when to probe."""
    return on_big_stack(_probe_built, grammar)


def _probe_built(grammar: str) -> tuple[bool, str | None]:
    import llguidance

    from schemac.emit.lark.strings import byte_tokenizer

    matcher = llguidance.LLMatcher(byte_tokenizer(), grammar, log_level=0)
    if matcher.is_error():
        return False, _reason(matcher)
    return True, _probe_rows(matcher)


def _probe(grammar: str) -> str | None:
    import llguidance

    from schemac.emit.lark.strings import byte_tokenizer

    return _probe_rows(llguidance.LLMatcher(byte_tokenizer(), grammar, log_level=0))


def _probe_rows(matcher: Any) -> str | None:
    mask = matcher.compute_bitmask()
    if matcher.is_error():
        return _reason(matcher)
    for byte in _allowed(mask)[:_OPENERS]:
        fork = matcher.deep_copy()
        fork.consume_token(byte)
        fork.compute_bitmask()
        if fork.is_error():
            return _reason(fork)
    for preferred, last in _WALKS:
        found = _walk(matcher.deep_copy(), preferred, last)
        if found is not None:
            return found
    return None


def _allowed(mask: bytes) -> list[int]:
    return [b for b in range(256) if mask[b // 8] >> (b % 8) & 1]


def _walk(matcher: Any, preferred: bytes, last: bytes) -> str | None:
    """Walk `_STEPS` bytes into the grammar by a fixed preference; llguidance's error on the way."""
    for _ in range(_STEPS):
        allowed = _allowed(matcher.compute_bitmask())
        if matcher.is_error():
            return _reason(matcher)
        if not allowed:
            return None
        rest = [b for b in allowed if b not in last] or allowed
        matcher.consume_token(next((b for b in preferred if b in allowed), rest[0]))
        if matcher.is_error():
            return _reason(matcher)
    return None


def _reason(matcher: object) -> str:
    text = (matcher.get_error() or "parser error").splitlines()[0]  # type: ignore[attr-defined]
    return text[:200]


def terminal_admits(body: str, definitions: list[str]) -> bool:
    """Whether the Lark terminal expression `body` (naming terminals that `definitions`, lines
    `NAME: expr`, define) matches some text. False only where llguidance proves it empty: the
    first mask of a grammar holding that one lexeme allows no byte, reported as "NoExtensionBias"
    (its lexer's relevance check found the lexeme dead). Any other outcome, a fuel limit or
    llguidance's own refusal included, counts as non-empty: a terminal kept for non-empty can
    at worst leave a dead end `schemac verify` reports, never admit an invalid text."""
    import json

    import llguidance

    from schemac.emit.lark.strings import byte_tokenizer

    text = "\n".join(["start: PROBE", f"PROBE: {body}", *definitions]) + "\n"
    grammar = json.dumps({"grammars": [{"lark_grammar": text}]})
    try:
        matcher = on_big_stack(lambda: llguidance.LLMatcher(byte_tokenizer(), grammar, log_level=0))
        mask = matcher.compute_bitmask()
    except Exception:  # noqa: BLE001 - llguidance's own refusal: unknown, so non-empty
        return True
    if matcher.is_error():
        return (matcher.get_error() or "").splitlines()[0].strip() != "NoExtensionBias"
    return any(mask) or matcher.is_accepting()


def terminal_strings(body: str, definitions: list[str], limit: int, longest: int = 64) -> int | None:
    """How many texts the Lark terminal expression `body` matches (`definitions` as for
    `terminal_admits`), by walking every byte path llguidance's mask allows; None when there are
    more than `limit`, one is longer than `longest` bytes, or llguidance refuses the probe (so
    None is "unbounded, or too many to count" and never an undercount)."""
    import json

    import llguidance

    from schemac.emit.lark.strings import byte_tokenizer

    text = "\n".join(["start: PROBE", f"PROBE: {body}", *definitions]) + "\n"
    grammar = json.dumps({"grammars": [{"lark_grammar": text}]})
    try:
        root = on_big_stack(lambda: llguidance.LLMatcher(byte_tokenizer(), grammar, log_level=0))
    except Exception:  # noqa: BLE001 - llguidance's own refusal: unknown
        return None
    count = 0
    stack: list[tuple[Any, int, int]] = [(root, -1, 0)]  # (parent, byte to take or -1, depth): copies made on pop
    while stack:
        parent, byte, depth = stack.pop()
        matcher = parent if byte < 0 else parent.deep_copy()
        if byte >= 0 and not matcher.consume_token(byte):
            return None
        mask = matcher.compute_bitmask()
        if matcher.is_error():
            if (matcher.get_error() or "").splitlines()[0].strip() == "NoExtensionBias":
                continue  # a dead path (the lexeme cannot go on): no text here
            return None
        count += bool(matcher.is_accepting())
        allowed = [b for b in range(256) if mask[b >> 3] >> (b & 7) & 1]
        if count > limit or allowed and depth == longest:
            return None
        stack.extend((matcher, b, depth + 1) for b in allowed)
    return count
