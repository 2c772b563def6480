"""Patterns with assertions (look-arounds, `\\b`/`\\B`) outside repetitions: the method, and matching.

RE2 and llguidance's regex engine have no look-around, yet such a pattern denotes a regular
language, and llguidance's Lark terminals have `&` (intersection) and `~` (complement), nested
freely inside concatenations. An assertion at a point of a match splits the whole string s (search
semantics: anything before and after the match) into u·v, u the prefix up to the point and v the
rest, and it tests u only ("left": `^`, `(?<=Z)`, `(?<!Z)`), or v only ("right": `$`, `(?=Y)`,
`(?!Y)`); `\\b` is `(?<=\\w)(?!\\w)|(?<!\\w)(?=\\w)` and `\\B` `(?<=\\w)(?=\\w)|(?<!\\w)(?!\\w)`, start and
end of the string counting as non-word. `(?=Y)` tests v ∈ Y·Σ*, `(?<=Z)` u ∈ Σ*·Z, `^` u = "",
`$` v = "", the negative forms the complements.

Groups holding assertions are distributed into sequences (`X(A|B)R` is `XAR|XBR`), each then a
run of plain items and assertions. When every left assertion of a sequence comes before every
right one, the sequence's language is Left·Right, with Left = Σ* extended by each item up to
the last left assertion and intersected with each left test on the way, and Right = Σ* preceded
by each item from the end back to it and intersected with each right test: every left test
reads a prefix lying within u, every right test a suffix within v, so the product is exact.
A look-ahead's body is a right part itself (Y·Σ* built the same way), a look-behind's a left one.
Tests with no item between them commute (they read one split). A right test on one character
(a half of `\\b`) before a left one moves right past the next item X: (X·K) ∩ CΣ* is
(X ∩ CΣ*)·K, plus K ∩ CΣ* where X may be empty (`lookaround._untangle`), so `\\bword\\b` is exact.

Refused (`unsupported-regex`), never approximated: a look-around or `\\b` inside a repeated group
(with one, any anchor there too), a right look-around or `$` before a left assertion with items
between, a left assertion in a look-ahead's body or a right one in a look-behind's (the split no
longer separates the tests). `lookaround` builds the terminals; `needs_terminal` says which
patterns need one (llguidance's regexes also refuse an anchor after consumed input or inside a
repetition, which `spelling` handles without look-arounds).

Canonical spelling maps characters injectively, commutes with concatenation, union and
intersection, and with complement within canonical spellings: every complement here is
intersected with a canonical language, so the terminal over spellings is exact.

`search` decides the same ECMA meaning independently, on positions: the end positions reachable
from each start (assertions tested on the whole string), as the validator needs.
"""
from __future__ import annotations

from functools import lru_cache

from schemac.regex.guard import Anchor, Atom, Group, Look, Node, Repeat, token_tree
from schemac.regex.parse import Translator
from schemac.regex.syntax import WORD, MAX_PATTERN_CHARS, PatternError, covers

#: distributed sequences built for one pattern (each group of assertions multiplies them)
MAX_SEQUENCES = 256
LEFT, RIGHT = "^", "$"  # the side of the string an assertion tests (the anchors' own texts)


@lru_cache(maxsize=64)
def assertion_tree(pattern: str) -> Group | None:
    """The tree of `pattern` with its assertions, when it holds a look-around or `\\b`/`\\B`;
    None for any other pattern (the plain translation serves those); `PatternError` if refused."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError("regex-too-large", f"pattern is longer than {MAX_PATTERN_CHARS:,} characters")
    if "(?" not in pattern and "\\b" not in pattern and "\\B" not in pattern:
        return None
    parser = Translator(pattern, assertions=True)
    parser.parse()
    if not any(mark is None and (text.startswith(("(?=", "(?!", "(?<")) or text in ("\\b", "\\B"))
               for text, mark in zip(parser.out, parser.marks)):
        return None
    root, _ = token_tree(parser.out, parser.marks)
    _no_repeated_assertion(root)
    return root


_HINTS = ("(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B")


def has_assertions(pattern: str) -> bool:
    """Whether `pattern` holds a look-around or `\\b`/`\\B` (`assertion_tree` not None); False
    where the pattern is refused (the plain check reports it)."""
    if not any(hint in pattern for hint in _HINTS):
        return False
    try:
        return assertion_tree(pattern) is not None
    except PatternError:
        return False


@lru_cache(maxsize=256)
def needs_terminal(pattern: str) -> bool:
    """Whether `pattern` needs an exact Lark terminal: it holds assertions, or a `^` after
    something that may consume (a `$` before it), or an anchor inside a repetition, all of which
    llguidance's regexes refuse."""
    if has_assertions(pattern):
        return True
    if "^" not in pattern and "$" not in pattern or ")" not in pattern and "^" not in pattern[1:] \
            and "$" not in pattern[:-1]:
        return False
    parser = Translator(pattern)
    try:
        parser.parse()
    except PatternError:
        return False
    return _inner_anchor(token_tree(parser.out, parser.marks)[0], True, True)


def _inner_anchor(group: Group, led: bool, trailed: bool) -> bool:
    """Whether a `^` under `group` may follow a consumed character, or a `$` precede one, or an
    anchor lies inside a repetition (llguidance refuses those, `spelling` spells the one-sided ones)."""
    for alt in group.alts:
        for k, item in enumerate(alt):
            first = led and all(isinstance(x, Anchor) and x.text == "^" for x in alt[:k])
            last = trailed and all(isinstance(x, Anchor) and x.text == "$" for x in alt[k + 1:])
            if isinstance(item, Anchor) and not (first if item.text == "^" else last):
                return True
            if isinstance(item, Group) and _inner_anchor(item, first, last):
                return True
            if isinstance(item, Repeat) and asserts(item.node):  # llguidance refuses every such anchor
                return True
    return False


def asserts(node: Node) -> bool:
    """Whether `node` holds an assertion of any kind (anchors included)."""
    if isinstance(node, Anchor):
        return True
    if isinstance(node, Repeat):
        return asserts(node.node)
    if isinstance(node, Group):
        return isinstance(node, Look) or any(asserts(item) for alt in node.alts for item in alt)
    return False


def _no_repeated_assertion(node: Node) -> None:
    if isinstance(node, Repeat) and asserts(node.node):
        raise PatternError("unsupported-regex", "a look-around or word boundary inside a repeated group has no exact form")
    if isinstance(node, Group):
        for alt in node.alts:
            for item in alt:
                _no_repeated_assertion(item)


# ---- matching on positions ------------------------------------------------------------------


class _Search:
    """End positions of each node's matches from each start in one text (memoised)."""

    def __init__(self, text: str) -> None:
        self.text, self.n = text, len(text)
        self.memo: dict[tuple[int, int], frozenset[int]] = {}

    def word(self, k: int) -> bool:
        return 0 <= k < self.n and covers(WORD, ord(self.text[k]), ord(self.text[k]))

    def ends(self, node: Node, i: int) -> frozenset[int]:
        key = (id(node), i)
        if key not in self.memo:
            self.memo[key] = self._ends(node, i)
        return self.memo[key]

    def _ends(self, node: Node, i: int) -> frozenset[int]:
        if isinstance(node, Atom):
            ok = i < self.n and covers(node.ranges, ord(self.text[i]), ord(self.text[i]))
            return frozenset((i + 1,)) if ok else frozenset()
        if isinstance(node, Anchor):
            ok = {"^": i == 0, "$": i == self.n, "\\b": self.word(i - 1) != self.word(i),
                  "\\B": self.word(i - 1) == self.word(i)}[node.text]
            return frozenset((i,)) if ok else frozenset()
        if isinstance(node, Repeat):
            return self.repeat(node, i)
        if isinstance(node, Look):
            if node.kind in ("(?=", "(?!"):
                ok = bool(self.group(node, i))
            else:
                ok = any(i in self.group(node, j) for j in range(i + 1))
            return frozenset((i,)) if ok != (node.kind in ("(?!", "(?<!")) else frozenset()
        return self.group(node, i)

    def group(self, node: Group, i: int) -> frozenset[int]:
        out: set[int] = set()
        for alt in node.alts:
            here = {i}
            for item in alt:
                here = {e for j in here for e in self.ends(item, j)}
                if not here:
                    break
            out |= here
        return frozenset(out)

    def repeat(self, node: Repeat, i: int) -> frozenset[int]:
        """Ends after lo to hi iterations; past lo, a position already reached is not walked again."""
        frontier, seen = {i}, set()
        k = 0
        while frontier:
            if k >= node.lo:
                frontier -= seen
                seen |= frontier
            if k == node.hi:
                break
            frontier = {e for j in frontier for e in self.ends(node.node, j)}
            k += 1
        return frozenset(seen)


def search(root: Group, text: str) -> bool:
    """Whether the pattern `root` (from `assertion_tree`) matches somewhere in `text` (ECMA)."""
    walk = _Search(text)
    return any(walk.group(root, i) for i in range(len(text) + 1))
