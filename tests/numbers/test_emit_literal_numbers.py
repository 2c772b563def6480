"""Listed numbers (const/enum) are written as exactly the policy spellings of their value: walked
over every spelling up to five characters against an exact Fraction oracle."""
from __future__ import annotations

import itertools
import re
from decimal import Decimal
from fractions import Fraction

import pytest

import schemac
from testkit.grammar_harness import accepted_texts, accepts

_POLICY = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")


ALPHABET = "-0125."


def _texts() -> list[str]:
    return ["".join(p) for n in range(1, 6) for p in itertools.product(ALPHABET, repeat=n)]


def test_walk_agrees_with_one_matcher_per_text() -> None:
    """The forked walk the test below relies on finds what per-text matchers find."""
    grammar = schemac.compile({"enum": [0.5, -12, 1]}).grammar
    assert accepted_texts(grammar, ALPHABET, 4) == {t for t in _texts() if len(t) <= 4 and accepts(grammar, t)}


@pytest.mark.parametrize("value", [0, 5, -12, 1.5, -0.25, 0.1])
def test_listed_number_spellings_are_exact(value: float) -> None:
    exact = Fraction(Decimal(repr(value)) if isinstance(value, float) else value)
    grammar = schemac.compile({"const": value}).grammar
    want = {text for text in _texts()
            if _POLICY.fullmatch(text) and Fraction(Decimal(text)) == exact and not (text[0] == "-" and exact == 0)}
    assert accepted_texts(grammar, ALPHABET, 5) == want


def test_listed_numbers_past_any_bound_length() -> None:
    big = 2 ** 1023
    grammar = schemac.compile({"const": big}).grammar
    assert accepts(grammar, str(big)) and accepts(grammar, str(big) + ".00")
    assert not accepts(grammar, str(big + 1)) and not accepts(grammar, str(big) + "1")
