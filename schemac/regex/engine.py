"""The one ECMA-262 regex semantics of schemac: translation, and matching on RE2 under bounds.

Every pattern schemac reads or evaluates (grammar, validator, lowering passes) goes through
`translate` / `ecma_search` here; nothing else runs a schema pattern on any engine.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from schemac.regex.assertions import assertion_tree, has_assertions, search
from schemac.regex.parse import Translator
from schemac.regex.syntax import MAX_PATTERN_CHARS, RE2_MAX_MEM, PatternError

if TYPE_CHECKING:
    import re2


_UNSAFE = (
    "llguidance 1.9.1 would admit the escapes \\\" and \\\\ where the pattern has a character class (or an "
    "alternation of classes) holding every control character but not both '\"' and '\\'; schemac "
    "splits such a class when it is repeated with *, +, ?, {0,n} or {1,n}, or followed by more of "
    "the pattern, but not here"
)


@lru_cache(maxsize=32)
def explicit(pattern: str) -> tuple[str, bool]:
    """`Translator.run` of `pattern`: its explicit spelling, and whether llguidance may mis-quote it."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError("regex-too-large", f"pattern is longer than {MAX_PATTERN_CHARS:,} characters")
    return Translator(pattern).run()


@lru_cache(maxsize=32)
def translate(pattern: str) -> str:
    """The explicit RE2/llguidance spelling of ECMA-262 pattern `pattern`; `PatternError` if none,
    or if llguidance 1.9.1 would mis-quote it (user or lowering pattern: the grammar stays sound)."""
    text, unsafe = explicit(pattern)
    if unsafe:
        raise PatternError("unsupported-regex", _UNSAFE)
    return text


def _re2_options() -> Any:
    import re2

    options = re2.Options()
    options.max_mem = RE2_MAX_MEM
    options.log_errors = False
    return options


@lru_cache(maxsize=32)
def compile_re2(pattern: str) -> "re2._Regexp":
    """RE2 program for ECMA-262 `pattern` (translated; 2 MiB program limit); `PatternError` if none."""
    import re2

    try:
        return re2.compile(explicit(pattern)[0], options=_re2_options())
    except re2.error as exc:
        arg = exc.args[0] if exc.args else exc
        text = arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)
        too_large = any(s in text for s in ("too large", "too big", "repetition size"))
        code = "regex-too-large" if too_large else "unsupported-regex"
        raise PatternError(code, f"RE2 cannot compile the pattern: {text}") from None


def ecma_search(pattern: str, text: str) -> bool:
    """Whether ECMA-262 `pattern` (u flag, unanchored search) matches somewhere in `text`.

    RE2 runs the translated pattern (linear time, 2 MiB program); `PatternError` if it cannot.
    A pattern with assertions runs on `assertions.search` instead (the ends of each node's
    matches from each position: polynomial in the text's length).
    A `text` holding a lone surrogate matches nothing (no JSON string the grammar admits holds one).
    """
    if _has_surrogate(text):
        return False
    tree = assertion_tree(pattern) if has_assertions(pattern) else None
    if tree is not None:  # look-arounds, `\\b`: RE2 has none; positions decide (`assertions`)
        return search(tree, text)
    return compile_re2(pattern).search(text) is not None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


#: characters that are syntax in an ECMA-262 pattern (escaped, as the u flag requires, to be literal)
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")


def literal_of(pattern: str) -> str | None:
    """The one string `pattern` matches when it is `^literal$` (the `^name$` patterns that
    generated schemas use as keys), else None. Anchored at both ends with no multiline flag and
    nothing but literal characters between, such a pattern matches exactly that string; the
    match is confirmed with `ecma_search`, the one matcher."""
    if len(pattern) < 2 or pattern[0] != "^" or pattern[-1] != "$":
        return None
    out: list[str] = []
    i, end = 1, len(pattern) - 1
    while i < end:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= end or pattern[i + 1] not in _SYNTAX:
                return None
            out.append(pattern[i + 1])
            i += 2
        elif ch in _SYNTAX:
            return None
        else:
            out.append(ch)
            i += 1
    text = "".join(out)
    return text if ecma_search(pattern, text) else None
