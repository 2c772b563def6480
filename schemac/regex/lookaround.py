"""Exact Lark terminals for patterns with assertions (see `schemac.regex.assertions` for the method).

The whole-string language of a pattern is built over canonical spellings (`spelling`): plain
items as regexes, assertion tests with Lark's `&` and `~`. Every complement is intersected with a
canonical language, where canonical spelling commutes with complement, so the terminal is exact.
"""
from __future__ import annotations

from schemac.regex.assertions import LEFT, RIGHT, MAX_SEQUENCES, asserts
from schemac.regex.guard import Anchor, Atom, Group, Look, Node
from schemac.regex.spelling import ANY, spelling_parts
from schemac.regex.syntax import WORD, PatternError, Ranges, complement

#: longest terminal text built (as `spelling` bounds a plain pattern's)
MAX_TERMINAL_CHARS = 1 << 20


class Lang:
    """A language of canonical spellings: a regex (`regex` set, always one item: a group, a
    class, a repetition or a concatenation of such, so regexes concatenate as text) or a Lark
    terminal expression, and whether it holds the empty string. None stands for no string."""

    __slots__ = ("regex", "lark", "nullable")

    def __init__(self, regex: str | None, lark: str | None, nullable: bool) -> None:
        self.regex, self.lark, self.nullable = regex, lark, nullable

    def expr(self) -> str:
        """A Lark terminal expression for the language."""
        if self.regex is None:
            assert self.lark is not None
            return self.lark
        return "/" + (self.regex or "(?:)").replace("/", "\\/") + "/"


def _any() -> Lang:
    return Lang(ANY, None, True)


_EPS = Lang("", None, True)


def _cat(a: Lang | None, b: Lang | None) -> Lang | None:
    if a is None or b is None:
        return None
    if a.regex == "" or b.regex == "":
        return b if a.regex == "" else a
    if a.regex is not None and b.regex is not None:
        return Lang(a.regex + b.regex, None, a.nullable and b.nullable)  # each regex is one item
    return Lang(None, f"({a.expr()}) ({b.expr()})", a.nullable and b.nullable)


def _union(langs: list[Lang | None]) -> Lang | None:
    """The union of `langs`, flat (Lark bounds the nesting of terminal expressions)."""
    found = [lang for lang in langs if lang is not None]
    if len(found) <= 1:
        return found[0] if found else None
    nullable = any(lang.nullable for lang in found)
    if all(lang.regex is not None for lang in found):
        return Lang("(?:" + "|".join(f"(?:{lang.regex})" for lang in found) + ")", None, nullable)
    return Lang(None, " | ".join(f"({lang.expr()})" for lang in found), nullable)


def _test(acc: Lang | None, test: Lang | None, negative: bool) -> Lang | None:
    """`acc` (canonical) intersected with `test`, or with its complement when `negative`."""
    if acc is None:
        return None
    if test is None:
        return acc if negative else None
    if test.regex == "" and not negative:  # the empty string alone (`^`, `$`)
        return _EPS if acc.nullable else None
    if negative:
        return Lang(None, f"({acc.expr()}) & ~({test.expr()})", acc.nullable and not test.nullable)
    if acc.regex is not None and acc.regex == _any().regex:
        return test
    return Lang(None, f"({acc.expr()}) & ({test.expr()})", acc.nullable and test.nullable)


def _plain(node: Node) -> Lang | None:
    """The spellings of a node free of assertions."""
    part = spelling_parts(node, 1).get((False, False))
    return None if part is None else Lang(part[0], None, part[1])


class _Test:
    """An assertion at a point of a sequence: the prefix (`side` left) or the rest (right) is in
    `lang`, or not when `negative`; `first` is set for a right test on one character (`\\b`'s
    halves: the rest begins with a character of `first`, or it does not)."""

    __slots__ = ("side", "lang", "negative", "first")

    def __init__(self, side: str, lang: Lang | None, negative: bool, first: Ranges | None = None) -> None:
        self.side, self.lang, self.negative, self.first = side, lang, negative, first


#: an item of a distributed sequence: a plain node, a language built for one (`_untangle`), a test
_Item = Node | Lang | _Test


def _boundary(negative: bool) -> list[list[_Item]]:
    """`\\b` (or `\\B` when `negative`) as sequences of a left test then a right test on `\\w`."""
    word = _plain(Atom(list(WORD)))
    before, after = _cat(_any(), word), _cat(word, _any())
    return [[_Test(LEFT, before, False), _Test(RIGHT, after, not negative, list(WORD))],
            [_Test(LEFT, before, True), _Test(RIGHT, after, negative, list(WORD))]]


def _grow(count: list[int], more: int) -> None:
    count[0] += more
    if count[0] > MAX_SEQUENCES:
        raise PatternError("regex-too-large",
                           f"the pattern's assertions spread into more than {MAX_SEQUENCES} sequences")


def _sequences(items: list[Node], count: list[int]) -> list[list[_Item]]:
    """`items` with every group holding assertions distributed, each assertion a test."""
    out: list[list[_Item]] = [[]]
    for item in items:
        if isinstance(item, Look):
            side = RIGHT if item.kind in ("(?=", "(?!") else LEFT
            options: list[list[_Item]] = [[_Test(side, _side_lang(item, side, count), item.kind in ("(?!", "(?<!"))]]
        elif isinstance(item, Anchor):
            boundary = item.text in ("\\b", "\\B")
            options = _boundary(item.text == "\\B") if boundary else [[_Test(item.text, _EPS, False)]]
        elif isinstance(item, Group) and asserts(item):
            options = [seq for alt in item.alts for seq in _sequences(alt, count)]
        else:
            options = [[item]]
        out = [seq + option for seq in out for option in options]
        _grow(count, len(out) * (len(options) - 1))
    return out


def _side_lang(look: Look, side: str, count: list[int]) -> Lang | None:
    """Y·Σ* for a look-ahead's body Y, Σ*·Z for a look-behind's body Z."""
    langs: list[Lang | None] = []
    for alt in look.alts:
        for seq in _sequences(alt, count):
            if any(isinstance(it, _Test) and it.side != side for it in seq):
                raise PatternError("unsupported-regex", "a look-around holding an assertion on its other side "
                                   "has no exact terminal")
            langs.append(_fold(seq, side))
    return _union(langs)


def _lang(item: Node | Lang) -> Lang | None:
    return item if isinstance(item, Lang) else _plain(item)


def _fold(seq: list[_Item], side: str) -> Lang | None:
    """Left (Σ*, items appended, left tests applied) over `seq`, or Right (built from the end).
    A run of items between two tests is concatenated first, flat (Lark bounds the nesting)."""
    acc: Lang | None = _any()
    run: list[Lang | None] = []
    for item in [*(seq if side == LEFT else reversed(seq)), None]:
        if item is None or isinstance(item, _Test):
            if run:
                block = _cat_all(run if side == LEFT else run[::-1])
                acc = _cat(acc, block) if side == LEFT else _cat(block, acc)
                run = []
            if item is not None:
                acc = _test(acc, item.lang, item.negative)
        else:
            run.append(_lang(item))
        if acc is None:
            return None
    return acc


def _cat_all(langs: list[Lang | None]) -> Lang | None:
    """The concatenation of `langs`, adjacent regexes joined, Lark expressions side by side."""
    pieces: list[Lang] = []
    for lang in langs:
        if lang is None:
            return None
        if pieces and pieces[-1].regex is not None and lang.regex is not None:
            merged = _cat(pieces[-1], lang)
            assert merged is not None
            pieces[-1] = merged
        else:
            pieces.append(lang)
    if len(pieces) == 1:
        return pieces[0]
    return Lang(None, " ".join(f"({p.expr()})" for p in pieces), all(p.nullable for p in pieces))


def _ordered(seq: list[_Item]) -> list[_Item]:
    """Tests with no item between them read the same split: their left ones go first (`(?!a)^`)."""
    runs: list[list[_Item]] = []
    for item in seq:
        if runs and isinstance(item, _Test) and isinstance(runs[-1][-1], _Test):
            runs[-1].append(item)
        else:
            runs.append([item])
    return [it for run in runs for it in sorted(run, key=lambda it: isinstance(it, _Test) and it.side == RIGHT)]


def _untangle(seq: list[_Item], count: list[int]) -> list[list[_Item]]:
    """`seq` as sequences with every left test before every right one. A right test on one
    character C before a left test moves past the plain item X after it: (X·K) ∩ CΣ* is
    (X ∩ CΣ*)·K, plus K ∩ CΣ* with X empty when X may be; its negation (K empty or not
    beginning in C) is the same with the complement of C for X. Anything else is refused."""
    done: list[list[_Item]] = []
    work = [_ordered(seq)]
    while work:
        seq = work.pop()
        tests = [k for k, it in enumerate(seq) if isinstance(it, _Test)]
        lefts = [k for k in tests if seq[k].side == LEFT]  # type: ignore[union-attr]
        stuck = [k for k in tests if seq[k].side == RIGHT and lefts and k < lefts[-1]]  # type: ignore[union-attr]
        if not stuck:
            done.append(seq)
            continue
        k = max(k for k in stuck if k < min(j for j in lefts if j > stuck[0]))
        test, item = seq[k], seq[k + 1]
        assert isinstance(test, _Test) and not isinstance(item, _Test)  # runs are ordered: a plain item follows
        if test.first is None:
            raise PatternError("unsupported-regex", "a left assertion (`^`, look-behind, `\\b`) after a right one "
                               "(`$`, look-ahead) in one sequence has no exact terminal")
        first = complement(test.first) if test.negative else test.first
        plain = _lang(item)
        begins = _test(plain, _cat(_plain(Atom(first)), _any()), False)
        work.append(_ordered(seq[:k] + ([begins] if begins is not None else [Atom([])]) + seq[k + 2:]))
        if plain is not None and plain.nullable:
            work.append(_ordered(seq[:k] + [test] + seq[k + 2:]))
            _grow(count, 1)
    return done


def _sequence_lang(seq: list[_Item]) -> Lang | None:
    """The whole strings in which `seq` (distributed, untangled) matches somewhere: Left·Right at
    the pivot (the last left test)."""
    last_left = max((k for k, it in enumerate(seq) if isinstance(it, _Test) and it.side == LEFT), default=-1)
    return _cat(_fold(seq[:last_left + 1], LEFT), _fold(seq[last_left + 1:], RIGHT))


def search_terminal(root: Group) -> str | None:
    """A Lark terminal expression for the canonical spellings (no quotes) of the strings the
    pattern `root` (from `assertion_tree`) matches somewhere; None when there are none."""
    count = [0]
    lang = _union([_sequence_lang(flat) for alt in root.alts for seq in _sequences(alt, count)
                   for flat in _untangle(seq, count)])
    text = None if lang is None else lang.expr()
    if text is not None and len(text) > MAX_TERMINAL_CHARS:
        raise PatternError("regex-too-large", f"the string terminal would pass {MAX_TERMINAL_CHARS:,} characters")
    return text
