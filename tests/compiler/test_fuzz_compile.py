"""Hypothesis fuzzing of the whole compiler (issue 6), bounded for CI and derandomised
(tests/conftest.py): the same examples on every run; `benchmarks/fuzz_deep.py SEED` explores.

Random combinations of the keywords schemac lowers and rejects: compiling never raises anything
but CompileError, and random walks of every compiled grammar (uniform over the allowed bytes of
a byte-level tokenizer) produce answers the final validator accepts.
"""
from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schemac
from schemac.diagnostics import CompileError
from schemac.validate.final import FinalValidator, parse_answer
from testkit.fuzz_schemas import SCHEMAS, byte_tokenizer, random_walk

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=SCHEMAS, seed=st.integers(0, 2**32 - 1))
def test_compile_raises_only_compile_error_and_walks_are_valid(schema: Any, seed: int) -> None:
    try:
        artifact = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert exc.codes, exc
        return
    validator = FinalValidator(artifact.schema)
    rng = random.Random(seed)
    for _ in range(4):
        answer = random_walk(artifact.grammar, rng)
        if answer is None:
            continue
        try:
            value = parse_answer(answer)
        except ValueError as exc:
            if "duplicate object key" in str(exc):
                continue  # documented grammar gap (README "Known gaps"), pinned below
            raise AssertionError(f"{schema!r} produced unparsable {answer!r}: {exc}") from None
        assert validator.is_valid(value), (schema, answer, validator.errors(value))


@pytest.mark.parametrize("text, valid", [("[0]", False), ("[null]", False), ("[0.5]", False), ("[0.0]", False),
                                         ("[-0]", False), ("[1]", True), ("[0.25]", True), ("[[]]", True)])
def test_negated_enum_items_regression(text: str, valid: bool) -> None:
    """What this fuzz test found on a fresh clone (issue 13): `not: {enum: [null, 0, 0.5]}` lowered
    to llguidance numeric ranges that are not exact and admitted `[0]`. Kept as an explicit example
    now that hypothesis runs derandomised (tests/conftest.py): the grammar and final validation
    must agree, or the schema must be rejected."""
    schema = {"type": "array", "items": {"not": {"enum": [None, 0, 0.5]}}}
    try:
        artifact = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert exc.codes, exc
        return
    assert FinalValidator(artifact.schema).is_valid(parse_answer(text)) is valid
    admitted = _accepts(artifact.grammar, text.encode())
    assert not admitted or valid, f"the grammar admits invalid {text}"


def _accepts(grammar: str, text: bytes) -> bool:
    import llguidance

    matcher = llguidance.LLMatcher(byte_tokenizer(), grammar, log_level=0)
    return all(matcher.consume_token(b) for b in text) and matcher.is_accepting()


@pytest.mark.parametrize("schema", [{"type": "number"}, {}, {"type": "array", "items": {"type": "number"}}])
@pytest.mark.parametrize("number", ["1e400", "-1E+400", "1e-400", "0.30000000000000000001"])
def test_numbers_past_the_double_range_are_valid_answers(schema: Any, number: str) -> None:
    """The grammar admits any RFC 8259 number; the final check agrees (numbers are mathematical)."""
    artifact = schemac.compile(schema, use_cache=False)
    text = f"[{number}]" if schema.get("type") == "array" else number
    assert _accepts(artifact.grammar, text.encode())
    assert FinalValidator(artifact.schema).is_valid(parse_answer(text))


def test_duplicate_keys_are_the_documented_grammar_gap() -> None:
    """llguidance does not enforce unique keys in open objects; parse_answer refuses them, so
    such an answer is an error and never a success (README "Known gaps")."""
    artifact = schemac.compile({"type": "object", "additionalProperties": {"type": "integer"}}, use_cache=False)
    text = '{"a":1,"a":2}'
    assert _accepts(artifact.grammar, text.encode())
    with pytest.raises(ValueError, match="duplicate object key 'a'"):
        parse_answer(text)
