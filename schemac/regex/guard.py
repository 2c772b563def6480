"""The pattern as a tree, and the rewrite around llguidance 1.9.1's control-character escape bug."""
from __future__ import annotations

from schemac.regex.syntax import MAX_CODE_POINT, Ranges, class_spelling, control_mask, covers, literal, normalise

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
# `unsafe`: `translate` (what llguidance gets, from user and lowering patterns alike) refuses it,
# while `_explicit` (what RE2 runs) keeps it.

CONTROLS = (1 << 0x20) - 1
LF = 1 << 0x0A
#: code points of the first part when a class is split (half of the controls)
_SPLIT_AT = 0x10
#: splits of the `C S` kind, each doubling S's text
_MAX_SPLITS = 4
#: nesting depth and tokens up to which a pattern that may hit the bug is rewritten and checked
MAX_DEPTH = 64
MAX_TOKENS = 20_000
#: kinds of language: {} / {""} / anything else
_NOTHING, _EMPTY, _OTHER = 0, 1, 2


class Atom:
    """One character of a set: a class, an escape or a literal (`literal` keeps its spelling)."""

    __slots__ = ("ranges", "literal", "ctrl")

    def __init__(self, ranges: Ranges, literal: int | None = None) -> None:
        """`ranges` of a class (normalised, see `normalise`), or `literal` alone."""
        self.ranges = ranges if literal is None else [(literal, literal)]
        self.literal = literal
        self.ctrl = control_mask(self.ranges)

    @property
    def quote(self) -> bool:
        return covers(self.ranges, 0x22, 0x22)

    @property
    def backslash(self) -> bool:
        return covers(self.ranges, 0x5C, 0x5C)

    def halves(self) -> tuple[Atom, Atom]:
        low = [(lo, min(hi, _SPLIT_AT - 1)) for lo, hi in self.ranges if lo < _SPLIT_AT]
        high = [(max(lo, _SPLIT_AT), hi) for lo, hi in self.ranges if hi >= _SPLIT_AT]
        return Atom(low), Atom(high)


class Anchor:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class Group:
    """Alternatives, each a sequence of nodes; `capture` None is the whole pattern (no parentheses)."""

    __slots__ = ("capture", "alts")

    def __init__(self, capture: bool | None, alts: list[list[Node]]) -> None:
        self.capture = capture
        self.alts = alts


class Look(Group):
    """A look-around (`kind` is its opener: `(?=`, `(?!`, `(?<=` or `(?<!`), from the assertion mode
    of `_Translator` only (`schemac.regex.assertions`)."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        super().__init__(False, [[]])
        self.kind = kind


class Repeat:
    __slots__ = ("node", "lo", "hi", "text")

    def __init__(self, node: Node, lo: int, hi: int | None, text: str = "") -> None:
        self.node, self.lo, self.hi = node, lo, hi
        self.text = text or ("*" if (lo, hi) == (0, None) else "+" if (lo, hi) == (1, None)
                             else "?" if (lo, hi) == (0, 1) else f"{{{lo}}}" if hi == lo else f"{{{lo},{hi}}}")


Node = Atom | Anchor | Group | Repeat
_ANY_STAR = Repeat(Atom([(0, MAX_CODE_POINT)]), 0, None)
_NO_RANGES: Ranges = []


def token_tree(out: list[str], marks: list[int | Ranges | tuple[int, int | None] | None]) -> tuple[Group, int]:
    """The tree of a translated pattern from `_Translator.parse`'s tokens, and its nesting depth.
    Marks: a code point for a literal, ranges for a class, (lo, hi) for a quantifier, None for
    `(`, `(?:`, `)`, `|`, `^`, `$` (and, in assertion mode, look-around openers, `\\b`, `\\B`)."""
    root = Group(None, [[]])
    stack = [root]
    depth = 0
    for text, mark in zip(out, marks):
        items = stack[-1].alts[-1]
        if isinstance(mark, int):
            items.append(Atom(_NO_RANGES, mark))
        elif isinstance(mark, list):
            items.append(Atom(mark))
        elif isinstance(mark, tuple):
            items[-1] = Repeat(items[-1], mark[0], mark[1], text)
        elif text.startswith("("):
            group = Group(text == "(", [[]]) if text in ("(", "(?:") else Look(text)
            items.append(group)
            stack.append(group)
            depth = max(depth, len(stack) - 1)
        elif text == ")":
            stack.pop()
        elif text == "|":
            stack[-1].alts.append([])
        else:
            items.append(Anchor(text))
    return root, depth


def render(root: Group) -> str:
    """The pattern text of a tree (iterative: patterns may nest deeply)."""
    out: list[str] = []
    stack: list[Node | str] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, Atom):
            out.append(literal(node.literal) if node.literal is not None else class_spelling(node.ranges))
        elif isinstance(node, Anchor):
            out.append(node.text)
        elif isinstance(node, Repeat):
            stack += [node.text, node.node]
        else:
            parts: list[Node | str] = ["(" if node.capture else "(?:"] if node.capture is not None else []
            for k, alt in enumerate(node.alts):
                parts += ["|"] if k else []
                parts += alt
            parts += [")"] if node.capture is not None else []
            stack += reversed(parts)
    return "".join(out)


def _ctrl_without(atoms: list[Atom], has: str) -> int:
    """The control characters (a bit set) of the atoms lacking `has` ("quote" or "backslash")."""
    ctrl = 0
    for atom in atoms:
        if not getattr(atom, has):
            ctrl |= atom.ctrl
    return ctrl


def _unsafe_set(atoms: list[Atom]) -> bool:
    """Whether some union of `atoms` (a byte set llguidance may build from them) holds all the
    controls, or all but LF, and lacks `"` or `\\`: the sets llguidance 1.9.1 mis-quotes."""
    return any(_ctrl_without(atoms, has) | LF == CONTROLS for has in ("quote", "backslash"))


def _kind(node: Node) -> int:
    """_NOTHING, _EMPTY (the language is just "": derivre drops the node) or _OTHER."""
    if isinstance(node, Atom):
        return _OTHER if node.ranges else _NOTHING
    if isinstance(node, Anchor):
        return _EMPTY
    if isinstance(node, Repeat):
        inner = _kind(node.node)
        if node.hi == 0 or inner == _EMPTY or (inner == _NOTHING and node.lo == 0):
            return _EMPTY
        return inner
    kinds = {_kind_seq(alt) for alt in node.alts}
    return _OTHER if _OTHER in kinds else _EMPTY if _EMPTY in kinds else _NOTHING


def _kind_seq(items: list[Node]) -> int:
    kinds = {_kind(item) for item in items}
    return _NOTHING if _NOTHING in kinds else _OTHER if _OTHER in kinds else _EMPTY


def _tails(node: Node) -> list[Atom]:
    """Atoms derivre may merge with the other alternatives' when `node` ends an alternative."""
    if isinstance(node, Atom):
        return [node]
    if isinstance(node, Repeat):
        return _tails(node.node) if (node.lo, node.hi) == (1, 1) else []
    if isinstance(node, Group):
        return [atom for alt in node.alts for atom in _tails_seq(alt)]
    return []


def _tails_seq(items: list[Node]) -> list[Atom]:
    out: list[Atom] = []
    for item in reversed(items):
        out += _tails(item)
        if _kind(item) != _EMPTY:
            break
    return out


def _or_sets(group: Group) -> tuple[list[Atom], list[Atom], list[Group]]:
    """For an alternation: the atoms derivre surely merges into its byte set (whole-branch
    classes, also those of the alternations it flattens into it), the atoms it may merge into that
    set or into another one (the last atoms of longer branches), and the flattened alternations."""
    sure: list[Atom] = []
    maybe: list[Atom] = []
    flat: list[Group] = []
    for alt in group.alts:
        if len(alt) == 1 and isinstance(alt[0], Atom):
            sure.append(alt[0])
        elif len(alt) == 1 and isinstance(alt[0], Group) and len(alt[0].alts) > 1:
            inner = _or_sets(alt[0])
            sure += inner[0]
            maybe += inner[1]
            flat += inner[2] + [alt[0]]
        else:
            maybe += _tails_seq(alt)
    return sure, maybe, flat


def _unsafe_or(sure: list[Atom], maybe: list[Atom]) -> bool:
    """Whether some set derivre may build from an alternation is mis-quoted: one made of `maybe`
    atoms only, or the union of all `sure` atoms with some `maybe` ones."""
    return _unsafe_set(maybe) or any(
        sure and not any(getattr(atom, has) for atom in sure)
        and _ctrl_without(sure + maybe, has) | LF == CONTROLS
        for has in ("quote", "backslash")
    )


def unsafe(root: Group) -> bool:
    """Whether llguidance 1.9.1 may mis-quote some byte set of the pattern: a class on its own,
    or what derivre merges from an alternation (over-approximated: it merges the last atoms of
    longer branches only when it factors out all that precedes them)."""
    stack: list[Node] = [root]
    judged: set[int] = set()  # atoms and alternations judged as part of an enclosing alternation
    while stack:
        node = stack.pop()
        if isinstance(node, Atom):
            if id(node) not in judged and _unsafe_set([node]):
                return True
        elif isinstance(node, Repeat):
            if node.hi != 0:  # `x{0}` is dropped whole
                stack.append(node.node)
        elif isinstance(node, Group):
            if len(node.alts) > 1 and id(node) not in judged:
                sure, maybe, flat = _or_sets(node)
                if _unsafe_or(sure, maybe):
                    return True
                judged.update(id(x) for x in [*sure, *flat])
            for alt in node.alts:
                stack += alt
    return False


def _whole_union(group: Group) -> Atom | None:
    """One atom for the union of a group's whole-branch classes (what derivre merges), if any."""
    whole = [r for alt in group.alts if len(alt) == 1 and isinstance(alt[0], Atom) for r in alt[0].ranges]
    return Atom(normalise(whole)) if whole else None


class Splitter:
    """Rewrites a tree so that no class llguidance would mis-quote stays whole (see above)."""

    def __init__(self) -> None:
        self.splits = 0

    def split(self, node: Node) -> tuple[Node, Node] | None:
        """(A, B) with A|B the same language as `node`, if `node` is a class llguidance would
        mis-quote, or a group whose whole-branch classes derivre merges into such a set: the
        halves of their union go to A (with the other branches) and B."""
        if isinstance(node, Atom):
            return node.halves() if _unsafe_set([node]) else None
        if not isinstance(node, Group) or node.capture is None:
            return None
        union = _whole_union(node)
        if union is None or not _unsafe_set([union]):
            return None
        low, high = union.halves()
        others = [alt for alt in node.alts if not (len(alt) == 1 and isinstance(alt[0], Atom))]
        return Group(False, others + [[low]]), high

    def repeat(self, node: Repeat) -> Node:
        body = self.node(node.node, False)
        pair = self.split(body)
        lo, hi = node.lo, node.hi
        if pair is None or lo > 1 or hi == 0 or (lo, hi) == (1, 1):
            return Repeat(body, lo, hi, node.text)
        a, b = pair
        if hi is None:
            blocks = Group(False, [[Repeat(a, 0, None), b]])  # (?:A*B)
            if lo == 0:
                return Group(False, [[Repeat(blocks, 0, None), Repeat(a, 0, None)]])
            return Group(False, [[Repeat(blocks, 1, None), Repeat(a, 0, None)], [Repeat(a, 1, None)]])
        one = Group(False, [[Repeat(a, 0, 1)], [b]])  # (?:A?|B): at most one character
        if lo == 0:
            return one if hi == 1 else Repeat(one, hi, hi)
        tail = one if hi == 2 else Repeat(one, hi - 1, hi - 1)
        return Group(False, [[a, tail], [b, tail]])

    def node(self, node: Node, at_end: bool) -> Node:
        if isinstance(node, Repeat):
            return self.repeat(node)
        if isinstance(node, Group):
            # whole-branch classes merging into a safe set stay whole (splitting one could leave
            # the others an unsafe set)
            union = _whole_union(node) if len(node.alts) > 1 else None
            keep = union is not None and not _unsafe_set([union])
            return Group(node.capture, [alt if keep and len(alt) == 1 and isinstance(alt[0], Atom)
                                         else self.seq(alt, at_end) for alt in node.alts])
        return node

    def seq(self, items: list[Node], at_end: bool) -> list[Node]:
        """`items` rewritten; `at_end`: nothing follows them up to the unanchored end of the pattern."""
        out: list[Node] = []
        last = len(items) - 1
        for i, item in enumerate(items):
            item = self.node(item, at_end and i == last)
            pair = self.split(item) if self.splits < _MAX_SPLITS else None
            if pair is not None:
                rest = items[i + 1:]
                if _kind_seq(rest) != _EMPTY or (at_end and not rest):
                    self.splits += 1
                    after = self.seq(rest, at_end) if rest else [_ANY_STAR]
                    out.append(Group(False, [[pair[0]] + after, [pair[1]] + after]))
                    return out
            out.append(item)
        return out
