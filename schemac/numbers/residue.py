"""Every step constraint of a number (`multipleOf`, and the steps it must NOT be a multiple of) as
one minimal automaton, built over the smallest modulus that decides them.

Why one reader instead of one per step: the product of separate residue readers explores every
reachable tuple of residues, and with the syntax phases and a bound beside them passes
`MAX_STATES` long before minimisation (`multipleOf: 1320, minimum: 1` reached 7,950 states for
a 43-state minimal automaton; `multipleOf: 429` and four `not multipleOf` steps 144,152 for
3,013). Here all steps are read as one residue of the scaled value V = v·10^q (q: the most
fraction digits any step spells) modulo the period of the predicate ("a multiple of the first,
of none of the others"), the residue is frozen once no later digit can change it, and the result
is minimised alone before it meets the (small) syntax and bound readers.
"""
from __future__ import annotations

import math
from fractions import Fraction

from schemac.numbers.dfa import DIGITS, Dfa, Reader, State, TooLarge, phase_step, minimal, product

#: the modulus (lcm of the scaled steps) above which the predicate is not tabulated
MAX_MODULUS = 1 << 17
#: states of the residue reader before minimisation
MAX_RESIDUE_STATES = 1 << 16
_ACCEPTING = frozenset("ZIF")


def _scaled(step: Fraction) -> tuple[int, int]:
    """(p, q) with `step` = p / 10^q and q as small as possible (a JSON step is a decimal)."""
    q = 0
    while (step * 10 ** q).denominator != 1:
        q += 1
        if q > 64:
            raise TooLarge("a step with more than 64 fraction digits")
    return int(step * 10 ** q), q


def _primes(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        if n % p == 0:
            out.append(p)
            while n % p == 0:
                n //= p
        p += 1
    return out + ([n] if n > 1 else [])


def _period(modulus: int, holds: list[bool]) -> int:
    """The smallest divisor g of `modulus` with holds[x] == holds[x mod g] for every x: the
    predicate's periods form the subgroup gZ/modulus, so dividing out primes while the quotient
    stays a period reaches g."""
    g = modulus
    for p in _primes(modulus):
        while g % p == 0 and all(holds[x] == holds[x % (g // p)] for x in range(g)):
            g //= p
    return g


def residue_dfa(integer: bool, multiple_of: Fraction | None, avoid: list[Fraction]) -> Dfa:
    """The minimal automaton of the syntax `-?(0|[1-9][0-9]*)(\\.[0-9]+)?` (no fraction when
    `integer`) restricted to values that are a multiple of `multiple_of` (when given) and of no
    step in `avoid`. Negative zero is the policy reader's business, not this one's."""
    steps = ([multiple_of] if multiple_of is not None else []) + list(avoid)
    scaled = [_scaled(s) for s in steps]
    q = max(k for _, k in scaled)
    moduli = [p * 10 ** (q - k) for p, k in scaled]
    modulus = math.lcm(*moduli)
    if modulus > MAX_MODULUS:
        raise TooLarge(f"a step modulus of {modulus}")
    first = 1 if multiple_of is not None else 0
    holds = [(first == 0 or x % moduli[0] == 0) and all(x % m for m in moduli[first:]) for x in range(modulus)]
    g = _period(modulus, holds)
    off_ok = multiple_of is None  # a nonzero digit past the q-th: V is no integer, a multiple of no step
    scale = [10 ** (q - j) for j in range(q + 1)]

    def step(state: State, ch: str) -> State | None:
        """(phase, V's prefix mod g, fraction digits read); the residue becomes the verdict
        "yes"/"no" once q fraction digits are read, or "off" past a nonzero digit after them."""
        phase, r, j = state  # type: ignore[misc]
        nxt = phase_step(phase, ch, not integer)
        if nxt is None:
            return None
        if isinstance(r, str):
            if nxt == "F" and ch != "0" and r != "off":
                return (nxt, "off", 0) if off_ok else None
            return nxt, r, 0
        if ch in DIGITS:
            r = (10 * r + int(ch)) % g
            j += nxt == "F"
        if nxt in "DF" and j == q:  # no later digit moves V
            return nxt, "yes" if holds[r] else "no", 0
        return nxt, r, j

    def accepts(state: State) -> bool:
        phase, r, j = state  # type: ignore[misc]
        if phase not in _ACCEPTING:
            return False
        return r in ("yes", "off") if isinstance(r, str) else holds[r * scale[j] % g]

    return minimal(product([Reader(("S", 0, 0), step, accepts)], MAX_RESIDUE_STATES))


def dfa_reader(dfa: Dfa) -> Reader:
    """An automaton as a reader, to meet the other readers in `numbers_dfa.product`."""
    edges, accepting = dfa.edges, dfa.accepting
    return Reader(0, lambda s, ch: edges[s].get(ch), lambda s: s in accepting)  # type: ignore[index]
