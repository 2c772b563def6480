"""Strings in Lark: a node carrying `NOT_PATTERN`, or a pattern with assertions, as one exact terminal.

llguidance's JSON form has no "matches none of these patterns" for strings; a Lark terminal
does: `&` and `~` act on terminals (regular languages), and `json_string_terminal` gives the
canonical spellings (the syntax policy) of the strings an ECMA-262 pattern matches, exactly. So
the node's own `pattern` and lengths, and the pattern of every further allOf part (`STRINGS`),
are intersected and each `NOT_PATTERN` pattern is subtracted. A pattern with look-arounds, `\\b`
or inner anchors has no llguidance regex but such a terminal (`regex.has_terminal`): its node
is written here too (`exact_strings`). As every string has exactly one canonical spelling, the subtraction removes exactly the matching strings. `format` is an
llguidance lexeme no terminal can be intersected with: such a node is refused (`Unwritable`),
never approximated.

A subtraction can leave no string at all (`^a$` minus `a`). A Lark rule whose only terminal is
empty loads, but strands generation mid-answer (`{"k": ` with nothing allowed next), so an empty
terminal is reported as None (the node accepts nothing), which the writer prunes like any
unsatisfiable node: llguidance's own lexer decides, as it will at run time, by whether the
opening quote is allowed (where it cannot tell, it allows it, and the terminal is kept).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from schemac.emit.lark.merge import STRINGS, Unwritable
from schemac.lower.support.marks import NOT_PATTERN


def string_terminal(node: dict[str, Any], pointer: str) -> str | None:
    """A Lark terminal expression for exactly the canonical spellings of the strings `node`'s
    string keywords (`NOT_PATTERN` included) accept; None when there are none."""
    from schemac.regex import PatternError, json_string_terminal

    parts: list[dict[str, Any]] = [node, *node.get(STRINGS, [])]
    if any("format" in part for part in parts):
        raise Unwritable(pointer, "`format` beside a negated `pattern` (no terminal can be intersected with a format)")
    odd = [k for part in node.get(STRINGS, []) for k in part if k != "pattern"]
    if odd:
        raise Unwritable(pointer, f"`{odd[0]}` in an allOf part beside a negated `pattern`")
    hi = node.get("maxLength")
    try:
        terms = [json_string_terminal(node.get("pattern"), min_length=int(node.get("minLength", 0)),
                                      max_length=None if hi is None else int(hi))]
        terms += [json_string_terminal(part["pattern"]) for part in node.get(STRINGS, [])]
        terms += [f"~({json_string_terminal(p)})" for p in node.get(NOT_PATTERN, [])]
    except PatternError as exc:
        raise Unwritable(pointer, f"a string terminal ({exc})") from None
    body = " & ".join(f"({t})" for t in terms)
    error, nonempty = _probe(body)
    if error:
        raise Unwritable(pointer, f"a string terminal llguidance refuses ({error})")
    return body if nonempty else None


def patterns_of(node: dict[str, Any]) -> list[str]:
    """Every pattern a negated-pattern string node's terminal is made of: its own, those of its
    further allOf parts (`STRINGS`) and the negated ones."""
    own = [node["pattern"]] if "pattern" in node else []
    return own + [part["pattern"] for part in node.get(STRINGS, [])] + list(node.get(NOT_PATTERN, []))


def exact_strings(node: dict[str, Any]) -> bool:
    """Whether `node`'s strings must be written as one exact terminal (`string_terminal`): it
    carries `NOT_PATTERN`; or a pattern (its own, or an allOf part's) that no llguidance regex
    can spell but a terminal can (`regex.has_terminal`: look-arounds, `\\b`, anchors inside
    repetitions or after consumed input)."""
    if NOT_PATTERN in node:
        return True
    from schemac.regex import has_terminal

    found = [node.get("pattern")] + [part.get("pattern") for part in node.get(STRINGS, []) if isinstance(part, dict)]
    return any(isinstance(p, str) and has_terminal(p) for p in found)


def lexer_limit(terminals: list[tuple[str, dict[str, Any]]]) -> str | None:
    """llguidance's lexer error, if any, for every negated-pattern terminal of a grammar (each
    with the node it was written for) allowed at one position, reading a value made of all
    their patterns' literal parts.

    Why: llguidance builds one lexer for the lexemes allowed together, lazily, so intersections
    of negations can load, pass the grammar check and give up ("too many expressions
    constructed") only once a value exercises them, failing the request mid-answer. Probing
    them all together over-approximates what can meet at run time, so the check errs towards
    refusing; it is a probe, not a proof: another value may still reach the limit, which fails
    the request (`grammar-too-complex`), never with an invalid answer."""
    import llguidance

    bodies = list(dict.fromkeys(body for body, _ in terminals))
    runs = [run for _, node in terminals for p in patterns_of(node) for run in _literal_runs(p)]
    sample = ('"' + "".join(dict.fromkeys(runs))).encode()
    rules = "start: " + " | ".join(f"T{i}" for i in range(len(bodies))) + "\n"
    rules += "".join(f"T{i}: {body}\n" for i, body in enumerate(bodies))
    grammar = json.dumps({"grammars": [{"lark_grammar": rules}]})
    for text in (sample, *_GENERIC_STARTS):
        matcher = llguidance.LLMatcher(byte_tokenizer(), grammar, log_level=0)
        for byte in text:  # the mask before every byte, as generation computes it: a lexer
            if matcher.is_error():  # that gives up does so building a mask, not consuming
                break
            mask = matcher.compute_bitmask()
            if matcher.is_error() or not mask[byte // 8] >> (byte % 8) & 1:
                break
            matcher.try_consume_tokens([byte])
        if matcher.is_error():
            return (matcher.get_error() or "lexer error").splitlines()[0][:200]
    return None


#: value openings every probe also walks (letters, digits, separators, an escape): a lexer that
#: gives up tends to do so within a string's first bytes, whichever they are
_GENERIC_STARTS = (b'"a1a.', b'"1.a', b'"\\n', b'"-', b'"')


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ :/,-")


def _literal_runs(pattern: str) -> list[str]:
    """Runs of two or more plain characters in a pattern's source text (read as text, not as a
    regex): what a value exercising the pattern most likely contains."""
    runs, run = [], ""
    for ch in pattern + "\0":
        if ch in _PLAIN:
            run += ch
        else:
            if len(run) > 1:
                runs.append(run)
            run = ""
    return runs


@lru_cache(maxsize=64)
def _probe(body: str) -> tuple[str | None, bool]:
    """(llguidance's error for terminal `body`, whether its lexer allows the opening quote)."""
    import llguidance

    grammar = json.dumps({"grammars": [{"lark_grammar": f"start: T\nT: {body}\n"}]})
    matcher = llguidance.LLMatcher(byte_tokenizer(), grammar, log_level=0)
    if matcher.is_error():  # the regex itself is in the message: keep llguidance's reason only
        lines = (matcher.get_error() or "unknown error").splitlines()
        reason = next((line.strip() for line in lines if line.strip().startswith("error:")), lines[0][:200])
        return reason.removeprefix("error:").strip(), False
    mask = matcher.compute_bitmask()
    quote = ord('"')
    return None, bool(mask[quote // 8] >> (quote % 8) & 1)


@lru_cache(maxsize=1)
def byte_tokenizer() -> Any:
    """llguidance's byte tokenizer: one token per byte, so the mask speaks of bytes."""
    import llguidance

    return llguidance.LLTokenizer("byte")
