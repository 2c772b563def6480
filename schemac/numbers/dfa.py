"""Number spellings as finite automata, and automata as llguidance regexes.

Why an automaton: a decimal bound or a multipleOf is a property of a number's digit string that a
left-to-right reader decides with finitely many states (a comparison flag per bound, one residue
for all steps: `schemac.numbers.residue`), so intersections are products and the regex falls out
of state elimination, with no double ever involved. Each reader is a `step(state, char) -> state
| None` plus an `accepts(state)`; the alphabet is the number policy's `-0123456789.`.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

ALPHABET = "-0123456789."
DIGITS = "0123456789"

State = Hashable
Step = Callable[[State, str], State | None]

# Syntax phases: Start, after Minus, integer part is Zero, Integer digits, after Dot, Fraction digits.
_ACCEPTING_PHASES = frozenset("ZIF")


def phase_step(phase: str, ch: str, fraction: bool) -> str | None:
    """The policy's syntax: `-?(0|[1-9][0-9]*)(\\.[0-9]+)?` (no fraction when `fraction` is False)."""
    if ch in DIGITS:
        if phase in "SM":
            return "Z" if ch == "0" else "I"
        if phase == "I":
            return "I"
        if phase in "DF":
            return "F"
        return None
    if ch == "-":
        return "M" if phase == "S" else None
    if ch == ".":
        return "D" if fraction and phase in "ZI" else None
    return None


@dataclass(frozen=True)
class Reader:
    """One constraint over spellings: start state, transition, acceptance."""

    start: State
    step: Step
    accepts: Callable[[State], bool]


def policy_reader(integer: bool) -> Reader:
    """Spellings of the policy: integers `-?(0|[1-9][0-9]*)`, numbers with an optional fraction;
    never a negative zero (`-0`, `-0.00`)."""

    def step(state: State, ch: str) -> State | None:
        phase, neg, nonzero = state  # type: ignore[misc]
        nxt = phase_step(phase, ch, not integer)
        if nxt is None:
            return None
        return nxt, neg or ch == "-", nonzero or ch in "123456789"

    def accepts(state: State) -> bool:
        phase, neg, nonzero = state  # type: ignore[misc]
        return phase in _ACCEPTING_PHASES and (nonzero or not neg)

    return Reader(("S", False, False), step, accepts)


def decimal_digits(magnitude: Fraction) -> tuple[str, str]:
    """(integer digits without leading zeros, fraction digits without trailing zeros) of a
    non-negative decimal fraction."""
    whole, rest = divmod(magnitude.numerator, magnitude.denominator)
    frac = []
    while rest:
        rest *= 10
        d, rest = divmod(rest, magnitude.denominator)
        frac.append(str(d))
    return (str(whole) if whole else ""), "".join(frac)


def _sign(x: int | Fraction) -> int:
    return (x > 0) - (x < 0)


def bound_reader(bound: Fraction, relation: str) -> Reader:
    """Spellings whose value v satisfies `v <relation> bound`, relation one of ge gt le lt.

    The magnitude |v| is compared with |bound| digit by digit: integer length first, then the
    integer digits, then the fraction digits (missing digits are zeros). `bound` must be a
    decimal (denominator 2^a·5^b), which every JSON literal is.
    """
    bi, bf = decimal_digits(abs(bound))
    sb = _sign(bound)

    def mag_step(mag: tuple, phase: str, ch: str) -> tuple:
        kind = mag[0]
        if kind in ("lt", "gt"):
            return mag
        if ch == ".":  # the integer part ends here
            k, c = mag[1], mag[2]
            if k < len(bi):
                return ("lt",)
            return ("f", 0) if c == 0 else (("lt",) if c < 0 else ("gt",))
        if ch == "-":
            return mag
        d = ch
        if kind == "i":
            if phase == "Z":  # the integer part "0" has no significant digit
                return mag
            k, c = mag[1], mag[2]
            if k + 1 > len(bi):
                return ("gt",)
            if c == 0:
                c = (d > bi[k]) - (d < bi[k])
            return ("i", k + 1, c)
        j = mag[1]  # kind == "f"
        if j < len(bf):
            if d != bf[j]:
                return ("lt",) if d < bf[j] else ("gt",)
            return ("f", j + 1)
        return ("gt",) if d != "0" else mag

    def step(state: State, ch: str) -> State | None:
        phase, neg, nonzero, mag = state  # type: ignore[misc]
        nxt = phase_step(phase, ch, True)
        if nxt is None:
            return None
        return nxt, neg or ch == "-", nonzero or ch in "123456789", mag_step(mag, nxt, ch)

    def magnitude(mag: tuple) -> int:
        if mag[0] == "lt":
            return -1
        if mag[0] == "gt":
            return 1
        if mag[0] == "i":  # no fraction digits: equal integer parts leave |bound|'s fraction
            return -1 if mag[1] < len(bi) else mag[2] or (-1 if bf else 0)
        return -1 if mag[1] < len(bf) else 0  # bf has no trailing zero: a digit left is nonzero

    def accepts(state: State) -> bool:
        phase, neg, nonzero, mag = state  # type: ignore[misc]
        if phase not in _ACCEPTING_PHASES:
            return False
        if not nonzero:
            cmp = -sb
        else:
            sv = -1 if neg else 1
            cmp = (1 if sv > sb else -1) if sv != sb else sv * magnitude(mag)
        return {"ge": cmp >= 0, "gt": cmp > 0, "le": cmp <= 0, "lt": cmp < 0}[relation]

    return Reader(("S", False, False, ("i", 0, 0)), step, accepts)


# ---- automata -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dfa:
    """States 0..n-1, start 0; `edges[s]` maps a character to the next state (absent: dead)."""

    edges: tuple[dict[str, int], ...]
    accepting: frozenset[int]


#: the syntax and bound readers' product (two 32-digit bounds stay far below it)
MAX_SYNTAX_STATES = 1 << 14


class TooLarge(Exception):
    """The automaton or its regex passes the size bound."""


def reachable(start: tuple, step: Callable[[tuple, str], tuple | None], accepts: Callable[[tuple], bool],
               max_states: int) -> Dfa:
    """The automaton of the tuple states reachable from `start` by `step` (None: no edge)."""
    index: dict[tuple, int] = {start: 0}
    order = [start]
    edges: list[dict[str, int]] = []
    i = 0
    while i < len(order):
        out: dict[str, int] = {}
        for ch in ALPHABET:
            key = step(order[i], ch)
            if key is None:
                continue
            if key not in index:
                if len(order) >= max_states:
                    raise TooLarge(f"more than {max_states} automaton states")
                index[key] = len(order)
                order.append(key)
            out[ch] = index[key]
        edges.append(out)
        i += 1
    return Dfa(tuple(edges), frozenset(n for n, st in enumerate(order) if accepts(st)))


def product(readers: Sequence[Reader], max_states: int) -> Dfa:
    """The automaton of the spellings every reader accepts (reachable states only)."""
    def step(cur: tuple, ch: str) -> tuple | None:
        nxt = []
        for reader, s in zip(readers, cur):
            t = reader.step(s, ch)
            if t is None:
                return None
            nxt.append(t)
        return tuple(nxt)

    return reachable(tuple(r.start for r in readers), step,
                      lambda st: all(r.accepts(s) for r, s in zip(readers, st)), max_states)


def union(dfas: Sequence[Dfa], max_states: int) -> Dfa:
    """The automaton of the spellings some automaton of `dfas` accepts (reachable states only).

    Why: the numbers several alternatives admit at one value position are written as one
    automaton (`schemac.emit.lark.numbers`), never as one lexeme beside another's rules."""
    def step(cur: tuple, ch: str) -> tuple | None:
        key = tuple(None if s is None else d.edges[s].get(ch) for d, s in zip(dfas, cur))
        return None if all(t is None for t in key) else key

    return reachable(tuple(0 for _ in dfas), step,
                      lambda st: any(s in d.accepting for d, s in zip(dfas, st)), max_states)


def minimal(dfa: Dfa) -> Dfa:
    """The minimal automaton without dead states (Moore's partition refinement)."""
    n = len(dfa.edges)
    live = set(dfa.accepting)
    changed = True
    while changed:  # states that can reach acceptance
        changed = False
        for s in range(n):
            if s not in live and any(t in live for t in dfa.edges[s].values()):
                live.add(s)
                changed = True
    if 0 not in live:
        return Dfa(({},), frozenset())
    block = {s: int(s in dfa.accepting) for s in live}
    count = len(set(block.values()))
    while True:  # each round splits blocks whose members step into different blocks
        sig = {s: (block[s], tuple(block.get(dfa.edges[s].get(ch, -1), -1) for ch in ALPHABET)) for s in live}
        ids: dict[object, int] = {}
        block = {s: ids.setdefault(sig[s], len(ids)) for s in sorted(live)}
        if len(ids) == count:
            break
        count = len(ids)
    renum: dict[int, int] = {block[0]: 0}
    for s in sorted(live):
        renum.setdefault(block[s], len(renum))
    edges: list[dict[str, int]] = [{} for _ in renum]
    accepting: set[int] = set()
    for s in live:
        b = renum[block[s]]
        for ch, t in dfa.edges[s].items():
            if t in live:
                edges[b][ch] = renum[block[t]]
        if s in dfa.accepting:
            accepting.add(b)
    return Dfa(tuple(edges), frozenset(accepting))
