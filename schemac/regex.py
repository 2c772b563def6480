"""Pattern front end: ECMA-262 patterns made explicit, checked against RE2 and llguidance.

JSON Schema patterns are ECMA-262 regexes with the "u" flag, matched unanchored. The validator runs
them on RE2 and the grammar on llguidance's Rust-like engine; the three disagree on `.`, `\\s`,
`[^]`, `[]`, `\\u` escapes and `[[:name:]]` (see `schemac.validate`). `translate` rewrites an
ECMA pattern into a spelling whose meaning is the ECMA one in *both* engines: every character
class becomes an explicit list of `\\x{..}` ranges, literals are escaped, names of groups are
dropped and lazy quantifiers become greedy (same language). Anything whose ECMA meaning no engine
can keep is refused: look-around, `\\b`/`\\B` (llguidance has no assertions), backreferences,
`\\p{..}` (Unicode tables differ between engines), lone surrogates.

The compiled grammar must be given `translate(p)`, not `p`, so that grammar and validator agree.
`translate` also works around an llguidance 1.9.1 bug with classes that hold every control
character (see "the pattern as a tree" below) and refuses the patterns it cannot fix.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterator

from schemac.budget import Budget
from schemac.diagnostics import Diagnostic, reject
from schemac.schema import SUBSCHEMA_KEYWORDS, Bundle, Schema, child_pointer, iter_subschemas

if TYPE_CHECKING:
    import re2

MAX_PATTERN_CHARS = 262_144
RE2_MAX_MEM = 2 << 20
#: RE2 refuses counted repetitions above this (and so do we, before asking it)
MAX_REPEAT = 1000
MAX_CODE_POINT = 0x10FFFF

Ranges = list[tuple[int, int]]

_DIGIT: Ranges = [(0x30, 0x39)]
_WORD: Ranges = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
# ECMA WhiteSpace (TAB VT FF SP NBSP ZWNBSP + Zs) and LineTerminator (LF CR LS PS)
_SPACE: Ranges = [
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF),
]
_LINE_TERMINATORS: Ranges = [(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]
_SURROGATES = (0xD800, 0xDFFF)
#: characters escaped with a backslash outside classes (meta in RE2 or in Rust regex)
_META = set("\\.+*?()|[]{}^$#&-~")
_SIMPLE_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_HEX = set("0123456789abcdefABCDEF")
_QUANTIFIERS: dict[str, tuple[int, int | None]] = {"*": (0, None), "+": (1, None), "?": (0, 1)}


class PatternError(ValueError):
    """A pattern refused by `translate`; `code` is the diagnostic code to report."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _normalise(ranges: Ranges) -> Ranges:
    """Sorted, merged ranges with no endpoint inside the surrogate block.

    Strings never hold surrogates, so the block is a don't-care: ranges may span it (both engines
    skip it) and ranges either side of it merge, which keeps classes small and fast to compile.
    """
    out: Ranges = []
    low, high = _SURROGATES
    for lo, hi in sorted(ranges):
        if low <= lo <= high:
            lo = high + 1
        if low <= hi <= high:
            hi = low - 1
        if lo > hi:
            continue
        if out and (lo <= out[-1][1] + 1 or (out[-1][1] == low - 1 and lo == high + 1)):
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: Ranges) -> Ranges:
    out: Ranges = []
    nxt = 0
    for lo, hi in _normalise(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODE_POINT:
        out.append((nxt, MAX_CODE_POINT))
    return _normalise(out)


def _covers(ranges: Ranges, lo: int, hi: int) -> bool:
    return any(a <= lo and hi <= b for a, b in ranges)


def _control_mask(ranges: Ranges) -> int:
    """Bit i set for each control character U+000i in `ranges` (normalised)."""
    mask = 0
    for lo, hi in ranges:
        if lo >= 0x20:
            break
        mask |= ((1 << (min(hi, 0x1F) + 1)) - 1) & ~((1 << lo) - 1)
    return mask


def _class(ranges: Ranges) -> str:
    """A bracket class for `ranges` (normalised), negated when that is shorter (same set in both engines)."""
    if not ranges:
        return r"[^\x{0}-\x{10FFFF}]"
    rest = _complement(ranges)
    if rest and len(rest) < len(ranges):
        return "[^" + _class_items(rest) + "]"
    return "[" + _class_items(ranges) + "]"


def _class_items(ranges: Ranges) -> str:
    return "".join(_class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}" for lo, hi in ranges)


def _class_char(cp: int) -> str:
    """A class member: ASCII letters and digits as themselves, everything else as `\\x{..}`."""
    c = chr(cp)
    return c if c.isascii() and c.isalnum() else f"\\x{{{cp:X}}}"


def _literal(cp: int) -> str:
    c = chr(cp)
    if c.isascii() and c.isalnum() or c == " " or (cp > 0x7F and c.isprintable()):
        return c
    if c in _META:
        return "\\" + c
    if 0x21 <= cp <= 0x7E:
        return c
    return f"\\x{{{cp:X}}}"


# ---- the pattern as a tree, and llguidance 1.9.1's control-character escape bug ------------
#
# llguidance JSON-quotes a string pattern byte set by byte set (derivre's `json_quote`). A byte
# set holding every control character U+0000-U+001F, or every one but U+000A, takes a shortcut
# that admits the escapes `\"` and `\\` whatever the set: `[^"]` then also accepts the JSON
# text `"\""`. Before quoting, derivre merges every single-byte alternative of one alternation
# into one byte set (`a|[\x00-\x0f]|[\x10-\x1f]` is one set), including the last items of
# branches whose earlier items it factors out (`x[\x00-\x0f]|x[\x10-\x1f]`); `^`, `$`, `x{0}`
# and `{1}` vanish first, while any other repetition (`?` too) stays a node of its own.
#
# So `translate` splits a class that holds the controls but not both `"` and `\` into
# C1 = its part in U+0000-U+000F and C2 = the rest, and spells the class with C1 and C2 never
# alternatives of one alternation (each identity holds for any languages C1, C2):
#
#   C*      = (?:C1*C2)*C1*              C?      = (?:C1?|C2)
#   C+      = (?:(?:C1*C2)+C1*|C1+)      C{0,n}  = (?:C1?|C2){n}
#   C{1,n}  = (?:C1R|C2R), R = C{0,n-1}  C S     = (?:C1S|C2S)   (S never reduced to nothing)
#   C at the unanchored end of the whole pattern = (?:C1[^]*|C2[^]*)  (same unanchored matches)
#
# A group whose whole-branch classes merge into such a set (`(?:\\.|[^"\\])*`) splits the same way,
# their union's halves going to (other branches|C1) and C2. Whatever may still be mis-quoted
# afterwards (`^[^"]$`, `[^"]{2,5}`, `(?:x[^"])*`, `^(?:[\x00-\x0f]|[\x10-\x1f])$`) is found by
# `_unsafe`: `translate` (what llguidance gets, from user and lowering patterns alike) refuses it,
# while `_explicit` (what RE2 runs) keeps it.

_CONTROLS = (1 << 0x20) - 1
_LF = 1 << 0x0A
#: code points of the first part when a class is split (half of the controls)
_SPLIT_AT = 0x10
#: splits of the `C S` kind, each doubling S's text
_MAX_SPLITS = 4
#: nesting depth and tokens up to which a pattern that may hit the bug is rewritten and checked
_MAX_DEPTH = 64
_MAX_TOKENS = 20_000
#: kinds of language: {} / {""} / anything else
_NOTHING, _EMPTY, _OTHER = 0, 1, 2


class _Atom:
    """One character of a set: a class, an escape or a literal (`literal` keeps its spelling)."""

    __slots__ = ("ranges", "literal", "ctrl")

    def __init__(self, ranges: Ranges, literal: int | None = None) -> None:
        """`ranges` of a class (normalised, see `_normalise`), or `literal` alone."""
        self.ranges = ranges if literal is None else [(literal, literal)]
        self.literal = literal
        self.ctrl = _control_mask(self.ranges)

    @property
    def quote(self) -> bool:
        return _covers(self.ranges, 0x22, 0x22)

    @property
    def backslash(self) -> bool:
        return _covers(self.ranges, 0x5C, 0x5C)

    def halves(self) -> tuple[_Atom, _Atom]:
        low = [(lo, min(hi, _SPLIT_AT - 1)) for lo, hi in self.ranges if lo < _SPLIT_AT]
        high = [(max(lo, _SPLIT_AT), hi) for lo, hi in self.ranges if hi >= _SPLIT_AT]
        return _Atom(low), _Atom(high)


class _Anchor:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Group:
    """Alternatives, each a sequence of nodes; `capture` None is the whole pattern (no parentheses)."""

    __slots__ = ("capture", "alts")

    def __init__(self, capture: bool | None, alts: list[list[_Node]]) -> None:
        self.capture = capture
        self.alts = alts


class _Repeat:
    __slots__ = ("node", "lo", "hi", "text")

    def __init__(self, node: _Node, lo: int, hi: int | None, text: str = "") -> None:
        self.node, self.lo, self.hi = node, lo, hi
        self.text = text or ("*" if (lo, hi) == (0, None) else "+" if (lo, hi) == (1, None)
                             else "?" if (lo, hi) == (0, 1) else f"{{{lo}}}" if hi == lo else f"{{{lo},{hi}}}")


_Node = _Atom | _Anchor | _Group | _Repeat
_ANY_STAR = _Repeat(_Atom([(0, MAX_CODE_POINT)]), 0, None)
_DOT = _complement(_LINE_TERMINATORS)
_NO_RANGES: Ranges = []


def _tree(out: list[str], marks: list[int | Ranges | tuple[int, int | None] | None]) -> tuple[_Group, int]:
    """The tree of a translated pattern from `_Translator.parse`'s tokens, and its nesting depth.
    Marks: a code point for a literal, ranges for a class, (lo, hi) for a quantifier, None for
    `(`, `(?:`, `)`, `|`, `^`, `$`."""
    root = _Group(None, [[]])
    stack = [root]
    depth = 0
    for text, mark in zip(out, marks):
        items = stack[-1].alts[-1]
        if isinstance(mark, int):
            items.append(_Atom(_NO_RANGES, mark))
        elif isinstance(mark, list):
            items.append(_Atom(mark))
        elif isinstance(mark, tuple):
            items[-1] = _Repeat(items[-1], mark[0], mark[1], text)
        elif text in ("(", "(?:"):
            group = _Group(text == "(", [[]])
            items.append(group)
            stack.append(group)
            depth = max(depth, len(stack) - 1)
        elif text == ")":
            stack.pop()
        elif text == "|":
            stack[-1].alts.append([])
        else:
            items.append(_Anchor(text))
    return root, depth


def _render(root: _Group) -> str:
    """The pattern text of a tree (iterative: patterns may nest deeply)."""
    out: list[str] = []
    stack: list[_Node | str] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, _Atom):
            out.append(_literal(node.literal) if node.literal is not None else _class(node.ranges))
        elif isinstance(node, _Anchor):
            out.append(node.text)
        elif isinstance(node, _Repeat):
            stack += [node.text, node.node]
        else:
            parts: list[_Node | str] = ["(" if node.capture else "(?:"] if node.capture is not None else []
            for k, alt in enumerate(node.alts):
                parts += ["|"] if k else []
                parts += alt
            parts += [")"] if node.capture is not None else []
            stack += reversed(parts)
    return "".join(out)


def _ctrl_without(atoms: list[_Atom], has: str) -> int:
    """The control characters (a bit set) of the atoms lacking `has` ("quote" or "backslash")."""
    ctrl = 0
    for atom in atoms:
        if not getattr(atom, has):
            ctrl |= atom.ctrl
    return ctrl


def _unsafe_set(atoms: list[_Atom]) -> bool:
    """Whether some union of `atoms` (a byte set llguidance may build from them) holds all the
    controls, or all but LF, and lacks `"` or `\\`: the sets llguidance 1.9.1 mis-quotes."""
    return any(_ctrl_without(atoms, has) | _LF == _CONTROLS for has in ("quote", "backslash"))


def _kind(node: _Node) -> int:
    """_NOTHING, _EMPTY (the language is just "": derivre drops the node) or _OTHER."""
    if isinstance(node, _Atom):
        return _OTHER if node.ranges else _NOTHING
    if isinstance(node, _Anchor):
        return _EMPTY
    if isinstance(node, _Repeat):
        inner = _kind(node.node)
        if node.hi == 0 or inner == _EMPTY or (inner == _NOTHING and node.lo == 0):
            return _EMPTY
        return inner
    kinds = {_kind_seq(alt) for alt in node.alts}
    return _OTHER if _OTHER in kinds else _EMPTY if _EMPTY in kinds else _NOTHING


def _kind_seq(items: list[_Node]) -> int:
    kinds = {_kind(item) for item in items}
    return _NOTHING if _NOTHING in kinds else _OTHER if _OTHER in kinds else _EMPTY


def _tails(node: _Node) -> list[_Atom]:
    """Atoms derivre may merge with the other alternatives' when `node` ends an alternative."""
    if isinstance(node, _Atom):
        return [node]
    if isinstance(node, _Repeat):
        return _tails(node.node) if (node.lo, node.hi) == (1, 1) else []
    if isinstance(node, _Group):
        return [atom for alt in node.alts for atom in _tails_seq(alt)]
    return []


def _tails_seq(items: list[_Node]) -> list[_Atom]:
    out: list[_Atom] = []
    for item in reversed(items):
        out += _tails(item)
        if _kind(item) != _EMPTY:
            break
    return out


def _or_sets(group: _Group) -> tuple[list[_Atom], list[_Atom], list[_Group]]:
    """For an alternation: the atoms derivre surely merges into its byte set (whole-branch
    classes, also those of the alternations it flattens into it), the atoms it may merge into that
    set or into another one (the last atoms of longer branches), and the flattened alternations."""
    sure: list[_Atom] = []
    maybe: list[_Atom] = []
    flat: list[_Group] = []
    for alt in group.alts:
        if len(alt) == 1 and isinstance(alt[0], _Atom):
            sure.append(alt[0])
        elif len(alt) == 1 and isinstance(alt[0], _Group) and len(alt[0].alts) > 1:
            inner = _or_sets(alt[0])
            sure += inner[0]
            maybe += inner[1]
            flat += inner[2] + [alt[0]]
        else:
            maybe += _tails_seq(alt)
    return sure, maybe, flat


def _unsafe_or(sure: list[_Atom], maybe: list[_Atom]) -> bool:
    """Whether some set derivre may build from an alternation is mis-quoted: one made of `maybe`
    atoms only, or the union of all `sure` atoms with some `maybe` ones."""
    return _unsafe_set(maybe) or any(
        sure and not any(getattr(atom, has) for atom in sure)
        and _ctrl_without(sure + maybe, has) | _LF == _CONTROLS
        for has in ("quote", "backslash")
    )


def _unsafe(root: _Group) -> bool:
    """Whether llguidance 1.9.1 may mis-quote some byte set of the pattern: a class on its own,
    or what derivre merges from an alternation (over-approximated: it merges the last atoms of
    longer branches only when it factors out all that precedes them)."""
    stack: list[_Node] = [root]
    judged: set[int] = set()  # atoms and alternations judged as part of an enclosing alternation
    while stack:
        node = stack.pop()
        if isinstance(node, _Atom):
            if id(node) not in judged and _unsafe_set([node]):
                return True
        elif isinstance(node, _Repeat):
            if node.hi != 0:  # `x{0}` is dropped whole
                stack.append(node.node)
        elif isinstance(node, _Group):
            if len(node.alts) > 1 and id(node) not in judged:
                sure, maybe, flat = _or_sets(node)
                if _unsafe_or(sure, maybe):
                    return True
                judged.update(id(x) for x in [*sure, *flat])
            for alt in node.alts:
                stack += alt
    return False


def _whole_union(group: _Group) -> _Atom | None:
    """One atom for the union of a group's whole-branch classes (what derivre merges), if any."""
    whole = [r for alt in group.alts if len(alt) == 1 and isinstance(alt[0], _Atom) for r in alt[0].ranges]
    return _Atom(_normalise(whole)) if whole else None


class _Splitter:
    """Rewrites a tree so that no class llguidance would mis-quote stays whole (see above)."""

    def __init__(self) -> None:
        self.splits = 0

    def split(self, node: _Node) -> tuple[_Node, _Node] | None:
        """(A, B) with A|B the same language as `node`, if `node` is a class llguidance would
        mis-quote, or a group whose whole-branch classes derivre merges into such a set: the
        halves of their union go to A (with the other branches) and B."""
        if isinstance(node, _Atom):
            return node.halves() if _unsafe_set([node]) else None
        if not isinstance(node, _Group) or node.capture is None:
            return None
        union = _whole_union(node)
        if union is None or not _unsafe_set([union]):
            return None
        low, high = union.halves()
        others = [alt for alt in node.alts if not (len(alt) == 1 and isinstance(alt[0], _Atom))]
        return _Group(False, others + [[low]]), high

    def repeat(self, node: _Repeat) -> _Node:
        body = self.node(node.node, False)
        pair = self.split(body)
        lo, hi = node.lo, node.hi
        if pair is None or lo > 1 or hi == 0 or (lo, hi) == (1, 1):
            return _Repeat(body, lo, hi, node.text)
        a, b = pair
        if hi is None:
            blocks = _Group(False, [[_Repeat(a, 0, None), b]])  # (?:A*B)
            if lo == 0:
                return _Group(False, [[_Repeat(blocks, 0, None), _Repeat(a, 0, None)]])
            return _Group(False, [[_Repeat(blocks, 1, None), _Repeat(a, 0, None)], [_Repeat(a, 1, None)]])
        one = _Group(False, [[_Repeat(a, 0, 1)], [b]])  # (?:A?|B): at most one character
        if lo == 0:
            return one if hi == 1 else _Repeat(one, hi, hi)
        tail = one if hi == 2 else _Repeat(one, hi - 1, hi - 1)
        return _Group(False, [[a, tail], [b, tail]])

    def node(self, node: _Node, at_end: bool) -> _Node:
        if isinstance(node, _Repeat):
            return self.repeat(node)
        if isinstance(node, _Group):
            # whole-branch classes merging into a safe set stay whole (splitting one could leave
            # the others an unsafe set)
            union = _whole_union(node) if len(node.alts) > 1 else None
            keep = union is not None and not _unsafe_set([union])
            return _Group(node.capture, [alt if keep and len(alt) == 1 and isinstance(alt[0], _Atom)
                                         else self.seq(alt, at_end) for alt in node.alts])
        return node

    def seq(self, items: list[_Node], at_end: bool) -> list[_Node]:
        """`items` rewritten; `at_end`: nothing follows them up to the unanchored end of the pattern."""
        out: list[_Node] = []
        last = len(items) - 1
        for i, item in enumerate(items):
            item = self.node(item, at_end and i == last)
            pair = self.split(item) if self.splits < _MAX_SPLITS else None
            if pair is not None:
                rest = items[i + 1:]
                if _kind_seq(rest) != _EMPTY or (at_end and not rest):
                    self.splits += 1
                    after = self.seq(rest, at_end) if rest else [_ANY_STAR]
                    out.append(_Group(False, [[pair[0]] + after, [pair[1]] + after]))
                    return out
            out.append(item)
        return out


class _Translator:
    """One left-to-right pass over an ECMA-262 pattern, emitting the explicit form (rewritten as a
    tree only where llguidance's escape bug may bite)."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.out: list[str] = []
        self.marks: list[int | Ranges | tuple[int, int | None] | None] = []
        self.ctrl_q = self.ctrl_b = 0

    def fail(self, message: str, code: str = "unsupported-regex") -> PatternError:
        return PatternError(code, f"{message} (at offset {self.i} of the pattern)")

    def run(self) -> tuple[str, bool]:
        """The translated pattern, and whether llguidance 1.9.1 may still mis-quote it."""
        self.parse()
        if self.ctrl_q | _LF != _CONTROLS and self.ctrl_b | _LF != _CONTROLS:
            return "".join(self.out), False  # no union of this pattern's sets can be mis-quoted
        if len(self.out) > _MAX_TOKENS:
            return "".join(self.out), True
        root, depth = _tree(self.out, self.marks)
        if depth > _MAX_DEPTH:
            return "".join(self.out), True
        tree = _Splitter().node(root, True)
        assert isinstance(tree, _Group)
        return _render(tree), _unsafe(tree)

    def parse(self) -> None:
        """Fill `self.out` with the translated tokens and `self.marks` with what each one is (see
        `_tree`); `self.ctrl_q` gets the controls of atoms lacking `"` and `self.ctrl_b` those
        of atoms lacking `\\` (what `_unsafe_set` of all the atoms would look at)."""
        p, n, out, marks = self.p, len(self.p), self.out, self.marks
        groups = 0
        quantifiable = False
        while self.i < n:
            c = p[self.i]
            if c == "\\":
                self.i += 1
                item = self.escape(in_class=False)
                if isinstance(item, list):
                    self.atom(item)
                else:
                    self.literal(item)
                quantifiable = True
            elif c == "[":
                self.i += 1
                self.atom(self.char_class())
                quantifiable = True
            elif c == "(":
                out.append(self.group_open())
                marks.append(None)
                groups += 1
                quantifiable = False
            elif c == ")":
                if groups == 0:
                    raise self.fail("invalid ECMA-262 regex: unmatched ')'")
                groups -= 1
                out.append(")")
                marks.append(None)
                self.i += 1
                quantifiable = True
            elif c in "|^$":
                out.append(c)
                marks.append(None)
                self.i += 1
                quantifiable = False
            elif c == ".":
                self.atom(_DOT)
                self.i += 1
                quantifiable = True
            elif c in "*+?" or (c == "{" and self.counted() is not None):
                if not quantifiable:
                    raise self.fail("invalid ECMA-262 regex: nothing to repeat")
                text, lo, hi = self.quantifier()
                out.append(text)
                marks.append((lo, hi))
                quantifiable = False
            else:  # a literal, inlined: the commonest token
                cp = self.code_point()
                out.append(_literal(cp))
                marks.append(cp)
                if cp < 0x20:
                    self.ctrl_q |= 1 << cp
                    self.ctrl_b |= 1 << cp
                quantifiable = True
        if groups:
            raise self.fail("invalid ECMA-262 regex: unclosed '('")

    def literal(self, cp: int) -> None:
        self.out.append(_literal(cp))
        self.marks.append(cp)
        if cp < 0x20:
            self.ctrl_q |= 1 << cp
            self.ctrl_b |= 1 << cp

    def atom(self, ranges: Ranges) -> None:
        """A class, escape or `.` matching `ranges` (normalised, see `_normalise`)."""
        self.out.append(_class(ranges))
        self.marks.append(ranges)
        if ranges and ranges[0][0] < 0x20:
            mask = _control_mask(ranges)
            if not _covers(ranges, 0x22, 0x22):
                self.ctrl_q |= mask
            if not _covers(ranges, 0x5C, 0x5C):
                self.ctrl_b |= mask

    def code_point(self) -> int:
        cp = ord(self.p[self.i])
        if _SURROGATES[0] <= cp <= _SURROGATES[1]:
            raise self.fail("the pattern contains a lone UTF-16 surrogate")
        self.i += 1
        return cp

    def counted(self) -> tuple[int, int | None] | None:
        """Parse `{n}`, `{n,}`, `{n,m}` at the cursor without moving it; None if not one."""
        p, j = self.p, self.i + 1
        k = j
        while k < len(p) and p[k].isdigit() and p[k].isascii():
            k += 1
        if k == j:
            return None
        lo = int(p[j:k])
        if k < len(p) and p[k] == "}":
            return lo, lo
        if k >= len(p) or p[k] != ",":
            return None
        m = k + 1
        while m < len(p) and p[m].isdigit() and p[m].isascii():
            m += 1
        if m >= len(p) or p[m] != "}":
            return None
        return (lo, None) if m == k + 1 else (lo, int(p[k + 1:m]))

    def quantifier(self) -> tuple[str, int, int | None]:
        c = self.p[self.i]
        if c == "{":
            bounds = self.counted()
            assert bounds is not None
            lo, hi = bounds
            self.i = self.p.index("}", self.i) + 1
            if hi is not None and hi < lo:
                raise self.fail("invalid ECMA-262 regex: numbers out of order in {} quantifier")
            if max(lo, hi or 0) > MAX_REPEAT:
                raise self.fail(f"counted repetition above {MAX_REPEAT}", "regex-too-large")
            text = f"{{{lo}}}" if hi == lo else f"{{{lo},}}" if hi is None else f"{{{lo},{hi}}}"
        else:
            self.i += 1
            text = c
            lo, hi = _QUANTIFIERS[c]
        if self.i < len(self.p) and self.p[self.i] == "?":
            self.i += 1  # lazy: same language, same match/no-match answer
        if self.i < len(self.p) and (self.p[self.i] in "*+?" or (self.p[self.i] == "{" and self.counted())):
            raise self.fail("invalid ECMA-262 regex: nothing to repeat")
        return text, lo, hi

    def group_open(self) -> str:
        p, i = self.p, self.i
        if not p.startswith("(?", i):
            self.i += 1
            return "("
        if p.startswith("(?:", i):
            self.i += 3
            return "(?:"
        if p.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
            raise self.fail("look-around assertions are not supported by RE2 or llguidance")
        if p.startswith("(?<", i):
            end = p.find(">", i + 3)
            name = p[i + 3:end] if end > 0 else ""
            if not name or not (name[0].isalpha() or name[0] in "_$") or not all(
                ch.isalnum() or ch in "_$" for ch in name
            ):
                raise self.fail("invalid ECMA-262 regex: bad group name")
            self.i = end + 1
            return "(?:"
        raise self.fail("invalid ECMA-262 regex: unknown group syntax '(?'")

    def hex_digits(self, count: int) -> int | None:
        text = self.p[self.i:self.i + count]
        if len(text) == count and all(ch in _HEX for ch in text):
            self.i += count
            return int(text, 16)
        return None

    def unicode_escape(self) -> int:
        """After `\\u`: `XXXX` (a surrogate pair combines) or `{X...}`."""
        p = self.p
        if p.startswith("{", self.i):
            end = p.find("}", self.i)
            digits = p[self.i + 1:end] if end > 0 else ""
            if not digits or not all(ch in _HEX for ch in digits) or int(digits, 16) > MAX_CODE_POINT:
                raise self.fail("invalid ECMA-262 regex: bad \\u{...} escape")
            self.i = end + 1
            cp = int(digits, 16)
        else:
            value = self.hex_digits(4)
            if value is None:
                raise self.fail("invalid ECMA-262 regex: \\u needs four hex digits")
            cp = value
            if 0xD800 <= cp <= 0xDBFF and p.startswith("\\u", self.i):
                save = self.i
                self.i += 2
                low = self.hex_digits(4)
                if low is not None and 0xDC00 <= low <= 0xDFFF:
                    return 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                self.i = save
        if _SURROGATES[0] <= cp <= _SURROGATES[1]:
            raise self.fail("the pattern contains a lone UTF-16 surrogate")
        return cp

    def escape(self, in_class: bool) -> int | Ranges:
        """After a backslash: a code point, or ranges for a class escape."""
        p = self.p
        if self.i >= len(p):
            raise self.fail("invalid ECMA-262 regex: trailing backslash")
        c = p[self.i]
        self.i += 1
        sets = {"d": _DIGIT, "w": _WORD, "s": _SPACE}
        if c in sets:
            return list(sets[c])
        if c.lower() in sets:
            return _complement(sets[c.lower()])
        if c in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[c]
        if c == "b" and in_class:
            return 0x08
        if c in "bB":
            raise self.fail("word-boundary assertions are not supported by llguidance")
        if c == "0":
            if self.i < len(p) and p[self.i].isdigit():
                raise self.fail("legacy octal escapes are not ECMA-262 (u flag) syntax")
            return 0
        if c.isdigit() or c == "k":
            raise self.fail("backreferences are not supported by RE2 or llguidance")
        if c == "c":
            if self.i < len(p) and p[self.i].isascii() and p[self.i].isalpha():
                self.i += 1
                return ord(p[self.i - 1]) % 32
            raise self.fail("invalid ECMA-262 regex: \\c needs a letter")
        if c == "x":
            value = self.hex_digits(2)
            if value is None:
                raise self.fail("invalid ECMA-262 regex: \\x needs two hex digits")
            return value
        if c == "u":
            return self.unicode_escape()
        if c in "pP":
            raise self.fail("Unicode property escapes are not supported (engines' Unicode tables differ)")
        if c.isalnum():
            raise self.fail(f"invalid ECMA-262 regex: unknown escape '\\{c}'")
        self.i -= 1
        return self.code_point()  # identity escape of a symbol

    def class_atom(self) -> int | Ranges:
        if self.p[self.i] == "\\":
            self.i += 1
            return self.escape(in_class=True)
        return self.code_point()

    def char_class(self) -> Ranges:
        """After `[`: the class's set of code points (negation applied)."""
        p = self.p
        negate = p.startswith("^", self.i)
        if negate:
            self.i += 1
        ranges: Ranges = []
        while True:
            if self.i >= len(p):
                raise self.fail("invalid ECMA-262 regex: unclosed '['")
            if p[self.i] == "]":
                self.i += 1
                break
            first = self.class_atom()
            if p.startswith("-", self.i) and self.i + 1 < len(p) and p[self.i + 1] != "]":
                self.i += 1
                last = self.class_atom()
                if isinstance(first, list) or isinstance(last, list):
                    raise self.fail("invalid ECMA-262 regex: class escape in a range")
                if last < first:
                    raise self.fail("invalid ECMA-262 regex: range out of order in class")
                ranges.append((first, last))
            elif isinstance(first, list):
                ranges.extend(first)
            else:
                ranges.append((first, first))
        return _complement(ranges) if negate else _normalise(ranges)


_UNSAFE = (
    "llguidance 1.9.1 would admit the escapes \\\" and \\\\ where the pattern has a character class (or an "
    "alternation of classes) holding every control character but not both '\"' and '\\'; schemac "
    "splits such a class when it is repeated with *, +, ?, {0,n} or {1,n}, or followed by more of "
    "the pattern, but not here"
)


@lru_cache(maxsize=32)
def _explicit(pattern: str) -> tuple[str, bool]:
    """`_Translator.run` of `pattern`: its explicit spelling, and whether llguidance may mis-quote it."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError("regex-too-large", f"pattern is longer than {MAX_PATTERN_CHARS:,} characters")
    return _Translator(pattern).run()


@lru_cache(maxsize=32)
def translate(pattern: str) -> str:
    """The explicit RE2/llguidance spelling of ECMA-262 pattern `pattern`; `PatternError` if none,
    or if llguidance 1.9.1 would mis-quote it (user or lowering pattern: the grammar stays sound)."""
    text, unsafe = _explicit(pattern)
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
        return re2.compile(_explicit(pattern)[0], options=_re2_options())
    except re2.error as exc:
        arg = exc.args[0] if exc.args else exc
        text = arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)
        too_large = any(s in text for s in ("too large", "too big", "repetition size"))
        code = "regex-too-large" if too_large else "unsupported-regex"
        raise PatternError(code, f"RE2 cannot compile the pattern: {text}") from None


def _patterns(node: Schema, pointer: str) -> Iterator[tuple[str, str]]:
    """(pattern, pointer) for every pattern in the tree under `node`; iterative."""
    stack: list[tuple[Schema, str]] = [(node, pointer)]
    while stack:
        item, ptr = stack.pop()
        if not isinstance(item, dict):
            continue
        pat = item.get("pattern")
        if isinstance(pat, str):
            yield pat, child_pointer(ptr, "pattern")
        props = item.get("patternProperties")
        if isinstance(props, dict):
            for key in props:
                yield key, child_pointer(ptr, "patternProperties", key)
        stack.extend((sub, child_pointer(ptr, *path)) for path, sub in iter_subschemas(item))


def _has_patterns(node: Schema) -> bool:
    """Whether `_patterns` would yield anything: the same positions, no pointers, any order."""
    stack: list[Schema] = [node]
    shapes = SUBSCHEMA_KEYWORDS
    while stack:
        item = stack.pop()
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("pattern"), str):
            return True
        props = item.get("patternProperties")
        if isinstance(props, dict) and props:
            return True
        for kw, value in item.items():
            shape = shapes.get(kw)
            if shape == "one":
                if isinstance(value, (dict, bool)):
                    stack.append(value)
            elif shape == "list":
                if isinstance(value, list):
                    stack.extend(value)
            elif shape == "map" and isinstance(value, dict):
                stack.extend(value.values())
    return False


def _llguidance_error(patterns: list[str]) -> str:
    """llguidance's complaint about `patterns` (all checked in one grammar), or ""."""
    import llguidance

    schema = {"type": "array", "prefixItems": [{"type": "string", "pattern": p} for p in patterns]}
    try:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(schema)
        return llguidance.LLMatcher.validate_grammar(grammar) or ""
    except Exception as exc:  # llguidance raises ValueError/RuntimeError on malformed input
        return str(exc) or type(exc).__name__


def _llguidance_rejects(pattern: str) -> str:
    message = _llguidance_error([pattern])
    return "" if "Unsatisfiable" in message else message  # empty language: valid, just matches nothing


def _roots(root: Schema | Bundle) -> list[tuple[Schema, str]]:
    """(schema, pointer of its origin) for a schema, or for a bundle's root and definitions."""
    if isinstance(root, Bundle):
        return [(root.root, "")] + [(body, root.origin.get(name, "")) for name, body in root.defs.items()]
    return [(root, "")]


def check_patterns(root: Schema | Bundle, budget: Budget) -> None:
    """Check every pattern (`pattern`, `patternProperties` keys, inside `propertyNames` too).

    Each pattern must translate exactly and compile on RE2 within 2 MiB; its length is charged
    to the `regex_chars` budget. Raises `CompileError`. Given a Bundle, pointers are the
    definitions' origins in the user's document. llguidance's own acceptance is checked by the
    grammar check (emit), and `llguidance_pattern_errors` locates a refusal only when that fails:
    a separate llguidance check of every pattern cost as much as a typical whole compile.
    """
    roots = _roots(root)
    if not any(_has_patterns(node) for node, _ in roots):
        return
    found: set[str] = set()
    for node, pointer in roots:
        for pattern, ptr in _patterns(node, pointer):
            if len(pattern) > MAX_PATTERN_CHARS:
                raise reject("regex-too-large", ptr, f"pattern is longer than {MAX_PATTERN_CHARS:,} characters")
            budget.reserve("regex_chars", len(pattern), ptr)
            if pattern in found:
                continue
            try:
                compile_re2(pattern)
                translate(pattern)
            except PatternError as exc:
                raise reject(exc.code, ptr, str(exc), hint="rewrite the pattern in the RE2-compatible subset of ECMA-262") from None
            found.add(pattern)


def llguidance_pattern_errors(root: Schema | Bundle) -> list[Diagnostic]:
    """`unsupported-regex` for each pattern (already past `check_patterns`) that llguidance's regex
    engine refuses, at its pointer; empty when it takes them all. Run after a failed grammar check."""
    found: dict[str, str] = {}
    for node, pointer in _roots(root):
        for pattern, ptr in _patterns(node, pointer):
            found.setdefault(pattern, ptr)
    if not found or not _llguidance_error([translate(p) for p in found]):
        return []
    errors: list[Diagnostic] = []
    for pattern, ptr in found.items():
        message = _llguidance_rejects(translate(pattern))
        if message:
            errors.extend(reject("unsupported-regex", ptr, f"llguidance rejects the pattern: {message.strip()}").diagnostics)
    return errors
