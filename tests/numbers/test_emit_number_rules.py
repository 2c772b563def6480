"""Numbers whose steps need the residue automaton (schemac.numbers.residue) and the rules form.

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
import random
from typing import Any

import jsonschema
import pytest

import schemac
from testkit.grammar_harness import accepted_texts
from schemac.numbers.exact import MAX_RULE_DEPTH, _automaton, number_rules

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


# ---- several number alternatives at one value position -------------------------------------
# llguidance's lexer is greedy: a number written as rules (one character per lexeme) beside an
# alternative whose number is one lexeme was cut short (`105` refused for `anyOf: [{multipleOf:
# 7}, {maximum: 100}]` on integers). Every text over the alphabet below is walked through the
# grammar and judged by an exact oracle (Fractions, never floats): no accepted text is invalid,
# and every valid number in the policy's spelling for some alternative that admits it is accepted.

def _exact(x: object) -> Fraction:
    return Fraction(Decimal(repr(x)) if isinstance(x, float) else x)  # type: ignore[arg-type]


def _types(schema: dict) -> list[str]:
    t = schema.get("type", ["number"])
    return [t] if isinstance(t, str) else t


def _own(schema: dict, v: Fraction) -> bool:
    """`schema`'s own keywords (no applicator) on the number v, exactly."""
    types = _types(schema)
    if "number" not in types and not ("integer" in types and v.denominator == 1):
        return False
    checks = [("minimum", lambda b: v >= b), ("maximum", lambda b: v <= b), ("exclusiveMinimum", lambda b: v > b),
              ("exclusiveMaximum", lambda b: v < b), ("multipleOf", lambda b: (v / b).denominator == 1)]
    if any(k in schema and not ok(_exact(schema[k])) for k, ok in checks):
        return False
    listed = [schema["const"]] if "const" in schema else schema.get("enum")
    if listed is not None and not any(isinstance(x, (int, float)) and not isinstance(x, bool) and _exact(x) == v for x in listed):
        return False
    return "not" not in schema or not _holds_schema(schema["not"], v)


def _holds_schema(schema: object, v: Fraction) -> bool:
    """Whether the number v is valid against `schema` (the walked subset of JSON Schema)."""
    if isinstance(schema, bool):
        return schema
    assert isinstance(schema, dict)
    return (_own(schema, v) and all(_holds_schema(p, v) for p in schema.get("allOf", []))
            and ("anyOf" not in schema or any(_holds_schema(b, v) for b in schema["anyOf"]))
            and ("oneOf" not in schema or sum(_holds_schema(b, v) for b in schema["oneOf"]) == 1))


_VALUE_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "not", "const", "enum")


def _spelled(schema: object, text: str, v: Fraction, full: bool, integer: bool = False) -> bool:
    """Whether the policy demands `text` (value v, valid or not): some alternative admits v and
    spells it so: integers without a fraction under an integer type, and the whole JSON grammar
    (`full`: exponents, `-0`) only for numbers no value keyword (nor a oneOf) constrains."""
    if isinstance(schema, bool):
        return schema and not full and not (integer and "." in text)
    assert isinstance(schema, dict)
    types = _types(schema)
    integer = integer or "number" not in types
    if (integer and ("." in text or full)) or (full and any(k in schema for k in _VALUE_KEYS)) or not _own(schema, v):
        return False
    if not all(_spelled(p, text, v, full, integer) for p in schema.get("allOf", [])):
        return False
    if "anyOf" in schema and not any(_spelled(b, text, v, full, integer) for b in schema["anyOf"]):
        return False
    # under a oneOf each branch excludes the others' values: a value constraint, spelled narrowly
    return "oneOf" not in schema or (not full and _holds_schema(schema, v)
                                     and any(_spelled(b, text, v, full, integer) for b in schema["oneOf"]))


def _json_numbers(digits: str, max_len: int) -> list[str]:
    """Every JSON number spelling over `digits` of at most `max_len` characters."""
    def runs(n: int) -> list[str]:
        return ["".join(p) for k in range(1, n + 1) for p in product(digits, repeat=k)]

    def parts(options: list[str], room: int) -> dict[int, list[str]]:
        by_len: dict[int, list[str]] = {}
        for o in options:
            if len(o) <= room:
                by_len.setdefault(len(o), []).append(o)
        return by_len

    wholes = parts((["0"] if "0" in digits else []) + [d + r for d in digits if d != "0" for r in [""] + runs(max_len - 1)], max_len)
    tails = parts([""] + ["." + r for r in runs(max_len - 2)], max_len)
    exps = parts([""] + [e + s + r for e in "eE" for s in ("", "+", "-") for r in runs(max_len - 2 - len(s))], max_len)
    out = []
    for sign in ("", "-"):
        for lw, ws in wholes.items():
            for lt, ts in tails.items():
                for le, es in exps.items():
                    if len(sign) + lw + lt + le <= max_len:
                        out += [sign + w + t + e for w in ws for t in ts for e in es]
    return out


def _mixed_walk(schema: dict, digits: str, max_len: int) -> None:
    grammar = schemac.compile(schema, use_cache=False).grammar
    got = accepted_texts(grammar, "-.eE+" + digits, max_len)
    spellings = _json_numbers(digits, max_len)
    known = set(spellings)
    bad = [t for t in got if t not in known or not _holds_schema(schema, Fraction(Decimal(t)))]
    assert not bad, ("admitted", sorted(bad)[:10])
    missing = []
    for t in spellings:
        v = Fraction(Decimal(t))
        narrow = _NUMBER.fullmatch(t) is not None and not (t[0] == "-" and v == 0)
        if t not in got and _spelled(schema, t, v, not narrow):
            missing.append(t)
    assert not missing, ("refused", sorted(missing)[:10])


def _int(**kw: object) -> dict:
    return {"type": "integer", **kw}


# (schema, digits, walk length): every mix of number forms at one position
MIXED = [
    ({"anyOf": [_int(multipleOf=7), _int(maximum=100)]}, "0123456789", 4),
    ({"anyOf": [_int(multipleOf=7), _int(maximum=100)]}, "01579", 6),
    ({"anyOf": [_int(allOf=_not(7)), _int(maximum=100)]}, "0123456789", 4),
    ({"anyOf": [_int(allOf=_not(4)), {"multipleOf": 0.3, "allOf": _not(0.9)}]}, "0123456789", 4),
    ({"anyOf": [_int(allOf=_not(4)), {"multipleOf": 0.3, "allOf": _not(0.9)}]}, "01239", 6),
    ({"anyOf": [_int(multipleOf=7), {"const": 10}, {"enum": [1.5, -0.25, "a", 105.5]}]}, "0123456789", 4),
    ({"anyOf": [_int(multipleOf=7), {"const": 10}, {"enum": [1.5, -0.25, "a", 105.5]}]}, "012579", 5),
    ({"anyOf": [_int(), {"multipleOf": 0.3, "allOf": _not(0.9)}]}, "0123456789", 4),  # a %json integer beside rules
    ({"type": ["integer", "string"], "anyOf": [{"multipleOf": 7}, {"exclusiveMaximum": 100, "exclusiveMinimum": -3}]},
     "0123456789", 4),
    ({"allOf": [{"anyOf": [{"multipleOf": 7}, {"maximum": 100}]}, {"type": "integer"},
                {"anyOf": [{"minimum": -50}, {"multipleOf": 3}]}]}, "0123456789", 4),  # merged allOf, distributed
    ({"oneOf": [_int(multipleOf=7), _int(maximum=100)]}, "0123456789", 4),
    ({"anyOf": [{"type": "number", "multipleOf": 0.7, "exclusiveMinimum": -2.1},
                {"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 3}]}, "0123456789", 4),
    ({"anyOf": [_int(allOf=_not(7)), {"type": "number", "maximum": 1e-3, "minimum": -1e30}]}, "01279", 5),
    ({"anyOf": [_int(multipleOf=7), {"type": "number", "exclusiveMinimum": 1e30}, {"const": 1e-4}]}, "0123456789", 4),
    ({"anyOf": [_int(multipleOf=7), {"type": "number", "multipleOf": 0.5, "maximum": 2}, _int(minimum=9990)]},
     "0123456789", 4),
    ({"anyOf": [_int(multipleOf=97), _int(multipleOf=89), _int(maximum=5)]}, "0123456789", 4),  # past the union bound
    ({"anyOf": [_int(multipleOf=7), {"type": "number"}]}, "0123456789", 4),  # every number: exponents too
    ({"anyOf": [_int(allOf=_not(7)), {"const": 14}, _int(exclusiveMinimum=-3, exclusiveMaximum=3)]}, "0123456789", 4),
]


@pytest.mark.parametrize("schema,digits,max_len", MIXED, ids=[f"{json.dumps(m[0])}-{m[2]}" for m in MIXED])
def test_mixed_number_alternatives_exact(schema: dict, digits: str, max_len: int) -> None:
    _mixed_walk(schema, digits, max_len)


def test_mixed_numbers_beside_other_values() -> None:
    """Where the numbers of a position are written apart, its other values stay as they were:
    strings, arrays, null and listed values of the same branches, at a property."""
    from testkit.grammar_harness import accepts

    inner = {"anyOf": [_int(multipleOf=7), {"type": ["boolean", "string"], "maxLength": 2},
                       {"type": "array", "maxItems": 1}, {"enum": [None, 1.5, "abc"]}, _int(maximum=100)]}
    grammar = schemac.compile({"type": "object", "properties": {"n": inner}, "required": ["n"],
                               "additionalProperties": False}, use_cache=False).grammar
    texts = {"105": True, "1001": True, "50": True, "-7": True, "1.5": True, "1.50": True, "102": False, "1.25": False,
             '"ab"': True, '"abc"': True, '"abcd"': False, "true": True, "[]": True, "[1]": True, "[1, 2]": False,
             "null": True, "{}": False}
    assert {t: accepts(grammar, f'{{"n": {t}}}') for t in texts} == texts


# ---- the residue automaton against exact fractions (attack round 8)

_STEPS = [Decimal(s) for s in ("0.1", "0.3", "7", "0.25", "2.5", "1.5", "0.7", "0.05", "11", "1.1", "0.125", "12.5",
                               "3.3", "0.001", "6", "0.04", "0.07", "13", "0.13")]


_BOUNDS: list[Any] = [None, Decimal("-3"), Decimal("0"), Decimal("0.5"), Decimal("-0.7"), Decimal("7"), Decimal("2.1")]


def _number_texts() -> list[str]:
    import re

    number = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
    out = ["".join(cs) for n in range(1, 5) for cs in product("-.0137", repeat=n)]
    return [t for t in out if number.fullmatch(t) and not (t[0] == "-" and Decimal(t) == 0)] + [
        "0.0000", "0.1250", "12.50", "39.00", "91.0", "1.10", "3.30", "-0.13", "-1.3", "0.001", "77", "143"]


def test_residue_automaton_held() -> None:
    """`numbers._automaton` (residue reader, bounds, integer syntax) against exact Fractions over
    random multipleOf / not-multipleOf / bound combinations (policy spellings, no `-0`)."""
    from schemac.numbers.exact import _automaton
    from schemac.numbers.dfa import TooLarge

    texts = _number_texts()
    rng = random.Random(8)
    checked = 0
    for _ in range(120):
        integer = rng.random() < 0.3
        step = rng.choice([None, *_STEPS])
        avoid = tuple(rng.sample(_STEPS, rng.randint(0, 3)))
        lo, hi, xlo, xhi = (rng.choice(_BOUNDS) if rng.random() < 0.3 else None for _ in range(4))
        try:
            dfa = _automaton(integer, lo, hi, xlo, xhi, step, avoid)
        except TooLarge:
            continue
        if dfa is None:
            continue
        checked += 1
        for t in texts:
            v = Fraction(Decimal(t))
            want = not (integer and "." in t)
            want = want and (lo is None or v >= lo) and (hi is None or v <= hi)
            want = want and (xlo is None or v > xlo) and (xhi is None or v < xhi)
            want = want and (step is None or (v / Fraction(step)).denominator == 1)
            want = want and all((v / Fraction(s)).denominator != 1 for s in avoid)
            state: int | None = 0
            for ch in t:
                state = None if state is None else dfa.edges[state].get(ch)
            assert (state is not None and state in dfa.accepting) == want, (t, integer, lo, hi, xlo, xhi, step, avoid)
    assert checked > 60
