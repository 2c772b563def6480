"""Numbers whose steps need the residue automaton (schemac.numbers_residue) and the rules form.

Exhaustive walks: every text over `-0123456789.e+` up to a length that the compiled grammar
accepts must be exactly the policy spellings (no exponent, no `-0`, no leading zero) of numbers
the ORIGINAL schema accepts (jsonschema on exact Decimals). The MaskBench schemas whose step
products passed the old 4,096-state bound run at full size through the automaton itself over a
range of values, with a Fraction oracle.
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction
from itertools import product

import jsonschema
import pytest

import schemac
from grammar_harness import accepted_texts
from schemac.numbers import MAX_RULE_DEPTH, _automaton, number_rules

_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")


def _policy_texts(digits: str, max_len: int, integer: bool) -> list[str]:
    """Every policy spelling over `digits` (and `-`, `.`) of at most `max_len` characters."""
    out = []
    for n in range(1, max_len + 1):
        for chars in product("-." + digits, repeat=n):
            text = "".join(chars)
            if _NUMBER.fullmatch(text) and not (integer and "." in text) and not (text[0] == "-" and Decimal(text) == 0):
                out.append(text)
    return out


def _not(*steps: object) -> list[dict]:
    return [{"not": {"multipleOf": s}} for s in steps]


# (schema, digits of the walk, walk length): big steps at a reduced size, and the attacks
WALKS = [
    ({"type": "integer", "multipleOf": 7}, "0123456789", 4),
    ({"type": "integer", "allOf": _not(7)}, "0123456789", 4),
    ({"type": "number", "multipleOf": 3, "allOf": _not(2, 7)}, "0123456789", 4),  # allany8, reduced
    ({"type": "number", "multipleOf": 21, "allOf": _not(9), "exclusiveMaximum": -20}, "0123456789", 4),  # allany9
    ({"type": "number", "minimum": 1, "multipleOf": 77}, "0123456789", 4),  # allany1 (770), reduced
    ({"type": "integer", "multipleOf": 6, "allOf": [{"multipleOf": 4}, *_not(9)]}, "0123456789", 4),  # lcm 12
    ({"type": "number", "multipleOf": 0.1, "allOf": _not(0.3, 0.7)}, "01379", 5),
    ({"type": "number", "multipleOf": 0.01, "allOf": _not(0.1)}, "0159", 5),
    ({"type": "number", "allOf": _not(0.3, 7)}, "01379", 5),
    ({"type": "number", "multipleOf": 0.7, "minimum": -2.1, "exclusiveMaximum": 2.8}, "0124789", 5),  # edges
    ({"type": "integer", "multipleOf": 13, "minimum": -26, "maximum": 39}, "0123469", 4),  # edges
    ({"type": "integer", "multipleOf": 11, "allOf": _not(13), "exclusiveMinimum": -143}, "01349", 5),
]


def _oracle(schema: object) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(json.dumps(schema), parse_float=Decimal))


@pytest.mark.parametrize("schema,digits,max_len", WALKS, ids=[json.dumps(w[0]) for w in WALKS])
def test_walk_both_directions(schema: dict, digits: str, max_len: int) -> None:
    grammar = schemac.compile(schema, use_cache=False).grammar
    got = accepted_texts(grammar, "-.e+" + digits, max_len)
    oracle = _oracle(schema)
    want = {t for t in _policy_texts(digits, max_len, schema["type"] == "integer")
            if oracle.is_valid(json.loads(t, parse_float=Decimal))}
    assert not got - want, ("admitted", sorted(got - want)[:10])
    assert not want - got, ("refused", sorted(want - got)[:10])


# The MaskBench parameter sets (as the lowering hands them to number_expr) at full size.
FULL = [
    (False, dict(minimum=1, multiple_of=770)),
    (False, dict(minimum=1, multiple_of=1320)),
    (False, dict(multiple_of=429, not_multiple_of=[12, 77, 6, 7, 44, 8])),
    (False, dict(exclusive_maximum=-100000, multiple_of=4004, not_multiple_of=[429])),
    (False, dict(minimum=1, multiple_of=385, not_multiple_of=[10])),
    (False, dict(minimum=1, multiple_of=3, not_multiple_of=[5, 7, 24, 8, 11])),
    (True, dict(exclusive_minimum=11760, minimum=10000, multiple_of=420, not_multiple_of=[9])),
    (False, dict(multiple_of=Decimal("0.01"), not_multiple_of=[Decimal("0.1"), 7])),
]


def _holds(value: Fraction, integer: bool, c: dict) -> bool:
    if integer and value.denominator != 1:
        return False
    checks = [("minimum", lambda b: value >= b), ("maximum", lambda b: value <= b),
              ("exclusive_minimum", lambda b: value > b), ("exclusive_maximum", lambda b: value < b)]
    if any(k in c and not ok(Fraction(c[k])) for k, ok in checks):
        return False
    if "multiple_of" in c and (value / Fraction(c["multiple_of"])).denominator != 1:
        return False
    return not any((value / Fraction(k)).denominator == 1 for k in c.get("not_multiple_of", ()))


def _runs(dfa: object, text: str) -> bool:
    s = 0
    for ch in text:
        s = dfa.edges[s].get(ch)  # type: ignore[attr-defined]
        if s is None:
            return False
    return s in dfa.accepting  # type: ignore[attr-defined]


@pytest.mark.parametrize("integer,cons", FULL, ids=[repr(c) for _, c in FULL])
def test_full_size_automaton(integer: bool, cons: dict) -> None:
    dfa = _automaton(integer, cons.get("minimum"), cons.get("maximum"), cons.get("exclusive_minimum"),
                     cons.get("exclusive_maximum"), cons.get("multiple_of"), cons.get("not_multiple_of", ()))
    for n in list(range(-1200, 1200)) + list(range(-130000, 130000, 77)) + [10 ** 12 + 3003 * 7, -(10 ** 15) * 4004]:
        for text in (str(n), f"{n}.0", f"{n}.50", f"{n}.07", f"{n}.070", f"{n}.001"):
            value = Fraction(Decimal(text))
            assert _runs(dfa, text) == (_holds(value, integer, cons) and not (integer and "." in text)), (cons, text)
    for text in ("-0", "-0.0", "01", "1.", ".5", "1e3", "+1"):
        assert not _runs(dfa, text), (cons, text)


def test_rules_depth_guard() -> None:
    """A residue automaton deeper than llguidance's compiler can recurse through is refused
    (llguidance would overflow its native stack: a segfault, not an error), at the emit too."""
    assert number_rules("num", integer=True, multiple_of=2 * MAX_RULE_DEPTH - 1) is None
    assert number_rules("num", integer=True, multiple_of=97) is not None
    with pytest.raises(schemac.CompileError) as err:
        schemac.compile({"type": "integer", "multipleOf": 1999}, use_cache=False)
    assert err.value.codes == ["grammar-error"]
