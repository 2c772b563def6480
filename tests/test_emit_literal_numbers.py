"""Listed numbers (const/enum) are written as exactly the policy spellings of their value: walked
over every spelling up to five characters against an exact Fraction oracle."""
from __future__ import annotations

import itertools
import re
from decimal import Decimal
from fractions import Fraction

import pytest

import schemac
from tests.grammar_harness import accepts

_POLICY = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")


def _texts() -> list[str]:
    alphabet = "-0125."
    return ["".join(p) for n in range(1, 6) for p in itertools.product(alphabet, repeat=n)]


@pytest.mark.parametrize("value", [0, 5, -12, 1.5, -0.25, 0.1])
def test_listed_number_spellings_are_exact(value: float) -> None:
    exact = Fraction(Decimal(repr(value)) if isinstance(value, float) else value)
    grammar = schemac.compile({"const": value}).grammar
    for text in _texts():
        want = bool(_POLICY.fullmatch(text)) and Fraction(Decimal(text)) == exact and not (text[0] == "-" and exact == 0)
        assert accepts(grammar, text) == want, text


def test_listed_numbers_past_any_bound_length() -> None:
    big = 2 ** 1023
    grammar = schemac.compile({"const": big}).grammar
    assert accepts(grammar, str(big)) and accepts(grammar, str(big) + ".00")
    assert not accepts(grammar, str(big + 1)) and not accepts(grammar, str(big) + "1")
