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
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterator

from schemac.budget import Budget
from schemac.diagnostics import CompileError, reject
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


def _guard_llguidance_escapes(ranges: Ranges) -> None:
    """llguidance 1.9.1 mis-encodes a class holding every control character U+0000-U+001F:
    its JSON string grammar then also admits the escapes `\\"` and `\\\\` whether or not the class
    holds `"` and `\\`, so such a pattern would let invalid answers through. Refuse it."""
    if _covers(ranges, 0x00, 0x1F) and not (_covers(ranges, 0x22, 0x22) and _covers(ranges, 0x5C, 0x5C)):
        raise PatternError(
            "unsupported-regex",
            "a character class that matches every control character but not both '\"' and '\\\\' "
            "is mis-compiled by llguidance 1.9.1 (it would admit those characters too)",
        )


def _class(ranges: Ranges, guard: bool = False) -> str:
    """A bracket class for `ranges`, negated when that is shorter (same set in both engines)."""
    ranges = _normalise(ranges)
    if guard:
        _guard_llguidance_escapes(ranges)
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


class _Translator:
    """One left-to-right pass over an ECMA-262 pattern, emitting the explicit form."""

    def __init__(self, pattern: str, guard: bool = False) -> None:
        self.p = pattern
        self.i = 0
        self.out: list[str] = []
        self.guard = guard

    def fail(self, message: str, code: str = "unsupported-regex") -> PatternError:
        return PatternError(code, f"{message} (at offset {self.i} of the pattern)")

    def run(self) -> str:
        p, n = self.p, len(self.p)
        groups = 0
        quantifiable = False
        while self.i < n:
            c = p[self.i]
            if c == "\\":
                self.i += 1
                item = self.escape(in_class=False)
                self.out.append(_class(item, self.guard) if isinstance(item, list) else _literal(item))
                quantifiable = True
            elif c == "[":
                self.i += 1
                self.out.append(_class(self.char_class(), self.guard))
                quantifiable = True
            elif c == "(":
                self.out.append(self.group_open())
                groups += 1
                quantifiable = False
            elif c == ")":
                if groups == 0:
                    raise self.fail("invalid ECMA-262 regex: unmatched ')'")
                groups -= 1
                self.out.append(")")
                self.i += 1
                quantifiable = True
            elif c == "|":
                self.out.append("|")
                self.i += 1
                quantifiable = False
            elif c in "^$":
                self.out.append(c)
                self.i += 1
                quantifiable = False
            elif c == ".":
                self.out.append(_class(_complement(_LINE_TERMINATORS), self.guard))
                self.i += 1
                quantifiable = True
            elif c in "*+?" or (c == "{" and self.counted() is not None):
                if not quantifiable:
                    raise self.fail("invalid ECMA-262 regex: nothing to repeat")
                self.out.append(self.quantifier())
                quantifiable = False
            else:
                self.out.append(_literal(self.code_point()))
                quantifiable = True
        if groups:
            raise self.fail("invalid ECMA-262 regex: unclosed '('")
        return "".join(self.out)

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

    def quantifier(self) -> str:
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
        if self.i < len(self.p) and self.p[self.i] == "?":
            self.i += 1  # lazy: same language, same match/no-match answer
        if self.i < len(self.p) and (self.p[self.i] in "*+?" or (self.p[self.i] == "{" and self.counted())):
            raise self.fail("invalid ECMA-262 regex: nothing to repeat")
        return text

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


@lru_cache(maxsize=32)
def translate(pattern: str) -> str:
    """The explicit RE2/llguidance spelling of ECMA-262 pattern `pattern`; `PatternError` if none."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError("regex-too-large", f"pattern is longer than {MAX_PATTERN_CHARS:,} characters")
    return _Translator(pattern).run()


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
        return re2.compile(translate(pattern), options=_re2_options())
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


def check_patterns(root: Schema | Bundle, budget: Budget) -> None:
    """Check every pattern (`pattern`, `patternProperties` keys, inside `propertyNames` too).

    Each pattern must translate exactly, compile on RE2 within 2 MiB, and be accepted by
    llguidance; its length is charged to the `regex_chars` budget. Raises `CompileError`.
    Given a Bundle, pointers are the definitions' origins in the user's document.
    """
    roots = [(root.root, "")] + [(body, root.origin.get(name, "")) for name, body in root.defs.items()] \
        if isinstance(root, Bundle) else [(root, "")]
    if not any(_has_patterns(node) for node, _ in roots):
        return
    found: dict[str, str] = {}
    for node, pointer in roots:
        for pattern, ptr in _patterns(node, pointer):
            if len(pattern) > MAX_PATTERN_CHARS:
                raise reject("regex-too-large", ptr, f"pattern is longer than {MAX_PATTERN_CHARS:,} characters")
            budget.reserve("regex_chars", len(pattern), ptr)
            if pattern in found:
                continue
            try:
                compile_re2(pattern)
                # user patterns only: lowering's own complements split such classes safely
                _Translator(pattern, guard=True).run()
            except PatternError as exc:
                raise reject(exc.code, ptr, str(exc), hint="rewrite the pattern in the RE2-compatible subset of ECMA-262") from None
            found[pattern] = ptr
    if not found or not _llguidance_error([translate(p) for p in found]):
        return
    errors = []
    for pattern, ptr in found.items():
        message = _llguidance_rejects(translate(pattern))
        if message:
            errors.extend(reject("unsupported-regex", ptr, f"llguidance rejects the pattern: {message.strip()}").diagnostics)
    if errors:
        raise CompileError(errors)
