"""Exact rewrites of repeated groups into forms llguidance's lexer can run (word-limit patterns).

Rotation: `(?:P Q){m,n} P` becomes `P (?:Q P){m,n}`.

Word-limit patterns (`^(?:\\S+\\s+){0,99}\\S+$`) repeat a group and then repeat the start of its
body once more. Read left to right, every word is then ambiguous (the next iteration, or the
final `\\S+`?), so the derivative llguidance's lexer keeps holds one term per live iteration
count. Intersected with a length bound (`maxLength`, which llguidance joins to the pattern with
`&`) that derivative outgrows derivre's emptiness check after a few words, and the lexer refuses
a valid next byte mid-answer. The rotated form `\\S+(?:\\s+\\S+){0,99}` decides each iteration on
its first character.

Exactness holds for any item sequences P and Q, without conditions on their languages: for
every k, (PQ)^k P and P (QP)^k spell the same sequence of items P Q P ... Q P, and the
quantifier's range of k is kept. Captures (nothing refers back to them) and laziness (already
dropped) do not change that; nor would anchors, but a body holding one is left alone. The
rewrite works on `_Translator`'s token stream: a group directly followed by a quantifier and
then by the tokens of a whole-item prefix P of its single alternative (P itself not followed by
a quantifier there, and shorter than the body).

Runs: `(?:A+B*){m,n}` with m <= 1 < n (A, B atoms: literals or classes) becomes
`A+(?:B+A+){0,n-1}B*`, and `(?:B*A+){m,n}` becomes `B*A+(?:B+A+){0,n-1}`, made optional when
m = 0. A piece `A+B*` may split a run of A characters, so `^\\s*(?:\\S+\\s*){1,50}$` reads each
word up to its length many ways (llguidance: "Unable to determine if regex is empty" under a
`maxLength`); the rewrite reads it one way when A and B are disjoint. Exactness, for any
languages A and B: a concatenation of k pieces of A+B* (1 <= k <= n) whose non-final pieces have
an empty B part merges those pieces with the next (A+A+ is within A+), leaving j <= k pieces
each but the last with a non-empty B part, i.e. a string of A+(B+A+){j-1}B*; conversely that
string is j pieces of A+B*, and j >= 1 >= m. The mirror form merges with the previous piece.
"""
from __future__ import annotations

from schemac.regex.syntax import Ranges

#: a token's mark (see `guard.token_tree`): a code point, ranges (class), (lo, hi) (quantifier) or None
Mark = int | Ranges | tuple[int, int | None] | None


def rewrite(out: list[str], marks: list[Mark]) -> None:
    """Apply both rewrites everywhere they fit in the token stream (`out`, `marks`), in place."""
    out[:], marks[:] = _runs(out, marks)
    _rotate(out, marks)


def _is_atom(mark: Mark) -> bool:
    """A literal (code point) or a class (ranges)."""
    return isinstance(mark, (int, list))


_PLUS, _STAR = (1, None), (0, None)
#: longest group body (tokens) considered for rotation: word limits need a few; the bound keeps
#: the pass linear on huge nested patterns (skipping a rotation only loses speed, never exactness)
MAX_BODY = 64


def _runs(out: list[str], marks: list[Mark]) -> tuple[list[str], list[Mark]]:
    """The stream with every `(?:A+B*){m,n}` / `(?:B*A+){m,n}` (m <= 1 < n, A and B atoms) unrolled."""
    new_out: list[str] = []
    new_marks: list[Mark] = []
    i = 0
    n = len(out)
    while i < n:
        if i + 6 < n and out[i + 5] == ")" and _is_open(out[i], marks[i]) and _runs_shape(marks[i + 1:i + 7]):
            body, quant = marks[i + 1:i + 5], marks[i + 6]
            assert isinstance(quant, tuple)
            text, spelt = _unrolled(out[i + 1:i + 5], body, quant)
            new_out += text
            new_marks += spelt
            i += 7
        else:
            new_out.append(out[i])
            new_marks.append(marks[i])
            i += 1
    return new_out, new_marks


def _runs_shape(window: list[Mark]) -> bool:
    """Whether `A q B q' ) {m,n}` (marks after the group's `(`) is a shape `_runs` unrolls."""
    x, q1, y, q2, close, quant = window
    return (close is None and isinstance(quant, tuple) and quant[0] <= 1 and (quant[1] is None or quant[1] > 1)
            and (q1, q2) in ((_PLUS, _STAR), (_STAR, _PLUS)) and _is_atom(x) and _is_atom(y))


def _unrolled(text: list[str], body: list[Mark], quant: tuple[int, int | None]) -> tuple[list[str], list[Mark]]:
    """The tokens of `A+(?:B+A+){0,n-1}B*` (or `B*A+(?:B+A+){0,n-1}`), optional when m = 0."""
    a, b = (0, 2) if body[1] == _PLUS else (2, 0)
    lo, hi = quant
    loop: tuple[int, int | None] = (0, None if hi is None else hi - 1)
    loop_text = "*" if hi is None else f"{{0,{hi - 1}}}"
    pairs = [(text[b], body[b]), ("+", _PLUS), (text[a], body[a]), ("+", _PLUS)]
    group = [("(?:", None)] + pairs + [(")", None), (loop_text, loop)]
    a_plus, b_star = [(text[a], body[a]), ("+", _PLUS)], [(text[b], body[b]), ("*", _STAR)]
    items = a_plus + group + b_star if a == 0 else b_star + a_plus + group
    if lo == 0:
        items = [("(?:", None)] + items + [(")", None), ("?", (0, 1))]
    return [t for t, _ in items], [m for _, m in items]


def _is_open(text: str, mark: Mark) -> bool:
    """A group opener: `(`, `(?:`, or a look-around's (assertion mode)."""
    return mark is None and text.startswith("(")


def _rotate(out: list[str], marks: list[Mark]) -> None:
    """Rotate every `(P Q){..} P` in place, innermost groups first, in one pass (a rotated span
    keeps its length and balance, so the scan goes on after it)."""
    stack: list[int] = []
    i = 0
    while i < len(out):
        text, mark = out[i], marks[i]
        if _is_open(text, mark):
            stack.append(i)
        elif mark is None and text == ")":
            start = stack.pop()
            if i + 1 < len(out) and isinstance(marks[i + 1], tuple) and i - start - 1 <= MAX_BODY:
                size = _prefix_size(out, marks, start, i)
                if size:
                    _apply(out, marks, start, i, size)
                    i += 1 + size  # past the quantifier and the moved copy of P
        i += 1


def _item_ends(out: list[str], marks: list[Mark], start: int, close: int) -> list[int] | None:
    """End positions of the items of the group body out[start+1:close] (an item is an atom, an
    anchor or a group, with its quantifier); None if the body has more than one alternative."""
    ends = []
    j = start + 1
    while j < close:
        text, mark = out[j], marks[j]
        if mark is None and text == "|":
            return None
        if _is_open(text, mark):
            depth = 0
            while True:
                if _is_open(out[j], marks[j]):
                    depth += 1
                elif marks[j] is None and out[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
        j += 1
        if j < close and isinstance(marks[j], tuple):
            j += 1
        ends.append(j)
    return ends


def _prefix_size(out: list[str], marks: list[Mark], start: int, close: int) -> int:
    """Tokens in the longest whole-item proper prefix P of the body of the group out[start:close+1]
    that the pattern repeats right after the group's quantifier (0 if none)."""
    after = close + 2
    body = close - start - 1
    common = 0
    while (common < body - 1 and after + common < len(out)
           and out[start + 1 + common] == out[after + common] and marks[start + 1 + common] == marks[after + common]):
        common += 1
    if not common or any(marks[j] is None and out[j] in ("^", "$") for j in range(start + 1, close)):
        return 0  # llguidance refuses `^`/`$` away from the pattern's ends: moving one could matter
    ends = _item_ends(out, marks, start, close)
    if ends is None:
        return 0
    for end in reversed(ends):
        size = end - start - 1
        if size <= common:
            nxt = after + size
            if nxt >= len(out) or not isinstance(marks[nxt], tuple):
                return size
    return 0


def _apply(out: list[str], marks: list[Mark], start: int, close: int, size: int) -> None:
    """out[start:close+2+size] = (P Q){..} P  →  P (Q P){..}, marks alike (same length)."""
    stop = close + 2 + size
    p_text, p_marks = out[start + 1:start + 1 + size], marks[start + 1:start + 1 + size]
    q_text, q_marks = out[start + 1 + size:close], marks[start + 1 + size:close]
    out[start:stop] = p_text + [out[start]] + q_text + p_text + [")", out[close + 1]]
    marks[start:stop] = p_marks + [None] + q_marks + p_marks + [None, marks[close + 1]]
