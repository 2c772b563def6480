"""Listed numbers at one value position as one terminal: a trie of their canonical spellings.

One alternative per listed number made the grammar's first Earley row as wide as the enum
(llguidance gives up past 2,000 items) and its lexer hold one lexeme per number, so an `enum` of
thousands of numbers was refused after seconds of native work while the same enum of strings
compiled. A single regex over all of them is one lexeme: the trie of their canonical texts (the
shortest exact decimal, `_base`), sub-tries that render alike merged into one character class,
each text followed by the policy's other spellings of the same value (an integer's `.0`, `.00`,
...; a fraction's trailing zeros). Linear in the total length of the texts; iterative, so a long
literal cannot exhaust Python's stack. Once a grammar has spelled `SPELLED_MEMBERS` members of
listed arrays and objects one lexeme each, the scalar members of longer ones are written in runs
of `LITERAL_RUN` per terminal for the same reason (`scalar_literal`), and more than a few hundred
listed numbers beside number rules become one automaton (`listed_numbers_dfa`).
"""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Iterable

#: what may follow an integer's text (`1`, `1.0`, `1.00`, ...) and a fraction's (`1.5`, `1.50`, ...)
_INT_TAIL = r"\.0+"
_FRACTION_TAIL = "0+"
_SPECIAL = frozenset(".-")


def _base(value: int | float | Decimal) -> tuple[str, bool]:
    """(the shortest exact decimal text of `value`, whether it is an integer): no exponent, no
    `-0`, no trailing fraction zeros (`schemac.numbers.exact.exact` reads floats exactly)."""
    from schemac.numbers.exact import exact

    d = exact(value)
    if isinstance(d, int) or d == d.to_integral_value():
        return str(int(d)), True
    return format(d.normalize(), "f"), False


#: scalar members of a listed array or object written as one terminal (`lark_listed.literal_value`)
LITERAL_RUN = 256
#: members of listed arrays and objects one grammar spells as their own lexemes (exact and
#: complete beside any other alternative) before longer values go in runs (llguidance's symbol limit)
SPELLED_MEMBERS = 8192


def scalar_literal(value: Any) -> str | None:
    """A Lark terminal expression for the policy spellings of a scalar JSON value (a string or
    keyword literal; a number's trie regex), None for arrays and objects."""
    from schemac.emit.json_path import literal

    if value is None or isinstance(value, (bool, str)):
        return literal(json.dumps(value, ensure_ascii=False))
    if isinstance(value, (int, float, Decimal)):
        return "/" + listed_numbers_regex([value]) + "/"
    return None


def _trie(values: Iterable[Any], step: Any) -> dict[str, Any]:
    """The trie of the values' `_base` texts, ends marked "int" or "frac"; `step()` per value."""
    root: dict[str, Any] = {}
    for v in values:
        if step is not None:
            step()
        text, integer = _base(v)
        node = root
        for ch in text:
            node = node.setdefault(ch, {})
        node["int" if integer else "frac"] = True
    return root


def listed_numbers_regex(values: Iterable[Any], step: Any = None) -> str:
    """A regex (llguidance syntax, unanchored) for every policy spelling of exactly `values`
    (JSON numbers, at least one); `step()` is called once per value (the caller's budget)."""
    return _render(_trie(values, step))


#: the tails as automaton states beside the trie's: after an integer's `.`, in its zeros, in a
#: fraction's trailing zeros
_DOT, _INT_ZEROS, _FRACTION_ZEROS = -1, -2, -3


def listed_numbers_dfa(values: Iterable[Any], max_states: int, step: Any = None) -> Any:
    """The minimal automaton (`schemac.numbers.dfa.Dfa`) of the same spellings as
    `listed_numbers_regex`, so many listed numbers join other numbers of their position in one
    automaton (`lark_numbers.union_expr`). The trie with its tails is a nondeterministic
    automaton where a tail and a child share a character (`1.5` and `1.501` both go on `0`);
    the subset construction makes it deterministic. Raises `TooLarge` past `max_states`."""
    from schemac.numbers.dfa import reachable, minimal

    nodes: list[dict[str, Any]] = []
    index: dict[int, int] = {}
    stack = [_trie(values, step)]
    while stack:
        node = stack.pop()
        index[id(node)] = len(nodes)
        nodes.append(node)
        stack.extend(v for k, v in node.items() if k not in ("int", "frac"))

    def moves(state: int, ch: str) -> list[int]:
        if state == _DOT:
            return [_INT_ZEROS] if ch == "0" else []
        if state in (_INT_ZEROS, _FRACTION_ZEROS):
            return [state] if ch == "0" else []
        node = nodes[state]
        out = [index[id(node[ch])]] if ch in node and ch not in ("int", "frac") else []
        if ch == "." and node.get("int"):
            out.append(_DOT)
        if ch == "0" and node.get("frac"):
            out.append(_FRACTION_ZEROS)
        return out

    def go(cur: tuple, ch: str) -> tuple | None:
        if step is not None:
            step()
        nxt = tuple(sorted({t for s in cur for t in moves(s, ch)}))
        return nxt or None

    def accepts(cur: tuple) -> bool:
        return any(s in (_INT_ZEROS, _FRACTION_ZEROS) or (s >= 0 and ("int" in nodes[s] or "frac" in nodes[s]))
                   for s in cur)

    return minimal(reachable((0,), go, accepts, max_states))


def _render(root: dict[str, Any]) -> str:
    """The trie as a regex: post-order and iterative; children whose regexes are equal share
    one character class (`[0-9]` where ten digits lead to the same rest)."""
    done: dict[int, str] = {}
    stack: list[tuple[dict[str, Any], bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        kids = [(k, v) for k, v in node.items() if k not in ("int", "frac")]
        if not expanded:
            stack.append((node, True))
            stack.extend((child, False) for _, child in kids)
            continue
        by_rest: dict[str, list[str]] = {}
        for ch, child in kids:
            by_rest.setdefault(done.pop(id(child)), []).append(ch)
        alts = [_chars(chars) + rest for rest, chars in sorted(by_rest.items())]
        optional = False
        if node.get("int"):
            alts.append(_INT_TAIL)
            optional = True
        if node.get("frac"):
            alts.append(_FRACTION_TAIL)
            optional = True
        if not alts:
            body = ""
        elif len(alts) == 1 and not optional:
            body = alts[0]
        else:
            body = "(?:" + "|".join(alts) + ")" + ("?" if optional else "")
        done[id(node)] = body
    return done[id(root)]


def _chars(chars: list[str]) -> str:
    """One character, or a class of several (`.` and `-` escaped; digits as a range when whole)."""
    if len(chars) == 1:
        return "\\" + chars[0] if chars[0] in _SPECIAL else chars[0]
    ordered = sorted(chars)
    if all(c.isdigit() for c in ordered) and len(ordered) == int(ordered[-1]) - int(ordered[0]) + 1:
        return f"[{ordered[0]}-{ordered[-1]}]"
    return "[" + "".join("\\" + c if c in _SPECIAL else c for c in ordered) + "]"
