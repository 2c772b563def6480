"""Exact numbers: schema literals as exact values, and number lexemes built from them.

Why: a double cannot hold every JSON number (`9007199254740995`, `0.1`), and llguidance 1.9.1's
own numeric bounds are not exact (`exclusiveMinimum: 0` admits `0`; see the deviations note and
tests/integrations/test_deviation_numbers.py). So every comparison schemac makes reads a literal through
`exact`, and the grammar's number lexemes come from `number_regex` (a regex) or `number_rules`
(Lark rules, for steps whose regex is too long), both written from one automaton over the
decimal digits of the spelling (bounds, `multipleOf`, and steps the number must NOT be a
multiple of: the lowering's `NOT_MULTIPLE`), or for bounds alone from the bounds' digits
(`schemac.numbers.bounds`: counted digit runs, so `maximum: 1e308` stays small), never from
llguidance's numeric keywords.

Value convention: an `int` is itself; a `float` stands for the decimal number its shortest repr
spells (the loader keeps only floats for which that is the literal's own value); a `Decimal` is
itself.

Spelling policy of the lexemes (what the grammar admits):
- integers: `-?(0|[1-9][0-9]*)`, never `-0`;
- numbers under a value constraint: `-?(0|[1-9][0-9]*)(\\.[0-9]+)?`: any number of fraction
  digits (trailing zeros included), no exponent, never a negative zero (`-0`, `-0.0`);
- numbers under no constraint: the whole JSON number grammar.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from decimal import Decimal
from fractions import Fraction
from typing import Any

#: the full JSON number grammar, for numbers no value keyword constrains
JSON_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+\-]?[0-9]+)?"
#: the policy's integers
INTEGER = r"0|-?[1-9][0-9]*"
#: default bounds on the work and the text of one lexeme
MAX_STATES = 1 << 15
MAX_REGEX_CHARS = 16384
#: automata past this many states are written as rules without trying a regex: state
#: elimination is quadratic in the states, and no such regex stayed under `MAX_REGEX_CHARS`
#: (two 32-digit bounds with fractions make 87 states; a residue mod 7 alone passes the chars)
MAX_REGEX_STATES = 512
#: the bounds' form past this is refused: its long forms are one alternative per zero of a bound
#: like `exclusiveMinimum: 1e308`, whose derivatives (about 45,000 expressions along one
#: 300-digit path) exhaust the expressions a long-lived llguidance lexer may build ("too many
#: expressions constructed") where the same grammar reads many texts; 1.79769e308 takes 230 chars
MAX_BOUNDS_CHARS = 4096
#: bounds spelling more digits than this are refused up front: the range regex grows with the
#: square of the digit count (about 7 KB at 20 digits)
MAX_BOUND_DIGITS = 32


def exact(x: Any) -> int | Decimal:
    """The exact value of a schema number: ints as they are, a float as the decimal its
    shortest repr spells, a Decimal as it is. Raises TypeError for bool and non-numbers and
    ValueError for non-finite values."""
    if isinstance(x, bool):
        raise TypeError("a boolean is not a JSON number")
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{x} is not a JSON number")
        return Decimal(repr(x))
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ValueError(f"{x} is not a JSON number")
        return x
    raise TypeError(f"{type(x).__name__} is not a JSON number")


def fraction(x: Any) -> Fraction:
    """`exact(x)` as a Fraction, for arithmetic that must stay exact (division, remainders)."""
    return Fraction(exact(x))


def is_number(x: Any) -> bool:
    """A JSON number value (not a boolean), of any exact or float representation."""
    return isinstance(x, (int, float, Decimal)) and not isinstance(x, bool)


def is_integral(x: Any) -> bool:
    """Whether the number's exact value is an integer (`1.0` is, `1e400` cannot occur)."""
    return fraction(x).denominator == 1


def is_multiple(value: Any, step: Any) -> bool:
    """Whether `value` is an integer multiple of `step` (> 0), exactly."""
    return (fraction(value) / fraction(step)).denominator == 1


def literal_is_exact(text: str) -> bool:
    """Whether the double nearest to the JSON literal `text` has a shortest repr that spells
    the literal's own value (so a float can stand for it, by the value convention)."""
    value = float(text)
    return math.isfinite(value) and Decimal(repr(value)) == Decimal(text)


def _readers(integer: bool, bounds: list[tuple[Fraction, str]], multiple_of: Fraction | None,
             avoid: list[Fraction]) -> list[Any]:
    """The syntax, each bound, and every step at once (one minimal residue automaton:
    `schemac.numbers.residue` says why not a reader per step)."""
    from schemac.numbers.dfa import MAX_SYNTAX_STATES, bound_reader, minimal, policy_reader, product
    from schemac.numbers.residue import dfa_reader, residue_dfa

    syntax = minimal(product([policy_reader(integer)] + [bound_reader(b, rel) for b, rel in bounds], MAX_SYNTAX_STATES))
    readers = [dfa_reader(syntax)]
    if multiple_of is not None or avoid:
        readers.append(dfa_reader(residue_dfa(integer, multiple_of, avoid)))
    return readers


def _avoided(integer: bool, multiple_of: Fraction | None, steps: Any) -> list[Fraction] | None:
    """The steps of `not_multiple_of` that still exclude something, as Fractions; None when
    they exclude every number the other constraints leave (the language is empty).

    Why prune: each step is a residue reader in the product, so redundant ones cost states.
    A multiple of another listed step is implied by it (a multiple of 2k is a multiple of k);
    a step dividing `multiple_of` (or 1, for integers) excludes every admitted number."""
    out: list[Fraction] = []
    for k in steps:
        step = fraction(k)
        if step <= 0:
            raise ValueError(f"a step must be positive, not {k}")
        if (multiple_of is not None and (multiple_of / step).denominator == 1) or (integer and (1 / step).denominator == 1):
            return None
        out.append(step)
    return [k for i, k in enumerate(out)
            if not any((k / o).denominator == 1 and (o != k or j < i) for j, o in enumerate(out) if j != i)]


def _constraints(minimum: Any, maximum: Any, exclusive_minimum: Any, exclusive_maximum: Any) -> list[tuple[Fraction, str]]:
    """The tightest lower and upper bound as (value, relation) pairs."""
    out: list[tuple[Fraction, str]] = []
    lower = [(fraction(v), rel) for v, rel in ((minimum, "ge"), (exclusive_minimum, "gt")) if v is not None]
    upper = [(fraction(v), rel) for v, rel in ((maximum, "le"), (exclusive_maximum, "lt")) if v is not None]
    if lower:  # the larger bound wins; at a tie the exclusive one
        out.append(max(lower, key=lambda b: (b[0], b[1] == "gt")))
    if upper:
        out.append(min(upper, key=lambda b: (b[0], b[1] != "lt")))
    return out


def _positions(x: Fraction) -> int:
    """How many digit positions (integer and fraction) the decimal `x` spells."""
    from schemac.numbers.dfa import decimal_digits

    whole, frac = decimal_digits(abs(x))
    return len(whole) + len(frac)


def _automaton(integer: bool, minimum: Any, maximum: Any, exclusive_minimum: Any, exclusive_maximum: Any,
               multiple_of: Any, not_multiple_of: Any = ()) -> Any:
    """The minimal automaton of the constrained policy spellings; None when nothing constrains
    the value. Raises TooLarge past the digit or state bounds."""
    from schemac.numbers.dfa import TooLarge

    made = _automaton_of(integer, minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of,
                         tuple(not_multiple_of))
    if isinstance(made, TooLarge):
        raise TooLarge(*made.args)  # a fresh one: the cached one would collect every traceback
    return made


@lru_cache(maxsize=256)
def _automaton_of(integer: bool, minimum: Any, maximum: Any, exclusive_minimum: Any, exclusive_maximum: Any,
                  multiple_of: Any, not_multiple_of: tuple[Any, ...]) -> Any:
    """`_automaton`, cached, its TooLarge failure included (returned, not raised): `number_rules`
    reads the automaton `number_regex` just built (and found too large for a regex), a value
    position's union reads it again, and a failure costs the most (it runs to the state bound).
    Equal values make equal automata whatever their type."""
    from schemac.numbers.dfa import TooLarge

    try:
        return _built(integer, minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of, not_multiple_of)
    except TooLarge as exc:
        return exc


def _built(integer: bool, minimum: Any, maximum: Any, exclusive_minimum: Any, exclusive_maximum: Any,
           multiple_of: Any, not_multiple_of: tuple[Any, ...]) -> Any:
    from schemac.numbers.dfa import Dfa, TooLarge, minimal, product

    step = None if multiple_of is None else fraction(multiple_of)
    if step is not None and step <= 0:
        raise ValueError(f"multipleOf must be positive, not {multiple_of}")
    bounds = _constraints(minimum, maximum, exclusive_minimum, exclusive_maximum)
    if step is not None and integer and (1 / step).denominator == 1:
        step = None  # every integer is a multiple of 1/n
    avoid = _avoided(integer, step, not_multiple_of)
    if avoid is None:
        return Dfa(({},), frozenset())
    if not bounds and step is None and not avoid:
        return None
    if any(_positions(b) > MAX_BOUND_DIGITS for b, _ in bounds):
        raise TooLarge(f"a bound spells more than {MAX_BOUND_DIGITS} digits")
    return minimal(product(_readers(integer, bounds, step, avoid), MAX_STATES))


def number_regex(
    *,
    integer: bool,
    minimum: Any = None,
    maximum: Any = None,
    exclusive_minimum: Any = None,
    exclusive_maximum: Any = None,
    multiple_of: Any = None,
    not_multiple_of: Sequence[Any] = (),
    max_chars: int = MAX_REGEX_CHARS,
) -> str | None:
    """A regex body (llguidance/RE2/ECMA syntax, no anchors, no lookaround) matching exactly the
    policy spellings of the numbers (integers when `integer`) that satisfy every given
    constraint. Bounds without a step are written from their digits (`schemac.numbers.bounds`,
    within `MAX_BOUNDS_CHARS`), steps through the automaton. None when no regex within
    `max_chars` (or `MAX_STATES` automaton states, `MAX_BOUND_DIGITS` bound digits beside a
    step) expresses it, and `EMPTY` when no number satisfies them.
    Past the automaton's bounds, at most `MAX_LISTED` bounded multiples are listed one by one.

    Arguments are schema literals (int, float by the value convention, or Decimal);
    `multiple_of` and every step of `not_multiple_of` (numbers that are a multiple of none of
    them) must be > 0. The body may hold a top-level `|`: wrap it in `(?:...)` before
    concatenating it with anything else.
    """
    from schemac.numbers.dfa import TooLarge
    from schemac.numbers.regex import dfa_regex

    if multiple_of is None and not not_multiple_of and any(
            b is not None for b in (minimum, maximum, exclusive_minimum, exclusive_maximum)):
        return _bounds_only(integer, minimum, maximum, exclusive_minimum, exclusive_maximum, max_chars)
    try:
        dfa = _automaton(integer, minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of, not_multiple_of)
        if dfa is None:
            return INTEGER if integer else JSON_NUMBER
        if len(dfa.edges) > MAX_REGEX_STATES:
            raise TooLarge(f"more than {MAX_REGEX_STATES} states for a regex")
        regex = dfa_regex(dfa, max_chars)
    except TooLarge:
        bounds = _constraints(minimum, maximum, exclusive_minimum, exclusive_maximum)
        return _listed_regex(integer, bounds, multiple_of, not_multiple_of, max_chars)
    return EMPTY if regex is None else regex


def _bounds_only(integer: bool, minimum: Any, maximum: Any, exclusive_minimum: Any, exclusive_maximum: Any,
                 max_chars: int) -> str | None:
    """`number_regex` with bounds and no step: written from the bounds' digits
    (`schemac.numbers.bounds`), whose size follows their significant digits, not their magnitude."""
    from schemac.numbers.bounds import bounds_regex

    bounds = _constraints(minimum, maximum, exclusive_minimum, exclusive_maximum)
    lower = next((b for b in bounds if b[1] in ("ge", "gt")), None)
    upper = next((b for b in bounds if b[1] in ("le", "lt")), None)
    regex = bounds_regex(lower, upper, integer)
    if len(regex) > min(max_chars, MAX_BOUNDS_CHARS):
        return None
    return regex or EMPTY


def split_regexes(*, integer: bool, minimum: Any = None, maximum: Any = None, exclusive_minimum: Any = None,
                  exclusive_maximum: Any = None, multiple_of: Any = None,
                  not_multiple_of: Sequence[Any] = ()) -> tuple[str, str] | str | None:
    """For bounds with a `multiple_of` step (and no step to avoid) whose joint regex does not
    exist: (the bounds' regex, the step's regex), whose intersection is the set, so the writer can
    meet them as terminals; `EMPTY` when no multiple lies within the bounds; None otherwise.

    Why: the joint automaton counts every integer digit of a bound (`maximum: 1e308` with
    `multipleOf: 0.01` passes `MAX_BOUND_DIGITS`), each part alone stays small."""
    bounds = _constraints(minimum, maximum, exclusive_minimum, exclusive_maximum)
    if multiple_of is None or not_multiple_of or not bounds:
        return None
    step = fraction(multiple_of)
    unit = Fraction(step.numerator) if integer else step  # the integer multiples of p/q: those of p
    lows = [b for b in bounds if b[1] in ("ge", "gt")]
    highs = [b for b in bounds if b[1] in ("le", "lt")]
    if lows and highs:
        (lo, lo_rel), (hi, hi_rel) = lows[0], highs[0]
        first, last = math.ceil(lo / unit), math.floor(hi / unit)
        first += lo_rel == "gt" and first * unit == lo
        last -= hi_rel == "lt" and last * unit == hi
        if first > last:
            return EMPTY
    ranged = number_regex(integer=integer, minimum=minimum, maximum=maximum, exclusive_minimum=exclusive_minimum,
                          exclusive_maximum=exclusive_maximum)
    stepped = number_regex(integer=integer, multiple_of=multiple_of)
    if ranged is None or stepped is None:
        return None
    return ranged, stepped


#: a bounded set of multiples with at most this many members may be written member by member
MAX_LISTED = 256


def _listed_regex(integer: bool, bounds: list[tuple[Fraction, str]], multiple_of: Any, not_multiple_of: Any,
                  max_chars: int) -> str | None:
    """The spellings of each admitted number, one alternative per number, when they are few:
    integers or multiples of `multiple_of` between a lower and an upper bound. None otherwise.

    Why: the automaton tracks residues of every step at once, so large steps (`multipleOf: 420`
    beside `not multipleOf: 9`) pass `MAX_STATES` even when a range leaves a handful of values."""
    values = _listed_values(integer, bounds, multiple_of, not_multiple_of)
    if values is None:
        return None
    regex = "|".join(_spellings(v, integer) for v in values)
    if len(regex) > max_chars:
        return None
    return regex or EMPTY


def _listed_values(integer: bool, bounds: list[tuple[Fraction, str]], multiple_of: Any,
                   not_multiple_of: Any) -> list[Fraction] | None:
    """The admitted numbers of `_listed_regex`, at most `MAX_LISTED`; None when unbounded or more."""
    unit = Fraction(1) if integer else None
    if multiple_of is not None:
        m = fraction(multiple_of)  # the integer multiples of p/q (in lowest terms): those of p
        unit = Fraction(m.numerator) if integer else m
    lows = [b for b in bounds if b[1] in ("ge", "gt")]
    highs = [b for b in bounds if b[1] in ("le", "lt")]
    if unit is None or not lows or not highs:
        return None
    (lo, lo_rel), (hi, hi_rel) = lows[0], highs[0]
    first, last = math.ceil(lo / unit), math.floor(hi / unit)
    first += lo_rel == "gt" and first * unit == lo
    last -= hi_rel == "lt" and last * unit == hi
    if last - first + 1 > MAX_LISTED:
        return None
    avoid = [fraction(k) for k in not_multiple_of]
    return [n * unit for n in range(first, last + 1) if not any((n * unit / k).denominator == 1 for k in avoid)]


def _spellings(value: Fraction, integer: bool) -> str:
    """A regex for the policy spellings of one decimal `value`: `7`, or for numbers `7`, `7.0`,
    `7.00`...; a fraction with any number of trailing zeros; never a negative zero."""
    from schemac.numbers.dfa import decimal_digits

    whole, frac = decimal_digits(abs(value))
    sign = "-" if value < 0 else ""
    if not frac:
        return sign + (whole or "0") + ("" if integer else r"(?:\.00*)?")
    return sign + (whole or "0") + r"\." + frac + "0*"


def number_rules(
    name: str,
    *,
    integer: bool,
    minimum: Any = None,
    maximum: Any = None,
    exclusive_minimum: Any = None,
    exclusive_maximum: Any = None,
    multiple_of: Any = None,
    not_multiple_of: Sequence[Any] = (),
) -> str | None:
    """Lark rules defining `name` as the same spellings `number_regex` describes, written as a
    right-linear grammar (one rule per automaton state, one single-character terminal per step).

    Why: a regex for a residue automaton grows exponentially with the step's factor prime to 10
    (`multipleOf: 7` unbounded passes 16 KB), while these rules grow linearly with the automaton.
    None when the automaton passes `MAX_STATES` states, when llguidance would recurse past
    `MAX_RULE_DEPTH` rules compiling them, or when no number satisfies the constraints;
    with no value constraint at all, the policy's integers or all JSON numbers as one terminal.
    Rule names are `name` and `name_<state>`; `name` must be a lowercase Lark rule name.
    """
    from schemac.numbers.dfa import TooLarge

    try:
        dfa = _automaton(integer, minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of, not_multiple_of)
    except TooLarge:
        return None
    if dfa is None:
        return f"{name}: /{INTEGER if integer else JSON_NUMBER}/\n"
    return dfa_rules(name, dfa)


def dfa_rules(name: str, dfa: Any) -> str | None:
    """`number_rules`' form of any number automaton `dfa`: rules defining `name`, one per state,
    one single-character terminal per step. None when it accepts nothing or when llguidance
    would recurse past `MAX_RULE_DEPTH` rules compiling them."""
    from schemac.numbers.regex import char_class

    if not dfa.accepting or not fits_rules(dfa):
        return None
    lines = [f"{name}: {name}_0"]
    for s, out in enumerate(dfa.edges):
        if not out:
            continue  # a final state: reached only through the one-character alternatives
        options = []
        for t, chars in _targets(out):
            term = "/" + char_class(chars) + "/"
            if dfa.edges[t]:
                options.append(f"{term} {name}_{t}")
            if t in dfa.accepting:
                options.append(term)
        lines.append(f"{name}_{s}: " + " | ".join(options))
    return "\n".join(lines) + "\n"


#: the most states a union of number automata reaches before it is minimised (`numbers_dfa.union`)
MAX_UNION_STATES = 1 << 13


def number_dfa(integer: bool, minimum: Any = None, maximum: Any = None, exclusive_minimum: Any = None,
               exclusive_maximum: Any = None, multiple_of: Any = None, not_multiple_of: Sequence[Any] = ()) -> Any:
    """The minimal automaton of the policy spellings `number_regex` describes (the policy's
    integers when nothing constrains integers), past the automaton's bounds the union of the
    listed values' spellings. Raises TooLarge when neither exists, ValueError for an
    unconstrained non-integer (its spellings, with exponents, are no such automaton)."""
    from schemac.numbers.dfa import TooLarge, minimal, policy_reader, product

    try:
        dfa = _automaton(integer, minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of, not_multiple_of)
    except TooLarge:
        bounds = _constraints(minimum, maximum, exclusive_minimum, exclusive_maximum)
        values = _listed_values(integer, bounds, multiple_of, not_multiple_of)
        if values is None:
            raise
        return spellings_dfa(values, integer)
    if dfa is None:
        if not integer:
            raise ValueError("the unconstrained numbers' spellings are not a policy automaton")
        return minimal(product([policy_reader(True)], MAX_STATES))
    return dfa


def spellings_dfa(values: Sequence[Any], integer: bool) -> Any:
    """The minimal automaton of the policy spellings of exactly `values` (integers spelled
    without a fraction when `integer`, numbers with any trailing zeros, never `-0`)."""
    from schemac.numbers.dfa import bound_reader, minimal, policy_reader, product, union

    dfas = [product([policy_reader(integer), bound_reader(fraction(v), "ge"), bound_reader(fraction(v), "le")], MAX_STATES)
            for v in values]
    return minimal(union(dfas, MAX_UNION_STATES))


def _targets(out: dict[str, int]) -> list[tuple[int, frozenset[str]]]:
    """A state's edges grouped by target, in target order (the order the rules reference them)."""
    by_target: dict[int, set[str]] = {}
    for ch, t in out.items():
        by_target.setdefault(t, set()).add(ch)
    return [(t, frozenset(chars)) for t, chars in sorted(by_target.items())]


#: how deep llguidance's Lark compiler may recurse through the number rules. It compiles a rule
#: at its first reference, depth first (compiler.rs `do_rule`), about 2-4 KB of native stack a
#: level: a chain of 2,000 rules compiled on an 8 MB stack and 4,000 overflowed it (a segfault,
#: not an error), 500 compiled on a 2 MB thread stack and 1,000 did not. A residue automaton is
#: strongly connected, so the depth is nearly its state count whatever the rule order.
MAX_RULE_DEPTH = 1000


def fits_rules(dfa: Any) -> bool:
    """Whether llguidance can compile `dfa_rules`' rules for `dfa` (see `MAX_RULE_DEPTH`); the
    chain is at most one rule per state, plus `name` itself."""
    return len(dfa.edges) < MAX_RULE_DEPTH or _compile_depth(dfa) <= MAX_RULE_DEPTH


def _compile_depth(dfa: Any) -> int:
    """The deepest first-reference chain llguidance's compiler follows through the rules that
    `number_rules` writes for `dfa` (the rule `name` itself, then `name_0`, ...)."""
    seen = {0}
    stack = [iter([t for t, _ in _targets(dfa.edges[0]) if dfa.edges[t]])]
    deepest = 2
    while stack:
        for t in stack[-1]:
            if t not in seen:
                seen.add(t)
                stack.append(iter([u for u, _ in _targets(dfa.edges[t]) if dfa.edges[u]]))
                deepest = max(deepest, len(stack) + 1)
                break
        else:
            stack.pop()
    return deepest


#: a regex no text matches (llguidance, RE2 and ECMA-262 all read an empty complement so)
EMPTY = r"[^\s\S]"
