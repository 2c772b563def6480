"""Canonical JSON spellings of character languages: the regex over spellings of a pattern node.

The syntax policy spells a string as `json.dumps(s, ensure_ascii=False)` does (see `strings`);
that spelling is a homomorphism, so a regex over characters becomes a regex over spellings by
replacing each character set with the alternation of its members' spellings. `spelling_parts` splits a
node's language by the anchors its matches rely on (see `strings`). Shared by `strings` (plain
patterns) and `lookaround` (patterns with assertions).
"""
from __future__ import annotations

from schemac.regex.guard import Anchor, Atom, Node, Repeat
from schemac.regex.syntax import MAX_CODE_POINT, PatternError, Ranges, class_spelling

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
    alternatives = [class_spelling(raw)] if raw else []
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


ANY_CHAR = spelling_regex([(0, MAX_CODE_POINT)])
assert ANY_CHAR is not None
ANY = f"(?:{ANY_CHAR})*"


def grouped(text: str) -> str:
    return f"(?:{text})"


def _atom_parts(node: Atom) -> _Parts:
    spelt = spelling_regex(node.ranges)
    return {} if spelt is None else {(False, False): (spelt, False)}


def _sequence(items: list[Node], depth: int) -> _Parts:
    acc: _Parts = {(False, False): ("", True)}
    for item in items:
        step = spelling_parts(item, depth)
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
        into[key] = (f"{grouped(text)}|{grouped(part[0])}" if text != part[0] else text, empty or part[1])
    else:
        into[key] = part


def spelling_parts(node: Node, depth: int) -> _Parts:
    if depth > MAX_NESTING:
        raise PatternError("regex-too-large", f"the pattern nests deeper than {MAX_NESTING} groups")
    if isinstance(node, Atom):
        return _atom_parts(node)
    if isinstance(node, Anchor):
        return {(node.text == "^", node.text == "$"): ("", True)}
    if isinstance(node, Repeat):
        return _repeat_parts(node, spelling_parts(node.node, depth + 1))
    out: _Parts = {}
    for alt in node.alts:
        for key, part in _sequence(alt, depth + 1).items():
            _union(out, key, part)
    return {key: (grouped(text), empty) for key, (text, empty) in out.items()}


def _counted(text: str, lo: int, hi: int | None) -> str:
    """`text` repeated lo to hi times (hi None: unbounded)."""
    if hi == 0:
        return ""
    quant = "*" if (lo, hi) == (0, None) else "+" if (lo, hi) == (1, None) else f"{{{lo},{'' if hi is None else hi}}}"
    return grouped(grouped(text) + quant)


def _repeat_parts(node: Repeat, body: _Parts) -> _Parts:
    """Parts of `node`'s repetition from its body's. An anchor may sit in the body on one side
    only: an iteration ending at the end of the string (`(a|$){2}`) is the last consuming one, the
    iterations after it matching the empty string, so it needs a body part that can (mirrored for
    the start). A body holding both anchors is refused."""
    lo, hi = node.lo, node.hi
    plain = body.get((False, False))
    anchored = set(body) - {(False, False)}
    if (True, True) in anchored or len(anchored) > 1:
        raise PatternError("unsupported-regex",
                           "anchors of both kinds inside a repeated group have no JSON string terminal")
    out: _Parts = {}
    if plain is not None:
        out[(False, False)] = (_counted(plain[0], lo, hi), plain[1] or lo == 0)
    elif lo == 0:
        out[(False, False)] = ("", True)
    if anchored and hi != 0:
        key = anchored.pop()
        text, empty = body[key]
        free = empty or (plain is not None and plain[1])  # iterations on the anchored side may be empty
        first = 0 if free else max(lo - 1, 0)
        last = None if hi is None else hi - 1
        if plain is None and first > 0:
            return out
        run = _counted(plain[0], first, last) if plain is not None else ""
        runs_empty = first == 0 or (plain is not None and plain[1])
        out[key] = ((text + run) if key[0] else (run + text), empty and runs_empty)
    return out
