"""Lark terminals for canonical JSON string spellings whose values satisfy an ECMA-262 pattern.

The syntax policy spells a string as `json.dumps(s, ensure_ascii=False)` does: every character
raw except `"` and `\\` (written `\\"` and `\\\\`), the controls U+0008/9/A/C/D (written `\\b \\t
\\n \\f \\r`) and the other C0 controls (written `\\u00xx`, lower-case hex). U+007F and everything
beyond ASCII are raw. That spelling is a homomorphism: the spelling of a string is the
concatenation of its characters' spellings. So a regex over characters becomes a regex over
spellings by replacing each character set with the alternation of its members' spellings, and
the result matches exactly the canonical spellings of the strings the character regex matches.

ECMA patterns search (unanchored) and may hold `^`/`$` anywhere; the terminal must match whole
texts. `_parts` computes, for each node, its language split by the anchors its matches rely on:
(begins at the start of the string?, ends at its end?). A sequence joins parts (a part that must
begin at the start may only follow an empty match of what precedes it, and likewise at the end),
and the search is then the union, over parts, of the part padded with "any string" on each side
whose anchor it lacks. Anchors inside repetitions are refused (`PatternError`).

The terminals are llguidance Lark regex atoms (`/.../`), joined with `&` for length bounds.
"""
from __future__ import annotations

from schemac.regex.guard import _Anchor, _Atom, _Group, _Node, _Repeat, _tree
from schemac.regex.parse import _Translator
from schemac.regex.syntax import MAX_CODE_POINT, MAX_PATTERN_CHARS, MAX_REPEAT, PatternError, Ranges, _class

#: deepest group nesting the terminal builder recurses through
MAX_NESTING = 200
#: longest terminal text built (anchors in many places multiply the parts' text)
MAX_TERMINAL_CHARS = 1 << 20

#: short escapes json.dumps writes (code point → escape letter)
_SHORT = {0x08: "b", 0x09: "t", 0x0A: "n", 0x0C: "f", 0x0D: "r", 0x22: '"', 0x5C: "\\"}

#: one part of a node's language: (regex over spellings, whether it holds the empty string)
_Part = tuple[str, bool]
#: parts by (must begin at the start of the string, must end at its end)
_Parts = dict[tuple[bool, bool], _Part]


def _hex_alternatives(digits: list[int]) -> str:
    """A regex for the lower-case two-digit hex spellings of `digits` (all below 0x20)."""
    out = []
    for high in (0, 1):
        lows = [d & 0xF for d in digits if d >> 4 == high]
        if lows:
            cls = "".join(f"{x:x}" for x in lows)
            out.append(f"{high}{cls}" if len(lows) == 1 else f"{high}[{cls}]")
    return out[0] if len(out) == 1 else "(?:" + "|".join(out) + ")"


def spelling_regex(ranges: Ranges) -> str | None:
    """A regex matching exactly the canonical JSON spellings of the code points in `ranges`
    (normalised); None for the empty set."""
    raw: Ranges = []
    special: list[int] = []
    for lo, hi in ranges:
        for cp in range(lo, min(hi, 0x5C) + 1):
            if cp < 0x20 or cp in (0x22, 0x5C):
                special.append(cp)
        for a, b in ((max(lo, 0x20), min(hi, 0x21)), (max(lo, 0x23), min(hi, 0x5B)), (max(lo, 0x5D), hi)):
            if a <= b:
                raw.append((a, b))
    alternatives = [_class(raw)] if raw else []
    short = [_SHORT[cp] for cp in special if cp in _SHORT]
    if short:
        letters = "".join("\\\\" if c == "\\" else c for c in short)
        alternatives.append("\\\\" + (letters if len(short) == 1 else f"[{letters}]"))
    long = [cp for cp in special if cp not in _SHORT]
    if long:
        alternatives.append("\\\\u00" + _hex_alternatives(long))
    if not alternatives:
        return None
    return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"


_ANY_CHAR = spelling_regex([(0, MAX_CODE_POINT)])
assert _ANY_CHAR is not None
_ANY = f"(?:{_ANY_CHAR})*"


def _group(text: str) -> str:
    return f"(?:{text})"


def _atom_parts(node: _Atom) -> _Parts:
    spelt = spelling_regex(node.ranges)
    return {} if spelt is None else {(False, False): (spelt, False)}


def _sequence(items: list[_Node], depth: int) -> _Parts:
    acc: _Parts = {(False, False): ("", True)}
    for item in items:
        step = _parts(item, depth)
        joined: _Parts = {}
        for (sx, ex), (rx, nx) in acc.items():
            for (sy, ey), (ry, ny) in step.items():
                if sy and not nx or ex and not ny:
                    continue  # Y must begin at the start, or X end at the end, with something between
                left, left_empty = ("", True) if sy else (rx, nx)
                right, right_empty = ("", True) if ex else (ry, ny)
                _union(joined, (sx or sy, ex or ey), (left + right, left_empty and right_empty))
        acc = joined
        if not acc:
            break
    return acc


def _union(into: _Parts, key: tuple[bool, bool], part: _Part) -> None:
    if len(part[0]) > MAX_TERMINAL_CHARS:
        raise PatternError("regex-too-large", f"the string terminal would pass {MAX_TERMINAL_CHARS:,} characters")
    if key in into:
        text, empty = into[key]
        into[key] = (f"{_group(text)}|{_group(part[0])}" if text != part[0] else text, empty or part[1])
    else:
        into[key] = part


def _parts(node: _Node, depth: int) -> _Parts:
    if depth > MAX_NESTING:
        raise PatternError("regex-too-large", f"the pattern nests deeper than {MAX_NESTING} groups")
    if isinstance(node, _Atom):
        return _atom_parts(node)
    if isinstance(node, _Anchor):
        return {(node.text == "^", node.text == "$"): ("", True)}
    if isinstance(node, _Repeat):
        body = _parts(node.node, depth + 1)
        if set(body) - {(False, False)}:
            raise PatternError("unsupported-regex", "an anchor inside a repeated group has no JSON string terminal")
        if not body:  # the body matches nothing: only zero repetitions remain
            return {(False, False): ("", True)} if node.lo == 0 else {}
        text, empty = body[(False, False)]
        return {(False, False): (_group(_group(text) + node.text), empty or node.lo == 0)}
    out: _Parts = {}
    for alt in node.alts:
        for key, part in _sequence(alt, depth + 1).items():
            _union(out, key, part)
    return {key: (_group(text), empty) for key, (text, empty) in out.items()}


def _character_tree(pattern: str) -> _Group:
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError("regex-too-large", f"pattern is longer than {MAX_PATTERN_CHARS:,} characters")
    translator = _Translator(pattern)
    translator.parse()
    root, _ = _tree(translator.out, translator.marks)
    return root


def _search_regex(pattern: str) -> str | None:
    """A whole-text regex over spellings for "ECMA `pattern` matches somewhere in the value"."""
    forms = []
    for (starts, ends), (text, _) in sorted(_parts(_character_tree(pattern), 0).items()):
        forms.append(("" if starts else _ANY) + _group(text) + ("" if ends else _ANY))
    return "|".join(forms) if forms else None


def _lark(regex: str) -> str:
    """A Lark regex atom for `regex` between the JSON quotes (`/` is always written escaped)."""
    return '/"' + regex.replace("/", "\\/") + '"/'


def canonical_string_terminal() -> str:
    """A Lark terminal expression for every canonical JSON string spelling, quotes included."""
    return _lark(_ANY)


def json_string_terminal(pattern: str | None = None, *, min_length: int = 0, max_length: int | None = None) -> str:
    """A Lark terminal expression matching exactly the canonical spellings (quotes included) of
    the strings whose value ECMA-262 `pattern` matches (search) and whose length in code points
    lies in [min_length, max_length]. `PatternError` where no exact terminal is known."""
    if max_length is not None and max_length < min_length:
        return _lark("[^\\x{0}-\\x{10FFFF}]")  # no string: a terminal that matches nothing
    if max(min_length, max_length or 0) > MAX_REPEAT:
        raise PatternError("regex-too-large", f"a length bound above {MAX_REPEAT} in a string terminal")
    terms = []
    if pattern is not None:
        regex = _search_regex(pattern)
        terms.append(_lark("[^\\x{0}-\\x{10FFFF}]" if regex is None else _group(regex)))
    if min_length or max_length is not None:
        bounds = f"{{{min_length},{'' if max_length is None else max_length}}}"
        terms.append(_lark(_group(_ANY_CHAR) + bounds))
    return " & ".join(terms) if terms else canonical_string_terminal()
