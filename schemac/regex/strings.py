"""Lark terminals for canonical JSON string spellings whose values satisfy an ECMA-262 pattern.

The syntax policy spells a string as `json.dumps(s, ensure_ascii=False)` does: every character
raw except `"` and `\\` (written `\\"` and `\\\\`), the controls U+0008/9/A/C/D (written `\\b \\t
\\n \\f \\r`) and the other C0 controls (written `\\u00xx`, lower-case hex). U+007F and everything
beyond ASCII are raw. That spelling is a homomorphism: the spelling of a string is the
concatenation of its characters' spellings. So a regex over characters becomes a regex over
spellings by replacing each character set with the alternation of its members' spellings, and
the result matches exactly the canonical spellings of the strings the character regex matches.

ECMA patterns search (unanchored) and may hold `^`/`$` anywhere; the terminal must match whole
texts. `spelling_parts` computes, for each node, its language split by the anchors its matches rely on:
(begins at the start of the string?, ends at its end?). A sequence joins parts (a part that must
begin at the start may only follow an empty match of what precedes it, and likewise at the end),
and the search is then the union, over parts, of the part padded with "any string" on each side
whose anchor it lacks (`spelling`). An anchor inside a repetition is kept when the repeated
group holds anchors of one kind only (`spelling._repeat_parts`); both kinds are refused.

The terminals are llguidance Lark regex atoms (`/.../`), joined with `&` for length bounds. A
pattern with look-arounds or `\\b`/`\\B` (`assertions`) becomes a Lark expression with `&`/`~`
between the quotes (`lookaround`).
"""
from __future__ import annotations

from functools import lru_cache

from schemac.regex.assertions import assertion_tree, needs_terminal
from schemac.regex.guard import Group, token_tree
from schemac.regex.lookaround import search_terminal
from schemac.regex.parse import Translator
from schemac.regex.spelling import ANY, ANY_CHAR, grouped, spelling_parts
from schemac.regex.syntax import MAX_PATTERN_CHARS, MAX_REPEAT, PatternError


def _character_tree(pattern: str) -> Group:
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError("regex-too-large", f"pattern is longer than {MAX_PATTERN_CHARS:,} characters")
    translator = Translator(pattern)
    translator.parse()
    root, _ = token_tree(translator.out, translator.marks)
    return root


def _search_regex(pattern: str) -> str | None:
    """A whole-text regex over spellings for "ECMA `pattern` matches somewhere in the value"."""
    forms = []
    for (starts, ends), (text, _) in sorted(spelling_parts(_character_tree(pattern), 0).items()):
        forms.append(("" if starts else ANY) + grouped(text) + ("" if ends else ANY))
    return "|".join(forms) if forms else None


def _lark(regex: str) -> str:
    """A Lark regex atom for `regex` between the JSON quotes (`/` is always written escaped)."""
    return '/"' + regex.replace("/", "\\/") + '"/'


def canonical_string_terminal() -> str:
    """A Lark terminal expression for every canonical JSON string spelling, quotes included."""
    return _lark(ANY)


@lru_cache(maxsize=256)
def has_terminal(pattern: str) -> bool:
    """Whether `pattern` needs an exact Lark terminal (`needs_terminal`: assertions, or anchors
    llguidance's regexes refuse) and has one: what routes a string node to the Lark writer. A
    pattern with anchors and no terminal keeps the plain path, where llguidance refuses it."""
    if not needs_terminal(pattern):
        return False
    try:
        json_string_terminal(pattern)
    except PatternError:
        return False
    return True


def json_string_terminal(pattern: str | None = None, *, min_length: int = 0, max_length: int | None = None) -> str:
    """A Lark terminal expression matching exactly the canonical spellings (quotes included) of
    the strings whose value ECMA-262 `pattern` matches (search) and whose length in code points
    lies in [min_length, max_length]. `PatternError` where no exact terminal is known."""
    if max_length is not None and max_length < min_length:
        return _lark("[^\\x{0}-\\x{10FFFF}]")  # no string: a terminal that matches nothing
    if max(min_length, max_length or 0) > MAX_REPEAT:
        raise PatternError("regex-too-large", f"a length bound above {MAX_REPEAT} in a string terminal")
    terms = []
    tree = None if pattern is None else assertion_tree(pattern)
    if tree is not None:  # assertions: Lark's `&` and `~` between the quotes
        expr = search_terminal(tree)
        terms.append(_lark("[^\\x{0}-\\x{10FFFF}]") if expr is None else f'/"/ ({expr}) /"/')
    elif pattern is not None:
        regex = _search_regex(pattern)
        terms.append(_lark("[^\\x{0}-\\x{10FFFF}]" if regex is None else grouped(regex)))
    if min_length or max_length is not None:
        bounds = f"{{{min_length},{'' if max_length is None else max_length}}}"
        terms.append(_lark(grouped(ANY_CHAR) + bounds))
    return " & ".join(terms) if terms else canonical_string_terminal()
