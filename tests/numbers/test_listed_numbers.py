"""Listed numbers at one position are one terminal (`schemac.emit.lark.listed_numbers`): walked over
every text of up to five characters against the final validator and the syntax policy, for mixed
enums (integers, fractions, negatives, shared prefixes), and numeric enums of the loader's size."""
from __future__ import annotations

import itertools
import re

import pytest

import schemac
from schemac.emit.lark.listed_numbers import listed_numbers_regex
from schemac.validate.final import FinalValidator
from testkit.grammar_harness import accepted_texts, accepts, valid_text

#: the syntax policy's number spellings: no exponent, no `-0`, no leading zeros
_POLICY = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
ALPHABET = "-0125.e"

ENUMS = [
    [0, 1, 10, 12, 0.5, -1, -0.25, 1.25, 100, 0.012, 21, -20, 2.5, 15, 5],
    [1.5, 1.25, 1.205, 1, 2, 20, 200, -2, -0.5],
    [0.0, -0.0, 5.0, 10, 10.0, 2e0],
]


@pytest.mark.parametrize("enum", ENUMS)
def test_listed_numbers_walk_exactly(enum: list[float]) -> None:
    """The grammar admits exactly the policy spellings of the listed values: near values
    (`1.2`, `11`), other spellings (`1e0`, `-0`, `01`, `1.`) and numbers of other lengths refused."""
    schema = {"enum": enum, "type": "number"}
    grammar = schemac.compile(schema, use_cache=False).grammar
    oracle = FinalValidator(schema)
    texts = ["".join(p) for n in range(1, 6) for p in itertools.product(ALPHABET, repeat=n)]
    want = {t for t in texts if _POLICY.fullmatch(t) and not re.fullmatch(r"-0(\.0+)?", t) and valid_text(oracle, t)}
    assert accepted_texts(grammar, ALPHABET, 5) == want


def test_a_bare_numeric_enum_of_the_loaders_size_compiles() -> None:
    """50,000 listed numbers (the loader's limit) are one lexeme: no 50,000-item parser row."""
    values = [v * 7 - 120_000 for v in range(50_000)]
    grammar = schemac.compile({"enum": values}, use_cache=False).grammar
    for v in (values[0], values[-1], values[12_345], 0.0 + values[9]):
        assert accepts(grammar, str(v))
    assert accepts(grammar, f"{values[3]}.00")
    for text in (str(values[1] + 1), str(values[-1] + 7), f"{values[5]}.5", "1e3", "-0", "0" + str(values[20_000])):
        assert not accepts(grammar, text)


def test_regex_renders_shared_rests_as_classes() -> None:
    assert listed_numbers_regex(range(10)) == r"[0-9](?:\.0+)?"
    assert listed_numbers_regex([0.5, 0.25]) == r"0\.(?:5(?:0+)?|25(?:0+)?)"
