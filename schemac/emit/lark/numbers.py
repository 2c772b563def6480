"""Numbers with a value constraint, written as one exact Lark terminal (or right-linear rules).

llguidance's own numeric ranges are inexact (`exclusiveMinimum: 0, maximum: 0.5` admits `0`,
bounds past 2^53 are doubles), so a number or integer with bounds or `multipleOf` never goes to
its JSON compiler: `schemac.numbers.exact.number_regex` builds the lexeme from the exact decimal bounds,
or says it cannot (then `schemac.numbers.exact.number_rules` writes the same automaton as rules, or the
schema is rejected, never approximated). The lowering's `NOT_MULTIPLE` marker (numbers that are a
multiple of none of its steps, from `not multipleOf` and the non-integer numbers) has no JSON
Schema form at all, so it is only ever written here, as one more reader of the same automaton.

The rules form reads a number one character per lexeme, and llguidance's lexer is greedy: beside
an alternative whose number is one lexeme (a terminal, a listed value, a `%json` number), it
follows that lexeme past the first digit and never comes back, so a number only the rules admit
is refused (`105` for `anyOf: [{multipleOf: 7}, {maximum: 100}]` on integers). So where the
alternatives of one value position mix the two forms, `numbers_apart` writes all their numbers
as one automaton, the union of their sets (`number_atoms`), and the branches without numbers.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from schemac.diagnostics import CompileError, reject
from schemac.emit.lark.merge import (ALL_TYPES, NUMBER_KEYS, Unwritable, conjuncts, meet, number_keywords,
                                     types_of)
from schemac.emit.lark.rulebook import RuleBook
from schemac.lower.support.marks import NOT_MULTIPLE
from schemac.schema import Schema, all_of


#: keyword -> number_regex's parameter name
_PARAMS = {"minimum": "minimum", "maximum": "maximum", "exclusiveMinimum": "exclusive_minimum",
           "exclusiveMaximum": "exclusive_maximum", "multipleOf": "multiple_of", NOT_MULTIPLE: "not_multiple_of"}
Typed = tuple[str, Any]


def constrained(node: dict[str, Any]) -> bool:
    """Whether `node` constrains the value of numbers it admits (its types allow numbers)."""
    if NUMBER_KEYS.isdisjoint(node):
        return False
    t = node.get("type")
    names = [t] if isinstance(t, str) else t if isinstance(t, list) else ["number"]
    return "number" in names or "integer" in names


def _typed(value: Any) -> Typed:
    """A cache key part that keeps 1, 1.0 and Decimal("1") apart (their spellings differ); a
    list (the `NOT_MULTIPLE` steps) becomes a tuple of such parts."""
    if isinstance(value, list):
        return ("list", tuple(_typed(v) for v in value))
    return (type(value).__name__, value)


def _untyped(typed: Typed) -> Any:
    kind, value = typed
    return [v for _, v in value] if kind == "list" else value


def _params(node: dict[str, Any]) -> tuple[tuple[str, Typed], ...]:
    return tuple(sorted((_PARAMS[k], _typed(v)) for k, v in node.items() if k in _PARAMS))


@lru_cache(maxsize=1024)
def _regex(integer: bool, bounds: tuple[tuple[str, Typed], ...]) -> str | None:
    """`number_regex`, cached: the automaton is costly and schemas repeat their bounds."""
    from schemac.numbers.exact import number_regex

    return number_regex(integer=integer, **{name: _untyped(value) for name, value in bounds})


@lru_cache(maxsize=256)
def _split(integer: bool, bounds: tuple[tuple[str, Typed], ...]) -> tuple[str, str] | str | None:
    """`split_regexes`, cached like `_regex`."""
    from schemac.numbers.exact import split_regexes

    return split_regexes(integer=integer, **{name: _untyped(value) for name, value in bounds})


def _slashed(regex: str) -> str:
    """A regex as a Lark terminal literal."""
    return "/" + regex.replace("/", "\\/") + "/"


def _too_large(pointer: str) -> Exception:
    return reject("grammar-error", pointer,
                  "no exact number lexeme exists for these numeric constraints (its automaton passes the regex "
                  "bounds, and as rules it passes the depth llguidance's compiler can recurse through without "
                  "overflowing its stack), and llguidance's own is not exact",
                  hint="simplify `multipleOf`/`not multipleOf` (a step with a factor prime to 10 costs that many states)")


def number_expr(writer: RuleBook, node: dict[str, Any], integer: bool, pointer: str) -> str | None:
    """A Lark expression (a terminal or rule name of `writer`) for the numbers `node`'s numeric
    keywords admit, or None when no number satisfies them.

    Why two forms: a residue automaton's regex grows exponentially with the step's factor prime
    to 10 (`multipleOf: 7`, `not multipleOf: 7`), while `number_rules` writes it as right-linear
    rules that grow with the automaton; the terminal is kept where it fits (one lexeme is cheaper
    for llguidance than a rule per digit)."""
    from schemac.numbers.exact import EMPTY, number_rules

    params = _params(node)
    body = _regex(integer, params)
    if body == EMPTY:
        return None
    if body is not None:
        return writer.terminal("N", _slashed(body))
    parts = _split(integer, params)
    if parts == EMPTY:
        return None
    if parts is not None:  # bounds too long for the joint automaton, met with the step's terminal
        return writer.terminal("N", " & ".join(f"({_slashed(p)})" for p in parts))
    key = "r" + repr((integer, params))
    if key not in writer.memo:
        name = writer.name("num")
        rules = number_rules(name, integer=integer, **{k: _untyped(value) for k, value in params})
        if rules is None:  # past the state or depth bound (an empty language has a regex: EMPTY)
            raise _too_large(pointer)
        writer.rules.extend(rules.rstrip("\n").split("\n"))
        writer.memo[key] = name
    return writer.memo[key]


# -- all the numbers of one value position as one automaton ----------------------------------

#: a number atom: `ALL` (every JSON number, any spelling), `INTS` (the policy's integers),
#: ("value", Typed) (one listed number), ("values", (Typed, ...)) (more than `MAX_ATOMS` listed
#: numbers, one trie automaton) or ("range", integer, params) (numeric keywords)
Atom = tuple[Any, ...]
ALL: Atom = ("all",)
INTS: Atom = ("ints",)
#: the types a branch keeps once its numbers are written apart
NON_NUMBER = ["null", "boolean", "object", "array", "string"]
#: past this anyOf nesting or this many atoms a position's numbers are not gathered (left as written)
MAX_NESTING = 16
MAX_ATOMS = 256
#: steps paid per listed number for building their automaton (the subset construction visits
#: each trie state once per character of the alphabet)
VALUES_STEPS_PER_VALUE = 16


def number_atoms(writer: RuleBook, node: Schema, depth: int = 0) -> tuple[list[Atom], bool] | None:
    """The numbers `node` admits, exactly, as a union of atoms, and whether it may admit a value
    that is no number (an over-approximation); None where they are not known (a `oneOf`, deep
    nesting). Reads only what binds numbers (types, numeric keywords, listed values, anyOf), so
    it never merges objects."""
    if not isinstance(node, dict):
        return ([ALL], True) if node is True else ([], False)
    parts: list[Schema] = []
    try:
        conjuncts(node, writer.defs, "", 0, parts)
    except (Unwritable, KeyError):
        return None
    if False in parts:
        return [], False
    plain = [p for p in parts if isinstance(p, dict) and not {"anyOf", "oneOf"} & p.keys()]
    types = list(ALL_TYPES)
    for p in plain:
        types = meet(types, types_of(p))
    numbers = [t for t in types if t in ("number", "integer")]
    if not numbers:
        return [], bool(types)
    for j, p in enumerate(parts):
        if isinstance(p, dict) and "oneOf" in p:
            return None
        if isinstance(p, dict) and "anyOf" in p:
            return _distributed(writer, parts, j, depth)
    listed = next((p for p in plain if "const" in p or "enum" in p), None)
    if listed is not None:
        return _listed_atoms(writer, parts, [listed["const"]] if "const" in listed else list(listed["enum"]))
    keys = number_keywords(plain)
    integer = "number" not in numbers
    others = len(types) > len(numbers)
    if not keys:
        return [INTS if integer else ALL], others
    return [("range", integer, _params(keys))], others


def _distributed(writer: RuleBook, parts: list[Schema], j: int, depth: int) -> tuple[list[Atom], bool] | None:
    """`number_atoms` of the conjunction `parts` whose j-th part is an anyOf: the union over its
    branches, each conjoined with the other parts (those the screen proves empty left out)."""
    if depth >= MAX_NESTING:
        return None
    atoms: list[Atom] = []
    others = False
    for branch in parts[j]["anyOf"]:  # type: ignore[index]
        combo = parts[:j] + [branch] + parts[j + 1:]
        if writer.screen.dead(combo):
            continue
        got = number_atoms(writer, {"allOf": combo}, depth + 1)
        if got is None:
            return None
        atoms += [a for a in got[0] if a not in atoms]
        others = others or got[1]
        if len(atoms) > MAX_ATOMS:
            return None
    return atoms, others


def _listed_atoms(writer: RuleBook, parts: list[Schema], listed: list[Any]) -> tuple[list[Atom], bool]:
    """The listed values that satisfy every part (the final validator decides, as for `lark_listed.listed`)."""
    from schemac.lower.support.scalar_marks import lowered_validator
    from schemac.numbers.exact import is_number

    if not any(map(is_number, listed)):
        return [], True
    whole: dict[str, Any] = {"allOf": parts}
    defs = writer.defs_of(whole)  # only those it reaches: the marker rewrite walks what it is given
    check = lowered_validator({**whole, "$defs": defs} if defs else whole)
    kept = []
    for v in listed:
        writer.budget.step("")
        if check.is_valid(v):
            kept.append(v)
    atoms = list(dict.fromkeys(("value", _typed(v)) for v in kept if is_number(v)))
    if len(atoms) > MAX_ATOMS:  # one automaton of them all (`listed_numbers_dfa`): its states are paid here
        writer.budget.step("", VALUES_STEPS_PER_VALUE * len(atoms))
        atoms = [("values", tuple(a[1] for a in atoms))]
    return atoms, any(not is_number(v) for v in kept)


def numbers_apart(writer: RuleBook, branches: list[Schema], pointer: str) -> tuple[str, list[tuple[int, Schema]]] | None:
    """Where the numbers of `branches` (alternatives at one value position) mix the rules form
    with one-lexeme forms: (one expression for all their numbers, and (index, the branch without
    its numbers) for each branch that may admit something else). None where the branches are
    written as they stand: their forms do not mix; or some branch admits every number (its
    lexeme reads every number the others admit, to the same continuation); or a branch's
    numbers are not known (a known gap); or an atom has no automaton (the writer rejects it)."""
    from schemac.numbers.exact import EMPTY

    gathered: list[tuple[list[Atom], bool]] = []
    for b in branches:
        writer.budget.step(pointer)
        got = number_atoms(writer, b)
        if got is None or ALL in got[0]:
            return None
        gathered.append(got)
    live: list[Atom] = []
    rules: list[Atom] = []
    for a in dict.fromkeys(a for atoms, _ in gathered for a in atoms):  # the writer's order
        body = _regex(a[1], a[2]) if a[0] == "range" else ""
        if body == EMPTY:
            continue
        if body is None:
            if not _has_rules(a):
                return None
            rules.append(a)
        live.append(a)
    if not rules or len(rules) == len(live):
        return None
    rests = [(i, all_of([b, {"type": NON_NUMBER}], flatten=True)) for i, (b, (_, others)) in enumerate(zip(branches, gathered)) if others]
    return union_expr(writer, live, rules, pointer), rests


@lru_cache(maxsize=256)
def _has_rules(atom: Atom) -> bool:
    """Whether the atom's automaton exists and fits the rules form (else the writer rejects it);
    cached: every anyOf above a number asks again, and the depth walk is linear in the states."""
    from schemac.numbers.exact import fits_rules
    from schemac.numbers.dfa import TooLarge

    try:
        return fits_rules(_atom_dfa(atom, ""))
    except (TooLarge, CompileError, ValueError):
        return False


def union_expr(writer: RuleBook, atoms: list[Atom], rules: list[Atom], pointer: str) -> str:
    """One Lark expression for the union of the atoms' numbers (no `ALL` among them; `rules`
    those whose own regex is too long): one automaton, as a terminal where its regex fits (tried
    only where the union is smaller than each of `rules`: a residue a branch carries makes the
    union's regex as long as its own), else as rules; past the union's bounds each atom as its
    own rules (rules beside rules are exact: every lexeme is one character). Raises a rejection
    where an atom has no automaton, or its rules pass llguidance's depth."""
    from schemac.numbers.exact import MAX_UNION_STATES
    from schemac.numbers.dfa import TooLarge, minimal, union

    key = "u" + repr(sorted(map(repr, atoms)))
    if key in writer.memo:
        return str(writer.memo[key])
    dfas = [_atom_dfa(a, pointer) for a in atoms]  # each accepts something: so does their union
    smallest = min(len(d.edges) for a, d in zip(atoms, dfas) if a in rules)
    try:
        whole = minimal(union(dfas, MAX_UNION_STATES))
        expr = _dfa_expr(writer, whole, len(whole.edges) < smallest)
    except TooLarge:
        expr = None
    if expr is None:
        names = [_rules(writer, d) for d in dfas]
        if any(n is None for n in names):
            raise _too_large(pointer)
        expr = " | ".join(dict.fromkeys(n for n in names if n is not None))
    writer.memo[key] = expr
    return expr


def _atom_dfa(atom: Atom, pointer: str) -> Any:
    """The automaton of one atom's policy spellings (listed values: every spelling of the value)."""
    from schemac.numbers.exact import number_dfa, spellings_dfa
    from schemac.numbers.dfa import TooLarge

    if atom[0] == "value":
        return spellings_dfa([_untyped(atom[1])], integer=False)
    if atom[0] == "values":
        from schemac.emit.lark.listed_numbers import listed_numbers_dfa
        from schemac.numbers.exact import MAX_STATES

        try:
            return listed_numbers_dfa([_untyped(t) for t in atom[1]], MAX_STATES)
        except TooLarge:
            raise _too_large(pointer) from None
    try:
        if atom[0] == "ints":
            return number_dfa(True)
        return number_dfa(atom[1], **{k: _untyped(v) for k, v in atom[2]})
    except TooLarge:
        raise _too_large(pointer) from None


def _dfa_expr(writer: RuleBook, dfa: Any, try_regex: bool) -> str | None:
    """A terminal for `dfa` where its regex is tried and fits, else its rules; None when neither."""
    from schemac.numbers.exact import MAX_REGEX_CHARS, MAX_REGEX_STATES
    from schemac.numbers.dfa import TooLarge
    from schemac.numbers.regex import dfa_regex

    if try_regex and len(dfa.edges) <= MAX_REGEX_STATES:
        try:
            regex = dfa_regex(dfa, MAX_REGEX_CHARS)
        except TooLarge:
            regex = None
        if regex is not None:
            return writer.terminal("N", _slashed(regex))
    return _rules(writer, dfa)


def _rules(writer: RuleBook, dfa: Any) -> str | None:
    """`dfa` as number rules of `writer` (a fresh rule name), or None past llguidance's depth."""
    from schemac.numbers.exact import dfa_rules

    name = writer.name("num")
    rules = dfa_rules(name, dfa)
    if rules is None:
        return None
    writer.rules.extend(rules.rstrip("\n").split("\n"))
    return name
