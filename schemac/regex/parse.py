"""One left-to-right pass over an ECMA-262 pattern (u flag) into its explicit spelling."""
from __future__ import annotations

from schemac.regex.guard import CONTROLS, LF, MAX_DEPTH, MAX_TOKENS, Group, Splitter, render, token_tree, unsafe
from schemac.regex.properties import MAX_PROPERTY_RANGES, property_ranges
from schemac.regex.rewrite import rewrite
from schemac.regex.syntax import (
    DIGIT, DOT, HEX, QUANTIFIERS, SIMPLE_ESCAPES, SPACE, SURROGATES, WORD, MAX_CODE_POINT, MAX_REPEAT,
    PatternError, Ranges, class_spelling, complement, control_mask, covers, literal, normalise,
)


class Translator:
    """One left-to-right pass over an ECMA-262 pattern, emitting the explicit form (rewritten as a
    tree only where llguidance's escape bug may bite)."""

    def __init__(self, pattern: str, lookaheads: bool = False, assertions: bool = False) -> None:
        self.p = pattern
        #: with `assertions` (`schemac.regex.assertions`), look-arounds and `\\b`/`\\B` anywhere
        #: become tokens of their own (the opener, or the escape, marked None)
        self.assertions = assertions
        self.opened: list[str] = []  # the open groups' openers (an assertion closes unquantifiable)
        self.i = 0
        self.out: list[str] = []
        self.marks: list[int | Ranges | tuple[int, int | None] | None] = []
        self.ctrl_q = self.ctrl_b = 0
        self.group_repeated = False  # some `)` carries a quantifier: `rewrite` may apply
        #: with `lookaheads` (`schemac.regex.lookahead`), a look-ahead may open here: right after a
        #: leading `^` or a leading look-ahead; -1 refuses every look-around, as RE2 and llguidance do
        self.lead = 1 if lookaheads and pattern.startswith("^") else -1
        self.body = -1  # where the body of the open leading look-ahead starts
        self.lookaheads: list[tuple[bool, int, int]] = []  # (positive, body start, body end)
        self.top_alternation = False  # some `|` outside every group
        self.property_ranges = 0  # ranges brought by `\p{..}`/`\P{..}` so far (`MAX_PROPERTY_RANGES`)

    def fail(self, message: str, code: str = "unsupported-regex") -> PatternError:
        return PatternError(code, f"{message} (at offset {self.i} of the pattern)")

    def run(self) -> tuple[str, bool]:
        """The translated pattern, and whether llguidance 1.9.1 may still mis-quote it."""
        self.parse()
        if self.ctrl_q | LF != CONTROLS and self.ctrl_b | LF != CONTROLS:
            return "".join(self.out), False  # no union of this pattern's sets can be mis-quoted
        if len(self.out) > MAX_TOKENS:
            return "".join(self.out), True
        root, depth = token_tree(self.out, self.marks)
        if depth > MAX_DEPTH:
            return "".join(self.out), True
        tree = Splitter().node(root, True)
        assert isinstance(tree, Group)
        return render(tree), unsafe(tree)

    def parse(self) -> None:
        """Fill `self.out` with the translated tokens and `self.marks` with what each one is (see
        `token_tree`); `self.ctrl_q` gets the controls of atoms lacking `"` and `self.ctrl_b` those
        of atoms lacking `\\` (what `_unsafe_set` of all the atoms would look at)."""
        p, n, out, marks = self.p, len(self.p), self.out, self.marks
        groups = 0
        quantifiable = False
        while self.i < n:
            c = p[self.i]
            if c == "\\" and self.assertions and p.startswith(("\\b", "\\B"), self.i):
                out.append(p[self.i:self.i + 2])
                marks.append(None)
                self.i += 2
                quantifiable = False
            elif c == "\\":
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
                self.opened.append(out[-1])
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
                quantifiable = self.opened.pop() in ("(", "(?:")  # look-arounds take no quantifier ("u")
                if not groups and self.body >= 0:  # a leading look-ahead closes (unquantifiable with "u")
                    self.lookaheads.append((p[self.body - 1] == "=", self.body, self.i - 1))
                    self.body, self.lead, quantifiable = -1, self.i, False
            elif c in "|^$":
                self.top_alternation |= c == "|" and not groups
                out.append(c)
                marks.append(None)
                self.i += 1
                quantifiable = False
            elif c == ".":
                self.atom(DOT)
                self.i += 1
                quantifiable = True
            elif c in "*+?" or (c == "{" and self.counted() is not None):
                if not quantifiable:
                    raise self.fail("invalid ECMA-262 regex: nothing to repeat")
                self.group_repeated |= marks[-1] is None  # the only quantifiable None-mark token is `)`
                text, lo, hi = self.quantifier()
                out.append(text)
                marks.append((lo, hi))
                quantifiable = False
            else:  # a literal, inlined: the commonest token
                cp = self.code_point()
                out.append(literal(cp))
                marks.append(cp)
                if cp < 0x20:
                    self.ctrl_q |= 1 << cp
                    self.ctrl_b |= 1 << cp
                quantifiable = True
        if groups:
            raise self.fail("invalid ECMA-262 regex: unclosed '('")
        if self.group_repeated:  # word-limit shapes into the same language, in forms llguidance's lexer runs
            rewrite(out, marks)

    def literal(self, cp: int) -> None:
        self.out.append(literal(cp))
        self.marks.append(cp)
        if cp < 0x20:
            self.ctrl_q |= 1 << cp
            self.ctrl_b |= 1 << cp

    def atom(self, ranges: Ranges) -> None:
        """A class, escape or `.` matching `ranges` (normalised, see `normalise`)."""
        self.out.append(class_spelling(ranges))
        self.marks.append(ranges)
        if ranges and ranges[0][0] < 0x20:
            mask = control_mask(ranges)
            if not covers(ranges, 0x22, 0x22):
                self.ctrl_q |= mask
            if not covers(ranges, 0x5C, 0x5C):
                self.ctrl_b |= mask

    def code_point(self) -> int:
        cp = ord(self.p[self.i])
        if SURROGATES[0] <= cp <= SURROGATES[1]:
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
            lo, hi = QUANTIFIERS[c]
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
        if i == self.lead and p.startswith(("(?=", "(?!"), i):  # `lead` lies outside every group
            self.body = self.i = i + 3
            return "(?:"
        if p.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
            if self.assertions:
                self.i = i + (3 if p[i + 2] in "=!" else 4)
                return p[i:self.i]
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
        if len(text) == count and all(ch in HEX for ch in text):
            self.i += count
            return int(text, 16)
        return None

    def unicode_escape(self) -> int:
        """After `\\u`: `XXXX` (a surrogate pair combines) or `{X...}`."""
        p = self.p
        if p.startswith("{", self.i):
            end = p.find("}", self.i)
            digits = p[self.i + 1:end] if end > 0 else ""
            if not digits or not all(ch in HEX for ch in digits) or int(digits, 16) > MAX_CODE_POINT:
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
        if SURROGATES[0] <= cp <= SURROGATES[1]:
            raise self.fail("the pattern contains a lone UTF-16 surrogate")
        return cp

    def escape(self, in_class: bool) -> int | Ranges:
        """After a backslash: a code point, or ranges for a class escape."""
        p = self.p
        if self.i >= len(p):
            raise self.fail("invalid ECMA-262 regex: trailing backslash")
        c = p[self.i]
        self.i += 1
        sets = {"d": DIGIT, "w": WORD, "s": SPACE}
        if c in sets:
            return list(sets[c])
        if c.lower() in sets:
            return complement(sets[c.lower()])
        if c in SIMPLE_ESCAPES:
            return SIMPLE_ESCAPES[c]
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
        if c in "pP":  # explicit ranges from this Python's Unicode tables (`properties`)
            end = p.find("}", self.i) if p.startswith("{", self.i) else -1
            if end < 0:
                raise self.fail(f"invalid ECMA-262 regex: \\{c} needs {{name}} or {{name=value}}")
            try:
                ranges = property_ranges(p[self.i + 1:end])
            except ValueError as exc:
                raise self.fail(str(exc)) from None
            self.property_ranges += len(ranges)
            if self.property_ranges > MAX_PROPERTY_RANGES:
                raise self.fail(f"the pattern's Unicode property escapes spell more than {MAX_PROPERTY_RANGES:,} "
                                "code point ranges", "regex-too-large")
            self.i = end + 1
            return ranges if c == "p" else complement(ranges)
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
        return complement(ranges) if negate else normalise(ranges)

