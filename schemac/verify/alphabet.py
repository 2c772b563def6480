"""The walk's token vocabulary, derived from a schema's own literals.

A bounded-exhaustive walk can only find what its alphabet can spell, so the alphabet holds every
text where an exact lowering can go wrong: the schema's keys, string and number literals and
their neighbours (one step either side, at the literal's own precision and one finer), JSON
punctuation with both separator spellings, digits and number signs, the three words, the escapes
that spell a character another way (`\\u0062` is `b`), a non-ASCII, an astral and a DEL
character. Each token is a string the grammar consumes whole; texts reached by two spellings of
the same bytes are walked once.
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, Iterator

#: JSON structure, both separator spellings of the syntax policy, number characters, words
BASE_TOKENS: tuple[str, ...] = (
    "{", "}", "[", "]", ",", ":", '"', ", ", ": ",
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "-", ".", "e", "E", "+",
    "true", "false", "null",
    '\\"', "\\\\", "\\n", "\\u000a", "\\u0062", "\\/",
    "a", "\u00e9", "\U0001f600", "\x7f",
)
#: characters where ECMA-262 classes, `.`, anchors and the engines disagree, for schemas with a
#: `pattern` or `format`: line terminators, other white space, a word character, and their escapes
PATTERN_TOKENS: tuple[str, ...] = (
    "\\r", "\\t", "\u2028", "\\u2028", "\u00a0", "\ufeff", "\u0085", " ", "_", "A", "Z", "z", "@", "/", "%",
)

#: how many literals of each kind enter the alphabet (a schema with thousands of enum values still
#: gets a walk whose branching stays bounded)
MAX_STRINGS = 24
MAX_NUMBERS = 24
_WORD_PATTERN = re.compile(r"\^?([A-Za-z0-9_-]+)\$?")
_NUMERIC_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "const", "enum")
_LENGTH_KEYWORDS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")


def is_number(v: Any) -> bool:
    from numbers import Number

    return isinstance(v, Number) and not isinstance(v, bool)


def spell_number(v: Any) -> str:
    """The canonical spelling of a number: integers plainly, others as their shortest decimal,
    never an exponent (the syntax policy's spelling for constrained numbers)."""
    if isinstance(v, int):
        return str(v)
    d = Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
    if d == d.to_integral_value():
        return str(int(d))
    return format(d.normalize(), "f")


def literals(schema: Any) -> tuple[list[str], list[Any], list[int]]:
    """(strings, numbers, lengths) written in `schema`, in order of first appearance: keys of
    `properties`/`patternProperties`/`dependent*`, `required` names and const/enum strings;
    numeric bounds and const/enum numbers; length and count bounds."""
    strings: dict[str, None] = {}
    numbers: dict[str, Any] = {}
    lengths: dict[int, None] = {}
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop(0)
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if key in ("properties", "patternProperties", "dependentSchemas", "dependentRequired", "$defs") \
                    and isinstance(value, dict):
                if key == "patternProperties":  # a pattern that spells one word: that key
                    strings.update(dict.fromkeys(m.group(1) for m in map(_WORD_PATTERN.fullmatch, value) if m))
                elif key != "$defs":
                    strings.update(dict.fromkeys(k for k in value))
                stack.extend(value.values())
            elif key == "required" and isinstance(value, list):
                strings.update(dict.fromkeys(v for v in value if isinstance(v, str)))
            elif key in ("const", "enum", "examples", "default"):
                listed = key in ("enum", "examples") and isinstance(value, list)
                for v in (value if listed else [value]):
                    for atom in _atoms(v):
                        if isinstance(atom, str):
                            strings[atom] = None
                        elif is_number(atom):
                            numbers.setdefault(spell_number(atom), atom)
            elif key in _NUMERIC_KEYWORDS and is_number(value):
                numbers.setdefault(spell_number(value), value)
            elif key in _LENGTH_KEYWORDS and isinstance(value, int) and not isinstance(value, bool):
                lengths[value] = None
            elif isinstance(value, (dict, list)):
                stack.append(value)
    return list(strings), list(numbers.values()), list(lengths)


def _atoms(value: Any) -> Iterator[Any]:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            yield from v.keys()
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        else:
            yield v


def _pattern_chars(schema: Any) -> list[str]:
    """The literal characters of the schema's patterns (letters, digits and symbols they name)."""
    found: dict[str, None] = {}
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "pattern" and isinstance(v, str):
                    found.update(dict.fromkeys(c for c in v if c.isalnum() or c in "-:._"))
                elif k == "patternProperties" and isinstance(v, dict):
                    for p in v:
                        found.update(dict.fromkeys(c for c in p if c.isalnum() or c in "-:._"))
                    stack.extend(v.values())
                elif isinstance(v, (dict, list)):
                    stack.append(v)
        elif isinstance(node, list):
            stack.extend(node)
    return list(found)[:MAX_STRINGS]


def number_neighbours(v: Any) -> list[Any]:
    """`v`, one unit either side, and one step at its own last decimal place and one finer."""
    d = Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
    exponent = min(d.normalize().as_tuple().exponent if d else 0, 0)  # type: ignore[operator]
    out: list[Any] = [d, d - 1, d + 1, -d]
    for step in (Decimal(1).scaleb(exponent), Decimal(1).scaleb(exponent - 1)):
        out.extend([d - step, d + step])
    return out


def string_neighbours(s: str) -> list[str]:
    """`s`, one character shorter, one longer, and its last character bumped (x → y)."""
    out = [s, s[:-1], s + "a"]
    if s:
        out.append(s[:-1] + chr(ord(s[-1]) + 1 if ord(s[-1]) < 0x10FFFF else 0x61))
    return out


def _string_token(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)[1:-1]


def tokens_for(schema: Any) -> list[str]:
    """The walk alphabet of `schema`: `BASE_TOKENS` plus its literals and their neighbours,
    as bare string contents, quoted strings and number spellings (no duplicates; `_priority` order)."""
    strings, numbers, lengths = literals(schema)
    out: dict[str, None] = dict.fromkeys(BASE_TOKENS)
    text = json.dumps(schema, default=str, ensure_ascii=False)
    if '"pattern' in text or '"format"' in text:
        out.update(dict.fromkeys(PATTERN_TOKENS))
        out.update(dict.fromkeys(_string_token(c) for c in _pattern_chars(schema)))
    for s in strings[:MAX_STRINGS]:
        for n in string_neighbours(s):
            if n:
                out[_string_token(n)] = None
                out[json.dumps(n, ensure_ascii=False)] = None
        if s:  # the same string with its first character \u-escaped: `"\u0062"` is `"b"`
            first = json.dumps(s[0])[1:-1]  # ASCII: \uXXXX (a surrogate pair for astral characters)
            if not first.startswith("\\u"):
                first = f"\\u{ord(s[0]):04x}"
            escaped = '"' + first + _string_token(s[1:]) + '"'
            out[escaped] = None
            for quoted in (json.dumps(s, ensure_ascii=False), escaped):  # keys with their colon
                out[quoted + ":"] = out[quoted + ": "] = None
        out.update(dict.fromkeys(_string_token(c) for c in s))
    for v in numbers[:MAX_NUMBERS]:
        for n in number_neighbours(v):
            out[spell_number(n)] = None
    for n in lengths[:MAX_NUMBERS]:
        out.update(dict.fromkeys(spell_number(x) for x in (n - 1, n, n + 1) if x >= 0))
    out.pop("", None)
    return sorted(out, key=_priority)  # stable: literal order kept within each rank


def _priority(token: str) -> int:
    """Walk order (what a budget-cut walk reaches first): brackets, whole literals (quoted strings
    and keys), numbers and words, separators, then a bare quote and string contents, which open
    every string the grammar allows and are the most expensive to walk."""
    if token in ("{", "}", "[", "]"):
        return 0
    if len(token) > 1 and token.startswith('"'):
        return 1
    if token in ("true", "false", "null") or token[:1].isdigit() or token[:1] == "-" and token[1:2].isdigit():
        return 2
    if token in (",", ":", ", ", ": "):
        return 3
    return 4


def render(value: Any, item_sep: str = ", ", key_sep: str = ": ", escape_del: bool = False) -> str:
    """`json.dumps(value, ensure_ascii=False, separators=(item_sep, key_sep))`, with exact
    numbers spelt by `spell_number` (no exponent). `escape_del`: U+007F in string values (not
    keys) spelt `\u007f`, the spelling llguidance's own string lexeme admits (deviation D1)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if is_number(value):
        return spell_number(value)
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text.replace("\x7f", "\\u007f") if escape_del else text
    if isinstance(value, list):
        return "[" + item_sep.join(render(v, item_sep, key_sep, escape_del) for v in value) + "]"
    return "{" + item_sep.join(json.dumps(k, ensure_ascii=False) + key_sep + render(v, item_sep, key_sep, escape_del)
                               for k, v in value.items()) + "}"


def candidate_values(schema: Any, limit: int = 3000) -> list[Any]:
    """Canonical instance values from the alphabet's literals: scalars, then arrays and objects
    of one or two of them (object keys in schema order, the syntax policy's order)."""
    strings, numbers, _ = literals(schema)
    scalars: list[Any] = [None, True, False, 0, 1, -1, "", "a", "\u00e9", "\U0001f600", "\x7f", "\n"]
    for v in numbers[:MAX_NUMBERS]:
        scalars.extend(number_neighbours(v))
    for s in strings[:MAX_STRINGS]:
        scalars.extend(string_neighbours(s))
    atoms = list({render(v): v for v in reversed(scalars)}.values())[::-1]
    out: list[Any] = list(atoms)
    out.append([])
    out.append({})
    out.extend([a] for a in atoms)
    out.extend([a, b] for a in atoms[:40] for b in atoms[:40])
    keys = strings[:MAX_STRINGS] or ["a"]
    out.extend({k: a} for k in keys for a in atoms)
    out.extend({k1: a, k2: b} for i, k1 in enumerate(keys[:6]) for k2 in keys[i + 1:6]
               for a in atoms[:16] for b in atoms[:16])
    out.extend({k: [a]} for k in keys[:6] for a in atoms[:16])
    out.extend([{k: a}] for k in keys[:6] for a in atoms[:16])
    return out[:limit]
