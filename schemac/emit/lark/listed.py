"""Listed values (`const`/`enum`) in Lark: each value written exactly, in its policy spellings.

`listed` keeps the listed values a node admits and writes them as alternatives, the numbers among
them as one trie terminal (`listed_numbers`); `literal_value` writes one JSON value. Both pay a
budget step per value and member.
"""
from __future__ import annotations

from typing import Any

from schemac.emit.json_path import key_literal
from schemac.emit.lark.listed_numbers import LITERAL_RUN, SPELLED_MEMBERS, listed_numbers_regex, scalar_literal
from schemac.emit.lark.rulebook import RuleBook
from schemac.numbers.exact import is_number



def reorderable(value: Any) -> bool:
    """An object whose members may come in another order (two or more)."""
    return isinstance(value, dict) and len(value) > 1


def listed(w: RuleBook, node: dict[str, Any], whole: dict[str, Any]) -> str | None:
    """A node with `const`/`enum`: exactly the listed values that satisfy all of `node`
    (the final validator decides, on the schema as written, its scalar markers such as
    `NOT_MULTIPLE` rewritten into the standard keywords they stand for), each written exactly;
    the listed numbers together as one terminal (`listed_numbers`), whatever their count.
    Every value checked and written is a step of the budget."""
    from schemac.lower.support.scalar_marks import lowered_validator

    values = [whole["const"]] if "const" in whole else list(whole["enum"])
    step = lambda: w.budget.step("")  # noqa: E731
    if len(node) == 1 and ("const" in node or "enum" in node):
        kept = values  # a bare list: every member satisfies it (duplicates merge in the trie)
    else:
        defs = w.defs_of(node)  # only those it reaches: the rewrite walks what it is given
        check = lowered_validator({**node, "$defs": defs} if defs else node)
        kept = []
        for v in values:
            step()
            if check.is_valid(v):
                kept.append(v)
    numbers = [v for v in kept if is_number(v)]
    alts = [w.terminal("N", "/" + listed_numbers_regex(numbers, step) + "/")] if numbers else []
    for v in kept:
        if not is_number(v):
            step()
            r = literal_value(w, v, "")
            if r is not None:
                alts.append(r)
    return " | ".join(dict.fromkeys(alts)) if alts else None


def literal_value(w: RuleBook, value: Any, pointer: str) -> str | None:
    """A Lark expression for exactly the policy spellings of one JSON value: strings and
    keys canonical, numbers every policy spelling of that exact value (`1`, `1.0`, ...),
    members in the value's own order, or under `key_order="any"` an object as the object
    schema of exactly its members (each key required, its value that const, no other key),
    which the any-order writer takes in every order. Each scalar member (and key) is its own
    lexeme, the ones any other alternative at the position uses: a lexeme spanning several
    (`"a": 1`) takes llguidance's greedy lexer past a shorter one that another alternative
    continues differently (`"a": "x"`), refusing valid values. Once the grammar has spelled
    `SPELLED_MEMBERS` so, a longer value's scalar members go in runs of up to `LITERAL_RUN`
    per terminal, so listed arrays and objects of any size within the loader's limits hold a
    bounded number of lexemes (llguidance panics past 65,535 symbols): exact, complete where
    no other alternative shares their position. Each member is a step of the budget."""
    scalar = scalar_literal(value)
    if scalar is not None:
        return scalar if not is_number(value) else w.terminal("N", scalar)
    if w.key_order == "any" and reorderable(value):
        return w.value({"type": "object", "properties": {k: {"const": v} for k, v in value.items()},
                    "required": list(value), "additionalProperties": False}, pointer)
    members = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
    runs = w.spelled + len(members) > SPELLED_MEMBERS
    w.spelled += 0 if runs else len(members)
    parts: list[str] = []
    run: list[str] = []
    for key, member in members:
        w.budget.step(pointer)
        expr = scalar_literal(member) if runs else None
        if expr is not None:
            run.append(expr if key is None else f"{key_literal(key)} {w.ksep} {expr}")
        else:
            if run:
                parts.append(w.terminal("L", f" {w.sep} ".join(run)))
                run = []
            part = literal_value(w, member, pointer)
            if part is None:
                return None
            parts.append(part if key is None else f"{key_literal(key)} {w.ksep} {part}")
        if len(run) == LITERAL_RUN:
            parts.append(w.terminal("L", f" {w.sep} ".join(run)))
            run = []
    if run:
        parts.append(w.terminal("L", f" {w.sep} ".join(run)))
    opener, closer = ('"{"', '"}"') if isinstance(value, dict) else ('"["', '"]"')
    return " ".join([opener, f" {w.sep} ".join(parts), closer]) if parts else f"{opener} {closer}"
