"""Negation of string keywords: complements of string literals and patterns.

Literals and simple patterns (a repeated atom, one character or class, an anchored literal) are
complemented as regexes llguidance's JSON form takes, written only with literals, negated
classes and `[\\s\\S]` so ECMA-262, RE2 and llguidance read them alike; llguidance 1.9.1's
escape bug (a position admitting every control character also admits `\\"` and `\\\\`) keeps
them from excluding a quote or backslash there. Every other pattern (and those) is complemented
with the marker `NOT_PATTERN`, which only the Lark emit backend writes (a canonical string
terminal minus the pattern's terminal): exact for any pattern `json_string_terminal` translates,
but it pulls every ancestor into the Lark writer, so the JSON forms stay first where they apply.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import CompileError
from schemac.lower.support.context import LowerContext
from schemac.lower.support.marks import NOT_PATTERN
from schemac.lower.negation.domain import not_exact
from schemac.schema import Schema

#: Longest string literal whose complement is written as a regex.
MAX_LITERAL = 256
#: A single literal at least this long is complemented in the flat form (`literal_complement`):
#: the trie form nests one group per character, past llguidance's nesting limit near 83.
FLAT_FROM = 48
MAX_CODE_POINT = 0x10FFFF
_ANY = r"[\s\S]"
#: Characters with a meaning in a regex outside a class (ECMA-262 SyntaxCharacter plus `/`).
_META = frozenset("^$\\.*+?()[]{}|/")


def _escape(ch: str) -> str:
    return "\\" + ch if ch in _META else ch


def string_complement(strings: list[str], ctx: LowerContext, prefix: bool) -> str:
    """An anchored regex for the strings that are none of `strings` (or, with `prefix`, that
    start with none of them), written only with literals, negated classes and [\\s\\S] so that
    ECMA-262, RE2 and llguidance read it the same."""
    for s in strings:
        if len(s) > MAX_LITERAL:
            raise not_exact(ctx, f"a string literal longer than {MAX_LITERAL} characters")
    trie: dict[str, Any] = {}
    for s in strings:
        node = trie
        for ch in s:
            node = node.setdefault(ch, {})
        node[""] = {}

    def alt(node: dict[str, Any]) -> str:
        if "" in node and prefix:
            return ""  # every continuation starts with a listed prefix
        chars = sorted(k for k in node if k)
        options = [] if "" in node else [""]
        options.append((_chars_except({ord(c) for c in chars}) if chars else _ANY) + _ANY + "*")
        for c in chars:
            sub = alt(node[c])
            if sub:
                options.append(_escape(c) + ("(?:" + sub + ")" if "|" in sub else sub))
        return "|".join(options)

    try:
        regex = "^(?:" + alt(trie) + ")$"
    except _QuoteHazard:
        raise not_exact(ctx, 'a string literal containing `"` or `\\`',
                         "llguidance 1.9.1 cannot exclude those characters from a position exactly") from None
    ctx.budget.reserve("regex_chars", len(regex), ctx.pointer)
    return regex


def literal_complement(text: str, ctx: LowerContext, prefix: bool) -> list[Schema]:
    r"""Branches for the strings other than `text` (with `prefix`: not starting with it), of
    constant nesting depth: a string differs from `text` iff its length differs or some
    position i holds another character, `^[\s\S]{i}[^tᵢ]` (the positions before i need not
    match). A shorter string never starts with `text`; only `prefix=False` adds the longer ones.
    """
    n = len(text)
    if n > MAX_LITERAL:
        raise not_exact(ctx, f"a string literal longer than {MAX_LITERAL} characters")
    try:
        options = [
            (f"{_ANY}{{{i}}}" if i > 1 else _ANY * i) + _chars_except({ord(c)}) + _ANY + "*" for i, c in enumerate(text)
        ]
    except _QuoteHazard:
        raise not_exact(ctx, 'a string literal containing `"` or `\\`',
                         "llguidance 1.9.1 cannot exclude those characters from a position exactly") from None
    out: list[Schema] = [{"type": "string", "maxLength": n - 1}] if n else []
    if not prefix:
        out.append({"type": "string", "minLength": n + 1})
    if options:
        regex = "^(?:" + "|".join(options) + ")$"
        ctx.budget.reserve("regex_chars", len(regex), ctx.pointer)
        out.append({"type": "string", "pattern": regex})
    return out


class _QuoteHazard(Exception):
    """The complement would exclude `"` or `\\` at a position that admits every control char."""


def _chars_except(excluded: set[int]) -> str:
    """Any one character outside `excluded`, as an alternation of single-range classes.

    llguidance 1.9.1 matches the escapes `\\"` and `\\\\` wherever a position admits all of
    U+0000-U+001F (`[^"]` accepts a quote), so excluding a quote or backslash there is refused.
    """
    if excluded & {0x22, 0x5C} and not any(cp < 0x20 for cp in excluded):
        raise _QuoteHazard()
    ranges: list[tuple[int, int]] = []
    nxt = 0
    for cp in sorted(excluded):
        if cp > nxt:
            ranges.append((nxt, cp - 1))
        nxt = cp + 1
    if nxt <= MAX_CODE_POINT:
        ranges.append((nxt, MAX_CODE_POINT))
    return _ranges_regex(ranges)


def _ranges_regex(ranges: list[tuple[int, int]]) -> str:
    """One character in `ranges`, the surrogate block left out: a JSON string's characters are
    code points (an astral one is one character, never two halves), and a class ending in the
    block would hold a lone surrogate, which no pattern engine here reads the same."""
    ranges = [(lo, hi) for a, b in ranges for lo, hi in ((a, min(b, 0xD7FF)), (max(a, 0xE000), b)) if lo <= hi]
    parts = [f"[\\u{{{lo:X}}}-\\u{{{hi:X}}}]" for lo, hi in ranges]
    if not parts:
        return "[^\\s\\S]"  # no character at all
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _to_ranges(cps: set[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in sorted(cps):
        if out and cp == out[-1][1] + 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def _literal_pattern(pattern: str) -> tuple[str, bool, bool] | None:
    """(literal, anchored at start, anchored at end) when `pattern` is a plain literal."""
    start = pattern.startswith("^")
    i = 1 if start else 0
    out: list[str] = []
    end = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern) or pattern[i + 1] not in _META | {"-"}:
                return None
            out.append(pattern[i + 1])
            i += 2
            continue
        if c == "$" and i == len(pattern) - 1:
            end = True
        elif c in _META:
            return None
        else:
            out.append(c)
        i += 1
    return "".join(out), start, end


#: Punctuation that means itself inside a class in ECMA-262 (u), RE2 and llguidance alike.
_CLASS_PLAIN = frozenset(" .,()@&'_:;!?#%*+=<>~/\"$|{}")


def _one_char_class(pattern: str) -> set[int] | None:
    """For an unanchored pattern that is one character or one simple class, the code points
    that do NOT match it; None for anything else."""
    if len(pattern) == 1 and pattern not in _META:
        return _all_but({ord(pattern)})
    if len(pattern) == 2 and pattern[0] == "\\" and pattern[1] in _META | {"-"}:
        return _all_but({ord(pattern[1])})
    if len(pattern) < 3 or pattern[0] != "[" or pattern[-1] != "]":
        return None
    body = pattern[1:-1]
    negated = body.startswith("^")
    inner = body[1:] if negated else body
    members: set[int] = set()
    i = 0
    while i < len(inner):
        c = inner[i]
        if c == "\\":
            if i + 1 >= len(inner) or inner[i + 1] not in _META | {"-"}:
                return None
            members.add(ord(inner[i + 1]))
            i += 2
            continue
        if i + 2 < len(inner) and inner[i + 1] == "-" and c.isascii() and c.isalnum() and inner[i + 2].isascii() and inner[i + 2].isalnum():
            if ord(inner[i + 2]) < ord(c):
                return None
            members.update(range(ord(c), ord(inner[i + 2]) + 1))
            i += 3
            continue
        if c == "-" and i not in (0, len(inner) - 1):
            return None
        if not ((c.isascii() and c.isalnum()) or c in _CLASS_PLAIN or c == "-"):
            return None
        members.add(ord(c))
        i += 1
    if not members:
        return None
    return members if negated else _all_but(members)


class _all_but(frozenset):  # marks "every code point except these"
    pass


def _repeated_atom(pattern: str) -> tuple[list[tuple[int, int]], int, int | None] | None:
    """For `^A{m,n}$` (also `*`, `+`, `?`, `{n}`, `{n,}`, or no quantifier) with A one character,
    escape, `.` or class: (A's code point ranges, m, n); None for any other pattern."""
    from schemac.regex import PatternError, complement, LINE_TERMINATORS, Translator

    if len(pattern) < 3 or pattern[0] != "^" or pattern[-1] != "$" or pattern.endswith("\\$"):
        return None
    t = Translator(pattern[:-1])
    t.i = 1
    try:
        c = pattern[1]
        if c == "[":
            t.i += 1
            atom = t.char_class()
        elif c == "\\":
            t.i += 1
            item = t.escape(in_class=False)
            atom = item if isinstance(item, list) else [(item, item)]
        elif c == ".":
            t.i += 1
            atom = complement(LINE_TERMINATORS)
        elif c in _META:
            return None
        else:
            cp = t.code_point()
            atom = [(cp, cp)]
        text, rest = pattern[1:t.i], pattern[t.i:-1]
        copies = 1
        while rest.startswith(text):
            rest, copies = rest[len(text):], copies + 1
        if copies > 1 and rest:
            return None  # e.g. `^aa+$`
        bounds = {"": (copies, copies), "*": (0, None), "+": (1, None), "?": (0, 1)}.get(rest)
        if bounds is None:
            if not (rest.startswith("{") and rest.endswith("}")) or t.counted() is None:
                return None
            bounds = t.counted()
            if t.p.index("}", t.i) != len(t.p) - 1:
                return None
    except PatternError:
        return None
    lo, hi = bounds
    if hi is not None and hi < lo:
        return None
    return list(atom), lo, hi


def _not_repeated(atom: list[tuple[int, int]], lo: int, hi: int | None, pattern: str, ctx: LowerContext) -> list[Schema]:
    """Strings failing `^A{lo,hi}$`: a length outside [lo, hi], or some character outside A."""
    from schemac.regex import complement

    out: list[Schema] = []
    if lo > 0:
        out.append({"type": "string", "maxLength": lo - 1})
    if hi is not None:
        out.append({"type": "string", "minLength": hi + 1})
    outside = [(a, b) for a, b in complement(atom) if a <= MAX_CODE_POINT]
    if outside:
        admitted = {cp for a, b in outside for cp in (0x22, 0x5C) if a <= cp <= b}
        if any(a <= 0 and b >= 0x1F for a, b in outside) and len(admitted) == 1:
            raise not_exact(ctx, f"`pattern` {pattern!r} (it would exclude a quote or backslash)")
        regex = _ranges_regex(outside)
        ctx.budget.reserve("regex_chars", len(regex), ctx.pointer)
        out.append({"type": "string", "pattern": regex})
    return out


def not_pattern(pattern: str, ctx: LowerContext) -> list[Schema]:
    """Branches for the strings ECMA `pattern` does not match (search semantics): a JSON-form
    regex where a simple one is exact, else the `NOT_PATTERN` marker."""
    try:
        simple = _simple_not_pattern(pattern, ctx)
    except CompileError as exc:  # e.g. a quote to exclude, or a literal past MAX_LITERAL
        if "not-exact" not in exc.codes:
            raise
        return _marked(pattern, ctx)
    return _marked(pattern, ctx) if simple is None else simple


def _marked(pattern: str, ctx: LowerContext) -> list[Schema]:
    """The marker form, only where the pattern has an exact string terminal (else `not-exact`)."""
    from schemac.regex import PatternError, json_string_terminal

    try:
        terminal = json_string_terminal(pattern)
    except PatternError as exc:
        raise not_exact(ctx, f"`pattern` {pattern!r}", f"its strings have no exact terminal: {exc}") from None
    ctx.budget.reserve("regex_chars", len(terminal), ctx.pointer)
    return [{"type": "string", NOT_PATTERN: [pattern]}]


def _simple_not_pattern(pattern: str, ctx: LowerContext) -> list[Schema] | None:
    """The JSON-form complement of a simple `pattern`; None when it has no simple shape."""
    repeated = _repeated_atom(pattern)
    if repeated is not None:
        return _not_repeated(*repeated, pattern, ctx)
    outside = _one_char_class(pattern)
    if outside is not None:  # "contains a character of C" fails iff every character is outside C
        try:
            one = _chars_except(set(outside)) if isinstance(outside, _all_but) else _ranges_regex(_to_ranges(outside))
        except _QuoteHazard:
            raise not_exact(ctx, f"`pattern` {pattern!r} (it would exclude a quote or backslash)") from None
        return [{"type": "string", "pattern": "^" + one + "*$"}]
    lit = _literal_pattern(pattern)
    if lit is None or (lit[0] and not lit[1]):
        return None
    text, start, end = lit
    if not start:  # the empty pattern matches every string
        return []
    if not text and not end:
        return []
    if len(text) >= FLAT_FROM:
        return literal_complement(text, ctx, prefix=not end)
    return [{"type": "string", "pattern": string_complement([text], ctx, prefix=not end)}]
